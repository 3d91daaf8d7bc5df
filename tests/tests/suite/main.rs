//! The conformance runs in one binary: each module was a test binary of its
//! own, each linking the pipeline again. A module's tests are of the kind
//! named after it, printed before each test's name and matched by filters:
//! `cargo test -p htrewrite-conformance --test suite -- '[html5lib_tokenizer]'`.

mod copy_shortcut;
mod fuzz_replay;
mod html5lib_tokenizer;
mod rewriter_roundtrip;
mod roundtrip;

fn main() {
    htrewrite_testkit::suite::run(&[
        ("copy_shortcut", copy_shortcut::trials),
        ("fuzz_replay", fuzz_replay::trials),
        ("html5lib_tokenizer", html5lib_tokenizer::trials),
        ("rewriter_roundtrip", rewriter_roundtrip::trials),
        ("roundtrip", roundtrip::trials),
    ])
    .exit();
}
