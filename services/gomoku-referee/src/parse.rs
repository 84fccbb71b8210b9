//! Requests parsed into domain types once, at the edge: ids, points, rule sets, clocks,
//! stakes. Every error names the proto field and says what to send instead.

use gamehub_proto::common::{PlayerProfile, RoomStakes};
use gamehub_proto::gomoku as pb;
use gamehub_terms::Stakes;
use gomoku_rules::{GameError, OpeningChoice, Point, RuleSet, Seat, TimeControl};

use crate::error::RefereeError;
use crate::table::{OpenTable, Profile, Room};

/// Ids (tables, requests, players, rooms) are at most this long.
pub use gamehub_terms::ids::MAX_ID_LEN;
/// The longest point text (`h15` is 3; surrounding blanks are allowed).
pub const MAX_POINT_TEXT_CHARS: usize = 8;
/// The longest clock limit a room may set: one day.
pub const MAX_CLOCK_MS: i64 = 24 * 3600 * 1000;
/// The shortest non-zero clock limit a room may set. Tests use short clocks; a real
/// room sets seconds at least.
pub const MIN_CLOCK_MS: i64 = 100;

/// An id field: 1–64 characters of ASCII letters, digits and `- _ . : @`.
pub fn id(field: &str, value: &str) -> Result<String, RefereeError> {
    gamehub_terms::ids::check(value, MAX_ID_LEN)
        .map(str::to_owned)
        .map_err(|problem| RefereeError::invalid(field, problem))
}

/// A table id.
pub fn table_id(value: &str) -> Result<String, RefereeError> {
    id("table_id", value)
}

/// A client's request id (idempotency key).
pub fn request_id(value: &str) -> Result<String, RefereeError> {
    id("request_id", value)
}

/// A point: `text` ("h8") when set, else (`x`, `y`) from 0.
pub fn point(field: &str, value: Option<&pb::Point>) -> Result<Point, RefereeError> {
    let Some(value) = value else {
        return Err(RefereeError::invalid(
            field,
            "is required: send {text: \"h8\"} or {x: 7, y: 7}",
        ));
    };
    if value.text.chars().count() > MAX_POINT_TEXT_CHARS {
        return Err(RefereeError::invalid(
            format!("{field}.text"),
            format!("is longer than {MAX_POINT_TEXT_CHARS} characters (a point is like h8)"),
        ));
    }
    if value.text.trim().is_empty() {
        Point::from_xy(i64::from(value.x), i64::from(value.y))
            .map_err(|e| RefereeError::invalid(field, e))
    } else {
        Point::parse(&value.text).map_err(|e| RefereeError::invalid(field, e))
    }
}

/// Black's two fifth-move proposals.
pub fn proposals(values: &[pb::Point]) -> Result<[Point; 2], RefereeError> {
    match values {
        [a, b] => Ok([point("points[0]", Some(a))?, point("points[1]", Some(b))?]),
        other => Err(RefereeError::invalid(
            "points",
            format!("exactly two points are proposed, not {}", other.len()),
        )),
    }
}

/// A rule set from the proto enum.
pub fn rule_set(field: &str, value: i32) -> Result<RuleSet, RefereeError> {
    gamehub_terms::rule_sets::gomoku_from_proto(value).ok_or_else(|| {
        RefereeError::invalid(
            field,
            format!(
                "is required: one of {}",
                gamehub_terms::rule_sets::gomoku_proto_names().join(", ")
            ),
        )
    })
}

fn clock_limit(field: &str, value: i64) -> Result<u64, RefereeError> {
    if value == 0 || (MIN_CLOCK_MS..=MAX_CLOCK_MS).contains(&value) {
        Ok(value.unsigned_abs())
    } else {
        Err(RefereeError::invalid(
            field,
            format!("must be 0 (no limit) or {MIN_CLOCK_MS} ms to {MAX_CLOCK_MS} ms, not {value}"),
        ))
    }
}

/// A room's clock.
pub fn time_control(value: Option<&pb::TimeControl>) -> Result<TimeControl, RefereeError> {
    let value = value.ok_or_else(|| {
        RefereeError::invalid(
            "time_control",
            "is required (per_move_ms and total_ms, 0 for no limit)",
        )
    })?;
    Ok(TimeControl {
        per_move_ms: clock_limit("time_control.per_move_ms", value.per_move_ms)?,
        total_ms: clock_limit("time_control.total_ms", value.total_ms)?,
    })
}

/// A seat number (0 or 1).
pub fn seat(field: &str, value: i32) -> Result<Seat, RefereeError> {
    u8::try_from(value)
        .ok()
        .and_then(Seat::new)
        .ok_or_else(|| RefereeError::invalid(field, format!("must be 0 or 1, not {value}")))
}

