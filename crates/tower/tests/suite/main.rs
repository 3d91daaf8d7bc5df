//! The layer's tests in one binary (each file was a test binary of its own
//! and linked the layer and the pipeline again): a file's tests are named
//! after it, `cargo test -p htrewrite-tower --test suite loopback::`.
//! `tests/faults.rs` (a 50 MB page: the process's peak RSS is its test's)
//! stays a binary of its own.

mod async_handlers;
mod limits;
mod loopback;
