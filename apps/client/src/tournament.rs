//! Tournaments (比赛) for the player: a tournament as text ([`tournament_lines`],
//! [`final_lines`], [`summary_line`]), what it asks of the player now ([`next_step`],
//! [`at_table`]) and the screen that follows it between games ([`TournamentApp`]).
//! No I/O here: `commands::tournaments` follows the tournament, runs this screen and,
//! each time the tournament names a new table for the player, the game's table screen.

use std::collections::HashSet;

use crossterm::event::KeyEvent;
use gamehub_proto::tournament as tn;
use gamehub_render::tournament::{
    self, count, format_of, format_word, game_word, ordinal, prize_table, score, starts_text,
    state_word,
};
use gamehub_render::{signed, thousands};

use super::app::App;
use super::follow::Feed;
use super::screen::{Footer, Link, compose};
use super::term::{Edit, Frame};

/// A tournament's state.
pub fn state_of(t: &tn::Tournament) -> tn::State {
    tournament::state_of(t.state)
}

/// Whether the tournament is over (finished or cancelled).
pub fn is_over(t: &tn::Tournament) -> bool {
    matches!(state_of(t), tn::State::Finished | tn::State::Cancelled)
}

/// A score in points: `1 pt`, `2.5 pts`, `0 pts`.
fn points(x: f64) -> String {
    let unit = if (x - 1.0).abs() < f64::EPSILON {
        "pt"
    } else {
        "pts"
    };
    format!("{} {unit}", score(x))
}

/// A player, marked when it is the viewer.
fn who(player_id: &str, me: &str) -> String {
    if !me.is_empty() && player_id == me {
        format!("{player_id} (you)")
    } else {
        player_id.to_owned()
    }
}

/// One tournament of a list as a line.
pub fn summary_line(s: &tn::TournamentSummary, now_ms: i64) -> String {
    let settings = s.settings.clone().unwrap_or_default();
    let progress = match tournament::state_of(s.state) {
        tn::State::Registering => format!("starts {}", starts_text(&settings, now_ms)),
        tn::State::Running => format!("round {} of {}", s.current_round, s.rounds_total),
        _ => state_word(s.state).to_owned(),
    };
    let fee = if settings.entry_fee_silver == 0 {
        "free".to_owned()
    } else {
        format!("fee {}", thousands(settings.entry_fee_silver))
    };
    format!(
        "{}  {:?} · {} · {} · {}/{} players · {fee} · pool {} · {progress}",
        s.tournament_id,
        settings.name,
        game_word(&settings),
        settings.room_id,
        s.players,
        settings.max_players,
        thousands(s.pool_silver),
    )
}

/// The top of a tournament: name, state, game, room, format, fee, pool, start, prizes.
pub fn header_lines(t: &tn::Tournament, now_ms: i64) -> Vec<String> {
    let settings = t.settings.clone().unwrap_or_default();
    let format = format_of(&settings);
    let state = state_of(t);
    let progress = match state {
        tn::State::Running if t.rounds_total > 0 => {
            format!("running · round {} of {}", t.current_round, t.rounds_total)
        }
        _ => state_word(t.state).to_owned(),
    };
    let mut out = vec![format!(
        "Tournament {:?} · {} · {progress}",
        settings.name, t.tournament_id
    )];
    let mut play = format!(
        "{} · room {} · {}",
        game_word(&settings),
        settings.room_id,
        format_word(format)
    );
    if format == tn::Format::Elimination {
        play.push_str(&format!(
            " · {} deals a round · {} chips to start",
            settings.deals_per_round,
            thousands(settings.starting_chips)
        ));
    } else if t.rounds_total > 0 {
        play.push_str(&format!(" · {}", count(t.rounds_total, "round")));
    } else if settings.rounds > 0 {
        play.push_str(&format!(" · {}", count(settings.rounds, "round")));
    }
    if settings.unrated {
        play.push_str(" · unrated");
    }
    out.push(play);
    let fee = if settings.entry_fee_silver == 0 {
        "free entry".to_owned()
    } else {
        format!("entry fee {} silver", thousands(settings.entry_fee_silver))
    };
    let mut money = format!(
        "{} of {} players (at least {}) · {fee} · pool {}",
        t.players.len(),
        settings.max_players,
        settings.min_players,
        thousands(t.pool_silver)
    );
    if state == tn::State::Registering {
        money.push_str(&format!(" · starts {}", starts_text(&settings, now_ms)));
    }
    out.push(money);
    out.push(format!(
        "prizes: {}",
        prize_table(&settings.prize_shares_bp)
    ));
    if state == tn::State::Cancelled {
        out.push(format!(
            "cancelled (reason: {}); every entry fee is given back",
            t.cancel_reason
        ));
    }
    out
}

