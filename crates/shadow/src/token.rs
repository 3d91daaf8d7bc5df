//! The tree builder's own small token model, filled from
//! [`htrewrite_tokenizer::Token`] by [`Shadow::process`](crate::Shadow::process)
//! or built directly (tests, other tokenizers).

use htrewrite_tokenizer::{Doctype, Span};

use crate::ShadowAttr;

/// A start or end tag as tree construction sees it.
///
/// # Example
/// ```
/// use htrewrite_shadow::{ShadowAttr, TagToken};
/// let t = TagToken::new("a", vec![ShadowAttr::new("href", "x")]);
/// assert_eq!(t.name, "a");
/// assert!(!t.self_closing);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TagToken {
    /// The tag name, ASCII-lowercased.
    pub name: String,
    /// The attributes, duplicates dropped (first wins), names lowercased, in no namespace.
    pub attrs: Vec<ShadowAttr>,
    /// Whether the tag ends with `/>`.
    pub self_closing: bool,
    /// The tag's bytes in the input.
    pub span: Span,
}

impl TagToken {
    /// Makes `self` a copy of `source`, reusing the buffers of its name and
    /// attributes, and past them those of `spare`, where its surplus
    /// attributes go (at most 16 kept): a kept token copied into again and
    /// again allocates nothing once its buffers are large enough.
    pub(crate) fn copy_keeping(&mut self, source: &TagToken, spare: &mut Vec<ShadowAttr>) {
        self.name.clone_from(&source.name);
        self.self_closing = source.self_closing;
        self.span = source.span;
        while self.attrs.len() > source.attrs.len() {
            let a = self.attrs.pop().expect("longer");
            if spare.len() < 16 {
                spare.push(a);
            }
        }
        let kept = self.attrs.len();
        self.attrs.clone_from_slice(&source.attrs[..kept]);
        for a in &source.attrs[kept..] {
            let mut b = spare.pop().unwrap_or_default();
            b.clone_from(a);
            self.attrs.push(b);
        }
    }

    /// A tag without span or self-closing flag.
    pub fn new(name: impl Into<String>, attrs: Vec<ShadowAttr>) -> TagToken {
        TagToken { name: name.into(), attrs, self_closing: false, span: Span::default() }
    }

    /// The value of attribute `name`, if present.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.iter().find(|a| a.name == name).map(|a| a.value.as_str())
    }
}

/// One token of tree construction.
///
/// # Example
/// ```
/// use htrewrite_shadow::{TagToken, TreeToken};
/// let p = TagToken::new("p", vec![]);
/// let t = TreeToken::StartTag(&p);
/// assert!(matches!(t, TreeToken::StartTag(_)));
/// ```
#[derive(Debug, Clone, Copy)]
pub enum TreeToken<'a> {
    /// A start tag.
    StartTag(&'a TagToken),
    /// An end tag.
    EndTag(&'a TagToken),
    /// Character tokens (a run of them), already decoded.
    Text(&'a str),
    /// A comment.
    Comment(&'a str),
    /// A processing instruction.
    ProcessingInstruction {
        /// Its target.
        target: &'a str,
        /// Its data.
        data: &'a str,
    },
    /// A DOCTYPE.
    Doctype(&'a Doctype),
    /// The end of the input.
    Eof,
}

/// A comment or a processing instruction (inserted alike).
#[derive(Debug, Clone, Copy)]
pub(crate) enum CommentLike<'a> {
    Comment(&'a str),
    Pi(&'a str, &'a str),
}

/// A non-text token, as the insertion modes dispatch on it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Tok<'a> {
    Start(&'a TagToken),
    End(&'a TagToken),
    Comment(CommentLike<'a>),
    Doctype(&'a Doctype),
    Eof,
}
