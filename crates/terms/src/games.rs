//! The game registry: what the shared services know of each game, one entry per game
//! ([`GOMOKU`], [`DOUDIZHU`]; every entry in [`GAMES`]). Matchmaking checks rooms by it,
//! the ledger checks reports and lists standings by it, the platform finds each game's
//! service by it; none of them names a game. A new game is its own crates plus one
//! entry here (docs/adding-a-game.md).
//!
//! An entry is data, and the few functions it holds are its rule crate's (rule-set
//! names). What a game's service speaks (its proto) lives apart, in
//! `gamehub-game-clients`.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::RangeInclusive;

use gamehub_proto::common::GameType;
use gamehub_proto::ledger::{Board, PlayerOutcome, Role};

/// One game, as the shared services know it.
pub struct Game {
    /// The registry key: a rooms file's `game`, the game's Redis keys (`gh:{gomoku:SS}`),
    /// metrics labels, and the `<KEY>` of its variables (`GAMEHUB_GOMOKU_URL`).
    pub key: &'static str,
    /// The name players read.
    pub name: &'static str,
    /// The name in Chinese, as the seeds write it.
    pub chinese_name: &'static str,
    /// Its code in the API and in the ledger's rows (`common.GameType`).
    pub game_type: GameType,
    /// Players at one table.
    pub seats: usize,
    /// The parts a player can hold in a finished game (`ledger.Role`); each role belongs
    /// to one game.
    pub roles: &'static [Role],
    /// The sides of a game: the players of one side win or lose together. A role on no
    /// side (a Dou Dizhu bidder) plays a game that ended before sides existed.
    pub sides: &'static [&'static [Role]],
    /// The lineups a finished game may have: how many players hold each role.
    pub lineups: &'static [Lineup],
    /// Whether a game can be drawn (every player drawn).
    pub draws: bool,
    /// What the others' outcome is when one player escapes (逃跑).
    pub after_escape: PlayerOutcome,
    /// The ledger's words when a report makes no game of this kind.
    pub refusals: Refusals,
    /// The rule sets a room may choose, from the game's rule crate.
    pub rule_sets: RuleSets,
    /// How a room's clock is given, and its bounds.
    pub clock: ClockKind,
    /// Whether rooms may be rated: games there move the players' ratings (段位; the
    /// ledger's rating is one of two players).
    pub ratable: bool,
    /// Whether rooms may play games in pairs, each player opening one of the two.
    pub paired_games: bool,
    /// The most points one player can score or lose in one game, per points base: the
    /// stakes' bounds keep it, at the largest points base, inside the ledger's limits.
    pub most_points_per_base: i64,
    /// What one game can cost a player at most, which a room asks a player to hold by
    /// default.
    pub worst_loss: WorstLoss,
    /// The leaderboard of this game's points (积分).
    pub points_board: Board,
    /// How the game's service is reached.
    pub service: Service,
}

/// A lineup: how many players hold each role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lineup(pub &'static [(Role, usize)]);

impl Lineup {
    /// How many players hold `role`.
    pub fn count(&self, role: Role) -> usize {
        self.0
            .iter()
            .find(|(r, _)| *r == role)
            .map_or(0, |(_, count)| *count)
    }
}

/// The ledger's refusals of a report that makes no game of this kind, each after
/// `players: `. Fixed words, because API clients read them.
#[derive(Debug, Clone, Copy)]
pub struct Refusals {
    /// The roles make none of the lineups.
    pub lineup: &'static str,
    /// The outcomes make no result; `{outcomes}` stands for them (`Win and Win`).
    pub results: &'static str,
    /// A lineup on no side, whose game ends only by an escape, has other outcomes; None
    /// when every lineup has sides.
    pub sideless_results: Option<&'static str>,
}

/// A game's rule sets, as its rule crate names them.
#[derive(Clone, Copy)]
pub struct RuleSets {
    /// Every rule set's name, comma-separated, for messages.
    pub names: fn() -> String,
    /// The rule set named exactly `name` (its canonical name), if the game has one.
    pub parse: fn(&str) -> Option<&'static str>,
}

/// How a room's clock is given, with the bounds matchmaking's rooms file holds it to
/// (milliseconds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClockKind {
    /// Time per move and in total per player.
    PerMoveAndTotal {
        /// The most one move may take.
        move_time_ms: RangeInclusive<i64>,
        /// The most one player's moves may take together (no less than a move's).
        total_time_ms: RangeInclusive<i64>,
    },
    /// Time per turn; when it runs out the server plays for the seat.
    PerTurn {
        /// The most one turn may take.
        turn_time_ms: RangeInclusive<i64>,
    },
}

