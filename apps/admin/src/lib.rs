//! `gamehub admin …`: the operator's desk. Each subcommand is a thin client of a public
//! or operator-only gRPC API, called with an operator token; nothing here touches Redis
//! or PostgreSQL, so a player or service token is refused by the same checks as any
//! other caller of those RPCs.
//!
//! | subcommand | calls |
//! |---|---|
//! | `grant` | `LedgerService.GrantSilver` |
//! | `pro` | `LedgerService.SetProfessional` |
//! | `name` | `LedgerService.SetName` |
//! | `player` | `LedgerService.GetAccount`, `ListHistory`, `ListGames` |
//! | `table` | `GomokuService.GetTable`, else `DoudizhuService.GetTable` |
//! | `dead-letters` | `TableOperatorService.ListDeadLetters` on both game services |
//! | `redeliver` | `TableOperatorService.Redeliver` on both game services |
//! | `close-table` | `TableOperatorService.CloseTable` at the service holding the table |
//! | `audit` | `LedgerService.ListOperatorActions` |
//! | `tournament create` | `TournamentService.CreateTournament` |
//! | `tournament list` | `TournamentService.ListTournaments` |
//! | `tournament show` | `TournamentService.GetTournament` |
//! | `tournament cancel` | `TournamentService.CancelTournament` |
//!
//! Every action (grant, pro, name, close-table, redeliver) takes a `--reason` and a
//! `--request-id` (a fresh one by default) and is written to the audit trail.
//!
//! One function per subcommand, by what it works on: [`accounts`] (the ledger),
//! [`tables`] (live tables of either game), [`dead_letters`] (refused settlements),
//! [`audit`] (the operator audit trail), [`tournaments`] (creating, listing, showing and
//! cancelling tournaments);
//! [`run`] only dispatches. What the desk prints like the player's client (accounts,
//! boards, refusals) comes from `gamehub-render`, the connection flags from
//! `gamehub-drive`.
#![forbid(unsafe_code)]

pub mod accounts;
pub mod audit;
pub mod dead_letters;
pub mod tables;
mod text;
pub mod tournaments;

use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Subcommand};
use gamehub_drive::api::{Clients, Endpoints, Services};
use gamehub_platform::auth::Role;
use gamehub_platform::client::{ServiceChannel, TokenSource, service_channel};
use gamehub_platform::config::CommonConfig;
use gamehub_proto::ledger::ledger_service_client::LedgerServiceClient;
use gamehub_proto::operator::table_operator_service_client::TableOperatorServiceClient;
use gamehub_render::describe;

pub use tables::{doudizhu_table_lines, gomoku_table_lines};

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
        /// Why (kept in the player's history and the audit trail), at most 200
        /// characters.
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
        /// Why (kept in the audit trail), at most 200 characters.
        #[arg(long)]
        reason: String,
        /// The action's id; repeating it with the same id changes nothing and writes no
        /// second audit row. Default: a fresh id, printed.
        #[arg(long)]
        request_id: Option<String>,
    },
    /// Set a player's display name (昵称) with --name, or clear it without
    /// (LedgerService.SetName): 1-12 characters, no control or invisible formatting
    /// characters, no space at either end; audited with the operator's name.
    Name {
        /// The player.
        player: String,
        /// The new name; without it the name is cleared (the player is shown by id).
        #[arg(long)]
        name: Option<String>,
        /// Why (kept in the audit trail), at most 200 characters.
        #[arg(long)]
        reason: String,
        /// The action's id (as for `pro`). Default: a fresh id, printed.
        #[arg(long)]
        request_id: Option<String>,
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
        /// Why, shown to the table's players and kept in the audit trail (at most 200
        /// characters).
        #[arg(long)]
        reason: String,
        /// The action's id; repeating it writes no second audit row. Default: a fresh
        /// id, printed.
        #[arg(long)]
        request_id: Option<String>,
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
        /// Why (kept in the audit trail), at most 200 characters.
        #[arg(long)]
        reason: String,
        /// The action's id; with --all each game service gets `ID.gomoku`,
        /// `ID.doudizhu`. Default: a fresh id, printed.
        #[arg(long)]
        request_id: Option<String>,
    },
    /// The operator audit trail, newest first (LedgerService.ListOperatorActions): who
    /// did what, to whom, when, why, under which request id. Filters combine.
    Audit {
        /// Only this operator's actions (its token's subject).
        #[arg(long)]
        operator: Option<String>,
        /// Only actions on this player, table or game id.
        #[arg(long)]
        target: Option<String>,
        /// Only this kind: grant, pro, name, close-table or redeliver.
        #[arg(long, value_parser = audit::parse_kind)]
        kind: Option<audit::Kind>,
        /// Only actions at or after this time: RFC 3339 (2026-12-05T22:00:00Z) or a
        /// date (2026-12-05, midnight UTC).
        #[arg(long, value_parser = audit::parse_time)]
        since: Option<i64>,
        /// Only actions before this time (as --since).
        #[arg(long, value_parser = audit::parse_time)]
        until: Option<i64>,
        /// How many actions at most (1-1000).
        #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(i32).range(1..=1000))]
        limit: i32,
    },
    /// Tournaments (比赛): create one, list them, show one whole, cancel one with every
    /// fee refunded (TournamentService).
    Tournament {
        #[command(subcommand)]
        command: tournaments::TournamentCommand,
    },
}

