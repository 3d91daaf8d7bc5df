//! `expected-differences.toml`: html5lib cases made stale by later changes of the Standard, read
//! by [`htrewrite_testkit::differences`] (the shape and its checks are there); an entry's `mode`,
//! when given, is `script-on` or `script-off`.

use std::path::Path;

pub use htrewrite_testkit::differences::Difference;

use super::dat::mode_name;

/// Where the list lives.
pub const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/expected-differences.toml");

/// Reads and checks the list.
///
/// # Panics
/// If it cannot be read or breaks a rule, naming the file and line.
pub fn load() -> Vec<Difference> {
    htrewrite_testkit::differences::load(Path::new(PATH), &[mode_name(true), mode_name(false)])
}
