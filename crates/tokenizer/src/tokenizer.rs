//! The [`Tokenizer`]: chunk feeding, carry-over buffering and token emission.
//!
//! The scanner's state handlers live in `scan/`, grouped by spec subsection;
//! this file holds what they share: the resumable state, the emission of a
//! token from the current chunk or the carry-over buffer, and the end-of-chunk
//! rule that flushes text as early as it is certainly text.

use std::ops::RangeInclusive;

use crate::{
    AttributeSpan, CommentKind, DropReason, Feedback, InputStreamChecker, ParseError, ParseErrorCode, Rel, Span, State,
    TextMode, Token, TokenKind, TokenSink, pack_name,
};

/// A resumable, lossless HTML tokenizer. See the [crate docs](crate).
///
/// Feed the input with [`Tokenizer::feed`] in chunks of any size, then call
/// [`Tokenizer::finish`]. Tokens reach the [`TokenSink`] as soon as their last
/// byte is seen; the raw bytes of all tokens, in order, are exactly the input.
///
/// The tokenizer is `Clone + Eq`: after the same bytes, however they were
/// chunked, two tokenizers compare equal (the chunk-boundary whitebox test
/// relies on it).
///
/// # Example
/// ```
/// use htrewrite_tokenizer::{TagNamePolicy, Token, Tokenizer};
/// let mut raw = Vec::new();
/// let mut sink = TagNamePolicy(|t: &Token<'_>| raw.extend_from_slice(t.raw()));
/// let mut tokenizer = Tokenizer::new();
/// for chunk in [&b"<a hr"[..], b"ef=x>t", b"ext &am", b"p; <!-- c -", b"->"] {
///     tokenizer.feed(chunk, &mut sink);
/// }
/// tokenizer.finish(&mut sink);
/// drop(sink);
/// assert_eq!(raw, b"<a href=x>text &amp; <!-- c -->");
/// ```
///
/// # Complexity
/// Linear in the input: each byte is examined a bounded number of times
/// (most bytes once, by `memchr` in text, comments and quoted values).
/// Memory: the bytes of the unfinished token and its attribute spans.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tokenizer {
    /// The current scanner state.
    pub(crate) state: State,
    /// Absolute offset of the next byte to be fed.
    pub(crate) pos: u64,
    /// Absolute offset of the first byte of the current token or pending text.
    pub(crate) token_start: u64,
    /// Absolute offset of a `<` (or `]` in CDATA) that may start a token;
    /// the pending text is `token_start..markup_start`.
    pub(crate) markup_start: u64,
    /// The bytes `token_start..` of earlier chunks, when the current token or
    /// held-back text straddles a chunk boundary.
    pub(crate) buf: Vec<u8>,
    /// The appropriate end tag name (lowercase) for RCDATA, RAWTEXT and script data.
    pub(crate) end_tag_name: Vec<u8>,
    /// Letters seen in an end tag name or double-escape candidate.
    pub(crate) temp_len: usize,
    /// Whether those letters still match `end_tag_name` (or `script`).
    pub(crate) temp_match: bool,
    /// The tag being scanned: whether it is an end tag.
    pub(crate) is_end_tag: bool,
    /// The tag being scanned: its name.
    pub(crate) name: Rel,
    /// The tag being scanned: its finished attributes.
    pub(crate) attrs: Vec<AttributeSpan>,
    /// The tag being scanned: the attribute in progress (the default when
    /// none is: pushing an attribute takes it).
    pub(crate) attr: AttributeSpan,
    /// The tag being scanned: `/>`.
    pub(crate) self_closing: bool,
    /// The kind of bogus comment being scanned.
    pub(crate) comment_kind: CommentKind,
    /// Input stream error reporting, when enabled.
    pub(crate) checker: Option<InputStreamChecker>,
    /// Whether [`Tokenizer::finish`] was called.
    pub(crate) finished: bool,
    /// Set when the sink pauses after a tag ([`TokenSink::pause`]): the chunk index right after the
    /// tag, where `feed` returns (the scan returns the chunk's length, which
    /// ends every loop over it). `usize::MAX` when not paused.
    pub(crate) pause_at: usize,
    /// With input stream errors on: the offset up to which the checker has
    /// seen the input (a chunk's rest after a pause comes again).
    pub(crate) checked_to: u64,
    /// The bytes `token_start..nul_free_to` are data-state text that the
    /// data state's scan read and found without U+0000 (when `nul_free_to`
    /// is past `token_start`): see [`Tokenizer::scanned_without_nul`].
    pub(crate) nul_free_to: NulFreeTo,
}

