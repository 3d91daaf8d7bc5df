//! Comment tokens: the [comment states] of the Standard and the [bogus comment
//! state], run over one comment token's raw bytes.
//!
//! Also home of the small helpers the other decoders of this subsection
//! (`tag.rs`, `doctype.rs`, `pi.rs`) share: the error reporter [`Errors`],
//! [`is_whitespace`] and [`decode_data`].
//!
//! # Error spans
//! Every error carries the bytes of the character(s) the Standard's state was
//! looking at when it raised the error (one character for most errors; the
//! seven bytes of `[CDATA[` for `cdata-in-html-content`), relative to the
//! token's first byte. Errors raised at the end of the input carry the empty
//! span at `raw.len()`. (For single-line ASCII input, html5lib's 1-based
//! column is `span.end`, or `span.end + 1` for an empty span.)
//!
//! [comment states]: https://html.spec.whatwg.org/multipage/parsing.html#comment-start-state
//! [bogus comment state]: https://html.spec.whatwg.org/multipage/parsing.html#bogus-comment-state

use super::ErrorFn;
use crate::{CommentKind, ParseErrorCode, Rel};
use std::borrow::Cow;

/// The optional error callback of a decoder, with helpers to report at a
/// byte position.
pub(super) struct Errors<'e> {
    f: Option<ErrorFn<'e>>,
}

impl<'e> Errors<'e> {
    /// Wraps the decoder's callback.
    pub(super) fn new(f: Option<ErrorFn<'e>>) -> Self {
        Errors { f }
    }

    /// Whether anyone listens (decoders skip work that only finds errors).
    pub(super) fn enabled(&self) -> bool {
        self.f.is_some()
    }

    /// Reports `code` for the bytes `rel`.
    pub(super) fn report(&mut self, code: ParseErrorCode, rel: Rel) {
        if let Some(f) = self.f.as_mut() {
            f(code, rel);
        }
    }

    /// Reports `code` for the character starting at `pos` in `raw`, or for
    /// the end of the input (empty span at `raw.len()`) when `pos` is past
    /// the last byte.
    pub(super) fn at(&mut self, code: ParseErrorCode, raw: &[u8], pos: usize) {
        let end = pos + char_len(raw, pos);
        self.report(code, Rel::new(pos.min(raw.len()), end.min(raw.len())));
    }
}

/// Number of bytes of the (possibly invalid) UTF-8 character starting at
/// `pos`: 0 at the end of `raw`, 1 for ASCII and for bytes that do not start
/// a well-formed sequence.
pub(super) fn char_len(raw: &[u8], pos: usize) -> usize {
    let Some(&lead) = raw.get(pos) else {
        return 0;
    };
    let want = match lead {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return 1,
    };
    match std::str::from_utf8(&raw[pos..raw.len().min(pos + want)]) {
        Ok(_) => want,
        Err(e) => e.valid_up_to().max(1),
    }
}

/// ASCII whitespace as the tokenizer sees it: tab, LF, FF, space, and CR
/// (the input is not newline-normalized; CR and CRLF stand for LF).
pub(super) fn is_whitespace(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0C' | b' ' | b'\r')
}

/// What [`decode_data`] does with U+0000.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Nul {
    /// U+0000 → U+FFFD (comments, DOCTYPE identifiers).
    Replace,
    /// U+0000 kept (processing instruction data).
    Keep,
}

/// Decodes raw token bytes to the string the Standard's states appended:
/// CR and CRLF → LF, U+0000 per `nul`, other bytes as UTF-8 (lossy).
/// Borrows when nothing changes.
///
/// # Complexity
/// O(`bytes.len()`).
pub(super) fn decode_data(bytes: &[u8], nul: Nul) -> Cow<'_, str> {
    let special = |b: &u8| *b == b'\r' || (*b == 0 && nul == Nul::Replace);
    if !bytes.iter().any(special) {
        return String::from_utf8_lossy(bytes);
    }
    // NUL, CR and LF are ASCII, and U+FFFD's bytes start with a lead byte, so
    // rewriting them before the lossy decoding ends invalid sequences at the
    // same places as decoding first would.
    let mut out = Vec::with_capacity(bytes.len() + 8);
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\r' => {
                out.push(b'\n');
                if bytes.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
            }
            0 if nul == Nul::Replace => out.extend_from_slice("\u{FFFD}".as_bytes()),
            b => out.push(b),
        }
        i += 1;
    }
    Cow::Owned(String::from_utf8_lossy(&out).into_owned())
}

