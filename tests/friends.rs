//! Friends' tables (好友房) through the public API of the whole platform, on the real
//! stores (docs/rules.md#friends-tables): a table opened under a code, joined by it,
//! played to settlement with names shown; wrong, closed and guessed codes; a full table
//! and a race for the last seat; a player leaving between games; the owner closing
//! mid-game (and paying the escape); bots filling a Dou Dizhu table; paid rooms behind
//! the operator's switch and the ledger's eligibility; and a restart of every service
//! with a friends' table open.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use futures::future::join_all;
use gamehub_drive as drive;
use gamehub_drive::api::{Clients, request_id};
use gamehub_platform::auth::Role;
use gamehub_proto::gomoku as gm;
use gamehub_proto::ledger as lg;
use gamehub_proto::matchmaking as mm;
use gamehub_testkit::clock::eventually;
use gamehub_testkit_services::platform::TestPlatform;
use tonic::Code;

const WITHIN: Duration = Duration::from_secs(20);

async fn platform(extra: &[(&str, &str)]) -> TestPlatform {
    let mut pairs = vec![("GAMEHUB_FRIENDS_RECONCILE_MS", "200")];
    pairs.extend_from_slice(extra);
    TestPlatform::start(&pairs).await.unwrap()
}

async fn set_name(clients: &mut Clients, name: &str) {
    clients
        .ledger
        .set_name(lg::SetNameRequest {
            player_id: String::new(),
            name: name.into(),
            ..Default::default()
        })
        .await
        .unwrap();
}

async fn try_open(clients: &mut Clients, room: &str) -> Result<mm::FriendsTable, tonic::Status> {
    clients
        .matchmaking
        .open_friends_table(mm::OpenFriendsTableRequest {
            room_id: room.into(),
            request_id: request_id(),
        })
        .await
        .map(|r| r.into_inner().table.unwrap())
}

async fn open(clients: &mut Clients, room: &str) -> mm::FriendsTable {
    try_open(clients, room).await.unwrap()
}

async fn enqueue(clients: &mut Clients, room: &str) -> Result<mm::Ticket, tonic::Status> {
    clients
        .matchmaking
        .enqueue(mm::EnqueueRequest {
            room_id: room.into(),
            request_id: request_id(),
            player_id: String::new(),
        })
        .await
        .map(|r| r.into_inner().ticket.unwrap())
}

async fn join(clients: &mut Clients, code: &str) -> Result<mm::FriendsTable, tonic::Status> {
    clients
        .matchmaking
        .join_friends_table(mm::JoinFriendsTableRequest {
            code: code.into(),
            seat: None,
        })
        .await
        .map(|r| r.into_inner().table.unwrap())
}

async fn ready(clients: &mut Clients, code: &str) -> mm::FriendsTable {
    clients
        .matchmaking
        .set_ready(mm::SetReadyRequest {
            code: code.into(),
            ready: true,
        })
        .await
        .unwrap()
        .into_inner()
        .table
        .unwrap()
}

async fn get(clients: &mut Clients, code: &str) -> Result<mm::FriendsTable, tonic::Status> {
    clients
        .matchmaking
        .get_friends_table(mm::GetFriendsTableRequest { code: code.into() })
        .await
        .map(|r| r.into_inner().table.unwrap())
}

async fn close(clients: &mut Clients, code: &str) -> Result<mm::FriendsTable, tonic::Status> {
    clients
        .matchmaking
        .close_friends_table(mm::CloseFriendsTableRequest { code: code.into() })
        .await
        .map(|r| r.into_inner().table.unwrap())
}

async fn leave(clients: &mut Clients, code: &str) -> Result<mm::FriendsTable, tonic::Status> {
    clients
        .matchmaking
        .leave_friends_table(mm::LeaveFriendsTableRequest { code: code.into() })
        .await
        .map(|r| r.into_inner().table.unwrap())
}

