//! The proto comments and the READMEs cite the rules as `docs/rules.md#<section>`; every
//! such citation, and every link inside `docs/rules.md`, names a section that exists.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The anchor GitHub gives a heading: lower case, spaces to `-`, punctuation dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c),
            _ => None,
        })
        .collect()
}

fn rules_anchors() -> BTreeSet<String> {
    let rules = std::fs::read_to_string(root().join("docs/rules.md")).expect("docs/rules.md");
    rules
        .lines()
        .filter_map(|line| line.strip_prefix('#'))
        .map(|line| anchor(line.trim_start_matches('#')))
        .collect()
}

/// Every `<prefix><anchor>` in `text`, the anchor being `[a-z0-9-]+`.
fn cited<'a>(text: &'a str, prefix: &'a str) -> impl Iterator<Item = String> + 'a {
    text.match_indices(prefix).map(move |(at, _)| {
        text[at + prefix.len()..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')
            .collect()
    })
}

fn files_under(dir: &Path, extension: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if path.is_dir() && name != "target" && !name.starts_with('.') {
            files_under(&path, extension, out);
        } else if path.extension().and_then(|e| e.to_str()) == Some(extension) {
            out.push(path);
        }
    }
}

#[test]
fn every_rules_citation_names_an_existing_section() {
    let anchors = rules_anchors();
    assert!(anchors.contains("designated-openings"), "{anchors:?}");
    let mut files = Vec::new();
    files_under(&root().join("proto"), "proto", &mut files);
    files_under(&root().join("crates"), "md", &mut files);
    files_under(&root().join("services"), "md", &mut files);
    files_under(&root().join("apps"), "md", &mut files);
    files_under(&root().join("docs"), "md", &mut files);
    files.push(root().join("README.md"));
    files.push(root().join("docs/api.md"));
    let mut citations = 0;
    let mut missing = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for section in cited(&text, "rules.md#") {
            citations += 1;
            if !anchors.contains(&section) {
                missing.push(format!("{}: #{section}", file.display()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "citations of missing sections: {missing:#?}"
    );
    assert!(
        citations >= 20,
        "only {citations} citations found: is the scan looking?"
    );
}

#[test]
fn every_link_inside_the_rules_names_an_existing_section() {
    let anchors = rules_anchors();
    let rules = std::fs::read_to_string(root().join("docs/rules.md")).expect("docs/rules.md");
    let links: Vec<String> = cited(&rules, "](#").collect();
    assert!(links.len() > 30, "{links:?}");
    let missing: Vec<&String> = links.iter().filter(|l| !anchors.contains(*l)).collect();
    assert!(missing.is_empty(), "{missing:?}");
}

#[test]
fn no_proto_comment_cites_a_document_outside_the_repository() {
    let mut files = Vec::new();
    files_under(&root().join("proto"), "proto", &mut files);
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            let comment = line.split_once("//").map_or("", |(_, c)| c);
            assert!(
                !comment.contains("SPEC") && !comment.contains("ARCHITECTURE"),
                "{}:{}: {line}",
                file.display(),
                n + 1
            );
        }
    }
}