/// A room's clock: values of its game's [`ClockKind`], in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeControl {
    /// Per move and in total per player.
    PerMoveAndTotal {
        /// The most one move may take.
        move_time_ms: u64,
        /// The most one player's moves may take together.
        total_time_ms: u64,
    },
    /// Per turn.
    PerTurn {
        /// The most one turn may take before the server plays for the seat.
        turn_time_ms: u64,
    },
}

/// What one game can cost a player at most.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorstLoss {
    /// This many points × points base.
    Points(i64),
    /// More than it is fair to ask every player to hold: the per-game loss cap.
    LossCap,
}

/// Where a game's service is: variables and the default port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Service {
    /// What logs and errors call it.
    pub name: &'static str,
    /// Its identity: the subject of its service tokens, which the access table
    /// (`gamehub_platform::access`) and the ledger (a game service settles only its own
    /// game) check.
    pub identity: &'static str,
    /// The variable that tells other services its URL.
    pub url_var: &'static str,
    /// The variable that sets where it listens.
    pub addr_var: &'static str,
    /// Its port by default.
    pub port: u16,
}

/// Gomoku / Renju (五子棋): two players, black and white.
pub static GOMOKU: Game = Game {
    key: "gomoku",
    name: "Gomoku",
    chinese_name: "五子棋",
    game_type: GameType::Gomoku,
    seats: 2,
    roles: &[Role::Black, Role::White],
    sides: &[&[Role::Black], &[Role::White]],
    lineups: &[Lineup(&[(Role::Black, 1), (Role::White, 1)])],
    draws: true,
    // The one who stays wins (0 points): the escaper pays the house.
    after_escape: PlayerOutcome::Win,
    refusals: Refusals {
        lineup: "a Gomoku game needs one ROLE_BLACK and one ROLE_WHITE",
        results: "outcomes {outcomes} do not make a Gomoku result; expected a win and a loss, two draws, or an escape and a win",
        sideless_results: None,
    },
    rule_sets: RuleSets {
        names: gomoku_rules::RuleSet::names,
        parse: |name| gomoku_rules::RuleSet::parse(name).map(gomoku_rules::RuleSet::name),
    },
    clock: ClockKind::PerMoveAndTotal {
        move_time_ms: 1_000..=3_600_000,
        total_time_ms: 1_000..=86_400_000,
    },
    ratable: true,
    paired_games: true,
    // An escape (seed 001) is the most a game moves; a win moves 5.
    most_points_per_base: gomoku_rules::ESCAPE_POINTS,
    worst_loss: WorstLoss::Points(gomoku_rules::ESCAPE_POINTS),
    points_board: Board::GomokuPoints,
    service: Service {
        name: "gomoku referee",
        identity: "gomoku-referee",
        url_var: "GAMEHUB_GOMOKU_URL",
        addr_var: "GAMEHUB_GOMOKU_ADDR",
        port: 50052,
    },
};

/// Dou Dizhu (斗地主): three players, the landlord (地主) against two farmers (农民).
pub static DOUDIZHU: Game = Game {
    key: "doudizhu",
    name: "Dou Dizhu",
    chinese_name: "斗地主",
    game_type: GameType::Doudizhu,
    seats: 3,
    roles: &[Role::Landlord, Role::Farmer, Role::Bidder],
    sides: &[&[Role::Landlord], &[Role::Farmer]],
    lineups: &[
        Lineup(&[(Role::Landlord, 1), (Role::Farmer, 2)]),
        // A deal that ended during bidding (an escape): no landlord yet.
        Lineup(&[(Role::Bidder, 3)]),
    ],
    draws: false,
    // The deal is void for the other two.
    after_escape: PlayerOutcome::Void,
    refusals: Refusals {
        lineup: "a Dou Dizhu deal has one ROLE_LANDLORD and two ROLE_FARMER, or three ROLE_BIDDER when it ended before a landlord was chosen",
        results: "Dou Dizhu outcomes are: landlord wins and both farmers lose, landlord loses and both farmers win, or one escape and two voids",
        sideless_results: Some(
            "a deal that ended during bidding ends by an escape: one PLAYER_OUTCOME_ESCAPE and two PLAYER_OUTCOME_VOID",
        ),
    },
    rule_sets: RuleSets {
        names: doudizhu_rules::RuleSet::names,
        parse: |name| doudizhu_rules::RuleSet::parse(name).map(doudizhu_rules::RuleSet::name),
    },
    clock: ClockKind::PerTurn {
        turn_time_ms: 1_000..=600_000,
    },
    ratable: false,
    paired_games: false,
    // The worst deal: bid 3, ×2 for each of 13 bombs and the rocket, ×2 for spring; the
    // landlord takes twice that.
    most_points_per_base: 2 * 3 * (1 << 15),
    // Bombs double a deal's loss: no figure below the cap is fair to ask of everyone.
    worst_loss: WorstLoss::LossCap,
    points_board: Board::DoudizhuPoints,
    service: Service {
        name: "doudizhu dealer",
        identity: "doudizhu-dealer",
        url_var: "GAMEHUB_DOUDIZHU_URL",
        addr_var: "GAMEHUB_DOUDIZHU_ADDR",
        port: 50053,
    },
};

