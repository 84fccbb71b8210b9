//! The ticket store's Lua scripts (`lua/*.lua`), one typed wrapper each: an argument
//! struct with the keys and arguments in the order the file's header gives them, the
//! reply as a type, and a decoder that accepts only the replies the script gives (see
//! [`gamehub_platform::lua`]). Grouped by what they change:
//!
//! - [`ticket`]: one ticket's life: `read`, `enqueue`, `cancel`, `expire`;
//! - [`claim`]: matching a room's queue: `peek`, `claim`, `opening`, `seat`, `take`,
//!   `release`, `take_over`;
//! - [`player`]: the per-player index: `reserve`, `unreserve`, `delete_if`, `expire_if`.
//!
//! Every script is tested against the real Redis in `tests.rs`, each reply included.

pub mod claim;
pub mod player;
pub mod ticket;

#[cfg(test)]
mod tests;

use std::collections::HashSet;

use gamehub_platform::lua::{Reply, UnexpectedReply};
use redis::Value;

/// Every script, loaded once per store.
#[derive(Debug)]
pub(crate) struct Scripts {
    pub read: ticket::Read,
    pub enqueue: ticket::Enqueue,
    pub cancel: ticket::Cancel,
    pub expire: ticket::Expire,
    pub peek: claim::Peek,
    pub claim: claim::Claim,
    pub opening: claim::MarkOpening,
    pub seat: claim::Seat,
    pub take: claim::Take,
    pub release: claim::ReleaseClaims,
    pub take_over: claim::TakeOver,
    pub reserve: player::Reserve,
    pub unreserve: player::Unreserve,
    pub delete_if: player::DeleteIf,
    pub expire_if: player::ExpireIf,
}

impl Scripts {
    pub(crate) fn new() -> Self {
        Self {
            read: ticket::Read::new(),
            enqueue: ticket::Enqueue::new(),
            cancel: ticket::Cancel::new(),
            expire: ticket::Expire::new(),
            peek: claim::Peek::new(),
            claim: claim::Claim::new(),
            opening: claim::MarkOpening::new(),
            seat: claim::Seat::new(),
            take: claim::Take::new(),
            release: claim::ReleaseClaims::new(),
            take_over: claim::TakeOver::new(),
            reserve: player::Reserve::new(),
            unreserve: player::Unreserve::new(),
            delete_if: player::DeleteIf::new(),
            expire_if: player::ExpireIf::new(),
        }
    }
}

/// A reply that is a list of match ids, each one of `asked` and none twice.
fn match_ids(
    reply: &Reply<'_>,
    value: &Value,
    asked: impl IntoIterator<Item = impl AsRef<str>>,
) -> Result<Vec<String>, UnexpectedReply> {
    let asked: HashSet<String> = asked.into_iter().map(|m| m.as_ref().to_owned()).collect();
    let mut seen = HashSet::new();
    reply
        .array(value)?
        .iter()
        .map(|item| {
            let id = reply.text(item)?;
            if !asked.contains(id) {
                return Err(reply.unexpected(format!("match {id:?} was not asked for")));
            }
            if !seen.insert(id) {
                return Err(reply.unexpected(format!("match {id:?} answered twice")));
            }
            Ok(id.to_owned())
        })
        .collect()
}

/// A reply that is a flat list of (ticket, player) pairs.
fn ticket_players(
    reply: &Reply<'_>,
    value: &Value,
) -> Result<Vec<(String, String)>, UnexpectedReply> {
    reply
        .records(value, 2)?
        .map(|pair| {
            Ok((
                reply.text(&pair[0])?.to_owned(),
                reply.text(&pair[1])?.to_owned(),
            ))
        })
        .collect()
}

/// A comma-separated list as the scripts store it ('' is the empty list).
fn split(list: &str) -> Vec<String> {
    if list.is_empty() {
        Vec::new()
    } else {
        list.split(',').map(str::to_owned).collect()
    }
}
