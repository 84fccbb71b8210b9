//! A report's checks, game by game (no database): the registry's lineups, results and
//! the ledger's words for what is wrong, for Gomoku and Dou Dizhu alike; and the
//! canonical form a Dou Dizhu report is hashed in.

use gamehub_ledger::domain::caps::{Caps, Limit};
use gamehub_ledger::domain::settle::{GameReport, PlayerSnapshot, Seat, Stakes, plan};
use gamehub_ledger::domain::{GameType, HistoryKind, Outcome, PlayerId, Role};
use gamehub_proto::common;
use gamehub_proto::ledger::Role::{Bidder, Black, Farmer, Landlord, White};
use gamehub_terms::games::{DOUDIZHU, GOMOKU, Game};

use Outcome::*;

fn seat(id: &str, role: gamehub_proto::ledger::Role, outcome: Outcome, points: i64) -> Seat {
    Seat {
        player_id: PlayerId::parse("player_id", id).unwrap(),
        role: Role::from(role),
        outcome,
        points,
        offered_draw: false,
    }
}

fn report(game: &'static Game, seats: Vec<Seat>) -> GameReport {
    GameReport {
        game_id: "g-1".into(),
        game_type: GameType::of(game),
        stakes: Stakes {
            room_id: gamehub_terms::RoomId::parse("room").unwrap(),
            points_base: 1,
            silver_per_point: 100,
            min_balance_silver: 0,
            rated: true,
        },
        seats,
        reason: "five".into(),
        table_id: "t-1".into(),
        started_at_unix_ms: 1,
        ended_at_unix_ms: 2,
        record_format: "gomoku-text".into(),
        record_content: String::new(),
        friends_table: false,
    }
}

#[test]
fn consistent_reports_pass() {
    let ok = [
        report(
            &GOMOKU,
            vec![seat("a", Black, Win, 5), seat("b", White, Loss, -5)],
        ),
        report(
            &GOMOKU,
            vec![seat("a", Black, Escape, -10), seat("b", White, Win, 0)],
        ),
        report(
            &GOMOKU,
            vec![seat("a", Black, Draw, 0), seat("b", White, Draw, 0)],
        ),
        report(
            &DOUDIZHU,
            vec![
                seat("a", Landlord, Win, 4),
                seat("b", Farmer, Loss, -2),
                seat("c", Farmer, Loss, -2),
            ],
        ),
        report(
            &DOUDIZHU,
            vec![
                seat("a", Bidder, Void, 0),
                seat("b", Bidder, Escape, -3),
                seat("c", Bidder, Void, 0),
            ],
        ),
    ];
    for r in ok {
        r.check().unwrap();
    }
}

#[test]
fn inconsistent_reports_say_what_to_fix() {
    let cases = [
        (
            report(&GOMOKU, vec![seat("a", Black, Win, 5)]),
            "players: a Gomoku game has 2 players; got 1",
        ),
        (
            report(
                &GOMOKU,
                vec![seat("a", Black, Win, 5), seat("a", White, Loss, -5)],
            ),
            "players[1].player_id: player a appears twice",
        ),
        (
            report(
                &GOMOKU,
                vec![seat("a", Black, Win, 5), seat("b", Black, Loss, -5)],
            ),
            "players: a Gomoku game needs one ROLE_BLACK and one ROLE_WHITE",
        ),
        (
            report(
                &GOMOKU,
                vec![seat("a", Black, Win, 5), seat("b", Landlord, Loss, -5)],
            ),
            "players[1].role: a Gomoku player is ROLE_BLACK or ROLE_WHITE",
        ),
        (
            report(
                &GOMOKU,
                vec![seat("a", Black, Win, 5), seat("b", White, Win, 0)],
            ),
            "players: outcomes Win and Win do not make a Gomoku result",
        ),
        (
            report(
                &GOMOKU,
                vec![seat("a", Black, Win, -5), seat("b", White, Loss, 5)],
            ),
            "players[0].points: -5 points do not fit outcome Win",
        ),
        (
            report(
                &GOMOKU,
                vec![seat("a", Black, Win, 6), seat("b", White, Loss, -5)],
            ),
            "players: points sum to +1",
        ),
        (
            report(
                &DOUDIZHU,
                vec![
                    seat("a", Landlord, Win, 4),
                    seat("b", Landlord, Loss, -2),
                    seat("c", Farmer, Loss, -2),
                ],
            ),
            "players: a Dou Dizhu deal has one ROLE_LANDLORD",
        ),
        (
            report(
                &DOUDIZHU,
                vec![
                    seat("a", Landlord, Win, 4),
                    seat("b", Farmer, Win, 0),
                    seat("c", Farmer, Loss, -4),
                ],
            ),
            "players: Dou Dizhu outcomes are",
        ),
        (
            report(
                &DOUDIZHU,
                vec![
                    seat("a", Bidder, Win, 0),
                    seat("b", Bidder, Loss, 0),
                    seat("c", Bidder, Loss, 0),
                ],
            ),
            "players: a deal that ended during bidding ends by an escape",
        ),
    ];
    for (r, expected) in cases {
        let message = r.check().unwrap_err().to_string();
        assert!(message.starts_with(expected), "{message} / {expected}");
    }
}

