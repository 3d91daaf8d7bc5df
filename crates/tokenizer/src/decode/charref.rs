//! The Standard's character reference states, from the
//! [character reference state](https://html.spec.whatwg.org/multipage/parsing.html#character-reference-state)
//! through the
//! [numeric character reference end state](https://html.spec.whatwg.org/multipage/parsing.html#numeric-character-reference-end-state),
//! as one function over the bytes that follow an `&`.
//!
//! Text decoding ([`super::text`]) and attribute decoding
//! ([`super::attribute_value`]) call [`character_reference`] at every `&`; it
//! says how many bytes the reference covers and what they turn into. Bytes
//! after the reference are the caller's (the Standard's "reconsume in the
//! return state").
//!
//! # Complexity
//! A named reference examines at most as many bytes as the longest name (32)
//! with two binary searches per byte; an ambiguous ampersand or a numeric
//! reference examines each of its bytes once. Numeric values saturate, so a
//! million digits cost a million steps and no overflow.

use super::ErrorFn;
use super::entities::{NAMED_REFERENCES, NamedReference};
use crate::{ParseErrorCode, Rel};

/// Where a character reference is: its [return state](https://html.spec.whatwg.org/multipage/parsing.html#return-state)
/// is an attribute value state or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReturnState {
    /// Data or RCDATA.
    Text,
    /// One of the three attribute value states: named references without `;`
    /// followed by `=` or an ASCII alphanumeric are left as written.
    AttributeValue,
}

/// What the bytes of a character reference turn into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Replacement {
    /// Not decoded: the bytes stay as written (the Standard's "flush code
    /// points consumed as a character reference" of the `&` and what follows,
    /// and the ambiguous ampersand state's alphanumerics).
    AsWritten,
    /// A named reference's value (one or two code points).
    Named(&'static str),
    /// A numeric reference's code point, after the numeric character
    /// reference end state's replacements.
    Numeric(char),
}

/// The outcome of [`character_reference`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CharacterReference {
    /// Number of bytes covered, from the `&` on (at least 1).
    pub(crate) len: usize,
    /// What those bytes turn into.
    pub(crate) replacement: Replacement,
    /// Whether the input ended while the outcome could still change: more
    /// bytes after the end might extend the reference or change its value
    /// or errors (`&amp` may become `&amp;`, `&#12` may go on, `&` may be
    /// followed by a name). A scanner that sees `true` at a chunk end must
    /// wait for more input before it decides.
    pub(crate) at_end: bool,
}

/// Runs the character reference states on `raw[at..]`, where `raw[at]` is
/// the `&` that switched to the
/// [character reference state](https://html.spec.whatwg.org/multipage/parsing.html#character-reference-state).
///
/// The end of `raw` is taken as the end of the input. Errors go to `err`
/// with spans relative to `raw`: the reference's bytes from the `&` through
/// the last byte it covers (for `unknown-named-character-reference`, through
/// the `;` that follows the name).
///
/// # Panics
/// Debug builds panic if `raw[at]` is not `&`.
pub(crate) fn character_reference(
    raw: &[u8],
    at: usize,
    return_state: ReturnState,
    err: &mut Option<ErrorFn<'_>>,
) -> CharacterReference {
    debug_assert_eq!(raw.get(at), Some(&b'&'));
    let after = at + 1;
    match raw.get(after) {
        // spec: "ASCII alphanumeric: Reconsume in the named character reference state."
        Some(b) if b.is_ascii_alphanumeric() => named_character_reference(raw, at, return_state, err),
        // spec: "U+0023 NUMBER SIGN (#): Append the current input character to the temporary
        // buffer. Switch to the numeric character reference state."
        Some(b'#') => numeric_character_reference(raw, at, err),
        // spec: "Anything else: Flush code points consumed as a character reference.
        // Reconsume in the return state."
        Some(_) => CharacterReference { len: 1, replacement: Replacement::AsWritten, at_end: false },
        None => CharacterReference { len: 1, replacement: Replacement::AsWritten, at_end: true },
    }
}

