//! Tickets in the service's own words: ids, states, and what a ticket holds.

use gamehub_proto::matchmaking as pb;

use crate::rooms::{Game, Rooms};

/// The longest ticket id: a room id, a dot and 32 hex digits.
pub const MAX_TICKET_ID_LEN: usize = crate::rooms::MAX_ROOM_ID_LEN + 1 + 32;

/// A ticket id: `<room id>.<UUIDv7 as 32 hex digits>`. The room part says where the
/// ticket lives in Redis (each room has its own hash tag); the UUIDv7 carries when the
/// ticket id was made, which tells a crashed Enqueue from one still in flight.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TicketId {
    room_id: String,
    text: String,
}

impl TicketId {
    /// A fresh id for a ticket in `room_id`.
    pub fn new(room_id: &str) -> Self {
        let uuid = uuid::Uuid::now_v7();
        Self {
            room_id: room_id.to_owned(),
            text: format!("{room_id}.{}", uuid.simple()),
        }
    }

    /// Parses an id a client sent, checking that its room exists.
    pub fn parse(text: &str, rooms: &Rooms) -> Option<Self> {
        let text = text.trim();
        if text.len() > MAX_TICKET_ID_LEN {
            return None;
        }
        let (room_id, uuid) = text.rsplit_once('.')?;
        if uuid.len() != 32 || !uuid.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        rooms.get(room_id)?;
        Some(Self {
            room_id: room_id.to_owned(),
            text: text.to_owned(),
        })
    }

    /// The room the ticket is for.
    pub fn room_id(&self) -> &str {
        &self.room_id
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// When the id was made, Unix ms (0 when it carries no time).
    pub fn made_at_ms(&self) -> u64 {
        let hex = self.text.rsplit('.').next().unwrap_or_default();
        uuid::Uuid::parse_str(hex)
            .ok()
            .and_then(|u| u.get_timestamp())
            .map(|ts| {
                let (secs, nanos) = ts.to_unix();
                secs.saturating_mul(1000) + u64::from(nanos / 1_000_000)
            })
            .unwrap_or(0)
    }
}

impl std::fmt::Display for TicketId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// Where a ticket is in its life (see the proto's `TicketState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TicketState {
    /// In the queue.
    Waiting,
    /// Claimed by a matcher: eligibility and table opening under way.
    Matching,
    /// Seated at a table.
    Seated,
    /// Waited too long.
    Expired,
    /// Cancelled by the player.
    Cancelled,
    /// Refused a seat by the ledger.
    Refused,
    /// No table could be opened.
    Failed,
}

impl TicketState {
    /// The name stored in Redis.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Waiting => "waiting",
            Self::Matching => "matching",
            Self::Seated => "seated",
            Self::Expired => "expired",
            Self::Cancelled => "cancelled",
            Self::Refused => "refused",
            Self::Failed => "failed",
        }
    }

    /// Parses the name stored in Redis.
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "waiting" => Self::Waiting,
            "matching" => Self::Matching,
            "seated" => Self::Seated,
            "expired" => Self::Expired,
            "cancelled" => Self::Cancelled,
            "refused" => Self::Refused,
            "failed" => Self::Failed,
            _ => return None,
        })
    }

    /// Whether the ticket still counts as the player's live ticket.
    pub fn is_live(self) -> bool {
        matches!(self, Self::Waiting | Self::Matching)
    }

    fn to_proto(self) -> pb::TicketState {
        match self {
            Self::Waiting => pb::TicketState::Waiting,
            Self::Matching => pb::TicketState::Matching,
            Self::Seated => pb::TicketState::Seated,
            Self::Expired => pb::TicketState::Expired,
            Self::Cancelled => pb::TicketState::Cancelled,
            Self::Refused => pb::TicketState::Refused,
            Self::Failed => pb::TicketState::Failed,
        }
    }
}

/// Where a seated player sits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatAt {
    /// The game service to go to.
    pub game: &'static Game,
    /// The table there.
    pub table_id: String,
    /// The player's seat, from 0.
    pub seat: u32,
    /// The match id the table was opened with.
    pub match_id: String,
    /// Every player of the table, in seat order.
    pub players: Vec<String>,
}

