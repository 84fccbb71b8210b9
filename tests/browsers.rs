//! Browsers over the real sockets: gRPC-Web calls (HTTP/1.1, as a page makes them) meet
//! the same authentication, message limit, rate limit and metrics as native calls on
//! every player-facing service, server streams included; CORS answers the allowed pages
//! only; and the web server hands out the client, its configuration and, in
//! development only, tokens.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use gamehub_drive::api::request_id;
use gamehub_platform::auth::Role;
use gamehub_platform::metrics::metrics;
use gamehub_proto::doudizhu as ddz;
use gamehub_proto::gomoku as gm;
use gamehub_proto::ledger as lg;
use gamehub_proto::matchmaking as mm;
use gamehub_testkit::grpc_web::{self as web, LOCAL_PAGE};
use gamehub_testkit_services::platform::TestPlatform;
use prost::Message;

const UNAUTHENTICATED: i32 = 16;
const OUT_OF_RANGE: i32 = 11;
const RESOURCE_EXHAUSTED: i32 = 8;
const OK: i32 = 0;

fn token(tp: &TestPlatform, subject: &str, role: Role) -> String {
    tp.config
        .keys
        .clone()
        .mint(subject, role, Duration::from_secs(600))
        .unwrap()
}

fn calls(rpc: &str, code: &str) -> u64 {
    metrics().rpc_requests.with_label_values(&[rpc, code]).get()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn grpc_web_calls_meet_the_same_auth_limits_and_metrics_as_native_ones() {
    let tp = TestPlatform::start(&[
        ("GAMEHUB_MAX_MESSAGE_BYTES", "65536"),
        ("GAMEHUB_PLAYER_RATE_PER_SECOND", "1"),
        ("GAMEHUB_PLAYER_RATE_BURST", "4"),
    ])
    .await
    .unwrap();
    let e = tp.endpoints.clone();
    const LIST_ROOMS: &str = "/gamehub.matchmaking.v1.MatchmakingService/ListRooms";

    // No token: UNAUTHENTICATED, counted like a native call, readable by the page.
    let refused_before = calls(LIST_ROOMS, "UNAUTHENTICATED");
    let call = web::call(
        &e.matchmaking,
        LIST_ROOMS,
        None,
        LOCAL_PAGE,
        &mm::ListRoomsRequest {},
        &[],
    )
    .await
    .finish()
    .await;
    assert_eq!(call.status, Some(UNAUTHENTICATED), "{}", call.message);
    assert!(call.message.contains("bearer"), "{}", call.message);
    assert_eq!(call.header("access-control-allow-origin"), LOCAL_PAGE);
    assert!(
        call.header("access-control-expose-headers")
            .contains("grpc-status")
    );
    assert!(
        calls(LIST_ROOMS, "UNAUTHENTICATED") > refused_before,
        "metrics saw it"
    );

    // With a player token: the answer, framed for the browser, then an OK trailer.
    let alice = token(&tp, "web-alice", Role::Player);
    let ok_before = calls(LIST_ROOMS, "OK");
    let call = web::call(
        &e.matchmaking,
        LIST_ROOMS,
        Some(&alice),
        LOCAL_PAGE,
        &mm::ListRoomsRequest {},
        &[],
    )
    .await
    .finish()
    .await;
    assert_eq!(call.status, Some(OK), "{}", call.message);
    let rooms = mm::ListRoomsResponse::decode(call.messages[0].clone())
        .unwrap()
        .rooms;
    assert!(
        rooms.iter().any(|r| r.room_id == "gomoku-renju"),
        "{rooms:?}"
    );
    assert!(calls(LIST_ROOMS, "OK") > ok_before);

    // Larger than the message limit: OUT_OF_RANGE on every service, nothing changed.
    let operator = token(&tp, "web-operator", Role::Operator);
    let big = "x".repeat(70_000);
    let oversized = [
        (
            &e.ledger,
            "/gamehub.ledger.v1.LedgerService/GrantSilver",
            operator.clone(),
            lg::GrantSilverRequest {
                request_id: request_id(),
                player_id: "web-bob".into(),
                amount_silver: 1000,
                reason: big.clone(),
            }
            .encode_to_vec(),
        ),
        (
            &e.matchmaking,
            "/gamehub.matchmaking.v1.MatchmakingService/Enqueue",
            token(&tp, "web-big-1", Role::Player),
            mm::EnqueueRequest {
                room_id: big.clone(),
                request_id: request_id(),
                player_id: String::new(),
            }
            .encode_to_vec(),
        ),
        (
            &e.gomoku,
            "/gamehub.gomoku.v1.GomokuService/GetTable",
            token(&tp, "web-big-2", Role::Player),
            gm::GetTableRequest {
                table_id: big.clone(),
            }
            .encode_to_vec(),
        ),
        (
            &e.doudizhu,
            "/gamehub.doudizhu.v1.DoudizhuService/GetTable",
            token(&tp, "web-big-3", Role::Player),
            ddz::GetTableRequest {
                table_id: big.clone(),
                as_spectator: false,
            }
            .encode_to_vec(),
        ),
    ];
    for (base, path, token, body) in oversized {
        let call = web::call(base, path, Some(&token), LOCAL_PAGE, &RawMessage(body), &[])
            .await
            .finish()
            .await;
        assert_eq!(call.status, Some(OUT_OF_RANGE), "{path}: {}", call.message);
        assert!(
            call.message.contains("too large"),
            "{path}: {}",
            call.message
        );
    }
    let account = tp
        .clients("web-operator", Role::Operator)
        .ledger
        .get_account(lg::GetAccountRequest {
            player_id: "web-bob".into(),
        })
        .await
        .unwrap()
        .into_inner()
        .account
        .unwrap();
    assert_eq!(account.balance_silver, 0, "the refused grant moved nothing");

    // The per-player rate limit: past the burst, RESOURCE_EXHAUSTED with a retry hint
    // the page may read.
    let carol = token(&tp, "web-carol", Role::Player);
    let limited_before = metrics().rate_limited.get();
    let mut limited = None;
    for _ in 0..8 {
        let call = web::call(
            &e.ledger,
            "/gamehub.ledger.v1.LedgerService/GetAccount",
            Some(&carol),
            LOCAL_PAGE,
            &lg::GetAccountRequest::default(),
            &[],
        )
        .await
        .finish()
        .await;
        if call.status == Some(RESOURCE_EXHAUSTED) {
            limited = Some(call);
            break;
        }
        assert_eq!(call.status, Some(OK), "{}", call.message);
    }
    let limited = limited.expect("the rate limit applies to gRPC-Web calls");
    assert!(
        limited.message.contains("too many requests"),
        "{}",
        limited.message
    );
    assert!(limited.header("retry-after-ms").parse::<u64>().unwrap() > 0);
    assert!(
        limited
            .header("access-control-expose-headers")
            .contains("retry-after-ms")
    );
    assert!(metrics().rate_limited.get() > limited_before);

    // Server streams: WatchTicket follows a ticket to its end.
    let mut dave = tp.clients("web-dave", Role::Player);
    let ticket = dave
        .matchmaking
        .enqueue(mm::EnqueueRequest {
            room_id: "gomoku-free".into(),
            request_id: request_id(),
            player_id: String::new(),
        })
        .await
        .unwrap()
        .into_inner()
        .ticket
        .unwrap();
    let mut stream = web::call(
        &e.matchmaking,
        "/gamehub.matchmaking.v1.MatchmakingService/WatchTicket",
        Some(&token(&tp, "web-dave", Role::Player)),
        LOCAL_PAGE,
        &mm::WatchTicketRequest {
            ticket_id: ticket.ticket_id.clone(),
        },
        &[],
    )
    .await;
    let first =
        mm::WatchTicketResponse::decode(stream.next(Duration::from_secs(10)).await.unwrap())
            .unwrap();
    assert_eq!(first.ticket.unwrap().state, mm::TicketState::Waiting as i32);
    dave.matchmaking
        .cancel_ticket(mm::CancelTicketRequest {
            ticket_id: ticket.ticket_id.clone(),
        })
        .await
        .unwrap();
    let mut last = None;
    while let Some(message) = stream.next(Duration::from_secs(10)).await {
        last = Some(mm::WatchTicketResponse::decode(message).unwrap());
    }
    assert_eq!(
        last.unwrap().ticket.unwrap().state,
        mm::TicketState::Cancelled as i32
    );
    assert_eq!(stream.status, Some(OK), "{}", stream.message);

    // Watch: a snapshot, then each event as it happens, over one HTTP/1.1 response.
    let table_id = tp.open_free_gomoku_table("web-black", "web-white").await;
    let mut watch = web::call(
        &e.gomoku,
        "/gamehub.gomoku.v1.GomokuService/Watch",
        Some(&token(&tp, "web-spectator", Role::Player)),
        LOCAL_PAGE,
        &gm::WatchRequest {
            table_id: table_id.clone(),
            after_event_id: 0,
        },
        &[],
    )
    .await;
    let snapshot =
        gm::WatchResponse::decode(watch.next(Duration::from_secs(10)).await.unwrap()).unwrap();
    assert!(matches!(
        snapshot.item,
        Some(gm::watch_response::Item::Table(_))
    ));
    tp.clients("web-black", Role::Player)
        .gomoku
        .place_stone(gm::PlaceStoneRequest {
            table_id: table_id.clone(),
            request_id: request_id(),
            point: Some(gm::Point {
                text: "h8".into(),
                x: 0,
                y: 0,
            }),
            known_stones: 0,
            known_game: 0,
        })
        .await
        .unwrap();
    let placed = loop {
        let item =
            gm::WatchResponse::decode(watch.next(Duration::from_secs(10)).await.unwrap()).unwrap();
        if let Some(gm::watch_response::Item::Event(gm::TableEvent {
            kind: Some(gm::table_event::Kind::StonePlaced(placed)),
            ..
        })) = item.item
        {
            break placed;
        }
    };
    assert_eq!(placed.stone.unwrap().point.unwrap().text, "h8");

    // The Dou Dizhu dealer's stream too (a table nobody sits at is NOT_FOUND, in words).
    let call = web::call(
        &e.doudizhu,
        "/gamehub.doudizhu.v1.DoudizhuService/Watch",
        Some(&token(&tp, "web-spectator", Role::Player)),
        LOCAL_PAGE,
        &ddz::WatchRequest {
            table_id: "ddz-000000000000000000000000".into(),
            after_event_id: 0,
            as_spectator: true,
        },
        &[],
    )
    .await
    .finish()
    .await;
    assert_eq!(call.status, Some(5), "{}", call.message);
    tp.stop().await;
}

/// An already encoded request (to send bytes the generated types would not make).
struct RawMessage(Vec<u8>);

impl std::fmt::Debug for RawMessage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RawMessage({} bytes)", self.0.len())
    }
}

