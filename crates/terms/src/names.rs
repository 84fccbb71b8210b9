//! Display names (昵称, docs/rules.md#names): what a player may be called, checked and
//! normalised here and nowhere else. The ledger stores names through [`DisplayName`];
//! every other service shows what the ledger stored.
//!
//! A name is normalised to NFC first (so `Zoe` + U+0308 and `Zoë` are one name, stored
//! one way), then checked: 1 to [`MAX_NAME_CHARS`] Unicode scalar values; no control
//! characters (tab, newline, …), no line or paragraph separators, no invisible formatting
//! characters (general category Cf: bidirectional overrides and isolates, zero-width
//! spaces, the byte-order mark, …) except U+200D ZERO WIDTH JOINER, which emoji sequences
//! need; and no white space at either end. What arrives is at most
//! [`MAX_NAME_INPUT_BYTES`] bytes, checked before normalising, so normalisation never
//! works on more than that.

use std::fmt;

use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

/// The most characters (Unicode scalar values, after NFC) a name may have: 张三 is 2,
/// `Zoë` is 3, 👩‍💻 (woman, zero-width joiner, laptop) is 3.
pub const MAX_NAME_CHARS: usize = 12;

/// The most characters of a title or rank name shown beside a name (the longest the
/// platform makes is far shorter; services refuse longer ones).
pub const MAX_TITLE_CHARS: usize = 32;

/// How the player id of one of the platform's bots starts: a game service plays a seat
/// of such a player only (docs/rules.md#friends-tables).
pub const BOT_ID_PREFIX: &str = "bot-";

/// The most bytes of UTF-8 a request may send as a name, before it is normalised: 12
/// characters of up to 4 bytes each, with room for decomposed input.
pub const MAX_NAME_INPUT_BYTES: usize = 64;

/// U+200D ZERO WIDTH JOINER: the one invisible formatting character a name may hold,
/// because emoji sequences (👩‍💻, 👨‍👩‍👧) are joined by it.
const ZERO_WIDTH_JOINER: char = '\u{200D}';

/// A checked display name: NFC, 1 to [`MAX_NAME_CHARS`] characters, nothing invisible or
/// controlling in it, no white space at either end.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DisplayName(String);

/// Why a text is not a display name. Each reads as the sentence after `name: `.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// Nothing to check (a request clears a name by sending an empty one, which never
    /// reaches the check).
    #[error("is empty; send an empty name to clear it, or 1 to {MAX_NAME_CHARS} characters")]
    Empty,
    /// More bytes than a request may send.
    #[error("at most {MAX_NAME_INPUT_BYTES} bytes of UTF-8, this one has {0}")]
    InputTooLong(usize),
    /// More characters than a name may have, after NFC.
    #[error("at most {MAX_NAME_CHARS} characters, this one has {0}")]
    TooLong(usize),
    /// A control character (general category Cc), at a 1-based position.
    #[error("no control characters (tab, newline, …): remove {} at character {position}", code(*.found))]
    Control {
        /// The character.
        found: char,
        /// Where, counted from 1 in the normalised name.
        position: usize,
    },
    /// U+2028 LINE SEPARATOR or U+2029 PARAGRAPH SEPARATOR.
    #[error("no line or paragraph separators: remove {} at character {position}", code(*.found))]
    Separator {
        /// The character.
        found: char,
        /// Where, counted from 1 in the normalised name.
        position: usize,
    },
    /// An invisible formatting character (general category Cf) other than U+200D.
    #[error(
        "no invisible formatting characters (direction overrides, zero-width spaces, …): remove {} at character {position}",
        code(*.found)
    )]
    Invisible {
        /// The character.
        found: char,
        /// Where, counted from 1 in the normalised name.
        position: usize,
    },
    /// White space (any character with the White_Space property) first or last.
    #[error("no space at either end: remove {} at the {end}", code(*.found))]
    SpaceAtEnd {
        /// The character.
        found: char,
        /// `start` or `end`.
        end: End,
    },
}

/// Which end of a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The first character.
    Start,
    /// The last character.
    End,
}

impl fmt::Display for End {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            End::Start => "start",
            End::End => "end",
        })
    }
}

/// A character as an error names it: its code point (the character itself may be
/// invisible, or break the line the message is printed on).
fn code(c: char) -> String {
    format!("U+{:04X}", u32::from(c))
}

