//! Known element names, interned: each (namespace, name) of the table has a
//! small id with its categories computed once, so that pushing an element
//! neither allocates its name nor hashes it with SipHash, and the stack's
//! name index is a plain vector for them. Other names are interned by the
//! stack itself ([`crate::stack`]).
//!
//! The table is fixed (no input can add to it), so its fast hash cannot be
//! flooded: a look-up costs a bounded number of probes whatever the name.

use std::collections::HashMap;
use std::sync::OnceLock;

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

type NameMap = HashMap<&'static str, u32, rustc_hash::FxBuildHasher>;

struct Table {
    /// Per namespace: the stored name → id (looked up for names over 8 bytes).
    exact: [NameMap; 3],
    /// Per namespace: the stored name packed in a `u64` → id (names of up to 8 bytes).
    exact_short: [ShortMap; 3],
    /// Per namespace: the ASCII-lowercased name → id.
    lower: [NameMap; 3],
    lower_short: [ShortMap; 3],
    cats: Vec<u16>,
}

fn ns_index(ns: Namespace) -> usize {
    match ns {
        Namespace::Html => 0,
        Namespace::Svg => 1,
        Namespace::MathMl => 2,
    }
}

/// Packed short names ([`pack`]) → id: open addressing with linear probing
/// in a power-of-two table kept at most a quarter full. The keys are fixed
/// (the table's names), so the longest probe run is fixed too, whatever the
/// name looked up; a look-up is a multiplication and, nearly always, one or
/// two comparisons.
#[derive(Default)]
struct ShortMap {
    /// `(packed name, id)`; a key of 0 marks a free slot (no packed name is 0).
    slots: Vec<(u64, u32)>,
    /// 64 minus the log2 of the number of slots.
    shift: u32,
}

impl ShortMap {
    fn new(pairs: &[(u64, u32)]) -> ShortMap {
        let len = (pairs.len() * 4).next_power_of_two().max(16);
        let mut map = ShortMap { slots: vec![(0, 0); len], shift: 64 - len.trailing_zeros() };
        for &(k, id) in pairs {
            let mut i = map.home(k);
            // A key given twice keeps its last id, as a map insertion would.
            while map.slots[i].0 != 0 && map.slots[i].0 != k {
                i = (i + 1) & (len - 1);
            }
            map.slots[i] = (k, id);
        }
        map
    }

    #[inline]
    fn home(&self, k: u64) -> usize {
        (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    #[inline]
    fn get(&self, k: u64) -> Option<u32> {
        let mask = self.slots.len() - 1;
        let mut i = self.home(k);
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

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = Table {
            exact: Default::default(),
            exact_short: Default::default(),
            lower: Default::default(),
            lower_short: Default::default(),
            cats: Vec::new(),
        };
        let mut exact_short: [Vec<(u64, u32)>; 3] = Default::default();
        let mut lower_short: [Vec<(u64, u32)>; 3] = Default::default();
        let mut next_id = 0u32;
        for (ns, list) in [(Namespace::Html, HTML), (Namespace::Svg, SVG), (Namespace::MathMl, MATHML)] {
            for &name in list {
                let id = next_id;
                next_id += 1;
                debug_assert_eq!(NAMES[id as usize], name, "ids follow NAMES");
                t.exact[ns_index(ns)].insert(name, id);
                if let Some(k) = pack(name) {
                    exact_short[ns_index(ns)].push((k, id));
                }
                let lower: &'static str = if name.bytes().any(|b| b.is_ascii_uppercase()) {
                    Box::leak(name.to_ascii_lowercase().into_boxed_str())
                } else {
                    name
                };
                t.lower[ns_index(ns)].insert(lower, id);
                if let Some(k) = pack(lower) {
                    lower_short[ns_index(ns)].push((k, id));
                }
                t.cats.push(cats(ns, name, false));
            }
        }
        t.exact_short = exact_short.map(|pairs| ShortMap::new(&pairs));
        t.lower_short = lower_short.map(|pairs| ShortMap::new(&pairs));
        t
    })
}

