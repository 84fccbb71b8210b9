//! The game services as the shared services call them: open a table for matched players
//! ([`GameClient::open_table`]), find where a player sits ([`GameClient::seat_at`]) and
//! how a table's first game ended ([`TableInfo::first_game`], what tournaments read).
//! One interface for every game; each game's module speaks its own proto, and
//! [`CLIENTS`] gives the module of every registry entry. Besides its registry entry
//! (`gamehub_terms::games`), this is the one place of shared code a new game adds to: a
//! module and a line in [`CLIENTS`] (docs/adding-a-game.md).
//!
//! - [`gomoku`]: the Gomoku referee;
//! - [`doudizhu`]: the Dou Dizhu dealer.
//!
//! The clients answer in the game service's own status; what a status means to the
//! caller (retry, refusal, a table gone) is the caller's to decide.
#![forbid(unsafe_code)]

pub mod doudizhu;
pub mod gomoku;

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use gamehub_platform::client::ServiceChannel;
use gamehub_proto::common::{PlayerProfile, RoomStakes};
use gamehub_terms::games::{self, Game, TimeControl};
use tonic::Status;

/// A boxed future, so a client can be used as `dyn`.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A table to open: a room's terms and the players matched for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTable<'a> {
    /// The idempotency key: a retry with the same id answers with the same table.
    pub request_id: &'a str,
    /// The room's stakes.
    pub stakes: RoomStakes,
    /// The room's rule set, by its rule crate's name.
    pub rule_set: &'a str,
    /// The room's clock, of the game's kind.
    pub time_control: TimeControl,
    /// The players, seat 0 first (in random order already).
    pub players: &'a [String],
    /// The room's designated openings as the API writes them (`random`, an opening's
    /// id, or empty), for a game that has them.
    pub designated_opening: &'a str,
    /// Whether the table's games come in pairs, for a game that has them.
    pub paired_games: bool,
    /// How each player is shown, parallel to `players` (may be empty: shown by id).
    pub profiles: &'a [PlayerProfile],
    /// The seats the platform's bot plays (a friends' table's bots).
    pub bot_seats: &'a [u32],
    /// Whether the table is a friends' table (never listed; its records say so).
    pub friends_table: bool,
}

/// A player's seat at an open table, as the game service reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableSeat {
    /// The player's seat, from 0.
    pub seat: u32,
    /// The room the table was opened for.
    pub room_id: String,
    /// Whether a game (a deal) is going on, rather than the table waiting between games.
    pub in_progress: bool,
    /// Every player of the table, in seat order.
    pub players: Vec<String>,
}

/// A table as the shared services need to know it, whatever its game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableInfo {
    /// The room the table was opened for.
    pub room_id: String,
    /// The table goes on (not closed).
    pub open: bool,
    /// A game (a deal, also one about to be dealt) is going on, rather than the table
    /// waiting between games.
    pub in_progress: bool,
    /// Leaving now is an escape: during a game, and between the two games of a pair.
    pub leaving_escapes: bool,
    /// Every player, in seat order.
    pub players: Vec<String>,
    /// The players who left the table.
    pub left: Vec<String>,
    /// How the table's first game ended (Dou Dizhu: its first deal that was not dealt
    /// again after all passed); None while it is played.
    pub first_game: Option<GameEnd>,
}

/// How a game ended, whatever the game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameEnd {
    /// Played to its end: each seat's points (already multiplied by the points base), in
    /// seat order, and the seats that won (none for a draw, and for those left behind
    /// by an escape).
    Played { points: Vec<i64>, winners: Vec<u32> },
    /// The table closed before the game ended, and nothing was settled for it (an
    /// operator closed the table).
    Voided,
}

impl TableInfo {
    /// Where `player_id` sits, if the table goes on and the player has not left it.
    pub fn seat_of(&self, player_id: &str) -> Option<TableSeat> {
        if !self.open || self.left.iter().any(|p| p == player_id) {
            return None;
        }
        let seat = self.players.iter().position(|p| p == player_id)?;
        Some(TableSeat {
            seat: u32::try_from(seat).ok()?,
            room_id: self.room_id.clone(),
            in_progress: self.in_progress,
            players: self.players.clone(),
        })
    }
}

/// One game's service.
pub trait GameClient: Send + Sync + fmt::Debug + 'static {
    /// Opens a table (`OpenTable`) and answers its id.
    fn open_table<'a>(&'a self, table: NewTable<'a>) -> BoxFuture<'a, Result<String, Status>>;

    /// The table `table_id` as it is now (`GetTable` as a spectator). An unknown table
    /// is the service's `NOT_FOUND`.
    fn table<'a>(&'a self, table_id: &'a str) -> BoxFuture<'a, Result<TableInfo, Status>>;

    /// Makes `player_id` leave `table_id` (`Leave` with a service token naming the
    /// player): during a game an escape, paid as at any table. Idempotent on
    /// `request_id`.
    fn leave_for<'a>(
        &'a self,
        table_id: &'a str,
        player_id: &'a str,
        request_id: &'a str,
    ) -> BoxFuture<'a, Result<(), Status>>;

    /// Where `player_id` sits at `table_id`: None when the table is closed or the player
    /// is not (or no longer) seated there. An unknown table is the service's
    /// `NOT_FOUND`.
    fn seat_at<'a>(
        &'a self,
        table_id: &'a str,
        player_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TableSeat>, Status>> {
        Box::pin(async move { Ok(self.table(table_id).await?.seat_of(player_id)) })
    }
}

/// Makes a game's client on a channel to its service.
pub type Connect = fn(ServiceChannel) -> Box<dyn GameClient>;

/// Every game's client, by registry entry.
pub static CLIENTS: [(&Game, Connect); 2] = [
    (&games::GOMOKU, gomoku::connect),
    (&games::DOUDIZHU, doudizhu::connect),
];

/// `game`'s client on `channel`; None for a game without a client here (a test fails
/// for any registry entry without one).
pub fn connect(game: &Game, channel: ServiceChannel) -> Option<Box<dyn GameClient>> {
    CLIENTS
        .iter()
        .find(|(g, _)| *g == game)
        .map(|(_, connect)| connect(channel))
}

fn seats_i32(seats: &[u32]) -> Vec<i32> {
    seats
        .iter()
        .map(|&s| i32::try_from(s).unwrap_or(i32::MAX))
        .collect()
}

fn to_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_registered_game_has_one_client() {
        let clients: Vec<&Game> = CLIENTS.iter().map(|(game, _)| *game).collect();
        assert_eq!(clients, games::GAMES);
    }
}
