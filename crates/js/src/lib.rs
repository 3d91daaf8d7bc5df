//! # htrewrite-js
//!
//! htrewrite for JavaScript: the Rust half of the npm-style package in
//! `crates/js` (an ES module with `.d.ts`, for browsers, Node ≥ 18, Deno and
//! Workers-like runtimes). Built for `wasm32-unknown-unknown` and bound with
//! `wasm-bindgen`; `index.js` beside this crate wraps these exports into
//! Cloudflare's `HTMLRewriter` API (`on`, `onDocument`, `transform`) and a
//! low-level `StreamRewriter` (`write` / `end` with an output callback).
//! See `crates/js/README.md` for the JavaScript API and its differences from
//! Workers'.
//!
//! ## How a JavaScript handler edits a Rust node
//! [`RawRewriter`] registers one Rust closure per JavaScript handler. When
//! the core calls it with `&mut Element` (or a text chunk, comment, …), the
//! closure publishes the node under a fresh token (`live.rs`) and calls the
//! JavaScript dispatcher with the handler's index and the token; the
//! JavaScript `Element` object built there calls this crate's exported
//! functions (`elementSetAttribute(token, …)`), which reach the node through
//! the token while the handler runs, and throw "this Element is no longer
//! valid" after. So every read sees earlier edits, and every refused edit
//! throws at the call, as the core's own methods decide.
//!
//! ## Why this crate allows `unsafe`
//! The workspace forbids `unsafe_code`. This crate denies it, and allows it
//! in `live.rs` alone: a node borrowed for one handler call must be
//! reachable from JavaScript → Rust calls made during that call, which
//! safe Rust cannot express (the borrow is not `'static`). `live.rs` keeps a
//! raw pointer in a thread-local slot only while the call runs and checks a
//! token on every use; its `SAFETY` comment gives the argument. The
//! `wasm-bindgen` macro's own expansion needs no `allow`.
//!
//! ## Guarantees
//! Those of `htrewrite` (lossless, chunking-independent, context-safe text),
//! through JavaScript: `crates/js/test/*.test.mjs` (`node --test`) checks the
//! corpus round trip through `transform()`, outputs split at every byte
//! and at seeded random points, every API method, and handler errors.

mod handlers;
mod live;
mod nodes;
mod rewriter;

pub use rewriter::{CompiledSelectors, RawRewriter, is_encoding_label, validate_selector};
