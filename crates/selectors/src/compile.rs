//! Compilation: selector lists → a [`Program`] of states, indexed by key.
//!
//! Each complex selector becomes a *rule*: a chain of states, one per
//! compound, read left to right (`a b > c` is `a` → descendant → `b` → child
//! → `c`). The matcher runs them as an automaton over the open elements: a
//! state is tested at an element when an ancestor or earlier sibling left it
//! alive. Complex selectors inside `:not()`, `:is()`, `:where()` and
//! `:nth-child(… of S)` become rules of their own, numbered before the rules
//! that use them, so that their result at an element is known when the outer
//! compound is tested there.

use std::sync::Arc;

use htrewrite_shadow::{KnownName, Namespace, is_formatting, is_special};

use crate::ast::{
    AttributeOperator, CaseFlag, Combinator, ComplexSelector, CompoundSelector, NamespacePrefix, Nth, PseudoClass,
    SelectorList, SimpleSelector,
};
use crate::{ErrorKind, SelectorError};

/// Identifies one selector list given to [`Program::new`]: its index there.
///
/// # Example
/// ```
/// use htrewrite_selectors::{Program, RuleId};
/// let p = Program::new(["a", "b, c"])?;
/// assert_eq!(p.len(), 2);
/// assert_eq!(RuleId(1).0, 1);
/// # Ok::<(), htrewrite_selectors::SelectorError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RuleId(pub u32);

/// Namespace prefixes for type selectors (`svg|rect`), and the default namespace.
///
/// `svg`, `math` and `html` are predefined; [`Namespaces::declare`] adds or
/// replaces one. Without a declared default namespace, an unprefixed type
/// selector matches in every namespace (the Selectors rule).
///
/// # Example
/// ```
/// use htrewrite_selectors::{Namespaces, Program};
/// let ns = Namespaces::default().declare("s", "http://www.w3.org/2000/svg");
/// let p = Program::with_namespaces(["s|rect"], &ns)?;
/// assert_eq!(p.len(), 1);
/// assert!(Program::new(["s|rect"]).is_err());
/// # Ok::<(), htrewrite_selectors::SelectorError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Namespaces {
    prefixes: Vec<(String, String)>,
    default: Option<String>,
}

/// The prefixes [`Namespaces::default`] predefines: `html`, `svg`, `math`.
const PREDEFINED: [(&str, Namespace); 3] =
    [("html", Namespace::Html), ("svg", Namespace::Svg), ("math", Namespace::MathMl)];

impl Default for Namespaces {
    fn default() -> Namespaces {
        Namespaces {
            prefixes: PREDEFINED.iter().map(|(p, ns)| ((*p).into(), ns.url().into())).collect(),
            default: None,
        }
    }
}

impl Namespaces {
    /// The predefined prefix of a namespace URL (`svg` for the SVG namespace), for the three
    /// namespaces an HTML document's elements can have; `None` for any other URL.
    ///
    /// # Example
    /// ```
    /// use htrewrite_selectors::Namespaces;
    /// assert_eq!(Namespaces::predefined_prefix("http://www.w3.org/2000/svg"), Some("svg"));
    /// assert_eq!(Namespaces::predefined_prefix("urn:x"), None);
    /// ```
    pub fn predefined_prefix(url: &str) -> Option<&'static str> {
        PREDEFINED.iter().find(|(_, ns)| ns.url() == url).map(|(p, _)| *p)
    }

    /// The namespace URL of a predefined prefix (`svg`, `math`, `html`).
    ///
    /// # Example
    /// ```
    /// use htrewrite_selectors::Namespaces;
    /// assert_eq!(Namespaces::predefined_url("math"), Some("http://www.w3.org/1998/Math/MathML"));
    /// assert_eq!(Namespaces::predefined_url("s"), None);
    /// ```
    pub fn predefined_url(prefix: &str) -> Option<&'static str> {
        PREDEFINED.iter().find(|(p, _)| *p == prefix).map(|(_, ns)| ns.url())
    }
}

impl Namespaces {
    /// Declares `prefix` for the namespace `url` (replacing an earlier one).
    ///
    /// # Example
    /// ```
    /// let ns = htrewrite_selectors::Namespaces::default().declare("h", "http://www.w3.org/1999/xhtml");
    /// assert!(htrewrite_selectors::Program::with_namespaces(["h|p"], &ns).is_ok());
    /// ```
    pub fn declare(mut self, prefix: &str, url: &str) -> Namespaces {
        self.prefixes.retain(|(p, _)| p != prefix);
        self.prefixes.push((prefix.into(), url.into()));
        self
    }

    /// Declares the default namespace: unprefixed type selectors, and
    /// compounds without a type selector, match only in it.
    ///
    /// # Example
    /// ```
    /// let ns = htrewrite_selectors::Namespaces::default().default_namespace("http://www.w3.org/2000/svg");
    /// let sel = htrewrite_selectors::select_with("<a></a><svg><a></a></svg>", "a", &ns)?;
    /// assert_eq!(sel.start_tags.len(), 1);
    /// # Ok::<(), htrewrite_selectors::SelectorError>(())
    /// ```
    pub fn default_namespace(mut self, url: &str) -> Namespaces {
        self.default = Some(url.into());
        self
    }

    fn resolve_url(url: &str) -> NsTest {
        [Namespace::Html, Namespace::Svg, Namespace::MathMl]
            .into_iter()
            .find(|n| n.url() == url)
            .map_or(NsTest::Nothing, NsTest::Is)
    }

    fn resolve(&self, prefix: &NamespacePrefix, position: usize) -> Result<NsTest, SelectorError> {
        Ok(match prefix {
            NamespacePrefix::Default => self.default.as_deref().map_or(NsTest::Any, Namespaces::resolve_url),
            NamespacePrefix::Any => NsTest::Any,
            NamespacePrefix::None => NsTest::Nothing,
            NamespacePrefix::Named(p) => match self.prefixes.iter().find(|(q, _)| q == p) {
                Some((_, url)) => Namespaces::resolve_url(url),
                None => return Err(SelectorError::new(ErrorKind::UnknownNamespacePrefix(p.clone()), position)),
            },
        })
    }
}

