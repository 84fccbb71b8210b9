//! Points of the 15×15 board, their text notation and the board's symmetries.

use std::fmt;
use std::str::FromStr;
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

/// The board is 15×15 (docs/rules.md#board-and-notation).
pub const SIZE: u8 = 15;
/// Number of points on the board.
pub const POINTS: usize = (SIZE as usize) * (SIZE as usize);

/// A point of the board: `x` is the column (0 = `a`, left), `y` the row (0 = row 1, bottom).
///
/// The text form is the column letter followed by the row number: the center (天元) is `h8`,
/// i.e. `Point { x: 7, y: 7 }`. A `Point` is always on the board.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Point {
    x: u8,
    y: u8,
}

/// Why a text point (`h8`) could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PointError {
    #[error("empty point: expected a column letter a-o followed by a row 1-15, like h8")]
    Empty,
    #[error("bad column {0:?}: columns are the letters a to o")]
    BadColumn(char),
    #[error("missing row after column {0:?}: expected a row 1-15, like h8")]
    MissingRow(char),
    #[error("bad row {0:?}: rows are the numbers 1 to 15")]
    BadRow(String),
    #[error("coordinates ({x}, {y}) are off the 15x15 board")]
    OffBoard { x: i64, y: i64 },
}

impl Point {
    /// The center point `h8` (天元), where black's first stone goes.
    pub const CENTER: Point = Point { x: 7, y: 7 };

    /// The point at column `x`, row `y` (both from 0), or `None` off the board.
    pub const fn new(x: u8, y: u8) -> Option<Point> {
        if x < SIZE && y < SIZE {
            Some(Point { x, y })
        } else {
            None
        }
    }

    /// Like [`Point::new`] but with an error that says what is wrong; takes any integer
    /// so that API edges can pass what a client sent.
    pub fn from_xy(x: i64, y: i64) -> Result<Point, PointError> {
        match (u8::try_from(x), u8::try_from(y)) {
            (Ok(px), Ok(py)) => Point::new(px, py).ok_or(PointError::OffBoard { x, y }),
            _ => Err(PointError::OffBoard { x, y }),
        }
    }

    /// Reads the text notation: a column letter `a`–`o` (either case) and a row `1`–`15`.
    pub fn parse(text: &str) -> Result<Point, PointError> {
        let text = text.trim();
        let mut chars = text.chars();
        let column = chars.next().ok_or(PointError::Empty)?;
        let lower = column.to_ascii_lowercase();
        if !('a'..='o').contains(&lower) {
            return Err(PointError::BadColumn(column));
        }
        let row_text = chars.as_str();
        if row_text.is_empty() {
            return Err(PointError::MissingRow(column));
        }
        if !row_text.bytes().all(|b| b.is_ascii_digit()) || row_text.len() > 2 {
            return Err(PointError::BadRow(row_text.to_owned()));
        }
        let row: u8 = row_text
            .parse()
            .map_err(|_| PointError::BadRow(row_text.to_owned()))?;
        if !(1..=SIZE).contains(&row) {
            return Err(PointError::BadRow(row_text.to_owned()));
        }
        Ok(Point {
            x: lower as u8 - b'a',
            y: row - 1,
        })
    }

    /// Column from 0 (left).
    pub const fn x(self) -> u8 {
        self.x
    }

    /// Row from 0 (bottom).
    pub const fn y(self) -> u8 {
        self.y
    }

    /// Index in `0..225`, row-major from the bottom-left corner.
    pub const fn index(self) -> usize {
        self.y as usize * SIZE as usize + self.x as usize
    }

    /// The point with the given [`Point::index`].
    pub const fn from_index(index: usize) -> Option<Point> {
        if index < POINTS {
            Some(Point {
                x: (index % SIZE as usize) as u8,
                y: (index / SIZE as usize) as u8,
            })
        } else {
            None
        }
    }

