//! Tournament money over the real gRPC server: entry fees into a tournament's pool
//! (`#tournament:<id>`), refunds and prizes out of it; idempotency by request id; the
//! rules refusing each call (and moving nothing); who may call; conservation of silver;
//! concurrent fees, duplicates and settlements.

#![allow(clippy::unwrap_used)]

use std::collections::HashMap;
use std::sync::Arc;

use gamehub_platform::auth::{MATCHMAKING_SUBJECT, Role, TOURNAMENTS_SUBJECT};
use gamehub_proto::ledger::PlayerOutcome::{Loss, Win};
use gamehub_proto::ledger::{
    HistoryEntry, HistoryKind, HoldEntryFeeRequest, ListHistoryRequest, PayPrizesRequest, Prize,
    RefundEntryFeeRequest,
};
use tonic::Code;

use crate::support::*;

/// The tournament service's client.
fn tournaments(app: &TestApp) -> Client {
    app.client(TOURNAMENTS_SUBJECT, Role::Service)
}

fn hold(request_id: &str, tournament: &str, player: &str, amount: i64) -> HoldEntryFeeRequest {
    HoldEntryFeeRequest {
        request_id: request_id.into(),
        tournament_id: tournament.into(),
        player_id: player.into(),
        amount_silver: amount,
        reason: "Spring Cup".into(),
    }
}

fn refund(request_id: &str, tournament: &str, player: &str, amount: i64) -> RefundEntryFeeRequest {
    RefundEntryFeeRequest {
        request_id: request_id.into(),
        tournament_id: tournament.into(),
        player_id: player.into(),
        amount_silver: amount,
        reason: "unregistered".into(),
    }
}

fn prizes(request_id: &str, tournament: &str, prizes: &[(&str, i64)]) -> PayPrizesRequest {
    PayPrizesRequest {
        request_id: request_id.into(),
        tournament_id: tournament.into(),
        prizes: prizes
            .iter()
            .map(|&(player, amount)| Prize {
                player_id: player.into(),
                amount_silver: amount,
            })
            .collect(),
        reason: "Spring Cup".into(),
    }
}

/// Pays `player`'s fee of `amount` into `tournament` (request id `<t>:fee:<player>`).
async fn pay_fee(app: &TestApp, tournament: &str, player: &str, amount: i64) {
    tournaments(app)
        .hold_entry_fee(hold(
            &format!("{tournament}:fee:{player}"),
            tournament,
            player,
            amount,
        ))
        .await
        .unwrap_or_else(|e| panic!("{player}'s fee into {tournament}: {e}"));
}

/// A pool's balance and kind, read from the database; None when it has no account.
async fn pool(app: &TestApp, tournament: &str) -> Option<(String, i64)> {
    sqlx::query_as("SELECT kind, balance_silver FROM accounts WHERE account_id = $1")
        .bind(format!("#tournament:{tournament}"))
        .fetch_optional(&app.db.pool)
        .await
        .unwrap()
}

async fn pool_silver(app: &TestApp, tournament: &str) -> i64 {
    pool(app, tournament)
        .await
        .map_or(0, |(_, balance)| balance)
}