/// Calls taking longer than this fail with DEADLINE_EXCEEDED.
const CALL_TIMEOUT: Duration = Duration::from_secs(15);

/// A refusal as an error whose text is the server's message.
fn status(status: tonic::Status) -> anyhow::Error {
    anyhow::anyhow!("{}", describe(&status))
}

/// The ledger, called with the operator's token.
type LedgerClient = LedgerServiceClient<ServiceChannel>;

/// The operator desks of both game services, each with its game's name.
type Desks = Vec<(&'static str, TableOperatorServiceClient<ServiceChannel>)>;

/// Runs `gamehub admin …`: the subcommand's function with the operator's clients.
pub async fn run(args: AdminArgs, config: &CommonConfig) -> anyhow::Result<ExitCode> {
    let endpoints = args.connect.endpoints(config);
    let token = args.connect.token(config)?;
    let mut clients = Clients::new(&endpoints, token.clone())?;
    match args.command {
        AdminCommand::Grant {
            player,
            amount,
            reason,
            request_id,
        } => accounts::grant(&mut clients.ledger, &player, amount, reason, request_id).await?,
        AdminCommand::Pro {
            player,
            dan,
            clear,
            reason,
            request_id,
        } => {
            let dan = if clear { 0 } else { dan.unwrap_or_default() };
            accounts::pro(&mut clients.ledger, &player, dan, reason, request_id).await?;
        }
        AdminCommand::Name {
            player,
            name,
            reason,
            request_id,
        } => {
            accounts::name(&mut clients.ledger, &player, name, reason, request_id).await?;
        }
        AdminCommand::Player { player, last } => {
            accounts::player(&mut clients.ledger, &player, last).await?;
        }
        AdminCommand::Table { table } => tables::show(&mut clients, &table).await?,
        AdminCommand::CloseTable {
            table,
            reason,
            request_id,
        } => {
            tables::close(desks(&endpoints, &token)?, &table, &reason, request_id).await?;
        }
        AdminCommand::DeadLetters { limit } => {
            dead_letters::list(desks(&endpoints, &token)?, limit).await?;
        }
        AdminCommand::Redeliver {
            game_id,
            all,
            reason,
            request_id,
        } => {
            dead_letters::redeliver(desks(&endpoints, &token)?, game_id, all, reason, request_id)
                .await?;
        }
        AdminCommand::Audit {
            operator,
            target,
            kind,
            since,
            until,
            limit,
        } => {
            let filter = audit::Filter {
                operator: operator.unwrap_or_default(),
                target: target.unwrap_or_default(),
                kind,
                since_unix_ms: since.unwrap_or(0),
                until_unix_ms: until.unwrap_or(0),
            };
            audit::list(&mut clients.ledger, &filter, limit).await?;
        }
        AdminCommand::Tournament { command } => {
            for line in tournaments::run(&mut clients.tournaments, command).await? {
                println!("{line}");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The operator desks of both game services.
fn desks(endpoints: &Endpoints, token: &TokenSource) -> anyhow::Result<Desks> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// `gamehub admin`'s arguments as the binary parses them.
    #[derive(Parser, Debug)]
    struct Admin {
        #[command(flatten)]
        args: AdminArgs,
    }

    #[test]
    fn name_sets_with_a_name_and_clears_without_one() {
        let set = Admin::try_parse_from([
            "admin",
            "name",
            "alice",
            "--name",
            "张三丰",
            "--reason",
            "x",
        ])
        .expect("name with --name parses");
        assert!(
            matches!(&set.args.command, AdminCommand::Name { player, name: Some(name), .. }
                if player == "alice" && name == "张三丰"),
            "{set:?}"
        );
        let clear = Admin::try_parse_from(["admin", "name", "alice", "--reason", "x"])
            .expect("name parses");
        assert!(
            matches!(&clear.args.command, AdminCommand::Name { player, name: None, .. } if player == "alice"),
            "{clear:?}"
        );
        assert!(
            Admin::try_parse_from(["admin", "name"]).is_err(),
            "the player is required"
        );
    }

    #[test]
    fn audited_actions_need_a_reason() {
        for args in [
            &["admin", "pro", "alice", "3"][..],
            &["admin", "name", "alice"],
            &["admin", "redeliver", "--all"],
            &["admin", "close-table", "gt-1"],
            &["admin", "grant", "alice", "10"],
        ] {
            assert!(
                Admin::try_parse_from(args).is_err(),
                "{args:?} needs --reason"
            );
            let mut with_reason = args.to_vec();
            with_reason.extend(["--reason", "why"]);
            Admin::try_parse_from(&with_reason)
                .unwrap_or_else(|e| panic!("{with_reason:?} parses: {e}"));
        }
    }

    #[test]
    fn tournament_create_takes_every_setting() {
        let parsed = Admin::try_parse_from([
            "admin",
            "tournament",
            "create",
            "--name",
            "周末斗地主",
            "--game",
            "doudizhu",
            "--room",
            "doudizhu-free",
            "--format",
            "elimination",
            "--entry-fee",
            "500",
            "--min-players",
            "6",
            "--max-players",
            "9",
            "--starts-at",
            "2026-12-05T20:00:00+08:00",
            "--deals-per-round",
            "2",
            "--starting-chips",
            "2000",
            "--prizes",
            "62.5,25,12.5",
            "--unrated",
            "--request-id",
            "weekend-1",
        ])
        .expect("tournament create parses");
        let AdminCommand::Tournament {
            command: tournaments::TournamentCommand::Create(args),
        } = &parsed.args.command
        else {
            panic!("{parsed:?}");
        };
        assert_eq!(args.request_id.as_deref(), Some("weekend-1"));
        assert_eq!(
            args.settings(),
            gamehub_proto::tournament::TournamentSettings {
                name: "周末斗地主".into(),
                game_type: gamehub_proto::common::GameType::Doudizhu as i32,
                room_id: "doudizhu-free".into(),
                format: gamehub_proto::tournament::Format::Elimination as i32,
                entry_fee_silver: 500,
                min_players: 6,
                max_players: 9,
                starts_at_unix_ms: 1_796_472_000_000,
                rounds: 0,
                deals_per_round: 2,
                starting_chips: 2000,
                prize_shares_bp: vec![6250, 2500, 1250],
                unrated: true,
            }
        );
    }

    #[test]
    fn tournament_create_defaults_to_sit_and_go_winner_takes_all() {
        let parsed = Admin::try_parse_from([
            "admin",
            "tournament",
            "create",
            "--name",
            "SNG",
            "--game",
            "gomoku",
            "--room",
            "gomoku-free",
            "--max-players",
            "4",
        ])
        .expect("tournament create parses");
        let AdminCommand::Tournament {
            command: tournaments::TournamentCommand::Create(args),
        } = &parsed.args.command
        else {
            panic!("{parsed:?}");
        };
        let settings = args.settings();
        assert_eq!(settings.starts_at_unix_ms, 0, "when full");
        assert_eq!(settings.min_players, 2, "Gomoku's fewest");
        assert_eq!(settings.format, 0, "the game's format");
        assert!(settings.prize_shares_bp.is_empty());
        assert!(!settings.unrated);
        assert_eq!(args.request_id, None);
        for bad in [
            &["--prizes", "33.333"][..],
            &["--starts-at", "soon"],
            &["--game", "chess"],
        ] {
            let mut args = vec![
                "admin",
                "tournament",
                "create",
                "--name",
                "x",
                "--game",
                "gomoku",
                "--room",
                "r",
                "--max-players",
                "4",
            ];
            args.extend(bad);
            assert!(Admin::try_parse_from(&args).is_err(), "{bad:?} is refused");
        }
    }

    #[test]
    fn tournament_list_show_and_cancel_parse() {
        let list = Admin::try_parse_from([
            "admin",
            "tournament",
            "list",
            "--state",
            "running",
            "--game",
            "gomoku",
        ])
        .expect("list parses");
        assert!(
            matches!(
                &list.args.command,
                AdminCommand::Tournament {
                    command: tournaments::TournamentCommand::List {
                        state: Some(tournaments::StateArg::Running),
                        game: Some(tournaments::GameArg::Gomoku),
                        limit: 50
                    }
                }
            ),
            "{list:?}"
        );
        Admin::try_parse_from(["admin", "tournament", "show", "tn-1"]).expect("show parses");
        assert!(
            Admin::try_parse_from(["admin", "tournament", "cancel", "tn-1"]).is_err(),
            "cancel needs --reason"
        );
        Admin::try_parse_from(["admin", "tournament", "cancel", "tn-1", "--reason", "rain"])
            .expect("cancel parses");
    }

    #[test]
    fn audit_filters_parse() {
        let parsed = Admin::try_parse_from([
            "admin",
            "audit",
            "--operator",
            "ann",
            "--kind",
            "close-table",
            "--since",
            "2026-12-05",
            "--until",
            "2026-12-05T23:00:00Z",
        ])
        .expect("audit parses");
        assert!(
            matches!(
                &parsed.args.command,
                AdminCommand::Audit { operator: Some(op), kind: Some(audit::Kind::CloseTable), since: Some(since), until: Some(until), limit: 50, .. }
                    if op == "ann" && *since == 1_796_428_800_000 && *until == 1_796_511_600_000
            ),
            "{parsed:?}"
        );
        assert!(Admin::try_parse_from(["admin", "audit", "--kind", "nap"]).is_err());
        assert!(Admin::try_parse_from(["admin", "audit", "--since", "yesterday"]).is_err());
    }
}
