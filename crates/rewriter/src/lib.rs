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
//! ## Guarantees
//! - **Lossless**: with no handlers, or handlers that change nothing, the
//!   output is the input byte for byte, for any bytes (invalid UTF-8, NUL,
//!   CR) — `tests/roundtrip.rs`, `tests/properties.rs`.
//! - **Chunking-independent**: every result is the same however the input
//!   is split — every data test runs whole, split at every byte and at
//!   seeded random points (`tests/cases.rs`).
//! - **Linear time, bounded memory**: memory is bounded by the longest
//!   token, the stack of open elements and what handlers hold;
//!   [`Settings::memory_limit`] enforces a ceiling (`tests/limits.rs`).
//! - **Context-safe text**: inserted [`ContentType::Text`] is escaped for
//!   the context it lands in, or refused where escaping is impossible
//!   (`content.rs` unit tests, `tests/cases.rs`).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod content;
mod core;
mod element;
pub mod encoding;
mod error;
mod location;
mod nodes;
mod rewriter;
mod settings;
mod sink;

pub use content::ContentType;
pub use element::{Attribute, Element, ElementEnd};
pub use error::{EditError, EditErrorKind, HandlerResult, RewritingError};
pub use htrewrite_shadow::{CloseCause, Namespace, NodeId, Origin};
pub use htrewrite_tokenizer::{CommentKind, TextMode};
pub use location::SourceLocation;
pub use nodes::{Comment, Doctype, DocumentEnd, ProcessingInstruction, TextChunk};
pub use rewriter::{Rewriter, rewrite_str};
pub use settings::{Handler, HandlerKind, IntoHandler, Local, OnError, Selectors, Sendable, Settings};
pub use sink::{IoSink, OutputSink};

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
