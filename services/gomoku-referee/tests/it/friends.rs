//! Profiles, a bot seat the referee plays, friends' tables, and the table list.

use std::time::Duration;

use gamehub_platform::auth::Role;
use gamehub_proto::common::PlayerProfile;
use gamehub_proto::gomoku as pb;
use tonic::Code;

use crate::support::*;

/// How long into its turn the test referees' bots move (the default).
const BOT_MOVE: Duration = Duration::from_millis(700);

fn named(name: &str, title: &str) -> PlayerProfile {
    PlayerProfile {
        name: name.into(),
        title: title.into(),
        rating: 1_250,
        rank_name: "2k".into(),
        bot: false,
    }
}

/// A friends' table of alice (seat 0, black first) and the bot "bot-1" in seat 1, no
/// clock, free.
fn bot_table_request() -> pb::OpenTableRequest {
    let mut request = open_request(pb::RuleSet::Freestyle, (0, 0), ["alice", "bot-1"]);
    let stakes = request.stakes.as_mut().unwrap();
    stakes.silver_per_point = 0;
    stakes.rated = false;
    request.profiles = vec![named("爱丽丝", "超轻蝇量级"), named("", "")];
    request.bot_seats = vec![1];
    request.friends_table = true;
    request
}

async fn open_with(fx: &Fixture, request: pb::OpenTableRequest) -> String {
    fx.service()
        .open_table(request)
        .await
        .unwrap()
        .into_inner()
        .table_id
}

/// Moves the clock past the bot's move and waits for the table to have `stones`
/// stones (or a result).
async fn bot_answers(fx: &Fixture, table_id: &str, stones: usize) -> pb::Table {
    fx.clock.advance(BOT_MOVE);
    eventually(
        &format!("the bot's stone {stones} at {table_id}"),
        Duration::from_secs(10),
        || async {
            let table = fx.table(table_id).await;
            let game = game(&table);
            (game.stones.len() >= stones || game.result.is_some()).then_some(table)
        },
    )
    .await
}

#[tokio::test]
async fn profiles_show_to_seats_and_spectators_with_the_bot_marked() {
    let fx = Fixture::new().await;
    let id = open_with(&fx, bot_table_request()).await;
    let seated = fx.player("alice").view(&id).await;
    let spectator = fx.player("carol").view(&id).await;
    for table in [&seated, &spectator] {
        assert!(table.friends_table);
        let profiles: Vec<_> = table
            .players
            .iter()
            .map(|p| p.profile.clone().unwrap())
            .collect();
        assert_eq!(profiles[0].name, "爱丽丝");
        assert_eq!(profiles[0].title, "超轻蝇量级");
        assert_eq!(
            (profiles[0].rating, profiles[0].rank_name.as_str()),
            (1_250, "2k")
        );
        assert!(!profiles[0].bot && profiles[1].bot, "{profiles:?}");
    }
    // A table opened without profiles shows its players by id, none a bot.
    let plain = fx
        .open(pb::RuleSet::Freestyle, (0, 0), ["dave", "erin"])
        .await;
    assert!(!plain.friends_table);
    for player in &plain.players {
        assert_eq!(player.profile, Some(PlayerProfile::default()));
    }
    fx.stop().await;
}

#[tokio::test]
async fn bad_profiles_and_bot_seats_are_refused_naming_the_field() {
    let fx = Fixture::new().await;
    type Spoil = Box<dyn Fn(&mut pb::OpenTableRequest)>;
    let cases: Vec<(Spoil, &str)> = vec![
        (Box::new(|r| r.profiles.truncate(1)), "profiles: "),
        (
            Box::new(|r| r.profiles[1].name = "一二三四五六七八九十一二三".into()),
            "profiles[1].name: ",
        ),
        (
            Box::new(|r| r.profiles[0].title = "t".repeat(33)),
            "profiles[0].title: ",
        ),
        (Box::new(|r| r.bot_seats = vec![0]), "bot_seats[0]: "),
        (Box::new(|r| r.bot_seats = vec![2]), "bot_seats[0]: "),
        (Box::new(|r| r.bot_seats = vec![1, 1]), "bot_seats: "),
    ];
    for (spoil, field) in cases {
        let mut request = bot_table_request();
        spoil(&mut request);
        let refused = fx.service().open_table(request).await.unwrap_err();
        assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
        assert!(refused.message().starts_with(field), "{field}: {refused:?}");
    }
    fx.stop().await;
}

