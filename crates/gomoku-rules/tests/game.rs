//! The game state machine: turns, policies, the swap opening, draws, clocks, points.

use gomoku_rules::{
    Color, EndReason, Event, ForbiddenKind, ForbiddenPolicy, Game, GameConfig, GameError, Outcome,
    Phase, Point, RuleSet, Seat, TimeControl,
};

const S0: Seat = Seat::ZERO;
const S1: Seat = Seat::ONE;

fn p(text: &str) -> Point {
    Point::parse(text).expect("valid point")
}

fn game(rule_set: RuleSet) -> Game {
    Game::new(
        GameConfig {
            rule_set,
            time_control: TimeControl::UNLIMITED,
            black_seat: S0,
        },
        1_000,
    )
}

/// Plays the moves alternately from the side to act, one second apart, starting at 2 s.
fn play(game: &mut Game, moves: &str) -> Vec<Event> {
    let mut events = Vec::new();
    for (i, m) in moves.split_whitespace().enumerate() {
        let seat = game.to_act().expect("game still running");
        let now = 2_000 + 1_000 * (game.log().len() + i) as u64;
        events = game
            .place(seat, p(m), now)
            .unwrap_or_else(|e| panic!("{m}: {e}"));
    }
    events
}

/// Refuses and leaves the game exactly as it was.
fn refused(game: &mut Game, seat: Seat, action: gomoku_rules::Action) -> GameError {
    let before = game.clone();
    let error = game
        .act(seat, action, 50_000)
        .expect_err("should be refused");
    assert_eq!(*game, before, "a refused action changed the game");
    error
}

#[test]
fn rule_sets_are_read_by_their_exact_names_only() {
    for rule_set in RuleSet::ALL {
        assert_eq!(RuleSet::parse(rule_set.name()), Some(rule_set));
    }
    for alias in ["renju", "Renju-Lose", "renju_lose", ""] {
        assert_eq!(RuleSet::parse(alias), None, "{alias:?}");
    }
    assert_eq!(
        RuleSet::names(),
        "freestyle, renju-lose, renju-refuse, renju-claim, renju-swap"
    );
}

#[test]
fn black_first_stone_must_be_on_h8_in_every_rule_set() {
    for rule_set in RuleSet::ALL {
        let mut g = game(rule_set);
        let e = refused(&mut g, S0, gomoku_rules::Action::Place(p("g7")));
        assert_eq!(e, GameError::FirstMoveMustBeCenter { point: p("g7") });
        assert!(g.place(S0, Point::CENTER, 1_500).is_ok());
    }
}

#[test]
fn turns_alternate_and_occupied_points_are_refused() {
    let mut g = game(RuleSet::Freestyle);
    play(&mut g, "h8");
    assert_eq!(
        refused(&mut g, S0, gomoku_rules::Action::Place(p("h9"))),
        GameError::NotYourTurn
    );
    assert_eq!(
        refused(&mut g, S1, gomoku_rules::Action::Place(p("h8"))),
        GameError::Occupied { point: p("h8") }
    );
    let events = g.place(S1, p("h9"), 3_000).expect("white moves");
    assert_eq!(
        events,
        vec![Event::StonePlaced {
            ply: 2,
            seat: S1,
            color: Color::White,
            point: p("h9")
        }]
    );
    assert_eq!(g.to_act(), Some(S0));
}

#[test]
fn black_seat_comes_from_the_table() {
    let config = GameConfig {
        rule_set: RuleSet::Freestyle,
        time_control: TimeControl::UNLIMITED,
        black_seat: S1,
    };
    let mut g = Game::new(config, 0);
    assert_eq!(g.to_act(), Some(S1));
    assert!(g.place(S0, Point::CENTER, 1).is_err());
    assert!(g.place(S1, Point::CENTER, 1).is_ok());
}

