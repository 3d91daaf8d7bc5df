//! [`Element`] (start of an element) and [`ElementEnd`] (its end), with the
//! edits they record and the exact re-serialization of changed tags.

use std::borrow::Cow;

use htrewrite_shadow::{CloseCause, Namespace, NodeId, Origin, ShadowAttr};
use htrewrite_tokenizer::{AttributeSpan, Quote, Rel, Token};

use crate::ContentType;
use crate::content::{Context, Escapes, push_content, push_escaped};
use crate::core::ContextOwned;
use crate::deferred::{Mark, SlotCtx};
use crate::error::{EditError, EditErrorKind, HandlerResult};
use crate::location::{SourceLocation, locate};
use crate::nodes::Doc;
use crate::parsed::ParseInsert;
use crate::settings::{HandlerKind, IntoHandler, Local};
use crate::slot::Slot;

/// What happens to an element's tags and content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Removal {
    #[default]
    None,
    /// Tags and content.
    Whole,
    /// Tags only.
    KeepContent,
}

/// The state of one attribute once edits began.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AttrState {
    Kept,
    Changed,
    Removed,
    Added,
}

/// One attribute edit. Attributes without one are read from the start
/// tag as they are, so an edit costs only what it touches.
#[derive(Debug, Clone)]
struct AttrEdit {
    /// The name: as the handler wrote it for added attributes; compared
    /// ASCII case-insensitively.
    name: String,
    kind: AttrEditKind,
}

#[derive(Debug, Clone)]
enum AttrEditKind {
    /// The start tag's attribute at `span` (the first of its name, the one
    /// the parser keeps) gets `value`.
    Changed { span: AttributeSpan, value: String },
    /// The start tag's attribute at `span` goes (each of a name's
    /// duplicates has its own).
    Removed { span: AttributeSpan },
    /// A new attribute, written before the tag's end.
    Added { value: String },
    /// The value is a slot: over the start tag's attribute at `span` (its
    /// value the original), or a new attribute with an empty original.
    Deferred { span: Option<AttributeSpan>, slot: Slot },
}

impl AttrEdit {
    fn is(&self, lower: &str) -> bool {
        self.name.eq_ignore_ascii_case(lower)
    }
}

/// An attribute as [`Element::attributes`] builds its list.
#[derive(Debug, Clone)]
struct AttrEntry {
    name: String,
    value: String,
    span: Option<AttributeSpan>,
    state: AttrState,
    duplicate: bool,
}

/// Where a slot of an element's content goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    Before,
    Prepend,
    Append,
    After,
    /// Over the element's content.
    Inner,
    /// Over the element, tags and content.
    Replace,
}

/// A slot among an element's inserted content: at byte `at` of the
/// content inserted at `place` (after the earlier slots at the same byte).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Deferred {
    pub(crate) place: Place,
    pub(crate) at: usize,
    pub(crate) slot: Slot,
}

/// Everything handlers did to one element.
pub(crate) struct Edits<'h, K: HandlerKind> {
    pub(crate) before: Vec<u8>,
    pub(crate) prepend: Vec<u8>,
    pub(crate) append: Vec<u8>,
    pub(crate) after: Vec<u8>,
    pub(crate) replacement: Option<Vec<u8>>,
    pub(crate) inner: Option<Vec<u8>>,
    pub(crate) removal: Removal,
    /// Attribute edits, in the order handlers made them.
    attrs: Vec<AttrEdit>,
    /// The strings of attribute edits [`Edits::clear_for_reuse`] cleared
    /// (emptied; at most [`ATTR_EDITS_KEPT`] × 2 of at most
    /// [`SPARE_STRING_KEPT`] bytes), which the next
    /// `set_attribute` fills instead of allocating a name and a value.
    spare_strings: Vec<String>,
    pub(crate) name: Option<String>,
    pub(crate) end_handlers: Vec<K::EndHandler<'h>>,
    /// Made by the first slot (apart, so that edits without slots, the
    /// common case, stay as small and cheap to make and move as before).
    pub(crate) slots: Option<Box<SlotEdits>>,
    /// The number of the next slot.
    pub(crate) next_slot: u64,
    /// How deep in parsed content the element's start tag is (0: in the input).
    pub(crate) parse_level: u32,
}

/// The most attribute edits whose room [`Edits::clear_for_reuse`] keeps
/// (an element with more gives its list up).
const ATTR_EDITS_KEPT: usize = 16;

/// The largest capacity of a string [`Edits::spare_strings`] keeps (at most
/// 32 of them: 8 KiB held at worst).
const SPARE_STRING_KEPT: usize = 256;

/// The slots handlers made for one element.
#[derive(Debug, Default)]
pub(crate) struct SlotEdits {
    /// Slots of content (not attribute values), in output order per place.
    pub(crate) deferred: Vec<Deferred>,
    /// Every slot handlers made, with where its content lands.
    pub(crate) created: Vec<(Slot, SlotCtx)>,
    /// Slots given up by a later edit (or with no place: `defer_append`
    /// on a void element).
    pub(crate) discarded: Vec<Slot>,
    /// Parsed content at the start of the element's content, in order
    /// ([`ContentType::ParsedHtml`]).
    pub(crate) parsed: Vec<ParseInsert>,
}

impl<'h, K: HandlerKind> Default for Edits<'h, K> {
    fn default() -> Self {
        Edits {
            before: Vec::new(),
            prepend: Vec::new(),
            append: Vec::new(),
            after: Vec::new(),
            replacement: None,
            inner: None,
            removal: Removal::None,
            attrs: Vec::new(),
            spare_strings: Vec::new(),
            name: None,
            end_handlers: Vec::new(),
            slots: None,
            next_slot: 0,
            parse_level: 0,
        }
    }
}

