//! Least privilege, over the real API: every RPC of every service called with a token
//! of every identity, against the table below, written out here on its own (not read
//! from the access table the services enforce, so a change to either shows).
//!
//! Each call carries an empty request: a refusal by the access table
//! (`PERMISSION_DENIED`, "… needs an operator token; this token is …") must come exactly where the table below
//! says the identity may not call; anywhere else the call reaches its handler, which may
//! refuse the empty request for its own reasons.
#![allow(clippy::unwrap_used)]

use std::str::FromStr;
use std::time::Duration;

use gamehub_platform::auth::Role;
use gamehub_testkit_services::platform::TestPlatform;
use prost_reflect::{DescriptorPool, DynamicMessage, MethodDescriptor};
use tonic::{Code, Status};

/// The identities, by their letter in the table.
const IDENTITIES: &[(char, &str, Role)] = &[
    ('P', "access-player", Role::Player),
    ('O', "access-operator", Role::Operator),
    ('M', "matchmaking", Role::Service),
    ('T', "tournaments", Role::Service),
    ('G', "gomoku-referee", Role::Service),
    ('D', "doudizhu-dealer", Role::Service),
    // The ledger calls nobody; a service token in its name may call nothing.
    ('L', "ledger", Role::Service),
    // A service identity the platform does not know.
    ('X', "some-service", Role::Service),
];

