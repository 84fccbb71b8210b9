//! The matcher and the reaper, which run in every replica.
//!
//! A **round** of one room ([`Matcher::round`]):
//! 1.–2. claim tables atomically: in unrated rooms the oldest waiting tickets in queue
//!    order, in one step ([`TicketStore::take`]); in rated rooms peek, pair by rating
//!    ([`crate::pairing`]) and claim the pairs still free ([`TicketStore::claim`]). A
//!    ticket is claimed by at most one match, whatever the number of replicas racing;
//! 3. ask the ledger whether each player may sit down; a refused player's ticket ends
//!    REFUSED with the ledger's reason and the others go back to the queue at their
//!    place; a ledger that does not answer sends the whole table back;
//! 4. record "opening" with the seat order **before** calling OpenTable
//!    ([`TicketStore::mark_opening`]), then open the tables, idempotently on the match id;
//! 5. seat the tickets ([`TicketStore::seat`]) and remember each player's seat.
//!
//! Steps 2–5 each handle every table of the round in one Lua script, so a round of
//! hundreds of tables costs a handful of Redis round trips.
//!
//! The **reaper** ([`Matcher::reap`]) ends expired tickets and takes over claims past
//! their deadline (their replica crashed or stalled between "claimed" and "seated"):
//! a claim still in phase `claimed` returns its tickets to the queue at their place; a
//! claim in phase `opening` may already have a table, so the reaper calls OpenTable
//! again with the same match id (the game service answers with the same table) and
//! seats the players there, so nobody is stranded at a phantom table. A claim whose
//! table still cannot be opened after [`MatcherSettings::max_takeovers`] takeovers ends
//! its tickets FAILED.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use gamehub_platform::ApiError;
use gamehub_platform::metrics::metrics;
use gamehub_platform::server::Shutdown;
use rand::seq::SliceRandom;
use tokio::sync::Notify;

use crate::pairing::{Candidate, RatingWindow, pair_by_rating};
use crate::peers::{
    BoxFuture, Eligibility, Lineup, MAX_PROFILES, OpenedTable, PeerError, TableOpener, Verdict,
};
use crate::rooms::{Room, Rooms};
use crate::store::{ClaimGroup, Opening, Outcome, Release, Seating, Taken, TicketStore};
use gamehub_proto::common::PlayerProfile;

/// How the matcher and the reaper run.
#[derive(Debug, Clone)]
pub struct MatcherSettings {
    /// A room with nothing to do is looked at again after this long (an Enqueue in this
    /// replica wakes it at once).
    pub interval: Duration,
    /// How often the reaper looks for expired tickets and stale claims.
    pub reaper_interval: Duration,
    /// Tables formed per room per round at most.
    pub batch_tables: usize,
    /// The rating gap accepted in rated rooms.
    pub window: RatingWindow,
    /// Calls to the ledger and the game services in flight per round at most.
    pub concurrency: usize,
    /// Takeovers of an `opening` claim whose table could not be opened before its
    /// tickets end FAILED (each takeover waits one claim timeout).
    pub max_takeovers: u32,
}

impl Default for MatcherSettings {
    fn default() -> Self {
        Self {
            interval: Duration::from_millis(100),
            reaper_interval: Duration::from_secs(1),
            batch_tables: 256,
            window: RatingWindow::default(),
            concurrency: 64,
            max_takeovers: 8,
        }
    }
}

/// What one round did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RoundReport {
    /// Tables whose tickets were claimed.
    pub claimed: usize,
    /// Tables opened and seated.
    pub seated: usize,
    /// Tickets refused by the ledger.
    pub refused: usize,
    /// Tables sent back to the queue (a refusal, the ledger or a game service down).
    pub released: usize,
    /// Of those, tables sent back because the ledger did not answer.
    pub unavailable: usize,
}

/// What one reaper pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReapReport {
    /// Tickets that expired.
    pub expired: usize,
    /// Stale claims taken over.
    pub taken_over: usize,
    /// Of those, tables opened (again) and seated.
    pub seated: usize,
}

/// Forms tables and seats players; cheap to clone.
#[derive(Clone)]
pub struct Matcher {
    inner: Arc<Inner>,
}

struct Inner {
    store: TicketStore,
    rooms: Rooms,
    eligibility: Arc<dyn Eligibility>,
    tables: Arc<dyn TableOpener>,
    settings: MatcherSettings,
    wakers: HashMap<String, Arc<Notify>>,
}