/// The id of the element `name` (as stored: SVG names case-adjusted) of namespace `ns`, if known.
#[inline]
pub(crate) fn known(ns: Namespace, name: &str) -> Option<u32> {
    match pack(name) {
        Some(k) => table().exact_short[ns_index(ns)].get(k),
        None => known_long(ns, name),
    }
}

/// The id of the HTML element whose tag name's bytes in the input are
/// `raw`, read as the tokenizer decodes it (ASCII-lowercased), for a name of
/// 1 to 8 bytes without NUL; `None` for others (known or not: the caller
/// builds the name and asks [`known`]). Known HTML names are ASCII, so a
/// name with other bytes (invalid UTF-8 included) packs to no entry.
#[inline]
pub(crate) fn known_html_raw(raw: &[u8]) -> Option<u32> {
    table().exact_short[ns_index(Namespace::Html)].get(pack_bytes(raw, |c| c.to_ascii_lowercase())?)
}

/// [`known`] for a name that does not pack (longer than 8 bytes, or with NUL).
#[inline(never)]
fn known_long(ns: Namespace, name: &str) -> Option<u32> {
    if name.len() <= 8 { None } else { table().exact[ns_index(ns)].get(name).copied() }
}

/// The id of the element whose ASCII-lowercased name is `lowercase`, if known.
#[inline]
pub(crate) fn known_lowercase(ns: Namespace, lowercase: &str) -> Option<u32> {
    match pack(lowercase) {
        Some(k) => table().lower_short[ns_index(ns)].get(k),
        None => known_lowercase_long(ns, lowercase),
    }
}

/// [`known_lowercase`] for a name that does not pack.
#[inline(never)]
fn known_lowercase_long(ns: Namespace, lowercase: &str) -> Option<u32> {
    if lowercase.len() <= 8 { None } else { table().lower[ns_index(ns)].get(lowercase).copied() }
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
/// table's names have no NUL).
#[inline]
fn pack(name: &str) -> Option<u64> {
    pack_bytes(name.as_bytes(), |c| c)
}

/// [`pack`] of the bytes `b`, each mapped by `map` (ASCII lowercasing for
/// a tag name's raw bytes, [`known_html_raw`]).
#[inline(always)]
fn pack_bytes(b: &[u8], map: impl Fn(u8) -> u8) -> Option<u64> {
    if b.is_empty() || b.len() > 8 {
        return None;
    }
    // Byte by byte (no call to memcpy for a few bytes), NUL checked on the way.
    let mut word = 0u64;
    for (i, &c) in b.iter().enumerate() {
        if c == 0 {
            return None;
        }
        word |= u64::from(map(c)) << (8 * i);
    }
    Some(word)
}

/// An element name the shadow knows: one of the names the Standard's tree
/// construction rules name, in its namespace, or a common other HTML name
/// (the shadow's fixed table; no input adds to it). The shadow computes it
/// once per element (it keys its stack by it) and gives it with
/// [`Event::ElementOpened`](crate::Event::ElementOpened), so that a consumer
/// can read what it needs of an element's name from a table indexed by
/// [`KnownName::index`] instead of comparing or hashing the name.
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

    /// Its index, `0..KnownName::COUNT`: distinct names, distinct indexes.
    #[inline]
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// The name, as the shadow reports it.
    pub fn name(self) -> &'static str {
        name(u32::from(self.0))
    }

    /// Its namespace.
    pub fn namespace(self) -> Namespace {
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
/// which [`table`] hands out ids), built at compile time so that reading a
/// known element's name ([`Name::Known`]) costs an index, not a lazy table.
static NAMES: [&str; COUNT] = {
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
pub(crate) fn cats_of(id: u32) -> u16 {
    table().cats[id as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

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