async fn add_bots(clients: &mut Clients, code: &str) -> Result<mm::FriendsTable, tonic::Status> {
    clients
        .matchmaking
        .add_bots(mm::AddBotsRequest { code: code.into() })
        .await
        .map(|r| r.into_inner().table.unwrap())
}

async fn remove(
    clients: &mut Clients,
    code: &str,
    player_id: &str,
) -> Result<mm::FriendsTable, tonic::Status> {
    clients
        .matchmaking
        .remove_from_friends_table(mm::RemoveFromFriendsTableRequest {
            code: code.into(),
            player_id: player_id.into(),
        })
        .await
        .map(|r| r.into_inner().table.unwrap())
}

async fn locate(clients: &mut Clients) -> mm::LocatePlayerResponse {
    clients
        .matchmaking
        .locate_player(mm::LocatePlayerRequest::default())
        .await
        .unwrap()
        .into_inner()
}

fn state(table: &mm::FriendsTable) -> mm::FriendsTableState {
    mm::FriendsTableState::try_from(table.state).unwrap()
}

/// Waits until the table is in `want` (GetFriendsTable brings it up to date).
async fn until_state(
    clients: &Clients,
    code: &str,
    want: mm::FriendsTableState,
) -> mm::FriendsTable {
    eventually(&format!("{code} {want:?}"), WITHIN, || {
        let mut clients = clients.clone();
        async move {
            let table = get(&mut clients, code).await.unwrap();
            (state(&table) == want).then_some(table)
        }
    })
    .await
}

async fn place(clients: &mut Clients, table_id: &str, point: &str) -> gm::Table {
    clients
        .gomoku
        .place_stone(gm::PlaceStoneRequest {
            table_id: table_id.into(),
            request_id: request_id(),
            point: Some(gm::Point {
                text: point.into(),
                x: 0,
                y: 0,
            }),
            known_stones: 0,
            known_game: 0,
        })
        .await
        .unwrap_or_else(|e| panic!("{point}: {e}"))
        .into_inner()
        .table
        .unwrap()
}

/// Black plays h8…l8 against white's a1…a4: black wins by five.
async fn black_wins(black: &mut Clients, white: &mut Clients, table_id: &str) -> gm::Table {
    for (b, w) in [("h8", "a1"), ("i8", "a2"), ("j8", "a3"), ("k8", "a4")] {
        place(black, table_id, b).await;
        place(white, table_id, w).await;
    }
    place(black, table_id, "l8").await
}

async fn next_game(clients: &mut Clients, table_id: &str) {
    drive::retry(|| {
        let mut clients = clients.clone();
        async move {
            clients
                .gomoku
                .next_game(gm::NextGameRequest {
                    table_id: table_id.into(),
                    request_id: request_id(),
                })
                .await
        }
    })
    .await
    .unwrap();
}

async fn game_table(clients: &mut Clients, table_id: &str) -> gm::Table {
    clients
        .gomoku
        .get_table(gm::GetTableRequest {
            table_id: table_id.into(),
        })
        .await
        .unwrap()
        .into_inner()
        .table
        .unwrap()
}

fn code_of(status: &tonic::Status) -> &str {
    status.message().split(':').next().unwrap_or_default()
}

