//! The Dou Dizhu bot as a process for the arena (`crates/bots/arena`): one JSON object per
//! line in, one per line out. Rank text is the rule crate's (`3`..`9 T J Q K A 2 X D`,
//! `X` the small joker, `D` the big one); the harness maps RLCard's cards to it.
//!
//! ```text
//! {"op":"play","bot":"bot","seat":1,"landlord":0,"hand":"3345","kitty":"XD2",
//!  "turns":[[0,"33"],[1,""],[2,"55"]]}                    -> {"play":"66"}  ("" = pass)
//! {"op":"legal","hand":"33XD","prev":"44"}                -> {"plays":["XD"]}
//! {"op":"bid","bot":"bot","hand":"...","highest":0}       -> {"bid":2}
//! {"op":"gomoku","moves":["h8","i9"],"seed":7}             -> {"move":"j10"}
//! ```
//!
//! `gomoku` asks the Gomoku bot for the next stone of a freestyle game (five or more
//! wins, black first) after `moves`, its jitter drawn from `seed`
//! (`arena/gomoku_arena.py`).
//!
//! A `play` request holds only what the seat may see: its own hand, the kitty, the turns
//! so far (seat and cards, `""` for a pass); the rest follows from them. Errors come back
//! as `{"error":"..."}`.
//!
//! `cargo run --release -p gamehub-bots --example arena_bot`

use std::io::{BufRead, Write};
use std::time::Instant;

use doudizhu_rules::{Bid, RankCounts, Seat, classify, legal_plays};
use gamehub_bots::doudizhu::{self, Situation, baseline};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
enum Request {
    Play {
        #[serde(default)]
        bot: Option<String>,
        seat: u8,
        landlord: u8,
        hand: String,
        #[serde(default)]
        kitty: String,
        turns: Vec<(u8, String)>,
    },
    Legal {
        hand: String,
        #[serde(default)]
        prev: String,
    },
    Bid {
        #[serde(default)]
        bot: Option<String>,
        hand: String,
        highest: u8,
    },
    Gomoku {
        moves: Vec<String>,
        #[serde(default)]
        seed: u64,
    },
    /// Decision-time totals so far.
    Stats,
}

fn ranks(text: &str) -> Result<RankCounts, String> {
    RankCounts::parse(text).map_err(|e| format!("bad ranks {text:?}: {e}"))
}

fn seat(n: u8) -> Result<Seat, String> {
    Seat::new(n).ok_or_else(|| format!("no seat {n}"))
}

fn text(r: &RankCounts) -> String {
    r.to_string().replace(' ', "")
}

/// Every decision's time, for the stats.
#[derive(Default)]
struct Timing {
    decisions: u64,
    total_ns: u128,
    max_ns: u128,
    all_ns: Vec<u64>,
}

impl Timing {
    fn record(&mut self, ns: u128) {
        self.decisions += 1;
        self.total_ns += ns;
        self.max_ns = self.max_ns.max(ns);
        self.all_ns.push(u64::try_from(ns).unwrap_or(u64::MAX));
    }

    /// The `q` quantile in microseconds.
    fn quantile_us(&self, q: f64) -> f64 {
        let mut sorted = self.all_ns.clone();
        sorted.sort_unstable();
        let Some(last) = sorted.len().checked_sub(1) else {
            return 0.0;
        };
        sorted[((last as f64) * q).round() as usize] as f64 / 1000.0
    }
}

