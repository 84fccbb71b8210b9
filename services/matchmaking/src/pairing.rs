//! Who sits with whom: pure functions over the waiting tickets of one room, in queue
//! order (oldest first). No Redis, no clocks: the matcher passes how long each ticket
//! has waited.
//!
//! - Unrated rooms: tables in queue order (formed inside Redis by
//!   [`crate::store::TicketStore::take`]).
//! - Rated Gomoku rooms: close ratings ([`pair_by_rating`]). Two tickets may pair when
//!   their ratings differ by at most the [`RatingWindow`] of the one that came first in
//!   the queue; the window widens the longer that ticket waits, without bound, so
//!   nobody waits forever while a partner exists. The oldest ticket chooses first and
//!   takes the closest rating in its window (the older of two equally close).

use std::collections::BTreeSet;

/// A waiting ticket as the pairing sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate {
    /// The player's Gomoku rating when it enqueued.
    pub rating: i64,
    /// How long the ticket has waited so far.
    pub waited_ms: u64,
}

/// The rating gap a ticket accepts: `base` at once, growing by `growth_per_second` for
/// every second it has waited, without bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RatingWindow {
    /// The gap accepted at once (±).
    pub base: i64,
    /// How much the gap widens per second of waiting.
    pub growth_per_second: i64,
}

impl Default for RatingWindow {
    fn default() -> Self {
        Self {
            base: 100,
            growth_per_second: 50,
        }
    }
}

impl RatingWindow {
    /// The gap accepted after waiting `waited_ms`.
    pub fn width(&self, waited_ms: u64) -> i64 {
        let grown = i128::from(self.growth_per_second) * i128::from(waited_ms) / 1000;
        let width = i128::from(self.base) + grown;
        i64::try_from(width.max(0)).unwrap_or(i64::MAX)
    }

    /// Whether `first` (earlier in the queue) and `second` may sit together.
    pub fn admits(&self, first: &Candidate, second: &Candidate) -> bool {
        let gap = i128::from(first.rating) - i128::from(second.rating);
        gap.unsigned_abs() <= u128::from(self.width(first.waited_ms).unsigned_abs())
    }
}

