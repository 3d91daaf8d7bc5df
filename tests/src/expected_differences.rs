//! `tests/expected-differences.toml`: upstream cases whose expectation the current HTML Standard
//! made stale, read by [`htrewrite_testkit::differences`] (the shape and its checks are there).
//! A tokenizer test has no modes, so no entry may name one.
//!
//! A listed case still runs: it must still differ from the stale expectation (an entry that
//! starts passing is a failure, "stale entry").

pub use htrewrite_testkit::differences::{Difference, to_toml};

/// Reads and checks the list.
///
/// # Panics
/// If it cannot be read or breaks a rule, naming the file and line.
pub fn load() -> Vec<Difference> {
    htrewrite_testkit::differences::load(&crate::expected_differences_path(), &[])
}