impl<K: HandlerKind> Edits<'_, K> {
    /// Whether the start tag's bytes change.
    pub(crate) fn start_tag_changed(&self) -> bool {
        self.name.is_some() || !self.attrs.is_empty()
    }

    /// Whether the handlers changed nothing: no content, removal,
    /// attribute, name or end handler (the start tag goes out as it came).
    pub(crate) fn is_untouched(&self) -> bool {
        // A rename is end work ([`Edits::has_end_work`]): the attributes
        // are what is left of `start_tag_changed`.
        self.attrs.is_empty() && self.only_start_tag_edits()
    }

    /// Whether the handlers changed attributes and nothing else: no
    /// content, removal, rename, slot or end handler (`Core::element_edited`'s
    /// short path; `attribute_change_with_every_other_edit` fails with any
    /// test of [`Edits::only_start_tag_edits`] left out).
    pub(crate) fn only_attributes_changed(&self) -> bool {
        !self.attrs.is_empty() && self.only_start_tag_edits()
    }

    /// Whether nothing but the start tag's attributes may have changed:
    /// nothing goes before the element or at its content's start, no
    /// replacement, slot or work for its end (a rename is end work: the
    /// end tag changes too).
    fn only_start_tag_edits(&self) -> bool {
        self.before.is_empty()
            && self.prepend.is_empty()
            && self.replacement.is_none()
            && !self.has_end_work()
            && self.slots.is_none()
    }

    /// Whether anything waits for the element's end.
    pub(crate) fn has_end_work(&self) -> bool {
        !self.append.is_empty()
            || !self.after.is_empty()
            || self.inner.is_some()
            || self.removal != Removal::None
            || self.name.is_some()
            || !self.end_handlers.is_empty()
            || self.deferred().iter().any(|d| !matches!(d.place, Place::Before | Place::Prepend))
    }

    /// The slots of content, in output order per place.
    pub(crate) fn deferred(&self) -> &[Deferred] {
        self.slots.as_ref().map_or(&[], |s| &s.deferred)
    }

    fn slots_mut(&mut self) -> &mut SlotEdits {
        self.slots.get_or_insert_with(Box::default)
    }

    /// Gives up the slots at `place`.
    fn discard_place(&mut self, place: Place) {
        let Some(slots) = &mut self.slots else { return };
        if place == Place::Prepend {
            // Parsed content given up is never parsed; its slots do nothing.
            for insert in slots.parsed.drain(..) {
                if let ParseInsert::Slot(slot, ctx) = insert {
                    slots.created.push((slot, ctx));
                    slots.discarded.push(slot);
                }
            }
        }
        let discarded = &mut slots.discarded;
        slots.deferred.retain(|d| {
            if d.place == place {
                discarded.push(d.slot);
            }
            d.place != place
        });
    }

    /// Content of `len` bytes was put in front of the content at `place`:
    /// its slots move along.
    fn shift(&mut self, place: Place, len: usize) {
        let Some(slots) = &mut self.slots else { return };
        for d in slots.deferred.iter_mut().filter(|d| d.place == place) {
            d.at += len;
        }
    }

    /// A slot in front of everything at `place` (`after`, `prepend`).
    fn defer_first(&mut self, place: Place, slot: Slot) {
        let deferred = &mut self.slots_mut().deferred;
        let i = deferred.iter().position(|d| d.place == place).unwrap_or(deferred.len());
        deferred.insert(i, Deferred { place, at: 0, slot });
    }

    /// Takes the attribute `lower`'s slot edits out, giving their slots up.
    /// `s` in a string of [`Edits::spare_strings`] when there is one.
    fn string_of(&mut self, s: &str) -> String {
        let mut out = self.spare_strings.pop().unwrap_or_default();
        out.push_str(s);
        out
    }

    fn take_deferred_attribute(&mut self, lower: &str) {
        let Some(slots) = &mut self.slots else { return };
        let discarded = &mut slots.discarded;
        self.attrs.retain(|e| match e.kind {
            AttrEditKind::Deferred { slot, .. } if e.is(lower) => {
                discarded.push(slot);
                false
            }
            _ => true,
        });
    }

    /// Bytes held (for the memory limit).
    pub(crate) fn held_bytes(&self) -> usize {
        self.before.len()
            + self.prepend.len()
            + self.append.len()
            + self.after.len()
            + self.replacement.as_ref().map_or(0, Vec::len)
            + self.inner.as_ref().map_or(0, Vec::len)
            + self
                .attrs
                .iter()
                .map(|e| {
                    e.name.len()
                        + 48
                        + match &e.kind {
                            AttrEditKind::Changed { value, .. } | AttrEditKind::Added { value } => value.len(),
                            AttrEditKind::Removed { .. } | AttrEditKind::Deferred { .. } => 0,
                        }
                })
                .sum::<usize>()
    }

    /// Makes these edits untouched again ([`Edits::is_untouched`]) for the
    /// next element, keeping the capacity of the attribute list and of the
    /// content buffers no larger than `kept` bytes (no allocation per
    /// edited element; memory stays bounded by what one element needs).
    pub(crate) fn clear_for_reuse(&mut self, kept: usize) {
        for buf in [&mut self.before, &mut self.prepend, &mut self.append, &mut self.after] {
            buf.clear();
            if buf.capacity() > kept {
                *buf = Vec::new();
            }
        }
        self.replacement = None;
        self.inner = None;
        self.removal = Removal::None;
        self.clear_attribute_edits(kept);
        self.end_handlers.clear();
        self.slots = None;
    }

    /// [`Edits::clear_for_reuse`] for edits that changed attributes and
    /// nothing else ([`Edits::only_attributes_changed`]): what it does
    /// with them, the rest being untouched already.
    pub(crate) fn clear_attribute_edits(&mut self, kept: usize) {
        let spare = &mut self.spare_strings;
        let mut keep = |mut s: String| {
            if spare.len() < 2 * ATTR_EDITS_KEPT && s.capacity() <= SPARE_STRING_KEPT.min(kept) {
                s.clear();
                spare.push(s);
            }
        };
        // Pops, not a drain: most edits change one attribute, and a drain's
        // set-up costs more than its move.
        while let Some(e) = self.attrs.pop() {
            keep(e.name);
            if let AttrEditKind::Changed { value, .. } | AttrEditKind::Added { value } = e.kind {
                keep(value);
            }
        }
        if self.attrs.capacity() > ATTR_EDITS_KEPT {
            self.attrs = Vec::new();
        }
        self.name = None;
    }

    /// The start tag with the common edit applied, one attribute's value
    /// changed (`href`, `src`; no mark, no rename): written in place, every
    /// other byte kept, and `true`; else nothing is written and `false`, and
    /// the caller writes the tag by [`Edits::write_start_tag_general`] (which
    /// the tests compare this with).
    #[inline]
    pub(crate) fn write_one_value_changed(&self, token: &Token<'_>, doc: Doc<'_>, out: &mut Vec<u8>) -> bool {
        if self.name.is_none()
            && let [AttrEdit { kind: AttrEditKind::Changed { span, value }, .. }] = &self.attrs[..]
            && let Some(v) = span.value
        {
            let raw = token.raw();
            out.extend_from_slice(&raw[..v.start]);
            write_value(span.quote, value, doc, out);
            out.extend_from_slice(&raw[v.end..]);
            return true;
        }
        false
    }

    /// The start tag with any edits applied: only changed attributes (and
    /// the name) are rewritten, every other byte is kept — each change as a
    /// replaced range of the tag's bytes, applied in order. The marks of
    /// attribute-value slots go to `marks`, at offsets of `out`.
    pub(crate) fn write_start_tag_general(
        &self,
        token: &Token<'_>,
        doc: Doc<'_>,
        out: &mut Vec<u8>,
        marks: &mut Vec<(usize, Mark)>,
    ) {
        let raw = token.raw();
        let mut edits: Vec<(usize, usize, Vec<u8>)> = Vec::new();
        let mut slot_edits: Vec<SlotEdit> = Vec::new();
        if let Some(name) = &self.name {
            let r = token.tag_name_span();
            edits.push((r.start, r.end, name.as_bytes().to_vec()));
        }
        let name_end = token.tag_name_span().end;
        let tag_end = if token.is_self_closing() && raw.ends_with(b"/>") { raw.len() - 2 } else { raw.len() - 1 };
        let mut added = Vec::new();
        for e in &self.attrs {
            match &e.kind {
                AttrEditKind::Changed { span, value } => match span.value {
                    Some(v) => {
                        let mut bytes = Vec::new();
                        write_value(span.quote, value, doc, &mut bytes);
                        edits.push((v.start, v.end, bytes));
                    }
                    None => {
                        let mut bytes = b"=\"".to_vec();
                        escape_value(value, b'"', doc, &mut bytes);
                        bytes.push(b'"');
                        edits.push((span.name.end, span.name.end, bytes));
                    }
                },
                AttrEditKind::Removed { span } => {
                    let end = match span.value {
                        Some(v) => v.end + usize::from(span.quote != Quote::None),
                        None => span.name.end,
                    };
                    let mut start = span.name.start;
                    while start > name_end && raw[start - 1].is_ascii_whitespace() {
                        start -= 1;
                    }
                    edits.push((start, end, Vec::new()));
                }
                AttrEditKind::Added { value } => {
                    added.push(b' ');
                    added.extend_from_slice(e.name.as_bytes());
                    added.extend_from_slice(b"=\"");
                    escape_value(value, b'"', doc, &mut added);
                    added.push(b'"');
                }
                AttrEditKind::Deferred { span, slot } => {
                    deferred_attribute_edit(raw, &e.name, *span, *slot, &mut edits, &mut slot_edits, &mut added);
                }
            }
        }
        if !added.is_empty() {
            edits.push((tag_end, tag_end, added));
        }
        edits.sort_by_key(|e| (e.0, e.1));
        if !slot_edits.is_empty() {
            return write_marked(raw, edits, &slot_edits, out, marks);
        }
        let mut at = 0;
        for (start, end, bytes) in edits {
            out.extend_from_slice(&raw[at..start]);
            out.extend_from_slice(&bytes);
            at = end;
        }
        out.extend_from_slice(&raw[at..]);
    }
}

/// An attribute-value slot in a start tag being written: the range of the
/// edit over it (`None`: in the attributes added before the tag's end), the
/// slot, and its marks at offsets of the edit's bytes.
type SlotEdit = (Option<(usize, usize)>, Slot, usize, usize);

/// The edit for an attribute whose value is `slot`: over the start tag's
/// attribute at `span` (its value kept between the marks, an unquoted one
/// quoted), or a new attribute ` name=""` with the marks inside the quotes.
#[inline(never)]
fn deferred_attribute_edit(
    raw: &[u8],
    name: &str,
    span: Option<AttributeSpan>,
    slot: Slot,
    edits: &mut Vec<(usize, usize, Vec<u8>)>,
    slot_edits: &mut Vec<SlotEdit>,
    added: &mut Vec<u8>,
) {
    match span {
        Some(span) => match span.value {
            Some(v) => {
                let value = &raw[v.start..v.end];
                let (bytes, at) = match span.quote {
                    Quote::None => ([b"\"", value, b"\""].concat(), 1),
                    _ => (value.to_vec(), 0),
                };
                slot_edits.push((Some((v.start, v.end)), slot, at, at + value.len()));
                edits.push((v.start, v.end, bytes));
            }
            None => {
                slot_edits.push((Some((span.name.end, span.name.end)), slot, 2, 2));
                edits.push((span.name.end, span.name.end, b"=\"\"".to_vec()));
            }
        },
        None => {
            added.push(b' ');
            added.extend_from_slice(name.as_bytes());
            added.extend_from_slice(b"=\"");
            slot_edits.push((None, slot, added.len(), added.len()));
            added.push(b'"');
        }
    }
}

/// Writes a start tag's sorted `edits` over `raw` into `out`, with the
/// marks of `slot_edits` at their offsets. The added attributes, when there
/// are any, are the last edit: at the tag's end, pushed last, and no other
/// edit begins there and ends later.
#[inline(never)]
fn write_marked(
    raw: &[u8],
    edits: Vec<(usize, usize, Vec<u8>)>,
    slot_edits: &[SlotEdit],
    out: &mut Vec<u8>,
    marks: &mut Vec<(usize, Mark)>,
) {
    let has_added = slot_edits.iter().any(|e| e.0.is_none());
    let last = edits.len().saturating_sub(1);
    let mut at = 0;
    for (i, (start, end, bytes)) in edits.into_iter().enumerate() {
        out.extend_from_slice(&raw[at..start]);
        let key = if has_added && i == last { None } else { Some((start, end)) };
        for &(_, slot, open, close) in slot_edits.iter().filter(|e| e.0 == key) {
            marks.push((out.len() + open, Mark::Open(slot)));
            marks.push((out.len() + close, Mark::Close(slot)));
        }
        out.extend_from_slice(&bytes);
        at = end;
    }
    out.extend_from_slice(&raw[at..]);
}

/// Escapes an attribute value for `quote` (`&` always, the quote character).
/// The new `value` of an attribute whose old value was quoted with
/// `quote`, in its place: escaped for the same quotes; an unquoted one
/// stays unquoted where that reads back the same, and is quoted otherwise.
fn write_value(quote: Quote, value: &str, doc: Doc<'_>, out: &mut Vec<u8>) {
    // The common value (a URL, an id): no byte that any quoting escapes or
    // that would end an unquoted value, written in UTF-8: its bytes, what
    // `write_value_general` writes for it with every quote.
    if doc.encoding == encoding_rs::UTF_8 && (quote != Quote::None || !value.is_empty()) && !may_care(value.as_bytes())
    {
        out.extend_from_slice(value.as_bytes());
        return;
    }
    write_value_general(quote, value, doc, out);
}

/// The bytes [`write_value`] must look at: those escaped in a quoted value
/// (`&` and the quotes) and those that end an unquoted one ([`unquoted_safe`]).
const VALUE_CARE_BYTES: &[u8] = b"&\"'\t\n\x0c\r =<>`";

/// [`VALUE_CARE_BYTES`] as a table by byte.
static VALUE_CARE: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < VALUE_CARE_BYTES.len() {
        t[VALUE_CARE_BYTES[i] as usize] = true;
        i += 1;
    }
    t
};

