//! `gamehub tournaments …`: list, show, register, unregister, and play — follow a
//! tournament (WatchTournament, or GetTournament every second where the server serves
//! no stream) on the tournament screen and, each time it seats the player at a new
//! table (`Tournament.your_table_id`), play that table on the game's own table screen,
//! the one `gamehub play` uses, then back to the tournament, until it is over.
//!
//! `list`, `show`, `register` and `unregister` answer with the lines they print, so
//! tests run their whole path against a platform.

use std::collections::HashSet;
use std::convert::Infallible;
use std::process::ExitCode;
use std::time::Duration;

use crossterm::event::EventStream;
use futures::future::BoxFuture;
use gamehub_drive::api::{Clients, request_id};
use gamehub_drive::backoff;
use gamehub_platform::auth::Role;
use gamehub_platform::client::{ServiceChannel, TokenSource};
use gamehub_platform::config::CommonConfig;
use gamehub_proto::common::GameType;
use gamehub_proto::doudizhu as ddz;
use gamehub_proto::gomoku as gm;
use gamehub_proto::matchmaking as mm;
use gamehub_proto::tournament as tn;
use gamehub_proto::tournament::tournament_service_client::TournamentServiceClient;
use gamehub_render::{describe, thousands};
use tokio::sync::mpsc;

use crate::app::{self, Control};
use crate::follow::{Feed, is_permanent};
use crate::term::Terminal;
use crate::tournament::{
    self as view, AtTable, Outcome, Reply, Request, TournamentApp, at_table, is_over,
};
use crate::{Connect, GameArg, TournamentArgs, TournamentsCommand};

use super::screens::{TableEnd, controlled_table_screen};
use super::{FEED_BACKLOG, game_arg, game_type, status};

/// The tournament service, called with the player's token.
type TournamentClient = TournamentServiceClient<ServiceChannel>;

/// What the follower hands the screens.
type TournamentFeed = Feed<tn::Tournament, ()>;

/// How many tournaments a page of `list` asks for.
const PAGE_SIZE: i32 = 50;

/// Pages `list` reads at most per state.
const LIST_PAGES: usize = 4;

/// How often a follower without a stream asks for the tournament.
const POLL_EVERY: Duration = Duration::from_secs(1);

/// How long the finished game stays on screen before the tournament comes back.
const BACK_AFTER: Duration = Duration::from_secs(5);

/// How long a finished deal stays on screen before the next deal's table opens.
const NEXT_TABLE_AFTER: Duration = Duration::from_secs(3);