/// A ticket as stored, plus its place in the queue when waiting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ticket {
    /// Its id.
    pub id: TicketId,
    /// The player.
    pub player_id: String,
    /// The state.
    pub state: TicketState,
    /// The queue order (a per-room counter); a ticket going back keeps it.
    pub seq: u64,
    /// When it was made, Unix ms.
    pub created_ms: u64,
    /// When a waiting ticket expires, Unix ms.
    pub expires_ms: u64,
    /// When it ended, Unix ms (0 while live).
    pub ended_ms: u64,
    /// The request id it was made with.
    pub request_id: String,
    /// The rating when it enqueued (rated rooms).
    pub rating: i64,
    /// Where it sits, once seated.
    pub seat: Option<SeatAt>,
    /// The ledger's refusal code (`gamehub.ledger.v1.Refusal`), when refused.
    pub refusal: i32,
    /// Why it was refused or failed.
    pub message: String,
    /// The player asked to cancel while the ticket was matching.
    pub cancel_requested: bool,
    /// Waiting: 1-based place in the queue (0 otherwise).
    pub position: u64,
    /// Waiting: tickets waiting in the room.
    pub waiting: u64,
    /// The room's recent average wait, ms (for the estimate).
    pub average_wait_ms: u64,
}

impl Ticket {
    /// The ticket as the API shows it, at `now_ms`.
    pub fn to_proto(&self, now_ms: u64) -> pb::Ticket {
        let waiting = self.state == TicketState::Waiting;
        let waited = now_ms.saturating_sub(self.created_ms);
        let estimate = if waiting {
            self.average_wait_ms.saturating_sub(waited)
        } else {
            0
        };
        pb::Ticket {
            ticket_id: self.id.to_string(),
            room_id: self.id.room_id().to_owned(),
            player_id: self.player_id.clone(),
            state: self.state.to_proto() as i32,
            position: if waiting { to_i64(self.position) } else { 0 },
            waiting_players: if waiting { to_i64(self.waiting) } else { 0 },
            estimated_wait_ms: to_i64(estimate),
            created_at_unix_ms: to_i64(self.created_ms),
            expires_at_unix_ms: to_i64(self.expires_ms),
            ended_at_unix_ms: to_i64(self.ended_ms),
            seat: self.seat.as_ref().map(|s| pb::Seat {
                game_type: s.game.game_type as i32,
                table_id: s.table_id.clone(),
                seat: i32::try_from(s.seat).unwrap_or(i32::MAX),
                match_id: s.match_id.clone(),
                players: s.players.clone(),
                profiles: Vec::new(),
            }),
            refusal: self.refusal,
            message: self.message.clone(),
            cancel_requested: self.cancel_requested,
            rating: self.rating,
        }
    }
}

fn to_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticket_ids_name_their_room_and_time() {
        let rooms = Rooms::defaults();
        let id = TicketId::new("gomoku-renju");
        let parsed = TicketId::parse(id.as_str(), &rooms).unwrap();
        assert_eq!(parsed, id);
        assert_eq!(parsed.room_id(), "gomoku-renju");
        let now = gamehub_platform::Clock::system().now_ms();
        assert!(parsed.made_at_ms().abs_diff(now) < 5_000);
        assert!(TicketId::parse("nowhere.0123456789abcdef0123456789abcdef", &rooms).is_none());
        assert!(TicketId::parse("gomoku-renju.xyz", &rooms).is_none());
        assert!(TicketId::parse("", &rooms).is_none());
    }

    #[test]
    fn states_round_trip() {
        for state in [
            TicketState::Waiting,
            TicketState::Matching,
            TicketState::Seated,
            TicketState::Expired,
            TicketState::Cancelled,
            TicketState::Refused,
            TicketState::Failed,
        ] {
            assert_eq!(TicketState::parse(state.as_str()), Some(state));
        }
    }
}
