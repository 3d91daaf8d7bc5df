//! The parse errors of the [input stream](https://html.spec.whatwg.org/multipage/parsing.html#preprocessing-the-input-stream)
//! itself: surrogates, noncharacters and controls, checked over chunks.

use crate::{ParseError, ParseErrorCode, Span};

/// Reports the Standard's input stream errors (control characters,
/// noncharacters, surrogates) over bytes fed in chunks of any size.
///
/// Spec, [preprocessing the input stream](https://html.spec.whatwg.org/multipage/parsing.html#preprocessing-the-input-stream):
/// "Any occurrences of surrogates are surrogate-in-input-stream parse errors.
/// Any occurrences of noncharacters are noncharacter-in-input-stream parse
/// errors and any occurrences of controls other than ASCII whitespace and
/// U+0000 NULL characters are control-character-in-input-stream parse errors."
///
/// - `control-character-in-input-stream`: U+0001–U+0008, U+000B,
///   U+000E–U+001F, U+007F–U+009F.
/// - `noncharacter-in-input-stream`: U+FDD0–U+FDEF and U+xFFFE, U+xFFFF in
///   every plane.
/// - `surrogate-in-input-stream`: a surrogate encoded like UTF-8 (`ED A0..BF
///   80..BF`, "WTF-8"), which is how a byte stream can carry the lone
///   surrogates of html5lib's test data.
///
/// Each error's span is the character's bytes, in absolute offsets. Other
/// invalid UTF-8 reports nothing (the decoders turn it into U+FFFD). A
/// character split across chunks is reported once its last byte arrives;
/// the errors do not depend on the chunking.
///
/// # Example
/// ```
/// use htrewrite_tokenizer::{InputStreamChecker, ParseErrorCode, Span};
/// let mut errors = Vec::new();
/// let mut checker = InputStreamChecker::new();
/// let input = "a\u{1}b\u{FFFF}".as_bytes();
/// checker.check(&input[..5], 0, &mut |e| errors.push(e));
/// checker.check(&input[5..], 5, &mut |e| errors.push(e));
/// checker.finish(&mut |e| errors.push(e));
/// assert_eq!(errors[0].code, ParseErrorCode::ControlCharacterInInputStream);
/// assert_eq!(errors[0].span, Span::new(1, 2));
/// assert_eq!(errors[1].code, ParseErrorCode::NoncharacterInInputStream);
/// assert_eq!(errors[1].span, Span::new(3, 6));
/// ```
///
/// # Complexity
/// O(chunk length) per call; runs of printable ASCII are skipped eight bytes
/// at a time.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InputStreamChecker {
    /// The code point bits of the unfinished UTF-8 sequence so far.
    code: u32,
    /// Continuation bytes still expected (0: between characters).
    needed: u8,
    /// Bytes of the unfinished sequence seen so far (up to 3).
    seen: u8,
    /// The range of the next continuation byte (the lead byte restricts the
    /// second byte: `E0 A0..`, `F0 90..`, `F4 ..8F`).
    lower: u8,
    upper: u8,
}

impl InputStreamChecker {
    /// A checker at the start of the input.
    pub fn new() -> Self {
        Self::default()
    }

    /// Checks the next chunk; `base` is the absolute offset of `chunk[0]`.
    ///
    /// Chunks must be fed in order without gaps: `base` of each chunk is the
    /// previous chunk's `base` plus its length.
    pub fn check(&mut self, chunk: &[u8], base: u64, report: &mut dyn FnMut(ParseError)) {
        let mut i = 0;
        while i < chunk.len() {
            if self.needed == 0 {
                // Skip printable ASCII eight bytes at a time.
                while let Some(word) = chunk.get(i..i + 8) {
                    let word = u64::from_le_bytes(word.try_into().expect("eight bytes"));
                    if !is_printable_ascii(word) {
                        break;
                    }
                    i += 8;
                }
                let Some(&b) = chunk.get(i) else {
                    return;
                };
                self.start(b, base + i as u64, report);
                i += 1;
                continue;
            }
            let b = chunk[i];
            if b < self.lower || b > self.upper {
                // Invalid UTF-8: forget the sequence, and read this byte afresh.
                *self = InputStreamChecker::default();
                continue;
            }
            self.code = self.code << 6 | u32::from(b & 0x3F);
            self.needed -= 1;
            self.seen += 1;
            self.lower = 0x80;
            self.upper = 0xBF;
            if self.needed == 0 {
                let end = base + i as u64 + 1;
                let span = Span::new(end - u64::from(self.seen), end);
                check_code_point(self.code, span, report);
                *self = InputStreamChecker::default();
            }
            i += 1;
        }
    }

    /// Ends the input. An unfinished UTF-8 sequence at the end is invalid
    /// and reports nothing; the checker is ready for a new input.
    pub fn finish(&mut self, report: &mut dyn FnMut(ParseError)) {
        let _ = report;
        *self = InputStreamChecker::default();
    }

