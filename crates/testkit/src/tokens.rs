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

/// A production platform's keys (`gamehub keys generate`) in a fresh temporary
/// directory, removed when dropped, and the variables that make a service use them.
#[derive(Debug)]
pub struct ProductionKeys {
    /// The directory: `issuer.pem`, one `<service>.pem` per calling service, `jwks.json`.
    pub dir: std::path::PathBuf,
}

impl ProductionKeys {
    /// Generates them.
    pub fn generate() -> Self {
        let dir = std::env::temp_dir().join(format!("gamehub-keys-{}", uuid::Uuid::new_v4()));
        gamehub_platform::auth::key_dir::generate(&dir)
            .unwrap_or_else(|e| panic!("production keys: {e}"));
        Self { dir }
    }

    /// `GAMEHUB_ENV=production` with these keys (every service takes its own from the
    /// directory), the JWKS looked at every 200 ms, and TLS said to be terminated by a
    /// proxy in front (the tests using this are not about TLS).
    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            ("GAMEHUB_ENV".into(), "production".into()),
            (
                "GAMEHUB_JWKS".into(),
                self.dir.join("jwks.json").display().to_string(),
            ),
            ("GAMEHUB_JWKS_REFRESH_MS".into(), "200".into()),
            ("GAMEHUB_TOKEN_KEY".into(), self.dir.display().to_string()),
            ("GAMEHUB_TLS_TERMINATED_BY_PROXY".into(), "true".into()),
        ]
    }

    /// A token for `subject` in `role` signed with the private key `name` (`issuer` or a
    /// service's identity).
    pub fn token(&self, name: &str, subject: &str, role: Role) -> String {
        let pem = std::fs::read_to_string(self.dir.join(format!("{name}.pem")))
            .unwrap_or_else(|e| panic!("the key {name}: {e}"));
        let keys = Keys::with_public_keys(Default::default(), Some(&pem))
            .unwrap_or_else(|e| panic!("the key {name}: {e}"));
        token(&keys, subject, role)
    }
}

impl Drop for ProductionKeys {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
