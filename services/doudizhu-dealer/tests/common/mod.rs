//! Test support: a real ledger on a fresh PostgreSQL database and a dealer on the real
//! Redis under a key prefix of its own (both from `gamehub-testkit`), clients for every
//! role, a table driver, and seed search (the crate's shuffle run over many seeds until
//! one deals the hands a test needs; passed through the test-only seed hook).
#![allow(dead_code)] // each test binary uses part of the support

use std::time::Duration;

use doudizhu_rules::{Card, CardSet, Dealt, Kind, RankCounts, Seat, Seed, deal, leads};
pub use gamehub_doudizhu_dealer::testing::Options;
pub use gamehub_ledger::testing::TestLedger;
use gamehub_platform::auth::{Keys, Role};
use gamehub_platform::client::ServiceChannel;
use gamehub_proto::common::RoomStakes;
use gamehub_proto::doudizhu as pb;
use gamehub_proto::doudizhu::doudizhu_service_client::DoudizhuServiceClient;
use gamehub_proto::ledger::GetGameRecordRequest;
use gamehub_proto::ledger::ledger_service_client::LedgerServiceClient;
pub use gamehub_testkit::clock::{ManualClock, eventually};
pub use gamehub_testkit::server::TestServer;
use gamehub_testkit::tokens;
use tonic::{Code, Status};

pub type Dz = DoudizhuServiceClient<ServiceChannel>;
pub type Ledger = LedgerServiceClient<ServiceChannel>;

pub const SILVER_PER_POINT: i64 = 10;
pub const GRANT: i64 = 1_000_000;

/// The database prefix of this suite's test ledgers.
pub const LEDGER_DB_PREFIX: &str = "ddz_test_";

/// One test's world: a ledger, a dealer, keys to mint tokens, and the dealer's clock.
pub struct World {
    pub ledger: TestLedger,
    pub dealer: TestServer,
    pub prefix: String,
    pub keys: Keys,
    /// The dealer's clock: turns, redeal pauses and next-deal waits run out only when
    /// the test advances it.
    pub clock: ManualClock,
}

impl World {
    pub async fn start() -> World {
        Self::start_with(Options::default()).await
    }

    pub async fn start_with(options: Options) -> World {
        Self::start_with_ledger(options, |_| {}).await
    }

    /// A world whose ledger's configuration (caps, …) `ledger` adjusts.
    pub async fn start_with_ledger(
        mut options: Options,
        ledger: impl FnOnce(&mut gamehub_ledger::LedgerConfig),
    ) -> World {
        let ledger = TestLedger::start_with(LEDGER_DB_PREFIX, ledger).await;
        let prefix = gamehub_testkit::redis::fresh_prefix("ddzt");
        let clock = ManualClock::new();
        options.clock = clock.clock();
        let dealer = gamehub_doudizhu_dealer::testing::start(&prefix, &ledger.url, &options).await;
        World {
            ledger,
            dealer,
            prefix,
            keys: tokens::dev_keys(),
            clock,
        }
    }

    pub fn dz(&self, subject: &str, role: Role) -> Dz {
        dz(&self.dealer.url, &self.keys, subject, role)
    }

    pub fn player(&self, id: &str) -> Dz {
        self.dz(id, Role::Player)
    }

    pub fn service(&self) -> Dz {
        self.dz("matchmaking", Role::Service)
    }

    pub fn ledger_operator(&self) -> Ledger {
        self.ledger.client_as("test-operator", Role::Operator)
    }

    /// Three fresh player ids with silver to lose.
    pub async fn players(&self) -> [String; 3] {
        let tag = &uuid::Uuid::new_v4().simple().to_string()[..8];
        let players = ["a", "b", "c"].map(|p| format!("{p}-{tag}"));
        for player in &players {
            self.ledger.grant(player, GRANT).await;
        }
        players
    }

    /// Opens a table for fresh players with these test seeds.
    pub async fn open(&self, seeds: &[Seed], turn_time_ms: i64) -> Driver {
        let players = self.players().await;
        self.open_for(players, seeds, turn_time_ms).await
    }

