//! The bench inputs, shared by the criterion benches and the `bench_hands` example (which
//! writes them out for the Python comparison), so both measure the same hands.

use doudizhu_rules::{Kind, RankCounts, Seed, deal, leads};

/// One bench input: a 17–20-card hand, a play to answer, a play to classify.
pub struct Sample {
    pub hand: RankCounts,
    /// A play of another seat (its kind drawn uniformly among the kinds that seat holds).
    pub previous: RankCounts,
    /// A play from `hand` (its kind drawn uniformly among the kinds the hand holds).
    pub play: RankCounts,
}

/// `count` samples from fixed seeds: the same on every run and machine.
pub fn samples(count: usize) -> Vec<Sample> {
    (0..count)
        .map(|i| {
            let mut bytes = [0u8; 32];
            bytes[..8].copy_from_slice(&(i as u64).to_le_bytes());
            bytes[8..16].copy_from_slice(b"ddzbench");
            let dealt = deal(&Seed::from_bytes(bytes));
            let seat = i % 3;
            // 0 to 3 kitty cards: hands of 17 to 20 cards.
            let extra: Vec<_> = dealt.kitty.iter().take(i % 4).collect();
            let mut cards = dealt.hands[seat];
            for card in extra {
                cards.insert(card);
            }
            let hand = cards.rank_counts();
            let other = dealt.hands[(seat + 1) % 3].rank_counts();
            Sample {
                hand,
                previous: pick_play(&other, i as u64 * 7 + 1),
                play: pick_play(&hand, i as u64 * 13 + 5),
            }
        })
        .collect()
}

/// A play from `hand`: first a kind uniformly among those present, then a play of it.
fn pick_play(hand: &RankCounts, salt: u64) -> RankCounts {
    let plays = leads(hand);
    let kinds: Vec<Kind> = Kind::ALL
        .into_iter()
        .filter(|k| plays.iter().any(|p| p.combination.kind == *k))
        .collect();
    let mix = salt.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 17;
    let kind = kinds[(mix % kinds.len() as u64) as usize];
    let of_kind: Vec<_> = plays
        .iter()
        .filter(|p| p.combination.kind == kind)
        .collect();
    of_kind[((mix >> 20) % of_kind.len() as u64) as usize].ranks
}