/// [`Tokenizer::nul_free_to`]: what the scan learned on the way, not state.
/// Fed the same bytes in other chunks, a tokenizer may know less (a chunk
/// that ends inside a text run), so that two tokenizers equal in
/// everything else are equal whatever it holds: they make the same tokens,
/// [`Token::scanned_without_nul`] aside (a hint).
#[derive(Debug, Clone, Copy, Default, Eq)]
pub(crate) struct NulFreeTo(pub(crate) u64);

impl PartialEq for NulFreeTo {
    fn eq(&self, _: &NulFreeTo) -> bool {
        true
    }
}

impl Default for Tokenizer {
    fn default() -> Self {
        Self::new()
    }
}

/// Whether `b` is ASCII whitespace as the tokenizer sees it (CR included: the
/// Standard normalizes it to LF before tokenizing).
#[inline]
pub(crate) fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

/// What the end of a chunk may flush for a state.
enum Hold {
    /// Pending text; hold back only a trailing CR or an unfinished character
    /// reference (when `char_refs`).
    Text { char_refs: bool },
    /// Text before `markup_start` is certain; from there on, held.
    Markup,
    /// Inside a token: everything from `token_start` is held.
    Token,
}

impl Tokenizer {
    /// A tokenizer at the start of a document, in the data state.
    ///
    /// # Example
    /// ```
    /// use htrewrite_tokenizer::Tokenizer;
    /// assert_eq!(Tokenizer::new().offset(), 0);
    /// ```
    pub fn new() -> Tokenizer {
        Tokenizer {
            state: State::Data,
            pos: 0,
            token_start: 0,
            markup_start: 0,
            buf: Vec::new(),
            end_tag_name: Vec::new(),
            temp_len: 0,
            temp_match: false,
            is_end_tag: false,
            name: Rel::default(),
            attrs: Vec::new(),
            attr: AttributeSpan::default(),
            self_closing: false,
            comment_kind: CommentKind::BogusMarkupDeclaration,
            checker: None,
            finished: false,
            pause_at: usize::MAX,
            checked_to: 0,
            nul_free_to: NulFreeTo(0),
        }
    }

    /// A tokenizer that starts in `mode`, as for a fragment whose context
    /// element is `last_start_tag` (it names the end tag that leaves RCDATA,
    /// RAWTEXT or script data), or for html5lib's `initialStates` and
    /// `lastStartTag`.
    ///
    /// # Example
    /// ```
    /// use htrewrite_tokenizer::{tokenize, TagNamePolicy, TextMode, Token, TokenKind, Tokenizer};
    /// let mut kinds = Vec::new();
    /// let mut sink = TagNamePolicy(|t: &Token<'_>| kinds.push(t.kind()));
    /// let mut t = Tokenizer::with_text_mode(TextMode::Rcdata, Some(b"title"));
    /// t.feed(b"a<b></title>", &mut sink);
    /// t.finish(&mut sink);
    /// drop(sink);
    /// assert_eq!(kinds, [TokenKind::Text(TextMode::Rcdata), TokenKind::EndTag]);
    /// ```
    pub fn with_text_mode(mode: TextMode, last_start_tag: Option<&[u8]>) -> Tokenizer {
        let mut t = Tokenizer::new();
        t.state = state_for_mode(mode);
        if let Some(name) = last_start_tag {
            t.end_tag_name = name.to_ascii_lowercase();
        }
        t
    }

    /// Turns on the input stream errors (control characters, noncharacters,
    /// WTF-8 surrogates), reported through [`TokenSink::parse_error`]. Off by
    /// default: it costs a pass over every byte.
    pub fn set_report_input_errors(&mut self, on: bool) {
        self.checker = if on { Some(InputStreamChecker::new()) } else { None };
    }

    /// The absolute offset of the next byte to be fed.
    pub fn offset(&self) -> u64 {
        self.pos
    }

    /// The current scanner state.
    pub fn state(&self) -> State {
        self.state
    }

    /// How many bytes of earlier chunks are held for the unfinished token or
    /// text (the tokenizer's only input-dependent memory besides attribute spans).
    pub fn buffered_len(&self) -> usize {
        self.buf.len()
    }

    /// The heap bytes behind [`Tokenizer::buffered_len`]: the carry-over
    /// buffer's capacity (up to twice its length as it grows), for memory
    /// limits that count what is allocated.
    ///
    /// # Example
    /// ```
    /// use htrewrite_tokenizer::{TagNamePolicy, Tokenizer};
    /// let mut t = Tokenizer::new();
    /// t.feed(b"<p title='unfinished", &mut TagNamePolicy(|_: &htrewrite_tokenizer::Token<'_>| {}));
    /// assert!(t.buffered_capacity() >= t.buffered_len());
    /// ```
    pub fn buffered_capacity(&self) -> usize {
        self.buf.capacity()
    }