/// Every game, in the order of their `GameType` codes (accounts list standings so).
pub static GAMES: [&Game; 2] = [&GOMOKU, &DOUDIZHU];

/// The game of a registry key (`gomoku`).
pub fn by_key(key: &str) -> Option<&'static Game> {
    GAMES.into_iter().find(|game| game.key == key)
}

/// The game of an API code; None for `GAME_TYPE_UNSPECIFIED`.
pub fn by_type(game_type: GameType) -> Option<&'static Game> {
    GAMES.into_iter().find(|game| game.game_type == game_type)
}

/// The game a role belongs to.
pub fn by_role(role: Role) -> Option<&'static Game> {
    GAMES.into_iter().find(|game| game.roles.contains(&role))
}

/// Every game's key, for messages: `gomoku or doudizhu`.
pub fn keys() -> String {
    or_list(GAMES.iter().map(|game| game.key))
}

/// Words joined as a message lists choices: `a`, `a or b`, `a, b or c`.
pub fn or_list<'a>(words: impl IntoIterator<Item = &'a str>) -> String {
    let words: Vec<&str> = words.into_iter().collect();
    match words.split_last() {
        None => String::new(),
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

impl Game {
    /// The side `role` plays on (an index into [`Game::sides`]), if any.
    pub fn side_of(&self, role: Role) -> Option<usize> {
        self.sides.iter().position(|side| side.contains(&role))
    }

    /// The lineup that `roles` (one per player) make, if any.
    pub fn lineup_of(&self, roles: &[Role]) -> Option<&'static Lineup> {
        self.lineups.iter().find(|lineup| {
            roles.len() == self.seats
                && self
                    .roles
                    .iter()
                    .all(|&role| roles.iter().filter(|&&r| r == role).count() == lineup.count(role))
        })
    }

    /// Whether every role of `lineup` plays on a side (so a game can be won and lost).
    pub fn has_sides(&self, lineup: &Lineup) -> bool {
        lineup
            .0
            .iter()
            .all(|&(role, _)| self.side_of(role).is_some())
    }

    /// The game's roles as the API names them: `ROLE_BLACK or ROLE_WHITE`.
    pub fn role_names(&self) -> String {
        or_list(self.roles.iter().map(|role| role.as_str_name()))
    }
}

// An entry is known by its key: two entries never share one (tested below).
impl PartialEq for Game {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl Eq for Game {}

impl Hash for Game {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.key.hash(state);
    }
}

impl fmt::Debug for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Game").field(&self.key).finish()
    }
}

