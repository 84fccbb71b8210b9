//! Gomoku point text (`h8`, either case, rows 1-15) and the other short names a client
//! or a record sends: openings (`kansei`, `2`, `1D`, 寒星局), opening choices (`random`),
//! and both games' rule-set names.
//!
//! Property: whatever reads, reads back from its canonical text as the same value.
#![no_main]

use gomoku_rules::{Opening, OpeningChoice, Point};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(text) = gamehub_fuzz::text(data) else {
        return;
    };
    if let Ok(point) = Point::parse(text) {
        assert_eq!(Point::parse(&point.to_string()), Ok(point));
        assert_eq!(text.parse::<Point>(), Ok(point));
    }
    if let Ok(opening) = Opening::parse(text) {
        for name in [opening.id(), opening.code(), opening.name_zh()] {
            assert_eq!(Opening::parse(name), Ok(opening), "{name}");
        }
    }
    if let Ok(choice) = OpeningChoice::parse(text) {
        assert_eq!(OpeningChoice::parse(choice.name()), Ok(choice));
    }
    if let Some(rule_set) = gomoku_rules::RuleSet::parse(text) {
        assert_eq!(
            gomoku_rules::RuleSet::parse(rule_set.name()),
            Some(rule_set)
        );
    }
    if let Some(rule_set) = doudizhu_rules::RuleSet::parse(text) {
        assert_eq!(
            doudizhu_rules::RuleSet::parse(rule_set.name()),
            Some(rule_set)
        );
    }
});
