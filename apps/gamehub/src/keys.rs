//! `gamehub keys`: the Ed25519 key pairs of a production platform and their JWKS.
//!
//! - `generate --dir D` writes an issuer key (`issuer.pem`: signs players' and
//!   operators' tokens; keep it with whatever hands tokens out, never on a service), one
//!   key per service that calls others (`matchmaking.pem`, `gomoku-referee.pem`,
//!   `doudizhu-dealer.pem`: each signs only its own service tokens), and `jwks.json`,
//!   the public halves that every service verifies with (`GAMEHUB_JWKS`).
//! - `rotate --dir D --name N` makes a new key for `N`, keeps the old one published
//!   beside it (tokens of both verify during the overlap) and moves the old private key
//!   to `N.pem.old`.
//! - `retire --dir D --kid K` removes a key from `jwks.json`: its tokens stop verifying
//!   once services read the file again (within `GAMEHUB_JWKS_REFRESH_MS`).

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use gamehub_platform::auth::MATCHMAKING_SUBJECT;
use gamehub_platform::auth::jwks::{self, Scope};
use serde_json::Value;

/// `gamehub keys`.
#[derive(Subcommand, Debug)]
pub enum KeysCommand {
    /// Make the issuer's and every service's key pair and the JWKS in a new directory.
    Generate(DirArgs),
    /// Replace one key (issuer or a service), keeping the old one in the JWKS.
    Rotate(RotateArgs),
    /// Remove a key from the JWKS by its kid.
    Retire(RetireArgs),
}

/// Where the keys are.
#[derive(Args, Debug)]
pub struct DirArgs {
    /// The directory of the keys and `jwks.json`.
    #[arg(long)]
    pub dir: PathBuf,
}

/// `gamehub keys rotate`.
#[derive(Args, Debug)]
pub struct RotateArgs {
    /// The directory of the keys and `jwks.json`.
    #[arg(long)]
    pub dir: PathBuf,
    /// `issuer` or a service identity (matchmaking, gomoku-referee, doudizhu-dealer).
    #[arg(long)]
    pub name: String,
}

/// `gamehub keys retire`.
#[derive(Args, Debug)]
pub struct RetireArgs {
    /// The directory of the keys and `jwks.json`.
    #[arg(long)]
    pub dir: PathBuf,
    /// The kid of the key to remove.
    #[arg(long)]
    pub kid: String,
}

/// The issuer's file name.
pub const ISSUER: &str = "issuer";

/// The services that call other services and so sign their own tokens.
pub fn calling_services() -> Vec<&'static str> {
    let mut names = vec![MATCHMAKING_SUBJECT];
    names.extend(
        gamehub_terms::games::GAMES
            .iter()
            .map(|game| game.service.identity),
    );
    names
}

fn scope_of(name: &str) -> anyhow::Result<Scope> {
    if name == ISSUER {
        Ok(Scope::Issuer)
    } else if calling_services().contains(&name) {
        Ok(Scope::Service(name.to_owned()))
    } else {
        anyhow::bail!(
            "no key is named {name:?}: name `issuer` or one of {}",
            calling_services().join(", ")
        )
    }
}

/// Runs a `gamehub keys` command, printing what it wrote.
pub fn run(command: KeysCommand) -> anyhow::Result<()> {
    match command {
        KeysCommand::Generate(args) => {
            for line in generate(&args.dir)? {
                println!("{line}");
            }
        }
        KeysCommand::Rotate(args) => {
            let kid = rotate(&args.dir, &args.name)?;
            println!(
                "new key {kid} for {}; the old one stays in jwks.json until `gamehub keys retire`",
                args.name
            );
        }
        KeysCommand::Retire(args) => {
            retire(&args.dir, &args.kid)?;
            println!(
                "retired {} from {}",
                args.kid,
                jwks_path(&args.dir).display()
            );
        }
    }
    Ok(())
}

fn jwks_path(dir: &Path) -> PathBuf {
    dir.join("jwks.json")
}

fn private_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.pem"))
}

/// Writes a private key readable by its owner only.
fn write_private(path: &Path, pem: &str) -> anyhow::Result<()> {
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
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", path.display()))?;
    file.write_all(pem.as_bytes())?;
    Ok(())
}

fn read_jwks(dir: &Path) -> anyhow::Result<Vec<Value>> {
    let path = jwks_path(dir);
    let text =
        std::fs::read(&path).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    jwks::parse_jwks(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let value: Value = serde_json::from_slice(&text)?;
    Ok(value["keys"].as_array().cloned().unwrap_or_default())
}

/// Writes `jwks.json` whole, through a temporary file renamed over it, so a service
/// reading it never sees half a file.
fn write_jwks(dir: &Path, keys: Vec<Value>) -> anyhow::Result<()> {
    let text = serde_json::to_string_pretty(&serde_json::json!({ "keys": keys }))?;
    jwks::parse_jwks(text.as_bytes()).map_err(|e| anyhow::anyhow!("{e}"))?;
    let temporary = dir.join(".jwks.json.new");
    std::fs::write(&temporary, text)?;
    std::fs::rename(&temporary, jwks_path(dir))?;
    Ok(())
}

/// `gamehub keys generate`: returns a line per file written.
pub fn generate(dir: &Path) -> anyhow::Result<Vec<String>> {
    std::fs::create_dir_all(dir)?;
    if jwks_path(dir).exists() {
        anyhow::bail!(
            "{} exists: use `gamehub keys rotate` to replace a key",
            jwks_path(dir).display()
        );
    }
    let mut public = Vec::new();
    let mut lines = Vec::new();
    let mut names = vec![ISSUER];
    names.extend(calling_services());
    for name in names {
        let key = jwks::generate_key(&scope_of(name)?).map_err(|e| anyhow::anyhow!(e))?;
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
pub fn rotate(dir: &Path, name: &str) -> anyhow::Result<String> {
    let scope = scope_of(name)?;
    let mut public = read_jwks(dir)?;
    let key = jwks::generate_key(&scope).map_err(|e| anyhow::anyhow!(e))?;
    let path = private_path(dir, name);
    if path.exists() {
        std::fs::rename(&path, dir.join(format!("{name}.pem.old")))?;
    }
    write_private(&path, &key.private_pem)?;
    public.push(key.public_jwk);
    write_jwks(dir, public)?;
    Ok(key.kid)
}

/// `gamehub keys retire`.
pub fn retire(dir: &Path, kid: &str) -> anyhow::Result<()> {
    let public = read_jwks(dir)?;
    let before = public.len();
    let kept: Vec<Value> = public
        .into_iter()
        .filter(|key| key["kid"].as_str() != Some(kid))
        .collect();
    if kept.len() == before {
        anyhow::bail!("no key in {} has the kid {kid:?}", jwks_path(dir).display());
    }
    write_jwks(dir, kept)
}
