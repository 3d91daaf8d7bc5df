//! [`Error`]: why a rewriting stream failed.

use std::fmt;
use std::time::Duration;

use htrewrite::{RewritingError, Slot};

/// Why a [`RewriteStream`](crate::RewriteStream) failed, or why an async
/// handler's content did not come ([`ErrorKind::Content`],
/// [`ErrorKind::Timeout`]: the slot got its fallback and the rewrite goes on).
///
/// `Display` is a lowercase fragment; [`std::error::Error::source`] gives the cause.
///
/// # Example
/// ```
/// use htrewrite::Settings;
/// use htrewrite_tokio::{AsyncSettings, Content, Defer, ErrorKind};
/// use tokio_stream::StreamExt;
/// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
/// let settings = AsyncSettings::new(Settings::new()).element_async("aside", Defer::Replace, |_| {
///     Some(async { Err::<Content, htrewrite_tokio::BoxError>("upstream said 503".into()) })
/// });
/// let input = tokio_stream::iter([Ok::<_, std::io::Error>("<aside>ad</aside>!")]);
/// let mut s = htrewrite_tokio::rewrite_stream_async(input, settings)?;
/// let (mut out, mut errors) = (Vec::new(), Vec::new());
/// while let Some(item) = s.next().await {
///     match item {
///         Ok(chunk) => out.extend_from_slice(&chunk),
///         Err(e) => errors.push(e),
///     }
/// }
/// assert_eq!(out, b"<aside>ad</aside>!"); // the fallback: the element as it was
/// assert_eq!(errors[0].kind(), ErrorKind::Content);
/// assert_eq!(errors[0].slot().map(|s| s.index()), Some(0));
/// assert_eq!(errors[0].to_string(), "content for slot 0 failed: upstream said 503");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    slot: Option<Slot>,
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
    /// An async handler's future or content stream failed, or its content
    /// was refused where the slot lands ([`Error::slot`] says which): the
    /// slot got the configured [`Fallback`](htrewrite::Fallback) and the
    /// rewrite goes on (the stream yields more items after this one).
    Content,
    /// An async handler's content did not end within
    /// [`AsyncSettings::timeout`](crate::AsyncSettings::timeout): as
    /// [`ErrorKind::Content`].
    Timeout,
}

/// The source of an [`ErrorKind::Timeout`] error.
#[derive(Debug)]
struct TimedOut(Duration);

impl fmt::Display for TimedOut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "no content within {:?}", self.0)
    }
}

impl std::error::Error for TimedOut {}

impl Error {
    pub(crate) fn input(source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Error {
        Error { kind: ErrorKind::Input, slot: None, source: source.into() }
    }

    pub(crate) fn rewrite(source: RewritingError) -> Error {
        Error { kind: ErrorKind::Rewrite, slot: None, source: Box::new(source) }
    }

    pub(crate) fn content(slot: Slot, source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Error {
        Error { kind: ErrorKind::Content, slot: Some(slot), source: source.into() }
    }

    pub(crate) fn timeout(slot: Slot, limit: Duration) -> Error {
        Error { kind: ErrorKind::Timeout, slot: Some(slot), source: Box::new(TimedOut(limit)) }
    }

    /// The kind of failure.
    ///
    /// # Example
    /// See [`Error`].
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The slot whose content failed, for [`ErrorKind::Content`] and
    /// [`ErrorKind::Timeout`].
    ///
    /// # Example
    /// See [`Error`].
    pub fn slot(&self) -> Option<Slot> {
        self.slot
    }

    /// The cause: the input's error for [`ErrorKind::Input`], the
    /// [`RewritingError`] for [`ErrorKind::Rewrite`], the future's or
    /// stream's error, or the refusal ([`htrewrite::SlotError`]), for
    /// [`ErrorKind::Content`] (for adapters that wrap it in their own error).
    ///
    /// # Example
    /// ```
    /// use htrewrite::Settings;
    /// use htrewrite_tokio::AsyncSettings;
    /// use tokio_stream::StreamExt;
    /// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
    /// let settings = Settings::new().element("p", |_| Err("refused".into()));
    /// let input = tokio_stream::iter([Ok::<_, std::io::Error>("<p>")]);
    /// let mut s = htrewrite_tokio::rewrite_stream_async(input, AsyncSettings::new(settings))?;
    /// let error = s.next().await.unwrap().unwrap_err();
    /// assert!(error.into_inner().downcast::<htrewrite::RewritingError>().is_ok());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn into_inner(self) -> Box<dyn std::error::Error + Send + Sync> {
        self.source
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
            ErrorKind::Content | ErrorKind::Timeout => {
                let slot = self.slot.map_or_else(|| "a slot".to_string(), |s| s.to_string());
                let what = if self.kind == ErrorKind::Timeout { "timed out" } else { "failed" };
                write!(f, "content for {slot} {what}: {}", self.source)
            }
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