#[test]
fn five_wins_and_then_nothing_more_is_accepted() {
    let mut g = game(RuleSet::Freestyle);
    let events = play(&mut g, "h8 a1 i8 a2 j8 a3 k8 a4 l8");
    let result = *g.result().expect("over");
    assert_eq!(result.outcome, Outcome::BlackWins);
    assert_eq!(result.reason, EndReason::Five);
    assert_eq!(result.winner, Some(S0));
    assert_eq!(events.last(), Some(&Event::GameOver { result }));
    assert_eq!(
        refused(&mut g, S1, gomoku_rules::Action::Resign),
        GameError::GameOver
    );
    assert_eq!(g.deadline_ms(), None);
    assert_eq!(result.points(10).seats, [50, -50]);
}

#[test]
fn black_overline_does_not_win_in_renju_but_does_in_freestyle() {
    // h8 i8 j8 k8 . m8 n8 then l8 makes six.
    let moves = "h8 a1 i8 a2 j8 a3 k8 a5 m8 a7 n8 a9 l8";
    let mut free = game(RuleSet::Freestyle);
    play(&mut free, moves);
    assert_eq!(free.result().map(|r| r.outcome), Some(Outcome::BlackWins));

    let mut lose = game(RuleSet::Renju(ForbiddenPolicy::Lose));
    play(&mut lose, moves);
    let result = lose.result().expect("over");
    assert_eq!(result.outcome, Outcome::WhiteWins);
    assert_eq!(
        result.reason,
        EndReason::ForbiddenMove {
            kind: ForbiddenKind::Overline
        }
    );
}

#[test]
fn white_wins_with_an_overline_in_renju() {
    let mut g = game(RuleSet::Renju(ForbiddenPolicy::Lose));
    play(&mut g, "h8 a1 h10 b1 h12 c1 j12 e1 k12 f1 m12 d1");
    let result = g.result().expect("over");
    assert_eq!(
        (result.outcome, result.reason),
        (Outcome::WhiteWins, EndReason::Five)
    );
}

/// Moves to the point where black's j8 would be a double three (h8 i8 + j9 j10).
const BEFORE_DOUBLE_THREE: &str = "h8 a1 i8 a3 j9 a5 j10 a7";

#[test]
fn refuse_policy_rejects_the_forbidden_point_and_changes_nothing() {
    let mut g = game(RuleSet::Renju(ForbiddenPolicy::Refuse));
    play(&mut g, BEFORE_DOUBLE_THREE);
    let e = refused(&mut g, S0, gomoku_rules::Action::Place(p("j8")));
    assert_eq!(
        e,
        GameError::Forbidden {
            point: p("j8"),
            kind: ForbiddenKind::DoubleThree
        }
    );
    assert_eq!(e.code(), "forbidden");
    assert!(g.place(S0, p("k8"), 20_000).is_ok());
}

#[test]
fn lose_policy_ends_the_game_on_a_forbidden_move() {
    let mut g = game(RuleSet::Renju(ForbiddenPolicy::Lose));
    play(&mut g, BEFORE_DOUBLE_THREE);
    let events = g.place(S0, p("j8"), 20_000).expect("the move is played");
    assert!(matches!(events[0], Event::StonePlaced { point, .. } if point == p("j8")));
    let result = g.result().expect("over");
    assert_eq!(
        result.reason,
        EndReason::ForbiddenMove {
            kind: ForbiddenKind::DoubleThree
        }
    );
    assert_eq!(result.winner, Some(S1));
    assert_eq!(result.points(1).black, -5);
}

#[test]
fn claim_policy_correct_claim_wins_for_white() {
    let mut g = game(RuleSet::Renju(ForbiddenPolicy::Claim));
    play(&mut g, BEFORE_DOUBLE_THREE);
    let placed = g.place(S0, p("j8"), 20_000).expect("the move stands");
    // Nothing in the public events tells white the move was forbidden.
    assert_eq!(placed.len(), 1);
    let events = g.claim_forbidden(S1, 21_000).expect("claim");
    assert_eq!(
        events[0],
        Event::ForbiddenClaimUpheld {
            seat: S1,
            kind: ForbiddenKind::DoubleThree
        }
    );
    let result = g.result().expect("over");
    assert_eq!(
        result.reason,
        EndReason::ForbiddenClaimed {
            kind: ForbiddenKind::DoubleThree
        }
    );
    assert_eq!(result.outcome, Outcome::WhiteWins);
}

