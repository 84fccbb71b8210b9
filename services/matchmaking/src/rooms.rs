//! Rooms (房间) as data: a TOML file shipped with defaults ([`DEFAULT_ROOMS`], the
//! `rooms.toml` beside this crate's manifest) and replaceable with `GAMEHUB_ROOMS_FILE`.
//!
//! The file is parsed and validated once, at start ([`Rooms::parse`]); every error names
//! the room and the field to fix. Inside the service a [`Room`] is trusted.

use std::collections::HashSet;
use std::fmt;
use std::ops::RangeInclusive;
use std::sync::Arc;

use gamehub_proto::common::RoomStakes;
use gamehub_proto::matchmaking as pb;
use gamehub_terms::games::{self, ClockKind, WorstLoss};
use gamehub_terms::stakes::{self, StakesError};
use gamehub_terms::{RoomId, Stakes};
use serde::Deserialize;

/// The rooms of a default install.
pub const DEFAULT_ROOMS: &str = include_str!("../rooms.toml");

/// The most rooms a file may hold (a limit on the matcher's per-room loops).
pub const MAX_ROOMS: usize = 100;

/// The longest room id.
pub use gamehub_terms::ids::MAX_ROOM_ID_LEN;

/// The per-game loss cap of the ledger's default configuration (docs/rules.md#caps).
pub use gamehub_terms::caps::DEFAULT_GAME_LOSS_CAP_SILVER;

/// A game, as the registry describes it (seats, rule sets, clock, what its rooms allow).
pub use gamehub_terms::games::Game;

/// How long players may think: values of the game's clock kind.
pub use gamehub_terms::games::TimeControl;

/// A validated room.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Room {
    /// The id players enqueue with, e.g. `gomoku-renju`; also the Redis hash tag. The
    /// same id as `stakes.room_id`.
    pub id: RoomId,
    /// What players see.
    pub name: String,
    /// The game played.
    pub game: &'static Game,
    /// The rule set, by its rule crate's name (`renju-lose`).
    pub rules: &'static str,
    /// The clock.
    pub time_control: TimeControl,
    /// The money side, the one stakes type every service checks and stores: points base
    /// (底分), silver per point (0 makes a free room), the silver a player must hold to sit
    /// down (the ledger checks it), and whether games here move ratings (a game whose
    /// rooms may be rated; rated rooms pair close ratings).
    pub stakes: Stakes,
    /// Gomoku designated openings (指定打法): each game from one of the 26 standard
    /// openings drawn at random, or always from one; None from an empty board.
    pub designated_opening: Option<gomoku_rules::OpeningChoice>,
    /// The games of a table come in pairs (a game whose rooms may pair them: Gomoku),
    /// so that each player plays black once in each pair (一般要求连续玩两盘以上); leaving
    /// between the two is an escape from the second (docs/rules.md#games-in-pairs).
    pub paired_games: bool,
}

impl Room {
    /// Players per table.
    pub fn seats(&self) -> usize {
        self.game.seats
    }

    /// The stakes the ledger and the game services are told.
    pub fn stakes(&self) -> RoomStakes {
        self.stakes.to_proto()
    }

    /// The room as ListRooms shows it.
    pub fn to_proto(&self, waiting_players: i64) -> pb::Room {
        let time_control = match self.time_control {
            TimeControl::PerMoveAndTotal {
                move_time_ms,
                total_time_ms,
            } => pb::TimeControl {
                move_time_ms: to_i64(move_time_ms),
                total_time_ms: to_i64(total_time_ms),
                turn_time_ms: 0,
            },
            TimeControl::PerTurn { turn_time_ms } => pb::TimeControl {
                move_time_ms: 0,
                total_time_ms: 0,
                turn_time_ms: to_i64(turn_time_ms),
            },
        };
        pb::Room {
            room_id: self.id.to_string(),
            display_name: self.name.clone(),
            game_type: self.game.game_type as i32,
            rule_set: self.rules.to_owned(),
            time_control: Some(time_control),
            stakes: Some(self.stakes()),
            seats: i32::try_from(self.seats()).unwrap_or(i32::MAX),
            waiting_players,
            designated_opening: self.designated_opening_name().to_owned(),
            paired_games: self.paired_games,
        }
    }

    /// The room's designated openings as the API writes them: `random`, an opening's
    /// id, or empty.
    pub fn designated_opening_name(&self) -> &'static str {
        self.designated_opening
            .map_or("", gomoku_rules::OpeningChoice::name)
    }
}

fn to_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// The validated rooms, in file order.
#[derive(Debug, Clone)]
pub struct Rooms {
    rooms: Vec<Arc<Room>>,
}

/// A rooms file that cannot be used, naming the room and field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct RoomsError {
    /// The room's id (or its position when the id itself is the problem), if any.
    pub room: Option<String>,
    /// The field, if any.
    pub field: Option<String>,
    /// What is wrong and what would be right.
    pub problem: String,
}

impl fmt::Display for RoomsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("rooms file")?;
        if let Some(room) = &self.room {
            write!(f, ": room {room}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": field {field}")?;
        }
        write!(f, ": {}", self.problem)
    }
}

