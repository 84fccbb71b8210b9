//! The ledger's rules, apart from transport and storage: plain data and pure functions,
//! property-tested. Nothing here knows gRPC or SQL.
//!
//! - [`caps`]: the win/loss caps and the zero-sum, maximal, fair clamping of a game's silver;
//! - [`titles`]: the 18 titles points give;
//! - [`rating`]: Gomoku rating arithmetic and rank names;
//! - [`day`]: the cap day in the configured time zone;
//! - [`settle`]: a finished game as reported ([`settle::GameReport`]), its validation,
//!   and what settling it does ([`settle::plan`]);
//! - [`grant`]: an operator's grant of silver.

pub mod caps;
pub mod day;
pub mod grant;
pub mod rating;
pub mod settle;
pub mod titles;

use serde::Serialize;

use crate::error::LedgerError;

/// The most characters an id (player, game, table, room, request) may have.
pub const MAX_ID_LEN: usize = 64;

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

/// The games the ledger settles. The codes are the proto's and the database's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum GameType {
    /// Gomoku / Renju (五子棋).
    Gomoku = 1,
    /// Dou Dizhu (斗地主).
    Doudizhu = 2,
}

impl GameType {
    /// Every game type, in the order accounts list them.
    pub const ALL: [GameType; 2] = [GameType::Gomoku, GameType::Doudizhu];

    /// The stored code.
    pub fn code(self) -> i16 {
        self as i16
    }

    /// The game type of a stored code.
    pub fn from_code(code: i16) -> Option<Self> {
        match code {
            1 => Some(GameType::Gomoku),
            2 => Some(GameType::Doudizhu),
            _ => None,
        }
    }
}

/// The seat a player held. The codes are the proto's and the database's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Role {
    /// Gomoku: black at the end of the game.
    Black = 1,
    /// Gomoku: white at the end of the game.
    White = 2,
    /// Dou Dizhu: the landlord (地主).
    Landlord = 3,
    /// Dou Dizhu: a farmer (农民).
    Farmer = 4,
    /// Dou Dizhu: a seat of a deal that ended before a landlord was chosen.
    Bidder = 5,
}

impl Role {
    /// The stored code.
    pub fn code(self) -> i16 {
        self as i16
    }

    /// The role of a stored code.
    pub fn from_code(code: i16) -> Option<Self> {
        match code {
            1 => Some(Role::Black),
            2 => Some(Role::White),
            3 => Some(Role::Landlord),
            4 => Some(Role::Farmer),
            5 => Some(Role::Bidder),
            _ => None,
        }
    }
}

/// What a game meant for one player. The codes are the proto's and the database's; the
/// settlement SQL (`ledger_apply_settlement`, migration 0004) counts wins, losses, draws,
/// escapes and games by these codes itself, so they must not change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Outcome {
    /// Won.
    Win = 1,
    /// Lost.
    Loss = 2,
    /// Drawn.
    Draw = 3,
    /// Left mid-game (逃跑) and pays the penalty.
    Escape = 4,
    /// Voided because another player escaped: counts nothing.
    Void = 5,
}

impl Outcome {
    /// The stored code.
    pub fn code(self) -> i16 {
        self as i16
    }

    /// The outcome of a stored code.
    pub fn from_code(code: i16) -> Option<Self> {
        match code {
            1 => Some(Outcome::Win),
            2 => Some(Outcome::Loss),
            3 => Some(Outcome::Draw),
            4 => Some(Outcome::Escape),
            5 => Some(Outcome::Void),
            _ => None,
        }
    }
}

/// What changed, in a history row. The codes are the proto's and the database's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum HistoryKind {
    /// Silver moved.
    Silver = 1,
    /// Points changed.
    Points = 2,
    /// The title changed (values are levels).
    Title = 3,
    /// A rated Gomoku game (the rating may be unchanged).
    Rating = 4,
}

impl HistoryKind {
    /// The stored code.
    pub fn code(self) -> i16 {
        self as i16
    }

    /// The kind of a stored code.
    pub fn from_code(code: i16) -> Option<Self> {
        match code {
            1 => Some(HistoryKind::Silver),
            2 => Some(HistoryKind::Points),
            3 => Some(HistoryKind::Title),
            4 => Some(HistoryKind::Rating),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ledger_apply_settlement` counts standings by code: 1 win, 2 loss, 3 draw,
    /// 4 escape, and every outcome but 5 (void) as a game.
    #[test]
    fn outcome_codes_are_the_ones_the_settlement_sql_counts_by() {
        let outcomes = [
            (Outcome::Win, 1),
            (Outcome::Loss, 2),
            (Outcome::Draw, 3),
            (Outcome::Escape, 4),
            (Outcome::Void, 5),
        ];
        for (outcome, code) in outcomes {
            assert_eq!(outcome.code(), code, "{outcome:?}");
            assert_eq!(Outcome::from_code(code), Some(outcome));
        }
    }
}
