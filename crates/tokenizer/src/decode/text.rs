//! Decoding of names, attribute values and text: character references, CR
//! and CRLF → LF, U+0000 per state, UTF-8 (lossy).
//!
//! Each function makes one pass over the raw bytes with `memchr` looking for
//! the few bytes that may need work (`&`, CR, NUL, and `<` for errors); when
//! nothing changes and the bytes are valid UTF-8 the result borrows `raw`.
//!
//! The decoded value follows the Standard's
//! [preprocessing of the input stream](https://html.spec.whatwg.org/multipage/parsing.html#preprocessing-the-input-stream)
//! (CR LF and lone CR → LF) and the states that produce the bytes: data,
//! RCDATA, RAWTEXT, script data, PLAINTEXT, CDATA section, the attribute
//! value states, and the tag and attribute name states.

use std::borrow::Cow;

use super::ErrorFn;
use super::charref::{Replacement, ReturnState, character_reference, report};
use crate::{ParseErrorCode, Rel, TextMode};

/// Decodes a tag or attribute name: ASCII-lowercased, U+0000 → U+FFFD
/// (`unexpected-null-character`), other bytes as UTF-8 (lossy).
///
/// Spec: the [tag name state](https://html.spec.whatwg.org/multipage/parsing.html#tag-name-state)
/// and the [attribute name state](https://html.spec.whatwg.org/multipage/parsing.html#attribute-name-state).
/// Errors are reported at the NUL byte.
///
/// # Complexity
/// O(`raw.len()`); borrows `raw` when it has no ASCII upper case letter, no
/// NUL and is valid UTF-8.
pub(crate) fn name<'a>(raw: &'a [u8], err: Option<ErrorFn<'_>>) -> Cow<'a, str> {
    let mut err = err;
    if err.is_some() {
        for i in memchr::memchr_iter(0, raw) {
            // spec: "U+0000 NULL: This is an unexpected-null-character parse error."
            report(&mut err, ParseErrorCode::UnexpectedNullCharacter, Rel::new(i, i + 1));
        }
    }
    if !raw.iter().any(|&b| b == 0 || b.is_ascii_uppercase()) {
        return utf8_lossy(raw);
    }
    utf8_lossy(raw)
        .chars()
        .map(|c| match c {
            // spec: "ASCII upper alpha: Append the lowercase version of the current input
            // character (add 0x0020 to the character's code point)."
            'A'..='Z' => c.to_ascii_lowercase(),
            // spec: "U+0000 NULL: ... Append a U+FFFD REPLACEMENT CHARACTER character."
            '\0' => '\u{FFFD}',
            _ => c,
        })
        .collect::<String>()
        .into()
}

/// Decodes an attribute value (raw bytes between the quotes, or the unquoted
/// value): character references by the attribute rules, CR/CRLF → LF,
/// U+0000 → U+FFFD.
///
/// Spec: the attribute value (double-quoted), (single-quoted) and (unquoted)
/// states, e.g. the
/// [attribute value (double-quoted) state](https://html.spec.whatwg.org/multipage/parsing.html#attribute-value-(double-quoted)-state),
/// with the character reference states for an attribute return state.
/// Errors: `unexpected-null-character` at the NUL byte, and the character
/// reference errors (see [`character_reference`]). Errors about the quoting
/// itself belong to the tag.
///
/// # Complexity
/// O(`raw.len()`); borrows `raw` when nothing changes and it is valid UTF-8.
pub(crate) fn attribute_value<'a>(raw: &'a [u8], err: Option<ErrorFn<'_>>) -> Cow<'a, str> {
    let rules =
        Rules { references: Some(ReturnState::AttributeValue), null: Null::Replaced, less_than: false, eof: false };
    decode(raw, rules, err, None)
}

/// Decodes a text token's raw bytes for its mode.
///
/// - [`TextMode::Data`]: character references (text rules); U+0000 kept,
///   `unexpected-null-character`. A `<` in a text token does not start a tag:
///   followed by a byte other than an ASCII alpha, `!`, `/` or `?` it is an
///   `invalid-first-character-of-tag-name` (span: the `<`); as
///   the token's last byte, or `</` as its last two bytes, an
///   `eof-before-tag-name` (span: those bytes).
/// - [`TextMode::Rcdata`]: character references; U+0000 → U+FFFD with
///   `unexpected-null-character`.
/// - [`TextMode::Rawtext`], [`TextMode::ScriptData`], [`TextMode::Plaintext`]:
///   no references; U+0000 → U+FFFD with `unexpected-null-character`.
/// - [`TextMode::CdataSection`]: no references; U+0000 kept, no error.
///
/// In every mode CR LF and lone CR become LF, and bytes are read as UTF-8
/// (lossy). `eof` says whether the end of input ended the token: a `<` as
/// the last byte is `eof-before-tag-name` then, and otherwise (the scanner
/// emits such a token only when the next token starts right after it, as in
/// `<<a>`) `invalid-first-character-of-tag-name`.
///
/// A decoded copy is made in `spare`'s buffer when given (taken from it:
/// the caller gives it back from the `Cow::Owned` when done), so a caller
/// that decodes text after text allocates once.
///
/// # Complexity
/// O(`raw.len()`); borrows `raw` when nothing changes and it is valid UTF-8.
pub(crate) fn text<'a>(
    raw: &'a [u8],
    mode: TextMode,
    eof: bool,
    err: Option<ErrorFn<'_>>,
    spare: Option<&mut String>,
) -> Cow<'a, str> {
    decode(raw, text_rules(mode, eof), err, spare)
}

/// [`text`] without errors for text whose bytes are known to be valid
/// UTF-8: `valid` is them. The same result (proven by the test
/// `valid_text_decodes_as_bytes`), without checking the UTF-8 again: plain
/// text (no byte a rule may stop at) borrows `valid` as it is.
///
/// # Complexity
/// O(`valid.len()`).
#[inline]
pub(crate) fn text_valid<'a>(valid: &'a str, mode: TextMode, eof: bool, spare: Option<&mut String>) -> Cow<'a, str> {
    let raw = valid.as_bytes();
    if raw.len() <= PLAIN_LONGEST && !has_stop_byte(raw) {
        return Cow::Borrowed(valid);
    }
    decode_loop(raw, text_rules(mode, eof), None, spare, Some(valid))
}

