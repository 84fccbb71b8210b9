//! The one mapping from service errors to gRPC statuses.
//!
//! Each service has its own `thiserror` enum in the game's words and converts it into
//! an [`ApiError`] in one function; [`ApiError`] becomes a [`tonic::Status`] here.
//! Messages of client errors say what to fix. Internal errors (SQL, Redis, bugs) are
//! logged with their context and an incident id, and the client sees only
//! "internal error (incident …)", never the internals. A message that quotes what a
//! client sent quotes it through [`excerpt`] (short and escaped), and every message is
//! bounded ([`MAX_STATUS_MESSAGE_BYTES`]): statuses travel in HTTP/2 headers.

use std::fmt;
use std::sync::OnceLock;
use std::time::Duration;

use tonic::{Code, Status};

/// An error as the client will see it.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The request is malformed: a missing field, an off-board point, an unknown enum.
    #[error("{0}")]
    InvalidArgument(String),
    /// The thing named does not exist (unknown table, ticket, game, player).
    #[error("{0}")]
    NotFound(String),
    /// The request is well formed but not allowed in the current state (not your turn,
    /// wrong phase, cards not in hand, insufficient balance).
    #[error("{0}")]
    FailedPrecondition(String),
    /// The id is already used by a different request.
    #[error("{0}")]
    AlreadyExists(String),
    /// No or bad credentials.
    #[error("{0}")]
    Unauthenticated(String),
    /// Valid credentials that may not do this.
    #[error("{0}")]
    PermissionDenied(String),
    /// A concurrent change won; the client may retry.
    #[error("{0}")]
    Aborted(String),
    /// A limit was hit; `retry_after` says when to try again, when known.
    #[error("{message}")]
    ResourceExhausted {
        /// What limit, in words.
        message: String,
        /// When trying again may succeed.
        retry_after: Option<Duration>,
    },
    /// A dependency (Redis, PostgreSQL, another service) is not answering; retry later.
    #[error("{0}")]
    Unavailable(String),
    /// Not now, for a known reason that passes: a dependency briefly unable to answer
    /// (Redis loading its data after a restart, a failover in progress) or an answer
    /// that waits for something under way (the ledger settling the game that just
    /// ended: `settling: …`). UNAVAILABLE with a `retry-after-ms` hint; nothing changed.
    #[error("{message}")]
    UnavailableFor {
        /// What is unavailable or awaited, in words (after a stable code where one exists).
        message: String,
        /// When trying again may succeed.
        retry_after: Duration,
    },
    /// A bug or an unexpected failure. The source is logged, never sent.
    #[error("internal error: {0:#}")]
    Internal(anyhow::Error),
}

/// The metadata key carrying a retry hint in milliseconds on `RESOURCE_EXHAUSTED` and
/// on `UNAVAILABLE` when the cause is known to pass ([`ApiError::UnavailableFor`]).
pub const RETRY_AFTER_MS: &str = "retry-after-ms";

/// The binary metadata key on the ledger's ALREADY_EXISTS answer to a `SettleGame`
/// whose game was settled before with a different result: the encoded
/// `gamehub.ledger.v1.SettleGameResponse` of that first settlement (what the ledger
/// paid). The settler adopts it.
pub const SETTLED_RESPONSE_BIN: &str = "settled-response-bin";

impl ApiError {
    /// An internal error with its context; it is logged when turned into a status.
    pub fn internal(err: impl Into<anyhow::Error>) -> Self {
        Self::Internal(err.into())
    }

    /// The gRPC code of this error.
    pub fn code(&self) -> Code {
        match self {
            Self::InvalidArgument(_) => Code::InvalidArgument,
            Self::NotFound(_) => Code::NotFound,
            Self::FailedPrecondition(_) => Code::FailedPrecondition,
            Self::AlreadyExists(_) => Code::AlreadyExists,
            Self::Unauthenticated(_) => Code::Unauthenticated,
            Self::PermissionDenied(_) => Code::PermissionDenied,
            Self::Aborted(_) => Code::Aborted,
            Self::ResourceExhausted { .. } => Code::ResourceExhausted,
            Self::Unavailable(_) | Self::UnavailableFor { .. } => Code::Unavailable,
            Self::Internal(_) => Code::Internal,
        }
    }
}

impl From<ApiError> for Status {
    fn from(err: ApiError) -> Self {
        match err {
            ApiError::Internal(source) => {
                let incident = uuid::Uuid::new_v4().simple().to_string();
                let incident = &incident[..12];
                tracing::error!(incident, error = format!("{source:#}"), "internal error");
                Status::internal(format!(
                    "internal error (incident {incident}); the operators have the details"
                ))
            }
            ApiError::ResourceExhausted {
                message,
                retry_after,
            } => with_retry_hint(Status::resource_exhausted(bounded(message)), retry_after),
            ApiError::UnavailableFor {
                message,
                retry_after,
            } => with_retry_hint(Status::unavailable(bounded(message)), Some(retry_after)),
            other => {
                let code = other.code();
                Status::new(code, bounded(other.to_string()))
            }
        }
    }
}

