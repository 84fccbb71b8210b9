//! Whole deals through the gRPC API against real Redis and a real ledger: bidding,
//! redeals and the rotation of the first bidder, every combination kind played and
//! beaten, bombs and the rocket, landlord wins and losses, spring and anti-spring,
//! escapes, timeouts and auto-play; after each deal the ledger shows the points and
//! silver the rules give.
#![allow(clippy::unwrap_used)]

mod common;

use std::collections::BTreeSet;
use std::time::Duration;

use common::*;
use doudizhu_rules::{CardSet, Kind, Rank};
use gamehub_doudizhu_dealer::record::RecordDoc;
use gamehub_proto::doudizhu as pb;
use tonic::Code;

/// Waits for the ledger to settle the deal, then checks every player's points and silver.
async fn settle_and_check(world: &World, driver: &Driver, deal_number: i32, expected: [i64; 3]) {
    let record = world
        .settled(&format!("{}:{deal_number}", driver.table_id))
        .await;
    assert_eq!(record.record.unwrap().format, "doudizhu-json");
    world.check_ledger(&driver.players, expected).await;
}

fn add(total: &mut [i64; 3], result: &pb::DealResult) {
    for (t, p) in total.iter_mut().zip(&result.points) {
        *t += p;
    }
}

/// Fetches a finished deal's record and checks it with the documented verification.
async fn verified_record(driver: &Driver, deal_number: i32) -> pb::DealRecord {
    let record = driver
        .client(0)
        .get_deal_record(pb::GetDealRecordRequest {
            table_id: driver.table_id.clone(),
            deal_number,
        })
        .await
        .unwrap()
        .into_inner()
        .record
        .unwrap();
    let doc = RecordDoc::from_json(&record.record_json).unwrap();
    doc.verify().unwrap();
    assert_eq!(doc.record.seed.to_hex(), record.seed);
    // The command-line check accepts it, and refuses it with one seed digit changed.
    assert!(cli_verify(&record.record_json).await.starts_with("ok:"));
    let digit = if record.seed.starts_with('0') {
        "1"
    } else {
        "0"
    };
    let tampered =
        record
            .record_json
            .replacen(&record.seed, &format!("{digit}{}", &record.seed[1..]), 1);
    assert!(cli_verify(&tampered).await.starts_with("FAILED"));
    record
}

/// Runs `gamehub-doudizhu-dealer verify` on a record; returns what it printed.
async fn cli_verify(record_json: &str) -> String {
    use tokio::io::AsyncWriteExt;
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_gamehub-doudizhu-dealer"))
        .arg("verify")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(record_json.as_bytes()).await.unwrap();
    drop(stdin);
    let output = child.wait_with_output().await.unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(output.status.success(), text.starts_with("ok:"), "{text}");
    text
}

#[tokio::test]
async fn a_landlord_who_plays_out_alone_wins_with_a_spring() {
    let world = World::start().await;
    let seed = find_seed(1, |_| true);
    let driver = world.open(&[seed], 0).await;
    let first = seat(driver.view(0).await.first_bidder);
    let view = driver.bid(first, 3).await.unwrap();
    assert_eq!(
        view.phase,
        pb::Phase::Playing as i32,
        "a bid of 3 ends bidding at once"
    );
    assert_eq!(view.bids.len(), 1);
    assert_eq!(view.kitty.len(), 3);
    assert_eq!(view.hand.len(), 20, "the landlord took the kitty");
    assert!(view.must_lead);

    let end = driver
        .play_out(|s, _, hints| if s == first { smallest(hints) } else { None })
        .await;
    let result = end.result.unwrap();
    assert_eq!(result.outcome, pb::Outcome::LandlordWon as i32);
    assert!(result.spring);
    assert_eq!(result.multiplier, 2);
    let mut expected = [-6; 3];
    expected[first] = 12;
    assert_eq!(result.points, expected.to_vec());
    assert_eq!(end.status, pb::TableStatus::BetweenDeals as i32);
    assert_eq!(
        result.seed,
        seed.to_hex(),
        "the seed is revealed at the end"
    );
    verified_record(&driver, 1).await;
    settle_and_check(&world, &driver, 1, expected).await;

    // The ledger's answer reaches the table's view.
    let view = eventually(
        "the settled silver reached the view",
        Duration::from_secs(5),
        || async {
            let view = driver.view(first).await;
            (!view.result.as_ref().unwrap().settlement.is_empty()).then_some(view)
        },
    )
    .await;
    let silver: Vec<i64> = view
        .result
        .unwrap()
        .settlement
        .iter()
        .map(|s| s.silver_delta)
        .collect();
    assert_eq!(silver, expected.map(|p| p * SILVER_PER_POINT).to_vec());
    world.finish().await;
}

