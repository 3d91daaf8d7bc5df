//! [`Error`]: the error of an [`HtmlRewriteBody`](crate::HtmlRewriteBody).

use std::fmt;

/// Why an [`HtmlRewriteBody`](crate::HtmlRewriteBody) failed.
///
/// `Display` is a lowercase fragment; [`std::error::Error::source`] gives the cause.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    source: Box<dyn std::error::Error + Send + Sync>,
}

/// The kind of an [`Error`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The inner body failed (e.g. the upstream closed mid-body).
    Body,
    /// The rewriter failed under [`ErrorPolicy::Abort`](crate::ErrorPolicy::Abort).
    Rewrite,
    /// An async handler's content failed or timed out under
    /// [`ErrorPolicy::Abort`](crate::ErrorPolicy::Abort) (the source is the
    /// [`htrewrite_tokio::Error`], which names the slot).
    Content,
}

impl Error {
    pub(crate) fn body(source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Error {
        Error { kind: ErrorKind::Body, source: source.into() }
    }

    pub(crate) fn rewrite(source: Box<dyn std::error::Error + Send + Sync>) -> Error {
        Error { kind: ErrorKind::Rewrite, source }
    }

    pub(crate) fn content(source: htrewrite_tokio::Error) -> Error {
        Error { kind: ErrorKind::Content, source: Box::new(source) }
    }

    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ErrorKind::Body => write!(f, "response body failed: {}", self.source),
            ErrorKind::Rewrite => write!(f, "rewriting aborted: {}", self.source),
            ErrorKind::Content => write!(f, "body aborted: {}", self.source),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.source)
    }
}
