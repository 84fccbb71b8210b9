//! Page tokens: opaque to clients, bound to the query they continue.
//!
//! A token carries the query's scope (whose list, which filter) and the last position
//! returned; a token presented with another scope is refused rather than silently
//! continuing a different list.

use crate::error::LedgerError;

/// The longest token accepted.
const MAX_TOKEN_CHARS: usize = 512;

/// The token continuing `scope` after `position`.
pub fn encode(scope: &str, position: i64) -> String {
    hex::encode(format!("v1|{scope}|{position}"))
}

/// The position a token continues after, or `None` for the first page (empty token).
pub fn decode(field: &str, token: &str, scope: &str) -> Result<Option<i64>, LedgerError> {
    if token.is_empty() {
        return Ok(None);
    }
    let malformed = || {
        LedgerError::invalid(
            field,
            "is not a token this list returned; start again with an empty token",
        )
    };
    if token.len() > MAX_TOKEN_CHARS {
        return Err(malformed());
    }
    let bytes = hex::decode(token).map_err(|_| malformed())?;
    let text = String::from_utf8(bytes).map_err(|_| malformed())?;
    let rest = text.strip_prefix("v1|").ok_or_else(malformed)?;
    let (token_scope, position) = rest.rsplit_once('|').ok_or_else(malformed)?;
    if token_scope != scope {
        return Err(LedgerError::invalid(
            field,
            "belongs to a different query (another player or filter); start again with an empty token",
        ));
    }
    position.parse().map(Some).map_err(|_| malformed())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_round_trips_in_its_scope_only() {
        let token = encode("history:alice:0", 42);
        assert_eq!(
            decode("page_token", &token, "history:alice:0").unwrap(),
            Some(42)
        );
        assert_eq!(decode("page_token", "", "history:alice:0").unwrap(), None);
        let err = decode("page_token", &token, "history:bob:0").unwrap_err();
        assert!(err.to_string().contains("different query"));
        assert!(decode("page_token", "zz", "history:alice:0").is_err());
        assert!(
            decode(
                "page_token",
                &hex::encode("v1|history:alice:0|x"),
                "history:alice:0"
            )
            .is_err()
        );
    }
}
