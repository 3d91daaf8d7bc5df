//! # htrewrite
//!
//! A streaming, lossless HTML rewriter exact to the
//! [HTML Living Standard](https://html.spec.whatwg.org/multipage/parsing.html).
//!
//! Bytes go in in chunks; a raw tokenizer (`htrewrite-tokenizer`) cuts them
//! into tokens that keep their exact bytes; a tree-builder shadow
//! (`htrewrite-shadow`) runs the Standard's tree construction on a stack,
//! without a DOM, and tells the tokenizer which text mode comes next and the
//! selector engine (`htrewrite-selectors`) which elements are open — implied,
//! cloned and closed-by-implication included — so CSS selectors match the
//! elements a browser builds. Handlers see elements (start and end), text,
//! comments, the DOCTYPE, processing instructions and the document end, and
//! can read, edit, insert, replace or remove. Untouched bytes pass through
//! exactly; an edit changes only the bytes it must.
//!
//! ```
//! use htrewrite::{ContentType, Settings, rewrite_str};
//! let settings = Settings::new()
//!     .element("a[href^='http:']", |el| {
//!         let href = el.get_attribute("href").unwrap();
//!         el.set_attribute("href", &href.replacen("http:", "https:", 1))?;
//!         Ok(())
//!     })
//!     .element("p", |el| {
//!         el.append("!", ContentType::Text)?;
//!         Ok(())
//!     });
//! let out = rewrite_str("<P CLASS=x>one<p>two <a  href=http://a.example>a</a>", settings)?;
//! assert_eq!(out, "<P CLASS=x>one!<p>two <a  href=https://a.example>a</a>!");
//! # Ok::<(), htrewrite::RewritingError>(())
//! ```
//!
//! ## Where edits land
//! Element edits work on byte positions the shadow decides: an element
//! whose end tag is implied ends right before the token that implies it
//! (`<p>a<div>`, `<li>a<li>b`), one still open at the end of input ends
//! there; `</body>` and `</html>` end their elements in the bytes though the
//! tree keeps them open. So `remove()` on the `<p>` of `<p>a<div>b</div>`
//! removes exactly `<p>a`.
//!
//! ## When elements are matched
//! A handler's selector is matched against the tree as the Standard has it
//! **when the element is inserted** (`htrewrite-selectors`, *Tree shape*):
//! - an element the parser moves afterwards (the adoption agency, foster
//!   parenting) keeps its match: its handler has run;
//! - an element inserted after such a move is matched against its real
//!   ancestors and siblings: a rule that unwraps nested links leaves a
//!   share menu alone, because the adoption agency takes its `div` out of
//!   the outer link before each inner link is inserted;
//! - a start tag that makes no element (`<body>` or `<html>` when the element
//!   exists: its attributes go onto it; tags the tree builder ignores)
//!   calls no handler, and the existing element is not matched again.
//!
//! ```
//! use htrewrite::{Settings, rewrite_str};
//! let menu = "<a class=more href=#>more<div class=popup><a href=/1>1</a><a href=/2>2</a></div></a>";
//! let unwrap_nested = || Settings::new().element("a a", |el| {
//!     el.remove_and_keep_content();
//!     Ok(())
//! });
//! assert_eq!(rewrite_str(menu, unwrap_nested())?, menu);
//! // Moved after it was matched: `p` was inside `a` when inserted.
//! let mark = Settings::new().element("a p", |el| {
//!     el.set_attribute("class", "in-link")?;
//!     Ok(())
//! });
//! assert_eq!(rewrite_str("<a><p>x</a>", mark)?, "<a><p class=\"in-link\">x</a>");
//! // No element: the attribute goes onto the body matched before.
//! let body = Settings::new().element("body.x", |el| {
//!     el.set_attribute("data-seen", "")?;
//!     Ok(())
//! });
//! assert_eq!(rewrite_str("<p>x<body class=x>", body)?, "<p>x<body class=x>");
//! # Ok::<(), htrewrite::RewritingError>(())
//! ```
//!
//! ## What work a rewrite does
//! Every rewrite runs the Standard's whole tree construction: the shadow's
//! feedback decides which text mode each next piece of input is read in,
//! so the tokens, and the bytes handlers see, are the ones a browser sees.
//! The bookkeeping that places element events in the bytes (which element
//! ends where, which text belongs to which element) runs only when
//! something observes it: a rewriter with no selector rules skips it for
//! every token but text, and for text too when it has no
//! [`Settings::doc_text`] handler (element events inside text end that
//! handler's text nodes); its document-wide handlers still run.
//! Instruction counts per workload are in the workspace `README.md`.
//!
//! ## Deferred content
//! A handler may leave content for later — a fragment another service
//! renders, a banner from a cache — instead of blocking the page: the
//! `defer_*` methods of [`Element`] return a [`Slot`] that the caller fills
//! when the content is known ([`Rewriter::fill`]), streams into as it
//! arrives ([`Rewriter::slot_write`] … [`Rewriter::slot_finish`]) or gives
//! up with a [`Fallback`] ([`Rewriter::cancel`]). Output up to the first
//! pending slot flows to the sink; what follows is held, in order, while
//! parsing and later handlers go on; past [`Settings::hold_limit`] the
//! rewriter takes no more input ([`Rewriter::write_some`] says how much it
//! took, [`Rewriter::write`] returns [`RewritingError::Blocked`]) until
//! slots are filled. The first pending slot's streamed content is written
//! through as it arrives. No async runtime is involved: the async adapters
//! build on this.
//!
//! ```
//! use std::{cell::RefCell, rc::Rc};
//! use htrewrite::{ContentType, Fallback, Rewriter, Settings, Slot};
//! let slots: Rc<RefCell<Vec<Slot>>> = Rc::default();
//! let made = slots.clone();
//! let settings = Settings::new().element("esi-include", move |el| {
//!     made.borrow_mut().push(el.defer_replace());
//!     Ok(())
//! });
//! let mut out = Vec::new();
//! let mut rw = Rewriter::new(settings, |c: &[u8]| out.extend_from_slice(c))?;
//! rw.write(b"<p>Hi <esi-include src=/user></esi-include>! <esi-include src=/ad>ad</esi-include>")?;
//! let s = slots.borrow().clone();
//! rw.cancel(s[1], Fallback::KeepOriginal)?; // any order: the ad's fetch failed
//! rw.slot_write(s[0], b"<b>An", ContentType::Html)?; // streamed
//! rw.slot_write(s[0], b"n</b>", ContentType::Html)?;
//! rw.slot_finish(s[0])?;
//! rw.end()?;
//! assert_eq!(out, b"<p>Hi <b>Ann</b>! <esi-include src=/ad>ad</esi-include>");
//! # Ok::<(), htrewrite::RewritingError>(())
//! ```
//!
//! Content is [`ContentType::Text`] (escaped for where the slot lands) or
//! [`ContentType::Html`] (as it is). Content parsed as part of the document
//! — the page's rules applied to it, the tree the one a browser builds from
//! the final page — is not done yet; the design leaves room for it: a slot's
//! content goes through one place (`deferred.rs`) that knows where the
//! slot lands, which a parsed-HTML content type would route through a
//! tokenizer and shadow forked at the slot's place.
//!
//! ## Guarantees
//! Each is a contract, with the tests that enforce it (commands and figures
//! in the workspace `README.md`).
//! - **Lossless**: with no handlers, or handlers that read and change
//!   nothing, the output is the input byte for byte, for any bytes (invalid
//!   UTF-8, NUL, CR) and any chunking: `tests/tests/suite/rewriter_roundtrip.rs`
//!   in the workspace (every html5lib input, the vendored pages and
//!   `$HTREWRITE_CORPUS`, each whole, at every byte or at seeded random
//!   points), `tests/suite/properties.rs` (proptest: random bytes and HTML-like
//!   documents), the `rewriter_random` fuzz target (`fuzz/`).
//! - **Exact edits**: an attribute edit changes only that attribute's bytes,
//!   and inserted text never changes how the rest of the document tokenizes
//!   (`tests/suite/properties.rs`, which diffs and re-tokenizes the output);
//!   per-action expectations in `tests/data/cases/*.toml` (`tests/suite/cases.rs`).
//! - **Chunking-independent**: outputs and what handlers observe do not
//!   depend on where the input is split: every data case runs whole, split
//!   at every byte and at seeded random points (`tests/suite/cases.rs`,
//!   `tests/suite/encodings.rs`, `tests/suite/limits.rs`), the round-trip test
//!   compares handler observations across chunkings, and
//!   `tests/placement.rs` checks where edits land, whole against byte by
//!   byte, on every document of up to five pieces from twenty
//!   (mode-switching tags, formatting elements, NUL, whitespace, letters).
//!   With deferred content, neither the chunking of the page, nor that of
//!   each streamed fill, nor the order slots are filled in changes the
//!   output (`tests/suite/deferred.rs`: every permutation for small cases,
//!   proptest against the same edits made at once).
//! - **Linear time**: the tokenizer and the shadow are linear on every
//!   input (their crates' tests count steps at n and 4n); the rewriter adds
//!   O(1) work per token and per open element, plus what handlers do.
//!   Measured with instruction counts (callgrind) on the adversarial shapes
//!   at n and 4n: `benches/src/bin/rewrite.rs --adversarial`.
//! - **Bounded memory**: the rewriter holds the unfinished token, the stack
//!   of open elements, live selector states, held text (whole-text-node
//!   mode) and pending inserted content, never the document;
//!   [`Settings::memory_limit`] counts all of them and fails with
//!   [`RewritingError::MemoryLimitExceeded`], leaving the output exact up to
//!   the failing token (`tests/suite/limits.rs`). Output held after a pending
//!   slot is bounded by [`Settings::hold_limit`] (back-pressure, not an
//!   error: `tests/suite/deferred.rs`, `bounded::*`).
//! - **Context-safe text**: [`ContentType::Text`] is escaped for the context
//!   it lands in (text, attribute value, RCDATA), or refused with
//!   [`EditErrorKind`] where escaping is impossible (RAWTEXT, script data,
//!   comments): `content.rs` unit tests, `tests/suite/cases.rs`,
//!   `tests/suite/properties.rs`. Inserted content, text or HTML, never joins the
//!   bytes written before it: after source text that ends unfinished (`a<`,
//!   `&no`, `x</ti`), a first character that would finish it as a tag or a
//!   character reference is written as a numeric character reference; in
//!   RAWTEXT, script data and CDATA sections, where that is impossible,
//!   content that would complete `</style`, `</script`, `<!--` or `]]>`
//!   fails the rewrite with [`RewritingError::Insertion`]
//!   (`tests/data/cases/joins.toml`, `content.rs` unit tests).
//! - **Encodings**: any WHATWG label; sniffing (BOM, transport charset,
//!   `<meta>` prescan); inserted content encoded into the document's
//!   encoding; UTF-16 untouched spans passed through as the original bytes
//!   (`tests/suite/encodings.rs`, html5lib's encoding suite).
//!
//! ## Known differences
//! - From the Standard: none known in tokenization or tree construction
//!   (upstream test cases the newest Standard made stale are listed with
//!   reasons in `tests/expected-differences.toml` and
//!   `crates/shadow/tests/expected-differences.toml`). Selectors match
//!   each element once, when it is inserted, in the tree as it stands then
//!   (see *When elements are matched*).
//! - Elements the shadow creates without a start tag (implied `html`,
//!   `head`, `body`, `tbody`, reconstructed formatting elements) are matched
//!   and seen by handlers but own no bytes: edits that need bytes return
//!   [`EditErrorKind::NoStartTag`], documented on each [`Element`] method.
//! - From lol-html: `tests/data/lol_html_differences.toml` lists, with a
//!   reason each, the peer's cases whose expectation disagrees with the
//!   Standard's tree or selectors we refuse by design (`tests/suite/lol_html.rs`).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod content;
mod core;
mod deferred;
mod element;
pub mod encoding;
mod error;
mod location;
mod nodes;
mod parsed;
mod rewriter;
mod settings;
mod sink;
mod slot;

