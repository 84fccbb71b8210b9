//! Test support: fresh databases, a ledger on a free port with clients of every role,
//! request builders, and the ledger's invariants as SQL checks.

use std::collections::HashMap;
use std::time::Duration;

use gamehub_ledger::LedgerConfig;
use gamehub_ledger::domain::caps::Caps;
use gamehub_ledger::domain::rating::NEW_PLAYER_RATING;
use gamehub_ledger::domain::{HistoryKind, Outcome};
use gamehub_ledger::testing::TestLedger;
use gamehub_platform::auth::{Keys, Role};
use gamehub_platform::client::{ServiceChannel, TokenSource, service_channel};
use gamehub_platform::config::Secret;
use gamehub_proto::common::{GameType, RoomStakes};
use gamehub_proto::ledger::ledger_service_client::LedgerServiceClient;
use gamehub_proto::ledger::{
    GameRecord, PlayerOutcome, PlayerResult, Role as Seat, SettleGameRequest, SettleGameResponse,
};
use gamehub_testkit::postgres::ScratchDatabase;
use prost::Message;
use sqlx::PgPool;

pub type Client = LedgerServiceClient<ServiceChannel>;

/// The prefix of this suite's databases.
pub const TEST_DB_PREFIX: &str = "gamehub_ledger_test_";

/// A fresh database of this test's own, migrated.
pub struct TestDb {
    pub pool: PgPool,
    database: ScratchDatabase,
}

impl TestDb {
    /// Creates and migrates a fresh database.
    pub async fn new() -> Self {
        let database = ScratchDatabase::fresh(TEST_DB_PREFIX).await;
        let pool = migrated_pool(&database.url).await;
        Self { pool, database }
    }

    /// Drops the database.
    pub async fn drop(self) {
        self.pool.close().await;
        self.database.drop().await;
    }
}

/// A pool of 4 on `url`, the database created and migrated if it was not.
async fn migrated_pool(url: &str) -> PgPool {
    let mut config = LedgerConfig::for_tests();
    config.common.database_url = Secret::new(url.to_owned());
    config.db_pool_size = 4;
    gamehub_ledger::connect_database(&config)
        .await
        .expect("test database")
}

/// A ledger serving on a free local port over a fresh database, with a pool of its
/// own on that database for checking what the ledger wrote.
pub struct TestApp {
    pub url: String,
    pub keys: Keys,
    pub caps: Caps,
    pub db: AppDb,
    ledger: TestLedger,
}

/// The database a [`TestApp`]'s ledger writes.
pub struct AppDb {
    pub pool: PgPool,
}

/// Starts a ledger on `127.0.0.1:0` over a fresh, migrated database.
pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

/// Like [`spawn_app`], with the configuration adjusted by `adjust`.
pub async fn spawn_app_with(adjust: impl FnOnce(&mut LedgerConfig)) -> TestApp {
    let mut caps = None;
    let ledger = TestLedger::start_with(TEST_DB_PREFIX, |config| {
        config.db_pool_size = 8;
        adjust(config);
        caps = Some(config.caps);
    })
    .await;
    let pool = migrated_pool(&ledger.database.url).await;
    TestApp {
        url: ledger.url.clone(),
        keys: ledger.keys.clone(),
        caps: caps.expect("the configuration was adjusted"),
        db: AppDb { pool },
        ledger,
    }
}

impl TestApp {
    /// A client whose calls carry a token for `subject` in `role`.
    pub fn client(&self, subject: &str, role: Role) -> Client {
        client(&self.url, &self.keys, subject, role)
    }

    /// The Gomoku referee's client (a game service).
    pub fn service(&self) -> Client {
        self.client(gamehub_terms::games::GOMOKU.service.identity, Role::Service)
    }

    /// The client of the service that settles games of `game_type` (its own game only).
    pub fn settler(&self, game_type: i32) -> Client {
        let game = gamehub_terms::games::GAMES
            .iter()
            .find(|g| g.game_type as i32 == game_type)
            .copied()
            .unwrap_or(&gamehub_terms::games::GOMOKU);
        self.client(game.service.identity, Role::Service)
    }

    /// An operator's client.
    pub fn operator(&self) -> Client {
        self.client("test-operator", Role::Operator)
    }

    /// A player's client.
    pub fn player(&self, id: &str) -> Client {
        self.client(id, Role::Player)
    }

    /// Grants `amount` silver to `player`.
    pub async fn grant(&self, player: &str, amount: i64) {
        self.ledger.grant(player, amount).await;
    }

