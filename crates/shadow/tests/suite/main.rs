//! The shadow's integration tests in one binary: each module was a test
//! binary of its own, each linking the shadow and its dependencies again. A
//! module's tests are of the kind named after it, printed before each test's
//! name and matched by filters: `cargo test -p htrewrite-shadow --test suite
//! -- '[html5lib_tree]'` runs [`html5lib_tree`]'s tests.
//!
//! Every token the in-body fast path takes is checked against the full rules
//! ([`htrewrite_shadow::check_fast_path`]) in every module's tests, as each
//! binary did.

mod common;

mod exhaustive;
mod fast_path;
mod html5lib_tree;
mod pitfalls;
mod roundtrip;

fn main() {
    htrewrite_shadow::check_fast_path(true);
    htrewrite_testkit::suite::run(&[
        ("exhaustive", exhaustive::trials),
        ("fast_path", fast_path::trials),
        ("html5lib_tree", html5lib_tree::trials),
        ("pitfalls", pitfalls::trials),
        ("roundtrip", roundtrip::trials),
    ])
    .exit();
}