impl Message for RawMessage {
    fn encode_raw(&self, buf: &mut impl bytes::BufMut) {
        buf.put_slice(&self.0);
    }
    fn merge_field(
        &mut self,
        _: u32,
        _: prost::encoding::WireType,
        _: &mut impl bytes::Buf,
        _: prost::encoding::DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        Ok(())
    }
    fn encoded_len(&self) -> usize {
        self.0.len()
    }
    fn clear(&mut self) {
        self.0.clear();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn cors_answers_the_allowed_pages_only_and_development_tokens_stay_in_development() {
    let tp = TestPlatform::start(&[("GAMEHUB_CORS_ORIGINS", "https://play.example.com")])
        .await
        .unwrap();
    let e = tp.endpoints.clone();
    let services = [
        (
            &e.matchmaking,
            "/gamehub.matchmaking.v1.MatchmakingService/ListRooms",
        ),
        (&e.gomoku, "/gamehub.gomoku.v1.GomokuService/GetTable"),
        (&e.doudizhu, "/gamehub.doudizhu.v1.DoudizhuService/Watch"),
        (&e.ledger, "/gamehub.ledger.v1.LedgerService/GetAccount"),
    ];
    for (base, path) in services {
        for page in [
            LOCAL_PAGE,
            "http://127.0.0.1:8080",
            "https://play.example.com",
        ] {
            let answer = web::preflight(base, path, page).await;
            let headers = answer.headers();
            assert!(
                answer.status().is_success(),
                "{path} from {page}: {}",
                answer.status()
            );
            assert_eq!(
                headers.get("access-control-allow-origin").unwrap(),
                page,
                "{path}"
            );
            let allowed = headers
                .get("access-control-allow-headers")
                .unwrap()
                .to_str()
                .unwrap();
            assert!(
                allowed.contains("authorization") && allowed.contains("x-grpc-web"),
                "{allowed}"
            );
            assert!(
                headers
                    .get("access-control-allow-methods")
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .contains("POST")
            );
        }
        for page in [
            "https://evil.example",
            "http://localhost.evil.example",
            "null",
        ] {
            let answer = web::preflight(base, path, page).await;
            assert!(
                answer
                    .headers()
                    .get("access-control-allow-origin")
                    .is_none(),
                "{path} must not allow {page}"
            );
        }
    }

    // The web server: the client, its configuration named by the page's host, tokens.
    let site = format!("http://{}", tp.platform.web.addr);
    let (status, headers, body) = web::http("GET", &format!("{site}/")).await;
    assert_eq!(status, 200);
    assert!(
        headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    assert!(body.contains("app.js"), "{body}");
    let (status, headers, body) = web::http("GET", &format!("{site}/app.js")).await;
    assert_eq!(status, 200);
    assert!(
        headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/javascript")
    );
    assert!(body.len() > 10_000, "the built client, not a placeholder");
    let (_, _, config) = web::http("GET", &format!("{site}/config.json")).await;
    let config: serde_json::Value = serde_json::from_str(&config).unwrap();
    let port = e.gomoku.rsplit(':').next().unwrap();
    assert_eq!(
        config["services"]["gomoku"],
        format!("http://127.0.0.1:{port}")
    );
    assert_eq!(config["devTokens"], true);
    let (status, _, body) = web::http("POST", &format!("{site}/dev-token?player=web-erin")).await;
    assert_eq!(status, 200, "{body}");
    let minted: serde_json::Value = serde_json::from_str(&body).unwrap();
    let call = web::call(
        &e.ledger,
        "/gamehub.ledger.v1.LedgerService/GetAccount",
        Some(minted["token"].as_str().unwrap()),
        LOCAL_PAGE,
        &lg::GetAccountRequest::default(),
        &[],
    )
    .await
    .finish()
    .await;
    assert_eq!(call.status, Some(OK), "{}", call.message);
    let account = lg::GetAccountResponse::decode(call.messages[0].clone()).unwrap();
    assert_eq!(account.account.unwrap().player_id, "web-erin");
    let (status, _, body) = web::http("POST", &format!("{site}/dev-token?player=bad%20name")).await;
    assert_eq!(status, 400, "{body}");
    let (status, _, _) = web::http("GET", &format!("{site}/nothing-here")).await;
    assert_eq!(status, 404);
    // The client's own CJK font subsets and their licence.
    for font in ["gamehub-sc-ui.woff2", "gamehub-sc-common.woff2"] {
        let (status, headers, body) = web::http("GET", &format!("{site}/fonts/{font}")).await;
        assert_eq!(status, 200, "{font}");
        assert_eq!(headers["content-type"], "font/woff2");
        assert_eq!(headers["cache-control"], "public, max-age=86400");
        assert!(body.starts_with("wOF2"), "{font} is a WOFF2 file");
    }
    let (status, _, body) = web::http("GET", &format!("{site}/fonts/LICENSE-OFL.txt")).await;
    assert_eq!(status, 200);
    assert!(body.contains("SIL OPEN FONT LICENSE"), "{body}");
    tp.stop().await;

    // GAMEHUB_WEB_DIR: the client's files read from a directory on each request (for
    // front-end work), only under the client's own names; a missing file falls back.
    let dir = std::env::temp_dir().join(format!("gamehub-web-dir-{}", request_id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("app.js"), "console.log('from the directory');").unwrap();
    std::fs::write(dir.join("secret.txt"), "not served").unwrap();
    let tp = TestPlatform::start(&[("GAMEHUB_WEB_DIR", dir.to_str().unwrap())])
        .await
        .unwrap();
    let site = format!("http://{}", tp.platform.web.addr);
    let (status, _, body) = web::http("GET", &format!("{site}/app.js")).await;
    assert_eq!(
        (status.as_u16(), body.as_str()),
        (200, "console.log('from the directory');")
    );
    std::fs::write(dir.join("app.js"), "console.log('rebuilt');").unwrap();
    let (_, _, body) = web::http("GET", &format!("{site}/app.js")).await;
    assert_eq!(
        body, "console.log('rebuilt');",
        "read again on every request"
    );
    let (status, _, body) = web::http("GET", &format!("{site}/")).await;
    assert_eq!(status, 200);
    assert!(
        body.contains("app.js"),
        "index.html missing from the directory: the embedded one"
    );
    for path in ["/secret.txt", "/../secret.txt", "/fonts/../secret.txt"] {
        let (status, _, body) = web::http("GET", &format!("{site}{path}")).await;
        assert_ne!(body, "not served", "{path}");
        assert_ne!(status, 200, "{path}");
    }
    tp.stop().await;
    std::fs::remove_dir_all(&dir).unwrap();

    // Production: no page is allowed unless listed, and no token is minted.
    let keys = gamehub_testkit::tokens::ProductionKeys::generate();
    // Plaintext here, as behind a proxy that terminates TLS (ProductionKeys::env says so).
    let env = keys.env();
    let production: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let tp = TestPlatform::start(&production).await.unwrap();
    let answer = web::preflight(
        &tp.endpoints.matchmaking,
        "/gamehub.matchmaking.v1.MatchmakingService/ListRooms",
        LOCAL_PAGE,
    )
    .await;
    assert!(
        answer
            .headers()
            .get("access-control-allow-origin")
            .is_none()
    );
    let site = format!("http://{}", tp.platform.web.addr);
    let (status, _, body) = web::http("POST", &format!("{site}/dev-token?player=web-frank")).await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("production"), "{body}");
    let (_, _, config) = web::http("GET", &format!("{site}/config.json")).await;
    assert!(config.contains("\"devTokens\":false"), "{config}");
    tp.stop().await;
}
