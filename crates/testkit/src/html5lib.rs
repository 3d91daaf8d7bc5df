//! The vendored html5lib tree-construction suite
//! (`tests/data/html5lib-tests/tree-construction/`), read as the tests that only need its
//! documents read it: every case's `#data`, named as the trials name it.

use std::path::PathBuf;

use crate::corpus::workspace_root;

/// Every `#data` document of the vendored tree-construction suite's `.dat` files, in file
/// order, each named `FILE#INDEX` (the index of the case in its file, from 0), as bytes.
///
/// # Example
/// ```
/// let docs = htrewrite_testkit::html5lib::tree_construction_data();
/// assert!(docs.len() > 1000);
/// assert!(docs.iter().any(|(name, _)| name == "tests1.dat#0"));
/// ```
///
/// # Panics
/// When the vendored folder or one of its files cannot be read: the tests that call it need it.
pub fn tree_construction_data() -> Vec<(String, Vec<u8>)> {
    let dir: PathBuf = workspace_root().join("tests/data/html5lib-tests/tree-construction");
    let files = crate::corpus::files_with_extension(&dir, "dat");
    let mut docs = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let file = path.file_name().expect("a file name").to_string_lossy();
        for (i, case) in text.split("\n#data\n").enumerate() {
            let case = case.strip_prefix("#data\n").unwrap_or(case);
            let Some((data, _)) = case.split_once("\n#errors") else { continue };
            docs.push((format!("{file}#{i}"), data.as_bytes().to_vec()));
        }
    }
    docs
}