/// The [named character reference state](https://html.spec.whatwg.org/multipage/parsing.html#named-character-reference-state)
/// and, when no name matches, the
/// [ambiguous ampersand state](https://html.spec.whatwg.org/multipage/parsing.html#ambiguous-ampersand-state).
fn named_character_reference(
    raw: &[u8],
    at: usize,
    return_state: ReturnState,
    err: &mut Option<ErrorFn<'_>>,
) -> CharacterReference {
    let name_start = at + 1;
    let (found, may_extend) = longest_match(&raw[name_start..]);
    let Some(found) = found else {
        // spec: "Otherwise: Flush code points consumed as a character reference. Switch to the
        // ambiguous ampersand state."
        return ambiguous_ampersand(raw, at, err);
    };
    let end = name_start + found.name.len();
    let with_semicolon = found.name.last() == Some(&b';');
    let next = raw.get(end).copied();
    // `&amp` at the end may still become `&amp;`; a longer name may still match.
    let at_end = may_extend || (!with_semicolon && next.is_none());
    // spec: "If the character reference was consumed as part of an attribute, and the last
    // character matched is not a U+003B SEMICOLON character (;), and the next input character
    // is either a U+003D EQUALS SIGN character (=) or an ASCII alphanumeric, then, for
    // historical reasons, flush code points consumed as a character reference and switch to
    // the return state."
    if return_state == ReturnState::AttributeValue
        && !with_semicolon
        && next.is_some_and(|b| b == b'=' || b.is_ascii_alphanumeric())
    {
        return CharacterReference { len: end - at, replacement: Replacement::AsWritten, at_end };
    }
    // spec: "If the last character matched is not a U+003B SEMICOLON character (;), then this is
    // a missing-semicolon-after-character-reference parse error."
    if !with_semicolon {
        report(err, ParseErrorCode::MissingSemicolonAfterCharacterReference, Rel::new(at, end));
    }
    CharacterReference { len: end - at, replacement: Replacement::Named(found.value), at_end }
}

/// By a name's first byte: the range of [`NAMED_REFERENCES`] whose names
/// start with it (empty for a byte no name starts with), built at compile
/// time from the table, which is sorted bytewise
/// (`first_byte_ranges_are_the_binary_searches` in the tests).
static BY_FIRST_BYTE: [(u16, u16); 256] = {
    let mut t = [(0u16, 0u16); 256];
    let mut i = 0;
    while i < NAMED_REFERENCES.len() {
        let b = NAMED_REFERENCES[i].name[0] as usize;
        if t[b].1 == 0 {
            t[b].0 = i as u16;
        }
        t[b].1 = i as u16 + 1;
        i += 1;
    }
    t
};

/// The longest name of the table that is a prefix of `input` (the bytes after
/// the `&`), and whether a longer name could still match if `input` went on.
///
/// The table is sorted bytewise, so the names that start with a given prefix
/// form one range; each byte narrows the range with two binary searches. A
/// name equal to the prefix sorts first in its range.
fn longest_match(input: &[u8]) -> (Option<&'static NamedReference>, bool) {
    let mut range = &NAMED_REFERENCES[..];
    let mut found = None;
    for (k, &b) in input.iter().enumerate() {
        htrewrite_work::tick(1);
        if k == 0 {
            // The first byte's range from the table: the widest step's
            // two binary searches, done at compile time.
            let (lo, hi) = BY_FIRST_BYTE[usize::from(b)];
            range = &NAMED_REFERENCES[usize::from(lo)..usize::from(hi)];
        } else {
            let lo = range.partition_point(|r| r.name.get(k).is_none_or(|&c| c < b));
            let hi = range.partition_point(|r| r.name.get(k).is_none_or(|&c| c <= b));
            range = &range[lo..hi];
        }
        let Some(first) = range.first() else {
            return (found, false);
        };
        if first.name.len() == k + 1 {
            found = Some(first);
        }
    }
    // The input ended: a name longer than the input may still match.
    let may_extend = range.last().is_some_and(|r| r.name.len() > input.len());
    (found, may_extend)
}

/// The [ambiguous ampersand state](https://html.spec.whatwg.org/multipage/parsing.html#ambiguous-ampersand-state):
/// ASCII alphanumerics after the `&` stay as written; a `;` right after them
/// is an `unknown-named-character-reference` (and is left to the caller).
fn ambiguous_ampersand(raw: &[u8], at: usize, err: &mut Option<ErrorFn<'_>>) -> CharacterReference {
    let start = at + 1;
    let alphanumerics = raw[start..].iter().take_while(|b| b.is_ascii_alphanumeric()).count();
    htrewrite_work::tick(alphanumerics);
    let end = start + alphanumerics;
    match raw.get(end) {
        // spec: "U+003B SEMICOLON (;): This is an unknown-named-character-reference parse error.
        // Reconsume in the return state."
        Some(b';') => {
            report(err, ParseErrorCode::UnknownNamedCharacterReference, Rel::new(at, end + 1));
            CharacterReference { len: end - at, replacement: Replacement::AsWritten, at_end: false }
        }
        // spec: "Anything else: Reconsume in the return state."
        Some(_) => CharacterReference { len: end - at, replacement: Replacement::AsWritten, at_end: false },
        None => CharacterReference { len: end - at, replacement: Replacement::AsWritten, at_end: true },
    }
}

