//! The services matchmaking calls, behind two small traits so the matcher can run
//! against in-process fakes (the matcher benchmark, `gamehub-loadgen matcher`; tests):
//!
//! - [`Eligibility`]: the ledger's `CheckEligibility` (balance, daily caps) and the
//!   player's Gomoku rating (`GetAccount`), for rated rooms;
//! - [`TableOpener`]: `OpenTable` at the room's game service, and `GetTable` to learn
//!   where a player sits at a table, if it still does.
//!
//! The gRPC implementations ([`LedgerPeer`], [`GamePeers`]) call with a service token;
//! [`GamePeers`] reaches every game of the registry through its client
//! (`gamehub_game_clients`), so nothing here names a game.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use gamehub_game_clients::{GameClient, NewTable};
use gamehub_platform::client::{ServiceChannel, TokenSource, service_channel};
use gamehub_platform::config::CommonConfig;
use gamehub_proto::ledger;
use gamehub_terms::games::{self, Game};
use tonic::Code;

use crate::rooms::Room;

/// A boxed future, so the traits can be used as `dyn`.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

pub use gamehub_game_clients::{TableInfo, TableSeat};
pub use gamehub_platform::eligibility::Verdict;
use gamehub_proto::common::PlayerProfile;

/// A failed call to another service.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PeerError {
    /// The service is down, slow or failed internally: the outcome is unknown; retry.
    #[error("{0}")]
    Unavailable(String),
    /// The service answered no, for good (a bad request, a conflict).
    #[error("{0}")]
    Refused(String),
}

impl PeerError {
    fn from_status(service: &str, status: &tonic::Status) -> Self {
        let text = format!("{service}: {:?}: {}", status.code(), status.message());
        match status.code() {
            Code::InvalidArgument
            | Code::FailedPrecondition
            | Code::AlreadyExists
            | Code::PermissionDenied
            | Code::Unauthenticated
            | Code::NotFound
            | Code::OutOfRange
            | Code::Unimplemented => PeerError::Refused(text),
            _ => PeerError::Unavailable(text),
        }
    }
}

/// Asks whether players may sit down, and their ratings.
pub trait Eligibility: Send + Sync + 'static {
    /// Whether `player_id` may sit down in `room` now.
    fn check<'a>(
        &'a self,
        player_id: &'a str,
        room: &'a Room,
    ) -> BoxFuture<'a, Result<Verdict, PeerError>>;

    /// The player's Gomoku rating (段位 rating, [`gamehub_terms::rating::NEW_PLAYER_RATING`] for a new player).
    fn rating<'a>(&'a self, player_id: &'a str) -> BoxFuture<'a, Result<i64, PeerError>>;

    /// How the players are shown in `game` (names, titles, ratings), in the order of
    /// `player_ids` (at most [`MAX_PROFILES`] per call). Without a ledger that keeps
    /// names (the in-process fakes) everyone is shown by id.
    fn profiles<'a>(
        &'a self,
        player_ids: &'a [String],
        game: &'static Game,
    ) -> BoxFuture<'a, Result<Vec<PlayerProfile>, PeerError>> {
        let _ = game;
        Box::pin(async move { Ok(vec![PlayerProfile::default(); player_ids.len()]) })
    }
}

/// The most players one [`Eligibility::profiles`] call asks about (the ledger's bound).
pub const MAX_PROFILES: usize = 100;

/// How a table's players are shown and played, beyond who they are.
#[derive(Debug, Clone, Copy, Default)]
pub struct Lineup<'a> {
    /// How each player is shown, seat 0 first (empty: by id).
    pub profiles: &'a [PlayerProfile],
    /// The seats the platform's bot plays.
    pub bot_seats: &'a [u32],
    /// A friends' table: never listed, its records say so, never rated.
    pub friends_table: bool,
}

/// A table a game service opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenedTable {
    /// The table's id at the game service.
    pub table_id: String,
}

