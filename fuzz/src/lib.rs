//! What the fuzz targets share: reading one input as the few fields a target needs.
//!
//! Each target lives in `fuzz_targets/` and says at its top what it feeds where and
//! which property it checks besides "nothing panics" (docs/fuzzing.md lists them all).
//! Inputs are kept readable where the parser reads text, so that a seed file of the
//! corpus is a real record, token or rooms file and a crash file reads as one.
#![forbid(unsafe_code)]

/// The input as text, or None when it is not UTF-8 (every parser fed text takes `&str`:
/// the bytes never reach it otherwise, since gRPC strings and files are checked first).
pub fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// The first byte as a selector among `n` modes, and the rest of the input.
pub fn mode(data: &[u8], n: u8) -> Option<(u8, &[u8])> {
    let (&first, rest) = data.split_first()?;
    Some((first % n.max(1), rest))
}

/// `text` cut into at most `n` fields at line breaks (`\n`); the last field holds the
/// rest, line breaks included.
pub fn fields(text: &str, n: usize) -> Vec<&str> {
    text.splitn(n.max(1), '\n').collect()
}

pub mod keys;
