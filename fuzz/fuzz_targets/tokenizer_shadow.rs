//! Tokenizer + tree-builder shadow, chunk-invariant; see
//! [`htrewrite_fuzz::tokenizer_shadow`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| htrewrite_fuzz::tokenizer_shadow(data));
