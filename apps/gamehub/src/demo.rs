//! `gamehub demo`: one Gomoku game and one Dou Dizhu deal played by built-in bots
//! through the public gRPC API, from matchmaking to settlement, printing the board and
//! the tricks as they happen and the ledger's balances, points and titles at the end.

use std::time::Duration;

use gamehub_platform::auth::Role;
use gamehub_platform::client::TokenSource;
use gamehub_platform::config::CommonConfig;
use gamehub_proto::common::GameType;
use gamehub_proto::doudizhu as ddz;
use gamehub_proto::gomoku as gm;
use gamehub_proto::ledger as lg;
use gamehub_proto::matchmaking as mm;
use gamehub_render as render;

use gamehub_drive as drive;
use gamehub_drive::api::{Clients, Endpoints, request_id};

/// What the demo plays.
#[derive(Debug, Clone)]
pub struct DemoOptions {
    /// The Gomoku room.
    pub gomoku_room: String,
    /// The Dou Dizhu room.
    pub doudizhu_room: String,
    /// A pause before each bot action, so a person can follow.
    pub think: Duration,
    /// Print every board and trick (off: only the summary).
    pub verbose: bool,
}

impl Default for DemoOptions {
    fn default() -> Self {
        Self {
            gomoku_room: "gomoku-renju".into(),
            doudizhu_room: "doudizhu-classic".into(),
            think: Duration::from_millis(150),
            verbose: true,
        }
    }
}

/// What the demo saw, for tests.
#[derive(Debug, Clone, Default)]
pub struct DemoReport {
    /// The Gomoku players (seat 0 first) and the table.
    pub gomoku_players: Vec<String>,
    /// The Gomoku game's result.
    pub gomoku_result: Option<gm::GameResult>,
    /// The Gomoku settlement as the table announced it.
    pub gomoku_settlement: Option<gm::GameSettled>,
    /// The Dou Dizhu players (seat 0 first).
    pub doudizhu_players: Vec<String>,
    /// The deal's result.
    pub doudizhu_result: Option<ddz::DealResult>,
    /// Whether the revealed seed reproduced the dealt hands and the commitment.
    pub shuffle_verified: bool,
    /// Every demo player's account at the end.
    pub accounts: Vec<lg::Account>,
}

fn say(verbose: bool, text: impl AsRef<str>) {
    if verbose {
        println!("{}", text.as_ref());
    }
}