    /// The point's name (`h8`): its text form without formatting, for code that writes
    /// many points (every stone of a table, at every move).
    pub fn name(self) -> &'static str {
        &NAMES[self.index()]
    }

    /// Every point of the board, in index order.
    pub fn all() -> impl Iterator<Item = Point> {
        (0..POINTS).filter_map(Point::from_index)
    }

    /// The point `steps` away in direction (`dx`, `dy`), if still on the board.
    pub fn offset(self, dx: i8, dy: i8, steps: i8) -> Option<Point> {
        let x = i16::from(self.x) + i16::from(dx) * i16::from(steps);
        let y = i16::from(self.y) + i16::from(dy) * i16::from(steps);
        Point::new(u8::try_from(x).ok()?, u8::try_from(y).ok()?)
    }

    /// Chebyshev distance: 1 for the 8 neighbours.
    pub fn distance(self, other: Point) -> u8 {
        self.x.abs_diff(other.x).max(self.y.abs_diff(other.y))
    }

    /// This point seen through one of the 8 symmetries of the board (they all fix h8).
    pub fn transform(self, symmetry: Symmetry) -> Point {
        let (x, y) = (self.x, self.y);
        let m = SIZE - 1;
        let (nx, ny) = match symmetry {
            Symmetry::Identity => (x, y),
            Symmetry::Rotate90 => (m - y, x),
            Symmetry::Rotate180 => (m - x, m - y),
            Symmetry::Rotate270 => (y, m - x),
            Symmetry::FlipHorizontal => (m - x, y),
            Symmetry::FlipVertical => (x, m - y),
            Symmetry::FlipDiagonal => (y, x),
            Symmetry::FlipAntiDiagonal => (m - y, m - x),
        };
        Point { x: nx, y: ny }
    }
}

/// Every point's name, by index: written once.
static NAMES: LazyLock<Vec<String>> = LazyLock::new(|| {
    Point::all()
        .map(|p| format!("{}{}", char::from(b'a' + p.x), p.y + 1))
        .collect()
});

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Debug for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl FromStr for Point {
    type Err = PointError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Point::parse(s)
    }
}

impl TryFrom<String> for Point {
    type Error = PointError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        Point::parse(&value)
    }
}

impl From<Point> for String {
    fn from(p: Point) -> String {
        p.to_string()
    }
}

/// The 8 symmetries of the square board (rotations and reflections about h8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Symmetry {
    Identity,
    Rotate90,
    Rotate180,
    Rotate270,
    FlipHorizontal,
    FlipVertical,
    FlipDiagonal,
    FlipAntiDiagonal,
}

impl Symmetry {
    /// All 8, identity first.
    pub const ALL: [Symmetry; 8] = [
        Symmetry::Identity,
        Symmetry::Rotate90,
        Symmetry::Rotate180,
        Symmetry::Rotate270,
        Symmetry::FlipHorizontal,
        Symmetry::FlipVertical,
        Symmetry::FlipDiagonal,
        Symmetry::FlipAntiDiagonal,
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn center_is_h8() {
        assert_eq!(Point::parse("h8"), Ok(Point::CENTER));
        assert_eq!(Point::CENTER.to_string(), "h8");
        assert_eq!(Point::CENTER.name(), "h8");
        assert_eq!(Point::from_index(POINTS - 1).map(Point::name), Some("o15"));
        assert_eq!(Point::parse("A1").map(|p| (p.x(), p.y())), Ok((0, 0)));
        assert_eq!(Point::parse("o15").map(|p| (p.x(), p.y())), Ok((14, 14)));
    }

    #[test]
    fn parse_errors_say_what_is_wrong() {
        assert_eq!(Point::parse(""), Err(PointError::Empty));
        assert_eq!(Point::parse("p3"), Err(PointError::BadColumn('p')));
        assert_eq!(Point::parse("h"), Err(PointError::MissingRow('h')));
        assert_eq!(Point::parse("h16"), Err(PointError::BadRow("16".into())));
        assert_eq!(Point::parse("h0"), Err(PointError::BadRow("0".into())));
        assert_eq!(Point::parse("h8x"), Err(PointError::BadRow("8x".into())));
        assert_eq!(Point::parse("hé"), Err(PointError::BadRow("é".into())));
        assert_eq!(
            Point::from_xy(15, 0),
            Err(PointError::OffBoard { x: 15, y: 0 })
        );
        assert_eq!(
            Point::from_xy(-1, 3),
            Err(PointError::OffBoard { x: -1, y: 3 })
        );
    }

    #[test]
    fn every_point_round_trips_through_text_and_index() {
        for p in Point::all() {
            assert_eq!(Point::parse(&p.to_string()), Ok(p));
            assert_eq!(Point::from_index(p.index()), Some(p));
        }
        assert_eq!(Point::all().count(), POINTS);
    }

    #[test]
    fn symmetries_fix_the_center_and_are_bijections() {
        for s in Symmetry::ALL {
            assert_eq!(Point::CENTER.transform(s), Point::CENTER);
            let mut seen = std::collections::HashSet::new();
            for p in Point::all() {
                assert!(seen.insert(p.transform(s)));
            }
        }
    }
}
