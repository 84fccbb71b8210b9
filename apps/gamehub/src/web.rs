//! The web server of `gamehub serve`: the browser client, its configuration and, in
//! development, tokens for it.
//!
//! | path | answer |
//! |---|---|
//! | `/`, `/app.js`, `/app.css` | the client, built from `web/` into `web/dist/` and embedded in this binary (or read from `GAMEHUB_WEB_DIR`) |
//! | `/fonts/gamehub-sc-ui.woff2`, `/fonts/gamehub-sc-common.woff2`, `/fonts/LICENSE-OFL.txt` | the client's CJK font subsets (Noto Sans SC, SIL OFL 1.1) and their licence |
//! | `/config.json` | where the page finds the five services (gRPC-Web) and how it gets a token |
//! | `POST /dev-token?player=NAME` | a development player token for NAME; refused (403) when `GAMEHUB_ENV=production` |
//!
//! The page calls the services directly with gRPC-Web, cross-origin (each service
//! answers CORS for the pages it allows, see `gamehub_platform::grpc_web`). A service
//! that listens on this machine is announced under the host name the browser used for
//! the page, so a page opened as `http://localhost:8080` calls `http://localhost:50051`.
//!
//! With `GAMEHUB_TLS_CERT` and `GAMEHUB_TLS_KEY` set (as `gamehub serve --tls` sets
//! them) the page is served over TLS like the services (the same certificate, reloaded
//! when its files change), and `GAMEHUB_ENV=production` refuses plaintext here as it
//! does for the services.

use std::net::SocketAddr;
use std::time::Duration;

use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::Full;
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use serde_json::json;

use gamehub_platform::auth::Role;
use gamehub_platform::config::{CommonConfig, ConfigError, Env};
use gamehub_platform::server::{Shutdown, Started};

use gamehub_drive::api::Endpoints;

/// The default address of the web client.
pub const DEFAULT_WEB_ADDR: &str = "0.0.0.0:8080";

/// How long a development token lasts.
const DEV_TOKEN_TTL: Duration = Duration::from_secs(24 * 3600);

/// The web server's settings.
#[derive(Debug, Clone)]
pub struct WebConfig {
    /// `GAMEHUB_WEB_ADDR`: where the client is served.
    pub listen: SocketAddr,
    /// `GAMEHUB_WEB_TOKEN_URL`: in production, where the page asks the operator's login
    /// system for its token (told to the page in `/config.json`).
    pub token_url: Option<String>,
    /// `GAMEHUB_WEB_DIR`: for front-end work, a built `web/dist` directory to serve the
    /// client's files from, read on every request (so `npm run build` shows at the next
    /// reload without rebuilding this binary); unset, the embedded files. Only the
    /// client's own file names are served from it.
    pub dir: Option<std::path::PathBuf>,
}

impl WebConfig {
    /// Reads `GAMEHUB_WEB_ADDR`, `GAMEHUB_WEB_TOKEN_URL` and `GAMEHUB_WEB_DIR`.
    pub fn from_env(env: &Env) -> Result<Self, ConfigError> {
        Ok(Self {
            listen: env.addr("GAMEHUB_WEB_ADDR", DEFAULT_WEB_ADDR)?,
            token_url: env.raw("GAMEHUB_WEB_TOKEN_URL"),
            dir: env.raw("GAMEHUB_WEB_DIR").map(std::path::PathBuf::from),
        })
    }
}

/// A file of the built client.
struct Asset {
    path: &'static str,
    content_type: &'static str,
    body: &'static [u8],
}

/// The built client (`web/dist`, committed; CI checks it is what `web/` builds to).
const ASSETS: [Asset; 6] = [
    Asset {
        path: "/",
        content_type: "text/html; charset=utf-8",
        body: include_bytes!("../../../web/dist/index.html"),
    },
    Asset {
        path: "/app.js",
        content_type: "text/javascript; charset=utf-8",
        body: include_bytes!("../../../web/dist/app.js"),
    },
    Asset {
        path: "/app.css",
        content_type: "text/css; charset=utf-8",
        body: include_bytes!("../../../web/dist/app.css"),
    },
    // The client's CJK font subsets (web/fonts/subset.py) and their licence.
    Asset {
        path: "/fonts/gamehub-sc-ui.woff2",
        content_type: "font/woff2",
        body: include_bytes!("../../../web/dist/fonts/gamehub-sc-ui.woff2"),
    },
    Asset {
        path: "/fonts/gamehub-sc-common.woff2",
        content_type: "font/woff2",
        body: include_bytes!("../../../web/dist/fonts/gamehub-sc-common.woff2"),
    },
    Asset {
        path: "/fonts/LICENSE-OFL.txt",
        content_type: "text/plain; charset=utf-8",
        body: include_bytes!("../../../web/dist/fonts/LICENSE-OFL.txt"),
    },
];

