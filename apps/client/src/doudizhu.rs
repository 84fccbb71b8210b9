//! The Dou Dizhu screen: commands as typed ([`parse_command`]), the seat's view as the
//! dealer last described it ([`DoudizhuApp`]) and the screen drawn from it. No I/O
//! here: the app returns [`Request`]s and the loop (`commands`) performs them.
//!
//! As for Gomoku, the state is always the dealer's own view (`GetTable` after each new
//! event): the client never judges a play. A play is typed as ranks and sent as they
//! are; the dealer picks the suits and refuses what the rules refuse, in its words.
//!
//! Every rule set (classic 叫分, rob 叫地主/抢地主, laizi 癞子) is played alike:
//! `Table.decision` says what the seat to act must decide, `y`, `n` and `pass` answer
//! that decision and the answer goes to the RPC of its name. In laizi a play may say
//! what its cards stand for (`5557=5555`); the dealer says when it must.

use crossterm::event::KeyEvent;
use doudizhu_rules::{Rank, RankCounts};
use gamehub_proto::doudizhu as ddz;

use super::app::App;
use super::follow::Feed;
use super::screen::{clock, compose};
use super::table::{Acted, TableScreen};
use super::term::{Edit, Frame};
use gamehub_render::{self as render, signed};

/// A yes-or-no decision of the rob and laizi rule sets, each its own RPC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// Call the landlord (叫地主) or not (不叫).
    Call,
    /// Rob the landlord (抢地主) or not (不抢).
    Rob,
    /// Double (加倍) or not.
    Double,
    /// Show the landlord's hand (明牌) or not.
    Show,
}

impl Choice {
    /// The choice `decision` asks for, if it is one of these.
    pub fn asked_by(decision: ddz::Decision) -> Option<Choice> {
        match decision {
            ddz::Decision::Call => Some(Choice::Call),
            ddz::Decision::Rob => Some(Choice::Rob),
            ddz::Decision::Double => Some(Choice::Double),
            ddz::Decision::Show => Some(Choice::Show),
            ddz::Decision::Unspecified | ddz::Decision::Bid | ddz::Decision::Play => None,
        }
    }

    /// The command that says yes.
    fn word(self) -> &'static str {
        match self {
            Choice::Call => "call",
            Choice::Rob => "rob",
            Choice::Double => "double",
            Choice::Show => "show",
        }
    }

    /// The choice a command word (English or Chinese) names, and whether it says yes.
    fn named(word: &str) -> Option<(Choice, bool)> {
        Some(match word {
            "call" | "叫地主" => (Choice::Call, true),
            "rob" | "抢地主" => (Choice::Rob, true),
            "不抢" => (Choice::Rob, false),
            "double" | "加倍" => (Choice::Double, true),
            "不加倍" => (Choice::Double, false),
            "show" | "明牌" => (Choice::Show, true),
            "不明牌" => (Choice::Show, false),
            _ => return None,
        })
    }

    /// What is being decided, as a question.
    fn question(self) -> &'static str {
        match self {
            Choice::Call => "call the landlord (叫地主)?",
            Choice::Rob => "rob the landlord (抢地主)?",
            Choice::Double => "double (加倍)?",
            Choice::Show => "show your hand to all (明牌)?",
        }
    }
}

/// What the player typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// Play these ranks (`334455`, `10JQKA`, `XD` for the rocket), in laizi perhaps
    /// saying what they stand for (`5557=5555`, `play 5557 as 5555`).
    Play {
        /// The cards' ranks.
        ranks: RankCounts,
        /// What they stand for, when stated.
        meant: Option<RankCounts>,
    },
    /// Pass (`pass`): in play 不出; for a bid, call, rob, double or show, "no".
    Pass,
    /// Bid 1, 2 or 3 (`bid 2`, or just `2` while bidding).
    Bid(u8),
    /// Yes or no to a decision named: `call`, `rob`, `double`, `show`, `no rob`, 不抢 …
    Say(Choice, bool),
    /// Yes or no to whatever is being decided now (`y`, `yes`, `n`, `no`).
    Answer(bool),
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

