//! Line shapes for black: what one line through a point looks like once black stands there.
//!
//! A line is read through an 11-cell window centred on the point (offsets −5..=5). That is
//! exactly enough: a five, a four or a straight four that contains the centre lies within
//! ±4 of it, and whether such a five is *exact* depends only on the next cell out. Each of
//! the 3^10 windows (the centre is black) is classified once, at first use, into a small
//! table; the hot path is then four table look-ups per point.

use std::sync::LazyLock;

/// Cell codes in a window. `BLOCKED` is a white stone or the edge of the board.
const BLOCKED: u8 = 0;
const BLACK: u8 = 1;
const EMPTY: u8 = 2;

/// Window width and the centre's bit.
pub(crate) const WINDOW: u32 = 11;
pub(crate) const CENTER_BIT: u32 = 5;

/// Shape kinds stored in the low 3 bits of a table entry.
pub(crate) const KIND_MASK: u16 = 0b111;
pub(crate) const NONE: u16 = 0;
/// A three: some empty point makes a straight four containing the centre. The entry's high
/// byte lists those points (see [`STRAIGHT_FOUR_OFFSETS`]).
pub(crate) const THREE: u16 = 1;
/// One four (one completing point, or a straight four's two).
pub(crate) const FOUR: u16 = 2;
/// Two fours on this one line (`X.XXX.X`, `XX.XX.XX`, `XXX.X.XXX`).
pub(crate) const DOUBLE_FOUR: u16 = 3;
/// The centre is part of exactly five.
pub(crate) const FIVE: u16 = 4;
/// The centre is part of six or more.
pub(crate) const OVERLINE: u16 = 5;

/// Offsets named by bits 8..16 of a `THREE` entry, in bit order.
pub(crate) const STRAIGHT_FOUR_OFFSETS: [i8; 8] = [-4, -3, -2, -1, 1, 2, 3, 4];

/// Number of table entries: 3^10 (the ten cells around the centre).
const ENTRIES: usize = 59_049;

/// Base-3 value of a 10-bit mask with digit 1 where the bit is set, for the index.
static TERNARY: [u16; 1024] = build_ternary();

const fn build_ternary() -> [u16; 1024] {
    let mut table = [0u16; 1024];
    let mut mask = 0;
    while mask < 1024 {
        let mut value: u16 = 0;
        let mut bit = 10;
        while bit > 0 {
            bit -= 1;
            value = value * 3 + ((mask >> bit) & 1) as u16;
        }
        table[mask] = value;
        mask += 1;
    }
    table
}

static SHAPES: LazyLock<Box<[u16]>> = LazyLock::new(build_shapes);

/// Drops the centre bit of an 11-bit window mask, leaving 10 bits.
#[inline(always)]
fn squeeze(window: u32) -> usize {
    ((window & 0x1F) | ((window >> 1) & 0x3E0)) as usize
}

/// The shape of black's line through the centre, from the window's black and empty masks
/// (bit `CENTER_BIT + k` is the cell at offset `k`; the centre bit itself is ignored).
#[inline(always)]
pub(crate) fn lookup(black: u32, empty: u32) -> u16 {
    let index = TERNARY[squeeze(black)] as usize + 2 * TERNARY[squeeze(empty)] as usize;
    SHAPES[index]
}

/// Forces the table to be built (benches call it so the first sample is not skewed).
pub(crate) fn warm_up() {
    LazyLock::force(&SHAPES);
}

fn build_shapes() -> Box<[u16]> {
    let mut table = vec![0u16; ENTRIES].into_boxed_slice();
    for (index, entry) in table.iter_mut().enumerate() {
        // Decode the index back to cells, in the same digit order as `TERNARY` (the highest
        // digit is the highest bit of the squeezed mask).
        let mut cells = [BLOCKED; WINDOW as usize];
        let mut rest = index;
        for bit in 0..10 {
            let digit = (rest % 3) as u8;
            rest /= 3;
            let cell = if bit < 5 { bit } else { bit + 1 };
            cells[cell] = match digit {
                0 => BLOCKED,
                1 => BLACK,
                _ => EMPTY,
            };
        }
        cells[CENTER_BIT as usize] = BLACK;
        *entry = classify(&cells);
    }
    table
}

/// The black run through `at`: (first, last) cell.
fn run(cells: &[u8; WINDOW as usize], at: usize) -> (usize, usize) {
    let mut first = at;
    while first > 0 && cells[first - 1] == BLACK {
        first -= 1;
    }
    let mut last = at;
    while last + 1 < cells.len() && cells[last + 1] == BLACK {
        last += 1;
    }
    (first, last)
}