impl std::fmt::Debug for Matcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Matcher")
            .field("settings", &self.inner.settings)
            .finish_non_exhaustive()
    }
}

/// The outcome of the eligibility checks of one table.
enum Checked {
    AllEligible,
    Refused(Vec<(String, Outcome)>),
    Unknown(String),
}

impl Matcher {
    /// A matcher over `rooms`, asking `eligibility` and opening tables with `tables`.
    pub fn new(
        store: TicketStore,
        rooms: Rooms,
        eligibility: Arc<dyn Eligibility>,
        tables: Arc<dyn TableOpener>,
        settings: MatcherSettings,
    ) -> Self {
        let wakers = rooms
            .iter()
            .map(|room| (room.id.to_string(), Arc::new(Notify::new())))
            .collect();
        Self {
            inner: Arc::new(Inner {
                store,
                rooms,
                eligibility,
                tables,
                settings,
                wakers,
            }),
        }
    }

    /// The ticket store.
    pub fn store(&self) -> &TicketStore {
        &self.inner.store
    }

    /// The rooms.
    pub fn rooms(&self) -> &Rooms {
        &self.inner.rooms
    }

    /// The ledger, as the matcher asks it.
    pub fn eligibility(&self) -> &Arc<dyn Eligibility> {
        &self.inner.eligibility
    }

    /// The game services, as the matcher opens tables at them.
    pub fn tables(&self) -> &Arc<dyn TableOpener> {
        &self.inner.tables
    }

    /// Now, by the service's clock (the store's).
    fn now_ms(&self) -> u64 {
        self.inner.store.clock().now_ms()
    }

    /// Tells the room's loop in this replica that a ticket arrived.
    pub fn wake(&self, room_id: &str) {
        if let Some(notify) = self.inner.wakers.get(room_id) {
            notify.notify_one();
        }
    }

    /// Runs one loop per room and the reaper until `shutdown`.
    pub fn spawn(&self, shutdown: &Shutdown) -> Vec<tokio::task::JoinHandle<()>> {
        let mut tasks: Vec<_> = self
            .inner
            .rooms
            .iter()
            .map(|room| {
                let matcher = self.clone();
                let room = Arc::clone(room);
                let shutdown = shutdown.clone();
                tokio::spawn(async move { matcher.run_room(&room, &shutdown).await })
            })
            .collect();
        let matcher = self.clone();
        let shutdown = shutdown.clone();
        tasks.push(tokio::spawn(
            async move { matcher.run_reaper(&shutdown).await },
        ));
        tasks
    }

    async fn run_room(&self, room: &Room, shutdown: &Shutdown) {
        let mut listener = shutdown.listener();
        let notify = self
            .inner
            .wakers
            .get(room.id.as_str())
            .cloned()
            .unwrap_or_default();
        let batch = self.inner.settings.batch_tables;
        while !listener.is_triggered() {
            let pause = match self.round(room).await {
                // The ledger is not answering: give it a moment rather than spin.
                Ok(report) if report.unavailable > 0 => Duration::from_secs(1),
                Ok(report) if report.claimed >= batch => continue,
                Ok(_) => self.inner.settings.interval,
                Err(e) => {
                    tracing::warn!(room = %room.id, error = %e, "matcher round failed");
                    Duration::from_secs(1)
                }
            };
            tokio::select! {
                () = notify.notified() => {},
                () = tokio::time::sleep(pause) => {},
                () = listener.wait() => break,
            }
        }
    }

    async fn run_reaper(&self, shutdown: &Shutdown) {
        let mut listener = shutdown.listener();
        let room_ids: Vec<&str> = self.inner.rooms.iter().map(|r| r.id.as_str()).collect();
        while !listener.is_triggered() {
            for room in self.inner.rooms.iter() {
                if let Err(e) = self.reap(room).await {
                    tracing::warn!(room = %room.id, error = %e, "reaper pass failed");
                }
            }
            if let Ok(counts) = self.inner.store.waiting_counts(&room_ids).await {
                for (room_id, count) in room_ids.iter().zip(counts) {
                    metrics()
                        .queued_tickets
                        .with_label_values(&[room_id])
                        .set(i64::try_from(count).unwrap_or(i64::MAX));
                }
            }
            tokio::select! {
                () = tokio::time::sleep(self.inner.settings.reaper_interval) => {},
                () = listener.wait() => break,
            }
        }
    }