/// Pairs for a rated room, as indexes into `candidates` (queue order, oldest first),
/// the earlier ticket of each pair first; at most `max_pairs`.
///
/// Greedy, oldest first: each ticket in turn takes the closest rating among the later
/// tickets still free, if it lies within its window. The result is maximal: no two
/// tickets left over could pair with each other (unless `max_pairs` stopped it).
pub fn pair_by_rating(
    candidates: &[Candidate],
    window: &RatingWindow,
    max_pairs: usize,
) -> Vec<[usize; 2]> {
    let mut free: BTreeSet<(i64, usize)> = candidates
        .iter()
        .enumerate()
        .map(|(i, c)| (c.rating, i))
        .collect();
    let mut pairs = Vec::new();
    for (i, first) in candidates.iter().enumerate() {
        if pairs.len() >= max_pairs {
            break;
        }
        if !free.remove(&(first.rating, i)) {
            continue; // taken by an older ticket
        }
        // The closest rating at or above, the oldest among equals.
        let above = free.range((first.rating, 0)..).next().copied();
        // The closest rating below, the oldest among equals.
        let below = free
            .range(..(first.rating, 0))
            .next_back()
            .and_then(|&(rating, _)| free.range((rating, 0)..).next().copied());
        let best = match (above, below) {
            (Some(a), Some(b)) => {
                let gap_a = a.0.abs_diff(first.rating);
                let gap_b = b.0.abs_diff(first.rating);
                if gap_a < gap_b || (gap_a == gap_b && a.1 < b.1) {
                    Some(a)
                } else {
                    Some(b)
                }
            }
            (a, b) => a.or(b),
        };
        if let Some(partner) = best
            && window.admits(first, &candidates[partner.1])
        {
            free.remove(&partner);
            pairs.push([i, partner.1]);
        }
    }
    debug_assert!(pairs.iter().all(|[a, b]| a < b));
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn c(rating: i64, waited_ms: u64) -> Candidate {
        Candidate { rating, waited_ms }
    }

    #[test]
    fn the_window_widens_with_waiting() {
        let w = RatingWindow::default();
        assert_eq!(w.width(0), 100);
        assert_eq!(w.width(1_000), 150);
        assert_eq!(w.width(10_500), 625);
        assert!(w.width(u64::MAX) > 1_000_000_000);
        let steep = RatingWindow {
            base: 1,
            growth_per_second: i64::MAX,
        };
        assert_eq!(steep.width(u64::MAX), i64::MAX);
    }

    #[test]
    fn close_ratings_pair_and_far_ones_wait() {
        let w = RatingWindow::default();
        let pairs = pair_by_rating(&[c(2000, 0), c(2500, 0), c(2050, 0)], &w, 10);
        assert_eq!(pairs, vec![[0, 2]]);
        // After 8 s the oldest accepts a gap of 500.
        let pairs = pair_by_rating(&[c(2000, 8_000), c(2500, 0)], &w, 10);
        assert_eq!(pairs, vec![[0, 1]]);
    }

    #[test]
    fn the_oldest_takes_the_closest_rating_and_the_older_of_equals() {
        let w = RatingWindow::default();
        let pairs = pair_by_rating(&[c(2000, 0), c(2080, 0), c(1960, 0), c(2030, 0)], &w, 10);
        assert_eq!(pairs[0], [0, 3]);
        let pairs = pair_by_rating(&[c(2000, 0), c(2030, 0), c(1970, 0)], &w, 10);
        assert_eq!(pairs, vec![[0, 1]]);
    }

    fn candidates() -> impl Strategy<Value = Vec<Candidate>> {
        prop::collection::vec(
            (1500i64..2600, 0u64..30_000).prop_map(|(rating, waited_ms)| c(rating, waited_ms)),
            0..60,
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        #[test]
        fn pairs_never_leave_the_window(cands in candidates(), base in 0i64..300, growth in 0i64..100) {
            let w = RatingWindow { base, growth_per_second: growth };
            for [a, b] in pair_by_rating(&cands, &w, usize::MAX) {
                prop_assert!(a < b);
                prop_assert!(cands[a].rating.abs_diff(cands[b].rating) <= w.width(cands[a].waited_ms).unsigned_abs());
            }
        }

        #[test]
        fn nobody_is_paired_twice_and_no_two_leftovers_could_pair(cands in candidates()) {
            let w = RatingWindow::default();
            let pairs = pair_by_rating(&cands, &w, usize::MAX);
            let mut used = vec![false; cands.len()];
            for [a, b] in &pairs {
                prop_assert!(!used[*a] && !used[*b]);
                used[*a] = true;
                used[*b] = true;
            }
            let left: Vec<usize> = (0..cands.len()).filter(|&i| !used[i]).collect();
            for (x, &i) in left.iter().enumerate() {
                for &j in &left[x + 1..] {
                    prop_assert!(!w.admits(&cands[i], &cands[j]), "{i} and {j} could pair");
                }
            }
        }

        #[test]
        fn the_oldest_ticket_with_a_partner_is_paired(cands in candidates()) {
            let w = RatingWindow::default();
            let pairs = pair_by_rating(&cands, &w, usize::MAX);
            if let Some(first) = cands.first() {
                let has_partner = cands[1..].iter().any(|other| w.admits(first, other));
                prop_assert_eq!(has_partner, pairs.first().is_some_and(|p| p[0] == 0));
            }
        }

        #[test]
        fn everyone_pairs_eventually_while_a_partner_waits(cands in candidates(), growth in 1i64..100) {
            // No arrivals: as time passes every window widens, so all but (at most) one
            // ticket end up seated.
            let w = RatingWindow { base: 0, growth_per_second: growth };
            let mut waiting = cands.clone();
            for _round in 0..200 {
                let pairs = pair_by_rating(&waiting, &w, usize::MAX);
                let seated: BTreeSet<usize> = pairs.iter().flatten().copied().collect();
                waiting = waiting
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !seated.contains(i))
                    .map(|(_, c)| c)
                    .map(|c| Candidate { rating: c.rating, waited_ms: c.waited_ms + 10_000 })
                    .collect();
                if waiting.len() <= 1 {
                    break;
                }
            }
            prop_assert!(waiting.len() <= 1, "{} still waiting", waiting.len());
        }

        #[test]
        fn the_pair_limit_is_respected(cands in candidates(), max in 0usize..5) {
            prop_assert!(pair_by_rating(&cands, &RatingWindow::default(), max).len() <= max);
        }
    }
}
