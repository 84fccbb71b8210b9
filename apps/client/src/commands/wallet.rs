//! `gamehub wallet`: the account, history, finished games and leaderboards.

use std::process::ExitCode;

use gamehub_platform::config::CommonConfig;
use gamehub_proto::common::GameType;
use gamehub_proto::ledger as lg;
use gamehub_render::ledger;

use crate::{BoardArg, GameArg, HistoryKindArg, WalletArgs, WalletView};

use super::{game_type, status};

/// `gamehub wallet`: the player's account, then the view asked for.
pub(super) async fn wallet(args: WalletArgs, config: &CommonConfig) -> anyhow::Result<ExitCode> {
    let mut clients = args.connect.clients(config)?;
    let account = clients
        .ledger
        .get_account(lg::GetAccountRequest {
            player_id: String::new(),
        })
        .await
        .map_err(status)?
        .into_inner()
        .account
        .unwrap_or_default();
    let client = &mut clients.ledger;
    match args.view.unwrap_or(WalletView::Show) {
        WalletView::Show => wallet_show(client, &account).await,
        WalletView::History {
            kind,
            page_size,
            page,
            pages,
        } => wallet_history(client, kind, page_size, page, pages).await?,
        WalletView::Games {
            game,
            page_size,
            page,
            pages,
        } => wallet_games(client, &account.player_id, game, page_size, page, pages).await?,
        WalletView::Leaderboard {
            board,
            limit,
            around,
        } => wallet_leaderboard(client, &account.player_id, board, limit, around).await?,
    }
    Ok(ExitCode::SUCCESS)
}

/// `gamehub wallet` (`show`): the account and the player's places on the leaderboards.
async fn wallet_show(client: &mut LedgerClient, account: &lg::Account) {
    let me = &account.player_id;
    let mut places = Vec::new();
    for board in [
        lg::Board::GomokuPoints,
        lg::Board::DoudizhuPoints,
        lg::Board::GomokuRating,
    ] {
        // Not being on a board (never played that game) is NOT_FOUND: skip it.
        if let Ok(rows) = client
            .get_leaderboard(lg::GetLeaderboardRequest {
                board: board as i32,
                limit: 1,
                around_player_id: me.clone(),
            })
            .await
            && let Some(row) = rows
                .into_inner()
                .rows
                .into_iter()
                .find(|r| &r.player_id == me)
        {
            places.push((board, row));
        }
    }
    for line in ledger::account_lines(account, &places) {
        println!("{line}");
    }
}

/// `gamehub wallet history`: `pages` pages of changes from `page`, then where to go on.
async fn wallet_history(
    client: &mut LedgerClient,
    kind: Option<HistoryKindArg>,
    page_size: i32,
    page: String,
    pages: u32,
) -> anyhow::Result<()> {
    let kind = match kind {
        None => lg::HistoryKind::Unspecified,
        Some(HistoryKindArg::Silver) => lg::HistoryKind::Silver,
        Some(HistoryKindArg::Points) => lg::HistoryKind::Points,
        Some(HistoryKindArg::Title) => lg::HistoryKind::Title,
        Some(HistoryKindArg::Rating) => lg::HistoryKind::Rating,
    };
    let mut token = page;
    for _ in 0..pages.max(1) {
        let response = client
            .list_history(lg::ListHistoryRequest {
                player_id: String::new(),
                kind: kind as i32,
                page_size,
                page_token: token.clone(),
            })
            .await
            .map_err(status)?
            .into_inner();
        for line in ledger::history_lines(&response.entries) {
            println!("{line}");
        }
        token = response.next_page_token;
        if token.is_empty() {
            break;
        }
    }
    if !token.is_empty() {
        println!("more: gamehub wallet history --page {token}");
    }
    Ok(())
}

/// `gamehub wallet games`: `pages` pages of finished games from `page`, then where to
/// go on.
async fn wallet_games(
    client: &mut LedgerClient,
    me: &str,
    game: Option<GameArg>,
    page_size: i32,
    page: String,
    pages: u32,
) -> anyhow::Result<()> {
    let game_type = game.map_or(GameType::Unspecified, game_type);
    let mut token = page;
    for _ in 0..pages.max(1) {
        let response = client
            .list_games(lg::ListGamesRequest {
                player_id: String::new(),
                game_type: game_type as i32,
                page_size,
                page_token: token.clone(),
            })
            .await
            .map_err(status)?
            .into_inner();
        for line in ledger::games_lines(&response.games, me) {
            println!("{line}");
        }
        token = response.next_page_token;
        if token.is_empty() {
            break;
        }
    }
    if !token.is_empty() {
        println!("more: gamehub wallet games --page {token}");
    }
    Ok(())
}

/// `gamehub wallet leaderboard`: the top of a board, or the rows around a player.
async fn wallet_leaderboard(
    client: &mut LedgerClient,
    me: &str,
    board: BoardArg,
    limit: i32,
    around: Option<String>,
) -> anyhow::Result<()> {
    let board = match board {
        BoardArg::GomokuPoints => lg::Board::GomokuPoints,
        BoardArg::DoudizhuPoints => lg::Board::DoudizhuPoints,
        BoardArg::GomokuRating => lg::Board::GomokuRating,
    };
    let rows = client
        .get_leaderboard(lg::GetLeaderboardRequest {
            board: board as i32,
            limit,
            around_player_id: around.unwrap_or_default(),
        })
        .await
        .map_err(status)?
        .into_inner()
        .rows;
    for line in ledger::leaderboard_lines(board, &rows, me) {
        println!("{line}");
    }
    Ok(())
}

type LedgerClient = gamehub_proto::ledger::ledger_service_client::LedgerServiceClient<
    gamehub_platform::client::ServiceChannel,
>;
