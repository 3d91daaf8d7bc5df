//! Runnable examples of htrewrite; each lives in `examples/examples/*.rs`.
//!
//! - `tokenize`: prints every token of a file with its span, fed in 4 KiB
//!   chunks: `cargo run -p htrewrite-examples --example tokenize -- examples/sample.html`.
//! - `proxy`: a reverse proxy rewriting HTML in flight ([`proxy`]):
//!   `cargo run -p htrewrite-examples --example proxy -- --listen 127.0.0.1:8080 --upstream http://127.0.0.1:8000 --inject-head '<script src=/x.js></script>'`.
//! - [`timeout`]: the proxy's bound on a stalled upstream body.
//! - [`flush`]: what was received reaches the client before an upstream failure cuts the response.
#![forbid(unsafe_code)]

pub mod flush;
pub mod proxy;
pub mod timeout;
