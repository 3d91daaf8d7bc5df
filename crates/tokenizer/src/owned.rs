//! Owned copies of tokens, for tests, examples and small inputs.

use crate::{AttributeSpan, Span, TagNamePolicy, Token, TokenKind, Tokenizer};

/// An owned copy of a [`Token`] with its commonly used views.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedToken {
    /// The kind of token.
    pub kind: TokenKind,
    /// The raw bytes, as text (lossy where they are not UTF-8).
    pub raw: String,
    /// The absolute span of the raw bytes.
    pub span: Span,
    /// For tags: attribute spans relative to `raw`.
    pub attributes: Vec<AttributeSpan>,
    /// For text tokens: the decoded text.
    pub text: Option<String>,
}

impl OwnedToken {
    /// Copies a borrowed token.
    pub fn from_token(t: &Token<'_>) -> OwnedToken {
        OwnedToken {
            kind: t.kind(),
            raw: String::from_utf8_lossy(t.raw()).into_owned(),
            span: t.span(),
            attributes: t.attribute_spans().to_vec(),
            text: t.text().map(|c| c.into_owned()),
        }
    }
}

/// Tokenizes `html` in one chunk with the by-tag-name text mode policy
/// ([`TagNamePolicy`]) and returns owned tokens.
///
/// # Example
/// ```
/// use htrewrite_tokenizer::{tokenize_str, TokenKind};
/// let t = tokenize_str("<title>a<b></title>");
/// assert_eq!(t[1].raw, "a<b>");
/// assert_eq!(t[2].kind, TokenKind::EndTag);
/// ```
pub fn tokenize_str(html: &str) -> Vec<OwnedToken> {
    tokenize(html.as_bytes())
}

/// Like [`tokenize_str`] for bytes.
pub fn tokenize(html: &[u8]) -> Vec<OwnedToken> {
    let mut out = Vec::new();
    let mut sink = TagNamePolicy(|t: &Token<'_>| out.push(OwnedToken::from_token(t)));
    let mut tokenizer = Tokenizer::new();
    tokenizer.feed(html, &mut sink);
    tokenizer.finish(&mut sink);
    out
}
