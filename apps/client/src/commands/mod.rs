//! The client's subcommands: connect, fetch, run a screen, print. Everything that
//! talks to a server or the terminal is here; what is shown is decided by the pure
//! modules beside it.
//!
//! [`run`] dispatches to one function per subcommand: `play`, `rooms` and `watch` in
//! `play`, the record commands in `records`, the wallet's views in `wallet`, the
//! tournaments in [`tournaments`]; `screens` runs a table's screen (its stream and its
//! requests) for `play`, `watch` and a tournament's tables.

mod friends;
mod play;
mod records;
mod screens;
pub mod tournaments;
mod wallet;

use std::process::ExitCode;
use std::time::Duration;

use gamehub_drive::api::{Clients, Endpoints};
use gamehub_platform::auth::Role;
use gamehub_platform::client::TokenSource;
use gamehub_platform::config::CommonConfig;
use gamehub_proto::common::GameType;
use gamehub_render::describe;

use play::{play, rooms, watch};
use records::{record_deal, record_export, replay};
use wallet::wallet;

use super::{ClientCommand, Connect, GameArg, PlayCommand, RecordCommand};

/// Runs a client subcommand.
pub async fn run(command: ClientCommand, config: &CommonConfig) -> anyhow::Result<ExitCode> {
    match command {
        ClientCommand::Play(PlayCommand::Gomoku(args)) => play(GameArg::Gomoku, args, config).await,
        ClientCommand::Play(PlayCommand::Doudizhu(args)) => {
            play(GameArg::Doudizhu, args, config).await
        }
        ClientCommand::Play(PlayCommand::Rooms(args)) => rooms(&args.connect, config).await,
        ClientCommand::Watch(args) => watch(args, config).await,
        ClientCommand::Wallet(args) => wallet(args, config).await,
        ClientCommand::Record(RecordCommand::Export(args)) => record_export(args, config).await,
        ClientCommand::Record(RecordCommand::Replay(args)) => replay(args, config).await,
        ClientCommand::Record(RecordCommand::Deal(args)) => record_deal(args, config).await,
        ClientCommand::Tournaments(command) => tournaments::tournaments(command, config).await,
    }
}

impl Connect {
    /// The services' URLs: `--host`, else the configured ones, then each URL flag.
    pub fn endpoints(&self, config: &CommonConfig) -> Endpoints {
        self.services.endpoints(config)
    }

    /// The bearer token: minted for `--player` (development), else `--token`.
    pub fn token(&self, config: &CommonConfig) -> anyhow::Result<TokenSource> {
        if let Some(player) = &self.player {
            let token = gamehub_drive::token::mint(
                config,
                player,
                Role::Player,
                Duration::from_secs(24 * 3600),
            )?;
            return Ok(TokenSource::Static(token));
        }
        match &self.token {
            Some(token) if !token.trim().is_empty() => {
                Ok(TokenSource::Static(token.trim().to_owned()))
            }
            _ => anyhow::bail!(
                "who are you? give --token TOKEN (or set GAMEHUB_TOKEN), or against a \
                 development platform --player NAME"
            ),
        }
    }

    /// Clients of every service with the player's token.
    pub fn clients(&self, config: &CommonConfig) -> anyhow::Result<Clients> {
        Clients::new(&self.endpoints(config), self.token(config)?)
    }
}

/// A refusal as an error whose text is the server's message (written for players).
fn status(status: tonic::Status) -> anyhow::Error {
    anyhow::anyhow!("{}", describe(&status))
}

/// An error as one line for the player.
fn error_text(e: &anyhow::Error) -> String {
    match e.downcast_ref::<tonic::Status>() {
        Some(s) => describe(s),
        None => format!("{e:#}"),
    }
}

/// The API's game type for the command line's.
fn game_type(game: GameArg) -> GameType {
    match game {
        GameArg::Gomoku => GameType::Gomoku,
        GameArg::Doudizhu => GameType::Doudizhu,
    }
}

/// The command line's game for the API's; None for a game this client does not play.
fn game_arg(game: GameType) -> Option<GameArg> {
    match game {
        GameType::Gomoku => Some(GameArg::Gomoku),
        GameType::Doudizhu => Some(GameArg::Doudizhu),
        GameType::Unspecified => None,
    }
}

/// Items a screen's feed holds before the screen takes them.
const FEED_BACKLOG: usize = 256;
