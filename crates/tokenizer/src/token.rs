//! Tokens: kind, exact raw bytes, absolute span, and decoded views computed on demand.

use std::borrow::Cow;

use crate::decode;
use crate::{ParseError, ParseErrorCode, Rel, Span};

/// The text mode a piece of text was tokenized in, and the mode the consumer
/// asks for after a start tag.
///
/// Each variant is a tokenizer state of the Standard; the mode decides which
/// character references are decoded, how U+0000 is treated, and what ends the
/// text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TextMode {
    /// [Data state](https://html.spec.whatwg.org/multipage/parsing.html#data-state):
    /// character references decoded, U+0000 kept (a parse error).
    #[default]
    Data,
    /// [RCDATA state](https://html.spec.whatwg.org/multipage/parsing.html#rcdata-state)
    /// (`<title>`, `<textarea>`): character references decoded, U+0000 → U+FFFD.
    Rcdata,
    /// [RAWTEXT state](https://html.spec.whatwg.org/multipage/parsing.html#rawtext-state)
    /// (`<style>`, `<xmp>`, `<iframe>`, …): no references, U+0000 → U+FFFD.
    Rawtext,
    /// [Script data state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-state),
    /// with its escape states: no references, U+0000 → U+FFFD.
    ScriptData,
    /// [PLAINTEXT state](https://html.spec.whatwg.org/multipage/parsing.html#plaintext-state):
    /// everything to the end of input is text.
    Plaintext,
    /// [CDATA section state](https://html.spec.whatwg.org/multipage/parsing.html#cdata-section-state)
    /// (only in foreign content): no references, U+0000 kept.
    CdataSection,
}

/// Where a comment token came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CommentKind {
    /// `<!-- … -->` (also `<!-->`, `<!--->`, `--!>` endings and EOF).
    Regular,
    /// A [bogus comment](https://html.spec.whatwg.org/multipage/parsing.html#bogus-comment-state)
    /// opened by `<!` (including `<![CDATA[` where CDATA is not allowed).
    BogusMarkupDeclaration,
    /// A bogus comment opened by `</` and a character that cannot start a tag name.
    BogusEndTag,
    /// A bogus comment opened by `<?` whose target is invalid or disallowed
    /// (`xml`, `xml-stylesheet`); its data keeps the `?`.
    BogusProcessingInstruction,
}

/// Why bytes were consumed without producing a spec token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// `</>`: the Standard drops it (`missing-end-tag-name`).
    MissingEndTagName,
    /// A start or end tag cut off by the end of input (`eof-in-tag`).
    EofInTag,
    /// A processing instruction cut off by the end of input.
    EofInProcessingInstruction,
}

/// The kind of a [`Token`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TokenKind {
    /// Character data, tokenized in the given mode. Consecutive text tokens
    /// are one text run of the Standard split at chunk ends.
    Text(TextMode),
    /// `<name …>`.
    StartTag,
    /// `</name …>`.
    EndTag,
    /// A comment.
    Comment(CommentKind),
    /// `<!DOCTYPE …>`.
    Doctype,
    /// `<?target data>` (processing instructions, added to the Standard in 2026).
    ProcessingInstruction,
    /// `<![CDATA[`, where CDATA sections are allowed (foreign content).
    CdataStart,
    /// `]]>` closing a CDATA section.
    CdataEnd,
    /// Bytes the Standard consumes without emitting anything.
    Dropped(DropReason),
}

/// How an attribute value was quoted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Quote {
    /// `a=v` or no value at all.
    #[default]
    None,
    /// `a='v'`.
    Single,
    /// `a="v"`.
    Double,
}

