//! Random finished games as a game service reports them to the ledger: what the
//! ledger's concurrency and crash tests settle, and what the ledger load generator
//! (`gamehub-loadgen ledger`) sends.

use gamehub_proto::common::{GameType, RoomStakes};
use gamehub_proto::ledger::{
    GameRecord, PlayerOutcome, PlayerResult, Role as SeatRole, SettleGameRequest,
};
use rand::Rng;

/// A random finished game between distinct players drawn from `players`, as a game
/// service would report it: every Gomoku result of the points table; Dou Dizhu wins and
/// losses with bids, bombs, rockets, springs and anti-springs, and escapes; free and
/// paid rooms whose stakes often make the caps and balances bind.
pub fn random_game(rng: &mut impl Rng, game_id: String, players: &[String]) -> SettleGameRequest {
    use PlayerOutcome::{Draw, Escape, Loss, Void, Win};
    let gomoku = rng.random_bool(0.5);
    let seats = if gomoku { 2 } else { 3 };
    let mut chosen: Vec<String> = Vec::with_capacity(seats);
    while chosen.len() < seats {
        let p = &players[rng.random_range(0..players.len())];
        if !chosen.contains(p) {
            chosen.push(p.clone());
        }
    }
    let points_base = [1, 1, 2, 10][rng.random_range(0..4)];
    let silver_per_point = [0, 10, 100, 1_000, 5_000][rng.random_range(0..5)];
    let result = |i: usize, role: SeatRole, outcome: PlayerOutcome, points: i64| PlayerResult {
        player_id: chosen[i].clone(),
        role: role as i32,
        outcome: outcome as i32,
        points: points * points_base,
        offered_draw: false,
    };
    let (results, reason, room) = if gomoku {
        let (black, white) = (SeatRole::Black, SeatRole::White);
        let (mut r, reason) = match rng.random_range(0..10) {
            0 => (
                vec![result(0, black, Win, 5), result(1, white, Loss, -5)],
                "five",
            ),
            1 => (
                vec![result(0, black, Loss, -5), result(1, white, Win, 5)],
                "five",
            ),
            2 => (
                vec![result(0, black, Loss, -3), result(1, white, Win, 3)],
                "resign",
            ),
            3 => (
                vec![result(0, black, Win, 2), result(1, white, Loss, -2)],
                "resign",
            ),
            4 => (
                vec![result(0, black, Escape, -10), result(1, white, Win, 0)],
                "escape",
            ),
            5 => (
                vec![result(0, black, Win, 0), result(1, white, Escape, -10)],
                "escape",
            ),
            6 => (
                vec![result(0, black, Draw, -1), result(1, white, Draw, 1)],
                "draw_agreed",
            ),
            7 => (
                vec![result(0, black, Draw, 0), result(1, white, Draw, 0)],
                "natural_draw",
            ),
            8 => (
                vec![result(0, black, Loss, -5), result(1, white, Win, 5)],
                "timeout",
            ),
            _ => (
                vec![result(0, black, Loss, -5), result(1, white, Win, 5)],
                "forbidden_move",
            ),
        };
        if reason == "draw_agreed" {
            r[0].offered_draw = true;
        }
        (r, reason, "gomoku-renju")
    } else if rng.random_bool(0.05) {
        let escaper = rng.random_range(0..3);
        let (role, points) = if rng.random_bool(0.3) {
            (SeatRole::Bidder, 3)
        } else {
            let bid = rng.random_range(1..=3);
            (SeatRole::Landlord, (bid * 3) << rng.random_range(0..3))
        };
        let r = (0..3)
            .map(|i| {
                let seat_role = match role {
                    SeatRole::Bidder => SeatRole::Bidder,
                    _ if i == 0 => SeatRole::Landlord,
                    _ => SeatRole::Farmer,
                };
                if i == escaper {
                    result(i, seat_role, Escape, -points)
                } else {
                    result(i, seat_role, Void, 0)
                }
            })
            .collect();
        (r, "escape", "doudizhu-classic")
    } else {
        let bid = rng.random_range(1..=3i64);
        let bombs = rng.random_range(0..=2u32) + u32::from(rng.random_bool(0.1));
        let landlord_won = rng.random_bool(0.6);
        let spring = landlord_won && rng.random_bool(0.1);
        let anti_spring = !landlord_won && rng.random_bool(0.05);
        let multiplier = (1i64 << bombs) * if spring || anti_spring { 2 } else { 1 };
        let each = bid * multiplier;
        let (l, f) = if landlord_won {
            (Win, Loss)
        } else {
            (Loss, Win)
        };
        let sign = if landlord_won { 1 } else { -1 };
        let r = vec![
            result(0, SeatRole::Landlord, l, 2 * each * sign),
            result(1, SeatRole::Farmer, f, -each * sign),
            result(2, SeatRole::Farmer, f, -each * sign),
        ];
        let reason = match (spring, anti_spring, landlord_won) {
            (true, _, _) => "spring",
            (_, true, _) => "anti_spring",
            (_, _, true) => "landlord_won",
            _ => "farmers_won",
        };
        (r, reason, "doudizhu-classic")
    };
    let now_ms = chrono::Utc::now().timestamp_millis();
    SettleGameRequest {
        game_id: game_id.clone(),
        game_type: if gomoku {
            GameType::Gomoku
        } else {
            GameType::Doudizhu
        } as i32,
        stakes: Some(RoomStakes {
            room_id: room.into(),
            points_base,
            silver_per_point,
            min_balance_silver: 0,
            rated: gomoku && rng.random_bool(0.7),
        }),
        players: results,
        reason: reason.into(),
        table_id: format!("table-{}", rng.random_range(0..1000)),
        friends_table: rng.random_bool(0.1),
        started_at_unix_ms: now_ms - 60_000,
        ended_at_unix_ms: now_ms,
        record: Some(GameRecord {
            format: if gomoku {
                "gomoku-text"
            } else {
                "doudizhu-json"
            }
            .into(),
            content: format!("[game {game_id}] {reason}"),
        }),
    }
}