    /// Feeds the next chunk; tokens complete in it reach `sink` at once, and
    /// text is flushed up to the last byte that is certainly text. Returns
    /// how many bytes of `chunk` it took: all of them, unless the sink's
    /// [`TokenSink::pause`] after a tag stopped it right after that tag (the
    /// rest is then the caller's to feed again, after whatever it feeds in
    /// between; the tokens are those of the bytes in the order fed).
    ///
    /// Feeding after [`Tokenizer::finish`] is ignored (and takes nothing).
    ///
    /// # Example
    /// ```
    /// use htrewrite_tokenizer::{Feedback, Token, TokenKind, TokenSink, Tokenizer};
    /// struct PauseAtB(Vec<u8>, bool);
    /// impl TokenSink for PauseAtB {
    ///     fn token(&mut self, t: &Token<'_>) -> Feedback {
    ///         self.0.extend_from_slice(t.raw());
    ///         self.1 = t.tag_name_is(b"b");
    ///         Feedback::default()
    ///     }
    ///     fn pause(&mut self) -> bool {
    ///         self.1
    ///     }
    /// }
    /// let mut sink = PauseAtB(Vec::new(), false);
    /// let mut t = Tokenizer::new();
    /// let input = b"<p><b>x</b>";
    /// let taken = t.feed(input, &mut sink);
    /// assert_eq!(taken, 6); // `<p><b>`: paused after `<b>`
    /// assert_eq!(t.feed(b"!", &mut sink), 1); // bytes fed in between
    /// assert_eq!(t.feed(&input[taken..], &mut sink), 5); // `x</b>`: paused after `</b>`, its end
    /// t.finish(&mut sink);
    /// assert_eq!(sink.0, b"<p><b>!x</b>");
    /// ```
    ///
    /// # Complexity
    /// O(`chunk.len()`) amortized, plus one copy of the bytes of a token that
    /// straddles the chunk's end.
    pub fn feed<S: TokenSink + ?Sized>(&mut self, chunk: &[u8], sink: &mut S) -> usize {
        if self.finished || chunk.is_empty() {
            return 0;
        }
        let base = self.pos;
        if let Some(checker) = &mut self.checker {
            // Bytes seen before a pause are not checked twice.
            let seen = (self.checked_to.saturating_sub(base) as usize).min(chunk.len());
            checker.check(&chunk[seen..], base + seen as u64, &mut |e| sink.parse_error(e));
            self.checked_to = self.checked_to.max(base + chunk.len() as u64);
        }
        let mut i = 0;
        while i < chunk.len() {
            i = self.step(chunk, base, i, sink);
        }
        if self.pause_at != usize::MAX {
            // Right after a tag: nothing is pending or carried over.
            let at = std::mem::replace(&mut self.pause_at, usize::MAX);
            self.pos = base + at as u64;
            debug_assert_eq!(self.token_start, self.pos);
            return at;
        }
        self.pos = base + chunk.len() as u64;
        self.end_of_chunk(chunk, base, sink);
        chunk.len()
    }

    /// Ends the input: flushes held text and emits what the end of input
    /// terminates (an unclosed comment, DOCTYPE or CDATA section; a cut-off
    /// tag as [`TokenKind::Dropped`]). Calling it twice does nothing.
    pub fn finish<S: TokenSink + ?Sized>(&mut self, sink: &mut S) {
        if self.finished {
            return;
        }
        self.finished = true;
        let end = self.pos;
        let here = Span::new(end, end);
        match self.state {
            State::TagName
            | State::BeforeAttributeName
            | State::AttributeName
            | State::AfterAttributeName
            | State::BeforeAttributeValue
            | State::AttributeValueDoubleQuoted
            | State::AttributeValueSingleQuoted
            | State::AttributeValueUnquoted
            | State::AfterAttributeValueQuoted
            | State::SelfClosingStartTag => {
                self.emit(&[], end, end, TokenKind::Dropped(DropReason::EofInTag), true, false, sink);
            }
            State::ProcessingInstructionOpen
            | State::ProcessingInstructionTarget
            | State::ProcessingInstructionData => {
                let kind = TokenKind::Dropped(DropReason::EofInProcessingInstruction);
                self.emit(&[], end, end, kind, true, false, sink);
            }
            State::MarkupDeclarationOpen(_) => {
                let kind = TokenKind::Comment(CommentKind::BogusMarkupDeclaration);
                self.emit(&[], end, end, kind, true, false, sink);
            }
            State::BogusComment => {
                let kind = TokenKind::Comment(self.comment_kind);
                self.emit(&[], end, end, kind, true, false, sink);
            }
            State::CommentStart
            | State::CommentStartDash
            | State::Comment
            | State::CommentEndDash
            | State::CommentEnd
            | State::CommentEndBang => {
                self.emit(&[], end, end, TokenKind::Comment(CommentKind::Regular), true, false, sink);
            }
            State::Doctype => {
                self.emit(&[], end, end, TokenKind::Doctype, true, false, sink);
            }
            state => {
                if matches!(state, State::CdataSection | State::CdataSectionBracket | State::CdataSectionEnd) {
                    sink.parse_error(ParseError { code: ParseErrorCode::EofInCdata, span: here });
                }
                if is_script_escaped(state) {
                    let code = ParseErrorCode::EofInScriptHtmlCommentLikeText;
                    sink.parse_error(ParseError { code, span: here });
                }
                if self.token_start < end {
                    self.emit(&[], end, end, TokenKind::Text(text_mode_of(state)), true, false, sink);
                }
            }
        }
        if let Some(checker) = &mut self.checker {
            checker.finish(&mut |e| sink.parse_error(e));
        }
    }

