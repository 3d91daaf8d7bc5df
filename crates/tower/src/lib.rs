//! # htrewrite-tower
//!
//! [Tower](https://docs.rs/tower) middleware that rewrites HTML responses in
//! flight with [`htrewrite`], over [`http-body`](http_body) 1.x: usable with
//! hyper 1, hyper-util (client and server) and axum 0.8.
//!
//! - [`HtmlRewriteLayer`] wraps a service in [`HtmlRewrite`]; a factory
//!   builds one rewriter's [`Settings`](htrewrite::Settings) per response from
//!   the request and response parts (so rules can depend on the path, on
//!   headers, on a CSP nonce in the extensions), or `None` to leave the
//!   response alone.
//! - [`HtmlRewriteBody`] streams frame by frame: each data frame is rewritten
//!   as it arrives, never collected; trailers go out after the rewriter's
//!   last output.
//!
//! ```
//! use htrewrite::{ContentType, Settings};
//! use htrewrite_tower::HtmlRewriteLayer;
//! let layer = HtmlRewriteLayer::new(|_req: &http::request::Parts, _res: &http::response::Parts| {
//!     Some(Settings::new_send().element("head", |el| {
//!         el.append("<script src=\"/banner.js\"></script>", ContentType::Html)?;
//!         Ok(())
//!     }))
//! });
//! # let _ = layer;
//! ```
//!
//! ## Async handlers
//! [`HtmlRewriteLayer::new_async`] takes a factory of
//! [`AsyncSettings`](htrewrite_tokio::AsyncSettings) instead of `Settings`: handlers whose content comes from a future (a
//! sub-request, a cache), several at once, each streamed into the body in
//! document order while the page goes on (the bytes before the first
//! pending fragment leave at once; those after it wait, up to the hold
//! limit, past which the inner body is not polled). The body ends after
//! the last fragment. A fragment that fails or times out gets its slot's
//! fallback and goes through the [`ErrorPolicy`] (counted in
//! [`Stats::content_failed`]); see [`HtmlRewriteLayer::new_async`] for
//! an example and `tests/suite/async_handlers.rs`.
//!
//! ## When a response is rewritten
//! Only when it is safe ([`Predicate`]): `Content-Type` `text/html` (and
//! `application/xhtml+xml` when [`HtmlRewriteLayer::xhtml`] is on); not a
//! response to `HEAD`; not 1xx, 204 or 304; not 206 nor any response with
//! `Content-Range`; no `Cache-Control: no-transform`; `Content-Encoding`
//! absent or `identity`. The charset parameter of `Content-Type` is the
//! transport encoding given to
//! [`Settings::sniff_encoding`](htrewrite::Settings::sniff_encoding) (BOM,
//! then it, then `<meta charset>`, then the fallback, `windows-1252` by
//! default, as browsers do). Without a charset parameter the rewriter holds
//! back up to the first 1024 bytes for the `<meta>` prescan (as a browser
//! does), so a page that stalls before 1024 bytes shows nothing until it
//! goes on; send a charset to stream from the first byte.
//!
//! A `HEAD` response is never rewritten (it has no body), but when a `GET`
//! of the same response would be, it gets the headers the `GET` would get
//! (RFC 9110, 9.3.2), as below: no upstream `Content-Length` that the
//! rewritten `GET` would contradict.
//!
//! When rewriting, the headers that describe the exact bytes go:
//! `Content-Length`, `Accept-Ranges`, digest headers (`Digest`,
//! `Content-Digest`, `Repr-Digest`, `Content-MD5`); a strong `ETag` becomes
//! weak (or is dropped, [`EtagPolicy`]). `Transfer-Encoding` is never set
//! here: the server picks the framing.
//!
//! Partial responses (206) are left alone, so a client that sends `Range`
//! through a proxy gets the upstream's bytes unrewritten (an injected
//! script missing, a removed one present), and a resumed download splices
//! rewritten and raw bytes. A proxy whose responses may be rewritten should
//! drop `Range` and `If-Range` from requests before they reach the upstream
//! and answer with the whole rewritten response (RFC 9110 lets a server
//! ignore `Range`), as the reverse-proxy example does.
//!
//! ## Limits
//! Each response's rewriter holds at most [`DEFAULT_MEMORY_LIMIT`] (64 MiB)
//! unless [`HtmlRewriteLayer::memory_limit`] says otherwise (`0`: none);
//! past it the [`ErrorPolicy`] applies (by default the rest of the body
//! passes through unchanged). A response rewritten only by rules on `head`
//! is copied without being parsed once its head ended
//! ([`Rewriter::copying`](htrewrite::Rewriter::copying)).
//!
//! ## Compressed upstreams: decompress → rewrite → compress
//! The layer leaves encoded bodies alone. To rewrite a gzip/brotli upstream,
//! put tower-http's `DecompressionLayer` inside (nearer the upstream) and
//! `CompressionLayer` outside:
//!
//! ```
//! # use htrewrite::Settings;
//! # use htrewrite_tower::HtmlRewriteLayer;
//! # let factory = |_: &http::request::Parts, _: &http::response::Parts| Some(Settings::new_send());
//! # let upstream_client = tower::service_fn(|_: http::Request<()>| async {
//! #     Ok::<_, std::convert::Infallible>(http::Response::new(http_body_util::Full::new(bytes::Bytes::new())))
//! # });
//! let service = tower::ServiceBuilder::new()
//!     .layer(tower_http::compression::CompressionLayer::new())      // 3. compress for the client
//!     .layer(HtmlRewriteLayer::new(factory))                        // 2. rewrite identity HTML
//!     .layer(tower_http::decompression::DecompressionLayer::new())  // 1. decode the upstream's gzip
//!     .service(upstream_client);
//! # let _ = service;
//! ```
//! (`tests/suite/loopback.rs`, `gzip_upstream_decompress_rewrite_compress`, runs
//! exactly this against a gzip upstream.)
//!
//! ## Errors after the headers are sent
//! A handler error, the memory limit, or an encoding that cannot be
//! rewritten happens after the status and headers went out. The
//! [`ErrorPolicy`] decides: [`PassThrough`](ErrorPolicy::PassThrough) (the
//! default) sends the rest of the body unchanged; [`Abort`](ErrorPolicy::Abort)
//! ends the body with an error (the server resets the stream or closes the
//! connection, so the client sees a truncated response). Both are counted in
//! [`Stats`] and logged with `tracing` (`warn` and `error`), once per
//! response, also when the failure surfaces only at the end of the document
//! (a document-end handler, or a short page held whole for the `<meta>`
//! prescan): the body ends through
//! [`Rewriter::end_with_error`](htrewrite::Rewriter::end_with_error).
//! An async handler's content that fails or times out is not a failure of
//! the rewrite: under `PassThrough` its slot gets the fallback and the
//! rest is rewritten; under `Abort` the body ends with an [`Error`] of
//! kind [`ErrorKind::Content`].
//!
//! An error of the inner body (the upstream closed mid-body, bad chunked
//! framing) ends the body with an [`Error`] of kind [`ErrorKind::Body`]. The
//! layer sets no timeouts: a stalled upstream stalls the body (output
//! already rewritten is sent first). Bound it around the service and the
//! inner body, as the reverse proxy example does (`--upstream-timeout`: a
//! 504 before the head; after it `htrewrite_examples::timeout::IdleTimeout`
//! fails the inner body, so the response is truncated).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod body;
mod error;
mod future;
mod layer;
mod predicate;
mod service;

pub use body::HtmlRewriteBody;
pub use error::{Error, ErrorKind};
pub use future::ResponseFuture;
pub use layer::{AsyncFactory, DEFAULT_MEMORY_LIMIT, ErrorPolicy, EtagPolicy, HtmlRewriteLayer, MakeSettings, Stats};
pub use predicate::{Predicate, Skip, fix_headers};
pub use service::HtmlRewrite;
