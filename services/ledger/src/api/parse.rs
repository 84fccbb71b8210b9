//! Requests into domain types, checked once at the edge. Each error names the field.

use gamehub_platform::error::{id, required};
use gamehub_proto::common;
use gamehub_proto::ledger as pb;
use gamehub_terms::games;
use gamehub_terms::names::DisplayName;

use crate::domain::audit::{Action, ActionKind, Audit};
use crate::domain::grant::{Grant, MAX_GRANT_SILVER, MAX_REASON_CHARS};
use crate::domain::settle::{GameReport, MAX_POINTS_PER_GAME, MAX_RECORD_BYTES, Seat, Stakes};
use crate::domain::tournament::{
    FeeMove, FeeRequest, MAX_FEE_SILVER, MAX_PRIZES, Prize, PrizesRequest, TournamentId,
};
use crate::domain::{GameType, HistoryKind, MAX_ID_LEN, Outcome, PlayerId, Role};
use crate::error::LedgerError;
use crate::repo::{ActionFilter, Board};

/// The longest `reason` of a settlement.
pub const MAX_GAME_REASON_CHARS: usize = 64;
/// The longest record format name.
pub const MAX_RECORD_FORMAT_CHARS: usize = 32;
/// Default and largest page of history or games.
pub const DEFAULT_PAGE_SIZE: i64 = 50;
/// The largest page of history or games; larger requests get this many.
pub const MAX_PAGE_SIZE: i64 = 200;
/// Default leaderboard rows.
pub const DEFAULT_BOARD_ROWS: i64 = 10;
/// The most leaderboard rows; larger requests get this many.
pub const MAX_BOARD_ROWS: i64 = 100;
/// The most player ids one GetProfiles may ask for.
pub const MAX_PROFILE_IDS: usize = 100;

/// A game type field (unspecified refused).
pub fn game_type(field: &str, value: i32) -> Result<GameType, LedgerError> {
    GameType::from_proto(value).ok_or_else(|| {
        let names = GameType::all().map(|g| g.to_proto().as_str_name());
        LedgerError::invalid(field, format!("must be {}", games::or_list(names)))
    })
}

/// An optional game type filter (unspecified = all).
pub fn game_type_filter(field: &str, value: i32) -> Result<Option<GameType>, LedgerError> {
    if value == common::GameType::Unspecified as i32 {
        Ok(None)
    } else {
        game_type(field, value).map(Some)
    }
}

/// A room's stakes, checked by the rule every service shares ([`Stakes::from_proto`]).
pub fn stakes(field: &str, value: Option<&common::RoomStakes>) -> Result<Stakes, LedgerError> {
    let s = value.ok_or_else(|| LedgerError::invalid(field, "is required"))?;
    Stakes::from_proto(s)
        .map_err(|e| LedgerError::invalid(format!("{field}.{}", e.field), e.problem))
}

fn role(field: &str, value: i32) -> Result<Role, LedgerError> {
    Role::from_proto(value).ok_or_else(|| {
        // `ROLE_BLACK or ROLE_WHITE (Gomoku), …`
        let per_game: Vec<String> = games::GAMES
            .iter()
            .map(|game| format!("{} ({})", game.role_names(), game.name))
            .collect();
        LedgerError::invalid(field, format!("must be {}", per_game.join(", ")))
    })
}

fn outcome(field: &str, value: i32) -> Result<Outcome, LedgerError> {
    match pb::PlayerOutcome::try_from(value) {
        Ok(pb::PlayerOutcome::Win) => Ok(Outcome::Win),
        Ok(pb::PlayerOutcome::Loss) => Ok(Outcome::Loss),
        Ok(pb::PlayerOutcome::Draw) => Ok(Outcome::Draw),
        Ok(pb::PlayerOutcome::Escape) => Ok(Outcome::Escape),
        Ok(pb::PlayerOutcome::Void) => Ok(Outcome::Void),
        _ => Err(LedgerError::invalid(
            field,
            "must be PLAYER_OUTCOME_WIN, _LOSS, _DRAW, _ESCAPE or _VOID",
        )),
    }
}

