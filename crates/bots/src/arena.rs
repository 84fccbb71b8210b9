//! Playing whole games between strategies in-process, through the rule crates' own state
//! machines — how the bots are measured (`examples/strength.rs`) and tested.

use doudizhu_rules::{Bid, Deal, DealRules, Phase as DealPhase, Seat as DdzSeat, Seed};
use gomoku_rules::{Game, GameConfig, Outcome, RuleSet, Seat, TimeControl};
use rand::Rng;

use crate::{doudizhu, gomoku};

/// Who plays a seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Player {
    /// The strategy of this crate.
    Bot,
    /// The previous Dou Dizhu strategy ([`doudizhu::baseline`]); the Gomoku bot in Gomoku.
    Baseline,
    /// Uniformly random legal moves.
    Random,
}

/// Plays one Gomoku game; returns the winning seat (None for a draw).
pub fn gomoku_game<R: Rng + ?Sized>(
    rule_set: RuleSet,
    black_seat: Seat,
    players: [Player; 2],
    rng: &mut R,
) -> Option<Seat> {
    let config = GameConfig {
        rule_set,
        time_control: TimeControl {
            per_move_ms: 0,
            total_ms: 0,
        },
        black_seat,
    };
    let mut game = Game::new(config, 0);
    for _ in 0..600 {
        let Some(seat) = game.to_act() else { break };
        let action = match players[seat.index()] {
            Player::Bot | Player::Baseline => gomoku::decide(&game, seat, rng),
            Player::Random => gomoku::random_move(&game, seat, rng),
        };
        let Some(action) = action else { break };
        if game.act(seat, action, 0).is_err() {
            break;
        }
    }
    match game.result() {
        Some(result) if result.outcome != Outcome::Draw => result.winner,
        _ => None,
    }
}

/// The result of one Dou Dizhu deal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DealResult {
    /// The landlord.
    pub landlord: DdzSeat,
    /// The winning bid.
    pub bid: Bid,
    /// Whether the landlord won.
    pub landlord_won: bool,
    /// The landlord's points (bid × points base × multiplier, twice: both farmers pay).
    pub landlord_points: i64,
}

/// How the landlord of an arena deal is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bidding {
    /// This seat bids three, the others pass.
    Forced(DdzSeat),
    /// Each seat bids by this strategy (seat 0 first).
    By([Player; 3]),
}

/// Plays one deal from `seed`, the seats' cards played by `players`, the landlord chosen
/// by `bidding`. Returns None when everyone passed.
pub fn doudizhu_deal<R: Rng + ?Sized>(
    seed: Seed,
    players: [Player; 3],
    bidding: Bidding,
    rng: &mut R,
) -> Option<DealResult> {
    let rules = DealRules {
        points_base: 1,
        time: doudizhu_rules::TimeControl {
            turn_ms: 0,
            auto_turn_ms: 0,
        },
    };
    let first = DdzSeat::new(0)?;
    let (mut deal, _) = Deal::new("arena", seed, first, rules, 0).ok()?;
    for _ in 0..400 {
        let Some(seat) = deal.to_act() else { break };
        let view = deal.view(seat);
        let hand = deal.hand(seat).rank_counts();
        match deal.phase() {
            DealPhase::Bidding => {
                let highest = view
                    .bids
                    .iter()
                    .map(|b| b.bid)
                    .max_by_key(|b| b.points())
                    .unwrap_or(Bid::Pass);
                let bid = match bidding {
                    Bidding::Forced(landlord) if landlord == seat => Bid::Three,
                    Bidding::Forced(_) => Bid::Pass,
                    Bidding::By(bidders) => match bidders[seat.index()] {
                        Player::Bot => doudizhu::bid(&hand, highest),
                        Player::Baseline => doudizhu::baseline::bid(&hand, highest),
                        Player::Random => doudizhu::random_bid(highest, rng),
                    },
                };
                deal.bid(seat, bid, 0).ok()?;
            }
            DealPhase::Playing => {
                let trick = deal.trick().map(|t| (t.seat, t.combination));
                let choice = match players[seat.index()] {
                    Player::Bot => doudizhu::play(&doudizhu::Situation::from_view(&view)?),
                    Player::Baseline => doudizhu::baseline::play(&doudizhu::baseline::Situation {
                        seat,
                        hand,
                        landlord: deal.landlord()?,
                        to_beat: trick,
                        cards_left: view.cards_left,
                    }),
                    Player::Random => {
                        doudizhu::random_play(&hand, trick.map(|t| t.1).as_ref(), rng)
                    }
                };
                match choice {
                    Some(ranks) => {
                        let cards = deal.hand(seat).pick(&ranks)?.to_vec();
                        deal.play(seat, &cards, 0).ok()?;
                    }
                    None => {
                        deal.pass(seat, 0).ok()?;
                    }
                }
            }
            DealPhase::Finished => break,
        }
    }
    let settlement = deal.settlement()?;
    let landlord = settlement.landlord?;
    Some(DealResult {
        landlord,
        bid: deal.view(landlord).landlord?.bid,
        landlord_won: settlement.outcome == doudizhu_rules::Outcome::LandlordWon,
        landlord_points: settlement.points[landlord.index()],
    })
}
