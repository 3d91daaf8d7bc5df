//! PLACEHOLDER — to be implemented (helper H1b).
use super::ErrorFn;
use std::borrow::Cow;

/// Target and data of a processing instruction token.
pub(crate) fn processing_instruction<'a>(raw: &'a [u8], err: Option<ErrorFn<'_>>) -> (Cow<'a, str>, Cow<'a, str>) {
    let _ = (raw, err);
    unimplemented!()
}