/// The longest status message sent, in bytes: a last guard for the HTTP/2 header that
/// carries it (messages quote client input only through [`excerpt`], so a real message
/// is far shorter).
pub const MAX_STATUS_MESSAGE_BYTES: usize = 1024;

fn bounded(mut message: String) -> String {
    if message.len() > MAX_STATUS_MESSAGE_BYTES {
        let mut end = MAX_STATUS_MESSAGE_BYTES - '…'.len_utf8();
        while !message.is_char_boundary(end) {
            end -= 1;
        }
        message.truncate(end);
        message.push('…');
    }
    message
}

fn with_retry_hint(mut status: Status, retry_after: Option<Duration>) -> Status {
    if let Some(after) = retry_after {
        let ms = after.as_millis().max(1).to_string();
        if let Ok(value) = ms.parse() {
            status.metadata_mut().insert(RETRY_AFTER_MS, value);
        }
    }
    status
}

/// The retry hint sent with a transient Redis condition: about how long a failover,
/// a resharding step or a reconnection takes. (Loading a large data set takes longer;
/// clients then simply retry again.)
pub const REDIS_RETRY_AFTER: Duration = Duration::from_millis(500);

/// Why Redis cannot answer now but will soon, in the client's words; None when the
/// error is not transient (a bug, a script error, a wrong type: INTERNAL).
///
/// Transient: I/O errors, dropped connections and timeouts (Redis restarting or
/// unreachable), and the server's own "not now" answers: `LOADING` (reading its data
/// after a restart), `TRYAGAIN`, `CLUSTERDOWN`, `MASTERDOWN`, `READONLY` (a failover
/// demoted the node), `MOVED`/`ASK` (slots moving; this client does not follow them).
pub fn redis_transient(err: &redis::RedisError) -> Option<&'static str> {
    use redis::{ErrorKind, ServerErrorKind};
    if err.is_io_error() || err.is_connection_dropped() || err.is_timeout() {
        return Some("live state store unavailable");
    }
    let reason = match err.kind() {
        ErrorKind::Server(ServerErrorKind::BusyLoading) => "live state store is loading its data",
        ErrorKind::Server(
            ServerErrorKind::TryAgain
            | ServerErrorKind::ClusterDown
            | ServerErrorKind::MasterDown
            | ServerErrorKind::ReadOnly
            | ServerErrorKind::Moved
            | ServerErrorKind::Ask,
        ) => "live state store is failing over or resharding",
        // Codes a newer server or a proxy may send that this client does not know by
        // kind (and the known ones, should a reply carry them as plain text).
        _ => match err.code() {
            Some("LOADING") => "live state store is loading its data",
            Some("TRYAGAIN" | "CLUSTERDOWN" | "MASTERDOWN" | "READONLY" | "MOVED" | "ASK") => {
                "live state store is failing over or resharding"
            }
            _ => return None,
        },
    };
    Some(reason)
}

/// Who is told of each failed dependency call mapped here (`"redis"`): the metrics,
/// once [`crate::metrics::install`] registered them. An observer rather than a call,
/// so this module stays at the bottom of the crate and names no metric.
static DEPENDENCY_FAILURES: OnceLock<fn(&str)> = OnceLock::new();

/// Registers `observer` to hear of every failed dependency call this module maps into
/// an [`ApiError`], by the dependency's name. The first registration stays.
pub fn observe_dependency_failures(observer: fn(&str)) {
    let _ = DEPENDENCY_FAILURES.set(observer);
}

fn dependency_failed(dependency: &str) {
    if let Some(observer) = DEPENDENCY_FAILURES.get() {
        observer(dependency);
    }
}

/// Redis failures are unavailability from the client's point of view when they pass
/// ([`redis_transient`]: UNAVAILABLE with a retry hint), internal errors otherwise;
/// the details go to the log.
impl From<redis::RedisError> for ApiError {
    fn from(err: redis::RedisError) -> Self {
        dependency_failed("redis");
        tracing::warn!(error = %err, "redis error");
        match redis_transient(&err) {
            Some(reason) => ApiError::UnavailableFor {
                message: format!("{reason}; retry in {} ms", REDIS_RETRY_AFTER.as_millis()),
                retry_after: REDIS_RETRY_AFTER,
            },
            None => ApiError::Internal(err.into()),
        }
    }
}

/// A helper to build `InvalidArgument` errors that name the field.
pub fn invalid(field: &str, problem: impl fmt::Display) -> ApiError {
    ApiError::InvalidArgument(format!("{field}: {problem}"))
}

/// The most characters of client input an error message quotes (see [`excerpt`]).
pub const EXCERPT_CHARS: usize = 24;

/// Client input as an error message may quote it: in double quotes, escaped (control
/// characters, quotes and backslashes as Rust escapes them), at most [`EXCERPT_CHARS`]
/// characters, and when longer followed by `…` and the input's length in characters.
///
/// Status messages travel in HTTP/2 headers, where standard clients fail past a few
/// KiB; echoing input whole would let a client turn its own refusal into a transport
/// error. Every message that quotes what a client sent quotes it through this.
pub fn excerpt(input: &str) -> String {
    let mut out = String::with_capacity(EXCERPT_CHARS + 2);
    out.push('"');
    let mut chars = input.chars();
    for c in chars.by_ref().take(EXCERPT_CHARS) {
        out.extend(c.escape_debug());
    }
    out.push('"');
    if chars.next().is_some() {
        out.push_str(&format!("… ({} characters)", input.chars().count()));
    }
    out
}