#[tokio::test]
async fn friends_play_gomoku_from_a_code_to_settlement_and_see_each_others_names() {
    let tp = platform(&[]).await;
    let mut ann = tp.clients("ann", Role::Player);
    let mut bob = tp.clients("bob", Role::Player);
    set_name(&mut ann, "张三丰").await;
    set_name(&mut bob, "李四 🀄").await;

    let opened = open(&mut ann, "gomoku-free").await;
    let code = opened.code.clone();
    assert_eq!(code.len(), 6);
    assert_eq!(state(&opened), mm::FriendsTableState::Lobby);
    assert_eq!(opened.owner_id, "ann");
    assert_eq!(opened.seats[0].profile.as_ref().unwrap().name, "张三丰");
    assert!(opened.closes_at_unix_ms > opened.created_at_unix_ms);

    // Bob types the code as people do: lower case, a space in the middle.
    let typed = format!("{} {}", &code[..3].to_lowercase(), &code[3..]);
    let joined = join(&mut bob, &typed).await.unwrap();
    assert_eq!(joined.seats[1].player_id, "bob");
    assert_eq!(joined.seats[1].profile.as_ref().unwrap().name, "李四 🀄");

    // Both at the lobby: LocatePlayer finds the friends' table.
    let place_of_bob = locate(&mut bob).await;
    assert_eq!(place_of_bob.friends_table.unwrap().code, code);
    assert!(place_of_bob.seat.is_none());
    // Not in a queue at the same time.
    let queued = enqueue(&mut bob, "gomoku-free").await.unwrap_err();
    assert_eq!(code_of(&queued), "already_seated", "{queued:?}");

    assert_eq!(
        state(&ready(&mut ann, &code).await),
        mm::FriendsTableState::Lobby
    );
    let started = ready(&mut bob, &code).await;
    assert_eq!(state(&started), mm::FriendsTableState::Playing);
    let table_id = started.game.unwrap().table_id;

    // The game table shows the names; it is a friends' table, never listed.
    let table = game_table(&mut bob, &table_id).await;
    assert!(table.friends_table);
    let names: Vec<String> = table
        .players
        .iter()
        .map(|p| p.profile.clone().unwrap_or_default().name)
        .collect();
    assert_eq!(names, ["张三丰", "李四 🀄"]);
    let located = locate(&mut ann).await;
    let seat = located.seat.unwrap();
    assert_eq!(seat.table_id, table_id);
    assert_eq!(seat.friends_code, code);
    assert_eq!(seat.profiles[1].name, "李四 🀄");

    // Owner's seat 0 plays black in the first game.
    let over = black_wins(&mut ann, &mut bob, &table_id).await;
    assert_eq!(over.status(), gm::TableStatus::BetweenGames);

    // Settled at the ledger, which says it was a friends' table and shows names.
    let game = eventually("the friends' game settled", WITHIN, || {
        let mut ann = ann.clone();
        async move {
            ann.ledger
                .list_games(lg::ListGamesRequest::default())
                .await
                .unwrap()
                .into_inner()
                .games
                .into_iter()
                .next()
        }
    })
    .await;
    assert!(game.friends_table);
    assert!(game.players.iter().any(|p| p.name == "李四 🀄"));

    // The second game of the pair: colors alternate, bob plays black.
    next_game(&mut ann, &table_id).await;
    next_game(&mut bob, &table_id).await;
    black_wins(&mut bob, &mut ann, &table_id).await;

    // Bob leaves between games: the game table closes, ann is back in the lobby alone,
    // not ready, and still owns the table.
    let after = leave(&mut bob, &code).await.unwrap();
    assert_eq!(state(&after), mm::FriendsTableState::Lobby);
    assert!(after.seats[1].player_id.is_empty());
    assert!(!after.seats[0].ready);
    assert_eq!(after.owner_id, "ann");
    assert_eq!(
        game_table(&mut ann, &table_id).await.status(),
        gm::TableStatus::Closed
    );
    // Bob may queue again.
    assert!(locate(&mut bob).await.friends_table.is_none());
    tp.stop().await;
}

