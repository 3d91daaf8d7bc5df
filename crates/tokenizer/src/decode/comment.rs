//! PLACEHOLDER — to be implemented (helper H1b).
use std::borrow::Cow;
use super::ErrorFn;
use crate::CommentKind;

/// The data of a comment token.
pub(crate) fn comment<'a>(raw: &'a [u8], kind: CommentKind, eof: bool, err: Option<ErrorFn<'_>>) -> Cow<'a, str> {
    let _ = (raw, kind, eof, err);
    unimplemented!()
}