    /// A player's balance.
    pub async fn balance(&self, player: &str) -> i64 {
        self.account(player).await.balance_silver
    }

    /// A player's account (read as an operator).
    pub async fn account(&self, player: &str) -> gamehub_proto::ledger::Account {
        self.ledger.account(player).await
    }

    /// Settles as a service, expecting success.
    pub async fn settle(&self, request: SettleGameRequest) -> SettleGameResponse {
        self.settler(request.game_type)
            .settle_game(request)
            .await
            .expect("settlement")
            .into_inner()
    }

    /// Stops the server and drops its database.
    pub async fn finish(self) {
        self.db.pool.close().await;
        self.ledger.finish().await;
    }
}

pub fn client(url: &str, keys: &Keys, subject: &str, role: Role) -> Client {
    let token = keys
        .mint(subject, role, Duration::from_secs(3600))
        .expect("token");
    LedgerServiceClient::new(
        service_channel(url, TokenSource::Static(token), Duration::from_secs(30)).expect("channel"),
    )
}

/// One seat of a game to settle: (player, role, outcome, points).
pub type SeatSpec<'a> = (&'a str, Seat, PlayerOutcome, i64);

/// A settlement request with points base 1 (points as given), in a room charging
/// `silver_per_point`, rated or not.
pub fn game(
    game_id: &str,
    game_type: GameType,
    silver_per_point: i64,
    rated: bool,
    seats: &[SeatSpec<'_>],
) -> SettleGameRequest {
    SettleGameRequest {
        friends_table: false,
        game_id: game_id.into(),
        game_type: game_type as i32,
        stakes: Some(RoomStakes {
            room_id: match game_type {
                GameType::Doudizhu => "doudizhu-classic",
                _ => "gomoku-renju",
            }
            .into(),
            points_base: 1,
            silver_per_point,
            min_balance_silver: 0,
            rated,
        }),
        players: seats
            .iter()
            .map(|&(player_id, role, outcome, points)| PlayerResult {
                player_id: player_id.into(),
                role: role as i32,
                outcome: outcome as i32,
                points,
                offered_draw: false,
            })
            .collect(),
        reason: "test".into(),
        table_id: "table-1".into(),
        started_at_unix_ms: 1_700_000_000_000,
        ended_at_unix_ms: 1_700_000_060_000,
        record: Some(GameRecord {
            format: match game_type {
                GameType::Doudizhu => "doudizhu-json",
                _ => "gomoku-text",
            }
            .into(),
            content: format!("record of {game_id}"),
        }),
    }
}

/// A Gomoku game black vs white with the given outcomes and points.
pub fn gomoku(
    game_id: &str,
    silver_per_point: i64,
    black: (&str, PlayerOutcome, i64),
    white: (&str, PlayerOutcome, i64),
) -> SettleGameRequest {
    game(
        game_id,
        GameType::Gomoku,
        silver_per_point,
        false,
        &[
            (black.0, Seat::Black, black.1, black.2),
            (white.0, Seat::White, white.1, white.2),
        ],
    )
}

/// A rated Gomoku game: `winner` beats `loser` (or they draw).
pub fn rated(
    game_id: &str,
    first: &str,
    second: &str,
    first_outcome: PlayerOutcome,
) -> SettleGameRequest {
    let second_outcome = match first_outcome {
        PlayerOutcome::Win => PlayerOutcome::Loss,
        PlayerOutcome::Loss => PlayerOutcome::Win,
        other => other,
    };
    let points = |o: PlayerOutcome| match o {
        PlayerOutcome::Win => 5,
        PlayerOutcome::Loss => -5,
        _ => 0,
    };
    game(
        game_id,
        GameType::Gomoku,
        0,
        true,
        &[
            (first, Seat::Black, first_outcome, points(first_outcome)),
            (second, Seat::White, second_outcome, points(second_outcome)),
        ],
    )
}

/// A Dou Dizhu deal: the landlord wins or loses `each` points per farmer.
pub fn doudizhu(
    game_id: &str,
    silver_per_point: i64,
    landlord: &str,
    farmers: [&str; 2],
    landlord_won: bool,
    each: i64,
) -> SettleGameRequest {
    use PlayerOutcome::{Loss, Win};
    let (l, f, sign) = if landlord_won {
        (Win, Loss, 1)
    } else {
        (Loss, Win, -1)
    };
    game(
        game_id,
        GameType::Doudizhu,
        silver_per_point,
        false,
        &[
            (landlord, Seat::Landlord, l, 2 * each * sign),
            (farmers[0], Seat::Farmer, f, -each * sign),
            (farmers[1], Seat::Farmer, f, -each * sign),
        ],
    )
}

/// A snapshot of every table's row count and of every balance, to show that a refused
/// call changed nothing.
pub async fn fingerprint(pool: &PgPool) -> String {
    let tables = [
        "accounts",
        "players",
        "standings",
        "games",
        "game_records",
        "game_players",
        "transfers",
        "entries",
        "grants",
        "history",
        "audit_log",
        "operator_actions",
        "names",
        "tournament_requests",
    ];
    let mut out = String::new();
    for table in tables {
        let n: i64 = sqlx::query_scalar(&format!("SELECT count(*) FROM {table}"))
            .fetch_one(pool)
            .await
            .expect("count");
        out.push_str(&format!("{table}={n} "));
    }
    let balances: Vec<(String, i64)> =
        sqlx::query_as("SELECT account_id::text, balance_silver FROM accounts ORDER BY account_id")
            .fetch_all(pool)
            .await
            .expect("balances");
    let professional: Vec<(String, i16, i64)> = sqlx::query_as(
        "SELECT player_id::text, professional_dan, gomoku_rating FROM players ORDER BY player_id",
    )
    .fetch_all(pool)
    .await
    .expect("players");
    let names: Vec<(String, String)> =
        sqlx::query_as("SELECT player_id::text, name FROM names ORDER BY player_id")
            .fetch_all(pool)
            .await
            .expect("names");
    out.push_str(&format!("{balances:?} {professional:?} {names:?}"));
    out
}

async fn none(pool: &PgPool, what: &str, sql: &str) {
    let rows: Vec<sqlx::postgres::PgRow> = sqlx::query(sql)
        .fetch_all(pool)
        .await
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        rows.is_empty(),
        "invariant broken: {what} ({} offending rows)",
        rows.len()
    );
}

