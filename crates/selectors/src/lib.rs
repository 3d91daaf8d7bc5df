//! CSS selectors compiled once and matched, streaming, on the tree that the
//! HTML Standard's parser builds.
//!
//! # Pipeline
//! 1. [`SelectorList::parse`] turns selector text into a tree
//!    ([`ComplexSelector`], [`CompoundSelector`], …) with byte positions;
//!    [`SelectorError`] says what is wrong and where
//!    (`unsupported pseudo-class :hover at 1`). `Display` writes a canonical
//!    form that parses back to the same tree.
//! 2. [`Program::new`] compiles selector lists (one [`RuleId`] each) into
//!    states, left to right, indexed by each compound's key (id, else a
//!    class, else an attribute with its value `[name=value]`, else the tag
//!    name, else an attribute name). A `Program` is
//!    immutable, `Send + Sync`, shared through an `Arc`.
//! 3. A [`Matcher`] per document follows the events of the tree-builder
//!    shadow (`htrewrite-shadow`): each element is matched when it is opened,
//!    against the states its ancestors and earlier siblings left alive.
//! 4. [`select`] runs the whole pipeline on a string: start-tag spans of the
//!    matched elements, and, apart, the matched elements that have no start
//!    tag (implied `tbody`, reconstructed formatting elements…).
//!
//! # Example
//! ```
//! use htrewrite_selectors::select;
//! let html = "<!DOCTYPE html><ul><li class=a>1<li>2<li class=A>3</ul>";
//! let sel = select(html, "li:nth-child(odd):not(.a)")?;
//! let tags: Vec<&str> = sel.start_tags.iter().map(|s| &html[s.start as usize..s.end as usize]).collect();
//! assert_eq!(tags, ["<li class=A>"]);
//! // Without a DOCTYPE the document is in quirks mode: classes compare
//! // ASCII case-insensitively, so `.a` also matches `class=A`.
//! assert!(select(&html[15..], "li:nth-child(odd):not(.a)")?.start_tags.is_empty());
//! # Ok::<(), htrewrite_selectors::SelectorError>(())
//! ```
//!
//! # Supported selectors
//! Type selectors (ASCII case-insensitive for HTML elements, as written for
//! SVG and MathML: `foreignObject`), `*`, `.class`, `#id`, lists `a, b`,
//! attribute selectors `[a] [a=v] [a~=v] [a|=v] [a^=v] [a$=v] [a*=v]` with
//! `i`/`s` flags, against decoded values, names case-insensitive on HTML
//! elements, and the Standard's list of attributes compared
//! case-insensitively; the combinators ` `, `>`, `+`, `~`; `:not()`,
//! `:is()` (also `:matches()`, `:any()`), `:where()` with complex selector
//! lists; `:root`, `:first-child`, `:nth-child(An+B [of S])`,
//! `:first-of-type`, `:nth-of-type(An+B)`; namespaces `svg|rect`, `*|*`,
//! `|x`, with `html`, `svg` and `math` predefined and more through
//! [`Namespaces`]. In quirks mode, `#id` and `.class` compare ASCII
//! case-insensitively.
//!
//! Refused with [`ErrorKind::NeedsLookahead`]: `:last-child`,
//! `:only-child`, `:last-of-type`, `:only-of-type`, `:nth-last-child()`,
//! `:nth-last-of-type()`, `:empty`, `:has()` — each depends on what follows
//! the start tag. Other pseudo-classes (`:hover`, …) and pseudo-elements are
//! refused too.
//!
//! # Tree shape: matched at insertion
//! An element is matched **once, when it is inserted**, against the tree as
//! the Standard has it at that moment: its ancestors and earlier element
//! siblings then, which is what a browser's DOM holds when the start tag
//! has been processed. This includes implied elements (`html`, `head`,
//! `body`, `tbody`…), reconstructed formatting elements, foster parenting
//! (an element inserted before a `table` gets the table's earlier sibling
//! and index) and template contents (matched as children of the
//! `template`). Concretely:
//! - **Moves after insertion do not re-match.** The adoption agency
//!   algorithm moves elements already inserted (`<a><p>x</a>` moves `p` out
//!   of `a`), and foster parenting inserts elements before a table matched
//!   earlier; those elements keep the match they had (their handlers ran).
//! - **What is inserted later sees the moves.** After the adoption agency
//!   moved the *furthest block* (and everything still open under it) and
//!   gave its children to a clone of the formatting element, every element
//!   inserted afterwards is matched against its real ancestors and
//!   siblings: in `<a class=x><div><a class=y>t</a></div>` the second `<a>`
//!   first moves the `div` out of `a.x`, so `a a` matches nothing and
//!   `div > a` matches the clone and `a.y`. After an element is
//!   foster-parented before a table, what is inserted later after or under
//!   the table sees the table behind it (`+`, `~`, `:nth-child`).
//!   One case is not computed again: the sibling cursor an open element was
//!   inserted at. When the algorithm's outer loop ends after its eighth run
//!   with elements still open under the last clone, the `+`/`~` states their
//!   closed earlier siblings left were computed under the old ancestors
//!   (`div > p + div span`; see `README.md`).
//! - **Clones are matched when placed.** The adoption agency creates clones
//!   detached; each is matched when it is placed in the document (with the
//!   detached clones placed in it before, in tree order).
//! - **Some start tags make no element.** An `<html>` or `<body>` start tag
//!   when that element exists adds its attributes to it and makes no new
//!   element: nothing is matched for it, and the existing element, matched
//!   when it was inserted, is not matched again with the added attributes
//!   (`<p>x<body class=x>`: `body.x` matches nothing). Start tags the tree
//!   builder ignores (`<frame>` in a body, a second `<head>`, `<caption>`
//!   outside a table…) make no element either.
//!
//! ```
//! use std::sync::Arc;
//! use htrewrite_selectors::{Matcher, Program};
//! use htrewrite_shadow::{Event, Shadow, ShadowOptions, ShadowSink};
//! use htrewrite_tokenizer::Tokenizer;
//! // Per selector, the names of the elements it matched.
//! fn matched(selectors: &[&str], html: &str) -> Vec<Vec<String>> {
//!     let mut m = Matcher::new(Arc::new(Program::new(selectors.iter().copied()).unwrap()));
//!     let mut out = vec![Vec::new(); selectors.len()];
//!     let events = |e: Event<'_>| {
//!         let name = match &e { Event::ElementOpened { name, .. } => name.to_string(), _ => String::new() };
//!         for x in m.event(&e) {
//!             out[x.rule.0 as usize].push(name.clone());
//!         }
//!     };
//!     let mut sink = ShadowSink::new(Shadow::new(ShadowOptions::default()), events);
//!     let mut tokenizer = Tokenizer::new();
//!     tokenizer.feed(html.as_bytes(), &mut sink);
//!     tokenizer.finish(&mut sink);
//!     sink.finish();
//!     drop(sink);
//!     out
//! }
//! // Inserted after the move: `a.y` is in the moved `div`, not in `a.x`
//! // (the clone of `a.x`, placed by the move, is reported by the event
//! // that places it: no name here).
//! let got = matched(&["a a", "div > a"], "<a class=x><div><a class=y>t</a></div>");
//! assert!(got[0].is_empty());
//! assert_eq!(got[1], ["", "a"]);
//! // Moved after insertion: `p` keeps the match it had inside `a`.
//! assert_eq!(matched(&["a p"], "<a><p>x</a>")[0], ["p"]);
//! // No element: the `<body class=x>` start tag adds its attribute to the
//! // existing `body`, matched before it had one.
//! assert!(matched(&["body.x"], "<p>x<body class=x>")[0].is_empty());
//! // Foster parenting: `b` is inserted before the table, which then
//! // follows it for what is inserted later.
//! assert_eq!(matched(&["b + table td"], "<table><b></b><tr><td>")[0], ["td"]);
//! ```
//!
//! The differential test (`tests/suite/differential.rs`) compares every match with
//! html5ever's tree at the moment each element is inserted, and lists where
//! the final DOM differs (the moves above).
//!
//! # Guarantees
//! Each names the test that enforces it; figures and commands are in the
//! crate's `README.md`.
//! - **Exact selectors on the Standard's tree**: the matched elements equal
//!   what html5ever 0.40 + the `selectors` crate (through scraper) select on
//!   the final DOM, for 50 structural selectors over the html5lib
//!   tree-construction inputs, the real pages (`$HTREWRITE_CORPUS` or the
//!   vendored subset) and 3,000 proptest documents — 99.9 % of
//!   (document, selector) pairs, every other pair in a document where the
//!   tree changes after insertion (see *Tree shape*) or html5ever lags the
//!   Standard (`tests/suite/differential.rs`, each differing element checked to be
//!   touched by such a change). Elements without a start tag are compared
//!   apart, by name.
//! - **At insertion**: the matches equal, element by element, what
//!   html5ever 0.40 + the `selectors` crate select in the tree as it stands
//!   when each element is inserted (a tree sink that evaluates each element
//!   when it is connected; checked against parsing the document cut right
//!   after each start tag on the html5lib inputs), over the html5lib
//!   tree-construction inputs, the real pages and 3,000 proptest documents
//!   with formatting elements, `<a>` nesting, tables, templates, foreign
//!   content and deep runs of special elements; 100 % except elements in
//!   template contents (a separate fragment in the DOM) and where html5ever
//!   lags the Standard, each listed with its reason
//!   (`tests/suite/differential.rs`). And a naive right-to-left evaluator over a
//!   live tree rebuilt from the events agrees with the streaming matcher on
//!   every element at the moment it is matched, adoption-agency moves and
//!   foster parenting included (html5lib inputs, real pages, 3,000 proptest
//!   documents, 45 selectors with namespaces and `of S`;
//!   `tests/suite/reference.rs`).
//! - **Per feature**: 109 named match cases from the Selectors spec's
//!   examples, positive and negative, plus errors, round-trips (also 1,000
//!   generated) and elements without a start tag (`tests/suite/features.rs`); the
//!   W3C css3-modsel cases of lol-html through a driver that applies its
//!   ELEMENT markers, disagreements with the Standard listed
//!   (`tests/suite/lol_html.rs`).
//! - **Chunking-independent**: every match case is fed whole, split at
//!   every byte and in seeded random splits (`tests/suite/features.rs`).
//! - **Bounded memory**: per open element, the states alive for its
//!   descendants (shared with its parent when it adds none), its children,
//!   its next siblings, and child / type / `of S` counters; nothing of closed
//!   elements (the `head` element excepted: the Standard reopens it).
//!   O(depth × live states); the `tests::adversarial_*` unit tests check
//!   that the kept state never exceeds the open elements.
//! - **Linear time**: per element, only the states alive at its parent, its
//!   ancestors' descendant states and the start states whose key (tag, id,
//!   class, attribute name or name and value) it has are tested; element
//!   keys from attributes are computed only when a rule is keyed by them
//!   (values only of the attribute names some rule is keyed by). The
//!   `tests::adversarial_*` unit tests count the matcher's work (`work.rs`:
//!   candidate states tested, states gathered or copied into sets, keys
//!   looked up, attributes keyed, records dropped, detached elements
//!   placed, sibling cursors copied) plus the events at 2e3 and 8e3
//!   repetitions of unclosed `<p>`, deep `<div>` and `<span>` nesting with
//!   descendant selectors, long `<li>` sibling runs with `~`, `+` and
//!   `:nth-child`, formatting elements, nested tables, adoption-agency
//!   clones, and tables with fostered content after many element types
//!   with `:nth-of-type` (a table's foster cursor copies its parent's type
//!   counts, a persistent map, in O(1)), many elements fostered before one
//!   table, and end tags that make the adoption agency move deep subtrees
//!   again and again (the states of what is open under a moved element are
//!   computed again only until they come out unchanged): at most × 4.2 for
//!   4× the input (no timing).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod ast;
mod compile;
mod error;
mod matcher;
mod parser;
mod select;
#[cfg(test)]
mod tests;
use htrewrite_work as work;

pub use ast::{
    AttributeOperator, AttributeSelector, CaseFlag, Combinator, ComplexSelector, CompoundSelector, NamespacePrefix,
    Nth, PseudoClass, SelectorList, SimpleSelector, TypeSelector,
};
pub use compile::{Namespaces, Program, RuleId};
pub use error::{ErrorKind, SelectorError};
pub use matcher::{ElementInfo, Match, Matcher};
pub use parser::MAX_NESTING;
pub use select::{ElementWithoutStartTag, Selection, select, select_with};
