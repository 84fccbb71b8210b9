//! Display names (docs/rules.md#names): set by the player, reset by an operator, checked
//! and stored NFC; profiles for many players at once; names on boards and game lists;
//! the friends' table flag of a settled game.

use gamehub_platform::auth::Role;
use gamehub_proto::common::GameType;
use gamehub_proto::ledger::PlayerOutcome::{Loss, Win};
use gamehub_proto::ledger::{
    Board, GetAccountRequest, GetGameRecordRequest, GetLeaderboardRequest, GetProfilesRequest,
    ListGamesRequest, NamedProfile, SetNameRequest, SetProfessionalRequest,
};
use tonic::Code;

use crate::support::*;

/// The level-1 title, which a player without points holds.
const FIRST_TITLE: &str = "超轻蝇量级";

async fn set_name(
    client: &mut Client,
    player_id: &str,
    name: &str,
) -> Result<String, tonic::Status> {
    client
        .set_name(SetNameRequest {
            player_id: player_id.into(),
            name: name.into(),
            reason: "test".into(),
            request_id: String::new(),
        })
        .await
        .map(|r| r.into_inner().name)
}

/// The stored name row, as PostgreSQL holds it.
async fn stored_name(app: &TestApp, player: &str) -> Option<(String, String)> {
    sqlx::query_as("SELECT name, updated_by FROM names WHERE player_id = $1")
        .bind(player)
        .fetch_optional(&app.db.pool)
        .await
        .unwrap()
}

async fn account_name(app: &TestApp, player: &str) -> String {
    app.account(player).await.name
}

async fn profiles(
    client: &mut Client,
    ids: &[&str],
    game_type: GameType,
) -> Result<Vec<NamedProfile>, tonic::Status> {
    client
        .get_profiles(GetProfilesRequest {
            player_ids: ids.iter().map(|id| id.to_string()).collect(),
            game_type: game_type as i32,
        })
        .await
        .map(|r| r.into_inner().profiles)
}

fn refused_name(result: Result<String, tonic::Status>, expected: &str) {
    let status = result.expect_err(expected);
    assert_eq!(status.code(), Code::InvalidArgument, "{}", status.message());
    assert!(
        status.message().starts_with("name: ") && status.message().contains(expected),
        "{:?} should say {expected:?}",
        status.message()
    );
}

