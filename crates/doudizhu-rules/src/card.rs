//! Cards (牌): ranks, suits, the 54 physical cards, sets of cards and their text forms.
//!
//! Two notations:
//! - **rank text**, used for combinations, which are judged on ranks only:
//!   `3 4 5 6 7 8 9 T J Q K A 2 X D` (`X` small joker 小王, `D` big joker 大王), `10` accepted
//!   for `T`, letters in either case, spaces and commas optional: `"3334"`, `"10 J Q K A"`.
//!   See [`crate::RankCounts`].
//! - **card text**, for real cards: a suit letter (`S` ♠, `H` ♥, `C` ♣, `D` ♦, either case,
//!   or the suit symbol itself) followed by a rank (`3`..`9`, `T` or `10`, `J`, `Q`, `K`, `A`,
//!   `2`); the jokers are `BJ` (black joker, the small one) and `RJ` (red joker, the big one).
//!   Canonical form is upper case with `T`: `S3 HT DA BJ RJ`. Separators optional.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A rank, in playing order for singles: 3 < 4 < ... < K < A < 2 < small joker < big joker.
/// Serialized as its symbol in rank text (`"3"`, `"T"`, `"X"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
#[repr(u8)]
pub enum Rank {
    Three = 0,
    Four,
    Five,
    Six,
    Seven,
    Eight,
    Nine,
    Ten,
    Jack,
    Queen,
    King,
    Ace,
    Two,
    /// 小王.
    SmallJoker,
    /// 大王.
    BigJoker,
}

impl Rank {
    /// Every rank, lowest first.
    pub const ALL: [Rank; 15] = [
        Rank::Three,
        Rank::Four,
        Rank::Five,
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Ten,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
        Rank::Ace,
        Rank::Two,
        Rank::SmallJoker,
        Rank::BigJoker,
    ];
    /// Number of distinct ranks.
    pub const COUNT: usize = 15;
    /// The highest rank a straight, pair straight or airplane may use (no 2, no joker).
    pub const HIGHEST_IN_CHAIN: Rank = Rank::Ace;

    /// The rank with this index (0 = `3`, 14 = big joker).
    pub fn from_index(index: usize) -> Option<Rank> {
        Rank::ALL.get(index).copied()
    }

    /// Position in playing order, 0 (`3`) to 14 (big joker).
    pub fn index(self) -> usize {
        self as usize
    }

    /// Whether the rank can be part of a chain (straights and airplanes run over 3..A).
    pub fn chains(self) -> bool {
        self <= Rank::HIGHEST_IN_CHAIN
    }

    /// Whether it is one of the two jokers.
    pub fn is_joker(self) -> bool {
        self >= Rank::SmallJoker
    }

    /// The rank's symbol in rank text.
    pub fn symbol(self) -> char {
        RANK_SYMBOLS[self.index()]
    }

    /// Reads one rank symbol (not `10`, which is two characters; see [`crate::RankCounts::parse`]).
    pub fn from_symbol(c: char) -> Option<Rank> {
        let upper = c.to_ascii_uppercase();
        RANK_SYMBOLS
            .iter()
            .position(|&s| s == upper)
            .and_then(Rank::from_index)
    }
}

const RANK_SYMBOLS: [char; 15] = [
    '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K', 'A', '2', 'X', 'D',
];

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.symbol())
    }
}

impl From<Rank> for String {
    fn from(rank: Rank) -> String {
        rank.symbol().to_string()
    }
}

impl TryFrom<String> for Rank {
    type Error = ParseError;
    fn try_from(text: String) -> Result<Rank, ParseError> {
        let mut chars = text.chars();
        match (chars.next(), chars.next(), chars.next()) {
            (Some(c), None, None) => Rank::from_symbol(c).ok_or(ParseError::UnexpectedChar(c)),
            (Some('1'), Some('0'), None) => Ok(Rank::Ten),
            _ => Err(ParseError::NotOneCard),
        }
    }
}

/// A suit (花色). It never matters for combinations; it only tells two real cards apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Suit {
    Spades = 0,
    Hearts,
    Clubs,
    Diamonds,
}

impl Suit {
    /// Every suit, in deck order.
    pub const ALL: [Suit; 4] = [Suit::Spades, Suit::Hearts, Suit::Clubs, Suit::Diamonds];

    /// The suit's letter in card text.
    pub fn letter(self) -> char {
        ['S', 'H', 'C', 'D'][self as usize]
    }

    fn from_char(c: char) -> Option<Suit> {
        match c {
            'S' | 's' | '♠' | '♤' => Some(Suit::Spades),
            'H' | 'h' | '♥' | '♡' => Some(Suit::Hearts),
            'C' | 'c' | '♣' | '♧' => Some(Suit::Clubs),
            'D' | 'd' | '♦' | '♢' => Some(Suit::Diamonds),
            _ => None,
        }
    }
}

/// One of the 54 physical cards.
///
/// Its id is its place in the fixed initial deck that the shuffle starts from:
/// `rank_index * 4 + suit_index` for the 52 suited cards (3♠ = 0, 3♥ = 1, ..., 2♦ = 51),
/// 52 for the small joker and 53 for the big joker.
/// Serialized as its card text (`"S3"`, `"BJ"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct Card(u8);

