//! Tournaments made by configuration: a schedule file (`GAMEHUB_TOURNAMENTS_SCHEDULE`)
//! of daily tournaments, each created by the director a while before its start, and the
//! one way any tournament is created ([`create`], which the API's `CreateTournament`
//! calls too).
//!
//! ```toml
//! [[tournament]]
//! key = "daily-renju"       # names the entry: 1-24 of a-z, 0-9 and -
//! at = "20:00"              # starts every day at this time (UTC)
//! open_minutes = 120        # open for registration this long before (default 60, at most 1,440)
//! name = "每日五子棋赛"
//! game = "gomoku"           # or "doudizhu"
//! room = "gomoku-renju"
//! entry_fee_silver = 100    # the other fields as CreateTournament's settings
//! min_players = 4
//! max_players = 32
//! prize_shares_bp = [5000, 3000, 2000]
//! ```
//!
//! Each day's tournament is created once, whichever replica directs and however often:
//! its request id is `schedule:<key>:<date>`, and creation is idempotent on it.

use chrono::{DateTime, Duration as Days, NaiveTime, Utc};
use gamehub_platform::error::ApiError;
use gamehub_proto::tournament as pb;
use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::peers::Peers;
use crate::settings::{RoomTerms, Settings};
use crate::store::{Store, Versioned};
use crate::tournament::Tournament;

/// The most entries a schedule holds.
pub const MAX_ENTRIES: usize = 100;
/// The longest registration window, in minutes: one day, so one tournament per entry is
/// open at a time.
pub const MAX_OPEN_MINUTES: i64 = 24 * 60;

/// The id of the tournament made by `request_id`: a retry makes the same one.
fn tournament_id(request_id: &str) -> String {
    let digest = Sha256::digest(request_id.as_bytes());
    format!("tn-{}", &hex::encode(digest)[..24])
}

/// Creates the tournament `settings` for `request_id` (or answers the one it made before,
/// `true` = replayed): the room is read from matchmaking and its terms kept with it.
pub async fn create(
    store: &Store,
    peers: &Peers,
    request_id: &str,
    settings: Settings,
    now_ms: i64,
) -> Result<(Versioned, bool), ApiError> {
    let room = peers.room(&settings.room_id).await?;
    let terms = RoomTerms::of(&room, &settings)?;
    let sha256 = settings.sha256();
    let tournament = Tournament::new(
        tournament_id(request_id),
        settings,
        terms,
        rand::random(),
        now_ms,
    );
    let (stored, replayed) = store.create(request_id, &sha256, &tournament).await?;
    if !replayed {
        tracing::info!(tournament_id = %stored.0.id, name = %stored.0.settings.name, %request_id, "tournament created");
    }
    Ok((stored, replayed))
}

/// One entry of the schedule file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    key: String,
    at: String,
    #[serde(default = "default_open_minutes")]
    open_minutes: i64,
    name: String,
    game: String,
    room: String,
    #[serde(default)]
    format: Option<String>,
    #[serde(default)]
    entry_fee_silver: i64,
    min_players: i32,
    max_players: i32,
    #[serde(default)]
    rounds: i32,
    #[serde(default)]
    deals_per_round: i32,
    #[serde(default)]
    starting_chips: i64,
    #[serde(default)]
    prize_shares_bp: Vec<i32>,
    #[serde(default)]
    unrated: bool,
}

fn default_open_minutes() -> i64 {
    60
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    tournament: Vec<Entry>,
}

/// A daily tournament, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Daily {
    key: String,
    at: NaiveTime,
    open_minutes: i64,
    settings: pb::TournamentSettings,
}

/// The schedule: daily tournaments.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Schedule {
    entries: Vec<Daily>,
}

impl Schedule {
    /// Reads a schedule file's text; an error names the entry and the field.
    pub fn parse(text: &str) -> Result<Self, String> {
        let file: File = toml::from_str(text).map_err(|e| e.to_string())?;
        if file.tournament.len() > MAX_ENTRIES {
            return Err(format!(
                "{} entries: at most {MAX_ENTRIES}",
                file.tournament.len()
            ));
        }
        let mut entries: Vec<Daily> = Vec::new();
        for entry in file.tournament {
            let key = entry.key.clone();
            let named = |problem: String| format!("tournament {key:?}: {problem}");
            let valid_key = (1..=24).contains(&key.len())
                && key
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
            if !valid_key {
                return Err(named("key: 1-24 characters of a-z, 0-9 and -".into()));
            }
            if entries.iter().any(|e| e.key == key) {
                return Err(named("key: used twice".into()));
            }
            let at = NaiveTime::parse_from_str(&entry.at, "%H:%M").map_err(|_| {
                named(format!(
                    "at: {:?} is not a time of day like 20:00",
                    entry.at
                ))
            })?;
            if !(1..=MAX_OPEN_MINUTES).contains(&entry.open_minutes) {
                return Err(named(format!(
                    "open_minutes: must be 1 to {MAX_OPEN_MINUTES}"
                )));
            }
            // The game registry names the games, not this file.
            let game_type = gamehub_terms::games::by_key(&entry.game)
                .map(|game| game.game_type)
                .ok_or_else(|| {
                    named(format!(
                        "game: {:?} is not {}",
                        entry.game,
                        gamehub_terms::games::keys()
                    ))
                })?;
            let format = match entry.format.as_deref() {
                None => pb::Format::Unspecified,
                Some("swiss") => pb::Format::Swiss,
                Some("elimination") => pb::Format::Elimination,
                Some(other) => {
                    return Err(named(format!(
                        "format: {other:?} is not swiss or elimination"
                    )));
                }
            };
            let settings = pb::TournamentSettings {
                name: entry.name,
                game_type: game_type as i32,
                room_id: entry.room,
                format: format as i32,
                entry_fee_silver: entry.entry_fee_silver,
                min_players: entry.min_players,
                max_players: entry.max_players,
                // Set for each day's tournament.
                starts_at_unix_ms: 0,
                rounds: entry.rounds,
                deals_per_round: entry.deals_per_round,
                starting_chips: entry.starting_chips,
                prize_shares_bp: entry.prize_shares_bp,
                unrated: entry.unrated,
            };
            Settings::parse(&settings).map_err(|e| named(e.to_string()))?;
            entries.push(Daily {
                key,
                at,
                open_minutes: entry.open_minutes,
                settings,
            });
        }
        Ok(Self { entries })
    }

