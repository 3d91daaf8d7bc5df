//! Known element names, interned: each (namespace, name) of the table has a
//! small id with its categories computed at compile time, so that pushing an element
//! neither allocates its name nor hashes it with SipHash, and the stack's
//! name index is a plain vector for them. Other names are interned by the
//! stack itself ([`crate::stack`]).
//!
//! The table is fixed (no input can add to it), so its fast hash cannot be
//! flooded: a look-up costs a bounded number of probes whatever the name.

use htrewrite_tokenizer::pack_name;

use crate::Namespace;
use crate::tags::cats;

/// HTML element names: those the tree construction rules name, and the common others.
const HTML: &[&str] = &[
    "a",
    "abbr",
    "acronym",
    "address",
    "applet",
    "area",
    "article",
    "aside",
    "audio",
    "b",
    "base",
    "basefont",
    "bdi",
    "bdo",
    "bgsound",
    "big",
    "blink",
    "blockquote",
    "body",
    "br",
    "button",
    "canvas",
    "caption",
    "center",
    "cite",
    "code",
    "col",
    "colgroup",
    "data",
    "datalist",
    "dd",
    "del",
    "details",
    "dfn",
    "dialog",
    "dir",
    "div",
    "dl",
    "dt",
    "em",
    "embed",
    "fieldset",
    "figcaption",
    "figure",
    "font",
    "footer",
    "form",
    "frame",
    "frameset",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hgroup",
    "hr",
    "html",
    "i",
    "iframe",
    "image",
    "img",
    "input",
    "ins",
    "kbd",
    "keygen",
    "label",
    "legend",
    "li",
    "link",
    "listing",
    "main",
    "map",
    "mark",
    "marquee",
    "math",
    "menu",
    "menuitem",
    "meta",
    "meter",
    "nav",
    "nobr",
    "noembed",
    "noframes",
    "noscript",
    "object",
    "ol",
    "optgroup",
    "option",
    "output",
    "p",
    "param",
    "picture",
    "plaintext",
    "pre",
    "progress",
    "q",
    "rb",
    "rp",
    "rt",
    "rtc",
    "ruby",
    "s",
    "samp",
    "script",
    "search",
    "section",
    "select",
    "selectedcontent",
    "slot",
    "small",
    "source",
    "span",
    "strike",
    "strong",
    "style",
    "sub",
    "summary",
    "sup",
    "svg",
    "table",
    "tbody",
    "td",
    "template",
    "textarea",
    "tfoot",
    "th",
    "thead",
    "time",
    "title",
    "tr",
    "track",
    "tt",
    "u",
    "ul",
    "var",
    "video",
    "wbr",
    "xmp",
];

/// SVG element names as stored (case-adjusted).
const SVG: &[&str] = &[
    "svg",
    "a",
    "altGlyph",
    "altGlyphDef",
    "altGlyphItem",
    "animate",
    "animateColor",
    "animateMotion",
    "animateTransform",
    "circle",
    "clipPath",
    "defs",
    "desc",
    "ellipse",
    "feBlend",
    "feColorMatrix",
    "feComponentTransfer",
    "feComposite",
    "feConvolveMatrix",
    "feDiffuseLighting",
    "feDisplacementMap",
    "feDistantLight",
    "feDropShadow",
    "feFlood",
    "feFuncA",
    "feFuncB",
    "feFuncG",
    "feFuncR",
    "feGaussianBlur",
    "feImage",
    "feMerge",
    "feMergeNode",
    "feMorphology",
    "feOffset",
    "fePointLight",
    "feSpecularLighting",
    "feSpotLight",
    "feTile",
    "feTurbulence",
    "filter",
    "font",
    "foreignObject",
    "g",
    "glyphRef",
    "image",
    "line",
    "linearGradient",
    "marker",
    "mask",
    "metadata",
    "path",
    "pattern",
    "polygon",
    "polyline",
    "radialGradient",
    "rect",
    "script",
    "stop",
    "style",
    "switch",
    "symbol",
    "text",
    "textPath",
    "title",
    "tspan",
    "use",
    "view",
];

