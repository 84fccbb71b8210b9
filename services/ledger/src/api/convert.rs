//! Domain results into API messages.

use chrono_tz::Tz;
use gamehub_proto::common;
use gamehub_proto::ledger as pb;
use prost::Message;

use crate::domain::audit::ActionKind;
use crate::domain::caps::Caps;
use crate::domain::day::CapDay;
use crate::domain::rating::{NEW_PLAYER_RATING, rank_name, rank_of};
use crate::domain::settle::{GameReport, SettlementPlan, Stakes};
use crate::domain::titles::{Title, title_for};
use crate::domain::{GameType, Outcome, Role};
use crate::error::LedgerError;
use crate::repo::{
    AccountRow, ActionRow, Board, BoardRow, FeeMoved, GamePlayerRow, GameRow, HistoryRecord,
    PrizesPaid, ProfileRow, dan,
};

/// A title as the API shows it.
pub fn title(t: &Title) -> common::Title {
    common::Title {
        level: i32::from(t.level),
        name: t.name.to_owned(),
        min_points: t.min_points,
        max_points: t.max_points.unwrap_or(0),
    }
}

/// Today's counters against the caps.
pub fn daily_caps(won: i64, lost: i64, day: &CapDay, caps: &Caps) -> pb::DailyCaps {
    pb::DailyCaps {
        day: day.date.format("%Y-%m-%d").to_string(),
        won_silver: won,
        lost_silver: lost,
        remaining_win_silver: caps.daily_win_silver.saturating_sub(won).max(0),
        remaining_loss_silver: caps.daily_loss_silver.saturating_sub(lost).max(0),
        win_cap_silver: caps.daily_win_silver,
        loss_cap_silver: caps.daily_loss_silver,
        resets_at_unix_ms: day.resets_at.timestamp_millis(),
    }
}

/// A Gomoku rating.
pub fn rating(rating: i64, rated_games: i64, professional_dan: u8) -> pb::Rating {
    pb::Rating {
        rating,
        rank: i32::try_from(rank_of(rating)).unwrap_or(0),
        rank_name: rank_name(rating, professional_dan),
        rated_games,
        professional_dan: i32::from(professional_dan),
    }
}

/// A player's account.
pub fn account(row: &AccountRow, day: &CapDay, caps: &Caps) -> pb::Account {
    let standings = GameType::all()
        .zip(&row.standings)
        .map(|(g, s)| pb::GameStanding {
            game_type: g.to_proto() as i32,
            points: s.points,
            title: Some(title(&title_for(s.points))),
            wins: s.wins,
            losses: s.losses,
            draws: s.draws,
            escapes: s.escapes,
            games: s.games,
        })
        .collect();
    pb::Account {
        name: row.name.clone(),
        player_id: row.player_id.to_string(),
        balance_silver: row.balance_silver,
        today: Some(daily_caps(
            row.won_today_silver,
            row.lost_today_silver,
            day,
            caps,
        )),
        standings,
        gomoku_rating: Some(rating(
            row.gomoku_rating,
            row.rated_games,
            row.professional_dan,
        )),
    }
}

/// The answer to SettleGame (stored, and returned again on a retry).
pub fn settlement(report: &GameReport, plan: &SettlementPlan) -> pb::SettleGameResponse {
    // Ratings are shown for games that have them, moved or not.
    let ratable = report.game_type.game().ratable;
    let players = report
        .seats
        .iter()
        .zip(&plan.seats)
        .map(|(seat, p)| pb::PlayerSettlement {
            // Names are the ledger's records' (shown as they are when read), not the
            // settlement's: the stored answer a retry gets back never goes stale.
            name: String::new(),
            player_id: seat.player_id.to_string(),
            points_delta: seat.points,
            points_after: p.points_after,
            silver_requested: p.silver_requested,
            silver_delta: p.silver_delta,
            clamped_by: p
                .limited_by
                .map(|l| l.as_str().to_owned())
                .unwrap_or_default(),
            balance_silver: p.balance_after,
            title: Some(title(&p.title_after)),
            title_changed: p.title_after.level != p.title_before.level,
            rating_before: if ratable { p.rating_before } else { 0 },
            rating_after: if ratable { p.rating_after } else { 0 },
        })
        .collect();
    pb::SettleGameResponse {
        game_id: report.game_id.clone(),
        players,
        replayed: false,
        house_silver: plan.house_silver,
    }
}