/// Whether `value` may hold a byte of [`VALUE_CARE_BYTES`]: `false` when it
/// certainly does not. Eight bytes at a time for a value of eight or more
/// (its last bytes as the word of its last eight), without a branch per
/// word: the bytes below 0x21 (whitespace among them; the other control
/// bytes too, which only send a value to [`write_value_general`], where
/// they are written as they are), `"`, `&` and `'`, `<` `=` `>`, and `` ` ``.
#[inline]
fn may_care(value: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    if value.len() < 8 {
        return value.iter().any(|&b| VALUE_CARE[usize::from(b)]);
    }
    // The high bit of each byte of `y` below `n` (and maybe of bytes above
    // one that is, by a borrow): exact as to whether there is one.
    let below = |y: u64, n: u8| y.wrapping_sub(ONES * u64::from(n)) & !y & HIGH;
    // `x ^ c` is below 1, 2 or 3 exactly for `c`; `c`, `c ^ 1`; `c`, `c ^ 1`, `c ^ 2`.
    let flags = |x: u64| {
        below(x, 0x21)
            | below(x ^ (ONES * u64::from(b'"')), 1)
            | below(x ^ (ONES * u64::from(b'&')), 2)
            | below(x ^ (ONES * u64::from(b'<')), 3)
            | below(x ^ (ONES * u64::from(b'`')), 1)
    };
    let word = |w: &[u8]| u64::from_le_bytes(w.try_into().expect("eight bytes"));
    let mut words = value.chunks_exact(8);
    let mut any = 0;
    for w in &mut words {
        any |= flags(word(w));
    }
    if !words.remainder().is_empty() {
        any |= flags(word(&value[value.len() - 8..]));
    }
    any != 0
}

/// [`write_value`] for every value.
fn write_value_general(quote: Quote, value: &str, doc: Doc<'_>, out: &mut Vec<u8>) {
    match quote {
        Quote::Double => escape_value(value, b'"', doc, out),
        Quote::Single => escape_value(value, b'\'', doc, out),
        Quote::None if unquoted_safe(value) => escape_value(value, b'"', doc, out),
        Quote::None => {
            out.push(b'"');
            escape_value(value, b'"', doc, out);
            out.push(b'"');
        }
    }
}

fn escape_value(value: &str, quote: u8, doc: Doc<'_>, out: &mut Vec<u8>) {
    let set = if quote == b'"' { Escapes::DoubleQuoted } else { Escapes::SingleQuoted };
    // Attribute values allow character references, so nothing is unencodable.
    push_escaped(value, set, doc.encoding, out).expect("references stand in for unencodable characters");
}

/// Whether a value can stay unquoted after escaping `&`.
fn unquoted_safe(value: &str) -> bool {
    // The bytes write_value looks at, but `&` (escaped the same in any quoting).
    !value.is_empty() && !value.bytes().any(|b| b != b'&' && VALUE_CARE[usize::from(b)])
}

/// HTML void elements (and legacy ones the parser treats alike).
pub(crate) fn is_void(name: &str) -> bool {
    matches!(
        name,
        "area"
            | "base"
            | "basefont"
            | "bgsound"
            | "br"
            | "col"
            | "embed"
            | "frame"
            | "hr"
            | "img"
            | "input"
            | "keygen"
            | "link"
            | "meta"
            | "param"
            | "source"
            | "track"
            | "wbr"
    )
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.as_bytes()[0].is_ascii_alphabetic()
        && !name.bytes().any(|b| matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'/' | b'>' | 0))
}

fn valid_attribute_name(name: &str) -> bool {
    !name.is_empty()
        && !name
            .bytes()
            .any(|b| matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'/' | b'>' | b'=' | b'"' | b'\'' | b'<' | 0))
}

/// Whether renaming an HTML element `from` to `to` changes how the tokenizer
/// reads its content (with scripting on or off: `noscript` depends on it),
/// or, for an element whose content is not markup, renames it at all (only
/// its own end tag name ends RAWTEXT, RCDATA and script data).
fn changes_text_mode(from: &str, to: &str) -> bool {
    let (from, to) = (from.to_ascii_lowercase(), to.to_ascii_lowercase());
    [true, false].into_iter().any(|scripting| {
        let old = htrewrite_tokenizer::text_mode_for_tag(from.as_bytes(), scripting);
        let new = htrewrite_tokenizer::text_mode_for_tag(to.as_bytes(), scripting);
        old != new || (old != htrewrite_tokenizer::TextMode::Data && from != to)
    })
}

/// Where an element comes from, as the core describes it to views.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Source<'r> {
    pub(crate) id: NodeId,
    pub(crate) ns: Namespace,
    pub(crate) origin: Origin,
    /// The start tag, for elements made from one.
    pub(crate) token: Option<&'r Token<'r>>,
    /// The shadow's (adjusted) local name.
    pub(crate) name: &'r str,
    /// Attributes of elements without a start tag (clones keep their original's).
    pub(crate) implied_attrs: &'r [ShadowAttr],
    pub(crate) self_closing: bool,
    /// Where an element without a start tag begins.
    pub(crate) at: u64,
}

/// One attribute, as [`Element::attributes`] lists it.
///
/// # Example
/// ```
/// use htrewrite::{Settings, rewrite_str};
/// let mut seen = Vec::new();
/// let settings = Settings::new().element("a", |el| {
///     seen = el.attributes();
///     Ok(())
/// });
/// rewrite_str("<a HREF='x&amp;y' id=i>", settings)?;
/// assert_eq!(seen[0].name, "href");
/// assert_eq!(seen[0].name_preserve_case, "HREF");
/// assert_eq!(seen[0].value, "x&y");
/// assert_eq!(seen[0].raw_value.as_deref(), Some(&b"x&amp;y"[..]));
/// assert_eq!(seen[1].value_bytes, Some(21..22));
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attribute {
    /// The name, ASCII-lowercased.
    pub name: String,
    /// The name as the source writes it, or as a handler set it (lol_html's
    /// `Attribute::name_preserve_case`).
    pub name_preserve_case: String,
    /// The value, character references decoded.
    pub value: String,
    /// The value's bytes in the input (without quotes), when from the input
    /// and unchanged.
    pub raw_value: Option<Vec<u8>>,
    /// Where the name is in the input.
    pub name_bytes: Option<std::ops::Range<u64>>,
    /// Where the value is in the input (without quotes).
    pub value_bytes: Option<std::ops::Range<u64>>,
}

/// An element, as element handlers see it when it is opened.
///
/// Reading: name, namespace, attributes (edits made by earlier handlers
/// included). Editing the start tag rewrites only what changes: one
/// attribute's value, an attribute removed with the whitespace before it,
/// new attributes before the tag's `>` (or `/>`), the name (also in the end
/// tag). Content can be inserted around and inside the element, and the
/// element removed or replaced; these work on byte positions of the input,
/// which the tree-builder shadow decides: an element whose end tag is
/// implied ends right before the token that implies it (`<p>a<div>`), an
/// element open at the end of input ends there.
///
/// Elements the parser creates without a start tag (implied `html`, `head`,
/// `body`, `tbody`, `tr`, `colgroup`; clones of formatting elements) are
/// matched and can take inserted content, be removed (the bytes from where
/// they begin to where they end) or replaced, but have no tag to edit:
/// `set_attribute`, `remove_attribute` and `set_tag_name` return
/// [`EditErrorKind::NoStartTag`].
///
/// Consecutive `before` and `append` calls add after earlier content;
/// consecutive `after` and `prepend` calls add before earlier content (each
/// lands right next to the tag), as in lol-html and Cloudflare's HTMLRewriter.
///
/// # Example
/// ```
/// use htrewrite::{ContentType, Settings, rewrite_str};
/// let settings = Settings::new().element("p", |el| {
///     el.append("!", ContentType::Text)?;
///     Ok(())
/// });
/// // the first <p> ends where the <div> implies its end
/// assert_eq!(rewrite_str("<p>a<div>b</div>", settings)?, "<p>a!<div>b</div>");
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
pub struct Element<'r, 'h, K: HandlerKind = Local> {
    pub(crate) src: Source<'r>,
    pub(crate) ctx: Context<'r>,
    pub(crate) doc: Doc<'r>,
    pub(crate) e: &'r mut Edits<'h, K>,
}

/// `name` ASCII-lowercased, as attribute names are compared: names are
/// mostly lowercase already (`href`), and then not copied.
fn lowercase_name(name: &str) -> Cow<'_, str> {
    if name.bytes().any(|b| b.is_ascii_uppercase()) { name.to_ascii_lowercase().into() } else { name.into() }
}

