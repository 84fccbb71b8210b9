//! The gRPC adapter: who may do what, parsing requests into the service's types, and
//! the ticket rules at the API edge (idempotent Enqueue, one live ticket and one seat
//! per player), and where a player is (LocatePlayer).

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use futures::Stream;
use gamehub_platform::error::id;
use gamehub_platform::server::Shutdown;
use gamehub_platform::{ApiError, Caller, Clock};
use gamehub_proto::matchmaking as pb;
use tonic::{Request, Response, Status};

use crate::error::MatchmakingError;
use crate::hub::TicketHub;
use crate::matcher::Matcher;
use crate::peers::{Eligibility, PeerError, TableOpener, TableSeat};
use crate::rooms::{Game, Room, Rooms};
use crate::store::{Cancelled, Created, Reservation, TicketStore};
use crate::tickets::{Ticket, TicketId};
use friends::{Friends, FriendsWatch, seat_via};
use gamehub_terms::RoomId;

pub mod friends;

/// The longest request id.
pub const MAX_REQUEST_ID_LEN: usize = 64;

/// How long a ticketless reservation is honoured. Enqueue reserves the player's live
/// slot, then makes the ticket; one that stops in between (a crash, a dropped call)
/// leaves the slot naming a ticket that does not exist.
#[derive(Clone, Copy, Debug)]
pub struct ReservationTimes {
    /// A retry of that Enqueue finishes the ticket while the reservation is younger.
    finish: Duration,
    /// Another Enqueue frees the slot once the reservation is older.
    stale: Duration,
}

impl ReservationTimes {
    /// Making a ticket takes at most one peer call (the rated rooms' rating) and a Redis
    /// call, so a reservation finished before `peer_timeout` is made before twice that;
    /// freeing it only after twice that and a margin means a finishing Enqueue and one
    /// freeing its slot never both make a live ticket.
    pub fn for_peer_timeout(peer_timeout: Duration) -> Self {
        Self {
            finish: peer_timeout,
            stale: peer_timeout.saturating_mul(2) + Duration::from_secs(5),
        }
    }
}

/// How long ago a ticket id was made (reserved). The id's time is the system clock's
/// (a UUIDv7), and a reservation goes stale by how long real calls take, so this is the
/// one age read from the system clock rather than the service's clock.
fn reservation_age(ticket: &TicketId) -> Duration {
    Duration::from_millis(Clock::system().elapsed_ms(ticket.made_at_ms()))
}

/// The matchmaking API.
#[derive(Clone)]
pub struct MatchmakingApi {
    pub(crate) rooms: Rooms,
    pub(crate) store: TicketStore,
    matcher: Matcher,
    pub(crate) eligibility: Arc<dyn Eligibility>,
    pub(crate) tables: Arc<dyn TableOpener>,
    hub: TicketHub,
    reservations: ReservationTimes,
    pub(crate) shutdown: Shutdown,
    pub(crate) friends: Friends,
}

impl std::fmt::Debug for MatchmakingApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MatchmakingApi").finish_non_exhaustive()
    }
}

type Result<T, E = MatchmakingError> = std::result::Result<T, E>;

impl MatchmakingApi {
    /// The API over these parts.
    pub fn new(
        matcher: Matcher,
        hub: TicketHub,
        reservations: ReservationTimes,
        shutdown: Shutdown,
        friends: Friends,
    ) -> Self {
        Self {
            rooms: matcher.rooms().clone(),
            eligibility: Arc::clone(matcher.eligibility()),
            tables: Arc::clone(matcher.tables()),
            store: matcher.store().clone(),
            matcher,
            hub,
            reservations,
            shutdown,
            friends,
        }
    }