#[tokio::test]
async fn farmers_who_play_out_after_the_landlords_first_play_win_with_an_anti_spring() {
    let world = World::start().await;
    let seed = find_seed(100, |_| true);
    let driver = world.open(&[seed], 0).await;
    let landlord = seat(driver.view(0).await.first_bidder);
    driver.make_landlord(landlord, 1).await;
    let mut landlord_played = false;
    let end = driver
        .play_out(|s, view, hints| {
            if s == landlord {
                if view.must_lead || !landlord_played {
                    landlord_played = true;
                    return smallest(hints);
                }
                return None;
            }
            // A farmer never beats the other farmer.
            match &view.trick {
                Some(trick) if seat(trick.seat) != landlord => None,
                _ => smallest(hints),
            }
        })
        .await;
    let result = end.result.unwrap();
    assert_eq!(result.outcome, pb::Outcome::FarmersWon as i32);
    assert!(result.anti_spring);
    assert_eq!(result.multiplier, 2);
    let mut expected = [2; 3];
    expected[landlord] = -4;
    assert_eq!(result.points, expected.to_vec());
    verified_record(&driver, 1).await;
    settle_and_check(&world, &driver, 1, expected).await;
    world.finish().await;
}

/// The first bidder becomes landlord with a bid of 2 and leads twice; the farmers let
/// those plays through, then beat the landlord (never each other) and play out.
/// Returns the landlord's seat and the final view.
async fn landlord_leads_twice_then_farmers_play_out(driver: &Driver) -> (usize, pb::Table) {
    let landlord = seat(driver.view(0).await.first_bidder);
    driver.make_landlord(landlord, 2).await;
    let mut landlord_plays = 0;
    let end = driver
        .play_out(|s, view, hints| {
            if s == landlord {
                if view.must_lead || landlord_plays < 2 {
                    landlord_plays += 1;
                    return smallest(hints);
                }
                return None;
            }
            if landlord_plays < 2 {
                return None;
            }
            match &view.trick {
                Some(trick) if seat(trick.seat) != landlord => None,
                _ => smallest(hints),
            }
        })
        .await;
    (landlord, end)
}

/// The next deal waits for the ledger to have the last one: a ledger that delivers
/// slowly gets `settling:` (UNAVAILABLE with a retry hint, nothing changed) until it
/// acknowledges, and only then is the player judged, so a cap reached by exactly that
/// deal refuses the next one.
#[tokio::test]
async fn the_next_deal_waits_for_the_ledger_to_settle_the_last_one() {
    use gamehub_platform::auth::Role;
    use gamehub_platform::server::Shutdown;
    use gamehub_testkit::settling::{is_settling, retry_hint};
    use gamehub_testkit::stub_ledger::StubLedger;

    let shutdown = Shutdown::new();
    let ledger = StubLedger::default();
    let url = ledger.clone().serve(shutdown.clone()).await.unwrap();
    let prefix = gamehub_testkit::redis::fresh_prefix("ddzt");
    let mut dealer =
        gamehub_doudizhu_dealer::testing::start(&prefix, &url, &Options::default()).await;
    let keys = gamehub_testkit::tokens::dev_keys();
    let tag = &uuid::Uuid::new_v4().simple().to_string()[..8];
    let players = ["a", "b", "c"].map(|p| format!("{p}-{tag}"));
    let table_id = dz(&dealer.url, &keys, "matchmaking", Role::Service)
        .open_table(open_request(&players, &[find_seed(1, |_| true)], 0))
        .await
        .unwrap()
        .into_inner()
        .table_id;
    let driver = Driver {
        table_id,
        clients: players
            .clone()
            .map(|p| dz(&dealer.url, &keys, &p, Role::Player)),
        players: players.clone(),
    };
    ledger.hold();

    // The landlord plays out alone (a spring): both farmers lose.
    let first = seat(driver.view(0).await.first_bidder);
    driver.bid(first, 3).await.unwrap();
    let end = driver
        .play_out(|s, _, hints| if s == first { smallest(hints) } else { None })
        .await;
    assert_eq!(end.status, pb::TableStatus::BetweenDeals as i32);
    let farmer = (first + 1) % 3;
    ledger.cap_after(&players[farmer], 1);

    // Unsettled: every seat hears `settling:` with a hint, and nothing changes.
    for s in 0..3 {
        let status = driver.next_deal_once(s).await.unwrap_err();
        assert!(is_settling(&status), "{status:?}");
        assert_eq!(retry_hint(&status), Duration::from_millis(250));
    }
    let view = driver.view(0).await;
    assert_eq!(view.status, pb::TableStatus::BetweenDeals as i32);
    assert!(
        view.seats.iter().all(|s| !s.ready),
        "nobody was marked ready"
    );

    // Delivered: the farmer whose cap that deal reached is refused, the others are not.
    ledger.release();
    let refused = driver.next_deal(farmer).await.unwrap_err();
    assert_eq!(refused.code(), Code::FailedPrecondition, "{refused:?}");
    assert!(
        refused
            .message()
            .starts_with("not_eligible: daily_loss_cap: "),
        "{}",
        refused.message()
    );
    for s in (0..3).filter(|&s| s != farmer) {
        driver.next_deal(s).await.unwrap();
    }
    let view = driver.view(0).await;
    assert_eq!(view.deal_number, 1, "no second deal without the farmer");
    assert_eq!(
        ledger
            .settled
            .lock()
            .unwrap()
            .get(&format!("{}:1", driver.table_id)),
        Some(&1)
    );
    dealer.stop().await;
    shutdown.trigger();
    gamehub_testkit::redis::remove_keys(&prefix).await;
}