impl<'h, K: HandlerKind> Element<'_, 'h, K> {
    /// The tag name, ASCII-lowercased (as renamed by an earlier handler, if so).
    /// For foreign elements the source name lowercased (`foreignobject`); see
    /// [`Element::local_name`] for the DOM's.
    pub fn tag_name(&self) -> Cow<'_, str> {
        if let Some(n) = &self.e.name {
            return Cow::Owned(n.to_ascii_lowercase());
        }
        match &self.src.token {
            Some(t) => t.tag_name(),
            None => Cow::Borrowed(self.src.name),
        }
    }

    /// The tag name as the source writes it (lol_html's
    /// `tag_name_preserve_case`), or as an earlier handler renamed it; for an
    /// element the parser made without a start tag, its lowercase name.
    /// Invalid UTF-8 in the name is replaced (U+FFFD).
    ///
    /// # Example
    /// ```
    /// use htrewrite::{Settings, rewrite_str};
    /// let mut names = Vec::new();
    /// let settings = Settings::new().element("div, body", |el| {
    ///     names.push(el.tag_name_preserve_case().into_owned());
    ///     Ok(())
    /// });
    /// rewrite_str("<DiV>x</div>", settings)?;
    /// assert_eq!(names, ["body", "DiV"]); // `body` is implied
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    pub fn tag_name_preserve_case(&self) -> Cow<'_, str> {
        if let Some(n) = &self.e.name {
            return Cow::Borrowed(n);
        }
        match &self.src.token {
            Some(t) => String::from_utf8_lossy(t.raw_tag_name()),
            None => Cow::Borrowed(self.src.name),
        }
    }

    /// The DOM's local name (adjusted case for SVG and MathML: `foreignObject`).
    pub fn local_name(&self) -> &str {
        self.src.name
    }

    /// The namespace.
    pub fn namespace(&self) -> Namespace {
        self.src.ns
    }

    /// The namespace URL.
    pub fn namespace_uri(&self) -> &'static str {
        self.src.ns.url()
    }

    /// How the parser made the element.
    pub fn origin(&self) -> Origin {
        self.src.origin
    }

    /// Whether the element has a start tag in the input.
    pub fn has_start_tag(&self) -> bool {
        self.src.token.is_some()
    }

    /// The shadow's id of the element (stable within one document).
    pub fn id(&self) -> NodeId {
        self.src.id
    }

    /// Whether the start tag ends with `/>` and the parser acknowledged it
    /// (void elements, foreign elements).
    pub fn is_self_closing(&self) -> bool {
        self.src.self_closing
    }

    /// Whether the element can have content: not a void element (`<br>`,
    /// `<img>`…) and not a self-closed foreign element. `prepend`, `append`
    /// and `set_inner_content` are no-ops on elements that cannot.
    pub fn can_have_content(&self) -> bool {
        !(self.src.self_closing || (self.src.ns == Namespace::Html && is_void(self.src.name)))
    }

    /// Where the start tag is (an empty range where an element without one begins).
    pub fn source_location(&self) -> SourceLocation {
        match &self.src.token {
            Some(t) => locate(self.doc.lines, t.span().start..t.span().end),
            None => locate(self.doc.lines, self.src.at..self.src.at),
        }
    }

    fn read_attributes(&self) -> Vec<AttrEntry> {
        match &self.src.token {
            Some(t) => {
                let utf8 = self.doc.encoding == encoding_rs::UTF_8;
                t.attributes()
                    .into_iter()
                    .map(|a| {
                        let value = match a.span.value {
                            Some(v) if !utf8 && !v.slice(t.raw()).is_ascii() => {
                                let (s, _) = self.doc.encoding.decode_without_bom_handling(v.slice(t.raw()));
                                htrewrite_tokenizer::decode_attribute_value(s.as_bytes()).into_owned()
                            }
                            _ => a.value.into_owned(),
                        };
                        AttrEntry {
                            name: a.name.into_owned(),
                            value,
                            span: Some(a.span),
                            state: AttrState::Kept,
                            duplicate: a.duplicate,
                        }
                    })
                    .collect()
            }
            None => self
                .src
                .implied_attrs
                .iter()
                .map(|a| AttrEntry {
                    name: match a.namespace.prefix() {
                        Some(p) if a.name != p => format!("{p}:{}", a.name),
                        _ => a.name.clone(),
                    },
                    value: a.value.clone(),
                    span: None,
                    state: AttrState::Kept,
                    duplicate: false,
                })
                .collect(),
        }
    }

    /// The attributes, in source order; duplicates (which the parser drops)
    /// and removed ones are left out, added ones come last.
    pub fn attributes(&self) -> Vec<Attribute> {
        let mut entries = self.read_attributes();
        for edit in &self.e.attrs {
            match &edit.kind {
                AttrEditKind::Changed { span, value } => {
                    if let Some(e) = entries.iter_mut().find(|e| e.span == Some(*span)) {
                        e.value.clone_from(value);
                        e.state = AttrState::Changed;
                    }
                }
                AttrEditKind::Removed { span } => {
                    if let Some(e) = entries.iter_mut().find(|e| e.span == Some(*span)) {
                        e.state = AttrState::Removed;
                    }
                }
                AttrEditKind::Added { value } => entries.push(AttrEntry {
                    name: edit.name.clone(),
                    value: value.clone(),
                    span: None,
                    state: AttrState::Added,
                    duplicate: false,
                }),
                // The original value until the slot is decided.
                AttrEditKind::Deferred { span: Some(_), .. } => {}
                AttrEditKind::Deferred { span: None, .. } => entries.push(AttrEntry {
                    name: edit.name.clone(),
                    value: String::new(),
                    span: None,
                    state: AttrState::Added,
                    duplicate: false,
                }),
            }
        }
        let base = self.src.token.map_or(0, |t| t.span().start);
        let raw = self.src.token.map(|t| t.raw());
        entries
            .iter()
            .filter(|e| !e.duplicate && e.state != AttrState::Removed)
            .map(|e| {
                let abs = |r: Rel| base + r.start as u64..base + r.end as u64;
                Attribute {
                    name: e.name.to_ascii_lowercase(),
                    name_preserve_case: match (e.span, raw) {
                        (Some(s), Some(raw)) => String::from_utf8_lossy(s.name.slice(raw)).into_owned(),
                        _ => e.name.clone(),
                    },
                    value: e.value.clone(),
                    raw_value: match (e.state, e.span, raw) {
                        (AttrState::Kept, Some(s), Some(raw)) => {
                            Some(s.value.map_or(Vec::new(), |v| v.slice(raw).to_vec()))
                        }
                        _ => None,
                    },
                    name_bytes: e.span.map(|s| abs(s.name)),
                    value_bytes: e.span.and_then(|s| s.value).map(abs),
                }
            })
            .collect()
    }

    /// The decoded value of the attribute `name` (ASCII case-insensitive).
    pub fn get_attribute(&self, name: &str) -> Option<String> {
        let lower = lowercase_name(name);
        // A name's edits are a change, or removals with perhaps one added
        // attribute after them, or an added attribute.
        let mut edited = false;
        for e in self.e.attrs.iter().filter(|e| e.is(&lower)) {
            match &e.kind {
                AttrEditKind::Changed { value, .. } | AttrEditKind::Added { value } => return Some(value.clone()),
                AttrEditKind::Removed { .. } => edited = true,
                AttrEditKind::Deferred { span: None, .. } => return Some(String::new()),
                AttrEditKind::Deferred { span: Some(_), .. } => {}
            }
        }
        if edited {
            return None;
        }
        match &self.src.token {
            Some(t) if self.doc.encoding == encoding_rs::UTF_8 => t.attribute(&lower).map(Cow::into_owned),
            Some(_) => self.read_attributes().into_iter().find(|e| !e.duplicate && e.name == lower).map(|e| e.value),
            None => self.src.implied_attrs.iter().find(|a| a.name == lower).map(|a| a.value.clone()),
        }
    }

    /// Whether the attribute `name` is present.
    pub fn has_attribute(&self, name: &str) -> bool {
        self.get_attribute(name).is_some()
    }

    /// Sets the attribute `name` to `value` (escaped for its quoting: an
    /// existing value keeps its quotes, an unquoted one gets double quotes
    /// only if it needs them, a new attribute is written ` name="value"`
    /// before the tag's end).
    ///
    /// # Errors
    /// [`EditErrorKind::InvalidAttributeName`];
    /// [`EditErrorKind::NoStartTag`] for elements without a start tag.
    pub fn set_attribute(&mut self, name: &str, value: &str) -> Result<(), EditError> {
        if !valid_attribute_name(name) {
            return Err(EditError::new(EditErrorKind::InvalidAttributeName, name));
        }
        self.require_start_tag()?;
        let lower = lowercase_name(name);
        self.e.take_deferred_attribute(&lower);
        let mut removed = false;
        for e in self.e.attrs.iter_mut().filter(|e| e.is(&lower)) {
            match &mut e.kind {
                AttrEditKind::Changed { value: v, .. } | AttrEditKind::Added { value: v } => {
                    value.clone_into(v);
                    return Ok(());
                }
                AttrEditKind::Removed { .. } => removed = true,
                AttrEditKind::Deferred { .. } => {}
            }
        }
        // The first of the name in the start tag is the one the parser keeps
        // (unless removed: then every one of the name is).
        let first =
            self.src.token.as_ref().and_then(|t| t.attribute_spans().iter().find(|a| t.attribute_name_is(a, &lower)));
        let value = self.e.string_of(value);
        let (kind, name) = match first {
            Some(&span) if !removed => (AttrEditKind::Changed { span, value }, self.e.string_of(&lower)),
            _ => (AttrEditKind::Added { value }, self.e.string_of(name)),
        };
        self.e.attrs.push(AttrEdit { name, kind });
        Ok(())
    }

    /// Removes the attribute `name` (its bytes and the whitespace before
    /// them), with any duplicates of it the parser dropped (else the next
    /// duplicate would become the attribute); nothing happens when it is absent.
    ///
    /// # Errors
    /// [`EditErrorKind::NoStartTag`] for elements without a start tag.
    pub fn remove_attribute(&mut self, name: &str) -> Result<(), EditError> {
        self.require_start_tag()?;
        let lower = name.to_ascii_lowercase();
        self.e.take_deferred_attribute(&lower);
        if self.e.attrs.iter().any(|e| e.is(&lower) && matches!(e.kind, AttrEditKind::Removed { .. })) {
            // Removed already: only an attribute added since can be left.
            self.e.attrs.retain(|e| !e.is(&lower) || matches!(e.kind, AttrEditKind::Removed { .. }));
            return Ok(());
        }
        self.e.attrs.retain(|e| !e.is(&lower));
        let Some(t) = self.src.token.as_ref() else { return Ok(()) };
        for &span in t.attribute_spans().iter().filter(|a| t.attribute_name_is(a, &lower)) {
            self.e.attrs.push(AttrEdit { name: lower.clone(), kind: AttrEditKind::Removed { span } });
        }
        Ok(())
    }

    /// Renames the element: the start tag's name and, when the element ends
    /// with an end tag, that tag's name. The parser is not re-run: the tree
    /// is still built from the input's names.
    ///
    /// # Example
    /// ```
    /// use htrewrite::{EditErrorKind, Settings, rewrite_str};
    /// let mut refused = None;
    /// let settings = Settings::new().element("p, b", |el| {
    ///     let to = if el.tag_name() == "p" { "section" } else { "script" };
    ///     refused = el.set_tag_name(to).err().map(|e| e.kind()).or(refused);
    ///     Ok(())
    /// });
    /// assert_eq!(rewrite_str("<p>a</p><b>x</b>", settings)?, "<section>a</section><b>x</b>");
    /// assert_eq!(refused, Some(EditErrorKind::TextModeChange));
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    ///
    /// # Errors
    /// [`EditErrorKind::InvalidTagName`] (must start with an ASCII letter and
    /// contain no whitespace, `/`, `>` or NUL); [`EditErrorKind::NoStartTag`];
    /// [`EditErrorKind::TextModeChange`] for an HTML element renamed into or
    /// out of one whose content is read otherwise (`script`, `style`,
    /// `textarea`, `title`, …).
    pub fn set_tag_name(&mut self, name: &str) -> Result<(), EditError> {
        if !valid_name(name) {
            return Err(EditError::new(EditErrorKind::InvalidTagName, name));
        }
        self.require_start_tag()?;
        if self.src.ns == Namespace::Html && changes_text_mode(self.src.name, name) {
            return Err(EditError::new(EditErrorKind::TextModeChange, name));
        }
        self.e.name = Some(name.to_string());
        Ok(())
    }

    /// Parsed content at the start of the element's content: only when
    /// the element's start tag is the token the parse has just read, and
    /// not too deep in parsed content already.
    fn require_parse_here(&self) -> Result<(), EditError> {
        match self.src.token {
            Some(_) => parse_nesting_allows(self.e.parse_level),
            None => Err(EditError::new(EditErrorKind::ParsePassed, "the element has no start tag in the input")),
        }
    }

    fn require_start_tag(&self) -> Result<(), EditError> {
        match self.src.token {
            Some(_) => Ok(()),
            None => Err(EditError::new(EditErrorKind::NoStartTag, self.src.name)),
        }
    }

    /// Inserts content before the element.
    ///
    /// # Errors
    /// [`EditError`] when `Text` content cannot be encoded.
    pub fn before(&mut self, content: &str, ty: ContentType) -> Result<(), EditError> {
        push_content(content, ty, Context::Data, self.doc.encoding, &mut self.e.before)
    }

    /// Inserts content after the element (after its end tag, or where it ends).
    ///
    /// # Errors
    /// As [`Element::before`].
    pub fn after(&mut self, content: &str, ty: ContentType) -> Result<(), EditError> {
        let mut bytes = Vec::new();
        push_content(content, ty, Context::Data, self.doc.encoding, &mut bytes)?;
        self.e.shift(Place::After, bytes.len());
        self.e.after.splice(0..0, bytes);
        Ok(())
    }

    /// Inserts content at the start of the element's content.
    /// [`ContentType::ParsedHtml`] is parsed there, after the content
    /// inserted there without parsing.
    ///
    /// # Errors
    /// [`EditErrorKind::TextWouldEndElement`] for text that would end a
    /// `<script>`, `<style>`, … early; [`EditErrorKind::ParsePassed`] for
    /// parsed content when the handler was not called for the element's
    /// start tag (an element the parser implied or cloned); as
    /// [`Element::before`].
    pub fn prepend(&mut self, content: &str, ty: ContentType) -> Result<(), EditError> {
        if !self.can_have_content() {
            return Ok(());
        }
        if ty == ContentType::ParsedHtml {
            self.require_parse_here()?;
            let mut bytes = Vec::new();
            push_content(content, ContentType::Html, self.ctx, self.doc.encoding, &mut bytes)?;
            self.e.slots_mut().parsed.insert(0, ParseInsert::Content(bytes));
            return Ok(());
        }
        let mut bytes = Vec::new();
        push_content(content, ty, self.ctx, self.doc.encoding, &mut bytes)?;
        self.e.shift(Place::Prepend, bytes.len());
        self.e.prepend.splice(0..0, bytes);
        Ok(())
    }

    /// Inserts content at the end of the element's content (before its end
    /// tag, or where its end is implied, or at the end of input).
    ///
    /// # Errors
    /// As [`Element::prepend`].
    pub fn append(&mut self, content: &str, ty: ContentType) -> Result<(), EditError> {
        if !self.can_have_content() {
            return Ok(());
        }
        push_content(content, ty, self.ctx, self.doc.encoding, &mut self.e.append)
    }

    /// Replaces the element's content (earlier `prepend`/`append` content too).
    ///
    /// # Errors
    /// As [`Element::prepend`].
    pub fn set_inner_content(&mut self, content: &str, ty: ContentType) -> Result<(), EditError> {
        if !self.can_have_content() {
            return Ok(());
        }
        let mut bytes = Vec::new();
        push_content(content, ty, self.ctx, self.doc.encoding, &mut bytes)?;
        self.e.prepend.clear();
        self.e.append.clear();
        for place in [Place::Prepend, Place::Append, Place::Inner] {
            self.e.discard_place(place);
        }
        self.e.inner = Some(bytes);
        Ok(())
    }

    /// Replaces the element, tags and content, with `content`.
    ///
    /// # Errors
    /// As [`Element::before`].
    pub fn replace(&mut self, content: &str, ty: ContentType) -> Result<(), EditError> {
        let mut bytes = Vec::new();
        push_content(content, ty, Context::Data, self.doc.encoding, &mut bytes)?;
        self.e.discard_place(Place::Replace);
        self.e.replacement = Some(bytes);
        self.e.removal = Removal::Whole;
        Ok(())
    }

    /// Removes the element with its content (content inserted with
    /// `before`/`after` stays).
    pub fn remove(&mut self) {
        self.e.discard_place(Place::Replace);
        self.e.removal = Removal::Whole;
        self.e.replacement = None;
    }

    /// Removes the element's tags and keeps its content.
    pub fn remove_and_keep_content(&mut self) {
        if self.e.removal == Removal::None {
            self.e.removal = Removal::KeepContent;
        }
    }

    /// Whether the element was removed or replaced.
    pub fn removed(&self) -> bool {
        self.e.removal == Removal::Whole
    }

    fn new_slot(&mut self, ctx: SlotCtx) -> Slot {
        let slot = Slot(self.e.next_slot);
        self.e.next_slot += 1;
        self.e.slots_mut().created.push((slot, ctx));
        slot
    }

    /// The slot for content inside the element, or a slot given up at once
    /// when the element cannot have content.
    fn content_slot(&mut self) -> Option<Slot> {
        let ctx = SlotCtx::Content(ContextOwned::from_context(self.ctx));
        let slot = self.new_slot(ctx);
        if self.can_have_content() {
            return Some(slot);
        }
        self.e.slots_mut().discarded.push(slot);
        None
    }

    /// Leaves content before the element for later: returns a [`Slot`]
    /// where, in the output, the content given to
    /// [`Rewriter::fill`](crate::Rewriter::fill) (or streamed with
    /// [`Rewriter::slot_write`](crate::Rewriter::slot_write)) goes, as if
    /// [`Element::before`] had been called now with it. Output up to the
    /// slot keeps flowing to the sink; what follows it is held until the
    /// slot is finished or cancelled (see
    /// [`Settings::hold_limit`](crate::Settings::hold_limit)).
    ///
    /// Content inserted right after a slot (at the same place) is kept from
    /// joining the bytes before the slot, as any inserted content is; the
    /// slot's own content is kept from joining what is really written
    /// before it.
    ///
    /// # Example
    /// ```
    /// use std::{cell::RefCell, rc::Rc};
    /// use htrewrite::{ContentType, Rewriter, Settings, Slot};
    /// let slots: Rc<RefCell<Vec<Slot>>> = Rc::default();
    /// let made = slots.clone();
    /// let settings = Settings::new().element("h1", move |el| {
    ///     el.before("<hr>", ContentType::Html)?;
    ///     made.borrow_mut().push(el.defer_before());
    ///     Ok(())
    /// });
    /// let mut out = Vec::new();
    /// let mut rw = Rewriter::new(settings, |c: &[u8]| out.extend_from_slice(c))?;
    /// rw.write(b"<p>a</p><h1>T</h1>")?;
    /// let slot = slots.borrow()[0];
    /// rw.fill(slot, "<nav>…</nav>", ContentType::Html)?;
    /// rw.end()?;
    /// assert_eq!(String::from_utf8(out).unwrap(), "<p>a</p><hr><nav>…</nav><h1>T</h1>");
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    pub fn defer_before(&mut self) -> Slot {
        let slot = self.new_slot(SlotCtx::Content(ContextOwned::Data));
        let at = self.e.before.len();
        self.e.slots_mut().deferred.push(Deferred { place: Place::Before, at, slot });
        slot
    }

    /// Leaves content after the element for later, as [`Element::after`]
    /// would insert it (in front of content inserted there earlier); see
    /// [`Element::defer_before`].
    ///
    /// # Example
    /// ```
    /// use std::{cell::RefCell, rc::Rc};
    /// use htrewrite::{ContentType, Rewriter, Settings, Slot};
    /// let slots: Rc<RefCell<Vec<Slot>>> = Rc::default();
    /// let made = slots.clone();
    /// let settings = Settings::new().element("p", move |el| {
    ///     made.borrow_mut().push(el.defer_after());
    ///     Ok(())
    /// });
    /// let mut out = Vec::new();
    /// let mut rw = Rewriter::new(settings, |c: &[u8]| out.extend_from_slice(c))?;
    /// rw.write(b"<p>a</p>b")?;
    /// rw.fill(slots.borrow()[0], "1 < 2", ContentType::Text)?;
    /// rw.end()?;
    /// assert_eq!(out, b"<p>a</p>1 &lt; 2b");
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    pub fn defer_after(&mut self) -> Slot {
        let slot = self.new_slot(SlotCtx::Content(ContextOwned::Data));
        self.e.defer_first(Place::After, slot);
        slot
    }

    /// Leaves content at the start of the element's content for later, as
    /// [`Element::prepend`] would insert it (text escaped for the element:
    /// RCDATA in `<title>`, refused where it would end a `<script>` …); see
    /// [`Element::defer_before`]. On an element that cannot have content
    /// ([`Element::can_have_content`]) the slot has no place: filling it
    /// does nothing.
    ///
    /// # Example
    /// ```
    /// use std::{cell::RefCell, rc::Rc};
    /// use htrewrite::{ContentType, Rewriter, Settings, Slot};
    /// let slots: Rc<RefCell<Vec<Slot>>> = Rc::default();
    /// let made = slots.clone();
    /// let settings = Settings::new().element("title", move |el| {
    ///     made.borrow_mut().push(el.defer_prepend());
    ///     Ok(())
    /// });
    /// let mut out = Vec::new();
    /// let mut rw = Rewriter::new(settings, |c: &[u8]| out.extend_from_slice(c))?;
    /// rw.write(b"<title>Home</title>")?;
    /// rw.fill(slots.borrow()[0], "<b>Ann</b> · ", ContentType::Text)?;
    /// rw.end()?;
    /// assert_eq!(String::from_utf8(out).unwrap(), "<title>&lt;b>Ann&lt;/b> · Home</title>");
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    pub fn defer_prepend(&mut self) -> Slot {
        let Some(slot) = self.content_slot() else { return Slot(self.e.next_slot - 1) };
        self.e.defer_first(Place::Prepend, slot);
        slot
    }

    /// Leaves parsed content at the start of the element's content for
    /// later ([`ContentType::ParsedHtml`]): the parse stops right after the
    /// start tag until the slot is filled (or streamed into and finished,
    /// or cancelled), and reads its content there, as if it stood in the
    /// page, before the rest of the page. The rest of the chunk being
    /// written waits (at most [`Settings::hold_limit`](crate::Settings::hold_limit)
    /// bytes: no more is taken at once) and no more input is taken:
    /// [`Rewriter::write_some`](crate::Rewriter::write_some) returns 0,
    /// [`Rewriter::write`](crate::Rewriter::write)
    /// [`RewritingError::Blocked`](crate::RewritingError::Blocked). The
    /// output before the slot has gone out. Content of every
    /// [`ContentType`] is parsed (`Text` escaped for the element first);
    /// cancelling leaves what was streamed, or nothing.
    ///
    /// # Example
    /// ```
    /// use std::{cell::RefCell, rc::Rc};
    /// use htrewrite::{ContentType, IoSink, Rewriter, RewritingError, Settings, Slot};
    /// let slots: Rc<RefCell<Vec<Slot>>> = Rc::default();
    /// let made = slots.clone();
    /// let settings = Settings::new()
    ///     .element("a[href]", |el| Ok(el.set_attribute("rel", "nofollow")?))
    ///     .element("aside", move |el| {
    ///         made.borrow_mut().push(el.defer_prepend_parsed()?);
    ///         Ok(())
    ///     });
    /// let mut rw = Rewriter::new(settings, IoSink(Vec::new()))?;
    /// rw.write(b"<aside></aside><a href=/b>b</a>")?;
    /// assert_eq!(rw.sink_mut().0, b"<aside>"); // the parse waits at the slot
    /// assert!(matches!(rw.write(b"!"), Err(RewritingError::Blocked { taken: 0 })));
    /// rw.fill(slots.borrow()[0], "<a href=/ad>ad</a>", ContentType::ParsedHtml)?;
    /// rw.write(b"!")?;
    /// let out = rw.end()?.0;
    /// assert_eq!(
    ///     String::from_utf8(out).unwrap(),
    ///     r#"<aside><a href=/ad rel="nofollow">ad</a></aside><a href=/b rel="nofollow">b</a>!"#
    /// );
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    ///
    /// # Errors
    /// [`EditErrorKind::ParsePassed`] when the handler was not called for
    /// the element's start tag, or the element cannot have content
    /// ([`Element::can_have_content`]).
    pub fn defer_prepend_parsed(&mut self) -> Result<Slot, EditError> {
        self.require_parse_here()?;
        if !self.can_have_content() {
            return Err(EditError::new(EditErrorKind::ParsePassed, "the element cannot have content"));
        }
        let slot = Slot(self.e.next_slot);
        self.e.next_slot += 1;
        let ctx = SlotCtx::Content(ContextOwned::from_context(self.ctx));
        self.e.slots_mut().parsed.insert(0, ParseInsert::Slot(slot, ctx));
        Ok(slot)
    }

    /// Leaves content at the end of the element's content for later, as
    /// [`Element::append`] would insert it; see [`Element::defer_prepend`].
    ///
    /// # Example
    /// ```
    /// use std::{cell::RefCell, rc::Rc};
    /// use htrewrite::{ContentType, IoSink, Rewriter, Settings, Slot};
    /// let slots: Rc<RefCell<Vec<Slot>>> = Rc::default();
    /// let made = slots.clone();
    /// let settings = Settings::new().element("ul", move |el| {
    ///     made.borrow_mut().push(el.defer_append());
    ///     Ok(())
    /// });
    /// let mut rw = Rewriter::new(settings, IoSink(Vec::new()))?;
    /// rw.write(b"<ul><li>a</ul><p>rest")?;
    /// assert_eq!(rw.sink_mut().0, b"<ul><li>a"); // held after the slot
    /// let slot = slots.borrow()[0];
    /// rw.slot_write(slot, b"<li>b", ContentType::Html)?;
    /// assert_eq!(rw.sink_mut().0, b"<ul><li>a<li>b"); // written through: the slot is first
    /// rw.slot_finish(slot)?;
    /// assert_eq!(rw.end()?.0, b"<ul><li>a<li>b</ul><p>rest");
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    pub fn defer_append(&mut self) -> Slot {
        let Some(slot) = self.content_slot() else { return Slot(self.e.next_slot - 1) };
        let at = self.e.append.len();
        self.e.slots_mut().deferred.push(Deferred { place: Place::Append, at, slot });
        slot
    }

    /// Leaves the element's content to be decided later: the slot stands
    /// over the content, which is held and then replaced by what the slot
    /// is filled with, or kept by [`Fallback::KeepOriginal`](crate::Fallback::KeepOriginal).
    /// Like [`Element::set_inner_content`] it gives up earlier
    /// `prepend`/`append` content (and slots); see [`Element::defer_prepend`].
    ///
    /// # Example
    /// ```
    /// use std::{cell::RefCell, rc::Rc};
    /// use htrewrite::{ContentType, Fallback, Rewriter, Settings, Slot};
    /// let slots: Rc<RefCell<Vec<Slot>>> = Rc::default();
    /// let made = slots.clone();
    /// let settings = Settings::new().element("div.price", move |el| {
    ///     made.borrow_mut().push(el.defer_inner_content());
    ///     Ok(())
    /// });
    /// let mut out = Vec::new();
    /// let mut rw = Rewriter::new(settings, |c: &[u8]| out.extend_from_slice(c))?;
    /// rw.write(b"<div class=price>$9</div><div class=price>$5</div>")?;
    /// let s = slots.borrow().clone();
    /// rw.fill(s[0], "€8", ContentType::Text)?;
    /// rw.cancel(s[1], Fallback::KeepOriginal)?;
    /// rw.end()?;
    /// assert_eq!(String::from_utf8(out).unwrap(), "<div class=price>€8</div><div class=price>$5</div>");
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    pub fn defer_inner_content(&mut self) -> Slot {
        let Some(slot) = self.content_slot() else { return Slot(self.e.next_slot - 1) };
        self.e.prepend.clear();
        self.e.append.clear();
        for place in [Place::Prepend, Place::Append, Place::Inner] {
            self.e.discard_place(place);
        }
        self.e.inner = None;
        self.e.slots_mut().deferred.push(Deferred { place: Place::Inner, at: 0, slot });
        slot
    }

    /// Leaves the element itself to be decided later: the slot stands over
    /// the element, tags and content, which is held and then replaced by
    /// what the slot is filled with (empty content removes it), or kept by
    /// [`Fallback::KeepOriginal`](crate::Fallback::KeepOriginal). This is
    /// also the deferred removal: cancel with
    /// [`Fallback::Empty`](crate::Fallback::Empty) to remove, with
    /// `KeepOriginal` to keep. It undoes an earlier `replace`/`remove`
    /// (a later one gives the slot up); content inserted before and after
    /// the element stays. See [`Element::defer_before`].
    ///
    /// # Example
    /// ```
    /// use std::{cell::RefCell, rc::Rc};
    /// use htrewrite::{ContentType, Rewriter, Settings, Slot};
    /// let slots: Rc<RefCell<Vec<Slot>>> = Rc::default();
    /// let made = slots.clone();
    /// let settings = Settings::new().element("esi-include", move |el| {
    ///     made.borrow_mut().push(el.defer_replace());
    ///     Ok(())
    /// });
    /// let mut out = Vec::new();
    /// let mut rw = Rewriter::new(settings, |c: &[u8]| out.extend_from_slice(c))?;
    /// rw.write(b"<p>a<esi-include src=/f></esi-include>b")?;
    /// rw.fill(slots.borrow()[0], "<b>fragment</b>", ContentType::Html)?;
    /// rw.end()?;
    /// assert_eq!(out, b"<p>a<b>fragment</b>b");
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    pub fn defer_replace(&mut self) -> Slot {
        let slot = self.new_slot(SlotCtx::Content(ContextOwned::Data));
        self.e.discard_place(Place::Replace);
        self.e.removal = Removal::None;
        self.e.replacement = None;
        self.e.slots_mut().deferred.push(Deferred { place: Place::Replace, at: 0, slot });
        slot
    }

    /// Leaves the value of the attribute `name` for later: the slot stands
    /// over the value (a new attribute ` name=""` is added when the start
    /// tag has none). Content of either [`ContentType`] is the value's text,
    /// escaped for its quotes (an unquoted value gets double quotes);
    /// [`Fallback::KeepOriginal`](crate::Fallback::KeepOriginal) keeps the
    /// source value. Until then the element's view reads the source value
    /// (empty for a new attribute). A later `set_attribute` or
    /// `remove_attribute` of the name gives the slot up.
    ///
    /// # Example
    /// ```
    /// use std::{cell::RefCell, rc::Rc};
    /// use htrewrite::{ContentType, Rewriter, Settings, Slot};
    /// let slots: Rc<RefCell<Vec<Slot>>> = Rc::default();
    /// let made = slots.clone();
    /// let settings = Settings::new().element("img", move |el| {
    ///     made.borrow_mut().push(el.defer_attribute("src")?);
    ///     Ok(())
    /// });
    /// let mut out = Vec::new();
    /// let mut rw = Rewriter::new(settings, |c: &[u8]| out.extend_from_slice(c))?;
    /// rw.write(b"<img src=a.png alt=x>")?;
    /// rw.fill(slots.borrow()[0], "/signed?u=a.png&sig=\"1\"", ContentType::Text)?;
    /// rw.end()?;
    /// assert_eq!(String::from_utf8(out).unwrap(), "<img src=\"/signed?u=a.png&amp;sig=&quot;1&quot;\" alt=x>");
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    ///
    /// # Errors
    /// [`EditErrorKind::InvalidAttributeName`];
    /// [`EditErrorKind::NoStartTag`] for elements without a start tag.
    pub fn defer_attribute(&mut self, name: &str) -> Result<Slot, EditError> {
        if !valid_attribute_name(name) {
            return Err(EditError::new(EditErrorKind::InvalidAttributeName, name));
        }
        self.require_start_tag()?;
        let lower = name.to_ascii_lowercase();
        self.e.take_deferred_attribute(&lower);
        let removed = self.e.attrs.iter().any(|e| e.is(&lower) && matches!(e.kind, AttrEditKind::Removed { .. }));
        self.e.attrs.retain(|e| !e.is(&lower) || matches!(e.kind, AttrEditKind::Removed { .. }));
        let first = self
            .src
            .token
            .as_ref()
            .and_then(|t| t.attribute_spans().iter().find(|a| t.attribute_name_is(a, &lower)).copied())
            .filter(|_| !removed);
        let quote = match first {
            Some(AttributeSpan { quote: Quote::Single, .. }) => b'\'',
            _ => b'"',
        };
        let slot = self.new_slot(SlotCtx::Attribute { quote });
        let name = if first.is_some() { lower } else { name.to_owned() };
        self.e.attrs.push(AttrEdit { name, kind: AttrEditKind::Deferred { span: first, slot } });
        Ok(slot)
    }

    /// Registers a handler for the end of this element (see [`ElementEnd`]).
    pub fn on_end<F>(&mut self, f: F)
    where
        F: FnMut(&mut ElementEnd<'_>) -> HandlerResult + IntoHandler<K::EndHandler<'h>>,
    {
        self.e.end_handlers.push(f.into_handler());
    }
}

