//! The real `gamehub-ledger` binary killed with SIGKILL in the middle of a load and
//! restarted; clients replay every settlement they have no answer for, as the game
//! services' settlers do. Afterwards each game is settled once, every answer a client
//! got is the stored one, and every invariant holds.

use std::collections::HashMap;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use gamehub_ledger::LedgerConfig;
use gamehub_ledger::domain::caps::Caps;
use gamehub_platform::auth::Role;
use gamehub_proto::ledger::{GrantSilverRequest, SettleGameRequest, SettleGameResponse};
use gamehub_testkit::clock::eventually;
use gamehub_testkit::postgres::ScratchDatabase;
use gamehub_testkit::settlements::random_game;
use rand::SeedableRng;
use rand::rngs::StdRng;
use sqlx::PgPool;
use tokio::sync::Mutex;
use tonic::Code;

use crate::support::*;

const GAMES: usize = 2_000;
const CLIENTS: usize = 32;

/// The ledger process; killed when dropped, so a failing test leaves none behind.
struct Ledger {
    child: Option<Child>,
    database_url: String,
    port: u16,
}

impl Ledger {
    fn spawn(database_url: &str, port: u16) -> Self {
        let mut ledger = Self {
            child: None,
            database_url: database_url.to_owned(),
            port,
        };
        ledger.start();
        ledger
    }

    fn start(&mut self) {
        let child = Command::new(env!("CARGO_BIN_EXE_gamehub-ledger"))
            .arg("serve")
            .env("DATABASE_URL", &self.database_url)
            .env("GAMEHUB_LEDGER_ADDR", format!("127.0.0.1:{}", self.port))
            .env("GAMEHUB_LEDGER_DB_POOL_SIZE", "8")
            .env("RUST_LOG", "error")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the ledger binary starts");
        self.child = Some(child);
    }

    /// SIGKILL: no graceful anything.
    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    async fn wait_serving(&self) {
        let url = self.url();
        eventually(
            "the ledger becomes healthy",
            Duration::from_secs(60),
            || async {
                matches!(
                    gamehub_platform::client::check_health(&url, "").await,
                    Ok(true)
                )
                .then_some(())
            },
        )
        .await;
    }
}

impl Drop for Ledger {
    fn drop(&mut self) {
        self.kill();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// Sends until the ledger acknowledges, as a settler does: transport failures and
/// UNAVAILABLE are retried; a refusal is a test failure.
async fn settle_until_acknowledged(
    client: &mut Client,
    game: &SettleGameRequest,
) -> SettleGameResponse {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        match client.settle_game(game.clone()).await {
            Ok(response) => return response.into_inner(),
            Err(status) => {
                assert!(
                    !matches!(
                        status.code(),
                        Code::InvalidArgument | Code::AlreadyExists | Code::PermissionDenied
                    ),
                    "{}: refused: {status:?}",
                    game.game_id
                );
                assert!(
                    Instant::now() < deadline,
                    "{}: never acknowledged",
                    game.game_id
                );
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn settlements_survive_sigkill_and_restart() {
    // The database does not exist yet: the binary creates it and migrates it.
    let database = ScratchDatabase::fresh(TEST_DB_PREFIX).await;
    let database_url = database.url.clone();
    let mut ledger = Ledger::spawn(&database_url, free_port());
    ledger.wait_serving().await;
    let url = ledger.url();
    let keys = LedgerConfig::for_tests().common.keys;

    let players: Arc<Vec<String>> = Arc::new((0..50).map(|i| format!("crash-{i}")).collect());
    let mut operator = client(&url, &keys, "test-operator", Role::Operator);
    for (i, p) in players.iter().enumerate() {
        operator
            .grant_silver(GrantSilverRequest {
                request_id: format!("grant-{p}"),
                player_id: p.clone(),
                amount_silver: [1_000, 50_000, 500_000][i % 3],
                reason: "crash test".into(),
            })
            .await
            .unwrap();
    }

    let acknowledged = Arc::new(AtomicUsize::new(0));
    let answers: Arc<Mutex<HashMap<String, SettleGameResponse>>> = Arc::default();
    let next = Arc::new(AtomicUsize::new(0));
    let seed: u64 = rand::random();
    eprintln!("crash seed {seed}");
    let mut tasks = Vec::new();
    for _ in 0..CLIENTS {
        // Each game is settled by its own game's service (the ledger refuses others).
        let mut settlers: std::collections::HashMap<i32, _> = gamehub_terms::games::GAMES
            .iter()
            .map(|g| {
                let settler = client(&url, &keys, g.service.identity, Role::Service);
                (g.game_type as i32, settler)
            })
            .collect();
        let (players, answers, next, acknowledged) = (
            players.clone(),
            answers.clone(),
            next.clone(),
            acknowledged.clone(),
        );
        tasks.push(tokio::spawn(async move {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= GAMES {
                    break;
                }
                let mut rng = StdRng::seed_from_u64(seed.wrapping_add(i as u64));
                let game = random_game(&mut rng, format!("crash-game-{i}"), &players);
                let client = settlers.get_mut(&game.game_type).unwrap();
                let answer = settle_until_acknowledged(client, &game).await;
                acknowledged.fetch_add(1, Ordering::Relaxed);
                answers.lock().await.insert(game.game_id.clone(), answer);
            }
        }));
    }

    // Kill it twice mid-load, each time restarting it after a pause.
    let mut kills = 0;
    for fraction in [0.3, 0.65] {
        let target = (GAMES as f64 * fraction) as usize;
        while acknowledged.load(Ordering::Relaxed) < target {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        ledger.kill();
        kills += 1;
        tokio::time::sleep(Duration::from_millis(300)).await;
        ledger.start();
        ledger.wait_serving().await;
    }
    for task in tasks {
        task.await.unwrap();
    }
    assert_eq!(kills, 2);

    let pool = PgPool::connect(&database_url).await.unwrap();
    let answers = answers.lock().await;
    assert_eq!(answers.len(), GAMES);
    let stored = stored_responses(&pool).await;
    assert_eq!(stored.len(), GAMES, "every game settled exactly once");
    for (game_id, answer) in answers.iter() {
        let kept = &stored[game_id];
        assert_eq!(
            (&answer.players, answer.house_silver),
            (&kept.players, kept.house_silver),
            "{game_id}: the answer a client got is the one stored"
        );
    }
    let replays = answers.values().filter(|a| a.replayed).count();
    eprintln!("{replays} settlements were acknowledged as replays after a crash");
    check_invariants(&pool, &Caps::default()).await;
    pool.close().await;
    ledger.kill();
    database.drop().await;
}