pub use content::ContentType;
pub use element::{Attribute, Element, ElementEnd, MAX_NESTED_PARSED, MAX_PARSE_NESTING};
pub use error::{EditError, EditErrorKind, HandlerResult, RewritingError};
pub use htrewrite_shadow::{CloseCause, Namespace, NodeId, Origin};
pub use htrewrite_tokenizer::{CommentKind, TextMode};
pub use location::SourceLocation;
pub use nodes::{Comment, Doctype, DocumentEnd, ProcessingInstruction, TextChunk};
pub use rewriter::{Rewriter, rewrite_str};
pub use settings::{Handler, HandlerKind, IntoHandler, Local, OnError, Selectors, Sendable, Settings};
pub use sink::{IoSink, OutputSink};
pub use slot::{Fallback, Slot, SlotError, SlotErrorKind};

/// The migration guide from lol_html (`docs/migrating-from-lol-html.md`),
/// compiled only for doc tests: each of its snippets runs as one, so the
/// guide cannot drift from this crate or from lol_html.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/migrating-from-lol-html.md")]
pub struct MigrationGuide;

/// An element handler for a selector, for [`Settings::handler`].
///
/// # Example
/// ```
/// use htrewrite::{Settings, element, rewrite_str};
/// let s = Settings::new().handler(element!("img", |el| { el.set_attribute("loading", "lazy")?; Ok(()) }));
/// assert_eq!(rewrite_str("<img src=a>", s)?, "<img src=a loading=\"lazy\">");
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
#[macro_export]
macro_rules! element {
    ($selector:expr, $handler:expr) => {
        $crate::Handler::element($selector, $handler)
    };
}

