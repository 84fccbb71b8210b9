//! The gRPC adapter: [`Referee`] implements `GomokuService` over the table store.
//!
//! Each mutating call is one `TableStore::update`: load the table, find the caller's
//! seat, let [`TableState::act`] judge (the rules are in `gomoku_rules`), and commit
//! the new state, its events, the next deadline and any settlement in one atomic step.
//! The clock side ([`Referee::apply_clock`]) serves the deadline sweeper and late
//! actions; [`Referee::note_settlement`] serves the settler's acknowledgement.
//!
//! Every step is committed the same way (`Referee::change`): the table's events as
//! [`view`] shows them, the settlement [`settle`] builds for a game the step ended, the
//! next deadline; the record of that game then goes to the [`Archive`].

use std::pin::Pin;
use std::sync::Arc;

use futures::{Stream, StreamExt};
use gamehub_platform::client::ServiceChannel;
use gamehub_platform::game_api::{
    Opened, Watched, caller_and_message, decode_watched, open_once, player_request_key,
};
use gamehub_platform::server::Shutdown;
use gamehub_platform::tables::dead_letters::{CloseTableFn, ClosedTable};
use gamehub_platform::tables::hub::{EventHub, Watcher};
use gamehub_platform::tables::listing::{ListedTable, Listing, PageRequest};
use gamehub_platform::tables::settler::{Acknowledgement, OnSettled};
use gamehub_platform::tables::sweeper::DeadlineHandler;
use gamehub_platform::tables::{Change, NewEvent, OutboxEntry, TableStore, Updated};
use gamehub_platform::{ApiError, Caller, Role};
use gamehub_proto::gomoku as pb;
use gamehub_proto::gomoku::gomoku_service_server::GomokuService;
use gamehub_proto::ledger::ledger_service_client::LedgerServiceClient;
use gomoku_rules::{Action, Record, RuleSet, Seat};
use prost::Message;
use sha2::Digest;
use tonic::{Request, Response, Status};

use crate::error::RefereeError;
use crate::record::{self, Archive};
use crate::table::{Outcome, PlayerAction, Step, TableState};
use crate::view::Known;
use crate::{parse, settle, view};

/// The Gomoku referee's gRPC service. Cheap to clone; holds no table between calls.
#[derive(Clone)]
pub struct Referee {
    /// Live tables in Redis.
    store: TableStore,
    /// Finished games' records, beside their tables.
    archive: Archive,
    /// Watch streams.
    hub: EventHub,
    /// The ledger, asked before a player's next game whether it may play one.
    ledger: LedgerServiceClient<ServiceChannel>,
    /// How long a table waits between games before it closes.
    between_games_ms: u64,
    /// How long into its turn a bot seat of a table opened here moves.
    bot_move_ms: u64,
    /// Ends watch streams when the process stops.
    shutdown: Shutdown,
}

impl std::fmt::Debug for Referee {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Referee")
            .field("between_games_ms", &self.between_games_ms)
            .finish_non_exhaustive()
    }
}

/// What a player's action returns.
struct Acted {
    table: pb::Table,
    replayed: bool,
    outcome: Outcome,
}

/// The table id derived from who opened it and its request id, so a retried
/// OpenTable lands on the same table: `gt-` and 24 hex digits of a SHA-256.
pub fn derive_table_id(opener: &str, request_id: &str) -> String {
    let digest = sha2::Sha256::digest(format!("gomoku-table\n{opener}\n{request_id}"));
    format!("gt-{}", &hex::encode(digest)[..24])
}

impl Referee {
    /// A referee over `store`, streaming through `hub`.
    pub fn new(
        store: TableStore,
        hub: EventHub,
        ledger: LedgerServiceClient<ServiceChannel>,
        between_games_ms: u64,
        bot_move_ms: u64,
        shutdown: Shutdown,
    ) -> Self {
        Self {
            archive: Archive::new(store.clone()),
            store,
            hub,
            ledger,
            between_games_ms,
            bot_move_ms,
            shutdown,
        }
    }

