//! The Dou Dizhu dealer (`gamehub.doudizhu.v1`).

use gamehub_platform::client::ServiceChannel;
use gamehub_proto::doudizhu as pb;
use gamehub_proto::doudizhu::doudizhu_service_client::DoudizhuServiceClient;
use gamehub_terms::games::TimeControl;
use tonic::Status;

use crate::{BoxFuture, GameClient, GameEnd, NewTable, TableInfo, seats_i32, to_i64};

/// The dealer's client.
#[derive(Debug, Clone)]
pub struct Doudizhu(DoudizhuServiceClient<ServiceChannel>);

/// A client of the dealer on `channel`.
pub fn connect(channel: ServiceChannel) -> Box<dyn GameClient> {
    Box::new(Doudizhu(DoudizhuServiceClient::new(channel)))
}

impl GameClient for Doudizhu {
    fn open_table<'a>(&'a self, table: NewTable<'a>) -> BoxFuture<'a, Result<String, Status>> {
        Box::pin(async move {
            let turn_time_ms = match table.time_control {
                TimeControl::PerTurn { turn_time_ms } => to_i64(turn_time_ms),
                // Not Dou Dizhu's clock (a rooms file cannot make one): refused here, since
                // the dealer would read 0 as its default.
                TimeControl::PerMoveAndTotal { .. } => {
                    return Err(Status::invalid_argument(
                        "time_control: a Dou Dizhu table needs a per-turn clock",
                    ));
                }
            };
            let request = pb::OpenTableRequest {
                request_id: table.request_id.to_owned(),
                stakes: Some(table.stakes),
                turn_time_ms,
                player_ids: table.players.to_vec(),
                test_seeds: Vec::new(),
                profiles: table.profiles.to_vec(),
                bot_seats: seats_i32(table.bot_seats),
                friends_table: table.friends_table,
                rule_set: table.rule_set.to_owned(),
            };
            let mut client = self.0.clone();
            Ok(client.open_table(request).await?.into_inner().table_id)
        })
    }

    fn table<'a>(&'a self, table_id: &'a str) -> BoxFuture<'a, Result<TableInfo, Status>> {
        Box::pin(async move {
            let request = pb::GetTableRequest {
                table_id: table_id.to_owned(),
                as_spectator: true,
            };
            let mut client = self.0.clone();
            let table = client
                .get_table(request)
                .await?
                .into_inner()
                .table
                .ok_or_else(|| Status::internal("GetTable answered without a table"))?;
            Ok(info(&table))
        })
    }

    fn leave_for<'a>(
        &'a self,
        table_id: &'a str,
        player_id: &'a str,
        request_id: &'a str,
    ) -> BoxFuture<'a, Result<(), Status>> {
        Box::pin(async move {
            let request = pb::LeaveRequest {
                table_id: table_id.to_owned(),
                request_id: request_id.to_owned(),
                player_id: player_id.to_owned(),
            };
            let mut client = self.0.clone();
            client.leave(request).await?;
            Ok(())
        })
    }
}

/// The table as the shared services need it.
fn info(table: &pb::Table) -> TableInfo {
    let status = table.status();
    // A deal about to be dealt counts as going on: every seat asked for it.
    let in_progress = !matches!(
        status,
        pb::TableStatus::BetweenDeals | pb::TableStatus::Closed
    );
    TableInfo {
        room_id: table
            .stakes
            .as_ref()
            .map(|s| s.room_id.clone())
            .unwrap_or_default(),
        open: status != pb::TableStatus::Closed,
        in_progress,
        // Leaving a deal is an escape; between deals it is not.
        leaving_escapes: in_progress,
        players: table.seats.iter().map(|s| s.player_id.clone()).collect(),
        left: table
            .seats
            .iter()
            .filter(|s| s.left)
            .map(|s| s.player_id.clone())
            .collect(),
        first_game: first_deal(table, status),
    }
}

/// The end of the table's deal, once one was played out (a redeal is dealt again at the
/// same table and waited for).
fn first_deal(table: &pb::Table, status: pb::TableStatus) -> Option<GameEnd> {
    let over = matches!(
        status,
        pb::TableStatus::BetweenDeals | pb::TableStatus::Closed
    );
    let result = table
        .result
        .as_ref()
        .filter(|r| r.outcome() != pb::Outcome::Redeal);
    match result {
        Some(result) if over => {
            let seats = 0..u32::try_from(table.seats.len()).unwrap_or(0);
            let landlord = u32::try_from(table.landlord).ok();
            let winners = match result.outcome() {
                pb::Outcome::LandlordWon => landlord.into_iter().collect(),
                pb::Outcome::FarmersWon => seats.filter(|&s| Some(s) != landlord).collect(),
                _ => Vec::new(),
            };
            Some(GameEnd::Played {
                points: result.points.clone(),
                winners,
            })
        }
        _ if status == pb::TableStatus::Closed => Some(GameEnd::Voided),
        _ => None,
    }
}