    /// The room a request names, its id checked ([`RoomId`]: at most
    /// [`gamehub_terms::ids::MAX_ROOM_ID_LEN`] characters of a-z, 0-9 and '-') before it is looked up or
    /// quoted.
    pub(crate) fn room(&self, room_id: &str) -> Result<&Arc<Room>> {
        let room_id = RoomId::parse(room_id)
            .map_err(|e| ApiError::InvalidArgument(format!("room_id: {e}")))?;
        self.rooms
            .get(&room_id)
            .ok_or_else(|| MatchmakingError::UnknownRoom(room_id.to_string()))
    }

    fn ticket_id(&self, text: &str) -> Result<TicketId> {
        let text = id("ticket_id", text, crate::tickets::MAX_TICKET_ID_LEN)?;
        TicketId::parse(text, &self.rooms)
            .ok_or_else(|| MatchmakingError::MalformedTicketId(text.to_owned()))
    }

    /// Reads a ticket the caller may see.
    async fn readable_ticket(&self, caller: &Caller, text: &str) -> Result<Ticket> {
        let ticket_id = self.ticket_id(text)?;
        let ticket = self
            .store
            .read(&ticket_id)
            .await?
            .ok_or_else(|| MatchmakingError::UnknownTicket(ticket_id.to_string()))?;
        if !caller.may_act_for(&ticket.player_id) {
            // Another player's ticket is as good as unknown to this caller.
            return Err(MatchmakingError::UnknownTicket(ticket_id.to_string()));
        }
        Ok(ticket)
    }

    async fn list_rooms(&self) -> Result<pb::ListRoomsResponse> {
        let ids: Vec<&str> = self.rooms.iter().map(|r| r.id.as_str()).collect();
        let counts = self.store.waiting_counts(&ids).await?;
        Ok(pb::ListRoomsResponse {
            rooms: self
                .rooms
                .iter()
                .zip(counts)
                .map(|(room, waiting)| room.to_proto(i64::try_from(waiting).unwrap_or(i64::MAX)))
                .collect(),
        })
    }

    async fn enqueue(
        &self,
        caller: &Caller,
        request: pb::EnqueueRequest,
    ) -> Result<pb::EnqueueResponse> {
        let room = Arc::clone(self.room(&request.room_id)?);
        let request_id = id("request_id", &request.request_id, MAX_REQUEST_ID_LEN)?;
        let player = caller.player_or_self(&request.player_id);
        let player = id("player_id", player, gamehub_platform::auth::MAX_SUBJECT_LEN)?.to_owned();
        caller.ensure_acts_for(&player)?;

        // A retry of an earlier Enqueue answers with its ticket, whatever happened since.
        if let Some(response) = self.replay(&room, &player, request_id, None).await? {
            return Ok(response);
        }
        self.ensure_not_seated(&player).await?;
        self.ensure_not_at_friends_table(&player, None).await?;
        self.ensure_eligible(&room, &player).await?;

        for _attempt in 0..3 {
            // Made at each attempt: its id dates the reservation, whose age decides
            // whether a retry may still finish it, and freeing a stale live slot below
            // may first wait on a game service.
            let ticket_id = TicketId::new(&room.id);
            match self.store.reserve(&player, request_id, &ticket_id).await? {
                Reservation::Reserved => {
                    return self
                        .make_ticket(&room, &player, request_id, &ticket_id, false)
                        .await;
                }
                Reservation::Replay(prior) => {
                    if let Some(response) =
                        self.replay(&room, &player, request_id, Some(prior)).await?
                    {
                        return Ok(response);
                    }
                }
                Reservation::Live(live) => self.free_stale_live_slot(&player, &live).await?,
            }
        }
        Err(ApiError::Aborted("the player's tickets changed concurrently; retry".into()).into())
    }

