//! Properties of Swiss pairing on random results, checked against an exhaustive search,
//! and of the elimination rounds and prize splits.
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use tournament_rules::Seed;
use tournament_rules::elimination::{self, Entrant};
use tournament_rules::prizes::{PrizeTable, WHOLE_POOL_BP};
use tournament_rules::swiss::{
    self, Game, GameResult, PairedRound, PlayedRound, default_rounds, pair_round,
};

/// What the exhaustive oracle knows of each player, worked out from the rounds alone.
struct History {
    met: Vec<Vec<bool>>,
    balance: Vec<i32>,
    byes: Vec<u32>,
}

impl History {
    fn of(players: usize, rounds: &[PlayedRound]) -> Self {
        let mut h = History {
            met: vec![vec![false; players]; players],
            balance: vec![0; players],
            byes: vec![0; players],
        };
        for round in rounds {
            for g in &round.games {
                h.met[g.black.index()][g.white.index()] = true;
                h.met[g.white.index()][g.black.index()] = true;
                h.balance[g.black.index()] += 1;
                h.balance[g.white.index()] -= 1;
            }
            if let Some(b) = round.bye {
                h.byes[b.index()] += 1;
            }
        }
        h
    }

    fn fewest_byes(&self) -> Vec<Option<usize>> {
        if self.byes.len().is_multiple_of(2) {
            return vec![None];
        }
        let fewest = *self.byes.iter().min().unwrap();
        (0..self.byes.len())
            .filter(|&p| self.byes[p] == fewest)
            .map(Some)
            .collect()
    }

    /// Is there any pairing of the round (with a bye among those with the fewest) whose
    /// every pair passes `allowed`?
    fn can_pair(&self, allowed: &dyn Fn(usize, usize) -> bool) -> bool {
        fn rest(left: &[usize], allowed: &dyn Fn(usize, usize) -> bool) -> bool {
            let Some((&a, others)) = left.split_first() else {
                return true;
            };
            others.iter().enumerate().any(|(i, &b)| {
                allowed(a, b) && {
                    let remaining: Vec<usize> = others
                        .iter()
                        .enumerate()
                        .filter(|&(j, _)| j != i)
                        .map(|(_, &p)| p)
                        .collect();
                    rest(&remaining, allowed)
                }
            })
        }
        self.fewest_byes().into_iter().any(|bye| {
            let left: Vec<usize> = (0..self.balance.len())
                .filter(|&p| Some(p) != bye)
                .collect();
            rest(&left, allowed)
        })
    }

    fn colours_ok(&self, a: usize, b: usize) -> bool {
        self.balance[a].min(self.balance[b]) <= 0 && self.balance[a].max(self.balance[b]) >= 0
    }
}

fn result_from(bits: u8) -> GameResult {
    match bits % 7 {
        0..=2 => GameResult::BlackWins,
        3..=4 => GameResult::WhiteWins,
        5 => GameResult::Draw,
        _ => GameResult::BothLose,
    }
}

fn play(paired: &PairedRound, results: &[u8], round: usize) -> PlayedRound {
    PlayedRound {
        games: paired
            .boards
            .iter()
            .enumerate()
            .map(|(i, p)| Game {
                black: p.black,
                white: p.white,
                result: result_from(results[(round * 31 + i) % results.len()]),
            })
            .collect(),
        bye: paired.bye,
    }
}

/// Every player once, a bye only when the number is odd, and the bye to someone with the
/// fewest byes so far.
fn check_complete(players: usize, paired: &PairedRound, history: &History) {
    let mut seen = vec![0; players];
    for p in &paired.boards {
        seen[p.black.index()] += 1;
        seen[p.white.index()] += 1;
    }
    if let Some(b) = paired.bye {
        seen[b.index()] += 1;
        let fewest = history.byes.iter().min().unwrap();
        assert_eq!(
            history.byes[b.index()],
            *fewest,
            "the bye went to a player with more byes"
        );
    }
    assert!(
        seen.iter().all(|&s| s == 1),
        "every player exactly once: {seen:?}"
    );
    assert_eq!(paired.bye.is_some(), players % 2 == 1);
}

