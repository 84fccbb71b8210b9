//! The rule sets this crate plays, by the name rooms give them (docs SPEC §8).

use serde::{Deserialize, Serialize};

/// A Dou Dizhu rule set. Serialized as its name (`"classic"`, `"rob"`, `"laizi"`); a
/// stored deal from before rule sets existed reads as [`RuleSet::Classic`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleSet {
    /// Bidding 1/2/3 (叫分), the combinations and scoring of section 4.
    #[default]
    Classic,
    /// Calling and robbing the landlord (叫地主/抢地主), then doubling (加倍) and showing
    /// the hand (明牌); base = the room's points base.
    Rob,
    /// As `rob`, with a wild rank (癞子) drawn from the seed once the landlord is known.
    Laizi,
}

impl RuleSet {
    /// Every rule set.
    pub const ALL: [RuleSet; 3] = [RuleSet::Classic, RuleSet::Rob, RuleSet::Laizi];

    /// The name rooms files and `ListRooms` use.
    pub const fn name(self) -> &'static str {
        match self {
            RuleSet::Classic => "classic",
            RuleSet::Rob => "rob",
            RuleSet::Laizi => "laizi",
        }
    }

    /// Reads [`RuleSet::name`], exactly.
    pub fn parse(name: &str) -> Option<RuleSet> {
        RuleSet::ALL.into_iter().find(|r| r.name() == name.trim())
    }

    /// Every rule set's name, comma-separated, for messages that list them.
    pub fn names() -> String {
        RuleSet::ALL.map(RuleSet::name).join(", ")
    }

    /// Whether the landlord is chosen by calling and robbing (叫地主/抢地主) rather than
    /// by bidding points; such deals also have doubling (加倍) and showing (明牌), and
    /// their base is the room's points base alone.
    pub const fn calls_and_robs(self) -> bool {
        matches!(self, RuleSet::Rob | RuleSet::Laizi)
    }

    /// Whether a wild rank (癞子) is drawn once the landlord is known.
    pub const fn has_wilds(self) -> bool {
        matches!(self, RuleSet::Laizi)
    }
}

impl std::fmt::Display for RuleSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
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
            assert_eq!(
                serde_json::to_string(&rule_set).expect("serializes"),
                format!("\"{}\"", rule_set.name())
            );
        }
        assert_eq!(RuleSet::parse("Classic"), None);
        assert_eq!(RuleSet::names(), "classic, rob, laizi");
    }

    #[test]
    fn only_rob_and_laizi_call_and_rob_and_only_laizi_has_wilds() {
        assert!(!RuleSet::Classic.calls_and_robs());
        assert!(RuleSet::Rob.calls_and_robs() && RuleSet::Laizi.calls_and_robs());
        assert_eq!(RuleSet::ALL.map(RuleSet::has_wilds), [false, false, true]);
    }
}