/// Whether the name whose bytes are `raw` decodes ([`decode::name`]) to
/// `lowercase`. A name of ASCII bytes without NUL, the common one, decodes
/// to its bytes ASCII-lowercased: compared byte by byte, not decoded (a
/// match is found before the bytes are checked, a mismatch after).
fn name_is(raw: &[u8], lowercase: &str) -> bool {
    // The common case first: the bytes, ASCII-lowercased, are `lowercase`'s
    // and none is NUL. Then `raw` decodes to them (its other bytes are
    // `lowercase`'s, valid UTF-8, which lowercasing ASCII keeps).
    let want = lowercase.as_bytes();
    if raw.len() == want.len() {
        let mut i = 0;
        while i < raw.len() && raw[i] != 0 && raw[i].to_ascii_lowercase() == want[i] {
            i += 1;
        }
        if i == raw.len() {
            return true;
        }
    }
    // Decoding never shortens a name (ASCII keeps its length, U+0000 and
    // each invalid UTF-8 sequence of one to three bytes become U+FFFD's
    // three): longer bytes are not `lowercase`.
    if raw.len() > want.len() {
        return false;
    }
    // Otherwise a name of ASCII bytes without NUL, which decodes to its
    // bytes lowercased, is not `lowercase`; others are decoded.
    if raw.iter().all(|&b| b.wrapping_sub(1) < 0x7F) {
        return false;
    }
    decode::name(raw, None) == lowercase
}

/// Whether `raw`, ASCII-lowercased, is `lowercase` byte for byte: the
/// comparison of [`Token::tag_name_is`] (`name_is` stops at NUL too). By
/// index, which compiles to a shorter loop than a zip.
#[inline(always)]
fn lowercased_eq(raw: &[u8], lowercase: &[u8]) -> bool {
    if raw.len() != lowercase.len() {
        return false;
    }
    let mut i = 0;
    while i < raw.len() && raw[i].to_ascii_lowercase() == lowercase[i] {
        i += 1;
    }
    i == raw.len()
}

/// Where one attribute of a tag lies in the tag's raw bytes.
///
/// # Example
/// ```
/// use htrewrite_tokenizer::{tokenize_str, Quote};
/// let tokens = tokenize_str("<a href='x'>");
/// let a = tokens[0].attributes[0];
/// assert_eq!(a.name.slice(tokens[0].raw.as_bytes()), b"href");
/// assert_eq!(a.value.unwrap().slice(tokens[0].raw.as_bytes()), b"x");
/// assert_eq!(a.quote, Quote::Single);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct AttributeSpan {
    /// The name's bytes.
    pub name: Rel,
    /// The value's bytes without quotes; `None` when there is no `=`.
    pub value: Option<Rel>,
    /// The quoting used.
    pub quote: Quote,
}

/// One attribute, decoded on demand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attribute<'a> {
    /// The name, ASCII-lowercased, U+0000 → U+FFFD.
    pub name: Cow<'a, str>,
    /// The value with character references decoded by the attribute rules.
    pub value: Cow<'a, str>,
    /// Where it lies.
    pub span: AttributeSpan,
    /// Whether an earlier attribute of the same tag has the same name (the
    /// Standard drops such duplicates; they are kept here, flagged).
    pub duplicate: bool,
}

/// The fields of a DOCTYPE token.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Doctype {
    /// The name, ASCII-lowercased; `None` when missing.
    pub name: Option<String>,
    /// The public identifier; `None` when missing.
    pub public_id: Option<String>,
    /// The system identifier; `None` when missing.
    pub system_id: Option<String>,
    /// The force-quirks flag.
    pub force_quirks: bool,
}

/// A token: its kind, its exact source bytes and their absolute span.
///
/// Tokens borrow the tokenizer's buffers and the fed chunk; they live only
/// during the [`TokenSink::token`](crate::TokenSink::token) call. Decoded views
/// (`tag_name`, `attributes`, `text`, …) are computed only when called.
///
/// # Example
/// ```
/// use htrewrite_tokenizer::{tokenize_str, TokenKind};
/// let tokens = tokenize_str("<p class=a>x &amp; y");
/// assert_eq!(tokens[0].kind, TokenKind::StartTag);
/// assert_eq!(tokens[0].raw, "<p class=a>");
/// assert_eq!(tokens[1].raw, "x &amp; y");
/// assert_eq!(tokens[1].text.as_deref(), Some("x & y"));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Token<'a> {
    pub(crate) kind: TokenKind,
    pub(crate) raw: &'a [u8],
    pub(crate) start: u64,
    pub(crate) eof: bool,
    pub(crate) self_closing: bool,
    pub(crate) name: Rel,
    pub(crate) attributes: &'a [AttributeSpan],
    pub(crate) nul_free: bool,
    pub(crate) markup_next: bool,
    /// For tags: the name packed ([`pack_name`], lowercased) when the scan
    /// packed it on its way, else 0.
    pub(crate) name_word: u64,
}

