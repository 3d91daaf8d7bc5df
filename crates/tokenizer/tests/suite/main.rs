//! The tokenizer's integration tests in one binary (but `tests/proptest.rs`,
//! which runs under the standard harness): a module's tests are of the kind
//! named after it, printed before each test's name and matched by filters:
//! `cargo test -p htrewrite-tokenizer --test suite -- '[whitebox]'`.

mod common;

mod hazards;
mod memory;
mod whitebox;

fn main() {
    htrewrite_testkit::suite::run(&[
        ("hazards", hazards::trials),
        ("memory", memory::trials),
        ("whitebox", whitebox::trials),
    ])
    .exit();
}
