//! The Dou Dizhu screen: commands as typed ([`parse_command`]), the seat's view as the
//! dealer last described it ([`DoudizhuApp`]) and the screen drawn from it. No I/O
//! here: the app returns [`Request`]s and the loop (`commands`) performs them.
//!
//! As for Gomoku, the state is always the dealer's own view (`GetTable` after each new
//! event): the client never judges a play. A play is typed as ranks and sent as they
//! are; the dealer picks the suits and refuses what the rules refuse, in its words.

use crossterm::event::KeyEvent;
use doudizhu_rules::RankCounts;
use gamehub_proto::doudizhu as ddz;

use super::app::App;
use super::follow::Feed;
use super::screen::{clock, compose};
use super::table::{Acted, TableScreen};
use super::term::{Edit, Frame};
use gamehub_render::{self as render, signed};

/// What the player typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// Play these ranks (`334455`, `10JQKA`, `XD` for the rocket).
    Play(RankCounts),
    /// Pass (`pass`): in bidding that is 不叫, in play 不出.
    Pass,
    /// Bid 1, 2 or 3 (`bid 2`, or just `2` while bidding).
    Bid(u8),
    /// List the legal plays (`hint`; Tab puts them on the command line one by one).
    Hint,
    /// Auto-play (托管) on or off (`auto`, `auto off`).
    Auto(bool),
    /// Ready for the next deal (`next`).
    NextDeal,
    /// Leave the table (`leave`; during a deal that is an escape).
    Leave,
    /// Check the last finished deal's seed again (`verify`).
    Verify,
    /// Show or hide the list of commands (`help`).
    Help,
    /// Close the client; the table goes on (`quit`).
    Quit,
}

/// Reads one command line. While `bidding`, a lone `0`–`3` is a bid (`0` passes).
pub fn parse_command(text: &str, bidding: bool) -> Result<Command, String> {
    let lower = text.trim().to_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    Ok(match words.as_slice() {
        [] => return Err("type cards such as 334455, pass, or help".into()),
        ["pass"] | ["不出"] | ["不叫"] => Command::Pass,
        ["bid", n] => bid(n)?,
        [n] if bidding && n.len() == 1 && n.as_bytes()[0].is_ascii_digit() => bid(n)?,
        ["hint"] => Command::Hint,
        ["auto"] | ["auto", "on"] => Command::Auto(true),
        ["auto", "off"] | ["manual"] => Command::Auto(false),
        ["next"] | ["ready"] => Command::NextDeal,
        ["leave"] => Command::Leave,
        ["verify"] => Command::Verify,
        ["help"] | ["?"] => Command::Help,
        // Not `q`: a lone Q is a queen played.
        ["quit"] | ["exit"] => Command::Quit,
        _ => {
            let ranks = RankCounts::parse(&lower).map_err(|e| {
                format!("{text:?} is neither a command nor cards ({e}); `help` lists the commands")
            })?;
            if bidding {
                return Err("bidding now: type 1, 2, 3 or pass".into());
            }
            Command::Play(ranks)
        }
    })
}

fn bid(n: &str) -> Result<Command, String> {
    match n {
        "0" => Ok(Command::Pass),
        "1" => Ok(Command::Bid(1)),
        "2" => Ok(Command::Bid(2)),
        "3" => Ok(Command::Bid(3)),
        _ => Err(format!("a bid is 1, 2 or 3 (or pass), not {n}")),
    }
}

/// Something to do at the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Bid (0 passes).
    Bid(u8),
    /// Play ranks, as rank text.
    Play(String),
    /// Pass.
    Pass,
    /// SetAutoPlay.
    Auto(bool),
    /// NextDeal.
    NextDeal,
    /// Leave.
    Leave,
}

impl Action {
    /// What the screen says while it is in flight.
    pub fn label(&self) -> String {
        match self {
            Action::Bid(0) => "passing the bid".into(),
            Action::Bid(n) => format!("bidding {n}"),
            Action::Play(ranks) => format!("playing {ranks}"),
            Action::Pass => "passing".into(),
            Action::Auto(true) => "turning auto-play on".into(),
            Action::Auto(false) => "turning auto-play off".into(),
            Action::NextDeal => "asking for the next deal".into(),
            Action::Leave => "leaving the table".into(),
        }
    }
}

/// What the screen asks of the dealer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// GetTable (after new events).
    Refresh,
    /// An action of the player's seat.
    Act(Action),
    /// Hint, for the turn that started with event `turn_event_id`.
    Hints {
        /// The table's last event id when asked: the hints belong to that turn.
        turn_event_id: i64,
        /// Put the first hint on the command line (Tab) rather than list them.
        fill: bool,
    },
    /// GetDealRecord of a finished deal, and check its shuffle.
    Verify(i32),
}