    /// Runs the current state on `chunk[i..]`; returns the index of the next
    /// byte to consume. Each call either consumes bytes or changes state
    /// (reconsume), and a reconsuming state never reconsumes back, so the
    /// loop in `feed` always progresses.
    #[inline]
    fn step<S: TokenSink + ?Sized>(&mut self, chunk: &[u8], base: u64, i: usize, sink: &mut S) -> usize {
        match self.state {
            State::Data => self.data(chunk, base, i, sink),
            State::Rcdata => self.rcdata(chunk, base, i),
            State::Rawtext => self.rawtext(chunk, base, i),
            State::ScriptData => self.script_data(chunk, base, i),
            State::Plaintext => chunk.len(),
            State::TagOpen => self.tag_open(chunk, base, i, sink),
            State::EndTagOpen => self.end_tag_open(chunk, base, i, sink),
            State::TagName => self.tag_name(chunk, base, i, sink),
            State::RcdataLessThanSign => self.text_less_than_sign(chunk, i, State::Rcdata, State::RcdataEndTagOpen),
            State::RcdataEndTagOpen => self.text_end_tag_open(chunk, i, State::Rcdata, State::RcdataEndTagName),
            State::RcdataEndTagName => self.text_end_tag_name(chunk, base, i, State::Rcdata, sink),
            State::RawtextLessThanSign => self.text_less_than_sign(chunk, i, State::Rawtext, State::RawtextEndTagOpen),
            State::RawtextEndTagOpen => self.text_end_tag_open(chunk, i, State::Rawtext, State::RawtextEndTagName),
            State::RawtextEndTagName => self.text_end_tag_name(chunk, base, i, State::Rawtext, sink),
            State::ScriptDataLessThanSign => self.script_data_less_than_sign(chunk, i),
            State::ScriptDataEndTagOpen => {
                self.text_end_tag_open(chunk, i, State::ScriptData, State::ScriptDataEndTagName)
            }
            State::ScriptDataEndTagName => self.text_end_tag_name(chunk, base, i, State::ScriptData, sink),
            State::ScriptDataEscapeStart => self.script_data_escape_start(chunk, i),
            State::ScriptDataEscapeStartDash => self.script_data_escape_start_dash(chunk, i),
            State::ScriptDataEscaped => self.script_data_escaped(chunk, base, i),
            State::ScriptDataEscapedDash => self.script_data_escaped_dash(chunk, base, i),
            State::ScriptDataEscapedDashDash => self.script_data_escaped_dash_dash(chunk, base, i),
            State::ScriptDataEscapedLessThanSign => self.script_data_escaped_less_than_sign(chunk, i),
            State::ScriptDataEscapedEndTagOpen => {
                self.text_end_tag_open(chunk, i, State::ScriptDataEscaped, State::ScriptDataEscapedEndTagName)
            }
            State::ScriptDataEscapedEndTagName => {
                self.text_end_tag_name(chunk, base, i, State::ScriptDataEscaped, sink)
            }
            State::ScriptDataDoubleEscapeStart => self.script_data_double_escape_start(chunk, i),
            State::ScriptDataDoubleEscaped => self.script_data_double_escaped(chunk, i),
            State::ScriptDataDoubleEscapedDash => self.script_data_double_escaped_dash(chunk, i),
            State::ScriptDataDoubleEscapedDashDash => self.script_data_double_escaped_dash_dash(chunk, i),
            State::ScriptDataDoubleEscapedLessThanSign => self.script_data_double_escaped_less_than_sign(chunk, i),
            State::ScriptDataDoubleEscapeEnd => self.script_data_double_escape_end(chunk, i),
            State::BeforeAttributeName => self.before_attribute_name(chunk, base, i, sink),
            State::AttributeName => self.attribute_name(chunk, base, i),
            State::AfterAttributeName => self.after_attribute_name(chunk, base, i, sink),
            State::BeforeAttributeValue => self.before_attribute_value(chunk, base, i, sink),
            State::AttributeValueDoubleQuoted => self.attribute_value_quoted(chunk, base, i, b'"'),
            State::AttributeValueSingleQuoted => self.attribute_value_quoted(chunk, base, i, b'\''),
            State::AttributeValueUnquoted => self.attribute_value_unquoted(chunk, base, i, sink),
            State::AfterAttributeValueQuoted => self.after_attribute_value_quoted(chunk, base, i, sink),
            State::SelfClosingStartTag => self.self_closing_start_tag(chunk, base, i, sink),
            State::BogusComment => self.bogus_comment(chunk, base, i, sink),
            State::MarkupDeclarationOpen(matched) => self.markup_declaration_open(chunk, base, i, matched, sink),
            State::CommentStart => self.comment_start(chunk, base, i, sink),
            State::CommentStartDash => self.comment_start_dash(chunk, base, i, sink),
            State::Comment => self.comment(chunk, i),
            State::CommentEndDash => self.comment_end_dash(chunk, i),
            State::CommentEnd => self.comment_end(chunk, base, i, sink),
            State::CommentEndBang => self.comment_end_bang(chunk, base, i, sink),
            State::Doctype => self.doctype(chunk, base, i, sink),
            State::CdataSection => self.cdata_section(chunk, base, i),
            State::CdataSectionBracket => self.cdata_section_bracket(chunk, i),
            State::CdataSectionEnd => self.cdata_section_end(chunk, base, i, sink),
            State::ProcessingInstructionOpen => self.processing_instruction_open(chunk, i),
            State::ProcessingInstructionTarget => self.processing_instruction_target(chunk, base, i),
            State::ProcessingInstructionData => self.processing_instruction_data(chunk, base, i, sink),
        }
    }

