//! The ledger service (work in progress).
#![forbid(unsafe_code)]
