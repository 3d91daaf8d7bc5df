//! DOCTYPE tokens: the [DOCTYPE states] of the Standard, from the DOCTYPE
//! state to the bogus DOCTYPE state, run over one token's raw bytes.
//!
//! A DOCTYPE always ends at the first `>` (inside a quoted identifier too:
//! `abrupt-doctype-public-identifier`) or at the end of the input.
//!
//! [DOCTYPE states]: https://html.spec.whatwg.org/multipage/parsing.html#doctype-state

use super::ErrorFn;
use super::comment::{Errors, Nul, decode_data, is_whitespace};
use crate::{Doctype, ParseErrorCode, Rel};

/// The DOCTYPE states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// [DOCTYPE state](https://html.spec.whatwg.org/multipage/parsing.html#doctype-state).
    Doctype,
    /// [Before DOCTYPE name state](https://html.spec.whatwg.org/multipage/parsing.html#before-doctype-name-state).
    BeforeDoctypeName,
    /// [DOCTYPE name state](https://html.spec.whatwg.org/multipage/parsing.html#doctype-name-state).
    DoctypeName,
    /// [After DOCTYPE name state](https://html.spec.whatwg.org/multipage/parsing.html#after-doctype-name-state).
    AfterDoctypeName,
    /// [After DOCTYPE public keyword state](https://html.spec.whatwg.org/multipage/parsing.html#after-doctype-public-keyword-state).
    AfterDoctypePublicKeyword,
    /// [Before DOCTYPE public identifier state](https://html.spec.whatwg.org/multipage/parsing.html#before-doctype-public-identifier-state).
    BeforeDoctypePublicIdentifier,
    /// [DOCTYPE public identifier (double-quoted) state](https://html.spec.whatwg.org/multipage/parsing.html#doctype-public-identifier-(double-quoted)-state)
    /// and the single-quoted one: the field is the closing quote.
    DoctypePublicIdentifierQuoted(u8),
    /// [After DOCTYPE public identifier state](https://html.spec.whatwg.org/multipage/parsing.html#after-doctype-public-identifier-state).
    AfterDoctypePublicIdentifier,
    /// [Between DOCTYPE public and system identifiers state](https://html.spec.whatwg.org/multipage/parsing.html#between-doctype-public-and-system-identifiers-state).
    BetweenDoctypePublicAndSystemIdentifiers,
    /// [After DOCTYPE system keyword state](https://html.spec.whatwg.org/multipage/parsing.html#after-doctype-system-keyword-state).
    AfterDoctypeSystemKeyword,
    /// [Before DOCTYPE system identifier state](https://html.spec.whatwg.org/multipage/parsing.html#before-doctype-system-identifier-state).
    BeforeDoctypeSystemIdentifier,
    /// [DOCTYPE system identifier (double-quoted) state](https://html.spec.whatwg.org/multipage/parsing.html#doctype-system-identifier-(double-quoted)-state)
    /// and the single-quoted one: the field is the closing quote.
    DoctypeSystemIdentifierQuoted(u8),
    /// [After DOCTYPE system identifier state](https://html.spec.whatwg.org/multipage/parsing.html#after-doctype-system-identifier-state).
    AfterDoctypeSystemIdentifier,
    /// [Bogus DOCTYPE state](https://html.spec.whatwg.org/multipage/parsing.html#bogus-doctype-state).
    BogusDoctype,
}