    /// The offset of `chunk[i]` relative to the current token's first byte.
    #[inline]
    pub(crate) fn rel(&self, base: u64, i: usize) -> usize {
        (base + i as u64 - self.token_start) as usize
    }

    /// The byte at absolute offset `at`, which lies in the current token:
    /// either in the carry-over buffer or in the chunk.
    #[inline]
    pub(crate) fn byte_at(&self, chunk: &[u8], base: u64, at: u64) -> u8 {
        if at >= base { chunk[(at - base) as usize] } else { self.buf[(at - self.token_start) as usize] }
    }

    /// Emits the pending text `token_start..markup_start` (if any) in `mode`,
    /// so that a token can start at `markup_start`: markup the scan has read
    /// far enough to know it is no text (`<` and a letter, `</`, `<!`, `<?`,
    /// an appropriate end tag, `]]>`), so the text token is marked
    /// [`Token::ends_before_markup`].
    #[inline]
    pub(crate) fn emit_text_before_markup<S: TokenSink + ?Sized>(
        &mut self,
        chunk: &[u8],
        base: u64,
        mode: TextMode,
        sink: &mut S,
    ) {
        self.emit_text_to_markup_start(chunk, base, mode, true, sink);
    }

    /// Emits the pending text `token_start..markup_start` (if any) in
    /// `mode`, marked [`Token::ends_before_markup`] when `markup_read`; at
    /// the end of a chunk the markup is not read yet (a `<` at the chunk's
    /// end may still be text), so the token is not marked there.
    #[inline(always)]
    fn emit_text_to_markup_start<S: TokenSink + ?Sized>(
        &mut self,
        chunk: &[u8],
        base: u64,
        mode: TextMode,
        markup_read: bool,
        sink: &mut S,
    ) {
        if self.token_start < self.markup_start {
            let end = self.markup_start;
            self.emit(chunk, base, end, TokenKind::Text(mode), false, markup_read, sink);
        }
    }

    /// Records that the data state's scan read the bytes `from..to` of the
    /// pending text and found no U+0000. The record grows only from
    /// `token_start` or from its own end, so `token_start..nul_free_to` is
    /// always bytes read so (what a text token's
    /// [`Token::scanned_without_nul`] is made from).
    #[inline(always)]
    pub(crate) fn scanned_without_nul(&mut self, from: u64, to: u64) {
        if from <= self.nul_free_to.0.max(self.token_start) {
            self.nul_free_to.0 = to;
        }
    }

