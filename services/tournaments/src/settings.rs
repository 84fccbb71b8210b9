//! What an operator decides when creating a tournament, checked once at the edge
//! ([`Settings::parse`]), and the terms of its room as they were at creation
//! ([`RoomTerms`]): a tournament keeps playing by them even if the rooms file changes.

use gamehub_platform::error::{ApiError, invalid, required};
use gamehub_proto::common::{GameType, RoomStakes};
use gamehub_proto::matchmaking as mm;
use gamehub_proto::tournament as pb;
use gamehub_terms::games::{self, ClockKind, Game, TimeControl};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tournament_rules::prizes::PrizeTable;
use tournament_rules::{MAX_PLAYERS, elimination, swiss};

/// The longest tournament name.
pub const MAX_NAME_CHARS: usize = 64;
/// The largest entry fee.
pub const MAX_ENTRY_FEE_SILVER: i64 = 1_000_000_000;
/// The most deals a table plays in one elimination round.
pub const MAX_DEALS_PER_ROUND: u16 = 12;
/// Deals per elimination round when the settings say 0.
pub const DEFAULT_DEALS_PER_ROUND: u16 = 3;
/// The most chips an elimination player starts with.
pub const MAX_STARTING_CHIPS: i64 = 1_000_000;
/// Chips each elimination player starts with when the settings say 0.
pub const DEFAULT_STARTING_CHIPS: i64 = 1_000;

/// How players meet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Format {
    /// Swiss rounds, for a game of two ([`tournament_rules::swiss`]).
    Swiss,
    /// Elimination rounds, for a game of three ([`tournament_rules::elimination`]).
    Elimination,
}

impl Format {
    /// The format a game plays when the settings name none: Swiss for two seats,
    /// elimination rounds for three.
    fn of(game: &Game) -> Option<Self> {
        match game.seats {
            2 => Some(Self::Swiss),
            n if n == usize::from(elimination::TABLE_SEATS) => Some(Self::Elimination),
            _ => None,
        }
    }

    fn seats(self) -> usize {
        match self {
            Self::Swiss => 2,
            Self::Elimination => usize::from(elimination::TABLE_SEATS),
        }
    }

    pub fn to_proto(self) -> pb::Format {
        match self {
            Self::Swiss => pb::Format::Swiss,
            Self::Elimination => pb::Format::Elimination,
        }
    }
}

/// A tournament's settings, defaults filled in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    pub name: String,
    /// The game's registry key.
    pub game: String,
    pub room_id: String,
    pub format: Format,
    pub entry_fee_silver: i64,
    pub min_players: u16,
    pub max_players: u16,
    /// 0: when full.
    pub starts_at_ms: i64,
    /// Swiss: 0 until the start fixes it.
    pub rounds: u16,
    /// Elimination only (0 for Swiss).
    pub deals_per_round: u16,
    /// Elimination only (0 for Swiss).
    pub starting_chips: i64,
    pub prize_shares_bp: Vec<u32>,
    pub unrated: bool,
}