/// MathML element names.
const MATHML: &[&str] = &[
    "math",
    "annotation",
    "annotation-xml",
    "maction",
    "malignmark",
    "menclose",
    "merror",
    "mfenced",
    "mfrac",
    "mglyph",
    "mi",
    "mmultiscripts",
    "mn",
    "mo",
    "mover",
    "mpadded",
    "mphantom",
    "mprescripts",
    "mroot",
    "mrow",
    "ms",
    "mspace",
    "msqrt",
    "mstyle",
    "msub",
    "msubsup",
    "msup",
    "mtable",
    "mtd",
    "mtext",
    "mtr",
    "munder",
    "munderover",
    "none",
    "semantics",
];

/// The number of known (namespace, name) pairs: ids are `0..COUNT`.
pub(crate) const COUNT: usize = HTML.len() + SVG.len() + MATHML.len();

/// The lists of the table by namespace ([`ns_index`]), each with the id of
/// its first name (ids follow [`NAMES`]).
const LISTS: [(&[&str], u32); 3] = [(HTML, 0), (SVG, HTML.len() as u32), (MATHML, (HTML.len() + SVG.len()) as u32)];

fn ns_index(ns: Namespace) -> usize {
    match ns {
        Namespace::Html => 0,
        Namespace::Svg => 1,
        Namespace::MathMl => 2,
    }
}

/// Table names → id: open addressing with linear probing in a power-of-two
/// table kept at most a quarter full, built at compile time (no lazy
/// initialization, no check of it per look-up). The keys are fixed (the
/// table's names), so the longest probe run is fixed too, whatever the name
/// looked up; a look-up is a multiplication and, nearly always, one or two
/// comparisons. Keyed by the packed name ([`pack`]) for names of up to
/// eight bytes (exact: packing is one-to-one), by a hash of the name
/// ([`hash`]) for longer ones (the caller compares the name found).
struct NameMap {
    /// `(key, id)`; a key of 0 marks a free slot (no key is 0).
    slots: &'static [(u64, u32)],
}

impl NameMap {
    #[inline]
    fn get(&self, k: u64) -> Option<u32> {
        let mask = self.slots.len() - 1;
        let mut i = home(k, self.slots.len());
        loop {
            let (key, id) = self.slots[i];
            if key == k {
                return Some(id);
            }
            if key == 0 {
                return None;
            }
            i = (i + 1) & mask;
        }
    }
}

/// The slot a probe for key `k` starts at, in a table of `len` slots (a power of two).
#[inline]
const fn home(k: u64, len: usize) -> usize {
    (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - len.trailing_zeros())) as usize
}

/// The key of table name `name` (ASCII-lowercased with `lower`) in the map
/// of short names (`long` false: 0 for a longer name) or of long names.
const fn key_of(name: &str, lower: bool, long: bool) -> u64 {
    match (pack_name(name.as_bytes(), lower), long) {
        (None, true) => hash(name.as_bytes(), lower),
        (Some(k), false) => k,
        _ => 0,
    }
}

/// The slots of the map of the `long` or short names of namespace `ns`
/// ([`ns_index`]), ASCII-lowercased with `lower`: `N` of them. A key given
/// twice keeps its last id, as a map insertion would.
const fn build<const N: usize>(ns: usize, lower: bool, long: bool) -> [(u64, u32); N] {
    let (list, first) = LISTS[ns];
    let mut slots = [(0u64, 0u32); N];
    let mut i = 0;
    while i < list.len() {
        let k = key_of(list[i], lower, long);
        if k != 0 {
            let mut s = home(k, N);
            while slots[s].0 != 0 && slots[s].0 != k {
                s = (s + 1) & (N - 1);
            }
            slots[s] = (k, first + i as u32);
        }
        i += 1;
    }
    slots
}

/// The number of slots for the `long` or short names of namespace `ns`:
/// a quarter full at most, 16 at least.
const fn slots_for(ns: usize, long: bool) -> usize {
    let list = LISTS[ns].0;
    let mut n = 0;
    let mut i = 0;
    while i < list.len() {
        if key_of(list[i], false, long) != 0 {
            n += 1;
        }
        i += 1;
    }
    let len = (n * 4usize).next_power_of_two();
    if len < 16 { 16 } else { len }
}

