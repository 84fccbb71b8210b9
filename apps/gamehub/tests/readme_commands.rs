//! The README's commands, exercised as written: its test command is what CI runs, and
//! its run command (`gamehub serve`, the binary `cargo run -p gamehub -- serve` runs)
//! starts a platform that answers health checks, serves the web client and plays the
//! demo from matchmaking to settlement; its next commands, in its order, give alice
//! silver (`gamehub admin grant`) and seat her in a paid room; then it stops gracefully
//! on SIGTERM.
#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use gamehub_testkit::clock::eventually;

fn repo_file(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(name),
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"))
}

const RUN: &str = "cargo run --release -p gamehub -- serve";
const TEST: &str = "cargo test --workspace";

#[test]
fn the_readme_gives_the_two_commands_and_ci_runs_its_test_command() {
    let readme = repo_file("README.md");
    assert!(readme.contains(RUN), "the README's run command is `{RUN}`");
    assert!(
        readme.contains(TEST),
        "the README's test command is `{TEST}`"
    );
    let ci = repo_file(".ci/run");
    assert!(
        ci.lines().any(|l| l.trim() == TEST),
        ".ci/run runs the README's test command `{TEST}` as written"
    );
}

#[test]
fn serve_starts_everything_and_the_demo_plays_to_settlement() {
    let id = uuid::Uuid::new_v4().simple().to_string();
    let postgres = std::env::var("GAMEHUB_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432".into());
    let database = format!("readme_{}", &id[..16]);
    let env: Vec<(String, String)> = vec![
        ("DATABASE_URL".into(), format!("{postgres}/{database}")),
        (
            "GAMEHUB_REDIS_PREFIX".into(),
            format!("readme{}", &id[..12]),
        ),
        // Free ports instead of 50051–50054, so the test runs beside anything else.
        ("GAMEHUB_MATCHMAKING_ADDR".into(), "127.0.0.1:0".into()),
        ("GAMEHUB_GOMOKU_ADDR".into(), "127.0.0.1:0".into()),
        ("GAMEHUB_DOUDIZHU_ADDR".into(), "127.0.0.1:0".into()),
        ("GAMEHUB_LEDGER_ADDR".into(), "127.0.0.1:0".into()),
        ("GAMEHUB_WEB_ADDR".into(), "127.0.0.1:0".into()),
        ("RUST_LOG".into(), "warn".into()),
    ];
    let mut serve = Command::new(env!("CARGO_BIN_EXE_gamehub"))
        .arg("serve")
        .envs(env.iter().cloned())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    // The banner says where each service listens.
    let mut urls = std::collections::HashMap::new();
    let mut web = None;
    let mut lines = BufReader::new(serve.stdout.take().unwrap()).lines();
    let started = Instant::now();
    while urls.len() < 4 || web.is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "serve printed its banner"
        );
        let Some(Ok(line)) = lines.next() else {
            panic!(
                "serve exited before printing where it listens: {:?}",
                serve.try_wait()
            );
        };
        for (name, key) in [
            ("matchmaking", "GAMEHUB_MATCHMAKING_URL"),
            ("gomoku referee", "GAMEHUB_GOMOKU_URL"),
            ("doudizhu dealer", "GAMEHUB_DOUDIZHU_URL"),
            ("ledger", "GAMEHUB_LEDGER_URL"),
            ("tournaments", "GAMEHUB_TOURNAMENTS_URL"),
        ] {
            if let Some(rest) = line.trim().strip_prefix(name)
                && let Some(url) = rest.split_whitespace().next()
                && url.starts_with("http://")
            {
                urls.insert(key, url.to_owned());
            }
        }
        if let Some(rest) = line.trim().strip_prefix("web client") {
            web = rest.split_whitespace().next().map(str::to_owned);
        }
    }
    std::thread::spawn(move || for _ in lines {});

    // Every service is SERVING.
    for url in urls.values() {
        let status = Command::new(env!("CARGO_BIN_EXE_gamehub"))
            .args(["health", "--addr", url])
            .status()
            .unwrap();
        assert!(status.success(), "{url} is SERVING");
    }

    // The web client is served where the banner says.
    let web = web.unwrap();
    let authority = web.trim_start_matches("http://").trim_end_matches('/');
    let port = authority.rsplit(':').next().unwrap();
    let mut stream =
        std::net::TcpStream::connect(("127.0.0.1", port.parse::<u16>().unwrap())).unwrap();
    std::io::Write::write_all(
        &mut stream,
        format!("GET / HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .unwrap();
    let mut page = String::new();
    std::io::Read::read_to_string(&mut stream, &mut page).unwrap();
    assert!(
        page.starts_with("HTTP/1.1 200"),
        "{web} serves the client: {page}"
    );
    assert!(page.contains("app.js"), "{page}");

    // The demo plays a game of each kind against it.
    let demo = Command::new(env!("CARGO_BIN_EXE_gamehub"))
        .args([
            "demo",
            "--think-ms",
            "0",
            "--gomoku-room",
            "gomoku-freestyle",
        ])
        .envs(env.iter().cloned())
        .envs(urls.iter().map(|(k, v)| (k.to_string(), v.clone())))
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&demo.stdout);
    assert!(
        demo.status.success(),
        "the demo succeeds:\n{out}\n{}",
        String::from_utf8_lossy(&demo.stderr)
    );
    assert!(
        out.contains("the ledger settled the game"),
        "Gomoku settled:\n{out}"
    );
    assert!(
        out.contains("reproduces the hands"),
        "the deal's shuffle verifies:\n{out}"
    );
    assert!(out.contains("== The ledger"), "balances shown:\n{out}");

    // The README's next commands, in its order: the operator's grant, then alice plays
    // in a paid room (the terminal client's first call is this Enqueue) against a bot,
    // and is seated instead of refused for a balance of 0.
    let readme = repo_file("README.md");
    let gamehub = |line: &str| -> Vec<String> {
        let line = readme
            .lines()
            .find(|l| l.starts_with("cargo run --release -p gamehub -- ") && l.contains(line))
            .unwrap_or_else(|| panic!("the README has a `gamehub {line}` command"));
        let args = line.split_once(" -- ").unwrap().1;
        let args = args.split('#').next().unwrap();
        args.split_whitespace().map(str::to_owned).collect()
    };
    let grant = gamehub("admin grant alice");
    let play = gamehub("play gomoku");
    let room = play[play.iter().position(|a| a == "--room").unwrap() + 1].clone();
    let player = play[play.iter().position(|a| a == "--player").unwrap() + 1].clone();
    let run_grant = || {
        let out = Command::new(env!("CARGO_BIN_EXE_gamehub"))
            .args(&grant)
            .envs(env.iter().cloned())
            .envs(urls.iter().map(|(k, v)| (k.to_string(), v.clone())))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{grant:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert!(run_grant().contains("granted 100,000 silver to alice"));
    assert!(
        run_grant().contains("already granted"),
        "the README's grant, run twice, grants once"
    );
    let mut bots = Command::new(env!("CARGO_BIN_EXE_gamehub"))
        .args(["bots", "--count", "1", "--room", &room, "--think-ms", "0"])
        .envs(env.iter().cloned())
        .envs(urls.iter().map(|(k, v)| (k.to_string(), v.clone())))
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let state = runtime.block_on(async {
        use gamehub_proto::matchmaking as mm;
        let config = gamehub_platform::config::CommonConfig::for_tests();
        let token = gamehub_drive::token::mint(
            &config,
            &player,
            gamehub_platform::auth::Role::Player,
            Duration::from_secs(600),
        )
        .unwrap();
        let endpoints = gamehub_drive::api::Endpoints {
            matchmaking: urls["GAMEHUB_MATCHMAKING_URL"].clone(),
            gomoku: urls["GAMEHUB_GOMOKU_URL"].clone(),
            doudizhu: urls["GAMEHUB_DOUDIZHU_URL"].clone(),
            ledger: urls["GAMEHUB_LEDGER_URL"].clone(),
            tournaments: urls
                .get("GAMEHUB_TOURNAMENTS_URL")
                .cloned()
                .unwrap_or_else(|| gamehub_drive::api::NOT_STARTED.into()),
        };
        let clients = gamehub_drive::api::Clients::new(
            &endpoints,
            gamehub_platform::client::TokenSource::Static(token),
        )
        .unwrap();
        let mut matchmaking = clients.matchmaking;
        let ticket = matchmaking
            .enqueue(mm::EnqueueRequest {
                room_id: room.clone(),
                request_id: gamehub_drive::api::request_id(),
                player_id: String::new(),
            })
            .await
            .unwrap()
            .into_inner()
            .ticket
            .unwrap();
        eventually("alice's ticket ends", Duration::from_secs(30), || {
            let mut matchmaking = matchmaking.clone();
            let ticket_id = ticket.ticket_id.clone();
            async move {
                let ticket = matchmaking
                    .get_ticket(mm::GetTicketRequest { ticket_id })
                    .await
                    .unwrap()
                    .into_inner()
                    .ticket
                    .unwrap();
                let state = mm::TicketState::try_from(ticket.state).unwrap();
                (!matches!(state, mm::TicketState::Waiting | mm::TicketState::Matching))
                    .then_some((state, ticket.message))
            }
        })
        .await
    });
    let _ = bots.kill();
    let _ = bots.wait();
    assert_eq!(
        state.0,
        gamehub_proto::matchmaking::TicketState::Seated,
        "alice is seated in {room} after the README's grant: {}",
        state.1
    );

    // SIGTERM stops it gracefully.
    let pid = serve.id().to_string();
    Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    let status = runtime.block_on(eventually(
        "serve stops within its grace period",
        Duration::from_secs(20),
        || std::future::ready(serve.try_wait().unwrap()),
    ));
    assert!(
        status.success(),
        "serve exits cleanly after SIGTERM: {status}"
    );
    let _ = Command::new("psql")
        .args([
            &format!("{postgres}/postgres"),
            "-qc",
            &format!("DROP DATABASE IF EXISTS {database} WITH (FORCE)"),
        ])
        .output();
}
