//! `gamehub play` and `gamehub watch`: where the player is, the rooms, the queue, and
//! the table screens run until the player leaves.

use std::process::ExitCode;
use std::time::Duration;

use crossterm::event::EventStream;
use futures::future::BoxFuture;
use gamehub_drive::api::{Clients, Endpoints};
use gamehub_drive::retry_call;
use gamehub_platform::auth::Role;
use gamehub_platform::client::TokenSource;
use gamehub_platform::config::CommonConfig;
use gamehub_proto::common::GameType;
use gamehub_proto::matchmaking as mm;
use gamehub_render::{describe, ledger};
use tokio::sync::mpsc;

use crate::app::{self, now_ms};
use crate::queue::{self, QueueApp, QueueFeed};
use crate::term::Terminal;
use crate::{Connect, GameArg, PlayArgs, WatchArgs};

use super::screens::table_screen;
use super::{FEED_BACKLOG, error_text, game_type};

/// The platform's rooms; when matchmaking cannot be reached, says where it was looked
/// for and how to start one.
pub(super) async fn list_rooms(
    clients: &Clients,
    endpoints: &Endpoints,
) -> anyhow::Result<Vec<mm::Room>> {
    let mut matchmaking = clients.matchmaking.clone();
    Ok(matchmaking
        .list_rooms(mm::ListRoomsRequest {})
        .await
        .map_err(|s| {
            anyhow::anyhow!(
                "matchmaking at {}: {} (is the platform running? `gamehub serve` starts one)",
                endpoints.matchmaking,
                describe(&s)
            )
        })?
        .into_inner()
        .rooms)
}

