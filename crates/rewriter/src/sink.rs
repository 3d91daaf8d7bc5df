//! [`OutputSink`]: where rewritten bytes go.

use std::io;

/// Receives the rewritten document, chunk by chunk, in order.
///
/// `Ok(())` means the chunk was taken and the rewriter goes on; an error
/// stops the rewrite: the call that produced the chunk returns
/// [`RewritingError::Output`](crate::RewritingError::Output) and the
/// rewriter accepts no more input. Implemented for every `FnMut(&[u8])`
/// closure (which cannot fail) and by [`IoSink`] for any [`io::Write`].
///
/// # Example
/// ```
/// use htrewrite::{OutputSink, Rewriter, Settings};
/// struct Count(usize);
/// impl OutputSink for Count {
///     fn write(&mut self, chunk: &[u8]) -> std::io::Result<()> {
///         self.0 += chunk.len();
///         Ok(())
///     }
/// }
/// let mut rw = Rewriter::new(Settings::new(), Count(0))?;
/// rw.write(b"<p>hello")?;
/// assert_eq!(rw.end()?.0, 8);
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
pub trait OutputSink {
    /// Takes one chunk of output (never empty).
    ///
    /// # Errors
    /// Any I/O error; it ends the rewrite.
    fn write(&mut self, chunk: &[u8]) -> io::Result<()>;

    /// Takes one chunk of output the rewriter owns and will not use again
    /// (never empty): the same bytes, in the same place in the output, as
    /// [`OutputSink::write`] would take them. The rewriter hands over output
    /// it held this way (the output after a pending slot, written through
    /// when the slot is decided), so a sink that keeps what it takes can
    /// keep the buffer itself instead of a copy: the held bytes are then not
    /// in memory twice. By default, [`OutputSink::write`] of the chunk.
    ///
    /// # Errors
    /// As [`OutputSink::write`]: any I/O error; it ends the rewrite.
    ///
    /// # Example
    /// ```
    /// use htrewrite::OutputSink;
    /// struct Keep(Vec<Vec<u8>>);
    /// impl OutputSink for Keep {
    ///     fn write(&mut self, chunk: &[u8]) -> std::io::Result<()> {
    ///         self.0.push(chunk.to_vec());
    ///         Ok(())
    ///     }
    ///     fn write_owned(&mut self, chunk: Vec<u8>) -> std::io::Result<()> {
    ///         self.0.push(chunk);
    ///         Ok(())
    ///     }
    /// }
    /// let mut keep = Keep(Vec::new());
    /// keep.write(b"<p>")?;
    /// keep.write_owned(b"held".to_vec())?;
    /// assert_eq!(keep.0.concat(), b"<p>held");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    fn write_owned(&mut self, chunk: Vec<u8>) -> io::Result<()> {
        self.write(&chunk)
    }
}

impl<F: FnMut(&[u8])> OutputSink for F {
    fn write(&mut self, chunk: &[u8]) -> io::Result<()> {
        self(chunk);
        Ok(())
    }
}

/// An [`OutputSink`] writing into any [`io::Write`].
///
/// # Example
/// ```
/// use htrewrite::{IoSink, Rewriter, Settings};
/// let mut rw = Rewriter::new(Settings::new(), IoSink(Vec::new()))?;
/// rw.write(b"<p>x")?;
/// assert_eq!(rw.end()?.0, b"<p>x");
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
#[derive(Debug)]
pub struct IoSink<W>(pub W);

impl<W: io::Write> OutputSink for IoSink<W> {
    fn write(&mut self, chunk: &[u8]) -> io::Result<()> {
        self.0.write_all(chunk)
    }
}