/// The decoding rules of text read in `mode` (see [`text`]).
fn text_rules(mode: TextMode, eof: bool) -> Rules {
    match mode {
        TextMode::Data => {
            Rules { references: Some(ReturnState::Text), null: Null::KeptWithError, less_than: true, eof }
        }
        TextMode::Rcdata => Rules { references: Some(ReturnState::Text), null: Null::Replaced, less_than: false, eof },
        TextMode::Rawtext | TextMode::ScriptData | TextMode::Plaintext => {
            Rules { references: None, null: Null::Replaced, less_than: false, eof }
        }
        TextMode::CdataSection => Rules { references: None, null: Null::Kept, less_than: false, eof },
    }
}

/// How a state treats U+0000.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Null {
    /// Kept, no error (CDATA section).
    Kept,
    /// Kept, `unexpected-null-character` (data state).
    KeptWithError,
    /// U+FFFD, `unexpected-null-character`.
    Replaced,
}

/// What a state does with the bytes that may need work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Rules {
    /// Whether `&` starts a character reference, and with which return state.
    references: Option<ReturnState>,
    /// What U+0000 becomes.
    null: Null,
    /// Whether a `<` in the text is checked for tag open state errors (data state).
    less_than: bool,
    /// Whether the end of input ended the token.
    eof: bool,
}

/// The shared decoding loop, after the common case: a short value that is
/// all ASCII without a byte any rule stops at is itself ([`plain`]; the
/// loop would find no needle and borrow it the same way — proven by the
/// tests `plain_values_decode_as_themselves` and `plain_rejects_every_needle`).
#[inline]
fn decode<'a>(raw: &'a [u8], rules: Rules, err: Option<ErrorFn<'_>>, spare: Option<&mut String>) -> Cow<'a, str> {
    if raw.len() <= PLAIN_LONGEST && plain(raw) {
        return utf8_lossy(raw);
    }
    decode_loop(raw, rules, err, spare, None)
}

/// The longest value [`plain`] is tried on: past it `memchr` finds the
/// needles faster than a word-at-a-time check (most text tokens and
/// attribute values are shorter).
const PLAIN_LONGEST: usize = 64;

/// Whether `raw` is all ASCII and holds none of the bytes a decoding rule
/// may stop at (`&`, CR, NUL, `<`), read eight bytes at a time.
fn plain(raw: &[u8]) -> bool {
    !stops(raw, true)
}

/// Whether `raw` holds a byte a decoding rule may stop at (`&`, CR, NUL,
/// `<`); other bytes, ASCII or not, pass.
fn has_stop_byte(raw: &[u8]) -> bool {
    stops(raw, false)
}

/// Whether `raw` holds a byte a decoding rule may stop at, or (with
/// `non_ascii`) a byte of 0x80 or above; eight bytes at a time, the last
/// (fewer than eight) bytes of a value of eight or more as the word of its
/// last eight (a byte read twice changes no answer).
#[inline(always)]
fn stops(raw: &[u8], non_ascii: bool) -> bool {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    // The high bit of each byte of `w` that equals `b` is set in the
    // result, and maybe of bytes above one that does (the borrow of
    // `v - LO` from a zero byte): exact as to whether there is one.
    let eq = |w: u64, b: u8| {
        let v = w ^ (LO * u64::from(b));
        v.wrapping_sub(LO) & !v
    };
    let high = if non_ascii { HI } else { 0 };
    // Without short-circuits: one test a word.
    let word = |c: &[u8]| {
        let w = u64::from_le_bytes(c.try_into().expect("eight bytes"));
        (w & high) | ((eq(w, b'&') | eq(w, b'\r') | eq(w, 0) | eq(w, b'<')) & HI) != 0
    };
    if raw.len() < 8 {
        return raw.iter().any(|&b| (non_ascii && !b.is_ascii()) || matches!(b, b'&' | b'\r' | 0 | b'<'));
    }
    let mut words = raw.chunks_exact(8);
    if words.any(word) {
        return true;
    }
    !words.remainder().is_empty() && word(&raw[raw.len() - 8..])
}

/// [`decode`] without its common case: every byte the rules stop at is
/// found with `memchr`. `valid` is `raw` as `str` when the caller knows it
/// is valid UTF-8: what nothing changed is then borrowed unchecked.
fn decode_loop<'a>(
    raw: &'a [u8],
    rules: Rules,
    err: Option<ErrorFn<'_>>,
    spare: Option<&mut String>,
    valid: Option<&'a str>,
) -> Cow<'a, str> {
    let mut err = err;
    let mut spare = spare;
    // The bytes to stop at. Those that only cause errors are skipped when
    // nobody listens.
    let mut needles = Needles::default();
    needles.push(b'\r');
    if rules.references.is_some() {
        needles.push(b'&');
    }
    if rules.null == Null::Replaced || (rules.null == Null::KeptWithError && err.is_some()) {
        needles.push(0);
    }
    if rules.less_than && err.is_some() {
        needles.push(b'<');
    }
    let mut finder = Finder::new(needles);

    let mut out: Option<String> = None;
    // Bytes before `copied` are in `out` (when `out` exists).
    let mut copied = 0;
    let mut pos = 0;
    while let Some(i) = finder.find(raw, pos) {
        match raw[i] {
            b'\r' => {
                // spec (preprocessing the input stream): normalize newlines: CR LF → LF,
                // then lone CR → LF.
                let end = if raw.get(i + 1) == Some(&b'\n') { i + 2 } else { i + 1 };
                let s = owned(&mut out, &mut spare, raw, copied, i);
                s.push('\n');
                copied = end;
                pos = end;
            }
            0 => {
                if rules.null != Null::Kept {
                    report(&mut err, ParseErrorCode::UnexpectedNullCharacter, Rel::new(i, i + 1));
                }
                if rules.null == Null::Replaced {
                    let s = owned(&mut out, &mut spare, raw, copied, i);
                    s.push('\u{FFFD}');
                    copied = i + 1;
                }
                pos = i + 1;
            }
            b'<' => {
                tag_open_errors(raw, i, rules.eof, &mut err);
                pos = i + 1;
            }
            b'&' => {
                let Some(return_state) = rules.references else {
                    unreachable!("`&` is a needle only where references are decoded")
                };
                let r = character_reference(raw, i, return_state, &mut err);
                let end = i + r.len;
                match r.replacement {
                    Replacement::AsWritten => {}
                    Replacement::Named(value) => {
                        let s = owned(&mut out, &mut spare, raw, copied, i);
                        s.push_str(value);
                        copied = end;
                    }
                    Replacement::Numeric(c) => {
                        let s = owned(&mut out, &mut spare, raw, copied, i);
                        s.push(c);
                        copied = end;
                    }
                }
                pos = end;
            }
            _ => unreachable!("the finder stops only at needles"),
        }
    }
    match out {
        None => valid.map_or_else(|| utf8_lossy(raw), Cow::Borrowed),
        Some(mut s) => {
            s.push_str(&utf8_lossy(&raw[copied..]));
            Cow::Owned(s)
        }
    }
}

