//! Start and end tags: the Standard's states from the [tag name state] to the
//! [self-closing start tag state], run over one tag token's raw bytes.
//!
//! Names and values are decoded by [`name`](super::text::name) and
//! [`attribute_value`](super::text::attribute_value), which also report the
//! errors inside them (U+0000, character references); this module reports
//! the errors of the states themselves and merges both in source order.
//!
//! [tag name state]: https://html.spec.whatwg.org/multipage/parsing.html#tag-name-state
//! [self-closing start tag state]: https://html.spec.whatwg.org/multipage/parsing.html#self-closing-start-tag-state

use super::ErrorFn;
use super::comment::{Errors, is_whitespace};
use crate::{AttributeSpan, ParseErrorCode, Quote, Rel};
use std::borrow::Cow;
use std::collections::HashSet;

/// A tag parsed by the slow reference implementation.
///
/// # Example
/// ```
/// use htrewrite_tokenizer::{reference_tag, Quote};
/// let raw = b"<a href='x' hidden/>";
/// let tag = reference_tag(raw, false, false, None);
/// assert_eq!(tag.name.slice(raw), b"a");
/// assert_eq!(tag.attributes.len(), 2);
/// assert_eq!(tag.attributes[0].value.unwrap().slice(raw), b"x");
/// assert_eq!(tag.attributes[0].quote, Quote::Single);
/// assert_eq!(tag.attributes[1].value, None);
/// assert!(tag.self_closing);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReferenceTag {
    /// The tag name's bytes.
    pub name: Rel,
    /// The attributes, in source order, duplicates included.
    pub attributes: Vec<AttributeSpan>,
    /// Whether the tag ends with `/>`.
    pub self_closing: bool,
}

/// The tag states, as in the Standard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// [Tag name state](https://html.spec.whatwg.org/multipage/parsing.html#tag-name-state).
    TagName,
    /// [Before attribute name state](https://html.spec.whatwg.org/multipage/parsing.html#before-attribute-name-state).
    BeforeAttributeName,
    /// [Attribute name state](https://html.spec.whatwg.org/multipage/parsing.html#attribute-name-state).
    AttributeName,
    /// [After attribute name state](https://html.spec.whatwg.org/multipage/parsing.html#after-attribute-name-state).
    AfterAttributeName,
    /// [Before attribute value state](https://html.spec.whatwg.org/multipage/parsing.html#before-attribute-value-state).
    BeforeAttributeValue,
    /// [Attribute value (double-quoted) state](https://html.spec.whatwg.org/multipage/parsing.html#attribute-value-(double-quoted)-state).
    AttributeValueDoubleQuoted,
    /// [Attribute value (single-quoted) state](https://html.spec.whatwg.org/multipage/parsing.html#attribute-value-(single-quoted)-state).
    AttributeValueSingleQuoted,
    /// [Attribute value (unquoted) state](https://html.spec.whatwg.org/multipage/parsing.html#attribute-value-(unquoted)-state).
    AttributeValueUnquoted,
    /// [After attribute value (quoted) state](https://html.spec.whatwg.org/multipage/parsing.html#after-attribute-value-(quoted)-state).
    AfterAttributeValueQuoted,
    /// [Self-closing start tag state](https://html.spec.whatwg.org/multipage/parsing.html#self-closing-start-tag-state).
    SelfClosingStartTag,
}

/// Attribute names seen so far in one tag, for `duplicate-attribute`: a
/// short list searched linearly, then a hash set, so that a tag with many
/// attributes stays linear.
pub(crate) struct Seen<'a> {
    small: Vec<Cow<'a, str>>,
    large: HashSet<Cow<'a, str>>,
}

impl<'a> Seen<'a> {
    const SMALL: usize = 8;

    /// An empty set.
    pub(crate) fn new() -> Self {
        Seen { small: Vec::new(), large: HashSet::new() }
    }

    /// Adds `name`; whether it was new.
    pub(crate) fn insert(&mut self, name: Cow<'a, str>) -> bool {
        if self.large.is_empty() && self.small.len() < Self::SMALL {
            if self.small.contains(&name) {
                return false;
            }
            self.small.push(name);
            return true;
        }
        if self.large.is_empty() {
            self.large.extend(self.small.drain(..));
        }
        self.large.insert(name)
    }
}

/// The parser's working state besides the spec state.
struct Parser<'a, 'e> {
    raw: &'a [u8],
    errs: Errors<'e>,
    /// This module's errors inside the name or unquoted value being read,
    /// held back to be merged in source order with the decoder's errors.
    pending: Vec<(ParseErrorCode, Rel)>,
    seen: Seen<'a>,
    attributes: Vec<AttributeSpan>,
}

impl<'a> Parser<'a, '_> {
    /// Reports an error of the states inside the current name or value.
    fn hold(&mut self, code: ParseErrorCode, pos: usize) {
        if self.errs.enabled() {
            self.pending.push((code, Rel::new(pos, pos + 1)));
        }
    }

    /// Runs `decoder` on `seg`, reporting its errors (shifted to the token)
    /// merged with the held ones. Returns `None` when nobody listens.
    fn decode<F>(&mut self, seg: Rel, decoder: F) -> Option<Cow<'a, str>>
    where
        F: for<'x> FnOnce(&'a [u8], Option<ErrorFn<'x>>) -> Cow<'a, str>,
    {
        if !self.errs.enabled() {
            return None;
        }
        let errs = &mut self.errs;
        let mut held = self.pending.drain(..).peekable();
        let mut shifted = |code: ParseErrorCode, r: Rel| {
            let r = Rel::new(r.start + seg.start, r.end + seg.start);
            while let Some(&(c, h)) = held.peek() {
                if h.start >= r.start {
                    break;
                }
                errs.report(c, h);
                held.next();
            }
            errs.report(code, r);
        };
        let out = decoder(seg.slice(self.raw), Some(&mut shifted));
        for (c, h) in held {
            errs.report(c, h);
        }
        Some(out)
    }

    /// The tag name ends (its own errors are reported).
    fn tag_name(&mut self, name: Rel) {
        self.decode(name, super::text::name);
    }

    /// The attribute name state is left at `at`: the attribute is added, and
    /// compared with the earlier ones.
    fn attribute_name(&mut self, name: Rel, at: usize) {
        self.attributes.push(AttributeSpan { name, value: None, quote: Quote::None });
        // spec: "if there is already an attribute on the token with the
        // exact same name, then this is a duplicate-attribute parse error".
        if let Some(decoded) = self.decode(name, super::text::name)
            && !self.seen.insert(decoded)
        {
            self.errs.at(ParseErrorCode::DuplicateAttribute, self.raw, at);
        }
    }

    /// The current attribute's value ends.
    fn attribute_value(&mut self, value: Rel, quote: Quote) {
        if let Some(a) = self.attributes.last_mut() {
            a.value = Some(value);
            a.quote = quote;
        }
        self.decode(value, super::text::attribute_value);
    }
}

