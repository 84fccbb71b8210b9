//! Playing whole games between strategies in-process, through the rule crates' own state
//! machines — how the bots are measured (`examples/strength.rs`) and tested.

use doudizhu_rules::{
    AutoPlayer, Bid, Choice, Deal, DealRules, Decision, Phase as DealPhase, RuleSet as DdzRuleSet,
    Seat as DdzSeat, Seed, Settlement, wild_plays,
};
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
        rule_set: doudizhu_rules::RuleSet::Classic,
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
            // Classic deals never double or show (see `rule_set_deal`).
            DealPhase::Doubling | DealPhase::Showing => return None,
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

/// The result of one deal of a rule set that calls and robs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleSetResult {
    /// The whole settlement (robs, doubles, show, bombs, points).
    pub settlement: Settlement,
    /// The landlord.
    pub landlord: DdzSeat,
    /// Whether the landlord won.
    pub landlord_won: bool,
}

/// Plays one deal of `rule_set` (`rob` or `laizi`) from `seed`, seat 0 first to call.
/// Every decision is the bot's in its own seat ([`doudizhu::BotSeat`]: calls, robs,
/// doubles, shows). The plays are `players`': [`Player::Bot`] the bot (with wild cards
/// in laizi), [`Player::Baseline`] the classic strategy with every card read as itself
/// (the classic bot's judgement, wilds never standing in), [`Player::Random`] a random
/// legal play. None for a redeal (nobody called).
pub fn rule_set_deal<R: Rng + ?Sized>(
    seed: Seed,
    rule_set: DdzRuleSet,
    players: [Player; 3],
    rng: &mut R,
) -> Option<RuleSetResult> {
    let rules = DealRules {
        points_base: 1,
        time: doudizhu_rules::TimeControl {
            turn_ms: 0,
            auto_turn_ms: 0,
        },
        rule_set,
    };
    let first = DdzSeat::new(0)?;
    let (mut deal, _) = Deal::new("arena", seed, first, rules, 0).ok()?;
    let bot = doudizhu::BotSeat;
    for _ in 0..400 {
        let Some((seat, decision)) = deal.decision() else {
            break;
        };
        let view = deal.view(seat);
        let hand = deal.hand(seat).rank_counts();
        let done = match decision {
            Decision::Bid => deal.bid(seat, bot.bid(&view), 0),
            Decision::Call => deal.call(seat, bot.call(&view), 0),
            Decision::Rob => deal.rob(seat, bot.rob(&view), 0),
            Decision::Double => deal.double(seat, bot.double(&view), 0),
            Decision::Show => deal.show(seat, bot.show(&view), 0),
            Decision::Play => {
                let choice: Option<Choice> = match players[seat.index()] {
                    Player::Bot => bot.choose(&view),
                    Player::Baseline => doudizhu::play(&doudizhu::Situation::from_view(&view)?)
                        .map(|ranks| Choice {
                            cards: ranks,
                            meant: Some(ranks),
                        }),
                    Player::Random => {
                        let trick = deal.trick().map(|t| t.reading());
                        let plays = match view.wild_rank {
                            Some(wild) => wild_plays(&hand, wild, trick.as_ref()),
                            None => deal.wild_plays(seat).ok()?,
                        };
                        let pick = rng.random_range(0..plays.len() + usize::from(trick.is_some()));
                        plays.get(pick).map(|p| Choice {
                            cards: p.cards,
                            meant: Some(p.meant),
                        })
                    }
                };
                let played = choice.and_then(|choice| {
                    let cards = deal.hand(seat).pick(&choice.cards)?.to_vec();
                    let meant = choice.meant.filter(|_| rule_set.has_wilds());
                    deal.play_as(seat, &cards, meant.as_ref(), 0).ok()
                });
                match played {
                    Some(events) => Ok(events),
                    // A pass, or a play the rules refused (the baseline's, read as
                    // itself, may not beat a laizi trick): a pass, or the smallest lead.
                    None if deal.trick().is_some() => deal.pass(seat, 0),
                    None => {
                        let lead = deal.wild_plays(seat).ok()?.first().copied()?;
                        let cards = deal.hand(seat).pick(&lead.cards)?.to_vec();
                        let meant = Some(lead.meant).filter(|_| rule_set.has_wilds());
                        deal.play_as(seat, &cards, meant.as_ref(), 0)
                    }
                }
            }
        };
        done.ok()?;
    }
    let settlement = *deal.settlement()?;
    let landlord = settlement.landlord?;
    Some(RuleSetResult {
        settlement,
        landlord,
        landlord_won: settlement.outcome == doudizhu_rules::Outcome::LandlordWon,
    })
}