/// No two long names of a namespace share a hash, as stored or as
/// lowercased (unless equal so): a long name's key then stands for it in the
/// table (a name looked up is still compared with the one found,
/// [`known_long`]).
const _: () = {
    let mut ns = 0;
    while ns < 3 {
        let list = LISTS[ns].0;
        let mut i = 0;
        while i < list.len() {
            let mut j = i + 1;
            while j < list.len() {
                if list[i].len() > 8 && list[j].len() > 8 {
                    assert!(hash(list[i].as_bytes(), false) != hash(list[j].as_bytes(), false), "hashes differ");
                    assert!(
                        crate::tags::eq_ignore_ascii_case(list[i], list[j])
                            || hash(list[i].as_bytes(), true) != hash(list[j].as_bytes(), true),
                        "lowercase hashes differ"
                    );
                }
                j += 1;
            }
            i += 1;
        }
        ns += 1;
    }
};

const HTML_SHORT: usize = slots_for(0, false);
const SVG_SHORT: usize = slots_for(1, false);
const MATHML_SHORT: usize = slots_for(2, false);
const HTML_LONG: usize = slots_for(0, true);
const SVG_LONG: usize = slots_for(1, true);
const MATHML_LONG: usize = slots_for(2, true);

static HTML_EXACT_SHORT: [(u64, u32); HTML_SHORT] = build::<HTML_SHORT>(0, false, false);
static SVG_EXACT_SHORT: [(u64, u32); SVG_SHORT] = build::<SVG_SHORT>(1, false, false);
static MATHML_EXACT_SHORT: [(u64, u32); MATHML_SHORT] = build::<MATHML_SHORT>(2, false, false);
static SVG_LOWER_SHORT: [(u64, u32); SVG_SHORT] = build::<SVG_SHORT>(1, true, false);
static MATHML_LOWER_SHORT: [(u64, u32); MATHML_SHORT] = build::<MATHML_SHORT>(2, true, false);
static HTML_EXACT_LONG: [(u64, u32); HTML_LONG] = build::<HTML_LONG>(0, false, true);
static SVG_EXACT_LONG: [(u64, u32); SVG_LONG] = build::<SVG_LONG>(1, false, true);
static MATHML_EXACT_LONG: [(u64, u32); MATHML_LONG] = build::<MATHML_LONG>(2, false, true);
static SVG_LOWER_LONG: [(u64, u32); SVG_LONG] = build::<SVG_LONG>(1, true, true);
static MATHML_LOWER_LONG: [(u64, u32); MATHML_LONG] = build::<MATHML_LONG>(2, true, true);

/// HTML names are lowercase: their lowercase maps are the exact ones.
const _: () = {
    let mut i = 0;
    while i < HTML.len() {
        assert!(is_lowercase(HTML[i]), "HTML names are lowercase");
        i += 1;
    }
};

/// Per namespace: the stored name packed in a `u64` → id (names of up to 8 bytes).
static EXACT_SHORT: [NameMap; 3] =
    [NameMap { slots: &HTML_EXACT_SHORT }, NameMap { slots: &SVG_EXACT_SHORT }, NameMap { slots: &MATHML_EXACT_SHORT }];
/// Per namespace: the ASCII-lowercased name packed → id.
static LOWER_SHORT: [NameMap; 3] =
    [NameMap { slots: &HTML_EXACT_SHORT }, NameMap { slots: &SVG_LOWER_SHORT }, NameMap { slots: &MATHML_LOWER_SHORT }];
/// Per namespace: the stored name's hash → id (names over 8 bytes).
static EXACT_LONG: [NameMap; 3] =
    [NameMap { slots: &HTML_EXACT_LONG }, NameMap { slots: &SVG_EXACT_LONG }, NameMap { slots: &MATHML_EXACT_LONG }];