#[tokio::test]
async fn wrong_closed_and_guessed_codes_are_refused_as_such() {
    let tp = platform(&[("GAMEHUB_FRIENDS_CODE_MISSES", "3")]).await;
    let mut ann = tp.clients("ann", Role::Player);
    let mut eve = tp.clients("eve", Role::Player);

    let code = open(&mut ann, "doudizhu-free").await.code;
    let closed = close(&mut ann, &code).await.unwrap();
    assert_eq!(state(&closed), mm::FriendsTableState::Closed);
    assert_eq!(closed.close_reason, mm::FriendsCloseReason::Owner as i32);

    let refused = join(&mut eve, &code).await.unwrap_err();
    assert_eq!(refused.code(), Code::FailedPrecondition);
    assert_eq!(code_of(&refused), "table_closed");

    // Guessing: three unknown codes, then even a real code is refused for a while; the
    // services run in this process, so their counters are read here.
    let counters = gamehub_platform::metrics::metrics();
    let (misses, refusals) = (
        counters.friends_code_misses.get(),
        counters.friends_code_refusals.get(),
    );
    let live = open(&mut ann, "doudizhu-free").await.code;
    for guess in ["ZZZZZ2", "ZZZZZ3", "not a code"] {
        let miss = get(&mut eve, guess).await.unwrap_err();
        assert_eq!(miss.code(), Code::NotFound, "{guess}");
        assert_eq!(code_of(&miss), "unknown_code");
    }
    let limited = get(&mut eve, &live).await.unwrap_err();
    assert_eq!(limited.code(), Code::ResourceExhausted);
    assert_eq!(code_of(&limited), "too_many_codes");
    assert!(limited.metadata().get("retry-after-ms").is_some());
    // Others are not limited by eve's guesses.
    assert_eq!(get(&mut ann, &live).await.unwrap().code, live);
    assert!(counters.friends_code_misses.get() >= misses + 3);
    assert!(counters.friends_code_refusals.get() > refusals);
    tp.stop().await;
}

#[tokio::test]
async fn a_full_table_and_a_race_for_the_last_seat_seat_exactly_one() {
    let tp = platform(&[]).await;
    let mut ann = tp.clients("ann", Role::Player);
    let code = open(&mut ann, "doudizhu-free").await.code;
    join(&mut tp.clients("bob", Role::Player), &code)
        .await
        .unwrap();
    let racers = ["cy", "dee", "eli", "fay"];
    let results = join_all(racers.iter().map(|p| {
        let mut clients = tp.clients(p, Role::Player);
        let code = code.clone();
        async move { join(&mut clients, &code).await }
    }))
    .await;
    let winners = results.iter().filter(|r| r.is_ok()).count();
    assert_eq!(winners, 1, "{results:?}");
    for lost in results.iter().filter_map(|r| r.as_ref().err()) {
        assert_eq!(code_of(lost), "table_full", "{lost:?}");
    }
    let table = get(&mut ann, &code).await.unwrap();
    let seated: Vec<&str> = table.seats.iter().map(|s| s.player_id.as_str()).collect();
    assert_eq!(&seated[..2], ["ann", "bob"]);
    assert!(racers.contains(&seated[2]));
    tp.stop().await;
}

#[tokio::test]
async fn the_owner_closing_mid_game_escapes_and_pays_as_at_any_table() {
    let tp = platform(&[]).await;
    let mut ann = tp.clients("ann", Role::Player);
    let mut bob = tp.clients("bob", Role::Player);
    let code = open(&mut ann, "gomoku-free").await.code;
    join(&mut bob, &code).await.unwrap();
    ready(&mut ann, &code).await;
    let table_id = ready(&mut bob, &code).await.game.unwrap().table_id;
    place(&mut ann, &table_id, "h8").await;

    // Not the owner: refused.
    let refused = close(&mut bob, &code).await.unwrap_err();
    assert_eq!(refused.code(), Code::PermissionDenied);
    // Nor remove a player while the game goes on.
    let mid_game = remove(&mut ann, &code, "bob").await.unwrap_err();
    assert_eq!(code_of(&mid_game), "game_in_progress");

    let closed = close(&mut ann, &code).await.unwrap();
    assert_eq!(state(&closed), mm::FriendsTableState::Closed);
    let table = game_table(&mut bob, &table_id).await;
    assert_eq!(table.status(), gm::TableStatus::Closed);
    assert_eq!(table.close_reason(), gm::CloseReason::Escape);
    // Ann's escape is settled at the ledger as any escape is.
    let escaped = eventually("ann's escape settled", WITHIN, || {
        let mut ann = ann.clone();
        let table_id = table_id.clone();
        async move {
            let games = ann
                .ledger
                .list_games(lg::ListGamesRequest::default())
                .await
                .unwrap()
                .into_inner()
                .games;
            games.into_iter().find(|g| g.table_id == table_id)
        }
    })
    .await;
    let ann_result = escaped
        .results
        .iter()
        .zip(&escaped.players)
        .find(|(_, p)| p.player_id == "ann")
        .unwrap()
        .0;
    assert_eq!(ann_result.outcome(), lg::PlayerOutcome::Escape);
    assert!(escaped.friends_table);
    tp.stop().await;
}

