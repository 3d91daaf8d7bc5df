//! PLACEHOLDER — to be implemented (helper H1a).
use super::ErrorFn;
use crate::TextMode;
use std::borrow::Cow;

/// Decodes a tag or attribute name: ASCII-lowercased, U+0000 → U+FFFD
/// (`unexpected-null-character`), other bytes as UTF-8 (lossy).
pub(crate) fn name<'a>(raw: &'a [u8], err: Option<ErrorFn<'_>>) -> Cow<'a, str> {
    let _ = (raw, err);
    unimplemented!()
}

/// Decodes an attribute value (raw bytes between the quotes, or the unquoted
/// value): character references by the attribute rules, CR/CRLF → LF,
/// U+0000 → U+FFFD.
pub(crate) fn attribute_value<'a>(raw: &'a [u8], err: Option<ErrorFn<'_>>) -> Cow<'a, str> {
    let _ = (raw, err);
    unimplemented!()
}

/// Decodes a text token's raw bytes for its mode.
pub(crate) fn text<'a>(raw: &'a [u8], mode: TextMode, eof: bool, err: Option<ErrorFn<'_>>) -> Cow<'a, str> {
    let _ = (raw, mode, eof, err);
    unimplemented!()
}
