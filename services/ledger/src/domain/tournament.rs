//! Tournament money: entry fees into a tournament's pool, refunds out of it, prizes
//! paying it out (the tournament service's `HoldEntryFee`, `RefundEntryFee`,
//! `PayPrizes`). The checked requests, their canonical payloads (a retry under the same
//! request id must repeat it) and the rules each call is refused by.

use gamehub_proto::ledger as pb;
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::PlayerId;
use crate::error::LedgerError;

/// The most characters a tournament id may have.
pub const MAX_TOURNAMENT_ID_LEN: usize = 40;
/// The most one entry fee or refund may move.
pub const MAX_FEE_SILVER: i64 = 1_000_000_000;
/// The most prizes one `PayPrizes` may pay.
pub const MAX_PRIZES: usize = 64;
/// The longest reason kept (as for grants).
pub use super::audit::MAX_REASON_CHARS;
/// What a pool's account id starts with; the tournament id follows.
pub const POOL_PREFIX: &str = "#tournament:";

/// A tournament's id: 1–[`MAX_TOURNAMENT_ID_LEN`] ASCII letters, digits and `-_.:@`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct TournamentId(String);

impl TournamentId {
    /// Checks `value` as the field `field`.
    pub fn parse(field: &str, value: &str) -> Result<Self, LedgerError> {
        let value = gamehub_platform::error::id(field, value, MAX_TOURNAMENT_ID_LEN)?;
        Ok(Self(value.to_owned()))
    }

    /// The id.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The account of its pool: `#tournament:<id>`.
    pub fn pool_account(&self) -> String {
        format!("{POOL_PREFIX}{}", self.0)
    }
}