/// docs/rules.md#caps: a player who reached the daily loss cap may not start another game that
/// day, at the same table either.
#[tokio::test]
async fn a_landlord_who_reached_the_daily_loss_cap_is_not_dealt_in_again() {
    let world =
        World::start_with_ledger(Options::default(), |c| c.caps.daily_loss_silver = 20).await;
    let driver = world
        .open(&[find_seed(200, |_| true), find_seed(300, |_| true)], 0)
        .await;
    let (landlord, end) = landlord_leads_twice_then_farmers_play_out(&driver).await;
    assert_eq!(
        end.result.unwrap().outcome,
        pb::Outcome::FarmersWon as i32,
        "the landlord lost more than the 20-silver cap"
    );
    world.settled(&format!("{}:1", driver.table_id)).await;

    let refused = driver.next_deal(landlord).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::FailedPrecondition);
    assert!(
        refused
            .message()
            .starts_with("not_eligible: daily_loss_cap: "),
        "{}",
        refused.message()
    );
    // The farmers may say they are ready; no deal starts without the landlord.
    for s in (0..3).filter(|&s| s != landlord) {
        driver.next_deal(s).await.unwrap();
    }
    let view = driver.view(0).await;
    assert_eq!(view.deal_number, 1, "no second deal was dealt");
    world.finish().await;
}

/// The landlord loses without anti-spring, then wins without spring, at one table.
#[tokio::test]
async fn landlord_loss_and_win_score_base_times_multiplier() {
    let world = World::start().await;
    let driver = world
        .open(&[find_seed(200, |_| true), find_seed(300, |_| true)], 0)
        .await;
    let mut total = [0i64; 3];

    // Deal 1: the landlord leads twice, then the farmers take over and play out.
    let (landlord, end) = landlord_leads_twice_then_farmers_play_out(&driver).await;
    let result = end.result.unwrap();
    assert_eq!(result.outcome, pb::Outcome::FarmersWon as i32);
    assert!(!result.anti_spring);
    let mut expected = [2; 3];
    expected[landlord] = -4;
    assert_eq!(result.points, expected.to_vec());
    add(&mut total, &result);
    settle_and_check(&world, &driver, 1, total).await;

    // Deal 2: a farmer plays one card, then the landlord plays out.
    let view = driver.next_deal_all().await;
    assert_eq!(view.deal_number, 2);
    let landlord = seat(view.first_bidder);
    driver.make_landlord(landlord, 1).await;
    let mut farmer_played = false;
    let end = driver
        .play_out(|s, view, hints| {
            if s == landlord {
                return if view.must_lead {
                    smallest(hints)
                } else {
                    hints.plays.last().map(|p| p.ranks.clone())
                };
            }
            if !farmer_played
                && !view.must_lead
                && let Some(play) = smallest(hints)
            {
                farmer_played = true;
                return Some(play);
            }
            if view.must_lead {
                smallest(hints)
            } else {
                None
            }
        })
        .await;
    let result = end.result.unwrap();
    assert_eq!(
        result.outcome,
        pb::Outcome::LandlordWon as i32,
        "{result:?}"
    );
    assert!(!result.spring);
    let unit = result.multiplier;
    let mut expected = [-unit; 3];
    expected[landlord] = 2 * unit;
    assert_eq!(result.points, expected.to_vec());
    add(&mut total, &result);
    settle_and_check(&world, &driver, 2, total).await;
    world.finish().await;
}

fn has_bomb_and_rocket(hand: CardSet) -> Option<Rank> {
    let counts = hand.rank_counts();
    if counts.count(Rank::SmallJoker) == 1 && counts.count(Rank::BigJoker) == 1 {
        Rank::ALL[..13]
            .iter()
            .copied()
            .find(|r| counts.count(*r) == 4)
    } else {
        None
    }
}

