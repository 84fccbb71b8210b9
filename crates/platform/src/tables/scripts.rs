//! The table store's two Lua scripts (`lua/commit.lua`, `lua/reschedule.lua`), each
//! with its arguments, its replies and a strict decoder (see [`crate::lua`]).

use crate::redis_conn::RedisConn;
use redis::Value;

use super::{Audience, NewEvent};
use crate::ApiError;
use crate::lua::{LuaScript, Reply, UnexpectedReply};

/// The names of the two scripts, in errors and logs.
const COMMIT: &str = "commit";
const RESCHEDULE: &str = "reschedule";

/// The keys and arguments of one atomic step (`lua/commit.lua`).
#[derive(Debug, Clone)]
pub(crate) struct CommitArgs<'a> {
    /// The table's state hash.
    pub state_key: &'a str,
    /// The table's event stream.
    pub events_key: &'a str,
    /// The table's applied request keys.
    pub requests_key: &'a str,
    /// The shard's deadline index.
    pub deadlines_key: &'a str,
    /// The shard's settlement outbox.
    pub outbox_key: &'a str,
    /// The shard's live tables.
    pub live_key: &'a str,
    /// The shard's listed tables (`tables::listing`).
    pub listed_key: &'a str,
    /// The table.
    pub table_id: &'a str,
    /// The version the table must be at (0: it must not exist).
    pub expected_version: u64,
    /// The new state.
    pub state: &'a [u8],
    /// The next clock deadline, Unix ms.
    pub deadline_ms: Option<u64>,
    /// Events kept in the stream (approximately).
    pub max_events: usize,
    /// The request's idempotency key.
    pub request_key: Option<&'a str>,
    /// Request keys kept.
    pub max_request_keys: usize,
    /// A settlement to put in the outbox: (game id, entry).
    pub settlement: Option<(&'a str, &'a [u8])>,
    /// The table is over: leave the live set, keys live `ttl_secs` more.
    pub close: bool,
    /// The lifetime given to the table's keys, seconds (at least 1).
    pub ttl_secs: u64,
    /// Where watchers are told about new events.
    pub notify_channel: &'a str,
    /// The events to append.
    pub events: &'a [NewEvent],
    /// The table's entry in the listed tables, added when this step creates the table
    /// (None: not listed).
    pub listing_entry: Option<&'a str>,
}

/// What one step did (the replies of `lua/commit.lua`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommitOutcome {
    /// Written: the new version and last event sequence.
    Applied {
        /// New version.
        version: u64,
        /// Last event sequence.
        last_seq: u64,
    },
    /// Not written: the table's version is not the expected one.
    Conflict {
        /// The version found.
        current_version: u64,
    },
    /// Not written: the request key was applied before.
    Duplicate {
        /// The last sequence of that application.
        last_seq: u64,
    },
}

/// The atomic step.
#[derive(Debug, Clone)]
pub(crate) struct CommitScript(LuaScript);

impl CommitScript {
    pub(crate) fn new() -> Self {
        Self(LuaScript::new(COMMIT, include_str!("lua/commit.lua")))
    }

    #[cfg(test)]
    pub(crate) async fn run(
        &self,
        conn: &mut RedisConn,
        args: &CommitArgs<'_>,
    ) -> Result<CommitOutcome, ApiError> {
        self.run_with_token(conn, args, None, "").await
    }

    /// [`CommitScript::run`], refusing (as a conflict) unless the table's writer token
    /// is `expected_token` (when given), and leaving `new_token` as the table's token.
    pub(crate) async fn run_with_token(
        &self,
        conn: &mut RedisConn,
        args: &CommitArgs<'_>,
        expected_token: Option<&str>,
        new_token: &str,
    ) -> Result<CommitOutcome, ApiError> {
        let (outbox_field, outbox_value) = args.settlement.unwrap_or(("", b""));
        let mut invocation = self.0.prepare(conn);
        invocation
            .key(args.state_key)
            .key(args.events_key)
            .key(args.requests_key)
            .key(args.deadlines_key)
            .key(args.outbox_key)
            .key(args.live_key)
            .key(args.listed_key)
            .arg(args.expected_version)
            .arg(args.state)
            .arg(optional(args.deadline_ms))
            .arg(args.table_id)
            .arg(args.max_events)
            .arg(args.request_key.unwrap_or(""))
            .arg(args.max_request_keys)
            .arg(outbox_field)
            .arg(outbox_value)
            .arg(if args.close { "1" } else { "0" })
            .arg(args.ttl_secs.max(1))
            .arg(args.notify_channel)
            .arg(args.events.len());
        for event in args.events {
            invocation.arg(event.audience.encode()).arg(&event.payload);
        }
        invocation
            .arg(expected_token.unwrap_or(""))
            .arg(new_token)
            .arg(args.listing_entry.unwrap_or(""));
        let reply = self.0.run(&invocation, conn).await?;
        Ok(self.decode(&reply)?)
    }