    /// The answer to a retried Enqueue, if `request_id` made a ticket before.
    async fn replay(
        &self,
        room: &Arc<Room>,
        player: &str,
        request_id: &str,
        prior: Option<String>,
    ) -> Result<Option<pb::EnqueueResponse>> {
        let prior = match prior {
            Some(prior) => prior,
            None => match self.store.request_ticket(player, request_id).await? {
                Some(prior) => prior,
                None => return Ok(None),
            },
        };
        let Some(prior_id) = TicketId::parse(&prior, &self.rooms) else {
            return Ok(None);
        };
        if prior_id.room_id() != room.id.as_str() {
            return Err(MatchmakingError::RequestIdReused {
                request_id: request_id.to_owned(),
                ticket_id: prior,
            });
        }
        match self.store.read(&prior_id).await? {
            Some(ticket) => Ok(Some(pb::EnqueueResponse {
                ticket: Some(self.ticket_view(&ticket).await),
                replayed: true,
            })),
            // Reserved, but the Enqueue that reserved it stopped before the ticket was
            // made (or is making it right now): finish it while the reservation is
            // young; making a ticket is idempotent.
            None if reservation_age(&prior_id) < self.reservations.finish => self
                .make_ticket(room, player, request_id, &prior_id, true)
                .await
                .map(Some),
            // An abandoned reservation: another Enqueue may already have freed its live
            // slot as stale and made a ticket of its own, so finishing it now could give
            // the player two live tickets. Give it back and enqueue afresh.
            None => {
                self.store.unreserve(player, request_id, &prior_id).await?;
                Ok(None)
            }
        }
    }

    /// Makes the ticket a reservation is for and queues it.
    async fn make_ticket(
        &self,
        room: &Room,
        player: &str,
        request_id: &str,
        ticket_id: &TicketId,
        replayed: bool,
    ) -> Result<pb::EnqueueResponse> {
        let rating = if room.stakes.rated {
            match self.eligibility.rating(player).await {
                Ok(rating) => rating,
                Err(e) => {
                    if !replayed {
                        self.store.unreserve(player, request_id, ticket_id).await?;
                    }
                    return Err(peer_unavailable("the ledger (for the player's rating)", &e));
                }
            }
        } else {
            0
        };
        let created = self
            .store
            .create(
                ticket_id,
                player,
                request_id,
                rating,
                self.store.clock().now_ms(),
            )
            .await?;
        if created == Created::QueueFull {
            self.store.unreserve(player, request_id, ticket_id).await?;
            return Err(MatchmakingError::QueueFull {
                room: room.id.to_string(),
                max: self.store.settings().max_queue,
            });
        }
        self.matcher.wake(&room.id);
        let ticket = self
            .store
            .read(ticket_id)
            .await?
            .ok_or_else(|| MatchmakingError::UnknownTicket(ticket_id.to_string()))?;
        Ok(pb::EnqueueResponse {
            ticket: Some(ticket.to_proto(self.store.clock().now_ms())),
            replayed,
        })
    }

    /// Refuses while the live slot holds a live ticket; frees it when its ticket ended
    /// or a crashed Enqueue left it pointing at nothing.
    async fn free_stale_live_slot(&self, player: &str, live: &str) -> Result<()> {
        let Some(live_id) = TicketId::parse(live, &self.rooms) else {
            // A ticket of a room that no longer exists.
            return Ok(self.store.clear_live(player, live).await?);
        };
        let refuse = || MatchmakingError::LiveTicket {
            player: player.to_owned(),
            ticket_id: live.to_owned(),
        };
        match self.store.read(&live_id).await? {
            Some(ticket) if ticket.state.is_live() => Err(refuse()),
            Some(Ticket {
                seat: Some(seat), ..
            }) => {
                // The slot still names the ticket that seated the player (slots are
                // freed lazily): the seat must be over first.
                self.ensure_left(player, seat.game, &seat.table_id).await?;
                Ok(self.store.clear_live(player, live).await?)
            }
            Some(_) => Ok(self.store.clear_live(player, live).await?),
            None if reservation_age(&live_id) < self.reservations.stale => Err(refuse()),
            None => Ok(self.store.clear_live(player, live).await?),
        }
    }

