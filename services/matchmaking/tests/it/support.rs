//! Test support: matchmaking on a free port with a Redis prefix of its own, with
//! in-process fakes of the ledger and the game services or the real ones, and a real
//! ledger over a fresh database (all from `gamehub-testkit`); enqueueing and waiting.

use std::time::{Duration, Instant};

use gamehub_platform::client::{TokenSource, service_channel};
use gamehub_proto::matchmaking::{EnqueueRequest, GetTicketRequest, Ticket, TicketState};
pub use gamehub_testkit::ledger::TestLedger;
pub use gamehub_testkit::matchmaking::{
    Client, FakeLedger, FakeTables, TestMatchmaking, spawn_real, spawn_with, test_config,
};

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
    let deadline = Instant::now() + within;
    loop {
        let ticket = client
            .get_ticket(GetTicketRequest {
                ticket_id: ticket_id.into(),
            })
            .await
            .unwrap()
            .into_inner()
            .ticket
            .unwrap();
        if ticket.state == state as i32 {
            return ticket;
        }
        assert!(
            Instant::now() < deadline,
            "ticket {ticket_id} is {:?}, not {state:?}, after {within:?}",
            TicketState::try_from(ticket.state)
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

pub fn state(ticket: &Ticket) -> TicketState {
    TicketState::try_from(ticket.state).unwrap()
}

/// The database prefix of this suite's test ledgers.
pub const LEDGER_DB_PREFIX: &str = "gamehub_mm_test_";
