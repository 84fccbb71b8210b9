//! The shared gRPC server and settler over real sockets: authentication, health,
//! reflection, the per-player rate limit, graceful shutdown, and exactly-once
//! settlement delivery through a ledger that is down for a while.
#![allow(clippy::unwrap_used)] // test helpers fail loudly on broken fixtures

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gamehub_platform::auth::{Keys, Role};
use gamehub_platform::client::{TokenSource, check_health, service_channel};
use gamehub_platform::config::CommonConfig;
use gamehub_platform::server::{GrpcServer, Shutdown};
use gamehub_platform::tables::settler::{SettlerConfig, run_settler};
use gamehub_platform::tables::{Change, OutboxEntry, StoreLimits, TableStore};
use gamehub_platform::{ApiError, Clock};
use gamehub_proto::ledger::ledger_service_client::LedgerServiceClient;
use gamehub_proto::ledger::ledger_service_server::LedgerServiceServer;
use gamehub_proto::ledger::*;
use gamehub_testkit::clock::eventually;
use gamehub_testkit::stub_ledger::StubLedger;
use tonic::{Code, Status};

struct Fixture {
    addr: SocketAddr,
    keys: Keys,
    shutdown: Shutdown,
    ledger: StubLedger,
}

async fn spawn(config: CommonConfig) -> Fixture {
    let shutdown = Shutdown::new();
    let ledger = StubLedger::default();
    ledger.refuse("bad-3");
    let server = GrpcServer::new("fake-ledger", &config, shutdown.clone())
        .add_service(LedgerServiceServer::new(ledger.clone()));
    let (addr, _task) = server.spawn("127.0.0.1:0".parse().unwrap()).await.unwrap();
    Fixture {
        addr,
        keys: config.keys.clone(),
        shutdown,
        ledger,
    }
}

impl Fixture {
    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn client_as(
        &self,
        subject: &str,
        role: Role,
    ) -> LedgerServiceClient<gamehub_platform::client::ServiceChannel> {
        let token = self
            .keys
            .mint(subject, role, Duration::from_secs(60))
            .unwrap();
        LedgerServiceClient::new(
            service_channel(
                &self.url(),
                TokenSource::Static(token),
                Duration::from_secs(5),
            )
            .unwrap(),
        )
    }
}

#[tokio::test]
async fn calls_without_a_valid_token_are_unauthenticated() {
    let fx = spawn(CommonConfig::for_tests()).await;
    let channel = gamehub_platform::client::channel(&fx.url(), Duration::from_secs(5)).unwrap();
    let mut anonymous = LedgerServiceClient::new(channel.clone());
    let status = anonymous
        .get_account(GetAccountRequest::default())
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::Unauthenticated);
    assert!(status.message().contains("Bearer"), "{}", status.message());

    let forged = Keys::new(&gamehub_platform::config::Secret::new("not-the-key"))
        .mint("alice", Role::Operator, Duration::from_secs(60))
        .unwrap();
    let mut forger =
        LedgerServiceClient::new(tonic::service::interceptor::InterceptedService::new(
            channel,
            gamehub_platform::client::OutgoingInterceptor::new(TokenSource::Static(forged)),
        ));
    let status = forger
        .get_account(GetAccountRequest::default())
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::Unauthenticated);
    assert!(
        status.message().contains("signature"),
        "{}",
        status.message()
    );
    fx.shutdown.trigger();
}

#[tokio::test]
async fn a_valid_token_reaches_the_handler_as_a_typed_caller() {
    let fx = spawn(CommonConfig::for_tests()).await;
    let account = fx
        .client_as("alice", Role::Player)
        .get_account(GetAccountRequest::default())
        .await
        .unwrap()
        .into_inner()
        .account
        .unwrap();
    assert_eq!(account.player_id, "alice/player");
    fx.shutdown.trigger();
}

#[tokio::test]
async fn health_and_reflection_need_no_token() {
    let fx = spawn(CommonConfig::for_tests()).await;
    assert!(check_health(&fx.url(), "").await.unwrap());
    assert!(
        check_health(&fx.url(), "gamehub.ledger.v1.LedgerService")
            .await
            .unwrap()
    );

    use tonic_reflection::pb::v1::ServerReflectionRequest;
    use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
    use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;
    let channel = gamehub_platform::client::channel(&fx.url(), Duration::from_secs(5)).unwrap();
    let mut reflection = ServerReflectionClient::new(channel);
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut responses = reflection
        .server_reflection_info(tokio_stream::iter(vec![request]))
        .await
        .unwrap()
        .into_inner();
    let response = responses.message().await.unwrap().unwrap();
    let Some(MessageResponse::ListServicesResponse(list)) = response.message_response else {
        panic!("expected a service list");
    };
    let names: Vec<_> = list.service.iter().map(|s| s.name.as_str()).collect();
    assert!(
        names.contains(&"gamehub.ledger.v1.LedgerService"),
        "{names:?}"
    );
    fx.shutdown.trigger();
}

