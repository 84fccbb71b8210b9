//! Matching a room's queue: `peek`, `claim`, `opening`, `seat`, `take`, `release`,
//! `take_over`. A claim (`…:m:MATCH`) holds tickets for one table under an owner token;
//! only the owner advances it, and a reaper takes over claims past their deadline.

use std::collections::{HashMap, HashSet};

use gamehub_platform::ApiError;
use gamehub_platform::RedisConn;
use gamehub_platform::lua::{LuaScript, UnexpectedReply};
use redis::Value;

use super::{match_ids, split, ticket_players};

/// The keys and arguments of `lua/peek.lua`.
#[derive(Debug, Clone)]
pub(crate) struct PeekArgs<'a> {
    /// The room's key base.
    pub room_base: &'a str,
    /// Tickets looked at, at most.
    pub limit: usize,
    /// Now, Unix ms.
    pub now_ms: u64,
}

/// A waiting ticket as the matcher sees it (a record of `lua/peek.lua`'s reply).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Peeked {
    /// The ticket.
    pub ticket_id: String,
    /// The player.
    pub player_id: String,
    /// When it was made, Unix ms.
    pub created_ms: u64,
    /// The rating when it enqueued.
    pub rating: i64,
}

/// The unexpired waiting tickets at the head of a room's queue.
#[derive(Debug)]
pub(crate) struct Peek(LuaScript);

impl Peek {
    pub(crate) fn new() -> Self {
        Self(LuaScript::new("peek", include_str!("lua/peek.lua")))
    }

    pub(crate) async fn run(
        &self,
        conn: &mut RedisConn,
        args: &PeekArgs<'_>,
    ) -> Result<Vec<Peeked>, ApiError> {
        let mut invocation = self.0.prepare(conn);
        invocation
            .key(args.room_base)
            .arg(args.limit)
            .arg(args.now_ms);
        let reply = self.0.run(&invocation, conn).await?;
        Ok(self.decode(&reply)?)
    }

    pub(crate) fn decode(&self, value: &Value) -> Result<Vec<Peeked>, UnexpectedReply> {
        let reply = self.0.reply(value);
        reply
            .records(value, 4)?
            .map(|record| {
                Ok(Peeked {
                    ticket_id: reply.text(&record[0])?.to_owned(),
                    player_id: reply.text(&record[1])?.to_owned(),
                    created_ms: reply.number(&record[2])?,
                    rating: reply.number(&record[3])?,
                })
            })
            .collect()
    }
}

/// Tickets to claim together for one table.
#[derive(Debug, Clone)]
pub struct ClaimGroup {
    /// The new match's id (the table's idempotency key at the game service).
    pub match_id: String,
    /// A fresh token: only its holder may advance the claim.
    pub owner: String,
    /// The tickets.
    pub tickets: Vec<String>,
}

/// The keys and arguments of `lua/claim.lua`.
#[derive(Debug, Clone)]
pub(crate) struct ClaimArgs<'a> {
    /// The room's key base.
    pub room_base: &'a str,
    /// Now, Unix ms.
    pub now_ms: u64,
    /// When the claims must be seated or released, Unix ms.
    pub deadline_ms: u64,
    /// Where ticket changes are announced.
    pub channel: &'a str,
    /// The groups to claim.
    pub groups: &'a [ClaimGroup],
}

/// Claims groups of waiting tickets, each whole or not at all; the reply is the match
/// ids claimed.
#[derive(Debug)]
pub(crate) struct Claim(LuaScript);

impl Claim {
    pub(crate) fn new() -> Self {
        Self(LuaScript::new("claim", include_str!("lua/claim.lua")))
    }

    pub(crate) async fn run(
        &self,
        conn: &mut RedisConn,
        args: &ClaimArgs<'_>,
    ) -> Result<Vec<String>, ApiError> {
        let mut invocation = self.0.prepare(conn);
        invocation
            .key(args.room_base)
            .arg(args.now_ms)
            .arg(args.deadline_ms)
            .arg(args.channel)
            .arg(args.groups.len());
        for group in args.groups {
            invocation
                .arg(&group.match_id)
                .arg(&group.owner)
                .arg(group.tickets.len());
            for ticket in &group.tickets {
                invocation.arg(ticket);
            }
        }
        let reply = self.0.run(&invocation, conn).await?;
        Ok(self.decode(args, &reply)?)
    }

    pub(crate) fn decode(
        &self,
        args: &ClaimArgs<'_>,
        value: &Value,
    ) -> Result<Vec<String>, UnexpectedReply> {
        let asked = args.groups.iter().map(|g| g.match_id.as_str());
        match_ids(&self.0.reply(value), value, asked)
    }
}