/// Parses a whole tag token, reporting the parse errors inside it.
///
/// `raw` starts with `<` + ASCII alpha (start tag) or `</` + ASCII alpha (end
/// tag, `is_end`) and ends with the `>` that closes the tag, or wherever the
/// input ended when `eof` is set (the Standard then drops the tag:
/// `eof-in-tag`). Returns the name's bytes, the attributes in source order
/// (duplicates included, values without their quotes) and whether the tag
/// ends with `/>` (also for end tags, where it is an error).
///
/// # Errors
/// `unexpected-null-character`, `unexpected-equals-sign-before-attribute-name`,
/// `unexpected-character-in-attribute-name`, `missing-attribute-value`,
/// `unexpected-character-in-unquoted-attribute-value`,
/// `missing-whitespace-between-attributes`, `unexpected-solidus-in-tag`,
/// `duplicate-attribute` (names compared decoded), `end-tag-with-attributes`,
/// `end-tag-with-trailing-solidus`, the character reference errors inside
/// values, and `eof-in-tag`, in source order. Without a callback, names and
/// values are not decoded at all. Spans are relative to `raw` and cover the
/// character the state was looking at (`duplicate-attribute`: the character
/// that ends the name; `end-tag-with-*`: the closing `>`), or are empty at
/// `raw.len()` for `eof-in-tag`; errors inside names and values have the
/// decoders' spans.
///
/// # Complexity
/// O(`raw.len()`) expected (duplicate names go through a hash set).
pub fn tag(raw: &[u8], is_end: bool, eof: bool, err: Option<ErrorFn<'_>>) -> ReferenceTag {
    use ParseErrorCode as E;
    let mut t = Parser { raw, errs: Errors::new(err), pending: Vec::new(), seen: Seen::new(), attributes: Vec::new() };
    let name_start = if is_end { 2 } else { 1 }.min(raw.len());
    let mut name = Rel::new(name_start, name_start);
    let mut state = State::TagName;
    let mut p = name_start;
    let mut attribute_start = p;
    let mut value_start = p;
    let mut self_closing = false;
    let mut closed_at = None;
    loop {
        let c = raw.get(p).copied();
        match state {
            State::TagName => match c {
                Some(b) if is_whitespace(b) => {
                    name = Rel::new(name_start, p);
                    t.tag_name(name);
                    p += 1;
                    state = State::BeforeAttributeName;
                    continue;
                }
                Some(b'/') => {
                    name = Rel::new(name_start, p);
                    t.tag_name(name);
                    p += 1;
                    state = State::SelfClosingStartTag;
                    continue;
                }
                Some(b'>') => {
                    name = Rel::new(name_start, p);
                    t.tag_name(name);
                    closed_at = Some(p);
                    break;
                }
                None => {
                    name = Rel::new(name_start, p);
                    t.tag_name(name);
                    break;
                }
                // spec: ASCII upper alpha (lowercased), U+0000 (an error) and
                // anything else are appended; the name decoding does both.
                Some(_) => {
                    p += 1;
                    continue;
                }
            },
            State::BeforeAttributeName => match c {
                Some(b) if is_whitespace(b) => {
                    p += 1;
                    continue;
                }
                Some(b'/' | b'>') | None => {
                    state = State::AfterAttributeName;
                    continue;
                }
                Some(b'=') => {
                    // spec: start a new attribute whose name is the current
                    // input character; switch to the attribute name state.
                    t.errs.at(E::UnexpectedEqualsSignBeforeAttributeName, raw, p);
                    attribute_start = p;
                    p += 1;
                    state = State::AttributeName;
                    continue;
                }
                Some(_) => {
                    attribute_start = p;
                    state = State::AttributeName;
                    continue;
                }
            },
            State::AttributeName => match c {
                Some(b'/' | b'>') | None => {
                    t.attribute_name(Rel::new(attribute_start, p), p);
                    state = State::AfterAttributeName;
                    continue;
                }
                Some(b) if is_whitespace(b) => {
                    t.attribute_name(Rel::new(attribute_start, p), p);
                    state = State::AfterAttributeName;
                    continue;
                }
                Some(b'=') => {
                    t.attribute_name(Rel::new(attribute_start, p), p);
                    p += 1;
                    state = State::BeforeAttributeValue;
                    continue;
                }
                Some(b'"' | b'\'' | b'<') => {
                    // spec: an error; treat it as per "anything else".
                    t.hold(E::UnexpectedCharacterInAttributeName, p);
                    p += 1;
                    continue;
                }
                Some(_) => {
                    p += 1;
                    continue;
                }
            },
            State::AfterAttributeName => match c {
                Some(b) if is_whitespace(b) => {
                    p += 1;
                    continue;
                }
                Some(b'/') => {
                    p += 1;
                    state = State::SelfClosingStartTag;
                    continue;
                }
                Some(b'=') => {
                    p += 1;
                    state = State::BeforeAttributeValue;
                    continue;
                }
                Some(b'>') => {
                    closed_at = Some(p);
                    break;
                }
                None => break,
                Some(_) => {
                    attribute_start = p;
                    state = State::AttributeName;
                    continue;
                }
            },
            State::BeforeAttributeValue => match c {
                Some(b) if is_whitespace(b) => {
                    p += 1;
                    continue;
                }
                Some(b'"') => {
                    p += 1;
                    value_start = p;
                    state = State::AttributeValueDoubleQuoted;
                    continue;
                }
                Some(b'\'') => {
                    p += 1;
                    value_start = p;
                    state = State::AttributeValueSingleQuoted;
                    continue;
                }
                Some(b'>') => {
                    t.errs.at(E::MissingAttributeValue, raw, p);
                    t.attribute_value(Rel::new(p, p), Quote::None);
                    closed_at = Some(p);
                    break;
                }
                _ => {
                    value_start = p;
                    state = State::AttributeValueUnquoted;
                    continue;
                }
            },
            State::AttributeValueDoubleQuoted => match c {
                Some(b'"') => {
                    t.attribute_value(Rel::new(value_start, p), Quote::Double);
                    p += 1;
                    state = State::AfterAttributeValueQuoted;
                    continue;
                }
                None => {
                    t.attribute_value(Rel::new(value_start, p), Quote::Double);
                    break;
                }
                // spec: `&` (character references) and U+0000 are the value
                // decoding's; anything else is appended.
                Some(_) => {
                    p += 1;
                    continue;
                }
            },
            State::AttributeValueSingleQuoted => match c {
                Some(b'\'') => {
                    t.attribute_value(Rel::new(value_start, p), Quote::Single);
                    p += 1;
                    state = State::AfterAttributeValueQuoted;
                    continue;
                }
                None => {
                    t.attribute_value(Rel::new(value_start, p), Quote::Single);
                    break;
                }
                Some(_) => {
                    p += 1;
                    continue;
                }
            },
            State::AttributeValueUnquoted => match c {
                Some(b) if is_whitespace(b) => {
                    t.attribute_value(Rel::new(value_start, p), Quote::None);
                    p += 1;
                    state = State::BeforeAttributeName;
                    continue;
                }
                Some(b'>') => {
                    t.attribute_value(Rel::new(value_start, p), Quote::None);
                    closed_at = Some(p);
                    break;
                }
                None => {
                    t.attribute_value(Rel::new(value_start, p), Quote::None);
                    break;
                }
                Some(b'"' | b'\'' | b'<' | b'=' | b'`') => {
                    // spec: an error; treat it as per "anything else".
                    t.hold(E::UnexpectedCharacterInUnquotedAttributeValue, p);
                    p += 1;
                    continue;
                }
                Some(_) => {
                    p += 1;
                    continue;
                }
            },
            State::AfterAttributeValueQuoted => match c {
                Some(b) if is_whitespace(b) => {
                    p += 1;
                    state = State::BeforeAttributeName;
                    continue;
                }
                Some(b'/') => {
                    p += 1;
                    state = State::SelfClosingStartTag;
                    continue;
                }
                Some(b'>') => {
                    closed_at = Some(p);
                    break;
                }
                None => break,
                Some(_) => {
                    t.errs.at(E::MissingWhitespaceBetweenAttributes, raw, p);
                    state = State::BeforeAttributeName;
                    continue;
                }
            },
            State::SelfClosingStartTag => match c {
                Some(b'>') => {
                    self_closing = true;
                    closed_at = Some(p);
                    break;
                }
                None => break,
                Some(_) => {
                    t.errs.at(E::UnexpectedSolidusInTag, raw, p);
                    state = State::BeforeAttributeName;
                    continue;
                }
            },
        }
    }
    match closed_at {
        Some(gt) if is_end => {
            // spec: emitting an end tag token with attributes, or with its
            // self-closing flag set, is a parse error.
            if !t.attributes.is_empty() {
                t.errs.at(E::EndTagWithAttributes, raw, gt);
            }
            if self_closing {
                t.errs.at(E::EndTagWithTrailingSolidus, raw, gt);
            }
        }
        Some(_) => {}
        None => {
            if eof {
                t.errs.at(E::EofInTag, raw, raw.len());
            }
        }
    }
    ReferenceTag { name, attributes: t.attributes, self_closing }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ParseErrorCode as E;
    use std::ops::Range;

    fn rel(r: &Range<usize>) -> Rel {
        Rel::new(r.start, r.end)
    }

    /// Runs one case: structure (with and without a callback) and errors
    /// (code, and span when given).
    #[allow(clippy::type_complexity)]
    fn check(
        raw: &[u8],
        is_end: bool,
        eof: bool,
        name: Range<usize>,
        attributes: &[(Range<usize>, Option<Range<usize>>, Quote)],
        self_closing: bool,
        want: &[(E, Option<Range<usize>>)],
    ) {
        let expected = ReferenceTag {
            name: rel(&name),
            attributes: attributes
                .iter()
                .map(|(n, v, q)| AttributeSpan { name: rel(n), value: v.as_ref().map(rel), quote: *q })
                .collect(),
            self_closing,
        };
        let show = String::from_utf8_lossy(raw);
        assert_eq!(tag(raw, is_end, eof, None), expected, "structure of {show:?}");
        let mut got: Vec<(E, Rel)> = Vec::new();
        assert_eq!(tag(raw, is_end, eof, Some(&mut |c, r| got.push((c, r)))), expected, "with a callback");
        let ok = got.len() == want.len()
            && got.iter().zip(want).all(|((c, r), (wc, wr))| c == wc && wr.as_ref().is_none_or(|wr| *r == rel(wr)));
        assert!(ok, "errors of {show:?}:\n got  {got:?}\n want {want:?}");
    }

    macro_rules! opt {
        () => {
            None
        };
        ($r:expr) => {
            Some($r)
        };
    }

    /// `name: raw, Start|End, eof => name, [(name, value, Quote), …], self_closing, [Code @ span, …];`
    macro_rules! cases {
        ($($name:ident: $raw:expr, $kind:ident, $eof:expr => $n:expr, [$(($an:expr, $av:expr, $aq:ident)),* $(,)?], $sc:expr,
            [$($code:ident $(@ $r:expr)?),* $(,)?];)*) => {
            $(
                #[test]
                fn $name() {
                    let is_end = stringify!($kind) == "End";
                    check($raw, is_end, $eof, $n, &[$(($an, $av, Quote::$aq)),*], $sc, &[$((E::$code, opt!($($r)?))),*]);
                }
            )*
        };
    }

    cases! {
        name_only: b"<a>", Start, false => 1..2, [], false, [];
        name_upper: b"<DiV>", Start, false => 1..4, [], false, [];
        self_closing: b"<br/>", Start, false => 1..3, [], true, [];
        self_closing_after_space: b"<br />", Start, false => 1..3, [], true, [];
        all_quotings: b"<a b c=d e='f' g=\"h\">", Start, false => 1..2,
            [(3..4, None, None), (5..6, Some(7..8), None), (9..10, Some(12..13), Single), (15..16, Some(18..19), Double)],
            false, [];
        whitespace_kinds: b"<a\tb\x0Cc\nd\re\r\nf>", Start, false => 1..2,
            [(3..4, None, None), (5..6, None, None), (7..8, None, None), (9..10, None, None), (12..13, None, None)],
            false, [];
        space_around_equals: b"<a b\r= \"c\">", Start, false => 1..2, [(3..4, Some(8..9), Double)], false, [];
        self_closing_after_value: b"<a b='c'/>", Start, false => 1..2, [(3..4, Some(6..7), Single)], true, [];
        unquoted_value_keeps_slash: b"<a b=c/>", Start, false => 1..2, [(3..4, Some(5..7), None)], false, [];
        solidus_then_name: b"<a/b>", Start, false => 1..2, [(3..4, None, None)], false, [UnexpectedSolidusInTag @ 3..4];
        solidus_between: b"<a b/c>", Start, false => 1..2, [(3..4, None, None), (5..6, None, None)], false,
            [UnexpectedSolidusInTag @ 5..6];
        solidus_then_space: b"<a/ >", Start, false => 1..2, [], false, [UnexpectedSolidusInTag @ 3..4];
        double_solidus: b"<a//>", Start, false => 1..2, [], true, [UnexpectedSolidusInTag @ 3..4];
        equals_starts_name: b"<a =b>", Start, false => 1..2, [(3..5, None, None)], false,
            [UnexpectedEqualsSignBeforeAttributeName @ 3..4];
        equals_name_with_value: b"<a ==b>", Start, false => 1..2, [(3..4, Some(5..6), None)], false,
            [UnexpectedEqualsSignBeforeAttributeName @ 3..4];
        quote_in_name: b"<a b\"c>", Start, false => 1..2, [(3..6, None, None)], false,
            [UnexpectedCharacterInAttributeName @ 4..5];
        quote_starts_name: b"<a 'b>", Start, false => 1..2, [(3..5, None, None)], false,
            [UnexpectedCharacterInAttributeName @ 3..4];
        less_than_in_name: b"<a b<c>", Start, false => 1..2, [(3..6, None, None)], false,
            [UnexpectedCharacterInAttributeName @ 4..5];
        less_than_in_tag_name: b"<a<b>", Start, false => 1..4, [], false, [];
        missing_value: b"<a b=>", Start, false => 1..2, [(3..4, Some(5..5), None)], false, [MissingAttributeValue @ 5..6];
        missing_value_after_space: b"<a b= >", Start, false => 1..2, [(3..4, Some(6..6), None)], false,
            [MissingAttributeValue @ 6..7];
        gt_in_double_quotes: b"<a b=\">\">", Start, false => 1..2, [(3..4, Some(6..7), Double)], false, [];
        gt_in_single_quotes: b"<a b='>'>", Start, false => 1..2, [(3..4, Some(6..7), Single)], false, [];
        empty_quoted: b"<a b=\"\">", Start, false => 1..2, [(3..4, Some(6..6), Double)], false, [];
        no_space_after_quoted: b"<a b='c'd>", Start, false => 1..2, [(3..4, Some(6..7), Single), (8..9, None, None)],
            false, [MissingWhitespaceBetweenAttributes @ 8..9];
        no_space_then_equals: b"<a b=\"c\"=d>", Start, false => 1..2, [(3..4, Some(6..7), Double), (8..10, None, None)],
            false, [MissingWhitespaceBetweenAttributes @ 8..9, UnexpectedEqualsSignBeforeAttributeName @ 8..9];
        unquoted_double_quote: b"<a b=c\"d>", Start, false => 1..2, [(3..4, Some(5..8), None)], false,
            [UnexpectedCharacterInUnquotedAttributeValue @ 6..7];
        unquoted_single_quote: b"<a b=c'd>", Start, false => 1..2, [(3..4, Some(5..8), None)], false,
            [UnexpectedCharacterInUnquotedAttributeValue @ 6..7];
        unquoted_less_than: b"<a b=c<d>", Start, false => 1..2, [(3..4, Some(5..8), None)], false,
            [UnexpectedCharacterInUnquotedAttributeValue @ 6..7];
        unquoted_equals: b"<a b=c=d>", Start, false => 1..2, [(3..4, Some(5..8), None)], false,
            [UnexpectedCharacterInUnquotedAttributeValue @ 6..7];
        unquoted_backtick: b"<a b=`c`>", Start, false => 1..2, [(3..4, Some(5..8), None)], false,
            [UnexpectedCharacterInUnquotedAttributeValue @ 5..6, UnexpectedCharacterInUnquotedAttributeValue @ 7..8];
        duplicate_plain: b"<a b b>", Start, false => 1..2, [(3..4, None, None), (5..6, None, None)], false,
            [DuplicateAttribute @ 6..7];
        duplicate_case: b"<a b B>", Start, false => 1..2, [(3..4, None, None), (5..6, None, None)], false,
            [DuplicateAttribute @ 6..7];
        duplicate_with_values: b"<h a='b' a='d'>", Start, false => 1..2, [(3..4, Some(6..7), Single), (9..10, Some(12..13), Single)],
            false, [DuplicateAttribute @ 10..11];
        duplicate_after_missing_space: b"<a a=''a>", Start, false => 1..2, [(3..4, Some(6..6), Single), (7..8, None, None)],
            false, [MissingWhitespaceBetweenAttributes @ 7..8, DuplicateAttribute @ 8..9];
        duplicate_nul_names: b"<a \0 \0>", Start, false => 1..2, [(3..4, None, None), (5..6, None, None)], false,
            [UnexpectedNullCharacter @ 3..4, UnexpectedNullCharacter @ 5..6, DuplicateAttribute @ 6..7];
        three_duplicates: b"<a x x x>", Start, false => 1..2, [(3..4, None, None), (5..6, None, None), (7..8, None, None)],
            false, [DuplicateAttribute @ 6..7, DuplicateAttribute @ 8..9];
        not_duplicate: b"<a ab a b>", Start, false => 1..2, [(3..5, None, None), (6..7, None, None), (8..9, None, None)],
            false, [];
        nul_in_tag_name: b"<A\0b>", Start, false => 1..4, [], false, [UnexpectedNullCharacter @ 2..3];
        nul_in_attribute_name: b"<a b\0c>", Start, false => 1..2, [(3..6, None, None)], false,
            [UnexpectedNullCharacter @ 4..5];
        nul_then_quote_in_name: b"<a \0\">", Start, false => 1..2, [(3..5, None, None)], false,
            [UnexpectedNullCharacter @ 3..4, UnexpectedCharacterInAttributeName @ 4..5];
        quote_then_nul_in_name: b"<a \"\0>", Start, false => 1..2, [(3..5, None, None)], false,
            [UnexpectedCharacterInAttributeName @ 3..4, UnexpectedNullCharacter @ 4..5];
        nul_in_value: b"<a b='\0'>", Start, false => 1..2, [(3..4, Some(6..7), Single)], false,
            [UnexpectedNullCharacter @ 6..7];
        nul_then_quote_unquoted: b"<a b=\0\">", Start, false => 1..2, [(3..4, Some(5..7), None)], false,
            [UnexpectedNullCharacter @ 5..6, UnexpectedCharacterInUnquotedAttributeValue @ 6..7];
        quote_then_nul_unquoted: b"<a b=x\"\0>", Start, false => 1..2, [(3..4, Some(5..8), None)], false,
            [UnexpectedCharacterInUnquotedAttributeValue @ 6..7, UnexpectedNullCharacter @ 7..8];
        reference_then_quote_unquoted: b"<a b=&#0;\"x>", Start, false => 1..2, [(3..4, Some(5..11), None)], false,
            [NullCharacterReference, UnexpectedCharacterInUnquotedAttributeValue @ 9..10];
        quote_then_reference_unquoted: b"<a b=x\"&#0;>", Start, false => 1..2, [(3..4, Some(5..11), None)], false,
            [UnexpectedCharacterInUnquotedAttributeValue @ 6..7, NullCharacterReference];
        reference_in_quoted: b"<a b='&amp;&ampx'>", Start, false => 1..2, [(3..4, Some(6..16), Single)], false, [];
        reference_without_semicolon: b"<a b='&amp'>", Start, false => 1..2, [(3..4, Some(6..10), Single)], false,
            [MissingSemicolonAfterCharacterReference];
        end_tag: b"</a>", End, false => 2..3, [], false, [];
        end_tag_space: b"</a >", End, false => 2..3, [], false, [];
        end_tag_attributes: b"</h a='b'>", End, false => 2..3, [(4..5, Some(7..8), Single)], false,
            [EndTagWithAttributes @ 9..10];
        end_tag_duplicates: b"</a b b>", End, false => 2..3, [(4..5, None, None), (6..7, None, None)], false,
            [DuplicateAttribute @ 7..8, EndTagWithAttributes @ 7..8];
        end_tag_solidus: b"</a/>", End, false => 2..3, [], true, [EndTagWithTrailingSolidus @ 4..5];
        end_tag_both: b"</a b/>", End, false => 2..3, [(4..5, None, None)], true,
            [EndTagWithAttributes @ 6..7, EndTagWithTrailingSolidus @ 6..7];
        end_tag_nul: b"</a\0>", End, false => 2..4, [], false, [UnexpectedNullCharacter @ 3..4];
        eof_in_name: b"<ab", Start, true => 1..3, [], false, [EofInTag @ 3..3];
        eof_in_end_tag_name: b"</ab", End, true => 2..4, [], false, [EofInTag @ 4..4];
        eof_before_attribute: b"<a ", Start, true => 1..2, [], false, [EofInTag @ 3..3];
        eof_in_attribute_name: b"<a b", Start, true => 1..2, [(3..4, None, None)], false, [EofInTag @ 4..4];
        eof_in_duplicate_name: b"<a b b", Start, true => 1..2, [(3..4, None, None), (5..6, None, None)], false,
            [DuplicateAttribute @ 6..6, EofInTag @ 6..6];
        eof_after_attribute_name: b"<a b ", Start, true => 1..2, [(3..4, None, None)], false, [EofInTag @ 5..5];
        eof_before_value: b"<a b=", Start, true => 1..2, [(3..4, Some(5..5), None)], false, [EofInTag @ 5..5];
        eof_in_quoted_value: b"<a b=\"c", Start, true => 1..2, [(3..4, Some(6..7), Double)], false, [EofInTag @ 7..7];
        eof_in_unquoted_value: b"<a b=c", Start, true => 1..2, [(3..4, Some(5..6), None)], false, [EofInTag @ 6..6];
        eof_after_quoted_value: b"<a b='c'", Start, true => 1..2, [(3..4, Some(6..7), Single)], false, [EofInTag @ 8..8];
        eof_after_solidus: b"<a/", Start, true => 1..2, [], false, [EofInTag @ 3..3];
        eof_reference_in_value: b"<a b='&amp", Start, true => 1..2, [(3..4, Some(6..10), Single)], false,
            [MissingSemicolonAfterCharacterReference, EofInTag @ 10..10];
        utf8_names: "<é à='ü'>".as_bytes(), Start, false => 1..3, [(4..6, Some(8..10), Single)], false, [];
        invalid_utf8_names: b"<a \xFF \xFE>", Start, false => 1..2, [(3..4, None, None), (5..6, None, None)], false,
            [DuplicateAttribute @ 6..7];
    }

    /// 100 000 attributes, all distinct or all the same name: duplicate
    /// detection must stay linear.
    #[test]
    fn many_attributes_are_linear() {
        for distinct in [true, false] {
            let mut raw = b"<a".to_vec();
            for i in 0..100_000 {
                if distinct {
                    raw.extend_from_slice(format!(" a{i}").as_bytes());
                } else {
                    raw.extend_from_slice(b" a");
                }
            }
            raw.push(b'>');
            let mut duplicates = 0;
            let t = tag(&raw, false, false, Some(&mut |c, _| duplicates += usize::from(c == E::DuplicateAttribute)));
            assert_eq!(t.attributes.len(), 100_000);
            assert_eq!(duplicates, if distinct { 0 } else { 99_999 });
        }
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

    /// Checks a tag against html5lib's token: decoded name, attributes
    /// (first of each name, as the Standard keeps them), self-closing flag
    /// and errors. `eof` cases produce no token: only errors are compared.
    fn html5lib_check(
        raw: &[u8],
        is_end: bool,
        eof: bool,
        name: &str,
        attributes: &[(&str, &str)],
        self_closing: bool,
        want: &[(&str, Option<usize>)],
    ) {
        let mut got = Vec::new();
        let t = tag(raw, is_end, eof, Some(&mut |c, r| got.push((c, r))));
        assert!(errors_match(&got, want), "errors:\n got  {got:?}\n want {want:?}");
        if eof {
            return;
        }
        assert_eq!(super::super::text::name(t.name.slice(raw), None), name);
        if is_end {
            // html5lib's end tag tokens have neither attributes nor a
            // self-closing flag (the Standard drops both, with an error).
            return;
        }
        let mut seen = HashSet::new();
        let decoded: Vec<(String, String)> = t
            .attributes
            .iter()
            .map(|a| {
                let n = super::super::text::name(a.name.slice(raw), None).into_owned();
                let v = a.value.map(|v| super::super::text::attribute_value(v.slice(raw), None).into_owned());
                (n, v.unwrap_or_default())
            })
            .filter(|(n, _)| seen.insert(n.clone()))
            .collect();
        let want_attributes: Vec<(String, String)> =
            attributes.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect();
        assert_eq!(decoded, want_attributes);
        assert_eq!(t.self_closing, self_closing);
    }

    /// `name: raw, Start|End, eof => name, [(name, value), …], self_closing, [Code @ column, …];`
    /// — cases from html5lib's tokenizer tests whose whole input is one tag.
    macro_rules! html5lib_cases {
        ($($(#[$m:meta])* $name:ident: $raw:expr, $kind:ident, $eof:expr => $n:expr, [$(($an:expr, $av:expr)),* $(,)?], $sc:expr,
            [$($code:ident $(@ $col:literal)?),* $(,)?];)*) => {
            $(
                $(#[$m])*
                #[test]
                fn $name() {
                    let want = [$(html5lib_error!($code $(@ $col)?)),*];
                    html5lib_check($raw, stringify!($kind) == "End", $eof, $n, &[$(($an, $av)),*], $sc, &want);
                }
            )*
        };
    }

    html5lib_cases! {
        // Single Start Tag
        html5lib_test1_6: b"<h>", Start, false => "h", [], false, [];
        // Start Tag w/attribute
        html5lib_test1_9: b"<h a='b'>", Start, false => "h", [("a", "b")], false, [];
        // Start Tag w/attribute no quotes
        html5lib_test1_10: b"<h a=b>", Start, false => "h", [("a", "b")], false, [];
        // Multiple atts
        html5lib_test1_14: b"<h a='b' c='d'>", Start, false => "h", [("a", "b"), ("c", "d")], false, [];
        // Multiple atts no space
        html5lib_test1_15: b"<h a='b'c='d'>", Start, false => "h", [("a", "b"), ("c", "d")], false, [MissingWhitespaceBetweenAttributes @ 9];
        // Repeated attr
        html5lib_test1_16: b"<h a='b' a='d'>", Start, false => "h", [("a", "b")], false, [DuplicateAttribute @ 11];
        // Entity in attribute without semicolon ending in x
        html5lib_test1_61: b"<h a='&notx'>", Start, false => "h", [("a", "&notx")], false, [];
        // Entity in attribute without semicolon ending in 1
        html5lib_test1_62: b"<h a='&not1'>", Start, false => "h", [("a", "&not1")], false, [];
        // Entity in attribute without semicolon ending in i
        html5lib_test1_63: b"<h a='&noti'>", Start, false => "h", [("a", "&noti")], false, [];
        // Entity in attribute without semicolon (column 12 not compared: html5lib
        // points after the reference, `attribute_value` spans the reference)
        html5lib_test1_64: b"<h a='&COPY'>", Start, false => "h", [("a", "\u{A9}")], false, [MissingSemicolonAfterCharacterReference];
        // Unquoted attribute ending in ampersand
        html5lib_test1_65: b"<s o=& t>", Start, false => "s", [("o", "&"), ("t", "")], false, [];
        // Open angled bracket in unquoted attribute value state
        html5lib_test1_68: b"<a a=f<>", Start, false => "a", [("a", "f<")], false, [UnexpectedCharacterInUnquotedAttributeValue @ 7];
        // Unescaped ampersand in attribute value
        html5lib_test2_22: b"<h a='&'>", Start, false => "h", [("a", "&")], false, [];
        // StartTag containing <
        html5lib_test2_23: b"<a<b>", Start, false => "a<b", [], false, [];
        // Non-void element containing trailing /
        html5lib_test2_24: b"<h/>", Start, false => "h", [], true, [];
        // Void element with permitted slash
        html5lib_test2_25: b"<br/>", Start, false => "br", [], true, [];
        // Void element with permitted slash (with attribute)
        html5lib_test2_26: b"<br foo='bar'/>", Start, false => "br", [("foo", "bar")], true, [];
        // StartTag containing /
        html5lib_test2_27: b"<h/a='b'>", Start, false => "h", [("a", "b")], false, [UnexpectedSolidusInTag @ 4];
        // Double-quoted attribute value
        html5lib_test2_28: b"<h a=\"b\">", Start, false => "h", [("a", "b")], false, [];
        // Start tag with no attributes but space before the greater-than sign
        html5lib_test2_37: b"<h >", Start, false => "h", [], false, [];
        // Empty attribute followed by uppercase attribute
        html5lib_test2_38: b"<h a B=''>", Start, false => "h", [("a", ""), ("b", "")], false, [];
        // Double-quote after attribute name
        html5lib_test2_39: b"<h a \">", Start, false => "h", [("a", ""), ("\"", "")], false, [UnexpectedCharacterInAttributeName @ 6];
        // Single-quote after attribute name
        html5lib_test2_40: b"<h a '>", Start, false => "h", [("a", ""), ("'", "")], false, [UnexpectedCharacterInAttributeName @ 6];
        // < in attribute name
        html5lib_test4_0: b"<z/0  <>", Start, false => "z", [("0", ""), ("<", "")], false, [UnexpectedSolidusInTag @ 4, UnexpectedCharacterInAttributeName @ 7];
        // < in unquoted attribute value
        html5lib_test4_1: b"<z x=<>", Start, false => "z", [("x", "<")], false, [UnexpectedCharacterInUnquotedAttributeValue @ 6];
        // = in unquoted attribute value
        html5lib_test4_2: b"<z z=z=z>", Start, false => "z", [("z", "z=z")], false, [UnexpectedCharacterInUnquotedAttributeValue @ 7];
        // = attribute
        html5lib_test4_3: b"<z =>", Start, false => "z", [("=", "")], false, [UnexpectedEqualsSignBeforeAttributeName @ 4];
        // == attribute
        html5lib_test4_4: b"<z ==>", Start, false => "z", [("=", "")], false, [UnexpectedEqualsSignBeforeAttributeName @ 4, MissingAttributeValue @ 6];
        // === attribute
        html5lib_test4_5: b"<z ===>", Start, false => "z", [("=", "=")], false, [UnexpectedEqualsSignBeforeAttributeName @ 4, UnexpectedCharacterInUnquotedAttributeValue @ 6];
        // ==== attribute
        html5lib_test4_6: b"<z ====>", Start, false => "z", [("=", "==")], false, [UnexpectedEqualsSignBeforeAttributeName @ 4, UnexpectedCharacterInUnquotedAttributeValue @ 6, UnexpectedCharacterInUnquotedAttributeValue @ 7];
        // " after ampersand in double-quoted attribute value
        html5lib_test4_7: b"<z z=\"&\">", Start, false => "z", [("z", "&")], false, [];
        // ' after ampersand in double-quoted attribute value
        html5lib_test4_8: b"<z z=\"&'\">", Start, false => "z", [("z", "&'")], false, [];
        // ' after ampersand in single-quoted attribute value
        html5lib_test4_9: b"<z z='&'>", Start, false => "z", [("z", "&")], false, [];
        // " after ampersand in single-quoted attribute value
        html5lib_test4_10: b"<z z='&\"'>", Start, false => "z", [("z", "&\"")], false, [];
        // Attribute name starting with "
        html5lib_test4_13: b"<foo \"='bar'>", Start, false => "foo", [("\"", "bar")], false, [UnexpectedCharacterInAttributeName @ 6];
        // Attribute name starting with '
        html5lib_test4_14: b"<foo '='bar'>", Start, false => "foo", [("'", "bar")], false, [UnexpectedCharacterInAttributeName @ 6];
        // Attribute name containing "
        html5lib_test4_15: b"<foo a\"b='bar'>", Start, false => "foo", [("a\"b", "bar")], false, [UnexpectedCharacterInAttributeName @ 7];
        // Attribute name containing '
        html5lib_test4_16: b"<foo a'b='bar'>", Start, false => "foo", [("a'b", "bar")], false, [UnexpectedCharacterInAttributeName @ 7];
        // Unquoted attribute value containing '
        html5lib_test4_17: b"<foo a=b'c>", Start, false => "foo", [("a", "b'c")], false, [UnexpectedCharacterInUnquotedAttributeValue @ 9];
        // Unquoted attribute value containing "
        html5lib_test4_18: b"<foo a=b\"c>", Start, false => "foo", [("a", "b\"c")], false, [UnexpectedCharacterInUnquotedAttributeValue @ 9];
        // Double-quoted attribute value not followed by whitespace
        html5lib_test4_19: b"<foo a=\"b\"c>", Start, false => "foo", [("a", "b"), ("c", "")], false, [MissingWhitespaceBetweenAttributes @ 11];
        // Single-quoted attribute value not followed by whitespace
        html5lib_test4_20: b"<foo a='b'c>", Start, false => "foo", [("a", "b"), ("c", "")], false, [MissingWhitespaceBetweenAttributes @ 11];
        // Quoted attribute followed by permitted /
        html5lib_test4_21: b"<br a='b'/>", Start, false => "br", [("a", "b")], true, [];
        // Quoted attribute followed by non-permitted /
        html5lib_test4_22: b"<bar a='b'/>", Start, false => "bar", [("a", "b")], true, [];
        // CR EOF in tag name
        html5lib_test4_24: b"<z\r", Start, true => "", [], false, [EofInTag];
        // Slash EOF in tag name
        html5lib_test4_25: b"<z/", Start, true => "", [], false, [EofInTag @ 4];
        // Uppercase start tag name
        html5lib_test4_43: b"<X>", Start, false => "x", [], false, [];
        // Uppercase end tag name
        html5lib_test4_44: b"</X>", End, false => "x", [], false, [];
        // Uppercase attribute name
        html5lib_test4_45: b"<x X>", Start, false => "x", [("x", "")], false, [];
        // Tag/attribute name case edge values
        html5lib_test4_46: b"<x@AZ[`az{ @AZ[`az{>", Start, false => "x@az[`az{", [("@az[`az{", "")], false, [];
        // Duplicate different-case attributes
        html5lib_test4_47: b"<x x=1 x=2 X=3>", Start, false => "x", [("x", "1")], false, [DuplicateAttribute @ 9, DuplicateAttribute @ 13];
        // Uppercase close tag attributes
        html5lib_test4_48: b"</x X>", End, false => "x", [], false, [EndTagWithAttributes @ 6];
        // Duplicate close tag attributes
        html5lib_test4_49: b"</x x x>", End, false => "x", [], false, [DuplicateAttribute @ 8, EndTagWithAttributes @ 8];
        // Permitted slash
        html5lib_test4_50: b"<br/>", Start, false => "br", [], true, [];
        // Non-permitted slash
        html5lib_test4_51: b"<xr/>", Start, false => "xr", [], true, [];
        // Permitted slash but in close tag
        html5lib_test4_52: b"</br/>", End, false => "br", [], false, [EndTagWithTrailingSolidus @ 6];
        // Grave accent in unquoted attribute
        html5lib_test4_75: b"<a a=aa`>", Start, false => "a", [("a", "aa`")], false, [UnexpectedCharacterInUnquotedAttributeValue @ 8];
        // EOF in tag name state
        html5lib_test4_76: b"<a", Start, true => "", [], false, [EofInTag @ 3];
        // EOF in before attribute name state
        html5lib_test4_77: b"<a ", Start, true => "", [], false, [EofInTag @ 4];
        // EOF in attribute name state
        html5lib_test4_78: b"<a a", Start, true => "", [], false, [EofInTag @ 5];
        // EOF in after attribute name state
        html5lib_test4_79: b"<a a ", Start, true => "", [], false, [EofInTag @ 6];
        // EOF in before attribute value state
        html5lib_test4_80: b"<a a =", Start, true => "", [], false, [EofInTag @ 7];
        // EOF in attribute value (double quoted) state
        html5lib_test4_81: b"<a a =\"a", Start, true => "", [], false, [EofInTag @ 9];
        // EOF in attribute value (single quoted) state
        html5lib_test4_82: b"<a a ='a", Start, true => "", [], false, [EofInTag @ 9];
        // EOF in attribute value (unquoted) state
        html5lib_test4_83: b"<a a =a", Start, true => "", [], false, [EofInTag @ 8];
        // EOF in after attribute value state
        html5lib_test4_84: b"<a a ='a'", Start, true => "", [], false, [EofInTag @ 10];
        // Non BMP-charref in attribute
        html5lib_domjs_32: b"<p id=\"&NotEqualTilde;\">", Start, false => "p", [("id", "\u{2242}\u{338}")], false, [];
        // Undefined named entity in a double-quoted attribute value ending in semicolon and whose name starts with a known entity name.
        html5lib_entities_0: b"<h a=\"&noti;\">", Start, false => "h", [("a", "&noti;")], false, [];
        // Entity name requiring semicolon instead followed by the equals sign in a double-quoted attribute value.
        html5lib_entities_1: b"<h a=\"&lang=\">", Start, false => "h", [("a", "&lang=")], false, [];
        // Valid entity name followed by the equals sign in a double-quoted attribute value.
        html5lib_entities_2: b"<h a=\"&not=\">", Start, false => "h", [("a", "&not=")], false, [];
        // Undefined named entity in a single-quoted attribute value ending in semicolon and whose name starts with a known entity name.
        html5lib_entities_3: b"<h a='&noti;'>", Start, false => "h", [("a", "&noti;")], false, [];
        // Entity name requiring semicolon instead followed by the equals sign in a single-quoted attribute value.
        html5lib_entities_4: b"<h a='&lang='>", Start, false => "h", [("a", "&lang=")], false, [];
        // Valid entity name followed by the equals sign in a single-quoted attribute value.
        html5lib_entities_5: b"<h a='&not='>", Start, false => "h", [("a", "&not=")], false, [];
        // Undefined named entity in an unquoted attribute value ending in semicolon and whose name starts with a known entity name.
        html5lib_entities_6: b"<h a=&noti;>", Start, false => "h", [("a", "&noti;")], false, [];
        // Entity name requiring semicolon instead followed by the equals sign in an unquoted attribute value.
        html5lib_entities_7: b"<h a=&lang=>", Start, false => "h", [("a", "&lang=")], false, [UnexpectedCharacterInUnquotedAttributeValue @ 11];
        // Valid entity name followed by the equals sign in an unquoted attribute value.
        html5lib_entities_8: b"<h a=&not=>", Start, false => "h", [("a", "&not=")], false, [UnexpectedCharacterInUnquotedAttributeValue @ 10];
    }

    /// Errors come in source order and lie inside `raw`.
    fn in_order(got: &[(E, Rel)], len: usize) -> bool {
        got.windows(2).all(|w| w[0].1.start <= w[1].1.start)
            && got.iter().all(|(_, r)| r.start <= r.end && r.end <= len)
    }

    /// Bytes that matter to the tag states, plus some that do not.
    const ALPHABET: &[u8] = b"<>/='\"`!?&#;x1aB \t\n\r\x0C\0\xC3\xA9";

    proptest::proptest! {
        /// Any bytes after `<a` or `</a`, cut by the end of the input: the
        /// spans are in order and in bounds, the errors in source order, and
        /// the structure does not depend on the callback.
        #[test]
        fn invariants(
            is_end in proptest::bool::ANY,
            rest in proptest::collection::vec(proptest::sample::select(ALPHABET.to_vec()), 0..40),
        ) {
            let mut raw = if is_end { b"</a".to_vec() } else { b"<a".to_vec() };
            raw.extend(rest);
            let mut got = Vec::new();
            let t = tag(&raw, is_end, true, Some(&mut |c, r| got.push((c, r))));
            proptest::prop_assert_eq!(&t, &tag(&raw, is_end, true, None));
            proptest::prop_assert!(in_order(&got, raw.len()), "{:?}", got);
            let mut end = t.name.end;
            for a in &t.attributes {
                proptest::prop_assert!(end <= a.name.start && a.name.start < a.name.end);
                end = a.name.end;
                if let Some(v) = a.value {
                    proptest::prop_assert!(end < v.start || (end <= v.start && v.is_empty()));
                    end = v.end;
                }
            }
            proptest::prop_assert!(end <= raw.len());
            let closed = !got.iter().any(|(c, _)| *c == E::EofInTag);
            // A tag closed by a `>` parses the same without the bytes after it.
            if closed {
                let gt = (end.max(t.name.end)..raw.len()).find(|&i| raw[i] == b'>').unwrap();
                proptest::prop_assert_eq!(&tag(&raw[..=gt], is_end, false, None), &t);
            }
        }
    }
}