/// Runs the demo against the platform at `endpoints`. Tokens are minted with the
/// configured (development) key; each run uses fresh player names.
pub async fn run(
    endpoints: &Endpoints,
    config: &CommonConfig,
    options: &DemoOptions,
) -> anyhow::Result<DemoReport> {
    let v = options.verbose;
    let run = &uuid::Uuid::new_v4().simple().to_string()[..6];
    let ttl = Duration::from_secs(3600);
    let token = |subject: &str, role: Role| -> anyhow::Result<TokenSource> {
        Ok(TokenSource::Static(gamehub_drive::token::mint(
            config, subject, role, ttl,
        )?))
    };
    let mut operator = Clients::new(endpoints, token("demo-operator", Role::Operator)?)?;
    let rooms = operator
        .matchmaking
        .list_rooms(mm::ListRoomsRequest {})
        .await?
        .into_inner()
        .rooms;
    let room = |id: &str| -> anyhow::Result<mm::Room> {
        rooms
            .iter()
            .find(|r| r.room_id == id)
            .cloned()
            .ok_or_else(|| anyhow::anyhow!("no room {id}; `gamehub serve` lists the rooms"))
    };
    let gomoku_room = room(&options.gomoku_room)?;
    let doudizhu_room = room(&options.doudizhu_room)?;

    let gomoku_players: Vec<String> = ["alice", "bob"]
        .iter()
        .map(|n| format!("{n}-{run}"))
        .collect();
    let doudizhu_players: Vec<String> = ["carol", "dave", "erin"]
        .iter()
        .map(|n| format!("{n}-{run}"))
        .collect();
    let mut report = DemoReport {
        gomoku_players: gomoku_players.clone(),
        doudizhu_players: doudizhu_players.clone(),
        ..DemoReport::default()
    };

    // Silver only enters through an operator's grant: give every player enough to sit.
    for (players, room) in [
        (&gomoku_players, &gomoku_room),
        (&doudizhu_players, &doudizhu_room),
    ] {
        let stakes = room.stakes.clone().unwrap_or_default();
        let amount = stakes.min_balance_silver.max(1000) * 2;
        for player in players {
            operator
                .ledger
                .grant_silver(lg::GrantSilverRequest {
                    request_id: request_id(),
                    player_id: player.clone(),
                    amount_silver: amount,
                    reason: "demo: welcome grant".into(),
                })
                .await?;
        }
        say(
            v,
            format!("granted {amount} silver each to {}", players.join(", ")),
        );
    }

    // ---- Gomoku
    say(
        v,
        format!(
            "\n== Gomoku in room {} ({})",
            gomoku_room.room_id, gomoku_room.display_name
        ),
    );
    let mut gomoku_tasks = Vec::new();
    for (i, player) in gomoku_players.iter().enumerate() {
        let mut clients = Clients::new(endpoints, token(player, Role::Player)?)?;
        let room_id = gomoku_room.room_id.clone();
        let player = player.clone();
        let think = options.think;
        let print = v && i == 0;
        gomoku_tasks.push(tokio::spawn(async move {
            let seat = drive::matchmaking::seat(&mut clients.matchmaking, &room_id, "", |t| {
                if print && t.state() == mm::TicketState::Waiting {
                    println!(
                        "{} waits in {} (position {})",
                        t.player_id, t.room_id, t.position
                    );
                }
            })
            .await?;
            if print {
                println!(
                    "seated at Gomoku table {} (seat {})",
                    seat.table_id, seat.seat
                );
            }
            let mut board = gm::Game::default();
            let options = drive::gomoku::Options {
                games: 1,
                think,
                seed: u64::from(player.len() as u32) ^ 0x5eed,
            };
            drive::gomoku::play(clients.gomoku.clone(), &seat.table_id, options, |update| {
                if print {
                    print_gomoku(&mut board, update);
                }
            })
            .await
        }));
    }
    for task in gomoku_tasks {
        let outcome = task.await??;
        if report.gomoku_result.is_none() {
            report.gomoku_result = outcome.results.first().cloned();
            report.gomoku_settlement = outcome.settlements.first().cloned();
        }
    }
    if let Some(result) = &report.gomoku_result {
        say(v, format!("result: {}", result.description));
    }
    if let Some(settled) = &report.gomoku_settlement {
        for seat in settled.settlement.iter().flat_map(|s| s.seats.iter()) {
            say(
                v,
                format!(
                    "  {:<14} points {:+}, silver {:+}",
                    seat.player_id, seat.points_delta, seat.silver_delta
                ),
            );
        }
    }

    // ---- Dou Dizhu
    say(
        v,
        format!(
            "\n== Dou Dizhu in room {} ({})",
            doudizhu_room.room_id, doudizhu_room.display_name
        ),
    );
    let mut ddz_tasks = Vec::new();
    for (i, player) in doudizhu_players.iter().enumerate() {
        let mut clients = Clients::new(endpoints, token(player, Role::Player)?)?;
        let room_id = doudizhu_room.room_id.clone();
        let think = options.think;
        let names = doudizhu_players.clone();
        let me = player.clone();
        ddz_tasks.push(tokio::spawn(async move {
            let seat =
                drive::matchmaking::seat(&mut clients.matchmaking, &room_id, "", |_| {}).await?;
            let print_table = v && i == 0;
            let mut names_by_seat = seat.players.clone();
            if names_by_seat.is_empty() {
                names_by_seat = names;
            }
            let outcome = drive::doudizhu::play(
                clients.doudizhu.clone(),
                &seat.table_id,
                drive::doudizhu::Options { deals: 1, think },
                |update| print_doudizhu(v, print_table, &me, &names_by_seat, update),
            )
            .await?;
            Ok::<_, anyhow::Error>((seat, outcome, clients))
        }));
    }
    let mut first_seat = None;
    for task in ddz_tasks {
        let (seat, outcome, clients) = task.await??;
        if report.doudizhu_result.is_none() {
            report.doudizhu_result = outcome.results.first().cloned();
            first_seat = Some((seat, clients));
        }
    }
    if let Some((seat, mut clients)) = first_seat {
        // Anyone can check the shuffle once the deal is over.
        let record = clients
            .doudizhu
            .get_deal_record(ddz::GetDealRecordRequest {
                table_id: seat.table_id.clone(),
                deal_number: 1,
            })
            .await?
            .into_inner()
            .record
            .unwrap_or_default();
        report.shuffle_verified = doudizhu_rules::verify_published(
            &record.seed,
            &record.commitment,
            &record.deal_id,
            record.hands.iter().map(|h| h.cards.as_slice()),
            &record.kitty,
        )
        .is_ok();
        say(
            v,
            format!(
                "deal seed {} {} the commitment {}",
                record.seed,
                if report.shuffle_verified {
                    "reproduces the hands and"
                } else {
                    "DOES NOT match"
                },
                record.commitment
            ),
        );
    }

    // ---- The ledger
    say(v, "\n== The ledger");
    for player in gomoku_players.iter().chain(&doudizhu_players) {
        let account = operator
            .ledger
            .get_account(lg::GetAccountRequest {
                player_id: player.clone(),
            })
            .await?
            .into_inner()
            .account
            .unwrap_or_default();
        let standings: Vec<String> = account
            .standings
            .iter()
            .filter(|s| s.games > 0)
            .map(|s| {
                let game = if s.game_type() == GameType::Gomoku {
                    "gomoku"
                } else {
                    "doudizhu"
                };
                let title = s.title.as_ref().map(|t| t.name.as_str()).unwrap_or("");
                format!(
                    "{game} {} points ({title}), W{} L{} D{} E{}",
                    s.points, s.wins, s.losses, s.draws, s.escapes
                )
            })
            .collect();
        let rating = account
            .gomoku_rating
            .as_ref()
            .map(|r| format!(", rating {} ({})", r.rating, r.rank_name))
            .unwrap_or_default();
        say(
            v,
            format!(
                "  {:<14} {:>8} silver; {}{rating}",
                account.player_id,
                account.balance_silver,
                standings.join("; ")
            ),
        );
        report.accounts.push(account);
    }
    Ok(report)
}

