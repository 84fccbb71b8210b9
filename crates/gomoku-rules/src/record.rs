//! Game records (保存/载入): the text format, Piskvork/Gomocup PSQ, the compact stored
//! state, and a replay cursor (上步/下步).
//!
//! All three readers replay every action through the rules, so an illegal record is
//! refused with the 1-based ply (the position of the action in the move list) and why.
//!
//! A game that started from a designated opening keeps the opening's three stones in its
//! move list (at 0 ms) and names the opening in an `[Opening "kansei"]` header (text) or an
//! `opening` field (stored state); reading checks that the move list starts with them.
//!
//! The move list is a line of tokens, each optionally followed by `@` and the time in ms
//! since the game started: a stone is its point (`h8@0`); the other actions are `swap`,
//! `propose:j7,g9`, `choose:j7`, `claim`, `draw:black` (offer), `accept:white`,
//! `decline:white`, `resign:black`, `escape:white` and `timeout`, with colors as they were
//! when the action was taken.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::board::{Board, Color};
use crate::game::{Action, Game, GameConfig, GameError, LogEntry, Outcome, Seat, TimeControl};
use crate::opening::Opening;
use crate::point::{Point, SIZE};
use crate::rule_set::RuleSet;

/// Records larger than this are refused unread.
pub const MAX_RECORD_BYTES: usize = 256 * 1024;
/// The longest move token (`propose:j10,g11@86400000` is 24): longer ones are refused
/// before they are read or quoted, so an error quotes at most this much of a record.
pub const MAX_TOKEN_CHARS: usize = 48;
/// The longest header value (`[Black "…"]`): player ids and room ids are at most 64.
pub const MAX_HEADER_VALUE_CHARS: usize = 64;
/// A game has at most 225 stones; with offers, claims and the opening this is ample.
pub const MAX_RECORD_ACTIONS: usize = 4096;

/// Why a record or a stored state could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    #[error("record is {bytes} bytes; at most {limit} are accepted")]
    TooLarge { bytes: usize, limit: usize },
    #[error("line {line}: {message}")]
    Syntax { line: usize, message: String },
    #[error("the record has no [{0} \"...\"] header")]
    MissingTag(&'static str),
    #[error("ply {ply} ({token:?}): {message}")]
    BadToken {
        ply: usize,
        token: String,
        message: String,
    },
    #[error("ply {ply} ({token}) is illegal: {error}")]
    Illegal {
        ply: usize,
        token: String,
        error: GameError,
    },
    #[error("the record says the result is {declared:?} but the moves give {replayed:?}")]
    ResultMismatch { declared: String, replayed: String },
    #[error("ply {ply}: a move has at most {limit} characters")]
    TokenTooLong { ply: usize, limit: usize },
    #[error("more than {0} actions")]
    TooManyActions(usize),
    #[error("stored game: {0}")]
    Stored(String),
}

/// Who played and where, as written in a record's header.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordInfo {
    /// Room id, e.g. `gomoku-renju`.
    pub room: String,
    /// The player who started the game as black (before any swap).
    pub black: String,
    /// The player who started the game as white.
    pub white: String,
    /// Free text, e.g. `2025-06-01`.
    pub date: String,
    /// Played at a friends' table (好友房): `[FriendsTable "yes"]`, a line only such
    /// records have (absent from records written before it existed: read as false).
    #[serde(default)]
    pub friends_table: bool,
}

/// A finished or unfinished game with the names around it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub info: RecordInfo,
    pub game: Game,
}

/// `1-0`, `0-1`, `1/2-1/2` or `*` (unfinished).
fn result_code(game: &Game) -> &'static str {
    match game.result().map(|r| r.outcome) {
        Some(Outcome::BlackWins) => "1-0",
        Some(Outcome::WhiteWins) => "0-1",
        Some(Outcome::Draw) => "1/2-1/2",
        None => "*",
    }
}