#[tokio::test]
async fn bots_fill_a_dou_dizhu_friends_table_and_two_deals_are_played_in_a_row() {
    let tp = platform(&[("GAMEHUB_DOUDIZHU_AUTO_TURN_MS", "50")]).await;
    let mut ann = tp.clients("ann", Role::Player);
    let code = open(&mut ann, "doudizhu-free").await.code;
    ready(&mut ann, &code).await;
    // Only the owner adds bots.
    let mut bob = tp.clients("bob", Role::Player);
    join(&mut bob, &code).await.unwrap();
    let refused = add_bots(&mut bob, &code).await.unwrap_err();
    assert_eq!(refused.code(), Code::PermissionDenied);
    leave(&mut bob, &code).await.unwrap();

    let started = add_bots(&mut ann, &code).await.unwrap();
    assert_eq!(state(&started), mm::FriendsTableState::Playing);
    assert!(started.seats[1].profile.as_ref().unwrap().bot);
    assert!(started.seats[2].player_id.starts_with("bot-"));
    let table_id = started.game.unwrap().table_id;

    let outcome = drive::doudizhu::play(
        ann.doudizhu.clone(),
        &table_id,
        drive::doudizhu::Options {
            deals: 2,
            think: Duration::ZERO,
        },
        |_| {},
    )
    .await
    .unwrap();
    assert_eq!(outcome.results.len(), 2);
    // Ann left the game table after the deal (the driver leaves): the friends' table
    // learns it and, with no human left, closes.
    let closed = until_state(&ann, &code, mm::FriendsTableState::Closed).await;
    assert_eq!(closed.close_reason, mm::FriendsCloseReason::Empty as i32);
    tp.stop().await;
}

#[tokio::test]
async fn paid_friends_tables_need_the_operator_and_the_ledgers_eligibility() {
    // Off by default.
    let tp = platform(&[]).await;
    let mut ann = tp.clients("ann", Role::Player);
    let off = try_open(&mut ann, "gomoku-renju").await.unwrap_err();
    assert_eq!(code_of(&off), "paid_friends_tables_off");
    // A free room's bots only: no bots at a paid room's table (checked below).
    tp.stop().await;

    let tp = platform(&[("GAMEHUB_FRIENDS_PAID_TABLES", "true")]).await;
    let mut ann = tp.clients("ann", Role::Player);
    let mut bob = tp.clients("bob", Role::Player);
    // A player without silver is refused at the door, with the ledger's reason.
    let poor = try_open(&mut ann, "gomoku-renju").await.unwrap_err();
    assert_eq!(poor.code(), Code::FailedPrecondition);
    assert!(
        poor.message()
            .starts_with("not_eligible: insufficient_balance:"),
        "{poor:?}"
    );
    tp.grant("ann", 1_000_000).await;
    let code = open(&mut ann, "gomoku-renju").await.code;
    let refused = join(&mut bob, &code).await.unwrap_err();
    assert!(
        refused
            .message()
            .starts_with("not_eligible: insufficient_balance:"),
        "{refused:?}"
    );
    let no_bots = add_bots(&mut ann, &code).await.unwrap_err();
    assert_eq!(code_of(&no_bots), "bots_free_rooms_only");
    // The queue refuses at the door too.
    let queued = enqueue(&mut bob, "gomoku-renju").await.unwrap_err();
    assert!(
        queued
            .message()
            .starts_with("not_eligible: insufficient_balance:")
    );
    tp.grant("bob", 1_000_000).await;
    join(&mut bob, &code).await.unwrap();
    ready(&mut ann, &code).await;
    let table_id = ready(&mut bob, &code).await.game.unwrap().table_id;
    let table = game_table(&mut ann, &table_id).await;
    let stakes = table.stakes.unwrap();
    assert!(stakes.silver_per_point > 0);
    assert!(!stakes.rated, "friends' tables are never rated");
    tp.stop().await;
}