/// Who may call each RPC: P player, O operator, M matchmaking, T the tournament service,
/// G the Gomoku referee, D the Dou Dizhu dealer (L, the ledger's identity, and X, an unknown service, may call
/// nothing).
const TABLE: &[(&str, &str)] = &[
    ("gamehub.ledger.v1.LedgerService/GetAccount", "POMT"),
    ("gamehub.ledger.v1.LedgerService/GrantSilver", "O"),
    ("gamehub.ledger.v1.LedgerService/SettleGame", "GD"),
    ("gamehub.ledger.v1.LedgerService/CheckEligibility", "POMGD"),
    ("gamehub.ledger.v1.LedgerService/ListHistory", "PO"),
    ("gamehub.ledger.v1.LedgerService/GetGameRecord", "PO"),
    ("gamehub.ledger.v1.LedgerService/ListGames", "PO"),
    ("gamehub.ledger.v1.LedgerService/GetLeaderboard", "POMTGD"),
    ("gamehub.ledger.v1.LedgerService/SetProfessional", "O"),
    ("gamehub.ledger.v1.LedgerService/SetName", "PO"),
    ("gamehub.ledger.v1.LedgerService/GetProfiles", "POMTGD"),
    ("gamehub.ledger.v1.LedgerService/RecordOperatorAction", "GD"),
    ("gamehub.ledger.v1.LedgerService/ListOperatorActions", "O"),
    ("gamehub.ledger.v1.LedgerService/HoldEntryFee", "T"),
    ("gamehub.ledger.v1.LedgerService/RefundEntryFee", "T"),
    ("gamehub.ledger.v1.LedgerService/PayPrizes", "T"),
    (
        "gamehub.tournament.v1.TournamentService/CreateTournament",
        "O",
    ),
    (
        "gamehub.tournament.v1.TournamentService/ListTournaments",
        "POMTGD",
    ),
    (
        "gamehub.tournament.v1.TournamentService/GetTournament",
        "POMTGD",
    ),
    ("gamehub.tournament.v1.TournamentService/Register", "P"),
    ("gamehub.tournament.v1.TournamentService/Unregister", "P"),
    (
        "gamehub.tournament.v1.TournamentService/CancelTournament",
        "O",
    ),
    (
        "gamehub.tournament.v1.TournamentService/WatchTournament",
        "POMTGD",
    ),
    (
        "gamehub.matchmaking.v1.MatchmakingService/ListRooms",
        "POMTGD",
    ),
    ("gamehub.matchmaking.v1.MatchmakingService/Enqueue", "PO"),
    (
        "gamehub.matchmaking.v1.MatchmakingService/CancelTicket",
        "PO",
    ),
    ("gamehub.matchmaking.v1.MatchmakingService/GetTicket", "PO"),
    (
        "gamehub.matchmaking.v1.MatchmakingService/WatchTicket",
        "PO",
    ),
    (
        "gamehub.matchmaking.v1.MatchmakingService/LocatePlayer",
        "PO",
    ),
    (
        "gamehub.matchmaking.v1.MatchmakingService/OpenFriendsTable",
        "P",
    ),
    (
        "gamehub.matchmaking.v1.MatchmakingService/GetFriendsTable",
        "POMTGD",
    ),
    (
        "gamehub.matchmaking.v1.MatchmakingService/WatchFriendsTable",
        "POMTGD",
    ),
    (
        "gamehub.matchmaking.v1.MatchmakingService/JoinFriendsTable",
        "P",
    ),
    ("gamehub.matchmaking.v1.MatchmakingService/SetReady", "P"),
    (
        "gamehub.matchmaking.v1.MatchmakingService/LeaveFriendsTable",
        "P",
    ),
    (
        "gamehub.matchmaking.v1.MatchmakingService/RemoveFromFriendsTable",
        "P",
    ),
    ("gamehub.matchmaking.v1.MatchmakingService/AddBots", "P"),
    (
        "gamehub.matchmaking.v1.MatchmakingService/CloseFriendsTable",
        "PO",
    ),
    (
        "gamehub.operator.v1.TableOperatorService/ListDeadLetters",
        "O",
    ),
    ("gamehub.operator.v1.TableOperatorService/Redeliver", "O"),
    ("gamehub.operator.v1.TableOperatorService/CloseTable", "O"),
    ("gamehub.gomoku.v1.GomokuService/OpenTable", "MT"),
    ("gamehub.gomoku.v1.GomokuService/GetTable", "POMTGD"),
    ("gamehub.gomoku.v1.GomokuService/PlaceStone", "P"),
    ("gamehub.gomoku.v1.GomokuService/ClaimForbidden", "P"),
    ("gamehub.gomoku.v1.GomokuService/Resign", "P"),
    ("gamehub.gomoku.v1.GomokuService/OfferDraw", "P"),
    ("gamehub.gomoku.v1.GomokuService/AnswerDraw", "P"),
    ("gamehub.gomoku.v1.GomokuService/Swap", "P"),
    ("gamehub.gomoku.v1.GomokuService/ProposeFifthMoves", "P"),
    ("gamehub.gomoku.v1.GomokuService/ChooseFifthMove", "P"),
    ("gamehub.gomoku.v1.GomokuService/Leave", "PM"),
    ("gamehub.gomoku.v1.GomokuService/NextGame", "P"),
    ("gamehub.gomoku.v1.GomokuService/Watch", "POMTGD"),
    ("gamehub.gomoku.v1.GomokuService/GetRecord", "POMTGD"),
    ("gamehub.gomoku.v1.GomokuService/ExportRecord", "POMTGD"),
    ("gamehub.gomoku.v1.GomokuService/LoadRecord", "POMTGD"),
    ("gamehub.gomoku.v1.GomokuService/ListTables", "POMTGD"),
    ("gamehub.doudizhu.v1.DoudizhuService/OpenTable", "MT"),
    ("gamehub.doudizhu.v1.DoudizhuService/GetTable", "POMTGD"),
    ("gamehub.doudizhu.v1.DoudizhuService/Bid", "P"),
    ("gamehub.doudizhu.v1.DoudizhuService/Call", "P"),
    ("gamehub.doudizhu.v1.DoudizhuService/Rob", "P"),
    ("gamehub.doudizhu.v1.DoudizhuService/Double", "P"),
    ("gamehub.doudizhu.v1.DoudizhuService/Show", "P"),
    ("gamehub.doudizhu.v1.DoudizhuService/Play", "P"),
    ("gamehub.doudizhu.v1.DoudizhuService/Pass", "P"),
    ("gamehub.doudizhu.v1.DoudizhuService/Hint", "P"),
    ("gamehub.doudizhu.v1.DoudizhuService/SetAutoPlay", "P"),
    ("gamehub.doudizhu.v1.DoudizhuService/Leave", "PM"),
    ("gamehub.doudizhu.v1.DoudizhuService/NextDeal", "P"),
    ("gamehub.doudizhu.v1.DoudizhuService/Watch", "POMTGD"),
    (
        "gamehub.doudizhu.v1.DoudizhuService/GetDealRecord",
        "POMTGD",
    ),
    ("gamehub.doudizhu.v1.DoudizhuService/ListTables", "POMTGD"),
];

/// Whether the access table refused the call (not its handler).
fn refused_by_table(result: &Result<(), Status>) -> bool {
    matches!(result, Err(s) if s.code() == Code::PermissionDenied && s.message().contains("token; this token is"))
}