/// Writes one log entry as a token; `black_seat` is who held black at that moment.
fn write_token(out: &mut String, entry: &LogEntry, black_seat: Seat) {
    let color = if entry.seat == black_seat {
        Color::Black
    } else {
        Color::White
    };
    // Writing to a String cannot fail. A stone, nearly every token, is written by hand:
    // the stored state is written at every step.
    let _ = match entry.action {
        Action::Place(p) => {
            out.push_str(p.name());
            Ok(())
        }
        Action::ClaimForbidden => write!(out, "claim"),
        Action::Swap => write!(out, "swap"),
        Action::ProposeFifth(a, b) => write!(out, "propose:{a},{b}"),
        Action::ChooseFifth(p) => write!(out, "choose:{p}"),
        Action::OfferDraw => write!(out, "draw:{color}"),
        Action::AcceptDraw => write!(out, "accept:{color}"),
        Action::DeclineDraw => write!(out, "decline:{color}"),
        Action::Resign => write!(out, "resign:{color}"),
        Action::Escape => write!(out, "escape:{color}"),
        Action::Timeout => write!(out, "timeout"),
    };
    out.push('@');
    push_number(out, entry.at_ms);
}

/// `n` in decimal.
fn push_number(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        // n % 10 < 10: the cast keeps it.
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[at..] {
        out.push(char::from(d));
    }
}

/// The log as a line of tokens, `per_line` tokens to a line (0: one line).
fn write_log(game: &Game, per_line: usize) -> String {
    // A stone and its time take about a dozen bytes.
    let mut out = String::with_capacity(game.log().len() * 12);
    let mut black_seat = game.config().black_seat;
    for (i, entry) in game.log().iter().enumerate() {
        if i > 0 {
            out.push(if per_line > 0 && i % per_line == 0 {
                '\n'
            } else {
                ' '
            });
        }
        write_token(&mut out, entry, black_seat);
        if entry.action == Action::Swap {
            black_seat = entry.seat;
        }
    }
    out
}

/// A token read but not yet given a seat (that needs the game at that moment).
#[derive(Debug, Clone, Copy)]
enum Token {
    /// An action by the side to act.
    Turn(Action),
    /// An action by the seat holding this color.
    ByColor(Action, Color),
}

fn parse_color(text: &str) -> Result<Color, String> {
    match text {
        "black" | "b" => Ok(Color::Black),
        "white" | "w" => Ok(Color::White),
        other => Err(format!("{other:?} is not a color (black or white)")),
    }
}

fn parse_point(text: &str) -> Result<Point, String> {
    Point::parse(text).map_err(|e| e.to_string())
}

fn parse_token(text: &str) -> Result<(Token, Option<u64>), String> {
    let (body, at_ms) = match text.split_once('@') {
        Some((body, time)) => {
            let ms = time
                .parse::<u64>()
                .map_err(|_| format!("bad time {time:?}: expected milliseconds"))?;
            (body, Some(ms))
        }
        None => (text, None),
    };
    let token = match body.split_once(':') {
        None => match body {
            "claim" => Token::Turn(Action::ClaimForbidden),
            "swap" => Token::Turn(Action::Swap),
            "timeout" => Token::Turn(Action::Timeout),
            point => Token::Turn(Action::Place(parse_point(point)?)),
        },
        Some(("propose", points)) => {
            let (a, b) = points
                .split_once(',')
                .ok_or("propose needs two points: propose:j7,g9")?;
            Token::Turn(Action::ProposeFifth(parse_point(a)?, parse_point(b)?))
        }
        Some(("choose", point)) => Token::Turn(Action::ChooseFifth(parse_point(point)?)),
        Some((verb, color)) => {
            let action = match verb {
                "draw" => Action::OfferDraw,
                "accept" => Action::AcceptDraw,
                "decline" => Action::DeclineDraw,
                "resign" => Action::Resign,
                "escape" => Action::Escape,
                other => return Err(format!("unknown action {other:?}")),
            };
            Token::ByColor(action, parse_color(color)?)
        }
    };
    Ok((token, at_ms))
}