#[tokio::test]
async fn a_friends_table_its_code_and_its_seats_survive_a_restart_of_every_service() {
    let tp = platform(&[]).await;
    let mut ann = tp.clients("ann", Role::Player);
    let mut bob = tp.clients("bob", Role::Player);
    let mut cy = tp.clients("cy", Role::Player);
    // One table playing, one in its lobby.
    let code = open(&mut ann, "gomoku-free").await.code;
    join(&mut bob, &code).await.unwrap();
    ready(&mut ann, &code).await;
    let table_id = ready(&mut bob, &code).await.game.unwrap().table_id;
    place(&mut ann, &table_id, "h8").await;
    place(&mut bob, &table_id, "a1").await;
    let lobby = open(&mut cy, "doudizhu-free").await.code;

    let tp = tp.restart().await.unwrap();
    let mut ann = tp.clients("ann", Role::Player);
    let mut bob = tp.clients("bob", Role::Player);
    let mut cy = tp.clients("cy", Role::Player);

    let playing = get(&mut bob, &code).await.unwrap();
    assert_eq!(state(&playing), mm::FriendsTableState::Playing);
    assert_eq!(playing.game.unwrap().table_id, table_id);
    assert_eq!(playing.seats[0].player_id, "ann");
    assert_eq!(playing.seats[1].player_id, "bob");
    let waiting = get(&mut cy, &lobby).await.unwrap();
    assert_eq!(state(&waiting), mm::FriendsTableState::Lobby);
    assert_eq!(waiting.owner_id, "cy");

    // The game goes on where it was, to its end.
    for (b, w) in [("i8", "a2"), ("j8", "a3"), ("k8", "a4")] {
        place(&mut ann, &table_id, b).await;
        place(&mut bob, &table_id, w).await;
    }
    let over = place(&mut ann, &table_id, "l8").await;
    assert_eq!(over.status(), gm::TableStatus::BetweenGames);
    // And the lobby still seats by its code.
    join(&mut ann.clone(), &lobby).await.unwrap_err();
    let mut dee = tp.clients("dee", Role::Player);
    assert_eq!(
        join(&mut dee, &lobby).await.unwrap().seats[1].player_id,
        "dee"
    );
    tp.stop().await;
}