/// A settlement request, every field checked and the seats checked to make a game.
pub fn settle_request(req: &pb::SettleGameRequest) -> Result<GameReport, LedgerError> {
    let game_id = id("game_id", &req.game_id, MAX_ID_LEN)?.to_owned();
    let game_type = game_type("game_type", req.game_type)?;
    let stakes = stakes("stakes", req.stakes.as_ref())?;
    let most_seats = games::GAMES.iter().map(|g| g.seats).max().unwrap_or(0);
    if req.players.len() > most_seats {
        return Err(LedgerError::invalid(
            "players",
            format!("at most {most_seats} players; got {}", req.players.len()),
        ));
    }
    let mut seats = Vec::with_capacity(req.players.len());
    for (i, p) in req.players.iter().enumerate() {
        let field = |name: &str| format!("players[{i}].{name}");
        let player_id = PlayerId::parse(&field("player_id"), &p.player_id)?;
        if p.points.abs() > MAX_POINTS_PER_GAME {
            return Err(LedgerError::invalid(
                field("points"),
                format!("at most {MAX_POINTS_PER_GAME} either way; got {}", p.points),
            ));
        }
        seats.push(Seat {
            player_id,
            role: role(&field("role"), p.role)?,
            outcome: outcome(&field("outcome"), p.outcome)?,
            points: p.points,
            offered_draw: p.offered_draw,
        });
    }
    let reason = required("reason", &req.reason, MAX_GAME_REASON_CHARS)?.to_owned();
    let table_id = id("table_id", &req.table_id, MAX_ID_LEN)?.to_owned();
    if req.started_at_unix_ms <= 0 {
        return Err(LedgerError::invalid(
            "started_at_unix_ms",
            "is required (Unix ms)",
        ));
    }
    if req.ended_at_unix_ms < req.started_at_unix_ms {
        return Err(LedgerError::invalid(
            "ended_at_unix_ms",
            "must not be before started_at_unix_ms",
        ));
    }
    let record = req
        .record
        .as_ref()
        .ok_or_else(|| LedgerError::invalid("record", "is required"))?;
    let record_format = required("record.format", &record.format, MAX_RECORD_FORMAT_CHARS)?;
    if record.content.len() > MAX_RECORD_BYTES {
        return Err(LedgerError::invalid(
            "record.content",
            format!(
                "is {} bytes; at most {MAX_RECORD_BYTES}",
                record.content.len()
            ),
        ));
    }
    let report = GameReport {
        game_id,
        game_type,
        stakes,
        seats,
        reason,
        table_id,
        started_at_unix_ms: req.started_at_unix_ms,
        ended_at_unix_ms: req.ended_at_unix_ms,
        record_format: record_format.to_owned(),
        record_content: record.content.clone(),
        friends_table: req.friends_table,
    };
    report.check()?;
    Ok(report)
}

/// A grant request.
pub fn grant_request(req: &pb::GrantSilverRequest) -> Result<Grant, LedgerError> {
    let request_id = id("request_id", &req.request_id, MAX_ID_LEN)?.to_owned();
    let player_id = PlayerId::parse("player_id", &req.player_id)?;
    if !(1..=MAX_GRANT_SILVER).contains(&req.amount_silver) {
        return Err(LedgerError::invalid(
            "amount_silver",
            format!("must be 1 to {MAX_GRANT_SILVER}; got {}", req.amount_silver),
        ));
    }
    let reason = required("reason", &req.reason, MAX_REASON_CHARS)?.to_owned();
    Ok(Grant {
        request_id,
        player_id,
        amount_silver: req.amount_silver,
        reason,
    })
}

/// A `HoldEntryFee` (`Hold`) or `RefundEntryFee` (`Refund`) request's fields.
fn fee_request(
    direction: FeeMove,
    request_id: &str,
    tournament_id: &str,
    player_id: &str,
    amount_silver: i64,
    reason: &str,
) -> Result<FeeRequest, LedgerError> {
    let request_id = id("request_id", request_id, MAX_ID_LEN)?.to_owned();
    let tournament_id = TournamentId::parse("tournament_id", tournament_id)?;
    let player_id = PlayerId::parse("player_id", player_id)?;
    if !(1..=MAX_FEE_SILVER).contains(&amount_silver) {
        return Err(LedgerError::invalid(
            "amount_silver",
            format!("must be 1 to {MAX_FEE_SILVER}; got {amount_silver}"),
        ));
    }
    let reason = required("reason", reason, MAX_REASON_CHARS)?.to_owned();
    Ok(FeeRequest {
        direction,
        request_id,
        tournament_id,
        player_id,
        amount_silver,
        reason,
    })
}

