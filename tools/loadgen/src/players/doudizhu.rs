//! Random Dou Dizhu choices: a bid among the valid ones (`gamehub_bots::doudizhu::random_bid`),
//! and a play among the legal ones (the rules crate's, or the server's hints) or a pass
//! with a chosen probability.

use doudizhu_rules::Bid;
use gamehub_bots::doudizhu as strategy;
use rand::Rng;
use rand::seq::IndexedRandom;

/// A random valid bid over the highest so far (`highest_points`, 0 when none), passing
/// included: its points, 0 for a pass.
pub fn random_bid<R: Rng + ?Sized>(highest_points: i32, rng: &mut R) -> i32 {
    let highest = u8::try_from(highest_points)
        .ok()
        .and_then(|p| Bid::try_from(p).ok())
        .unwrap_or(Bid::Pass);
    i32::from(strategy::random_bid(highest, rng).points())
}

/// What a seat does with its turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Turn<'a, T> {
    /// Plays this.
    Play(&'a T),
    /// Passes.
    Pass,
    /// Can neither play nor pass (leading with no legal play: the view is stale).
    Stuck,
}

/// A random turn over `plays` (the legal plays): when `can_pass` (following a trick),
/// a pass with probability `pass_probability` or when nothing can be played; else one
/// of `plays`, uniformly.
pub fn random_turn<'a, T, R: Rng + ?Sized>(
    plays: &'a [T],
    can_pass: bool,
    pass_probability: f64,
    rng: &mut R,
) -> Turn<'a, T> {
    if can_pass && (plays.is_empty() || rng.random_bool(pass_probability)) {
        return Turn::Pass;
    }
    match plays.choose(rng) {
        Some(play) => Turn::Play(play),
        None => Turn::Stuck,
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    use super::*;

    #[test]
    fn a_leader_plays_a_follower_may_pass_and_one_without_plays_passes() {
        let mut rng = StdRng::seed_from_u64(1);
        let plays = [1, 2, 3];
        for _ in 0..100 {
            assert!(matches!(
                random_turn(&plays, false, 0.9, &mut rng),
                Turn::Play(_)
            ));
            assert_eq!(random_turn::<u8, _>(&[], true, 0.0, &mut rng), Turn::Pass);
        }
        assert_eq!(random_turn::<u8, _>(&[], false, 0.5, &mut rng), Turn::Stuck);
    }

    #[test]
    fn a_follower_passes_about_as_often_as_asked() {
        let mut rng = StdRng::seed_from_u64(2);
        let passes = (0..10_000)
            .filter(|_| random_turn(&[1, 2], true, 0.3, &mut rng) == Turn::Pass)
            .count();
        assert!(
            (2_700..3_300).contains(&passes),
            "{passes} passes of 10,000"
        );
    }

    #[test]
    fn bids_are_a_pass_or_above_the_highest() {
        let mut rng = StdRng::seed_from_u64(3);
        for _ in 0..200 {
            assert!([0, 3].contains(&random_bid(2, &mut rng)));
            assert!([0, 1, 2, 3].contains(&random_bid(0, &mut rng)));
        }
    }
}
