//! The terminal client: `gamehub play`, `watch`, `wallet`, `record` and `tournaments`.
//! It talks to a running platform through the public gRPC API only, like any front-end.
//!
//! - [`term`]: the terminal (raw mode, a frame redrawn line by line) and the command
//!   line editor;
//! - [`app`]: the thin loop every screen runs on (keys, a feed, replies, a tick);
//! - [`follow`]: a table's event stream kept going across network drops (resume after
//!   the last event id, a fresh snapshot when told);
//! - [`screen`]: what every table screen shows at the bottom (connection, requests in
//!   flight, the server's messages, the prompt);
//! - [`table`]: what the Gomoku and Dou Dizhu screens keep and do alike (the table
//!   as last described, catching up with the stream, the log, leave / next / quit);
//! - [`queue`], [`gomoku`], [`doudizhu`], [`record`], [`tournament`]: the screens, pure
//!   state, input parsing and rendering;
//! - [`commands`]: the subcommands, which connect, fetch and run the screens.
//!
//! Beside it: `gamehub-drive` (where the services are, tokens, retries, seating) and
//! `gamehub-render` (boards, cards and the ledger as text, shared with the operator's
//! desk and the demo). The `gamehub` binary flattens [`ClientCommand`] into its own
//! subcommands; its tests drive this client in tmux (`apps/gamehub/tests/terminal.rs`).
//!
//! The client never judges a move: the server does, and its refusals are shown as
//! they are written (for players). The rule crates are used only to read what the
//! player typed (`h8`, `334455`), to mark forbidden points in a replay and to check a
//! finished deal's shuffle by its revealed seed.
#![forbid(unsafe_code)]

pub mod app;
pub mod commands;
pub mod doudizhu;
pub mod follow;
pub mod gomoku;
pub mod queue;
pub mod record;
pub mod screen;
pub mod table;
pub mod term;
pub mod tournament;

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use gamehub_drive::api::Services;

pub use commands::run;

/// Where the platform is and who the player is.
#[derive(Args, Debug, Clone, Default)]
pub struct Connect {
    /// Where the services are.
    #[command(flatten)]
    pub services: Services,
    /// The player's bearer token (a JWT from the platform's identity provider).
    #[arg(long, global = true, env = "GAMEHUB_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Development platforms only: play as this player with a token minted from the
    /// development key (GAMEHUB_JWT_SECRET). Wins over --token.
    #[arg(long, global = true)]
    pub player: Option<String>,
}

/// The client's subcommands (flattened into `gamehub`'s).
#[derive(Subcommand, Debug)]
pub enum ClientCommand {
    /// Play in this terminal: queue for a room, play the table, see the result and the
    /// silver it moved. `gamehub play rooms` lists the rooms.
    #[command(subcommand)]
    Play(PlayCommand),
    /// Watch a table as a spectator (Gomoku: the whole board; Dou Dizhu: no hands).
    Watch(WatchArgs),
    /// Silver, today's caps, points, titles, rating and leaderboard places; history,
    /// finished games and leaderboards.
    Wallet(WalletArgs),
    /// Game records: export a finished Gomoku game, replay a record ply by ply, show
    /// and verify a Dou Dizhu deal.
    #[command(subcommand)]
    Record(RecordCommand),
    /// Tournaments (比赛): list them, register (the entry fee is held) or unregister,
    /// show the standings and pairings, and play: follow a tournament and play each of
    /// your games in this terminal as it seats you.
    #[command(subcommand, alias = "tournament")]
    Tournaments(TournamentsCommand),
}

/// `gamehub tournaments …`.
#[derive(Subcommand, Debug)]
pub enum TournamentsCommand {
    /// Tournaments open for registration and running, newest first: id, name, game,
    /// room, players, fee, pool, start or round (--all: finished and cancelled too).
    List(TournamentListArgs),
    /// One tournament: its settings and prizes, where you stand, the last round's
    /// pairings and results (--rounds: every round), the standings and prizes paid.
    Show(TournamentShowArgs),
    /// Register for a tournament. Its entry fee is held at once and given back in full
    /// if you unregister before the start or it is cancelled.
    Register(TournamentArgs),
    /// Unregister before the start; the entry fee is given back in full.
    Unregister(TournamentArgs),
    /// Follow a tournament and play it: each time it seats you at a new table, that
    /// table's screen opens (as in `gamehub play`); when the game is over you are back
    /// with the tournament, until it ends with the final standings and prizes.
    Play(TournamentArgs),
}

