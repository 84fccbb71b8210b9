//! A ledger in the test's (or load run's) process that settles every game at once and
//! answers everyone eligible, so a game service can be tested or measured without
//! PostgreSQL. Switches make it go down ([`StubLedger::down`]), refuse chosen games
//! ([`StubLedger::refuse`], until [`StubLedger::allow`]), deliver slowly (settlements wait
//! while [`StubLedger::hold`] is on), or refuse a player once some of its games are
//! settled ([`StubLedger::cap_after`], a daily cap reached by a game); it counts and keeps
//! what it was sent ([`StubLedger::requests`]). RecordOperatorAction keeps what it was
//! sent ([`StubLedger::operator_actions`]) and is UNAVAILABLE while the stub is down.
//! Other RPCs are UNIMPLEMENTED,
//! except GetProfiles (nobody has a name) and GetAccount, which answers with the caller's identity (`subject/role`) so a
//! test can see what the server's auth layer put in the request.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use gamehub_platform::Caller;
use gamehub_platform::server::Shutdown;
use gamehub_proto::ledger::ledger_service_server::{LedgerService, LedgerServiceServer};
use gamehub_proto::ledger::*;
use tonic::{Request, Response, Status};

/// SettleGame requests a stub ledger keeps, the latest.
pub const KEPT_REQUESTS: usize = 1_000;

/// The stand-in ledger; clones share their state.
#[derive(Debug, Default, Clone)]
pub struct StubLedger {
    /// While set, SettleGame answers UNAVAILABLE (an outage).
    pub down: Arc<AtomicBool>,
    /// SettleGame calls received, answered or not.
    pub calls: Arc<AtomicUsize>,
    /// The last [`KEPT_REQUESTS`] SettleGame requests received, in order, answered or not
    /// (a test reads what a game service sent; a load run keeps no more).
    pub requests: Arc<Mutex<VecDeque<SettleGameRequest>>>,
    /// How many times each game was settled (more than once: replays).
    pub settled: Arc<Mutex<HashMap<String, usize>>>,
    /// Games refused with INVALID_ARGUMENT, as the ledger refuses a malformed one.
    refused: Arc<Mutex<HashSet<String>>>,
    /// While set, SettleGame waits (a ledger that delivers slowly).
    held: Arc<AtomicBool>,
    /// Each player's settled games.
    players_settled: Arc<Mutex<HashMap<String, HashSet<String>>>>,
    /// Wakes held SettleGame calls.
    released: Arc<tokio::sync::Notify>,
    /// Players refused once this many of their games are settled.
    caps: Arc<Mutex<HashMap<String, usize>>>,
    /// RecordOperatorAction requests answered (operator actions of the game services),
    /// in order.
    pub operator_actions: Arc<Mutex<Vec<RecordOperatorActionRequest>>>,
}

impl StubLedger {
    /// From now on SettleGame calls wait (unanswered) until [`StubLedger::release`].
    pub fn hold(&self) {
        self.held.store(true, Ordering::SeqCst);
    }

    /// Lets held and later SettleGame calls through.
    pub fn release(&self) {
        self.held.store(false, Ordering::SeqCst);
        self.released.notify_waiters();
    }

    /// CheckEligibility refuses `player_id` (a daily loss cap) once `games` of its games
    /// are settled here.
    pub fn cap_after(&self, player_id: &str, games: usize) {
        self.caps
            .lock()
            .unwrap()
            .insert(player_id.to_owned(), games);
    }

    /// Games of `player_id` settled here (each counted once).
    fn settled_games_of(&self, player_id: &str) -> usize {
        self.players_settled
            .lock()
            .unwrap()
            .get(player_id)
            .map_or(0, HashSet::len)
    }

    /// Refuses to settle `game_id` from now on.
    pub fn refuse(&self, game_id: &str) {
        self.refused.lock().unwrap().insert(game_id.to_owned());
    }

