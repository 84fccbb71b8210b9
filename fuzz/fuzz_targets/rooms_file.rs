//! The rooms file (房间, `GAMEHUB_ROOMS_FILE`): TOML read and validated at start, with the
//! ledger's per-game loss cap from the input's first line (a number; the default cap
//! when it is not one).
//!
//! Property: an accepted file's rooms have unique ids, each a valid room id naming a
//! registered game and one of that game's rule sets.
#![no_main]

use std::collections::HashSet;

use gamehub_matchmaking::rooms::{DEFAULT_GAME_LOSS_CAP_SILVER, Rooms};
use gamehub_terms::RoomId;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(text) = gamehub_fuzz::text(data) else {
        return;
    };
    let (cap, file) = match text.split_once('\n') {
        Some((first, rest)) => match first.trim().parse::<i64>() {
            Ok(cap) => (cap, rest),
            Err(_) => (DEFAULT_GAME_LOSS_CAP_SILVER, text),
        },
        None => (DEFAULT_GAME_LOSS_CAP_SILVER, text),
    };
    let Ok(rooms) = Rooms::parse(file, cap) else {
        return;
    };
    assert!(!rooms.is_empty());
    let mut seen = HashSet::new();
    for room in rooms.iter() {
        assert!(seen.insert(room.id.clone()), "room {} twice", room.id);
        assert_eq!(RoomId::parse(room.id.as_str()).as_ref(), Ok(&room.id));
        assert_eq!((room.game.rule_sets.parse)(room.rules), Some(room.rules));
        assert!(rooms.get(room.id.as_str()).is_some());
    }
});
