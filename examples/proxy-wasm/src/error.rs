//! [`Error`]: why the filter refused its configuration or stopped rewriting a body.

use std::fmt;

/// Why the filter refused its configuration or stopped rewriting a body; logged through the
/// proxy's `proxy_log`.
///
/// `Display` is a lowercase fragment; [`std::error::Error::source`] gives the cause when the
/// filter has it.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

/// The kind of an [`Error`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The plugin configuration is not UTF-8.
    ConfigurationNotUtf8,
    /// The plugin configuration is not a valid rules file (its
    /// [`RulesError`](htrewrite_rules::RulesError) is the source, with line and column).
    Rules,
    /// A response's rewriter could not be made (its settings were refused); the response is
    /// left alone.
    Settings,
    /// Rewriting a body failed (a refused edit, the memory limit, an encoding that cannot be
    /// rewritten): the rest of the body, from the failing token on, passes through unchanged.
    Rewrite,
    /// The response's trailers came before the end of its body: the rewriter's last bytes
    /// could not be sent (responses that announce trailers are left alone).
    Trailers,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error { kind, message: message.into(), source: None }
    }

    pub(crate) fn with_source(
        kind: ErrorKind,
        message: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Error {
        Error { kind, message: message.into(), source: Some(source.into()) }
    }

    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            ErrorKind::ConfigurationNotUtf8 | ErrorKind::Rules => "plugin configuration",
            ErrorKind::Settings => "response left alone",
            ErrorKind::Rewrite => "rewriting failed, the rest of the body passes through unchanged",
            ErrorKind::Trailers => "trailers before the end of the body",
        };
        write!(f, "{what}: {}", self.message)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
    }
}
