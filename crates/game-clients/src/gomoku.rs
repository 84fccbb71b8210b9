//! The Gomoku referee (`gamehub.gomoku.v1`).

use gamehub_platform::client::ServiceChannel;
use gamehub_proto::gomoku as pb;
use gamehub_proto::gomoku::gomoku_service_client::GomokuServiceClient;
use gamehub_terms::games::TimeControl;
use tonic::Status;

use crate::{BoxFuture, GameClient, GameEnd, NewTable, TableInfo, seats_i32, to_i64};

/// The referee's client.
#[derive(Debug, Clone)]
pub struct Gomoku(GomokuServiceClient<ServiceChannel>);

/// A client of the referee on `channel`.
pub fn connect(channel: ServiceChannel) -> Box<dyn GameClient> {
    Box::new(Gomoku(GomokuServiceClient::new(channel)))
}

impl GameClient for Gomoku {
    fn open_table<'a>(&'a self, table: NewTable<'a>) -> BoxFuture<'a, Result<String, Status>> {
        Box::pin(async move {
            let (per_move_ms, total_ms) = match table.time_control {
                TimeControl::PerMoveAndTotal {
                    move_time_ms,
                    total_time_ms,
                } => (to_i64(move_time_ms), to_i64(total_time_ms)),
                // Not Gomoku's clock (a rooms file cannot make one): refused here, since
                // the referee would read 0 as "no limit".
                TimeControl::PerTurn { .. } => {
                    return Err(Status::invalid_argument(
                        "time_control: a Gomoku table needs a per-move and total clock",
                    ));
                }
            };
            // RULE_SET_UNSPECIFIED, which the referee refuses, for a name that is not
            // Gomoku's (a rooms file cannot make one).
            let rule_set = gomoku_rules::RuleSet::parse(table.rule_set).map_or(
                pb::RuleSet::Unspecified,
                gamehub_terms::rule_sets::gomoku_to_proto,
            );
            let request = pb::OpenTableRequest {
                request_id: table.request_id.to_owned(),
                stakes: Some(table.stakes),
                rule_set: rule_set as i32,
                time_control: Some(pb::TimeControl {
                    per_move_ms,
                    total_ms,
                }),
                player_ids: table.players.to_vec(),
                // Seats are already in random order: seat 0 starts with black.
                first_black_seat: 0,
                designated_opening: table.designated_opening.to_owned(),
                paired_games: table.paired_games,
                profiles: table.profiles.to_vec(),
                bot_seats: seats_i32(table.bot_seats),
                friends_table: table.friends_table,
            };
            let mut client = self.0.clone();
            Ok(client.open_table(request).await?.into_inner().table_id)
        })
    }

    fn table<'a>(&'a self, table_id: &'a str) -> BoxFuture<'a, Result<TableInfo, Status>> {
        Box::pin(async move {
            let request = pb::GetTableRequest {
                table_id: table_id.to_owned(),
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
    TableInfo {
        room_id: table.room_id.clone(),
        open: status != pb::TableStatus::Closed,
        in_progress: status == pb::TableStatus::Playing,
        leaving_escapes: table.leaving_escapes,
        players: table.players.iter().map(|p| p.player_id.clone()).collect(),
        left: table
            .players
            .iter()
            .filter(|p| p.left)
            .map(|p| p.player_id.clone())
            .collect(),
        first_game: first_game(table, status),
    }
}

/// The first game's end, from the finished games the table keeps.
fn first_game(table: &pb::Table, status: pb::TableStatus) -> Option<GameEnd> {
    let finished = table.finished_games.iter().find(|g| g.number == 1);
    match finished.and_then(|g| g.result.as_ref()) {
        Some(result) => Some(GameEnd::Played {
            points: result.points.clone(),
            winners: result
                .winner_seat
                .and_then(|seat| u32::try_from(seat).ok())
                .into_iter()
                .collect(),
        }),
        None if status == pb::TableStatus::Closed => Some(GameEnd::Voided),
        None => None,
    }
}
