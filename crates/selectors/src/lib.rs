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
//!    class, else the tag name, else an attribute name). A `Program` is
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
//! # Tree shape
//! Elements are matched **as they are opened**, against their ancestors and
//! previous element siblings at that moment, which is what a browser's DOM
//! holds when the start tag is parsed. This includes implied elements
//! (`html`, `head`, `body`, `tbody`…), reconstructed formatting elements,
//! foster parenting (an element inserted before a `table` gets the table's
//! previous sibling and index), and template contents. It can differ from
//! the final DOM where the parser later moves nodes:
//! - the adoption agency algorithm moves elements already opened (`<a><p>x</a>`
//!   moves `p` out of `a`); they keep the match they had when opened, and
//!   their later children are matched with their ancestors as at opening;
//!   clones it creates detached are matched when first placed;
//! - a foster-parented element shifts the `:nth-child` index of the table
//!   and of later siblings inserted before it (the table was matched first);
//! - `<frameset>` removing `body`.
//!
//! The differential test (`tests/differential.rs`) lists each such case.
//!
//! # Guarantees
//! - **Exact selectors**: the set of matched start tags equals what
//!   html5ever + the `selectors` crate (through scraper) select on the final
//!   DOM, for 30+ structural selectors over the html5lib tree-construction
//!   inputs, the real pages and proptest documents, except the listed tree
//!   differences above (`tests/differential.rs`); unit tests per feature
//!   (`tests/features.rs`); the W3C css3-modsel cases of lol-html
//!   (`tests/lol_html.rs`).
//! - **Bounded memory**: per open element, the states alive for its
//!   descendants, its children and its next siblings; nothing of closed
//!   elements. O(depth × live states).
//! - **Linear time**: per element, only the states alive at its parent, its
//!   ancestors' descendant states (shared, not copied, when an element adds
//!   none) and the indexed start states are tested; 1e5 unclosed `<p>`,
//!   deep nesting and long sibling runs are checked in `tests/features.rs`
//!   (`adversarial_*`).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod ast;
mod compile;
mod error;
mod matcher;
mod parser;
mod select;

pub use ast::{
    AttributeOperator, AttributeSelector, CaseFlag, Combinator, ComplexSelector, CompoundSelector, NamespacePrefix,
    Nth, PseudoClass, SelectorList, SimpleSelector, TypeSelector,
};
pub use compile::{Namespaces, Program, RuleId};
pub use error::{ErrorKind, SelectorError};
pub use matcher::{ElementInfo, Matcher};
pub use select::{ElementWithoutStartTag, Selection, select, select_with};
