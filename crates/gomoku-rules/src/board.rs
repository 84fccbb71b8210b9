//! The 15×15 board, stones, and the Renju judgement of a point (five, overline, double
//! four, double three with the recursive live-three rule).
//!
//! Besides a plain cell array the board keeps every line (rows, columns, both diagonals)
//! as a bit mask per color, so that the 11 cells around a point in one direction are a
//! shift and a mask away, and a line shape is one table look-up (see `shape.rs`).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::point::{POINTS, Point, SIZE, Symmetry};
use crate::shape;

/// A stone's color (黑 black moves first, 白 white).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Color {
    Black,
    White,
}

impl Color {
    /// The other color.
    pub const fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    pub(crate) const fn index(self) -> usize {
        match self {
            Color::Black => 0,
            Color::White => 1,
        }
    }

    /// `black` / `white`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A stone on a point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Stone {
    pub point: Point,
    pub color: Color,
}

/// Why a black move is forbidden under Renju rules (禁手). When a move is forbidden for
/// several reasons, the first of this order is reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ForbiddenKind {
    /// Six or more in a row (长连).
    Overline,
    /// Two or more fours (四四, including 4-4-3 and two fours on one line).
    DoubleFour,
    /// Two or more live threes (三三, including 4-3-3).
    DoubleThree,
}

impl ForbiddenKind {
    /// `overline` / `double_four` / `double_three`.
    pub const fn name(self) -> &'static str {
        match self {
            ForbiddenKind::Overline => "overline",
            ForbiddenKind::DoubleFour => "double_four",
            ForbiddenKind::DoubleThree => "double_three",
        }
    }
}

impl fmt::Display for ForbiddenKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ForbiddenKind::Overline => "overline",
            ForbiddenKind::DoubleFour => "double four",
            ForbiddenKind::DoubleThree => "double three",
        })
    }
}

/// What a stone on an empty point would do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// A legal move that does not win.
    Allowed,
    /// A winning five (exact five for black under Renju; five or more otherwise).
    Five,
    /// A forbidden move for black under Renju.
    Forbidden(ForbiddenKind),
}

/// Whether black is restricted (Renju) or not (freestyle) when judging a point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rules {
    /// Five or more wins for both colors; nothing is forbidden (无禁手).
    Freestyle,
    /// White wins with five or more, black only with exactly five and has forbidden moves.
    Renju,
}

/// A point could not take a stone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{point} is already occupied")]
pub struct Occupied {
    pub point: Point,
}

/// Rows, columns and the 29 + 29 diagonals.
const LINES: usize = 15 + 15 + 29 + 29;
/// A stone at position `pos` of a line is stored at bit `pos + PAD`, so that a window of
/// 5 cells either side is always `(mask >> pos) & 0x7FF`.
const PAD: u32 = shape::CENTER_BIT;
const WINDOW_MASK: u32 = (1 << shape::WINDOW) - 1;

/// For every point and direction: (line index, position along the line).
static POINT_LINES: [[(u8, u8); 4]; POINTS] = build_point_lines();
/// For every line, the bits of positions that are on the board.
static LINE_VALID: [u32; LINES] = build_line_valid();

const fn build_point_lines() -> [[(u8, u8); 4]; POINTS] {
    let mut table = [[(0u8, 0u8); 4]; POINTS];
    let mut index = 0;
    while index < POINTS {
        let x = (index % SIZE as usize) as u8;
        let y = (index / SIZE as usize) as u8;
        table[index] = [
            (y, x),
            (15 + x, y),
            (30 + (x + 14 - y), x),
            (59 + (x + y), x),
        ];
        index += 1;
    }
    table
}

const fn build_line_valid() -> [u32; LINES] {
    let table = build_point_lines();
    let mut valid = [0u32; LINES];
    let mut index = 0;
    while index < POINTS {
        let mut dir = 0;
        while dir < 4 {
            let (line, pos) = table[index][dir];
            valid[line as usize] |= 1 << (pos as u32 + PAD);
            dir += 1;
        }
        index += 1;
    }
    valid
}

/// Step between neighbouring indices in each direction.
const INDEX_STEP: [isize; 4] = [1, SIZE as isize, SIZE as isize + 1, 1 - SIZE as isize];

/// The 15×15 board (棋盘).
#[derive(Clone, PartialEq, Eq)]
pub struct Board {
    /// 0 empty, 1 black, 2 white, by point index.
    cells: [u8; POINTS],
    /// Per color, per line, a bit per stone (see `PAD`).
    lines: [[u32; LINES]; 2],
    stones: u16,
}

impl Default for Board {
    fn default() -> Self {
        Board::new()
    }
}

impl Board {
    /// An empty board.
    pub const fn new() -> Board {
        Board {
            cells: [0; POINTS],
            lines: [[0; LINES]; 2],
            stones: 0,
        }
    }

