//! Dou Dizhu deal records and their verification, as a player or an auditor gives them:
//! the "doudizhu-json" document (GetDealRecord's `record_json`, the ledger's record, the
//! dealer's `verify` command's file) read and verified (deal id, seed against the
//! commitment, the shuffle against the hands and kitty, the plays replayed to the
//! result); the rules crate's `DealRecord` alone (verify, replay, the hands left); and a
//! deal as published (`verify_published`: seed and commitment hex, deal id, three hands
//! and the kitty as card text, one per line).
//!
//! Properties: a document or record that reads is written and read back as the same
//! value, and verifies again exactly when it verified.
#![no_main]

use doudizhu_rules::{DealRecord, verify_published};
use gamehub_doudizhu_dealer::record::RecordDoc;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(text) = gamehub_fuzz::text(data) else {
        return;
    };
    if let Ok(doc) = RecordDoc::from_json(text) {
        let verified = doc.verify();
        let again = RecordDoc::from_json(&doc.to_json())
            .unwrap_or_else(|e| panic!("a written document does not read: {e}"));
        assert_eq!(again, doc);
        assert_eq!(again.verify(), verified);
    }
    if let Ok(record) = serde_json::from_str::<DealRecord>(text) {
        let verified = record.verify();
        let settlement = record.replay();
        let _ = record.hands_left();
        let json = serde_json::to_string(&record).expect("a record serializes");
        let again: DealRecord = serde_json::from_str(&json)
            .unwrap_or_else(|e| panic!("a written record does not read: {e}\n{json}"));
        assert_eq!(again, record);
        assert_eq!(again.verify(), verified);
        assert_eq!(again.replay(), settlement);
    }
    let fields = gamehub_fuzz::fields(text, 7);
    if let [seed, commitment, deal_id, hands @ .., kitty] = fields.as_slice() {
        let hands: Vec<[String; 1]> = hands.iter().map(|h| [(*h).to_owned()]).collect();
        let _ = verify_published(
            seed,
            commitment,
            deal_id,
            hands.iter().map(|h| h.as_slice()),
            &[(*kitty).to_owned()],
        );
    }
});
