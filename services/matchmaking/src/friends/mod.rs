//! Friends' tables (好友房, docs/rules.md#friends-tables): a table a player opens with a
//! room's rules and shares by a code, whose seats fill by that code, whose players say
//! ready, and which opens a table at the game service each time everyone is ready.
//!
//! - this file: the table as stored, and its rules as pure transitions (who may sit,
//!   ready, leave, remove, add bots, close; when a game starts; what a closed game
//!   table leaves behind);
//! - [`code`]: the codes (alphabet, drawing, reading what a player typed);
//! - [`store`]: the tables in Redis (one compare-and-set step per change, announced to
//!   watchers), per-player indexes, the code-miss limit.
//!
//! The calls, with the ledger's and the game services' parts, and the sweeper that
//! starts, reconciles and closes tables, are the API's (`crate::api::friends`).

pub mod code;
pub mod store;

use gamehub_proto::common::PlayerProfile;
use serde::{Deserialize, Serialize};

/// Why a friends' table call was refused. Each message starts with its stable code
/// (docs/rules.md#stable-error-codes).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// No table ever had the code.
    #[error("unknown_code: no friends' table has the code {0}; check the code")]
    UnknownCode(String),
    /// The table closed.
    #[error("table_closed: the friends' table {0} is closed; open a new one")]
    Closed(String),
    /// Every seat is taken.
    #[error("table_full: every seat of the friends' table {0} is taken")]
    Full(String),
    /// The seat asked for is taken.
    #[error("seat_taken: seat {seat} of the friends' table {code} is taken; pick a free seat")]
    SeatTaken {
        /// The table.
        code: String,
        /// The seat.
        seat: usize,
    },
    /// The seat asked for does not exist.
    #[error("seat: the friends' table {code} has seats 0 to {last}")]
    NoSuchSeat {
        /// The table.
        code: String,
        /// The last seat.
        last: usize,
    },
    /// Not while a game is being played.
    #[error("game_in_progress: a game is being played at the friends' table {0}; {1}")]
    GameInProgress(String, &'static str),
    /// The caller does not sit at the table.
    #[error("not_seated: player {player} does not sit at the friends' table {code}")]
    NotSeated {
        /// The table.
        code: String,
        /// The player.
        player: String,
    },
    /// Only the owner may.
    #[error("not_owner: only the owner {owner} of the friends' table {code} may {what}")]
    NotOwner {
        /// The table.
        code: String,
        /// The owner.
        owner: String,
        /// What was asked.
        what: &'static str,
    },
    /// Bots sit at free rooms' tables only.
    #[error(
        "bots_free_rooms_only: the room {0} is paid; bots sit only at friends' tables of free rooms"
    )]
    BotsFreeRoomsOnly(String),
}

/// A seated player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sitter {
    /// The player's id.
    pub player_id: String,
    /// The platform's bot plays the seat.
    #[serde(default)]
    pub bot: bool,
    /// Said ready (bots always are).
    #[serde(default)]
    pub ready: bool,
    /// The name it had when it sat down (empty: shown by id).
    #[serde(default)]
    pub name: String,
    /// Its title in the room's game when it sat down.
    #[serde(default)]
    pub title: String,
    /// Gomoku: its rating when it sat down.
    #[serde(default)]
    pub rating: i64,
    /// Gomoku: the rating's rank name.
    #[serde(default)]
    pub rank_name: String,
}

impl Sitter {
    /// A human who just sat down, shown as `profile` says.
    pub fn player(player_id: &str, profile: &PlayerProfile) -> Self {
        Self {
            player_id: player_id.to_owned(),
            bot: false,
            ready: false,
            name: profile.name.clone(),
            title: profile.title.clone(),
            rating: profile.rating,
            rank_name: profile.rank_name.clone(),
        }
    }

