//! The ledger's errors, in its own words, and their one mapping to API errors.

use gamehub_platform::ApiError;

/// What can go wrong in the ledger.
#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    /// A request field is missing, malformed or inconsistent; the message says what to fix.
    #[error("{field}: {problem}")]
    Invalid {
        /// The field, as named in the proto (e.g. `players[1].role`).
        field: String,
        /// What is wrong with it.
        problem: String,
    },
    /// The named game or player is unknown.
    #[error("{0}")]
    NotFound(String),
    /// The id is already used by a different request.
    #[error("{0}")]
    Conflict(String),
    /// The game was settled before with a different result; `response` is the encoded
    /// `SettleGameResponse` of that first settlement (what the ledger paid), sent back
    /// beside the ALREADY_EXISTS so the table can adopt it.
    #[error(
        "game {game_id} was already settled with a different request; a game id settles one game (the first settlement is in the {} metadata)",
        gamehub_platform::error::SETTLED_RESPONSE_BIN
    )]
    SettledDifferently {
        /// The game.
        game_id: String,
        /// The first settlement's response, encoded.
        response: Vec<u8>,
    },
    /// The caller may not do this.
    #[error("{0}")]
    Forbidden(String),
    /// The player may not do this now (CheckEligibility's refusals, and an entry fee
    /// above the balance): FAILED_PRECONDITION `not_eligible: <reason>: <message>`, the
    /// reason being the refusal's stable code
    /// ([`gamehub_platform::eligibility::refusal_code`]), as the game services word it.
    #[error(
        "not_eligible: {}: {message}",
        gamehub_platform::eligibility::refusal_code(*refusal as i32)
    )]
    NotEligible {
        /// Why.
        refusal: gamehub_proto::ledger::Refusal,
        /// The sentence for the player.
        message: String,
    },
    /// The request is well-formed but the ledger's state does not allow it (e.g. a
    /// refund above what was paid, prizes not summing to the pool); the message says
    /// what the state is.
    #[error("{0}")]
    Precondition(String),
    /// Already an API error (from the platform's auth and field checks).
    #[error(transparent)]
    Api(#[from] ApiError),
    /// PostgreSQL failed.
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    /// A concurrent change overtook this one; retrying will do (and, after the bounded
    /// retries, the client may).
    #[error("{0}")]
    Contended(String),
    /// Stored data that cannot be what this code wrote (a bug or tampering).
    #[error("corrupt ledger data: {0}")]
    Corrupt(String),
}

impl LedgerError {
    /// An [`LedgerError::Invalid`] for `field`.
    pub fn invalid(field: impl Into<String>, problem: impl Into<String>) -> Self {
        Self::Invalid {
            field: field.into(),
            problem: problem.into(),
        }
    }

    /// The error as the client sees it. Database failures count against the `postgres`
    /// dependency; connection trouble is UNAVAILABLE (retry), anything else INTERNAL,
    /// whose details are logged with an incident id and never sent.
    pub fn into_api(self) -> ApiError {
        match self {
            LedgerError::Invalid { .. } => ApiError::InvalidArgument(self.to_string()),
            LedgerError::NotFound(message) => ApiError::NotFound(message),
            LedgerError::Conflict(message) => ApiError::AlreadyExists(message),
            LedgerError::SettledDifferently { .. } => ApiError::AlreadyExists(self.to_string()),
            LedgerError::Forbidden(message) => ApiError::PermissionDenied(message),
            LedgerError::NotEligible { .. } => ApiError::FailedPrecondition(self.to_string()),
            LedgerError::Precondition(message) => ApiError::FailedPrecondition(message),
            LedgerError::Api(api) => api,
            LedgerError::Contended(why) => {
                ApiError::Aborted(format!("a concurrent change got in the way ({why}); retry"))
            }
            LedgerError::Database(err) => {
                gamehub_platform::metrics::dependency_error("postgres");
                if is_unavailable(&err) {
                    tracing::warn!(error = %err, "postgres unavailable");
                    ApiError::Unavailable(
                        "the ledger database is unavailable; retry shortly".into(),
                    )
                } else {
                    ApiError::internal(anyhow::Error::new(err).context("postgres"))
                }
            }
            LedgerError::Corrupt(what) => {
                ApiError::internal(anyhow::anyhow!("corrupt ledger data: {what}"))
            }
        }
    }
}

impl From<LedgerError> for tonic::Status {
    fn from(err: LedgerError) -> Self {
        let first = match &err {
            LedgerError::SettledDifferently { response, .. } => Some(response.clone()),
            _ => None,
        };
        let mut status: tonic::Status = err.into_api().into();
        if let Some(bytes) = first {
            status.metadata_mut().insert_bin(
                gamehub_platform::error::SETTLED_RESPONSE_BIN,
                tonic::metadata::MetadataValue::from_bytes(&bytes),
            );
        }
        status
    }
}

/// The SQLSTATE of a database error, if it is one.
pub fn sqlstate(err: &sqlx::Error) -> Option<String> {
    match err {
        sqlx::Error::Database(db) => db.code().map(|c| c.into_owned()),
        _ => None,
    }
}

/// Whether a database error is connection trouble (the server is down, restarting,
/// shutting down or refusing connections) rather than the statement's own failure.
pub fn is_unavailable(err: &sqlx::Error) -> bool {
    match err {
        sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::Io(_)
        | sqlx::Error::Tls(_) => true,
        // Class 08: connection exceptions; 57P01–57P03: admin/crash shutdown, cannot
        // connect now (starting up, or a standby not yet accepting reads).
        sqlx::Error::Database(_) => sqlstate(err).is_some_and(|code| {
            code.starts_with("08") || matches!(code.as_str(), "57P01" | "57P02" | "57P03")
        }),
        _ => false,
    }
}

/// Whether retrying the whole transaction may succeed: serialization failures,
/// deadlocks, and a unique violation on an idempotency key (a concurrent duplicate won;
/// the retry finds its result).
pub fn is_retryable(err: &LedgerError) -> bool {
    match err {
        LedgerError::Database(db) => {
            matches!(sqlstate(db).as_deref(), Some("40001" | "40P01" | "23505"))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic::Code;

    #[test]
    fn each_error_has_its_code() {
        let status: tonic::Status = LedgerError::invalid("players", "needs 2 entries").into();
        assert_eq!(status.code(), Code::InvalidArgument);
        assert_eq!(status.message(), "players: needs 2 entries");
        let status: tonic::Status = LedgerError::Conflict("used".into()).into();
        assert_eq!(status.code(), Code::AlreadyExists);
        let status: tonic::Status = LedgerError::Database(sqlx::Error::PoolTimedOut).into();
        assert_eq!(status.code(), Code::Unavailable);
        let status: tonic::Status =
            LedgerError::Database(sqlx::Error::Protocol("secret detail".into())).into();
        assert_eq!(status.code(), Code::Internal);
        assert!(!status.message().contains("secret detail"));
        let status: tonic::Status = LedgerError::NotEligible {
            refusal: gamehub_proto::ledger::Refusal::InsufficientBalance,
            message: "balance 5 silver is below the entry fee of 10 silver".into(),
        }
        .into();
        assert_eq!(status.code(), Code::FailedPrecondition);
        assert_eq!(
            status.message(),
            "not_eligible: insufficient_balance: balance 5 silver is below the entry fee of 10 silver"
        );
        let status: tonic::Status = LedgerError::Precondition("pool holds 3".into()).into();
        assert_eq!(
            (status.code(), status.message()),
            (Code::FailedPrecondition, "pool holds 3")
        );
    }
}