/// Opens tables at the game services.
pub trait TableOpener: Send + Sync + 'static {
    /// Opens a table of `room` for `players` (seat 0 first), idempotently on
    /// `match_id`: a retry with the same id answers with the same table.
    fn open<'a>(
        &'a self,
        room: &'a Room,
        match_id: &'a str,
        players: &'a [String],
        lineup: Lineup<'a>,
    ) -> BoxFuture<'a, Result<OpenedTable, PeerError>>;

    /// The table `table_id` of `game` as it is now; None when the game service does not
    /// know it (never opened, or long gone).
    fn table<'a>(
        &'a self,
        game: &'static Game,
        table_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TableInfo>, PeerError>> {
        let _ = (game, table_id);
        Box::pin(async { Err(PeerError::Refused("tables are not readable here".into())) })
    }

    /// Makes `player_id` leave `table_id` (an escape during a game), idempotently on
    /// `request_id`.
    fn leave_for<'a>(
        &'a self,
        game: &'static Game,
        table_id: &'a str,
        player_id: &'a str,
        request_id: &'a str,
    ) -> BoxFuture<'a, Result<(), PeerError>> {
        let _ = (game, table_id, player_id, request_id);
        Box::pin(async {
            Err(PeerError::Refused(
                "nobody can be made to leave here".into(),
            ))
        })
    }

    /// Where `player_id` sits at `table_id` if that table is open and the player has not
    /// left it; None when the table closed, is unknown, or the player is not seated there.
    fn seat_at<'a>(
        &'a self,
        game: &'static Game,
        table_id: &'a str,
        player_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TableSeat>, PeerError>>;
}

/// The subject of matchmaking's service tokens.
pub const SERVICE_SUBJECT: &str = gamehub_platform::auth::MATCHMAKING_SUBJECT;

/// The ledger over gRPC.
#[derive(Debug, Clone)]
pub struct LedgerPeer {
    client: ledger::ledger_service_client::LedgerServiceClient<ServiceChannel>,
}

impl LedgerPeer {
    /// A client of the ledger at `GAMEHUB_LEDGER_URL` with a service token.
    pub fn new(config: &CommonConfig, timeout: Duration) -> anyhow::Result<Self> {
        let token = TokenSource::service(config.keys.clone(), SERVICE_SUBJECT);
        Ok(Self {
            client: ledger::ledger_service_client::LedgerServiceClient::new(service_channel(
                &config.ledger_url,
                token,
                timeout,
            )?),
        })
    }
}

impl Eligibility for LedgerPeer {
    fn check<'a>(
        &'a self,
        player_id: &'a str,
        room: &'a Room,
    ) -> BoxFuture<'a, Result<Verdict, PeerError>> {
        Box::pin(async move {
            gamehub_platform::eligibility::check(&self.client, player_id, room.stakes())
                .await
                .map_err(|s| PeerError::from_status("ledger", &s))
        })
    }

    fn profiles<'a>(
        &'a self,
        player_ids: &'a [String],
        game: &'static Game,
    ) -> BoxFuture<'a, Result<Vec<PlayerProfile>, PeerError>> {
        Box::pin(async move {
            let mut client = self.client.clone();
            let answer = client
                .get_profiles(ledger::GetProfilesRequest {
                    player_ids: player_ids.to_vec(),
                    game_type: game.game_type as i32,
                })
                .await
                .map_err(|s| {
                    gamehub_platform::metrics::dependency_error("ledger");
                    PeerError::from_status("ledger", &s)
                })?
                .into_inner();
            // In the order asked; the ledger answers each id once.
            let by_id: HashMap<String, PlayerProfile> = answer
                .profiles
                .into_iter()
                .map(|p| (p.player_id, p.profile.unwrap_or_default()))
                .collect();
            Ok(player_ids
                .iter()
                .map(|id| by_id.get(id).cloned().unwrap_or_default())
                .collect())
        })
    }

    fn rating<'a>(&'a self, player_id: &'a str) -> BoxFuture<'a, Result<i64, PeerError>> {
        Box::pin(async move {
            let mut client = self.client.clone();
            let account = client
                .get_account(ledger::GetAccountRequest {
                    player_id: player_id.to_owned(),
                })
                .await
                .map_err(|s| {
                    gamehub_platform::metrics::dependency_error("ledger");
                    PeerError::from_status("ledger", &s)
                })?
                .into_inner()
                .account;
            Ok(account
                .and_then(|a| a.gomoku_rating)
                .map_or(gamehub_terms::rating::NEW_PLAYER_RATING, |r| r.rating))
        })
    }
}

