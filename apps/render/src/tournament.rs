//! Tournaments (比赛) as text, the pieces the operator's desk and the terminal client
//! print alike: states, formats, games, prize tables, places, scores and the start.
//! Pure formatting: the callers fetch and lay the lines out.

use gamehub_proto::common::GameType;
use gamehub_proto::tournament as tn;

use crate::ledger;

/// A state as the enum (unknown: unspecified).
pub fn state_of(state: i32) -> tn::State {
    tn::State::try_from(state).unwrap_or(tn::State::Unspecified)
}

/// A state as a word: `registering`, `running`, `finished`, `cancelled`.
pub fn state_word(state: i32) -> &'static str {
    match state_of(state) {
        tn::State::Registering => "registering",
        tn::State::Running => "running",
        tn::State::Finished => "finished",
        tn::State::Cancelled => "cancelled",
        tn::State::Unspecified => "?",
    }
}

/// The format the tournament plays (unset: the game's, elimination for Dou Dizhu and
/// Swiss otherwise).
pub fn format_of(settings: &tn::TournamentSettings) -> tn::Format {
    match tn::Format::try_from(settings.format).unwrap_or(tn::Format::Unspecified) {
        tn::Format::Unspecified if settings.game_type == GameType::Doudizhu as i32 => {
            tn::Format::Elimination
        }
        tn::Format::Unspecified => tn::Format::Swiss,
        format => format,
    }
}

/// A format's name: `Swiss (瑞士制)`, `elimination rounds (打立出局)`.
pub fn format_word(format: tn::Format) -> &'static str {
    match format {
        tn::Format::Elimination => "elimination rounds (打立出局)",
        _ => "Swiss (瑞士制)",
    }
}

/// The game the tournament plays, by name (`Gomoku`, `Dou Dizhu`).
pub fn game_word(settings: &tn::TournamentSettings) -> &'static str {
    ledger::game_name(GameType::try_from(settings.game_type).unwrap_or(GameType::Unspecified))
}

/// Basis points as a percentage: 5000 → `50%`, 1250 → `12.5%`, 3333 → `33.33%`.
pub fn percent(bp: i32) -> String {
    let text = format!("{}.{:02}", bp / 100, (bp % 100).abs());
    format!("{}%", text.trim_end_matches('0').trim_end_matches('.'))
}

/// A place: 1 → `1st`, 2 → `2nd`, 3 → `3rd`, 11 → `11th`, 23 → `23rd`.
pub fn ordinal(n: i32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The prize table in percentages of the pool: `1st 50% · 2nd 30% · 3rd 20%`, or the
/// winner takes the pool.
pub fn prize_table(shares_bp: &[i32]) -> String {
    if shares_bp.is_empty() {
        return "the winner takes the pool".into();
    }
    shares_bp
        .iter()
        .zip(1..)
        .map(|(bp, place)| format!("{} {}", ordinal(place), percent(*bp)))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// A score or tie-break: `1`, `2.5`, `3.25`.
pub fn score(x: f64) -> String {
    let text = format!("{x:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// A count with its noun: `1 round`, `3 rounds`.
pub fn count(n: i32, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// How far off `at_ms` is: `in 3h`, `in 5m`, `now`.
fn until(now_ms: i64, at_ms: i64) -> String {
    match (at_ms - now_ms) / 1000 {
        s if s <= 0 => "now".into(),
        s if s < 120 => format!("in {s}s"),
        s if s < 7200 => format!("in {}m", s / 60),
        s if s < 172_800 => format!("in {}h", s / 3600),
        s => format!("in {}d", s / 86_400),
    }
}

/// When it starts: `when full (sit-and-go)`, or the time and how far off
/// (`2026-12-05 12:00 UTC (in 3h)`).
pub fn starts_text(settings: &tn::TournamentSettings, now_ms: i64) -> String {
    if settings.starts_at_unix_ms == 0 {
        "when full (sit-and-go)".into()
    } else {
        format!(
            "{} ({})",
            ledger::when(settings.starts_at_unix_ms),
            until(now_ms, settings.starts_at_unix_ms)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basis_points_read_as_percentages_and_places_as_ordinals() {
        assert_eq!(percent(5000), "50%");
        assert_eq!(percent(1250), "12.5%");
        assert_eq!(percent(6250), "62.5%");
        assert_eq!(percent(3333), "33.33%");
        assert_eq!(percent(1), "0.01%");
        assert_eq!(percent(10_000), "100%");
        assert_eq!(
            prize_table(&[5000, 3000, 2000]),
            "1st 50% · 2nd 30% · 3rd 20%"
        );
        assert_eq!(prize_table(&[]), "the winner takes the pool");
        assert_eq!(
            [1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101].map(ordinal),
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st"
            ]
        );
    }

    #[test]
    fn scores_and_counts_read_short() {
        assert_eq!(score(1.0), "1");
        assert_eq!(score(2.5), "2.5");
        assert_eq!(score(3.25), "3.25");
        assert_eq!(score(0.0), "0");
        assert_eq!(count(1, "round"), "1 round");
        assert_eq!(count(3, "round"), "3 rounds");
        assert_eq!(count(0, "round"), "0 rounds");
    }

    #[test]
    fn the_format_is_the_games_unless_set() {
        let ddz = tn::TournamentSettings {
            game_type: GameType::Doudizhu as i32,
            ..Default::default()
        };
        assert_eq!(format_of(&ddz), tn::Format::Elimination);
        assert_eq!(
            format_word(format_of(&ddz)),
            "elimination rounds (打立出局)"
        );
        assert_eq!(game_word(&ddz), "Dou Dizhu");
        let gomoku = tn::TournamentSettings {
            game_type: GameType::Gomoku as i32,
            ..Default::default()
        };
        assert_eq!(format_of(&gomoku), tn::Format::Swiss);
        assert_eq!(format_word(format_of(&gomoku)), "Swiss (瑞士制)");
        assert_eq!(state_word(tn::State::Registering as i32), "registering");
        assert_eq!(state_word(99), "?");
    }

    #[test]
    fn the_start_is_when_full_or_a_time_and_how_far_off() {
        let mut settings = tn::TournamentSettings::default();
        assert_eq!(starts_text(&settings, 0), "when full (sit-and-go)");
        settings.starts_at_unix_ms = 3_600_000 * 3;
        assert_eq!(starts_text(&settings, 0), "1970-01-01 03:00 UTC (in 3h)");
        assert_eq!(
            starts_text(&settings, 3_600_000 * 4),
            "1970-01-01 03:00 UTC (now)"
        );
    }
}
