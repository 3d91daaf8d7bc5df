//! What the suite's trials share: the real pages, largest first; the
//! property tests' seeded runner, and how many trials one run's cases are
//! split over ([`htrewrite_testkit::Part`]).

use std::path::PathBuf;

use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// A proptest runner over ChaCha seeded from `HTREWRITE_SEED` (0x5e1ec7 when
/// unset; a failure prints the seed to replay), running `HTREWRITE_CASES`
/// cases (3,000 when unset), at least `min_cases`, with no persistence file;
/// with the seed, for the failure message.
pub(crate) fn seeded_runner(min_cases: u32) -> (u64, TestRunner) {
    let seed: u64 = htrewrite_testkit::env_seed().unwrap_or(0x5e1ec7);
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &key);
    let cases: u32 = std::env::var("HTREWRITE_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(3000).max(min_cases);
    (seed, TestRunner::new_with_rng(Config { cases, failure_persistence: None, ..Config::default() }, rng))
}

/// How many trials a long property test's cases are split over, so that the
/// trials run on every core instead of one test holding one core after the
/// others ended (the differential's 3,000 documents took 15.9 s of one core,
/// the reference's 3,000 about 3 s).
pub(crate) const PARTS: usize = 4;

/// The real pages (the folder `HTREWRITE_CORPUS` names, else the vendored
/// subset; a set variable that names no pages fails here rather than testing
/// nothing), largest first: their trials are listed before the others, and
/// the trials run in the order listed, so the longest (the corpus's 4 MB
/// page took the reference 15 s) start first instead of holding one core
/// after the others ended.
pub(crate) fn pages_largest_first() -> Vec<(String, PathBuf)> {
    let mut pages =
        htrewrite_testkit::corpus::env_html_pages().unwrap_or_else(htrewrite_testkit::corpus::vendored_html_pages);
    pages.sort_by_key(|(_, path)| std::cmp::Reverse(std::fs::metadata(path).map_or(0, |m| m.len())));
    pages
}
