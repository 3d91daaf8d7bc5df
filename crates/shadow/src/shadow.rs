//! The public face of the shadow: options, [`Shadow`], [`ShadowSink`].

use std::borrow::Cow;

use htrewrite_tokenizer::{AttributeSpan, Feedback, Span, TextMode, Token, TokenKind, TokenSink};

use crate::builder::Builder;
use crate::token::{CommentLike, Tok};
use crate::{Event, EventSink, InsertionMode, Namespace, NodeId, QuirksMode, ShadowAttr, TagToken, TreeToken};
use crate::{names, tags};

/// Settings of a [`Shadow`].
///
/// # Example
/// ```
/// use htrewrite_shadow::{Namespace, ShadowOptions};
/// let o = ShadowOptions { fragment_context: Some(("td".into(), Namespace::Html)), ..ShadowOptions::default() };
/// assert!(o.scripting);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShadowOptions {
    /// The [scripting flag](https://html.spec.whatwg.org/multipage/parsing.html#scripting-flag):
    /// on (the default, as in browsers) makes `<noscript>` RAWTEXT.
    pub scripting: bool,
    /// Parse a fragment with this context element (local name as in the DOM,
    /// e.g. `foreignObject`, and namespace), as the
    /// [fragment parsing algorithm](https://html.spec.whatwg.org/multipage/parsing.html#parsing-html-fragments)
    /// does. `None` parses a document.
    pub fragment_context: Option<(String, Namespace)>,
    /// For fragments: the quirks mode of the context element's document.
    pub fragment_quirks: QuirksMode,
    /// The document's [allow declarative shadow roots](https://dom.spec.whatwg.org/#document-allow-declarative-shadow-roots)
    /// flag: `<template shadowrootmode=open|closed>` attaches a shadow root
    /// to its parent element instead of inserting the template (reported by
    /// [`EventSink::attach_declarative_shadow_root`](crate::EventSink::attach_declarative_shadow_root)).
    /// Off by default, as for fragment parsing and in html5lib's expected trees.
    pub declarative_shadow_roots: bool,
}

impl Default for ShadowOptions {
    fn default() -> ShadowOptions {
        ShadowOptions {
            scripting: true,
            fragment_context: None,
            fragment_quirks: QuirksMode::NoQuirks,
            declarative_shadow_roots: false,
        }
    }
}

/// One entry of the [stack of open elements](https://html.spec.whatwg.org/multipage/parsing.html#stack-of-open-elements),
/// as the stack keeps it: 24 bytes, the name a key (issue 16: memory per
/// open element). [`Shadow::open_elements`] shows entries as [`OpenElementRef`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OpenElement {
    pub(crate) id: NodeId,
    /// The element's parent in the tree (a `template` stands for its contents).
    pub(crate) parent: NodeId,
    /// The name's key: a known name's id (`crate::names`, below
    /// `names::COUNT`) or a key of the stack's table of other names; its
    /// string is `Stack::name`.
    pub(crate) key: u32,
    /// Category bits (`tags::cat`).
    pub(crate) cats: u16,
    pub(crate) ns: Namespace,
    /// The stack's index lists the element is in (`stack::index_lists` of
    /// `cats`).
    pub(crate) lists: u8,
}

/// An open element as [`Shadow::open_elements`] and [`Shadow::current_node`]
/// show it: its id, local name and namespace.
///
/// # Example
/// ```
/// use htrewrite_shadow::{Namespace, NoEvents, Shadow, ShadowOptions, TagToken, TreeToken};
/// let mut shadow = Shadow::new(ShadowOptions::default());
/// let p = TagToken::new("p", vec![]);
/// shadow.process_tree_token(TreeToken::StartTag(&p), Default::default(), &mut NoEvents);
/// let top = shadow.open_elements().last().unwrap();
/// assert_eq!((top.name(), top.ns()), ("p", Namespace::Html));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenElementRef<'a> {
    id: NodeId,
    name: &'a str,
    ns: Namespace,
}

impl<'a> OpenElementRef<'a> {
    /// The view of an entry whose name is `name`.
    pub(crate) fn new(e: &OpenElement, name: &'a str) -> OpenElementRef<'a> {
        OpenElementRef { id: e.id, name, ns: e.ns }
    }

    /// The element's id (as in its [`Event::ElementOpened`](crate::Event::ElementOpened)).
    /// Accessors of [`OpenElementRef`] share the type's example.
    pub fn id(&self) -> NodeId {
        self.id
    }
    /// The local name (adjusted for SVG: `foreignObject`).
    pub fn name(&self) -> &'a str {
        self.name
    }
    /// The namespace.
    pub fn ns(&self) -> Namespace {
        self.ns
    }
}

/// The local names no element of which the Standard inserts after the
/// first, in any namespace: `head`. See [`Shadow::inserted_once`]. (`html`
/// is not one: in foreign content `<svg><html>` inserts an SVG element
/// named `html`, which a type selector `html` matches.)
///
/// # Example
/// ```
/// assert!(htrewrite_shadow::INSERTED_ONCE.contains(&"head"));
/// assert!(!htrewrite_shadow::INSERTED_ONCE.contains(&"html"));
/// ```
pub const INSERTED_ONCE: [&str; 1] = ["head"];

/// The tree-construction shadow: the Standard's tree construction on a
/// stack, reporting [`Event`]s and answering the tokenizer with [`Feedback`].
///
/// Feed it tokens in order with [`Shadow::process`] (or
/// [`Shadow::process_tree_token`]), then call [`Shadow::finish`] once.
///
/// # Example
/// ```
/// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions, TagToken, TreeToken};
/// let mut shadow = Shadow::new(ShadowOptions::default());
/// for name in ["p", "div"] {
///     let t = TagToken::new(name, vec![]);
///     shadow.process_tree_token(TreeToken::StartTag(&t), Default::default(), &mut NoEvents);
/// }
/// let names: Vec<_> = shadow.open_elements().map(|e| e.name()).collect();
/// assert_eq!(names, ["html", "body", "div"]); // <div> closed the <p>
/// ```
///
/// # Complexity
/// Each token costs O(1) amortized plus the events it causes (and the
/// bytes of its text); see the crate's Guarantees.
#[derive(Debug, Clone)]
pub struct Shadow {
    pub(crate) b: Builder,
    /// The tag of the token being processed, kept between tokens so that its
    /// strings' buffers are reused (its name empty while the in-body fast
    /// path takes it: see [`fill_start_tag`]).
    tag: TagToken,
    /// Attributes a start tag had beyond the current one's count, kept for
    /// the next start tags with more ([`SPARE_ATTRS`] at most): filling one
    /// reuses its strings instead of allocating.
    spare: Vec<ShadowAttr>,
    /// The attributes of the last start tag that had some, parked whole
    /// while start tags without attributes pass ([`park_attributes`]).
    parked: Vec<ShadowAttr>,
    /// The tag of end tags, kept apart so that the start tags' attributes stay.
    end_tag: TagToken,
}

/// How many spare attributes [`Shadow`] keeps, and how large a string of
/// one may be to be kept.
const SPARE_ATTRS: usize = 32;
const SPARE_CAPACITY: usize = 256;

/// The span of the first character after the leading whitespace of a text
/// run's raw bytes: the character token that implies closings (the only
/// character of a run that can), independent of where the input was cut.
/// With `refs` (data and RCDATA text), character references that stand for
/// whitespace (`&#32;`, `&Tab;`, …) count as whitespace, as they do once decoded.
#[inline]
fn first_non_ws_char(raw: &[u8], start: u64, refs: bool) -> Span {
    let mut ws = 0;
    loop {
        match raw.get(ws) {
            Some(b'\t' | b'\n' | 0x0C | b'\r' | b' ') => ws += 1,
            Some(b'&') if refs => match whitespace_reference_len(&raw[ws..]) {
                Some(n) => ws += n,
                None => break,
            },
            _ => break,
        }
    }
    let len = first_char_len(&raw[ws..]);
    Span::new(start + ws as u64, start + (ws + len) as u64)
}

/// The length in bytes of the first character of `bytes` as UTF-8 decoding
/// reads it: a valid sequence, or the maximal subpart of an invalid one (one
/// U+FFFD), or what there is of a sequence cut by the end of `bytes`.
/// 0 for no bytes.
#[inline]
fn first_char_len(bytes: &[u8]) -> usize {
    // An ASCII character (the common case) is one byte.
    if bytes.first().is_some_and(u8::is_ascii) {
        return 1;
    }
    // At most 4 bytes: one character, without validating the whole text.
    match bytes[..bytes.len().min(4)].utf8_chunks().next() {
        None => 0,
        Some(chunk) => chunk.valid().chars().next().map_or(chunk.invalid().len(), char::len_utf8),
    }
}

/// The length of a character reference at the start of `s` that decodes to
/// tree-construction whitespace, if it is one.
fn whitespace_reference_len(s: &[u8]) -> Option<usize> {
    for named in [&b"&Tab;"[..], b"&NewLine;"] {
        if s.starts_with(named) {
            return Some(named.len());
        }
    }
    let rest = s.strip_prefix(b"&#")?;
    let (hex, digits) = match rest.first() {
        Some(b'x' | b'X') => (true, &rest[1..]),
        _ => (false, rest),
    };
    let n = digits.iter().take_while(|b| if hex { b.is_ascii_hexdigit() } else { b.is_ascii_digit() }).count();
    if n == 0 {
        return None;
    }
    let mut value: u32 = 0;
    for &b in &digits[..n] {
        let d = (b as char).to_digit(if hex { 16 } else { 10 }).expect("digit");
        value = value.saturating_mul(if hex { 16 } else { 10 }).saturating_add(d);
    }
    if !matches!(value, 0x09 | 0x0A | 0x0C | 0x0D | 0x20) {
        return None;
    }
    let semicolon = usize::from(digits.get(n) == Some(&b';'));
    Some(2 + usize::from(hex) + n + semicolon)
}

