//! Requests into domain types, once, at the edge: ids, bids, cards, the opening of a
//! table. Everything after this trusts its input.

use doudizhu_rules::{Bid, Card, RankCounts, Seed, parse_card_text};
use gamehub_proto::doudizhu as pb;
use sha2::{Digest, Sha256};

use crate::error::DealerError;
use crate::table::{PlayCards, Stakes};

/// Longest id accepted (table, request, player, room).
pub use gamehub_terms::ids::MAX_ID_LEN;
/// Default time per turn.
pub const DEFAULT_TURN_MS: u64 = 20_000;
/// Shortest and longest time per turn accepted.
pub const TURN_MS_RANGE: std::ops::RangeInclusive<u64> = 200..=600_000;
/// The most cards a play can name (a whole hand).
const MAX_PLAY_CARDS: usize = 20;

/// An id: 1–64 ASCII letters, digits and `- _ . : @`.
pub fn id(field: &'static str, value: &str) -> Result<String, DealerError> {
    gamehub_terms::ids::check(value, MAX_ID_LEN)
        .map(str::to_owned)
        .map_err(|problem| DealerError::invalid(field, problem))
}

pub fn table_id(value: &str) -> Result<String, DealerError> {
    id("table_id", value)
}

pub fn request_id(value: &str) -> Result<String, DealerError> {
    id("request_id", value)
}

/// A bid: 0 (pass), 1, 2 or 3.
pub fn bid(points: i32) -> Result<Bid, DealerError> {
    u8::try_from(points)
        .ok()
        .and_then(|p| Bid::try_from(p).ok())
        .ok_or_else(|| {
            DealerError::invalid(
                "points",
                format!("a bid is 1, 2, 3 or 0 for pass, not {points}"),
            )
        })
}

/// The longest rank text of a play: 20 cards, each rank at most two characters
/// (`10`), with separators.
pub const MAX_RANKS_CHARS: usize = 64;
/// The longest text of one card (`♠10`, `S10`, `BJ`), blanks around allowed.
pub const MAX_CARD_CHARS: usize = 8;
/// The most test seeds an OpenTable may carry (one per deal).
pub const MAX_TEST_SEEDS: usize = 64;

/// The cards of a play: rank text or card text, exactly one of them. Their lengths are
/// checked before anything else reads them.
pub fn play(ranks: &str, cards: &[String]) -> Result<PlayCards, DealerError> {
    if ranks.chars().count() > MAX_RANKS_CHARS {
        return Err(DealerError::invalid(
            "ranks",
            format!("is longer than {MAX_RANKS_CHARS} characters"),
        ));
    }
    if cards.len() > MAX_PLAY_CARDS {
        return Err(DealerError::invalid(
            "cards",
            format!("a play has at most {MAX_PLAY_CARDS} cards"),
        ));
    }
    if cards.iter().any(|c| c.chars().count() > MAX_CARD_CHARS) {
        return Err(DealerError::invalid(
            "cards",
            format!("each card is at most {MAX_CARD_CHARS} characters (e.g. S10 or ♠10)"),
        ));
    }
    match (ranks.trim().is_empty(), cards.is_empty()) {
        (false, true) => {
            let ranks = RankCounts::parse(ranks).map_err(|e| DealerError::invalid("ranks", e))?;
            Ok(PlayCards::Ranks(ranks))
        }
        (true, false) => {
            let mut parsed: Vec<Card> = Vec::with_capacity(cards.len());
            for text in cards {
                let one = parse_card_text(text).map_err(|e| DealerError::invalid("cards", e))?;
                match one.as_slice() {
                    [card] => parsed.push(*card),
                    _ => {
                        return Err(DealerError::invalid(
                            "cards",
                            "each entry is one card in card text: a suit letter and a rank, or a joker",
                        ));
                    }
                }
            }
            Ok(PlayCards::Cards(parsed))
        }
        (true, true) => Err(DealerError::invalid(
            "ranks",
            "set the ranks to play as rank text (e.g. \"334455\") or the cards as card text; to pass call Pass",
        )),
        (false, false) => Err(DealerError::invalid(
            "ranks",
            "set either ranks or cards, not both",
        )),
    }
}

/// A parsed OpenTable request.
#[derive(Debug, Clone)]
pub struct OpenTable {
    pub request_id: String,
    pub stakes: Stakes,
    pub turn_ms: u64,
    pub players: [String; 3],
    pub test_seeds: Vec<Seed>,
}

