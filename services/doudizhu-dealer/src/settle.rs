//! Settlement with the ledger: the `SettleGameRequest` a finished deal produces (written
//! to the outbox in the step that ended the deal), and what the dealer does once the
//! ledger acknowledged it (a public `deal_settled` event, the silver in the view).

use std::sync::Arc;

use doudizhu_rules::{Outcome, Seat};
use gamehub_platform::ApiError;
use gamehub_platform::tables::settler::{Acknowledgement, OnSettled};
use gamehub_platform::tables::{OutboxEntry, TableStore};
use gamehub_proto::common::GameType;
use gamehub_proto::ledger::{GameRecord, PlayerOutcome, PlayerResult, Role, SettleGameRequest};

use crate::convert;
use crate::record::{RECORD_FORMAT, RecordDoc};
use crate::table::{SeatSettled, Table, deal_id};

/// The ledger request for the table's finished deal; `None` while it goes on and for a
/// redeal (nobody scores).
pub fn settle_request(table: &Table) -> Option<SettleGameRequest> {
    let settlement = *table.deal.settlement()?;
    let landlord = table.deal.landlord();
    let reason = match settlement.outcome {
        Outcome::Redeal => return None,
        Outcome::LandlordWon if settlement.spring => "landlord_won spring",
        Outcome::LandlordWon => "landlord_won",
        Outcome::FarmersWon { .. } if settlement.anti_spring => "farmers_won anti_spring",
        Outcome::FarmersWon { .. } => "farmers_won",
        Outcome::Escaped { .. } => "escape",
    };
    let players = Seat::ALL
        .into_iter()
        .map(|seat| {
            let is_landlord = landlord == Some(seat);
            let role = match landlord {
                None => Role::Bidder,
                Some(_) if is_landlord => Role::Landlord,
                Some(_) => Role::Farmer,
            };
            let outcome = match settlement.outcome {
                Outcome::LandlordWon if is_landlord => PlayerOutcome::Win,
                Outcome::LandlordWon => PlayerOutcome::Loss,
                Outcome::FarmersWon { .. } if is_landlord => PlayerOutcome::Loss,
                Outcome::FarmersWon { .. } => PlayerOutcome::Win,
                Outcome::Escaped { seat: escaper } if escaper == seat => PlayerOutcome::Escape,
                Outcome::Escaped { .. } | Outcome::Redeal => PlayerOutcome::Void,
            };
            PlayerResult {
                player_id: table.players[seat.index()].clone(),
                role: role as i32,
                outcome: outcome as i32,
                points: settlement.points[seat.index()],
                offered_draw: false,
            }
        })
        .collect();
    let record = RecordDoc::of(table)?;
    Some(SettleGameRequest {
        game_id: deal_id(&table.id, table.deal_number),
        game_type: GameType::Doudizhu as i32,
        stakes: Some(convert::stakes(&table.stakes)),
        players,
        reason: reason.to_owned(),
        table_id: table.id.clone(),
        started_at_unix_ms: convert::unix_ms(table.deal_started_ms),
        ended_at_unix_ms: convert::unix_ms(table.deal_ended_ms.max(table.deal_started_ms)),
        record: Some(GameRecord {
            format: RECORD_FORMAT.to_owned(),
            content: record.to_json(),
        }),
    })
}

/// The outbox entry for the table's finished deal (ended at `now_ms`), if it is settled
/// by the ledger.
pub fn outbox_entry(table: &Table, now_ms: u64) -> Option<OutboxEntry> {
    settle_request(table).map(|request| OutboxEntry::new(&request, now_ms))
}

/// The settler's callback: appends a public `deal_settled` event (once per game, by
/// its request key) and keeps the silver in the table's view of that deal.
pub fn on_settled(store: TableStore) -> OnSettled {
    Arc::new(
        move |entry: OutboxEntry, acknowledgement: Acknowledgement| {
            let store = store.clone();
            Box::pin(async move {
                match record_settled(&store, &entry, &acknowledgement).await {
                    Ok(()) => Ok(()),
                    // Redis is not answering: the settler delivers again, and this
                    // runs again.
                    Err(e) if e.code() == tonic::Code::Unavailable => Err(e),
                    Err(ApiError::NotFound(_)) => {
                        tracing::debug!(game_id = %entry.game_id, "settled deal's table is gone");
                        Ok(())
                    }
                    Err(e) => {
                        tracing::warn!(game_id = %entry.game_id, error = %e, "could not announce a settled deal");
                        Ok(())
                    }
                }
            })
        },
    )
}

async fn record_settled(
    store: &TableStore,
    entry: &OutboxEntry,
    acknowledgement: &Acknowledgement,
) -> Result<(), ApiError> {
    let response = &acknowledgement.response;
    let Some(deal_number) = entry
        .game_id
        .rsplit_once(':')
        .and_then(|(_, n)| n.parse::<u32>().ok())
    else {
        return Ok(());
    };
    let key = format!("settled:{}", entry.game_id);
    let now = store.clock().now_ms();
    store
        .update(
            &entry.table_id,
            Some(&key),
            |table: &mut Table, _version| {
                let by_seat = Seat::ALL.map(|seat| {
                    let player = &table.players[seat.index()];
                    response
                        .players
                        .iter()
                        .find(|p| &p.player_id == player)
                        .map_or(
                            SeatSettled {
                                points_delta: 0,
                                silver_delta: 0,
                            },
                            |p| SeatSettled {
                                points_delta: p.points_delta,
                                silver_delta: p.silver_delta,
                            },
                        )
                });
                let step = table.settled(
                    deal_number,
                    &entry.game_id,
                    by_seat,
                    acknowledgement.adopted,
                    now,
                );
                Ok(crate::service::change(table, step, ()))
            },
        )
        .await?;
    Ok(())
}