/// A `HoldEntryFee` request.
pub fn hold_request(req: &pb::HoldEntryFeeRequest) -> Result<FeeRequest, LedgerError> {
    fee_request(
        FeeMove::Hold,
        &req.request_id,
        &req.tournament_id,
        &req.player_id,
        req.amount_silver,
        &req.reason,
    )
}

/// A `RefundEntryFee` request.
pub fn refund_request(req: &pb::RefundEntryFeeRequest) -> Result<FeeRequest, LedgerError> {
    fee_request(
        FeeMove::Refund,
        &req.request_id,
        &req.tournament_id,
        &req.player_id,
        req.amount_silver,
        &req.reason,
    )
}

/// A `PayPrizes` request: at most [`MAX_PRIZES`] prizes, each player once, each amount
/// 1 or more (`prizes[i].…` names a bad one), their sum fitting in 64 bits. Whether they
/// sum to the pool is the repository's check, under the pool's lock.
pub fn prizes_request(req: &pb::PayPrizesRequest) -> Result<PrizesRequest, LedgerError> {
    let request_id = id("request_id", &req.request_id, MAX_ID_LEN)?.to_owned();
    let tournament_id = TournamentId::parse("tournament_id", &req.tournament_id)?;
    if req.prizes.len() > MAX_PRIZES {
        return Err(LedgerError::invalid(
            "prizes",
            format!("at most {MAX_PRIZES} prizes; got {}", req.prizes.len()),
        ));
    }
    let mut prizes: Vec<Prize> = Vec::with_capacity(req.prizes.len());
    let mut total: i64 = 0;
    for (i, p) in req.prizes.iter().enumerate() {
        let player_id = PlayerId::parse(&format!("prizes[{i}].player_id"), &p.player_id)?;
        if let Some(first) = prizes.iter().position(|q| q.player_id == player_id) {
            return Err(LedgerError::invalid(
                format!("prizes[{i}].player_id"),
                format!(
                    "{player_id} already has prizes[{first}]; each player gets at most one prize"
                ),
            ));
        }
        if p.amount_silver < 1 {
            return Err(LedgerError::invalid(
                format!("prizes[{i}].amount_silver"),
                format!(
                    "must be 1 or more (leave a place without silver out); got {}",
                    p.amount_silver
                ),
            ));
        }
        total = total.checked_add(p.amount_silver).ok_or_else(|| {
            LedgerError::invalid(
                format!("prizes[{i}].amount_silver"),
                "the prizes add up to more silver than a pool can hold",
            )
        })?;
        prizes.push(Prize {
            player_id,
            amount_silver: p.amount_silver,
        });
    }
    let reason = required("reason", &req.reason, MAX_REASON_CHARS)?.to_owned();
    Ok(PrizesRequest {
        request_id,
        tournament_id,
        prizes,
        reason,
    })
}

/// A history kind filter (unspecified = all).
pub fn history_kind(value: i32) -> Result<Option<HistoryKind>, LedgerError> {
    match pb::HistoryKind::try_from(value) {
        Ok(pb::HistoryKind::Unspecified) => Ok(None),
        Ok(pb::HistoryKind::Silver) => Ok(Some(HistoryKind::Silver)),
        Ok(pb::HistoryKind::Points) => Ok(Some(HistoryKind::Points)),
        Ok(pb::HistoryKind::Title) => Ok(Some(HistoryKind::Title)),
        Ok(pb::HistoryKind::Rating) => Ok(Some(HistoryKind::Rating)),
        Err(_) => Err(LedgerError::invalid(
            "kind",
            "must be a HistoryKind (or unspecified for every kind)",
        )),
    }
}