    /// The platform's bot in `seat` of the table `code`.
    pub fn bot(code: &str, seat: usize) -> Self {
        Self {
            player_id: bot_id(code, seat),
            bot: true,
            ready: true,
            name: String::new(),
            title: String::new(),
            rating: 0,
            rank_name: String::new(),
        }
    }

    /// How the player is shown.
    pub fn profile(&self) -> PlayerProfile {
        PlayerProfile {
            name: self.name.clone(),
            title: self.title.clone(),
            rating: self.rating,
            rank_name: self.rank_name.clone(),
            bot: self.bot,
        }
    }
}

/// The id of the bot in `seat` of the table `code`: `bot-` (the prefix the game
/// services require of a bot seat), the code in lower case, the seat.
pub fn bot_id(code: &str, seat: usize) -> String {
    format!(
        "{}{}-{seat}",
        gamehub_terms::names::BOT_ID_PREFIX,
        code.to_ascii_lowercase()
    )
}

/// Why a table closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CloseReason {
    /// The owner closed it.
    Owner,
    /// Its last player left.
    Empty,
    /// No game for the idle time.
    Idle,
}

/// Where a table is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Stage {
    /// Seats fill, players say ready.
    Lobby,
    /// Everyone is ready: the game table is being opened with this request id (the
    /// game service opens it once whatever the retries).
    Starting {
        /// OpenTable's request id.
        request_id: String,
        /// When the start began, ms.
        since_ms: u64,
    },
    /// A game table is open.
    Playing {
        /// Its id at the game service.
        table_id: String,
    },
    /// Closed (final).
    Closed {
        /// Why.
        reason: CloseReason,
        /// When, ms.
        at_ms: u64,
    },
}

/// A friends' table as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FriendsTable {
    /// The code.
    pub code: String,
    /// The room whose rules it plays.
    pub room_id: String,
    /// The owner.
    pub owner: String,
    /// Every seat, free ones `None`.
    pub seats: Vec<Option<Sitter>>,
    /// Where it is.
    pub stage: Stage,
    /// Game tables opened so far.
    pub tables_opened: u32,
    /// When it opened, ms.
    pub created_ms: u64,
    /// Since when no game has been played (the idle close counts from here), ms.
    pub idle_since_ms: u64,
    /// Goes up at each change.
    pub version: u64,
}

/// What a transition asks of the caller beyond storing the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Then {
    /// Nothing more.
    Nothing,
    /// Open the game table (the table is now Starting).
    Start,
}

impl FriendsTable {
    /// A new table of a room with `seats` seats, its owner in seat 0.
    pub fn open(code: &str, room_id: &str, seats: usize, owner: Sitter, now_ms: u64) -> Self {
        let mut all = vec![None; seats.max(1)];
        let owner_id = owner.player_id.clone();
        all[0] = Some(owner);
        Self {
            code: code.to_owned(),
            room_id: room_id.to_owned(),
            owner: owner_id,
            seats: all,
            stage: Stage::Lobby,
            tables_opened: 0,
            created_ms: now_ms,
            idle_since_ms: now_ms,
            version: 0,
        }
    }

    /// Whether the table closed.
    pub fn is_closed(&self) -> bool {
        matches!(self.stage, Stage::Closed { .. })
    }

    /// The seat `player` holds.
    pub fn seat_of(&self, player: &str) -> Option<usize> {
        self.seats
            .iter()
            .position(|s| s.as_ref().is_some_and(|s| s.player_id == player))
    }

    /// The seated humans, in seat order.
    pub fn humans(&self) -> impl Iterator<Item = &Sitter> {
        self.seats.iter().flatten().filter(|s| !s.bot)
    }

    /// When the lobby closes for want of a game, ms; None unless in the lobby.
    pub fn closes_at_ms(&self, idle_ms: u64) -> Option<u64> {
        matches!(self.stage, Stage::Lobby).then(|| self.idle_since_ms.saturating_add(idle_ms))
    }

    fn refuse_unless_open(&self) -> Result<(), Refusal> {
        if self.is_closed() {
            return Err(Refusal::Closed(self.code.clone()));
        }
        Ok(())
    }