/// Per namespace: the ASCII-lowercased name's hash → id.
static LOWER_LONG: [NameMap; 3] =
    [NameMap { slots: &HTML_EXACT_LONG }, NameMap { slots: &SVG_LOWER_LONG }, NameMap { slots: &MATHML_LOWER_LONG }];

/// Whether `s` has no ASCII uppercase letter.
const fn is_lowercase(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_uppercase() {
            return false;
        }
        i += 1;
    }
    true
}

/// FNV-1a of `b` (ASCII-lowercased with `lower`), never 0.
const fn hash(b: &[u8], lower: bool) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < b.len() {
        let c = if lower { b[i].to_ascii_lowercase() } else { b[i] };
        h ^= c as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    h | 1
}

/// The id of the element `name` (as stored: SVG names case-adjusted) of namespace `ns`, if known.
#[inline]
pub(crate) fn known(ns: Namespace, name: &str) -> Option<u32> {
    match pack(name) {
        Some(k) => EXACT_SHORT[ns_index(ns)].get(k),
        None => known_long(ns, name.as_bytes()),
    }
}

/// The id of the HTML element whose tag name's bytes in the input are
/// `raw`, read as the tokenizer decodes it (ASCII-lowercased), for a name of
/// 1 to 8 bytes without NUL; `None` for others (known or not: the caller
/// builds the name and asks [`known`]). Known HTML names are ASCII, so a
/// name with other bytes (invalid UTF-8 included) packs to no entry.
#[inline]
pub(crate) fn known_html_raw(raw: &[u8]) -> Option<u32> {
    known_html_word(pack_name(raw, true))
}

/// [`known_html_raw`] of a tag name packed by the tokenizer
/// (`Token::packed_tag_name`: the scan packs it on its way).
#[inline]
pub(crate) fn known_html_word(word: Option<u64>) -> Option<u32> {
    EXACT_SHORT[ns_index(Namespace::Html)].get(word?)
}

/// Whether a tag name that does not pack (`raw`, its bytes in the input)
/// is surely no HTML element name of the table: lowercase ASCII letters,
/// digits and `-` only (the name as the tokenizer decodes it is then `raw`
/// itself), and not a name [`known`] finds. `false` for any other name,
/// known or not.
#[inline]
pub(crate) fn outside_html_table(raw: &[u8]) -> bool {
    debug_assert!(pack_name(raw, true).is_none(), "{raw:?} packs: known_html_word answers for it");
    raw.iter().all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && known_long(Namespace::Html, raw).is_none()
}

/// [`known`] for a name that does not pack (longer than 8 bytes, or with NUL).
#[inline(never)]
fn known_long(ns: Namespace, name: &[u8]) -> Option<u32> {
    if name.len() <= 8 {
        return None;
    }
    EXACT_LONG[ns_index(ns)].get(hash(name, false)).filter(|&id| NAMES[id as usize].as_bytes() == name)
}

/// The id of the element whose ASCII-lowercased name is `lowercase`, if known.
#[inline]
pub(crate) fn known_lowercase(ns: Namespace, lowercase: &str) -> Option<u32> {
    match pack(lowercase) {
        Some(k) => LOWER_SHORT[ns_index(ns)].get(k),
        None => known_lowercase_long(ns, lowercase),
    }
}

/// [`known_lowercase`] for a name that does not pack.
#[inline(never)]
fn known_lowercase_long(ns: Namespace, lowercase: &str) -> Option<u32> {
    if lowercase.len() <= 8 {
        return None;
    }
    LOWER_LONG[ns_index(ns)]
        .get(hash(lowercase.as_bytes(), true))
        .filter(|&id| NAMES[id as usize].eq_ignore_ascii_case(lowercase))
}

/// The id of the HTML element `name` of the table, for constants
/// (`const { names::html("p") }`: a name not in the table fails to compile).
pub(crate) const fn html(name: &str) -> u32 {
    let mut i = 0;
    while i < HTML.len() {
        let (a, b) = (HTML[i].as_bytes(), name.as_bytes());
        if a.len() == b.len() {
            let mut j = 0;
            while j < a.len() && a[j] == b[j] {
                j += 1;
            }
            if j == a.len() {
                // HTML names come first in the table: their ids are their indexes.
                return i as u32;
            }
        }
        i += 1;
    }
    panic!("not an HTML element name of the table")
}