#[tokio::test]
async fn a_game_against_the_bot_runs_to_its_result_and_the_bot_is_ready_for_the_next() {
    let fx = Fixture::new().await;
    let id = open_with(&fx, bot_table_request()).await;
    let alice = fx.player("alice");
    // Nobody acts for the bot, not even a token in its name.
    alice.place(&id, "h8").await.unwrap();
    let impostor = fx.player("bot-1").place(&id, "b2").await.unwrap_err();
    assert_eq!(impostor.code(), Code::PermissionDenied, "{impostor:?}");
    let mut table = bot_answers(&fx, &id, 2).await;
    // Alice plays along the bottom edge, two apart, never threatening: the bot's
    // stones make five.
    for (i, point) in ["a1", "c1", "e1", "g1", "i1", "k1", "m1", "o1", "a3", "c3"]
        .into_iter()
        .enumerate()
    {
        if game(&table).result.is_some() {
            break;
        }
        alice.place(&id, point).await.unwrap();
        table = bot_answers(&fx, &id, 4 + 2 * i).await;
    }
    let result = result(&table);
    assert_eq!(result.winner_seat, Some(1), "the bot won: {result:?}");
    assert_eq!(result.reason, pb::EndReason::Five as i32, "{result:?}");
    let bot = &table.players[1];
    assert!(
        bot.wants_next_game,
        "the bot asks for the next game at once"
    );
    assert!(!table.players[0].wants_next_game);

    let record = fx
        .service()
        .get_record(pb::GetRecordRequest {
            table_id: id.clone(),
            game_number: 1,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(record.friends_table);
    let text = fx
        .service()
        .export_record(pb::ExportRecordRequest {
            table_id: id.clone(),
            game_number: 1,
            format: pb::RecordFormat::Text as i32,
        })
        .await
        .unwrap()
        .into_inner()
        .content;
    assert!(text.contains("[FriendsTable \"yes\"]"), "{text}");

    // Alice's ask starts game 2 at once; the bot holds black now and opens.
    let next = alice.next_game(&id).await.unwrap();
    assert!(next.started);
    let table = bot_answers(&fx, &id, 1).await;
    assert_eq!(table.game.as_ref().unwrap().number, 2);
    assert_eq!(game(&table).stones.len(), 1);
    assert_eq!(game(&table).stones[0].color, pb::Color::Black as i32);
    fx.stop().await;
}

#[tokio::test]
async fn the_bot_plays_on_after_its_referee_restarts() {
    let mut fx = Fixture::new().await;
    let id = open_with(&fx, bot_table_request()).await;
    fx.player("alice").place(&id, "h8").await.unwrap();
    // The referee stops before the bot's move is due; another starts on the same store.
    let mut old = fx.referees.remove(0);
    old.stop().await;
    fx.add_referee(|_| {}).await;
    let table = bot_answers(&fx, &id, 2).await;
    assert_eq!(
        game(&table).stones.len(),
        2,
        "the new referee's sweeper moved for the bot"
    );
    fx.player("alice").place(&id, "a1").await.unwrap();
    let table = bot_answers(&fx, &id, 4).await;
    assert_eq!(game(&table).stones.len(), 4);
    fx.stop().await;
}

async fn list(client: &Gomoku, room: &str, size: i32, token: &str) -> pb::ListTablesResponse {
    client
        .clone()
        .list_tables(pb::ListTablesRequest {
            room_id: room.into(),
            page_size: size,
            page_token: token.into(),
        })
        .await
        .unwrap()
        .into_inner()
}

#[tokio::test]
async fn list_tables_pages_newest_first_without_friends_or_closed_tables() {
    let fx = Fixture::new().await;
    let lister = fx.client_at(&fx.url(), "lister", Role::Player);
    let mut opened = Vec::new();
    for i in 0..5 {
        fx.clock.advance(Duration::from_millis(1));
        let t = fx
            .open(
                pb::RuleSet::Freestyle,
                (0, 0),
                [&format!("p{i}a"), &format!("p{i}b")],
            )
            .await;
        opened.push(t.table_id);
    }
    fx.clock.advance(Duration::from_millis(1));
    let friends = open_with(&fx, bot_table_request()).await;

    let first = list(&lister, "gomoku-test", 2, "").await;
    let ids = |page: &pb::ListTablesResponse| -> Vec<String> {
        page.tables.iter().map(|t| t.table_id.clone()).collect()
    };
    assert_eq!(ids(&first), [opened[4].clone(), opened[3].clone()]);
    let summary = &first.tables[0];
    assert_eq!(summary.room_id, "gomoku-test");
    assert!(summary.in_progress);
    assert_eq!((summary.game_number, summary.move_number), (1, 0));
    assert_eq!(summary.phase, "PHASE_PLAY");
    assert_eq!(summary.players.len(), 2);
    assert_eq!(summary.players[1].player_id, "p4b");
    let second = list(&lister, "gomoku-test", 2, &first.next_page_token).await;
    assert_eq!(ids(&second), [opened[2].clone(), opened[1].clone()]);
    let third = list(&lister, "gomoku-test", 2, &second.next_page_token).await;
    assert_eq!(ids(&third), [opened[0].clone()]);
    assert_eq!(third.next_page_token, "");
    assert!(
        !ids(&list(&lister, "gomoku-test", 0, "").await).contains(&friends),
        "friends' tables are not listed"
    );

    // A stone shows; a closed table is gone.
    fx.player("p4a").place(&opened[4], "h8").await.unwrap();
    fx.player("p3a").leave(&opened[3]).await.unwrap();
    let all = list(&lister, "gomoku-test", 0, "").await;
    assert_eq!(
        ids(&all),
        [
            opened[4].clone(),
            opened[2].clone(),
            opened[1].clone(),
            opened[0].clone()
        ]
    );
    assert_eq!(all.tables[0].move_number, 1);

    let refused = lister
        .clone()
        .list_tables(pb::ListTablesRequest {
            room_id: "gomoku-test".into(),
            page_size: 0,
            page_token: "not-a-token".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert!(refused.message().starts_with("page_token: "), "{refused:?}");
    let refused = lister
        .clone()
        .list_tables(pb::ListTablesRequest {
            room_id: "gomoku-test".into(),
            page_size: -1,
            page_token: String::new(),
        })
        .await
        .unwrap_err();
    assert!(refused.message().starts_with("page_size: "), "{refused:?}");
    fx.stop().await;
}

#[tokio::test]
async fn a_spectators_watch_counts_in_the_list_while_it_lasts() {
    let fx = Fixture::new().await;
    let table = fx
        .open(pb::RuleSet::Freestyle, (0, 0), ["sam", "tom"])
        .await;
    let lister = fx.client_at(&fx.url(), "lister", Role::Player);
    let spectators = || async { list(&lister, "gomoku-test", 0, "").await.tables[0].spectators };
    // The seated player's watch is not a spectator's.
    let mut seated = fx
        .player("sam")
        .client
        .watch(pb::WatchRequest {
            table_id: table.table_id.clone(),
            after_event_id: 0,
        })
        .await
        .unwrap()
        .into_inner();
    seated.message().await.unwrap().unwrap();
    let mut watching = fx
        .player("carol")
        .client
        .watch(pb::WatchRequest {
            table_id: table.table_id.clone(),
            after_event_id: 0,
        })
        .await
        .unwrap()
        .into_inner();
    watching.message().await.unwrap().unwrap();
    eventually("carol counted", Duration::from_secs(10), || async {
        (spectators().await == 1).then_some(())
    })
    .await;
    drop(watching);
    eventually(
        "carol no longer counted",
        Duration::from_secs(10),
        || async { (spectators().await == 0).then_some(()) },
    )
    .await;
    drop(seated);
    fx.stop().await;
}