/// How deep parsed content may nest: content parsed inside content parsed
/// inside … this many levels (a handler whose parsed content holds an
/// element it matches again would otherwise insert it forever).
///
/// # Example
/// ```
/// use htrewrite::{ContentType, EditErrorKind, Settings, rewrite_str, MAX_PARSE_NESTING};
/// // Each `b` gets a `b`: refused at the limit instead of looping.
/// let settings = Settings::new().element("b", |el| {
///     match el.prepend("<b>", ContentType::ParsedHtml) {
///         Err(e) if e.kind() == EditErrorKind::ParseNesting => Ok(()),
///         other => Ok(other?),
///     }
/// });
/// let out = rewrite_str("<b>", settings)?;
/// assert_eq!(out, "<b>".repeat(MAX_PARSE_NESTING as usize + 1));
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
pub const MAX_PARSE_NESTING: u32 = 64;

/// How many times, in one document, content read as parsed content may ask
/// for parsed content in turn (at any depth up to [`MAX_PARSE_NESTING`]):
/// content holding several elements its handler matches would otherwise
/// multiply at every level. Past it, [`EditErrorKind::ParseNesting`].
/// Parsed content asked for by the input's own elements is not counted.
pub const MAX_NESTED_PARSED: u32 = 1024;

/// Parsed content asked for at `level` (0: the input): refused past
/// [`MAX_PARSE_NESTING`].
fn parse_nesting_allows(level: u32) -> Result<(), EditError> {
    if level < MAX_PARSE_NESTING {
        Ok(())
    } else {
        Err(EditError::new(EditErrorKind::ParseNesting, format!("{level} levels deep")))
    }
}

