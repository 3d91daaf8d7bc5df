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

    /// Keeps `chunk`'s buffer itself, with the bytes waiting before it moved
    /// to its front, when fewer bytes wait than it holds (the output held
    /// after a pending slot, handed over when the slot is decided, after
    /// the slot's content: not in memory twice); else [`OutputSink::write`].
    fn write_owned(&mut self, mut chunk: Vec<u8>) -> std::io::Result<()> {
        if chunk.len() < self.buf.len() {
            return self.write(&chunk);
        }
        chunk.splice(..0, self.buf.iter().copied());
        // No copy: a `Bytes` made from a `Vec` keeps its buffer, and a
        // `BytesMut` made from a `Bytes` that is its buffer's only owner.
        self.buf = BytesMut::from(Bytes::from(chunk));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `write_owned` into an empty sink keeps the buffer (the bytes taken
    /// are at the `Vec`'s address); after shorter output it keeps the
    /// buffer with that output moved in front, after longer output it
    /// appends a copy; either way the bytes are those `write` would have
    /// collected.
    #[test]
    fn write_owned_keeps_the_buffer_when_nothing_waits() {
        let mut sink = BytesSink::default();
        let held = b"<p>held output".repeat(100);
        let owned = held.clone();
        let at = owned.as_ptr();
        sink.write_owned(owned).expect("no error");
        let taken = sink.take();
        assert_eq!(taken, held);
        assert_eq!(taken.as_ptr(), at, "the buffer was copied");
        sink.write(b"<b>").expect("no error");
        sink.write_owned(held.clone()).expect("no error");
        sink.write_owned(b"</b>".to_vec()).expect("no error");
        sink.write(b"<i>").expect("no error");
        assert_eq!(sink.take(), [&b"<b>"[..], &held, b"</b><i>"].concat());
        assert!(sink.is_empty());
    }
}
