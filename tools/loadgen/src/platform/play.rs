//! One driver per table: every seat of it through its own player's clients, playing the
//! random players of [`crate::players`] until the game or deal ends.
//!
//! The drivers behave like a good client: every call is retried as the API says
//! ([`gamehub_drive::retry`]: RESOURCE_EXHAUSTED after its `retry-after-ms`,
//! UNAVAILABLE, ABORTED; the same request id each time, so a retry of an applied action
//! is a replay), each retry is counted by code, a refusal (FAILED_PRECONDITION: the
//! clock or a race got there first) makes them read the table again, and a table they
//! give up on is left by every seat (Leave retried too), so no player stays seated.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use gamehub_drive::api::{Clients, request_id};
use gamehub_proto::common::GameType;
use gamehub_proto::doudizhu as ddz;
use gamehub_proto::gomoku as gm;
use gamehub_proto::matchmaking as mm;

use gamehub_drive::retry;
use rand::SeedableRng;

use super::Stats;
use crate::players::doudizhu::{Turn, random_turn};
use crate::players::gomoku::{self as gomoku_player, RandomGomoku};

/// Enqueues and follows the ticket (server push, as a front-end does) until seated.
/// Refused because the player still sits at a table or holds a live ticket (a Redis
/// rollback can bring back a seat this driver had already left), it asks matchmaking
/// where the player is (`LocatePlayer`) and leaves that table or cancels that ticket,
/// so the next attempt can queue; the refusal is still returned (and counted).
pub(super) async fn queue(
    clients: &Clients,
    room: &str,
    stats: &Stats,
) -> Result<mm::Seat, tonic::Status> {
    let mut matchmaking = clients.matchmaking.clone();
    let refused = match gamehub_drive::matchmaking::seat(&mut matchmaking, room, "", |_| {})
        .await
        .map_err(|e| match e.downcast::<tonic::Status>() {
            Ok(status) => status,
            Err(other) => tonic::Status::failed_precondition(other.to_string()),
        }) {
        Ok(seat) => return Ok(seat),
        Err(status) if status.code() == tonic::Code::FailedPrecondition => status,
        Err(status) => return Err(status),
    };
    let request = mm::LocatePlayerRequest {
        player_id: String::new(),
    };
    let place = retry(|| {
        let mut client = clients.matchmaking.clone();
        let request = request.clone();
        async move { stats.retried(client.locate_player(request).await) }
    })
    .await?
    .into_inner();
    if let Some(seat) = place.seat {
        leave(clients, seat.game_type(), &seat.table_id, stats).await?;
    } else if let Some(ticket) = place.ticket {
        let request = mm::CancelTicketRequest {
            ticket_id: ticket.ticket_id,
        };
        let cancelled = retry(|| {
            let mut client = clients.matchmaking.clone();
            let request = request.clone();
            async move { stats.retried(client.cancel_ticket(request).await) }
        })
        .await;
        // A ticket that ended meanwhile needs no cancelling.
        gamehub_drive::left(cancelled)?;
    }
    Err(refused)
}

/// Leaves the table, retried like any call (one request id); a table already closed or
/// gone counts as left ([`gamehub_drive::left`]).
pub(super) async fn leave(
    clients: &Clients,
    game: GameType,
    table_id: &str,
    stats: &Stats,
) -> Result<(), tonic::Status> {
    let request_id = request_id();
    let left = match game {
        GameType::Gomoku => {
            let request = gm::LeaveRequest {
                player_id: String::new(),
                table_id: table_id.to_owned(),
                request_id,
            };
            retry(|| {
                let mut client = clients.gomoku.clone();
                let request = request.clone();
                async move { stats.retried(client.leave(request).await) }
            })
            .await
            .map(drop)
        }
        _ => {
            let request = ddz::LeaveRequest {
                player_id: String::new(),
                table_id: table_id.to_owned(),
                request_id,
            };
            retry(|| {
                let mut client = clients.doudizhu.clone();
                let request = request.clone();
                async move { stats.retried(client.leave(request).await) }
            })
            .await
            .map(drop)
        }
    };
    gamehub_drive::left(left)
}