/// A finished game's number at a table (0: the last one).
pub fn game_number(value: i32) -> Result<u32, RefereeError> {
    u32::try_from(value).map_err(|_| {
        RefereeError::invalid(
            "game_number",
            "must be 0 (the last finished game) or a game number",
        )
    })
}

/// A record format.
pub fn record_format(value: i32) -> Result<pb::RecordFormat, RefereeError> {
    match pb::RecordFormat::try_from(value) {
        Ok(pb::RecordFormat::Unspecified) | Err(_) => Err(RefereeError::invalid(
            "format",
            "is required: RECORD_FORMAT_TEXT or RECORD_FORMAT_PSQ",
        )),
        Ok(format) => Ok(format),
    }
}

fn stakes(value: Option<&RoomStakes>) -> Result<Room, RefereeError> {
    let value = value.ok_or_else(|| {
        RefereeError::invalid(
            "stakes",
            "is required (room_id, points_base, silver_per_point)",
        )
    })?;
    // The bounds every service holds stakes to: a table opens only with stakes the
    // ledger will settle.
    let stakes = Stakes::from_proto(value)
        .map_err(|e| RefereeError::invalid(format!("stakes.{}", e.field), e.problem))?;
    Ok(Room {
        stakes,
        rule_set: RuleSet::Freestyle,
        time_control: TimeControl::UNLIMITED,
        designated_opening: None,
        paired_games: false,
    })
}

/// The longest `designated_opening` ("random", an id, a number, a code or a Chinese
/// name all fit).
pub const MAX_OPENING_LEN: usize = 32;

/// How a table's games start (`designated_opening`): None from an empty board, else
/// random or one opening; only under rules that have openings.
pub fn designated_opening(
    value: &str,
    rule_set: RuleSet,
) -> Result<Option<OpeningChoice>, RefereeError> {
    const FIELD: &str = "designated_opening";
    if value.chars().count() > MAX_OPENING_LEN {
        return Err(RefereeError::invalid(
            FIELD,
            format!("is longer than {MAX_OPENING_LEN} characters"),
        ));
    }
    if value.trim().is_empty() {
        return Ok(None);
    }
    let choice = OpeningChoice::parse(value)
        .map_err(|e| RefereeError::invalid(FIELD, format!("{e}; or \"random\"")))?;
    if !rule_set.allows_openings() {
        return Err(RefereeError::invalid(
            FIELD,
            GameError::OpeningNotAllowed { rule_set },
        ));
    }
    Ok(Some(choice))
}

/// An OpenTable request.
pub fn open_table(request: &pb::OpenTableRequest) -> Result<OpenTable, RefereeError> {
    let request_id = request_id(&request.request_id)?;
    let mut room = stakes(request.stakes.as_ref())?;
    room.rule_set = rule_set("rule_set", request.rule_set)?;
    room.time_control = time_control(request.time_control.as_ref())?;
    room.designated_opening = designated_opening(&request.designated_opening, room.rule_set)?;
    room.paired_games = request.paired_games;
    let players = match request.player_ids.as_slice() {
        [a, b] => [id("player_ids[0]", a)?, id("player_ids[1]", b)?],
        other => {
            return Err(RefereeError::invalid(
                "player_ids",
                format!("a table seats exactly two players, not {}", other.len()),
            ));
        }
    };
    if players[0] == players[1] {
        return Err(RefereeError::invalid(
            "player_ids",
            "the two players must be different",
        ));
    }
    let first_black_seat = seat("first_black_seat", request.first_black_seat)?;
    let profiles = profiles(&request.profiles)?;
    let bot_seat = bot_seat(&request.bot_seats, &players)?;
    if bot_seat.is_some() && !(request.friends_table && room.stakes.is_free()) {
        return Err(RefereeError::invalid(
            "bot_seats",
            "the platform's bots sit only at friends' tables of free rooms",
        ));
    }
    Ok(OpenTable {
        request_id,
        room,
        players,
        first_black_seat,
        profiles,
        bot_seat,
        friends_table: request.friends_table,
    })
}

pub use gamehub_terms::names::{BOT_ID_PREFIX, MAX_NAME_CHARS, MAX_TITLE_CHARS};

/// How the players are shown: none, or one per seat. The ledger checked the names;
/// here only their bounds hold (`bot` is the referee's to say).
pub fn profiles(values: &[PlayerProfile]) -> Result<Option<[Profile; 2]>, RefereeError> {
    let check = |i: usize, field: &str, value: &str, max: usize| {
        if value.chars().count() > max {
            Err(RefereeError::invalid(
                format!("profiles[{i}].{field}"),
                format!("is longer than {max} characters"),
            ))
        } else {
            Ok(value.to_owned())
        }
    };
    let profile = |i: usize, p: &PlayerProfile| -> Result<Profile, RefereeError> {
        Ok(Profile {
            name: check(i, "name", &p.name, MAX_NAME_CHARS)?,
            title: check(i, "title", &p.title, MAX_TITLE_CHARS)?,
            rating: p.rating,
            rank_name: check(i, "rank_name", &p.rank_name, MAX_TITLE_CHARS)?,
        })
    };
    match values {
        [] => Ok(None),
        [a, b] => Ok(Some([profile(0, a)?, profile(1, b)?])),
        other => Err(RefereeError::invalid(
            "profiles",
            format!("send none or one per player (2), not {}", other.len()),
        )),
    }
}