/// A compiled set of selector lists, shared by any number of [`Matcher`](crate::Matcher)s.
///
/// `Program` is immutable, `Send + Sync`; wrap it in an `Arc` once and give
/// each document its own matcher.
///
/// # Example
/// ```
/// use std::sync::Arc;
/// use htrewrite_selectors::{Matcher, Program};
/// let program = Arc::new(Program::new(["div > p", "li:nth-child(odd)"])?);
/// let m1 = Matcher::new(Arc::clone(&program));
/// let m2 = Matcher::new(program);
/// # drop((m1, m2));
/// # Ok::<(), htrewrite_selectors::SelectorError>(())
/// ```
///
/// # Complexity
/// Compiling is linear in the size of the selectors. Per element, the
/// matcher tests only the states whose compound's key (id, else a class,
/// else an attribute with its value, else the tag name, else an attribute
/// name) the element has, plus the
/// states without a key.
#[derive(Debug)]
pub struct Program {
    pub(crate) states: Vec<State>,
    pub(crate) rules: Vec<Rule>,
    pub(crate) start: Arc<StateSet>,
    /// The keys of the start states, for [`Program::may_start`].
    pub(crate) start_filter: KeyFilter,
    /// Some start state has no key: every element may start a rule.
    pub(crate) start_unkeyed: bool,
    pub(crate) of_lists: Vec<InnerList>,
    pub(crate) public_len: usize,
    pub(crate) needs_attribute_keys: bool,
    /// The `KEY_ATTR` keys of the attribute names that some state is keyed
    /// by with a value (`[name=value]`): only their values are hashed.
    pub(crate) value_key_names: KeyFilter,
    /// The start states by tag key, when an element's only key is its tag
    /// and every start state has a key (no attribute keys, no unkeyed
    /// start state) in a program with sparse records; else empty.
    pub(crate) by_tag: Option<IdMap<TagStart>>,
    /// With [`Program::by_tag`], the known names (a bit per
    /// [`KnownName::index`]) whose elements' start states decide their
    /// match alone, as [`Program::known_answer`] says, and of which the
    /// matcher keeps nothing on its own: no start state is keyed by their
    /// tag, or those keyed by it are one type selector and nothing else
    /// ([`PureStart`]) that leaves no state for descendants or children;
    /// not HTML `head` (whose id the matcher keeps). In a flat program such
    /// an element's match is the answer and it changes nothing else; in
    /// another, when nothing is kept for moves and its parent has no record
    /// (no state for it to match either), where the matcher then follows a
    /// formatting element for the adoption agency as the full path does
    /// ([`Matcher::element_opened`](crate::Matcher::element_opened)). No
    /// bit is set in other programs.
    pub(crate) answered_known: [u64; KNOWN_WORDS],
    /// By [`KnownName::index`], for the names of
    /// [`Program::answered_known`]: the one rule their elements match, or
    /// [`NO_RULE`]. Empty in programs without [`Program::by_tag`].
    pub(crate) known_answer: Box<[u16]>,
    /// The names of [`Program::answered_known`] whose answer is a rule.
    pub(crate) ruled_known: [u64; KNOWN_WORDS],
    pub(crate) needs_type_counts: bool,
    /// `:first-child` or `:nth-child` somewhere: parents count their children.
    pub(crate) needs_child_counts: bool,
    /// No combinators, no child or type counts, no `of S` lists: every
    /// element is matched on its own, and the matcher keeps no records.
    pub(crate) flat: bool,
    /// No sibling combinators, no child or type counts, no `of S` lists:
    /// parents need no sibling cursor, so an element that leaves no state
    /// for its descendants or children needs no record.
    pub(crate) sparse_records: bool,
    /// In a program with [`Program::by_tag`]: every tag key with start
    /// states is a known HTML name's. An HTML element whose name is outside
    /// the table of known names (a custom element's `<my-el>`) then has no
    /// start state (its key, if another's, leads to states of a name that
    /// is not its own) and matches no rule; it is no special element either
    /// ([`Matcher::element_opened`](crate::Matcher::element_opened) answers
    /// for it as for a known name of [`Program::answered_known`] without a
    /// rule). False in other programs.
    pub(crate) unlisted_answered: bool,
    /// The elements whose attributes matching may read: `None` for all,
    /// else those with these names (ASCII-lowercase, sorted).
    pub(crate) attribute_readers: Option<NameSet>,
    /// The elements whose attribute values matching may read, likewise.
    pub(crate) attribute_value_readers: Option<NameSet>,
}

#[derive(Debug)]
pub(crate) struct Rule {
    pub(crate) public: Option<RuleId>,
}