/// Runs `gamehub tournaments …`.
pub(super) async fn tournaments(
    command: TournamentsCommand,
    config: &CommonConfig,
) -> anyhow::Result<ExitCode> {
    let lines = match command {
        TournamentsCommand::List(args) => {
            let clients = reader_clients(&args.connect, config)?;
            list_lines(&clients, args.game, args.all).await?
        }
        TournamentsCommand::Show(args) => {
            let clients = reader_clients(&args.connect, config)?;
            let me = whoami(&args.connect, &clients).await;
            show_lines(&clients, &me, &args.tournament, args.rounds).await?
        }
        TournamentsCommand::Register(args) => {
            register_lines(&args.connect.clients(config)?, &args.tournament).await?
        }
        TournamentsCommand::Unregister(args) => {
            unregister_lines(&args.connect.clients(config)?, &args.tournament).await?
        }
        TournamentsCommand::Play(args) => return play(args, config).await,
    };
    for line in lines {
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Clients for reading (anyone may list and read): the player's token, else in
/// development a throwaway guest's.
fn reader_clients(connect: &Connect, config: &CommonConfig) -> anyhow::Result<Clients> {
    let token = connect.token(config).or_else(|_| {
        gamehub_drive::token::mint(config, "guest", Role::Player, Duration::from_secs(60))
            .map(TokenSource::Static)
    })?;
    Clients::new(&connect.endpoints(config), token)
}

/// The player's id: `--player`, else whom matchmaking says the token is (LocatePlayer);
/// empty when neither says.
pub async fn whoami(connect: &Connect, clients: &Clients) -> String {
    if let Some(player) = &connect.player {
        return player.clone();
    }
    if connect.token.as_ref().is_none_or(|t| t.trim().is_empty()) {
        return String::new();
    }
    clients
        .matchmaking
        .clone()
        .locate_player(mm::LocatePlayerRequest::default())
        .await
        .map(|r| r.into_inner().player_id)
        .unwrap_or_default()
}

/// One state's tournaments (all when `state` is unspecified), newest first, at most
/// [`LIST_PAGES`] pages; and whether more are left.
async fn fetch(
    client: &mut TournamentClient,
    state: tn::State,
    game: GameType,
) -> anyhow::Result<(Vec<tn::TournamentSummary>, bool)> {
    let mut request = tn::ListTournamentsRequest {
        state: state as i32,
        game_type: game as i32,
        page_size: PAGE_SIZE,
        page_token: String::new(),
    };
    let mut out = Vec::new();
    for _ in 0..LIST_PAGES {
        let page = client
            .list_tournaments(request.clone())
            .await
            .map_err(status)?
            .into_inner();
        out.extend(page.tournaments);
        if page.next_page_token.is_empty() {
            return Ok((out, false));
        }
        request.page_token = page.next_page_token;
    }
    Ok((out, true))
}

/// `gamehub tournaments list`: the tournaments open for registration and running (with
/// `all`, every one), newest first, of `game` if given.
pub async fn list_lines(
    clients: &Clients,
    game: Option<GameArg>,
    all: bool,
) -> anyhow::Result<Vec<String>> {
    let mut client = clients.tournaments.clone();
    let game = game.map_or(GameType::Unspecified, game_type);
    let states: &[tn::State] = if all {
        &[tn::State::Unspecified]
    } else {
        &[tn::State::Registering, tn::State::Running]
    };
    let mut summaries = Vec::new();
    let mut more = false;
    for state in states {
        let (page, left) = fetch(&mut client, *state, game).await?;
        summaries.extend(page);
        more |= left;
    }
    summaries.sort_by_key(|s| std::cmp::Reverse(s.created_at_unix_ms));
    let now = app::now_ms();
    let mut out: Vec<String> = summaries
        .iter()
        .map(|s| view::summary_line(s, now))
        .collect();
    if out.is_empty() {
        out.push(if all {
            "no tournaments yet".into()
        } else {
            "no tournament is open for registration or running (--all lists the finished ones)"
                .into()
        });
    } else {
        if more {
            out.push("… and more".into());
        }
        out.push(
            "gamehub tournaments show ID · register ID · play ID (follows it and plays your games)"
                .into(),
        );
    }
    Ok(out)
}

/// The tournament `id` now.
async fn get(clients: &Clients, id: &str) -> anyhow::Result<tn::Tournament> {
    Ok(clients
        .tournaments
        .clone()
        .get_tournament(tn::GetTournamentRequest {
            tournament_id: id.to_owned(),
        })
        .await
        .map_err(status)?
        .into_inner()
        .tournament
        .unwrap_or_default())
}

/// `gamehub tournaments show`: the tournament as `me` sees it.
pub async fn show_lines(
    clients: &Clients,
    me: &str,
    id: &str,
    all_rounds: bool,
) -> anyhow::Result<Vec<String>> {
    let t = get(clients, id).await?;
    Ok(view::tournament_lines(&t, me, all_rounds, app::now_ms()))
}

/// What registering answered, for the player.
fn registered_text(answer: &tn::RegisterResponse) -> Vec<String> {
    let t = answer.tournament.clone().unwrap_or_default();
    let settings = t.settings.clone().unwrap_or_default();
    let fee = settings.entry_fee_silver;
    let mut out = vec![if answer.replayed {
        format!(
            "you were already registered for {:?} ({}): no second fee was held",
            settings.name, t.tournament_id
        )
    } else if fee > 0 {
        format!(
            "registered for {:?} ({}): entry fee {} silver held (given back if you unregister before the start or it is cancelled)",
            settings.name,
            t.tournament_id,
            thousands(fee)
        )
    } else {
        format!(
            "registered for {:?} ({}): free entry",
            settings.name, t.tournament_id
        )
    }];
    out.push(match view::state_of(&t) {
        tn::State::Registering => format!(
            "{} of {} players · pool {} · starts {}",
            t.players.len(),
            settings.max_players,
            thousands(t.pool_silver),
            gamehub_render::tournament::starts_text(&settings, app::now_ms())
        ),
        _ => format!(
            "it has started with {} players: `gamehub tournaments play {}` plays your games",
            t.players.len(),
            t.tournament_id
        ),
    });
    out
}

/// `gamehub tournaments register`.
pub async fn register_lines(clients: &Clients, id: &str) -> anyhow::Result<Vec<String>> {
    let answer = clients
        .tournaments
        .clone()
        .register(tn::RegisterRequest {
            tournament_id: id.to_owned(),
        })
        .await
        .map_err(status)?
        .into_inner();
    let mut out = registered_text(&answer);
    if view::state_of(&answer.tournament.unwrap_or_default()) == tn::State::Registering {
        out.push(format!(
            "`gamehub tournaments play {id}` follows it and opens your table when it seats you"
        ));
    }
    Ok(out)
}

/// What unregistering answered, for the player.
fn unregistered_text(answer: &tn::UnregisterResponse) -> String {
    let t = answer.tournament.clone().unwrap_or_default();
    let name = t.settings.as_ref().map_or("", |s| s.name.as_str());
    if answer.refunded_silver > 0 {
        format!(
            "unregistered from {name:?} ({}): {} silver given back",
            t.tournament_id,
            thousands(answer.refunded_silver)
        )
    } else {
        format!("unregistered from {name:?} ({})", t.tournament_id)
    }
}

/// `gamehub tournaments unregister`.
pub async fn unregister_lines(clients: &Clients, id: &str) -> anyhow::Result<Vec<String>> {
    let answer = clients
        .tournaments
        .clone()
        .unregister(tn::UnregisterRequest {
            tournament_id: id.to_owned(),
        })
        .await
        .map_err(status)?
        .into_inner();
    Ok(vec![unregistered_text(&answer)])
}

/// Follows tournament `id` until it is over or the receiver is gone: each new version
/// once, in order; the stream again after a drop (with the drive crate's backoff), or
/// GetTournament every [`POLL_EVERY`] when the server serves no stream (too many
/// streams, or a server without WatchTournament).
pub fn follow(
    client: TournamentClient,
    id: String,
    tx: mpsc::Sender<TournamentFeed>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut attempt = 0u32;
        let mut polling = false;
        let mut sent = Sent::default();
        loop {
            let error = if polling {
                match client
                    .clone()
                    .get_tournament(tn::GetTournamentRequest {
                        tournament_id: id.clone(),
                    })
                    .await
                {
                    Ok(answer) => {
                        if attempt > 0 && tx.send(Feed::Live).await.is_err() {
                            return;
                        }
                        attempt = 0;
                        let t = answer.into_inner().tournament.unwrap_or_default();
                        if !sent.offer(&tx, t).await || sent.over {
                            return;
                        }
                        tokio::time::sleep(POLL_EVERY).await;
                        continue;
                    }
                    Err(s) if is_permanent(&s) => {
                        let _ = tx.send(Feed::Ended(describe(&s))).await;
                        return;
                    }
                    Err(s) => describe(&s),
                }
            } else {
                match client
                    .clone()
                    .watch_tournament(tn::WatchTournamentRequest {
                        tournament_id: id.clone(),
                    })
                    .await
                {
                    Ok(stream) => {
                        let mut stream = stream.into_inner();
                        if attempt > 0 && tx.send(Feed::Live).await.is_err() {
                            return;
                        }
                        loop {
                            match stream.message().await {
                                Ok(Some(message)) => {
                                    attempt = 0;
                                    if let Some(t) = message.tournament
                                        && !sent.offer(&tx, t).await
                                    {
                                        return;
                                    }
                                }
                                // The stream ends after the tournament is over.
                                Ok(None) if sent.over => return,
                                Ok(None) => break "the server closed the stream".to_owned(),
                                Err(s) if is_permanent(&s) => {
                                    let _ = tx.send(Feed::Ended(describe(&s))).await;
                                    return;
                                }
                                Err(s) => break describe(&s),
                            }
                        }
                    }
                    Err(s)
                        if matches!(
                            s.code(),
                            tonic::Code::ResourceExhausted | tonic::Code::Unimplemented
                        ) =>
                    {
                        polling = true;
                        continue;
                    }
                    Err(s) if is_permanent(&s) => {
                        let _ = tx.send(Feed::Ended(describe(&s))).await;
                        return;
                    }
                    Err(s) => describe(&s),
                }
            };
            attempt = attempt.saturating_add(1);
            if tx
                .send(Feed::Reconnecting { attempt, error })
                .await
                .is_err()
            {
                return;
            }
            tokio::time::sleep(backoff(attempt)).await;
        }
    })
}

