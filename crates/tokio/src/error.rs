//! [`Error`]: why a rewriting stream failed.

use std::fmt;

use htrewrite::RewritingError;

/// Why a [`RewriteStream`](crate::RewriteStream) failed.
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
    /// The input stream yielded an error.
    Input,
    /// The rewriter failed (a handler error, the memory limit, an encoding
    /// that cannot be rewritten) under [`OnError::Stop`](htrewrite::OnError::Stop).
    Rewrite,
}

impl Error {
    pub(crate) fn input(source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Error {
        Error { kind: ErrorKind::Input, source: source.into() }
    }

    pub(crate) fn rewrite(source: RewritingError) -> Error {
        Error { kind: ErrorKind::Rewrite, source: Box::new(source) }
    }

    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The rewriter's error, for [`ErrorKind::Rewrite`].
    pub fn rewriting_error(&self) -> Option<&RewritingError> {
        self.source.downcast_ref()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ErrorKind::Input => write!(f, "input stream failed: {}", self.source),
            ErrorKind::Rewrite => write!(f, "rewriting failed: {}", self.source),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.source)
    }
}

impl From<Error> for std::io::Error {
    fn from(e: Error) -> std::io::Error {
        std::io::Error::other(e)
    }
}

/// A rewriting error as an I/O error (for the `AsyncRead`/`AsyncWrite` adapters).
pub(crate) fn io(e: RewritingError) -> std::io::Error {
    std::io::Error::other(Error::rewrite(e))
}
