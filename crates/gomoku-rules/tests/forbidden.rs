//! Forbidden and allowed points, one position each, drawn as ASCII boards.
//!
//! `X` black, `O` white, `.` empty, `*` the point judged (black to play unless said).
//! Each diagram is a fragment whose first cell is the board point named in the call, so
//! the same shapes can sit in the middle of the board or against its edge.
//!
//! Sources: the shapes named in the RIF rules (art. 9: five, overline, double four
//! including two fours on one line, double three including 4-3-3, the recursive clarification of
//! 9.3) and the renju.net rule tutorials that illustrate them; the recursive cases are
//! our own constructions, each checked by hand as the comment explains.

use gomoku_rules::{Board, Color, ForbiddenKind, Point, Rules, Verdict};

use ForbiddenKind::{DoubleFour, DoubleThree, Overline};
use Verdict::{Allowed, Five, Forbidden};

fn position(top_left: &str, diagram: &str) -> (Board, Point) {
    let origin = Point::parse(top_left).expect("valid anchor");
    let (board, marks) = Board::from_diagram(origin, diagram).expect("valid diagram");
    assert_eq!(marks.len(), 1, "mark exactly one point with *");
    (board, marks[0])
}

/// Black's Renju verdict at the marked point, checked against the full forbidden list too.
fn black(top_left: &str, diagram: &str) -> Verdict {
    let (board, point) = position(top_left, diagram);
    let verdict = board.black_verdict(point);
    let listed = board
        .forbidden_points()
        .into_iter()
        .find(|&(p, _)| p == point)
        .map(|(_, kind)| kind);
    let expected = match verdict {
        Forbidden(kind) => Some(kind),
        _ => None,
    };
    assert_eq!(
        listed, expected,
        "forbidden_points disagrees with black_verdict at {point}"
    );
    verdict
}

fn judged(top_left: &str, diagram: &str, color: Color, rules: Rules) -> Verdict {
    let (board, point) = position(top_left, diagram);
    board.verdict(point, color, rules)
}

// ---- five and overline (RIF 9.2: black wins only with exactly five) ----

#[test]
fn exact_five_wins_for_black() {
    // RIF 9.2, basic five.
    assert_eq!(black("d8", ". X X * X X ."), Five);
}

#[test]
fn six_in_a_row_is_an_overline() {
    // RIF 9.2 / renju.net: filling the gap of XXX.XX makes six.
    assert_eq!(black("d8", "X X X * X X"), Forbidden(Overline));
}

#[test]
fn seven_in_a_column_is_an_overline() {
    // RIF 9.2: any length from six up.
    let diagram = "X\nX\nX\n*\nX\nX\nX";
    assert_eq!(black("h11", diagram), Forbidden(Overline));
}

#[test]
fn exact_five_beats_overline_elsewhere() {
    // RIF 9.2 ("five and a forbidden shape at once: the five wins"): row five, column six.
    let diagram = "
        . . X . .
        . . X . .
        . . X . .
        X X * X X
        . . X . .
        . . X . .";
    assert_eq!(black("f11", diagram), Five);
}

#[test]
fn exact_five_beats_double_four() {
    // RIF 9.2: a five with two fours (column straight four, diagonal four) still wins.
    let diagram = "
        . . . . . . . .
        . . . . X . . .
        . . . . X . . .
        . . . . X . . .
        . . X X * X X .
        . . . X . . . .
        . . X . . . . .
        . X . . . . . .
        . . . . . . . .";
    assert_eq!(black("d12", diagram), Five);
}

#[test]
fn exact_five_beats_double_three() {
    // RIF 9.2: a five with two open threes (column, diagonal) still wins.
    let diagram = "
        . . . . . . . .
        . . . . . . . .
        . . . . X . . .
        . . . . X . . .
        . . X X * X X .
        . . . X . . . .
        . . X . . . . .
        . . . . . . . .";
    assert_eq!(black("d12", diagram), Five);
}

#[test]
fn five_with_a_white_stone_then_black_beyond_is_exact() {
    // Own: the run is cut by white, so it is five, not six.
    assert_eq!(black("d8", "X X * X X O X"), Five);
}

#[test]
fn five_with_a_gap_then_black_beyond_is_exact() {
    // Own: XXXX X . X — the stone after the gap does not join the run.
    assert_eq!(black("d8", "X X X * X . X"), Five);
}