    pub async fn open_for(
        &self,
        players: [String; 3],
        seeds: &[Seed],
        turn_time_ms: i64,
    ) -> Driver {
        self.open_rule_set(players, "", seeds, turn_time_ms).await
    }

    /// Opens a table of `rule_set` ("rob", "laizi"; empty: classic).
    pub async fn open_rule_set(
        &self,
        players: [String; 3],
        rule_set: &str,
        seeds: &[Seed],
        turn_time_ms: i64,
    ) -> Driver {
        let request = pb::OpenTableRequest {
            rule_set: rule_set.to_owned(),
            ..open_request(&players, seeds, turn_time_ms)
        };
        let response = self
            .service()
            .open_table(request)
            .await
            .unwrap()
            .into_inner();
        Driver {
            table_id: response.table_id,
            clients: players.clone().map(|p| self.player(&p)),
            players,
        }
    }

    /// (points, balance) of a player in the ledger.
    pub async fn standing(&self, player: &str) -> (i64, i64) {
        let account = self.ledger.account(player).await;
        let points = account
            .standings
            .iter()
            .find(|s| s.game_type == gamehub_proto::common::GameType::Doudizhu as i32)
            .map_or(0, |s| s.points);
        (points, account.balance_silver)
    }

    /// Waits until the ledger has settled `game_id`.
    pub async fn settled(&self, game_id: &str) -> gamehub_proto::ledger::GetGameRecordResponse {
        let ledger = self.ledger_operator();
        eventually(
            &format!("game {game_id} settled"),
            Duration::from_secs(10),
            || {
                let mut ledger = ledger.clone();
                async move {
                    match ledger
                        .get_game_record(GetGameRecordRequest {
                            game_id: game_id.into(),
                        })
                        .await
                    {
                        Ok(r) => Some(r.into_inner()),
                        Err(s) if s.code() == Code::NotFound => None,
                        Err(s) => panic!("ledger: {s}"),
                    }
                }
            },
        )
        .await
    }

    /// Checks the ledger against the points each deal of `results` gave each player:
    /// points as given, silver = points × silver per point.
    pub async fn check_ledger(&self, players: &[String; 3], expected_points: [i64; 3]) {
        for (i, player) in players.iter().enumerate() {
            let (points, balance) = self.standing(player).await;
            assert_eq!(points, expected_points[i], "points of {player}");
            assert_eq!(
                balance,
                GRANT + expected_points[i] * SILVER_PER_POINT,
                "silver of {player}"
            );
        }
    }

    pub async fn finish(mut self) {
        self.dealer.stop().await;
        self.ledger.finish().await;
    }
}

pub fn dz(url: &str, keys: &Keys, subject: &str, role: Role) -> Dz {
    DoudizhuServiceClient::new(tokens::channel(url, keys, subject, role))
}

pub fn stakes() -> RoomStakes {
    RoomStakes {
        room_id: "doudizhu-classic".into(),
        points_base: 1,
        silver_per_point: SILVER_PER_POINT,
        min_balance_silver: 0,
        rated: false,
    }
}

pub fn open_request(
    players: &[String; 3],
    seeds: &[Seed],
    turn_time_ms: i64,
) -> pb::OpenTableRequest {
    pb::OpenTableRequest {
        bot_seats: Vec::new(),
        friends_table: false,
        profiles: Vec::new(),
        request_id: format!("match-{}", uuid::Uuid::new_v4().simple()),
        stakes: Some(stakes()),
        turn_time_ms,
        player_ids: players.to_vec(),
        test_seeds: seeds.iter().map(Seed::to_hex).collect(),
        rule_set: String::new(),
    }
}

pub fn rid() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// Drives one table: each seat through its own player's client.
pub struct Driver {
    pub table_id: String,
    pub players: [String; 3],
    pub clients: [Dz; 3],
}

pub fn seat(n: i32) -> usize {
    usize::try_from(n).unwrap()
}

