//! From "I want to play in this room" to a seat, as a front-end does it.

use futures::StreamExt;
use gamehub_platform::client::ServiceChannel;
use gamehub_proto::matchmaking::matchmaking_service_client::MatchmakingServiceClient;
use gamehub_proto::matchmaking::{self as mm, TicketState};

use crate::api::request_id;
use crate::{MAX_TICKET_STREAM_ENDS, backoff, retry_call};

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
    let ticket = retry_call!(client, enqueue, enqueue)
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
                    ended <= MAX_TICKET_STREAM_ENDS,
                    "matchmaking ended the ticket stream {ended} times in a row"
                );
                tokio::time::sleep(backoff(ended)).await;
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