/// The [numeric character reference state](https://html.spec.whatwg.org/multipage/parsing.html#numeric-character-reference-state)
/// through the numeric character reference end state; `raw[at..]` starts with `&#`.
fn numeric_character_reference(raw: &[u8], at: usize, err: &mut Option<ErrorFn<'_>>) -> CharacterReference {
    let mut i = at + 2;
    // spec: "U+0078 LATIN SMALL LETTER X, U+0058 LATIN CAPITAL LETTER X: Append the current input
    // character to the temporary buffer. Switch to the hexadecimal character reference start
    // state." Anything else: decimal character reference start state.
    let radix: u32 = match raw.get(i) {
        Some(b'x' | b'X') => {
            i += 1;
            16
        }
        _ => 10,
    };
    let digits_start = i;
    // The hexadecimal / decimal character reference states. The value saturates just above
    // the Unicode range: every larger value gives the same result.
    let mut code: u32 = 0;
    while let Some(digit) = raw.get(i).and_then(|&b| (b as char).to_digit(radix)) {
        htrewrite_work::tick(1);
        code = (code * radix + digit).min(0x11_0000);
        i += 1;
    }
    if i == digits_start {
        // spec (hexadecimal / decimal character reference start state), "Anything else": This is
        // an absence-of-digits-in-numeric-character-reference parse error. Flush code points
        // consumed as a character reference. Reconsume in the return state.
        let at_end = i == raw.len();
        report(err, ParseErrorCode::AbsenceOfDigitsInNumericCharacterReference, Rel::new(at, i));
        return CharacterReference { len: i - at, replacement: Replacement::AsWritten, at_end };
    }
    let at_end = i == raw.len();
    if raw.get(i) == Some(&b';') {
        // spec: "U+003B SEMICOLON: Switch to the numeric character reference end state."
        i += 1;
    } else {
        // spec: "Anything else: This is a missing-semicolon-after-character-reference parse
        // error. Reconsume in the numeric character reference end state."
        report(err, ParseErrorCode::MissingSemicolonAfterCharacterReference, Rel::new(at, i));
    }
    let c = numeric_character_reference_end(code, Rel::new(at, i), err);
    CharacterReference { len: i - at, replacement: Replacement::Numeric(c), at_end }
}

/// The [numeric character reference end state](https://html.spec.whatwg.org/multipage/parsing.html#numeric-character-reference-end-state):
/// the character for `code`, with its errors reported at `span`.
fn numeric_character_reference_end(code: u32, span: Rel, err: &mut Option<ErrorFn<'_>>) -> char {
    let mut code = code;
    if code == 0 {
        // spec: "If the number is 0x00, then this is a null-character-reference parse error. Set
        // the character reference code to 0xFFFD."
        report(err, ParseErrorCode::NullCharacterReference, span);
        code = 0xFFFD;
    } else if code > 0x10_FFFF {
        // spec: "If the number is greater than 0x10FFFF, then this is a
        // character-reference-outside-unicode-range parse error. Set the character reference
        // code to 0xFFFD."
        report(err, ParseErrorCode::CharacterReferenceOutsideUnicodeRange, span);
        code = 0xFFFD;
    } else if (0xD800..=0xDFFF).contains(&code) {
        // spec: "If the number is a surrogate, then this is a surrogate-character-reference parse
        // error. Set the character reference code to 0xFFFD."
        report(err, ParseErrorCode::SurrogateCharacterReference, span);
        code = 0xFFFD;
    } else if is_noncharacter(code) {
        // spec: "If the number is a noncharacter, then this is a noncharacter-character-reference
        // parse error."
        report(err, ParseErrorCode::NoncharacterCharacterReference, span);
    } else if code == 0x0D || (is_control(code) && !is_ascii_whitespace(code)) {
        // spec: "If the number is 0x0D, or a control that's not ASCII whitespace, then this is a
        // control-character-reference parse error. If the number is one of the numbers in the
        // first column of the following table, then find the row with that number in the first
        // column, and set the character reference code to the number in the second column of
        // that row."
        report(err, ParseErrorCode::ControlCharacterReference, span);
        code = windows_1252_replacement(code).unwrap_or(code);
    }
    char::from_u32(code).unwrap_or('\u{FFFD}')
}