impl Driver {
    pub fn client(&self, seat: usize) -> Dz {
        self.clients[seat].clone()
    }

    pub async fn view(&self, seat: usize) -> pb::Table {
        self.client(seat)
            .get_table(pb::GetTableRequest {
                table_id: self.table_id.clone(),
                as_spectator: false,
            })
            .await
            .unwrap()
            .into_inner()
            .table
            .unwrap()
    }

    pub async fn bid(&self, seat: usize, points: i32) -> Result<pb::Table, Status> {
        self.client(seat)
            .bid(pb::BidRequest {
                table_id: self.table_id.clone(),
                request_id: rid(),
                points,
            })
            .await
            .map(|r| r.into_inner().table.unwrap())
    }

    pub async fn play(&self, seat: usize, ranks: &str) -> Result<pb::Table, Status> {
        self.play_meant(seat, ranks, "").await
    }

    /// A play of `ranks` stating what they stand for (`meant`, laizi).
    pub async fn play_meant(
        &self,
        seat: usize,
        ranks: &str,
        meant: &str,
    ) -> Result<pb::Table, Status> {
        self.client(seat)
            .play(pb::PlayRequest {
                table_id: self.table_id.clone(),
                request_id: rid(),
                ranks: ranks.into(),
                cards: vec![],
                meant: meant.into(),
            })
            .await
            .map(|r| r.into_inner().table.unwrap())
    }

    /// Call (叫地主) or decline.
    pub async fn call(&self, seat: usize, call: bool) -> Result<pb::Table, Status> {
        self.client(seat)
            .call(pb::CallRequest {
                table_id: self.table_id.clone(),
                request_id: rid(),
                call,
            })
            .await
            .map(|r| r.into_inner().table.unwrap())
    }

    /// Rob (抢地主) or not.
    pub async fn rob(&self, seat: usize, rob: bool) -> Result<pb::Table, Status> {
        self.client(seat)
            .rob(pb::RobRequest {
                table_id: self.table_id.clone(),
                request_id: rid(),
                rob,
            })
            .await
            .map(|r| r.into_inner().table.unwrap())
    }

    /// Double (加倍) or not.
    pub async fn double(&self, seat: usize, double: bool) -> Result<pb::Table, Status> {
        self.client(seat)
            .double(pb::DoubleRequest {
                table_id: self.table_id.clone(),
                request_id: rid(),
                double,
            })
            .await
            .map(|r| r.into_inner().table.unwrap())
    }

    /// Show the hand (明牌) or not.
    pub async fn show(&self, seat: usize, show: bool) -> Result<pb::Table, Status> {
        self.client(seat)
            .show(pb::ShowRequest {
                table_id: self.table_id.clone(),
                request_id: rid(),
                show,
            })
            .await
            .map(|r| r.into_inner().table.unwrap())
    }

    pub async fn play_cards(&self, seat: usize, cards: &[&str]) -> Result<pb::Table, Status> {
        self.client(seat)
            .play(pb::PlayRequest {
                table_id: self.table_id.clone(),
                request_id: rid(),
                ranks: String::new(),
                cards: cards.iter().map(|c| (*c).to_owned()).collect(),
                meant: String::new(),
            })
            .await
            .map(|r| r.into_inner().table.unwrap())
    }

    pub async fn pass(&self, seat: usize) -> Result<pb::Table, Status> {
        self.client(seat)
            .pass(pb::PassRequest {
                table_id: self.table_id.clone(),
                request_id: rid(),
            })
            .await
            .map(|r| r.into_inner().table.unwrap())
    }

    pub async fn hint(&self, seat: usize) -> Result<pb::HintResponse, Status> {
        self.client(seat)
            .hint(pb::HintRequest {
                table_id: self.table_id.clone(),
            })
            .await
            .map(|r| r.into_inner())
    }

    pub async fn leave(&self, seat: usize) -> Result<pb::LeaveResponse, Status> {
        self.client(seat)
            .leave(pb::LeaveRequest {
                player_id: String::new(),
                table_id: self.table_id.clone(),
                request_id: rid(),
            })
            .await
            .map(|r| r.into_inner())
    }