#[tokio::test]
async fn a_bomb_and_the_rocket_each_double_the_multiplier() {
    let world = World::start().await;
    let seed = find_seed(1000, |dealt| {
        dealt
            .hands
            .iter()
            .any(|h| has_bomb_and_rocket(*h).is_some())
    });
    let dealt = doudizhu_rules::deal(&seed);
    let holder = (0..3)
        .find(|i| has_bomb_and_rocket(dealt.hands[*i]).is_some())
        .unwrap();
    let bomb_rank = has_bomb_and_rocket(dealt.hands[holder]).unwrap();
    let driver = world.open(&[seed], 0).await;
    driver.make_landlord(holder, 2).await;

    let bomb: String = std::iter::repeat_n(bomb_rank.symbol(), 4).collect();
    let view = driver.play(holder, &bomb).await.unwrap();
    assert_eq!(view.multiplier, 2);
    assert_eq!(
        view.trick.unwrap().combination.unwrap().kind,
        pb::Kind::Bomb as i32
    );
    let next = (holder + 1) % 3;
    driver.pass(next).await.unwrap();
    driver.pass((holder + 2) % 3).await.unwrap();
    let view = driver.play(holder, "XD").await.unwrap();
    assert_eq!(view.multiplier, 4);
    assert_eq!(
        view.trick.unwrap().combination.unwrap().kind,
        pb::Kind::Rocket as i32
    );
    // Nothing beats the rocket.
    assert!(driver.hint(next).await.unwrap().plays.is_empty());

    let end = driver
        .play_out(|s, _, hints| if s == holder { smallest(hints) } else { None })
        .await;
    let result = end.result.unwrap();
    assert_eq!((result.bombs, result.rockets), (1, 1));
    assert!(result.spring);
    assert_eq!(result.multiplier, 8, "bomb × rocket × spring");
    let mut expected = [-16; 3];
    expected[holder] = 32;
    assert_eq!(result.points, expected.to_vec());
    settle_and_check(&world, &driver, 1, expected).await;
    world.finish().await;
}

#[tokio::test]
async fn every_combination_kind_is_played_and_beaten_by_its_own_kind() {
    let world = World::start().await;
    // One deal per kind: a seed where some seat can lead it; that seat becomes landlord.
    let mut seeds = Vec::new();
    let mut leaders = Vec::new();
    for (i, kind) in Kind::ALL.into_iter().enumerate() {
        let seed = find_seed(10_000 * (i as u64 + 1), |d| {
            (0..3).any(|s| can_lead(d.hands[s], kind))
        });
        let dealt = doudizhu_rules::deal(&seed);
        leaders.push((
            kind,
            (0..3).find(|s| can_lead(dealt.hands[*s], kind)).unwrap(),
        ));
        seeds.push(seed);
    }
    let driver = world.open(&seeds, 0).await;
    let mut total = [0i64; 3];
    let mut played = BTreeSet::new();
    let mut beaten = 0;
    for (n, (kind, leader)) in leaders.into_iter().enumerate() {
        let deal_number = n as i32 + 1;
        if n > 0 {
            assert_eq!(driver.next_deal_all().await.deal_number, deal_number);
        }
        driver.make_landlord(leader, 3).await;
        let hints = driver.hint(leader).await.unwrap();
        assert!(!hints.can_pass, "the landlord leads");
        let lead = hints
            .plays
            .iter()
            .find(|p| p.combination.as_ref().unwrap().kind == convert_kind(kind) as i32)
            .unwrap_or_else(|| panic!("no {kind:?} among the hints"))
            .clone();
        let view = driver.play(leader, &lead.ranks).await.unwrap();
        let trick = view.trick.unwrap();
        assert_eq!(trick.combination.unwrap().kind, convert_kind(kind) as i32);
        assert_eq!(
            cards_of(&trick.cards),
            cards_of(&lead.cards),
            "the server played the hinted cards"
        );
        played.insert(kind);

        // The next seat beats it with the same kind when it can: every hint it gets is
        // the same kind and length with a higher rank, or a bomb or the rocket.
        let next = (leader + 1) % 3;
        let replies = driver.hint(next).await.unwrap();
        assert!(replies.can_pass);
        let led = lead.combination.unwrap();
        for reply in &replies.plays {
            let c = reply.combination.as_ref().unwrap();
            let same = c.kind == led.kind
                && c.length == led.length
                && rank_index(&c.rank) > rank_index(&led.rank);
            let bomb = c.kind == pb::Kind::Bomb as i32
                && (led.kind != pb::Kind::Bomb as i32
                    || rank_index(&c.rank) > rank_index(&led.rank));
            assert!(
                same || bomb || c.kind == pb::Kind::Rocket as i32,
                "{reply:?} does not beat {led:?}"
            );
        }
        if let Some(reply) = replies
            .plays
            .iter()
            .find(|r| r.combination.as_ref().unwrap().kind == led.kind)
        {
            let view = driver.play(next, &reply.ranks).await.unwrap();
            assert_eq!(seat(view.trick.unwrap().seat), next);
            beaten += 1;
        } else {
            driver.pass(next).await.unwrap();
        }
        // Whoever leads plays out, biggest plays first; the others pass.
        let end = driver
            .play_out(|_, view, hints| {
                if view.must_lead {
                    hints
                        .plays
                        .iter()
                        .max_by_key(|p| p.cards.len())
                        .map(|p| p.ranks.clone())
                } else {
                    None
                }
            })
            .await;
        let result = end.result.unwrap();
        add(&mut total, &result);
        settle_and_check(&world, &driver, deal_number, total).await;
    }
    assert_eq!(played.len(), Kind::ALL.len());
    assert!(
        beaten >= 3,
        "only {beaten} leads were beaten by their own kind"
    );
    world.finish().await;
}