/// Edits made at an element's end.
#[derive(Debug, Default)]
pub(crate) struct EndEdits {
    pub(crate) before: Vec<u8>,
    pub(crate) after: Vec<u8>,
    /// Parsed content after the end tag, in order.
    pub(crate) parsed: Vec<ParseInsert>,
    /// The number of the next slot.
    pub(crate) next_slot: u64,
    /// How deep in parsed content the end tag is (0: in the input).
    pub(crate) parse_level: u32,
    pub(crate) remove_end_tag: bool,
    pub(crate) name: Option<String>,
    /// What [`ElementEnd::replace`] puts where the end tag was.
    pub(crate) replacement: Option<Vec<u8>>,
}

/// The end of an element, as end handlers see it: its end tag, or the
/// place where its end was implied or the input ended.
///
/// # Example
/// ```
/// use htrewrite::{ContentType, Settings, rewrite_str};
/// let settings = Settings::new().element_end("li", |end| {
///     end.before(if end.has_end_tag() { "[tag]" } else { "[implied]" }, ContentType::Text)?;
///     Ok(())
/// });
/// assert_eq!(rewrite_str("<ul><li>a<li>b</li></ul>", settings)?, "<ul><li>a[implied]<li>b[tag]</li></ul>");
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
pub struct ElementEnd<'r> {
    pub(crate) id: NodeId,
    pub(crate) name: &'r str,
    pub(crate) end_tag: Option<Token<'r>>,
    pub(crate) cause: CloseCause,
    pub(crate) at: u64,
    pub(crate) ctx: Context<'r>,
    pub(crate) doc: Doc<'r>,
    pub(crate) m: &'r mut EndEdits,
}

