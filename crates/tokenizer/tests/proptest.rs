//! Property tests: any bytes and HTML-like documents round-trip exactly and
//! tokenize the same under any chunking.

mod common;

use common::{merge, run};
use proptest::prelude::*;

/// Fragments that exercise every scanner state when concatenated at random.
const FRAGMENTS: &[&str] = &[
    "<",
    "</",
    ">",
    "/>",
    "<!--",
    "-->",
    "--!>",
    "-",
    "!",
    "<!",
    "<!DOCTYPE",
    " html",
    "\"",
    "'",
    "=",
    " ",
    "\t",
    "\r",
    "\n",
    "\r\n",
    "\0",
    "a",
    "B",
    "x=y",
    "&",
    "&amp;",
    "&amp",
    "&not",
    "&notin;",
    "&#",
    "&#x",
    "41;",
    "0000",
    ";",
    "#",
    "<a",
    "<b>",
    "</b>",
    "<p>",
    "<script>",
    "</script>",
    "<!--<script>",
    "</script >",
    "<title>",
    "</title>",
    "<style>",
    "</style>",
    "<textarea>",
    "<plaintext>",
    "<![CDATA[",
    "]]>",
    "]",
    "<?",
    "?>",
    "<?xml",
    "<?pi",
    "é",
    "\u{FFFD}",
    "\u{1F600}",
    "<svg>",
    "</SCRIPT>",
    "<xmp>",
];

fn html_like() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop::sample::select(FRAGMENTS), 0..60).prop_map(|parts| parts.concat().into_bytes())
}

fn splits_for(len: usize) -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0..=len, 0..12).prop_map(|mut v| {
        v.sort_unstable();
        v.dedup();
        v
    })
}

fn check_roundtrip_and_invariance(input: &[u8], splits: &[usize]) -> Result<(), TestCaseError> {
    let whole = run(input, &[], true, None);
    let raw: Vec<u8> = whole.iter().flat_map(|t| t.raw.iter().copied()).collect();
    prop_assert_eq!(&raw, input, "whole: raw bytes of all tokens must equal the input");
    let chunked = run(input, splits, true, None);
    let raw: Vec<u8> = chunked.iter().flat_map(|t| t.raw.iter().copied()).collect();
    prop_assert_eq!(&raw, input, "chunked at {:?}: raw bytes of all tokens must equal the input", splits);
    prop_assert_eq!(merge(&whole), merge(&chunked), "tokens differ when chunked at {:?}", splits);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_roundtrip((input, splits) in prop::collection::vec(any::<u8>(), 0..300)
        .prop_flat_map(|v| { let n = v.len(); (Just(v), splits_for(n)) })) {
        check_roundtrip_and_invariance(&input, &splits)?;
    }

    #[test]
    fn html_like_roundtrip((input, splits) in html_like()
        .prop_flat_map(|v| { let n = v.len(); (Just(v), splits_for(n)) })) {
        check_roundtrip_and_invariance(&input, &splits)?;
    }

    #[test]
    fn html_like_byte_by_byte(input in html_like()) {
        let every: Vec<usize> = (1..input.len()).collect();
        check_roundtrip_and_invariance(&input, &every)?;
    }
}
