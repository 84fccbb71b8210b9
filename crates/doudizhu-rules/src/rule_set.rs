//! The rule sets this crate plays, by the name rooms give them.

/// A Dou Dizhu rule set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleSet {
    /// Bidding 1/2/3 (叫分), the combinations and scoring of this crate.
    Classic,
}

impl RuleSet {
    /// Every rule set.
    pub const ALL: [RuleSet; 1] = [RuleSet::Classic];

    /// The name rooms files and `ListRooms` use.
    pub const fn name(self) -> &'static str {
        match self {
            RuleSet::Classic => "classic",
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
        }
        assert_eq!(RuleSet::parse("Classic"), None);
        assert_eq!(RuleSet::names(), "classic");
    }
}