/// What the follower has sent.
#[derive(Debug, Default)]
struct Sent {
    /// The version last sent.
    version: Option<i64>,
    /// The last tournament seen was over.
    over: bool,
}

impl Sent {
    /// Sends `t` unless its version was sent already; false when nobody listens.
    async fn offer(&mut self, tx: &mpsc::Sender<TournamentFeed>, t: tn::Tournament) -> bool {
        self.over = is_over(&t);
        if self.version == Some(t.version) {
            return true;
        }
        self.version = Some(t.version);
        tx.send(Feed::Snapshot(t)).await.is_ok()
    }
}

/// Takes `t` into `latest` unless `latest` is newer.
fn keep_newest(latest: &mut tn::Tournament, t: tn::Tournament) {
    if t.version >= latest.version {
        *latest = t;
    }
}

/// Hands the tournament screen the follower's items, keeping `latest` up to date;
/// when the follower ends, the screen's feed ends too. Never returns.
async fn pump(
    feed: &mut mpsc::Receiver<TournamentFeed>,
    latest: &mut tn::Tournament,
    screen: mpsc::Sender<TournamentFeed>,
) -> Infallible {
    while let Some(item) = feed.recv().await {
        if let Feed::Snapshot(t) = &item {
            keep_newest(latest, t.clone());
        }
        if screen.send(item).await.is_err() {
            break;
        }
    }
    drop(screen);
    std::future::pending().await
}

