//! [`Config`]: the plugin configuration, a rules file.

use htrewrite_rules::RuleSet;

use crate::error::{Error, ErrorKind};

/// The filter's configuration: the plugin configuration the proxy hands to `proxy_on_configure`,
/// read as a rules file ([`htrewrite_rules`], version 1: `[[rule]]` tables and the
/// `inject-head` key), compiled once and shared by every response.
///
/// An empty configuration (no bytes, only whitespace) or one with no rules makes the filter a
/// pass-through: responses are left alone, body and headers byte for byte.
///
/// # Example
/// ```
/// use htrewrite_proxy_wasm::Config;
/// let config = Config::from_bytes(b"version = 1\ninject-head = \"<script src=/x.js></script>\"\n")?;
/// assert_eq!(config.rules().map(|r| r.rules().len()), Some(1));
/// assert!(Config::from_bytes(b"  \n")?.rules().is_none());
/// # Ok::<(), htrewrite_proxy_wasm::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Config {
    rules: Option<RuleSet>,
}

impl Config {
    /// Reads the plugin configuration.
    ///
    /// # Errors
    /// [`ErrorKind::ConfigurationNotUtf8`], or [`ErrorKind::Rules`] with the rules error
    /// (its line and column in the configuration) as the source.
    ///
    /// # Example
    /// ```
    /// use htrewrite_proxy_wasm::{Config, ErrorKind};
    /// let err = Config::from_bytes(b"version = 1\n[[rule]]\nselector = \"p[\"\naction = \"remove\"\n").unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::Rules);
    /// assert!(err.to_string().starts_with("plugin configuration: line 3, column 12: invalid selector \"p[\""));
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Config, Error> {
        let text = std::str::from_utf8(bytes).map_err(|e| {
            Error::with_source(ErrorKind::ConfigurationNotUtf8, format!("not UTF-8 (byte {})", e.valid_up_to()), e)
        })?;
        if text.trim().is_empty() {
            return Ok(Config::default());
        }
        let rules = RuleSet::from_toml_str(text).map_err(|e| Error::with_source(ErrorKind::Rules, e.to_string(), e))?;
        Ok(Config { rules: (!rules.rules().is_empty()).then_some(rules) })
    }

    /// The rules, `None` when the filter passes everything through.
    pub fn rules(&self) -> Option<&RuleSet> {
        self.rules.as_ref()
    }
}