    /// Forms, claims, checks, opens and seats up to a batch of tables in `room`.
    pub async fn round(&self, room: &Room) -> Result<RoundReport, ApiError> {
        let store = &self.inner.store;
        let settings = &self.inner.settings;
        let now = self.now_ms();
        let claimed = self.claim_tables(room, now).await?;
        let mut report = RoundReport {
            claimed: claimed.len(),
            ..RoundReport::default()
        };
        if claimed.is_empty() {
            return Ok(report);
        }
        let created: HashMap<String, u64> = claimed
            .iter()
            .flat_map(|c| c.members.iter().map(|(t, _, at)| (t.clone(), *at)))
            .collect();
        // (claim, its members as (ticket, player))
        let claimed: Vec<(Taken, Vec<(String, String)>)> = claimed
            .into_iter()
            .map(|c| {
                let members = c
                    .members
                    .iter()
                    .map(|(t, p, _)| (t.clone(), p.clone()))
                    .collect();
                (c, members)
            })
            .collect();

        // Eligibility, every player of the round at once (bounded).
        let calls: Vec<BoxFuture<'_, Checked>> = claimed
            .iter()
            .map(|(_, members)| {
                let eligibility = Arc::clone(&self.inner.eligibility);
                Box::pin(async move { check_table(eligibility.as_ref(), room, members).await })
                    as BoxFuture<'_, Checked>
            })
            .collect();
        let checks: Vec<Checked> = futures::stream::iter(calls)
            .buffered(settings.concurrency.max(1))
            .collect()
            .await;

        let mut releases = Vec::new();
        let mut openings = Vec::new();
        for ((group, members), checked) in claimed.iter().zip(checks) {
            match checked {
                Checked::AllEligible => {
                    let mut order = members.clone();
                    order.shuffle(&mut rand::rng());
                    openings.push(Opening {
                        match_id: group.match_id.clone(),
                        owner: group.owner.clone(),
                        players: order.iter().map(|(_, p)| p.clone()).collect(),
                        tickets: order.into_iter().map(|(t, _)| t).collect(),
                    });
                }
                Checked::Refused(outcomes) => {
                    report.refused += outcomes
                        .iter()
                        .filter(|(_, o)| matches!(o, Outcome::Refuse { .. }))
                        .count();
                    report.released += 1;
                    releases.push(Release {
                        match_id: group.match_id.clone(),
                        owner: group.owner.clone(),
                        tickets: outcomes,
                    });
                }
                Checked::Unknown(why) => {
                    if report.unavailable == 0 {
                        tracing::warn!(room = %room.id, error = %why, "eligibility unknown; tables back to the queue");
                    }
                    report.released += 1;
                    report.unavailable += 1;
                    releases.push(Release {
                        match_id: group.match_id.clone(),
                        owner: group.owner.clone(),
                        tickets: members
                            .iter()
                            .map(|(t, _)| (t.clone(), Outcome::Requeue))
                            .collect(),
                    });
                }
            }
        }
        self.release(room, &releases).await?;

        let owned: std::collections::HashSet<String> = store
            .mark_opening(&room.id, &openings, self.now_ms())
            .await?
            .into_iter()
            .collect();
        let openings: Vec<Opening> = openings
            .into_iter()
            .filter(|o| owned.contains(&o.match_id))
            .collect();
        let opened = self.open_tables(room, &openings, &created).await?;
        report.seated = opened;
        Ok(report)
    }

    /// Claims this round's tables: in queue order for unrated rooms (one step), or by
    /// rating (peek, pair, then claim the pairs still free).
    async fn claim_tables(&self, room: &Room, now: u64) -> Result<Vec<Taken>, ApiError> {
        let store = &self.inner.store;
        let settings = &self.inner.settings;
        let fresh = || uuid::Uuid::new_v4().simple().to_string();
        if !(room.stakes.rated && room.seats() == 2) {
            let tables: Vec<(String, String)> = (0..settings.batch_tables)
                .map(|_| (fresh(), fresh()))
                .collect();
            return store.take(&room.id, room.seats(), &tables, now).await;
        }
        let peek_limit = (settings.batch_tables * 2 * 4).clamp(2, 4096);
        let waiting = store.peek(&room.id, peek_limit, now).await?;
        let candidates: Vec<Candidate> = waiting
            .iter()
            .map(|p| Candidate {
                rating: p.rating,
                waited_ms: now.saturating_sub(p.created_ms),
            })
            .collect();
        let pairs = pair_by_rating(&candidates, &settings.window, settings.batch_tables);
        if pairs.is_empty() {
            return Ok(Vec::new());
        }
        let groups: Vec<ClaimGroup> = pairs
            .iter()
            .map(|pair| ClaimGroup {
                match_id: fresh(),
                owner: fresh(),
                tickets: pair.iter().map(|&i| waiting[i].ticket_id.clone()).collect(),
            })
            .collect();
        let claimed: std::collections::HashSet<String> = store
            .claim(&room.id, &groups, now)
            .await?
            .into_iter()
            .collect();
        Ok(groups
            .into_iter()
            .zip(&pairs)
            .filter(|(group, _)| claimed.contains(&group.match_id))
            .map(|(group, pair)| Taken {
                match_id: group.match_id,
                owner: group.owner,
                members: pair
                    .iter()
                    .map(|&i| {
                        let p = &waiting[i];
                        (p.ticket_id.clone(), p.player_id.clone(), p.created_ms)
                    })
                    .collect(),
            })
            .collect())
    }