/// Where the viewer stands: registered or not, its seed, chips, table.
pub fn you_line(t: &tn::Tournament, me: &str) -> Option<String> {
    if me.is_empty() {
        return None;
    }
    let state = state_of(t);
    let Some(entrant) = t.players.iter().find(|p| p.player_id == me) else {
        return Some(match state {
            tn::State::Registering => "you are not registered (`register` to join)".into(),
            _ => "you are not playing in this tournament".into(),
        });
    };
    let mut parts = vec![match state {
        tn::State::Finished => "you played".to_owned(),
        tn::State::Cancelled => "you were registered (your fee is given back)".to_owned(),
        _ => "you are registered".to_owned(),
    }];
    if entrant.seed > 0 {
        parts.push(format!("seed {}", entrant.seed));
    }
    if format_of(&t.settings.clone().unwrap_or_default()) == tn::Format::Elimination
        && t.started_at_unix_ms > 0
    {
        parts.push(format!("{} chips", thousands(entrant.chips)));
        if entrant.out_after_round > 0 {
            parts.push(format!("out after round {}", entrant.out_after_round));
        }
    }
    if let Some(standing) = t.standings.iter().find(|s| s.player_id == me) {
        parts.push(format!("{} place", ordinal(standing.place)));
    }
    if state == tn::State::Running {
        parts.push(if t.your_table_id.is_empty() {
            "waiting for your next table".into()
        } else {
            format!("your table: {}", t.your_table_id)
        });
    }
    Some(parts.join(" · "))
}

/// One round: its tables (players, table, result) and the bye.
pub fn round_lines(t: &tn::Tournament, round: &tn::Round, me: &str) -> Vec<String> {
    let settings = t.settings.clone().unwrap_or_default();
    let format = format_of(&settings);
    let mut out = vec![format!(
        "round {}{}:",
        round.number,
        if round.finished { " (finished)" } else { "" }
    )];
    for m in &round.matches {
        let table = if m.table_id.is_empty() {
            "table opening".to_owned()
        } else {
            m.table_id.clone()
        };
        out.push(if format == tn::Format::Elimination {
            let seats: Vec<String> = m
                .player_ids
                .iter()
                .enumerate()
                .map(|(i, p)| match m.chips_won.get(i) {
                    Some(chips) if m.deals_played > 0 => {
                        format!("{} {}", who(p, me), signed(*chips))
                    }
                    _ => who(p, me),
                })
                .collect();
            format!(
                "  table {}: {} · deal {} of {} · {table}{}",
                m.board,
                seats.join(", "),
                m.deals_played,
                settings.deals_per_round,
                if m.finished { " · done" } else { "" }
            )
        } else {
            let black = m.player_ids.first().map_or("?".into(), |p| who(p, me));
            let white = m.player_ids.get(1).map_or("?".into(), |p| who(p, me));
            let result = match tn::GameOutcome::try_from(m.outcome).unwrap_or_default() {
                tn::GameOutcome::BlackWins => "1-0 black wins".to_owned(),
                tn::GameOutcome::WhiteWins => "0-1 white wins".to_owned(),
                tn::GameOutcome::Draw => "½-½ draw".to_owned(),
                tn::GameOutcome::BothLose => "0-0 both lose (voided)".to_owned(),
                tn::GameOutcome::Unspecified if m.finished => "finished".to_owned(),
                tn::GameOutcome::Unspecified => format!("playing at {table}"),
            };
            format!("  board {}: ● {black} vs ○ {white} · {result}", m.board)
        });
    }
    if !round.bye_player_id.is_empty() {
        out.push(format!(
            "  bye: {} (a win without a game)",
            who(&round.bye_player_id, me)
        ));
    }
    out
}

