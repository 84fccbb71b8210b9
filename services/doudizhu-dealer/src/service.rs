//! The gRPC adapter: authorization, parsing, one atomic store step per action, views.
//!
//! Each action loads the table, lets [`Table`] ask the rules crate, and commits the new
//! state with its events (each with its audience), the next deadline and, when a deal
//! ended, the settlement, as one step ([`TableStore::update`], which retries lost
//! races). The request key `<player>:<request_id>` makes retries idempotent.
//!
//! Every step is committed the same way ([`change`]): the table's events as [`view`]
//! shows them, each to its audience, the settlement [`settle`] builds for a deal the
//! step ended, the next deadline. [`Dealer::on_settled`] notes the ledger's
//! acknowledgement; [`ClockHandler`] serves the deadline sweeper.

use std::pin::Pin;
use std::sync::Arc;

use doudizhu_rules::{Audience, AutoPlayer, Seat, Seed, first_bidder_of_first_deal};
use futures::{Stream, StreamExt};
use gamehub_bots::doudizhu::AutoPlay;
use gamehub_platform::auth::{Caller, Role};
use gamehub_platform::client::ServiceChannel;
use gamehub_platform::error::ApiError;
use gamehub_platform::game_api::{
    Opened, Watched, caller_and_message, decode_watched, open_once, player_request_key,
};
use gamehub_platform::metrics::metrics;
use gamehub_platform::server::Shutdown;
use gamehub_platform::tables::dead_letters::{CloseTableFn, ClosedTable};
use gamehub_platform::tables::hub::{EventHub, Watcher};
use gamehub_platform::tables::listing::{ListedTable, Listing, PageRequest};
use gamehub_platform::tables::settler::{Acknowledgement, OnSettled};
use gamehub_platform::tables::sweeper::DeadlineHandler;
use gamehub_platform::tables::{Change, NewEvent, OutboxEntry, TableStore, Updated};
use gamehub_proto::doudizhu as pb;
use gamehub_proto::doudizhu::doudizhu_service_server::DoudizhuService;
use gamehub_proto::ledger::ledger_service_client::LedgerServiceClient;
use prost::Message;
use tonic::{Request, Response, Status};

use crate::GAME;
use crate::error::DealerError;
use crate::parse::{self, OpenTable};
use crate::record::{Archive, RecordDoc};
use crate::table::{Clock, CloseReason, Opening, Stage, Step, Table, Timing, YesOrNo};
use crate::{settle, view};

/// The store step for a table after `step`, a transition made at `now_ms`: its events
/// as the API shows them, each to its audience, the table's next deadline, the
/// settlement of a deal the step ended, and the close once the table is over.
pub fn change<T>(table: &Table, step: Step, output: T, now_ms: u64) -> Change<T> {
    Change {
        events: step
            .events
            .iter()
            .map(|event| {
                let payload = view::event(table, event).encode_to_vec();
                match event.audience {
                    Audience::All => NewEvent::public(payload),
                    Audience::Seat(seat) => NewEvent::private(seat.number(), payload),
                }
            })
            .collect(),
        deadline_ms: table.deadline_ms(),
        settlement: settle::outbox_entry(table, &step, now_ms),
        close: table.is_closed(),
        output,
    }
}

/// A fresh 32-byte seed from the operating system's random source.
pub fn fresh_seed() -> Result<Seed, ApiError> {
    use rand::TryRngCore;
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng
        .try_fill_bytes(&mut bytes)
        .map_err(|e| ApiError::internal(anyhow::anyhow!("the OS random source failed: {e}")))?;
    Ok(Seed::from_bytes(bytes))
}

/// The Dou Dizhu dealer's API. Cheap to clone; holds no table between calls.
#[derive(Clone)]
pub struct Dealer {
    inner: Arc<Inner>,
}

struct Inner {
    store: TableStore,
    hub: EventHub,
    archive: Archive,
    timing: Timing,
    /// Whether OpenTable may carry test seeds (development only).
    test_seeds_allowed: bool,
    /// The ledger, asked before a player's next deal whether it may play one.
    ledger: LedgerServiceClient<ServiceChannel>,
    shutdown: Shutdown,
}

impl std::fmt::Debug for Dealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dealer")
            .field("timing", &self.inner.timing)
            .finish_non_exhaustive()
    }
}