/// Every game's service over gRPC, each through its client.
#[derive(Debug)]
pub struct GamePeers {
    /// By registry key: one per game.
    clients: HashMap<&'static str, Box<dyn GameClient>>,
}

impl GamePeers {
    /// Clients of every game's service (`GAMEHUB_<GAME>_URL`) with a service token.
    pub fn new(config: &CommonConfig, timeout: Duration) -> anyhow::Result<Self> {
        let token = TokenSource::service(config.keys.clone(), SERVICE_SUBJECT);
        let mut clients = HashMap::new();
        for game in games::GAMES {
            let channel = service_channel(config.game_urls.get(game), token.clone(), timeout)?;
            let client = gamehub_game_clients::connect(game, channel)
                .ok_or_else(|| anyhow::anyhow!("no client for the game {}", game.key))?;
            clients.insert(game.key, client);
        }
        Ok(Self { clients })
    }

    fn client(&self, game: &Game) -> Result<&dyn GameClient, PeerError> {
        // Every game of the registry has its client (made in `new`).
        self.clients
            .get(game.key)
            .map(Box::as_ref)
            .ok_or_else(|| PeerError::Refused(format!("no client for the game {}", game.key)))
    }
}

impl TableOpener for GamePeers {
    fn open<'a>(
        &'a self,
        room: &'a Room,
        match_id: &'a str,
        players: &'a [String],
        lineup: Lineup<'a>,
    ) -> BoxFuture<'a, Result<OpenedTable, PeerError>> {
        Box::pin(async move {
            let game = room.game;
            let mut stakes = room.stakes();
            if lineup.friends_table {
                // Ratings move only between strangers the matcher paired
                // (docs/rules.md#friends-tables).
                stakes.rated = false;
            }
            let table = NewTable {
                request_id: match_id,
                stakes,
                rule_set: room.rules,
                time_control: room.time_control,
                players,
                designated_opening: room.designated_opening_name(),
                paired_games: room.paired_games,
                profiles: lineup.profiles,
                bot_seats: lineup.bot_seats,
                friends_table: lineup.friends_table,
            };
            let table_id = self.client(game)?.open_table(table).await.map_err(|s| {
                gamehub_platform::metrics::dependency_error(game.key);
                PeerError::from_status(game.service.name, &s)
            })?;
            Ok(OpenedTable { table_id })
        })
    }

    fn table<'a>(
        &'a self,
        game: &'static Game,
        table_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TableInfo>, PeerError>> {
        Box::pin(async move {
            match self.client(game)?.table(table_id).await {
                Ok(info) => Ok(Some(info)),
                Err(s) if s.code() == Code::NotFound => Ok(None),
                Err(s) => {
                    gamehub_platform::metrics::dependency_error(game.key);
                    Err(PeerError::from_status(game.key, &s))
                }
            }
        })
    }

    fn leave_for<'a>(
        &'a self,
        game: &'static Game,
        table_id: &'a str,
        player_id: &'a str,
        request_id: &'a str,
    ) -> BoxFuture<'a, Result<(), PeerError>> {
        Box::pin(async move {
            self.client(game)?
                .leave_for(table_id, player_id, request_id)
                .await
                .map_err(|s| {
                    if !matches!(s.code(), Code::FailedPrecondition | Code::NotFound) {
                        gamehub_platform::metrics::dependency_error(game.key);
                    }
                    PeerError::from_status(game.key, &s)
                })
        })
    }

    fn seat_at<'a>(
        &'a self,
        game: &'static Game,
        table_id: &'a str,
        player_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TableSeat>, PeerError>> {
        Box::pin(async move {
            match self.client(game)?.seat_at(table_id, player_id).await {
                Ok(seat) => Ok(seat),
                // NOT_FOUND: the table is gone (or never was): nobody sits there.
                Err(s) if s.code() == Code::NotFound => Ok(None),
                Err(s) => {
                    gamehub_platform::metrics::dependency_error(game.key);
                    Err(PeerError::Unavailable(format!(
                        "{}: {:?}: {}",
                        game.key,
                        s.code(),
                        s.message()
                    )))
                }
            }
        })
    }
}
