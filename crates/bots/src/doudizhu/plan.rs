//! Hand decomposition: the way to split a hand into combinations that needs the fewest
//! plays and keeps the strongest cards, with kickers taken from real singles and low
//! pairs.
//!
//! A plan is scored as `Σ group value − TURN_COST × plays`: every play the hand still
//! needs costs [`TURN_COST`], and a group is worth more the harder it is to beat (its
//! highest rank; bombs and the rocket most). The search covers the lowest card first,
//! either by its whole rank (a single, pair, triple or bomb) or by a chain starting at
//! it, so pairs, triples and airplanes are only split where a chain uses their cards.
//! Kickers are attached afterwards: each triple takes the lowest single below a 2, or
//! else the lowest pair below an ace; an airplane takes as many.
//!
//! Nothing here judges legality: a group is turned into a play by looking it up among
//! the rule crate's legal plays (see the parent module).

use std::collections::HashMap;

use doudizhu_rules::{Kind, Rank, RankCounts};

/// Number of ranks.
pub(crate) const RANKS: usize = Rank::COUNT;
pub(crate) type Counts = [u8; RANKS];

const ACE: usize = Rank::Ace as usize;
const TWO: usize = Rank::Two as usize;
const SMALL_JOKER: usize = Rank::SmallJoker as usize;
const BIG_JOKER: usize = Rank::BigJoker as usize;

/// What one more play needed to empty the hand costs in a plan's score.
pub const TURN_COST: i32 = 7;

/// Most search nodes spent on one hand; beyond it the best plan found so far stands.
const NODE_BUDGET: u32 = 20_000;

/// One combination of a plan: a body (chained `length` units of `width` cards from
/// `rank`, or a bomb, or the rocket) and the kickers attached to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Group {
    pub kind: Kind,
    /// Lowest rank of the body.
    pub rank: usize,
    /// Chained units (1 for anything but chains).
    pub length: u8,
    /// Kicker cards by rank (all zero without kickers).
    pub kickers: Counts,
}

impl Group {
    fn body(kind: Kind, rank: usize, length: u8) -> Group {
        Group {
            kind,
            rank,
            length,
            kickers: [0; RANKS],
        }
    }

    /// Cards of each rank in the body: 1, 2, 3 or 4 per chained rank.
    pub fn width(&self) -> u8 {
        match self.kind {
            Kind::Single | Kind::Straight | Kind::Rocket => 1,
            Kind::Pair | Kind::PairStraight => 2,
            Kind::Bomb | Kind::FourWithTwoSingles | Kind::FourWithTwoPairs => 4,
            _ => 3,
        }
    }

    /// The highest rank of the body.
    pub fn top(&self) -> usize {
        if self.kind == Kind::Rocket {
            BIG_JOKER
        } else {
            self.rank + usize::from(self.length) - 1
        }
    }

    /// The group's cards, kickers included.
    pub fn ranks(&self) -> RankCounts {
        let mut counts = self.kickers;
        if self.kind == Kind::Rocket {
            counts[SMALL_JOKER] += 1;
            counts[BIG_JOKER] += 1;
        } else {
            for c in &mut counts[self.rank..self.rank + usize::from(self.length)] {
                *c += self.width();
            }
        }
        RankCounts::from_counts(counts).expect("a group is made from one hand")
    }

    pub fn card_count(&self) -> usize {
        self.ranks().len()
    }

    /// Whether it is a bomb or the rocket.
    pub fn is_bomb(&self) -> bool {
        matches!(self.kind, Kind::Bomb | Kind::Rocket)
    }

    /// How hard the group is to beat: its highest rank, from −10 (a 3) to +4 (the big
    /// joker); bombs 8 and up, the rocket 12.
    pub fn value(&self) -> i32 {
        match self.kind {
            Kind::Rocket => 12,
            Kind::Bomb => 8 + self.rank as i32 / 4,
            _ => self.top() as i32 - 10,
        }
    }
}

/// A decomposition of a hand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The groups, kickers attached, lowest body first.
    pub groups: Vec<Group>,
    /// `Σ value − TURN_COST × turns`; higher is better.
    pub score: i32,
}

impl Plan {
    /// Plays needed to empty the hand if nobody beat any of them.
    pub fn turns(&self) -> usize {
        self.groups.len()
    }
}

/// Finds plans, remembering each hand's (hands repeat while one decision weighs its
/// candidate plays).
#[derive(Debug, Default)]
pub struct Planner {
    cache: HashMap<Counts, Plan>,
}

impl Planner {
    pub fn new() -> Planner {
        Planner::default()
    }

