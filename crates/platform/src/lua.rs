//! Redis Lua scripts as typed boundaries.
//!
//! A script's source is a `.lua` file beside the module that owns it, loaded with
//! `include_str!`; its header says what `KEYS` and `ARGV` hold and what it returns. The
//! owner wraps it once, in one place: an argument struct that builds the invocation in
//! the header's order, a reply enum, and a decoder that accepts exactly the replies the
//! script can give. Anything else — a missing field, a number that does not parse, a
//! word the script never answers — is an [`UnexpectedReply`] (an internal error, logged
//! with the reply), never a default. Decoders read a [`redis::Value`], so the refusals
//! are unit-tested without Redis; the scripts themselves are tested against a real Redis
//! in the crate that owns them.
//!
//! A script that announces a change writes `redis.call('PUBLISH', channel, …)`, with a
//! channel carrying the script's own hash tag. On a Redis Cluster the same script runs
//! with `SPUBLISH` instead (sharded pub/sub), so the announcement stays on the nodes of
//! the script's slot rather than crossing the whole cluster: [`LuaScript::prepare`]
//! picks the variant for the connection.

use redis::Value;

use crate::ApiError;
use crate::redis_conn::RedisConn;

/// A Lua script with its name (for errors and logs).
#[derive(Debug, Clone)]
pub struct LuaScript {
    name: &'static str,
    script: redis::Script,
    sharded: redis::Script,
}

/// How a script publishes, and how it does on a cluster.
const PUBLISH: &str = "redis.call('PUBLISH',";
const SPUBLISH: &str = "redis.call('SPUBLISH',";

/// The cluster variant of a script's source: every `redis.call('PUBLISH',` becomes
/// `redis.call('SPUBLISH',`. Any other call of the PUBLISH command (another quoting,
/// `redis.pcall`, another case) is refused, since it would escape the rewrite.
fn sharded_source(source: &str) -> Result<String, String> {
    let sharded = source.replace(PUBLISH, SPUBLISH);
    let upper = sharded.to_ascii_uppercase();
    if upper.contains("'PUBLISH'") || upper.contains("\"PUBLISH\"") {
        return Err(format!(
            "publishes in a form other than {PUBLISH}; write it that way so that the cluster variant shards it"
        ));
    }
    Ok(sharded)
}

impl LuaScript {
    /// The script `source` (a `.lua` file's text), called `name` in errors.
    ///
    /// # Panics
    ///
    /// When the script publishes in a form other than `redis.call('PUBLISH', …)`: its
    /// cluster variant would then publish across the whole cluster (or not at all). The
    /// scripts are the crate's own constants, so this fails every test that uses the
    /// script, in every build, and never depends on a request.
    pub fn new(name: &'static str, source: &'static str) -> Self {
        let sharded = sharded_source(source).unwrap_or_else(|why| panic!("script {name}: {why}"));
        Self {
            name,
            script: redis::Script::new(source),
            sharded: redis::Script::new(&sharded),
        }
    }

    /// The script's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// An empty invocation to add the keys and arguments to, of the variant for
    /// `conn` (sharded publishing on a cluster).
    pub fn prepare(&self, conn: &RedisConn) -> redis::ScriptInvocation<'_> {
        if conn.is_cluster() {
            self.sharded.prepare_invoke()
        } else {
            self.script.prepare_invoke()
        }
    }

    /// Runs `invocation` (made by [`LuaScript::prepare`]) and returns the raw reply for
    /// the wrapper's decoder. The script is loaded on first use (EVALSHA, then SCRIPT
    /// LOAD when Redis does not know it).
    pub async fn run(
        &self,
        invocation: &redis::ScriptInvocation<'_>,
        conn: &mut RedisConn,
    ) -> Result<Value, ApiError> {
        Ok(invocation.invoke_async::<Value>(conn).await?)
    }

    /// A strict reader of one reply of this script.
    pub fn reply<'a>(&self, value: &'a Value) -> Reply<'a> {
        Reply {
            script: self.name,
            whole: value,
        }
    }
}