/// What an action returns: the caller's view after it, whether it was a retry, and a
/// flag of the action (Leave: whether it was an escape).
struct Acted {
    table: pb::Table,
    replayed: bool,
    flag: bool,
}

impl Dealer {
    pub fn new(
        store: TableStore,
        hub: EventHub,
        archive: Archive,
        timing: Timing,
        test_seeds_allowed: bool,
        ledger: LedgerServiceClient<ServiceChannel>,
        shutdown: Shutdown,
    ) -> Dealer {
        Dealer {
            inner: Arc::new(Inner {
                store,
                hub,
                archive,
                timing,
                test_seeds_allowed,
                ledger,
                shutdown,
            }),
        }
    }

    fn store(&self) -> &TableStore {
        &self.inner.store
    }

    /// The operator's close (`TableOperatorService.CloseTable`): this dealer's closing
    /// step for a stuck table, voiding a deal in progress.
    pub fn closer(&self) -> CloseTableFn {
        let dealer = self.clone();
        Arc::new(move |table_id: String, note: String| {
            let dealer = dealer.clone();
            Box::pin(async move { dealer.close_by_operator(&table_id, &note).await })
        })
    }

    async fn close_by_operator(&self, table_id: &str, note: &str) -> Result<ClosedTable, ApiError> {
        let table_id = parse::table_id(table_id)?;
        let (table, _, _) = self.load(&table_id).await?;
        if table.is_closed() {
            return Ok(ClosedTable {
                already_closed: true,
                voided_game_id: None,
                closed_reason: table.closed_note,
            });
        }
        let now = self.store().clock().now_ms();
        let updated = self
            .store()
            .update(&table_id, None, |t: &mut Table, _version| {
                let already_closed = t.is_closed();
                let (step, voided_game_id) = t.close_by_operator(note, now);
                let closed = ClosedTable {
                    already_closed,
                    voided_game_id,
                    closed_reason: t.closed_note.clone(),
                };
                Ok(change(t, step, closed, now))
            })
            .await?;
        match updated {
            Updated::Applied { output, .. } => Ok(output),
            Updated::Duplicate { .. } => Err(ApiError::internal(anyhow::anyhow!(
                "an operator's close has no request key and cannot be a duplicate"
            ))),
        }
    }

    async fn load(&self, table_id: &str) -> Result<(Table, u64, u64), ApiError> {
        let loaded = self
            .store()
            .load::<Table>(table_id)
            .await?
            .ok_or_else(|| DealerError::NoTable(table_id.to_owned()))?;
        Ok((loaded.state, loaded.version, loaded.last_seq))
    }

    /// A player saying it is ready for the next deal must still be allowed to play one
    /// today (no game once a daily cap is reached, nor below the room's minimum
    /// balance), judged once the ledger has the deal that just ended (`settling:` until
    /// then). Asked only between deals and of a seated player; anything else is for the
    /// table to refuse (or a retry of a request already applied).
    async fn ensure_may_play_next(&self, caller: &Caller, table_id: &str) -> Result<(), ApiError> {
        if caller.role != Role::Player {
            return Ok(());
        }
        let table_id = parse::table_id(table_id)?;
        let (table, _, _) = self.load(&table_id).await?;
        if !matches!(table.stage, Stage::BetweenDeals { .. })
            || table.seat_of(&caller.subject).is_none()
        {
            return Ok(());
        }
        gamehub_platform::eligibility::ensure_may_play_next(
            self.store(),
            &self.inner.ledger,
            &table_id,
            &crate::table::deal_id(&table.id, table.deal_number),
            &caller.subject,
            view::stakes(&table.stakes),
        )
        .await
    }

    /// The seat whose view `caller` gets: its own seat when it is a player seated here
    /// (unless it asks for the spectator view), else none.
    fn viewer(caller: &Caller, table: &Table, as_spectator: bool) -> Option<Seat> {
        if as_spectator || caller.role != Role::Player {
            return None;
        }
        table.seat_of(&caller.subject)
    }

    /// Runs a seated player's action as one store step.
    async fn act<F>(
        &self,
        caller: &Caller,
        rpc: &'static str,
        table_id: &str,
        request_id: &str,
        action: F,
    ) -> Result<Acted, ApiError>
    where
        F: FnMut(&mut Table, Seat, u64, Timing) -> Result<(Step, bool), DealerError>,
    {
        if caller.role != Role::Player {
            return Err(DealerError::PlayersOnly(rpc).into());
        }
        self.act_for(&caller.subject, table_id, request_id, action)
            .await
    }

