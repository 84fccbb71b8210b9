//! The friends' table calls (docs/rules.md#friends-tables), with the ledger's part
//! (eligibility at the door, names) and the game services' part (opening a table when
//! everyone is ready, leaving for a player, learning that a game table closed), and the
//! sweeper that starts, reconciles and closes tables in every replica.
//!
//! Every change is a compare-and-set of the stored table ([`FriendsStore::put`]):
//! concurrent calls (two players racing for the last seat, two replicas' sweepers) each
//! read, change and store, and the loser re-reads and decides again. A call that must
//! act at a game service first (leave for a player) does so before it changes the
//! table, so a crash in between leaves the table to the sweeper, which learns from the
//! game service that its game table closed.

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use futures::Stream;
use gamehub_platform::error::id;
use gamehub_platform::metrics::metrics;
use gamehub_platform::notify::{Notifier, NotifyLimits, Place};
use gamehub_platform::server::ShutdownListener;
use gamehub_platform::{ApiError, Caller};
use gamehub_proto::common::PlayerProfile;
use gamehub_proto::matchmaking as pb;
use tonic::Status;

use super::{MAX_REQUEST_ID_LEN, MatchmakingApi};
use crate::error::MatchmakingError;
use crate::friends::store::{FriendsStore, SHARDS};
use crate::friends::{CloseReason, FriendsTable, Refusal, Sitter, Stage, Then, code};
use crate::peers::{Lineup, PeerError};
use crate::rooms::Room;

type Result<T, E = MatchmakingError> = std::result::Result<T, E>;

/// How friends' tables behave (`GAMEHUB_FRIENDS_*`, docs/rules.md#friends-tables).
#[derive(Debug, Clone)]
pub struct FriendsSettings {
    /// `GAMEHUB_FRIENDS_IDLE_CLOSE_MS`: a lobby with no game for this long closes.
    pub idle_close: Duration,
    /// `GAMEHUB_FRIENDS_PAID_TABLES`: whether paid rooms may have friends' tables.
    pub paid_tables: bool,
    /// `GAMEHUB_FRIENDS_MAX_TABLES`: open friends' tables at most.
    pub max_tables: u64,
    /// `GAMEHUB_FRIENDS_CODE_MISSES`: unknown codes a player may try per window.
    pub code_misses: u64,
    /// `GAMEHUB_FRIENDS_CODE_WINDOW_MS`: the window of the code-miss limit.
    pub code_window: Duration,
    /// `GAMEHUB_FRIENDS_RECONCILE_MS`: how often the sweeper asks the game service
    /// whether a playing table's game table still goes on.
    pub reconcile_every: Duration,
    /// How often the sweeper looks for due tables.
    pub sweep_every: Duration,
    /// A start the game service cannot confirm for this long goes back to the lobby.
    pub start_give_up: Duration,
    /// `WatchFriendsTable` streams per process.
    pub max_watchers: usize,
}

impl Default for FriendsSettings {
    fn default() -> Self {
        Self {
            idle_close: Duration::from_secs(600),
            paid_tables: false,
            max_tables: 10_000,
            code_misses: 10,
            code_window: Duration::from_secs(600),
            reconcile_every: Duration::from_secs(10),
            sweep_every: Duration::from_secs(1),
            start_give_up: Duration::from_secs(60),
            max_watchers: 20_000,
        }
    }
}

/// Friends' tables: the store, the settings and the watchers.
#[derive(Debug, Clone)]
pub struct Friends {
    /// The tables.
    pub store: FriendsStore,
    /// The settings in force.
    pub settings: FriendsSettings,
    notifier: Notifier,
}

impl Friends {
    /// Friends' tables on `store`.
    pub fn new(store: FriendsStore, settings: FriendsSettings) -> Self {
        let notifier = Notifier::new(
            "friends' table",
            "poll GetFriendsTable or retry later",
            NotifyLimits {
                max_watchers_per_key: 64,
                seats: 0,
                max_watchers_per_seat: 0,
                max_watchers_per_caller: 16,
                max_watchers: settings.max_watchers,
            },
        );
        Self {
            store,
            settings,
            notifier,
        }
    }

    /// Receives the tables' change notifications until shutdown (one subscription per
    /// process).
    pub async fn run_notifications(
        self,
        redis: gamehub_platform::RedisTarget,
        shutdown: ShutdownListener,
    ) {
        let channels = self.store.channels();
        self.notifier.run(redis, channels, shutdown).await;
    }
}

