//! Grants: silver entering the system, by an operator, for a reason.

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::PlayerId;

/// The most one grant may add.
pub const MAX_GRANT_SILVER: i64 = 1_000_000_000;
/// The longest reason kept.
pub use super::audit::MAX_REASON_CHARS;

/// A checked grant request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Grant {
    /// The idempotency key.
    pub request_id: String,
    /// Who receives the silver.
    pub player_id: PlayerId,
    /// How much, 1..=[`MAX_GRANT_SILVER`].
    pub amount_silver: i64,
    /// Why, kept in the audit trail.
    pub reason: String,
}

impl Grant {
    /// The SHA-256 of the canonical request (the operator is not part of the payload: a
    /// retry by another operator is the same grant).
    pub fn sha256(&self) -> [u8; 32] {
        let canonical = serde_json::to_vec(self).unwrap_or_default();
        Sha256::digest(&canonical).into()
    }
}
