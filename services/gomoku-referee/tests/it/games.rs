//! Full games through the API in every room, each checked at the ledger afterwards.

use std::time::Duration;

use gamehub_proto::gomoku as pb;
use tonic::Code;

use crate::support::*;

/// Black stones h8 i8 j9 j10 with white far away: j8 then makes two live threes.
const BEFORE_DOUBLE_THREE: [&str; 8] = ["h8", "a1", "i8", "a3", "j9", "a5", "j10", "a7"];

/// Black makes five up the h column (h8–h12) while white plays along the a column.
const BLACK_FIVE_IN_A_COLUMN: [&str; 9] = ["h8", "a1", "h9", "a2", "h10", "a3", "h11", "a4", "h12"];

fn forbidden(table: &pb::Table, point: &str) -> Option<pb::ForbiddenKind> {
    game(table)
        .forbidden_points
        .iter()
        .find(|f| f.point.as_ref().is_some_and(|p| p.text == point))
        .map(|f| f.kind())
}

#[tokio::test]
async fn freestyle_five_wins_and_the_ledger_pays_the_winner() {
    let fx = Fixture::new().await;
    fx.grant(&["alice", "bob"]).await;
    let (alice, bob) = (fx.player("alice"), fx.player("bob"));
    let table = fx
        .open(pb::RuleSet::Freestyle, (60_000, 600_000), ["alice", "bob"])
        .await;
    assert_eq!(table.status(), pb::TableStatus::Playing);
    assert_eq!(game(&table).to_act_seat, Some(0));
    assert!(game(&table).turn_deadline_unix_ms > 0);
    let id = &table.table_id;
    let end = play(&alice, &bob, id, &BLACK_FIVE_IN_A_COLUMN).await;
    assert_eq!(end.your_seat, Some(0));
    assert_eq!(end.status(), pb::TableStatus::BetweenGames);
    let r = result(&end);
    assert_eq!(r.outcome(), pb::Outcome::BlackWins);
    assert_eq!(r.reason(), pb::EndReason::Five);
    assert_eq!(r.points, vec![5, -5]);
    assert_eq!(game(&end).last_move.as_ref().unwrap().ply, 9);
    let line: Vec<&str> = r.winning_line.iter().map(|p| p.text.as_str()).collect();
    assert_eq!(
        line,
        ["h8", "h9", "h10", "h11", "h12"],
        "the winning five, in order"
    );

    let settlement = fx.settled(id, 1).await;
    assert_eq!(settlement.seats[0].points_delta, 5);
    assert_eq!(settlement.seats[1].silver_delta, -50);
    fx.assert_ledger("alice", 5, 1).await;
    fx.assert_ledger("bob", -5, 1).await;

    // The record: fetched, exported in both formats, loaded back.
    let mut service = fx.service();
    let record = service
        .get_record(pb::GetRecordRequest {
            table_id: id.clone(),
            game_number: 0,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(record.game_id, format!("{id}:1"));
    assert_eq!(record.entries.len(), 9);
    assert_eq!(record.black_player_id, "alice");
    for (format, starts) in [
        (pb::RecordFormat::Text, "[Game \"gomoku\"]"),
        (pb::RecordFormat::Psq, "Piskvorky 15x15"),
    ] {
        let exported = service
            .export_record(pb::ExportRecordRequest {
                table_id: id.clone(),
                game_number: 1,
                format: format as i32,
            })
            .await
            .unwrap()
            .into_inner();
        assert!(exported.content.starts_with(starts), "{}", exported.content);
        let loaded = service
            .load_record(pb::LoadRecordRequest {
                format: format as i32,
                content: exported.content,
                rule_set: pb::RuleSet::Freestyle as i32,
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(loaded.stones.len(), 9);
        assert_eq!(loaded.stones[8].point.as_ref().unwrap().text, "h12");
        assert_eq!(loaded.result.unwrap().outcome(), pb::Outcome::BlackWins);
    }
    fx.stop().await;
}

/// `PlaceStoneRequest.known_stones`: the answer leaves out the stones the caller holds
/// of the game it names, and only then; a retry is answered the same way.
#[tokio::test]
async fn a_stone_answer_leaves_out_the_stones_the_caller_holds() {
    let fx = Fixture::new().await;
    fx.grant(&["kara", "kim"]).await;
    let (kara, kim) = (fx.player("kara"), fx.player("kim"));
    let table = fx
        .open(pb::RuleSet::Freestyle, (60_000, 600_000), ["kara", "kim"])
        .await;
    let id = &table.table_id;
    let whole = play(&kara, &kim, id, &["h8", "a1", "h9", "a2"]).await;
    assert_eq!(game(&whole).stones.len(), 4);
    assert_eq!(
        game(&whole).stones_omitted,
        0,
        "an answer asked whole is whole"
    );

    // Kara holds the four stones of game 1: her fifth stone's answer carries only it.
    let fifth = kara
        .place_knowing(id, "h10", "brief-1", 1, 4)
        .await
        .unwrap();
    let g = game(&fifth);
    assert_eq!(g.stones_omitted, 4);
    assert_eq!(g.stones.len(), 1);
    assert_eq!(
        (
            g.stones[0].ply,
            g.stones[0].point.as_ref().unwrap().text.as_str()
        ),
        (5, "h10")
    );
    assert_eq!(g.last_move.as_ref().unwrap().ply, 5);
    assert_eq!(g.to_act_seat, Some(1), "the rest of the table is as always");
    // The retry of the same request is answered as briefly.
    let again = kara
        .place_knowing(id, "h10", "brief-1", 1, 4)
        .await
        .unwrap();
    assert_eq!(brief(&again), (4, 1));
    // Holding every stone before its own: only the new stone is listed.
    let only_new = kim.place_knowing(id, "a3", "brief-2", 1, 5).await.unwrap();
    assert_eq!(brief(&only_new), (5, 1));
    // Another game's number, or more stones than the game has: every stone.
    let other = kara
        .place_knowing(id, "h11", "brief-3", 2, 6)
        .await
        .unwrap();
    assert_eq!(brief(&other), (0, 7));
    let too_many = kim.place_knowing(id, "a4", "brief-4", 1, 99).await.unwrap();
    assert_eq!(brief(&too_many), (0, 8));
    // GetTable, as every answer that was not asked to be brief, has every stone.
    assert_eq!(brief(&kara.view(id).await), (0, 8));
}

/// (stones left out, stones listed) of an answer's game.
fn brief(table: &pb::Table) -> (u32, usize) {
    (game(table).stones_omitted, game(table).stones.len())
}

#[tokio::test]
async fn renju_forbidden_move_loses_at_once_in_a_lose_room() {
    let fx = Fixture::new().await;
    fx.grant(&["alice", "bob"]).await;
    let (alice, bob) = (fx.player("alice"), fx.player("bob"));
    let table = fx
        .open(pb::RuleSet::RenjuLose, (60_000, 0), ["alice", "bob"])
        .await;
    let id = &table.table_id;
    let before = play(&alice, &bob, id, &BEFORE_DOUBLE_THREE).await;
    assert_eq!(
        forbidden(&before, "j8"),
        Some(pb::ForbiddenKind::DoubleThree),
        "the view shows black's forbidden points"
    );
    let end = alice.place(id, "j8").await.unwrap();
    let r = result(&end);
    assert_eq!(r.outcome(), pb::Outcome::WhiteWins);
    assert_eq!(r.reason(), pb::EndReason::ForbiddenMove);
    assert_eq!(r.forbidden_kind(), pb::ForbiddenKind::DoubleThree);
    fx.settled(id, 1).await;
    fx.assert_ledger("alice", -5, 1).await;
    fx.assert_ledger("bob", 5, 1).await;
    fx.stop().await;
}

#[tokio::test]
async fn renju_refuse_rejects_a_forbidden_point_and_changes_nothing() {
    let fx = Fixture::new().await;
    fx.grant(&["alice", "bob"]).await;
    let (alice, bob) = (fx.player("alice"), fx.player("bob"));
    let table = fx
        .open(pb::RuleSet::RenjuRefuse, (60_000, 0), ["alice", "bob"])
        .await;
    let id = &table.table_id;
    let before = play(&alice, &bob, id, &BEFORE_DOUBLE_THREE).await;
    let refused = alice.place(id, "j8").await.unwrap_err();
    assert_eq!(refused.code(), Code::FailedPrecondition);
    assert!(
        refused.message().starts_with("forbidden:") && refused.message().contains("double three"),
        "{}",
        refused.message()
    );
    let after = fx.table(id).await;
    assert_eq!(after.last_event_id, before.last_event_id);
    assert_eq!(game(&after).stones.len(), 8);
    assert_eq!(game(&after).to_act_seat, Some(0), "still black's turn");
    // Black plays elsewhere; white resigns (+2 black, −2 white).
    alice.place(id, "o15").await.unwrap();
    let end = bob.resign(id).await.unwrap();
    assert_eq!(result(&end).reason(), pb::EndReason::Resignation);
    fx.settled(id, 1).await;
    fx.assert_ledger("alice", 2, 1).await;
    fx.assert_ledger("bob", -2, 1).await;
    fx.stop().await;
}

#[tokio::test]
async fn renju_claim_a_right_claim_wins() {
    let fx = Fixture::new().await;
    fx.grant(&["alice", "bob"]).await;
    let (alice, bob) = (fx.player("alice"), fx.player("bob"));
    let table = fx
        .open(pb::RuleSet::RenjuClaim, (60_000, 0), ["alice", "bob"])
        .await;
    let id = &table.table_id;
    play(&alice, &bob, id, &BEFORE_DOUBLE_THREE).await;
    // Spotting the forbidden point is white's part of the game: only black is told.
    assert_eq!(
        forbidden(&alice.view(id).await, "j8"),
        Some(pb::ForbiddenKind::DoubleThree),
        "black sees its own forbidden points"
    );
    assert!(game(&bob.view(id).await).forbidden_points.is_empty());
    assert!(game(&fx.table(id).await).forbidden_points.is_empty());
    let stands = alice.place(id, "j8").await.unwrap();
    assert_eq!(game(&stands).stones.len(), 9, "the forbidden stone stands");
    assert!(game(&stands).result.is_none());
    let claim = bob.claim(id).await.unwrap();
    assert!(claim.upheld);
    let r = result(claim.table.as_ref().unwrap());
    assert_eq!(r.reason(), pb::EndReason::ForbiddenClaimed);
    assert_eq!(r.outcome(), pb::Outcome::WhiteWins);
    fx.settled(id, 1).await;
    fx.assert_ledger("alice", -5, 1).await;
    fx.assert_ledger("bob", 5, 1).await;
    fx.stop().await;
}

#[tokio::test]
async fn renju_claim_a_white_stone_forgives_and_a_wrong_claim_passes_the_turn() {
    let fx = Fixture::new().await;
    fx.grant(&["alice", "bob"]).await;
    let (alice, bob) = (fx.player("alice"), fx.player("bob"));
    let table = fx
        .open(pb::RuleSet::RenjuClaim, (60_000, 0), ["alice", "bob"])
        .await;
    let id = &table.table_id;
    play(&alice, &bob, id, &BEFORE_DOUBLE_THREE).await;
    alice.place(id, "j8").await.unwrap();
    bob.place(id, "a9").await.unwrap(); // plays instead of claiming: forgiven
    alice.place(id, "o15").await.unwrap();
    let claim = bob.claim(id).await.unwrap();
    assert!(!claim.upheld, "nothing to claim any more");
    let t = claim.table.unwrap();
    assert!(game(&t).result.is_none());
    assert_eq!(game(&t).to_act_seat, Some(0), "black moves again");
    assert_eq!(game(&t).to_move(), pb::Color::Black);
    alice.place(id, "o13").await.unwrap();
    // Black resigns: −3 / +3.
    bob.place(id, "a11").await.unwrap();
    let end = alice.resign(id).await.unwrap();
    assert_eq!(result(&end).points, vec![-3, 3]);
    fx.settled(id, 1).await;
    fx.assert_ledger("alice", -3, 1).await;
    fx.assert_ledger("bob", 3, 1).await;
    fx.stop().await;
}

#[tokio::test]
async fn swap_room_opening_with_swap_proposals_and_an_agreed_draw() {
    let fx = Fixture::new().await;
    fx.grant(&["alice", "bob"]).await;
    let (alice, bob) = (fx.player("alice"), fx.player("bob"));
    let table = fx
        .open(pb::RuleSet::RenjuSwap, (60_000, 0), ["alice", "bob"])
        .await;
    let id = &table.table_id;
    // Move 2 must touch h8.
    alice.place(id, "h8").await.unwrap();
    let far = bob.place(id, "h12").await.unwrap_err();
    assert_eq!(far.code(), Code::FailedPrecondition);
    assert!(
        far.message().starts_with("second_move_must_touch_center"),
        "{}",
        far.message()
    );
    bob.place(id, "i9").await.unwrap();
    let t = alice.place(id, "j7").await.unwrap();
    assert_eq!(game(&t).phase(), pb::Phase::SwapDecision);
    assert_eq!(game(&t).to_act_seat, Some(1));
    // Bob (white) swaps and now holds black; alice plays move 4 as white.
    let t = bob.swap(id).await.unwrap();
    assert_eq!(game(&t).black_seat, 1);
    assert_eq!(t.players[1].color(), pb::Color::Black);
    assert_eq!(game(&t).to_act_seat, Some(0));
    let t = alice.place(id, "f6").await.unwrap();
    assert_eq!(game(&t).phase(), pb::Phase::ProposeFifth);
    let same = bob.propose(id, "a1", "a1").await.unwrap_err();
    assert_eq!(same.code(), Code::FailedPrecondition);
    let t = bob.propose(id, "a1", "b2").await.unwrap();
    assert_eq!(game(&t).phase(), pb::Phase::ChooseFifth);
    assert_eq!(game(&t).fifth_proposals.len(), 2);
    let t = alice.choose(id, "b2").await.unwrap();
    assert_eq!(game(&t).stones.len(), 5);
    assert_eq!(game(&t).stones[4].point.as_ref().unwrap().text, "b2");
    assert_eq!(game(&t).to_act_seat, Some(0), "white plays move 6");
    alice.place(id, "a15").await.unwrap();
    // A declined offer, then an accepted one.
    let t = alice.offer_draw(id).await.unwrap();
    assert_eq!(game(&t).draw_offered_by_seat, Some(0));
    let t = bob.answer_draw(id, false).await.unwrap();
    assert_eq!(game(&t).draw_offered_by_seat, None);
    bob.place(id, "o15").await.unwrap();
    bob.offer_draw(id).await.unwrap();
    let end = alice.answer_draw(id, true).await.unwrap();
    let r = result(&end);
    assert_eq!(r.reason(), pb::EndReason::DrawAgreed);
    assert_eq!(r.seat, Some(1));
    // Bob offered (−1), alice accepted (+1).
    assert_eq!(r.points, vec![1, -1]);
    fx.settled(id, 1).await;
    fx.assert_ledger("alice", 1, 1).await;
    fx.assert_ledger("bob", -1, 1).await;
    fx.stop().await;
}

#[tokio::test]
async fn a_player_out_of_time_loses_with_nobody_connected_and_an_idle_table_closes() {
    let fx = Fixture::with(|env| {
        env.push(("GAMEHUB_GOMOKU_BETWEEN_GAMES_MS".into(), "400".into()));
    })
    .await;
    fx.grant(&["alice", "bob"]).await;
    let alice = fx.player("alice");
    let table = fx
        .open(pb::RuleSet::Freestyle, (1_000, 0), ["alice", "bob"])
        .await;
    let id = &table.table_id;
    alice.place(id, "h8").await.unwrap();
    // Bob never moves; once his time has run out, the sweeper ends the game on time.
    fx.run_out_the_clock(id).await;
    let over = fx.game_over(id).await;
    let r = result(&over);
    assert_eq!(r.reason(), pb::EndReason::Timeout);
    assert_eq!(r.seat, Some(1));
    assert_eq!(r.outcome(), pb::Outcome::BlackWins);
    assert!(over.closes_at_unix_ms > 0);
    fx.settled(id, 1).await;
    fx.assert_ledger("alice", 5, 1).await;
    fx.assert_ledger("bob", -5, 1).await;
    // Nobody asks for the next game: the table closes once its time has come.
    assert_eq!(fx.table(id).await.status(), pb::TableStatus::BetweenGames);
    fx.clock
        .advance_to(u64::try_from(over.closes_at_unix_ms).unwrap());
    let closed = eventually("the idle table closed", Duration::from_secs(10), || async {
        let table = fx.table(id).await;
        (table.status() == pb::TableStatus::Closed).then_some(table)
    })
    .await;
    assert_eq!(closed.status(), pb::TableStatus::Closed);
    assert!(
        closed.closed_reason.contains("no next game"),
        "{}",
        closed.closed_reason
    );
    assert_eq!(closed.close_reason(), pb::CloseReason::Abandoned);
    fx.stop().await;
}

#[tokio::test]
async fn the_referee_tells_the_time_by_its_clock_alone() {
    let fx = Fixture::new().await;
    fx.grant(&["alice", "bob"]).await;
    // An hour ahead of the wall clock: a step stamped by the wall clock would show.
    let now = fx.clock.advance(Duration::from_secs(3600));
    let alice = fx.player("alice");
    let table = fx
        .open(pb::RuleSet::Freestyle, (1_000, 0), ["alice", "bob"])
        .await;
    let id = &table.table_id;
    assert_eq!(table.server_time_unix_ms, i64::try_from(now).unwrap());
    assert_eq!(
        game(&table).turn_deadline_unix_ms,
        i64::try_from(now + 1_000).unwrap()
    );
    let now = fx.clock.advance(Duration::from_millis(400));
    let moved = alice.place(id, "h8").await.unwrap();
    assert_eq!(
        game(&moved).turn_deadline_unix_ms,
        i64::try_from(now + 1_000).unwrap()
    );
    // Bob's second runs out by the referee's clock, whatever the wall clock says.
    fx.clock.advance(Duration::from_millis(1_000));
    let over = fx.game_over(id).await;
    assert_eq!(result(&over).reason(), pb::EndReason::Timeout);
    assert_eq!(
        over.closes_at_unix_ms,
        i64::try_from(fx.clock.now_ms() + 60_000).unwrap(),
        "the table waits a minute (the test referee's setting) from the timeout"
    );
    fx.settled(id, 1).await;
    fx.stop().await;
}

#[tokio::test]
async fn a_move_after_the_deadline_is_refused_and_the_game_is_lost_on_time() {
    // No sweep during the test: the late move itself must apply the timeout.
    let fx = Fixture::with(|env| {
        env.push(("GAMEHUB_GOMOKU_SWEEP_INTERVAL_MS".into(), "600000".into()));
    })
    .await;
    fx.grant(&["alice", "bob"]).await;
    let (alice, bob) = (fx.player("alice"), fx.player("bob"));
    let table = fx
        .open(pb::RuleSet::Freestyle, (0, 1_000), ["alice", "bob"])
        .await;
    let id = &table.table_id;
    alice.place(id, "h8").await.unwrap();
    fx.run_out_the_clock(id).await;
    let late = bob.place(id, "h9").await.unwrap_err();
    assert_eq!(late.code(), Code::FailedPrecondition);
    assert!(
        late.message().starts_with("time_expired"),
        "{}",
        late.message()
    );
    let t = fx.table(id).await;
    assert_eq!(result(&t).reason(), pb::EndReason::Timeout);
    assert_eq!(game(&t).stones.len(), 1, "the late stone was not placed");
    fx.settled(id, 1).await;
    fx.assert_ledger("bob", -5, 1).await;
    fx.stop().await;
}

#[tokio::test]
async fn leaving_mid_game_is_an_escape_that_costs_ten_points_and_closes_the_table() {
    let fx = Fixture::new().await;
    fx.grant(&["alice", "bob"]).await;
    let (alice, bob) = (fx.player("alice"), fx.player("bob"));
    let table = fx
        .open(pb::RuleSet::RenjuLose, (60_000, 0), ["alice", "bob"])
        .await;
    let id = &table.table_id;
    alice.place(id, "h8").await.unwrap();
    let left = bob.leave(id).await.unwrap();
    assert!(left.escaped);
    let t = left.table.unwrap();
    assert_eq!(t.status(), pb::TableStatus::Closed);
    assert!(t.players[1].left);
    assert_eq!(result(&t).reason(), pb::EndReason::Escape);
    assert_eq!(result(&t).points, vec![0, -10]);
    assert_eq!(t.close_reason(), pb::CloseReason::Escape);
    let next = alice.next_game(id).await.unwrap_err();
    assert_eq!(next.code(), Code::FailedPrecondition);
    assert!(
        next.message().starts_with("table_closed"),
        "{}",
        next.message()
    );
    fx.settled(id, 1).await;
    fx.assert_ledger("alice", 0, 1).await;
    fx.assert_ledger("bob", -10, 1).await;
    fx.stop().await;
}

#[tokio::test]
async fn a_player_who_reached_the_daily_loss_cap_gets_no_next_game() {
    // Game 1 costs the loser 5 points × 10 silver: the whole daily loss cap.
    let fx = Fixture::with_ledger(|config| config.caps.daily_loss_silver = 50, |_| {}).await;
    fx.grant(&["alice", "bob"]).await;
    let (alice, bob) = (fx.player("alice"), fx.player("bob"));
    let table = fx
        .open(pb::RuleSet::Freestyle, (60_000, 0), ["alice", "bob"])
        .await;
    let id = &table.table_id;
    play(&alice, &bob, id, &BLACK_FIVE_IN_A_COLUMN).await;
    fx.settled(id, 1).await;
    fx.assert_ledger("bob", -5, 1).await;

    let refused = bob.next_game(id).await.unwrap_err();
    assert_eq!(refused.code(), Code::FailedPrecondition);
    assert!(
        refused
            .message()
            .starts_with("not_eligible: daily_loss_cap: "),
        "{}",
        refused.message()
    );
    let table = bob.view(id).await;
    assert!(
        !table.players[1].wants_next_game,
        "the refusal changed nothing"
    );
    // The winner may ask; the game cannot start without the loser.
    let asked = alice.next_game(id).await.unwrap();
    assert!(!asked.started);
    assert_eq!(asked.table.unwrap().status(), pb::TableStatus::BetweenGames);
    fx.stop().await;
}

/// The next game waits for the ledger to have the last one: a ledger that delivers
/// slowly gets `settling:` (UNAVAILABLE with a retry hint, nothing changed) until it
/// acknowledges, and only then is the player judged, so a cap reached by exactly that
/// game refuses the next one.
#[tokio::test]
async fn the_next_game_waits_for_the_ledger_to_settle_the_last_one() {
    use gamehub_platform::auth::Role;
    use gamehub_platform::server::Shutdown;
    use gamehub_testkit::stub_ledger::StubLedger;

    let shutdown = Shutdown::new();
    let ledger = StubLedger::default();
    let url = ledger.clone().serve(shutdown.clone()).await.unwrap();
    let prefix = gamehub_testkit::redis::fresh_prefix("gt");
    let mut referee = gamehub_gomoku_referee::testing::start_on(&prefix, &url).await;
    let keys = gamehub_testkit::tokens::dev_keys();
    let client = |subject: &str, role| {
        gamehub_proto::gomoku::gomoku_service_client::GomokuServiceClient::new(
            gamehub_testkit::tokens::channel(&referee.url, &keys, subject, role),
        )
    };
    let player = |id: &str| Player {
        id: id.to_owned(),
        client: client(id, Role::Player),
    };
    let (alice, bob) = (player("alice"), player("bob"));
    let id = client("matchmaking", Role::Service)
        .open_table(open_request(
            pb::RuleSet::Freestyle,
            (60_000, 0),
            ["alice", "bob"],
        ))
        .await
        .unwrap()
        .into_inner()
        .table_id;
    let id = &id;
    ledger.hold();
    ledger.cap_after("bob", 1);
    play(&alice, &bob, id, &BLACK_FIVE_IN_A_COLUMN).await;

    // Unsettled: both hear `settling:` with a hint, and nothing changes.
    for p in [&alice, &bob] {
        let status = p.next_game_once(id).await.unwrap_err();
        assert!(is_settling(&status), "{status:?}");
        assert_eq!(retry_hint(&status), Duration::from_millis(250));
    }
    let table = bob.view(id).await;
    assert_eq!(table.status(), pb::TableStatus::BetweenGames);
    assert!(table.players.iter().all(|p| !p.wants_next_game));

    // Delivered: bob, whose cap that game reached, is refused; alice is not.
    ledger.release();
    let refused = bob.next_game(id).await.unwrap_err();
    assert_eq!(refused.code(), Code::FailedPrecondition, "{refused:?}");
    assert!(
        refused
            .message()
            .starts_with("not_eligible: daily_loss_cap: "),
        "{}",
        refused.message()
    );
    let asked = alice.next_game(id).await.unwrap();
    assert!(!asked.started, "no game without bob");
    assert_eq!(
        ledger.settled.lock().unwrap().get(&format!("{id}:1")),
        Some(&1)
    );
    referee.stop().await;
    shutdown.trigger();
    gamehub_testkit::redis::remove_keys(&prefix).await;
}

#[tokio::test]
async fn a_rematch_swaps_colors_and_both_games_are_settled() {
    let fx = Fixture::new().await;
    fx.grant(&["alice", "bob"]).await;
    let (alice, bob) = (fx.player("alice"), fx.player("bob"));
    let table = fx
        .open(pb::RuleSet::Freestyle, (60_000, 0), ["alice", "bob"])
        .await;
    let id = &table.table_id;
    play(&alice, &bob, id, &BLACK_FIVE_IN_A_COLUMN).await;
    let early = alice.place(id, "o1").await.unwrap_err();
    assert!(
        early.message().starts_with("no_game_in_progress"),
        "{}",
        early.message()
    );
    let first = bob.next_game(id).await.unwrap();
    assert!(!first.started);
    assert!(first.table.unwrap().players[1].wants_next_game);
    let second = alice.next_game(id).await.unwrap();
    assert!(second.started);
    let t = second.table.unwrap();
    assert_eq!(t.status(), pb::TableStatus::Playing);
    assert_eq!(game(&t).number, 2);
    assert_eq!(game(&t).black_seat, 1, "colors swapped");
    assert_eq!(t.players[1].color(), pb::Color::Black);
    // Game 2: bob is black; alice (white) resigns: black +2, white −2.
    bob.place(id, "h8").await.unwrap();
    alice.place(id, "i9").await.unwrap();
    let end = alice.resign(id).await.unwrap();
    assert_eq!(result(&end).points, vec![-2, 2]);
    fx.settled(id, 1).await;
    fx.settled(id, 2).await;
    fx.assert_ledger("alice", 5 - 2, 2).await;
    fx.assert_ledger("bob", -5 + 2, 2).await;
    let record = fx
        .service()
        .get_record(pb::GetRecordRequest {
            table_id: id.clone(),
            game_number: 2,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(record.black_player_id, "bob");
    assert_eq!(
        record.entries.last().unwrap().action(),
        pb::RecordAction::Resign
    );
    fx.stop().await;
}

/// Opens a table whose games come in pairs (docs/rules.md#games-in-pairs), alice black
/// in game 1, and plays game 1 to black's five.
async fn paired_table_after_game_one(fx: &Fixture, alice: &Player, bob: &Player) -> String {
    let mut request = open_request(pb::RuleSet::Freestyle, (60_000, 0), ["alice", "bob"]);
    request.paired_games = true;
    let table = fx
        .service()
        .open_table(request)
        .await
        .unwrap()
        .into_inner()
        .table
        .unwrap();
    assert!(table.paired_games && table.leaving_escapes);
    let id = table.table_id;
    play(alice, bob, &id, &BLACK_FIVE_IN_A_COLUMN).await;
    fx.settled(&id, 1).await;
    id
}

#[tokio::test]
async fn at_a_paired_table_leaving_between_the_two_games_is_an_escape_from_the_second() {
    let fx = Fixture::new().await;
    fx.grant(&["alice", "bob"]).await;
    let (alice, bob) = (fx.player("alice"), fx.player("bob"));
    let id = &paired_table_after_game_one(&fx, &alice, &bob).await;
    let between = bob.view(id).await;
    assert_eq!(between.status(), pb::TableStatus::BetweenGames);
    assert!(between.leaving_escapes, "a front-end can warn before Leave");

    let left = bob.leave(id).await.unwrap();
    assert!(left.escaped);
    let t = left.table.unwrap();
    assert_eq!(t.status(), pb::TableStatus::Closed);
    assert_eq!(t.close_reason(), pb::CloseReason::Escape);
    assert!(!t.leaving_escapes);
    assert_eq!(game(&t).number, 2, "the second game is the escaped one");
    assert_eq!(result(&t).reason(), pb::EndReason::Escape);
    fx.settled(id, 2).await;
    // Game 1: alice +5, bob −5; game 2: bob (black) escaped, −10, alice 0.
    fx.assert_ledger("alice", 5, 2).await;
    fx.assert_ledger("bob", -15, 2).await;
    fx.stop().await;
}

#[tokio::test]
async fn at_a_paired_table_a_player_the_ledger_refuses_leaves_without_an_escape() {
    // Game 1 costs the loser 5 points × 10 silver: the whole daily loss cap.
    let fx = Fixture::with_ledger(|config| config.caps.daily_loss_silver = 50, |_| {}).await;
    fx.grant(&["alice", "bob"]).await;
    let (alice, bob) = (fx.player("alice"), fx.player("bob"));
    let id = &paired_table_after_game_one(&fx, &alice, &bob).await;
    let refused = bob.next_game(id).await.unwrap_err();
    assert!(
        refused
            .message()
            .starts_with("not_eligible: daily_loss_cap: "),
        "{}",
        refused.message()
    );
    let left = bob.leave(id).await.unwrap();
    assert!(!left.escaped, "bob may not play the second game: no escape");
    let t = left.table.unwrap();
    assert_eq!(t.close_reason(), pb::CloseReason::Left);
    assert_eq!(game(&t).number, 1);
    fx.assert_ledger("bob", -5, 1).await;
    fx.stop().await;
}

#[tokio::test]
async fn at_a_paired_table_the_opponent_of_a_player_the_ledger_refuses_leaves_without_an_escape() {
    // Game 1 costs bob 5 points × 10 silver: the whole daily loss cap. The second game
    // cannot be played, so alice, who may play, leaves freely too.
    let fx = Fixture::with_ledger(|config| config.caps.daily_loss_silver = 50, |_| {}).await;
    fx.grant(&["alice", "bob"]).await;
    let (alice, bob) = (fx.player("alice"), fx.player("bob"));
    let id = &paired_table_after_game_one(&fx, &alice, &bob).await;
    let left = alice.leave(id).await.unwrap();
    assert!(!left.escaped, "bob may not play the second game: no escape");
    assert_eq!(left.table.unwrap().close_reason(), pb::CloseReason::Left);
    fx.assert_ledger("alice", 5, 1).await;
    fx.stop().await;
}