    /// How the players of `openings` are shown, per opening: names are for show, so a
    /// ledger that does not answer leaves them shown by id rather than keep anyone
    /// from playing.
    async fn profiles(&self, room: &Room, openings: &[Opening]) -> Vec<Vec<PlayerProfile>> {
        let ids: Vec<String> = openings.iter().flat_map(|o| o.players.clone()).collect();
        let mut found = HashMap::with_capacity(ids.len());
        for chunk in ids.chunks(MAX_PROFILES) {
            match self.inner.eligibility.profiles(chunk, room.game).await {
                Ok(profiles) => found.extend(chunk.iter().cloned().zip(profiles)),
                Err(e) => {
                    tracing::warn!(room = %room.id, error = %e, "no names from the ledger; players are shown by id");
                }
            }
        }
        openings
            .iter()
            .map(|o| {
                o.players
                    .iter()
                    .map(|p| found.get(p).cloned().unwrap_or_default())
                    .collect()
            })
            .collect()
    }

    /// Opens the tables of claims in phase `opening` and seats their tickets; a
    /// refusal sends the tickets back (counting the failure); an unknown outcome is
    /// left for the reaper, which re-tries with the same match id. Returns the number
    /// of tables seated.
    async fn open_tables(
        &self,
        room: &Room,
        openings: &[Opening],
        created: &HashMap<String, u64>,
    ) -> Result<usize, ApiError> {
        if openings.is_empty() {
            return Ok(0);
        }
        let tables = &self.inner.tables;
        let profiles = self.profiles(room, openings).await;
        let calls: Vec<BoxFuture<'_, Result<OpenedTable, PeerError>>> = openings
            .iter()
            .zip(&profiles)
            .map(|(o, profiles)| {
                let lineup = Lineup {
                    profiles,
                    ..Lineup::default()
                };
                tables.open(room, &o.match_id, &o.players, lineup)
            })
            .collect();
        let results: Vec<Result<OpenedTable, PeerError>> = futures::stream::iter(calls)
            .buffered(self.inner.settings.concurrency.max(1))
            .collect()
            .await;
        let mut seatings = Vec::new();
        let mut releases = Vec::new();
        let mut table_of = HashMap::new();
        for (opening, result) in openings.iter().zip(results) {
            match result {
                Ok(opened) => {
                    for ticket in &opening.tickets {
                        table_of.insert(ticket.clone(), opened.table_id.clone());
                    }
                    seatings.push(Seating {
                        match_id: opening.match_id.clone(),
                        owner: opening.owner.clone(),
                        table_id: opened.table_id,
                        seats: opening
                            .tickets
                            .iter()
                            .enumerate()
                            .map(|(seat, t)| (t.clone(), u32::try_from(seat).unwrap_or(0)))
                            .collect(),
                        players: opening.players.clone(),
                    });
                }
                Err(PeerError::Refused(why)) => {
                    tracing::warn!(room = %room.id, match_id = %opening.match_id, error = %why, "table refused; tickets back to the queue");
                    let message = format!("no table could be opened: {why}");
                    releases.push(Release {
                        match_id: opening.match_id.clone(),
                        owner: opening.owner.clone(),
                        tickets: opening
                            .tickets
                            .iter()
                            .map(|t| (t.clone(), Outcome::Retry(message.clone())))
                            .collect(),
                    });
                }
                Err(PeerError::Unavailable(why)) => {
                    tracing::warn!(room = %room.id, match_id = %opening.match_id, error = %why, "table opening outcome unknown; the reaper will re-try it");
                }
            }
        }
        let store = &self.inner.store;
        let now = self.now_ms();
        let mut waited = (0u64, 0u64);
        for seating in &seatings {
            for (ticket, _) in &seating.seats {
                if let Some(at) = created.get(ticket) {
                    waited.0 += now.saturating_sub(*at);
                    waited.1 += 1;
                }
            }
        }
        let seated: std::collections::HashSet<String> = store
            .seat(&room.id, room.game, &seatings, waited, now)
            .await?
            .into_iter()
            .collect();
        let tables_seated = seated.len();
        let players: Vec<(String, String)> = seatings
            .iter()
            .filter(|s| seated.contains(&s.match_id))
            .flat_map(|s| {
                s.seats
                    .iter()
                    .map(|(t, _)| t.clone())
                    .zip(s.players.iter().cloned())
            })
            .collect();
        store.remember_seats(room.game, &players, &table_of).await?;
        self.release(room, &releases).await?;
        Ok(tables_seated)
    }