/// Reads one command line, `deciding` being what the seat to act decides now: while
/// bidding a lone `0`–`3` is a bid (`0` passes), and cards are refused while bidding,
/// calling, robbing, doubling or showing.
pub fn parse_command(text: &str, deciding: ddz::Decision) -> Result<Command, String> {
    let lower = text.trim().to_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    let bidding = deciding == ddz::Decision::Bid;
    if let [word] = words.as_slice()
        && let Some((choice, yes)) = Choice::named(word)
    {
        return Ok(Command::Say(choice, yes));
    }
    if let ["no", word] = words.as_slice()
        && let Some((choice, true)) = Choice::named(word)
    {
        return Ok(Command::Say(choice, false));
    }
    Ok(match words.as_slice() {
        [] => return Err("type cards such as 334455, pass, or help".into()),
        ["pass"] | ["不出"] | ["不叫"] => Command::Pass,
        ["y"] | ["yes"] => Command::Answer(true),
        ["n"] | ["no"] => Command::Answer(false),
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
        _ => play(text, &lower, deciding)?,
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

/// Reads a play: ranks (`334455`, `play 334455`), perhaps with what they stand for
/// (`5557=5555`, `play 5557 as 5555`).
fn play(text: &str, lower: &str, deciding: ddz::Decision) -> Result<Command, String> {
    let body = lower.strip_prefix("play").map_or(lower, str::trim_start);
    let (cards, meant) = match body.split_once('=').or_else(|| body.split_once(" as ")) {
        Some((cards, meant)) => (cards, Some(meant.trim())),
        None => (body, None),
    };
    let ranks = RankCounts::parse(cards).map_err(|e| {
        format!("{text:?} is neither a command nor cards ({e}); `help` lists the commands")
    })?;
    if ranks.is_empty() {
        return Err("which cards? e.g. 334455, or 5557=5555 to say what they stand for".into());
    }
    let meant = match meant {
        Some(m) => {
            let parsed = RankCounts::parse(m).map_err(|e| {
                format!("{m:?} is not ranks for the cards to stand for ({e}); e.g. 5557=5555")
            })?;
            if parsed.is_empty() {
                return Err("say what the cards stand for after `=`, e.g. 5557=5555".into());
            }
            Some(parsed)
        }
        None => None,
    };
    if deciding == ddz::Decision::Bid {
        return Err("bidding now: type 1, 2, 3 or pass".into());
    }
    if let Some(choice) = Choice::asked_by(deciding) {
        return Err(format!(
            "not playing yet: {} type {} or no (y/n)",
            choice.question(),
            choice.word()
        ));
    }
    Ok(Command::Play { ranks, meant })
}

/// Ranks as rank text without spaces (`5557`), as the dealer reads them.
fn rank_text(ranks: &RankCounts) -> String {
    ranks.to_string().replace(' ', "")
}

/// Something to do at the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Bid (0 passes).
    Bid(u8),
    /// Call the landlord, or not.
    Call(bool),
    /// Rob the landlord, or not.
    Rob(bool),
    /// Double, or not.
    Double(bool),
    /// Show the landlord's hand, or not.
    Show(bool),
    /// Play ranks, as rank text.
    Play {
        /// The cards' ranks.
        ranks: String,
        /// What they stand for (laizi), as rank text; empty when not stated.
        meant: String,
    },
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
    /// The action that answers `choice` with yes or no.
    pub fn say(choice: Choice, yes: bool) -> Action {
        match choice {
            Choice::Call => Action::Call(yes),
            Choice::Rob => Action::Rob(yes),
            Choice::Double => Action::Double(yes),
            Choice::Show => Action::Show(yes),
        }
    }

    /// What the screen says while it is in flight.
    pub fn label(&self) -> String {
        match self {
            Action::Bid(0) => "passing the bid".into(),
            Action::Bid(n) => format!("bidding {n}"),
            Action::Call(true) => "calling the landlord (叫地主)".into(),
            Action::Call(false) => "not calling (不叫)".into(),
            Action::Rob(true) => "robbing the landlord (抢地主)".into(),
            Action::Rob(false) => "not robbing (不抢)".into(),
            Action::Double(true) => "doubling (加倍)".into(),
            Action::Double(false) => "not doubling (不加倍)".into(),
            Action::Show(true) => "showing your hand (明牌)".into(),
            Action::Show(false) => "not showing your hand".into(),
            Action::Play { ranks, meant } if meant.is_empty() => format!("playing {ranks}"),
            Action::Play { ranks, meant } => format!("playing {ranks} as {meant}"),
            Action::Pass => "passing".into(),
            Action::Auto(true) => "turning auto-play on".into(),
            Action::Auto(false) => "turning auto-play off".into(),
            Action::NextDeal => "asking for the next deal".into(),
            Action::Leave => "leaving the table".into(),
        }
    }

    /// The dealer's request that does it at `table_id`, as action `request_id`.
    pub fn request(&self, table_id: String, request_id: String) -> ActionRequest {
        match self {
            Action::Bid(points) => ActionRequest::Bid(ddz::BidRequest {
                table_id,
                request_id,
                points: i32::from(*points),
            }),
            Action::Call(call) => ActionRequest::Call(ddz::CallRequest {
                table_id,
                request_id,
                call: *call,
            }),
            Action::Rob(rob) => ActionRequest::Rob(ddz::RobRequest {
                table_id,
                request_id,
                rob: *rob,
            }),
            Action::Double(double) => ActionRequest::Double(ddz::DoubleRequest {
                table_id,
                request_id,
                double: *double,
            }),
            Action::Show(show) => ActionRequest::Show(ddz::ShowRequest {
                table_id,
                request_id,
                show: *show,
            }),
            Action::Play { ranks, meant } => ActionRequest::Play(ddz::PlayRequest {
                table_id,
                request_id,
                ranks: ranks.clone(),
                cards: Vec::new(),
                meant: meant.clone(),
            }),
            Action::Pass => ActionRequest::Pass(ddz::PassRequest {
                table_id,
                request_id,
            }),
            Action::Auto(on) => ActionRequest::Auto(ddz::SetAutoPlayRequest {
                table_id,
                request_id,
                on: *on,
            }),
            Action::NextDeal => ActionRequest::NextDeal(ddz::NextDealRequest {
                table_id,
                request_id,
            }),
            Action::Leave => ActionRequest::Leave(ddz::LeaveRequest {
                player_id: String::new(),
                table_id,
                request_id,
            }),
        }
    }
}

/// An action as the dealer's request, one variant per RPC.
#[derive(Debug, Clone, PartialEq)]
pub enum ActionRequest {
    /// Bid.
    Bid(ddz::BidRequest),
    /// Call.
    Call(ddz::CallRequest),
    /// Rob.
    Rob(ddz::RobRequest),
    /// Double.
    Double(ddz::DoubleRequest),
    /// Show.
    Show(ddz::ShowRequest),
    /// Play.
    Play(ddz::PlayRequest),
    /// Pass.
    Pass(ddz::PassRequest),
    /// SetAutoPlay.
    Auto(ddz::SetAutoPlayRequest),
    /// NextDeal.
    NextDeal(ddz::NextDealRequest),
    /// Leave.
    Leave(ddz::LeaveRequest),
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

/// One legal play as the dealer's Hint gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HintPlay {
    /// The cards, as rank text.
    pub ranks: String,
    /// In laizi, what they stand for (as rank text); empty elsewhere.
    pub meant: String,
    /// What the play is, in words.
    pub kind: String,
}

impl HintPlay {
    /// The play of a hint.
    pub fn of(hint: &ddz::Hint) -> HintPlay {
        HintPlay {
            ranks: hint.ranks.clone(),
            meant: hint.meant.clone(),
            kind: combination_name(hint.combination.as_ref()),
        }
    }

    /// Whether it says what its cards stand for beyond themselves: wild cards standing
    /// for another rank.
    fn stands_for_other(&self) -> bool {
        !self.meant.is_empty() && !same_ranks(&self.ranks, &self.meant)
    }

    /// The command that plays it, among `all` the hints of the turn: the ranks, with
    /// what they stand for when that differs or the same cards have other readings.
    fn command(&self, all: &[HintPlay]) -> String {
        let readings = all.iter().filter(|h| h.ranks == self.ranks).count();
        if self.stands_for_other() || (!self.meant.is_empty() && readings > 1) {
            format!("{}={}", self.ranks, self.meant)
        } else {
            self.ranks.clone()
        }
    }

    /// As listed: `55 (pair)`, `5557 as 5555 (soft bomb 软炸弹)`.
    fn listed(&self) -> String {
        if self.stands_for_other() {
            format!("{} as {} ({})", self.ranks, self.meant, self.kind)
        } else {
            format!("{} ({})", self.ranks, self.kind)
        }
    }
}

/// Whether two rank texts hold the same ranks, in any order.
fn same_ranks(a: &str, b: &str) -> bool {
    match (RankCounts::parse(a), RankCounts::parse(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
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
        /// The plays, or the error.
        plays: Result<Vec<HintPlay>, String>,
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
    /// The legal plays (in laizi, each reading of the same cards apart), smallest first.
    plays: Vec<HintPlay>,
    /// The one Tab shows next.
    next: usize,
}

/// Lines of the event log kept on screen.
const LOG_LINES: usize = 5;
/// Plays of the deal kept on screen.
const TURN_LINES: usize = 5;

/// What the first `leave` during a classic deal says.
const ESCAPE_WARNING: &str = "leaving during a deal is an escape (逃跑): you lose 3 × bid × base × \
                              multiplier; type leave again to confirm";

/// Whether a table or deal of `rule_set` bids points (叫分): the classic rule set,
/// which tables of a dealer that names none play.
fn bids_points(rule_set: &str) -> bool {
    rule_set.is_empty() || rule_set == "classic"
}

/// A rule set's name with its Chinese one.
pub fn rule_set_name(rule_set: &str) -> String {
    match rule_set {
        "" | "classic" => "classic (叫分)".into(),
        "rob" => "rob (叫地主/抢地主)".into(),
        "laizi" => "laizi (癞子)".into(),
        other => other.to_owned(),
    }
}

/// The wild rank (癞子) of a laizi deal, from its rank text.
pub fn wild_rank(text: &str) -> Option<Rank> {
    RankCounts::parse(text).ok()?.lowest()
}

/// Rank symbols separated by spaces, each wild one marked `*`.
fn marked(symbols: impl Iterator<Item = char>, wild: Option<Rank>) -> String {
    symbols
        .map(|c| {
            if wild.is_some_and(|w| w.symbol() == c) {
                format!("{c}*")
            } else {
                c.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Cards as rank text, lowest first, the wild ones marked `*` (`3 3 7* 9 A`).
pub fn hand_text(cards: &[String], wild: Option<Rank>) -> String {
    let shown = render::hand(cards);
    marked(shown.chars().filter(|c| *c != ' '), wild)
}

/// A combination's name in words, with a laizi bomb's class.
pub fn combination_name(combination: Option<&ddz::Combination>) -> String {
    let class = combination.map_or(ddz::BombClass::Unspecified, |c| c.bomb());
    match class {
        ddz::BombClass::Soft => "soft bomb 软炸弹".into(),
        ddz::BombClass::Hard => "hard bomb 硬炸弹".into(),
        ddz::BombClass::Wild => "wild bomb 纯癞子炸弹".into(),
        ddz::BombClass::Unspecified => render::combination(combination).to_owned(),
    }
}

/// One play or pass: `bob plays 5 5 5 7* as 5 5 5 5 (soft bomb 软炸弹)`, the wild
/// cards marked and what they stood for said.
pub fn turn_text(turn: &ddz::Turn, names: &[String], wild: Option<Rank>) -> String {
    let who = render::seat_name(names, turn.seat);
    let by = render::actor_mark(turn.by());
    if turn.ranks.is_empty() {
        return format!("{who} passes{by}");
    }
    let ranks = marked(turn.ranks.chars(), wild);
    let meant = if turn.meant.is_empty() || same_ranks(&turn.ranks, &turn.meant) {
        String::new()
    } else {
        format!(" as {}", marked(turn.meant.chars(), None))
    };
    format!(
        "{who} plays {ranks}{meant} ({}){by}",
        combination_name(turn.combination.as_ref())
    )
}

/// A call or rob as text: `bob call`, `carol no rob [timeout]`.
pub fn call_text(call: &ddz::SeatCall, names: &[String]) -> String {
    let said = match call.call() {
        ddz::CallKind::Call => "call",
        ddz::CallKind::Decline => "no call",
        ddz::CallKind::Rob => "rob",
        ddz::CallKind::NoRob => "no rob",
        ddz::CallKind::Unspecified => "?",
    };
    format!(
        "{} {said}{}",
        render::seat_name(names, call.seat),
        render::actor_mark(call.by())
    )
}

/// A doubling decision as text: `bob double`, `carol no`.
pub fn double_text(double: &ddz::SeatDouble, names: &[String]) -> String {
    format!(
        "{} {}{}",
        render::seat_name(names, double.seat),
        if double.double { "double" } else { "no" },
        render::actor_mark(double.by())
    )
}

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
        let mut out = self.result_farewell();
        out.extend(self.screen.come_back());
        out
    }

    /// The last result as [`farewell`](Self::farewell) prints it, without how to come
    /// back (a tournament says that itself).
    pub fn result_farewell(&self) -> Vec<String> {
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
        out
    }

    /// Whether the player still sits at a table that goes on (it quit the screen,
    /// not the table).
    pub fn still_seated(&self) -> bool {
        self.screen.come_back().is_some()
    }

    /// Whether a deal is being played at the table (leaving it would be an escape).
    pub fn in_progress(&self) -> bool {
        self.deal_running()
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

    /// What the seat to act decides now, while a deal runs; unspecified otherwise. A
    /// dealer that does not say is read by its phase (bidding or playing).
    fn deciding(&self) -> ddz::Decision {
        let Some(table) = self.screen.table() else {
            return ddz::Decision::Unspecified;
        };
        if table.status() != ddz::TableStatus::Dealing {
            return ddz::Decision::Unspecified;
        }
        match (table.decision(), table.phase()) {
            (ddz::Decision::Unspecified, ddz::Phase::Bidding) => ddz::Decision::Bid,
            (ddz::Decision::Unspecified, ddz::Phase::Playing) => ddz::Decision::Play,
            (decision, _) => decision,
        }
    }

    fn hints_current(&self) -> bool {
        let key = self.screen.table().map_or(-1, |t| t.last_event_id);
        self.hints.as_ref().is_some_and(|h| h.turn_event_id == key)
    }

    /// Tab: the next legal play on the command line (asking the dealer first).
    fn tab(&mut self) -> Vec<Request> {
        if !self.my_turn() || self.deciding() != ddz::Decision::Play {
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
        let hint = &hints.plays[i];
        let command = hint.command(&hints.plays);
        let what = if hint.stands_for_other() {
            format!("{} as {}", hint.kind, hint.meant)
        } else {
            hint.kind.clone()
        };
        let count = hints.plays.len();
        self.screen.footer.editor.set(&command);
        self.screen.footer.info(format!(
            "hint {}/{count}: {what}; Enter plays it, Tab shows the next",
            i + 1
        ));
    }

    /// The action that says no to what is being decided: 不叫 to a bid or call, 不抢,
    /// 不加倍, not showing, or 不出 in play.
    fn no(deciding: ddz::Decision) -> Action {
        match Choice::asked_by(deciding) {
            Some(choice) => Action::say(choice, false),
            None if deciding == ddz::Decision::Bid => Action::Bid(0),
            None => Action::Pass,
        }
    }

    fn command(&mut self, text: &str, now_ms: i64) -> Vec<Request> {
        let deciding = self.deciding();
        let command = match parse_command(text, deciding) {
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
            Command::Play { ranks, meant } => Action::Play {
                ranks: rank_text(&ranks),
                meant: meant.as_ref().map(rank_text).unwrap_or_default(),
            },
            Command::Pass => Self::no(deciding),
            Command::Answer(yes) => match (Choice::asked_by(deciding), deciding) {
                (Some(choice), _) => Action::say(choice, yes),
                (None, ddz::Decision::Bid) if !yes => Action::Bid(0),
                (None, ddz::Decision::Bid) => {
                    self.screen.footer.error("a bid is 1, 2 or 3 (or pass)");
                    return Vec::new();
                }
                (None, ddz::Decision::Play) => {
                    self.screen.footer.error("in play type cards, or pass");
                    return Vec::new();
                }
                (None, _) => {
                    self.screen.footer.error("nothing to say yes or no to now");
                    return Vec::new();
                }
            },
            Command::Say(choice, yes) => Action::say(choice, yes),
            Command::Bid(n) => Action::Bid(n),
            Command::Auto(on) => Action::Auto(on),
            Command::NextDeal if self.screen.closed() => {
                // This table is over: find another one in the same room.
                self.screen.queue_elsewhere();
                return Vec::new();
            }
            Command::NextDeal => Action::NextDeal,
            Command::Leave => {
                let warning = self.escape_warning();
                if !self.screen.leave_confirmed(self.deal_running(), &warning) {
                    return Vec::new();
                }
                Action::Leave
            }
        };
        self.show_hints = false;
        self.screen.send(action.label(), now_ms);
        vec![Request::Act(action)]
    }

    /// What the first `leave` during a deal says: the escape's price in this rule set.
    fn escape_warning(&self) -> String {
        let Some(table) = self.screen.table() else {
            return ESCAPE_WARNING.into();
        };
        if bids_points(&table.rule_set) {
            return ESCAPE_WARNING.into();
        }
        let called =
            table.landlord >= 0 || table.calls.iter().any(|c| c.call() == ddz::CallKind::Call);
        if called {
            let base = table.stakes.as_ref().map_or(1, |s| s.points_base);
            let multiplier = table.multiplier.max(1);
            format!(
                "leaving during a deal is an escape (逃跑): you lose base × multiplier × 3 \
                 ({base} × {multiplier} × 3 = {} points); type leave again to confirm",
                base.saturating_mul(multiplier).saturating_mul(3)
            )
        } else {
            "leaving during a deal is an escape (逃跑): nobody has called yet, so you lose 3 \
             points; type leave again to confirm"
                .into()
        }
    }

    /// The message for a refused play, with what to do about an ambiguous reading.
    fn play_refused(ranks: &str, message: String) -> String {
        if message.starts_with("ambiguous_reading") {
            format!(
                "{message} — say which: {ranks}=<ranks meant> (or play {ranks} as <ranks \
                 meant>); Tab cycles through the readings"
            )
        } else if message.starts_with("reading_not_possible") {
            format!("{message} — Tab shows what the cards can stand for")
        } else {
            message
        }
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
                let result = match &action {
                    Action::Play { ranks, .. } => {
                        result.map_err(|message| Self::play_refused(ranks, message))
                    }
                    _ => result,
                };
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

    fn on_notice(&mut self, text: String, _now_ms: i64) {
        self.screen.note(text.clone());
        self.screen.footer.info(text);
    }

    fn frame(&self, now_ms: i64, width: u16, height: u16) -> Frame {
        let help = if self.screen.spectator {
            "watching (no hands shown) · verify · quit or Ctrl-C to stop"
        } else {
            match self.screen.table().map_or("", |t| t.rule_set.as_str()) {
                "rob" | "laizi" => {
                    "334455 · pass · Tab hint · call/rob/double/show or no (y/n) · auto · next \
                     · verify · leave · quit · help"
                }
                _ => {
                    "334455 · pass · Tab hint · bid 1-3 · auto · next · verify · leave · quit · help"
                }
            }
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
        // A rob deal's landlord is chosen by calls and robs, not by points.
        Kind::LandlordChosen(l) if l.points == 0 => format!(
            "{} is the landlord (地主) after {} rob(s); kitty {}",
            name(l.seat),
            l.robs,
            render::hand(&l.kitty)
        ),
        Kind::LandlordChosen(l) => format!(
            "{} is the landlord (地主) at {}; kitty {}",
            name(l.seat),
            l.points,
            render::hand(&l.kitty)
        ),
        Kind::Called(c) => format!(
            "{} {}{}",
            name(c.seat),
            if c.call {
                "calls the landlord (叫地主)"
            } else {
                "does not call (不叫)"
            },
            render::actor_mark(c.by())
        ),
        Kind::Robbed(r) => format!(
            "{} {}{}",
            name(r.seat),
            if r.rob {
                "robs the landlord (抢地主)"
            } else {
                "does not rob (不抢)"
            },
            render::actor_mark(r.by())
        ),
        Kind::Doubled(d) => format!(
            "{} {}{}",
            name(d.seat),
            if d.double {
                "doubles (加倍)"
            } else {
                "does not double (不加倍)"
            },
            render::actor_mark(d.by())
        ),
        Kind::Showed(s) => format!(
            "{} {}{}",
            name(s.seat),
            if s.show {
                "shows the landlord's hand (明牌)"
            } else {
                "does not show the landlord's hand"
            },
            render::actor_mark(s.by())
        ),
        Kind::HandShown(h) => format!(
            "{}'s hand, shown to all (明牌): {}",
            name(h.seat),
            render::hand(&h.cards)
        ),
        Kind::WildRankDrawn(w) => format!(
            "the wild rank (癞子) is {}: every {} is wild",
            w.rank, w.rank
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
                "nobody took the landlord: the cards are dealt again".into()
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
        let wild = wild_rank(&table.wild_rank);
        let stakes = table.stakes.clone().unwrap_or_default();
        let mut out = vec![format!(
            "Dou Dizhu · {} · {} · table {} · deal {} · base {} · ×{} · {} a turn{}",
            stakes.room_id,
            rule_set_name(&table.rule_set),
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
            if table
                .doubles
                .iter()
                .any(|d| d.seat == seat.seat && d.double)
            {
                extra.push_str("  doubled 加倍");
            }
            if seat.landlord && table.shown {
                extra.push_str("  shown 明牌");
            }
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
        let choosing = table.phase() == ddz::Phase::Bidding;
        if bids_points(&table.rule_set) {
            if !table.bids.is_empty() || choosing {
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
        } else if !table.calls.is_empty() || choosing {
            let calls: Vec<String> = table.calls.iter().map(|c| call_text(c, &names)).collect();
            let robs = if table.robs > 0 {
                format!(" ({} rob(s))", table.robs)
            } else {
                String::new()
            };
            out.push(format!(
                "calls (叫地主/抢地主): {}{robs}",
                if calls.is_empty() {
                    format!("none yet; {} calls first", self.name(table.first_bidder))
                } else {
                    calls.join(" · ")
                }
            ));
        }
        if !table.doubles.is_empty() || table.phase() == ddz::Phase::Doubling {
            let doubles: Vec<String> = table
                .doubles
                .iter()
                .map(|d| double_text(d, &names))
                .collect();
            out.push(format!(
                "doubles (加倍): {}",
                if doubles.is_empty() {
                    "none yet".to_owned()
                } else {
                    doubles.join(" · ")
                }
            ));
        }
        if !table.kitty.is_empty() {
            out.push(format!("kitty (底牌): {}", hand_text(&table.kitty, wild)));
        }
        if let Some(rank) = wild {
            out.push(format!(
                "wild rank (癞子): {rank} — marked {rank}* in hands and plays"
            ));
        }
        if !table.landlord_hand.is_empty() {
            out.push(format!(
                "{}'s hand, shown (明牌, {}): {}",
                self.name(table.landlord),
                table.landlord_hand.len(),
                hand_text(&table.landlord_hand, wild)
            ));
        }
        match (&table.trick, table.phase()) {
            (Some(trick), ddz::Phase::Playing) if !table.must_lead => {
                out.push(format!("to beat: {}", turn_text(trick, &names, wild)));
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
                out.push(format!("  {}", turn_text(turn, &names, wild)));
            }
        }
        out.push(String::new());
        if self.my_seat().is_some() {
            out.push(format!(
                "your hand ({}): {}",
                table.hand.len(),
                hand_text(&table.hand, wild)
            ));
        } else {
            out.push("watching as a spectator: no hand is shown".into());
        }
        if let Some(line) = self.prompt_line(table) {
            out.push(line);
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
                let list: Vec<String> = h.plays.iter().take(12).map(HintPlay::listed).collect();
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

    /// What the player's seat is asked to decide now; when another seat decides a
    /// call, rob, double or show, who decides what.
    fn prompt_line(&self, table: &ddz::Table) -> Option<String> {
        let deciding = self.deciding();
        if !self.my_turn() {
            let choice = Choice::asked_by(deciding)?;
            return Some(format!(
                "{} decides: {}",
                self.name(table.to_act),
                choice.question()
            ));
        }
        let wilds = if table.wild_rank.is_empty() {
            ""
        } else {
            "; 5557=5555 says what wild cards stand for"
        };
        Some(match deciding {
            ddz::Decision::Bid => {
                let highest = table.bids.iter().map(|b| b.points).max().unwrap_or(0);
                if highest == 0 {
                    "your bid: 1, 2, 3 or pass".into()
                } else {
                    format!("your bid: higher than {highest}, or pass")
                }
            }
            ddz::Decision::Play if table.must_lead => {
                format!("your lead: type cards such as 334455 (Tab for hints{wilds})")
            }
            ddz::Decision::Play => format!("your turn: beat it or pass (Tab for hints{wilds})"),
            decision => {
                let choice = Choice::asked_by(decision)?;
                format!(
                    "your decision: {} {} or no (y/n)",
                    choice.question(),
                    choice.word()
                )
            }
        })
    }

    fn result_lines(&self, table: &ddz::Table, now_ms: i64) -> Vec<String> {
        let mut out = Vec::new();
        let Some(result) = &table.result else {
            return out;
        };
        let names = self.names();
        let who = self.name(result.seat);
        let rule_set = if result.rule_set.is_empty() {
            table.rule_set.as_str()
        } else {
            result.rule_set.as_str()
        };
        let outcome = match result.outcome() {
            ddz::Outcome::LandlordWon => format!("the landlord {who} won"),
            ddz::Outcome::FarmersWon => format!("the farmers won ({who} played out)"),
            ddz::Outcome::Redeal if bids_points(rule_set) => "everyone passed: redeal".into(),
            ddz::Outcome::Redeal => "nobody called: redeal".into(),
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
        if result.robs > 0 {
            extras.push(format!("{} rob(s) 抢地主", result.robs));
        }
        if result.shown {
            extras.push("shown 明牌 ×2".to_owned());
        }
        let doubled: Vec<String> = result
            .doubled
            .iter()
            .enumerate()
            .filter(|(_, d)| **d)
            .map(|(seat, _)| names.get(seat).cloned().unwrap_or_default())
            .collect();
        if !doubled.is_empty() {
            extras.push(format!("doubled 加倍: {}", doubled.join(", ")));
        }
        if result.bombs > 0 {
            if rule_set == "laizi" {
                extras.push(format!("{} hard bomb(s) 硬炸弹", result.bombs));
            } else {
                extras.push(format!("{} bomb(s)", result.bombs));
            }
        }
        if result.soft_bombs > 0 {
            extras.push(format!("{} soft bomb(s) 软炸弹", result.soft_bombs));
        }
        if result.wild_bombs > 0 {
            extras.push("wild bomb 纯癞子炸弹".to_owned());
        }
        if result.rockets > 0 {
            extras.push("rocket".to_owned());
        }
        if bids_points(rule_set) {
            extras.push(format!("bid {}", result.bid));
        }
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
            let wild = wild_rank(&table.wild_rank);
            for (seat, hand) in result.hands_left.iter().enumerate() {
                let name = names.get(seat).cloned().unwrap_or_default();
                let cards = if hand.cards.is_empty() {
                    "played out".to_owned()
                } else {
                    hand_text(&hand.cards, wild)
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
    "  5557=5555     癞子: play 5557 with the wild 7 standing for a 5 (or play 5557 as 5555);",
    "                needed only when the dealer says the cards can be read more than one way",
    "  pass          pass (不出); to a bid, call, rob, double or show: no",
    "  1 2 3         bid while bidding (叫分; or bid 2)",
    "  call / no     call the landlord (叫地主) or not (不叫)",
    "  rob / no      rob the landlord (抢地主) or not (不抢)",
    "  double / no   double (加倍) or not",
    "  show / no     show your hand to all (明牌) or not",
    "  y / n         yes or no to whatever you are asked",
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

    const PLAY: ddz::Decision = ddz::Decision::Play;
    const BID: ddz::Decision = ddz::Decision::Bid;

    fn ranks(text: &str) -> RankCounts {
        RankCounts::parse(text).unwrap()
    }

    fn play(text: &str) -> Command {
        Command::Play {
            ranks: ranks(text),
            meant: None,
        }
    }

    fn hint(ranks: &str, meant: &str, kind: &str) -> HintPlay {
        HintPlay {
            ranks: ranks.into(),
            meant: meant.into(),
            kind: kind.into(),
        }
    }

    #[test]
    fn ranks_are_plays() {
        assert_eq!(parse_command("334455", PLAY), Ok(play("334455")));
        assert_eq!(parse_command("10jqka", PLAY), Ok(play("TJQKA")));
        assert_eq!(parse_command("XD", PLAY), Ok(play("XD")));
        assert_eq!(parse_command("3", PLAY), Ok(play("3")));
    }

    #[test]
    fn digits_are_bids_while_bidding() {
        assert_eq!(parse_command("3", BID), Ok(Command::Bid(3)));
        assert_eq!(parse_command("1", BID), Ok(Command::Bid(1)));
        assert_eq!(parse_command("0", BID), Ok(Command::Pass));
        assert_eq!(parse_command("bid 2", PLAY), Ok(Command::Bid(2)));
        assert!(parse_command("bid 4", BID).is_err());
        assert!(parse_command("33", BID).is_err());
    }

    #[test]
    fn words_are_commands() {
        assert_eq!(parse_command("pass", PLAY), Ok(Command::Pass));
        assert_eq!(parse_command("PASS", BID), Ok(Command::Pass));
        assert_eq!(parse_command("hint", PLAY), Ok(Command::Hint));
        assert_eq!(parse_command("auto", PLAY), Ok(Command::Auto(true)));
        assert_eq!(parse_command("auto off", PLAY), Ok(Command::Auto(false)));
        assert_eq!(parse_command("next", PLAY), Ok(Command::NextDeal));
        assert_eq!(parse_command("verify", PLAY), Ok(Command::Verify));
        assert_eq!(parse_command("quit", PLAY), Ok(Command::Quit));
        // A lone Q (either case) is a queen played, never the client closed.
        for queen in ["Q", "q"] {
            assert!(
                matches!(parse_command(queen, PLAY), Ok(Command::Play { .. })),
                "{queen}"
            );
        }
    }

    #[test]
    fn what_is_neither_says_why() {
        let e = parse_command("33z", PLAY).unwrap_err();
        assert!(e.contains("unexpected character 'z'"), "{e}");
        assert!(parse_command("33333", PLAY).is_err());
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
                    ..Default::default()
                }),
                by: ddz::Actor::Seat as i32,
                ..Default::default()
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
            vec![Request::Act(Action::Play {
                ranks: "55".into(),
                meant: String::new()
            })]
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
                plays: Ok(vec![hint("55", "", "pair"), hint("XD", "", "rocket")]),
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

    #[test]
    fn decisions_are_answered_by_name_by_y_or_n_and_by_pass() {
        let call = ddz::Decision::Call;
        for (typed, command) in [
            ("call", Command::Say(Choice::Call, true)),
            ("叫地主", Command::Say(Choice::Call, true)),
            ("no call", Command::Say(Choice::Call, false)),
            ("rob", Command::Say(Choice::Rob, true)),
            ("抢地主", Command::Say(Choice::Rob, true)),
            ("no rob", Command::Say(Choice::Rob, false)),
            ("不抢", Command::Say(Choice::Rob, false)),
            ("double", Command::Say(Choice::Double, true)),
            ("不加倍", Command::Say(Choice::Double, false)),
            ("SHOW", Command::Say(Choice::Show, true)),
            ("明牌", Command::Say(Choice::Show, true)),
            ("y", Command::Answer(true)),
            ("yes", Command::Answer(true)),
            ("n", Command::Answer(false)),
            ("no", Command::Answer(false)),
            ("pass", Command::Pass),
            ("不叫", Command::Pass),
        ] {
            assert_eq!(parse_command(typed, call), Ok(command), "{typed}");
        }
        // Cards are not an answer; the message says what is asked.
        let e = parse_command("33", call).unwrap_err();
        assert!(
            e.contains("call the landlord (叫地主)? type call or no"),
            "{e}"
        );
        let e = parse_command("33", ddz::Decision::Double).unwrap_err();
        assert!(e.contains("double or no"), "{e}");
        // A lone digit is a card outside bidding, and no answer.
        assert!(parse_command("3", ddz::Decision::Rob).is_err());
    }

    #[test]
    fn a_laizi_play_may_say_what_its_cards_stand_for() {
        let stated = Command::Play {
            ranks: ranks("5557"),
            meant: Some(ranks("5555")),
        };
        assert_eq!(parse_command("5557=5555", PLAY), Ok(stated));
        assert_eq!(parse_command("5557 = 5555", PLAY), Ok(stated));
        assert_eq!(parse_command("play 5557 as 5555", PLAY), Ok(stated));
        assert_eq!(parse_command("5557 as 5555", PLAY), Ok(stated));
        assert_eq!(parse_command("play 334455", PLAY), Ok(play("334455")));
        assert!(parse_command("5557=", PLAY).is_err());
        assert!(parse_command("play", PLAY).is_err());
        let e = parse_command("5557=55z5", PLAY).unwrap_err();
        assert!(e.contains("unexpected character 'z'"), "{e}");
        assert!(parse_command("5557=5555", BID).is_err());
    }

    /// A rob table at `decision`, alice (seat 0, the viewer) to decide.
    fn rob_table(decision: ddz::Decision) -> ddz::Table {
        let mut t = table();
        t.rule_set = "rob".into();
        t.decision = decision as i32;
        t.bids.clear();
        t.winning_bid = 0;
        t.trick = None;
        t.phase = match decision {
            ddz::Decision::Call | ddz::Decision::Rob => ddz::Phase::Bidding,
            ddz::Decision::Double => ddz::Phase::Doubling,
            ddz::Decision::Show => ddz::Phase::Showing,
            _ => ddz::Phase::Playing,
        } as i32;
        if t.phase() == ddz::Phase::Bidding {
            t.landlord = -1;
            t.kitty.clear();
        }
        t.must_lead = true;
        t
    }

    #[test]
    fn each_decision_sends_its_own_request() {
        use ActionRequest as R;
        let id = |s: &str| s.to_owned();
        let cases = [
            (ddz::Decision::Call, "call", Action::Call(true)),
            (ddz::Decision::Call, "n", Action::Call(false)),
            (ddz::Decision::Call, "pass", Action::Call(false)),
            (ddz::Decision::Rob, "y", Action::Rob(true)),
            (ddz::Decision::Rob, "no", Action::Rob(false)),
            (ddz::Decision::Double, "double", Action::Double(true)),
            (ddz::Decision::Double, "pass", Action::Double(false)),
            (ddz::Decision::Show, "show", Action::Show(true)),
            (ddz::Decision::Show, "n", Action::Show(false)),
            (ddz::Decision::Bid, "2", Action::Bid(2)),
            (ddz::Decision::Bid, "pass", Action::Bid(0)),
            (ddz::Decision::Play, "pass", Action::Pass),
            (
                ddz::Decision::Play,
                "5557=5555",
                Action::Play {
                    ranks: "5557".into(),
                    meant: "5555".into(),
                },
            ),
        ];
        for (decision, typed, action) in cases {
            let mut app = DoudizhuApp::new("ddz-1", false);
            app.on_feed(Feed::Snapshot(rob_table(decision)), 0);
            assert_eq!(
                app.command(typed, 0),
                vec![Request::Act(action.clone())],
                "{decision:?} {typed}"
            );
        }
        let request = |a: Action| a.request(id("ddz-1"), id("r-1"));
        assert_eq!(
            request(Action::Call(true)),
            R::Call(ddz::CallRequest {
                table_id: id("ddz-1"),
                request_id: id("r-1"),
                call: true
            })
        );
        assert_eq!(
            request(Action::Rob(false)),
            R::Rob(ddz::RobRequest {
                table_id: id("ddz-1"),
                request_id: id("r-1"),
                rob: false
            })
        );
        assert_eq!(
            request(Action::Double(true)),
            R::Double(ddz::DoubleRequest {
                table_id: id("ddz-1"),
                request_id: id("r-1"),
                double: true
            })
        );
        assert_eq!(
            request(Action::Show(true)),
            R::Show(ddz::ShowRequest {
                table_id: id("ddz-1"),
                request_id: id("r-1"),
                show: true
            })
        );
        assert_eq!(
            request(Action::Play {
                ranks: "5557".into(),
                meant: "5555".into()
            }),
            R::Play(ddz::PlayRequest {
                table_id: id("ddz-1"),
                request_id: id("r-1"),
                ranks: "5557".into(),
                cards: Vec::new(),
                meant: "5555".into(),
            })
        );
        assert_eq!(
            request(Action::Bid(0)),
            R::Bid(ddz::BidRequest {
                table_id: id("ddz-1"),
                request_id: id("r-1"),
                points: 0
            })
        );
    }

    #[test]
    fn y_and_n_answer_only_a_question() {
        let mut app = DoudizhuApp::new("ddz-1", false);
        app.on_feed(Feed::Snapshot(rob_table(ddz::Decision::Play)), 0);
        assert!(app.command("y", 0).is_empty());
        let notice = app.screen.footer.notice.clone().unwrap();
        assert!(
            notice.error && notice.text.contains("in play"),
            "{notice:?}"
        );
    }

    fn call(seat: i32, call: ddz::CallKind, by: ddz::Actor) -> ddz::SeatCall {
        ddz::SeatCall {
            seat,
            call: call as i32,
            by: by as i32,
        }
    }

    fn double(seat: i32, double: bool) -> ddz::SeatDouble {
        ddz::SeatDouble {
            seat,
            double,
            by: ddz::Actor::Seat as i32,
        }
    }

    #[test]
    fn a_rob_table_shows_the_calls_the_doubles_and_what_is_decided() {
        let mut app = DoudizhuApp::new("ddz-1", false);
        let mut t = rob_table(ddz::Decision::Double);
        t.calls = vec![
            call(1, ddz::CallKind::Call, ddz::Actor::Seat),
            call(2, ddz::CallKind::NoRob, ddz::Actor::Timeout),
            call(0, ddz::CallKind::Rob, ddz::Actor::Seat),
        ];
        t.robs = 1;
        t.doubles = vec![double(1, true), double(2, false)];
        t.multiplier = 2;
        app.on_feed(Feed::Snapshot(t), 0);
        let text = app.body(0).join("\n");
        assert!(text.contains("rob (叫地主/抢地主)"), "{text}");
        assert!(text.contains("×2"), "{text}");
        assert!(
            text.contains(
                "calls (叫地主/抢地主): bob call · carol no rob [timeout] · alice (you) rob \
                 (1 rob(s))"
            ),
            "{text}"
        );
        assert!(!text.contains("bids (叫分)"), "{text}");
        assert!(
            text.contains("doubles (加倍): bob double · carol no"),
            "{text}"
        );
        let bob = text.lines().find(|l| l.contains("bob  ")).unwrap();
        assert!(bob.contains("doubled 加倍"), "{bob}");
        let carol = text.lines().find(|l| l.contains("carol  ")).unwrap();
        assert!(!carol.contains("doubled"), "{carol}");
        assert!(
            text.contains("your decision: double (加倍)? double or no (y/n)"),
            "{text}"
        );
        // Another seat's decision is said too.
        let mut t = rob_table(ddz::Decision::Call);
        t.to_act = 2;
        app.on_feed(Feed::Snapshot(t), 0);
        let text = app.body(0).join("\n");
        assert!(
            text.contains("calls (叫地主/抢地主): none yet; alice (you) calls first"),
            "{text}"
        );
        assert!(
            text.contains("carol decides: call the landlord (叫地主)?"),
            "{text}"
        );
    }

    /// A laizi table seen by bob (seat 1, a farmer): 7 is wild, alice (the landlord)
    /// showed her hand and played 5 5 5 and a wild 7 as a soft bomb of 5s.
    fn laizi_table() -> ddz::Table {
        let mut t = table();
        t.stakes.as_mut().unwrap().room_id = "doudizhu-laizi".into();
        t.rule_set = "laizi".into();
        t.decision = ddz::Decision::Play as i32;
        t.viewer_seat = 1;
        t.to_act = 1;
        t.hand = ["S3", "S7", "H7", "SK", "BJ"]
            .iter()
            .map(|c| (*c).to_owned())
            .collect();
        t.wild_rank = "7".into();
        t.shown = true;
        t.landlord_hand = ["C4", "D7", "SA"].iter().map(|c| (*c).to_owned()).collect();
        t.calls = vec![call(0, ddz::CallKind::Call, ddz::Actor::Seat)];
        t.bids.clear();
        t.trick = Some(ddz::Turn {
            seat: 0,
            ranks: "5557".into(),
            cards: vec!["S5".into(), "H5".into(), "C5".into(), "C7".into()],
            combination: Some(ddz::Combination {
                kind: ddz::Kind::Bomb as i32,
                rank: "5".into(),
                length: 1,
                bomb: ddz::BombClass::Soft as i32,
            }),
            by: ddz::Actor::Seat as i32,
            meant: "5555".into(),
        });
        t.turns = vec![t.trick.clone().unwrap()];
        t.multiplier = 4;
        t
    }

    #[test]
    fn a_laizi_table_marks_the_wild_cards_and_says_what_they_stood_for() {
        let mut app = DoudizhuApp::new("ddz-1", false);
        app.on_feed(Feed::Snapshot(laizi_table()), 0);
        let text = app.body(0).join("\n");
        assert!(text.contains("laizi (癞子)"), "{text}");
        assert!(text.contains("wild rank (癞子): 7"), "{text}");
        assert!(text.contains("your hand (5): 3 7* 7* K X"), "{text}");
        assert!(
            text.contains("to beat: alice plays 5 5 5 7* as 5 5 5 5 (soft bomb 软炸弹)"),
            "{text}"
        );
        assert!(
            text.contains("alice's hand, shown (明牌, 3): 4 7* A"),
            "{text}"
        );
        let alice = text.lines().find(|l| l.contains("alice  ")).unwrap();
        assert!(alice.contains("shown 明牌"), "{alice}");
        assert!(
            text.contains(
                "your turn: beat it or pass (Tab for hints; 5557=5555 says what wild cards \
                 stand for)"
            ),
            "{text}"
        );
    }

    #[test]
    fn an_ambiguous_reading_is_shown_with_how_to_state_one() {
        let mut app = DoudizhuApp::new("ddz-1", false);
        app.on_feed(Feed::Snapshot(laizi_table()), 0);
        let requests = app.command("3777", 0);
        let action = Action::Play {
            ranks: "3777".into(),
            meant: String::new(),
        };
        assert_eq!(requests, vec![Request::Act(action.clone())]);
        let refusal = "ambiguous_reading: 3 7 7 7 reads as 3333 (soft bomb) or 3777 (triple \
                       with single)";
        app.on_reply(Reply::Acted(action, Err(refusal.into())), 0);
        let notice = app.screen.footer.notice.clone().unwrap();
        assert!(notice.error, "{notice:?}");
        assert!(notice.text.starts_with(refusal), "{notice:?}");
        assert!(
            notice.text.contains("say which: 3777=<ranks meant>"),
            "{notice:?}"
        );
    }

    #[test]
    fn tab_cycles_through_the_readings_of_the_same_cards() {
        let mut app = DoudizhuApp::new("ddz-1", false);
        let mut t = laizi_table();
        t.last_event_id = 40;
        app.on_feed(Feed::Snapshot(t), 0);
        let tab = KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE);
        assert_eq!(
            app.on_key(tab, 0),
            vec![Request::Hints {
                turn_event_id: 40,
                fill: true
            }]
        );
        app.on_reply(
            Reply::Hints {
                turn_event_id: 40,
                fill: true,
                plays: Ok(vec![
                    hint("3777", "3333", "soft bomb 软炸弹"),
                    hint("3777", "3777", "triple with single"),
                    hint("XD", "", "rocket"),
                ]),
            },
            0,
        );
        assert_eq!(app.screen.footer.editor.text(), "3777=3333");
        let notice = app.screen.footer.notice.clone().unwrap();
        assert!(
            notice.text.contains("hint 1/3: soft bomb 软炸弹 as 3333"),
            "{notice:?}"
        );
        assert!(app.on_key(tab, 0).is_empty());
        // The same cards read as themselves: stated, since they have another reading.
        assert_eq!(app.screen.footer.editor.text(), "3777=3777");
        assert!(app.on_key(tab, 0).is_empty());
        assert_eq!(app.screen.footer.editor.text(), "XD");
        // Enter sends the reading on the command line.
        app.on_key(tab, 0);
        let enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE);
        assert_eq!(
            app.on_key(enter, 0),
            vec![Request::Act(Action::Play {
                ranks: "3777".into(),
                meant: "3333".into()
            })]
        );
        app.command("hint", 0);
        let text = app.body(0).join("\n");
        assert!(
            text.contains(
                "legal plays (3): 3777 as 3333 (soft bomb 软炸弹) · 3777 (triple with single)"
            ),
            "{text}"
        );
    }

    #[test]
    fn the_new_events_are_told_in_the_log() {
        use ddz::table_event::Kind;
        let names: Vec<String> = ["alice", "bob", "carol"].map(String::from).to_vec();
        let say = |kind: Kind| {
            describe_event(
                &ddz::TableEvent {
                    event_id: 1,
                    deal_number: 1,
                    kind: Some(kind),
                    ..Default::default()
                },
                &names,
            )
            .unwrap()
        };
        assert_eq!(
            say(Kind::Called(ddz::Called {
                seat: 1,
                call: true,
                by: ddz::Actor::Seat as i32
            })),
            "bob calls the landlord (叫地主)"
        );
        assert_eq!(
            say(Kind::Called(ddz::Called {
                seat: 2,
                call: false,
                by: ddz::Actor::Timeout as i32
            })),
            "carol does not call (不叫) [timeout]"
        );
        assert_eq!(
            say(Kind::Robbed(ddz::Robbed {
                seat: 0,
                rob: true,
                by: ddz::Actor::Seat as i32
            })),
            "alice robs the landlord (抢地主)"
        );
        assert_eq!(
            say(Kind::Doubled(ddz::Doubled {
                seat: 1,
                double: false,
                by: ddz::Actor::AutoPlay as i32
            })),
            "bob does not double (不加倍) [auto-play]"
        );
        assert_eq!(
            say(Kind::HandShown(ddz::HandShown {
                seat: 0,
                cards: vec!["S3".into(), "BJ".into()],
            })),
            "alice's hand, shown to all (明牌): 3 X"
        );
        assert_eq!(
            say(Kind::Showed(ddz::Showed {
                seat: 0,
                show: true,
                by: ddz::Actor::Seat as i32
            })),
            "alice shows the landlord's hand (明牌)"
        );
        assert_eq!(
            say(Kind::Showed(ddz::Showed {
                seat: 0,
                show: false,
                by: ddz::Actor::Timeout as i32
            })),
            "alice does not show the landlord's hand [timeout]"
        );
        assert_eq!(
            say(Kind::WildRankDrawn(ddz::WildRankDrawn { rank: "7".into() })),
            "the wild rank (癞子) is 7: every 7 is wild"
        );
        assert_eq!(
            say(Kind::LandlordChosen(ddz::LandlordChosen {
                seat: 0,
                points: 0,
                kitty: vec!["S3".into()],
                robs: 2,
            })),
            "alice is the landlord (地主) after 2 rob(s); kitty 3"
        );
    }

    #[test]
    fn the_escape_warning_follows_the_rule_set() {
        let warning = |t: ddz::Table| {
            let mut app = DoudizhuApp::new("ddz-1", false);
            app.on_feed(Feed::Snapshot(t), 0);
            assert!(app.command("leave", 0).is_empty());
            app.screen.footer.notice.clone().unwrap().text
        };
        let classic = warning(table());
        assert!(classic.contains("3 × bid × base × multiplier"), "{classic}");
        let before = warning(rob_table(ddz::Decision::Call));
        assert!(
            before.contains("nobody has called yet, so you lose 3 points"),
            "{before}"
        );
        let mut t = rob_table(ddz::Decision::Rob);
        t.calls = vec![call(1, ddz::CallKind::Call, ddz::Actor::Seat)];
        t.multiplier = 4;
        let after = warning(t);
        assert!(
            after.contains("base × multiplier × 3 (1 × 4 × 3 = 12 points)"),
            "{after}"
        );
    }

    #[test]
    fn a_laizi_result_shows_robs_doubles_the_show_and_the_bomb_classes() {
        let mut app = DoudizhuApp::new("ddz-1", false);
        let mut t = laizi_table();
        t.phase = ddz::Phase::Finished as i32;
        t.status = ddz::TableStatus::BetweenDeals as i32;
        t.result = Some(ddz::DealResult {
            outcome: ddz::Outcome::LandlordWon as i32,
            seat: 0,
            points: vec![48, -16, -32],
            multiplier: 16,
            rule_set: "laizi".into(),
            robs: 1,
            doubled: vec![false, false, true],
            shown: true,
            bombs: 1,
            soft_bombs: 2,
            wild_bombs: 1,
            ..Default::default()
        });
        app.on_feed(Feed::Snapshot(t), 0);
        let text = app.body(0).join("\n");
        assert!(
            text.contains(
                "RESULT: the landlord alice won · 1 rob(s) 抢地主 · shown 明牌 ×2 · doubled \
                 加倍: carol · 1 hard bomb(s) 硬炸弹 · 2 soft bomb(s) 软炸弹 · wild bomb \
                 纯癞子炸弹 · multiplier ×16"
            ),
            "{text}"
        );
        assert!(!text.contains("bid 0"), "{text}");
    }
}