/// Text or an attribute value decoded: without `&`, CR or NUL, valid UTF-8
/// decodes to itself (in every text mode and in attribute values), so
/// `decode` runs only when one of them is there or the bytes are not UTF-8.
fn decoded<'a>(raw: &'a [u8], decode: impl FnOnce(&'a [u8]) -> Cow<'a, str>) -> Cow<'a, str> {
    match plain(raw) {
        Some(s) => Cow::Borrowed(s),
        None => decode(raw),
    }
}

/// `raw` as it decodes when that is itself: valid UTF-8 without `&`, CR or NUL.
fn plain(raw: &[u8]) -> Option<&str> {
    if without_specials(raw) { std::str::from_utf8(raw).ok() } else { None }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Nonzero exactly when a byte of `v` is zero.
#[inline(always)]
fn zero_byte(v: u64) -> u64 {
    v.wrapping_sub(ONES) & !v & HIGHS
}

/// Whether `raw` has a NUL byte: eight bytes at a time for short text (most
/// text tokens; `memchr` pays a set-up there), `memchr` for long.
fn has_nul(raw: &[u8]) -> bool {
    if raw.len() >= 64 {
        return memchr::memchr(0, raw).is_some();
    }
    let mut words = raw.chunks_exact(8);
    for w in &mut words {
        if zero_byte(u64::from_le_bytes(w.try_into().expect("8 bytes"))) != 0 {
            return true;
        }
    }
    words.remainder().contains(&0)
}

/// Whether `raw` has none of `&`, CR and NUL, in one pass eight bytes at a
/// time: a byte equal to one of them is a zero byte of the word xor'ed with it.
fn without_specials(raw: &[u8]) -> bool {
    let mut words = raw.chunks_exact(8);
    for w in &mut words {
        let v = u64::from_le_bytes(w.try_into().expect("8 bytes"));
        if zero_byte(v) | zero_byte(v ^ (ONES * u64::from(b'&'))) | zero_byte(v ^ (ONES * u64::from(b'\r'))) != 0 {
            return false;
        }
    }
    !words.remainder().iter().any(|&b| matches!(b, b'&' | b'\r' | 0))
}

/// Appends a tag or attribute name as the tokenizer decodes it
/// (`Token::tag_name`): ASCII-lowercased, U+0000 → U+FFFD, invalid UTF-8 → U+FFFD.
#[inline(always)]
pub(crate) fn push_name(out: &mut String, raw: &[u8]) {
    // ASCII without NUL (bytes 1..=0x7F): lowercased byte by byte, in one pass.
    let start = out.len();
    out.reserve(raw.len());
    for &b in raw {
        if b.wrapping_sub(1) >= 0x7F {
            out.truncate(start);
            return push_name_other(out, raw);
        }
        out.push(char::from(b.to_ascii_lowercase()));
    }
}

/// Makes `out` the name `raw` decodes to ([`push_name`]), keeping it when
/// it is that already (`href` after `href`, the same attribute of the last
/// tag: a comparison, not a copy). `out` holds a name decoded before (by
/// [`push_name`]: the shadow's tag and attribute buffers hold nothing else),
/// which has no NUL and no ASCII upper case: bytes equal to it are their
/// own decoding (the test `set_name_is_push_name`).
#[inline(always)]
pub(crate) fn set_name(out: &mut String, raw: &[u8]) {
    if out.as_bytes() == raw {
        debug_assert!(!raw.iter().any(|&b| b == 0 || b.is_ascii_uppercase()), "{out:?} is not a decoded name");
        return;
    }
    out.clear();
    push_name(out, raw);
}

/// [`push_name`] for a name with NUL or non-ASCII bytes.
#[inline(never)]
fn push_name_other(out: &mut String, raw: &[u8]) {
    out.extend(String::from_utf8_lossy(raw).chars().map(|c| match c {
        'A'..='Z' => c.to_ascii_lowercase(),
        '\0' => '\u{FFFD}',
        _ => c,
    }));
}

/// Fills `tag` from a start tag token, reusing its buffers: the name and,
/// when `wanted` says the sink reads them for this name or tree
/// construction reads them ([`tags::attribute_use`]), the attributes,
/// duplicates dropped (first wins), as `Token::tag_name` and
/// `Token::attributes` decode them — their values only when
/// `values_wanted` says the sink reads those too or tree construction
/// does; else no attributes. Sets the builder's `tag_attrs_shown` to
/// `wanted`'s answer for a tag with attributes (`false` without: `wanted`
/// is not asked); attributes that only the list of active formatting
/// elements keeps, undecoded or without values here, are left to it as the
/// tag's bytes in the builder's `tag_raw` (`tag_attrs_deferred`).
///
/// A short known HTML name (`short`, which the caller reads from the
/// token's packed name, `names::known_html_word`; `names::known_html_raw` of
/// the name's bytes, asserted) is not copied: `tag.name` is left empty, for
/// [`Builder::run_start`] to fill only if the dispatcher needs it.
///
/// The attributes' strings are reused: from the last tag's list, taken back
/// from `parked` when a tag without attributes parked it
/// ([`park_attributes`]), and from `spare`.
#[allow(clippy::too_many_arguments)]
fn fill_start_tag(
    tag: &mut TagToken,
    token: &Token<'_>,
    short: Option<u32>,
    (spare, parked): (&mut Vec<ShadowAttr>, &mut Vec<ShadowAttr>),
    b: &mut Builder,
    wanted: impl FnOnce(&str) -> bool,
    values_wanted: impl FnOnce(&str) -> bool,
) {
    let raw_name = token.raw_tag_name();
    debug_assert_eq!(short, names::known_html_raw(raw_name));
    debug_assert_eq!(short, names::known_html_word(token.packed_tag_name()));
    tag.name.clear();
    if short.is_none() {
        push_name(&mut tag.name, raw_name);
    }
    let name: &str = match short {
        Some(key) => names::name(key),
        None => &tag.name,
    };
    tag.self_closing = token.is_self_closing();
    tag.span = token.span();
    let mut spans = token.attribute_spans();
    // A tag without attributes shows none, whatever the sink reads: it is
    // not asked (the events are those of a sink that declines them).
    b.tag_attrs_shown = !spans.is_empty() && wanted(name);
    b.tag_attrs_deferred = false;
    let mut values = true;
    if !spans.is_empty() {
        let used = match short {
            Some(key) => names::attribute_use_of(key),
            None => tags::attribute_use(name),
        };
        if used != tags::AttributeUse::Read && (!b.tag_attrs_shown || !values_wanted(name)) {
            if used == tags::AttributeUse::Kept {
                b.tag_attrs_deferred = true;
                b.tag_raw.clear();
                b.tag_raw.extend_from_slice(token.raw());
            }
            if b.tag_attrs_shown {
                values = false;
            } else {
                spans = &[];
            }
        }
    }
    // Most tags have no attributes to fill, and the last one left none.
    if !spans.is_empty() {
        if tag.attrs.is_empty() && !parked.is_empty() {
            // The attributes of the last tag that had some, back in place.
            std::mem::swap(&mut tag.attrs, parked);
        }
        fill_attributes(&mut tag.attrs, token.raw(), spans, spare, values);
    } else if !tag.attrs.is_empty() {
        park_attributes(&mut tag.attrs, parked, spare);
    }
}

/// Empties `attrs` for a start tag without attributes: a short list is
/// parked whole in `parked` (its `Vec` swapped out, no attribute moved), for
/// the next start tag with attributes to take back with its names in place
/// (`<a href>` after `<a href>`, with `<li>`s between); others, or with a
/// list parked already, go to `spare` ([`spare_attributes`]). What `parked`
/// may hold is bounded as `spare` is: [`SPARE_ATTRS`] attributes of
/// [`SPARE_CAPACITY`] bytes at most, in a list of that capacity.
#[inline]
fn park_attributes(attrs: &mut Vec<ShadowAttr>, parked: &mut Vec<ShadowAttr>, spare: &mut Vec<ShadowAttr>) {
    if parked.is_empty()
        && attrs.capacity() <= SPARE_ATTRS
        && attrs.iter().all(|a| a.name.capacity() <= SPARE_CAPACITY && a.value.capacity() <= SPARE_CAPACITY)
    {
        std::mem::swap(attrs, parked);
    } else {
        spare_attributes(attrs, 0, spare);
    }
}

/// Fills `attrs` from the attributes at `spans` of a start tag's bytes
/// `raw`, reusing its strings (and those of `spare`; unused ones go back
/// there): duplicates dropped (first wins), names and values as
/// `Token::attributes` decodes them (with `values` false, every value
/// empty).
pub(crate) fn fill_attributes(
    attrs: &mut Vec<ShadowAttr>,
    raw: &[u8],
    spans: &[AttributeSpan],
    spare: &mut Vec<ShadowAttr>,
    values: bool,
) {
    // Many attributes: duplicates by a hash set (as the tokenizer finds them).
    let mut seen = (spans.len() > 32).then(std::collections::HashSet::<String>::new);
    let mut n = 0;
    for a in spans {
        if n == attrs.len() {
            attrs.push(spare.pop().unwrap_or_default());
        }
        set_name(&mut attrs[n].name, a.name.slice(raw));
        let duplicate = match &mut seen {
            Some(seen) => !seen.insert(attrs[n].name.clone()),
            None => attrs[..n].iter().any(|b| b.name == attrs[n].name),
        };
        if duplicate {
            continue;
        }
        let attr = &mut attrs[n];
        attr.namespace = crate::AttrNamespace::None;
        attr.value.clear();
        if let Some(v) = a.value.filter(|_| values) {
            attr.value.push_str(&decoded(v.slice(raw), htrewrite_tokenizer::decode_attribute_value));
        }
        n += 1;
    }
    // A tag with as many attributes as the one before leaves none over
    // (with the rewrite workload, 4,943 of the 8,793 filled).
    if n != attrs.len() {
        spare_attributes(attrs, n, spare);
    }
}

/// Leaves the first `n` of `attrs` and moves the others to `spare` (those
/// it keeps: [`SPARE_ATTRS`] at most, of [`SPARE_CAPACITY`] bytes at most),
/// last first: the next tag with more attributes takes them back in their
/// places ([`fill_attributes`] pops `spare`), where [`set_name`] finds the
/// same names again more often than not. A loop of pops, not a drain,
/// whose set-up costs more than one attribute's move.
fn spare_attributes(attrs: &mut Vec<ShadowAttr>, n: usize, spare: &mut Vec<ShadowAttr>) {
    while attrs.len() > n {
        let Some(a) = attrs.pop() else { break };
        if spare.len() < SPARE_ATTRS && a.name.capacity() <= SPARE_CAPACITY && a.value.capacity() <= SPARE_CAPACITY {
            spare.push(a);
        }
    }
}

/// Adapts any `EventSink` (sized or not) to `&mut dyn EventSink`: tree
/// construction is generic over its sink; [`Shadow::process`] runs the one
/// copy compiled for `dyn EventSink` (in this crate), and
/// [`Shadow::process_monomorphized`] a copy for the sink's own type.
pub(crate) struct Dyn<'a, E: ?Sized>(pub(crate) &'a mut E);