/// The comment states (including the comment less-than sign states, which
/// only matter for `nested-comment`), as in the Standard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// [Comment start state](https://html.spec.whatwg.org/multipage/parsing.html#comment-start-state).
    CommentStart,
    /// [Comment start dash state](https://html.spec.whatwg.org/multipage/parsing.html#comment-start-dash-state).
    CommentStartDash,
    /// [Comment state](https://html.spec.whatwg.org/multipage/parsing.html#comment-state).
    Comment,
    /// [Comment less-than sign state](https://html.spec.whatwg.org/multipage/parsing.html#comment-less-than-sign-state).
    CommentLessThanSign,
    /// [Comment less-than sign bang state](https://html.spec.whatwg.org/multipage/parsing.html#comment-less-than-sign-bang-state).
    CommentLessThanSignBang,
    /// [Comment less-than sign bang dash state](https://html.spec.whatwg.org/multipage/parsing.html#comment-less-than-sign-bang-dash-state).
    CommentLessThanSignBangDash,
    /// [Comment less-than sign bang dash dash state](https://html.spec.whatwg.org/multipage/parsing.html#comment-less-than-sign-bang-dash-dash-state).
    CommentLessThanSignBangDashDash,
    /// [Comment end dash state](https://html.spec.whatwg.org/multipage/parsing.html#comment-end-dash-state).
    CommentEndDash,
    /// [Comment end state](https://html.spec.whatwg.org/multipage/parsing.html#comment-end-state).
    CommentEnd,
    /// [Comment end bang state](https://html.spec.whatwg.org/multipage/parsing.html#comment-end-bang-state).
    CommentEndBang,
}

/// The data of a comment token, decoded (CR/CRLF → LF, U+0000 → U+FFFD,
/// lossy UTF-8), reporting the parse errors inside the token.
///
/// `raw` is the whole token: `<!--` … for [`CommentKind::Regular`], `<!` …
/// for [`CommentKind::BogusMarkupDeclaration`], `</` … for
/// [`CommentKind::BogusEndTag`] and `<?` … for
/// [`CommentKind::BogusProcessingInstruction`]; it ends with the `>` that
/// closes the comment, or wherever the input ended when `eof` is set.
///
/// # Errors
/// Regular comments: `abrupt-closing-of-empty-comment`, `nested-comment`,
/// `incorrectly-closed-comment`, `unexpected-null-character`,
/// `eof-in-comment`. Bogus comments: the error that opened them
/// (`incorrectly-opened-comment` or `cdata-in-html-content`,
/// `invalid-first-character-of-tag-name`, or the processing instruction
/// error that turned `<?…` into a comment) and `unexpected-null-character`.
///
/// # Complexity
/// O(`raw.len()`).
pub(crate) fn comment<'a>(raw: &'a [u8], kind: CommentKind, eof: bool, err: Option<ErrorFn<'_>>) -> Cow<'a, str> {
    let mut errs = Errors::new(err);
    match kind {
        CommentKind::Regular => regular(raw, eof, &mut errs),
        CommentKind::BogusMarkupDeclaration => {
            // spec (markup declaration open state): `[CDATA[` outside foreign
            // content is consumed and becomes the start of the comment's data.
            if raw.get(2..9) == Some(b"[CDATA[") {
                errs.report(ParseErrorCode::CdataInHtmlContent, Rel::new(2, 9));
            } else {
                // spec: "Anything else": nothing is consumed.
                errs.at(ParseErrorCode::IncorrectlyOpenedComment, raw, 2);
            }
            bogus(raw, 2, &mut errs)
        }
        CommentKind::BogusEndTag => {
            // spec (end tag open state): "Anything else": reconsume in the
            // bogus comment state.
            errs.at(ParseErrorCode::InvalidFirstCharacterOfTagName, raw, 2);
            bogus(raw, 2, &mut errs)
        }
        CommentKind::BogusProcessingInstruction => {
            // The processing instruction states report why this became a
            // comment; the data is "?" followed by the temporary buffer and
            // the rest, i.e. everything after `<`.
            super::pi::run(raw, &mut errs);
            bogus(raw, 1, &mut errs)
        }
    }
}

/// The [bogus comment state](https://html.spec.whatwg.org/multipage/parsing.html#bogus-comment-state)
/// from `raw[start]`: data up to the first `>` or the end.
fn bogus<'a>(raw: &'a [u8], start: usize, errs: &mut Errors<'_>) -> Cow<'a, str> {
    let start = start.min(raw.len());
    let mut p = start;
    loop {
        match raw.get(p) {
            // spec: ">": emit the comment token.
            Some(b'>') => break,
            // spec: EOF: emit the comment, emit an end-of-file token.
            None => break,
            // spec: U+0000: unexpected-null-character; append U+FFFD.
            Some(0) => {
                errs.at(ParseErrorCode::UnexpectedNullCharacter, raw, p);
                p += 1;
                continue;
            }
            Some(_) => {
                p += 1;
                continue;
            }
        }
    }
    decode_data(&raw[start..p], Nul::Replace)
}