/// A player's silver history, newest first.
async fn silver_history(app: &TestApp, player: &str) -> Vec<HistoryEntry> {
    app.operator()
        .list_history(ListHistoryRequest {
            player_id: player.into(),
            kind: HistoryKind::Silver as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .entries
}

/// The code of a refused call, and its message.
fn refused<T: std::fmt::Debug>(
    result: Result<tonic::Response<T>, tonic::Status>,
) -> (Code, String) {
    let status = result.expect_err("the call should have been refused");
    (status.code(), status.message().to_owned())
}

#[tokio::test]
async fn an_entry_fee_moves_into_the_pool_once_with_its_history_row() {
    let app = spawn_app().await;
    app.grant("alice", 10_000).await;
    let mut t = tournaments(&app);
    let request = hold("cup-1:fee:alice", "cup-1", "alice", 3_000);

    let first = t
        .hold_entry_fee(request.clone())
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        (first.balance_silver, first.pool_silver, first.replayed),
        (7_000, 3_000, false)
    );
    assert!(uuid::Uuid::parse_str(&first.transfer_id).is_ok());
    assert_eq!(
        pool(&app, "cup-1").await,
        Some(("tournament".into(), 3_000))
    );
    assert_eq!(app.balance("alice").await, 7_000);
    let latest = &silver_history(&app, "alice").await[0];
    assert_eq!(
        (latest.before, latest.after, latest.reason.as_str()),
        (10_000, 7_000, "tournament entry fee: Spring Cup")
    );
    assert!(latest.game_id.is_empty());
    let (kind, entries): (String, i64) = sqlx::query_as(
        "SELECT t.kind, (SELECT count(*) FROM entries e WHERE e.transfer_id = t.transfer_id) \
         FROM transfers t WHERE t.transfer_id = $1::uuid",
    )
    .bind(&first.transfer_id)
    .fetch_one(&app.db.pool)
    .await
    .unwrap();
    assert_eq!((kind.as_str(), entries), ("entry_fee", 2));

    // A retry: the first answer, replayed, nothing moved again.
    let before = fingerprint(&app.db.pool).await;
    let again = t
        .hold_entry_fee(request.clone())
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        (
            again.transfer_id.as_str(),
            again.balance_silver,
            again.pool_silver,
            again.replayed
        ),
        (first.transfer_id.as_str(), 7_000, 3_000, true)
    );
    assert_eq!(fingerprint(&app.db.pool).await, before);

    // The id with another payload: ALREADY_EXISTS, nothing moved.
    for other in [
        HoldEntryFeeRequest {
            amount_silver: 3_001,
            ..request.clone()
        },
        HoldEntryFeeRequest {
            tournament_id: "cup-2".into(),
            ..request.clone()
        },
        HoldEntryFeeRequest {
            reason: "Autumn Cup".into(),
            ..request.clone()
        },
    ] {
        let (code, message) = refused(t.hold_entry_fee(other).await);
        assert_eq!(code, Code::AlreadyExists, "{message}");
        assert!(message.contains("cup-1:fee:alice"), "{message}");
    }
    // ... and as a refund of the same fields.
    let (code, _) = refused(
        t.refund_entry_fee(refund("cup-1:fee:alice", "cup-1", "alice", 3_000))
            .await,
    );
    assert_eq!(code, Code::AlreadyExists);
    assert_eq!(fingerprint(&app.db.pool).await, before);

    check_invariants(&app.db.pool, &app.caps).await;
    app.finish().await;
}

#[tokio::test]
async fn a_fee_above_the_balance_is_not_eligible_and_moves_nothing() {
    let app = spawn_app().await;
    app.grant("bob", 500).await;
    let mut t = tournaments(&app);
    let before = fingerprint(&app.db.pool).await;

    let (code, message) = refused(
        t.hold_entry_fee(hold("cup-1:fee:bob", "cup-1", "bob", 1_000))
            .await,
    );
    assert_eq!(code, Code::FailedPrecondition);
    assert!(
        message.starts_with("not_eligible: insufficient_balance: ")
            && message.contains("500")
            && message.contains("1000"),
        "{message}"
    );
    // A player the ledger never saw has nothing: refused, and no account is left behind.
    let (code, message) = refused(
        t.hold_entry_fee(hold("cup-1:fee:newcomer", "cup-1", "newcomer", 1))
            .await,
    );
    assert_eq!(code, Code::FailedPrecondition);
    assert!(
        message.starts_with("not_eligible: insufficient_balance: balance 0 silver"),
        "{message}"
    );
    assert_eq!(fingerprint(&app.db.pool).await, before);
    assert_eq!(pool(&app, "cup-1").await, None);

    // A refusal does not use up the request id: once the player has the silver, it pays.
    app.grant("bob", 500).await;
    let paid = t
        .hold_entry_fee(hold("cup-1:fee:bob", "cup-1", "bob", 1_000))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        (paid.balance_silver, paid.pool_silver, paid.replayed),
        (0, 1_000, false)
    );
    check_invariants(&app.db.pool, &app.caps).await;
    app.finish().await;
}