    fn refuse_unless_lobby(&self, then: &'static str) -> Result<(), Refusal> {
        self.refuse_unless_open()?;
        match self.stage {
            Stage::Lobby => Ok(()),
            _ => Err(Refusal::GameInProgress(self.code.clone(), then)),
        }
    }

    fn refuse_unless_owner(&self, caller: &str, what: &'static str) -> Result<(), Refusal> {
        if self.owner != caller {
            return Err(Refusal::NotOwner {
                code: self.code.clone(),
                owner: self.owner.clone(),
                what,
            });
        }
        Ok(())
    }

    fn seated(&self, player: &str) -> Result<usize, Refusal> {
        self.seat_of(player).ok_or_else(|| Refusal::NotSeated {
            code: self.code.clone(),
            player: player.to_owned(),
        })
    }

    /// Sits `sitter` in `seat` (or the first free one). Sitting where one sits changes
    /// nothing.
    pub fn join(&mut self, sitter: Sitter, seat: Option<usize>) -> Result<(), Refusal> {
        self.refuse_unless_open()?;
        if self.seat_of(&sitter.player_id).is_some() {
            return Ok(());
        }
        self.refuse_unless_lobby("join between games")?;
        let seat = match seat {
            Some(seat) if seat >= self.seats.len() => {
                return Err(Refusal::NoSuchSeat {
                    code: self.code.clone(),
                    last: self.seats.len() - 1,
                });
            }
            Some(seat) if self.seats[seat].is_some() => {
                return Err(Refusal::SeatTaken {
                    code: self.code.clone(),
                    seat,
                });
            }
            Some(seat) => seat,
            None => self
                .seats
                .iter()
                .position(Option::is_none)
                .ok_or_else(|| Refusal::Full(self.code.clone()))?,
        };
        self.seats[seat] = Some(sitter);
        Ok(())
    }

    /// `player` says ready (or not). When every seat is taken and ready, the table
    /// starts (`Then::Start`) with `request_id` for the game service.
    pub fn set_ready(&mut self, player: &str, ready: bool, now_ms: u64) -> Result<Then, Refusal> {
        self.refuse_unless_open()?;
        let seat = self.seated(player)?;
        self.refuse_unless_lobby(
            "the game table's NextGame / NextDeal is the ready between games",
        )?;
        if let Some(sitter) = self.seats[seat].as_mut() {
            sitter.ready = ready;
        }
        Ok(self.start_if_ready(now_ms))
    }

    /// Starts when every seat is taken and ready.
    fn start_if_ready(&mut self, now_ms: u64) -> Then {
        let all_ready = self
            .seats
            .iter()
            .all(|s| s.as_ref().is_some_and(|s| s.ready));
        if !all_ready || !matches!(self.stage, Stage::Lobby) {
            return Then::Nothing;
        }
        self.tables_opened += 1;
        self.stage = Stage::Starting {
            request_id: format!("friends-{}-{}", self.code, self.tables_opened),
            since_ms: now_ms,
        };
        Then::Start
    }

    /// The owner fills the empty seats with bots (free rooms only: `free_room`).
    pub fn add_bots(
        &mut self,
        caller: &str,
        free_room: bool,
        now_ms: u64,
    ) -> Result<Then, Refusal> {
        self.refuse_unless_open()?;
        self.refuse_unless_owner(caller, "add bots")?;
        if !free_room {
            return Err(Refusal::BotsFreeRoomsOnly(self.room_id.clone()));
        }
        self.refuse_unless_lobby("add bots between games")?;
        let code = self.code.clone();
        for (seat, place) in self.seats.iter_mut().enumerate() {
            if place.is_none() {
                *place = Some(Sitter::bot(&code, seat));
            }
        }
        Ok(self.start_if_ready(now_ms))
    }

