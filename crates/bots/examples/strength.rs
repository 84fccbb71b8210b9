//! Measures the bots against random players, in-process through the rule crates:
//!
//! ```sh
//! cargo run --release -p gamehub-bots --example strength [games]
//! ```
//!
//! Gomoku: the bot against a random player, colors alternating, in every rule set.
//! Dou Dizhu: the bot as landlord (bid 3) against two random farmers, and the reverse;
//! the bot against itself and against the previous bot (`doudizhu::baseline`).

use doudizhu_rules::{Seat as DdzSeat, Seed};
use gamehub_bots::arena::{Bidding, Player, doudizhu_deal, gomoku_game};
use gomoku_rules::{RuleSet, Seat};
use rand::{Rng, SeedableRng};

fn main() {
    let games: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(20261130);

    println!("Gomoku: bot vs random, {games} games per rule set, colors alternating");
    for rule_set in RuleSet::ALL {
        let (mut wins, mut losses, mut draws) = (0, 0, 0);
        for i in 0..games {
            let black = if i % 2 == 0 { Seat::ZERO } else { Seat::ONE };
            match gomoku_game(rule_set, black, [Player::Bot, Player::Random], &mut rng) {
                Some(Seat::ZERO) => wins += 1,
                Some(_) => losses += 1,
                None => draws += 1,
            }
        }
        println!(
            "  {:<14} bot won {wins:>4}, lost {losses:>3}, drew {draws:>3}",
            rule_set.name()
        );
    }

    println!("Gomoku: bot vs bot, {games} games per rule set");
    for rule_set in RuleSet::ALL {
        let (mut decided, mut draws) = (0, 0);
        for i in 0..games {
            let black = if i % 2 == 0 { Seat::ZERO } else { Seat::ONE };
            match gomoku_game(rule_set, black, [Player::Bot, Player::Bot], &mut rng) {
                Some(_) => decided += 1,
                None => draws += 1,
            }
        }
        println!(
            "  {:<14} decided {decided:>4}, drawn {draws:>3}",
            rule_set.name()
        );
    }

    let deals = games * 10;
    for (label, players) in [
        (
            "bot landlord vs 2 random farmers",
            [Player::Bot, Player::Random, Player::Random],
        ),
        (
            "random landlord vs 2 bot farmers",
            [Player::Random, Player::Bot, Player::Bot],
        ),
        (
            "random landlord vs 2 random farmers",
            [Player::Random, Player::Random, Player::Random],
        ),
        (
            "bot landlord vs 2 bot farmers",
            [Player::Bot, Player::Bot, Player::Bot],
        ),
        (
            "bot landlord vs 2 previous-bot farmers",
            [Player::Bot, Player::Baseline, Player::Baseline],
        ),
        (
            "previous-bot landlord vs 2 bot farmers",
            [Player::Baseline, Player::Bot, Player::Bot],
        ),
        (
            "previous-bot landlord vs 2 previous-bot farmers",
            [Player::Baseline, Player::Baseline, Player::Baseline],
        ),
    ] {
        let mut won = 0;
        for _ in 0..deals {
            let seed = Seed::from_bytes(rng.random());
            if let Some(result) =
                doudizhu_deal(seed, players, Bidding::Forced(DdzSeat::ALL[0]), &mut rng)
            {
                won += usize::from(result.landlord_won);
            }
        }
        println!(
            "Dou Dizhu: {label}: landlord won {won} of {deals} deals ({:.1}%)",
            100.0 * won as f64 / deals as f64
        );
    }
}
