//! Text states and the states that decide whether a `<` starts a tag:
//! data, RCDATA, RAWTEXT, tag open, end tag open, and the RCDATA / RAWTEXT /
//! script data end tag states, which share one shape.

use super::{find_byte, find_less_than_or_nul};
use crate::tokenizer::is_space;
use crate::{DropReason, Rel, State, TextMode, TokenKind, TokenSink, Tokenizer};

impl Tokenizer {
    /// [Data state](https://html.spec.whatwg.org/multipage/parsing.html#data-state):
    /// text up to the next `<`.
    ///
    /// Written out rather than calling `text_until_less_than`: the shared
    /// version measured 11 % more instructions (callgrind, `count --engine
    /// htrewrite --iterations 3` on the lol-html bench pages: 55.0M vs 49.6M).
    ///
    /// Tags in the chunk are scanned by the tag fast path from here, and
    /// when a tag ends in the data state the loop goes on with the next text
    /// run at once instead of returning to `feed`'s dispatch.
    pub(crate) fn data<S: TokenSink + ?Sized>(&mut self, chunk: &[u8], base: u64, i: usize, sink: &mut S) -> usize {
        let mut i = i;
        loop {
            let Some(k) = find_less_than_or_nul(&chunk[i..]) else {
                self.scanned_without_nul(base + i as u64, base + chunk.len() as u64);
                return chunk.len();
            };
            let lt = i + k;
            if chunk[lt] == 0 {
                // spec: "U+0000 NULL: This is an unexpected-null-character parse
                // error. Emit the current input character as a character token."
                // It stays in the text run; the run is not known free of NULs.
                self.scanned_without_nul(base + i as u64, base + lt as u64);
                i = lt + 1;
                continue;
            }
            self.scanned_without_nul(base + i as u64, base + lt as u64);
            self.markup_start = base + lt as u64;
            // Go on in the tag open state at once when its byte is here; `<a`
            // and `</a` go straight on into the tag name state (what the tag
            // open and end tag open states do with a letter). The state is
            // stored only where the scan stops before the tag's end.
            let (is_end, name_at) = match chunk.get(lt + 1) {
                Some(b) if b.is_ascii_alphabetic() => (false, lt + 2),
                Some(b'/') if chunk.get(lt + 2).is_some_and(u8::is_ascii_alphabetic) => (true, lt + 3),
                Some(b'!' | b'/' | b'?') => {
                    self.state = State::TagOpen;
                    return self.tag_open(chunk, base, lt + 1, sink);
                }
                Some(_) => {
                    // spec (tag open state): "Anything else":
                    // invalid-first-character-of-tag-name; the `<` is text
                    // and the data state goes on with the next byte.
                    self.scanned_without_nul(base + lt as u64, base + lt as u64 + 1);
                    i = lt + 1;
                    continue;
                }
                None => {
                    self.state = State::TagOpen;
                    return lt + 1;
                }
            };
            self.emit_text_before_markup(chunk, base, TextMode::Data, sink);
            self.start_tag_token(is_end, name_at - 1 - lt);
            i = self.scan_tag(chunk, base, lt, name_at, sink);
            if self.state != State::Data || i == chunk.len() {
                return i;
            }
        }
    }

    /// [RCDATA state](https://html.spec.whatwg.org/multipage/parsing.html#rcdata-state).
    pub(crate) fn rcdata(&mut self, chunk: &[u8], base: u64, i: usize) -> usize {
        self.text_until_less_than(chunk, base, i, State::RcdataLessThanSign)
    }

    /// [RAWTEXT state](https://html.spec.whatwg.org/multipage/parsing.html#rawtext-state).
    pub(crate) fn rawtext(&mut self, chunk: &[u8], base: u64, i: usize) -> usize {
        self.text_until_less_than(chunk, base, i, State::RawtextLessThanSign)
    }

    /// [Script data state](https://html.spec.whatwg.org/multipage/parsing.html#script-data-state).
    pub(crate) fn script_data(&mut self, chunk: &[u8], base: u64, i: usize) -> usize {
        self.text_until_less_than(chunk, base, i, State::ScriptDataLessThanSign)
    }

    fn text_until_less_than(&mut self, chunk: &[u8], base: u64, i: usize, less_than: State) -> usize {
        match find_byte(b'<', &chunk[i..]) {
            Some(k) => {
                self.markup_start = base + (i + k) as u64;
                self.state = less_than;
                i + k + 1
            }
            None => chunk.len(),
        }
    }

    /// [Tag open state](https://html.spec.whatwg.org/multipage/parsing.html#tag-open-state).
    pub(crate) fn tag_open<S: TokenSink + ?Sized>(&mut self, chunk: &[u8], base: u64, i: usize, sink: &mut S) -> usize {
        match chunk[i] {
            b'!' => {
                self.emit_text_before_markup(chunk, base, TextMode::Data, sink);
                self.state = State::MarkupDeclarationOpen(0);
                i + 1
            }
            b'/' => {
                self.state = State::EndTagOpen;
                i + 1
            }
            b if b.is_ascii_alphabetic() => {
                self.emit_text_before_markup(chunk, base, TextMode::Data, sink);
                self.start_tag_token(false, 1);
                self.state = State::TagName;
                i + 1
            }
            b'?' => {
                // spec (2026): "U+003F (?): set the temporary buffer to the empty
                // string; switch to the processing instruction open state."
                self.emit_text_before_markup(chunk, base, TextMode::Data, sink);
                self.state = State::ProcessingInstructionOpen;
                i + 1
            }
            _ => {
                // spec: "Anything else": invalid-first-character-of-tag-name;
                // emit `<` as text and reconsume in the data state.
                self.state = State::Data;
                i
            }
        }
    }

