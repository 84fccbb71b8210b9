//! The ledger's word on whether a player may start a game in a room (the room's minimum
//! balance, and no game once a daily win or loss cap is reached: docs/rules.md). Asked
//! by matchmaking before it seats a player, and by the game services before a seated
//! player's next game at the same table — one question, asked the same way. Before a
//! next game the question waits for the ledger to have the game that just ended
//! ([`ensure_may_play_next`]): that game may be the one that reached a cap.

use gamehub_proto::common::RoomStakes;
use gamehub_proto::ledger::ledger_service_client::LedgerServiceClient;
use gamehub_proto::ledger::{CheckEligibilityRequest, Refusal};

use std::time::Duration;

use crate::ApiError;
use crate::client::ServiceChannel;
use crate::tables::TableStore;

/// The retry hint of a `settling:` answer: about one settler scan.
pub const SETTLING_RETRY_AFTER: Duration = Duration::from_millis(250);

/// The ledger's answer for one player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The player may start a game.
    Eligible,
    /// The player may not.
    Refused {
        /// `gamehub.ledger.v1.Refusal` code.
        refusal: i32,
        /// The ledger's sentence for the player.
        message: String,
    },
}

/// The stable code of a `gamehub.ledger.v1.Refusal` value, as it follows `not_eligible: `
/// in a refusal (docs/rules.md#stable-error-codes): the value's name without its prefix,
/// in lower case. An unknown value (a newer ledger) reads as `refused`.
pub fn refusal_code(refusal: i32) -> &'static str {
    match Refusal::try_from(refusal) {
        Ok(Refusal::InsufficientBalance) => "insufficient_balance",
        Ok(Refusal::DailyWinCap) => "daily_win_cap",
        Ok(Refusal::DailyLossCap) => "daily_loss_cap",
        Ok(Refusal::Unspecified) | Err(_) => "refused",
    }
}

impl Verdict {
    /// Ok when eligible; else FAILED_PRECONDITION `not_eligible: <reason>: <the ledger's
    /// sentence>`, the reason being [`refusal_code`].
    pub fn into_result(self) -> Result<(), ApiError> {
        match self {
            Verdict::Eligible => Ok(()),
            Verdict::Refused { refusal, message } => Err(ApiError::FailedPrecondition(format!(
                "not_eligible: {}: {message}",
                refusal_code(refusal)
            ))),
        }
    }
}

/// Asks the ledger whether `player_id` may start a game with these stakes. A failed
/// call is counted as a ledger dependency error and returned as it came.
pub async fn check(
    ledger: &LedgerServiceClient<ServiceChannel>,
    player_id: &str,
    stakes: RoomStakes,
) -> Result<Verdict, tonic::Status> {
    let response = ledger
        .clone()
        .check_eligibility(CheckEligibilityRequest {
            player_id: player_id.to_owned(),
            stakes: Some(stakes),
        })
        .await
        .inspect_err(|_| crate::metrics::dependency_error("ledger"))?
        .into_inner();
    Ok(if response.eligible {
        Verdict::Eligible
    } else {
        Verdict::Refused {
            refusal: response.refusal,
            message: response.message,
        }
    })
}

/// A game service's check before a seated player's next game: Ok when eligible;
/// FAILED_PRECONDITION with the ledger's reason when not; UNAVAILABLE when the ledger
/// cannot answer (nothing changed; retry).
///
/// In a free room (`silver_per_point` 0) the ledger is not asked: matchmaking found the
/// player eligible when it seated it, a player sits at one table at a time, and games
/// that move no silver change neither the balance nor the day's counters (a new day
/// only resets them), so the answer cannot have changed.
pub async fn ensure_may_play(
    ledger: &LedgerServiceClient<ServiceChannel>,
    player_id: &str,
    stakes: RoomStakes,
) -> Result<(), ApiError> {
    if stakes.silver_per_point == 0 {
        return Ok(());
    }
    match check(ledger, player_id, stakes).await {
        Ok(verdict) => verdict.into_result(),
        Err(status) => {
            tracing::warn!(code = ?status.code(), message = status.message(), "eligibility check failed");
            Err(ApiError::Unavailable(
                "the ledger cannot say now whether you may play another game; retry shortly".into(),
            ))
        }
    }
}

/// A game service's check before a seated player's next game at a table whose last
/// game is `last_game_id`: first that the ledger has acknowledged that game's
/// settlement — else UNAVAILABLE `settling: …` with a retry hint
/// ([`SETTLING_RETRY_AFTER`]), nothing changed — then [`ensure_may_play`]. Without the
/// wait, the ledger would judge the player on the day before that game, and a player
/// whose cap that very game reached could start one more.
///
/// Free rooms wait for nothing, for the reason [`ensure_may_play`] does not ask there.
/// A settlement the ledger refused (a dead letter, for an operator) is not waited for.
pub async fn ensure_may_play_next(
    store: &TableStore,
    ledger: &LedgerServiceClient<ServiceChannel>,
    table_id: &str,
    last_game_id: &str,
    player_id: &str,
    stakes: RoomStakes,
) -> Result<(), ApiError> {
    if stakes.silver_per_point == 0 {
        return Ok(());
    }
    if store.settlement_pending(table_id, last_game_id).await? {
        return Err(ApiError::UnavailableFor {
            message: "settling: the last game is not settled by the ledger yet; retry shortly"
                .into(),
            retry_after: SETTLING_RETRY_AFTER,
        });
    }
    ensure_may_play(ledger, player_id, stakes).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_carries_the_ledgers_sentence() {
        let refused = Verdict::Refused {
            refusal: 3,
            message: "today's losses reached the daily cap of 150000 silver".into(),
        };
        let error = refused.into_result().unwrap_err();
        assert_eq!(error.code(), tonic::Code::FailedPrecondition);
        assert_eq!(
            error.to_string(),
            "not_eligible: daily_loss_cap: today's losses reached the daily cap of 150000 silver"
        );
        assert!(Verdict::Eligible.into_result().is_ok());
    }

    #[test]
    fn every_refusal_has_its_own_code() {
        let codes: Vec<_> = [
            Refusal::InsufficientBalance,
            Refusal::DailyWinCap,
            Refusal::DailyLossCap,
        ]
        .into_iter()
        .map(|r| refusal_code(r as i32))
        .collect();
        assert_eq!(
            codes,
            ["insufficient_balance", "daily_win_cap", "daily_loss_cap"]
        );
        assert_eq!(refusal_code(0), "refused");
        assert_eq!(refusal_code(99), "refused");
    }

    fn stakes(silver_per_point: i64) -> RoomStakes {
        RoomStakes {
            room_id: "test-room".into(),
            points_base: 1,
            silver_per_point,
            min_balance_silver: 0,
            rated: false,
        }
    }

    #[tokio::test]
    async fn free_rooms_need_no_answer_and_paid_rooms_wait_for_one() {
        // A ledger nobody listens at.
        let unreachable = LedgerServiceClient::new(
            crate::client::service_channel(
                "http://127.0.0.1:1",
                crate::client::TokenSource::Static("t".into()),
                std::time::Duration::from_secs(2),
            )
            .unwrap(),
        );
        assert!(
            ensure_may_play(&unreachable, "alice", stakes(0))
                .await
                .is_ok()
        );
        let error = ensure_may_play(&unreachable, "alice", stakes(10))
            .await
            .unwrap_err();
        assert_eq!(error.code(), tonic::Code::Unavailable, "{error}");
    }
}
