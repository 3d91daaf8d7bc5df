//! Markup declarations and what they open: comments, bogus comments,
//! DOCTYPE, CDATA sections; and processing instructions
//! ([§13.2.5.41–71](https://html.spec.whatwg.org/multipage/parsing.html#bogus-comment-state),
//! processing instruction states added 2026-06-25).

use super::find_byte;
use crate::tokenizer::is_space;
use crate::{CommentKind, State, TextMode, TokenKind, TokenSink, Tokenizer};

/// What `<!` may continue with, as matched by the markup declaration open state.
const DASHES: u8 = 1;
const DOCTYPE: u8 = 2;
const CDATA: u8 = 3;

fn word(kind: u8) -> &'static [u8] {
    match kind {
        DASHES => b"--",
        DOCTYPE => b"doctype",
        _ => b"[CDATA[",
    }
}

impl Tokenizer {
    /// [Markup declaration open state](https://html.spec.whatwg.org/multipage/parsing.html#markup-declaration-open-state).
    ///
    /// `matched` packs what is being matched (high nibble: `--`, `DOCTYPE`
    /// case-insensitively, or `[CDATA[`) and how many of its bytes matched so
    /// far (low nibble), so the lookahead works across chunk ends.
    pub(crate) fn markup_declaration_open<S: TokenSink + ?Sized>(
        &mut self,
        chunk: &[u8],
        base: u64,
        i: usize,
        matched: u8,
        sink: &mut S,
    ) -> usize {
        let b = chunk[i];
        let (kind, count) = if matched == 0 {
            match b {
                b'-' => (DASHES, 0),
                b'D' | b'd' => (DOCTYPE, 0),
                b'[' => (CDATA, 0),
                _ => return self.bogus_markup_declaration(i),
            }
        } else {
            (matched >> 4, (matched & 0x0F) as usize)
        };
        let w = word(kind);
        let ok = if kind == DOCTYPE { b.to_ascii_lowercase() == w[count] } else { b == w[count] };
        if !ok {
            return self.bogus_markup_declaration(i);
        }
        if count + 1 < w.len() {
            self.state = State::MarkupDeclarationOpen((kind << 4) | (count as u8 + 1));
            return i + 1;
        }
        self.state = match kind {
            DASHES => State::CommentStart,
            DOCTYPE => State::Doctype,
            _ if sink.cdata_allowed() => {
                let end = base + i as u64 + 1;
                self.emit(chunk, base, end, TokenKind::CdataStart, false, false, sink);
                State::CdataSection
            }
            // spec: cdata-in-html-content; a bogus comment whose data starts "[CDATA[".
            _ => {
                self.comment_kind = CommentKind::BogusMarkupDeclaration;
                State::BogusComment
            }
        };
        i + 1
    }

    /// spec: "Anything else": incorrectly-opened-comment; a bogus comment,
    /// reconsuming the current byte (the bytes matched so far are its data).
    fn bogus_markup_declaration(&mut self, i: usize) -> usize {
        self.comment_kind = CommentKind::BogusMarkupDeclaration;
        self.state = State::BogusComment;
        i
    }

    /// [Bogus comment state](https://html.spec.whatwg.org/multipage/parsing.html#bogus-comment-state):
    /// everything up to the first `>`.
    pub(crate) fn bogus_comment<S: TokenSink + ?Sized>(
        &mut self,
        chunk: &[u8],
        base: u64,
        i: usize,
        sink: &mut S,
    ) -> usize {
        self.until_greater_than(chunk, base, i, TokenKind::Comment(self.comment_kind), sink)
    }

    /// [DOCTYPE state](https://html.spec.whatwg.org/multipage/parsing.html#doctype-state)
    /// and the states after it: whatever they decode, every one of them ends
    /// the token at the first `>` (even inside a quoted identifier:
    /// `abrupt-doctype-public-identifier`).
    pub(crate) fn doctype<S: TokenSink + ?Sized>(&mut self, chunk: &[u8], base: u64, i: usize, sink: &mut S) -> usize {
        self.until_greater_than(chunk, base, i, TokenKind::Doctype, sink)
    }

