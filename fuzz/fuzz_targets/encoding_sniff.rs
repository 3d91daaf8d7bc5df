//! Encoding sniffing and the UTF-16 front end, chunk-invariant and lossless;
//! see [`htrewrite_fuzz::encoding_sniff`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| htrewrite_fuzz::encoding_sniff(data));