    /// One seat per player: refuses while the player's last table still holds it,
    /// asking the game service (the only one that knows whether the table goes on).
    pub(crate) async fn ensure_not_seated(&self, player: &str) -> Result<()> {
        let Some(record) = self.store.seat_record(player).await? else {
            return Ok(());
        };
        self.ensure_left(player, record.game, &record.table_id)
            .await?;
        Ok(self.store.clear_seat_record(player, &record).await?)
    }

    /// Refuses a player the ledger would not seat in `room` now (its balance below the
    /// room's minimum, a daily cap reached) before any ticket is made: waiting in a
    /// queue it cannot sit down from helps nobody. The matcher asks again when the table
    /// forms, since balances and days change while a ticket waits.
    pub(crate) async fn ensure_eligible(&self, room: &Room, player: &str) -> Result<()> {
        match self.eligibility.check(player, room).await {
            Ok(verdict) => Ok(verdict.into_result()?),
            Err(e @ PeerError::Unavailable(_)) => Err(peer_unavailable(
                "the ledger (for the player's eligibility)",
                &e,
            )),
            // The ledger refused the question itself, for good: retrying would not help,
            // and its words are for the operators.
            Err(PeerError::Refused(why)) => Err(ApiError::internal(anyhow::anyhow!(
                "the ledger refused an eligibility check: {why}"
            ))
            .into()),
        }
    }

    /// Refuses while `player` still sits at `table_id`, a table that goes on.
    async fn ensure_left(&self, player: &str, game: &'static Game, table_id: &str) -> Result<()> {
        match self.seat_at(player, game, table_id).await? {
            Some(_) => Err(MatchmakingError::Seated {
                player: player.to_owned(),
                game: game.key,
                table_id: table_id.to_owned(),
            }),
            None => Ok(()),
        }
    }

    /// Where `player` sits at `table_id`, if that table goes on and the player is still
    /// at it: the game service is the only one that knows.
    async fn seat_at(
        &self,
        player: &str,
        game: &'static Game,
        table_id: &str,
    ) -> Result<Option<TableSeat>> {
        self.tables
            .seat_at(game, table_id, player)
            .await
            .map_err(|e| {
                MatchmakingError::Unavailable(format!(
                    "cannot confirm whether player {player} still sits at {} table {table_id} ({e}); retry shortly",
                    game.key
                ))
            })
    }

    /// How `players` are shown in `game`; by id when the ledger does not say (names
    /// are for show: they never fail a call).
    pub(crate) async fn profiles_of(
        &self,
        players: &[String],
        game: &'static Game,
    ) -> Vec<gamehub_proto::common::PlayerProfile> {
        match self.eligibility.profiles(players, game).await {
            Ok(profiles) => profiles,
            Err(e) => {
                tracing::warn!(error = %e, "no names from the ledger; players are shown by id");
                vec![Default::default(); players.len()]
            }
        }
    }

    /// A ticket as the API shows it: a seated ticket's seat list with names.
    pub(crate) async fn ticket_view(&self, ticket: &Ticket) -> pb::Ticket {
        let mut view = ticket.to_proto(self.store.clock().now_ms());
        if let (Some(seat), Some(at)) = (view.seat.as_mut(), ticket.seat.as_ref()) {
            seat.profiles = self.profiles_of(&seat.players, at.game).await;
        }
        view
    }