/// Every invariant of the ledger, checked in SQL over the whole database.
pub async fn check_invariants(pool: &PgPool, caps: &Caps) {
    // Silver: only grants create it; everything else moves it.
    let (total, players_and_house, issuance, granted): (i64, i64, i64, i64) = sqlx::query_as(
        "SELECT (SELECT coalesce(sum(balance_silver), 0)::bigint FROM accounts), \
                (SELECT coalesce(sum(balance_silver), 0)::bigint FROM accounts WHERE kind <> 'issuance'), \
                (SELECT balance_silver FROM accounts WHERE account_id = '#issuance'), \
                (SELECT coalesce(sum(amount_silver), 0)::bigint FROM grants)",
    )
    .fetch_one(pool)
    .await
    .expect("totals");
    assert_eq!(total, 0, "all accounts together hold zero");
    assert_eq!(players_and_house, granted, "total silver = total granted");
    assert_eq!(-issuance, granted);

    none(
        pool,
        "a balance differs from the sum of its entries",
        "SELECT a.account_id FROM accounts a LEFT JOIN \
           (SELECT account_id, sum(amount_silver) AS s FROM entries GROUP BY account_id) e \
           ON e.account_id = a.account_id \
         WHERE a.balance_silver <> coalesce(e.s, 0)",
    )
    .await;
    none(
        pool,
        "an entry's balance_after is not the running sum",
        "SELECT * FROM (SELECT balance_after_silver, sum(amount_silver) OVER \
           (PARTITION BY account_id ORDER BY entry_id) AS running FROM entries) x \
         WHERE balance_after_silver <> running",
    )
    .await;
    none(
        pool,
        "a transfer does not balance",
        "SELECT transfer_id FROM entries GROUP BY transfer_id HAVING sum(amount_silver) <> 0",
    )
    .await;
    none(
        pool,
        "a negative player or house balance",
        "SELECT 1 FROM accounts WHERE kind <> 'issuance' AND balance_silver < 0",
    )
    .await;

    // Tournament pools: each holds its fees minus its refunds and prizes, and each
    // tournament transfer is its request's.
    none(
        pool,
        "a tournament pool differs from its fees, refunds and prizes",
        "SELECT a.account_id FROM accounts a LEFT JOIN ( \
           SELECT '#tournament:' || tournament_id AS account_id, \
                  sum(CASE kind WHEN 'entry_fee' THEN amount_silver ELSE -amount_silver END) AS s \
           FROM tournament_requests GROUP BY tournament_id) r \
           ON r.account_id = a.account_id \
         WHERE a.kind = 'tournament' AND a.balance_silver <> coalesce(r.s, 0)",
    )
    .await;
    none(
        pool,
        "a tournament transfer without its request, or of another kind",
        "SELECT t.transfer_id FROM transfers t \
           LEFT JOIN tournament_requests r ON r.transfer_id = t.transfer_id \
         WHERE (t.kind IN ('entry_fee', 'refund', 'prizes') AND r.kind IS DISTINCT FROM t.kind) \
            OR (t.kind NOT IN ('entry_fee', 'refund', 'prizes') AND r.request_id IS NOT NULL)",
    )
    .await;
    none(
        pool,
        "a tournament request's entries differ from it",
        "SELECT r.request_id FROM tournament_requests r JOIN entries e ON e.transfer_id = r.transfer_id \
         GROUP BY r.request_id, r.kind, r.tournament_id, r.player_id, r.amount_silver \
         HAVING sum(e.amount_silver) FILTER (WHERE e.account_id = '#tournament:' || r.tournament_id) \
                  IS DISTINCT FROM CASE r.kind WHEN 'entry_fee' THEN r.amount_silver ELSE -r.amount_silver END \
             OR (r.kind <> 'prizes' AND (count(*) <> 2 \
                 OR sum(e.amount_silver) FILTER (WHERE e.account_id = r.player_id) \
                    IS DISTINCT FROM CASE r.kind WHEN 'entry_fee' THEN -r.amount_silver ELSE r.amount_silver END))",
    )
    .await;

    // Settlements: one per game, zero-sum, within the caps, matching their transfer.
    none(
        pool,
        "a game without its seats",
        "SELECT g.game_id FROM games g LEFT JOIN game_players gp ON gp.game_id = g.game_id \
         GROUP BY g.game_id, g.game_type \
         HAVING count(gp.player_id) <> CASE g.game_type WHEN 1 THEN 2 ELSE 3 END",
    )
    .await;
    none(
        pool,
        "a game's silver is not zero-sum",
        "SELECT g.game_id FROM games g JOIN game_players gp ON gp.game_id = g.game_id \
         GROUP BY g.game_id, g.house_silver HAVING sum(gp.silver_delta) + g.house_silver <> 0",
    )
    .await;
    none(
        pool,
        "a game moved more than requested or the wrong way",
        "SELECT 1 FROM game_players WHERE abs(silver_delta) > abs(silver_requested) \
         OR (silver_delta <> 0 AND sign(silver_delta) <> sign(silver_requested))",
    )
    .await;
    none(
        pool,
        "a game's entries differ from its seats' silver",
        "SELECT 1 FROM game_players gp JOIN transfers t ON t.game_id = gp.game_id \
         LEFT JOIN entries e ON e.transfer_id = t.transfer_id AND e.account_id = gp.player_id \
         WHERE coalesce(e.amount_silver, 0) <> gp.silver_delta",
    )
    .await;
    none(
        pool,
        "a game moved silver without a transfer",
        "SELECT 1 FROM game_players gp LEFT JOIN transfers t ON t.game_id = gp.game_id \
         WHERE gp.silver_delta <> 0 AND t.transfer_id IS NULL",
    )
    .await;
    none(
        pool,
        "a per-game cap was passed",
        &format!(
            "SELECT 1 FROM game_players WHERE silver_delta > {} OR -silver_delta > {}",
            caps.game_win_silver, caps.game_loss_silver
        ),
    )
    .await;
    let daily = "SELECT gp.player_id, g.cap_day, \
                    sum(greatest(gp.silver_delta, 0)) AS won, sum(greatest(-gp.silver_delta, 0)) AS lost \
                 FROM game_players gp JOIN games g ON g.game_id = gp.game_id \
                 GROUP BY gp.player_id, g.cap_day";
    none(
        pool,
        "a per-day cap was passed",
        &format!(
            "SELECT * FROM ({daily}) d WHERE won > {} OR lost > {}",
            caps.daily_win_silver, caps.daily_loss_silver
        ),
    )
    .await;
    none(pool, "a player's daily counters differ from its games of that day",
        &format!("SELECT p.player_id FROM players p LEFT JOIN ({daily}) d \
           ON d.player_id = p.player_id AND d.cap_day = p.cap_day \
         WHERE p.won_today_silver <> coalesce(d.won, 0) OR p.lost_today_silver <> coalesce(d.lost, 0)")).await;

    // Standings are the sums of the games (counted here from the stored outcomes, apart
    // from the Rust that computed what each game added).
    let (win, loss, draw, escape, void) = (
        Outcome::Win.code(),
        Outcome::Loss.code(),
        Outcome::Draw.code(),
        Outcome::Escape.code(),
        Outcome::Void.code(),
    );
    none(
        pool,
        "points or counts differ from the games",
        &format!(
            "SELECT s.player_id FROM standings s LEFT JOIN ( \
           SELECT gp.player_id, g.game_type, sum(gp.points) AS points, \
                  count(*) FILTER (WHERE gp.outcome = {win}) AS wins, \
                  count(*) FILTER (WHERE gp.outcome = {loss}) AS losses, \
                  count(*) FILTER (WHERE gp.outcome = {draw}) AS draws, \
                  count(*) FILTER (WHERE gp.outcome = {escape}) AS escapes, \
                  count(*) FILTER (WHERE gp.outcome <> {void}) AS games \
           FROM game_players gp JOIN games g ON g.game_id = gp.game_id \
           GROUP BY gp.player_id, g.game_type) x \
         ON x.player_id = s.player_id AND x.game_type = s.game_type \
         WHERE s.points <> coalesce(x.points, 0) OR s.wins <> coalesce(x.wins, 0) \
            OR s.losses <> coalesce(x.losses, 0) OR s.draws <> coalesce(x.draws, 0) \
            OR s.escapes <> coalesce(x.escapes, 0) OR s.games <> coalesce(x.games, 0)"
        ),
    )
    .await;

    // History chains: each "before" is the previous "after"; the last "after" is now.
    for (what, partition, kind, start) in [
        ("silver", "player_id", HistoryKind::Silver.code(), 0),
        (
            "points",
            "player_id, game_type",
            HistoryKind::Points.code(),
            0,
        ),
        (
            "rating",
            "player_id",
            HistoryKind::Rating.code(),
            NEW_PLAYER_RATING,
        ),
    ] {
        none(
            pool,
            &format!("the {what} history does not chain"),
            &format!(
                "SELECT * FROM (SELECT before_value, \
                 lag(after_value) OVER (PARTITION BY {partition} ORDER BY history_id) AS previous \
                 FROM history WHERE kind = {kind}) h \
               WHERE before_value <> coalesce(previous, {start})"
            ),
        )
        .await;
    }
    none(
        pool,
        "the last points history row is not the points",
        "SELECT 1 FROM standings s JOIN LATERAL (SELECT after_value FROM history h \
           WHERE h.player_id = s.player_id AND h.game_type = s.game_type AND h.kind = 2 \
           ORDER BY history_id DESC LIMIT 1) last ON true \
         WHERE last.after_value <> s.points",
    )
    .await;
    none(pool, "the last silver history row is not the balance",
        "SELECT 1 FROM accounts a JOIN LATERAL (SELECT after_value FROM history h \
           WHERE h.player_id = a.account_id AND h.kind = 1 ORDER BY history_id DESC LIMIT 1) last ON true \
         WHERE last.after_value <> a.balance_silver").await;
    none(pool, "the last rating history row is not the rating",
        "SELECT 1 FROM players p JOIN LATERAL (SELECT after_value FROM history h \
           WHERE h.player_id = p.player_id AND h.kind = 4 ORDER BY history_id DESC LIMIT 1) last ON true \
         WHERE last.after_value <> p.gomoku_rating").await;
    none(
        pool,
        "rated games differ from the rating history",
        "SELECT 1 FROM players p WHERE p.rated_games <> \
           (SELECT count(*) FROM history h WHERE h.player_id = p.player_id AND h.kind = 4)",
    )
    .await;
    let rating_sum: i64 =
        sqlx::query_scalar("SELECT coalesce(sum(gomoku_rating - $1), 0)::bigint FROM players")
            .bind(NEW_PLAYER_RATING)
            .fetch_one(pool)
            .await
            .expect("ratings");
    assert_eq!(rating_sum, 0, "ratings move zero-sum");
}

/// The stored answer of every settled game, by game id.
pub async fn stored_responses(pool: &PgPool) -> HashMap<String, SettleGameResponse> {
    let rows: Vec<(String, Vec<u8>)> = sqlx::query_as("SELECT game_id::text, response FROM games")
        .fetch_all(pool)
        .await
        .expect("responses");
    rows.into_iter()
        .map(|(id, bytes)| {
            (
                id,
                SettleGameResponse::decode(bytes.as_slice()).expect("stored response decodes"),
            )
        })
        .collect()
}