/// The standings, first place first (Swiss: points and tie-breaks; elimination:
/// chips and when each went out).
pub fn standings_lines(t: &tn::Tournament, me: &str) -> Vec<String> {
    let format = format_of(&t.settings.clone().unwrap_or_default());
    t.standings
        .iter()
        .map(|s| {
            let mark = if !me.is_empty() && s.player_id == me {
                "▶"
            } else {
                " "
            };
            if format == tn::Format::Elimination {
                format!(
                    "{mark}{:>4}. {}  {} chips{}",
                    s.place,
                    s.player_id,
                    thousands(s.chips),
                    if s.out_after_round > 0 {
                        format!(" · out after round {}", s.out_after_round)
                    } else {
                        String::new()
                    }
                )
            } else {
                format!(
                    "{mark}{:>4}. {}  {} · Buchholz {} · S-B {} · {}-{}-{}{}",
                    s.place,
                    s.player_id,
                    points(s.score),
                    score(s.buchholz),
                    score(s.sonneborn_berger),
                    s.wins,
                    s.draws,
                    s.losses,
                    if s.byes > 0 {
                        format!(" · {} bye(s)", s.byes)
                    } else {
                        String::new()
                    }
                )
            }
        })
        .collect()
}

/// The prizes paid.
pub fn prize_lines(t: &tn::Tournament, me: &str) -> Vec<String> {
    t.prizes
        .iter()
        .map(|p| {
            format!(
                "  {} {}: {} silver",
                ordinal(p.place),
                who(&p.player_id, me),
                thousands(p.amount_silver)
            )
        })
        .collect()
}

/// The tournament as `gamehub tournaments show` prints it: the header, where the viewer
/// stands, then [`detail_lines`].
pub fn tournament_lines(
    t: &tn::Tournament,
    me: &str,
    all_rounds: bool,
    now_ms: i64,
) -> Vec<String> {
    let mut out = header_lines(t, now_ms);
    out.extend(you_line(t, me));
    out.extend(detail_lines(t, me, all_rounds));
    out
}

/// The players (before the start), the last round's pairings (every round with
/// `all_rounds`), the standings and the prizes.
pub fn detail_lines(t: &tn::Tournament, me: &str, all_rounds: bool) -> Vec<String> {
    let mut out = Vec::new();
    if state_of(t) == tn::State::Registering {
        let players: Vec<String> = t.players.iter().map(|p| who(&p.player_id, me)).collect();
        out.push(if players.is_empty() {
            "players: nobody yet".into()
        } else {
            format!("players: {}", players.join(", "))
        });
    }
    let shown: Vec<&tn::Round> = if all_rounds {
        t.rounds.iter().collect()
    } else {
        t.rounds.last().into_iter().collect()
    };
    for round in shown {
        out.push(String::new());
        out.extend(round_lines(t, round, me));
    }
    if !t.standings.is_empty() {
        out.push(String::new());
        out.push(if state_of(t) == tn::State::Finished {
            "final standings:".into()
        } else {
            "standings:".into()
        });
        out.extend(standings_lines(t, me));
    }
    if !t.prizes.is_empty() {
        out.push(String::new());
        out.push("prizes paid:".into());
        out.extend(prize_lines(t, me));
    }
    out
}

/// What is printed when a followed tournament is over: how it ended, the final
/// standings and the prizes, and the viewer's place and prize.
pub fn final_lines(t: &tn::Tournament, me: &str) -> Vec<String> {
    let name = t.settings.as_ref().map_or("", |s| s.name.as_str());
    let mut out = vec![match state_of(t) {
        tn::State::Cancelled => format!(
            "Tournament {name:?} ({}) was cancelled (reason: {}): every entry fee is given back, no prize is paid",
            t.tournament_id, t.cancel_reason
        ),
        _ => format!("Tournament {name:?} ({}) is over.", t.tournament_id),
    }];
    if !t.standings.is_empty() {
        out.push(if state_of(t) == tn::State::Finished {
            "final standings:".into()
        } else {
            "standings when it stopped:".into()
        });
        out.extend(standings_lines(t, me));
    }
    if !t.prizes.is_empty() {
        out.push("prizes paid:".into());
        out.extend(prize_lines(t, me));
    }
    if let Some(standing) = t.standings.iter().find(|s| s.player_id == me)
        && state_of(t) == tn::State::Finished
    {
        let prize = t
            .prizes
            .iter()
            .find(|p| p.player_id == me)
            .map_or("no prize".to_owned(), |p| {
                format!("a prize of {} silver", thousands(p.amount_silver))
            });
        out.push(format!(
            "you finished {} of {}: {prize}",
            ordinal(standing.place),
            t.standings.len()
        ));
    }
    out
}

