//! Settlement with the ledger: the `SettleGameRequest` of the deal a step ended (written
//! to the settlement outbox in that very step, which the platform's settler delivers to
//! the ledger), and the ledger's acknowledgement read back into the table's words
//! ([`seats_settled`], which [`crate::table::Table::settled`] keeps and announces as a
//! public `deal_settled` event, the silver in the view).

use doudizhu_rules::{Outcome, Seat};
use gamehub_platform::tables::OutboxEntry;
use gamehub_proto::common::GameType;
use gamehub_proto::ledger::{
    GameRecord, PlayerOutcome, PlayerResult, Role, SettleGameRequest, SettleGameResponse,
};

use crate::record::{RECORD_FORMAT, RecordDoc};
use crate::table::{SeatSettled, Step, Table, deal_id};
use crate::view;

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
        friends_table: table.friends_table,
        game_id: deal_id(&table.id, table.deal_number),
        game_type: GameType::Doudizhu as i32,
        stakes: Some(view::stakes(&table.stakes)),
        players,
        reason: reason.to_owned(),
        table_id: table.id.clone(),
        started_at_unix_ms: view::unix_ms(table.deal_started_ms),
        ended_at_unix_ms: view::unix_ms(table.deal_ended_ms.max(table.deal_started_ms)),
        record: Some(GameRecord {
            format: RECORD_FORMAT.to_owned(),
            content: record.to_json(),
        }),
    })
}

/// The outbox entry for the deal `step` ended (at `now_ms`), if it is settled by the
/// ledger; None when the step ended no deal, or a redeal.
pub fn outbox_entry(table: &Table, step: &Step, now_ms: u64) -> Option<OutboxEntry> {
    let number = step.ended?;
    debug_assert_eq!(number, table.deal_number, "a step ends the current deal");
    settle_request(table).map(|request| OutboxEntry::new(&request, now_ms))
}

/// What the ledger's answer did for each of the table's seats (nothing for a seat the
/// answer does not name).
pub fn seats_settled(table: &Table, response: &SettleGameResponse) -> [SeatSettled; 3] {
    Seat::ALL.map(|seat| {
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
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::fixtures::*;

    #[test]
    fn an_escape_settles_with_the_escaper_named_and_the_others_void() {
        let (mut table, step) = open();
        assert!(
            outbox_entry(&table, &step, 1_000).is_none(),
            "nothing ended"
        );
        let (step, _) = table.leave(Seat::ALL[1], 2_000, TIMING).unwrap();
        let entry = outbox_entry(&table, &step, 2_000).expect("the escape settles");
        assert_eq!(
            (entry.game_id.as_str(), entry.created_ms),
            ("dt-1:1", 2_000)
        );
        let request = entry.request().unwrap();
        assert_eq!(request.reason, "escape");
        assert_eq!(request.record.unwrap().format, RECORD_FORMAT);
        let outcomes: Vec<i32> = request.players.iter().map(|p| p.outcome).collect();
        assert_eq!(
            outcomes,
            [
                PlayerOutcome::Void as i32,
                PlayerOutcome::Escape as i32,
                PlayerOutcome::Void as i32
            ]
        );
    }

    #[test]
    fn a_friends_tables_deal_says_so_to_the_ledger() {
        let (mut table, _) = open();
        table.leave(Seat::ALL[0], 2_000, TIMING).unwrap();
        assert!(!settle_request(&table).unwrap().friends_table);
        table.friends_table = true;
        let request = settle_request(&table).unwrap();
        assert!(request.friends_table);
        let record = RecordDoc::from_json(&request.record.unwrap().content).unwrap();
        assert!(record.friends_table);
    }
}