    /// [End tag open state](https://html.spec.whatwg.org/multipage/parsing.html#end-tag-open-state).
    pub(crate) fn end_tag_open<S: TokenSink + ?Sized>(
        &mut self,
        chunk: &[u8],
        base: u64,
        i: usize,
        sink: &mut S,
    ) -> usize {
        self.emit_text_before_markup(chunk, base, TextMode::Data, sink);
        match chunk[i] {
            b if b.is_ascii_alphabetic() => {
                self.start_tag_token(true, 2);
                self.state = State::TagName;
                i + 1
            }
            b'>' => {
                // spec: missing-end-tag-name; nothing is emitted.
                let end = base + i as u64 + 1;
                self.emit(chunk, base, end, TokenKind::Dropped(DropReason::MissingEndTagName), false, false, sink);
                self.state = State::Data;
                i + 1
            }
            _ => {
                // spec: invalid-first-character-of-tag-name; a bogus comment,
                // reconsuming this character.
                self.comment_kind = crate::CommentKind::BogusEndTag;
                self.state = State::BogusComment;
                i
            }
        }
    }

    /// Begins scanning a tag whose name starts `name_start` bytes into the token.
    pub(crate) fn start_tag_token(&mut self, is_end: bool, name_start: usize) {
        self.is_end_tag = is_end;
        self.name = Rel::new(name_start, name_start);
        self.attrs.clear();
        self.self_closing = false;
    }

    /// RCDATA / RAWTEXT less-than sign state
    /// ([RCDATA](https://html.spec.whatwg.org/multipage/parsing.html#rcdata-less-than-sign-state),
    /// [RAWTEXT](https://html.spec.whatwg.org/multipage/parsing.html#rawtext-less-than-sign-state)).
    pub(crate) fn text_less_than_sign(&mut self, chunk: &[u8], i: usize, text: State, end_tag_open: State) -> usize {
        if chunk[i] == b'/' {
            self.temp_len = 0;
            self.temp_match = true;
            self.state = end_tag_open;
            i + 1
        } else {
            self.state = text;
            i
        }
    }

    /// The RCDATA / RAWTEXT / script data (escaped) end tag open states
    /// ([RCDATA](https://html.spec.whatwg.org/multipage/parsing.html#rcdata-end-tag-open-state)
    /// and its siblings): an ASCII letter may start the appropriate end tag.
    pub(crate) fn text_end_tag_open(&mut self, chunk: &[u8], i: usize, text: State, end_tag_name: State) -> usize {
        if chunk[i].is_ascii_alphabetic() {
            self.temp_len = 0;
            self.temp_match = true;
            self.state = end_tag_name;
        } else {
            self.state = text;
        }
        i
    }

    /// The RCDATA / RAWTEXT / script data (escaped) end tag name states
    /// ([RCDATA](https://html.spec.whatwg.org/multipage/parsing.html#rcdata-end-tag-name-state)
    /// and its siblings): letters are compared with the appropriate end tag
    /// name as they come; whitespace, `/` or `>` after a full match starts an
    /// end tag token, anything else makes it all text of `text`.
    pub(crate) fn text_end_tag_name<S: TokenSink + ?Sized>(
        &mut self,
        chunk: &[u8],
        base: u64,
        i: usize,
        text: State,
        sink: &mut S,
    ) -> usize {
        let mut j = i;
        while j < chunk.len() {
            let b = chunk[j];
            if b.is_ascii_alphabetic() {
                let expected = self.end_tag_name.get(self.temp_len);
                if expected != Some(&b.to_ascii_lowercase()) {
                    self.temp_match = false;
                }
                self.temp_len += 1;
                j += 1;
                continue;
            }
            let appropriate = self.temp_match && self.temp_len == self.end_tag_name.len();
            if appropriate && (is_space(b) || b == b'/' || b == b'>') {
                let mode = match text {
                    State::Rcdata => TextMode::Rcdata,
                    State::Rawtext => TextMode::Rawtext,
                    _ => TextMode::ScriptData,
                };
                self.emit_text_before_markup(chunk, base, mode, sink);
                self.start_tag_token(true, 2);
                self.name = Rel::new(2, 2 + self.temp_len);
                return match b {
                    b'/' => {
                        self.state = State::SelfClosingStartTag;
                        j + 1
                    }
                    b'>' => self.emit_tag(chunk, base, j, sink),
                    _ => {
                        self.state = State::BeforeAttributeName;
                        j + 1
                    }
                };
            }
            // spec: "Anything else": emit `</` and the temporary buffer as
            // text; reconsume in the text state.
            self.state = text;
            return j;
        }
        j
    }
}
