//! Friends' tables (好友房) through the gRPC API, on the real Redis: the players' profiles
//! shown to every seat and spectator, bot seats played by auto-play for good and ready
//! for each next deal at once, a dealer restarted mid-deal carrying on, and
//! `friends_table` in the view, the deal record and the ledger's request. The ledger is
//! the test kit's stub (over gRPC), which keeps every request it was sent.
#![allow(clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::*;
use doudizhu_rules::{Bid, Dealt, Seat, Seed};
use gamehub_doudizhu_dealer::record::RecordDoc;
use gamehub_platform::auth::Role;
use gamehub_platform::server::Shutdown;
use gamehub_proto::common::PlayerProfile;
use gamehub_proto::doudizhu as pb;
use gamehub_testkit::stub_ledger::StubLedger;
use tonic::Code;

/// A dealer on a Redis prefix of its own, settling at a stub ledger, on a manual clock
/// with the default auto-play turn (1 s): a bot's move waits for the test to move the
/// clock, then the sweeper plays it.
struct Friends {
    ledger: StubLedger,
    ledger_url: String,
    /// Stops the stub ledger.
    shutdown: Shutdown,
    prefix: String,
    clock: ManualClock,
    dealer: TestServer,
}

impl Friends {
    async fn start() -> Friends {
        let shutdown = Shutdown::new();
        let ledger = StubLedger::default();
        let ledger_url = ledger.clone().serve(shutdown.clone()).await.unwrap();
        let prefix = gamehub_testkit::redis::fresh_prefix("ddzt");
        let clock = ManualClock::new();
        let dealer = Self::replica(&prefix, &ledger_url, &clock).await;
        Friends {
            ledger,
            ledger_url,
            shutdown,
            prefix,
            clock,
            dealer,
        }
    }

    /// Another dealer process's worth: the same Redis prefix, ledger and clock.
    async fn replica(prefix: &str, ledger_url: &str, clock: &ManualClock) -> TestServer {
        let options = Options {
            auto_turn_ms: 1_000,
            clock: clock.clock(),
            ..Options::default()
        };
        gamehub_doudizhu_dealer::testing::start(prefix, ledger_url, &options).await
    }

    fn client(&self, url: &str, subject: &str, role: Role) -> Dz {
        dz(url, &gamehub_testkit::tokens::dev_keys(), subject, role)
    }

    /// Opens a friends' table of `players` with these bot seats and profiles.
    async fn open(
        &self,
        players: &[String; 3],
        bot_seats: Vec<i32>,
        profiles: Vec<PlayerProfile>,
        seed: u64,
    ) -> Driver {
        self.open_dealt(players, bot_seats, profiles, find_seed(seed, |_| true))
            .await
    }

    /// [`Friends::open`] with the first deal's seed given.
    async fn open_dealt(
        &self,
        players: &[String; 3],
        bot_seats: Vec<i32>,
        profiles: Vec<PlayerProfile>,
        seed: Seed,
    ) -> Driver {
        let mut request = open_request(players, &[seed], 0);
        request.stakes.as_mut().unwrap().room_id = "doudizhu-free".into();
        request.stakes.as_mut().unwrap().silver_per_point = 0;
        request.bot_seats = bot_seats;
        request.profiles = profiles;
        request.friends_table = true;
        let table_id = self
            .client(&self.dealer.url, "matchmaking", Role::Service)
            .open_table(request)
            .await
            .unwrap()
            .into_inner()
            .table_id;
        self.driver(&self.dealer.url, table_id, players)
    }

    fn driver(&self, url: &str, table_id: String, players: &[String; 3]) -> Driver {
        Driver {
            table_id,
            clients: players.clone().map(|p| self.client(url, &p, Role::Player)),
            players: players.clone(),
        }
    }

    async fn finish(mut self) {
        self.dealer.stop().await;
        self.shutdown.trigger();
    }
}

/// A human (seat 0) and two bots, with fresh ids.
fn human_and_bots() -> [String; 3] {
    let tag = &uuid::Uuid::new_v4().simple().to_string()[..8];
    [
        format!("human-{tag}"),
        format!("bot-1-{tag}"),
        format!("bot-2-{tag}"),
    ]
}