/// A name of 1 to 8 bytes without NUL packed into a `u64` (zero-padded, so
/// distinct names give distinct numbers); `None` for other names (the
/// table's names have no NUL). The tokenizer's packing ([`pack_name`], the
/// key of `Token::packed_tag_name`), which builds the tables too.
#[inline]
fn pack(name: &str) -> Option<u64> {
    pack_name(name.as_bytes(), false)
}

/// An element name the shadow knows: one of the names the Standard's tree
/// construction rules name, in its namespace, or a common other HTML name
/// (the shadow's fixed table; no input adds to it). The shadow computes it
/// once per element (it keys its stack by it) and gives it with
/// [`Event::ElementOpened`](crate::Event::ElementOpened), so that a consumer
/// can read what it needs of an element's name from a table indexed by
/// [`KnownName::index`] instead of comparing or hashing the name.
///
/// Every element name the Standard lists as
/// [formatting](crate::is_formatting) or [special](crate::is_special), in
/// its namespace, is known: a consumer may take an element without a
/// known name for neither without reading its name (the test
/// `formatting_and_special_categories` checks it).
///
/// # Example
/// ```
/// use htrewrite_shadow::{KnownName, Namespace};
/// let p = KnownName::of(Namespace::Html, "p").expect("known");
/// assert_eq!((p.name(), p.namespace()), ("p", Namespace::Html));
/// assert!(p.index() < KnownName::COUNT);
/// assert_eq!(KnownName::of(Namespace::Svg, "foreignObject").map(KnownName::name), Some("foreignObject"));
/// assert_eq!(KnownName::of(Namespace::Html, "my-element"), None);
/// assert_eq!(KnownName::all().count(), KnownName::COUNT);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KnownName(u16);

const _: () = assert!(COUNT <= u16::MAX as usize, "known ids fit a u16");

impl KnownName {
    /// The number of known names: every [`KnownName::index`] is below it.
    pub const COUNT: usize = COUNT;

    /// The known name `name` (as the shadow reports it: lowercase for HTML,
    /// case-adjusted for SVG, `foreignObject`) of namespace `ns`; `None`
    /// for any other name.
    pub fn of(ns: Namespace, name: &str) -> Option<KnownName> {
        known(ns, name).map(KnownName::from_id)
    }

    /// Every known name, by index.
    pub fn all() -> impl Iterator<Item = KnownName> {
        (0..COUNT as u32).map(KnownName::from_id)
    }

    /// The name of shadow id `id` (below [`COUNT`]).
    #[inline]
    pub(crate) fn from_id(id: u32) -> KnownName {
        debug_assert!((id as usize) < COUNT);
        KnownName(id as u16)
    }

    /// The known name of index `index` ([`KnownName::index`]); `None` from
    /// [`KnownName::COUNT`] on. A `const fn`, so that a consumer can build
    /// a table by known name at compile time.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{KnownName, Namespace};
    /// let p = KnownName::of(Namespace::Html, "p").expect("known");
    /// assert_eq!(KnownName::from_index(p.index()), Some(p));
    /// assert_eq!(KnownName::from_index(KnownName::COUNT), None);
    /// const FIRST: &str = match KnownName::from_index(0) {
    ///     Some(k) => k.name(),
    ///     None => "",
    /// };
    /// assert_eq!(FIRST, "a");
    /// ```
    ///
    /// # Errors
    /// None: `None` for an index out of range.
    #[inline]
    pub const fn from_index(index: usize) -> Option<KnownName> {
        if index < COUNT { Some(KnownName(index as u16)) } else { None }
    }

    /// Its index, `0..KnownName::COUNT`: distinct names, distinct indexes.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The name, as the shadow reports it.
    #[inline]
    pub const fn name(self) -> &'static str {
        NAMES[self.0 as usize]
    }

    /// Its namespace.
    pub const fn namespace(self) -> Namespace {
        match self.index() {
            i if i < HTML.len() => Namespace::Html,
            i if i < HTML.len() + SVG.len() => Namespace::Svg,
            _ => Namespace::MathMl,
        }
    }
}

