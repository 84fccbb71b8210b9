//! Test support: matchmaking on a free port with a Redis prefix of its own, clients of
//! each role, in-process fakes of the ledger and the game services, and a real ledger
//! over a fresh database.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gamehub_matchmaking::MatchmakingConfig;
use gamehub_matchmaking::peers::{
    BoxFuture, Eligibility, OpenedTable, PeerError, TableOpener, Verdict,
};
use gamehub_matchmaking::rooms::{Game, Room};
use gamehub_platform::auth::{Keys, Role};
use gamehub_platform::client::{ServiceChannel, TokenSource, service_channel};
use gamehub_platform::server::Shutdown;
use gamehub_proto::matchmaking::matchmaking_service_client::MatchmakingServiceClient;
use gamehub_proto::matchmaking::{EnqueueRequest, GetTicketRequest, Ticket, TicketState};

pub type Client = MatchmakingServiceClient<ServiceChannel>;

/// A ledger that answers at once: everyone eligible unless refused here.
#[derive(Default)]
pub struct FakeLedger {
    pub refused: Mutex<HashMap<String, (i32, String)>>,
    pub ratings: Mutex<HashMap<String, i64>>,
    pub down: AtomicBool,
    pub checks: AtomicUsize,
}

impl FakeLedger {
    pub fn refuse(&self, player: &str, refusal: i32, message: &str) {
        self.refused
            .lock()
            .unwrap()
            .insert(player.to_owned(), (refusal, message.to_owned()));
    }
}

impl Eligibility for FakeLedger {
    fn check<'a>(
        &'a self,
        player_id: &'a str,
        _room: &'a Room,
    ) -> BoxFuture<'a, Result<Verdict, PeerError>> {
        self.checks.fetch_add(1, Ordering::SeqCst);
        let answer = if self.down.load(Ordering::SeqCst) {
            Err(PeerError::Unavailable("ledger down (fake)".into()))
        } else {
            Ok(match self.refused.lock().unwrap().get(player_id) {
                Some((refusal, message)) => Verdict::Refused {
                    refusal: *refusal,
                    message: message.clone(),
                },
                None => Verdict::Eligible,
            })
        };
        Box::pin(async move { answer })
    }

    fn rating<'a>(&'a self, player_id: &'a str) -> BoxFuture<'a, Result<i64, PeerError>> {
        let rating = self
            .ratings
            .lock()
            .unwrap()
            .get(player_id)
            .copied()
            .unwrap_or(2000);
        Box::pin(async move { Ok(rating) })
    }
}

/// One OpenTable call the fake received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenCall {
    pub room: String,
    pub match_id: String,
    pub players: Vec<String>,
}

/// Game services that open tables at once (table id derived from the match id, so a
/// retry gets the same table) and remember them.
#[derive(Default)]
pub struct FakeTables {
    pub calls: Mutex<Vec<OpenCall>>,
    /// Answer this many calls with "unavailable" after opening the table (the outcome
    /// a crash or a timeout leaves unknown).
    pub lose_answers: AtomicUsize,
    /// Refuse this many calls outright.
    pub refuse: AtomicUsize,
    /// Players the fake says still sit at their table.
    pub still_seated: Mutex<HashSet<String>>,
}

impl FakeTables {
    pub fn table_of(match_id: &str) -> String {
        format!("tbl-{match_id}")
    }

    pub fn calls(&self) -> Vec<OpenCall> {
        self.calls.lock().unwrap().clone()
    }
}

fn take_one(counter: &AtomicUsize) -> bool {
    counter
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok()
}

impl TableOpener for FakeTables {
    fn open<'a>(
        &'a self,
        room: &'a Room,
        match_id: &'a str,
        players: &'a [String],
    ) -> BoxFuture<'a, Result<OpenedTable, PeerError>> {
        let answer = if take_one(&self.refuse) {
            Err(PeerError::Refused("refused (fake)".into()))
        } else {
            self.calls.lock().unwrap().push(OpenCall {
                room: room.id.clone(),
                match_id: match_id.to_owned(),
                players: players.to_vec(),
            });
            if take_one(&self.lose_answers) {
                Err(PeerError::Unavailable("answer lost (fake)".into()))
            } else {
                Ok(OpenedTable {
                    table_id: Self::table_of(match_id),
                })
            }
        };
        Box::pin(async move { answer })
    }

    fn still_seated<'a>(
        &'a self,
        _game: Game,
        _table_id: &'a str,
        player_id: &'a str,
    ) -> BoxFuture<'a, Result<bool, PeerError>> {
        let seated = self.still_seated.lock().unwrap().contains(player_id);
        Box::pin(async move { Ok(seated) })
    }
}