impl<'a> Token<'a> {
    /// The kind of token.
    #[inline]
    pub fn kind(&self) -> TokenKind {
        self.kind
    }

    /// The exact source bytes of the token.
    #[inline]
    pub fn raw(&self) -> &'a [u8] {
        self.raw
    }

    /// The absolute byte span of [`Token::raw`].
    #[inline]
    pub fn span(&self) -> Span {
        Span::new(self.start, self.start + self.raw.len() as u64)
    }

    /// Whether this is data-state text whose every byte the tokenizer's
    /// scan read and found not to be U+0000 (the data state looks for `<`
    /// and NUL in one pass): then [`Token::raw`] has no NUL byte, and a
    /// consumer need not look for one. `false` tells nothing: other tokens,
    /// text of other modes, and text the scan did not read whole (rare:
    /// around a `<` at the end of a chunk) may or may not have one.
    ///
    /// # Example
    /// ```
    /// use htrewrite_tokenizer::{TagNamePolicy, Token, Tokenizer};
    /// let mut seen = Vec::new();
    /// let mut sink = TagNamePolicy(|t: &Token<'_>| seen.push(t.scanned_without_nul()));
    /// let mut tokenizer = Tokenizer::new();
    /// tokenizer.feed(b"a<b>c\0d", &mut sink);
    /// tokenizer.finish(&mut sink);
    /// drop(sink);
    /// assert_eq!(seen, [true, false, false]); // `a`, `<b>`, `c\0d`
    /// ```
    ///
    /// # Errors
    /// None.
    #[inline]
    pub fn scanned_without_nul(&self) -> bool {
        self.nul_free
    }

    /// Whether this text token ends where the tokenizer has read markup:
    /// `<` and a letter, `</`, `<!`, `<?`, the appropriate end tag of
    /// RCDATA, RAWTEXT or script data, or `]]>` after CDATA text. Then the
    /// next token the tokenizer emits is not text, and a consumer that ends a
    /// text node at the next token that is not text may end it here.
    /// `false` tells nothing: other tokens, and text cut where a chunk ends
    /// (even before a `<`), may be followed by more text.
    ///
    /// # Example
    /// ```
    /// use htrewrite_tokenizer::{TagNamePolicy, Token, Tokenizer};
    /// let mut seen = Vec::new();
    /// let mut sink = TagNamePolicy(|t: &Token<'_>| seen.push(t.ends_before_markup()));
    /// let mut tokenizer = Tokenizer::new();
    /// tokenizer.feed(b"a<b>c", &mut sink);
    /// tokenizer.feed(b" d", &mut sink);
    /// tokenizer.finish(&mut sink);
    /// drop(sink);
    /// assert_eq!(seen, [true, false, false, false]); // `a`, `<b>`, `c`, ` d`
    /// ```
    ///
    /// # Errors
    /// None.
    #[inline]
    pub fn ends_before_markup(&self) -> bool {
        self.markup_next
    }

    /// Whether the end of input terminated this token (an unclosed comment,
    /// DOCTYPE, CDATA section or text run at EOF).
    #[inline]
    pub fn is_eof_terminated(&self) -> bool {
        self.eof
    }

    /// For tags: whether the tag ends with `/>`.
    #[inline]
    pub fn is_self_closing(&self) -> bool {
        self.self_closing
    }

    /// For tags: the raw bytes of the tag name (as written, not lowercased).
    /// Empty for other kinds.
    #[inline]
    pub fn raw_tag_name(&self) -> &'a [u8] {
        &self.raw[self.name.start..self.name.end]
    }

    /// For tags: the tag name ASCII-lowercased and packed into a word
    /// ([`pack_name`] of [`Token::raw_tag_name`], lowercased): a key by
    /// which a consumer looks up the names it knows with one comparison.
    /// `None` for a name longer than eight bytes or with a NUL byte, and for
    /// other kinds of token. The tokenizer's scan packs a name a word at a
    /// time as it finds the name's end (when eight bytes from the name's
    /// start lie in the chunk: nearly always); otherwise it is packed here.
    ///
    /// # Example
    /// ```
    /// use htrewrite_tokenizer::{Token, TokenKind, pack_name};
    /// let mut words = Vec::new();
    /// struct Words<'a>(&'a mut Vec<Option<u64>>);
    /// impl htrewrite_tokenizer::TokenSink for Words<'_> {
    ///     fn token(&mut self, t: &Token<'_>) -> htrewrite_tokenizer::Feedback {
    ///         if matches!(t.kind(), TokenKind::StartTag | TokenKind::EndTag) {
    ///             self.0.push(t.packed_tag_name());
    ///         }
    ///         Default::default()
    ///     }
    /// }
    /// let mut tokenizer = htrewrite_tokenizer::Tokenizer::new();
    /// tokenizer.feed(b"<DIV class=x></Blockquote><a\0>", &mut Words(&mut words));
    /// tokenizer.finish(&mut Words(&mut words));
    /// assert_eq!(words, [pack_name(b"div", false), None, None]);
    /// assert_eq!(words[0], Some(u64::from_le_bytes(*b"div\0\0\0\0\0")));
    /// ```
    ///
    /// # Errors
    /// None: `None` for a name that does not pack.
    #[inline]
    pub fn packed_tag_name(&self) -> Option<u64> {
        if self.name_word != 0 {
            return Some(self.name_word);
        }
        pack_name(self.raw_tag_name(), true)
    }

    /// For tags: the span of the tag name relative to [`Token::raw`].
    #[inline]
    pub fn tag_name_span(&self) -> Rel {
        self.name
    }

    /// For tags: the tag name, ASCII-lowercased, U+0000 → U+FFFD.
    pub fn tag_name(&self) -> Cow<'a, str> {
        decode::name(self.raw_tag_name(), None)
    }

    /// For tags: whether the tag name equals `lowercase` ASCII case-insensitively,
    /// without allocating. `lowercase` must be lowercase.
    #[inline]
    pub fn tag_name_is(&self, lowercase: &[u8]) -> bool {
        lowercased_eq(self.raw_tag_name(), lowercase)
    }

    /// For tags: where each attribute lies, in source order, duplicates included.
    #[inline]
    pub fn attribute_spans(&self) -> &'a [AttributeSpan] {
        self.attributes
    }

    /// For tags: the attributes decoded, in source order, duplicates included
    /// and flagged.
    ///
    /// # Example
    /// ```
    /// use htrewrite_tokenizer::{TagNamePolicy, Token, Tokenizer};
    /// let mut seen = Vec::new();
    /// let mut sink = TagNamePolicy(|t: &Token<'_>| {
    ///     for a in t.attributes() {
    ///         seen.push((a.name.into_owned(), a.value.into_owned(), a.duplicate));
    ///     }
    /// });
    /// let mut tokenizer = Tokenizer::new();
    /// tokenizer.feed(b"<a HREF='x&amp;y' href=z>", &mut sink);
    /// tokenizer.finish(&mut sink);
    /// drop(sink);
    /// assert_eq!(seen, [("href".into(), "x&y".into(), false), ("href".into(), "z".into(), true)]);
    /// ```
    ///
    /// # Complexity
    /// O(total attribute bytes), with a hash set for duplicate detection on
    /// tags with many attributes (the reference tag parser's set).
    pub fn attributes(&self) -> Vec<Attribute<'a>> {
        let mut out: Vec<Attribute<'a>> = Vec::with_capacity(self.attributes.len());
        let mut seen = decode::Seen::new();
        for span in self.attributes {
            let name = decode::name(span.name.slice(self.raw), None);
            let value = match span.value {
                Some(v) => decode::attribute_value(v.slice(self.raw), None),
                None => Cow::Borrowed(""),
            };
            let duplicate = !seen.insert(name.clone());
            out.push(Attribute { name, value, span: *span, duplicate });
        }
        out
    }

    /// For tags: whether the attribute at `span` (one of
    /// [`Token::attribute_spans`]) is named `lowercase`, as
    /// [`Token::attributes`] decodes names: ASCII lowercased, U+0000 and
    /// invalid UTF-8 as U+FFFD.
    ///
    /// # Example
    /// ```
    /// use htrewrite_tokenizer::{TagNamePolicy, Token, Tokenizer};
    /// let mut named = Vec::new();
    /// let mut sink = TagNamePolicy(|t: &Token<'_>| {
    ///     for span in t.attribute_spans() {
    ///         named.push(t.attribute_name_is(span, "href"));
    ///     }
    /// });
    /// let mut tokenizer = Tokenizer::new();
    /// tokenizer.feed(b"<a HREF=x title=y>", &mut sink);
    /// tokenizer.finish(&mut sink);
    /// drop(sink);
    /// assert_eq!(named, [true, false]);
    /// ```
    ///
    /// # Complexity
    /// O(name length); allocates only for names with NUL or bytes
    /// outside ASCII and upper case.
    pub fn attribute_name_is(&self, span: &AttributeSpan, lowercase: &str) -> bool {
        name_is(span.name.slice(self.raw), lowercase)
    }

    /// For tags: the decoded value of the first attribute whose decoded name
    /// ([`Token::attribute_name_is`]: ASCII-lowercased, U+0000 and invalid
    /// UTF-8 → U+FFFD) is `lowercase`, if any.
    pub fn attribute(&self, lowercase: &str) -> Option<Cow<'a, str>> {
        self.attributes.iter().find_map(|span| {
            name_is(span.name.slice(self.raw), lowercase).then(|| match span.value {
                Some(v) => decode::attribute_value(v.slice(self.raw), None),
                None => Cow::Borrowed(""),
            })
        })
    }

    /// For text tokens: the text decoded for its mode (character references
    /// where the mode allows, CR and CRLF → LF, U+0000 per mode). `None` for
    /// other kinds.
    pub fn text(&self) -> Option<Cow<'a, str>> {
        match self.kind {
            TokenKind::Text(mode) => Some(decode::text(self.raw, mode, self.eof, None, None)),
            _ => None,
        }
    }

    /// [`Token::text`], making a decoded copy (when the text differs from
    /// its bytes: references, CR, U+0000) in `spare`'s buffer, which it
    /// takes: give the `String` of a `Cow::Owned` back to `spare` when done,
    /// and text after text decodes without allocating.
    ///
    /// # Example
    /// ```
    /// use std::borrow::Cow;
    /// use htrewrite_tokenizer::{TagNamePolicy, Token, Tokenizer};
    /// let mut spare = String::with_capacity(64);
    /// let mut texts = Vec::new();
    /// let mut sink = TagNamePolicy(|t: &Token<'_>| {
    ///     if let Some(text) = t.text_reusing(&mut spare) {
    ///         texts.push(text.to_string());
    ///         if let Cow::Owned(s) = text {
    ///             spare = s; // given back: the next decoded text reuses it
    ///         }
    ///     }
    /// });
    /// let mut tokenizer = Tokenizer::new();
    /// tokenizer.feed(b"a&amp;b<p>c&lt;d<p>e", &mut sink);
    /// tokenizer.finish(&mut sink);
    /// drop(sink);
    /// assert_eq!(texts, ["a&b", "c<d", "e"]);
    /// assert!(spare.capacity() >= 64);
    /// ```
    ///
    /// # Errors
    /// None: `None` for tokens that are not text.
    pub fn text_reusing(&self, spare: &mut String) -> Option<Cow<'a, str>> {
        match self.kind {
            TokenKind::Text(mode) => Some(decode::text(self.raw, mode, self.eof, None, Some(spare))),
            _ => None,
        }
    }

    /// [`Token::text_reusing`] for a caller that holds the token's bytes as
    /// `str` already (it checked the UTF-8 of the whole input chunk once):
    /// `valid` must be those bytes. The same text, without checking the
    /// UTF-8 again; `valid` is borrowed when nothing changes.
    ///
    /// # Example
    /// ```
    /// use htrewrite_tokenizer::{TagNamePolicy, Token, Tokenizer};
    /// let chunk = "a&amp;b<p>caf\u{e9}";
    /// let mut spare = String::new();
    /// let mut texts = Vec::new();
    /// let mut sink = TagNamePolicy(|t: &Token<'_>| {
    ///     let span = t.span();
    ///     let valid = &chunk[span.start as usize..span.end as usize];
    ///     if let Some(text) = t.text_reusing_valid(valid, &mut spare) {
    ///         texts.push(text.to_string());
    ///     }
    /// });
    /// let mut tokenizer = Tokenizer::new();
    /// tokenizer.feed(chunk.as_bytes(), &mut sink);
    /// tokenizer.finish(&mut sink);
    /// drop(sink);
    /// assert_eq!(texts, ["a&b", "caf\u{e9}"]);
    /// ```
    ///
    /// # Errors
    /// None: `None` for tokens that are not text. (Given other bytes than
    /// the token's, the text is theirs: debug builds assert they are equal.)
    #[inline]
    pub fn text_reusing_valid<'v>(&self, valid: &'v str, spare: &mut String) -> Option<Cow<'v, str>> {
        debug_assert_eq!(valid.as_bytes(), self.raw, "the token's bytes");
        match self.kind {
            TokenKind::Text(mode) => Some(decode::text_valid(valid, mode, self.eof, Some(spare))),
            _ => None,
        }
    }

    /// For comments: the comment's data, decoded. `None` for other kinds.
    pub fn comment_data(&self) -> Option<Cow<'a, str>> {
        match self.kind {
            TokenKind::Comment(kind) => Some(decode::comment(self.raw, kind, self.eof, None)),
            _ => None,
        }
    }

    /// For DOCTYPE tokens: name, identifiers and force-quirks. `None` for other kinds.
    pub fn doctype(&self) -> Option<Doctype> {
        match self.kind {
            TokenKind::Doctype => Some(decode::doctype(self.raw, self.eof, None)),
            _ => None,
        }
    }

    /// For processing instructions: `(target, data)`, decoded. `None` for other kinds.
    pub fn processing_instruction(&self) -> Option<(Cow<'a, str>, Cow<'a, str>)> {
        match self.kind {
            TokenKind::ProcessingInstruction => Some(decode::processing_instruction(self.raw, None)),
            _ => None,
        }
    }

    /// Reports the parse errors that lie inside this token (character
    /// references, attributes, comment and DOCTYPE syntax, `eof-in-*`).
    ///
    /// Errors of the input stream itself (control characters, noncharacters)
    /// are reported by [`InputStreamChecker`](crate::InputStreamChecker), and
    /// the few errors that span tokens (`eof-in-cdata`,
    /// `eof-in-script-html-comment-like-text`) by the tokenizer through
    /// [`TokenSink::parse_error`](crate::TokenSink::parse_error).
    pub fn parse_errors(&self, report: &mut dyn FnMut(ParseError)) {
        let base = self.start;
        let mut f = |code: ParseErrorCode, rel: Rel| report(ParseError { code, span: rel.absolute(base) });
        let f: decode::ErrorFn<'_> = &mut f;
        match self.kind {
            TokenKind::Text(mode) => {
                decode::text(self.raw, mode, self.eof, Some(f), None);
            }
            TokenKind::StartTag | TokenKind::EndTag => {
                decode::tag(self.raw, self.kind == TokenKind::EndTag, false, Some(f));
            }
            TokenKind::Comment(kind) => {
                decode::comment(self.raw, kind, self.eof, Some(f));
            }
            TokenKind::Doctype => {
                decode::doctype(self.raw, self.eof, Some(f));
            }
            TokenKind::ProcessingInstruction => {
                decode::processing_instruction(self.raw, Some(f));
            }
            TokenKind::CdataStart | TokenKind::CdataEnd => {}
            TokenKind::Dropped(DropReason::MissingEndTagName) => {
                f(ParseErrorCode::MissingEndTagName, Rel::new(0, self.raw.len()));
            }
            TokenKind::Dropped(DropReason::EofInTag) => {
                let is_end = self.raw.get(1) == Some(&b'/');
                decode::tag(self.raw, is_end, true, Some(f));
            }
            TokenKind::Dropped(DropReason::EofInProcessingInstruction) => {
                decode::processing_instruction(self.raw, Some(f));
            }
        }
    }
}