impl ElementEnd<'_> {
    /// The element's local name.
    pub fn tag_name(&self) -> &str {
        self.name
    }
    /// The element's id (as [`Element::id`]).
    pub fn id(&self) -> NodeId {
        self.id
    }
    /// Whether the element ends with an end tag of the input.
    pub fn has_end_tag(&self) -> bool {
        self.end_tag.is_some()
    }
    /// The end tag's exact bytes, when there is one.
    pub fn end_tag_raw(&self) -> Option<&[u8]> {
        self.end_tag.as_ref().map(|t| t.raw())
    }
    /// What ended the element, as the shadow reports it.
    pub fn cause(&self) -> CloseCause {
        self.cause
    }
    /// Where the end tag is, or an empty range where the element ends.
    pub fn source_location(&self) -> SourceLocation {
        match &self.end_tag {
            Some(t) => locate(self.doc.lines, t.span().start..t.span().end),
            None => locate(self.doc.lines, self.at..self.at),
        }
    }
    /// Inserts content before the end (inside the element).
    ///
    /// # Errors
    /// As [`Element::prepend`].
    pub fn before(&mut self, content: &str, ty: ContentType) -> Result<(), EditError> {
        push_content(content, ty, self.ctx, self.doc.encoding, &mut self.m.before)
    }
    /// Inserts content after the end (outside the element).
    /// [`ContentType::ParsedHtml`] is parsed there, after the content
    /// inserted there without parsing.
    ///
    /// # Errors
    /// [`EditErrorKind::ParsePassed`] for parsed content when the element
    /// does not end with its own end tag (implied, or at the end of input:
    /// the parse has read what ended it); as [`Element::before`].
    pub fn after(&mut self, content: &str, ty: ContentType) -> Result<(), EditError> {
        if ty == ContentType::ParsedHtml {
            self.require_parse_here()?;
            let mut bytes = Vec::new();
            push_content(content, ContentType::Html, Context::Data, self.doc.encoding, &mut bytes)?;
            self.m.parsed.insert(0, ParseInsert::Content(bytes));
            return Ok(());
        }
        let mut bytes = Vec::new();
        push_content(content, ty, Context::Data, self.doc.encoding, &mut bytes)?;
        self.m.after.splice(0..0, bytes);
        Ok(())
    }

    /// Leaves parsed content after the element's end tag for later: as
    /// [`Element::defer_prepend_parsed`], the parse stops right after the
    /// end tag until the slot is filled.
    ///
    /// # Example
    /// ```
    /// use std::{cell::RefCell, rc::Rc};
    /// use htrewrite::{ContentType, IoSink, Rewriter, Settings, Slot};
    /// let slots: Rc<RefCell<Vec<Slot>>> = Rc::default();
    /// let made = slots.clone();
    /// let settings = Settings::new().element("header", move |el| {
    ///     let made = made.clone();
    ///     el.on_end(move |end| {
    ///         made.borrow_mut().push(end.defer_after_parsed()?);
    ///         Ok(())
    ///     });
    ///     Ok(())
    /// });
    /// let mut rw = Rewriter::new(settings, IoSink(Vec::new()))?;
    /// rw.write(b"<header>h</header><p>rest")?;
    /// assert_eq!(rw.sink_mut().0, b"<header>h</header>");
    /// rw.fill(slots.borrow()[0], "<nav>n</nav>", ContentType::ParsedHtml)?;
    /// assert_eq!(rw.end()?.0, b"<header>h</header><nav>n</nav><p>rest");
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    ///
    /// # Errors
    /// [`EditErrorKind::ParsePassed`] when the element does not end with
    /// its own end tag.
    pub fn defer_after_parsed(&mut self) -> Result<Slot, EditError> {
        self.require_parse_here()?;
        let slot = Slot(self.m.next_slot);
        self.m.next_slot += 1;
        self.m.parsed.insert(0, ParseInsert::Slot(slot, SlotCtx::Content(ContextOwned::Data)));
        Ok(slot)
    }

    /// Parsed content after the end: only when the end tag is the token the
    /// parse has just read.
    fn require_parse_here(&self) -> Result<(), EditError> {
        match self.end_tag {
            Some(_) => parse_nesting_allows(self.m.parse_level),
            None => Err(EditError::new(EditErrorKind::ParsePassed, "the element has no end tag here")),
        }
    }
    /// Renames the end tag.
    ///
    /// # Errors
    /// [`EditErrorKind::InvalidTagName`]; [`EditErrorKind::NoStartTag`] when
    /// there is no end tag; [`EditErrorKind::TextModeChange`] when the element
    /// is one whose content is read otherwise (`script`, `style`, `title`, …:
    /// only its own name ends it) or would become one.
    pub fn set_end_tag_name(&mut self, name: &str) -> Result<(), EditError> {
        if !valid_name(name) {
            return Err(EditError::new(EditErrorKind::InvalidTagName, name));
        }
        if self.end_tag.is_none() {
            return Err(EditError::new(EditErrorKind::NoStartTag, "no end tag"));
        }
        if changes_text_mode(self.name, name) {
            return Err(EditError::new(EditErrorKind::TextModeChange, name));
        }
        self.m.name = Some(name.to_string());
        Ok(())
    }
    /// Removes the end tag (if any).
    pub fn remove_end_tag(&mut self) {
        self.m.remove_end_tag = true;
    }
    /// Replaces the end tag with `content` (lol_html's `EndTag::replace`):
    /// the tag is removed and `content` goes where it was, after what
    /// [`ElementEnd::before`] inserted and before what
    /// [`ElementEnd::after`] inserts. Where the end was implied there is no
    /// tag to remove: `content` goes at the end's place. A later call
    /// replaces the earlier content.
    ///
    /// # Example
    /// ```
    /// use htrewrite::{ContentType, Settings, rewrite_str};
    /// let settings = Settings::new().element_end("b", |end| {
    ///     end.before("[", ContentType::Text)?;
    ///     end.after("]", ContentType::Text)?;
    ///     end.replace("</b><!--b-->", ContentType::Html)?;
    ///     assert!(end.removed());
    ///     Ok(())
    /// });
    /// assert_eq!(rewrite_str("<b>x</b>!<b>y", settings)?, "<b>x[</b><!--b-->]!<b>y[</b><!--b-->]");
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    ///
    /// # Errors
    /// As [`ElementEnd::after`].
    pub fn replace(&mut self, content: &str, ty: ContentType) -> Result<(), EditError> {
        let mut bytes = Vec::new();
        push_content(content, ty, Context::Data, self.doc.encoding, &mut bytes)?;
        self.m.remove_end_tag = true;
        self.m.replacement = Some(bytes);
        Ok(())
    }
    /// Whether the end tag was removed or replaced ([`ElementEnd::remove_end_tag`],
    /// [`ElementEnd::replace`]).
    ///
    /// # Example
    /// ```
    /// use htrewrite::{Settings, rewrite_str};
    /// let settings = Settings::new().element_end("p", |end| {
    ///     assert!(!end.removed());
    ///     end.remove_end_tag();
    ///     assert!(end.removed());
    ///     Ok(())
    /// });
    /// assert_eq!(rewrite_str("<p>x</p>", settings)?, "<p>x");
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    pub fn removed(&self) -> bool {
        self.m.remove_end_tag
    }
}

