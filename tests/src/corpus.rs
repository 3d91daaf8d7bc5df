//! Real pages: the vendored subset (`data/corpus`) and the folder named by `HTREWRITE_CORPUS`.

use std::path::PathBuf;

pub use htrewrite_testkit::corpus::{CORPUS_ENV, files_under};

/// The vendored real pages listed in `data/corpus/MANIFEST.tsv`, as `(relative path, full
/// path, bytes, sha256)`.
///
/// # Panics
/// If the manifest is missing or malformed.
pub fn vendored_pages() -> Vec<(String, PathBuf, u64, String)> {
    let dir = crate::data_dir().join("corpus");
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv")).expect("read data/corpus/MANIFEST.tsv");
    manifest
        .lines()
        .skip(1)
        .filter(|l| !l.is_empty())
        .map(|line| {
            let mut f = line.split('\t');
            let (p, b, h) = (f.next().unwrap(), f.next().unwrap(), f.next().unwrap());
            (p.to_owned(), dir.join(p), b.parse().expect("byte count"), h.to_owned())
        })
        .collect()
}

/// The pages of the folder named by [`CORPUS_ENV`], for a test runner to add a trial per page.
#[derive(Debug)]
pub enum EnvPages {
    /// The variable is not set: only the vendored pages are tested.
    Unset,
    /// The folder holds no readable file (a failure: the variable names the wrong folder).
    Empty(PathBuf),
    /// Every file under the folder, as [`files_under`] lists them.
    Pages(Vec<(String, PathBuf)>),
}

/// The pages under `$HTREWRITE_CORPUS` (see [`EnvPages`]; a relative path is taken from the
/// workspace root, [`htrewrite_testkit::corpus::env_corpus`]).
pub fn env_pages() -> EnvPages {
    match htrewrite_testkit::corpus::env_corpus() {
        None => EnvPages::Unset,
        Some(dir) => match files_under(&dir) {
            Ok(files) if !files.is_empty() => EnvPages::Pages(files),
            _ => EnvPages::Empty(dir),
        },
    }
}
