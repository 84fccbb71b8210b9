//! The client's subcommands: connect, fetch, run a screen, print. Everything that
//! talks to a server or the terminal is here; what is shown is decided by the pure
//! modules beside it.

use std::future::Future;
use std::process::ExitCode;
use std::time::Duration;

use crossterm::event::EventStream;
use futures::future::BoxFuture;
use gamehub_drive::api::{Clients, Endpoints, request_id};
use gamehub_drive::gomoku::api_point;
use gamehub_drive::retry_call;
use gamehub_platform::auth::Role;
use gamehub_platform::client::TokenSource;
use gamehub_platform::config::CommonConfig;
use gamehub_proto::common::GameType;
use gamehub_proto::doudizhu as ddz;
use gamehub_proto::gomoku as gm;
use gamehub_proto::ledger as lg;
use gamehub_proto::matchmaking as mm;
use gamehub_render::{describe, ledger};
use tokio::sync::mpsc;

use super::app::{self, App, now_ms};
use super::doudizhu::{self, DoudizhuApp};
use super::follow;
use super::gomoku::{self, GomokuApp};
use super::queue::{self, QueueApp, QueueFeed};
use super::record::{ReplayApp, deal_record_lines};
use super::table::Acted;
use super::term::Terminal;
use super::{
    BoardArg, ClientCommand, Connect, DealArgs, ExportArgs, FormatArg, GameArg, HistoryKindArg,
    PlayArgs, PlayCommand, RecordCommand, ReplayArgs, RulesArg, WalletArgs, WalletView, WatchArgs,
};

/// Runs a client subcommand.
pub async fn run(command: ClientCommand, config: &CommonConfig) -> anyhow::Result<ExitCode> {
    match command {
        ClientCommand::Play(PlayCommand::Gomoku(args)) => play(GameArg::Gomoku, args, config).await,
        ClientCommand::Play(PlayCommand::Doudizhu(args)) => {
            play(GameArg::Doudizhu, args, config).await
        }
        ClientCommand::Play(PlayCommand::Rooms(args)) => rooms(&args.connect, config).await,
        ClientCommand::Watch(args) => watch(args, config).await,
        ClientCommand::Wallet(args) => wallet(args, config).await,
        ClientCommand::Record(RecordCommand::Export(args)) => record_export(args, config).await,
        ClientCommand::Record(RecordCommand::Replay(args)) => replay(args, config).await,
        ClientCommand::Record(RecordCommand::Deal(args)) => record_deal(args, config).await,
    }
}

