//! gamehub's gRPC contract as Rust types: the messages, clients and servers generated
//! from the `.proto` files under the workspace's `proto/` directory (one module per
//! protobuf package, e.g. [`gamehub::ledger::v1`]), and the encoded file descriptor
//! set that gRPC reflection serves ([`FILE_DESCRIPTOR_SET`]).
//!
//! Nothing here is written by hand except this file; edit the `.proto` files instead.
#![forbid(unsafe_code)]

/// The generated code, kept out of the workspace lints.
#[allow(
    missing_docs,
    clippy::all,
    clippy::pedantic,
    clippy::unwrap_used,
    rust_2018_idioms
)]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/gamehub.rs"));
}

pub use generated::gamehub;

pub mod reference;

/// The encoded `FileDescriptorSet` of every gamehub proto (with imports and source
/// comments), for `tonic-reflection`.
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/gamehub_descriptor.bin"));

pub use gamehub::common::v1 as common;
pub use gamehub::doudizhu::v1 as doudizhu;
pub use gamehub::gomoku::v1 as gomoku;
pub use gamehub::ledger::v1 as ledger;
pub use gamehub::matchmaking::v1 as matchmaking;
pub use gamehub::operator::v1 as operator;
pub use gamehub::tournament::v1 as tournament;
