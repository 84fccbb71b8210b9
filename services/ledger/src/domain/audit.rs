//! The operator audit trail's terms: what an operator did ([`Action`]), who asked, why
//! and under which request id ([`Audit`]), and the canonical payload a retry under the
//! same id must repeat ([`ActionRequest::sha256`]).

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::PlayerId;
use gamehub_proto::ledger as pb;

/// The longest reason an operator may give (shared with the game services).
pub use gamehub_terms::operators::MAX_REASON_CHARS;

/// The kinds of operator action; stored as the API's `OperatorActionKind` codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum ActionKind {
    /// Silver granted.
    GrantSilver,
    /// A professional dan set or cleared.
    SetProfessional,
    /// A player's name set or cleared by an operator.
    SetName,
    /// A table closed at a game service.
    CloseTable,
    /// Dead letters put back into a game service's outbox.
    Redeliver,
}

impl ActionKind {
    /// Every kind, in code order.
    pub const ALL: [ActionKind; 5] = [
        ActionKind::GrantSilver,
        ActionKind::SetProfessional,
        ActionKind::SetName,
        ActionKind::CloseTable,
        ActionKind::Redeliver,
    ];

    /// The API's enum value.
    pub fn to_proto(self) -> pb::OperatorActionKind {
        match self {
            ActionKind::GrantSilver => pb::OperatorActionKind::GrantSilver,
            ActionKind::SetProfessional => pb::OperatorActionKind::SetProfessional,
            ActionKind::SetName => pb::OperatorActionKind::SetName,
            ActionKind::CloseTable => pb::OperatorActionKind::CloseTable,
            ActionKind::Redeliver => pb::OperatorActionKind::Redeliver,
        }
    }

    /// The kind of an API enum value; None for unspecified or unknown values.
    pub fn from_proto(value: i32) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.to_proto() as i32 == value)
    }

    /// The stored code (the API's enum value).
    pub fn code(self) -> i16 {
        self.to_proto() as i16
    }

    /// The kind of a stored code.
    pub fn from_code(code: i16) -> Option<Self> {
        Self::from_proto(i32::from(code))
    }

    /// Whether a game service records it (through `RecordOperatorAction`) rather than
    /// the ledger in the transaction of the change.
    pub fn recorded_by_game_services(self) -> bool {
        matches!(self, ActionKind::CloseTable | ActionKind::Redeliver)
    }
}

/// What an operator did, with its target and what it asked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Action {
    /// Silver added to a player.
    GrantSilver {
        /// Who received it.
        player_id: PlayerId,
        /// How much.
        amount_silver: i64,
    },
    /// A professional dan set (1–9) or cleared (0).
    SetProfessional {
        /// The player.
        player_id: PlayerId,
        /// The dan set, 0 to clear.
        professional_dan: u8,
    },
    /// A name set, or cleared (`None`).
    SetName {
        /// The player.
        player_id: PlayerId,
        /// The name set (NFC, checked).
        name: Option<String>,
    },
    /// A table closed.
    CloseTable {
        /// The table.
        table_id: String,
    },
    /// One game's dead letter, or (`None`) every dead letter of the recording service,
    /// delivered again.
    Redeliver {
        /// The game, or `None` for all.
        game_id: Option<String>,
    },
}

impl Action {
    /// Its kind.
    pub fn kind(&self) -> ActionKind {
        match self {
            Action::GrantSilver { .. } => ActionKind::GrantSilver,
            Action::SetProfessional { .. } => ActionKind::SetProfessional,
            Action::SetName { .. } => ActionKind::SetName,
            Action::CloseTable { .. } => ActionKind::CloseTable,
            Action::Redeliver { .. } => ActionKind::Redeliver,
        }
    }
}

/// Who asked for an action, why, and under which request id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Audit {
    /// The idempotency key of the action's row.
    pub request_id: String,
    /// The subject of the operator's token.
    pub operator: String,
    /// Why, 1–[`MAX_REASON_CHARS`] characters.
    pub reason: String,
}

/// An action as asked for: what, and the audit's why (the payload a retry repeats).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ActionRequest<'a> {
    /// What.
    pub action: &'a Action,
    /// Why.
    pub reason: &'a str,
}

impl ActionRequest<'_> {
    /// The SHA-256 of the canonical payload. The operator is not part of it (a retry by
    /// another operator is the same action), as with grants.
    pub fn sha256(&self) -> [u8; 32] {
        let canonical = serde_json::to_vec(self).unwrap_or_default();
        Sha256::digest(&canonical).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_through_their_codes() {
        for kind in ActionKind::ALL {
            assert_eq!(ActionKind::from_code(kind.code()), Some(kind));
        }
        assert_eq!(ActionKind::from_proto(0), None);
        assert_eq!(ActionKind::from_proto(99), None);
    }

    #[test]
    fn the_payload_hash_covers_what_and_why_but_not_who() {
        let close = Action::CloseTable {
            table_id: "t1".into(),
        };
        let other = Action::CloseTable {
            table_id: "t2".into(),
        };
        let a = ActionRequest {
            action: &close,
            reason: "stuck",
        };
        assert_eq!(a.sha256(), a.clone().sha256());
        assert_ne!(
            a.sha256(),
            ActionRequest {
                action: &other,
                reason: "stuck"
            }
            .sha256()
        );
        assert_ne!(
            a.sha256(),
            ActionRequest {
                action: &close,
                reason: "stuck again"
            }
            .sha256()
        );
    }
}
