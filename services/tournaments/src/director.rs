//! The director: the loop that runs tournaments. One replica at a time directs (it
//! holds a PostgreSQL advisory lock on a connection of its own; when that replica dies,
//! its connection closes, the lock goes with it, and another replica takes over on its
//! next pass).
//!
//! Each pass takes every tournament with work left ([`Store::needing_work`]) one step
//! further ([`Director::advance`]): fees owed are held or refunded, a due start is made,
//! the next round paired, tables opened, finished games read, prizes paid. Every step
//! first stores what it decided, then does it at a peer with an idempotency key derived
//! from the tournament (`<id>:fee:<entry>`, `<id>:r<round>:b<board>`, `<id>:prizes`), then
//! stores that it is done: a director that dies anywhere leaves a document from which
//! the next pass does the rest, and nothing twice.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use gamehub_platform::clock::Clock;
use gamehub_platform::error::ApiError;
use gamehub_platform::server::Shutdown;
use sqlx::Connection;

use crate::peers::{Fee, Peers};
use crate::schedule::Schedule;
use crate::settings::Format;
use crate::store::Store;
use crate::tournament::{Money, State, Tournament};

/// The advisory lock key the directing replica holds ("gh-tournaments" as a number).
const DIRECTOR_LOCK: i64 = 0x6768_746f_7572_6e73;

/// How the director runs.
#[derive(Debug, Clone)]
pub struct DirectorSettings {
    /// `GAMEHUB_TOURNAMENTS_TICK_MS`: the pause between passes (default 500 ms).
    pub tick: Duration,
    /// `GAMEHUB_TOURNAMENTS_SCHEDULE`: the daily tournaments to create.
    pub schedule: Schedule,
}

impl Default for DirectorSettings {
    fn default() -> Self {
        Self {
            tick: Duration::from_millis(500),
            schedule: Schedule::default(),
        }
    }
}

/// The director.
#[derive(Debug, Clone)]
pub struct Director {
    store: Store,
    peers: Arc<Peers>,
    clock: Clock,
    settings: DirectorSettings,
    database_url: String,
    /// The scheduled tournaments this process created (their request ids).
    scheduled: Arc<std::sync::Mutex<std::collections::HashSet<String>>>,
}

impl Director {
    pub fn new(
        store: Store,
        peers: Arc<Peers>,
        clock: Clock,
        settings: DirectorSettings,
        database_url: String,
    ) -> Self {
        Self {
            store,
            peers,
            clock,
            settings,
            database_url,
            scheduled: Arc::default(),
        }
    }

    fn now_ms(&self) -> i64 {
        i64::try_from(self.clock.now_ms()).unwrap_or(i64::MAX)
    }

    /// Runs the director in the background until `shutdown`.
    pub fn spawn(self, shutdown: &Shutdown) {
        let mut stop = shutdown.listener();
        tokio::spawn(async move {
            tokio::select! {
                () = self.run() => {}
                () = stop.wait() => {}
            }
        });
    }

    /// Waits for the lock, then directs while holding it; takes the lock again if its
    /// connection is lost.
    async fn run(self) {
        loop {
            match self.lock().await {
                Ok(Some(mut connection)) => {
                    tracing::info!("directing tournaments");
                    loop {
                        self.pass().await;
                        tokio::time::sleep(self.settings.tick).await;
                        // The lock lives with its connection: check that it still does.
                        if connection.ping().await.is_err() {
                            tracing::warn!("lost the director's lock connection");
                            break;
                        }
                    }
                }
                Ok(None) => {}
                Err(e) => tracing::warn!(error = %e, "cannot take the director's lock"),
            }
            tokio::time::sleep(self.settings.tick.max(Duration::from_secs(1))).await;
        }
    }

    async fn lock(&self) -> anyhow::Result<Option<sqlx::PgConnection>> {
        let mut connection = sqlx::PgConnection::connect(&self.database_url).await?;
        let locked: bool = sqlx::query_scalar("SELECT pg_try_advisory_lock($1)")
            .bind(DIRECTOR_LOCK)
            .fetch_one(&mut connection)
            .await?;
        Ok(locked.then_some(connection))
    }

    /// Creates the scheduled tournaments whose registration has opened (once each).
    async fn create_scheduled(&self) {
        let Some(now) = chrono::DateTime::from_timestamp_millis(self.now_ms()) else {
            return;
        };
        let due = self.settings.schedule.due(now);
        // What this process made already is not asked again (the store would answer it
        // as a replay); what is no longer due is forgotten, so the set stays small.
        let made: Vec<String> = {
            let mut made = self
                .scheduled
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            made.retain(|id| due.iter().any(|(due_id, _)| due_id == id));
            made.iter().cloned().collect()
        };
        for (request_id, settings) in due {
            if made.contains(&request_id) {
                continue;
            }
            let now_ms = self.now_ms();
            match crate::schedule::create(&self.store, &self.peers, &request_id, settings, now_ms)
                .await
            {
                Ok(_) => {
                    self.scheduled
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .insert(request_id);
                }
                Err(e) => {
                    tracing::warn!(%request_id, error = %e, "cannot create a scheduled tournament; retrying on the next pass")
                }
            }
        }
    }

