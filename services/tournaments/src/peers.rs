//! The services a tournament works through, over gRPC with the tournament service's own
//! service token (subject `tournaments`): matchmaking's rooms, the ledger (fees,
//! refunds, prizes, profiles) and every game's service (tables, through
//! `gamehub_game_clients`, the one interface shared services call games by).

use std::collections::HashMap;
use std::time::Duration;

use gamehub_game_clients::{GameClient, NewTable, TableInfo};
use gamehub_platform::auth::TOURNAMENTS_SUBJECT;
use gamehub_platform::client::{ServiceChannel, TokenSource, service_channel};
use gamehub_platform::config::CommonConfig;
use gamehub_platform::error::ApiError;
use gamehub_proto::common::PlayerProfile;
use gamehub_proto::ledger::{self as lg, ledger_service_client::LedgerServiceClient};
use gamehub_proto::matchmaking::{
    self as mm, matchmaking_service_client::MatchmakingServiceClient,
};
use gamehub_terms::games::{self, Game};
use tonic::{Code, Status};

use crate::tournament::{Entrant, Match, Tournament};

/// The most profiles the ledger answers per call.
const PROFILES_PER_CALL: usize = 100;

/// A peer's refusal or failure, as this service's error: a refusal keeps its words, a
/// failure is UNAVAILABLE (the director tries again on its next pass).
pub fn peer_error(service: &str, status: &Status) -> ApiError {
    gamehub_platform::metrics::dependency_error(service);
    let text = format!("{service}: {}", status.message());
    match status.code() {
        Code::InvalidArgument | Code::NotFound | Code::OutOfRange => {
            ApiError::InvalidArgument(text)
        }
        Code::FailedPrecondition => ApiError::FailedPrecondition(text),
        Code::AlreadyExists => ApiError::AlreadyExists(text),
        Code::PermissionDenied | Code::Unauthenticated => {
            ApiError::internal(anyhow::anyhow!("{text}"))
        }
        _ => ApiError::Unavailable(text),
    }
}

/// What the ledger said to an entry fee.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fee {
    /// Held in the pool.
    Held,
    /// Refused for good (the balance is short): its words.
    Refused(String),
}

/// The services a tournament works through.
pub struct Peers {
    ledger: LedgerServiceClient<ServiceChannel>,
    matchmaking: MatchmakingServiceClient<ServiceChannel>,
    games: HashMap<&'static str, Box<dyn GameClient>>,
}

impl std::fmt::Debug for Peers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Peers").finish_non_exhaustive()
    }
}

impl Peers {
    /// Clients of the ledger, matchmaking and every game's service, each call bounded by
    /// `timeout`.
    pub fn new(config: &CommonConfig, timeout: Duration) -> anyhow::Result<Self> {
        let token = TokenSource::service(config.keys.clone(), TOURNAMENTS_SUBJECT);
        let mut games = HashMap::new();
        for game in games::GAMES {
            let channel = service_channel(config.game_urls.get(game), token.clone(), timeout)?;
            let client = gamehub_game_clients::connect(game, channel)
                .ok_or_else(|| anyhow::anyhow!("no client for the game {}", game.key))?;
            games.insert(game.key, client);
        }
        Ok(Self {
            ledger: LedgerServiceClient::new(service_channel(
                &config.ledger_url,
                token.clone(),
                timeout,
            )?),
            matchmaking: MatchmakingServiceClient::new(service_channel(
                &config.matchmaking_url,
                token,
                timeout,
            )?),
            games,
        })
    }

    /// The room `room_id`, as matchmaking lists it; a room it does not list is
    /// FAILED_PRECONDITION.
    pub async fn room(&self, room_id: &str) -> Result<mm::Room, ApiError> {
        let rooms = self
            .matchmaking
            .clone()
            .list_rooms(mm::ListRoomsRequest {})
            .await
            .map_err(|s| peer_error("matchmaking", &s))?
            .into_inner()
            .rooms;
        let known: Vec<String> = rooms.iter().map(|r| r.room_id.clone()).collect();
        rooms
            .into_iter()
            .find(|r| r.room_id == room_id)
            .ok_or_else(|| {
                ApiError::FailedPrecondition(format!(
                    "settings.room_id: no room {room_id}; the rooms are {}",
                    known.join(", ")
                ))
            })
    }

