//! One trace from a player's move through the referee to the ledger's settlement.
//!
//! The test runs an OTLP trace receiver (the OTLP gRPC trace service from
//! `opentelemetry-proto`), points the platform's exporter at it, plays a Gomoku game
//! to its winning move inside a client span, and checks that the referee's span of
//! that move and the ledger's span of the settlement — delivered later by the settler
//! from the outbox — carry the same trace id; and that a browser's gRPC-Web call joins
//! the trace its page sent.
#![allow(clippy::unwrap_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use gamehub_drive::api::request_id;
use gamehub_platform::auth::Role;
use gamehub_platform::config::{CommonConfig, Env};
use gamehub_proto::gomoku as gm;
use gamehub_testkit::clock::eventually;
use gamehub_testkit_services::platform::TestPlatform;
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use tonic::{Request, Response, Status};
use tracing::Instrument;

/// Spans received: (name, trace id as hex).
#[derive(Clone, Default)]
struct Receiver {
    spans: Arc<Mutex<Vec<(String, String)>>>,
}

#[tonic::async_trait]
impl TraceService for Receiver {
    async fn export(
        &self,
        request: Request<ExportTraceServiceRequest>,
    ) -> Result<Response<ExportTraceServiceResponse>, Status> {
        let mut spans = self.spans.lock().unwrap();
        for resource in request.into_inner().resource_spans {
            for scope in resource.scope_spans {
                for span in scope.spans {
                    let trace_id: String =
                        span.trace_id.iter().map(|b| format!("{b:02x}")).collect();
                    spans.push((span.name, trace_id));
                }
            }
        }
        Ok(Response::new(ExportTraceServiceResponse {
            partial_success: None,
        }))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_move_and_its_settlement_share_one_trace() {
    // The receiver.
    let receiver = Receiver::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let otlp = format!("http://{}", listener.local_addr().unwrap());
    let server = receiver.clone();
    tokio::spawn(async move {
        tonic::transport::Server::builder()
            .add_service(TraceServiceServer::new(server))
            .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener))
            .await
    });

    // Telemetry of this process exports there; the services run in it.
    let telemetry_config = CommonConfig::from_env(&Env::from_pairs([(
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        otlp.as_str(),
    )]))
    .unwrap();
    let telemetry = gamehub_platform::telemetry::init("gamehub-e2e", &telemetry_config).unwrap();
    let tp = TestPlatform::start(&[]).await.unwrap();

    let table_id = tp.open_free_gomoku_table("t-black", "t-white").await;
    let moves = [
        ("t-black", "h8"),
        ("t-white", "a1"),
        ("t-black", "h9"),
        ("t-white", "a2"),
        ("t-black", "h10"),
        ("t-white", "a3"),
        ("t-black", "h11"),
        ("t-white", "a4"),
    ];
    for (who, point) in moves {
        tp.clients(who, Role::Player)
            .gomoku
            .place_stone(gm::PlaceStoneRequest {
                table_id: table_id.clone(),
                request_id: request_id(),
                point: Some(gm::Point {
                    text: point.into(),
                    x: 0,
                    y: 0,
                }),
                known_stones: 0,
                known_game: 0,
            })
            .await
            .unwrap();
    }
    // The winning move, inside the player's own span (as an instrumented client would).
    let span = tracing::info_span!("player move", otel.name = "player: winning move");
    let trace_id = gamehub_platform::telemetry::trace_id_of(&span);
    assert_eq!(trace_id.len(), 32, "the client span has a trace id");
    let mut black = tp.clients("t-black", Role::Player);
    async {
        black
            .gomoku
            .place_stone(gm::PlaceStoneRequest {
                table_id: table_id.clone(),
                request_id: request_id(),
                point: Some(gm::Point {
                    text: "h12".into(),
                    x: 0,
                    y: 0,
                }),
                known_stones: 0,
                known_game: 0,
            })
            .await
    }
    .instrument(span)
    .await
    .unwrap();

    // Wait for the settler to deliver the game to the ledger, then for the spans: the
    // settler's own span ends (and is exported) after the ledger's answer, so it is
    // waited for too.
    let in_trace = |name: &str| {
        let spans = receiver.spans.lock().unwrap();
        spans.iter().any(|(n, t)| n == name && *t == trace_id)
    };
    eventually(
        "the move's and the settlement's spans exported",
        Duration::from_secs(10),
        || {
            telemetry.flush();
            std::future::ready(
                (in_trace("/gamehub.gomoku.v1.GomokuService/PlaceStone")
                    && in_trace("/gamehub.ledger.v1.LedgerService/SettleGame")
                    && in_trace("settle"))
                .then_some(()),
            )
        },
    )
    .await;
    let names: Vec<String> = receiver
        .spans
        .lock()
        .unwrap()
        .iter()
        .filter(|(_, t)| *t == trace_id)
        .map(|(n, _)| n.clone())
        .collect();
    assert!(
        names
            .iter()
            .any(|n| n == "/gamehub.gomoku.v1.GomokuService/PlaceStone"),
        "the referee's span of the move is in the player's trace: {names:?}"
    );
    assert!(
        names
            .iter()
            .any(|n| n == "/gamehub.ledger.v1.LedgerService/SettleGame"),
        "the ledger's settlement span is in the same trace: {names:?}"
    );
    assert!(
        names.iter().any(|n| n == "settle"),
        "the settler's span links them: {names:?}"
    );

    // A browser's gRPC-Web call carries its trace context the same way: the referee's
    // span joins the page's trace.
    let page_trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    let token = tp
        .config
        .keys
        .clone()
        .mint("t-watcher", Role::Player, Duration::from_secs(60))
        .unwrap();
    let call = gamehub_testkit::grpc_web::call(
        &tp.endpoints.gomoku,
        "/gamehub.gomoku.v1.GomokuService/GetTable",
        Some(&token),
        gamehub_testkit::grpc_web::LOCAL_PAGE,
        &gm::GetTableRequest {
            table_id: table_id.clone(),
        },
        &[(
            "traceparent",
            &format!("00-{page_trace}-00f067aa0ba902b7-01"),
        )],
    )
    .await
    .finish()
    .await;
    assert_eq!(call.status, Some(0), "{}", call.message);
    eventually(
        "the gRPC-Web call's span is in the page's trace",
        Duration::from_secs(10),
        || {
            telemetry.flush();
            let joined =
                receiver.spans.lock().unwrap().iter().any(|(n, t)| {
                    n == "/gamehub.gomoku.v1.GomokuService/GetTable" && t == page_trace
                });
            std::future::ready(joined.then_some(()))
        },
    )
    .await;
    tp.stop().await;
}