/// An entry fee held, as first answered (and stored for retries).
pub fn entry_fee_held(moved: &FeeMoved) -> pb::HoldEntryFeeResponse {
    pb::HoldEntryFeeResponse {
        transfer_id: moved.transfer_id.to_string(),
        balance_silver: moved.balance_after_silver,
        pool_silver: moved.pool_after_silver,
        replayed: false,
    }
}

/// An entry fee refunded, as first answered (and stored for retries).
pub fn entry_fee_refunded(moved: &FeeMoved) -> pb::RefundEntryFeeResponse {
    pb::RefundEntryFeeResponse {
        transfer_id: moved.transfer_id.to_string(),
        balance_silver: moved.balance_after_silver,
        pool_silver: moved.pool_after_silver,
        replayed: false,
    }
}

/// Prizes paid, in the request's order, as first answered (and stored for retries); no
/// transfer id when nothing moved (an empty pool, no prizes).
pub fn prizes_paid(paid: &PrizesPaid) -> pb::PayPrizesResponse {
    pb::PayPrizesResponse {
        transfer_id: paid
            .transfer_id
            .map(|id| id.to_string())
            .unwrap_or_default(),
        paid: paid
            .paid
            .iter()
            .map(|p| pb::PaidPrize {
                player_id: p.player_id.to_string(),
                amount_silver: p.amount_silver,
                balance_silver: p.balance_after_silver,
            })
            .collect(),
        replayed: false,
    }
}

/// A stored tournament answer, decoded.
pub fn stored_answer<M: Message + Default>(bytes: &[u8], what: &str) -> Result<M, LedgerError> {
    M::decode(bytes).map_err(|e| LedgerError::Corrupt(format!("stored {what} response: {e}")))
}

/// Why a player may not sit down, if it may not: the daily caps first (they hold until
/// midnight whatever the player does), then the balance.
pub fn eligibility(
    row: &AccountRow,
    stakes: &Stakes,
    day: &CapDay,
    caps: &Caps,
    zone: Tz,
) -> pb::CheckEligibilityResponse {
    let resets = day
        .resets_at
        .with_timezone(&zone)
        .format("%Y-%m-%d %H:%M %Z");
    let refusal = if row.lost_today_silver >= caps.daily_loss_silver {
        Some((
            pb::Refusal::DailyLossCap,
            format!(
                "today's losses ({} silver) reached the daily loss cap of {} silver; play again after {resets}",
                row.lost_today_silver, caps.daily_loss_silver
            ),
        ))
    } else if row.won_today_silver >= caps.daily_win_silver {
        Some((
            pb::Refusal::DailyWinCap,
            format!(
                "today's wins ({} silver) reached the daily win cap of {} silver; play again after {resets}",
                row.won_today_silver, caps.daily_win_silver
            ),
        ))
    } else if row.balance_silver < stakes.min_balance_silver {
        Some((
            pb::Refusal::InsufficientBalance,
            format!(
                "balance {} silver is below the room's minimum of {} silver",
                row.balance_silver, stakes.min_balance_silver
            ),
        ))
    } else {
        None
    };
    let (eligible, refusal, message) = match refusal {
        None => (true, pb::Refusal::Unspecified, String::new()),
        Some((refusal, message)) => (false, refusal, message),
    };
    pb::CheckEligibilityResponse {
        eligible,
        refusal: refusal as i32,
        message,
        balance_silver: row.balance_silver,
        today: Some(daily_caps(
            row.won_today_silver,
            row.lost_today_silver,
            day,
            caps,
        )),
    }
}

/// One history row.
pub fn history_entry(row: &HistoryRecord) -> pb::HistoryEntry {
    pb::HistoryEntry {
        id: row.history_id,
        kind: i32::from(row.kind),
        game_type: row.game_type.map_or(0, i32::from),
        game_id: row.game_id.clone().unwrap_or_default(),
        before: row.before_value,
        after: row.after_value,
        reason: row.reason.clone(),
        at_unix_ms: row.at.timestamp_millis(),
    }
}

fn role(code: i16) -> Result<pb::Role, LedgerError> {
    Role::from_code(code)
        .map(Role::to_proto)
        .ok_or_else(|| LedgerError::Corrupt(format!("role {code}")))
}

fn outcome(code: i16) -> Result<pb::PlayerOutcome, LedgerError> {
    Ok(
        match Outcome::from_code(code)
            .ok_or_else(|| LedgerError::Corrupt(format!("outcome {code}")))?
        {
            Outcome::Win => pb::PlayerOutcome::Win,
            Outcome::Loss => pb::PlayerOutcome::Loss,
            Outcome::Draw => pb::PlayerOutcome::Draw,
            Outcome::Escape => pb::PlayerOutcome::Escape,
            Outcome::Void => pb::PlayerOutcome::Void,
        },
    )
}