    /// NextDeal as a client does it: while the finished deal is `settling:` at the
    /// ledger, asks again after the server's retry hint (bounded).
    pub async fn next_deal(&self, seat: usize) -> Result<pb::Table, Status> {
        gamehub_testkit::settling::until_settled(|| self.next_deal_once(seat)).await
    }

    /// One NextDeal call.
    pub async fn next_deal_once(&self, seat: usize) -> Result<pb::Table, Status> {
        self.client(seat)
            .next_deal(pb::NextDealRequest {
                table_id: self.table_id.clone(),
                request_id: rid(),
            })
            .await
            .map(|r| r.into_inner().table.unwrap())
    }

    /// All three ask for the next deal; returns the new deal's view (seat 0).
    pub async fn next_deal_all(&self) -> pb::Table {
        for s in 0..3 {
            self.next_deal(s).await.unwrap();
        }
        let view = self.view(0).await;
        assert_eq!(view.status, pb::TableStatus::Dealing as i32);
        view
    }

    /// Bidding that makes `landlord` the landlord with `points`: the seats before it
    /// pass, it bids, the seats after it pass (unless 3 ended bidding).
    pub async fn make_landlord(&self, landlord: usize, points: i32) -> pb::Table {
        let mut view = self.view(0).await;
        while view.phase == pb::Phase::Bidding as i32 {
            let to_act = seat(view.to_act);
            let bid = if to_act == landlord { points } else { 0 };
            view = self.bid(to_act, bid).await.unwrap();
        }
        assert_eq!(seat(view.landlord), landlord);
        view
    }

    /// Plays the deal to its end: the seat to act asks `choose` what to do (None: pass).
    pub async fn play_out(
        &self,
        mut choose: impl FnMut(usize, &pb::Table, &pb::HintResponse) -> Option<String>,
    ) -> pb::Table {
        let mut view = self.view(0).await;
        for _ in 0..300 {
            if view.phase != pb::Phase::Playing as i32 {
                return view;
            }
            let s = seat(view.to_act);
            let hints = self.hint(s).await.unwrap();
            let own = self.view(s).await;
            view = match choose(s, &own, &hints) {
                Some(ranks) => self.play(s, &ranks).await.unwrap(),
                None => self.pass(s).await.unwrap(),
            };
        }
        panic!("deal did not end in 300 turns");
    }
}

/// The first legal play (the smallest), or a pass when allowed and `pass_when_can`.
pub fn smallest(hints: &pb::HintResponse) -> Option<String> {
    hints.plays.first().map(|p| p.ranks.clone())
}

/// A seed whose deal satisfies `want`, searched deterministically from `start`.
pub fn find_seed(start: u64, want: impl Fn(&Dealt) -> bool) -> Seed {
    for i in start..start + 2_000_000 {
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&i.to_le_bytes());
        bytes[8..16].copy_from_slice(b"ddz-test");
        let seed = Seed::from_bytes(bytes);
        if want(&deal(&seed)) {
            return seed;
        }
    }
    panic!("no seed found");
}

/// Whether a hand can lead a combination of `kind`.
pub fn can_lead(hand: CardSet, kind: Kind) -> bool {
    leads(&hand.rank_counts())
        .iter()
        .any(|p| p.combination.kind == kind)
}

pub fn rank_text(ranks: &RankCounts) -> String {
    ranks.iter().map(|r| r.symbol()).collect()
}

pub fn cards_of(texts: &[String]) -> CardSet {
    texts.iter().map(|t| t.parse::<Card>().unwrap()).collect()
}

pub fn s(n: usize) -> Seat {
    Seat::ALL[n]
}

pub fn status_is(result: &Result<pb::Table, Status>, code: Code) -> &Status {
    match result {
        Err(status) => {
            assert_eq!(status.code(), code, "{status:?}");
            status
        }
        Ok(_) => panic!("expected {code:?}, got success"),
    }
}