/// What the tournament asks of the player now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Play at this table (one not played yet).
    Play(String),
    /// Wait: registration, another round, the other tables.
    Wait,
    /// The tournament is over.
    Over,
}

/// What the tournament asks of the player now, `played` being the tables it has been
/// sent to already (never opened twice).
pub fn next_step(t: &tn::Tournament, played: &HashSet<String>) -> Step {
    if is_over(t) {
        return Step::Over;
    }
    if !t.your_table_id.is_empty() && !played.contains(&t.your_table_id) {
        return Step::Play(t.your_table_id.clone());
    }
    Step::Wait
}

/// What the tournament says of the table the player is playing at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AtTable {
    /// The game there still counts: stay.
    Stay,
    /// The tournament has the game's result and moved the player on: to this next
    /// table, or (None) back to waiting.
    MovedOn(Option<String>),
    /// The tournament was cancelled: the game counts for nothing, but it is the
    /// player's to finish or leave (leaving a game being played is an escape).
    Cancelled(String),
}

/// What tournament `t` says of `table`, the table the player is at.
pub fn at_table(t: &tn::Tournament, table: &str) -> AtTable {
    match state_of(t) {
        tn::State::Cancelled => AtTable::Cancelled(t.cancel_reason.clone()),
        tn::State::Finished => AtTable::MovedOn(None),
        tn::State::Running if t.your_table_id != table => {
            AtTable::MovedOn((!t.your_table_id.is_empty()).then(|| t.your_table_id.clone()))
        }
        _ => AtTable::Stay,
    }
}

/// The line the table screen's log starts with: which tournament, round and table.
pub fn table_note(t: &tn::Tournament, table: &str, me: &str) -> String {
    let name = t.settings.as_ref().map_or("", |s| s.name.as_str());
    let round = t.rounds.last();
    let board = round.and_then(|r| {
        r.matches.iter().find(|m| {
            m.table_id == table || (!me.is_empty() && m.player_ids.iter().any(|p| p == me))
        })
    });
    let mut note = format!("tournament {name:?}");
    if let Some(r) = round {
        note.push_str(&format!(" · round {}", r.number));
        if t.rounds_total > 0 {
            note.push_str(&format!(" of {}", t.rounds_total));
        }
    }
    if let Some(m) = board {
        note.push_str(&format!(" · table {}", m.board));
    }
    note.push_str(": when this game is over you go back to the tournament");
    note
}

/// The newer of two views of a tournament (by version).
fn newer(current: &tn::Tournament, candidate: &tn::Tournament) -> bool {
    candidate.version >= current.version
}

/// How the tournament screen ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The player stopped following (`quit`, Ctrl-C).
    Quit,
    /// The tournament is over.
    Over,
    /// The tournament sent the player to this table.
    Play(String),
    /// Following failed for good (the server's words).
    Lost(String),
}

/// What the tournament screen asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// Register (the entry fee is held).
    Register,
    /// Unregister (the fee is given back).
    Unregister,
}

/// Their answers: the tournament after it and what to tell the player, or the
/// server's message.
#[derive(Debug, Clone)]
pub struct Reply {
    /// What was asked.
    pub request: Request,
    /// The tournament and a remark, or the refusal.
    pub result: Result<(tn::Tournament, String), String>,
}

impl Request {
    fn label(&self) -> &'static str {
        match self {
            Request::Register => "registering",
            Request::Unregister => "unregistering",
        }
    }
}

/// The screen between a tournament's games: the tournament as it changes, the
/// player's standing, and `register`, `unregister`, `rounds`, `quit`.
#[derive(Debug)]
pub struct TournamentApp {
    /// The tournament as last seen.
    tournament: tn::Tournament,
    /// The viewer's player id (empty when unknown).
    me: String,
    /// Tables the player was sent to already.
    played: HashSet<String>,
    /// The last game's result, shown under the header.
    last_result: Vec<String>,
    /// Every round's pairings, not just the last.
    all_rounds: bool,
    /// Show the command list.
    show_help: bool,
    /// Connection, messages and the command line.
    footer: Footer,
    /// How the screen ended; `None` while it runs.
    outcome: Option<Outcome>,
}

