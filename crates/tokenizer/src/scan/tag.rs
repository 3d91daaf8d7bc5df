//! Tag states: tag name, attributes, self-closing start tag
//! ([§13.2.5.8](https://html.spec.whatwg.org/multipage/parsing.html#tag-name-state) and
//! [§13.2.5.32–40](https://html.spec.whatwg.org/multipage/parsing.html#before-attribute-name-state)).
//!
//! The scanner records the spans of the name and of each attribute as it
//! goes; the errors these states can raise are reported by the reference
//! tag parser in `decode/tag.rs` when asked.

use super::{find_byte, load};
use crate::tokenizer::is_space;
use crate::{AttributeSpan, Quote, Rel, State, TokenSink, Tokenizer};

/// Byte classes of the tag states, one bit per class, looked up once per byte.
const SPACE: u8 = 1;
/// Bytes that end a tag name: whitespace, `/`, `>`.
const TAG_NAME_END: u8 = 2;
/// Bytes that end an attribute name: whitespace, `/`, `>`, `=`.
const ATTRIBUTE_NAME_END: u8 = 4;
/// Bytes that end an unquoted attribute value: whitespace, `>`.
const UNQUOTED_VALUE_END: u8 = 8;

static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let all = SPACE | TAG_NAME_END | ATTRIBUTE_NAME_END | UNQUOTED_VALUE_END;
    t[b'\t' as usize] = all;
    t[b'\n' as usize] = all;
    t[0x0C] = all;
    t[b'\r' as usize] = all;
    t[b' ' as usize] = all;
    t[b'/' as usize] = TAG_NAME_END | ATTRIBUTE_NAME_END;
    t[b'>' as usize] = TAG_NAME_END | ATTRIBUTE_NAME_END | UNQUOTED_VALUE_END;
    t[b'=' as usize] = ATTRIBUTE_NAME_END;
    t
};

/// The index of the first byte at or after `from` in `class`, or `hay.len()`.
///
/// Eight bytes at a time while eight remain: [`stop_candidates`] flags the
/// bytes that may be in the class, and the first flagged one is checked in
/// the table (a control byte below 0x21 other than whitespace is flagged but
/// is no stop). The tail goes byte by byte. `naive_find_class` in the tests
/// is the reference.
#[inline(always)]
fn find_class(hay: &[u8], from: usize, class: u8) -> usize {
    let mut j = from;
    while let Some(word) = hay.get(j..j + 8) {
        let flags = stop_candidates(load(word), class);
        if flags == 0 {
            j += 8;
            continue;
        }
        let k = j + (flags.trailing_zeros() / 8) as usize;
        if CLASS[hay[k] as usize] & class != 0 {
            return k;
        }
        j = k + 1;
    }
    while j < hay.len() && CLASS[hay[j] as usize] & class == 0 {
        j += 1;
    }
    j
}

/// [`find_class`] for a run that is usually short: a tag name after its
/// first letter (`a`, `li`, `div`, `span`: most tags) or an attribute name
/// after its first byte (`id`, `href`, `src`). The first four bytes are
/// taken with one bounds check and checked one by one in the table, which
/// costs fewer instructions than the eight-byte scan's set-up; the scan goes
/// on after them (or does it all when fewer than four bytes are left).
/// `from` is at most `hay.len()`.
///
/// Measured (callgrind, the lol-html bench pages through the pass-through
/// rewriter): tokenizer stage 10,334,297 instructions with only the first
/// byte of a tag name checked before `find_class`, 9,894,962 with four
/// (each bounds-checked), 9,863,926 with the four taken as one array; five
/// and six gained nothing more. Attribute names: 35,000 more with four
/// bounds-checked bytes, 160,000 fewer (9,703,363) with the array; six
/// bytes in a loop, about the same.
#[inline(always)]
fn find_class_short(hay: &[u8], from: usize, class: u8) -> usize {
    let Some(head) = hay[from..].first_chunk::<4>() else {
        // Fewer than four bytes left: `find_class` goes byte by byte.
        return find_class(hay, from, class);
    };
    let ends = |b: u8| CLASS[b as usize] & class != 0;
    let [b0, b1, b2, b3] = *head;
    if ends(b0) {
        from
    } else if ends(b1) {
        from + 1
    } else if ends(b2) {
        from + 2
    } else if ends(b3) {
        from + 3
    } else {
        find_class(hay, from + 4, class)
    }
}

