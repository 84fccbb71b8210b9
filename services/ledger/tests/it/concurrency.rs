//! 32 clients settle thousands of random games over a small pool of players (so rows
//! are contended and caps and balances bind), with duplicate retries, concurrent
//! duplicates, conflicting payloads and grants on the side; then every invariant holds.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use gamehub_proto::ledger::{GrantSilverRequest, SettleGameRequest, SettleGameResponse};
use gamehub_testkit::settlements::random_game;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tokio::sync::Mutex;
use tonic::Code;

use crate::support::*;

/// Games settled by the test; sized so the crate's tests stay within a few minutes in
/// a debug build on two cores.
const GAMES: usize = 3_000;
const CLIENTS: usize = 32;
const PLAYERS: usize = 60;

/// The random games the load generator and these tests settle are all ones the ledger
/// accepts, so a refusal under load is the ledger's fault.
#[test]
fn random_games_pass_the_ledger_checks() {
    let players: Vec<String> = (0..5).map(|i| format!("p{i}")).collect();
    let mut rng = StdRng::seed_from_u64(7);
    for i in 0..2_000 {
        let game = random_game(&mut rng, format!("g{i}"), &players);
        gamehub_ledger::api::parse::settle_request(&game)
            .unwrap_or_else(|e| panic!("game {game:?} refused: {e}"));
    }
}

fn players() -> Vec<String> {
    (0..PLAYERS).map(|i| format!("player-{i}")).collect()
}

/// The players' first balances: some broke, some poor, some rich.
fn opening_balance(i: usize) -> i64 {
    [0, 1_000, 20_000, 200_000, 1_000_000][i % 5]
}

fn same_answer(a: &SettleGameResponse, b: &SettleGameResponse) -> bool {
    a.game_id == b.game_id && a.players == b.players && a.house_silver == b.house_silver
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn thirty_two_clients_settle_thousands_of_games_and_every_invariant_holds() {
    let app = spawn_app_with(|c| c.db_pool_size = 16).await;
    let players = Arc::new(players());
    for (i, p) in players.iter().enumerate() {
        if opening_balance(i) > 0 {
            app.grant(p, opening_balance(i)).await;
        }
    }
    let answers: Arc<Mutex<HashMap<String, SettleGameResponse>>> = Arc::default();
    let next = Arc::new(AtomicUsize::new(0));
    let seed: u64 = rand::random();
    eprintln!("concurrency seed {seed}");

    let mut tasks = Vec::new();
    for _ in 0..CLIENTS {
        // Each game is settled by its own game's service (the ledger refuses others).
        let mut settlers: std::collections::HashMap<i32, _> = gamehub_terms::games::GAMES
            .iter()
            .map(|g| {
                let game_type = g.game_type as i32;
                (game_type, (app.settler(game_type), app.settler(game_type)))
            })
            .collect();
        let (players, answers, next) = (players.clone(), answers.clone(), next.clone());
        tasks.push(tokio::spawn(async move {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= GAMES {
                    break;
                }
                let mut rng = StdRng::seed_from_u64(seed.wrapping_add(i as u64));
                let game = random_game(&mut rng, format!("game-{i}"), &players);
                let (client, twin) = settlers.get_mut(&game.game_type).unwrap();
                let first = if rng.random_bool(0.05) {
                    // The same game sent twice at once: exactly one applies it.
                    let (a, b) = tokio::join!(
                        client.settle_game(game.clone()),
                        twin.settle_game(game.clone())
                    );
                    let (a, b) = (a.unwrap().into_inner(), b.unwrap().into_inner());
                    assert!(a.replayed != b.replayed, "one applies, one replays");
                    assert!(same_answer(&a, &b));
                    a
                } else {
                    client.settle_game(game.clone()).await.unwrap().into_inner()
                };
                if rng.random_bool(0.15) {
                    // A retry of an acknowledged game: the stored answer, nothing applied.
                    let again = client.settle_game(game.clone()).await.unwrap().into_inner();
                    assert!(again.replayed);
                    assert!(same_answer(&first, &again));
                }
                if rng.random_bool(0.03) {
                    // The same id with another payload is refused.
                    let mut other: SettleGameRequest = game.clone();
                    other.reason = "tampered".into();
                    let err = client.settle_game(other).await.unwrap_err();
                    assert_eq!(err.code(), Code::AlreadyExists);
                }
                answers.lock().await.insert(game.game_id.clone(), first);
            }
        }));
    }
    // Grants arrive meanwhile, each retried once.
    let mut operator = app.operator();
    let granter = {
        let players = players.clone();
        tokio::spawn(async move {
            let mut rng = StdRng::seed_from_u64(seed ^ 0x5eed);
            for i in 0..100 {
                let request = GrantSilverRequest {
                    request_id: format!("top-up-{i}"),
                    player_id: players[rng.random_range(0..players.len())].clone(),
                    amount_silver: rng.random_range(1..=50_000),
                    reason: "top-up".into(),
                };
                let first = operator
                    .grant_silver(request.clone())
                    .await
                    .unwrap()
                    .into_inner();
                let again = operator.grant_silver(request).await.unwrap().into_inner();
                assert!(again.replayed && again.transfer_id == first.transfer_id);
            }
        })
    };
    for task in tasks {
        task.await.unwrap();
    }
    granter.await.unwrap();

    // One settlement per game id, and the stored answers are the ones the clients got.
    let answers = answers.lock().await;
    assert_eq!(answers.len(), GAMES);
    let stored = stored_responses(&app.db.pool).await;
    assert_eq!(stored.len(), GAMES, "one settlement per game id");
    for (game_id, answer) in answers.iter() {
        assert!(same_answer(answer, &stored[game_id]), "{game_id}");
    }
    // The caps bound something: the test exercised the clamping.
    let clamped: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM game_players WHERE silver_delta <> silver_requested",
    )
    .fetch_one(&app.db.pool)
    .await
    .unwrap();
    assert!(clamped > 100, "only {clamped} clamped seats");
    check_invariants(&app.db.pool, &app.caps).await;
    app.finish().await;
}
