//! Whole deals between random players, in every rule set, and random (often invalid)
//! input: cards are conserved, no seat ever sees another seat's cards (the landlord's
//! only once shown), points are zero-sum, records replay, nothing panics, and a refused
//! action changes nothing.

use doudizhu_rules::{
    ActionError, Audience, Bid, Card, CardSet, Deal, DealRules, Decision, Event, EventBody,
    Outcome, RankCounts, RuleSet, Seat, Seed, TimeControl, classify, parse_card_text,
};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

const MAX_STEPS: usize = 3_000;

/// The rule sets random deals are played in.
const RULE_SETS: [RuleSet; 3] = [RuleSet::Classic, RuleSet::Rob, RuleSet::Laizi];

fn rules(rule_set: RuleSet) -> DealRules {
    DealRules {
        points_base: 5,
        time: TimeControl {
            turn_ms: 10_000,
            auto_turn_ms: 1_000,
        },
        rule_set,
    }
}

/// Every card written in card text anywhere in a JSON value.
fn cards_in(value: &Value, out: &mut CardSet) {
    match value {
        Value::String(s) if s.len() <= 3 => {
            if let Ok(card) = s.parse::<Card>() {
                out.insert(card);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| cards_in(v, out)),
        Value::Object(map) => map.values().for_each(|v| cards_in(v, out)),
        _ => {}
    }
}

fn cards_of<T: serde::Serialize>(thing: &T) -> CardSet {
    let mut out = CardSet::EMPTY;
    cards_in(&serde_json::to_value(thing).expect("serializes"), &mut out);
    out
}

/// What every seat may know: cards played, and the kitty once revealed.
struct Watcher {
    public: CardSet,
    ended: usize,
    /// Whether the landlord showed its hand.
    shown: bool,
}

impl Watcher {
    /// Checks each event against what its audience may see, in order.
    fn check_events(&mut self, deal: &Deal, events: &[Event]) {
        for event in events {
            match &event.body {
                EventBody::LandlordChosen { kitty, .. } => {
                    self.public = self.public.union(kitty.iter().copied().collect());
                }
                EventBody::Played { cards, .. } => {
                    self.public = self.public.union(cards.iter().copied().collect());
                }
                EventBody::HandShown { seat, cards } => {
                    // 明牌: the landlord's whole hand, to all.
                    assert_eq!(Some(*seat), deal.landlord());
                    assert_eq!(cards.len(), 20);
                    self.public = self.public.union(cards.iter().copied().collect());
                    self.shown = true;
                }
                EventBody::DealEnded { hands_left, .. } => {
                    // 摊牌: the deal is over, so every hand left is shown to all, exactly
                    // as the seats hold them (none for a redeal).
                    if !hands_left.is_empty() {
                        for seat in Seat::ALL {
                            let left: CardSet = hands_left[seat.index()].iter().copied().collect();
                            assert_eq!(left, deal.hand(seat), "seat {seat}'s hand left");
                            self.public = self.public.union(left);
                        }
                    }
                    self.ended += 1;
                }
                _ => {}
            }
            let shown = cards_of(&event.body);
            match event.audience {
                Audience::All => assert!(
                    shown.is_subset(self.public),
                    "public event shows hidden cards: {event:?}"
                ),
                Audience::Seat(seat) => {
                    assert!(
                        matches!(event.body, EventBody::HandDealt { seat: s, .. } if s == seat),
                        "only a seat's own hand is private: {event:?}"
                    );
                    let own = deal.hand(seat).union(self.public);
                    assert!(shown.is_subset(own), "private event shows other cards");
                }
            }
        }
    }

    fn check_views(&self, deal: &Deal) {
        for seat in Seat::ALL {
            let view = deal.view(seat);
            assert_eq!(
                view.hand.iter().copied().collect::<CardSet>(),
                deal.hand(seat)
            );
            let shown = cards_of(&view);
            assert!(
                shown.is_subset(deal.hand(seat).union(self.public)),
                "seat {seat}'s view shows another seat's cards"
            );
            let counts: Vec<u8> = Seat::ALL
                .iter()
                .map(|s| deal.hand(*s).len() as u8)
                .collect();
            assert_eq!(view.cards_left.to_vec(), counts);
            // The landlord's cards to every seat once shown, never before.
            let landlord_hand = view
                .landlord_hand
                .map(|cards| cards.into_iter().collect::<CardSet>());
            match deal.landlord() {
                Some(landlord) if self.shown => {
                    assert_eq!(landlord_hand, Some(deal.hand(landlord)));
                }
                _ => assert_eq!(landlord_hand, None),
            }
            assert_eq!(view.decision, deal.decision().map(|(_, d)| d));
            assert_eq!(view.to_act, deal.decision().map(|(s, _)| s));
        }
    }
}

fn check_conservation(deal: &Deal, watcher: &Watcher) {
    let view = deal.view(Seat::ALL[0]);
    let played: CardSet = view
        .turns
        .iter()
        .flat_map(|t| t.cards.iter().copied())
        .collect();
    let mut all = played;
    let mut total = played.len();
    for seat in Seat::ALL {
        all = all.union(deal.hand(seat));
        total += deal.hand(seat).len();
    }
    if deal.landlord().is_none() {
        // The kitty is still aside: it is what no hand holds.
        total += 3;
        all = CardSet::DECK.difference(all).union(all);
    }
    assert_eq!(total, 54, "cards appeared or vanished");
    assert_eq!(all, CardSet::DECK);
    assert!(played.is_subset(watcher.public));
}

/// One random but legal move (or a timeout, an auto-play toggle, rarely an escape).
fn random_step(deal: &mut Deal, rng: &mut ChaCha8Rng, now: &mut u64) -> Vec<Event> {
    let seat = deal.to_act().expect("running");
    let roll = rng.random_range(0..1000);
    *now += rng.random_range(0..3_000);
    if roll < 3 {
        return deal
            .escape(Seat::ALL[rng.random_range(0..3)], *now)
            .expect("escape");
    }
    if roll < 60 {
        *now = (*now).max(deal.deadline_ms().expect("running"));
        return deal.check_timeout(*now);
    }
    if roll < 90 {
        let who = Seat::ALL[rng.random_range(0..3)];
        return deal
            .set_auto_play(who, rng.random_bool(0.5), *now)
            .expect("toggle");
    }
    if roll < 110 {
        let events = deal.auto_play_pending(*now);
        if !events.is_empty() {
            return events;
        }
    }
    let (_, decision) = deal.decision().expect("running");
    let yes = rng.random_bool(0.4);
    match decision {
        Decision::Call => deal.call(seat, yes, *now).expect("a legal call"),
        Decision::Rob => deal.rob(seat, yes, *now).expect("a legal rob"),
        Decision::Double => deal.double(seat, yes, *now).expect("a legal double"),
        Decision::Show => deal.show(seat, yes, *now).expect("a legal show"),
        Decision::Bid => {
            let highest = deal
                .view(seat)
                .bids
                .iter()
                .map(|b| b.bid)
                .max()
                .unwrap_or(Bid::Pass);
            let choices: Vec<Bid> = [Bid::Pass, Bid::One, Bid::Two, Bid::Three]
                .into_iter()
                .filter(|b| *b == Bid::Pass || *b > highest)
                .collect();
            let bid = choices[rng.random_range(0..choices.len())];
            deal.bid(seat, bid, *now).expect("a legal bid")
        }
        Decision::Play => {
            let plays = deal.wild_plays(seat).expect("seat to act");
            if deal.trick().is_some() && (plays.is_empty() || rng.random_bool(0.3)) {
                return deal.pass(seat, *now).expect("a legal pass");
            }
            let play = plays[rng.random_range(0..plays.len())];
            let cards = deal
                .hand(seat)
                .pick(&play.cards)
                .expect("from the hand")
                .to_vec();
            // Half the time the play says what it means; without, it must read one way.
            if rng.random_bool(0.5) {
                return deal
                    .play_as(seat, &cards, Some(&play.meant), *now)
                    .expect("a legal play, as meant");
            }
            match deal.play(seat, &cards, *now) {
                Err(ActionError::AmbiguousReading { readings }) => {
                    assert!(readings.len() > 1);
                    assert!(readings.iter().any(|r| r.reading == play.reading));
                    deal.play_as(seat, &cards, Some(&play.meant), *now)
                        .expect("a legal play, as meant")
                }
                result => result.expect("a legal play"),
            }
        }
    }
}

fn run_random_deal(seed: u64, rule_set: RuleSet) -> Deal {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let seed_bytes: [u8; 32] = rng.random();
    let first = Seat::ALL[rng.random_range(0..3)];
    let mut now = rng.random_range(0..1_000_000);
    let (mut deal, events) = Deal::new(
        "t/deal",
        Seed::from_bytes(seed_bytes),
        first,
        rules(rule_set),
        now,
    )
    .expect("deal");
    let mut watcher = Watcher {
        public: CardSet::EMPTY,
        ended: 0,
        shown: false,
    };
    watcher.check_events(&deal, &events);
    for _ in 0..MAX_STEPS {
        if deal.decision().is_none() {
            break;
        }
        let events = random_step(&mut deal, &mut rng, &mut now);
        watcher.check_events(&deal, &events);
        watcher.check_views(&deal);
        check_conservation(&deal, &watcher);
    }
    assert_eq!(deal.decision(), None, "a deal ends");
    assert_eq!(watcher.ended, 1, "exactly one end");
    let settlement = *deal.settlement().expect("settled");
    match settlement.outcome {
        Outcome::Escaped { seat } => {
            for s in Seat::ALL {
                if s == seat {
                    assert!(settlement.points[s.index()] < 0);
                } else {
                    assert_eq!(settlement.points[s.index()], 0);
                }
            }
        }
        Outcome::Redeal => assert_eq!(settlement.points, [0, 0, 0]),
        Outcome::LandlordWon | Outcome::FarmersWon { .. } => {
            assert_eq!(settlement.points.iter().sum::<i64>(), 0, "zero-sum");
            let landlord = deal.landlord().expect("landlord");
            assert!(
                deal.hand(Seat::ALL[0]).is_empty()
                    || deal.hand(Seat::ALL[1]).is_empty()
                    || deal.hand(Seat::ALL[2]).is_empty()
            );
            let won = settlement.outcome == Outcome::LandlordWon;
            assert_eq!(settlement.points[landlord.index()] > 0, won);
        }
    }
    assert_eq!(settlement.rule_set, rule_set);
    let record = deal.record().expect("finished");
    assert_eq!(record.verify(), Ok(()));
    let json = serde_json::to_string(&record).expect("serialize");
    let back: doudizhu_rules::DealRecord = serde_json::from_str(&json).expect("deserialize");
    assert_eq!(back, record, "a record round-trips through JSON");
    assert_eq!(
        record.replay(),
        Ok(settlement),
        "the record replays to its settlement"
    );
    deal
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_deals_conserve_cards_hide_hands_and_score_zero_sum(
        seed in any::<u64>(),
        rule_set in prop::sample::select(RULE_SETS.to_vec()),
    ) {
        let deal = run_random_deal(seed, rule_set);
        // The stored form reloads to the same deal.
        let json = serde_json::to_string(&deal).expect("serialize");
        let back: Deal = serde_json::from_str(&json).expect("deserialize");
        prop_assert_eq!(back, deal);
    }

    #[test]
    fn random_actions_never_panic_and_refusals_change_nothing(
        seed in any::<u64>(),
        rule_set in prop::sample::select(RULE_SETS.to_vec()),
        actions in prop::collection::vec((0u8..13, 0u8..5, any::<u64>(), 0u64..40_000), 1..200),
    ) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (mut deal, _) = Deal::new("fuzz", Seed::from_bytes(rng.random()), Seat::ALL[0], rules(rule_set), 0)
            .expect("deal");
        let mut now = 0u64;
        for (action, seat, cards, step) in actions {
            now = now.saturating_add(step);
            let seat = Seat::ALL[usize::from(seat % 3)];
            let before = deal.clone();
            let result: Result<Vec<Event>, ActionError> = match action {
                0 => deal.bid_points(seat, rng.random_range(0..6), now),
                1 | 2 => {
                    // Random cards, often from the seat's own hand.
                    let pool = if action == 1 { deal.hand(seat) } else { CardSet::DECK };
                    let picked: Vec<Card> = pool.iter().filter(|c| cards >> (c.id() % 64) & 1 == 1).take(8).collect();
                    deal.play(seat, &picked, now)
                }
                3 => deal.pass(seat, now),
                4 => Ok(deal.check_timeout(now)),
                5 => Ok(deal.auto_play_pending(now)),
                6 => deal.set_auto_play(seat, cards % 2 == 0, now),
                7 if cards % 16 == 0 => deal.escape(seat, now),
                8 => deal.call(seat, cards % 2 == 0, now),
                9 => deal.rob(seat, cards % 2 == 0, now),
                10 => deal.double(seat, cards % 2 == 0, now),
                11 => deal.show(seat, cards % 2 == 0, now),
                _ => {
                    // A legal move when there is one, to get deeper into deals.
                    let yes = cards % 3 == 0;
                    match deal.decision() {
                        Some((s, Decision::Play)) => {
                            let plays = deal.legal_plays(s).expect("to act");
                            match plays.first() {
                                Some(play) => {
                                    let cards = deal.hand(s).pick(&play.ranks).expect("in hand").to_vec();
                                    deal.play(s, &cards, now)
                                }
                                None => deal.pass(s, now),
                            }
                        }
                        Some((s, Decision::Bid)) => deal.bid(s, Bid::Pass, now),
                        Some((s, Decision::Call)) => deal.call(s, yes, now),
                        Some((s, Decision::Rob)) => deal.rob(s, yes, now),
                        Some((s, Decision::Double)) => deal.double(s, yes, now),
                        Some((s, Decision::Show)) => deal.show(s, yes, now),
                        None => Ok(Vec::new()),
                    }
                }
            };
            if let Err(error) = result {
                prop_assert_eq!(&deal, &before, "refused {:?} changed the deal", error);
            }
        }
    }

    #[test]
    fn the_parsers_never_panic(text in "\\PC{0,40}") {
        if let Ok(ranks) = RankCounts::parse(&text) {
            prop_assert_eq!(RankCounts::parse(&ranks.to_string()), Ok(ranks));
            let _ = classify(&ranks);
        }
        if let Ok(cards) = parse_card_text(&text) {
            let set: CardSet = cards.iter().copied().collect();
            prop_assert_eq!(set.len(), cards.len());
            prop_assert_eq!(set.to_string().parse::<CardSet>(), Ok(set));
        }
        let _ = text.parse::<Card>();
    }

    #[test]
    fn the_parsers_never_panic_on_card_like_text(text in "[0-9TJQKAXDSHCBRjqkaxdshcbr♠♥♣♦ ,+]{0,60}") {
        if let Ok(ranks) = RankCounts::parse(&text) {
            prop_assert_eq!(RankCounts::parse(&ranks.to_string()), Ok(ranks));
        }
        if let Ok(cards) = parse_card_text(&text) {
            let set: CardSet = cards.iter().copied().collect();
            prop_assert_eq!(set.to_string().parse::<CardSet>(), Ok(set));
        }
    }

    #[test]
    fn loading_garbage_state_never_panics(text in "\\PC{0,200}") {
        let _ = serde_json::from_str::<Deal>(&text);
    }
}