impl Card {
    /// Number of cards in the deck.
    pub const DECK_SIZE: usize = 54;
    /// The small joker (小王).
    pub const SMALL_JOKER: Card = Card(52);
    /// The big joker (大王).
    pub const BIG_JOKER: Card = Card(53);

    /// The card with this deck id (0..54).
    pub fn from_id(id: u8) -> Option<Card> {
        (usize::from(id) < Card::DECK_SIZE).then_some(Card(id))
    }

    /// A suited card; `None` for a joker rank (jokers have no suit).
    pub fn suited(rank: Rank, suit: Suit) -> Option<Card> {
        (!rank.is_joker()).then(|| Card(rank as u8 * 4 + suit as u8))
    }

    /// The deck id, 0..54.
    pub fn id(self) -> u8 {
        self.0
    }

    pub fn rank(self) -> Rank {
        match self.0 {
            52 => Rank::SmallJoker,
            53 => Rank::BigJoker,
            id => Rank::ALL[usize::from(id / 4)],
        }
    }

    /// The suit, or `None` for a joker.
    pub fn suit(self) -> Option<Suit> {
        (self.0 < 52).then(|| Suit::ALL[usize::from(self.0 % 4)])
    }

    /// All 54 cards in deck order.
    pub fn deck() -> impl Iterator<Item = Card> {
        (0..Card::DECK_SIZE as u8).map(Card)
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.suit() {
            Some(suit) => write!(f, "{}{}", suit.letter(), self.rank().symbol()),
            None if *self == Card::SMALL_JOKER => f.write_str("BJ"),
            None => f.write_str("RJ"),
        }
    }
}

impl From<Card> for String {
    fn from(card: Card) -> String {
        card.to_string()
    }
}

impl TryFrom<String> for Card {
    type Error = ParseError;
    fn try_from(text: String) -> Result<Card, ParseError> {
        text.parse()
    }
}

impl FromStr for Card {
    type Err = ParseError;
    fn from_str(text: &str) -> Result<Card, ParseError> {
        let cards = parse_card_text(text)?;
        match cards.as_slice() {
            [card] => Ok(*card),
            _ => Err(ParseError::NotOneCard),
        }
    }
}

/// Why a text could not be read as cards or ranks.
///
/// Messages quote at most the offending character, never a list of cards.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParseError {
    #[error("unexpected character {0:?}")]
    UnexpectedChar(char),
    #[error("a suit must be followed by a rank")]
    MissingRank,
    #[error("a joker has no suit: write BJ or RJ")]
    SuitedJoker,
    #[error("a card is listed twice")]
    DuplicateCard,
    #[error("more than four cards of one rank, or more than one of a joker")]
    TooManyOfRank,
    #[error("expected exactly one card")]
    NotOneCard,
    #[error("text too long")]
    TooLong,
}

/// Longest text the parsers read; a deck written out is well under it.
pub(crate) const MAX_TEXT_LEN: usize = 512;

fn is_separator(c: char) -> bool {
    c.is_whitespace() || c == ',' || c == '+'
}

/// Reads card text (`"S3 HT BJ"`, `"♠3♥10"`) into cards, in the order written.
/// A card written twice is an error.
pub fn parse_card_text(text: &str) -> Result<Vec<Card>, ParseError> {
    if text.len() > MAX_TEXT_LEN {
        return Err(ParseError::TooLong);
    }
    let mut cards = Vec::new();
    let mut seen = CardSet::EMPTY;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if is_separator(c) {
            continue;
        }
        let card = match c.to_ascii_uppercase() {
            'B' | 'R' if chars.peek().is_some_and(|n| n.eq_ignore_ascii_case(&'J')) => {
                chars.next();
                if c.eq_ignore_ascii_case(&'B') {
                    Card::SMALL_JOKER
                } else {
                    Card::BIG_JOKER
                }
            }
            _ => {
                let suit = Suit::from_char(c).ok_or(ParseError::UnexpectedChar(c))?;
                let rank = match chars.next() {
                    None => return Err(ParseError::MissingRank),
                    Some('1') => match chars.next() {
                        Some('0') => Rank::Ten,
                        Some(other) => return Err(ParseError::UnexpectedChar(other)),
                        None => return Err(ParseError::UnexpectedChar('1')),
                    },
                    Some(r) => Rank::from_symbol(r).ok_or(ParseError::UnexpectedChar(r))?,
                };
                Card::suited(rank, suit).ok_or(ParseError::SuitedJoker)?
            }
        };
        if seen.contains(card) {
            return Err(ParseError::DuplicateCard);
        }
        seen.insert(card);
        cards.push(card);
    }
    Ok(cards)
}

/// A set of physical cards, one bit per deck id: a hand, the kitty, a play.
///
/// Serialized as the bit mask (a `u64`), which keeps stored deal state small.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CardSet(u64);