    fn until_greater_than<S: TokenSink + ?Sized>(
        &mut self,
        chunk: &[u8],
        base: u64,
        i: usize,
        kind: TokenKind,
        sink: &mut S,
    ) -> usize {
        match find_byte(b'>', &chunk[i..]) {
            Some(k) => {
                let end = base + (i + k) as u64 + 1;
                self.emit(chunk, base, end, kind, false, false, sink);
                self.state = State::Data;
                i + k + 1
            }
            None => chunk.len(),
        }
    }

    /// [Comment start state](https://html.spec.whatwg.org/multipage/parsing.html#comment-start-state).
    pub(crate) fn comment_start<S: TokenSink + ?Sized>(
        &mut self,
        chunk: &[u8],
        base: u64,
        i: usize,
        sink: &mut S,
    ) -> usize {
        match chunk[i] {
            b'-' => {
                self.state = State::CommentStartDash;
                i + 1
            }
            // spec: abrupt-closing-of-empty-comment (`<!-->`).
            b'>' => self.emit_comment(chunk, base, i, sink),
            _ => {
                self.state = State::Comment;
                i
            }
        }
    }

    /// [Comment start dash state](https://html.spec.whatwg.org/multipage/parsing.html#comment-start-dash-state).
    pub(crate) fn comment_start_dash<S: TokenSink + ?Sized>(
        &mut self,
        chunk: &[u8],
        base: u64,
        i: usize,
        sink: &mut S,
    ) -> usize {
        match chunk[i] {
            b'-' => {
                self.state = State::CommentEnd;
                i + 1
            }
            // spec: abrupt-closing-of-empty-comment (`<!--->`).
            b'>' => self.emit_comment(chunk, base, i, sink),
            _ => {
                self.state = State::Comment;
                i
            }
        }
    }

    /// [Comment state](https://html.spec.whatwg.org/multipage/parsing.html#comment-state):
    /// only a `-` can lead to the end; the less-than sign states raise
    /// `nested-comment` but end nothing, so they are left to the comment view.
    pub(crate) fn comment(&mut self, chunk: &[u8], i: usize) -> usize {
        match find_byte(b'-', &chunk[i..]) {
            Some(k) => {
                self.state = State::CommentEndDash;
                i + k + 1
            }
            None => chunk.len(),
        }
    }

    /// [Comment end dash state](https://html.spec.whatwg.org/multipage/parsing.html#comment-end-dash-state).
    pub(crate) fn comment_end_dash(&mut self, chunk: &[u8], i: usize) -> usize {
        if chunk[i] == b'-' {
            self.state = State::CommentEnd;
            i + 1
        } else {
            self.state = State::Comment;
            i
        }
    }

    /// [Comment end state](https://html.spec.whatwg.org/multipage/parsing.html#comment-end-state).
    pub(crate) fn comment_end<S: TokenSink + ?Sized>(
        &mut self,
        chunk: &[u8],
        base: u64,
        i: usize,
        sink: &mut S,
    ) -> usize {
        match chunk[i] {
            b'>' => self.emit_comment(chunk, base, i, sink),
            b'!' => {
                self.state = State::CommentEndBang;
                i + 1
            }
            b'-' => i + 1,
            _ => {
                self.state = State::Comment;
                i
            }
        }
    }

    /// [Comment end bang state](https://html.spec.whatwg.org/multipage/parsing.html#comment-end-bang-state).
    pub(crate) fn comment_end_bang<S: TokenSink + ?Sized>(
        &mut self,
        chunk: &[u8],
        base: u64,
        i: usize,
        sink: &mut S,
    ) -> usize {
        match chunk[i] {
            b'-' => {
                self.state = State::CommentEndDash;
                i + 1
            }
            // spec: incorrectly-closed-comment (`--!>`).
            b'>' => self.emit_comment(chunk, base, i, sink),
            _ => {
                self.state = State::Comment;
                i
            }
        }
    }

    fn emit_comment<S: TokenSink + ?Sized>(&mut self, chunk: &[u8], base: u64, i: usize, sink: &mut S) -> usize {
        let end = base + i as u64 + 1;
        self.emit(chunk, base, end, TokenKind::Comment(CommentKind::Regular), false, false, sink);
        self.state = State::Data;
        i + 1
    }

