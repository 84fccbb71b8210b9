//! Fair dealing (发牌): the shuffle from a 32-byte seed, the commitment published at the
//! deal, and the check anyone can run once the seed is revealed.
//!
//! The algorithm, exactly (the crate README repeats it for other languages):
//! 1. Start from the fixed deck order: card id `rank_index * 4 + suit_index` for ranks
//!    `3 4 5 6 7 8 9 T J Q K A 2` (index 0..12) and suits ♠ ♥ ♣ ♦ (index 0..3), then 52 =
//!    small joker, 53 = big joker.
//! 2. Random words: the ChaCha20 keystream (RFC 8439 block function, 20 rounds) with
//!    key = the seed, nonce = 12 zero bytes, block counter starting at 0, read as
//!    consecutive little-endian `u32` words (this is `rand_chacha::ChaCha20Rng::from_seed`
//!    with `next_u32`).
//! 3. Fisher–Yates from the top: for `i` from 53 down to 1, draw `j` uniform in `0..=i`
//!    and swap `deck[i]` and `deck[j]`. A uniform `j` takes the next word `w`, rejects it
//!    while `w >= 2^32 - (2^32 mod (i+1))`, and is `w mod (i+1)`.
//! 4. Seat 0 gets `deck[0..17]`, seat 1 `deck[17..34]`, seat 2 `deck[34..51]`, the kitty
//!    is `deck[51..54]`.
//! 5. The wild rank (癞子) of a `laizi` deal: the same keystream, right after the
//!    shuffle's last word, draws `k` uniform in `0..13` (as in step 3) and the wild rank
//!    is the `k`-th of `3 4 5 6 7 8 9 T J Q K A 2` (never a joker). It is drawn once a
//!    landlord is chosen but depends on the seed alone, so the revealed seed re-derives
//!    it.
//!
//! Commitment: SHA-256 over the 32 seed bytes followed by the deal id's UTF-8 bytes,
//! published as lower-case hex.

use std::fmt;

use rand::{CryptoRng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use thiserror::Error;

use crate::card::{Card, CardSet, ParseError, Rank, parse_card_text};
use crate::seat::Seat;

/// Cards dealt to each seat.
pub const HAND_SIZE: usize = 17;
/// Cards in the kitty (底牌).
pub const KITTY_SIZE: usize = 3;

/// The secret a deal's cards come from. Serialized as 64 hex digits.
///
/// Its `Debug` form hides the bytes so it never lands in a log by accident.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct Seed([u8; 32]);

impl Seed {
    pub fn from_bytes(bytes: [u8; 32]) -> Seed {
        Seed(bytes)
    }

    /// A fresh seed from a cryptographic random source (the dealer uses the OS's).
    pub fn generate<R: CryptoRng + ?Sized>(rng: &mut R) -> Seed {
        let mut bytes = [0u8; 32];
        rng.fill_bytes(&mut bytes);
        Seed(bytes)
    }

    pub fn bytes(&self) -> &[u8; 32] {
        &self.0
    }

    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }

    pub fn from_hex(text: &str) -> Result<Seed, HexError> {
        let mut bytes = [0u8; 32];
        hex::decode_to_slice(text, &mut bytes).map_err(|_| HexError)?;
        Ok(Seed(bytes))
    }
}

impl fmt::Debug for Seed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Seed(..)")
    }
}

impl From<Seed> for String {
    fn from(seed: Seed) -> String {
        seed.to_hex()
    }
}

impl TryFrom<String> for Seed {
    type Error = HexError;
    fn try_from(text: String) -> Result<Seed, HexError> {
        Seed::from_hex(&text)
    }
}

/// Text that should have been 64 hex digits was not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("expected 64 hex digits")]
pub struct HexError;

/// SHA-256 of (seed ‖ deal id), published when the cards are dealt. Serialized as hex.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct Commitment([u8; 32]);

impl Commitment {
    /// The commitment to `seed` for the deal `deal_id`.
    pub fn new(seed: &Seed, deal_id: &str) -> Commitment {
        let mut hasher = Sha256::new();
        hasher.update(seed.0);
        hasher.update(deal_id.as_bytes());
        Commitment(hasher.finalize().into())
    }