    /// Reads `b`, the first byte of a character, at absolute offset `at`.
    fn start(&mut self, b: u8, at: u64, report: &mut dyn FnMut(ParseError)) {
        let (needed, code, lower, upper) = match b {
            0x00..=0x7F => {
                check_code_point(u32::from(b), Span::new(at, at + 1), report);
                return;
            }
            0xC2..=0xDF => (1, b & 0x1F, 0x80, 0xBF),
            0xE0 => (2, b & 0x0F, 0xA0, 0xBF),
            // ED A0..BF: surrogates, accepted here so they can be reported.
            0xE1..=0xEF => (2, b & 0x0F, 0x80, 0xBF),
            0xF0 => (3, b & 0x07, 0x90, 0xBF),
            0xF1..=0xF3 => (3, b & 0x07, 0x80, 0xBF),
            0xF4 => (3, b & 0x07, 0x80, 0x8F),
            // Continuation bytes without a lead, C0, C1, F5..FF: invalid.
            _ => return,
        };
        *self = InputStreamChecker { code: u32::from(code), needed, seen: 1, lower, upper };
    }
}

/// Whether all eight bytes of `word` are in 0x20..=0x7E.
fn is_printable_ascii(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    if word & HIGH != 0 {
        return false;
    }
    // Every byte is below 0x80, so these per-byte sums and differences do not
    // carry between bytes except where a byte is below 0x20 (which is what we
    // look for): a high bit in `below_space` means some byte is below 0x20; in
    // `delete`, that some byte is 0x7F.
    let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGH;
    let delete = word.wrapping_add(ONES) & HIGH;
    below_space == 0 && delete == 0
}

/// Reports `code` (a character at `span`) if the Standard says it is an error.
fn check_code_point(code: u32, span: Span, report: &mut dyn FnMut(ParseError)) {
    let code = match code {
        0xD800..=0xDFFF => ParseErrorCode::SurrogateInInputStream,
        0xFDD0..=0xFDEF => ParseErrorCode::NoncharacterInInputStream,
        _ if code & 0xFFFE == 0xFFFE => ParseErrorCode::NoncharacterInInputStream,
        0x01..=0x08 | 0x0B | 0x0E..=0x1F | 0x7F..=0x9F => ParseErrorCode::ControlCharacterInInputStream,
        _ => return,
    };
    report(ParseError { code, span });
}

#[cfg(test)]
mod tests {
    use super::*;
    use ParseErrorCode::*;

