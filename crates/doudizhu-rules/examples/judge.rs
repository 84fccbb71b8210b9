//! The rules judge: JSON lines in, one JSON line out per input line.
//!
//! ```text
//! {"cards":"3 3 3 4"}            -> {"combination":"triple_single","rank":"3","length":1}
//! {"prev":"3 3","next":"4 4"}    -> {"beats":true}
//! {"hand":"...","prev":"..."}    -> {"plays":["...", ...]}   (prev empty or absent: leads)
//! anything unreadable            -> {"error":"..."}
//! ```
//!
//! Cards are rank text (`3 4 5 6 7 8 9 T J Q K A 2 X D`, `10` for `T`, spaces optional).
//! Run: `cargo run -q --release -p doudizhu-rules --example judge`.

use std::io::{self, BufRead, Write};

use doudizhu_rules::{Combination, RankCounts, classify, legal_plays};
use serde_json::{Value, json};

/// Longest input line read; anything longer is answered with an error.
const MAX_LINE_BYTES: usize = 64 * 1024;

fn main() -> io::Result<()> {
    let stdin = io::stdin();
    let mut out = io::BufWriter::new(io::stdout().lock());
    for line in stdin.lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let answer = judge(&line).unwrap_or_else(|error| json!({ "error": error }).to_string());
        writeln!(out, "{answer}")?;
        out.flush()?;
    }
    Ok(())
}

fn judge(line: &str) -> Result<String, String> {
    if line.len() > MAX_LINE_BYTES {
        return Err("line too long".into());
    }
    let request: Value = serde_json::from_str(line).map_err(|e| format!("bad json: {e}"))?;
    let object = request.as_object().ok_or("expected a json object")?;
    let text = |key: &str| -> Result<Option<RankCounts>, String> {
        match object.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => RankCounts::parse(s)
                .map(Some)
                .map_err(|e| format!("{key}: {e}")),
            Some(_) => Err(format!("{key}: expected a string")),
        }
    };
    let (cards, prev, next, hand) = (text("cards")?, text("prev")?, text("next")?, text("hand")?);
    if let Some(hand) = hand {
        let previous = previous_play(prev)?;
        let plays: Vec<String> = legal_plays(&hand, previous.as_ref())
            .iter()
            .map(|play| play.ranks.to_string())
            .collect();
        return Ok(json!({ "plays": plays }).to_string());
    }
    if let Some(next) = next {
        let previous = previous_play(prev)?;
        let beats = match (classify(&next), previous) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(next), Some(previous)) => next.beats(&previous),
        };
        return Ok(json!({ "beats": beats }).to_string());
    }
    if let Some(cards) = cards {
        // A struct, so the keys come out in the documented order.
        #[derive(serde::Serialize)]
        struct Reading {
            combination: &'static str,
            rank: String,
            length: u8,
        }
        return Ok(match classify(&cards) {
            Some(c) => serde_json::to_string(&Reading {
                combination: c.kind.name(),
                rank: c.rank.to_string(),
                length: c.length,
            })
            .map_err(|e| e.to_string())?,
            None => json!({ "combination": "invalid" }).to_string(),
        });
    }
    Err("expected \"cards\", \"prev\" and \"next\", or \"hand\"".into())
}

/// The play to beat; `None` for a lead (absent or empty).
fn previous_play(prev: Option<RankCounts>) -> Result<Option<Combination>, String> {
    match prev {
        None => Ok(None),
        Some(prev) if prev.is_empty() => Ok(None),
        Some(prev) => classify(&prev)
            .map(Some)
            .ok_or_else(|| "prev is not a combination".to_string()),
    }
}
