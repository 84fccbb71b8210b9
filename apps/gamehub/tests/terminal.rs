//! The terminal client as a person uses it: the real `gamehub` binary in a real
//! terminal (tmux), keys typed with `send-keys`, the screen read with `capture-pane`,
//! against a whole platform started in the test (fresh database, own Redis prefix),
//! with bots from `gamehub_drive` in the other seats.
//!
//! Without tmux the tests fail (CI installs it), unless `GAMEHUB_SKIP_TMUX_TESTS=1`
//! asks to skip them; a tmux that is installed but does not work fails them always.
#![allow(clippy::unwrap_used)]

use std::net::SocketAddr;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use gamehub_drive as drive;
use gamehub_platform::auth::Role;
use gamehub_proto::gomoku as gm;
use gamehub_testkit_services::platform::TestPlatform;

// ---------------------------------------------------------------- the platform

/// The client's connection flags for `tp`'s endpoints (`gomoku` may be a proxy).
fn flags(tp: &TestPlatform, gomoku: &str) -> String {
    format!(
        "--matchmaking-url {} --gomoku-url {gomoku} --doudizhu-url {} --ledger-url {}",
        tp.endpoints.matchmaking, tp.endpoints.doudizhu, tp.endpoints.ledger
    )
}

// ---------------------------------------------------------------- the terminal

/// A tmux server of its own (so no user session is touched) running one command in
/// a 120×50 terminal.
struct Tmux {
    /// The tmux server's name (`-L`).
    socket: String,
    /// Its socket file, removed at the end (kill-server leaves it behind).
    socket_path: Option<String>,
}

/// Set to 1 to skip these tests where tmux is not installed (they fail there otherwise).
const SKIP_WITHOUT_TMUX: &str = "GAMEHUB_SKIP_TMUX_TESTS";

/// Whether the terminal can be driven: true with a working tmux. Without tmux the test
/// fails, so a CI run cannot pass without the suite, unless [`SKIP_WITHOUT_TMUX`]`=1`
/// asks to skip it (it then says SKIPPED); a tmux that is there but does not work
/// always fails it.
fn tmux_ready() -> bool {
    match Command::new("tmux").arg("-V").output() {
        Ok(output) if output.status.success() => true,
        Ok(output) => panic!(
            "tmux is installed but `tmux -V` failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            assert!(
                std::env::var(SKIP_WITHOUT_TMUX).is_ok_and(|v| v == "1"),
                "tmux is not installed, so the terminal client cannot be tested: install tmux \
                 (CI does), or set {SKIP_WITHOUT_TMUX}=1 to skip these tests"
            );
            eprintln!("SKIPPED: tmux is not installed and {SKIP_WITHOUT_TMUX}=1");
            false
        }
        Err(e) => panic!("tmux cannot be run: {e}"),
    }
}

impl Tmux {
    fn start(command: &str) -> Tmux {
        let socket = format!(
            "gamehub-client-test-{}",
            &uuid::Uuid::new_v4().simple().to_string()[..10]
        );
        // The shell stays after the client exits, so its last words can be read.
        let script = format!("{command}; echo CLIENT-EXITED $?; sleep 120");
        let status = Command::new("tmux")
            .args(["-L", &socket, "new-session", "-d", "-x", "120", "-y", "50"])
            .arg(script)
            .status()
            .unwrap();
        assert!(status.success(), "tmux new-session failed");
        let socket_path = Command::new("tmux")
            .args(["-L", &socket, "display-message", "-p", "#{socket_path}"])
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
            .filter(|p| !p.is_empty());
        Tmux {
            socket,
            socket_path,
        }
    }

    /// Types `text` literally, then Enter.
    fn line(&self, text: &str) {
        self.keys(&["-l", text]);
        self.keys(&["Enter"]);
    }

    fn keys(&self, keys: &[&str]) {
        let status = Command::new("tmux")
            .args(["-L", &self.socket, "send-keys", "-t", "0"])
            .args(keys)
            .status()
            .unwrap();
        assert!(status.success());
    }

    fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "capture-pane", "-p", "-t", "0"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Waits until the screen satisfies `ok`; fails showing the screen after `secs`.
    async fn wait(&self, what: &str, secs: u64, ok: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let screen = self.screen();
            if ok(&screen) {
                return screen;
            }
            if Instant::now() > deadline {
                panic!("timed out waiting for {what}; the screen:\n{screen}");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    async fn wait_for(&self, text: &str, secs: u64) -> String {
        self.wait(&format!("{text:?}"), secs, |s| s.contains(text))
            .await
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
        if let Some(path) = &self.socket_path {
            let _ = std::fs::remove_file(path);
        }
    }
}

fn client() -> &'static str {
    env!("CARGO_BIN_EXE_gamehub")
}

/// The table id in a screen's title (`… · table gt-… · …`).
fn table_id(screen: &str) -> String {
    screen
        .split_whitespace()
        .skip_while(|w| *w != "table")
        .nth(1)
        .unwrap()
        .to_owned()
}

/// The board's stones in a Gomoku screen (the left 36 columns of the row lines).
fn stones_on_board(screen: &str) -> usize {
    screen
        .lines()
        .filter(|l| {
            l.get(..3)
                .is_some_and(|h| h.trim().parse::<u8>().is_ok_and(|n| (1..=15).contains(&n)))
        })
        .map(|l| {
            l.chars()
                .take(36)
                .filter(|c| *c == '●' || *c == '○')
                .count()
        })
        .sum()
}

// ---------------------------------------------------------------- Gomoku

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gomoku_a_player_moves_sees_a_refusal_resigns_and_sees_the_silver() {
    if !tmux_ready() {
        return;
    }
    let tp = TestPlatform::start(&[]).await.unwrap();
    // A room whose games do not come in pairs: the bot leaves after one game.
    let room = "gomoku-renju";
    for player in ["t-alice", "t-bob"] {
        tp.grant(player, 10_000).await;
    }
    // Bob is a bot: queues, plays one game, leaves.
    let mut bob = tp.clients("t-bob", Role::Player);
    let bot = tokio::spawn(async move {
        let seat = drive::matchmaking::seat(&mut bob.matchmaking, room, "", |_| {}).await?;
        drive::gomoku::play(
            bob.gomoku.clone(),
            &seat.table_id,
            drive::gomoku::Options {
                games: 1,
                think: Duration::from_millis(100),
                seed: 7,
            },
            |_| {},
        )
        .await
    });

    let term = Tmux::start(&format!(
        "{} play gomoku --room {room} --player t-alice {}",
        client(),
        flags(&tp, &tp.endpoints.gomoku)
    ));
    let screen = term.wait_for(&format!("Gomoku · {room} · table"), 30).await;
    let black = screen.lines().any(|l| l.contains("● black t-alice (you)"));
    let (mine, theirs) = if black {
        term.wait_for("black's first stone goes to h8", 10).await;
        term.line("h8");
        ("h8", "move 2: white")
    } else {
        term.wait_for("your move (white)", 10).await;
        term.line("i9");
        ("i9", "move 3: black")
    };
    let screen = term
        .wait(&format!("my stone at {mine}"), 10, |s| {
            // The move's log line and the board are drawn by separate updates.
            s.contains(&format!("{mine} (t-alice (you))")) && stones_on_board(s) >= 1
        })
        .await;
    assert!(stones_on_board(&screen) >= 1, "{screen}");
    // The bot answers; then a move on an occupied point is refused in the referee's words.
    term.wait_for(theirs, 10).await;
    term.line("h8");
    term.wait_for("! occupied: h8 is already occupied", 10)
        .await;

    term.line("resign");
    let screen = term.wait_for("RESULT:", 10).await;
    assert!(screen.contains("resigned"), "{screen}");
    // Black resigning costs 3 points, white 2, at 100 silver a point.
    let silver = if black { "-300" } else { "-200" };
    let screen = term
        .wait_for(&format!("t-alice: silver {silver}"), 15)
        .await;
    assert!(screen.contains("balance 9,"), "{screen}");
    eprintln!("the player's screen after the game:\n{screen}");
    let outcome = tokio::time::timeout(Duration::from_secs(15), bot)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(outcome.results.len(), 1);
    term.wait_for("the table is closed", 10).await;

    term.line("quit");
    let screen = term.wait_for("CLIENT-EXITED 0", 10).await;
    // The result stays on the normal screen after the client closes.
    assert!(screen.contains("RESULT:"), "{screen}");
    drop(term);
    tp.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gomoku_a_player_whose_client_was_killed_is_taken_back_to_the_table_by_play() {
    if !tmux_ready() {
        return;
    }
    let tp = TestPlatform::start(&[]).await.unwrap();
    let room = "gomoku-free";
    let mut lee = tp.clients("t-lee", Role::Player);
    let bot = tokio::spawn(async move {
        let seat = drive::matchmaking::seat(&mut lee.matchmaking, room, "", |_| {}).await?;
        drive::gomoku::play(
            lee.gomoku.clone(),
            &seat.table_id,
            drive::gomoku::Options {
                games: 1,
                think: Duration::from_millis(100),
                seed: 11,
            },
            |_| {},
        )
        .await
    });
    let command = |game: &str| {
        format!(
            "{} play {game} --player t-kim {}",
            client(),
            flags(&tp, &tp.endpoints.gomoku)
        )
    };
    let term = Tmux::start(&command("gomoku"));
    let screen = term.wait_for("Gomoku · gomoku-free · table", 30).await;
    let table = table_id(&screen);
    // The client dies with its terminal (SIGHUP), mid-game.
    drop(term);

    // Started again, even asking for the other game, it goes back to the Gomoku table
    // instead of queueing, and says so.
    let term = Tmux::start(&command("doudizhu"));
    let screen = term.wait_for("rejoined your table", 30).await;
    assert_eq!(table_id(&screen), table, "{screen}");
    assert!(screen.contains("Gomoku · gomoku-free · table"), "{screen}");
    assert!(screen.contains("game in progress"), "{screen}");

    // And finishes the game there.
    term.line("resign");
    term.wait_for("RESULT:", 10).await;
    let outcome = tokio::time::timeout(Duration::from_secs(15), bot)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(outcome.results.len(), 1);
    term.wait_for("the table is closed", 10).await;
    term.line("quit");
    term.wait_for("CLIENT-EXITED 0", 10).await;
    drop(term);
    tp.stop().await;
}

// ---------------------------------------------------------------- watching, reconnecting

/// A TCP proxy that can drop every connection and refuse new ones for a while: a
/// network outage between the client and one service.
struct Proxy {
    addr: SocketAddr,
    up: Arc<AtomicBool>,
    cut: tokio::sync::watch::Sender<u64>,
}

impl Proxy {
    async fn start(upstream: &str) -> Proxy {
        let upstream: SocketAddr = upstream.trim_start_matches("http://").parse().unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let up = Arc::new(AtomicBool::new(true));
        let (cut, cuts) = tokio::sync::watch::channel(0u64);
        let accepting = up.clone();
        tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                if !accepting.load(Ordering::SeqCst) {
                    continue; // dropped: connection refused in effect
                }
                let mut cuts = cuts.clone();
                // Only cuts from now on end this connection.
                cuts.borrow_and_update();
                tokio::spawn(async move {
                    let Ok(mut outbound) = tokio::net::TcpStream::connect(upstream).await else {
                        return;
                    };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
                        _ = cuts.changed() => {}
                    }
                });
            }
        });
        Proxy { addr, up, cut }
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Drops every connection and refuses new ones for `outage`.
    async fn outage(&self, outage: Duration) {
        self.up.store(false, Ordering::SeqCst);
        self.cut.send_modify(|n| *n += 1);
        tokio::time::sleep(outage).await;
        self.up.store(true, Ordering::SeqCst);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gomoku_a_spectator_follows_a_game_across_a_network_outage() {
    if !tmux_ready() {
        return;
    }
    let tp = TestPlatform::start(&[]).await.unwrap();
    // A room whose games do not come in pairs: the bots leave after one game.
    let room = "gomoku-renju";
    for player in ["w-ann", "w-ben"] {
        tp.grant(player, 10_000).await;
    }
    // Two bots, slow enough for the outage to fall mid-game; each says where it sits.
    let mut bots = Vec::new();
    let mut tables = Vec::new();
    for (i, name) in ["w-ann", "w-ben"].into_iter().enumerate() {
        let mut clients = tp.clients(name, Role::Player);
        let (seated, table) = tokio::sync::oneshot::channel();
        tables.push(table);
        bots.push(tokio::spawn(async move {
            let seat = drive::matchmaking::seat(&mut clients.matchmaking, room, "", |_| {}).await?;
            let _ = seated.send(seat.table_id.clone());
            let outcome = drive::gomoku::play(
                clients.gomoku.clone(),
                &seat.table_id,
                drive::gomoku::Options {
                    games: 1,
                    think: Duration::from_millis(250),
                    seed: i as u64,
                },
                |_| {},
            )
            .await?;
            Ok::<_, anyhow::Error>((seat.table_id, outcome))
        }));
    }
    let mut table_id = String::new();
    for table in tables {
        table_id = tokio::time::timeout(Duration::from_secs(30), table)
            .await
            .unwrap()
            .unwrap();
    }
    let ann = tp.clients("w-ann", Role::Player);
    let proxy = Proxy::start(&tp.endpoints.gomoku).await;
    let term = Tmux::start(&format!(
        "{} watch --game gomoku --table {table_id} --player w-carol {}",
        client(),
        flags(&tp, &proxy.url())
    ));
    let screen = term.wait_for("watching", 20).await;
    assert!(!screen.contains("(you)"), "{screen}");
    term.wait("a few moves", 20, |s| stones_on_board(s) >= 4)
        .await;

    // The network drops: the screen says so, counts the attempts, and catches up.
    let outage = tokio::spawn(async move {
        proxy.outage(Duration::from_millis(2_500)).await;
        proxy
    });
    term.wait_for("connection lost", 10).await;
    let screen = term.wait_for("reconnecting, attempt", 10).await;
    eprintln!("the spectator during the outage:\n{screen}");
    let proxy = outage.await.unwrap();
    term.wait_for("reconnected", 20).await;

    // The game ends; the spectator's board holds every stone of the game.
    let screen = term.wait_for("RESULT:", 120).await;
    for bot in bots {
        let (id, outcome) = tokio::time::timeout(Duration::from_secs(30), bot)
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        assert_eq!(id, table_id);
        assert_eq!(outcome.results.len(), 1);
    }
    let table = ann
        .gomoku
        .clone()
        .get_table(gm::GetTableRequest {
            table_id: table_id.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .table
        .unwrap();
    let stones = table.game.unwrap().stones.len();
    assert_eq!(stones_on_board(&screen), stones, "{screen}");
    term.line("quit");
    term.wait_for("CLIENT-EXITED 0", 10).await;
    drop(proxy);
    drop(term);
    tp.stop().await;
}

// ---------------------------------------------------------------- Dou Dizhu

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doudizhu_a_player_bids_plays_a_hint_sees_a_refusal_and_a_verified_result() {
    if !tmux_ready() {
        return;
    }
    let tp = TestPlatform::start(&[("GAMEHUB_DOUDIZHU_AUTO_TURN_MS", "30")])
        .await
        .unwrap();
    let room = "doudizhu-classic";
    for player in ["d-alice", "d-bob", "d-cat"] {
        tp.grant(player, 200_000).await;
    }
    let mut bots = Vec::new();
    for name in ["d-bob", "d-cat"] {
        let mut clients = tp.clients(name, Role::Player);
        bots.push(tokio::spawn(async move {
            let seat = drive::matchmaking::seat(&mut clients.matchmaking, room, "", |_| {}).await?;
            drive::doudizhu::play(
                clients.doudizhu.clone(),
                &seat.table_id,
                drive::doudizhu::Options {
                    deals: 1,
                    think: Duration::from_millis(50),
                },
                |_| {},
            )
            .await
        }));
    }
    let term = Tmux::start(&format!(
        "{} play doudizhu --room {room} --player d-alice {}",
        client(),
        flags(&tp, &tp.endpoints.gomoku)
    ));
    let screen = term.wait_for("your hand (17)", 30).await;
    let table = table_id(&screen);

    // A spectator in a second terminal: the same table, no hand.
    let spectator = Tmux::start(&format!(
        "{} watch --game doudizhu --table {table} --player d-dan {}",
        client(),
        flags(&tp, &tp.endpoints.gomoku)
    ));
    let watched = spectator.wait_for("no hand is shown", 20).await;
    assert!(!watched.contains("your hand"), "{watched}");

    // Bid 3 when asked (a bot may bid 3 first; then alice is a farmer).
    let screen = term
        .wait("the play to start", 30, |s| {
            s.contains("your bid:") || s.contains("kitty (底牌)")
        })
        .await;
    if screen.contains("your bid:") {
        term.line("3");
    }
    term.wait_for("kitty (底牌)", 20).await;

    // On alice's turn: a card she does not hold is refused in the dealer's words; then
    // Tab puts the server's first hint on the command line and Enter plays it.
    let mut played = false;
    for _ in 0..20 {
        let screen = term
            .wait("alice's turn", 30, |s| {
                s.contains("your lead:") || s.contains("your turn:") || s.contains("RESULT:")
            })
            .await;
        if screen.contains("RESULT:") {
            break;
        }
        let before = hand_size(&screen);
        term.line(&not_in_hand(&screen));
        term.wait("a refusal", 10, |s| s.lines().any(|l| l.starts_with("! ")))
            .await;
        term.keys(&["Tab"]);
        let screen = term
            .wait("a hint", 10, |s| {
                s.contains("hint 1/") || s.contains("nothing beats")
            })
            .await;
        if screen.contains("nothing beats") {
            term.line("pass");
            term.wait("the pass", 10, |s| !s.contains("your turn:"))
                .await;
            continue;
        }
        eprintln!("the player's screen with a hint:\n{screen}");
        term.keys(&["Enter"]);
        term.wait("the hand to shrink", 10, |s| {
            hand_size(s) < before || s.contains("RESULT:")
        })
        .await;
        played = true;
        break;
    }
    assert!(played, "alice never had a turn to play");

    // The server plays the rest for alice (托管); the deal ends, settles and verifies.
    term.line("auto");
    term.wait_for("RESULT:", 120).await;
    let screen = term
        .wait_for("verified: it reproduces every hand", 30)
        .await;
    assert!(screen.contains("multiplier ×"), "{screen}");
    let screen = term.wait_for("silver: ", 30).await;
    assert!(screen.contains("points: "), "{screen}");
    eprintln!("the player's screen after the deal:\n{screen}");
    let watched = spectator.wait_for("RESULT:", 30).await;
    assert!(watched.contains("verified"), "{watched}");
    eprintln!("the spectator's screen after the deal:\n{watched}");
    for bot in bots {
        tokio::time::timeout(Duration::from_secs(30), bot)
            .await
            .unwrap()
            .unwrap()
            .unwrap();
    }
    term.line("quit");
    term.wait_for("CLIENT-EXITED 0", 10).await;
    spectator.line("quit");
    spectator.wait_for("CLIENT-EXITED 0", 10).await;

    // The deal as a record: printed and verified by `gamehub record deal`.
    let out = Command::new(client())
        .args([
            "record", "deal", "--table", &table, "--deal", "1", "--player", "d-alice",
        ])
        .args(flags(&tp, &tp.endpoints.gomoku).split_whitespace())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    // The first deal may have been a redeal; either way it verifies.
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("verified: SHA-256(seed"), "{text}");
    drop(term);
    drop(spectator);
    tp.stop().await;
}

/// The number in `your hand (N)`.
fn hand_size(screen: &str) -> usize {
    screen
        .lines()
        .find_map(|l| l.strip_prefix("your hand ("))
        .and_then(|rest| rest.split(')').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// Cards the hand on the screen does not hold: one more of some rank than it has.
fn not_in_hand(screen: &str) -> String {
    let hand = screen
        .lines()
        .find(|l| l.starts_with("your hand ("))
        .and_then(|l| l.split_once(": "))
        .map(|(_, cards)| cards.to_owned())
        .unwrap_or_default();
    let held = |rank: char| {
        hand.split_whitespace()
            .filter(|c| c.starts_with(rank))
            .count()
    };
    let rank = "3456789TJQKA2"
        .chars()
        .min_by_key(|r| held(*r))
        .unwrap_or('3');
    std::iter::repeat_n(rank, held(rank) + 1).collect()
}
