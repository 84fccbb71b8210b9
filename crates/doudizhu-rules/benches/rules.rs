//! Criterion benches over random 17–20-card hands: classify, all replies to a play, all
//! leads; and the same generation with wild cards (癞子) for hands holding 0, 1, 2 or 4
//! cards of the wild rank. Each iteration handles the next sample, so medians are per call.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use doudizhu_rules::{Rank, RankCounts, Reading, classify, leads, read_as, replies, wild_plays};

#[path = "support/samples.rs"]
mod samples;

const SAMPLES: usize = 1_000;

fn rules(c: &mut Criterion) {
    let samples = samples::samples(SAMPLES);
    let previous: Vec<_> = samples
        .iter()
        .map(|s| classify(&s.previous).expect("samples are plays"))
        .collect();

    let mut i = 0;
    c.bench_function("classify a play", |b| {
        b.iter(|| {
            i = (i + 1) % SAMPLES;
            classify(black_box(&samples[i].play))
        })
    });
    c.bench_function("classify a whole hand", |b| {
        b.iter(|| {
            i = (i + 1) % SAMPLES;
            classify(black_box(&samples[i].hand))
        })
    });
    c.bench_function("all replies to a play", |b| {
        b.iter(|| {
            i = (i + 1) % SAMPLES;
            replies(black_box(&samples[i].hand), black_box(&previous[i]))
        })
    });
    c.bench_function("all leads", |b| {
        b.iter(|| {
            i = (i + 1) % SAMPLES;
            leads(black_box(&samples[i].hand))
        })
    });
    // The heaviest lead generation: five triples in a row and singles to carry.
    let heavy = RankCounts::parse("333 444 555 666 777 8 9 T J Q").expect("rank text");
    c.bench_function("all leads, heavy hand", |b| {
        b.iter(|| leads(black_box(&heavy)))
    });
}

/// The samples whose hand holds exactly `wilds` cards of some rank 3..2, with that rank
/// as the wild rank (the rank taken in turn, so it varies), and the play to answer read
/// under it (its wild cards standing for themselves).
fn wild_samples(samples: &[samples::Sample], wilds: u8) -> Vec<(RankCounts, Rank, Reading)> {
    samples
        .iter()
        .enumerate()
        .filter_map(|(i, sample)| {
            let ranks: Vec<Rank> = Rank::ALL[..=Rank::Two.index()]
                .iter()
                .copied()
                .filter(|&rank| sample.hand.count(rank) == wilds)
                .collect();
            let wild = *ranks.get(i % ranks.len().max(1))?;
            let previous = read_as(&sample.previous, wild, &sample.previous)
                .expect("a play reads as itself when its wilds stand for themselves");
            Some((sample.hand, wild, previous))
        })
        .collect()
}

fn wild(c: &mut Criterion) {
    let samples = samples::samples(SAMPLES);
    for wilds in [0, 1, 2, 4] {
        let hands = wild_samples(&samples, wilds);
        assert!(
            hands.len() >= 50,
            "{} samples with {wilds} wilds",
            hands.len()
        );
        let mut i = 0;
        c.bench_function(&format!("wild leads, {wilds} wilds"), |b| {
            b.iter(|| {
                i = (i + 1) % hands.len();
                let (hand, wild, _) = &hands[i];
                wild_plays(black_box(hand), *wild, None)
            })
        });
        c.bench_function(&format!("wild replies, {wilds} wilds"), |b| {
            b.iter(|| {
                i = (i + 1) % hands.len();
                let (hand, wild, previous) = &hands[i];
                wild_plays(black_box(hand), *wild, Some(black_box(previous)))
            })
        });
    }
    let heavy = RankCounts::parse("333 444 555 666 7777 8 9 T J").expect("rank text");
    c.bench_function("wild leads, heavy hand, 4 wilds", |b| {
        b.iter(|| wild_plays(black_box(&heavy), Rank::Seven, None))
    });
}

criterion_group!(benches, rules, wild);
criterion_main!(benches);