/// A claim about to open its table: who sits where.
#[derive(Debug, Clone)]
pub struct Opening {
    /// The match.
    pub match_id: String,
    /// The claim's owner token.
    pub owner: String,
    /// Players in seat order.
    pub players: Vec<String>,
    /// Their tickets, in the same order.
    pub tickets: Vec<String>,
}

/// The keys and arguments of `lua/opening.lua`.
#[derive(Debug, Clone)]
pub(crate) struct OpeningArgs<'a> {
    /// The room's key base.
    pub room_base: &'a str,
    /// The claims' new deadline, Unix ms.
    pub deadline_ms: u64,
    /// The claims about to open tables.
    pub openings: &'a [Opening],
}

/// Moves owned claims to phase `opening`; the reply is the match ids still owned.
#[derive(Debug)]
pub(crate) struct MarkOpening(LuaScript);

impl MarkOpening {
    pub(crate) fn new() -> Self {
        Self(LuaScript::new("opening", include_str!("lua/opening.lua")))
    }

    pub(crate) async fn run(
        &self,
        conn: &mut RedisConn,
        args: &OpeningArgs<'_>,
    ) -> Result<Vec<String>, ApiError> {
        let mut invocation = self.0.prepare(conn);
        invocation
            .key(args.room_base)
            .arg(args.deadline_ms)
            .arg(args.openings.len());
        for opening in args.openings {
            invocation
                .arg(&opening.match_id)
                .arg(&opening.owner)
                .arg(opening.players.join(","))
                .arg(opening.tickets.join(","));
        }
        let reply = self.0.run(&invocation, conn).await?;
        Ok(self.decode(args, &reply)?)
    }

    pub(crate) fn decode(
        &self,
        args: &OpeningArgs<'_>,
        value: &Value,
    ) -> Result<Vec<String>, UnexpectedReply> {
        let asked = args.openings.iter().map(|o| o.match_id.as_str());
        match_ids(&self.0.reply(value), value, asked)
    }
}

/// A match whose table opened.
#[derive(Debug, Clone)]
pub struct Seating {
    /// The match.
    pub match_id: String,
    /// The claim's owner token.
    pub owner: String,
    /// The table.
    pub table_id: String,
    /// (ticket, seat) for every ticket of the match.
    pub seats: Vec<(String, u32)>,
    /// The players, in the order of `seats`.
    pub players: Vec<String>,
}

/// The keys and arguments of `lua/seat.lua`.
#[derive(Debug, Clone)]
pub(crate) struct SeatArgs<'a> {
    /// The room's key base.
    pub room_base: &'a str,
    /// Now, Unix ms.
    pub now_ms: u64,
    /// How long seated tickets stay readable, ms.
    pub retention_ms: u64,
    /// Where ticket changes are announced.
    pub channel: &'a str,
    /// The game's registry key (`gomoku`, …).
    pub game: &'a str,
    /// Enqueue-to-seat time summed over `waited_tickets` tickets, ms.
    pub waited_ms: u64,
    /// How many tickets `waited_ms` sums.
    pub waited_tickets: u64,
    /// The matches whose tables opened.
    pub seatings: &'a [Seating],
}

/// Seats the tickets of opened tables; the reply is the match ids seated.
#[derive(Debug)]
pub(crate) struct Seat(LuaScript);

impl Seat {
    pub(crate) fn new() -> Self {
        Self(LuaScript::new("seat", include_str!("lua/seat.lua")))
    }

    pub(crate) async fn run(
        &self,
        conn: &mut RedisConn,
        args: &SeatArgs<'_>,
    ) -> Result<Vec<String>, ApiError> {
        let mut invocation = self.0.prepare(conn);
        invocation
            .key(args.room_base)
            .arg(args.now_ms)
            .arg(args.retention_ms)
            .arg(args.channel)
            .arg(args.game)
            .arg(args.waited_ms)
            .arg(args.waited_tickets)
            .arg(args.seatings.len());
        for seating in args.seatings {
            invocation
                .arg(&seating.match_id)
                .arg(&seating.owner)
                .arg(&seating.table_id)
                .arg(seating.seats.len());
            for (ticket, seat) in &seating.seats {
                invocation.arg(ticket).arg(*seat);
            }
        }
        let reply = self.0.run(&invocation, conn).await?;
        Ok(self.decode(args, &reply)?)
    }

    pub(crate) fn decode(
        &self,
        args: &SeatArgs<'_>,
        value: &Value,
    ) -> Result<Vec<String>, UnexpectedReply> {
        let asked = args.seatings.iter().map(|s| s.match_id.as_str());
        match_ids(&self.0.reply(value), value, asked)
    }
}

