//! `tests/expected-differences.toml`: upstream cases whose expectation the current HTML Standard
//! made stale.
//!
//! The file is a TOML array of tables, read by a small parser for exactly this shape (no TOML
//! dependency):
//!
//! ```toml
//! # comment
//! [[difference]]
//! case = "test3.test#0412 <description> [Data state]"
//! reason = "processing instructions: …"
//! ```
//!
//! Values are TOML basic strings (`"…"` with `\"`, `\\`, `\n`, `\t`, `\r`, `\f`, `\b`, `\uXXXX`,
//! `\UXXXXXXXX`). A listed case still runs: it must still differ from the stale expectation (an
//! entry that starts passing is a failure, "stale entry").

use std::collections::BTreeMap;

/// One listed case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// The trial name.
    pub case: String,
    /// Why the upstream expectation no longer holds.
    pub reason: String,
}

impl Difference {
    /// The category: the reason's text before its first `:` (e.g. `processing instructions`).
    pub fn category(&self) -> &str {
        self.reason.split(':').next().unwrap_or("").trim()
    }
}

/// Reads and parses the file.
///
/// # Panics
/// If the file cannot be read or parsed, naming the line.
pub fn load() -> Vec<Difference> {
    let path = crate::expected_differences_path();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Parses the file's text.
pub fn parse(text: &str) -> Result<Vec<Difference>, String> {
    let mut out = Vec::new();
    let mut current: Option<BTreeMap<String, String>> = None;
    let finish = |m: BTreeMap<String, String>, line: usize| -> Result<Difference, String> {
        let case = m.get("case").cloned().ok_or(format!("entry ending at line {line} has no `case`"))?;
        let reason = m.get("reason").cloned().ok_or(format!("entry ending at line {line} has no `reason`"))?;
        if reason.trim().is_empty() {
            return Err(format!("entry ending at line {line} has an empty `reason`"));
        }
        Ok(Difference { case, reason })
    };
    for (n, line) in text.lines().enumerate() {
        let n = n + 1;
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if t == "[[difference]]" {
            if let Some(m) = current.take() {
                out.push(finish(m, n)?);
            }
            current = Some(BTreeMap::new());
            continue;
        }
        let m = current.as_mut().ok_or(format!("line {n}: key outside a [[difference]] table"))?;
        let (key, rest) = t.split_once('=').ok_or(format!("line {n}: expected `key = \"value\"`"))?;
        let key = key.trim();
        if key != "case" && key != "reason" {
            return Err(format!("line {n}: unknown key `{key}`"));
        }
        let (value, rest) = parse_basic_string(rest.trim()).map_err(|e| format!("line {n}: {e}"))?;
        let rest = rest.trim();
        if !(rest.is_empty() || rest.starts_with('#')) {
            return Err(format!("line {n}: unexpected text after the string"));
        }
        if m.insert(key.to_owned(), value).is_some() {
            return Err(format!("line {n}: duplicate key `{key}`"));
        }
    }
    if let Some(m) = current.take() {
        out.push(finish(m, text.lines().count())?);
    }
    Ok(out)
}

/// Parses a TOML basic string at the start of `s`; returns it and the rest.
fn parse_basic_string(s: &str) -> Result<(String, &str), String> {
    let mut chars = s.char_indices();
    if chars.next().map(|(_, c)| c) != Some('"') {
        return Err("expected a \"basic string\"".to_owned());
    }
    let mut out = String::new();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Ok((out, &s[i + 1..])),
            '\\' => {
                let (_, e) = chars.next().ok_or("unfinished escape")?;
                match e {
                    '"' => out.push('"'),
                    '\\' => out.push('\\'),
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    'f' => out.push('\u{c}'),
                    'b' => out.push('\u{8}'),
                    'u' | 'U' => {
                        let len = if e == 'u' { 4 } else { 8 };
                        let hex: String = (0..len).filter_map(|_| chars.next().map(|(_, c)| c)).collect();
                        let cp = u32::from_str_radix(&hex, 16).map_err(|_| format!("bad \\{e} escape"))?;
                        out.push(char::from_u32(cp).ok_or(format!("\\{e}{hex} is not a scalar value"))?);
                    }
                    other => return Err(format!("unknown escape \\{other}")),
                }
            }
            c if c.is_control() && c != '\t' => return Err("control character in string".to_owned()),
            c => out.push(c),
        }
    }
    Err("unterminated string".to_owned())
}

/// Writes `s` as a TOML basic string.
pub fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let name = "test3.test#0001 <?\\u{0}\"x\" [Data state]";
        let text = format!("# c\n\n[[difference]]\ncase = {}\nreason = \"a: b\" # c\n", quote(name));
        let d = parse(&text).unwrap();
        assert_eq!(d, vec![Difference { case: name.to_owned(), reason: "a: b".to_owned() }]);
        assert_eq!(d[0].category(), "a");
        assert!(parse("[[difference]]\ncase = \"x\"\n").is_err());
    }
}