/// `bytes` as UTF-8, invalid sequences replaced by U+FFFD: the same as
/// `String::from_utf8_lossy`, but valid input (nearly all of it) is checked
/// by `str::from_utf8`, which reads ASCII a word at a time where the lossy
/// iterator goes byte by byte (`Utf8Chunks` was 5.7 M of 165 M instructions
/// of the text-handler workload on the three lol-html bench pages).
fn utf8_lossy(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// The output string, created on first need (in `spare`'s buffer when
/// given), with `raw[copied..upto]` appended (lossy UTF-8; `upto` is at an
/// ASCII byte, so no sequence is cut).
fn owned<'s>(
    out: &'s mut Option<String>,
    spare: &mut Option<&mut String>,
    raw: &[u8],
    copied: usize,
    upto: usize,
) -> &'s mut String {
    let s = out.get_or_insert_with(|| match spare.take() {
        Some(buf) => {
            let mut s = std::mem::take(buf);
            s.clear();
            s.reserve(raw.len());
            s
        }
        None => String::with_capacity(raw.len()),
    });
    s.push_str(&utf8_lossy(&raw[copied..upto]));
    s
}

/// Errors of the [tag open state](https://html.spec.whatwg.org/multipage/parsing.html#tag-open-state)
/// and [end tag open state](https://html.spec.whatwg.org/multipage/parsing.html#end-tag-open-state)
/// for a `<` at `raw[i]` that the scanner left in a data-state text token.
fn tag_open_errors(raw: &[u8], i: usize, eof: bool, err: &mut Option<ErrorFn<'_>>) {
    match raw.get(i + 1) {
        // spec (tag open state): "EOF: This is an eof-before-tag-name parse error."
        None if eof => report(err, ParseErrorCode::EofBeforeTagName, Rel::new(i, i + 1)),
        // The next token starts right after this `<` (`<<a>`): the `<` it starts with is
        // "anything else" for this one.
        None => report(err, ParseErrorCode::InvalidFirstCharacterOfTagName, Rel::new(i, i + 1)),
        // spec (end tag open state): "EOF: This is an eof-before-tag-name parse error."
        Some(b'/') if i + 2 == raw.len() => report(err, ParseErrorCode::EofBeforeTagName, Rel::new(i, i + 2)),
        // These start markup, an end tag, a tag or a processing instruction; the scanner does
        // not leave them in text.
        Some(b'!' | b'/' | b'?') => {}
        Some(b) if b.is_ascii_alphabetic() => {}
        // spec (tag open state): "Anything else: This is an invalid-first-character-of-tag-name
        // parse error. Emit a U+003C LESS-THAN SIGN character token. Reconsume in the data state."
        // The span is the `<` alone: the next byte may lie in the next token.
        Some(_) => report(err, ParseErrorCode::InvalidFirstCharacterOfTagName, Rel::new(i, i + 1)),
    }
}

/// Up to four bytes to look for.
#[derive(Debug, Clone, Copy, Default)]
struct Needles {
    bytes: [u8; 4],
    len: usize,
}

impl Needles {
    fn push(&mut self, b: u8) {
        self.bytes[self.len] = b;
        self.len += 1;
    }
}

/// Finds the next needle with `memchr`: the first three needles with one
/// search, the fourth with another. Each search remembers its last hit and
/// searches again only once the position has passed it, so a whole decode
/// reads every byte at most once per search.
#[derive(Debug)]
struct Finder {
    needles: Needles,
    /// Next hit of the first three needles at or after the last position
    /// searched from (`usize::MAX`: none).
    main: usize,
    /// Same for the fourth needle.
    extra: usize,
    /// Whether `main` / `extra` were ever computed.
    started: bool,
}

impl Finder {
    const NONE: usize = usize::MAX;

    fn new(needles: Needles) -> Finder {
        Finder { needles, main: 0, extra: 0, started: false }
    }

