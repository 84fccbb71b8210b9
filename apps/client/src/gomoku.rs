//! The Gomoku screen: commands as typed ([`parse_command`]), the table as the referee
//! last described it plus the stream's events ([`GomokuApp`]), and the screen drawn
//! from that state ([`GomokuApp::frame`]). No I/O here: the app returns [`Request`]s
//! and the loop (`commands`) performs them.
//!
//! The state is the referee's own view (`GetTable`): after each new event the app asks
//! for the table again, so phases, clocks and forbidden points are always the
//! server's, never worked out here.

use crossterm::event::KeyEvent;
use gamehub_proto::gomoku as gm;
use gomoku_rules::Point;

use super::app::App;
use super::follow::Feed;
use super::screen::{clock, compose};
use super::table::{Acted, TableScreen};
use super::term::{Edit, Frame, pad, text_width, wrap};
use gamehub_render::{self as render, signed, thousands};

/// What the player typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// A stone (`h8`); while white chooses the fifth move, the choice.
    Place(Point),
    /// Swap room, move 5: black's two proposals (`h10 j6` or `propose h10 j6`).
    Propose(Point, Point),
    /// Swap room: white keeps this proposal (`choose h10`).
    Choose(Point),
    /// Swap room, after move 3: take black (`swap`).
    Swap,
    /// Claim room: black's last stone was forbidden (`claim`).
    Claim,
    /// Resign the game (`resign`).
    Resign,
    /// Offer a draw (`draw`).
    OfferDraw,
    /// Accept the opponent's draw offer (`accept`).
    AcceptDraw,
    /// Decline it (`decline`).
    DeclineDraw,
    /// Ask for the next game at this table (`next`).
    NextGame,
    /// Leave the table (`leave`; during a game that is an escape).
    Leave,
    /// Show or hide the list of commands (`help`, `?`).
    Help,
    /// Close the client; the table goes on (`quit`).
    Quit,
}

/// Reads one command line. Points are `a`–`o` then `1`–`15` in either case.
pub fn parse_command(text: &str) -> Result<Command, String> {
    let words: Vec<String> = text
        .split_whitespace()
        .map(|w| w.to_ascii_lowercase())
        .collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let point = |w: &str| Point::parse(w).map_err(|e| format!("{w}: {e}"));
    Ok(match words.as_slice() {
        [] => return Err("type a point such as h8, or help".into()),
        ["resign"] => Command::Resign,
        ["draw"] | ["offer"] | ["offer", "draw"] => Command::OfferDraw,
        ["accept"] | ["accept", "draw"] => Command::AcceptDraw,
        ["decline"] | ["decline", "draw"] => Command::DeclineDraw,
        ["claim"] | ["claim", "forbidden"] => Command::Claim,
        ["swap"] => Command::Swap,
        ["next"] | ["again"] => Command::NextGame,
        ["leave"] => Command::Leave,
        ["quit"] | ["exit"] | ["q"] => Command::Quit,
        ["help"] | ["?"] => Command::Help,
        ["choose", p] => Command::Choose(point(p)?),
        ["propose", a, b] | [a, b] => {
            let (a, b) = (point(a)?, point(b)?);
            if a == b {
                return Err("propose two different points".into());
            }
            Command::Propose(a, b)
        }
        [p] => Command::Place(point(p).map_err(|e| {
            format!("{e} (a move is a point such as h8; `help` lists the commands)")
        })?),
        _ => {
            return Err(format!(
                "unknown command {text:?}; `help` lists the commands"
            ));
        }
    })
}

/// Something to do at the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// PlaceStone.
    Place(Point),
    /// ProposeFifthMoves.
    Propose(Point, Point),
    /// ChooseFifthMove.
    Choose(Point),
    /// Swap.
    Swap,
    /// ClaimForbidden.
    Claim,
    /// Resign.
    Resign,
    /// OfferDraw.
    OfferDraw,
    /// AnswerDraw.
    AnswerDraw(bool),
    /// NextGame.
    NextGame,
    /// Leave.
    Leave,
}

impl Action {
    /// What the screen says while it is in flight.
    pub fn label(&self) -> String {
        match self {
            Action::Place(p) => format!("placing {p}"),
            Action::Propose(a, b) => format!("proposing {a} and {b}"),
            Action::Choose(p) => format!("choosing {p}"),
            Action::Swap => "swapping".into(),
            Action::Claim => "claiming the forbidden point".into(),
            Action::Resign => "resigning".into(),
            Action::OfferDraw => "offering a draw".into(),
            Action::AnswerDraw(true) => "accepting the draw".into(),
            Action::AnswerDraw(false) => "declining the draw".into(),
            Action::NextGame => "asking for the next game".into(),
            Action::Leave => "leaving the table".into(),
        }
    }
}

/// What the screen asks of the referee.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// GetTable (after new events).
    Refresh,
    /// An action of the player's seat.
    Act(Action),
}

/// The referee's answers.
#[derive(Debug, Clone)]
pub enum Reply {
    /// GetTable's table, or the error's message.
    Table(Result<gm::Table, String>),
    /// An action's result: the table after it and a remark, or the server's message.
    Acted(Action, Result<Acted<gm::Table>, String>),
}

/// Lines of the event log kept on screen.
const LOG_LINES: usize = 6;

/// What the first `leave` during a game says.
const ESCAPE_WARNING: &str = "leaving during a game is an escape (逃跑): you lose it with the \
                              escape penalty; type leave again to confirm";

