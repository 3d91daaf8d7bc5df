//! Errors: [`RewritingError`] for the stream, [`EditError`] for one refused edit.

use std::error::Error;
use std::fmt;

use htrewrite_selectors::SelectorError;

use crate::slot::{Slot, SlotError};

/// What a handler returns: `Ok(())`, or any error, which stops the rewrite
/// with [`RewritingError::Handler`].
pub type HandlerResult = Result<(), Box<dyn Error + Send + Sync>>;

/// Why rewriting failed.
///
/// `Display` is a lowercase fragment; [`Error::source`] gives the cause.
///
/// # Example
/// ```
/// use htrewrite::{RewritingError, Settings, rewrite_str};
/// let settings = Settings::new().element("p[", |_| Ok(()));
/// let err = rewrite_str("<p>", settings).unwrap_err();
/// assert!(matches!(err, RewritingError::Selector { .. }));
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum RewritingError {
    /// A selector of the settings does not parse or is not supported.
    Selector {
        /// The selector as given.
        selector: String,
        /// Why.
        error: SelectorError,
    },
    /// A handler returned an error.
    Handler(Box<dyn Error + Send + Sync>),
    /// The memory the rewriter holds would exceed the limit of
    /// [`Settings::memory_limit`](crate::Settings::memory_limit).
    MemoryLimitExceeded {
        /// The limit, in bytes.
        limit: usize,
        /// What the rewriter would have held.
        needed: usize,
    },
    /// The encoding label is unknown, or the document cannot be rewritten in it.
    Encoding(String),
    /// Content a handler inserted would complete something the bytes
    /// before it began (`ipt>` after `</scr` where a script's text ends,
    /// `>` after `]]` in a CDATA section) where escaping is impossible, so
    /// it was not written ([`EditErrorKind::TextWouldEndElement`]). In data
    /// and RCDATA, the first character is written as a character reference
    /// instead and no error occurs.
    Insertion(EditError),
    /// The output sink failed.
    Output(std::io::Error),
    /// An earlier call failed; the rewriter does not accept more input.
    Poisoned,
    /// [`Rewriter::write`](crate::Rewriter::write) took only `taken` bytes
    /// of the chunk: the output held after pending slots reached
    /// [`Settings::hold_limit`](crate::Settings::hold_limit). Not a failure:
    /// nothing is lost; fill or cancel slots (the first pending one first),
    /// then write the rest of the chunk.
    Blocked {
        /// How many bytes of the chunk were taken.
        taken: usize,
    },
    /// A slot operation was refused (the rewriter goes on).
    Slot(SlotError),
    /// The input ended with slots neither filled nor cancelled (from
    /// [`Rewriter::end`](crate::Rewriter::end)): the output stops before
    /// the first of them.
    UnfilledSlots(Vec<Slot>),
    /// Input after [`Rewriter::finish_input`](crate::Rewriter::finish_input).
    InputEnded,
}

impl fmt::Display for RewritingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RewritingError::Selector { selector, error } => write!(f, "invalid selector {selector:?}: {error}"),
            RewritingError::Handler(e) => write!(f, "handler failed: {e}"),
            RewritingError::MemoryLimitExceeded { limit, needed } => {
                write!(f, "memory limit of {limit} bytes exceeded ({needed} bytes needed)")
            }
            RewritingError::Encoding(m) => write!(f, "encoding: {m}"),
            RewritingError::Insertion(e) => write!(f, "inserted content refused: {e}"),
            RewritingError::Output(e) => write!(f, "output failed: {e}"),
            RewritingError::Poisoned => f.write_str("the rewriter failed earlier and accepts no more input"),
            RewritingError::Blocked { taken } => {
                write!(f, "output is held after pending slots: took {taken} bytes, fill slots to go on")
            }
            RewritingError::Slot(e) => write!(f, "slot: {e}"),
            RewritingError::UnfilledSlots(slots) => {
                f.write_str("the input ended with slots neither filled nor cancelled:")?;
                for s in slots {
                    write!(f, " {}", s.index())?;
                }
                Ok(())
            }
            RewritingError::InputEnded => f.write_str("the input ended already"),
        }
    }
}

