//! [`RewriteWriter`]: an `AsyncWrite` that rewrites into an inner `AsyncWrite`.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use bytes::{Buf, Bytes};
use htrewrite::{HandlerKind, Local, Rewriter, RewritingError, Settings};
use pin_project_lite::pin_project;
use tokio::io::AsyncWrite;

use crate::error::io;
use crate::{BytesSink, MAX_PIECE};

pin_project! {
    /// An [`AsyncWrite`] that rewrites the HTML written to it into `W`.
    ///
    /// Each `poll_write` first pushes the output of the previous write into
    /// `W` (returning `Pending` while `W` does), then rewrites at most
    /// [`MAX_PIECE`] bytes of the new buffer: so at most one piece's output
    /// is held. `poll_flush` pushes held output and flushes `W`;
    /// `poll_shutdown` ends the document ([`Rewriter::end`]), writes the rest
    /// and shuts `W` down. Writing after shutdown is an error.
    ///
    /// # Example
    /// ```
    /// use htrewrite::Settings;
    /// use tokio::io::AsyncWriteExt;
    /// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
    /// let settings = Settings::new().element("b", |el| { el.set_tag_name("strong")?; Ok(()) });
    /// let mut w = htrewrite_tokio::RewriteWriter::new(settings, Vec::new())?;
    /// w.write_all(b"<b>bold</b>").await?;
    /// w.shutdown().await?;
    /// assert_eq!(w.into_inner(), b"<strong>bold</strong>");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// A rewriting failure (under [`OnError::Stop`](htrewrite::OnError::Stop))
    /// is an [`io::Error`] of kind `Other` whose inner error is a
    /// [`crate::Error`]; errors of `W` are returned as they are.
    pub struct RewriteWriter<'h, W, K: HandlerKind = Local> {
        #[pin]
        inner: W,
        rewriter: Option<Rewriter<'h, BytesSink, K>>,
        pending: Bytes,
    }
}

impl<'h, W: AsyncWrite, K: HandlerKind> RewriteWriter<'h, W, K> {
    /// A writer rewriting with `settings` into `inner`.
    ///
    /// # Errors
    /// As [`Rewriter::new`] (a selector that does not parse).
    pub fn new(settings: Settings<'h, K>, inner: W) -> Result<Self, RewritingError> {
        Ok(RewriteWriter {
            inner,
            rewriter: Some(Rewriter::new(settings, BytesSink::default())?),
            pending: Bytes::new(),
        })
    }

    /// The rewriter, until shutdown (e.g. for [`Rewriter::error`] under
    /// [`OnError::PassThrough`](htrewrite::OnError::PassThrough)).
    pub fn rewriter(&self) -> Option<&Rewriter<'h, BytesSink, K>> {
        self.rewriter.as_ref()
    }

    /// The inner writer.
    pub fn get_ref(&self) -> &W {
        &self.inner
    }

    /// The inner writer, mutably (writing to it directly bypasses the rewrite).
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.inner
    }

    /// The inner writer; output not yet written to it is lost (shut down first).
    pub fn into_inner(self) -> W {
        self.inner
    }
}

/// Writes all of `pending` into `inner`.
fn drain<W: AsyncWrite>(mut inner: Pin<&mut W>, pending: &mut Bytes, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
    while !pending.is_empty() {
        let n = ready!(inner.as_mut().poll_write(cx, pending))?;
        if n == 0 {
            return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
        }
        pending.advance(n);
    }
    Poll::Ready(Ok(()))
}

impl<'h, W: AsyncWrite, K: HandlerKind> AsyncWrite for RewriteWriter<'h, W, K> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.project();
        ready!(drain(this.inner, this.pending, cx))?;
        let Some(rw) = this.rewriter.as_mut() else {
            return Poll::Ready(Err(io::Error::new(io::ErrorKind::BrokenPipe, "write after shutdown")));
        };
        let n = buf.len().min(MAX_PIECE);
        rw.write(&buf[..n]).map_err(io)?;
        *this.pending = rw.sink_mut().take();
        Poll::Ready(Ok(n))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let mut this = self.project();
        ready!(drain(this.inner.as_mut(), this.pending, cx))?;
        this.inner.poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let mut this = self.project();
        ready!(drain(this.inner.as_mut(), this.pending, cx))?;
        if let Some(rw) = this.rewriter.take() {
            *this.pending = rw.end().map_err(io)?.take();
            ready!(drain(this.inner.as_mut(), this.pending, cx))?;
        }
        this.inner.poll_shutdown(cx)
    }
}
