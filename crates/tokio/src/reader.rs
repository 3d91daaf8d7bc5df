//! [`RewriteReader`]: an `AsyncRead` that rewrites what it reads.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use bytes::{Buf, Bytes};
use htrewrite::{HandlerKind, Local, Rewriter, RewritingError, Settings};
use pin_project_lite::pin_project;
use tokio::io::{AsyncRead, ReadBuf};

use crate::BytesSink;
use crate::error::io;

/// Input read from the inner reader at once.
const READ_SIZE: usize = 16 * 1024;

pin_project! {
    /// An [`AsyncRead`] that yields the rewrite of the HTML read from `R`.
    ///
    /// It reads at most 16 KiB from `R` at a time, and only when the output
    /// of the previous read has been read: at most one read's output is held.
    /// At the end of `R` it ends the document ([`Rewriter::end`]) and yields
    /// the rest.
    ///
    /// # Example
    /// ```
    /// use htrewrite::Settings;
    /// use tokio::io::AsyncReadExt;
    /// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
    /// let settings = Settings::new().element("img", |el| { el.set_attribute("loading", "lazy")?; Ok(()) });
    /// let mut r = htrewrite_tokio::RewriteReader::new(settings, &b"<img src=a.png>"[..])?;
    /// let mut out = String::new();
    /// r.read_to_string(&mut out).await?;
    /// assert_eq!(out, "<img src=a.png loading=\"lazy\">");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// A rewriting failure (under [`OnError::Stop`](htrewrite::OnError::Stop))
    /// is an [`io::Error`] of kind `Other` whose inner error is a
    /// [`crate::Error`]; errors of `R` are returned as they are.
    pub struct RewriteReader<'h, R, K: HandlerKind = Local> {
        #[pin]
        inner: R,
        rewriter: Option<Rewriter<'h, BytesSink, K>>,
        pending: Bytes,
        input: Box<[u8]>,
    }
}

impl<'h, R: AsyncRead, K: HandlerKind> RewriteReader<'h, R, K> {
    /// A reader rewriting what it reads from `inner` with `settings`.
    ///
    /// # Errors
    /// As [`Rewriter::new`] (a selector that does not parse).
    pub fn new(settings: Settings<'h, K>, inner: R) -> Result<Self, RewritingError> {
        Ok(RewriteReader {
            inner,
            rewriter: Some(Rewriter::new(settings, BytesSink::default())?),
            pending: Bytes::new(),
            input: vec![0; READ_SIZE].into_boxed_slice(),
        })
    }

    /// The rewriter, until the end of input (e.g. for [`Rewriter::error`]).
    pub fn rewriter(&self) -> Option<&Rewriter<'h, BytesSink, K>> {
        self.rewriter.as_ref()
    }

    /// The inner reader.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The inner reader.
    pub fn into_inner(self) -> R {
        self.inner
    }
}

impl<'h, R: AsyncRead, K: HandlerKind> AsyncRead for RewriteReader<'h, R, K> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let mut this = self.project();
        if buf.remaining() == 0 {
            return Poll::Ready(Ok(()));
        }
        loop {
            if !this.pending.is_empty() {
                let n = buf.remaining().min(this.pending.len());
                buf.put_slice(&this.pending[..n]);
                this.pending.advance(n);
                return Poll::Ready(Ok(()));
            }
            let Some(rw) = this.rewriter.as_mut() else { return Poll::Ready(Ok(())) };
            let mut read = ReadBuf::new(this.input);
            ready!(this.inner.as_mut().poll_read(cx, &mut read))?;
            if read.filled().is_empty() {
                let rw = this.rewriter.take().expect("checked above");
                *this.pending = rw.end().map_err(io)?.take();
                continue;
            }
            rw.write(read.filled()).map_err(io)?;
            *this.pending = rw.sink_mut().take();
        }
    }
}
