//! PLACEHOLDER — to be implemented (helper H1b).
use super::ErrorFn;
use crate::Doctype;

/// The fields of a DOCTYPE token.
pub(crate) fn doctype(raw: &[u8], eof: bool, err: Option<ErrorFn<'_>>) -> Doctype {
    let _ = (raw, eof, err);
    unimplemented!()
}