#[tokio::test]
async fn a_flooding_player_is_limited_while_others_are_served() {
    let mut config = CommonConfig::for_tests();
    config.limits.player_rate_per_second = 5;
    config.limits.player_rate_burst = 5;
    let fx = spawn(config).await;
    let mut flooder = fx.client_as("flooder", Role::Player);
    let mut limited = 0;
    let mut hint = None;
    for _ in 0..30 {
        match flooder.get_account(GetAccountRequest::default()).await {
            Ok(_) => {}
            Err(status) => {
                assert_eq!(status.code(), Code::ResourceExhausted);
                hint = status
                    .metadata()
                    .get(gamehub_platform::error::RETRY_AFTER_MS)
                    .and_then(|v| v.to_str().ok().map(str::to_owned));
                limited += 1;
            }
        }
    }
    assert!(
        limited >= 20,
        "the flooder was limited {limited} times of 30"
    );
    assert!(
        hint.is_some_and(|ms| ms.parse::<u64>().unwrap() > 0),
        "a retry hint is given"
    );
    let mut other = fx.client_as("quiet", Role::Player);
    assert!(
        other
            .get_account(GetAccountRequest::default())
            .await
            .is_ok()
    );
    let mut service = fx.client_as("referee", Role::Service);
    for _ in 0..20 {
        assert!(
            service
                .get_account(GetAccountRequest::default())
                .await
                .is_ok(),
            "services are not limited"
        );
    }
    fx.shutdown.trigger();
}

#[tokio::test]
async fn shutdown_reports_not_serving_before_stopping() {
    let mut config = CommonConfig::for_tests();
    config.limits.shutdown_drain_delay = Duration::from_millis(500);
    let fx = spawn(config).await;
    assert!(check_health(&fx.url(), "").await.unwrap());
    fx.shutdown.trigger();
    let during = eventually(
        "NOT_SERVING after the trigger",
        Duration::from_secs(10),
        || async {
            check_health(&fx.url(), "")
                .await
                .ok()
                .filter(|serving| !serving)
        },
    )
    .await;
    assert!(!during, "NOT_SERVING during the drain delay");
    eventually("the server stopped", Duration::from_secs(10), || async {
        check_health(&fx.url(), "").await.is_err().then_some(())
    })
    .await;
    assert!(
        check_health(&fx.url(), "").await.is_err(),
        "stopped after the drain"
    );
}

fn settle_request(game_id: &str, table_id: &str) -> SettleGameRequest {
    SettleGameRequest {
        game_id: game_id.into(),
        table_id: table_id.into(),
        ..Default::default()
    }
}

#[tokio::test]
async fn a_settlement_waits_out_a_ledger_outage_and_is_delivered_once() {
    let fx = spawn(CommonConfig::for_tests()).await;
    fx.ledger.down.store(true, Ordering::SeqCst);
    let game: &'static str =
        Box::leak(format!("test{}", uuid::Uuid::new_v4().simple()).into_boxed_str());
    let store = TableStore::new(
        gamehub_testkit::redis::connect().await,
        "gh",
        game,
        StoreLimits::default(),
        Clock::system(),
    );
    for (game_id, table_id) in [("g1", "t1"), ("g2", "t2"), ("bad-3", "t3")] {
        let mut change = Change::new(vec![], None, ());
        change.settlement = Some(OutboxEntry::new(
            &settle_request(game_id, table_id),
            store.clock().now_ms(),
        ));
        change.close = true;
        store.create(table_id, &0u8, change, None).await.unwrap();
    }
    assert_eq!(store.settlement_backlog().await.unwrap(), 3);

    let token = TokenSource::service(
        fx.keys.clone(),
        gamehub_terms::games::GOMOKU.service.identity,
    );
    let ledger = LedgerServiceClient::new(
        service_channel(&fx.url(), token, Duration::from_secs(5)).unwrap(),
    );
    let config = SettlerConfig {
        interval: Duration::from_millis(20),
        min_backoff: Duration::from_millis(20),
        max_backoff: Duration::from_millis(100),
        ..SettlerConfig::default()
    };
    let acknowledged = Arc::new(Mutex::new(Vec::new()));
    let seen = acknowledged.clone();
    let on_settled: gamehub_platform::tables::settler::OnSettled =
        Arc::new(move |entry, _acknowledgement| {
            seen.lock().unwrap().push(entry.game_id);
            Box::pin(async { Ok(()) })
        });
    // Two settlers, as two replicas would run.
    for _ in 0..2 {
        tokio::spawn(run_settler(
            store.clone(),
            ledger.clone(),
            config.clone(),
            Some(on_settled.clone()),
            fx.shutdown.listener(),
        ));
    }
    eventually(
        "the settlers kept trying",
        Duration::from_secs(10),
        || async { (fx.ledger.calls.load(Ordering::SeqCst) >= 2).then_some(()) },
    )
    .await;
    assert!(
        fx.ledger.calls.load(Ordering::SeqCst) >= 2,
        "the settlers kept trying"
    );
    assert_eq!(
        store.settlement_backlog().await.unwrap(),
        3,
        "nothing is lost while the ledger is down"
    );

    fx.ledger.down.store(false, Ordering::SeqCst);
    eventually(
        "the backlog drains once the ledger is back",
        Duration::from_secs(10),
        || async { (store.settlement_backlog().await.unwrap() == 0).then_some(()) },
    )
    .await;
    let settled = fx.ledger.settled.lock().unwrap().clone();
    assert_eq!(settled.get("g1"), Some(&1), "g1 applied once: {settled:?}");
    assert_eq!(settled.get("g2"), Some(&1), "g2 applied once: {settled:?}");
    assert!(!settled.contains_key("bad-3"));
    let mut acked = acknowledged.lock().unwrap().clone();
    acked.sort();
    assert_eq!(acked, vec!["g1".to_string(), "g2".to_string()]);
    let mut conn = store.redis();
    let dead: u64 = redis::cmd("HLEN")
        .arg(format!(
            "gh:{{{}:{:02}}}:outbox-dead",
            game,
            gamehub_platform::tables::shard_of("t3")
        ))
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(dead, 1, "the refused settlement waits for an operator");
    fx.shutdown.trigger();
}