    /// Now, by the service's clock (the store's): the time of every step and view.
    fn now_ms(&self) -> u64 {
        self.store.clock().now_ms()
    }

    /// The store step for `state` after `step`, a transition made at `now_ms`: its
    /// events as the API shows them (every watcher sees every event), the next
    /// deadline, the settlement of a game the step ended, and the close.
    fn change<T>(state: &TableState, step: Step, output: T, now_ms: u64) -> Change<T> {
        Change {
            events: step
                .events
                .iter()
                .map(|e| NewEvent::public(view::event(state, e).encode_to_vec()))
                .collect(),
            deadline_ms: state.deadline_ms(),
            settlement: settle::request(state, &step)
                .map(|request| settle::outbox_entry(&request, now_ms)),
            close: state.is_closed(),
            output,
        }
    }

    async fn load(&self, table_id: &str) -> Result<(TableState, u64), ApiError> {
        let loaded = self
            .store
            .load::<TableState>(table_id)
            .await?
            .ok_or_else(|| RefereeError::UnknownTable(table_id.to_owned()))?;
        Ok((loaded.state, loaded.last_seq))
    }

    fn viewer(state: &TableState, caller: &Caller) -> Option<Seat> {
        match caller.role {
            Role::Player => state.seat_of(&caller.subject),
            Role::Service | Role::Operator => None,
        }
    }

    /// The table as `caller` sees it now.
    async fn view(&self, caller: &Caller, table_id: &str) -> Result<pb::Table, ApiError> {
        self.view_for(caller, table_id, Known::NOTHING).await
    }

    /// [`Self::view`] without the stones the caller said it holds.
    async fn view_for(
        &self,
        caller: &Caller,
        table_id: &str,
        known: Known,
    ) -> Result<pb::Table, ApiError> {
        let (state, last_seq) = self.load(table_id).await?;
        Ok(view::table_for(
            &state,
            Self::viewer(&state, caller),
            last_seq,
            self.now_ms(),
            known,
        ))
    }

    /// Opens a table (service callers only).
    async fn open_table(
        &self,
        caller: &Caller,
        request: &pb::OpenTableRequest,
    ) -> Result<pb::OpenTableResponse, ApiError> {
        caller.require(&[Role::Service], "OpenTable")?;
        let open = parse::open_table(request)?;
        let table_id = derive_table_id(&caller.subject, &open.request_id);
        let request_key = format!("open:{}", open.request_id);
        let now = self.now_ms();
        let (state, step) =
            TableState::open(&table_id, &open, now, rand::random(), self.bot_move_ms);
        let change = Self::change(&state, step, (), now);
        // Friends' tables are not listed.
        let listing = Listing::new(open.room.stakes.room_id.as_str(), !open.friends_table);
        match open_once(
            &self.store,
            &table_id,
            &state,
            change,
            &request_key,
            listing,
        )
        .await?
        {
            Opened::Created { last_seq } => {
                tracing::info!(table_id, room = %open.room.stakes.room_id, "table opened");
                Ok(pb::OpenTableResponse {
                    table: Some(view::table(&state, None, last_seq, now)),
                    table_id,
                    replayed: false,
                })
            }
            Opened::Existing(existing) => {
                let existing =
                    existing.ok_or_else(|| RefereeError::UnknownTable(table_id.clone()))?;
                if !existing.state.opened_by(&open) {
                    return Err(RefereeError::RequestReused(open.request_id).into());
                }
                Ok(pb::OpenTableResponse {
                    table: Some(view::table(
                        &existing.state,
                        None,
                        existing.last_seq,
                        self.now_ms(),
                    )),
                    table_id,
                    replayed: true,
                })
            }
        }
    }

    /// A player asking for the next game must still be allowed to play one today (no
    /// game once a daily cap is reached, nor below the room's minimum balance), judged
    /// once the ledger has the game that just ended (`settling:` until then). Asked only
    /// while the table is between games and the caller sits at it; anything else is for
    /// the rules to refuse (or a retry of a request already applied).
    async fn ensure_may_play_next(&self, caller: &Caller, table_id: &str) -> Result<(), ApiError> {
        if caller.role != Role::Player {
            return Ok(());
        }
        let table_id = parse::table_id(table_id)?;
        let (state, _) = self.load(&table_id).await?;
        if !state.is_between_games() || state.seat_of(&caller.subject).is_none() {
            return Ok(());
        }
        self.may_play_next(&table_id, &state, &caller.subject).await
    }

