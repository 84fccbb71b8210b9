//! Driving the platform through its public gRPC API, as any front-end does: what the
//! terminal client, the operator's desk, the demo, the bots and the load generators
//! share.
//!
//! - [`api`]: where the services are (and the flags that say so) and clients holding a
//!   bearer token;
//! - [`token`]: development tokens, minted with the platform's key (never in
//!   production);
//! - [`retry`] and [`retry_call!`]: what a well-behaved client retries, and how long it
//!   waits ([`pause`], [`backoff`]);
//! - [`matchmaking`]: from a room to a seat;
//! - [`gomoku`], [`doudizhu`]: a bot playing one seat (the strategies are in
//!   `gamehub-bots`; legality always comes from the rule crates).
#![forbid(unsafe_code)]

pub mod api;
pub mod doudizhu;
pub mod gomoku;
pub mod matchmaking;
pub mod token;

use std::future::Future;
use std::time::Duration;

/// Calls `call` until it succeeds, retrying what a well-behaved client retries: a rate
/// limit (after the server's `retry-after-ms` hint), an unavailable service, a lost
/// race. `call` must send the same request (same request id) each time, so a retry of
/// something already applied is answered as a replay and never applies twice.
pub async fn retry<T, F, Fut>(mut call: F) -> Result<T, tonic::Status>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, tonic::Status>>,
{
    const ATTEMPTS: u32 = 30;
    let mut attempt = 0;
    loop {
        match call().await {
            Ok(value) => return Ok(value),
            Err(status) if attempt < ATTEMPTS && transient(&status) => {
                pause(&status, attempt).await;
                attempt += 1;
            }
            Err(status) => return Err(status),
        }
    }
}

/// Times a bot watches a table again after its stream failed transiently (a game
/// service replica restarting, Redis failing over).
pub const MAX_REWATCHES: u32 = 20;

/// Whether a failure passes (a limit, a dependency failing over, a lost race), so the
/// same request may be sent again.
pub fn transient(status: &tonic::Status) -> bool {
    matches!(
        status.code(),
        tonic::Code::ResourceExhausted | tonic::Code::Unavailable | tonic::Code::Aborted
    )
}

/// Waits before attempt `attempt + 1` after `status`: its retry hint when it has one,
/// else a growing backoff, at most 2 s.
pub async fn pause(status: &tonic::Status, attempt: u32) {
    let hint = status
        .metadata()
        .get(gamehub_platform::error::RETRY_AFTER_MS)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
        .map(Duration::from_millis);
    let backoff = Duration::from_millis(50 * u64::from(attempt + 1));
    tokio::time::sleep(hint.unwrap_or(backoff).min(Duration::from_secs(2))).await;
}

/// `retry_call!(client, method, request)`: a future that sends `request` with
/// `client.method` through [`retry`], resending the very same request (so the same
/// request id), and resolves to the response's message.
#[macro_export]
macro_rules! retry_call {
    ($client:expr, $method:ident, $request:expr) => {{
        let client = $client.clone();
        let request = $request;
        async move {
            $crate::retry(|| {
                let mut client = client.clone();
                let request = request.clone();
                async move { client.$method(request).await }
            })
            .await
            .map(::tonic::Response::into_inner)
        }
    }};
}

/// A bot's Leave: a table that another seat already closed, or that is gone, is left
/// as well.
pub fn left<T>(leave: Result<T, tonic::Status>) -> Result<(), tonic::Status> {
    match leave {
        Ok(_) => Ok(()),
        Err(status)
            if matches!(
                status.code(),
                tonic::Code::FailedPrecondition | tonic::Code::NotFound
            ) =>
        {
            Ok(())
        }
        Err(status) => Err(status),
    }
}

/// Ticket streams that may end in a row without an update before [`matchmaking::seat`]
/// gives up (with backoff between them, about half a minute in all).
pub(crate) const MAX_TICKET_STREAM_ENDS: u32 = 10;

/// The pause before reconnection attempt `attempt` (1, 2, …): 250 ms, doubling, at
/// most 5 s, so a restarted server is found again within seconds without hammering it.
pub fn backoff(attempt: u32) -> Duration {
    let ms = 250u64.saturating_mul(1u64 << attempt.saturating_sub(1).min(16));
    Duration::from_millis(ms.min(5_000))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_five_seconds() {
        assert_eq!(backoff(1), Duration::from_millis(250));
        assert_eq!(backoff(2), Duration::from_millis(500));
        assert_eq!(backoff(3), Duration::from_secs(1));
        assert_eq!(backoff(5), Duration::from_secs(4));
        assert_eq!(backoff(6), Duration::from_secs(5));
        assert_eq!(backoff(1000), Duration::from_secs(5));
    }
}
