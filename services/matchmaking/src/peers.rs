//! The services matchmaking calls, behind two small traits so the matcher can run
//! against in-process fakes (the matcher benchmark, `gamehub-loadgen matcher`; tests):
//!
//! - [`Eligibility`]: the ledger's `CheckEligibility` (balance, daily caps) and the
//!   player's Gomoku rating (`GetAccount`), for rated rooms;
//! - [`TableOpener`]: `OpenTable` at the Gomoku referee or the Dou Dizhu dealer, and
//!   `GetTable` to learn where a player sits at a table, if it still does.
//!
//! The gRPC implementations ([`LedgerPeer`], [`GamePeers`]) call with a service token.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use gamehub_platform::auth::Keys;
use gamehub_platform::client::{ServiceChannel, TokenSource, service_channel};
use gamehub_platform::config::CommonConfig;
use gamehub_proto::doudizhu as ddz;
use gamehub_proto::gomoku as gmk;
use gamehub_proto::ledger;
use tonic::Code;

use crate::rooms::{Game, Room, Rules, TimeControl};

/// A boxed future, so the traits can be used as `dyn`.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

pub use gamehub_platform::eligibility::Verdict;

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
    ) -> BoxFuture<'a, Result<OpenedTable, PeerError>>;

    /// Where `player_id` sits at `table_id` if that table is open and the player has not
    /// left it; None when the table closed, is unknown, or the player is not seated there.
    fn seat_at<'a>(
        &'a self,
        game: Game,
        table_id: &'a str,
        player_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TableSeat>, PeerError>>;
}

/// A player's seat at an open table, as the game service reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableSeat {
    /// The player's seat, from 0.
    pub seat: u32,
    /// The room the table was opened for.
    pub room_id: String,
    /// Whether a game (a deal) is going on, rather than the table waiting between games.
    pub in_progress: bool,
    /// Every player of the table, in seat order.
    pub players: Vec<String>,
}

/// The subject of matchmaking's service tokens.
pub const SERVICE_SUBJECT: &str = "matchmaking";

/// The ledger over gRPC.
#[derive(Debug, Clone)]
pub struct LedgerPeer {
    client: ledger::ledger_service_client::LedgerServiceClient<ServiceChannel>,
}

impl LedgerPeer {
    /// A client of the ledger at `GAMEHUB_LEDGER_URL` with a service token.
    pub fn new(config: &CommonConfig, timeout: Duration) -> anyhow::Result<Self> {
        let token = TokenSource::service(Keys::new(&config.jwt_secret), SERVICE_SUBJECT);
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

/// The Gomoku referee and the Dou Dizhu dealer over gRPC.
#[derive(Debug, Clone)]
pub struct GamePeers {
    gomoku: gmk::gomoku_service_client::GomokuServiceClient<ServiceChannel>,
    doudizhu: ddz::doudizhu_service_client::DoudizhuServiceClient<ServiceChannel>,
}

impl GamePeers {
    /// Clients of `GAMEHUB_GOMOKU_URL` and `GAMEHUB_DOUDIZHU_URL` with a service token.
    pub fn new(config: &CommonConfig, timeout: Duration) -> anyhow::Result<Self> {
        let token = TokenSource::service(Keys::new(&config.jwt_secret), SERVICE_SUBJECT);
        Ok(Self {
            gomoku: gmk::gomoku_service_client::GomokuServiceClient::new(service_channel(
                &config.gomoku_url,
                token.clone(),
                timeout,
            )?),
            doudizhu: ddz::doudizhu_service_client::DoudizhuServiceClient::new(service_channel(
                &config.doudizhu_url,
                token,
                timeout,
            )?),
        })
    }
}

/// The API code of a room's Gomoku rule set (Unspecified, which the referee refuses,
/// for a room of another game: a rooms file cannot make one).
fn gomoku_rule_set(rules: Rules) -> gmk::RuleSet {
    match rules {
        Rules::Gomoku(rule_set) => gamehub_terms::rule_sets::gomoku_to_proto(rule_set),
        Rules::Doudizhu(_) => gmk::RuleSet::Unspecified,
    }
}

fn to_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

impl TableOpener for GamePeers {
    fn open<'a>(
        &'a self,
        room: &'a Room,
        match_id: &'a str,
        players: &'a [String],
    ) -> BoxFuture<'a, Result<OpenedTable, PeerError>> {
        Box::pin(async move {
            let table_id = match room.time_control {
                TimeControl::Gomoku {
                    move_time_ms,
                    total_time_ms,
                } => {
                    let mut client = self.gomoku.clone();
                    client
                        .open_table(gmk::OpenTableRequest {
                            request_id: match_id.to_owned(),
                            stakes: Some(room.stakes()),
                            rule_set: gomoku_rule_set(room.rules) as i32,
                            time_control: Some(gmk::TimeControl {
                                per_move_ms: to_i64(move_time_ms),
                                total_ms: to_i64(total_time_ms),
                            }),
                            player_ids: players.to_vec(),
                            // Seats are already in random order: seat 0 starts with black.
                            first_black_seat: 0,
                            designated_opening: room.designated_opening_name().to_owned(),
                            paired_games: room.paired_games,
                        })
                        .await
                        .map_err(|s| {
                            gamehub_platform::metrics::dependency_error("gomoku");
                            PeerError::from_status("gomoku referee", &s)
                        })?
                        .into_inner()
                        .table_id
                }
                TimeControl::Doudizhu { turn_time_ms } => {
                    let mut client = self.doudizhu.clone();
                    client
                        .open_table(ddz::OpenTableRequest {
                            request_id: match_id.to_owned(),
                            stakes: Some(room.stakes()),
                            turn_time_ms: to_i64(turn_time_ms),
                            player_ids: players.to_vec(),
                            test_seeds: Vec::new(),
                        })
                        .await
                        .map_err(|s| {
                            gamehub_platform::metrics::dependency_error("doudizhu");
                            PeerError::from_status("doudizhu dealer", &s)
                        })?
                        .into_inner()
                        .table_id
                }
            };
            Ok(OpenedTable { table_id })
        })
    }

