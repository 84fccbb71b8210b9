//! The table list: a room's live tables, newest first, as a spectator would see them.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use gamehub_platform::auth::Role;
use gamehub_proto::doudizhu as pb;

async fn list(world: &World, size: i32, token: &str) -> pb::ListTablesResponse {
    world
        .dz("lister", Role::Player)
        .list_tables(pb::ListTablesRequest {
            room_id: stakes().room_id,
            page_size: size,
            page_token: token.into(),
        })
        .await
        .unwrap()
        .into_inner()
}

#[tokio::test]
async fn list_tables_shows_a_rooms_tables_newest_first_page_by_page() {
    let world = World::start().await;
    let first = world.open(&[], 60_000).await;
    // A millisecond later, so "newest first" has one answer.
    world.clock.advance(std::time::Duration::from_millis(1));
    let second = world.open(&[], 60_000).await;

    let page = list(&world, 1, "").await;
    assert_eq!(page.tables.len(), 1);
    let newest = &page.tables[0];
    assert_eq!(newest.table_id, second.table_id);
    assert_eq!(newest.room_id, stakes().room_id);
    assert!(newest.in_progress);
    assert_eq!(newest.phase, "PHASE_BIDDING");
    assert_eq!((newest.game_number, newest.move_number), (1, 0));
    let players: Vec<_> = newest.players.iter().map(|p| p.player_id.clone()).collect();
    assert_eq!(players, second.players.to_vec());
    assert_eq!(newest.spectators, 0);
    assert!(newest.opened_at_unix_ms > 0);

    let rest = list(&world, 1, &page.next_page_token).await;
    let ids: Vec<&str> = rest.tables.iter().map(|t| t.table_id.as_str()).collect();
    assert_eq!(ids, [first.table_id.as_str()]);
    assert_eq!(rest.next_page_token, "");

    let refused = world
        .dz("lister", Role::Player)
        .list_tables(pb::ListTablesRequest {
            room_id: String::new(),
            page_size: 0,
            page_token: String::new(),
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
    assert!(refused.message().starts_with("room_id: "), "{refused:?}");
    world.finish().await;
}
