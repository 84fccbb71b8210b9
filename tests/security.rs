//! Production's keys over the real API: the four services started as production
//! configures them, each with its own JWKS-published key, no shared HMAC key anywhere.
//!
//! - A token signed with the development key is refused; the issuer's EdDSA token works.
//! - A service's key signs only its own service tokens, and the ledger lets a game
//!   service settle only its own game.
//! - The services call each other with their own keys: two players queued are seated
//!   by matchmaking at a table the referee opened, and a resignation is settled by the
//!   ledger.
//! - The issuer's key rotated: during the overlap tokens of both keys are served; once
//!   the old key is retired its tokens are refused, and the platform keeps serving.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use gamehub_drive::api::{Clients, Endpoints, request_id};
use gamehub_platform::auth::jwks::KeySet;
use gamehub_platform::auth::{Keys, Role};
use gamehub_platform::client::TokenSource;
use gamehub_platform::config::{DEVELOPMENT_JWT_SECRET, Env, Secret};
use gamehub_proto::common::GameType;
use gamehub_proto::gomoku as gm;
use gamehub_proto::ledger as lg;
use gamehub_testkit::postgres::ScratchDatabase;
use gamehub_testkit::server::TestServer;
use tonic::Code;

/// The platform, each service with its own configuration.
struct Production {
    ledger: TestServer,
    gomoku: TestServer,
    doudizhu: TestServer,
    matchmaking: TestServer,
    keys: PathBuf,
    _database: ScratchDatabase,
}

impl Production {
    async fn start() -> Production {
        let keys = std::env::temp_dir().join(format!("gamehub-keys-{}", uuid::Uuid::new_v4()));
        gamehub_platform::auth::key_dir::generate(&keys).unwrap();
        let database = ScratchDatabase::fresh("gh_security").await;
        let prefix = gamehub_testkit::redis::fresh_prefix("sec");
        let jwks = keys.join("jwks.json");
        let base = vec![
            ("GAMEHUB_ENV".to_owned(), "production".to_owned()),
            ("GAMEHUB_JWKS".into(), jwks.display().to_string()),
            ("GAMEHUB_JWKS_REFRESH_MS".into(), "200".into()),
            // TLS is not this test's subject: a proxy is said to terminate it.
            ("GAMEHUB_TLS_TERMINATED_BY_PROXY".into(), "true".into()),
            ("DATABASE_URL".into(), database.url.clone()),
            ("REDIS_URL".into(), gamehub_testkit::redis::redis_url()),
            (
                "GAMEHUB_REDIS_CLUSTER".into(),
                gamehub_testkit::redis::redis_cluster().to_string(),
            ),
            ("GAMEHUB_REDIS_PREFIX".into(), prefix),
            ("GAMEHUB_PLAYER_RATE_PER_SECOND".into(), "0".into()),
            ("GAMEHUB_MATCHMAKING_INTERVAL_MS".into(), "20".into()),
            ("GAMEHUB_LEDGER_ADDR".into(), "127.0.0.1:0".into()),
            ("GAMEHUB_GOMOKU_ADDR".into(), "127.0.0.1:0".into()),
            ("GAMEHUB_DOUDIZHU_ADDR".into(), "127.0.0.1:0".into()),
            ("GAMEHUB_MATCHMAKING_ADDR".into(), "127.0.0.1:0".into()),
        ];
        let env = |extra: Vec<(&str, String)>| {
            let mut pairs = base.clone();
            pairs.extend(extra.into_iter().map(|(k, v)| (k.to_owned(), v)));
            Env::from_pairs(pairs)
        };
        let key_of = |name: &str| keys.join(format!("{name}.pem")).display().to_string();

        let config = gamehub_ledger::LedgerConfig::from_env(&env(vec![])).unwrap();
        assert!(
            !config.common.keys.accepts_hmac(),
            "production holds no HMAC key"
        );
        let ledger = TestServer::start(|s| gamehub_ledger::start(config, s)).await;
        let with_ledger = |name: &str| {
            vec![
                ("GAMEHUB_LEDGER_URL", ledger.url.clone()),
                ("GAMEHUB_TOKEN_KEY", key_of(name)),
            ]
        };
        let config =
            gamehub_gomoku_referee::RefereeConfig::from_env(&env(with_ledger("gomoku-referee")))
                .unwrap();
        let gomoku = TestServer::start(|s| gamehub_gomoku_referee::start(config, s)).await;
        let config =
            gamehub_doudizhu_dealer::DealerConfig::from_env(&env(with_ledger("doudizhu-dealer")))
                .unwrap();
        let doudizhu = TestServer::start(|s| gamehub_doudizhu_dealer::start(config, s)).await;
        let mut extra = with_ledger("matchmaking");
        extra.push(("GAMEHUB_GOMOKU_URL", gomoku.url.clone()));
        extra.push(("GAMEHUB_DOUDIZHU_URL", doudizhu.url.clone()));
        let config = gamehub_matchmaking::MatchmakingConfig::from_env(&env(extra)).unwrap();
        let matchmaking = TestServer::start(|s| gamehub_matchmaking::start(config, s)).await;
        Production {
            ledger,
            gomoku,
            doudizhu,
            matchmaking,
            keys,
            _database: database,
        }
    }