    pub fn bytes(&self) -> &[u8; 32] {
        &self.0
    }

    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }

    pub fn from_hex(text: &str) -> Result<Commitment, HexError> {
        let mut bytes = [0u8; 32];
        hex::decode_to_slice(text, &mut bytes).map_err(|_| HexError)?;
        Ok(Commitment(bytes))
    }
}

impl fmt::Display for Commitment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl From<Commitment> for String {
    fn from(commitment: Commitment) -> String {
        commitment.to_hex()
    }
}

impl TryFrom<String> for Commitment {
    type Error = HexError;
    fn try_from(text: String) -> Result<Commitment, HexError> {
        Commitment::from_hex(&text)
    }
}

/// The three hands and the kitty of one deal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dealt {
    pub hands: [CardSet; 3],
    pub kitty: CardSet,
}

impl Dealt {
    pub fn hand(&self, seat: Seat) -> CardSet {
        self.hands[seat.index()]
    }
}

/// The whole deck after the shuffle, top first.
pub fn shuffled_deck(seed: &Seed) -> [Card; Card::DECK_SIZE] {
    shuffle_from(&mut ChaCha20Rng::from_seed(seed.0))
}

/// Steps 1 to 3: the shuffle, reading words from `rng`.
fn shuffle_from(rng: &mut ChaCha20Rng) -> [Card; Card::DECK_SIZE] {
    let mut deck: [Card; Card::DECK_SIZE] = std::array::from_fn(|id| {
        Card::from_id(id as u8).expect("ids below the deck size are cards")
    });
    for i in (1..Card::DECK_SIZE).rev() {
        let j = uniform_below(rng, i as u32 + 1);
        deck.swap(i, j as usize);
    }
    deck
}

/// The ranks a wild rank may be: 3 to 2, never a joker.
const WILD_RANKS: usize = 13;

/// Step 5: the wild rank (癞子) of a `laizi` deal from this seed, drawn from the
/// keystream right after the shuffle.
pub fn wild_rank(seed: &Seed) -> Rank {
    let mut rng = ChaCha20Rng::from_seed(seed.0);
    shuffle_from(&mut rng);
    let k = uniform_below(&mut rng, WILD_RANKS as u32);
    let rank = Rank::ALL[k as usize];
    debug_assert!(!rank.is_joker());
    rank
}

/// Uniform in `0..bound` by rejection, so any language gets the same numbers.
fn uniform_below(rng: &mut ChaCha20Rng, bound: u32) -> u32 {
    debug_assert!(bound > 0);
    let zone = (1u64 << 32) - ((1u64 << 32) % u64::from(bound));
    loop {
        let word = rng.next_u32();
        if u64::from(word) < zone {
            return word % bound;
        }
    }
}

/// Shuffles and deals: 17 cards to each seat and 3 to the kitty.
pub fn deal(seed: &Seed) -> Dealt {
    let deck = shuffled_deck(seed);
    let hands = std::array::from_fn(|seat| {
        deck[seat * HAND_SIZE..(seat + 1) * HAND_SIZE]
            .iter()
            .copied()
            .collect()
    });
    let kitty = deck[3 * HAND_SIZE..].iter().copied().collect();
    Dealt { hands, kitty }
}

/// Why a revealed deal does not check out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum VerifyError {
    #[error("the seed and deal id do not hash to the commitment")]
    CommitmentMismatch,
    #[error("seat {0}'s hand is not what the seed deals")]
    HandMismatch(Seat),
    #[error("the kitty is not what the seed deals")]
    KittyMismatch,
    #[error("the wild rank is not what the seed draws")]
    WildRankMismatch,
}

/// Checks a revealed deal: the seed matches the commitment for this deal id, and the
/// shuffle of the seed gives exactly these hands (seat 0, 1, 2) and this kitty.
pub fn verify(
    seed: &Seed,
    commitment: &Commitment,
    deal_id: &str,
    hands: &[CardSet; 3],
    kitty: CardSet,
) -> Result<(), VerifyError> {
    if Commitment::new(seed, deal_id) != *commitment {
        return Err(VerifyError::CommitmentMismatch);
    }
    let dealt = deal(seed);
    for seat in Seat::ALL {
        if dealt.hand(seat) != hands[seat.index()] {
            return Err(VerifyError::HandMismatch(seat));
        }
    }
    if dealt.kitty != kitty {
        return Err(VerifyError::KittyMismatch);
    }
    Ok(())
}