/// What the first `leave` between the two games of a pair says.
const PAIR_ESCAPE_WARNING: &str = "this table's games come in pairs: leaving before the second \
                                   game is an escape (逃跑) from it; type leave again to confirm";

/// The Gomoku screen's state.
#[derive(Debug)]
pub struct GomokuApp {
    /// The table, the log, the footer and the seat's choices.
    screen: TableScreen<gm::Table>,
}

impl GomokuApp {
    /// A screen for `table_id`, as its player or as a spectator.
    pub fn new(table_id: &str, spectator: bool) -> Self {
        Self {
            screen: TableScreen::new(table_id, spectator, LOG_LINES),
        }
    }

    /// Adds a line to the screen's log (what the client did on its own, e.g. rejoin a
    /// table instead of queueing).
    pub fn note(&mut self, line: String) {
        self.screen.note(line);
    }

    /// The table as last seen.
    pub fn table(&self) -> Option<&gm::Table> {
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
        if let Some(game) = &table.game
            && game.phase() == gm::Phase::Over
        {
            out.extend(self.result_lines(table, game, 0).into_iter().filter(|l| {
                !l.starts_with('`') && !l.starts_with("ready:") && !l.starts_with("the table")
            }));
        }
        out
    }

    /// Whether the player still sits at a table that goes on (it quit the screen,
    /// not the table).
    pub fn still_seated(&self) -> bool {
        self.screen.come_back().is_some()
    }

    /// Whether a game is being played at the table (leaving it would be an escape).
    pub fn in_progress(&self) -> bool {
        self.game_running()
    }

    /// The room to queue in again when the player asked for another table.
    pub fn requeue(&self) -> Option<String> {
        self.screen.requeue()
    }

    /// Whether the player's own seat is at the table.
    fn my_seat(&self) -> Option<i32> {
        self.screen.my_seat()
    }

    fn name(&self, seat: i32) -> String {
        let name = self
            .screen
            .table()
            .and_then(|t| t.players.iter().find(|p| p.seat == seat))
            .map(|p| gamehub_render::player(&p.player_id, p.profile.as_ref()))
            .unwrap_or_else(|| format!("seat {seat}"));
        if self.my_seat() == Some(seat) {
            format!("{name} (you)")
        } else {
            name
        }
    }

    fn game_running(&self) -> bool {
        self.screen.table().is_some_and(|t| {
            t.status() == gm::TableStatus::Playing
                && t.game
                    .as_ref()
                    .is_some_and(|g| g.phase() != gm::Phase::Over)
        })
    }

    fn command(&mut self, text: &str, now_ms: i64) -> Vec<Request> {
        let command = match parse_command(text) {
            Ok(command) => command,
            Err(e) => {
                self.screen.footer.error(e);
                return Vec::new();
            }
        };
        self.screen.typed(command == Command::Leave);
        let phase = self
            .screen
            .table()
            .and_then(|t| t.game.as_ref())
            .map(|g| g.phase());
        let action = match command {
            Command::Help => {
                self.screen.show_help = !self.screen.show_help;
                return Vec::new();
            }
            Command::Quit => {
                self.screen.quit();
                return Vec::new();
            }
            _ if self.screen.spectator => {
                self.screen.refuse_spectator();
                return Vec::new();
            }
            Command::Place(p) if phase == Some(gm::Phase::ChooseFifth) => Action::Choose(p),
            Command::Place(p) => Action::Place(p),
            Command::Propose(a, b) => Action::Propose(a, b),
            Command::Choose(p) => Action::Choose(p),
            Command::Swap => Action::Swap,
            Command::Claim => Action::Claim,
            Command::Resign => Action::Resign,
            Command::OfferDraw => Action::OfferDraw,
            Command::AcceptDraw => Action::AnswerDraw(true),
            Command::DeclineDraw => Action::AnswerDraw(false),
            Command::NextGame if self.screen.closed() => {
                // This table is over: find another one in the same room.
                self.screen.queue_elsewhere();
                return Vec::new();
            }
            Command::NextGame => Action::NextGame,
            Command::Leave => {
                // Between the two games of a pair, leaving is an escape too (the server
                // says when: `leaving_escapes`).
                let owes_second_game =
                    !self.game_running() && self.screen.table().is_some_and(|t| t.leaving_escapes);
                let warning = if owes_second_game {
                    PAIR_ESCAPE_WARNING
                } else {
                    ESCAPE_WARNING
                };
                if !self
                    .screen
                    .leave_confirmed(self.game_running() || owes_second_game, warning)
                {
                    return Vec::new();
                }
                Action::Leave
            }
        };
        self.screen.send(action.label(), now_ms);
        vec![Request::Act(action)]
    }
}

impl App for GomokuApp {
    type Feed = Feed<gm::Table, gm::TableEvent>;
    type Request = Request;
    type Reply = Reply;

    fn on_feed(&mut self, feed: Self::Feed, now_ms: i64) -> Vec<Request> {
        if let Some(event) = self.screen.feed(feed, now_ms)
            && let Some(line) = describe_event(&event, |seat| self.name(seat))
        {
            self.screen.note(line);
        }
        self.screen.refresh_if_behind(Request::Refresh)
    }

