//! The documented limits, over the real API: a request larger than
//! `GAMEHUB_MAX_MESSAGE_BYTES` is refused by every service and changes nothing, and the
//! number of watchers of one table is bounded.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use gamehub_drive::api::request_id;
use gamehub_platform::auth::Role;
use gamehub_proto::doudizhu as ddz;
use gamehub_proto::gomoku as gm;
use gamehub_proto::ledger as lg;
use gamehub_proto::matchmaking as mm;
use gamehub_testkit::clock::eventually;
use gamehub_testkit_services::platform::TestPlatform;
use tonic::Code;

/// The limit the test platform runs with.
const LIMIT: usize = 64 * 1024;

fn oversized() -> String {
    "x".repeat(LIMIT + 1024)
}

fn assert_too_large<T: std::fmt::Debug>(result: Result<T, tonic::Status>, what: &str) {
    let status = result.expect_err(what);
    assert_eq!(status.code(), Code::OutOfRange, "{what}: {status:?}");
    // The exact text the README and docs/rules.md#limits quote.
    let message = status.message();
    assert!(
        message.starts_with("Error, decoded message length too large: found ")
            && message.ends_with(&format!(" bytes, the limit is: {LIMIT} bytes")),
        "{what}: {message}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn requests_over_the_message_limit_are_refused_by_every_service_and_change_nothing() {
    let limit = LIMIT.to_string();
    let tp = TestPlatform::start(&[("GAMEHUB_MAX_MESSAGE_BYTES", limit.as_str())])
        .await
        .unwrap();
    let mut operator = tp.clients("limits-operator", Role::Operator);
    let mut player = tp.clients("limits-player", Role::Player);

    assert_too_large(
        operator
            .ledger
            .grant_silver(lg::GrantSilverRequest {
                request_id: request_id(),
                player_id: "limits-player".into(),
                amount_silver: 1000,
                reason: oversized(),
            })
            .await,
        "an oversized grant",
    );
    let account = operator
        .ledger
        .get_account(lg::GetAccountRequest {
            player_id: "limits-player".into(),
        })
        .await
        .unwrap()
        .into_inner()
        .account
        .unwrap();
    assert_eq!(account.balance_silver, 0, "the refused grant moved nothing");

    assert_too_large(
        player
            .matchmaking
            .enqueue(mm::EnqueueRequest {
                room_id: oversized(),
                request_id: request_id(),
                player_id: String::new(),
            })
            .await,
        "an oversized enqueue",
    );
    assert_too_large(
        player
            .gomoku
            .get_table(gm::GetTableRequest {
                table_id: oversized(),
            })
            .await,
        "an oversized Gomoku request",
    );
    assert_too_large(
        player
            .doudizhu
            .get_table(ddz::GetTableRequest {
                table_id: oversized(),
                as_spectator: false,
            })
            .await,
        "an oversized Dou Dizhu request",
    );
    // A request just under the limit is judged normally (here: an id that is too long).
    let status = player
        .gomoku
        .get_table(gm::GetTableRequest {
            table_id: "t".repeat(LIMIT / 2),
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    tp.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_watchers_of_one_table_are_bounded() {
    // The two seats keep 4 places each; spectators share the other 3.
    let tp = TestPlatform::start(&[("GAMEHUB_GOMOKU_MAX_WATCHERS_PER_TABLE", "11")])
        .await
        .unwrap();
    let table_id = tp.open_free_gomoku_table("w-a", "w-b").await;
    let mut streams = Vec::new();
    for i in 0..3 {
        let mut spectator = tp.clients(&format!("watcher-{i}"), Role::Player);
        let mut stream = spectator
            .gomoku
            .watch(gm::WatchRequest {
                table_id: table_id.clone(),
                after_event_id: 0,
            })
            .await
            .unwrap()
            .into_inner();
        // The first message arrives: the watch is registered.
        tokio::time::timeout(Duration::from_secs(5), stream.message())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        streams.push(stream);
    }
    let mut fourth = tp.clients("watcher-3", Role::Player);
    let refused = match fourth
        .gomoku
        .watch(gm::WatchRequest {
            table_id: table_id.clone(),
            after_event_id: 0,
        })
        .await
    {
        Err(status) => status,
        Ok(response) => response.into_inner().message().await.unwrap_err(),
    };
    assert_eq!(refused.code(), Code::ResourceExhausted, "{refused:?}");
    assert!(
        refused.message().contains("watchers"),
        "{}",
        refused.message()
    );
    // A freed place can be taken again, once the server has seen the stream close.
    drop(streams.pop());
    let again = tp.clients("watcher-4", Role::Player);
    let first = eventually(
        "the freed place is released",
        Duration::from_secs(10),
        || {
            let mut gomoku = again.gomoku.clone();
            let table_id = table_id.clone();
            async move {
                let attempt = async {
                    let mut stream = gomoku
                        .watch(gm::WatchRequest {
                            table_id,
                            after_event_id: 0,
                        })
                        .await?
                        .into_inner();
                    stream.message().await
                };
                match attempt.await {
                    Ok(first) => Some(first),
                    Err(status) if status.code() == Code::ResourceExhausted => None,
                    Err(status) => panic!("unexpected refusal: {status:?}"),
                }
            }
        },
    )
    .await;
    assert!(first.is_some(), "the new watcher gets the snapshot");
    tp.stop().await;
}
