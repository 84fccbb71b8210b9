//! What a browser sends: a gRPC-Web call through the layer every gamehub server puts in
//! front of its services (`grpc_web::browser_layer`: CORS, then gRPC-Web turned into
//! gRPC, base64 text mode decoded), into a generated tonic server that de-frames the
//! body (5-byte frame headers, the 1 MiB message limit the services set) and decodes the
//! message; then the answer turned back into gRPC-Web and read to its end. Also the
//! allowed origins (`GAMEHUB_CORS_ORIGINS`) and a page's `Origin` header.
//!
//! Input: byte 0 picks the content type, the `accept` header, HTTP/1.1 or HTTP/2, the
//! method and whether an `Origin` header is sent; byte 1 the size of the body's chunks
//! (0: one chunk), so base64 and frames are cut anywhere; the rest is the body, and as
//! text the origins list and an origin.
#![no_main]

use std::convert::Infallible;
use std::sync::LazyLock;

use bytes::Bytes;
use gamehub_platform::config::{Env, Environment};
use gamehub_platform::grpc_web::{AllowedOrigins, CORS_ORIGINS_VAR, browser_layer};
use http::{Method, Request, Version};
use http_body::Frame;
use http_body_util::{BodyExt, StreamBody};
use libfuzzer_sys::fuzz_target;
use tower::util::BoxCloneSyncService;
use tower::{Layer, ServiceExt};

/// The request size every gamehub service allows (`ServerLimits::max_message_bytes`).
const MAX_MESSAGE_BYTES: usize = 1024 * 1024;

/// Content types a browser (or anything else) may send.
const CONTENT_TYPES: [&str; 8] = [
    "application/grpc-web",
    "application/grpc-web+proto",
    "application/grpc-web-text",
    "application/grpc-web-text+proto",
    "application/grpc",
    "application/grpc+proto",
    "application/json",
    "",
];

static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime")
});

/// Development: pages on this machine may call, as a developer's server allows.
static ORIGINS: LazyLock<AllowedOrigins> = LazyLock::new(|| {
    AllowedOrigins::from_env(
        &Env::from_pairs::<_, &str, &str>([]),
        Environment::Development,
    )
    .expect("no variable, no error")
});

/// The body a request carries: the input's chunks.
type ChunkedBody =
    StreamBody<futures::stream::Iter<std::vec::IntoIter<Result<Frame<Bytes>, Infallible>>>>;

/// The server under test, built once: the browser layer over a generated tonic server.
static SERVICE: LazyLock<
    BoxCloneSyncService<Request<ChunkedBody>, http::Response<tonic::body::Body>, Infallible>,
> = LazyLock::new(|| {
    let (_reporter, health) = tonic_health::server::health_reporter();
    let server = health.max_decoding_message_size(MAX_MESSAGE_BYTES);
    BoxCloneSyncService::new(browser_layer(&ORIGINS).layer(server))
});

fuzz_target!(|data: &[u8]| {
    let Some((&choice, rest)) = data.split_first() else {
        return;
    };
    let Some((&chunk, body)) = rest.split_first() else {
        return;
    };
    if let Some(text) = gamehub_fuzz::text(body) {
        origins(text);
    }
    RUNTIME.block_on(call(choice, usize::from(chunk), body));
});

/// The allowed origins read from `text`, and `text` as a page's origin.
fn origins(text: &str) {
    let env = Env::from_pairs([(CORS_ORIGINS_VAR, text)]);
    for environment in [Environment::Development, Environment::Production] {
        if let Ok(origins) = AllowedOrigins::from_env(&env, environment) {
            let _ = origins.allows(text);
            let _ = origins.is_none();
        }
    }
    let _ = ORIGINS.allows(text);
}

async fn call(choice: u8, chunk: usize, body: &[u8]) {
    let content_type = CONTENT_TYPES[usize::from(choice & 7)];
    let accept = CONTENT_TYPES[usize::from((choice >> 3) & 3)];
    let version = if choice & 0x20 == 0 {
        Version::HTTP_11
    } else {
        Version::HTTP_2
    };
    let method = if choice & 0x40 == 0 {
        Method::POST
    } else {
        Method::GET
    };
    let chunk = if chunk == 0 { body.len().max(1) } else { chunk };
    let chunks: Vec<Result<Frame<Bytes>, Infallible>> = body
        .chunks(chunk)
        .map(|c| Ok(Frame::data(Bytes::copy_from_slice(c))))
        .collect();
    let mut request = Request::builder()
        .method(method)
        .version(version)
        .uri("/grpc.health.v1.Health/Check")
        .header("content-type", content_type)
        .header("accept", accept)
        .header("x-grpc-web", "1");
    if choice & 0x80 != 0 {
        request = request.header("origin", "http://localhost:5173");
    }
    let request = request
        .body(StreamBody::new(futures::stream::iter(chunks)))
        .expect("a well-formed request");

    let Ok(response) = SERVICE.clone().oneshot(request).await;
    // Read the answer to its end, trailers included (an error reading is an answer too).
    let _ = response.into_body().collect().await;
}
