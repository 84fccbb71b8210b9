//! What the Gomoku and Dou Dizhu screens keep and do alike ([`TableScreen`]): the
//! table as the server last described it and how far the stream has gone past it, the
//! event log, the footer, and the rules of a seat that do not depend on the game:
//! spectators cannot act, `leave` during a game is an escape and is asked twice,
//! `next` at a closed table queues again in the same room, and a player still seated
//! is told how to come back.
//!
//! Each game's screen holds a [`TableScreen`] of its table type ([`TableView`]) and
//! adds its own commands, state and drawing.

use std::collections::VecDeque;

use crossterm::event::KeyEvent;
use gamehub_proto::doudizhu as ddz;
use gamehub_proto::gomoku as gm;

use super::follow::Feed;
use super::screen::Footer;
use super::term::Edit;

/// What the shared part of a screen needs to know of a game's table.
pub trait TableView {
    /// The event type of the table's stream.
    type Event;
    /// The game's name in the screen's title.
    const GAME: &'static str;
    /// The `gamehub play` subcommand of the game.
    const PLAY_COMMAND: &'static str;
    /// The id of the last event the table includes.
    fn last_event_id(&self) -> u64;
    /// An event's id.
    fn event_id(event: &Self::Event) -> u64;
    /// The seat the caller holds at the table, if any.
    fn caller_seat(&self) -> Option<i32>;
    /// Whether the table is closed for good.
    fn is_closed(&self) -> bool;
    /// The room the table belongs to.
    fn room_id(&self) -> Option<&str>;
    /// The server's clock when it described the table (Unix ms), if the table says.
    fn server_time_unix_ms(&self) -> Option<i64>;
}

impl TableView for gm::Table {
    type Event = gm::TableEvent;
    const GAME: &'static str = "Gomoku";
    const PLAY_COMMAND: &'static str = "gomoku";

    fn last_event_id(&self) -> u64 {
        self.last_event_id
    }

    fn event_id(event: &gm::TableEvent) -> u64 {
        event.event_id
    }

    fn caller_seat(&self) -> Option<i32> {
        self.your_seat
    }

    fn is_closed(&self) -> bool {
        self.status() == gm::TableStatus::Closed
    }

    fn room_id(&self) -> Option<&str> {
        Some(&self.room_id)
    }

    fn server_time_unix_ms(&self) -> Option<i64> {
        (self.server_time_unix_ms > 0).then_some(self.server_time_unix_ms)
    }
}

impl TableView for ddz::Table {
    type Event = ddz::TableEvent;
    const GAME: &'static str = "Dou Dizhu";
    const PLAY_COMMAND: &'static str = "doudizhu";

    fn last_event_id(&self) -> u64 {
        u64::try_from(self.last_event_id).unwrap_or(0)
    }

    fn event_id(event: &ddz::TableEvent) -> u64 {
        u64::try_from(event.event_id).unwrap_or(0)
    }

    fn caller_seat(&self) -> Option<i32> {
        (self.viewer_seat >= 0).then_some(self.viewer_seat)
    }

    fn is_closed(&self) -> bool {
        self.status() == ddz::TableStatus::Closed
    }

    fn room_id(&self) -> Option<&str> {
        self.stakes.as_ref().map(|s| s.room_id.as_str())
    }

    fn server_time_unix_ms(&self) -> Option<i64> {
        None
    }
}

/// A successful action: the table after it and something to tell the player.
#[derive(Debug, Clone)]
pub struct Acted<T> {
    /// The table after the action.
    pub table: Option<T>,
    /// Something to tell the player (e.g. a claim's verdict).
    pub remark: Option<String>,
}

impl<T> Acted<T> {
    /// The table after the action, nothing to tell.
    pub fn plain(table: Option<T>) -> Self {
        Self {
            table,
            remark: None,
        }
    }
}

/// What a spectator is told when typing an action.
const SPECTATORS_CANNOT_ACT: &str =
    "you are watching this table; spectators cannot act (quit to stop)";

/// The part of a table screen that both games share.
#[derive(Debug)]
pub struct TableScreen<T> {
    /// The table's id, for the title before the first table arrives.
    table_id: String,
    /// Watching, not playing: no actions.
    pub spectator: bool,
    /// The table as the server last described it.
    table: Option<T>,
    /// The server's clock minus ours when that table arrived, to run the clocks (0
    /// when the table does not carry the server's time).
    skew_ms: i64,
    /// The highest event id the stream delivered.
    latest_event_id: u64,
    /// A GetTable is in flight.
    refreshing: bool,
    /// What happened, newest last.
    log: VecDeque<String>,
    /// Lines of the log kept on screen.
    log_lines: usize,
    /// Status, messages, command line.
    pub footer: Footer,
    /// `leave` was typed once during a game; the next `leave` escapes.
    confirm_leave: bool,
    /// Show the command list.
    pub show_help: bool,
    /// The player left the table.
    left: bool,
    /// The player asked for another table (`next` at a closed table).
    requeue: bool,
    /// The player left the table or quit.
    done: bool,
}