fn profile(name: &str, title: &str) -> PlayerProfile {
    PlayerProfile {
        name: name.into(),
        title: title.into(),
        ..PlayerProfile::default()
    }
}

fn profiles() -> Vec<PlayerProfile> {
    vec![
        profile("张三", "超轻蝇量级"),
        profile("Robo Zoë", ""),
        profile("", ""),
    ]
}

/// The human's view once `done` holds (at most 10 s). Whenever it does not, the clock
/// moves to the table's next deadline, the bot's auto-play turn, which the sweeper then
/// plays: time runs out when the test says so, not by waiting.
async fn when(
    clock: &ManualClock,
    driver: &Driver,
    done: impl Fn(&pb::Table) -> bool,
) -> pb::Table {
    eventually("the table's condition", Duration::from_secs(10), || async {
        let view = driver.view(0).await;
        if done(&view) {
            return Some(view);
        }
        if view.turn_deadline_unix_ms > 0 {
            clock.advance_to(u64::try_from(view.turn_deadline_unix_ms).unwrap());
        }
        None
    })
    .await
}

/// The human's turn: it bids 3 (above any bot's bid), then plays its smallest play,
/// passing when it may and has nothing. Returns whether the deal goes on.
async fn human_turn(view: &pb::Table, driver: &Driver) -> bool {
    if view.status != pb::TableStatus::Dealing as i32 {
        return false;
    }
    if view.phase == pb::Phase::Bidding as i32 {
        driver.bid(0, 3).await.unwrap();
    } else {
        match smallest(&driver.hint(0).await.unwrap()) {
            Some(ranks) => driver.play(0, &ranks).await.unwrap(),
            None => driver.pass(0).await.unwrap(),
        };
    }
    true
}

/// The human plays its turns until the deal is over; the bots' turns are the dealer's.
async fn human_plays_out(clock: &ManualClock, driver: &Driver) -> pb::Table {
    for _ in 0..100 {
        let view = when(clock, driver, |v| {
            v.status != pb::TableStatus::Dealing as i32 || v.to_act == 0
        })
        .await;
        if !human_turn(&view, driver).await {
            return view;
        }
    }
    panic!("the deal did not end in 100 of the human's turns");
}

/// Every turn of the bots in a finished deal was auto-play's, never a timeout's nor
/// the seat's own.
fn bots_were_auto_played(view: &pb::Table) {
    let bids = view.bids.iter().map(|b| (b.seat, b.by));
    let turns = view.turns.iter().map(|t| (t.seat, t.by));
    let by_bots: Vec<i32> = bids
        .chain(turns)
        .filter(|(s, _)| *s != 0)
        .map(|(_, by)| by)
        .collect();
    assert!(!by_bots.is_empty());
    assert!(
        by_bots.iter().all(|by| *by == pb::Actor::AutoPlay as i32),
        "{by_bots:?}"
    );
}

/// A deal over, the bots ready and the human not; the human's NextDeal deals the next
/// deal at once, its bots on auto-play from the start.
async fn next_deal_starts_when_the_human_asks(friends: &Friends, driver: &Driver) {
    let between = driver.view(0).await;
    assert_eq!(between.status, pb::TableStatus::BetweenDeals as i32);
    let ready: Vec<bool> = between.seats.iter().map(|s| s.ready).collect();
    assert_eq!(ready, [false, true, true]);
    let dealt = driver.next_deal(0).await.unwrap();
    assert_eq!(dealt.status, pb::TableStatus::Dealing as i32);
    assert_eq!(dealt.deal_number, between.deal_number + 1);
    let auto: Vec<bool> = dealt.seats.iter().map(|s| s.auto_play).collect();
    assert_eq!(auto, [false, true, true]);
    // The new deal goes on by itself up to the human's turn: still bidding, or playing
    // when a bot bid 3 first.
    let view = when(&friends.clock, driver, |v| v.to_act == 0).await;
    assert!(
        view.phase == pb::Phase::Bidding as i32
            || (view.phase == pb::Phase::Playing as i32 && view.winning_bid == 3),
        "{view:?}"
    );
}

