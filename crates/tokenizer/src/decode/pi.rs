//! PLACEHOLDER — to be implemented (helper H1b).
use std::borrow::Cow;
use super::ErrorFn;

/// Target and data of a processing instruction token.
pub(crate) fn processing_instruction<'a>(raw: &'a [u8], err: Option<ErrorFn<'_>>) -> (Cow<'a, str>, Cow<'a, str>) {
    let _ = (raw, err);
    unimplemented!()
}
