//! One ticket's life: `read`, `enqueue`, `cancel`, `expire`.

use gamehub_platform::ApiError;
use gamehub_platform::RedisConn;
use gamehub_platform::lua::{LuaScript, Reply, UnexpectedReply};
use redis::Value;

use super::{split, ticket_players};
use crate::rooms::Game;
use crate::tickets::{SeatAt, Ticket, TicketId, TicketState};

/// The keys and arguments of `lua/read.lua`.
#[derive(Debug, Clone)]
pub(crate) struct ReadArgs<'a> {
    /// The room's key base.
    pub room_base: &'a str,
    /// The ticket.
    pub ticket: &'a TicketId,
}

/// A ticket with its place in the queue (`lua/read.lua`); None when there is no such
/// ticket (never made, or ended longer ago than the retention).
#[derive(Debug)]
pub(crate) struct Read(LuaScript);

impl Read {
    pub(crate) fn new() -> Self {
        Self(LuaScript::new("read", include_str!("lua/read.lua")))
    }

    pub(crate) async fn run(
        &self,
        conn: &mut RedisConn,
        args: &ReadArgs<'_>,
    ) -> Result<Option<Ticket>, ApiError> {
        let mut invocation = self.0.prepare(conn);
        invocation.key(args.room_base).arg(args.ticket.as_str());
        let reply = self.0.run(&invocation, conn).await?;
        Ok(self.decode(args.ticket, &reply)?)
    }

    pub(crate) fn decode(
        &self,
        id: &TicketId,
        value: &Value,
    ) -> Result<Option<Ticket>, UnexpectedReply> {
        let reply = self.0.reply(value);
        let items = reply.array(value)?;
        let [rank, waiting, average, fields @ ..] = items else {
            return if items.is_empty() {
                Ok(None)
            } else {
                Err(reply.unexpected("a ticket needs its rank, queue length and average wait"))
            };
        };
        let rank: i64 = reply.number(rank)?;
        let position = match rank {
            -1 => 0,
            rank => u64::try_from(rank + 1)
                .map_err(|_| reply.unexpected(format!("rank {rank} in the queue")))?,
        };
        let mut ticket = TicketHash::read(&reply, fields)?.into_ticket(&reply, id)?;
        ticket.position = position;
        ticket.waiting = reply.number(waiting)?;
        ticket.average_wait_ms = reply.number(average)?;
        Ok(Some(ticket))
    }
}

/// A ticket hash's fields as stored (see the key table in the store's module header).
#[derive(Default)]
struct TicketHash<'a> {
    player: Option<&'a str>,
    state: Option<TicketState>,
    seq: Option<u64>,
    created_ms: Option<u64>,
    expires_ms: Option<u64>,
    request_id: Option<&'a str>,
    rating: Option<i64>,
    match_id: Option<&'a str>,
    table_id: Option<&'a str>,
    seat: Option<u32>,
    game: Option<&'static Game>,
    players: Option<&'a str>,
    refusal: Option<i32>,
    message: Option<&'a str>,
    ended_ms: Option<u64>,
    cancel_requested: bool,
}

impl<'a> TicketHash<'a> {
    /// Reads every field; an unknown field or an unreadable value is an error.
    fn read(reply: &Reply<'a>, fields: &'a [Value]) -> Result<Self, UnexpectedReply> {
        if !fields.len().is_multiple_of(2) {
            return Err(reply.unexpected("a ticket hash has a field without its value"));
        }
        let mut hash = TicketHash::default();
        for pair in fields.chunks_exact(2) {
            let value = &pair[1];
            match reply.text(&pair[0])? {
                "p" => hash.player = Some(reply.text(value)?),
                "s" => {
                    let state = reply.text(value)?;
                    hash.state = Some(TicketState::parse(state).ok_or_else(|| {
                        reply.unexpected(format!("unknown ticket state {state:?}"))
                    })?);
                }
                "seq" => hash.seq = Some(reply.number(value)?),
                "c" => hash.created_ms = Some(reply.number(value)?),
                "e" => hash.expires_ms = Some(reply.number(value)?),
                "q" => hash.request_id = Some(reply.text(value)?),
                "rt" => hash.rating = Some(reply.number(value)?),
                "m" => hash.match_id = Some(reply.text(value)?),
                "tb" => hash.table_id = Some(reply.text(value)?),
                "st" => hash.seat = Some(reply.number(value)?),
                "g" => {
                    let game = reply.text(value)?;
                    hash.game = Some(
                        gamehub_terms::games::by_key(game)
                            .ok_or_else(|| reply.unexpected(format!("unknown game {game:?}")))?,
                    );
                }
                "pl" => hash.players = Some(reply.text(value)?),
                "rf" => hash.refusal = Some(reply.number(value)?),
                "msg" => hash.message = Some(reply.text(value)?),
                "end" => hash.ended_ms = Some(reply.number(value)?),
                "cx" => {
                    reply.word(value, &["1"])?;
                    hash.cancel_requested = true;
                }
                // Failed table openings: counted by the release script alone.
                "f" => {
                    reply.number::<u32>(value)?;
                }
                other => return Err(reply.unexpected(format!("unknown ticket field {other:?}"))),
            }
        }
        Ok(hash)
    }