/// A regular comment: the comment states from the comment start state at
/// `raw[4]`. The data appended by the Standard is always `raw[4..data_end]`
/// (the dashes and `!` held back by the end states are either appended in
/// order or dropped at the end), so the states only track `data_end`.
fn regular<'a>(raw: &'a [u8], eof: bool, errs: &mut Errors<'_>) -> Cow<'a, str> {
    use ParseErrorCode as E;
    const DATA_START: usize = 4;
    let mut state = State::CommentStart;
    let mut p = DATA_START.min(raw.len());
    let mut data_end = p;
    let eof_in_comment = |errs: &mut Errors<'_>| {
        if eof {
            errs.at(E::EofInComment, raw, raw.len());
        }
    };
    loop {
        let c = raw.get(p).copied();
        match state {
            State::CommentStart => match c {
                Some(b'-') => {
                    state = State::CommentStartDash;
                    p += 1;
                    continue;
                }
                Some(b'>') => {
                    errs.at(E::AbruptClosingOfEmptyComment, raw, p);
                    break;
                }
                _ => {
                    state = State::Comment;
                    continue;
                }
            },
            State::CommentStartDash => match c {
                Some(b'-') => {
                    state = State::CommentEnd;
                    p += 1;
                    continue;
                }
                Some(b'>') => {
                    errs.at(E::AbruptClosingOfEmptyComment, raw, p);
                    break;
                }
                None => {
                    eof_in_comment(errs);
                    break;
                }
                Some(_) => {
                    // spec: append a U+002D (-) to the data; reconsume in the comment state.
                    data_end = p;
                    state = State::Comment;
                    continue;
                }
            },
            State::Comment => match c {
                Some(b'<') => {
                    p += 1;
                    data_end = p;
                    state = State::CommentLessThanSign;
                    continue;
                }
                Some(b'-') => {
                    p += 1;
                    state = State::CommentEndDash;
                    continue;
                }
                Some(0) => {
                    errs.at(E::UnexpectedNullCharacter, raw, p);
                    p += 1;
                    data_end = p;
                    continue;
                }
                None => {
                    eof_in_comment(errs);
                    break;
                }
                Some(_) => {
                    p += 1;
                    data_end = p;
                    continue;
                }
            },
            State::CommentLessThanSign => match c {
                Some(b'!') => {
                    p += 1;
                    data_end = p;
                    state = State::CommentLessThanSignBang;
                    continue;
                }
                Some(b'<') => {
                    p += 1;
                    data_end = p;
                    continue;
                }
                _ => {
                    state = State::Comment;
                    continue;
                }
            },
            State::CommentLessThanSignBang => match c {
                Some(b'-') => {
                    p += 1;
                    state = State::CommentLessThanSignBangDash;
                    continue;
                }
                _ => {
                    state = State::Comment;
                    continue;
                }
            },
            State::CommentLessThanSignBangDash => match c {
                Some(b'-') => {
                    p += 1;
                    state = State::CommentLessThanSignBangDashDash;
                    continue;
                }
                _ => {
                    state = State::CommentEndDash;
                    continue;
                }
            },
            State::CommentLessThanSignBangDashDash => match c {
                Some(b'>') | None => {
                    state = State::CommentEnd;
                    continue;
                }
                Some(_) => {
                    errs.at(E::NestedComment, raw, p);
                    state = State::CommentEnd;
                    continue;
                }
            },
            State::CommentEndDash => match c {
                Some(b'-') => {
                    p += 1;
                    state = State::CommentEnd;
                    continue;
                }
                None => {
                    eof_in_comment(errs);
                    break;
                }
                Some(_) => {
                    // spec: append a U+002D (-); reconsume in the comment state.
                    data_end = p;
                    state = State::Comment;
                    continue;
                }
            },
            State::CommentEnd => match c {
                Some(b'>') => break,
                Some(b'!') => {
                    p += 1;
                    state = State::CommentEndBang;
                    continue;
                }
                Some(b'-') => {
                    // spec: append a U+002D (-): the first of the three held dashes.
                    data_end = p - 1;
                    p += 1;
                    continue;
                }
                None => {
                    eof_in_comment(errs);
                    break;
                }
                Some(_) => {
                    // spec: append two U+002D (-); reconsume in the comment state.
                    data_end = p;
                    state = State::Comment;
                    continue;
                }
            },
            State::CommentEndBang => match c {
                Some(b'-') => {
                    // spec: append "--!"; switch to the comment end dash state.
                    data_end = p;
                    p += 1;
                    state = State::CommentEndDash;
                    continue;
                }
                Some(b'>') => {
                    errs.at(E::IncorrectlyClosedComment, raw, p);
                    break;
                }
                None => {
                    eof_in_comment(errs);
                    break;
                }
                Some(_) => {
                    // spec: append "--!"; reconsume in the comment state.
                    data_end = p;
                    state = State::Comment;
                    continue;
                }
            },
        }
    }
    decode_data(&raw[DATA_START.min(raw.len())..data_end], Nul::Replace)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ParseErrorCode as E;
    use std::ops::Range;

    /// Runs one case: the data, and the errors (code, and span when given).
    fn check(kind: CommentKind, eof: bool, raw: &[u8], data: &str, want: &[(E, Option<Range<usize>>)]) {
        let mut got: Vec<(E, Rel)> = Vec::new();
        let decoded = comment(raw, kind, eof, Some(&mut |c, r| got.push((c, r))));
        assert_eq!(decoded, data, "data of {:?}", String::from_utf8_lossy(raw));
        assert_eq!(comment(raw, kind, eof, None), data, "data without a callback");
        let ok = got.len() == want.len()
            && got.iter().zip(want).all(|((c, r), (wc, wr))| {
                c == wc && wr.as_ref().is_none_or(|wr| (r.start, r.end) == (wr.start, wr.end))
            });
        assert!(ok, "errors of {:?}:\n got  {got:?}\n want {want:?}", String::from_utf8_lossy(raw));
    }

    macro_rules! opt {
        () => {
            None
        };
        ($r:expr) => {
            Some($r)
        };
    }

    /// `name: Kind, eof, raw => data, [Code @ span, …];` — one test per case.
    macro_rules! cases {
        ($($name:ident: $kind:ident, $eof:expr, $raw:expr => $data:expr, [$($code:ident $(@ $r:expr)?),* $(,)?];)*) => {
            $(
                #[test]
                fn $name() {
                    check(CommentKind::$kind, $eof, $raw, $data, &[$((E::$code, opt!($($r)?))),*]);
                }
            )*
        };
    }

    cases! {
        regular_simple: Regular, false, b"<!--a-->" => "a", [];
        regular_empty: Regular, false, b"<!---->" => "", [];
        regular_abrupt: Regular, false, b"<!-->" => "", [AbruptClosingOfEmptyComment @ 4..5];
        regular_abrupt_dash: Regular, false, b"<!--->" => "", [AbruptClosingOfEmptyComment @ 5..6];
        regular_dash_inside: Regular, false, b"<!--a-b-->" => "a-b", [];
        regular_three_dash_end: Regular, false, b"<!--a--->" => "a-", [];
        regular_four_dash_end: Regular, false, b"<!--a---->" => "a--", [];
        regular_start_dash: Regular, false, b"<!---a-->" => "-a", [];
        regular_double_dash_inside: Regular, false, b"<!--a--b-->" => "a--b", [];
        regular_bang_close: Regular, false, b"<!--a--!>" => "a", [IncorrectlyClosedComment @ 8..9];
        regular_bang_then_text: Regular, false, b"<!--a--!b-->" => "a--!b", [];
        regular_bang_then_dashes: Regular, false, b"<!--a--!-->" => "a--!", [];
        regular_bang_dash_text: Regular, false, b"<!--a--!-b-->" => "a--!-b", [];
        regular_nested: Regular, false, b"<!-- <!-- -->" => " <!-- ", [NestedComment @ 9..10];
        regular_nested_dashes: Regular, false, b"<!--<!---->" => "<!--", [NestedComment @ 8..9];
        regular_nested_closed: Regular, false, b"<!--<!-->" => "<!", [];
        regular_less_than_run: Regular, false, b"<!--<<!--x-->" => "<<!--x", [NestedComment @ 9..10];
        regular_bang_dash_only: Regular, false, b"<!--<!-x-->" => "<!-x", [];
        regular_nul: Regular, false, b"<!--a\0b-->" => "a\u{FFFD}b", [UnexpectedNullCharacter @ 5..6];
        regular_nul_after_dash: Regular, false, b"<!--a-\0-->" => "a-\u{FFFD}", [UnexpectedNullCharacter @ 6..7];
        regular_newlines: Regular, false, b"<!--a\r\nb\rc\n-->" => "a\nb\nc\n", [];
        regular_invalid_utf8: Regular, false, b"<!--\xFF\xC3-->" => "\u{FFFD}\u{FFFD}", [];
        regular_utf8: Regular, false, "<!--é-->".as_bytes() => "é", [];
        regular_gt_inside: Regular, false, b"<!-- a > b -->" => " a > b ", [];
        eof_after_open: Regular, true, b"<!--" => "", [EofInComment @ 4..4];
        eof_in_text: Regular, true, b"<!--a" => "a", [EofInComment @ 5..5];
        eof_after_dash: Regular, true, b"<!--a-" => "a", [EofInComment @ 6..6];
        eof_after_two_dashes: Regular, true, b"<!--a--" => "a", [EofInComment @ 7..7];
        eof_after_three_dashes: Regular, true, b"<!--a---" => "a-", [EofInComment @ 8..8];
        eof_after_bang: Regular, true, b"<!--a--!" => "a", [EofInComment @ 8..8];
        eof_after_bang_dash: Regular, true, b"<!--a--!-" => "a--!", [EofInComment @ 9..9];
        eof_in_start_dash: Regular, true, b"<!---" => "", [EofInComment @ 5..5];
        eof_in_start_dashes: Regular, true, b"<!----" => "", [EofInComment @ 6..6];
        eof_after_nested_open: Regular, true, b"<!-- <!--" => " <!", [EofInComment @ 9..9];
        eof_after_less_than_bang_dash: Regular, true, b"<!--<!-" => "<!", [EofInComment @ 7..7];
        eof_after_less_than: Regular, true, b"<!--<" => "<", [EofInComment @ 5..5];
        eof_after_cr: Regular, true, b"<!--a\r" => "a\n", [EofInComment @ 6..6];
        bogus_doc: BogusMarkupDeclaration, false, b"<!DOC>" => "DOC", [IncorrectlyOpenedComment @ 2..3];
        bogus_empty: BogusMarkupDeclaration, false, b"<!>" => "", [IncorrectlyOpenedComment @ 2..3];
        bogus_one_dash: BogusMarkupDeclaration, false, b"<!-x>" => "-x", [IncorrectlyOpenedComment @ 2..3];
        bogus_cdata: BogusMarkupDeclaration, false, b"<![CDATA[x]]>" => "[CDATA[x]]", [CdataInHtmlContent @ 2..9];
        bogus_cdata_lowercase: BogusMarkupDeclaration, false, b"<![cdata[x]]>" => "[cdata[x]]", [IncorrectlyOpenedComment @ 2..3];
        bogus_cdata_cut: BogusMarkupDeclaration, true, b"<![CDATA" => "[CDATA", [IncorrectlyOpenedComment @ 2..3];
        bogus_cdata_eof: BogusMarkupDeclaration, true, b"<![CDATA[x" => "[CDATA[x", [CdataInHtmlContent @ 2..9];
        bogus_eof_at_open: BogusMarkupDeclaration, true, b"<!" => "", [IncorrectlyOpenedComment @ 2..2];
        bogus_eof: BogusMarkupDeclaration, true, b"<!ab" => "ab", [IncorrectlyOpenedComment @ 2..3];
        bogus_nul: BogusMarkupDeclaration, false, b"<!a\0b>" => "a\u{FFFD}b",
            [IncorrectlyOpenedComment @ 2..3, UnexpectedNullCharacter @ 3..4];
        bogus_newlines: BogusMarkupDeclaration, false, b"<!a\r\nb\r>" => "a\nb\n", [IncorrectlyOpenedComment @ 2..3];
        bogus_utf8_first: BogusMarkupDeclaration, false, "<!é>".as_bytes() => "é", [IncorrectlyOpenedComment @ 2..4];
        end_tag_digit: BogusEndTag, false, b"</1>" => "1", [InvalidFirstCharacterOfTagName @ 2..3];
        end_tag_space: BogusEndTag, false, b"</ x>" => " x", [InvalidFirstCharacterOfTagName @ 2..3];
        end_tag_nul: BogusEndTag, false, b"</\0>" => "\u{FFFD}",
            [InvalidFirstCharacterOfTagName @ 2..3, UnexpectedNullCharacter @ 2..3];
        end_tag_eof: BogusEndTag, true, b"</1" => "1", [InvalidFirstCharacterOfTagName @ 2..3];
        end_tag_utf8: BogusEndTag, false, "</é>".as_bytes() => "é", [InvalidFirstCharacterOfTagName @ 2..4];
        pi_xml: BogusProcessingInstruction, false, b"<?xml version=\"1.0\">" => "?xml version=\"1.0\"",
            [DisallowedProcessingInstructionTarget @ 5..6];
        pi_xml_question: BogusProcessingInstruction, false, b"<?xml?>" => "?xml?",
            [DisallowedProcessingInstructionTarget @ 5..6];
        pi_xml_upper: BogusProcessingInstruction, false, b"<?XML>" => "?XML", [DisallowedProcessingInstructionTarget @ 5..6];
        pi_xml_stylesheet: BogusProcessingInstruction, false, b"<?xml-STYLesheet>" => "?xml-STYLesheet",
            [DisallowedProcessingInstructionTarget @ 16..17];
        pi_xml_newline: BogusProcessingInstruction, false, b"<?xml\r\n>" => "?xml\n",
            [DisallowedProcessingInstructionTarget @ 5..6];
        pi_dollar: BogusProcessingInstruction, false, b"<?a$>" => "?a$",
            [InvalidProcessingInstructionTarget @ 3..4];
        pi_less_than: BogusProcessingInstruction, false, b"<?a<b>" => "?a<b",
            [InvalidProcessingInstructionTarget @ 3..4];
        pi_digit_first: BogusProcessingInstruction, false, b"<?1st-place>" => "?1st-place",
            [InvalidFirstCharacterOfProcessingInstructionTarget @ 2..3];
        pi_dash_first: BogusProcessingInstruction, false, b"<?-data->" => "?-data-",
            [InvalidFirstCharacterOfProcessingInstructionTarget @ 2..3];
        pi_empty: BogusProcessingInstruction, false, b"<?>" => "?",
            [InvalidFirstCharacterOfProcessingInstructionTarget @ 2..3];
        pi_space_eof: BogusProcessingInstruction, true, b"<? " => "? ",
            [InvalidFirstCharacterOfProcessingInstructionTarget @ 2..3];
        pi_cr_eof: BogusProcessingInstruction, true, b"<?\r" => "?\n",
            [InvalidFirstCharacterOfProcessingInstructionTarget @ 2..3];
        pi_invalid_eof: BogusProcessingInstruction, true, b"<?a$b" => "?a$b",
            [InvalidProcessingInstructionTarget @ 3..4];
        pi_nul_in_target: BogusProcessingInstruction, false, b"<?a\0>" => "?a\u{FFFD}",
            [InvalidProcessingInstructionTarget @ 3..4, UnexpectedNullCharacter @ 3..4];
        pi_utf8_first: BogusProcessingInstruction, false, "<?\u{665}-star>".as_bytes() => "?\u{665}-star",
            [InvalidFirstCharacterOfProcessingInstructionTarget @ 2..4];
        pi_utf8_in_target: BogusProcessingInstruction, false, "<?v1-\u{2705}>".as_bytes() => "?v1-\u{2705}",
            [InvalidProcessingInstructionTarget @ 5..8];
    }

    #[test]
    fn borrowed_when_unchanged() {
        assert!(matches!(comment(b"<!-- plain -->", CommentKind::Regular, false, None), Cow::Borrowed(" plain ")));
        assert!(matches!(comment(b"<!--a\r-->", CommentKind::Regular, false, None), Cow::Owned(_)));
    }

    #[test]
    fn long_comment_is_linear() {
        let mut raw = b"<!--".to_vec();
        raw.extend(std::iter::repeat_n(b"-!<!--", 100_000).flatten());
        raw.extend_from_slice(b"-->");
        let mut n = 0;
        let data = comment(&raw, CommentKind::Regular, false, Some(&mut |_, _| n += 1));
        assert_eq!(data.len(), raw.len() - 7);
        assert_eq!(n, 100_000);
    }

    /// html5lib's 1-based column of an error on a one-line ASCII input: the
    /// end of the span, or one past the end of the input for an empty span.
    fn column(r: Rel) -> usize {
        if r.is_empty() { r.end + 1 } else { r.end }
    }

    /// Whether the errors match html5lib's codes (and columns, where given).
    fn errors_match(got: &[(E, Rel)], want: &[(&str, Option<usize>)]) -> bool {
        got.len() == want.len()
            && got
                .iter()
                .zip(want)
                .all(|((c, r), (wc, wcol))| c.as_str() == *wc && wcol.is_none_or(|col| column(*r) == col))
    }

    macro_rules! html5lib_error {
        ($code:ident) => {
            (ParseErrorCode::$code.as_str(), None)
        };
        ($code:ident @ $col:literal) => {
            (ParseErrorCode::$code.as_str(), Some($col))
        };
    }

    /// `name: Kind, eof, raw => data, [Code @ column, …];` — cases from
    /// html5lib's tokenizer tests (the file and index in the name), whose
    /// whole input is one comment.
    macro_rules! html5lib_cases {
        ($($(#[$m:meta])* $name:ident: $kind:ident, $eof:expr, $raw:expr => $data:expr, [$($code:ident $(@ $col:literal)?),* $(,)?];)*) => {
            $(
                $(#[$m])*
                #[test]
                fn $name() {
                    let mut got = Vec::new();
                    let data = comment($raw, CommentKind::$kind, $eof, Some(&mut |c, r| got.push((c, r))));
                    assert_eq!(data, $data);
                    let want = [$(html5lib_error!($code $(@ $col)?)),*];
                    assert!(errors_match(&got, &want), "errors:\n got  {got:?}\n want {want:?}");
                }
            )*
        };
    }

    html5lib_cases! {
        // Truncated doctype start
        html5lib_test1_4: BogusMarkupDeclaration, false, b"<!DOC>" => "DOC", [IncorrectlyOpenedComment @ 3];
        // Simple comment
        html5lib_test1_17: Regular, false, b"<!--comment-->" => "comment", [];
        // Comment, Central dash no space
        html5lib_test1_18: Regular, false, b"<!----->" => "-", [];
        // Comment, two central dashes
        html5lib_test1_19: Regular, false, b"<!-- --comment -->" => " --comment ", [];
        // Comment, central less-than bang
        html5lib_test1_20: Regular, false, b"<!--<!-->" => "<!", [];
        // Unfinished comment
        html5lib_test1_21: Regular, true, b"<!--comment" => "comment", [EofInComment @ 12];
        // Unfinished comment after start of nested comment
        html5lib_test1_22: Regular, true, b"<!-- <!--" => " <!", [EofInComment @ 10];
        // Start of a comment
        html5lib_test1_23: BogusMarkupDeclaration, true, b"<!-" => "-", [IncorrectlyOpenedComment @ 3];
        // Short comment
        html5lib_test1_24: Regular, false, b"<!-->" => "", [AbruptClosingOfEmptyComment @ 5];
        // Short comment two
        html5lib_test1_25: Regular, false, b"<!--->" => "", [AbruptClosingOfEmptyComment @ 6];
        // Short comment three
        html5lib_test1_26: Regular, false, b"<!---->" => "", [];
        // < in comment
        html5lib_test1_27: Regular, false, b"<!-- <test-->" => " <test", [];
        // << in comment
        html5lib_test1_28: Regular, false, b"<!--<<-->" => "<<", [];
        // <! in comment
        html5lib_test1_29: Regular, false, b"<!-- <!test-->" => " <!test", [];
        // <!- in comment
        html5lib_test1_30: Regular, false, b"<!-- <!-test-->" => " <!-test", [];
        // Nested comment
        html5lib_test1_31: Regular, false, b"<!-- <!--test-->" => " <!--test", [NestedComment @ 10];
        // Nested comment with extra <
        html5lib_test1_32: Regular, false, b"<!-- <<!--test-->" => " <<!--test", [NestedComment @ 11];
        // Illegal end tag name
        html5lib_test2_30: BogusEndTag, false, b"</1>" => "1", [InvalidFirstCharacterOfTagName @ 3];
        // Comment with dash
        html5lib_test2_35: Regular, true, b"<!---x" => "-x", [EofInComment @ 7];
        // U+0000 in lookahead region
        html5lib_test4_58: BogusMarkupDeclaration, true, b"<!doc\0" => "doc\u{FFFD}", [IncorrectlyOpenedComment @ 3, UnexpectedNullCharacter @ 6];
        // U+0080 in lookahead region
        html5lib_test4_59: BogusMarkupDeclaration, true, b"<!doc\xC2\x80" => "doc\u{80}", [IncorrectlyOpenedComment];
        // U+FDD1 in lookahead region
        html5lib_test4_60: BogusMarkupDeclaration, true, b"<!doc\xEF\xB7\x91" => "doc\u{FDD1}", [IncorrectlyOpenedComment];
        // U+1FFFF in lookahead region
        html5lib_test4_61: BogusMarkupDeclaration, true, b"<!doc\xF0\x9F\xBF\xBF" => "doc\u{1FFFF}", [IncorrectlyOpenedComment];
        // --!NUL in comment
        html5lib_domjs_33: Regular, false, b"<!----!\0-->" => "--!\u{FFFD}", [UnexpectedNullCharacter @ 8];
        // CDATA in HTML content
        html5lib_domjs_35: BogusMarkupDeclaration, false, b"<![CDATA[foo]]>" => "[CDATA[foo]]", [CdataInHtmlContent @ 9];
        // <!---- >
        html5lib_pending_spec_changes_0: Regular, true, b"<!---- >" => "-- >", [EofInComment @ 9];
    }

    /// Errors come in source order and lie inside `raw`.
    fn in_order(got: &[(E, Rel)], len: usize) -> bool {
        got.windows(2).all(|w| w[0].1.start <= w[1].1.start)
            && got.iter().all(|(_, r)| r.start <= r.end && r.end <= len)
    }

    const ALPHABET: &[u8] = b"<>!-?[CDAT \r\n\0\xC3\xA9x";

    proptest::proptest! {
        /// Any bytes after each opener, cut by the end of the input: errors
        /// in source order and in bounds, the data independent of the
        /// callback, and exactly one `eof-in-comment` for an unclosed
        /// regular comment.
        #[test]
        fn invariants(
            opener in proptest::sample::select(vec![&b"<!--"[..], b"<!", b"</", b"<?"]),
            rest in proptest::collection::vec(proptest::sample::select(ALPHABET.to_vec()), 0..40),
        ) {
            let kind = match opener {
                b"<!--" => CommentKind::Regular,
                b"<!" => CommentKind::BogusMarkupDeclaration,
                b"</" => CommentKind::BogusEndTag,
                _ => CommentKind::BogusProcessingInstruction,
            };
            let mut raw = opener.to_vec();
            raw.extend(rest);
            if kind == CommentKind::BogusProcessingInstruction {
                // Only bytes that the processing instruction states give up on.
                let outcome = super::super::pi::run(&raw, &mut Errors::new(None));
                proptest::prop_assume!(outcome == super::super::pi::Outcome::BogusComment);
            }
            let mut got = Vec::new();
            let data = comment(&raw, kind, true, Some(&mut |c, r| got.push((c, r))));
            proptest::prop_assert_eq!(&data, &comment(&raw, kind, true, None));
            proptest::prop_assert!(in_order(&got, raw.len()), "{:?}", got);
            proptest::prop_assert!(got.iter().filter(|(c, _)| *c == E::EofInComment).count() <= 1);
        }
    }

    /// The comment states appending to a `String` one character at a time,
    /// exactly as written in the Standard (input: already-decoded characters
    /// after `<!--`, no CR), for comparison with the `data_end` bookkeeping.
    fn naive_regular(input: &str) -> String {
        let chars: Vec<char> = input.chars().collect();
        let mut data = String::new();
        let mut state = State::CommentStart;
        let mut i = 0;
        loop {
            let c = chars.get(i).copied();
            match state {
                State::CommentStart => match c {
                    Some('-') => state = State::CommentStartDash,
                    Some('>') => return data,
                    _ => {
                        state = State::Comment;
                        continue;
                    }
                },
                State::CommentStartDash => match c {
                    Some('-') => state = State::CommentEnd,
                    Some('>') | None => return data,
                    Some(_) => {
                        data.push('-');
                        state = State::Comment;
                        continue;
                    }
                },
                State::Comment => match c {
                    Some('<') => {
                        data.push('<');
                        state = State::CommentLessThanSign;
                    }
                    Some('-') => state = State::CommentEndDash,
                    Some('\0') => data.push('\u{FFFD}'),
                    None => return data,
                    Some(c) => data.push(c),
                },
                State::CommentLessThanSign => match c {
                    Some('!') => {
                        data.push('!');
                        state = State::CommentLessThanSignBang;
                    }
                    Some('<') => data.push('<'),
                    _ => {
                        state = State::Comment;
                        continue;
                    }
                },
                State::CommentLessThanSignBang => match c {
                    Some('-') => state = State::CommentLessThanSignBangDash,
                    _ => {
                        state = State::Comment;
                        continue;
                    }
                },
                State::CommentLessThanSignBangDash => match c {
                    Some('-') => state = State::CommentLessThanSignBangDashDash,
                    _ => {
                        state = State::CommentEndDash;
                        continue;
                    }
                },
                State::CommentLessThanSignBangDashDash => {
                    state = State::CommentEnd;
                    continue;
                }
                State::CommentEndDash => match c {
                    Some('-') => state = State::CommentEnd,
                    None => return data,
                    Some(_) => {
                        data.push('-');
                        state = State::Comment;
                        continue;
                    }
                },
                State::CommentEnd => match c {
                    Some('>') | None => return data,
                    Some('!') => state = State::CommentEndBang,
                    Some('-') => data.push('-'),
                    Some(_) => {
                        data.push_str("--");
                        state = State::Comment;
                        continue;
                    }
                },
                State::CommentEndBang => match c {
                    Some('-') => {
                        data.push_str("--!");
                        state = State::CommentEndDash;
                    }
                    Some('>') | None => return data,
                    Some(_) => {
                        data.push_str("--!");
                        state = State::Comment;
                        continue;
                    }
                },
            }
            i += 1;
        }
    }

    proptest::proptest! {
        /// The regular comment's data equals the naive transcription's, for
        /// any text after `<!--` (cut at the end of the input).
        #[test]
        fn regular_matches_naive(rest in proptest::collection::vec(proptest::sample::select(vec!['<', '>', '!', '-', 'a', '\0', 'é']), 0..40)) {
            let text: String = rest.into_iter().collect();
            let raw = format!("<!--{text}");
            // The comment ends at its closing `>`: find it with the naive
            // states' own reading, by trying each prefix that ends with `>`.
            let closed = (5..=raw.len())
                .filter(|&k| raw.as_bytes()[k - 1] == b'>')
                .find(|&k| {
                    let mut eof_error = false;
                    comment(&raw.as_bytes()[..k], CommentKind::Regular, true, Some(&mut |c, _| eof_error |= c == E::EofInComment));
                    !eof_error
                });
            let (raw, eof) = match closed {
                Some(k) => (&raw.as_bytes()[..k], false),
                None => (raw.as_bytes(), true),
            };
            let text = std::str::from_utf8(&raw[4..]).unwrap();
            proptest::prop_assert_eq!(comment(raw, CommentKind::Regular, eof, None), naive_regular(text));
        }
    }
}