    /// One pass: the scheduled tournaments due, then every tournament with work left.
    pub async fn pass(&self) {
        if !self.settings.schedule.is_empty() {
            self.create_scheduled().await;
        }
        let ids = match self.store.needing_work().await {
            Ok(ids) => ids,
            Err(e) => {
                tracing::warn!(error = %e, "cannot list the tournaments to direct");
                return;
            }
        };
        let mut registering = 0;
        let mut running = 0;
        let mut oldest_round: HashMap<&'static str, i64> = HashMap::new();
        for id in ids {
            let steps = gamehub_platform::metrics::metrics();
            match self.advance(&id).await {
                Ok(tournament) => {
                    steps.tournament_steps.with_label_values(&["ok"]).inc();
                    match tournament.state {
                        State::Registering => registering += 1,
                        State::Running => running += 1,
                        State::Finished | State::Cancelled => {}
                    }
                    if let Some(round) = tournament
                        .rounds
                        .last()
                        .filter(|r| !r.finished && tournament.state == State::Running)
                    {
                        let age = (self.now_ms() - round.started_at_ms) / 1000;
                        let game = tournament.settings.game().key;
                        let oldest = oldest_round.entry(game).or_insert(0);
                        *oldest = (*oldest).max(age);
                    }
                }
                Err(e) => {
                    steps.tournament_steps.with_label_values(&["retry"]).inc();
                    tracing::warn!(tournament_id = %id, error = %e, "tournament step failed; retrying on the next pass");
                }
            }
        }
        let metrics = gamehub_platform::metrics::metrics();
        metrics
            .tournaments
            .with_label_values(&["registering"])
            .set(registering);
        metrics
            .tournaments
            .with_label_values(&["running"])
            .set(running);
        for game in gamehub_terms::games::GAMES {
            let age = oldest_round.get(game.key).copied().unwrap_or(0);
            metrics
                .tournament_round_age_seconds
                .with_label_values(&[game.key])
                .set(age);
        }
    }

    async fn update(
        &self,
        id: &str,
        change: impl FnMut(&mut Tournament) -> Result<(), ApiError>,
    ) -> Result<Tournament, ApiError> {
        Ok(self.store.update(id, change).await?.0.0)
    }

    /// Takes tournament `id` as far as it can go now; answers it as it is after.
    pub async fn advance(&self, id: &str) -> Result<Tournament, ApiError> {
        let mut t = self.settle_money(id).await?;
        let now = self.now_ms();
        if t.start_due(now) {
            let ratings = self.ratings(&t).await?;
            self.update(id, |t| {
                if t.start_due(now) {
                    t.start(&ratings, now);
                }
                Ok(())
            })
            .await?;
            // The refunds of players cut from the field.
            t = self.settle_money(id).await?;
        }
        if t.state != State::Running {
            return Ok(t);
        }
        t = self
            .update(id, |t| t.pair_next_round(now).map(|_| ()))
            .await?;
        t = self.play_round(t).await?;
        if t.prizes_due() {
            if !t.prizes.is_empty() {
                self.peers.pay_prizes(&t).await?;
            }
            let now = self.now_ms();
            t = self
                .update(id, |t| {
                    t.prizes_paid(now);
                    Ok(())
                })
                .await?;
            tracing::info!(tournament_id = %id, prizes = t.prizes.len(), "tournament finished");
        }
        Ok(t)
    }

    /// Holds the fees on their way and makes the refunds owed.
    async fn settle_money(&self, id: &str) -> Result<Tournament, ApiError> {
        let (mut t, _) = self
            .store
            .load(id)
            .await?
            .ok_or_else(|| ApiError::NotFound(format!("no tournament {id}")))?;
        let owed: Vec<_> = t
            .entrants
            .iter()
            .filter(|e| matches!(e.money, Money::Paying | Money::Refunding))
            .cloned()
            .collect();
        for entrant in owed {
            let entry = entrant.entry;
            t = match entrant.money {
                Money::Paying => match self.peers.hold_fee(&t, &entrant).await? {
                    Fee::Held => {
                        self.update(id, |t| {
                            t.fee_held(entry);
                            Ok(())
                        })
                        .await?
                    }
                    Fee::Refused(_) => {
                        self.update(id, |t| {
                            t.fee_refused(entry);
                            Ok(())
                        })
                        .await?
                    }
                },
                _ => {
                    self.peers.refund(&t, &entrant).await?;
                    self.update(id, |t| {
                        t.refunded(entry);
                        Ok(())
                    })
                    .await?
                }
            };
        }
        Ok(t)
    }

    /// Seeding: Gomoku players by rating (the ledger's profiles), others by registration.
    async fn ratings(&self, t: &Tournament) -> Result<HashMap<String, i64>, ApiError> {
        if t.settings.format != Format::Swiss {
            return Ok(HashMap::new());
        }
        let players: Vec<String> = t.players().iter().map(|e| e.player_id.clone()).collect();
        let profiles = self.peers.profiles(&players, t.settings.game()).await?;
        Ok(players
            .into_iter()
            .zip(profiles)
            .map(|(p, profile)| (p, profile.rating))
            .collect())
    }

    /// Opens the round's tables that are not open and reads the ones being played.
    async fn play_round(&self, mut t: Tournament) -> Result<Tournament, ApiError> {
        let Some(round) = t.rounds.last().filter(|r| !r.finished).cloned() else {
            return Ok(t);
        };
        let id = t.id.clone();
        for m in &round.matches {
            if m.finished {
                continue;
            }
            let table_id = match &m.table_id {
                Some(table_id) => table_id.clone(),
                None => {
                    let table_id = self.peers.open_table(&t, round.number, m).await?;
                    t = self
                        .update(&id, |t| {
                            t.table_opened(round.number, m.board, &table_id);
                            Ok(())
                        })
                        .await?;
                    tracing::info!(tournament_id = %id, round = round.number, board = m.board, %table_id, "table opened");
                    table_id
                }
            };
            let table = self.peers.table(&t, &table_id).await?;
            if let Some(end) = table.first_game {
                t = self
                    .update(&id, |t| {
                        t.game_ended(round.number, m.board, &table_id, &end);
                        Ok(())
                    })
                    .await?;
            }
        }
        Ok(t)
    }
}
