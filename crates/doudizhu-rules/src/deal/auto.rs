//! Auto-play (托管): who chooses for a seat the server acts for.

use crate::bidding::Bid;
use crate::ranks::RankCounts;

use super::SeatView;

/// What an auto-player plays: the ranks of the cards, and in `laizi` what they mean
/// (`None`: the one reading the cards allow, as for a seat's own [`super::Deal::play`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    pub cards: RankCounts,
    pub meant: Option<RankCounts>,
}

impl From<RankCounts> for Choice {
    fn from(cards: RankCounts) -> Choice {
        Choice { cards, meant: None }
    }
}

/// Chooses for a seat on auto-play (托管), from that seat's view only. The deal checks a
/// choice like a seat's own action; a refused one, and `None` when the seat leads, get
/// the timeout move instead. The dealer passes its bot (the rule crate knows none).
///
/// Every decision but the play has a default that never raises the stakes (a player's
/// 托管 passes in bidding, declines to call, does not rob, double or show); a player
/// that decides for a seat (the dealer's bot seats) says so by overriding it.
pub trait AutoPlayer {
    /// The cards to play for the seat whose view this is (in the play phase, its turn),
    /// or `None` to pass.
    fn choose(&self, view: &SeatView) -> Option<Choice>;

    /// The bid (`classic`, in bidding, its turn). A bid the rules refuse (not above the
    /// highest) becomes a pass.
    fn bid(&self, _view: &SeatView) -> Bid {
        Bid::Pass
    }

    /// Whether to call the landlord (叫地主; `rob` and `laizi`, its turn to call).
    fn call(&self, _view: &SeatView) -> bool {
        false
    }

    /// Whether to rob the landlord (抢地主; its turn to rob).
    fn rob(&self, _view: &SeatView) -> bool {
        false
    }

    /// Whether to double (加倍; in the doubling phase, its turn).
    fn double(&self, _view: &SeatView) -> bool {
        false
    }

    /// Whether the landlord shows its hand (明牌; in the showing phase).
    fn show(&self, _view: &SeatView) -> bool {
        false
    }
}

/// Auto-play by the timeout moves: the smallest lead when leading, a pass when following,
/// and no to every other decision.
#[derive(Debug, Clone, Copy, Default)]
pub struct TimeoutMoves;

impl AutoPlayer for TimeoutMoves {
    fn choose(&self, _view: &SeatView) -> Option<Choice> {
        None
    }
}