/// `gamehub play rooms`: every room with its rules, clocks, stakes and queue.
pub(super) async fn rooms(connect: &Connect, config: &CommonConfig) -> anyhow::Result<ExitCode> {
    let endpoints = connect.endpoints(config);
    // Listing rooms needs a token but any will do: mint a throwaway one in development.
    let token = connect.token(config).or_else(|_| {
        gamehub_drive::token::mint(config, "guest", Role::Player, Duration::from_secs(60))
            .map(TokenSource::Static)
    })?;
    let clients = Clients::new(&endpoints, token)?;
    for room in list_rooms(&clients, &endpoints).await? {
        for line in queue::room_lines(&room) {
            println!("{line}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `gamehub play gomoku|doudizhu`: back to the player's table or ticket if there is one,
/// else the queue of the room; then the table screen, and the queue again on `next` at
/// a closed table.
pub(super) async fn play(
    game: GameArg,
    args: PlayArgs,
    config: &CommonConfig,
) -> anyhow::Result<ExitCode> {
    if args.friends || args.code.is_some() {
        return super::friends::play_with_friends(game, args, config).await;
    }
    let endpoints = args.connect.endpoints(config);
    let clients = args.connect.clients(config)?;
    // Where the player is, first: a seat at a table that goes on is rejoined (whatever
    // game or room was asked for: one seat per player), a ticket still waiting is
    // followed instead of queueing again.
    let place = match &args.table {
        Some(_) => Rejoin::Nothing,
        None => locate(&clients, &endpoints).await?,
    };
    let mut game = game;
    let mut table = args.table.clone();
    let mut note = None;
    let mut ticket = None;
    let requested_room = args.room.clone().unwrap_or_else(|| match game {
        GameArg::Gomoku => "gomoku-free".into(),
        GameArg::Doudizhu => "doudizhu-free".into(),
    });
    let room_id = match place {
        Rejoin::Seat(seat) => {
            game = match seat.game_type() {
                GameType::Doudizhu => GameArg::Doudizhu,
                _ => GameArg::Gomoku,
            };
            note = Some(rejoin_note(&seat));
            table = Some(seat.table_id);
            None
        }
        Rejoin::Ticket(live) => {
            let room_id = live.room_id.clone();
            ticket = Some(live);
            Some(room_id)
        }
        Rejoin::Nothing => table.is_none().then_some(requested_room),
    };
    // Check the room before taking over the terminal, so mistakes print plainly.
    let room = match room_id {
        None => None,
        Some(room_id) => {
            let rooms = list_rooms(&clients, &endpoints).await?;
            let room = rooms
                .iter()
                .find(|r| r.room_id == room_id)
                .cloned()
                .ok_or_else(|| {
                    let ids: Vec<&str> = rooms
                        .iter()
                        .filter(|r| r.game_type() == game_type(game))
                        .map(|r| r.room_id.as_str())
                        .collect();
                    anyhow::anyhow!("no room {room_id}; rooms of this game: {}", ids.join(", "))
                })?;
            if ticket.is_some() {
                // The ticket's room decides the game.
                game = match room.game_type() {
                    GameType::Doudizhu => GameArg::Doudizhu,
                    _ => GameArg::Gomoku,
                };
            } else if room.game_type() != game_type(game) {
                anyhow::bail!(
                    "room {room_id} is a {} room",
                    ledger::game_name(room.game_type())
                );
            }
            Some(room)
        }
    };

    let mut terminal = Terminal::start()?;
    let mut keys = EventStream::new();
    let mut room = room;
    let farewell = loop {
        let table_id = match (table.take(), room.clone()) {
            (Some(table_id), _) => table_id,
            (None, Some(room)) => {
                let pending = ticket.take();
                match wait_for_seat(&mut terminal, &mut keys, &clients, room, pending).await? {
                    Ok(seat) => seat.table_id,
                    Err(reason) => {
                        drop(terminal);
                        if reason == "cancelled" {
                            println!("ticket cancelled");
                            return Ok(ExitCode::SUCCESS);
                        }
                        anyhow::bail!("{reason}");
                    }
                }
            }
            (None, None) => anyhow::bail!("give --room or --table"),
        };
        let (farewell, again) = table_screen(
            game,
            &mut terminal,
            &mut keys,
            &clients,
            &table_id,
            false,
            note.take(),
        )
        .await?;
        // `next` at a closed table: queue again in the same room.
        match again {
            Some(room_id) => {
                room = list_rooms(&clients, &endpoints)
                    .await?
                    .into_iter()
                    .find(|r| r.room_id == room_id);
                if room.is_none() {
                    break vec![format!("room {room_id} is gone")];
                }
            }
            None => break farewell,
        }
    };
    drop(terminal);
    for line in farewell {
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Where `gamehub play` finds the player when it starts.
enum Rejoin {
    /// Seated at a table that goes on: back to it.
    Seat(mm::CurrentSeat),
    /// A ticket still waiting (an earlier client queued): follow it.
    Ticket(mm::Ticket),
    /// Neither: queue.
    Nothing,
}

/// Asks matchmaking where the player is (LocatePlayer), retrying what is retryable.
async fn locate(clients: &Clients, endpoints: &Endpoints) -> anyhow::Result<Rejoin> {
    let request = mm::LocatePlayerRequest {
        player_id: String::new(),
    };
    match retry_call!(clients.matchmaking, locate_player, request).await {
        Ok(place) => Ok(match (place.seat, place.ticket) {
            (Some(seat), _) => Rejoin::Seat(seat),
            (None, Some(ticket)) => Rejoin::Ticket(ticket),
            (None, None) => Rejoin::Nothing,
        }),
        // A platform from before LocatePlayer: queue as before.
        Err(s) if s.code() == tonic::Code::Unimplemented => Ok(Rejoin::Nothing),
        Err(s) => Err(anyhow::anyhow!(
            "matchmaking at {}: {} (is the platform running? `gamehub serve` starts one)",
            endpoints.matchmaking,
            describe(&s)
        )),
    }
}

/// What the table screen says when the client came back to a seat instead of queueing.
fn rejoin_note(seat: &mm::CurrentSeat) -> String {
    let stage = match seat.stage() {
        mm::TableStage::BetweenGames => "between games",
        _ => "game in progress",
    };
    format!(
        "rejoined your table: seat {}, room {}, {stage}",
        seat.seat, seat.room_id
    )
}

/// `gamehub watch`: a table's screen as a spectator (or, with --list, a room's tables).
pub(super) async fn watch(args: WatchArgs, config: &CommonConfig) -> anyhow::Result<ExitCode> {
    let clients = args.connect.clients(config)?;
    if let Some(room_id) = &args.list {
        let rooms = list_rooms(&clients, &args.connect.endpoints(config)).await?;
        return super::friends::list_tables(&clients, &rooms, room_id).await;
    }
    let (Some(game), Some(table_id)) = (args.game, args.table.as_ref()) else {
        anyhow::bail!("give --game and --table, or --list ROOM");
    };
    let mut terminal = Terminal::start()?;
    let mut keys = EventStream::new();
    let (farewell, _) = table_screen(
        game,
        &mut terminal,
        &mut keys,
        &clients,
        table_id,
        true,
        None,
    )
    .await?;
    drop(terminal);
    for line in farewell {
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Queues for `room` (or follows `pending`, a live ticket of the room) and shows the
/// wait; the seat, or why there is none.
async fn wait_for_seat(
    terminal: &mut Terminal,
    keys: &mut EventStream,
    clients: &Clients,
    room: mm::Room,
    pending: Option<mm::Ticket>,
) -> anyhow::Result<Result<mm::Seat, String>> {
    let (tx, rx) = mpsc::channel(FEED_BACKLOG);
    let mut matchmaking = clients.matchmaking.clone();
    let room_id = room.room_id.clone();
    let follower = tokio::spawn(async move {
        let updates = tx.clone();
        let update = move |t: &mm::Ticket| {
            let _ = updates.try_send(QueueFeed::Ticket(t.clone()));
        };
        let seated = match pending {
            Some(ticket) => {
                gamehub_drive::matchmaking::follow(&mut matchmaking, ticket, update).await
            }
            None => gamehub_drive::matchmaking::seat(&mut matchmaking, &room_id, "", update).await,
        };
        let _ = tx
            .send(QueueFeed::Done(seated.map_err(|e| error_text(&e))))
            .await;
    });
    let mut app = QueueApp::new(room, now_ms());
    let matchmaking = clients.matchmaking.clone();
    let perform = move |request: queue::Request| -> BoxFuture<'static, queue::Reply> {
        let mut matchmaking = matchmaking.clone();
        Box::pin(async move {
            let queue::Request::Cancel(ticket_id) = request;
            matchmaking
                .cancel_ticket(mm::CancelTicketRequest { ticket_id })
                .await
                .map(|r| r.into_inner().ticket.unwrap_or_default())
                .map_err(|s| describe(&s))
        })
    };
    app::run(terminal, keys, &mut app, rx, perform).await?;
    follower.abort();
    Ok(app
        .outcome()
        .cloned()
        .unwrap_or_else(|| Err("cancelled".into())))
}