    /// The best plan for `hand`.
    pub fn plan(&mut self, hand: &RankCounts) -> Plan {
        let counts = *hand.counts();
        if let Some(plan) = self.cache.get(&counts) {
            return plan.clone();
        }
        let plan = best_plan(counts);
        self.cache.insert(counts, plan.clone());
        plan
    }
}

/// The best plan for a hand (an empty hand has an empty plan of score 0).
pub fn best_plan(mut counts: Counts) -> Plan {
    let mut search = Search {
        groups: Vec::with_capacity(20),
        best: None,
        budget: NODE_BUDGET,
    };
    search.run(&mut counts);
    search.best.unwrap_or(Plan {
        groups: Vec::new(),
        score: 0,
    })
}

struct Search {
    groups: Vec<Group>,
    best: Option<Plan>,
    budget: u32,
}

impl Search {
    fn run(&mut self, counts: &mut Counts) {
        if self.budget == 0 {
            return;
        }
        self.budget -= 1;
        let Some(r) = (0..RANKS).find(|&r| counts[r] > 0) else {
            let plan = with_kickers(&self.groups);
            if self.best.as_ref().is_none_or(|b| plan.score > b.score) {
                self.best = Some(plan);
            }
            return;
        };
        if r == SMALL_JOKER && counts[BIG_JOKER] == 1 {
            counts[SMALL_JOKER] = 0;
            counts[BIG_JOKER] = 0;
            self.with(Group::body(Kind::Rocket, SMALL_JOKER, 1), counts);
            counts[SMALL_JOKER] = 1;
            counts[BIG_JOKER] = 1;
            return;
        }
        // The whole rank as one group first: the plan it leads to is usually good.
        let n = counts[r];
        let kind = match n {
            1 => Kind::Single,
            2 => Kind::Pair,
            3 => Kind::Triple,
            _ => Kind::Bomb,
        };
        counts[r] = 0;
        self.with(Group::body(kind, r, 1), counts);
        counts[r] = n;
        if r > ACE {
            return;
        }
        for (width, shortest, kind) in [
            (1u8, 5usize, Kind::Straight),
            (2, 3, Kind::PairStraight),
            (3, 2, Kind::TripleStraight),
        ] {
            let run = (r..=ACE).take_while(|&q| counts[q] >= width).count();
            for length in shortest..=run {
                for c in &mut counts[r..r + length] {
                    *c -= width;
                }
                self.with(Group::body(kind, r, length as u8), counts);
                for c in &mut counts[r..r + length] {
                    *c += width;
                }
            }
        }
    }

    fn with(&mut self, group: Group, counts: &mut Counts) {
        self.groups.push(group);
        self.run(counts);
        self.groups.pop();
    }
}

/// Attaches kickers to the triples and airplanes of a decomposition and scores it.
fn with_kickers(bodies: &[Group]) -> Plan {
    let mut singles: Vec<usize> = Vec::new();
    let mut pairs: Vec<usize> = Vec::new();
    let mut carriers: Vec<Group> = Vec::new();
    let mut others: Vec<Group> = Vec::new();
    for g in bodies {
        match g.kind {
            Kind::Single if g.rank < TWO => singles.push(g.rank),
            Kind::Pair if g.rank < ACE => pairs.push(g.rank),
            Kind::Triple | Kind::TripleStraight => carriers.push(*g),
            _ => others.push(*g),
        }
    }
    singles.sort_unstable();
    pairs.sort_unstable();
    // Longest airplanes first (they need the most kickers), then low triples.
    carriers.sort_by_key(|g| (std::cmp::Reverse(g.length), g.rank));
    let mut used_singles: Vec<usize> = Vec::new();
    let mut used_pairs: Vec<usize> = Vec::new();
    let mut groups = Vec::with_capacity(bodies.len());
    for mut g in carriers {
        let need = usize::from(g.length);
        let (single_kind, pair_kind) = if g.kind == Kind::Triple {
            (Kind::TripleWithSingle, Kind::TripleWithPair)
        } else {
            (Kind::AirplaneWithSingles, Kind::AirplaneWithPairs)
        };
        // A kicker never shares a rank with the body (a chain may leave one behind).
        let body = g.rank..g.rank + need;
        let free_singles: Vec<usize> = singles
            .iter()
            .copied()
            .filter(|&k| !used_singles.contains(&k) && !body.contains(&k))
            .take(need)
            .collect();
        let free_pairs: Vec<usize> = pairs
            .iter()
            .copied()
            .filter(|&k| !used_pairs.contains(&k) && !body.contains(&k))
            .take(need)
            .collect();
        if free_singles.len() == need {
            for &k in &free_singles {
                g.kickers[k] += 1;
            }
            used_singles.extend(free_singles);
            g.kind = single_kind;
        } else if free_pairs.len() == need {
            for &k in &free_pairs {
                g.kickers[k] += 2;
            }
            used_pairs.extend(free_pairs);
            g.kind = pair_kind;
        }
        groups.push(g);
    }
    groups.extend(
        singles
            .iter()
            .filter(|r| !used_singles.contains(r))
            .map(|&r| Group::body(Kind::Single, r, 1)),
    );
    groups.extend(
        pairs
            .iter()
            .filter(|r| !used_pairs.contains(r))
            .map(|&r| Group::body(Kind::Pair, r, 1)),
    );
    groups.extend(others);
    groups.sort_by_key(|g| (g.rank, g.kind));
    let score = groups.iter().map(Group::value).sum::<i32>() - TURN_COST * groups.len() as i32;
    Plan { groups, score }
}

