//! The crate's one error type: where a selector failed to parse or compile, and why.

use std::fmt;

/// Why a selector was refused.
///
/// # Example
/// ```
/// use htrewrite_selectors::{ErrorKind, SelectorList};
/// let e = SelectorList::parse("a:last-child").unwrap_err();
/// assert!(matches!(e.kind(), ErrorKind::NeedsLookahead { .. }));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input ended where more was needed (`a >`, `[href`, `:not(`).
    UnexpectedEnd,
    /// A character that cannot appear here.
    UnexpectedChar(char),
    /// Nothing where a selector was expected (`a,,b`, empty input).
    EmptySelector,
    /// A pseudo-class this engine does not know or that is not about the
    /// document tree (`:hover`, `:visited`, `:focus`, …).
    UnsupportedPseudoClass(String),
    /// Pseudo-elements (`::before`) select no element of the source.
    UnsupportedPseudoElement(String),
    /// A selector that cannot be decided when the element's start tag is
    /// seen: it depends on what follows (later siblings, content).
    NeedsLookahead {
        /// The pseudo-class, with its colon (`:last-child`).
        name: String,
        /// What it would need to see.
        why: &'static str,
    },
    /// A namespace prefix that was not declared (see [`Namespaces`](crate::Namespaces)).
    UnknownNamespacePrefix(String),
    /// Attribute selectors with a named namespace prefix (`[xlink|href]`) are
    /// not supported (`[*|href]` and `[|href]` are).
    AttributeNamespace,
    /// An `An+B` argument that does not parse.
    InvalidNth,
    /// A string with an unescaped newline.
    BadString,
    /// Selector lists nested deeper than [`MAX_NESTING`](crate::MAX_NESTING)
    /// (`:is(:is(:is(…)))`, `:not(` × 20,000): refused before parsing,
    /// compiling or matching could exhaust the stack.
    TooDeep,
}

/// A selector that failed to parse or compile: its [`ErrorKind`] and the
/// byte offset in the selector text where the problem was found.
///
/// `Display` is a lowercase fragment naming the problem and the offset,
/// e.g. `unsupported pseudo-class :hover at 1`.
///
/// # Example
/// ```
/// use htrewrite_selectors::SelectorList;
/// let e = SelectorList::parse("a:hover").unwrap_err();
/// assert_eq!(e.to_string(), "unsupported pseudo-class :hover at 1");
/// assert_eq!(e.position(), 1);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectorError {
    kind: ErrorKind,
    position: usize,
}

impl SelectorError {
    pub(crate) fn new(kind: ErrorKind, position: usize) -> SelectorError {
        SelectorError { kind, position }
    }

    /// What went wrong.
    ///
    /// # Example
    /// ```
    /// use htrewrite_selectors::{ErrorKind, SelectorList};
    /// let e = SelectorList::parse("a >").unwrap_err();
    /// assert_eq!(e.kind(), &ErrorKind::UnexpectedEnd);
    /// ```
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// The byte offset in the selector text.
    ///
    /// # Example
    /// ```
    /// use htrewrite_selectors::SelectorList;
    /// assert_eq!(SelectorList::parse("a, b!").unwrap_err().position(), 4);
    /// ```
    pub fn position(&self) -> usize {
        self.position
    }
}

impl fmt::Display for SelectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::UnexpectedEnd => write!(f, "unexpected end of selector")?,
            ErrorKind::UnexpectedChar(c) => write!(f, "unexpected character {c:?}")?,
            ErrorKind::EmptySelector => write!(f, "empty selector")?,
            ErrorKind::UnsupportedPseudoClass(n) => write!(f, "unsupported pseudo-class :{n}")?,
            ErrorKind::UnsupportedPseudoElement(n) => write!(f, "unsupported pseudo-element ::{n}")?,
            ErrorKind::NeedsLookahead { name, why } => {
                write!(f, "{name} needs lookahead ({why}), not known when the start tag is seen")?
            }
            ErrorKind::UnknownNamespacePrefix(p) => write!(f, "undeclared namespace prefix {p}")?,
            ErrorKind::AttributeNamespace => write!(f, "named attribute namespace prefixes are not supported")?,
            ErrorKind::InvalidNth => write!(f, "invalid An+B argument")?,
            ErrorKind::BadString => write!(f, "newline in string")?,
            ErrorKind::TooDeep => write!(f, "selectors nested more than {} levels deep", crate::MAX_NESTING)?,
        }
        write!(f, " at {}", self.position)
    }
}

impl std::error::Error for SelectorError {}
