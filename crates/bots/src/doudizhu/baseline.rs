//! The previous Dou Dizhu player, kept to measure the current one against (`examples/
//! strength.rs`, the arena). Not used by the platform.
//!
//! - **Bidding** from hand strength: jokers, 2s, aces and bombs.
//! - **Leading**: go out if one play empties the hand; otherwise shed the lowest-ranked
//!   combination, the longer the better (a triple with its kicker before a lone single),
//!   keeping bombs and the rocket; when an opponent holds one card, avoid singles.
//! - **Following**: never beat the partner (a farmer whose partner leads the trick
//!   passes unless it can go out); beat an opponent with the smallest play that does not
//!   break a bomb; bomb only to stop an opponent close to going out, or to go out.
//!
//! Every play comes from the rule crate's [`legal_plays`]; nothing here judges a rule.

use doudizhu_rules::{Bid, Combination, Kind, Play, Rank, RankCounts, Seat, legal_plays};
use rand::Rng;

/// What one seat knows when it is its turn to play.
#[derive(Debug, Clone)]
pub struct Situation {
    /// The seat deciding.
    pub seat: Seat,
    /// Its cards, as ranks.
    pub hand: RankCounts,
    /// The landlord (地主).
    pub landlord: Seat,
    /// The play to beat and who made it; `None` when this seat leads.
    pub to_beat: Option<(Seat, Combination)>,
    /// Cards left in each seat's hand.
    pub cards_left: [u8; 3],
}

impl Situation {
    fn is_opponent(&self, other: Seat) -> bool {
        other != self.seat && (self.seat == self.landlord || other == self.landlord)
    }

    /// The fewest cards any opponent holds.
    fn opponent_min_cards(&self) -> u8 {
        (0..3u8)
            .filter_map(Seat::new)
            .filter(|&s| self.is_opponent(s))
            .map(|s| self.cards_left[s.index()])
            .min()
            .unwrap_or(u8::MAX)
    }
}

/// The hand's strength for bidding: jokers, 2s, aces and bombs.
pub fn hand_strength(hand: &RankCounts) -> u32 {
    let mut score = 0u32;
    for rank in Rank::ALL {
        let n = u32::from(hand.count(rank));
        score += match rank {
            Rank::BigJoker => 4 * n,
            Rank::SmallJoker => 3 * n,
            Rank::Two => 2 * n,
            Rank::Ace => n,
            _ => 0,
        };
        if n == 4 && rank != Rank::Two {
            score += 5;
        }
    }
    score
}

/// The bid for `hand` when `highest` is the best bid so far (`Bid::Pass` if none).
pub fn bid(hand: &RankCounts, highest: Bid) -> Bid {
    let wanted = match hand_strength(hand) {
        s if s >= 12 => Bid::Three,
        s if s >= 9 => Bid::Two,
        s if s >= 6 => Bid::One,
        _ => Bid::Pass,
    };
    if wanted.points() > highest.points() {
        wanted
    } else {
        Bid::Pass
    }
}

fn is_bomb(play: &Play) -> bool {
    matches!(play.combination.kind, Kind::Bomb | Kind::Rocket)
}

/// Whether `play` takes cards from a rank the hand holds four of, without being that
/// bomb.
fn breaks_bomb(hand: &RankCounts, play: &Play) -> bool {
    !is_bomb(play)
        && Rank::ALL
            .iter()
            .any(|&r| hand.count(r) == 4 && play.ranks.count(r) > 0)
}

/// What to play, or `None` to pass.
pub fn play(s: &Situation) -> Option<RankCounts> {
    let previous = s.to_beat.map(|(_, c)| c);
    let plays = legal_plays(&s.hand, previous.as_ref());
    if plays.is_empty() {
        return None;
    }
    // Go out at once when one play empties the hand.
    if let Some(out) = plays.iter().find(|p| p.ranks.len() == s.hand.len()) {
        return Some(out.ranks);
    }
    match s.to_beat {
        None => Some(lead(s, &plays)),
        Some((owner, _)) => follow(s, owner, &plays),
    }
}

fn lead(s: &Situation, plays: &[Play]) -> RankCounts {
    let danger = s.opponent_min_cards() == 1;
    let keeps: Vec<&Play> = plays
        .iter()
        .filter(|p| !is_bomb(p) && !breaks_bomb(&s.hand, p))
        .collect();
    let pool: Vec<&Play> = if keeps.is_empty() {
        plays.iter().collect()
    } else {
        keeps
    };
    let best = if danger {
        // An opponent is about to go out: lead anything but a single, or our top single.
        pool.iter()
            .filter(|p| p.combination.kind != Kind::Single)
            .min_by_key(|p| (p.combination.rank.index(), std::cmp::Reverse(p.ranks.len())))
            .or_else(|| pool.iter().max_by_key(|p| p.combination.rank.index()))
    } else {
        pool.iter()
            .min_by_key(|p| (p.combination.rank.index(), std::cmp::Reverse(p.ranks.len())))
    };
    // `plays` is not empty, so neither is `pool`.
    best.map_or(plays[0].ranks, |p| p.ranks)
}

fn follow(s: &Situation, owner: Seat, plays: &[Play]) -> Option<RankCounts> {
    if !s.is_opponent(owner) {
        // The partner holds the trick: let it run.
        return None;
    }
    let owner_cards = s.cards_left[owner.index()];
    let ordinary = plays
        .iter()
        .filter(|p| !is_bomb(p) && !breaks_bomb(&s.hand, p))
        .min_by_key(|p| (p.combination.rank.index(), p.ranks.len()));
    if let Some(play) = ordinary {
        // Do not spend a 2 or a joker on a low single or pair early in the deal.
        let expensive = play.combination.rank >= Rank::Two && play.combination.length == 1;
        if expensive && owner_cards > 6 && s.hand.len() > 6 {
            return None;
        }
        return Some(play.ranks);
    }
    // Only bombs (or bomb-breaking plays) beat it: use the smallest bomb when the
    // opponent is close to going out or we are.
    let urgent = owner_cards <= 4 || s.hand.len() <= 6;
    if urgent {
        return plays
            .iter()
            .filter(|p| is_bomb(p))
            .min_by_key(|p| {
                (
                    p.combination.kind == Kind::Rocket,
                    p.combination.rank.index(),
                )
            })
            .map(|p| p.ranks);
    }
    None
}

/// A uniformly random bid among those allowed.
pub fn random_bid<R: Rng + ?Sized>(highest: Bid, rng: &mut R) -> Bid {
    let allowed: Vec<Bid> = [Bid::Pass, Bid::One, Bid::Two, Bid::Three]
        .into_iter()
        .filter(|b| *b == Bid::Pass || b.points() > highest.points())
        .collect();
    allowed[rng.random_range(0..allowed.len())]
}

/// A uniformly random legal play, or a pass (one choice among the plays) when following.
pub fn random_play<R: Rng + ?Sized>(
    hand: &RankCounts,
    to_beat: Option<&Combination>,
    rng: &mut R,
) -> Option<RankCounts> {
    let plays = legal_plays(hand, to_beat);
    let choices = plays.len() + usize::from(to_beat.is_some());
    if choices == 0 {
        return None;
    }
    let pick = rng.random_range(0..choices);
    plays.get(pick).map(|p| p.ranks)
}
