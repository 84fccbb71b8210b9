//! Names a client sends: display names (昵称: NFC, then checked), room ids, ids (players,
//! tables, games, requests), each game's rule-set names and registry keys, ticket ids,
//! and a ListTables request's room, page size and page token (one per line).
//!
//! Properties: an accepted name is a fixed point (checking it again gives it back: NFC
//! and the checks are idempotent) and within its bounds; an accepted id or room id reads
//! back as itself; a page size is 1 to 50.
#![no_main]

use std::sync::LazyLock;

use gamehub_matchmaking::rooms::Rooms;
use gamehub_matchmaking::tickets::{TicketId, TicketState};
use gamehub_platform::tables::listing::PageRequest;
use gamehub_terms::names::MAX_NAME_CHARS;
use gamehub_terms::{DisplayName, RoomId, games, ids};
use libfuzzer_sys::fuzz_target;

/// The shipped rooms, which ticket ids name.
static ROOMS: LazyLock<Rooms> = LazyLock::new(Rooms::defaults);

fuzz_target!(|data: &[u8]| {
    let Some(text) = gamehub_fuzz::text(data) else {
        return;
    };
    if let Ok(name) = DisplayName::parse(text) {
        assert_eq!(DisplayName::parse(name.as_str()).as_ref(), Ok(&name));
        let chars = name.as_str().chars().count();
        assert!((1..=MAX_NAME_CHARS).contains(&chars), "{chars} characters");
    }
    if let Ok(room) = RoomId::parse(text) {
        assert_eq!(RoomId::parse(room.as_str()).as_ref(), Ok(&room));
        let json = serde_json::to_string(&room).expect("a room id serializes");
        assert_eq!(serde_json::from_str::<RoomId>(&json).ok(), Some(room));
    }
    if let Ok(id) = ids::check(text, ids::MAX_ID_LEN) {
        assert_eq!(ids::check(id, ids::MAX_ID_LEN), Ok(id));
    }
    for game in games::GAMES {
        if let Some(name) = (game.rule_sets.parse)(text) {
            assert_eq!((game.rule_sets.parse)(name), Some(name));
        }
    }
    if let Some(game) = games::by_key(text) {
        assert_eq!(games::by_key(game.key), Some(game));
    }
    if let Some(ticket) = TicketId::parse(text, &ROOMS) {
        assert!(ROOMS.get(ticket.room_id()).is_some());
        let _ = ticket.made_at_ms();
    }
    if let Some(state) = TicketState::parse(text) {
        assert_eq!(TicketState::parse(state.as_str()), Some(state));
    }
    let fields = gamehub_fuzz::fields(text, 3);
    if let [room, size, token] = fields.as_slice() {
        let size = size.trim().parse::<i32>().unwrap_or(0);
        if let Ok(request) = PageRequest::parse(room, size, token) {
            assert!((1..=50).contains(&request.page_size));
        }
    }
});
