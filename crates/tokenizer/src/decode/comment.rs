//! PLACEHOLDER — to be implemented (helper H1b).
use super::ErrorFn;
use crate::CommentKind;
use std::borrow::Cow;

/// The data of a comment token.
pub(crate) fn comment<'a>(raw: &'a [u8], kind: CommentKind, eof: bool, err: Option<ErrorFn<'_>>) -> Cow<'a, str> {
    let _ = (raw, kind, eof, err);
    unimplemented!()
}