/// While the player is at `table`: follows the tournament and, once it has the game's
/// result, tells the screen and closes it after a moment; a cancellation is only told
/// (the game at the table is the player's to finish or leave). Keeps `latest` up to
/// date and `lost` the reason if following ends for good. Never returns.
async fn steer(
    feed: &mut mpsc::Receiver<TournamentFeed>,
    latest: &mut tn::Tournament,
    lost: &mut Option<String>,
    table: &str,
    control: mpsc::Sender<Control>,
) -> Infallible {
    let mut told_cancelled = false;
    while let Some(item) = feed.recv().await {
        match item {
            Feed::Snapshot(t) => {
                keep_newest(latest, t);
                match at_table(latest, table) {
                    AtTable::Stay => {}
                    AtTable::Cancelled(reason) => {
                        if !told_cancelled {
                            told_cancelled = true;
                            let _ = control
                                .send(Control::Notice(format!(
                                    "the tournament was cancelled (reason: {reason}): this game counts for nothing in it; finish it, or leave once it is over, then quit"
                                )))
                                .await;
                        }
                    }
                    AtTable::MovedOn(next) => {
                        let (text, wait) = match next {
                            Some(_) => (
                                "the tournament has this result: your next table opens in a moment",
                                NEXT_TABLE_AFTER,
                            ),
                            None => (
                                "the tournament has this game's result: back to the tournament in a moment",
                                BACK_AFTER,
                            ),
                        };
                        let _ = control.send(Control::Notice(text.into())).await;
                        tokio::time::sleep(wait).await;
                        let _ = control.send(Control::Stop).await;
                        break;
                    }
                }
            }
            Feed::Ended(reason) => {
                *lost = Some(reason);
                break;
            }
            Feed::Event(()) | Feed::Live | Feed::Reconnecting { .. } => {}
        }
    }
    std::future::pending().await
}