impl std::fmt::Display for TournamentId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The three calls; stored as the transfer's and the request row's `kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum TournamentKind {
    /// A player's entry fee into the pool.
    EntryFee,
    /// An entry fee given back out of the pool.
    Refund,
    /// The pool paid out as prizes.
    Prizes,
}

impl TournamentKind {
    /// The stored word (`transfers.kind`, `tournament_requests.kind`).
    pub fn code(self) -> &'static str {
        match self {
            TournamentKind::EntryFee => "entry_fee",
            TournamentKind::Refund => "refund",
            TournamentKind::Prizes => "prizes",
        }
    }

    /// What a player's history row says, before the request's reason.
    pub fn history_prefix(self) -> &'static str {
        match self {
            TournamentKind::EntryFee => "tournament entry fee",
            TournamentKind::Refund => "tournament refund",
            TournamentKind::Prizes => "tournament prize",
        }
    }

    /// The history row's reason for a request's `reason`.
    pub fn history_reason(self, reason: &str) -> String {
        format!("{}: {reason}", self.history_prefix())
    }
}

/// Which way a one-player call moves silver.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum FeeMove {
    /// Player → pool (`HoldEntryFee`).
    Hold,
    /// Pool → player (`RefundEntryFee`).
    Refund,
}

impl FeeMove {
    /// Its kind.
    pub fn kind(self) -> TournamentKind {
        match self {
            FeeMove::Hold => TournamentKind::EntryFee,
            FeeMove::Refund => TournamentKind::Refund,
        }
    }
}

/// A checked `HoldEntryFee` or `RefundEntryFee`: one player, one amount.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FeeRequest {
    /// Hold or refund (part of the payload: the same fields under the same id as the
    /// other call are a different request).
    pub direction: FeeMove,
    /// The idempotency key.
    pub request_id: String,
    /// The tournament.
    pub tournament_id: TournamentId,
    /// Who pays, or gets it back.
    pub player_id: PlayerId,
    /// How much, 1..=[`MAX_FEE_SILVER`].
    pub amount_silver: i64,
    /// What the player's history says (after "tournament entry fee: " or "tournament
    /// refund: ").
    pub reason: String,
}

impl FeeRequest {
    /// The SHA-256 of the canonical request.
    pub fn sha256(&self) -> [u8; 32] {
        sha256_of(self)
    }
}

/// One prize of a checked `PayPrizes`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Prize {
    /// Who wins it.
    pub player_id: PlayerId,
    /// How much, 1 or more.
    pub amount_silver: i64,
}

/// A checked `PayPrizes`: each player at most once, at most [`MAX_PRIZES`], each amount
/// 1 or more, their sum fitting in an `i64`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PrizesRequest {
    /// The idempotency key.
    pub request_id: String,
    /// The tournament.
    pub tournament_id: TournamentId,
    /// The prizes in the request's order (the answer keeps it).
    pub prizes: Vec<Prize>,
    /// What the winners' history says (after "tournament prize: ").
    pub reason: String,
}

impl PrizesRequest {
    /// The SHA-256 of the canonical request (the order of the prizes is part of it).
    pub fn sha256(&self) -> [u8; 32] {
        sha256_of(self)
    }

    /// The sum of the prizes (checked when parsed to fit).
    pub fn total_silver(&self) -> i64 {
        self.prizes
            .iter()
            .fold(0i64, |sum, p| sum.saturating_add(p.amount_silver))
    }
}

fn sha256_of(value: &impl Serialize) -> [u8; 32] {
    let canonical = serde_json::to_vec(value).unwrap_or_default();
    Sha256::digest(&canonical).into()
}

/// `HoldEntryFee`'s rule: a player whose balance is below the fee is not eligible
/// (FAILED_PRECONDITION `not_eligible: insufficient_balance: …`, as CheckEligibility's
/// refusals read at the game services).
pub fn check_fee(balance_silver: i64, fee_silver: i64) -> Result<(), LedgerError> {
    if balance_silver < fee_silver {
        return Err(LedgerError::NotEligible {
            refusal: pb::Refusal::InsufficientBalance,
            message: format!(
                "balance {balance_silver} silver is below the entry fee of {fee_silver} silver"
            ),
        });
    }
    Ok(())
}

/// `RefundEntryFee`'s rule: a player gets back at most what it paid into this pool,
/// net of its earlier refunds (`refundable_silver`), and never more than the pool holds
/// (after the prizes, nothing).
pub fn check_refund(
    tournament: &TournamentId,
    player: &PlayerId,
    amount_silver: i64,
    refundable_silver: i64,
    pool_silver: i64,
) -> Result<(), LedgerError> {
    if amount_silver > refundable_silver {
        return Err(LedgerError::Precondition(format!(
            "{player} may get back at most {refundable_silver} silver from tournament {tournament} \
             (its entry fees net of refunds); {amount_silver} silver was asked"
        )));
    }
    if amount_silver > pool_silver {
        return Err(LedgerError::Precondition(format!(
            "the pool of tournament {tournament} holds {pool_silver} silver, less than the \
             {amount_silver} silver refund asked (were its prizes paid?)"
        )));
    }
    Ok(())
}

/// `PayPrizes`' rule: the prizes sum to exactly what the pool holds, so it ends empty.
pub fn check_prizes(
    tournament: &TournamentId,
    total_silver: i64,
    pool_silver: i64,
) -> Result<(), LedgerError> {
    if total_silver != pool_silver {
        return Err(LedgerError::Precondition(format!(
            "the prizes sum to {total_silver} silver but the pool of tournament {tournament} \
             holds {pool_silver} silver; they must be equal"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fee(direction: FeeMove, amount_silver: i64) -> FeeRequest {
        FeeRequest {
            direction,
            request_id: "t1:fee:alice".into(),
            tournament_id: TournamentId::parse("tournament_id", "t1").unwrap(),
            player_id: PlayerId::parse("player_id", "alice").unwrap(),
            amount_silver,
            reason: "spring cup".into(),
        }
    }

    #[test]
    fn tournament_ids_are_short_ids_and_name_their_pool() {
        let id = TournamentId::parse("tournament_id", " cup-2025.spring:1@x_y ").unwrap();
        assert_eq!(id.as_str(), "cup-2025.spring:1@x_y");
        assert_eq!(id.pool_account(), "#tournament:cup-2025.spring:1@x_y");
        assert!(TournamentId::parse("tournament_id", &"a".repeat(40)).is_ok());
        for bad in ["", "  ", &"a".repeat(41), "cup 1", "cup#1", "杯"] {
            let err = TournamentId::parse("tournament_id", bad).unwrap_err();
            assert!(
                err.to_string().starts_with("tournament_id: "),
                "{bad:?}: {err}"
            );
        }
    }

    #[test]
    fn the_payload_hash_covers_the_direction_and_every_field() {
        let hold = fee(FeeMove::Hold, 100);
        assert_eq!(hold.sha256(), hold.clone().sha256());
        assert_ne!(hold.sha256(), fee(FeeMove::Refund, 100).sha256());
        assert_ne!(hold.sha256(), fee(FeeMove::Hold, 101).sha256());
        assert_ne!(
            hold.sha256(),
            FeeRequest {
                reason: "autumn cup".into(),
                ..hold.clone()
            }
            .sha256()
        );
        let prize = |player: &str, amount_silver| Prize {
            player_id: PlayerId::parse("player_id", player).unwrap(),
            amount_silver,
        };
        let prizes = PrizesRequest {
            request_id: "t1:prizes".into(),
            tournament_id: TournamentId::parse("tournament_id", "t1").unwrap(),
            prizes: vec![prize("alice", 70), prize("bob", 30)],
            reason: "spring cup".into(),
        };
        assert_eq!(prizes.total_silver(), 100);
        let mut swapped = prizes.clone();
        swapped.prizes.reverse();
        assert_ne!(prizes.sha256(), swapped.sha256());
    }

    #[test]
    fn each_rule_refuses_with_what_it_saw() {
        assert!(check_fee(100, 100).is_ok());
        let err = check_fee(99, 100).unwrap_err();
        let status: tonic::Status = err.into();
        assert_eq!(status.code(), tonic::Code::FailedPrecondition);
        assert_eq!(
            status.message(),
            "not_eligible: insufficient_balance: balance 99 silver is below the entry fee of 100 silver"
        );

        let t = TournamentId::parse("tournament_id", "t1").unwrap();
        let alice = PlayerId::parse("player_id", "alice").unwrap();
        assert!(check_refund(&t, &alice, 100, 100, 100).is_ok());
        let over = check_refund(&t, &alice, 101, 100, 500)
            .unwrap_err()
            .to_string();
        assert!(over.contains("at most 100 silver"), "{over}");
        let empty = check_refund(&t, &alice, 50, 100, 0)
            .unwrap_err()
            .to_string();
        assert!(empty.contains("holds 0 silver"), "{empty}");

        assert!(check_prizes(&t, 300, 300).is_ok());
        assert!(check_prizes(&t, 0, 0).is_ok());
        let status: tonic::Status = check_prizes(&t, 299, 300).unwrap_err().into();
        assert_eq!(status.code(), tonic::Code::FailedPrecondition);
        assert!(
            status.message().contains("299 silver") && status.message().contains("300 silver"),
            "{}",
            status.message()
        );
    }

    #[test]
    fn history_reasons_say_what_moved() {
        assert_eq!(
            TournamentKind::EntryFee.history_reason("spring cup"),
            "tournament entry fee: spring cup"
        );
        assert_eq!(
            TournamentKind::Refund.history_reason("x"),
            "tournament refund: x"
        );
        assert_eq!(
            TournamentKind::Prizes.history_reason("x"),
            "tournament prize: x"
        );
    }
}