    fn on_reply(&mut self, reply: Reply, now_ms: i64) -> Vec<Request> {
        match reply {
            Reply::Table(table) => self.screen.refreshed(table, Request::Refresh, now_ms),
            Reply::Acted(action, result) => {
                let leaving = action == Action::Leave;
                self.screen.acted(&action.label(), leaving, result, now_ms);
                self.screen.refresh_if_behind(Request::Refresh)
            }
        }
    }

    fn on_key(&mut self, key: KeyEvent, now_ms: i64) -> Vec<Request> {
        match self.screen.key(key) {
            Edit::Submit(text) if !text.is_empty() => self.command(&text, now_ms),
            _ => Vec::new(),
        }
    }

    fn on_notice(&mut self, text: String, _now_ms: i64) {
        self.screen.note(text.clone());
        self.screen.footer.info(text);
    }

    fn frame(&self, now_ms: i64, width: u16, height: u16) -> Frame {
        let body = self.body(now_ms + self.screen.skew_ms(), usize::from(width));
        let help = if self.screen.spectator {
            "watching · quit or Ctrl-C to stop"
        } else {
            "h8 to move · resign draw accept decline claim swap next leave quit · help"
        };
        compose(body, &self.screen.footer, help, now_ms, (width, height))
    }

    fn finished(&self) -> bool {
        self.screen.finished()
    }
}

/// Names of the rule sets, for the header.
pub fn rule_set_name(rule_set: gm::RuleSet) -> &'static str {
    match rule_set {
        gm::RuleSet::Freestyle => "freestyle (无禁手): five or more wins",
        gm::RuleSet::RenjuLose => "renju: a forbidden move loses (走禁手就输)",
        gm::RuleSet::RenjuRefuse => "renju: forbidden points cannot be played (禁手不能落子)",
        gm::RuleSet::RenjuClaim => "renju: white claims forbidden moves (指出禁手)",
        gm::RuleSet::RenjuSwap => "renju with swap (三手交换 五手两打)",
        gm::RuleSet::Unspecified => "unknown rules",
    }
}

/// A designated opening (指定打法) in words: "花月 Kagetsu (4D): h8 h9 i9".
pub fn opening_name(opening: &gm::Opening) -> String {
    let stones: Vec<&str> = opening.stones.iter().map(|p| p.text.as_str()).collect();
    format!(
        "{} {} ({}): {}",
        opening.name_zh,
        opening.name,
        opening.code,
        stones.join(" ")
    )
}

fn color_name(color: gm::Color) -> &'static str {
    match color {
        gm::Color::Black => "black",
        gm::Color::White => "white",
        gm::Color::Unspecified => "-",
    }
}

fn stone_glyph(color: gm::Color) -> char {
    match color {
        gm::Color::Black => '●',
        gm::Color::White => '○',
        gm::Color::Unspecified => ' ',
    }
}

/// One event as a line of the log; `None` for events the table shows by itself.
pub fn describe_event(event: &gm::TableEvent, name: impl Fn(i32) -> String) -> Option<String> {
    use gm::table_event::Kind;
    let points = |ps: &[gm::Point]| {
        ps.iter()
            .map(|p| p.text.clone())
            .collect::<Vec<_>>()
            .join(" and ")
    };
    Some(match event.kind.as_ref()? {
        Kind::TableOpened(_) => return None,
        Kind::GameStarted(s) => match &s.opening {
            Some(opening) => format!(
                "game {} starts from the opening {}: {} plays black, white plays move 4",
                event.game_number,
                opening_name(opening),
                name(s.black_seat)
            ),
            None => format!(
                "game {} starts: {} plays black",
                event.game_number,
                name(s.black_seat)
            ),
        },
        Kind::StonePlaced(p) => {
            let stone = p.stone.as_ref()?;
            format!(
                "move {}: {} {} ({})",
                stone.ply,
                color_name(stone.color()),
                stone.point.as_ref().map_or("?", |p| p.text.as_str()),
                name(p.seat)
            )
        }
        Kind::ForbiddenClaimUpheld(c) => format!(
            "{} claims the forbidden move: upheld ({})",
            name(c.seat),
            forbidden_kind(c.kind())
        ),
        Kind::ForbiddenClaimRejected(c) => format!(
            "{} claims a forbidden move: rejected, black moves again",
            name(c.seat)
        ),
        Kind::DrawOffered(d) => format!("{} offers a draw (和棋)", name(d.seat)),
        Kind::DrawDeclined(d) => format!("{} declines the draw", name(d.seat)),
        Kind::DrawLapsed(d) => format!("{}'s draw offer lapsed", name(d.offered_by_seat)),
        Kind::Swapped(s) => format!("{} swaps and now plays black", name(s.seat)),
        Kind::FifthProposed(f) => {
            format!("{} proposes {} as move 5", name(f.seat), points(&f.points))
        }
        Kind::FifthChosen(f) => format!(
            "{} keeps {} (drops {})",
            name(f.seat),
            f.point.as_ref().map_or("?", |p| p.text.as_str()),
            f.rejected.as_ref().map_or("?", |p| p.text.as_str())
        ),
        Kind::GameOver(o) => format!("game over: {}", o.result.as_ref()?.description),
        Kind::NextGameRequested(n) => format!("{} wants another game", name(n.seat)),
        Kind::PlayerLeft(l) => {
            if l.escaped {
                format!("{} left during the game (逃跑)", name(l.seat))
            } else {
                format!("{} left the table", name(l.seat))
            }
        }
        Kind::TableClosed(c) => format!("the table closed: {}", c.reason),
        Kind::GameSettled(s) => format!("the ledger settled game {}", s.number),
    })
}

