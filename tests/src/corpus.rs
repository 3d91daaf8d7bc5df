//! Real pages: the vendored subset (`data/corpus`) and the folder named by `HTREWRITE_CORPUS`.

use std::path::{Path, PathBuf};

/// The environment variable naming a folder of extra pages for the round-trip tests.
pub const CORPUS_ENV: &str = "HTREWRITE_CORPUS";

/// Every file under `dir`, recursively (following symbolic links to files), as `(path relative
/// to dir with '/' separators, full path)`, sorted by relative path.
pub fn files_under(dir: &Path) -> std::io::Result<Vec<(String, PathBuf)>> {
    let mut out = Vec::new();
    walk(dir, dir, &mut out)?;
    out.sort();
    Ok(out)
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let ty = entry.file_type()?;
        if ty.is_dir() {
            walk(root, &path, out)?;
        } else if ty.is_file() || (ty.is_symlink() && path.is_file()) {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            let rel = rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
            out.push((rel, path));
        }
    }
    Ok(())
}

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

/// The pages under `$HTREWRITE_CORPUS` (see [`EnvPages`]).
pub fn env_pages() -> EnvPages {
    match std::env::var_os(CORPUS_ENV) {
        None => EnvPages::Unset,
        Some(dir) => {
            let dir = PathBuf::from(dir);
            match files_under(&dir) {
                Ok(files) if !files.is_empty() => EnvPages::Pages(files),
                _ => EnvPages::Empty(dir),
            }
        }
    }
}