/// Replays tokens (already split) through the rules onto `game`, a game just started. When
/// it started from an opening, the tokens begin with the opening's stones (already on the
/// board), which are checked rather than played.
fn replay_tokens<'a>(
    mut game: Game,
    tokens: impl Iterator<Item = &'a str>,
) -> Result<Game, RecordError> {
    let started_ms = game.started_ms();
    let preset: Vec<LogEntry> = game.log().to_vec();
    let mut last_ms = 0;
    let mut count = 0;
    for (i, text) in tokens.enumerate() {
        let ply = i + 1;
        count = ply;
        if ply > MAX_RECORD_ACTIONS {
            return Err(RecordError::TooManyActions(MAX_RECORD_ACTIONS));
        }
        if text.chars().count() > MAX_TOKEN_CHARS {
            return Err(RecordError::TokenTooLong {
                ply,
                limit: MAX_TOKEN_CHARS,
            });
        }
        let bad = |message: String| RecordError::BadToken {
            ply,
            token: text.to_owned(),
            message,
        };
        let (token, at_ms) = parse_token(text).map_err(bad)?;
        let at_ms = at_ms.unwrap_or(last_ms);
        if at_ms < last_ms {
            return Err(bad(format!(
                "time {at_ms} ms is before the previous action's {last_ms} ms"
            )));
        }
        last_ms = at_ms;
        if let Some(expected) = preset.get(i) {
            check_preset(&game, expected, token, at_ms).map_err(bad)?;
            continue;
        }
        let (seat, action) = match token {
            Token::Turn(action) => match game.to_act() {
                Some(seat) => (seat, action),
                None => {
                    return Err(RecordError::Illegal {
                        ply,
                        token: text.to_owned(),
                        error: GameError::GameOver,
                    });
                }
            },
            Token::ByColor(action, color) => (game.seat_of(color), action),
        };
        game.act(seat, action, started_ms.saturating_add(at_ms))
            .map_err(|error| RecordError::Illegal {
                ply,
                token: text.to_owned(),
                error,
            })?;
    }
    if count < preset.len() {
        return Err(RecordError::BadToken {
            ply: count + 1,
            token: String::new(),
            message: missing_preset(&game),
        });
    }
    Ok(game)
}

/// Checks that a token repeats a stone the game started with (a designated opening's).
fn check_preset(game: &Game, expected: &LogEntry, token: Token, at_ms: u64) -> Result<(), String> {
    let same_stone = matches!(
        (token, expected.action),
        (Token::Turn(Action::Place(a)), Action::Place(b)) if a == b
    );
    if !same_stone {
        return Err(missing_preset(game));
    }
    if at_ms != expected.at_ms {
        return Err(format!(
            "the opening's stones take no time: this one is at {} ms, not {at_ms} ms",
            expected.at_ms
        ));
    }
    Ok(())
}

fn missing_preset(game: &Game) -> String {
    match game.opening() {
        Some(opening) => {
            let [a, b, c] = opening.stones();
            format!("the game starts from the opening {opening}, so its moves begin {a} {b} {c}")
        }
        None => "the move list does not begin with the game's preset stones".to_owned(),
    }
}

/// A game started at `started_ms`, from `opening` when there is one.
fn start(config: GameConfig, opening: Option<Opening>, started_ms: u64) -> Result<Game, GameError> {
    match opening {
        Some(opening) => Game::with_opening(config, opening, started_ms),
        None => Ok(Game::new(config, started_ms)),
    }
}

fn check_size(text: &str) -> Result<(), RecordError> {
    if text.len() > MAX_RECORD_BYTES {
        return Err(RecordError::TooLarge {
            bytes: text.len(),
            limit: MAX_RECORD_BYTES,
        });
    }
    Ok(())
}

impl Record {
    pub fn new(info: RecordInfo, game: Game) -> Record {
        Record { info, game }
    }

    /// The designated opening the game started from, if any.
    pub fn opening(&self) -> Option<Opening> {
        self.game.opening()
    }

    /// The text format: a header of `[Tag "value"]` lines, a blank line, then the moves.
    pub fn to_text(&self) -> String {
        let game = &self.game;
        let config = game.config();
        let mut out = String::new();
        let mut tag = |name: &str, value: &str| {
            let value = value.replace(['"', '\n', '\r'], "'");
            let _ = writeln!(out, "[{name} \"{value}\"]");
        };
        tag("Game", "gomoku");
        tag("Room", &self.info.room);
        tag("RuleSet", config.rule_set.name());
        if let Some(opening) = game.opening() {
            tag("Opening", opening.id());
            tag(
                "OpeningName",
                &format!(
                    "{} {} ({})",
                    opening.name_zh(),
                    opening.name(),
                    opening.code()
                ),
            );
        }
        let tc = config.time_control;
        tag(
            "TimeControl",
            &format!("{}/{}", tc.per_move_ms, tc.total_ms),
        );
        tag("Date", &self.info.date);
        if self.info.friends_table {
            tag("FriendsTable", "yes");
        }
        tag("Black", &self.info.black);
        tag("White", &self.info.white);
        tag("BlackSeat", &config.black_seat.number().to_string());
        tag("StartMs", &game.started_ms().to_string());
        tag("Result", result_code(game));
        if let Some(result) = game.result() {
            tag("Termination", &result.describe());
        }
        out.push('\n');
        out.push_str(&write_log(game, 10));
        out.push('\n');
        out
    }

