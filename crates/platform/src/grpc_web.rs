//! Browsers: gRPC-Web and CORS on every gamehub server.
//!
//! A browser cannot speak native gRPC (it has no HTTP/2 trailers, and over plain
//! `http://` no HTTP/2 at all), so every server also accepts gRPC-Web
//! (`application/grpc-web+proto` and `application/grpc-web-text`) over HTTP/1.1 and
//! HTTP/2, unary calls and server streams alike. [`BrowserLayer`] sits outside every
//! other layer of [`crate::server`]: it answers CORS preflights, then turns a gRPC-Web
//! call into a native one, so the call meets the same timeout, concurrency limit,
//! span and metrics, authentication, per-player rate limit and message-size limit as
//! a native call, and turns the answer back (trailers become the body's last frame).
//!
//! Which web pages may call: [`AllowedOrigins`], from `GAMEHUB_CORS_ORIGINS` (a comma
//! separated list of origins such as `https://play.example.com`, or `*` for any). In
//! development any page served from `localhost`, `127.0.0.1` or `[::1]` may call too,
//! whatever its port; in production only the listed origins, none by default. An origin
//! that is not allowed gets no CORS headers, so the browser refuses to send it the
//! answer (a front-end served from the same origin as the API, behind a proxy, needs no
//! CORS at all).

use std::time::Duration;

use http::{HeaderName, HeaderValue, Method};
use tonic_web::GrpcWebLayer;
use tower::layer::util::Stack;
use tower_http::cors::{AllowOrigin, CorsLayer};

use crate::config::env::{ConfigError, Env, Environment};
use crate::error::RETRY_AFTER_MS;

/// The web pages (origins) allowed to call the API from a browser.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowedOrigins {
    /// `GAMEHUB_CORS_ORIGINS=*`: any page.
    any: bool,
    /// Origins allowed exactly, lower-case, e.g. `https://play.example.com`.
    listed: Vec<String>,
    /// Development: any http(s) page on localhost, 127.0.0.1 or [::1], any port.
    localhost: bool,
}

/// The variable that lists the allowed origins.
pub const CORS_ORIGINS_VAR: &str = "GAMEHUB_CORS_ORIGINS";

impl AllowedOrigins {
    /// No page at all (the production default).
    pub fn none() -> Self {
        Self::default()
    }

    /// Reads `GAMEHUB_CORS_ORIGINS`; development adds the localhost pages.
    pub fn from_env(env: &Env, environment: Environment) -> Result<Self, ConfigError> {
        let mut origins = Self {
            localhost: environment == Environment::Development,
            ..Self::default()
        };
        let Some(value) = env.raw(CORS_ORIGINS_VAR) else {
            return Ok(origins);
        };
        for item in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if item == "*" {
                origins.any = true;
            } else if let Some(origin) = parse_origin(item) {
                origins.listed.push(origin);
            } else {
                return Err(ConfigError {
                    name: CORS_ORIGINS_VAR.into(),
                    value: value.clone(),
                    reason: format!(
                        "{item:?} is not an origin; expected a comma-separated list of \
                         scheme://host[:port] such as https://play.example.com, or *"
                    ),
                });
            }
        }
        Ok(origins)
    }

    /// Whether a page of `origin` (the browser's `Origin` header) may call.
    pub fn allows(&self, origin: &str) -> bool {
        if self.any {
            return true;
        }
        let Some(origin) = parse_origin(origin) else {
            return false;
        };
        (self.localhost && is_localhost(&origin)) || self.listed.contains(&origin)
    }

    /// Whether no page may call (no CORS headers are ever sent).
    pub fn is_none(&self) -> bool {
        !self.any && !self.localhost && self.listed.is_empty()
    }
}

/// `scheme://host[:port]` in lower case, or `None` for anything else (a path, a
/// query, another scheme, an empty host).
fn parse_origin(text: &str) -> Option<String> {
    let lower = text.trim().to_ascii_lowercase();
    let rest = lower
        .strip_prefix("http://")
        .or_else(|| lower.strip_prefix("https://"))?;
    let (host, port) = split_host_port(rest)?;
    let host_ok = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '[' | ']' | ':'));
    let port_ok = port.is_none_or(|p| !p.is_empty() && p.parse::<u16>().is_ok());
    (host_ok && port_ok).then_some(lower)
}