    /// The stone on `point`, if any.
    #[inline]
    pub fn get(&self, point: Point) -> Option<Color> {
        match self.cells[point.index()] {
            1 => Some(Color::Black),
            2 => Some(Color::White),
            _ => None,
        }
    }

    /// The winning line through the `color` stone on `point` under `rules`: its stones
    /// in order along the line (five, or more where an overline wins), or empty when the
    /// stone makes no winning line.
    pub fn winning_line(&self, point: Point, color: Color, rules: Rules) -> Vec<Point> {
        const DIRECTIONS: [(i8, i8); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];
        for (dx, dy) in DIRECTIONS {
            let own = |steps: i8| {
                point
                    .offset(dx, dy, steps)
                    .filter(|p| self.get(*p) == Some(color))
            };
            let back = (1..15i8).take_while(|k| own(-k).is_some()).count();
            let ahead = (1..15i8).take_while(|k| own(*k).is_some()).count();
            let len = back + ahead + 1;
            let wins = if rules == Rules::Renju && color == Color::Black {
                len == 5
            } else {
                len >= 5
            };
            if wins {
                let back = i8::try_from(back).unwrap_or(0);
                return (0..len)
                    .filter_map(|k| point.offset(dx, dy, i8::try_from(k).unwrap_or(0) - back))
                    .collect();
            }
        }
        Vec::new()
    }

    /// Whether `point` holds no stone.
    #[inline]
    pub fn is_empty(&self, point: Point) -> bool {
        self.cells[point.index()] == 0
    }

    /// Number of stones on the board.
    pub fn stone_count(&self) -> usize {
        usize::from(self.stones)
    }