impl<E: EventSink + ?Sized> EventSink for Dyn<'_, E> {
    fn event(&mut self, e: Event<'_>) {
        self.0.event(e)
    }

    fn attach_declarative_shadow_root(&mut self, host: NodeId, template: NodeId) {
        self.0.attach_declarative_shadow_root(host, template)
    }

    fn wants_text(&self) -> bool {
        self.0.wants_text()
    }

    fn wants_text_events(&self) -> bool {
        self.0.wants_text_events()
    }

    fn wants_start_tag_attributes(&self, name: &str) -> bool {
        self.0.wants_start_tag_attributes(name)
    }
    fn wants_start_tag_attribute_values(&self, name: &str) -> bool {
        self.0.wants_start_tag_attribute_values(name)
    }
}

/// [`FastStart`]'s key of a name outside the table of known names
/// ([`Shadow::fast_start_unlisted`]).
const UNLISTED: u32 = u32::MAX;

/// [`Shadow::fast_start`]'s answer for a start tag that in-body's fast
/// path takes: its name's known id and its rule's flags (opaque; for
/// [`Shadow::take_fast_start`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FastStart {
    /// The HTML element id of a short known name (see [`fill_start_tag`]),
    /// or [`UNLISTED`] for a name outside the table, which has no rule of
    /// its own.
    key: u32,
    flags: u16,
}

/// [`Shadow::fast_end`]'s answer for an end tag that in-body's fast path
/// takes: how it pops the current node (opaque; for
/// [`Shadow::take_fast_end`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FastEnd {
    kind: FastEndKind,
}

/// How [`FastEnd`]'s end tag pops the current node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FastEndKind {
    /// "In body" (its own rule, or "in cell"'s "anything else").
    InBody,
    /// "In body", the current node being the last formatting element: the
    /// adoption agency's common case, which removes it from the list too.
    Adopted,
    /// The cell "in cell" or the row "in row" (`Builder::table_fast_end_by_key`).
    Table,
    /// "Text"'s end tag (`Builder::text_fast_end`).
    Text,
    /// A foreign element's own end tag (`Builder::foreign_fast_end_by_raw_name`).
    Foreign,
    /// `</ul>` and the like over a list's last item left open
    /// (`Builder::block_end_after_implied`).
    AfterImplied,
}

impl Shadow {
    /// A shadow in the initial state (or, for fragments, as the fragment
    /// parsing algorithm sets it up; the root `html` element is reported
    /// with the first token).
    pub fn new(options: ShadowOptions) -> Shadow {
        let mut b = Builder::new(options.scripting, options.fragment_context, options.fragment_quirks);
        b.declarative_shadow_roots = options.declarative_shadow_roots;
        Shadow { b, tag: TagToken::default(), spare: Vec::new(), parked: Vec::new(), end_tag: TagToken::default() }
    }

    /// Processes one token of the tokenizer and returns the feedback for the next.
    ///
    /// Text tokens are processed with their decoded [`Token::text`];
    /// `CdataStart`/`CdataEnd` and dropped bytes change nothing. Attributes
    /// flagged as duplicates are dropped, as the Standard does.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions};
    /// use htrewrite_tokenizer::{Feedback, TextMode, Token, TokenSink, Tokenizer};
    /// struct Modes(Shadow, Vec<TextMode>);
    /// impl TokenSink for Modes {
    ///     fn token(&mut self, t: &Token<'_>) -> Feedback {
    ///         let f = self.0.process(t, &mut NoEvents);
    ///         self.1.push(f.text_mode);
    ///         f
    ///     }
    ///     fn cdata_allowed(&mut self) -> bool {
    ///         self.0.cdata_allowed()
    ///     }
    /// }
    /// let mut sink = Modes(Shadow::new(ShadowOptions::default()), Vec::new());
    /// let mut tokenizer = Tokenizer::new();
    /// tokenizer.feed(b"<frameset><style>", &mut sink);
    /// tokenizer.finish(&mut sink);
    /// assert_eq!(sink.1, [TextMode::Data, TextMode::Data]); // <style> ignored in a frameset: not RAWTEXT
    /// ```
    pub fn process<E: EventSink + ?Sized>(&mut self, token: &Token<'_>, sink: &mut E) -> Feedback {
        self.process_dyn(token, &mut Dyn(sink))
    }

    /// [`Shadow::process`] through one compiled copy of tree construction.
    fn process_dyn(&mut self, token: &Token<'_>, sink: &mut dyn EventSink) -> Feedback {
        self.process_monomorphized(token, sink)
    }

    /// [`Shadow::process`] compiled for the sink's type: no dynamic call per
    /// event, and a sink that ignores events (as [`NoEvents`](crate::NoEvents))
    /// lets the compiler drop their construction. For a hot loop with one or
    /// two sink types (the rewriter's); each type compiles its own copy of
    /// tree construction in the crate that names it (call it from a
    /// function that is not generic, so that copy is made once).
    /// [`Shadow::process`] compiles one copy for every sink.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions};
    /// use htrewrite_tokenizer::{Feedback, Token, TokenSink, Tokenizer};
    /// struct Fast(Shadow);
    /// impl TokenSink for Fast {
    ///     fn token(&mut self, t: &Token<'_>) -> Feedback {
    ///         self.0.process_monomorphized(t, &mut NoEvents)
    ///     }
    ///     fn cdata_allowed(&mut self) -> bool {
    ///         self.0.cdata_allowed()
    ///     }
    /// }
    /// let mut sink = Fast(Shadow::new(ShadowOptions::default()));
    /// let mut tokenizer = Tokenizer::new();
    /// tokenizer.feed(b"<p>a<b>c", &mut sink);
    /// tokenizer.finish(&mut sink);
    /// assert_eq!(sink.0.current_node().map(|e| e.name()), Some("b"));
    /// ```
    pub fn process_monomorphized<E: EventSink + ?Sized>(&mut self, token: &Token<'_>, sink: &mut E) -> Feedback {
        let span = token.span();
        self.b.sink_wants(sink);
        match token.kind() {
            TokenKind::Text(mode) => {
                if self.skip_inert_text(token, self.b.text_events) {
                    return Feedback::default();
                }
                let raw = token.raw();
                let refs = matches!(mode, TextMode::Data | TextMode::Rcdata);
                if !self.b.text_shown || !self.b.text_events {
                    // Computed only where the mode needs it (most text needs neither).
                    let non_ws = || {
                        let non_ws = !first_non_ws_char(raw, span.start, refs).is_empty();
                        debug_assert!(
                            token.text().is_some_and(|t| (tags::ws_prefix_len(&t) < t.len()) == non_ws),
                            "{raw:?} is whitespace exactly when its decoded text is"
                        );
                        non_ws
                    };
                    // U+0000 stays itself only in data and CDATA text (else it is
                    // U+FFFD); the tokenizer's scan of data text has mostly looked.
                    let nul = || {
                        matches!(mode, TextMode::Data | TextMode::CdataSection)
                            && !token.scanned_without_nul()
                            && has_nul(raw)
                    };
                    if self.b.reads_text_as_classified(non_ws, nul) {
                        return self.b.run_classified_text(non_ws, span, sink);
                    }
                }
                let first = first_non_ws_char(raw, span.start, refs);
                let plain = plain(raw);
                let text = plain.map_or_else(|| token.text().unwrap_or_default(), Cow::Borrowed);
                // Plain text has no NUL: characters in body need not look for U+0000.
                self.b.text_without_nul = plain.is_some() || token.scanned_without_nul();
                let f = self.b.run(TreeToken::Text(&text), first, sink);
                self.b.text_without_nul = false;
                f
            }
            TokenKind::StartTag => {
                let short = names::known_html_word(token.packed_tag_name());
                self.fill_start_tag(token, short, sink);
                self.b.run_start(&mut self.tag, short, span, sink)
            }
            TokenKind::EndTag => {
                let s = sink;
                // The common case first: an end tag that pops the current node,
                // decided from the name's bytes without building the name.
                let raw_name = token.raw_tag_name();
                let key = names::known_html_word(token.packed_tag_name());
                if let Some(end) = self.fast_end_of(raw_name, key) {
                    return self.take_fast_end(token, end, s);
                }
                let tag = &mut self.end_tag;
                set_name(&mut tag.name, token.raw_tag_name());
                tag.self_closing = false;
                tag.span = span;
                self.b.run(TreeToken::EndTag(&self.end_tag), span, s)
            }
            TokenKind::Comment(_) => {
                let s = sink;
                // Tree construction never reads a comment's data: decoded
                // only for a sink that reads it (`EventSink::wants_text`).
                let data = if self.b.text_shown { token.comment_data().unwrap_or_default() } else { Cow::Borrowed("") };
                self.b.run(TreeToken::Comment(&data), span, s)
            }
            TokenKind::Doctype => {
                let s = sink;
                let d = token.doctype().unwrap_or_default();
                self.b.run(TreeToken::Doctype(&d), span, s)
            }
            TokenKind::ProcessingInstruction => {
                let s = sink;
                let (target, data) = token.processing_instruction().unwrap_or_default();
                self.b.run(TreeToken::ProcessingInstruction { target: &target, data: &data }, span, s)
            }
            TokenKind::CdataStart | TokenKind::CdataEnd | TokenKind::Dropped(_) => self.b.feedback(false),
        }
    }

