//! Decoded views of tokens, computed on demand from a token's raw bytes.
//!
//! Each function takes the raw bytes of one token (as the tokenizer emitted
//! it) and returns the Standard's value for it, reporting the parse errors
//! that lie inside the token through an optional callback with spans
//! relative to the token's first byte. These are also the slow, obvious
//! reference implementations (full spec state machines) that the fast
//! scanner is checked against.

use crate::{ParseErrorCode, Rel};

mod charref;
mod comment;
mod doctype;
mod entities;
mod input_stream;
mod pi;
mod tag;
mod text;

pub(crate) use comment::comment;
pub(crate) use doctype::doctype;
pub use input_stream::InputStreamChecker;
pub(crate) use pi::processing_instruction;
pub(crate) use tag::Seen;
pub use tag::{ReferenceTag, tag};
pub(crate) use text::{attribute_value, name, text, text_valid};

/// Receives a parse error code and the bytes it concerns, relative to the
/// token's first byte.
pub type ErrorFn<'e> = &'e mut dyn FnMut(ParseErrorCode, Rel);

/// Decodes the raw bytes of an attribute value (without its quotes) as the
/// Standard's attribute value states do: character references by the
/// attribute rules, U+0000 → U+FFFD, invalid UTF-8 → U+FFFD.
///
/// # Example
/// ```
/// assert_eq!(htrewrite_tokenizer::decode_attribute_value(b"a&amp;b&notit"), "a&b&notit");
/// ```
pub fn decode_attribute_value(raw: &[u8]) -> std::borrow::Cow<'_, str> {
    attribute_value(raw, None)
}

/// Decodes the raw bytes of text read in `mode` (character references where
/// the mode allows, CR/CRLF → LF, U+0000 per mode); `eof` tells whether the
/// text ends at the end of input (an unfinished reference at the end is then complete).
///
/// # Example
/// ```
/// use htrewrite_tokenizer::{TextMode, decode_text};
/// assert_eq!(decode_text(b"a&lt;b\r\n", TextMode::Data, true), "a<b\n");
/// assert_eq!(decode_text(b"a&lt;b", TextMode::Rawtext, true), "a&lt;b");
/// ```
pub fn decode_text(raw: &[u8], mode: crate::TextMode, eof: bool) -> std::borrow::Cow<'_, str> {
    text(raw, mode, eof, None, None)
}
