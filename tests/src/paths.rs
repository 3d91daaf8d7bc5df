//! Where the vendored data and the expected-differences list live.

use std::path::PathBuf;

/// The folder of the vendored test data, `tests/data`.
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data")
}

/// The expected-differences list, `tests/expected-differences.toml`.
pub fn expected_differences_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("expected-differences.toml")
}
