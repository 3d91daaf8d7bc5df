//! Selector parser: no panics, stable display; see
//! [`htrewrite_fuzz::selector_parse`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| htrewrite_fuzz::selector_parse(data));