#[test]
fn api_errors_map_to_codes() {
    let cases = [
        (ApiError::InvalidArgument("x".into()), Code::InvalidArgument),
        (ApiError::NotFound("x".into()), Code::NotFound),
        (
            ApiError::FailedPrecondition("x".into()),
            Code::FailedPrecondition,
        ),
        (
            ApiError::PermissionDenied("x".into()),
            Code::PermissionDenied,
        ),
        (ApiError::Aborted("x".into()), Code::Aborted),
    ];
    for (err, code) in cases {
        assert_eq!(Status::from(err).code(), code);
    }
}

/// HSCAN calls a Redis has answered (`INFO commandstats`): each settler scan sends one
/// per shard.
fn hscans(redis: &gamehub_testkit::redis_server::OwnRedis) -> u64 {
    let stats = redis.cli(&["INFO", "commandstats"]);
    stats
        .lines()
        .find_map(|line| line.strip_prefix("cmdstat_hscan:calls="))
        .and_then(|rest| rest.split(',').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

#[tokio::test]
async fn a_settlement_leaves_redis_only_once_its_ending_is_durable() {
    // A Redis of this test's own (engineer "durability": ports 22100–22199, below the
    // ephemeral range) that fsyncs
    // its AOF once a second.
    let redis = gamehub_testkit::redis_server::OwnRedis::start(
        "durability-gate",
        22111,
        &["--appendfsync", "everysec"],
    );
    let fx = spawn(CommonConfig::for_tests()).await;
    let store = TableStore::new(
        gamehub_platform::redis_conn::connect(&gamehub_platform::RedisTarget::single(&redis.url()))
            .await
            .unwrap(),
        "gh",
        "gate",
        StoreLimits::default(),
        Clock::system(),
    );
    let mut change = Change::new(vec![], None, ());
    change.settlement = Some(OutboxEntry::new(
        &settle_request("gate-1", "gate-t1"),
        store.clock().now_ms(),
    ));
    store.create("gate-t1", &0u8, change, None).await.unwrap();
    let token = TokenSource::service(
        fx.keys.clone(),
        gamehub_terms::games::GOMOKU.service.identity,
    );
    let ledger = LedgerServiceClient::new(
        service_channel(&fx.url(), token, Duration::from_secs(5)).unwrap(),
    );
    let settler = |durability| SettlerConfig {
        interval: Duration::from_millis(20),
        durability,
        ..SettlerConfig::default()
    };

    // everysec, with a margin no test outlives: the entry is seen, scan after scan, and
    // never sent.
    let held = Shutdown::new();
    tokio::spawn(run_settler(
        store.clone(),
        ledger.clone(),
        settler(gamehub_platform::tables::settler::Durability::Auto {
            margin: Duration::from_secs(3600),
        }),
        None,
        held.listener(),
    ));
    let before = hscans(&redis);
    tokio::time::timeout(Duration::from_secs(30), async {
        while hscans(&redis) < before + 10 * 32 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the settler scans");
    assert_eq!(
        fx.ledger.calls.load(Ordering::SeqCst),
        0,
        "sent before durable"
    );
    assert_eq!(store.settlement_backlog().await.unwrap(), 1);
    held.trigger();

    // appendfsync always: acknowledged means on disk, and the entry goes at once.
    assert_eq!(redis.cli(&["CONFIG", "SET", "appendfsync", "always"]), "OK");
    tokio::spawn(run_settler(
        store.clone(),
        ledger,
        settler(gamehub_platform::tables::settler::Durability::Auto {
            margin: Duration::from_secs(3600),
        }),
        None,
        fx.shutdown.listener(),
    ));
    tokio::time::timeout(Duration::from_secs(30), async {
        while store.settlement_backlog().await.unwrap() > 0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("delivered once durable");
    assert_eq!(fx.ledger.calls.load(Ordering::SeqCst), 1);
    fx.shutdown.trigger();
}