/// One compound of one rule.
#[derive(Debug)]
pub(crate) struct State {
    pub(crate) rule: u32,
    pub(crate) compound: Compound,
    /// The combinator to the next compound; `None` for the last (the subject).
    pub(crate) next: Option<Combinator>,
    pub(crate) key: u64,
    /// `KEY_*` of `key`, 0 when unkeyed.
    pub(crate) key_kind: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NsTest {
    Any,
    Is(Namespace),
    Nothing,
}

#[derive(Debug)]
pub(crate) struct Compound {
    pub(crate) ns: NsTest,
    /// (ASCII-lowercase, as written).
    pub(crate) name: Option<(String, String)>,
    /// `key(KEY_TAG, name)`: compared before the names (0 without a name).
    pub(crate) name_key: u64,
    pub(crate) tests: Vec<Test>,
}

#[derive(Debug)]
pub(crate) enum Test {
    Id(String),
    Class(String),
    Attribute(AttributeTest),
    Root,
    NthChild(Nth, Option<u32>),
    NthOfType(Nth),
    Not(InnerList),
    Is(InnerList),
}

/// The selector list of `:not()`, `:is()`, `:where()` or `of S`: single
/// compounds tested in place, complex selectors as rules of their own.
#[derive(Debug, Default)]
pub(crate) struct InnerList {
    pub(crate) compounds: Vec<Compound>,
    pub(crate) rules: Vec<u32>,
}

#[derive(Debug)]
pub(crate) struct AttributeTest {
    pub(crate) lower: String,
    pub(crate) exact: String,
    pub(crate) operation: Option<(AttributeOperator, String)>,
    pub(crate) case: CaseFlag,
    /// `[*|name]`: attributes in any namespace, not only in none.
    pub(crate) any_namespace: bool,
    /// The name is on the Standard's list of case-insensitive attributes.
    pub(crate) listed: bool,
}

/// The HTML Standard's attributes whose values selectors compare ASCII
/// case-insensitively on HTML elements
/// ([case-sensitivity of selectors](https://html.spec.whatwg.org/multipage/semantics-other.html#case-sensitivity-of-selectors)).
pub(crate) const CASE_INSENSITIVE_ATTRIBUTES: &[&str] = &[
    "accept",
    "accept-charset",
    "align",
    "alink",
    "axis",
    "bgcolor",
    "charset",
    "checked",
    "clear",
    "codetype",
    "color",
    "compact",
    "declare",
    "defer",
    "dir",
    "direction",
    "disabled",
    "enctype",
    "face",
    "frame",
    "hreflang",
    "http-equiv",
    "lang",
    "language",
    "link",
    "media",
    "method",
    "multiple",
    "nohref",
    "noresize",
    "noshade",
    "nowrap",
    "readonly",
    "rel",
    "rev",
    "rules",
    "scope",
    "scrolling",
    "selected",
    "shape",
    "target",
    "text",
    "type",
    "valign",
    "valuetype",
    "vlink",
];

pub(crate) const KEY_TAG: u64 = 1;
pub(crate) const KEY_ID: u64 = 2;
pub(crate) const KEY_CLASS: u64 = 3;
pub(crate) const KEY_ATTR: u64 = 4;
/// An attribute name with a value: [`attribute_value_key`].
pub(crate) const KEY_ATTR_VALUE: u64 = 5;

/// The key of an attribute `name` whose value is `value`: FNV-1a as in
/// [`key`], over the name, a byte 0xFF (never in UTF-8, so no two pairs
/// share their bytes) and the value, both ASCII-lowercased.
pub(crate) fn attribute_value_key(name: &str, value: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ KEY_ATTR_VALUE.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    for b in name.bytes().chain([0xFF]).chain(value.bytes()) {
        h ^= u64::from(b.to_ascii_lowercase());
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h | 1 << 63
}

/// FNV-1a over the ASCII-lowercased bytes, seeded by the key kind; never 0.
pub(crate) const fn key(kind: u64, s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ kind.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        h ^= b[i].to_ascii_lowercase() as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    h | 1 << 63
}

/// What matching reads of a known element name ([`KnownName`]): its tag key
/// ([`key`]`(KEY_TAG, name)`) and whether the Standard's tree construction
/// lists it as a formatting or a special element ([`is_formatting`],
/// [`is_special`]).
#[derive(Debug)]
pub(crate) struct KnownTag {
    pub(crate) key: u64,
    pub(crate) formatting: bool,
    pub(crate) special: bool,
}

/// [`KnownTag`]s by [`KnownName::index`]: the names and [`key`] are fixed,
/// so one table serves every program (no program holds a copy), built at
/// compile time (no lazy initialization to check at each look-up).
#[inline]
pub(crate) fn known_tags() -> &'static [KnownTag; KnownName::COUNT] {
    &KNOWN_TAGS
}

/// The table of [`known_tags`].
static KNOWN_TAGS: [KnownTag; KnownName::COUNT] = {
    let mut out = [const { KnownTag { key: 0, formatting: false, special: false } }; KnownName::COUNT];
    let mut i = 0;
    while let Some(k) = KnownName::from_index(i) {
        let (ns, name) = (k.namespace(), k.name());
        out[i] =
            KnownTag { key: key(KEY_TAG, name), formatting: is_formatting(ns, name), special: is_special(ns, name) };
        i += 1;
    }
    out
};

/// The known names' tag keys with their indexes, sorted by key (names of
/// several namespaces share a key: [`known_of_key`]). Sorted at compile time.
static KEYS_SORTED: [(u64, u16); KnownName::COUNT] = {
    let mut out = [(0u64, 0u16); KnownName::COUNT];
    let mut i = 0;
    while i < KnownName::COUNT {
        // Insertion sort: 243 entries, once, by the compiler.
        let e = (KNOWN_TAGS[i].key, i as u16);
        let mut j = i;
        while j > 0 && out[j - 1].0 > e.0 {
            out[j] = out[j - 1];
            j -= 1;
        }
        out[j] = e;
        i += 1;
    }
    out
};

/// The indexes of the known names whose tag key is `key`.
fn known_of_key(key: u64) -> impl Iterator<Item = usize> {
    let from = KEYS_SORTED.partition_point(|&(k, _)| k < key);
    KEYS_SORTED[from..].iter().take_while(move |&&(k, _)| k == key).map(|&(_, i)| usize::from(i))
}

/// The known names a program's known-name test may answer for before its
/// start states are seen ([`known_answers`]): all but HTML `head`. Made at
/// compile time.
static ANSWERABLE: [u64; KNOWN_WORDS] = {
    let mut out = [0u64; KNOWN_WORDS];
    let mut i = 0;
    while let Some(k) = KnownName::from_index(i) {
        let head = matches!(k.namespace(), Namespace::Html) && k.name().len() == 4 && {
            let b = k.name().as_bytes();
            b[0] == b'h' && b[1] == b'e' && b[2] == b'a' && b[3] == b'd'
        };
        if !head {
            out[i / 64] |= 1 << (i % 64);
        }
        i += 1;
    }
    out
};

/// The known names of formatting elements ([`KnownTag::formatting`]), a bit
/// per [`KnownName::index`]. Made at compile time.
pub(crate) static FORMATTING_KNOWN: [u64; KNOWN_WORDS] = {
    let mut out = [0u64; KNOWN_WORDS];
    let mut i = 0;
    while i < KnownName::COUNT {
        if KNOWN_TAGS[i].formatting {
            out[i / 64] |= 1 << (i % 64);
        }
        i += 1;
    }
    out
};

/// The words of a bit set of the known names ([`KnownName::index`]).
pub(crate) const KNOWN_WORDS: usize = KnownName::COUNT.div_ceil(64);

/// Whether the bit set `set` (a bit per [`KnownName::index`]) holds `k`.
#[inline(always)]
pub(crate) fn known_in(set: &[u64; KNOWN_WORDS], k: KnownName) -> bool {
    set[k.index() / 64] >> (k.index() % 64) & 1 != 0
}

/// [`Program::known_answer`] of a name whose elements match no rule.
pub(crate) const NO_RULE: u16 = u16::MAX;

/// [`Program::answered_known`], [`Program::ruled_known`] and
/// [`Program::known_answer`] of a program whose start states are `by_tag`
/// : every known name of [`ANSWERABLE`] whose
/// tag key has no start states (no rule), or has [`PureStart`] states that
/// leave no state and complete one rule (that rule when the name is theirs,
/// as the matcher's evaluation compares it, else none). Each tag key's known
/// names are looked up in [`KEYS_SORTED`]; the table of answers is
/// allocated only when some name is answered with a rule.
fn known_answers(by_tag: &IdMap<TagStart>) -> ([u64; KNOWN_WORDS], [u64; KNOWN_WORDS], Box<[u16]>) {
    let mut answered = ANSWERABLE;
    let mut ruled = [0u64; KNOWN_WORDS];
    // Allocated for the first name answered with a rule.
    let mut answer: Vec<u16> = Vec::new();
    for (&key, start) in by_tag {
        for i in known_of_key(key) {
            if answered[i / 64] >> (i % 64) & 1 == 0 {
                continue;
            }
            let k = KnownName::from_index(i).expect("an index of the table");
            let rule = match &start.pure {
                Some(pure) if pure.desc.is_empty() && pure.child.is_empty() => {
                    let same = match k.namespace() {
                        Namespace::Html => pure.known_html == Some(k),
                        _ => k.name() == &*pure.name.1,
                    };
                    match pure.rules[..] {
                        _ if !same => Some(None),
                        [] => Some(None),
                        [r] if r.0 < u32::from(NO_RULE) => Some(Some(r.0 as u16)),
                        _ => None,
                    }
                }
                _ => None,
            };
            match rule {
                None => answered[i / 64] &= !(1 << (i % 64)),
                Some(None) => {}
                Some(Some(r)) => {
                    if answer.is_empty() {
                        answer = vec![NO_RULE; KnownName::COUNT];
                    }
                    answer[i] = r;
                    ruled[i / 64] |= 1 << (i % 64);
                }
            }
        }
    }
    (answered, ruled, answer.into_boxed_slice())
}

/// A map keyed by hashes and node ids (FxHash: neither is chosen by the input).
pub(crate) type IdMap<V> = rustc_hash::FxHashMap<u64, V>;

/// The start states of one tag key (see [`Program::by_tag`]).
#[derive(Debug)]
pub(crate) struct TagStart {
    /// In state order.
    pub(crate) states: Vec<u32>,
    /// What an element passing them gets, when they are all one type
    /// selector alone.
    pub(crate) pure: Option<PureStart>,
}

/// Start states that are all the same type selector and nothing else, in
/// any namespace (`div`, or `ul` of `ul > li`): an element with that name
/// passes all of them, any other none. What passing gives, computed once
/// as the matcher's evaluation would.
#[derive(Debug)]
pub(crate) struct PureStart {
    /// The name: (ASCII-lowercase, as written); boxed, no spare capacity
    /// (with [`PureStart::known_html`], the entry is no larger than with
    /// two `String`s).
    pub(crate) name: (Box<str>, Box<str>),
    /// The known HTML name of the lowercase name, if known: an HTML element
    /// whose event gives its [`KnownName`] passes exactly when it is this
    /// one (known HTML names are lowercase), without comparing the names.
    pub(crate) known_html: Option<KnownName>,
    /// The public rules completed, in order, each once.
    pub(crate) rules: Vec<RuleId>,
    /// The next states for the descendants and the children (a program with
    /// sparse records has no sibling combinators).
    pub(crate) desc: Vec<u32>,
    pub(crate) child: Vec<u32>,
}

impl PureStart {
    fn new(states: &[u32], p: &Program) -> Option<PureStart> {
        let first = p.states[states[0] as usize].compound.name.as_ref()?;
        let known_html = KnownName::of(Namespace::Html, &first.0);
        let name = (first.0.as_str().into(), first.1.as_str().into());
        let mut pure = PureStart { name, known_html, rules: Vec::new(), desc: Vec::new(), child: Vec::new() };
        for &s in states {
            let state = &p.states[s as usize];
            let c = &state.compound;
            if c.ns != NsTest::Any || !c.tests.is_empty() || c.name.as_ref() != Some(first) {
                return None;
            }
            match state.next {
                None => {
                    if let Some(id) = p.rules[state.rule as usize].public
                        && pure.rules.last() != Some(&id)
                    {
                        pure.rules.push(id);
                    }
                }
                Some(Combinator::Descendant) => pure.desc.push(s + 1),
                Some(Combinator::Child) => pure.child.push(s + 1),
                Some(Combinator::NextSibling | Combinator::SubsequentSibling) => return None,
            }
        }
        Some(pure)
    }
}

/// A Bloom filter with one bit per key: a key whose bit is clear is not in
/// the set it was built from. About one bit in eight is set, so most keys
/// absent from the set are told apart without a hash-table lookup.
#[derive(Debug, Default)]
pub(crate) struct KeyFilter {
    words: Box<[u64]>,
    /// `64 - log2(bits)`: a key's bit is the top bits of its scrambled value.
    shift: u32,
}

impl KeyFilter {
    pub(crate) fn new(keys: impl Iterator<Item = u64> + Clone) -> KeyFilter {
        let bits = (8 * keys.clone().count()).next_power_of_two().max(64);
        let mut f = KeyFilter { words: vec![0; bits / 64].into_boxed_slice(), shift: 64 - bits.trailing_zeros() };
        for k in keys {
            let b = f.bit(k);
            f.words[b >> 6] |= 1 << (b & 63);
        }
        f
    }