    async fn release(&self, room: &Room, releases: &[Release]) -> Result<(), ApiError> {
        let store = &self.inner.store;
        store.release(&room.id, releases, self.now_ms()).await?;
        Ok(())
    }

    /// Ends expired tickets and takes over stale claims in `room`.
    pub async fn reap(&self, room: &Room) -> Result<ReapReport, ApiError> {
        let store = &self.inner.store;
        let now = self.now_ms();
        let expired = store.expire(&room.id, now, 1000).await?;
        let taken = store.take_over(&room.id, now, 100).await?;
        let mut report = ReapReport {
            expired: expired.len(),
            taken_over: taken.len(),
            seated: 0,
        };
        let mut releases = Vec::new();
        let mut openings = Vec::new();
        for claim in taken {
            tracing::info!(room = %room.id, match_id = %claim.match_id, opening = claim.opening, takeovers = claim.takeovers, "taking over a stale claim");
            if !claim.opening {
                releases.push(Release {
                    match_id: claim.match_id,
                    owner: claim.owner,
                    tickets: claim
                        .tickets
                        .into_iter()
                        .map(|t| (t, Outcome::Requeue))
                        .collect(),
                });
            } else if claim.takeovers > self.inner.settings.max_takeovers {
                tracing::error!(room = %room.id, match_id = %claim.match_id, "no table could be opened after repeated attempts; tickets end failed");
                let message =
                    "no table could be opened: the game service did not answer; enqueue again"
                        .to_owned();
                releases.push(Release {
                    match_id: claim.match_id,
                    owner: claim.owner,
                    tickets: claim
                        .tickets
                        .into_iter()
                        .map(|t| (t, Outcome::Fail(message.clone())))
                        .collect(),
                });
            } else {
                openings.push(Opening {
                    match_id: claim.match_id,
                    owner: claim.owner,
                    players: claim.players,
                    tickets: claim.seat_order,
                });
            }
        }
        self.release(room, &releases).await?;
        report.seated = self.open_tables(room, &openings, &HashMap::new()).await?;
        Ok(report)
    }
}

async fn check_table(
    eligibility: &dyn Eligibility,
    room: &Room,
    members: &[(String, String)],
) -> Checked {
    let verdicts =
        futures::future::join_all(members.iter().map(|(_, p)| eligibility.check(p, room))).await;
    let mut outcomes = Vec::with_capacity(members.len());
    let mut any_refused = false;
    for ((ticket, player), verdict) in members.iter().zip(verdicts) {
        match verdict {
            Ok(Verdict::Eligible) => outcomes.push((ticket.clone(), Outcome::Requeue)),
            Ok(Verdict::Refused { refusal, message }) => {
                any_refused = true;
                tracing::info!(room = %room.id, player = %player, %message, "ledger refused a seat");
                outcomes.push((ticket.clone(), Outcome::Refuse { refusal, message }));
            }
            // The ledger said this request is wrong for this player (e.g. a malformed
            // id): waiting again would not help.
            Err(PeerError::Refused(why)) => {
                any_refused = true;
                outcomes.push((
                    ticket.clone(),
                    Outcome::Refuse {
                        refusal: 0,
                        message: format!("the ledger could not check this player: {why}"),
                    },
                ));
            }
            Err(PeerError::Unavailable(why)) => return Checked::Unknown(why),
        }
    }
    if any_refused {
        Checked::Refused(outcomes)
    } else {
        Checked::AllEligible
    }
}