/// Checks a required string field: present, not longer than `max` characters.
pub fn required<'a>(field: &str, value: &'a str, max: usize) -> Result<&'a str, ApiError> {
    let trimmed = value.trim();
    if trimmed.is_empty() {
        return Err(invalid(field, "is required"));
    }
    if trimmed.chars().count() > max {
        return Err(invalid(field, format!("is longer than {max} characters")));
    }
    Ok(trimmed)
}

/// Checks an id field: 1–`max` characters of ASCII letters, digits, `-`, `_`, `.`, `:`,
/// `@` (the rule is [`gamehub_terms::ids::check`]).
pub fn id<'a>(field: &str, value: &'a str, max: usize) -> Result<&'a str, ApiError> {
    gamehub_terms::ids::check(value, max).map_err(|problem| invalid(field, problem))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_errors_hide_their_source() {
        let status: Status =
            ApiError::internal(anyhow::anyhow!("relation \"accounts\" does not exist")).into();
        assert_eq!(status.code(), Code::Internal);
        assert!(!status.message().contains("accounts"));
        assert!(status.message().contains("incident"));
    }

    #[test]
    fn resource_exhausted_carries_a_retry_hint() {
        let status: Status = ApiError::ResourceExhausted {
            message: "too many requests".into(),
            retry_after: Some(Duration::from_millis(250)),
        }
        .into();
        assert_eq!(status.code(), Code::ResourceExhausted);
        assert_eq!(
            status
                .metadata()
                .get(RETRY_AFTER_MS)
                .and_then(|v| v.to_str().ok()),
            Some("250")
        );
    }

    fn server_error(code: &str, detail: &str) -> redis::RedisError {
        // How redis-rs reads an error reply off the wire.
        let reply = format!("-{code} {detail}\r\n");
        match redis::parse_redis_value(reply.as_bytes()).and_then(redis::Value::extract_error) {
            Err(e) => e,
            Ok(value) => panic!("{code} parsed as {value:?}"),
        }
    }

    #[test]
    fn transient_redis_conditions_are_unavailable_with_a_hint() {
        for code in [
            "LOADING",
            "TRYAGAIN",
            "CLUSTERDOWN",
            "MASTERDOWN",
            "READONLY",
            "MOVED",
            "ASK",
        ] {
            let err = server_error(code, "3999 127.0.0.1:6381");
            let status: Status = ApiError::from(err).into();
            assert_eq!(status.code(), Code::Unavailable, "{code}");
            assert_eq!(
                status
                    .metadata()
                    .get(RETRY_AFTER_MS)
                    .and_then(|v| v.to_str().ok()),
                Some("500"),
                "{code}"
            );
        }
        for code in ["ERR", "WRONGTYPE", "NOSCRIPT", "NOPERM"] {
            let status: Status = ApiError::from(server_error(code, "whatever")).into();
            assert_eq!(status.code(), Code::Internal, "{code}");
        }
    }

    #[test]
    fn settling_is_unavailable_with_a_retry_hint() {
        let status: Status = ApiError::UnavailableFor {
            message: "settling: wait".into(),
            retry_after: Duration::from_millis(250),
        }
        .into();
        assert_eq!(status.code(), Code::Unavailable);
        assert_eq!(status.message(), "settling: wait");
        assert_eq!(
            status
                .metadata()
                .get(RETRY_AFTER_MS)
                .and_then(|v| v.to_str().ok()),
            Some("250")
        );
    }

    #[test]
    fn excerpts_are_short_and_escaped() {
        assert_eq!(excerpt("h8"), "\"h8\"");
        assert_eq!(excerpt("a\"b\nc"), "\"a\\\"b\\nc\"");
        let long = "x".repeat(100_000);
        let quoted = excerpt(&long);
        assert_eq!(
            quoted,
            format!("\"{}\"… (100000 characters)", "x".repeat(EXCERPT_CHARS))
        );
        // Escapes lengthen a character, never past a small bound.
        assert!(excerpt(&"\u{1}".repeat(1000)).len() < 10 * EXCERPT_CHARS + 40);
    }

    #[test]
    fn status_messages_are_bounded() {
        let status: Status = invalid("content", "é".repeat(5000)).into();
        assert!(status.message().len() <= MAX_STATUS_MESSAGE_BYTES);
        assert!(status.message().starts_with("content: é"));
        assert!(status.message().ends_with('…'));
    }

    #[test]
    fn ids_are_checked() {
        assert!(id("table_id", "t-1", 64).is_ok());
        assert!(id("table_id", "", 64).is_err());
        assert!(id("table_id", "a b", 64).is_err());
        assert!(id("table_id", &"x".repeat(65), 64).is_err());
    }
}