#[test]
fn claim_policy_wrong_claim_costs_white_its_turn() {
    let mut g = game(RuleSet::Renju(ForbiddenPolicy::Claim));
    play(&mut g, "h8 a1 i8");
    let events = g.claim_forbidden(S1, 10_000).expect("claim is an action");
    assert_eq!(events, vec![Event::ForbiddenClaimRejected { seat: S1 }]);
    assert_eq!(g.to_act(), Some(S0), "black moves again");
    assert!(g.place(S0, p("j8"), 11_000).is_ok());
    assert_eq!(g.moves().iter().filter(|m| m.1 == Color::Black).count(), 3);
    assert_eq!(g.to_act(), Some(S1));
}

#[test]
fn claim_policy_playing_on_forgives_the_forbidden_move() {
    let mut g = game(RuleSet::Renju(ForbiddenPolicy::Claim));
    play(&mut g, BEFORE_DOUBLE_THREE);
    g.place(S0, p("j8"), 20_000).expect("the move stands");
    g.place(S1, p("o15"), 21_000)
        .expect("white plays instead of claiming");
    g.place(S0, p("o1"), 22_000).expect("black plays");
    // The forbidden move is forgiven for good: a claim now is simply wrong.
    let events = g.claim_forbidden(S1, 23_000).expect("claim");
    assert_eq!(events, vec![Event::ForbiddenClaimRejected { seat: S1 }]);
    assert!(!g.is_over());
}

#[test]
fn claims_exist_only_under_the_claim_policy() {
    for rule_set in [
        RuleSet::Freestyle,
        RuleSet::Renju(ForbiddenPolicy::Lose),
        RuleSet::RenjuSwap,
    ] {
        let mut g = game(rule_set);
        play(&mut g, "h8");
        assert_eq!(
            refused(&mut g, S1, gomoku_rules::Action::ClaimForbidden),
            GameError::NothingToClaim
        );
    }
    let mut g = game(RuleSet::Renju(ForbiddenPolicy::Claim));
    play(&mut g, "h8 i9");
    assert_eq!(
        refused(&mut g, S0, gomoku_rules::Action::ClaimForbidden),
        GameError::NotYourTurn
    );
}