    /// Where a player is: the live ticket and the seat (LocatePlayer).
    async fn locate(
        &self,
        caller: &Caller,
        request: &pb::LocatePlayerRequest,
    ) -> Result<pb::LocatePlayerResponse> {
        let player = caller.player_or_self(&request.player_id);
        let player = id("player_id", player, gamehub_platform::auth::MAX_SUBJECT_LEN)?.to_owned();
        caller.ensure_acts_for(&player)?;

        // The player's last ticket: live, or the one that seated the player.
        let last = match self.store.live_slot(&player).await? {
            Some(text) => match TicketId::parse(&text, &self.rooms) {
                Some(ticket_id) => self.store.read(&ticket_id).await?,
                None => None,
            },
            None => None,
        };
        let now = self.store.clock().now_ms();
        let ticket = last
            .as_ref()
            .filter(|t| t.state.is_live())
            .map(|t| t.to_proto(now));

        // Where the player may sit: the seat index, and the last ticket if it seated the
        // player (its seat is not in the index yet when the matcher stopped in between).
        let record = self.store.seat_record(&player).await?;
        let mut candidates: Vec<(&'static Game, String, String)> = Vec::with_capacity(2);
        if let Some(Ticket {
            id,
            seat: Some(seat),
            ..
        }) = &last
        {
            candidates.push((seat.game, seat.table_id.clone(), id.to_string()));
        }
        if let Some(record) = &record
            && !candidates
                .iter()
                .any(|(_, table, _)| *table == record.table_id)
        {
            candidates.push((
                record.game,
                record.table_id.clone(),
                record.ticket_id.clone(),
            ));
        }
        let mut seat = None;
        for (game, table_id, ticket_id) in candidates {
            if let Some(at) = self.seat_at(&player, game, &table_id).await? {
                if let Some(record) = record.as_ref().filter(|r| r.table_id == table_id) {
                    self.store.keep_seat_record(&player, record).await?;
                }
                let friends_code = ticket_id
                    .strip_prefix(&seat_via(""))
                    .map(str::to_owned)
                    .unwrap_or_default();
                let profiles = self.profiles_of(&at.players, game).await;
                seat = Some(pb::CurrentSeat {
                    game_type: game.game_type as i32,
                    table_id,
                    seat: i32::try_from(at.seat).unwrap_or(i32::MAX),
                    room_id: at.room_id,
                    stage: (if at.in_progress {
                        pb::TableStage::InProgress
                    } else {
                        pb::TableStage::BetweenGames
                    }) as i32,
                    players: at.players,
                    ticket_id: if friends_code.is_empty() {
                        ticket_id
                    } else {
                        String::new()
                    },
                    profiles,
                    friends_code,
                });
                break;
            }
        }
        // Keep the index true: a table that closed (left, timed out, removed) holds no
        // seat any more.
        if seat.is_none()
            && let Some(record) = &record
        {
            self.store.clear_seat_record(&player, record).await?;
        }
        let friends_table = self.friends_table_of(&player).await?;
        Ok(pb::LocatePlayerResponse {
            player_id: player,
            ticket,
            seat,
            friends_table,
        })
    }

    async fn cancel(&self, caller: &Caller, ticket_id: &str) -> Result<pb::CancelTicketResponse> {
        let ticket = self.readable_ticket(caller, ticket_id).await?;
        match self
            .store
            .cancel(&ticket.id, self.store.clock().now_ms())
            .await?
        {
            // Cancelled now, or by an earlier call whose freeing of the live slot may not
            // have happened (a retry finishes it; freeing is idempotent).
            Cancelled::Now | Cancelled::AlreadyEnded(crate::tickets::TicketState::Cancelled) => {
                self.store
                    .clear_live(&ticket.player_id, ticket.id.as_str())
                    .await?;
            }
            Cancelled::Requested => {}
            Cancelled::AlreadyEnded(state) => {
                return Err(MatchmakingError::AlreadyEnded {
                    ticket_id: ticket.id.to_string(),
                    state: state.as_str(),
                });
            }
            Cancelled::Missing => {
                return Err(MatchmakingError::UnknownTicket(ticket.id.to_string()));
            }
        }
        let ticket = self
            .store
            .read(&ticket.id)
            .await?
            .ok_or_else(|| MatchmakingError::UnknownTicket(ticket.id.to_string()))?;
        Ok(pb::CancelTicketResponse {
            ticket: Some(ticket.to_proto(self.store.clock().now_ms())),
        })
    }

    fn watch(&self, caller: &Caller, ticket: Ticket) -> Result<WatchStream> {
        let mut subscription = self.hub.subscribe(ticket.id.as_str(), &caller.subject)?;
        let api = self.clone();
        let store = self.store.clone();
        let poll = self.hub.limits().poll_interval;
        let mut shutdown = self.shutdown.listener();
        let id = ticket.id.clone();
        let stream = async_stream::stream! {
            let mut last: Option<(i32, i64, bool)> = None;
            loop {
                match store.read(&id).await {
                    Ok(Some(ticket)) => {
                        let view = ticket.to_proto(store.clock().now_ms());
                        let key = (view.state, view.position, view.cancel_requested);
                        if last != Some(key) {
                            last = Some(key);
                            // Names only for what is sent: a seated ticket's seat list.
                            let view = if ticket.seat.is_some() {
                                api.ticket_view(&ticket).await
                            } else {
                                view
                            };
                            yield Ok(pb::WatchTicketResponse { ticket: Some(view) });
                        }
                        if !ticket.state.is_live() {
                            break;
                        }
                    }
                    Ok(None) => {
                        yield Err(Status::from(MatchmakingError::UnknownTicket(id.to_string())));
                        break;
                    }
                    Err(e) => {
                        yield Err(Status::from(e));
                        break;
                    }
                }
                tokio::select! {
                    () = subscription.changed() => {},
                    () = tokio::time::sleep(poll) => {},
                    () = shutdown.wait() => break,
                }
            }
        };
        Ok(Box::pin(stream))
    }
}

fn peer_unavailable(what: &str, error: &PeerError) -> MatchmakingError {
    match error {
        PeerError::Unavailable(why) | PeerError::Refused(why) => {
            MatchmakingError::Unavailable(format!("{what} did not answer ({why}); retry shortly"))
        }
    }
}

type WatchStream = Pin<Box<dyn Stream<Item = Result<pb::WatchTicketResponse, Status>> + Send>>;

fn respond<T>(result: Result<T>) -> Result<Response<T>, Status> {
    result.map(Response::new).map_err(Status::from)
}

fn caller<T>(request: &Request<T>) -> Result<Caller, Status> {
    Caller::of(request).cloned().map_err(Status::from)
}

#[tonic::async_trait]
impl pb::matchmaking_service_server::MatchmakingService for MatchmakingApi {
    async fn list_rooms(
        &self,
        request: Request<pb::ListRoomsRequest>,
    ) -> Result<Response<pb::ListRoomsResponse>, Status> {
        caller(&request)?;
        respond(MatchmakingApi::list_rooms(self).await)
    }

