//! The ledger's side of the desk: `grant`, `pro`, `name`, `player`.

use gamehub_proto::common::GameType;
use gamehub_proto::ledger as lg;
use gamehub_render::{ledger, thousands};

use crate::{LedgerClient, status};

/// `gamehub admin grant`: gives `player` silver (LedgerService.GrantSilver), under
/// `request_id` or a fresh one, printed so a retry can reuse it.
pub async fn grant(
    client: &mut LedgerClient,
    player: &str,
    amount: i64,
    reason: String,
    request_id: Option<String>,
) -> anyhow::Result<()> {
    let id = request_id.unwrap_or_else(gamehub_drive::api::request_id);
    let grant = client
        .grant_silver(lg::GrantSilverRequest {
            request_id: id.clone(),
            player_id: player.to_owned(),
            amount_silver: amount,
            reason,
        })
        .await
        .map_err(status)?
        .into_inner();
    println!(
        "{} {} silver to {player} (request id {id}, transfer {}); balance now {}",
        if grant.replayed {
            "already granted"
        } else {
            "granted"
        },
        thousands(amount),
        grant.transfer_id,
        thousands(grant.balance_silver)
    );
    Ok(())
}

/// `gamehub admin pro`: sets `player`'s professional dan, or clears it (dan 0), for
/// `reason` under `request_id` or a fresh one (LedgerService.SetProfessional).
pub async fn pro(
    client: &mut LedgerClient,
    player: &str,
    dan: i32,
    reason: String,
    request_id: Option<String>,
) -> anyhow::Result<()> {
    let id = request_id.unwrap_or_else(gamehub_drive::api::request_id);
    let account = client
        .set_professional(lg::SetProfessionalRequest {
            player_id: player.to_owned(),
            professional_dan: dan,
            reason,
            request_id: id.clone(),
        })
        .await
        .map_err(status)?
        .into_inner()
        .account
        .unwrap_or_default();
    let rating = account.gomoku_rating.unwrap_or_default();
    if rating.professional_dan == 0 {
        println!(
            "{player} is not a professional; rating {} ({}) (request id {id})",
            rating.rating, rating.rank_name
        );
    } else {
        println!(
            "{player} is a professional {}p; rating {} ({}) (request id {id})",
            rating.professional_dan, rating.rating, rating.rank_name
        );
    }
    Ok(())
}

/// `gamehub admin name`: sets `player`'s display name, or clears it (`None`), for
/// `reason` under `request_id` or a fresh one (LedgerService.SetName).
pub async fn name(
    client: &mut LedgerClient,
    player: &str,
    name: Option<String>,
    reason: String,
    request_id: Option<String>,
) -> anyhow::Result<()> {
    let id = request_id.unwrap_or_else(gamehub_drive::api::request_id);
    let set = client
        .set_name(lg::SetNameRequest {
            player_id: player.to_owned(),
            name: name.unwrap_or_default(),
            reason,
            request_id: id.clone(),
        })
        .await
        .map_err(status)?
        .into_inner();
    if set.name.is_empty() {
        println!("{player} has no name now; it is shown by its id (request id {id})");
    } else {
        println!("{player} is now named {:?} (request id {id})", set.name);
    }
    Ok(())
}

/// `gamehub admin player`: the account, then the `last` games and changes
/// (LedgerService.GetAccount, ListGames, ListHistory).
pub async fn player(client: &mut LedgerClient, player: &str, last: i32) -> anyhow::Result<()> {
    let account = client
        .get_account(lg::GetAccountRequest {
            player_id: player.to_owned(),
        })
        .await
        .map_err(status)?
        .into_inner()
        .account
        .unwrap_or_default();
    for line in ledger::account_lines(&account, &[]) {
        println!("{line}");
    }
    let games = client
        .list_games(lg::ListGamesRequest {
            player_id: player.to_owned(),
            game_type: GameType::Unspecified as i32,
            page_size: last,
            page_token: String::new(),
        })
        .await
        .map_err(status)?
        .into_inner()
        .games;
    println!("last games:");
    if games.is_empty() {
        println!("  none");
    }
    for line in ledger::games_lines(&games, player) {
        println!("  {line}");
    }
    let history = client
        .list_history(lg::ListHistoryRequest {
            player_id: player.to_owned(),
            kind: lg::HistoryKind::Unspecified as i32,
            page_size: last,
            page_token: String::new(),
        })
        .await
        .map_err(status)?
        .into_inner()
        .entries;
    println!("last changes:");
    if history.is_empty() {
        println!("  none");
    }
    for line in ledger::history_lines(&history) {
        println!("  {line}");
    }
    Ok(())
}
