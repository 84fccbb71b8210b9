//! The operator audit trail over the real API and a real database: every operator
//! action leaves exactly one row with who, what, why and the request id, in the
//! transaction of the change; retries leave no second row; PostgreSQL refuses to edit
//! the trail; listing filters and pages.

use gamehub_platform::auth::Role;
use gamehub_proto::ledger::{
    GrantSilverRequest, ListOperatorActionsRequest, OperatorAction, OperatorActionKind,
    RecordOperatorActionRequest, SetNameRequest, SetProfessionalRequest,
};
use tonic::Code;

use crate::support::{Client, TestApp, spawn_app};

/// Every row of the trail, oldest first, through the API.
async fn trail(app: &TestApp) -> Vec<OperatorAction> {
    let mut actions = list(&mut app.operator(), ListOperatorActionsRequest::default())
        .await
        .unwrap();
    actions.reverse();
    actions
}

/// Every page of a listing, newest first.
async fn list(
    client: &mut Client,
    mut request: ListOperatorActionsRequest,
) -> Result<Vec<OperatorAction>, tonic::Status> {
    let mut out = Vec::new();
    loop {
        let page = client
            .list_operator_actions(request.clone())
            .await?
            .into_inner();
        out.extend(page.actions);
        if page.next_page_token.is_empty() {
            return Ok(out);
        }
        request.page_token = page.next_page_token;
    }
}

async fn count_rows(app: &TestApp) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM operator_actions")
        .fetch_one(&app.db.pool)
        .await
        .unwrap()
}

fn grant(request_id: &str, player: &str, amount: i64, reason: &str) -> GrantSilverRequest {
    GrantSilverRequest {
        request_id: request_id.into(),
        player_id: player.into(),
        amount_silver: amount,
        reason: reason.into(),
    }
}

fn close(request_id: &str, table: &str, reason: &str) -> RecordOperatorActionRequest {
    RecordOperatorActionRequest {
        request_id: request_id.into(),
        kind: OperatorActionKind::CloseTable as i32,
        operator: "ops-ann".into(),
        table_id: table.into(),
        game_id: String::new(),
        all_dead_letters: false,
        reason: reason.into(),
    }
}