/// The stored name of a known id.
#[inline]
pub(crate) fn name(id: u32) -> &'static str {
    NAMES[id as usize]
}

/// The stored names by id: `HTML`, then `SVG`, then `MATHML` (the order in
/// of [`LISTS`]), built at compile time so that reading a
/// known element's name ([`Name::Known`]) costs an index, not a lazy table
/// (a constant, so that [`KnownName::name`] can be one too).
const NAMES: [&str; COUNT] = {
    let mut out = [""; COUNT];
    let mut i = 0;
    while i < COUNT {
        out[i] = if i < HTML.len() {
            HTML[i]
        } else if i < HTML.len() + SVG.len() {
            SVG[i - HTML.len()]
        } else {
            MATHML[i - HTML.len() - SVG.len()]
        };
        i += 1;
    }
    out
};

/// The category bits of a known id (for MathML `annotation-xml`, those
/// without the HTML integration point, which depends on an attribute).
#[inline]
pub(crate) fn cats_of(id: u32) -> u16 {
    CATS[id as usize]
}

/// A table by known id built at compile time: `$value` of each
/// [`KnownName`] `$k` (the one loop of the per-name tables: [`CATS`],
/// [`ATTRIBUTE_USE`], the stack's index lists).
macro_rules! known_table {
    ($t:ty, $empty:expr, |$k:ident| $value:expr) => {{
        let mut out: [$t; crate::names::COUNT] = [$empty; crate::names::COUNT];
        let mut i = 0;
        while let Some($k) = crate::KnownName::from_index(i) {
            out[i] = $value;
            i += 1;
        }
        out
    }};
}
pub(crate) use known_table;

/// [`cats_of`] by id, built at compile time from [`crate::tags::cats`].
pub(crate) static CATS: [u16; COUNT] = known_table!(u16, 0, |k| cats(k.namespace(), k.name(), false));

/// [`crate::tags::attribute_use`] of the name of a known id: a start tag
/// whose name has a short known id ([`known_html_raw`]) looks it up here
/// instead of comparing its name.
#[inline]
pub(crate) fn attribute_use_of(id: u32) -> crate::tags::AttributeUse {
    ATTRIBUTE_USE[id as usize]
}

/// [`attribute_use_of`] by id, built at compile time from [`crate::tags::attribute_use`].
static ATTRIBUTE_USE: [crate::tags::AttributeUse; COUNT] =
    known_table!(crate::tags::AttributeUse, crate::tags::AttributeUse::Unread, |k| crate::tags::attribute_use(
        k.name()
    ));

#[cfg(test)]
mod tests {
    use super::*;

    /// The compile-time table of attribute uses is the function's, name by name.
    #[test]
    fn attribute_use_table_is_the_function() {
        for id in 0..COUNT as u32 {
            assert_eq!(attribute_use_of(id), crate::tags::attribute_use(name(id)), "{}", name(id));
        }
        assert_eq!(attribute_use_of(html("a")), crate::tags::AttributeUse::Kept);
        assert_eq!(attribute_use_of(html("input")), crate::tags::AttributeUse::Read);
        assert_eq!(attribute_use_of(html("div")), crate::tags::AttributeUse::Unread);
    }

    /// The compile-time names and the lookup table agree: each id's name looks up to that id.
    #[test]
    fn every_id_names_its_entry() {
        for id in 0..COUNT as u32 {
            let ns = match id as usize {
                i if i < HTML.len() => Namespace::Html,
                i if i < HTML.len() + SVG.len() => Namespace::Svg,
                _ => Namespace::MathMl,
            };
            assert_eq!(known(ns, name(id)), Some(id), "{}", name(id));
            let k = KnownName::from_id(id);
            assert_eq!((k.index(), k.name(), k.namespace()), (id as usize, name(id), ns));
            assert_eq!(KnownName::of(ns, name(id)), Some(k));
        }
        // A stack entry names its element by key (issue 16: memory per open element).
        assert_eq!(std::mem::size_of::<crate::OpenElement>(), 24);
        // So is an entry of the list of active formatting elements (each open cell holds a marker).
        assert_eq!(std::mem::size_of::<crate::formatting::Entry>(), 16);
    }