    /// [`fill_start_tag`] into the shadow's tag, with what `sink` reads of
    /// the attributes; `short` is the name's short known HTML id.
    #[inline(always)]
    fn fill_start_tag<E: EventSink + ?Sized>(&mut self, token: &Token<'_>, short: Option<u32>, sink: &mut E) {
        let wanted = |name: &str| sink.wants_start_tag_attributes(name);
        let values_wanted = |name: &str| sink.wants_start_tag_attribute_values(name);
        let spare = (&mut self.spare, &mut self.parked);
        fill_start_tag(&mut self.tag, token, short, spare, &mut self.b, wanted, values_wanted);
    }

    /// Whether start tag `token` is a common case that in-body's fast path
    /// takes — a short known HTML name whose rule in "in body" inserts the
    /// element (perhaps after closing a `p`, an `li`, a `dd` or `dt`, or
    /// reopening formatting elements), by the rules of "in body", or one of
    /// the table modes' common tags (`<td>` in a row, `<tr>` in a section,
    /// `<td>` or `<tr>` closing the cell that is the current node), or a
    /// void element of "in head" (`<meta>`, `<link>`, …) there — and how;
    /// `None` for any other start tag, which
    /// [`Shadow::process_monomorphized`] takes the whole way. A decision
    /// only: the shadow is unchanged until [`Shadow::take_fast_start`].
    /// After such a tag the tokenizer goes on in the data state (the
    /// elements that switch it have rules of their own).
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions};
    /// use htrewrite_tokenizer::{Feedback, Token, TokenKind, TokenSink, Tokenizer};
    /// struct Starts(Shadow, usize);
    /// impl TokenSink for Starts {
    ///     fn token(&mut self, t: &Token<'_>) -> Feedback {
    ///         if t.kind() == TokenKind::StartTag
    ///             && let Some(start) = self.0.fast_start(t)
    ///         {
    ///             self.1 += 1;
    ///             return self.0.take_fast_start(t, start, &mut NoEvents);
    ///         }
    ///         self.0.process_monomorphized(t, &mut NoEvents)
    ///     }
    /// }
    /// let mut sink = Starts(Shadow::new(ShadowOptions::default()), 0);
    /// let mut tokenizer = Tokenizer::new();
    /// // `<p>` and `<i>` in body; `<body>` (implied already) and `<title>` have rules of their own.
    /// tokenizer.feed(b"<body><p><i>x<title>", &mut sink);
    /// tokenizer.finish(&mut sink);
    /// assert_eq!(sink.1, 2);
    /// ```
    ///
    /// # Errors
    /// None.
    ///
    /// # Complexity
    /// O(1).
    #[inline(always)]
    pub fn fast_start(&self, token: &Token<'_>) -> Option<FastStart> {
        debug_assert_eq!(token.kind(), TokenKind::StartTag);
        let key = names::known_html_word(token.packed_tag_name())?;
        let flags = self
            .b
            .in_body_fast_start_flags(Some(key))
            .or_else(|| self.b.table_fast_start_flags(Some(key)))
            .or_else(|| self.b.head_fast_start_flags(Some(key)))?;
        Some(FastStart { key, flags })
    }

    /// Processes start tag `token` as [`Shadow::fast_start`] decided
    /// (`start`, its answer for this token in this state): what
    /// [`Shadow::process_monomorphized`] does with it, events to `sink`;
    /// the answer is always the default [`Feedback`].
    ///
    /// # Example
    /// See [`Shadow::fast_start`].
    ///
    /// # Errors
    /// None.
    #[inline(always)]
    pub fn take_fast_start<E: EventSink + ?Sized>(
        &mut self,
        token: &Token<'_>,
        start: FastStart,
        sink: &mut E,
    ) -> Feedback {
        debug_assert_ne!(start.key, UNLISTED, "take_fast_start_unlisted's");
        self.b.sink_wants(sink);
        let short = Some(start.key);
        self.fill_start_tag(token, short, sink);
        self.b.begin(token.span());
        self.b.take_in_body_fast_start(&self.tag, start.flags, short, sink);
        let feedback = self.b.feedback(true);
        debug_assert_eq!(feedback, Feedback::default(), "no fast start switches the tokenizer");
        feedback
    }

    /// [`Shadow::fast_start`] for a start tag whose name is outside the
    /// table of known names (custom elements' `<my-el>`, `<emu-xref>`):
    /// such a name has no rule of its own, and in body its tag is "any
    /// other start tag" — reconstruct the active formatting elements, insert
    /// an HTML element. `None` for any other start tag (a known name
    /// included: [`Shadow::fast_start`] answers for the short ones). A name
    /// that packs (`Token::packed_tag_name`) is outside when the table has
    /// no entry for it; a longer one when it is made of lowercase ASCII
    /// letters, digits and `-` and no known name is it. For the callers
    /// that try [`Shadow::fast_start`] first; out of line, most names are
    /// known.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions};
    /// use htrewrite_tokenizer::{Feedback, Token, TokenKind, TokenSink, Tokenizer};
    /// struct Starts(Shadow, usize);
    /// impl TokenSink for Starts {
    ///     fn token(&mut self, t: &Token<'_>) -> Feedback {
    ///         if t.kind() == TokenKind::StartTag
    ///             && let Some(start) = self.0.fast_start_unlisted(t)
    ///         {
    ///             self.1 += 1;
    ///             return self.0.take_fast_start_unlisted(t, start, &mut NoEvents);
    ///         }
    ///         self.0.process_monomorphized(t, &mut NoEvents)
    ///     }
    /// }
    /// let mut sink = Starts(Shadow::new(ShadowOptions::default()), 0);
    /// let mut tokenizer = Tokenizer::new();
    /// // `<my-element>` and `<x-y>` in body; `<p>` is known, `<svg>` has a rule of its own.
    /// tokenizer.feed(b"<body><my-element><p><x-y><svg>", &mut sink);
    /// tokenizer.finish(&mut sink);
    /// assert_eq!(sink.1, 2);
    /// ```
    ///
    /// # Errors
    /// None.
    ///
    /// # Complexity
    /// O(length of the name).
    #[inline(never)]
    pub fn fast_start_unlisted(&self, token: &Token<'_>) -> Option<FastStart> {
        debug_assert_eq!(token.kind(), TokenKind::StartTag);
        // The state first: many start tags that come here are SVG's and
        // MathML's, in foreign content.
        let flags = self.b.in_body_fast_start_flags(None)?;
        let outside = match token.packed_tag_name() {
            Some(word) => names::known_html_word(Some(word)).is_none(),
            None => names::outside_html_table(token.raw_tag_name()),
        };
        outside.then_some(FastStart { key: UNLISTED, flags })
    }

    /// [`Shadow::take_fast_start`] for a start tag that
    /// [`Shadow::fast_start_unlisted`] took (`start`): the name built from
    /// the tag's bytes, the element inserted by "any other start tag".
    ///
    /// # Example
    /// See [`Shadow::fast_start_unlisted`].
    ///
    /// # Errors
    /// None.
    #[inline(never)]
    pub fn take_fast_start_unlisted<E: EventSink + ?Sized>(
        &mut self,
        token: &Token<'_>,
        start: FastStart,
        sink: &mut E,
    ) -> Feedback {
        debug_assert_eq!(start.key, UNLISTED, "take_fast_start's");
        self.b.sink_wants(sink);
        // [`Shadow::fill_start_tag`]'s work with closures of their own: a
        // copy of [`fill_start_tag`] of its own, so that the known names'
        // path (its only other caller in the rewriter's quick path) keeps
        // it in line (with one copy for both, measured while this path was
        // built: ten selectors 29.737 instructions a byte against 28.980
        // with two, callgrind, the three lol-html bench pages).
        let wanted = |name: &str| sink.wants_start_tag_attributes(name);
        let values_wanted = |name: &str| sink.wants_start_tag_attribute_values(name);
        let spare = (&mut self.spare, &mut self.parked);
        fill_start_tag(&mut self.tag, token, None, spare, &mut self.b, wanted, values_wanted);
        self.b.begin(token.span());
        self.b.take_in_body_fast_start(&self.tag, start.flags, None, sink);
        let feedback = self.b.feedback(true);
        debug_assert_eq!(feedback, Feedback::default(), "no fast start switches the tokenizer");
        feedback
    }

    /// Whether end tag `token` is the common case that in-body's fast path
    /// takes — it pops the current node, an HTML element of its name, by the
    /// rules of "in body" (its "any other end tag", or the adoption agency's
    /// common case), or the cell "in cell" or the row "in row" — and how;
    /// `None` for any other end tag, which
    /// [`Shadow::process_monomorphized`] takes the whole way. A decision
    /// only: the shadow is unchanged until [`Shadow::take_fast_end`].
    ///
    /// For a sink that takes the common end tag on a path of its own (the
    /// rewriter's tokenizer scan): `fast_end` and then `take_fast_end` do
    /// what [`Shadow::process_monomorphized`] does with the token.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions};
    /// use htrewrite_tokenizer::{Feedback, Token, TokenKind, TokenSink, Tokenizer};
    /// struct Ends(Shadow, usize);
    /// impl TokenSink for Ends {
    ///     fn token(&mut self, t: &Token<'_>) -> Feedback {
    ///         if t.kind() == TokenKind::EndTag
    ///             && let Some(end) = self.0.fast_end(t)
    ///         {
    ///             self.1 += 1;
    ///             return self.0.take_fast_end(t, end, &mut NoEvents);
    ///         }
    ///         self.0.process_monomorphized(t, &mut NoEvents)
    ///     }
    /// }
    /// let mut sink = Ends(Shadow::new(ShadowOptions::default()), 0);
    /// let mut tokenizer = Tokenizer::new();
    /// // `</i>` pops the current node; `</p>` does not: `b` is the current node.
    /// tokenizer.feed(b"<p><i>x</i><b>y</p>", &mut sink);
    /// tokenizer.finish(&mut sink);
    /// assert_eq!(sink.1, 1);
    /// ```
    ///
    /// # Errors
    /// None.
    ///
    /// # Complexity
    /// O(1).
    #[inline(always)]
    pub fn fast_end(&self, token: &Token<'_>) -> Option<FastEnd> {
        debug_assert_eq!(token.kind(), TokenKind::EndTag);
        let raw_name = token.raw_tag_name();
        self.fast_end_of(raw_name, names::known_html_word(token.packed_tag_name()))
    }

    /// [`Shadow::fast_end`] of an end tag whose name's bytes are `raw_name`
    /// and whose short known HTML id `key` is read from them.
    #[inline(always)]
    fn fast_end_of(&self, raw_name: &[u8], key: Option<u32>) -> Option<FastEnd> {
        let in_body = |adopted| if adopted { FastEndKind::Adopted } else { FastEndKind::InBody };
        let kind = match key {
            Some(key) => match self.b.fast_end_by_key(key) {
                Some(adopted) => in_body(adopted),
                None if self.b.table_fast_end_by_key(key) => FastEndKind::Table,
                None => return self.fast_end_known_other(raw_name, key),
            },
            None => match self.b.fast_end_by_raw_name(raw_name) {
                Some(adopted) => in_body(adopted),
                None => return self.fast_end_other(raw_name),
            },
        };
        Some(FastEnd { kind })
    }

    /// [`Shadow::fast_end_other`] for an end tag whose name's short known
    /// HTML id is `key`: first a block's over a list's last item.
    #[inline(never)]
    fn fast_end_known_other(&self, raw_name: &[u8], key: u32) -> Option<FastEnd> {
        if self.b.block_end_after_implied(key) {
            return Some(FastEnd { kind: FastEndKind::AfterImplied });
        }
        self.fast_end_other(raw_name)
    }

    /// [`Shadow::fast_end_of`] for an end tag that no in-body or table rule
    /// takes when it pops the current node alone: "text"'s, or a foreign
    /// element's own. Out of line: fewer, and the common end tags' path
    /// stays short.
    #[inline(never)]
    fn fast_end_other(&self, raw_name: &[u8]) -> Option<FastEnd> {
        let kind = if self.b.text_fast_end() {
            FastEndKind::Text
        } else if self.b.foreign_fast_end_by_raw_name(raw_name) {
            FastEndKind::Foreign
        } else {
            return None;
        };
        Some(FastEnd { kind })
    }

    /// Processes end tag `token` as [`Shadow::fast_end`] decided (`end`,
    /// its answer for this token in this state): what
    /// [`Shadow::process_monomorphized`] does with it, events to `sink`.
    ///
    /// # Example
    /// See [`Shadow::fast_end`].
    ///
    /// # Errors
    /// None.
    #[inline(always)]
    pub fn take_fast_end<E: EventSink + ?Sized>(&mut self, token: &Token<'_>, end: FastEnd, sink: &mut E) -> Feedback {
        self.b.sink_wants(sink);
        self.end_tag.span = token.span();
        self.end_tag.self_closing = false;
        let raw_name = token.raw_tag_name();
        match end.kind {
            FastEndKind::InBody => self.b.run_fast_end(&mut self.end_tag, raw_name, false, sink),
            FastEndKind::Adopted => self.b.run_fast_end(&mut self.end_tag, raw_name, true, sink),
            FastEndKind::Table => self.b.run_table_fast_end(&mut self.end_tag, raw_name, sink),
            FastEndKind::Text => self.b.run_text_fast_end(&mut self.end_tag, raw_name, sink),
            FastEndKind::Foreign => self.b.run_foreign_fast_end(&mut self.end_tag, raw_name, sink),
            FastEndKind::AfterImplied => self.b.run_block_end_after_implied(&mut self.end_tag, raw_name, sink),
        }
    }

    /// Processes one token of the tree builder's own model (tests, other
    /// tokenizers); `span` is the token's place in the input.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions, TagToken, TreeToken};
    /// use htrewrite_tokenizer::TextMode;
    /// let mut shadow = Shadow::new(ShadowOptions::default());
    /// let t = TagToken::new("textarea", vec![]);
    /// let f = shadow.process_tree_token(TreeToken::StartTag(&t), Default::default(), &mut NoEvents);
    /// assert_eq!(f.text_mode, TextMode::Rcdata);
    /// ```
    pub fn process_tree_token<E: EventSink + ?Sized>(
        &mut self,
        token: TreeToken<'_>,
        span: Span,
        sink: &mut E,
    ) -> Feedback {
        self.process_tree_token_dyn(token, span, &mut Dyn(sink))
    }

    /// [`Shadow::process_tree_token`] through one compiled copy of tree construction.
    fn process_tree_token_dyn(&mut self, token: TreeToken<'_>, span: Span, sink: &mut dyn EventSink) -> Feedback {
        self.b.sink_wants(sink);
        if let TreeToken::StartTag(t) = token {
            self.b.tag_attrs_shown = !t.attrs.is_empty() && sink.wants_start_tag_attributes(&t.name);
            self.b.tag_attrs_deferred = false;
        }
        self.b.run(token, span, sink)
    }

    /// Processes the end of the input: the EOF token, then "stop parsing"
    /// (every open element gets [`CloseCause::Eof`](crate::CloseCause::Eof)).
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions, TreeToken};
    /// let mut shadow = Shadow::new(ShadowOptions::default());
    /// shadow.process_tree_token(TreeToken::Text("x"), Default::default(), &mut NoEvents);
    /// shadow.finish(&mut NoEvents);
    /// assert!(shadow.open_elements().len() == 0);
    /// ```
    pub fn finish<E: EventSink + ?Sized>(&mut self, sink: &mut E) {
        self.finish_dyn(&mut Dyn(sink))
    }

    /// [`Shadow::finish`] through one compiled copy of tree construction.
    fn finish_dyn(&mut self, sink: &mut dyn EventSink) {
        self.b.sink_wants(sink);
        self.b.finish(sink);
    }

    /// The stack of open elements, bottom (`html`) first.
    ///
    /// # Complexity
    /// O(1) unless elements were removed from the middle of the stack (the
    /// adoption agency, `</form>`, …) since the last compaction: then the
    /// first call after a token copies the stack once (O(depth)), and later
    /// calls until the next token are O(1).
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions, TagToken, TreeToken};
    /// let mut shadow = Shadow::new(ShadowOptions::default());
    /// let li = TagToken::new("li", vec![]);
    /// shadow.process_tree_token(TreeToken::StartTag(&li), Default::default(), &mut NoEvents);
    /// shadow.process_tree_token(TreeToken::StartTag(&li), Default::default(), &mut NoEvents);
    /// assert_eq!(shadow.open_elements().len(), 3); // html body li: the second <li> closed the first
    /// ```
    pub fn open_elements(
        &self,
    ) -> impl DoubleEndedIterator<Item = OpenElementRef<'_>> + ExactSizeIterator + Clone + '_ {
        let stack = &self.b.stack;
        stack.view().iter().map(|e| stack.show(e))
    }

    /// The [current node](https://html.spec.whatwg.org/multipage/parsing.html#current-node)
    /// (the top of the stack of open elements), if any.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions, TagToken, TreeToken};
    /// let mut shadow = Shadow::new(ShadowOptions::default());
    /// let p = TagToken::new("p", vec![]);
    /// shadow.process_tree_token(TreeToken::StartTag(&p), Default::default(), &mut NoEvents);
    /// assert_eq!(shadow.current_node().map(|e| e.name()), Some("p"));
    /// ```
    ///
    /// # Complexity
    /// O(1), also when [`Shadow::open_elements`] would have to copy the stack.
    pub fn current_node(&self) -> Option<OpenElementRef<'_>> {
        self.b.stack.current().map(|e| self.b.stack.show(e))
    }

    /// Whether `<![CDATA[` opens a CDATA section now: there is an
    /// [adjusted current node](https://html.spec.whatwg.org/multipage/parsing.html#adjusted-current-node)
    /// and it is not an element in the HTML namespace (the
    /// [markup declaration open state](https://html.spec.whatwg.org/multipage/parsing.html#markup-declaration-open-state)).
    /// A [`TokenSink`] that drives the shadow answers
    /// [`TokenSink::cdata_allowed`] with it.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions, TagToken, TreeToken};
    /// let mut shadow = Shadow::new(ShadowOptions::default());
    /// assert!(!shadow.cdata_allowed());
    /// let svg = TagToken::new("svg", vec![]);
    /// shadow.process_tree_token(TreeToken::StartTag(&svg), Default::default(), &mut NoEvents);
    /// assert!(shadow.cdata_allowed());
    /// ```
    ///
    /// # Complexity
    /// O(1).
    pub fn cdata_allowed(&self) -> bool {
        self.b.adjusted_current_kind().is_some_and(|(ns, _)| ns != Namespace::Html)
    }

    /// The common case of a text token, taken before the dispatcher: `token`
    /// is text that would change nothing the tree construction keeps and
    /// make no event for a sink that takes no text events (`text_events`
    /// false; [`EventSink::wants_text_events`]) — in "in body" (or a mode
    /// processing characters by its rules) with no U+0000
    /// ([`Token::scanned_without_nul`]), frameset-ok already "not ok" and no
    /// formatting element to reopen, or in "text". Then it is processed here
    /// (there is nothing to do: its feedback is the default) and `true` is
    /// returned; else `false`, and nothing is done: the caller processes it.
    /// [`Shadow::process`] takes this path itself; a caller that would pay for
    /// a call first asks here. With [`check_fast_path`](crate::check_fast_path)
    /// on, each token taken also runs through the full rules on a copy, which
    /// must then be equal.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions};
    /// use htrewrite_tokenizer::{Token, TokenSink, Tokenizer, Feedback};
    /// struct Skips(Shadow, Vec<bool>);
    /// impl TokenSink for Skips {
    ///     fn token(&mut self, t: &Token<'_>) -> Feedback {
    ///         if self.0.skip_inert_text(t, false) {
    ///             self.1.push(true);
    ///             return Feedback::default();
    ///         }
    ///         self.1.push(false);
    ///         self.0.process_monomorphized(t, &mut NoEvents)
    ///     }
    /// }
    /// let mut sink = Skips(Shadow::new(ShadowOptions::default()), Vec::new());
    /// let mut tokenizer = Tokenizer::new();
    /// // `a` sets frameset-ok to "not ok" (an implied body left it "ok");
    /// // `b` then inserts its characters only.
    /// tokenizer.feed(b"<p>a<p>b", &mut sink);
    /// tokenizer.finish(&mut sink);
    /// assert_eq!(sink.1, [false, false, false, true]);
    /// ```
    ///
    /// # Errors
    /// None.
    ///
    /// # Complexity
    /// O(1).
    #[inline(always)]
    pub fn skip_inert_text(&mut self, token: &Token<'_>, text_events: bool) -> bool {
        if !matches!(token.kind(), TokenKind::Text(_))
            || text_events
            || !self.b.text_is_inert(token.raw(), token.scanned_without_nul(), token.ends_before_markup())
        {
            return false;
        }
        if crate::fast::checking() {
            self.b.checked_inert_text(token);
        }
        true
    }

    /// Whether comment `token` changes nothing in the tree: processing it
    /// would only [insert a comment](https://html.spec.whatwg.org/multipage/parsing.html#insert-a-comment)
    /// (one [`Event::Comment`](crate::Event::Comment)) and leave every
    /// state as it was — in every insertion mode but "in table text" (whose
    /// pending characters it would insert first) and "text", once the
    /// dispatcher has started and with no newline after `<pre>` to skip.
    /// `true` means the caller has taken the token and processes it no
    /// further: for a sink that has no use for comment events (the
    /// rewriter's without content handlers); `false` for any other token.
    ///
    /// With [`check_fast_path`](crate::check_fast_path) on, each comment
    /// taken also runs through the full rules on a copy, which must make
    /// only its comment event and leave the same state
    /// ([`inert_comments_taken`](crate::inert_comments_taken) counts them).
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions};
    /// use htrewrite_tokenizer::{Feedback, Token, TokenSink, Tokenizer};
    /// struct Skips(Shadow, Vec<bool>);
    /// impl TokenSink for Skips {
    ///     fn token(&mut self, t: &Token<'_>) -> Feedback {
    ///         if t.kind() != htrewrite_tokenizer::TokenKind::Text(htrewrite_tokenizer::TextMode::Data) {
    ///             let skipped = self.0.skip_inert_comment(t);
    ///             self.1.push(skipped);
    ///             if skipped {
    ///                 return Feedback::default();
    ///             }
    ///         }
    ///         self.0.process_monomorphized(t, &mut NoEvents)
    ///     }
    /// }
    /// let mut sink = Skips(Shadow::new(ShadowOptions::default()), Vec::new());
    /// let mut tokenizer = Tokenizer::new();
    /// // The first comment comes before the dispatcher started; after
    /// // `<pre>` the comment ends the newline skipping.
    /// tokenizer.feed(b"<!--a--><p><!--b--><pre><!--c-->", &mut sink);
    /// tokenizer.finish(&mut sink);
    /// assert_eq!(sink.1, [false, false, true, false, false]);
    /// ```
    ///
    /// # Errors
    /// None.
    ///
    /// # Complexity
    /// O(1).
    #[inline(always)]
    pub fn skip_inert_comment(&mut self, token: &Token<'_>) -> bool {
        if !matches!(token.kind(), TokenKind::Comment(_)) || !self.b.comment_is_inert() {
            return false;
        }
        if crate::fast::checking() {
            self.b.checked_inert_comment(token);
        }
        true
    }

    /// The id of the [current node](https://html.spec.whatwg.org/multipage/parsing.html#current-node),
    /// if any: [`Shadow::current_node`] without its name.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions, TagToken, TreeToken};
    /// let mut shadow = Shadow::new(ShadowOptions::default());
    /// let p = TagToken::new("p", vec![]);
    /// shadow.process_tree_token(TreeToken::StartTag(&p), Default::default(), &mut NoEvents);
    /// assert_eq!(shadow.current_node_id(), shadow.current_node().map(|e| e.id()));
    /// ```
    #[inline]
    pub fn current_node_id(&self) -> Option<NodeId> {
        self.b.stack.current().map(|e| e.id)
    }

    /// The number of open elements, in O(1).
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions, TagToken, TreeToken};
    /// let mut shadow = Shadow::new(ShadowOptions::default());
    /// let p = TagToken::new("p", vec![]);
    /// shadow.process_tree_token(TreeToken::StartTag(&p), Default::default(), &mut NoEvents);
    /// assert_eq!(shadow.open_element_count(), shadow.open_elements().len()); // html body p
    /// ```
    pub fn open_element_count(&self) -> usize {
        self.b.stack.live_len()
    }

    /// The heap bytes the shadow holds for the stack of open elements (its
    /// entries, indexes and position map) and the list of active
    /// formatting elements, counted by capacity: what grows with the
    /// document's nesting, for memory limits. Fixed-size tables are not
    /// counted.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions, TagToken, TreeToken};
    /// let mut shadow = Shadow::new(ShadowOptions::default());
    /// let before = shadow.held_bytes();
    /// for _ in 0..1000 {
    ///     let div = TagToken::new("div", vec![]);
    ///     shadow.process_tree_token(TreeToken::StartTag(&div), Default::default(), &mut NoEvents);
    /// }
    /// // At least its entry (24 bytes), slot (8) and index entries per open element.
    /// assert!(shadow.held_bytes() >= before + 1000 * 40);
    /// ```
    pub fn held_bytes(&self) -> usize {
        self.b.stack.held_bytes() + self.b.fmt.held_bytes()
    }

    /// Whether the element `id` is on the stack of open elements (e.g. the
    /// head or form element pointer, or an element a selector matched).
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions, TagToken, TreeToken};
    /// let mut shadow = Shadow::new(ShadowOptions::default());
    /// let body = TagToken::new("body", vec![]);
    /// shadow.process_tree_token(TreeToken::StartTag(&body), Default::default(), &mut NoEvents);
    /// let head = shadow.head_element().unwrap();
    /// assert!(!shadow.is_open(head)); // closed when <body> came
    /// ```
    pub fn is_open(&self, id: NodeId) -> bool {
        self.b.stack.position(id).is_some()
    }

    /// The current insertion mode.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{InsertionMode, NoEvents, Shadow, ShadowOptions, TagToken, TreeToken};
    /// let mut shadow = Shadow::new(ShadowOptions::default());
    /// let t = TagToken::new("table", vec![]);
    /// shadow.process_tree_token(TreeToken::StartTag(&t), Default::default(), &mut NoEvents);
    /// assert_eq!(shadow.insertion_mode(), InsertionMode::InTable);
    /// ```
    pub fn insertion_mode(&self) -> InsertionMode {
        self.b.mode
    }

    /// The document's quirks mode (set by the DOCTYPE, or its absence).
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, QuirksMode, Shadow, ShadowOptions, TreeToken};
    /// use htrewrite_tokenizer::Doctype;
    /// let mut shadow = Shadow::new(ShadowOptions::default());
    /// let d = Doctype { name: Some("html".into()), ..Doctype::default() };
    /// shadow.process_tree_token(TreeToken::Doctype(&d), Default::default(), &mut NoEvents);
    /// assert_eq!(shadow.quirks_mode(), QuirksMode::NoQuirks);
    /// ```
    pub fn quirks_mode(&self) -> QuirksMode {
        self.b.quirks
    }

    /// The frameset-ok flag.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions, TreeToken};
    /// let mut shadow = Shadow::new(ShadowOptions::default());
    /// assert!(shadow.frameset_ok());
    /// shadow.process_tree_token(TreeToken::Text("x"), Default::default(), &mut NoEvents);
    /// assert!(!shadow.frameset_ok());
    /// ```
    pub fn frameset_ok(&self) -> bool {
        self.b.frameset_ok
    }

    /// Whether the next token, if it is text starting with U+000A LINE
    /// FEED, loses that character: set by the `pre`, `listing` and
    /// `textarea` start tags ("in body": "If the next token is a U+000A LINE
    /// FEED (LF) character token, then ignore that token"), cleared by the
    /// next token of any kind. The ignored newline opens, closes and
    /// reconstructs nothing.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions, TagToken, TreeToken};
    /// let mut shadow = Shadow::new(ShadowOptions::default());
    /// let pre = TagToken::new("pre", vec![]);
    /// shadow.process_tree_token(TreeToken::StartTag(&pre), Default::default(), &mut NoEvents);
    /// assert!(shadow.skips_next_newline());
    /// shadow.process_tree_token(TreeToken::Text("\nx"), Default::default(), &mut NoEvents);
    /// assert!(!shadow.skips_next_newline());
    /// ```
    pub fn skips_next_newline(&self) -> bool {
        self.b.skip_newline
    }

    /// Whether characters would now be foster-parented by the "in body"
    /// rules: the insertion mode is "in table", "in table body" or "in row"
    /// and the current node is not one under which text goes through "in
    /// table text" (`table`, `tbody`, `template`, `tfoot`, `thead`, `tr`),
    /// as in [`InsertionMode::InTable`]'s "anything else".
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions, TagToken, TreeToken};
    /// let mut shadow = Shadow::new(ShadowOptions::default());
    /// let table = TagToken::new("table", vec![]);
    /// shadow.process_tree_token(TreeToken::StartTag(&table), Default::default(), &mut NoEvents);
    /// assert!(!shadow.fosters_text());
    /// // A `div` in a table is foster-parented and stays the current node.
    /// let div = TagToken::new("div", vec![]);
    /// shadow.process_tree_token(TreeToken::StartTag(&div), Default::default(), &mut NoEvents);
    /// assert!(shadow.fosters_text());
    /// ```
    pub fn fosters_text(&self) -> bool {
        matches!(self.b.mode, InsertionMode::InTable | InsertionMode::InTableBody | InsertionMode::InRow)
            && !self.b.current_takes_table_text()
    }

    /// The scripting flag.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{Shadow, ShadowOptions};
    /// assert!(Shadow::new(ShadowOptions::default()).scripting());
    /// ```
    pub fn scripting(&self) -> bool {
        self.b.scripting
    }

    /// The head element pointer.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions, TreeToken};
    /// let mut shadow = Shadow::new(ShadowOptions::default());
    /// shadow.process_tree_token(TreeToken::Text("x"), Default::default(), &mut NoEvents);
    /// assert!(shadow.head_element().is_some()); // implied
    /// ```
    pub fn head_element(&self) -> Option<NodeId> {
        self.b.head.as_ref().map(|h| h.id)
    }

    /// For the elements the Standard inserts at most once in a document
    /// ([`INSERTED_ONCE`]), not a fragment: whether it has been inserted
    /// already. `None` for every other name, and for every name when
    /// parsing a fragment (an `svg` context inserts any number of foreign
    /// `head` elements). Not `html`: a later `<html>` start tag adds its
    /// attributes to the root in HTML content, but in foreign content
    /// (`<svg><html>`) it inserts a foreign element named `html` (it is not
    /// among the start tags that break out of foreign content), found by the
    /// fuzz target `rewriter_random`.
    ///
    /// - `head`: inserted by "before head", the only mode that inserts a
    ///   head element, which it leaves at once; a later `<head>` start tag is
    ///   ignored in every mode (in foreign content it breaks out and is
    ///   ignored "in body"), and "after head" pushes the same element back
    ///   on the stack, inserting nothing.
    ///
    /// Once `Some(true)`, a selector whose subjects all have these names can
    /// match no element inserted later.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions, TagToken, TreeToken};
    /// let mut shadow = Shadow::new(ShadowOptions::default());
    /// assert_eq!(shadow.inserted_once("head"), Some(false));
    /// let t = TagToken::new("title", vec![]);
    /// shadow.process_tree_token(TreeToken::StartTag(&t), Default::default(), &mut NoEvents);
    /// assert_eq!(shadow.inserted_once("head"), Some(true)); // implied
    /// assert_eq!(shadow.inserted_once("html"), None); // `<svg><html>` makes more
    /// assert_eq!(shadow.inserted_once("body"), None);
    /// ```
    pub fn inserted_once(&self, name: &str) -> Option<bool> {
        if self.b.context.is_some() {
            return None;
        }
        match name {
            "head" => Some(self.b.head.is_some()),
            _ => {
                debug_assert!(!INSERTED_ONCE.contains(&name));
                None
            }
        }
    }

    /// The form element pointer.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions, TagToken, TreeToken};
    /// let mut shadow = Shadow::new(ShadowOptions::default());
    /// let form = TagToken::new("form", vec![]);
    /// shadow.process_tree_token(TreeToken::StartTag(&form), Default::default(), &mut NoEvents);
    /// assert_eq!(shadow.form_element(), Some(shadow.open_elements().nth(2).unwrap().id()));
    /// ```
    pub fn form_element(&self) -> Option<NodeId> {
        self.b.form
    }

    /// Number of entries (markers included) of the list of active formatting elements.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions, TagToken, TreeToken};
    /// let mut shadow = Shadow::new(ShadowOptions::default());
    /// let b = TagToken::new("b", vec![]);
    /// for _ in 0..5 {
    ///     shadow.process_tree_token(TreeToken::StartTag(&b), Default::default(), &mut NoEvents);
    /// }
    /// assert_eq!(shadow.active_formatting_len(), 3); // Noah's Ark: at most three equal entries
    /// ```
    pub fn active_formatting_len(&self) -> usize {
        self.b.fmt.live_len()
    }

    /// The text mode the tokenizer starts in for a fragment (RCDATA for a
    /// `title`/`textarea` context, …), as the fragment parsing algorithm says.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{Namespace, Shadow, ShadowOptions};
    /// use htrewrite_tokenizer::TextMode;
    /// let o = ShadowOptions { fragment_context: Some(("title".into(), Namespace::Html)), ..ShadowOptions::default() };
    /// assert_eq!(Shadow::new(o).initial_text_mode(), TextMode::Rcdata);
    /// ```
    pub fn initial_text_mode(&self) -> TextMode {
        match &self.b.context {
            Some(c) if c.ns == Namespace::Html => match &*c.name {
                "title" | "textarea" => TextMode::Rcdata,
                "style" | "xmp" | "iframe" | "noembed" | "noframes" => TextMode::Rawtext,
                "noscript" if self.b.scripting => TextMode::Rawtext,
                "script" => TextMode::ScriptData,
                "plaintext" => TextMode::Plaintext,
                _ => TextMode::Data,
            },
            _ => TextMode::Data,
        }
    }
}