/// The keys and arguments of `lua/take.lua`.
#[derive(Debug, Clone)]
pub(crate) struct TakeArgs<'a> {
    /// The room's key base.
    pub room_base: &'a str,
    /// Now, Unix ms.
    pub now_ms: u64,
    /// When the claims must be seated or released, Unix ms.
    pub deadline_ms: u64,
    /// Where ticket changes are announced.
    pub channel: &'a str,
    /// Tickets per table.
    pub seats: usize,
    /// (match id, owner token) of each table to fill.
    pub tables: &'a [(String, String)],
}

/// Tickets claimed together by `lua/take.lua`.
#[derive(Debug, Clone)]
pub struct Taken {
    /// The match.
    pub match_id: String,
    /// The claim's owner token.
    pub owner: String,
    /// (ticket, player, created Unix ms) in queue order.
    pub members: Vec<(String, String, u64)>,
}

/// Claims tables' worth of the oldest waiting tickets in one step.
#[derive(Debug)]
pub(crate) struct Take(LuaScript);

impl Take {
    pub(crate) fn new() -> Self {
        Self(LuaScript::new("take", include_str!("lua/take.lua")))
    }

    pub(crate) async fn run(
        &self,
        conn: &mut RedisConn,
        args: &TakeArgs<'_>,
    ) -> Result<Vec<Taken>, ApiError> {
        let mut invocation = self.0.prepare(conn);
        invocation
            .key(args.room_base)
            .arg(args.now_ms)
            .arg(args.deadline_ms)
            .arg(args.channel)
            .arg(args.seats)
            .arg(args.tables.len());
        for (match_id, owner) in args.tables {
            invocation.arg(match_id).arg(owner);
        }
        let reply = self.0.run(&invocation, conn).await?;
        Ok(self.decode(args, &reply)?)
    }

    pub(crate) fn decode(
        &self,
        args: &TakeArgs<'_>,
        value: &Value,
    ) -> Result<Vec<Taken>, UnexpectedReply> {
        let reply = self.0.reply(value);
        let mut owners: HashMap<&str, &str> = args
            .tables
            .iter()
            .map(|(m, o)| (m.as_str(), o.as_str()))
            .collect();
        reply
            .records(value, 1 + 3 * args.seats)?
            .map(|record| {
                let match_id = reply.text(&record[0])?;
                // Each asked-for table at most once.
                let owner = owners.remove(match_id).ok_or_else(|| {
                    reply.unexpected(format!("match {match_id:?} was not asked for"))
                })?;
                let members = record[1..]
                    .chunks_exact(3)
                    .map(|m| {
                        Ok((
                            reply.text(&m[0])?.to_owned(),
                            reply.text(&m[1])?.to_owned(),
                            reply.number(&m[2])?,
                        ))
                    })
                    .collect::<Result<_, UnexpectedReply>>()?;
                Ok(Taken {
                    match_id: match_id.to_owned(),
                    owner: owner.to_owned(),
                    members,
                })
            })
            .collect()
    }
}

/// What becomes of one ticket of a released claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Back to the queue at its place (or cancelled/expired if due).
    Requeue,
    /// The table could not be opened: back to the queue, or FAILED after too many tries.
    Retry(String),
    /// The ledger refused the player: ends REFUSED.
    Refuse {
        /// `gamehub.ledger.v1.Refusal` code.
        refusal: i32,
        /// The ledger's sentence.
        message: String,
    },
    /// Ends FAILED with this message.
    Fail(String),
}

/// A claim to give up, with what becomes of each of its tickets.
#[derive(Debug, Clone)]
pub struct Release {
    /// The match.
    pub match_id: String,
    /// The claim's owner token.
    pub owner: String,
    /// (ticket, outcome) for every ticket of the match.
    pub tickets: Vec<(String, Outcome)>,
}

/// The keys and arguments of `lua/release.lua`.
#[derive(Debug, Clone)]
pub(crate) struct ReleaseArgs<'a> {
    /// The room's key base.
    pub room_base: &'a str,
    /// Now, Unix ms.
    pub now_ms: u64,
    /// How long ended tickets stay readable, ms.
    pub retention_ms: u64,
    /// Where ticket changes are announced.
    pub channel: &'a str,
    /// Failed table openings after which a ticket ends FAILED.
    pub max_open_failures: u32,
    /// The claims to give up.
    pub releases: &'a [Release],
}

/// Gives up claims; the reply is (ticket, player) of the tickets that ended.
#[derive(Debug)]
pub(crate) struct ReleaseClaims(LuaScript);

/// The script's name for an outcome: (action, refusal code, message).
fn action(outcome: &Outcome) -> (&'static str, i32, &str) {
    match outcome {
        Outcome::Requeue => ("requeue", 0, ""),
        Outcome::Retry(message) => ("retry", 0, message),
        Outcome::Refuse { refusal, message } => ("refuse", *refusal, message),
        Outcome::Fail(message) => ("fail", 0, message),
    }
}