/// Flags (bit 7 of the byte) bytes of the little-endian word `x` that are
/// below 0x21, or `>`, or (for names) `/`, or (for attribute names) `=`:
/// a superset of `class` (whitespace is below 0x21; for attribute names
/// `<`, `=`, `>`, `?` are flagged together as 0x3C..=0x3F). Only the lowest
/// flag is exact (a borrow may flag bytes above it), which is all
/// `find_class` uses.
#[inline(always)]
fn stop_candidates(x: u64, class: u8) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Bytes of `y` below `n` (n <= 0x80).
    let below = |y: u64, n: u8| y.wrapping_sub(ONES * n as u64) & !y;
    let mut flags = below(x, 0x21);
    if class & ATTRIBUTE_NAME_END != 0 {
        flags |= below(x ^ (ONES * 0x3C), 4);
    } else {
        flags |= below(x ^ (ONES * b'>' as u64), 1);
    }
    if class & (TAG_NAME_END | ATTRIBUTE_NAME_END) != 0 {
        flags |= below(x ^ (ONES * b'/' as u64), 1);
    }
    flags & HIGH
}

/// The index of the first byte at or after `from` that is not whitespace, or `hay.len()`.
///
/// After a line feed, indentation is skipped eight spaces at a time.
#[inline(always)]
fn skip_space(hay: &[u8], from: usize) -> usize {
    const SPACES: u64 = u64::from_le_bytes([b' '; 8]);
    let mut j = from;
    while j < hay.len() {
        let b = hay[j];
        if CLASS[b as usize] & SPACE == 0 {
            break;
        }
        j += 1;
        if b == b'\n' {
            while let Some(word) = hay.get(j..j + 8)
                && load(word) == SPACES
            {
                j += 8;
            }
        }
    }
    j
}

/// The tag name `chunk[start..end]` packed as [`pack_name`] packs it
/// (lowercased), a word at a time, for [`Token::packed_tag_name`]: one load,
/// the bytes past the name masked off, a test for NUL and the letters
/// `A`–`Z` lowercased in the word. 0 when eight bytes from `start` do not
/// lie in the chunk (a name near the chunk's end, or begun in an earlier
/// chunk: `start` wrapped past it) or when the name does not pack; the
/// token packs it then. `pack_name` is the reference
/// (`scanned_name_word_is_pack_name` in the tests; debug builds check each
/// word against it when the token is delivered).
///
/// [`pack_name`]: crate::pack_name
/// [`Token::packed_tag_name`]: crate::Token::packed_tag_name
#[inline(always)]
fn scanned_name_word(chunk: &[u8], start: usize, end: usize) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let len = end.wrapping_sub(start);
    let Some(word) = chunk.get(start..).and_then(<[u8]>::first_chunk::<8>) else {
        return 0;
    };
    if len.wrapping_sub(1) >= 8 {
        return 0;
    }
    // The name's bytes: those past it are masked off (zero padding).
    let name_bytes = u64::MAX >> (64 - 8 * len);
    let word = u64::from_le_bytes(*word) & name_bytes;
    // A NUL among the name's bytes: `pack_name` packs none (the lowest flag
    // is exact, and the zero padding lies above the name's bytes).
    if word.wrapping_sub(ONES) & !word & HIGH & name_bytes != 0 {
        return 0;
    }
    // ASCII upper-case letters: bytes below 0x80 in `A..=Z` (each byte's
    // low seven bits plus 0x3F, or 0x25, carry into bit 7 from `A`, or
    // from the byte after `Z`, on: no carry leaves a byte).
    let low = word & !HIGH;
    let upper = low.wrapping_add(ONES * 0x3F) & !low.wrapping_add(ONES * 0x25) & !word & HIGH;
    word | upper >> 2
}

