//! Bots at the table, through the public API only: [`matchmaking`] seats a player,
//! [`gomoku`] and [`doudizhu`] play a seat.

pub mod doudizhu;
pub mod gomoku;

use std::future::Future;
use std::time::Duration;

/// Calls `call` until it succeeds, retrying what a well-behaved client retries: a rate
/// limit (after the server's `retry-after-ms` hint), an unavailable service, a lost
/// race. `call` must send the same request (same request id) each time, so a retry of
/// something already applied is answered as a replay and never applies twice.
pub async fn retry<T, F, Fut>(mut call: F) -> Result<T, tonic::Status>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, tonic::Status>>,
{
    const ATTEMPTS: u32 = 30;
    let mut attempt = 0;
    loop {
        match call().await {
            Ok(value) => return Ok(value),
            Err(status) if attempt < ATTEMPTS && transient(&status) => {
                pause(&status, attempt).await;
                attempt += 1;
            }
            Err(status) => return Err(status),
        }
    }
}

/// Times a bot watches a table again after its stream failed transiently (a game
/// service replica restarting, Redis failing over).
pub const MAX_REWATCHES: u32 = 20;

/// Whether a failure passes (a limit, a dependency failing over, a lost race), so the
/// same request may be sent again.
pub fn transient(status: &tonic::Status) -> bool {
    matches!(
        status.code(),
        tonic::Code::ResourceExhausted | tonic::Code::Unavailable | tonic::Code::Aborted
    )
}

/// Waits before attempt `attempt + 1` after `status`: its retry hint when it has one,
/// else a growing backoff, at most 2 s.
pub async fn pause(status: &tonic::Status, attempt: u32) {
    let hint = status
        .metadata()
        .get(gamehub_platform::error::RETRY_AFTER_MS)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
        .map(Duration::from_millis);
    let backoff = Duration::from_millis(50 * u64::from(attempt + 1));
    tokio::time::sleep(hint.unwrap_or(backoff).min(Duration::from_secs(2))).await;
}

/// `retry_call!(client, method, request)`: a future that sends `request` with
/// `client.method` through [`retry`], resending the very same request (so the same
/// request id), and resolves to the response's message.
macro_rules! retry_call {
    ($client:expr, $method:ident, $request:expr) => {{
        let client = $client.clone();
        let request = $request;
        async move {
            $crate::drive::retry(|| {
                let mut client = client.clone();
                let request = request.clone();
                async move { client.$method(request).await }
            })
            .await
            .map(::tonic::Response::into_inner)
        }
    }};
}
pub(crate) use retry_call;

/// A bot's Leave: a table that another seat already closed, or that is gone, is left
/// as well.
pub fn left<T>(leave: Result<T, tonic::Status>) -> Result<(), tonic::Status> {
    match leave {
        Ok(_) => Ok(()),
        Err(status)
            if matches!(
                status.code(),
                tonic::Code::FailedPrecondition | tonic::Code::NotFound
            ) =>
        {
            Ok(())
        }
        Err(status) => Err(status),
    }
}

pub mod matchmaking {
    //! From "I want to play in this room" to a seat, as a front-end does it.

    use futures::StreamExt;
    use gamehub_platform::client::ServiceChannel;
    use gamehub_proto::matchmaking::matchmaking_service_client::MatchmakingServiceClient;
    use gamehub_proto::matchmaking::{self as mm, TicketState};

    use crate::api::request_id;

    /// Queues the client's player (or `player_id` with a service token) for `room_id`
    /// and follows the ticket until it ends; returns the seat, or an error naming the
    /// ticket's fate.
    pub async fn seat(
        client: &mut MatchmakingServiceClient<ServiceChannel>,
        room_id: &str,
        player_id: &str,
        on_update: impl FnMut(&mm::Ticket),
    ) -> anyhow::Result<mm::Seat> {
        // Retried like any action (a rate limit, a peer that did not answer): the same
        // request id makes a retry of an applied Enqueue a replay, never a second ticket.
        let enqueue = mm::EnqueueRequest {
            room_id: room_id.to_owned(),
            request_id: request_id(),
            player_id: player_id.to_owned(),
        };
        let ticket = super::retry_call!(client, enqueue, enqueue)
            .await?
            .ticket
            .ok_or_else(|| anyhow::anyhow!("matchmaking returned no ticket"))?;
        follow(client, ticket, on_update).await
    }

    /// Follows `ticket` (one just made, or a live one `LocatePlayer` found) until it
    /// ends; returns the seat, or an error naming the ticket's fate.
    pub async fn follow(
        client: &mut MatchmakingServiceClient<ServiceChannel>,
        ticket: mm::Ticket,
        mut on_update: impl FnMut(&mm::Ticket),
    ) -> anyhow::Result<mm::Seat> {
        on_update(&ticket);
        let mut stream = client
            .watch_ticket(mm::WatchTicketRequest {
                ticket_id: ticket.ticket_id.clone(),
            })
            .await?
            .into_inner();
        let mut last = ticket;
        // Streams ended in a row without an update; each re-watch waits a little longer.
        let mut ended = 0u32;
        loop {
            match last.state() {
                TicketState::Seated => {
                    return last
                        .seat
                        .ok_or_else(|| anyhow::anyhow!("a seated ticket without a seat"));
                }
                TicketState::Waiting | TicketState::Matching => {}
                other => anyhow::bail!(
                    "ticket {} ended {:?}: {}",
                    last.ticket_id,
                    other,
                    last.message
                ),
            }
            match stream.next().await {
                Some(update) => {
                    ended = 0;
                    if let Some(ticket) = update?.ticket {
                        on_update(&ticket);
                        last = ticket;
                    }
                }
                None => {
                    // The stream ended (e.g. a server restart): poll and re-watch, backing
                    // off, and give up when it keeps ending with nothing said.
                    ended += 1;
                    anyhow::ensure!(
                        ended <= super::MAX_TICKET_STREAM_ENDS,
                        "matchmaking ended the ticket stream {ended} times in a row"
                    );
                    tokio::time::sleep(crate::client::follow::backoff(ended)).await;
                    last = client
                        .get_ticket(mm::GetTicketRequest {
                            ticket_id: last.ticket_id.clone(),
                        })
                        .await?
                        .into_inner()
                        .ticket
                        .ok_or_else(|| anyhow::anyhow!("matchmaking returned no ticket"))?;
                    stream = client
                        .watch_ticket(mm::WatchTicketRequest {
                            ticket_id: last.ticket_id.clone(),
                        })
                        .await?
                        .into_inner();
                }
            }
        }
    }
}

/// Ticket streams that may end in a row without an update before [`matchmaking::seat`]
/// gives up (with backoff between them, about half a minute in all).
const MAX_TICKET_STREAM_ENDS: u32 = 10;