fn run_swiss(players: u16, rounds: u16, results: &[u8], exhaustive: bool) -> Vec<PlayedRound> {
    let n = usize::from(players);
    let mut played = Vec::new();
    for round in 0..usize::from(rounds) {
        let history = History::of(n, &played);
        let paired = pair_round(players, &played).unwrap();
        check_complete(n, &paired, &history);
        let rematch = paired
            .boards
            .iter()
            .any(|p| history.met[p.black.index()][p.white.index()]);
        let colours_kept = paired.boards.iter().all(|p| {
            history.balance[p.black.index()] <= 0 && history.balance[p.white.index()] >= 0
        });
        if exhaustive {
            if rematch {
                assert!(
                    !history.can_pair(&|a, b| !history.met[a][b]),
                    "round {}: a rematch although a pairing without one exists",
                    round + 1
                );
            }
            if rematch || !colours_kept {
                assert!(
                    !history.can_pair(&|a, b| !history.met[a][b] && history.colours_ok(a, b)),
                    "round {}: colours beyond one (or a rematch) although a pairing keeping both exists",
                    round + 1
                );
            }
        } else {
            assert!(!rematch, "round {}: a rematch", round + 1);
            assert!(
                colours_kept,
                "round {}: a colour given twice ahead",
                round + 1
            );
        }
        played.push(play(&paired, results, round));
    }
    played
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn small_fields_avoid_rematches_and_keep_colours_whenever_possible(
        players in 2u16..=11,
        extra_rounds in 0u16..=3,
        results in prop::collection::vec(any::<u8>(), 64),
    ) {
        let rounds = (default_rounds(players) + extra_rounds).min(players + 1);
        let played = run_swiss(players, rounds, &results, true);
        // Byes to different players while there are players without one.
        let byes: Vec<Seed> = played.iter().filter_map(|r| r.bye).collect();
        let mut distinct = byes.clone();
        distinct.sort();
        distinct.dedup();
        prop_assert_eq!(distinct.len(), byes.len().min(usize::from(players)));
    }

    #[test]
    fn sixteen_players_play_five_rounds_without_rematch_colours_within_one(
        results in prop::collection::vec(any::<u8>(), 64),
    ) {
        let played = run_swiss(16, default_rounds(16), &results, false);
        let standings = swiss::standings(16, &played).unwrap();
        let places: Vec<u16> = standings.iter().map(|s| s.place).collect();
        prop_assert_eq!(places, (1..=16).collect::<Vec<u16>>());
        // Standings are ordered by score, then Buchholz, then Sonneborn–Berger.
        for w in standings.windows(2) {
            let key = |s: &swiss::Standing| (s.score_halves, s.buchholz_halves, s.sonneborn_berger_quarters);
            prop_assert!(key(&w[0]) >= key(&w[1]));
        }
        // Every game gives out 1 point (or 0 when both lose); every bye 1.
        let total: u32 = standings.iter().map(|s| s.score_halves).sum();
        let games: u32 = played.iter().flat_map(|r| &r.games).map(|g| if g.result == GameResult::BothLose { 0 } else { 2 }).sum();
        prop_assert_eq!(total, games);
    }

    #[test]
    fn odd_fields_of_seventeen_pair_quickly_and_fully(
        results in prop::collection::vec(any::<u8>(), 64),
    ) {
        run_swiss(17, default_rounds(17), &results, false);
    }

    #[test]
    fn prizes_sum_to_the_pool(
        pool in 0u64..=u64::from(u32::MAX) * 1000,
        cuts in prop::collection::vec(1u32..=WHOLE_POOL_BP, 0..8),
        finishers in 0usize..12,
    ) {
        // Shares from cut points of the whole pool, largest first.
        let mut points = cuts.clone();
        points.push(0);
        points.push(WHOLE_POOL_BP);
        points.sort_unstable();
        points.dedup();
        let mut shares: Vec<u32> = points.windows(2).map(|w| w[1] - w[0]).collect();
        shares.sort_unstable_by(|a, b| b.cmp(a));
        let table = PrizeTable::new(shares.clone()).unwrap();
        let paid = table.split(pool, finishers);
        prop_assert_eq!(paid.len(), finishers.min(shares.len()));
        if !paid.is_empty() {
            prop_assert_eq!(paid.iter().sum::<u64>(), pool);
            // A better place never gets less.
            prop_assert!(paid.windows(2).all(|w| w[0] >= w[1]));
        }
    }

    #[test]
    fn elimination_ends_at_one_final_table_and_places_everyone_once(
        tables in 1u16..=20,
        chips in prop::collection::vec(-3000i64..3000, 60),
        draw_seed in any::<u64>(),
    ) {
        let field = tables * 3;
        let plan = elimination::plan(field).unwrap();
        prop_assert_eq!(plan[0], field);
        prop_assert_eq!(*plan.last().unwrap(), 3);
        let mut entrants: Vec<Entrant> = (0..field)
            .map(|i| Entrant { seed: Seed(i), chips: 1000, out_after_round: None })
            .collect();
        for (round, window) in plan.windows(2).enumerate() {
            let round = u16::try_from(round + 1).unwrap();
            let still_in: Vec<Seed> = entrants.iter().filter(|e| e.out_after_round.is_none()).map(|e| e.seed).collect();
            prop_assert_eq!(still_in.len(), usize::from(window[0]));
            let drawn = elimination::draw_tables(&still_in, draw_seed, round);
            prop_assert_eq!(drawn.len() * 3, still_in.len());
            for (i, e) in entrants.iter_mut().enumerate() {
                if e.out_after_round.is_none() {
                    e.chips += chips[(i + usize::from(round)) % chips.len()];
                }
            }
            let out = elimination::eliminate(&mut entrants, round, window[1]);
            prop_assert_eq!(out.len(), usize::from(window[0] - window[1]));
            let kept_min = entrants.iter().filter(|e| e.out_after_round.is_none()).map(|e| e.chips).min().unwrap();
            let out_max = out.iter().map(|s| entrants[s.index()].chips).max().unwrap_or(i64::MIN);
            prop_assert!(out_max <= kept_min, "a player out had more chips than one kept");
        }
        let places = elimination::places(&entrants);
        let mut sorted = places.clone();
        sorted.sort();
        prop_assert_eq!(sorted, (0..field).map(Seed).collect::<Vec<_>>());
    }
}