    fn seat_at<'a>(
        &'a self,
        game: Game,
        table_id: &'a str,
        player_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TableSeat>, PeerError>> {
        Box::pin(async move {
            // NOT_FOUND: the table is gone (or never was): nobody sits there.
            let unknown = |service: &str, s: tonic::Status| {
                if s.code() == Code::NotFound {
                    Ok(None)
                } else {
                    gamehub_platform::metrics::dependency_error(service);
                    Err(PeerError::Unavailable(format!(
                        "{service}: {:?}: {}",
                        s.code(),
                        s.message()
                    )))
                }
            };
            match game {
                Game::Gomoku => {
                    let mut client = self.gomoku.clone();
                    let request = gmk::GetTableRequest {
                        table_id: table_id.to_owned(),
                    };
                    let table = match client.get_table(request).await {
                        Ok(response) => response.into_inner().table,
                        Err(s) => return unknown("gomoku", s),
                    };
                    Ok(table.and_then(|t| gomoku_seat(&t, player_id)))
                }
                Game::Doudizhu => {
                    let mut client = self.doudizhu.clone();
                    let request = ddz::GetTableRequest {
                        table_id: table_id.to_owned(),
                        as_spectator: true,
                    };
                    let table = match client.get_table(request).await {
                        Ok(response) => response.into_inner().table,
                        Err(s) => return unknown("doudizhu", s),
                    };
                    Ok(table.and_then(|t| doudizhu_seat(&t, player_id)))
                }
            }
        })
    }
}

/// The player's seat at a Gomoku table that goes on.
fn gomoku_seat(table: &gmk::Table, player_id: &str) -> Option<TableSeat> {
    if table.status() == gmk::TableStatus::Closed {
        return None;
    }
    let me = table
        .players
        .iter()
        .find(|p| p.player_id == player_id && !p.left)?;
    Some(TableSeat {
        seat: u32::try_from(me.seat).ok()?,
        room_id: table.room_id.clone(),
        in_progress: table.status() != gmk::TableStatus::BetweenGames,
        players: table.players.iter().map(|p| p.player_id.clone()).collect(),
    })
}

/// The player's seat at a Dou Dizhu table that goes on.
fn doudizhu_seat(table: &ddz::Table, player_id: &str) -> Option<TableSeat> {
    if table.status() == ddz::TableStatus::Closed {
        return None;
    }
    let me = table.seats.iter().find(|s| s.player_id == player_id)?;
    Some(TableSeat {
        seat: u32::try_from(me.seat).ok()?,
        room_id: table
            .stakes
            .as_ref()
            .map(|s| s.room_id.clone())
            .unwrap_or_default(),
        // A deal about to be dealt counts as going on: every seat asked for it.
        in_progress: table.status() != ddz::TableStatus::BetweenDeals,
        players: table.seats.iter().map(|s| s.player_id.clone()).collect(),
    })
}