#[test]
fn swap_room_opening_rules() {
    let mut g = game(RuleSet::RenjuSwap);
    play(&mut g, "h8");
    assert_eq!(
        refused(&mut g, S1, gomoku_rules::Action::Place(p("h10"))),
        GameError::SecondMoveMustTouchCenter { point: p("h10") }
    );
    play(&mut g, "i9");
    assert_eq!(
        refused(&mut g, S0, gomoku_rules::Action::Place(p("k8"))),
        GameError::ThirdMoveOutsideCenter { point: p("k8") }
    );
    play(&mut g, "j10");
    assert_eq!(g.phase(), Phase::SwapDecision);
    assert_eq!(g.to_act(), Some(S1));
    assert_eq!(
        refused(&mut g, S0, gomoku_rules::Action::Swap),
        GameError::NotYourTurn
    );

    // White swaps: seat 1 now holds black, seat 0 (now white) plays move 4.
    let events = g.swap(S1, 9_000).expect("swap");
    assert_eq!(
        events,
        vec![Event::Swapped {
            seat: S1,
            black_seat: S1
        }]
    );
    assert_eq!(g.color_of(S1), Color::Black);
    assert_eq!(g.to_act(), Some(S0));
    assert_eq!(
        refused(&mut g, S0, gomoku_rules::Action::Swap),
        GameError::WrongPhase { phase: Phase::Play }
    );
    g.place(S0, p("g9"), 10_000).expect("move 4");
    assert_eq!(g.phase(), Phase::ProposeFifth);
    assert!(matches!(
        refused(&mut g, S1, gomoku_rules::Action::Place(p("g7"))),
        GameError::WrongPhase { .. }
    ));

    // Proposals: identical, equivalent by symmetry, then a valid pair.
    assert_eq!(
        refused(
            &mut g,
            S1,
            gomoku_rules::Action::ProposeFifth(p("g7"), p("g7"))
        ),
        GameError::IdenticalProposals
    );
    let events = g
        .propose_fifth(S1, [p("g7"), p("k11")], 11_000)
        .expect("proposals");
    assert_eq!(
        events,
        vec![Event::FifthProposed {
            seat: S1,
            proposals: [p("g7"), p("k11")]
        }]
    );
    assert_eq!(g.to_act(), Some(S0));
    assert_eq!(
        refused(&mut g, S0, gomoku_rules::Action::ChooseFifth(p("a1"))),
        GameError::NotAProposal { point: p("a1") }
    );
    let events = g.choose_fifth(S0, p("k11"), 12_000).expect("choice");
    assert_eq!(
        events[0],
        Event::FifthChosen {
            seat: S0,
            point: p("k11"),
            rejected: p("g7")
        }
    );
    assert_eq!(
        events[1],
        Event::StonePlaced {
            ply: 5,
            seat: S1,
            color: Color::Black,
            point: p("k11")
        }
    );
    assert_eq!(g.board().get(p("k11")), Some(Color::Black));
    assert!(g.board().is_empty(p("g7")));
    // White plays move 6.
    assert_eq!(g.to_act(), Some(S0));
    assert_eq!(g.phase(), Phase::Play);
    g.place(S0, p("l12"), 13_000).expect("move 6");
}

#[test]
fn swap_room_white_may_decline_by_playing_move_four() {
    let mut g = game(RuleSet::RenjuSwap);
    play(&mut g, "h8 h9 g7 j9");
    assert_eq!(g.phase(), Phase::ProposeFifth);
    assert_eq!(g.to_act(), Some(S0));
    assert_eq!(g.color_of(S0), Color::Black);
}

#[test]
fn proposals_equivalent_under_a_reflection_are_refused() {
    // Black h8 h10, white h9 h7: the position is symmetric about column h, so g8 and i8
    // are mirror images (RIF: proposals must not be equivalent).
    let mut g = game(RuleSet::RenjuSwap);
    play(&mut g, "h8 h9 h10 h7");
    assert_eq!(
        refused(
            &mut g,
            S0,
            gomoku_rules::Action::ProposeFifth(p("g8"), p("i8"))
        ),
        GameError::EquivalentProposals {
            a: p("g8"),
            b: p("i8")
        }
    );
    assert!(g.propose_fifth(S0, [p("g8"), p("j8")], 9_000).is_ok());
}