#[tokio::test]
async fn malformed_requests_are_refused_naming_the_field() {
    let app = spawn_app().await;
    app.grant("alice", 10_000).await;
    let mut t = tournaments(&app);
    let before = fingerprint(&app.db.pool).await;
    let good = hold("r-1", "cup-1", "alice", 100);
    for (bad, field) in [
        (
            HoldEntryFeeRequest {
                request_id: String::new(),
                ..good.clone()
            },
            "request_id",
        ),
        (
            HoldEntryFeeRequest {
                request_id: "x".repeat(65),
                ..good.clone()
            },
            "request_id",
        ),
        (
            HoldEntryFeeRequest {
                tournament_id: String::new(),
                ..good.clone()
            },
            "tournament_id",
        ),
        (
            HoldEntryFeeRequest {
                tournament_id: "t".repeat(41),
                ..good.clone()
            },
            "tournament_id",
        ),
        (
            HoldEntryFeeRequest {
                tournament_id: "cup#1".into(),
                ..good.clone()
            },
            "tournament_id",
        ),
        (
            HoldEntryFeeRequest {
                player_id: String::new(),
                ..good.clone()
            },
            "player_id",
        ),
        (
            HoldEntryFeeRequest {
                player_id: "#house".into(),
                ..good.clone()
            },
            "player_id",
        ),
        (
            HoldEntryFeeRequest {
                amount_silver: 0,
                ..good.clone()
            },
            "amount_silver",
        ),
        (
            HoldEntryFeeRequest {
                amount_silver: 1_000_000_001,
                ..good.clone()
            },
            "amount_silver",
        ),
        (
            HoldEntryFeeRequest {
                reason: "  ".into(),
                ..good.clone()
            },
            "reason",
        ),
        (
            HoldEntryFeeRequest {
                reason: "x".repeat(201),
                ..good.clone()
            },
            "reason",
        ),
    ] {
        let (code, message) = refused(t.hold_entry_fee(bad.clone()).await);
        assert_eq!(code, Code::InvalidArgument, "{bad:?}: {message}");
        assert!(message.starts_with(&format!("{field}: ")), "{message}");
    }
    let (code, message) = refused(
        t.refund_entry_fee(refund("r-2", "cup-1", "alice", -5))
            .await,
    );
    assert_eq!(code, Code::InvalidArgument);
    assert!(message.starts_with("amount_silver: "), "{message}");

    let many: Vec<(String, i64)> = (0..65).map(|i| (format!("p{i}"), 1)).collect();
    let many: Vec<(&str, i64)> = many.iter().map(|(p, a)| (p.as_str(), *a)).collect();
    for (bad, field) in [
        (prizes("", "cup-1", &[("alice", 1)]), "request_id"),
        (prizes("p-1", "", &[("alice", 1)]), "tournament_id"),
        (prizes("p-1", "cup-1", &many), "prizes"),
        (
            prizes("p-1", "cup-1", &[("alice", 5), ("bob", 3), ("alice", 2)]),
            "prizes[2].player_id",
        ),
        (
            prizes("p-1", "cup-1", &[("alice", 5), ("bob", 0)]),
            "prizes[1].amount_silver",
        ),
        (
            prizes("p-1", "cup-1", &[("alice", 5), ("bob", -3)]),
            "prizes[1].amount_silver",
        ),
        (
            prizes("p-1", "cup-1", &[("al ice", 5)]),
            "prizes[0].player_id",
        ),
        (
            prizes("p-1", "cup-1", &[("alice", i64::MAX), ("bob", 1)]),
            "prizes[1].amount_silver",
        ),
        (
            PayPrizesRequest {
                reason: String::new(),
                ..prizes("p-1", "cup-1", &[])
            },
            "reason",
        ),
    ] {
        let (code, message) = refused(t.pay_prizes(bad.clone()).await);
        assert_eq!(code, Code::InvalidArgument, "{bad:?}: {message}");
        assert!(message.starts_with(&format!("{field}: ")), "{message}");
    }
    assert_eq!(fingerprint(&app.db.pool).await, before);
    app.finish().await;
}