/// `gamehub tournaments list`.
#[derive(Args, Debug, Clone)]
pub struct TournamentListArgs {
    #[command(flatten)]
    pub connect: Connect,
    /// Only tournaments of this game.
    #[arg(long, value_enum)]
    pub game: Option<GameArg>,
    /// Also the finished and cancelled ones.
    #[arg(long)]
    pub all: bool,
}

/// `gamehub tournaments show`.
#[derive(Args, Debug, Clone)]
pub struct TournamentShowArgs {
    #[command(flatten)]
    pub connect: Connect,
    /// The tournament's id (tn-…, from `gamehub tournaments list`).
    pub tournament: String,
    /// Every round's pairings and results, not only the last round's.
    #[arg(long)]
    pub rounds: bool,
}

/// A tournament to register for, leave or play.
#[derive(Args, Debug, Clone)]
pub struct TournamentArgs {
    #[command(flatten)]
    pub connect: Connect,
    /// The tournament's id (tn-…, from `gamehub tournaments list`).
    pub tournament: String,
}

/// `gamehub play …`.
#[derive(Subcommand, Debug)]
pub enum PlayCommand {
    /// Gomoku / Renju (五子棋). Type moves as points (h8); `help` on the table screen
    /// lists resign, draw, claim, swap, the fifth-move proposals, next and leave.
    Gomoku(PlayArgs),
    /// Dou Dizhu (斗地主). Type plays as ranks (334455, 10JQKA, XD), `pass`, bids 1-3;
    /// Tab fills in the next legal play (the server's hint).
    Doudizhu(PlayArgs),
    /// List the rooms with their rules, clocks, stakes and queues.
    Rooms(RoomsArgs),
}

/// Where to play.
#[derive(Args, Debug, Clone)]
pub struct PlayArgs {
    #[command(flatten)]
    pub connect: Connect,
    /// The room to queue for [default: gomoku-free / doudizhu-free, which need no
    /// silver]. Paid rooms: gomoku-freestyle, gomoku-renju, gomoku-renju-claim,
    /// gomoku-renju-refuse, gomoku-renju-swap, doudizhu-classic.
    #[arg(long)]
    pub room: Option<String>,
    /// Go back to a table you are seated at (after quitting the client or a crash)
    /// instead of queueing.
    #[arg(long, conflicts_with = "room")]
    pub table: Option<String>,
    /// Open a friends' table (好友房) with the room's rules instead of queueing, and
    /// print its code for friends to join with --code.
    #[arg(long, conflicts_with_all = ["table", "code"])]
    pub friends: bool,
    /// Sit at a friends' table by its code (e.g. K7QX2M), whatever its game.
    #[arg(long, conflicts_with_all = ["table", "room"])]
    pub code: Option<String>,
    /// With --friends in a free room: fill the empty seats with the platform's bots.
    #[arg(long, requires = "friends")]
    pub bots: bool,
}

/// `gamehub play rooms`.
#[derive(Args, Debug, Clone)]
pub struct RoomsArgs {
    #[command(flatten)]
    pub connect: Connect,
}

/// The two games.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameArg {
    /// Gomoku / Renju.
    Gomoku,
    /// Dou Dizhu.
    Doudizhu,
}

/// `gamehub watch`.
#[derive(Args, Debug, Clone)]
pub struct WatchArgs {
    #[command(flatten)]
    pub connect: Connect,
    /// The table's game.
    #[arg(long, value_enum, required_unless_present = "list")]
    pub game: Option<GameArg>,
    /// The table's id (players see it in their screen's title; --list shows a room's).
    #[arg(long, required_unless_present = "list")]
    pub table: Option<String>,
    /// List a room's live tables to watch (players, game, moves, spectators) and exit.
    #[arg(long, value_name = "ROOM", conflicts_with = "table")]
    pub list: Option<String>,
}

/// `gamehub wallet`.
#[derive(Args, Debug, Clone)]
pub struct WalletArgs {
    #[command(flatten)]
    pub connect: Connect,
    #[command(subcommand)]
    pub view: Option<WalletView>,
}

