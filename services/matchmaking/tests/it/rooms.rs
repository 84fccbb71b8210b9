//! The rooms file and the defaults it gives, game by game (no Redis): the shipped
//! rooms, the default minimum balance from each game's worst loss and the configured
//! loss cap, and what a Dou Dizhu room may not have.

use gamehub_matchmaking::MatchmakingConfig;
use gamehub_matchmaking::rooms::{
    DEFAULT_GAME_LOSS_CAP_SILVER, Rooms, RoomsError, default_min_balance,
};
use gamehub_platform::config::{ConfigError, Env};
use gamehub_terms::games::{DOUDIZHU, GOMOKU};

fn parse(text: &str) -> Result<Rooms, RoomsError> {
    Rooms::parse(text, DEFAULT_GAME_LOSS_CAP_SILVER)
}

const ONE: &str = r#"
[[rooms]]
id = "r"
name = "R"
game = "gomoku"
rules = "freestyle"
move_time_ms = 10000
total_time_ms = 60000
"#;

fn with(extra: &str) -> String {
    format!("{ONE}{extra}\n")
}

fn error_of(text: &str) -> RoomsError {
    parse(text).unwrap_err()
}

#[test]
fn the_shipped_rooms_cover_the_spec() {
    let rooms = Rooms::defaults();
    for (id, game, rules) in [
        ("gomoku-freestyle", &GOMOKU, "freestyle"),
        ("gomoku-renju", &GOMOKU, "renju-lose"),
        ("gomoku-renju-claim", &GOMOKU, "renju-claim"),
        ("gomoku-renju-refuse", &GOMOKU, "renju-refuse"),
        ("gomoku-renju-swap", &GOMOKU, "renju-swap"),
        ("gomoku-renju-opening", &GOMOKU, "renju-lose"),
        ("doudizhu-classic", &DOUDIZHU, "classic"),
    ] {
        let room = rooms.get(id).unwrap_or_else(|| panic!("{id} is shipped"));
        assert_eq!((room.game, room.rules), (game, rules), "{id}");
        assert!(room.stakes.silver_per_point > 0, "{id} is a paid room");
    }
    let free: Vec<_> = rooms
        .iter()
        .filter(|r| r.stakes.silver_per_point == 0)
        .map(|r| r.game)
        .collect();
    assert!(free.contains(&&GOMOKU) && free.contains(&&DOUDIZHU));
    assert!(
        rooms
            .iter()
            .all(|r| r.stakes.silver_per_point > 0 || r.stakes.min_balance_silver == 0)
    );
}

#[test]
fn minimum_balance_defaults_to_the_worst_loss_capped() {
    let rooms = Rooms::defaults();
    let gomoku = rooms.get("gomoku-renju").unwrap();
    assert_eq!(
        gomoku.stakes.min_balance_silver,
        10 * gomoku.stakes.silver_per_point
    );
    assert_eq!(
        rooms
            .get("doudizhu-classic")
            .unwrap()
            .stakes
            .min_balance_silver,
        DEFAULT_GAME_LOSS_CAP_SILVER
    );
    assert_eq!(default_min_balance(&GOMOKU, 100, 100, 50_000), 50_000);
    assert_eq!(default_min_balance(&GOMOKU, 2, 100, 50_000), 2_000);
    assert_eq!(default_min_balance(&DOUDIZHU, 1, 0, 50_000), 0);
}

#[test]
fn the_freestyle_rooms_play_in_pairs_and_no_other_default_room_does() {
    let rooms = Rooms::defaults();
    let paired: Vec<_> = rooms
        .iter()
        .filter(|r| r.paired_games)
        .map(|r| r.id.as_str())
        .collect();
    assert_eq!(paired, ["gomoku-freestyle", "gomoku-free"]);
    assert!(rooms.get("gomoku-free").unwrap().to_proto(0).paired_games);
    let room = parse(&with("paired_games = true")).unwrap();
    assert!(room.get("r").unwrap().paired_games);
    let ddz = ONE
        .replace("\"gomoku\"", "\"doudizhu\"")
        .replace("freestyle", "classic")
        .replace(
            "move_time_ms = 10000\ntotal_time_ms = 60000",
            "turn_time_ms = 20000",
        );
    let e = error_of(&format!("{ddz}paired_games = true\n"));
    assert_eq!(e.field.as_deref(), Some("paired_games"), "{e}");
}

#[test]
fn doudizhu_rooms_cannot_be_rated_or_carry_gomoku_clocks() {
    let ddz = r#"
[[rooms]]
id = "d"
name = "D"
game = "doudizhu"
rules = "classic"
turn_time_ms = 20000
"#;
    assert!(parse(ddz).is_ok());
    let e = error_of(&format!("{ddz}rated = true\n"));
    assert_eq!(
        (e.room.as_deref(), e.field.as_deref()),
        (Some("\"d\""), Some("rated"))
    );
    let e = error_of(&format!("{ddz}move_time_ms = 1000\n"));
    assert_eq!(e.field.as_deref(), Some("move_time_ms"));
    let e = error_of(&ddz.replace("turn_time_ms = 20000\n", ""));
    assert_eq!(e.field.as_deref(), Some("turn_time_ms"));
}

fn from_pairs(pairs: &[(&str, &str)]) -> Result<MatchmakingConfig, ConfigError> {
    MatchmakingConfig::from_env(&Env::from_pairs(pairs.iter().copied()))
}

fn min_balance(config: &MatchmakingConfig, room: &str) -> i64 {
    config.rooms.get(room).unwrap().stakes.min_balance_silver
}

#[test]
fn the_configured_per_game_loss_cap_bounds_default_minimum_balances() {
    let config = from_pairs(&[("GAMEHUB_LEDGER_GAME_LOSS_CAP_SILVER", "20000")]).unwrap();
    // Dou Dizhu's worst loss has no bound but the cap; Gomoku's escape (10 x 100) is
    // under it.
    assert_eq!(min_balance(&config, "doudizhu-classic"), 20_000);
    assert_eq!(min_balance(&config, "gomoku-renju"), 1_000);

    let config = from_pairs(&[("GAMEHUB_LEDGER_GAME_LOSS_CAP_SILVER", "500")]).unwrap();
    assert_eq!(min_balance(&config, "gomoku-renju"), 500);
    assert_eq!(
        min_balance(&config, "gomoku-free"),
        0,
        "free rooms need nothing"
    );
    for room in config.rooms.iter() {
        assert!(room.stakes.min_balance_silver <= 500, "{}", room.id);
        if *room.game == DOUDIZHU && room.stakes.silver_per_point > 0 {
            assert_eq!(room.stakes.min_balance_silver, 500, "{}", room.id);
        }
    }
}