impl Tokenizer {
    /// [Tag name state](https://html.spec.whatwg.org/multipage/parsing.html#tag-name-state),
    /// and the attribute states after it in one pass while the tag lies in
    /// this chunk.
    ///
    /// The common shapes (`<name>`, `<name a="v" b='v' c=v>`, `<name/>`) run
    /// here in tight loops with no dispatch between states; at anything else
    /// (a space before `=`, a `/` not followed by `>`, the end of the chunk)
    /// it stops in the state the Standard is in at that byte, with the tag
    /// scratch as the single-state handlers below would have left it, and
    /// those handlers go on from there.
    #[inline(never)]
    pub(crate) fn tag_name<S: TokenSink + ?Sized>(&mut self, chunk: &[u8], base: u64, i: usize, sink: &mut S) -> usize {
        let origin = self.token_start.wrapping_sub(base) as usize;
        self.scan_tag(chunk, base, origin, i, sink)
    }

    /// The body of [`Tokenizer::tag_name`], inlined into the data state's
    /// loop. `origin` is the index of the token's first byte in `chunk`
    /// (wrapped below zero when the token began in an earlier chunk).
    #[inline(always)]
    pub(crate) fn scan_tag<S: TokenSink + ?Sized>(
        &mut self,
        chunk: &[u8],
        base: u64,
        origin: usize,
        i: usize,
        sink: &mut S,
    ) -> usize {
        let len = chunk.len();
        let mut j = find_class_short(chunk, i, TAG_NAME_END);
        if j == len {
            self.state = State::TagName;
            return j;
        }
        // `rel(j)`: the offset of `chunk[j]` in the token.
        let rel = |j: usize| j.wrapping_sub(origin);
        self.name.end = rel(j);
        let gt = loop {
            // Before attribute name state (also reached from the tag name
            // and after attribute value states: whitespace, `/` and `>` do
            // the same there, and anything else is reconsumed here).
            if chunk.get(j) == Some(&b'>') {
                break j;
            }
            j = skip_space(chunk, j);
            if j == len {
                self.state = State::BeforeAttributeName;
                return j;
            }
            match chunk[j] {
                b'>' => break j,
                b'/' => {
                    // Self-closing start tag state, when its `>` is here.
                    if chunk.get(j + 1) == Some(&b'>') {
                        self.self_closing = true;
                        break j + 1;
                    }
                    self.state = State::SelfClosingStartTag;
                    return j + 1;
                }
                _ => {}
            }
            // Attribute name state: the name starts here (`=` included).
            // The attribute is built in locals and stored in `self.attr` when
            // it is pushed or when the scan stops inside it.
            let name_start = rel(j);
            j = find_class_short(chunk, j + 1, ATTRIBUTE_NAME_END);
            if j == len {
                self.attr = AttributeSpan { name: Rel::new(name_start, name_start), value: None, quote: Quote::None };
                self.state = State::AttributeName;
                return j;
            }
            let name = Rel::new(name_start, rel(j));
            match chunk[j] {
                b'=' => j += 1,
                b'>' => {
                    self.push_attribute(AttributeSpan { name, value: None, quote: Quote::None });
                    break j;
                }
                _ => {
                    // Whitespace or `/`: the after attribute name state.
                    self.attr = AttributeSpan { name, value: None, quote: Quote::None };
                    self.state = State::AfterAttributeName;
                    return j;
                }
            }
            // Before attribute value state.
            let Some(&b) = chunk.get(j) else {
                self.attr = AttributeSpan { name, value: None, quote: Quote::None };
                self.state = State::BeforeAttributeValue;
                return j;
            };
            match b {
                b'"' | b'\'' => {
                    // Attribute value (double- or single-quoted) state.
                    let at = rel(j + 1);
                    let quote = if b == b'"' { Quote::Double } else { Quote::Single };
                    let Some(k) = find_byte(b, &chunk[j + 1..]) else {
                        self.attr = AttributeSpan { name, value: Some(Rel::new(at, at)), quote };
                        self.state = if b == b'"' {
                            State::AttributeValueDoubleQuoted
                        } else {
                            State::AttributeValueSingleQuoted
                        };
                        return len;
                    };
                    j += 1 + k;
                    self.push_attribute(AttributeSpan { name, value: Some(Rel::new(at, rel(j))), quote });
                    j += 1;
                    // After attribute value (quoted) state: whitespace, `/`
                    // and `>` act as in the before attribute name state, and
                    // anything else is reconsumed there.
                    if j == len {
                        self.state = State::AfterAttributeValueQuoted;
                        return j;
                    }
                }
                b if CLASS[b as usize] & UNQUOTED_VALUE_END == 0 => {
                    // Attribute value (unquoted) state.
                    let at = rel(j);
                    j = find_class(chunk, j + 1, UNQUOTED_VALUE_END);
                    if j == len {
                        self.attr = AttributeSpan { name, value: Some(Rel::new(at, at)), quote: Quote::None };
                        self.state = State::AttributeValueUnquoted;
                        return j;
                    }
                    self.push_attribute(AttributeSpan { name, value: Some(Rel::new(at, rel(j))), quote: Quote::None });
                    if chunk.get(j) == Some(&b'>') {
                        break j;
                    }
                    j += 1;
                }
                _ => {
                    // Whitespace or `>`.
                    self.attr = AttributeSpan { name, value: None, quote: Quote::None };
                    self.state = State::BeforeAttributeValue;
                    return j;
                }
            }
        };
        let name_word =
            scanned_name_word(chunk, origin.wrapping_add(self.name.start), origin.wrapping_add(self.name.end));
        self.emit_tag_at(chunk, base, origin..=gt, name_word, sink)
    }