fn forbidden_kind(kind: gm::ForbiddenKind) -> &'static str {
    match kind {
        gm::ForbiddenKind::Overline => "overline 长连",
        gm::ForbiddenKind::DoubleFour => "double four 四四",
        gm::ForbiddenKind::DoubleThree => "double three 三三",
        gm::ForbiddenKind::Unspecified => "forbidden",
    }
}

/// A seat's total time left at `now_ms` (referee clock); `None` without a total limit.
pub fn total_left_ms(table: &gm::Table, seat: i32, now_ms: i64) -> Option<i64> {
    if table.time_control.as_ref().is_none_or(|t| t.total_ms == 0) {
        return None;
    }
    let game = table.game.as_ref()?;
    let clock = game.clocks.iter().find(|c| c.seat == seat)?;
    let running = clock.running && game.phase() != gm::Phase::Over;
    let elapsed = if running {
        (now_ms - table.server_time_unix_ms).max(0)
    } else {
        0
    };
    Some((clock.remaining_ms - elapsed).max(0))
}

/// The time left for the move being thought about at `now_ms`; `None` when no clock runs.
pub fn move_left_ms(table: &gm::Table, now_ms: i64) -> Option<i64> {
    let game = table.game.as_ref()?;
    (game.turn_deadline_unix_ms > 0 && game.phase() != gm::Phase::Over)
        .then(|| (game.turn_deadline_unix_ms - now_ms).max(0))
}

impl GomokuApp {
    /// Everything above the footer, at `now_ms` on the referee's clock.
    fn body(&self, now_ms: i64, width: usize) -> Vec<String> {
        let Some(table) = self.screen.table() else {
            return self.screen.loading();
        };
        let game = table.game.clone().unwrap_or_default();
        let mut lines = vec![format!(
            "Gomoku · {} · table {} · game {}{}",
            table.room_id,
            table.table_id,
            game.number,
            if self.screen.spectator {
                " · watching"
            } else {
                ""
            }
        )];
        lines.push(String::new());
        let board: Vec<String> = render::gomoku_board(&game)
            .lines()
            .map(str::to_owned)
            .collect();
        let panel = self.panel(table, &game, now_ms);
        let board_width = board.iter().map(|l| text_width(l)).max().unwrap_or(0) + 3;
        if width >= board_width + 40 {
            // Long panel lines wrap within the panel's columns.
            let panel: Vec<String> = panel
                .iter()
                .flat_map(|l| wrap(l, width - board_width))
                .collect();
            for i in 0..board.len().max(panel.len()) {
                let left = board.get(i).map_or("", String::as_str);
                let right = panel.get(i).map_or("", String::as_str);
                lines.push(
                    format!("{}{right}", pad(left, board_width))
                        .trim_end()
                        .to_owned(),
                );
            }
        } else {
            lines.extend(board);
            lines.push(String::new());
            lines.extend(panel);
        }
        lines
    }

    /// The side panel: players and clocks, what the game waits for, the result, the log.
    fn panel(&self, table: &gm::Table, game: &gm::Game, now_ms: i64) -> Vec<String> {
        let mut out = Vec::new();
        let over = game.phase() == gm::Phase::Over || table.status() != gm::TableStatus::Playing;
        let move_left = move_left_ms(table, now_ms);
        for player in &table.players {
            let total = total_left_ms(table, player.seat, now_ms)
                .map(|ms| format!("  {}", clock(ms)))
                .unwrap_or_default();
            let to_act = !over && game.to_act_seat == Some(player.seat);
            let turn = if to_act {
                format!(
                    "  ◀ {}",
                    move_left.map_or("to act".to_owned(), |ms| format!("move {}", clock(ms)))
                )
            } else {
                String::new()
            };
            out.push(format!(
                "{} {:<5} {}{total}{turn}{}",
                stone_glyph(player.color()),
                color_name(player.color()),
                self.name(player.seat),
                if player.left { "  (left)" } else { "" }
            ));
        }
        if let Some(tc) = &table.time_control {
            let per_move = if tc.per_move_ms > 0 {
                format!("{} a move", clock(tc.per_move_ms))
            } else {
                "no limit a move".into()
            };
            let total = if tc.total_ms > 0 {
                format!("{} in all", clock(tc.total_ms))
            } else {
                "no total limit".into()
            };
            out.push(format!("clock: {per_move}, {total}"));
        }
        out.push(format!("rules: {}", rule_set_name(table.rule_set())));
        if let Some(opening) = &game.opening {
            out.push(format!("opening (指定打法): {}", opening_name(opening)));
        }
        out.push(String::new());
        if over {
            out.extend(self.result_lines(table, game, now_ms));
        } else {
            out.extend(self.turn_lines(table, game));
        }
        out.push(String::new());
        if self.screen.show_help {
            out.extend(HELP.iter().map(|l| (*l).to_owned()));
        } else {
            out.extend(self.screen.log().iter().cloned());
        }
        out
    }