/// Leaves `table` once its game is over (best effort: a table already closed is fine).
async fn leave(clients: &Clients, game: GameArg, table: &str) {
    match game {
        GameArg::Gomoku => {
            let _ = clients
                .gomoku
                .clone()
                .leave(gm::LeaveRequest {
                    player_id: String::new(),
                    table_id: table.to_owned(),
                    request_id: request_id(),
                })
                .await;
        }
        GameArg::Doudizhu => {
            let _ = clients
                .doudizhu
                .clone()
                .leave(ddz::LeaveRequest {
                    table_id: table.to_owned(),
                    request_id: request_id(),
                    ..Default::default()
                })
                .await;
        }
    }
}

/// Performs the tournament screen's requests.
fn perform(clients: &Clients, id: &str) -> impl Fn(Request) -> BoxFuture<'static, Reply> {
    let client = clients.tournaments.clone();
    let id = id.to_owned();
    move |request: Request| -> BoxFuture<'static, Reply> {
        let mut client = client.clone();
        let tournament_id = id.clone();
        Box::pin(async move {
            let result = match &request {
                Request::Register => client
                    .register(tn::RegisterRequest { tournament_id })
                    .await
                    .map(|r| {
                        let answer = r.into_inner();
                        let remark = if answer.replayed {
                            "you were already registered: no second fee was held".to_owned()
                        } else {
                            "registered: your entry fee is held".to_owned()
                        };
                        (answer.tournament.unwrap_or_default(), remark)
                    }),
                Request::Unregister => client
                    .unregister(tn::UnregisterRequest { tournament_id })
                    .await
                    .map(|r| {
                        let answer = r.into_inner();
                        let remark = unregistered_text(&answer);
                        (answer.tournament.unwrap_or_default(), remark)
                    }),
            };
            Reply {
                request,
                result: result.map_err(|s| describe(&s)),
            }
        })
    }
}

