//! Metrics an operator scrapes, in the Prometheus text format ([`render`]), served at
//! `GET /metrics` on `GAMEHUB_METRICS_ADDR` by [`crate::server::metrics_endpoint`].
//!
//! A leaf of the crate: every module may count here, and this module imports none of
//! them. Failures that [`crate::error`] sees as it maps them (Redis errors) reach the
//! `gamehub_dependency_errors_total` counter through the observer [`install`] registers
//! there, so the error module names no metric.
//!
//! | metric | type | labels | meaning |
//! |---|---|---|---|
//! | `gamehub_rpc_requests_total` | counter | `rpc`, `code` | gRPC calls by method and status code |
//! | `gamehub_rpc_duration_seconds` | histogram | `rpc` | time to the response headers |
//! | `gamehub_dependency_errors_total` | counter | `dependency` | failed calls to redis, postgres, ledger, … |
//! | `gamehub_live_tables` | gauge | `game` | open tables in Redis |
//! | `gamehub_queued_tickets` | gauge | `room` | tickets waiting in matchmaking |
//! | `gamehub_settlement_backlog` | gauge | `game` | finished games not yet acknowledged by the ledger |
//! | `gamehub_dead_letters` | gauge | `game` | settlements the ledger refused, waiting for an operator |
//! | `gamehub_settlement_lag_seconds` | gauge | `game` | age of the oldest unacknowledged settlement |
//! | `gamehub_settlements_total` | counter | `game`, `result` | settlement deliveries (`ok`, `retry`, `dead`) |
//! | `gamehub_timeouts_applied_total` | counter | `game` | clock deadlines applied by the sweeper |
//! | `gamehub_rate_limited_total` | counter | | calls refused by the per-player rate limit |
//! | `gamehub_friends_code_misses_total` | counter | | friends' table codes asked for that no table ever had |
//! | `gamehub_friends_code_refusals_total` | counter | | code lookups refused because the caller tried too many unknown codes |
//! | `gamehub_tournaments` | gauge | `state` | tournaments by state (`registering`, `running`), as the director last saw them |
//! | `gamehub_tournament_round_age_seconds` | gauge | `game` | age of the oldest round still being played |
//! | `gamehub_tournament_steps_total` | counter | `result` | director steps (`ok`, `retry`): a retry is a peer or the database failing |

use std::sync::LazyLock;

use prometheus::{
    Encoder, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGaugeVec, Opts, Registry,
    TextEncoder,
};

/// All gamehub metrics of this process.
pub struct Metrics {
    /// The registry the text endpoint encodes.
    pub registry: Registry,
    /// See the module table.
    pub rpc_requests: IntCounterVec,
    /// See the module table.
    pub rpc_duration: HistogramVec,
    /// See the module table.
    pub dependency_errors: IntCounterVec,
    /// See the module table.
    pub live_tables: IntGaugeVec,
    /// See the module table.
    pub queued_tickets: IntGaugeVec,
    /// See the module table.
    pub settlement_backlog: IntGaugeVec,
    /// Settlements the ledger refused, waiting for an operator (`gamehub admin dead-letters`).
    pub dead_letters: IntGaugeVec,
    /// See the module table.
    pub settlement_lag_seconds: IntGaugeVec,
    /// See the module table.
    pub settlements: IntCounterVec,
    /// See the module table.
    pub timeouts_applied: IntCounterVec,
    /// See the module table.
    pub rate_limited: IntCounter,
    /// See the module table.
    pub friends_code_misses: IntCounter,
    /// See the module table.
    pub friends_code_refusals: IntCounter,
    /// See the module table.
    pub tournaments: IntGaugeVec,
    /// See the module table.
    pub tournament_round_age_seconds: IntGaugeVec,
    /// See the module table.
    pub tournament_steps: IntCounterVec,
}