#[test]
fn draw_offer_accept_decline_and_lapse() {
    let mut g = game(RuleSet::Freestyle);
    play(&mut g, "h8 h9");
    // Offer by black, declined by white.
    assert_eq!(
        g.offer_draw(S0, 5_000).expect("offer"),
        vec![Event::DrawOffered { seat: S0 }]
    );
    assert_eq!(
        refused(&mut g, S0, gomoku_rules::Action::AcceptDraw),
        GameError::NoDrawOffer
    );
    assert_eq!(
        refused(&mut g, S1, gomoku_rules::Action::OfferDraw),
        GameError::DrawOfferPending { by: S0 }
    );
    assert_eq!(
        g.decline_draw(S1, 5_100).expect("decline"),
        vec![Event::DrawDeclined { seat: S1 }]
    );
    assert_eq!(
        refused(&mut g, S0, gomoku_rules::Action::OfferDraw),
        GameError::DrawOfferTooSoon
    );

    // Offer by black lapses when white moves ... but not when black itself moves.
    g.place(S0, p("a1"), 6_000).expect("black moves");
    g.offer_draw(S0, 6_500).expect("offer again after a move");
    let events = g.place(S1, p("a2"), 7_000).expect("white moves");
    assert_eq!(events[1], Event::DrawLapsed { offered_by: S0 });
    assert_eq!(g.draw_offer(), None);

    g.offer_draw(S1, 7_500)
        .expect("white offers on black's turn");
    g.place(S0, p("a3"), 8_000)
        .expect("black moves, lapsing it");
    assert_eq!(g.draw_offer(), None);
    g.offer_draw(S0, 8_200)
        .expect("black offers on white's turn");
    let events = g.accept_draw(S1, 8_500).expect("accept");
    let result = g.result().expect("over");
    assert_eq!(result.reason, EndReason::DrawAgreed { offered_by: S0 });
    assert_eq!(result.outcome, Outcome::Draw);
    assert_eq!(events, vec![Event::GameOver { result: *result }]);
    // Offerer -1, accepter +1.
    assert_eq!(result.points(3).seats, [-3, 3]);
}

#[test]
fn resignation_and_escape_score_per_the_table() {
    let mut g = game(RuleSet::Freestyle);
    play(&mut g, "h8");
    g.resign(S0, 3_000).expect("black resigns");
    let r = *g.result().expect("over");
    assert_eq!((r.outcome, r.winner), (Outcome::WhiteWins, Some(S1)));
    assert_eq!((r.points(1).black, r.points(1).white), (-3, 3));

    let mut g = game(RuleSet::Freestyle);
    g.resign(S1, 3_000)
        .expect("white resigns, even on black's turn");
    assert_eq!(
        g.result().map(|r| (r.points(1).black, r.points(1).white)),
        Some((2, -2))
    );

    let mut g = game(RuleSet::Freestyle);
    g.escape(S0, 3_000).expect("black leaves");
    assert_eq!(
        g.result().map(|r| (r.points(2).black, r.points(2).white)),
        Some((-20, 0))
    );
    let mut g = game(RuleSet::Freestyle);
    g.escape(S1, 3_000).expect("white leaves");
    assert_eq!(g.result().map(|r| r.points(1).seats), Some([0, -10]));
}

#[test]
fn points_follow_colors_after_a_swap() {
    let mut g = game(RuleSet::RenjuSwap);
    play(&mut g, "h8 h9 g7");
    g.swap(S1, 9_000).expect("swap");
    g.resign(S1, 9_500).expect("seat 1, now black, resigns");
    let r = g.result().expect("over");
    assert_eq!(r.black_seat, S1);
    let points = r.points(1);
    assert_eq!((points.black, points.white), (-3, 3));
    assert_eq!(points.seats, [3, -3]);
}

#[test]
fn per_move_clock_runs_out() {
    let config = GameConfig {
        rule_set: RuleSet::Freestyle,
        time_control: TimeControl {
            per_move_ms: 10_000,
            total_ms: 0,
        },
        black_seat: S0,
    };
    let mut g = Game::new(config, 0);
    assert_eq!(g.deadline_ms(), Some(10_000));
    assert!(g.check_timeout(9_999).is_empty());
    g.place(S0, Point::CENTER, 4_000).expect("in time");
    assert_eq!(g.deadline_ms(), Some(14_000));
    // A move at the deadline is late: refused, state unchanged, then the timeout applies.
    let before = g.clone();
    assert_eq!(
        g.place(S1, p("h9"), 14_000),
        Err(GameError::TimeExpired {
            deadline_ms: 14_000
        })
    );
    assert_eq!(g, before);
    let events = g.check_timeout(15_000);
    let result = *g.result().expect("over");
    assert_eq!(events, vec![Event::GameOver { result }]);
    assert_eq!(result.reason, EndReason::Timeout { seat: S1 });
    assert_eq!(result.outcome, Outcome::BlackWins);
    assert_eq!(result.points(1).seats, [5, -5]);
    assert_eq!(
        g.log().last().map(|e| e.at_ms),
        Some(14_000),
        "logged at the deadline"
    );
}

