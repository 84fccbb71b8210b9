//! What an id may hold: players (a token's `sub`), tables, rooms, games, requests.

/// The most characters an id may have.
pub const MAX_ID_LEN: usize = 64;

/// Why a text is not an id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    /// Empty (or only blanks).
    #[error("is required")]
    Empty,
    /// Longer than allowed.
    #[error("is longer than {0} characters")]
    TooLong(usize),
    /// A character outside the allowed set.
    #[error("may contain only ASCII letters, digits and - _ . : @")]
    BadCharacter,
}

/// Checks an id of at most `max` characters: ASCII letters, digits and `- _ . : @`,
/// surrounding blanks ignored. Returns the id without them.
pub fn check(value: &str, max: usize) -> Result<&str, IdError> {
    let value = value.trim();
    if value.is_empty() {
        return Err(IdError::Empty);
    }
    if value.chars().count() > max {
        return Err(IdError::TooLong(max));
    }
    if !value
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':' | b'@'))
    {
        return Err(IdError::BadCharacter);
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_short_plain_ascii() {
        assert_eq!(check(" alice@x.y:1_2-3 ", 64), Ok("alice@x.y:1_2-3"));
        assert_eq!(check("  ", 64), Err(IdError::Empty));
        assert_eq!(check("abcd", 3), Err(IdError::TooLong(3)));
        assert_eq!(check("a b", 64), Err(IdError::BadCharacter));
        assert_eq!(check("玩家", 64), Err(IdError::BadCharacter));
    }
}