fn rank_index(text: &str) -> usize {
    Rank::ALL
        .iter()
        .position(|r| r.symbol().to_string() == text)
        .unwrap()
}

fn convert_kind(kind: Kind) -> pb::Kind {
    gamehub_doudizhu_dealer::view::kind(kind)
}

#[tokio::test]
async fn bidding_three_ends_it_all_passing_redeals_and_the_first_bidder_rotates() {
    let world = World::start().await;
    let driver = world
        .open(&[find_seed(20, |_| true), find_seed(40, |_| true)], 0)
        .await;
    let view = driver.view(0).await;
    assert_eq!(view.deal_number, 1);
    let first = seat(view.first_bidder);
    let commitment = view.commitment.clone();

    // Out of turn.
    let wrong = (first + 1) % 3;
    let refused = driver.bid(wrong, 1).await;
    assert!(
        status_is(&refused, Code::FailedPrecondition)
            .message()
            .contains("not your turn")
    );

    // Everybody passes: the cards are dealt again, the next seat bids first.
    for i in 0..3 {
        driver.bid((first + i) % 3, 0).await.unwrap();
    }
    let view = driver.view(0).await;
    assert_eq!(view.deal_number, 2);
    assert_eq!(seat(view.first_bidder), (first + 1) % 3);
    assert_eq!(view.phase, pb::Phase::Bidding as i32);
    assert!(view.bids.is_empty());
    assert_ne!(view.commitment, commitment, "a redeal has a fresh seed");
    let redeal = verified_record(&driver, 1).await;
    assert_eq!(redeal.result.unwrap().outcome, pb::Outcome::Redeal as i32);

    // A bid must be higher than the last; 3 ends bidding.
    let f = (first + 1) % 3;
    driver.bid(f, 2).await.unwrap();
    let refused = driver.bid((f + 1) % 3, 1).await;
    assert!(
        status_is(&refused, Code::FailedPrecondition)
            .message()
            .contains("higher than 2")
    );
    let refused = driver.bid((f + 1) % 3, 4).await;
    status_is(&refused, Code::InvalidArgument);
    let view = driver.bid((f + 1) % 3, 3).await.unwrap();
    assert_eq!(seat(view.landlord), (f + 1) % 3);
    assert_eq!(view.winning_bid, 3);
    assert_eq!(view.bids.len(), 2);

    let landlord = (f + 1) % 3;
    let end = driver
        .play_out(|s, _, hints| if s == landlord { smallest(hints) } else { None })
        .await;
    let result = end.result.unwrap();
    let mut expected = [-6; 3];
    expected[landlord] = 12;
    assert_eq!(result.points, expected.to_vec());
    settle_and_check(&world, &driver, 2, expected).await;

    // Deal 3: one seat further along.
    let view = driver.next_deal_all().await;
    assert_eq!(view.deal_number, 3);
    assert_eq!(seat(view.first_bidder), (first + 2) % 3);
    world.finish().await;
}

#[tokio::test]
async fn the_seat_that_leads_may_not_pass_and_a_play_must_beat_the_trick() {
    let world = World::start().await;
    let seed = find_seed(500, |_| true);
    let dealt = doudizhu_rules::deal(&seed);
    let driver = world.open(&[seed], 0).await;
    let landlord = seat(driver.view(0).await.first_bidder);
    let view = driver.make_landlord(landlord, 3).await;

    let refused = driver.pass(landlord).await;
    assert!(
        status_is(&refused, Code::FailedPrecondition)
            .message()
            .contains("you lead")
    );

    // The landlord leads its highest single; the next seat cannot play a lower one.
    let hand = cards_of(&view.hand);
    let highest = hand.iter().last().unwrap();
    driver
        .play_cards(landlord, &[&highest.to_string()])
        .await
        .unwrap();
    let next = (landlord + 1) % 3;
    let lowest = dealt.hands[next].iter().next().unwrap();
    let before = driver.view(next).await;
    let refused = driver.play_cards(next, &[&lowest.to_string()]).await;
    assert!(
        status_is(&refused, Code::FailedPrecondition)
            .message()
            .contains("does not beat")
    );
    let after = driver.view(next).await;
    assert_eq!(
        before.last_event_id, after.last_event_id,
        "a refused play changes nothing"
    );

    // Two passes give the lead back to the last player.
    driver.pass(next).await.unwrap();
    let view = driver.pass((landlord + 2) % 3).await.unwrap();
    assert_eq!(seat(view.to_act), landlord);
    assert!(view.must_lead);
    assert!(view.trick.is_none());
    world.finish().await;
}

