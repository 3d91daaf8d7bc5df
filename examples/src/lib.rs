//! Runnable examples live in `examples/examples/*.rs` (work in progress).
#![forbid(unsafe_code)]