    /// The first needle in `raw[from..]`.
    fn find(&mut self, raw: &[u8], from: usize) -> Option<usize> {
        let n = &self.needles.bytes;
        if !self.started || self.main < from {
            let hay = raw.get(from..).unwrap_or_default();
            let hit = match self.needles.len {
                0 => None,
                1 => memchr::memchr(n[0], hay),
                2 => memchr::memchr2(n[0], n[1], hay),
                _ => memchr::memchr3(n[0], n[1], n[2], hay),
            };
            htrewrite_work::tick(1 + hit.unwrap_or(hay.len()));
            self.main = hit.map_or(Self::NONE, |i| from + i);
        }
        if self.needles.len < 4 {
            self.extra = Self::NONE;
        } else if !self.started || self.extra < from {
            let hay = raw.get(from..).unwrap_or_default();
            let hit = memchr::memchr(n[3], hay);
            htrewrite_work::tick(1 + hit.unwrap_or(hay.len()));
            self.extra = hit.map_or(Self::NONE, |i| from + i);
        }
        self.started = true;
        let next = self.main.min(self.extra);
        (next != Self::NONE).then_some(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ParseErrorCode::*;

    /// Every rule set the decoders use, with and without an error listener.
    fn all_rules() -> Vec<Rules> {
        let mut out = Vec::new();
        for eof in [false, true] {
            for references in [None, Some(ReturnState::Text), Some(ReturnState::AttributeValue)] {
                for null in [Null::Kept, Null::KeptWithError, Null::Replaced] {
                    for less_than in [false, true] {
                        out.push(Rules { references, null, less_than, eof });
                    }
                }
            }
        }
        out
    }

    /// The common case of `decode` gives what the loop gives, with the
    /// same errors (none), on values made of plain bytes and of the bytes
    /// that need work, up to past `PLAIN_LONGEST`.
    #[test]
    fn plain_values_decode_as_themselves() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, TestRunner};
        // Pieces: plain bytes (most of them, so that many values are plain
        // and long), and the bytes and references that need work.
        let mut pieces: Vec<&[u8]> = vec![b"a"; 24];
        pieces.extend([&b" "[..], b"\n", b"\t", b";", b"#", b"x", b"1", b">"]);
        pieces.extend([
            &b"&"[..],
            b"&amp;",
            b"&lt",
            b"&#65;",
            b"&#x41;",
            b"&notin",
            b"\r",
            b"\r\n",
            b"\0",
            b"<",
            b"</",
        ]);
        pieces.extend([&b"\xC3\xA9"[..], b"\xC3", b"\xFF"]);
        let mut runner = TestRunner::new(Config { cases: 3000, ..Config::default() });
        let strategy = proptest::collection::vec(proptest::sample::select(pieces), 0..(PLAIN_LONGEST + 20));
        runner
            .run(&strategy, |pieces| {
                let raw = pieces.concat();
                for rules in all_rules() {
                    let (mut fast_errors, mut loop_errors) = (Vec::new(), Vec::new());
                    let fast = decode(&raw, rules, Some(&mut |e, r| fast_errors.push((e, r))), None);
                    let slow = decode_loop(&raw, rules, Some(&mut |e, r| loop_errors.push((e, r))), None, None);
                    prop_assert_eq!(&fast, &slow);
                    prop_assert_eq!(matches!(fast, Cow::Borrowed(_)), matches!(slow, Cow::Borrowed(_)));
                    prop_assert_eq!(fast_errors, loop_errors);
                }
                Ok(())
            })
            .expect("the common case agrees with the loop");
    }

    /// `plain` refuses a value with any needle or non-ASCII byte, at every
    /// position of values of every length up to 24 (the words and the tail).
    #[test]
    fn plain_rejects_every_needle() {
        for len in 1..=24 {
            for at in 0..len {
                for b in [b'&', b'\r', 0, b'<', 0x80, 0xC3, 0xFF] {
                    let mut raw = vec![b'a'; len];
                    raw[at] = b;
                    assert!(!plain(&raw), "{raw:?}");
                }
            }
            assert!(plain(&vec![b'a'; len]));
        }
    }

    /// `has_stop_byte` finds each byte a rule may stop at, at every position
    /// of values of every length up to 24, among bytes of every value
    /// (non-ASCII ones pass).
    #[test]
    fn has_stop_byte_finds_every_needle() {
        for len in 1..=24 {
            for at in 0..len {
                for fill in [b'a', 0x80, 0xC3, 0xFF, 0x01, 0x7F] {
                    let mut raw = vec![fill; len];
                    assert!(!has_stop_byte(&raw), "{raw:?}");
                    for b in [b'&', b'\r', 0, b'<'] {
                        raw[at] = b;
                        assert!(has_stop_byte(&raw), "{raw:?}");
                    }
                }
            }
        }
    }

