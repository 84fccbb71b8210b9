//! Authorization and bad input: each refusal has the right status and a message a
//! front-end developer can act on, names no hidden card, and changes nothing.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use doudizhu_rules::{CardSet, Seat};
use gamehub_doudizhu_dealer::DealerConfig;
use gamehub_doudizhu_dealer::testing::dealer_env;
use gamehub_platform::auth::Role;
use gamehub_platform::config::Env;
use gamehub_proto::doudizhu as pb;
use tonic::{Code, Status};

/// A refusal, checked: its code, no card text in its message, and the table unchanged.
async fn refused<T: std::fmt::Debug>(
    driver: &Driver,
    call: impl std::future::Future<Output = Result<T, Status>>,
    code: Code,
    words: &str,
) {
    let before = driver.view(0).await;
    let status = call.await.expect_err("expected a refusal");
    assert_eq!(status.code(), code, "{status:?}");
    assert!(
        status.message().contains(words),
        "{:?} should say {words:?}",
        status.message()
    );
    if code == Code::FailedPrecondition {
        // Like Gomoku's: a stable code front-ends localize on, then the sentence.
        let stable = status.message().split_once(": ").is_some_and(|(code, _)| {
            !code.is_empty() && code.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
        });
        assert!(stable, "{:?} starts with no stable code", status.message());
    }
    for card in CardSet::DECK.iter() {
        let text = card.to_string();
        assert!(
            !status
                .message()
                .split(|c: char| !c.is_ascii_alphanumeric())
                .any(|w| w == text),
            "{:?} names a card",
            status.message()
        );
    }
    let after = driver.view(0).await;
    assert_eq!(before, after, "a refusal changes nothing");
}

#[tokio::test]
async fn bad_plays_are_refused_with_a_reason_and_change_nothing() {
    let world = World::start().await;
    let seed = find_seed(7, |_| true);
    let dealt = doudizhu_rules::deal(&seed);
    let driver = world.open(&[seed], 0).await;
    let landlord = seat(driver.view(0).await.first_bidder);
    driver.make_landlord(landlord, 3).await;
    let other = (landlord + 1) % 3;
    let others_card = dealt.hands[other].iter().next().unwrap().to_string();

    // Cards not in hand: another seat's card, by card text.
    refused(
        &driver,
        driver.play_cards(landlord, &[&others_card]),
        Code::FailedPrecondition,
        "cards_not_in_hand: ",
    )
    .await;
    // Ranks the hand does not hold.
    let counts = driver.view(landlord).await.hand.len();
    assert_eq!(counts, 20);
    let hand = cards_of(&driver.view(landlord).await.hand).rank_counts();
    let missing = doudizhu_rules::Rank::ALL[..13]
        .iter()
        .find(|r| hand.count(**r) < 4)
        .unwrap();
    let ranks: String = std::iter::repeat_n(missing.symbol(), 4).collect();
    refused(
        &driver,
        driver.play(landlord, &ranks),
        Code::FailedPrecondition,
        "cards_not_in_hand: ",
    )
    .await;
    // Not a combination.
    let held: Vec<char> = doudizhu_rules::Rank::ALL[..13]
        .iter()
        .filter(|r| hand.count(**r) > 0)
        .map(|r| r.symbol())
        .collect();
    let two_ranks: String = held[..2].iter().collect();
    refused(
        &driver,
        driver.play(landlord, &two_ranks),
        Code::InvalidArgument,
        "invalid_combination: ",
    )
    .await;
    // Malformed requests.
    refused(
        &driver,
        driver.play(landlord, "33Z"),
        Code::InvalidArgument,
        "ranks",
    )
    .await;
    refused(
        &driver,
        driver.play_cards(landlord, &["ZZ"]),
        Code::InvalidArgument,
        "cards",
    )
    .await;
    refused(
        &driver,
        driver.play(landlord, ""),
        Code::InvalidArgument,
        "ranks",
    )
    .await;
    refused(
        &driver,
        driver.client(landlord).play(pb::PlayRequest {
            table_id: driver.table_id.clone(),
            request_id: rid(),
            ranks: "3".into(),
            cards: vec!["S3".into()],
            meant: String::new(),
        }),
        Code::InvalidArgument,
        "not both",
    )
    .await;
    // Not your turn; passing on a lead; bidding in the play phase.
    refused(
        &driver,
        driver.pass(other),
        Code::FailedPrecondition,
        "not_your_turn: ",
    )
    .await;
    refused(
        &driver,
        driver.pass(landlord),
        Code::FailedPrecondition,
        "cannot_pass_on_lead: you lead",
    )
    .await;
    refused(
        &driver,
        driver.bid(landlord, 3),
        Code::FailedPrecondition,
        "wrong_phase: not possible during playing",
    )
    .await;
    refused(
        &driver,
        driver.hint(other),
        Code::FailedPrecondition,
        "not_your_turn: ",
    )
    .await;
    refused(
        &driver,
        driver.next_deal(other),
        Code::FailedPrecondition,
        "deal_in_progress: ",
    )
    .await;
    // A missing request id.
    refused(
        &driver,
        driver.client(landlord).pass(pb::PassRequest {
            table_id: driver.table_id.clone(),
            request_id: String::new(),
        }),
        Code::InvalidArgument,
        "request_id",
    )
    .await;
    // The record of a deal still being played.
    refused(
        &driver,
        driver.client(0).get_deal_record(pb::GetDealRecordRequest {
            table_id: driver.table_id.clone(),
            deal_number: 1,
        }),
        Code::FailedPrecondition,
        "deal_not_finished: ",
    )
    .await;
    refused(
        &driver,
        driver.client(0).get_deal_record(pb::GetDealRecordRequest {
            table_id: driver.table_id.clone(),
            deal_number: 5,
        }),
        Code::NotFound,
        "no deal 5",
    )
    .await;
    world.finish().await;
}

