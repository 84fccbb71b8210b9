//! Test support: a real ledger on a fresh database, referees on a Redis prefix of the
//! test's own (both from `gamehub-testkit`), clients of every role, and helpers that
//! play and wait.

use std::time::Duration;

use gamehub_gomoku_referee::RefereeConfig;
pub use gamehub_gomoku_referee::testing::referee_env;
pub use gamehub_ledger::testing::TestLedger;
use gamehub_platform::auth::{Keys, Role};
use gamehub_platform::client::ServiceChannel;
use gamehub_platform::config::Env;
use gamehub_proto::common::{GameType, RoomStakes};
use gamehub_proto::gomoku as pb;
use gamehub_proto::gomoku::gomoku_service_client::GomokuServiceClient;
use gamehub_proto::ledger::Account;
pub use gamehub_testkit::clock::{ManualClock, eventually};
pub use gamehub_testkit::server::{TestServer, free_addr};
pub use gamehub_testkit::settling::{is_settling, retry_hint};
use gamehub_testkit::tokens;
use tonic::Status;

pub type Gomoku = GomokuServiceClient<ServiceChannel>;

/// The database prefix of this suite's test ledgers.
const LEDGER_DB_PREFIX: &str = "gomoku_test_";
/// Silver each test player is granted before playing.
pub const GRANT: i64 = 10_000;
/// Silver per point in the test rooms.
pub const SILVER_PER_POINT: i64 = 10;

/// One test's world: a ledger, a Redis prefix, one or more referees sharing one clock
/// the test moves.
pub struct Fixture {
    pub ledger: TestLedger,
    pub prefix: String,
    pub referees: Vec<TestServer>,
    pub keys: Keys,
    /// The referees' clock: turn clocks and between-games closes run out only when the
    /// test advances it.
    pub clock: ManualClock,
}

impl Fixture {
    pub async fn new() -> Self {
        Self::with(|_| {}).await
    }

    /// A fixture whose first referee's environment is adjusted by `adjust`.
    pub async fn with(adjust: impl FnOnce(&mut Vec<(String, String)>)) -> Self {
        Self::with_ledger(|_| {}, adjust).await
    }

    /// A fixture whose ledger's configuration `ledger` adjusts (caps, …) and whose first
    /// referee's environment `adjust` adjusts.
    pub async fn with_ledger(
        ledger: impl FnOnce(&mut gamehub_ledger::LedgerConfig),
        adjust: impl FnOnce(&mut Vec<(String, String)>),
    ) -> Self {
        let ledger = TestLedger::start_with(LEDGER_DB_PREFIX, ledger).await;
        let mut fixture = Fixture {
            ledger,
            prefix: gamehub_testkit::redis::fresh_prefix("gt"),
            referees: Vec::new(),
            keys: tokens::dev_keys(),
            clock: ManualClock::new(),
        };
        fixture.add_referee(adjust).await;
        fixture
    }

    /// Starts another referee replica on the same Redis prefix and ledger.
    pub async fn add_referee(&mut self, adjust: impl FnOnce(&mut Vec<(String, String)>)) {
        let mut env = referee_env(&self.prefix, &self.ledger.url, "127.0.0.1:0");
        adjust(&mut env);
        let mut config = RefereeConfig::from_env(&Env::from_pairs(env)).unwrap();
        config.common.clock = self.clock.clock();
        let referee =
            TestServer::start(|shutdown| gamehub_gomoku_referee::start(config, shutdown)).await;
        self.referees.push(referee);
    }

    pub fn url(&self) -> String {
        self.referees[0].url.clone()
    }

    pub fn client_at(&self, url: &str, subject: &str, role: Role) -> Gomoku {
        GomokuServiceClient::new(tokens::channel(url, &self.keys, subject, role))
    }

    pub fn service(&self) -> Gomoku {
        self.client_at(&self.url(), "matchmaking", Role::Service)
    }

    pub fn player(&self, id: &str) -> Player {
        Player {
            id: id.to_owned(),
            client: self.client_at(&self.url(), id, Role::Player),
        }
    }

    pub fn player_at(&self, replica: usize, id: &str) -> Player {
        Player {
            id: id.to_owned(),
            client: self.client_at(&self.referees[replica].url, id, Role::Player),
        }
    }

    /// Grants every named player [`GRANT`] silver.
    pub async fn grant(&self, players: &[&str]) {
        for player in players {
            self.ledger.grant(player, GRANT).await;
        }
    }

    pub async fn account(&self, player: &str) -> Account {
        self.ledger.account(player).await
    }

    /// A player's Gomoku points and games at the ledger.
    pub async fn standing(&self, player: &str) -> (i64, i64) {
        let account = self.account(player).await;
        account
            .standings
            .iter()
            .find(|s| s.game_type == GameType::Gomoku as i32)
            .map_or((0, 0), |s| (s.points, s.games))
    }