    /// Every stone, in point-index order.
    pub fn stones(&self) -> impl Iterator<Item = Stone> + '_ {
        Point::all().filter_map(|point| self.get(point).map(|color| Stone { point, color }))
    }

    /// Puts a stone on an empty point. No rule is checked: use [`crate::Game`] for play.
    pub fn place(&mut self, point: Point, color: Color) -> Result<(), Occupied> {
        if !self.is_empty(point) {
            return Err(Occupied { point });
        }
        self.put(point.index(), color);
        Ok(())
    }

    /// Takes the stone off `point` and returns it.
    pub fn remove(&mut self, point: Point) -> Option<Color> {
        let color = self.get(point)?;
        self.take(point.index(), color);
        Some(color)
    }

    #[inline]
    fn put(&mut self, index: usize, color: Color) {
        debug_assert_eq!(self.cells[index], 0);
        self.cells[index] = color.index() as u8 + 1;
        for &(line, pos) in &POINT_LINES[index] {
            self.lines[color.index()][line as usize] |= 1 << (u32::from(pos) + PAD);
        }
        self.stones += 1;
    }

    #[inline]
    fn take(&mut self, index: usize, color: Color) {
        debug_assert_eq!(self.cells[index], color.index() as u8 + 1);
        self.cells[index] = 0;
        for &(line, pos) in &POINT_LINES[index] {
            self.lines[color.index()][line as usize] &= !(1 << (u32::from(pos) + PAD));
        }
        self.stones -= 1;
    }

    /// The window of 11 cells centred on `index` in direction `dir`:
    /// (black, white, on-board) bit masks, the centre at bit 5.
    #[inline(always)]
    fn window(&self, index: usize, dir: usize) -> (u32, u32, u32) {
        let (line, pos) = POINT_LINES[index][dir];
        let (line, pos) = (line as usize, u32::from(pos));
        (
            (self.lines[0][line] >> pos) & WINDOW_MASK,
            (self.lines[1][line] >> pos) & WINDOW_MASK,
            (LINE_VALID[line] >> pos) & WINDOW_MASK,
        )
    }

    /// Length of the `color` run through `point` in direction `dir`, counting a stone of
    /// that color on `point` whether or not it is there.
    #[inline(always)]
    fn run(&self, index: usize, dir: usize, color: Color) -> u32 {
        let (black, white, _) = self.window(index, dir);
        let own = if color == Color::Black { black } else { white } | (1 << shape::CENTER_BIT);
        let right = (!(own >> shape::CENTER_BIT)).trailing_zeros();
        let left = (!(own << (31 - shape::CENTER_BIT))).leading_zeros();
        left + right - 1
    }

    /// The longest run of `color` through `point` over the four directions, counting a
    /// stone of that color on `point` (placed or not). Runs longer than 6 may read as 6+.
    #[inline]
    pub fn longest_run(&self, point: Point, color: Color) -> u32 {
        let index = point.index();
        (0..4)
            .map(|dir| self.run(index, dir, color))
            .max()
            .unwrap_or(0)
    }

    /// Whether a `color` stone on `point` (placed or not) wins under `rules`: five or more,
    /// except for black under Renju, which needs exactly five in some direction.
    #[inline]
    pub fn wins(&self, point: Point, color: Color, rules: Rules) -> bool {
        let index = point.index();
        if rules == Rules::Renju && color == Color::Black {
            (0..4).any(|dir| self.run(index, dir, color) == 5)
        } else {
            (0..4).any(|dir| self.run(index, dir, color) >= 5)
        }
    }

    /// The four black line shapes through `index`, as if black stood there.
    #[inline(always)]
    fn black_shapes(&self, index: usize) -> [u16; 4] {
        let mut shapes = [0u16; 4];
        for (dir, slot) in shapes.iter_mut().enumerate() {
            let (black, white, valid) = self.window(index, dir);
            *slot = shape::lookup(black, valid & !black & !white);
        }
        shapes
    }

    /// What `color` on the empty `point` would do under `rules`. For an occupied point the
    /// answer is meaningless (check [`Board::is_empty`] first).
    pub fn verdict(&self, point: Point, color: Color, rules: Rules) -> Verdict {
        if rules == Rules::Renju && color == Color::Black {
            self.black_verdict(point)
        } else if self.wins(point, color, rules) {
            Verdict::Five
        } else {
            Verdict::Allowed
        }
    }

    /// The Renju verdict of a black stone on the empty `point`: exact five, forbidden
    /// (overline, double four, double three — reported in that order) or allowed.
    pub fn black_verdict(&self, point: Point) -> Verdict {
        let index = point.index();
        debug_assert!(self.cells[index] == 0, "judging an occupied point {point}");
        match first_judgement(&self.black_shapes(index)) {
            Judgement::Settled(verdict) => verdict,
            Judgement::Threes(threes) => {
                // Only here does the board need a stone put on it: judge on a copy.
                let mut scratch = self.clone();
                if scratch.has_two_live_threes(index, threes) {
                    Verdict::Forbidden(ForbiddenKind::DoubleThree)
                } else {
                    Verdict::Allowed
                }
            }
        }
    }

    /// Why black may not play the empty `point` under Renju, or `None` if it may.
    pub fn forbidden(&self, point: Point) -> Option<ForbiddenKind> {
        match self.black_verdict(point) {
            Verdict::Forbidden(kind) => Some(kind),
            _ => None,
        }
    }

    /// [`Board::black_verdict`] on a board it may put stones on and take them off again.
    fn black_verdict_mut(&mut self, index: usize) -> Verdict {
        match first_judgement(&self.black_shapes(index)) {
            Judgement::Settled(verdict) => verdict,
            Judgement::Threes(threes) => {
                if self.has_two_live_threes(index, threes) {
                    Verdict::Forbidden(ForbiddenKind::DoubleThree)
                } else {
                    Verdict::Allowed
                }
            }
        }
    }

    /// RIF 9.3 as docs/rules.md#forbidden-moves words it: with black on `index`, a three is live only if
    /// one of its straight-four points is a move that makes no five and is not forbidden
    /// (judged with this stone on the board, recursively).
    fn has_two_live_threes(&mut self, index: usize, threes: [u16; 4]) -> bool {
        let candidates = threes.iter().filter(|&&s| s != 0).count();
        let mut live = 0;
        let mut judged = 0;
        self.put(index, Color::Black);
        for (dir, &three) in threes.iter().enumerate() {
            if three == 0 {
                continue;
            }
            let points = three >> 8;
            let is_live = shape::STRAIGHT_FOUR_OFFSETS
                .iter()
                .enumerate()
                .any(|(bit, &offset)| {
                    if points & (1 << bit) == 0 {
                        return false;
                    }
                    let q = (index as isize + INDEX_STEP[dir] * offset as isize) as usize;
                    // docs/rules.md#forbidden-moves: the straightening move must itself make no five and
                    // not be forbidden.
                    self.black_verdict_mut(q) == Verdict::Allowed
                });
            judged += 1;
            if is_live {
                live += 1;
            }
            if live >= 2 || live + (candidates - judged) < 2 {
                break;
            }
        }
        self.take(index, Color::Black);
        live >= 2
    }

    /// Every empty point where black may not play under Renju, with the reason, in
    /// point-index order (front-ends draw them).
    pub fn forbidden_points(&self) -> Vec<(Point, ForbiddenKind)> {
        let mut scratch: Option<Board> = None;
        let mut found = Vec::new();
        for point in Point::all() {
            let index = point.index();
            if self.cells[index] != 0 {
                continue;
            }
            let verdict = match first_judgement(&self.black_shapes(index)) {
                Judgement::Settled(verdict) => verdict,
                Judgement::Threes(threes) => {
                    let board = scratch.get_or_insert_with(|| self.clone());
                    if board.has_two_live_threes(index, threes) {
                        Verdict::Forbidden(ForbiddenKind::DoubleThree)
                    } else {
                        Verdict::Allowed
                    }
                }
            };
            if let Verdict::Forbidden(kind) = verdict {
                found.push((point, kind));
            }
        }
        found
    }

    /// Natural draw (和局): no line of five points holds only one color's stones and
    /// empty points, so neither side can ever make five. A full board is the plain case.
    pub fn is_dead(&self) -> bool {
        let has_five_room =
            |free: u32| free & (free >> 1) & (free >> 2) & (free >> 3) & (free >> 4) != 0;
        let [black, white] = &self.lines;
        !LINE_VALID
            .iter()
            .zip(black.iter().zip(white))
            .any(|(&valid, (&b, &w))| has_five_room(valid & !w) || has_five_room(valid & !b))
    }

    /// The board seen through a symmetry.
    pub fn transform(&self, symmetry: Symmetry) -> Board {
        let mut board = Board::new();
        for stone in self.stones() {
            board.put(stone.point.transform(symmetry).index(), stone.color);
        }
        board
    }

    /// Reads a diagram: one text row per board row, top row first, cells separated by
    /// optional spaces: `X` (or `x`, `●`) black, `O` (or `o`, `○`) white, `.` or `+` empty,
    /// `*` or `?` an empty point to mark. `top_left` is the board point of the diagram's
    /// first cell, so a fragment can sit anywhere (a full board starts at `a15`). Returns
    /// the board and the marked points in reading order.
    pub fn from_diagram(top_left: Point, diagram: &str) -> Result<(Board, Vec<Point>), String> {
        let mut board = Board::new();
        let mut marks = Vec::new();
        let rows = diagram.lines().map(str::trim).filter(|row| !row.is_empty());
        for (row, text) in rows.enumerate() {
            let cells = text.chars().filter(|c| !c.is_whitespace());
            for (column, cell) in cells.enumerate() {
                let x = i64::from(top_left.x()) + column as i64;
                let y = i64::from(top_left.y()) - row as i64;
                let point = Point::from_xy(x, y)
                    .map_err(|e| format!("diagram row {} cell {}: {e}", row + 1, column + 1))?;
                match cell {
                    'X' | 'x' | '●' => board.put(point.index(), Color::Black),
                    'O' | 'o' | '○' => board.put(point.index(), Color::White),
                    '*' | '?' => marks.push(point),
                    '.' | '+' => {}
                    other => return Err(format!("diagram row {} has {other:?}", row + 1)),
                }
            }
        }
        Ok((board, marks))
    }
}

