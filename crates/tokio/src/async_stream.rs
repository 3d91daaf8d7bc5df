//! [`rewrite_stream_async`]: a stream of byte chunks in, rewritten with async handlers.

use std::pin::Pin;
use std::task::{Context, Poll, ready};

use bytes::Bytes;
use futures_core::Stream;
use htrewrite::RewritingError;
use pin_project_lite::pin_project;

use crate::handlers::{AsyncKind, AsyncSettings};
use crate::{AsyncRewriter, Error};

/// Rewrites a stream of chunks of HTML with async handlers ([`AsyncSettings`]).
///
/// The result yields rewritten chunks in document order as soon as they
/// are decided: bytes before the first pending slot at once, a slot's
/// content as it arrives (streamed content chunk by chunk), bytes after a
/// slot once it is filled. The input is polled only when its previous
/// item was taken by the rewriter, which stops taking input while the
/// output held after pending slots is at [`Settings::hold_limit`](htrewrite::Settings::hold_limit)
/// (back-pressure: the source is not read further until slots are filled).
/// At the end of input the document ends, every slot's content is awaited,
/// then the stream ends. The output is the same whatever the chunking of
/// the input and of streamed content, and whatever order the futures
/// resolve in (`tests/suite/async_handlers.rs`).
///
/// # Example
/// ```
/// use bytes::Bytes;
/// use htrewrite::{ContentType, Settings};
/// use htrewrite_tokio::{AsyncSettings, Content, Defer};
/// use tokio_stream::StreamExt;
/// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
/// let settings = AsyncSettings::new(Settings::new()).element_async("div.fragment", Defer::InnerContent, |el| {
///     let name = el.get_attribute("data-name")?;
///     Some(async move {
///         // e.g. a sub-response's body, streamed: never collected
///         let body = tokio_stream::iter([Ok::<_, std::io::Error>(Bytes::from("<li>")), Ok(Bytes::from(name + "</li>"))]);
///         Ok(Content::stream(body, ContentType::Html))
///     })
/// });
/// let page = tokio_stream::iter([Ok::<_, std::io::Error>("<ul><div class=fragment data-name=a>…</div>"), Ok("</ul>")]);
/// let mut out = Vec::new();
/// let mut s = htrewrite_tokio::rewrite_stream_async(page, settings)?;
/// while let Some(chunk) = s.next().await {
///     out.extend_from_slice(&chunk?);
/// }
/// assert_eq!(String::from_utf8(out)?, "<ul><div class=fragment data-name=a><li>a</li></div></ul>");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`Rewriter::new`](htrewrite::Rewriter::new) (a selector that does
/// not parse). The stream yields an [`Error`] of kind
/// [`Content`](crate::ErrorKind::Content) or [`Timeout`](crate::ErrorKind::Timeout)
/// for each slot whose content failed (it got the fallback) and goes on;
/// [`Input`](crate::ErrorKind::Input) when the input does, or
/// [`Rewrite`](crate::ErrorKind::Rewrite) when the rewriter fails, and
/// ends after those.
pub fn rewrite_stream_async<'h, S, B, E, K>(
    input: S,
    settings: AsyncSettings<'h, K>,
) -> Result<AsyncRewriteStream<'h, S, K>, RewritingError>
where
    S: Stream<Item = Result<B, E>>,
    B: Into<Bytes>,
    E: Into<Box<dyn std::error::Error + Send + Sync>>,
    K: AsyncKind,
{
    Ok(AsyncRewriteStream { input, driver: AsyncRewriter::new(settings)? })
}

pin_project! {
    /// The stream [`rewrite_stream_async`] returns.
    pub struct AsyncRewriteStream<'h, S, K: AsyncKind> {
        #[pin]
        input: S,
        driver: AsyncRewriter<'h, K>,
    }
}

impl<'h, S, K: AsyncKind> AsyncRewriteStream<'h, S, K> {
    /// The driver (e.g. for [`AsyncRewriter::error`] under
    /// [`OnError::PassThrough`](htrewrite::OnError::PassThrough)).
    ///
    /// # Example
    /// ```
    /// use htrewrite_tokio::AsyncSettings;
    /// let input = tokio_stream::iter([Ok::<_, std::io::Error>("<p>")]);
    /// let s = htrewrite_tokio::rewrite_stream_async(input, AsyncSettings::new(htrewrite::Settings::new()))?;
    /// assert!(s.driver().error().is_none());
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    pub fn driver(&self) -> &AsyncRewriter<'h, K> {
        &self.driver
    }
}

impl<'h, S, B, E, K> Stream for AsyncRewriteStream<'h, S, K>
where
    S: Stream<Item = Result<B, E>>,
    B: Into<Bytes>,
    E: Into<Box<dyn std::error::Error + Send + Sync>>,
    K: AsyncKind,
{
    type Item = Result<Bytes, Error>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let mut this = self.project();
        loop {
            if let Poll::Ready(item) = this.driver.poll_output(cx) {
                return Poll::Ready(item);
            }
            if !this.driver.wants_input() {
                return Poll::Pending;
            }
            match ready!(this.input.as_mut().poll_next(cx)) {
                Some(Ok(chunk)) => this.driver.push_input(chunk.into()),
                Some(Err(e)) => {
                    this.driver.stop();
                    return Poll::Ready(Some(Err(Error::input(e))));
                }
                None => this.driver.end_input(),
            }
        }
    }
}
