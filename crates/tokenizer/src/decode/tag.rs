//! PLACEHOLDER — to be implemented (helper H1b).
use super::ErrorFn;
use crate::{AttributeSpan, Rel};

/// A tag parsed by the slow reference implementation.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReferenceTag {
    /// The tag name's bytes.
    pub name: Rel,
    /// The attributes, in source order, duplicates included.
    pub attributes: Vec<AttributeSpan>,
    /// Whether the tag ends with `/>`.
    pub self_closing: bool,
}

/// Parses a whole tag token (`<` … `>`, or to the end of `raw` when `eof`).
pub fn tag(raw: &[u8], is_end: bool, eof: bool, err: Option<ErrorFn<'_>>) -> ReferenceTag {
    let _ = (raw, is_end, eof, err);
    unimplemented!()
}
