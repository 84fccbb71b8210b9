//! `gamehub admin …`: the operator's desk. Each subcommand is a thin client of a public
//! or operator-only gRPC API, called with an operator token; nothing here touches Redis
//! or PostgreSQL, so a player or service token is refused by the same checks as any
//! other caller of those RPCs.
//!
//! | subcommand | calls |
//! |---|---|
//! | `grant` | `LedgerService.GrantSilver` |
//! | `pro` | `LedgerService.SetProfessional` |
//! | `player` | `LedgerService.GetAccount`, `ListHistory`, `ListGames` |
//! | `table` | `GomokuService.GetTable`, else `DoudizhuService.GetTable` |
//! | `dead-letters` | `TableOperatorService.ListDeadLetters` on both game services |
//! | `redeliver` | `TableOperatorService.Redeliver` on both game services |
//! | `close-table` | `TableOperatorService.CloseTable` at the service holding the table |

use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Subcommand};
use gamehub_platform::auth::Role;
use gamehub_platform::client::{ServiceChannel, TokenSource, service_channel};
use gamehub_platform::config::CommonConfig;
use gamehub_proto::common::GameType;
use gamehub_proto::doudizhu as ddz;
use gamehub_proto::gomoku as gm;
use gamehub_proto::ledger as lg;
use gamehub_proto::operator as op;
use gamehub_proto::operator::table_operator_service_client::TableOperatorServiceClient;

use gamehub_drive::api::Services;
use gamehub_drive::api::{Clients, Endpoints, request_id};
use gamehub_render::{describe, ledger, thousands};

/// Where the platform is and the operator's token.
#[derive(Args, Debug, Clone, Default)]
pub struct AdminConnect {
    /// Where the services are.
    #[command(flatten)]
    pub services: Services,
    /// The operator's bearer token (role `operator`, from the platform's identity
    /// provider). Without it, a development platform gets a token minted from the
    /// development key for the operator `admin`; production refuses that.
    #[arg(
        long,
        global = true,
        env = "GAMEHUB_OPERATOR_TOKEN",
        hide_env_values = true
    )]
    pub token: Option<String>,
}

impl AdminConnect {
    fn endpoints(&self, config: &CommonConfig) -> Endpoints {
        self.services.endpoints(config)
    }

    fn token(&self, config: &CommonConfig) -> anyhow::Result<TokenSource> {
        match &self.token {
            Some(token) if !token.trim().is_empty() => {
                Ok(TokenSource::Static(token.trim().to_owned()))
            }
            _ => Ok(TokenSource::Static(gamehub_drive::token::mint(
                config,
                "admin",
                Role::Operator,
                Duration::from_secs(3600),
            )?)),
        }
    }
}

/// `gamehub admin …`.
#[derive(Args, Debug)]
pub struct AdminArgs {
    #[command(flatten)]
    connect: AdminConnect,
    #[command(subcommand)]
    command: AdminCommand,
}

#[derive(Subcommand, Debug)]
enum AdminCommand {
    /// Give a player silver (LedgerService.GrantSilver). Idempotent by --request-id:
    /// repeating a grant with the same id changes nothing. Shown in the player's history
    /// with its reason.
    Grant {
        /// The player.
        player: String,
        /// Silver to add, 1 to 1,000,000,000.
        amount: i64,
        /// Why (kept in the player's history), at most 200 characters.
        #[arg(long)]
        reason: String,
        /// The grant's id; repeating a grant with the same id is answered, not applied
        /// twice. Default: a fresh id, printed so a retry can reuse it.
        #[arg(long)]
        request_id: Option<String>,
    },
    /// Set a player's professional dan 1-9 (职业段位), or clear it with --clear
    /// (LedgerService.SetProfessional).
    Pro {
        /// The player.
        player: String,
        /// The dan, 1-9.
        #[arg(required_unless_present = "clear", conflicts_with = "clear")]
        dan: Option<i32>,
        /// Clear the professional flag.
        #[arg(long)]
        clear: bool,
    },
    /// A player's balance, today's won and lost against the caps, points, titles,
    /// rating, and the last games and changes (LedgerService.GetAccount, ListHistory,
    /// ListGames).
    Player {
        /// The player.
        player: String,
        /// How many of the last games and of the last changes.
        #[arg(long, default_value_t = 10)]
        last: i32,
    },
    /// A live table as the server holds it, either game: players, whose turn, clocks and
    /// deadlines (GomokuService.GetTable, else DoudizhuService.GetTable).
    Table {
        /// The table's id.
        table: String,
    },
    /// End a stuck table now (TableOperatorService.CloseTable): its players see "closed
    /// by operator NAME: REASON"; a game in progress is voided (nothing reaches the
    /// ledger: no silver, points or rating move, nobody escapes).
    CloseTable {
        /// The table's id.
        table: String,
        /// Why, shown to the table's players (at most 200 characters).
        #[arg(long)]
        reason: String,
    },
    /// Settlements the ledger refused, parked for an operator, on both game services
    /// (TableOperatorService.ListDeadLetters): game id, table, reason, age.
    DeadLetters {
        /// How many per game service at most (1-500).
        #[arg(long, default_value_t = 100)]
        limit: i32,
    },
    /// Deliver dead letters again once their cause is fixed
    /// (TableOperatorService.Redeliver): they go back into the outbox and are settled
    /// exactly once; a game the ledger already has is answered as a replay.
    Redeliver {
        /// The game's id (see `gamehub admin dead-letters`).
        #[arg(required_unless_present = "all", conflicts_with = "all")]
        game_id: Option<String>,
        /// Every dead letter of both game services.
        #[arg(long)]
        all: bool,
    },
}