#[cfg(test)]
mod tests {
    use super::*;
    use doudizhu_rules::classify;

    fn plan(text: &str) -> Plan {
        best_plan(*RankCounts::parse(text).expect("rank text").counts())
    }

    fn shown(plan: &Plan) -> Vec<String> {
        plan.groups.iter().map(|g| g.ranks().to_string()).collect()
    }

    #[test]
    fn every_group_of_a_plan_is_a_combination_and_together_they_are_the_hand() {
        for text in [
            "3 3 4 4 5 5 6 6 7 8 9 T J Q K A 2 2 X D",
            "3 3 3 4 4 4 5 6 9 9 J J J K A 2 2",
            "3 4 5 6 7 8 9 T J Q K A 2 X D 3 3",
            "4 4 4 4 7 7 7 8 8 8 9 9 Q Q 2 X",
        ] {
            let p = plan(text);
            let mut total = [0u8; RANKS];
            for g in &p.groups {
                let ranks = g.ranks();
                let combination = classify(&ranks).expect("a combination");
                assert_eq!(combination.kind, g.kind, "{ranks}");
                for (t, c) in total.iter_mut().zip(ranks.counts()) {
                    *t += c;
                }
            }
            assert_eq!(&total, RankCounts::parse(text).expect("valid").counts());
        }
    }

    #[test]
    fn every_plan_of_random_hands_is_made_of_combinations() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(17);
        for _ in 0..3000 {
            let dealt = doudizhu_rules::deal(&doudizhu_rules::Seed::from_bytes(rng.random()));
            let hand = dealt.hands[0].union(dealt.kitty).rank_counts();
            let mut total = [0u8; RANKS];
            for g in &best_plan(*hand.counts()).groups {
                let ranks = g.ranks();
                assert_eq!(
                    classify(&ranks).map(|c| c.kind),
                    Some(g.kind),
                    "{ranks} of {hand}"
                );
                for (t, c) in total.iter_mut().zip(ranks.counts()) {
                    *t += c;
                }
            }
            assert_eq!(&total, hand.counts());
        }
    }

    #[test]
    fn a_kicker_never_shares_a_rank_with_its_airplane() {
        // 333 4444 555: the airplane leaves a 4, which must not be its kicker.
        let p = plan("3 3 3 4 4 4 4 5 5 5 9 J");
        for g in &p.groups {
            assert!(classify(&g.ranks()).is_some(), "{}", g.ranks());
        }
    }

    #[test]
    fn a_straight_is_kept_whole_and_a_triple_takes_the_lowest_single() {
        let p = plan("3 4 5 6 7 9 9 9 J 2");
        assert_eq!(shown(&p), ["3 4 5 6 7", "9 9 9 J", "2"]);
    }

    #[test]
    fn pairs_are_not_torn_into_a_straight_that_leaves_more_plays() {
        // 5 5 6 6 7 7 8 8 9 9 reads best as a pair straight, not two straights.
        let p = plan("5 5 6 6 7 7 8 8 9 9");
        assert_eq!(shown(&p), ["5 5 6 6 7 7 8 8 9 9"]);
    }

    #[test]
    fn an_airplane_takes_two_low_singles_and_keeps_the_two() {
        let p = plan("K K K A A A 3 5 2");
        assert_eq!(shown(&p), ["3 5 K K K A A A", "2"]);
    }

    #[test]
    fn kickers_come_from_low_pairs_when_there_is_no_single_and_never_from_the_2s() {
        let p = plan("8 8 8 4 4 2 2");
        assert_eq!(shown(&p), ["4 4 8 8 8", "2 2"]);
    }

    #[test]
    fn bombs_and_the_rocket_stay_whole() {
        let p = plan("7 7 7 7 X D 3");
        assert_eq!(shown(&p), ["3", "7 7 7 7", "X D"]);
    }
}
