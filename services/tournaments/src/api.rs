//! The gRPC adapter: who calls, what they ask (checked), the change made through the
//! store, the peers called, the answer. Who may call each method is the platform's
//! access table; a handler checks only what depends on the request.

use std::pin::Pin;
use std::sync::Arc;

use futures::Stream;
use gamehub_platform::auth::{Caller, Role};
use gamehub_platform::clock::Clock;
use gamehub_platform::error::{ApiError, id, invalid, required};
use gamehub_proto::common::GameType;
use gamehub_proto::tournament::{self as pb, tournament_service_server::TournamentService};
use tonic::{Request, Response, Status};

use crate::hub::Hub;
use crate::peers::{Fee, Peers};
use crate::settings::Settings;
use crate::store::Store;
use crate::tournament::{State, Tournament};
use crate::view;

/// The longest tournament id ("tn-" and 24 hex digits, with room to spare).
pub const MAX_TOURNAMENT_ID_CHARS: usize = 40;
/// The longest cancel reason.
pub const MAX_REASON_CHARS: usize = 200;
/// The largest page of ListTournaments.
pub const MAX_PAGE_SIZE: i32 = 100;
const DEFAULT_PAGE_SIZE: i32 = 20;

/// The tournament service's API.
#[derive(Debug, Clone)]
pub struct TournamentApi {
    store: Store,
    peers: Arc<Peers>,
    hub: Hub,
    clock: Clock,
}

fn tournament_id_of(value: &str) -> Result<&str, ApiError> {
    id("tournament_id", value, MAX_TOURNAMENT_ID_CHARS)
}

type WatchStream = Pin<Box<dyn Stream<Item = Result<pb::WatchTournamentResponse, Status>> + Send>>;

impl TournamentApi {
    pub fn new(store: Store, peers: Arc<Peers>, hub: Hub, clock: Clock) -> Self {
        Self {
            store,
            peers,
            hub,
            clock,
        }
    }

    fn now_ms(&self) -> i64 {
        i64::try_from(self.clock.now_ms()).unwrap_or(i64::MAX)
    }

    async fn load(&self, id: &str) -> Result<(Tournament, i64), ApiError> {
        self.store
            .load(id)
            .await?
            .ok_or_else(|| ApiError::NotFound(format!("no tournament {id}")))
    }

    fn viewer(caller: &Caller) -> Option<&str> {
        (caller.role == Role::Player).then_some(caller.subject.as_str())
    }

    async fn create(
        &self,
        request: Request<pb::CreateTournamentRequest>,
    ) -> Result<pb::CreateTournamentResponse, ApiError> {
        let m = request.into_inner();
        let request_id = id("request_id", &m.request_id, 64)?;
        let settings = Settings::parse(
            &m.settings
                .ok_or_else(|| invalid("settings", "is required"))?,
        )?;
        let ((t, version), replayed) = crate::schedule::create(
            &self.store,
            &self.peers,
            request_id,
            settings,
            self.now_ms(),
        )
        .await?;
        Ok(pb::CreateTournamentResponse {
            tournament: Some(view::tournament(&t, version, None)),
            replayed,
        })
    }

