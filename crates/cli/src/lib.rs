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

pub mod rules;
