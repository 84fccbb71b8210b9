//! A Gomoku/Renju player.
//!
//! It scores every empty point near the stones by the five-point windows through it:
//! a window with no opponent stone is a chance to make five, worth more the more of our
//! stones it holds (attack); the same count for the opponent's stones is a threat to
//! block (defense). Wins come first, then blocking the opponent's five, then the best
//! score. Legality is never judged here: each candidate is tried on a copy of the game,
//! so the swap room's opening limits and Renju's forbidden points (for black) are the
//! rule crate's.

use gomoku_rules::point::SIZE;
use gomoku_rules::{Action, Board, Color, Game, Phase, Point, Rules, Seat, Verdict};
use rand::Rng;

/// Weight of a five-point window by how many of its points already hold our stones.
const WINDOW_WEIGHT: [i64; 5] = [1, 24, 480, 9_600, 400_000];

/// Directions of the four lines through a point.
const DIRECTIONS: [(i8, i8); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

/// What the bot wants to do now, or `None` when it is not its turn to act.
pub fn decide<R: Rng + ?Sized>(game: &Game, seat: Seat, rng: &mut R) -> Option<Action> {
    if game.to_act() != Some(seat) {
        return None;
    }
    let me = game.color_of(seat);
    let rules = game.rule_set().rules();
    match game.phase() {
        Phase::Over => None,
        Phase::SwapDecision => {
            // White after move 3: take black if black's stones are worth more.
            let board = game.board();
            if position_value(board, Color::Black, rules)
                > position_value(board, Color::White, rules)
            {
                Some(Action::Swap)
            } else {
                best_place(game, seat, me, rng).map(Action::Place)
            }
        }
        Phase::ProposeFifth => propose_fifth(game, seat, me, rng),
        Phase::ChooseFifth { proposals } => {
            // Keep the proposal that leaves black weakest.
            let board = game.board();
            let worth = |p: Point| score_point(board, p, Color::Black, rules);
            let keep = if worth(proposals[0]) <= worth(proposals[1]) {
                proposals[0]
            } else {
                proposals[1]
            };
            Some(Action::ChooseFifth(keep))
        }
        Phase::Play => {
            if game.draw_offer().is_some_and(|offerer| offerer != seat) {
                let board = game.board();
                let behind =
                    position_value(board, me, rules) < position_value(board, me.opponent(), rules);
                return Some(if behind || board.stone_count() > 200 {
                    Action::AcceptDraw
                } else {
                    Action::DeclineDraw
                });
            }
            if claim_would_win(game, seat) {
                return Some(Action::ClaimForbidden);
            }
            best_place(game, seat, me, rng).map(Action::Place)
        }
    }
}

/// A uniformly random legal stone (the baseline the bot is measured against).
pub fn random_move<R: Rng + ?Sized>(game: &Game, seat: Seat, rng: &mut R) -> Option<Action> {
    if game.to_act() != Some(seat) {
        return None;
    }
    match game.phase() {
        Phase::Over => None,
        Phase::ChooseFifth { proposals } => {
            Some(Action::ChooseFifth(proposals[rng.random_range(0..2)]))
        }
        Phase::ProposeFifth => propose_fifth(game, seat, game.color_of(seat), rng),
        Phase::SwapDecision | Phase::Play => {
            let legal: Vec<Point> = Point::all().filter(|&p| is_legal(game, seat, p)).collect();
            if legal.is_empty() {
                None
            } else {
                Some(Action::Place(legal[rng.random_range(0..legal.len())]))
            }
        }
    }
}

/// A random legal stone within `reach` (Chebyshev distance) of a stone already on the
/// board, h8 on an empty one, or anywhere legal when no point near is: games of a
/// realistic length (a few dozen stones) for load generators, where [`random_move`]
/// plays all over the board. Decisions other than a stone are [`random_move`]'s. Each
/// candidate is judged by the rules (on a copy of the game) only when drawn, so a move
/// costs about one such judgement.
pub fn random_move_near<R: Rng + ?Sized>(
    game: &Game,
    seat: Seat,
    reach: u8,
    rng: &mut R,
) -> Option<Action> {
    if game.to_act() != Some(seat) {
        return None;
    }
    match game.phase() {
        Phase::SwapDecision | Phase::Play => {
            let mut near = points_near(game.board(), reach);
            while !near.is_empty() {
                let p = near.swap_remove(rng.random_range(0..near.len()));
                if is_legal(game, seat, p) {
                    return Some(Action::Place(p));
                }
            }
            random_move(game, seat, rng)
        }
        _ => random_move(game, seat, rng),
    }
}

/// The empty points within `reach` of a stone, each once, row by row (h8 on an empty
/// board). The board is read once into a bit per point and row; the stones' rows are
/// widened by `reach` sideways and then up and down, so the cost does not grow with the
/// stones (a load generator calls this for every stone it places).
pub fn points_near(board: &Board, reach: u8) -> Vec<Point> {
    const ROWS: usize = SIZE as usize;
    if board.stone_count() == 0 {
        return vec![Point::CENTER];
    }
    let mut stones = [0u16; ROWS];
    let mut empty = [0u16; ROWS];
    for p in Point::all() {
        let row = if board.is_empty(p) {
            &mut empty
        } else {
            &mut stones
        };
        row[usize::from(p.y())] |= 1 << p.x();
    }
    let reach = usize::from(reach).min(ROWS);
    let wide = stones.map(|mut row| {
        for _ in 0..reach {
            row |= (row << 1) | (row >> 1);
        }
        row
    });
    let mut near = Vec::with_capacity(64);
    for (y, empty_row) in (0u8..).zip(empty) {
        let from = usize::from(y).saturating_sub(reach);
        let to = (usize::from(y) + reach).min(ROWS - 1);
        // Bits past the board's edge are never empty points, so they drop out here.
        let mut row = wide[from..=to].iter().fold(0, |acc, r| acc | r) & empty_row;
        while row != 0 {
            let x = row.trailing_zeros() as u8;
            row &= row - 1;
            near.extend(Point::new(x, y));
        }
    }
    near
}

/// Whether placing at `p` is accepted by the rules and does not lose at once (a
/// forbidden point under the lose policy is accepted but loses; the claim policy's too).
fn is_legal(game: &Game, seat: Seat, p: Point) -> bool {
    if !game.board().is_empty(p) {
        return false;
    }
    if game.rule_set().rules() == Rules::Renju
        && game.color_of(seat) == Color::Black
        && matches!(game.board().black_verdict(p), Verdict::Forbidden(_))
    {
        return false;
    }
    let mut copy = game.clone();
    copy.act(seat, Action::Place(p), game.turn_started_ms())
        .is_ok()
}

/// Empty points within two of a stone (h8 on an empty board).
fn candidates(board: &Board) -> Vec<Point> {
    if board.stone_count() == 0 {
        return vec![Point::CENTER];
    }
    Point::all()
        .filter(|&p| board.is_empty(p) && board.stones().any(|s| s.point.distance(p) <= 2))
        .collect()
}

fn best_place<R: Rng + ?Sized>(game: &Game, seat: Seat, me: Color, rng: &mut R) -> Option<Point> {
    let board = game.board();
    let rules = game.rule_set().rules();
    let mut legal: Vec<Point> = candidates(board)
        .into_iter()
        .filter(|&p| is_legal(game, seat, p))
        .collect();
    if legal.is_empty() {
        // The opening limits (move 2 next to h8, move 3 in the centre) or a crowded
        // board may leave no candidate near the stones: look everywhere.
        legal = Point::all().filter(|&p| is_legal(game, seat, p)).collect();
    }
    if let Some(&win) = legal.iter().find(|&&p| board.wins(p, me, rules)) {
        return Some(win);
    }
    let opponent = me.opponent();
    if let Some(&block) = legal
        .iter()
        .find(|&&p| opponent_wins_at(board, p, opponent, rules))
    {
        return Some(block);
    }
    // A move leaving two winning points (an open four, a double four) cannot be stopped.
    if let Some(&threat) = legal
        .iter()
        .find(|&&p| five_points_after(board, p, me, rules) >= 2)
    {
        return Some(threat);
    }
    // A sequence of fours that ends in an unstoppable threat (VCF).
    if let Some(&start) = legal
        .iter()
        .find(|&&p| continuous_fours_win(board, p, me, rules, VCF_DEPTH))
    {
        return Some(start);
    }
    // Take such a move away from the opponent.
    if let Some(&block) = legal.iter().find(|&&p| {
        opponent_may_play(board, p, opponent, rules)
            && five_points_after(board, p, opponent, rules) >= 2
    }) {
        return Some(block);
    }
    legal
        .into_iter()
        .map(|p| {
            let attack = score_point(board, p, me, rules);
            let defense = if opponent_may_play(board, p, opponent, rules) {
                score_point(board, p, opponent, rules)
            } else {
                0
            };
            let jitter = rng.random_range(0..8);
            (attack * 11 / 10 + defense + jitter, p)
        })
        .max_by_key(|&(score, _)| score)
        .map(|(_, p)| p)
}

/// How many fours deep the continuous-four search looks.
const VCF_DEPTH: u8 = 6;

/// Whether `color` may put a stone on the empty `p` of a hypothetical board.
fn may_play(board: &Board, p: Point, color: Color, rules: Rules) -> bool {
    board.is_empty(p)
        && !(rules == Rules::Renju
            && color == Color::Black
            && matches!(board.black_verdict(p), Verdict::Forbidden(_)))
}

/// Victory by continuous fours (VCF): playing `p` makes a four (or two), the opponent
/// must block its one winning point, and `color` can go on with fours until two
/// winning points appear at once. Only forcing moves are searched, so it is cheap.
fn continuous_fours_win(board: &Board, p: Point, color: Color, rules: Rules, depth: u8) -> bool {
    if depth == 0 || !may_play(board, p, color, rules) {
        return false;
    }
    let mut after = board.clone();
    if after.place(p, color).is_err() {
        return false;
    }
    let wins: Vec<Point> = winning_points_near(&after, p, color, rules);
    match wins.as_slice() {
        [] => false,
        [_, _, ..] => true,
        [block] => {
            let opponent = color.opponent();
            if after.wins(*block, opponent, rules) || after.place(*block, opponent).is_err() {
                return false;
            }
            // The opponent's block must not leave it a five of its own.
            if candidates(&after)
                .into_iter()
                .any(|q| after.wins(q, opponent, rules))
            {
                return false;
            }
            candidates(&after).into_iter().any(|q| {
                winning_points_near_after(&after, q, color, rules) >= 1
                    && continuous_fours_win(&after, q, color, rules, depth - 1)
            })
        }
    }
}

/// The empty points on the lines through `p` (within four) that win for `color`.
fn winning_points_near(board: &Board, p: Point, color: Color, rules: Rules) -> Vec<Point> {
    let mut found: Vec<Point> = Vec::new();
    for (dx, dy) in DIRECTIONS {
        for k in -4i8..=4 {
            if let Some(q) = p.offset(dx, dy, k)
                && board.is_empty(q)
                && !found.contains(&q)
                && board.wins(q, color, rules)
            {
                found.push(q);
            }
        }
    }
    found
}

/// [`five_points_after`] restricted to legal stones.
fn winning_points_near_after(board: &Board, p: Point, color: Color, rules: Rules) -> usize {
    if may_play(board, p, color, rules) {
        five_points_after(board, p, color, rules)
    } else {
        0
    }
}

/// How many points would win for `color` after it plays the empty point `p`.
fn five_points_after(board: &Board, p: Point, color: Color, rules: Rules) -> usize {
    let mut after = board.clone();
    if after.place(p, color).is_err() {
        return 0;
    }
    winning_points_near(&after, p, color, rules).len()
}

/// Whether the opponent would win by playing `p` (black wins only with an exact five in
/// Renju, so its overline points are no threat).
fn opponent_wins_at(board: &Board, p: Point, opponent: Color, rules: Rules) -> bool {
    board.wins(p, opponent, rules)
}

/// Whether the opponent could use `p` at all (not a forbidden point for black).
fn opponent_may_play(board: &Board, p: Point, opponent: Color, rules: Rules) -> bool {
    !(rules == Rules::Renju
        && opponent == Color::Black
        && matches!(board.black_verdict(p), Verdict::Forbidden(_)))
}

/// The windows score of `color` playing the empty point `p`.
fn score_point(board: &Board, p: Point, color: Color, rules: Rules) -> i64 {
    if board.wins(p, color, rules) {
        return WINDOW_WEIGHT[4] * 10;
    }
    let mut total = 0;
    for (dx, dy) in DIRECTIONS {
        for start in -4i8..=0 {
            let mut own = 0;
            let mut blocked = false;
            for k in start..start + 5 {
                match p.offset(dx, dy, k) {
                    None => {
                        blocked = true;
                        break;
                    }
                    Some(q) if q == p => {}
                    Some(q) => match board.get(q) {
                        Some(c) if c == color => own += 1,
                        Some(_) => {
                            blocked = true;
                            break;
                        }
                        None => {}
                    },
                }
            }
            if !blocked {
                total += WINDOW_WEIGHT[own.min(4)];
            }
        }
    }
    total
}

/// How good `color`'s stones are: the best point it could play next.
fn position_value(board: &Board, color: Color, rules: Rules) -> i64 {
    candidates(board)
        .into_iter()
        .map(|p| score_point(board, p, color, rules))
        .max()
        .unwrap_or(0)
}

/// Two good, legal, non-equivalent fifth-move proposals (swap room, black).
fn propose_fifth<R: Rng + ?Sized>(
    game: &Game,
    seat: Seat,
    me: Color,
    rng: &mut R,
) -> Option<Action> {
    let board = game.board();
    let rules = game.rule_set().rules();
    let mut ranked: Vec<(i64, Point)> = candidates(board)
        .into_iter()
        .filter(|&p| board.is_empty(p) && !matches!(board.black_verdict(p), Verdict::Forbidden(_)))
        .map(|p| (score_point(board, p, me, rules) + rng.random_range(0..8), p))
        .collect();
    ranked.sort_by_key(|&(score, _)| std::cmp::Reverse(score));
    for (i, &(_, a)) in ranked.iter().enumerate() {
        for &(_, b) in &ranked[i + 1..] {
            let action = Action::ProposeFifth(a, b);
            let mut copy = game.clone();
            if copy.act(seat, action, game.turn_started_ms()).is_ok() {
                return Some(action);
            }
        }
    }
    None
}

/// Under the claim policy, whether claiming now wins (black's last stone was forbidden).
fn claim_would_win(game: &Game, seat: Seat) -> bool {
    if game.rule_set().policy() != Some(gomoku_rules::ForbiddenPolicy::Claim) {
        return false;
    }
    let mut copy = game.clone();
    copy.act(seat, Action::ClaimForbidden, game.turn_started_ms())
        .is_ok()
        && copy.result().is_some_and(|r| r.winner == Some(seat))
}