    /// Pushes a finished attribute built in locals. `self.attr` holds only
    /// an attribute in progress and is the default otherwise (the
    /// single-state handlers take it when they push), so it is left alone.
    #[inline(always)]
    fn push_attribute(&mut self, attr: AttributeSpan) {
        debug_assert_eq!(self.attr, AttributeSpan::default());
        self.attrs.push(attr);
    }

    /// [Before attribute name state](https://html.spec.whatwg.org/multipage/parsing.html#before-attribute-name-state).
    pub(crate) fn before_attribute_name<S: TokenSink + ?Sized>(
        &mut self,
        chunk: &[u8],
        base: u64,
        i: usize,
        sink: &mut S,
    ) -> usize {
        let j = skip_space(chunk, i);
        if j == chunk.len() {
            return j;
        }
        match chunk[j] {
            // spec: "/", ">": reconsume in the after attribute name state.
            b'/' => {
                self.state = State::SelfClosingStartTag;
                j + 1
            }
            b'>' => self.emit_tag(chunk, base, j, sink),
            // spec: "=": unexpected-equals-sign-before-attribute-name; start an
            // attribute whose name is "=". Anything else starts a name too.
            _ => {
                let at = self.rel(base, j);
                self.attr = AttributeSpan { name: Rel::new(at, at), value: None, quote: Quote::None };
                self.state = State::AttributeName;
                j + 1
            }
        }
    }

    /// [Attribute name state](https://html.spec.whatwg.org/multipage/parsing.html#attribute-name-state).
    pub(crate) fn attribute_name(&mut self, chunk: &[u8], base: u64, i: usize) -> usize {
        let j = find_class(chunk, i, ATTRIBUTE_NAME_END);
        if j == chunk.len() {
            return j;
        }
        self.attr.name.end = self.rel(base, j);
        if chunk[j] == b'=' {
            self.state = State::BeforeAttributeValue;
            j + 1
        } else {
            // spec: whitespace, "/", ">": reconsume in the after attribute name state.
            self.state = State::AfterAttributeName;
            j
        }
    }

    /// [After attribute name state](https://html.spec.whatwg.org/multipage/parsing.html#after-attribute-name-state).
    pub(crate) fn after_attribute_name<S: TokenSink + ?Sized>(
        &mut self,
        chunk: &[u8],
        base: u64,
        i: usize,
        sink: &mut S,
    ) -> usize {
        let j = skip_space(chunk, i);
        if j == chunk.len() {
            return j;
        }
        match chunk[j] {
            b'=' => {
                self.state = State::BeforeAttributeValue;
                j + 1
            }
            b'/' => {
                self.attrs.push(std::mem::take(&mut self.attr));
                self.state = State::SelfClosingStartTag;
                j + 1
            }
            b'>' => {
                self.attrs.push(std::mem::take(&mut self.attr));
                self.emit_tag(chunk, base, j, sink)
            }
            _ => {
                self.attrs.push(std::mem::take(&mut self.attr));
                let at = self.rel(base, j);
                self.attr = AttributeSpan { name: Rel::new(at, at), value: None, quote: Quote::None };
                self.state = State::AttributeName;
                j + 1
            }
        }
    }