    /// Reads the text format and replays it.
    pub fn from_text(text: &str) -> Result<Record, RecordError> {
        check_size(text)?;
        let mut info = RecordInfo::default();
        let mut rule_set = None;
        let mut time_control = TimeControl::UNLIMITED;
        let mut black_seat = Seat::ZERO;
        let mut started_ms = 0;
        let mut declared_result = None;
        let mut opening = None;
        let mut moves = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line_no = n + 1;
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
                continue;
            }
            let syntax = |message: String| RecordError::Syntax {
                line: line_no,
                message,
            };
            if let Some(inner) = line.strip_prefix('[') {
                let inner = inner
                    .strip_suffix(']')
                    .ok_or_else(|| syntax("a header line ends with ]".into()))?;
                let (name, value) = inner
                    .split_once(' ')
                    .ok_or_else(|| syntax("a header line is [Name \"value\"]".into()))?;
                let value = value
                    .trim()
                    .strip_prefix('"')
                    .and_then(|v| v.strip_suffix('"'));
                let value =
                    value.ok_or_else(|| syntax("a header value is in double quotes".into()))?;
                if value.chars().count() > MAX_HEADER_VALUE_CHARS {
                    return Err(syntax(format!(
                        "a header value has at most {MAX_HEADER_VALUE_CHARS} characters"
                    )));
                }
                match name {
                    "Room" => info.room = value.to_owned(),
                    "Black" => info.black = value.to_owned(),
                    "White" => info.white = value.to_owned(),
                    "Date" => info.date = value.to_owned(),
                    "FriendsTable" => info.friends_table = value == "yes",
                    "RuleSet" => {
                        rule_set = Some(RuleSet::parse(value).ok_or_else(|| {
                            syntax(format!("unknown rule set {value:?} ({})", RuleSet::names()))
                        })?)
                    }
                    "TimeControl" => {
                        let parsed = value.split_once('/').and_then(|(a, b)| {
                            Some(TimeControl {
                                per_move_ms: a.parse().ok()?,
                                total_ms: b.parse().ok()?,
                            })
                        });
                        time_control = parsed.ok_or_else(|| {
                            syntax("TimeControl is \"per_move_ms/total_ms\"".into())
                        })?;
                    }
                    "BlackSeat" => {
                        black_seat = value
                            .parse::<u8>()
                            .ok()
                            .and_then(Seat::new)
                            .ok_or_else(|| syntax("BlackSeat is 0 or 1".into()))?
                    }
                    "StartMs" => {
                        started_ms = value
                            .parse()
                            .map_err(|_| syntax("StartMs is milliseconds".into()))?
                    }
                    "Result" => declared_result = Some(value.to_owned()),
                    "Opening" => {
                        let parsed = Opening::parse(value).map_err(|e| syntax(e.to_string()))?;
                        opening = Some((parsed, line_no));
                    }
                    _ => {} // Game, Termination, OpeningName and unknown tags are informative only.
                }
            } else {
                moves.extend(line.split_whitespace().filter(|t| !t.ends_with('.')));
            }
        }
        let rule_set = rule_set.ok_or(RecordError::MissingTag("RuleSet"))?;
        let config = GameConfig {
            rule_set,
            time_control,
            black_seat,
        };
        let game = start(config, opening.map(|(o, _)| o), started_ms).map_err(|error| {
            RecordError::Syntax {
                line: opening.map_or(0, |(_, line)| line),
                message: error.to_string(),
            }
        })?;
        let game = replay_tokens(game, moves.into_iter())?;
        let replayed = result_code(&game);
        // Resignations, draws, timeouts and escapes are in the move list, so the result of
        // the replay is the whole truth; a header that disagrees is a corrupt record.
        if let Some(declared) = declared_result.filter(|d| d != replayed) {
            return Err(RecordError::ResultMismatch {
                declared,
                replayed: replayed.to_owned(),
            });
        }
        Ok(Record { info, game })
    }

    /// Piskvork/Gomocup PSQ: `Piskvorky 15x15, 11:11, 0`, then `x,y,ms` per stone with
    /// x, y from 1 and y counted from the top, ms the time spent on that move. PSQ holds
    /// stones only: swaps, proposals, claims and offers are not written.
    pub fn to_psq(&self) -> String {
        let mut out = String::from("Piskvorky 15x15, 11:11, 0\n");
        let mut previous_ms = 0;
        for entry in self.game.log() {
            let point = match entry.action {
                Action::Place(p) | Action::ChooseFifth(p) => p,
                _ => continue,
            };
            let spent = entry.at_ms.saturating_sub(previous_ms);
            previous_ms = entry.at_ms;
            let _ = writeln!(out, "{},{},{}", point.x() + 1, SIZE - point.y(), spent);
        }
        out
    }

    /// Reads PSQ and replays its stones under `rule_set`, colors alternating from black.
    /// (A swap-room game has no proposals in PSQ: read it as `renju-lose`.)
    pub fn from_psq(text: &str, rule_set: RuleSet) -> Result<Record, RecordError> {
        check_size(text)?;
        let mut lines = text.lines().enumerate();
        let header = lines.next().map(|(_, l)| l.trim()).unwrap_or_default();
        let syntax = |line: usize, message: &str| RecordError::Syntax {
            line,
            message: message.to_owned(),
        };
        if !header.starts_with("Piskvorky") {
            return Err(syntax(1, "a PSQ file starts with \"Piskvorky 15x15, ...\""));
        }
        let size = header
            .split_whitespace()
            .nth(1)
            .unwrap_or_default()
            .trim_end_matches(',');
        if size != "15x15" {
            return Err(syntax(1, "only 15x15 PSQ boards are supported"));
        }
        let mut tokens = Vec::new();
        let mut at_ms: u64 = 0;
        for (n, line) in lines {
            let fields: Vec<&str> = line.trim().split(',').map(str::trim).collect();
            let numbers: Option<Vec<i64>> = fields.iter().map(|f| f.parse().ok()).collect();
            let Some(numbers) = numbers.filter(|v| (2..=3).contains(&v.len())) else {
                break; // the move list ends at the first line that is not a move
            };
            let (x, y) = (numbers[0], numbers[1]);
            let point = Point::from_xy(x - 1, i64::from(SIZE) - y)
                .map_err(|e| syntax(n + 1, &format!("move {x},{y}: {e}")))?;
            let spent = numbers.get(2).copied().unwrap_or(0);
            if spent < 0 {
                return Err(syntax(n + 1, "a move's time cannot be negative"));
            }
            at_ms = at_ms.saturating_add(spent.unsigned_abs());
            tokens.push(format!("{point}@{at_ms}"));
        }
        let config = GameConfig {
            rule_set,
            time_control: TimeControl::UNLIMITED,
            black_seat: Seat::ZERO,
        };
        let game = replay_tokens(Game::new(config, 0), tokens.iter().map(String::as_str))?;
        Ok(Record {
            info: RecordInfo::default(),
            game,
        })
    }
}