/// What the platform's bot would bid first with `seat`'s 17 cards.
fn bot_bid(dealt: &Dealt, seat: usize) -> Bid {
    gamehub_bots::doudizhu::bid(&dealt.hand(Seat::ALL[seat]).rank_counts(), Bid::Pass)
}

/// The deal's record and the ledger's request say it was played at a friends' table.
async fn recorded_as_a_friends_table(friends: &Friends, driver: &Driver, deal_number: i32) {
    let game_id = format!("{}:{deal_number}", driver.table_id);
    let request = eventually(
        "the deal sent to the ledger",
        Duration::from_secs(10),
        || async {
            friends
                .ledger
                .requests
                .lock()
                .unwrap()
                .iter()
                .find(|r| r.game_id == game_id)
                .cloned()
        },
    )
    .await;
    assert!(request.friends_table);
    let ledger_doc = RecordDoc::from_json(&request.record.unwrap().content).unwrap();
    assert!(ledger_doc.friends_table);
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
    assert!(record.friends_table);
    let doc = RecordDoc::from_json(&record.record_json).unwrap();
    assert!(doc.friends_table);
    doc.verify().unwrap();
}

#[tokio::test]
async fn profiles_and_bots_are_shown_to_every_seat_and_spectator() {
    let friends = Friends::start().await;
    let players = human_and_bots();
    let driver = friends.open(&players, vec![1, 2], profiles(), 1).await;
    let url = friends.dealer.url.clone();

    let as_spectator = |mut client: Dz, as_spectator: bool| {
        let table_id = driver.table_id.clone();
        async move {
            client
                .get_table(pb::GetTableRequest {
                    table_id,
                    as_spectator,
                })
                .await
                .unwrap()
                .into_inner()
                .table
                .unwrap()
        }
    };
    let mut watch = friends
        .client(&url, "watcher", Role::Player)
        .watch(pb::WatchRequest {
            table_id: driver.table_id.clone(),
            after_event_id: 0,
            as_spectator: false,
        })
        .await
        .unwrap()
        .into_inner();
    let Some(pb::watch_response::Item::Snapshot(watched)) =
        watch.message().await.unwrap().unwrap().item
    else {
        panic!("a watch starts with a snapshot");
    };
    let views = [
        ("the human", driver.view(0).await),
        ("a bot's seat", driver.view(1).await),
        (
            "the human as a spectator",
            as_spectator(driver.client(0), true).await,
        ),
        (
            "a stranger",
            as_spectator(friends.client(&url, "stranger", Role::Player), false).await,
        ),
        (
            "matchmaking",
            as_spectator(friends.client(&url, "matchmaking", Role::Service), false).await,
        ),
        ("a watcher", watched),
    ];
    for (who, view) in views {
        assert!(view.friends_table, "{who}");
        let shown: Vec<PlayerProfile> = view
            .seats
            .iter()
            .map(|s| s.profile.clone().unwrap())
            .collect();
        let mut expected = profiles();
        expected[1].bot = true;
        expected[2].bot = true;
        assert_eq!(shown, expected, "{who}");
        let auto: Vec<bool> = view.seats.iter().map(|s| s.auto_play).collect();
        assert_eq!(auto, [false, true, true], "{who}");
    }

    // Nobody takes a bot seat off auto-play, nor plays it: its player is refused.
    let bot = driver.client(1);
    let off = bot
        .clone()
        .set_auto_play(pb::SetAutoPlayRequest {
            table_id: driver.table_id.clone(),
            request_id: rid(),
            on: false,
        })
        .await
        .unwrap_err();
    assert_eq!(off.code(), Code::FailedPrecondition);
    assert!(
        off.message().starts_with("bot_seat: seat 1 "),
        "{}",
        off.message()
    );
    let bid = driver.bid(1, 1).await.unwrap_err();
    assert_eq!(bid.code(), Code::FailedPrecondition);
    assert!(bid.message().starts_with("bot_seat: "), "{}", bid.message());
    assert!(driver.view(0).await.seats[1].auto_play);

    // A table opened without profiles shows its players by id, none a bot.
    let plain = friends.open(&human_and_bots(), vec![], vec![], 2).await;
    let view = plain.view(0).await;
    assert!(
        view.seats
            .iter()
            .all(|s| s.profile == Some(PlayerProfile::default()))
    );
    friends.finish().await;
}

