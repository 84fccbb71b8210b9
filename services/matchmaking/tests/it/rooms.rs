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

#[test]
fn the_designated_opening_room_draws_every_game_at_random() {
    let rooms = Rooms::defaults();
    let room = rooms.get("gomoku-renju-opening").unwrap();
    assert_eq!(
        room.designated_opening,
        Some(gomoku_rules::OpeningChoice::Random)
    );
    assert_eq!(room.to_proto(0).designated_opening, "random");
    let others: Vec<_> = rooms
        .iter()
        .filter(|r| r.designated_opening.is_some())
        .map(|r| r.id.as_str())
        .collect();
    assert_eq!(others, ["gomoku-renju-opening"]);
    assert_eq!(
        rooms
            .get("gomoku-renju")
            .unwrap()
            .to_proto(0)
            .designated_opening,
        ""
    );
}

#[test]
fn a_designated_opening_is_random_or_one_of_the_26_under_renju_only() {
    let renju = ONE.replace("freestyle", "renju-claim");
    let named = format!("{renju}designated_opening = \"花月\"\n");
    let room = parse(&named).unwrap().get("r").unwrap().clone();
    assert_eq!(
        room.designated_opening,
        Some(gomoku_rules::OpeningChoice::Fixed(
            gomoku_rules::Opening::Kagetsu
        ))
    );
    assert_eq!(room.to_proto(0).designated_opening, "kagetsu");

    let e = error_of(&format!("{renju}designated_opening = \"nope\"\n"));
    assert_eq!(e.field.as_deref(), Some("designated_opening"));
    assert!(e.to_string().contains("random"), "{e}");
    let e = error_of(&with("designated_opening = \"random\""));
    assert_eq!(e.field.as_deref(), Some("designated_opening"));
    assert!(e.to_string().contains("renju-lose"), "{e}");
    let e = error_of(&ONE.replace("freestyle", "renju-swap").replace(
        "total_time_ms = 60000",
        "total_time_ms = 60000\ndesignated_opening = \"random\"",
    ));
    assert_eq!(e.field.as_deref(), Some("designated_opening"));
}

#[test]
fn a_minimal_room_takes_the_defaults() {
    let rooms = parse(ONE).unwrap();
    let room = rooms.get("r").unwrap();
    assert_eq!(room.stakes.points_base, 1);
    assert_eq!(room.stakes.silver_per_point, 0);
    assert_eq!(room.stakes.min_balance_silver, 0);
    assert!(!room.stakes.rated);
    assert!(!room.paired_games);
}

#[test]
fn errors_name_the_room_and_the_field() {
    let e = error_of(&ONE.replace("freestyle", "renju"));
    assert_eq!(e.room.as_deref(), Some("\"r\""));
    assert_eq!(e.field.as_deref(), Some("rules"));
    assert!(e.to_string().contains("renju-lose"), "{e}");

    let e = error_of(&ONE.replace("gomoku", "chess"));
    assert_eq!(e.field.as_deref(), Some("game"));

    let e = error_of(&ONE.replace("move_time_ms = 10000", "move_time_ms = 5"));
    assert_eq!(e.field.as_deref(), Some("move_time_ms"));

    let e = error_of(&ONE.replace("total_time_ms = 60000", "total_time_ms = 9000"));
    assert_eq!(e.field.as_deref(), Some("total_time_ms"));

    let e = error_of(&with("turn_time_ms = 3000"));
    assert_eq!(e.field.as_deref(), Some("turn_time_ms"));

    let e = error_of(&with("points_base = 0"));
    assert_eq!(e.field.as_deref(), Some("points_base"));

    let e = error_of(&with("silver_per_point = -1"));
    assert_eq!(e.field.as_deref(), Some("silver_per_point"));

    let e = error_of(&with("min_balance_silver = -5"));
    assert_eq!(e.field.as_deref(), Some("min_balance_silver"));

    let e = error_of(&ONE.replace("id = \"r\"", "id = \"Bad Id\""));
    assert_eq!(e.room.as_deref(), Some("#1"));
    assert_eq!(e.field.as_deref(), Some("id"));

    let e = error_of(&ONE.replace("name = \"R\"\n", ""));
    assert_eq!(e.field.as_deref(), Some("name"));
}

#[test]
fn stakes_are_bounded_as_every_service_bounds_them() {
    use gamehub_terms::stakes::{MAX_POINTS_BASE, MAX_SILVER_PER_POINT};
    let largest = with(&format!(
        "points_base = {MAX_POINTS_BASE}\nsilver_per_point = {MAX_SILVER_PER_POINT}"
    ));
    let rooms = parse(&largest).unwrap();
    let room = rooms.get("r").unwrap();
    assert_eq!(
        (room.stakes.points_base, room.stakes.silver_per_point),
        (MAX_POINTS_BASE, MAX_SILVER_PER_POINT)
    );
    assert_eq!(room.stakes.min_balance_silver, DEFAULT_GAME_LOSS_CAP_SILVER);

    let e = error_of(&with(&format!(
        "silver_per_point = {}",
        MAX_SILVER_PER_POINT + 1
    )));
    assert_eq!(e.field.as_deref(), Some("silver_per_point"));
    let e = error_of(&with(&format!("points_base = {}", MAX_POINTS_BASE + 1)));
    assert_eq!(e.field.as_deref(), Some("points_base"));
}

#[test]
fn duplicate_ids_unknown_fields_and_empty_files_are_refused() {
    let e = error_of(&format!("{ONE}{ONE}"));
    assert_eq!(e.field.as_deref(), Some("id"));
    assert!(e.problem.contains("unique"));

    let e = error_of(&with("colour = \"red\""));
    assert!(e.to_string().contains("colour"), "{e}");

    let e = error_of("");
    assert!(e.problem.contains("no rooms"));

    let e = error_of("[[rooms]\n");
    assert!(e.problem.contains("TOML"));
}