    fn decode(&self, value: &Value) -> Result<CommitOutcome, UnexpectedReply> {
        decode_commit_reply(value)
    }
}

/// Reads a reply of `lua/commit.lua` as [`CommitScript`] does: `{1, version, seq}`,
/// `{0, version}` or `{2, seq}`; anything else is an [`UnexpectedReply`]. Public for the
/// fuzz targets (`fuzz/`), which feed it whatever Redis could send.
pub fn decode_commit_reply(value: &Value) -> Result<CommitOutcome, UnexpectedReply> {
    let reply = Reply::of(COMMIT, value);
    let items = reply.array(value)?;
    let numbers = items
        .iter()
        .map(|item| reply.count(item))
        .collect::<Result<Vec<u64>, _>>()?;
    match numbers.as_slice() {
        [1, version, last_seq] => Ok(CommitOutcome::Applied {
            version: *version,
            last_seq: *last_seq,
        }),
        [0, current_version] => Ok(CommitOutcome::Conflict {
            current_version: *current_version,
        }),
        [2, last_seq] => Ok(CommitOutcome::Duplicate {
            last_seq: *last_seq,
        }),
        _ => Err(reply.unexpected("not {1, version, seq}, {0, version} or {2, seq}")),
    }
}

/// The keys and arguments of `lua/reschedule.lua`.
#[derive(Debug, Clone)]
pub(crate) struct RescheduleArgs<'a> {
    /// The table's state hash.
    pub state_key: &'a str,
    /// The shard's deadline index.
    pub deadlines_key: &'a str,
    /// The table.
    pub table_id: &'a str,
    /// The version the deadline was read at.
    pub version_seen: u64,
    /// The deadline to index, Unix ms (None: take the table out of the index).
    pub deadline_ms: Option<u64>,
}

/// What `lua/reschedule.lua` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rescheduled {
    /// The index now holds the deadline (or not, for None).
    Done,
    /// The table changed since it was read; its own step set the index.
    Moved,
}

/// Puts the deadline index in line with a loaded table.
#[derive(Debug, Clone)]
pub(crate) struct RescheduleScript(LuaScript);

impl RescheduleScript {
    pub(crate) fn new() -> Self {
        Self(LuaScript::new(
            RESCHEDULE,
            include_str!("lua/reschedule.lua"),
        ))
    }

    pub(crate) async fn run(
        &self,
        conn: &mut RedisConn,
        args: &RescheduleArgs<'_>,
    ) -> Result<Rescheduled, ApiError> {
        let mut invocation = self.0.prepare(conn);
        invocation
            .key(args.state_key)
            .key(args.deadlines_key)
            .arg(args.version_seen)
            .arg(optional(args.deadline_ms))
            .arg(args.table_id);
        let reply = self.0.run(&invocation, conn).await?;
        Ok(self.decode(&reply)?)
    }

    fn decode(&self, value: &Value) -> Result<Rescheduled, UnexpectedReply> {
        decode_reschedule_reply(value)
    }
}

/// Reads a reply of `lua/reschedule.lua` as [`RescheduleScript`] does: 1 or 0; anything
/// else is an [`UnexpectedReply`]. Public for the fuzz targets (`fuzz/`).
pub fn decode_reschedule_reply(value: &Value) -> Result<Rescheduled, UnexpectedReply> {
    let reply = Reply::of(RESCHEDULE, value);
    match reply.int(value)? {
        1 => Ok(Rescheduled::Done),
        0 => Ok(Rescheduled::Moved),
        other => Err(reply.unexpected(format!("{other} is not 0 or 1"))),
    }
}

/// An optional number as the scripts take it: '' for none.
fn optional(value: Option<u64>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}

impl Audience {
    /// The audience as stored beside an event: `*` for all, else the seat number.
    pub(crate) fn encode(self) -> String {
        match self {
            Audience::All => "*".to_owned(),
            Audience::Seat(seat) => seat.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    //! Each script against the real Redis (`REDIS_URL` or 127.0.0.1:6379), every reply
    //! it gives; and the decoders refusing replies the scripts never give.
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// Keys of a table of this test's own.
    struct Keys {
        base: String,
    }

    impl Keys {
        fn new() -> Self {
            Self {
                base: format!("ghtest{}:{{t}}", uuid::Uuid::new_v4().simple()),
            }
        }

        fn key(&self, name: &str) -> String {
            format!("{}:{name}", self.base)
        }
    }

    fn commit_args<'a>(
        keys: &'a [String; 7],
        expected_version: u64,
        request_key: Option<&'a str>,
        events: &'a [NewEvent],
    ) -> CommitArgs<'a> {
        CommitArgs {
            state_key: &keys[0],
            events_key: &keys[1],
            requests_key: &keys[2],
            deadlines_key: &keys[3],
            outbox_key: &keys[4],
            live_key: &keys[5],
            listed_key: &keys[6],
            table_id: "t",
            expected_version,
            state: b"{}",
            deadline_ms: Some(1_000),
            max_events: 100,
            request_key,
            max_request_keys: 4,
            settlement: None,
            close: false,
            ttl_secs: 60,
            notify_channel: &keys[5],
            events,
            listing_entry: None,
        }
    }