#[test]
fn random_deals_mostly_play_out_with_bombs_sometimes() {
    // Keeps the property above honest: it must see real play, not just escapes, and in
    // `rob` every kind of stake.
    for rule_set in RULE_SETS {
        let (mut played_out, mut with_bombs, mut springs) = (0, 0, 0);
        let (mut robbed, mut doubled, mut shown) = (0, 0, 0);
        for seed in 0..200 {
            let deal = run_random_deal(seed, rule_set);
            let s = deal.settlement().expect("settled");
            if matches!(s.outcome, Outcome::LandlordWon | Outcome::FarmersWon { .. }) {
                played_out += 1;
                with_bombs += usize::from(s.bombs + s.rockets + s.soft_bombs + s.wild_bombs > 0);
                springs += usize::from(s.spring || s.anti_spring);
                robbed += usize::from(s.robs > 0);
                doubled += usize::from(s.doubled.contains(&true));
                shown += usize::from(s.shown);
            }
        }
        assert!(
            played_out >= 100,
            "{rule_set}: {played_out} of 200 played out"
        );
        assert!(with_bombs >= 5, "{rule_set}: {with_bombs} with bombs");
        if rule_set.calls_and_robs() {
            assert!(
                robbed >= 10 && doubled >= 10 && shown >= 10,
                "{rule_set}: {robbed} robbed, {doubled} doubled, {shown} shown"
            );
        }
        println!(
            "{rule_set}: played out {played_out}/200, with bombs {with_bombs}, \
             (anti-)springs {springs}, robbed {robbed}, doubled {doubled}, shown {shown}"
        );
    }
}
