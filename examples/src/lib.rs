//! Runnable examples of htrewrite; each lives in `examples/examples/*.rs`.
//!
//! - `tokenize`: prints every token of a file with its span, fed in 4 KiB
//!   chunks: `cargo run -p htrewrite-examples --example tokenize -- examples/sample.html`.
#![forbid(unsafe_code)]
