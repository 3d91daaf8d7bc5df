//! The tokio adapters' integration tests in one binary (but
//! `tests/async_memory.rs`, with a counting allocator of its own): a module's
//! tests are of the kind named after it, printed before each test's name and
//! matched by filters: `cargo test -p htrewrite-tokio --test suite --
//! '[runtimes]'`.

mod async_handlers;
mod runtimes;

fn main() {
    htrewrite_testkit::suite::run(&[("async_handlers", async_handlers::trials), ("runtimes", runtimes::trials)]).exit();
}
