//! The ledger's rules, apart from transport and storage: plain data and pure functions,
//! property-tested. Nothing here knows gRPC or SQL.
//!
//! - [`caps`]: the win/loss caps and the zero-sum, maximal, fair clamping of a game's silver;
//! - [`titles`]: the 18 titles points give;
//! - [`rating`]: Gomoku rating arithmetic and rank names;
//! - [`day`]: the cap day in the configured time zone;
//! - [`settle`]: a finished game as reported ([`settle::GameReport`]), its validation,
//!   and what settling it does ([`settle::plan`]);
//! - [`grant`]: an operator's grant of silver;
//! - [`audit`]: operator actions as the audit trail keeps them;
//! - [`tournament`]: tournament money: entry fees, refunds and prizes, their checked
//!   requests and the rules that refuse them.

pub mod audit;
pub mod caps;
pub mod day;
pub mod grant;
pub mod rating;
pub mod settle;
pub mod titles;
pub mod tournament;

use gamehub_proto::common;
use gamehub_proto::ledger as pb;
use gamehub_terms::games::{self, Game};
use serde::Serialize;

use crate::error::LedgerError;

/// The most characters an id (player, game, table, room, request) may have.
pub use gamehub_terms::ids::MAX_ID_LEN;

/// A player's id: 1–64 ASCII letters, digits and `-_.:@` (the `sub` of its token).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct PlayerId(String);

impl PlayerId {
    /// Checks `value` as the field `field`.
    pub fn parse(field: &str, value: &str) -> Result<Self, LedgerError> {
        let value = gamehub_platform::error::id(field, value, MAX_ID_LEN)?;
        Ok(Self(value.to_owned()))
    }

    /// The id.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for PlayerId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A game the ledger settles: its registry entry. The stored code is the proto's
/// `GameType` (its one definition); the database stores it as it is and interprets none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GameType(&'static Game);

impl GameType {
    /// The game of a registry entry.
    pub fn of(game: &'static Game) -> Self {
        Self(game)
    }

    /// The registry's entry: seats, roles, lineups, what the ledger checks.
    pub fn game(self) -> &'static Game {
        self.0
    }

    /// Every game type, in the order accounts list them (the registry's).
    pub fn all() -> impl Iterator<Item = GameType> {
        games::GAMES.into_iter().map(GameType)
    }

    /// The game type of an API code (None for unspecified and unknown codes).
    pub fn from_proto(code: i32) -> Option<Self> {
        common::GameType::try_from(code)
            .ok()
            .and_then(games::by_type)
            .map(GameType)
    }

    /// The API code.
    pub fn to_proto(self) -> common::GameType {
        self.0.game_type
    }

    /// The stored code.
    pub fn code(self) -> i16 {
        self.0.game_type as i16
    }

    /// The game type of a stored code.
    pub fn from_code(code: i16) -> Option<Self> {
        Self::from_proto(i32::from(code))
    }
}

// The proto variant's name (`Gomoku`), as a settlement's canonical form has always
// written it: changing it would make earlier settlements' retries conflict.
impl Serialize for GameType {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&format_args!("{:?}", self.0.game_type))
    }
}

/// The part a player held in a game (the registry lists each game's). The codes are the
/// proto's, stored as they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Role(pb::Role);

impl Role {
    /// The role of an API code, if some game has it (never `ROLE_UNSPECIFIED`).
    pub fn from_proto(code: i32) -> Option<Self> {
        let role = pb::Role::try_from(code).ok()?;
        games::by_role(role).map(|_| Role(role))
    }

    /// The API code.
    pub fn to_proto(self) -> pb::Role {
        self.0
    }

    /// The stored code.
    pub fn code(self) -> i16 {
        self.0 as i16
    }

    /// The role of a stored code.
    pub fn from_code(code: i16) -> Option<Self> {
        Self::from_proto(i32::from(code))
    }
}

impl From<pb::Role> for Role {
    fn from(role: pb::Role) -> Self {
        Role(role)
    }
}

// The proto variant's name (`Black`), as a settlement's canonical form has always
// written it.
impl Serialize for Role {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&format_args!("{:?}", self.0))
    }
}

