//! What the platform says, as text for people: what the terminal client, the
//! operator's desk and the demo print alike.
//!
//! - boards and cards ([`gomoku_board`], [`hand`], [`turn`], …), here;
//! - [`ledger`]: accounts, history, finished games and leaderboards;
//! - [`tournament`]: tournaments' states, formats, prize tables, places and start;
//! - [`describe`]: a refusal or a failure as one line;
//! - [`signed`], [`thousands`]: numbers.
#![forbid(unsafe_code)]

pub mod ledger;
mod numbers;
mod status;
pub mod tournament;

pub use numbers::{signed, thousands};
pub use status::describe;

use gamehub_proto::doudizhu as ddz;
use gamehub_proto::gomoku as gm;

/// Column letters of the board.
const COLUMNS: &str = "abcdefghijklmno";

/// A Gomoku board with coordinates: `●` black, `○` white, the last stone in brackets,
/// `×` the points forbidden for black (Renju rooms), `?` black's two fifth-move
/// How a player is shown to others (docs/rules.md#names): its name and id, or its id
/// alone when it has no name; a bot marked.
pub fn player(player_id: &str, profile: Option<&gamehub_proto::common::PlayerProfile>) -> String {
    let bot = if profile.is_some_and(|p| p.bot) {
        " [bot]"
    } else {
        ""
    };
    let name = profile.map_or("", |p| p.name.as_str());
    format!("{}{bot}", named(player_id, name))
}

/// A player by its name and id, or by its id alone when the name is empty.
pub fn named(player_id: &str, name: &str) -> String {
    if name.is_empty() {
        player_id.to_owned()
    } else {
        format!("{name} ({player_id})")
    }
}

/// proposals while white chooses (swap room).
pub fn gomoku_board(game: &gm::Game) -> String {
    let mut cells = [[None::<gm::Color>; 15]; 15];
    for stone in &game.stones {
        if let Some(p) = &stone.point
            && let (Ok(x), Ok(y)) = (usize::try_from(p.x), usize::try_from(p.y))
            && x < 15
            && y < 15
        {
            cells[y][x] = Some(stone.color());
        }
    }
    let last = game
        .last_move
        .as_ref()
        .and_then(|s| s.point.as_ref())
        .map(|p| (p.x, p.y));
    let forbidden: Vec<(i32, i32)> = game
        .forbidden_points
        .iter()
        .filter_map(|f| f.point.as_ref().map(|p| (p.x, p.y)))
        .collect();
    let proposals: Vec<(i32, i32)> = game.fifth_proposals.iter().map(|p| (p.x, p.y)).collect();
    let mut out = String::new();
    let header: String = COLUMNS.chars().map(|c| format!(" {c}")).collect();
    out.push_str(&format!("   {header}\n"));
    for y in (0..15usize).rev() {
        out.push_str(&format!("{:>2} ", y + 1));
        for (x, cell) in cells[y].iter().enumerate() {
            let (xi, yi) = (x as i32, y as i32);
            let glyph = match cell {
                Some(gm::Color::Black) => '●',
                Some(gm::Color::White) => '○',
                _ if proposals.contains(&(xi, yi)) => '?',
                _ if forbidden.contains(&(xi, yi)) => '×',
                _ => '·',
            };
            if last == Some((xi, yi)) {
                out.push('[');
                out.push(glyph);
                out.push(']');
            } else if last == Some((xi - 1, yi)) {
                out.push(glyph);
            } else {
                out.push(' ');
                out.push(glyph);
            }
        }
        out.push_str(&format!(" {:>2}\n", y + 1));
    }
    out.push_str(&format!("   {header}\n"));
    out
}

/// A Dou Dizhu hand as rank text, lowest first (e.g. `3 3 4 7 T J Q K A 2 X`).
pub fn hand(cards: &[String]) -> String {
    let mut parsed: Vec<doudizhu_rules::Card> = cards
        .iter()
        .filter_map(|c| doudizhu_rules::parse_card_text(c).ok())
        .flatten()
        .collect();
    parsed.sort();
    parsed
        .iter()
        .map(|c| c.rank().symbol().to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A combination's name in words.
pub fn combination(c: Option<&ddz::Combination>) -> &'static str {
    use ddz::Kind;
    match c.map(|c| c.kind()) {
        None | Some(Kind::Unspecified) => "pass",
        Some(Kind::Single) => "single",
        Some(Kind::Pair) => "pair",
        Some(Kind::Triple) => "triple",
        Some(Kind::TripleWithSingle) => "triple with single",
        Some(Kind::TripleWithPair) => "triple with pair",
        Some(Kind::Straight) => "straight",
        Some(Kind::PairStraight) => "pair straight",
        Some(Kind::TripleStraight) => "triple straight",
        Some(Kind::AirplaneWithSingles) => "airplane with singles",
        Some(Kind::AirplaneWithPairs) => "airplane with pairs",
        Some(Kind::FourWithTwoSingles) => "four with two",
        Some(Kind::FourWithTwoPairs) => "four with two pairs",
        Some(Kind::Bomb) => "BOMB",
        Some(Kind::Rocket) => "ROCKET",
    }
}

/// The name of Dou Dizhu seat `seat` in `names` (indexed by seat number), or `seat N`
/// for a seat without one.
pub fn seat_name(names: &[String], seat: i32) -> String {
    usize::try_from(seat)
        .ok()
        .and_then(|i| names.get(i))
        .cloned()
        .unwrap_or_else(|| format!("seat {seat}"))
}

/// Who made a play or bid when not the seat itself, as a mark to put after it:
/// ` [timeout]`, ` [auto-play]`, else nothing.
pub fn actor_mark(actor: ddz::Actor) -> &'static str {
    match actor {
        ddz::Actor::Timeout => " [timeout]",
        ddz::Actor::AutoPlay => " [auto-play]",
        _ => "",
    }
}

/// One play or pass, e.g. `seat 1 plays 3 3 4 4 5 5 (pair straight)`.
pub fn turn(turn: &ddz::Turn, names: &[String]) -> String {
    let who = seat_name(names, turn.seat);
    let by = actor_mark(turn.by());
    if turn.ranks.is_empty() {
        format!("{who} passes{by}")
    } else {
        let ranks: String = turn
            .ranks
            .chars()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(" ");
        format!(
            "{who} plays {ranks} ({}){by}",
            combination(turn.combination.as_ref())
        )
    }
}
