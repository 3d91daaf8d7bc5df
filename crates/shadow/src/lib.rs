//! The HTML Standard's [tree construction](https://html.spec.whatwg.org/multipage/parsing.html#tree-construction)
//! on a stack, without a DOM.
//!
//! # Overview
//! `htrewrite-tokenizer` turns bytes into tokens; this crate's [`Shadow`]
//! runs the tree construction stage of the current HTML Living Standard on
//! them, token by token, keeping only the state the algorithm needs: the
//! [insertion mode](InsertionMode) (and the original and template insertion
//! modes), the stack of open elements ([`Shadow::open_elements`]), the list
//! of active formatting elements (with markers and the Noah's Ark clause), the
//! head and form element pointers, frameset-ok, quirks mode and the scripting
//! flag, and the fragment context. It answers the tokenizer with
//! [`Feedback`] (the next text mode after a start tag) and, when the
//! tokenizer reads `<![CDATA[`, with [`Shadow::cdata_allowed`], and reports every change the Standard makes to the
//! document as an [`Event`]: applied literally, the events rebuild exactly the
//! Standard's tree (foster parenting, template contents, the adoption agency's
//! moves included). [`ShadowSink`] plugs a shadow into the tokenizer.
//!
//! The Standard followed is the newest: `<select>` parsing as relaxed in 2025
//! (no "in select" insertion modes; `select` bounds the default scope),
//! processing instructions (2026) inserted where comments are, and the
//! adoption agency's "act as any other end tag" fallback also for `<a>` and
//! `<nobr>` start tags. Two DOM operations of the parser are reported through
//! [`EventSink`]'s provided methods rather than as events: cloning a selected
//! `option` into `selectedcontent`, and attaching declarative shadow roots
//! (`<template shadowrootmode>`, only with
//! [`ShadowOptions::declarative_shadow_roots`]).
//!
//! # Example
//! ```
//! use htrewrite_shadow::{Event, Shadow, ShadowOptions, ShadowSink};
//! use htrewrite_tokenizer::Tokenizer;
//! let mut opened = Vec::new();
//! let events = |e: Event<'_>| {
//!     if let Event::ElementOpened { name, .. } = e {
//!         opened.push(name.to_owned());
//!     }
//! };
//! let mut sink = ShadowSink::new(Shadow::new(ShadowOptions::default()), events);
//! let mut tokenizer = Tokenizer::new();
//! tokenizer.feed(b"<p>a<table><tr><td>b", &mut sink);
//! tokenizer.finish(&mut sink);
//! let stack: Vec<String> = sink.shadow().open_elements().map(|e| e.name().to_owned()).collect();
//! assert_eq!(stack, ["html", "body", "p", "table", "tbody", "tr", "td"]); // quirks mode: <table> stays in <p>
//! sink.finish();
//! drop(sink);
//! assert_eq!(opened, ["html", "head", "body", "p", "table", "tbody", "tr", "td"]);
//! ```
//!
//! # Guarantees
//! - **Exact**: rebuilt from the events alone, the tree equals html5lib's
//!   expected tree on the tree-construction suite, documents and fragments,
//!   scripting on and off (`tests/suite/html5lib_tree.rs`; stale cases listed with
//!   reasons in `tests/expected-differences.toml`), including the cloning of a
//!   selected `option` into `selectedcontent` ([`Event::SelectedContentCloned`]).
//! - **Chunking-independent**: the events do not depend on where the input is
//!   cut (text merged); closing causes point at the token that caused them
//!   (for text, its first non-whitespace character).
//! - **Bounded memory**: O(depth of the stack of open elements + length of the
//!   list of active formatting elements), plus the whitespace pending in
//!   "in table text" and the reused buffers of the largest tag processed (and
//!   of up to 16 formatting elements' attribute lists);
//!   no DOM is kept. Known element names come from a fixed table; other
//!   names are interned only while an element with them is open (a few
//!   hundred are kept for reuse).
//! - **Linear time**: scope checks, the "any other end tag" searches (HTML and
//!   foreign), the `<li>`/`<dd>`/`<dt>` loops, resetting the insertion mode,
//!   and the Noah's Ark clause use per-name and per-category indexes of the
//!   stack and of the list, so deep nesting with stray end tags, 1e5 unclosed
//!   formatting elements, 1e5 nested tables and deep SVG stay linear. Removing
//!   an element from the middle of the stack (the adoption agency, `</form>`,
//!   an `<a>` start tag) leaves a hole instead of moving the elements above it,
//!   so an adoption agency run costs O(elements between the formatting element
//!   and the furthest block), each of which it removes or replaces (at most
//!   three replaced): `<b>` + (`<span><div>`)×n + `</b>`×n, once quadratic,
//!   is linear. `adversarial_inputs_are_linear` and
//!   `adversarial_documents_are_linear` in `src/tests.rs` count the data
//!   structures' steps at n and 4n (no timing).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod body;
mod builder;
mod doctype;
mod event;
mod fast;
mod foreign;
mod formatting;
mod idhash;
mod mode;
mod names;
mod shadow;
mod stack;
mod table;
mod tags;
mod token;
use htrewrite_work as work;

#[cfg(test)]
mod tests;

pub use event::{
    AttrNamespace, CloseCause, Event, EventSink, Namespace, NoEvents, NodeId, Origin, OwnedEvent, PairingError,
    Position, QuirksMode, ShadowAttr,
};
pub use fast::{check_fast_path, fast_path_taken, inert_comments_taken, inert_text_taken};
pub use htrewrite_tokenizer::Feedback;
pub use mode::{InsertionMode, TextRules};
pub use names::KnownName;
pub(crate) use shadow::OpenElement;
pub use shadow::{FastEnd, FastStart, INSERTED_ONCE, OpenElementRef, Shadow, ShadowOptions, ShadowSink};
pub use tags::{is_formatting, is_special};
pub use token::{TagToken, TreeToken};