    fn into_ticket(self, reply: &Reply<'_>, id: &TicketId) -> Result<Ticket, UnexpectedReply> {
        let missing = |field: &str| reply.unexpected(format!("the ticket has no field {field}"));
        let state = self.state.ok_or_else(|| missing("s"))?;
        let seat = match state {
            TicketState::Seated => {
                let players = split(self.players.ok_or_else(|| missing("pl"))?);
                if players.is_empty() {
                    return Err(reply.unexpected("a seated ticket names no players"));
                }
                Some(SeatAt {
                    game: self.game.ok_or_else(|| missing("g"))?,
                    table_id: self.table_id.ok_or_else(|| missing("tb"))?.to_owned(),
                    seat: self.seat.ok_or_else(|| missing("st"))?,
                    match_id: self.match_id.ok_or_else(|| missing("m"))?.to_owned(),
                    players,
                })
            }
            _ if self.table_id.is_some() => {
                return Err(reply.unexpected("a ticket that is not seated names a table"));
            }
            _ => None,
        };
        if !state.is_live() && self.ended_ms.is_none() {
            return Err(missing("end"));
        }
        Ok(Ticket {
            id: id.clone(),
            player_id: self.player.ok_or_else(|| missing("p"))?.to_owned(),
            state,
            seq: self.seq.ok_or_else(|| missing("seq"))?,
            created_ms: self.created_ms.ok_or_else(|| missing("c"))?,
            expires_ms: self.expires_ms.ok_or_else(|| missing("e"))?,
            // Not ended yet.
            ended_ms: self.ended_ms.unwrap_or(0),
            request_id: self.request_id.ok_or_else(|| missing("q"))?.to_owned(),
            rating: self.rating.ok_or_else(|| missing("rt"))?,
            seat,
            // Set only when a claim ends the ticket; 0 and '' are "no refusal".
            refusal: self.refusal.unwrap_or(0),
            message: self.message.unwrap_or_default().to_owned(),
            cancel_requested: self.cancel_requested,
            // Filled in by the caller from the queue.
            position: 0,
            waiting: 0,
            average_wait_ms: 0,
        })
    }
}

/// The keys and arguments of `lua/enqueue.lua`.
#[derive(Debug, Clone)]
pub(crate) struct EnqueueArgs<'a> {
    /// The room's key base.
    pub room_base: &'a str,
    /// The new ticket.
    pub ticket: &'a str,
    /// Its player.
    pub player: &'a str,
    /// The Enqueue request id.
    pub request_id: &'a str,
    /// Now, Unix ms.
    pub now_ms: u64,
    /// How long it may wait, ms.
    pub ttl_ms: u64,
    /// Tickets waiting in the room at most.
    pub max_queue: u64,
    /// The player's rating (rated rooms; else 0).
    pub rating: i64,
    /// How long it stays readable once ended, ms.
    pub retention_ms: u64,
    /// Where ticket changes are announced.
    pub channel: &'a str,
}

/// What [`super::super::TicketStore::create`] did (`lua/enqueue.lua`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Created {
    /// The ticket is in the queue.
    Queued,
    /// It existed already (a retry).
    Existed,
    /// The room's queue is full.
    QueueFull,
}

/// Puts a new ticket in its room's queue.
#[derive(Debug)]
pub(crate) struct Enqueue(LuaScript);

impl Enqueue {
    pub(crate) fn new() -> Self {
        Self(LuaScript::new("enqueue", include_str!("lua/enqueue.lua")))
    }

    pub(crate) async fn run(
        &self,
        conn: &mut RedisConn,
        args: &EnqueueArgs<'_>,
    ) -> Result<Created, ApiError> {
        let mut invocation = self.0.prepare(conn);
        invocation
            .key(args.room_base)
            .arg(args.ticket)
            .arg(args.player)
            .arg(args.request_id)
            .arg(args.now_ms)
            .arg(args.ttl_ms)
            .arg(args.max_queue)
            .arg(args.rating)
            .arg(args.retention_ms)
            .arg(args.channel);
        let reply = self.0.run(&invocation, conn).await?;
        Ok(self.decode(&reply)?)
    }