#[tokio::test]
async fn an_escape_before_any_bid_costs_three_points() {
    let world = World::start().await;
    let driver = world.open(&[find_seed(60, |_| true)], 0).await;
    let escaper = (seat(driver.view(0).await.first_bidder) + 1) % 3;
    let left = driver.leave(escaper).await.unwrap();
    assert!(left.escaped);
    let view = left.table.unwrap();
    assert_eq!(view.status, pb::TableStatus::Closed as i32);
    assert_eq!(view.close_reason, pb::CloseReason::Escape as i32);
    let result = view.result.unwrap();
    assert_eq!(result.outcome, pb::Outcome::Escaped as i32);
    let mut expected = [0; 3];
    expected[escaper] = -3;
    assert_eq!(result.points, expected.to_vec());
    settle_and_check(&world, &driver, 1, expected).await;
    let record = world.settled(&format!("{}:1", driver.table_id)).await;
    let results = record.game.unwrap().results;
    assert!(
        results
            .iter()
            .all(|r| r.role == gamehub_proto::ledger::Role::Bidder as i32)
    );

    // The table is closed: nothing more happens there.
    let refused = driver.bid(0, 1).await;
    status_is(&refused, Code::FailedPrecondition);
    world.finish().await;
}

#[tokio::test]
async fn an_escape_after_bids_costs_bid_times_multiplier_times_three() {
    let world = World::start().await;
    let seed = find_seed(3000, |dealt| {
        dealt
            .hands
            .iter()
            .any(|h| has_bomb_and_rocket(*h).is_some())
    });
    let dealt = doudizhu_rules::deal(&seed);
    let holder = (0..3)
        .find(|i| has_bomb_and_rocket(dealt.hands[*i]).is_some())
        .unwrap();
    let bomb_rank = has_bomb_and_rocket(dealt.hands[holder]).unwrap();
    let driver = world.open(&[seed], 0).await;
    driver.make_landlord(holder, 2).await;
    let bomb: String = std::iter::repeat_n(bomb_rank.symbol(), 4).collect();
    driver.play(holder, &bomb).await.unwrap();
    let escaper = (holder + 1) % 3;
    let left = driver.leave(escaper).await.unwrap();
    assert!(left.escaped);
    let result = left.table.unwrap().result.unwrap();
    let mut expected = [0; 3];
    expected[escaper] = -12; // bid 2 × base 1 × multiplier 2 × 3
    assert_eq!(result.points, expected.to_vec());
    settle_and_check(&world, &driver, 1, expected).await;
    let record = world.settled(&format!("{}:1", driver.table_id)).await;
    let game = record.game.unwrap();
    assert_eq!(game.reason, "escape");
    let outcomes: Vec<i32> = game.results.iter().map(|r| r.outcome).collect();
    assert_eq!(
        outcomes
            .iter()
            .filter(|o| **o == gamehub_proto::ledger::PlayerOutcome::Void as i32)
            .count(),
        2
    );

    // Leaving a closed table is refused; a retry of the leave is answered again.
    status_is(
        &driver.leave(holder).await.map(|r| r.table.unwrap()),
        Code::FailedPrecondition,
    );
    world.finish().await;
}

#[tokio::test]
async fn leaving_between_deals_costs_nothing_and_closes_the_table() {
    let world = World::start().await;
    let driver = world.open(&[find_seed(70, |_| true)], 0).await;
    let landlord = seat(driver.view(0).await.first_bidder);
    driver.make_landlord(landlord, 1).await;
    let end = driver
        .play_out(|s, _, hints| if s == landlord { smallest(hints) } else { None })
        .await;
    let points = end.result.unwrap().points;
    let left = driver.leave((landlord + 1) % 3).await.unwrap();
    assert!(!left.escaped);
    let view = left.table.unwrap();
    assert_eq!(view.close_reason, pb::CloseReason::Left as i32);
    settle_and_check(&world, &driver, 1, [points[0], points[1], points[2]]).await;
    world.finish().await;
}

