//! Reader for html5lib's tree-construction `.dat` files.
//!
//! Format: `tree-construction/README.md` of html5lib-tests. Sections `#data`, `#errors`,
//! `#new-errors`, `#document-fragment`, `#script-on`, `#script-off`, `#document`; tests are
//! separated by an empty line. The web-platform-tests additions (`wpt-additions/README.md`) have
//! no `#errors` section and allow the escapes `\uXXXX` (UTF-16 code units), `\t`, `\n`, `\r`, `\f`
//! in `#data` (and, in one case, in the expected tree).

use std::path::Path;

/// Where the test data is vendored (html5lib-tests, with LICENSE and upstream commit).
pub const DATA_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/html5lib-tests");

/// The namespace of a fragment's context element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContextNs {
    /// `td`
    Html,
    /// `svg path`
    Svg,
    /// `math mi`
    MathMl,
}

/// A `#document-fragment` context element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Context {
    /// Its namespace.
    pub ns: ContextNs,
    /// Its local name.
    pub name: String,
}

/// One `#data` case.
#[derive(Debug, Clone)]
pub struct Case {
    /// The file's name relative to the suite folder (`tests1.dat`, `scripted/ark.dat`,
    /// `wpt-additions/processing-instructions.dat`).
    pub file: String,
    /// 1-based index of the case in its file.
    pub index: usize,
    /// 1-based line of its `#data` line.
    pub line: usize,
    /// The input bytes (escapes applied for wpt-additions).
    pub data: Vec<u8>,
    /// The `#errors` and `#new-errors` lines (not compared: this harness checks trees only).
    pub errors: Vec<String>,
    /// The context element of a fragment case.
    pub fragment: Option<Context>,
    /// `Some(true)` for `#script-on`, `Some(false)` for `#script-off`, `None` for both.
    pub scripting: Option<bool>,
    /// The expected tree, lines joined by `\n`, without the final newline.
    pub document: String,
}

impl Case {
    /// `tests1.dat#012`.
    pub fn id(&self) -> String {
        format!("{}#{:03}", self.file, self.index)
    }

    /// The scripting modes this case applies to.
    pub fn modes(&self) -> Vec<bool> {
        match self.scripting {
            Some(on) => vec![on],
            None => vec![true, false],
        }
    }
}

/// `script-on` / `script-off`.
pub fn mode_name(scripting: bool) -> &'static str {
    if scripting { "script-on" } else { "script-off" }
}

/// Parses the text of one `.dat` file. `escapes` applies the wpt-additions escapes.
pub fn parse(file: &str, bytes: &[u8], escapes: bool) -> Result<Vec<Case>, String> {
    let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    if lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    // The start of each test: a `#data` line at the start of the file or after an empty line.
    let starts: Vec<usize> =
        (0..lines.len()).filter(|&i| lines[i] == b"#data" && (i == 0 || lines[i - 1].is_empty())).collect();
    if starts.first() != Some(&0) && !lines.is_empty() {
        return Err(format!("{file}: does not start with #data"));
    }
    let mut cases = Vec::new();
    for (n, &start) in starts.iter().enumerate() {
        let end = starts.get(n + 1).map_or(lines.len(), |&next| next - 1); // drop the separator line
        let case = parse_case(file, n + 1, start + 1, &lines[start..end], escapes)?;
        cases.push(case);
    }
    Ok(cases)
}

fn is_header(line: &[u8]) -> bool {
    matches!(line, b"#errors" | b"#new-errors" | b"#document-fragment" | b"#script-on" | b"#script-off" | b"#document")
}

