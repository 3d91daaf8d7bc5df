//! The HTML Standard's [tree construction](https://html.spec.whatwg.org/multipage/parsing.html#tree-construction)
//! on a stack, without a DOM.
//!
//! The shadow follows the tree construction of the current HTML Living
//! Standard (relaxed `<select>` parsing of 2025, processing instructions of
//! 2026) token by token, keeping only the state the algorithm needs: the
//! insertion modes, the stack of open elements, the list of active formatting
//! elements, the head and form pointers, frameset-ok, quirks mode and the
//! scripting flag. It answers the tokenizer with [`Feedback`] (the next text
//! mode, whether CDATA is allowed) and reports every change to the document
//! as an [`Event`], from which the layers above (selectors, the rewriter, the
//! test harness) can rebuild exactly the tree the Standard builds.
//!
//! # Example
//! ```ignore
//! use htrewrite_shadow::{Shadow, ShadowOptions, ShadowSink, OwnedEvent, Event};
//! use htrewrite_tokenizer::Tokenizer;
//! let mut events = Vec::new();
//! let mut sink = ShadowSink::new(Shadow::new(ShadowOptions::default()), |e: Event<'_>| events.push(OwnedEvent::from(&e)));
//! let mut tokenizer = Tokenizer::new();
//! tokenizer.feed(b"<p>a<div>b", &mut sink);
//! tokenizer.finish(&mut sink);
//! sink.finish();
//! ```
//!
//! # Guarantees
//! - **Bounded memory**: O(depth of the stack of open elements + length of
//!   the list of active formatting elements); no DOM is kept.
//! - **Linear time**: scope checks, "generate implied end tags" and the
//!   end-tag searches use per-name and per-scope indexes of the stack, so
//!   deep nesting, stray end tags, unclosed formatting elements, nested
//!   tables and deep SVG stay linear.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod body;
mod builder;
mod doctype;
mod event;
mod foreign;
mod formatting;
mod mode;
mod shadow;
mod stack;
mod table;
mod tags;
mod token;

#[cfg(test)]
mod tests;

pub use event::{
    AttrNamespace, CloseCause, Event, EventSink, Namespace, NoEvents, NodeId, Origin, OwnedEvent, Position, QuirksMode,
    ShadowAttr,
};
pub use htrewrite_tokenizer::Feedback;
pub use mode::InsertionMode;
pub use shadow::{OpenElement, Shadow, ShadowOptions, ShadowSink};
pub use token::{TagToken, TreeToken};