/// What every answer needs to know.
#[derive(Clone)]
struct Site {
    /// Signs development tokens; its environment decides whether they are minted.
    config: CommonConfig,
    /// The services, as this process reaches them.
    services: Endpoints,
    /// Told to the page: where a production token comes from.
    token_url: Option<String>,
    /// Serve the client's files from here instead of the embedded ones.
    dir: Option<std::path::PathBuf>,
}

/// Binds `config.listen` and serves the client until `shutdown`.
pub async fn start(
    config: WebConfig,
    common: CommonConfig,
    services: Endpoints,
    shutdown: Shutdown,
) -> anyhow::Result<Started> {
    common.tls.check_listener(common.environment)?;
    // HTTP/1.1 only: this server speaks nothing else, so it must not offer h2 by ALPN.
    let tls = match &common.tls.server {
        Some(files) => Some(
            gamehub_platform::tls::ServerTls::load(files)
                .map_err(|e| e.context("web client: cannot serve TLS"))?
                .with_alpn(&[b"http/1.1"])
                .acceptor(),
        ),
        None => None,
    };
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(|e| anyhow::anyhow!("web client: cannot listen on {}: {e}", config.listen))?;
    let addr = listener.local_addr()?;
    let site = Site {
        config: common,
        services,
        token_url: config.token_url,
        dir: config.dir,
    };
    let task = tokio::spawn(async move {
        let mut stop = shutdown.listener();
        loop {
            let stream = tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => stream,
                    Err(e) => {
                        tracing::warn!(error = %e, "web client: accept failed");
                        continue;
                    }
                },
                () = stop.wait() => return Ok(()),
            };
            let site = site.clone();
            let tls = tls.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |req| {
                    let site = site.clone();
                    async move { Ok::<_, std::convert::Infallible>(answer(&site, &req)) }
                });
                let http = hyper::server::conn::http1::Builder::new();
                match tls {
                    None => {
                        let _ = http.serve_connection(TokioIo::new(stream), service).await;
                    }
                    Some(acceptor) => {
                        let handshake = tokio::time::timeout(
                            gamehub_platform::tls::HANDSHAKE_TIMEOUT,
                            acceptor.accept(stream),
                        );
                        match handshake.await {
                            Ok(Ok(stream)) => {
                                let _ = http.serve_connection(TokioIo::new(stream), service).await;
                            }
                            Ok(Err(e)) => {
                                tracing::debug!(error = %e, "web client: tls handshake failed")
                            }
                            Err(_) => tracing::debug!("web client: tls handshake timed out"),
                        }
                    }
                }
            });
        }
    });
    tracing::info!(%addr, "serving the web client");
    Ok(Started {
        name: "web",
        addr,
        task,
    })
}

fn answer<B>(site: &Site, req: &Request<B>) -> Response<Full<Bytes>> {
    let path = req.uri().path();
    match (req.method(), path) {
        (&Method::GET | &Method::HEAD, "/config.json") => {
            json_response(StatusCode::OK, &client_config(site, page_host(req)))
        }
        (&Method::POST, "/dev-token") => dev_token(site, req.uri().query().unwrap_or("")),
        (&Method::GET | &Method::HEAD, _) => {
            let path = if path == "/index.html" { "/" } else { path };
            match ASSETS.iter().find(|a| a.path == path) {
                Some(asset) => {
                    let mut answer =
                        response(StatusCode::OK, asset.content_type, asset_body(site, asset));
                    if asset.path.starts_with("/fonts/") {
                        // 1 MB that never changes between releases: kept a day, not
                        // fetched again on every page load.
                        answer.headers_mut().insert(
                            header::CACHE_CONTROL,
                            HeaderValue::from_static("public, max-age=86400"),
                        );
                    }
                    answer
                }
                None => response(
                    StatusCode::NOT_FOUND,
                    "text/plain; charset=utf-8",
                    "not found; the client is at /\n",
                ),
            }
        }
        _ => response(
            StatusCode::METHOD_NOT_ALLOWED,
            "text/plain; charset=utf-8",
            "method not allowed\n",
        ),
    }
}