/// What a game meant for one player. The codes are the proto's, stored as they are; what
/// an outcome counts is [`Outcome::counts`], computed here and passed to the settlement
/// SQL, which interprets no code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Outcome {
    /// Won.
    Win = pb::PlayerOutcome::Win as isize,
    /// Lost.
    Loss = pb::PlayerOutcome::Loss as isize,
    /// Drawn.
    Draw = pb::PlayerOutcome::Draw as isize,
    /// Left mid-game (逃跑) and pays the penalty.
    Escape = pb::PlayerOutcome::Escape as isize,
    /// Voided because another player escaped: counts nothing.
    Void = pb::PlayerOutcome::Void as isize,
}

/// What one game adds to a player's counts in its game type (`standings`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    /// Games won.
    pub wins: i64,
    /// Games lost (escapes are counted apart).
    pub losses: i64,
    /// Games drawn.
    pub draws: i64,
    /// Games left mid-game.
    pub escapes: i64,
    /// Games counted (every outcome but a void).
    pub games: i64,
}

impl Outcome {
    /// The stored code.
    pub fn code(self) -> i16 {
        self as i16
    }

    /// The outcome of a stored code.
    pub fn from_code(code: i16) -> Option<Self> {
        Outcome::ALL.into_iter().find(|o| o.code() == code)
    }

    /// Every outcome.
    pub const ALL: [Outcome; 5] = [
        Outcome::Win,
        Outcome::Loss,
        Outcome::Draw,
        Outcome::Escape,
        Outcome::Void,
    ];

    /// What this outcome adds to the player's counts: one win, loss, draw or escape and
    /// one game; a void adds nothing.
    pub fn counts(self) -> Counts {
        let one = |outcome| i64::from(self == outcome);
        Counts {
            wins: one(Outcome::Win),
            losses: one(Outcome::Loss),
            draws: one(Outcome::Draw),
            escapes: one(Outcome::Escape),
            games: i64::from(self != Outcome::Void),
        }
    }
}

/// What changed, in a history row. The codes are the proto's, stored as they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum HistoryKind {
    /// Silver moved.
    Silver = pb::HistoryKind::Silver as isize,
    /// Points changed.
    Points = pb::HistoryKind::Points as isize,
    /// The title changed (values are levels).
    Title = pb::HistoryKind::Title as isize,
    /// A rated Gomoku game (the rating may be unchanged).
    Rating = pb::HistoryKind::Rating as isize,
}

impl HistoryKind {
    /// The stored code.
    pub fn code(self) -> i16 {
        self as i16
    }

    /// Every kind.
    pub const ALL: [HistoryKind; 4] = [
        HistoryKind::Silver,
        HistoryKind::Points,
        HistoryKind::Title,
        HistoryKind::Rating,
    ];

    /// The kind of a stored code.
    pub fn from_code(code: i16) -> Option<Self> {
        HistoryKind::ALL.into_iter().find(|k| k.code() == code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_the_protos() {
        for outcome in Outcome::ALL {
            let code = pb::PlayerOutcome::try_from(i32::from(outcome.code())).unwrap();
            assert_ne!(code, pb::PlayerOutcome::Unspecified);
            assert_eq!(Outcome::from_code(outcome.code()), Some(outcome));
        }
        assert_eq!(Outcome::from_code(0), None);
        assert_eq!(Outcome::Escape.code(), pb::PlayerOutcome::Escape as i16);
        for game_type in GameType::all() {
            assert_eq!(game_type.code(), game_type.game().game_type as i16);
            assert_eq!(GameType::from_code(game_type.code()), Some(game_type));
            for &role in game_type.game().roles {
                assert_eq!(Role::from(role).code(), role as i16);
                assert_eq!(Role::from_code(role as i16), Some(Role::from(role)));
            }
        }
        assert_eq!(GameType::from_code(0), None);
        assert_eq!(Role::from_code(0), None);
        assert_eq!(HistoryKind::Rating.code(), pb::HistoryKind::Rating as i16);
    }

    #[test]
    fn each_outcome_counts_once_and_a_void_counts_nothing() {
        let counts = |outcome: Outcome| {
            let c = outcome.counts();
            [c.wins, c.losses, c.draws, c.escapes, c.games]
        };
        assert_eq!(counts(Outcome::Win), [1, 0, 0, 0, 1]);
        assert_eq!(counts(Outcome::Loss), [0, 1, 0, 0, 1]);
        assert_eq!(counts(Outcome::Draw), [0, 0, 1, 0, 1]);
        assert_eq!(counts(Outcome::Escape), [0, 0, 0, 1, 1]);
        assert_eq!(counts(Outcome::Void), [0, 0, 0, 0, 0]);
    }
}