    #[inline]
    fn bit(&self, k: u64) -> usize {
        (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// False when `k` is certainly not in the set (always false for the
    /// empty default filter, which has no words).
    #[inline]
    pub(crate) fn may_contain(&self, k: u64) -> bool {
        let b = self.bit(k);
        self.words.get(b >> 6).is_some_and(|w| w >> (b & 63) & 1 != 0)
    }
}

/// A set of states, sorted, with an index by key when large.
#[derive(Debug, Default)]
pub(crate) struct StateSet {
    pub(crate) all: Vec<u32>,
    index: Option<(IdMap<Vec<u32>>, Vec<u32>)>,
}

const INDEX_THRESHOLD: usize = 8;

impl StateSet {
    pub(crate) fn new(mut all: Vec<u32>, states: &[State]) -> StateSet {
        crate::work::tick(all.len());
        all.sort_unstable();
        all.dedup();
        let index = (all.len() > INDEX_THRESHOLD).then(|| {
            let mut keyed: IdMap<Vec<u32>> = IdMap::default();
            let mut unkeyed = Vec::new();
            for &s in &all {
                match states[s as usize].key {
                    0 => unkeyed.push(s),
                    k => keyed.entry(k).or_default().push(s),
                }
            }
            (keyed, unkeyed)
        });
        StateSet { all, index }
    }

    /// Gives `run` the sorted runs of states that an element with `keys`
    /// may pass, looking up only the keys for which `wanted` holds (those it
    /// rejects must have no state here).
    #[inline]
    pub(crate) fn candidates<'s>(&'s self, keys: &[u64], wanted: impl Fn(u64) -> bool, mut run: impl FnMut(&'s [u32])) {
        match &self.index {
            None => run(&self.all),
            Some((keyed, unkeyed)) => {
                run(unkeyed);
                crate::work::tick(keys.len());
                for &k in keys {
                    if wanted(k)
                        && let Some(v) = keyed.get(&k)
                    {
                        run(v);
                    }
                }
            }
        }
    }

    /// `self ∪ more` (a new set unless `more` adds nothing).
    pub(crate) fn union(this: &Option<Arc<StateSet>>, more: &[u32], states: &[State]) -> Option<Arc<StateSet>> {
        match this {
            None if more.is_empty() => None,
            None => Some(Arc::new(StateSet::new(more.to_vec(), states))),
            Some(set) => {
                crate::work::tick(more.len());
                if more.iter().all(|s| set.all.binary_search(s).is_ok()) {
                    return Some(Arc::clone(set));
                }
                let mut all = set.all.clone();
                all.extend_from_slice(more);
                Some(Arc::new(StateSet::new(all, states)))
            }
        }
    }
}

struct Compiler<'n> {
    namespaces: &'n Namespaces,
    program: Program,
}

impl Program {
    /// Compiles selector lists with the default [`Namespaces`]; list `i`
    /// reports [`RuleId(i)`](RuleId).
    ///
    /// # Errors
    /// The first [`SelectorError`] of any list.
    ///
    /// # Example
    /// ```
    /// use htrewrite_selectors::Program;
    /// assert!(Program::new(["p > a[href^='https:' i]", "svg|*"]).is_ok());
    /// assert_eq!(Program::new(["p", "a:hover"]).unwrap_err().to_string(), "unsupported pseudo-class :hover at 1");
    /// ```
    pub fn new<I, S>(selectors: I) -> Result<Program, SelectorError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        Program::with_namespaces(selectors, &Namespaces::default())
    }

