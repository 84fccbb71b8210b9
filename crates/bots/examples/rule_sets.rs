//! Measures the bot in the rule sets that call and rob (`rob`, `laizi`), in-process
//! through the rule crate:
//!
//! ```sh
//! cargo run --release -p gamehub-bots --example rule_sets [deals]
//! ```
//!
//! Every decision (call, rob, double, show) is the bot's own ([`BotSeat`]); what varies
//! is who plays the cards:
//!
//! - **bot ×3**: the bot in every seat. Per number of robs: how often the landlord won
//!   and its average points; how often each decision was taken and how often the one who
//!   took it won (a double or a show that loses more often than it wins costs points).
//! - **landlord bot vs farmers baseline**, and the reverse: the baseline plays the
//!   classic bot's strategy with every card read as itself (in `laizi`: a wild card only
//!   ever stands for its own rank). The bot's wild plays should win more as either side.
//! - **landlord bot vs random farmers**, and the reverse.
//!
//! The classic figures to compare with (`examples/bidding.rs`, `examples/strength.rs`):
//! the classic bot as bidder and player.
//!
//! [`BotSeat`]: gamehub_bots::doudizhu::BotSeat

use doudizhu_rules::{RuleSet, Seed};
use gamehub_bots::arena::{Player, RuleSetResult, rule_set_deal};
use rand::{Rng, SeedableRng};

#[derive(Default)]
struct Tally {
    deals: u32,
    redeals: u32,
    /// By robs (0–3): deals, landlord wins, landlord points.
    by_robs: [(u32, u32, i64); 4],
    /// Doubles by farmers: (taken, taker's side won).
    farmer_doubles: (u32, u32),
    /// Doubles by the landlord: (taken, landlord won).
    landlord_doubles: (u32, u32),
    /// Shows: (taken, landlord won).
    shows: (u32, u32),
    landlord_wins: u32,
    bombs: (u32, u32, u32),
}

impl Tally {
    fn add(&mut self, result: Option<RuleSetResult>) {
        let Some(r) = result else {
            self.redeals += 1;
            return;
        };
        self.deals += 1;
        let s = &r.settlement;
        let robs = usize::from(s.robs.min(3));
        let landlord_points = s.points[r.landlord.index()];
        let entry = &mut self.by_robs[robs];
        entry.0 += 1;
        entry.1 += u32::from(r.landlord_won);
        entry.2 += landlord_points;
        self.landlord_wins += u32::from(r.landlord_won);
        for (seat, doubled) in s.doubled.iter().enumerate() {
            if !doubled {
                continue;
            }
            if seat == r.landlord.index() {
                self.landlord_doubles.0 += 1;
                self.landlord_doubles.1 += u32::from(r.landlord_won);
            } else {
                self.farmer_doubles.0 += 1;
                self.farmer_doubles.1 += u32::from(!r.landlord_won);
            }
        }
        if s.shown {
            self.shows.0 += 1;
            self.shows.1 += u32::from(r.landlord_won);
        }
        self.bombs.0 += u32::from(s.bombs);
        self.bombs.1 += u32::from(s.soft_bombs);
        self.bombs.2 += u32::from(s.wild_bombs);
    }

    fn rate(n: u32, of: u32) -> String {
        if of == 0 {
            "   -".into()
        } else {
            format!("{:>3.0}%", 100.0 * f64::from(n) / f64::from(of))
        }
    }

    fn print_full(&self) {
        println!(
            "    deals {} (redeals {}), landlord won {}",
            self.deals,
            self.redeals,
            Self::rate(self.landlord_wins, self.deals)
        );
        for (robs, (deals, wins, points)) in self.by_robs.iter().enumerate() {
            if *deals == 0 {
                continue;
            }
            println!(
                "    {robs} rob(s): {deals:>5} deals, landlord won {}, average landlord points {:+.1}",
                Self::rate(*wins, *deals),
                *points as f64 / f64::from(*deals)
            );
        }
        println!(
            "    farmers doubled {} times (side won {}); landlords doubled {} (won {}); showed {} (won {})",
            self.farmer_doubles.0,
            Self::rate(self.farmer_doubles.1, self.farmer_doubles.0),
            self.landlord_doubles.0,
            Self::rate(self.landlord_doubles.1, self.landlord_doubles.0),
            self.shows.0,
            Self::rate(self.shows.1, self.shows.0),
        );
        println!(
            "    bombs per deal: hard/classic {:.2}, soft {:.2}, wild {:.3}",
            f64::from(self.bombs.0) / f64::from(self.deals.max(1)),
            f64::from(self.bombs.1) / f64::from(self.deals.max(1)),
            f64::from(self.bombs.2) / f64::from(self.deals.max(1)),
        );
    }
}

fn seed<R: Rng>(rng: &mut R) -> Seed {
    Seed::from_bytes(rng.random())
}

fn main() {
    let deals: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(400);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(20261206);
    for rule_set in [RuleSet::Rob, RuleSet::Laizi] {
        println!("{rule_set}: {deals} deals per line");
        let mut all = Tally::default();
        for _ in 0..deals {
            all.add(rule_set_deal(
                seed(&mut rng),
                rule_set,
                [Player::Bot; 3],
                &mut rng,
            ));
        }
        println!("  bot ×3 (every decision and play the bot's)");
        all.print_full();
        for (name, farmers) in [("baseline", Player::Baseline), ("random", Player::Random)] {
            let (mut as_landlord, mut as_farmers) = (Tally::default(), Tally::default());
            for _ in 0..deals {
                let s = seed(&mut rng);
                // Who becomes landlord is the bots' decision; the players of the cards
                // are assigned once it is known, by playing the deal twice.
                if let Some(r) = rule_set_deal(s, rule_set, [Player::Bot; 3], &mut rng) {
                    let mut players = [farmers; 3];
                    players[r.landlord.index()] = Player::Bot;
                    as_landlord.add(rule_set_deal(s, rule_set, players, &mut rng));
                    let mut players = [Player::Bot; 3];
                    players[r.landlord.index()] = farmers;
                    as_farmers.add(rule_set_deal(s, rule_set, players, &mut rng));
                }
            }
            println!(
                "  bot landlord vs {name} farmers: landlord won {} of {}",
                Tally::rate(as_landlord.landlord_wins, as_landlord.deals),
                as_landlord.deals
            );
            println!(
                "  {name} landlord vs bot farmers: farmers won {} of {}",
                Tally::rate(
                    as_farmers.deals - as_farmers.landlord_wins,
                    as_farmers.deals
                ),
                as_farmers.deals
            );
        }
    }
}
