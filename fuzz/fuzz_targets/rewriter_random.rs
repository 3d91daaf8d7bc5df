//! Rewriter with random handlers; see [`htrewrite_fuzz::rewriter_random`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| htrewrite_fuzz::rewriter_random(data));
