//! Requests into domain types, once, at the edge: ids, bids, cards, the opening of a
//! table. Everything after this trusts its input.

use doudizhu_rules::{Bid, Card, RankCounts, RuleSet, Seed, parse_card_text};
use gamehub_proto::doudizhu as pb;
use sha2::{Digest, Sha256};

use crate::error::DealerError;
use crate::table::{PlayCards, Profile, Stakes};

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

pub use gamehub_terms::names::{BOT_ID_PREFIX, MAX_NAME_CHARS, MAX_TITLE_CHARS};
/// The most seats the platform's bot may play: a table keeps a human.
pub const MAX_BOT_SEATS: usize = 2;

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

/// The ranks a laizi play's cards stand for (`PlayRequest.meant`): `None` when empty.
pub fn meant(text: &str) -> Result<Option<RankCounts>, DealerError> {
    if text.chars().count() > MAX_RANKS_CHARS {
        return Err(DealerError::invalid(
            "meant",
            format!("is longer than {MAX_RANKS_CHARS} characters"),
        ));
    }
    if text.trim().is_empty() {
        return Ok(None);
    }
    RankCounts::parse(text)
        .map(Some)
        .map_err(|e| DealerError::invalid("meant", e))
}

/// The longest rule set name accepted.
pub const MAX_RULE_SET_CHARS: usize = 16;

/// A room's rule set (`OpenTableRequest.rule_set`): empty is `classic`.
pub fn rule_set(name: &str) -> Result<RuleSet, DealerError> {
    if name.chars().count() > MAX_RULE_SET_CHARS {
        return Err(DealerError::invalid(
            "rule_set",
            format!("is longer than {MAX_RULE_SET_CHARS} characters"),
        ));
    }
    if name.trim().is_empty() {
        return Ok(RuleSet::Classic);
    }
    RuleSet::parse(name).ok_or_else(|| {
        DealerError::invalid(
            "rule_set",
            format!("is one of {} (or empty for classic)", RuleSet::names()),
        )
    })
}

/// A parsed OpenTable request.
#[derive(Debug, Clone)]
pub struct OpenTable {
    pub request_id: String,
    pub stakes: Stakes,
    pub turn_ms: u64,
    pub players: [String; 3],
    pub test_seeds: Vec<Seed>,
    /// How each seat's player is shown (all empty when the request gave none).
    pub profiles: [Profile; 3],
    /// Seats the platform's bot plays.
    pub bots: [bool; 3],
    pub friends_table: bool,
    pub rule_set: RuleSet,
}