    /// Whether the schedule has no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The tournaments to have been created by `now`: each entry's next start that is
    /// within its registration window, with the request id that makes it.
    pub fn due(&self, now: DateTime<Utc>) -> Vec<(String, Settings)> {
        self.entries
            .iter()
            .filter_map(|entry| {
                let today = now.date_naive().and_time(entry.at).and_utc();
                let start = if today > now {
                    today
                } else {
                    today + Days::days(1)
                };
                if now < start - Days::minutes(entry.open_minutes) {
                    return None;
                }
                let request_id = format!("schedule:{}:{}", entry.key, start.format("%Y-%m-%d"));
                let settings = pb::TournamentSettings {
                    starts_at_unix_ms: start.timestamp_millis(),
                    ..entry.settings.clone()
                };
                // Checked when the file was read; only the start time differs.
                Settings::parse(&settings).ok().map(|s| (request_id, s))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn a_retry_makes_the_same_tournament_id() {
        assert_eq!(tournament_id("r-1"), tournament_id("r-1"));
        assert_ne!(tournament_id("r-1"), tournament_id("r-2"));
        assert_eq!(tournament_id("r-1").len(), 27);
    }

    const DAILY: &str = r#"
[[tournament]]
key = "daily-renju"
at = "20:00"
open_minutes = 120
name = "每日五子棋赛"
game = "gomoku"
room = "gomoku-renju"
entry_fee_silver = 100
min_players = 4
max_players = 32
prize_shares_bp = [5000, 3000, 2000]
"#;

    #[test]
    fn a_daily_tournament_is_due_in_its_window_once_per_day() {
        let schedule = Schedule::parse(DAILY).expect("valid");
        let at = |h, m| {
            Utc.with_ymd_and_hms(2026, 12, 6, h, m, 0)
                .single()
                .expect("a time")
        };
        assert!(schedule.due(at(17, 59)).is_empty(), "not open yet");
        let due = schedule.due(at(18, 0));
        assert_eq!(due.len(), 1);
        let (request_id, settings) = &due[0];
        assert_eq!(request_id, "schedule:daily-renju:2026-12-06");
        assert_eq!(settings.starts_at_ms, at(20, 0).timestamp_millis());
        assert_eq!(settings.prize_shares_bp, vec![5000, 3000, 2000]);
        // Still the same day's until its start; then the next day's, once its window opens.
        assert_eq!(schedule.due(at(19, 59))[0].0, request_id.clone());
        assert!(schedule.due(at(20, 0)).is_empty());
        let tomorrow = Utc
            .with_ymd_and_hms(2026, 12, 7, 18, 30, 0)
            .single()
            .expect("a time");
        assert_eq!(
            schedule.due(tomorrow)[0].0,
            "schedule:daily-renju:2026-12-07"
        );
    }

    #[test]
    fn a_bad_entry_is_refused_naming_it_and_the_field() {
        for (change, field) in [
            (("at = \"20:00\"", "at = \"8pm\""), "at"),
            (("game = \"gomoku\"", "game = \"chess\""), "game"),
            (
                ("max_players = 32", "max_players = 1"),
                "settings.max_players",
            ),
            (
                ("open_minutes = 120", "open_minutes = 9999"),
                "open_minutes",
            ),
            (("key = \"daily-renju\"", "key = \"Daily Renju\""), "key"),
        ] {
            let text = DAILY.replace(change.0, change.1);
            let err = Schedule::parse(&text).expect_err(field);
            assert!(err.contains(field), "{err} should name {field}");
        }
        let twice = format!("{DAILY}{DAILY}");
        assert!(
            Schedule::parse(&twice)
                .expect_err("twice")
                .contains("used twice")
        );
        assert!(Schedule::parse("[[tournament]]\nkey = \"x\"\nsurprise = 1\n").is_err());
        assert!(Schedule::parse("").expect("empty").is_empty());
    }
}
