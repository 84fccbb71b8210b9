//! Win/loss caps (输赢上限) and the clamping of a game's silver.
//!
//! A game asks each player for `points × silver per point` silver: losers pay (negative),
//! winners receive (positive), and whatever the points leave over (an escaper's penalty,
//! which has no counterparty) goes to the house. Each player's side is then limited:
//!
//! - a payer pays at most min(its balance, the per-game loss cap, what remains of today's
//!   loss cap, what it owes);
//! - a receiver gets at most min(the per-game win cap, what remains of today's win cap,
//!   what it is owed);
//! - the house gets at most what it is owed (it has no caps).
//!
//! [`allocate`] moves as much silver as those limits allow (maximal) while paying out
//! exactly what is paid in (zero-sum): the total is min(Σ payer limits, Σ receiver
//! limits). The side with slack shares that total max-min fairly (progressive filling):
//! everyone on that side gets the same amount, except those whose own limit is lower,
//! who get their limit. With whole silver a remainder of `r` silver (fewer than the
//! parties sharing it) goes one silver each to the first `r` unsaturated parties in
//! request order, the house last. So two players of one side with the same limits always end within
//! one silver of each other, and exactly alike when the total divides evenly.

use serde::Serialize;

/// The caps in force (configuration; the defaults are the seeds').
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Caps {
    /// Most silver a player wins in one game (单局限额).
    pub game_win_silver: i64,
    /// Most silver a player loses in one game, penalties included.
    pub game_loss_silver: i64,
    /// Most silver a player wins in one day (日总限额).
    pub daily_win_silver: i64,
    /// Most silver a player loses in one day, penalties included.
    pub daily_loss_silver: i64,
}

impl Default for Caps {
    fn default() -> Self {
        use gamehub_terms::caps;
        Self {
            game_win_silver: caps::DEFAULT_GAME_WIN_CAP_SILVER,
            game_loss_silver: caps::DEFAULT_GAME_LOSS_CAP_SILVER,
            daily_win_silver: caps::DEFAULT_DAILY_WIN_CAP_SILVER,
            daily_loss_silver: caps::DEFAULT_DAILY_LOSS_CAP_SILVER,
        }
    }
}

/// One player's side of a game's silver, as the rules asked for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stake {
    /// Points × silver per point: negative pays, positive receives.
    pub requested_silver: i64,
    /// The player's balance before the game.
    pub balance_silver: i64,
    /// Silver won today before this game.
    pub won_today_silver: i64,
    /// Silver lost today before this game (penalties included).
    pub lost_today_silver: i64,
}

/// Why a player moved less silver than the rules asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Limit {
    /// The payer's balance ran out.
    Balance,
    /// The per-game cap.
    GameCap,
    /// What remained of the daily cap.
    DailyCap,
    /// The other side's limits left nothing more to pay or receive.
    Counterparty,
}

impl Limit {
    /// The name used in the API (`PlayerSettlement.clamped_by`).
    pub fn as_str(self) -> &'static str {
        match self {
            Limit::Balance => "balance",
            Limit::GameCap => "game_cap",
            Limit::DailyCap => "daily_cap",
            Limit::Counterparty => "counterparty",
        }
    }
}

/// The silver a game actually moves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allocation {
    /// Per player, in the order of the stakes: negative paid, positive received.
    pub silver: Vec<i64>,
    /// Per player: why it moved less than requested, when it did.
    pub limited_by: Vec<Option<Limit>>,
    /// Silver the house receives.
    pub house_silver: i64,
}

/// The most a party can move, and which of its own limits sets that (`None`: the full
/// amount requested).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capacity {
    /// Silver, never negative.
    pub silver: i64,
    /// The binding limit; ties go to balance, then game cap, then daily cap.
    pub limit: Option<Limit>,
}