/// Why a deal as published (hex and card text) does not check out.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PublishedDealError {
    #[error("seed: {0}")]
    Seed(HexError),
    #[error("commitment: {0}")]
    Commitment(HexError),
    #[error(transparent)]
    Card(#[from] ParseError),
    #[error("a deal has three hands")]
    HandCount,
    #[error(transparent)]
    Verify(#[from] VerifyError),
}

/// [`verify`] on a finished deal as the dealer publishes it (`GetDealRecord`): the
/// seed and the commitment as hex, the hands (seat 0, 1, 2) and the kitty as card text.
/// The check any client runs once the seed is revealed.
pub fn verify_published<'a>(
    seed: &str,
    commitment: &str,
    deal_id: &str,
    hands: impl IntoIterator<Item = &'a [String]>,
    kitty: &[String],
) -> Result<(), PublishedDealError> {
    let seed = Seed::from_hex(seed).map_err(PublishedDealError::Seed)?;
    let commitment = Commitment::from_hex(commitment).map_err(PublishedDealError::Commitment)?;
    let hands: Vec<CardSet> = hands.into_iter().map(card_set).collect::<Result<_, _>>()?;
    let hands: [CardSet; 3] = hands
        .try_into()
        .map_err(|_| PublishedDealError::HandCount)?;
    Ok(verify(
        &seed,
        &commitment,
        deal_id,
        &hands,
        card_set(kitty)?,
    )?)
}

