//! One driver per table: every seat of it through its own player's clients, playing the
//! random players of [`crate::players`] until the game or deal ends.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use gamehub::api::{Clients, request_id};
use gamehub_proto::common::GameType;
use gamehub_proto::doudizhu as ddz;
use gamehub_proto::gomoku as gm;
use gamehub_proto::matchmaking as mm;

use super::Stats;
use crate::players::doudizhu::{Turn, random_turn};
use crate::players::gomoku::{self as gomoku_player, RandomGomoku};

/// Enqueues and follows the ticket (server push, as a front-end does) until seated.
pub(super) async fn queue(clients: &Clients, room: &str) -> Result<mm::Seat, tonic::Status> {
    let mut matchmaking = clients.matchmaking.clone();
    gamehub::drive::matchmaking::seat(&mut matchmaking, room, "", |_| {})
        .await
        .map_err(|e| match e.downcast::<tonic::Status>() {
            Ok(status) => status,
            Err(other) => tonic::Status::failed_precondition(other.to_string()),
        })
}

pub(super) async fn leave(
    clients: &Clients,
    game: GameType,
    table_id: &str,
) -> Result<(), tonic::Status> {
    match game {
        GameType::Gomoku => {
            clients
                .gomoku
                .clone()
                .leave(gm::LeaveRequest {
                    table_id: table_id.to_owned(),
                    request_id: request_id(),
                })
                .await?;
        }
        _ => {
            clients
                .doudizhu
                .clone()
                .leave(ddz::LeaveRequest {
                    table_id: table_id.to_owned(),
                    request_id: request_id(),
                })
                .await?;
        }
    }
    Ok(())
}

/// Plays one Gomoku game: each stone next to the others ([`RandomGomoku`], reach 1);
/// after a refusal (the clock ran out, a race) the table is read again.
pub(super) async fn gomoku(
    clients: &[Clients],
    table_id: &str,
    stats: &Stats,
    stop: &AtomicBool,
) -> Result<(), tonic::Status> {
    let get = || gm::GetTableRequest {
        table_id: table_id.to_owned(),
    };
    let mut table = clients[0]
        .gomoku
        .clone()
        .get_table(get())
        .await?
        .into_inner()
        .table
        .unwrap_or_default();
    let mut player = RandomGomoku::new(table.rule_set(), 1, rand::random())
        .ok_or_else(|| tonic::Status::failed_precondition("the table has no rule set"))?;
    for _ in 0..400 {
        if stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        let game = table.game.clone().unwrap_or_default();
        if game.phase() == gm::Phase::Over || table.status() != gm::TableStatus::Playing {
            stats.games.fetch_add(
                u64::from(stats.measuring.load(Ordering::Relaxed)),
                Ordering::Relaxed,
            );
            return Ok(());
        }
        let Some(turn) = player.next(&game) else {
            return Ok(());
        };
        let seat = usize::from(turn.seat.number()).min(clients.len() - 1);
        let mut client = clients[seat].gomoku.clone();
        let started = Instant::now();
        match gomoku_player::send(&mut client, table_id, request_id(), turn).await {
            Ok(next) => {
                stats.record_move(started.elapsed());
                player.accepted(turn);
                table = next.unwrap_or_default();
            }
            Err(status) if status.code() == tonic::Code::FailedPrecondition => {
                table = client
                    .get_table(get())
                    .await?
                    .into_inner()
                    .table
                    .unwrap_or_default();
            }
            Err(status) => return Err(status),
        }
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
    let get = || ddz::GetTableRequest {
        table_id: table_id.to_owned(),
        as_spectator: false,
    };
    let mut table = clients[0]
        .doudizhu
        .clone()
        .get_table(get())
        .await?
        .into_inner()
        .table
        .unwrap_or_default();
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
            table = clients[0]
                .doudizhu
                .clone()
                .get_table(get())
                .await?
                .into_inner()
                .table
                .unwrap_or_default();
            continue;
        }
        let mut client = clients[usize::try_from(table.to_act)
            .unwrap_or(0)
            .min(clients.len() - 1)]
        .doudizhu
        .clone();
        let started = Instant::now();
        let response = if table.phase() == ddz::Phase::Bidding {
            client
                .bid(ddz::BidRequest {
                    table_id: table_id.to_owned(),
                    request_id: request_id(),
                    points: 3,
                })
                .await
                .map(|r| r.into_inner().table)
        } else {
            let hint = client
                .hint(ddz::HintRequest {
                    table_id: table_id.to_owned(),
                })
                .await?
                .into_inner();
            let turn = random_turn(&hint.plays, hint.can_pass, 0.5, &mut rand::rng());
            match turn {
                Turn::Pass => client
                    .pass(ddz::PassRequest {
                        table_id: table_id.to_owned(),
                        request_id: request_id(),
                    })
                    .await
                    .map(|r| r.into_inner().table),
                Turn::Play(play) => client
                    .play(ddz::PlayRequest {
                        table_id: table_id.to_owned(),
                        request_id: request_id(),
                        ranks: play.ranks.clone(),
                        cards: Vec::new(),
                    })
                    .await
                    .map(|r| r.into_inner().table),
                // Nothing to lead with: the view is stale.
                Turn::Stuck => Err(tonic::Status::failed_precondition("no play to lead")),
            }
        };
        match response {
            Ok(next) => {
                stats.record_move(started.elapsed());
                table = next.unwrap_or_default();
            }
            Err(status) if status.code() == tonic::Code::FailedPrecondition => {
                // The clock played first (or a race): read the table again.
                table = client
                    .get_table(get())
                    .await?
                    .into_inner()
                    .table
                    .unwrap_or_default();
            }
            Err(status) => return Err(status),
        }
    }
    Ok(())
}
