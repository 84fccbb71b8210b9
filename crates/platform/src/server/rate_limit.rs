//! The per-player rate limit: a token bucket per player token, refusing with
//! RESOURCE_EXHAUSTED and a `retry-after-ms` hint; services and operators pass.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use crate::auth::{Caller, Role};
use crate::error::ApiError;
use crate::metrics::metrics;

/// A token bucket per player: `rate` calls per second with bursts of `burst`.
/// Only player tokens are limited; services and operators are trusted.
#[derive(Clone, Debug)]
pub struct RateLimitLayer {
    limiter: Option<Arc<RateLimiter>>,
}

impl RateLimitLayer {
    /// `rate` 0 turns the limit off.
    pub fn new(rate: u32, burst: u32) -> Self {
        Self {
            limiter: (rate > 0).then(|| Arc::new(RateLimiter::new(rate, burst.max(1)))),
        }
    }
}

impl<S> tower_layer::Layer<S> for RateLimitLayer {
    type Service = RateLimitService<S>;
    fn layer(&self, inner: S) -> Self::Service {
        RateLimitService {
            inner,
            limiter: self.limiter.clone(),
        }
    }
}

/// The service [`RateLimitLayer`] makes.
#[derive(Clone, Debug)]
pub struct RateLimitService<S> {
    inner: S,
    limiter: Option<Arc<RateLimiter>>,
}

impl<S, B, ResBody> tower_service::Service<http::Request<B>> for RateLimitService<S>
where
    S: tower_service::Service<http::Request<B>, Response = http::Response<ResBody>>,
    S::Future: Send + 'static,
    ResBody: Default + Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = futures::future::Either<
        S::Future,
        futures::future::Ready<Result<http::Response<ResBody>, S::Error>>,
    >;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: http::Request<B>) -> Self::Future {
        if let (Some(limiter), Some(caller)) = (&self.limiter, req.extensions().get::<Caller>())
            && caller.role == Role::Player
            && let Err(retry_after) = limiter.check(&caller.subject, Instant::now())
        {
            metrics().rate_limited.inc();
            let status: tonic::Status = ApiError::ResourceExhausted {
                message: format!(
                    "too many requests from player {}: at most {} per second; retry after {} ms",
                    caller.subject,
                    limiter.rate,
                    retry_after.as_millis().max(1)
                ),
                retry_after: Some(retry_after),
            }
            .into();
            return futures::future::Either::Right(futures::future::ready(Ok(status.into_http())));
        }
        futures::future::Either::Left(self.inner.call(req))
    }
}

/// Per-player token buckets, bounded in number.
#[derive(Debug)]
pub struct RateLimiter {
    rate: u32,
    burst: u32,
    buckets: Mutex<HashMap<String, Bucket>>,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    updated: Instant,
}

/// The most players tracked at once; past it, full buckets are forgotten.
const MAX_TRACKED_PLAYERS: usize = 100_000;

impl RateLimiter {
    /// A limiter of `rate` per second with bursts of `burst`.
    pub fn new(rate: u32, burst: u32) -> Self {
        Self {
            rate,
            burst,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes a token for `key`, or says how long until one is available.
    pub fn check(&self, key: &str, now: Instant) -> Result<(), Duration> {
        let rate = f64::from(self.rate);
        let burst = f64::from(self.burst);
        let mut buckets = self
            .buckets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if buckets.len() >= MAX_TRACKED_PLAYERS && !buckets.contains_key(key) {
            buckets.retain(|_, b| {
                let refilled =
                    b.tokens + now.saturating_duration_since(b.updated).as_secs_f64() * rate;
                refilled < burst
            });
        }
        let bucket = buckets.entry(key.to_owned()).or_insert(Bucket {
            tokens: burst,
            updated: now,
        });
        let elapsed = now.saturating_duration_since(bucket.updated).as_secs_f64();
        bucket.tokens = (bucket.tokens + elapsed * rate).min(burst);
        bucket.updated = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - bucket.tokens) / rate))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_allows_its_burst_then_refills_at_the_rate() {
        let limiter = RateLimiter::new(10, 3);
        let t0 = Instant::now();
        for _ in 0..3 {
            assert!(limiter.check("p", t0).is_ok());
        }
        let wait = limiter.check("p", t0).unwrap_err();
        assert!(wait <= Duration::from_millis(100));
        assert!(
            limiter.check("q", t0).is_ok(),
            "players are limited separately"
        );
        assert!(limiter.check("p", t0 + Duration::from_millis(100)).is_ok());
    }
}