fn parse_case(file: &str, index: usize, line: usize, lines: &[&[u8]], escapes: bool) -> Result<Case, String> {
    let at = || format!("{file}#{index:03} (line {line})");
    let mut i = 1; // after `#data`
    let mut data_lines = Vec::new();
    while i < lines.len() && !is_header(lines[i]) {
        data_lines.push(lines[i]);
        i += 1;
    }
    let mut data = data_lines.join(&b'\n');
    if escapes {
        data = unescape(&data).into_bytes();
    }
    let mut errors = Vec::new();
    let mut fragment = None;
    let mut scripting = None;
    let mut document = None;
    while i < lines.len() {
        let header = lines[i];
        i += 1;
        match header {
            b"#errors" | b"#new-errors" => {
                while i < lines.len() && !is_header(lines[i]) {
                    errors.push(String::from_utf8_lossy(lines[i]).into_owned());
                    i += 1;
                }
            }
            b"#document-fragment" => {
                let spec = lines.get(i).ok_or_else(|| format!("{}: #document-fragment without context", at()))?;
                i += 1;
                let spec = String::from_utf8_lossy(spec).into_owned();
                fragment = Some(if let Some(name) = spec.strip_prefix("svg ") {
                    Context { ns: ContextNs::Svg, name: name.to_owned() }
                } else if let Some(name) = spec.strip_prefix("math ") {
                    Context { ns: ContextNs::MathMl, name: name.to_owned() }
                } else {
                    Context { ns: ContextNs::Html, name: spec }
                });
            }
            b"#script-on" => scripting = Some(true),
            b"#script-off" => scripting = Some(false),
            b"#document" => {
                // The rest: text nodes may contain empty lines and lines starting with `#`.
                let mut rest = lines[i..].to_vec();
                while rest.last().is_some_and(|l| l.is_empty()) {
                    rest.pop();
                }
                let text = String::from_utf8_lossy(&rest.join(&b'\n')).into_owned();
                document = Some(if escapes { unescape(text.as_bytes()) } else { text });
                i = lines.len();
            }
            other => return Err(format!("{}: unexpected line {:?}", at(), String::from_utf8_lossy(other))),
        }
    }
    let document = document.ok_or_else(|| format!("{}: no #document", at()))?;
    Ok(Case { file: file.to_owned(), index, line, data, errors, fragment, scripting, document })
}

/// Applies the wpt-additions escapes: `\uXXXX` (UTF-16 code units, surrogate pairs as two
/// escapes), `\t`, `\n`, `\r`, `\f`. Any other backslash stays as it is.
pub fn unescape(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::with_capacity(text.len());
    let mut units: Vec<u16> = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let flush = |units: &mut Vec<u16>, out: &mut String| {
        if !units.is_empty() {
            out.push_str(&String::from_utf16_lossy(units));
            units.clear();
        }
    };
    while i < chars.len() {
        if chars[i] == '\\' && i + 1 < chars.len() {
            let simple = match chars[i + 1] {
                't' => Some('\t'),
                'n' => Some('\n'),
                'r' => Some('\r'),
                'f' => Some('\u{c}'),
                _ => None,
            };
            if let Some(c) = simple {
                flush(&mut units, &mut out);
                out.push(c);
                i += 2;
                continue;
            }
            if chars[i + 1] == 'u' && i + 6 <= chars.len() {
                let hex: String = chars[i + 2..i + 6].iter().collect();
                if hex.chars().all(|c| c.is_ascii_hexdigit()) {
                    units.push(u16::from_str_radix(&hex, 16).expect("four hex digits"));
                    i += 6;
                    continue;
                }
            }
        }
        flush(&mut units, &mut out);
        out.push(chars[i]);
        i += 1;
    }
    flush(&mut units, &mut out);
    out
}

/// All cases of the suite: `tree-construction/*.dat`, `tree-construction/scripted/*.dat` and
/// `wpt-additions/*.dat`, in file-name order.
pub fn load_all() -> Vec<Case> {
    let root = Path::new(DATA_DIR);
    let mut cases = Vec::new();
    for (dir, prefix, escapes) in [
        ("tree-construction", "", false),
        ("tree-construction/scripted", "scripted/", false),
        ("wpt-additions", "wpt-additions/", true),
    ] {
        let folder = root.join(dir);
        for path in htrewrite_testkit::corpus::files_with_extension(&folder, "dat") {
            let name = format!("{prefix}{}", path.file_name().expect("file name").to_string_lossy());
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            cases.extend(parse(&name, &bytes, escapes).unwrap_or_else(|e| panic!("{e}")));
        }
    }
    cases
}
