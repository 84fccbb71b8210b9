//! The Gomoku rating (段位) a player starts with. The ledger creates accounts with it and
//! matchmaking pairs a player the ledger has no rating for with it; the rating rules
//! themselves live in the ledger.

/// The rating of a player who never played a rated game: 3000, rank 30 (1k) with 0
/// points in the rank (seed 003: 在升级后注册的新的ID的起始分数为1k3000分). Players that
/// already exist keep theirs.
pub const NEW_PLAYER_RATING: i64 = 3000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_player_is_1k_with_no_points() {
        assert_eq!(NEW_PLAYER_RATING.div_euclid(100), 30);
        assert_eq!(NEW_PLAYER_RATING.rem_euclid(100), 0);
    }
}