    async fn enqueue(
        &self,
        request: Request<pb::EnqueueRequest>,
    ) -> Result<Response<pb::EnqueueResponse>, Status> {
        let caller = caller(&request)?;
        respond(MatchmakingApi::enqueue(self, &caller, request.into_inner()).await)
    }

    async fn cancel_ticket(
        &self,
        request: Request<pb::CancelTicketRequest>,
    ) -> Result<Response<pb::CancelTicketResponse>, Status> {
        let caller = caller(&request)?;
        respond(self.cancel(&caller, &request.get_ref().ticket_id).await)
    }

    async fn get_ticket(
        &self,
        request: Request<pb::GetTicketRequest>,
    ) -> Result<Response<pb::GetTicketResponse>, Status> {
        let caller = caller(&request)?;
        let ticket = self
            .readable_ticket(&caller, &request.get_ref().ticket_id)
            .await
            .map_err(Status::from)?;
        Ok(Response::new(pb::GetTicketResponse {
            ticket: Some(self.ticket_view(&ticket).await),
        }))
    }

    async fn locate_player(
        &self,
        request: Request<pb::LocatePlayerRequest>,
    ) -> Result<Response<pb::LocatePlayerResponse>, Status> {
        let caller = caller(&request)?;
        respond(self.locate(&caller, request.get_ref()).await)
    }

