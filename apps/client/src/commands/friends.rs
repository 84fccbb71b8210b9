//! `gamehub play gomoku|doudizhu --friends` and `--code CODE`: a friends' table (好友房)
//! in plain lines — open it (and print the code to share) or sit by a code, say ready,
//! follow the lobby until the game table opens, play it on the table screen, and back
//! to the lobby; and `gamehub watch --list ROOM`: a room's live tables to watch.

use std::process::ExitCode;

use crossterm::event::EventStream;
use futures::StreamExt;
use gamehub_drive::api::{Clients, request_id};
use gamehub_platform::config::CommonConfig;
use gamehub_proto::common::TableSummary;
use gamehub_proto::doudizhu as ddz;
use gamehub_proto::gomoku as gm;
use gamehub_proto::matchmaking as mm;

use crate::term::Terminal;
use crate::{GameArg, PlayArgs};

use super::screens::table_screen;
use super::{game_arg, status};

/// The lobby as lines: the code, the room, each seat with its player and ready mark.
pub fn lobby_lines(table: &mm::FriendsTable, me: &str) -> Vec<String> {
    let room = table.room.as_ref().map_or(String::new(), |r| {
        format!("{} ({})", r.display_name, r.room_id)
    });
    let mut lines = vec![format!("friends' table {} · {room}", table.code)];
    for seat in &table.seats {
        let who = if seat.player_id.is_empty() {
            "(free)".to_owned()
        } else {
            gamehub_render::player(&seat.player_id, seat.profile.as_ref())
        };
        let mut marks = Vec::new();
        if seat.ready {
            marks.push("ready 准备");
        }
        if !seat.player_id.is_empty() && seat.player_id == table.owner_id {
            marks.push("owner");
        }
        if seat.player_id == me {
            marks.push("you");
        }
        let marks = if marks.is_empty() {
            String::new()
        } else {
            format!(" — {}", marks.join(", "))
        };
        lines.push(format!("  seat {}: {who}{marks}", seat.seat));
    }
    lines
}

fn game_of(table: &mm::FriendsTable) -> anyhow::Result<GameArg> {
    table
        .room
        .as_ref()
        .and_then(|r| game_arg(r.game_type()))
        .ok_or_else(|| {
            anyhow::anyhow!(
                "the friends' table {} plays a game this client does not know",
                table.code
            )
        })
}

fn state(table: &mm::FriendsTable) -> mm::FriendsTableState {
    mm::FriendsTableState::try_from(table.state).unwrap_or(mm::FriendsTableState::Unspecified)
}

/// `gamehub play … --friends` / `--code`.
pub(super) async fn play_with_friends(
    game: GameArg,
    args: PlayArgs,
    config: &CommonConfig,
) -> anyhow::Result<ExitCode> {
    let mut clients = args.connect.clients(config)?;
    let me = whoami(&mut clients).await?;
    let mut table = match &args.code {
        Some(code) => clients
            .matchmaking
            .join_friends_table(mm::JoinFriendsTableRequest {
                code: code.clone(),
                seat: None,
            })
            .await
            .map_err(status)?
            .into_inner()
            .table
            .unwrap_or_default(),
        None => {
            let room_id = args.room.clone().unwrap_or_else(|| match game {
                GameArg::Gomoku => "gomoku-free".into(),
                GameArg::Doudizhu => "doudizhu-free".into(),
            });
            let opened = clients
                .matchmaking
                .open_friends_table(mm::OpenFriendsTableRequest {
                    room_id,
                    request_id: request_id(),
                })
                .await
                .map_err(status)?
                .into_inner()
                .table
                .unwrap_or_default();
            let game_word = match game_of(&opened)? {
                GameArg::Gomoku => "gomoku",
                GameArg::Doudizhu => "doudizhu",
            };
            println!(
                "Your friends' table is open. Code: {}  — friends join with `gamehub play {game_word} --code {}`",
                opened.code, opened.code
            );
            opened
        }
    };
    let code = table.code.clone();
    if args.bots {
        table = clients
            .matchmaking
            .add_bots(mm::AddBotsRequest { code: code.clone() })
            .await
            .map_err(status)?
            .into_inner()
            .table
            .unwrap_or(table);
    }
    loop {
        // Ready (准备), then the lobby until the game table opens.
        table = clients
            .matchmaking
            .set_ready(mm::SetReadyRequest {
                code: code.clone(),
                ready: true,
            })
            .await
            .map_err(status)?
            .into_inner()
            .table
            .unwrap_or(table);
        let Some(game_table) = wait_in_lobby(&mut clients, table.clone(), &me).await? else {
            println!("the friends' table {code} closed");
            return Ok(ExitCode::SUCCESS);
        };
        let mut terminal = Terminal::start()?;
        let mut keys = EventStream::new();
        let (farewell, _) = table_screen(
            game_of(&table)?,
            &mut terminal,
            &mut keys,
            &clients,
            &game_table,
            false,
            Some(format!("friends' table {code}")),
        )
        .await?;
        drop(terminal);
        for line in farewell {
            println!("{line}");
        }
        table = clients
            .matchmaking
            .get_friends_table(mm::GetFriendsTableRequest { code: code.clone() })
            .await
            .map_err(status)?
            .into_inner()
            .table
            .unwrap_or(table);
        if state(&table) == mm::FriendsTableState::Closed
            || !table.seats.iter().any(|s| s.player_id == me)
        {
            println!("you left the friends' table {code}");
            return Ok(ExitCode::SUCCESS);
        }
        println!("Back at the friends' table {code}. Enter: ready for the next game · q: leave");
        match read_line().await? {
            Some(line) if line.trim().eq_ignore_ascii_case("q") => {
                clients
                    .matchmaking
                    .leave_friends_table(mm::LeaveFriendsTableRequest { code: code.clone() })
                    .await
                    .map_err(status)?;
                println!("you left the friends' table {code}");
                return Ok(ExitCode::SUCCESS);
            }
            None => return Ok(ExitCode::SUCCESS),
            Some(_) => {}
        }
    }
}