/// The Gomoku table as seat 0 sees it, retried.
async fn gomoku_table(
    clients: &Clients,
    table_id: &str,
    stats: &Stats,
) -> Result<gm::Table, tonic::Status> {
    let request = gm::GetTableRequest {
        table_id: table_id.to_owned(),
    };
    retry(|| {
        let mut client = clients.gomoku.clone();
        let request = request.clone();
        async move { stats.retried(client.get_table(request).await) }
    })
    .await
    .map(|r| r.into_inner().table.unwrap_or_default())
}

/// The Dou Dizhu table as `clients`' seat sees it, retried.
async fn doudizhu_table(
    clients: &Clients,
    table_id: &str,
    stats: &Stats,
) -> Result<ddz::Table, tonic::Status> {
    let request = ddz::GetTableRequest {
        table_id: table_id.to_owned(),
        as_spectator: false,
    };
    retry(|| {
        let mut client = clients.doudizhu.clone();
        let request = request.clone();
        async move { stats.retried(client.get_table(request).await) }
    })
    .await
    .map(|r| r.into_inner().table.unwrap_or_default())
}

/// Plays one Gomoku game, or the two games of a pair at a table whose games come in
/// pairs (leaving between them would be an escape): each stone next to the others
/// ([`RandomGomoku`], reach 1); after a refusal (the clock ran out, a race) the table is
/// read again.
pub(super) async fn gomoku(
    clients: &[Clients],
    table_id: &str,
    stats: &Stats,
    stop: &AtomicBool,
) -> Result<(), tonic::Status> {
    let mut table = gomoku_table(&clients[0], table_id, stats).await?;
    let new_player = |table: &gm::Table| {
        RandomGomoku::new(table.rule_set(), 1, rand::random())
            .ok_or_else(|| tonic::Status::failed_precondition("the table has no rule set"))
    };
    let mut player = new_player(&table)?;
    for _ in 0..900 {
        if stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        let game = table.game.clone().unwrap_or_default();
        if game.phase() == gm::Phase::Over || table.status() != gm::TableStatus::Playing {
            stats.games.fetch_add(
                u64::from(stats.measuring.load(Ordering::Relaxed)),
                Ordering::Relaxed,
            );
            if table.status() == gm::TableStatus::BetweenGames && table.leaving_escapes {
                match next_gomoku_game(clients, table_id, stats).await {
                    Ok(()) => {}
                    // The table closed or a player may not play on: the pair is over.
                    Err(status) if status.code() == tonic::Code::FailedPrecondition => {
                        stats.refused(&status);
                        return Ok(());
                    }
                    Err(status) => return Err(status),
                }
                table = gomoku_table(&clients[0], table_id, stats).await?;
                player = new_player(&table)?;
                continue;
            }
            return Ok(());
        }
        let Some(turn) = player.next(&game) else {
            return Ok(());
        };
        let seat = usize::from(turn.seat.number()).min(clients.len() - 1);
        let started = Instant::now();
        let id = request_id();
        let sent = retry(|| {
            let mut client = clients[seat].gomoku.clone();
            let id = id.clone();
            let held = &table;
            async move {
                stats
                    .retried(gomoku_player::send(&mut client, table_id, id, turn, Some(held)).await)
            }
        })
        .await;
        match sent {
            Ok(next) => {
                stats.record_move(started.elapsed());
                player.accepted(turn);
                table = next.unwrap_or_default();
            }
            Err(status) if status.code() == tonic::Code::FailedPrecondition => {
                stats.refused(&status);
                table = gomoku_table(&clients[seat], table_id, stats).await?;
            }
            Err(status) => return Err(status),
        }
    }
    Ok(())
}