    /// [Before attribute value state](https://html.spec.whatwg.org/multipage/parsing.html#before-attribute-value-state).
    pub(crate) fn before_attribute_value<S: TokenSink + ?Sized>(
        &mut self,
        chunk: &[u8],
        base: u64,
        i: usize,
        sink: &mut S,
    ) -> usize {
        let j = skip_space(chunk, i);
        if j == chunk.len() {
            return j;
        }
        match chunk[j] {
            b'"' => {
                let at = self.rel(base, j + 1);
                self.attr.value = Some(Rel::new(at, at));
                self.attr.quote = Quote::Double;
                self.state = State::AttributeValueDoubleQuoted;
                j + 1
            }
            b'\'' => {
                let at = self.rel(base, j + 1);
                self.attr.value = Some(Rel::new(at, at));
                self.attr.quote = Quote::Single;
                self.state = State::AttributeValueSingleQuoted;
                j + 1
            }
            b'>' => {
                // spec: missing-attribute-value; emit the tag.
                let at = self.rel(base, j);
                self.attr.value = Some(Rel::new(at, at));
                self.attrs.push(std::mem::take(&mut self.attr));
                self.emit_tag(chunk, base, j, sink)
            }
            _ => {
                let at = self.rel(base, j);
                self.attr.value = Some(Rel::new(at, at));
                self.state = State::AttributeValueUnquoted;
                j
            }
        }
    }

    /// Attribute value (double-quoted / single-quoted) states
    /// ([§13.2.5.36](https://html.spec.whatwg.org/multipage/parsing.html#attribute-value-(double-quoted)-state),
    /// [§13.2.5.37](https://html.spec.whatwg.org/multipage/parsing.html#attribute-value-(single-quoted)-state)).
    pub(crate) fn attribute_value_quoted(&mut self, chunk: &[u8], base: u64, i: usize, quote: u8) -> usize {
        let Some(k) = find_byte(quote, &chunk[i..]) else {
            return chunk.len();
        };
        let j = i + k;
        if let Some(v) = &mut self.attr.value {
            v.end = (base + j as u64 - self.token_start) as usize;
        }
        self.attrs.push(std::mem::take(&mut self.attr));
        self.state = State::AfterAttributeValueQuoted;
        j + 1
    }

    /// [Attribute value (unquoted) state](https://html.spec.whatwg.org/multipage/parsing.html#attribute-value-(unquoted)-state).
    pub(crate) fn attribute_value_unquoted<S: TokenSink + ?Sized>(
        &mut self,
        chunk: &[u8],
        base: u64,
        i: usize,
        sink: &mut S,
    ) -> usize {
        let j = find_class(chunk, i, UNQUOTED_VALUE_END);
        if j == chunk.len() {
            return j;
        }
        if let Some(v) = &mut self.attr.value {
            v.end = (base + j as u64 - self.token_start) as usize;
        }
        self.attrs.push(std::mem::take(&mut self.attr));
        if chunk[j] == b'>' {
            self.emit_tag(chunk, base, j, sink)
        } else {
            self.state = State::BeforeAttributeName;
            j + 1
        }
    }

    /// [After attribute value (quoted) state](https://html.spec.whatwg.org/multipage/parsing.html#after-attribute-value-(quoted)-state).
    pub(crate) fn after_attribute_value_quoted<S: TokenSink + ?Sized>(
        &mut self,
        chunk: &[u8],
        base: u64,
        i: usize,
        sink: &mut S,
    ) -> usize {
        match chunk[i] {
            b if is_space(b) => {
                self.state = State::BeforeAttributeName;
                i + 1
            }
            b'/' => {
                self.state = State::SelfClosingStartTag;
                i + 1
            }
            b'>' => self.emit_tag(chunk, base, i, sink),
            _ => {
                // spec: missing-whitespace-between-attributes; reconsume in the
                // before attribute name state.
                self.state = State::BeforeAttributeName;
                i
            }
        }
    }