    /// A yes-or-no decision (call, rob, double, show) of the caller's seat.
    async fn decide(
        &self,
        caller: &Caller,
        rpc: &'static str,
        decision: YesOrNo,
        table_id: &str,
        request_id: &str,
        yes: bool,
    ) -> Result<Acted, ApiError> {
        self.act(
            caller,
            rpc,
            table_id,
            request_id,
            |table, seat, now, timing| Ok((table.decide(seat, decision, yes, now, timing)?, false)),
        )
        .await
    }

    /// [`Dealer::act`] for `player`'s seat, whoever asks (the caller checked who may).
    async fn act_for<F>(
        &self,
        player: &str,
        table_id: &str,
        request_id: &str,
        mut action: F,
    ) -> Result<Acted, ApiError>
    where
        F: FnMut(&mut Table, Seat, u64, Timing) -> Result<(Step, bool), DealerError>,
    {
        let table_id = parse::table_id(table_id)?;
        let request_id = parse::request_id(request_id)?;
        let key = player_request_key(player, &request_id);
        let timing = self.inner.timing;
        let now = self.store().clock().now_ms();
        let updated = self
            .store()
            .update(&table_id, Some(&key), |table: &mut Table, _version| {
                let seat = table
                    .seat_of(player)
                    .ok_or_else(|| DealerError::NotSeated {
                        player: player.to_owned(),
                        table: table.id.clone(),
                    })?;
                let (step, flag) = action(table, seat, now, timing)?;
                let advance = step.advance;
                let reply = view::reply_view(table, seat);
                Ok(change(table, step, (reply, advance, flag), now))
            })
            .await?;
        match updated {
            Updated::Applied {
                last_seq,
                output: (mut reply, advance, flag),
                ..
            } => {
                if advance {
                    // The action is applied; if dealing fails here, the next deal is due
                    // now in the deadline index and the sweeper deals it.
                    if let Err(e) = self.advance(&table_id).await {
                        tracing::warn!(table_id, error = %e, "could not deal the next deal; the sweeper will");
                    }
                    let (table, _, last_seq) = self.load(&table_id).await?;
                    reply = view::table_view(&table, table.seat_of(player), last_seq);
                    reply.turns.clear();
                } else {
                    reply.last_event_id = view::unix_ms(last_seq);
                }
                Ok(Acted {
                    table: reply,
                    replayed: false,
                    flag,
                })
            }
            Updated::Duplicate { .. } => {
                let (table, _, last_seq) = self.load(&table_id).await?;
                let seat = table.seat_of(player);
                let escaped = matches!(
                    (table.stage, table.deal.settlement().map(|s| s.outcome)),
                    (Stage::Closed { reason: CloseReason::Escape, .. }, Some(doudizhu_rules::Outcome::Escaped { seat: s })) if Some(s) == seat
                );
                let mut reply = view::table_view(&table, seat, last_seq);
                reply.turns.clear();
                Ok(Acted {
                    table: reply,
                    replayed: true,
                    flag: escaped,
                })
            }
        }
    }

