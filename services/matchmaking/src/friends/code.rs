//! Friends' table codes: 6 characters of an alphabet without look-alikes (no 0/O, 1/I/L),
//! drawn from a cryptographically secure generator seeded by the operating system
//! (`rand::rng()`), and read back from what a player
//! typed (any case, spaces and dashes ignored).

use rand::Rng;

/// The characters codes are made of: digits 2–9 and the letters without I, L and O.
pub const ALPHABET: &[u8; 31] = b"23456789ABCDEFGHJKMNPQRSTUVWXYZ";

/// Characters per code.
pub const LEN: usize = 6;

/// The most characters a typed code may have before it is read (spaces included).
pub const MAX_TYPED_LEN: usize = 16;

/// A new code.
pub fn draw() -> String {
    let mut rng = rand::rng();
    (0..LEN)
        .map(|_| char::from(ALPHABET[rng.random_range(0..ALPHABET.len())]))
        .collect()
}

/// The code a player typed, in its one spelling; None when it cannot be a code (a
/// character outside the alphabet, or not 6 of them).
pub fn read(typed: &str) -> Option<String> {
    let code: String = typed
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .map(|c| c.to_ascii_uppercase())
        .collect();
    let valid = code.len() == LEN && code.bytes().all(|b| ALPHABET.contains(&b));
    valid.then_some(code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_alphabet_has_no_look_alikes_and_no_repeats() {
        for c in b"01ILO" {
            assert!(!ALPHABET.contains(c), "{}", char::from(*c));
        }
        let mut sorted = ALPHABET.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 31);
    }

    #[test]
    fn typed_codes_read_in_any_case_with_spaces_and_dashes() {
        assert_eq!(read("k7q x2m").as_deref(), Some("K7QX2M"));
        assert_eq!(read(" K7Q-X2M ").as_deref(), Some("K7QX2M"));
        assert_eq!(read("K7QX2"), None);
        assert_eq!(read("K7QX2MM"), None);
        // 0, O, 1, I and L are never issued.
        assert_eq!(read("K7QX20"), None);
        assert_eq!(read("K7QXIM"), None);
        assert_eq!(read("K7QX2楼"), None);
    }

    proptest! {
        #[test]
        fn every_drawn_code_reads_as_itself(_round in 0..200u32) {
            let code = draw();
            prop_assert_eq!(code.len(), LEN);
            prop_assert_eq!(read(&code.to_lowercase()), Some(code));
        }
    }
}