/// Whether black at empty `q` makes exactly five containing the centre.
fn completes_exact_five(cells: &mut [u8; WINDOW as usize], q: usize) -> bool {
    if cells[q] != EMPTY {
        return false;
    }
    cells[q] = BLACK;
    let (first, last) = run(cells, CENTER_BIT as usize);
    cells[q] = EMPTY;
    last - first + 1 == 5 && (first..=last).contains(&q)
}

/// Whether black at empty `q` makes a straight four (`.XXXX.`, each end an exact five)
/// containing the centre.
fn makes_straight_four(cells: &mut [u8; WINDOW as usize], q: usize) -> bool {
    if cells[q] != EMPTY {
        return false;
    }
    cells[q] = BLACK;
    let (first, last) = run(cells, CENTER_BIT as usize);
    let straight = last - first + 1 == 4
        && (first..=last).contains(&q)
        && first >= 1
        && last + 1 < cells.len()
        && completes_exact_five(cells, first - 1)
        && completes_exact_five(cells, last + 1);
    cells[q] = EMPTY;
    straight
}

fn classify(cells: &[u8; WINDOW as usize]) -> u16 {
    let mut cells = *cells;
    let center = CENTER_BIT as usize;
    let (first, last) = run(&cells, center);
    match last - first + 1 {
        5 => return FIVE,
        n if n >= 6 => return OVERLINE,
        _ => {}
    }
    let five_points: Vec<usize> = (center - 4..=center + 4)
        .filter(|&q| completes_exact_five(&mut cells, q))
        .collect();
    match five_points.as_slice() {
        [] => {}
        [a, b] if b - a == 5 => return FOUR, // a straight four: one four, two ends
        [_] => return FOUR,
        _ => return DOUBLE_FOUR,
    }
    let mut straight_points = 0u16;
    for (bit, offset) in STRAIGHT_FOUR_OFFSETS.iter().enumerate() {
        let q = (center as isize + *offset as isize) as usize;
        if makes_straight_four(&mut cells, q) {
            straight_points |= 1 << bit;
        }
    }
    if straight_points == 0 {
        NONE
    } else {
        THREE | (straight_points << 8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Window masks from a picture of the 11 cells (`X` black, `.` empty, `O` blocked).
    fn shape(picture: &str) -> u16 {
        let cells: Vec<char> = picture.chars().filter(|c| !c.is_whitespace()).collect();
        assert_eq!(cells.len(), 11, "{picture}");
        let (mut black, mut empty) = (0u32, 0u32);
        for (i, c) in cells.iter().enumerate() {
            match c {
                'X' => black |= 1 << i,
                '.' => empty |= 1 << i,
                _ => {}
            }
        }
        lookup(black, empty)
    }

    #[test]
    fn squeeze_drops_only_the_centre() {
        assert_eq!(squeeze(0x7FF), 0x3FF);
        assert_eq!(squeeze(1 << 5), 0);
        assert_eq!(squeeze(1 << 6), 1 << 5);
        assert_eq!(squeeze(1 << 10), 1 << 9);
    }

    #[test]
    fn classifies_the_textbook_lines() {
        assert_eq!(shape("...XXXXX..."), FIVE);
        assert_eq!(shape("..XXXXXX..."), OVERLINE);
        assert_eq!(shape("....XXXX..."), FOUR); // straight four counts once
        assert_eq!(shape("..X.XXX.X.."), DOUBLE_FOUR);
        assert_eq!(shape("..XX.XX.XX."), DOUBLE_FOUR);
        assert_eq!(shape(".XXX.X.XXX."), DOUBLE_FOUR);
        assert_eq!(shape("..OXXXX...."), FOUR);
        // offsets -2 and +2 (bits 2 and 5) each make `.XXXX.`
        assert_eq!(shape("....XXX...."), THREE | (0b10_0100 << 8));
        assert_eq!(shape("...OXXX...."), NONE); // dead three
        assert_eq!(shape("...X.X.X..."), NONE);
        // `X.XX.X`: each straight-four try leaves an end that would make six
        assert_eq!(shape("...X.XX.X.."), NONE);
        // split three `XX.X`: only the gap (offset +1, bit 4) makes the straight four
        assert_eq!(shape("....XX.X..."), THREE | (0b1_0000 << 8));
    }
}
