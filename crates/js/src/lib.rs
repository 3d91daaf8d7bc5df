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
//! closure calls the JavaScript dispatcher with the handler's index, the
//! node's kind and a JavaScript function `op` that borrows the node: a
//! wasm-bindgen `ScopedClosure`, valid only while the call runs. The
//! JavaScript `Element` object built there turns each method into one `op`
//! call (`op(SET_ATTRIBUTE, name, value)`, `nodes.rs`), and after the
//! handler returns it throws "this Element is no longer valid". So every
//! read sees earlier edits, every refused edit throws at the call, as the
//! core's own methods decide, and the crate needs no `unsafe` code: the
//! borrow checker ties the closure to the node's borrow.
//!
//! An element handler that returns a Promise (an `async` handler) gets, before
//! its call ends, slots for the edits to come (`Op::Defer`, `nodes.rs`);
//! `index.js` records what the handler does to the element after its
//! `await`s and, when the Promise settles, fills the slots through
//! [`RawRewriter`]'s `fillSlot` / `cancelSlot`: the core holds the output
//! after the first pending slot meanwhile, and parsing goes on.
//!
//! ## Guarantees
//! Those of `htrewrite` (lossless, chunking-independent, context-safe text),
//! through JavaScript: `crates/js/test/*.test.mjs` (`node --test`) checks the
//! corpus round trip through `transform()`, outputs split at every byte
//! and at seeded random points, every API method, and handler errors.

#![forbid(unsafe_code)]

/// Defines an enum whose variants `index.js` passes as the numbers 0, 1, …
/// in declaration order, with `from_u32` to read one.
macro_rules! numbered {
    ($(#[$meta:meta])* enum $name:ident { $($(#[$vmeta:meta])* $variant:ident,)+ }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub(crate) enum $name { $($(#[$vmeta])* $variant,)+ }

        impl $name {
            /// The variant numbered `n`.
            pub(crate) fn from_u32(n: u32) -> Option<$name> {
                [$($name::$variant),+].get(n as usize).copied()
            }
        }
    };
}

mod handlers;
mod nodes;
mod rewriter;

pub use rewriter::{CompiledSelectors, RawRewriter, is_encoding_label, validate_selector};