impl TournamentApp {
    /// The screen of `tournament` for `me`, who played `played` already; `last_result`
    /// is the last game's result to show.
    pub fn new(
        tournament: tn::Tournament,
        me: &str,
        played: HashSet<String>,
        last_result: Vec<String>,
    ) -> Self {
        let mut app = Self {
            tournament,
            me: me.to_owned(),
            played,
            last_result,
            all_rounds: false,
            show_help: false,
            footer: Footer {
                link: Link::Live,
                ..Footer::default()
            },
            outcome: None,
        };
        app.decide();
        app
    }

    /// The tournament as last seen.
    pub fn tournament(&self) -> &tn::Tournament {
        &self.tournament
    }

    /// How the screen ended.
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    /// The player's table it has left the screen of while its game goes on.
    fn table_left(&self) -> Option<&str> {
        let table = self.tournament.your_table_id.as_str();
        (!table.is_empty() && self.played.contains(table)).then_some(table)
    }

    /// Takes `t` unless a newer view is shown, and sees what it asks.
    fn take(&mut self, t: tn::Tournament) {
        if newer(&self.tournament, &t) {
            self.tournament = t;
        }
        self.decide();
    }

    fn decide(&mut self) {
        if self.outcome.is_some() {
            return;
        }
        match next_step(&self.tournament, &self.played) {
            Step::Over => self.outcome = Some(Outcome::Over),
            Step::Play(table) => self.outcome = Some(Outcome::Play(table)),
            Step::Wait => {}
        }
    }

    fn command(&mut self, text: &str, now_ms: i64) -> Vec<Request> {
        let request = match text.to_ascii_lowercase().as_str() {
            "register" | "join" => Request::Register,
            "unregister" => Request::Unregister,
            "back" | "table" => {
                match self.table_left() {
                    Some(table) => self.outcome = Some(Outcome::Play(table.to_owned())),
                    None => self
                        .footer
                        .error("you have no table to go back to right now"),
                }
                return Vec::new();
            }
            "rounds" => {
                self.all_rounds = !self.all_rounds;
                return Vec::new();
            }
            "help" | "?" => {
                self.show_help = !self.show_help;
                return Vec::new();
            }
            "quit" | "q" | "exit" => {
                self.outcome = Some(Outcome::Quit);
                return Vec::new();
            }
            other => {
                self.footer.error(format!(
                    "{other}: type register, unregister, rounds, help or quit"
                ));
                return Vec::new();
            }
        };
        self.footer.notice = None;
        self.footer.start(request.label(), now_ms);
        vec![request]
    }
}

/// The command list `help` shows.
const HELP: [&str; 6] = [
    "register     join the tournament (the entry fee is held)",
    "unregister   leave it before the start (the fee is given back)",
    "back         return to your table (after quitting its screen during the game)",
    "rounds       show every round's pairings, or only the last",
    "quit         stop following (the tournament goes on; your games too)",
    "when the tournament seats you, your table opens here by itself",
];

impl App for TournamentApp {
    type Feed = Feed<tn::Tournament, ()>;
    type Request = Request;
    type Reply = Reply;

    fn on_feed(&mut self, feed: Self::Feed, now_ms: i64) -> Vec<Request> {
        match feed {
            Feed::Snapshot(t) => {
                self.footer.link_feed::<(), ()>(&Feed::Live, now_ms);
                self.take(t);
            }
            Feed::Ended(reason) => {
                if self.outcome.is_none() {
                    self.outcome = Some(Outcome::Lost(reason));
                }
            }
            other => self.footer.link_feed(&other, now_ms),
        }
        Vec::new()
    }

    fn on_feed_end(&mut self, _now_ms: i64) {
        if self.outcome.is_none() {
            self.outcome = Some(Outcome::Lost("stopped following the tournament".into()));
        }
    }

    fn on_reply(&mut self, reply: Reply, _now_ms: i64) -> Vec<Request> {
        self.footer.finish(reply.request.label());
        match reply.result {
            Ok((t, remark)) => {
                self.footer.info(remark);
                self.take(t);
            }
            Err(e) => self.footer.error(e),
        }
        Vec::new()
    }