impl DisplayName {
    /// Normalises `input` to NFC and checks it (see the module's header). An empty
    /// `input` is [`NameError::Empty`]: a request that means "clear the name" says so
    /// before it gets here.
    pub fn parse(input: &str) -> Result<Self, NameError> {
        if input.len() > MAX_NAME_INPUT_BYTES {
            return Err(NameError::InputTooLong(input.len()));
        }
        let name: String = input.nfc().collect();
        let chars = name.chars().count();
        if chars == 0 {
            return Err(NameError::Empty);
        }
        if chars > MAX_NAME_CHARS {
            return Err(NameError::TooLong(chars));
        }
        for (i, found) in name.chars().enumerate() {
            let position = i + 1;
            if found.is_control() {
                return Err(NameError::Control { found, position });
            }
            if matches!(found, '\u{2028}' | '\u{2029}') {
                return Err(NameError::Separator { found, position });
            }
            if found != ZERO_WIDTH_JOINER && found.general_category() == GeneralCategory::Format {
                return Err(NameError::Invisible { found, position });
            }
        }
        // `char::is_whitespace` is Unicode's White_Space property.
        let ends = [
            (name.chars().next(), End::Start),
            (name.chars().next_back(), End::End),
        ];
        for (c, end) in ends {
            if let Some(found) = c.filter(|c| c.is_whitespace()) {
                return Err(NameError::SpaceAtEnd { found, end });
            }
        }
        Ok(Self(name))
    }

    /// The name, NFC.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The name as an owned string.
    pub fn into_string(self) -> String {
        self.0
    }
}

impl fmt::Display for DisplayName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for DisplayName {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use unicode_normalization::is_nfc;

    fn name(s: &str) -> String {
        DisplayName::parse(s).map(DisplayName::into_string).unwrap()
    }

    #[test]
    fn chinese_latin_and_emoji_names_are_accepted() {
        assert_eq!(name("张三丰"), "张三丰");
        assert_eq!(name("Zoë"), "Zoë");
        assert_eq!(name("棋手 Li"), "棋手 Li", "a space inside is fine");
        assert_eq!(name("🐉"), "🐉");
        // Woman technologist: woman, zero-width joiner, laptop.
        assert_eq!(name("👩\u{200D}💻"), "👩\u{200D}💻");
        // An emoji with its presentation selector, and a flag (two regional indicators).
        assert_eq!(name("❤\u{FE0F}🇨🇳"), "❤\u{FE0F}🇨🇳");
    }

    #[test]
    fn a_decomposed_name_is_stored_composed() {
        // `e` + COMBINING DIAERESIS (5 scalar values) becomes `ë` (4).
        let decomposed = "Zoe\u{308}y";
        assert_eq!(decomposed.chars().count(), 5);
        let stored = name(decomposed);
        assert_eq!(stored, "Zoëy");
        assert_eq!(stored.chars().count(), 4);
        // Hangul jamo compose into syllables.
        assert_eq!(name("\u{1100}\u{1161}"), "가");
    }

    #[test]
    fn a_name_has_1_to_12_characters_after_normalising() {
        assert_eq!(DisplayName::parse(""), Err(NameError::Empty));
        assert_eq!(name(&"棋".repeat(12)).chars().count(), 12);
        assert_eq!(
            DisplayName::parse(&"棋".repeat(13)),
            Err(NameError::TooLong(13))
        );
        // 13 decomposed scalar values that compose into 12 characters are 12.
        let composed_to_12 = format!("{}e\u{301}", "a".repeat(11));
        assert_eq!(composed_to_12.chars().count(), 13);
        assert_eq!(name(&composed_to_12).chars().count(), 12);
        assert_eq!(
            DisplayName::parse("abcdefghijklm").unwrap_err().to_string(),
            "at most 12 characters, this one has 13"
        );
    }

    #[test]
    fn more_than_64_bytes_are_refused_before_normalising() {
        // 22 CJK characters are 66 bytes.
        let long = "棋".repeat(22);
        assert_eq!(DisplayName::parse(&long), Err(NameError::InputTooLong(66)));
        // Within the bytes, the characters decide.
        assert_eq!(
            DisplayName::parse(&"a".repeat(64)),
            Err(NameError::TooLong(64))
        );
    }

    #[test]
    fn control_characters_and_separators_are_refused_where_they_are() {
        for (input, found, position) in [
            ("a\tb", '\t', 2),
            ("ab\n", '\n', 3),
            ("a\u{0}", '\u{0}', 2),
            ("\u{7F}x", '\u{7F}', 1),
            ("x\u{85}y", '\u{85}', 2),
        ] {
            assert_eq!(
                DisplayName::parse(input),
                Err(NameError::Control { found, position }),
                "{input:?}"
            );
        }
        assert_eq!(
            DisplayName::parse("a\u{2028}b"),
            Err(NameError::Separator {
                found: '\u{2028}',
                position: 2
            })
        );
        assert_eq!(
            DisplayName::parse("a\u{2029}b").unwrap_err().to_string(),
            "no line or paragraph separators: remove U+2029 at character 2"
        );
    }