    /// Checks a player's points, game count and silver at the ledger.
    pub async fn assert_ledger(&self, player: &str, points: i64, games: i64) {
        let (got_points, got_games) = self.standing(player).await;
        assert_eq!(
            (got_points, got_games),
            (points, games),
            "{player}: points and games"
        );
        let balance = self.account(player).await.balance_silver;
        assert_eq!(
            balance,
            GRANT + points * SILVER_PER_POINT,
            "{player}: silver"
        );
    }

    /// Opens a table in `rule_set` with the given clock for `players` (seat 0 black).
    pub async fn open(
        &self,
        rule_set: pb::RuleSet,
        clock: (i64, i64),
        players: [&str; 2],
    ) -> pb::Table {
        self.service()
            .open_table(open_request(rule_set, clock, players))
            .await
            .unwrap()
            .into_inner()
            .table
            .unwrap()
    }

    /// The table as a spectator sees it.
    pub async fn table(&self, table_id: &str) -> pb::Table {
        self.service()
            .get_table(pb::GetTableRequest {
                table_id: table_id.to_owned(),
            })
            .await
            .unwrap()
            .into_inner()
            .table
            .unwrap()
    }

    /// Waits until game `number` of the table is settled (its `game_settled` is noted).
    pub async fn settled(&self, table_id: &str, number: i32) -> pb::Settlement {
        eventually(
            &format!("game {number} of {table_id} settled"),
            Duration::from_secs(10),
            || async {
                self.table(table_id)
                    .await
                    .finished_games
                    .iter()
                    .find(|f| f.number == number)
                    .and_then(|f| f.settlement.clone())
            },
        )
        .await
    }

    /// Waits until the table's current game is over, and returns the table.
    pub async fn game_over(&self, table_id: &str) -> pb::Table {
        eventually(
            &format!("the game at {table_id} over"),
            Duration::from_secs(10),
            || async {
                let table = self.table(table_id).await;
                let over = table
                    .game
                    .as_ref()
                    .and_then(|g| g.result.as_ref())
                    .is_some();
                over.then_some(table)
            },
        )
        .await
    }

    /// Moves the referees' clock past the turn deadline of the table's current game
    /// (the side to move's per-move or total time, whichever ends first).
    pub async fn run_out_the_clock(&self, table_id: &str) {
        let table = self.table(table_id).await;
        let deadline = table.game.expect("a game is on").turn_deadline_unix_ms;
        assert!(deadline > 0, "the side to move has a deadline");
        self.clock.advance_to(u64::try_from(deadline).unwrap() + 1);
    }

    pub async fn stop(self) {
        for referee in &self.referees {
            referee.trigger_stop();
        }
        self.ledger.finish().await;
    }
}

pub fn open_request(
    rule_set: pb::RuleSet,
    clock: (i64, i64),
    players: [&str; 2],
) -> pb::OpenTableRequest {
    pb::OpenTableRequest {
        profiles: Vec::new(),
        bot_seats: Vec::new(),
        friends_table: false,
        request_id: format!("open-{}", uuid::Uuid::new_v4().simple()),
        stakes: Some(RoomStakes {
            room_id: "gomoku-test".into(),
            points_base: 1,
            silver_per_point: SILVER_PER_POINT,
            min_balance_silver: 0,
            rated: true,
        }),
        rule_set: rule_set as i32,
        time_control: Some(pb::TimeControl {
            per_move_ms: clock.0,
            total_ms: clock.1,
        }),
        player_ids: players.iter().map(|p| (*p).to_owned()).collect(),
        first_black_seat: 0,
        designated_opening: String::new(),
        paired_games: false,
    }
}

/// A point by its text.
pub fn pt(text: &str) -> Option<pb::Point> {
    Some(pb::Point {
        text: text.to_owned(),
        x: 0,
        y: 0,
    })
}

fn rid() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// A player with its own token.
#[derive(Clone)]
pub struct Player {
    pub id: String,
    pub client: Gomoku,
}

impl Player {
    /// The table as this player sees it.
    pub async fn view(&self, table_id: &str) -> pb::Table {
        self.client
            .clone()
            .get_table(pb::GetTableRequest {
                table_id: table_id.to_owned(),
            })
            .await
            .unwrap()
            .into_inner()
            .table
            .unwrap()
    }

    pub async fn place(&self, table_id: &str, point: &str) -> Result<pb::Table, Status> {
        self.place_with(table_id, point, &rid()).await
    }

    pub async fn place_with(
        &self,
        table_id: &str,
        point: &str,
        request_id: &str,
    ) -> Result<pb::Table, Status> {
        self.place_knowing(table_id, point, request_id, 0, 0).await
    }