/// Running tokens on the builder (a part of [`Shadow`] apart from its token
/// buffers, so that a token filled into them can be run without moving them).
impl Builder {
    fn run<S: EventSink + ?Sized>(&mut self, token: TreeToken<'_>, span: Span, s: &mut S) -> Feedback {
        self.begin(span);
        let start = matches!(token, TreeToken::StartTag(_));
        match token {
            TreeToken::Text(t) => self.dispatch_text(t, s),
            TreeToken::StartTag(t) => {
                if !self.in_body_fast_start(t, names::known(Namespace::Html, &t.name), s) {
                    self.dispatch(Tok::Start(t), s);
                }
            }
            TreeToken::EndTag(t) => {
                if !self.in_body_fast_end(t, s) {
                    self.dispatch(Tok::End(t), s);
                }
            }
            TreeToken::Comment(d) => self.dispatch(Tok::Comment(CommentLike::Comment(d)), s),
            TreeToken::ProcessingInstruction { target, data } => {
                self.dispatch(Tok::Comment(CommentLike::Pi(target, data)), s)
            }
            TreeToken::Doctype(d) => self.dispatch(Tok::Doctype(d), s),
            TreeToken::Eof => self.finish(s),
        }
        self.feedback(start)
    }

    /// [`Builder::run`] for start tag `t` as [`fill_start_tag`] filled it:
    /// `short` is the HTML element id of a short known name, read from the
    /// tag's bytes, and then `t`'s name is left empty — the in-body fast
    /// path reads the id, and the name is filled only for the dispatcher.
    fn run_start<S: EventSink + ?Sized>(
        &mut self,
        t: &mut TagToken,
        short: Option<u32>,
        span: Span,
        s: &mut S,
    ) -> Feedback {
        self.begin(span);
        let known = match short {
            Some(key) => Some(key),
            None => names::known(Namespace::Html, &t.name),
        };
        if !self.in_body_fast_start(t, known, s) && !self.table_or_head_fast_start(t, known, s) {
            if let Some(key) = short {
                t.name.push_str(names::name(key));
            }
            self.dispatch(Tok::Start(t), s);
        }
        self.feedback(true)
    }