    /// One case: name, input bytes, expected errors with absolute spans.
    type Case = (&'static str, &'static [u8], &'static [(ParseErrorCode, u64, u64)]);

    #[rustfmt::skip]
    const CASES: &[Case] = &[
        ("empty", b"", &[]),
        ("printable", b"Hello, world! 0123456789 ~", &[]),
        ("whitespace_ok", b"\t\n\x0C\r ", &[]),
        ("null_ok", b"\0", &[]),
        ("c0_controls", b"a\x01\x08\x0B\x0E\x1F", &[
            (ControlCharacterInInputStream, 1, 2), (ControlCharacterInInputStream, 2, 3),
            (ControlCharacterInInputStream, 3, 4), (ControlCharacterInInputStream, 4, 5),
            (ControlCharacterInInputStream, 5, 6),
        ]),
        ("delete", b"abcdefghij\x7Fklmnopq", &[(ControlCharacterInInputStream, 10, 11)]),
        ("c1_controls", "\u{80}x\u{9F}\u{A0}".as_bytes(), &[
            (ControlCharacterInInputStream, 0, 2), (ControlCharacterInInputStream, 3, 5),
        ]),
        ("noncharacters_bmp", "\u{FDD0}\u{FDEF}\u{FDCF}\u{FDF0}\u{FFFE}\u{FFFF}\u{FFFD}".as_bytes(), &[
            (NoncharacterInInputStream, 0, 3), (NoncharacterInInputStream, 3, 6),
            (NoncharacterInInputStream, 12, 15), (NoncharacterInInputStream, 15, 18),
        ]),
        ("noncharacters_astral", "\u{1FFFE}\u{1FFFF}\u{10FFFE}\u{10FFFF}\u{1F600}".as_bytes(), &[
            (NoncharacterInInputStream, 0, 4), (NoncharacterInInputStream, 4, 8),
            (NoncharacterInInputStream, 8, 12), (NoncharacterInInputStream, 12, 16),
        ]),
        ("surrogates_wtf8", b"a\xED\xA0\x80b\xED\xBF\xBF", &[
            (SurrogateInInputStream, 1, 4), (SurrogateInInputStream, 5, 8),
        ]),
        ("surrogate_pair_wtf8", b"\xED\xA0\xBD\xED\xB8\x80", &[
            (SurrogateInInputStream, 0, 3), (SurrogateInInputStream, 3, 6),
        ]),
        ("invalid_utf8_silent", b"\xFF\xC0\x80\xC1\xBF\xF5\x80\x80\x80\x80", &[]),
        ("overlong_noncharacter_silent", b"\xE0\x9F\xBF\xF0\x8F\xBF\xBF", &[]),
        ("truncated_then_control", b"\xEF\xBF\x01", &[(ControlCharacterInInputStream, 2, 3)]),
        ("truncated_then_noncharacter", b"\xE2\xEF\xBF\xBF", &[(NoncharacterInInputStream, 1, 4)]),
        ("truncated_at_end", b"\x01\xEF\xBF", &[(ControlCharacterInInputStream, 0, 1)]),
        ("above_unicode_silent", b"\xF4\x90\x80\x80", &[]),
        ("max_code_point", "\u{10FFFD}\u{10FFFF}".as_bytes(), &[(NoncharacterInInputStream, 4, 8)]),
        ("long_ascii_then_control", b"0123456789abcdefghijklmnopqrstuv\x1Bwxyz", &[(ControlCharacterInInputStream, 32, 33)]),
    ];

    fn check_split(input: &[u8], splits: &[usize]) -> Vec<(ParseErrorCode, u64, u64)> {
        let mut errors = Vec::new();
        let mut report = |e: ParseError| errors.push((e.code, e.span.start, e.span.end));
        let mut checker = InputStreamChecker::new();
        let mut start = 0;
        for &end in splits.iter().chain([input.len()].iter()) {
            checker.check(&input[start..end], start as u64, &mut report);
            start = end;
        }
        checker.finish(&mut report);
        assert_eq!(checker, InputStreamChecker::default());
        errors
    }

    #[test]
    fn cases_whole() {
        let mut failures = Vec::new();
        for &(name, input, want) in CASES {
            let got = check_split(input, &[]);
            if got != want {
                failures.push(format!("{name}: got {got:?}, want {want:?}"));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    /// Every split into two and three chunks, and byte by byte.
    #[test]
    fn cases_every_split() {
        for &(name, input, want) in CASES {
            let n = input.len();
            for a in 0..=n {
                assert_eq!(check_split(input, &[a]), want, "{name} split at {a}");
                for b in a..=n {
                    assert_eq!(check_split(input, &[a, b]), want, "{name} split at {a}, {b}");
                }
            }
            let every: Vec<usize> = (0..=n).collect();
            assert_eq!(check_split(input, &every), want, "{name} byte by byte");
        }
    }

    /// The slow, obvious checker: decode the whole input with a per-position
    /// UTF-8 reader (surrogates allowed) and classify each character.
    fn reference(input: &[u8]) -> Vec<(ParseErrorCode, u64, u64)> {
        let mut errors = Vec::new();
        let mut i = 0;
        while i < input.len() {
            let b = input[i];
            let (len, min) = match b {
                0x00..=0x7F => (1, 0),
                0xC2..=0xDF => (2, 0x80),
                0xE0..=0xEF => (3, 0x800),
                0xF0..=0xF4 => (4, 0x10000),
                _ => {
                    i += 1;
                    continue;
                }
            };
            let Some(bytes) = input.get(i..i + len) else {
                i += 1;
                continue;
            };
            if !bytes[1..].iter().all(|c| (0x80..=0xBF).contains(c)) {
                i += 1;
                continue;
            }
            let mut code = if len == 1 { u32::from(b) } else { u32::from(b) & (0x7F >> len) };
            for c in &bytes[1..] {
                code = code << 6 | u32::from(c & 0x3F);
            }
            if code < min || code > 0x10FFFF {
                i += 1;
                continue;
            }
            check_code_point(code, Span::new(i as u64, (i + len) as u64), &mut |e| {
                errors.push((e.code, e.span.start, e.span.end))
            });
            i += len;
        }
        errors
    }

    #[test]
    fn reference_agrees_on_cases() {
        for &(name, input, want) in CASES {
            assert_eq!(reference(input), want, "{name}");
        }
    }

    proptest::proptest! {
        #[test]
        fn any_chunking_equals_reference(
            input in proptest::collection::vec(proptest::sample::select(ALPHABET.to_vec()), 0..48),
            mut splits in proptest::collection::vec(0usize..48, 0..6),
        ) {
            splits.iter_mut().for_each(|s| *s = (*s).min(input.len()));
            splits.sort();
            proptest::prop_assert_eq!(check_split(&input, &splits), reference(&input));
        }
    }

    /// Bytes that make up valid, invalid and reported characters.
    const ALPHABET: &[u8] = &[
        b'a', b' ', b'\n', 0x00, 0x01, 0x1F, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xB7, 0xBD, 0xBE, 0xBF, 0xC2, 0xC3,
        0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF,
    ];

    #[test]
    fn printable_ascii_words() {
        for b in 0..=255u8 {
            let word = u64::from_le_bytes([b' ', b'a', b'~', b, b'z', b'0', b'!', b'A']);
            assert_eq!(is_printable_ascii(word), (0x20..=0x7E).contains(&b), "{b:#X}");
        }
        let all_low = u64::from_le_bytes([0x1F; 8]);
        assert!(!is_printable_ascii(all_low));
    }
}
