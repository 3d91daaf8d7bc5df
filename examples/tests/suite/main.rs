//! The proxy example's tests on loopback in one binary (each file was a test
//! binary of its own and linked the proxy again): a file's tests are named
//! after it, `cargo test -p htrewrite-examples --test suite proxy_fragments::`.
//! `tests/proxy_big_page.rs` (the process's peak RSS is its test's) and
//! `tests/proxy_hostile.rs` (it lowers the process's descriptor limit) stay
//! binaries of their own.

mod proxy;
mod proxy_fragments;
mod proxy_upstream_cut;
