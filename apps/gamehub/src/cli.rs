//! The `gamehub` command line: each command and the module that does it.

use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use gamehub_drive::api::Endpoints;
use gamehub_platform::auth::Role;
use gamehub_platform::config::{CommonConfig, Env};
use gamehub_platform::server::Shutdown;

use crate::serve::{self, Ports};

/// `gamehub`: run the whole platform, try it, and talk to it.
#[derive(Parser, Debug)]
#[command(
    name = "gamehub",
    version,
    about = "gamehub: Gomoku and Dou Dizhu as authoritative server-side games"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run all five services in one process, each on its own port (50051 matchmaking,
    /// 50052 gomoku, 50053 doudizhu, 50054 ledger, 50055 tournaments; GAMEHUB_*_ADDR to
    /// change), against
    /// PostgreSQL (DATABASE_URL) and Redis (REDIS_URL). Plaintext unless --tls (or
    /// GAMEHUB_TLS_CERT and GAMEHUB_TLS_KEY) is given.
    Serve(ServeArgs),
    /// Certificates for running with TLS (docs/tls.md).
    #[command(subcommand)]
    Tls(TlsCommand),
    /// Play one Gomoku game and one Dou Dizhu deal with built-in bots, from
    /// matchmaking to settlement, and show the ledger afterwards.
    Demo(DemoArgs),
    /// Mint a bearer token: signed with an issuer's private key (`--key FILE` or
    /// GAMEHUB_TOKEN_KEY) when given, else with the development key (refused when
    /// GAMEHUB_ENV=production).
    Token(TokenArgs),
    /// Make, rotate and retire the Ed25519 keys of a production platform and their JWKS.
    #[command(subcommand)]
    Keys(crate::keys::KeysCommand),
    /// Keep N bots playing in a room through the public API, so a lone player always
    /// finds a game (Ctrl-C stops them).
    Bots(BotsArgs),
    /// Exit 0 if the server at ADDR reports SERVING on the standard gRPC health protocol.
    Health(HealthArgs),
    /// The operator's desk: grant silver, professional dans, names, look up a player or a
    /// table, close a stuck table, list and redeliver dead letters, create, list, show
    /// and cancel tournaments (an operator token:
    /// GAMEHUB_OPERATOR_TOKEN, or minted from the development key on a development
    /// platform).
    Admin(gamehub_admin::AdminArgs),
    /// The terminal client: play, watch, wallet, record, tournaments.
    #[command(flatten)]
    Client(gamehub_client::ClientCommand),
}

/// `gamehub serve`.
#[derive(Args, Debug)]
struct ServeArgs {
    /// Serve every service and the web client over TLS with a development CA and a
    /// certificate for localhost, made on first use in --tls-dir (trust its ca.pem in
    /// your browser, or pass it to clients as GAMEHUB_TLS_CA).
    #[arg(long, env = "GAMEHUB_SERVE_TLS")]
    tls: bool,
    /// Where --tls keeps its CA and certificate; default
    /// $XDG_DATA_HOME/gamehub/tls or ~/.local/share/gamehub/tls.
    #[arg(long)]
    tls_dir: Option<std::path::PathBuf>,
}

/// `gamehub tls`.
#[derive(Subcommand, Debug)]
enum TlsCommand {
    /// Write a CA (ca.pem, ca-key.pem; an existing one in DIR is kept) and a
    /// certificate and key per service (ledger, matchmaking, gomoku-referee,
    /// doudizhu-dealer), for gamehub serve (gamehub) and for clients (client): NAME.pem
    /// and NAME-key.pem, each valid for NAME, --hosts, localhost and 127.0.0.1.
    Generate {
        /// The directory to write into (created if missing).
        #[arg(long)]
        dir: std::path::PathBuf,
        /// Further host names or IP addresses every certificate names, comma-separated
        /// (e.g. the services' names in your cluster).
        #[arg(long, value_delimiter = ',')]
        hosts: Vec<String>,
    },
}

/// `gamehub demo`.
#[derive(Args, Debug)]
struct DemoArgs {
    /// Matchmaking's address; the other services are found at their configured
    /// URLs (GAMEHUB_*_URL), by default on this host.
    #[arg(
        long,
        env = "GAMEHUB_MATCHMAKING_URL",
        default_value = "http://127.0.0.1:50051"
    )]
    addr: String,
    /// Start a platform in this process on free ports instead of using a running one.
    #[arg(long)]
    in_process: bool,
    /// The Gomoku room.
    #[arg(long, default_value = "gomoku-renju")]
    gomoku_room: String,
    /// The Dou Dizhu room.
    #[arg(long, default_value = "doudizhu-classic")]
    doudizhu_room: String,
    /// Milliseconds each bot waits before acting, so you can follow.
    #[arg(long, default_value_t = 150)]
    think_ms: u64,
}

/// `gamehub token`.
#[derive(Args, Debug)]
struct TokenArgs {
    /// The token's subject: a player id, a service or an operator name.
    subject: String,
    /// player, service or operator.
    #[arg(long, default_value = "player")]
    role: Role,
    /// Validity in seconds.
    #[arg(long, default_value_t = 24 * 3600)]
    ttl_secs: u64,
    /// An issuer's Ed25519 private key (PKCS#8 PEM, e.g. `issuer.pem` of `gamehub keys
    /// generate`) to sign with.
    #[arg(long)]
    key: Option<std::path::PathBuf>,
}

