//! Tickets in Redis. Every change of a room's tickets is one Lua script on keys of that
//! room's hash tag, so it is atomic and runs unchanged on Redis Cluster; the per-player
//! index lives under the player's own tag. The scripts are `.lua` files in
//! `scripts/lua/`, each behind one typed wrapper in `scripts/` that reads its reply
//! strictly: a reply the script cannot give is an internal error, never a default.
//!
//! | key (prefix `gh`) | type | holds |
//! |---|---|---|
//! | `gh:{mm:ROOM}:q` | sorted set | waiting ticket ids by queue order (`seq`) |
//! | `gh:{mm:ROOM}:x` | sorted set | waiting ticket ids by expiry (Unix ms) |
//! | `gh:{mm:ROOM}:seq` | counter | the last queue order handed out |
//! | `gh:{mm:ROOM}:t:TICKET` | hash | the ticket (fields below) |
//! | `gh:{mm:ROOM}:c` | sorted set | claimed matches by deadline (Unix ms) |
//! | `gh:{mm:ROOM}:m:MATCH` | hash | a claim: `tk` tickets, `ph` phase (`claimed`/`opening`), `ow` owner token, `pl` players and `so` tickets in seat order, `n` takeovers |
//! | `gh:{mm:ROOM}:stats` | hash | `avg`: recent average wait (ms) |
//! | `gh:{mmp:PLAYER}:live` | string | the player's last ticket id (a live one blocks another; freed lazily by the next Enqueue once it ended) |
//! | `gh:{mmp:PLAYER}:rq:REQUEST` | string | the ticket an Enqueue request id made |
//! | `gh:{mmp:PLAYER}:seat` | string | `game|table|ticket` of the player's last seat |
//!
//! Ticket hash fields: `p` player, `s` state, `seq`, `c` created, `e` expires, `q`
//! request id, `rt` rating, `m` match, `tb`/`st`/`g`/`pl` table, seat, game, players
//! when seated, `rf`/`msg` refusal, `end` ended, `cx` cancel requested, `f` failed
//! table openings. A ticket is read strictly: a missing required field, a value that
//! does not parse, an unknown state or an unknown field is an error (so a new field
//! needs readers that know it deployed before any script writes it).
//!
//! Invariant: a ticket is in `q` and `x` exactly while its state is `waiting`. A
//! `matching` ticket belongs to exactly one match in `c`. Every change publishes the
//! ticket id on its room's channel `gh:{mm:ROOM}:tickets` so watchers wake (sharded
//! pub/sub on a Redis Cluster: the channel has the room's tag, as the script's keys do).

mod scripts;

use std::sync::Arc;
use std::time::Duration;

use gamehub_platform::RedisConn;
use gamehub_platform::{ApiError, Clock};

use crate::rooms::Game;
use crate::tickets::{Ticket, TicketId};
use scripts::Scripts;
pub use scripts::claim::{
    ClaimGroup, Opening, Outcome, Peeked, Release, Seating, Taken, TakenOver,
};
pub use scripts::player::Reservation;
pub use scripts::ticket::{Cancelled, Created};

/// Sizes and lifetimes of stored tickets.
#[derive(Debug, Clone)]
pub struct StoreSettings {
    /// A waiting ticket expires after this long.
    pub ticket_ttl: Duration,
    /// An ended ticket stays readable this long.
    pub retention: Duration,
    /// Tickets waiting in one room at most; Enqueue past it is refused.
    pub max_queue: u64,
    /// A claim not seated or released by then is taken over by a reaper.
    pub claim_timeout: Duration,
    /// How long the player's last seat is remembered for the one-seat check.
    pub seat_ttl: Duration,
    /// Failed table openings after which a ticket ends FAILED instead of going back.
    pub max_open_failures: u32,
}

impl Default for StoreSettings {
    fn default() -> Self {
        Self {
            ticket_ttl: Duration::from_secs(300),
            retention: Duration::from_secs(3600),
            max_queue: 100_000,
            claim_timeout: Duration::from_secs(15),
            seat_ttl: Duration::from_secs(24 * 3600),
            max_open_failures: 3,
        }
    }
}

/// A player's last seat, for the one-seat-per-player check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatRecord {
    /// The game.
    pub game: &'static Game,
    /// The table.
    pub table_id: String,
    /// The ticket that seated the player.
    pub ticket_id: String,
    raw: String,
}

impl SeatRecord {
    fn encode(game: &'static Game, table_id: &str, ticket_id: &str) -> String {
        format!("{}|{table_id}|{ticket_id}", game.key)
    }

