//! Matchmaking's errors in its own words, and their one mapping to gRPC statuses.
//!
//! Every FAILED_PRECONDITION starts with a stable code and a colon, as the games' do
//! (docs/rules.md#stable-error-codes): `live_ticket`, `already_seated`, `ticket_ended`,
//! and `not_eligible` followed by the ledger's reason code
//! ([`gamehub_platform::eligibility::refusal_code`]).

use gamehub_platform::ApiError;
use gamehub_platform::error::excerpt;

/// Why a matchmaking call was refused.
#[derive(Debug, thiserror::Error)]
pub enum MatchmakingError {
    /// No room has this id.
    #[error("unknown room {}; ListRooms names the rooms", excerpt(.0))]
    UnknownRoom(String),
    /// The ticket id is not one this service makes.
    #[error(
        "ticket_id: {} is not a ticket id (they look like gomoku-renju.0193…)",
        excerpt(.0)
    )]
    MalformedTicketId(String),
    /// No such ticket (or it ended more than the retention time ago).
    #[error("unknown ticket {0}")]
    UnknownTicket(String),
    /// The player has a live ticket already.
    #[error(
        "live_ticket: player {player} already has a live ticket {ticket_id}; cancel it or wait for it to end"
    )]
    LiveTicket {
        /// The player.
        player: String,
        /// The live ticket.
        ticket_id: String,
    },
    /// The player still sits at a table that is going on.
    #[error(
        "already_seated: player {player} still sits at {game} table {table_id}; leave that table before enqueueing again"
    )]
    Seated {
        /// The player.
        player: String,
        /// The game service.
        game: &'static str,
        /// The table.
        table_id: String,
    },
    /// The room's queue is at its limit.
    #[error("room {room} has {max} players waiting, its limit; retry shortly")]
    QueueFull {
        /// The room.
        room: String,
        /// The limit.
        max: u64,
    },
    /// The request id made a ticket for another room.
    #[error(
        "request_id {} already made ticket {ticket_id} for another room; use a new request id",
        excerpt(request_id)
    )]
    RequestIdReused {
        /// The request id.
        request_id: String,
        /// The ticket it made.
        ticket_id: String,
    },
    /// The ticket ended otherwise; it cannot be cancelled.
    #[error("ticket_ended: ticket {ticket_id} already ended ({state}); there is nothing to cancel")]
    AlreadyEnded {
        /// The ticket.
        ticket_id: String,
        /// Its final state.
        state: &'static str,
    },
    /// The player sits at a friends' table.
    #[error(
        "already_seated: player {player} sits at the friends' table {code}; leave it (LeaveFriendsTable) first"
    )]
    AtFriendsTable {
        /// The player.
        player: String,
        /// The table's code.
        code: String,
    },
    /// A friends' table refusal (its message starts with its code).
    #[error(transparent)]
    Friends(#[from] crate::friends::Refusal),
    /// Too many unknown codes tried.
    #[error(
        "too_many_codes: too many unknown friends' table codes tried; wait {} s and check the code",
        .retry_after.as_secs().max(1)
    )]
    TooManyCodes {
        /// When the limit lifts.
        retry_after: std::time::Duration,
    },
    /// Paid rooms' friends' tables are off.
    #[error(
        "paid_friends_tables_off: the room {0} is paid and this platform does not run paid friends' tables; pick a free room"
    )]
    PaidFriendsTablesOff(String),
    /// The platform's limit of open friends' tables.
    #[error("friends_tables_full: {0} friends' tables are open, the limit; retry later")]
    TooManyFriendsTables(u64),
    /// Removal between the two games of a pair.
    #[error(
        "pair_unfinished: the two games of the pair at the friends' table {0} are not both played; remove the player after the second"
    )]
    PairUnfinished(String),
    /// A dependency did not answer.
    #[error("{0}")]
    Unavailable(String),
    /// A platform-level refusal (bad field, permission, Redis).
    #[error(transparent)]
    Api(#[from] ApiError),
}