    /// Compiles selector lists with the given [`Namespaces`].
    ///
    /// # Errors
    /// The first [`SelectorError`] of any list, including undeclared prefixes.
    ///
    /// # Example
    /// ```
    /// use htrewrite_selectors::{Namespaces, Program};
    /// let e = Program::with_namespaces(["x|a"], &Namespaces::default()).unwrap_err();
    /// assert_eq!(e.to_string(), "undeclared namespace prefix x at 0");
    /// ```
    pub fn with_namespaces<I, S>(selectors: I, namespaces: &Namespaces) -> Result<Program, SelectorError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let lists: Vec<SelectorList> =
            selectors.into_iter().map(|s| SelectorList::parse(s.as_ref())).collect::<Result<_, _>>()?;
        Program::from_lists(&lists, namespaces)
    }

    /// Compiles parsed selector lists.
    ///
    /// # Errors
    /// Undeclared namespace prefixes.
    ///
    /// # Example
    /// ```
    /// use htrewrite_selectors::{Namespaces, Program, SelectorList};
    /// let list = SelectorList::parse("ul li")?;
    /// assert_eq!(Program::from_lists(&[list], &Namespaces::default())?.len(), 1);
    /// # Ok::<(), htrewrite_selectors::SelectorError>(())
    /// ```
    pub fn from_lists(lists: &[SelectorList], namespaces: &Namespaces) -> Result<Program, SelectorError> {
        let mut c = Compiler {
            namespaces,
            program: Program {
                states: Vec::new(),
                rules: Vec::new(),
                start: Arc::default(),
                start_filter: KeyFilter::default(),
                start_unkeyed: false,
                of_lists: Vec::new(),
                public_len: lists.len(),
                needs_attribute_keys: false,
                value_key_names: KeyFilter::default(),
                by_tag: None,
                answered_known: [0; KNOWN_WORDS],
                known_answer: Box::default(),
                ruled_known: [0; KNOWN_WORDS],
                needs_type_counts: false,
                needs_child_counts: false,
                flat: false,
                sparse_records: false,
                unlisted_answered: false,
                attribute_readers: None,
                attribute_value_readers: None,
            },
        };
        for (i, list) in lists.iter().enumerate() {
            for complex in &list.selectors {
                c.rule(complex, Some(RuleId(i as u32)))?;
            }
        }
        let mut p = c.program;
        let firsts: Vec<u32> = {
            let mut v = Vec::new();
            let mut prev_rule = u32::MAX;
            for (i, s) in p.states.iter().enumerate() {
                if s.rule != prev_rule {
                    v.push(i as u32);
                    prev_rule = s.rule;
                }
            }
            v
        };
        p.needs_attribute_keys = p.states.iter().any(|s| s.key_kind != 0 && s.key_kind != KEY_TAG);
        let value_names: Vec<u64> = p
            .states
            .iter()
            .filter(|s| s.key_kind == KEY_ATTR_VALUE)
            .filter_map(|s| value_keyed(&s.compound))
            .map(|(a, _)| key(KEY_ATTR, &a.lower))
            .collect();
        p.value_key_names = KeyFilter::new(value_names.iter().copied());
        p.sparse_records = !p.needs_child_counts
            && !p.needs_type_counts
            && p.of_lists.is_empty()
            && !p
                .states
                .iter()
                .any(|s| matches!(s.next, Some(Combinator::NextSibling | Combinator::SubsequentSibling)));
        p.flat = p.sparse_records && p.states.iter().all(|s| s.next.is_none());
        p.start_unkeyed = firsts.iter().any(|&s| p.states[s as usize].key == 0);
        if p.sparse_records && !p.needs_attribute_keys && !p.start_unkeyed {
            let mut by_tag: IdMap<TagStart> = IdMap::default();
            for &s in &firsts {
                let entry = by_tag
                    .entry(p.states[s as usize].key)
                    .or_insert_with(|| TagStart { states: Vec::new(), pure: None });
                entry.states.push(s);
            }
            for t in by_tag.values_mut() {
                t.pure = PureStart::new(&t.states, &p);
            }
            (p.answered_known, p.ruled_known, p.known_answer) = known_answers(&by_tag);
            p.unlisted_answered = by_tag.keys().all(|&key| {
                known_of_key(key).any(|i| KnownName::from_index(i).is_some_and(|k| k.namespace() == Namespace::Html))
            });
            p.by_tag = Some(by_tag);
        }
        p.attribute_readers = attribute_readers(&p, false);
        p.attribute_value_readers = attribute_readers(&p, true);
        p.start_filter = KeyFilter::new(firsts.iter().map(|&s| p.states[s as usize].key).filter(|&k| k != 0));
        p.start = Arc::new(StateSet::new(firsts, &p.states));
        Ok(p)
    }

