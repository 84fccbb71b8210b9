//! Writes real records into the fuzz corpora (see Cargo.toml): Gomoku games as text,
//! PSQ and stored state (`fuzz/corpus/gomoku_record/`), Dou Dizhu deals as records,
//! "doudizhu-json" documents and published deals (`fuzz/corpus/deal_record/`).
#![forbid(unsafe_code)]

use std::cell::Cell;
use std::path::Path;

use doudizhu_rules::{
    AutoPlayer, Bid, Choice, Deal, DealRules, RankCounts, RuleSet, Seat as DdzSeat, SeatView, Seed, TimeControl,
    legal_plays,
};
use gomoku_rules::{
    Game, GameConfig, Opening, Point, Record, RecordInfo, RuleSet, Seat, TimeControl as Clock,
};

fn write(dir: &Path, name: &str, content: impl AsRef<[u8]>) {
    std::fs::create_dir_all(dir).expect("corpus directory");
    std::fs::write(dir.join(name), content).expect("seed file");
}

fn p(text: &str) -> Point {
    Point::parse(text).expect("a point")
}

/// Plays `moves` alternately from black in a fresh game; stops at the first refused one.
fn game(rule_set: RuleSet, moves: &[&str], opening: Option<Opening>) -> Game {
    let config = GameConfig {
        rule_set,
        time_control: Clock {
            per_move_ms: 60_000,
            total_ms: 900_000,
        },
        black_seat: Seat::ZERO,
    };
    let start = 1_700_000_000_000;
    let mut g = match opening {
        Some(o) => Game::with_opening(config, o, start).expect("an opening game"),
        None => Game::new(config, start),
    };
    let first = g.log().len();
    for (i, m) in moves.iter().enumerate() {
        let seat = if (first + i) % 2 == 0 {
            Seat::ZERO
        } else {
            Seat::ONE
        };
        if g.place(seat, p(m), start + 1_000 * (i as u64 + 1)).is_err() {
            break;
        }
    }
    g
}

fn gomoku(dir: &Path) {
    let info = RecordInfo {
        room: "gomoku-renju".into(),
        black: "alice".into(),
        white: "bob".into(),
        date: "2026-12-05".into(),
        friends_table: false,
    };
    let five = ["h8", "a1", "i8", "a2", "j8", "a3", "k8", "a4", "l8"];
    let long = [
        "h8", "h9", "i9", "g7", "j10", "k11", "i8", "i7", "j8", "k8", "g8", "f8", "j7", "j9", "h6",
        "g5", "k6", "l5",
    ];
    let games = [
        ("freestyle-five", game(RuleSet::Freestyle, &five, None)),
        ("renju-long", game(RuleSet::ALL[1], &long, None)),
        (
            "renju-opening",
            game(RuleSet::ALL[1], &["g9", "i10"], Some(Opening::ALL[3])),
        ),
        ("unfinished", game(RuleSet::ALL[2], &long[..6], None)),
        ("empty", game(RuleSet::ALL[4], &[], None)),
    ];
    for (name, g) in games {
        let mut resigned = g.clone();
        let _ = resigned.resign(Seat::ONE, 1_700_000_500_000);
        for (suffix, g) in [("", g), ("-resigned", resigned)] {
            let record = Record::new(info.clone(), g.clone());
            write(dir, &format!("{name}{suffix}.txt"), record.to_text());
            write(dir, &format!("{name}{suffix}.psq"), record.to_psq());
            write(dir, &format!("{name}{suffix}.json"), g.to_bytes());
        }
    }
}

/// Auto-play choosing among the legal plays by a counter, and bidding from it.
struct Chooser(Cell<u64>);

impl Chooser {
    fn next(&self) -> u64 {
        let n = self
            .0
            .get()
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0.set(n);
        n >> 33
    }
}

impl AutoPlayer for Chooser {
    fn choose(&self, view: &SeatView) -> Option<Choice> {
        let hand: RankCounts =
            view.hand
                .iter()
                .map(|c| c.rank())
                .fold(RankCounts::EMPTY, |mut r, rank| {
                    r.try_add(rank);
                    r
                });
        let previous = view.trick.as_ref().and_then(|t| t.combination);
        let plays = legal_plays(&hand, previous.as_ref());
        let pick = self.next() as usize % (plays.len() + usize::from(previous.is_some()));
        plays.get(pick).map(|play| Choice::from(play.ranks))
    }

    fn bid(&self, _view: &SeatView) -> Bid {
        [Bid::Pass, Bid::One, Bid::Two, Bid::Three][self.next() as usize % 4]
    }
}

fn doudizhu(dir: &Path) {
    let rules = DealRules {
        points_base: 2,
        time: TimeControl::default(),
        rule_set: RuleSet::Classic,
    };
    for n in 0..6u64 {
        let mut seed = [0u8; 32];
        seed[..8].copy_from_slice(&n.to_le_bytes());
        seed[8..].copy_from_slice(b"gamehub-fuzz-corpus-deal");
        let table = format!("t-{n}");
        let deal_number = n as u32 + 1;
        let deal_id = format!("{table}:{deal_number}");
        let first = DdzSeat::ALL[n as usize % 3];
        let (mut deal, _) =
            Deal::new(&deal_id, Seed::from_bytes(seed), first, rules, 0).expect("a deal");
        let chooser = Chooser(Cell::new(n + 11));
        let mut now = 0;
        // Deals 0-3 auto-played from the start (bids and plays of the chooser), 4 by
        // timeouts (a redeal: everyone passes), 5 an escape after a few plays.
        if n < 4 || n == 5 {
            for seat in DdzSeat::ALL {
                deal.set_auto_play(seat, true, 0).expect("auto-play");
            }
        }
        while deal.settlement().is_none() && now < 10_000_000 {
            now += rules.time.turn_ms + 1;
            if n == 5 && deal.view(DdzSeat::ALL[0]).turns.len() > 6 {
                let _ = deal.escape(DdzSeat::ALL[1], now);
            }
            let _ = deal.auto_play_pending_with(now, &chooser);
            let _ = deal.check_timeout_with(now, &chooser);
        }
        let Some(record) = deal.record() else {
            continue;
        };
        let json = serde_json::to_string(&record).expect("a record");
        write(dir, &format!("record-{n}.json"), &json);
        let doc = serde_json::json!({
            "version": 1,
            "table_id": table,
            "deal_number": deal_number,
            "room_id": "doudizhu-classic",
            "players": ["alice", "bob", "carol"],
            "started_ms": 1_700_000_000_000u64,
            "ended_ms": 1_700_000_000_000u64 + now,
            "bid_actors": [],
            "record": serde_json::from_str::<serde_json::Value>(&json).expect("json"),
        });
        write(dir, &format!("doc-{n}.json"), doc.to_string());
        let cards = |cards: &[doudizhu_rules::Card]| {
            cards
                .iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let published = [
            record.seed.to_hex(),
            record.commitment.to_hex(),
            record.deal_id.clone(),
            cards(&record.hands[0]),
            cards(&record.hands[1]),
            cards(&record.hands[2]),
            cards(&record.kitty),
        ];
        write(dir, &format!("published-{n}.txt"), published.join("\n"));
    }
}

fn main() {
    let corpus = Path::new("fuzz/corpus");
    gomoku(&corpus.join("gomoku_record"));
    doudizhu(&corpus.join("deal_record"));
}