impl From<MatchmakingError> for ApiError {
    fn from(err: MatchmakingError) -> Self {
        use MatchmakingError as E;
        match err {
            E::UnknownRoom(_) | E::UnknownTicket(_) => ApiError::NotFound(err.to_string()),
            E::MalformedTicketId(_) => ApiError::InvalidArgument(err.to_string()),
            E::LiveTicket { .. }
            | E::Seated { .. }
            | E::AlreadyEnded { .. }
            | E::AtFriendsTable { .. }
            | E::PaidFriendsTablesOff(_)
            | E::PairUnfinished(_) => ApiError::FailedPrecondition(err.to_string()),
            E::Friends(ref refusal) => match refusal {
                crate::friends::Refusal::UnknownCode(_) => ApiError::NotFound(err.to_string()),
                crate::friends::Refusal::NotOwner { .. } => {
                    ApiError::PermissionDenied(err.to_string())
                }
                crate::friends::Refusal::NoSuchSeat { .. } => {
                    ApiError::InvalidArgument(err.to_string())
                }
                _ => ApiError::FailedPrecondition(err.to_string()),
            },
            E::TooManyCodes { retry_after } => ApiError::ResourceExhausted {
                message: err.to_string(),
                retry_after: Some(retry_after),
            },
            E::TooManyFriendsTables(_) => ApiError::ResourceExhausted {
                message: err.to_string(),
                retry_after: Some(std::time::Duration::from_secs(30)),
            },
            E::QueueFull { .. } => ApiError::ResourceExhausted {
                message: err.to_string(),
                retry_after: Some(std::time::Duration::from_secs(5)),
            },
            E::RequestIdReused { .. } => ApiError::AlreadyExists(err.to_string()),
            E::Unavailable(message) => ApiError::Unavailable(message),
            E::Api(api) => api,
        }
    }
}

impl From<MatchmakingError> for tonic::Status {
    fn from(err: MatchmakingError) -> Self {
        ApiError::from(err).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/rules.md");
        std::fs::read_to_string(path).expect("docs/rules.md")
    }

    /// The code a refusal's message starts with, if it has one.
    fn code_of(message: &str) -> Option<&str> {
        let (code, _) = message.split_once(": ")?;
        code.chars()
            .all(|c| c.is_ascii_lowercase() || c == '_')
            .then_some(code)
    }

    #[test]
    fn every_refusal_starts_with_a_documented_code() {
        let rules = rules();
        let refusals = [
            MatchmakingError::LiveTicket {
                player: "ann".into(),
                ticket_id: "gomoku-free.0193".into(),
            },
            MatchmakingError::Seated {
                player: "ann".into(),
                game: "gomoku",
                table_id: "gt-1".into(),
            },
            MatchmakingError::AlreadyEnded {
                ticket_id: "gomoku-free.0193".into(),
                state: "seated",
            },
        ];
        let mut codes = Vec::new();
        for refusal in refusals {
            let status = tonic::Status::from(refusal);
            assert_eq!(status.code(), tonic::Code::FailedPrecondition);
            let code = code_of(status.message())
                .unwrap_or_else(|| panic!("no code: {}", status.message()));
            assert!(
                rules.contains(&format!("| `{code}` |")),
                "{code} is not in docs/rules.md#stable-error-codes"
            );
            codes.push(code.to_owned());
        }
        assert_eq!(codes, ["live_ticket", "already_seated", "ticket_ended"]);
        use crate::friends::Refusal as R;
        let friends = [
            MatchmakingError::from(R::UnknownCode("K7QX2M".into())),
            R::Closed("K7QX2M".into()).into(),
            R::Full("K7QX2M".into()).into(),
            R::SeatTaken {
                code: "K7QX2M".into(),
                seat: 1,
            }
            .into(),
            R::GameInProgress("K7QX2M".into(), "join between games").into(),
            R::NotSeated {
                code: "K7QX2M".into(),
                player: "ann".into(),
            }
            .into(),
            R::NotOwner {
                code: "K7QX2M".into(),
                owner: "ann".into(),
                what: "close the table",
            }
            .into(),
            R::BotsFreeRoomsOnly("gomoku-renju".into()).into(),
            MatchmakingError::TooManyCodes {
                retry_after: std::time::Duration::from_secs(60),
            },
            MatchmakingError::PaidFriendsTablesOff("gomoku-renju".into()),
            MatchmakingError::PairUnfinished("K7QX2M".into()),
            MatchmakingError::TooManyFriendsTables(10_000),
            MatchmakingError::AtFriendsTable {
                player: "ann".into(),
                code: "K7QX2M".into(),
            },
        ];
        for refusal in friends {
            let status = tonic::Status::from(refusal);
            let code = code_of(status.message())
                .unwrap_or_else(|| panic!("no code: {}", status.message()));
            assert!(
                rules.contains(&format!("| `{code}` |")),
                "{code} is not in docs/rules.md#stable-error-codes"
            );
        }
        for refusal in 0..=3 {
            let code = gamehub_platform::eligibility::refusal_code(refusal);
            if refusal > 0 {
                assert!(rules.contains(&format!("| `{code}` |")), "{code}");
            }
        }
    }
}
