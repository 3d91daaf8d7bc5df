//! Processing instructions: the [processing instruction states] the Standard
//! added on 2026-06-25 (whatwg/html commit 320c05f, PR #12118), run over one
//! token's raw bytes.
//!
//! `<?` + ASCII alpha or `_` starts a target of ASCII alphanumerics, `-` and
//! `_` (case preserved), ended by whitespace, `?` or `>`. Whitespace after the
//! target is skipped; the data runs to the first `>`, without a `?` directly
//! before it. A target `xml` or `xml-stylesheet` (ASCII case-insensitive), a
//! byte that cannot start or continue a target, turns the token into a bogus
//! comment (see [`comment`](super::comment())); the end of the input inside the
//! instruction drops it.
//!
//! Error codes, as in the Standard's table of parse errors:
//! `invalid-first-character-of-processing-instruction-target`,
//! `invalid-processing-instruction-target`,
//! `disallowed-processing-instruction-target` and
//! `eof-in-processing-instruction`. The data state has no U+0000 case: NUL
//! stays in the data, without an error.
//!
//! [processing instruction states]: https://html.spec.whatwg.org/multipage/parsing.html#processing-instruction-open-state

use super::ErrorFn;
use super::comment::{Errors, Nul, decode_data, is_whitespace};
use crate::{ParseErrorCode, Rel};
use std::borrow::Cow;

/// The processing instruction states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// [Processing instruction open state](https://html.spec.whatwg.org/multipage/parsing.html#processing-instruction-open-state).
    ProcessingInstructionOpen,
    /// [Processing instruction target state](https://html.spec.whatwg.org/multipage/parsing.html#processing-instruction-target-state).
    ProcessingInstructionTarget,
    /// [After processing instruction target state](https://html.spec.whatwg.org/multipage/parsing.html#after-processing-instruction-target-state).
    AfterProcessingInstructionTarget,
    /// [Processing instruction data state](https://html.spec.whatwg.org/multipage/parsing.html#processing-instruction-data-state).
    ProcessingInstructionData,
    /// [Processing instruction questionable state](https://html.spec.whatwg.org/multipage/parsing.html#processing-instruction-questionable-state):
    /// after a `?` in the data.
    ProcessingInstructionQuestionable,
}

/// How the processing instruction states ended on one token's raw bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Outcome {
    /// A processing instruction token: `target` and `data` (data without the
    /// `?` directly before the closing `>`), closed by a `>` (`eof` false) or
    /// cut off by the end of the input (`eof` true: the Standard emits
    /// nothing).
    Instruction {
        /// The target's bytes.
        target: Rel,
        /// The data's bytes (raw: CR not yet normalized).
        data: Rel,
        /// Whether the end of the input came first.
        eof: bool,
    },
    /// The states turned the token into a bogus comment (the error is
    /// reported), whose data starts at `raw[1]` (the `?`).
    BogusComment,
}