    /// Text known to be valid UTF-8 decodes as its bytes do, in every mode,
    /// at the end of input or not, borrowed exactly when they are, on text
    /// made of plain ASCII, characters of two to four bytes and the bytes
    /// and references that need work, up to past `PLAIN_LONGEST`.
    #[test]
    fn valid_text_decodes_as_bytes() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, TestRunner};
        let mut pieces: Vec<&str> = vec!["a"; 24];
        pieces.extend([" ", "\n", ";", "#", "x", "1", ">", "é", "€", "😀", "\u{FFFD}"]);
        pieces.extend(["&", "&amp;", "&lt", "&#65;", "&#x41;", "&notin", "&#0;", "\r", "\r\n", "\0", "<", "</"]);
        let mut runner = TestRunner::new(Config { cases: 3000, ..Config::default() });
        let strategy = proptest::collection::vec(proptest::sample::select(pieces), 0..(PLAIN_LONGEST + 20));
        let modes = [
            TextMode::Data,
            TextMode::Rcdata,
            TextMode::Rawtext,
            TextMode::ScriptData,
            TextMode::Plaintext,
            TextMode::CdataSection,
        ];
        runner
            .run(&strategy, |pieces| {
                let valid = pieces.concat();
                for mode in modes {
                    for eof in [false, true] {
                        let from_str = text_valid(&valid, mode, eof, None);
                        let from_bytes = text(valid.as_bytes(), mode, eof, None, None);
                        prop_assert_eq!(&from_str, &from_bytes);
                        prop_assert_eq!(matches!(from_str, Cow::Borrowed(_)), matches!(from_bytes, Cow::Borrowed(_)));
                    }
                }
                Ok(())
            })
            .expect("valid text decodes as its bytes");
    }

    /// Which decoder a case runs.
    #[derive(Debug, Clone, Copy)]
    enum Decoder {
        Name,
        Attribute,
        Text(TextMode),
    }

    use Decoder::{Attribute as Attr, Name};
    const DATA: Decoder = Decoder::Text(TextMode::Data);
    const RCDATA: Decoder = Decoder::Text(TextMode::Rcdata);
    const RAWTEXT: Decoder = Decoder::Text(TextMode::Rawtext);
    const SCRIPT: Decoder = Decoder::Text(TextMode::ScriptData);
    const PLAINTEXT: Decoder = Decoder::Text(TextMode::Plaintext);
    const CDATA: Decoder = Decoder::Text(TextMode::CdataSection);

    /// One case: name, decoder, raw bytes, decoded value, whether the value
    /// borrows the input, errors with spans.
    type Case = (&'static str, Decoder, &'static [u8], &'static str, bool, &'static [(ParseErrorCode, usize, usize)]);

    #[rustfmt::skip]
    const CASES: &[Case] = &[
        // Fast path.
        ("plain_text_borrows", DATA, b"Hello, world", "Hello, world", true, &[]),
        ("utf8_text_borrows", DATA, "caf\u{E9} \u{1F600}".as_bytes(), "caf\u{E9} \u{1F600}", true, &[]),
        ("empty", DATA, b"", "", true, &[]),
        ("lone_ampersand_borrows", DATA, b"a & b", "a & b", true, &[]),
        ("unknown_reference_borrows", DATA, b"&xyz;", "&xyz;", true, &[(UnknownNamedCharacterReference, 0, 5)]),
        // Named references in text.
        ("amp", DATA, b"x &amp; y", "x & y", false, &[]),
        ("amp_at_end", DATA, b"x &amp", "x &", false, &[(MissingSemicolonAfterCharacterReference, 2, 6)]),
        ("notit_text", DATA, b"&notit;", "\u{AC}it;", false, &[(MissingSemicolonAfterCharacterReference, 0, 4)]),
        ("notin_text", DATA, b"&notin;", "\u{2209}", false, &[]),
        ("not_text", DATA, b"&not", "\u{AC}", false, &[(MissingSemicolonAfterCharacterReference, 0, 4)]),
        ("copy_equals_text", DATA, b"&copy=", "\u{A9}=", false, &[(MissingSemicolonAfterCharacterReference, 0, 5)]),
        ("copyx_text", DATA, b"&copyx", "\u{A9}x", false, &[(MissingSemicolonAfterCharacterReference, 0, 5)]),
        ("copy_semicolon_x_text", DATA, b"&copy;x", "\u{A9}x", false, &[]),
        ("two_code_points", DATA, b"&NotNestedGreaterGreater;", "\u{2AA2}\u{338}", false, &[]),
        ("semicolon_only", DATA, b"&;", "&;", true, &[]),
        ("unknown_named", DATA, b"a&xyz;b", "a&xyz;b", true, &[(UnknownNamedCharacterReference, 1, 6)]),
        ("adjacent_references", DATA, b"&lt;&gt;&amp;&&quot;", "<>&&\"", false, &[]),
        // Numeric references.
        ("numeric_no_digits", DATA, b"&#;", "&#;", true, &[(AbsenceOfDigitsInNumericCharacterReference, 0, 2)]),
        ("numeric_hex_no_digits", DATA, b"&#x;", "&#x;", true, &[(AbsenceOfDigitsInNumericCharacterReference, 0, 3)]),
        ("zero_padded", DATA, b"&#x0000000000041;", "A", false, &[]),
        ("outside_unicode", DATA, b"&#x110000;", "\u{FFFD}", false, &[(CharacterReferenceOutsideUnicodeRange, 0, 10)]),
        ("null_reference", DATA, b"&#0;", "\u{FFFD}", false, &[(NullCharacterReference, 0, 4)]),
        ("surrogate_reference", DATA, b"&#xD800;", "\u{FFFD}", false, &[(SurrogateCharacterReference, 0, 8)]),
        ("c1_reference", DATA, b"&#128;", "\u{20AC}", false, &[(ControlCharacterReference, 0, 6)]),
        ("c1_9f_reference", DATA, b"&#x9F;", "\u{178}", false, &[(ControlCharacterReference, 0, 6)]),
        ("cr_reference_not_normalized", DATA, b"&#13;\r", "\r\n", false, &[(ControlCharacterReference, 0, 5)]),
        ("max_reference", DATA, b"&#1114111;", "\u{10FFFF}", false, &[(NoncharacterCharacterReference, 0, 10)]),
        // Attribute values.
        ("attr_borrows", Attr, b"a b c", "a b c", true, &[]),
        ("attr_amp", Attr, b"a&amp;b", "a&b", false, &[]),
        ("notit_attribute", Attr, b"&notit;", "&notit;", true, &[]),
        ("copy_equals_attribute", Attr, b"&copy=", "&copy=", true, &[]),
        ("copyx_attribute", Attr, b"&copyx", "&copyx", true, &[]),
        ("copy_semicolon_x_attribute", Attr, b"&copy;x", "\u{A9}x", false, &[]),
        ("copy_end_attribute", Attr, b"&copy", "\u{A9}", false, &[(MissingSemicolonAfterCharacterReference, 0, 5)]),
        ("copy_space_attribute", Attr, b"&copy x", "\u{A9} x", false, &[(MissingSemicolonAfterCharacterReference, 0, 5)]),
        ("query_string_attribute", Attr, b"?a=1&lang=en&not=2", "?a=1&lang=en&not=2", true, &[]),
        ("numeric_attribute", Attr, b"&#65=", "A=", false, &[(MissingSemicolonAfterCharacterReference, 0, 4)]),
        ("attr_null", Attr, b"a\0b", "a\u{FFFD}b", false, &[(UnexpectedNullCharacter, 1, 2)]),
        ("attr_crlf", Attr, b"a\r\nb\rc", "a\nb\nc", false, &[]),
        ("attr_less_than_no_error", Attr, b"a<b", "a<b", true, &[]),
        // Newlines.
        ("crlf", DATA, b"a\r\nb", "a\nb", false, &[]),
        ("lone_cr", DATA, b"a\rb", "a\nb", false, &[]),
        ("cr_cr_lf", DATA, b"\r\r\n", "\n\n", false, &[]),
        ("lf_cr", DATA, b"\n\r", "\n\n", false, &[]),
        ("cr_at_end", DATA, b"x\r", "x\n", false, &[]),
        ("lf_borrows", DATA, b"a\nb", "a\nb", true, &[]),
        ("crlf_rawtext", RAWTEXT, b"a\r\nb", "a\nb", false, &[]),
        ("crlf_cdata", CDATA, b"a\r\r\nb", "a\n\nb", false, &[]),
        // U+0000 per mode.
        ("null_data", DATA, b"a\0b", "a\0b", true, &[(UnexpectedNullCharacter, 1, 2)]),
        ("null_rcdata", RCDATA, b"a\0b", "a\u{FFFD}b", false, &[(UnexpectedNullCharacter, 1, 2)]),
        ("null_rawtext", RAWTEXT, b"a\0b", "a\u{FFFD}b", false, &[(UnexpectedNullCharacter, 1, 2)]),
        ("null_script", SCRIPT, b"a\0b", "a\u{FFFD}b", false, &[(UnexpectedNullCharacter, 1, 2)]),
        ("null_plaintext", PLAINTEXT, b"a\0b", "a\u{FFFD}b", false, &[(UnexpectedNullCharacter, 1, 2)]),
        ("null_cdata", CDATA, b"a\0b", "a\0b", true, &[]),
        ("null_name", Name, b"a\0B", "a\u{FFFD}b", false, &[(UnexpectedNullCharacter, 1, 2)]),
        // References per mode.
        ("reference_rcdata", RCDATA, b"&lt;b&gt", "<b>", false, &[(MissingSemicolonAfterCharacterReference, 5, 8)]),
        ("reference_rawtext", RAWTEXT, b"&lt;", "&lt;", true, &[]),
        ("reference_script", SCRIPT, b"&lt;", "&lt;", true, &[]),
        ("reference_plaintext", PLAINTEXT, b"&lt;", "&lt;", true, &[]),
        ("reference_cdata", CDATA, b"&lt;", "&lt;", true, &[]),
        // `<` in data text.
        ("less_than_space", DATA, b"a < b", "a < b", true, &[(InvalidFirstCharacterOfTagName, 2, 3)]),
        ("less_than_digit", DATA, b"1<2", "1<2", true, &[(InvalidFirstCharacterOfTagName, 1, 2)]),
        ("less_than_less_than", DATA, b"<<", "<<", true, &[(InvalidFirstCharacterOfTagName, 0, 1), (EofBeforeTagName, 1, 2)]),
        ("less_than_at_end", DATA, b"a<", "a<", true, &[(EofBeforeTagName, 1, 2)]),
        ("less_than_solidus_at_end", DATA, b"a</", "a</", true, &[(EofBeforeTagName, 1, 3)]),
        ("less_than_null", DATA, b"<\0", "<\0", true, &[(InvalidFirstCharacterOfTagName, 0, 1), (UnexpectedNullCharacter, 1, 2)]),
        ("less_than_reference", DATA, b"<&amp;", "<&", false, &[(InvalidFirstCharacterOfTagName, 0, 1)]),
        ("less_than_cr", DATA, b"<\r\n", "<\n", false, &[(InvalidFirstCharacterOfTagName, 0, 1)]),
        ("less_than_rcdata", RCDATA, b"a < b<", "a < b<", true, &[]),
        ("less_than_script", SCRIPT, b"a < b</", "a < b</", true, &[]),
        // Lossy UTF-8.
        ("invalid_byte", DATA, b"a\xFFb", "a\u{FFFD}b", false, &[]),
        ("truncated_sequence", DATA, b"a\xE2\x82", "a\u{FFFD}", false, &[]),
        ("invalid_then_reference", DATA, b"\xE2&amp;\xC3\xA9", "\u{FFFD}&\u{E9}", false, &[]),
        ("invalid_then_crlf", RAWTEXT, b"\xC3\r\n\xA9", "\u{FFFD}\n\u{FFFD}", false, &[]),
        ("surrogate_bytes", DATA, b"\xED\xA0\x80", "\u{FFFD}\u{FFFD}\u{FFFD}", false, &[]),
        // Names.
        ("name_lowercase_borrows", Name, b"div", "div", true, &[]),
        ("name_uppercase", Name, b"DiV", "div", false, &[]),
        ("name_non_ascii_kept", Name, "\u{C9}l\u{E9}ment".as_bytes(), "\u{C9}l\u{E9}ment", true, &[]),
        ("name_invalid_utf8", Name, b"A\xFF", "a\u{FFFD}", false, &[]),
        ("name_no_references", Name, b"A&amp;", "a&amp;", false, &[]),
    ];

    fn run(decoder: Decoder, raw: &[u8], with_errors: bool) -> (Cow<'_, str>, Vec<(ParseErrorCode, usize, usize)>) {
        let mut errors = Vec::new();
        let mut f = |code: ParseErrorCode, rel: Rel| errors.push((code, rel.start, rel.end));
        let err: Option<ErrorFn<'_>> = if with_errors { Some(&mut f) } else { None };
        let value = match decoder {
            Decoder::Name => name(raw, err),
            Decoder::Attribute => attribute_value(raw, err),
            Decoder::Text(mode) => text(raw, mode, true, err, None),
        };
        (value, errors)
    }

    #[test]
    fn cases() {
        let mut failures = Vec::new();
        for &(case, decoder, raw, want, borrowed, want_errors) in CASES {
            let (got, errors) = run(decoder, raw, true);
            if got != want || matches!(got, Cow::Borrowed(_)) != borrowed || errors != want_errors {
                failures.push(format!(
                    "{case}: got {got:?} (borrowed: {}) {errors:?}, want {want:?} (borrowed: {borrowed}) {want_errors:?}",
                    matches!(got, Cow::Borrowed(_))
                ));
            }
            let (quiet, none) = run(decoder, raw, false);
            assert_eq!(quiet, got, "{case}: same value without an error receiver");
            assert!(none.is_empty());
            let (slow, slow_errors) = reference(decoder, raw);
            if slow != got || slow_errors != errors {
                failures.push(format!("{case}: slow reference gives {slow:?} {slow_errors:?}"));
            }
        }
        assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    }

    /// Many needles of both searches (the three `memchr3` needles and the
    /// fourth, searched apart), far apart from the others, then a long
    /// numeric reference: the bytes the searches scan and the digits read
    /// are counted (`htrewrite_work`) at n and 4n, not timed.
    #[test]
    fn long_inputs_are_linear() {
        let input = |n: usize| {
            let mut raw = vec![b'a'; n];
            raw.extend(std::iter::repeat_n(b"\0<".as_slice(), n).flatten());
            raw.push(b'&');
            raw.extend(std::iter::repeat_n(b'1', 5 * n));
            raw
        };
        let mut work = Vec::new();
        for n in [50_000, 200_000] {
            let raw = input(n);
            let before = htrewrite_work::counted();
            let (value, errors) = run(DATA, &raw, true);
            work.push(htrewrite_work::counted() - before);
            assert_eq!(value.len(), raw.len());
            assert_eq!(errors.len(), 2 * n);
        }
        assert!(work[0] >= 50_000, "the searches are not counted: {work:?}");
        assert!(work[1] as f64 <= 4.2 * work[0] as f64, "not linear: work {work:?} at n and 4n");
    }

    /// The slow, obvious decoder: one byte at a time, no `memchr`, no fast
    /// path; the output is built as bytes and read as UTF-8 (lossy) at the end.
    fn reference(decoder: Decoder, raw: &[u8]) -> (String, Vec<(ParseErrorCode, usize, usize)>) {
        let mut errors = Vec::new();
        let mut out: Vec<u8> = Vec::new();
        let (references, null_error, null_replaced, less_than, lowercase) = match decoder {
            Decoder::Name => (None, true, true, false, true),
            Decoder::Attribute => (Some(ReturnState::AttributeValue), true, true, false, false),
            Decoder::Text(TextMode::Data) => (Some(ReturnState::Text), true, false, true, false),
            Decoder::Text(TextMode::Rcdata) => (Some(ReturnState::Text), true, true, false, false),
            Decoder::Text(TextMode::CdataSection) => (None, false, false, false, false),
            Decoder::Text(_) => (None, true, true, false, false),
        };
        let mut i = 0;
        while i < raw.len() {
            let b = raw[i];
            if b == b'\r' && !lowercase {
                out.push(b'\n');
                i += if raw.get(i + 1) == Some(&b'\n') { 2 } else { 1 };
            } else if b == 0 {
                if null_error {
                    errors.push((UnexpectedNullCharacter, i, i + 1));
                }
                out.extend_from_slice(if null_replaced { "\u{FFFD}".as_bytes() } else { b"\0" });
                i += 1;
            } else if let (b'&', Some(return_state)) = (b, references) {
                let mut f = |code: ParseErrorCode, rel: Rel| errors.push((code, rel.start, rel.end));
                let r = character_reference(raw, i, return_state, &mut Some(&mut f));
                match r.replacement {
                    Replacement::AsWritten => out.extend_from_slice(&raw[i..i + r.len]),
                    Replacement::Named(s) => out.extend_from_slice(s.as_bytes()),
                    Replacement::Numeric(c) => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
                }
                i += r.len;
            } else if b == b'<' && less_than {
                let next = raw.get(i + 1).copied();
                if next.is_none() {
                    errors.push((EofBeforeTagName, i, i + 1));
                } else if next == Some(b'/') && i + 2 == raw.len() {
                    errors.push((EofBeforeTagName, i, i + 2));
                } else if !next.is_some_and(|n| n.is_ascii_alphabetic() || n == b'!' || n == b'/' || n == b'?') {
                    errors.push((InvalidFirstCharacterOfTagName, i, i + 1));
                }
                out.push(b);
                i += 1;
            } else {
                out.push(if lowercase { b.to_ascii_lowercase() } else { b });
                i += 1;
            }
        }
        (String::from_utf8_lossy(&out).into_owned(), errors)
    }

    proptest::proptest! {
        #[test]
        fn fast_equals_reference(
            raw in proptest::collection::vec(proptest::sample::select(ALPHABET.to_vec()), 0..40),
            decoder in proptest::sample::select(vec![Name, Attr, DATA, RCDATA, RAWTEXT, SCRIPT, PLAINTEXT, CDATA]),
        ) {
            let (got, errors) = run(decoder, &raw, true);
            let (want, want_errors) = reference(decoder, &raw);
            proptest::prop_assert_eq!(&*got, &*want);
            proptest::prop_assert_eq!(errors, want_errors);
            if let Cow::Borrowed(s) = got {
                proptest::prop_assert_eq!(s.as_bytes(), &raw[..]);
            }
        }
    }

    /// Bytes that exercise every branch: needles, reference syntax, names,
    /// UTF-8 lead and continuation bytes.
    const ALPHABET: &[u8] = b"&&&;;##xX\r\r\n\n\0<</!?=  aAnotiNOTmpcy0129Ff\x80\xA0\xBF\xC3\xE2\xED\xF0\xFF";

    // ---- html5lib-tests cross-check ------------------------------------------------------

    /// The three html5lib tokenizer files about character references, as
    /// vendored in `tests/data/html5lib-tests/tokenizer/`.
    const NAMED_ENTITIES: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/html5lib-tests/tokenizer/namedEntities.test"
    ));
    const NUMERIC_ENTITIES: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/html5lib-tests/tokenizer/numericEntities.test"
    ));
    const ENTITIES: &str =
        include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/html5lib-tests/tokenizer/entities.test"));

    /// Runs every case of one html5lib file whose output is one character
    /// token (text decoding) or one start tag with one attribute (attribute
    /// decoding), comparing values and error codes in order. Errors about the
    /// attribute's quoting belong to the tag decoder and are not compared.
    /// Returns the number of cases run; all failures are reported at once.
    fn run_html5lib(file: &str) -> usize {
        let json = Json::parse(file);
        let tests = json.get("tests").as_array();
        let mut failures = Vec::new();
        for t in tests {
            let description = t.get("description").as_str();
            let input = t.get("input").as_str();
            let output = t.get("output").as_array();
            let mut want_codes: Vec<&str> = match t.try_get("errors") {
                Some(e) => e.as_array().iter().map(|e| e.get("code").as_str()).collect(),
                None => Vec::new(),
            };
            let (got, got_errors, want) = match output[0].as_array()[0].as_str() {
                "Character" => {
                    assert_eq!(output.len(), 1, "{description}");
                    let (got, errors) = run(DATA, input.as_bytes(), true);
                    (got.into_owned(), errors, output[0].as_array()[1].as_str())
                }
                "StartTag" => {
                    let eq = input.find('=').unwrap();
                    let rest = &input[eq + 1..input.len() - 1];
                    let value = rest.trim_matches(['"', '\'']);
                    want_codes.retain(|c| *c != "unexpected-character-in-unquoted-attribute-value");
                    let (got, errors) = run(Attr, value.as_bytes(), true);
                    let attributes = &output[0].as_array()[2];
                    (got.into_owned(), errors, attributes.get("a").as_str())
                }
                other => panic!("{description}: unexpected output {other}"),
            };
            let got_codes: Vec<&str> = got_errors.iter().map(|e| e.0.as_str()).collect();
            if got != want || got_codes != want_codes {
                failures
                    .push(format!("{description}: {input:?} gave {got:?} {got_codes:?}, want {want:?} {want_codes:?}"));
            }
        }
        assert!(failures.is_empty(), "{} of {} failed:\n{}", failures.len(), tests.len(), failures.join("\n"));
        tests.len()
    }

    #[test]
    fn html5lib_named_entities() {
        assert_eq!(run_html5lib(NAMED_ENTITIES), 4210);
    }

    #[test]
    fn html5lib_numeric_entities() {
        assert_eq!(run_html5lib(NUMERIC_ENTITIES), 336);
    }

    #[test]
    fn html5lib_entities() {
        assert_eq!(run_html5lib(ENTITIES), 80);
    }

    /// The names of namedEntities.test ("Named entity: …" cases) are exactly
    /// the table's.
    #[test]
    fn html5lib_names_are_the_table() {
        let json = Json::parse(NAMED_ENTITIES);
        let mut names: Vec<&str> = json
            .get("tests")
            .as_array()
            .iter()
            .filter(|t| t.get("description").as_str().starts_with("Named entity: "))
            .map(|t| &t.get("input").as_str()[1..])
            .collect();
        names.sort();
        let table: Vec<&str> =
            super::super::entities::NAMED_REFERENCES.iter().map(|r| std::str::from_utf8(r.name).unwrap()).collect();
        assert_eq!(names.len(), 2231);
        assert_eq!(names, table);
    }

    /// A JSON value: just enough JSON for html5lib's test files.
    #[derive(Debug)]
    enum Json {
        Null,
        Bool,
        Number,
        String(String),
        Array(Vec<Json>),
        Object(Vec<(String, Json)>),
    }

    impl Json {
        fn parse(s: &str) -> Json {
            let mut p = JsonParser { s: s.as_bytes(), i: 0 };
            let v = p.value();
            p.space();
            assert_eq!(p.i, s.len(), "trailing bytes");
            v
        }

        fn try_get(&self, key: &str) -> Option<&Json> {
            match self {
                Json::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
                _ => panic!("not an object: {self:?}"),
            }
        }

        fn get(&self, key: &str) -> &Json {
            self.try_get(key).unwrap_or_else(|| panic!("no key {key}"))
        }

        fn as_array(&self) -> &[Json] {
            match self {
                Json::Array(items) => items,
                _ => panic!("not an array: {self:?}"),
            }
        }

        fn as_str(&self) -> &str {
            match self {
                Json::String(s) => s,
                _ => panic!("not a string: {self:?}"),
            }
        }
    }

    struct JsonParser<'s> {
        s: &'s [u8],
        i: usize,
    }

    impl JsonParser<'_> {
        fn space(&mut self) {
            while self.s.get(self.i).is_some_and(|b| b.is_ascii_whitespace()) {
                self.i += 1;
            }
        }

        fn eat(&mut self, b: u8) -> bool {
            self.space();
            let ok = self.s.get(self.i) == Some(&b);
            if ok {
                self.i += 1;
            }
            ok
        }

        fn value(&mut self) -> Json {
            self.space();
            match self.s[self.i] {
                b'{' => {
                    self.i += 1;
                    let mut members = Vec::new();
                    if !self.eat(b'}') {
                        loop {
                            self.space();
                            let Json::String(k) = self.value() else { panic!("object key at {}", self.i) };
                            assert!(self.eat(b':'));
                            members.push((k, self.value()));
                            if self.eat(b'}') {
                                break;
                            }
                            assert!(self.eat(b','), "expected , at {}", self.i);
                        }
                    }
                    Json::Object(members)
                }
                b'[' => {
                    self.i += 1;
                    let mut items = Vec::new();
                    if !self.eat(b']') {
                        loop {
                            items.push(self.value());
                            if self.eat(b']') {
                                break;
                            }
                            assert!(self.eat(b','), "expected , at {}", self.i);
                        }
                    }
                    Json::Array(items)
                }
                b'"' => Json::String(self.string()),
                b't' | b'f' | b'n' => {
                    let word = self.s[self.i..].iter().take_while(|b| b.is_ascii_alphabetic()).count();
                    let v = match &self.s[self.i..self.i + word] {
                        b"true" | b"false" => Json::Bool,
                        b"null" => Json::Null,
                        w => panic!("unexpected word {:?}", String::from_utf8_lossy(w)),
                    };
                    self.i += word;
                    v
                }
                _ => {
                    let n = self.s[self.i..]
                        .iter()
                        .take_while(|b| matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                        .count();
                    assert!(n > 0, "unexpected byte at {}", self.i);
                    self.i += n;
                    Json::Number
                }
            }
        }

        fn hex4(&mut self) -> u32 {
            let h = std::str::from_utf8(&self.s[self.i..self.i + 4]).unwrap();
            self.i += 4;
            u32::from_str_radix(h, 16).unwrap()
        }

        fn string(&mut self) -> String {
            self.i += 1;
            let mut out = String::new();
            loop {
                let run = self.s[self.i..].iter().take_while(|&&b| b != b'"' && b != b'\\').count();
                out.push_str(std::str::from_utf8(&self.s[self.i..self.i + run]).unwrap());
                self.i += run;
                let b = self.s[self.i];
                self.i += 1;
                if b == b'"' {
                    return out;
                }
                let e = self.s[self.i];
                self.i += 1;
                match e {
                    b'"' => out.push('"'),
                    b'\\' => out.push('\\'),
                    b'/' => out.push('/'),
                    b'b' => out.push('\u{8}'),
                    b'f' => out.push('\u{C}'),
                    b'n' => out.push('\n'),
                    b'r' => out.push('\r'),
                    b't' => out.push('\t'),
                    b'u' => {
                        let mut c = self.hex4();
                        if (0xD800..0xDC00).contains(&c) && self.s[self.i..].starts_with(b"\\u") {
                            self.i += 2;
                            let low = self.hex4();
                            assert!((0xDC00..0xE000).contains(&low), "lone surrogate in test data");
                            c = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00);
                        }
                        out.push(char::from_u32(c).expect("lone surrogate in test data"));
                    }
                    _ => panic!("bad escape at {}", self.i),
                }
            }
        }
    }
}