fn build() -> Result<Metrics, prometheus::Error> {
    let registry = Registry::new();
    let rpc_requests = IntCounterVec::new(
        Opts::new(
            "gamehub_rpc_requests_total",
            "gRPC calls by method and status code",
        ),
        &["rpc", "code"],
    )?;
    let rpc_duration = HistogramVec::new(
        HistogramOpts::new(
            "gamehub_rpc_duration_seconds",
            "time from request to response headers",
        )
        .buckets(vec![
            0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
        ]),
        &["rpc"],
    )?;
    let dependency_errors = IntCounterVec::new(
        Opts::new(
            "gamehub_dependency_errors_total",
            "failed calls to a dependency",
        ),
        &["dependency"],
    )?;
    let live_tables = IntGaugeVec::new(
        Opts::new("gamehub_live_tables", "open tables in Redis"),
        &["game"],
    )?;
    let queued_tickets = IntGaugeVec::new(
        Opts::new("gamehub_queued_tickets", "tickets waiting in matchmaking"),
        &["room"],
    )?;
    let settlement_backlog = IntGaugeVec::new(
        Opts::new(
            "gamehub_settlement_backlog",
            "finished games not yet acknowledged by the ledger",
        ),
        &["game"],
    )?;
    let dead_letters = IntGaugeVec::new(
        Opts::new(
            "gamehub_dead_letters",
            "settlements the ledger refused, waiting for an operator",
        ),
        &["game"],
    )?;
    let settlement_lag_seconds = IntGaugeVec::new(
        Opts::new(
            "gamehub_settlement_lag_seconds",
            "age of the oldest unacknowledged settlement",
        ),
        &["game"],
    )?;
    let settlements = IntCounterVec::new(
        Opts::new(
            "gamehub_settlements_total",
            "settlement deliveries by result",
        ),
        &["game", "result"],
    )?;
    let timeouts_applied = IntCounterVec::new(
        Opts::new("gamehub_timeouts_applied_total", "clock deadlines applied"),
        &["game"],
    )?;
    let rate_limited = IntCounter::new(
        "gamehub_rate_limited_total",
        "calls refused by the per-player rate limit",
    )?;
    registry.register(Box::new(rpc_requests.clone()))?;
    registry.register(Box::new(rpc_duration.clone()))?;
    registry.register(Box::new(dependency_errors.clone()))?;
    registry.register(Box::new(live_tables.clone()))?;
    registry.register(Box::new(queued_tickets.clone()))?;
    registry.register(Box::new(settlement_backlog.clone()))?;
    registry.register(Box::new(dead_letters.clone()))?;
    registry.register(Box::new(settlement_lag_seconds.clone()))?;
    registry.register(Box::new(settlements.clone()))?;
    registry.register(Box::new(timeouts_applied.clone()))?;
    let friends_code_misses = IntCounter::new(
        "gamehub_friends_code_misses_total",
        "friends' table codes asked for that no table ever had",
    )?;
    let friends_code_refusals = IntCounter::new(
        "gamehub_friends_code_refusals_total",
        "code lookups refused after too many unknown codes",
    )?;
    registry.register(Box::new(rate_limited.clone()))?;
    registry.register(Box::new(friends_code_misses.clone()))?;
    registry.register(Box::new(friends_code_refusals.clone()))?;
    let tournaments = IntGaugeVec::new(
        Opts::new("gamehub_tournaments", "tournaments by state"),
        &["state"],
    )?;
    let tournament_round_age_seconds = IntGaugeVec::new(
        Opts::new(
            "gamehub_tournament_round_age_seconds",
            "age of the oldest tournament round still being played",
        ),
        &["game"],
    )?;
    let tournament_steps = IntCounterVec::new(
        Opts::new(
            "gamehub_tournament_steps_total",
            "tournament director steps by result",
        ),
        &["result"],
    )?;
    registry.register(Box::new(tournaments.clone()))?;
    registry.register(Box::new(tournament_round_age_seconds.clone()))?;
    registry.register(Box::new(tournament_steps.clone()))?;
    Ok(Metrics {
        registry,
        rpc_requests,
        rpc_duration,
        dependency_errors,
        live_tables,
        queued_tickets,
        settlement_backlog,
        dead_letters,
        settlement_lag_seconds,
        settlements,
        timeouts_applied,
        rate_limited,
        friends_code_misses,
        friends_code_refusals,
        tournaments,
        tournament_round_age_seconds,
        tournament_steps,
    })
}

static METRICS: LazyLock<Metrics> = LazyLock::new(|| {
    // The names and labels above are constants; registering them cannot fail.
    build().unwrap_or_else(|e| panic!("metric definitions are valid: {e}"))
});

/// The process's metrics.
pub fn metrics() -> &'static Metrics {
    &METRICS
}

/// Counts a failed call to a dependency (`redis`, `postgres`, `ledger`, …).
pub fn dependency_error(dependency: &str) {
    metrics()
        .dependency_errors
        .with_label_values(&[dependency])
        .inc();
}

/// Registers the metrics with what reports to them without naming them: the failed
/// dependency calls [`crate::error`] maps (see [`crate::error::observe_dependency_failures`]).
/// A binary calls it first thing ([`crate::runner::serve_until_terminated`]), and every
/// server as it is built ([`crate::server::GrpcServer::new`], for services a test starts
/// itself); calling it again changes nothing.
pub fn install() {
    crate::error::observe_dependency_failures(dependency_error);
}

/// The metrics in the Prometheus text format.
pub fn render() -> String {
    let mut buf = Vec::new();
    let encoder = TextEncoder::new();
    if encoder
        .encode(&metrics().registry.gather(), &mut buf)
        .is_err()
    {
        return String::new();
    }
    String::from_utf8(buf).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ApiError;

    fn redis_errors() -> u64 {
        metrics()
            .dependency_errors
            .with_label_values(&["redis"])
            .get()
    }

    #[test]
    fn a_redis_error_mapped_for_a_client_is_counted_once_installed() {
        install();
        let before = redis_errors();
        let refused: redis::RedisError = (redis::ErrorKind::Io, "connection refused").into();
        let _ = ApiError::from(refused);
        // Other tests of this process may count too; this one counted at least its own.
        assert!(redis_errors() > before);
        assert!(render().contains("gamehub_dependency_errors_total{dependency=\"redis\"}"));
    }
}