#[tokio::test]
async fn bad_profiles_and_bot_seats_are_refused_naming_the_field() {
    let friends = Friends::start().await;
    let service = friends.client(&friends.dealer.url, "matchmaking", Role::Service);
    let players = human_and_bots();
    let long = |field: &str| {
        let mut p = PlayerProfile::default();
        match field {
            "name" => p.name = "名".repeat(13),
            "title" => p.title = "t".repeat(33),
            _ => p.rank_name = "r".repeat(33),
        }
        vec![PlayerProfile::default(), p, PlayerProfile::default()]
    };
    let cases: [(Vec<i32>, Vec<PlayerProfile>, &str); 8] = [
        (vec![], vec![PlayerProfile::default(); 2], "profiles: "),
        (vec![], long("name"), "profiles.name: seat 1's"),
        (vec![], long("title"), "profiles.title: seat 1's"),
        (vec![], long("rank_name"), "profiles.rank_name: seat 1's"),
        (vec![0], vec![], "bot_seats: seat 0's player human-"),
        (vec![1, 2, 0], vec![], "bot_seats: at most 2"),
        (vec![1, 1], vec![], "bot_seats: seat 1 is given twice"),
        (vec![3], vec![], "bot_seats: a seat is 0, 1 or 2"),
    ];
    for (bot_seats, profiles, refusal) in cases {
        let mut request = open_request(&players, &[], 0);
        // A free friends' table, where bots may sit.
        request.stakes.as_mut().unwrap().silver_per_point = 0;
        request.friends_table = true;
        request.bot_seats = bot_seats;
        request.profiles = profiles;
        let status = service
            .clone()
            .open_table(request.clone())
            .await
            .unwrap_err();
        assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
        assert!(
            status.message().starts_with(refusal),
            "{:?} should start with {refusal:?}",
            status.message()
        );
        // Nothing was opened: the same request id opens a good table.
        request.bot_seats = vec![1, 2];
        request.profiles = vec![];
        let opened = service
            .clone()
            .open_table(request)
            .await
            .unwrap()
            .into_inner();
        assert!(!opened.replayed);
    }
    friends.finish().await;
}

#[tokio::test]
async fn a_human_plays_deals_with_two_bots_that_play_and_are_ready_by_themselves() {
    let friends = Friends::start().await;
    // Cards on which both bots pass: the human bids 3 whoever bids first.
    let seed = find_seed(3, |d| {
        bot_bid(d, 1) == Bid::Pass && bot_bid(d, 2) == Bid::Pass
    });
    let driver = friends
        .open_dealt(&human_and_bots(), vec![1, 2], profiles(), seed)
        .await;
    let end = human_plays_out(&friends.clock, &driver).await;
    assert_eq!(end.phase, pb::Phase::Finished as i32);
    assert_eq!(end.winning_bid, 3, "the human bid 3");
    assert_eq!(end.landlord, 0);
    bots_were_auto_played(&end);
    assert!(end.friends_table);
    recorded_as_a_friends_table(&friends, &driver, 1).await;

    next_deal_starts_when_the_human_asks(&friends, &driver).await;
    let end = human_plays_out(&friends.clock, &driver).await;
    assert_eq!(end.deal_number, 2);
    bots_were_auto_played(&end);
    recorded_as_a_friends_table(&friends, &driver, 2).await;
    // No spam: the bots' auto-play was announced once, at the opening.
    let changes = auto_play_changes(&driver).await;
    assert_eq!(changes, [(1, true), (2, true)]);
    friends.finish().await;
}