#[tokio::test]
async fn each_ledger_action_leaves_one_row_with_who_what_why_and_its_request_id() {
    let app = spawn_app().await;
    let mut ops = app.client("ops-ann", Role::Operator);

    // A grant, then its retry: one row.
    for _ in 0..2 {
        ops.grant_silver(grant("g-1", "alice", 5_000, "welcome bonus"))
            .await
            .unwrap();
    }
    // A professional dan, retried under its id: one row, one change.
    for _ in 0..2 {
        ops.set_professional(SetProfessionalRequest {
            player_id: "bob".into(),
            professional_dan: 4,
            reason: "won the national open".into(),
            request_id: "p-1".into(),
        })
        .await
        .unwrap();
    }
    // A name reset by an operator, retried: one row. A player's own name: none.
    app.player("cai")
        .set_name(SetNameRequest {
            player_id: String::new(),
            name: "bad name".into(),
            reason: String::new(),
            request_id: String::new(),
        })
        .await
        .unwrap();
    for _ in 0..2 {
        ops.set_name(SetNameRequest {
            player_id: "cai".into(),
            name: String::new(),
            reason: "offensive name reported".into(),
            request_id: "n-1".into(),
        })
        .await
        .unwrap();
    }
    // Closes and redeliveries, recorded by a game service, each retried.
    let mut referee = app.client("gomoku-referee", Role::Service);
    for _ in 0..2 {
        let recorded = referee
            .record_operator_action(close("c-1", "gt-1", "stuck after an incident"))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(recorded.action.unwrap().table_id, "gt-1");
    }
    let redeliver = RecordOperatorActionRequest {
        request_id: "r-1".into(),
        kind: OperatorActionKind::Redeliver as i32,
        operator: "ops-ann".into(),
        table_id: String::new(),
        game_id: "gt-1:3".into(),
        all_dead_letters: false,
        reason: "ledger bug fixed".into(),
    };
    let first = referee
        .record_operator_action(redeliver.clone())
        .await
        .unwrap()
        .into_inner();
    let again = referee
        .record_operator_action(redeliver.clone())
        .await
        .unwrap()
        .into_inner();
    assert!(!first.replayed && again.replayed);
    assert_eq!(first.action, again.action);

    let rows = trail(&app).await;
    assert_eq!(rows.len(), 5, "{rows:#?}");
    assert_eq!(count_rows(&app).await, 5);
    let by_kind = |kind: OperatorActionKind| {
        let found: Vec<_> = rows.iter().filter(|r| r.kind == kind as i32).collect();
        assert_eq!(found.len(), 1, "one {kind:?} row: {rows:#?}");
        found[0].clone()
    };
    let g = by_kind(OperatorActionKind::GrantSilver);
    assert_eq!(
        (
            g.request_id.as_str(),
            g.operator.as_str(),
            g.recorded_by.as_str(),
            g.player_id.as_str(),
            g.amount_silver,
            g.reason.as_str()
        ),
        ("g-1", "ops-ann", "ops-ann", "alice", 5_000, "welcome bonus")
    );
    assert!(!g.transfer_id.is_empty());
    let p = by_kind(OperatorActionKind::SetProfessional);
    assert_eq!(
        (
            p.request_id.as_str(),
            p.player_id.as_str(),
            p.professional_dan,
            p.professional_dan_before,
            p.reason.as_str()
        ),
        ("p-1", "bob", 4, 0, "won the national open")
    );
    let n = by_kind(OperatorActionKind::SetName);
    assert_eq!(
        (
            n.request_id.as_str(),
            n.player_id.as_str(),
            n.name.as_str(),
            n.name_before.as_str(),
            n.reason.as_str()
        ),
        ("n-1", "cai", "", "bad name", "offensive name reported")
    );
    let c = by_kind(OperatorActionKind::CloseTable);
    assert_eq!(
        (
            c.request_id.as_str(),
            c.operator.as_str(),
            c.recorded_by.as_str(),
            c.table_id.as_str(),
            c.reason.as_str()
        ),
        (
            "c-1",
            "ops-ann",
            "gomoku-referee",
            "gt-1",
            "stuck after an incident"
        )
    );
    let r = by_kind(OperatorActionKind::Redeliver);
    assert_eq!((r.game_id.as_str(), r.all_dead_letters), ("gt-1:3", false));
    // When: the server's time, within this test's run.
    let now = chrono::Utc::now().timestamp_millis();
    for row in &rows {
        assert!(
            (now - 120_000..=now + 1_000).contains(&row.at_unix_ms),
            "{row:?}"
        );
    }
    // The money moved once.
    assert_eq!(app.balance("alice").await, 5_000);
    app.finish().await;
}

