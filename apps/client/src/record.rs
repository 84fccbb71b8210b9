//! Records: stepping through a loaded Gomoku record ([`ReplayApp`]), and a Dou Dizhu
//! deal record as text with its shuffle check ([`deal_record_lines`]). Pure; the
//! commands that fetch and write them are in `commands`.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use gamehub_proto::doudizhu as ddz;
use gamehub_proto::gomoku as gm;
use gomoku_rules::{Board, Color, Point, RuleSet};

use super::app::App;
use super::doudizhu;
use super::gomoku::{opening_name, rule_set_name};
use super::term::Frame;
use gamehub_render::{self as render, signed};

/// Stepping through a Gomoku record one ply at a time (上步/下步).
#[derive(Debug)]
pub struct ReplayApp {
    /// The record as the referee loaded and checked it.
    record: gm::LoadRecordResponse,
    /// Where the record came from, for the title.
    source: String,
    /// Stones on the board now: 0 (empty) to every stone of the record.
    ply: usize,
    /// The player quit.
    done: bool,
}

/// Plies that PageUp/PageDown skip.
const PAGE: usize = 10;

impl ReplayApp {
    /// A replay of `record` (from `source`), starting on the empty board.
    pub fn new(record: gm::LoadRecordResponse, source: &str) -> Self {
        Self {
            record,
            source: source.to_owned(),
            ply: 0,
            done: false,
        }
    }

    /// Stones on the board now.
    pub fn ply(&self) -> usize {
        self.ply
    }

    /// The record's number of stones.
    pub fn plies(&self) -> usize {
        self.record.stones.len()
    }

    /// Moves `delta` plies (negative: back), staying within the record.
    pub fn step(&mut self, delta: isize) {
        let target = self.ply.saturating_add_signed(delta);
        self.ply = target.min(self.plies());
    }

    /// The position after the current ply, as the board renderer takes it; in Renju
    /// rooms, when black is to move, with the points forbidden to black (judged by the
    /// rule crate).
    pub fn position(&self) -> gm::Game {
        let stones: Vec<gm::Stone> = self.record.stones[..self.ply].to_vec();
        let mut game = gm::Game {
            last_move: stones.last().cloned(),
            stones,
            ..gm::Game::default()
        };
        let renju = matches!(
            gamehub_drive::gomoku::rule_set(self.record.rule_set()),
            Some(RuleSet::Renju(_) | RuleSet::RenjuSwap)
        );
        let black_to_move = self.ply.is_multiple_of(2);
        let finished_here = self.ply == self.plies() && self.record.result.is_some();
        if renju && black_to_move && !finished_here {
            let mut board = Board::new();
            for stone in &game.stones {
                let color = if stone.color() == gm::Color::White {
                    Color::White
                } else {
                    Color::Black
                };
                if let Some(point) = stone
                    .point
                    .as_ref()
                    .and_then(|p| Point::from_xy(i64::from(p.x), i64::from(p.y)).ok())
                {
                    let _ = board.place(point, color);
                }
            }
            game.forbidden_points = board
                .forbidden_points()
                .into_iter()
                .map(|(p, _)| gm::ForbiddenPoint {
                    point: Some(gm::Point {
                        text: p.to_string(),
                        x: i32::from(p.x()),
                        y: i32::from(p.y()),
                    }),
                    kind: gm::ForbiddenKind::Unspecified as i32,
                })
                .collect();
        }
        game
    }