/// A name of 1 to 8 bytes without NUL packed into a `u64`, its bytes
/// little-endian and zero-padded (so distinct names give distinct words),
/// ASCII-lowercased with `lowercase`; `None` for other names. The key of
/// [`Token::packed_tag_name`], and a `const fn`, so that a consumer can
/// build its table of names at compile time with the same rule.
///
/// # Example
/// ```
/// use htrewrite_tokenizer::pack_name;
/// assert_eq!(pack_name(b"Li", true), Some(u64::from(b'l') | u64::from(b'i') << 8));
/// assert_eq!(pack_name(b"Li", false), Some(u64::from(b'L') | u64::from(b'i') << 8));
/// assert_eq!(pack_name(b"a\0", true), None);
/// assert_eq!(pack_name(b"blockquote", true), None);
/// assert_eq!(pack_name(b"", true), None);
/// ```
///
/// # Errors
/// None: `None` for an empty name, a longer one, or one with NUL.
#[inline(always)]
pub const fn pack_name(name: &[u8], lowercase: bool) -> Option<u64> {
    if name.is_empty() || name.len() > 8 {
        return None;
    }
    // Byte by byte (no call to memcpy for a few bytes), NUL checked on the way.
    let mut word = 0u64;
    let mut i = 0;
    while i < name.len() {
        if name[i] == 0 {
            return None;
        }
        let c = if lowercase { name[i].to_ascii_lowercase() } else { name[i] };
        word |= (c as u64) << (8 * i);
        i += 1;
    }
    Some(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `name_is` answers as comparing the decoded name does, for names that
    /// take its byte comparison (ASCII without NUL, any case) and for those
    /// that are decoded (NUL, other characters, invalid UTF-8), against
    /// every candidate: the names' own decodings and their near misses.
    #[test]
    fn name_is_compares_as_the_decoded_name() {
        let raws: [&[u8]; 15] = [
            b"href",
            b"HREF",
            b"HrEf",
            b"hre",
            b"hrefs",
            b"a\0",
            b"\0",
            b"\xC3\xA9",
            b"\xC3\x89",
            b"\xFF",
            b"x-Y_1",
            b"",
            // Invalid sequences of two and three bytes: one U+FFFD each.
            b"\xE2\x82",
            b"\xF0\x9F\x98",
            b"a\xE2\x82b",
        ];
        let mut candidates: Vec<String> = raws.iter().map(|r| decode::name(r, None).into_owned()).collect();
        // With NUL too: equal bytes are not an equal name when they hold one.
        candidates.extend(
            ["href", "HREF", "a\u{FFFD}", "\u{FFFD}", "é", "É", "x-y_1", "hre", "a\0", "\0", "a\u{FFFD}b"]
                .map(String::from),
        );
        let mut byte_compared = 0;
        for raw in raws {
            for c in &candidates {
                assert_eq!(name_is(raw, c), decode::name(raw, None) == c.as_str(), "{raw:?} {c:?}");
            }
            byte_compared += usize::from(raw.iter().all(|&b| b.wrapping_sub(1) < 0x7F));
        }
        assert_eq!(byte_compared, 7, "the byte comparison is tested on the ASCII names");
    }

    /// `Token::attribute` finds an attribute by its decoded name, as
    /// `Token::attributes` lists it: a name with NUL or invalid UTF-8 is
    /// found by its U+FFFD, not by its bytes; the first of a name wins.
    #[test]
    fn attribute_finds_the_decoded_name() {
        let mut found = Vec::new();
        {
            let mut sink = crate::TagNamePolicy(|t: &Token<'_>| {
                if t.kind() == TokenKind::StartTag {
                    for name in ["a\u{FFFD}", "a\0", "b\u{FFFD}", "b\u{FF}", "href", "c", "x"] {
                        found.push((name, t.attribute(name).map(Cow::into_owned)));
                    }
                }
            });
            let mut tokenizer = crate::Tokenizer::new();
            tokenizer.feed(b"<p a\0=1 b\xff=2 HREF=3 href=4 c>", &mut sink);
            tokenizer.finish(&mut sink);
        }
        let some = |v: &str| Some(v.to_string());
        assert_eq!(
            found,
            [
                ("a\u{FFFD}", some("1")),
                ("a\0", None),
                ("b\u{FFFD}", some("2")),
                ("b\u{FF}", None),
                ("href", some("3")),
                ("c", some("")),
                ("x", None),
            ]
        );
    }

    proptest::proptest! {
        /// What `name_is` relies on to answer `false` for bytes longer than
        /// the name: decoding never makes a name shorter than its bytes.
        #[test]
        fn decoded_names_are_never_shorter(raw in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..24)) {
            proptest::prop_assert!(decode::name(&raw, None).len() >= raw.len());
        }
    }
}