    /// Frees `player`'s seat. The next human in seat order owns the table when the
    /// owner leaves; the table closes when no human is left. While a game table is
    /// open the caller has made the player leave it first: the table is back in its
    /// lobby (`game_closed` says what else that table left behind).
    pub fn leave(&mut self, player: &str, now_ms: u64) -> Result<(), Refusal> {
        self.refuse_unless_open()?;
        let seat = self.seated(player)?;
        if matches!(self.stage, Stage::Starting { .. }) {
            return Err(Refusal::GameInProgress(
                self.code.clone(),
                "the game is starting; retry in a moment",
            ));
        }
        self.seats[seat] = None;
        self.settle_after_departure(now_ms);
        Ok(())
    }

    /// The owner removes `player` (a human or a bot). In the lobby, or between games
    /// once the caller made the player leave the game table.
    pub fn remove(&mut self, caller: &str, player: &str, now_ms: u64) -> Result<(), Refusal> {
        self.refuse_unless_open()?;
        self.refuse_unless_owner(caller, "remove a player")?;
        let seat = self.seated(player)?;
        if matches!(self.stage, Stage::Starting { .. }) {
            return Err(Refusal::GameInProgress(
                self.code.clone(),
                "the game is starting; remove between games",
            ));
        }
        self.seats[seat] = None;
        self.settle_after_departure(now_ms);
        Ok(())
    }

    /// After a departure: the owner's seat passes on, an empty table closes, and a game
    /// table (which a departure closes) gives way to the lobby.
    fn settle_after_departure(&mut self, now_ms: u64) {
        if let Stage::Playing { .. } = self.stage {
            self.back_to_lobby(now_ms);
        }
        if self.seat_of(&self.owner).is_none() {
            let next = self.humans().next().map(|s| s.player_id.clone());
            match next {
                Some(next) => self.owner = next,
                None => {
                    self.close(CloseReason::Empty, now_ms);
                }
            }
        }
    }

    fn back_to_lobby(&mut self, now_ms: u64) {
        self.stage = Stage::Lobby;
        self.idle_since_ms = now_ms;
        for sitter in self.seats.iter_mut().flatten() {
            sitter.ready = sitter.bot;
        }
    }

    /// The owner closes the table (during a game the caller made the owner leave the
    /// game table first). Closing a closed table changes nothing.
    pub fn close_by(&mut self, caller: &str, now_ms: u64) -> Result<(), Refusal> {
        if self.is_closed() {
            return Ok(());
        }
        self.refuse_unless_owner(caller, "close the table")?;
        if matches!(self.stage, Stage::Starting { .. }) {
            return Err(Refusal::GameInProgress(
                self.code.clone(),
                "the game is starting; retry in a moment",
            ));
        }
        self.close(CloseReason::Owner, now_ms);
        Ok(())
    }

    fn close(&mut self, reason: CloseReason, now_ms: u64) {
        self.stage = Stage::Closed {
            reason,
            at_ms: now_ms,
        };
    }

    /// The game table opened: the table plays there.
    pub fn started(&mut self, request_id: &str, table_id: &str) -> bool {
        match &self.stage {
            Stage::Starting { request_id: r, .. } if r == request_id => {
                self.stage = Stage::Playing {
                    table_id: table_id.to_owned(),
                };
                true
            }
            _ => false,
        }
    }

    /// The game table could not be opened, for good: back to the lobby, everyone to say
    /// ready again.
    pub fn start_failed(&mut self, request_id: &str, now_ms: u64) -> bool {
        match &self.stage {
            Stage::Starting { request_id: r, .. } if r == request_id => {
                self.back_to_lobby(now_ms);
                true
            }
            _ => false,
        }
    }