#[test]
fn five_against_the_corner_is_exact() {
    // Own: the board's edge ends the run like any blocker.
    assert_eq!(black("a1", "X X X X *"), Five);
}

#[test]
fn white_wins_with_six() {
    // RIF 9.1 / docs/rules.md#five: white has no forbidden moves; six or more wins for white.
    assert_eq!(
        judged("d8", "O O O * O O", Color::White, Rules::Renju),
        Five
    );
}

#[test]
fn black_wins_with_six_in_freestyle() {
    // docs/rules.md#five: freestyle, five or more wins for either color.
    assert_eq!(
        judged("d8", "X X X * X X", Color::Black, Rules::Freestyle),
        Five
    );
}

// ---- fours ----

#[test]
fn straight_four_alone_is_allowed() {
    // RIF 9.3: a straight four counts once.
    assert_eq!(black("d8", ". X X X * . ."), Allowed);
}

#[test]
fn black_double_four_across_two_lines_is_forbidden() {
    // RIF 9.3: row straight four plus column four blocked by white.
    let diagram = "
        . . . . O . . .
        . . . . X . . .
        . . . . X . . .
        . . . . X . . .
        . X X X * . . .";
    assert_eq!(black("d12", diagram), Forbidden(DoubleFour));
}

#[test]
fn split_fours_across_two_lines_are_a_double_four() {
    // Own: XX*.X in the row (completed at g8) and X.*XX in the column (completed at f7).
    let diagram = "
        . . X . . .
        . . X . . .
        X X * . X .
        . . . . . .
        . . X . . .";
    assert_eq!(black("d10", diagram), Forbidden(DoubleFour));
}

#[test]
fn two_fours_on_one_line_x_xxx_x() {
    // RIF 9.3 diagram / docs/rules.md#forbidden-moves: X.XXX.X completes at either gap, two fours.
    assert_eq!(black("d8", "X . X * X . X"), Forbidden(DoubleFour));
}

#[test]
fn two_fours_on_one_line_xx_xx_xx() {
    // docs/rules.md#forbidden-moves: XX.XX.XX, two fours on one line.
    assert_eq!(black("d8", "X X . X * . X X"), Forbidden(DoubleFour));
}

#[test]
fn two_fours_on_one_line_xxx_x_xxx() {
    // docs/rules.md#forbidden-moves: XXX.X.XXX, two fours on one line.
    assert_eq!(black("c8", "X X X . * . X X X"), Forbidden(DoubleFour));
}

#[test]
fn a_completing_point_that_makes_six_is_no_four() {
    // Own: XX.X*X.X — the left gap would make six, so only the right gap is a four.
    assert_eq!(black("c8", "X X . X * X . X"), Allowed);
}

#[test]
fn a_four_that_does_not_contain_the_move_is_not_counted() {
    // Own: *.XXX.X — the right gap completes f8-j8, which does not include the move d8.
    assert_eq!(black("b8", ". . * . X X X . X ."), Allowed);
}

#[test]
fn a_dead_four_is_no_four() {
    // Own: OXXX*O can never become five; with one real four (column) the move is allowed.
    let diagram = "
        . . . . O . .
        . . . . X . .
        . . . . X . .
        . . . . X . .
        O X X X * O .";
    assert_eq!(black("c12", diagram), Allowed);
}

#[test]
fn four_four_three_is_a_double_four() {
    // RIF 9.3: 4-4-3 is forbidden as a double four (reported first).
    let diagram = "
        . . . . O . . .
        . . . . X . . .
        . . . . X . . .
        . . . . X . . .
        . X X X * . . .
        . . . X . . . .
        . . X . . . . .
        . . . . . . . .";
    assert_eq!(black("d12", diagram), Forbidden(DoubleFour));
}

#[test]
fn overline_is_reported_before_double_four() {
    // docs/rules.md#forbidden-moves: report order overline, double four, double three.
    let diagram = "
        . . . O . .
        . . . X . .
        . . . X . .
        . . . X . .
        X X X * X X
        . . X . . .
        . X . . . .
        X . . . . .";
    assert_eq!(black("d12", diagram), Forbidden(Overline));
}

#[test]
fn four_three_is_allowed() {
    // RIF 9.3: black wins with 4-3; a blocked four and an open three.
    let diagram = "
        . . . . X . . .
        . . . . X . . .
        O X X X * . . .";
    assert_eq!(black("d10", diagram), Allowed);
}