#[tokio::test]
async fn refunds_are_bounded_by_what_the_player_paid_net_of_refunds() {
    let app = spawn_app().await;
    for player in ["alice", "bob", "carol"] {
        app.grant(player, 5_000).await;
    }
    let mut t = tournaments(&app);
    // alice pays twice (say, a re-entry), bob once; carol plays elsewhere.
    pay_fee(&app, "cup-1", "alice", 1_000).await;
    t.hold_entry_fee(hold("cup-1:reentry:alice", "cup-1", "alice", 1_000))
        .await
        .unwrap();
    pay_fee(&app, "cup-1", "bob", 1_000).await;
    pay_fee(&app, "cup-2", "carol", 1_000).await;
    assert_eq!(pool_silver(&app, "cup-1").await, 3_000);

    let before = fingerprint(&app.db.pool).await;
    let (code, message) = refused(
        t.refund_entry_fee(refund("cup-1:refund:alice:1", "cup-1", "alice", 2_001))
            .await,
    );
    assert_eq!(code, Code::FailedPrecondition);
    assert!(message.contains("at most 2000 silver"), "{message}");
    // carol paid into cup-2, not cup-1 (whose pool could pay her).
    let (code, message) = refused(
        t.refund_entry_fee(refund("cup-1:refund:carol:1", "cup-1", "carol", 1))
            .await,
    );
    assert_eq!(code, Code::FailedPrecondition);
    assert!(message.contains("at most 0 silver"), "{message}");
    // Nobody ever seen: refused too, and no account is left behind.
    let (code, _) = refused(
        t.refund_entry_fee(refund("cup-1:refund:ghost:1", "cup-1", "ghost", 1))
            .await,
    );
    assert_eq!(code, Code::FailedPrecondition);
    assert_eq!(fingerprint(&app.db.pool).await, before);

    let first = t
        .refund_entry_fee(refund("cup-1:refund:alice:1", "cup-1", "alice", 1_500))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        (first.balance_silver, first.pool_silver, first.replayed),
        (4_500, 1_500, false)
    );
    let latest = &silver_history(&app, "alice").await[0];
    assert_eq!(
        (latest.before, latest.after, latest.reason.as_str()),
        (3_000, 4_500, "tournament refund: unregistered")
    );
    // A retry replays; the same id for another amount conflicts.
    let again = t
        .refund_entry_fee(refund("cup-1:refund:alice:1", "cup-1", "alice", 1_500))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        (again.transfer_id, again.replayed),
        (first.transfer_id, true)
    );
    let (code, _) = refused(
        t.refund_entry_fee(refund("cup-1:refund:alice:1", "cup-1", "alice", 500))
            .await,
    );
    assert_eq!(code, Code::AlreadyExists);
    // Net of the first refund, 500 remain.
    let (code, message) = refused(
        t.refund_entry_fee(refund("cup-1:refund:alice:2", "cup-1", "alice", 501))
            .await,
    );
    assert_eq!(code, Code::FailedPrecondition);
    assert!(message.contains("at most 500 silver"), "{message}");
    let rest = t
        .refund_entry_fee(refund("cup-1:refund:alice:2", "cup-1", "alice", 500))
        .await
        .unwrap()
        .into_inner();
    assert_eq!((rest.balance_silver, rest.pool_silver), (5_000, 1_000));
    let (code, message) = refused(
        t.refund_entry_fee(refund("cup-1:refund:alice:3", "cup-1", "alice", 1))
            .await,
    );
    assert_eq!(code, Code::FailedPrecondition);
    assert!(message.contains("at most 0 silver"), "{message}");
    assert_eq!(app.balance("bob").await, 4_000);
    check_invariants(&app.db.pool, &app.caps).await;
    app.finish().await;
}