    async fn conn() -> RedisConn {
        // The Redis under test, as `gamehub_testkit::redis` chooses it (REDIS_URL and
        // GAMEHUB_REDIS_CLUSTER); this crate's own unit tests cannot use the testkit.
        let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
        let cluster = std::env::var("GAMEHUB_REDIS_CLUSTER").is_ok_and(|v| v == "true");
        let target = crate::RedisTarget::new(&url, cluster).unwrap();
        crate::redis_conn::connect(&target).await.unwrap()
    }

    #[tokio::test]
    async fn commit_applies_conflicts_and_recognises_a_duplicate() {
        let mut conn = conn().await;
        let names = Keys::new();
        let keys = ["s", "ev", "rq", "dl", "ob", "live", "listed"].map(|n| names.key(n));
        let script = CommitScript::new();
        let events = [
            NewEvent::public(b"a".to_vec()),
            NewEvent::private(1, b"b".to_vec()),
        ];

        let first = script
            .run(&mut conn, &commit_args(&keys, 0, Some("r1"), &events))
            .await
            .unwrap();
        assert_eq!(
            first,
            CommitOutcome::Applied {
                version: 1,
                last_seq: 2
            }
        );
        let stale = script
            .run(&mut conn, &commit_args(&keys, 0, Some("r2"), &[]))
            .await
            .unwrap();
        assert_eq!(stale, CommitOutcome::Conflict { current_version: 1 });
        let again = script
            .run(&mut conn, &commit_args(&keys, 1, Some("r1"), &[]))
            .await
            .unwrap();
        assert_eq!(again, CommitOutcome::Duplicate { last_seq: 2 });
        let next = script
            .run(&mut conn, &commit_args(&keys, 1, None, &[]))
            .await
            .unwrap();
        assert_eq!(
            next,
            CommitOutcome::Applied {
                version: 2,
                last_seq: 2
            }
        );
        let _: () = redis::cmd("DEL")
            .arg(&keys)
            .query_async(&mut conn)
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn reschedule_follows_the_version_it_read() {
        let mut conn = conn().await;
        let names = Keys::new();
        let (state, deadlines) = (names.key("s"), names.key("dl"));
        let _: () = redis::cmd("HSET")
            .arg(&state)
            .arg("v")
            .arg(3)
            .query_async(&mut conn)
            .await
            .unwrap();
        let script = RescheduleScript::new();
        let args = |version_seen, deadline_ms| RescheduleArgs {
            state_key: &state,
            deadlines_key: &deadlines,
            table_id: "t",
            version_seen,
            deadline_ms,
        };
        let score = |conn: RedisConn| {
            let deadlines = deadlines.clone();
            async move {
                let mut conn = conn;
                let score: Option<u64> = redis::cmd("ZSCORE")
                    .arg(deadlines)
                    .arg("t")
                    .query_async(&mut conn)
                    .await
                    .unwrap();
                score
            }
        };

        assert_eq!(
            script.run(&mut conn, &args(3, Some(500))).await.unwrap(),
            Rescheduled::Done
        );
        assert_eq!(score(conn.clone()).await, Some(500));
        assert_eq!(
            script.run(&mut conn, &args(2, None)).await.unwrap(),
            Rescheduled::Moved
        );
        assert_eq!(
            score(conn.clone()).await,
            Some(500),
            "a stale read changes nothing"
        );
        assert_eq!(
            script.run(&mut conn, &args(3, None)).await.unwrap(),
            Rescheduled::Done
        );
        assert_eq!(score(conn.clone()).await, None);
        let _: () = redis::cmd("DEL")
            .arg(&state)
            .arg(&deadlines)
            .query_async(&mut conn)
            .await
            .unwrap();
    }

    #[test]
    fn decoders_refuse_replies_the_scripts_never_give() {
        let commit = CommitScript::new();
        for bad in [
            Value::Array(vec![Value::Int(1), Value::Int(2)]),
            Value::Array(vec![Value::Int(3), Value::Int(2)]),
            Value::Array(vec![Value::Int(0), Value::Int(-1)]),
            Value::Array(vec![Value::Int(2), Value::BulkString(b"5".to_vec())]),
            Value::Array(vec![]),
            Value::Int(1),
            Value::Nil,
        ] {
            assert!(commit.decode(&bad).is_err(), "{bad:?}");
        }
        let reschedule = RescheduleScript::new();
        for bad in [Value::Int(2), Value::Int(-1), Value::Nil, Value::Okay] {
            assert!(reschedule.decode(&bad).is_err(), "{bad:?}");
        }
    }
}