    /// What `sink` reads of the text ([`EventSink::wants_text`],
    /// [`EventSink::wants_text_events`]), kept for the token about to be
    /// processed: every entry to tree construction asks first.
    #[inline(always)]
    pub(crate) fn sink_wants<E: EventSink + ?Sized>(&mut self, sink: &E) {
        self.text_shown = sink.wants_text();
        self.text_events = sink.wants_text_events();
    }

    /// The steps before each token: `span` is the token's.
    #[inline(always)]
    pub(crate) fn begin(&mut self, span: Span) {
        // Between tokens no position is held anywhere: the stack may drop its holes.
        self.stack.maybe_compact();
        self.span = span;
        self.text_mode = None;
    }

    /// [`Builder::run`] for a text token that [`Builder::reads_text_as_classified`]
    /// accepted: `non_ws` tells whether it has characters that are not
    /// whitespace; `span` is the token's (no event carries it).
    fn run_classified_text<S: EventSink + ?Sized>(
        &mut self,
        non_ws: impl FnOnce() -> bool,
        span: Span,
        s: &mut S,
    ) -> Feedback {
        self.begin(span);
        self.dispatch_classified_text(s, non_ws);
        self.feedback(false)
    }

    pub(crate) fn feedback(&mut self, start: bool) -> Feedback {
        Feedback { text_mode: self.text_mode.take().filter(|_| start).unwrap_or(TextMode::Data) }
    }

