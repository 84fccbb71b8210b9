//! A multiset of ranks: what combinations, beating and move generation work on.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::card::{MAX_TEXT_LEN, ParseError, Rank};

/// How many cards of each rank: the compact form of a hand or a play once suits are
/// forgotten. Index 0 is `3`, 14 the big joker; at most 4 of a rank and 1 of each joker.
///
/// Serialized as rank text (`"3 3 3 4"`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
#[serde(into = "String", try_from = "String")]
pub struct RankCounts([u8; Rank::COUNT]);

impl RankCounts {
    pub const EMPTY: RankCounts = RankCounts([0; Rank::COUNT]);

    /// The multiset with these counts; `None` if a count is impossible in one deck.
    pub fn from_counts(counts: [u8; Rank::COUNT]) -> Option<RankCounts> {
        Rank::ALL
            .iter()
            .all(|&rank| counts[rank.index()] <= max_of(rank))
            .then_some(RankCounts(counts))
    }

    /// Reads rank text: `3 4 5 6 7 8 9 T J Q K A 2 X D`, `10` for `T`, either case,
    /// spaces and commas optional.
    pub fn parse(text: &str) -> Result<RankCounts, ParseError> {
        if text.len() > MAX_TEXT_LEN {
            return Err(ParseError::TooLong);
        }
        let mut counts = RankCounts::EMPTY;
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            if c.is_whitespace() || c == ',' || c == '+' {
                continue;
            }
            let rank = if c == '1' {
                match chars.next() {
                    Some('0') => Rank::Ten,
                    Some(other) => return Err(ParseError::UnexpectedChar(other)),
                    None => return Err(ParseError::UnexpectedChar('1')),
                }
            } else {
                Rank::from_symbol(c).ok_or(ParseError::UnexpectedChar(c))?
            };
            if !counts.try_add(rank) {
                return Err(ParseError::TooManyOfRank);
            }
        }
        Ok(counts)
    }

    /// The raw counts, index 0 = `3`.
    pub fn counts(&self) -> &[u8; Rank::COUNT] {
        &self.0
    }

    pub fn count(&self, rank: Rank) -> u8 {
        self.0[rank.index()]
    }

    /// Number of cards.
    pub fn len(&self) -> usize {
        self.0.iter().map(|&c| usize::from(c)).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.0 == [0; Rank::COUNT]
    }

    /// Adds one card of `rank`; false (and no change) if the deck has no more of it.
    pub fn try_add(&mut self, rank: Rank) -> bool {
        let slot = &mut self.0[rank.index()];
        if *slot >= max_of(rank) {
            return false;
        }
        *slot += 1;
        true
    }

    /// Whether every card of `self` is also in `other`.
    pub fn is_subset(&self, other: &RankCounts) -> bool {
        self.0.iter().zip(other.0.iter()).all(|(a, b)| a <= b)
    }

    /// `self` without the cards of `other`; `None` if `other` is not a sub-multiset.
    pub fn checked_sub(&self, other: &RankCounts) -> Option<RankCounts> {
        let mut out = *self;
        for (slot, &c) in out.0.iter_mut().zip(other.0.iter()) {
            *slot = slot.checked_sub(c)?;
        }
        Some(out)
    }

    /// The ranks, lowest first, each repeated by its count.
    pub fn iter(&self) -> impl Iterator<Item = Rank> + '_ {
        Rank::ALL
            .iter()
            .flat_map(move |&rank| std::iter::repeat_n(rank, usize::from(self.0[rank.index()])))
    }

    /// The lowest rank present.
    pub fn lowest(&self) -> Option<Rank> {
        self.0
            .iter()
            .position(|&c| c > 0)
            .and_then(Rank::from_index)
    }
}

fn max_of(rank: Rank) -> u8 {
    if rank.is_joker() { 1 } else { 4 }
}

impl fmt::Display for RankCounts {
    /// Rank text, lowest first, space separated: `3 3 3 4`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, rank) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{rank}")?;
        }
        Ok(())
    }
}

impl FromStr for RankCounts {
    type Err = ParseError;
    fn from_str(text: &str) -> Result<RankCounts, ParseError> {
        RankCounts::parse(text)
    }
}

impl From<RankCounts> for String {
    fn from(ranks: RankCounts) -> String {
        ranks.to_string()
    }
}

impl TryFrom<String> for RankCounts {
    type Error = ParseError;
    fn try_from(text: String) -> Result<RankCounts, ParseError> {
        RankCounts::parse(&text)
    }
}

impl FromIterator<Rank> for Option<RankCounts> {
    /// Collects ranks into a multiset; `None` if more than the deck holds.
    fn from_iter<I: IntoIterator<Item = Rank>>(iter: I) -> Option<RankCounts> {
        let mut counts = RankCounts::EMPTY;
        for rank in iter {
            if !counts.try_add(rank) {
                return None;
            }
        }
        Some(counts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_text_accepts_ten_lower_case_and_no_spaces() {
        let a = RankCounts::parse("10jqka").expect("valid");
        let b = RankCounts::parse("T J Q K A").expect("valid");
        assert_eq!(a, b);
        assert_eq!(a.to_string(), "T J Q K A");
        assert_eq!(RankCounts::parse("xd").expect("valid").to_string(), "X D");
        assert_eq!(RankCounts::parse("33333"), Err(ParseError::TooManyOfRank));
        assert_eq!(RankCounts::parse("XX"), Err(ParseError::TooManyOfRank));
        assert_eq!(
            RankCounts::parse("3 1"),
            Err(ParseError::UnexpectedChar('1'))
        );
        assert_eq!(
            RankCounts::parse("3 Z"),
            Err(ParseError::UnexpectedChar('Z'))
        );
        assert!(RankCounts::parse("").expect("valid").is_empty());
    }
}
