//! [`BytesSink`]: rewritten output collected into a `BytesMut`, drained by the adapters.

use bytes::{Bytes, BytesMut};
use htrewrite::OutputSink;

/// An [`OutputSink`] that collects output in a [`BytesMut`] until taken.
///
/// Drain it between writes through [`Rewriter::sink_mut`](htrewrite::Rewriter::sink_mut).
///
/// # Example
/// ```
/// use htrewrite::{Rewriter, Settings};
/// use htrewrite_tokio::BytesSink;
/// let mut rw = Rewriter::new(Settings::new(), BytesSink::default())?;
/// rw.write(b"<p>a")?;
/// assert_eq!(&rw.sink_mut().take()[..], b"<p>a");
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
#[derive(Debug, Default)]
pub struct BytesSink {
    buf: BytesMut,
}

impl BytesSink {
    /// Takes everything collected so far (empty when nothing is).
    pub fn take(&mut self) -> Bytes {
        self.buf.split().freeze()
    }

    /// Bytes collected and not taken yet.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Whether nothing is waiting.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }
}

impl OutputSink for BytesSink {
    fn write(&mut self, chunk: &[u8]) -> std::io::Result<()> {
        self.buf.extend_from_slice(chunk);
        Ok(())
    }
}
