//! The ledger as text: the account (balance, today's caps, points, titles, counts,
//! rating, places on the leaderboards), history pages, finished games, leaderboards.
//! Pure formatting: the callers fetch.

use gamehub_proto::common::GameType;
use gamehub_proto::ledger as lg;

use crate::{signed, thousands};

/// A game type's name.
pub fn game_name(game: GameType) -> &'static str {
    match game {
        GameType::Gomoku => "Gomoku",
        GameType::Doudizhu => "Dou Dizhu",
        GameType::Unspecified => "-",
    }
}

/// A leaderboard's name.
pub fn board_name(board: lg::Board) -> &'static str {
    match board {
        lg::Board::GomokuPoints => "Gomoku points (积分)",
        lg::Board::DoudizhuPoints => "Dou Dizhu points (积分)",
        lg::Board::GomokuRating => "Gomoku rating (段位)",
        lg::Board::Unspecified => "-",
    }
}

/// A time as `YYYY-MM-DD HH:MM` UTC.
pub(crate) fn when(unix_ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(unix_ms)
        .map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_else(|| "-".into())
}

/// The account summary. `places` are the player's rows on the leaderboards it is on.
pub fn account_lines(
    account: &lg::Account,
    places: &[(lg::Board, lg::LeaderboardRow)],
) -> Vec<String> {
    let mut out = vec![format!(
        "player {}",
        crate::named(&account.player_id, &account.name)
    )];
    out.push(format!(
        "silver (银子): {}",
        thousands(account.balance_silver)
    ));
    if let Some(today) = &account.today {
        out.push(format!(
            "today {}: won {} of {} (may win {} more), lost {} of {} (may lose {} more); resets {}",
            today.day,
            thousands(today.won_silver),
            thousands(today.win_cap_silver),
            thousands(today.remaining_win_silver),
            thousands(today.lost_silver),
            thousands(today.loss_cap_silver),
            thousands(today.remaining_loss_silver),
            when(today.resets_at_unix_ms)
        ));
    }
    for standing in &account.standings {
        let title = standing
            .title
            .as_ref()
            .map(|t| format!("{} (level {})", t.name, t.level))
            .unwrap_or_default();
        out.push(format!(
            "{}: {} points, title {title}; {} games: {} won, {} lost, {} drawn, {} escaped",
            game_name(standing.game_type()),
            standing.points,
            standing.games,
            standing.wins,
            standing.losses,
            standing.draws,
            standing.escapes
        ));
    }
    if let Some(rating) = &account.gomoku_rating {
        let pro = if rating.professional_dan > 0 {
            format!(", professional {}p", rating.professional_dan)
        } else {
            String::new()
        };
        out.push(format!(
            "Gomoku rating (段位): {} ({}){pro}, {} rated games",
            rating.rating, rating.rank_name, rating.rated_games
        ));
    }
    for (board, row) in places {
        out.push(format!(
            "leaderboard {}: #{} with {}",
            board_name(*board),
            row.rank,
            row.value
        ));
    }
    out
}

fn kind_name(kind: lg::HistoryKind) -> &'static str {
    match kind {
        lg::HistoryKind::Silver => "silver",
        lg::HistoryKind::Points => "points",
        lg::HistoryKind::Title => "title",
        lg::HistoryKind::Rating => "rating",
        lg::HistoryKind::Unspecified => "-",
    }
}

/// One page of history, newest first.
pub fn history_lines(entries: &[lg::HistoryEntry]) -> Vec<String> {
    if entries.is_empty() {
        return vec!["no history".into()];
    }
    entries
        .iter()
        .map(|e| {
            let game = if e.game_id.is_empty() {
                String::new()
            } else {
                format!(" · {} {}", game_name(e.game_type()), e.game_id)
            };
            format!(
                "{}  {:<7} {:>9} → {:<9} ({}) · {}{game}",
                when(e.at_unix_ms),
                kind_name(e.kind()),
                e.before,
                e.after,
                signed(e.after - e.before),
                e.reason
            )
        })
        .collect()
}

/// One page of finished games, newest first, from `me`'s side.
pub fn games_lines(games: &[lg::FinishedGame], me: &str) -> Vec<String> {
    if games.is_empty() {
        return vec!["no finished games".into()];
    }
    games
        .iter()
        .map(|g| {
            let mine = g.players.iter().position(|p| p.player_id == me);
            let outcome = mine
                .and_then(|i| g.results.get(i))
                .map(|r| match r.outcome() {
                    lg::PlayerOutcome::Win => "won",
                    lg::PlayerOutcome::Loss => "lost",
                    lg::PlayerOutcome::Draw => "drew",
                    lg::PlayerOutcome::Escape => "escaped",
                    lg::PlayerOutcome::Void => "void",
                    lg::PlayerOutcome::Unspecified => "-",
                })
                .unwrap_or("-");
            let delta = mine
                .and_then(|i| g.players.get(i))
                .map(|p| {
                    format!(
                        "points {}, silver {}",
                        signed(p.points_delta),
                        signed(p.silver_delta)
                    )
                })
                .unwrap_or_default();
            let others: Vec<String> = g
                .players
                .iter()
                .filter(|p| p.player_id != me)
                .map(|p| crate::named(&p.player_id, &p.name))
                .collect();
            format!(
                "{}  {:<9} {:<7} {delta} · {} · vs {} · {} ({})",
                when(g.ended_at_unix_ms),
                game_name(g.game_type()),
                outcome,
                g.reason,
                others.join(", "),
                g.game_id,
                g.room_id
            )
        })
        .collect()
}