    /// Reads a stored record; one that does not read is an error, not "no seat" (the
    /// one-seat check fails closed).
    fn decode(raw: String) -> Result<Self, ApiError> {
        fn parts(raw: &str) -> Option<(&'static Game, String, String)> {
            let mut parts = raw.splitn(3, '|');
            let game = gamehub_terms::games::by_key(parts.next()?)?;
            let table_id = parts.next().filter(|t| !t.is_empty())?.to_owned();
            let ticket_id = parts.next().filter(|t| !t.is_empty())?.to_owned();
            Some((game, table_id, ticket_id))
        }
        let Some((game, table_id, ticket_id)) = parts(&raw) else {
            return Err(ApiError::internal(anyhow::anyhow!(
                "a seat record {:?} is not game|table|ticket",
                raw.chars().take(80).collect::<String>()
            )));
        };
        Ok(Self {
            game,
            table_id,
            ticket_id,
            raw,
        })
    }
}

/// The tickets of every room, in Redis.
#[derive(Clone)]
pub struct TicketStore {
    redis: RedisConn,
    prefix: Arc<str>,
    settings: StoreSettings,
    scripts: Arc<Scripts>,
    /// The service's clock: the time the matcher, the reaper and the API pass to the
    /// scripts (ticket expiry and claim deadlines are Unix ms by it).
    clock: Clock,
}

impl std::fmt::Debug for TicketStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TicketStore")
            .field("prefix", &self.prefix)
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

