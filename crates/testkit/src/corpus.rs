//! The folder of real pages named by `HTREWRITE_CORPUS`, read the same way by every test suite and
//! benchmark.
//!
//! Cargo runs each package's tests and benchmarks in that package's own folder, so a relative
//! path such as `../shared/corpus`, typed at the repository's root, would name a different folder
//! in each crate. [`env_corpus`] therefore takes a relative path from the workspace root (the
//! folder of the top `Cargo.toml`), wherever the test runs. A variable that is set but names no
//! readable folder with files is an error, not a silent run without the pages.

use std::path::{Path, PathBuf};

/// The environment variable naming a folder of real pages for the whole-corpus tests.
pub const CORPUS_ENV: &str = "HTREWRITE_CORPUS";

/// The workspace root: relative [`CORPUS_ENV`] paths are taken from here.
///
/// # Example
/// ```
/// assert!(htrewrite_testkit::corpus::workspace_root().join("Cargo.toml").is_file());
/// ```
pub fn workspace_root() -> PathBuf {
    // This crate is `crates/testkit` under the root.
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors().nth(2).unwrap_or(here).to_path_buf()
}

/// `dir` as [`CORPUS_ENV`] means it: an absolute path as it is, a relative one from the
/// [`workspace_root`].
///
/// # Example
/// ```
/// use htrewrite_testkit::corpus::{resolve, workspace_root};
/// assert_eq!(resolve("/srv/pages".as_ref()), std::path::PathBuf::from("/srv/pages"));
/// assert_eq!(resolve("../shared/corpus".as_ref()), workspace_root().join("../shared/corpus"));
/// ```
pub fn resolve(dir: &Path) -> PathBuf {
    if dir.is_absolute() { dir.to_path_buf() } else { workspace_root().join(dir) }
}

/// The folder [`CORPUS_ENV`] names, [`resolve`]d; `None` when the variable is unset or empty.
///
/// # Example
/// ```
/// if let Some(dir) = htrewrite_testkit::corpus::env_corpus() {
///     println!("also testing the pages under {}", dir.display());
/// }
/// ```
pub fn env_corpus() -> Option<PathBuf> {
    std::env::var_os(CORPUS_ENV).filter(|d| !d.is_empty()).map(|d| resolve(Path::new(&d)))
}

/// Every file under `dir`, recursively (following symbolic links to files, not to folders), as `(path relative
/// to dir with '/' separators, full path)`, sorted by relative path.
///
/// # Errors
/// If `dir` or a folder under it cannot be read.
///
/// # Example
/// ```
/// let dir = htrewrite_testkit::corpus::workspace_root().join("crates/testkit");
/// let files = htrewrite_testkit::corpus::files_under(&dir)?;
/// assert!(files.iter().any(|(rel, _)| rel == "src/corpus.rs"));
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn files_under(dir: &Path) -> std::io::Result<Vec<(String, PathBuf)>> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            let path = entry.path();
            let ty = entry.file_type()?;
            // A link to a folder is not followed (no cycle can loop the walk); one to a file is.
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
    let mut out = Vec::new();
    walk(dir, dir, &mut out)?;
    out.sort();
    Ok(out)
}

/// The files directly in `dir` whose extension is `extension` (no dot), sorted by path: the
/// data files of a vendored suite, read in a fixed order.
///
/// # Example
/// ```
/// let dir = htrewrite_testkit::corpus::workspace_root().join("crates/testkit/src");
/// let files = htrewrite_testkit::corpus::files_with_extension(&dir, "rs");
/// assert!(files.iter().any(|p| p.ends_with("corpus.rs")));
/// assert!(files.is_sorted());
/// ```
///
/// # Panics
/// When `dir` or one of its entries cannot be read: the tests that call it need the files.
pub fn files_with_extension(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.unwrap_or_else(|e| panic!("an entry of {}: {e}", dir.display())).path())
        .filter(|p| p.extension().is_some_and(|e| e == extension))
        .collect();
    files.sort();
    files
}

