//! Live tables, either game: `table` and `close-table`.

use gamehub_drive::api::Clients;
use gamehub_proto::doudizhu as ddz;
use gamehub_proto::gomoku as gm;
use gamehub_proto::operator as op;

use crate::text::{age, enum_name, now_ms, when};
use crate::{Desks, status};

/// `gamehub admin table`: the table as the server holds it, at the Gomoku referee or
/// else at the Dou Dizhu dealer (GomokuService.GetTable, DoudizhuService.GetTable).
pub async fn show(clients: &mut Clients, table: &str) -> anyhow::Result<()> {
    let gomoku = clients
        .gomoku
        .get_table(gm::GetTableRequest {
            table_id: table.to_owned(),
        })
        .await;
    let lines = match gomoku {
        Ok(view) => gomoku_table_lines(&view.into_inner().table.unwrap_or_default()),
        Err(e) if e.code() == tonic::Code::NotFound => {
            let view = clients
                .doudizhu
                .get_table(ddz::GetTableRequest {
                    table_id: table.to_owned(),
                    as_spectator: true,
                })
                .await
                .map_err(|e| {
                    if e.code() == tonic::Code::NotFound {
                        anyhow::anyhow!(
                            "no table {table} at the Gomoku referee nor at the Dou Dizhu dealer"
                        )
                    } else {
                        status(e)
                    }
                })?
                .into_inner();
            doudizhu_table_lines(&view.table.unwrap_or_default())
        }
        Err(e) => return Err(status(e)),
    };
    for line in lines {
        println!("{line}");
    }
    Ok(())
}

/// `gamehub admin close-table`: ends the table now at the service holding it
/// (TableOperatorService.CloseTable), voiding a game in progress, under `request_id` or
/// a fresh one (only the service holding the table records it).
pub async fn close(
    desks: Desks,
    table: &str,
    reason: &str,
    request_id: Option<String>,
) -> anyhow::Result<()> {
    let id = request_id.unwrap_or_else(gamehub_drive::api::request_id);
    let mut closed = None;
    for (game, mut desk) in desks {
        match desk
            .close_table(op::CloseTableRequest {
                table_id: table.to_owned(),
                reason: reason.to_owned(),
                request_id: id.clone(),
            })
            .await
        {
            Ok(answer) => {
                closed = Some((game, answer.into_inner()));
                break;
            }
            // A table lives at one service: the other answers NOT_FOUND.
            Err(e) if e.code() == tonic::Code::NotFound => {}
            Err(e) => return Err(status(e)),
        }
    }
    let Some((game, closed)) = closed else {
        anyhow::bail!("no table {table} at the Gomoku referee nor at the Dou Dizhu dealer");
    };
    if closed.already_closed {
        println!(
            "{game} table {table} was already closed: {}",
            closed.closed_reason
        );
    } else {
        println!(
            "{game} table {table} closed: {} (request id {id})",
            closed.closed_reason
        );
        if closed.voided_game_id.is_empty() {
            println!("no game was in progress");
        } else {
            println!(
                "game {} voided: nothing sent to the ledger",
                closed.voided_game_id
            );
        }
    }
    Ok(())
}

/// A Gomoku table as an operator reads it.
pub fn gomoku_table_lines(table: &gm::Table) -> Vec<String> {
    let now = table.server_time_unix_ms;
    let mut out = vec![format!(
        "gomoku table {}  room {}  {}  last event {}",
        table.table_id,
        table.stakes.as_ref().map_or("", |s| s.room_id.as_str()),
        enum_name(table.status, gm::TableStatus::as_str_name),
        table.last_event_id
    )];
    if !table.closed_reason.is_empty() {
        out.push(format!("closed: {}", table.closed_reason));
    }
    let game = table.game.clone().unwrap_or_default();
    for p in &table.players {
        let clock = game.clocks.iter().find(|c| c.seat == p.seat);
        out.push(format!(
            "seat {} {}  {}{}{}{}",
            p.seat,
            p.player_id,
            enum_name(p.color, gm::Color::as_str_name),
            clock.map_or(String::new(), |c| format!(
                "  clock {}.{:03}s{}",
                c.remaining_ms / 1000,
                c.remaining_ms % 1000,
                if c.running { " running" } else { "" }
            )),
            if p.wants_next_game {
                "  wants next game"
            } else {
                ""
            },
            if p.left { "  left" } else { "" },
        ));
    }
    out.push(format!(
        "game {} ({})  {}  {} stones  to move: {}{}",
        game.number,
        game.game_id,
        enum_name(game.phase, gm::Phase::as_str_name),
        game.stones.len(),
        game.to_act_seat
            .map_or("nobody".to_owned(), |s| format!("seat {s}")),
        if game.turn_deadline_unix_ms > 0 {
            format!(
                "  turn deadline {} ({})",
                when(game.turn_deadline_unix_ms),
                age(now, game.turn_deadline_unix_ms)
            )
        } else {
            String::new()
        }
    ));
    if let Some(seat) = game.draw_offered_by_seat {
        out.push(format!("draw offered by seat {seat}"));
    }
    if table.closes_at_unix_ms > 0 {
        out.push(format!(
            "closes {} ({}) unless both ask for the next game",
            when(table.closes_at_unix_ms),
            age(now, table.closes_at_unix_ms)
        ));
    }
    out.push(gamehub_render::gomoku_board(&game));
    out
}

/// A Dou Dizhu table as an operator reads it (the spectator's view: no hands).
pub fn doudizhu_table_lines(table: &ddz::Table) -> Vec<String> {
    let now = now_ms();
    let mut out = vec![format!(
        "doudizhu table {}  room {}  {}{}  last event {}",
        table.table_id,
        table.stakes.as_ref().map_or("", |s| s.room_id.as_str()),
        enum_name(table.status, ddz::TableStatus::as_str_name),
        if table.close_reason == 0 {
            String::new()
        } else {
            format!(
                " ({})",
                enum_name(table.close_reason, ddz::CloseReason::as_str_name)
            )
        },
        table.last_event_id
    )];
    for s in &table.seats {
        out.push(format!(
            "seat {} {}  {} cards{}{}{}",
            s.seat,
            s.player_id,
            s.cards_left,
            if s.landlord { "  landlord" } else { "" },
            if s.auto_play { "  auto-play" } else { "" },
            if s.ready { "  ready" } else { "" },
        ));
    }
    out.push(format!(
        "deal {} ({})  {}  multiplier ×{}  to act: seat {}{}",
        table.deal_number,
        table.deal_id,
        enum_name(table.phase, ddz::Phase::as_str_name),
        table.multiplier,
        table.to_act,
        if table.turn_deadline_unix_ms > 0 {
            format!(
                "  turn deadline {} ({})",
                when(table.turn_deadline_unix_ms),
                age(now, table.turn_deadline_unix_ms)
            )
        } else {
            String::new()
        }
    ));
    if table.next_deal_deadline_unix_ms > 0 {
        out.push(format!(
            "next deal deadline {} ({})",
            when(table.next_deal_deadline_unix_ms),
            age(now, table.next_deal_deadline_unix_ms)
        ));
    }
    out
}
