//! Seats (座位) and the rotation of the first bidder.

use std::fmt;

use rand::Rng;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// One of the three seats, 0..3. Play goes seat → seat + 1 (mod 3).
/// Serialized as its number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(into = "u8", try_from = "u8")]
pub struct Seat(u8);

impl Seat {
    pub const ALL: [Seat; 3] = [Seat(0), Seat(1), Seat(2)];

    /// The seat with this number; `None` unless 0, 1 or 2.
    pub fn new(number: u8) -> Option<Seat> {
        (number < 3).then_some(Seat(number))
    }

    pub fn number(self) -> u8 {
        self.0
    }

    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// The seat that acts after this one.
    pub fn next(self) -> Seat {
        Seat((self.0 + 1) % 3)
    }

    /// A seat drawn uniformly from `rng`.
    pub fn random<R: Rng + ?Sized>(rng: &mut R) -> Seat {
        Seat(rng.random_range(0..3))
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl From<Seat> for u8 {
    fn from(seat: Seat) -> u8 {
        seat.0
    }
}

/// A seat number other than 0, 1 or 2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("no seat {0}: seats are 0, 1 and 2")]
pub struct NoSuchSeat(pub u8);

impl TryFrom<u8> for Seat {
    type Error = NoSuchSeat;
    fn try_from(number: u8) -> Result<Seat, NoSuchSeat> {
        Seat::new(number).ok_or(NoSuchSeat(number))
    }
}

/// The first bidder of a table's first deal: drawn at random by the server.
pub fn first_bidder_of_first_deal<R: Rng + ?Sized>(rng: &mut R) -> Seat {
    Seat::random(rng)
}

/// The first bidder of every later deal (a redeal after all passed included): one seat
/// along from the previous deal's first bidder.
pub fn next_first_bidder(previous_first_bidder: Seat) -> Seat {
    previous_first_bidder.next()
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    use super::*;

    #[test]
    fn the_first_bidder_of_a_first_deal_is_any_seat_at_random() {
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        let mut drawn = [0u32; 3];
        for _ in 0..3_000 {
            drawn[first_bidder_of_first_deal(&mut rng).index()] += 1;
        }
        // Uniform: about 1,000 each (the bounds are far beyond chance).
        assert!(
            drawn.iter().all(|&n| (850..1_150).contains(&n)),
            "{drawn:?}"
        );
    }
}
