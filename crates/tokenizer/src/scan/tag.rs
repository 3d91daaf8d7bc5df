//! Tag states: tag name, attributes, self-closing start tag
//! ([§13.2.5.8](https://html.spec.whatwg.org/multipage/parsing.html#tag-name-state) and
//! [§13.2.5.32–40](https://html.spec.whatwg.org/multipage/parsing.html#before-attribute-name-state)).
//!
//! The scanner records the spans of the name and of each attribute as it
//! goes; the errors these states can raise are reported by the reference
//! tag parser in `decode/tag.rs` when asked.

use crate::tokenizer::is_space;
use crate::{AttributeSpan, Quote, Rel, State, TokenSink, Tokenizer};

/// Bytes that end a tag name: whitespace, `/`, `>`.
const fn tag_name_end_table() -> [bool; 256] {
    let mut t = [false; 256];
    t[b'\t' as usize] = true;
    t[b'\n' as usize] = true;
    t[0x0C] = true;
    t[b'\r' as usize] = true;
    t[b' ' as usize] = true;
    t[b'/' as usize] = true;
    t[b'>' as usize] = true;
    t
}
static TAG_NAME_END: [bool; 256] = tag_name_end_table();

/// Bytes that end an attribute name: whitespace, `/`, `>`, `=`.
static ATTRIBUTE_NAME_END: [bool; 256] = {
    let mut t = tag_name_end_table();
    t[b'=' as usize] = true;
    t
};

/// Bytes that end an unquoted attribute value: whitespace, `>`.
static UNQUOTED_VALUE_END: [bool; 256] = {
    let mut t = tag_name_end_table();
    t[b'/' as usize] = false;
    t
};

impl Tokenizer {
    /// [Tag name state](https://html.spec.whatwg.org/multipage/parsing.html#tag-name-state).
    pub(crate) fn tag_name<S: TokenSink + ?Sized>(&mut self, chunk: &[u8], base: u64, i: usize, sink: &mut S) -> usize {
        let Some(k) = chunk[i..].iter().position(|&b| TAG_NAME_END[b as usize]) else {
            return chunk.len();
        };
        let j = i + k;
        self.name.end = self.rel(base, j);
        match chunk[j] {
            b'/' => {
                self.state = State::SelfClosingStartTag;
                j + 1
            }
            b'>' => self.emit_tag(chunk, base, j, sink),
            _ => {
                self.state = State::BeforeAttributeName;
                j + 1
            }
        }
    }

    /// [Before attribute name state](https://html.spec.whatwg.org/multipage/parsing.html#before-attribute-name-state).
    pub(crate) fn before_attribute_name<S: TokenSink + ?Sized>(
        &mut self,
        chunk: &[u8],
        base: u64,
        i: usize,
        sink: &mut S,
    ) -> usize {
        let Some(k) = chunk[i..].iter().position(|&b| !is_space(b)) else {
            return chunk.len();
        };
        let j = i + k;
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
        let Some(k) = chunk[i..].iter().position(|&b| ATTRIBUTE_NAME_END[b as usize]) else {
            return chunk.len();
        };
        let j = i + k;
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
        let Some(k) = chunk[i..].iter().position(|&b| !is_space(b)) else {
            return chunk.len();
        };
        let j = i + k;
        match chunk[j] {
            b'=' => {
                self.state = State::BeforeAttributeValue;
                j + 1
            }
            b'/' => {
                self.attrs.push(self.attr);
                self.state = State::SelfClosingStartTag;
                j + 1
            }
            b'>' => {
                self.attrs.push(self.attr);
                self.emit_tag(chunk, base, j, sink)
            }
            _ => {
                self.attrs.push(self.attr);
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
        let Some(k) = chunk[i..].iter().position(|&b| !is_space(b)) else {
            return chunk.len();
        };
        let j = i + k;
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
                self.attrs.push(self.attr);
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
        let Some(k) = memchr::memchr(quote, &chunk[i..]) else {
            return chunk.len();
        };
        let j = i + k;
        if let Some(v) = &mut self.attr.value {
            v.end = (base + j as u64 - self.token_start) as usize;
        }
        self.attrs.push(self.attr);
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
        let Some(k) = chunk[i..].iter().position(|&b| UNQUOTED_VALUE_END[b as usize]) else {
            return chunk.len();
        };
        let j = i + k;
        if let Some(v) = &mut self.attr.value {
            v.end = (base + j as u64 - self.token_start) as usize;
        }
        self.attrs.push(self.attr);
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