    pub(crate) fn decode(&self, value: &Value) -> Result<Created, UnexpectedReply> {
        let reply = self.0.reply(value);
        Ok(match reply.word(value, &["ok", "exists", "full"])? {
            0 => Created::Queued,
            1 => Created::Existed,
            _ => Created::QueueFull,
        })
    }
}

/// The keys and arguments of `lua/cancel.lua`.
#[derive(Debug, Clone)]
pub(crate) struct CancelArgs<'a> {
    /// The room's key base.
    pub room_base: &'a str,
    /// The ticket.
    pub ticket: &'a str,
    /// Now, Unix ms.
    pub now_ms: u64,
    /// How long it stays readable once ended, ms.
    pub retention_ms: u64,
    /// Where ticket changes are announced.
    pub channel: &'a str,
}

/// What [`super::super::TicketStore::cancel`] did (`lua/cancel.lua`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cancelled {
    /// The ticket was waiting and is cancelled now.
    Now,
    /// The ticket is matching; it is marked to end cancelled unless seated.
    Requested,
    /// The ticket had already ended in this state (cancelled before included).
    AlreadyEnded(TicketState),
    /// No such ticket.
    Missing,
}

/// Cancels a ticket.
#[derive(Debug)]
pub(crate) struct Cancel(LuaScript);

impl Cancel {
    pub(crate) fn new() -> Self {
        Self(LuaScript::new("cancel", include_str!("lua/cancel.lua")))
    }

    pub(crate) async fn run(
        &self,
        conn: &mut RedisConn,
        args: &CancelArgs<'_>,
    ) -> Result<Cancelled, ApiError> {
        let mut invocation = self.0.prepare(conn);
        invocation
            .key(args.room_base)
            .arg(args.ticket)
            .arg(args.now_ms)
            .arg(args.retention_ms)
            .arg(args.channel);
        let reply = self.0.run(&invocation, conn).await?;
        Ok(self.decode(&reply)?)
    }

    pub(crate) fn decode(&self, value: &Value) -> Result<Cancelled, UnexpectedReply> {
        let reply = self.0.reply(value);
        let items = reply.array(value)?;
        match items {
            [word] => Ok(
                match reply.word(word, &["cancelled", "requested", "missing"])? {
                    0 => Cancelled::Now,
                    1 => Cancelled::Requested,
                    _ => Cancelled::Missing,
                },
            ),
            [word, state] => {
                reply.word(word, &["ended"])?;
                let state = reply.text(state)?;
                match TicketState::parse(state) {
                    Some(state) if !state.is_live() => Ok(Cancelled::AlreadyEnded(state)),
                    _ => Err(reply.unexpected(format!("{state:?} is not an ended state"))),
                }
            }
            _ => Err(reply.unexpected("expected {word} or {'ended', state}")),
        }
    }
}

/// The keys and arguments of `lua/expire.lua`.
#[derive(Debug, Clone)]
pub(crate) struct ExpireArgs<'a> {
    /// The room's key base.
    pub room_base: &'a str,
    /// Now, Unix ms.
    pub now_ms: u64,
    /// Tickets looked at, at most.
    pub limit: usize,
    /// How long they stay readable once ended, ms.
    pub retention_ms: u64,
    /// Where ticket changes are announced.
    pub channel: &'a str,
}

/// Ends waiting tickets past their expiry; the reply is (ticket, player) of each.
#[derive(Debug)]
pub(crate) struct Expire(LuaScript);

impl Expire {
    pub(crate) fn new() -> Self {
        Self(LuaScript::new("expire", include_str!("lua/expire.lua")))
    }

    pub(crate) async fn run(
        &self,
        conn: &mut RedisConn,
        args: &ExpireArgs<'_>,
    ) -> Result<Vec<(String, String)>, ApiError> {
        let mut invocation = self.0.prepare(conn);
        invocation
            .key(args.room_base)
            .arg(args.now_ms)
            .arg(args.limit)
            .arg(args.retention_ms)
            .arg(args.channel);
        let reply = self.0.run(&invocation, conn).await?;
        Ok(self.decode(&reply)?)
    }

    pub(crate) fn decode(&self, value: &Value) -> Result<Vec<(String, String)>, UnexpectedReply> {
        ticket_players(&self.0.reply(value), value)
    }
}
