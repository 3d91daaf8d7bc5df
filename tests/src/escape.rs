//! One-line, JSON-like display of test strings and safe trial names.

/// Escapes bytes for a one-line, JSON-like display: printable UTF-8 stays, control characters
/// become `\n`, `\t`, `\r`, `\f`, `\0` or `\u{..}`, `"` and `\` are escaped, and bytes that are not
/// UTF-8 (for example the WTF-8 encoding of a lone surrogate) become `\x..`.
pub fn escape_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            escape_char_into(c, &mut out);
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}

/// Like [`escape_bytes`] for a string.
pub fn escape_str(s: &str) -> String {
    escape_bytes(s.as_bytes())
}

fn escape_char_into(c: char, out: &mut String) {
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        '\u{c}' => out.push_str("\\f"),
        '\0' => out.push_str("\\0"),
        c if c.is_control() => out.push_str(&format!("\\u{{{:X}}}", c as u32)),
        c => out.push(c),
    }
}

/// Makes a description safe for a trial name: control characters (which would break terminals,
/// `--exact` filters and TOML) become `\u{..}`; everything else is kept.
pub fn sanitize_name(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() {
            out.push_str(&format!("\\u{{{:X}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Where `a` and `b` first differ (the shorter length when one is a prefix of the other), and
/// `context` bytes either side of that place in each, escaped: for failure messages that compare
/// two outputs.
pub fn first_difference(a: &[u8], b: &[u8], context: usize) -> (usize, String, String) {
    let i = a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
    let from = i.saturating_sub(context);
    let around = |s: &[u8]| escape_bytes(&s[from.min(s.len())..(i + context).min(s.len())]);
    (i, around(a), around(b))
}