#[tokio::test]
async fn prizes_must_sum_to_the_pool_and_empty_it_once() {
    let app = spawn_app().await;
    for player in ["alice", "bob", "carol", "dave"] {
        app.grant(player, 2_000).await;
        pay_fee(&app, "cup-1", player, 1_000).await;
    }
    assert_eq!(pool_silver(&app, "cup-1").await, 4_000);
    let mut t = tournaments(&app);

    let before = fingerprint(&app.db.pool).await;
    for short in [
        prizes("cup-1:prizes", "cup-1", &[("alice", 2_500), ("bob", 1_000)]),
        prizes(
            "cup-1:prizes",
            "cup-1",
            &[("alice", 2_500), ("bob", 1_000), ("carol", 501)],
        ),
        prizes("cup-1:prizes", "cup-1", &[]),
    ] {
        let total: i64 = short.prizes.iter().map(|p| p.amount_silver).sum();
        let (code, message) = refused(t.pay_prizes(short).await);
        assert_eq!(code, Code::FailedPrecondition, "{message}");
        assert!(
            message.contains(&format!("sum to {total} silver")) && message.contains("4000 silver"),
            "{message}"
        );
    }
    assert_eq!(fingerprint(&app.db.pool).await, before);

    // Paid in the request's order; a winner who never entered (erin) gets an account.
    let request = prizes(
        "cup-1:prizes",
        "cup-1",
        &[("carol", 2_000), ("erin", 1_200), ("alice", 800)],
    );
    let paid = t.pay_prizes(request.clone()).await.unwrap().into_inner();
    assert!(!paid.replayed);
    assert!(uuid::Uuid::parse_str(&paid.transfer_id).is_ok());
    let got: Vec<(&str, i64, i64)> = paid
        .paid
        .iter()
        .map(|p| (p.player_id.as_str(), p.amount_silver, p.balance_silver))
        .collect();
    assert_eq!(
        got,
        [
            ("carol", 2_000, 3_000),
            ("erin", 1_200, 1_200),
            ("alice", 800, 1_800)
        ]
    );
    assert_eq!(pool(&app, "cup-1").await, Some(("tournament".into(), 0)));
    for (player, balance) in [
        ("alice", 1_800),
        ("bob", 1_000),
        ("carol", 3_000),
        ("dave", 1_000),
        ("erin", 1_200),
    ] {
        assert_eq!(app.balance(player).await, balance, "{player}");
    }
    let latest = &silver_history(&app, "erin").await[0];
    assert_eq!(
        (latest.before, latest.after, latest.reason.as_str()),
        (0, 1_200, "tournament prize: Spring Cup")
    );
    let entries: i64 =
        sqlx::query_scalar("SELECT count(*) FROM entries WHERE transfer_id = $1::uuid")
            .bind(&paid.transfer_id)
            .fetch_one(&app.db.pool)
            .await
            .unwrap();
    assert_eq!(entries, 4, "the pool and three winners, one transfer");

    // A retry replays; the same id with other prizes conflicts.
    let before = fingerprint(&app.db.pool).await;
    let again = t.pay_prizes(request.clone()).await.unwrap().into_inner();
    assert!(again.replayed);
    assert_eq!(
        (again.transfer_id, again.paid),
        (paid.transfer_id, paid.paid)
    );
    let (code, _) = refused(
        t.pay_prizes(prizes("cup-1:prizes", "cup-1", &[("dave", 4_000)]))
            .await,
    );
    assert_eq!(code, Code::AlreadyExists);
    // Paid once: another id finds the pool empty.
    let (code, message) = refused(
        t.pay_prizes(prizes("cup-1:prizes:2", "cup-1", &[("dave", 4_000)]))
            .await,
    );
    assert_eq!(code, Code::FailedPrecondition);
    assert!(message.contains("holds 0 silver"), "{message}");
    // And the fees cannot be refunded out of the empty pool either.
    let (code, message) = refused(
        t.refund_entry_fee(refund("cup-1:refund:bob", "cup-1", "bob", 1_000))
            .await,
    );
    assert_eq!(code, Code::FailedPrecondition);
    assert!(message.contains("holds 0 silver"), "{message}");
    assert_eq!(fingerprint(&app.db.pool).await, before);

    // An empty pool with no prizes: done, nothing moved, no transfer.
    let none = t
        .pay_prizes(prizes("cup-1:prizes:3", "cup-1", &[]))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        (none.transfer_id.as_str(), none.paid.len(), none.replayed),
        ("", 0, false)
    );
    let unknown = t
        .pay_prizes(prizes("cup-9:prizes", "cup-9", &[]))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(unknown.transfer_id, "");
    let again = t
        .pay_prizes(prizes("cup-9:prizes", "cup-9", &[]))
        .await
        .unwrap()
        .into_inner();
    assert!(again.replayed);
    let (code, _) = refused(
        t.pay_prizes(prizes("cup-8:prizes", "cup-8", &[("alice", 1)]))
            .await,
    );
    assert_eq!(code, Code::FailedPrecondition);
    check_invariants(&app.db.pool, &app.caps).await;
    app.finish().await;
}