    fn on_key(&mut self, key: KeyEvent, now_ms: i64) -> Vec<Request> {
        match self.footer.editor.key(key) {
            Edit::Submit(text) if !text.is_empty() => self.command(&text, now_ms),
            Edit::Quit => {
                self.outcome = Some(Outcome::Quit);
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    fn on_notice(&mut self, text: String, _now_ms: i64) {
        self.footer.info(text);
    }

    fn frame(&self, now_ms: i64, width: u16, height: u16) -> Frame {
        let t = &self.tournament;
        let mut body = header_lines(t, now_ms);
        body.extend(you_line(t, &self.me));
        if let Some(table) = self.table_left() {
            body.push(format!(
                "your game at table {table} goes on (its clock runs): `back` returns to it"
            ));
        }
        if !self.last_result.is_empty() {
            body.push(String::new());
            body.push("your last game:".into());
            body.extend(self.last_result.iter().map(|l| format!("  {l}")));
        }
        if self.show_help {
            body.push(String::new());
            body.extend(HELP.iter().map(|l| (*l).to_owned()));
        }
        body.extend(detail_lines(t, &self.me, self.all_rounds));
        let help = match state_of(t) {
            tn::State::Registering => "register · unregister · rounds · help · quit",
            _ if self.table_left().is_some() => "back · rounds · help · quit",
            _ => "rounds · help · quit — your table opens here when the tournament seats you",
        };
        compose(body, &self.footer, help, now_ms, (width, height))
    }

    fn finished(&self) -> bool {
        self.outcome.is_some()
    }
}

#[cfg(test)]
mod tests {
    use gamehub_proto::common::GameType;

    use super::*;

    fn swiss(state: tn::State) -> tn::Tournament {
        tn::Tournament {
            tournament_id: "tn-1".into(),
            settings: Some(tn::TournamentSettings {
                name: "Open".into(),
                game_type: GameType::Gomoku as i32,
                room_id: "gomoku-free".into(),
                entry_fee_silver: 100,
                min_players: 2,
                max_players: 4,
                prize_shares_bp: vec![7500, 2500],
                ..Default::default()
            }),
            state: state as i32,
            version: 1,
            players: ["ann", "bob", "cat"]
                .iter()
                .zip(1..)
                .map(|(p, seed)| tn::Entrant {
                    player_id: (*p).into(),
                    seed,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    fn running() -> tn::Tournament {
        let mut t = swiss(tn::State::Running);
        t.rounds_total = 2;
        t.current_round = 1;
        t.rounds = vec![tn::Round {
            number: 1,
            matches: vec![tn::Match {
                board: 1,
                player_ids: vec!["ann".into(), "bob".into()],
                table_id: "gt-1".into(),
                ..Default::default()
            }],
            bye_player_id: "cat".into(),
            finished: false,
        }];
        t.your_table_id = "gt-1".into();
        t
    }

    #[test]
    fn a_new_table_is_played_once_and_the_end_is_the_end() {
        let mut played = HashSet::new();
        let t = running();
        assert_eq!(next_step(&t, &played), Step::Play("gt-1".into()));
        played.insert("gt-1".to_owned());
        assert_eq!(
            next_step(&t, &played),
            Step::Wait,
            "never the same table twice"
        );
        let mut waiting = running();
        waiting.your_table_id.clear();
        assert_eq!(next_step(&waiting, &HashSet::new()), Step::Wait);
        for state in [tn::State::Finished, tn::State::Cancelled] {
            let mut over = running();
            over.state = state as i32;
            assert_eq!(next_step(&over, &HashSet::new()), Step::Over);
        }
    }

    #[test]
    fn the_player_moves_on_only_once_the_tournament_has_the_result() {
        let t = running();
        assert_eq!(at_table(&t, "gt-1"), AtTable::Stay);
        let mut read = running();
        read.your_table_id.clear();
        assert_eq!(at_table(&read, "gt-1"), AtTable::MovedOn(None));
        let mut next_deal = running();
        next_deal.your_table_id = "ddz-2".into();
        assert_eq!(
            at_table(&next_deal, "gt-1"),
            AtTable::MovedOn(Some("ddz-2".into()))
        );
        let mut done = running();
        done.state = tn::State::Finished as i32;
        assert_eq!(at_table(&done, "gt-1"), AtTable::MovedOn(None));
        // Cancelled: the game at the table is the player's to finish, never cut off.
        let mut cancelled = running();
        cancelled.state = tn::State::Cancelled as i32;
        cancelled.your_table_id.clear();
        cancelled.cancel_reason = "rain".into();
        assert_eq!(
            at_table(&cancelled, "gt-1"),
            AtTable::Cancelled("rain".into())
        );
    }

    #[test]
    fn show_gives_the_header_the_viewer_the_pairings_and_the_standings() {
        let mut t = running();
        t.standings = vec![
            tn::Standing {
                place: 1,
                player_id: "cat".into(),
                score: 1.0,
                byes: 1,
                ..Default::default()
            },
            tn::Standing {
                place: 2,
                player_id: "ann".into(),
                score: 0.5,
                buchholz: 1.5,
                sonneborn_berger: 0.25,
                draws: 1,
                ..Default::default()
            },
        ];
        t.pool_silver = 300;
        let lines = tournament_lines(&t, "ann", false, 0);
        let text = lines.join("\n");
        assert_eq!(
            lines[0],
            "Tournament \"Open\" · tn-1 · running · round 1 of 2"
        );
        assert!(
            text.contains("Gomoku · room gomoku-free · Swiss (瑞士制) · 2 rounds"),
            "{text}"
        );
        assert!(
            text.contains("3 of 4 players (at least 2) · entry fee 100 silver · pool 300"),
            "{text}"
        );
        assert!(text.contains("prizes: 1st 75% · 2nd 25%"), "{text}");
        assert!(
            text.contains("you are registered · seed 1 · 2nd place · your table: gt-1"),
            "{text}"
        );
        assert!(
            text.contains("  board 1: ● ann (you) vs ○ bob · playing at gt-1"),
            "{text}"
        );
        assert!(text.contains("  bye: cat (a win without a game)"), "{text}");
        assert!(
            text.contains("    1. cat  1 pt · Buchholz 0 · S-B 0 · 0-0-0 · 1 bye(s)"),
            "{text}"
        );
        assert!(
            text.contains("▶   2. ann  0.5 pts · Buchholz 1.5 · S-B 0.25 · 0-1-0"),
            "{text}"
        );
    }

    #[test]
    fn before_the_start_show_lists_the_players_and_the_start() {
        let mut t = swiss(tn::State::Registering);
        t.settings.as_mut().unwrap().starts_at_unix_ms = 3_600_000 * 3;
        let text = tournament_lines(&t, "dan", false, 0).join("\n");
        assert!(
            text.contains("starts 1970-01-01 03:00 UTC (in 3h)"),
            "{text}"
        );
        assert!(
            text.contains("you are not registered (`register` to join)"),
            "{text}"
        );
        assert!(text.contains("players: ann, bob, cat"), "{text}");
        let mine = tournament_lines(&t, "bob", false, 0).join("\n");
        assert!(mine.contains("players: ann, bob (you), cat"), "{mine}");
    }

    #[test]
    fn the_end_shows_the_final_standings_prizes_and_the_players_place() {
        let mut t = swiss(tn::State::Finished);
        t.standings = vec![
            tn::Standing {
                place: 1,
                player_id: "ann".into(),
                score: 2.0,
                wins: 2,
                ..Default::default()
            },
            tn::Standing {
                place: 2,
                player_id: "bob".into(),
                score: 1.0,
                wins: 1,
                losses: 1,
                ..Default::default()
            },
        ];
        t.prizes = vec![
            tn::PaidPrize {
                place: 1,
                player_id: "ann".into(),
                amount_silver: 225,
            },
            tn::PaidPrize {
                place: 2,
                player_id: "bob".into(),
                amount_silver: 75,
            },
        ];
        let lines = final_lines(&t, "bob");
        assert_eq!(lines[0], "Tournament \"Open\" (tn-1) is over.");
        assert!(
            lines.contains(&"  1st ann: 225 silver".to_owned()),
            "{lines:?}"
        );
        assert!(
            lines.contains(&"  2nd bob (you): 75 silver".to_owned()),
            "{lines:?}"
        );
        assert_eq!(
            lines.last().map(String::as_str),
            Some("you finished 2nd of 2: a prize of 75 silver")
        );
        let mut cancelled = swiss(tn::State::Cancelled);
        cancelled.cancel_reason = "the venue flooded".into();
        assert!(final_lines(&cancelled, "bob")[0].contains(
            "was cancelled (reason: the venue flooded): every entry fee is given back, no prize is paid"
        ));
    }

    #[test]
    fn an_elimination_round_shows_tables_of_three_with_chips() {
        let t = tn::Tournament {
            settings: Some(tn::TournamentSettings {
                game_type: GameType::Doudizhu as i32,
                deals_per_round: 3,
                starting_chips: 1000,
                ..Default::default()
            }),
            state: tn::State::Running as i32,
            ..Default::default()
        };
        let round = tn::Round {
            number: 2,
            matches: vec![tn::Match {
                board: 1,
                player_ids: vec!["a".into(), "b".into(), "c".into()],
                table_id: "ddz-7".into(),
                deals_played: 1,
                chips_won: vec![-40, 80, -40],
                ..Default::default()
            }],
            ..Default::default()
        };
        assert_eq!(
            round_lines(&t, &round, "b"),
            vec![
                "round 2:".to_owned(),
                "  table 1: a -40, b (you) +80, c -40 · deal 1 of 3 · ddz-7".to_owned()
            ]
        );
    }

    #[test]
    fn the_screen_opens_the_players_table_and_ends_with_the_tournament() {
        let mut app =
            TournamentApp::new(swiss(tn::State::Registering), "ann", HashSet::new(), vec![]);
        assert!(!app.finished());
        app.on_feed(Feed::Snapshot(running()), 0);
        assert_eq!(app.outcome(), Some(&Outcome::Play("gt-1".into())));

        let played: HashSet<String> = ["gt-1".to_owned()].into();
        let mut app = TournamentApp::new(running(), "ann", played, vec!["1-0".into()]);
        assert!(
            !app.finished(),
            "a table played already is not opened again"
        );
        // An older view never replaces a newer one.
        let mut stale = swiss(tn::State::Registering);
        stale.version = 0;
        app.on_feed(Feed::Snapshot(stale), 0);
        assert_eq!(state_of(app.tournament()), tn::State::Running);
        let mut over = running();
        over.version = 2;
        over.state = tn::State::Finished as i32;
        app.on_feed(Feed::Snapshot(over), 0);
        assert_eq!(app.outcome(), Some(&Outcome::Over));
    }

    #[test]
    fn back_returns_to_a_table_whose_screen_was_quit_while_its_game_goes_on() {
        let type_line = |app: &mut TournamentApp, text: &str| {
            for c in text.chars() {
                app.on_key(KeyEvent::from(crossterm::event::KeyCode::Char(c)), 0);
            }
            app.on_key(KeyEvent::from(crossterm::event::KeyCode::Enter), 0)
        };
        let mut waiting = running();
        waiting.your_table_id.clear();
        let mut app = TournamentApp::new(waiting, "ann", HashSet::new(), vec![]);
        type_line(&mut app, "back");
        assert_eq!(app.outcome(), None);
        let frame = app.frame(0, 100, 40).lines.join("\n");
        assert!(
            frame.contains("! you have no table to go back to right now"),
            "{frame}"
        );

        let played: HashSet<String> = ["gt-1".to_owned()].into();
        let mut app = TournamentApp::new(running(), "ann", played, vec![]);
        assert_eq!(app.outcome(), None);
        let frame = app.frame(0, 100, 40).lines.join("\n");
        assert!(
            frame
                .contains("your game at table gt-1 goes on (its clock runs): `back` returns to it"),
            "{frame}"
        );
        type_line(&mut app, "back");
        assert_eq!(app.outcome(), Some(&Outcome::Play("gt-1".into())));
    }

    #[test]
    fn the_screen_registers_on_request_and_shows_the_refusal_as_written() {
        let mut app =
            TournamentApp::new(swiss(tn::State::Registering), "dan", HashSet::new(), vec![]);
        let type_line = |app: &mut TournamentApp, text: &str| {
            for c in text.chars() {
                app.on_key(KeyEvent::from(crossterm::event::KeyCode::Char(c)), 0);
            }
            app.on_key(KeyEvent::from(crossterm::event::KeyCode::Enter), 0)
        };
        assert_eq!(type_line(&mut app, "register"), vec![Request::Register]);
        app.on_reply(
            Reply {
                request: Request::Register,
                result: Err("not_eligible: insufficient_balance: you have 5 silver".into()),
            },
            0,
        );
        let frame = app.frame(0, 100, 40).lines.join("\n");
        assert!(
            frame.contains("! not_eligible: insufficient_balance: you have 5 silver"),
            "{frame}"
        );
        assert!(type_line(&mut app, "dance").is_empty());
        assert_eq!(type_line(&mut app, "quit"), vec![]);
        assert_eq!(app.outcome(), Some(&Outcome::Quit));
    }
}