impl OpenTable {
    pub fn parse(request: &pb::OpenTableRequest) -> Result<OpenTable, DealerError> {
        let request_id = request_id(&request.request_id)?;
        let stakes = request
            .stakes
            .as_ref()
            .ok_or_else(|| DealerError::invalid("stakes", "is required"))?;
        // The bounds every service holds stakes to (the points base keeps the worst
        // deal inside the ledger's points per game): a table opens only with stakes
        // the ledger will settle.
        let mut stakes = gamehub_terms::Stakes::from_proto(stakes)
            .map_err(|e| DealerError::invalid(e.path(), e.problem))?;
        // Dou Dizhu moves no ratings (its registry entry is not ratable).
        stakes.rated = false;
        // The rules crate counts a deal's points in 32 bits.
        u32::try_from(stakes.points_base)
            .map_err(|_| DealerError::invalid("stakes.points_base", "does not fit 32 bits"))?;
        let turn_ms = match request.turn_time_ms {
            0 => DEFAULT_TURN_MS,
            ms => u64::try_from(ms)
                .ok()
                .filter(|ms| TURN_MS_RANGE.contains(ms))
                .ok_or_else(|| {
                    DealerError::invalid(
                        "turn_time_ms",
                        format!(
                            "must be {} to {} milliseconds, or 0 for the default",
                            TURN_MS_RANGE.start(),
                            TURN_MS_RANGE.end()
                        ),
                    )
                })?,
        };
        let [a, b, c] = request.player_ids.as_slice() else {
            return Err(DealerError::invalid(
                "player_ids",
                format!(
                    "a table seats exactly 3 players, not {}",
                    request.player_ids.len()
                ),
            ));
        };
        let players = [
            id("player_ids", a)?,
            id("player_ids", b)?,
            id("player_ids", c)?,
        ];
        if players[0] == players[1] || players[0] == players[2] || players[1] == players[2] {
            return Err(DealerError::invalid(
                "player_ids",
                "a player can hold only one seat",
            ));
        }
        if request.test_seeds.len() > MAX_TEST_SEEDS {
            return Err(DealerError::invalid(
                "test_seeds",
                format!("at most {MAX_TEST_SEEDS} seeds"),
            ));
        }
        let test_seeds = request
            .test_seeds
            .iter()
            .map(|hex| {
                Seed::from_hex(hex.trim())
                    .map_err(|_| DealerError::invalid("test_seeds", "each seed is 64 hex digits"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(OpenTable {
            request_id,
            stakes,
            turn_ms,
            players,
            test_seeds,
        })
    }

    /// The table id: derived from the caller and the request id, so a retry finds the
    /// table its first attempt opened.
    pub fn table_id(&self, caller: &str) -> String {
        let digest = Sha256::digest(format!("doudizhu-table\n{caller}\n{}", self.request_id));
        format!("ddz-{}", &hex::encode(digest)[..24])
    }

    /// A digest of what the request asks for, to tell a retry from a reuse of its id.
    pub fn digest(&self) -> String {
        let mut hasher = Sha256::new();
        hasher.update(self.stakes.room_id.as_bytes());
        hasher.update([0]);
        hasher.update(self.stakes.points_base.to_le_bytes());
        hasher.update(self.stakes.silver_per_point.to_le_bytes());
        hasher.update(self.stakes.min_balance_silver.to_le_bytes());
        hasher.update(self.turn_ms.to_le_bytes());
        for player in &self.players {
            hasher.update(player.as_bytes());
            hasher.update([0]);
        }
        for seed in &self.test_seeds {
            hasher.update(seed.bytes());
        }
        hex::encode(hasher.finalize())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_play_is_ranks_or_cards_never_both() {
        assert!(matches!(play("334455", &[]), Ok(PlayCards::Ranks(_))));
        assert!(
            matches!(play("", &["S3".into(), "H3".into()]), Ok(PlayCards::Cards(c)) if c.len() == 2)
        );
        assert!(play("", &[]).is_err());
        assert!(play("3", &["S3".into()]).is_err());
        assert!(play("", &["S3 H3".into()]).is_err());
        assert!(play("33Z", &[]).is_err());
    }

    #[test]
    fn bids_are_zero_to_three() {
        assert_eq!(bid(0).ok(), Some(Bid::Pass));
        assert_eq!(bid(3).ok(), Some(Bid::Three));
        assert!(bid(4).is_err());
        assert!(bid(-1).is_err());
    }

    #[test]
    fn the_table_id_is_stable_per_caller_and_request() {
        let request = pb::OpenTableRequest {
            bot_seats: Vec::new(),
            friends_table: false,
            profiles: Vec::new(),
            request_id: "m-1".into(),
            stakes: Some(gamehub_proto::common::RoomStakes {
                room_id: "doudizhu-classic".into(),
                points_base: 1,
                silver_per_point: 10,
                min_balance_silver: 0,
                rated: false,
            }),
            turn_time_ms: 0,
            player_ids: vec!["a".into(), "b".into(), "c".into()],
            test_seeds: vec![],
        };
        let open = OpenTable::parse(&request).unwrap();
        assert_eq!(open.table_id("mm"), open.table_id("mm"));
        assert_ne!(open.table_id("mm"), open.table_id("other"));
        assert_eq!(open.table_id("mm").len(), 28);
        assert_eq!(open.turn_ms, DEFAULT_TURN_MS);
        let mut same_players = request.clone();
        same_players.player_ids = vec!["a".into(), "a".into(), "c".into()];
        assert!(OpenTable::parse(&same_players).is_err());
    }
}