#[test]
fn white_double_four_is_allowed() {
    // RIF 9.1: white has no forbidden moves.
    let diagram = "
        . . . . X . . .
        . . . . O . . .
        . . . . O . . .
        . . . . O . . .
        . O O O * . . .";
    assert_eq!(judged("d12", diagram, Color::White, Rules::Renju), Allowed);
}

// ---- threes ----

#[test]
fn black_double_three_is_forbidden() {
    // RIF 9.3: two open threes, row and column.
    let diagram = "
        . . . . X . . .
        . . . . X . . .
        . . X X * . . .";
    assert_eq!(black("d10", diagram), Forbidden(DoubleThree));
}

#[test]
fn double_three_is_allowed_in_freestyle() {
    // docs/rules.md#forbidden-moves: nothing is forbidden in freestyle.
    let diagram = "
        . . . . X . . .
        . . . . X . . .
        . . X X * . . .";
    assert_eq!(
        judged("d10", diagram, Color::Black, Rules::Freestyle),
        Allowed
    );
}

#[test]
fn split_threes_make_a_double_three() {
    // RIF 9.3: X.XX in the row and X.XX on the diagonal are both threes.
    let diagram = "
        . . . . . X . .
        . X . X * . . .
        . . . . . . . .
        . . X . . . . .";
    assert_eq!(black("d9", diagram), Forbidden(DoubleThree));
}

#[test]
fn a_three_blocked_at_one_end_is_not_a_three() {
    // RIF 9.3: OXXX.. cannot become a straight four; only one real three.
    let diagram = "
        . . . . X . . .
        . . . . X . . .
        . O X X * . . .";
    assert_eq!(black("d10", diagram), Allowed);
}

#[test]
fn a_three_blocked_two_away_is_still_a_three() {
    // Own: ..XXX.O still becomes a straight four on the open side.
    let diagram = "
        . . . . X . . .
        . . . . X . . .
        . . X X * . O .";
    assert_eq!(black("d10", diagram), Forbidden(DoubleThree));
}

#[test]
fn a_three_between_two_white_stones_is_not_a_three() {
    // RIF 9.3: O.XXX.O makes only closed fours.
    let diagram = "
        . . . X . . .
        . . . X . . .
        O . X * X . O";
    assert_eq!(black("c10", diagram), Allowed);
}

#[test]
fn x_xx_x_is_not_a_three() {
    // Own: X.XX.X — filling either gap leaves an end that would make six.
    let diagram = "
        . . . X . . . .
        . . . X . . . .
        X . X * . X . .";
    assert_eq!(black("d10", diagram), Allowed);
}

#[test]
fn a_three_whose_far_side_would_make_six_is_still_live() {
    // Own: X..XXX.. — the left straight four would make six, the right one is fine.
    let diagram = "
        . . . . . X . .
        . . . . . X . .
        X . . X X * . .";
    assert_eq!(black("c10", diagram), Forbidden(DoubleThree));
}

#[test]
fn a_three_against_the_edge_is_not_a_three() {
    // Own: |XXX.. cannot become a straight four (the wall is not an empty end).
    let diagram = "
        . . X . . .
        . . X . . .
        X X * . . .";
    assert_eq!(black("a10", diagram), Allowed);
}

#[test]
fn a_three_one_step_from_the_edge_is_a_three() {
    // Own: |.XXX.. becomes .XXXX. with both ends exact fives.
    let diagram = "
        . . . X . .
        . . . X . .
        . X X * . .";
    assert_eq!(black("a10", diagram), Forbidden(DoubleThree));
}

#[test]
fn four_three_three_is_a_double_three() {
    // RIF 9.3: 4-3-3 is forbidden (two threes, whatever the four).
    let diagram = "
        . . . . O . . .
        . . . . X . . .
        . . . . X . . .
        . . . . X . . .
        . . X X * . . .
        . . . X . . . .
        . . X . . . . .";
    assert_eq!(black("d12", diagram), Forbidden(DoubleThree));
}

// ---- the recursive live-three rule (RIF 9.3 clarification) ----