/// The file's shape, before validation.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RoomsFile {
    #[serde(default)]
    rooms: Vec<RoomEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RoomEntry {
    id: Option<String>,
    name: Option<String>,
    game: Option<String>,
    rules: Option<String>,
    move_time_ms: Option<i64>,
    total_time_ms: Option<i64>,
    turn_time_ms: Option<i64>,
    points_base: Option<i64>,
    silver_per_point: Option<i64>,
    min_balance_silver: Option<i64>,
    rated: Option<bool>,
    designated_opening: Option<String>,
    paired_games: Option<bool>,
}

impl Rooms {
    /// Parses and validates a rooms file. `game_loss_cap_silver` is the ledger's per-game
    /// loss cap, which bounds the default minimum balance.
    pub fn parse(text: &str, game_loss_cap_silver: i64) -> Result<Rooms, RoomsError> {
        let file: RoomsFile = toml::from_str(text).map_err(|e| RoomsError {
            room: None,
            field: None,
            problem: format!("not valid TOML for a rooms file: {}", e.to_string().trim()),
        })?;
        if file.rooms.is_empty() {
            return Err(RoomsError {
                room: None,
                field: None,
                problem: "no rooms: add at least one [[rooms]] table".into(),
            });
        }
        if file.rooms.len() > MAX_ROOMS {
            return Err(RoomsError {
                room: None,
                field: None,
                problem: format!(
                    "{} rooms; at most {MAX_ROOMS} are allowed",
                    file.rooms.len()
                ),
            });
        }
        let mut seen = HashSet::new();
        let mut rooms = Vec::with_capacity(file.rooms.len());
        for (index, entry) in file.rooms.into_iter().enumerate() {
            let room = validate(index, entry, game_loss_cap_silver)?;
            if !seen.insert(room.id.clone()) {
                return Err(RoomsError {
                    room: Some(format!("{:?}", room.id.as_str())),
                    field: Some("id".into()),
                    problem: "the id is used by an earlier room; ids must be unique".into(),
                });
            }
            rooms.push(Arc::new(room));
        }
        Ok(Rooms { rooms })
    }

    /// The shipped defaults.
    pub fn defaults() -> Rooms {
        // The shipped file is checked by this crate's tests.
        Self::parse(DEFAULT_ROOMS, DEFAULT_GAME_LOSS_CAP_SILVER)
            .unwrap_or_else(|e| panic!("the shipped rooms.toml must be valid: {e}"))
    }

    /// The room with this id.
    pub fn get(&self, id: &str) -> Option<&Arc<Room>> {
        self.rooms.iter().find(|room| room.id == id)
    }

    /// Every room, in file order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<Room>> {
        self.rooms.iter()
    }

    /// How many rooms there are.
    pub fn len(&self) -> usize {
        self.rooms.len()
    }

    /// Whether there are none (never, once validated).
    pub fn is_empty(&self) -> bool {
        self.rooms.is_empty()
    }
}

