//! Test support: matchmaking on a free port with a Redis prefix of its own, with
//! in-process fakes of the ledger and the game services (this crate's `testing`
//! module), and a real ledger over a fresh database (the ledger's); enqueueing and
//! waiting.

use std::time::Duration;

pub use gamehub_ledger::testing::TestLedger;
pub use gamehub_matchmaking::testing::{
    Client, FakeLedger, FakeTables, TestMatchmaking, spawn_with, test_config,
};
use gamehub_platform::client::{TokenSource, service_channel};
use gamehub_proto::matchmaking::{EnqueueRequest, GetTicketRequest, Ticket, TicketState};
use gamehub_testkit::clock::eventually;

/// A client at `url` sending `token` as it is.
pub fn client(url: &str, token: String) -> Client {
    Client::new(service_channel(url, TokenSource::Static(token), Duration::from_secs(10)).unwrap())
}

/// Enqueues `client`'s player in `room` with a fresh request id.
pub async fn enqueue(client: &mut Client, room: &str) -> Ticket {
    client
        .enqueue(EnqueueRequest {
            room_id: room.into(),
            request_id: uuid::Uuid::new_v4().to_string(),
            player_id: String::new(),
        })
        .await
        .unwrap()
        .into_inner()
        .ticket
        .unwrap()
}

/// Polls the ticket until it reaches `state` (panics after `within`).
pub async fn wait_for(
    client: &mut Client,
    ticket_id: &str,
    state: TicketState,
    within: Duration,
) -> Ticket {
    let what = format!("ticket {ticket_id} {state:?}");
    eventually(&what, within, || {
        let mut client = client.clone();
        async move {
            let ticket = client
                .get_ticket(GetTicketRequest {
                    ticket_id: ticket_id.into(),
                })
                .await
                .unwrap()
                .into_inner()
                .ticket
                .unwrap();
            (ticket.state == state as i32).then_some(ticket)
        }
    })
    .await
}

pub fn state(ticket: &Ticket) -> TicketState {
    TicketState::try_from(ticket.state).unwrap()
}

/// The database prefix of this suite's test ledgers.
pub const LEDGER_DB_PREFIX: &str = "gamehub_mm_test_";
