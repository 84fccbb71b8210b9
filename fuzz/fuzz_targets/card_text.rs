//! Dou Dizhu card text (`S3 HT BJ RJ`, `♠3♥10`) and rank text (`3 3 3 4`, `10 J Q`): what
//! a client sends as a play and what a published deal lists. Two texts, one per line;
//! the second is also read as the play the first must beat.
//!
//! Properties: card text has no card twice and reads back from its printed form as the
//! same cards; rank text reads back as the same ranks.
#![no_main]

use doudizhu_rules::{Card, CardSet, RankCounts, classify, parse_card_text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(text) = gamehub_fuzz::text(data) else {
        return;
    };
    let fields = gamehub_fuzz::fields(text, 2);
    for field in &fields {
        cards(field);
    }
    let plays: Vec<_> = fields.iter().map(|f| ranks(f)).collect();
    if let [Some(first), Some(second)] = plays.as_slice() {
        // Either order: neither may panic, whatever the kinds and lengths.
        let _ = first.beats(second);
        let _ = second.beats(first);
    }
});

/// Reads card text every way the rules crate offers.
fn cards(text: &str) {
    if let Ok(cards) = parse_card_text(text) {
        let set: CardSet = cards.iter().copied().collect();
        assert_eq!(set.len(), cards.len(), "a card read twice");
        assert!(cards.len() <= Card::DECK_SIZE);
        assert_eq!(set.to_string().parse::<CardSet>(), Ok(set));
        let printed: Vec<String> = cards.iter().map(Card::to_string).collect();
        assert_eq!(parse_card_text(&printed.join(" ")), Ok(cards));
    }
    if let Ok(card) = text.parse::<Card>() {
        assert_eq!(card.to_string().parse::<Card>(), Ok(card));
    }
}

/// Reads rank text and, when it forms a combination, the combination.
fn ranks(text: &str) -> Option<doudizhu_rules::Combination> {
    let ranks = RankCounts::parse(text).ok()?;
    assert_eq!(ranks.to_string().parse::<RankCounts>(), Ok(ranks));
    classify(&ranks)
}