/// A text handler for a selector, for [`Settings::handler`].
///
/// # Example
/// ```
/// use htrewrite::{Settings, text, rewrite_str};
/// let s = Settings::new().handler(text!("b", |t| { if !t.as_str().is_empty() { t.remove() }; Ok(()) }));
/// assert_eq!(rewrite_str("<b>x</b>y", s)?, "<b></b>y");
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
#[macro_export]
macro_rules! text {
    ($selector:expr, $handler:expr) => {
        $crate::Handler::text($selector, $handler)
    };
}

/// A comment handler for a selector, for [`Settings::handler`].
///
/// # Example
/// ```
/// use htrewrite::{Settings, comments, rewrite_str};
/// let s = Settings::new().handler(comments!("div", |c| { c.remove(); Ok(()) }));
/// assert_eq!(rewrite_str("<!--a--><div><!--b--></div>", s)?, "<!--a--><div></div>");
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
#[macro_export]
macro_rules! comments {
    ($selector:expr, $handler:expr) => {
        $crate::Handler::comments($selector, $handler)
    };
}

/// A handler at the end of each element matching a selector, for
/// [`Settings::handler`] (as [`Settings::element_end`]; unlike lol_html's
/// end-tag handlers it also runs for elements whose end tag is implied).
///
/// # Example
/// ```
/// use htrewrite::{ContentType, Settings, end_tag, rewrite_str};
/// let s = Settings::new().handler(end_tag!("p", |end| { end.before("!", ContentType::Text)?; Ok(()) }));
/// assert_eq!(rewrite_str("<p>a</p><p>b", s)?, "<p>a!</p><p>b!");
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
#[macro_export]
macro_rules! end_tag {
    ($selector:expr, $handler:expr) => {
        $crate::Handler::element_end($selector, $handler)
    };
}

