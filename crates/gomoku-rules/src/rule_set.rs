//! The rule sets a Gomoku game is played under, by the names rooms, records and stored
//! tables give them, and the forbidden-move policies (禁手) of Renju.
//!
//! Below both [`crate::game`] and [`crate::opening`]: a designated opening names the rule
//! set it is played under, and a game reads its rule set, so the rule set is neither's.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::board::Rules;

/// What happens when black plays a forbidden point under Renju.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ForbiddenPolicy {
    /// The move ends the game: white wins (走禁手就输).
    Lose,
    /// The move is rejected with an error naming the rule (禁手不能落子).
    Refuse,
    /// The move stands; white may claim it on its turn (指出禁手) or forgive it by playing.
    Claim,
}

/// A room's rules for one game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleSet {
    /// Five or more wins for either color, nothing forbidden (无禁手).
    Freestyle,
    /// Renju with the given forbidden-move policy (有禁手).
    Renju(ForbiddenPolicy),
    /// Renju, lose policy, with the RIF opening: move 2 touches h8, move 3 within the
    /// central 5×5, swap after move 3 (三手交换), two proposals at move 5 (五手两打).
    RenjuSwap,
}

impl RuleSet {
    /// Every rule set, for tests and tools.
    pub const ALL: [RuleSet; 5] = [
        RuleSet::Freestyle,
        RuleSet::Renju(ForbiddenPolicy::Lose),
        RuleSet::Renju(ForbiddenPolicy::Refuse),
        RuleSet::Renju(ForbiddenPolicy::Claim),
        RuleSet::RenjuSwap,
    ];

    /// How points are judged.
    pub const fn rules(self) -> Rules {
        match self {
            RuleSet::Freestyle => Rules::Freestyle,
            _ => Rules::Renju,
        }
    }

    /// The forbidden-move policy (`None` in freestyle).
    pub const fn policy(self) -> Option<ForbiddenPolicy> {
        match self {
            RuleSet::Freestyle => None,
            RuleSet::Renju(policy) => Some(policy),
            RuleSet::RenjuSwap => Some(ForbiddenPolicy::Lose),
        }
    }

    /// The name used in records and stored state: `freestyle`, `renju-lose`,
    /// `renju-refuse`, `renju-claim`, `renju-swap`.
    pub const fn name(self) -> &'static str {
        match self {
            RuleSet::Freestyle => "freestyle",
            RuleSet::Renju(ForbiddenPolicy::Lose) => "renju-lose",
            RuleSet::Renju(ForbiddenPolicy::Refuse) => "renju-refuse",
            RuleSet::Renju(ForbiddenPolicy::Claim) => "renju-claim",
            RuleSet::RenjuSwap => "renju-swap",
        }
    }

    /// Whether a game under these rules may start from a designated opening
    /// ([`crate::Game::with_opening`]): renju with any forbidden-move policy. Not freestyle (the
    /// openings are renju's) and not the swap room, whose players make their own opening
    /// (seed 000: 三手可交换 is not used with designated openings).
    pub const fn allows_openings(self) -> bool {
        matches!(self, RuleSet::Renju(_))
    }

    /// Reads [`RuleSet::name`], exactly: the one list of names rooms files, records and
    /// stored tables use (no aliases, so every reader accepts the same names).
    pub fn parse(name: &str) -> Option<RuleSet> {
        RuleSet::ALL.into_iter().find(|r| r.name() == name.trim())
    }

    /// Every rule set's name, comma-separated, for messages that list them.
    pub fn names() -> String {
        RuleSet::ALL.map(RuleSet::name).join(", ")
    }
}

impl fmt::Display for RuleSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_sets_are_read_by_their_exact_names_only() {
        for rule_set in RuleSet::ALL {
            assert_eq!(RuleSet::parse(rule_set.name()), Some(rule_set));
        }
        assert_eq!(RuleSet::parse("Renju-Lose"), None);
        assert_eq!(RuleSet::parse("renju"), None);
        assert_eq!(
            RuleSet::names(),
            "freestyle, renju-lose, renju-refuse, renju-claim, renju-swap"
        );
    }
}