    /// A stone whose answer leaves out what the caller says it holds: `known_stones`
    /// of game `known_game`.
    pub async fn place_knowing(
        &self,
        table_id: &str,
        point: &str,
        request_id: &str,
        known_game: i32,
        known_stones: u32,
    ) -> Result<pb::Table, Status> {
        Ok(self
            .client
            .clone()
            .place_stone(pb::PlaceStoneRequest {
                table_id: table_id.to_owned(),
                request_id: request_id.to_owned(),
                point: pt(point),
                known_stones,
                known_game,
            })
            .await?
            .into_inner()
            .table
            .unwrap())
    }

    pub async fn claim(&self, table_id: &str) -> Result<pb::ClaimForbiddenResponse, Status> {
        Ok(self
            .client
            .clone()
            .claim_forbidden(pb::ClaimForbiddenRequest {
                table_id: table_id.to_owned(),
                request_id: rid(),
            })
            .await?
            .into_inner())
    }

    pub async fn resign(&self, table_id: &str) -> Result<pb::Table, Status> {
        Ok(self
            .client
            .clone()
            .resign(pb::ResignRequest {
                table_id: table_id.to_owned(),
                request_id: rid(),
            })
            .await?
            .into_inner()
            .table
            .unwrap())
    }

    pub async fn offer_draw(&self, table_id: &str) -> Result<pb::Table, Status> {
        Ok(self
            .client
            .clone()
            .offer_draw(pb::OfferDrawRequest {
                table_id: table_id.to_owned(),
                request_id: rid(),
            })
            .await?
            .into_inner()
            .table
            .unwrap())
    }

    pub async fn answer_draw(&self, table_id: &str, accept: bool) -> Result<pb::Table, Status> {
        Ok(self
            .client
            .clone()
            .answer_draw(pb::AnswerDrawRequest {
                table_id: table_id.to_owned(),
                request_id: rid(),
                accept,
            })
            .await?
            .into_inner()
            .table
            .unwrap())
    }

    pub async fn swap(&self, table_id: &str) -> Result<pb::Table, Status> {
        Ok(self
            .client
            .clone()
            .swap(pb::SwapRequest {
                table_id: table_id.to_owned(),
                request_id: rid(),
            })
            .await?
            .into_inner()
            .table
            .unwrap())
    }

    pub async fn propose(&self, table_id: &str, a: &str, b: &str) -> Result<pb::Table, Status> {
        Ok(self
            .client
            .clone()
            .propose_fifth_moves(pb::ProposeFifthMovesRequest {
                table_id: table_id.to_owned(),
                request_id: rid(),
                points: vec![pt(a).unwrap(), pt(b).unwrap()],
            })
            .await?
            .into_inner()
            .table
            .unwrap())
    }

    pub async fn choose(&self, table_id: &str, point: &str) -> Result<pb::Table, Status> {
        Ok(self
            .client
            .clone()
            .choose_fifth_move(pb::ChooseFifthMoveRequest {
                table_id: table_id.to_owned(),
                request_id: rid(),
                point: pt(point),
            })
            .await?
            .into_inner()
            .table
            .unwrap())
    }

    pub async fn leave(&self, table_id: &str) -> Result<pb::LeaveResponse, Status> {
        Ok(self
            .client
            .clone()
            .leave(pb::LeaveRequest {
                player_id: String::new(),
                table_id: table_id.to_owned(),
                request_id: rid(),
            })
            .await?
            .into_inner())
    }

    /// NextGame as a client does it: while the finished game is `settling:` at the
    /// ledger, asks again after the server's retry hint (bounded).
    pub async fn next_game(&self, table_id: &str) -> Result<pb::NextGameResponse, Status> {
        gamehub_testkit::settling::until_settled(|| self.next_game_once(table_id)).await
    }

    /// One NextGame call.
    pub async fn next_game_once(&self, table_id: &str) -> Result<pb::NextGameResponse, Status> {
        Ok(self
            .client
            .clone()
            .next_game(pb::NextGameRequest {
                table_id: table_id.to_owned(),
                request_id: rid(),
            })
            .await?
            .into_inner())
    }
}

/// Plays alternating stones, black first, expecting each to be accepted.
pub async fn play(black: &Player, white: &Player, table_id: &str, moves: &[&str]) -> pb::Table {
    let mut last = None;
    for (i, point) in moves.iter().enumerate() {
        let player = if i % 2 == 0 { black } else { white };
        last = Some(
            player
                .place(table_id, point)
                .await
                .unwrap_or_else(|e| panic!("move {} {point} by {}: {e}", i + 1, player.id)),
        );
    }
    last.unwrap()
}

/// The current game of a table view.
pub fn game(table: &pb::Table) -> &pb::Game {
    table.game.as_ref().unwrap()
}

/// The result of the current game.
pub fn result(table: &pb::Table) -> &pb::GameResult {
    game(table).result.as_ref().unwrap()
}
