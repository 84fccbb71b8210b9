//! `gamehub token` and the operator's desk: bearer tokens minted here.
//!
//! With a private key (`GAMEHUB_TOKEN_KEY`, or `--key FILE`; an issuer key whose public
//! half is in the platform's JWKS) a token is signed with it (EdDSA), in any
//! environment. Without one, a development platform's tokens are signed with the shared
//! development key (HS256); production refuses, as its services would.

use std::path::Path;
use std::time::Duration;

use gamehub_platform::auth::jwks::KeySet;
use gamehub_platform::auth::{Keys, Role};
use gamehub_platform::config::{CommonConfig, Environment};

/// Mints a token for `subject` in `role`, valid for `ttl`: with the private key in
/// `key_file` when given, else with the configured keys (see the module's
/// documentation).
pub fn mint_with(
    config: &CommonConfig,
    key_file: Option<&Path>,
    subject: &str,
    role: Role,
    ttl: Duration,
) -> anyhow::Result<String> {
    if let Some(path) = key_file {
        let pem = std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("cannot read the key file {}: {e}", path.display()))?;
        let keys = Keys::with_public_keys(KeySet::default(), Some(&pem))
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        return Ok(keys.mint(subject, role, ttl)?);
    }
    mint(config, subject, role, ttl)
}

/// Mints a token for `subject` in `role`, valid for `ttl`, with the configured keys: the
/// private key of `GAMEHUB_TOKEN_KEY` when given, else (development only) the shared
/// development key.
pub fn mint(
    config: &CommonConfig,
    subject: &str,
    role: Role,
    ttl: Duration,
) -> anyhow::Result<String> {
    if config.keys.signing_kid().is_none() && !may_mint(config) {
        anyhow::bail!(
            "refusing to mint a token: GAMEHUB_ENV=production holds no shared development \
             key; give an issuer's private key (`--key FILE` or GAMEHUB_TOKEN_KEY; \
             `gamehub keys generate` makes one and its JWKS)"
        );
    }
    Ok(config.keys.mint(subject, role, ttl)?)
}

/// Whether this configuration mints development tokens with the shared development key
/// (not in production). The development web server hands players tokens only then.
pub fn may_mint(config: &CommonConfig) -> bool {
    config.environment != Environment::Production && config.keys.accepts_hmac()
}

/// A development token from the shared development key, refused in production (what
/// the development web server hands a player who names itself).
pub fn mint_development(
    config: &CommonConfig,
    subject: &str,
    role: Role,
    ttl: Duration,
) -> anyhow::Result<String> {
    if !may_mint(config) {
        anyhow::bail!(
            "development tokens are not handed out: GAMEHUB_ENV=production (tokens for a \
             production platform come from its identity provider)"
        );
    }
    Ok(config.keys.mint(subject, role, ttl)?)
}