/// Leaderboard rows, `me` marked.
pub fn leaderboard_lines(board: lg::Board, rows: &[lg::LeaderboardRow], me: &str) -> Vec<String> {
    let mut out = vec![board_name(board).to_owned()];
    if rows.is_empty() {
        out.push("nobody on this board yet".into());
    }
    for row in rows {
        out.push(format!(
            "{} {:>4}. {:<24} {:>10}  {}",
            if row.player_id == me { "▶" } else { " " },
            row.rank,
            crate::named(&row.player_id, &row.name),
            row.value,
            row.label
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use gamehub_proto::common::Title;

    #[test]
    fn the_account_shows_balance_caps_standings_rating_and_places() {
        let account = lg::Account {
            player_id: "alice".into(),
            name: String::new(),
            balance_silver: 12_500,
            today: Some(lg::DailyCaps {
                day: "2026-11-30".into(),
                won_silver: 500,
                lost_silver: 0,
                remaining_win_silver: 149_500,
                remaining_loss_silver: 150_000,
                win_cap_silver: 150_000,
                loss_cap_silver: 150_000,
                resets_at_unix_ms: 0,
            }),
            standings: vec![lg::GameStanding {
                game_type: GameType::Gomoku as i32,
                points: 5,
                title: Some(Title {
                    level: 1,
                    name: "超轻蝇量级".into(),
                    min_points: 0,
                    max_points: 1000,
                }),
                wins: 1,
                games: 1,
                ..Default::default()
            }],
            gomoku_rating: Some(lg::Rating {
                rating: 2010,
                rank: 20,
                rank_name: "无级别".into(),
                rated_games: 1,
                professional_dan: 0,
            }),
        };
        let places = vec![(
            lg::Board::GomokuRating,
            lg::LeaderboardRow {
                rank: 3,
                player_id: "alice".into(),
                value: 2010,
                label: "无级别".into(),
                name: String::new(),
            },
        )];
        let text = account_lines(&account, &places).join("\n");
        assert!(text.contains("silver (银子): 12,500"), "{text}");
        assert!(
            text.contains("won 500 of 150,000 (may win 149,500 more)"),
            "{text}"
        );
        assert!(
            text.contains("Gomoku: 5 points, title 超轻蝇量级 (level 1); 1 games: 1 won"),
            "{text}"
        );
        assert!(
            text.contains("Gomoku rating (段位): 2010 (无级别)"),
            "{text}"
        );
        assert!(
            text.contains("leaderboard Gomoku rating (段位): #3 with 2010"),
            "{text}"
        );
    }

    #[test]
    fn history_shows_the_change_and_its_game() {
        let lines = history_lines(&[lg::HistoryEntry {
            id: 1,
            kind: lg::HistoryKind::Silver as i32,
            game_type: GameType::Gomoku as i32,
            game_id: "gt-1:1".into(),
            before: 10_000,
            after: 10_500,
            reason: "game".into(),
            at_unix_ms: 0,
        }]);
        assert!(lines[0].contains("silver"), "{}", lines[0]);
        assert!(lines[0].contains("(+500)"), "{}", lines[0]);
        assert!(lines[0].contains("Gomoku gt-1:1"), "{}", lines[0]);
    }

    #[test]
    fn games_are_told_from_the_players_side() {
        let game = lg::FinishedGame {
            game_id: "gt-1:1".into(),
            game_type: GameType::Gomoku as i32,
            room_id: "gomoku-renju".into(),
            reason: "resign".into(),
            players: vec![
                lg::PlayerSettlement {
                    player_id: "alice".into(),
                    points_delta: -3,
                    silver_delta: -300,
                    ..Default::default()
                },
                lg::PlayerSettlement {
                    player_id: "bob".into(),
                    points_delta: 3,
                    silver_delta: 300,
                    ..Default::default()
                },
            ],
            results: vec![
                lg::PlayerResult {
                    player_id: "alice".into(),
                    outcome: lg::PlayerOutcome::Loss as i32,
                    ..Default::default()
                },
                lg::PlayerResult {
                    player_id: "bob".into(),
                    outcome: lg::PlayerOutcome::Win as i32,
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        let line = &games_lines(&[game], "alice")[0];
        assert!(
            line.contains("lost    points -3, silver -300 · resign · vs bob"),
            "{line}"
        );
    }

    #[test]
    fn the_leaderboard_marks_the_player() {
        let rows = vec![
            lg::LeaderboardRow {
                rank: 1,
                player_id: "bob".into(),
                value: 30,
                label: "超轻蝇量级".into(),
                name: String::new(),
            },
            lg::LeaderboardRow {
                rank: 2,
                player_id: "alice".into(),
                value: 5,
                label: "超轻蝇量级".into(),
                name: String::new(),
            },
        ];
        let lines = leaderboard_lines(lg::Board::GomokuPoints, &rows, "alice");
        assert!(lines[2].starts_with('▶'), "{lines:?}");
        assert!(lines[1].starts_with(' '), "{lines:?}");
    }
}