    /// [Self-closing start tag state](https://html.spec.whatwg.org/multipage/parsing.html#self-closing-start-tag-state).
    pub(crate) fn self_closing_start_tag<S: TokenSink + ?Sized>(
        &mut self,
        chunk: &[u8],
        base: u64,
        i: usize,
        sink: &mut S,
    ) -> usize {
        if chunk[i] == b'>' {
            self.self_closing = true;
            self.emit_tag(chunk, base, i, sink)
        } else {
            // spec: unexpected-solidus-in-tag; reconsume in the before attribute name state.
            self.state = State::BeforeAttributeName;
            i
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{
        ATTRIBUTE_NAME_END, TAG_NAME_END, UNQUOTED_VALUE_END, find_class, find_class_short, scanned_name_word,
        skip_space,
    };
    use crate::tokenizer::is_space;
    use proptest::prelude::*;

    #[test]
    fn scanned_name_word_packs_every_short_name() {
        // Every byte value at every place of names of 1 to 8 bytes, lower- and
        // upper-case letters, NUL and bytes from 0x80 among them.
        for len in 1..=8 {
            for at in 0..len {
                for b in 0..=255u8 {
                    let mut chunk = *b"zQ9-x_Yk>tail....";
                    chunk[at] = b;
                    let want = crate::pack_name(&chunk[..len], true).unwrap_or(0);
                    assert_eq!(scanned_name_word(&chunk, 0, len), want, "{:?}", &chunk[..len]);
                }
            }
        }
    }

    /// The reference: the first byte at or after `from` that ends the run, by the Standard's lists.
    fn naive_find_class(hay: &[u8], from: usize, class: u8) -> usize {
        let ends = |b: u8| match class {
            TAG_NAME_END => is_space(b) || b == b'/' || b == b'>',
            ATTRIBUTE_NAME_END => is_space(b) || b == b'/' || b == b'>' || b == b'=',
            UNQUOTED_VALUE_END => is_space(b) || b == b'>',
            _ => unreachable!(),
        };
        hay[from..].iter().position(|&b| ends(b)).map_or(hay.len(), |k| from + k)
    }

    fn tag_byte() -> impl Strategy<Value = u8> {
        prop_oneof![
            4 => Just(b'a'),
            1 => prop::sample::select(b"\t\n\x0C\r />=\"'\x00\x01\x1f\x20!\xa0\xbe\xff".to_vec()),
            1 => any::<u8>(),
        ]
    }

    proptest! {
        /// `scanned_name_word` is `pack_name` of the span when eight bytes
        /// from its start lie in the chunk, and 0 otherwise.
        #[test]
        fn scanned_name_word_is_pack_name(chunk in proptest::collection::vec(any::<u8>(), 0..24), start in 0usize..24, len in 0usize..12) {
            let end = start + len;
            let word = scanned_name_word(&chunk, start, end);
            let packed = chunk.get(start..end).and_then(|name| crate::pack_name(name, true));
            if chunk.len() >= start + 8 {
                prop_assert_eq!(word, packed.unwrap_or(0));
            } else {
                prop_assert_eq!(word, 0);
            }
        }

        /// `find_class` (eight bytes at a time), `find_class_short` and `skip_space` equal the obvious scans.
        #[test]
        fn find_class_is_naive(hay in proptest::collection::vec(tag_byte(), 0..64), from in 0usize..64) {
            let from = from.min(hay.len());
            for class in [TAG_NAME_END, ATTRIBUTE_NAME_END, UNQUOTED_VALUE_END] {
                prop_assert_eq!(find_class(&hay, from, class), naive_find_class(&hay, from, class), "class {}", class);
                prop_assert_eq!(find_class_short(&hay, from, class), naive_find_class(&hay, from, class), "short, class {}", class);
            }
            let naive = hay[from..].iter().position(|&b| !is_space(b)).map_or(hay.len(), |k| from + k);
            prop_assert_eq!(skip_space(&hay, from), naive);
        }
    }
}
