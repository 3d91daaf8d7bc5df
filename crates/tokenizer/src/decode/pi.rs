//! Processing instructions: the [processing instruction states] the Standard
//! added on 2026-06-25 (whatwg/html commit 320c05f, PR #12118), run over one
//! token's raw bytes.
//!
//! `<?` + ASCII alpha or `_` starts a target of ASCII alphanumerics, `-` and
//! `_` (case preserved), ended by whitespace, `?` or `>`. Whitespace after the
//! target is skipped; the data runs to the first `>`, without a `?` directly
//! before it. A target `xml` or `xml-stylesheet` (ASCII case-insensitive), a
//! byte that cannot start or continue a target, turns the token into a bogus
//! comment (see [`comment`](super::comment)); the end of the input inside the
//! instruction drops it.
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
                    errs.at(E::InvalidCharacterInProcessingInstructionTarget, raw, p);
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
/// `eof-in-processing-instruction` (and, for input that is not a processing
/// instruction, the error that makes it a bogus comment).
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