#[test]
fn the_stored_codes_are_the_protos() {
    // The numbers stored rows hold: a change to a code would misread every stored game.
    assert_eq!(GameType::of(&GOMOKU).code(), 1);
    assert_eq!(GameType::of(&DOUDIZHU).code(), 2);
    let roles = [Black, White, Landlord, Farmer, Bidder].map(|r| Role::from(r).code());
    assert_eq!(roles, [1, 2, 3, 4, 5]);
    assert_eq!(
        GameType::of(&DOUDIZHU).code(),
        common::GameType::Doudizhu as i16
    );
}

#[test]
fn a_doudizhu_reports_canonical_form_names_its_game_and_roles() {
    let r = report(
        &DOUDIZHU,
        vec![
            seat("a", Landlord, Win, 4),
            seat("b", Farmer, Loss, -2),
            seat("c", Bidder, Void, 0),
        ],
    );
    let json = serde_json::to_string(&r).unwrap();
    assert!(json.contains(r#""game_type":"Doudizhu""#), "{json}");
    assert!(
        json.contains(r#""role":"Landlord""#)
            && json.contains(r#""role":"Farmer""#)
            && json.contains(r#""role":"Bidder""#),
        "{json}"
    );
}

/// Every refusal of a report that makes no game, word for word: API clients read them.
#[test]
fn the_refusals_keep_their_exact_words() {
    let cases = [
        (
            report(&DOUDIZHU, vec![seat("a", Landlord, Win, 4)]),
            "players: a Doudizhu game has 3 players; got 1",
        ),
        (
            report(
                &GOMOKU,
                vec![seat("a", Black, Win, 5), seat("b", White, Win, 0)],
            ),
            "players: outcomes Win and Win do not make a Gomoku result; expected a win and a loss, two draws, or an escape and a win",
        ),
        (
            report(
                &GOMOKU,
                vec![seat("a", White, Win, 5), seat("b", White, Loss, -5)],
            ),
            "players: a Gomoku game needs one ROLE_BLACK and one ROLE_WHITE",
        ),
        (
            report(
                &GOMOKU,
                vec![seat("a", Black, Escape, -10), seat("b", White, Void, 0)],
            ),
            "players: outcomes Escape and Void do not make a Gomoku result; expected a win and a loss, two draws, or an escape and a win",
        ),
        (
            report(
                &DOUDIZHU,
                vec![
                    seat("a", Farmer, Win, 4),
                    seat("b", Farmer, Loss, -2),
                    seat("c", Farmer, Loss, -2),
                ],
            ),
            "players: a Dou Dizhu deal has one ROLE_LANDLORD and two ROLE_FARMER, or three ROLE_BIDDER when it ended before a landlord was chosen",
        ),
        (
            report(
                &DOUDIZHU,
                vec![
                    seat("a", Landlord, Draw, 0),
                    seat("b", Farmer, Draw, 0),
                    seat("c", Farmer, Draw, 0),
                ],
            ),
            "players: Dou Dizhu outcomes are: landlord wins and both farmers lose, landlord loses and both farmers win, or one escape and two voids",
        ),
        (
            report(
                &DOUDIZHU,
                vec![
                    seat("a", Bidder, Escape, -3),
                    seat("b", Bidder, Escape, -3),
                    seat("c", Bidder, Void, 0),
                ],
            ),
            "players: a deal that ended during bidding ends by an escape: one PLAYER_OUTCOME_ESCAPE and two PLAYER_OUTCOME_VOID",
        ),
    ];
    for (r, expected) in cases {
        assert_eq!(r.check().unwrap_err().to_string(), expected);
    }
    // Both offered the draw.
    let mut r = report(
        &GOMOKU,
        vec![seat("a", Black, Draw, 0), seat("b", White, Draw, 0)],
    );
    r.seats[0].offered_draw = true;
    r.seats[1].offered_draw = true;
    assert_eq!(
        r.check().unwrap_err().to_string(),
        "players: only one player can have offered the draw"
    );
    // An escape with the others' outcome after it passes in both games.
    report(
        &DOUDIZHU,
        vec![
            seat("a", Landlord, Void, 0),
            seat("b", Farmer, Escape, -6),
            seat("c", Farmer, Void, 0),
        ],
    )
    .check()
    .unwrap();
}

/// The edge's refusals list what the registry has, in today's words.
#[test]
fn the_edge_lists_every_game_type_role_and_board() {
    use gamehub_ledger::api::parse;
    assert_eq!(
        parse::game_type("game_type", 0).unwrap_err().to_string(),
        "game_type: must be GAME_TYPE_GOMOKU or GAME_TYPE_DOUDIZHU"
    );
    assert_eq!(
        parse::board(0).unwrap_err().to_string(),
        "board: must be BOARD_GOMOKU_POINTS, BOARD_DOUDIZHU_POINTS or BOARD_GOMOKU_RATING"
    );
    let mut request = gamehub_proto::ledger::SettleGameRequest {
        game_id: "g-1".into(),
        game_type: common::GameType::Doudizhu as i32,
        stakes: Some(common::RoomStakes {
            room_id: "room".into(),
            points_base: 1,
            silver_per_point: 1,
            min_balance_silver: 0,
            rated: false,
        }),
        players: vec![gamehub_proto::ledger::PlayerResult {
            player_id: "a".into(),
            role: 0,
            outcome: 1,
            points: 0,
            offered_draw: false,
        }],
        ..Default::default()
    };
    assert_eq!(
        parse::settle_request(&request).unwrap_err().to_string(),
        "players[0].role: must be ROLE_BLACK or ROLE_WHITE (Gomoku), ROLE_LANDLORD, ROLE_FARMER or ROLE_BIDDER (Dou Dizhu)"
    );
    request.players = vec![request.players[0].clone(); 4];
    assert_eq!(
        parse::settle_request(&request).unwrap_err().to_string(),
        "players: at most 3 players; got 4"
    );
}

fn snapshot(id: &str, balance: i64) -> PlayerSnapshot {
    PlayerSnapshot {
        player_id: PlayerId::parse("player_id", id).unwrap(),
        balance_silver: balance,
        won_today_silver: 0,
        lost_today_silver: 0,
        points: 0,
        gomoku_rating: 2000,
        rated_games: 0,
        professional_dan: 0,
    }
}

#[test]
fn only_a_drawn_player_offers_a_draw() {
    let mut r = report(
        &GOMOKU,
        vec![seat("a", Black, Win, 5), seat("b", White, Loss, -5)],
    );
    r.seats[0].offered_draw = true;
    assert!(r.check().unwrap_err().to_string().contains("offered_draw"));
}

#[test]
fn the_same_report_hashes_alike_and_any_change_differs() {
    let r = report(
        &GOMOKU,
        vec![seat("a", Black, Win, 5), seat("b", White, Loss, -5)],
    );
    assert_eq!(r.sha256(), r.clone().sha256());
    let mut changed = r.clone();
    changed.record_content.push('x');
    assert_ne!(r.sha256(), changed.sha256());
}

#[test]
fn the_canonical_form_is_pinned() {
    let r = report(
        &GOMOKU,
        vec![seat("a", Black, Win, 5), seat("b", White, Loss, -5)],
    );
    assert_eq!(
        serde_json::to_string(&r).unwrap(),
        r#"{"game_id":"g-1","game_type":"Gomoku","stakes":{"room_id":"room","points_base":1,"silver_per_point":100,"min_balance_silver":0,"rated":true},"seats":[{"player_id":"a","role":"Black","outcome":"Win","points":5,"offered_draw":false},{"player_id":"b","role":"White","outcome":"Loss","points":-5,"offered_draw":false}],"reason":"five","table_id":"t-1","started_at_unix_ms":1,"ended_at_unix_ms":2,"record_format":"gomoku-text","record_content":""}"#
    );
}

/// The friends' table flag joined the canonical form after games had been settled
/// without it: left out when false, those games' retries hash as they did and replay.
#[test]
fn a_friends_table_is_part_of_the_canonical_form_only_when_set() {
    let plain = report(
        &GOMOKU,
        vec![seat("a", Black, Win, 5), seat("b", White, Loss, -5)],
    );
    assert!(
        !serde_json::to_string(&plain)
            .unwrap()
            .contains("friends_table")
    );
    let mut friends = plain.clone();
    friends.friends_table = true;
    let json = serde_json::to_string(&friends).unwrap();
    assert!(
        json.ends_with(r#""record_content":"","friends_table":true}"#),
        "{json}"
    );
    assert_ne!(plain.sha256(), friends.sha256());
}

#[test]
fn a_friends_table_moves_no_rating_even_in_a_rated_room() {
    let mut r = report(
        &GOMOKU,
        vec![seat("a", Black, Win, 5), seat("b", White, Loss, -5)],
    );
    assert!(r.rated());
    r.friends_table = true;
    assert!(!r.rated());
    let plan = plan(&r, &[snapshot("a", 0), snapshot("b", 0)], &Caps::default());
    assert_eq!(
        (plan.seats[0].rating_after, plan.seats[1].rating_after),
        (2000, 2000)
    );
    assert_eq!(plan.seats[0].rated_games_added, 0);
    assert_eq!(plan.seats[0].points_after, 5, "points count as in the room");
}

#[test]
fn a_plan_moves_points_silver_titles_and_ratings() {
    let mut r = report(
        &GOMOKU,
        vec![seat("a", Black, Win, 5), seat("b", White, Loss, -5)],
    );
    r.stakes.silver_per_point = 1000;
    let mut a = snapshot("a", 0);
    a.points = 998;
    let plan = plan(&r, &[a, snapshot("b", 3000)], &Caps::default());
    assert_eq!(plan.seats[0].silver_delta, 3000);
    assert_eq!(plan.seats[0].limited_by, Some(Limit::Counterparty));
    assert_eq!(plan.seats[1].limited_by, Some(Limit::Balance));
    assert_eq!(plan.seats[0].points_after, 1003);
    assert_eq!(plan.seats[0].title_after.level, 2);
    assert_eq!(
        (plan.seats[0].rating_after, plan.seats[1].rating_after),
        (2010, 1990)
    );
    let kinds: Vec<_> = plan.history(&r).iter().map(|h| h.kind).collect();
    use HistoryKind as K;
    assert_eq!(
        kinds,
        vec![
            K::Silver,
            K::Points,
            K::Title,
            K::Rating,
            K::Silver,
            K::Points,
            K::Rating
        ]
    );
}

#[test]
fn an_escape_is_a_rated_loss() {
    let r = report(
        &GOMOKU,
        vec![seat("a", Black, Escape, -10), seat("b", White, Win, 0)],
    );
    let plan = plan(
        &r,
        &[snapshot("a", 5000), snapshot("b", 0)],
        &Caps::default(),
    );
    assert_eq!(plan.house_silver, 1000);
    assert_eq!(plan.seats[0].silver_delta, -1000);
    assert_eq!(plan.seats[1].silver_delta, 0);
    assert_eq!(
        (plan.seats[0].rating_after, plan.seats[1].rating_after),
        (1990, 2010)
    );
}