impl Settings {
    /// Checks `settings` (each problem named by its field under `settings.`).
    pub fn parse(settings: &pb::TournamentSettings) -> Result<Self, ApiError> {
        let name = required("settings.name", &settings.name, MAX_NAME_CHARS)?.to_owned();
        if name.chars().any(char::is_control) {
            return Err(invalid("settings.name", "has control characters"));
        }
        let game = GameType::try_from(settings.game_type)
            .ok()
            .and_then(games::by_type)
            .ok_or_else(|| {
                invalid(
                    "settings.game_type",
                    "name a game (GAME_TYPE_GOMOKU or GAME_TYPE_DOUDIZHU)",
                )
            })?;
        let room_id =
            gamehub_platform::error::id("settings.room_id", &settings.room_id, 32)?.to_owned();
        let default_format = Format::of(game).ok_or_else(|| {
            invalid(
                "settings.game_type",
                format!("{} has no tournament format", game.name),
            )
        })?;
        let format = match pb::Format::try_from(settings.format) {
            Ok(pb::Format::Unspecified) => default_format,
            Ok(pb::Format::Swiss) => Format::Swiss,
            Ok(pb::Format::Elimination) => Format::Elimination,
            Err(_) => return Err(invalid("settings.format", "unknown format")),
        };
        if format.seats() != game.seats {
            return Err(invalid(
                "settings.format",
                format!(
                    "{} is played by {} at a table; this format needs {}",
                    game.name,
                    game.seats,
                    format.seats()
                ),
            ));
        }
        if !(0..=MAX_ENTRY_FEE_SILVER).contains(&settings.entry_fee_silver) {
            return Err(invalid(
                "settings.entry_fee_silver",
                format!("must be 0 to {MAX_ENTRY_FEE_SILVER}"),
            ));
        }
        let fewest = match format {
            Format::Swiss => 2,
            Format::Elimination => i32::from(elimination::TABLE_SEATS),
        };
        let max_players = u16::try_from(settings.max_players)
            .ok()
            .filter(|&m| i32::from(m) >= fewest && m <= MAX_PLAYERS)
            .ok_or_else(|| {
                invalid(
                    "settings.max_players",
                    format!("must be {fewest} to {MAX_PLAYERS}"),
                )
            })?;
        let min_players = u16::try_from(settings.min_players)
            .ok()
            .filter(|&m| i32::from(m) >= fewest && m <= max_players)
            .ok_or_else(|| {
                invalid(
                    "settings.min_players",
                    format!("must be {fewest} to max_players ({max_players})"),
                )
            })?;
        if format == Format::Elimination && !max_players.is_multiple_of(elimination::TABLE_SEATS) {
            return Err(invalid(
                "settings.max_players",
                "must be a multiple of 3: whole tables of three",
            ));
        }
        if settings.starts_at_unix_ms < 0 {
            return Err(invalid(
                "settings.starts_at_unix_ms",
                "must be a time (Unix ms) or 0 for when full",
            ));
        }
        let (rounds, deals_per_round, starting_chips) = match format {
            Format::Swiss => {
                if settings.deals_per_round != 0 || settings.starting_chips != 0 {
                    let field = if settings.deals_per_round != 0 {
                        "settings.deals_per_round"
                    } else {
                        "settings.starting_chips"
                    };
                    return Err(invalid(
                        field,
                        "is for elimination rounds; leave it 0 for Swiss",
                    ));
                }
                let rounds = u16::try_from(settings.rounds)
                    .ok()
                    .filter(|&r| r <= swiss::MAX_ROUNDS)
                    .ok_or_else(|| {
                        invalid(
                            "settings.rounds",
                            format!("must be 0 (⌈log2 players⌉ + 1) to {}", swiss::MAX_ROUNDS),
                        )
                    })?;
                (rounds, 0, 0)
            }
            Format::Elimination => {
                if settings.rounds != 0 {
                    return Err(invalid(
                        "settings.rounds",
                        "must be 0 for elimination rounds: the number of players decides",
                    ));
                }
                let deals = match settings.deals_per_round {
                    0 => DEFAULT_DEALS_PER_ROUND,
                    d => u16::try_from(d)
                        .ok()
                        .filter(|&d| (1..=MAX_DEALS_PER_ROUND).contains(&d))
                        .ok_or_else(|| {
                            invalid(
                                "settings.deals_per_round",
                                format!("must be 0 (3) to {MAX_DEALS_PER_ROUND}"),
                            )
                        })?,
                };
                let chips = match settings.starting_chips {
                    0 => DEFAULT_STARTING_CHIPS,
                    c if (1..=MAX_STARTING_CHIPS).contains(&c) => c,
                    _ => {
                        return Err(invalid(
                            "settings.starting_chips",
                            format!("must be 0 (1,000) to {MAX_STARTING_CHIPS}"),
                        ));
                    }
                };
                (0, deals, chips)
            }
        };
        let shares: Vec<u32> = settings
            .prize_shares_bp
            .iter()
            .map(|&s| u32::try_from(s).unwrap_or(0))
            .collect();
        let prize_shares_bp = if shares.is_empty() {
            PrizeTable::winner_takes_all().shares_bp().to_vec()
        } else {
            PrizeTable::new(shares)
                .map_err(|e| invalid("settings.prize_shares_bp", e))?
                .shares_bp()
                .to_vec()
        };
        Ok(Self {
            name,
            game: game.key.to_owned(),
            room_id,
            format,
            entry_fee_silver: settings.entry_fee_silver,
            min_players,
            max_players,
            starts_at_ms: settings.starts_at_unix_ms,
            rounds,
            deals_per_round,
            starting_chips,
            prize_shares_bp,
            unrated: settings.unrated,
        })
    }

    /// The game.
    pub fn game(&self) -> &'static Game {
        games::by_key(&self.game).unwrap_or(&games::GOMOKU)
    }

    /// The prize table (checked when the settings were parsed).
    pub fn prize_table(&self) -> PrizeTable {
        PrizeTable::new(self.prize_shares_bp.clone())
            .unwrap_or_else(|_| PrizeTable::winner_takes_all())
    }

    /// The SHA-256 of the settings as parsed, for the idempotency of creation.
    pub fn sha256(&self) -> [u8; 32] {
        Sha256::digest(serde_json::to_vec(self).unwrap_or_default()).into()
    }

    pub fn to_proto(&self, rounds_total: u16) -> pb::TournamentSettings {
        pb::TournamentSettings {
            name: self.name.clone(),
            game_type: self.game().game_type as i32,
            room_id: self.room_id.clone(),
            format: self.format.to_proto() as i32,
            entry_fee_silver: self.entry_fee_silver,
            min_players: i32::from(self.min_players),
            max_players: i32::from(self.max_players),
            starts_at_unix_ms: self.starts_at_ms,
            rounds: i32::from(if self.rounds == 0 {
                rounds_total
            } else {
                self.rounds
            }),
            deals_per_round: i32::from(self.deals_per_round),
            starting_chips: self.starting_chips,
            prize_shares_bp: self
                .prize_shares_bp
                .iter()
                .map(|&s| i32::try_from(s).unwrap_or(i32::MAX))
                .collect(),
            unrated: self.unrated,
        }
    }
}

