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
//! ## `Send` or not
//! The adapters are `Send` exactly when the rewriter is: with
//! [`Settings<'static, Sendable>`](htrewrite::Sendable) they run on the
//! multi-thread runtime (`tokio::spawn`); with
//! [`Local`](htrewrite::Local) handlers (closures over `Rc`, `RefCell`…)
//! they run on a current-thread runtime or in a
//! [`LocalSet`](https://docs.rs/tokio/1/tokio/task/struct.LocalSet.html) (`tests/runtimes.rs` runs both).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod error;
mod reader;
mod sink;
mod stream;
mod writer;

pub use error::{Error, ErrorKind};
pub use reader::RewriteReader;
pub use sink::BytesSink;
pub use stream::{RewriteStream, rewrite_stream};
pub use writer::RewriteWriter;

/// The most input handed to the rewriter at once: larger writes, reads and
/// stream items are cut into pieces of this size, which bounds the output
/// held between polls.
pub const MAX_PIECE: usize = 64 * 1024;
