//! A directory of token keys, as `gamehub keys` writes and rotates them: the issuer's
//! private key (`issuer.pem`), one per service that calls others (`matchmaking.pem`,
//! `tournaments.pem`, `gomoku-referee.pem`, `doudizhu-dealer.pem`) and `jwks.json`, the public halves.
//! Point a service's `GAMEHUB_TOKEN_KEY` at the directory (or at its own file) and
//! `GAMEHUB_JWKS` at `jwks.json`. See docs/security.md.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::jwks::{self, Scope};
use super::{MATCHMAKING_SUBJECT, TOURNAMENTS_SUBJECT};

/// What went wrong, in words naming the file.
type Result<T> = std::result::Result<T, String>;

fn io<T>(path: &Path, result: std::io::Result<T>) -> Result<T> {
    result.map_err(|e| format!("{}: {e}", path.display()))
}

/// The issuer's file name.
pub const ISSUER: &str = "issuer";

/// The services that call other services and so sign their own tokens.
pub fn calling_services() -> Vec<&'static str> {
    let mut names = vec![MATCHMAKING_SUBJECT, TOURNAMENTS_SUBJECT];
    names.extend(
        gamehub_terms::games::GAMES
            .iter()
            .map(|game| game.service.identity),
    );
    names
}

fn scope_of(name: &str) -> Result<Scope> {
    if name == ISSUER {
        Ok(Scope::Issuer)
    } else if calling_services().contains(&name) {
        Ok(Scope::Service(name.to_owned()))
    } else {
        Err(format!(
            "no key is named {name:?}: name `issuer` or one of {}",
            calling_services().join(", ")
        ))
    }
}

fn jwks_path(dir: &Path) -> PathBuf {
    dir.join("jwks.json")
}

fn private_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.pem"))
}

/// Writes a private key readable by its owner only.
fn write_private(path: &Path, pem: &str) -> Result<()> {
    use std::io::Write as _;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    let mut file = options
        .open(path)
        .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    io(path, file.write_all(pem.as_bytes()))?;
    Ok(())
}

fn read_jwks(dir: &Path) -> Result<Vec<Value>> {
    let path = jwks_path(dir);
    let text = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    jwks::parse_jwks(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let value: Value = serde_json::from_slice(&text).map_err(|e| e.to_string())?;
    Ok(value["keys"].as_array().cloned().unwrap_or_default())
}

/// Writes `jwks.json` whole, through a temporary file renamed over it, so a service
/// reading it never sees half a file.
fn write_jwks(dir: &Path, keys: Vec<Value>) -> Result<()> {
    let text = serde_json::to_string_pretty(&serde_json::json!({ "keys": keys }))
        .map_err(|e| e.to_string())?;
    jwks::parse_jwks(text.as_bytes())?;
    let temporary = dir.join(".jwks.json.new");
    io(&temporary, std::fs::write(&temporary, text))?;
    io(&temporary, std::fs::rename(&temporary, jwks_path(dir)))?;
    Ok(())
}

/// `gamehub keys generate`: returns a line per file written.
pub fn generate(dir: &Path) -> Result<Vec<String>> {
    io(dir, std::fs::create_dir_all(dir))?;
    if jwks_path(dir).exists() {
        return Err(format!(
            "{} exists: use `gamehub keys rotate` to replace a key",
            jwks_path(dir).display()
        ));
    }
    let mut public = Vec::new();
    let mut lines = Vec::new();
    let mut names = vec![ISSUER];
    names.extend(calling_services());
    for name in names {
        let key = jwks::generate_key(&scope_of(name)?)?;
        let path = private_path(dir, name);
        write_private(&path, &key.private_pem)?;
        lines.push(format!("{} (kid {})", path.display(), key.kid));
        public.push(key.public_jwk);
    }
    write_jwks(dir, public)?;
    lines.push(jwks_path(dir).display().to_string());
    Ok(lines)
}

/// `gamehub keys rotate`: returns the new key's kid.
pub fn rotate(dir: &Path, name: &str) -> Result<String> {
    let scope = scope_of(name)?;
    let mut public = read_jwks(dir)?;
    let key = jwks::generate_key(&scope)?;
    let path = private_path(dir, name);
    if path.exists() {
        io(
            &path,
            std::fs::rename(&path, dir.join(format!("{name}.pem.old"))),
        )?;
    }
    write_private(&path, &key.private_pem)?;
    public.push(key.public_jwk);
    write_jwks(dir, public)?;
    Ok(key.kid)
}

/// `gamehub keys retire`.
pub fn retire(dir: &Path, kid: &str) -> Result<()> {
    let public = read_jwks(dir)?;
    let before = public.len();
    let kept: Vec<Value> = public
        .into_iter()
        .filter(|key| key["kid"].as_str() != Some(kid))
        .collect();
    if kept.len() == before {
        return Err(format!(
            "no key in {} has the kid {kid:?}",
            jwks_path(dir).display()
        ));
    }
    write_jwks(dir, kept)
}
