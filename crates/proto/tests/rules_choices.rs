//! What docs/rules.md must say beside the rules themselves: auto-play described one way
//! (as the dealer plays it, and as the proto says), every rule that is the platform's
//! choice rather than the seed rules' words listed with its reason, and the rank names
//! counted right.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The text of the section under `heading` (a whole heading line, e.g. `### Clocks`), up
/// to the next heading of the same or a higher level.
fn section(text: &str, heading: &str) -> String {
    let level = heading.chars().take_while(|&c| c == '#').count();
    let start = text
        .find(&format!("\n{heading}\n"))
        .unwrap_or_else(|| panic!("no section {heading:?}"));
    let body = &text[start + heading.len() + 2..];
    let end = body
        .match_indices("\n#")
        .find(|(at, _)| body[at + 1..].chars().take_while(|&c| c == '#').count() <= level)
        .map_or(body.len(), |(at, _)| at);
    body[..end].to_owned()
}

#[test]
fn auto_play_is_described_as_the_dealer_plays_it() {
    let rules = read("docs/rules.md");
    let timeouts = section(&rules, "### Timeouts and auto-play");
    assert!(
        !timeouts.contains("in the same way"),
        "auto-play is not played as a timeout is: {timeouts}"
    );
    assert!(
        timeouts.contains("bot"),
        "a seat on auto-play is played by the platform's bot: {timeouts}"
    );
    let proto = read("proto/gamehub/doudizhu/v1/doudizhu.proto");
    let comment: String = proto
        .split("rpc SetAutoPlay")
        .next()
        .and_then(|before| before.rsplit("\n\n").next())
        .unwrap_or_default()
        .to_owned();
    assert!(comment.contains("bot"), "SetAutoPlay's comment: {comment}");
}

#[test]
fn every_platform_choice_the_audit_named_is_listed_with_its_reason() {
    let rules = read("docs/rules.md");
    let choices = section(&rules, "## Platform choices");
    // Each choice by words that any fair description of it must use.
    let expected: [(&str, &[&str]); 11] = [
        (
            "silver cut to what is left of the daily cap",
            &["daily cap", "left"],
        ),
        (
            "one daily counter across both games",
            &["across both games"],
        ),
        ("the swap room's 5×5 limit on move 3", &["5×5"]),
        (
            "neither fifth-move proposal forbidden",
            &["neither forbidden"],
        ),
        ("the draw rule's boundary at exactly 10", &["exactly 10"]),
        ("and above 99", &["99"]),
        ("how professional dans are set", &["professional"]),
        ("titles applied to Dou Dizhu", &["Dou Dizhu", "title"]),
        ("the house taking an escaper's silver", &["house"]),
        ("the Dou Dizhu turn order", &["逆时针", "right"]),
        ("the clocks and turn times", &["60 s", "20 s"]),
    ];
    for (choice, words) in expected {
        for word in words {
            assert!(
                choices.contains(word),
                "the platform choices do not cover {choice} ({word:?} is missing)"
            );
        }
    }
    let entries = choices.lines().filter(|l| l.starts_with("- **")).count();
    let reasons = choices.matches("Why:").count();
    assert!(entries >= 20, "{entries} entries");
    assert_eq!(entries, reasons, "every choice says why");
}

/// How many levels a row of the rank table names: `20 and below` is one (unranked),
/// `21 … 29` nine, `30` one; the professional row (`—`) counts its names, `1p … 9p`.
fn levels(rank: &str, name: &str) -> usize {
    let numbers = |text: &str| -> Vec<usize> {
        text.split(|c: char| !c.is_ascii_digit())
            .filter_map(|n| n.parse().ok())
            .collect()
    };
    if rank.contains("and below") {
        return 1;
    }
    let span = if rank.trim() == "—" {
        numbers(name.split('(').next().unwrap_or_default())
    } else {
        numbers(rank)
    };
    match span.as_slice() {
        [one] => {
            assert!(*one > 0);
            1
        }
        [first, .., last] => last - first + 1,
        [] => panic!("a rank row without numbers: {rank} | {name}"),
    }
}

#[test]
fn the_rank_names_count_their_levels_right() {
    let rules = read("docs/rules.md");
    let ranks = section(&rules, "### Rank names");
    let counted: usize = ranks
        .lines()
        .filter(|l| l.starts_with('|') && !l.starts_with("|---") && !l.starts_with("| rank"))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').collect();
            levels(cells[0], cells[1])
        })
        .sum();
    assert_eq!(counted, 29, "unranked, 10k…1k, 1d…9d, 1p…9p");
    assert!(
        ranks.contains(&format!("these {counted} levels")),
        "the text counts {counted} levels: {ranks}"
    );
}