/// The cards of card texts (each text may hold several cards: `S3 HT`).
fn card_set(texts: &[String]) -> Result<CardSet, ParseError> {
    let mut set = CardSet::default();
    for text in texts {
        for card in parse_card_text(text)? {
            set.insert(card);
        }
    }
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_random_words_are_the_rfc_8439_chacha20_keystream() {
        // RFC 8439 appendix A.1, test vector #1: all-zero key and nonce, counter 0.
        let mut rng = ChaCha20Rng::from_seed([0; 32]);
        assert_eq!(rng.next_u32(), 0xade0_b876);
        assert_eq!(rng.next_u32(), 0x903d_f1a0);
    }

    #[test]
    fn a_deal_uses_every_card_once() {
        let dealt = deal(&Seed::from_bytes([7; 32]));
        let mut all = dealt.kitty;
        for hand in dealt.hands {
            assert_eq!(hand.len(), HAND_SIZE);
            assert!(all.intersection(hand).is_empty());
            all = all.union(hand);
        }
        assert_eq!(all, CardSet::DECK);
    }

    #[test]
    fn verify_accepts_the_true_deal_and_rejects_any_change() {
        let seed = Seed::from_bytes([42; 32]);
        let commitment = Commitment::new(&seed, "table-1/deal-1");
        let dealt = deal(&seed);
        assert_eq!(
            verify(
                &seed,
                &commitment,
                "table-1/deal-1",
                &dealt.hands,
                dealt.kitty
            ),
            Ok(())
        );
        assert_eq!(
            verify(
                &seed,
                &commitment,
                "table-1/deal-2",
                &dealt.hands,
                dealt.kitty
            ),
            Err(VerifyError::CommitmentMismatch)
        );
        let mut swapped = dealt.hands;
        swapped.swap(0, 1);
        assert_eq!(
            verify(&seed, &commitment, "table-1/deal-1", &swapped, dealt.kitty),
            Err(VerifyError::HandMismatch(Seat::ALL[0]))
        );
    }

    #[test]
    fn the_wild_rank_is_any_rank_from_three_to_two_never_a_joker() {
        let mut drawn = [0u32; Rank::COUNT];
        for n in 0..1_300u32 {
            let mut bytes = [0u8; 32];
            bytes[..4].copy_from_slice(&n.to_le_bytes());
            drawn[wild_rank(&Seed::from_bytes(bytes)).index()] += 1;
        }
        assert_eq!(drawn[13..], [0, 0], "never a joker");
        // Uniform: about 100 each (the bounds are far beyond chance).
        assert!(
            drawn[..13].iter().all(|&n| (50..160).contains(&n)),
            "{drawn:?}"
        );
    }

    /// A dealt deal as the dealer publishes it: hex and card text.
    fn published(dealt: &Dealt) -> (Vec<Vec<String>>, Vec<String>) {
        let text = |set: CardSet| set.iter().map(|c| c.to_string()).collect::<Vec<_>>();
        (dealt.hands.map(text).to_vec(), text(dealt.kitty))
    }

    #[test]
    fn a_published_deal_verifies_from_its_text() {
        let seed = Seed::from_bytes([9; 32]);
        let commitment = Commitment::new(&seed, "t/deal-3").to_string();
        let dealt = deal(&seed);
        let (hands, kitty) = published(&dealt);
        let seed = seed.to_hex();
        assert_eq!(
            verify_published(
                &seed,
                &commitment,
                "t/deal-3",
                hands.iter().map(Vec::as_slice),
                &kitty
            ),
            Ok(())
        );
        // One card text holding a whole hand reads the same.
        let joined: Vec<Vec<String>> = hands.iter().map(|h| vec![h.join(" ")]).collect();
        assert_eq!(
            verify_published(
                &seed,
                &commitment,
                "t/deal-3",
                joined.iter().map(Vec::as_slice),
                &kitty
            ),
            Ok(())
        );
    }

    #[test]
    fn a_published_deal_that_was_changed_or_is_malformed_does_not_verify() {
        let seed = Seed::from_bytes([9; 32]);
        let commitment = Commitment::new(&seed, "t/deal-3").to_string();
        let (mut hands, kitty) = published(&deal(&seed));
        let seed = seed.to_hex();
        let check = |seed: &str, commitment: &str, hands: &[Vec<String>], kitty: &[String]| {
            verify_published(
                seed,
                commitment,
                "t/deal-3",
                hands.iter().map(Vec::as_slice),
                kitty,
            )
            .map_err(|e| e.to_string())
        };
        assert_eq!(
            check("12", &commitment, &hands, &kitty),
            Err("seed: expected 64 hex digits".into())
        );
        assert_eq!(
            check(&seed, "zz", &hands, &kitty),
            Err("commitment: expected 64 hex digits".into())
        );
        assert_eq!(
            check(&seed, &commitment, &hands[..2], &kitty),
            Err("a deal has three hands".into())
        );
        assert_eq!(
            check(&seed, &commitment, &hands, &["S?".to_owned()]),
            Err("unexpected character '?'".into())
        );
        hands.swap(1, 2);
        assert_eq!(
            check(&seed, &commitment, &hands, &kitty),
            Err("seat 1's hand is not what the seed deals".into())
        );
    }
}

#[cfg(test)]
mod golden {
    use super::*;

    /// The README's test vector, also printed by `reference/shuffle.py` (an independent
    /// Python implementation): seed bytes 0, 1, ..., 31, deal id "table-1/deal-1".
    #[test]
    fn the_shuffle_matches_the_published_test_vector() {
        let seed = Seed::from_bytes(std::array::from_fn(|i| i as u8));
        let deck: Vec<String> = shuffled_deck(&seed).iter().map(|c| c.to_string()).collect();
        assert_eq!(
            deck.join(" "),
            "RJ SK S4 D9 CQ H8 DA C8 CK S9 DJ D7 H2 CT CA DQ D6 S3 D3 DK H9 S8 C5 H6 H4 H5 \
             C7 H7 C2 C6 C3 S2 SJ S6 HT D8 BJ S7 C4 C9 ST H3 D5 DT SA D2 D4 CJ SQ S5 HK HJ HA HQ"
        );
        assert_eq!(deal(&seed).kitty.to_string(), "HJ HQ HA");
        assert_eq!(
            wild_rank(&seed),
            Rank::Two,
            "the laizi wild rank of the vector"
        );
        assert_eq!(
            Commitment::new(&seed, "table-1/deal-1").to_hex(),
            "1982f41e8e74aa4ae0d31f6ed1f0ec38950b83307a102ef8b1bb84c37ae403d4"
        );
    }
}