#[tokio::test]
async fn silver_is_conserved_through_grants_fees_refunds_and_prizes() {
    let app = spawn_app().await;
    let grants = [("p1", 10_000), ("p2", 8_000), ("p3", 6_000), ("p4", 3_000)];
    for (player, amount) in grants {
        app.grant(player, amount).await;
    }
    let mut t = tournaments(&app);
    // cup-a: everyone pays 2,000; p4 unregisters and gets it back.
    for (player, _) in grants {
        pay_fee(&app, "cup-a", player, 2_000).await;
    }
    t.refund_entry_fee(refund("cup-a:refund:p4", "cup-a", "p4", 2_000))
        .await
        .unwrap();
    // cup-b: p1 and p2 pay 1,000 each.
    pay_fee(&app, "cup-b", "p1", 1_000).await;
    pay_fee(&app, "cup-b", "p2", 1_000).await;
    // A game between p1 and p3 on the side.
    app.settle(gomoku("g-1", 100, ("p1", Win, 5), ("p3", Loss, -5)))
        .await;
    // cup-a pays 6,000: p3 4,000, p2 2,000. cup-b holds its 2,000.
    t.pay_prizes(prizes(
        "cup-a:prizes",
        "cup-a",
        &[("p3", 4_000), ("p2", 2_000)],
    ))
    .await
    .unwrap();

    let expected: HashMap<&str, i64> = [
        ("p1", 10_000 - 2_000 - 1_000 + 500),
        ("p2", 8_000 - 2_000 - 1_000 + 2_000),
        ("p3", 6_000 - 2_000 - 500 + 4_000),
        ("p4", 3_000),
    ]
    .into();
    for (player, balance) in &expected {
        assert_eq!(app.balance(player).await, *balance, "{player}");
    }
    assert_eq!(pool_silver(&app, "cup-a").await, 0);
    assert_eq!(pool_silver(&app, "cup-b").await, 2_000);
    let (total, issuance): (i64, i64) = sqlx::query_as(
        "SELECT sum(balance_silver)::bigint, \
                (SELECT balance_silver FROM accounts WHERE account_id = '#issuance') \
         FROM accounts",
    )
    .fetch_one(&app.db.pool)
    .await
    .unwrap();
    let granted: i64 = grants.iter().map(|(_, a)| a).sum();
    assert_eq!((total, issuance), (0, -granted));
    assert_eq!(
        expected.values().sum::<i64>() + pool_silver(&app, "cup-b").await,
        granted
    );
    check_invariants(&app.db.pool, &app.caps).await;
    app.finish().await;
}

#[tokio::test]
async fn only_the_tournament_service_moves_tournament_money() {
    let app = spawn_app().await;
    app.grant("alice", 10_000).await;
    pay_fee(&app, "cup-1", "alice", 1_000).await;
    let before = fingerprint(&app.db.pool).await;
    for (mut client, who) in [
        (app.player("alice"), "the player itself"),
        (
            app.client(MATCHMAKING_SUBJECT, Role::Service),
            "matchmaking",
        ),
        (app.service(), "a game service"),
        (app.operator(), "an operator"),
        (
            app.client(TOURNAMENTS_SUBJECT, Role::Player),
            "a player named tournaments",
        ),
    ] {
        let (code, message) = refused(
            client
                .hold_entry_fee(hold("x:fee", "cup-1", "alice", 1_000))
                .await,
        );
        assert_eq!(code, Code::PermissionDenied, "{who}: {message}");
        let (code, message) = refused(
            client
                .refund_entry_fee(refund("x:refund", "cup-1", "alice", 1_000))
                .await,
        );
        assert_eq!(code, Code::PermissionDenied, "{who}: {message}");
        let (code, message) = refused(
            client
                .pay_prizes(prizes("x:prizes", "cup-1", &[("alice", 1_000)]))
                .await,
        );
        assert_eq!(code, Code::PermissionDenied, "{who}: {message}");
    }
    assert_eq!(fingerprint(&app.db.pool).await, before);
    app.finish().await;
}

#[tokio::test]
async fn the_schema_backs_the_pool_rules() {
    let app = spawn_app().await;
    app.grant("alice", 1_000).await;
    pay_fee(&app, "cup-1", "alice", 400).await;
    let refused = |sql: &'static str| {
        let pool = app.db.pool.clone();
        async move {
            let err = sqlx::query(sql).execute(&pool).await.expect_err(sql);
            gamehub_ledger::error::sqlstate(&err).unwrap_or_default()
        }
    };
    // A pool never goes below zero.
    assert_eq!(
        refused("UPDATE accounts SET balance_silver = -1 WHERE account_id = '#tournament:cup-1'")
            .await,
        "23514"
    );
    // Pools are named by their tournament, and only pools are.
    assert_eq!(
        refused("INSERT INTO accounts (account_id, kind) VALUES ('#cup-2', 'tournament')").await,
        "23514"
    );
    assert_eq!(
        refused("INSERT INTO accounts (account_id, kind) VALUES ('#tournament:x', 'house')").await,
        "23514"
    );
    assert_eq!(
        refused("INSERT INTO accounts (account_id, kind) VALUES ('tournament:x', 'tournament')")
            .await,
        "23514"
    );
    // An unknown transfer kind.
    assert_eq!(
        refused(
            "INSERT INTO transfers (transfer_id, kind, cap_day) \
             VALUES ('00000000-0000-0000-0000-000000000009', 'gift', '2025-03-01')"
        )
        .await,
        "23514"
    );
    // The requests are immutable.
    assert_eq!(
        refused("UPDATE tournament_requests SET amount_silver = 1").await,
        "GH002"
    );
    assert_eq!(refused("DELETE FROM tournament_requests").await, "GH002");
    check_invariants(&app.db.pool, &app.caps).await;
    app.finish().await;
}