impl Error for RewritingError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            RewritingError::Selector { error, .. } => Some(error),
            RewritingError::Handler(e) => Some(&**e),
            RewritingError::Output(e) => Some(e),
            RewritingError::Insertion(e) => Some(e),
            RewritingError::Slot(e) => Some(e),
            _ => None,
        }
    }
}

/// Why an edit was refused. The document is unchanged by a refused edit.
///
/// # Example
/// ```
/// use htrewrite::{ContentType, EditErrorKind, Settings, rewrite_str};
/// let settings = Settings::new().element("script", |el| {
///     let err = el.append("</script><b>", ContentType::Text).unwrap_err();
///     assert_eq!(err.kind(), EditErrorKind::TextWouldEndElement);
///     Ok(())
/// });
/// rewrite_str("<script></script>", settings)?;
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditError {
    kind: EditErrorKind,
    detail: String,
}

/// The kind of an [`EditError`].
///
/// # Example
/// ```
/// use htrewrite::EditErrorKind;
/// assert_ne!(EditErrorKind::NoStartTag, EditErrorKind::InvalidTagName);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EditErrorKind {
    /// The element was created by the parser without a start tag in the
    /// input (implied `html`/`head`/`body`/`tbody`, formatting-element
    /// clones): it has no tag bytes to change.
    NoStartTag,
    /// Not a valid tag name.
    InvalidTagName,
    /// Not a valid attribute name.
    InvalidAttributeName,
    /// Text inserted into RAWTEXT, script data or a CDATA section would end
    /// the element (or section) early, and escaping is impossible there.
    TextWouldEndElement,
    /// Comment data that would end the comment early (`-->`, `--!>`, a leading `>`…).
    InvalidCommentData,
    /// A character the document's encoding cannot represent, where a
    /// character reference cannot stand in (script, style, comments).
    Unencodable,
    /// The DOCTYPE replacement is not a valid DOCTYPE name.
    InvalidDoctype,
    /// A rename into or out of an element whose content is read otherwise
    /// (`script`, `style`, `textarea`, `title`, `xmp`, `iframe`, `noembed`,
    /// `noframes`, `noscript`, `plaintext`): `<p>` renamed `script` would turn
    /// the rest of the page into script, `</script>` renamed `</div>` would
    /// leave the script open.
    TextModeChange,
    /// Text with U+0000 NULL, which no HTML text can hold (the parser drops
    /// it or reads U+FFFD, and `&#0;` is U+FFFD too).
    NulInText,
    /// [`ContentType::ParsedHtml`](crate::ContentType::ParsedHtml) where the
    /// parse has gone past the place already (before an element, inside it
    /// after its start, at an end the input does not spell or that another
    /// token implied, in a slot not made for parsed content, in text or
    /// comment handlers): the content could not be parsed where it lands.
    ParsePassed,
    /// Parsed content inside parsed content, [`MAX_PARSE_NESTING`](crate::MAX_PARSE_NESTING)
    /// levels deep or [`MAX_NESTED_PARSED`](crate::MAX_NESTED_PARSED) times
    /// in the document: most likely content that holds an element its own
    /// handler matches, which would insert it again forever.
    ParseNesting,
}

impl EditError {
    pub(crate) fn new(kind: EditErrorKind, detail: impl Into<String>) -> EditError {
        EditError { kind, detail: detail.into() }
    }

    /// The kind of failure.
    pub fn kind(&self) -> EditErrorKind {
        self.kind
    }
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            EditErrorKind::NoStartTag => "the element has no start tag in the input",
            EditErrorKind::InvalidTagName => "invalid tag name",
            EditErrorKind::TextModeChange => "the new name would change how the element's content is read",
            EditErrorKind::NulInText => "text with U+0000 NULL cannot be written in HTML",
            EditErrorKind::InvalidAttributeName => "invalid attribute name",
            EditErrorKind::TextWouldEndElement => "inserted text would end its element",
            EditErrorKind::InvalidCommentData => "comment data would end the comment",
            EditErrorKind::Unencodable => "a character cannot be encoded in the document's encoding",
            EditErrorKind::InvalidDoctype => "invalid doctype",
            EditErrorKind::ParsePassed => "parsed content where the parse has gone past the place",
            EditErrorKind::ParseNesting => "parsed content nested too deep",
        };
        if self.detail.is_empty() { f.write_str(what) } else { write!(f, "{what}: {}", self.detail) }
    }
}

impl Error for EditError {}