    /// Whether an element with `keys` may pass some start state: false
    /// only when it has none of their keys and every start state has one.
    #[inline(always)]
    pub(crate) fn may_start(&self, keys: &[u64]) -> bool {
        self.start_unkeyed
            || match keys {
                // The tag's key alone (no selector reads attributes): no loop.
                [k] => self.start_filter.may_contain(*k),
                _ => keys.iter().any(|&k| self.start_filter.may_contain(k)),
            }
    }

    /// Whether matching may read the attributes (ids and classes included)
    /// of an element named `name` (ASCII-lowercase; for SVG elements the
    /// lowercase of the adjusted name, `foreignobject`): `false` when no
    /// compound that an element of this name may pass tests attributes.
    /// For an element named otherwise, the matcher gives the same matches
    /// with its attributes as without them, so the shadow need not decode
    /// them for the matcher (`htrewrite_shadow::EventSink::wants_start_tag_attributes`).
    ///
    /// A compound with a type selector that tests attributes (in itself or
    /// in a `:not()`, `:is()`, `:where()` or `of S` list inside it) reads
    /// the attributes of elements with that name; one without a type
    /// selector (`.x`, `*[href]`, `:not(a[href])`), of all elements; the
    /// compounds of `:nth-child(… of S)` lists are tested at every sibling,
    /// by their own type selectors.
    ///
    /// # Example
    /// ```
    /// use htrewrite_selectors::Program;
    /// let p = Program::new(["a[href]", "ul > li", "link:not([rel])"])?;
    /// assert!(p.reads_attributes_of("a") && p.reads_attributes_of("link"));
    /// assert!(!p.reads_attributes_of("li") && !p.reads_attributes_of("div"));
    /// assert!(Program::new(["p", ".x"])?.reads_attributes_of("div"));
    /// # Ok::<(), htrewrite_selectors::SelectorError>(())
    /// ```
    ///
    /// # Complexity
    /// O(log n) name comparisons, n the number of names of compounds that test attributes.
    #[inline]
    pub fn reads_attributes_of(&self, name: &str) -> bool {
        is_reader(&self.attribute_readers, name)
    }

    /// Whether matching may read the attribute *values* of an element named
    /// `name` (as [`Program::reads_attributes_of`] names it): `false` when
    /// no compound that an element of this name may pass tests an id, a
    /// class or an attribute's value (`[href]` tests only that the
    /// attribute is there). For an element named otherwise the matcher
    /// gives the same matches with its attributes' values emptied, so the
    /// shadow need not decode them for the matcher
    /// (`htrewrite_shadow::EventSink::wants_start_tag_attribute_values`).
    ///
    /// # Example
    /// ```
    /// use htrewrite_selectors::Program;
    /// let p = Program::new(["a[href]", "link[rel=icon]", "div.x", "p:not([title^=t])"])?;
    /// assert!(p.reads_attributes_of("a") && !p.reads_attribute_values_of("a"));
    /// assert!(p.reads_attribute_values_of("link") && p.reads_attribute_values_of("div"));
    /// assert!(p.reads_attribute_values_of("p") && !p.reads_attribute_values_of("span"));
    /// assert!(Program::new(["a[href]", "#x"])?.reads_attribute_values_of("a"));
    /// # Ok::<(), htrewrite_selectors::SelectorError>(())
    /// ```
    ///
    /// # Complexity
    /// O(log n) name comparisons, n the number of names of compounds that test values.
    #[inline]
    pub fn reads_attribute_values_of(&self, name: &str) -> bool {
        is_reader(&self.attribute_value_readers, name)
    }