/// The dealer's answers.
#[derive(Debug, Clone)]
pub enum Reply {
    /// GetTable's view, or the error's message.
    Table(Result<ddz::Table, String>),
    /// An action's result: the view after it, or the server's message.
    Acted(Action, Result<Acted<ddz::Table>, String>),
    /// Hint's answer for the turn of `turn_event_id`.
    Hints {
        /// As asked.
        turn_event_id: i64,
        /// As asked.
        fill: bool,
        /// The plays (as rank text and their kind's name), or the error.
        plays: Result<Vec<(String, String)>, String>,
    },
    /// A deal's shuffle check: the seed if the record reproduced the commitment and
    /// every hand, else what failed.
    Verified(i32, Result<String, String>),
}

/// The hints of one turn and which one Tab shows next.
#[derive(Debug, Clone, Default)]
struct Hints {
    /// The turn they belong to (the table's last event id when asked).
    turn_event_id: i64,
    /// The legal plays as rank text and kind, smallest first.
    plays: Vec<(String, String)>,
    /// The one Tab shows next.
    next: usize,
}

/// Lines of the event log kept on screen.
const LOG_LINES: usize = 5;
/// Plays of the deal kept on screen.
const TURN_LINES: usize = 5;

/// What the first `leave` during a deal says.
const ESCAPE_WARNING: &str = "leaving during a deal is an escape (逃跑): you lose 3 × bid × base × \
                              multiplier; type leave again to confirm";

/// The Dou Dizhu screen's state.
#[derive(Debug)]
pub struct DoudizhuApp {
    /// The view, the log, the footer and the seat's choices.
    screen: TableScreen<ddz::Table>,
    /// Hints of the current turn.
    hints: Option<Hints>,
    /// Show the hint list in the panel.
    show_hints: bool,
    /// Shuffle checks of finished deals: deal number → seed, or what failed.
    verified: Vec<(i32, Result<String, String>)>,
}

impl DoudizhuApp {
    /// A screen for `table_id`, as its player or as a spectator.
    pub fn new(table_id: &str, spectator: bool) -> Self {
        Self {
            screen: TableScreen::new(table_id, spectator, LOG_LINES),
            hints: None,
            show_hints: false,
            verified: Vec::new(),
        }
    }

    /// Adds a line to the screen's log (what the client did on its own, e.g. rejoin a
    /// table instead of queueing).
    pub fn note(&mut self, line: String) {
        self.screen.note(line);
    }

    /// The view as last seen.
    pub fn table(&self) -> Option<&ddz::Table> {
        self.screen.table()
    }

    /// What to print on the normal screen when the client closes: the last result
    /// and, when the player is still seated, how to come back.
    pub fn farewell(&self) -> Vec<String> {
        let mut out = Vec::new();
        let Some(table) = self.screen.table() else {
            return out;
        };
        if table.result.is_some() {
            out.extend(
                self.result_lines(table, 0)
                    .into_iter()
                    .filter(|l| !l.starts_with('`') && !l.starts_with("the table")),
            );
        }
        out.extend(self.screen.come_back());
        out
    }

    /// The room to queue in again when the player asked for another table.
    pub fn requeue(&self) -> Option<String> {
        self.screen.requeue()
    }

    fn my_seat(&self) -> Option<i32> {
        self.screen.my_seat()
    }