/// Calls taking longer than this fail with DEADLINE_EXCEEDED.
const CALL_TIMEOUT: Duration = Duration::from_secs(15);

/// A refusal as an error whose text is the server's message.
fn status(status: tonic::Status) -> anyhow::Error {
    anyhow::anyhow!("{}", describe(&status))
}

fn when(unix_ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(unix_ms)
        .map(|t| t.format("%Y-%m-%d %H:%M:%S UTC").to_string())
        .unwrap_or_else(|| "-".into())
}

/// "12s", "5m", "3h", "2d": how long ago (or, negative, how long until).
fn age(now_ms: i64, at_ms: i64) -> String {
    let secs = (now_ms - at_ms) / 1000;
    let (sign, secs) = if secs < 0 { ("in ", -secs) } else { ("", secs) };
    let text = match secs {
        s if s < 120 => format!("{s}s"),
        s if s < 7200 => format!("{}m", s / 60),
        s if s < 172_800 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    };
    format!("{sign}{text}")
}

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// Runs `gamehub admin …`.
pub async fn run(args: AdminArgs, config: &CommonConfig) -> anyhow::Result<ExitCode> {
    let endpoints = args.connect.endpoints(config);
    let token = args.connect.token(config)?;
    let mut clients = Clients::new(&endpoints, token.clone())?;
    match args.command {
        AdminCommand::Grant {
            player,
            amount,
            reason,
            request_id: id,
        } => {
            let id = id.unwrap_or_else(request_id);
            let grant = clients
                .ledger
                .grant_silver(lg::GrantSilverRequest {
                    request_id: id.clone(),
                    player_id: player.clone(),
                    amount_silver: amount,
                    reason,
                })
                .await
                .map_err(status)?
                .into_inner();
            println!(
                "{} {} silver to {player} (request id {id}, transfer {}); balance now {}",
                if grant.replayed {
                    "already granted"
                } else {
                    "granted"
                },
                thousands(amount),
                grant.transfer_id,
                thousands(grant.balance_silver)
            );
        }
        AdminCommand::Pro { player, dan, clear } => {
            let dan = if clear { 0 } else { dan.unwrap_or_default() };
            let account = clients
                .ledger
                .set_professional(lg::SetProfessionalRequest {
                    player_id: player.clone(),
                    professional_dan: dan,
                })
                .await
                .map_err(status)?
                .into_inner()
                .account
                .unwrap_or_default();
            let rating = account.gomoku_rating.unwrap_or_default();
            if rating.professional_dan == 0 {
                println!(
                    "{player} is not a professional; rating {} ({})",
                    rating.rating, rating.rank_name
                );
            } else {
                println!(
                    "{player} is a professional {}p; rating {} ({})",
                    rating.professional_dan, rating.rating, rating.rank_name
                );
            }
        }
        AdminCommand::Player { player, last } => {
            let account = clients
                .ledger
                .get_account(lg::GetAccountRequest {
                    player_id: player.clone(),
                })
                .await
                .map_err(status)?
                .into_inner()
                .account
                .unwrap_or_default();
            for line in ledger::account_lines(&account, &[]) {
                println!("{line}");
            }
            let games = clients
                .ledger
                .list_games(lg::ListGamesRequest {
                    player_id: player.clone(),
                    game_type: GameType::Unspecified as i32,
                    page_size: last,
                    page_token: String::new(),
                })
                .await
                .map_err(status)?
                .into_inner()
                .games;
            println!("last games:");
            if games.is_empty() {
                println!("  none");
            }
            for line in ledger::games_lines(&games, &player) {
                println!("  {line}");
            }
            let history = clients
                .ledger
                .list_history(lg::ListHistoryRequest {
                    player_id: player.clone(),
                    kind: lg::HistoryKind::Unspecified as i32,
                    page_size: last,
                    page_token: String::new(),
                })
                .await
                .map_err(status)?
                .into_inner()
                .entries;
            println!("last changes:");
            if history.is_empty() {
                println!("  none");
            }
            for line in ledger::history_lines(&history) {
                println!("  {line}");
            }
        }
        AdminCommand::Table { table } => {
            let gomoku = clients
                .gomoku
                .get_table(gm::GetTableRequest {
                    table_id: table.clone(),
                })
                .await;
            match gomoku {
                Ok(view) => {
                    for line in gomoku_table_lines(&view.into_inner().table.unwrap_or_default()) {
                        println!("{line}");
                    }
                }
                Err(e) if e.code() == tonic::Code::NotFound => {
                    let view = clients
                        .doudizhu
                        .get_table(ddz::GetTableRequest {
                            table_id: table.clone(),
                            as_spectator: true,
                        })
                        .await
                        .map_err(|e| {
                            if e.code() == tonic::Code::NotFound {
                                anyhow::anyhow!(
                                    "no table {table} at the Gomoku referee nor at the Dou Dizhu dealer"
                                )
                            } else {
                                status(e)
                            }
                        })?
                        .into_inner();
                    for line in doudizhu_table_lines(&view.table.unwrap_or_default()) {
                        println!("{line}");
                    }
                }
                Err(e) => return Err(status(e)),
            }
        }
        AdminCommand::CloseTable { table, reason } => {
            let mut closed = None;
            for (game, mut desk) in desks(&endpoints, &token)? {
                match desk
                    .close_table(op::CloseTableRequest {
                        table_id: table.clone(),
                        reason: reason.clone(),
                    })
                    .await
                {
                    Ok(answer) => {
                        closed = Some((game, answer.into_inner()));
                        break;
                    }
                    // A table lives at one service: the other answers NOT_FOUND.
                    Err(e) if e.code() == tonic::Code::NotFound => {}
                    Err(e) => return Err(status(e)),
                }
            }
            let Some((game, closed)) = closed else {
                anyhow::bail!("no table {table} at the Gomoku referee nor at the Dou Dizhu dealer");
            };
            if closed.already_closed {
                println!(
                    "{game} table {table} was already closed: {}",
                    closed.closed_reason
                );
            } else {
                println!("{game} table {table} closed: {}", closed.closed_reason);
                if closed.voided_game_id.is_empty() {
                    println!("no game was in progress");
                } else {
                    println!(
                        "game {} voided: nothing sent to the ledger",
                        closed.voided_game_id
                    );
                }
            }
        }
        AdminCommand::DeadLetters { limit } => {
            let now = now_ms();
            let mut any = false;
            for (game, mut desk) in desks(&endpoints, &token)? {
                let list = desk
                    .list_dead_letters(op::ListDeadLettersRequest { limit })
                    .await
                    .map_err(status)?
                    .into_inner();
                println!("{game}: {} dead letter(s)", list.total);
                for letter in &list.letters {
                    any = true;
                    println!(
                        "  {}  table {}  ended {} ago  parked {}  {}",
                        letter.game_id,
                        letter.table_id,
                        age(now, letter.created_at_unix_ms),
                        if letter.dead_at_unix_ms > 0 {
                            when(letter.dead_at_unix_ms)
                        } else {
                            "-".into()
                        },
                        letter.reason
                    );
                }
            }
            if any {
                println!("fix the cause, then: gamehub admin redeliver GAME_ID (or --all)");
            }
        }
        AdminCommand::Redeliver { game_id, all } => {
            let mut moved = Vec::new();
            for (game, mut desk) in desks(&endpoints, &token)? {
                let request = op::RedeliverRequest {
                    game_id: game_id.clone().unwrap_or_default(),
                    all,
                };
                match desk.redeliver(request).await {
                    Ok(answer) => moved.extend(
                        answer
                            .into_inner()
                            .game_ids
                            .into_iter()
                            .map(|id| format!("{id} ({game})")),
                    ),
                    // One game lives at one service: the other answers NOT_FOUND.
                    Err(e) if e.code() == tonic::Code::NotFound && !all => {}
                    Err(e) => return Err(status(e)),
                }
            }
            match (moved.is_empty(), game_id) {
                (true, Some(id)) => anyhow::bail!("no dead letter for game {id}"),
                (true, None) => println!("no dead letters"),
                (false, _) => {
                    println!(
                        "back in the outbox, the settler delivers each once: {}",
                        moved.join(", ")
                    );
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The operator desks of both game services.
fn desks(
    endpoints: &Endpoints,
    token: &TokenSource,
) -> anyhow::Result<Vec<(&'static str, TableOperatorServiceClient<ServiceChannel>)>> {
    Ok(vec![
        (
            "gomoku",
            TableOperatorServiceClient::new(service_channel(
                &endpoints.gomoku,
                token.clone(),
                CALL_TIMEOUT,
            )?),
        ),
        (
            "doudizhu",
            TableOperatorServiceClient::new(service_channel(
                &endpoints.doudizhu,
                token.clone(),
                CALL_TIMEOUT,
            )?),
        ),
    ])
}

fn enum_name<E: TryFrom<i32>>(value: i32, name: impl Fn(&E) -> &'static str) -> String {
    E::try_from(value).map_or_else(|_| value.to_string(), |e| name(&e).to_owned())
}

/// A Gomoku table as an operator reads it.
pub fn gomoku_table_lines(table: &gm::Table) -> Vec<String> {
    let now = table.server_time_unix_ms;
    let mut out = vec![format!(
        "gomoku table {}  room {}  {}  last event {}",
        table.table_id,
        table.stakes.as_ref().map_or("", |s| s.room_id.as_str()),
        enum_name(table.status, gm::TableStatus::as_str_name),
        table.last_event_id
    )];
    if !table.closed_reason.is_empty() {
        out.push(format!("closed: {}", table.closed_reason));
    }
    let game = table.game.clone().unwrap_or_default();
    for p in &table.players {
        let clock = game.clocks.iter().find(|c| c.seat == p.seat);
        out.push(format!(
            "seat {} {}  {}{}{}{}",
            p.seat,
            p.player_id,
            enum_name(p.color, gm::Color::as_str_name),
            clock.map_or(String::new(), |c| format!(
                "  clock {}.{:03}s{}",
                c.remaining_ms / 1000,
                c.remaining_ms % 1000,
                if c.running { " running" } else { "" }
            )),
            if p.wants_next_game {
                "  wants next game"
            } else {
                ""
            },
            if p.left { "  left" } else { "" },
        ));
    }
    out.push(format!(
        "game {} ({})  {}  {} stones  to move: {}{}",
        game.number,
        game.game_id,
        enum_name(game.phase, gm::Phase::as_str_name),
        game.stones.len(),
        game.to_act_seat
            .map_or("nobody".to_owned(), |s| format!("seat {s}")),
        if game.turn_deadline_unix_ms > 0 {
            format!(
                "  turn deadline {} ({})",
                when(game.turn_deadline_unix_ms),
                age(now, game.turn_deadline_unix_ms)
            )
        } else {
            String::new()
        }
    ));
    if let Some(seat) = game.draw_offered_by_seat {
        out.push(format!("draw offered by seat {seat}"));
    }
    if table.closes_at_unix_ms > 0 {
        out.push(format!(
            "closes {} ({}) unless both ask for the next game",
            when(table.closes_at_unix_ms),
            age(now, table.closes_at_unix_ms)
        ));
    }
    out.push(gamehub_render::gomoku_board(&game));
    out
}

/// A Dou Dizhu table as an operator reads it (the spectator's view: no hands).
pub fn doudizhu_table_lines(table: &ddz::Table) -> Vec<String> {
    let now = now_ms();
    let mut out = vec![format!(
        "doudizhu table {}  room {}  {}{}  last event {}",
        table.table_id,
        table.stakes.as_ref().map_or("", |s| s.room_id.as_str()),
        enum_name(table.status, ddz::TableStatus::as_str_name),
        if table.close_reason == 0 {
            String::new()
        } else {
            format!(
                " ({})",
                enum_name(table.close_reason, ddz::CloseReason::as_str_name)
            )
        },
        table.last_event_id
    )];
    for s in &table.seats {
        out.push(format!(
            "seat {} {}  {} cards{}{}{}",
            s.seat,
            s.player_id,
            s.cards_left,
            if s.landlord { "  landlord" } else { "" },
            if s.auto_play { "  auto-play" } else { "" },
            if s.ready { "  ready" } else { "" },
        ));
    }
    out.push(format!(
        "deal {} ({})  {}  multiplier ×{}  to act: seat {}{}",
        table.deal_number,
        table.deal_id,
        enum_name(table.phase, ddz::Phase::as_str_name),
        table.multiplier,
        table.to_act,
        if table.turn_deadline_unix_ms > 0 {
            format!(
                "  turn deadline {} ({})",
                when(table.turn_deadline_unix_ms),
                age(now, table.turn_deadline_unix_ms)
            )
        } else {
            String::new()
        }
    ));
    if table.next_deal_deadline_unix_ms > 0 {
        out.push(format!(
            "next deal deadline {} ({})",
            when(table.next_deal_deadline_unix_ms),
            age(now, table.next_deal_deadline_unix_ms)
        ));
    }
    out
}