/// A reply a script cannot give: a bug, or a script of another version.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Lua script {script} gave an unexpected reply ({problem}): {reply}")]
pub struct UnexpectedReply {
    /// The script.
    pub script: &'static str,
    /// What is wrong with it.
    pub problem: String,
    /// The whole reply, shortened.
    pub reply: String,
}

impl From<UnexpectedReply> for ApiError {
    fn from(error: UnexpectedReply) -> Self {
        ApiError::internal(error)
    }
}

/// The longest excerpt of a reply an error carries.
const MAX_REPLY_EXCERPT: usize = 300;

/// Strict readers of the parts of one script's reply. Each accepts one shape only.
#[derive(Debug, Clone, Copy)]
pub struct Reply<'a> {
    script: &'static str,
    whole: &'a Value,
}

impl<'a> Reply<'a> {
    /// A reader of `value` as the reply of the script called `script`.
    pub fn of(script: &'static str, value: &'a Value) -> Self {
        Self {
            script,
            whole: value,
        }
    }

    /// The whole reply.
    pub fn whole(&self) -> &'a Value {
        self.whole
    }

    /// The error for this reply, saying what is wrong.
    pub fn unexpected(&self, problem: impl Into<String>) -> UnexpectedReply {
        let mut reply = format!("{:?}", self.whole);
        if reply.len() > MAX_REPLY_EXCERPT {
            let mut end = MAX_REPLY_EXCERPT;
            while !reply.is_char_boundary(end) {
                end -= 1;
            }
            reply.truncate(end);
            reply.push('…');
        }
        UnexpectedReply {
            script: self.script,
            problem: problem.into(),
            reply,
        }
    }

    /// A Lua table (possibly empty).
    pub fn array(&self, value: &'a Value) -> Result<&'a [Value], UnexpectedReply> {
        match value {
            Value::Array(items) => Ok(items),
            other => Err(self.unexpected(format!("expected a table, got {other:?}"))),
        }
    }

    /// A Lua table of exactly `len` items.
    pub fn tuple(&self, value: &'a Value, len: usize) -> Result<&'a [Value], UnexpectedReply> {
        let items = self.array(value)?;
        if items.len() == len {
            Ok(items)
        } else {
            Err(self.unexpected(format!("expected {len} items, got {}", items.len())))
        }
    }

    /// A Lua table of items in groups of `size` (a flat list of records).
    pub fn records(
        &self,
        value: &'a Value,
        size: usize,
    ) -> Result<std::slice::ChunksExact<'a, Value>, UnexpectedReply> {
        let items = self.array(value)?;
        if size > 0 && items.len().is_multiple_of(size) {
            Ok(items.chunks_exact(size))
        } else {
            Err(self.unexpected(format!(
                "expected records of {size} items, got {} items",
                items.len()
            )))
        }
    }

    /// A Lua number (an integer reply).
    pub fn int(&self, value: &'a Value) -> Result<i64, UnexpectedReply> {
        match value {
            Value::Int(n) => Ok(*n),
            other => Err(self.unexpected(format!("expected an integer, got {other:?}"))),
        }
    }

    /// A Lua number that is not negative.
    pub fn count(&self, value: &'a Value) -> Result<u64, UnexpectedReply> {
        let n = self.int(value)?;
        u64::try_from(n).map_err(|_| self.unexpected(format!("expected a count, got {n}")))
    }

    /// A Lua string (UTF-8).
    pub fn text(&self, value: &'a Value) -> Result<&'a str, UnexpectedReply> {
        match value {
            Value::BulkString(bytes) => std::str::from_utf8(bytes)
                .map_err(|_| self.unexpected("expected UTF-8 text, got other bytes")),
            Value::SimpleString(text) => Ok(text),
            other => Err(self.unexpected(format!("expected a string, got {other:?}"))),
        }
    }

    /// A Lua string holding a number (Redis hash fields and `tostring` values).
    pub fn number<T: std::str::FromStr>(&self, value: &'a Value) -> Result<T, UnexpectedReply> {
        let text = self.text(value)?;
        text.parse().map_err(|_| {
            self.unexpected(format!(
                "expected a {}, got {text:?}",
                std::any::type_name::<T>()
            ))
        })
    }

    /// A Lua string as bytes.
    pub fn bytes(&self, value: &'a Value) -> Result<&'a [u8], UnexpectedReply> {
        match value {
            Value::BulkString(bytes) => Ok(bytes),
            other => Err(self.unexpected(format!("expected a string, got {other:?}"))),
        }
    }

    /// A string that must be one of `words`; returns its index there.
    pub fn word(&self, value: &'a Value, words: &[&str]) -> Result<usize, UnexpectedReply> {
        let text = self.text(value)?;
        words
            .iter()
            .position(|w| *w == text)
            .ok_or_else(|| self.unexpected(format!("{text:?} is not one of {words:?}")))
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_cluster_variant_publishes_sharded() {
        let source = "redis.call('XADD', KEYS[1], '*', 'e', ARGV[1])\n\
                      redis.call('PUBLISH', KEYS[2], ARGV[1]) -- publishes the step\n";
        let sharded = sharded_source(source).unwrap();
        assert!(
            sharded.contains("redis.call('SPUBLISH', KEYS[2]"),
            "{sharded}"
        );
        assert!(sharded.contains("-- publishes the step"), "comments stay");
    }

    #[test]
    fn a_publish_the_rewrite_would_miss_is_refused() {
        for stray in [
            "redis.call(\"PUBLISH\", KEYS[1], 'x')",
            "redis.pcall('PUBLISH', KEYS[1], 'x')",
            "redis.call('publish', KEYS[1], 'x')",
        ] {
            assert!(sharded_source(stray).is_err(), "{stray}");
        }
    }

    #[test]
    #[should_panic(expected = "script stray")]
    fn a_script_that_would_escape_the_rewrite_does_not_load_in_any_build() {
        let _ = LuaScript::new("stray", "redis.pcall('PUBLISH', KEYS[1], 'x')");
    }

    use super::*;

    fn bulk(text: &str) -> Value {
        Value::BulkString(text.as_bytes().to_vec())
    }

    #[test]
    fn readers_accept_one_shape_each() {
        let whole = Value::Array(vec![Value::Int(3), bulk("12"), bulk("x"), Value::Nil]);
        let reply = Reply::of("test", &whole);
        let items = reply.tuple(&whole, 4).unwrap();
        assert_eq!(reply.int(&items[0]).unwrap(), 3);
        assert_eq!(reply.count(&items[0]).unwrap(), 3);
        assert_eq!(reply.number::<u64>(&items[1]).unwrap(), 12);
        assert_eq!(reply.text(&items[2]).unwrap(), "x");
        assert_eq!(reply.word(&items[2], &["y", "x"]).unwrap(), 1);

        assert!(reply.tuple(&whole, 3).is_err());
        assert!(reply.records(&whole, 3).is_err());
        assert_eq!(reply.records(&whole, 2).unwrap().count(), 2);
        assert!(reply.int(&items[1]).is_err(), "a string is not an integer");
        assert!(reply.number::<u64>(&items[2]).is_err());
        assert!(reply.text(&items[3]).is_err(), "nil is not a string");
        assert!(reply.word(&items[2], &["y"]).is_err());
        assert!(reply.count(&Value::Int(-1)).is_err());
        assert!(reply.array(&items[0]).is_err());
    }

    #[test]
    fn an_unexpected_reply_names_the_script_and_stays_short() {
        let whole = Value::BulkString(vec![b'a'; 10_000]);
        let error = Reply::of("long", &whole).unexpected("too long");
        assert_eq!(error.script, "long");
        assert!(error.reply.len() <= MAX_REPLY_EXCERPT + '…'.len_utf8());
        assert!(error.to_string().contains("long"), "{error}");
        let api: ApiError = error.into();
        assert!(matches!(api, ApiError::Internal(_)));
    }
}