    /// Deals the next deal of a table whose next deal is due, after archiving the
    /// finished one. Safe to call from any replica at any time: it does nothing unless
    /// the next deal is due, and exactly one step deals it.
    pub async fn advance(&self, table_id: &str) -> Result<(), ApiError> {
        let Some(loaded) = self.store().load::<Table>(table_id).await? else {
            return Ok(());
        };
        let table = loaded.state;
        if !matches!(table.stage, Stage::NextDealDue { .. }) {
            return Ok(());
        }
        // The finished deal leaves the state in the step below: archive it first.
        self.inner.archive.put(&table).await?;
        let number = table.deal_number;
        let seed = fresh_seed()?;
        let timing = self.inner.timing;
        let now = self.store().clock().now_ms();
        let key = format!("deal:{}", number + 1);
        let result = self
            .store()
            .update(&table.id, Some(&key), |t: &mut Table, _version| {
                if t.deal_number != number {
                    return Err(DealerError::NotDue.into());
                }
                let step = t.start_next_deal(seed, now, timing)?;
                Ok(change(t, step, (), now))
            })
            .await;
        match result {
            Ok(_) => Ok(()),
            // Another step dealt it (or the table closed) in the meantime.
            Err(ApiError::FailedPrecondition(_)) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Re-judges a table whose deadline came (the sweeper calls it on every replica):
    /// timeouts, abandoned tables, due deals. Applied once: each change is a versioned
    /// step, and a table not due only has its deadline index put right.
    pub async fn on_deadline(&self, table_id: &str, now: u64) -> Result<(), ApiError> {
        let Some(loaded) = self.store().load::<Table>(table_id).await? else {
            self.store().reschedule(table_id, 0, None).await?;
            return Ok(());
        };
        let table = loaded.state;
        if !table.is_due(now) {
            self.store()
                .reschedule(table_id, loaded.version, table.deadline_ms())
                .await?;
            return Ok(());
        }
        if matches!(table.stage, Stage::NextDealDue { .. }) {
            return self.advance(table_id).await;
        }
        let timing = self.inner.timing;
        let mut advance_due = false;
        let result = self
            .store()
            .update(table_id, None, |t: &mut Table, _version| {
                match t.on_clock(now, timing) {
                    Clock::Applied(step) => {
                        let advance = step.advance;
                        Ok(change(t, step, advance, now))
                    }
                    Clock::AdvanceDue => {
                        advance_due = true;
                        Err(DealerError::NotDue.into())
                    }
                    Clock::NotDue => Err(DealerError::NotDue.into()),
                }
            })
            .await;
        match result {
            Ok(Updated::Applied {
                output: advance, ..
            }) => {
                metrics().timeouts_applied.with_label_values(&[GAME]).inc();
                if advance {
                    self.advance(table_id).await?;
                }
                Ok(())
            }
            Ok(Updated::Duplicate { .. }) => Ok(()),
            Err(ApiError::FailedPrecondition(_)) if advance_due => self.advance(table_id).await,
            // Another replica's step changed the table first and set its deadline.
            Err(ApiError::FailedPrecondition(_)) => Ok(()),
            Err(e) => Err(e),
        }
    }

    async fn open_table(
        &self,
        caller: &Caller,
        request: &pb::OpenTableRequest,
    ) -> Result<pb::OpenTableResponse, ApiError> {
        caller.require(&[Role::Service], "OpenTable")?;
        let open = OpenTable::parse(request)?;
        if !open.test_seeds.is_empty() && !self.inner.test_seeds_allowed {
            return Err(DealerError::TestSeedsRefused.into());
        }
        let table_id = open.table_id(&caller.subject);
        let digest = open.digest();
        let mut seeds = open.test_seeds.clone();
        if seeds.is_empty() {
            seeds.push(fresh_seed()?);
        }
        let first_bidder = first_bidder_of_first_deal(&mut rand::rng());
        let now = self.store().clock().now_ms();
        let (table, step) = Table::open(
            Opening {
                table_id: table_id.clone(),
                stakes: open.stakes.clone(),
                turn_ms: open.turn_ms,
                players: open.players.clone(),
                open_digest: digest.clone(),
                first_bidder,
                seeds,
                profiles: open.profiles.clone(),
                bots: open.bots,
                friends_table: open.friends_table,
                rule_set: open.rule_set,
            },
            self.inner.timing,
            now,
        )?;
        let key = format!("open:{}:{}", caller.subject, open.request_id);
        let step = change(&table, step, (), now);
        // Friends' tables are never listed.
        let listing = Listing::new(table.stakes.room_id.as_str(), !open.friends_table);
        match open_once(self.store(), &table_id, &table, step, &key, listing).await? {
            Opened::Created { last_seq } => {
                tracing::info!(table_id, room = %table.stakes.room_id, "table opened");
                Ok(pb::OpenTableResponse {
                    table_id,
                    table: Some(view::table_view(&table, None, last_seq)),
                    replayed: false,
                })
            }
            Opened::Existing(existing) => {
                let existing = existing.ok_or_else(|| DealerError::NoTable(table_id.clone()))?;
                if existing.state.open_digest != digest {
                    return Err(DealerError::RequestIdReused(open.request_id).into());
                }
                Ok(pb::OpenTableResponse {
                    table_id,
                    table: Some(view::table_view(&existing.state, None, existing.last_seq)),
                    replayed: true,
                })
            }
        }
    }

    async fn get_table(
        &self,
        caller: &Caller,
        request: &pb::GetTableRequest,
    ) -> Result<pb::GetTableResponse, ApiError> {
        let table_id = parse::table_id(&request.table_id)?;
        let (table, _, last_seq) = self.load(&table_id).await?;
        let viewer = Self::viewer(caller, &table, request.as_spectator);
        Ok(pb::GetTableResponse {
            table: Some(view::table_view(&table, viewer, last_seq)),
        })
    }

    async fn hint(
        &self,
        caller: &Caller,
        request: &pb::HintRequest,
    ) -> Result<pb::HintResponse, ApiError> {
        if caller.role != Role::Player {
            return Err(DealerError::PlayersOnly("Hint").into());
        }
        let table_id = parse::table_id(&request.table_id)?;
        let (table, _, _) = self.load(&table_id).await?;
        let seat = table
            .seat_of(&caller.subject)
            .ok_or_else(|| DealerError::NotSeated {
                player: caller.subject.clone(),
                table: table_id.clone(),
            })?;
        match table.stage {
            Stage::Dealing => {}
            Stage::Closed { .. } => return Err(DealerError::TableClosed.into()),
            Stage::BetweenDeals { .. } | Stage::NextDealDue { .. } => {
                return Err(DealerError::DealOver.into());
            }
        }
        // Every rule set's plays as wild plays: without wilds each one's `meant` is its
        // cards (and is not shown); in laizi the same cards come once per reading.
        let mut plays = table.deal.wild_plays(seat).map_err(DealerError::from)?;
        plays.sort_by_key(|p| {
            let c = p.reading.combination;
            (c.kind, c.length, c.rank, p.reading.bomb, p.cards, p.meant)
        });
        let wilds = table.rule_set.has_wilds();
        let hand = table.deal.hand(seat);
        let hint = |play: &doudizhu_rules::WildPlay| pb::Hint {
            ranks: view::rank_text(&play.cards),
            cards: hand
                .pick(&play.cards)
                .map(view::card_set)
                .unwrap_or_default(),
            combination: Some(view::combination(
                &play.reading.combination,
                play.reading.bomb,
            )),
            meant: if wilds {
                view::rank_text(&play.meant)
            } else {
                String::new()
            },
        };
        // The bot's choice from the seat's own view, as auto-play would make it: only
        // ever one of the listed plays.
        let chosen = AutoPlay.choose(&table.deal.view(seat));
        let suggestion = chosen
            .and_then(|choice| {
                plays.iter().find(|p| {
                    p.cards == choice.cards && choice.meant.is_none_or(|meant| meant == p.meant)
                })
            })
            .map(hint);
        Ok(pb::HintResponse {
            plays: plays.iter().map(hint).collect(),
            can_pass: table.deal.trick().is_some(),
            suggestion,
        })
    }

    async fn get_deal_record(
        &self,
        request: &pb::GetDealRecordRequest,
    ) -> Result<pb::GetDealRecordResponse, ApiError> {
        let table_id = parse::table_id(&request.table_id)?;
        let number = u32::try_from(request.deal_number)
            .ok()
            .filter(|n| *n >= 1)
            .ok_or_else(|| DealerError::invalid("deal_number", "deals are numbered from 1"))?;
        let loaded = self.store().load::<Table>(&table_id).await?;
        if let Some(loaded) = &loaded {
            let table = &loaded.state;
            if number > table.deal_number {
                return Err(DealerError::NoSuchDeal {
                    table: table_id,
                    deal: number,
                }
                .into());
            }
            if number == table.deal_number {
                let doc = RecordDoc::of(table).ok_or(DealerError::DealNotFinished(number))?;
                let json = doc.to_json();
                return Ok(pb::GetDealRecordResponse {
                    record: Some(view::record(&doc, json)),
                });
            }
        }
        match self.inner.archive.get(&table_id, number).await? {
            Some(json) => {
                let doc = RecordDoc::from_json(&json).map_err(ApiError::internal)?;
                Ok(pb::GetDealRecordResponse {
                    record: Some(view::record(&doc, json)),
                })
            }
            None if loaded.is_none() => Err(DealerError::NoTable(table_id).into()),
            None => Err(DealerError::RecordGone {
                table: table_id,
                deal: number,
            }
            .into()),
        }
    }

    fn watch_stream(
        &self,
        caller: &Caller,
        request: &pb::WatchRequest,
        table: &Table,
    ) -> Result<WatchStream, ApiError> {
        let viewer = Self::viewer(caller, table, request.as_spectator);
        let resume = match request.after_event_id {
            0 => None,
            n => Some(
                u64::try_from(n)
                    .map_err(|_| DealerError::invalid("after_event_id", "cannot be negative"))?,
            ),
        };
        // A seated player's stream takes a place kept for its seat, even as a spectator.
        let seated = match caller.role {
            Role::Player => table.seat_of(&caller.subject),
            Role::Service | Role::Operator => None,
        };
        let watcher = Watcher {
            caller: caller.subject.clone(),
            seated: seated.map(Seat::number),
            sees_as: viewer.map(Seat::number),
        };
        let stream = self.inner.hub.watch(
            table.id.clone(),
            &watcher,
            resume,
            self.inner.shutdown.listener(),
        )?;
        let stream = stream.map(move |item| {
            let item = match decode_watched::<Table, pb::TableEvent>(item?)? {
                Watched::Snapshot { seq, state } => {
                    pb::watch_response::Item::Snapshot(view::table_view(&state, viewer, seq))
                }
                Watched::Event { seq, mut event } => {
                    event.event_id = view::unix_ms(seq);
                    pb::watch_response::Item::Event(event)
                }
            };
            Ok::<_, Status>(pb::WatchResponse { item: Some(item) })
        });
        Ok(Box::pin(stream))
    }
}

impl Dealer {
    /// The settler's callback: appends a public `deal_settled` event (once per game, by
    /// its request key) and keeps the silver in the table's view of that deal.
    pub fn on_settled(&self) -> OnSettled {
        let dealer = self.clone();
        Arc::new(
            move |entry: OutboxEntry, acknowledgement: Acknowledgement| {
                let dealer = dealer.clone();
                Box::pin(async move {
                    match dealer.note_settlement(&entry, &acknowledgement).await {
                        Ok(()) => Ok(()),
                        // Redis is not answering: the settler delivers again, and this
                        // runs again.
                        Err(e) if e.code() == tonic::Code::Unavailable => Err(e),
                        Err(ApiError::NotFound(_)) => {
                            tracing::debug!(game_id = %entry.game_id, "settled deal's table is gone");
                            Ok(())
                        }
                        Err(e) => {
                            tracing::warn!(game_id = %entry.game_id, error = %e, "could not announce a settled deal");
                            Ok(())
                        }
                    }
                })
            },
        )
    }

    /// Notes the ledger's answer for a settled deal at its table, as one store step.
    async fn note_settlement(
        &self,
        entry: &OutboxEntry,
        acknowledgement: &Acknowledgement,
    ) -> Result<(), ApiError> {
        let response = &acknowledgement.response;
        let Some(deal_number) = crate::table::deal_number_of(&entry.game_id) else {
            return Ok(());
        };
        let key = format!("settled:{}", entry.game_id);
        let now = self.store().clock().now_ms();
        self.store()
            .update(
                &entry.table_id,
                Some(&key),
                |table: &mut Table, _version| {
                    let by_seat = settle::seats_settled(table, response);
                    let step = table.settled(
                        deal_number,
                        &entry.game_id,
                        by_seat,
                        acknowledgement.adopted,
                        now,
                    );
                    Ok(change(table, step, (), now))
                },
            )
            .await?;
        Ok(())
    }
}

/// The stream type of Watch.
pub type WatchStream = Pin<Box<dyn Stream<Item = Result<pb::WatchResponse, Status>> + Send>>;

#[tonic::async_trait]
impl DoudizhuService for Dealer {
    async fn open_table(
        &self,
        request: Request<pb::OpenTableRequest>,
    ) -> Result<Response<pb::OpenTableResponse>, Status> {
        let (caller, message) = caller_and_message(request)?;
        Ok(Response::new(self.open_table(&caller, &message).await?))
    }

    async fn get_table(
        &self,
        request: Request<pb::GetTableRequest>,
    ) -> Result<Response<pb::GetTableResponse>, Status> {
        let (caller, message) = caller_and_message(request)?;
        Ok(Response::new(self.get_table(&caller, &message).await?))
    }

    async fn bid(
        &self,
        request: Request<pb::BidRequest>,
    ) -> Result<Response<pb::BidResponse>, Status> {
        let (caller, r) = caller_and_message(request)?;
        let bid = parse::bid(r.points).map_err(ApiError::from)?;
        let acted = self
            .act(
                &caller,
                "Bid",
                &r.table_id,
                &r.request_id,
                |table, seat, now, timing| Ok((table.bid(seat, bid, now, timing)?, false)),
            )
            .await?;
        Ok(Response::new(pb::BidResponse {
            table: Some(acted.table),
            replayed: acted.replayed,
        }))
    }

    async fn call(
        &self,
        request: Request<pb::CallRequest>,
    ) -> Result<Response<pb::CallResponse>, Status> {
        let (caller, r) = caller_and_message(request)?;
        let acted = self
            .decide(
                &caller,
                "Call",
                YesOrNo::Call,
                &r.table_id,
                &r.request_id,
                r.call,
            )
            .await?;
        Ok(Response::new(pb::CallResponse {
            table: Some(acted.table),
            replayed: acted.replayed,
        }))
    }

    async fn rob(
        &self,
        request: Request<pb::RobRequest>,
    ) -> Result<Response<pb::RobResponse>, Status> {
        let (caller, r) = caller_and_message(request)?;
        let acted = self
            .decide(
                &caller,
                "Rob",
                YesOrNo::Rob,
                &r.table_id,
                &r.request_id,
                r.rob,
            )
            .await?;
        Ok(Response::new(pb::RobResponse {
            table: Some(acted.table),
            replayed: acted.replayed,
        }))
    }

    async fn double(
        &self,
        request: Request<pb::DoubleRequest>,
    ) -> Result<Response<pb::DoubleResponse>, Status> {
        let (caller, r) = caller_and_message(request)?;
        let acted = self
            .decide(
                &caller,
                "Double",
                YesOrNo::Double,
                &r.table_id,
                &r.request_id,
                r.double,
            )
            .await?;
        Ok(Response::new(pb::DoubleResponse {
            table: Some(acted.table),
            replayed: acted.replayed,
        }))
    }

    async fn show(
        &self,
        request: Request<pb::ShowRequest>,
    ) -> Result<Response<pb::ShowResponse>, Status> {
        let (caller, r) = caller_and_message(request)?;
        let acted = self
            .decide(
                &caller,
                "Show",
                YesOrNo::Show,
                &r.table_id,
                &r.request_id,
                r.show,
            )
            .await?;
        Ok(Response::new(pb::ShowResponse {
            table: Some(acted.table),
            replayed: acted.replayed,
        }))
    }

    async fn play(
        &self,
        request: Request<pb::PlayRequest>,
    ) -> Result<Response<pb::PlayResponse>, Status> {
        let (caller, r) = caller_and_message(request)?;
        let cards = parse::play(&r.ranks, &r.cards).map_err(ApiError::from)?;
        let meant = parse::meant(&r.meant).map_err(ApiError::from)?;
        let acted = self
            .act(
                &caller,
                "Play",
                &r.table_id,
                &r.request_id,
                |table, seat, now, timing| {
                    Ok((
                        table.play(seat, &cards, meant.as_ref(), now, timing)?,
                        false,
                    ))
                },
            )
            .await?;
        Ok(Response::new(pb::PlayResponse {
            table: Some(acted.table),
            replayed: acted.replayed,
        }))
    }

    async fn pass(
        &self,
        request: Request<pb::PassRequest>,
    ) -> Result<Response<pb::PassResponse>, Status> {
        let (caller, r) = caller_and_message(request)?;
        let acted = self
            .act(
                &caller,
                "Pass",
                &r.table_id,
                &r.request_id,
                |table, seat, now, timing| Ok((table.pass(seat, now, timing)?, false)),
            )
            .await?;
        Ok(Response::new(pb::PassResponse {
            table: Some(acted.table),
            replayed: acted.replayed,
        }))
    }

    async fn hint(
        &self,
        request: Request<pb::HintRequest>,
    ) -> Result<Response<pb::HintResponse>, Status> {
        let (caller, message) = caller_and_message(request)?;
        Ok(Response::new(self.hint(&caller, &message).await?))
    }

    async fn set_auto_play(
        &self,
        request: Request<pb::SetAutoPlayRequest>,
    ) -> Result<Response<pb::SetAutoPlayResponse>, Status> {
        let (caller, r) = caller_and_message(request)?;
        let acted = self
            .act(
                &caller,
                "SetAutoPlay",
                &r.table_id,
                &r.request_id,
                |table, seat, now, timing| {
                    Ok((table.set_auto_play(seat, r.on, now, timing)?, false))
                },
            )
            .await?;
        Ok(Response::new(pb::SetAutoPlayResponse {
            table: Some(acted.table),
            replayed: acted.replayed,
        }))
    }

    async fn leave(
        &self,
        request: Request<pb::LeaveRequest>,
    ) -> Result<Response<pb::LeaveResponse>, Status> {
        let (caller, r) = caller_and_message(request)?;
        let leave = |table: &mut Table, seat, now, timing| table.leave(seat, now, timing);
        let acted = match caller.role {
            // Matchmaking leaves for a player at a friends' table.
            Role::Service if !r.player_id.is_empty() => {
                let player = gamehub_platform::error::id(
                    "player_id",
                    &r.player_id,
                    gamehub_platform::auth::MAX_SUBJECT_LEN,
                )?;
                let table_id = parse::table_id(&r.table_id).map_err(ApiError::from)?;
                let (table, _, _) = self.load(&table_id).await?;
                if caller.subject != gamehub_platform::auth::MATCHMAKING_SUBJECT
                    || !table.friends_table
                {
                    return Err(ApiError::PermissionDenied(
                        "player_id: only matchmaking leaves for a player, and only at a friends' table"
                            .into(),
                    )
                    .into());
                }
                self.act_for(player, &r.table_id, &r.request_id, leave)
                    .await?
            }
            _ => {
                if !r.player_id.is_empty()
                    && gamehub_platform::error::id(
                        "player_id",
                        &r.player_id,
                        gamehub_platform::auth::MAX_SUBJECT_LEN,
                    )? != caller.subject
                {
                    return Err(ApiError::PermissionDenied(
                        "player_id: a player leaves only its own seat; leave it empty".into(),
                    )
                    .into());
                }
                self.act(&caller, "Leave", &r.table_id, &r.request_id, leave)
                    .await?
            }
        };
        Ok(Response::new(pb::LeaveResponse {
            table: Some(acted.table),
            replayed: acted.replayed,
            escaped: acted.flag,
        }))
    }

    async fn next_deal(
        &self,
        request: Request<pb::NextDealRequest>,
    ) -> Result<Response<pb::NextDealResponse>, Status> {
        let (caller, r) = caller_and_message(request)?;
        // Every field is checked before the eligibility check reads the table.
        parse::request_id(&r.request_id).map_err(ApiError::from)?;
        self.ensure_may_play_next(&caller, &r.table_id).await?;
        let acted = self
            .act(
                &caller,
                "NextDeal",
                &r.table_id,
                &r.request_id,
                |table, seat, now, _timing| Ok((table.ready(seat, now)?, false)),
            )
            .await?;
        Ok(Response::new(pb::NextDealResponse {
            table: Some(acted.table),
            replayed: acted.replayed,
        }))
    }

    type WatchStream = WatchStream;

    async fn watch(
        &self,
        request: Request<pb::WatchRequest>,
    ) -> Result<Response<WatchStream>, Status> {
        let (caller, r) = caller_and_message(request)?;
        let table_id = parse::table_id(&r.table_id).map_err(ApiError::from)?;
        let (table, _, _) = self.load(&table_id).await?;
        Ok(Response::new(self.watch_stream(&caller, &r, &table)?))
    }

    /// Any authenticated caller lists a room's tables.
    async fn list_tables(
        &self,
        request: Request<pb::ListTablesRequest>,
    ) -> Result<Response<pb::ListTablesResponse>, Status> {
        let (_caller, m) = caller_and_message(request)?;
        let page = PageRequest::parse(&m.room_id, m.page_size, &m.page_token)?;
        let listed = self
            .store()
            .list_tables(&page, |t: ListedTable<Table>| view::summary(&t.state))
            .await?;
        Ok(Response::new(pb::ListTablesResponse {
            tables: listed.tables,
            next_page_token: listed.next_page_token,
        }))
    }

    async fn get_deal_record(
        &self,
        request: Request<pb::GetDealRecordRequest>,
    ) -> Result<Response<pb::GetDealRecordResponse>, Status> {
        let (_caller, message) = caller_and_message(request)?;
        Ok(Response::new(self.get_deal_record(&message).await?))
    }
}

/// The sweeper's handler: re-judges due tables.
#[derive(Debug, Clone)]
pub struct ClockHandler {
    pub dealer: Dealer,
}

impl DeadlineHandler for ClockHandler {
    async fn on_deadline(&self, table_id: String, now_ms: u64) {
        if let Err(e) = self.dealer.on_deadline(&table_id, now_ms).await {
            tracing::warn!(table_id, error = %e, "deadline handling failed; the next sweep retries");
        }
    }
}