/// A stored game (its players in seat order) as the API shows it, each player with the
/// name it has now.
pub fn finished_game(
    game: &GameRow,
    players: &[GamePlayerRow],
) -> Result<pb::FinishedGame, LedgerError> {
    let mut response = pb::SettleGameResponse::decode(game.response.as_slice())
        .map_err(|e| LedgerError::Corrupt(format!("game {}: {e}", game.game_id)))?;
    for settled in &mut response.players {
        settled.name = players
            .iter()
            .find(|p| p.player_id == settled.player_id)
            .map(|p| p.name.clone())
            .unwrap_or_default();
    }
    let results = players
        .iter()
        .map(|p| {
            Ok(pb::PlayerResult {
                player_id: p.player_id.clone(),
                role: role(p.role)? as i32,
                outcome: outcome(p.outcome)? as i32,
                points: p.points,
                offered_draw: p.offered_draw,
            })
        })
        .collect::<Result<_, LedgerError>>()?;
    Ok(pb::FinishedGame {
        game_id: game.game_id.clone(),
        game_type: i32::from(game.game_type),
        room_id: game.room_id.clone(),
        table_id: game.table_id.clone(),
        reason: game.reason.clone(),
        players: response.players,
        results,
        started_at_unix_ms: game.started_at_unix_ms,
        ended_at_unix_ms: game.ended_at_unix_ms,
        house_silver: response.house_silver,
        friends_table: game.friends_table,
    })
}

/// A leaderboard row with its label: the title (points boards) or rank name (rating).
pub fn board_row(board: Board, row: &BoardRow) -> pb::LeaderboardRow {
    let label = match board {
        Board::Points(_) => title_for(row.value).name.to_owned(),
        Board::GomokuRating => rank_name(row.value, row.professional_dan),
    };
    pb::LeaderboardRow {
        rank: row.rank,
        player_id: row.player_id.clone(),
        value: row.value,
        label,
        name: row.name.clone(),
    }
}

/// How a player is shown: its name and, in `game_type`, its title and, where the game is
/// rated, its rating. A player the ledger never saw has no name, the first title and a
/// new player's rating.
pub fn profile(row: &ProfileRow, game_type: Option<GameType>) -> common::PlayerProfile {
    let mut profile = common::PlayerProfile {
        name: row.name.clone().unwrap_or_default(),
        ..Default::default()
    };
    if let Some(game_type) = game_type {
        profile.title = title_for(row.points.unwrap_or(0)).name.to_owned();
        if game_type.game().ratable {
            let rating = row.gomoku_rating.unwrap_or(NEW_PLAYER_RATING);
            profile.rating = rating;
            profile.rank_name = rank_name(rating, dan(row.professional_dan.unwrap_or(0)));
        }
    }
    profile
}

/// An audit trail row as the API shows it.
pub fn operator_action(row: &ActionRow) -> Result<pb::OperatorAction, LedgerError> {
    let kind = ActionKind::from_code(row.kind)
        .ok_or_else(|| LedgerError::Corrupt(format!("operator action kind {}", row.kind)))?;
    let detail = |key: &str| row.details.get(key);
    let int = |key: &str| detail(key).and_then(serde_json::Value::as_i64).unwrap_or(0);
    let text = |key: &str| {
        detail(key)
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    Ok(pb::OperatorAction {
        action_id: row.action_id,
        request_id: row.request_id.clone(),
        kind: kind.to_proto() as i32,
        operator: row.operator.clone(),
        recorded_by: row.recorded_by.clone(),
        at_unix_ms: row.at.timestamp_millis(),
        reason: row.reason.clone(),
        player_id: row.player_id.clone().unwrap_or_default(),
        table_id: row.table_id.clone().unwrap_or_default(),
        game_id: row.game_id.clone().unwrap_or_default(),
        amount_silver: int("amount_silver"),
        transfer_id: text("transfer_id"),
        professional_dan: i32::try_from(int("professional_dan")).unwrap_or(0),
        professional_dan_before: i32::try_from(int("professional_dan_before")).unwrap_or(0),
        name: text("name"),
        name_before: text("name_before"),
        all_dead_letters: detail("all_dead_letters")
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false),
    })
}
