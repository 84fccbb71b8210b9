//! The Gomoku rating (段位), seed 003: rating = rank × 100 + points within the rank.
//!
//! Ranks 21–29 are 10k…2k, 30 is 1k, 31–39 are amateur 1d…9d; below 21 is unranked
//! (无级别). Professional dans (1p–9p) are a flag an operator sets, not earned.
//!
//! After a rated game, with `S_w`, `S_l` the winner's and loser's ratings before it and
//! integer division truncating toward zero (so `-55 / 10 == -5`):
//! - win: if the higher-rated player wins by more than 100, nothing moves; otherwise
//!   the winner gains and the loser loses `10 − (S_w − S_l) / 10`;
//! - draw: under 10 apart nothing moves; otherwise the lower-rated player gains and the
//!   higher-rated loses `10 + difference / 10`;
//! - when both players have more than 50 rated games, one game moves at most 20;
//! - when a professional plays, nothing moves (only wins and losses are counted).
//!
//! An escape counts as a loss for the escaper here. Ratings move zero-sum.

/// The rating of a player who never played a rated game (3000: 1k, 0 points), defined
/// with the other terms every service shares.
pub use gamehub_terms::rating::NEW_PLAYER_RATING;
/// With more rated games than this on both sides, a game moves at most [`VETERAN_LIMIT`].
pub const VETERAN_GAMES: i64 = 50;
/// The most one game moves between two veterans.
pub const VETERAN_LIMIT: i64 = 20;
/// Winning by more than this against a lower-rated player moves nothing.
pub const UPSET_FREE_MARGIN: i64 = 100;
/// Draws between players closer than this move nothing.
pub const DRAW_MARGIN: i64 = 10;

/// What the rating rules need to know of one player.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RatedPlayer {
    /// The rating before the game.
    pub rating: i64,
    /// Rated games played before this one.
    pub rated_games: i64,
    /// Professional dan 1–9, or 0.
    pub professional_dan: u8,
}

/// How a rated game ended, seen from its first player.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RatedOutcome {
    /// The first player won (the second lost or escaped).
    FirstWins,
    /// The second player won.
    SecondWins,
    /// A draw.
    Draw,
}

/// The rating points the winner takes from the loser.
pub fn win_transfer(winner_rating: i64, loser_rating: i64) -> i64 {
    let difference = winner_rating.saturating_sub(loser_rating);
    if difference > UPSET_FREE_MARGIN {
        0
    } else {
        10i64.saturating_sub(difference / 10)
    }
}

/// The rating points the lower-rated player takes from the higher-rated one in a draw.
pub fn draw_transfer(a_rating: i64, b_rating: i64) -> i64 {
    let difference = a_rating.abs_diff(b_rating);
    if difference < DRAW_MARGIN.unsigned_abs() {
        0
    } else {
        i64::try_from(10 + difference / 10).unwrap_or(i64::MAX)
    }
}

/// The two ratings after a rated game.
pub fn rate(first: RatedPlayer, second: RatedPlayer, outcome: RatedOutcome) -> (i64, i64) {
    if first.professional_dan > 0 || second.professional_dan > 0 {
        return (first.rating, second.rating);
    }
    // `moved` > 0 moves points from the second player to the first.
    let moved = match outcome {
        RatedOutcome::FirstWins => win_transfer(first.rating, second.rating),
        RatedOutcome::SecondWins => -win_transfer(second.rating, first.rating),
        RatedOutcome::Draw => {
            let points = draw_transfer(first.rating, second.rating);
            if first.rating < second.rating {
                points
            } else {
                -points
            }
        }
    };
    let moved = if first.rated_games > VETERAN_GAMES && second.rated_games > VETERAN_GAMES {
        moved.clamp(-VETERAN_LIMIT, VETERAN_LIMIT)
    } else {
        moved
    };
    (
        first.rating.saturating_add(moved),
        second.rating.saturating_sub(moved),
    )
}

/// The rank number of a rating: `rating / 100`, rounded down.
pub fn rank_of(rating: i64) -> i64 {
    rating.div_euclid(100)
}