    /// Player names by seat, the viewer's marked.
    fn names(&self) -> Vec<String> {
        let me = self.my_seat();
        self.screen
            .table()
            .map(|t| {
                t.seats
                    .iter()
                    .map(|s| {
                        let shown = gamehub_render::player(&s.player_id, s.profile.as_ref());
                        if Some(s.seat) == me {
                            format!("{shown} (you)")
                        } else {
                            shown
                        }
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    fn name(&self, seat: i32) -> String {
        render::seat_name(&self.names(), seat)
    }

    fn my_turn(&self) -> bool {
        let me = self.my_seat();
        me.is_some()
            && self
                .screen
                .table()
                .is_some_and(|t| t.to_act == me.unwrap_or(-1))
    }

    fn deal_running(&self) -> bool {
        self.screen.table().is_some_and(|t| {
            t.status() == ddz::TableStatus::Dealing && t.phase() != ddz::Phase::Finished
        })
    }

    fn hints_current(&self) -> bool {
        let key = self.screen.table().map_or(-1, |t| t.last_event_id);
        self.hints.as_ref().is_some_and(|h| h.turn_event_id == key)
    }

    /// Tab: the next legal play on the command line (asking the dealer first).
    fn tab(&mut self) -> Vec<Request> {
        let playing = self
            .screen
            .table()
            .is_some_and(|t| t.phase() == ddz::Phase::Playing);
        if !self.my_turn() || !playing {
            self.screen
                .footer
                .error("hints are for your own turn in play");
            return Vec::new();
        }
        if self.hints_current() {
            self.fill_next_hint();
            return Vec::new();
        }
        self.hint_request(true)
    }

    fn hint_request(&mut self, fill: bool) -> Vec<Request> {
        let turn_event_id = self.screen.table().map_or(0, |t| t.last_event_id);
        vec![Request::Hints {
            turn_event_id,
            fill,
        }]
    }

    fn fill_next_hint(&mut self) {
        let Some(hints) = self.hints.as_mut() else {
            return;
        };
        if hints.plays.is_empty() {
            self.screen
                .footer
                .info("nothing beats the play on the table: `pass`");
            return;
        }
        let i = hints.next % hints.plays.len();
        hints.next = i + 1;
        let (ranks, kind) = hints.plays[i].clone();
        let count = hints.plays.len();
        self.screen.footer.editor.set(&ranks);
        self.screen.footer.info(format!(
            "hint {}/{count}: {kind}; Enter plays it, Tab shows the next",
            i + 1
        ));
    }

    fn command(&mut self, text: &str, now_ms: i64) -> Vec<Request> {
        let bidding = self.screen.table().is_some_and(|t| {
            t.phase() == ddz::Phase::Bidding && t.status() == ddz::TableStatus::Dealing
        });
        let command = match parse_command(text, bidding) {
            Ok(command) => command,
            Err(e) => {
                self.screen.footer.error(e);
                return Vec::new();
            }
        };
        self.screen.typed(command == Command::Leave);
        let action = match command {
            Command::Help => {
                self.screen.show_help = !self.screen.show_help;
                return Vec::new();
            }
            Command::Quit => {
                self.screen.quit();
                return Vec::new();
            }
            Command::Verify => {
                let Some(deal) = self.last_finished_deal() else {
                    self.screen.footer.error("no finished deal to verify yet");
                    return Vec::new();
                };
                self.screen
                    .footer
                    .start(format!("verifying deal {deal}"), now_ms);
                return vec![Request::Verify(deal)];
            }
            _ if self.screen.spectator => {
                self.screen.refuse_spectator();
                return Vec::new();
            }
            Command::Hint => {
                self.show_hints = true;
                if self.hints_current() {
                    return Vec::new();
                }
                return self.hint_request(false);
            }
            Command::Play(ranks) => Action::Play(ranks.to_string().replace(' ', "")),
            Command::Pass if bidding => Action::Bid(0),
            Command::Pass => Action::Pass,
            Command::Bid(n) => Action::Bid(n),
            Command::Auto(on) => Action::Auto(on),
            Command::NextDeal if self.screen.closed() => {
                // This table is over: find another one in the same room.
                self.screen.queue_elsewhere();
                return Vec::new();
            }
            Command::NextDeal => Action::NextDeal,
            Command::Leave => {
                if !self
                    .screen
                    .leave_confirmed(self.deal_running(), ESCAPE_WARNING)
                {
                    return Vec::new();
                }
                Action::Leave
            }
        };
        self.show_hints = false;
        self.screen.send(action.label(), now_ms);
        vec![Request::Act(action)]
    }

    fn last_finished_deal(&self) -> Option<i32> {
        let table = self.screen.table()?;
        if table.result.is_some() {
            Some(table.deal_number)
        } else if table.deal_number > 1 {
            Some(table.deal_number - 1)
        } else {
            None
        }
    }
}

impl App for DoudizhuApp {
    type Feed = Feed<ddz::Table, ddz::TableEvent>;
    type Request = Request;
    type Reply = Reply;

    fn on_feed(&mut self, feed: Self::Feed, now_ms: i64) -> Vec<Request> {
        let mut requests = Vec::new();
        // A deal that had already ended when the screen opened is checked too.
        if let Feed::Snapshot(table) = &feed
            && table.result.as_ref().is_some_and(|r| !r.seed.is_empty())
            && !self.verified.iter().any(|(d, _)| *d == table.deal_number)
        {
            requests.push(Request::Verify(table.deal_number));
        }
        if let Some(event) = self.screen.feed(feed, now_ms) {
            if let Some(ddz::table_event::Kind::DealEnded(_)) = &event.kind {
                // Anyone can check the shuffle once the deal is over: do it at once.
                requests.push(Request::Verify(event.deal_number));
            }
            let names = self.names();
            if let Some(line) = describe_event(&event, &names) {
                self.screen.note(line);
            }
        }
        requests.extend(self.screen.refresh_if_behind(Request::Refresh));
        requests
    }

    fn on_reply(&mut self, reply: Reply, now_ms: i64) -> Vec<Request> {
        match reply {
            Reply::Table(table) => {
                return self.screen.refreshed(table, Request::Refresh, now_ms);
            }
            Reply::Acted(action, result) => {
                let leaving = action == Action::Leave;
                self.screen.acted(&action.label(), leaving, result, now_ms);
            }
            Reply::Hints {
                turn_event_id,
                fill,
                plays,
            } => match plays {
                Ok(plays) => {
                    self.hints = Some(Hints {
                        turn_event_id,
                        plays,
                        next: 0,
                    });
                    if fill && self.hints_current() {
                        self.fill_next_hint();
                    }
                }
                Err(e) => self.screen.footer.error(e),
            },
            Reply::Verified(deal, result) => {
                self.screen.footer.finish(&format!("verifying deal {deal}"));
                self.verified.retain(|(d, _)| *d != deal);
                self.verified.push((deal, result));
                if self.verified.len() > 4 {
                    let _ = self.verified.remove(0);
                }
            }
        }
        self.screen.refresh_if_behind(Request::Refresh)
    }

    fn on_key(&mut self, key: KeyEvent, now_ms: i64) -> Vec<Request> {
        match self.screen.key(key) {
            Edit::Submit(text) if !text.is_empty() => self.command(&text, now_ms),
            Edit::Tab => self.tab(),
            _ => Vec::new(),
        }
    }

    fn frame(&self, now_ms: i64, width: u16, height: u16) -> Frame {
        let help = if self.screen.spectator {
            "watching (no hands shown) · verify · quit or Ctrl-C to stop"
        } else {
            "334455 · pass · Tab hint · bid 1-3 · auto · next · verify · leave · quit · help"
        };
        compose(
            self.body(now_ms),
            &self.screen.footer,
            help,
            now_ms,
            (width, height),
        )
    }

    fn finished(&self) -> bool {
        self.screen.finished()
    }
}

/// A bid as text: `bob 2`, `carol pass`.
fn bid_text(bid: &ddz::SeatBid, names: &[String]) -> String {
    let who = render::seat_name(names, bid.seat);
    let by = render::actor_mark(bid.by());
    if bid.points == 0 {
        format!("{who} pass{by}")
    } else {
        format!("{who} {}{by}", bid.points)
    }
}

/// Events that the view does not show by itself, as log lines.
pub fn describe_event(event: &ddz::TableEvent, names: &[String]) -> Option<String> {
    use ddz::table_event::Kind;
    let name = |seat: i32| render::seat_name(names, seat);
    Some(match event.kind.as_ref()? {
        Kind::DealStarted(d) => format!(
            "deal {} dealt; seed commitment {}…",
            event.deal_number,
            d.commitment.get(..16).unwrap_or(&d.commitment)
        ),
        Kind::LandlordChosen(l) => format!(
            "{} is the landlord (地主) at {}; kitty {}",
            name(l.seat),
            l.points,
            render::hand(&l.kitty)
        ),
        Kind::MultiplierChanged(m) => format!("multiplier now ×{}", m.multiplier),
        Kind::AutoPlayChanged(a) => format!(
            "{} auto-play (托管) {}",
            name(a.seat),
            if a.on { "on" } else { "off" }
        ),
        Kind::Escaped(e) => format!("{} left during the deal (逃跑)", name(e.seat)),
        Kind::DealEnded(e) => {
            let r = e.result.as_ref()?;
            if r.outcome() == ddz::Outcome::Redeal {
                "everyone passed: the cards are dealt again".into()
            } else {
                format!("deal {} over", event.deal_number)
            }
        }
        Kind::ReadyForNextDeal(r) => format!("{} is ready for the next deal", name(r.seat)),
        Kind::DealSettled(_) => format!("the ledger settled deal {}", event.deal_number),
        Kind::TableClosed(c) if !c.note.is_empty() => format!("the table closed ({})", c.note),
        Kind::TableClosed(c) => format!("the table closed ({})", close_reason(c.reason())),
        Kind::TableOpened(_)
        | Kind::HandDealt(_)
        | Kind::TurnStarted(_)
        | Kind::BidMade(_)
        | Kind::Played(_)
        | Kind::Passed(_) => return None,
    })
}

fn close_reason(reason: ddz::CloseReason) -> &'static str {
    match reason {
        ddz::CloseReason::Escape => "a player left during a deal",
        ddz::CloseReason::Left => "a player left",
        ddz::CloseReason::Abandoned => "not everyone was ready for the next deal",
        ddz::CloseReason::Operator => "an operator closed the table",
        ddz::CloseReason::Unspecified => "closed",
    }
}

impl DoudizhuApp {
    fn body(&self, now_ms: i64) -> Vec<String> {
        let Some(table) = self.screen.table() else {
            return self.screen.loading();
        };
        let names = self.names();
        let stakes = table.stakes.clone().unwrap_or_default();
        let mut out = vec![format!(
            "Dou Dizhu · {} · table {} · deal {} · base {} · ×{} · {} a turn{}",
            stakes.room_id,
            table.table_id,
            table.deal_number,
            stakes.points_base,
            table.multiplier.max(1),
            clock(table.turn_time_ms),
            if self.screen.spectator {
                " · watching"
            } else {
                ""
            }
        )];
        out.push(String::new());
        let finished = table.phase() == ddz::Phase::Finished;
        for seat in &table.seats {
            let to_act = table.to_act == seat.seat && !finished;
            let role = if table.landlord < 0 {
                ""
            } else if seat.landlord {
                "landlord"
            } else {
                "farmer"
            };
            let mut extra = String::new();
            if seat.auto_play {
                extra.push_str("  auto-play");
            }
            if table.status() == ddz::TableStatus::BetweenDeals && seat.ready {
                extra.push_str("  ready");
            }
            if to_act && table.turn_deadline_unix_ms > 0 {
                extra.push_str(&format!(
                    "  ◀ {}",
                    clock(table.turn_deadline_unix_ms - now_ms)
                ));
            }
            out.push(format!(
                "{} seat {}  {:<22} {:<9} {:>2} cards{extra}",
                if to_act { "▶" } else { " " },
                seat.seat,
                names
                    .get(usize::try_from(seat.seat).unwrap_or(usize::MAX))
                    .cloned()
                    .unwrap_or_default(),
                role,
                seat.cards_left,
            ));
        }
        out.push(String::new());
        if !table.bids.is_empty() || table.phase() == ddz::Phase::Bidding {
            let bids: Vec<String> = table.bids.iter().map(|b| bid_text(b, &names)).collect();
            out.push(format!(
                "bids (叫分): {}",
                if bids.is_empty() {
                    format!("none yet; {} bids first", self.name(table.first_bidder))
                } else {
                    bids.join(" · ")
                }
            ));
        }
        if !table.kitty.is_empty() {
            out.push(format!("kitty (底牌): {}", render::hand(&table.kitty)));
        }
        match (&table.trick, table.phase()) {
            (Some(trick), ddz::Phase::Playing) if !table.must_lead => {
                out.push(format!("to beat: {}", render::turn(trick, &names)));
            }
            (_, ddz::Phase::Playing) => {
                out.push(format!("{} leads", self.name(table.to_act)));
            }
            _ => {}
        }
        if !table.turns.is_empty() {
            out.push("plays:".into());
            let skip = table.turns.len().saturating_sub(TURN_LINES);
            for turn in &table.turns[skip..] {
                out.push(format!("  {}", render::turn(turn, &names)));
            }
        }
        out.push(String::new());
        if self.my_seat().is_some() {
            out.push(format!(
                "your hand ({}): {}",
                table.hand.len(),
                render::hand(&table.hand)
            ));
            if let Some(line) = self.prompt_line(table) {
                out.push(line);
            }
        } else {
            out.push("watching as a spectator: no hand is shown".into());
        }
        if finished || table.result.is_some() {
            out.push(String::new());
            out.extend(self.result_lines(table, now_ms));
        } else if table.status() == ddz::TableStatus::Closed {
            out.push(self.closed_line(table));
        }
        if self.screen.show_help {
            out.push(String::new());
            out.extend(HELP.iter().map(|l| (*l).to_owned()));
        } else if self.show_hints && self.hints_current() {
            out.push(String::new());
            if let Some(h) = &self.hints {
                let list: Vec<String> = h
                    .plays
                    .iter()
                    .take(12)
                    .map(|(ranks, kind)| format!("{ranks} ({kind})"))
                    .collect();
                out.push(format!(
                    "legal plays ({}): {}",
                    h.plays.len(),
                    list.join(" · ")
                ));
            }
        }
        if !self.screen.log().is_empty() {
            out.push(String::new());
            out.extend(self.screen.log().iter().cloned());
        }
        out
    }

    /// What the player's seat is asked to do now.
    fn prompt_line(&self, table: &ddz::Table) -> Option<String> {
        if table.status() != ddz::TableStatus::Dealing || !self.my_turn() {
            return None;
        }
        Some(match table.phase() {
            ddz::Phase::Bidding => {
                let highest = table.bids.iter().map(|b| b.points).max().unwrap_or(0);
                if highest == 0 {
                    "your bid: 1, 2, 3 or pass".into()
                } else {
                    format!("your bid: higher than {highest}, or pass")
                }
            }
            ddz::Phase::Playing if table.must_lead => {
                "your lead: type cards such as 334455 (Tab for hints)".into()
            }
            ddz::Phase::Playing => "your turn: beat it or pass (Tab for hints)".into(),
            _ => return None,
        })
    }

    fn result_lines(&self, table: &ddz::Table, now_ms: i64) -> Vec<String> {
        let mut out = Vec::new();
        let Some(result) = &table.result else {
            return out;
        };
        let names = self.names();
        let who = self.name(result.seat);
        let outcome = match result.outcome() {
            ddz::Outcome::LandlordWon => format!("the landlord {who} won"),
            ddz::Outcome::FarmersWon => format!("the farmers won ({who} played out)"),
            ddz::Outcome::Redeal => "everyone passed: redeal".into(),
            ddz::Outcome::Escaped => format!("{who} left during the deal (逃跑)"),
            ddz::Outcome::Unspecified => "over".into(),
        };
        let mut extras = Vec::new();
        if result.spring {
            extras.push("spring 春天 ×2".to_owned());
        }
        if result.anti_spring {
            extras.push("anti-spring 反春 ×2".to_owned());
        }
        if result.bombs > 0 {
            extras.push(format!("{} bomb(s)", result.bombs));
        }
        if result.rockets > 0 {
            extras.push("rocket".to_owned());
        }
        extras.push(format!("bid {}", result.bid));
        extras.push(format!("multiplier ×{}", result.multiplier));
        out.push(format!("RESULT: {outcome} · {}", extras.join(" · ")));
        if result.outcome() != ddz::Outcome::Redeal {
            let points: Vec<String> = result
                .points
                .iter()
                .enumerate()
                .map(|(seat, p)| {
                    format!(
                        "{} {}",
                        names.get(seat).cloned().unwrap_or_default(),
                        signed(*p)
                    )
                })
                .collect();
            out.push(format!("points: {}", points.join(", ")));
            // Every hand as it ended (摊牌), shown to all once the deal is over.
            for (seat, hand) in result.hands_left.iter().enumerate() {
                let name = names.get(seat).cloned().unwrap_or_default();
                let cards = if hand.cards.is_empty() {
                    "played out".to_owned()
                } else {
                    render::hand(&hand.cards)
                };
                out.push(format!("  {name} held: {cards}"));
            }
            if result.settlement.is_empty() {
                out.push("settling with the ledger…".into());
            } else {
                let silver: Vec<String> = result
                    .settlement
                    .iter()
                    .map(|s| format!("{} {}", s.player_id, signed(s.silver_delta)))
                    .collect();
                out.push(format!("silver: {}", silver.join(", ")));
            }
        }
        match self.verified.iter().find(|(d, _)| *d == table.deal_number) {
            Some((_, Ok(seed))) => out.push(format!(
                "seed {}… verified: it reproduces every hand and the commitment",
                seed.get(..16).unwrap_or(seed)
            )),
            Some((_, Err(e))) => out.push(format!("! the deal does NOT verify: {e}")),
            None => out.push("checking the deal's seed…".into()),
        }
        if table.status() == ddz::TableStatus::BetweenDeals && self.my_seat().is_some() {
            out.push(format!(
                "`next` for the next deal, `leave` to go; the table closes in {}",
                clock(table.next_deal_deadline_unix_ms - now_ms)
            ));
        }
        if table.status() == ddz::TableStatus::Closed {
            out.push(self.closed_line(table));
        }
        out
    }

    fn closed_line(&self, table: &ddz::Table) -> String {
        let next = if self.my_seat().is_some() {
            "`next` to queue for another table, "
        } else {
            ""
        };
        format!(
            "the table is closed ({}); {next}`quit` to leave",
            close_reason(table.close_reason())
        )
    }
}

/// The command list (`help`).
const HELP: &[&str] = &[
    "commands:",
    "  334455        play these ranks (3-9, T or 10, J Q K A 2, X small joker, D big joker)",
    "  pass          pass (不出); while bidding: no bid (不叫)",
    "  1 2 3         bid while bidding (or bid 2)",
    "  Tab           put the next legal play on the command line; hint lists them",
    "  auto          auto-play (托管) on; auto off",
    "  next          ready for the next deal",
    "  verify        check the last deal's seed against its commitment",
    "  leave         leave the table (an escape during a deal)",
    "  quit          close the client; the table goes on",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyCode, KeyModifiers};

    fn ranks(text: &str) -> RankCounts {
        RankCounts::parse(text).unwrap()
    }

    #[test]
    fn ranks_are_plays() {
        assert_eq!(
            parse_command("334455", false),
            Ok(Command::Play(ranks("334455")))
        );
        assert_eq!(
            parse_command("10jqka", false),
            Ok(Command::Play(ranks("TJQKA")))
        );
        assert_eq!(parse_command("XD", false), Ok(Command::Play(ranks("XD"))));
        assert_eq!(parse_command("3", false), Ok(Command::Play(ranks("3"))));
    }

    #[test]
    fn digits_are_bids_while_bidding() {
        assert_eq!(parse_command("3", true), Ok(Command::Bid(3)));
        assert_eq!(parse_command("1", true), Ok(Command::Bid(1)));
        assert_eq!(parse_command("0", true), Ok(Command::Pass));
        assert_eq!(parse_command("bid 2", false), Ok(Command::Bid(2)));
        assert!(parse_command("bid 4", true).is_err());
        assert!(parse_command("33", true).is_err());
    }

    #[test]
    fn words_are_commands() {
        assert_eq!(parse_command("pass", false), Ok(Command::Pass));
        assert_eq!(parse_command("PASS", true), Ok(Command::Pass));
        assert_eq!(parse_command("hint", false), Ok(Command::Hint));
        assert_eq!(parse_command("auto", false), Ok(Command::Auto(true)));
        assert_eq!(parse_command("auto off", false), Ok(Command::Auto(false)));
        assert_eq!(parse_command("next", false), Ok(Command::NextDeal));
        assert_eq!(parse_command("verify", false), Ok(Command::Verify));
        assert_eq!(parse_command("quit", false), Ok(Command::Quit));
        // A lone Q (either case) is a queen played, never the client closed.
        for queen in ["Q", "q"] {
            assert!(
                matches!(parse_command(queen, false), Ok(Command::Play(_))),
                "{queen}"
            );
        }
    }

    #[test]
    fn what_is_neither_says_why() {
        let e = parse_command("33z", false).unwrap_err();
        assert!(e.contains("unexpected character 'z'"), "{e}");
        assert!(parse_command("33333", false).is_err());
    }

    fn seat(n: i32, name: &str, cards: i32, landlord: bool) -> ddz::Seat {
        ddz::Seat {
            seat: n,
            player_id: name.into(),
            cards_left: cards,
            landlord,
            ..Default::default()
        }
    }

    /// Alice (seat 0) is the landlord and must beat bob's pair of fours.
    fn table() -> ddz::Table {
        ddz::Table {
            table_id: "ddz-1".into(),
            stakes: Some(gamehub_proto::common::RoomStakes {
                room_id: "doudizhu-classic".into(),
                points_base: 1,
                silver_per_point: 10,
                ..Default::default()
            }),
            turn_time_ms: 20_000,
            seats: vec![
                seat(0, "alice", 20, true),
                seat(1, "bob", 15, false),
                seat(2, "carol", 17, false),
            ],
            viewer_seat: 0,
            status: ddz::TableStatus::Dealing as i32,
            deal_number: 1,
            phase: ddz::Phase::Playing as i32,
            hand: ["S3", "H3", "S5", "H5", "C9", "SA", "S2", "BJ", "RJ"]
                .iter()
                .map(|c| (*c).to_owned())
                .collect(),
            bids: vec![
                ddz::SeatBid {
                    seat: 1,
                    points: 1,
                    by: ddz::Actor::Seat as i32,
                },
                ddz::SeatBid {
                    seat: 2,
                    points: 0,
                    by: ddz::Actor::Seat as i32,
                },
                ddz::SeatBid {
                    seat: 0,
                    points: 3,
                    by: ddz::Actor::Seat as i32,
                },
            ],
            landlord: 0,
            winning_bid: 3,
            kitty: vec!["S3".into(), "C9".into(), "RJ".into()],
            to_act: 0,
            turn_deadline_unix_ms: 15_000,
            must_lead: false,
            trick: Some(ddz::Turn {
                seat: 1,
                ranks: "44".into(),
                cards: vec!["S4".into(), "H4".into()],
                combination: Some(ddz::Combination {
                    kind: ddz::Kind::Pair as i32,
                    rank: "4".into(),
                    length: 1,
                }),
                by: ddz::Actor::Seat as i32,
            }),
            multiplier: 2,
            last_event_id: 30,
            ..Default::default()
        }
    }

    fn screen(app: &DoudizhuApp, now_ms: i64) -> String {
        app.frame(now_ms, 120, 50).lines.join("\n")
    }

    #[test]
    fn the_seat_sees_its_sorted_hand_the_counts_the_bids_and_the_trick() {
        let mut app = DoudizhuApp::new("ddz-1", false);
        app.on_feed(Feed::Snapshot(table()), 0);
        let text = screen(&app, 5_000);
        assert!(text.contains("your hand (9): 3 3 5 5 9 A 2 X D"), "{text}");
        assert!(
            text.contains("bids (叫分): bob 1 · carol pass · alice (you) 3"),
            "{text}"
        );
        assert!(text.contains("to beat: bob plays 4 4 (pair)"), "{text}");
        assert!(text.contains("×2"), "{text}");
        let bob = text.lines().find(|l| l.contains("bob  ")).unwrap();
        assert!(bob.contains("farmer") && bob.contains("15 cards"), "{bob}");
        let alice = text.lines().find(|l| l.contains("alice (you)  ")).unwrap();
        assert!(
            alice.starts_with('▶') && alice.contains("◀ 0:10"),
            "{alice}"
        );
        assert!(text.contains("your turn: beat it or pass"), "{text}");
    }

    #[test]
    fn next_at_a_closed_table_queues_again_in_its_room() {
        let mut app = DoudizhuApp::new("ddz-1", false);
        let mut t = table();
        t.status = ddz::TableStatus::Closed as i32;
        t.phase = ddz::Phase::Finished as i32;
        app.on_feed(Feed::Snapshot(t), 0);
        assert!(app.command("next", 0).is_empty());
        assert_eq!(app.requeue(), Some("doudizhu-classic".into()));
    }

    #[test]
    fn the_close_of_the_table_is_shown_after_the_deal() {
        let mut app = DoudizhuApp::new("ddz-1", false);
        let mut t = table();
        t.status = ddz::TableStatus::BetweenDeals as i32;
        t.phase = ddz::Phase::Finished as i32;
        t.result = Some(ddz::DealResult {
            outcome: ddz::Outcome::LandlordWon as i32,
            seed: "ab".repeat(32),
            ..Default::default()
        });
        assert_eq!(
            app.on_feed(Feed::Snapshot(t.clone()), 0),
            vec![Request::Verify(1)]
        );
        assert!(screen(&app, 0).contains("`next` for the next deal"));
        let closed = ddz::TableEvent {
            event_id: 31,
            deal_number: 1,
            kind: Some(ddz::table_event::Kind::TableClosed(ddz::TableClosed {
                reason: ddz::CloseReason::Left as i32,
                note: String::new(),
            })),
            ..Default::default()
        };
        assert_eq!(app.on_feed(Feed::Event(closed), 0), vec![Request::Refresh]);
        t.status = ddz::TableStatus::Closed as i32;
        t.close_reason = ddz::CloseReason::Left as i32;
        t.last_event_id = 31;
        assert!(app.on_reply(Reply::Table(Ok(t)), 0).is_empty());
        let text = screen(&app, 0);
        assert!(
            text.contains("the table is closed (a player left); `next` to queue"),
            "{text}"
        );
        assert!(!text.contains("`next` for the next deal"), "{text}");
    }

    #[test]
    fn a_spectator_sees_no_hand() {
        let mut app = DoudizhuApp::new("ddz-1", true);
        let mut t = table();
        t.viewer_seat = -1;
        t.hand.clear();
        app.on_feed(Feed::Snapshot(t), 0);
        let text = screen(&app, 0);
        assert!(text.contains("no hand is shown"), "{text}");
        assert!(!text.contains("your hand"), "{text}");
        assert!(app.command("55", 0).is_empty());
    }

    #[test]
    fn typed_ranks_are_sent_as_rank_text() {
        let mut app = DoudizhuApp::new("ddz-1", false);
        app.on_feed(Feed::Snapshot(table()), 0);
        assert_eq!(
            app.command("5 5", 0),
            vec![Request::Act(Action::Play("55".into()))]
        );
        assert_eq!(app.command("pass", 0), vec![Request::Act(Action::Pass)]);
    }

    #[test]
    fn tab_asks_for_hints_once_then_cycles_through_them() {
        let mut app = DoudizhuApp::new("ddz-1", false);
        app.on_feed(Feed::Snapshot(table()), 0);
        let tab = KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE);
        let requests = app.on_key(tab, 0);
        assert_eq!(
            requests,
            vec![Request::Hints {
                turn_event_id: 30,
                fill: true
            }]
        );
        app.on_reply(
            Reply::Hints {
                turn_event_id: 30,
                fill: true,
                plays: Ok(vec![
                    ("55".into(), "pair".into()),
                    ("XD".into(), "rocket".into()),
                ]),
            },
            0,
        );
        assert_eq!(app.screen.footer.editor.text(), "55");
        assert!(app.on_key(tab, 0).is_empty());
        assert_eq!(app.screen.footer.editor.text(), "XD");
        assert!(screen(&app, 0).contains("hint 2/2: rocket"));
        assert!(app.on_key(tab, 0).is_empty());
        assert_eq!(app.screen.footer.editor.text(), "55");
    }

    #[test]
    fn the_end_of_a_deal_is_verified_and_shown_with_spring_silver_and_every_hand() {
        let mut app = DoudizhuApp::new("ddz-1", false);
        app.on_feed(Feed::Snapshot(table()), 0);
        let ended = ddz::TableEvent {
            event_id: 31,
            deal_number: 1,
            kind: Some(ddz::table_event::Kind::DealEnded(ddz::DealEnded {
                result: Some(ddz::DealResult::default()),
            })),
            ..Default::default()
        };
        let requests = app.on_feed(Feed::Event(ended), 0);
        assert_eq!(requests, vec![Request::Verify(1), Request::Refresh]);
        let mut t = table();
        t.last_event_id = 32;
        t.phase = ddz::Phase::Finished as i32;
        t.status = ddz::TableStatus::BetweenDeals as i32;
        t.to_act = -1;
        t.next_deal_deadline_unix_ms = 60_000;
        t.result = Some(ddz::DealResult {
            outcome: ddz::Outcome::LandlordWon as i32,
            seat: 0,
            points: vec![24, -12, -12],
            bid: 3,
            spring: true,
            multiplier: 4,
            seed: "ab".repeat(32),
            hands_left: vec![
                ddz::Hand { cards: vec![] },
                ddz::Hand {
                    cards: vec!["BJ".into(), "S3".into()],
                },
                ddz::Hand {
                    cards: vec!["HT".into()],
                },
            ],
            settlement: vec![
                ddz::SeatSettlement {
                    seat: 0,
                    player_id: "alice".into(),
                    points_delta: 24,
                    silver_delta: 240,
                },
                ddz::SeatSettlement {
                    seat: 1,
                    player_id: "bob".into(),
                    points_delta: -12,
                    silver_delta: -120,
                },
                ddz::SeatSettlement {
                    seat: 2,
                    player_id: "carol".into(),
                    points_delta: -12,
                    silver_delta: -120,
                },
            ],
            ..Default::default()
        });
        app.on_reply(Reply::Table(Ok(t)), 0);
        app.on_reply(Reply::Verified(1, Ok("ab".repeat(32))), 0);
        let text = screen(&app, 0);
        assert!(
            text.contains("RESULT: the landlord alice (you) won · spring 春天 ×2"),
            "{text}"
        );
        assert!(
            text.contains("points: alice (you) +24, bob -12, carol -12"),
            "{text}"
        );
        assert!(
            text.contains("silver: alice +240, bob -120, carol -120"),
            "{text}"
        );
        assert!(text.contains("seed abababababababab… verified"), "{text}");
        assert!(text.contains("`next` for the next deal"), "{text}");
        assert!(text.contains("alice (you) held: played out"), "{text}");
        assert!(text.contains("bob held: 3 X"), "{text}");
        assert!(text.contains("carol held: T"), "{text}");
    }
}