    /// Emits the token `token_start..end` and makes `end` the next token's
    /// start: `eof` when the end of input ended it, `markup_next` when it is
    /// text marked [`Token::ends_before_markup`].
    ///
    /// The token's bytes come from the chunk when it started in this chunk,
    /// else (out of line: once per chunk at most) from the carry-over buffer
    /// completed with the chunk's head.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn emit<S: TokenSink + ?Sized>(
        &mut self,
        chunk: &[u8],
        base: u64,
        end: u64,
        kind: TokenKind,
        eof: bool,
        markup_next: bool,
        sink: &mut S,
    ) -> Feedback {
        let start = self.token_start;
        if start < base {
            let head = if end > base { &chunk[..(end - base) as usize] } else { &[] };
            return self.emit_carried(head, end, kind, eof, markup_next, sink);
        }
        let raw = &chunk[(start - base) as usize..(end - base) as usize];
        self.deliver(raw, start, end, kind, eof, markup_next, 0, sink)
    }

    /// [`Tokenizer::emit`] for a token that began in an earlier chunk: its
    /// bytes are the carry-over buffer and `head`, the chunk's bytes up to `end`.
    #[cold]
    #[inline(never)]
    fn emit_carried<S: TokenSink + ?Sized>(
        &mut self,
        head: &[u8],
        end: u64,
        kind: TokenKind,
        eof: bool,
        markup_next: bool,
        sink: &mut S,
    ) -> Feedback {
        let start = self.token_start;
        let len = (end - start) as usize;
        let mut buf = std::mem::take(&mut self.buf);
        buf.extend_from_slice(head);
        let feedback = self.deliver(&buf[..len], start, end, kind, eof, markup_next, 0, sink);
        buf.drain(..len);
        self.buf = buf;
        feedback
    }

    /// Hands the token `raw` (absolute offsets `start..end`) to `sink` and
    /// makes `end` the next token's start; after a start tag that asks for a
    /// text mode other than data, records its name as the appropriate end tag
    /// name. `markup_next`: see [`Token::ends_before_markup`]; `name_word`:
    /// a tag's name packed ([`pack_name`], lowercased) when the scan packed
    /// it, else 0 ([`Token::packed_tag_name`] packs it then).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn deliver<S: TokenSink + ?Sized>(
        &mut self,
        raw: &[u8],
        start: u64,
        end: u64,
        kind: TokenKind,
        eof: bool,
        markup_next: bool,
        name_word: u64,
        sink: &mut S,
    ) -> Feedback {
        let is_tag = matches!(kind, TokenKind::StartTag | TokenKind::EndTag);
        debug_assert!(
            name_word == 0 || (is_tag && Some(name_word) == pack_name(self.name.slice(raw), true)),
            "the scan's word is the name's packing"
        );
        let token = Token {
            kind,
            raw,
            start,
            eof,
            self_closing: is_tag && self.self_closing,
            name: if is_tag { self.name } else { Rel::default() },
            attributes: if is_tag { &self.attrs } else { &[] },
            nul_free: kind == TokenKind::Text(TextMode::Data) && self.nul_free_to.0 >= end,
            markup_next,
            name_word,
        };
        if matches!(
            kind,
            TokenKind::Text(TextMode::Data) | TokenKind::StartTag | TokenKind::EndTag | TokenKind::Comment(_)
        ) && sink.quick_token(&token)
        {
            self.token_start = end;
            return Feedback::default();
        }
        let feedback = sink.token(&token);
        if feedback.text_mode != TextMode::Data && kind == TokenKind::StartTag {
            self.end_tag_name.clear();
            self.end_tag_name.extend(self.name.slice(raw).iter().map(u8::to_ascii_lowercase));
        }
        self.token_start = end;
        feedback
    }

    /// Emits the tag scanned so far, ending at `chunk[i]` (its `>`), and
    /// switches to the state the feedback asks for.
    #[inline(always)]
    pub(crate) fn emit_tag<S: TokenSink + ?Sized>(&mut self, chunk: &[u8], base: u64, i: usize, sink: &mut S) -> usize {
        let kind = if self.is_end_tag { TokenKind::EndTag } else { TokenKind::StartTag };
        let end = base + i as u64 + 1;
        let feedback = self.emit(chunk, base, end, kind, false, false, sink);
        self.state = if self.is_end_tag { State::Data } else { state_for_mode(feedback.text_mode) };
        if sink.pause() {
            return self.pause(chunk, i + 1);
        }
        // The tag scratch (name, attributes, flags) is reset when the next tag
        // starts (`start_tag_token`); it is a function of the bytes seen, so
        // the state stays canonical without clearing it here.
        i + 1
    }

    /// [`Tokenizer::emit_tag`] for the tag `chunk[tag]`, whose bounds the
    /// caller knows; a tag that began in an earlier chunk (`tag` starts past
    /// its end: the start index wrapped) goes out of line. `name_word`: the
    /// name packed by the scan, or 0 ([`Tokenizer::deliver`]).
    #[inline(always)]
    pub(crate) fn emit_tag_at<S: TokenSink + ?Sized>(
        &mut self,
        chunk: &[u8],
        base: u64,
        tag: RangeInclusive<usize>,
        name_word: u64,
        sink: &mut S,
    ) -> usize {
        let (start, gt) = tag.into_inner();
        if start > gt {
            return self.emit_tag_carried(chunk, base, gt, sink);
        }
        let kind = if self.is_end_tag { TokenKind::EndTag } else { TokenKind::StartTag };
        let end = base + gt as u64 + 1;
        let feedback = self.deliver(&chunk[start..=gt], base + start as u64, end, kind, false, false, name_word, sink);
        self.state = if self.is_end_tag { State::Data } else { state_for_mode(feedback.text_mode) };
        if sink.pause() {
            return self.pause(chunk, gt + 1);
        }
        gt + 1
    }

    /// Pauses after a tag that ends before `chunk[at]`: returns the chunk's
    /// length, so that every scan loop ends and `feed` returns `at`.
    #[cold]
    fn pause(&mut self, chunk: &[u8], at: usize) -> usize {
        self.pause_at = at;
        chunk.len()
    }

    /// [`Tokenizer::emit_tag`], out of line.
    #[inline(never)]
    fn emit_tag_carried<S: TokenSink + ?Sized>(&mut self, chunk: &[u8], base: u64, i: usize, sink: &mut S) -> usize {
        self.emit_tag(chunk, base, i, sink)
    }

    /// Flushes, at the end of a chunk, the text that is certainly text, and
    /// keeps the bytes of whatever is unfinished in the carry-over buffer.
    fn end_of_chunk<S: TokenSink + ?Sized>(&mut self, chunk: &[u8], base: u64, sink: &mut S) {
        let end = self.pos;
        match hold_for(self.state) {
            Hold::Token => {}
            Hold::Markup => {
                let mode = text_mode_of(self.state);
                self.emit_text_to_markup_start(chunk, base, mode, false, sink);
            }
            Hold::Text { char_refs } => {
                let cut = self.safe_text_end(chunk, base, char_refs);
                if cut > self.token_start {
                    let mode = text_mode_of(self.state);
                    self.emit(chunk, base, cut, TokenKind::Text(mode), false, false, sink);
                }
            }
        }
        // Keep `token_start..end` for the next chunk.
        if self.token_start >= base {
            self.buf.clear();
            self.buf.extend_from_slice(&chunk[(self.token_start - base) as usize..]);
        } else {
            self.buf.extend_from_slice(chunk);
        }
        debug_assert_eq!(self.buf.len() as u64, end - self.token_start);
    }

    /// Where pending text may be cut at the end of a chunk: never inside a
    /// UTF-8 sequence (decoded views would see half a character), before a
    /// trailing CR (it may be the CR of a CRLF), where character references
    /// are decoded before an `&` whose reference may continue in the next
    /// chunk (`&` followed only by ASCII alphanumerics and `#`), and in the
    /// data state never right after a `<` (whether it is
    /// `invalid-first-character-of-tag-name` depends on the next byte).
    fn safe_text_end(&self, chunk: &[u8], base: u64, char_refs: bool) -> u64 {
        let end = base + chunk.len() as u64;
        let mut cut = self.char_ref_or_cr_cut(chunk, base, char_refs);
        if let Some(lead) = self.incomplete_utf8_start(chunk, base) {
            cut = cut.min(lead);
        }
        if self.state == State::Data && cut > self.token_start && self.byte_at(chunk, base, cut - 1) == b'<' {
            cut -= 1;
        }
        debug_assert!(cut <= end);
        cut
    }

    fn char_ref_or_cr_cut(&self, chunk: &[u8], base: u64, char_refs: bool) -> u64 {
        let end = base + chunk.len() as u64;
        if self.token_start == end {
            return end;
        }
        if chunk.last() == Some(&b'\r') {
            return end - 1;
        }
        if !char_refs {
            return end;
        }
        let from = self.token_start.max(base);
        let tail = &chunk[(from - base) as usize..];
        let run = tail.iter().rev().take_while(|b| b.is_ascii_alphanumeric() || **b == b'#').count();
        if run < tail.len() {
            // The byte before the run is in this chunk.
            let at = tail.len() - run - 1;
            if tail[at] == b'&' { from + at as u64 } else { end }
        } else if self.token_start < base && self.held_reference() {
            // The whole chunk continues a reference held from earlier chunks.
            self.token_start
        } else {
            end
        }
    }

    /// Whether the text held from earlier chunks is an unfinished character
    /// reference: `&…`, or `<&…` (a `<` is held with what follows it).
    fn held_reference(&self) -> bool {
        let amp = usize::from(self.buf.first() == Some(&b'<'));
        self.buf.get(amp) == Some(&b'&')
    }

    /// The offset of the lead byte of a UTF-8 sequence that the pending
    /// text ends in the middle of, if any.
    fn incomplete_utf8_start(&self, chunk: &[u8], base: u64) -> Option<u64> {
        let end = base + chunk.len() as u64;
        let lowest = self.token_start.max(end.saturating_sub(3));
        let mut at = end;
        while at > lowest {
            at -= 1;
            let b = self.byte_at(chunk, base, at);
            if b & 0xC0 == 0x80 {
                continue; // a continuation byte: look further back
            }
            let needed = match b {
                0xC2..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF4 => 4,
                _ => return None,
            };
            return (end - at < needed).then_some(at);
        }
        None
    }
}