impl<T: TableView> TableScreen<T> {
    /// The screen of `table_id`, as its player or as a spectator, keeping `log_lines`
    /// lines of the log.
    pub fn new(table_id: &str, spectator: bool, log_lines: usize) -> Self {
        Self {
            table_id: table_id.to_owned(),
            spectator,
            table: None,
            skew_ms: 0,
            latest_event_id: 0,
            refreshing: false,
            log: VecDeque::new(),
            log_lines,
            footer: Footer::default(),
            confirm_leave: false,
            show_help: false,
            left: false,
            requeue: false,
            done: false,
        }
    }

    /// The table as last seen.
    pub fn table(&self) -> Option<&T> {
        self.table.as_ref()
    }

    /// The server's clock minus ours.
    pub fn skew_ms(&self) -> i64 {
        self.skew_ms
    }

    /// The log, oldest first.
    pub fn log(&self) -> &VecDeque<String> {
        &self.log
    }

    /// The player's own seat at the table (never a spectator's).
    pub fn my_seat(&self) -> Option<i32> {
        if self.spectator {
            return None;
        }
        self.table.as_ref().and_then(T::caller_seat)
    }

    /// Whether the table is closed for good.
    pub fn closed(&self) -> bool {
        self.table.as_ref().is_some_and(T::is_closed)
    }

    /// Whether the player left the table or quit.
    pub fn finished(&self) -> bool {
        self.done
    }

    /// The room to queue in again when the player asked for another table.
    pub fn requeue(&self) -> Option<String> {
        self.requeue
            .then(|| {
                self.table
                    .as_ref()
                    .and_then(|t| t.room_id().map(str::to_owned))
            })
            .flatten()
    }

    /// How to come back, when the player still sits at a table that goes on.
    pub fn come_back(&self) -> Option<String> {
        let seated = self.my_seat().is_some() && !self.closed() && !self.left;
        seated.then(|| {
            format!(
                "you are still seated at table {}; `gamehub play {}` takes you back to it",
                self.table_id,
                T::PLAY_COMMAND
            )
        })
    }

    /// What the screen shows before the first table arrives.
    pub fn loading(&self) -> Vec<String> {
        vec![
            format!("{} · table {}", T::GAME, self.table_id),
            String::new(),
            "loading the table…".into(),
        ]
    }

    /// Takes `table` unless a newer one is already shown.
    fn set_table(&mut self, table: T, now_ms: i64) {
        if let Some(current) = &self.table
            && current.last_event_id() > table.last_event_id()
        {
            return;
        }
        if let Some(server_ms) = table.server_time_unix_ms() {
            self.skew_ms = server_ms - now_ms;
        }
        self.latest_event_id = self.latest_event_id.max(table.last_event_id());
        self.table = Some(table);
    }

    /// Follows a feed item: the connection, a snapshot, an event's id. Returns the
    /// event, for the game to log.
    pub fn feed(&mut self, feed: Feed<T, T::Event>, now_ms: i64) -> Option<T::Event> {
        self.footer.link_feed(&feed, now_ms);
        match feed {
            Feed::Snapshot(table) => {
                self.set_table(table, now_ms);
                None
            }
            Feed::Event(event) => {
                self.latest_event_id = self.latest_event_id.max(T::event_id(&event));
                Some(event)
            }
            Feed::Reconnecting { .. } | Feed::Live | Feed::Ended(_) => None,
        }
    }

    /// `refresh` (the game's GetTable) when the stream is ahead of the table shown,
    /// one at a time.
    pub fn refresh_if_behind<R>(&mut self, refresh: R) -> Vec<R> {
        let shown = self.table.as_ref().map_or(0, T::last_event_id);
        if self.refreshing || self.latest_event_id <= shown {
            return Vec::new();
        }
        self.refreshing = true;
        vec![refresh]
    }

    /// GetTable's answer. After an error nothing is asked again at once (that would
    /// repeat the failing call without a pause): the next event asks.
    pub fn refreshed<R>(&mut self, table: Result<T, String>, refresh: R, now_ms: i64) -> Vec<R> {
        self.refreshing = false;
        match table {
            Ok(table) => {
                self.set_table(table, now_ms);
                self.refresh_if_behind(refresh)
            }
            Err(e) => {
                self.footer.error(e);
                Vec::new()
            }
        }
    }

    /// The answer to the action shown in flight as `label`; `leaving` when it was the
    /// Leave, which ends the screen once done.
    pub fn acted(
        &mut self,
        label: &str,
        leaving: bool,
        result: Result<Acted<T>, String>,
        now_ms: i64,
    ) {
        self.footer.finish(label);
        match result {
            Ok(acted) => {
                if let Some(table) = acted.table {
                    self.set_table(table, now_ms);
                }
                if let Some(remark) = acted.remark {
                    self.footer.info(remark);
                }
                if leaving {
                    self.left = true;
                    self.done = true;
                }
            }
            Err(message) => self.footer.error(message),
        }
    }