    fn finish<S: EventSink + ?Sized>(&mut self, s: &mut S) {
        self.at_eof = true;
        if !self.stopped {
            self.dispatch(Tok::Eof, s);
        }
        if !self.stack.is_empty() {
            self.stop_parsing(s);
        }
        self.stopped = true;
    }
}

/// A [`TokenSink`] that drives a [`Shadow`] and hands its events to `E`.
///
/// Call [`ShadowSink::finish`] after `Tokenizer::finish` to run the
/// end-of-file steps.
///
/// # Example
/// ```
/// use htrewrite_shadow::{Event, OwnedEvent, Shadow, ShadowOptions, ShadowSink};
/// use htrewrite_tokenizer::Tokenizer;
/// let mut events = Vec::new();
/// let mut sink = ShadowSink::new(Shadow::new(ShadowOptions::default()), |e: Event<'_>| events.push(OwnedEvent::from(&e)));
/// let mut tokenizer = Tokenizer::new();
/// tokenizer.feed(b"<p>a<div>b", &mut sink);
/// tokenizer.finish(&mut sink);
/// sink.finish();
/// drop(sink);
/// assert!(events.iter().any(|e| matches!(e, OwnedEvent::ElementOpened { name, .. } if name == "div")));
/// ```
pub struct ShadowSink<E> {
    shadow: Shadow,
    events: E,
}

