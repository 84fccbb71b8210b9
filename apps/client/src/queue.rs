//! The screen while matchmaking finds a table: the room, the ticket's place in the
//! queue and the estimate from the ticket stream, a spinner, and Esc to cancel.

use crossterm::event::{KeyCode, KeyEvent};
use gamehub_proto::common::GameType;
use gamehub_proto::matchmaking as mm;

use super::app::App;
use gamehub_render::thousands;

use super::screen::{Footer, clock, compose, spinner};
use super::term::{Edit, Frame};

/// What the ticket follower reports.
#[derive(Debug, Clone)]
pub enum QueueFeed {
    /// The ticket as it is now.
    Ticket(mm::Ticket),
    /// The ticket ended: the seat, or why not (in the server's words).
    Done(Result<mm::Seat, String>),
}

/// What the queue screen asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// CancelTicket.
    Cancel(String),
}

/// CancelTicket's answer: the ticket after it, or the error's message.
pub type Reply = Result<mm::Ticket, String>;

/// The queue screen's state.
#[derive(Debug)]
pub struct QueueApp {
    /// The room, described at the top.
    room: mm::Room,
    /// When the player started waiting (Unix ms).
    since_ms: i64,
    /// The ticket as last reported.
    ticket: Option<mm::Ticket>,
    /// When the ticket last changed (its estimate counts down from then).
    ticket_at_ms: i64,
    /// How it ended; `None` while waiting.
    outcome: Option<Result<mm::Seat, String>>,
    /// The player asked to cancel.
    cancelling: bool,
    /// Messages, and the command line (`cancel` there cancels too).
    footer: Footer,
}

impl QueueApp {
    /// Waiting in `room` since `now_ms`.
    pub fn new(room: mm::Room, now_ms: i64) -> Self {
        Self {
            room,
            since_ms: now_ms,
            ticket: None,
            ticket_at_ms: now_ms,
            outcome: None,
            cancelling: false,
            footer: Footer {
                link: super::screen::Link::Live,
                ..Footer::default()
            },
        }
    }

    /// The seat, or why there is none (cancelled, refused, …). `None` while waiting.
    pub fn outcome(&self) -> Option<&Result<mm::Seat, String>> {
        self.outcome.as_ref()
    }

    fn cancel(&mut self, now_ms: i64) -> Vec<Request> {
        if self.cancelling {
            return Vec::new();
        }
        self.cancelling = true;
        match &self.ticket {
            Some(ticket) => {
                self.footer.start("cancelling the ticket", now_ms);
                vec![Request::Cancel(ticket.ticket_id.clone())]
            }
            None => {
                self.outcome = Some(Err("cancelled".into()));
                Vec::new()
            }
        }
    }
}

impl App for QueueApp {
    type Feed = QueueFeed;
    type Request = Request;
    type Reply = Reply;

    fn on_feed(&mut self, feed: QueueFeed, now_ms: i64) -> Vec<Request> {
        match feed {
            QueueFeed::Ticket(ticket) => {
                self.ticket = Some(ticket);
                self.ticket_at_ms = now_ms;
            }
            // The follower reports the cancelled ticket in its own words.
            QueueFeed::Done(Err(_)) if self.cancelling => {
                self.outcome = Some(Err("cancelled".into()));
            }
            QueueFeed::Done(outcome) => self.outcome = Some(outcome),
        }
        Vec::new()
    }

    fn on_feed_end(&mut self, _now_ms: i64) {
        if self.outcome.is_none() {
            self.outcome = Some(Err("matchmaking stopped following the ticket".into()));
        }
    }

    fn on_reply(&mut self, reply: Reply, _now_ms: i64) -> Vec<Request> {
        self.footer.finish("cancelling the ticket");
        match reply {
            Ok(ticket) if ticket.state() == mm::TicketState::Cancelled => {
                self.outcome = Some(Err("cancelled".into()));
            }
            Ok(ticket) => {
                // Being seated right now: the seat stands if the table opens.
                self.footer.info(
                    "a table is being opened for you right now; if it opens you are seated anyway",
                );
                self.ticket = Some(ticket);
            }
            Err(e) => {
                self.cancelling = false;
                self.footer.error(e);
            }
        }
        Vec::new()
    }

    fn on_key(&mut self, key: KeyEvent, now_ms: i64) -> Vec<Request> {
        match self.footer.editor.key(key) {
            Edit::Quit => self.cancel(now_ms),
            Edit::Key(k) if k.code == KeyCode::Esc => self.cancel(now_ms),
            Edit::Submit(text) if matches!(text.as_str(), "cancel" | "quit" | "q") => {
                self.cancel(now_ms)
            }
            _ => Vec::new(),
        }
    }

    fn frame(&self, now_ms: i64, width: u16, height: u16) -> Frame {
        let mut lines = room_lines(&self.room);
        lines.push(String::new());
        let waited = clock(now_ms - self.since_ms);
        lines.push(match &self.ticket {
            None => format!("{} joining the queue…", spinner(now_ms)),
            Some(t) => match t.state() {
                mm::TicketState::Waiting => {
                    let left_ms = t.estimated_wait_ms - (now_ms - self.ticket_at_ms);
                    let estimate = if t.estimated_wait_ms > 0 && left_ms > 0 {
                        format!(" · about {} left", clock(left_ms))
                    } else {
                        String::new()
                    };
                    format!(
                        "{} waiting for players: position {} of {}{estimate} · waited {waited}",
                        spinner(now_ms),
                        t.position,
                        t.waiting_players
                    )
                }
                mm::TicketState::Matching => format!(
                    "{} players found: opening a table… · waited {waited}",
                    spinner(now_ms)
                ),
                mm::TicketState::Seated => "seated".into(),
                other => format!("ticket {}: {}", state_name(other), t.message),
            },
        });
        if let Some(Err(e)) = &self.outcome {
            lines.push(format!("! {e}"));
        }
        let help = "Esc or Ctrl-C cancels the ticket";
        compose(lines, &self.footer, help, now_ms, (width, height))
    }

