//! The load generator (work in progress).