    /// Adds a line to the log.
    pub fn note(&mut self, line: String) {
        self.log.push_back(line);
        while self.log.len() > self.log_lines {
            self.log.pop_front();
        }
    }

    /// A key for the command line; Ctrl-C and the like close the screen.
    pub fn key(&mut self, key: KeyEvent) -> Edit {
        let edit = self.footer.editor.key(key);
        if edit == Edit::Quit {
            self.done = true;
        }
        edit
    }

    /// A command was typed: a `leave` waiting for confirmation lapses unless this is
    /// `leave` again.
    pub fn typed(&mut self, leave: bool) {
        if !leave {
            self.confirm_leave = false;
        }
    }

    /// `quit`: close the client; the table goes on.
    pub fn quit(&mut self) {
        self.done = true;
    }

    /// Tells a spectator who typed an action that spectators cannot act.
    pub fn refuse_spectator(&mut self) {
        self.footer.error(SPECTATORS_CANNOT_ACT);
    }

    /// `next` at a closed table: close the screen and queue for another table in the
    /// same room.
    pub fn queue_elsewhere(&mut self) {
        self.requeue = true;
        self.done = true;
    }

    /// `leave`: whether to send it now. While a game is `running` leaving is an
    /// escape, so the first `leave` only shows `warning` and the second goes.
    pub fn leave_confirmed(&mut self, running: bool, warning: &str) -> bool {
        if running && !self.confirm_leave {
            self.confirm_leave = true;
            self.footer.info(warning);
            return false;
        }
        true
    }

    /// An action goes to the server, shown in flight as `label`.
    pub fn send(&mut self, label: impl Into<String>, now_ms: i64) {
        self.confirm_leave = false;
        self.footer.notice = None;
        self.footer.start(label, now_ms);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(last_event_id: u64, status: gm::TableStatus) -> gm::Table {
        gm::Table {
            table_id: "gt-1".into(),
            room_id: "gomoku-free".into(),
            your_seat: Some(0),
            status: status as i32,
            last_event_id,
            ..Default::default()
        }
    }

    fn event(event_id: u64) -> Feed<gm::Table, gm::TableEvent> {
        Feed::Event(gm::TableEvent {
            event_id,
            ..Default::default()
        })
    }

    #[test]
    fn an_older_table_never_replaces_a_newer_one() {
        let mut screen = TableScreen::new("gt-1", false, 5);
        screen.feed(Feed::Snapshot(table(7, gm::TableStatus::Playing)), 0);
        let late = Acted::plain(Some(table(5, gm::TableStatus::Closed)));
        screen.acted("placing h8", false, Ok(late), 0);
        assert_eq!(screen.table().map(|t| t.last_event_id), Some(7));
    }

    #[test]
    fn a_table_behind_the_stream_is_fetched_one_at_a_time_and_not_at_once_after_an_error() {
        let mut screen = TableScreen::new("gt-1", false, 5);
        screen.feed(Feed::Snapshot(table(7, gm::TableStatus::Playing)), 0);
        screen.feed(event(8), 0);
        assert_eq!(screen.refresh_if_behind("get"), vec!["get"]);
        screen.feed(event(9), 0);
        assert!(screen.refresh_if_behind("get").is_empty());
        assert!(screen.refreshed(Err("down".into()), "get", 0).is_empty());
        assert_eq!(screen.refresh_if_behind("get"), vec!["get"]);
    }

    #[test]
    fn leaving_a_running_game_takes_two_leaves_in_a_row() {
        let mut screen = TableScreen::<gm::Table>::new("gt-1", false, 5);
        screen.typed(true);
        assert!(!screen.leave_confirmed(true, "that is an escape"));
        screen.typed(false);
        screen.typed(true);
        assert!(!screen.leave_confirmed(true, "that is an escape"));
        screen.typed(true);
        assert!(screen.leave_confirmed(true, "that is an escape"));
        assert!(screen.leave_confirmed(false, "that is an escape"));
    }

    #[test]
    fn a_spectator_has_no_seat_and_is_not_asked_to_come_back() {
        let mut screen = TableScreen::new("gt-1", true, 5);
        screen.feed(Feed::Snapshot(table(1, gm::TableStatus::Playing)), 0);
        assert_eq!(screen.my_seat(), None);
        assert_eq!(screen.come_back(), None);
        let mut player = TableScreen::new("gt-1", false, 5);
        player.feed(Feed::Snapshot(table(1, gm::TableStatus::Playing)), 0);
        let come_back = player.come_back().unwrap();
        assert!(come_back.contains("table gt-1"), "{come_back}");
        assert!(come_back.contains("`gamehub play gomoku`"), "{come_back}");
    }

    #[test]
    fn next_at_a_closed_table_queues_in_the_same_room() {
        let mut screen = TableScreen::new("gt-1", false, 5);
        screen.feed(Feed::Snapshot(table(3, gm::TableStatus::Closed)), 0);
        assert!(screen.closed());
        screen.queue_elsewhere();
        assert!(screen.finished());
        assert_eq!(screen.requeue(), Some("gomoku-free".into()));
    }
}
