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

use std::path::PathBuf;

use clap::{Args, Subcommand};
use gamehub_platform::auth::key_dir;

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

/// Runs a `gamehub keys` command, printing what it wrote.
pub fn run(command: KeysCommand) -> anyhow::Result<()> {
    match command {
        KeysCommand::Generate(args) => {
            for line in key_dir::generate(&args.dir).map_err(anyhow::Error::msg)? {
                println!("{line}");
            }
        }
        KeysCommand::Rotate(args) => {
            let kid = key_dir::rotate(&args.dir, &args.name).map_err(anyhow::Error::msg)?;
            println!(
                "new key {kid} for {}; the old one stays in jwks.json until `gamehub keys retire`",
                args.name
            );
        }
        KeysCommand::Retire(args) => {
            key_dir::retire(&args.dir, &args.kid).map_err(anyhow::Error::msg)?;
            println!(
                "retired {} from {}",
                args.kid,
                args.dir.join("jwks.json").display()
            );
        }
    }
    Ok(())
}