#[tokio::test]
async fn a_request_id_names_one_action_and_a_reason_is_required() {
    let app = spawn_app().await;
    let mut ops = app.operator();
    ops.grant_silver(grant("id-1", "alice", 100, "x"))
        .await
        .unwrap();
    // The grant's id for a different grant, a professional dan or a close: refused.
    let status = ops
        .grant_silver(grant("id-1", "alice", 200, "x"))
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::AlreadyExists);
    let status = ops
        .set_professional(SetProfessionalRequest {
            player_id: "bob".into(),
            professional_dan: 1,
            reason: "y".into(),
            request_id: "id-1".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::AlreadyExists, "{status:?}");
    let status = app
        .service()
        .record_operator_action(close("id-1", "gt-1", "z"))
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::AlreadyExists, "{status:?}");
    // A close's id for a grant: refused, and nothing granted.
    app.service()
        .record_operator_action(close("id-2", "gt-1", "z"))
        .await
        .unwrap();
    let status = ops
        .grant_silver(grant("id-2", "alice", 100, "x"))
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::AlreadyExists, "{status:?}");
    assert_eq!(app.balance("alice").await, 100);

    // No reason: refused, nothing changed.
    let status = ops
        .set_professional(SetProfessionalRequest {
            player_id: "bob".into(),
            professional_dan: 1,
            reason: " ".into(),
            request_id: String::new(),
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(status.message().starts_with("reason:"), "{status:?}");
    let status = ops
        .set_name(SetNameRequest {
            player_id: "bob".into(),
            name: "Bob".into(),
            reason: String::new(),
            request_id: String::new(),
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(status.message().starts_with("reason:"), "{status:?}");
    assert_eq!(app.account("bob").await.name, "");
    // Without a request id, each call is its own action with a fresh id.
    for _ in 0..2 {
        ops.set_professional(SetProfessionalRequest {
            player_id: "bob".into(),
            professional_dan: 2,
            reason: "promoted".into(),
            request_id: String::new(),
        })
        .await
        .unwrap();
    }
    let pros = list(
        &mut ops,
        ListOperatorActionsRequest {
            kind: OperatorActionKind::SetProfessional as i32,
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(pros.len(), 2);
    assert_ne!(pros[0].request_id, pros[1].request_id);
    assert_eq!(count_rows(&app).await, 4);
    app.finish().await;
}

#[tokio::test]
async fn only_services_record_and_only_operators_list() {
    let app = spawn_app().await;
    for mut client in [app.operator(), app.player("alice")] {
        let status = client
            .record_operator_action(close("c-1", "gt-1", "x"))
            .await
            .unwrap_err();
        assert_eq!(status.code(), Code::PermissionDenied);
    }
    for mut client in [app.service(), app.player("alice")] {
        let status = client
            .list_operator_actions(ListOperatorActionsRequest::default())
            .await
            .unwrap_err();
        assert_eq!(status.code(), Code::PermissionDenied);
    }
    // Services record closes and redeliveries only; the ledger records the rest itself.
    let mut grant_by_service = close("c-2", "", "x");
    grant_by_service.kind = OperatorActionKind::GrantSilver as i32;
    let status = app
        .service()
        .record_operator_action(grant_by_service)
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(status.message().starts_with("kind:"), "{status:?}");
    let status = app
        .service()
        .record_operator_action(close("c-3", "", "x"))
        .await
        .unwrap_err();
    assert!(status.message().starts_with("table_id:"), "{status:?}");
    assert_eq!(count_rows(&app).await, 0);
    app.finish().await;
}

#[tokio::test]
async fn postgres_refuses_to_edit_the_trail() {
    let app = spawn_app().await;
    app.operator()
        .grant_silver(grant("g-1", "alice", 100, "x"))
        .await
        .unwrap();
    for statement in [
        "UPDATE operator_actions SET reason = 'nothing to see'",
        "UPDATE operator_actions SET operator = 'someone-else' WHERE request_id = 'g-1'",
        "DELETE FROM operator_actions",
        "TRUNCATE operator_actions",
    ] {
        let err = sqlx::query(statement)
            .execute(&app.db.pool)
            .await
            .expect_err(statement);
        assert!(
            err.to_string()
                .contains("operator_actions rows are immutable"),
            "{statement}: {err}"
        );
    }
    let reason: String =
        sqlx::query_scalar("SELECT reason FROM operator_actions WHERE request_id = 'g-1'")
            .fetch_one(&app.db.pool)
            .await
            .unwrap();
    assert_eq!(reason, "x");
    app.finish().await;
}

#[tokio::test]
async fn listing_filters_by_operator_target_kind_and_time_and_pages() {
    let app = spawn_app().await;
    let mut ann = app.client("ops-ann", Role::Operator);
    let mut ben = app.client("ops-ben", Role::Operator);
    for i in 0..7 {
        ann.grant_silver(grant(&format!("a-{i}"), "alice", 10, "ann's"))
            .await
            .unwrap();
    }
    for i in 0..3 {
        ben.grant_silver(grant(&format!("b-{i}"), "bob", 10, "ben's"))
            .await
            .unwrap();
    }
    app.service()
        .record_operator_action(close("c-1", "gt-9", "stuck"))
        .await
        .unwrap();

    let all = list(&mut ann, ListOperatorActionsRequest::default())
        .await
        .unwrap();
    assert_eq!(all.len(), 11);
    assert!(
        all.windows(2).all(|w| w[0].action_id > w[1].action_id),
        "newest first"
    );
    // Pages of 3: every row once, in order.
    let paged = list(
        &mut ann,
        ListOperatorActionsRequest {
            page_size: 3,
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(paged, all);
    let first = ann
        .list_operator_actions(ListOperatorActionsRequest {
            page_size: 3,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(first.actions.len(), 3);
    assert!(!first.next_page_token.is_empty());

    let by = |operator: &str| ListOperatorActionsRequest {
        operator: operator.into(),
        page_size: 2,
        ..Default::default()
    };
    assert_eq!(list(&mut ann, by("ops-ben")).await.unwrap().len(), 3);
    assert_eq!(list(&mut ann, by("ops-ann")).await.unwrap().len(), 8);
    let target = |target: &str| ListOperatorActionsRequest {
        target: target.into(),
        ..Default::default()
    };
    assert_eq!(list(&mut ann, target("alice")).await.unwrap().len(), 7);
    let table = list(&mut ann, target("gt-9")).await.unwrap();
    assert_eq!(table.len(), 1);
    assert_eq!(table[0].kind, OperatorActionKind::CloseTable as i32);
    let closes = list(
        &mut ann,
        ListOperatorActionsRequest {
            kind: OperatorActionKind::CloseTable as i32,
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(closes, table);
    let both = list(
        &mut ann,
        ListOperatorActionsRequest {
            operator: "ops-ben".into(),
            target: "alice".into(),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert!(both.is_empty());

    // Time: since is inclusive, until exclusive.
    let oldest = all.last().unwrap().at_unix_ms;
    let newest = all[0].at_unix_ms;
    let window = |since: i64, until: i64| ListOperatorActionsRequest {
        since_unix_ms: since,
        until_unix_ms: until,
        ..Default::default()
    };
    assert_eq!(list(&mut ann, window(oldest, 0)).await.unwrap().len(), 11);
    assert!(
        list(&mut ann, window(newest + 1, 0))
            .await
            .unwrap()
            .is_empty()
    );
    assert!(list(&mut ann, window(0, oldest)).await.unwrap().is_empty());
    let later = list(&mut ann, window(newest, newest + 1)).await.unwrap();
    assert!(!later.is_empty() && later.iter().all(|a| a.at_unix_ms == newest));

    // A token belongs to its filters; bad filters are named.
    let status = ann
        .list_operator_actions(ListOperatorActionsRequest {
            operator: "ops-ben".into(),
            page_token: first.next_page_token.clone(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(status.message().starts_with("page_token:"), "{status:?}");
    for (request, field) in [
        (window(-1, 0), "since_unix_ms"),
        (window(10, 10), "until_unix_ms"),
        (
            ListOperatorActionsRequest {
                kind: 99,
                ..Default::default()
            },
            "kind",
        ),
        (
            ListOperatorActionsRequest {
                page_size: -1,
                ..Default::default()
            },
            "page_size",
        ),
        (target("not an id"), "target"),
    ] {
        let status = ann.list_operator_actions(request).await.unwrap_err();
        assert_eq!(status.code(), Code::InvalidArgument);
        assert!(status.message().starts_with(field), "{status:?}");
    }
    app.finish().await;
}
