//! Dou Dizhu rules (斗地主). Work in progress.
#![forbid(unsafe_code)]