    async fn list(
        &self,
        request: Request<pb::ListTournamentsRequest>,
    ) -> Result<pb::ListTournamentsResponse, ApiError> {
        let m = request.into_inner();
        let state = match pb::State::try_from(m.state) {
            Ok(pb::State::Unspecified) => None,
            Ok(s) => Some(i16::try_from(s as i32).unwrap_or(0)),
            Err(_) => return Err(invalid("state", "unknown state")),
        };
        let game_type = match GameType::try_from(m.game_type) {
            Ok(GameType::Unspecified) => None,
            Ok(g) => Some(i16::try_from(g as i32).unwrap_or(0)),
            Err(_) => return Err(invalid("game_type", "unknown game type")),
        };
        let size = match m.page_size {
            0 => DEFAULT_PAGE_SIZE,
            s if (1..=MAX_PAGE_SIZE).contains(&s) => s,
            _ => {
                return Err(invalid(
                    "page_size",
                    format!("must be 0 (20) to {MAX_PAGE_SIZE}"),
                ));
            }
        };
        let after = if m.page_token.is_empty() {
            None
        } else {
            let bad = || {
                invalid(
                    "page_token",
                    "is not a token this service gave; start again without one",
                )
            };
            let (ms, id) = m.page_token.split_once('/').ok_or_else(bad)?;
            Some((
                ms.parse::<i64>().map_err(|_| bad())?,
                tournament_id_of(id).map_err(|_| bad())?.to_owned(),
            ))
        };
        let page = self
            .store
            .list(state, game_type, after, i64::from(size) + 1)
            .await?;
        let more = page.len() > usize::try_from(size).unwrap_or(0);
        let tournaments: Vec<&Tournament> = page
            .iter()
            .take(usize::try_from(size).unwrap_or(0))
            .map(|(t, _)| t)
            .collect();
        let next_page_token = match tournaments.last() {
            Some(last) if more => format!("{}/{}", last.created_at_ms, last.id),
            _ => String::new(),
        };
        Ok(pb::ListTournamentsResponse {
            tournaments: tournaments.into_iter().map(view::summary).collect(),
            next_page_token,
        })
    }

    async fn get(
        &self,
        request: Request<pb::GetTournamentRequest>,
    ) -> Result<pb::GetTournamentResponse, ApiError> {
        let caller = Caller::of(&request)?.clone();
        let id = tournament_id_of(&request.get_ref().tournament_id)?;
        let (t, version) = self.load(id).await?;
        Ok(pb::GetTournamentResponse {
            tournament: Some(view::tournament(&t, version, Self::viewer(&caller))),
        })
    }

    async fn register(
        &self,
        request: Request<pb::RegisterRequest>,
    ) -> Result<pb::RegisterResponse, ApiError> {
        let caller = Caller::of(&request)?.clone();
        let player = caller.subject.clone();
        let id = tournament_id_of(&request.get_ref().tournament_id)?.to_owned();
        let now = self.now_ms();
        let ((mut t, mut version), entry) =
            self.store.update(&id, |t| t.register(&player, now)).await?;
        let replayed = entry.is_none();
        if let Some(entry) = entry
            && let Some(entrant) = t.entrants.iter().find(|e| e.entry == entry).cloned()
            && entrant.fee_silver > 0
        {
            match self.peers.hold_fee(&t, &entrant).await {
                Ok(Fee::Held) => {
                    (t, version) = self
                        .store
                        .update(&id, |t| {
                            t.fee_held(entry);
                            Ok(())
                        })
                        .await?
                        .0;
                }
                Ok(Fee::Refused(words)) => {
                    self.store
                        .update(&id, |t| {
                            t.fee_refused(entry);
                            Ok(())
                        })
                        .await?;
                    return Err(ApiError::FailedPrecondition(words));
                }
                Err(e) => {
                    // Still on its way: the director finishes it; a retry answers it.
                    tracing::warn!(tournament_id = %id, %player, error = %e, "entry fee not confirmed yet");
                    return Err(ApiError::UnavailableFor {
                        message: "the entry fee is being taken; ask again in a moment".into(),
                        retry_after: std::time::Duration::from_secs(1),
                    });
                }
            }
        }
        Ok(pb::RegisterResponse {
            tournament: Some(view::tournament(&t, version, Some(&player))),
            replayed,
        })
    }

    async fn unregister(
        &self,
        request: Request<pb::UnregisterRequest>,
    ) -> Result<pb::UnregisterResponse, ApiError> {
        let caller = Caller::of(&request)?.clone();
        let player = caller.subject.clone();
        let id = tournament_id_of(&request.get_ref().tournament_id)?.to_owned();
        let ((mut t, mut version), refunded_silver) =
            self.store.update(&id, |t| t.unregister(&player)).await?;
        // Given back now if the ledger answers; else by the director on its next pass.
        if let Some(entrant) = t
            .entrants
            .iter()
            .rev()
            .find(|e| e.player_id == player && e.withdrawn)
            .cloned()
            && entrant.money == crate::tournament::Money::Refunding
        {
            match self.peers.refund(&t, &entrant).await {
                Ok(()) => {
                    (t, version) = self
                        .store
                        .update(&id, |t| {
                            t.refunded(entrant.entry);
                            Ok(())
                        })
                        .await?
                        .0
                }
                Err(e) => {
                    tracing::warn!(tournament_id = %id, %player, error = %e, "refund left to the director")
                }
            }
        }
        Ok(pb::UnregisterResponse {
            tournament: Some(view::tournament(&t, version, Some(&player))),
            refunded_silver,
        })
    }