    /// [CDATA section state](https://html.spec.whatwg.org/multipage/parsing.html#cdata-section-state).
    pub(crate) fn cdata_section(&mut self, chunk: &[u8], base: u64, i: usize) -> usize {
        match memchr::memchr(b']', &chunk[i..]) {
            Some(k) => {
                self.markup_start = base + (i + k) as u64;
                self.state = State::CdataSectionBracket;
                i + k + 1
            }
            None => chunk.len(),
        }
    }

    /// [CDATA section bracket state](https://html.spec.whatwg.org/multipage/parsing.html#cdata-section-bracket-state).
    pub(crate) fn cdata_section_bracket(&mut self, chunk: &[u8], i: usize) -> usize {
        if chunk[i] == b']' {
            self.state = State::CdataSectionEnd;
            i + 1
        } else {
            self.state = State::CdataSection;
            i
        }
    }

    /// [CDATA section end state](https://html.spec.whatwg.org/multipage/parsing.html#cdata-section-end-state).
    pub(crate) fn cdata_section_end<S: TokenSink + ?Sized>(
        &mut self,
        chunk: &[u8],
        base: u64,
        i: usize,
        sink: &mut S,
    ) -> usize {
        match chunk[i] {
            // spec: "]": emit one "]" as text; the last two may still end the section.
            b']' => {
                self.markup_start += 1;
                i + 1
            }
            b'>' => {
                self.emit_text_before_markup(chunk, base, TextMode::CdataSection, sink);
                let end = base + i as u64 + 1;
                self.emit(chunk, base, end, TokenKind::CdataEnd, false, false, sink);
                self.state = State::Data;
                i + 1
            }
            _ => {
                self.state = State::CdataSection;
                i
            }
        }
    }

    /// Processing instruction open state (after `<?`): an ASCII letter or `_`
    /// starts a target; anything else makes a bogus comment that keeps the `?`.
    pub(crate) fn processing_instruction_open(&mut self, chunk: &[u8], i: usize) -> usize {
        let b = chunk[i];
        if b.is_ascii_alphabetic() || b == b'_' {
            self.state = State::ProcessingInstructionTarget;
            i + 1
        } else {
            self.comment_kind = CommentKind::BogusProcessingInstruction;
            self.state = State::BogusComment;
            i
        }
    }

    /// Processing instruction target state: ASCII alphanumerics, `-` and `_`,
    /// ended by whitespace, `?` or `>`. The targets `xml` and
    /// `xml-stylesheet` (any case) and any other byte make a bogus comment.
    pub(crate) fn processing_instruction_target(&mut self, chunk: &[u8], base: u64, i: usize) -> usize {
        let Some(k) = chunk[i..].iter().position(|&b| !(b.is_ascii_alphanumeric() || b == b'-' || b == b'_')) else {
            return chunk.len();
        };
        let j = i + k;
        let b = chunk[j];
        if (is_space(b) || b == b'?' || b == b'>') && !self.target_is_disallowed(chunk, base, j) {
            self.state = State::ProcessingInstructionData;
        } else {
            self.comment_kind = CommentKind::BogusProcessingInstruction;
            self.state = State::BogusComment;
        }
        j
    }

    /// Whether the target `token_start + 2 .. j` is `xml` or `xml-stylesheet`,
    /// ASCII case-insensitively.
    fn target_is_disallowed(&self, chunk: &[u8], base: u64, j: usize) -> bool {
        let from = self.token_start + 2;
        let to = base + j as u64;
        [&b"xml"[..], b"xml-stylesheet"].iter().any(|w| {
            to - from == w.len() as u64
                && w.iter()
                    .enumerate()
                    .all(|(k, c)| self.byte_at(chunk, base, from + k as u64).to_ascii_lowercase() == *c)
        })
    }

    /// Processing instruction data: up to the first `>` (a `?` right before it
    /// is not data; the view strips it).
    pub(crate) fn processing_instruction_data<S: TokenSink + ?Sized>(
        &mut self,
        chunk: &[u8],
        base: u64,
        i: usize,
        sink: &mut S,
    ) -> usize {
        self.until_greater_than(chunk, base, i, TokenKind::ProcessingInstruction, sink)
    }
}