/// What of the wallet to show (the account when none).
#[derive(Subcommand, Debug, Clone)]
pub enum WalletView {
    /// Balance, today's caps, points and titles per game, counts, rating, places.
    Show,
    /// Changes of silver, points, title and rating, newest first, a page at a time.
    History {
        /// Only one kind of change.
        #[arg(long, value_enum)]
        kind: Option<HistoryKindArg>,
        /// Entries per page (1-200).
        #[arg(long, default_value_t = 20)]
        page_size: i32,
        /// Start at this page (the token printed after the previous page).
        #[arg(long, default_value = "")]
        page: String,
        /// How many pages to print.
        #[arg(long, default_value_t = 1)]
        pages: u32,
    },
    /// Finished games, newest first, a page at a time.
    Games {
        /// Only one game.
        #[arg(long, value_enum)]
        game: Option<GameArg>,
        /// Games per page (1-200).
        #[arg(long, default_value_t = 20)]
        page_size: i32,
        /// Start at this page (the token printed after the previous page).
        #[arg(long, default_value = "")]
        page: String,
        /// How many pages to print.
        #[arg(long, default_value_t = 1)]
        pages: u32,
    },
    /// A leaderboard: the top, or the rows around a player.
    Leaderboard {
        /// Which board.
        #[arg(value_enum, default_value = "gomoku-rating")]
        board: BoardArg,
        /// Rows (1-100).
        #[arg(long, default_value_t = 10)]
        limit: i32,
        /// The rows around this player instead of the top.
        #[arg(long)]
        around: Option<String>,
    },
}

/// Kinds of history.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistoryKindArg {
    /// Silver moved.
    Silver,
    /// Points changed.
    Points,
    /// Title changed.
    Title,
    /// Rating changed.
    Rating,
}

/// Leaderboards.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoardArg {
    /// Gomoku points (积分).
    GomokuPoints,
    /// Dou Dizhu points (积分).
    DoudizhuPoints,
    /// Gomoku rating (段位).
    GomokuRating,
}

/// `gamehub record …`.
#[derive(Subcommand, Debug, Clone)]
pub enum RecordCommand {
    /// Save a finished Gomoku game of a table to a file (text with every action, or
    /// Piskvork PSQ with the stones).
    Export(ExportArgs),
    /// Step through a Gomoku record ply by ply (← →, Home, End, PgUp, PgDn, q): from a
    /// file, a table's finished game, or a game id of `gamehub wallet games`.
    Replay(ReplayArgs),
    /// Show a finished Dou Dizhu deal (hands as dealt, bids, plays, result) and verify
    /// its shuffle: the revealed seed must hash to the commitment published at the deal
    /// and reproduce every hand.
    Deal(DealArgs),
}

/// Record file formats.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormatArg {
    /// gamehub's text record (every action).
    Text,
    /// Piskvork/Gomocup PSQ (stones only).
    Psq,
}

/// Rules to replay a PSQ file under (PSQ does not say).
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum RulesArg {
    /// Freestyle.
    Freestyle,
    /// Renju, a forbidden move loses (also for swap-room games).
    RenjuLose,
    /// Renju, forbidden points refused.
    RenjuRefuse,
    /// Renju, white claims.
    RenjuClaim,
}

/// `gamehub record export`.
#[derive(Args, Debug, Clone)]
pub struct ExportArgs {
    #[command(flatten)]
    pub connect: Connect,
    /// The Gomoku table.
    #[arg(long)]
    pub table: String,
    /// The game's number at the table [default: the last finished game].
    #[arg(long, default_value_t = 0)]
    pub game_number: i32,
    /// The file format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: FormatArg,
    /// Where to write [default: the server's suggested name in this directory]; `-`
    /// prints it.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// `gamehub record replay`.
#[derive(Args, Debug, Clone)]
pub struct ReplayArgs {
    #[command(flatten)]
    pub connect: Connect,
    /// A record file (text, or PSQ when it ends in .psq or --format psq says so).
    #[arg(conflicts_with_all = ["table", "game_id"])]
    pub file: Option<PathBuf>,
    /// The file's format [default: by its extension].
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,
    /// PSQ only: the rules to replay it under [default: freestyle].
    #[arg(long, value_enum)]
    pub rules: Option<RulesArg>,
    /// Replay a finished game of this Gomoku table instead of a file.
    #[arg(long, conflicts_with = "game_id")]
    pub table: Option<String>,
    /// With --table: the game's number [default: the last finished game].
    #[arg(long, default_value_t = 0)]
    pub game_number: i32,
    /// Replay this finished game from the ledger (ids from `gamehub wallet games`).
    #[arg(long)]
    pub game_id: Option<String>,
}

/// `gamehub record deal`.
#[derive(Args, Debug, Clone)]
pub struct DealArgs {
    #[command(flatten)]
    pub connect: Connect,
    /// The Dou Dizhu table.
    #[arg(long)]
    pub table: String,
    /// The deal's number at the table.
    #[arg(long, default_value_t = 1)]
    pub deal: i32,
    /// Also write the record (JSON) to this file.
    #[arg(long)]
    pub out: Option<PathBuf>,
}