    fn endpoints(&self) -> Endpoints {
        Endpoints {
            matchmaking: self.matchmaking.url.clone(),
            gomoku: self.gomoku.url.clone(),
            doudizhu: self.doudizhu.url.clone(),
            ledger: self.ledger.url.clone(),
            tournaments: gamehub_drive::api::NOT_STARTED.into(),
        }
    }

    /// Clients with a token signed by the private key `name` of the keys directory.
    fn clients_signed_by(&self, name: &str, subject: &str, role: Role) -> Clients {
        let token = mint(&self.keys.join(format!("{name}.pem")), subject, role);
        Clients::new(&self.endpoints(), TokenSource::Static(token)).unwrap()
    }

    async fn stop(mut self) {
        for server in [
            &mut self.matchmaking,
            &mut self.gomoku,
            &mut self.doudizhu,
            &mut self.ledger,
        ] {
            server.stop().await;
        }
        std::fs::remove_dir_all(&self.keys).ok();
    }
}

fn mint(pem: &Path, subject: &str, role: Role) -> String {
    let pem = std::fs::read_to_string(pem).unwrap();
    Keys::with_public_keys(KeySet::default(), Some(&pem))
        .unwrap()
        .mint(subject, role, Duration::from_secs(600))
        .unwrap()
}

async fn grant(clients: &mut Clients, player: &str) -> Result<(), tonic::Status> {
    clients
        .ledger
        .grant_silver(lg::GrantSilverRequest {
            request_id: request_id(),
            player_id: player.into(),
            amount_silver: 1_000,
            reason: "security test".into(),
        })
        .await
        .map(|_| ())
}