/// The first, cheap part of judging a black point from its four line shapes.
enum Judgement {
    Settled(Verdict),
    /// Two or more directions hold a three and no four: the recursive rule decides. Each
    /// entry is that direction's shape (0 for no three).
    Threes([u16; 4]),
}

#[inline(always)]
fn first_judgement(shapes: &[u16; 4]) -> Judgement {
    let mut overline = false;
    let mut fours = 0;
    let mut threes = [0u16; 4];
    let mut three_count = 0;
    for (dir, &s) in shapes.iter().enumerate() {
        match s & shape::KIND_MASK {
            shape::FIVE => return Judgement::Settled(Verdict::Five),
            shape::OVERLINE => overline = true,
            shape::FOUR => fours += 1,
            shape::DOUBLE_FOUR => fours += 2,
            shape::THREE => {
                threes[dir] = s;
                three_count += 1;
            }
            _ => {}
        }
    }
    if overline {
        Judgement::Settled(Verdict::Forbidden(ForbiddenKind::Overline))
    } else if fours >= 2 {
        Judgement::Settled(Verdict::Forbidden(ForbiddenKind::DoubleFour))
    } else if three_count >= 2 {
        Judgement::Threes(threes)
    } else {
        Judgement::Settled(Verdict::Allowed)
    }
}

/// Every empty point where black may not play under Renju (see [`Board::forbidden_points`]).
pub fn forbidden_points(board: &Board) -> Vec<(Point, ForbiddenKind)> {
    board.forbidden_points()
}

/// Builds the shape table now rather than at the first judgement.
pub fn warm_up() {
    shape::warm_up();
}

impl fmt::Display for Board {
    /// A diagram with coordinates, row 15 on top; `X` black, `O` white.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for y in (0..SIZE).rev() {
            write!(f, "{:>2} ", y + 1)?;
            for x in 0..SIZE {
                let cell = match Point::new(x, y).and_then(|p| self.get(p)) {
                    Some(Color::Black) => 'X',
                    Some(Color::White) => 'O',
                    None => '.',
                };
                write!(f, " {cell}")?;
            }
            writeln!(f)?;
        }
        write!(f, "   ")?;
        for x in 0..SIZE {
            write!(f, " {}", char::from(b'a' + x))?;
        }
        writeln!(f)
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f)?;
        fmt::Display::fmt(self, f)
    }
}
