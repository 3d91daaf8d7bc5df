//! [`rewrite_stream`]: a stream of byte chunks in, a stream of rewritten chunks out.

use std::pin::Pin;
use std::task::{Context, Poll, ready};

use bytes::Bytes;
use futures_core::Stream;
use htrewrite::{HandlerKind, Rewriter, RewritingError, Settings};
use pin_project_lite::pin_project;

use crate::{BytesSink, Error, MAX_PIECE};

/// Rewrites a stream of chunks of HTML with `settings`.
///
/// The result yields rewritten chunks as the rewriter produces them
/// (a chunk whose output the rewriter holds back yields nothing yet), then
/// the rest at the end of input. Items larger than [`MAX_PIECE`] are fed in
/// pieces, one piece per item yielded, so that output is produced only as it
/// is taken.
///
/// # Example
/// ```
/// use bytes::Bytes;
/// use htrewrite::Settings;
/// use tokio_stream::StreamExt;
/// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
/// let input = tokio_stream::iter([Ok::<_, std::io::Error>(Bytes::from("<a href=")), Ok(Bytes::from("x>y</a>"))]);
/// let settings = Settings::new().element("a", |el| { el.remove_attribute("href")?; Ok(()) });
/// let mut out = Vec::new();
/// let mut s = htrewrite_tokio::rewrite_stream(input, settings)?;
/// while let Some(chunk) = s.next().await {
///     out.extend_from_slice(&chunk?);
/// }
/// assert_eq!(out, b"<a>y</a>");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`Rewriter::new`] (a selector that does not parse). The stream yields
/// an [`Error`] of kind [`Input`](crate::ErrorKind::Input) when the input
/// does, or [`Rewrite`](crate::ErrorKind::Rewrite) when the rewriter fails,
/// and ends after it.
pub fn rewrite_stream<'h, S, B, E, K>(
    input: S,
    settings: Settings<'h, K>,
) -> Result<RewriteStream<'h, S, K>, RewritingError>
where
    S: Stream<Item = Result<B, E>>,
    B: Into<Bytes>,
    E: Into<Box<dyn std::error::Error + Send + Sync>>,
    K: HandlerKind,
{
    Ok(RewriteStream { input, rewriter: Some(Rewriter::new(settings, BytesSink::default())?), current: Bytes::new() })
}

pin_project! {
    /// The stream [`rewrite_stream`] returns.
    pub struct RewriteStream<'h, S, K: HandlerKind> {
        #[pin]
        input: S,
        rewriter: Option<Rewriter<'h, BytesSink, K>>,
        current: Bytes,
    }
}

impl<'h, S, K: HandlerKind> RewriteStream<'h, S, K> {
    /// The rewriter, until the end of input or an error (e.g. for
    /// [`Rewriter::error`] under [`OnError::PassThrough`](htrewrite::OnError::PassThrough)).
    pub fn rewriter(&self) -> Option<&Rewriter<'h, BytesSink, K>> {
        self.rewriter.as_ref()
    }
}

impl<'h, S, B, E, K> Stream for RewriteStream<'h, S, K>
where
    S: Stream<Item = Result<B, E>>,
    B: Into<Bytes>,
    E: Into<Box<dyn std::error::Error + Send + Sync>>,
    K: HandlerKind,
{
    type Item = Result<Bytes, Error>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let mut this = self.project();
        loop {
            let Some(rw) = this.rewriter.as_mut() else { return Poll::Ready(None) };
            if !this.current.is_empty() {
                let piece = this.current.split_to(this.current.len().min(MAX_PIECE));
                if let Err(e) = rw.write(&piece) {
                    *this.rewriter = None;
                    return Poll::Ready(Some(Err(Error::rewrite(e))));
                }
                let out = rw.sink_mut().take();
                if !out.is_empty() {
                    return Poll::Ready(Some(Ok(out)));
                }
                continue;
            }
            match ready!(this.input.as_mut().poll_next(cx)) {
                Some(Ok(chunk)) => *this.current = chunk.into(),
                Some(Err(e)) => {
                    *this.rewriter = None;
                    return Poll::Ready(Some(Err(Error::input(e))));
                }
                None => {
                    let rw = this.rewriter.take().expect("checked above");
                    return match rw.end() {
                        Ok(sink) if sink.is_empty() => Poll::Ready(None),
                        Ok(mut sink) => Poll::Ready(Some(Ok(sink.take()))),
                        Err(e) => Poll::Ready(Some(Err(Error::rewrite(e)))),
                    };
                }
            }
        }
    }
}
