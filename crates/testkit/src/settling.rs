//! NextGame / NextDeal as a client makes them: right after a game, the game services
//! answer UNAVAILABLE `settling: …` with a `retry-after-ms` hint until the ledger has the
//! game; a client asks again after the hint.

use std::future::Future;
use std::time::Duration;

use tonic::{Code, Status};

/// How many times [`until_settled`] asks before giving up.
const ATTEMPTS: usize = 100;

/// Whether `status` answers a next game asked before the ledger had the last one.
pub fn is_settling(status: &Status) -> bool {
    status.code() == Code::Unavailable && status.message().starts_with("settling: ")
}

/// The server's retry hint (`retry-after-ms`); panics without one.
pub fn retry_hint(status: &Status) -> Duration {
    let ms = status
        .metadata()
        .get(gamehub_platform::error::RETRY_AFTER_MS)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("no retry hint on {status:?}"));
    Duration::from_millis(ms)
}

/// Makes `call` until it is answered with anything but `settling:`, waiting the hint in
/// between (at most [`ATTEMPTS`] times; then panics).
pub async fn until_settled<T, F, Fut>(mut call: F) -> Result<T, Status>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, Status>>,
{
    for _ in 0..ATTEMPTS {
        match call().await {
            Err(status) if is_settling(&status) => tokio::time::sleep(retry_hint(&status)).await,
            other => return other,
        }
    }
    panic!("the last game was not settled after {ATTEMPTS} retries");
}