    /// Settles `game_id` again from now on (the cause of a refusal removed).
    pub fn allow(&self, game_id: &str) {
        self.refused.lock().unwrap().remove(game_id);
    }

    /// How many times `game_id` was settled (0 when never).
    pub fn times_settled(&self, game_id: &str) -> usize {
        self.settled
            .lock()
            .unwrap()
            .get(game_id)
            .copied()
            .unwrap_or(0)
    }

    /// Serves it on a free local port (without auth) until `shutdown`; returns its URL.
    pub async fn serve(self, shutdown: Shutdown) -> anyhow::Result<String> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let mut stop = shutdown.listener();
        tokio::spawn(
            tonic::transport::Server::builder()
                .add_service(LedgerServiceServer::new(self))
                .serve_with_incoming_shutdown(
                    tokio_stream::wrappers::TcpListenerStream::new(listener),
                    async move {
                        stop.wait().await;
                    },
                ),
        );
        Ok(format!("http://{addr}"))
    }
}

fn unimplemented<T>() -> Result<Response<T>, Status> {
    Err(Status::unimplemented("the stub ledger only settles"))
}

#[tonic::async_trait]
impl LedgerService for StubLedger {
    async fn get_account(
        &self,
        request: Request<GetAccountRequest>,
    ) -> Result<Response<GetAccountResponse>, Status> {
        let caller = Caller::of(&request)?;
        Ok(Response::new(GetAccountResponse {
            account: Some(Account {
                player_id: format!("{}/{}", caller.subject, caller.role.as_str()),
                ..Default::default()
            }),
        }))
    }

    async fn grant_silver(
        &self,
        _: Request<GrantSilverRequest>,
    ) -> Result<Response<GrantSilverResponse>, Status> {
        unimplemented()
    }