#[tokio::test]
async fn a_gomoku_bot_answers_is_removed_after_its_pair_and_only_public_tables_are_listed() {
    let tp = platform(&[("GAMEHUB_GOMOKU_BOT_MOVE_MS", "50")]).await;
    let mut ann = tp.clients("ann", Role::Player);
    let code = open(&mut ann, "gomoku-free").await.code;
    ready(&mut ann, &code).await;
    let started = add_bots(&mut ann, &code).await.unwrap();
    let table_id = started.game.unwrap().table_id;
    let bot = started.seats[1].player_id.clone();
    assert!(bot.starts_with("bot-"));

    // Ann (black) plays; the referee answers for the bot each time.
    place(&mut ann, &table_id, "h8").await;
    eventually("the bot answers", WITHIN, || {
        let mut ann = ann.clone();
        let table_id = table_id.clone();
        async move {
            let table = game_table(&mut ann, &table_id).await;
            let stones = table.game.map_or(0, |g| g.stones.len());
            (stones == 2).then_some(())
        }
    })
    .await;

    // Two players queue in the same room: their table is listed, the friends' one not.
    let seats = join_all(["cy", "dee"].iter().map(|p| {
        let mut clients = tp.clients(p, Role::Player);
        async move {
            drive::matchmaking::seat(&mut clients.matchmaking, "gomoku-free", "", |_| {})
                .await
                .unwrap()
        }
    }))
    .await;
    let public = seats[0].table_id.clone();
    let listed = tp
        .clients("watcher", Role::Player)
        .gomoku
        .list_tables(gm::ListTablesRequest {
            room_id: "gomoku-free".into(),
            page_size: 10,
            page_token: String::new(),
        })
        .await
        .unwrap()
        .into_inner()
        .tables;
    let ids: Vec<&str> = listed.iter().map(|t| t.table_id.as_str()).collect();
    assert_eq!(ids, [public.as_str()], "only the public table is listed");

    // Ann resigns; between the games of a pair the bot cannot be removed, after both
    // it can, and the owner is back in the lobby alone.
    ann.gomoku
        .resign(gm::ResignRequest {
            table_id: table_id.clone(),
            request_id: request_id(),
        })
        .await
        .unwrap();
    let mid_pair = remove(&mut ann, &code, &bot).await.unwrap_err();
    assert_eq!(code_of(&mid_pair), "pair_unfinished", "{mid_pair:?}");
    next_game(&mut ann, &table_id).await;
    // Game 2: the bot holds black and opens; ann resigns once it has.
    eventually("the bot opens game 2", WITHIN, || {
        let mut ann = ann.clone();
        let table_id = table_id.clone();
        async move {
            let table = game_table(&mut ann, &table_id).await;
            let game = table.game?;
            (game.number == 2 && !game.stones.is_empty()).then_some(())
        }
    })
    .await;
    ann.gomoku
        .resign(gm::ResignRequest {
            table_id: table_id.clone(),
            request_id: request_id(),
        })
        .await
        .unwrap();
    let removed = remove(&mut ann, &code, &bot).await.unwrap();
    assert_eq!(state(&removed), mm::FriendsTableState::Lobby);
    assert!(removed.seats[1].player_id.is_empty());
    assert_eq!(
        game_table(&mut ann, &table_id).await.status(),
        gm::TableStatus::Closed
    );
    tp.stop().await;
}

#[tokio::test]
async fn only_matchmaking_leaves_for_a_player_only_at_friends_tables_where_alone_bots_sit() {
    let tp = platform(&[]).await;
    // A table of strangers (not a friends' table).
    let table_id = tp.open_free_gomoku_table("ann", "bob").await;
    let leave_for = |subject: &'static str| {
        let mut gomoku = tp.clients(subject, Role::Service).gomoku;
        let table_id = table_id.clone();
        async move {
            gomoku
                .leave(gm::LeaveRequest {
                    table_id,
                    request_id: request_id(),
                    player_id: "ann".into(),
                })
                .await
                .unwrap_err()
        }
    };
    for subject in ["doudizhu-dealer", "matchmaking"] {
        let refused = leave_for(subject).await;
        assert_eq!(
            refused.code(),
            Code::PermissionDenied,
            "{subject}: {refused:?}"
        );
    }
    // Ann still sits there.
    let table = game_table(&mut tp.clients("ann", Role::Player), &table_id).await;
    assert!(table.players.iter().all(|p| !p.left));

    // Nor may a bot be seated at a table that is not a free friends' table.
    let refused = tp
        .clients("matchmaking", Role::Service)
        .gomoku
        .open_table(gm::OpenTableRequest {
            request_id: request_id(),
            stakes: table.stakes.clone(),
            rule_set: gm::RuleSet::Freestyle as i32,
            time_control: table.time_control,
            player_ids: vec!["cy".into(), "bot-x-1".into()],
            first_black_seat: 0,
            designated_opening: String::new(),
            paired_games: false,
            profiles: Vec::new(),
            bot_seats: vec![1],
            friends_table: false,
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert!(refused.message().starts_with("bot_seats: "), "{refused:?}");
    tp.stop().await;
}