/// `gamehub record export`: a finished Gomoku game to a file (or standard output).
async fn record_export(args: ExportArgs, config: &CommonConfig) -> anyhow::Result<ExitCode> {
    let mut clients = args.connect.clients(config)?;
    let format = record_format(args.format);
    let export = clients
        .gomoku
        .export_record(gm::ExportRecordRequest {
            table_id: args.table.clone(),
            game_number: args.game_number,
            format: format as i32,
        })
        .await
        .map_err(status)?
        .into_inner();
    match args.out {
        Some(path) if path.as_os_str() == "-" => print!("{}", export.content),
        out => {
            let path = out.unwrap_or_else(|| export.file_name.clone().into());
            std::fs::write(&path, &export.content)
                .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
            println!(
                "wrote the record of table {} ({} bytes) to {}",
                args.table,
                export.content.len(),
                path.display()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `gamehub record deal`: a finished Dou Dizhu deal shown and its shuffle verified;
/// FAILURE when it does not verify.
async fn record_deal(args: DealArgs, config: &CommonConfig) -> anyhow::Result<ExitCode> {
    let mut clients = args.connect.clients(config)?;
    let record = clients
        .doudizhu
        .get_deal_record(ddz::GetDealRecordRequest {
            table_id: args.table.clone(),
            deal_number: args.deal,
        })
        .await
        .map_err(status)?
        .into_inner()
        .record
        .ok_or_else(|| anyhow::anyhow!("the dealer returned no record"))?;
    let verified = verify_deal(&record);
    for line in deal_record_lines(&record, &verified) {
        println!("{line}");
    }
    if let Some(path) = &args.out {
        std::fs::write(path, &record.record_json)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        println!("wrote the record to {}", path.display());
    }
    Ok(if verified.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

impl Connect {
    /// The services' URLs: `--host`, else the configured ones, then each URL flag.
    pub fn endpoints(&self, config: &CommonConfig) -> Endpoints {
        self.services.endpoints(config)
    }

    /// The bearer token: minted for `--player` (development), else `--token`.
    pub fn token(&self, config: &CommonConfig) -> anyhow::Result<TokenSource> {
        if let Some(player) = &self.player {
            let token = gamehub_drive::token::mint(
                config,
                player,
                Role::Player,
                Duration::from_secs(24 * 3600),
            )?;
            return Ok(TokenSource::Static(token));
        }
        match &self.token {
            Some(token) if !token.trim().is_empty() => {
                Ok(TokenSource::Static(token.trim().to_owned()))
            }
            _ => anyhow::bail!(
                "who are you? give --token TOKEN (or set GAMEHUB_TOKEN), or against a \
                 development platform --player NAME"
            ),
        }
    }

    /// Clients of every service with the player's token.
    pub fn clients(&self, config: &CommonConfig) -> anyhow::Result<Clients> {
        Clients::new(&self.endpoints(config), self.token(config)?)
    }
}

/// A refusal as an error whose text is the server's message (written for players).
fn status(status: tonic::Status) -> anyhow::Error {
    anyhow::anyhow!("{}", describe(&status))
}

/// Checks a finished deal's shuffle by its revealed seed (the rules crate's check, as
/// anyone can run it); why not, for the player.
fn verify_deal(record: &ddz::DealRecord) -> Result<(), String> {
    doudizhu_rules::verify_published(
        &record.seed,
        &record.commitment,
        &record.deal_id,
        record.hands.iter().map(|h| h.cards.as_slice()),
        &record.kitty,
    )
    .map_err(|e| e.to_string())
}

/// An error as one line for the player.
fn error_text(e: &anyhow::Error) -> String {
    match e.downcast_ref::<tonic::Status>() {
        Some(s) => describe(s),
        None => format!("{e:#}"),
    }
}

async fn list_rooms(clients: &Clients, endpoints: &Endpoints) -> anyhow::Result<Vec<mm::Room>> {
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

async fn rooms(connect: &Connect, config: &CommonConfig) -> anyhow::Result<ExitCode> {
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

fn game_type(game: GameArg) -> GameType {
    match game {
        GameArg::Gomoku => GameType::Gomoku,
        GameArg::Doudizhu => GameType::Doudizhu,
    }
}

async fn play(game: GameArg, args: PlayArgs, config: &CommonConfig) -> anyhow::Result<ExitCode> {
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

async fn watch(args: WatchArgs, config: &CommonConfig) -> anyhow::Result<ExitCode> {
    let clients = args.connect.clients(config)?;
    let mut terminal = Terminal::start()?;
    let mut keys = EventStream::new();
    let (farewell, _) = table_screen(
        args.game,
        &mut terminal,
        &mut keys,
        &clients,
        &args.table,
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

/// Items a screen's feed holds before the screen takes them.
const FEED_BACKLOG: usize = 256;

/// Runs the table screen of `game` for `table_id` until the player quits or leaves,
/// its log starting with `note` if given; what to print afterwards, and the room to
/// queue in again if the player asked.
async fn table_screen(
    game: GameArg,
    terminal: &mut Terminal,
    keys: &mut EventStream,
    clients: &Clients,
    table_id: &str,
    spectator: bool,
    note: Option<String>,
) -> anyhow::Result<(Vec<String>, Option<String>)> {
    Ok(match game {
        GameArg::Gomoku => {
            let app = gomoku_table(terminal, keys, clients, table_id, spectator, note).await?;
            (app.farewell(), app.requeue())
        }
        GameArg::Doudizhu => {
            let app = doudizhu_table(terminal, keys, clients, table_id, spectator, note).await?;
            (app.farewell(), app.requeue())
        }
    })
}

/// Runs `app` until it is finished, its feed being the table stream that
/// `watch(after_event_id)` opens, followed across drops; `perform` answers its requests.
async fn run_table<A, M, W, Fut, P>(
    terminal: &mut Terminal,
    keys: &mut EventStream,
    mut app: A,
    watch: W,
    perform: P,
) -> anyhow::Result<A>
where
    A: App<Feed = follow::FeedOf<M>>,
    M: follow::WatchMessage,
    W: FnMut(u64) -> Fut + Send + 'static,
    Fut: Future<Output = Result<tonic::Streaming<M>, tonic::Status>> + Send,
    P: Fn(A::Request) -> BoxFuture<'static, A::Reply>,
{
    let (tx, rx) = mpsc::channel(FEED_BACKLOG);
    let follower = follow::spawn(watch, tx);
    let result = app::run(terminal, keys, &mut app, rx, perform).await;
    follower.abort();
    result?;
    Ok(app)
}

/// Runs the Gomoku screen for `table_id` until the player quits or leaves, its log
/// starting with `note` if given.
pub async fn gomoku_table(
    terminal: &mut Terminal,
    keys: &mut EventStream,
    clients: &Clients,
    table_id: &str,
    spectator: bool,
    note: Option<String>,
) -> anyhow::Result<GomokuApp> {
    let client = clients.gomoku.clone();
    let watched = table_id.to_owned();
    let watch = move |after_event_id| {
        let mut client = client.clone();
        let request = gm::WatchRequest {
            table_id: watched.clone(),
            after_event_id,
        };
        async move { client.watch(request).await.map(|r| r.into_inner()) }
    };
    let client = clients.gomoku.clone();
    let performed = table_id.to_owned();
    let perform = move |request: gomoku::Request| -> BoxFuture<'static, gomoku::Reply> {
        Box::pin(gomoku_perform(client.clone(), performed.clone(), request))
    };
    let mut app = GomokuApp::new(table_id, spectator);
    if let Some(note) = note {
        app.note(note);
    }
    run_table(terminal, keys, app, watch, perform).await
}

type GomokuClient = gamehub_proto::gomoku::gomoku_service_client::GomokuServiceClient<
    gamehub_platform::client::ServiceChannel,
>;

/// Does what the Gomoku screen asks, retrying transient failures (an action with the
/// same request id).
async fn gomoku_perform(
    client: GomokuClient,
    table_id: String,
    request: gomoku::Request,
) -> gomoku::Reply {
    use gomoku::{Action, Reply, Request};
    let action = match request {
        Request::Refresh => {
            let table = retry_call!(client, get_table, gm::GetTableRequest { table_id })
                .await
                .map_err(|s| describe(&s))
                .and_then(|r| {
                    r.table
                        .ok_or_else(|| "the referee returned no table".to_owned())
                });
            return Reply::Table(table);
        }
        Request::Act(action) => action,
    };
    let request_id = request_id();
    let acted = match action {
        Action::Place(p) => {
            let request = gm::PlaceStoneRequest {
                table_id,
                request_id,
                point: Some(api_point(p)),
            };
            retry_call!(client, place_stone, request)
                .await
                .map(|r| Acted::plain(r.table))
        }
        Action::Propose(a, b) => {
            let request = gm::ProposeFifthMovesRequest {
                table_id,
                request_id,
                points: vec![api_point(a), api_point(b)],
            };
            retry_call!(client, propose_fifth_moves, request)
                .await
                .map(|r| Acted::plain(r.table))
        }
        Action::Choose(p) => {
            let request = gm::ChooseFifthMoveRequest {
                table_id,
                request_id,
                point: Some(api_point(p)),
            };
            retry_call!(client, choose_fifth_move, request)
                .await
                .map(|r| Acted::plain(r.table))
        }
        Action::Swap => {
            let request = gm::SwapRequest {
                table_id,
                request_id,
            };
            retry_call!(client, swap, request).await.map(|r| Acted {
                table: r.table,
                remark: Some("you swapped: you play black now".into()),
            })
        }
        Action::Claim => {
            let request = gm::ClaimForbiddenRequest {
                table_id,
                request_id,
            };
            retry_call!(client, claim_forbidden, request)
                .await
                .map(|r| Acted {
                    remark: Some(if r.upheld {
                        "claim upheld: black's move was forbidden, white wins".into()
                    } else {
                        "claim rejected: black's move was not forbidden; black moves again".into()
                    }),
                    table: r.table,
                })
        }
        Action::Resign => {
            let request = gm::ResignRequest {
                table_id,
                request_id,
            };
            retry_call!(client, resign, request)
                .await
                .map(|r| Acted::plain(r.table))
        }
        Action::OfferDraw => {
            let request = gm::OfferDrawRequest {
                table_id,
                request_id,
            };
            retry_call!(client, offer_draw, request)
                .await
                .map(|r| Acted {
                    table: r.table,
                    remark: Some("draw offered; it lapses if your opponent plays instead".into()),
                })
        }
        Action::AnswerDraw(accept) => {
            let request = gm::AnswerDrawRequest {
                table_id,
                request_id,
                accept,
            };
            retry_call!(client, answer_draw, request)
                .await
                .map(|r| Acted::plain(r.table))
        }
        Action::NextGame => {
            let request = gm::NextGameRequest {
                table_id,
                request_id,
            };
            retry_call!(client, next_game, request)
                .await
                .map(|r| Acted {
                    remark: Some(if r.started {
                        "the next game starts".into()
                    } else {
                        "waiting for your opponent to ask for the next game".into()
                    }),
                    table: r.table,
                })
        }
        Action::Leave => {
            let request = gm::LeaveRequest {
                table_id,
                request_id,
            };
            retry_call!(client, leave, request)
                .await
                .map(|r| Acted::plain(r.table))
        }
    };
    Reply::Acted(action, acted.map_err(|s| describe(&s)))
}

/// Runs the Dou Dizhu screen for `table_id` until the player quits or leaves, its log
/// starting with `note` if given.
pub async fn doudizhu_table(
    terminal: &mut Terminal,
    keys: &mut EventStream,
    clients: &Clients,
    table_id: &str,
    spectator: bool,
    note: Option<String>,
) -> anyhow::Result<DoudizhuApp> {
    let client = clients.doudizhu.clone();
    let watched = table_id.to_owned();
    let watch = move |after_event_id| {
        let mut client = client.clone();
        let request = ddz::WatchRequest {
            table_id: watched.clone(),
            after_event_id: i64::try_from(after_event_id).unwrap_or(i64::MAX),
            as_spectator: spectator,
        };
        async move { client.watch(request).await.map(|r| r.into_inner()) }
    };
    let client = clients.doudizhu.clone();
    let performed = table_id.to_owned();
    let perform = move |request: doudizhu::Request| -> BoxFuture<'static, doudizhu::Reply> {
        Box::pin(doudizhu_perform(
            client.clone(),
            performed.clone(),
            spectator,
            request,
        ))
    };
    let mut app = DoudizhuApp::new(table_id, spectator);
    if let Some(note) = note {
        app.note(note);
    }
    run_table(terminal, keys, app, watch, perform).await
}

type DoudizhuClient = gamehub_proto::doudizhu::doudizhu_service_client::DoudizhuServiceClient<
    gamehub_platform::client::ServiceChannel,
>;

/// Does what the Dou Dizhu screen asks, retrying transient failures (an action with
/// the same request id).
async fn doudizhu_perform(
    client: DoudizhuClient,
    table_id: String,
    spectator: bool,
    request: doudizhu::Request,
) -> doudizhu::Reply {
    use doudizhu::{Action, Reply, Request};
    let action = match request {
        Request::Refresh => {
            let get = ddz::GetTableRequest {
                table_id,
                as_spectator: spectator,
            };
            let table = retry_call!(client, get_table, get)
                .await
                .map_err(|s| describe(&s))
                .and_then(|r| {
                    r.table
                        .ok_or_else(|| "the dealer returned no table".to_owned())
                });
            return Reply::Table(table);
        }
        Request::Hints {
            turn_event_id,
            fill,
        } => {
            let plays = retry_call!(client, hint, ddz::HintRequest { table_id })
                .await
                .map_err(|s| describe(&s))
                .map(|r| {
                    r.plays
                        .into_iter()
                        .map(|h| {
                            let kind =
                                gamehub_render::combination(h.combination.as_ref()).to_owned();
                            (h.ranks, kind)
                        })
                        .collect()
                });
            return Reply::Hints {
                turn_event_id,
                fill,
                plays,
            };
        }
        Request::Verify(deal_number) => {
            let get = ddz::GetDealRecordRequest {
                table_id,
                deal_number,
            };
            let record = retry_call!(client, get_deal_record, get)
                .await
                .map_err(|s| describe(&s))
                .and_then(|r| {
                    r.record
                        .ok_or_else(|| "the dealer returned no record".to_owned())
                });
            return Reply::Verified(
                deal_number,
                record.and_then(|record| verify_deal(&record).map(|()| record.seed.clone())),
            );
        }
        Request::Act(action) => action,
    };
    let request_id = request_id();
    let table = match &action {
        Action::Bid(points) => {
            let request = ddz::BidRequest {
                table_id,
                request_id,
                points: i32::from(*points),
            };
            retry_call!(client, bid, request).await.map(|r| r.table)
        }
        Action::Play(ranks) => {
            let request = ddz::PlayRequest {
                table_id,
                request_id,
                ranks: ranks.clone(),
                cards: Vec::new(),
            };
            retry_call!(client, play, request).await.map(|r| r.table)
        }
        Action::Pass => {
            let request = ddz::PassRequest {
                table_id,
                request_id,
            };
            retry_call!(client, pass, request).await.map(|r| r.table)
        }
        Action::Auto(on) => {
            let request = ddz::SetAutoPlayRequest {
                table_id,
                request_id,
                on: *on,
            };
            retry_call!(client, set_auto_play, request)
                .await
                .map(|r| r.table)
        }
        Action::NextDeal => {
            let request = ddz::NextDealRequest {
                table_id,
                request_id,
            };
            retry_call!(client, next_deal, request)
                .await
                .map(|r| r.table)
        }
        Action::Leave => {
            let request = ddz::LeaveRequest {
                table_id,
                request_id,
            };
            retry_call!(client, leave, request).await.map(|r| r.table)
        }
    };
    Reply::Acted(action, table.map(Acted::plain).map_err(|s| describe(&s)))
}

fn record_format(format: FormatArg) -> gm::RecordFormat {
    match format {
        FormatArg::Text => gm::RecordFormat::Text,
        FormatArg::Psq => gm::RecordFormat::Psq,
    }
}

async fn replay(args: ReplayArgs, config: &CommonConfig) -> anyhow::Result<ExitCode> {
    let mut clients = args.connect.clients(config)?;
    let (source, format, content) = if let Some(path) = &args.file {
        let content = std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
        let format = args.format.unwrap_or_else(|| {
            if path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("psq"))
            {
                FormatArg::Psq
            } else {
                FormatArg::Text
            }
        });
        (path.display().to_string(), format, content)
    } else if let Some(table_id) = &args.table {
        let export = clients
            .gomoku
            .export_record(gm::ExportRecordRequest {
                table_id: table_id.clone(),
                game_number: args.game_number,
                format: gm::RecordFormat::Text as i32,
            })
            .await
            .map_err(status)?
            .into_inner();
        (format!("table {table_id}"), FormatArg::Text, export.content)
    } else if let Some(game_id) = &args.game_id {
        let record = clients
            .ledger
            .get_game_record(lg::GetGameRecordRequest {
                game_id: game_id.clone(),
            })
            .await
            .map_err(status)?
            .into_inner()
            .record
            .unwrap_or_default();
        if record.format != "gomoku-text" {
            anyhow::bail!(
                "game {game_id} is kept as {:?}, not a Gomoku record; for a Dou Dizhu deal \
                 use `gamehub record deal`",
                record.format
            );
        }
        (format!("game {game_id}"), FormatArg::Text, record.content)
    } else {
        anyhow::bail!("give a record file, --table TABLE or --game-id GAME");
    };
    let rule_set = match args.rules {
        None | Some(RulesArg::Freestyle) => gm::RuleSet::Freestyle,
        Some(RulesArg::RenjuLose) => gm::RuleSet::RenjuLose,
        Some(RulesArg::RenjuRefuse) => gm::RuleSet::RenjuRefuse,
        Some(RulesArg::RenjuClaim) => gm::RuleSet::RenjuClaim,
    };
    let loaded = clients
        .gomoku
        .load_record(gm::LoadRecordRequest {
            format: record_format(format) as i32,
            content,
            rule_set: if format == FormatArg::Psq {
                rule_set as i32
            } else {
                gm::RuleSet::Unspecified as i32
            },
        })
        .await
        .map_err(status)?
        .into_inner();
    let mut terminal = Terminal::start()?;
    let mut keys = EventStream::new();
    let mut app = ReplayApp::new(loaded, &source);
    // No feed: the sender is dropped at once.
    let (_, rx) = mpsc::channel::<()>(1);
    app::run(
        &mut terminal,
        &mut keys,
        &mut app,
        rx,
        |()| -> BoxFuture<'static, ()> { Box::pin(async {}) },
    )
    .await?;
    Ok(ExitCode::SUCCESS)
}

async fn wallet(args: WalletArgs, config: &CommonConfig) -> anyhow::Result<ExitCode> {
    let mut clients = args.connect.clients(config)?;
    let account = clients
        .ledger
        .get_account(lg::GetAccountRequest {
            player_id: String::new(),
        })
        .await
        .map_err(status)?
        .into_inner()
        .account
        .unwrap_or_default();
    let client = &mut clients.ledger;
    match args.view.unwrap_or(WalletView::Show) {
        WalletView::Show => wallet_show(client, &account).await,
        WalletView::History {
            kind,
            page_size,
            page,
            pages,
        } => wallet_history(client, kind, page_size, page, pages).await?,
        WalletView::Games {
            game,
            page_size,
            page,
            pages,
        } => wallet_games(client, &account.player_id, game, page_size, page, pages).await?,
        WalletView::Leaderboard {
            board,
            limit,
            around,
        } => wallet_leaderboard(client, &account.player_id, board, limit, around).await?,
    }
    Ok(ExitCode::SUCCESS)
}

/// `gamehub wallet` (`show`): the account and the player's places on the leaderboards.
async fn wallet_show(client: &mut LedgerClient, account: &lg::Account) {
    let me = &account.player_id;
    let mut places = Vec::new();
    for board in [
        lg::Board::GomokuPoints,
        lg::Board::DoudizhuPoints,
        lg::Board::GomokuRating,
    ] {
        // Not being on a board (never played that game) is NOT_FOUND: skip it.
        if let Ok(rows) = client
            .get_leaderboard(lg::GetLeaderboardRequest {
                board: board as i32,
                limit: 1,
                around_player_id: me.clone(),
            })
            .await
            && let Some(row) = rows
                .into_inner()
                .rows
                .into_iter()
                .find(|r| &r.player_id == me)
        {
            places.push((board, row));
        }
    }
    for line in ledger::account_lines(account, &places) {
        println!("{line}");
    }
}

/// `gamehub wallet history`: `pages` pages of changes from `page`, then where to go on.
async fn wallet_history(
    client: &mut LedgerClient,
    kind: Option<HistoryKindArg>,
    page_size: i32,
    page: String,
    pages: u32,
) -> anyhow::Result<()> {
    let kind = match kind {
        None => lg::HistoryKind::Unspecified,
        Some(HistoryKindArg::Silver) => lg::HistoryKind::Silver,
        Some(HistoryKindArg::Points) => lg::HistoryKind::Points,
        Some(HistoryKindArg::Title) => lg::HistoryKind::Title,
        Some(HistoryKindArg::Rating) => lg::HistoryKind::Rating,
    };
    let mut token = page;
    for _ in 0..pages.max(1) {
        let response = client
            .list_history(lg::ListHistoryRequest {
                player_id: String::new(),
                kind: kind as i32,
                page_size,
                page_token: token.clone(),
            })
            .await
            .map_err(status)?
            .into_inner();
        for line in ledger::history_lines(&response.entries) {
            println!("{line}");
        }
        token = response.next_page_token;
        if token.is_empty() {
            break;
        }
    }
    if !token.is_empty() {
        println!("more: gamehub wallet history --page {token}");
    }
    Ok(())
}

/// `gamehub wallet games`: `pages` pages of finished games from `page`, then where to
/// go on.
async fn wallet_games(
    client: &mut LedgerClient,
    me: &str,
    game: Option<GameArg>,
    page_size: i32,
    page: String,
    pages: u32,
) -> anyhow::Result<()> {
    let game_type = game.map_or(GameType::Unspecified, game_type);
    let mut token = page;
    for _ in 0..pages.max(1) {
        let response = client
            .list_games(lg::ListGamesRequest {
                player_id: String::new(),
                game_type: game_type as i32,
                page_size,
                page_token: token.clone(),
            })
            .await
            .map_err(status)?
            .into_inner();
        for line in ledger::games_lines(&response.games, me) {
            println!("{line}");
        }
        token = response.next_page_token;
        if token.is_empty() {
            break;
        }
    }
    if !token.is_empty() {
        println!("more: gamehub wallet games --page {token}");
    }
    Ok(())
}

/// `gamehub wallet leaderboard`: the top of a board, or the rows around a player.
async fn wallet_leaderboard(
    client: &mut LedgerClient,
    me: &str,
    board: BoardArg,
    limit: i32,
    around: Option<String>,
) -> anyhow::Result<()> {
    let board = match board {
        BoardArg::GomokuPoints => lg::Board::GomokuPoints,
        BoardArg::DoudizhuPoints => lg::Board::DoudizhuPoints,
        BoardArg::GomokuRating => lg::Board::GomokuRating,
    };
    let rows = client
        .get_leaderboard(lg::GetLeaderboardRequest {
            board: board as i32,
            limit,
            around_player_id: around.unwrap_or_default(),
        })
        .await
        .map_err(status)?
        .into_inner()
        .rows;
    for line in ledger::leaderboard_lines(board, &rows, me) {
        println!("{line}");
    }
    Ok(())
}

type LedgerClient = gamehub_proto::ledger::ledger_service_client::LedgerServiceClient<
    gamehub_platform::client::ServiceChannel,
>;
