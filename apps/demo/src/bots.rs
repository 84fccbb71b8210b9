//! `gamehub bots --count N --room R`: keeps N bots playing in a room through the public
//! API, so a lone player always finds a game. Each bot queues, plays one game or deal,
//! leaves, and queues again.
//!
//! Bots are players: their tokens are minted with the platform's key (the development
//! key unless `GAMEHUB_JWT_SECRET` says otherwise). In a paid room an operator token
//! (also minted) tops up a bot whose silver runs below the room's minimum.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use gamehub_drive as drive;
use gamehub_drive::api::{Clients, Endpoints, request_id};
use gamehub_platform::auth::Role;
use gamehub_platform::client::TokenSource;
use gamehub_platform::config::CommonConfig;
use gamehub_platform::server::{Shutdown, ShutdownListener, termination_signal};
use gamehub_proto::common::GameType;
use gamehub_proto::ledger as lg;
use gamehub_proto::matchmaking as mm;

/// How the bots run.
#[derive(Debug, Clone)]
pub struct BotOptions {
    /// The room.
    pub room: String,
    /// How many bots.
    pub count: usize,
    /// A pause before each action.
    pub think: Duration,
    /// Bot names start with this.
    pub name_prefix: String,
}

/// What the bots did, counted while they run.
#[derive(Debug, Default)]
pub struct BotStats {
    /// Games or deals finished.
    pub games: AtomicU64,
    /// Failures (a bot waits a moment and queues again).
    pub errors: AtomicU64,
}

/// `gamehub bots`: runs the bots against the configured platform until SIGTERM or
/// Ctrl-C, then says how many games they finished.
pub async fn until_terminated(config: &CommonConfig, options: BotOptions) -> anyhow::Result<()> {
    let _telemetry = gamehub_platform::telemetry::init("gamehub-bots", config)?;
    let shutdown = Shutdown::new();
    let stats = Arc::new(BotStats::default());
    let (count, room) = (options.count, options.room.clone());
    let task = tokio::spawn(run(
        Endpoints::from_config(config),
        config.clone(),
        options,
        stats.clone(),
        shutdown.listener(),
    ));
    println!("{count} bots playing in {room}; Ctrl-C to stop");
    termination_signal().await;
    shutdown.trigger();
    let _ = task.await;
    println!(
        "bots finished {} games ({} errors)",
        stats.games.load(Ordering::Relaxed),
        stats.errors.load(Ordering::Relaxed)
    );
    Ok(())
}

/// Runs the bots until `shutdown`.
pub async fn run(
    endpoints: Endpoints,
    config: CommonConfig,
    options: BotOptions,
    stats: Arc<BotStats>,
    shutdown: ShutdownListener,
) -> anyhow::Result<()> {
    let ttl = Duration::from_secs(7 * 24 * 3600);
    let operator = TokenSource::Static(gamehub_drive::token::mint(
        &config,
        "bots-operator",
        Role::Operator,
        ttl,
    )?);
    let mut admin = Clients::new(&endpoints, operator)?;
    let room = admin
        .matchmaking
        .list_rooms(mm::ListRoomsRequest {})
        .await?
        .into_inner()
        .rooms
        .into_iter()
        .find(|r| r.room_id == options.room)
        .ok_or_else(|| anyhow::anyhow!("no room {}", options.room))?;
    let mut tasks = Vec::new();
    for i in 0..options.count {
        let name = format!("{}{}-{i}", options.name_prefix, options.room);
        let token = TokenSource::Static(gamehub_drive::token::mint(
            &config,
            &name,
            Role::Player,
            ttl,
        )?);
        let clients = Clients::new(&endpoints, token)?;
        let admin = admin.clone();
        let room = room.clone();
        let options = options.clone();
        let stats = stats.clone();
        let mut shutdown = shutdown.clone();
        tasks.push(tokio::spawn(async move {
            // The table this bot sits at, kept across a failed round so it goes back to
            // that table (a seated player cannot queue again) instead of queueing.
            let mut current: Option<String> = None;
            loop {
                let round = one_game(
                    &clients,
                    admin.clone(),
                    &room,
                    &name,
                    &options,
                    &mut current,
                );
                tokio::select! {
                    result = round => match result {
                        Ok(()) => { stats.games.fetch_add(1, Ordering::Relaxed); }
                        Err(e) => {
                            stats.errors.fetch_add(1, Ordering::Relaxed);
                            tracing::warn!(bot = %name, error = %e, "bot round failed; retrying");
                            tokio::time::sleep(Duration::from_secs(1)).await;
                        }
                    },
                    () = shutdown.wait() => return,
                }
            }
        }));
    }
    for task in tasks {
        let _ = task.await;
    }
    Ok(())
}

/// Tops up silver when needed, queues (unless already seated at `current`), plays one
/// game or deal, leaves.
async fn one_game(
    clients: &Clients,
    mut admin: Clients,
    room: &mm::Room,
    name: &str,
    options: &BotOptions,
    current: &mut Option<String>,
) -> anyhow::Result<()> {
    let stakes = room.stakes.clone().unwrap_or_default();
    if stakes.min_balance_silver > 0 && current.is_none() {
        let balance = admin
            .ledger
            .get_account(lg::GetAccountRequest {
                player_id: name.to_owned(),
            })
            .await?
            .into_inner()
            .account
            .map(|a| a.balance_silver)
            .unwrap_or(0);
        if balance < stakes.min_balance_silver {
            admin
                .ledger
                .grant_silver(lg::GrantSilverRequest {
                    request_id: request_id(),
                    player_id: name.to_owned(),
                    amount_silver: stakes.min_balance_silver * 4,
                    reason: "bots: top-up".into(),
                })
                .await?;
        }
    }
    let table_id = match current.clone() {
        Some(table_id) => table_id,
        None => {
            let mut matchmaking = clients.matchmaking.clone();
            let seat =
                drive::matchmaking::seat(&mut matchmaking, &room.room_id, "", |_| {}).await?;
            *current = Some(seat.table_id.clone());
            seat.table_id
        }
    };
    let played = match room.game_type() {
        GameType::Gomoku => drive::gomoku::play(
            clients.gomoku.clone(),
            &table_id,
            drive::gomoku::Options {
                // A house bot never escapes: where games come in pairs it plays both.
                games: if room.paired_games { 2 } else { 1 },
                think: options.think,
                seed: rand::random(),
            },
            |_| {},
        )
        .await
        .map(|_| ()),
        GameType::Doudizhu => drive::doudizhu::play(
            clients.doudizhu.clone(),
            &table_id,
            drive::doudizhu::Options {
                deals: 1,
                think: options.think,
            },
            |_| {},
        )
        .await
        .map(|_| ()),
        GameType::Unspecified => anyhow::bail!("room {} has no game", room.room_id),
    };
    match &played {
        Ok(()) => *current = None,
        Err(e) => {
            // A table that is gone (closed, expired) is not worth going back to.
            if let Some(status) = e.downcast_ref::<tonic::Status>()
                && matches!(
                    status.code(),
                    tonic::Code::NotFound | tonic::Code::PermissionDenied
                )
            {
                *current = None;
            }
        }
    }
    played
}