/// An asset's bytes: from `GAMEHUB_WEB_DIR` when set (the same relative path; the
/// embedded bytes if the file cannot be read), else the embedded ones.
fn asset_body(site: &Site, asset: &Asset) -> Bytes {
    if let Some(dir) = &site.dir {
        let relative = if asset.path == "/" {
            "index.html"
        } else {
            &asset.path[1..]
        };
        match std::fs::read(dir.join(relative)) {
            Ok(bytes) => return Bytes::from(bytes),
            Err(e) => {
                tracing::warn!(file = relative, error = %e, "GAMEHUB_WEB_DIR: cannot read; serving the embedded file")
            }
        }
    }
    Bytes::from_static(asset.body)
}

/// The host name (without port) the browser used to reach this page, if sane.
fn page_host<B>(req: &Request<B>) -> Option<String> {
    let host = req.headers().get(header::HOST)?.to_str().ok()?;
    let name = if host.starts_with('[') {
        &host[..=host.find(']')?]
    } else {
        host.split(':').next()?
    };
    let sane = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '[' | ']' | ':'));
    sane.then(|| name.to_owned())
}

/// `/config.json`: the services' URLs for the browser and how to get a token.
fn client_config(site: &Site, page_host: Option<String>) -> serde_json::Value {
    let url = |endpoint: &str| browser_url(endpoint, page_host.as_deref());
    json!({
        "services": {
            "matchmaking": url(&site.services.matchmaking),
            "gomoku": url(&site.services.gomoku),
            "doudizhu": url(&site.services.doudizhu),
            "ledger": url(&site.services.ledger),
            "tournaments": url(&site.services.tournaments),
        },
        "devTokens": gamehub_drive::token::may_mint(&site.config),
        "tokenUrl": site.token_url,
    })
}

/// A service URL as the browser should use it: one on this machine is named by the
/// host the page was loaded from; any other is given as configured.
fn browser_url(endpoint: &str, page_host: Option<&str>) -> String {
    let (scheme, rest) = match endpoint.split_once("://") {
        Some((scheme @ ("http" | "https"), rest)) => (scheme, rest),
        _ => return endpoint.to_owned(),
    };
    let (host, port) = match rest.rsplit_once(':') {
        Some((host, port)) if port.chars().all(|c| c.is_ascii_digit()) => (host, port),
        _ => return endpoint.to_owned(),
    };
    let local = matches!(
        host,
        "127.0.0.1" | "localhost" | "0.0.0.0" | "[::1]" | "[::]"
    );
    match page_host {
        Some(page) if local => format!("{scheme}://{page}:{port}"),
        _ => endpoint.to_owned(),
    }
}

/// `POST /dev-token?player=NAME`.
fn dev_token(site: &Site, query: &str) -> Response<Full<Bytes>> {
    let player = query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(key, _)| *key == "player")
        .map_or("", |(_, value)| value);
    let player = match gamehub_platform::error::id("player", player, 64) {
        Ok(player) => player,
        Err(e) => {
            return json_response(StatusCode::BAD_REQUEST, &json!({ "error": e.to_string() }));
        }
    };
    match gamehub_drive::token::mint_development(&site.config, player, Role::Player, DEV_TOKEN_TTL)
    {
        Ok(token) => json_response(
            StatusCode::OK,
            &json!({
                "player": player,
                "token": token,
                "expires_in_secs": DEV_TOKEN_TTL.as_secs(),
            }),
        ),
        Err(e) => json_response(StatusCode::FORBIDDEN, &json!({ "error": e.to_string() })),
    }
}

fn json_response(status: StatusCode, value: &serde_json::Value) -> Response<Full<Bytes>> {
    let mut response = response(status, "application/json", value.to_string());
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

fn response(
    status: StatusCode,
    content_type: &'static str,
    body: impl Into<Bytes>,
) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(body.into()));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}