/// 20 players register at once, each request sent three times concurrently, while the
/// same players play games (settlements lock the same accounts): every fee is paid
/// exactly once, and nothing deadlocks.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_fees_duplicates_and_settlements_pay_each_fee_once() {
    const PLAYERS: usize = 20;
    const FEE: i64 = 1_000;
    let app = Arc::new(spawn_app_with(|c| c.db_pool_size = 16).await);
    let players: Vec<String> = (0..PLAYERS).map(|i| format!("player-{i:02}")).collect();
    for player in &players {
        app.grant(player, 10_000).await;
    }
    let mut tasks = Vec::new();
    for copy in 0..3 {
        for player in &players {
            let (app, player) = (app.clone(), player.clone());
            tasks.push(tokio::spawn(async move {
                let answer = tournaments(&app)
                    .hold_entry_fee(hold(&format!("cup-1:fee:{player}"), "cup-1", &player, FEE))
                    .await
                    .unwrap_or_else(|e| panic!("{player} copy {copy}: {e}"))
                    .into_inner();
                (player, answer.transfer_id, answer.replayed)
            }));
        }
    }
    // Games between neighbours, at the same time.
    let mut games = Vec::new();
    for i in 0..PLAYERS {
        let (app, a, b) = (
            app.clone(),
            players[i].clone(),
            players[(i + 1) % PLAYERS].clone(),
        );
        games.push(tokio::spawn(async move {
            app.settle(gomoku(
                &format!("g-{i}"),
                10,
                (a.as_str(), Win, 5),
                (b.as_str(), Loss, -5),
            ))
            .await;
        }));
    }
    let mut transfers: HashMap<String, Vec<(String, bool)>> = HashMap::new();
    for task in tasks {
        let (player, transfer, replayed) = task.await.unwrap();
        transfers
            .entry(player)
            .or_default()
            .push((transfer, replayed));
    }
    for game in games {
        game.await.unwrap();
    }
    assert_eq!(transfers.len(), PLAYERS);
    for (player, answers) in &transfers {
        assert_eq!(
            answers.iter().filter(|(_, replayed)| !replayed).count(),
            1,
            "{player}: exactly one call applied"
        );
        assert!(
            answers.iter().all(|(id, _)| *id == answers[0].0),
            "{player}: one transfer"
        );
    }
    assert_eq!(pool_silver(&app, "cup-1").await, FEE * PLAYERS as i64);
    let fees: i64 = sqlx::query_scalar("SELECT count(*) FROM transfers WHERE kind = 'entry_fee'")
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    assert_eq!(fees, PLAYERS as i64);
    // Each player won one game and lost one (50 silver each way): back to 10,000 less
    // the fee.
    for player in &players {
        assert_eq!(app.balance(player).await, 10_000 - FEE, "{player}");
    }

    // Then prizes sent twice at once: paid once.
    let winners: Vec<(&str, i64)> = players
        .iter()
        .take(4)
        .zip([10_000, 5_000, 3_000, 2_000])
        .map(|(p, a)| (p.as_str(), a))
        .collect();
    let request = prizes("cup-1:prizes", "cup-1", &winners);
    let (mut first, mut second) = (tournaments(&app), tournaments(&app));
    let (a, b) = tokio::join!(
        first.pay_prizes(request.clone()),
        second.pay_prizes(request.clone())
    );
    let (a, b) = (a.unwrap().into_inner(), b.unwrap().into_inner());
    assert_eq!(a.transfer_id, b.transfer_id);
    assert!(a.replayed != b.replayed, "one applied, one replayed");
    assert_eq!(pool_silver(&app, "cup-1").await, 0);
    check_invariants(&app.db.pool, &app.caps).await;
    match Arc::try_unwrap(app) {
        Ok(app) => app.finish().await,
        Err(_) => panic!("a task still holds the app"),
    }
}