#[tokio::test]
async fn timeouts_play_for_the_seat_and_two_in_a_row_put_it_on_auto_play() {
    let world = World::start_with(Options {
        auto_turn_ms: 400,
        ..Options::default()
    })
    .await;
    let driver = world.open(&[find_seed(80, |_| true)], 300).await;
    // The turn is timed by the dealer's clock (which stands still until advanced).
    assert_eq!(
        driver.view(0).await.turn_deadline_unix_ms,
        i64::try_from(world.clock.now_ms() + 300).unwrap()
    );
    let f = seat(driver.view(0).await.first_bidder);
    let landlord = (f + 1) % 3;
    let farmer = (f + 2) % 3;

    // f lets its bidding time run out: the server passes for it.
    let view = wait_for(&world, &driver, |v| v.bids.len() == 1).await;
    assert_eq!(view.bids[0].points, 0);
    assert_eq!(view.bids[0].by, pb::Actor::Timeout as i32);
    let view = driver.bid(landlord, 3).await.unwrap();
    let lowest = cards_of(&view.hand).iter().next().unwrap();

    // The landlord lets its lead time run out: the server plays its lowest card.
    let view = wait_for(&world, &driver, |v| !v.turns.is_empty()).await;
    let turn = &view.turns[0];
    assert_eq!(turn.by, pb::Actor::Timeout as i32);
    assert_eq!(turn.cards, vec![lowest.to_string()]);
    // The farmer passes itself; f times out a second time in a row: auto-play.
    driver.pass(farmer).await.unwrap();
    let view = wait_for(&world, &driver, |v| v.seats[f].auto_play).await;
    assert_eq!(view.turns.last().unwrap().by, pb::Actor::Timeout as i32);

    // The landlord leads again; the farmer passes; f is played for by auto-play.
    driver
        .play(
            landlord,
            &smallest(&driver.hint(landlord).await.unwrap()).unwrap(),
        )
        .await
        .unwrap();
    driver.pass(farmer).await.unwrap();
    let view = wait_for(&world, &driver, |v| seat(v.to_act) == landlord).await;
    assert_eq!(view.turns.last().unwrap().by, pb::Actor::AutoPlay as i32);
    assert!(view.seats[f].auto_play);

    // Once f acts itself, auto-play is off.
    driver
        .play(
            landlord,
            &smallest(&driver.hint(landlord).await.unwrap()).unwrap(),
        )
        .await
        .unwrap();
    driver.pass(farmer).await.unwrap();
    let view = driver.pass(f).await.unwrap();
    assert!(!view.seats[f].auto_play);

    let end = driver
        .play_out(|s, _, hints| if s == landlord { smallest(hints) } else { None })
        .await;
    let result = end.result.unwrap();
    assert_eq!(result.outcome, pb::Outcome::LandlordWon as i32);
    let points = [result.points[0], result.points[1], result.points[2]];
    settle_and_check(&world, &driver, 1, points).await;
    world.finish().await;
}

#[tokio::test]
async fn seats_not_ready_for_the_next_deal_in_time_close_the_table() {
    let world = World::start_with(Options {
        next_deal_timeout_ms: 300,
        ..Options::default()
    })
    .await;
    let driver = world.open(&[find_seed(90, |_| true)], 0).await;
    let landlord = seat(driver.view(0).await.first_bidder);
    driver.make_landlord(landlord, 3).await;
    driver
        .play_out(|s, _, hints| if s == landlord { smallest(hints) } else { None })
        .await;
    driver.next_deal(0).await.unwrap();
    let view = wait_for(&world, &driver, |v| {
        v.status == pb::TableStatus::Closed as i32
    })
    .await;
    assert_eq!(view.close_reason, pb::CloseReason::Abandoned as i32);
    world.finish().await;
}

#[tokio::test]
async fn a_table_whose_players_are_all_gone_closes_after_two_idle_redeals() {
    let world = World::start_with(Options {
        auto_turn_ms: 100,
        ..Options::default()
    })
    .await;
    let driver = world.open(&[], 200).await;
    let view = wait_for(&world, &driver, |v| {
        v.status == pb::TableStatus::Closed as i32
    })
    .await;
    assert_eq!(view.close_reason, pb::CloseReason::Abandoned as i32);
    assert_eq!(view.deal_number, 2);
    assert_eq!(view.result.unwrap().outcome, pb::Outcome::Redeal as i32);
    assert!(view.bids.iter().all(|b| b.by != pb::Actor::Seat as i32));
    world.finish().await;
}

/// Polls seat 0's view until `done` holds (at most 10 s), moving the dealer's clock to
/// the table's next deadline (a turn, a redeal, the next deal) whenever it is not: the
/// test lets time run out instead of waiting for it.
async fn wait_for(world: &World, driver: &Driver, done: impl Fn(&pb::Table) -> bool) -> pb::Table {
    eventually("the table's condition", Duration::from_secs(10), || async {
        let view = driver.view(0).await;
        if done(&view) {
            return Some(view);
        }
        let next = [view.turn_deadline_unix_ms, view.next_deal_deadline_unix_ms]
            .into_iter()
            .filter(|&at| at > 0)
            .min();
        if let Some(at) = next {
            world.clock.advance_to(u64::try_from(at).unwrap());
        }
        None
    })
    .await
}