impl CardSet {
    pub const EMPTY: CardSet = CardSet(0);
    /// All 54 cards.
    pub const DECK: CardSet = CardSet((1 << 54) - 1);

    /// The set with this bit mask; bits above 53 are dropped.
    pub fn from_bits(bits: u64) -> CardSet {
        CardSet(bits & CardSet::DECK.0)
    }

    pub fn bits(self) -> u64 {
        self.0
    }

    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn contains(self, card: Card) -> bool {
        self.0 & (1 << card.0) != 0
    }

    pub fn insert(&mut self, card: Card) {
        self.0 |= 1 << card.0;
    }

    pub fn remove(&mut self, card: Card) {
        self.0 &= !(1 << card.0);
    }

    pub fn is_subset(self, other: CardSet) -> bool {
        self.0 & !other.0 == 0
    }

    pub fn union(self, other: CardSet) -> CardSet {
        CardSet(self.0 | other.0)
    }

    pub fn difference(self, other: CardSet) -> CardSet {
        CardSet(self.0 & !other.0)
    }

    pub fn intersection(self, other: CardSet) -> CardSet {
        CardSet(self.0 & other.0)
    }

    /// The cards, lowest deck id first.
    pub fn iter(self) -> impl Iterator<Item = Card> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            (bits != 0).then(|| {
                let id = bits.trailing_zeros() as u8;
                bits &= bits - 1;
                Card(id)
            })
        })
    }

    /// The cards as a list, lowest first.
    pub fn to_vec(self) -> Vec<Card> {
        self.iter().collect()
    }

    /// How many cards of each rank the set holds.
    pub fn rank_counts(self) -> crate::RankCounts {
        let mut counts = [0u8; Rank::COUNT];
        for (rank, count) in counts.iter_mut().take(13).enumerate() {
            *count = ((self.0 >> (rank * 4)) & 0xF).count_ones() as u8;
        }
        counts[Rank::SmallJoker.index()] = ((self.0 >> 52) & 1) as u8;
        counts[Rank::BigJoker.index()] = ((self.0 >> 53) & 1) as u8;
        crate::RankCounts::from_counts(counts)
            .expect("a set of physical cards never holds more than four of a rank")
    }

    /// Picks real cards from this set for a multiset of ranks, lowest suit first
    /// (♠, ♥, ♣, ♦); `None` if the set lacks some of them.
    pub fn pick(self, ranks: &crate::RankCounts) -> Option<CardSet> {
        let mut picked = 0u64;
        for rank in Rank::ALL {
            let mut wanted = ranks.count(rank);
            if wanted == 0 {
                continue;
            }
            let mut available = self.0 & rank_mask(rank);
            while wanted > 0 {
                if available == 0 {
                    return None;
                }
                let lowest = available & available.wrapping_neg();
                picked |= lowest;
                available &= !lowest;
                wanted -= 1;
            }
        }
        Some(CardSet(picked))
    }
}

/// The bits of every card of a rank.
pub(crate) fn rank_mask(rank: Rank) -> u64 {
    match rank {
        Rank::SmallJoker => 1 << 52,
        Rank::BigJoker => 1 << 53,
        _ => 0xF << (rank.index() * 4),
    }
}

impl FromIterator<Card> for CardSet {
    fn from_iter<I: IntoIterator<Item = Card>>(iter: I) -> CardSet {
        let mut set = CardSet::EMPTY;
        for card in iter {
            set.insert(card);
        }
        set
    }
}

impl fmt::Display for CardSet {
    /// Card text, lowest first, space separated.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, card) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{card}")?;
        }
        Ok(())
    }
}

impl FromStr for CardSet {
    type Err = ParseError;
    fn from_str(text: &str) -> Result<CardSet, ParseError> {
        Ok(parse_card_text(text)?.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn card_text_round_trips_for_the_whole_deck() {
        for card in Card::deck() {
            let text = card.to_string();
            assert_eq!(text.parse::<Card>(), Ok(card), "{text}");
        }
        assert_eq!(CardSet::DECK.len(), 54);
    }

    #[test]
    fn card_text_accepts_symbols_ten_and_lower_case() {
        let cards = parse_card_text("♠3 h10,dT bj RJ").expect("valid text");
        let text: Vec<String> = cards.iter().map(|c| c.to_string()).collect();
        assert_eq!(text, ["S3", "HT", "DT", "BJ", "RJ"]);
        assert_eq!(parse_card_text("S3S3"), Err(ParseError::DuplicateCard));
        assert_eq!(parse_card_text("SX"), Err(ParseError::SuitedJoker));
        assert_eq!(parse_card_text("S"), Err(ParseError::MissingRank));
    }

    #[test]
    fn picking_takes_the_lowest_suits() {
        let hand: CardSet = "S3 H3 D3 C5 BJ".parse().expect("valid");
        let ranks = crate::RankCounts::parse("3 3 X").expect("valid");
        assert_eq!(
            hand.pick(&ranks).map(|s| s.to_string()),
            Some("S3 H3 BJ".to_string())
        );
        assert_eq!(
            hand.pick(&crate::RankCounts::parse("D").expect("valid")),
            None
        );
    }
}