/// `gamehub tournaments play`: the tournament screen, and each new table of the player
/// on its game's table screen, until the tournament is over or the player quits.
async fn play(args: TournamentArgs, config: &CommonConfig) -> anyhow::Result<ExitCode> {
    let clients = args.connect.clients(config)?;
    let me = whoami(&args.connect, &clients).await;
    let id = args.tournament.clone();
    // Mistakes (no such tournament, a refused token) print plainly, before the screen.
    let mut latest = get(&clients, &id).await?;
    let game = latest
        .settings
        .as_ref()
        .and_then(|s| game_arg(GameType::try_from(s.game_type).unwrap_or_default()))
        .ok_or_else(|| anyhow::anyhow!("tournament {id} plays a game this client does not know"))?;
    if is_over(&latest) {
        for line in view::final_lines(&latest, &me) {
            println!("{line}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let (tx, mut feed) = mpsc::channel(FEED_BACKLOG);
    let follower = follow(clients.tournaments.clone(), id.clone(), tx);
    let mut played: HashSet<String> = HashSet::new();
    let mut last_result: Vec<String> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let mut lost: Option<String> = None;
    let mut terminal = Terminal::start()?;
    let mut keys = EventStream::new();
    let goodbye = loop {
        if let Some(reason) = lost.take() {
            drop(terminal);
            follower.abort();
            anyhow::bail!("following tournament {id}: {reason}");
        }
        // The tournament until it seats the player, ends, or the player quits.
        let mut screen =
            TournamentApp::new(latest.clone(), &me, played.clone(), last_result.clone());
        let (screen_tx, screen_rx) = mpsc::channel(FEED_BACKLOG);
        let ran = {
            let run = app::run(
                &mut terminal,
                &mut keys,
                &mut screen,
                screen_rx,
                perform(&clients, &id),
            );
            tokio::select! {
                ran = run => ran,
                never = pump(&mut feed, &mut latest, screen_tx) => match never {},
            }
        };
        ran?;
        keep_newest(&mut latest, screen.tournament().clone());
        let table = match screen.outcome().cloned() {
            Some(Outcome::Play(table)) => table,
            Some(Outcome::Over) => break view::final_lines(&latest, &me),
            Some(Outcome::Lost(reason)) => {
                lost = Some(reason);
                continue;
            }
            Some(Outcome::Quit) | None => break quit_lines(&latest, &me),
        };

        // The player's table, until the tournament has its result or the player
        // quits or leaves it.
        played.insert(table.clone());
        let note = view::table_note(&latest, &table, &me);
        let (control_tx, control_rx) = mpsc::channel(8);
        let end: TableEnd = {
            let run = controlled_table_screen(
                game,
                &mut terminal,
                &mut keys,
                &clients,
                &table,
                note,
                control_rx,
            );
            tokio::select! {
                end = run => end?,
                never = steer(&mut feed, &mut latest, &mut lost, &table, control_tx) => {
                    match never {}
                }
            }
        };
        last_result.clone_from(&end.result);
        match at_table(&latest, &table) {
            // The tournament has the result: the table is done with (unless the
            // players started another game there, which is theirs to finish).
            AtTable::MovedOn(_) => {
                if (end.stopped || end.still_seated) && !end.in_progress {
                    leave(&clients, game, &table).await;
                }
            }
            AtTable::Cancelled(_) if end.still_seated => {
                notes.push(format!(
                    "you are still seated at table {table}, whose game counts for nothing now: `gamehub play {} --table {table}` takes you back to it",
                    match game {
                        GameArg::Gomoku => "gomoku",
                        GameArg::Doudizhu => "doudizhu",
                    }
                ));
            }
            // The player left the table (during a game: an escape, a loss), or quit
            // its screen while the game goes on: the tournament screen says `back`.
            AtTable::Stay | AtTable::Cancelled(_) => {}
        }
    };
    drop(terminal);
    follower.abort();
    if !last_result.is_empty() {
        println!("your last game:");
        for line in &last_result {
            println!("  {line}");
        }
    }
    for line in goodbye.iter().chain(&notes) {
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// What is printed when the player stops following a tournament that goes on.
fn quit_lines(t: &tn::Tournament, me: &str) -> Vec<String> {
    let id = &t.tournament_id;
    let registered = t.players.iter().any(|p| p.player_id == me);
    let mut out = vec![format!("you stopped following tournament {id}; it goes on")];
    match view::state_of(t) {
        tn::State::Running if !t.your_table_id.is_empty() => out.push(format!(
            "your game at table {} goes on without you (a game you do not come back to is lost on time): `gamehub tournaments play {id}` takes you back to it",
            t.your_table_id
        )),
        tn::State::Running if registered => out.push(format!(
            "your games go on without you (a game you do not come to is lost on time): `gamehub tournaments play {id}` takes you back"
        )),
        tn::State::Registering if registered => out.push(format!(
            "you are registered: `gamehub tournaments play {id}` follows it and plays your games when it starts"
        )),
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_registration_says_what_was_held_and_what_comes_next() {
        let t = tn::Tournament {
            tournament_id: "tn-1".into(),
            settings: Some(tn::TournamentSettings {
                name: "Open".into(),
                entry_fee_silver: 1500,
                max_players: 8,
                ..Default::default()
            }),
            state: tn::State::Registering as i32,
            players: vec![tn::Entrant::default(); 3],
            pool_silver: 4500,
            ..Default::default()
        };
        let first = registered_text(&tn::RegisterResponse {
            tournament: Some(t.clone()),
            replayed: false,
        });
        assert_eq!(
            first[0],
            "registered for \"Open\" (tn-1): entry fee 1,500 silver held (given back if you unregister before the start or it is cancelled)"
        );
        assert_eq!(
            first[1],
            "3 of 8 players · pool 4,500 · starts when full (sit-and-go)"
        );
        let again = registered_text(&tn::RegisterResponse {
            tournament: Some(t.clone()),
            replayed: true,
        });
        assert!(again[0].contains("already registered") && again[0].contains("no second fee"));
        assert_eq!(
            unregistered_text(&tn::UnregisterResponse {
                tournament: Some(t),
                refunded_silver: 1500,
            }),
            "unregistered from \"Open\" (tn-1): 1,500 silver given back"
        );
    }

    fn at(table: &str, state: tn::State, version: i64) -> TournamentFeed {
        Feed::Snapshot(tn::Tournament {
            tournament_id: "tn-1".into(),
            state: state as i32,
            version,
            your_table_id: table.into(),
            cancel_reason: "cancelled by ops: rain".into(),
            ..Default::default()
        })
    }

    #[tokio::test]
    async fn steering_closes_the_table_only_once_the_tournament_has_the_result() {
        let (tx, mut feed) = mpsc::channel(8);
        let (control_tx, mut control) = mpsc::channel(8);
        let mut latest = tn::Tournament::default();
        let mut lost = None;
        // Still this table, then the next deal's table: told, then closed a moment later.
        tx.send(at("ddz-1", tn::State::Running, 1)).await.unwrap();
        tx.send(at("ddz-2", tn::State::Running, 2)).await.unwrap();
        let started = std::time::Instant::now();
        let collect = async {
            let mut got = Vec::new();
            while let Some(order) = control.recv().await {
                let stop = order == Control::Stop;
                got.push((order, started.elapsed()));
                if stop {
                    break;
                }
            }
            got
        };
        let got = tokio::select! {
            never = steer(&mut feed, &mut latest, &mut lost, "ddz-1", control_tx) => match never {},
            got = collect => got,
        };
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(
            matches!(&got[0].0, Control::Notice(text) if text.contains("your next table opens")),
            "{got:?}"
        );
        assert!(got[0].1 < Duration::from_secs(1), "told at once: {got:?}");
        assert_eq!(got[1].0, Control::Stop);
        assert!(
            got[1].1 >= NEXT_TABLE_AFTER,
            "closed after a moment: {got:?}"
        );
        assert_eq!(latest.version, 2);
        assert_eq!(lost, None);
    }

    #[tokio::test]
    async fn a_cancellation_is_told_once_and_never_cuts_a_game_off() {
        let (tx, mut feed) = mpsc::channel(8);
        let (control_tx, mut control) = mpsc::channel(8);
        let mut latest = tn::Tournament::default();
        let mut lost = None;
        tx.send(at("gt-1", tn::State::Running, 1)).await.unwrap();
        tx.send(at("", tn::State::Cancelled, 2)).await.unwrap();
        tx.send(at("", tn::State::Cancelled, 3)).await.unwrap();
        tx.send(Feed::Ended("no tournament tn-1".into()))
            .await
            .unwrap();
        let steering = steer(&mut feed, &mut latest, &mut lost, "gt-1", control_tx);
        assert!(
            tokio::time::timeout(Duration::from_millis(300), steering)
                .await
                .is_err()
        );
        let mut orders = Vec::new();
        while let Ok(order) = control.try_recv() {
            orders.push(order);
        }
        assert_eq!(orders.len(), 1, "{orders:?}");
        assert!(
            matches!(&orders[0], Control::Notice(text)
                if text.contains("cancelled (reason: cancelled by ops: rain)")
                    && text.contains("counts for nothing")),
            "{orders:?}"
        );
        assert_eq!(latest.version, 3);
        assert_eq!(lost.as_deref(), Some("no tournament tn-1"));
    }

    #[test]
    fn quitting_says_how_to_come_back() {
        let t = tn::Tournament {
            tournament_id: "tn-1".into(),
            state: tn::State::Running as i32,
            players: vec![tn::Entrant {
                player_id: "ann".into(),
                ..Default::default()
            }],
            ..Default::default()
        };
        let lines = quit_lines(&t, "ann");
        assert!(
            lines[1].contains("`gamehub tournaments play tn-1` takes you back"),
            "{lines:?}"
        );
        assert_eq!(
            quit_lines(&t, "bob").len(),
            1,
            "a mere follower is told nothing more"
        );
    }
}