/// A matchmaking server for one test.
pub struct Mm {
    pub url: String,
    pub keys: Keys,
    pub shutdown: Shutdown,
}

impl Drop for Mm {
    fn drop(&mut self) {
        self.shutdown.trigger();
    }
}

/// The test defaults: a prefix of its own, a fast matcher and reaper.
pub fn test_config() -> MatchmakingConfig {
    let mut config = MatchmakingConfig::for_tests();
    config.matcher.interval = Duration::from_millis(20);
    config.matcher.reaper_interval = Duration::from_millis(100);
    config.watch.poll_interval = Duration::from_millis(200);
    config
}

/// Starts matchmaking with `config` and these fakes.
pub async fn spawn_with(
    config: MatchmakingConfig,
    eligibility: Arc<dyn Eligibility>,
    tables: Arc<dyn TableOpener>,
) -> Mm {
    let shutdown = Shutdown::new();
    let started =
        gamehub_matchmaking::start_with(config.clone(), shutdown.clone(), eligibility, tables)
            .await
            .unwrap();
    Mm {
        url: format!("http://{}", started.addr),
        keys: Keys::new(&config.common.jwt_secret),
        shutdown,
    }
}

/// Starts matchmaking against the real services named in `config`.
pub async fn spawn_real(config: MatchmakingConfig) -> Mm {
    let shutdown = Shutdown::new();
    let started = gamehub_matchmaking::start(config.clone(), shutdown.clone())
        .await
        .unwrap();
    Mm {
        url: format!("http://{}", started.addr),
        keys: Keys::new(&config.common.jwt_secret),
        shutdown,
    }
}

impl Mm {
    pub fn token(&self, subject: &str, role: Role) -> String {
        self.keys
            .mint(subject, role, Duration::from_secs(3600))
            .unwrap()
    }

    /// A client acting as `player`.
    pub fn player(&self, player: &str) -> Client {
        client(&self.url, self.token(player, Role::Player))
    }

    /// A client with a service token.
    pub fn service(&self) -> Client {
        client(&self.url, self.token("tester", Role::Service))
    }
}

pub fn client(url: &str, token: String) -> Client {
    MatchmakingServiceClient::new(
        service_channel(url, TokenSource::Static(token), Duration::from_secs(10)).unwrap(),
    )
}

/// Enqueues `client`'s player in `room` with a fresh request id.
pub async fn enqueue(client: &mut Client, room: &str) -> Ticket {
    client
        .enqueue(EnqueueRequest {
            room_id: room.into(),
            request_id: uuid::Uuid::new_v4().to_string(),
            player_id: String::new(),
        })
        .await
        .unwrap()
        .into_inner()
        .ticket
        .unwrap()
}

/// Polls the ticket until it reaches `state` (panics after `within`).
pub async fn wait_for(
    client: &mut Client,
    ticket_id: &str,
    state: TicketState,
    within: Duration,
) -> Ticket {
    let deadline = Instant::now() + within;
    loop {
        let ticket = client
            .get_ticket(GetTicketRequest {
                ticket_id: ticket_id.into(),
            })
            .await
            .unwrap()
            .into_inner()
            .ticket
            .unwrap();
        if ticket.state == state as i32 {
            return ticket;
        }
        assert!(
            Instant::now() < deadline,
            "ticket {ticket_id} is {:?}, not {state:?}, after {within:?}",
            TicketState::try_from(ticket.state)
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

pub fn state(ticket: &Ticket) -> TicketState {
    TicketState::try_from(ticket.state).unwrap()
}

/// The database prefix of this suite's test ledgers.
pub const LEDGER_DB_PREFIX: &str = "gamehub_mm_test_";

pub use gamehub_ledger::testing::TestLedger;
