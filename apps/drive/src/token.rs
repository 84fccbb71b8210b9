//! `gamehub token`: development bearer tokens.

use std::time::Duration;

use gamehub_platform::auth::{Keys, Role};
use gamehub_platform::config::{CommonConfig, Environment};

/// Mints a token for `subject` in `role`, valid for `ttl`, with the configured key.
/// Refused in a configuration marked production: production tokens come from the
/// operator's identity provider, not from this tool.
pub fn mint(
    config: &CommonConfig,
    subject: &str,
    role: Role,
    ttl: Duration,
) -> anyhow::Result<String> {
    if !may_mint(config) {
        anyhow::bail!(
            "refusing to mint a token: GAMEHUB_ENV=production (tokens for a production \
             platform come from its identity provider, not from the development tool)"
        );
    }
    Ok(config.keys.mint(subject, role, ttl)?)
}

/// Whether this configuration mints development tokens (not in production).
pub fn may_mint(config: &CommonConfig) -> bool {
    config.environment != Environment::Production
}