/// What `stake` can pay or receive under `caps`, ignoring the other players.
pub fn capacity(stake: &Stake, caps: &Caps) -> Capacity {
    let owed = stake.requested_silver.unsigned_abs();
    let owed = i64::try_from(owed).unwrap_or(i64::MAX);
    let limits: [(i64, Limit); 3] = if stake.requested_silver < 0 {
        [
            (stake.balance_silver.max(0), Limit::Balance),
            (caps.game_loss_silver.max(0), Limit::GameCap),
            (
                caps.daily_loss_silver
                    .saturating_sub(stake.lost_today_silver)
                    .max(0),
                Limit::DailyCap,
            ),
        ]
    } else {
        [
            (i64::MAX, Limit::Balance),
            (caps.game_win_silver.max(0), Limit::GameCap),
            (
                caps.daily_win_silver
                    .saturating_sub(stake.won_today_silver)
                    .max(0),
                Limit::DailyCap,
            ),
        ]
    };
    let mut best = Capacity {
        silver: owed,
        limit: None,
    };
    for (silver, limit) in limits {
        if silver < best.silver {
            best = Capacity {
                silver,
                limit: Some(limit),
            };
        }
    }
    best
}

/// Splits `total` silver over parties with the given capacities, max-min fairly (see the
/// module header for the remainder rule).
///
/// # Panics
/// If `total` is negative or exceeds the sum of the capacities (a bug in the caller).
pub fn water_fill(total: i64, capacities: &[i64]) -> Vec<i64> {
    let sum: i128 = capacities.iter().map(|&c| i128::from(c)).sum();
    assert!(
        total >= 0 && i128::from(total) <= sum,
        "water_fill: total {total} outside 0..={sum}"
    );
    let filled =
        |level: i64| -> i128 { capacities.iter().map(|&c| i128::from(c.min(level))).sum() };
    // The highest level whose filling does not exceed the total.
    let (mut low, mut high) = (0i64, capacities.iter().copied().max().unwrap_or(0));
    while low < high {
        let mid = low + (high - low + 1) / 2;
        if filled(mid) <= i128::from(total) {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    let level = low;
    let mut remainder = i128::from(total) - filled(level);
    capacities
        .iter()
        .map(|&c| {
            let mut share = c.min(level);
            if remainder > 0 && c > level {
                share += 1;
                remainder -= 1;
            }
            share
        })
        .collect()
}

/// Clamps a game's requested silver to the caps and balances (see the module header).
///
/// # Panics
/// If the requests sum to more than zero (winners would receive silver nobody pays); the
/// request validation refuses such games first.
pub fn allocate(stakes: &[Stake], caps: &Caps) -> Allocation {
    let requested: i128 = stakes.iter().map(|s| i128::from(s.requested_silver)).sum();
    assert!(requested <= 0, "allocate: requests sum to {requested} > 0");
    let house_claim = i64::try_from(-requested).unwrap_or(i64::MAX);
    let capacities: Vec<Capacity> = stakes.iter().map(|s| capacity(s, caps)).collect();

    let payers: Vec<usize> = (0..stakes.len())
        .filter(|&i| stakes[i].requested_silver < 0)
        .collect();
    let receivers: Vec<usize> = (0..stakes.len())
        .filter(|&i| stakes[i].requested_silver > 0)
        .collect();
    let payer_caps: Vec<i64> = payers.iter().map(|&i| capacities[i].silver).collect();
    // The house shares with the receivers, after them.
    let mut receiver_caps: Vec<i64> = receivers.iter().map(|&i| capacities[i].silver).collect();
    receiver_caps.push(house_claim);

    let paid_max: i128 = payer_caps.iter().map(|&c| i128::from(c)).sum();
    let received_max: i128 = receiver_caps.iter().map(|&c| i128::from(c)).sum();
    let total = i64::try_from(paid_max.min(received_max)).unwrap_or(i64::MAX);

    let (paid, received) = if paid_max <= received_max {
        (payer_caps.clone(), water_fill(total, &receiver_caps))
    } else {
        (water_fill(total, &payer_caps), receiver_caps.clone())
    };

    let mut silver = vec![0i64; stakes.len()];
    for (k, &i) in payers.iter().enumerate() {
        silver[i] = -paid[k];
    }
    for (k, &i) in receivers.iter().enumerate() {
        silver[i] = received[k];
    }
    let house_silver = received.last().copied().unwrap_or(0);

    let limited_by = stakes
        .iter()
        .zip(&capacities)
        .zip(&silver)
        .map(|((stake, cap), &moved)| {
            if moved.unsigned_abs() == stake.requested_silver.unsigned_abs() {
                None
            } else if moved.abs() == cap.silver {
                cap.limit
            } else {
                Some(Limit::Counterparty)
            }
        })
        .collect();

    let allocation = Allocation {
        silver,
        limited_by,
        house_silver,
    };
    debug_assert_eq!(
        allocation
            .silver
            .iter()
            .map(|&s| i128::from(s))
            .sum::<i128>()
            + i128::from(allocation.house_silver),
        0
    );
    allocation
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn stake(requested_silver: i64, balance_silver: i64) -> Stake {
        Stake {
            requested_silver,
            balance_silver,
            won_today_silver: 0,
            lost_today_silver: 0,
        }
    }

    #[test]
    fn nothing_clamps_a_small_game() {
        let a = allocate(&[stake(-500, 10_000), stake(500, 0)], &Caps::default());
        assert_eq!(a.silver, vec![-500, 500]);
        assert_eq!(a.limited_by, vec![None, None]);
        assert_eq!(a.house_silver, 0);
    }

    #[test]
    fn the_loser_pays_at_most_its_balance() {
        let a = allocate(&[stake(-5_000, 1_200), stake(5_000, 0)], &Caps::default());
        assert_eq!(a.silver, vec![-1_200, 1_200]);
        assert_eq!(
            a.limited_by,
            vec![Some(Limit::Balance), Some(Limit::Counterparty)]
        );
    }

    #[test]
    fn the_winner_gets_at_most_the_game_cap() {
        // One player wins 2 × 40,000 and each of the other two owes 40,000: the winner's
        // 50,000 cap binds and the two pay 25,000 each.
        let a = allocate(
            &[
                stake(80_000, 0),
                stake(-40_000, 1_000_000),
                stake(-40_000, 1_000_000),
            ],
            &Caps::default(),
        );
        assert_eq!(a.silver, vec![50_000, -25_000, -25_000]);
        assert_eq!(
            a.limited_by,
            vec![
                Some(Limit::GameCap),
                Some(Limit::Counterparty),
                Some(Limit::Counterparty)
            ]
        );
    }

    #[test]
    fn a_poor_loser_pays_what_it_has_and_its_partner_pays_more() {
        let a = allocate(
            &[
                stake(80_000, 0),
                stake(-40_000, 10_000),
                stake(-40_000, 1_000_000),
            ],
            &Caps::default(),
        );
        assert_eq!(a.silver, vec![50_000, -10_000, -40_000]);
        assert_eq!(
            a.limited_by,
            vec![Some(Limit::GameCap), Some(Limit::Balance), None]
        );
    }

    #[test]
    fn a_lone_loser_splits_its_balance_between_the_two_winners() {
        let a = allocate(
            &[stake(-60_000, 30_001), stake(30_000, 0), stake(30_000, 0)],
            &Caps::default(),
        );
        // 30,001 cannot split evenly: the first winner in request order gets the extra silver.
        assert_eq!(a.silver, vec![-30_001, 15_001, 15_000]);
    }

    #[test]
    fn the_daily_caps_count_what_was_already_won_and_lost() {
        let winner = Stake {
            won_today_silver: 140_000,
            ..stake(20_000, 0)
        };
        let loser = Stake {
            lost_today_silver: 145_000,
            ..stake(-20_000, 1_000_000)
        };
        let a = allocate(&[loser, winner], &Caps::default());
        assert_eq!(a.silver, vec![-5_000, 5_000]);
        assert_eq!(
            a.limited_by,
            vec![Some(Limit::DailyCap), Some(Limit::Counterparty)]
        );
    }

    #[test]
    fn an_escape_penalty_goes_to_the_house() {
        let a = allocate(
            &[stake(-9_000, 100_000), stake(0, 0), stake(0, 0)],
            &Caps::default(),
        );
        assert_eq!(a.silver, vec![-9_000, 0, 0]);
        assert_eq!(a.house_silver, 9_000);
        // The house has no cap; the escaper's own caps still hold.
        let a = allocate(&[stake(-90_000, 1_000_000), stake(0, 0)], &Caps::default());
        assert_eq!(a.silver, vec![-50_000, 0]);
        assert_eq!(a.house_silver, 50_000);
        assert_eq!(a.limited_by[0], Some(Limit::GameCap));
    }

    #[test]
    fn water_fill_shares_evenly_up_to_each_capacity() {
        assert_eq!(water_fill(10, &[100, 100]), vec![5, 5]);
        assert_eq!(water_fill(11, &[100, 100]), vec![6, 5]);
        assert_eq!(water_fill(11, &[3, 100]), vec![3, 8]);
        assert_eq!(water_fill(0, &[3, 100]), vec![0, 0]);
        assert_eq!(water_fill(103, &[3, 100]), vec![3, 100]);
        assert_eq!(water_fill(7, &[0, 5, 5]), vec![0, 4, 3]);
    }

    fn stakes() -> impl Strategy<Value = (Vec<Stake>, Caps)> {
        let caps = (0i64..80_000, 0i64..80_000, 0i64..200_000, 0i64..200_000).prop_map(
            |(gw, gl, dw, dl)| Caps {
                game_win_silver: gw,
                game_loss_silver: gl,
                daily_win_silver: dw,
                daily_loss_silver: dl,
            },
        );
        let one = (
            -150_000i64..150_000,
            prop_oneof![Just(0i64), 0i64..200_000, Just(10_000_000)],
            prop_oneof![Just(0i64), 0i64..200_000],
            prop_oneof![Just(0i64), 0i64..200_000],
        )
            .prop_map(|(r, b, w, l)| Stake {
                requested_silver: r,
                balance_silver: b,
                won_today_silver: w,
                lost_today_silver: l,
            });
        (prop::collection::vec(one, 2..=3), caps).prop_filter_map(
            "requests must not sum above zero",
            |(mut stakes, caps)| {
                let sum: i64 = stakes.iter().map(|s| s.requested_silver).sum();
                if sum > 0 {
                    // Make the last party pay the difference, as a loser would.
                    let last = stakes.last_mut()?;
                    last.requested_silver -= sum;
                }
                Some((stakes, caps))
            },
        )
    }

    /// Games of one against two: a lone player against two partners owing the same amount.
    fn one_against_two() -> impl Strategy<Value = (Vec<Stake>, Caps)> {
        (
            stakes(),
            1i64..100_000,
            any::<bool>(),
            0i64..200_000,
            0i64..200_000,
        )
            .prop_map(|((mut s, caps), owed, lone_won, b1, b2)| {
                s.resize(3, stake(0, 0));
                let sign = if lone_won { 1 } else { -1 };
                s[0].requested_silver = sign * 2 * owed;
                s[1].requested_silver = -sign * owed;
                s[2].requested_silver = -sign * owed;
                s[1].balance_silver = b1;
                s[2].balance_silver = b2;
                (s, caps)
            })
    }

    proptest! {
        #[test]
        fn zero_sum((stakes, caps) in stakes()) {
            let a = allocate(&stakes, &caps);
            let paid: i64 = a.silver.iter().filter(|&&s| s < 0).map(|s| -s).sum();
            let received: i64 = a.silver.iter().filter(|&&s| s > 0).sum();
            prop_assert_eq!(paid, received + a.house_silver);
        }

        #[test]
        fn no_limit_is_passed((stakes, caps) in stakes()) {
            let a = allocate(&stakes, &caps);
            let house_claim = -stakes.iter().map(|s| s.requested_silver).sum::<i64>();
            prop_assert!(a.house_silver >= 0 && a.house_silver <= house_claim);
            for (s, &moved) in stakes.iter().zip(&a.silver) {
                // Same direction, never more than requested.
                prop_assert!(moved.signum() == s.requested_silver.signum() || moved == 0);
                prop_assert!(moved.abs() <= s.requested_silver.abs());
                if moved < 0 {
                    prop_assert!(-moved <= s.balance_silver);
                    prop_assert!(-moved <= caps.game_loss_silver);
                    prop_assert!(s.lost_today_silver - moved <= caps.daily_loss_silver.max(s.lost_today_silver));
                }
                if moved > 0 {
                    prop_assert!(moved <= caps.game_win_silver);
                    prop_assert!(s.won_today_silver + moved <= caps.daily_win_silver.max(s.won_today_silver));
                }
            }
        }

        #[test]
        fn maximal((stakes, caps) in stakes()) {
            // No transfer could be larger: either every payer is at its limit, or every
            // receiver (the house included) is.
            let a = allocate(&stakes, &caps);
            let house_claim = -stakes.iter().map(|s| s.requested_silver).sum::<i64>();
            let mut payers_full = true;
            let mut receivers_full = a.house_silver == house_claim;
            for (s, &moved) in stakes.iter().zip(&a.silver) {
                let cap = capacity(s, &caps).silver;
                if s.requested_silver < 0 && -moved < cap { payers_full = false; }
                if s.requested_silver > 0 && moved < cap { receivers_full = false; }
            }
            prop_assert!(payers_full || receivers_full);
        }

        #[test]
        fn clamped_by_names_a_binding_limit((stakes, caps) in stakes()) {
            let a = allocate(&stakes, &caps);
            for ((s, &moved), limit) in stakes.iter().zip(&a.silver).zip(&a.limited_by) {
                let cap = capacity(s, &caps);
                match limit {
                    None => prop_assert_eq!(moved.abs(), s.requested_silver.abs()),
                    Some(Limit::Counterparty) => prop_assert!(moved.abs() < cap.silver),
                    Some(own) => {
                        prop_assert_eq!(moved.abs(), cap.silver);
                        prop_assert_eq!(Some(*own), cap.limit);
                    }
                }
            }
        }

        #[test]
        fn partners_are_treated_alike((stakes, caps) in one_against_two()) {
            let a = allocate(&stakes, &caps);
            let (c1, c2) = (capacity(&stakes[1], &caps).silver, capacity(&stakes[2], &caps).silver);
            let (m1, m2) = (a.silver[1].abs(), a.silver[2].abs());
            if c1 == c2 {
                // Alike up to the one indivisible silver, which goes to the first partner.
                prop_assert!(m1 == m2 || m1 == m2 + 1, "{m1} vs {m2}");
            }
            // Max-min fairness: a partner below its own limit gets no less than the other
            // (but for the remainder silver).
            if m1 < c1 { prop_assert!(m1 >= m2); }
            if m2 < c2 { prop_assert!(m2 + 1 >= m1); }
        }

        #[test]
        fn swapping_two_players_swaps_their_results((stakes, caps) in one_against_two()) {
            let a = allocate(&stakes, &caps);
            let swapped = [stakes[0], stakes[2], stakes[1]];
            let b = allocate(&swapped, &caps);
            prop_assert_eq!(a.silver[0], b.silver[0]);
            prop_assert_eq!(a.house_silver, b.house_silver);
            // The partners' amounts swap, but for where the remainder silver lands.
            prop_assert!((a.silver[1] - b.silver[2]).abs() <= 1);
            prop_assert!((a.silver[2] - b.silver[1]).abs() <= 1);
            prop_assert_eq!(a.silver[1] + a.silver[2], b.silver[1] + b.silver[2]);
        }

        #[test]
        fn water_fill_is_exact_and_fair(per_mille in 0i64..=1000, caps in prop::collection::vec(0i64..1_000_000, 1..5)) {
            let sum: i64 = caps.iter().sum();
            let total = sum * per_mille / 1000;
            let shares = water_fill(total, &caps);
            prop_assert_eq!(shares.iter().sum::<i64>(), total);
            for (i, (&s, &c)) in shares.iter().zip(&caps).enumerate() {
                prop_assert!(s >= 0 && s <= c);
                if s < c {
                    for (j, &other) in shares.iter().enumerate() {
                        // Unsaturated parties get at least as much as anyone, but for the
                        // remainder silver, which earlier parties receive first.
                        if j > i {
                            prop_assert!(s >= other, "{shares:?} {caps:?}");
                        } else {
                            prop_assert!(s + 1 >= other, "{shares:?} {caps:?}");
                        }
                    }
                }
            }
        }
    }
}