/// A page size: 0 gives the default, more than the maximum gives the maximum.
pub fn page_size(field: &str, value: i32, default: i64, max: i64) -> Result<i64, LedgerError> {
    match i64::from(value) {
        0 => Ok(default),
        n if n < 0 => Err(LedgerError::invalid(
            field,
            format!("must be 1 to {max}, or 0 for {default}"),
        )),
        n => Ok(n.min(max)),
    }
}

/// A leaderboard: a game's points (its registry entry's board) or the Gomoku rating.
pub fn board(value: i32) -> Result<Board, LedgerError> {
    let board = pb::Board::try_from(value).ok();
    if board == Some(pb::Board::GomokuRating) {
        return Ok(Board::GomokuRating);
    }
    if let Some(game_type) = GameType::all().find(|g| Some(g.game().points_board) == board) {
        return Ok(Board::Points(game_type));
    }
    let names = GameType::all()
        .map(|g| g.game().points_board)
        .chain([pb::Board::GomokuRating])
        .map(|b| b.as_str_name());
    Err(LedgerError::invalid(
        "board",
        format!("must be {}", games::or_list(names)),
    ))
}

/// A professional dan: 0 (clear) to 9.
pub fn professional_dan(value: i32) -> Result<u8, LedgerError> {
    u8::try_from(value)
        .ok()
        .filter(|dan| *dan <= 9)
        .ok_or_else(|| {
            LedgerError::invalid(
                "professional_dan",
                format!("must be 1 to 9, or 0 to clear; got {value}"),
            )
        })
}

/// A display name to set: `None` for an empty one (which clears the name), else checked
/// and normalised by the one rule ([`DisplayName::parse`]).
pub fn display_name(field: &str, value: &str) -> Result<Option<DisplayName>, LedgerError> {
    if value.is_empty() {
        return Ok(None);
    }
    DisplayName::parse(value)
        .map(Some)
        .map_err(|problem| LedgerError::invalid(field, problem.to_string()))
}