/// The rank's name: "无级别" below 21, "10k"…"1k", "1d"…"9d" (ratings of 4000 and more
/// stay "9d"), or "Np" for a professional of dan N.
pub fn rank_name(rating: i64, professional_dan: u8) -> String {
    if professional_dan > 0 {
        return format!("{professional_dan}p");
    }
    match rank_of(rating) {
        ..=20 => "无级别".to_owned(),
        rank @ 21..=30 => format!("{}k", 31 - rank),
        rank @ 31..=38 => format!("{}d", rank - 30),
        _ => "9d".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn player(rating: i64) -> RatedPlayer {
        RatedPlayer {
            rating,
            rated_games: 0,
            professional_dan: 0,
        }
    }

    fn veteran(rating: i64) -> RatedPlayer {
        RatedPlayer {
            rating,
            rated_games: 51,
            professional_dan: 0,
        }
    }

    #[test]
    fn equal_players_move_ten() {
        assert_eq!(
            rate(player(2000), player(2000), RatedOutcome::FirstWins),
            (2010, 1990)
        );
    }

    #[test]
    fn higher_rated_winning_by_more_than_100_moves_nothing() {
        assert_eq!(
            rate(player(2101), player(2000), RatedOutcome::FirstWins),
            (2101, 2000)
        );
        // Exactly 100 apart: 10 - 100/10 = 0, nothing moves either.
        assert_eq!(
            rate(player(2100), player(2000), RatedOutcome::FirstWins),
            (2100, 2000)
        );
        // 99 apart: 10 - 9 = 1.
        assert_eq!(
            rate(player(2099), player(2000), RatedOutcome::FirstWins),
            (2100, 1999)
        );
    }

    #[test]
    fn lower_rated_winning_gains_more_than_ten() {
        // S_w - S_l = -55: 10 - (-55 / 10) = 10 + 5 = 15 (division truncates).
        assert_eq!(
            rate(player(2000), player(2055), RatedOutcome::FirstWins),
            (2015, 2040)
        );
        // Far apart: 10 + 300 / 10 = 40.
        assert_eq!(
            rate(player(2300), player(2000), RatedOutcome::SecondWins),
            (2260, 2040)
        );
    }

    #[test]
    fn draws_under_ten_apart_move_nothing() {
        assert_eq!(
            rate(player(2009), player(2000), RatedOutcome::Draw),
            (2009, 2000)
        );
    }

    #[test]
    fn draws_ten_or_more_apart_favour_the_lower_rated() {
        // 10 + 10/10 = 11.
        assert_eq!(
            rate(player(2010), player(2000), RatedOutcome::Draw),
            (1999, 2011)
        );
        // 10 + 250/10 = 35.
        assert_eq!(
            rate(player(2000), player(2250), RatedOutcome::Draw),
            (2035, 2215)
        );
    }

    #[test]
    fn veterans_move_at_most_twenty() {
        assert_eq!(
            rate(veteran(2000), veteran(2300), RatedOutcome::FirstWins),
            (2020, 2280)
        );
        assert_eq!(
            rate(veteran(2000), veteran(2300), RatedOutcome::Draw),
            (2020, 2280)
        );
        // One newcomer: no limit.
        assert_eq!(
            rate(veteran(2000), player(2300), RatedOutcome::FirstWins),
            (2040, 2260)
        );
        // Exactly 50 games is not "more than 50".
        let fifty = RatedPlayer {
            rated_games: 50,
            ..veteran(2000)
        };
        assert_eq!(
            rate(fifty, veteran(2300), RatedOutcome::FirstWins),
            (2040, 2260)
        );
    }

    #[test]
    fn professionals_move_nothing() {
        let pro = RatedPlayer {
            professional_dan: 3,
            ..player(2000)
        };
        assert_eq!(
            rate(pro, player(2000), RatedOutcome::SecondWins),
            (2000, 2000)
        );
        assert_eq!(rate(player(1500), pro, RatedOutcome::Draw), (1500, 2000));
    }

    #[test]
    fn rank_names() {
        assert_eq!(rank_name(2000, 0), "无级别");
        assert_eq!(rank_name(2099, 0), "无级别");
        assert_eq!(rank_name(2100, 0), "10k");
        assert_eq!(rank_name(2950, 0), "2k");
        assert_eq!(rank_name(3000, 0), "1k");
        assert_eq!(rank_name(3100, 0), "1d");
        assert_eq!(rank_name(3210, 0), "2d");
        assert_eq!(rank_name(3999, 0), "9d");
        assert_eq!(rank_name(5000, 0), "9d");
        assert_eq!(rank_name(-50, 0), "无级别");
        assert_eq!(rank_name(2000, 5), "5p");
        assert_eq!(rank_of(2950), 29);
        assert_eq!(rank_of(-1), -1);
    }

    fn rated_player() -> impl Strategy<Value = RatedPlayer> {
        (0i64..5000, 0i64..120, prop_oneof![Just(0u8), 1u8..=9]).prop_map(
            |(rating, rated_games, professional_dan)| RatedPlayer {
                rating,
                rated_games,
                professional_dan,
            },
        )
    }

    fn outcome() -> impl Strategy<Value = RatedOutcome> {
        prop_oneof![
            Just(RatedOutcome::FirstWins),
            Just(RatedOutcome::SecondWins),
            Just(RatedOutcome::Draw)
        ]
    }

    proptest! {
        #[test]
        fn ratings_move_zero_sum(a in rated_player(), b in rated_player(), o in outcome()) {
            let (a2, b2) = rate(a, b, o);
            prop_assert_eq!(a2 - a.rating, b.rating - b2);
        }

        #[test]
        fn a_winner_never_loses_rating(a in rated_player(), b in rated_player()) {
            let (a2, b2) = rate(a, b, RatedOutcome::FirstWins);
            prop_assert!(a2 >= a.rating && b2 <= b.rating);
        }

        #[test]
        fn a_draw_never_widens_the_gap_order(a in rated_player(), b in rated_player()) {
            let (a2, b2) = rate(a, b, RatedOutcome::Draw);
            if a.rating < b.rating { prop_assert!(a2 >= a.rating && b2 <= b.rating); }
            if a.rating > b.rating { prop_assert!(a2 <= a.rating && b2 >= b.rating); }
        }

        #[test]
        fn swapping_the_players_mirrors_the_result(a in rated_player(), b in rated_player(), o in outcome()) {
            let mirrored = match o {
                RatedOutcome::FirstWins => RatedOutcome::SecondWins,
                RatedOutcome::SecondWins => RatedOutcome::FirstWins,
                RatedOutcome::Draw => RatedOutcome::Draw,
            };
            let (a2, b2) = rate(a, b, o);
            let (b3, a3) = rate(b, a, mirrored);
            prop_assert_eq!((a2, b2), (a3, b3));
        }

        #[test]
        fn veterans_never_move_more_than_twenty(a in rated_player(), b in rated_player(), o in outcome()) {
            let (a2, _) = rate(a, b, o);
            if a.rated_games > VETERAN_GAMES && b.rated_games > VETERAN_GAMES {
                prop_assert!((a2 - a.rating).abs() <= VETERAN_LIMIT);
            }
            if a.professional_dan > 0 || b.professional_dan > 0 {
                prop_assert_eq!(a2, a.rating);
            }
        }
    }
}