impl fmt::Display for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn every_api_game_type_has_one_entry_in_code_order() {
        let codes: Vec<i32> = GAMES.iter().map(|game| game.game_type as i32).collect();
        let api: Vec<i32> = (1..)
            .take_while(|&code| GameType::try_from(code).is_ok())
            .collect();
        assert_eq!(codes, api);
        for game in GAMES {
            assert_eq!(by_type(game.game_type), Some(game));
            assert_eq!(by_key(game.key), Some(game));
        }
        assert_eq!(by_type(GameType::Unspecified), None);
        assert_eq!(by_key("chess"), None);
    }

    #[test]
    fn keys_and_names_are_unique_and_plain() {
        let mut seen = HashSet::new();
        for game in GAMES {
            assert!(seen.insert(game.key), "{} twice", game.key);
            assert!(seen.insert(game.name), "{} twice", game.name);
            // Keys go into Redis keys, room ids and variable names.
            assert!(
                game.key.bytes().all(|b| b.is_ascii_lowercase()),
                "{}",
                game.key
            );
        }
        assert_eq!(keys(), "gomoku or doudizhu");
    }

    #[test]
    fn every_api_role_belongs_to_exactly_one_game() {
        let api: Vec<Role> = (1..).map_while(|code| Role::try_from(code).ok()).collect();
        let mut registered: Vec<Role> = GAMES.iter().flat_map(|game| game.roles.to_vec()).collect();
        registered.sort_by_key(|role| *role as i32);
        assert_eq!(registered, api);
        for role in api {
            assert!(by_role(role).is_some(), "{role:?}");
        }
    }

    #[test]
    fn lineups_fill_the_seats_with_the_games_roles() {
        for game in GAMES {
            assert!(!game.lineups.is_empty(), "{}", game.key);
            for lineup in game.lineups {
                let players: usize = lineup.0.iter().map(|(_, count)| count).sum();
                assert_eq!(players, game.seats, "{}: {lineup:?}", game.key);
                assert!(lineup.0.iter().all(|(role, _)| game.roles.contains(role)));
                let roles: Vec<Role> = lineup
                    .0
                    .iter()
                    .flat_map(|&(role, count)| std::iter::repeat_n(role, count))
                    .collect();
                assert_eq!(game.lineup_of(&roles), Some(lineup));
            }
            for side in game.sides {
                assert!(side.iter().all(|role| game.roles.contains(role)));
            }
            // A game whose lineups can lack sides says how such a game ends.
            let sideless = game.lineups.iter().any(|lineup| !game.has_sides(lineup));
            assert_eq!(
                sideless,
                game.refusals.sideless_results.is_some(),
                "{}",
                game.key
            );
            assert!(
                !game.refusals.results.contains('{')
                    || game.refusals.results.contains("{outcomes}"),
                "{}",
                game.key
            );
        }
        assert_eq!(GOMOKU.lineup_of(&[Role::Black, Role::Black]), None);
        assert_eq!(GOMOKU.lineup_of(&[Role::Black]), None);
        assert_eq!(GOMOKU.role_names(), "ROLE_BLACK or ROLE_WHITE");
    }

    #[test]
    fn each_service_has_its_own_port_and_variables() {
        let mut ports = HashSet::new();
        for game in GAMES {
            let key = game.key.to_ascii_uppercase();
            assert_eq!(game.service.url_var, format!("GAMEHUB_{key}_URL"));
            assert_eq!(game.service.addr_var, format!("GAMEHUB_{key}_ADDR"));
            assert!(ports.insert(game.service.port), "{}", game.key);
            assert!(game.service.name.starts_with(game.key));
        }
    }

    #[test]
    fn rule_sets_are_the_rule_crates() {
        for game in GAMES {
            let names = (game.rule_sets.names)();
            assert!(!names.is_empty(), "{}", game.key);
            for name in names.split(", ") {
                assert_eq!((game.rule_sets.parse)(name), Some(name), "{}", game.key);
            }
            assert_eq!((game.rule_sets.parse)("no-such-rules"), None);
        }
        assert_eq!((GOMOKU.rule_sets.parse)("renju-lose"), Some("renju-lose"));
    }

    #[test]
    fn clocks_have_sensible_bounds_and_boards_are_distinct() {
        let mut boards = HashSet::new();
        for game in GAMES {
            let ranges = match &game.clock {
                ClockKind::PerMoveAndTotal {
                    move_time_ms,
                    total_time_ms,
                } => vec![move_time_ms, total_time_ms],
                ClockKind::PerTurn { turn_time_ms } => vec![turn_time_ms],
            };
            for range in ranges {
                assert!(
                    *range.start() > 0 && range.start() < range.end(),
                    "{}",
                    game.key
                );
            }
            assert!(boards.insert(game.points_board as i32), "{}", game.key);
            assert!(game.most_points_per_base > 0);
            if let WorstLoss::Points(points) = game.worst_loss {
                assert!(points > 0 && points <= game.most_points_per_base);
            }
        }
    }

    #[test]
    fn or_lists_read_as_choices() {
        assert_eq!(or_list([]), "");
        assert_eq!(or_list(["a"]), "a");
        assert_eq!(or_list(["a", "b"]), "a or b");
        assert_eq!(or_list(["a", "b", "c"]), "a, b or c");
    }
}
