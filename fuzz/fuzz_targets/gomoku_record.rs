//! Gomoku records (保存/载入) as a client or a file gives them, every reader on every
//! input: the text record, Piskvork PSQ (under the rule set `len % 5` picks, since PSQ
//! does not name one), the compact stored state a table keeps in Redis, and LoadRecord's
//! whole path in the referee (format, rule-set code, reading, replay, the answer).
//!
//! Properties: a record that reads is written and read back as the same game, and
//! written the same way again (text: header values are normalised once, `"` becoming
//! `'`); a PSQ record reads back from its PSQ as the same game; a stored state reads
//! back from its bytes as the same game.
#![no_main]

use gamehub_gomoku_referee::Referee;
use gamehub_proto::gomoku as pb;
use gamehub_terms::rule_sets::gomoku_to_proto;
use gomoku_rules::{Game, Record, RuleSet};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(game) = Game::from_bytes(data) {
        assert_eq!(Game::from_bytes(&game.to_bytes()).as_ref(), Ok(&game));
    }
    let Some(text) = gamehub_fuzz::text(data) else {
        return;
    };
    let rule_set = RuleSet::ALL[text.len() % RuleSet::ALL.len()];

    if let Ok(record) = Record::from_text(text) {
        let written = record.to_text();
        let again = Record::from_text(&written)
            .unwrap_or_else(|e| panic!("a written record does not read: {e}\n{written}"));
        assert_eq!(again.game, record.game);
        assert_eq!(again.to_text(), written);
    }
    if let Ok(record) = Record::from_psq(text, rule_set) {
        let written = record.to_psq();
        let again = Record::from_psq(&written, rule_set)
            .unwrap_or_else(|e| panic!("a written PSQ does not read: {e}\n{written}"));
        assert_eq!(again.game, record.game);
    }

    let format = if text.trim_start().starts_with("Piskvorky") {
        pb::RecordFormat::Psq
    } else {
        pb::RecordFormat::Text
    };
    let request = pb::LoadRecordRequest {
        format: format as i32,
        content: text.to_owned(),
        rule_set: gomoku_to_proto(rule_set) as i32,
    };
    if let Ok(loaded) = Referee::load_record(&request) {
        assert!(loaded.entries.len() >= loaded.stones.len());
    }
});