    async fn cancel(
        &self,
        request: Request<pb::CancelTournamentRequest>,
    ) -> Result<pb::CancelTournamentResponse, ApiError> {
        let caller = Caller::of(&request)?.clone();
        let m = request.into_inner();
        let id = tournament_id_of(&m.tournament_id)?.to_owned();
        let reason = required("reason", &m.reason, MAX_REASON_CHARS)?.to_owned();
        let now = self.now_ms();
        let ((t, version), ()) = self
            .store
            .update(&id, |t| {
                t.cancel(&format!("cancelled by {}: {reason}", caller.subject), now)
            })
            .await?;
        tracing::info!(tournament_id = %id, operator = %caller.subject, %reason, "tournament cancelled");
        Ok(pb::CancelTournamentResponse {
            tournament: Some(view::tournament(&t, version, None)),
        })
    }

    async fn watch(
        &self,
        request: Request<pb::WatchTournamentRequest>,
    ) -> Result<WatchStream, ApiError> {
        let caller = Caller::of(&request)?.clone();
        let viewer = Self::viewer(&caller).map(str::to_owned);
        let id = tournament_id_of(&request.get_ref().tournament_id)?.to_owned();
        self.load(&id).await?;
        let (mut changes, permit) = self.hub.subscribe(&id)?;
        let store = self.store.clone();
        Ok(Box::pin(async_stream::try_stream! {
            let _permit = permit;
            let mut sent = 0;
            loop {
                let (t, version) = store.load(&id).await.map_err(Status::from)?.ok_or_else(|| Status::not_found(format!("no tournament {id}")))?;
                if version != sent {
                    sent = version;
                    yield pb::WatchTournamentResponse { tournament: Some(view::tournament(&t, version, viewer.as_deref())) };
                }
                if matches!(t.state, State::Finished | State::Cancelled) && !t.needs_work() {
                    break;
                }
                if changes.changed().await.is_err() {
                    break;
                }
            }
        }))
    }
}

fn respond<T>(result: Result<T, ApiError>) -> Result<Response<T>, Status> {
    result.map(Response::new).map_err(Status::from)
}

#[tonic::async_trait]
impl TournamentService for TournamentApi {
    async fn create_tournament(
        &self,
        request: Request<pb::CreateTournamentRequest>,
    ) -> Result<Response<pb::CreateTournamentResponse>, Status> {
        respond(self.create(request).await)
    }

    async fn list_tournaments(
        &self,
        request: Request<pb::ListTournamentsRequest>,
    ) -> Result<Response<pb::ListTournamentsResponse>, Status> {
        respond(self.list(request).await)
    }

    async fn get_tournament(
        &self,
        request: Request<pb::GetTournamentRequest>,
    ) -> Result<Response<pb::GetTournamentResponse>, Status> {
        respond(self.get(request).await)
    }

    async fn register(
        &self,
        request: Request<pb::RegisterRequest>,
    ) -> Result<Response<pb::RegisterResponse>, Status> {
        respond(TournamentApi::register(self, request).await)
    }

    async fn unregister(
        &self,
        request: Request<pb::UnregisterRequest>,
    ) -> Result<Response<pb::UnregisterResponse>, Status> {
        respond(TournamentApi::unregister(self, request).await)
    }

    async fn cancel_tournament(
        &self,
        request: Request<pb::CancelTournamentRequest>,
    ) -> Result<Response<pb::CancelTournamentResponse>, Status> {
        respond(self.cancel(request).await)
    }

    type WatchTournamentStream = WatchStream;

    async fn watch_tournament(
        &self,
        request: Request<pb::WatchTournamentRequest>,
    ) -> Result<Response<WatchStream>, Status> {
        respond(self.watch(request).await)
    }
}