/// A [noncharacter](https://infra.spec.whatwg.org/#noncharacter): U+FDD0 to
/// U+FDEF, and the last two code points of every plane.
pub(crate) fn is_noncharacter(code: u32) -> bool {
    (0xFDD0..=0xFDEF).contains(&code) || (code <= 0x10_FFFF && code & 0xFFFE == 0xFFFE)
}

/// A [control](https://infra.spec.whatwg.org/#control): a C0 control
/// (U+0000 to U+001F) or U+007F to U+009F.
pub(crate) fn is_control(code: u32) -> bool {
    code <= 0x1F || (0x7F..=0x9F).contains(&code)
}

/// [ASCII whitespace](https://infra.spec.whatwg.org/#ascii-whitespace): TAB,
/// LF, FF, CR, SPACE.
fn is_ascii_whitespace(code: u32) -> bool {
    matches!(code, 0x09 | 0x0A | 0x0C | 0x0D | 0x20)
}

/// The table of the numeric character reference end state: C1 controls that
/// stand for the windows-1252 character of the same byte.
fn windows_1252_replacement(code: u32) -> Option<u32> {
    let replacement = match code {
        0x80 => 0x20AC, // EURO SIGN (€)
        0x82 => 0x201A, // SINGLE LOW-9 QUOTATION MARK (‚)
        0x83 => 0x0192, // LATIN SMALL LETTER F WITH HOOK (ƒ)
        0x84 => 0x201E, // DOUBLE LOW-9 QUOTATION MARK („)
        0x85 => 0x2026, // HORIZONTAL ELLIPSIS (…)
        0x86 => 0x2020, // DAGGER (†)
        0x87 => 0x2021, // DOUBLE DAGGER (‡)
        0x88 => 0x02C6, // MODIFIER LETTER CIRCUMFLEX ACCENT (ˆ)
        0x89 => 0x2030, // PER MILLE SIGN (‰)
        0x8A => 0x0160, // LATIN CAPITAL LETTER S WITH CARON (Š)
        0x8B => 0x2039, // SINGLE LEFT-POINTING ANGLE QUOTATION MARK (‹)
        0x8C => 0x0152, // LATIN CAPITAL LIGATURE OE (Œ)
        0x8E => 0x017D, // LATIN CAPITAL LETTER Z WITH CARON (Ž)
        0x91 => 0x2018, // LEFT SINGLE QUOTATION MARK (‘)
        0x92 => 0x2019, // RIGHT SINGLE QUOTATION MARK (’)
        0x93 => 0x201C, // LEFT DOUBLE QUOTATION MARK (“)
        0x94 => 0x201D, // RIGHT DOUBLE QUOTATION MARK (”)
        0x95 => 0x2022, // BULLET (•)
        0x96 => 0x2013, // EN DASH (–)
        0x97 => 0x2014, // EM DASH (—)
        0x98 => 0x02DC, // SMALL TILDE (˜)
        0x99 => 0x2122, // TRADE MARK SIGN (™)
        0x9A => 0x0161, // LATIN SMALL LETTER S WITH CARON (š)
        0x9B => 0x203A, // SINGLE RIGHT-POINTING ANGLE QUOTATION MARK (›)
        0x9C => 0x0153, // LATIN SMALL LIGATURE OE (œ)
        0x9E => 0x017E, // LATIN SMALL LETTER Z WITH CARON (ž)
        0x9F => 0x0178, // LATIN CAPITAL LETTER Y WITH DIAERESIS (Ÿ)
        _ => return None,
    };
    Some(replacement)
}

