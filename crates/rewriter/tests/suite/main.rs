//! The rewriter's integration tests in one binary: each module was a test
//! binary of its own, and each linked the whole pipeline again (the test
//! build was most of CI's time). A module's tests are of the kind named
//! after it, printed before each test's name and matched by filters:
//! `cargo test -p htrewrite --test suite -- '[parsed]'` runs
//! [`parsed`]'s tests, `-- '[cases] copy::'` the copy cases.
//!
//! Every token the shadow's in-body fast path takes is checked against the
//! full rules ([`htrewrite_shadow::check_fast_path`]) in every module's tests.
//! `tests/placement.rs` (3.9 million documents, 90 s on 2 cores) is a binary
//! of its own, without that check (which makes it 150 s), and
//! `tests/deferred_memory.rs` one with a counting allocator of its own.

mod common;

mod bail_out;
mod cases;
mod deferred;
mod encodings;
mod limits;
mod lol_html;
mod lol_html_examples;
mod long_tokens;
mod parsed;
mod properties;

fn main() {
    htrewrite_shadow::check_fast_path(true);
    htrewrite_testkit::suite::run(&[
        ("bail_out", bail_out::trials),
        ("cases", cases::trials),
        ("deferred", deferred::trials),
        ("encodings", encodings::trials),
        ("limits", limits::trials),
        ("lol_html", lol_html::trials),
        ("lol_html_examples", lol_html_examples::trials),
        ("long_tokens", long_tokens::trials),
        ("parsed", parsed::trials),
        ("properties", properties::trials),
    ])
    .exit();
}