#[tokio::test]
async fn a_bot_seat_bids_from_its_cards_so_a_human_who_passes_still_gets_a_deal() {
    let friends = Friends::start().await;
    // Seat 1's cards are worth 3 to the bot, seat 2's nothing.
    let seed = find_seed(1, |d| {
        bot_bid(d, 1) == Bid::Three && bot_bid(d, 2) == Bid::Pass
    });
    let driver = friends
        .open_dealt(&human_and_bots(), vec![1, 2], profiles(), seed)
        .await;
    // The human passes whenever it is asked to bid: the bot's bid decides.
    let view = when(&friends.clock, &driver, |v| {
        v.phase != pb::Phase::Bidding as i32 || v.to_act == 0
    })
    .await;
    if view.phase == pb::Phase::Bidding as i32 {
        driver.bid(0, 0).await.unwrap();
    }
    let view = when(&friends.clock, &driver, |v| {
        v.phase != pb::Phase::Bidding as i32
    })
    .await;
    assert_eq!(view.phase, pb::Phase::Playing as i32, "not a redeal");
    assert_eq!((view.landlord, view.winning_bid), (1, 3));
    let bot_bids: Vec<(i32, i32, i32)> = view
        .bids
        .iter()
        .filter(|b| b.seat != 0)
        .map(|b| (b.seat, b.points, b.by))
        .collect();
    assert!(
        bot_bids.contains(&(1, 3, pb::Actor::AutoPlay as i32)),
        "{bot_bids:?}"
    );
    assert!(
        bot_bids
            .iter()
            .all(|&(seat, points, _)| seat == 1 || points == 0),
        "seat 2 passes: {bot_bids:?}"
    );
    friends.finish().await;
}

/// Every AutoPlayChanged of the table so far, as (seat, on), from a spectator's watch.
async fn auto_play_changes(driver: &Driver) -> Vec<(i32, bool)> {
    let mut watch = driver
        .client(0)
        .watch(pb::WatchRequest {
            table_id: driver.table_id.clone(),
            after_event_id: 1,
            as_spectator: true,
        })
        .await
        .unwrap()
        .into_inner();
    let last = driver.view(0).await.last_event_id;
    let mut changes = Vec::new();
    loop {
        let item = watch.message().await.unwrap().unwrap().item.unwrap();
        let pb::watch_response::Item::Event(event) = item else {
            panic!("events from event 1 are kept: no snapshot");
        };
        if let Some(pb::table_event::Kind::AutoPlayChanged(c)) = event.kind {
            changes.push((c.seat, c.on));
        }
        if event.event_id >= last {
            return changes;
        }
    }
}

#[tokio::test]
async fn bots_play_on_after_a_dealer_restart_mid_deal() {
    let mut friends = Friends::start().await;
    let players = human_and_bots();
    let driver = friends.open(&players, vec![1, 2], profiles(), 5).await;

    // The human bids and makes its first play: a bot's turn is due in a second.
    let view = when(&friends.clock, &driver, |v| v.to_act == 0).await;
    human_turn(&view, &driver).await;
    let view = when(&friends.clock, &driver, |v| {
        v.to_act == 0 && v.phase == pb::Phase::Playing as i32
    })
    .await;
    human_turn(&view, &driver).await;
    let view = driver.view(0).await;
    assert_eq!(view.status, pb::TableStatus::Dealing as i32);
    assert_ne!(view.to_act, 0, "a bot is to act");

    // A second replica comes up, the first goes down; the bot's turn runs out with only
    // the second left to play it.
    let second = Friends::replica(&friends.prefix, &friends.ledger_url, &friends.clock).await;
    friends.dealer.stop().await;
    friends.dealer = second;
    let driver = friends.driver(&friends.dealer.url, driver.table_id.clone(), &players);
    let end = human_plays_out(&friends.clock, &driver).await;
    assert_eq!(end.phase, pb::Phase::Finished as i32);
    bots_were_auto_played(&end);
    recorded_as_a_friends_table(&friends, &driver, 1).await;
    next_deal_starts_when_the_human_asks(&friends, &driver).await;
    assert_eq!(
        friends
            .ledger
            .times_settled(&format!("{}:1", driver.table_id)),
        1
    );
    friends.finish().await;
}