    /// The ledger's word on whether `player` may play the game after the last one of
    /// `state` (waiting for that game's settlement first).
    async fn may_play_next(
        &self,
        table_id: &str,
        state: &TableState,
        player: &str,
    ) -> Result<(), ApiError> {
        gamehub_platform::eligibility::ensure_may_play_next(
            &self.store,
            &self.ledger,
            table_id,
            &state.game_id(state.number),
            player,
            view::stakes(&state.room),
        )
        .await
    }

    /// Whether a player leaving between the two games of a pair is excused from the
    /// second: the ledger (asked as NextGame asks it) no longer lets it, or its
    /// opponent, play today, so the second game cannot be played and leaving is not an
    /// escape. Anywhere else there is nothing to excuse. A ledger that
    /// cannot answer, or has not yet settled the first game, excuses nobody: a player
    /// refused by NextGame (`not_eligible`) knows it may leave.
    async fn excused_from_second_game(
        &self,
        caller: &Caller,
        table_id: &str,
    ) -> Result<bool, ApiError> {
        if caller.role != Role::Player {
            return Ok(false);
        }
        let table_id = parse::table_id(table_id)?;
        let (state, _) = self.load(&table_id).await?;
        if !state.owes_second_game() || state.seat_of(&caller.subject).is_none() {
            return Ok(false);
        }
        // Either player refused makes the second game impossible: the leaver is excused
        // whether the ledger stops it or its opponent.
        for player in &state.players {
            let verdict = self.may_play_next(&table_id, &state, player).await;
            if matches!(verdict, Err(ApiError::FailedPrecondition(_))) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Applies a seated player's action as one atomic step.
    async fn act(
        &self,
        caller: &Caller,
        table_id: &str,
        request_id: &str,
        action: PlayerAction,
        rpc: &'static str,
    ) -> Result<Acted, ApiError> {
        self.act_known(caller, table_id, request_id, action, rpc, Known::NOTHING)
            .await
    }

    /// [`Self::act`], answering without the stones the caller said it holds.
    async fn act_known(
        &self,
        caller: &Caller,
        table_id: &str,
        request_id: &str,
        action: PlayerAction,
        rpc: &'static str,
        known: Known,
    ) -> Result<Acted, ApiError> {
        if caller.role != Role::Player {
            return Err(RefereeError::PlayersOnly {
                action: rpc,
                role: caller.role.as_str(),
            }
            .into());
        }
        let table_id = parse::table_id(table_id)?;
        let request_id = parse::request_id(request_id)?;
        let request_key = player_request_key(&caller.subject, &request_id);
        // A late action loses on time first; a late Leave then leaves the finished game.
        let mut tries = if matches!(action, PlayerAction::Leave | PlayerAction::LeaveExcused) {
            2
        } else {
            1
        };
        loop {
            tries -= 1;
            let now = self.now_ms();
            let mut expired = false;
            let updated = self
                .store
                .update(
                    &table_id,
                    Some(&request_key),
                    |state: &mut TableState, _version| {
                        let seat = state.seat_of(&caller.subject).ok_or_else(|| {
                            RefereeError::NotSeated {
                                player: caller.subject.clone(),
                                table_id: state.table_id.clone(),
                            }
                        })?;
                        // Nobody acts for a bot seat, but it may be made to leave
                        // (the friends' table's owner removes it).
                        let leaving =
                            matches!(action, PlayerAction::Leave | PlayerAction::LeaveExcused);
                        if state.is_bot(seat) && !leaving {
                            return Err(RefereeError::BotSeat {
                                seat: seat.number(),
                                table_id: state.table_id.clone(),
                            }
                            .into());
                        }
                        let (step, outcome) = state
                            .act(seat, action, now, self.between_games_ms)
                            .inspect_err(|e| {
                            expired = matches!(e, RefereeError::TimeExpired)
                        })?;
                        let table = view::table_for(state, Some(seat), 0, now, known);
                        let record = record::ended(state, &step);
                        Ok(Self::change(state, step, (table, outcome, record), now))
                    },
                )
                .await;
            match updated {
                Ok(Updated::Applied {
                    last_seq,
                    output: (mut table, outcome, record),
                    ..
                }) => {
                    self.keep_record(&table_id, record).await;
                    table.last_event_id = last_seq;
                    return Ok(Acted {
                        table,
                        replayed: false,
                        outcome,
                    });
                }
                Ok(Updated::Duplicate { .. }) => {
                    return Ok(Acted {
                        table: self.view_for(caller, &table_id, known).await?,
                        replayed: true,
                        outcome: Outcome::default(),
                    });
                }
                Err(e) if expired => {
                    self.apply_clock(&table_id, self.now_ms()).await?;
                    if tries == 0 {
                        return Err(e);
                    }
                }
                Err(ApiError::NotFound(_)) => {
                    return Err(RefereeError::UnknownTable(table_id).into());
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Applies whatever the clock says is due at `now_ms` (a loss on time, closing a
    /// table nobody restarted, or a bot seat's move) in one atomic step; when nothing is
    /// due, puts the deadline index right. Returns whether something was applied.
    pub async fn apply_clock(&self, table_id: &str, now_ms: u64) -> Result<bool, ApiError> {
        let mut not_due = None;
        let updated = self
            .store
            .update(table_id, None, |state: &mut TableState, version| {
                not_due = None;
                // The bot's move is no timeout; a lost clock (even the bot's) is.
                let timeout = state.is_between_games()
                    || state.game.deadline_ms().is_some_and(|d| now_ms >= d);
                match state.on_clock(now_ms, self.between_games_ms) {
                    Some(step) => {
                        let record = record::ended(state, &step);
                        Ok(Self::change(state, step, (record, timeout), now_ms))
                    }
                    None => {
                        not_due = Some((version, state.deadline_ms()));
                        Err(ApiError::FailedPrecondition("nothing due".into()))
                    }
                }
            })
            .await;
        match updated {
            Ok(Updated::Applied {
                output: (record, timeout),
                ..
            }) => {
                self.keep_record(table_id, record).await;
                if timeout {
                    gamehub_platform::metrics::metrics()
                        .timeouts_applied
                        .with_label_values(&["gomoku"])
                        .inc();
                    tracing::info!(table_id, "clock deadline applied");
                } else {
                    tracing::debug!(table_id, "the bot moved");
                }
                Ok(true)
            }
            Ok(Updated::Duplicate { .. }) => Ok(false),
            Err(ApiError::NotFound(_)) => {
                // The table expired: drop its stale index entry.
                self.store.reschedule(table_id, 0, None).await?;
                Ok(false)
            }
            Err(e) => match not_due {
                Some((version, deadline)) => {
                    self.store.reschedule(table_id, version, deadline).await?;
                    Ok(false)
                }
                None => Err(e),
            },
        }
    }

    /// Notes the ledger's answer for a finished game at its table and tells the
    /// watchers (a `game_settled` event). Idempotent: replicas may both report it.
    /// Notes the ledger's answer at the table. Fails only when the table could not be
    /// reached (Redis), so that the settler delivers again; a game no longer kept or
    /// noted before is done.
    pub async fn note_settlement(
        &self,
        table_id: &str,
        acknowledgement: &Acknowledgement,
    ) -> Result<(), ApiError> {
        let response = &acknowledgement.response;
        let request_key = format!("settled:{}", response.game_id);
        let now = self.now_ms();
        let updated = self
            .store
            .update(
                table_id,
                Some(&request_key),
                |state: &mut TableState, _version| {
                    let seats = settle::seats_settled(state, response);
                    let step = state
                        .settled(&response.game_id, seats, acknowledgement.adopted, now)
                        .ok_or_else(|| {
                            ApiError::FailedPrecondition("game not kept or already noted".into())
                        })?;
                    Ok(Self::change(state, step, (), now))
                },
            )
            .await;
        match updated {
            Ok(_) => Ok(()),
            Err(e) if e.code() == tonic::Code::Unavailable => Err(e),
            Err(e) => {
                tracing::debug!(table_id, game_id = %response.game_id, error = %e, "settlement not noted at the table");
                Ok(())
            }
        }
    }

    /// Keeps the record of a game a step ended beside its table (see [`Archive`]).
    async fn keep_record(&self, table_id: &str, record: Option<(String, String)>) {
        if let Some((game_id, text)) = record {
            self.archive.keep(table_id, &game_id, &text).await;
        }
    }

    /// The operator's close (`TableOperatorService.CloseTable`): this referee's
    /// closing step for a stuck table, voiding a game in progress.
    pub fn closer(&self) -> CloseTableFn {
        let referee = self.clone();
        Arc::new(move |table_id: String, reason: String| {
            let referee = referee.clone();
            Box::pin(async move { referee.close_by_operator(&table_id, &reason).await })
        })
    }

    async fn close_by_operator(
        &self,
        table_id: &str,
        reason: &str,
    ) -> Result<ClosedTable, ApiError> {
        let table_id = parse::table_id(table_id)?;
        let (state, _) = self.load(&table_id).await?;
        if state.is_closed() {
            return Ok(ClosedTable {
                already_closed: true,
                voided_game_id: None,
                closed_reason: state.closed_reason,
            });
        }
        let now = self.now_ms();
        let updated = self
            .store
            .update(&table_id, None, |state: &mut TableState, _version| {
                let already_closed = state.is_closed();
                let (step, voided_game_id) = state.close_by_operator(reason, now);
                let closed = ClosedTable {
                    already_closed,
                    voided_game_id,
                    closed_reason: state.closed_reason.clone(),
                };
                Ok(Self::change(state, step, closed, now))
            })
            .await?;
        match updated {
            Updated::Applied { output, .. } => Ok(output),
            Updated::Duplicate { .. } => Err(ApiError::internal(anyhow::anyhow!(
                "an operator's close has no request key and cannot be a duplicate"
            ))),
        }
    }

    /// The callback the settler calls after the ledger acknowledged a game.
    pub fn on_settled(&self) -> OnSettled {
        let referee = self.clone();
        Arc::new(
            move |entry: OutboxEntry, acknowledgement: Acknowledgement| {
                let referee = referee.clone();
                Box::pin(async move {
                    referee
                        .note_settlement(&entry.table_id, &acknowledgement)
                        .await
                })
            },
        )
    }

    /// LoadRecord's work, apart from the call: reads a text or PSQ record a client sent,
    /// replays it through the rules and returns what the client steps through; a record
    /// that does not read or replay is INVALID_ARGUMENT naming `content`. Needs no table
    /// or connection (public for the fuzz targets in `fuzz/`).
    pub fn load_record(
        request: &pb::LoadRecordRequest,
    ) -> Result<pb::LoadRecordResponse, ApiError> {
        let format = parse::record_format(request.format)?;
        let record = match format {
            pb::RecordFormat::Psq => {
                let rule_set = if request.rule_set == 0 {
                    RuleSet::Freestyle
                } else {
                    parse::rule_set("rule_set", request.rule_set)?
                };
                Record::from_psq(&request.content, rule_set)
            }
            _ => Record::from_text(&request.content),
        }
        .map_err(|e| RefereeError::invalid("content", e))?;
        Ok(view::loaded_record(&record))
    }
}

impl DeadlineHandler for Referee {
    async fn on_deadline(&self, table_id: String, now_ms: u64) {
        if let Err(e) = self.apply_clock(&table_id, now_ms).await {
            tracing::warn!(table_id, error = %e, "deadline not applied; the next sweep retries");
        }
    }
}

type WatchStream = Pin<Box<dyn Stream<Item = Result<pb::WatchResponse, Status>> + Send>>;

#[tonic::async_trait]
impl GomokuService for Referee {
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
        let table_id = parse::table_id(&message.table_id).map_err(ApiError::from)?;
        let table = self.view(&caller, &table_id).await?;
        Ok(Response::new(pb::GetTableResponse { table: Some(table) }))
    }

    async fn place_stone(
        &self,
        request: Request<pb::PlaceStoneRequest>,
    ) -> Result<Response<pb::PlaceStoneResponse>, Status> {
        let (caller, m) = caller_and_message(request)?;
        let point = parse::point("point", m.point.as_ref()).map_err(ApiError::from)?;
        let action = PlayerAction::Game(Action::Place(point));
        let acted = self
            .act_known(
                &caller,
                &m.table_id,
                &m.request_id,
                action,
                "PlaceStone",
                Known {
                    game: m.known_game,
                    stones: m.known_stones,
                },
            )
            .await?;
        Ok(Response::new(pb::PlaceStoneResponse {
            table: Some(acted.table),
            replayed: acted.replayed,
        }))
    }

    async fn claim_forbidden(
        &self,
        request: Request<pb::ClaimForbiddenRequest>,
    ) -> Result<Response<pb::ClaimForbiddenResponse>, Status> {
        let (caller, m) = caller_and_message(request)?;
        let action = PlayerAction::Game(Action::ClaimForbidden);
        let acted = self
            .act(
                &caller,
                &m.table_id,
                &m.request_id,
                action,
                "ClaimForbidden",
            )
            .await?;
        Ok(Response::new(pb::ClaimForbiddenResponse {
            table: Some(acted.table),
            replayed: acted.replayed,
            upheld: acted.outcome.claim_upheld,
        }))
    }

    async fn resign(
        &self,
        request: Request<pb::ResignRequest>,
    ) -> Result<Response<pb::ResignResponse>, Status> {
        let (caller, m) = caller_and_message(request)?;
        let action = PlayerAction::Game(Action::Resign);
        let acted = self
            .act(&caller, &m.table_id, &m.request_id, action, "Resign")
            .await?;
        Ok(Response::new(pb::ResignResponse {
            table: Some(acted.table),
            replayed: acted.replayed,
        }))
    }

    async fn offer_draw(
        &self,
        request: Request<pb::OfferDrawRequest>,
    ) -> Result<Response<pb::OfferDrawResponse>, Status> {
        let (caller, m) = caller_and_message(request)?;
        let action = PlayerAction::Game(Action::OfferDraw);
        let acted = self
            .act(&caller, &m.table_id, &m.request_id, action, "OfferDraw")
            .await?;
        Ok(Response::new(pb::OfferDrawResponse {
            table: Some(acted.table),
            replayed: acted.replayed,
        }))
    }

    async fn answer_draw(
        &self,
        request: Request<pb::AnswerDrawRequest>,
    ) -> Result<Response<pb::AnswerDrawResponse>, Status> {
        let (caller, m) = caller_and_message(request)?;
        let action = PlayerAction::Game(if m.accept {
            Action::AcceptDraw
        } else {
            Action::DeclineDraw
        });
        let acted = self
            .act(&caller, &m.table_id, &m.request_id, action, "AnswerDraw")
            .await?;
        Ok(Response::new(pb::AnswerDrawResponse {
            table: Some(acted.table),
            replayed: acted.replayed,
        }))
    }

    async fn swap(
        &self,
        request: Request<pb::SwapRequest>,
    ) -> Result<Response<pb::SwapResponse>, Status> {
        let (caller, m) = caller_and_message(request)?;
        let action = PlayerAction::Game(Action::Swap);
        let acted = self
            .act(&caller, &m.table_id, &m.request_id, action, "Swap")
            .await?;
        Ok(Response::new(pb::SwapResponse {
            table: Some(acted.table),
            replayed: acted.replayed,
        }))
    }

    async fn propose_fifth_moves(
        &self,
        request: Request<pb::ProposeFifthMovesRequest>,
    ) -> Result<Response<pb::ProposeFifthMovesResponse>, Status> {
        let (caller, m) = caller_and_message(request)?;
        let [a, b] = parse::proposals(&m.points).map_err(ApiError::from)?;
        let action = PlayerAction::Game(Action::ProposeFifth(a, b));
        let acted = self
            .act(
                &caller,
                &m.table_id,
                &m.request_id,
                action,
                "ProposeFifthMoves",
            )
            .await?;
        Ok(Response::new(pb::ProposeFifthMovesResponse {
            table: Some(acted.table),
            replayed: acted.replayed,
        }))
    }

    async fn choose_fifth_move(
        &self,
        request: Request<pb::ChooseFifthMoveRequest>,
    ) -> Result<Response<pb::ChooseFifthMoveResponse>, Status> {
        let (caller, m) = caller_and_message(request)?;
        let point = parse::point("point", m.point.as_ref()).map_err(ApiError::from)?;
        let action = PlayerAction::Game(Action::ChooseFifth(point));
        let acted = self
            .act(
                &caller,
                &m.table_id,
                &m.request_id,
                action,
                "ChooseFifthMove",
            )
            .await?;
        Ok(Response::new(pb::ChooseFifthMoveResponse {
            table: Some(acted.table),
            replayed: acted.replayed,
        }))
    }

    async fn leave(
        &self,
        request: Request<pb::LeaveRequest>,
    ) -> Result<Response<pb::LeaveResponse>, Status> {
        let (caller, m) = caller_and_message(request)?;
        parse::request_id(&m.request_id).map_err(ApiError::from)?;
        // Matchmaking leaves for a player at a friends' table: the service acts as that
        // player here (and only here); a player names only itself.
        let caller = if m.player_id.is_empty() {
            caller
        } else if caller.role == Role::Service {
            let player = gamehub_platform::error::id(
                "player_id",
                &m.player_id,
                gamehub_platform::auth::MAX_SUBJECT_LEN,
            )?;
            let table_id = parse::table_id(&m.table_id).map_err(ApiError::from)?;
            let (state, _) = self.load(&table_id).await?;
            if caller.subject != gamehub_platform::auth::MATCHMAKING_SUBJECT || !state.friends_table
            {
                return Err(ApiError::PermissionDenied(
                    "player_id: only matchmaking leaves for a player, and only at a friends' table"
                        .into(),
                )
                .into());
            }
            Caller {
                subject: player.to_owned(),
                role: Role::Player,
            }
        } else if gamehub_platform::error::id(
            "player_id",
            &m.player_id,
            gamehub_platform::auth::MAX_SUBJECT_LEN,
        )? == caller.subject
        {
            caller
        } else {
            return Err(ApiError::PermissionDenied(
                "player_id: a player leaves only its own seat; leave it empty".into(),
            )
            .into());
        };
        let action = if self.excused_from_second_game(&caller, &m.table_id).await? {
            PlayerAction::LeaveExcused
        } else {
            PlayerAction::Leave
        };
        let acted = self
            .act(&caller, &m.table_id, &m.request_id, action, "Leave")
            .await?;
        Ok(Response::new(pb::LeaveResponse {
            table: Some(acted.table),
            replayed: acted.replayed,
            escaped: acted.outcome.escaped,
        }))
    }

    async fn next_game(
        &self,
        request: Request<pb::NextGameRequest>,
    ) -> Result<Response<pb::NextGameResponse>, Status> {
        let (caller, m) = caller_and_message(request)?;
        // Every field is checked before the eligibility check reads the table.
        parse::request_id(&m.request_id).map_err(ApiError::from)?;
        self.ensure_may_play_next(&caller, &m.table_id).await?;
        let acted = self
            .act(
                &caller,
                &m.table_id,
                &m.request_id,
                PlayerAction::NextGame,
                "NextGame",
            )
            .await?;
        Ok(Response::new(pb::NextGameResponse {
            table: Some(acted.table),
            replayed: acted.replayed,
            started: acted.outcome.started,
        }))
    }

    type WatchStream = WatchStream;

    async fn watch(
        &self,
        request: Request<pb::WatchRequest>,
    ) -> Result<Response<Self::WatchStream>, Status> {
        let (caller, message) = caller_and_message(request)?;
        let table_id = parse::table_id(&message.table_id).map_err(ApiError::from)?;
        let (state, _) = self.load(&table_id).await?;
        let seat = Self::viewer(&state, &caller);
        let resume = (message.after_event_id > 0).then_some(message.after_event_id);
        // A seated player's stream takes a place kept for its seat.
        let watcher = Watcher {
            caller: caller.subject.clone(),
            seated: seat.map(Seat::number),
            sees_as: seat.map(Seat::number),
        };
        let items = self
            .hub
            .watch(table_id, &watcher, resume, self.shutdown.listener())?;
        let clock = self.store.clock().clone();
        let stream = items.map(move |item| {
            let item = match decode_watched::<TableState, pb::TableEvent>(item?)? {
                Watched::Snapshot { seq, state } => {
                    pb::watch_response::Item::Table(view::table(&state, seat, seq, clock.now_ms()))
                }
                Watched::Event { seq, mut event } => {
                    event.event_id = seq;
                    pb::watch_response::Item::Event(event)
                }
            };
            Ok::<_, Status>(pb::WatchResponse { item: Some(item) })
        });
        Ok(Response::new(Box::pin(stream)))
    }

    async fn get_record(
        &self,
        request: Request<pb::GetRecordRequest>,
    ) -> Result<Response<pb::GetRecordResponse>, Status> {
        let message = request.into_inner();
        let table_id = parse::table_id(&message.table_id).map_err(ApiError::from)?;
        let (state, _) = self.load(&table_id).await?;
        let number = parse::game_number(message.game_number).map_err(ApiError::from)?;
        let (finished, record, _) = self.archive.get(&state, number).await?;
        Ok(Response::new(view::game_record(&state, &finished, &record)))
    }

    async fn export_record(
        &self,
        request: Request<pb::ExportRecordRequest>,
    ) -> Result<Response<pb::ExportRecordResponse>, Status> {
        let message = request.into_inner();
        let table_id = parse::table_id(&message.table_id).map_err(ApiError::from)?;
        let format = parse::record_format(message.format).map_err(ApiError::from)?;
        let (state, _) = self.load(&table_id).await?;
        let number = parse::game_number(message.game_number).map_err(ApiError::from)?;
        let (finished, record, text) = self.archive.get(&state, number).await?;
        let stem = finished.game_id.replace(':', "-");
        let (content, file_name) = match format {
            pb::RecordFormat::Psq => (record.to_psq(), format!("{stem}.psq")),
            _ => (text, format!("{stem}.txt")),
        };
        Ok(Response::new(pb::ExportRecordResponse {
            format: format as i32,
            content,
            file_name,
        }))
    }

    /// Any authenticated caller lists a room's tables.
    async fn list_tables(
        &self,
        request: Request<pb::ListTablesRequest>,
    ) -> Result<Response<pb::ListTablesResponse>, Status> {
        let (_caller, m) = caller_and_message(request)?;
        let page = PageRequest::parse(&m.room_id, m.page_size, &m.page_token)?;
        let listed = self
            .store
            .list_tables(&page, |t: ListedTable<TableState>| view::summary(&t.state))
            .await?;
        Ok(Response::new(pb::ListTablesResponse {
            tables: listed.tables,
            next_page_token: listed.next_page_token,
        }))
    }

    async fn load_record(
        &self,
        request: Request<pb::LoadRecordRequest>,
    ) -> Result<Response<pb::LoadRecordResponse>, Status> {
        Ok(Response::new(Self::load_record(request.get_ref())?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_ids_are_stable_per_opener_and_request() {
        let a = derive_table_id("matchmaking", "pair-1");
        assert_eq!(a, derive_table_id("matchmaking", "pair-1"));
        assert_ne!(a, derive_table_id("matchmaking", "pair-2"));
        assert_ne!(a, derive_table_id("other", "pair-1"));
        assert_eq!(a.len(), 27);
        assert!(parse::table_id(&a).is_ok());
    }
}
