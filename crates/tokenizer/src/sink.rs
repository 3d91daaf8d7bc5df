//! The consumer side of the tokenizer: [`TokenSink`] and its [`Feedback`].

use crate::{ParseError, TextMode, Token, TokenKind};

/// What the consumer tells the tokenizer after each token.
///
/// The tokenizer never decides a text mode from a tag name on its own: the
/// tree builder does (the Standard's tree construction switches the
/// tokenizer to RCDATA, RAWTEXT, script data or PLAINTEXT only when it really
/// inserts such an element). After a start tag, `text_mode` is the state the
/// tokenizer continues in; the end tag that leaves it is the Standard's
/// "appropriate end tag", named after that start tag. `text_mode` is ignored
/// after other tokens. (Whether `<![CDATA[` opens a CDATA section is asked
/// only where it is read: [`TokenSink::cdata_allowed`].)
///
/// # Example
/// ```
/// use htrewrite_tokenizer::{Feedback, TextMode};
/// let f = Feedback { text_mode: TextMode::Rawtext };
/// assert_eq!(f.text_mode, TextMode::Rawtext);
/// assert_eq!(Feedback::default().text_mode, TextMode::Data);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Feedback {
    /// The state to continue in after a start tag.
    pub text_mode: TextMode,
}

/// Receives tokens from a [`Tokenizer`](crate::Tokenizer), one call per token,
/// in input order.
///
/// `Ok`/`Err` do not exist here: a sink that can fail records its failure and
/// the caller stops feeding (the rewriter does exactly that).
pub trait TokenSink {
    /// Handles one token and answers with the [`Feedback`] for the next.
    fn token(&mut self, token: &Token<'_>) -> Feedback;

    /// Offered each text token of the data state, each tag and each comment before
    /// [`TokenSink::token`], in line in the tokenizer's scan: `true` means
    /// the sink has done with the token all that [`TokenSink::token`] would
    /// have done, and would have answered the default [`Feedback`] (a sink
    /// takes a start tag here only when the tokenizer goes on in the data
    /// state after it; after an end tag it does whatever the feedback);
    /// [`TokenSink::token`] is not called for it. `false` leaves it to
    /// [`TokenSink::token`]. For a sink whose common tokens need little
    /// work (the rewriter's text and comments that change nothing in the
    /// tree, and tags that in-body's common rules take): that work without the general
    /// call and without a dispatch on the token's kind, which is known at
    /// each place of the scan. The default takes none.
    ///
    /// # Example
    /// ```
    /// use htrewrite_tokenizer::{CommentKind, Feedback, Token, TokenKind, TokenSink, Tokenizer};
    /// // Text bytes and end tags counted in line; other tokens through `token`.
    /// struct Quick(Vec<TokenKind>, u64, usize);
    /// impl TokenSink for Quick {
    ///     fn token(&mut self, t: &Token<'_>) -> Feedback {
    ///         self.0.push(t.kind());
    ///         Feedback::default()
    ///     }
    ///     fn quick_token(&mut self, t: &Token<'_>) -> bool {
    ///         match t.kind() {
    ///             TokenKind::EndTag => self.2 += 1,
    ///             TokenKind::Text(_) => self.1 += t.raw().len() as u64,
    ///             _ => return false,
    ///         }
    ///         true
    ///     }
    /// }
    /// let mut sink = Quick(Vec::new(), 0, 0);
    /// let mut tokenizer = Tokenizer::new();
    /// tokenizer.feed(b"<p>one</p><!--c--><p>two", &mut sink);
    /// tokenizer.finish(&mut sink);
    /// assert_eq!(sink.0, [TokenKind::StartTag, TokenKind::Comment(CommentKind::Regular), TokenKind::StartTag]);
    /// assert_eq!((sink.1, sink.2), (6, 1));
    /// ```
    #[inline(always)]
    fn quick_token(&mut self, token: &Token<'_>) -> bool {
        let _ = token;
        false
    }

    /// Asked right after each start and end tag (after [`TokenSink::token`]):
    /// `true` makes [`Tokenizer::feed`](crate::Tokenizer::feed) return right
    /// after that tag, before it looks at the next byte; the consumer then
    /// feeds other bytes as if they stood there (the rewriter's parsed
    /// content), and the rest of the chunk after them. The default never
    /// pauses. (A method of its own rather than a field of [`Feedback`]: a
    /// third byte there cost every token about 20 instructions in the
    /// rewriter, in packing and unpacking.)
    #[inline(always)]
    fn pause(&mut self) -> bool {
        false
    }

    /// Asked when the tokenizer has read `<![CDATA[` in the markup
    /// declaration open state, every token before it handed over: whether
    /// there is an adjusted current node and it is not an element in the
    /// HTML namespace. Then a CDATA section opens; else the bytes start a
    /// bogus comment (`cdata-in-html-content`). The default answers `false`,
    /// as for HTML content. (Asked there only, not answered after every token
    /// in [`Feedback`]: working it out for every token cost the rewriter
    /// about 1.2 instructions per byte.)
    ///
    /// # Example
    /// ```
    /// use htrewrite_tokenizer::{Feedback, Token, TokenKind, TokenSink, Tokenizer};
    /// struct Foreign(Vec<TokenKind>);
    /// impl TokenSink for Foreign {
    ///     fn token(&mut self, t: &Token<'_>) -> Feedback {
    ///         self.0.push(t.kind());
    ///         Feedback::default()
    ///     }
    ///     fn cdata_allowed(&mut self) -> bool {
    ///         true
    ///     }
    /// }
    /// let mut sink = Foreign(Vec::new());
    /// let mut tokenizer = Tokenizer::new();
    /// tokenizer.feed(b"<![CDATA[x]]>", &mut sink);
    /// tokenizer.finish(&mut sink);
    /// assert_eq!(sink.0[0], TokenKind::CdataStart);
    /// ```
    fn cdata_allowed(&mut self) -> bool {
        false
    }

    /// Receives the parse errors that the tokenizer itself detects between
    /// tokens (`eof-in-cdata`, `eof-in-script-html-comment-like-text`, and,
    /// when enabled, input stream errors). Errors inside a token are
    /// available from [`Token::parse_errors`]. The default ignores them.
    fn parse_error(&mut self, error: ParseError) {
        let _ = error;
    }
}

/// The text mode the Standard's tree builder picks for a start tag in HTML
/// content in the common case, by tag name alone (`name` lowercase).
///
/// This is the by-tag-name policy for tests and standalone use; it is wrong
/// wherever tree construction matters (`<svg><style>`, `<frameset><style>`,
/// `<noscript>` with scripting off…). The rewriter uses the tree-builder
/// shadow instead.
///
/// # Example
/// ```
/// use htrewrite_tokenizer::{text_mode_for_tag, TextMode};
/// assert_eq!(text_mode_for_tag(b"script", true), TextMode::ScriptData);
/// assert_eq!(text_mode_for_tag(b"noscript", false), TextMode::Data);
/// assert_eq!(text_mode_for_tag(b"div", true), TextMode::Data);
/// ```
pub fn text_mode_for_tag(name: &[u8], scripting: bool) -> TextMode {
    match name {
        b"title" | b"textarea" => TextMode::Rcdata,
        b"style" | b"xmp" | b"iframe" | b"noembed" | b"noframes" => TextMode::Rawtext,
        b"noscript" if scripting => TextMode::Rawtext,
        b"script" => TextMode::ScriptData,
        b"plaintext" => TextMode::Plaintext,
        _ => TextMode::Data,
    }
}

/// The elements whose text [`text_mode_for_tag`] reads as RAWTEXT (`noscript`
/// only with scripting on), as static strings for those who name the
/// element a RAWTEXT run belongs to.
///
/// # Example
/// ```
/// use htrewrite_tokenizer::{RAWTEXT_ELEMENTS, TextMode, text_mode_for_tag};
/// assert!(RAWTEXT_ELEMENTS.iter().all(|n| text_mode_for_tag(n.as_bytes(), true) == TextMode::Rawtext));
/// ```
pub const RAWTEXT_ELEMENTS: [&str; 6] = ["style", "xmp", "iframe", "noembed", "noframes", "noscript"];

/// A [`TokenSink`] that applies [`text_mode_for_tag`] (scripting on) and hands
/// each token to a closure.
///
/// # Example
/// ```
/// use htrewrite_tokenizer::{TagNamePolicy, Tokenizer, TokenKind};
/// let mut kinds = Vec::new();
/// let mut sink = TagNamePolicy(|t: &htrewrite_tokenizer::Token<'_>| kinds.push(t.kind()));
/// let mut tok = Tokenizer::new();
/// tok.feed(b"<style><b></style>", &mut sink);
/// tok.finish(&mut sink);
/// drop(sink);
/// assert_eq!(kinds.len(), 3); // start tag, RAWTEXT text, end tag
/// ```
pub struct TagNamePolicy<F>(pub F);

impl<F: FnMut(&Token<'_>)> TokenSink for TagNamePolicy<F> {
    #[inline(always)]
    fn token(&mut self, token: &Token<'_>) -> Feedback {
        (self.0)(token);
        match token.kind() {
            TokenKind::StartTag => {
                let raw = token.raw_tag_name();
                // Every name that picks a text mode has 3 to 9 letters and
                // starts with one of these: reject the rest without copying.
                let candidate =
                    (3..=9).contains(&raw.len()) && matches!(raw[0] | 0x20, b't' | b's' | b'x' | b'i' | b'n' | b'p');
                if !candidate {
                    return Feedback::default();
                }
                let mut lower = [0u8; 9];
                let dst = &mut lower[..raw.len()];
                dst.copy_from_slice(raw);
                dst.make_ascii_lowercase();
                Feedback { text_mode: text_mode_for_tag(dst, true) }
            }
            _ => Feedback::default(),
        }
    }
}