#[tokio::test]
async fn only_the_seated_player_acts_for_its_seat() {
    let world = World::start().await;
    let driver = world.open(&[find_seed(8, |_| true)], 0).await;
    let second = world.open(&[find_seed(9, |_| true)], 0).await;
    let first = seat(driver.view(0).await.first_bidder);
    let bid = |table_id: &str| pb::BidRequest {
        table_id: table_id.into(),
        request_id: rid(),
        points: 1,
    };

    // A player of another table.
    refused(
        &driver,
        second.client(0).bid(bid(&driver.table_id)),
        Code::PermissionDenied,
        "not seated",
    )
    .await;
    refused(
        &driver,
        world.player("stranger").bid(bid(&driver.table_id)),
        Code::PermissionDenied,
        "not seated",
    )
    .await;
    refused(
        &driver,
        world.player("stranger").hint(pb::HintRequest {
            table_id: driver.table_id.clone(),
        }),
        Code::PermissionDenied,
        "not seated",
    )
    .await;
    // Services and operators do not play.
    refused(
        &driver,
        world.service().bid(bid(&driver.table_id)),
        Code::PermissionDenied,
        "player token",
    )
    .await;
    refused(
        &driver,
        world.dz("op", Role::Operator).bid(bid(&driver.table_id)),
        Code::PermissionDenied,
        "player token",
    )
    .await;
    // No token at all.
    let anonymous = pb::doudizhu_service_client::DoudizhuServiceClient::new(
        gamehub_platform::client::channel(&world.dealer.url, std::time::Duration::from_secs(5))
            .unwrap(),
    );
    refused(
        &driver,
        anonymous.clone().bid(bid(&driver.table_id)),
        Code::Unauthenticated,
        "bearer token",
    )
    .await;
    // Players do not open tables.
    let players = world.players().await;
    let status = driver
        .client(0)
        .open_table(open_request(&players, &[], 0))
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::PermissionDenied);
    // A seat acting out of turn.
    refused(
        &driver,
        driver.bid((first + 1) % 3, 1),
        Code::FailedPrecondition,
        "not_your_turn: ",
    )
    .await;
    // Unknown and malformed tables.
    let unknown = world
        .player(&driver.players[0])
        .get_table(pb::GetTableRequest {
            table_id: "ddz-000000000000000000000000".into(),
            as_spectator: false,
        })
        .await;
    assert_eq!(unknown.unwrap_err().code(), Code::NotFound);
    let status = driver
        .client(0)
        .bid(bid("ddz-000000000000000000000000"))
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::NotFound);
    assert!(status.message().contains("no table"));
    let status = driver.client(0).bid(bid("not a table")).await.unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(status.message().starts_with("table_id"));

    // Others see the table, never a hand.
    let spectator = world
        .player("stranger")
        .get_table(pb::GetTableRequest {
            table_id: driver.table_id.clone(),
            as_spectator: false,
        })
        .await
        .unwrap()
        .into_inner()
        .table
        .unwrap();
    assert_eq!(spectator.viewer_seat, -1);
    assert!(spectator.hand.is_empty());
    let service_view = world
        .service()
        .get_table(pb::GetTableRequest {
            table_id: driver.table_id.clone(),
            as_spectator: false,
        })
        .await
        .unwrap()
        .into_inner()
        .table
        .unwrap();
    assert!(service_view.hand.is_empty());
    assert_eq!(driver.view(1).await.hand.len(), 17);
    world.finish().await;
}

