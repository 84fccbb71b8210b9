//! Titles (称号): the 18 levels a player's points in one game type give (seed 001).
//!
//! Level 1 holds everything up to 1000 points, negative totals included; each later
//! level starts one point above the previous level's top; level 18 is open-ended.

/// One row of the title table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Title {
    /// 1 (超轻蝇量级) to 18 (超重量级).
    pub level: u8,
    /// The title's name as the seed writes it.
    pub name: &'static str,
    /// The least points of the level; 0 for level 1, which also holds negative totals.
    pub min_points: i64,
    /// The most points of the level, or `None` for the open-ended top level.
    pub max_points: Option<i64>,
}

/// (name, most points) per level; `None` = no upper bound.
const LEVELS: [(&str, Option<i64>); 18] = [
    ("超轻蝇量级", Some(1_000)),
    ("次蝇量级", Some(3_000)),
    ("蝇量级", Some(6_000)),
    ("次雏量级", Some(12_000)),
    ("雏量级", Some(24_000)),
    ("次羽量级", Some(48_000)),
    ("羽量级", Some(96_000)),
    ("次轻量级", Some(192_000)),
    ("轻量级", Some(384_000)),
    ("次沉量级", Some(768_000)),
    ("沉量级", Some(1_536_000)),
    ("次中量级", Some(3_072_000)),
    ("中量级", Some(6_144_000)),
    ("超中量级", Some(18_432_000)),
    ("轻重量级", Some(55_296_000)),
    ("巡航级", Some(165_888_000)),
    ("重量级", Some(497_664_000)),
    ("超重量级", None),
];

/// The title of level `level` (1–18).
///
/// # Panics
/// On a level outside 1–18 (a bug in the caller).
pub fn title_of_level(level: u8) -> Title {
    assert!((1..=18).contains(&level), "title level {level} out of 1–18");
    let index = usize::from(level - 1);
    let (name, max_points) = LEVELS[index];
    let min_points = match index {
        0 => 0,
        _ => LEVELS[index - 1].1.map_or(i64::MAX, |top| top + 1),
    };
    Title {
        level,
        name,
        min_points,
        max_points,
    }
}

/// The title `points` give.
pub fn title_for(points: i64) -> Title {
    let index = LEVELS
        .iter()
        .position(|(_, max)| max.is_none_or(|max| points <= max))
        .unwrap_or(LEVELS.len() - 1);
    // `index` < 18, so the level fits a u8.
    title_of_level(u8::try_from(index + 1).unwrap_or(18))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn every_boundary_of_the_table() {
        let boundaries = [
            1_000,
            3_000,
            6_000,
            12_000,
            24_000,
            48_000,
            96_000,
            192_000,
            384_000,
            768_000,
            1_536_000,
            3_072_000,
            6_144_000,
            18_432_000,
            55_296_000,
            165_888_000,
            497_664_000,
        ];
        for (i, top) in boundaries.into_iter().enumerate() {
            let level = u8::try_from(i + 1).unwrap();
            assert_eq!(title_for(top).level, level, "{top} is still level {level}");
            assert_eq!(
                title_for(top + 1).level,
                level + 1,
                "{} is level {}",
                top + 1,
                level + 1
            );
        }
    }

    #[test]
    fn names_at_both_ends() {
        assert_eq!(title_for(0).name, "超轻蝇量级");
        assert_eq!(title_for(1_001).name, "次蝇量级");
        assert_eq!(title_for(497_664_001).name, "超重量级");
        assert_eq!(title_for(i64::MAX).level, 18);
    }

    #[test]
    fn negative_points_are_level_one() {
        assert_eq!(title_for(-1).level, 1);
        assert_eq!(title_for(i64::MIN).level, 1);
    }

    #[test]
    fn levels_tile_the_points_line() {
        for level in 1..18u8 {
            let this = title_of_level(level);
            let next = title_of_level(level + 1);
            assert_eq!(this.max_points.map(|m| m + 1), Some(next.min_points));
        }
        assert_eq!(title_of_level(18).max_points, None);
    }

    proptest! {
        #[test]
        fn a_title_contains_its_points(points in -10_000_000i64..1_000_000_000) {
            let title = title_for(points);
            prop_assert!(points <= title.max_points.unwrap_or(i64::MAX));
            prop_assert!(title.level == 1 || points >= title.min_points);
        }

        #[test]
        fn more_points_never_lower_the_title(a in any::<i64>(), b in any::<i64>()) {
            let (low, high) = if a <= b { (a, b) } else { (b, a) };
            prop_assert!(title_for(low).level <= title_for(high).level);
        }
    }
}