/// The terms of the room a tournament plays in, as they were when it was created.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomTerms {
    pub rule_set: String,
    pub move_time_ms: u64,
    pub total_time_ms: u64,
    pub turn_time_ms: u64,
    pub points_base: i64,
    pub rated: bool,
    pub designated_opening: String,
}

impl RoomTerms {
    /// The terms of `room`, for a tournament of `settings` (the room must play its game).
    pub fn of(room: &mm::Room, settings: &Settings) -> Result<Self, ApiError> {
        let game = settings.game();
        if room.game_type != game.game_type as i32 {
            return Err(ApiError::FailedPrecondition(format!(
                "settings.room_id: room {} does not play {}",
                room.room_id, game.name
            )));
        }
        let clock = room.time_control.unwrap_or_default();
        let stakes = room.stakes.clone().unwrap_or_default();
        let millis = |ms: i64| u64::try_from(ms).unwrap_or(0);
        Ok(Self {
            rule_set: room.rule_set.clone(),
            move_time_ms: millis(clock.move_time_ms),
            total_time_ms: millis(clock.total_time_ms),
            turn_time_ms: millis(clock.turn_time_ms),
            points_base: stakes.points_base,
            rated: stakes.rated && !settings.unrated,
            designated_opening: room.designated_opening.clone(),
        })
    }

    /// The stakes a tournament table opens with: the room's points base, no silver.
    pub fn stakes(&self, room_id: &str) -> RoomStakes {
        RoomStakes {
            room_id: room_id.to_owned(),
            points_base: self.points_base,
            silver_per_point: 0,
            min_balance_silver: 0,
            rated: self.rated,
        }
    }

    /// The clock, of the kind the game's registry entry gives.
    pub fn time_control(&self, game: &Game) -> TimeControl {
        match game.clock {
            ClockKind::PerMoveAndTotal { .. } => TimeControl::PerMoveAndTotal {
                move_time_ms: self.move_time_ms,
                total_time_ms: self.total_time_ms,
            },
            ClockKind::PerTurn { .. } => TimeControl::PerTurn {
                turn_time_ms: self.turn_time_ms,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn swiss() -> pb::TournamentSettings {
        pb::TournamentSettings {
            name: "Weekend open".into(),
            game_type: GameType::Gomoku as i32,
            room_id: "gomoku-renju".into(),
            min_players: 4,
            max_players: 16,
            ..Default::default()
        }
    }

    #[test]
    fn defaults_fill_in_the_format_and_the_prizes() {
        let s = Settings::parse(&swiss()).expect("valid");
        assert_eq!(s.format, Format::Swiss);
        assert_eq!(s.prize_shares_bp, vec![10_000]);
        let ddz = pb::TournamentSettings {
            game_type: GameType::Doudizhu as i32,
            room_id: "doudizhu-classic".into(),
            min_players: 3,
            max_players: 9,
            ..swiss()
        };
        let s = Settings::parse(&ddz).expect("valid");
        assert_eq!(
            (s.format, s.deals_per_round, s.starting_chips),
            (Format::Elimination, 3, 1000)
        );
    }

    #[test]
    fn bad_settings_name_their_field() {
        let cases = [
            (
                pb::TournamentSettings {
                    name: String::new(),
                    ..swiss()
                },
                "settings.name",
            ),
            (
                pb::TournamentSettings {
                    max_players: 1,
                    ..swiss()
                },
                "settings.max_players",
            ),
            (
                pb::TournamentSettings {
                    min_players: 17,
                    ..swiss()
                },
                "settings.min_players",
            ),
            (
                pb::TournamentSettings {
                    deals_per_round: 2,
                    ..swiss()
                },
                "settings.deals_per_round",
            ),
            (
                pb::TournamentSettings {
                    prize_shares_bp: vec![5000, 6000],
                    ..swiss()
                },
                "settings.prize_shares_bp",
            ),
            (
                pb::TournamentSettings {
                    format: pb::Format::Elimination as i32,
                    ..swiss()
                },
                "settings.format",
            ),
            (
                pb::TournamentSettings {
                    entry_fee_silver: -1,
                    ..swiss()
                },
                "settings.entry_fee_silver",
            ),
            (
                pb::TournamentSettings {
                    game_type: GameType::Doudizhu as i32,
                    min_players: 3,
                    max_players: 10,
                    ..swiss()
                },
                "settings.max_players",
            ),
        ];
        for (settings, field) in cases {
            let err = Settings::parse(&settings).expect_err(field);
            assert!(
                err.to_string().starts_with(field),
                "{err} should name {field}"
            );
        }
    }
}