fn ms(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

impl TicketStore {
    /// A store on `redis` under the key prefix `prefix` (`GAMEHUB_REDIS_PREFIX`), whose
    /// callers tell the time by `clock` (the service's `CommonConfig::clock`).
    pub fn new(redis: RedisConn, prefix: &str, settings: StoreSettings, clock: Clock) -> Self {
        Self {
            redis,
            prefix: Arc::from(prefix),
            settings,
            scripts: Arc::new(Scripts::new()),
            clock,
        }
    }

    /// The clock whose "now" the callers of the scripts pass.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// The settings in force.
    pub fn settings(&self) -> &StoreSettings {
        &self.settings
    }

    /// The Redis connection (shared, multiplexed).
    pub fn redis(&self) -> RedisConn {
        self.redis.clone()
    }

    /// The pub/sub channel every change of `room_id`'s tickets is announced on
    /// (payload: ticket id). It carries the room's hash tag, so on a cluster the
    /// scripts' sharded `SPUBLISH` stays on the nodes holding the room.
    pub fn channel(&self, room_id: &str) -> String {
        Self::channel_of(&self.room_base(room_id))
    }

    fn channel_of(room_base: &str) -> String {
        format!("{room_base}:tickets")
    }

    fn room_base(&self, room_id: &str) -> String {
        format!("{}:{{mm:{room_id}}}", self.prefix)
    }

    fn player_base(&self, player_id: &str) -> String {
        format!("{}:{{mmp:{player_id}}}", self.prefix)
    }

    fn ticket_lifetime_ms(&self) -> u64 {
        ms(self.settings.ticket_ttl) + ms(self.settings.retention)
    }

    /// Reads a ticket with its place in the queue; None when unknown (or long ended).
    pub async fn read(&self, id: &TicketId) -> Result<Option<Ticket>, ApiError> {
        let room_base = self.room_base(id.room_id());
        let args = scripts::ticket::ReadArgs {
            room_base: &room_base,
            ticket: id,
        };
        self.scripts.read.run(&mut self.redis.clone(), &args).await
    }

    /// Takes the player's request id and live-ticket slot for `ticket`, or says what
    /// holds them.
    pub async fn reserve(
        &self,
        player_id: &str,
        request_id: &str,
        ticket: &TicketId,
    ) -> Result<Reservation, ApiError> {
        let player_base = self.player_base(player_id);
        let args = scripts::player::ReserveArgs {
            player_base: &player_base,
            request_id,
            ticket: ticket.as_str(),
            ttl_ms: self.ticket_lifetime_ms(),
        };
        self.scripts
            .reserve
            .run(&mut self.redis.clone(), &args)
            .await
    }

    /// The ticket an earlier Enqueue with this request id made (or reserved), if any.
    pub async fn request_ticket(
        &self,
        player_id: &str,
        request_id: &str,
    ) -> Result<Option<String>, ApiError> {
        let mut conn = self.redis.clone();
        Ok(redis::cmd("GET")
            .arg(format!("{}:rq:{request_id}", self.player_base(player_id)))
            .query_async(&mut conn)
            .await?)
    }

    /// Gives back a reservation whose ticket was not made (queue full, ledger down).
    pub async fn unreserve(
        &self,
        player_id: &str,
        request_id: &str,
        ticket: &TicketId,
    ) -> Result<(), ApiError> {
        let player_base = self.player_base(player_id);
        let args = scripts::player::UnreserveArgs {
            player_base: &player_base,
            request_id,
            ticket: ticket.as_str(),
        };
        self.scripts
            .unreserve
            .run(&mut self.redis.clone(), &args)
            .await?;
        Ok(())
    }

    /// Frees the player's live slot if `ticket` still holds it (the ticket ended, or a
    /// crashed Enqueue left the slot pointing at nothing).
    pub async fn clear_live(&self, player_id: &str, ticket: &str) -> Result<(), ApiError> {
        let key = format!("{}:live", self.player_base(player_id));
        let args = scripts::player::DeleteIfArgs {
            key: &key,
            expected: ticket,
        };
        self.scripts
            .delete_if
            .run(&mut self.redis.clone(), &args)
            .await?;
        Ok(())
    }

    /// Puts a new ticket in its room's queue (idempotent on the ticket id).
    pub async fn create(
        &self,
        id: &TicketId,
        player_id: &str,
        request_id: &str,
        rating: i64,
        now_ms: u64,
    ) -> Result<Created, ApiError> {
        let room_base = self.room_base(id.room_id());
        let channel = Self::channel_of(&room_base);
        let args = scripts::ticket::EnqueueArgs {
            room_base: &room_base,
            ticket: id.as_str(),
            player: player_id,
            request_id,
            now_ms,
            ttl_ms: ms(self.settings.ticket_ttl),
            max_queue: self.settings.max_queue,
            rating,
            retention_ms: ms(self.settings.retention),
            channel: &channel,
        };
        self.scripts
            .enqueue
            .run(&mut self.redis.clone(), &args)
            .await
    }

    /// Cancels a ticket (see [`Cancelled`]).
    pub async fn cancel(&self, id: &TicketId, now_ms: u64) -> Result<Cancelled, ApiError> {
        let room_base = self.room_base(id.room_id());
        let channel = Self::channel_of(&room_base);
        let args = scripts::ticket::CancelArgs {
            room_base: &room_base,
            ticket: id.as_str(),
            now_ms,
            retention_ms: ms(self.settings.retention),
            channel: &channel,
        };
        self.scripts
            .cancel
            .run(&mut self.redis.clone(), &args)
            .await
    }

    /// The player's last seat, if remembered.
    pub async fn seat_record(&self, player_id: &str) -> Result<Option<SeatRecord>, ApiError> {
        let mut conn = self.redis.clone();
        let raw: Option<String> = redis::cmd("GET")
            .arg(format!("{}:seat", self.player_base(player_id)))
            .query_async(&mut conn)
            .await?;
        raw.map(SeatRecord::decode).transpose()
    }

    /// The ticket id in the player's live slot: its last ticket, which may have ended
    /// (slots are freed lazily) or, for a moment, not be made yet.
    pub async fn live_slot(&self, player_id: &str) -> Result<Option<String>, ApiError> {
        let mut conn = self.redis.clone();
        Ok(redis::cmd("GET")
            .arg(format!("{}:live", self.player_base(player_id)))
            .query_async(&mut conn)
            .await?)
    }

    /// Forgets the player's seat (the table ended or the player left it).
    pub async fn clear_seat_record(
        &self,
        player_id: &str,
        record: &SeatRecord,
    ) -> Result<(), ApiError> {
        let key = format!("{}:seat", self.player_base(player_id));
        let args = scripts::player::DeleteIfArgs {
            key: &key,
            expected: &record.raw,
        };
        self.scripts
            .delete_if
            .run(&mut self.redis.clone(), &args)
            .await?;
        Ok(())
    }

    /// Keeps the player's seat record for another `seat_ttl` if it still is `record`
    /// (its game service just confirmed the seat): a table that goes on for longer than
    /// `seat_ttl` keeps its players' seats known as long as they are looked up.
    pub async fn keep_seat_record(
        &self,
        player_id: &str,
        record: &SeatRecord,
    ) -> Result<(), ApiError> {
        let key = format!("{}:seat", self.player_base(player_id));
        let args = scripts::player::ExpireIfArgs {
            key: &key,
            expected: &record.raw,
            ttl_ms: ms(self.settings.seat_ttl),
        };
        self.scripts
            .expire_if
            .run(&mut self.redis.clone(), &args)
            .await?;
        Ok(())
    }

    /// Tickets waiting in each room, in the given order (one round trip).
    pub async fn waiting_counts(&self, room_ids: &[&str]) -> Result<Vec<u64>, ApiError> {
        Ok(self
            .redis
            .query_each(room_ids.iter().map(|room_id| {
                let mut cmd = redis::cmd("ZCARD");
                cmd.arg(format!("{}:q", self.room_base(room_id)));
                cmd
            }))
            .await?)
    }

    /// Tickets waiting and claims in progress in a room (one round trip).
    pub async fn pending(&self, room_id: &str) -> Result<(u64, u64), ApiError> {
        let mut conn = self.redis.clone();
        let base = self.room_base(room_id);
        Ok(redis::pipe()
            .cmd("ZCARD")
            .arg(format!("{base}:q"))
            .cmd("ZCARD")
            .arg(format!("{base}:c"))
            .query_async(&mut conn)
            .await?)
    }

    /// Up to `limit` unexpired waiting tickets of a room, in queue order.
    pub async fn peek(
        &self,
        room_id: &str,
        limit: usize,
        now_ms: u64,
    ) -> Result<Vec<Peeked>, ApiError> {
        let room_base = self.room_base(room_id);
        let args = scripts::claim::PeekArgs {
            room_base: &room_base,
            limit,
            now_ms,
        };
        self.scripts.peek.run(&mut self.redis.clone(), &args).await
    }

    /// Claims groups of waiting tickets atomically, each whole or not at all; returns
    /// the match ids claimed. A ticket is claimed by at most one match, whatever the
    /// number of matchers racing.
    pub async fn claim(
        &self,
        room_id: &str,
        groups: &[ClaimGroup],
        now_ms: u64,
    ) -> Result<Vec<String>, ApiError> {
        if groups.is_empty() {
            return Ok(Vec::new());
        }
        let room_base = self.room_base(room_id);
        let channel = Self::channel_of(&room_base);
        let args = scripts::claim::ClaimArgs {
            room_base: &room_base,
            now_ms,
            deadline_ms: now_ms + ms(self.settings.claim_timeout),
            channel: &channel,
            groups,
        };
        self.scripts.claim.run(&mut self.redis.clone(), &args).await
    }

    /// Records, before OpenTable is called, that these claims may open a table and who
    /// sits where; returns the match ids still owned. From here a reaper re-tries
    /// OpenTable with the same id instead of returning the tickets to the queue.
    pub async fn mark_opening(
        &self,
        room_id: &str,
        openings: &[Opening],
        now_ms: u64,
    ) -> Result<Vec<String>, ApiError> {
        if openings.is_empty() {
            return Ok(Vec::new());
        }
        let room_base = self.room_base(room_id);
        let args = scripts::claim::OpeningArgs {
            room_base: &room_base,
            deadline_ms: now_ms + ms(self.settings.claim_timeout),
            openings,
        };
        self.scripts
            .opening
            .run(&mut self.redis.clone(), &args)
            .await
    }

    /// Seats the tickets of opened tables; returns the match ids seated (claims this
    /// replica still owned). `waited` is the enqueue-to-seat time summed over
    /// `waited.1` tickets, for the room's average-wait estimate.
    pub async fn seat(
        &self,
        room_id: &str,
        game: &'static Game,
        seatings: &[Seating],
        waited: (u64, u64),
        now_ms: u64,
    ) -> Result<Vec<String>, ApiError> {
        if seatings.is_empty() {
            return Ok(Vec::new());
        }
        let room_base = self.room_base(room_id);
        let channel = Self::channel_of(&room_base);
        let args = scripts::claim::SeatArgs {
            room_base: &room_base,
            now_ms,
            retention_ms: ms(self.settings.retention),
            channel: &channel,
            game: game.key,
            waited_ms: waited.0,
            waited_tickets: waited.1,
            seatings,
        };
        self.scripts.seat.run(&mut self.redis.clone(), &args).await
    }

    /// Claims up to `tables.len()` tables of `seats` tickets each from the head of an
    /// unrated room's queue, in queue order, in one step. `tables` gives each table's
    /// fresh match id and owner token.
    pub async fn take(
        &self,
        room_id: &str,
        seats: usize,
        tables: &[(String, String)],
        now_ms: u64,
    ) -> Result<Vec<Taken>, ApiError> {
        if tables.is_empty() || seats == 0 {
            return Ok(Vec::new());
        }
        let room_base = self.room_base(room_id);
        let channel = Self::channel_of(&room_base);
        let args = scripts::claim::TakeArgs {
            room_base: &room_base,
            now_ms,
            deadline_ms: now_ms + ms(self.settings.claim_timeout),
            channel: &channel,
            seats,
            tables,
        };
        self.scripts.take.run(&mut self.redis.clone(), &args).await
    }

    /// Gives up claims: each ticket goes back to the queue at its place or ends, as
    /// its [`Outcome`] says. Returns (ticket, player) of the tickets that ended.
    pub async fn release(
        &self,
        room_id: &str,
        releases: &[Release],
        now_ms: u64,
    ) -> Result<Vec<(String, String)>, ApiError> {
        if releases.is_empty() {
            return Ok(Vec::new());
        }
        let room_base = self.room_base(room_id);
        let channel = Self::channel_of(&room_base);
        let args = scripts::claim::ReleaseArgs {
            room_base: &room_base,
            now_ms,
            retention_ms: ms(self.settings.retention),
            channel: &channel,
            max_open_failures: self.settings.max_open_failures,
            releases,
        };
        self.scripts
            .release
            .run(&mut self.redis.clone(), &args)
            .await
    }

    /// Takes over up to `limit` claims past their deadline (their matcher crashed or
    /// stalled), extending each deadline under a fresh owner token.
    pub async fn take_over(
        &self,
        room_id: &str,
        now_ms: u64,
        limit: usize,
    ) -> Result<Vec<TakenOver>, ApiError> {
        let room_base = self.room_base(room_id);
        let owner = uuid::Uuid::new_v4().simple().to_string();
        let args = scripts::claim::TakeOverArgs {
            room_base: &room_base,
            now_ms,
            deadline_ms: now_ms + ms(self.settings.claim_timeout),
            limit,
            owner: &owner,
        };
        self.scripts
            .take_over
            .run(&mut self.redis.clone(), &args)
            .await
    }

    /// Ends up to `limit` waiting tickets past their expiry; returns (ticket, player).
    pub async fn expire(
        &self,
        room_id: &str,
        now_ms: u64,
        limit: usize,
    ) -> Result<Vec<(String, String)>, ApiError> {
        let room_base = self.room_base(room_id);
        let channel = Self::channel_of(&room_base);
        let args = scripts::ticket::ExpireArgs {
            room_base: &room_base,
            now_ms,
            limit,
            retention_ms: ms(self.settings.retention),
            channel: &channel,
        };
        self.scripts
            .expire
            .run(&mut self.redis.clone(), &args)
            .await
    }

    /// (created, ended) Unix ms of each ticket, 0 when unknown or not ended (one round
    /// trip; for benchmarks and tests).
    pub async fn ticket_times(&self, ids: &[TicketId]) -> Result<Vec<(u64, u64)>, ApiError> {
        let rows: Vec<(Option<u64>, Option<u64>)> = self
            .redis
            .query_each(ids.iter().map(|id| {
                let mut cmd = redis::cmd("HMGET");
                cmd.arg(format!(
                    "{}:t:{}",
                    self.room_base(id.room_id()),
                    id.as_str()
                ))
                .arg("c")
                .arg("end");
                cmd
            }))
            .await?;
        Ok(rows
            .into_iter()
            .map(|(c, e)| (c.unwrap_or(0), e.unwrap_or(0)))
            .collect())
    }

    /// Remembers where the players of seated tickets sit (`(ticket, player)` pairs and
    /// each ticket's table), for the one-seat-per-player check: one pipeline of plain
    /// writes, each under the player's own tag (at once on a cluster). Live slots are not touched: a slot
    /// pointing at an ended ticket is freed by the player's next Enqueue.
    pub async fn remember_seats(
        &self,
        game: &'static Game,
        seated: &[(String, String)],
        tables: &std::collections::HashMap<String, String>,
    ) -> Result<(), ApiError> {
        if seated.is_empty() {
            return Ok(());
        }
        self.redis
            .query_each::<()>(seated.iter().filter_map(|(ticket, player)| {
                let table = tables.get(ticket)?;
                let mut cmd = redis::cmd("SET");
                cmd.arg(format!("{}:seat", self.player_base(player)))
                    .arg(SeatRecord::encode(game, table, ticket))
                    .arg("PX")
                    .arg(ms(self.settings.seat_ttl));
                Some(cmd)
            }))
            .await?;
        Ok(())
    }
}