impl<E: EventSink> ShadowSink<E> {
    /// Wraps a shadow and an event sink.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions, ShadowSink};
    /// let sink = ShadowSink::new(Shadow::new(ShadowOptions::default()), NoEvents);
    /// assert!(sink.shadow().open_elements().len() == 0);
    /// ```
    pub fn new(shadow: Shadow, events: E) -> ShadowSink<E> {
        ShadowSink { shadow, events }
    }
    /// Runs the end-of-file steps (call after `Tokenizer::finish`).
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions, ShadowSink};
    /// use htrewrite_tokenizer::Tokenizer;
    /// let mut sink = ShadowSink::new(Shadow::new(ShadowOptions::default()), NoEvents);
    /// let mut tokenizer = Tokenizer::new();
    /// tokenizer.feed(b"<p>", &mut sink);
    /// tokenizer.finish(&mut sink);
    /// sink.finish();
    /// assert!(sink.shadow().open_elements().len() == 0);
    /// ```
    pub fn finish(&mut self) {
        self.shadow.finish(&mut self.events);
    }
    /// The shadow (its stack of open elements is what selectors match on).
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions, ShadowSink};
    /// let sink = ShadowSink::new(Shadow::new(ShadowOptions::default()), NoEvents);
    /// assert!(sink.shadow().scripting());
    /// ```
    pub fn shadow(&self) -> &Shadow {
        &self.shadow
    }
    /// The event sink.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{Event, EventSink, Shadow, ShadowOptions, ShadowSink};
    /// struct Count(usize);
    /// impl EventSink for Count {
    ///     fn event(&mut self, _: Event<'_>) { self.0 += 1; }
    /// }
    /// let mut sink = ShadowSink::new(Shadow::new(ShadowOptions::default()), Count(0));
    /// sink.finish();
    /// assert!(sink.events_mut().0 > 0); // html, head, body opened and closed
    /// ```
    pub fn events_mut(&mut self) -> &mut E {
        &mut self.events
    }
    /// Takes the shadow and the event sink back.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions, ShadowSink};
    /// let (shadow, _events) = ShadowSink::new(Shadow::new(ShadowOptions::default()), NoEvents).into_parts();
    /// assert!(shadow.open_elements().len() == 0);
    /// ```
    pub fn into_parts(self) -> (Shadow, E) {
        (self.shadow, self.events)
    }
}

impl<E: EventSink> TokenSink for ShadowSink<E> {
    fn token(&mut self, token: &Token<'_>) -> Feedback {
        self.shadow.process(token, &mut self.events)
    }

    fn cdata_allowed(&mut self) -> bool {
        self.shadow.cdata_allowed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word-at-a-time search agrees with the byte-by-byte one, for each
    /// special byte at each place of words and of the tail, and for bytes
    /// next to them (the zero-byte test has no false positives).
    #[test]
    fn specials_are_found_word_at_a_time() {
        let naive = |raw: &[u8]| !raw.iter().any(|&b| matches!(b, b'&' | b'\r' | 0));
        for len in 0..40 {
            for at in 0..len {
                for special in [b'&', b'\r', 0, b'%', b'\'', 0x0C, 0x0E, 1, 0x80, 0xFF, 0xA6, 0x8D] {
                    let mut raw = vec![b'x'; len];
                    raw[at] = special;
                    assert_eq!(without_specials(&raw), naive(&raw), "{raw:?}");
                    let mut around = vec![0x27u8; len]; // one above '&'
                    around[at] = special;
                    assert_eq!(without_specials(&around), naive(&around), "{around:?}");
                }
            }
        }
    }

    /// The NUL search agrees with the byte-by-byte one at each place of
    /// words, of the tail, and past the `memchr` threshold.
    #[test]
    fn nul_is_found_word_at_a_time() {
        for len in 0..80 {
            assert!(!has_nul(&vec![b'x'; len]));
            for at in 0..len {
                for (byte, nul) in [(0, true), (1, false), (0x80, false), (0xFF, false)] {
                    let mut raw = vec![b'x'; len];
                    raw[at] = byte;
                    assert_eq!(has_nul(&raw), nul, "{raw:?}");
                }
            }
        }
    }

    /// Fuzz finding `tokenizer_shadow/implied-span-invalid-utf8.bin`
    /// (2026-11-23): the span of an invalid first character is its maximal
    /// subpart, not a length guessed from the lead byte.
    #[test]
    fn first_non_whitespace_character_spans() {
        let cases: &[(&[u8], (u64, u64))] = &[
            (b"a", (0, 1)),
            (b"  ab", (2, 3)),
            (b"&#32;x", (5, 6)),
            ("é!".as_bytes(), (0, 2)),
            ("€!".as_bytes(), (0, 3)),
            ("😀!".as_bytes(), (0, 4)),
            (b"\x80a", (0, 1)),
            (b" \x80a", (1, 2)),
            (b"\xc0a", (0, 1)),
            (b"\xf5ab", (0, 1)),
            (b"\xe2\x82a", (0, 2)),
            (b"\xf0\x9f\x98", (0, 3)),
            (b"\xe2", (0, 1)),
            (b"\xed\xa0\x80", (0, 1)),
            (b"   ", (3, 3)),
            (b"", (0, 0)),
        ];
        for &(raw, (from, to)) in cases {
            assert_eq!(first_non_ws_char(raw, 0, true), Span::new(from, to), "{raw:?}");
        }
    }

    /// [`set_name`] leaves the name [`push_name`] makes from nothing, after
    /// any name decoded before (a known name's too): names that need work
    /// (upper case, NUL, non-ASCII, invalid UTF-8) and names equal, but for
    /// case, to the one before.
    #[test]
    fn set_name_is_push_name() {
        let raws: &[&[u8]] = &[
            b"",
            b"href",
            b"HREF",
            b"hRef",
            b"viewBox",
            b"viewbox",
            b"a\0b",
            b"\0",
            "\u{FFFD}".as_bytes(),
            "é".as_bytes(),
            "É".as_bytes(),
            b"\xff",
            b"\xef\xbf\xbd",
            b"data-x",
            b"emu-xref",
            b"div",
        ];
        let decode = |raw: &[u8]| {
            let mut s = String::new();
            push_name(&mut s, raw);
            s
        };
        for before in raws {
            for raw in raws {
                let mut out = decode(before);
                set_name(&mut out, raw);
                assert_eq!(out, decode(raw), "{raw:?} after {before:?}");
            }
        }
    }
}
