//! Writes the bench samples as JSON lines (`{"hand":..,"prev":..,"play":..}`, rank text)
//! so `bench-python/bench.py` measures the Python engines on the very same hands.
//! Run: `cargo run -q --release -p doudizhu-rules --example bench_hands > hands.jsonl`.

#[path = "../benches/support/samples.rs"]
mod samples;

fn main() {
    for sample in samples::samples(1_000) {
        let line = serde_json::json!({
            "hand": sample.hand.to_string(),
            "prev": sample.previous.to_string(),
            "play": sample.play.to_string(),
        });
        println!("{line}");
    }
}