    /// The game table `table_id` closed and `left` left it: they lose their seats, the
    /// rest are back in the lobby (not ready), and a table without humans closes.
    pub fn game_closed(&mut self, table_id: &str, left: &[String], now_ms: u64) -> bool {
        match &self.stage {
            Stage::Playing { table_id: t } if t == table_id => {}
            _ => return false,
        }
        for place in &mut self.seats {
            if place.as_ref().is_some_and(|s| left.contains(&s.player_id)) {
                *place = None;
            }
        }
        self.back_to_lobby(now_ms);
        self.settle_after_departure(now_ms);
        true
    }

    /// Closes a lobby that waited `idle_ms` without a game.
    pub fn close_if_idle(&mut self, idle_ms: u64, now_ms: u64) -> bool {
        match self.closes_at_ms(idle_ms) {
            Some(at) if now_ms >= at => {
                self.close(CloseReason::Idle, now_ms);
                true
            }
            _ => false,
        }
    }

    /// The players and their bot seats, seat 0 first (every seat taken).
    pub fn lineup(&self) -> Option<(Vec<String>, Vec<PlayerProfile>, Vec<u32>)> {
        let mut players = Vec::with_capacity(self.seats.len());
        let mut profiles = Vec::with_capacity(self.seats.len());
        let mut bots = Vec::new();
        for (seat, place) in self.seats.iter().enumerate() {
            let sitter = place.as_ref()?;
            players.push(sitter.player_id.clone());
            profiles.push(sitter.profile());
            if sitter.bot {
                bots.push(u32::try_from(seat).ok()?);
            }
        }
        Some((players, profiles, bots))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn human(id: &str) -> Sitter {
        Sitter::player(id, &PlayerProfile::default())
    }

    fn table(seats: usize) -> FriendsTable {
        FriendsTable::open("K7QX2M", "gomoku-free", seats, human("ann"), 1_000)
    }

    #[test]
    fn the_first_free_seat_is_taken_and_a_full_table_refuses() {
        let mut t = table(2);
        t.join(human("bob"), None).unwrap();
        assert_eq!(t.seat_of("bob"), Some(1));
        assert_eq!(
            t.join(human("cy"), None),
            Err(Refusal::Full("K7QX2M".into()))
        );
        // Sitting again where one sits changes nothing.
        t.join(human("bob"), None).unwrap();
        assert_eq!(t.seat_of("bob"), Some(1));
    }

    #[test]
    fn a_taken_or_missing_seat_is_refused_by_number() {
        let mut t = table(3);
        assert!(matches!(
            t.join(human("bob"), Some(0)),
            Err(Refusal::SeatTaken { seat: 0, .. })
        ));
        assert!(matches!(
            t.join(human("bob"), Some(3)),
            Err(Refusal::NoSuchSeat { last: 2, .. })
        ));
        t.join(human("bob"), Some(2)).unwrap();
        assert_eq!(t.seat_of("bob"), Some(2));
    }

    #[test]
    fn the_game_starts_when_every_seat_is_taken_and_ready() {
        let mut t = table(2);
        assert_eq!(t.set_ready("ann", true, 2_000), Ok(Then::Nothing));
        t.join(human("bob"), None).unwrap();
        assert_eq!(t.set_ready("bob", true, 2_000), Ok(Then::Start));
        assert_eq!(
            t.stage,
            Stage::Starting {
                request_id: "friends-K7QX2M-1".into(),
                since_ms: 2_000
            }
        );
        assert!(t.started("friends-K7QX2M-1", "gt-1"));
        // Joining, readying and adding bots wait for the game table to close.
        assert!(matches!(
            t.join(human("cy"), None),
            Err(Refusal::GameInProgress(..))
        ));
        assert!(matches!(
            t.set_ready("ann", false, 3_000),
            Err(Refusal::GameInProgress(..))
        ));
    }

    #[test]
    fn a_closed_game_table_brings_the_players_back_to_the_lobby_not_ready() {
        let mut t = table(2);
        t.join(human("bob"), None).unwrap();
        t.set_ready("ann", true, 2_000).unwrap();
        t.set_ready("bob", true, 2_000).unwrap();
        t.started("friends-K7QX2M-1", "gt-1");
        assert!(!t.game_closed("gt-other", &[], 5_000));
        assert!(t.game_closed("gt-1", &["bob".into()], 5_000));
        assert_eq!(t.stage, Stage::Lobby);
        assert_eq!(t.seat_of("bob"), None);
        assert!(!t.seats[0].as_ref().unwrap().ready);
        assert_eq!(t.idle_since_ms, 5_000);
        // The next start has a new request id.
        t.join(human("cy"), None).unwrap();
        t.set_ready("ann", true, 6_000).unwrap();
        t.set_ready("cy", true, 6_000).unwrap();
        assert!(
            matches!(&t.stage, Stage::Starting { request_id, .. } if request_id == "friends-K7QX2M-2")
        );
    }

    #[test]
    fn the_owners_seat_passes_on_and_the_last_human_closes_the_table() {
        let mut t = table(3);
        t.join(human("bob"), None).unwrap();
        t.add_bots("ann", true, 2_000).unwrap();
        t.leave("ann", 3_000).unwrap();
        assert_eq!(t.owner, "bob");
        t.leave("bob", 4_000).unwrap();
        assert_eq!(
            t.stage,
            Stage::Closed {
                reason: CloseReason::Empty,
                at_ms: 4_000
            }
        );
        assert_eq!(
            t.join(human("cy"), None),
            Err(Refusal::Closed("K7QX2M".into()))
        );
    }

    #[test]
    fn only_the_owner_removes_adds_bots_or_closes() {
        let mut t = table(3);
        t.join(human("bob"), None).unwrap();
        assert!(matches!(
            t.remove("bob", "ann", 2_000),
            Err(Refusal::NotOwner { .. })
        ));
        assert!(matches!(
            t.add_bots("bob", true, 2_000),
            Err(Refusal::NotOwner { .. })
        ));
        assert!(matches!(
            t.close_by("bob", 2_000),
            Err(Refusal::NotOwner { .. })
        ));
        t.remove("ann", "bob", 2_000).unwrap();
        assert_eq!(t.seat_of("bob"), None);
        t.close_by("ann", 3_000).unwrap();
        assert!(t.is_closed());
        // Closing again changes nothing.
        t.close_by("bob", 4_000).unwrap();
    }

    #[test]
    fn bots_sit_only_in_free_rooms_and_are_always_ready() {
        let mut t = table(3);
        assert_eq!(
            t.add_bots("ann", false, 2_000),
            Err(Refusal::BotsFreeRoomsOnly("gomoku-free".into()))
        );
        t.set_ready("ann", true, 2_000).unwrap();
        assert_eq!(t.add_bots("ann", true, 2_000), Ok(Then::Start));
        let (players, profiles, bots) = t.lineup().unwrap();
        assert_eq!(players, ["ann", "bot-k7qx2m-1", "bot-k7qx2m-2"]);
        assert_eq!(bots, [1, 2]);
        assert!(profiles[1].bot && !profiles[0].bot);
    }

    #[test]
    fn an_idle_lobby_closes_after_its_time_and_not_before() {
        let mut t = table(2);
        assert!(!t.close_if_idle(600_000, 600_999));
        assert!(t.close_if_idle(600_000, 601_000));
        assert!(matches!(
            t.stage,
            Stage::Closed {
                reason: CloseReason::Idle,
                ..
            }
        ));
    }

    #[test]
    fn a_failed_start_returns_to_the_lobby_once() {
        let mut t = table(2);
        t.join(human("bob"), None).unwrap();
        t.set_ready("ann", true, 2_000).unwrap();
        t.set_ready("bob", true, 2_000).unwrap();
        assert!(!t.start_failed("friends-K7QX2M-9", 3_000));
        assert!(t.start_failed("friends-K7QX2M-1", 3_000));
        assert_eq!(t.stage, Stage::Lobby);
        assert!(t.seats.iter().flatten().all(|s| !s.ready));
    }
}