/// The seat the referee's bot plays: none, or one seat whose player is a bot.
pub fn bot_seat(values: &[i32], players: &[String; 2]) -> Result<Option<Seat>, RefereeError> {
    match values {
        [] => Ok(None),
        [value] => {
            let bot = seat("bot_seats[0]", *value)?;
            let player = &players[bot.index()];
            if !player.starts_with(BOT_ID_PREFIX) {
                return Err(RefereeError::invalid(
                    "bot_seats[0]",
                    format!(
                        "seat {value}'s player {player} is not a bot: a bot's id starts with {BOT_ID_PREFIX:?}"
                    ),
                ));
            }
            Ok(Some(bot))
        }
        other => Err(RefereeError::invalid(
            "bot_seats",
            format!(
                "at most one seat of a Gomoku table is a bot, not {}",
                other.len()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_points_win_over_coordinates() {
        let p = pb::Point {
            text: "a1".into(),
            x: 7,
            y: 7,
        };
        assert_eq!(point("point", Some(&p)).unwrap().to_string(), "a1");
        let xy = pb::Point {
            text: String::new(),
            x: 7,
            y: 7,
        };
        assert_eq!(point("point", Some(&xy)).unwrap(), Point::CENTER);
    }

    #[test]
    fn off_board_points_name_the_field() {
        let p = pb::Point {
            text: String::new(),
            x: 15,
            y: 0,
        };
        let err = point("point", Some(&p)).unwrap_err().to_string();
        assert!(err.starts_with("point: "), "{err}");
        assert!(err.contains("off the 15x15 board"), "{err}");
        let err = point(
            "point",
            Some(&pb::Point {
                text: "z9".into(),
                x: 0,
                y: 0,
            }),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("bad column"), "{err}");
        assert!(point("point", None).is_err());
    }

    #[test]
    fn ids_are_checked() {
        assert!(id("table_id", "gt-1").is_ok());
        assert!(id("table_id", " ").is_err());
        assert!(id("table_id", "a/b").is_err());
        assert!(id("table_id", &"x".repeat(65)).is_err());
    }

    #[test]
    fn profiles_are_none_or_one_per_seat_within_bounds() {
        let named = |name: &str| PlayerProfile {
            name: name.into(),
            ..PlayerProfile::default()
        };
        assert_eq!(profiles(&[]).unwrap(), None);
        let two = profiles(&[named("张三"), named("Zoë")]).unwrap().unwrap();
        assert_eq!(two[1].name, "Zoë");
        let error = profiles(&[named("a")]).unwrap_err().to_string();
        assert!(error.starts_with("profiles: "), "{error}");
        let error = profiles(&[named("a"), named(&"名".repeat(13))])
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("profiles[1].name: "), "{error}");
        let titled = PlayerProfile {
            rank_name: "x".repeat(33),
            ..PlayerProfile::default()
        };
        let error = profiles(&[titled, named("b")]).unwrap_err().to_string();
        assert!(error.starts_with("profiles[0].rank_name: "), "{error}");
    }

    #[test]
    fn a_bot_seat_is_one_seat_of_a_bot() {
        let players = ["alice".to_owned(), "bot-1".to_owned()];
        assert_eq!(bot_seat(&[], &players).unwrap(), None);
        assert_eq!(bot_seat(&[1], &players).unwrap(), Some(Seat::ONE));
        for (seats, field) in [
            (&[0][..], "bot_seats[0]: "),
            (&[2][..], "bot_seats[0]: "),
            (&[1, 1][..], "bot_seats: "),
        ] {
            let error = bot_seat(seats, &players).unwrap_err().to_string();
            assert!(error.starts_with(field), "{seats:?}: {error}");
        }
    }

    #[test]
    fn clocks_are_bounded() {
        let tc = |per_move_ms, total_ms| pb::TimeControl {
            per_move_ms,
            total_ms,
        };
        assert!(time_control(Some(&tc(0, 0))).is_ok());
        assert!(time_control(Some(&tc(30_000, 600_000))).is_ok());
        assert!(time_control(Some(&tc(-1, 0))).is_err());
        assert!(time_control(Some(&tc(5, 0))).is_err());
        assert!(time_control(None).is_err());
    }
}