#[test]
fn total_clock_runs_out_across_moves() {
    let config = GameConfig {
        rule_set: RuleSet::Freestyle,
        time_control: TimeControl {
            per_move_ms: 30_000,
            total_ms: 50_000,
        },
        black_seat: S0,
    };
    let mut g = Game::new(config, 0);
    g.place(S0, Point::CENTER, 20_000).expect("black used 20 s");
    g.place(S1, p("h9"), 21_000).expect("white used 1 s");
    assert_eq!(g.remaining_ms(S0), Some(30_000));
    g.place(S0, p("a1"), 46_000).expect("black used 25 s more");
    assert_eq!(g.remaining_ms(S0), Some(5_000));
    g.place(S1, p("a2"), 47_000).expect("white");
    // Black's deadline is now the remaining total (5 s), not the per-move 30 s.
    assert_eq!(g.deadline_ms(), Some(52_000));
    g.offer_draw(S1, 50_000)
        .expect("offers do not stop the clock");
    assert!(g.check_timeout(51_999).is_empty());
    g.check_timeout(52_000);
    assert_eq!(
        g.result().map(|r| r.reason),
        Some(EndReason::Timeout { seat: S0 })
    );
}

#[test]
fn clock_never_runs_backwards() {
    let config = GameConfig {
        rule_set: RuleSet::Freestyle,
        time_control: TimeControl {
            per_move_ms: 10_000,
            total_ms: 0,
        },
        black_seat: S0,
    };
    let mut g = Game::new(config, 5_000);
    g.place(S0, Point::CENTER, 7_000).expect("in time");
    g.place(S1, p("h9"), 6_000)
        .expect("an earlier wall clock is read as 7 s");
    assert_eq!(g.log()[1].at_ms, 2_000);
}

#[test]
fn swap_phases_run_the_clock_of_the_seat_that_must_act() {
    let config = GameConfig {
        rule_set: RuleSet::RenjuSwap,
        time_control: TimeControl {
            per_move_ms: 10_000,
            total_ms: 0,
        },
        black_seat: S0,
    };
    let mut g = Game::new(config, 0);
    g.place(S0, p("h8"), 1_000).expect("1");
    g.place(S1, p("h9"), 2_000).expect("2");
    g.place(S0, p("g7"), 3_000).expect("3");
    assert_eq!((g.to_act(), g.deadline_ms()), (Some(S1), Some(13_000)));
    g.swap(S1, 4_000).expect("swap");
    assert_eq!((g.to_act(), g.deadline_ms()), (Some(S0), Some(14_000)));
    g.place(S0, p("j9"), 5_000).expect("4");
    assert_eq!((g.to_act(), g.deadline_ms()), (Some(S1), Some(15_000)));
    g.propose_fifth(S1, [p("g9"), p("f6")], 6_000)
        .expect("5 proposals");
    assert_eq!((g.to_act(), g.deadline_ms()), (Some(S0), Some(16_000)));
    g.check_timeout(16_000);
    assert_eq!(
        g.result().map(|r| r.reason),
        Some(EndReason::Timeout { seat: S0 })
    );
}

