//! `expected-differences.toml`: html5lib cases made stale by later changes of the Standard.
//!
//! A deliberately small reader for the file's one shape (no TOML dependency):
//!
//! ```toml
//! [[difference]]
//! case = "tests1.dat#044"      # the case id, as in the trial names
//! mode = "script-on"           # optional: only this scripting mode
//! reason = "why the expected tree is stale"
//! ```

/// Where the list lives.
pub const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/expected-differences.toml");

/// One listed case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// `tests1.dat#044`.
    pub case: String,
    /// `Some("script-on")` / `Some("script-off")` to list only one mode.
    pub mode: Option<String>,
    /// Why the expected tree is stale.
    pub reason: String,
    /// Line of its `[[difference]]` header.
    pub line: usize,
}

impl Difference {
    /// Whether this entry covers the case in this mode.
    pub fn covers(&self, case: &str, mode: &str) -> bool {
        self.case == case && self.mode.as_deref().is_none_or(|m| m == mode)
    }
}

/// An entry being read: header line, `case`, `mode`, `reason`.
type Partial = (usize, Option<String>, Option<String>, Option<String>);

/// Reads and checks the list.
pub fn load() -> Vec<Difference> {
    let text = std::fs::read_to_string(PATH).unwrap_or_else(|e| panic!("cannot read {PATH}: {e}"));
    parse(&text).unwrap_or_else(|e| panic!("{PATH}: {e}"))
}

/// Parses the list.
pub fn parse(text: &str) -> Result<Vec<Difference>, String> {
    let mut out: Vec<Difference> = Vec::new();
    let mut current: Option<Partial> = None;
    let finish = |entry: Option<Partial>, out: &mut Vec<Difference>| -> Result<(), String> {
        if let Some((line, case, mode, reason)) = entry {
            let case = case.ok_or_else(|| format!("line {line}: entry without `case`"))?;
            let reason = reason.ok_or_else(|| format!("line {line}: entry without `reason`"))?;
            if reason.trim().is_empty() {
                return Err(format!("line {line}: empty `reason`"));
            }
            if let Some(m) = &mode
                && m != "script-on"
                && m != "script-off"
            {
                return Err(format!("line {line}: mode must be \"script-on\" or \"script-off\""));
            }
            if out.iter().any(|d| d.case == case && (d.mode.is_none() || mode.is_none() || d.mode == mode)) {
                return Err(format!("line {line}: {case} listed twice"));
            }
            out.push(Difference { case, mode, reason, line });
        }
        Ok(())
    };
    for (n, raw) in text.lines().enumerate() {
        let line_no = n + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line == "[[difference]]" {
            finish(current.take(), &mut out)?;
            current = Some((line_no, None, None, None));
            continue;
        }
        let (key, rest) = line.split_once('=').ok_or_else(|| format!("line {line_no}: expected `key = \"value\"`"))?;
        let value = parse_string(rest.trim()).map_err(|e| format!("line {line_no}: {e}"))?;
        let entry = current.as_mut().ok_or_else(|| format!("line {line_no}: key outside a [[difference]]"))?;
        let slot = match key.trim() {
            "case" => &mut entry.1,
            "mode" => &mut entry.2,
            "reason" => &mut entry.3,
            other => return Err(format!("line {line_no}: unknown key {other:?}")),
        };
        if slot.replace(value).is_some() {
            return Err(format!("line {line_no}: key {:?} given twice", key.trim()));
        }
    }
    finish(current.take(), &mut out)?;
    Ok(out)
}

/// A basic TOML string (`"…"` with `\"`, `\\`, `\n`, `\t`, `\u…`), then an optional comment.
fn parse_string(text: &str) -> Result<String, String> {
    let mut chars = text.chars();
    if chars.next() != Some('"') {
        return Err("expected a double-quoted string".into());
    }
    let mut out = String::new();
    loop {
        match chars.next() {
            None => return Err("unterminated string".into()),
            Some('"') => break,
            Some('\\') => match chars.next() {
                Some('"') => out.push('"'),
                Some('\\') => out.push('\\'),
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('u') => {
                    let hex: String = chars.by_ref().take(4).collect();
                    let c = u32::from_str_radix(&hex, 16)
                        .ok()
                        .and_then(char::from_u32)
                        .ok_or_else(|| format!("bad \\u escape {hex:?}"))?;
                    out.push(c);
                }
                other => return Err(format!("unsupported escape \\{other:?}")),
            },
            Some(c) => out.push(c),
        }
    }
    let rest = chars.as_str().trim();
    if !rest.is_empty() && !rest.starts_with('#') {
        return Err(format!("unexpected text after the string: {rest:?}"));
    }
    Ok(out)
}