fn validate(index: usize, entry: RoomEntry, cap: i64) -> Result<Room, RoomsError> {
    let position = format!("#{}", index + 1);
    let fail = |room: &str, field: &str, problem: String| RoomsError {
        room: Some(room.to_owned()),
        field: Some(field.to_owned()),
        problem,
    };
    let id = entry
        .id
        .ok_or_else(|| fail(&position, "id", "is required".into()))?;
    let id = RoomId::parse(&id).map_err(|_| {
        fail(
            &position,
            "id",
            format!("{id:?} must be 1-{MAX_ROOM_ID_LEN} characters of a-z, 0-9 and '-'"),
        )
    })?;
    let room = format!("{:?}", id.as_str());
    let name = entry
        .name
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty())
        .ok_or_else(|| fail(&room, "name", "is required".into()))?;
    if name.chars().count() > 64 {
        return Err(fail(&room, "name", "is longer than 64 characters".into()));
    }
    let game_name = entry
        .game
        .ok_or_else(|| fail(&room, "game", format!("is required ({})", games::keys())))?;
    let game = games::by_key(&game_name).ok_or_else(|| {
        fail(
            &room,
            "game",
            format!("unknown game {game_name:?}; expected {}", games::keys()),
        )
    })?;
    let rule_set_names = game.rule_sets.names;
    let rules_name = entry.rules.ok_or_else(|| {
        fail(
            &room,
            "rules",
            format!("is required; {} rule sets: {}", game.key, rule_set_names()),
        )
    })?;
    let rules = (game.rule_sets.parse)(&rules_name).ok_or_else(|| {
        fail(
            &room,
            "rules",
            format!(
                "unknown rule set {rules_name:?} for {}; expected one of {}",
                game.key,
                rule_set_names()
            ),
        )
    })?;
    let ms = |field: &str, value, bounds| {
        millis(value, bounds).map_err(|problem| fail(&room, field, problem))
    };
    let not_for = |field: &str, value: Option<i64>| -> Result<(), RoomsError> {
        match value {
            Some(_) => Err(fail(
                &room,
                field,
                format!("does not apply to {}", game.key),
            )),
            None => Ok(()),
        }
    };
    let time_control = match &game.clock {
        ClockKind::PerMoveAndTotal {
            move_time_ms,
            total_time_ms,
        } => {
            not_for("turn_time_ms", entry.turn_time_ms)?;
            let move_time_ms = ms("move_time_ms", entry.move_time_ms, move_time_ms)?;
            let total_time_ms = ms("total_time_ms", entry.total_time_ms, total_time_ms)?;
            if total_time_ms < move_time_ms {
                return Err(fail(
                    &room,
                    "total_time_ms",
                    format!("{total_time_ms} is less than move_time_ms {move_time_ms}"),
                ));
            }
            TimeControl::PerMoveAndTotal {
                move_time_ms,
                total_time_ms,
            }
        }
        ClockKind::PerTurn { turn_time_ms } => {
            not_for("move_time_ms", entry.move_time_ms)?;
            not_for("total_time_ms", entry.total_time_ms)?;
            TimeControl::PerTurn {
                turn_time_ms: ms("turn_time_ms", entry.turn_time_ms, turn_time_ms)?,
            }
        }
    };
    // The stakes' bounds are the ones every service holds them to: a room cannot
    // offer a table the game services would refuse or the ledger would not settle.
    let stakes_error = |e: StakesError| fail(&room, e.field, e.problem);
    let points_base =
        stakes::check_points_base(entry.points_base.unwrap_or(1)).map_err(stakes_error)?;
    let silver_per_point = stakes::check_silver_per_point(entry.silver_per_point.unwrap_or(0))
        .map_err(stakes_error)?;
    let rated = entry.rated.unwrap_or(false);
    if rated && !game.ratable {
        let ratable = names_of(|g| g.ratable);
        return Err(fail(
            &room,
            "rated",
            format!("only {ratable} rooms can be rated (ratings are {ratable}'s 段位)"),
        ));
    }
    let designated_opening = match entry.designated_opening {
        None => None,
        Some(text) => {
            let field = "designated_opening";
            // Designated openings (指定打法) are Gomoku's: its rule crate has them.
            let gomoku_rule_set = (*game == games::GOMOKU)
                .then(|| gomoku_rules::RuleSet::parse(rules))
                .flatten();
            let Some(rule_set) = gomoku_rule_set else {
                return Err(fail(&room, field, "applies to Gomoku rooms only".into()));
            };
            let choice = gomoku_rules::OpeningChoice::parse(&text)
                .map_err(|e| fail(&room, field, format!("{e}; or \"random\"")))?;
            if !rule_set.allows_openings() {
                return Err(fail(
                    &room,
                    field,
                    format!(
                        "{}; use rules renju-lose, renju-claim or renju-refuse",
                        gomoku_rules::GameError::OpeningNotAllowed { rule_set }
                    ),
                ));
            }
            Some(choice)
        }
    };
    let paired_games = entry.paired_games.unwrap_or(false);
    if paired_games && !game.paired_games {
        return Err(fail(
            &room,
            "paired_games",
            format!(
                "applies to {} rooms only (a pair gives each player black once)",
                names_of(|g| g.paired_games)
            ),
        ));
    }
    let min_balance_silver = match entry.min_balance_silver {
        Some(value) => stakes::check_min_balance_silver(value).map_err(stakes_error)?,
        None => default_min_balance(game, points_base, silver_per_point, cap),
    };
    Ok(Room {
        stakes: Stakes {
            room_id: id.clone(),
            points_base,
            silver_per_point,
            min_balance_silver,
            rated,
        },
        id,
        name,
        game,
        rules,
        time_control,
        designated_opening,
        paired_games,
    })
}

/// A clock field in milliseconds, within its game's bounds.
fn millis(value: Option<i64>, bounds: &RangeInclusive<i64>) -> Result<u64, String> {
    let value = value.ok_or("is required")?;
    if !bounds.contains(&value) {
        let (min, max) = (bounds.start(), bounds.end());
        return Err(format!("{value} is outside {min}..={max} milliseconds"));
    }
    Ok(value.unsigned_abs())
}

/// The names of the games whose entries say `yes`, for messages: `Gomoku`.
fn names_of(yes: impl Fn(&Game) -> bool) -> String {
    games::or_list(games::GAMES.into_iter().filter(|g| yes(g)).map(|g| g.name))
}

/// The silver one game can cost a player at most, capped at the per-game loss cap
/// (docs/rules.md#rooms): the game's worst loss in points × base where it has a useful
/// one (Gomoku's escape, 10 × base), else the cap itself. Free rooms need nothing.
pub fn default_min_balance(game: &Game, points_base: i64, silver_per_point: i64, cap: i64) -> i64 {
    if silver_per_point == 0 {
        return 0;
    }
    match game.worst_loss {
        WorstLoss::Points(points) => points
            .saturating_mul(points_base)
            .saturating_mul(silver_per_point)
            .min(cap),
        WorstLoss::LossCap => cap,
    }
}
