//! Criterion benches over random 17–20-card hands: classify, all replies to a play, all
//! leads. Each iteration handles the next sample, so medians are per call.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use doudizhu_rules::{RankCounts, classify, leads, replies};

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

criterion_group!(benches, rules);
criterion_main!(benches);