    #[test]
    fn invisible_formatting_characters_are_refused_but_the_joiner_is_not() {
        for c in [
            '\u{202E}',  // RIGHT-TO-LEFT OVERRIDE
            '\u{202A}',  // LEFT-TO-RIGHT EMBEDDING
            '\u{2066}',  // LEFT-TO-RIGHT ISOLATE
            '\u{2069}',  // POP DIRECTIONAL ISOLATE
            '\u{200E}',  // LEFT-TO-RIGHT MARK
            '\u{200B}',  // ZERO WIDTH SPACE
            '\u{200C}',  // ZERO WIDTH NON-JOINER
            '\u{2060}',  // WORD JOINER
            '\u{FEFF}',  // BYTE ORDER MARK
            '\u{00AD}',  // SOFT HYPHEN
            '\u{E0041}', // TAG LATIN CAPITAL LETTER A
        ] {
            let input = format!("ab{c}cd");
            assert_eq!(
                DisplayName::parse(&input),
                Err(NameError::Invisible {
                    found: c,
                    position: 3
                }),
                "U+{:04X}",
                u32::from(c)
            );
        }
        assert_eq!(
            DisplayName::parse("evil\u{202E}gpj.exe")
                .unwrap_err()
                .to_string(),
            "no invisible formatting characters (direction overrides, zero-width spaces, …): \
             remove U+202E at character 5"
        );
        assert_eq!(name("a\u{200D}b"), "a\u{200D}b");
    }

    #[test]
    fn white_space_at_either_end_is_refused() {
        for (input, found, end) in [
            (" alice", ' ', End::Start),
            ("alice ", ' ', End::End),
            ("\u{3000}张三", '\u{3000}', End::Start), // IDEOGRAPHIC SPACE
            ("张三\u{A0}", '\u{A0}', End::End),       // NO-BREAK SPACE
            (" ", ' ', End::Start),
        ] {
            assert_eq!(
                DisplayName::parse(input),
                Err(NameError::SpaceAtEnd { found, end }),
                "{input:?}"
            );
        }
        assert_eq!(
            DisplayName::parse("alice ").unwrap_err().to_string(),
            "no space at either end: remove U+0020 at the end"
        );
        // Inside, a space is part of the name.
        assert_eq!(name("张\u{3000}三"), "张\u{3000}三");
    }

    /// Characters from every kind the rule treats differently: letters of several
    /// scripts, combining marks, emoji and their joiner and selector, spaces, controls,
    /// separators and invisible formatting characters.
    fn any_char() -> impl Strategy<Value = char> {
        prop_oneof![
            4 => prop::sample::select(vec![
                'a', 'Z', 'e', '张', '三', '丰', '가', 'ж', 'ö', '🐉', '👩', '💻',
                '\u{301}', '\u{308}', '\u{1100}', '\u{1161}', '\u{200D}', '\u{FE0F}',
                ' ', '\u{3000}', '\u{A0}', '\t', '\n', '\u{2028}', '\u{202E}', '\u{200B}',
                '\u{FEFF}',
            ]),
            1 => any::<char>(),
        ]
    }

    proptest! {
        #[test]
        fn an_accepted_name_is_nfc_1_to_12_characters_and_parses_to_itself(
            chars in prop::collection::vec(any_char(), 0..16)
        ) {
            let input: String = chars.into_iter().collect();
            if let Ok(parsed) = DisplayName::parse(&input) {
                let name = parsed.as_str();
                prop_assert!(is_nfc(name));
                prop_assert!((1..=MAX_NAME_CHARS).contains(&name.chars().count()));
                prop_assert!(!name.starts_with(char::is_whitespace));
                prop_assert!(!name.ends_with(char::is_whitespace));
                prop_assert_eq!(DisplayName::parse(name), Ok(parsed.clone()));
            }
        }

        #[test]
        fn names_of_letters_and_emoji_are_accepted(
            chars in prop::collection::vec(
                prop::sample::select(vec!['a', 'Z', '张', '三', '가', 'ж', '🐉', '💻']),
                1..=MAX_NAME_CHARS,
            )
        ) {
            let input: String = chars.into_iter().collect();
            prop_assert_eq!(DisplayName::parse(&input).map(DisplayName::into_string), Ok(input));
        }
    }
}