    fn finished(&self) -> bool {
        self.outcome.is_some()
    }
}

fn state_name(state: mm::TicketState) -> &'static str {
    match state {
        mm::TicketState::Waiting => "waiting",
        mm::TicketState::Matching => "matching",
        mm::TicketState::Seated => "seated",
        mm::TicketState::Expired => "expired",
        mm::TicketState::Cancelled => "cancelled",
        mm::TicketState::Refused => "refused",
        mm::TicketState::Failed => "failed",
        mm::TicketState::Unspecified => "unknown",
    }
}

/// A room described in a few lines: name, rules, clock, stakes.
pub fn room_lines(room: &mm::Room) -> Vec<String> {
    let game = match room.game_type() {
        GameType::Gomoku => "Gomoku",
        GameType::Doudizhu => "Dou Dizhu",
        GameType::Unspecified => "?",
    };
    let mut lines = vec![format!(
        "{game} · room {} · {}",
        room.room_id, room.display_name
    )];
    let tc = room.time_control.unwrap_or_default();
    let clock_text = match room.game_type() {
        GameType::Doudizhu => format!("{} a turn", clock(tc.turn_time_ms)),
        _ => format!(
            "{} a move, {} in all",
            clock(tc.move_time_ms),
            clock(tc.total_time_ms)
        ),
    };
    let stakes = room.stakes.clone().unwrap_or_default();
    let money = if stakes.silver_per_point == 0 {
        "free room (no silver)".to_owned()
    } else {
        format!(
            "1 point = {} silver · at least {} silver to sit",
            thousands(stakes.silver_per_point),
            thousands(stakes.min_balance_silver)
        )
    };
    let opening = match room.designated_opening.as_str() {
        "" => String::new(),
        "random" => " · designated openings (指定打法), drawn per game".to_owned(),
        one => format!(" · designated opening (指定打法) {one}"),
    };
    lines.push(format!(
        "  rules {}{opening} · {clock_text} · base {} · {money}{} · {} waiting",
        room.rule_set,
        stakes.points_base,
        if stakes.rated { " · rated" } else { "" },
        room.waiting_players
    ));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyModifiers;

    fn room() -> mm::Room {
        mm::Room {
            room_id: "gomoku-renju".into(),
            display_name: "有禁手 Renju".into(),
            game_type: GameType::Gomoku as i32,
            rule_set: "renju-lose".into(),
            time_control: Some(mm::TimeControl {
                move_time_ms: 60_000,
                total_time_ms: 900_000,
                turn_time_ms: 0,
            }),
            stakes: Some(gamehub_proto::common::RoomStakes {
                room_id: "gomoku-renju".into(),
                points_base: 1,
                silver_per_point: 100,
                min_balance_silver: 1_000,
                rated: true,
            }),
            seats: 2,
            waiting_players: 0,
            designated_opening: String::new(),
            paired_games: false,
        }
    }

    #[test]
    fn waiting_shows_the_position_the_estimate_and_the_time_waited() {
        let mut app = QueueApp::new(room(), 0);
        app.on_feed(
            QueueFeed::Ticket(mm::Ticket {
                ticket_id: "t1".into(),
                state: mm::TicketState::Waiting as i32,
                position: 2,
                waiting_players: 3,
                estimated_wait_ms: 12_000,
                ..Default::default()
            }),
            0,
        );
        let text = app.frame(5_000, 100, 30).lines.join("\n");
        assert!(
            text.contains("position 2 of 3 · about 0:07 left · waited 0:05"),
            "{text}"
        );
        assert!(
            text.contains("1 point = 100 silver · at least 1,000 silver"),
            "{text}"
        );
        assert!(!app.finished());
    }

    #[test]
    fn escape_cancels_the_ticket() {
        let mut app = QueueApp::new(room(), 0);
        app.on_feed(
            QueueFeed::Ticket(mm::Ticket {
                ticket_id: "t1".into(),
                state: mm::TicketState::Waiting as i32,
                ..Default::default()
            }),
            0,
        );
        let esc = KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE);
        assert_eq!(app.on_key(esc, 0), vec![Request::Cancel("t1".into())]);
        assert!(app.on_key(esc, 0).is_empty(), "one cancel at a time");
        // The ticket follower may tell first, in its own words.
        app.on_feed(QueueFeed::Done(Err("ticket t1 ended Cancelled".into())), 0);
        assert_eq!(app.outcome(), Some(&Err("cancelled".to_owned())));
        app.on_reply(
            Ok(mm::Ticket {
                ticket_id: "t1".into(),
                state: mm::TicketState::Cancelled as i32,
                ..Default::default()
            }),
            0,
        );
        assert!(app.finished());
        assert!(app.outcome().unwrap().is_err());
    }

    #[test]
    fn a_refusal_is_shown_in_the_servers_words() {
        let mut app = QueueApp::new(room(), 0);
        app.on_feed(
            QueueFeed::Done(Err(
                "balance 200 silver is below the room's minimum of 1000 silver".into(),
            )),
            0,
        );
        assert!(app.finished());
        let text = app.frame(0, 100, 30).lines.join("\n");
        assert!(text.contains("! balance 200 silver is below"), "{text}");
    }
}