/// A DOCTYPE handler, for [`Settings::handler`].
///
/// # Example
/// ```
/// use htrewrite::{Settings, doctype, rewrite_str};
/// let mut name = None;
/// let s = Settings::new().handler(doctype!(|d| { name = d.name().map(str::to_owned); Ok(()) }));
/// rewrite_str("<!DOCTYPE html><p>", s)?;
/// assert_eq!(name.as_deref(), Some("html"));
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
#[macro_export]
macro_rules! doctype {
    ($handler:expr) => {
        $crate::Handler::doctype($handler)
    };
}

/// A handler of all the document's text, for [`Settings::handler`].
///
/// # Example
/// ```
/// use htrewrite::{Settings, doc_text, rewrite_str};
/// let mut n = 0;
/// let s = Settings::new().handler(doc_text!(|t| { n += t.as_str().len(); Ok(()) }));
/// rewrite_str("<title>ab</title><p>cde", s)?;
/// assert_eq!(n, 5);
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
#[macro_export]
macro_rules! doc_text {
    ($handler:expr) => {
        $crate::Handler::doc_text($handler)
    };
}

/// A handler of all the document's comments, for [`Settings::handler`].
///
/// # Example
/// ```
/// use htrewrite::{Settings, doc_comments, rewrite_str};
/// let s = Settings::new().handler(doc_comments!(|c| { c.remove(); Ok(()) }));
/// assert_eq!(rewrite_str("<!--a--><p><!--b-->x", s)?, "<p>x");
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
#[macro_export]
macro_rules! doc_comments {
    ($handler:expr) => {
        $crate::Handler::doc_comments($handler)
    };
}

/// A handler at the end of the document, for [`Settings::handler`].
///
/// # Example
/// ```
/// use htrewrite::{ContentType, Settings, end, rewrite_str};
/// let s = Settings::new().handler(end!(|e| { e.append("<!-- end -->", ContentType::Html)?; Ok(()) }));
/// assert_eq!(rewrite_str("<p>x", s)?, "<p>x<!-- end -->");
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
#[macro_export]
macro_rules! end {
    ($handler:expr) => {
        $crate::Handler::end($handler)
    };
}