    /// What the game waits for, in the player's terms.
    fn turn_lines(&self, table: &gm::Table, game: &gm::Game) -> Vec<String> {
        let mut out = Vec::new();
        let me = self.my_seat();
        let mine = me.is_some() && game.to_act_seat == me;
        let who = game
            .to_act_seat
            .map(|s| self.name(s))
            .unwrap_or_else(|| "nobody".into());
        let color = color_name(game.to_move());
        out.push(format!("move {} · {color} to play", game.stones.len() + 1));
        out.push(match (game.phase(), mine) {
            (gm::Phase::Play, true) => {
                if table.rule_set() == gm::RuleSet::RenjuClaim
                    && game.to_move() == gm::Color::White
                    && !game.stones.is_empty()
                {
                    "your move: a point such as h8, or `claim` if black's stone was forbidden"
                        .into()
                } else if game.stones.is_empty() {
                    "your move: black's first stone goes to h8".into()
                } else {
                    format!("your move ({color}): type a point such as h8")
                }
            }
            (gm::Phase::SwapDecision, true) => {
                "swap? `swap` takes black; or play move 4 as white (a point)".into()
            }
            (gm::Phase::ProposeFifth, true) => {
                "propose two fifth moves, e.g. `h10 j6` (white keeps one)".into()
            }
            (gm::Phase::ChooseFifth, true) => format!(
                "choose black's fifth move: {} (type one of them)",
                game.fifth_proposals
                    .iter()
                    .map(|p| p.text.clone())
                    .collect::<Vec<_>>()
                    .join(" or ")
            ),
            (gm::Phase::SwapDecision, false) => format!("waiting for {who}: swap or move 4"),
            (gm::Phase::ProposeFifth, false) => format!("waiting for {who}: two fifth moves"),
            (gm::Phase::ChooseFifth, false) => format!("waiting for {who} to choose move 5"),
            _ => format!("waiting for {who}"),
        });
        if let Some(seat) = game.draw_offered_by_seat {
            if me.is_some() && me != Some(seat) {
                out.push(format!(
                    "{} offers a draw: `accept` or `decline`",
                    self.name(seat)
                ));
            } else {
                out.push(format!("{} offered a draw", self.name(seat)));
            }
        }
        if !game.forbidden_points.is_empty() && game.to_move() == gm::Color::Black {
            out.push(format!(
                "× forbidden for black: {}",
                game.forbidden_points
                    .iter()
                    .filter_map(|f| f.point.as_ref().map(|p| p.text.clone()))
                    .collect::<Vec<_>>()
                    .join(" ")
            ));
        }
        out
    }

    /// The result, the points and, once the ledger settled it, the silver.
    fn result_lines(&self, table: &gm::Table, game: &gm::Game, now_ms: i64) -> Vec<String> {
        let mut out = Vec::new();
        match &game.result {
            Some(result) => {
                out.push(format!("RESULT: {}", result.description));
                let points: Vec<String> = result
                    .points
                    .iter()
                    .enumerate()
                    .map(|(seat, p)| {
                        format!(
                            "{} {}",
                            self.name(i32::try_from(seat).unwrap_or(-1)),
                            signed(*p)
                        )
                    })
                    .collect();
                out.push(format!("points: {}", points.join(", ")));
            }
            None => out.push("no game result".into()),
        }
        let settlement = table
            .finished_games
            .iter()
            .find(|f| f.number == game.number)
            .and_then(|f| f.settlement.as_ref());
        match settlement {
            Some(settlement) => {
                for seat in &settlement.seats {
                    let clamp = if seat.clamped_by.is_empty() {
                        String::new()
                    } else {
                        format!(" (limited by {})", seat.clamped_by)
                    };
                    out.push(format!(
                        "{}: silver {}{clamp}, balance {}; points {} → {}",
                        seat.player_id,
                        signed(seat.silver_delta),
                        thousands(seat.balance_silver),
                        signed(seat.points_delta),
                        seat.points_after
                    ));
                }
            }
            None if game.result.is_some() => out.push("settling with the ledger…".into()),
            None => {}
        }
        match table.status() {
            gm::TableStatus::BetweenGames if self.my_seat().is_some() => {
                let waiting: Vec<String> = table
                    .players
                    .iter()
                    .filter(|p| p.wants_next_game)
                    .map(|p| self.name(p.seat))
                    .collect();
                out.push(format!(
                    "`next` for another game (colors swap), `leave` to go; closes in {}",
                    clock(table.closes_at_unix_ms - now_ms)
                ));
                if !waiting.is_empty() {
                    out.push(format!("ready: {}", waiting.join(", ")));
                }
            }
            gm::TableStatus::Closed => {
                out.push(format!("the table is closed: {}", table.closed_reason));
                if self.my_seat().is_some() {
                    out.push("`next` to queue for another table, `quit` to leave".into());
                } else {
                    out.push("`quit` to leave the screen".into());
                }
            }
            _ => {}
        }
        out
    }
}

