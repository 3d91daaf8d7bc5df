//! Tokenizer round-trip and chunk-invariance; see
//! [`htrewrite_fuzz::tokenizer_roundtrip`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| htrewrite_fuzz::tokenizer_roundtrip(data));