/// Runs the processing instruction states from the processing instruction
/// open state at `raw[2]`, reporting their errors.
pub(super) fn run(raw: &[u8], errs: &mut Errors<'_>) -> Outcome {
    use ParseErrorCode as E;
    const TARGET_START: usize = 2;
    let mut state = State::ProcessingInstructionOpen;
    let mut p = TARGET_START.min(raw.len());
    let mut target = Rel::new(p, p);
    let mut data_start = p;
    loop {
        let c = raw.get(p).copied();
        match state {
            State::ProcessingInstructionOpen => match c {
                Some(b) if b.is_ascii_alphabetic() || b == b'_' => {
                    state = State::ProcessingInstructionTarget;
                    continue;
                }
                None => {
                    errs.at(E::EofInProcessingInstruction, raw, p);
                    return Outcome::Instruction { target, data: target, eof: true };
                }
                Some(_) => {
                    // spec: convert the temporary buffer to a comment;
                    // reconsume in the bogus comment state.
                    errs.at(E::InvalidFirstCharacterOfProcessingInstructionTarget, raw, p);
                    return Outcome::BogusComment;
                }
            },
            State::ProcessingInstructionTarget => match c {
                Some(b) if is_whitespace(b) || b == b'?' || b == b'>' => {
                    target = Rel::new(TARGET_START, p);
                    let t = target.slice(raw);
                    if t.eq_ignore_ascii_case(b"xml") || t.eq_ignore_ascii_case(b"xml-stylesheet") {
                        errs.at(E::DisallowedProcessingInstructionTarget, raw, p);
                        return Outcome::BogusComment;
                    }
                    state = State::AfterProcessingInstructionTarget;
                    continue;
                }
                Some(b) if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' => {
                    p += 1;
                    continue;
                }
                None => {
                    errs.at(E::EofInProcessingInstruction, raw, p);
                    target = Rel::new(TARGET_START, p);
                    return Outcome::Instruction { target, data: Rel::new(p, p), eof: true };
                }
                Some(_) => {
                    // The Standard's code is `invalid-processing-instruction-target`.
                    errs.at(E::InvalidProcessingInstructionTarget, raw, p);
                    return Outcome::BogusComment;
                }
            },
            State::AfterProcessingInstructionTarget => match c {
                Some(b) if is_whitespace(b) => {
                    p += 1;
                    continue;
                }
                _ => {
                    data_start = p;
                    state = State::ProcessingInstructionData;
                    continue;
                }
            },
            State::ProcessingInstructionData => match c {
                Some(b'?') => {
                    p += 1;
                    state = State::ProcessingInstructionQuestionable;
                    continue;
                }
                Some(b'>') => {
                    return Outcome::Instruction { target, data: Rel::new(data_start, p), eof: false };
                }
                None => {
                    errs.at(E::EofInProcessingInstruction, raw, p);
                    return Outcome::Instruction { target, data: Rel::new(data_start, p), eof: true };
                }
                Some(_) => {
                    p += 1;
                    continue;
                }
            },
            State::ProcessingInstructionQuestionable => match c {
                Some(b'>') => {
                    // spec: the `?` is not appended.
                    return Outcome::Instruction { target, data: Rel::new(data_start, p - 1), eof: false };
                }
                None => {
                    errs.at(E::EofInProcessingInstruction, raw, p);
                    return Outcome::Instruction { target, data: Rel::new(data_start, p - 1), eof: true };
                }
                Some(_) => {
                    // spec: append a U+003F (?); reconsume in the data state.
                    state = State::ProcessingInstructionData;
                    continue;
                }
            },
        }
    }
}

