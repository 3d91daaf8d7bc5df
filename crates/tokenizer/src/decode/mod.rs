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
pub(crate) use text::{attribute_value, name, text};

/// Receives a parse error code and the bytes it concerns, relative to the
/// token's first byte.
pub type ErrorFn<'e> = &'e mut dyn FnMut(ParseErrorCode, Rel);