/// A finished game of `game_type` as its service would report it.
fn finished(game_type: GameType, id: &str) -> lg::SettleGameRequest {
    let players: Vec<String> = ["ann", "ben", "cat"].map(String::from).to_vec();
    let mut rng = rand::rng();
    std::iter::repeat_with(|| {
        gamehub_testkit::settlements::random_game(&mut rng, id.to_owned(), &players)
    })
    .find(|game| game.game_type == game_type as i32)
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn production_trusts_public_keys_only_and_each_service_as_itself() {
    let platform = Production::start().await;

    // The issuer's token works; the development key's is refused.
    let mut operator = platform.clients_signed_by("issuer", "root", Role::Operator);
    grant(&mut operator, "alice").await.unwrap();
    let development = Keys::new(&Secret::new(DEVELOPMENT_JWT_SECRET))
        .mint("root", Role::Operator, Duration::from_secs(600))
        .unwrap();
    let mut forged = Clients::new(&platform.endpoints(), TokenSource::Static(development)).unwrap();
    let err = grant(&mut forged, "alice").await.unwrap_err();
    assert_eq!(err.code(), Code::Unauthenticated, "{err:?}");
    assert!(err.message().contains("HS256"), "{}", err.message());

    // The dealer's own key: its service token is good, but not for a Gomoku game.
    let mut dealer =
        platform.clients_signed_by("doudizhu-dealer", "doudizhu-dealer", Role::Service);
    let err = dealer
        .ledger
        .settle_game(finished(GameType::Gomoku, "sec-g1"))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied, "{err:?}");
    dealer
        .ledger
        .settle_game(finished(GameType::Doudizhu, "sec-d1"))
        .await
        .unwrap();
    // The referee's key cannot speak as the dealer, nor as an operator.
    for (subject, role) in [("doudizhu-dealer", Role::Service), ("root", Role::Operator)] {
        let mut pretender = platform.clients_signed_by("gomoku-referee", subject, role);
        let err = grant(&mut pretender, "alice").await.unwrap_err();
        assert_eq!(err.code(), Code::Unauthenticated, "{subject}: {err:?}");
        assert!(err.message().contains("signs only"), "{}", err.message());
    }
    // Matchmaking's identity may check eligibility but never grant.
    let mut matchmaker = platform.clients_signed_by("matchmaking", "matchmaking", Role::Service);
    let err = grant(&mut matchmaker, "alice").await.unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied, "{err:?}");

    // The services call each other with their own keys: matchmaking seats two players at
    // a table the referee opens; a resignation is settled by the ledger.
    let player = |id: &str| platform.clients_signed_by("issuer", id, Role::Player);
    let (mut alice, mut bob) = (player("alice"), player("bob"));
    let (a, b) = tokio::join!(
        gamehub_drive::matchmaking::seat(&mut alice.matchmaking, "gomoku-free", "", |_| {}),
        gamehub_drive::matchmaking::seat(&mut bob.matchmaking, "gomoku-free", "", |_| {}),
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(a.table_id, b.table_id, "seated together");
    alice
        .gomoku
        .resign(gm::ResignRequest {
            table_id: a.table_id.clone(),
            request_id: request_id(),
        })
        .await
        .unwrap();
    let settled = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let games = operator
                .ledger
                .list_games(lg::ListGamesRequest {
                    player_id: "alice".into(),
                    game_type: GameType::Gomoku as i32,
                    page_size: 10,
                    page_token: String::new(),
                })
                .await
                .unwrap()
                .into_inner();
            if !games.games.is_empty() {
                return games.games.len();
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("the referee's settlement reaches the ledger with its own key");
    assert_eq!(settled, 1);
    platform.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_rotated_issuer_key_serves_both_keys_during_the_overlap() {
    let platform = Production::start().await;
    let old = platform.clients_signed_by("issuer", "root", Role::Operator);
    let mut old_operator = old.clone();
    grant(&mut old_operator, "carol").await.unwrap();

    // Rotate: a new issuer key published beside the old one, no restart.
    let old_kid = gamehub_platform::auth::jwks::public_of_private_pem(
        &std::fs::read_to_string(platform.keys.join("issuer.pem")).unwrap(),
        &gamehub_platform::auth::jwks::Scope::Issuer,
    )
    .unwrap()
    .0;
    gamehub_platform::auth::key_dir::rotate(&platform.keys, "issuer").unwrap();
    let mut new_operator = platform.clients_signed_by("issuer", "root", Role::Operator);
    // The new key's kid is unknown until the file is read again: the first token with
    // it makes the services look (at most once a second), so allow a moment.
    let served = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            if grant(&mut new_operator, "carol").await.is_ok() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    })
    .await;
    assert!(served.is_ok(), "the new key is taken without a restart");
    grant(&mut old_operator, "carol").await.unwrap();
    // The services' own keys are unaffected: a settlement still goes through.
    let mut referee = platform.clients_signed_by("gomoku-referee", "gomoku-referee", Role::Service);
    referee
        .ledger
        .settle_game(finished(GameType::Gomoku, "sec-g2"))
        .await
        .unwrap();

    // Retire the old key: its tokens stop once the services read the file again.
    gamehub_platform::auth::key_dir::retire(&platform.keys, &old_kid).unwrap();
    let retired = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            if let Err(err) = grant(&mut old_operator, "carol").await {
                return err;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("the retired key's tokens are refused within the refresh");
    assert_eq!(retired.code(), Code::Unauthenticated, "{retired:?}");
    grant(&mut new_operator, "carol").await.unwrap();
    platform.stop().await;
}