#[tokio::test]
async fn open_table_is_idempotent_and_checks_its_input() {
    let world = World::start().await;
    let players = world.players().await;
    let mut service = world.service();
    let request = open_request(&players, &[], 15_000);
    let first = service
        .open_table(request.clone())
        .await
        .unwrap()
        .into_inner();
    assert!(!first.replayed);
    assert!(first.table_id.starts_with("ddz-"));
    let table = first.table.unwrap();
    assert_eq!(table.turn_time_ms, 15_000);
    assert_eq!(table.deal_number, 1);
    assert!(table.hand.is_empty(), "the service sees no hand");
    assert_eq!(table.commitment.len(), 64);
    let again = service
        .open_table(request.clone())
        .await
        .unwrap()
        .into_inner();
    assert!(again.replayed);
    assert_eq!(again.table_id, first.table_id);
    assert_eq!(again.table.unwrap().commitment, table.commitment);

    let mut reused = request.clone();
    reused.player_ids.swap(0, 1);
    let status = service.open_table(reused).await.unwrap_err();
    assert_eq!(status.code(), Code::AlreadyExists);

    for (change, words) in [
        (
            Box::new(|r: &mut pb::OpenTableRequest| r.player_ids.truncate(2))
                as Box<dyn Fn(&mut pb::OpenTableRequest)>,
            "exactly 3",
        ),
        (
            Box::new(|r: &mut pb::OpenTableRequest| r.player_ids[1] = r.player_ids[0].clone()),
            "one seat",
        ),
        (
            Box::new(|r: &mut pb::OpenTableRequest| r.stakes = None),
            "stakes",
        ),
        (
            Box::new(|r: &mut pb::OpenTableRequest| r.stakes.as_mut().unwrap().points_base = 0),
            "points_base",
        ),
        (
            Box::new(|r: &mut pb::OpenTableRequest| r.turn_time_ms = 5),
            "turn_time_ms",
        ),
        (
            Box::new(|r: &mut pb::OpenTableRequest| r.request_id = String::new()),
            "request_id",
        ),
        (
            Box::new(|r: &mut pb::OpenTableRequest| r.test_seeds = vec!["zz".into()]),
            "test_seeds",
        ),
    ] {
        let mut bad = open_request(&players, &[], 0);
        change(&mut bad);
        let status = service.open_table(bad).await.unwrap_err();
        assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
        assert!(
            status.message().contains(words),
            "{:?} should say {words}",
            status.message()
        );
    }
    world.finish().await;
}

#[tokio::test]
async fn a_retried_action_applies_once() {
    let world = World::start().await;
    let driver = world.open(&[find_seed(11, |_| true)], 0).await;
    let first = seat(driver.view(0).await.first_bidder);
    let request = pb::BidRequest {
        table_id: driver.table_id.clone(),
        request_id: "bid-once".into(),
        points: 1,
    };
    let once = driver
        .client(first)
        .bid(request.clone())
        .await
        .unwrap()
        .into_inner();
    assert!(!once.replayed);
    let twice = driver
        .client(first)
        .bid(request)
        .await
        .unwrap()
        .into_inner();
    assert!(twice.replayed);
    assert_eq!(twice.table.unwrap().bids.len(), 1);
    world.finish().await;
}

#[tokio::test]
async fn test_seeds_are_refused_without_the_development_flag() {
    // A production configuration cannot turn the hook on.
    let keys = gamehub_testkit::tokens::ProductionKeys::generate();
    let mut pairs = keys.env();
    pairs.push(("GAMEHUB_DEALER_TEST_SEEDS".into(), "1".into()));
    let error = DealerConfig::from_env(&Env::from_pairs(pairs)).unwrap_err();
    assert_eq!(error.name, "GAMEHUB_DEALER_TEST_SEEDS");

    // A development dealer without the flag refuses seeds.
    let ledger = TestLedger::start(LEDGER_DB_PREFIX).await;
    let prefix = format!("ddzt{}", uuid::Uuid::new_v4().simple());
    let mut env = dealer_env(&prefix, &ledger.url, &Options::default(), "127.0.0.1:0");
    env.retain(|(k, _)| k != "GAMEHUB_DEALER_TEST_SEEDS");
    let config = DealerConfig::from_env(&Env::from_pairs(env)).unwrap();
    assert!(!config.test_seeds);
    let shutdown = gamehub_platform::server::Shutdown::new();
    let started = gamehub_doudizhu_dealer::start(config, shutdown.clone())
        .await
        .unwrap();
    let keys = gamehub_platform::auth::Keys::new(&gamehub_platform::config::Secret::new(
        gamehub_platform::config::DEVELOPMENT_JWT_SECRET,
    ));
    let mut service = dz(
        &format!("http://{}", started.addr),
        &keys,
        "matchmaking",
        Role::Service,
    );
    let players = ["p1", "p2", "p3"].map(String::from);
    let status = service
        .open_table(open_request(&players, &[find_seed(1, |_| true)], 0))
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::PermissionDenied);
    assert!(
        service
            .open_table(open_request(&players, &[], 0))
            .await
            .is_ok()
    );
    shutdown.trigger();
    let _ = started.task.await;
    ledger.finish().await;
    let _ = Seat::ALL;
}
