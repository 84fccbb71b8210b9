//! [`RefereeError`], the referee's refusals in the game's words, and its one mapping to
//! the platform's [`ApiError`] (and so to gRPC statuses).

use gamehub_platform::ApiError;
use gomoku_rules::{GameError, Phase};

/// Why the referee refused a request. Nothing changed.
#[derive(Debug, thiserror::Error)]
pub enum RefereeError {
    /// A field of the request is malformed (INVALID_ARGUMENT).
    #[error("{field}: {problem}")]
    Invalid {
        /// The field, as named in the proto.
        field: String,
        /// What is wrong and what to send instead.
        problem: String,
    },
    /// The table does not exist (NOT_FOUND).
    #[error("no table {0}; it never existed or has been closed for a while")]
    UnknownTable(String),
    /// The caller holds no seat at the table (PERMISSION_DENIED).
    #[error(
        "player {player} does not sit at table {table_id}; a player acts only at its own table"
    )]
    NotSeated {
        /// The caller.
        player: String,
        /// The table.
        table_id: String,
    },
    /// The seat is the referee's bot's: nobody acts for it (PERMISSION_DENIED).
    #[error("seat {seat} of table {table_id} is played by the referee's bot; nobody acts for it")]
    BotSeat {
        /// The bot's seat.
        seat: u8,
        /// The table.
        table_id: String,
    },
    /// Only a player's token can act at a table (PERMISSION_DENIED).
    #[error(
        "{action} needs the token of a player seated at the table; this token's role is {role}"
    )]
    PlayersOnly {
        /// The RPC.
        action: &'static str,
        /// The caller's role.
        role: &'static str,
    },
    /// The rules refuse the action (FAILED_PRECONDITION).
    #[error("{}: {}", .0.code(), describe_rule_error(.0))]
    Rule(GameError),
    /// The caller's clock ran out before the action arrived: the game was lost on time
    /// (FAILED_PRECONDITION; the timeout has been applied).
    #[error("time_expired: the clock ran out before this action arrived; the game is lost on time")]
    TimeExpired,
    /// No game is being played at the table now (FAILED_PRECONDITION).
    #[error(
        "no_game_in_progress: game {number} is over; ask for the next game (NextGame) or leave"
    )]
    NoGameInProgress {
        /// The last game's number.
        number: u32,
    },
    /// A game is still being played (FAILED_PRECONDITION).
    #[error("game_in_progress: game {number} is still being played")]
    GameInProgress {
        /// The current game's number.
        number: u32,
    },
    /// The table is closed (FAILED_PRECONDITION).
    #[error("table_closed: the table is closed ({reason})")]
    TableClosed {
        /// Why it closed.
        reason: String,
    },
    /// No finished game with that number is kept here (NOT_FOUND).
    #[error("no finished game {number} at table {table_id}{hint}")]
    NoSuchGame {
        /// The table.
        table_id: String,
        /// The number asked for (0: the last one).
        number: u32,
        /// Where else to look.
        hint: &'static str,
    },
    /// The same request id opened another table (ALREADY_EXISTS).
    #[error(
        "request_id {0} already opened a table with other players or rules; use a new request_id"
    )]
    RequestReused(String),
}

/// The rule crate's words, made specific where the bare text would puzzle a player.
fn describe_rule_error(error: &GameError) -> String {
    match error {
        GameError::NotYourTurn => "it is not your turn".to_owned(),
        GameError::WrongPhase { phase } => match phase {
            Phase::Over => "the game is over".to_owned(),
            other => format!("not possible now: the game is waiting for {other}"),
        },
        other => other.to_string(),
    }
}

impl RefereeError {
    /// A malformed field.
    pub fn invalid(field: impl Into<String>, problem: impl std::fmt::Display) -> Self {
        Self::Invalid {
            field: field.into(),
            problem: problem.to_string(),
        }
    }
}

impl From<GameError> for RefereeError {
    fn from(error: GameError) -> Self {
        match error {
            GameError::TimeExpired { .. } => RefereeError::TimeExpired,
            other => RefereeError::Rule(other),
        }
    }
}

/// The one mapping from the referee's refusals to statuses.
impl From<RefereeError> for ApiError {
    fn from(error: RefereeError) -> Self {
        let message = error.to_string();
        match error {
            RefereeError::Invalid { .. } => ApiError::InvalidArgument(message),
            RefereeError::UnknownTable(_) | RefereeError::NoSuchGame { .. } => {
                ApiError::NotFound(message)
            }
            RefereeError::NotSeated { .. }
            | RefereeError::PlayersOnly { .. }
            | RefereeError::BotSeat { .. } => ApiError::PermissionDenied(message),
            RefereeError::Rule(_)
            | RefereeError::TimeExpired
            | RefereeError::NoGameInProgress { .. }
            | RefereeError::GameInProgress { .. }
            | RefereeError::TableClosed { .. } => ApiError::FailedPrecondition(message),
            RefereeError::RequestReused(_) => ApiError::AlreadyExists(message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gomoku_rules::Point;

    #[test]
    fn rule_refusals_start_with_a_stable_code() {
        let api: ApiError = RefereeError::from(GameError::Occupied {
            point: Point::CENTER,
        })
        .into();
        assert!(
            matches!(&api, ApiError::FailedPrecondition(m) if m == "occupied: h8 is already occupied")
        );
        let api: ApiError = RefereeError::from(GameError::NotYourTurn).into();
        assert_eq!(api.to_string(), "not_your_turn: it is not your turn");
    }

    #[test]
    fn a_late_action_reads_as_a_loss_on_time() {
        let api: ApiError = RefereeError::from(GameError::TimeExpired { deadline_ms: 5 }).into();
        assert!(matches!(api, ApiError::FailedPrecondition(m) if m.starts_with("time_expired")));
    }
}