/// The state that starts text of `mode`.
pub(crate) fn state_for_mode(mode: TextMode) -> State {
    match mode {
        TextMode::Data => State::Data,
        TextMode::Rcdata => State::Rcdata,
        TextMode::Rawtext => State::Rawtext,
        TextMode::ScriptData => State::ScriptData,
        TextMode::Plaintext => State::Plaintext,
        TextMode::CdataSection => State::CdataSection,
    }
}

/// The text mode of text pending in `state`.
fn text_mode_of(state: State) -> TextMode {
    match state {
        State::Rcdata | State::RcdataLessThanSign | State::RcdataEndTagOpen | State::RcdataEndTagName => {
            TextMode::Rcdata
        }
        State::Rawtext | State::RawtextLessThanSign | State::RawtextEndTagOpen | State::RawtextEndTagName => {
            TextMode::Rawtext
        }
        State::Plaintext => TextMode::Plaintext,
        State::CdataSection | State::CdataSectionBracket | State::CdataSectionEnd => TextMode::CdataSection,
        s if is_script(s) => TextMode::ScriptData,
        _ => TextMode::Data,
    }
}

fn is_script(state: State) -> bool {
    matches!(
        state,
        State::ScriptData
            | State::ScriptDataLessThanSign
            | State::ScriptDataEndTagOpen
            | State::ScriptDataEndTagName
            | State::ScriptDataEscapeStart
            | State::ScriptDataEscapeStartDash
    ) || is_script_escaped(state)
}