/// Calls `method` at `url` with an empty request as `subject` in `role`.
async fn call(
    tp: &TestPlatform,
    url: &str,
    method: &MethodDescriptor,
    subject: &str,
    role: Role,
) -> Result<(), Status> {
    let channel = gamehub_testkit::tokens::channel(url, &tp.config.keys, subject, role);
    let mut grpc = tonic::client::Grpc::new(channel);
    grpc.ready()
        .await
        .map_err(|e| Status::unavailable(format!("channel not ready: {e}")))?;
    let path = http::uri::PathAndQuery::from_str(&format!(
        "/{}/{}",
        method.parent_service().full_name(),
        method.name()
    ))
    .unwrap();
    let codec = tonic_prost::ProstCodec::<DynamicMessage, ()>::default();
    let request = tonic::Request::new(DynamicMessage::new(method.input()));
    if method.is_server_streaming() {
        let mut stream = grpc
            .server_streaming(request, path, codec)
            .await?
            .into_inner();
        match tokio::time::timeout(Duration::from_millis(500), stream.message()).await {
            Ok(first) => first.map(|_| ()),
            Err(_) => Ok(()),
        }
    } else {
        grpc.unary(request, path, codec).await.map(|_| ())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_rpc_is_callable_by_exactly_the_identities_of_the_table() {
    let tp = TestPlatform::start(&[]).await.unwrap();
    let pool = DescriptorPool::decode(gamehub_proto::FILE_DESCRIPTOR_SET).unwrap();
    let mut methods: Vec<MethodDescriptor> = pool
        .services()
        .filter(|s| s.package_name().starts_with("gamehub."))
        .flat_map(|s| s.methods().collect::<Vec<_>>())
        .collect();
    methods.sort_by_key(|m| m.full_name().to_owned());
    let names: Vec<String> = methods
        .iter()
        .map(|m| format!("{}/{}", m.parent_service().full_name(), m.name()))
        .collect();
    let mut listed: Vec<&str> = TABLE.iter().map(|(m, _)| *m).collect();
    listed.sort_unstable();
    let mut in_protos: Vec<&str> = names.iter().map(String::as_str).collect();
    in_protos.sort_unstable();
    assert_eq!(
        listed, in_protos,
        "the table here names every RPC of the protos"
    );

    let mut calls = 0;
    let mut wrong = Vec::new();
    for (method, name) in methods.iter().zip(&names) {
        let allowed = TABLE.iter().find(|(m, _)| m == name).unwrap().1;
        // The operator's service is served by every game's service: both are checked.
        let urls: Vec<&str> = match method.parent_service().package_name() {
            "gamehub.matchmaking.v1" => vec![&tp.endpoints.matchmaking],
            "gamehub.gomoku.v1" => vec![&tp.endpoints.gomoku],
            "gamehub.doudizhu.v1" => vec![&tp.endpoints.doudizhu],
            "gamehub.ledger.v1" => vec![&tp.endpoints.ledger],
            "gamehub.tournament.v1" => vec![&tp.endpoints.tournaments],
            "gamehub.operator.v1" => vec![&tp.endpoints.gomoku, &tp.endpoints.doudizhu],
            other => panic!("no endpoint for package {other}"),
        };
        for url in urls {
            for (letter, subject, role) in IDENTITIES {
                let result = call(&tp, url, method, subject, *role).await;
                calls += 1;
                let may = allowed.contains(*letter);
                if refused_by_table(&result) == may {
                    wrong.push(format!(
                        "{name} as {subject} ({}): expected {}, got {result:?}",
                        role.as_str(),
                        if may {
                            "to reach the handler"
                        } else {
                            "the table's refusal"
                        }
                    ));
                }
            }
        }
    }
    println!("{calls} calls: every RPC with every identity");
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    tp.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_service_settles_only_its_own_game() {
    use gamehub_proto::common::GameType;
    use gamehub_proto::ledger::SettleGameRequest;
    let tp = TestPlatform::start(&[]).await.unwrap();
    // The dealer's identity, settling a Gomoku game: past the table, refused by the
    // ledger before anything is read or written.
    let channel = gamehub_testkit::tokens::channel(
        &tp.endpoints.ledger,
        &tp.config.keys,
        "doudizhu-dealer",
        Role::Service,
    );
    let mut ledger =
        gamehub_proto::ledger::ledger_service_client::LedgerServiceClient::new(channel);
    let players = vec!["alice".to_owned(), "bob".to_owned(), "carol".to_owned()];
    let mut rng = rand::rng();
    let gomoku: SettleGameRequest = std::iter::repeat_with(|| {
        gamehub_testkit::settlements::random_game(&mut rng, "access-g1".into(), &players)
    })
    .find(|game| game.game_type == GameType::Gomoku as i32)
    .unwrap();
    let err = ledger.settle_game(gomoku).await.unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied, "{err:?}");
    assert!(
        err.message().contains("gomoku-referee"),
        "{}",
        err.message()
    );
    tp.stop().await;
}