    /// The record's actions other than plain stones (swap, proposals, draw offers, the
    /// end), with the number of stones on the board when each happened.
    fn remarks(&self) -> Vec<(usize, String)> {
        let mut stones = 0usize;
        let mut out = Vec::new();
        for entry in &self.record.entries {
            let color = match entry.color() {
                gm::Color::Black => "black",
                gm::Color::White => "white",
                gm::Color::Unspecified => "?",
            };
            let point = entry.point.as_ref().map_or("?", |p| p.text.as_str());
            let text = match entry.action() {
                gm::RecordAction::Place => {
                    stones += 1;
                    continue;
                }
                gm::RecordAction::ChooseFifth => {
                    stones += 1;
                    format!("white keeps {point} as move 5")
                }
                gm::RecordAction::ClaimForbidden => "white claims a forbidden move".into(),
                gm::RecordAction::Swap => "white swaps colors".into(),
                gm::RecordAction::ProposeFifth => format!(
                    "black proposes {}",
                    entry
                        .proposals
                        .iter()
                        .map(|p| p.text.clone())
                        .collect::<Vec<_>>()
                        .join(" and ")
                ),
                gm::RecordAction::OfferDraw => format!("{color} offers a draw"),
                gm::RecordAction::AcceptDraw => format!("{color} accepts the draw"),
                gm::RecordAction::DeclineDraw => format!("{color} declines the draw"),
                gm::RecordAction::Resign => format!("{color} resigns"),
                gm::RecordAction::Escape => format!("{color} leaves the table"),
                gm::RecordAction::Timeout => format!("{color} runs out of time"),
                gm::RecordAction::Unspecified => continue,
            };
            out.push((stones, text));
        }
        out
    }
}

impl App for ReplayApp {
    type Feed = ();
    type Request = ();
    type Reply = ();

    fn on_feed(&mut self, _: (), _: i64) -> Vec<()> {
        Vec::new()
    }

    fn on_reply(&mut self, _: (), _: i64) -> Vec<()> {
        Vec::new()
    }

    fn on_key(&mut self, key: KeyEvent, _now_ms: i64) -> Vec<()> {
        let page = isize::try_from(PAGE).unwrap_or(10);
        match key.code {
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                self.done = true;
            }
            KeyCode::Right | KeyCode::Down | KeyCode::Char('n' | 'f' | '.' | ' ') => self.step(1),
            KeyCode::Left | KeyCode::Up | KeyCode::Char('p' | 'b' | ',') | KeyCode::Backspace => {
                self.step(-1);
            }
            KeyCode::PageDown => self.step(page),
            KeyCode::PageUp => self.step(-page),
            KeyCode::Home | KeyCode::Char('g') => self.ply = 0,
            KeyCode::End | KeyCode::Char('G') => self.ply = self.plies(),
            KeyCode::Esc | KeyCode::Char('q') => self.done = true,
            _ => {}
        }
        Vec::new()
    }

    fn frame(&self, _now_ms: i64, _width: u16, _height: u16) -> Frame {
        let r = &self.record;
        let name = |id: &str| {
            if id.is_empty() {
                "?".to_owned()
            } else {
                id.to_owned()
            }
        };
        let opening = r
            .opening
            .as_ref()
            .map(|o| format!(" · opening {}", opening_name(o)))
            .unwrap_or_default();
        let mut lines = vec![
            format!(
                "Replay · {} · {}{opening}",
                self.source,
                rule_set_name(r.rule_set())
            ),
            format!(
                "● black {} · ○ white {} · {}",
                name(&r.black_player_id),
                name(&r.white_player_id),
                r.result
                    .as_ref()
                    .map_or("unfinished".to_owned(), |g| g.description.clone())
            ),
        ];
        lines.extend(
            render::gomoku_board(&self.position())
                .lines()
                .map(str::to_owned),
        );
        let here = if self.ply == 0 {
            "the empty board".to_owned()
        } else {
            let stone = &r.stones[self.ply - 1];
            format!(
                "{} {}",
                if stone.color() == gm::Color::White {
                    "white"
                } else {
                    "black"
                },
                stone.point.as_ref().map_or("?", |p| p.text.as_str())
            )
        };
        lines.push(format!("ply {} of {}: {here}", self.ply, self.plies()));
        // A window of the move list around the current ply.
        let from = self.ply.saturating_sub(8);
        let to = (from + 16).min(self.plies());
        let moves: Vec<String> = (from..to)
            .map(|i| {
                let text = r.stones[i].point.as_ref().map_or("?", |p| p.text.as_str());
                if i + 1 == self.ply {
                    format!("[{}. {text}]", i + 1)
                } else {
                    format!("{}. {text}", i + 1)
                }
            })
            .collect();
        lines.push(format!(
            "moves: {}{}{}",
            if from > 0 { "… " } else { "" },
            moves.join(" "),
            if to < self.plies() { " …" } else { "" }
        ));
        for (at, remark) in self.remarks() {
            if at <= self.ply {
                lines.push(format!("  after move {at}: {remark}"));
            }
        }
        if self.ply == self.plies()
            && let Some(result) = &r.result
        {
            let points: Vec<String> = result.points.iter().map(|p| signed(*p)).collect();
            lines.push(format!(
                "end: {} (points by seat: {})",
                result.description,
                points.join(", ")
            ));
        }
        lines.push(String::new());
        lines.push("← → one ply · Home End first/last · PgUp PgDn 10 plies · q quit".into());
        Frame {
            lines,
            cursor: None,
        }
    }

    fn finished(&self) -> bool {
        self.done
    }
}

