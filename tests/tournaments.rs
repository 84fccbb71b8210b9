//! Tournaments over the real API, played to the end by bots: a 16-player Swiss of
//! Gomoku and a 9-player Dou Dizhu elimination with entry fees and prizes, the whole
//! platform restarted mid-round, a cancellation with refunds, a player who never shows,
//! and a registration the ledger refuses. Each player is a task that does what a
//! front-end does: read its tournament, go to `your_table_id`, play the game there with
//! the game's own API (`gamehub_drive`'s bots), and look again.
#![allow(clippy::unwrap_used)]

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use gamehub_drive::api::Clients;
use gamehub_platform::auth::Role;
use gamehub_proto::common::GameType;
use gamehub_proto::ledger as lg;
use gamehub_proto::tournament as tn;
use gamehub_testkit_services::platform::TestPlatform;
use tonic::Code;

/// How long a whole tournament may take here (bots in a debug build).
const PATIENCE: Duration = Duration::from_secs(240);

fn operator(tp: &TestPlatform) -> Clients {
    tp.clients("tournament-operator", Role::Operator)
}

async fn create(tp: &TestPlatform, settings: tn::TournamentSettings) -> String {
    operator(tp)
        .tournaments
        .create_tournament(tn::CreateTournamentRequest {
            request_id: gamehub_drive::api::request_id(),
            settings: Some(settings),
        })
        .await
        .unwrap()
        .into_inner()
        .tournament
        .unwrap()
        .tournament_id
}

async fn get(clients: &Clients, id: &str) -> Result<tn::Tournament, tonic::Status> {
    Ok(clients
        .tournaments
        .clone()
        .get_tournament(tn::GetTournamentRequest {
            tournament_id: id.to_owned(),
        })
        .await?
        .into_inner()
        .tournament
        .unwrap_or_default())
}

