//! Prizes: a table of shares of the pool, and the pool split into whole silver.
//!
//! A [`PrizeTable`] gives first, second, ... place a share of the pool in basis points
//! (1/100 of a percent); the shares sum to the whole pool (10,000). When fewer players
//! finish than the table has places, the places nobody took are left out and the pool
//! is split over the rest in the same proportions. Shares are rounded down to whole
//! silver and what rounding leaves goes to first place, so the sum paid is the pool,
//! exactly.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The whole pool, in basis points.
pub const WHOLE_POOL_BP: u32 = 10_000;

/// The most places a prize table pays.
pub const MAX_PAID_PLACES: usize = 64;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PrizeError {
    #[error("a prize table pays 1 to {MAX_PAID_PLACES} places, not {0}")]
    Places(usize),
    #[error("place {place}'s share is 0: leave the place out instead")]
    ZeroShare { place: usize },
    #[error("place {place} gets more than place {better}: shares go down with the place")]
    Increasing { place: usize, better: usize },
    #[error("the shares sum to {0} basis points, not the whole pool ({WHOLE_POOL_BP})")]
    Sum(u64),
}

/// Shares of the pool for first, second, ... place, in basis points.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrizeTable {
    shares_bp: Vec<u32>,
}

impl PrizeTable {
    /// A table whose shares are each more than 0, go down (or stay) with the place and
    /// sum to [`WHOLE_POOL_BP`].
    pub fn new(shares_bp: Vec<u32>) -> Result<Self, PrizeError> {
        if shares_bp.is_empty() || shares_bp.len() > MAX_PAID_PLACES {
            return Err(PrizeError::Places(shares_bp.len()));
        }
        if let Some(i) = shares_bp.iter().position(|&s| s == 0) {
            return Err(PrizeError::ZeroShare { place: i + 1 });
        }
        if let Some(i) = shares_bp.windows(2).position(|w| w[1] > w[0]) {
            return Err(PrizeError::Increasing {
                place: i + 2,
                better: i + 1,
            });
        }
        let sum: u64 = shares_bp.iter().map(|&s| u64::from(s)).sum();
        if sum != u64::from(WHOLE_POOL_BP) {
            return Err(PrizeError::Sum(sum));
        }
        Ok(Self { shares_bp })
    }

    /// The whole pool to the winner.
    pub fn winner_takes_all() -> Self {
        Self {
            shares_bp: vec![WHOLE_POOL_BP],
        }
    }

    pub fn shares_bp(&self) -> &[u32] {
        &self.shares_bp
    }

    /// Splits `pool_silver` over the first `finishers` places: one amount per paid place,
    /// first place first, summing to the pool (empty when nobody finished).
    pub fn split(&self, pool_silver: u64, finishers: usize) -> Vec<u64> {
        let paid = &self.shares_bp[..finishers.min(self.shares_bp.len())];
        let used: u128 = paid.iter().map(|&s| u128::from(s)).sum();
        if used == 0 {
            return Vec::new();
        }
        let mut amounts: Vec<u64> = paid
            .iter()
            .map(|&s| {
                let amount = u128::from(pool_silver) * u128::from(s) / used;
                u64::try_from(amount).unwrap_or(u64::MAX)
            })
            .collect();
        let rounded: u64 = amounts.iter().sum();
        amounts[0] += pool_silver - rounded;
        debug_assert_eq!(amounts.iter().sum::<u64>(), pool_silver);
        amounts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_goes_to_first_place() {
        let table = PrizeTable::new(vec![5000, 3000, 2000]).expect("a valid table");
        assert_eq!(table.split(1001, 9), vec![501, 300, 200]);
        assert_eq!(table.split(0, 9), vec![0, 0, 0]);
    }

    #[test]
    fn places_nobody_took_are_split_over_the_rest() {
        let table = PrizeTable::new(vec![5000, 3000, 2000]).expect("a valid table");
        assert_eq!(table.split(800, 2), vec![500, 300]);
        assert_eq!(table.split(800, 1), vec![800]);
        assert_eq!(table.split(800, 0), Vec::<u64>::new());
    }

    #[test]
    fn a_table_must_cover_the_pool_going_down() {
        assert_eq!(PrizeTable::new(vec![]), Err(PrizeError::Places(0)));
        assert_eq!(
            PrizeTable::new(vec![6000, 3000]),
            Err(PrizeError::Sum(9000))
        );
        assert_eq!(
            PrizeTable::new(vec![3000, 7000]),
            Err(PrizeError::Increasing {
                place: 2,
                better: 1
            })
        );
        assert_eq!(
            PrizeTable::new(vec![10_000, 0]),
            Err(PrizeError::ZeroShare { place: 2 })
        );
    }
}
