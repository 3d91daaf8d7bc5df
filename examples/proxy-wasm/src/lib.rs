//! # htrewrite-proxy-wasm
//!
//! htrewrite as a [proxy-wasm](https://github.com/proxy-wasm/spec) filter (ABI 0.2.1, the
//! `proxy-wasm` crate) for Envoy, Istio and GCP service extensions, built for
//! `wasm32-wasip1`: it rewrites `text/html` response bodies as they stream, with the rules
//! given as plugin configuration.
//!
//! ```sh
//! cargo build --release --target wasm32-wasip1 -p htrewrite-proxy-wasm   # target/wasm32-wasip1/release/htrewrite_proxy_wasm.wasm
//! python3 examples/proxy-wasm/check.py target/wasm32-wasip1/release/htrewrite_proxy_wasm.wasm target/debug/htrewrite
//! ```
//!
//! ## Configuration
//! The plugin configuration is a rules file ([`htrewrite_rules`], version 1), the same the
//! `htrewrite --rules` command reads: `[[rule]]` tables, `[namespaces]`, and `inject-head`,
//! HTML appended at the end of `<head>` (one more `append` rule on `head`, after the others):
//!
//! ```toml
//! version = 1
//! inject-head = "<script src=\"/rum.js\" async></script>"
//!
//! [[rule]]
//! selector = "img:not([loading])"
//! action = "set-attr"
//! name = "loading"
//! value = "lazy"
//! ```
//!
//! An empty configuration, or one without rules, is a pass-through: every response is left
//! alone, byte for byte. A configuration that is not UTF-8 or not a valid rules file fails
//! `proxy_on_configure` (returns false) and logs the [`Error`], with line and column.
//!
//! ## Per response
//! [`plan`] decides from the headers, as the tower layer does (its `Predicate` and
//! `fix_headers`): `text/html` only; not `HEAD` (which gets the headers a `GET` would), 1xx,
//! 204, 304, 206, `Content-Range`, `Cache-Control: no-transform`, nor a `Content-Encoding`
//! other than `identity` (compressed bodies are left alone: put Envoy's decompressor filter
//! before this one to rewrite them); also not a response that announces trailers. A rewritten
//! response loses `Content-Length`, `Accept-Ranges` and the digest headers, and a strong `ETag`
//! becomes weak.
//!
//! The body is rewritten chunk by chunk in `on_http_response_body` ([`BodyRewriter`]): each
//! chunk's output replaces the chunk (`set_http_response_body`), so what the rewriter
//! releases goes on at once; at the end of the stream the rewriter is ended and its tail
//! follows the last chunk's output. A failure (a refused edit, the memory limit of 64 MiB per
//! response) is logged through `proxy_log` and the rest of the body passes through unchanged:
//! nothing received is lost.
//!
//! ## Guarantees and tests
//! The output is the library's for the same rules whatever the chunking: `body::tests`
//! rewrites the sample page at every chunk size natively; `examples/proxy-wasm/check.py`
//! loads the `.wasm` into a proxy-wasm host written on wasmtime (`host.py`) and compares the
//! filter's output with the native `htrewrite --rules` command's, chunk sizes from 1 byte to
//! whole, on the sample page and corpus pages.
//!
//! ## Unsafe code
//! `#![forbid(unsafe_code)]` holds for this crate's code, as everywhere in the workspace. The
//! ABI's raw side lives in the `proxy-wasm` crate: its `main!` macro, expanded here (wasm32
//! only), defines the `_initialize` export the host calls first (a `#[no_mangle]` function
//! with an `unsafe` call of `__wasm_call_ctors`); rustc does not apply `unsafe_code` to
//! macros of other crates, so no exception is needed here.
#![forbid(unsafe_code)]

mod body;
mod config;
mod error;
#[cfg(target_arch = "wasm32")]
mod filter;
mod response;

pub use body::{BodyRewriter, FALLBACK_ENCODING, MEMORY_LIMIT, Output};
pub use config::Config;
pub use error::{Error, ErrorKind};
pub use response::{HeaderEdit, Leave, Plan, plan};
