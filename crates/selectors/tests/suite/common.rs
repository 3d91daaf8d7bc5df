//! What the suite's property tests share: their seeded runner.

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