#[tokio::test]
async fn a_player_names_itself_in_any_script_checked_and_stored_nfc() {
    let app = spawn_app().await;
    let mut zhang = app.player("zhang");

    // Chinese, and the empty player id meaning the caller itself.
    assert_eq!(set_name(&mut zhang, "", "张三丰").await.unwrap(), "张三丰");
    assert_eq!(
        stored_name(&app, "zhang").await,
        Some(("张三丰".into(), "zhang".into()))
    );
    assert_eq!(account_name(&app, "zhang").await, "张三丰");
    // Naming itself made no account: a name needs none.
    let accounts: i64 = sqlx::query_scalar("SELECT count(*) FROM accounts WHERE kind = 'player'")
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    assert_eq!(accounts, 0);

    // Emoji, one of them a zero-width-joiner sequence (woman, ZWJ, laptop).
    let emoji = "棋🐉👩\u{200D}💻";
    assert_eq!(set_name(&mut zhang, "zhang", emoji).await.unwrap(), emoji);
    assert_eq!(account_name(&app, "zhang").await, emoji);

    // Decomposed input (e + COMBINING DIAERESIS) is stored composed.
    assert_eq!(set_name(&mut zhang, "", "Zoe\u{308}").await.unwrap(), "Zoë");
    let (stored, _) = stored_name(&app, "zhang").await.unwrap();
    assert_eq!(stored.as_bytes(), "Zo\u{EB}".as_bytes());

    // Refused, each saying what to fix, and changing nothing.
    let before = fingerprint(&app.db.pool).await;
    refused_name(
        set_name(&mut zhang, "", "张\t三").await,
        "no control characters (tab, newline, …): remove U+0009 at character 2",
    );
    refused_name(set_name(&mut zhang, "", "a\nb").await, "U+000A");
    refused_name(
        set_name(&mut zhang, "", "a\u{2028}b").await,
        "line or paragraph",
    );
    refused_name(
        set_name(&mut zhang, "", "abc\u{202E}def").await,
        "no invisible formatting characters",
    );
    refused_name(set_name(&mut zhang, "", "a\u{200B}b").await, "U+200B");
    refused_name(
        set_name(&mut zhang, "", "一二三四五六七八九十壹贰叁").await,
        "at most 12 characters, this one has 13",
    );
    refused_name(
        set_name(&mut zhang, "", " 张三").await,
        "no space at either end: remove U+0020 at the start",
    );
    refused_name(
        set_name(&mut zhang, "", "张三 ").await,
        "remove U+0020 at the end",
    );
    refused_name(
        set_name(&mut zhang, "", "张三\u{3000}").await,
        "U+3000 at the end",
    );
    refused_name(
        set_name(&mut zhang, "", "   ").await,
        "no space at either end",
    );
    refused_name(
        set_name(&mut zhang, "", &"q".repeat(65)).await,
        "at most 64 bytes of UTF-8, this one has 65",
    );
    assert_eq!(fingerprint(&app.db.pool).await, before);
    assert_eq!(stored_name(&app, "zhang").await.unwrap().0, "Zoë");

    // Exactly 12 characters is a name; an empty name clears it.
    assert_eq!(
        set_name(&mut zhang, "", "一二三四五六七八九十壹贰")
            .await
            .unwrap(),
        "一二三四五六七八九十壹贰"
    );
    assert_eq!(set_name(&mut zhang, "", "").await.unwrap(), "");
    assert_eq!(stored_name(&app, "zhang").await, None);
    assert_eq!(account_name(&app, "zhang").await, "");
    // Clearing a name the player does not have is no error.
    assert_eq!(set_name(&mut zhang, "", "").await.unwrap(), "");
    // A player's own changes are not operator actions.
    let audited: i64 = sqlx::query_scalar("SELECT count(*) FROM operator_actions")
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    assert_eq!(audited, 0);
    app.finish().await;
}

#[tokio::test]
async fn a_player_renames_only_itself_and_an_operator_anyone_audited() {
    let app = spawn_app().await;
    set_name(&mut app.player("alice"), "", "爱丽丝")
        .await
        .unwrap();
    let before = fingerprint(&app.db.pool).await;

    // Another player, and a service, may not rename alice.
    let status = set_name(&mut app.player("mallory"), "alice", "loser")
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::PermissionDenied);
    assert!(
        status
            .message()
            .contains("sets only its own name (mallory), not alice's"),
        "{}",
        status.message()
    );
    let status = set_name(&mut app.player("mallory"), "alice", "")
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::PermissionDenied, "nor clear it");
    let status = set_name(&mut app.service(), "alice", "bot")
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::PermissionDenied);
    assert!(
        status
            .message()
            .contains("needs a player or an operator token"),
        "{}",
        status.message()
    );
    assert_eq!(fingerprint(&app.db.pool).await, before);
    assert_eq!(stored_name(&app, "alice").await.unwrap().0, "爱丽丝");

    // An operator names whom it means, never itself.
    let mut operator = app.operator();
    let status = set_name(&mut operator, "", "admin").await.unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(
        status.message().starts_with("player_id: "),
        "{}",
        status.message()
    );
    // Its names are checked like anyone's.
    refused_name(
        set_name(&mut operator, "alice", "a\u{202E}b").await,
        "U+202E",
    );

    // It resets alice's name, then clears it; both audited with before and after.
    assert_eq!(
        set_name(&mut operator, "alice", "Alice").await.unwrap(),
        "Alice"
    );
    assert_eq!(
        stored_name(&app, "alice").await,
        Some(("Alice".into(), "test-operator".into()))
    );
    assert_eq!(set_name(&mut operator, "alice", "").await.unwrap(), "");
    assert_eq!(stored_name(&app, "alice").await, None);
    assert_eq!(account_name(&app, "alice").await, "");
    let audit: Vec<(String, i16, String, serde_json::Value)> = sqlx::query_as(
        "SELECT operator, kind, player_id::text, details FROM operator_actions ORDER BY action_id",
    )
    .fetch_all(&app.db.pool)
    .await
    .unwrap();
    assert_eq!(
        audit,
        vec![
            (
                "test-operator".into(),
                3,
                "alice".into(),
                serde_json::json!({ "name_before": "爱丽丝", "name": "Alice" })
            ),
            (
                "test-operator".into(),
                3,
                "alice".into(),
                serde_json::json!({ "name_before": "Alice", "name": null })
            ),
        ]
    );
    app.finish().await;
}