    async fn open_friends_table(
        &self,
        request: Request<pb::OpenFriendsTableRequest>,
    ) -> Result<Response<pb::OpenFriendsTableResponse>, Status> {
        let caller = caller(&request)?;
        respond(self.open_friends(&caller, request.get_ref()).await)
    }

    async fn get_friends_table(
        &self,
        request: Request<pb::GetFriendsTableRequest>,
    ) -> Result<Response<pb::GetFriendsTableResponse>, Status> {
        let caller = caller(&request)?;
        respond(
            self.get_friends(&caller, &request.get_ref().code)
                .await
                .map(|table| pb::GetFriendsTableResponse { table: Some(table) }),
        )
    }

    async fn join_friends_table(
        &self,
        request: Request<pb::JoinFriendsTableRequest>,
    ) -> Result<Response<pb::JoinFriendsTableResponse>, Status> {
        let caller = caller(&request)?;
        respond(
            self.join_friends(&caller, request.get_ref())
                .await
                .map(|table| pb::JoinFriendsTableResponse { table: Some(table) }),
        )
    }

    async fn set_ready(
        &self,
        request: Request<pb::SetReadyRequest>,
    ) -> Result<Response<pb::SetReadyResponse>, Status> {
        let caller = caller(&request)?;
        respond(
            MatchmakingApi::set_ready(self, &caller, request.get_ref())
                .await
                .map(|table| pb::SetReadyResponse { table: Some(table) }),
        )
    }

    async fn leave_friends_table(
        &self,
        request: Request<pb::LeaveFriendsTableRequest>,
    ) -> Result<Response<pb::LeaveFriendsTableResponse>, Status> {
        let caller = caller(&request)?;
        respond(
            self.leave_friends(&caller, &request.get_ref().code)
                .await
                .map(|table| pb::LeaveFriendsTableResponse { table: Some(table) }),
        )
    }

    async fn remove_from_friends_table(
        &self,
        request: Request<pb::RemoveFromFriendsTableRequest>,
    ) -> Result<Response<pb::RemoveFromFriendsTableResponse>, Status> {
        let caller = caller(&request)?;
        respond(
            self.remove_from_friends(&caller, request.get_ref())
                .await
                .map(|table| pb::RemoveFromFriendsTableResponse { table: Some(table) }),
        )
    }

    async fn add_bots(
        &self,
        request: Request<pb::AddBotsRequest>,
    ) -> Result<Response<pb::AddBotsResponse>, Status> {
        let caller = caller(&request)?;
        respond(
            MatchmakingApi::add_bots(self, &caller, &request.get_ref().code)
                .await
                .map(|table| pb::AddBotsResponse { table: Some(table) }),
        )
    }

    async fn close_friends_table(
        &self,
        request: Request<pb::CloseFriendsTableRequest>,
    ) -> Result<Response<pb::CloseFriendsTableResponse>, Status> {
        let caller = caller(&request)?;
        respond(
            self.close_friends(&caller, &request.get_ref().code)
                .await
                .map(|table| pb::CloseFriendsTableResponse { table: Some(table) }),
        )
    }

    type WatchFriendsTableStream = FriendsWatch;

    async fn watch_friends_table(
        &self,
        request: Request<pb::WatchFriendsTableRequest>,
    ) -> Result<Response<Self::WatchFriendsTableStream>, Status> {
        let caller = caller(&request)?;
        respond(self.watch_friends(&caller, &request.get_ref().code).await)
    }

    type WatchTicketStream = WatchStream;

    async fn watch_ticket(
        &self,
        request: Request<pb::WatchTicketRequest>,
    ) -> Result<Response<Self::WatchTicketStream>, Status> {
        let caller = caller(&request)?;
        let ticket = self
            .readable_ticket(&caller, &request.get_ref().ticket_id)
            .await
            .map_err(Status::from)?;
        respond(self.watch(&caller, ticket))
    }
}