    /// The local names (ASCII-lowercase) that an element matched by selector
    /// list `rule` can have: `Some` when every selector of the list has a
    /// type selector in its subject compound (`head`, `ul > li`,
    /// `body.x, html`), `None` when some subject may be any element (`.x`,
    /// `*`, `:is(a, b)`), or when `rule` is not a list of this program.
    ///
    /// A caller that knows an element of such a name can no longer be
    /// inserted (the Standard creates `head` once) knows the list can match
    /// no element any more.
    ///
    /// # Example
    /// ```
    /// use htrewrite_selectors::{Program, RuleId};
    /// let p = Program::new(["head", "html > body.x, head", "div.x", ".y", "*|head"])?;
    /// assert_eq!(p.subject_names(RuleId(0)), Some(vec!["head"]));
    /// assert_eq!(p.subject_names(RuleId(1)), Some(vec!["body", "head"]));
    /// assert_eq!(p.subject_names(RuleId(2)), Some(vec!["div"]));
    /// assert_eq!(p.subject_names(RuleId(3)), None);
    /// assert_eq!(p.subject_names(RuleId(4)), Some(vec!["head"]));
    /// assert_eq!(p.subject_names(RuleId(9)), None);
    /// # Ok::<(), htrewrite_selectors::SelectorError>(())
    /// ```
    ///
    /// # Complexity
    /// O(number of compounds of the program).
    pub fn subject_names(&self, rule: RuleId) -> Option<Vec<&str>> {
        if rule.0 as usize >= self.public_len {
            return None;
        }
        let mut names: Vec<&str> = Vec::new();
        for s in &self.states {
            if s.next.is_some() || self.rules[s.rule as usize].public != Some(rule) {
                continue;
            }
            names.push(s.compound.name.as_ref()?.0.as_str());
        }
        names.sort_unstable();
        names.dedup();
        Some(names)
    }

    /// The number of selector lists compiled ([`RuleId`]s are `0..len`).
    ///
    /// # Example
    /// ```
    /// assert_eq!(htrewrite_selectors::Program::new(["a", "b"])?.len(), 2);
    /// # Ok::<(), htrewrite_selectors::SelectorError>(())
    /// ```
    pub fn len(&self) -> usize {
        self.public_len
    }

    /// Whether no selector list was compiled.
    ///
    /// # Example
    /// ```
    /// assert!(htrewrite_selectors::Program::new(Vec::<&str>::new())?.is_empty());
    /// # Ok::<(), htrewrite_selectors::SelectorError>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.public_len == 0
    }
}

/// The key of a compound: (hash, kind), (0, 0) when it has none: its id,
/// else a class, else an attribute in no namespace with a value, else its
/// tag name, else the name of an attribute in no namespace. Every element that matches the compound has the key
/// among its own (the matcher computes them the same way, ASCII-lowercased,
/// so a key also stands for the case-insensitive comparisons).
fn compound_key(c: &Compound) -> (u64, u64) {
    for t in &c.tests {
        if let Test::Id(v) = t {
            return (key(KEY_ID, v), KEY_ID);
        }
    }
    for t in &c.tests {
        if let Test::Class(v) = t {
            return (key(KEY_CLASS, v), KEY_CLASS);
        }
    }
    if let Some((a, value)) = value_keyed(c) {
        return (attribute_value_key(&a.lower, value), KEY_ATTR_VALUE);
    }
    if let Some((lower, _)) = &c.name {
        return (key(KEY_TAG, lower), KEY_TAG);
    }
    for t in &c.tests {
        // `[*|name]` matches attributes in any namespace, and the matcher
        // keys only those in no namespace: it gives no key.
        if let Test::Attribute(a) = t
            && !a.any_namespace
        {
            return (key(KEY_ATTR, &a.lower), KEY_ATTR);
        }
    }
    (0, 0)
}

/// A few element names (ASCII-lowercase), asked about once per start tag
/// with attributes ([`Program::reads_attributes_of`]): a 64-bit filter of
/// the names' lengths and first bytes answers most names that are not in
/// the set without comparing strings (the shadow asks for every start tag
/// with attributes; a
/// binary search with its string comparisons cost about 27 instructions a
/// tag with one name in the set).
#[derive(Debug, Clone)]
pub(crate) struct NameSet {
    /// Sorted, without duplicates.
    names: Vec<String>,
    /// Bit [`NameSet::bit`] of each name set.
    filter: u64,
}

impl NameSet {
    pub(crate) fn new(mut names: Vec<String>) -> NameSet {
        names.sort_unstable();
        names.dedup();
        let filter = names.iter().fold(0, |f, n| f | NameSet::bit(n));
        NameSet { names, filter }
    }

    /// The filter's bit for `name`: from its length and first byte.
    #[inline]
    fn bit(name: &str) -> u64 {
        let first = name.as_bytes().first().copied().unwrap_or(0) as usize;
        1 << ((first ^ (name.len() << 3)) & 63)
    }

    #[inline]
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.filter & NameSet::bit(name) != 0 && self.names.binary_search_by(|n| n.as_str().cmp(name)).is_ok()
    }
}

/// `Program::attribute_readers`: the names of the compounds that test
/// attributes, `None` when one of them has no type selector.
fn attribute_readers(p: &Program, values: bool) -> Option<NameSet> {
    let compounds = p.states.iter().map(|s| &s.compound).chain(p.of_lists.iter().flat_map(|l| &l.compounds));
    let mut names = Vec::new();
    for c in compounds {
        if tests_attributes(&c.tests, p, values) {
            names.push(c.name.as_ref()?.0.clone());
        }
    }
    Some(NameSet::new(names))
}

/// Whether `name` is one of `readers` (`None`: every name is).
#[inline]
fn is_reader(readers: &Option<NameSet>, name: &str) -> bool {
    match readers {
        None => true,
        Some(names) => names.contains(name),
    }
}

/// Whether `tests` read the attributes (with `values`, the attribute
/// values) of the element they are tested at.
fn tests_attributes(tests: &[Test], p: &Program, values: bool) -> bool {
    let inner = |l: &InnerList| l.compounds.iter().any(|c| tests_attributes(&c.tests, p, values));
    tests.iter().any(|t| match t {
        Test::Id(_) | Test::Class(_) => true,
        Test::Attribute(a) => !values || a.operation.is_some(),
        Test::Not(l) | Test::Is(l) => inner(l),
        Test::NthChild(_, Some(j)) => inner(&p.of_lists[*j as usize]),
        Test::Root | Test::NthChild(_, None) | Test::NthOfType(_) => false,
    })
}

/// The first `[name=value]` test of a compound that its element must pass
/// with an attribute in no namespace (not `[*|name=value]`), and the value.
fn value_keyed(c: &Compound) -> Option<(&AttributeTest, &str)> {
    c.tests.iter().find_map(|t| match t {
        Test::Attribute(a) if !a.any_namespace => match &a.operation {
            Some((AttributeOperator::Equals, v)) => Some((a, v.as_str())),
            _ => None,
        },
        _ => None,
    })
}

