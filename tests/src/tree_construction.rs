//! The `#data` inputs of html5lib's tree-construction tests and of the web-platform-tests
//! additions (`data/html5lib-tests/{tree-construction,wpt-additions}`).
//!
//! Only the input is read here (the round-trip tests need nothing else). A test starts at a line
//! `#data`; its input is every line up to the next section header (`#errors`, `#new-errors`,
//! `#document-fragment`, `#script-on`, `#script-off`, `#document`), joined with LF, without the
//! last line break. Files are read as bytes: two files contain raw CR bytes, which belong to the
//! input.

use std::path::Path;

/// One `#data` input.
#[derive(Debug, Clone)]
pub struct DataCase {
    /// Path relative to `data/html5lib-tests`, e.g. `tree-construction/tests1.dat`.
    pub file: String,
    /// Index of the test in its file, from 0.
    pub index: usize,
    /// The input bytes (escapes already decoded for the web-platform-tests additions).
    pub input: Vec<u8>,
}

impl DataCase {
    /// A name such as `tree-construction/tests1.dat#012`.
    pub fn name(&self) -> String {
        format!("{}#{:03}", self.file, self.index)
    }
}

const HEADERS: &[&[u8]] =
    &[b"#errors", b"#new-errors", b"#document-fragment", b"#script-on", b"#script-off", b"#document"];

/// Splits a `.dat` file into its `#data` inputs.
pub fn parse_dat(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut current: Option<Vec<&[u8]>> = None;
    for line in bytes.split(|&b| b == b'\n') {
        match &mut current {
            None if line == b"#data" => current = Some(Vec::new()),
            None => {}
            Some(lines) if HEADERS.contains(&line) => {
                out.push(lines.join(&b'\n'));
                current = None;
            }
            Some(lines) => lines.push(line),
        }
    }
    if let Some(lines) = current {
        out.push(lines.join(&b'\n'));
    }
    out
}

/// Decodes the escapes web-platform-tests allows in `#data` lines: `\uXXXX` (UTF-16 code units,
/// pairs combined, a lone surrogate kept WTF-8 style), `\t`, `\n`, `\r`, `\f`. Other backslashes
/// stay.
pub fn unescape_wpt(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    let mut i = 0;
    while i < input.len() {
        if input[i] == b'\\' {
            let simple = match input.get(i + 1) {
                Some(b't') => Some(b'\t'),
                Some(b'n') => Some(b'\n'),
                Some(b'r') => Some(b'\r'),
                Some(b'f') => Some(0x0C),
                _ => None,
            };
            if let Some(b) = simple {
                out.push(b);
                i += 2;
                continue;
            }
        }
        // `\uXXXX` runs (and everything else) go through the shared unescaper, one UTF-8
        // sequence or escape at a time.
        let end = next_boundary(input, i);
        match std::str::from_utf8(&input[i..end]) {
            Ok(s) => out.extend_from_slice(&crate::html5lib::unescape_u(s).0),
            Err(_) => out.extend_from_slice(&input[i..end]),
        }
        i = end;
    }
    out
}

/// The end of the `\uXXXX` escape run starting at `i` (so that surrogate pairs stay together), or
/// of the single byte at `i`.
fn next_boundary(input: &[u8], i: usize) -> usize {
    let is_u = |j: usize| {
        input.get(j) == Some(&b'\\')
            && input.get(j + 1) == Some(&b'u')
            && input.get(j + 2..j + 6).is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
    };
    let mut j = i;
    while is_u(j) {
        j += 6;
    }
    if j == i { i + 1 } else { j }
}

fn load_dir(root: &Path, sub: &str, unescape: bool, out: &mut Vec<DataCase>) {
    let dir = root.join(sub);
    let files = crate::corpus::files_under(&dir).unwrap_or_else(|e| panic!("read {}: {e}", dir.display()));
    for (rel, path) in files {
        if !rel.ends_with(".dat") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
        for (index, input) in parse_dat(&bytes).into_iter().enumerate() {
            let input = if unescape { unescape_wpt(&input) } else { input };
            out.push(DataCase { file: format!("{sub}/{rel}"), index, input });
        }
    }
}

/// All `#data` inputs of `tree-construction/` (html5lib, including `scripted/`).
pub fn load_tree_construction() -> Vec<DataCase> {
    let mut out = Vec::new();
    load_dir(&crate::data_dir().join("html5lib-tests"), "tree-construction", false, &mut out);
    out
}

/// All `#data` inputs of `wpt-additions/` (escapes decoded).
pub fn load_wpt_additions() -> Vec<DataCase> {
    let mut out = Vec::new();
    load_dir(&crate::data_dir().join("html5lib-tests"), "wpt-additions", true, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_sections() {
        let dat = b"#data\n<p>a\nb\n#errors\n(1,1): x\n#document\n| <p>\n\n#data\n\n#errors\n#document\n";
        assert_eq!(parse_dat(dat), vec![b"<p>a\nb".to_vec(), b"".to_vec()]);
    }

    #[test]
    fn wpt_escapes() {
        assert_eq!(unescape_wpt(br"<?a\tb\uD83D\uDE00\u0041\x"), "<?a\tb\u{1F600}A\\x".as_bytes());
    }
}
