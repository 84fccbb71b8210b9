//! A room's stakes (the proto's `RoomStakes`): how a game's points become silver, and
//! the bounds every service holds them to. A table is opened only with stakes the ledger
//! will settle, because every game service, matchmaking's rooms file and the ledger all
//! check them here.
//!
//! The bounds keep every figure a game can produce inside the ledger's limits: the most
//! points any registered game moves in one game ([`crate::games::Game::most_points_per_base`],
//! about 2 × 10⁵) at the largest points base asks about 2 × 10¹¹ points, inside the
//! ledger's 10¹² per game, and that times the largest silver per point stays inside an
//! `i64`.

use gamehub_proto::common::RoomStakes;

use crate::ids::RoomId;

/// The largest points base (底分) a room may have.
pub const MAX_POINTS_BASE: i64 = 1_000_000;
/// The most silver per point a room may charge.
pub const MAX_SILVER_PER_POINT: i64 = 1_000_000;

/// A stakes field that is out of bounds: the field (as named in `RoomStakes`) and what
/// is wrong, in words a front-end developer or an operator can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {problem}")]
pub struct StakesError {
    /// `room_id`, `points_base`, `silver_per_point` or `min_balance_silver`.
    pub field: &'static str,
    /// What is wrong and what would be right.
    pub problem: String,
}

impl StakesError {
    fn new(field: &'static str, problem: impl Into<String>) -> Self {
        Self {
            field,
            problem: problem.into(),
        }
    }

    /// The field as a request names it: `stakes.points_base`, … (every request carries
    /// its stakes in a field `stakes`).
    pub fn path(&self) -> &'static str {
        match self.field {
            "room_id" => "stakes.room_id",
            "points_base" => "stakes.points_base",
            "silver_per_point" => "stakes.silver_per_point",
            _ => "stakes.min_balance_silver",
        }
    }
}

/// Checked stakes. Their JSON (fields in this order) is part of the ledger's canonical
/// form of a settlement, whose hash tells a retry from a different request: changing
/// it makes earlier settlements' retries conflict.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Stakes {
    /// The room's id.
    pub room_id: RoomId,
    /// Points base (底分): every points figure is multiplied by it; 1 to
    /// [`MAX_POINTS_BASE`].
    pub points_base: i64,
    /// Silver (银子) per point, 0 (a free room) to [`MAX_SILVER_PER_POINT`].
    pub silver_per_point: i64,
    /// The least silver a player must hold to sit down; not negative.
    pub min_balance_silver: i64,
    /// Whether Gomoku games move ratings. Absent (false) from a game service's tables
    /// stored before they kept their stakes as this one type.
    #[serde(default)]
    pub rated: bool,
}

impl Stakes {
    /// Checks every field of `stakes` (the first out-of-bounds one is reported).
    pub fn from_proto(stakes: &RoomStakes) -> Result<Self, StakesError> {
        Ok(Self {
            room_id: check_room_id(&stakes.room_id)?,
            points_base: check_points_base(stakes.points_base)?,
            silver_per_point: check_silver_per_point(stakes.silver_per_point)?,
            min_balance_silver: check_min_balance_silver(stakes.min_balance_silver)?,
            rated: stakes.rated,
        })
    }

    /// The stakes as the API carries them.
    pub fn to_proto(&self) -> RoomStakes {
        RoomStakes {
            room_id: self.room_id.to_string(),
            points_base: self.points_base,
            silver_per_point: self.silver_per_point,
            min_balance_silver: self.min_balance_silver,
            rated: self.rated,
        }
    }

    /// Whether no silver moves (points and ratings still count).
    pub fn is_free(&self) -> bool {
        self.silver_per_point == 0
    }
}

/// A room id ([`RoomId`]: the one bound and alphabet of a room id).
pub fn check_room_id(value: &str) -> Result<RoomId, StakesError> {
    RoomId::parse(value).map_err(|e| StakesError::new("room_id", e.to_string()))
}

/// A points base: 1 to [`MAX_POINTS_BASE`].
pub fn check_points_base(value: i64) -> Result<i64, StakesError> {
    if (1..=MAX_POINTS_BASE).contains(&value) {
        Ok(value)
    } else {
        Err(StakesError::new(
            "points_base",
            format!("must be 1 to {MAX_POINTS_BASE}; got {value}"),
        ))
    }
}

