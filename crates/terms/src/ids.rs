//! What an id may hold: players (a token's `sub`), tables, games, requests ([`check`]),
//! and rooms ([`RoomId`]).

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

/// The most characters a room id may have.
pub const MAX_ROOM_ID_LEN: usize = 32;

/// A room's id, e.g. `gomoku-renju`: 1 to [`MAX_ROOM_ID_LEN`] characters of `a-z`, `0-9`
/// and `-`. The one bound and alphabet of a room id everywhere: the rooms file, Enqueue,
/// every request's stakes, the ledger's games. It is a room's Redis hash tag and a ticket
/// id's prefix, so it is parsed once, at the edge, and trusted inside.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(try_from = "String", into = "String")]
pub struct RoomId(String);

/// Why a text is not a room id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum RoomIdError {
    /// Empty (or only blanks).
    #[error("is required")]
    Empty,
    /// Longer than [`MAX_ROOM_ID_LEN`].
    #[error("is longer than {MAX_ROOM_ID_LEN} characters")]
    TooLong,
    /// A character outside `a-z`, `0-9` and `-`.
    #[error("may contain only a-z, 0-9 and '-'")]
    BadCharacter,
}

impl RoomId {
    /// Checks a room id, surrounding blanks ignored.
    pub fn parse(value: &str) -> Result<Self, RoomIdError> {
        let value = value.trim();
        if value.is_empty() {
            return Err(RoomIdError::Empty);
        }
        if value.len() > MAX_ROOM_ID_LEN {
            return Err(RoomIdError::TooLong);
        }
        if !value
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        {
            return Err(RoomIdError::BadCharacter);
        }
        Ok(Self(value.to_owned()))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for RoomId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for RoomId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for RoomId {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

/// Read back from storage (tables in Redis, stored settlements): a stored id passed the
/// check of its day, and ids were once any id of at most [`MAX_ID_LEN`] characters of
/// ASCII letters, digits and `- _ . : @`. So a stored id is read by that older, wider
/// check: a table stored then is never lost to the stricter one. New ids from a request
/// or a rooms file go through [`RoomId::parse`].
impl TryFrom<String> for RoomId {
    type Error = IdError;

    fn try_from(value: String) -> Result<Self, IdError> {
        check(&value, MAX_ID_LEN).map(|id| Self(id.to_owned()))
    }
}

impl From<RoomId> for String {
    fn from(id: RoomId) -> String {
        id.0
    }
}

impl PartialEq<str> for RoomId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for RoomId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_room_id_is_short_lower_case_ascii_with_dashes() {
        assert_eq!(RoomId::parse(" gomoku-renju ").unwrap(), "gomoku-renju");
        assert_eq!(RoomId::parse(""), Err(RoomIdError::Empty));
        assert_eq!(RoomId::parse(&"r".repeat(32)).unwrap().len(), 32);
        assert_eq!(RoomId::parse(&"r".repeat(33)), Err(RoomIdError::TooLong));
        for bad in ["Gomoku", "gomoku_renju", "gomoku.renju", "五子棋", "a b"] {
            assert_eq!(RoomId::parse(bad), Err(RoomIdError::BadCharacter), "{bad}");
        }
        // Stored as plain text, and read back only when valid.
        let id = RoomId::parse("friends-room-2").unwrap();
        assert_eq!(serde_json::to_string(&id).unwrap(), "\"friends-room-2\"");
        assert_eq!(
            serde_json::from_str::<RoomId>("\"friends-room-2\"").unwrap(),
            id
        );
        assert!(serde_json::from_str::<RoomId>("\"Bad Room\"").is_err());
        // A table stored when room ids were any plain id still loads.
        let stored: RoomId = serde_json::from_str("\"Legacy_Room.1\"").unwrap();
        assert_eq!(stored, "Legacy_Room.1");
    }

    #[test]
    fn ids_are_short_plain_ascii() {
        assert_eq!(check(" alice@x.y:1_2-3 ", 64), Ok("alice@x.y:1_2-3"));
        assert_eq!(check("  ", 64), Err(IdError::Empty));
        assert_eq!(check("abcd", 3), Err(IdError::TooLong(3)));
        assert_eq!(check("a b", 64), Err(IdError::BadCharacter));
        assert_eq!(check("玩家", 64), Err(IdError::BadCharacter));
    }
}