impl ReleaseClaims {
    pub(crate) fn new() -> Self {
        Self(LuaScript::new("release", include_str!("lua/release.lua")))
    }

    pub(crate) async fn run(
        &self,
        conn: &mut RedisConn,
        args: &ReleaseArgs<'_>,
    ) -> Result<Vec<(String, String)>, ApiError> {
        let mut invocation = self.0.prepare(conn);
        invocation
            .key(args.room_base)
            .arg(args.now_ms)
            .arg(args.retention_ms)
            .arg(args.channel)
            .arg(args.max_open_failures)
            .arg(args.releases.len());
        for release in args.releases {
            invocation
                .arg(&release.match_id)
                .arg(&release.owner)
                .arg(release.tickets.len());
            for (ticket, outcome) in &release.tickets {
                let (action, refusal, message) = action(outcome);
                invocation.arg(ticket).arg(action).arg(refusal).arg(message);
            }
        }
        let reply = self.0.run(&invocation, conn).await?;
        Ok(self.decode(args, &reply)?)
    }

    pub(crate) fn decode(
        &self,
        args: &ReleaseArgs<'_>,
        value: &Value,
    ) -> Result<Vec<(String, String)>, UnexpectedReply> {
        let reply = self.0.reply(value);
        let released: HashSet<&str> = args
            .releases
            .iter()
            .flat_map(|r| r.tickets.iter().map(|(t, _)| t.as_str()))
            .collect();
        let ended = ticket_players(&reply, value)?;
        if let Some((ticket, _)) = ended.iter().find(|(t, _)| !released.contains(t.as_str())) {
            return Err(reply.unexpected(format!("ticket {ticket:?} was not released")));
        }
        Ok(ended)
    }
}

/// A claim a reaper took over (a record of `lua/take_over.lua`'s reply).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TakenOver {
    /// The match.
    pub match_id: String,
    /// Whether OpenTable may have been called (phase `opening`).
    pub opening: bool,
    /// The tickets.
    pub tickets: Vec<String>,
    /// Players in seat order (phase `opening` only).
    pub players: Vec<String>,
    /// Tickets in seat order (phase `opening` only).
    pub seat_order: Vec<String>,
    /// How many times a reaper took it over, this time included.
    pub takeovers: u32,
    /// The new owner token.
    pub owner: String,
}

/// The keys and arguments of `lua/take_over.lua`.
#[derive(Debug, Clone)]
pub(crate) struct TakeOverArgs<'a> {
    /// The room's key base.
    pub room_base: &'a str,
    /// Now, Unix ms.
    pub now_ms: u64,
    /// The claims' new deadline, Unix ms.
    pub deadline_ms: u64,
    /// Claims taken over, at most.
    pub limit: usize,
    /// The new owner token.
    pub owner: &'a str,
}

/// Takes over claims past their deadline.
#[derive(Debug)]
pub(crate) struct TakeOver(LuaScript);

impl TakeOver {
    pub(crate) fn new() -> Self {
        Self(LuaScript::new(
            "take_over",
            include_str!("lua/take_over.lua"),
        ))
    }

    pub(crate) async fn run(
        &self,
        conn: &mut RedisConn,
        args: &TakeOverArgs<'_>,
    ) -> Result<Vec<TakenOver>, ApiError> {
        let mut invocation = self.0.prepare(conn);
        invocation
            .key(args.room_base)
            .arg(args.now_ms)
            .arg(args.deadline_ms)
            .arg(args.limit)
            .arg(args.owner);
        let reply = self.0.run(&invocation, conn).await?;
        Ok(self.decode(args, &reply)?)
    }

    pub(crate) fn decode(
        &self,
        args: &TakeOverArgs<'_>,
        value: &Value,
    ) -> Result<Vec<TakenOver>, UnexpectedReply> {
        let reply = self.0.reply(value);
        reply
            .records(value, 6)?
            .map(|record| {
                let opening = reply.word(&record[1], &["claimed", "opening"])? == 1;
                let tickets = split(reply.text(&record[2])?);
                let players = split(reply.text(&record[3])?);
                let seat_order = split(reply.text(&record[4])?);
                let seated = if opening { tickets.len() } else { 0 };
                if tickets.is_empty() || players.len() != seated || seat_order.len() != seated {
                    return Err(reply.unexpected(
                        "a claim holds tickets, and players in seat order exactly once opening",
                    ));
                }
                let takeovers = reply.count(&record[5])?;
                Ok(TakenOver {
                    match_id: reply.text(&record[0])?.to_owned(),
                    opening,
                    tickets,
                    players,
                    seat_order,
                    takeovers: u32::try_from(takeovers)
                        .map_err(|_| reply.unexpected(format!("{takeovers} takeovers")))?,
                    owner: args.owner.to_owned(),
                })
            })
            .collect()
    }
}
