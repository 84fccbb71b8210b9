//! The leaderboards: points per game type and the Gomoku rating, from the top or around
//! a player; equal values share a rank. Each row carries the player's display name now.

use sqlx::FromRow;

use super::{Repository, dan};
use crate::domain::{GameType, PlayerId};
use crate::error::LedgerError;

/// Which leaderboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Board {
    /// Points in one game type (players who played it).
    Points(GameType),
    /// Gomoku rating (players with a rated game).
    GomokuRating,
}

impl Board {
    /// The board's rows, `(player_id, value, professional_dan)`, as a subquery. Each
    /// reads one partial index (`standings_points_board`, `players_rating_board`).
    fn rows(self) -> String {
        match self {
            // The game type's code comes from the enum, never from a request.
            Board::Points(game_type) => format!(
                "(SELECT player_id, points AS value, 0::smallint AS professional_dan \
                 FROM standings WHERE game_type = {} AND games > 0)",
                game_type.code()
            ),
            Board::GomokuRating => "(SELECT player_id, gomoku_rating AS value, professional_dan \
                 FROM players WHERE rated_games > 0)"
                .to_owned(),
        }
    }
}

/// One leaderboard row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardRow {
    /// 1 for first; equal values share a rank.
    pub rank: i64,
    /// The player.
    pub player_id: String,
    /// Points or rating.
    pub value: i64,
    /// Professional dan (rating board), else 0.
    pub professional_dan: u8,
    /// The player's display name; empty when it has none.
    pub name: String,
}

#[derive(FromRow)]
struct BoardEntry {
    player_id: String,
    value: i64,
    professional_dan: i16,
    name: String,
}

/// A board's entry columns ([`BoardEntry`]) from its rows `b`, with the name, up to the
/// `WHERE`.
fn entries(rows: &str) -> String {
    format!(
        "SELECT b.player_id::text, b.value, b.professional_dan, coalesce(n.name, '') AS name \
         FROM {rows} b LEFT JOIN names n ON n.player_id = b.player_id"
    )
}

impl Repository {
    /// The top `limit` rows of `board`.
    pub async fn leaderboard_top(
        &self,
        board: Board,
        limit: i64,
    ) -> Result<Vec<BoardRow>, LedgerError> {
        self.lag_tolerant(|pool| async move {
            // Names are joined to the page only, not to the whole board the rank reads.
            let rows: Vec<(String, i64, i16, i64, String)> = sqlx::query_as(&format!(
                "SELECT top.player_id::text, top.value, top.professional_dan, top.rank, \
                        coalesce(n.name, '') \
                 FROM (SELECT player_id, value, professional_dan, \
                              rank() OVER (ORDER BY value DESC) AS rank \
                       FROM {} b ORDER BY value DESC, player_id LIMIT $1) top \
                 LEFT JOIN names n ON n.player_id = top.player_id \
                 ORDER BY top.value DESC, top.player_id",
                board.rows()
            ))
            .bind(limit)
            .fetch_all(&pool)
            .await?;
            Ok(rows
                .into_iter()
                .map(
                    |(player_id, value, professional_dan, rank, name)| BoardRow {
                        rank,
                        player_id,
                        value,
                        professional_dan: dan(professional_dan),
                        name,
                    },
                )
                .collect())
        })
        .await
    }

    /// `limit` rows of `board` centred on `player` (fewer at the ends of the board), or
    /// `None` when the player is not on the board.
    pub async fn leaderboard_around(
        &self,
        board: Board,
        player: &PlayerId,
        limit: i64,
    ) -> Result<Option<Vec<BoardRow>>, LedgerError> {
        self.lag_tolerant(|pool| async move {
            let rows = board.rows();
            let entries = entries(&rows);
            let me: Option<BoardEntry> =
                sqlx::query_as(&format!("{entries} WHERE b.player_id = $1"))
                    .bind(player.as_str())
                    .fetch_optional(&pool)
                    .await?;
            let Some(me) = me else {
                return Ok(None);
            };
            let side = (limit - 1).max(0);
            let mut above: Vec<BoardEntry> = sqlx::query_as(&format!(
                "{entries} WHERE b.value > $1 OR (b.value = $1 AND b.player_id < $2) \
                 ORDER BY b.value ASC, b.player_id DESC LIMIT $3"
            ))
            .bind(me.value)
            .bind(&me.player_id)
            .bind(side)
            .fetch_all(&pool)
            .await?;
            let below: Vec<BoardEntry> = sqlx::query_as(&format!(
                "{entries} WHERE b.value < $1 OR (b.value = $1 AND b.player_id > $2) \
                 ORDER BY b.value DESC, b.player_id ASC LIMIT $3"
            ))
            .bind(me.value)
            .bind(&me.player_id)
            .bind(side)
            .fetch_all(&pool)
            .await?;
            // Centre on the player; a short side gives its places to the other.
            let wanted_above = usize::try_from((limit - 1) / 2).unwrap_or(0);
            let wanted_below = usize::try_from(limit - 1).unwrap_or(0) - wanted_above;
            let take_above = if below.len() < wanted_below {
                (wanted_above + wanted_below - below.len()).min(above.len())
            } else {
                wanted_above.min(above.len())
            };
            let take_below = (wanted_above + wanted_below - take_above).min(below.len());
            above.truncate(take_above);
            above.reverse();
            let window: Vec<BoardEntry> = above
                .into_iter()
                .chain(std::iter::once(me))
                .chain(below.into_iter().take(take_below))
                .collect();

            // Ranks: the first row's rank and position, then counting down the window.
            let first = &window[0];
            let (greater, equal_before): (i64, i64) = sqlx::query_as(&format!(
                "SELECT count(*) FILTER (WHERE value > $1), \
                        count(*) FILTER (WHERE value = $1 AND player_id < $2) \
                 FROM {rows} b WHERE value >= $1"
            ))
            .bind(first.value)
            .bind(&first.player_id)
            .fetch_one(&pool)
            .await?;
            let first_position = greater + equal_before + 1;
            let mut rows: Vec<BoardRow> = Vec::with_capacity(window.len());
            for (i, entry) in window.into_iter().enumerate() {
                let rank = match rows.last() {
                    None => greater + 1,
                    Some(previous) if previous.value == entry.value => previous.rank,
                    Some(_) => first_position + i64::try_from(i).unwrap_or(i64::MAX),
                };
                rows.push(BoardRow {
                    rank,
                    player_id: entry.player_id,
                    value: entry.value,
                    professional_dan: dan(entry.professional_dan),
                    name: entry.name,
                });
            }
            Ok(Some(rows))
        })
        .await
    }
}