#[test]
fn natural_draw_ends_the_game_when_no_five_is_possible() {
    // Fill the board in a pattern where no five of either color can form: rows of period 4
    // in columns (XXOO...) shifted by one each row never give five in any direction, and
    // play it through the state machine in freestyle; the game must end drawn by the
    // natural-draw rule no later than the last stone.
    let mut g = game(RuleSet::Freestyle);
    let color_at = |x: u8, y: u8| {
        if (x as u32 + 2 * y as u32) % 4 < 2 {
            Color::Black
        } else {
            Color::White
        }
    };
    let mut blacks: Vec<Point> = Vec::new();
    let mut whites: Vec<Point> = Vec::new();
    for q in Point::all() {
        if q == Point::CENTER {
            continue;
        }
        match color_at(q.x(), q.y()) {
            Color::Black => blacks.push(q),
            Color::White => whites.push(q),
        }
    }
    assert_eq!(color_at(7, 7), Color::Black);
    let mut t = 2_000;
    g.place(S0, Point::CENTER, t).expect("h8");
    let (mut bi, mut wi) = (0, 0);
    while !g.is_over() {
        t += 10;
        let seat = g.to_act().expect("running");
        let q = if g.color_of(seat) == Color::Black {
            bi += 1;
            blacks.get(bi - 1).copied()
        } else {
            wi += 1;
            whites.get(wi - 1).copied()
        };
        let Some(q) = q else { break };
        g.place(seat, q, t).expect("legal");
    }
    let result = g.result().expect("the game ended");
    assert_eq!(result.reason, EndReason::NaturalDraw);
    assert_eq!(result.points(1).seats, [0, 0]);
    assert!(
        g.board().stone_count() < 225,
        "a dead position is found before the board is full"
    );
}

#[test]
fn events_serialize_as_tagged_json() {
    let mut g = game(RuleSet::Freestyle);
    let events = g.place(S0, Point::CENTER, 2_000).expect("h8");
    let json = serde_json::to_string(&events).expect("json");
    assert_eq!(
        json,
        r#"[{"event":"stone_placed","ply":1,"seat":0,"color":"black","point":"h8"}]"#
    );
    g.resign(S1, 3_000).expect("resign");
    let json = serde_json::to_string(g.result().expect("over")).expect("json");
    assert_eq!(
        json,
        r#"{"outcome":"black_wins","reason":"resignation","seat":1,"winner":0,"black_seat":0}"#
    );
}

fn line(g: &Game) -> Vec<String> {
    g.winning_line().iter().map(ToString::to_string).collect()
}

#[test]
fn the_winning_line_is_the_five_along_its_direction() {
    // A row, completed in its middle: the five in order from one end.
    let mut g = game(RuleSet::Freestyle);
    play(&mut g, "h8 a1 i8 a2 k8 a3 l8 a4");
    assert!(line(&g).is_empty(), "no line while the game runs");
    play(&mut g, "j8");
    assert_eq!(line(&g), ["h8", "i8", "j8", "k8", "l8"]);

    // A diagonal going down to the right, for white.
    let mut g = game(RuleSet::Freestyle);
    play(&mut g, "h8 c12 o1 d11 o3 e10 o5 f9 o7 g8");
    assert_eq!(g.result().map(|r| r.outcome), Some(Outcome::WhiteWins));
    assert_eq!(line(&g), ["c12", "d11", "e10", "f9", "g8"]);

    // An overline wins whole in freestyle: all seven stones, h8 to n8.
    let mut g = game(RuleSet::Freestyle);
    play(&mut g, "h8 a1 i8 a2 j8 a3 k8 a5 m8 a7 n8 a9 l8");
    assert_eq!(line(&g), ["h8", "i8", "j8", "k8", "l8", "m8", "n8"]);
}

#[test]
fn no_winning_line_for_an_ending_other_than_five() {
    let mut g = game(RuleSet::Renju(ForbiddenPolicy::Lose));
    play(&mut g, "h8 a1 i8 a2 j8 a3 k8 a5 m8 a7 n8 a9 l8");
    assert_eq!(
        g.result().map(|r| r.reason),
        Some(EndReason::ForbiddenMove {
            kind: ForbiddenKind::Overline
        })
    );
    assert!(
        line(&g).is_empty(),
        "a forbidden overline is no winning line"
    );
    let mut g = game(RuleSet::Freestyle);
    play(&mut g, "h8 a1");
    g.act(S0, gomoku_rules::Action::Resign, 50_000)
        .expect("resign");
    assert!(line(&g).is_empty());
}