/// Splits `host[:port]`, where host may be a bracketed IPv6 address.
fn split_host_port(authority: &str) -> Option<(&str, Option<&str>)> {
    if authority.starts_with('[') {
        let end = authority.find(']')?;
        let (host, rest) = authority.split_at(end + 1);
        match rest {
            "" => Some((host, None)),
            _ => Some((host, Some(rest.strip_prefix(':')?))),
        }
    } else {
        match authority.split_once(':') {
            Some((host, port)) => Some((host, Some(port))),
            None => Some((authority, None)),
        }
    }
}

/// Whether a parsed origin's host is this machine.
fn is_localhost(origin: &str) -> bool {
    let authority = origin.split_once("://").map_or("", |(_, rest)| rest);
    matches!(
        split_host_port(authority),
        Some(("localhost" | "127.0.0.1" | "[::1]", _))
    )
}

/// CORS in front of gRPC-Web in front of the server's own layers (see the module doc).
pub type BrowserLayer = Stack<GrpcWebLayer, CorsLayer>;

/// The headers a gRPC-Web page sends: the token, the protocol's own, trace context.
const REQUEST_HEADERS: [&str; 9] = [
    "authorization",
    "content-type",
    "x-grpc-web",
    "x-user-agent",
    "grpc-timeout",
    "grpc-encoding",
    "grpc-accept-encoding",
    "traceparent",
    "tracestate",
];

/// The answer headers a page may read: the status of a trailers-only answer and the
/// retry hint of RESOURCE_EXHAUSTED.
const EXPOSED_HEADERS: [&str; 4] = [
    "grpc-status",
    "grpc-message",
    "grpc-status-details-bin",
    RETRY_AFTER_MS,
];

/// The layer for a server whose pages are `origins`.
pub fn browser_layer(origins: &AllowedOrigins) -> BrowserLayer {
    let allow_origin = if origins.any {
        AllowOrigin::any()
    } else {
        let origins = origins.clone();
        AllowOrigin::predicate(move |origin: &HeaderValue, _| {
            origin.to_str().is_ok_and(|o| origins.allows(o))
        })
    };
    let cors = CorsLayer::new()
        .allow_origin(allow_origin)
        .allow_methods([Method::POST])
        .allow_headers(REQUEST_HEADERS.map(HeaderName::from_static))
        .expose_headers(EXPOSED_HEADERS.map(HeaderName::from_static))
        .max_age(Duration::from_secs(3600));
    Stack::new(GrpcWebLayer::new(), cors)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origins(environment: Environment, value: Option<&str>) -> AllowedOrigins {
        let env = Env::from_pairs(value.map(|v| (CORS_ORIGINS_VAR, v)));
        AllowedOrigins::from_env(&env, environment).unwrap()
    }

    #[test]
    fn development_allows_pages_on_this_machine_whatever_the_port() {
        let dev = origins(Environment::Development, None);
        for page in [
            "http://localhost:5173",
            "http://127.0.0.1:8080",
            "http://[::1]:3000",
            "https://localhost",
            "HTTP://LOCALHOST:8080",
        ] {
            assert!(dev.allows(page), "{page}");
        }
        for page in [
            "http://localhost.evil.example",
            "http://127.0.0.1.nip.io:8080",
            "https://play.example.com",
            "null",
            "file://",
            "http://localhost:8080/path",
        ] {
            assert!(!dev.allows(page), "{page}");
        }
    }

    #[test]
    fn production_allows_nothing_by_default_and_exactly_the_listed_origins() {
        let prod = origins(Environment::Production, None);
        assert!(prod.is_none());
        assert!(!prod.allows("http://localhost:8080"));
        let prod = origins(
            Environment::Production,
            Some("https://play.example.com, https://h5.example.com:8443"),
        );
        assert!(prod.allows("https://play.example.com"));
        assert!(prod.allows("https://h5.example.com:8443"));
        assert!(
            !prod.allows("https://h5.example.com"),
            "the port is part of it"
        );
        assert!(!prod.allows("http://play.example.com"), "so is the scheme");
        assert!(!prod.allows("http://localhost:8080"));
        assert!(origins(Environment::Production, Some("*")).allows("https://any.example"));
    }

    #[test]
    fn a_malformed_origin_is_refused_at_start_naming_the_variable() {
        for bad in [
            "play.example.com",
            "https://play.example.com/lobby",
            "ftp://x",
        ] {
            let env = Env::from_pairs([(CORS_ORIGINS_VAR, bad)]);
            let err = AllowedOrigins::from_env(&env, Environment::Production).unwrap_err();
            assert_eq!(err.name, CORS_ORIGINS_VAR, "{bad}");
        }
    }
}
