//! Several referee replicas on one Redis: races apply once, a killed replica's games
//! and clocks go on at the other, and a ledger outage only delays settlement.

use std::time::Duration;

use gamehub_gomoku_referee::GAME;
use gamehub_platform::auth::Role;
use gamehub_proto::gomoku as pb;
use tonic::Code;

use crate::support::*;

#[tokio::test]
async fn concurrent_identical_moves_at_two_replicas_apply_exactly_once() {
    let mut fx = Fixture::new().await;
    fx.add_referee(|_| {}).await;
    let table = fx
        .open(pb::RuleSet::Freestyle, (60_000, 0), ["alice", "bob"])
        .await;
    let id = table.table_id.clone();
    let moves = ["h8", "a1", "h9", "a2", "h10", "a3"];
    for (i, point) in moves.iter().enumerate() {
        let who = if i % 2 == 0 { "alice" } else { "bob" };
        let (a, b) = (fx.player_at(0, who), fx.player_at(1, who));
        // Two different requests for the same stone, one at each replica.
        let (ra, rb) = tokio::join!(a.place(&id, point), b.place(&id, point));
        let ok = [ra.is_ok(), rb.is_ok()];
        assert_eq!(
            ok.iter().filter(|o| **o).count(),
            1,
            "move {point}: {ra:?} / {rb:?}"
        );
        let refused = ra.err().or(rb.err()).unwrap();
        assert_eq!(refused.code(), Code::FailedPrecondition, "{refused:?}");
    }
    let t = fx.table(&id).await;
    assert_eq!(game(&t).stones.len(), moves.len());
    // The same request id sent to both replicas at once: applied once, the other is a replay.
    let (a, b) = (fx.player_at(0, "alice"), fx.player_at(1, "alice"));
    let (ra, rb) = tokio::join!(
        a.place_with(&id, "h11", "same-request"),
        b.place_with(&id, "h11", "same-request")
    );
    let (ta, tb) = (ra.unwrap(), rb.unwrap());
    assert_eq!(game(&ta).stones.len(), moves.len() + 1);
    assert_eq!(game(&tb).stones.len(), moves.len() + 1);
    let replayed = fx
        .player_at(1, "alice")
        .client
        .place_stone(pb::PlaceStoneRequest {
            table_id: id.clone(),
            request_id: "same-request".into(),
            point: pt("h11"),
            known_stones: 0,
            known_game: 0,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(replayed.replayed);
    assert_eq!(game(&fx.table(&id).await).stones.len(), moves.len() + 1);
    fx.stop().await;
}

#[tokio::test]
async fn a_replica_killed_mid_game_leaves_the_game_and_its_clock_to_the_other() {
    let fx = Fixture::new().await;
    fx.grant(&["alice", "bob"]).await;
    // A second replica as a real process.
    let addr = free_addr();
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_gamehub-gomoku-referee"))
        .envs(referee_env(&fx.prefix, &fx.ledger.url, &addr.to_string()))
        .env("RUST_LOG", "warn")
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let child_url = format!("http://{addr}");
    eventually(
        "the child referee serves",
        Duration::from_secs(10),
        || async {
            gamehub_platform::client::check_health(&child_url, "")
                .await
                .unwrap_or(false)
                .then_some(())
        },
    )
    .await;
    let mut service = fx.client_at(&child_url, "matchmaking", Role::Service);
    let table = service
        .open_table(open_request(
            pb::RuleSet::Freestyle,
            (2_000, 0),
            ["alice", "bob"],
        ))
        .await
        .unwrap()
        .into_inner()
        .table
        .unwrap();
    let id = table.table_id.clone();
    let at_child = |who: &str| Player {
        id: who.to_owned(),
        client: fx.client_at(&child_url, who, Role::Player),
    };
    play(
        &at_child("alice"),
        &at_child("bob"),
        &id,
        &["h8", "a1", "h9"],
    )
    .await;
    child.start_kill().unwrap(); // SIGKILL
    child.wait().await.unwrap();
    // The game goes on at the surviving replica...
    let (alice, bob) = (fx.player("alice"), fx.player("bob"));
    bob.place(&id, "a2").await.unwrap();
    alice.place(&id, "h10").await.unwrap();
    // ...and so does its clock: bob does not move and loses on time.
    fx.run_out_the_clock(&id).await;
    let over = fx.game_over(&id).await;
    let r = result(&over);
    assert_eq!(r.reason(), pb::EndReason::Timeout);
    assert_eq!(r.seat, Some(1));
    assert_eq!(game(&over).stones.len(), 5);
    fx.settled(&id, 1).await;
    fx.assert_ledger("alice", 5, 1).await;
    fx.assert_ledger("bob", -5, 1).await;
    fx.stop().await;
}

#[tokio::test]
async fn a_game_ending_while_the_ledger_is_down_is_settled_once_when_it_returns() {
    let mut fx = Fixture::new().await;
    fx.grant(&["alice", "bob"]).await;
    let (alice, bob) = (fx.player("alice"), fx.player("bob"));
    let table = fx
        .open(pb::RuleSet::Freestyle, (60_000, 0), ["alice", "bob"])
        .await;
    let id = table.table_id.clone();
    play(
        &alice,
        &bob,
        &id,
        &["h8", "a1", "h9", "a2", "h10", "a3", "h11", "a4"],
    )
    .await;
    fx.ledger.stop().await;
    let retries = gamehub_testkit::redis::settlement_retries(GAME);
    let end = alice.place(&id, "h12").await.unwrap();
    assert_eq!(result(&end).reason(), pb::EndReason::Five);
    // The result waits while the ledger is away (and the settlers keep trying).
    gamehub_testkit::redis::settlers_retried(GAME, retries, 2).await;
    let waiting = fx.table(&id).await;
    assert!(waiting.finished_games[0].settlement.is_none());
    fx.ledger.resume().await;
    let settlement = fx.settled(&id, 1).await;
    assert_eq!(settlement.seats[0].points_delta, 5);
    // Nothing is left to deliver, so nothing can be applied twice.
    assert_eq!(
        gamehub_testkit::redis::settlement_backlog(&fx.prefix, GAME).await,
        0
    );
    fx.assert_ledger("alice", 5, 1).await;
    fx.assert_ledger("bob", -5, 1).await;
    fx.stop().await;
}
