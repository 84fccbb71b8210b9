//! The table screens' I/O: each game's stream followed across drops and the requests
//! its screen makes, performed with retries.

use std::future::Future;

use crossterm::event::EventStream;
use futures::future::BoxFuture;
use gamehub_drive::api::{Clients, request_id};
use gamehub_drive::gomoku::api_point;
use gamehub_drive::retry_call;
use gamehub_proto::doudizhu as ddz;
use gamehub_proto::gomoku as gm;
use gamehub_render::describe;
use tokio::sync::mpsc;

use crate::GameArg;
use crate::app::{self, App, Control};
use crate::doudizhu::{self, DoudizhuApp};
use crate::follow;
use crate::gomoku::{self, GomokuApp};
use crate::table::Acted;
use crate::term::Terminal;

use super::FEED_BACKLOG;
use super::records::verify_deal;

/// Runs the table screen of `game` for `table_id` until the player quits or leaves,
/// its log starting with `note` if given; what to print afterwards, and the room to
/// queue in again if the player asked.
pub(super) async fn table_screen(
    game: GameArg,
    terminal: &mut Terminal,
    keys: &mut EventStream,
    clients: &Clients,
    table_id: &str,
    spectator: bool,
    note: Option<String>,
) -> anyhow::Result<(Vec<String>, Option<String>)> {
    let (_no_orders, control) = mpsc::channel(1);
    Ok(match game {
        GameArg::Gomoku => {
            let (app, _) =
                gomoku_table(terminal, keys, clients, table_id, spectator, note, control).await?;
            (app.farewell(), app.requeue())
        }
        GameArg::Doudizhu => {
            let (app, _) =
                doudizhu_table(terminal, keys, clients, table_id, spectator, note, control).await?;
            (app.farewell(), app.requeue())
        }
    })
}

/// How a tournament's table screen ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct TableEnd {
    /// The last result, to print.
    pub result: Vec<String>,
    /// The player quit the screen while still seated at a table that goes on.
    pub still_seated: bool,
    /// A game (a deal) is being played at the table.
    pub in_progress: bool,
    /// `control` closed the screen (the tournament moved the player on).
    pub stopped: bool,
}

/// Runs the table screen of `game` for the player at `table_id` (a tournament's
/// table), its log starting with `note`, until the player quits or leaves or
/// `control` says stop.
pub(super) async fn controlled_table_screen(
    game: GameArg,
    terminal: &mut Terminal,
    keys: &mut EventStream,
    clients: &Clients,
    table_id: &str,
    note: String,
    control: mpsc::Receiver<Control>,
) -> anyhow::Result<TableEnd> {
    Ok(match game {
        GameArg::Gomoku => {
            let (app, stopped) = gomoku_table(
                terminal,
                keys,
                clients,
                table_id,
                false,
                Some(note),
                control,
            )
            .await?;
            TableEnd {
                result: app.result_farewell(),
                still_seated: app.still_seated(),
                in_progress: app.in_progress(),
                stopped,
            }
        }
        GameArg::Doudizhu => {
            let (app, stopped) = doudizhu_table(
                terminal,
                keys,
                clients,
                table_id,
                false,
                Some(note),
                control,
            )
            .await?;
            TableEnd {
                result: app.result_farewell(),
                still_seated: app.still_seated(),
                in_progress: app.in_progress(),
                stopped,
            }
        }
    })
}

/// Runs `app` until it is finished or `control` says stop, its feed being the table
/// stream that `watch(after_event_id)` opens, followed across drops; `perform` answers
/// its requests. The app, and whether `control` stopped it.
async fn run_table<A, M, W, Fut, P>(
    terminal: &mut Terminal,
    keys: &mut EventStream,
    mut app: A,
    watch: W,
    perform: P,
    control: mpsc::Receiver<Control>,
) -> anyhow::Result<(A, bool)>
where
    A: App<Feed = follow::FeedOf<M>>,
    M: follow::WatchMessage,
    W: FnMut(u64) -> Fut + Send + 'static,
    Fut: Future<Output = Result<tonic::Streaming<M>, tonic::Status>> + Send,
    P: Fn(A::Request) -> BoxFuture<'static, A::Reply>,
{
    let (tx, rx) = mpsc::channel(FEED_BACKLOG);
    let follower = follow::spawn(watch, tx);
    let result = app::run_controlled(terminal, keys, &mut app, rx, perform, control).await;
    follower.abort();
    let stopped = result?;
    Ok((app, stopped))
}

/// Runs the Gomoku screen for `table_id` until the player quits or leaves or
/// `control` says stop, its log starting with `note` if given; the screen, and whether
/// `control` stopped it.
pub(super) async fn gomoku_table(
    terminal: &mut Terminal,
    keys: &mut EventStream,
    clients: &Clients,
    table_id: &str,
    spectator: bool,
    note: Option<String>,
    control: mpsc::Receiver<Control>,
) -> anyhow::Result<(GomokuApp, bool)> {
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
    run_table(terminal, keys, app, watch, perform, control).await
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
                known_stones: 0,
                known_game: 0,
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
                player_id: String::new(),
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

/// Runs the Dou Dizhu screen for `table_id` until the player quits or leaves or
/// `control` says stop, its log starting with `note` if given; the screen, and whether
/// `control` stopped it.
pub(super) async fn doudizhu_table(
    terminal: &mut Terminal,
    keys: &mut EventStream,
    clients: &Clients,
    table_id: &str,
    spectator: bool,
    note: Option<String>,
    control: mpsc::Receiver<Control>,
) -> anyhow::Result<(DoudizhuApp, bool)> {
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
    run_table(terminal, keys, app, watch, perform, control).await
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
    use doudizhu::{ActionRequest, HintPlay, Reply, Request};
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
                .map(|r| r.plays.iter().map(HintPlay::of).collect());
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
    let table = match action.request(table_id, request_id()) {
        ActionRequest::Bid(request) => retry_call!(client, bid, request).await.map(|r| r.table),
        ActionRequest::Call(request) => retry_call!(client, call, request).await.map(|r| r.table),
        ActionRequest::Rob(request) => retry_call!(client, rob, request).await.map(|r| r.table),
        ActionRequest::Double(request) => {
            retry_call!(client, double, request).await.map(|r| r.table)
        }
        ActionRequest::Show(request) => retry_call!(client, show, request).await.map(|r| r.table),
        ActionRequest::Play(request) => retry_call!(client, play, request).await.map(|r| r.table),
        ActionRequest::Pass(request) => retry_call!(client, pass, request).await.map(|r| r.table),
        ActionRequest::Auto(request) => retry_call!(client, set_auto_play, request)
            .await
            .map(|r| r.table),
        ActionRequest::NextDeal(request) => retry_call!(client, next_deal, request)
            .await
            .map(|r| r.table),
        ActionRequest::Leave(request) => retry_call!(client, leave, request).await.map(|r| r.table),
    };
    Reply::Acted(action, table.map(Acted::plain).map_err(|s| describe(&s)))
}
