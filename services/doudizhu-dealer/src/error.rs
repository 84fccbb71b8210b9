//! The dealer's errors, in the game's words, and their one mapping to API errors.
//!
//! No message names a card of anyone's hand or of the kitty: the rules crate's messages
//! name at most the public play on the table, and card-text parse errors quote at most
//! one character.
//!
//! Every refusal of the rules or of the table's state (FAILED_PRECONDITION, and the
//! rules' INVALID_ARGUMENT refusals of a play's cards) begins with a stable snake_case
//! code and a colon, like the Gomoku referee's: front-ends localize on the code. The
//! codes are listed in docs/rules.md (Stable error codes).

use doudizhu_rules::ActionError;
use doudizhu_rules::NewDealError;
use gamehub_platform::ApiError;

/// Why the dealer refused a request.
#[derive(Debug, thiserror::Error)]
pub enum DealerError {
    /// The rules refused the action (turn, phase, cards, combination, beating, bids).
    #[error("{}: {}", .0.code(), .0)]
    Rules(#[from] ActionError),
    /// A field of the request is malformed.
    #[error("{field}: {problem}")]
    Invalid {
        field: &'static str,
        problem: String,
    },
    #[error("no table {0}; it never existed or has expired")]
    NoTable(String),
    #[error("player {player} is not seated at table {table}")]
    NotSeated { player: String, table: String },
    #[error("{0} needs a player token of a player seated at the table")]
    PlayersOnly(&'static str),
    #[error("table_closed: the table is closed")]
    TableClosed,
    #[error("no_deal_in_progress: the deal is over; ask for the next deal with NextDeal")]
    DealOver,
    #[error("deal_in_progress: a deal is in progress; NextDeal is for after a deal ended")]
    DealInProgress,
    #[error(
        "deal_not_finished: deal {0} of this table is still being played; its record is available once it ends"
    )]
    DealNotFinished(u32),
    #[error("table {table} has no deal {deal}")]
    NoSuchDeal { table: String, deal: u32 },
    #[error(
        "deal {deal} is no longer kept at table {table}; a played deal is kept by the ledger (GetGameRecord, game id {table}:{deal})"
    )]
    RecordGone { table: String, deal: u32 },
    #[error("request_id {0} was already used to open a different table")]
    RequestIdReused(String),
    #[error(
        "test seeds are refused: this dealer does not run with GAMEHUB_DEALER_TEST_SEEDS=1 in development"
    )]
    TestSeedsRefused,
    /// A bot seat's moves are auto-play's: its own bids, plays and passes, and taking it
    /// off auto-play, are refused (seat number).
    #[error("bot_seat: seat {0} is played by the platform's bot, on auto-play for good")]
    BotSeat(u8),
    /// The next deal is not due (another step dealt it, or the table moved on).
    #[error("next_deal_not_due: the next deal is not due")]
    NotDue,
    /// A deal could not be made (a bug: the dealer builds its deal ids itself).
    #[error("cannot deal: {0}")]
    NewDeal(#[from] NewDealError),
    /// The first deal needs a seed (a bug).
    #[error("no seed for the first deal")]
    NoSeed,
}

impl DealerError {
    pub fn invalid(field: &'static str, problem: impl std::fmt::Display) -> DealerError {
        DealerError::Invalid {
            field,
            problem: problem.to_string(),
        }
    }
}

impl From<DealerError> for ApiError {
    fn from(error: DealerError) -> ApiError {
        let message = error.to_string();
        match error {
            DealerError::Rules(rule) => match rule {
                ActionError::EmptyPlay
                | ActionError::DuplicateCard
                | ActionError::InvalidCombination
                | ActionError::AmbiguousReading { .. }
                | ActionError::ReadingNotPossible
                | ActionError::BidOutOfRange(_) => ApiError::InvalidArgument(message),
                ActionError::GameOver
                | ActionError::WrongPhase { .. }
                | ActionError::NotYourTurn { .. }
                | ActionError::CardsNotInHand
                | ActionError::DoesNotBeat { .. }
                | ActionError::CannotPassOnLead
                | ActionError::WrongDecision { .. }
                | ActionError::BidNotHigher { .. } => ApiError::FailedPrecondition(message),
            },
            DealerError::Invalid { .. } => ApiError::InvalidArgument(message),
            DealerError::NoTable(_)
            | DealerError::NoSuchDeal { .. }
            | DealerError::RecordGone { .. } => ApiError::NotFound(message),
            DealerError::NotSeated { .. }
            | DealerError::PlayersOnly(_)
            | DealerError::TestSeedsRefused => ApiError::PermissionDenied(message),
            DealerError::TableClosed
            | DealerError::DealOver
            | DealerError::DealInProgress
            | DealerError::DealNotFinished(_)
            | DealerError::BotSeat(_)
            | DealerError::NotDue => ApiError::FailedPrecondition(message),
            DealerError::RequestIdReused(_) => ApiError::AlreadyExists(message),
            DealerError::NewDeal(_) | DealerError::NoSeed => {
                ApiError::internal(anyhow::anyhow!(message))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use doudizhu_rules::Phase;

    use super::*;

    fn message(error: DealerError) -> (tonic::Code, String) {
        let api = ApiError::from(error);
        (api.code(), api.to_string())
    }

    #[test]
    fn refusals_start_with_a_stable_code() {
        let cases = [
            (
                DealerError::Rules(ActionError::CannotPassOnLead),
                "cannot_pass_on_lead: you lead",
            ),
            (
                DealerError::Rules(ActionError::WrongPhase {
                    phase: Phase::Bidding,
                }),
                "wrong_phase: not possible during bidding",
            ),
            (
                DealerError::Rules(ActionError::CardsNotInHand),
                "cards_not_in_hand: ",
            ),
            (
                DealerError::Rules(ActionError::InvalidCombination),
                "invalid_combination: ",
            ),
            (DealerError::TableClosed, "table_closed: "),
            (DealerError::DealOver, "no_deal_in_progress: "),
            (DealerError::DealInProgress, "deal_in_progress: "),
            (DealerError::DealNotFinished(2), "deal_not_finished: deal 2"),
            (DealerError::BotSeat(1), "bot_seat: seat 1 "),
        ];
        for (error, start) in cases {
            let (code, text) = message(error);
            assert!(
                matches!(
                    code,
                    tonic::Code::FailedPrecondition | tonic::Code::InvalidArgument
                ),
                "{code:?}"
            );
            assert!(
                text.starts_with(start),
                "{text:?} should start with {start:?}"
            );
        }
    }
}