/// A Dou Dizhu deal record as text, ending with the shuffle check's verdict.
pub fn deal_record_lines(record: &ddz::DealRecord, verified: &Result<(), String>) -> Vec<String> {
    let names: Vec<String> = record.player_ids.clone();
    let name = |seat: i32| render::seat_name(&names, seat);
    let mut out = vec![format!(
        "Dou Dizhu deal {} at table {} (deal id {})",
        record.deal_number, record.table_id, record.deal_id
    )];
    let wild = doudizhu::wild_rank(&record.wild_rank);
    let mut rules = format!("rule set: {}", doudizhu::rule_set_name(&record.rule_set));
    if let Some(rank) = wild {
        rules.push_str(&format!(" · wild rank (癞子) {rank}, marked {rank}*"));
    }
    out.push(rules);
    out.push(format!("first bidder: {}", name(record.first_bidder)));
    out.push("hands as dealt:".into());
    let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    for (seat, hand) in record.hands.iter().enumerate() {
        out.push(format!(
            "  {:<width$}  {}",
            name(i32::try_from(seat).unwrap_or(-1)),
            doudizhu::hand_text(&hand.cards, wild)
        ));
    }
    out.push(format!(
        "kitty (底牌): {}",
        doudizhu::hand_text(&record.kitty, wild)
    ));
    let landlord = if record.landlord >= 0 {
        format!(" → landlord {}", name(record.landlord))
    } else {
        String::new()
    };
    if record.calls.is_empty() {
        let bids: Vec<String> = record
            .bids
            .iter()
            .map(|b| {
                if b.points == 0 {
                    format!("{} pass", name(b.seat))
                } else {
                    format!("{} {}", name(b.seat), b.points)
                }
            })
            .collect();
        out.push(format!("bids: {}{landlord}", bids.join(" · ")));
    } else {
        let calls: Vec<String> = record
            .calls
            .iter()
            .map(|c| doudizhu::call_text(c, &names))
            .collect();
        out.push(format!(
            "calls (叫地主/抢地主): {}{landlord}",
            calls.join(" · ")
        ));
    }
    if !record.doubles.is_empty() {
        let doubles: Vec<String> = record
            .doubles
            .iter()
            .map(|d| doudizhu::double_text(d, &names))
            .collect();
        out.push(format!("doubles (加倍): {}", doubles.join(" · ")));
    }
    if record.shown {
        out.push("the landlord showed its hand (明牌)".into());
    }
    if !record.turns.is_empty() {
        out.push("plays:".into());
        for (i, turn) in record.turns.iter().enumerate() {
            out.push(format!(
                "  {:>2}. {}",
                i + 1,
                doudizhu::turn_text(turn, &names, wild)
            ));
        }
    }
    if let Some(result) = &record.result {
        let mut extras = Vec::new();
        if result.spring {
            extras.push("spring 春天".to_owned());
        }
        if result.anti_spring {
            extras.push("anti-spring 反春".to_owned());
        }
        if result.robs > 0 {
            extras.push(format!("{} rob(s)", result.robs));
        }
        if result.soft_bombs > 0 {
            extras.push(format!("{} soft bomb(s)", result.soft_bombs));
        }
        if result.wild_bombs > 0 {
            extras.push("wild bomb".to_owned());
        }
        extras.push(format!("multiplier ×{}", result.multiplier));
        let points: Vec<String> = result
            .points
            .iter()
            .enumerate()
            .map(|(seat, p)| format!("{} {}", name(i32::try_from(seat).unwrap_or(-1)), signed(*p)))
            .collect();
        let outcome = match result.outcome() {
            ddz::Outcome::LandlordWon => "the landlord won",
            ddz::Outcome::FarmersWon => "the farmers won",
            ddz::Outcome::Redeal => "everyone passed: redeal",
            ddz::Outcome::Escaped => "a player left during the deal",
            ddz::Outcome::Unspecified => "over",
        };
        out.push(format!(
            "result: {outcome} · {} · points {}",
            extras.join(" · "),
            points.join(", ")
        ));
    }
    out.push(format!("seed:       {}", record.seed));
    out.push(format!("commitment: {}", record.commitment));
    match verified {
        Ok(()) => out.push(
            "verified: SHA-256(seed ‖ deal id) is the commitment and the seed's shuffle \
             gives exactly these hands and kitty"
                .into(),
        ),
        Err(e) => out.push(format!("NOT VERIFIED: {e}")),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stone(ply: i32, text: &str) -> gm::Stone {
        let p = Point::parse(text).unwrap();
        gm::Stone {
            ply,
            point: Some(gm::Point {
                text: text.into(),
                x: i32::from(p.x()),
                y: i32::from(p.y()),
            }),
            color: if ply % 2 == 1 {
                gm::Color::Black as i32
            } else {
                gm::Color::White as i32
            },
        }
    }

    fn record(rule_set: gm::RuleSet, moves: &[&str]) -> gm::LoadRecordResponse {
        gm::LoadRecordResponse {
            rule_set: rule_set as i32,
            black_player_id: "alice".into(),
            white_player_id: "bob".into(),
            stones: moves
                .iter()
                .enumerate()
                .map(|(i, m)| stone(i32::try_from(i + 1).unwrap(), m))
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn stepping_stays_within_the_record() {
        let mut app = ReplayApp::new(record(gm::RuleSet::Freestyle, &["h8", "i9", "h9"]), "t");
        app.step(-1);
        assert_eq!(app.ply(), 0);
        app.step(2);
        assert_eq!(app.ply(), 2);
        app.step(10);
        assert_eq!(app.ply(), 3);
        app.on_key(KeyEvent::new(KeyCode::Left, KeyModifiers::NONE), 0);
        assert_eq!(app.ply(), 2);
        app.on_key(KeyEvent::new(KeyCode::Home, KeyModifiers::NONE), 0);
        assert_eq!(app.ply(), 0);
        app.on_key(KeyEvent::new(KeyCode::End, KeyModifiers::NONE), 0);
        assert_eq!(app.ply(), 3);
    }

    #[test]
    fn the_board_shows_the_position_after_the_current_ply() {
        let mut app = ReplayApp::new(record(gm::RuleSet::Freestyle, &["h8", "i9", "h9"]), "t");
        app.step(2);
        let text = app.frame(0, 100, 40).lines.join("\n");
        assert!(text.contains("ply 2 of 3: white i9"), "{text}");
        assert!(text.contains("[2. i9]"), "{text}");
        let row9 = text.lines().find(|l| l.starts_with(" 9 ")).unwrap();
        assert!(row9.contains("[○]"), "{row9}");
        assert!(!row9.contains('●'), "h9 is not played yet: {row9}");
    }

    #[test]
    fn renju_replays_mark_black_forbidden_points() {
        // Black h8 i9 j10 diagonal... a double three at h9? Use a known shape: black
        // stones f8 g8 (horizontal) and h6 h7 (vertical): h8 makes three-three.
        let moves = ["g8", "a1", "f8", "a3", "h6", "a5", "h7", "a7"];
        let mut app = ReplayApp::new(record(gm::RuleSet::RenjuLose, &moves), "t");
        app.step(8);
        let position = app.position();
        assert!(
            position
                .forbidden_points
                .iter()
                .any(|f| f.point.as_ref().unwrap().text == "h8"),
            "{:?}",
            position.forbidden_points
        );
        // In freestyle nothing is forbidden.
        let mut free = ReplayApp::new(record(gm::RuleSet::Freestyle, &moves), "t");
        free.step(8);
        assert!(free.position().forbidden_points.is_empty());
    }

    #[test]
    fn a_deal_record_reads_as_text_with_its_verdict() {
        let record = ddz::DealRecord {
            table_id: "ddz-1".into(),
            deal_number: 1,
            deal_id: "ddz-1:1".into(),
            player_ids: vec!["alice".into(), "bob".into(), "carol".into()],
            seed: "00".repeat(32),
            commitment: "11".repeat(32),
            first_bidder: 1,
            hands: vec![
                ddz::Hand {
                    cards: vec!["S3".into(), "H3".into()],
                },
                ddz::Hand {
                    cards: vec!["SA".into()],
                },
                ddz::Hand {
                    cards: vec!["RJ".into()],
                },
            ],
            kitty: vec!["S2".into()],
            bids: vec![ddz::SeatBid {
                seat: 1,
                points: 3,
                by: ddz::Actor::Seat as i32,
            }],
            landlord: 1,
            ..Default::default()
        };
        let text = deal_record_lines(&record, &Ok(())).join("\n");
        assert!(text.contains("first bidder: bob"), "{text}");
        assert!(text.contains("alice  3 3"), "{text}");
        assert!(text.contains("bids: bob 3 → landlord bob"), "{text}");
        assert!(text.contains("verified:"), "{text}");
        let text = deal_record_lines(&record, &Err("commitment mismatch".into())).join("\n");
        assert!(text.contains("NOT VERIFIED: commitment mismatch"), "{text}");
    }

    #[test]
    fn a_laizi_deal_record_shows_the_calls_doubles_show_and_wild_cards() {
        let record = ddz::DealRecord {
            table_id: "ddz-2".into(),
            deal_number: 1,
            deal_id: "ddz-2:1".into(),
            player_ids: vec!["alice".into(), "bob".into(), "carol".into()],
            rule_set: "laizi".into(),
            wild_rank: "7".into(),
            hands: vec![ddz::Hand {
                cards: vec!["S3".into(), "H7".into()],
            }],
            calls: vec![
                ddz::SeatCall {
                    seat: 0,
                    call: ddz::CallKind::Call as i32,
                    by: ddz::Actor::Seat as i32,
                },
                ddz::SeatCall {
                    seat: 1,
                    call: ddz::CallKind::Rob as i32,
                    by: ddz::Actor::Seat as i32,
                },
            ],
            doubles: vec![ddz::SeatDouble {
                seat: 0,
                double: true,
                by: ddz::Actor::Seat as i32,
            }],
            shown: true,
            landlord: 1,
            turns: vec![ddz::Turn {
                seat: 1,
                ranks: "3337".into(),
                meant: "3333".into(),
                combination: Some(ddz::Combination {
                    kind: ddz::Kind::Bomb as i32,
                    rank: "3".into(),
                    length: 1,
                    bomb: ddz::BombClass::Soft as i32,
                }),
                ..Default::default()
            }],
            ..Default::default()
        };
        let text = deal_record_lines(&record, &Ok(())).join("\n");
        assert!(
            text.contains("rule set: laizi (癞子) · wild rank (癞子) 7"),
            "{text}"
        );
        assert!(text.contains("alice  3 7*"), "{text}");
        assert!(
            text.contains("calls (叫地主/抢地主): alice call · bob rob → landlord bob"),
            "{text}"
        );
        assert!(text.contains("doubles (加倍): alice double"), "{text}");
        assert!(
            text.contains("the landlord showed its hand (明牌)"),
            "{text}"
        );
        assert!(
            text.contains("1. bob plays 3 3 3 7* as 3 3 3 3 (soft bomb 软炸弹)"),
            "{text}"
        );
    }
}