/// One line the player typed; None at the end of the input.
async fn read_line() -> anyhow::Result<Option<String>> {
    let line = tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        std::io::stdin()
            .read_line(&mut line)
            .map(|n| (n > 0).then_some(line))
    })
    .await??;
    Ok(line)
}

/// The player's id as the platform knows it (LocatePlayer answers whom it is about).
async fn whoami(clients: &mut Clients) -> anyhow::Result<String> {
    Ok(clients
        .matchmaking
        .locate_player(mm::LocatePlayerRequest::default())
        .await
        .map_err(status)?
        .into_inner()
        .player_id)
}

/// Prints the lobby at each change until a game table opens (its id) or the table
/// closes (None).
async fn wait_in_lobby(
    clients: &mut Clients,
    table: mm::FriendsTable,
    me: &str,
) -> anyhow::Result<Option<String>> {
    let mut last = Vec::new();
    let mut show = |table: &mm::FriendsTable| {
        let lines = lobby_lines(table, me);
        if lines != last {
            for line in &lines {
                println!("{line}");
            }
            last = lines;
        }
    };
    show(&table);
    let mut stream = clients
        .matchmaking
        .watch_friends_table(mm::WatchFriendsTableRequest {
            code: table.code.clone(),
        })
        .await
        .map_err(status)?
        .into_inner();
    while let Some(update) = stream.next().await {
        let table = update.map_err(status)?.table.unwrap_or_default();
        show(&table);
        match state(&table) {
            // PLAYING always names its game table; one that did not is read again.
            mm::FriendsTableState::Playing => {
                if let Some(game) = table.game {
                    return Ok(Some(game.table_id));
                }
            }
            mm::FriendsTableState::Closed => return Ok(None),
            _ => {}
        }
    }
    anyhow::bail!("the server ended the friends' table stream; run the command again to go back")
}

/// One table of a room's list as a line.
pub fn table_line(summary: &TableSummary) -> String {
    let players: Vec<String> = summary
        .players
        .iter()
        .map(|p| {
            let mut who = gamehub_render::player(&p.player_id, p.profile.as_ref());
            if let Some(profile) = &p.profile {
                if profile.rating > 0 {
                    who.push_str(&format!(" {} {}", profile.rank_name, profile.rating));
                } else if !profile.title.is_empty() {
                    who.push_str(&format!(" {}", profile.title));
                }
            }
            who
        })
        .collect();
    let stage = if summary.in_progress {
        format!("game {} move {}", summary.game_number, summary.move_number)
    } else {
        format!("between games (after game {})", summary.game_number)
    };
    format!(
        "{}  {}  · {stage} · {} watching",
        summary.table_id,
        players.join(" vs "),
        summary.spectators
    )
}

/// Pages `watch --list` shows at most (50 tables each).
const LIST_PAGES: usize = 4;