/// Silver per point: 0 (a free room) to [`MAX_SILVER_PER_POINT`].
pub fn check_silver_per_point(value: i64) -> Result<i64, StakesError> {
    if (0..=MAX_SILVER_PER_POINT).contains(&value) {
        Ok(value)
    } else {
        Err(StakesError::new(
            "silver_per_point",
            format!("must be 0 (free room) to {MAX_SILVER_PER_POINT}; got {value}"),
        ))
    }
}

/// A minimum balance: not negative.
pub fn check_min_balance_silver(value: i64) -> Result<i64, StakesError> {
    if value >= 0 {
        Ok(value)
    } else {
        Err(StakesError::new(
            "min_balance_silver",
            format!("cannot be negative; got {value}"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn stakes(points_base: i64, silver_per_point: i64, min_balance_silver: i64) -> RoomStakes {
        RoomStakes {
            room_id: "gomoku-renju".into(),
            points_base,
            silver_per_point,
            min_balance_silver,
            rated: true,
        }
    }

    #[test]
    fn the_largest_stakes_are_accepted_and_one_more_is_not() {
        let largest = stakes(MAX_POINTS_BASE, MAX_SILVER_PER_POINT, 0);
        let checked = Stakes::from_proto(&largest).unwrap();
        assert_eq!(checked.to_proto(), largest);
        assert!(!checked.is_free());

        let e = Stakes::from_proto(&stakes(MAX_POINTS_BASE + 1, 1, 0)).unwrap_err();
        assert_eq!(e.field, "points_base");
        assert!(e.to_string().starts_with("points_base: must be 1"), "{e}");
        let e = Stakes::from_proto(&stakes(1, MAX_SILVER_PER_POINT + 1, 0)).unwrap_err();
        assert_eq!(e.field, "silver_per_point");
        let e = Stakes::from_proto(&stakes(0, 1, 0)).unwrap_err();
        assert_eq!(e.field, "points_base");
        let e = Stakes::from_proto(&stakes(1, -1, 0)).unwrap_err();
        assert_eq!(e.field, "silver_per_point");
        let e = Stakes::from_proto(&stakes(1, 1, -1)).unwrap_err();
        assert_eq!(
            (e.field, e.path()),
            ("min_balance_silver", "stakes.min_balance_silver")
        );
        let mut bad_room = stakes(1, 1, 0);
        bad_room.room_id = "no spaces".into();
        assert_eq!(Stakes::from_proto(&bad_room).unwrap_err().field, "room_id");
        assert!(Stakes::from_proto(&stakes(1, 0, 0)).unwrap().is_free());
    }

    #[test]
    fn the_json_form_is_pinned() {
        let checked = Stakes::from_proto(&stakes(2, 10, 500)).unwrap();
        assert_eq!(
            serde_json::to_string(&checked).unwrap(),
            r#"{"room_id":"gomoku-renju","points_base":2,"silver_per_point":10,"min_balance_silver":500,"rated":true}"#
        );
    }

    /// The ledger's bound on one player's points in one game.
    const LEDGER_MAX_POINTS_PER_GAME: i64 = 1_000_000_000_000;

    #[test]
    fn the_bounds_keep_the_worst_game_inside_the_ledgers_limits() {
        for game in crate::games::GAMES {
            let points = game.most_points_per_base * MAX_POINTS_BASE;
            assert!(points <= LEDGER_MAX_POINTS_PER_GAME, "{}", game.key);
            assert!(
                points.checked_mul(MAX_SILVER_PER_POINT).is_some(),
                "{}",
                game.key
            );
        }
    }

    proptest! {
        #[test]
        fn accepted_stakes_are_exactly_those_within_the_bounds(
            points_base in -5i64..=MAX_POINTS_BASE + 5,
            silver_per_point in -5i64..=MAX_SILVER_PER_POINT + 5,
            min_balance_silver in -5i64..=5,
        ) {
            let within = (1..=MAX_POINTS_BASE).contains(&points_base)
                && (0..=MAX_SILVER_PER_POINT).contains(&silver_per_point)
                && min_balance_silver >= 0;
            let checked = Stakes::from_proto(&stakes(points_base, silver_per_point, min_balance_silver));
            prop_assert_eq!(checked.is_ok(), within);
        }
    }
}