    /// Holds `entrant`'s fee in `tournament`'s pool.
    pub async fn hold_fee(
        &self,
        tournament: &Tournament,
        entrant: &Entrant,
    ) -> Result<Fee, ApiError> {
        let request = lg::HoldEntryFeeRequest {
            request_id: tournament.fee_request_id(entrant.entry),
            tournament_id: tournament.id.clone(),
            player_id: entrant.player_id.clone(),
            amount_silver: entrant.fee_silver,
            reason: tournament.settings.name.clone(),
        };
        match self.ledger.clone().hold_entry_fee(request).await {
            Ok(_) => Ok(Fee::Held),
            Err(status) if status.code() == Code::FailedPrecondition => {
                Ok(Fee::Refused(status.message().to_owned()))
            }
            Err(status) => Err(peer_error("ledger", &status)),
        }
    }

    /// Gives `entrant` its fee back.
    pub async fn refund(&self, tournament: &Tournament, entrant: &Entrant) -> Result<(), ApiError> {
        let request = lg::RefundEntryFeeRequest {
            request_id: tournament.refund_request_id(entrant.entry),
            tournament_id: tournament.id.clone(),
            player_id: entrant.player_id.clone(),
            amount_silver: entrant.fee_silver,
            reason: tournament.settings.name.clone(),
        };
        self.ledger
            .clone()
            .refund_entry_fee(request)
            .await
            .map_err(|s| peer_error("ledger", &s))?;
        Ok(())
    }

    /// Pays `tournament`'s prizes.
    pub async fn pay_prizes(&self, tournament: &Tournament) -> Result<(), ApiError> {
        let request = lg::PayPrizesRequest {
            request_id: tournament.prizes_request_id(),
            tournament_id: tournament.id.clone(),
            prizes: tournament
                .prizes
                .iter()
                .map(|p| lg::Prize {
                    player_id: p.player_id.clone(),
                    amount_silver: p.amount_silver,
                })
                .collect(),
            reason: tournament.settings.name.clone(),
        };
        self.ledger
            .clone()
            .pay_prizes(request)
            .await
            .map_err(|s| peer_error("ledger", &s))?;
        Ok(())
    }

    /// How `player_ids` are shown in `game`, in their order.
    pub async fn profiles(
        &self,
        player_ids: &[String],
        game: &Game,
    ) -> Result<Vec<PlayerProfile>, ApiError> {
        let mut by_id: HashMap<String, PlayerProfile> = HashMap::new();
        for chunk in player_ids.chunks(PROFILES_PER_CALL) {
            let answer = self
                .ledger
                .clone()
                .get_profiles(lg::GetProfilesRequest {
                    player_ids: chunk.to_vec(),
                    game_type: game.game_type as i32,
                })
                .await
                .map_err(|s| peer_error("ledger", &s))?
                .into_inner();
            by_id.extend(
                answer
                    .profiles
                    .into_iter()
                    .map(|p| (p.player_id, p.profile.unwrap_or_default())),
            );
        }
        Ok(player_ids
            .iter()
            .map(|id| by_id.get(id).cloned().unwrap_or_default())
            .collect())
    }

    fn game(&self, game: &Game) -> Result<&dyn GameClient, ApiError> {
        self.games
            .get(game.key)
            .map(AsRef::as_ref)
            .ok_or_else(|| ApiError::internal(anyhow::anyhow!("no client for {}", game.key)))
    }

    /// Opens the table of `m` (round `round`) at its game's service; idempotent.
    pub async fn open_table(
        &self,
        tournament: &Tournament,
        round: u16,
        m: &Match,
    ) -> Result<String, ApiError> {
        let game = tournament.settings.game();
        let profiles = self.profiles(&m.players, game).await.unwrap_or_default();
        let request_id = m.table_request_id(&tournament.id, round);
        let table = NewTable {
            request_id: &request_id,
            stakes: tournament.room.stakes(&tournament.settings.room_id),
            rule_set: &tournament.room.rule_set,
            time_control: tournament.room.time_control(game),
            players: &m.players,
            designated_opening: &tournament.room.designated_opening,
            paired_games: false,
            profiles: &profiles,
            bot_seats: &[],
            friends_table: false,
        };
        self.game(game)?
            .open_table(table)
            .await
            .map_err(|s| peer_error(game.key, &s))
    }

    /// The table `table_id` of `tournament`'s game, as it is now.
    pub async fn table(
        &self,
        tournament: &Tournament,
        table_id: &str,
    ) -> Result<TableInfo, ApiError> {
        let game = tournament.settings.game();
        self.game(game)?
            .table(table_id)
            .await
            .map_err(|s| peer_error(game.key, &s))
    }
}