#[test]
fn three_with_one_forbidden_straight_four_point_is_still_live() {
    // Own: the row three f8-h8 can be made straight at e8 or i8; i8 would be an overline
    // (column i6-i11) but e8 is fine, so the three is live: double three with the column.
    let diagram = "
        . . . . . . . .
        . . . . . X . .
        . . . . X X . .
        . . . . X X . .
        . . X X * . . .
        . . . . . X . .
        . . . . . X . .";
    assert_eq!(black("d12", diagram), Forbidden(DoubleThree));
}

#[test]
fn three_whose_only_straight_four_point_is_a_double_four_is_dead() {
    // Own: g8 makes XX.X in the row (only h8 straightens it) and an open column three.
    // With g8 on the board, h8 is a row straight four plus a column four (h9-h11, white
    // h12): a double four, forbidden. So the row three is dead and g8 is allowed.
    let diagram = "
        . . . . . . . .
        . . . . O . . .
        . . . . X . . .
        . . . X X . . .
        . . . X X . . .
        . . X * . X . .
        . . . . . . . .";
    assert_eq!(black("d13", diagram), Allowed);
}

#[test]
fn same_three_is_live_when_its_straight_four_point_is_a_four_three() {
    // Control for the previous case without h11/h12: h8 is then a four plus a three
    // (allowed), so the row three is live and g8 is a double three.
    let diagram = "
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . X X . . .
        . . . X X . . .
        . . X * . X . .
        . . . . . . . .";
    assert_eq!(black("d13", diagram), Forbidden(DoubleThree));
}

#[test]
fn three_whose_only_straight_four_point_is_an_overline_is_dead() {
    // Own: as above, but h8 would make h6-h11, six: the row three is dead, g8 allowed.
    let diagram = "
        . . . . . . . .
        . . . . X . . .
        . . . X X . . .
        . . . X X . . .
        . . X * . X . .
        . . . . X . . .
        . . . . X . . .";
    assert_eq!(black("d11", diagram), Allowed);
}

#[test]
fn three_whose_only_straight_four_point_is_a_four_three_three_is_dead() {
    // Own, two levels: with g8 placed, h8 would be a row straight four plus a column
    // three (h9, h10) plus a diagonal three (i9, j10). The column three is live (h7 or
    // h11 are fine). The diagonal three is live through k11 (g7 would be a double four:
    // column g7-g10 and diagonal g7-j10), so h8 is 4-3-3, forbidden, and g8's row three
    // is dead: g8 is allowed.
    let diagram = "
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . X X . X .
        . . . X X X . .
        . . X * . X . .
        . . . . . . . .";
    assert_eq!(black("d13", diagram), Allowed);
}

#[test]
fn straight_four_point_that_is_only_four_three_keeps_the_three_live() {
    // Control for the previous case without j10: h8 is 4-3 (allowed), so g8 is 3-3.
    let diagram = "
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . X X . . .
        . . . X X X . .
        . . X * . X . .
        . . . . . . . .";
    assert_eq!(black("d13", diagram), Forbidden(DoubleThree));
}

#[test]
fn three_levels_of_recursion_make_the_three_live_again() {
    // Own, three levels: as the 4-3-3 case, plus h14 i13 j12 l10 m9 so that k11 would be
    // an overline (h14-m9 on the anti-diagonal). Then h8's diagonal three has no
    // admissible straight-four point (g7 double four, k11 overline) and is dead, so h8
    // is only 4-3, allowed, and g8's row three is live again: g8 is a double three.
    let diagram = "
        . . . . X . . . . .
        . . . . . X . . . .
        . . . . . . X . . .
        . . . . . . . . . .
        . . . X X . X . X .
        . . . X X X . . . X
        . . X * . X . . . .
        . . . . . . . . . .";
    assert_eq!(black("d14", diagram), Forbidden(DoubleThree));
}

#[test]
fn straight_four_point_that_also_makes_five_does_not_count() {
    // Own, from docs/rules.md#forbidden-moves' wording ("a straight four ... by a move that itself makes
    // no five and is not forbidden"): the row three f8-h8 straightens at e8 (an overline
    // in column e, forbidden) or i8, which also completes i8-i12, a five. Neither move
    // qualifies, so the row three is not live and with the column three h8-h10 this is a
    // single live three: allowed.
    let diagram = "
        . . . . . . . .
        . . . . . X . .
        . X . . . X . .
        . X . . X X . .
        . X . . X X . .
        . . X X * . . .
        . X . . . . . .
        . X . . . . . .";
    assert_eq!(black("d13", diagram), Allowed);
}