/// One page of a room's tables from its game's service, and the next page's token.
async fn list_page(
    clients: &Clients,
    game: GameArg,
    room_id: &str,
    token: &str,
) -> anyhow::Result<(Vec<TableSummary>, String)> {
    Ok(match game {
        GameArg::Doudizhu => {
            let page = clients
                .doudizhu
                .clone()
                .list_tables(ddz::ListTablesRequest {
                    room_id: room_id.into(),
                    page_size: 50,
                    page_token: token.into(),
                })
                .await
                .map_err(status)?
                .into_inner();
            (page.tables, page.next_page_token)
        }
        GameArg::Gomoku => {
            let page = clients
                .gomoku
                .clone()
                .list_tables(gm::ListTablesRequest {
                    room_id: room_id.into(),
                    page_size: 50,
                    page_token: token.into(),
                })
                .await
                .map_err(status)?
                .into_inner();
            (page.tables, page.next_page_token)
        }
    })
}

/// `gamehub watch --list ROOM`.
pub(super) async fn list_tables(
    clients: &Clients,
    rooms: &[mm::Room],
    room_id: &str,
) -> anyhow::Result<ExitCode> {
    let room = rooms
        .iter()
        .find(|r| r.room_id == room_id)
        .ok_or_else(|| anyhow::anyhow!("no room {room_id}; `gamehub play rooms` lists them"))?;
    let game = game_arg(room.game_type())
        .ok_or_else(|| anyhow::anyhow!("room {room_id} plays a game this client does not know"))?;
    let mut token = String::new();
    let mut shown = 0usize;
    for _page in 0..LIST_PAGES {
        let (tables, next) = list_page(clients, game, room_id, &token).await?;
        for summary in &tables {
            println!("{}", table_line(summary));
        }
        shown += tables.len();
        token = next;
        if token.is_empty() {
            break;
        }
    }
    if shown == 0 {
        println!("no live tables in {room_id} right now");
        return Ok(ExitCode::SUCCESS);
    }
    if !token.is_empty() {
        println!("… more tables than the {shown} shown");
    }
    let word = match game {
        GameArg::Gomoku => "gomoku",
        GameArg::Doudizhu => "doudizhu",
    };
    println!("watch one: gamehub watch --game {word} --table TABLE_ID");
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gamehub_proto::common::{PlayerProfile, SeatedPlayer};

    #[test]
    fn players_are_shown_by_name_and_id_or_by_id_alone() {
        let named = PlayerProfile {
            name: "张三丰".into(),
            ..Default::default()
        };
        assert_eq!(gamehub_render::player("ann", Some(&named)), "张三丰 (ann)");
        assert_eq!(gamehub_render::player("ann", None), "ann");
        let bot = PlayerProfile {
            bot: true,
            ..Default::default()
        };
        assert_eq!(
            gamehub_render::player("bot-k7qx2m-1", Some(&bot)),
            "bot-k7qx2m-1 [bot]"
        );
    }

    #[test]
    fn the_lobby_shows_seats_ready_marks_and_the_owner() {
        let table = mm::FriendsTable {
            code: "K7QX2M".into(),
            owner_id: "ann".into(),
            seats: vec![
                mm::FriendsSeat {
                    seat: 0,
                    player_id: "ann".into(),
                    profile: Some(PlayerProfile {
                        name: "张三丰".into(),
                        ..Default::default()
                    }),
                    ready: true,
                },
                mm::FriendsSeat {
                    seat: 1,
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        let lines = lobby_lines(&table, "ann");
        assert_eq!(lines[1], "  seat 0: 张三丰 (ann) — ready 准备, owner, you");
        assert_eq!(lines[2], "  seat 1: (free)");
    }

    #[test]
    fn a_listed_table_shows_players_progress_and_spectators() {
        let summary = TableSummary {
            table_id: "gt-1".into(),
            players: vec![
                SeatedPlayer {
                    player_id: "ann".into(),
                    seat: 0,
                    profile: Some(PlayerProfile {
                        name: "张三丰".into(),
                        rating: 3012,
                        rank_name: "1k".into(),
                        ..Default::default()
                    }),
                },
                SeatedPlayer {
                    player_id: "bob".into(),
                    seat: 1,
                    profile: None,
                },
            ],
            in_progress: true,
            game_number: 2,
            move_number: 17,
            spectators: 3,
            ..Default::default()
        };
        assert_eq!(
            table_line(&summary),
            "gt-1  张三丰 (ann) 1k 3012 vs bob  · game 2 move 17 · 3 watching"
        );
    }
}