fn print_gomoku(board: &mut gm::Game, update: drive::gomoku::Update<'_>) {
    use gm::table_event::Kind;
    match update {
        drive::gomoku::Update::Table(table) => {
            if let Some(game) = &table.game {
                *board = game.clone();
            }
        }
        drive::gomoku::Update::Event(event) => match &event.kind {
            Some(Kind::GameStarted(started)) => {
                *board = gm::Game::default();
                println!(
                    "game {} starts; seat {} plays black",
                    event.game_number, started.black_seat
                );
            }
            Some(Kind::StonePlaced(placed)) => {
                if let Some(stone) = &placed.stone {
                    board.stones.push(stone.clone());
                    board.last_move = Some(stone.clone());
                    board.forbidden_points.clear();
                    let color = if stone.color() == gm::Color::Black {
                        "black"
                    } else {
                        "white"
                    };
                    let at = stone.point.as_ref().map(|p| p.text.as_str()).unwrap_or("?");
                    println!(
                        "\nmove {}: {color} {at}\n{}",
                        stone.ply,
                        render::gomoku_board(board)
                    );
                }
            }
            Some(Kind::Swapped(s)) => println!("seat {} swaps colors", s.seat),
            Some(Kind::FifthProposed(f)) => println!(
                "black proposes {}",
                f.points
                    .iter()
                    .map(|p| p.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" and ")
            ),
            Some(Kind::GameOver(over)) => {
                if let Some(r) = &over.result {
                    println!("game over: {}", r.description);
                }
            }
            Some(Kind::GameSettled(_)) => println!("the ledger settled the game"),
            _ => {}
        },
    }
}

fn print_doudizhu(
    verbose: bool,
    print_table: bool,
    me: &str,
    names: &[String],
    update: drive::doudizhu::Update<'_>,
) {
    if !verbose {
        return;
    }
    use ddz::table_event::Kind;
    match update {
        drive::doudizhu::Update::Table(table) => {
            if !table.hand.is_empty() {
                println!("{me}'s hand: {}", render::hand(&table.hand));
            }
        }
        drive::doudizhu::Update::Event(event) => {
            if let Some(Kind::HandDealt(dealt)) = &event.kind {
                println!("{me}'s hand: {}", render::hand(&dealt.cards));
            }
            if !print_table {
                return;
            }
            let name = |seat: i32| render::seat_name(names, seat);
            match &event.kind {
                Some(Kind::DealStarted(d)) => println!(
                    "deal {} dealt; commitment {}; {} bids first",
                    event.deal_number,
                    d.commitment,
                    name(d.first_bidder)
                ),
                Some(Kind::BidMade(b)) => {
                    if let Some(bid) = &b.bid {
                        if bid.points == 0 {
                            println!("{} passes (不叫)", name(bid.seat));
                        } else {
                            println!("{} bids {}", name(bid.seat), bid.points);
                        }
                    }
                }
                Some(Kind::LandlordChosen(l)) => println!(
                    "{} is the landlord at {}; kitty {}",
                    name(l.seat),
                    l.points,
                    render::hand(&l.kitty)
                ),
                Some(Kind::Played(p)) => {
                    if let Some(turn) = &p.turn {
                        println!("  {}   [{} left]", render::turn(turn, names), p.cards_left);
                    }
                }
                Some(Kind::Passed(p)) => {
                    let turn = ddz::Turn {
                        seat: p.seat,
                        by: p.by,
                        ..ddz::Turn::default()
                    };
                    println!("  {}", render::turn(&turn, names));
                }
                Some(Kind::MultiplierChanged(m)) => println!("  multiplier now ×{}", m.multiplier),
                Some(Kind::DealEnded(e)) => {
                    if let Some(r) = &e.result {
                        let mut extra = String::new();
                        if r.spring {
                            extra.push_str(", spring (春天)");
                        }
                        if r.anti_spring {
                            extra.push_str(", anti-spring (反春)");
                        }
                        println!(
                            "deal over: {:?}, multiplier ×{}{extra}; points {:?}",
                            r.outcome(),
                            r.multiplier,
                            r.points
                        );
                    }
                }
                Some(Kind::DealSettled(s)) => {
                    for seat in &s.seats {
                        println!(
                            "  {:<14} points {:+}, silver {:+}",
                            seat.player_id, seat.points_delta, seat.silver_delta
                        );
                    }
                }
                _ => {}
            }
        }
    }
}