/// How long the sweeper waits before looking again at a table it could not advance.
const FAILED_SWEEP_BACKOFF: Duration = Duration::from_secs(30);

fn ms(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

fn to_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// A friends' table call's stream of updates.
pub type FriendsWatch =
    Pin<Box<dyn Stream<Item = Result<pb::WatchFriendsTableResponse, Status>> + Send>>;

/// The seat record a friends' table's game table leaves for a player (LocatePlayer,
/// the one-seat check): the code where a ticket's id would be.
pub fn seat_via(code: &str) -> String {
    format!("friends:{code}")
}

impl MatchmakingApi {
    fn now(&self) -> u64 {
        self.store.clock().now_ms()
    }

    /// When the sweeper should next look at `table`: a lobby when it would close idle,
    /// a start soon, a playing table at the reconcile interval; never once closed.
    fn due_of(&self, table: &FriendsTable) -> Option<u64> {
        let settings = &self.friends.settings;
        let now = self.now();
        match table.stage {
            Stage::Lobby => table.closes_at_ms(ms(settings.idle_close)),
            Stage::Starting { .. } => Some(now + 2_000),
            Stage::Playing { .. } => Some(now + ms(settings.reconcile_every)),
            Stage::Closed { .. } => None,
        }
    }

    /// The table as the API shows it.
    pub(crate) fn friends_view(&self, table: &FriendsTable) -> pb::FriendsTable {
        let room = self.rooms.get(&table.room_id);
        let (state, game, close_reason, closed_at) = match &table.stage {
            Stage::Lobby => (pb::FriendsTableState::Lobby, None, 0, 0),
            Stage::Starting { .. } => (pb::FriendsTableState::Starting, None, 0, 0),
            Stage::Playing { table_id } => (
                pb::FriendsTableState::Playing,
                room.map(|r| pb::FriendsGame {
                    game_type: r.game.game_type as i32,
                    table_id: table_id.clone(),
                }),
                0,
                0,
            ),
            Stage::Closed { reason, at_ms } => (
                pb::FriendsTableState::Closed,
                None,
                match reason {
                    CloseReason::Owner => pb::FriendsCloseReason::Owner,
                    CloseReason::Empty => pb::FriendsCloseReason::Empty,
                    CloseReason::Idle => pb::FriendsCloseReason::Idle,
                } as i32,
                to_i64(*at_ms),
            ),
        };
        pb::FriendsTable {
            code: table.code.clone(),
            room: room.map(|r| r.to_proto(0)),
            owner_id: table.owner.clone(),
            seats: table
                .seats
                .iter()
                .enumerate()
                .map(|(seat, place)| pb::FriendsSeat {
                    seat: i32::try_from(seat).unwrap_or(i32::MAX),
                    player_id: place
                        .as_ref()
                        .map(|s| s.player_id.clone())
                        .unwrap_or_default(),
                    profile: place.as_ref().map(Sitter::profile),
                    ready: place.as_ref().is_some_and(|s| s.ready),
                })
                .collect(),
            state: state as i32,
            game,
            tables_opened: i32::try_from(table.tables_opened).unwrap_or(i32::MAX),
            created_at_unix_ms: to_i64(table.created_ms),
            closes_at_unix_ms: table
                .closes_at_ms(ms(self.friends.settings.idle_close))
                .map_or(0, to_i64),
            close_reason,
            closed_at_unix_ms: closed_at,
            version: to_i64(table.version),
        }
    }

    /// How `player` is shown in `room`'s game; by id when the ledger does not say.
    async fn profile_of(&self, player: &str, room: &Room) -> PlayerProfile {
        let ids = [player.to_owned()];
        match self.eligibility.profiles(&ids, room.game).await {
            Ok(mut profiles) => profiles.pop().unwrap_or_default(),
            Err(e) => {
                tracing::warn!(player, error = %e, "no name from the ledger; shown by id");
                PlayerProfile::default()
            }
        }
    }

    /// The room of a stored table (a room taken out of the rooms file since: closed).
    fn room_of(&self, table: &FriendsTable) -> Result<Arc<Room>> {
        self.rooms
            .get(&table.room_id)
            .cloned()
            .ok_or_else(|| MatchmakingError::UnknownRoom(table.room_id.clone()))
    }

    /// The table a typed code names, within the caller's code-miss limit.
    async fn find(&self, caller: &Caller, typed: &str) -> Result<FriendsTable> {
        if typed.trim().is_empty() {
            return Err(ApiError::InvalidArgument(
                "code: required; a friends' table's code has 6 characters".into(),
            )
            .into());
        }
        if typed.chars().count() > code::MAX_TYPED_LEN {
            return Err(ApiError::InvalidArgument(format!(
                "code: at most {} characters; a code has 6",
                code::MAX_TYPED_LEN
            ))
            .into());
        }
        let settings = &self.friends.settings;
        let store = &self.friends.store;
        let (misses, left_ms) = store.misses(&caller.subject).await?;
        if misses >= settings.code_misses {
            metrics().friends_code_refusals.inc();
            return Err(MatchmakingError::TooManyCodes {
                retry_after: Duration::from_millis(left_ms.max(1_000)),
            });
        }
        let found = match code::read(typed) {
            Some(code) => store.load(&code).await?,
            None => None,
        };
        match found {
            Some(table) => Ok(table),
            None => {
                metrics().friends_code_misses.inc();
                store
                    .count_miss(&caller.subject, settings.code_window)
                    .await?;
                Err(Refusal::UnknownCode(gamehub_platform::error::excerpt(typed.trim())).into())
            }
        }
    }

    /// Applies `change` to the stored table `code` until it sticks (another writer may
    /// change it in between: the change is decided again on what it wrote). A change
    /// that changes nothing stores nothing.
    async fn change<F>(&self, code: &str, mut change: F) -> Result<(FriendsTable, Then)>
    where
        F: FnMut(&mut FriendsTable) -> std::result::Result<Then, Refusal>,
    {
        for _ in 0..8 {
            let Some(read) = self.friends.store.load(code).await? else {
                return Err(Refusal::UnknownCode(code.to_owned()).into());
            };
            let mut table = read.clone();
            let then = change(&mut table)?;
            if table == read {
                return Ok((table, then));
            }
            let due = self.due_of(&table);
            if self.friends.store.put(&mut table, due).await? {
                self.friends.notifier.notify(code);
                return Ok((table, then));
            }
        }
        Err(ApiError::Aborted(format!(
            "the friends' table {code} changed too often concurrently; retry"
        ))
        .into())
    }

    /// Refuses a player who may not sit down: a live ticket, a seat at a game table,
    /// a seat at another friends' table (`except` the one it is joining), or (any room)
    /// the ledger's eligibility.
    async fn ensure_at_the_door(
        &self,
        player: &str,
        room: &Room,
        except: Option<&str>,
    ) -> Result<()> {
        self.ensure_no_live_ticket(player).await?;
        self.ensure_not_seated(player).await?;
        self.ensure_not_at_friends_table(player, except).await?;
        self.ensure_eligible(room, player).await
    }

    /// Refuses while `player` sits at an open friends' table other than `except`.
    pub(crate) async fn ensure_not_at_friends_table(
        &self,
        player: &str,
        except: Option<&str>,
    ) -> Result<()> {
        if let Some(code) = self.friends_code_of(player).await?
            && Some(code.as_str()) != except
        {
            return Err(MatchmakingError::AtFriendsTable {
                player: player.to_owned(),
                code,
            });
        }
        Ok(())
    }

    /// The code of the open friends' table `player` sits at, if any (the index is a
    /// hint, checked against the table; a stale one is cleared).
    pub(crate) async fn friends_code_of(&self, player: &str) -> Result<Option<String>> {
        let store = &self.friends.store;
        let Some(code) = store.player_code(player).await? else {
            return Ok(None);
        };
        match store.load(&code).await? {
            Some(t) if !t.is_closed() && t.seat_of(player).is_some() => Ok(Some(code)),
            _ => {
                store.clear_player_code(player, &code).await?;
                Ok(None)
            }
        }
    }

    /// The friends' table `player` sits at, if any (LocatePlayer).
    pub(crate) async fn friends_table_of(&self, player: &str) -> Result<Option<pb::FriendsTable>> {
        let Some(code) = self.friends_code_of(player).await? else {
            return Ok(None);
        };
        let table = self.friends.store.load(&code).await?;
        Ok(table.map(|t| self.friends_view(&t)))
    }

    /// Notes that `player` sits at `code`, or refuses when it already sits at another
    /// open friends' table (two calls at once: the first to note its table wins).
    async fn claim_seat(&self, player: &str, code: &str) -> Result<()> {
        let store = &self.friends.store;
        match store.claim_player_code(player, code).await? {
            None => Ok(()),
            Some(prior) if prior == code => Ok(()),
            Some(prior) => match store.load(&prior).await? {
                Some(t) if !t.is_closed() && t.seat_of(player).is_some() => {
                    Err(MatchmakingError::AtFriendsTable {
                        player: player.to_owned(),
                        code: prior,
                    })
                }
                // A stale note: this table is the player's now.
                _ => Ok(store.set_player_code(player, code).await?),
            },
        }
    }

    /// Refuses while `player` has a live ticket.
    async fn ensure_no_live_ticket(&self, player: &str) -> Result<()> {
        let Some(text) = self.store.live_slot(player).await? else {
            return Ok(());
        };
        let Some(ticket_id) = crate::tickets::TicketId::parse(&text, &self.rooms) else {
            return Ok(());
        };
        match self.store.read(&ticket_id).await? {
            Some(ticket) if ticket.state.is_live() => Err(MatchmakingError::LiveTicket {
                player: player.to_owned(),
                ticket_id: text,
            }),
            _ => Ok(()),
        }
    }

    fn refuse_paid(&self, room: &Room) -> Result<()> {
        if !room.stakes.is_free() && !self.friends.settings.paid_tables {
            return Err(MatchmakingError::PaidFriendsTablesOff(room.id.to_string()));
        }
        Ok(())
    }

    /// OpenFriendsTable.
    pub(crate) async fn open_friends(
        &self,
        caller: &Caller,
        request: &pb::OpenFriendsTableRequest,
    ) -> Result<pb::OpenFriendsTableResponse> {
        let request_id = id("request_id", &request.request_id, MAX_REQUEST_ID_LEN)?;
        let room = Arc::clone(self.room(&request.room_id)?);
        let player = caller.subject.clone();
        let store = &self.friends.store;
        if let Some(code) = store.requested_code(&player, request_id).await?
            && let Some(table) = store.load(&code).await?
        {
            if table.room_id != room.id.as_str() {
                return Err(ApiError::AlreadyExists(format!(
                    "request_id {} already opened the friends' table {code} of room {}; use a new request id",
                    gamehub_platform::error::excerpt(request_id),
                    table.room_id
                ))
                .into());
            }
            return Ok(pb::OpenFriendsTableResponse {
                table: Some(self.friends_view(&table)),
                replayed: true,
            });
        }
        self.refuse_paid(&room)?;
        self.ensure_at_the_door(&player, &room, None).await?;
        if store.open_count().await? >= self.friends.settings.max_tables {
            return Err(MatchmakingError::TooManyFriendsTables(
                self.friends.settings.max_tables,
            ));
        }
        let profile = self.profile_of(&player, &room).await;
        let now = self.now();
        let mut table = None;
        for _ in 0..8 {
            let mut drawn = FriendsTable::open(
                &code::draw(),
                room.id.as_str(),
                room.seats(),
                Sitter::player(&player, &profile),
                now,
            );
            let due = self.due_of(&drawn);
            // A code in use (or closed less than a day ago) is drawn again.
            if store.put(&mut drawn, due).await? {
                table = Some(drawn);
                break;
            }
        }
        let table = table.ok_or_else(|| {
            MatchmakingError::Api(ApiError::Unavailable(
                "no free code was drawn; retry".into(),
            ))
        })?;
        let stands = store.request_code(&player, request_id, &table.code).await?;
        if stands != table.code {
            // A concurrent retry of the same request opened its table first: that one
            // stands, this one closes at once.
            self.change(&table.code, |t| {
                t.close_by(&player, now).map(|()| Then::Nothing)
            })
            .await?;
            let Some(first) = store.load(&stands).await? else {
                return Err(Refusal::UnknownCode(stands).into());
            };
            return Ok(pb::OpenFriendsTableResponse {
                table: Some(self.friends_view(&first)),
                replayed: true,
            });
        }
        if let Err(e) = self.claim_seat(&player, &table.code).await {
            // The player sat down elsewhere meanwhile: this table is not to be.
            self.change(&table.code, |t| {
                t.close_by(&player, now).map(|()| Then::Nothing)
            })
            .await?;
            return Err(e);
        }
        tracing::info!(code = %table.code, room = %room.id, owner = %player, "friends' table opened");
        Ok(pb::OpenFriendsTableResponse {
            table: Some(self.friends_view(&table)),
            replayed: false,
        })
    }

    /// GetFriendsTable: the table as it is, brought up to date first (a game table that
    /// closed, an idle lobby, a start to finish).
    pub(crate) async fn get_friends(
        &self,
        caller: &Caller,
        code: &str,
    ) -> Result<pb::FriendsTable> {
        let table = self.find(caller, code).await?;
        let table = self.advance(table).await?;
        Ok(self.friends_view(&table))
    }

    /// JoinFriendsTable.
    pub(crate) async fn join_friends(
        &self,
        caller: &Caller,
        request: &pb::JoinFriendsTableRequest,
    ) -> Result<pb::FriendsTable> {
        let found = self.find(caller, &request.code).await?;
        let code = found.code.clone();
        let player = caller.subject.clone();
        if found.is_closed() {
            return Err(Refusal::Closed(code).into());
        }
        if found.seat_of(&player).is_some() {
            return Ok(self.friends_view(&found));
        }
        let room = self.room_of(&found)?;
        self.refuse_paid(&room)?;
        self.ensure_at_the_door(&player, &room, Some(&code)).await?;
        let seat = match request.seat {
            Some(seat) => Some(usize::try_from(seat).map_err(|_| {
                ApiError::InvalidArgument(format!("seat: {seat} is not a seat; seats count from 0"))
            })?),
            None => None,
        };
        let profile = self.profile_of(&player, &room).await;
        let sitter = Sitter::player(&player, &profile);
        let (table, _) = self
            .change(&code, |t| {
                t.join(sitter.clone(), seat).map(|()| Then::Nothing)
            })
            .await?;
        if let Err(e) = self.claim_seat(&player, &code).await {
            // The player sat down elsewhere meanwhile: give this seat back.
            let now = self.now();
            self.change(&code, |t| t.leave(&player, now).map(|()| Then::Nothing))
                .await?;
            return Err(e);
        }
        Ok(self.friends_view(&table))
    }

    /// SetReady.
    pub(crate) async fn set_ready(
        &self,
        caller: &Caller,
        request: &pb::SetReadyRequest,
    ) -> Result<pb::FriendsTable> {
        let found = self.find(caller, &request.code).await?;
        let player = caller.subject.clone();
        if request.ready && found.seat_of(&player).is_some() && !found.is_closed() {
            // Things change while a player sits in a lobby (a game elsewhere, midnight).
            let room = self.room_of(&found)?;
            self.ensure_eligible(&room, &player).await?;
        }
        let now = self.now();
        let (table, then) = self
            .change(&found.code, |t| t.set_ready(&player, request.ready, now))
            .await?;
        self.after(table, then).await
    }

    /// AddBots.
    pub(crate) async fn add_bots(&self, caller: &Caller, code: &str) -> Result<pb::FriendsTable> {
        let found = self.find(caller, code).await?;
        let room = self.room_of(&found)?;
        let free = room.stakes.is_free();
        let now = self.now();
        let (table, then) = self
            .change(&found.code, |t| t.add_bots(&caller.subject, free, now))
            .await?;
        self.after(table, then).await
    }

    /// What a change asks for next: open the game table.
    async fn after(&self, table: FriendsTable, then: Then) -> Result<pb::FriendsTable> {
        let table = match then {
            Then::Start => self.start(table).await?,
            Then::Nothing => table,
        };
        Ok(self.friends_view(&table))
    }

    /// Makes `player` leave the game table of a playing `table` (an escape during a
    /// game); a table already closed is fine.
    async fn leave_game_table(&self, table: &FriendsTable, player: &str) -> Result<()> {
        let Stage::Playing { table_id } = &table.stage else {
            return Ok(());
        };
        let room = self.room_of(table)?;
        // Keyed by seat, not by the player's id (which may use up the 64 characters).
        let seat = table.seat_of(player).unwrap_or(usize::MAX);
        let request_id = format!(
            "friends-{}-{}-leave-{seat}",
            table.code, table.tables_opened
        );
        let unavailable = |why: String| {
            MatchmakingError::Unavailable(format!(
                "the {} service did not answer ({why}); retry shortly",
                room.game.key
            ))
        };
        match self
            .tables
            .leave_for(room.game, table_id, player, &request_id)
            .await
        {
            Ok(()) => Ok(()),
            Err(PeerError::Unavailable(why)) => Err(unavailable(why)),
            // Refused: fine when the table closed already or the player left it; a
            // player still seated there was not let go, and the friends' table must not
            // pretend otherwise.
            Err(PeerError::Refused(why)) => match self.tables.table(room.game, table_id).await {
                Ok(Some(info)) if info.seat_of(player).is_some() => {
                    Err(ApiError::internal(anyhow::anyhow!(
                        "the {} service refused to let {player} leave: {why}",
                        room.game.key
                    ))
                    .into())
                }
                Ok(_) => Ok(()),
                Err(e) => Err(unavailable(e.to_string())),
            },
        }
    }

    /// LeaveFriendsTable.
    pub(crate) async fn leave_friends(
        &self,
        caller: &Caller,
        code: &str,
    ) -> Result<pb::FriendsTable> {
        let found = self.find(caller, code).await?;
        let player = caller.subject.clone();
        if found.is_closed() {
            return Err(Refusal::Closed(found.code).into());
        }
        if found.seat_of(&player).is_none() {
            return Err(Refusal::NotSeated {
                code: found.code,
                player,
            }
            .into());
        }
        self.leave_game_table(&found, &player).await?;
        let now = self.now();
        let (table, _) = self
            .change(&found.code, |t| {
                t.leave(&player, now).map(|()| Then::Nothing)
            })
            .await?;
        self.friends
            .store
            .clear_player_code(&player, &table.code)
            .await?;
        Ok(self.friends_view(&table))
    }

    /// RemoveFromFriendsTable.
    pub(crate) async fn remove_from_friends(
        &self,
        caller: &Caller,
        request: &pb::RemoveFromFriendsTableRequest,
    ) -> Result<pb::FriendsTable> {
        let target = id(
            "player_id",
            &request.player_id,
            gamehub_platform::auth::MAX_SUBJECT_LEN,
        )?
        .to_owned();
        let found = self.find(caller, &request.code).await?;
        if found.owner != caller.subject && !found.is_closed() {
            return Err(Refusal::NotOwner {
                code: found.code,
                owner: found.owner,
                what: "remove a player",
            }
            .into());
        }
        if let Stage::Playing { table_id } = &found.stage
            && found.seat_of(&target).is_some()
        {
            let room = self.room_of(&found)?;
            match self.tables.table(room.game, table_id).await {
                Ok(Some(info)) if info.open && info.in_progress => {
                    return Err(Refusal::GameInProgress(
                        found.code.clone(),
                        "remove a player between games",
                    )
                    .into());
                }
                Ok(Some(info)) if info.open && info.leaving_escapes => {
                    return Err(MatchmakingError::PairUnfinished(found.code.clone()));
                }
                Ok(_) => {}
                Err(e) => {
                    return Err(MatchmakingError::Unavailable(format!(
                        "the {} service did not answer ({e}); retry shortly",
                        room.game.key
                    )));
                }
            }
            self.leave_game_table(&found, &target).await?;
        }
        let now = self.now();
        let owner = caller.subject.clone();
        let (table, _) = self
            .change(&found.code, |t| {
                t.remove(&owner, &target, now).map(|()| Then::Nothing)
            })
            .await?;
        self.friends
            .store
            .clear_player_code(&target, &table.code)
            .await?;
        tracing::info!(code = %table.code, owner = %owner, removed = %target, "player removed from a friends' table");
        Ok(self.friends_view(&table))
    }

    /// CloseFriendsTable.
    pub(crate) async fn close_friends(
        &self,
        caller: &Caller,
        code: &str,
    ) -> Result<pb::FriendsTable> {
        let found = self.find(caller, code).await?;
        if found.is_closed() {
            return Ok(self.friends_view(&found));
        }
        if found.owner != caller.subject {
            return Err(Refusal::NotOwner {
                code: found.code,
                owner: found.owner,
                what: "close the table",
            }
            .into());
        }
        // During a game the owner leaves the game table: an escape, paid as anywhere.
        self.leave_game_table(&found, &caller.subject).await?;
        let now = self.now();
        let (table, _) = self
            .change(&found.code, |t| {
                t.close_by(&caller.subject, now).map(|()| Then::Nothing)
            })
            .await?;
        for sitter in found.humans() {
            self.friends
                .store
                .clear_player_code(&sitter.player_id, &table.code)
                .await?;
        }
        tracing::info!(code = %table.code, owner = %caller.subject, "friends' table closed by its owner");
        Ok(self.friends_view(&table))
    }

    /// Opens the game table of a starting `table` (idempotently on its request id) and
    /// notes where everyone sits; a refusal for good sends the players back to the
    /// lobby, an unknown outcome leaves the start to the sweeper.
    async fn start(&self, table: FriendsTable) -> Result<FriendsTable> {
        let Stage::Starting {
            request_id,
            since_ms,
        } = table.stage.clone()
        else {
            return Ok(table);
        };
        let room = self.room_of(&table)?;
        let Some((players, profiles, bot_seats)) = table.lineup() else {
            // A seat emptied meanwhile (cannot happen: starting tables keep their seats).
            return Ok(table);
        };
        let lineup = Lineup {
            profiles: &profiles,
            bot_seats: &bot_seats,
            friends_table: true,
        };
        let code = table.code.clone();
        match self.tables.open(&room, &request_id, &players, lineup).await {
            Ok(opened) => {
                let mut took = false;
                let (table, _) = self
                    .change(&code, |t| {
                        took = t.started(&request_id, &opened.table_id);
                        Ok(Then::Nothing)
                    })
                    .await?;
                if !took {
                    // The start was given up meanwhile (or closed): nobody is to play at
                    // this table, which opened late; its players leave it at once.
                    tracing::warn!(code = %code, table_id = %opened.table_id, "a friends' game table opened after its start was given up; leaving it");
                    for player in &players {
                        let request_id = format!("{request_id}-orphan");
                        if let Err(e) = self
                            .tables
                            .leave_for(room.game, &opened.table_id, player, &request_id)
                            .await
                        {
                            tracing::warn!(table_id = %opened.table_id, player, error = %e, "could not leave an orphaned game table; it closes by itself");
                        }
                    }
                    return Ok(table);
                }
                let via = seat_via(&code);
                let seated: Vec<(String, String)> = table
                    .humans()
                    .map(|s| (via.clone(), s.player_id.clone()))
                    .collect();
                let tables = std::collections::HashMap::from([(via, opened.table_id.clone())]);
                self.store
                    .remember_seats(room.game, &seated, &tables)
                    .await?;
                tracing::info!(code = %code, table_id = %opened.table_id, "friends' table started a game table");
                Ok(table)
            }
            Err(PeerError::Refused(why)) => {
                tracing::warn!(code = %code, error = %why, "the game service refused a friends' table; back to the lobby");
                let now = self.now();
                let (table, _) = self
                    .change(&code, |t| {
                        t.start_failed(&request_id, now);
                        Ok(Then::Nothing)
                    })
                    .await?;
                Ok(table)
            }
            Err(PeerError::Unavailable(why)) => {
                let now = self.now();
                if now.saturating_sub(since_ms) >= ms(self.friends.settings.start_give_up) {
                    tracing::warn!(code = %code, error = %why, "a friends' table could not start in time; back to the lobby");
                    let (table, _) = self
                        .change(&code, |t| {
                            t.start_failed(&request_id, now);
                            Ok(Then::Nothing)
                        })
                        .await?;
                    return Ok(table);
                }
                tracing::warn!(code = %code, error = %why, "a friends' table's start is unconfirmed; the sweeper retries");
                Ok(table)
            }
        }
    }

    /// Brings a table up to date: a starting one starts, a playing one whose game table
    /// closed goes back to its lobby, an idle lobby closes.
    async fn advance(&self, table: FriendsTable) -> Result<FriendsTable> {
        let now = self.now();
        match table.stage.clone() {
            Stage::Closed { .. } => Ok(table),
            Stage::Lobby => {
                let idle = ms(self.friends.settings.idle_close);
                if table.closes_at_ms(idle).is_some_and(|at| now >= at) {
                    let (table, _) = self
                        .change(&table.code, |t| {
                            t.close_if_idle(idle, now);
                            Ok(Then::Nothing)
                        })
                        .await?;
                    for sitter in table.humans() {
                        self.friends
                            .store
                            .clear_player_code(&sitter.player_id, &table.code)
                            .await?;
                    }
                    tracing::info!(code = %table.code, "idle friends' table closed");
                    return Ok(table);
                }
                Ok(table)
            }
            Stage::Starting { .. } => self.start(table).await,
            Stage::Playing { table_id } => {
                let room = self.room_of(&table)?;
                let left = match self.tables.table(room.game, &table_id).await {
                    Ok(Some(info)) if info.open => return Ok(table),
                    Ok(Some(info)) => info.left,
                    // Unknown to the game service: gone.
                    Ok(None) => Vec::new(),
                    // Not now: the next look.
                    Err(e) => {
                        tracing::debug!(code = %table.code, error = %e, "game table state unknown");
                        return Ok(table);
                    }
                };
                let (table, _) = self
                    .change(&table.code, |t| {
                        t.game_closed(&table_id, &left, now);
                        Ok(Then::Nothing)
                    })
                    .await?;
                for player in &left {
                    self.friends
                        .store
                        .clear_player_code(player, &table.code)
                        .await?;
                }
                Ok(table)
            }
        }
    }

    /// WatchFriendsTable.
    pub(crate) async fn watch_friends(&self, caller: &Caller, code: &str) -> Result<FriendsWatch> {
        let table = self.find(caller, code).await?;
        let code = table.code.clone();
        let mut subscription =
            self.friends
                .notifier
                .subscribe(&code, &caller.subject, Place::Shared)?;
        let api = self.clone();
        let poll = Duration::from_secs(5);
        let mut shutdown = self.shutdown.listener();
        let stream = async_stream::stream! {
            let mut last = None;
            loop {
                match api.friends.store.load(&code).await {
                    Ok(Some(table)) => {
                        if last != Some(table.version) {
                            last = Some(table.version);
                            yield Ok(pb::WatchFriendsTableResponse { table: Some(api.friends_view(&table)) });
                        }
                        if table.is_closed() {
                            break;
                        }
                    }
                    Ok(None) => {
                        yield Err(Status::from(MatchmakingError::from(Refusal::UnknownCode(code.clone()))));
                        break;
                    }
                    Err(e) => {
                        yield Err(Status::from(e));
                        break;
                    }
                }
                tokio::select! {
                    () = subscription.changed() => {},
                    () = tokio::time::sleep(poll) => {},
                    () = shutdown.wait() => break,
                }
            }
        };
        Ok(Box::pin(stream))
    }

    /// The sweeper: in every replica, looks at the tables due (starts to finish, game
    /// tables to check, idle lobbies to close) until shutdown.
    pub(crate) async fn sweep_friends(self, mut shutdown: ShutdownListener) {
        let every = self.friends.settings.sweep_every;
        loop {
            tokio::select! {
                () = tokio::time::sleep(every) => {},
                () = shutdown.wait() => return,
            }
            for shard in 0..SHARDS {
                let now = self.now();
                let codes = match self.friends.store.due(shard, now, 50).await {
                    Ok(codes) => codes,
                    Err(e) => {
                        tracing::warn!(error = %e, "friends' tables sweep failed; the next sweep retries");
                        break;
                    }
                };
                for code in codes {
                    if let Err(e) = self.sweep_one(&code).await {
                        tracing::warn!(code, error = %e, "friends' table not advanced; the next sweep retries");
                    }
                }
            }
        }
    }

    async fn sweep_one(&self, code: &str) -> Result<()> {
        let loaded = match self.friends.store.load(code).await {
            Ok(loaded) => loaded,
            Err(e) => {
                let later = self.now() + ms(FAILED_SWEEP_BACKOFF);
                self.friends.store.reschedule(code, later).await?;
                return Err(e.into());
            }
        };
        match loaded {
            None => Ok(self.friends.store.forget_due(code).await?),
            Some(table) => {
                let before = table.version;
                let table = match self.advance(table).await {
                    Ok(table) => table,
                    Err(e) => {
                        // Not again at once: a table that keeps failing must not hold up
                        // the tables due after it.
                        let later = self.now() + ms(FAILED_SWEEP_BACKOFF);
                        self.friends.store.reschedule(code, later).await?;
                        return Err(e);
                    }
                };
                if table.version == before
                    && let Some(due) = self.due_of(&table)
                {
                    // Nothing to do yet: look again when due.
                    self.friends.store.reschedule(code, due).await?;
                }
                Ok(())
            }
        }
    }
}