    /// Settles at once: each player's points as sent, no silver; a game sent again is
    /// answered as a replay.
    async fn settle_game(
        &self,
        request: Request<SettleGameRequest>,
    ) -> Result<Response<SettleGameResponse>, Status> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        {
            let mut requests = self.requests.lock().unwrap();
            if requests.len() == KEPT_REQUESTS {
                requests.pop_front();
            }
            requests.push_back(request.get_ref().clone());
        }
        loop {
            // Created before the check, so a release in between is not missed.
            let released = self.released.notified();
            if !self.held.load(Ordering::SeqCst) {
                break;
            }
            released.await;
        }
        if self.down.load(Ordering::SeqCst) {
            return Err(Status::unavailable("the stub ledger is down"));
        }
        let request = request.into_inner();
        if self.refused.lock().unwrap().contains(&request.game_id) {
            return Err(Status::invalid_argument(format!(
                "game {} refused by the stub ledger",
                request.game_id
            )));
        }
        let replayed = {
            let mut settled = self.settled.lock().unwrap();
            let count = settled.entry(request.game_id.clone()).or_default();
            *count += 1;
            *count > 1
        };
        {
            let mut players = self.players_settled.lock().unwrap();
            for p in &request.players {
                players
                    .entry(p.player_id.clone())
                    .or_default()
                    .insert(request.game_id.clone());
            }
        }
        Ok(Response::new(SettleGameResponse {
            players: request
                .players
                .iter()
                .map(|p| PlayerSettlement {
                    player_id: p.player_id.clone(),
                    points_delta: p.points,
                    ..Default::default()
                })
                .collect(),
            game_id: request.game_id,
            replayed,
            house_silver: 0,
        }))
    }

    /// Everyone may play (the game services ask before each next game), except a player
    /// whose [`StubLedger::cap_after`] games are settled.
    async fn check_eligibility(
        &self,
        request: Request<CheckEligibilityRequest>,
    ) -> Result<Response<CheckEligibilityResponse>, Status> {
        let player_id = request.into_inner().player_id;
        let cap = self.caps.lock().unwrap().get(&player_id).copied();
        if cap.is_some_and(|games| self.settled_games_of(&player_id) >= games) {
            return Ok(Response::new(CheckEligibilityResponse {
                eligible: false,
                refusal: Refusal::DailyLossCap as i32,
                message: "today's losses reached the daily cap (stub ledger)".into(),
                ..Default::default()
            }));
        }
        Ok(Response::new(CheckEligibilityResponse {
            eligible: true,
            ..Default::default()
        }))
    }

    async fn list_history(
        &self,
        _: Request<ListHistoryRequest>,
    ) -> Result<Response<ListHistoryResponse>, Status> {
        unimplemented()
    }

    async fn get_game_record(
        &self,
        _: Request<GetGameRecordRequest>,
    ) -> Result<Response<GetGameRecordResponse>, Status> {
        unimplemented()
    }

    async fn list_games(
        &self,
        _: Request<ListGamesRequest>,
    ) -> Result<Response<ListGamesResponse>, Status> {
        unimplemented()
    }

    async fn get_leaderboard(
        &self,
        _: Request<GetLeaderboardRequest>,
    ) -> Result<Response<GetLeaderboardResponse>, Status> {
        unimplemented()
    }

    async fn set_professional(
        &self,
        _: Request<SetProfessionalRequest>,
    ) -> Result<Response<SetProfessionalResponse>, Status> {
        unimplemented()
    }

    async fn set_name(
        &self,
        _: Request<SetNameRequest>,
    ) -> Result<Response<SetNameResponse>, Status> {
        unimplemented()
    }

    /// Everyone without a name (the stub keeps none), in the order asked.
    async fn get_profiles(
        &self,
        request: Request<GetProfilesRequest>,
    ) -> Result<Response<GetProfilesResponse>, Status> {
        let mut seen = HashSet::new();
        let profiles = request
            .into_inner()
            .player_ids
            .into_iter()
            .filter(|id| seen.insert(id.clone()))
            .map(|player_id| NamedProfile {
                player_id,
                profile: Some(Default::default()),
            })
            .collect();
        Ok(Response::new(GetProfilesResponse { profiles }))
    }

    async fn list_operator_actions(
        &self,
        _: Request<ListOperatorActionsRequest>,
    ) -> Result<Response<ListOperatorActionsResponse>, Status> {
        unimplemented()
    }

    async fn hold_entry_fee(
        &self,
        _: Request<gamehub_proto::ledger::HoldEntryFeeRequest>,
    ) -> Result<Response<gamehub_proto::ledger::HoldEntryFeeResponse>, Status> {
        unimplemented()
    }

    async fn refund_entry_fee(
        &self,
        _: Request<gamehub_proto::ledger::RefundEntryFeeRequest>,
    ) -> Result<Response<gamehub_proto::ledger::RefundEntryFeeResponse>, Status> {
        unimplemented()
    }

    async fn pay_prizes(
        &self,
        _: Request<gamehub_proto::ledger::PayPrizesRequest>,
    ) -> Result<Response<gamehub_proto::ledger::PayPrizesResponse>, Status> {
        unimplemented()
    }

    /// Keeps the request and answers it as recorded, unless the stub is down.
    async fn record_operator_action(
        &self,
        request: Request<RecordOperatorActionRequest>,
    ) -> Result<Response<RecordOperatorActionResponse>, Status> {
        if self.down.load(Ordering::SeqCst) {
            return Err(Status::unavailable("the stub ledger is down"));
        }
        let request = request.into_inner();
        let mut kept = self.operator_actions.lock().unwrap();
        let replayed = kept.iter().any(|r| r.request_id == request.request_id);
        if !replayed {
            kept.push(request.clone());
        }
        Ok(Response::new(RecordOperatorActionResponse {
            action: Some(OperatorAction {
                request_id: request.request_id,
                kind: request.kind,
                operator: request.operator,
                table_id: request.table_id,
                game_id: request.game_id,
                all_dead_letters: request.all_dead_letters,
                reason: request.reason,
                ..Default::default()
            }),
            replayed,
        }))
    }
}
