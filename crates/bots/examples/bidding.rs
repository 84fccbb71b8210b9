//! Measures the Dou Dizhu bid policies, in-process through the rule crate:
//!
//! ```sh
//! cargo run --release -p gamehub-bots --example bidding [deals]
//! ```
//!
//! 1. Calibration: every hand of `deals` deals is played as the landlord (it bids three,
//!    the current bot plays every seat); the landlord's win rate by the hand's
//!    [`doudizhu::hand_strength`] (17 cards, before the kitty).
//! 2. Policies: `deals` deals in which every seat bids by the policy, the cards played by
//!    the current bot (so only the bids differ), and today's whole previous bot: how often
//!    a landlord comes out (else a redeal), how often it wins, by bid, and its mean points.

use std::collections::BTreeMap;

use doudizhu_rules::{Bid, Seat, Seed, deal};
use gamehub_bots::arena::{Bidding, Player, doudizhu_deal};
use gamehub_bots::doudizhu;
use rand::{Rng, SeedableRng};

fn main() {
    let deals: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(3000);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(20261201);
    let bots = [Player::Bot; 3];

    println!("Calibration: {deals} deals, each hand played as landlord by the bot");
    let mut by_strength: BTreeMap<i32, (u32, u32)> = BTreeMap::new();
    for _ in 0..deals {
        let seed = Seed::from_bytes(rng.random());
        let hands = deal(&seed).hands;
        for seat in Seat::ALL {
            let strength = doudizhu::hand_strength(&hands[seat.index()].rank_counts());
            let bucket = strength.div_euclid(3) * 3;
            if let Some(result) = doudizhu_deal(seed, bots, Bidding::Forced(seat), &mut rng) {
                let entry = by_strength.entry(bucket).or_default();
                entry.0 += 1;
                entry.1 += u32::from(result.landlord_won);
            }
        }
    }
    for (bucket, (n, won)) in &by_strength {
        println!(
            "  strength {bucket:>4}..{:<4} {n:>6} hands  landlord won {:>5.1}%",
            bucket + 2,
            100.0 * f64::from(*won) / f64::from(*n)
        );
    }

    for (label, bidders, players) in [
        ("previous bids, current play", [Player::Baseline; 3], bots),
        ("current bids, current play", bots, bots),
        (
            "previous bids, previous play (before issue 20)",
            [Player::Baseline; 3],
            [Player::Baseline; 3],
        ),
    ] {
        let mut landlords = 0u32;
        let mut won = 0u32;
        let mut points = 0i64;
        let mut by_bid: BTreeMap<u8, (u32, u32)> = BTreeMap::new();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for _ in 0..deals {
            let seed = Seed::from_bytes(rng.random());
            let Some(result) = doudizhu_deal(seed, players, Bidding::By(bidders), &mut rng) else {
                continue;
            };
            landlords += 1;
            won += u32::from(result.landlord_won);
            points += result.landlord_points;
            let entry = by_bid.entry(result.bid.points()).or_default();
            entry.0 += 1;
            entry.1 += u32::from(result.landlord_won);
        }
        println!(
            "{label}: {landlords} of {deals} deals got a landlord ({:.1}%), who won {:.1}%, \
             mean landlord points {:+.2} ({:+.2} a deal)",
            100.0 * f64::from(landlords) / deals as f64,
            100.0 * f64::from(won) / f64::from(landlords.max(1)),
            points as f64 / f64::from(landlords.max(1)),
            points as f64 / deals as f64,
        );
        for (bid, (n, w)) in by_bid {
            let bid = Bid::try_from(bid).unwrap_or(Bid::Pass);
            println!(
                "    bid {}: {n:>5} landlords, won {:>5.1}%",
                bid.points(),
                100.0 * f64::from(w) / f64::from(n)
            );
        }
    }

    // Head to head: one seat bids by the current policy, the other two by the previous
    // one (the seat rotates), every card played by the current bot. Points are zero-sum,
    // so 0 a deal would mean no better than the previous policy.
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
    let (mut points, mut as_landlord, mut landlord_won) = (0i64, 0u32, 0u32);
    for i in 0..deals {
        let seed = Seed::from_bytes(rng.random());
        let me = Seat::ALL[i % 3];
        let mut bidders = [Player::Baseline; 3];
        bidders[me.index()] = Player::Bot;
        let Some(result) = doudizhu_deal(seed, bots, Bidding::By(bidders), &mut rng) else {
            continue;
        };
        if result.landlord == me {
            points += result.landlord_points;
            as_landlord += 1;
            landlord_won += u32::from(result.landlord_won);
        } else {
            points -= result.landlord_points / 2;
        }
    }
    println!(
        "current bids in one seat vs previous bids in two: {:+.3} points a deal for that seat; \
         landlord in {as_landlord} of {deals} deals, won {:.1}% of them",
        points as f64 / deals as f64,
        100.0 * f64::from(landlord_won) / f64::from(as_landlord.max(1)),
    );
}