/// Every seat asks for the next game (retried; `settling:` is UNAVAILABLE and retried
/// like any other).
async fn next_gomoku_game(
    clients: &[Clients],
    table_id: &str,
    stats: &Stats,
) -> Result<(), tonic::Status> {
    for seat in clients {
        let request = gm::NextGameRequest {
            table_id: table_id.to_owned(),
            request_id: request_id(),
        };
        retry(|| {
            let mut client = seat.gomoku.clone();
            let request = request.clone();
            async move { stats.retried(client.next_game(request).await) }
        })
        .await?;
    }
    Ok(())
}

/// Plays one Dou Dizhu deal: the first bidder bids 3; each turn plays a random legal
/// play from the server's hint, or passes half the time when it may.
pub(super) async fn doudizhu(
    clients: &[Clients],
    table_id: &str,
    stats: &Stats,
    stop: &AtomicBool,
) -> Result<(), tonic::Status> {
    let mut table = doudizhu_table(&clients[0], table_id, stats).await?;
    for _ in 0..600 {
        if stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        if table.phase() == ddz::Phase::Finished || table.status() == ddz::TableStatus::BetweenDeals
        {
            stats.games.fetch_add(
                u64::from(stats.measuring.load(Ordering::Relaxed)),
                Ordering::Relaxed,
            );
            return Ok(());
        }
        if table.to_act < 0 || table.status() == ddz::TableStatus::NextDealPending {
            tokio::time::sleep(Duration::from_millis(20)).await;
            table = doudizhu_table(&clients[0], table_id, stats).await?;
            continue;
        }
        let seat = usize::try_from(table.to_act)
            .unwrap_or(0)
            .min(clients.len() - 1);
        let client = clients[seat].doudizhu.clone();
        let started = Instant::now();
        // Each call retried with its own request id fixed (a retry is a replay).
        let response = if table.phase() == ddz::Phase::Bidding {
            let request = ddz::BidRequest {
                table_id: table_id.to_owned(),
                request_id: request_id(),
                points: 3,
            };
            retry(|| {
                let mut client = client.clone();
                let request = request.clone();
                async move { stats.retried(client.bid(request).await) }
            })
            .await
            .map(|r| r.into_inner().table)
        } else {
            let request = ddz::HintRequest {
                table_id: table_id.to_owned(),
            };
            let hint = retry(|| {
                let mut client = client.clone();
                let request = request.clone();
                async move { stats.retried(client.hint(request).await) }
            })
            .await;
            match hint.map(tonic::Response::into_inner) {
                Err(status) => Err(status),
                Ok(hint) => match random_turn(
                    &hint.plays,
                    hint.can_pass,
                    0.5,
                    &mut rand::rngs::StdRng::from_os_rng(),
                ) {
                    Turn::Pass => {
                        let request = ddz::PassRequest {
                            table_id: table_id.to_owned(),
                            request_id: request_id(),
                        };
                        retry(|| {
                            let mut client = client.clone();
                            let request = request.clone();
                            async move { stats.retried(client.pass(request).await) }
                        })
                        .await
                        .map(|r| r.into_inner().table)
                    }
                    Turn::Play(play) => {
                        let request = ddz::PlayRequest {
                            table_id: table_id.to_owned(),
                            request_id: request_id(),
                            ranks: play.ranks.clone(),
                            cards: Vec::new(),
                            meant: String::new(),
                        };
                        retry(|| {
                            let mut client = client.clone();
                            let request = request.clone();
                            async move { stats.retried(client.play(request).await) }
                        })
                        .await
                        .map(|r| r.into_inner().table)
                    }
                    // Nothing to lead with: the view is stale.
                    Turn::Stuck => Err(tonic::Status::failed_precondition("no play to lead")),
                },
            }
        };
        match response {
            Ok(next) => {
                stats.record_move(started.elapsed());
                table = next.unwrap_or_default();
            }
            Err(status) if status.code() == tonic::Code::FailedPrecondition => {
                // The clock played first (or a race): read the table again.
                stats.refused(&status);
                table = doudizhu_table(&clients[seat], table_id, stats).await?;
            }
            Err(status) => return Err(status),
        }
    }
    Ok(())
}
