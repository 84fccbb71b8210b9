//! Gomoku's rule sets by API code. A rule set's name is its rule crate's
//! ([`gomoku_rules::RuleSet::name`], which the registry's entry reads): rooms files, the
//! rooms' `rule_set` in `ListRooms`, records and stored tables use it. Its code in the API
//! (`gamehub.gomoku.v1.RuleSet`) is named after it (`renju-lose` ↔
//! `RULE_SET_RENJU_LOSE`), so the mapping is derived, not written out.

use gamehub_proto::gomoku as pb;

/// The API code of a Gomoku rule set.
pub fn gomoku_to_proto(rule_set: gomoku_rules::RuleSet) -> pb::RuleSet {
    let name = format!(
        "RULE_SET_{}",
        rule_set.name().to_ascii_uppercase().replace('-', "_")
    );
    // Every rule set has its code: tested below for each of them.
    pb::RuleSet::from_str_name(&name).unwrap_or(pb::RuleSet::Unspecified)
}

/// The Gomoku rule set of an API code; None for `RULE_SET_UNSPECIFIED` and unknown codes.
pub fn gomoku_from_proto(code: i32) -> Option<gomoku_rules::RuleSet> {
    gomoku_rules::RuleSet::ALL
        .into_iter()
        .find(|rule_set| gomoku_to_proto(*rule_set) as i32 == code)
}

/// The API names of every Gomoku rule set, for error messages.
pub fn gomoku_proto_names() -> Vec<&'static str> {
    gomoku_rules::RuleSet::ALL
        .into_iter()
        .map(|rule_set| gomoku_to_proto(rule_set).as_str_name())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_gomoku_rule_set_has_its_own_code_and_back() {
        let mut codes = std::collections::HashSet::new();
        for rule_set in gomoku_rules::RuleSet::ALL {
            let code = gomoku_to_proto(rule_set);
            assert_ne!(code, pb::RuleSet::Unspecified, "{rule_set}");
            assert!(codes.insert(code), "{rule_set} shares its code");
            assert_eq!(gomoku_from_proto(code as i32), Some(rule_set));
        }
        assert_eq!(gomoku_from_proto(pb::RuleSet::Unspecified as i32), None);
        assert_eq!(gomoku_from_proto(99), None);
        assert_eq!(gomoku_proto_names()[1], "RULE_SET_RENJU_LOSE");
    }

    #[test]
    fn every_api_code_is_a_rule_set() {
        let codes: Vec<pb::RuleSet> = (1..)
            .map_while(|code| pb::RuleSet::try_from(code).ok())
            .collect();
        assert_eq!(codes.len(), gomoku_rules::RuleSet::ALL.len());
        for code in codes {
            assert!(
                gomoku_from_proto(code as i32).is_some(),
                "{code:?} has no rule set"
            );
        }
    }
}