impl Compiler<'_> {
    /// Adds a rule for `complex`; returns its index.
    fn rule(&mut self, complex: &ComplexSelector, public: Option<RuleId>) -> Result<u32, SelectorError> {
        // Inner rules first: compile every compound before numbering this rule.
        let mut compounds = Vec::with_capacity(complex.compounds.len());
        for c in &complex.compounds {
            compounds.push(self.compound(c)?);
        }
        let rule = self.program.rules.len() as u32;
        self.program.rules.push(Rule { public });
        let n = compounds.len();
        for (i, compound) in compounds.into_iter().enumerate() {
            let next = (i + 1 < n).then(|| complex.combinators[i]);
            let (key, key_kind) = compound_key(&compound);
            self.program.states.push(State { rule, compound, next, key, key_kind });
        }
        Ok(rule)
    }

    fn inner_list(&mut self, list: &SelectorList) -> Result<InnerList, SelectorError> {
        let mut inner = InnerList::default();
        for complex in &list.selectors {
            if complex.compounds.len() == 1 {
                inner.compounds.push(self.compound(&complex.compounds[0])?);
            } else {
                inner.rules.push(self.rule(complex, None)?);
            }
        }
        Ok(inner)
    }

    fn compound(&mut self, c: &CompoundSelector) -> Result<Compound, SelectorError> {
        let (ns, name) = match &c.type_selector {
            Some(t) => (
                self.namespaces.resolve(&t.namespace, c.position)?,
                t.name.as_ref().map(|n| (n.to_ascii_lowercase(), n.clone())),
            ),
            None => (self.namespaces.resolve(&NamespacePrefix::Default, c.position)?, None),
        };
        let mut tests = Vec::with_capacity(c.simple.len());
        for s in &c.simple {
            tests.push(match s {
                SimpleSelector::Id(v) => Test::Id(v.clone()),
                SimpleSelector::Class(v) => Test::Class(v.clone()),
                SimpleSelector::Attribute(a) => {
                    let any_namespace = match a.namespace {
                        NamespacePrefix::Default | NamespacePrefix::None => false,
                        NamespacePrefix::Any => true,
                        NamespacePrefix::Named(_) => {
                            return Err(SelectorError::new(ErrorKind::AttributeNamespace, c.position));
                        }
                    };
                    let lower = a.name.to_ascii_lowercase();
                    Test::Attribute(AttributeTest {
                        any_namespace,
                        listed: CASE_INSENSITIVE_ATTRIBUTES.contains(&lower.as_str()),
                        lower,
                        exact: a.name.clone(),
                        operation: a.operation.clone(),
                        case: a.case,
                    })
                }
                SimpleSelector::PseudoClass(p) => match p {
                    PseudoClass::Root => Test::Root,
                    PseudoClass::FirstChild => {
                        self.program.needs_child_counts = true;
                        Test::NthChild(Nth { a: 0, b: 1 }, None)
                    }
                    PseudoClass::FirstOfType => {
                        self.program.needs_type_counts = true;
                        Test::NthOfType(Nth { a: 0, b: 1 })
                    }
                    PseudoClass::NthOfType(n) => {
                        self.program.needs_type_counts = true;
                        Test::NthOfType(*n)
                    }
                    PseudoClass::NthChild(n, None) => {
                        self.program.needs_child_counts = true;
                        Test::NthChild(*n, None)
                    }
                    PseudoClass::NthChild(n, Some(list)) => {
                        self.program.needs_child_counts = true;
                        let inner = self.inner_list(list)?;
                        self.program.of_lists.push(inner);
                        Test::NthChild(*n, Some(self.program.of_lists.len() as u32 - 1))
                    }
                    PseudoClass::Not(list) => Test::Not(self.inner_list(list)?),
                    PseudoClass::Is(list) | PseudoClass::Where(list) => Test::Is(self.inner_list(list)?),
                },
            });
        }
        let name_key = name.as_ref().map_or(0, |(lower, _)| key(KEY_TAG, lower));
        Ok(Compound { ns, name, name_key, tests })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The compile-time table of known names holds what the functions give
    /// at run time for each name.
    #[test]
    fn known_tags_are_the_functions_of_their_names() {
        let table = known_tags();
        for k in KnownName::all() {
            let (ns, name) = (k.namespace(), k.name());
            let t = &table[k.index()];
            assert_eq!(t.key, key(KEY_TAG, name), "{name}");
            assert_eq!((t.formatting, t.special), (is_formatting(ns, name), is_special(ns, name)), "{ns:?} {name}");
        }
        assert!(table[KnownName::of(Namespace::Html, "b").expect("known").index()].formatting);
        assert!(table[KnownName::of(Namespace::Svg, "foreignObject").expect("known").index()].special);
    }

    /// The compile-time tables of the known-name answers: the keys sorted
    /// with every index once, each key's names found; `head` never
    /// answerable; the formatting elements' set.
    #[test]
    fn known_answer_tables_are_their_definitions() {
        let table = known_tags();
        assert!(KEYS_SORTED.windows(2).all(|w| w[0].0 <= w[1].0));
        let mut seen: Vec<usize> = KEYS_SORTED.iter().map(|&(_, i)| usize::from(i)).collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..KnownName::COUNT).collect::<Vec<_>>());
        for (i, t) in table.iter().enumerate() {
            let mut same: Vec<usize> = known_of_key(t.key).collect();
            same.sort_unstable();
            let want: Vec<usize> = (0..KnownName::COUNT).filter(|&j| table[j].key == t.key).collect();
            assert_eq!(same, want, "{}", KnownName::from_index(i).unwrap().name());
            let k = KnownName::from_index(i).unwrap();
            let head = k == KnownName::of(Namespace::Html, "head").unwrap();
            let bit = |set: &[u64; KNOWN_WORDS]| set[i / 64] >> (i % 64) & 1 != 0;
            assert_eq!(
                (bit(&ANSWERABLE), bit(&FORMATTING_KNOWN)),
                (!head, t.formatting),
                "{:?} {}",
                k.namespace(),
                k.name()
            );
        }
        assert_eq!(known_of_key(key(KEY_TAG, "my-element")).count(), 0);
    }
}