/// The fields of a DOCTYPE token, reporting the parse errors inside it.
///
/// `raw` is the whole token: `<!` + `DOCTYPE` (any case) + … up to and
/// including the first `>`, or to the end of the input when `eof` is set.
/// The name is ASCII-lowercased; name and identifiers have U+0000 → U+FFFD,
/// CR/CRLF → LF and other bytes lossy UTF-8.
///
/// # Errors
/// All the DOCTYPE states' errors: `missing-whitespace-before-doctype-name`,
/// `missing-doctype-name`, `invalid-character-sequence-after-doctype-name`,
/// `missing-whitespace-after-doctype-{public,system}-keyword`,
/// `missing-doctype-{public,system}-identifier`,
/// `missing-quote-before-doctype-{public,system}-identifier`,
/// `abrupt-doctype-{public,system}-identifier`,
/// `missing-whitespace-between-doctype-public-and-system-identifiers`,
/// `unexpected-character-after-doctype-system-identifier`,
/// `unexpected-null-character`, `eof-in-doctype`. Spans cover the character
/// the state was looking at, or are empty at `raw.len()` for the end of the
/// input.
///
/// # Complexity
/// O(`raw.len()`).
pub(crate) fn doctype(raw: &[u8], eof: bool, err: Option<ErrorFn<'_>>) -> Doctype {
    use ParseErrorCode as E;
    let mut errs = Errors::new(err);
    let mut state = State::Doctype;
    // spec (markup declaration open state): "DOCTYPE" was consumed.
    let mut p = 9.min(raw.len());
    let mut name: Option<Rel> = None;
    let mut public_id: Option<Rel> = None;
    let mut system_id: Option<Rel> = None;
    let mut force_quirks = false;
    let eof_in_doctype = |errs: &mut Errors<'_>, force_quirks: &mut bool| {
        if eof {
            errs.at(E::EofInDoctype, raw, raw.len());
        }
        *force_quirks = true;
    };
    loop {
        let c = raw.get(p).copied();
        match state {
            State::Doctype => match c {
                Some(b) if is_whitespace(b) => {
                    p += 1;
                    state = State::BeforeDoctypeName;
                    continue;
                }
                Some(b'>') => {
                    state = State::BeforeDoctypeName;
                    continue;
                }
                None => {
                    eof_in_doctype(&mut errs, &mut force_quirks);
                    break;
                }
                Some(_) => {
                    errs.at(E::MissingWhitespaceBeforeDoctypeName, raw, p);
                    state = State::BeforeDoctypeName;
                    continue;
                }
            },
            State::BeforeDoctypeName => match c {
                Some(b) if is_whitespace(b) => {
                    p += 1;
                    continue;
                }
                Some(b'>') => {
                    errs.at(E::MissingDoctypeName, raw, p);
                    force_quirks = true;
                    break;
                }
                None => {
                    eof_in_doctype(&mut errs, &mut force_quirks);
                    break;
                }
                Some(b) => {
                    // spec: U+0000 is an unexpected-null-character (U+FFFD,
                    // done by decoding); any other character starts the name.
                    if b == 0 {
                        errs.at(E::UnexpectedNullCharacter, raw, p);
                    }
                    name = Some(Rel::new(p, p + 1));
                    p += 1;
                    state = State::DoctypeName;
                    continue;
                }
            },
            State::DoctypeName => match c {
                Some(b) if is_whitespace(b) => {
                    p += 1;
                    state = State::AfterDoctypeName;
                    continue;
                }
                Some(b'>') => break,
                None => {
                    eof_in_doctype(&mut errs, &mut force_quirks);
                    break;
                }
                Some(b) => {
                    if b == 0 {
                        errs.at(E::UnexpectedNullCharacter, raw, p);
                    }
                    p += 1;
                    if let Some(n) = name.as_mut() {
                        n.end = p;
                    }
                    continue;
                }
            },
            State::AfterDoctypeName => match c {
                Some(b) if is_whitespace(b) => {
                    p += 1;
                    continue;
                }
                Some(b'>') => break,
                None => {
                    eof_in_doctype(&mut errs, &mut force_quirks);
                    break;
                }
                Some(_) => {
                    let next6 = raw.get(p..p + 6);
                    if next6.is_some_and(|k| k.eq_ignore_ascii_case(b"PUBLIC")) {
                        p += 6;
                        state = State::AfterDoctypePublicKeyword;
                        continue;
                    }
                    if next6.is_some_and(|k| k.eq_ignore_ascii_case(b"SYSTEM")) {
                        p += 6;
                        state = State::AfterDoctypeSystemKeyword;
                        continue;
                    }
                    errs.at(E::InvalidCharacterSequenceAfterDoctypeName, raw, p);
                    force_quirks = true;
                    state = State::BogusDoctype;
                    continue;
                }
            },
            State::AfterDoctypePublicKeyword => match c {
                Some(b) if is_whitespace(b) => {
                    p += 1;
                    state = State::BeforeDoctypePublicIdentifier;
                    continue;
                }
                Some(q @ (b'"' | b'\'')) => {
                    errs.at(E::MissingWhitespaceAfterDoctypePublicKeyword, raw, p);
                    p += 1;
                    public_id = Some(Rel::new(p, p));
                    state = State::DoctypePublicIdentifierQuoted(q);
                    continue;
                }
                Some(b'>') => {
                    errs.at(E::MissingDoctypePublicIdentifier, raw, p);
                    force_quirks = true;
                    break;
                }
                None => {
                    eof_in_doctype(&mut errs, &mut force_quirks);
                    break;
                }
                Some(_) => {
                    errs.at(E::MissingQuoteBeforeDoctypePublicIdentifier, raw, p);
                    force_quirks = true;
                    state = State::BogusDoctype;
                    continue;
                }
            },
            State::BeforeDoctypePublicIdentifier => match c {
                Some(b) if is_whitespace(b) => {
                    p += 1;
                    continue;
                }
                Some(q @ (b'"' | b'\'')) => {
                    p += 1;
                    public_id = Some(Rel::new(p, p));
                    state = State::DoctypePublicIdentifierQuoted(q);
                    continue;
                }
                Some(b'>') => {
                    errs.at(E::MissingDoctypePublicIdentifier, raw, p);
                    force_quirks = true;
                    break;
                }
                None => {
                    eof_in_doctype(&mut errs, &mut force_quirks);
                    break;
                }
                Some(_) => {
                    errs.at(E::MissingQuoteBeforeDoctypePublicIdentifier, raw, p);
                    force_quirks = true;
                    state = State::BogusDoctype;
                    continue;
                }
            },
            State::DoctypePublicIdentifierQuoted(quote) => match c {
                Some(b) if b == quote => {
                    p += 1;
                    state = State::AfterDoctypePublicIdentifier;
                    continue;
                }
                Some(b'>') => {
                    errs.at(E::AbruptDoctypePublicIdentifier, raw, p);
                    force_quirks = true;
                    break;
                }
                None => {
                    eof_in_doctype(&mut errs, &mut force_quirks);
                    break;
                }
                Some(b) => {
                    if b == 0 {
                        errs.at(E::UnexpectedNullCharacter, raw, p);
                    }
                    p += 1;
                    if let Some(id) = public_id.as_mut() {
                        id.end = p;
                    }
                    continue;
                }
            },
            State::AfterDoctypePublicIdentifier => match c {
                Some(b) if is_whitespace(b) => {
                    p += 1;
                    state = State::BetweenDoctypePublicAndSystemIdentifiers;
                    continue;
                }
                Some(b'>') => break,
                Some(q @ (b'"' | b'\'')) => {
                    errs.at(E::MissingWhitespaceBetweenDoctypePublicAndSystemIdentifiers, raw, p);
                    p += 1;
                    system_id = Some(Rel::new(p, p));
                    state = State::DoctypeSystemIdentifierQuoted(q);
                    continue;
                }
                None => {
                    eof_in_doctype(&mut errs, &mut force_quirks);
                    break;
                }
                Some(_) => {
                    errs.at(E::MissingQuoteBeforeDoctypeSystemIdentifier, raw, p);
                    force_quirks = true;
                    state = State::BogusDoctype;
                    continue;
                }
            },
            State::BetweenDoctypePublicAndSystemIdentifiers => match c {
                Some(b) if is_whitespace(b) => {
                    p += 1;
                    continue;
                }
                Some(b'>') => break,
                Some(q @ (b'"' | b'\'')) => {
                    p += 1;
                    system_id = Some(Rel::new(p, p));
                    state = State::DoctypeSystemIdentifierQuoted(q);
                    continue;
                }
                None => {
                    eof_in_doctype(&mut errs, &mut force_quirks);
                    break;
                }
                Some(_) => {
                    errs.at(E::MissingQuoteBeforeDoctypeSystemIdentifier, raw, p);
                    force_quirks = true;
                    state = State::BogusDoctype;
                    continue;
                }
            },
            State::AfterDoctypeSystemKeyword => match c {
                Some(b) if is_whitespace(b) => {
                    p += 1;
                    state = State::BeforeDoctypeSystemIdentifier;
                    continue;
                }
                Some(q @ (b'"' | b'\'')) => {
                    errs.at(E::MissingWhitespaceAfterDoctypeSystemKeyword, raw, p);
                    p += 1;
                    system_id = Some(Rel::new(p, p));
                    state = State::DoctypeSystemIdentifierQuoted(q);
                    continue;
                }
                Some(b'>') => {
                    errs.at(E::MissingDoctypeSystemIdentifier, raw, p);
                    force_quirks = true;
                    break;
                }
                None => {
                    eof_in_doctype(&mut errs, &mut force_quirks);
                    break;
                }
                Some(_) => {
                    errs.at(E::MissingQuoteBeforeDoctypeSystemIdentifier, raw, p);
                    force_quirks = true;
                    state = State::BogusDoctype;
                    continue;
                }
            },
            State::BeforeDoctypeSystemIdentifier => match c {
                Some(b) if is_whitespace(b) => {
                    p += 1;
                    continue;
                }
                Some(q @ (b'"' | b'\'')) => {
                    p += 1;
                    system_id = Some(Rel::new(p, p));
                    state = State::DoctypeSystemIdentifierQuoted(q);
                    continue;
                }
                Some(b'>') => {
                    errs.at(E::MissingDoctypeSystemIdentifier, raw, p);
                    force_quirks = true;
                    break;
                }
                None => {
                    eof_in_doctype(&mut errs, &mut force_quirks);
                    break;
                }
                Some(_) => {
                    errs.at(E::MissingQuoteBeforeDoctypeSystemIdentifier, raw, p);
                    force_quirks = true;
                    state = State::BogusDoctype;
                    continue;
                }
            },
            State::DoctypeSystemIdentifierQuoted(quote) => match c {
                Some(b) if b == quote => {
                    p += 1;
                    state = State::AfterDoctypeSystemIdentifier;
                    continue;
                }
                Some(b'>') => {
                    errs.at(E::AbruptDoctypeSystemIdentifier, raw, p);
                    force_quirks = true;
                    break;
                }
                None => {
                    eof_in_doctype(&mut errs, &mut force_quirks);
                    break;
                }
                Some(b) => {
                    if b == 0 {
                        errs.at(E::UnexpectedNullCharacter, raw, p);
                    }
                    p += 1;
                    if let Some(id) = system_id.as_mut() {
                        id.end = p;
                    }
                    continue;
                }
            },
            State::AfterDoctypeSystemIdentifier => match c {
                Some(b) if is_whitespace(b) => {
                    p += 1;
                    continue;
                }
                Some(b'>') => break,
                None => {
                    eof_in_doctype(&mut errs, &mut force_quirks);
                    break;
                }
                Some(_) => {
                    // spec: this does not set the force-quirks flag.
                    errs.at(E::UnexpectedCharacterAfterDoctypeSystemIdentifier, raw, p);
                    state = State::BogusDoctype;
                    continue;
                }
            },
            State::BogusDoctype => match c {
                Some(b'>') => break,
                // spec: EOF: emit the DOCTYPE token (no error).
                None => break,
                Some(b) => {
                    if b == 0 {
                        errs.at(E::UnexpectedNullCharacter, raw, p);
                    }
                    p += 1;
                    continue;
                }
            },
        }
    }
    let name = name.map(|n| {
        let lower: Vec<u8> = n.slice(raw).to_ascii_lowercase();
        decode_data(&lower, Nul::Replace).into_owned()
    });
    let id = |r: Rel| decode_data(r.slice(raw), Nul::Replace).into_owned();
    Doctype { name, public_id: public_id.map(id), system_id: system_id.map(id), force_quirks }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ParseErrorCode as E;
    use std::ops::Range;

    /// Runs one case: the fields and the errors (code and span).
    fn check(
        raw: &[u8],
        eof: bool,
        want: (Option<&str>, Option<&str>, Option<&str>, bool),
        errors: &[(E, Range<usize>)],
    ) {
        let mut got: Vec<(E, Rel)> = Vec::new();
        let d = doctype(raw, eof, Some(&mut |c, r| got.push((c, r))));
        let fields = (d.name.as_deref(), d.public_id.as_deref(), d.system_id.as_deref(), d.force_quirks);
        assert_eq!(fields, want, "fields of {:?}", String::from_utf8_lossy(raw));
        assert_eq!(doctype(raw, eof, None), d, "without a callback");
        let errors: Vec<(E, Rel)> = errors.iter().map(|(c, r)| (*c, Rel::new(r.start, r.end))).collect();
        assert_eq!(got, errors, "errors of {:?}", String::from_utf8_lossy(raw));
    }

    /// `name: raw, eof => (name, public, system, force_quirks), [Code @ span, …];`
    macro_rules! cases {
        ($($name:ident: $raw:expr, $eof:expr => ($n:expr, $p:expr, $s:expr, $q:expr), [$($code:ident @ $r:expr),* $(,)?];)*) => {
            $(
                #[test]
                fn $name() {
                    check($raw, $eof, ($n, $p, $s, $q), &[$((E::$code, $r)),*]);
                }
            )*
        };
    }

    cases! {
        html: b"<!DOCTYPE html>", false => (Some("html"), None, None, false), [];
        lowercase_keyword: b"<!doctype HTML>", false => (Some("html"), None, None, false), [];
        mixed_case_name: b"<!DoCtYpE HtMl>", false => (Some("html"), None, None, false), [];
        non_ascii_name: "<!DOCTYPE ÀB>".as_bytes(), false => (Some("Àb"), None, None, false), [];
        cr_whitespace: b"<!DOCTYPE\rhtml\r\n>", false => (Some("html"), None, None, false), [];
        no_name: b"<!DOCTYPE>", false => (None, None, None, true), [MissingDoctypeName @ 9..10];
        no_name_space: b"<!DOCTYPE >", false => (None, None, None, true), [MissingDoctypeName @ 10..11];
        no_space: b"<!DOCTYPEhtml>", false => (Some("html"), None, None, false),
            [MissingWhitespaceBeforeDoctypeName @ 9..10];
        eof_after_keyword: b"<!DOCTYPE", true => (None, None, None, true), [EofInDoctype @ 9..9];
        eof_before_name: b"<!DOCTYPE ", true => (None, None, None, true), [EofInDoctype @ 10..10];
        eof_in_name: b"<!DOCTYPE html", true => (Some("html"), None, None, true), [EofInDoctype @ 14..14];
        eof_after_name: b"<!DOCTYPE html ", true => (Some("html"), None, None, true), [EofInDoctype @ 15..15];
        public_and_system: b"<!DOCTYPE html PUBLIC \"a\" \"b\">", false => (Some("html"), Some("a"), Some("b"), false), [];
        public_only: b"<!DOCTYPE html PUBLIC \"a\">", false => (Some("html"), Some("a"), None, false), [];
        public_single_quotes: b"<!DOCTYPE html public 'a' 'b'>", false => (Some("html"), Some("a"), Some("b"), false), [];
        public_empty: b"<!DOCTYPE html PUBLIC \"\">", false => (Some("html"), Some(""), None, false), [];
        public_other_quote_inside: b"<!DOCTYPE html PUBLIC \"a'b\">", false => (Some("html"), Some("a'b"), None, false), [];
        public_ids_adjacent: b"<!DOCTYPE html PUBLIC \"a\"\"b\">", false => (Some("html"), Some("a"), Some("b"), false),
            [MissingWhitespaceBetweenDoctypePublicAndSystemIdentifiers @ 25..26];
        public_no_space_after_keyword: b"<!DOCTYPE html PUBLIC\"a\">", false => (Some("html"), Some("a"), None, false),
            [MissingWhitespaceAfterDoctypePublicKeyword @ 21..22];
        public_missing: b"<!DOCTYPE html PUBLIC>", false => (Some("html"), None, None, true),
            [MissingDoctypePublicIdentifier @ 21..22];
        public_missing_after_space: b"<!DOCTYPE html PUBLIC >", false => (Some("html"), None, None, true),
            [MissingDoctypePublicIdentifier @ 22..23];
        public_unquoted: b"<!DOCTYPE html PUBLIC x>", false => (Some("html"), None, None, true),
            [MissingQuoteBeforeDoctypePublicIdentifier @ 22..23];
        public_unquoted_no_space: b"<!DOCTYPE html PUBLICx>", false => (Some("html"), None, None, true),
            [MissingQuoteBeforeDoctypePublicIdentifier @ 21..22];
        public_ends_at_first_gt: b"<!DOCTYPE html PUBLIC \"a>", false => (Some("html"), Some("a"), None, true),
            [AbruptDoctypePublicIdentifier @ 24..25];
        public_then_unquoted_system: b"<!DOCTYPE html PUBLIC \"a\" x>", false => (Some("html"), Some("a"), None, true),
            [MissingQuoteBeforeDoctypeSystemIdentifier @ 26..27];
        public_then_unquoted_no_space: b"<!DOCTYPE html PUBLIC \"a\"x>", false => (Some("html"), Some("a"), None, true),
            [MissingQuoteBeforeDoctypeSystemIdentifier @ 25..26];
        system: b"<!DOCTYPE html SYSTEM \"b\">", false => (Some("html"), None, Some("b"), false), [];
        system_lowercase: b"<!DOCTYPE html system 'b'>", false => (Some("html"), None, Some("b"), false), [];
        system_no_space: b"<!DOCTYPE html SYSTEM\"b\">", false => (Some("html"), None, Some("b"), false),
            [MissingWhitespaceAfterDoctypeSystemKeyword @ 21..22];
        system_missing: b"<!DOCTYPE html SYSTEM>", false => (Some("html"), None, None, true),
            [MissingDoctypeSystemIdentifier @ 21..22];
        system_missing_after_space: b"<!DOCTYPE html SYSTEM >", false => (Some("html"), None, None, true),
            [MissingDoctypeSystemIdentifier @ 22..23];
        system_unquoted: b"<!DOCTYPE html SYSTEM b>", false => (Some("html"), None, None, true),
            [MissingQuoteBeforeDoctypeSystemIdentifier @ 22..23];
        system_unquoted_no_space: b"<!DOCTYPE html SYSTEMb>", false => (Some("html"), None, None, true),
            [MissingQuoteBeforeDoctypeSystemIdentifier @ 21..22];
        system_ends_at_first_gt: b"<!DOCTYPE html SYSTEM 'b>", false => (Some("html"), None, Some("b"), true),
            [AbruptDoctypeSystemIdentifier @ 24..25];
        system_trailing_junk: b"<!DOCTYPE html SYSTEM \"b\" x\"y>", false => (Some("html"), None, Some("b"), false),
            [UnexpectedCharacterAfterDoctypeSystemIdentifier @ 26..27];
        system_trailing_junk_no_space: b"<!DOCTYPE html SYSTEM \"b\"x>", false => (Some("html"), None, Some("b"), false),
            [UnexpectedCharacterAfterDoctypeSystemIdentifier @ 25..26];
        system_trailing_space: b"<!DOCTYPE html SYSTEM \"b\" >", false => (Some("html"), None, Some("b"), false), [];
        odd_keyword: b"<!DOCTYPE html FOO>", false => (Some("html"), None, None, true),
            [InvalidCharacterSequenceAfterDoctypeName @ 15..16];
        odd_keyword_quotes: b"<!DOCTYPE html PUBLIX \"a\">", false => (Some("html"), None, None, true),
            [InvalidCharacterSequenceAfterDoctypeName @ 15..16];
        keyword_cut_by_eof: b"<!DOCTYPE html PUBLI", true => (Some("html"), None, None, true),
            [InvalidCharacterSequenceAfterDoctypeName @ 15..16];
        eof_after_public_keyword: b"<!DOCTYPE html PUBLIC", true => (Some("html"), None, None, true),
            [EofInDoctype @ 21..21];
        eof_before_public_id: b"<!DOCTYPE html PUBLIC ", true => (Some("html"), None, None, true),
            [EofInDoctype @ 22..22];
        eof_in_public_id: b"<!DOCTYPE html PUBLIC \"a", true => (Some("html"), Some("a"), None, true),
            [EofInDoctype @ 24..24];
        eof_after_public_id: b"<!DOCTYPE html PUBLIC \"a\"", true => (Some("html"), Some("a"), None, true),
            [EofInDoctype @ 25..25];
        eof_between_ids: b"<!DOCTYPE html PUBLIC \"a\" ", true => (Some("html"), Some("a"), None, true),
            [EofInDoctype @ 26..26];
        eof_in_system_id: b"<!DOCTYPE html PUBLIC \"a\" \"b", true => (Some("html"), Some("a"), Some("b"), true),
            [EofInDoctype @ 28..28];
        eof_after_system_keyword: b"<!DOCTYPE html SYSTEM", true => (Some("html"), None, None, true),
            [EofInDoctype @ 21..21];
        eof_before_system_id: b"<!DOCTYPE html SYSTEM ", true => (Some("html"), None, None, true),
            [EofInDoctype @ 22..22];
        eof_after_system_id: b"<!DOCTYPE html SYSTEM 'b'", true => (Some("html"), None, Some("b"), true),
            [EofInDoctype @ 25..25];
        eof_in_bogus: b"<!DOCTYPE html x", true => (Some("html"), None, None, true),
            [InvalidCharacterSequenceAfterDoctypeName @ 15..16];
        eof_in_bogus_after_system: b"<!DOCTYPE html SYSTEM 'b' x", true => (Some("html"), None, Some("b"), false),
            [UnexpectedCharacterAfterDoctypeSystemIdentifier @ 26..27];
        nul_name: b"<!DOCTYPE \0>", false => (Some("\u{FFFD}"), None, None, false), [UnexpectedNullCharacter @ 10..11];
        nul_in_name: b"<!DOCTYPE h\0T>", false => (Some("h\u{FFFD}t"), None, None, false),
            [UnexpectedNullCharacter @ 11..12];
        nul_in_public_id: b"<!DOCTYPE html PUBLIC \"a\0\">", false => (Some("html"), Some("a\u{FFFD}"), None, false),
            [UnexpectedNullCharacter @ 24..25];
        nul_in_system_id: b"<!DOCTYPE html SYSTEM '\0'>", false => (Some("html"), None, Some("\u{FFFD}"), false),
            [UnexpectedNullCharacter @ 23..24];
        nul_in_bogus: b"<!DOCTYPE html x\0>", false => (Some("html"), None, None, true),
            [InvalidCharacterSequenceAfterDoctypeName @ 15..16, UnexpectedNullCharacter @ 16..17];
        newlines_in_ids: b"<!DOCTYPE html PUBLIC \"a\r\nb\" 'c\rd'>", false => (Some("html"), Some("a\nb"), Some("c\nd"), false), [];
        utf8_after_system_id: "<!DOCTYPE html SYSTEM \"b\" é>".as_bytes(), false => (Some("html"), None, Some("b"), false),
            [UnexpectedCharacterAfterDoctypeSystemIdentifier @ 26..28];
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

    /// `name: raw, eof => (name, public, system, force_quirks), [Code @ column, …];`
    /// — cases from html5lib's tokenizer tests whose whole input is one DOCTYPE.
    macro_rules! html5lib_cases {
        ($($(#[$m:meta])* $name:ident: $raw:expr, $eof:expr => ($n:expr, $p:expr, $s:expr, $q:expr), [$($code:ident $(@ $col:literal)?),* $(,)?];)*) => {
            $(
                $(#[$m])*
                #[test]
                fn $name() {
                    let mut got = Vec::new();
                    let d = doctype($raw, $eof, Some(&mut |c, r| got.push((c, r))));
                    let fields = (d.name.as_deref(), d.public_id.as_deref(), d.system_id.as_deref(), d.force_quirks);
                    assert_eq!(fields, ($n, $p, $s, $q));
                    let want = [$(html5lib_error!($code $(@ $col)?)),*];
                    assert!(errors_match(&got, &want), "errors:\n got  {got:?}\n want {want:?}");
                }
            )*
        };
    }

    html5lib_cases! {
        // Correct Doctype lowercase
        html5lib_test1_0: b"<!DOCTYPE html>", false => (Some("html"), None, None, false), [];
        // Correct Doctype uppercase
        html5lib_test1_1: b"<!DOCTYPE HTML>", false => (Some("html"), None, None, false), [];
        // Correct Doctype mixed case
        html5lib_test1_2: b"<!DOCTYPE HtMl>", false => (Some("html"), None, None, false), [];
        // Correct Doctype case with EOF
        html5lib_test1_3: b"<!DOCTYPE HtMl", true => (Some("html"), None, None, true), [EofInDoctype @ 15];
        // Doctype in error
        html5lib_test1_5: b"<!DOCTYPE foo>", false => (Some("foo"), None, None, false), [];
        // DOCTYPE without name
        html5lib_test2_0: b"<!DOCTYPE>", false => (None, None, None, true), [MissingDoctypeName @ 10];
        // DOCTYPE without space before name
        html5lib_test2_1: b"<!DOCTYPEhtml>", false => (Some("html"), None, None, false), [MissingWhitespaceBeforeDoctypeName @ 10];
        // Incorrect DOCTYPE without a space before name
        html5lib_test2_2: b"<!DOCTYPEfoo>", false => (Some("foo"), None, None, false), [MissingWhitespaceBeforeDoctypeName @ 10];
        // DOCTYPE with publicId
        html5lib_test2_3: b"<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML Transitional 4.01//EN\">", false => (Some("html"), Some("-//W3C//DTD HTML Transitional 4.01//EN"), None, false), [];
        // DOCTYPE with EOF after PUBLIC
        html5lib_test2_4: b"<!DOCTYPE html PUBLIC", true => (Some("html"), None, None, true), [EofInDoctype @ 22];
        // DOCTYPE with EOF after PUBLIC '
        html5lib_test2_5: b"<!DOCTYPE html PUBLIC '", true => (Some("html"), Some(""), None, true), [EofInDoctype @ 24];
        // DOCTYPE with EOF after PUBLIC 'x
        html5lib_test2_6: b"<!DOCTYPE html PUBLIC 'x", true => (Some("html"), Some("x"), None, true), [EofInDoctype @ 25];
        // DOCTYPE with systemId
        html5lib_test2_7: b"<!DOCTYPE html SYSTEM \"-//W3C//DTD HTML Transitional 4.01//EN\">", false => (Some("html"), None, Some("-//W3C//DTD HTML Transitional 4.01//EN"), false), [];
        // DOCTYPE with single-quoted systemId
        html5lib_test2_8: b"<!DOCTYPE html SYSTEM '-//W3C//DTD HTML Transitional 4.01//EN'>", false => (Some("html"), None, Some("-//W3C//DTD HTML Transitional 4.01//EN"), false), [];
        // DOCTYPE with publicId and systemId
        html5lib_test2_9: b"<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML Transitional 4.01//EN\" \"-//W3C//DTD HTML Transitional 4.01//EN\">", false => (Some("html"), Some("-//W3C//DTD HTML Transitional 4.01//EN"), Some("-//W3C//DTD HTML Transitional 4.01//EN"), false), [];
        // Incomplete doctype
        html5lib_test2_14: b"<!DOCTYPE html ", true => (Some("html"), None, None, true), [EofInDoctype @ 16];
        // CR EOF after doctype name
        html5lib_test4_23: b"<!doctype html \r", true => (Some("html"), None, None, true), [EofInDoctype];
        // Doctype public case-sensitivity (1)
        html5lib_test4_53: b"<!DoCtYpE HtMl PuBlIc \"AbC\" \"XyZ\">", false => (Some("html"), Some("AbC"), Some("XyZ"), false), [];
        // Doctype public case-sensitivity (2)
        html5lib_test4_54: b"<!dOcTyPe hTmL pUbLiC \"aBc\" \"xYz\">", false => (Some("html"), Some("aBc"), Some("xYz"), false), [];
        // Doctype system case-sensitivity (1)
        html5lib_test4_55: b"<!DoCtYpE HtMl SyStEm \"XyZ\">", false => (Some("html"), None, Some("XyZ"), false), [];
        // Doctype system case-sensitivity (2)
        html5lib_test4_56: b"<!dOcTyPe hTmL sYsTeM \"xYz\">", false => (Some("html"), None, Some("xYz"), false), [];
        // Doctype publik
        html5lib_test4_70: b"<!DOCTYPE html PUBLIK \"AbC\" \"XyZ\">", false => (Some("html"), None, None, true), [InvalidCharacterSequenceAfterDoctypeName @ 16];
        // Doctype publi
        html5lib_test4_71: b"<!DOCTYPE html PUBLI", true => (Some("html"), None, None, true), [InvalidCharacterSequenceAfterDoctypeName @ 16];
        // Doctype sistem
        html5lib_test4_72: b"<!DOCTYPE html SISTEM \"AbC\">", false => (Some("html"), None, None, true), [InvalidCharacterSequenceAfterDoctypeName @ 16];
        // Doctype sys
        html5lib_test4_73: b"<!DOCTYPE html SYS", true => (Some("html"), None, None, true), [InvalidCharacterSequenceAfterDoctypeName @ 16];
        // space EOF after doctype
        html5lib_domjs_34: b"<!DOCTYPE html ", true => (Some("html"), None, None, true), [EofInDoctype @ 16];
    }

    /// Errors come in source order and lie inside `raw`.
    fn in_order(got: &[(E, Rel)], len: usize) -> bool {
        got.windows(2).all(|w| w[0].1.start <= w[1].1.start)
            && got.iter().all(|(_, r)| r.start <= r.end && r.end <= len)
    }

    const ALPHABET: &[u8] = b"<>\"' PUBLICSYSTEMpublicx\t\r\n\0\xC3\xA9";

    proptest::proptest! {
        /// Any bytes after `<!DOCTYPE` up to the first `>` (or the end):
        /// errors in source order and in bounds, fields independent of the
        /// callback, and `eof-in-doctype` only at the end of the input.
        #[test]
        fn invariants(rest in proptest::collection::vec(proptest::sample::select(ALPHABET.to_vec()), 0..40)) {
            let mut raw = b"<!DOCTYPE".to_vec();
            raw.extend(rest);
            let eof = match raw.iter().position(|&b| b == b'>') {
                Some(gt) => {
                    raw.truncate(gt + 1);
                    false
                }
                None => true,
            };
            let mut got = Vec::new();
            let d = doctype(&raw, eof, Some(&mut |c, r| got.push((c, r))));
            proptest::prop_assert_eq!(&d, &doctype(&raw, eof, None));
            proptest::prop_assert!(in_order(&got, raw.len()), "{:?}", got);
            proptest::prop_assert!(got.iter().all(|(c, r)| *c != E::EofInDoctype || (eof && r.start == raw.len())));
        }
    }
}