/// Whether `path` names an HTML page by its extension (`.html` or `.htm`).
///
/// # Example
/// ```
/// use htrewrite_testkit::corpus::is_html;
/// assert!(is_html("a/index.html".as_ref()) && is_html("b.htm".as_ref()) && !is_html("MANIFEST.tsv".as_ref()));
/// ```
pub fn is_html(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "html" || e == "htm")
}

/// The HTML pages under the folder [`CORPUS_ENV`] names ([`html_pages`]); `None` when the
/// variable is unset or empty.
///
/// # Panics
/// With a message naming the variable and the folder when the folder cannot be read or holds no
/// HTML page: a set variable that tests nothing is a mistake to report, not a pass.
///
/// # Example
/// ```
/// // The extra pages when the variable is set, else the vendored ones.
/// let pages = htrewrite_testkit::corpus::env_html_pages()
///     .unwrap_or_else(htrewrite_testkit::corpus::vendored_html_pages);
/// assert!(!pages.is_empty());
/// ```
pub fn env_html_pages() -> Option<Vec<(String, PathBuf)>> {
    let dir = env_corpus()?;
    Some(html_pages(&dir).unwrap_or_else(|e| panic!("{CORPUS_ENV} names {e}")))
}

/// The folder of the real pages vendored in the repository, `tests/data/corpus` (each listed with
/// its size and SHA-256 in its `MANIFEST.tsv`).
///
/// # Example
/// ```
/// assert!(htrewrite_testkit::corpus::vendored_dir().join("MANIFEST.tsv").is_file());
/// ```
pub fn vendored_dir() -> PathBuf {
    workspace_root().join("tests/data/corpus")
}

/// The HTML pages vendored in the repository, under [`vendored_dir`] ([`html_pages`]).
///
/// # Panics
/// If that folder cannot be read or holds no page (a broken checkout).
///
/// # Example
/// ```
/// assert!(htrewrite_testkit::corpus::vendored_html_pages().len() >= 31);
/// ```
pub fn vendored_html_pages() -> Vec<(String, PathBuf)> {
    html_pages(&vendored_dir()).unwrap_or_else(|e| panic!("the vendored corpus: {e}"))
}

/// The HTML pages under `dir` ([`files_under`], filtered by [`is_html`]).
///
/// # Errors
/// A message naming `dir` when it cannot be read or holds no HTML page.
///
/// # Example
/// ```
/// let vendored = htrewrite_testkit::corpus::vendored_dir();
/// assert!(htrewrite_testkit::corpus::html_pages(&vendored)?.len() > 10);
/// # Ok::<(), String>(())
/// ```
pub fn html_pages(dir: &Path) -> Result<Vec<(String, PathBuf)>, String> {
    let pages: Vec<_> = files_under(dir)
        .map_err(|e| format!("{}, which cannot be read: {e}", dir.display()))?
        .into_iter()
        .filter(|(_, p)| is_html(p))
        .collect();
    if pages.is_empty() {
        return Err(format!("{}, which holds no .html or .htm page", dir.display()));
    }
    Ok(pages)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relative_path_is_taken_from_the_workspace_root() {
        assert_eq!(resolve(Path::new("tests/data/corpus")), vendored_dir());
        assert!(resolve(Path::new("tests/data/corpus")).join("MANIFEST.tsv").is_file());
    }

    #[test]
    fn files_are_listed_recursively_and_sorted() {
        let files = files_under(&vendored_dir()).expect("the vendored corpus is readable");
        assert!(files.windows(2).all(|w| w[0].0 < w[1].0), "sorted by relative path");
        assert!(files.iter().any(|(rel, _)| rel.contains('/') && is_html(Path::new(rel))), "pages in subfolders");
        assert!(files.iter().all(|(rel, full)| full.ends_with(rel)));
    }

    #[test]
    fn an_unreadable_folder_is_an_error() {
        let missing = workspace_root().join("no-such-folder-here");
        assert!(files_under(&missing).is_err());
        assert!(html_pages(&missing).is_err_and(|e| e.contains("cannot be read")));
    }

    #[test]
    fn a_folder_without_pages_is_an_error() {
        let no_pages = workspace_root().join("crates/testkit/src");
        assert!(html_pages(&no_pages).is_err_and(|e| e.contains("holds no .html or .htm page")));
    }
}
