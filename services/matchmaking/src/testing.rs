//! Behind the `testing` feature, for tests (this crate's and others'): matchmaking in
//! the test's process, with in-process fakes of its peers (a ledger and game services
//! that answer at once and can be told to refuse, lose answers or be down), or against
//! the real services named in its configuration.
// Test support fails loudly on a broken fixture.
#![allow(clippy::unwrap_used)]

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use gamehub_platform::auth::{Keys, Role};
use gamehub_platform::client::ServiceChannel;
use gamehub_proto::matchmaking::matchmaking_service_client::MatchmakingServiceClient;
use gamehub_terms::rating::NEW_PLAYER_RATING;
use gamehub_testkit::server::TestServer;

use crate::MatchmakingConfig;
use crate::peers::{
    BoxFuture, Eligibility, Lineup, OpenedTable, PeerError, TableOpener, TableSeat, Verdict,
};
use crate::rooms::{Game, Room};

/// A matchmaking client of a test.
pub type Client = MatchmakingServiceClient<ServiceChannel>;

/// A ledger that answers at once: everyone eligible unless refused here, ratings
/// [`NEW_PLAYER_RATING`] unless set here, or down.
#[derive(Debug, Default)]
pub struct FakeLedger {
    /// Players refused, with the refusal code and message.
    pub refused: Mutex<HashMap<String, (i32, String)>>,
    /// Ratings other than [`NEW_PLAYER_RATING`].
    pub ratings: Mutex<HashMap<String, i64>>,
    /// While set, every check fails as unavailable.
    pub down: AtomicBool,
    /// Eligibility checks received.
    pub checks: AtomicUsize,
}

impl FakeLedger {
    /// Refuses `player` with `refusal` (a `Refusal` code) and `message`.
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
            .unwrap_or(NEW_PLAYER_RATING);
        Box::pin(async move { Ok(rating) })
    }
}

/// One OpenTable call the fake received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenCall {
    /// The room.
    pub room: String,
    /// The match id (the idempotency key of the call).
    pub match_id: String,
    /// The players, in seat order.
    pub players: Vec<String>,
}

/// Game services that open tables at once (table id derived from the match id, so a
/// retry gets the same table) and remember them.
#[derive(Debug, Default)]
pub struct FakeTables {
    /// Every call, in order.
    pub calls: Mutex<Vec<OpenCall>>,
    /// Answer this many calls with "unavailable" after opening the table (the outcome
    /// a crash or a timeout leaves unknown).
    pub lose_answers: AtomicUsize,
    /// Refuse this many calls outright.
    pub refuse: AtomicUsize,
    /// Players the fake says still sit at their table (at the seat its OpenTable call
    /// gave them, a game going on).
    pub still_seated: Mutex<HashSet<String>>,
    /// While set, every seat lookup fails as unavailable (the game services are down).
    pub lookups_down: AtomicBool,
}

impl FakeTables {
    /// The table id the fake gives the match `match_id`.
    pub fn table_of(match_id: &str) -> String {
        format!("tbl-{match_id}")
    }

    /// The calls so far.
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
        _lineup: Lineup<'a>,
    ) -> BoxFuture<'a, Result<OpenedTable, PeerError>> {
        let answer = if take_one(&self.refuse) {
            Err(PeerError::Refused("refused (fake)".into()))
        } else {
            self.calls.lock().unwrap().push(OpenCall {
                room: room.id.to_string(),
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

    fn seat_at<'a>(
        &'a self,
        _game: &'static Game,
        table_id: &'a str,
        player_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TableSeat>, PeerError>> {
        if self.lookups_down.load(Ordering::SeqCst) {
            return Box::pin(async {
                Err(PeerError::Unavailable("game service down (fake)".into()))
            });
        }
        let seat = if self.still_seated.lock().unwrap().contains(player_id) {
            self.calls()
                .into_iter()
                .find(|call| Self::table_of(&call.match_id) == table_id)
                .and_then(|call| {
                    let seat = call.players.iter().position(|p| p == player_id)?;
                    Some(TableSeat {
                        seat: u32::try_from(seat).ok()?,
                        room_id: call.room,
                        in_progress: true,
                        players: call.players,
                    })
                })
        } else {
            None
        };
        Box::pin(async move { Ok(seat) })
    }
}

/// Matchmaking running for one test; stops when dropped.
#[derive(Debug)]
pub struct TestMatchmaking {
    /// The server.
    pub server: TestServer,
    /// Its signing keys, to mint tokens.
    pub keys: Keys,
}

/// The test defaults: a prefix of its own, a fast matcher and reaper.
pub fn test_config() -> MatchmakingConfig {
    let mut config = MatchmakingConfig::for_tests();
    config.common.redis = gamehub_testkit::redis::redis_target();
    config.matcher.interval = Duration::from_millis(20);
    config.matcher.reaper_interval = Duration::from_millis(100);
    config.watch.poll_interval = Duration::from_millis(200);
    config
}

/// Starts matchmaking with `config` and these peers.
pub async fn spawn_with(
    config: MatchmakingConfig,
    eligibility: Arc<dyn Eligibility>,
    tables: Arc<dyn TableOpener>,
) -> TestMatchmaking {
    let keys = config.common.keys.clone();
    let server =
        TestServer::start(|shutdown| crate::start_with(config, shutdown, eligibility, tables))
            .await;
    TestMatchmaking { server, keys }
}

/// Starts matchmaking against the real services named in `config`.
pub async fn spawn_real(config: MatchmakingConfig) -> TestMatchmaking {
    let keys = config.common.keys.clone();
    let server = TestServer::start(|shutdown| crate::start(config, shutdown)).await;
    TestMatchmaking { server, keys }
}

impl TestMatchmaking {
    /// Its URL.
    pub fn url(&self) -> &str {
        &self.server.url
    }

    /// A token for `subject` in `role`.
    pub fn token(&self, subject: &str, role: Role) -> String {
        gamehub_testkit::tokens::token(&self.keys, subject, role)
    }

    /// A client acting as `player`.
    pub fn player(&self, player: &str) -> Client {
        Client::new(gamehub_testkit::tokens::channel(
            self.url(),
            &self.keys,
            player,
            Role::Player,
        ))
    }
}