impl OpenTable {
    pub fn parse(request: &pb::OpenTableRequest) -> Result<OpenTable, DealerError> {
        let request_id = request_id(&request.request_id)?;
        let rule_set = rule_set(&request.rule_set)?;
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
        let profiles = profiles(&request.profiles)?;
        let bots = bot_seats(&request.bot_seats, &players)?;
        if bots.iter().any(|b| *b) && !(request.friends_table && stakes.is_free()) {
            return Err(DealerError::invalid(
                "bot_seats",
                "the platform's bots sit only at friends' tables of free rooms",
            ));
        }
        Ok(OpenTable {
            request_id,
            stakes,
            turn_ms,
            players,
            test_seeds,
            profiles,
            bots,
            friends_table: request.friends_table,
            rule_set,
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
        // Only what a request of before could not ask for is added, so the retry of an
        // OpenTable sent before profiles, bots and friends' tables still matches.
        if self.bots.contains(&true) {
            hasher.update(b"bots");
            hasher.update(self.bots.map(u8::from));
        }
        if self.friends_table {
            hasher.update(b"friends_table");
        }
        if self.rule_set != RuleSet::Classic {
            hasher.update(b"rule_set");
            hasher.update(self.rule_set.name().as_bytes());
        }
        if self.profiles != <[Profile; 3]>::default() {
            hasher.update(b"profiles");
            for profile in &self.profiles {
                for text in [&profile.name, &profile.title, &profile.rank_name] {
                    hasher.update(text.as_bytes());
                    hasher.update([0]);
                }
                hasher.update(profile.rating.to_le_bytes());
            }
        }
        hex::encode(hasher.finalize())
    }
}

/// The players' profiles: none, or one per seat with a name of at most 12 characters and
/// a title and rank name of at most 32. The `bot` flag is not taken from them: the bot
/// seats are `bot_seats`.
fn profiles(
    profiles: &[gamehub_proto::common::PlayerProfile],
) -> Result<[Profile; 3], DealerError> {
    if profiles.is_empty() {
        return Ok(Default::default());
    }
    let [a, b, c] = profiles else {
        return Err(DealerError::invalid(
            "profiles",
            format!(
                "give none or exactly 3, one per seat, not {}",
                profiles.len()
            ),
        ));
    };
    let text = |field: &'static str, seat: usize, value: &str, max: usize| {
        let chars = value.chars().count();
        if chars > max {
            return Err(DealerError::invalid(
                field,
                format!("seat {seat}'s is {chars} characters; at most {max}"),
            ));
        }
        Ok(value.to_owned())
    };
    let mut parsed: [Profile; 3] = Default::default();
    for (seat, (given, profile)) in [a, b, c].into_iter().zip(&mut parsed).enumerate() {
        *profile = Profile {
            name: text("profiles.name", seat, &given.name, MAX_NAME_CHARS)?,
            title: text("profiles.title", seat, &given.title, MAX_TITLE_CHARS)?,
            rating: given.rating,
            rank_name: text(
                "profiles.rank_name",
                seat,
                &given.rank_name,
                MAX_TITLE_CHARS,
            )?,
        };
    }
    Ok(parsed)
}

/// The seats the platform's bot plays: at most two distinct seats 0–2, each of a player
/// whose id starts with `bot-`.
fn bot_seats(seats: &[i32], players: &[String; 3]) -> Result<[bool; 3], DealerError> {
    if seats.len() > MAX_BOT_SEATS {
        return Err(DealerError::invalid(
            "bot_seats",
            format!(
                "at most {MAX_BOT_SEATS} seats, not {}: a table keeps a human",
                seats.len()
            ),
        ));
    }
    let mut bots = [false; 3];
    for &seat in seats {
        let index = usize::try_from(seat)
            .ok()
            .filter(|i| *i < bots.len())
            .ok_or_else(|| {
                DealerError::invalid("bot_seats", format!("a seat is 0, 1 or 2, not {seat}"))
            })?;
        if bots[index] {
            return Err(DealerError::invalid(
                "bot_seats",
                format!("seat {seat} is given twice"),
            ));
        }
        if !players[index].starts_with(BOT_ID_PREFIX) {
            return Err(DealerError::invalid(
                "bot_seats",
                format!(
                    "seat {seat}'s player {} is no bot: a bot's id starts with {BOT_ID_PREFIX:?}",
                    players[index]
                ),
            ));
        }
        bots[index] = true;
    }
    Ok(bots)
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
    fn rule_sets_are_read_by_name_and_empty_is_classic() {
        assert_eq!(rule_set("").ok(), Some(RuleSet::Classic));
        assert_eq!(rule_set("rob").ok(), Some(RuleSet::Rob));
        assert_eq!(rule_set("laizi").ok(), Some(RuleSet::Laizi));
        let refused = rule_set("Laizi").unwrap_err().to_string();
        assert!(refused.contains("classic, rob, laizi"), "{refused}");
        assert!(rule_set(&"r".repeat(17)).is_err());
        assert_eq!(meant("").ok(), Some(None));
        assert!(meant("5555").unwrap().is_some());
        assert!(meant("5Z").is_err());
    }

    #[test]
    fn the_table_id_is_stable_per_caller_and_request() {
        let request = pb::OpenTableRequest {
            bot_seats: Vec::new(),
            friends_table: false,
            rule_set: String::new(),
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

    fn request_with(
        players: [&str; 3],
        profiles: Vec<gamehub_proto::common::PlayerProfile>,
        bot_seats: Vec<i32>,
    ) -> pb::OpenTableRequest {
        pb::OpenTableRequest {
            bot_seats,
            friends_table: true,
            rule_set: String::new(),
            profiles,
            request_id: "m-1".into(),
            stakes: Some(gamehub_proto::common::RoomStakes {
                room_id: "doudizhu-free".into(),
                points_base: 1,
                silver_per_point: 0,
                min_balance_silver: 0,
                rated: false,
            }),
            turn_time_ms: 0,
            player_ids: players.map(str::to_owned).to_vec(),
            test_seeds: vec![],
        }
    }

    fn named(name: &str) -> gamehub_proto::common::PlayerProfile {
        gamehub_proto::common::PlayerProfile {
            name: name.into(),
            ..Default::default()
        }
    }

    fn refusal(request: &pb::OpenTableRequest) -> String {
        match OpenTable::parse(request) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("{request:?} accepted"),
        }
    }

    #[test]
    fn profiles_are_none_or_one_per_seat_within_their_lengths() {
        let players = ["a", "b", "c"];
        let twelve = "张三李四王五赵六钱七孙八";
        let ok = OpenTable::parse(&request_with(
            players,
            vec![named(twelve), named(""), named("Zoë")],
            vec![],
        ))
        .unwrap();
        assert_eq!(ok.profiles[0].name, twelve);
        assert!(ok.friends_table);
        assert!(
            refusal(&request_with(players, vec![named("x")], vec![])).starts_with("profiles: ")
        );
        let thirteen = format!("{twelve}九");
        assert!(
            refusal(&request_with(
                players,
                vec![named(""), named(&thirteen), named("")],
                vec![]
            ))
            .starts_with("profiles.name: seat 1's is 13 characters")
        );
        let titled = gamehub_proto::common::PlayerProfile {
            title: "t".repeat(33),
            ..Default::default()
        };
        assert!(
            refusal(&request_with(
                players,
                vec![named(""), named(""), titled.clone()],
                vec![]
            ))
            .starts_with("profiles.title: seat 2's")
        );
        let ranked = gamehub_proto::common::PlayerProfile {
            rank_name: "r".repeat(33),
            ..Default::default()
        };
        assert!(
            refusal(&request_with(
                players,
                vec![ranked, named(""), named("")],
                vec![]
            ))
            .starts_with("profiles.rank_name: seat 0's")
        );
    }

    #[test]
    fn bot_seats_are_at_most_two_distinct_seats_of_bot_players() {
        let players = ["alice", "bot-1", "bot-2"];
        let ok = OpenTable::parse(&request_with(players, vec![], vec![2, 1])).unwrap();
        assert_eq!(ok.bots, [false, true, true]);
        for (players, seats, problem) in [
            (
                ["bot-0", "bot-1", "bot-2"],
                vec![0, 1, 2],
                "at most 2 seats",
            ),
            (players, vec![1, 1], "seat 1 is given twice"),
            (players, vec![3], "a seat is 0, 1 or 2, not 3"),
            (players, vec![-1], "a seat is 0, 1 or 2, not -1"),
            (players, vec![0], "seat 0's player alice is no bot"),
        ] {
            let text = refusal(&request_with(players, vec![], seats));
            assert!(text.starts_with(&format!("bot_seats: {problem}")), "{text}");
        }
    }

    #[test]
    fn the_digest_of_a_request_without_profiles_or_bots_is_as_before() {
        let mut plain = request_with(["a", "b", "c"], vec![], vec![]);
        plain.friends_table = false;
        let digest = OpenTable::parse(&plain).unwrap().digest();
        // What the dealer computed for this request before profiles, bots and friends'
        // tables (SHA-256 of the room, 0, the three amounts and the turn time as
        // little-endian 64-bit words, each player and 0; computed apart, in Python): a
        // retry of an OpenTable from before still finds its table.
        assert_eq!(
            digest,
            "6712c71d8ff139d5b8e58de051b9dc95d16b7d47c9903563ce521df368731bc2"
        );
        let mut friends = plain.clone();
        friends.friends_table = true;
        // Bots sit only at friends' tables of free rooms.
        let mut bots = request_with(["a", "b", "bot-c"], vec![], vec![2]);
        bots.friends_table = true;
        bots.stakes.as_mut().unwrap().silver_per_point = 0;
        let mut bots_plain = bots.clone();
        bots_plain.bot_seats.clear();
        let mut named_plain = plain.clone();
        named_plain.profiles = vec![named("A"), named(""), named("")];
        assert_ne!(OpenTable::parse(&friends).unwrap().digest(), digest);
        assert_ne!(OpenTable::parse(&named_plain).unwrap().digest(), digest);
        assert_ne!(
            OpenTable::parse(&bots).unwrap().digest(),
            OpenTable::parse(&bots_plain).unwrap().digest()
        );
    }
}