/// The end tag with its name replaced.
pub(crate) fn write_end_tag(token: &Token<'_>, name: &str, out: &mut Vec<u8>) {
    let raw = token.raw();
    let r = token.tag_name_span();
    out.extend_from_slice(&raw[..r.start]);
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(&raw[r.end..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use htrewrite_tokenizer::{Feedback, TokenKind, TokenSink, Tokenizer};

    /// `may_care` finds every byte of `VALUE_CARE_BYTES` at every place of
    /// values of 1 to 24 bytes, and flags no other byte but those below
    /// 0x21 (which `write_value_general` writes as they are).
    #[test]
    fn may_care_misses_no_care_byte() {
        for len in 1..=24 {
            assert!(!may_care(&vec![b'a'; len]), "{len} plain bytes");
            for at in 0..len {
                for b in 0..=255u8 {
                    let mut v = vec![b'/'; len];
                    v[at] = b;
                    let care = VALUE_CARE[usize::from(b)];
                    let flagged = may_care(&v);
                    assert!(!care || flagged, "byte {b:#x} at {at} of {len}");
                    assert!(care || !flagged || (len >= 8 && b < 0x21), "byte {b:#x} at {at} of {len} flagged");
                }
            }
        }
    }

    /// `write_value` writes what the general path writes, for every quote
    /// and output encoding: values with none of the bytes its common case
    /// looks for (taken in UTF-8), and each such byte alone and inside a value.
    #[test]
    fn write_value_matches_the_general_path() {
        let mut values: Vec<String> = ["", "https://example.com/a?b=c", "é€😀", "x"].map(String::from).to_vec();
        for &b in VALUE_CARE_BYTES {
            values.push(format!("a{}b", b as char));
            values.push((b as char).to_string());
        }
        for value in &values {
            for quote in [Quote::Double, Quote::Single, Quote::None] {
                for encoding in [encoding_rs::UTF_8, encoding_rs::WINDOWS_1252, encoding_rs::SHIFT_JIS] {
                    let doc = Doc { encoding, lines: None };
                    let (mut fast, mut general) = (b"<".to_vec(), b"<".to_vec());
                    write_value(quote, value, doc, &mut fast);
                    write_value_general(quote, value, doc, &mut general);
                    assert_eq!(fast, general, "{value:?} {quote:?} {}", encoding.name());
                }
            }
        }
    }

    /// Every start tag of `html` with the value of its attribute `name`
    /// set to `value` (and again with the element renamed), written as the
    /// core writes it (the fast path, else the general path) and through the
    /// general path alone: (whether the fast path took it, the core's bytes,
    /// the general path's bytes, renamed).
    fn both_paths(html: &str, name: &str, value: &str) -> Vec<(bool, Vec<u8>, Vec<u8>, bool)> {
        struct Sink<'n>(&'n str, &'n str, Vec<(bool, Vec<u8>, Vec<u8>, bool)>);
        impl TokenSink for Sink<'_> {
            fn token(&mut self, t: &Token<'_>) -> Feedback {
                if t.kind() != TokenKind::StartTag {
                    return Feedback::default();
                }
                let Some(&span) = t.attribute_spans().iter().find(|a| t.attribute_name_is(a, self.0)) else {
                    return Feedback::default();
                };
                let mut e = Edits::<Local>::default();
                e.attrs.push(AttrEdit {
                    name: self.0.to_owned(),
                    kind: AttrEditKind::Changed { span, value: self.1.to_owned() },
                });
                let doc = Doc { encoding: encoding_rs::UTF_8, lines: None };
                // As it is, and with the element renamed too (not the fast path's case).
                for rename in [None, Some("x-y")] {
                    e.name = rename.map(str::to_owned);
                    let (mut fast, mut general) = (Vec::new(), Vec::new());
                    let took = e.write_one_value_changed(t, doc, &mut fast);
                    if !took {
                        assert!(fast.is_empty(), "nothing written when not taken");
                        e.write_start_tag_general(t, doc, &mut fast, &mut Vec::new());
                    }
                    e.write_start_tag_general(t, doc, &mut general, &mut Vec::new());
                    self.2.push((took, fast, general, rename.is_some()));
                }
                Feedback::default()
            }
        }
        let mut sink = Sink(name, value, Vec::new());
        let mut tokenizer = Tokenizer::new();
        tokenizer.feed(html.as_bytes(), &mut sink);
        tokenizer.finish(&mut sink);
        sink.2
    }

    #[test]
    fn one_changed_value_is_written_as_the_general_path_writes_it() {
        let tags = [
            r#"<a href="http://x/">"#,
            "<a href='http://x/'>",
            "<a href=http://x/>",
            "<a href=http://x/ id=1>",
            r#"<a id=1 HREF="x" href='y'>"#,
            r#"<a href="">"#,
            "<a href=''/>",
            "<img src=x/>",
            r#"<a  href = "x"  >"#,
            "<a href>",
            "<a href=x",
        ];
        let values = ["https://x/", "", "a b", "a\"b'c", "<&>", "x=y", "é€"];
        let mut seen = 0;
        for tag in tags {
            let name = if tag.starts_with("<img") { "src" } else { "href" };
            for value in values {
                for (took, fast, general, renamed) in both_paths(tag, name, value) {
                    seen += 1;
                    // Taken exactly for its case: a value to replace, no rename.
                    assert_eq!(took, !renamed && !tag.starts_with("<a href>"), "{tag:?} with {name}={value:?}");
                    assert_eq!(
                        String::from_utf8_lossy(&fast),
                        String::from_utf8_lossy(&general),
                        "{tag:?} with {name}={value:?}"
                    );
                }
            }
        }
        // Every tag has the attribute but the unfinished one (no token):
        // the comparison ran for all the others.
        assert_eq!(seen, 2 * (tags.len() - 1) * values.len());
    }

    #[test]
    fn edits_cleared_for_reuse_are_untouched() {
        let mut e = Edits::<Local>::default();
        e.before.extend_from_slice(b"x");
        e.append.extend_from_slice(&[b'y'; 5000]);
        e.removal = Removal::KeepContent;
        e.name = Some("b".into());
        e.inner = Some(Vec::new());
        e.attrs.push(AttrEdit { name: "id".into(), kind: AttrEditKind::Added { value: "1".into() } });
        assert!(!e.is_untouched());
        e.clear_for_reuse(4096);
        assert!(e.is_untouched());
        assert!(e.before.capacity() >= 1, "a small buffer is kept");
        assert_eq!(e.append.capacity(), 0, "a buffer over the bound is not kept");
        assert!(e.attrs.capacity() >= 1);
        // The edit's name and value are kept, emptied, for the next edits.
        assert_eq!(e.spare_strings.len(), 2);
        assert!(e.spare_strings.iter().all(String::is_empty));
        let long = "v".repeat(SPARE_STRING_KEPT + 1);
        e.attrs.push(AttrEdit { name: "title".into(), kind: AttrEditKind::Added { value: long } });
        e.clear_for_reuse(4096);
        assert_eq!(e.spare_strings.len(), 3, "a string over the bound is not kept");
    }

    /// Strings reused from one element's edits to the next carry nothing over.
    #[test]
    fn reused_attribute_strings_start_empty() -> Result<(), Box<dyn std::error::Error>> {
        let mut out = Vec::new();
        let settings = crate::Settings::new().element("a, b", |el| {
            let n = el.get_attribute("n").unwrap_or_default();
            el.set_attribute(if n == "1" { "DATA-Long" } else { "t" }, &"x".repeat(n.len() * 30))?;
            el.set_attribute("n", "2")?;
            Ok(())
        });
        let mut r = crate::Rewriter::new(settings, |c: &[u8]| out.extend_from_slice(c))?;
        r.write(b"<a n=1 data-long=q></a><b n=22 t=z></b><a n=3>")?;
        let _sink = r.end()?;
        let want = format!(
            "<a n=2 data-long={}></a><b n=2 t={}></b><a n=2 t=\"{}\">",
            "x".repeat(30),
            "x".repeat(60),
            "x".repeat(30)
        );
        assert_eq!(String::from_utf8(out)?, want);
        Ok(())
    }

    /// `get_attribute` and `has_attribute` find an attribute by the name
    /// `attributes()` lists (U+0000 and invalid UTF-8 read as U+FFFD), in a
    /// UTF-8 document (read from the token) and in windows-1252 (decoded).
    #[test]
    fn attributes_are_found_by_their_decoded_names() -> Result<(), Box<dyn std::error::Error>> {
        for label in ["utf-8", "windows-1252"] {
            let found = std::cell::RefCell::new(Vec::new());
            let settings = crate::Settings::new().encoding(label)?.element("p", |el| {
                let listed: Vec<String> = el.attributes().iter().map(|a| a.name.clone()).collect();
                let read = |n: &str| (el.get_attribute(n), el.has_attribute(n));
                found.borrow_mut().push((listed, read("a\u{FFFD}"), read("a\0"), read("b")));
                Ok(())
            });
            let mut r = crate::Rewriter::new(settings, |_: &[u8]| {})?;
            r.write(b"<p a\0=1 B=2 b=3>")?;
            let _sink = r.end()?;
            let yes = |v: &str| (Some(v.to_string()), true);
            assert_eq!(
                found.into_inner(),
                [(vec!["a\u{FFFD}".to_string(), "b".into()], yes("1"), (None, false), yes("2"))],
                "{label}"
            );
        }
        Ok(())
    }
}
