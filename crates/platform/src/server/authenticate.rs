//! The authenticate layer: verifies the bearer token of every call (health and
//! reflection excepted), checks the access table ([`crate::access`]) and puts the typed
//! [`Caller`] into the request's extensions, or answers UNAUTHENTICATED or
//! PERMISSION_DENIED itself.

use std::task::{Context, Poll};

use tonic::Status;

use crate::auth::{Caller, Keys};
use crate::error::ApiError;

/// Paths that need no token: the standard health and reflection services.
fn is_public(path: &str) -> bool {
    path.starts_with("/grpc.health.v1.Health/") || path.starts_with("/grpc.reflection.")
}

/// Verifies the bearer token of every call and inserts the [`Caller`].
#[derive(Clone, Debug)]
pub struct AuthLayer {
    keys: Keys,
}

impl AuthLayer {
    /// A layer verifying with `keys`.
    pub fn new(keys: Keys) -> Self {
        Self { keys }
    }
}

impl<S> tower_layer::Layer<S> for AuthLayer {
    type Service = AuthService<S>;
    fn layer(&self, inner: S) -> Self::Service {
        AuthService {
            inner,
            keys: self.keys.clone(),
        }
    }
}

/// The service [`AuthLayer`] makes.
#[derive(Clone, Debug)]
pub struct AuthService<S> {
    inner: S,
    keys: Keys,
}

impl<S, B, ResBody> tower_service::Service<http::Request<B>> for AuthService<S>
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

    fn call(&mut self, mut req: http::Request<B>) -> Self::Future {
        if is_public(req.uri().path()) {
            return futures::future::Either::Left(self.inner.call(req));
        }
        let checked = self.authenticate(req.headers()).and_then(|caller| {
            crate::access::check(req.uri().path(), &caller)?;
            Ok(caller)
        });
        match checked {
            Ok(caller) => {
                tracing::Span::current().record("caller", caller.subject.as_str());
                req.extensions_mut().insert(caller);
                futures::future::Either::Left(self.inner.call(req))
            }
            Err(err) => {
                let status: Status = err.into();
                futures::future::Either::Right(futures::future::ready(Ok(status.into_http())))
            }
        }
    }
}

impl<S> AuthService<S> {
    fn authenticate(&self, headers: &http::HeaderMap) -> Result<Caller, ApiError> {
        let value = headers
            .get(http::header::AUTHORIZATION)
            .ok_or_else(|| {
                ApiError::Unauthenticated(
                    "missing bearer token: send metadata `authorization: Bearer <JWT>`".into(),
                )
            })?
            .to_str()
            .map_err(|_| {
                ApiError::Unauthenticated("the authorization metadata is not text".into())
            })?;
        let token = value
            .strip_prefix("Bearer ")
            .or_else(|| value.strip_prefix("bearer "))
            .ok_or_else(|| {
                ApiError::Unauthenticated(
                    "the authorization metadata must read `Bearer <JWT>`".into(),
                )
            })?;
        self.keys.verify(token.trim())
    }
}
