//! What Redis answers the table store, decoded as the store decodes it: the input is a
//! reply in Redis's own protocol (RESP2/RESP3, as it arrives on the connection), parsed
//! by the client library, then read by the strict readers of `lua` (`Reply`: tables,
//! tuples, records, integers, counts, text, numbers, words), the decoders of the two
//! table scripts (`commit.lua`, `reschedule.lua`), an event stream's range
//! (`decode_events`: sequence, audience, payload; private events fail closed), the
//! replies the store converts with the client library (HMGET, ZSCORE, counts), and an
//! outbox entry (JSON holding the settlement request's protobuf as hex).
//!
//! Properties: an error quotes at most 300 bytes of the reply; a decoded event's
//! audience is `*` or a seat; an event range decodes to as many events as entries.
#![no_main]

use gamehub_platform::lua::Reply;
use gamehub_platform::tables::{
    Audience, OutboxEntry, TableStore, decode_commit_reply, decode_reschedule_reply,
};
use libfuzzer_sys::fuzz_target;
use redis::{FromRedisValue, Value};

/// The longest excerpt of a reply an error carries, and the ellipsis after it.
const MAX_EXCERPT_BYTES: usize = 300 + '…'.len_utf8();

fuzz_target!(|data: &[u8]| {
    let Ok(value) = redis::parse_redis_value(data) else {
        return;
    };
    let _ = decode_commit_reply(&value);
    let _ = decode_reschedule_reply(&value);
    events(&value);
    conversions(&value);

    let reply = Reply::of("fuzz", &value);
    let excerpt = reply.unexpected("fuzzed").reply;
    assert!(
        excerpt.len() <= MAX_EXCERPT_BYTES,
        "{} bytes",
        excerpt.len()
    );
    read(&reply, &value);
    if let Ok(items) = reply.array(&value) {
        for item in items {
            read(&reply, item);
        }
    }
});

/// Every strict reader on one value.
fn read(reply: &Reply<'_>, value: &Value) {
    for len in 0..4 {
        let _ = reply.tuple(value, len);
        let _ = reply.records(value, len);
    }
    let _ = reply.int(value);
    let _ = reply.count(value);
    let _ = reply.bytes(value);
    let _ = reply.word(value, &["waiting", "seated", ""]);
    let _ = reply.number::<u64>(value);
    let _ = reply.number::<i64>(value);
    let _ = reply.number::<f64>(value);
    if let Ok(text) = reply.text(value) {
        if let Ok(audience) = Audience::decode(text) {
            assert!(matches!(audience, Audience::All) || text.parse::<u8>().is_ok());
        }
    }
    if let Ok(bytes) = reply.bytes(value) {
        if let Ok(entry) = serde_json::from_slice::<OutboxEntry>(bytes) {
            let _ = entry.request();
        }
    }
}

/// The value as an XRANGE reply of a table's events.
fn events(value: &Value) {
    let Ok(range) = redis::streams::StreamRangeReply::from_redis_value(value.clone()) else {
        return;
    };
    let entries = range.ids.len();
    if let Ok(events) = TableStore::decode_events("t", range) {
        assert_eq!(events.len(), entries);
    }
}

/// The conversions the store asks of the client library for its plain commands.
fn conversions(value: &Value) {
    let _ = <(Option<u64>, Option<Vec<u8>>, Option<u64>)>::from_redis_value(value.clone());
    let _ = <Option<f64>>::from_redis_value(value.clone());
    let _ = <Option<Vec<u8>>>::from_redis_value(value.clone());
    let _ = <Vec<u64>>::from_redis_value(value.clone());
    let _ = <Vec<String>>::from_redis_value(value.clone());
    let _ = <(u64, Vec<(String, Vec<u8>)>)>::from_redis_value(value.clone());
    let _ = u64::from_redis_value(value.clone());
}
