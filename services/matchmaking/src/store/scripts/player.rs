//! The per-player index (keys under the player's own hash tag): `reserve`, `unreserve`,
//! `delete_if`.

use gamehub_platform::ApiError;
use gamehub_platform::RedisConn;
use gamehub_platform::lua::{LuaScript, UnexpectedReply};
use redis::Value;

/// The keys and arguments of `lua/reserve.lua`.
#[derive(Debug, Clone)]
pub(crate) struct ReserveArgs<'a> {
    /// The player's key base.
    pub player_base: &'a str,
    /// The Enqueue request id.
    pub request_id: &'a str,
    /// The ticket to reserve them for.
    pub ticket: &'a str,
    /// How long the reservation lives, ms.
    pub ttl_ms: u64,
}

/// What [`super::super::TicketStore::reserve`] found under the player's tag
/// (`lua/reserve.lua`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reservation {
    /// The request id and the live slot are now the new ticket's.
    Reserved,
    /// The request id made this ticket before.
    Replay(String),
    /// The player already has this live ticket (or one being made).
    Live(String),
}

/// Takes a player's request id and live slot for a new ticket.
#[derive(Debug)]
pub(crate) struct Reserve(LuaScript);

impl Reserve {
    pub(crate) fn new() -> Self {
        Self(LuaScript::new("reserve", include_str!("lua/reserve.lua")))
    }

    pub(crate) async fn run(
        &self,
        conn: &mut RedisConn,
        args: &ReserveArgs<'_>,
    ) -> Result<Reservation, ApiError> {
        let mut invocation = self.0.prepare(conn);
        invocation
            .key(args.player_base)
            .arg(args.request_id)
            .arg(args.ticket)
            .arg(args.ttl_ms);
        let reply = self.0.run(&invocation, conn).await?;
        Ok(self.decode(args, &reply)?)
    }

    pub(crate) fn decode(
        &self,
        args: &ReserveArgs<'_>,
        value: &Value,
    ) -> Result<Reservation, UnexpectedReply> {
        let reply = self.0.reply(value);
        let items = reply.tuple(value, 2)?;
        let ticket = reply.text(&items[1])?;
        match reply.word(&items[0], &["reserved", "replay", "live"])? {
            0 if ticket == args.ticket => Ok(Reservation::Reserved),
            0 => Err(reply.unexpected(format!("reserved {ticket:?}, not {:?}", args.ticket))),
            1 => Ok(Reservation::Replay(ticket.to_owned())),
            _ => Ok(Reservation::Live(ticket.to_owned())),
        }
    }
}

/// The keys and arguments of `lua/unreserve.lua`.
#[derive(Debug, Clone)]
pub(crate) struct UnreserveArgs<'a> {
    /// The player's key base.
    pub player_base: &'a str,
    /// The Enqueue request id.
    pub request_id: &'a str,
    /// The ticket they were reserved for.
    pub ticket: &'a str,
}

/// Gives back a reservation; the reply is how many of the request id and the live slot
/// were freed (0–2: either may have moved on).
#[derive(Debug)]
pub(crate) struct Unreserve(LuaScript);

impl Unreserve {
    pub(crate) fn new() -> Self {
        Self(LuaScript::new(
            "unreserve",
            include_str!("lua/unreserve.lua"),
        ))
    }

    pub(crate) async fn run(
        &self,
        conn: &mut RedisConn,
        args: &UnreserveArgs<'_>,
    ) -> Result<u8, ApiError> {
        let mut invocation = self.0.prepare(conn);
        invocation
            .key(args.player_base)
            .arg(args.request_id)
            .arg(args.ticket);
        let reply = self.0.run(&invocation, conn).await?;
        Ok(self.decode(&reply)?)
    }

    pub(crate) fn decode(&self, value: &Value) -> Result<u8, UnexpectedReply> {
        let reply = self.0.reply(value);
        match reply.int(value)? {
            freed @ 0..=2 => Ok(u8::try_from(freed).unwrap_or(2)),
            other => Err(reply.unexpected(format!("freed {other} of 2"))),
        }
    }
}

/// The keys and arguments of `lua/delete_if.lua`.
#[derive(Debug, Clone)]
pub(crate) struct DeleteIfArgs<'a> {
    /// The string key.
    pub key: &'a str,
    /// The value it must still hold.
    pub expected: &'a str,
}

/// Deletes a key if it still holds the expected value; the reply says whether it did.
#[derive(Debug)]
pub(crate) struct DeleteIf(LuaScript);

impl DeleteIf {
    pub(crate) fn new() -> Self {
        Self(LuaScript::new(
            "delete_if",
            include_str!("lua/delete_if.lua"),
        ))
    }

    pub(crate) async fn run(
        &self,
        conn: &mut RedisConn,
        args: &DeleteIfArgs<'_>,
    ) -> Result<bool, ApiError> {
        let mut invocation = self.0.prepare(conn);
        invocation.key(args.key).arg(args.expected);
        let reply = self.0.run(&invocation, conn).await?;
        Ok(self.decode(&reply)?)
    }

    pub(crate) fn decode(&self, value: &Value) -> Result<bool, UnexpectedReply> {
        let reply = self.0.reply(value);
        match reply.int(value)? {
            1 => Ok(true),
            0 => Ok(false),
            other => Err(reply.unexpected(format!("deleted {other} keys"))),
        }
    }
}

/// Arguments of [`ExpireIf`].
#[derive(Debug)]
pub(crate) struct ExpireIfArgs<'a> {
    /// The string key.
    pub key: &'a str,
    /// The value it must still hold.
    pub expected: &'a str,
    /// Its new time to live.
    pub ttl_ms: u64,
}

/// Gives a key a new time to live if it still holds the expected value; the reply says
/// whether it did.
#[derive(Debug)]
pub(crate) struct ExpireIf(LuaScript);

impl ExpireIf {
    pub(crate) fn new() -> Self {
        Self(LuaScript::new(
            "expire_if",
            include_str!("lua/expire_if.lua"),
        ))
    }

    pub(crate) async fn run(
        &self,
        conn: &mut RedisConn,
        args: &ExpireIfArgs<'_>,
    ) -> Result<bool, ApiError> {
        let mut invocation = self.0.prepare(conn);
        invocation.key(args.key).arg(args.expected).arg(args.ttl_ms);
        let reply = self.0.run(&invocation, conn).await?;
        Ok(self.decode(&reply)?)
    }

    pub(crate) fn decode(&self, value: &Value) -> Result<bool, UnexpectedReply> {
        let reply = self.0.reply(value);
        match reply.int(value)? {
            1 => Ok(true),
            0 => Ok(false),
            other => Err(reply.unexpected(format!("extended {other} keys"))),
        }
    }
}
