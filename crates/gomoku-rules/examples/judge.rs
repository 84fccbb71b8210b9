//! Judges positions read as JSON lines on stdin, one verdict per line on stdout.
//!
//! ```text
//! {"rule":"renju","black":["h8","i9"],"white":["h9"],"to_move":"black","move":"j10"}
//! → {"verdict":"allowed"}
//! ```
//! `rule` is `renju` or `freestyle`; the stones may be any position. The verdict is one of
//! `allowed`, `five`, `overline`, `double_four`, `double_three`. A bad line gets
//! `{"error":"..."}` and the tool goes on.
//!
//! Run: `cargo run -q --release -p gomoku-rules --example judge < positions.jsonl`

use std::io::{self, BufRead, BufWriter, Write};

use gomoku_rules::{Board, Color, Point, Rules, Verdict};
use serde::Deserialize;

#[derive(Deserialize)]
struct Position {
    rule: String,
    #[serde(default)]
    black: Vec<String>,
    #[serde(default)]
    white: Vec<String>,
    to_move: String,
    #[serde(rename = "move")]
    point: String,
}

pub fn judge(line: &str) -> Result<&'static str, String> {
    let position: Position = serde_json::from_str(line).map_err(|e| format!("bad JSON: {e}"))?;
    let rules = match position.rule.as_str() {
        "renju" => Rules::Renju,
        "freestyle" => Rules::Freestyle,
        other => return Err(format!("unknown rule {other:?}: use renju or freestyle")),
    };
    let color = match position.to_move.as_str() {
        "black" => Color::Black,
        "white" => Color::White,
        other => return Err(format!("unknown to_move {other:?}: use black or white")),
    };
    let mut board = Board::new();
    for (stones, stone_color) in [
        (&position.black, Color::Black),
        (&position.white, Color::White),
    ] {
        for text in stones {
            let point =
                Point::parse(text).map_err(|e| format!("{stone_color} stone {text:?}: {e}"))?;
            board
                .place(point, stone_color)
                .map_err(|e| format!("{stone_color} stone: {e}"))?;
        }
    }
    let point =
        Point::parse(&position.point).map_err(|e| format!("move {:?}: {e}", position.point))?;
    if !board.is_empty(point) {
        return Err(format!("move {point} is already occupied"));
    }
    Ok(match board.verdict(point, color, rules) {
        Verdict::Allowed => "allowed",
        Verdict::Five => "five",
        Verdict::Forbidden(kind) => kind.name(),
    })
}

fn main() -> io::Result<()> {
    let stdin = io::stdin();
    let mut out = BufWriter::new(io::stdout().lock());
    for line in stdin.lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let reply = match judge(&line) {
            Ok(verdict) => serde_json::json!({ "verdict": verdict }),
            Err(error) => serde_json::json!({ "error": error }),
        };
        writeln!(out, "{reply}")?;
        out.flush()?;
    }
    Ok(())
}
