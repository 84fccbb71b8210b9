//! The rules judge: JSON lines in, one JSON line out per input line.
//!
//! ```text
//! {"cards":"3 3 3 4"}            -> {"combination":"triple_single","rank":"3","length":1}
//! {"prev":"3 3","next":"4 4"}    -> {"beats":true}
//! {"hand":"...","prev":"..."}    -> {"plays":["...", ...]}   (prev empty or absent: leads)
//! anything unreadable            -> {"error":"..."}
//! ```
//!
//! With wild cards (癞子, the `laizi` rule set), add `"wild":"7"` (a rank from 3 to 2) to
//! any request. Every reading is then answered, each with one multiset the cards can
//! stand for (`meant`), and a bomb with its class (`soft`, `hard` or `wild`):
//!
//! ```text
//! {"cards":"5 5 5 7","wild":"7"}
//!   -> {"readings":[{"combination":"triple_single","rank":"5","length":1,"meant":"5 5 5 7"},
//!                   {"combination":"bomb","rank":"5","length":1,"bomb":"soft","meant":"5 5 5 5"}]}
//! {"prev":"5 5 5 7","prev_meant":"5 5 5 5","next":"6 6 6 6","wild":"7"} -> {"beats":true}
//! {"hand":"...","wild":"7","prev":"...","prev_meant":"..."}
//!   -> {"plays":[{"cards":"5 5 5 7","meant":"5 5 5 5","combination":"bomb","rank":"5",
//!                 "length":1,"bomb":"soft"}, ...]}
//! ```
//!
//! `prev_meant`/`next_meant` state what a side's cards stand for; a side that reads more
//! than one way and states none is answered with an error naming its readings, and a
//! stated meaning the cards cannot make with an error. A `next` with no reading does not
//! beat. Without `wild` everything is as in the classic rules.
//!
//! Cards are rank text (`3 4 5 6 7 8 9 T J Q K A 2 X D`, `10` for `T`, spaces optional).
//! Run: `cargo run -q --release -p doudizhu-rules --example judge`.

use std::io::{self, BufRead, Write};

use doudizhu_rules::{
    Combination, Rank, RankCounts, Reading, WildPlay, classify, legal_plays, read_as, readings,
    wild_plays,
};
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
    let (prev_meant, next_meant) = (text("prev_meant")?, text("next_meant")?);
    let wild = match object.get("wild") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => match Rank::try_from(s.clone()) {
            Ok(rank) if !rank.is_joker() => Some(rank),
            _ => return Err("wild: expected a rank from 3 to 2".into()),
        },
        Some(_) => return Err("wild: expected a string".into()),
    };
    if let Some(wild) = wild {
        let sides = Sides {
            prev,
            prev_meant,
            next,
            next_meant,
        };
        return judge_wild(wild, cards, hand, sides);
    }
    if prev_meant.is_some() || next_meant.is_some() {
        return Err("prev_meant and next_meant need \"wild\"".into());
    }
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

/// The plays of a wild request and what they are stated to stand for.
struct Sides {
    prev: Option<RankCounts>,
    prev_meant: Option<RankCounts>,
    next: Option<RankCounts>,
    next_meant: Option<RankCounts>,
}

/// A request with `"wild"`: the same three questions, answered with readings.
fn judge_wild(
    wild: Rank,
    cards: Option<RankCounts>,
    hand: Option<RankCounts>,
    sides: Sides,
) -> Result<String, String> {
    if let Some(hand) = hand {
        let previous = stated_reading("prev", sides.prev, sides.prev_meant, wild)?;
        #[derive(serde::Serialize)]
        struct Plays {
            plays: Vec<WildPlayView>,
        }
        let plays = wild_plays(&hand, wild, previous.as_ref())
            .iter()
            .map(WildPlayView::from)
            .collect();
        return serde_json::to_string(&Plays { plays }).map_err(|e| e.to_string());
    }
    if sides.next.is_some() {
        let previous = stated_reading("prev", sides.prev, sides.prev_meant, wild)?;
        let next = match stated_reading("next", sides.next, sides.next_meant, wild) {
            Err(error) if error.ends_with(NO_READING) => None,
            other => other?,
        };
        let beats = match (next, previous) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(next), Some(previous)) => next.beats(&previous),
        };
        return Ok(json!({ "beats": beats }).to_string());
    }
    if let Some(cards) = cards {
        #[derive(serde::Serialize)]
        struct Readings {
            readings: Vec<ReadingView>,
        }
        let readings = readings(&cards, wild)
            .iter()
            .map(ReadingView::from)
            .collect();
        return serde_json::to_string(&Readings { readings }).map_err(|e| e.to_string());
    }
    Err("expected \"cards\", \"prev\" and \"next\", or \"hand\"".into())
}

/// The end of the error for a side whose cards read as nothing.
const NO_READING: &str = "is not a combination";

/// The reading of one side (`None` when absent or empty): the stated one if `meant` is
/// given, else the only one the cards allow.
fn stated_reading(
    side: &str,
    cards: Option<RankCounts>,
    meant: Option<RankCounts>,
    wild: Rank,
) -> Result<Option<Reading>, String> {
    let Some(cards) = cards.filter(|c| !c.is_empty()) else {
        return match meant {
            Some(_) => Err(format!("{side}_meant without {side}")),
            None => Ok(None),
        };
    };
    if let Some(meant) = meant {
        return read_as(&cards, wild, &meant)
            .map(Some)
            .map_err(|e| format!("{side}_meant: {e}"));
    }
    match readings(&cards, wild).as_slice() {
        [] => Err(format!("{side} {NO_READING}")),
        [only] => Ok(Some(only.reading)),
        several => {
            let named: Vec<String> = several.iter().map(|p| describe(&p.reading)).collect();
            Err(format!(
                "{side} reads more than one way ({}); say which with {side}_meant",
                named.join(", ")
            ))
        }
    }
}

/// A reading in words: `bomb from 5 (soft)`, `straight from 3 x5`.
fn describe(reading: &Reading) -> String {
    match reading.bomb {
        Some(class) => format!("{} ({})", reading.combination, class.name()),
        None => reading.combination.to_string(),
    }
}

/// One reading as the judge answers it (keys in the documented order).
#[derive(serde::Serialize)]
struct ReadingView {
    combination: &'static str,
    rank: String,
    length: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    bomb: Option<&'static str>,
    meant: String,
}

impl From<&WildPlay> for ReadingView {
    fn from(play: &WildPlay) -> ReadingView {
        let c = play.reading.combination;
        ReadingView {
            combination: c.kind.name(),
            rank: c.rank.to_string(),
            length: c.length,
            bomb: play.reading.bomb.map(|class| class.name()),
            meant: play.meant.to_string(),
        }
    }
}

/// One legal play as the judge answers it: the cards, then their reading.
#[derive(serde::Serialize)]
struct WildPlayView {
    cards: String,
    meant: String,
    combination: &'static str,
    rank: String,
    length: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    bomb: Option<&'static str>,
}

impl From<&WildPlay> for WildPlayView {
    fn from(play: &WildPlay) -> WildPlayView {
        let c = play.reading.combination;
        WildPlayView {
            cards: play.cards.to_string(),
            meant: play.meant.to_string(),
            combination: c.kind.name(),
            rank: c.rank.to_string(),
            length: c.length,
            bomb: play.reading.bomb.map(|class| class.name()),
        }
    }
}
