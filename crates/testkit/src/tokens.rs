//! Tokens and channels for tests: the development signing key every test service runs
//! with, and a channel to any service carrying a token of any role.

use std::time::Duration;

use gamehub_platform::auth::{Keys, Role};
use gamehub_platform::client::{ServiceChannel, TokenSource, service_channel};
use gamehub_platform::config::{DEVELOPMENT_JWT_SECRET, Secret};

/// The keys of the development signing key (the test configurations' default).
pub fn dev_keys() -> Keys {
    Keys::new(&Secret::new(DEVELOPMENT_JWT_SECRET))
}

/// A token for `subject` in `role`, valid for an hour.
pub fn token(keys: &Keys, subject: &str, role: Role) -> String {
    keys.mint(subject, role, Duration::from_secs(3600))
        .unwrap_or_else(|e| panic!("a test token: {e}"))
}

/// A channel to `url` whose calls carry a token for `subject` in `role`; wrap it in the
/// generated client of the service at `url`.
pub fn channel(url: &str, keys: &Keys, subject: &str, role: Role) -> ServiceChannel {
    service_channel(
        url,
        TokenSource::Static(token(keys, subject, role)),
        Duration::from_secs(10),
    )
    .unwrap_or_else(|e| panic!("a channel to {url}: {e}"))
}