/// Waits until tournament `id` satisfies `done`, reading it as `clients`.
async fn wait_for(
    clients: &Clients,
    id: &str,
    what: &str,
    done: impl Fn(&tn::Tournament) -> bool,
) -> tn::Tournament {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Ok(t) = get(clients, id).await
            && done(&t)
        {
            return t;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: not reached within {PATIENCE:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn register(clients: &Clients, id: &str) -> Result<tn::RegisterResponse, tonic::Status> {
    Ok(clients
        .tournaments
        .clone()
        .register(tn::RegisterRequest {
            tournament_id: id.to_owned(),
        })
        .await?
        .into_inner())
}

async fn balance(tp: &TestPlatform, player: &str) -> i64 {
    operator(tp)
        .ledger
        .get_account(lg::GetAccountRequest {
            player_id: player.to_owned(),
        })
        .await
        .unwrap()
        .into_inner()
        .account
        .unwrap()
        .balance_silver
}

/// A player at its tournament: plays each table it is sent to, until the end.
async fn play_tournament(clients: Clients, id: String, seed: u64) -> anyhow::Result<()> {
    let mut played: HashSet<String> = HashSet::new();
    loop {
        let t = get(&clients, &id).await?;
        let state = tn::State::try_from(t.state).unwrap_or_default();
        if matches!(state, tn::State::Finished | tn::State::Cancelled) {
            return Ok(());
        }
        let game = t.settings.as_ref().map(|s| s.game_type).unwrap_or_default();
        if !t.your_table_id.is_empty() && played.insert(t.your_table_id.clone()) {
            let table = t.your_table_id;
            if game == GameType::Gomoku as i32 {
                let options = gamehub_drive::gomoku::Options {
                    games: 1,
                    think: Duration::ZERO,
                    seed: seed ^ played.len() as u64,
                };
                gamehub_drive::gomoku::play(clients.gomoku.clone(), &table, options, |_| {})
                    .await?;
            } else {
                let options = gamehub_drive::doudizhu::Options {
                    deals: 1,
                    think: Duration::ZERO,
                };
                gamehub_drive::doudizhu::play(clients.doudizhu.clone(), &table, options, |_| {})
                    .await?;
            }
            continue;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn spawn_players(
    tp: &TestPlatform,
    players: &[String],
    id: &str,
) -> Vec<tokio::task::JoinHandle<anyhow::Result<()>>> {
    players
        .iter()
        .enumerate()
        .map(|(i, p)| {
            tokio::spawn(play_tournament(
                tp.clients(p, Role::Player),
                id.to_owned(),
                i as u64,
            ))
        })
        .collect()
}

async fn join(tasks: Vec<tokio::task::JoinHandle<anyhow::Result<()>>>) {
    for task in tasks {
        task.await.unwrap().unwrap();
    }
}

fn players(prefix: &str, n: usize) -> Vec<String> {
    let run = &uuid::Uuid::new_v4().simple().to_string()[..6];
    (1..=n).map(|i| format!("{prefix}-{run}-{i:02}")).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_sixteen_player_swiss_is_played_by_bots_to_its_prizes() {
    let tp = TestPlatform::start(&[]).await.unwrap();
    let names = players("swiss", 16);
    for p in &names {
        tp.grant(p, 1000).await;
    }
    let id = create(
        &tp,
        tn::TournamentSettings {
            name: "Sixteen".into(),
            game_type: GameType::Gomoku as i32,
            room_id: "gomoku-free".into(),
            entry_fee_silver: 100,
            min_players: 16,
            max_players: 16,
            prize_shares_bp: vec![5000, 3000, 2000],
            ..Default::default()
        },
    )
    .await;
    for p in &names {
        let answer = register(&tp.clients(p, Role::Player), &id).await.unwrap();
        assert!(!answer.replayed);
    }
    // Registering again holds no second fee.
    let again = register(&tp.clients(&names[0], Role::Player), &id)
        .await
        .unwrap();
    assert!(again.replayed);
    assert_eq!(balance(&tp, &names[0]).await, 900);

    let tasks = spawn_players(&tp, &names, &id);
    let t = wait_for(&operator(&tp), &id, "the Swiss finished", |t| {
        t.state == tn::State::Finished as i32
    })
    .await;
    join(tasks).await;

    // Five rounds (⌈log2 16⌉ + 1) of eight boards, no bye.
    assert_eq!(t.rounds_total, 5);
    assert_eq!(t.rounds.len(), 5);
    let mut met = HashSet::new();
    let mut colours: HashMap<String, i32> = HashMap::new();
    let mut points = 0.0;
    for round in &t.rounds {
        assert!(round.finished);
        assert!(round.bye_player_id.is_empty());
        assert_eq!(round.matches.len(), 8);
        let mut seen = HashSet::new();
        for m in &round.matches {
            let (black, white) = (&m.player_ids[0], &m.player_ids[1]);
            assert!(
                seen.insert(black.clone()) && seen.insert(white.clone()),
                "a player twice in round {}",
                round.number
            );
            let pair = if black < white {
                (black.clone(), white.clone())
            } else {
                (white.clone(), black.clone())
            };
            assert!(met.insert(pair), "a rematch in round {}", round.number);
            *colours.entry(black.clone()).or_default() += 1;
            *colours.entry(white.clone()).or_default() -= 1;
            points += match tn::GameOutcome::try_from(m.outcome).unwrap() {
                tn::GameOutcome::Draw | tn::GameOutcome::BlackWins | tn::GameOutcome::WhiteWins => {
                    1.0
                }
                other => panic!(
                    "board {} of round {} ended {other:?}",
                    m.board, round.number
                ),
            };
        }
    }
    assert!(
        colours.values().all(|c| c.abs() <= 1),
        "colours beyond one: {colours:?}"
    );
    // The standings: every player once, places 1..16, the points of 40 games.
    assert_eq!(t.standings.len(), 16);
    assert_eq!(
        t.standings.iter().map(|s| s.place).collect::<Vec<_>>(),
        (1..=16).collect::<Vec<_>>()
    );
    assert_eq!(t.standings.iter().map(|s| s.score).sum::<f64>(), points);
    for w in t.standings.windows(2) {
        let key = |s: &tn::Standing| (s.score, s.buchholz, s.sonneborn_berger);
        assert!(
            key(&w[0]) >= key(&w[1]),
            "standings out of order: {:?}",
            t.standings
        );
    }
    // The pool of 1,600 split 50/30/20, to the first three of the standings.
    let paid: Vec<(i32, String, i64)> = t
        .prizes
        .iter()
        .map(|p| (p.place, p.player_id.clone(), p.amount_silver))
        .collect();
    assert_eq!(
        paid,
        vec![
            (1, t.standings[0].player_id.clone(), 800),
            (2, t.standings[1].player_id.clone(), 480),
            (3, t.standings[2].player_id.clone(), 320),
        ]
    );
    // Conservation: the players hold exactly the 16,000 granted; each its 900 and prize.
    let mut total = 0;
    for p in &names {
        let prize = t
            .prizes
            .iter()
            .find(|x| &x.player_id == p)
            .map_or(0, |x| x.amount_silver);
        let b = balance(&tp, p).await;
        assert_eq!(b, 900 + prize, "{p}'s balance");
        total += b;
    }
    assert_eq!(total, 16_000);
    // The winner's history shows the fee and the prize.
    let history = tp
        .clients(&t.standings[0].player_id, Role::Player)
        .ledger
        .list_history(lg::ListHistoryRequest {
            player_id: String::new(),
            kind: lg::HistoryKind::Silver as i32,
            page_size: 50,
            page_token: String::new(),
        })
        .await
        .unwrap()
        .into_inner()
        .entries;
    let reasons: Vec<&str> = history.iter().map(|e| e.reason.as_str()).collect();
    assert!(reasons.iter().any(|r| r.contains("prize")), "{reasons:?}");
    assert!(reasons.iter().any(|r| r.contains("fee")), "{reasons:?}");
    tp.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_nine_player_elimination_plays_to_the_final_table() {
    let tp = TestPlatform::start(&[]).await.unwrap();
    let names = players("ddz", 9);
    for p in &names {
        tp.grant(p, 500).await;
    }
    let id = create(
        &tp,
        tn::TournamentSettings {
            name: "Nine".into(),
            game_type: GameType::Doudizhu as i32,
            room_id: "doudizhu-free".into(),
            entry_fee_silver: 50,
            min_players: 9,
            max_players: 9,
            deals_per_round: 2,
            prize_shares_bp: vec![6000, 3000, 1000],
            ..Default::default()
        },
    )
    .await;
    for p in &names {
        register(&tp.clients(p, Role::Player), &id).await.unwrap();
    }
    let tasks = spawn_players(&tp, &names, &id);
    let t = wait_for(&operator(&tp), &id, "the elimination finished", |t| {
        t.state == tn::State::Finished as i32
    })
    .await;
    join(tasks).await;

    // 9 at three tables, 6 at two, then the final table of three; two deals each.
    assert_eq!(t.rounds_total, 3);
    assert_eq!(
        t.rounds.iter().map(|r| r.matches.len()).collect::<Vec<_>>(),
        vec![3, 2, 1]
    );
    let mut still_in: HashSet<String> = names.iter().cloned().collect();
    for round in &t.rounds {
        let seated: HashSet<String> = round
            .matches
            .iter()
            .flat_map(|m| m.player_ids.clone())
            .collect();
        assert_eq!(
            seated, still_in,
            "round {} seats exactly the players still in",
            round.number
        );
        for m in &round.matches {
            assert_eq!(m.deals_played, 2);
            assert!(
                m.chips_won.iter().sum::<i64>() <= 0,
                "deals never make chips"
            );
        }
        still_in = t
            .players
            .iter()
            .filter(|p| p.out_after_round == 0 || p.out_after_round > round.number)
            .map(|p| p.player_id.clone())
            .collect();
    }
    assert_eq!(still_in.len(), 3);
    let out: Vec<i32> = t.players.iter().map(|p| p.out_after_round).collect();
    assert_eq!(out.iter().filter(|&&r| r == 1).count(), 3);
    assert_eq!(out.iter().filter(|&&r| r == 2).count(), 3);
    // Places: the final table by chips, then those out later before those out earlier.
    assert_eq!(t.standings.len(), 9);
    assert!(t.standings[..3].iter().all(|s| s.out_after_round == 0));
    assert!(
        t.standings[..3]
            .windows(2)
            .all(|w| w[0].chips >= w[1].chips)
    );
    assert!(t.standings[3..6].iter().all(|s| s.out_after_round == 2));
    // Each player's chips are the start plus what its tables won.
    for p in &t.players {
        let won: i64 = t
            .rounds
            .iter()
            .flat_map(|r| &r.matches)
            .flat_map(|m| m.player_ids.iter().zip(&m.chips_won))
            .filter(|(who, _)| *who == &p.player_id)
            .map(|(_, c)| c)
            .sum();
        assert_eq!(p.chips, 1000 + won, "{}'s chips", p.player_id);
    }
    // The pool of 450: 270, 135, 45; the players hold the 4,500 granted.
    assert_eq!(
        t.prizes.iter().map(|p| p.amount_silver).collect::<Vec<_>>(),
        vec![270, 135, 45]
    );
    let mut total = 0;
    for p in &names {
        total += balance(&tp, p).await;
    }
    assert_eq!(total, 4_500);
    tp.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_tournament_resumes_after_the_platform_restarts_mid_round() {
    let tp = TestPlatform::start(&[]).await.unwrap();
    let names = players("restart", 4);
    let id = create(
        &tp,
        tn::TournamentSettings {
            name: "Restart".into(),
            game_type: GameType::Gomoku as i32,
            room_id: "gomoku-free".into(),
            min_players: 4,
            max_players: 4,
            rounds: 2,
            ..Default::default()
        },
    )
    .await;
    for p in &names {
        register(&tp.clients(p, Role::Player), &id).await.unwrap();
    }
    // Round 1 paired and its tables open; nobody has played yet.
    let before = wait_for(&operator(&tp), &id, "round 1's tables", |t| {
        t.rounds.len() == 1 && t.rounds[0].matches.iter().all(|m| !m.table_id.is_empty())
    })
    .await;
    let tp = tp.restart().await.unwrap();
    let after = get(&operator(&tp), &id).await.unwrap();
    assert_eq!(
        after.rounds, before.rounds,
        "the round and its tables survive the restart"
    );
    let tasks = spawn_players(&tp, &names, &id);
    let t = wait_for(
        &operator(&tp),
        &id,
        "the tournament finished after the restart",
        |t| t.state == tn::State::Finished as i32,
    )
    .await;
    join(tasks).await;
    assert_eq!(t.rounds.len(), 2);
    assert_eq!(t.rounds[0].matches, {
        let mut played = before.rounds[0].matches.clone();
        for (m, done) in played.iter_mut().zip(&t.rounds[0].matches) {
            m.finished = true;
            m.outcome = done.outcome;
        }
        played
    });
    tp.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn cancelling_refunds_every_fee_and_closes_registration() {
    let tp = TestPlatform::start(&[]).await.unwrap();
    let names = players("cancel", 3);
    for p in &names {
        tp.grant(p, 300).await;
    }
    let id = create(
        &tp,
        tn::TournamentSettings {
            name: "Rained off".into(),
            game_type: GameType::Gomoku as i32,
            room_id: "gomoku-free".into(),
            entry_fee_silver: 120,
            min_players: 2,
            max_players: 8,
            starts_at_unix_ms: 4_000_000_000_000,
            ..Default::default()
        },
    )
    .await;
    for p in &names {
        register(&tp.clients(p, Role::Player), &id).await.unwrap();
    }
    assert_eq!(get(&operator(&tp), &id).await.unwrap().pool_silver, 360);
    // One unregisters: refunded at once.
    let left = tp
        .clients(&names[2], Role::Player)
        .tournaments
        .unregister(tn::UnregisterRequest {
            tournament_id: id.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(left.refunded_silver, 120);
    assert_eq!(balance(&tp, &names[2]).await, 300);
    // A player may not cancel; an operator may.
    let refused = tp
        .clients(&names[0], Role::Player)
        .tournaments
        .cancel_tournament(tn::CancelTournamentRequest {
            tournament_id: id.clone(),
            reason: "mine".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::PermissionDenied);
    operator(&tp)
        .tournaments
        .cancel_tournament(tn::CancelTournamentRequest {
            tournament_id: id.clone(),
            reason: "the venue flooded".into(),
        })
        .await
        .unwrap();
    let t = wait_for(&operator(&tp), &id, "every fee refunded", |t| {
        t.pool_silver == 0
    })
    .await;
    assert_eq!(t.state, tn::State::Cancelled as i32);
    assert!(t.cancel_reason.contains("the venue flooded"));
    for p in &names {
        assert_eq!(balance(&tp, p).await, 300, "{p} got its fee back");
    }
    let late = register(&tp.clients(&names[0], Role::Player), &id)
        .await
        .unwrap_err();
    assert_eq!(late.code(), Code::FailedPrecondition);
    assert!(
        late.message().starts_with("not_registering"),
        "{}",
        late.message()
    );
    tp.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_player_who_never_shows_loses_on_the_clock() {
    // A room with a short clock, so the absent player's time runs out quickly.
    let dir = tempfile_dir();
    let rooms = dir.join("rooms.toml");
    std::fs::write(
        &rooms,
        "[[rooms]]\nid = \"gomoku-quick\"\nname = \"Quick\"\ngame = \"gomoku\"\nrules = \"freestyle\"\n\
         move_time_ms = 1_000\ntotal_time_ms = 3_000\n\n\
         [[rooms]]\nid = \"doudizhu-free\"\nname = \"Free\"\ngame = \"doudizhu\"\nrules = \"classic\"\nturn_time_ms = 20_000\n",
    )
    .unwrap();
    let tp = TestPlatform::start(&[("GAMEHUB_ROOMS_FILE", rooms.to_str().unwrap())])
        .await
        .unwrap();
    let names = players("noshow", 2);
    for p in &names {
        tp.grant(p, 100).await;
    }
    let id = create(
        &tp,
        tn::TournamentSettings {
            name: "Absent".into(),
            game_type: GameType::Gomoku as i32,
            room_id: "gomoku-quick".into(),
            entry_fee_silver: 10,
            min_players: 2,
            max_players: 2,
            rounds: 1,
            ..Default::default()
        },
    )
    .await;
    for p in &names {
        register(&tp.clients(p, Role::Player), &id).await.unwrap();
    }
    // Only the first player comes.
    let present = spawn_players(&tp, &names[..1], &id);
    let t = wait_for(&operator(&tp), &id, "the tournament finished", |t| {
        t.state == tn::State::Finished as i32
    })
    .await;
    join(present).await;
    assert_eq!(t.standings[0].player_id, names[0]);
    assert_eq!(t.standings[0].wins, 1);
    assert_eq!(t.standings[1].losses, 1);
    assert_eq!(t.prizes.len(), 1);
    assert_eq!(
        (t.prizes[0].player_id.as_str(), t.prizes[0].amount_silver),
        (names[0].as_str(), 20)
    );
    assert_eq!(balance(&tp, &names[0]).await, 110);
    assert_eq!(balance(&tp, &names[1]).await, 90);
    tp.stop().await;
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_fee_the_balance_cannot_pay_is_refused_and_registers_nobody() {
    let tp = TestPlatform::start(&[]).await.unwrap();
    let names = players("poor", 1);
    let id = create(
        &tp,
        tn::TournamentSettings {
            name: "Dear".into(),
            game_type: GameType::Gomoku as i32,
            room_id: "gomoku-free".into(),
            entry_fee_silver: 1_000,
            min_players: 2,
            max_players: 4,
            ..Default::default()
        },
    )
    .await;
    let refused = register(&tp.clients(&names[0], Role::Player), &id)
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::FailedPrecondition);
    assert!(
        refused
            .message()
            .starts_with("not_eligible: insufficient_balance"),
        "{}",
        refused.message()
    );
    let t = get(&operator(&tp), &id).await.unwrap();
    assert!(t.players.is_empty());
    assert_eq!(t.pool_silver, 0);
    // Bad settings name their field; an unknown room is a precondition.
    let bad = operator(&tp)
        .tournaments
        .create_tournament(tn::CreateTournamentRequest {
            request_id: gamehub_drive::api::request_id(),
            settings: Some(tn::TournamentSettings {
                name: "Nowhere".into(),
                game_type: GameType::Gomoku as i32,
                room_id: "no-such-room".into(),
                min_players: 2,
                max_players: 4,
                ..Default::default()
            }),
        })
        .await
        .unwrap_err();
    assert_eq!(bad.code(), Code::FailedPrecondition);
    assert!(
        bad.message().contains("settings.room_id"),
        "{}",
        bad.message()
    );
    tp.stop().await;
}

fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "gamehub-tournaments-{}",
        uuid::Uuid::new_v4().simple()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_scheduled_daily_tournament_is_created_once_when_its_registration_opens() {
    // Starts in half an hour (UTC), open for registration an hour before: open now.
    let now_s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let at = (now_s + 30 * 60) % 86_400;
    let dir = tempfile_dir();
    let schedule = dir.join("schedule.toml");
    std::fs::write(
        &schedule,
        format!(
            "[[tournament]]\nkey = \"nightly\"\nat = \"{:02}:{:02}\"\nopen_minutes = 60\n\
             name = \"Nightly\"\ngame = \"gomoku\"\nroom = \"gomoku-free\"\nmin_players = 2\nmax_players = 8\n",
            at / 3600,
            at % 3600 / 60
        ),
    )
    .unwrap();
    let tp = TestPlatform::start(&[("GAMEHUB_TOURNAMENTS_SCHEDULE", schedule.to_str().unwrap())])
        .await
        .unwrap();
    let list = || async {
        operator(&tp)
            .tournaments
            .list_tournaments(tn::ListTournamentsRequest::default())
            .await
            .unwrap()
            .into_inner()
            .tournaments
    };
    let deadline = Instant::now() + PATIENCE;
    while list().await.is_empty() {
        assert!(
            Instant::now() < deadline,
            "the scheduled tournament was not created"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // A few more passes of the director make no second one.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let made = list().await;
    assert_eq!(made.len(), 1, "{made:?}");
    let settings = made[0].settings.clone().unwrap();
    assert_eq!(settings.name, "Nightly");
    assert_eq!(made[0].state, tn::State::Registering as i32);
    let starts_in_s = settings.starts_at_unix_ms / 1000 - i64::try_from(now_s).unwrap();
    assert!(
        (29 * 60..=31 * 60).contains(&starts_in_s),
        "starts in {starts_in_s} s"
    );
    // Players register for it as for any other.
    let names = players("nightly", 1);
    register(&tp.clients(&names[0], Role::Player), &made[0].tournament_id)
        .await
        .unwrap();
    tp.stop().await;
    std::fs::remove_dir_all(dir).ok();
}