#[tokio::test]
async fn seats_on_auto_play_are_played_by_the_bot() {
    // Auto-play moves are made in the step that gives the seat its turn (auto_turn_ms 0).
    let world = World::start().await;
    let seed = find_seed(4_200, |_| true);
    let driver = world.open(&[seed], 60_000).await;
    let first_bidder = seat(driver.view(0).await.first_bidder);
    let landlord = first_bidder;
    driver.make_landlord(landlord, 3).await;
    let farmers = [(landlord + 1) % 3, (landlord + 2) % 3];
    for f in farmers {
        driver
            .client(f)
            .set_auto_play(pb::SetAutoPlayRequest {
                table_id: driver.table_id.clone(),
                request_id: rid(),
                on: true,
            })
            .await
            .unwrap();
    }
    // The landlord plays its smallest play each turn; the farmers are the bot's.
    let end = driver.play_out(|_, _, hints| smallest(hints)).await;
    assert_eq!(end.phase, pb::Phase::Finished as i32);

    // Replay the deal's record on the rule crate: every farmer turn is the bot's choice
    // for that seat's view at that moment, made by auto-play.
    let record = verified_record(&driver, 1).await;
    let record = RecordDoc::from_json(&record.record_json).unwrap().record;
    let (mut deal, _) = doudizhu_rules::Deal::new(
        &record.deal_id,
        record.seed,
        record.first_bidder,
        record.rules,
        0,
    )
    .unwrap();
    for b in &record.bids {
        deal.bid(b.seat, b.bid, 0).unwrap();
    }
    let mut beaten = 0;
    for turn in &record.turns {
        if turn.seat != s(landlord) {
            assert_eq!(turn.by, doudizhu_rules::Actor::AutoPlay);
            let view = deal.view(turn.seat);
            let expected = gamehub_bots::doudizhu::play(
                &gamehub_bots::doudizhu::Situation::from_view(&view).unwrap(),
            );
            let played = (!turn.cards.is_empty()).then(|| {
                turn.cards
                    .iter()
                    .copied()
                    .collect::<CardSet>()
                    .rank_counts()
            });
            assert_eq!(played, expected, "a turn of seat {}", turn.seat);
            beaten += usize::from(view.trick.is_some() && played.is_some());
        }
        if turn.cards.is_empty() {
            deal.pass(turn.seat, 0).unwrap();
        } else {
            deal.play(turn.seat, &turn.cards, 0).unwrap();
        }
    }
    // The timeout move would have passed every trick the landlord led.
    assert!(beaten > 0, "the bot beat no play of the landlord");
    assert_eq!(deal.settlement(), Some(&record.settlement));
    world.finish().await;
}

#[tokio::test]
async fn a_deals_end_shows_every_hand_and_hint_offers_the_bots_play_first() {
    let world = World::start().await;
    let seed = find_seed(1, |_| true);
    let driver = world.open(&[seed], 0).await;
    let first = seat(driver.view(0).await.first_bidder);
    driver.bid(first, 3).await.unwrap();
    let mut checked = 0;
    let end = driver
        .play_out(|s, own, hints| {
            // The bot's suggestion is one of the listed plays; a leader always gets one.
            if let Some(suggestion) = &hints.suggestion {
                assert!(
                    hints.plays.iter().any(|p| p == suggestion),
                    "suggestion {suggestion:?} is not among the plays"
                );
            } else {
                assert!(!own.must_lead, "a leader is always offered a play");
            }
            checked += 1;
            if s == first { smallest(hints) } else { None }
        })
        .await;
    assert!(checked > 0);
    let result = end.result.clone().unwrap();
    // Every seat's remaining cards, shown to all: the landlord played out, each farmer
    // still holds the 17 it was dealt, exactly its own hand as it saw it.
    let left: Vec<Vec<String>> = result.hands_left.iter().map(|h| h.cards.clone()).collect();
    assert_eq!(left.len(), 3);
    for (s, cards) in left.iter().enumerate() {
        let own = driver.view(s).await;
        assert_eq!(cards, &own.hand, "seat {s}'s cards left");
        assert_eq!(cards.len(), if s == first { 0 } else { 17 });
    }
    let spectator = driver
        .client(0)
        .get_table(pb::GetTableRequest {
            table_id: driver.table_id.clone(),
            as_spectator: true,
        })
        .await
        .unwrap()
        .into_inner()
        .table
        .unwrap();
    assert_eq!(spectator.viewer_seat, -1);
    assert_eq!(
        spectator.result.unwrap().hands_left,
        result.hands_left,
        "a spectator sees the hands at the end too"
    );
    // The record shows the same, re-derived from the dealt hands and the plays.
    let record = verified_record(&driver, 1).await;
    assert_eq!(record.result.unwrap().hands_left, result.hands_left);
    world.finish().await;
}