#[tokio::test]
async fn profiles_come_once_each_in_the_order_asked_with_the_games_title_and_rating() {
    let app = spawn_app().await;
    set_name(&mut app.player("ann"), "", "安").await.unwrap();
    set_name(&mut app.player("ben"), "", "本🐉").await.unwrap();
    // ann wins a rated game (3010 vs 2990) and 1,500 Gomoku points (level 2); ben plays
    // a Dou Dizhu deal as landlord and wins 40 points.
    app.settle(rated("g-1", "ann", "ben", Win)).await;
    app.settle(gomoku("g-2", 0, ("ann", Win, 1_495), ("ben", Loss, -1_495)))
        .await;
    app.settle(doudizhu("d-1", 0, "ben", ["cai", "dan"], true, 20))
        .await;

    // Any caller: a player, a service, an operator.
    for role in [Role::Player, Role::Service, Role::Operator] {
        let mut client = app.client(
            if role == Role::Service {
                "matchmaking"
            } else {
                "reader"
            },
            role,
        );
        let got = profiles(
            &mut client,
            &["ben", "nobody", "ann", "ben"],
            GameType::Gomoku,
        )
        .await
        .unwrap();
        let shown: Vec<_> = got
            .iter()
            .map(|p| {
                let profile = p.profile.clone().unwrap();
                (
                    p.player_id.as_str(),
                    profile.name,
                    profile.title,
                    profile.rating,
                    profile.rank_name,
                    profile.bot,
                )
            })
            .collect();
        assert_eq!(
            shown,
            vec![
                (
                    "ben",
                    "本🐉".into(),
                    FIRST_TITLE.into(),
                    2990,
                    "2k".into(),
                    false
                ),
                (
                    "nobody",
                    String::new(),
                    FIRST_TITLE.into(),
                    3000,
                    "1k".into(),
                    false
                ),
                (
                    "ann",
                    "安".into(),
                    "次蝇量级".into(),
                    3010,
                    "1k".into(),
                    false
                ),
            ],
            "{role:?}"
        );
    }
    let mut client = app.player("reader");

    // Dou Dizhu: the title in Dou Dizhu, no rating.
    let got = profiles(&mut client, &["ben", "ann", "nobody"], GameType::Doudizhu)
        .await
        .unwrap();
    let shown: Vec<_> = got
        .iter()
        .map(|p| {
            let profile = p.profile.clone().unwrap();
            (
                p.player_id.as_str(),
                profile.name,
                profile.title,
                profile.rating,
                profile.rank_name,
            )
        })
        .collect();
    assert_eq!(
        shown,
        vec![
            ("ben", "本🐉".into(), FIRST_TITLE.into(), 0, String::new()),
            ("ann", "安".into(), FIRST_TITLE.into(), 0, String::new()),
            (
                "nobody",
                String::new(),
                FIRST_TITLE.into(),
                0,
                String::new()
            ),
        ]
    );
    // No game: names only.
    let got = profiles(&mut client, &["ann", "cai"], GameType::Unspecified)
        .await
        .unwrap();
    let shown: Vec<_> = got
        .iter()
        .map(|p| (p.player_id.as_str(), p.profile.clone().unwrap()))
        .collect();
    assert_eq!(shown.len(), 2);
    assert_eq!(shown[0].0, "ann");
    assert_eq!(
        shown[0].1,
        gamehub_proto::common::PlayerProfile {
            name: "安".into(),
            ..Default::default()
        }
    );
    assert_eq!(
        (shown[1].0, shown[1].1.clone()),
        ("cai", Default::default())
    );

    // A professional's rank name is its dan.
    app.operator()
        .set_professional(SetProfessionalRequest {
            player_id: "ann".into(),
            professional_dan: 3,
            reason: "test".into(),
            request_id: String::new(),
        })
        .await
        .unwrap();
    let got = profiles(&mut client, &["ann"], GameType::Gomoku)
        .await
        .unwrap();
    assert_eq!(got[0].profile.clone().unwrap().rank_name, "3p");

    // 1 to 100 ids, each an id; reading writes nothing.
    let hundred: Vec<String> = (0..100).map(|i| format!("p{i}")).collect();
    let ids: Vec<&str> = hundred.iter().map(String::as_str).collect();
    let got = profiles(&mut client, &ids, GameType::Gomoku).await.unwrap();
    assert_eq!(got.len(), 100);
    assert_eq!(got[99].player_id, "p99");
    let before = fingerprint(&app.db.pool).await;
    let too_many: Vec<String> = (0..101).map(|i| format!("p{i}")).collect();
    let ids: Vec<&str> = too_many.iter().map(String::as_str).collect();
    for (ids, says) in [
        (&[][..], "player_ids: is required: 1 to 100 player ids"),
        (
            &ids[..],
            "player_ids: at most 100 player ids, this request has 101",
        ),
        (&["ann", "no spaces"][..], "player_ids[1]: may contain only"),
        (&["ann", ""][..], "player_ids[1]: is required"),
    ] {
        let status = profiles(&mut client, ids, GameType::Gomoku)
            .await
            .unwrap_err();
        assert_eq!(status.code(), Code::InvalidArgument);
        assert!(status.message().starts_with(says), "{}", status.message());
    }
    let status = client
        .get_profiles(GetProfilesRequest {
            player_ids: vec!["ann".into()],
            game_type: 99,
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(
        status.message().starts_with("game_type: "),
        "{}",
        status.message()
    );
    assert_eq!(fingerprint(&app.db.pool).await, before);
    app.finish().await;
}

#[tokio::test]
async fn boards_and_game_lists_show_each_players_name_now() {
    let app = spawn_app().await;
    set_name(&mut app.player("ann"), "", "安").await.unwrap();
    let settled = app
        .settle(gomoku("g-1", 0, ("ann", Win, 10), ("ben", Loss, -10)))
        .await;
    app.settle(gomoku("g-2", 0, ("cai", Win, 5), ("ben", Loss, -5)))
        .await;
    // SettleGame's answer carries no names (nor does its replay).
    assert!(settled.players.iter().all(|p| p.name.is_empty()));
    let replayed = app
        .settle(gomoku("g-1", 0, ("ann", Win, 10), ("ben", Loss, -10)))
        .await;
    assert!(replayed.replayed);
    assert!(replayed.players.iter().all(|p| p.name.is_empty()));
    set_name(&mut app.player("ben"), "", "Ben 本")
        .await
        .unwrap();

    let board = |around: &str| GetLeaderboardRequest {
        board: Board::GomokuPoints as i32,
        limit: 10,
        around_player_id: around.into(),
    };
    let named = |rows: Vec<gamehub_proto::ledger::LeaderboardRow>| -> Vec<(String, String)> {
        rows.into_iter().map(|r| (r.player_id, r.name)).collect()
    };
    let expected = vec![
        ("ann".to_string(), "安".to_string()),
        ("cai".to_string(), String::new()),
        ("ben".to_string(), "Ben 本".to_string()),
    ];
    let mut reader = app.player("reader");
    let top = reader
        .get_leaderboard(board(""))
        .await
        .unwrap()
        .into_inner()
        .rows;
    assert_eq!(named(top), expected);
    let around = reader
        .get_leaderboard(board("cai"))
        .await
        .unwrap()
        .into_inner()
        .rows;
    assert_eq!(named(around), expected);

    // Ben's games show both players by their names now, in the list and the record.
    let games = app
        .player("ben")
        .list_games(ListGamesRequest::default())
        .await
        .unwrap()
        .into_inner()
        .games;
    let names: Vec<Vec<(String, String)>> = games
        .iter()
        .map(|g| {
            g.players
                .iter()
                .map(|p| (p.player_id.clone(), p.name.clone()))
                .collect()
        })
        .collect();
    assert_eq!(
        names,
        vec![
            vec![
                ("cai".into(), String::new()),
                ("ben".into(), "Ben 本".into())
            ],
            vec![("ann".into(), "安".into()), ("ben".into(), "Ben 本".into())],
        ]
    );
    // A name changed later shows at once.
    set_name(&mut app.player("ann"), "", "安娜").await.unwrap();
    let game = app
        .player("ann")
        .get_game_record(GetGameRecordRequest {
            game_id: "g-1".into(),
        })
        .await
        .unwrap()
        .into_inner()
        .game
        .unwrap();
    let names: Vec<_> = game.players.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, vec!["安娜", "Ben 本"]);
    // The settlement itself is as it was paid.
    assert_eq!(game.players[0].points_delta, 10);
    app.finish().await;
}

#[tokio::test]
async fn a_friends_table_game_is_stored_replayed_and_never_rated() {
    let app = spawn_app().await;
    let mut friends = rated("g-f", "ann", "ben", Win);
    friends.friends_table = true;
    let first = app.settle(friends.clone()).await;
    assert!(!first.replayed);
    // A friends' table is never rated, even in a rated room; points count.
    assert_eq!(
        (
            first.players[0].rating_before,
            first.players[0].rating_after
        ),
        (3000, 3000)
    );
    assert_eq!(first.players[0].points_delta, 5);
    let (stored, rated_column): (bool, bool) =
        sqlx::query_as("SELECT friends_table, rated FROM games WHERE game_id = 'g-f'")
            .fetch_one(&app.db.pool)
            .await
            .unwrap();
    assert!(stored);
    assert!(!rated_column);

    // The same request replays; the flag is part of the payload.
    let again = app.settle(friends.clone()).await;
    assert!(again.replayed);
    assert_eq!(again.players, first.players);
    let mut not_friends = friends.clone();
    not_friends.friends_table = false;
    let status = app.service().settle_game(not_friends).await.unwrap_err();
    assert_eq!(status.code(), Code::AlreadyExists);

    // A game at a table the matcher made is not a friends' table, and moves ratings.
    app.settle(rated("g-q", "ann", "ben", Win)).await;
    let games = app
        .player("ann")
        .list_games(ListGamesRequest::default())
        .await
        .unwrap()
        .into_inner()
        .games;
    let flags: Vec<_> = games
        .iter()
        .map(|g| (g.game_id.as_str(), g.friends_table))
        .collect();
    assert_eq!(flags, vec![("g-q", false), ("g-f", true)]);
    let record = app
        .player("ben")
        .get_game_record(GetGameRecordRequest {
            game_id: "g-f".into(),
        })
        .await
        .unwrap()
        .into_inner()
        .game
        .unwrap();
    assert!(record.friends_table);
    let rating = app
        .player("ann")
        .get_account(GetAccountRequest::default())
        .await
        .unwrap()
        .into_inner()
        .account
        .unwrap()
        .gomoku_rating
        .unwrap();
    assert_eq!((rating.rating, rating.rated_games), (3010, 1));
    check_invariants(&app.db.pool, &app.caps).await;
    app.finish().await;
}