/// The stored form of a [`Game`]: configuration, start time and the log as tokens.
#[derive(Serialize, Deserialize)]
struct StoredGame {
    /// Format version.
    v: u8,
    rules: String,
    per_move_ms: u64,
    total_ms: u64,
    black_seat: u8,
    /// The designated opening's id; absent for other games (and in states stored before
    /// openings existed, which read as such).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    opening: Option<String>,
    start_ms: u64,
    log: String,
}

/// Stored states larger than this are refused unread.
pub const MAX_STORED_BYTES: usize = 64 * 1024;

impl Game {
    /// The compact stored form (JSON of the configuration and the action log); a 60-ply
    /// game with realistic times takes under 700 bytes (685 measured).
    pub fn to_bytes(&self) -> Vec<u8> {
        let stored = StoredGame::from(self);
        serde_json::to_vec(&stored).unwrap_or_default()
    }

    /// Reads [`Game::to_bytes`], replaying the log through the rules.
    pub fn from_bytes(bytes: &[u8]) -> Result<Game, RecordError> {
        if bytes.len() > MAX_STORED_BYTES {
            return Err(RecordError::TooLarge {
                bytes: bytes.len(),
                limit: MAX_STORED_BYTES,
            });
        }
        let stored: StoredGame =
            serde_json::from_slice(bytes).map_err(|e| RecordError::Stored(e.to_string()))?;
        Game::try_from(stored)
    }
}