/// `gamehub bots`.
#[derive(Args, Debug)]
struct BotsArgs {
    /// How many bots.
    #[arg(long, default_value_t = 2)]
    count: usize,
    /// The room, e.g. gomoku-renju or doudizhu-classic.
    #[arg(long)]
    room: String,
    /// Milliseconds a bot waits before each action.
    #[arg(long, default_value_t = 500)]
    think_ms: u64,
}

/// `gamehub health`.
#[derive(Args, Debug)]
struct HealthArgs {
    /// The server.
    #[arg(long, default_value = "http://127.0.0.1:50051")]
    addr: String,
}

/// Runs the command `cli` names: each in its own function, or its own crate's.
pub async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let env = Env::process();
    let config = CommonConfig::from_env(&env)?;
    match cli.command {
        Command::Serve(args) => serve(args, &env, &config).await?,
        Command::Tls(TlsCommand::Generate { dir, hosts }) => tls_generate(&dir, &hosts)?,
        Command::Demo(args) => demo(args, &env, &config).await?,
        Command::Token(args) => token(args, &config)?,
        Command::Keys(command) => crate::keys::run(command)?,
        Command::Bots(args) => bots(args, &config).await?,
        Command::Health(args) => return Ok(health(args).await),
        Command::Admin(args) => return gamehub_admin::run(args, &config).await,
        Command::Client(command) => return gamehub_client::run(command, &config).await,
    }
    Ok(ExitCode::SUCCESS)
}

/// `gamehub serve`: as configured, or with `--tls` over TLS with development
/// certificates (made on first use) that the services' own calls trust too.
async fn serve(args: ServeArgs, env: &Env, config: &CommonConfig) -> anyhow::Result<()> {
    if !args.tls {
        return serve::run(env, config, None).await;
    }
    let dir = args.tls_dir.unwrap_or_else(crate::tls::default_dev_dir);
    let (ca, cert, key) = crate::tls::dev_certificate(&dir)?;
    let path = |p: &std::path::Path| p.to_string_lossy().into_owned();
    let env = Env::from_pairs(
        std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .filter(|(k, _)| !k.starts_with("GAMEHUB_TLS_"))
            .chain([
                ("GAMEHUB_TLS_CERT".to_owned(), path(&cert)),
                ("GAMEHUB_TLS_KEY".to_owned(), path(&key)),
                ("GAMEHUB_TLS_CA".to_owned(), path(&ca)),
            ]),
    );
    let config = CommonConfig::from_env(&env)?;
    // The services call each other at https://127.0.0.1:…: trusting this CA.
    if !config.tls.client.clone().install_process() {
        anyhow::bail!("gamehub serve --tls: TLS client settings were read before they were set");
    }
    serve::run(&env, &config, Some(&ca)).await
}

/// `gamehub tls generate`: prints what it wrote.
fn tls_generate(dir: &std::path::Path, hosts: &[String]) -> anyhow::Result<()> {
    let generated = crate::tls::generate(dir, hosts, &crate::tls::CERTIFICATE_NAMES)?;
    let kept = if generated.new_ca { "made" } else { "kept" };
    println!("CA ({kept}): {}", generated.ca.display());
    for (name, cert, key) in &generated.certificates {
        println!("{name}: {} {}", cert.display(), key.display());
    }
    Ok(())
}

/// `gamehub demo`: against a running platform, or one started here on free ports.
async fn demo(args: DemoArgs, env: &Env, config: &CommonConfig) -> anyhow::Result<()> {
    let options = gamehub_demo::DemoOptions {
        gomoku_room: args.gomoku_room,
        doudizhu_room: args.doudizhu_room,
        think: Duration::from_millis(args.think_ms),
        verbose: true,
    };
    if args.in_process {
        let shutdown = Shutdown::new();
        let platform = serve::start_all(env, Ports::Ephemeral, shutdown).await?;
        let result = gamehub_demo::run(&platform.endpoints(), config, &options).await;
        platform.stop().await;
        result?;
    } else {
        let mut endpoints = Endpoints::from_config(config);
        endpoints.matchmaking = args.addr;
        gamehub_demo::run(&endpoints, config, &options).await?;
    }
    Ok(())
}

/// `gamehub token`: prints a token.
fn token(args: TokenArgs, config: &CommonConfig) -> anyhow::Result<()> {
    let ttl = Duration::from_secs(args.ttl_secs);
    let token = gamehub_drive::token::mint_with(
        config,
        args.key.as_deref(),
        &args.subject,
        args.role,
        ttl,
    )?;
    println!("{token}");
    Ok(())
}

/// `gamehub bots`: bots in a room until SIGTERM or Ctrl-C.
async fn bots(args: BotsArgs, config: &CommonConfig) -> anyhow::Result<()> {
    let options = gamehub_demo::bots::BotOptions {
        room: args.room,
        count: args.count,
        think: Duration::from_millis(args.think_ms),
        name_prefix: "bot-".into(),
    };
    gamehub_demo::bots::until_terminated(config, options).await
}

/// `gamehub health`: SUCCESS if the server reports SERVING.
async fn health(args: HealthArgs) -> ExitCode {
    let addr = args.addr;
    let serving = gamehub_platform::client::check_health(&addr, "")
        .await
        .unwrap_or(false);
    if !serving {
        eprintln!("{addr} is not SERVING");
        return ExitCode::FAILURE;
    }
    println!("{addr} is SERVING");
    ExitCode::SUCCESS
}