    /// The compile-time maps give what a search of the lists gives (the
    /// last name equal to the one looked up, as stored or ASCII-lowercased),
    /// for every name of the table in several cases and for names near them.
    #[test]
    fn maps_agree_with_a_search_of_the_lists() {
        let search = |ns: usize, name: &str, lower: bool| {
            let (list, first) = LISTS[ns];
            list.iter()
                .rposition(|n| if lower { n.to_ascii_lowercase() == name } else { *n == name })
                .map(|i| first + i as u32)
        };
        let mut probes: Vec<String> = vec![String::new(), "my-element".into(), "abcdefghi".into(), "é".into()];
        for n in HTML.iter().chain(SVG).chain(MATHML) {
            probes.extend([
                n.to_string(),
                n.to_ascii_lowercase(),
                n.to_ascii_uppercase(),
                format!("{n}x"),
                format!("x{n}"),
            ]);
            probes.push(n[..n.len() - 1].to_owned());
        }
        let mut found = 0;
        for (ns_i, ns) in [Namespace::Html, Namespace::Svg, Namespace::MathMl].into_iter().enumerate() {
            for p in &probes {
                let exact = known(ns, p);
                assert_eq!(exact, search(ns_i, p, false), "{ns:?} {p:?}");
                found += usize::from(exact.is_some());
                if !p.bytes().any(|b| b.is_ascii_uppercase()) {
                    assert_eq!(known_lowercase(ns, p), search(ns_i, p, true), "{ns:?} lowercase {p:?}");
                }
            }
        }
        assert!(found >= COUNT, "every name found: {found}");
        for id in 0..COUNT as u32 {
            let ns = KnownName::from_id(id).namespace();
            assert_eq!(cats_of(id), cats(ns, name(id), false), "{}", name(id));
        }
    }

    /// `known_html_raw` on a tag name's bytes is `known` on the name the
    /// tokenizer decodes from them (ASCII-lowercased, NUL and invalid bytes
    /// as U+FFFD) wherever it answers, and it answers for every known HTML
    /// name of 1 to 8 bytes, in any ASCII case.
    #[test]
    fn known_html_raw_is_known_on_the_decoded_name() {
        let decoded = |raw: &[u8]| -> String {
            String::from_utf8_lossy(raw)
                .chars()
                .map(|c| if c == '\0' { '\u{FFFD}' } else { c.to_ascii_lowercase() })
                .collect()
        };
        let mut raws: Vec<Vec<u8>> = Vec::new();
        for &n in HTML.iter().chain(SVG).chain(MATHML) {
            raws.push(n.as_bytes().to_vec());
            raws.push(n.to_ascii_uppercase().into_bytes());
            raws.push(
                n.bytes().enumerate().map(|(i, b)| if i % 2 == 0 { b.to_ascii_uppercase() } else { b }).collect(),
            );
            raws.push([n.as_bytes(), b"\0"].concat());
            raws.push([n.as_bytes(), "é".as_bytes()].concat());
            raws.push([n.as_bytes(), b"x"].concat());
        }
        raws.extend([b"".to_vec(), b"\xff".to_vec(), b"abcdefghi".to_vec(), b"my-element".to_vec()]);
        let mut answered = 0;
        for raw in &raws {
            let full = known(Namespace::Html, &decoded(raw));
            match known_html_raw(raw) {
                Some(id) => {
                    answered += 1;
                    assert_eq!(Some(id), full, "{raw:?}");
                }
                None => assert!(
                    full.is_none() || raw.len() > 8,
                    "{raw:?}: known as {full:?} but not answered from its bytes"
                ),
            }
        }
        let short_html = HTML.iter().filter(|n| n.len() <= 8).count();
        assert!(answered >= 3 * short_html, "every short HTML name in three cases: {answered}");
    }
}