/// The states in which the end of input is `eof-in-script-html-comment-like-text`.
fn is_script_escaped(state: State) -> bool {
    matches!(
        state,
        State::ScriptDataEscaped
            | State::ScriptDataEscapedDash
            | State::ScriptDataEscapedDashDash
            | State::ScriptDataEscapedLessThanSign
            | State::ScriptDataEscapedEndTagOpen
            | State::ScriptDataEscapedEndTagName
            | State::ScriptDataDoubleEscapeStart
            | State::ScriptDataDoubleEscaped
            | State::ScriptDataDoubleEscapedDash
            | State::ScriptDataDoubleEscapedDashDash
            | State::ScriptDataDoubleEscapedLessThanSign
            | State::ScriptDataDoubleEscapeEnd
    )
}

fn hold_for(state: State) -> Hold {
    match state {
        State::Data | State::Rcdata => Hold::Text { char_refs: true },
        State::Rawtext
        | State::ScriptData
        | State::Plaintext
        | State::CdataSection
        | State::ScriptDataEscapeStart
        | State::ScriptDataEscapeStartDash
        | State::ScriptDataEscaped
        | State::ScriptDataEscapedDash
        | State::ScriptDataEscapedDashDash
        | State::ScriptDataDoubleEscapeStart
        | State::ScriptDataDoubleEscaped
        | State::ScriptDataDoubleEscapedDash
        | State::ScriptDataDoubleEscapedDashDash
        | State::ScriptDataDoubleEscapedLessThanSign
        | State::ScriptDataDoubleEscapeEnd => Hold::Text { char_refs: false },
        State::TagOpen
        | State::EndTagOpen
        | State::RcdataLessThanSign
        | State::RcdataEndTagOpen
        | State::RcdataEndTagName
        | State::RawtextLessThanSign
        | State::RawtextEndTagOpen
        | State::RawtextEndTagName
        | State::ScriptDataLessThanSign
        | State::ScriptDataEndTagOpen
        | State::ScriptDataEndTagName
        | State::ScriptDataEscapedLessThanSign
        | State::ScriptDataEscapedEndTagOpen
        | State::ScriptDataEscapedEndTagName
        | State::CdataSectionBracket
        | State::CdataSectionEnd => Hold::Markup,
        _ => Hold::Token,
    }
}