/// The command list (`help`).
const HELP: &[&str] = &[
    "commands:",
    "  h8            place a stone (columns a-o, rows 1-15)",
    "  resign        resign the game (投降)",
    "  draw          offer a draw; accept / decline answer one",
    "  claim         claim black's forbidden move (指出禁手 rooms)",
    "  swap          take black after move 3 (swap room)",
    "  h10 j6        propose two fifth moves (swap room, black)",
    "  h10           keep that proposal (swap room, white)",
    "  next          another game at this table",
    "  leave         leave the table (an escape during a game)",
    "  quit          close the client; the table goes on",
    "  Up/Down recall commands · help hides this",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyCode, KeyModifiers};

    fn p(text: &str) -> Point {
        Point::parse(text).unwrap()
    }

    #[test]
    fn points_are_moves_in_either_case() {
        assert_eq!(parse_command("h8"), Ok(Command::Place(p("h8"))));
        assert_eq!(parse_command(" H8 "), Ok(Command::Place(p("h8"))));
        assert_eq!(parse_command("o15"), Ok(Command::Place(p("o15"))));
    }

    #[test]
    fn off_board_points_say_what_is_wrong() {
        let e = parse_command("p8").unwrap_err();
        assert!(e.contains("p8"), "{e}");
        assert!(parse_command("h16").is_err());
        assert!(parse_command("h").is_err());
        assert!(parse_command("").is_err());
    }

    #[test]
    fn words_are_commands() {
        assert_eq!(parse_command("resign"), Ok(Command::Resign));
        assert_eq!(parse_command("draw"), Ok(Command::OfferDraw));
        assert_eq!(parse_command("offer draw"), Ok(Command::OfferDraw));
        assert_eq!(parse_command("accept"), Ok(Command::AcceptDraw));
        assert_eq!(parse_command("Decline"), Ok(Command::DeclineDraw));
        assert_eq!(parse_command("claim"), Ok(Command::Claim));
        assert_eq!(parse_command("swap"), Ok(Command::Swap));
        assert_eq!(parse_command("next"), Ok(Command::NextGame));
        assert_eq!(parse_command("leave"), Ok(Command::Leave));
        assert_eq!(parse_command("quit"), Ok(Command::Quit));
        assert_eq!(parse_command("?"), Ok(Command::Help));
        assert!(parse_command("dance").is_err());
    }

    #[test]
    fn two_points_are_the_fifth_move_proposals() {
        assert_eq!(
            parse_command("h10 j6"),
            Ok(Command::Propose(p("h10"), p("j6")))
        );
        assert_eq!(
            parse_command("propose h10 j6"),
            Ok(Command::Propose(p("h10"), p("j6")))
        );
        assert!(parse_command("h10 h10").is_err());
        assert_eq!(parse_command("choose j6"), Ok(Command::Choose(p("j6"))));
    }

    fn point(text: &str) -> gm::Point {
        let q = p(text);
        gm::Point {
            text: text.into(),
            x: i32::from(q.x()),
            y: i32::from(q.y()),
        }
    }

    fn stone(ply: i32, at: &str, color: gm::Color) -> gm::Stone {
        gm::Stone {
            ply,
            point: Some(point(at)),
            color: color as i32,
        }
    }

    /// A renju table, alice (seat 0, black) against bob, white to move after two stones.
    fn table(now_ms: i64) -> gm::Table {
        let stones = vec![
            stone(1, "h8", gm::Color::Black),
            stone(2, "i9", gm::Color::White),
            stone(3, "g9", gm::Color::Black),
        ];
        gm::Table {
            table_id: "gt-1".into(),
            room_id: "gomoku-renju".into(),
            rule_set: gm::RuleSet::RenjuLose as i32,
            time_control: Some(gm::TimeControl {
                per_move_ms: 60_000,
                total_ms: 900_000,
            }),
            players: vec![
                gm::Player {
                    player_id: "alice".into(),
                    seat: 0,
                    color: gm::Color::Black as i32,
                    ..Default::default()
                },
                gm::Player {
                    player_id: "bob".into(),
                    seat: 1,
                    color: gm::Color::White as i32,
                    ..Default::default()
                },
            ],
            your_seat: Some(0),
            status: gm::TableStatus::Playing as i32,
            game: Some(gm::Game {
                number: 1,
                phase: gm::Phase::Play as i32,
                last_move: stones.last().cloned(),
                stones,
                to_move: gm::Color::White as i32,
                to_act_seat: Some(1),
                black_seat: 0,
                clocks: vec![
                    gm::Clock {
                        seat: 0,
                        remaining_ms: 880_000,
                        running: false,
                    },
                    gm::Clock {
                        seat: 1,
                        remaining_ms: 890_000,
                        running: true,
                    },
                ],
                turn_deadline_unix_ms: now_ms + 60_000,
                forbidden_points: vec![gm::ForbiddenPoint {
                    point: Some(point("j10")),
                    kind: gm::ForbiddenKind::DoubleThree as i32,
                }],
                ..Default::default()
            }),
            last_event_id: 5,
            server_time_unix_ms: now_ms,
            ..Default::default()
        }
    }

    fn screen(app: &GomokuApp, now_ms: i64) -> String {
        app.frame(now_ms, 120, 50).lines.join("\n")
    }

    #[test]
    fn a_designated_opening_is_named_in_the_panel_and_the_log() {
        let opening = gm::Opening {
            id: "kagetsu".into(),
            number: 4,
            code: "4D".into(),
            name: "Kagetsu".into(),
            name_zh: "花月".into(),
            stones: vec![point("h8"), point("h9"), point("i9")],
        };
        let mut snapshot = table(1_000);
        snapshot.game.as_mut().unwrap().opening = Some(opening.clone());
        let mut app = GomokuApp::new("gt-1", false);
        app.on_feed(Feed::Snapshot(snapshot), 1_000);
        let text = screen(&app, 1_000);
        assert!(
            text.contains("opening (指定打法): 花月 Kagetsu (4D): h8 h9 i9"),
            "{text}"
        );
        let started = gm::TableEvent {
            game_number: 2,
            kind: Some(gm::table_event::Kind::GameStarted(gm::GameStarted {
                black_seat: 1,
                turn_deadline_unix_ms: 0,
                opening: Some(opening),
            })),
            ..Default::default()
        };
        let line = describe_event(&started, |seat| format!("seat {seat}")).unwrap();
        assert_eq!(
            line,
            "game 2 starts from the opening 花月 Kagetsu (4D): h8 h9 i9: seat 1 plays black, white plays move 4"
        );
    }

    #[test]
    fn the_board_shows_stones_the_last_move_and_forbidden_points() {
        let mut app = GomokuApp::new("gt-1", false);
        app.on_feed(Feed::Snapshot(table(1_000)), 1_000);
        let text = screen(&app, 1_000);
        assert!(text.contains("a b c d e f g h i j k l m n o"), "{text}");
        // Row 9: g9 black (the last move, bracketed), h9 empty, i9 white.
        let row9 = text.lines().find(|l| l.starts_with(" 9 ")).unwrap();
        assert!(row9.contains("[●]· ○"), "{row9}");
        let row10 = text.lines().find(|l| l.starts_with("10 ")).unwrap();
        assert!(row10.contains('×'), "{row10}");
        assert!(text.contains("alice (you)"), "{text}");
        assert!(text.contains("move 4 · white to play"), "{text}");
    }

    #[test]
    fn the_running_clock_counts_down_and_the_other_stands() {
        let mut app = GomokuApp::new("gt-1", false);
        app.on_feed(Feed::Snapshot(table(0)), 0);
        let text = screen(&app, 10_000);
        // bob runs: 890 s - 10 s = 14:40; alice stands at 880 s = 14:40 as well, so
        // check against a later instant.
        let text_later = screen(&app, 70_000);
        let bob = |t: &str| t.lines().find(|l| l.contains("bob")).unwrap().to_owned();
        let alice = |t: &str| {
            t.lines()
                .find(|l| l.contains("alice (you)"))
                .unwrap()
                .to_owned()
        };
        assert!(bob(&text).contains("14:40"), "{}", bob(&text));
        assert!(bob(&text).contains("◀ move 0:50"), "{}", bob(&text));
        assert!(bob(&text_later).contains("13:40"), "{}", bob(&text_later));
        assert!(
            bob(&text_later).contains("move 0:00"),
            "{}",
            bob(&text_later)
        );
        assert!(
            alice(&text_later).contains("14:40"),
            "{}",
            alice(&text_later)
        );
    }

    #[test]
    fn a_move_is_sent_and_a_refusal_is_shown_as_the_server_wrote_it() {
        let mut app = GomokuApp::new("gt-1", false);
        app.on_feed(Feed::Snapshot(table(0)), 0);
        let mut requests = Vec::new();
        for c in "h8\r".chars() {
            let code = if c == '\r' {
                KeyCode::Enter
            } else {
                KeyCode::Char(c)
            };
            requests.extend(app.on_key(KeyEvent::new(code, KeyModifiers::NONE), 0));
        }
        let place = Action::Place(p("h8"));
        assert_eq!(requests, vec![Request::Act(place.clone())]);
        app.on_reply(
            Reply::Acted(place, Err("occupied: h8 is already occupied".into())),
            100,
        );
        let text = screen(&app, 100);
        assert!(
            text.contains("! occupied: h8 is already occupied"),
            "{text}"
        );
    }

    #[test]
    fn new_events_ask_for_the_table_once_at_a_time() {
        let mut app = GomokuApp::new("gt-1", false);
        app.on_feed(Feed::Snapshot(table(0)), 0);
        let event = |id: u64| gm::TableEvent {
            event_id: id,
            game_number: 1,
            kind: Some(gm::table_event::Kind::StonePlaced(gm::StonePlaced {
                stone: Some(stone(4, "j9", gm::Color::White)),
                seat: 1,
                turn_deadline_unix_ms: 0,
            })),
            ..Default::default()
        };
        assert_eq!(
            app.on_feed(Feed::Event(event(6)), 0),
            vec![Request::Refresh]
        );
        assert!(app.on_feed(Feed::Event(event(7)), 0).is_empty());
        let mut newer = table(0);
        newer.last_event_id = 6;
        // Still behind event 7: ask again.
        assert_eq!(
            app.on_reply(Reply::Table(Ok(newer)), 0),
            vec![Request::Refresh]
        );
        let text = screen(&app, 0);
        assert!(text.contains("move 4: white j9 (bob)"), "{text}");
    }

    #[test]
    fn the_fifth_move_choice_is_a_point_typed_while_white_chooses() {
        let mut app = GomokuApp::new("gt-1", false);
        let mut t = table(0);
        let game = t.game.as_mut().unwrap();
        game.phase = gm::Phase::ChooseFifth as i32;
        game.fifth_proposals = vec![point("h10"), point("j6")];
        game.to_act_seat = Some(0);
        app.on_feed(Feed::Snapshot(t), 0);
        assert_eq!(
            app.command("j6", 0),
            vec![Request::Act(Action::Choose(p("j6")))]
        );
        let text = screen(&app, 0);
        assert!(
            text.contains("choose black's fifth move: h10 or j6"),
            "{text}"
        );
        let row10 = text.lines().find(|l| l.starts_with("10 ")).unwrap();
        assert!(row10.contains('?'), "{row10}");
    }

    #[test]
    fn leaving_during_a_game_asks_for_confirmation() {
        let mut app = GomokuApp::new("gt-1", false);
        app.on_feed(Feed::Snapshot(table(0)), 0);
        assert!(app.command("leave", 0).is_empty());
        assert!(screen(&app, 0).contains("escape"));
        assert_eq!(app.command("leave", 0), vec![Request::Act(Action::Leave)]);
    }

    #[test]
    fn leaving_between_the_two_games_of_a_pair_asks_for_confirmation() {
        let mut app = GomokuApp::new("gt-1", false);
        let mut between = table(0);
        between.status = gm::TableStatus::BetweenGames as i32;
        between.leaving_escapes = true;
        app.on_feed(Feed::Snapshot(between.clone()), 0);
        assert!(app.command("leave", 0).is_empty());
        assert!(screen(&app, 0).contains("pairs"), "{}", screen(&app, 0));
        assert_eq!(app.command("leave", 0), vec![Request::Act(Action::Leave)]);

        // After the pair's second game, leaving goes at once.
        let mut app = GomokuApp::new("gt-1", false);
        between.leaving_escapes = false;
        app.on_feed(Feed::Snapshot(between), 0);
        assert_eq!(app.command("leave", 0), vec![Request::Act(Action::Leave)]);
    }

    #[test]
    fn spectators_cannot_act() {
        let mut app = GomokuApp::new("gt-1", true);
        let mut t = table(0);
        t.your_seat = None;
        app.on_feed(Feed::Snapshot(t), 0);
        assert!(app.command("h8", 0).is_empty());
        let text = screen(&app, 0);
        assert!(text.contains("spectators cannot act"), "{text}");
        assert!(!text.contains("(you)"), "{text}");
    }

    #[test]
    fn the_result_shows_points_then_the_settled_silver() {
        let mut app = GomokuApp::new("gt-1", false);
        let mut t = table(0);
        t.status = gm::TableStatus::BetweenGames as i32;
        t.closes_at_unix_ms = 600_000;
        let game = t.game.as_mut().unwrap();
        game.phase = gm::Phase::Over as i32;
        game.to_act_seat = None;
        game.result = Some(gm::GameResult {
            outcome: gm::Outcome::WhiteWins as i32,
            reason: gm::EndReason::Resignation as i32,
            seat: Some(0),
            winner_seat: Some(1),
            points: vec![-3, 3],
            description: "white wins: black resigned".into(),
            ..Default::default()
        });
        app.on_feed(Feed::Snapshot(t.clone()), 0);
        let text = screen(&app, 0);
        assert!(
            text.contains("RESULT: white wins: black resigned"),
            "{text}"
        );
        assert!(text.contains("points: alice (you) -3, bob +3"), "{text}");
        assert!(text.contains("settling with the ledger"), "{text}");
        assert!(text.contains("`next` for another game"), "{text}");
        t.last_event_id = 9;
        t.finished_games = vec![gm::FinishedGame {
            number: 1,
            settlement: Some(gm::Settlement {
                adopted: false,
                seats: vec![
                    gm::SeatSettlement {
                        player_id: "alice".into(),
                        points_delta: -3,
                        points_after: -3,
                        silver_delta: -300,
                        balance_silver: 9_700,
                        clamped_by: String::new(),
                    },
                    gm::SeatSettlement {
                        player_id: "bob".into(),
                        points_delta: 3,
                        points_after: 3,
                        silver_delta: 300,
                        balance_silver: 10_300,
                        clamped_by: String::new(),
                    },
                ],
            }),
            ..Default::default()
        }];
        app.on_reply(Reply::Table(Ok(t)), 0);
        let text = screen(&app, 0);
        assert!(
            text.contains("alice: silver -300, balance 9,700; points -3 → -3"),
            "{text}"
        );
    }

    #[test]
    fn next_at_a_closed_table_queues_again_in_its_room() {
        let mut app = GomokuApp::new("gt-1", false);
        let mut t = table(0);
        t.status = gm::TableStatus::Closed as i32;
        t.closed_reason = "bob left".into();
        app.on_feed(Feed::Snapshot(t), 0);
        assert!(screen(&app, 0).contains("`next` to queue for another table"));
        assert!(app.command("next", 0).is_empty());
        assert!(app.finished());
        assert_eq!(app.requeue(), Some("gomoku-renju".into()));
    }

    #[test]
    fn a_short_terminal_keeps_the_prompt_on_screen() {
        let mut app = GomokuApp::new("gt-1", false);
        app.on_feed(Feed::Snapshot(table(0)), 0);
        let frame = app.frame(0, 120, 24);
        assert!(frame.lines.len() <= 24, "{}", frame.lines.len());
        assert!(frame.lines.last().unwrap().starts_with("> "));
        assert_eq!(
            frame.cursor.map(|(_, row)| usize::from(row)),
            Some(frame.lines.len() - 1)
        );
    }

    #[test]
    fn a_narrow_terminal_puts_the_panel_under_the_board() {
        let mut app = GomokuApp::new("gt-1", false);
        app.on_feed(Feed::Snapshot(table(0)), 0);
        let frame = app.frame(0, 60, 50);
        let row = frame.lines.iter().position(|l| l.contains("alice (you)"));
        let last_board_row = frame.lines.iter().rposition(|l| l.contains("a b c"));
        assert!(row > last_board_row, "{:#?}", frame.lines);
    }
}