fn answer(line: &str, timing: &mut Timing) -> Result<serde_json::Value, String> {
    let request: Request = serde_json::from_str(line).map_err(|e| format!("bad json: {e}"))?;
    match request {
        Request::Play {
            bot,
            seat: me,
            landlord,
            hand,
            kitty,
            turns,
        } => {
            let mut history = Vec::with_capacity(turns.len());
            for (who, cards) in &turns {
                let cards = if cards.is_empty() {
                    None
                } else {
                    Some(ranks(cards)?)
                };
                history.push((seat(*who)?, cards));
            }
            let situation = Situation::from_turns(
                seat(me)?,
                ranks(&hand)?,
                seat(landlord)?,
                ranks(&kitty)?,
                &history,
            )
            .ok_or("a turn is not a combination or overdraws a hand")?;
            let started = Instant::now();
            let chosen = match bot.as_deref().unwrap_or("bot") {
                "bot" => doudizhu::play(&situation),
                "baseline" => baseline::play(&baseline::Situation {
                    seat: situation.seat,
                    hand: situation.hand,
                    landlord: situation.landlord,
                    to_beat: situation.to_beat,
                    cards_left: situation.cards_left,
                }),
                other => return Err(format!("no bot {other:?}")),
            };
            timing.record(started.elapsed().as_nanos());
            Ok(serde_json::json!({ "play": chosen.map(|r| text(&r)).unwrap_or_default() }))
        }
        Request::Legal { hand, prev } => {
            let previous = if prev.is_empty() {
                None
            } else {
                Some(classify(&ranks(&prev)?).ok_or("prev is not a combination")?)
            };
            let plays: Vec<String> = legal_plays(&ranks(&hand)?, previous.as_ref())
                .iter()
                .map(|p| text(&p.ranks))
                .collect();
            Ok(serde_json::json!({ "plays": plays }))
        }
        Request::Bid { bot, hand, highest } => {
            let highest = Bid::try_from(highest).map_err(|e| e.to_string())?;
            let hand = ranks(&hand)?;
            let bid = match bot.as_deref().unwrap_or("bot") {
                "bot" => doudizhu::bid(&hand, highest),
                "baseline" => baseline::bid(&hand, highest),
                other => return Err(format!("no bot {other:?}")),
            };
            Ok(serde_json::json!({ "bid": bid.points() }))
        }
        Request::Gomoku { moves, seed } => {
            use gomoku_rules::{Action, Game, GameConfig, Point, RuleSet, Seat as GSeat};
            use rand::SeedableRng;
            let mut game = Game::new(
                GameConfig {
                    rule_set: RuleSet::Freestyle,
                    time_control: gomoku_rules::TimeControl {
                        per_move_ms: 0,
                        total_ms: 0,
                    },
                    black_seat: GSeat::ZERO,
                },
                0,
            );
            for m in &moves {
                let point = Point::parse(m).map_err(|e| format!("bad point {m:?}: {e}"))?;
                let to_act = game.to_act().ok_or("the game is over")?;
                game.act(to_act, Action::Place(point), 0)
                    .map_err(|e| format!("{m} refused: {e}"))?;
            }
            let to_act = game.to_act().ok_or("the game is over")?;
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let started = Instant::now();
            let action = gamehub_bots::gomoku::decide(&game, to_act, &mut rng);
            timing.record(started.elapsed().as_nanos());
            match action {
                Some(Action::Place(p)) => Ok(serde_json::json!({ "move": p.to_string() })),
                other => Err(format!("the bot answered {other:?}")),
            }
        }
        Request::Stats => Ok(serde_json::json!({
            "decisions": timing.decisions,
            "mean_us": if timing.decisions == 0 { 0.0 } else {
                timing.total_ns as f64 / timing.decisions as f64 / 1000.0
            },
            "p50_us": timing.quantile_us(0.5),
            "p99_us": timing.quantile_us(0.99),
            "p999_us": timing.quantile_us(0.999),
            "max_us": timing.max_ns as f64 / 1000.0,
        })),
    }
}

fn main() {
    let stdin = std::io::stdin();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut timing = Timing::default();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let reply = answer(&line, &mut timing)
            .unwrap_or_else(|error| serde_json::json!({ "error": error }));
        if writeln!(out, "{reply}").and_then(|()| out.flush()).is_err() {
            break;
        }
    }
}