impl From<&Game> for StoredGame {
    fn from(game: &Game) -> StoredGame {
        let config = game.config();
        StoredGame {
            v: 1,
            rules: config.rule_set.name().to_owned(),
            per_move_ms: config.time_control.per_move_ms,
            total_ms: config.time_control.total_ms,
            black_seat: config.black_seat.number(),
            opening: game.opening().map(|o| o.id().to_owned()),
            start_ms: game.started_ms(),
            log: write_log(game, 0),
        }
    }
}

impl TryFrom<StoredGame> for Game {
    type Error = RecordError;
    fn try_from(stored: StoredGame) -> Result<Game, RecordError> {
        if stored.v != 1 {
            return Err(RecordError::Stored(format!("unknown version {}", stored.v)));
        }
        if stored.log.len() > MAX_STORED_BYTES {
            return Err(RecordError::TooLarge {
                bytes: stored.log.len(),
                limit: MAX_STORED_BYTES,
            });
        }
        let rule_set = RuleSet::parse(&stored.rules)
            .ok_or_else(|| RecordError::Stored(format!("unknown rule set {:?}", stored.rules)))?;
        let black_seat = Seat::new(stored.black_seat)
            .ok_or_else(|| RecordError::Stored(format!("no seat {}", stored.black_seat)))?;
        let config = GameConfig {
            rule_set,
            time_control: TimeControl {
                per_move_ms: stored.per_move_ms,
                total_ms: stored.total_ms,
            },
            black_seat,
        };
        let opening = stored
            .opening
            .as_deref()
            .map(Opening::parse)
            .transpose()
            .map_err(|e| RecordError::Stored(e.to_string()))?;
        let game = start(config, opening, stored.start_ms)
            .map_err(|e| RecordError::Stored(e.to_string()))?;
        replay_tokens(game, stored.log.split_whitespace())
    }
}

impl Serialize for Game {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        StoredGame::from(self).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Game {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let stored = StoredGame::deserialize(deserializer)?;
        Game::try_from(stored).map_err(serde::de::Error::custom)
    }
}

/// Steps through a game's stones (上步/下步), from the start or anywhere.
#[derive(Debug, Clone)]
pub struct Replay {
    moves: Vec<(Point, Color)>,
    board: Board,
    ply: usize,
}

impl Replay {
    /// A cursor over `game`'s stones, at the final position.
    pub fn new(game: &Game) -> Replay {
        Replay {
            moves: game.moves().to_vec(),
            board: game.board().clone(),
            ply: game.moves().len(),
        }
    }

    /// Number of stones in the game.
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// Stones on the board at the cursor (0 = empty board).
    pub fn ply(&self) -> usize {
        self.ply
    }

    /// The board at the cursor.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The stone played at ply `n` (1-based).
    pub fn stone(&self, n: usize) -> Option<(Point, Color)> {
        n.checked_sub(1).and_then(|i| self.moves.get(i)).copied()
    }

    /// One stone forward (下步); `None` at the end.
    pub fn forward(&mut self) -> Option<(Point, Color)> {
        let (point, color) = *self.moves.get(self.ply)?;
        // Replayed stones went on distinct points, so this cannot fail.
        if self.board.place(point, color).is_err() {
            return None;
        }
        self.ply += 1;
        Some((point, color))
    }

    /// One stone back (上步); `None` at the start.
    pub fn backward(&mut self) -> Option<(Point, Color)> {
        let index = self.ply.checked_sub(1)?;
        let (point, color) = self.moves[index];
        self.board.remove(point);
        self.ply = index;
        Some((point, color))
    }

    /// Moves the cursor to ply `n` (clamped to the game's length).
    pub fn jump(&mut self, n: usize) {
        let n = n.min(self.moves.len());
        while self.ply > n {
            self.backward();
        }
        while self.ply < n {
            if self.forward().is_none() {
                break;
            }
        }
    }

    /// The board after `n` stones (clamped), without moving the cursor.
    pub fn board_at(&self, n: usize) -> Board {
        let mut board = Board::new();
        for &(point, color) in self.moves.iter().take(n) {
            let _ = board.place(point, color);
        }
        board
    }
}