/// The players whose profiles are asked for: 1 to [`MAX_PROFILE_IDS`] ids, each checked
/// (`player_ids[i]` names a bad one), duplicates dropped, in the order asked.
pub fn profile_ids(field: &str, values: &[String]) -> Result<Vec<PlayerId>, LedgerError> {
    if values.is_empty() {
        return Err(LedgerError::invalid(
            field,
            format!("is required: 1 to {MAX_PROFILE_IDS} player ids"),
        ));
    }
    if values.len() > MAX_PROFILE_IDS {
        return Err(LedgerError::invalid(
            field,
            format!(
                "at most {MAX_PROFILE_IDS} player ids, this request has {}",
                values.len()
            ),
        ));
    }
    let mut ids: Vec<PlayerId> = Vec::with_capacity(values.len());
    for (i, value) in values.iter().enumerate() {
        let id = PlayerId::parse(&format!("{field}[{i}]"), value)?;
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    Ok(ids)
}

/// An operator's reason for an action: required, at most [`MAX_REASON_CHARS`]
/// characters, trimmed.
pub fn reason(field: &str, value: &str) -> Result<String, LedgerError> {
    Ok(required(field, value, MAX_REASON_CHARS)?.to_owned())
}

/// A reason that may be empty (a player's own change), checked against the same bound.
pub fn optional_reason(field: &str, value: &str) -> Result<Option<String>, LedgerError> {
    if value.trim().is_empty() {
        Ok(None)
    } else {
        reason(field, value).map(Some)
    }
}

/// An operator's request id, or a fresh one when none was given (the action is then
/// not idempotent across retries, and the audit row says which id it got).
pub fn request_id_or_fresh(field: &str, value: &str) -> Result<String, LedgerError> {
    if value.trim().is_empty() {
        Ok(uuid::Uuid::now_v7().to_string())
    } else {
        Ok(id(field, value, MAX_ID_LEN)?.to_owned())
    }
}

/// A RecordOperatorAction request: who asked, why, and the close or redelivery.
pub fn record_request(
    req: &pb::RecordOperatorActionRequest,
) -> Result<(Audit, Action), LedgerError> {
    let request_id = id("request_id", &req.request_id, MAX_ID_LEN)?.to_owned();
    let operator = id("operator", &req.operator, MAX_ID_LEN)?.to_owned();
    let reason = reason("reason", &req.reason)?;
    let optional_id = |field: &str, value: &str| -> Result<Option<String>, LedgerError> {
        if value.trim().is_empty() {
            Ok(None)
        } else {
            Ok(Some(id(field, value, MAX_ID_LEN)?.to_owned()))
        }
    };
    let table_id = optional_id("table_id", &req.table_id)?;
    let game_id = optional_id("game_id", &req.game_id)?;
    let action = match ActionKind::from_proto(req.kind) {
        Some(ActionKind::CloseTable) => {
            if game_id.is_some() || req.all_dead_letters {
                return Err(LedgerError::invalid(
                    "game_id",
                    "must be empty (and all_dead_letters false) for a close",
                ));
            }
            Action::CloseTable {
                table_id: table_id
                    .ok_or_else(|| LedgerError::invalid("table_id", "is required for a close"))?,
            }
        }
        Some(ActionKind::Redeliver) => {
            if table_id.is_some() {
                return Err(LedgerError::invalid(
                    "table_id",
                    "must be empty for a redelivery",
                ));
            }
            match (game_id, req.all_dead_letters) {
                (Some(_), true) => {
                    return Err(LedgerError::invalid(
                        "game_id",
                        "give either game_id or all_dead_letters, not both",
                    ));
                }
                (None, false) => {
                    return Err(LedgerError::invalid(
                        "game_id",
                        "is required unless all_dead_letters is set",
                    ));
                }
                (game_id, _) => Action::Redeliver { game_id },
            }
        }
        Some(kind) => {
            return Err(LedgerError::invalid(
                "kind",
                format!(
                    "{} is recorded by the ledger itself with the change; a game service records OPERATOR_ACTION_KIND_CLOSE_TABLE or OPERATOR_ACTION_KIND_REDELIVER",
                    kind.to_proto().as_str_name()
                ),
            ));
        }
        None => {
            return Err(LedgerError::invalid(
                "kind",
                "must be OPERATOR_ACTION_KIND_CLOSE_TABLE or OPERATOR_ACTION_KIND_REDELIVER",
            ));
        }
    };
    Ok((
        Audit {
            request_id,
            operator,
            reason,
        },
        action,
    ))
}

/// The filters of a ListOperatorActions request.
pub fn action_filter(req: &pb::ListOperatorActionsRequest) -> Result<ActionFilter, LedgerError> {
    let optional_id = |field: &str, value: &str| -> Result<Option<String>, LedgerError> {
        if value.trim().is_empty() {
            Ok(None)
        } else {
            Ok(Some(id(field, value, MAX_ID_LEN)?.to_owned()))
        }
    };
    let kind = match req.kind {
        0 => None,
        value => Some(ActionKind::from_proto(value).ok_or_else(|| {
            LedgerError::invalid(
                "kind",
                "must be an OperatorActionKind (or unspecified for every kind)",
            )
        })?),
    };
    let time =
        |field: &str, ms: i64| -> Result<Option<chrono::DateTime<chrono::Utc>>, LedgerError> {
            match ms {
                0 => Ok(None),
                ms if ms < 0 => Err(LedgerError::invalid(
                    field,
                    "must be Unix ms, or 0 for no bound",
                )),
                ms => chrono::DateTime::from_timestamp_millis(ms)
                    .map(Some)
                    .ok_or_else(|| LedgerError::invalid(field, "is out of range")),
            }
        };
    let since = time("since_unix_ms", req.since_unix_ms)?;
    let until = time("until_unix_ms", req.until_unix_ms)?;
    if let (Some(since), Some(until)) = (since, until)
        && until <= since
    {
        return Err(LedgerError::invalid(
            "until_unix_ms",
            "must be after since_unix_ms",
        ));
    }
    Ok(ActionFilter {
        operator: optional_id("operator", &req.operator)?,
        target: optional_id("target", &req.target)?,
        kind,
        since,
        until,
    })
}
