//! # htrewrite-cli
//!
//! The `htrewrite` command (see its `--help`) and, as a library, the
//! [`rules`] model it shares with servers built on htrewrite: a versioned
//! TOML list of `{selector, action, value}` rules, checked with line and
//! column on error, compiled once, and turned into
//! [`htrewrite::Settings`] for each document.
//!
//! ```
//! use htrewrite_cli::rules::RuleSet;
//! let rules = RuleSet::from_toml_str(r#"
//! version = 1
//! [[rule]]
//! selector = "img"
//! action = "set-attr"
//! name = "loading"
//! value = "lazy"
//! "#)?;
//! let out = htrewrite::rewrite_str("<img src=a>", rules.settings())?;
//! assert_eq!(out, r#"<img src=a loading="lazy">"#);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]

/// The rules model: [`htrewrite_rules`], re-exported under its old path.
pub use htrewrite_rules as rules;

/// Parses a size: bytes, or a number with K, M, G (powers of 1024; `KB`, `KiB`… accepted), as
/// `--memory-limit` takes it (also used by the reverse-proxy example).
///
/// # Example
/// ```
/// assert_eq!(htrewrite_cli::parse_size("64M"), Ok(64 << 20));
/// assert!(htrewrite_cli::parse_size("64X").is_err());
/// ```
///
/// # Errors
/// A message naming the text when it is not a size or does not fit in `usize`.
pub fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let n: usize = digits.parse().map_err(|_| format!("{s:?} is not a size (e.g. 65536, 64K, 64M, 1G)"))?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        _ => return Err(format!("{s:?}: unknown unit (use K, M or G)")),
    };
    n.checked_mul(1 << shift).ok_or_else(|| format!("{s:?} is too large"))
}