/// Sends one error to `err`, if there is a receiver.
pub(crate) fn report(err: &mut Option<ErrorFn<'_>>, code: ParseErrorCode, span: Rel) {
    if let Some(f) = err.as_mut() {
        f(code, span);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ParseErrorCode::*;
    use ReturnState::{AttributeValue as Attr, Text};

    /// One case: input (starting with `&`), return state, expected bytes
    /// covered, replacement, `at_end`, and errors with their spans.
    struct Case {
        name: &'static str,
        input: &'static [u8],
        state: ReturnState,
        len: usize,
        replacement: Replacement,
        at_end: bool,
        errors: &'static [(ParseErrorCode, usize, usize)],
    }

    const fn case(
        name: &'static str,
        input: &'static [u8],
        state: ReturnState,
        len: usize,
        replacement: Replacement,
        at_end: bool,
        errors: &'static [(ParseErrorCode, usize, usize)],
    ) -> Case {
        Case { name, input, state, len, replacement, at_end, errors }
    }

    use Replacement::{AsWritten, Named, Numeric};

    #[rustfmt::skip]
    const CASES: &[Case] = &[
        // Named references.
        case("amp_semicolon", b"&amp;", Text, 5, Named("&"), false, &[]),
        case("amp_at_end", b"&amp", Text, 4, Named("&"), true, &[(MissingSemicolonAfterCharacterReference, 0, 4)]),
        case("amp_then_space", b"&amp x", Text, 4, Named("&"), false, &[(MissingSemicolonAfterCharacterReference, 0, 4)]),
        case("upper_amp", b"&AMP;", Text, 5, Named("&"), false, &[]),
        case("longest_name", b"&CounterClockwiseContourIntegral;", Text, 33, Named("\u{2233}"), false, &[]),
        case("two_code_points", b"&NotNestedGreaterGreater;", Text, 25, Named("\u{2AA2}\u{338}"), false, &[]),
        case("notit_text", b"&notit;", Text, 4, Named("\u{AC}"), false, &[(MissingSemicolonAfterCharacterReference, 0, 4)]),
        case("notin_text", b"&notin;", Text, 7, Named("\u{2209}"), false, &[]),
        case("not_text_end", b"&not", Text, 4, Named("\u{AC}"), true, &[(MissingSemicolonAfterCharacterReference, 0, 4)]),
        case("notin_no_semicolon_end", b"&notin", Text, 4, Named("\u{AC}"), true, &[(MissingSemicolonAfterCharacterReference, 0, 4)]),
        case("notit_attribute", b"&notit;", Attr, 4, AsWritten, false, &[]),
        case("copy_equals_attribute", b"&copy=", Attr, 5, AsWritten, false, &[]),
        case("copy_equals_text", b"&copy=", Text, 5, Named("\u{A9}"), false, &[(MissingSemicolonAfterCharacterReference, 0, 5)]),
        case("copyx_attribute", b"&copyx", Attr, 5, AsWritten, false, &[]),
        case("copyx_text", b"&copyx", Text, 5, Named("\u{A9}"), false, &[(MissingSemicolonAfterCharacterReference, 0, 5)]),
        case("copy_digit_attribute", b"&copy7", Attr, 5, AsWritten, false, &[]),
        case("copy_semicolon_x_attribute", b"&copy;x", Attr, 6, Named("\u{A9}"), false, &[]),
        case("copy_semicolon_x_text", b"&copy;x", Text, 6, Named("\u{A9}"), false, &[]),
        case("copy_space_attribute", b"&copy ", Attr, 5, Named("\u{A9}"), false, &[(MissingSemicolonAfterCharacterReference, 0, 5)]),
        case("copy_end_attribute", b"&copy", Attr, 5, Named("\u{A9}"), true, &[(MissingSemicolonAfterCharacterReference, 0, 5)]),
        case("lang_equals_attribute", b"&lang=", Attr, 5, AsWritten, false, &[]),
        case("noti_semicolon_attribute", b"&noti;", Attr, 4, AsWritten, false, &[]),
        case("ampx_may_extend", b"&am", Text, 3, AsWritten, true, &[]),
        // Ambiguous ampersand.
        case("unknown_named", b"&xyz;", Text, 4, AsWritten, false, &[(UnknownNamedCharacterReference, 0, 5)]),
        case("unknown_named_attribute", b"&xyz;", Attr, 4, AsWritten, false, &[(UnknownNamedCharacterReference, 0, 5)]),
        case("unknown_no_semicolon", b"&xyz ", Text, 4, AsWritten, false, &[]),
        case("unknown_at_end", b"&xyz", Text, 4, AsWritten, true, &[]),
        case("digit_after_ampersand", b"&1;", Text, 2, AsWritten, false, &[(UnknownNamedCharacterReference, 0, 3)]),
        case("semicolon_only", b"&;", Text, 1, AsWritten, false, &[]),
        case("ampersand_space", b"& ", Text, 1, AsWritten, false, &[]),
        case("ampersand_at_end", b"&", Text, 1, AsWritten, true, &[]),
        case("ampersand_ampersand", b"&&amp;", Text, 1, AsWritten, false, &[]),
        // Numeric references.
        case("decimal", b"&#65;", Text, 5, Numeric('A'), false, &[]),
        case("hex_lower", b"&#x41;", Text, 6, Numeric('A'), false, &[]),
        case("hex_upper_x", b"&#X41;", Text, 6, Numeric('A'), false, &[]),
        case("hex_digits_mixed_case", b"&#x1d504;", Text, 9, Numeric('\u{1D504}'), false, &[]),
        case("zero_padded_hex", b"&#x0000000000041;", Text, 17, Numeric('A'), false, &[]),
        case("zero_padded_decimal", b"&#0000000000065;", Text, 16, Numeric('A'), false, &[]),
        case("missing_semicolon", b"&#65x", Text, 4, Numeric('A'), false, &[(MissingSemicolonAfterCharacterReference, 0, 4)]),
        case("missing_semicolon_at_end", b"&#65", Text, 4, Numeric('A'), true, &[(MissingSemicolonAfterCharacterReference, 0, 4)]),
        case("hex_digit_ends_decimal", b"&#65a;", Text, 4, Numeric('A'), false, &[(MissingSemicolonAfterCharacterReference, 0, 4)]),
        case("outside_unicode", b"&#x110000;", Text, 10, Numeric('\u{FFFD}'), false, &[(CharacterReferenceOutsideUnicodeRange, 0, 10)]),
        case("max_code_point", b"&#1114111;", Text, 10, Numeric('\u{10FFFF}'), false, &[(NoncharacterCharacterReference, 0, 10)]),
        case("huge_no_semicolon", b"&#11111111111", Text, 13, Numeric('\u{FFFD}'), true, &[(MissingSemicolonAfterCharacterReference, 0, 13), (CharacterReferenceOutsideUnicodeRange, 0, 13)]),
        case("null", b"&#0;", Text, 4, Numeric('\u{FFFD}'), false, &[(NullCharacterReference, 0, 4)]),
        case("null_hex_padded", b"&#x0000;", Text, 8, Numeric('\u{FFFD}'), false, &[(NullCharacterReference, 0, 8)]),
        case("surrogate", b"&#xD800;", Text, 8, Numeric('\u{FFFD}'), false, &[(SurrogateCharacterReference, 0, 8)]),
        case("surrogate_last", b"&#xDFFF;", Text, 8, Numeric('\u{FFFD}'), false, &[(SurrogateCharacterReference, 0, 8)]),
        case("noncharacter_fdd0", b"&#xFDD0;", Text, 8, Numeric('\u{FDD0}'), false, &[(NoncharacterCharacterReference, 0, 8)]),
        case("noncharacter_1fffe", b"&#x1FFFE;", Text, 9, Numeric('\u{1FFFE}'), false, &[(NoncharacterCharacterReference, 0, 9)]),
        case("c1_euro", b"&#128;", Text, 6, Numeric('\u{20AC}'), false, &[(ControlCharacterReference, 0, 6)]),
        case("c1_81_kept", b"&#x81;", Text, 6, Numeric('\u{81}'), false, &[(ControlCharacterReference, 0, 6)]),
        case("c1_9f", b"&#x9F;", Text, 6, Numeric('\u{178}'), false, &[(ControlCharacterReference, 0, 6)]),
        case("carriage_return", b"&#13;", Text, 5, Numeric('\r'), false, &[(ControlCharacterReference, 0, 5)]),
        case("line_feed_ok", b"&#10;", Text, 5, Numeric('\n'), false, &[]),
        case("tab_ok", b"&#9;", Text, 4, Numeric('\t'), false, &[]),
        case("c0_control", b"&#1;", Text, 4, Numeric('\u{1}'), false, &[(ControlCharacterReference, 0, 4)]),
        case("delete", b"&#x7F;", Text, 6, Numeric('\u{7F}'), false, &[(ControlCharacterReference, 0, 6)]),
        case("a0_ok", b"&#xA0;", Text, 6, Numeric('\u{A0}'), false, &[]),
        case("no_digits_decimal", b"&#;", Text, 2, AsWritten, false, &[(AbsenceOfDigitsInNumericCharacterReference, 0, 2)]),
        case("no_digits_hex", b"&#x;", Text, 3, AsWritten, false, &[(AbsenceOfDigitsInNumericCharacterReference, 0, 3)]),
        case("no_digits_hex_upper", b"&#Xg", Text, 3, AsWritten, false, &[(AbsenceOfDigitsInNumericCharacterReference, 0, 3)]),
        case("no_digits_at_end", b"&#", Text, 2, AsWritten, true, &[(AbsenceOfDigitsInNumericCharacterReference, 0, 2)]),
        case("no_digits_hex_at_end", b"&#x", Text, 3, AsWritten, true, &[(AbsenceOfDigitsInNumericCharacterReference, 0, 3)]),
        case("numeric_in_attribute", b"&#65=", Attr, 4, Numeric('A'), false, &[(MissingSemicolonAfterCharacterReference, 0, 4)]),
    ];

    fn run(input: &[u8], at: usize, state: ReturnState) -> (CharacterReference, Vec<(ParseErrorCode, usize, usize)>) {
        let mut errors = Vec::new();
        let mut f = |code: ParseErrorCode, rel: Rel| errors.push((code, rel.start, rel.end));
        let r = character_reference(input, at, state, &mut Some(&mut f));
        (r, errors)
    }

    #[test]
    fn cases() {
        let mut failures = Vec::new();
        for c in CASES {
            let (r, errors) = run(c.input, 0, c.state);
            let want = CharacterReference { len: c.len, replacement: c.replacement, at_end: c.at_end };
            if r != want || errors != c.errors {
                failures.push(format!("{}: got {r:?} {errors:?}, want {want:?} {:?}", c.name, c.errors));
            }
            // Without an error receiver the outcome is the same.
            let r2 = character_reference(c.input, 0, c.state, &mut None);
            assert_eq!(r, r2, "{}", c.name);
        }
        assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    }

    /// The compile-time first-byte table holds, for every byte, what the
    /// first step's two binary searches over the whole table find (the
    /// same range, or an empty one), and the table it indexes is sorted
    /// bytewise, as both rely on.
    #[test]
    fn first_byte_ranges_are_the_binary_searches() {
        let all = &NAMED_REFERENCES[..];
        for b in 0..=u8::MAX {
            let lo = all.partition_point(|r| r.name.first().is_none_or(|&c| c < b));
            let hi = all.partition_point(|r| r.name.first().is_none_or(|&c| c <= b));
            let (tlo, thi) = BY_FIRST_BYTE[usize::from(b)];
            if lo == hi {
                assert_eq!(tlo, thi, "byte {b}: empty");
            } else {
                assert_eq!((usize::from(tlo), usize::from(thi)), (lo, hi), "byte {b}");
            }
        }
        assert!(NAMED_REFERENCES.is_sorted_by(|a, b| a.name <= b.name), "sorted bytewise");
    }

    #[test]
    fn spans_are_relative_to_raw() {
        let (r, errors) = run(b"ab&amp cd", 2, Text);
        assert_eq!(r.len, 4);
        assert_eq!(errors, [(MissingSemicolonAfterCharacterReference, 2, 6)]);
    }

    #[test]
    fn table_has_every_name_sorted() {
        assert_eq!(NAMED_REFERENCES.len(), 2231);
        assert!(NAMED_REFERENCES.windows(2).all(|w| w[0].name < w[1].name), "names sorted and unique");
        let legacy: Vec<_> = NAMED_REFERENCES.iter().filter(|r| r.name.last() != Some(&b';')).collect();
        assert_eq!(legacy.len(), 106);
        for r in &NAMED_REFERENCES {
            let chars = r.value.chars().count();
            assert!(chars == 1 || chars == 2, "{:?}", r);
            assert!(r.name.iter().all(|b| b.is_ascii_alphanumeric() || *b == b';'));
        }
    }

    #[test]
    fn every_name_is_found() {
        for r in &NAMED_REFERENCES {
            let mut input = vec![b'&'];
            input.extend_from_slice(r.name);
            // A byte that extends no name, so the match is decided.
            input.push(b' ');
            let (got, _) = run(&input, 0, Text);
            assert_eq!(got.len, 1 + r.name.len(), "{}", String::from_utf8_lossy(r.name));
            assert_eq!(got.replacement, Named(r.value), "{}", String::from_utf8_lossy(r.name));
            assert!(!got.at_end);
        }
    }

    /// A numeric reference of n digits saturates (its value stays the
    /// out-of-range one) and costs work linear in n: counted at n and 4n
    /// (`htrewrite_work`), not timed.
    #[test]
    fn million_digits_saturate_in_linear_time() {
        for (prefix, digit) in [(&b"&#"[..], b'9'), (&b"&#x"[..], b'F'), (&b"&#"[..], b'0')] {
            let mut work = Vec::new();
            for n in [250_000, 1_000_000] {
                let mut input = prefix.to_vec();
                input.resize(n, digit);
                input.push(b';');
                let before = htrewrite_work::counted();
                let (r, errors) = run(&input, 0, Text);
                work.push(htrewrite_work::counted() - before);
                assert_eq!(r.len, input.len());
                assert_eq!(r.replacement, Numeric('\u{FFFD}'));
                if digit == b'0' {
                    assert_eq!(errors, [(NullCharacterReference, 0, input.len())]);
                } else {
                    assert_eq!(errors, [(CharacterReferenceOutsideUnicodeRange, 0, input.len())]);
                }
            }
            assert!(work[0] > 0, "the digit loop is not counted");
            assert!(work[1] as f64 <= 4.2 * work[0] as f64, "not linear: work {work:?} at n and 4n");
        }
    }

    #[test]
    fn million_alphanumerics_are_one_ambiguous_run() {
        let mut input = b"&".to_vec();
        input.resize(1_000_001, b'q');
        input.push(b';');
        let (r, errors) = run(&input, 0, Text);
        assert_eq!(r.len, 1_000_001);
        assert_eq!(errors, [(UnknownNamedCharacterReference, 0, 1_000_002)]);
    }

    proptest::proptest! {
        /// `at_end == false` on a prefix means the outcome is final: the
        /// whole input gives the same length, replacement and errors.
        #[test]
        fn outcome_without_at_end_is_final(
            name in 0..NAMED_REFERENCES.len(),
            keep in 0usize..40,
            numeric in proptest::bool::ANY,
            rest in proptest::collection::vec(proptest::sample::select(ALPHABET.to_vec()), 0..24),
            attribute in proptest::bool::ANY,
        ) {
            let state = if attribute { Attr } else { Text };
            // `&`, then part of a real name (or of `#`), then random bytes.
            let mut input = vec![b'&'];
            let start: &[u8] = if numeric { b"#x" } else { NAMED_REFERENCES[name].name };
            input.extend_from_slice(&start[..keep.min(start.len())]);
            input.extend_from_slice(&rest);
            let whole = run(&input, 0, state);
            for cut in 1..=input.len() {
                let prefix = run(&input[..cut], 0, state);
                proptest::prop_assert!(prefix.0.len <= cut);
                if !prefix.0.at_end {
                    proptest::prop_assert_eq!(prefix.0.len, whole.0.len, "cut at {}", cut);
                    proptest::prop_assert_eq!(prefix.0.replacement, whole.0.replacement, "cut at {}", cut);
                    proptest::prop_assert_eq!(&prefix.1, &whole.1, "cut at {}", cut);
                }
            }
        }
    }

    /// Bytes of names, numbers and their ends.
    const ALPHABET: &[u8] = b"#xX;;=&< 0123456789aAfFlmnopstuigqz";

    #[test]
    fn replacement_table_is_the_standards() {
        // 0x81, 0x8D, 0x8F, 0x90, 0x9D have no windows-1252 character: they stay.
        let kept = [0x81, 0x8D, 0x8F, 0x90, 0x9D];
        for code in 0x80..=0x9F {
            let replaced = windows_1252_replacement(code);
            assert_eq!(replaced.is_none(), kept.contains(&code), "{code:#X}");
        }
    }

    #[test]
    fn noncharacters() {
        let mut all: Vec<u32> = (0xFDD0..=0xFDEF).collect();
        for plane in 0..=0x10 {
            all.push(plane << 16 | 0xFFFE);
            all.push(plane << 16 | 0xFFFF);
        }
        assert_eq!(all.len(), 66);
        assert_eq!((0..=0x10_FFFF).filter(|&c| is_noncharacter(c)).collect::<Vec<_>>().len(), 66);
        assert!(all.iter().all(|&c| is_noncharacter(c)));
    }
}