/// Target and data of a processing instruction token, reporting the parse
/// errors inside it.
///
/// `raw` is the whole token: `<?target data>` (complete), or cut off by the
/// end of the input (a dropped instruction: `eof-in-processing-instruction`;
/// the target and data so far are returned). The target keeps its case; the
/// data has CR/CRLF → LF and U+0000 kept (the data state has no U+0000 case),
/// other bytes lossy UTF-8. For bytes that the states turn into a bogus
/// comment instead, the error is reported and both strings are empty.
///
/// # Errors
/// `eof-in-processing-instruction`, with the empty span at `raw.len()` (and,
/// for input that is not a processing instruction, the error that makes it a
/// bogus comment, at the character that does).
///
/// # Complexity
/// O(`raw.len()`).
pub(crate) fn processing_instruction<'a>(raw: &'a [u8], err: Option<ErrorFn<'_>>) -> (Cow<'a, str>, Cow<'a, str>) {
    let mut errs = Errors::new(err);
    match run(raw, &mut errs) {
        Outcome::Instruction { target, data, .. } => {
            // Target bytes are ASCII alphanumerics, `-` and `_`.
            let target = String::from_utf8_lossy(target.slice(raw));
            (target, decode_data(data.slice(raw), Nul::Keep))
        }
        Outcome::BogusComment => (Cow::Borrowed(""), Cow::Borrowed("")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ParseErrorCode as E;
    use std::ops::Range;

    /// Runs one case: target, data and errors (code and span).
    fn check(raw: &[u8], target: &str, data: &str, want: &[(E, Range<usize>)]) {
        let mut got: Vec<(E, Rel)> = Vec::new();
        let (t, d) = processing_instruction(raw, Some(&mut |c, r| got.push((c, r))));
        assert_eq!((&*t, &*d), (target, data), "target and data of {:?}", String::from_utf8_lossy(raw));
        let (t, d) = processing_instruction(raw, None);
        assert_eq!((&*t, &*d), (target, data), "without a callback");
        let want: Vec<(E, Rel)> = want.iter().map(|(c, r)| (*c, Rel::new(r.start, r.end))).collect();
        assert_eq!(got, want, "errors of {:?}", String::from_utf8_lossy(raw));
    }

    /// `name: raw => (target, data), [Code @ span, …];` — one test per case.
    macro_rules! cases {
        ($($name:ident: $raw:expr => ($target:expr, $data:expr), [$($code:ident @ $r:expr),* $(,)?];)*) => {
            $(
                #[test]
                fn $name() {
                    check($raw, $target, $data, &[$((E::$code, $r)),*]);
                }
            )*
        };
    }

    // From wpt html/syntax/parsing/resources/processing-instructions.dat
    // (../shared/html5lib-tests/wpt-additions), one token each.
    cases! {
        wpt_target_only: b"<?something>" => ("something", ""), [];
        wpt_data: b"<?something good>" => ("something", "good"), [];
        wpt_data_with_spaces: b"<?something else is good>" => ("something", "else is good"), [];
        wpt_question_close: b"<?hey there?>" => ("hey", "there"), [];
        wpt_spaces_skipped: b"<?hey   there?>" => ("hey", "there"), [];
        wpt_question_after_target: b"<?hey?there>" => ("hey", "?there"), [];
        wpt_tab: b"<?hey\tthere=1?>" => ("hey", "there=1"), [];
        wpt_lf: b"<?hey\nthere=1?>" => ("hey", "there=1"), [];
        wpt_cr: b"<?hey\rthere=1?>" => ("hey", "there=1"), [];
        wpt_ff: b"<?hey\x0Cthere=1?>" => ("hey", "there=1"), [];
        wpt_lone_question: b"<?something ? >" => ("something", "? "), [];
        wpt_trailing_space: b"<?something x >" => ("something", "x "), [];
        wpt_questions: b"<?something ?\t   ??>" => ("something", "?\t   ?"), [];
        wpt_ends_at_first_gt: b"<?t d >" => ("t", "d "), [];
        wpt_hyphens: b"<?module-handler data>" => ("module-handler", "data"), [];
        wpt_trailing_hyphen: b"<?xla->" => ("xla-", ""), [];
        wpt_digits: b"<?v-123 data>" => ("v-123", "data"), [];
        wpt_uppercase: b"<?UPPERCASE data>" => ("UPPERCASE", "data"), [];
        wpt_mixed_case: b"<?all-KINDS-of-CaSeS>" => ("all-KINDS-of-CaSeS", ""), [];
        wpt_underscore: b"<?user_name data>" => ("user_name", "data"), [];
        wpt_underscore_first: b"<?_prefix>" => ("_prefix", ""), [];
        wpt_underscore_only: b"<?_ data>" => ("_", "data"), [];
        wpt_many_hyphens: b"<?A---------------->" => ("A----------------", ""), [];
        wpt_eof_after_open: b"<?" => ("", ""), [EofInProcessingInstruction @ 2..2];
        wpt_eof_in_target: b"<?start" => ("start", ""), [EofInProcessingInstruction @ 7..7];
        wpt_eof_after_question: b"<?start?" => ("start", ""), [EofInProcessingInstruction @ 8..8];
        wpt_eof_after_space: b"<?start " => ("start", ""), [EofInProcessingInstruction @ 8..8];
        wpt_eof_in_data: b"<?start data" => ("start", "data"), [EofInProcessingInstruction @ 12..12];
        wpt_eof_in_questionable: b"<?start ? ?" => ("start", "? "), [EofInProcessingInstruction @ 11..11];
        // whatwg/html#12118: "`<?t?d?>` … target is "t" and data is "?d"", "`<?t ???>` where data is "??"".
        pr_question_in_data: b"<?t?d?>" => ("t", "?d"), [];
        pr_three_questions: b"<?t ???>" => ("t", "??"), [];
        empty_data_question: b"<?t?>" => ("t", ""), [];
        target_prefix_xml: b"<?xmlx>" => ("xmlx", ""), [];
        target_prefix_xml_stylesheet: b"<?xml-stylesheets a>" => ("xml-stylesheets", "a"), [];
        data_crlf: b"<?t a\r\nb\rc>" => ("t", "a\nb\nc"), [];
        data_keeps_nul: b"<?t a\0b>" => ("t", "a\0b"), [];
        data_utf8: "<?t é ü?>".as_bytes() => ("t", "é ü"), [];
        data_invalid_utf8: b"<?t \xFF>" => ("t", "\u{FFFD}"), [];
        data_markup: b"<?t <a href='&amp;'>" => ("t", "<a href='&amp;'"), [];
        eof_in_xml_target: b"<?xml" => ("xml", ""), [EofInProcessingInstruction @ 5..5];
        eof_after_question_in_data: b"<?t a?" => ("t", "a"), [EofInProcessingInstruction @ 6..6];
    }

    #[test]
    fn bogus_comment_outcomes() {
        let cases: &[(&[u8], E, Range<usize>)] = &[
            (b"<?xml>", E::DisallowedProcessingInstructionTarget, 5..6),
            (b"<?Xml-StyleSheet href=x>", E::DisallowedProcessingInstructionTarget, 16..17),
            (b"<?a.b>", E::InvalidProcessingInstructionTarget, 3..4),
            (b"<?1>", E::InvalidFirstCharacterOfProcessingInstructionTarget, 2..3),
            (b"<? >", E::InvalidFirstCharacterOfProcessingInstructionTarget, 2..3),
        ];
        for (raw, code, span) in cases {
            let mut got = Vec::new();
            let mut f = |c, r| got.push((c, r));
            let mut errs = Errors::new(Some(&mut f));
            assert_eq!(run(raw, &mut errs), Outcome::BogusComment, "{:?}", String::from_utf8_lossy(raw));
            assert_eq!(got, [(*code, Rel::new(span.start, span.end))], "{:?}", String::from_utf8_lossy(raw));
        }
    }

    #[test]
    fn long_data_is_linear() {
        let mut raw = b"<?t ".to_vec();
        raw.extend(std::iter::repeat_n(b'?', 200_000));
        raw.push(b'>');
        let (_, data) = processing_instruction(&raw, None);
        assert_eq!(data.len(), 200_000 - 1);
    }

    const ALPHABET: &[u8] = b"<>?-_ aZ1xmlXML$\t\r\n\0\xC3\xA9";

    proptest::proptest! {
        /// Any bytes after `<?` up to the first `>` (or the end): at most one
        /// error; a complete instruction has none unless it is a bogus
        /// comment, an unclosed one has `eof-in-processing-instruction`.
        #[test]
        fn invariants(rest in proptest::collection::vec(proptest::sample::select(ALPHABET.to_vec()), 0..30)) {
            let mut raw = b"<?".to_vec();
            raw.extend(rest);
            let closed = match raw.iter().position(|&b| b == b'>') {
                Some(gt) => {
                    raw.truncate(gt + 1);
                    true
                }
                None => false,
            };
            let mut got = Vec::new();
            let mut f = |c, r| got.push((c, r));
            let outcome = run(&raw, &mut Errors::new(Some(&mut f)));
            match outcome {
                Outcome::Instruction { target, data, eof } => {
                    proptest::prop_assert_eq!(eof, !closed);
                    proptest::prop_assert!(target.end <= data.start && data.end <= raw.len());
                    let want: Vec<(E, Rel)> = if eof {
                        vec![(E::EofInProcessingInstruction, Rel::new(raw.len(), raw.len()))]
                    } else {
                        vec![]
                    };
                    proptest::prop_assert_eq!(got, want);
                }
                Outcome::BogusComment => proptest::prop_assert_eq!(got.len(), 1),
            }
        }
    }
}
