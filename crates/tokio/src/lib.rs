//! # htrewrite-tokio
//!
//! Tokio adapters over the synchronous [`htrewrite::Rewriter`]:
//!
//! - [`RewriteWriter`]: an [`AsyncWrite`](tokio::io::AsyncWrite) that
//!   rewrites what is written to it into an inner `AsyncWrite`;
//!   `poll_shutdown` ends the document and flushes.
//! - [`RewriteReader`]: an [`AsyncRead`](tokio::io::AsyncRead) that rewrites
//!   what it reads from an inner `AsyncRead`.
//! - [`rewrite_stream`]: a `Stream<Item = Result<Bytes, E>>` in, a
//!   [`RewriteStream`] of rewritten `Bytes` out.
//! - [`rewrite_stream_async`]: the same with **async handlers**
//!   ([`AsyncSettings::element_async`]): a handler returns a future of
//!   [`Content`] (a string, or a stream of chunks written through as they
//!   arrive) for a slot placed where [`Defer`] says; several futures run at
//!   once, output stays in document order. [`AsyncRewriter`] is the same
//!   machine for input that does not come as a `Stream` (the tower layer's
//!   body).
//!
//! ```
//! use htrewrite::{ContentType, Settings};
//! use tokio::io::AsyncWriteExt;
//! # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
//! let settings = Settings::new().element("head", |el| {
//!     el.append("<script src=\"/x.js\"></script>", ContentType::Html)?;
//!     Ok(())
//! });
//! let mut w = htrewrite_tokio::RewriteWriter::new(settings, Vec::new())?;
//! w.write_all(b"<html><head><title>t</title></head>").await?;
//! w.shutdown().await?;
//! assert_eq!(w.into_inner(), b"<html><head><title>t</title><script src=\"/x.js\"></script></head>");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Backpressure and memory
//! Every adapter holds at most the rewrite of one piece of input (at most
//! [`MAX_PIECE`] bytes, plus content handlers insert for it) besides what
//! the rewriter itself holds (see [`htrewrite::Settings::memory_limit`]):
//! the writer accepts no new input until the previous output went into the
//! inner writer; the reader reads no more until its output was read; the
//! stream polls its input only when its previous item was taken.
//!
//! ## Async handlers
//! Built on the rewriter's deferred content ([`htrewrite::Slot`]): a
//! handler that returns a future leaves a slot; the page goes on streaming
//! up to the first pending slot and is held after it, in order, up to
//! [`Settings::hold_limit`](htrewrite::Settings::hold_limit), past which
//! the source is not polled (back-pressure). At most
//! [`AsyncSettings::concurrency`] futures run at once, started in document
//! order. A future or content stream that fails, content refused where
//! the slot lands, or a [`timeout`](AsyncSettings::timeout): the slot gets
//! the [`fallback`](AsyncSettings::fallback) and the stream yields an
//! [`Error`] of kind [`ErrorKind::Content`] or [`ErrorKind::Timeout`],
//! then goes on. At the end of input every slot is awaited; a slot no
//! future fills is an error, not a hang.
//!
//! Guarantees, with the tests that enforce them:
//! - the output does not depend on the chunking of the page or of
//!   streamed content, nor on the order the futures resolve in
//!   (`tests/suite/async_handlers.rs`, `case::*`: every permutation up to four
//!   futures, seeded random orders beyond; `random::large_pages`: against
//!   the same replacements made at once);
//! - bounded memory: with the first future pending, a 100 MB page is read
//!   at most the hold limit plus one item and one piece, and the peak heap
//!   grows by at most the bound plus two items (`tests/async_memory.rs`,
//!   a counting allocator);
//! - concurrency: 20 fragments of 100 ms each take 100 ms, the bytes
//!   before the first leave at once (`timing::concurrent_fragments`, on
//!   Tokio's paused clock).
//!
//! ## `Send` or not
//! The adapters are `Send` exactly when the rewriter is: with
//! [`Settings<'static, Sendable>`](htrewrite::Sendable) they run on the
//! multi-thread runtime (`tokio::spawn`); with
//! [`Local`](htrewrite::Local) handlers (closures over `Rc`, `RefCell`…)
//! they run on a current-thread runtime or in a
//! [`LocalSet`](https://docs.rs/tokio/1/tokio/task/struct.LocalSet.html) (`tests/suite/runtimes.rs` runs both).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod async_stream;
mod content;
mod driver;
mod error;
mod handlers;
mod reader;
mod sink;
mod stream;
mod writer;

pub use async_stream::{AsyncRewriteStream, rewrite_stream_async};
pub use content::{BoxError, Content, Defer};
pub use driver::AsyncRewriter;
pub use error::{Error, ErrorKind};
#[doc(hidden)]
pub use handlers::Jobs;
pub use handlers::{AsyncHandler, AsyncKind, AsyncSettings, DEFAULT_CONCURRENCY};
pub use reader::RewriteReader;
pub use sink::BytesSink;
pub use stream::{RewriteStream, rewrite_stream};
pub use writer::RewriteWriter;

/// The most input handed to the rewriter at once: larger writes, reads and
/// stream items are cut into pieces of this size, which bounds the output
/// held between polls.
pub const MAX_PIECE: usize = 64 * 1024;
