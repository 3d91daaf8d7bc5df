//! Matching: the compiled states run over the elements as the shadow opens them.
//!
//! Each open element keeps a [`Record`]: the states alive for its
//! descendants and for its children, and, as a parent, the sibling cursor of
//! its children so far (the states its last element child left for `+`, the
//! union of those its children left for `~`, and the child, type and `of S`
//! counters). Nothing else of the document is kept.

use std::sync::Arc;

use htrewrite_shadow::{
    AttrNamespace, Event, KnownName, Namespace, NodeId, Position, QuirksMode, ShadowAttr, is_formatting, is_special,
};

use crate::ast::{AttributeOperator, CaseFlag, Combinator};
use crate::compile::{
    AttributeTest, Compound, FORMATTING_KNOWN, IdMap, InnerList, KEY_ATTR, KEY_CLASS, KEY_ID, KEY_TAG, KNOWN_WORDS,
    NO_RULE, NsTest, Program, RuleId, State, StateSet, Test, attribute_value_key, key, known_in, known_tags,
};
use crate::work::tick;

/// What the matcher needs to know about an element when it is opened: the
/// fields of the shadow's [`Event::ElementOpened`].
///
/// # Example
/// ```
/// use htrewrite_selectors::ElementInfo;
/// use htrewrite_shadow::{KnownName, Namespace, NodeId, Position, ShadowAttr};
/// let attrs = [ShadowAttr::new("class", "a b")];
/// let el = ElementInfo {
///     id: NodeId(1),
///     name: "p",
///     ns: Namespace::Html,
///     known: KnownName::of(Namespace::Html, "p"),
///     attrs: &attrs,
///     position: Position::Append { parent: NodeId::DOCUMENT },
/// };
/// assert_eq!(el.name, "p");
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ElementInfo<'a> {
    /// The shadow's id for the element.
    pub id: NodeId,
    /// The local name, as the shadow reports it (lowercase for HTML,
    /// adjusted case for SVG and MathML: `foreignObject`).
    pub name: &'a str,
    /// The namespace.
    pub ns: Namespace,
    /// `KnownName::of(ns, name)` (the shadow's [`Event::ElementOpened`]
    /// gives it): the matcher reads what it needs of a known name from a
    /// table instead of hashing and comparing the name. `None` gives the
    /// same matches, computed from the name; another name's `KnownName`
    /// gives wrong ones.
    pub known: Option<KnownName>,
    /// The attributes, decoded, duplicates dropped, names adjusted.
    pub attrs: &'a [ShadowAttr],
    /// Where the element is inserted.
    pub position: Position,
}

impl ElementInfo<'_> {
    /// [`key`]`(KEY_TAG, name)`, from the known names' table when known.
    #[inline]
    fn tag_key(&self) -> u64 {
        let k = match self.known {
            Some(k) => known_tags()[k.index()].key,
            None => key(KEY_TAG, self.name),
        };
        debug_assert!(self.known.is_none() || self.known == KnownName::of(self.ns, self.name), "{}", self.name);
        debug_assert_eq!(k, key(KEY_TAG, self.name), "{:?} for {}", self.known, self.name);
        k
    }

    /// [`is_formatting`], from the known names' table when known.
    #[inline]
    fn is_formatting(&self) -> bool {
        match self.known {
            Some(k) => known_tags()[k.index()].formatting,
            None => is_formatting(self.ns, self.name),
        }
    }

    /// [`is_special`], from the known names' table: the event's
    /// [`KnownName`], or (for an event built without it) the name looked up.
    /// Every special name is known ([`KnownName`]), so an element without a
    /// known name is not special: a custom element's name is looked up once,
    /// not compared with the 83 special HTML names one by one (ten
    /// selectors 35.467 → 35.104 instructions a byte, callgrind, the three
    /// lol-html bench pages).
    #[inline]
    fn is_special(&self) -> bool {
        let known = self.known.or_else(|| KnownName::of(self.ns, self.name));
        debug_assert!(known.is_some() || !is_special(self.ns, self.name), "{}", self.name);
        known.is_some_and(|k| known_tags()[k.index()].special)
    }
}

#[cfg(test)]
thread_local! {
    /// Elements [`Matcher::element_opened`] answered by its known-name
    /// tests without the full path, in line (no rule) and out of line (a
    /// rule, or a formatting element followed) (unit tests count them).
    pub(crate) static PREFILTERED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    pub(crate) static RULED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    /// Elements of names outside the table of known names that
    /// [`Matcher::element_opened`] answered without the full path
    /// ([`Program::unlisted_answered`]).
    pub(crate) static UNLISTED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Per-document matching state, driven by the shadow's events.
///
/// Each element is matched **when it is inserted**, against its ancestors
/// and earlier siblings at that moment — what a browser's DOM holds when
/// the start tag has been processed. Later moves by the adoption agency
/// algorithm or foster parenting do not re-match elements already matched,
/// but what is inserted after a move is matched against the tree after it
/// (see the crate docs, *Tree shape*).
///
/// # Example
/// ```
/// use std::sync::Arc;
/// use htrewrite_selectors::{Match, Matcher, Program, RuleId};
/// use htrewrite_shadow::{Event, Shadow, ShadowOptions, ShadowSink};
/// use htrewrite_tokenizer::Tokenizer;
/// let program = Arc::new(Program::new(["ul > li + li"])?);
/// let mut matcher = Matcher::new(program);
/// let mut matched = Vec::new();
/// let events = |e: Event<'_>| {
///     if let (Event::ElementOpened { name, .. }, [Match { rule: RuleId(0), .. }]) = (&e, matcher.event(&e)) {
///         matched.push(name.to_string());
///     }
/// };
/// let mut sink = ShadowSink::new(Shadow::new(ShadowOptions::default()), events);
/// let mut tokenizer = Tokenizer::new();
/// tokenizer.feed(b"<ul><li>1<li>2<li>3</ul>", &mut sink);
/// tokenizer.finish(&mut sink);
/// sink.finish();
/// drop(sink);
/// assert_eq!(matched, ["li", "li"]);
/// # Ok::<(), htrewrite_selectors::SelectorError>(())
/// ```
///
/// # Complexity
/// Per element: O(states tested + keys of the element), where the states
/// tested are those left alive by the parent, the ancestors (descendant
/// combinator), the previous siblings and the start states whose key the
/// element has. Memory: O(depth × live states) for the open elements, plus
/// per open parent the number of distinct element names among its children
/// when `:nth-of-type`/`:first-of-type` are used.
#[derive(Debug)]
pub struct Matcher {
    program: Arc<Program>,
    /// Of the program's [`Program::answered_known`], the names answered
    /// with no rule and nothing else to do (tested in line), and the others
    /// (tested first in [`Matcher::element_opened_rest`]: a rule, or a
    /// formatting element to follow in a program that is not flat).
    inline_known: [u64; KNOWN_WORDS],
    rest_known: [u64; KNOWN_WORDS],
    /// The program's [`Program::flat`] (read for every element).
    flat: bool,
    records: Records,
    /// The record of an element that has none (never changed).
    empty: Record,
    pending: IdMap<Pending>,
    quirks: Option<bool>,
    /// The `head` element: its record outlives its closing, because the
    /// Standard pushes it back on the stack for `<style>`, `<script>`,
    /// `<title>`, … after `</head>` ("after head" insertion mode).
    head: Option<NodeId>,
    /// Open formatting elements (never kept by a flat program): while there
    /// is one, a special element opened may become the adoption agency's
    /// furthest block.
    formatting_open: FormattingOpen,
    /// Open elements whose state a move may change ([`Movable`]).
    movables: Movables,
    /// A table something was just foster-parented before
    /// ([`Matcher::refoster`]).
    refoster: Option<NodeId>,
    stamp: u32,
    rule_marks: Vec<u32>,
    public_marks: Vec<u32>,
    candidates: Vec<u32>,
    keys: Vec<u64>,
    out: Vec<RuleId>,
    matches: Vec<Match>,
    out_desc: Vec<u32>,
    out_child: Vec<u32>,
    out_plus: Vec<u32>,
    out_tilde: Vec<u32>,
    /// State sets made lately, shared by the records that leave the same
    /// states (every `ul` of `ul > li`).
    recent: RecentSets,
}

/// The last few state sets [`Matcher::keep`] made, so that elements leaving
/// the same states share one set instead of allocating theirs (issue 16:
/// no allocation per token after warm-up). Four sets at most, replaced in
/// turn: a run of elements of a few kinds alternating hits them.
#[derive(Debug, Default)]
struct RecentSets {
    sets: [Option<Arc<StateSet>>; 4],
    next: usize,
}

impl RecentSets {
    /// The set of `states` (sorted, each once): a recent one equal to it, or a new one.
    fn get(&mut self, states: &[u32], all: &[State]) -> Arc<StateSet> {
        tick(states.len());
        if let Some(set) = self.sets.iter().flatten().find(|s| s.all == states) {
            return Arc::clone(set);
        }
        let set = Arc::new(StateSet::new(states.to_vec(), all));
        self.sets[self.next] = Some(Arc::clone(&set));
        self.next = (self.next + 1) % self.sets.len();
        set
    }
}

/// An element created detached (adoption agency clones): matched when it is
/// placed in the document, not when placed in another detached element.
#[derive(Debug)]
struct Pending {
    name: String,
    ns: Namespace,
    attrs: Vec<ShadowAttr>,
    /// Where it was placed, inside a detached element.
    position: Option<Position>,
    /// That detached element.
    deferred_in: Option<NodeId>,
    /// Detached elements placed in this one, in order.
    deferred: Vec<NodeId>,
    /// Elements already in the document moved into this one (the furthest
    /// block, into the last clone), computed again when it is placed.
    moved_in: Vec<(NodeId, Position)>,
    /// The children it took from another element (`ChildrenMoved`), with
    /// that element's sibling cursor.
    took_children: Option<Siblings>,
}

/// An open element the [adoption agency algorithm](https://html.spec.whatwg.org/multipage/parsing.html#adoption-agency-algorithm)
/// may move, or move an ancestor of: a special element opened while a
/// formatting element is open (a possible *furthest block*), and every
/// element opened under one. When the algorithm moves the furthest block
/// and gives its children to a clone of the formatting element, the states
/// these elements leave for what is inserted later are computed again
/// against the tree after the move ([`Matcher::re_place`]); that needs what
/// matching needs: the element's name and attributes, and the sibling
/// cursor it was inserted at. Their own matches stand (they ran when the
/// element was inserted).
#[derive(Debug)]
struct Movable {
    /// Why it is kept.
    kind: MoveKind,
    /// The parent in the tree, as moves leave it.
    parent: NodeId,
    /// The previous and next movable elements in stack order.
    prev: Option<NodeId>,
    next: Option<NodeId>,
    name: String,
    ns: Namespace,
    /// Its attributes, if matching it reads any ([`Program::reads_attributes_of`]).
    attrs: Vec<ShadowAttr>,
    /// The parent's sibling cursor before this element, for programs that
    /// read cursors (no sparse records).
    cursor_before: Option<Box<Siblings>>,
}

/// The open formatting elements: a short list (most pages have a few open
/// at once, closed last-opened first), or a set past
/// [`FormattingOpen::SHORT`] (so that closing is O(1) whatever the input),
/// with a count per `id % 256` so that closing any other element (most
/// closes) is one array read, as in [`Records`].
#[derive(Debug)]
struct FormattingOpen {
    short: Vec<u64>,
    long: Option<IdMap<()>>,
    buckets: Box<[u32; 256]>,
}

impl Default for FormattingOpen {
    fn default() -> FormattingOpen {
        FormattingOpen { short: Vec::new(), long: None, buckets: Box::new([0; 256]) }
    }
}

impl FormattingOpen {
    /// The most ids kept in the short list.
    const SHORT: usize = 32;

    #[inline]
    fn is_empty(&self) -> bool {
        self.short.is_empty() && self.long.is_none()
    }

    fn opened(&mut self, id: NodeId) {
        self.buckets[(id.0 & 255) as usize] += 1;
        match &mut self.long {
            Some(set) => {
                set.insert(id.0, ());
            }
            None if self.short.len() < FormattingOpen::SHORT => self.short.push(id.0),
            None => {
                let mut set: IdMap<()> = self.short.drain(..).map(|i| (i, ())).collect();
                set.insert(id.0, ());
                self.long = Some(set);
            }
        }
    }

    /// Whether `id` may be one of the open formatting elements (`false`:
    /// it is not; what [`FormattingOpen::closed`] tests first).
    #[inline(always)]
    fn may_hold(&self, id: NodeId) -> bool {
        self.buckets[(id.0 & 255) as usize] != 0
    }

    #[inline]
    fn closed(&mut self, id: NodeId) {
        let b = (id.0 & 255) as usize;
        if self.buckets[b] == 0 {
            return;
        }
        let found = match &mut self.long {
            Some(set) => {
                let found = set.remove(&id.0).is_some();
                if set.is_empty() {
                    self.long = None;
                }
                found
            }
            None => match self.short.iter().rposition(|&i| i == id.0) {
                Some(i) => {
                    self.short.swap_remove(i);
                    true
                }
                None => false,
            },
        };
        if found {
            self.buckets[b] -= 1;
        }
    }

    fn held_bytes(&self) -> usize {
        self.short.capacity() * 8 + self.long.as_ref().map_or(0, |s| s.capacity() * 9)
    }
}

/// Why a [`Movable`] is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MoveKind {
    /// The adoption agency may move it or an ancestor: a special element
    /// opened under an open formatting element, and everything under one.
    Adoption,
    /// Foster parenting may insert an element before it or before its
    /// `table`: a `table`, and its open row groups and rows (what is open
    /// above a table while content is foster-parented before it), in
    /// programs that read sibling cursors (no sparse records).
    Foster,
}

/// The movable elements, linked in stack order (an element of a moved
/// subtree is computed again after its parent).
#[derive(Debug, Default)]
struct Movables {
    map: IdMap<Movable>,
    tail: Option<NodeId>,
    /// The name and attribute buffers of entries gone (at most
    /// [`Movables::SPARE`]), for the next ones: while a formatting element
    /// is open every special element opened is kept, and this keeps that
    /// from allocating per element.
    spare: Vec<(String, Vec<ShadowAttr>)>,
}

impl Movables {
    /// The most buffers kept.
    const SPARE: usize = 16;

    /// Buffers holding a copy of `name` and of `attrs` (kept ones when there are).
    fn copies(&mut self, name: &str, attrs: &[ShadowAttr]) -> (String, Vec<ShadowAttr>) {
        let (mut n, mut a) = self.spare.pop().unwrap_or_default();
        name.clone_into(&mut n);
        // Reuses the kept attributes' strings (`ShadowAttr::clone_from`).
        attrs.clone_into(&mut a);
        (n, a)
    }

    /// Keeps the buffers of `m`, gone, if there is room and they are small.
    fn recycle(&mut self, m: Movable) {
        if self.spare.len() < Movables::SPARE && m.name.capacity() <= 64 && m.attrs.capacity() <= 8 {
            self.spare.push((m.name, m.attrs));
        }
    }

    /// Links `id` (already in the map) after `after`, or last.
    fn link(&mut self, id: NodeId, after: Option<NodeId>) {
        let after = after.filter(|a| self.map.contains_key(&a.0)).or(self.tail);
        let next = after.and_then(|a| self.map[&a.0].next);
        if let Some(a) = after {
            self.map.get_mut(&a.0).expect("linked").next = Some(id);
        }
        match next {
            Some(n) => self.map.get_mut(&n.0).expect("linked").prev = Some(id),
            None => self.tail = Some(id),
        }
        let m = self.map.get_mut(&id.0).expect("inserted");
        m.prev = after;
        m.next = next;
    }

    /// Removes `id`, if kept.
    fn unlink(&mut self, id: NodeId) {
        let Some(m) = self.map.remove(&id.0) else { return };
        if let Some(p) = m.prev {
            self.map.get_mut(&p.0).expect("linked").next = m.next;
        }
        match m.next {
            Some(n) => self.map.get_mut(&n.0).expect("linked").prev = m.prev,
            None => self.tail = m.prev,
        }
        self.recycle(m);
    }
}

/// One element matched by one rule.
///
/// # Example
/// ```
/// use htrewrite_selectors::{Match, RuleId};
/// use htrewrite_shadow::NodeId;
/// let m = Match { element: NodeId(4), rule: RuleId(0) };
/// assert_eq!(m.rule, RuleId(0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Match {
    /// The shadow's id of the element.
    pub element: NodeId,
    /// The rule (selector list) it matches.
    pub rule: RuleId,
}

/// The matching state of one open element (or the Document).
#[derive(Debug, Default)]
struct Record {
    /// The parent at opening, whose record this one keeps alive.
    parent: Option<NodeId>,
    /// Still on the stack of open elements.
    open: bool,
    /// Records of children still kept: a closed element stays while it has
    /// some, because foster parenting can still insert into it (a `table`
    /// whose parent the adoption agency removed from the stack).
    live_children: u32,
    /// States alive for every descendant.
    desc: Option<Arc<StateSet>>,
    /// States alive for the children.
    child: Option<Arc<StateSet>>,
    /// The children seen so far.
    siblings: Siblings,
    /// For `table`: the cursor of foster-parented siblings inserted before it.
    foster: Option<Box<Siblings>>,
}

/// The records by element id, with a count of records per `id % 256`: an
/// element whose bucket is empty has no record, found without hashing —
/// the common case of elements that leave no state.
#[derive(Debug)]
struct Records {
    map: IdMap<Record>,
    buckets: Box<[u32; 256]>,
    /// The number of records with a foster cursor ([`Record::foster`]),
    /// for [`Matcher::held_bytes`].
    fosters: usize,
}

impl Default for Records {
    fn default() -> Records {
        Records { map: IdMap::default(), buckets: Box::new([0; 256]), fosters: 0 }
    }
}

impl Records {
    #[inline]
    fn bucket(id: NodeId) -> usize {
        (id.0 & 255) as usize
    }

    /// The record of `id`: the bucket's count in line (most elements have
    /// none, and it was a call of its own per element opened), the map out
    /// of line.
    #[inline(always)]
    fn get(&self, id: NodeId) -> Option<&Record> {
        if self.buckets[Records::bucket(id)] == 0 { None } else { self.get_in_map(id) }
    }

    /// [`Records::get`]'s look-up.
    #[inline(never)]
    fn get_in_map(&self, id: NodeId) -> Option<&Record> {
        self.map.get(&id.0)
    }

    /// Whether `id` may have a record (`false`: it has none; what
    /// [`Records::get`] tests first).
    #[inline(always)]
    fn may_hold(&self, id: NodeId) -> bool {
        self.buckets[Records::bucket(id)] != 0
    }

    #[inline]
    fn get_mut(&mut self, id: NodeId) -> Option<&mut Record> {
        if self.buckets[Records::bucket(id)] == 0 { None } else { self.map.get_mut(&id.0) }
    }

    fn insert(&mut self, id: NodeId, r: Record) {
        self.fosters += usize::from(r.foster.is_some());
        match self.map.insert(id.0, r) {
            None => self.buckets[Records::bucket(id)] += 1,
            Some(old) => self.fosters -= usize::from(old.foster.is_some()),
        }
    }

    fn remove(&mut self, id: NodeId) -> Option<Record> {
        if self.buckets[Records::bucket(id)] == 0 {
            return None;
        }
        let r = self.map.remove(&id.0);
        if let Some(r) = &r {
            self.buckets[Records::bucket(id)] -= 1;
            self.fosters -= usize::from(r.foster.is_some());
        }
        r
    }

    fn len(&self) -> usize {
        self.map.len()
    }
}

/// A parent's children so far, as far as selectors care.
#[derive(Debug, Default, Clone)]
struct Siblings {
    children: u32,
    last_plus: Option<Arc<StateSet>>,
    tilde: Option<Arc<StateSet>>,
    /// Made on the first count (only selectors with `:nth-of-type` or
    /// `:*-of-type` count types; an empty map still allocates its root).
    types: Option<TypeCounts>,
    of_counts: Vec<u32>,
}

/// The number of children of each type (`key(KEY_TAG + 8 * ns, name)`) in a
/// sibling cursor, for `:nth-of-type`. A persistent map: a table's foster
/// cursor starts as a copy of its parent's cursor (`Matcher::keep`), and
/// that copy must cost O(1), not O(types): copying a plain map made
/// `<x1>…<xN>` followed by N tables quadratic. Updates are O(log types).
type TypeCounts = rpds::HashTrieMapSync<u64, u32, std::hash::BuildHasherDefault<rustc_hash::FxHasher>>;

/// The element being matched.
struct Ctx<'a> {
    name: &'a str,
    /// `key(KEY_TAG, name)`.
    name_key: u64,
    ns: Namespace,
    attrs: &'a [ShadowAttr],
    quirks: bool,
    root: bool,
    child_index: u32,
    type_index: u32,
    of_before: &'a [u32],
    /// The stamp of this element: rules marked with it (in the matcher's
    /// `rule_marks`, passed apart because the loop over the candidates
    /// marks them as it goes) match it.
    stamp: u32,
}

impl Matcher {
    /// A matcher for one document.
    ///
    /// The document starts in quirks mode (a document without DOCTYPE is in
    /// quirks mode); an [`Event::Doctype`] or [`Matcher::set_quirks_mode`]
    /// changes it. In quirks mode `#id` and `.class` match ASCII
    /// case-insensitively, as the Selectors spec requires.
    ///
    /// # Example
    /// ```
    /// let p = std::sync::Arc::new(htrewrite_selectors::Program::new(["a"])?);
    /// let _m = htrewrite_selectors::Matcher::new(p);
    /// # Ok::<(), htrewrite_selectors::SelectorError>(())
    /// ```
    pub fn new(program: Arc<Program>) -> Matcher {
        let mut records = Records::default();
        let of = program.of_lists.len();
        records.insert(NodeId::DOCUMENT, Record { open: true, siblings: Siblings::with_of(of), ..Record::default() });
        // The formatting elements a program that is not flat follows.
        let followed = if program.flat { [0; KNOWN_WORDS] } else { FORMATTING_KNOWN };
        Matcher {
            rule_marks: vec![0; program.rules.len()],
            public_marks: vec![0; program.public_len],
            inline_known: std::array::from_fn(|w| program.answered_known[w] & !program.ruled_known[w] & !followed[w]),
            rest_known: std::array::from_fn(|w| program.answered_known[w] & (program.ruled_known[w] | followed[w])),
            flat: program.flat,
            program,
            records,
            empty: Record::default(),
            pending: IdMap::default(),
            quirks: None,
            head: None,
            formatting_open: FormattingOpen::default(),
            movables: Movables::default(),
            refoster: None,
            stamp: 0,
            candidates: Vec::new(),
            keys: Vec::new(),
            out: Vec::new(),
            matches: Vec::new(),
            out_desc: Vec::new(),
            out_child: Vec::new(),
            out_plus: Vec::new(),
            out_tilde: Vec::new(),
            recent: RecentSets::default(),
        }
    }

    /// Sets the quirks mode explicitly (fragments, or documents whose mode is known).
    ///
    /// # Example
    /// ```
    /// let p = std::sync::Arc::new(htrewrite_selectors::Program::new([".a"])?);
    /// let mut m = htrewrite_selectors::Matcher::new(p);
    /// m.set_quirks_mode(htrewrite_shadow::QuirksMode::NoQuirks);
    /// # Ok::<(), htrewrite_selectors::SelectorError>(())
    /// ```
    pub fn set_quirks_mode(&mut self, mode: QuirksMode) {
        self.quirks = Some(mode == QuirksMode::Quirks);
    }

    /// Feeds one shadow event; returns the elements it places in the
    /// document and the rules each matches, element by element, rules in
    /// [`RuleId`] order, each once.
    ///
    /// An [`Event::ElementOpened`] places its element, unless at
    /// [`Position::Detached`]; such an element (an adoption-agency clone) is
    /// placed by the [`Event::NodeMoved`] that inserts it into the document,
    /// together with the detached elements inserted into it before, in tree
    /// order. Empty for other events.
    ///
    /// # Example
    /// ```
    /// use std::sync::Arc;
    /// use htrewrite_selectors::{Match, Matcher, Program, RuleId};
    /// use htrewrite_shadow::{Event, KnownName, Namespace, NodeId, Origin, Position};
    /// let mut m = Matcher::new(Arc::new(Program::new(["html"])?));
    /// let e = Event::ElementOpened {
    ///     id: NodeId(1), name: "html", ns: Namespace::Html, known: KnownName::of(Namespace::Html, "html"), attrs: &[],
    ///     origin: Origin::Implied, position: Position::Append { parent: NodeId::DOCUMENT },
    ///     self_closing: false,
    /// };
    /// assert_eq!(m.event(&e), [Match { element: NodeId(1), rule: RuleId(0) }]);
    /// # Ok::<(), htrewrite_selectors::SelectorError>(())
    /// ```
    // Inline: called for every event, most of which need no more than this match.
    #[inline]
    pub fn event(&mut self, event: &Event<'_>) -> &[Match] {
        self.matches.clear();
        match *event {
            Event::Doctype { quirks, .. } => self.quirks = Some(quirks == QuirksMode::Quirks),
            Event::ElementOpened { id, name, ns, known, attrs, position, .. } => {
                self.element_opened(&ElementInfo { id, name, ns, known, attrs, position });
                if !self.out.is_empty() {
                    self.matches.extend(self.out.iter().map(|&rule| Match { element: id, rule }));
                }
            }
            Event::ElementClosed { id, .. } => self.element_closed(id),
            Event::NodeMoved { id, to } => self.node_moved(id, to),
            Event::ChildrenMoved { from, to } => self.children_moved(from, to),
            _ => {}
        }
        &self.matches
    }

    fn node_moved(&mut self, id: NodeId, to: Position) {
        let Some(p) = self.pending.get_mut(&id.0) else {
            // An element of the document moved: the adoption agency's
            // furthest block (or its last clone chain's top, already placed).
            if self.movables.map.contains_key(&id.0) {
                match to.parent().and_then(|parent| self.pending.get_mut(&parent.0)) {
                    Some(q) => q.moved_in.push((id, to)),
                    None => self.re_place(id, to),
                }
            }
            return;
        };
        if let Some(before) = p.deferred_in.take()
            && let Some(q) = self.pending.get_mut(&before.0)
        {
            tick(q.deferred.len());
            q.deferred.retain(|&c| c != id);
        }
        if let Some(parent) = to.parent()
            && self.pending.contains_key(&parent.0)
        {
            let p = self.pending.get_mut(&id.0).expect("pending");
            p.position = Some(to);
            p.deferred_in = Some(parent);
            self.pending.get_mut(&parent.0).expect("pending").deferred.push(id);
            return;
        }
        // Placed in the document: match it, then what was placed in it, in
        // tree order; compute again what was moved into it.
        let mut stack = vec![(id, to, false)];
        while let Some((id, at, moved)) = stack.pop() {
            tick(1);
            if moved {
                self.re_place(id, at);
                continue;
            }
            let Some(p) = self.pending.remove(&id.0) else { continue };
            // In stack order, a placed clone comes right after its parent
            // (the furthest block, or the clone it is placed in) or after the
            // table it is foster-parented before (the common ancestor).
            let after = match at {
                Position::InsertBefore { before, .. } => Some(before),
                _ => at.parent(),
            };
            let known = KnownName::of(p.ns, &p.name);
            self.open(&ElementInfo { id, name: &p.name, ns: p.ns, known, attrs: &p.attrs, position: at }, after);
            self.matches.extend(self.out.iter().map(|&rule| Match { element: id, rule }));
            if let Some(cursor) = p.took_children {
                if let Some(r) = self.records.get_mut(id) {
                    r.siblings = cursor;
                }
                self.recompute_after(id);
            }
            for &(c, position) in p.moved_in.iter().rev() {
                stack.push((c, position, true));
            }
            for c in p.deferred.iter().rev() {
                if let Some(position) = self.pending.get(&c.0).and_then(|q| q.position) {
                    stack.push((*c, position, false));
                }
            }
        }
    }

    /// `ChildrenMoved`: the adoption agency gives the furthest block's
    /// children to the new clone of the formatting element (detached until
    /// it is appended to the furthest block). The clone takes the furthest
    /// block's sibling cursor, and the open child becomes the clone's.
    fn children_moved(&mut self, from: NodeId, to: NodeId) {
        let Some(p) = self.pending.get_mut(&to.0) else { return };
        let of = self.program.of_lists.len();
        let cursor = self.records.get_mut(from).map(|r| std::mem::replace(&mut r.siblings, Siblings::with_of(of)));
        p.took_children = Some(cursor.unwrap_or_else(|| Siblings::with_of(of)));
        if let Some(next) = self.movables.map.get(&from.0).and_then(|m| m.next)
            && let Some(m) = self.movables.map.get_mut(&next.0)
            && m.parent == from
        {
            m.parent = to;
        }
    }

    /// Computes again the state a movable element leaves for what is
    /// inserted later, at its place `at` after a move: its record (states
    /// for descendants and children) and its part of the parent's sibling
    /// cursor. Its own children's cursor and kept children stay; its
    /// matches stand.
    fn re_place(&mut self, id: NodeId, at: Position) {
        let Some((parent, before)) = parent_before(at) else { return };
        let Some(mut m) = self.movables.map.remove(&id.0) else { return };
        tick(1);
        let old = self.records.remove(id);
        m.parent = parent;
        if m.cursor_before.is_some() {
            m.cursor_before = Some(Box::new(self.cursor_of(parent, before).clone()));
        }
        let known = KnownName::of(m.ns, &m.name);
        self.evaluate_placed(&ElementInfo { id, name: &m.name, ns: m.ns, known, attrs: &m.attrs, position: at });
        self.out.clear();
        // The old parent lets go of the old record (after the new one holds
        // its parent: the same one, when the place is computed again).
        if let Some(old_parent) = old.as_ref().and_then(|r| r.parent)
            && let Some(r) = self.records.get_mut(old_parent)
        {
            r.live_children -= 1;
            if !r.open && r.live_children == 0 {
                self.release(old_parent);
            }
        }
        if let Some(old) = old
            && let Some(mut r) = self.records.remove(id)
        {
            r.siblings = old.siblings;
            r.live_children = old.live_children;
            r.foster = old.foster;
            r.open = old.open;
            self.records.insert(id, r);
        }
        self.movables.map.insert(id.0, m);
        if let Some(table) = self.refoster.take() {
            self.refoster(table);
        }
    }

    /// Foster parenting inserted an element before `table`, matched and
    /// opened after it: the table now follows it. The table's part of its
    /// parent's sibling cursor (its place in `+`, `~`, the child counts) and
    /// the states it leaves for its descendants are computed again from its
    /// foster cursor (its parent's cursor before it, advanced by what was
    /// fostered), and so are its open row groups and rows. Only tables kept
    /// as [`MoveKind::Foster`] (programs with sibling cursors); the table's
    /// own match stands.
    fn refoster(&mut self, table: NodeId) {
        let Some(parent) = self.movables.map.get(&table.0).map(|m| m.parent) else { return };
        let Some(foster) = self.records.get(table).and_then(|r| r.foster.as_deref()).cloned() else { return };
        tick(1 + foster.of_counts.len());
        if let Some(r) = self.records.get_mut(parent) {
            r.siblings = foster;
        }
        // The rules the fostered element matched stay the answer.
        let out = std::mem::take(&mut self.out);
        self.re_place(table, Position::Append { parent });
        self.recompute_after(table);
        self.out = out;
    }

    /// After a clone took the furthest block's children, or a table got a
    /// fostered sibling: computes again the open elements under it, in
    /// stack order (each the child of the one before), each against its
    /// parent as just computed and the sibling cursor it was inserted at,
    /// until one leaves the same states as before (then so do all under it:
    /// what an element leaves depends only on its parent's record and its
    /// cursor).
    fn recompute_after(&mut self, id: NodeId) {
        let mut cur = self.movables.map.get(&id.0).and_then(|m| m.next);
        let mut above = id;
        while let Some(e) = cur {
            tick(1);
            let m = &self.movables.map[&e.0];
            let parent = m.parent;
            // Only the chain of open descendants: an element after it in
            // stack order with another parent was foster-parented elsewhere.
            if parent != above {
                break;
            }
            above = e;
            if let Some(c) = m.cursor_before.as_deref().cloned()
                && let Some(r) = self.records.get_mut(parent)
            {
                r.siblings = c;
            }
            // The old sets are kept alive by these handles (no copy).
            let old = self.records.get(e).map(|r| (r.desc.clone(), r.child.clone()));
            self.re_place(e, Position::Append { parent });
            let unchanged = match (&old, self.records.get(e)) {
                (None, None) => true,
                (Some((desc, child)), Some(r)) => set_of(desc) == set_of(&r.desc) && set_of(child) == set_of(&r.child),
                _ => false,
            };
            if unchanged {
                break;
            }
            cur = self.movables.map.get(&e.0).and_then(|m| m.next);
        }
    }

    /// The sibling cursor an element inserted at (`parent`, `before`) is
    /// matched against.
    fn cursor_of(&self, parent: NodeId, before: Option<NodeId>) -> &Siblings {
        cursor_in(&self.records, self.records.get(parent).unwrap_or(&self.empty), before)
    }

    /// Matches an element being opened; returns the matching rules in
    /// [`RuleId`] order, each once. An element at [`Position::Detached`] is
    /// kept and matched when [`Matcher::event`] sees the `NodeMoved` that
    /// places it in the document.
    ///
    /// # Example
    /// ```
    /// use std::sync::Arc;
    /// use htrewrite_selectors::{ElementInfo, Matcher, Program, RuleId};
    /// use htrewrite_shadow::{KnownName, Namespace, NodeId, Position, ShadowAttr};
    /// let mut m = Matcher::new(Arc::new(Program::new(["div", ".x"])?));
    /// let attrs = [ShadowAttr::new("class", "x")];
    /// let el = ElementInfo { id: NodeId(1), name: "div", ns: Namespace::Html,
    ///     known: KnownName::of(Namespace::Html, "div"), attrs: &attrs,
    ///     position: Position::Append { parent: NodeId::DOCUMENT } };
    /// assert_eq!(m.element_opened(&el), [RuleId(0), RuleId(1)]);
    /// # Ok::<(), htrewrite_selectors::SelectorError>(())
    /// ```
    #[inline(always)]
    pub fn element_opened(&mut self, element: &ElementInfo<'_>) -> &[RuleId] {
        // The common case of a program of tag-keyed compounds (`a[href]`,
        // `head`; `ul > li`, `div`): an element of a known name whose start
        // states decide alone (none, or a plain type selector), in line at
        // the caller. What the full path finds then: those states' answer
        // for its only key (its tag), and in a program that is not flat no
        // state from its parent (no record: the parent left none) and
        // nothing to keep for moves (none kept so far, and no formatting
        // element open unless it is not special).
        if let Some(k) = element.known
            && known_in(&self.inline_known, k)
            && self.answers_alone(k, element.position)
        {
            #[cfg(test)]
            PREFILTERED.set(PREFILTERED.get() + 1);
            self.out.clear();
            return &self.out;
        }
        self.element_opened_rest(element)
    }

    /// Whether an element of known name `k`, which
    /// [`Program::answered_known`] lists, inserted at `position` is matched
    /// by its start states alone (see [`Matcher::element_opened`]). In a
    /// program that is not flat, what [`Matcher::open`] keeps must be
    /// nothing: no record of the parent, nothing kept for moves so far (no
    /// movable parent), and no formatting element open unless the element
    /// is not special — only a special element may become the adoption
    /// agency's furthest block and be moved ([`MoveKind::Adoption`]).
    #[inline(always)]
    fn answers_alone(&self, k: KnownName, position: Position) -> bool {
        self.placed_alone(known_tags()[k.index()].special, position)
    }

    /// [`Matcher::answers_alone`] of an element that is special or not
    /// (`special`): its position in the document, with nothing kept.
    #[inline(always)]
    fn placed_alone(&self, special: bool, position: Position) -> bool {
        match position {
            Position::Detached => false,
            _ if self.flat => true,
            Position::Append { parent } | Position::AppendToTemplateContents { template: parent } => {
                !self.records.may_hold(parent)
                    && self.movables.map.is_empty()
                    && (self.formatting_open.is_empty() || !special)
            }
            Position::InsertBefore { .. } => false,
        }
    }

    /// [`Matcher::element_opened`] past its test of the known names
    /// answered with no rule.
    #[inline(never)]
    fn element_opened_rest(&mut self, element: &ElementInfo<'_>) -> &[RuleId] {
        // The other known names answered (`div` of `div`, `a` of `a`, `b`
        // in a program that is not flat): here, out of line, where the test
        // costs the others (`a[href]`'s `span`) nothing. The full path's
        // work for them: the rule, if any; a formatting element followed.
        if let Some(k) = element.known
            && known_in(&self.rest_known, k)
            && self.answers_alone(k, element.position)
        {
            #[cfg(test)]
            RULED.set(RULED.get() + 1);
            self.out.clear();
            let rule = self.program.known_answer.get(k.index()).copied().unwrap_or(NO_RULE);
            if rule != NO_RULE {
                self.out.push(RuleId(u32::from(rule)));
            }
            if !self.flat && known_tags()[k.index()].formatting {
                self.formatting_open.opened(element.id);
            }
            return &self.out;
        }
        // An HTML element of a name outside the table (`<my-el>`), in a
        // program whose start states are all keyed by known HTML names: no
        // rule, nothing to keep, not special and no formatting element.
        if element.known.is_none()
            && element.ns == Namespace::Html
            && self.program.unlisted_answered
            && self.placed_alone(false, element.position)
        {
            #[cfg(test)]
            UNLISTED.set(UNLISTED.get() + 1);
            self.out.clear();
            return &self.out;
        }
        self.element_opened_full(element)
    }

    /// [`Matcher::element_opened`] the whole way, for every element: the
    /// reference the test `known_name_prefilter_is_the_full_path` compares
    /// its answers by known name with.
    #[inline(always)]
    pub(crate) fn element_opened_full(&mut self, element: &ElementInfo<'_>) -> &[RuleId] {
        if element.position == Position::Detached {
            self.defer(element);
        } else {
            self.open(element, None);
        }
        &self.out
    }

    /// Keeps a detached element until it is placed.
    fn defer(&mut self, element: &ElementInfo<'_>) {
        self.out.clear();
        let p = Pending {
            name: element.name.into(),
            ns: element.ns,
            attrs: element.attrs.to_vec(),
            position: None,
            deferred_in: None,
            deferred: Vec::new(),
            moved_in: Vec::new(),
            took_children: None,
        };
        self.pending.insert(element.id.0, p);
    }

    /// [`Program::reads_attributes_of`] of this matcher's program.
    ///
    /// # Example
    /// ```
    /// let p = std::sync::Arc::new(htrewrite_selectors::Program::new(["a[href]", "p"])?);
    /// let m = htrewrite_selectors::Matcher::new(p);
    /// assert!(m.reads_attributes_of("a") && !m.reads_attributes_of("p"));
    /// # Ok::<(), htrewrite_selectors::SelectorError>(())
    /// ```
    #[inline]
    pub fn reads_attributes_of(&self, name: &str) -> bool {
        self.program.reads_attributes_of(name)
    }

    /// [`Program::reads_attribute_values_of`] of this matcher's program.
    ///
    /// # Example
    /// ```
    /// let p = std::sync::Arc::new(htrewrite_selectors::Program::new(["a[href]", "p.x"])?);
    /// let m = htrewrite_selectors::Matcher::new(p);
    /// assert!(!m.reads_attribute_values_of("a") && m.reads_attribute_values_of("p"));
    /// # Ok::<(), htrewrite_selectors::SelectorError>(())
    /// ```
    #[inline]
    pub fn reads_attribute_values_of(&self, name: &str) -> bool {
        self.program.reads_attribute_values_of(name)
    }

    /// Forgets an element that left the stack of open elements.
    ///
    /// # Example
    /// ```
    /// let p = std::sync::Arc::new(htrewrite_selectors::Program::new(["a"])?);
    /// let mut m = htrewrite_selectors::Matcher::new(p);
    /// m.element_closed(htrewrite_shadow::NodeId(7)); // unknown ids are ignored
    /// # Ok::<(), htrewrite_selectors::SelectorError>(())
    /// ```
    #[inline(always)]
    pub fn element_closed(&mut self, id: NodeId) {
        // The common case inlined at the caller: nothing pending, moved or
        // formatting open, and no record (most elements leave none).
        if self.pending.is_empty()
            && self.movables.map.is_empty()
            && !self.formatting_open.may_hold(id)
            && !self.records.may_hold(id)
        {
            return;
        }
        self.element_closed_kept(id);
    }

    /// [`Matcher::element_closed`] when something may be kept for `id`.
    #[inline(never)]
    fn element_closed_kept(&mut self, id: NodeId) {
        if !self.pending.is_empty() {
            self.pending.remove(&id.0);
        }
        self.formatting_open.closed(id);
        if !self.movables.map.is_empty() {
            self.movables.unlink(id);
        }
        let Some(r) = self.records.get_mut(id) else { return };
        r.open = false;
        if r.live_children == 0 {
            self.release(id);
        }
    }

    /// Drops the record of a closed element without kept children, and then
    /// of its closed ancestors left without any.
    fn release(&mut self, mut id: NodeId) {
        while id != NodeId::DOCUMENT && Some(id) != self.head {
            tick(1);
            let Some(r) = self.records.remove(id) else { return };
            let Some(parent) = r.parent else { return };
            let Some(p) = self.records.get_mut(parent) else { return };
            p.live_children -= 1;
            if p.open || p.live_children > 0 {
                return;
            }
            id = parent;
        }
    }

    /// The number of elements (and the Document) whose state is kept.
    ///
    /// # Example
    /// ```
    /// let p = std::sync::Arc::new(htrewrite_selectors::Program::new(["a"])?);
    /// assert_eq!(htrewrite_selectors::Matcher::new(p).live_records(), 1);
    /// # Ok::<(), htrewrite_selectors::SelectorError>(())
    /// ```
    pub fn live_records(&self) -> usize {
        self.records.len() + self.pending.len()
    }

    /// The heap bytes the matcher's state holds, close to what it has
    /// allocated (for a rewriter's memory limit): the records' and pending
    /// elements' tables by capacity, each record's sibling counters for
    /// `:nth-child(… of S)`, each table's foster cursor, and each pending
    /// element's name and attributes. Not counted: state sets shared by
    /// many records, and the `:nth-of-type` counts (a persistent map
    /// shared between cursors). Also the movable elements kept for moves
    /// (their names, read attributes and sibling cursors). O(1) apart from
    /// the pending elements (adoption-agency clones not yet placed: few) and
    /// the movable ones (open elements under a formatting element).
    ///
    /// # Example
    /// ```
    /// let p = std::sync::Arc::new(htrewrite_selectors::Program::new(["a"])?);
    /// let m = htrewrite_selectors::Matcher::new(p);
    /// assert!(m.held_bytes() > 0); // the Document's record
    /// # Ok::<(), htrewrite_selectors::SelectorError>(())
    /// ```
    pub fn held_bytes(&self) -> usize {
        use std::mem::size_of;
        let records = self.records.map.capacity() * (size_of::<(u64, Record)>() + 1)
            + self.records.len() * self.program.of_lists.len() * size_of::<u32>()
            + self.records.fosters * size_of::<Siblings>();
        let pending = self.pending.capacity() * (size_of::<(NodeId, Pending)>() + 1)
            + self.pending.values().map(|p| p.name.len() + p.attrs.len() * size_of::<ShadowAttr>()).sum::<usize>();
        let movables = self.movables.map.capacity() * (size_of::<(u64, Movable)>() + 1)
            + self.formatting_open.held_bytes()
            + self
                .movables
                .map
                .values()
                .map(|m| {
                    m.name.len()
                        + m.attrs.len() * size_of::<ShadowAttr>()
                        + m.cursor_before.as_ref().map_or(0, |c| size_of::<Siblings>() + c.of_counts.len() * 4)
                })
                .sum::<usize>();
        records + pending + movables
    }

    /// Matches an element placed in the document, and keeps what a later
    /// move needs ([`Movable`]; `after`: the movable element it follows in
    /// stack order, if not last).
    #[inline(always)]
    fn open(&mut self, el: &ElementInfo<'_>, after: Option<NodeId>) {
        if self.program.flat {
            self.evaluate_placed(el);
            return;
        }
        // Nothing to keep: no formatting element open (no furthest block
        // can be opened), no movable parent, no table cursors to follow.
        if self.formatting_open.is_empty() && self.movables.map.is_empty() && self.program.sparse_records {
            self.evaluate_placed(el);
            if el.is_formatting() {
                self.formatting_open.opened(el.id);
            }
            return;
        }
        let Some((parent, before)) = parent_before(el.position) else { return };
        let parent_kind =
            if self.movables.map.is_empty() { None } else { self.movables.map.get(&parent.0).map(|m| m.kind) };
        let is_html = el.ns == Namespace::Html;
        let kind = if parent_kind == Some(MoveKind::Adoption) || !self.formatting_open.is_empty() && el.is_special() {
            Some(MoveKind::Adoption)
        } else if !self.program.sparse_records
            && is_html
            && (el.name == "table"
                || parent_kind == Some(MoveKind::Foster) && matches!(el.name, "tbody" | "thead" | "tfoot" | "tr"))
        {
            Some(MoveKind::Foster)
        } else {
            None
        };
        let cursor_before =
            (kind.is_some() && !self.program.sparse_records).then(|| Box::new(self.cursor_of(parent, before).clone()));
        self.evaluate_placed(el);
        if el.is_formatting() {
            self.formatting_open.opened(el.id);
        }
        if let Some(kind) = kind {
            // Matching an element of this name reads no attribute: none
            // need be kept to match it again.
            let attrs = if is_html && !self.program.reads_attributes_of(el.name) { &[][..] } else { el.attrs };
            let (name, attrs) = self.movables.copies(el.name, attrs);
            let m = Movable { kind, parent, prev: None, next: None, name, ns: el.ns, attrs, cursor_before };
            self.movables.map.insert(el.id.0, m);
            self.movables.link(el.id, after);
        }
        if let Some(table) = self.refoster.take() {
            self.refoster(table);
        }
    }

    /// Matches an element placed in the document: the keys and the fast
    /// path here, the rest in [`Matcher::open_general`].
    #[inline(always)]
    fn evaluate_placed(&mut self, el: &ElementInfo<'_>) {
        self.out.clear();
        let p = &*self.program;
        let Some((parent, before)) = parent_before(el.position) else { return };
        let is_html = el.ns == Namespace::Html;
        if is_html && el.name == "head" && self.head.is_none() {
            self.head = Some(el.id);
        }

        // The element's keys.
        self.keys.clear();
        let tag_key = el.tag_key();
        self.keys.push(tag_key);
        if p.needs_attribute_keys {
            attribute_keys(el.attrs, p, &mut self.keys);
        }
        let may_start = p.may_start(&self.keys);

        // Fast path: nothing to test and nothing to keep. Without start
        // states for its keys, and with a parent that left no state for
        // descendants or children, the element matches nothing and leaves
        // nothing; a program with sparse records then keeps no record for it
        // (what the general path decides), and its parent's sibling cursor,
        // which such a program never reads, need not advance. `head` and a
        // table whose parent has a record keep records, and foster
        // parenting takes the general path.
        // A flat program (every selector one compound, no child counts)
        // keeps no records at all: the element alone decides.
        // The same holds of an element that start states may match: only
        // they are tested ([`Matcher::open_alone`]).
        let alone = p.flat
            || p.sparse_records
                && before.is_none()
                && match self.records.get(parent) {
                    None => true,
                    Some(r) => r.desc.is_none() && r.child.is_none() && !(is_html && el.name == "table"),
                }
                && self.head != Some(el.id);
        match (alone, may_start) {
            (true, false) => {}
            (true, true) => self.open_alone(el, parent, tag_key),
            (false, _) => self.open_general(el, parent, before, tag_key, may_start),
        }
    }

    /// Matches an element whose only candidates are start states (see the
    /// fast path in [`Matcher::open`]): [`Matcher::open_general`] without
    /// the parent's and siblings' states and counters, which are empty or
    /// never read there.
    #[inline(never)]
    fn open_alone(&mut self, el: &ElementInfo<'_>, parent: NodeId, tag_key: u64) {
        let stamp = self.next_stamp();
        let p = &*self.program;
        let candidates = match &p.by_tag {
            // The element's only key is its tag, and every start state has
            // a key: only those keyed by its tag may pass.
            Some(by_tag) => match by_tag.get(&tag_key) {
                None => return,
                Some(t) => match &t.pure {
                    Some(pure) => {
                        // What `evaluate` computes for these states: all pass
                        // or none (the same name, in any namespace, no test).
                        let (lower, exact) = &pure.name;
                        let same = match el.known {
                            // A known HTML name is its lowercase name's.
                            Some(k) if el.ns == Namespace::Html => pure.known_html == Some(k),
                            _ => same_name(el.name, if el.ns == Namespace::Html { lower } else { exact }),
                        };
                        debug_assert_eq!(
                            same,
                            same_name(el.name, if el.ns == Namespace::Html { lower } else { exact }),
                            "{}",
                            el.name
                        );
                        if same {
                            // One rule, as most: pushed, not copied by a call to memcpy.
                            match pure.rules[..] {
                                [r] => self.out.push(r),
                                ref rules => self.out.extend_from_slice(rules),
                            }
                            if !pure.desc.is_empty() || !pure.child.is_empty() {
                                self.out_desc.clone_from(&pure.desc);
                                self.out_child.clone_from(&pure.child);
                                self.out_plus.clear();
                                self.out_tilde.clear();
                                self.keep(el, parent, None, 0, Vec::new());
                            }
                        }
                        return;
                    }
                    None => &t.states[..],
                },
            },
            None => {
                let mut gather = Gather { first: &[], runs: 0, buf: &mut self.candidates };
                p.start.candidates(&self.keys, |k| p.start_filter.may_contain(k), |v| gather.add(v));
                gather.finish()
            }
        };
        let ctx = Ctx {
            name: el.name,
            name_key: tag_key,
            ns: el.ns,
            attrs: el.attrs,
            quirks: *self.quirks.get_or_insert(true),
            root: parent == NodeId::DOCUMENT,
            // Never read: a program with sparse records has no child or
            // type counts and no `of S`.
            child_index: 0,
            type_index: 0,
            of_before: &[],
            stamp,
        };
        self.out_desc.clear();
        self.out_child.clear();
        self.out_plus.clear();
        self.out_tilde.clear();
        let next = [&mut self.out_desc, &mut self.out_child, &mut self.out_plus, &mut self.out_tilde];
        evaluate(p, candidates, &ctx, &mut self.rule_marks, &mut self.public_marks, &mut self.out, next);
        // What the general path decides: a record only for an element that
        // leaves states for its descendants or children (a sparse program
        // has no sibling combinators).
        if !p.flat && (!self.out_desc.is_empty() || !self.out_child.is_empty()) {
            self.keep(el, parent, None, 0, Vec::new());
        }
    }

    /// The stamp of the element about to be matched: rule marks equal to it
    /// are this element's.
    fn next_stamp(&mut self) -> u32 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.rule_marks.iter_mut().for_each(|m| *m = 0);
            self.public_marks.iter_mut().for_each(|m| *m = 0);
            self.stamp = 1;
        }
        self.stamp
    }

    /// Matches an element against the states its parent, ancestors and
    /// earlier siblings left and the start states for its keys (in
    /// `self.keys`), and keeps what it leaves for its descendants and
    /// later siblings.
    #[inline(never)]
    fn open_general(
        &mut self,
        el: &ElementInfo<'_>,
        parent: NodeId,
        before: Option<NodeId>,
        tag_key: u64,
        may_start: bool,
    ) {
        let stamp = self.next_stamp();
        let p = &*self.program;
        let quirks = *self.quirks.get_or_insert(true);
        let is_html = el.ns == Namespace::Html;
        let parent_rec = if p.flat { None } else { self.records.get(parent) };
        // A table keeps its record while its parent has one: foster
        // parenting may insert into the parent after the parent closed (the
        // adoption agency or `</form>` removed it from the stack), and the
        // table's record keeps the parent's alive until then.
        let table_keeps = !p.flat && is_html && el.name == "table" && parent_rec.is_some();
        let parent_rec = parent_rec.unwrap_or(&self.empty);
        let cursor = if p.flat { &parent_rec.siblings } else { cursor_in(&self.records, parent_rec, before) };
        let mut gather = Gather { first: &[], runs: 0, buf: &mut self.candidates };
        if may_start {
            p.start.candidates(&self.keys, |k| p.start_filter.may_contain(k), |v| gather.add(v));
        }
        for set in [&parent_rec.desc, &parent_rec.child, &cursor.last_plus, &cursor.tilde].into_iter().flatten() {
            set.candidates(&self.keys, |_| true, |v| gather.add(v));
        }
        let candidates = gather.finish();
        let child_index = cursor.children + 1;
        let type_key = if p.needs_type_counts { key(KEY_TAG + 8 * el.ns as u64, el.name) } else { 0 };
        let type_index = if p.needs_type_counts {
            cursor.types.as_ref().and_then(|t| t.get(&type_key)).copied().unwrap_or(0) + 1
        } else {
            0
        };
        let of_before = &cursor.of_counts[..];
        let parent_has_desc = parent_rec.desc.is_some();
        self.out_desc.clear();
        self.out_child.clear();
        self.out_plus.clear();
        self.out_tilde.clear();
        let ctx = Ctx {
            name: el.name,
            name_key: tag_key,
            ns: el.ns,
            attrs: el.attrs,
            quirks,
            root: parent == NodeId::DOCUMENT,
            child_index,
            type_index,
            of_before,
            stamp,
        };
        let next = [&mut self.out_desc, &mut self.out_child, &mut self.out_plus, &mut self.out_tilde];
        evaluate(p, candidates, &ctx, &mut self.rule_marks, &mut self.public_marks, &mut self.out, next);

        // An element that leaves no state for its descendants or children,
        // where parents keep no sibling cursor, needs no record: its
        // children find none and use the empty one, which is what it would
        // hold. `head` keeps its record, and so does a table whose parent
        // has one (foster parenting), unless the program is flat.
        if p.flat
            || p.sparse_records
                && !parent_has_desc
                && self.out_desc.is_empty()
                && self.out_child.is_empty()
                && !table_keeps
                && self.head != Some(el.id)
        {
            return;
        }

        // Which `of S` lists the element matches (for its later siblings' counters).
        let of_hits: Vec<bool> = p.of_lists.iter().map(|l| inner_matches(l, &ctx, &self.rule_marks, p)).collect();
        self.keep(el, parent, before, type_key, of_hits);
    }

    /// Keeps the record of an element just matched (never in a flat
    /// program), from the states it left in `out_*`, and advances its
    /// parent's sibling cursor (and the foster cursor of the table it is
    /// inserted before). Apart from [`Matcher::open_general`] because most
    /// elements need no record.
    #[inline(never)]
    fn keep(
        &mut self,
        el: &ElementInfo<'_>,
        parent: NodeId,
        before: Option<NodeId>,
        type_key: u64,
        of_hits: Vec<bool>,
    ) {
        let p = &*self.program;
        let parent_rec = self.records.get(parent);
        let parent_desc = parent_rec.and_then(|r| r.desc.clone());
        // A table's cursor for the siblings foster-parented before it starts
        // as its own sibling cursor, taken before it advances.
        let cursor = cursor_in(&self.records, parent_rec.unwrap_or(&self.empty), before);
        // (O(1) work: the sets are shared, the type counts a persistent map.)
        let cursor_snapshot = (el.ns == Namespace::Html && el.name == "table").then(|| {
            tick(1 + cursor.of_counts.len());
            cursor.clone()
        });
        // Nested elements of one kind (`span > span` in `<span><span>…`) and
        // runs of siblings (`li + li`) mostly leave the very states their
        // parent or previous sibling left: share that set.
        let recent = &mut self.recent;
        let child = same_or_new(parent_rec.and_then(|r| r.child.as_ref()), &self.out_child, &p.states, recent);
        let plus = same_or_new(cursor.last_plus.as_ref(), &self.out_plus, &p.states, recent);
        let desc = match &parent_desc {
            None if !self.out_desc.is_empty() => Some(recent.get(&self.out_desc, &p.states)),
            _ => StateSet::union(&parent_desc, &self.out_desc, &p.states),
        };

        // The element's own record.
        let kept_parent = self.records.get_mut(parent).map(|r| r.live_children += 1).map(|()| parent);
        let record = Record {
            parent: kept_parent,
            open: true,
            live_children: 0,
            desc,
            child,
            siblings: Siblings::with_of(p.of_lists.len()),
            foster: cursor_snapshot.map(Box::new),
        };
        self.records.insert(el.id, record);

        // The parent's sibling cursor(s).
        let needs_types = p.needs_type_counts;
        let advance = |c: &mut Siblings, last: bool, tilde: &[u32]| {
            c.children += 1;
            if last {
                c.last_plus = plus.clone();
            }
            if !tilde.is_empty() {
                c.tilde = StateSet::union(&c.tilde, tilde, &p.states);
            }
            if needs_types {
                let types = c.types.get_or_insert_with(TypeCounts::default);
                let n = types.get(&type_key).copied().unwrap_or(0);
                types.insert_mut(type_key, n + 1);
            }
            for (n, hit) in c.of_counts.iter_mut().zip(&of_hits) {
                *n += u32::from(*hit);
            }
        };
        let mut fostered = false;
        if let Some(c) = before.and_then(|b| self.records.get_mut(b)).and_then(|r| r.foster.as_deref_mut()) {
            advance(c, true, &self.out_tilde);
            fostered = true;
            self.refoster = before;
        }
        if let Some(r) = self.records.get_mut(parent) {
            advance(&mut r.siblings, !fostered, &self.out_tilde);
        }
    }
}

impl Siblings {
    fn with_of(n: usize) -> Siblings {
        Siblings { of_counts: vec![0; n], ..Siblings::default() }
    }
}

/// The sibling cursor an element inserted in `parent_rec`'s element,
/// before `before` if foster-parented, is matched against: the table's
/// foster cursor when it has one, else the parent's.
#[inline(always)]
fn cursor_in<'a>(records: &'a Records, parent_rec: &'a Record, before: Option<NodeId>) -> &'a Siblings {
    before.and_then(|b| records.get(b)).and_then(|r| r.foster.as_deref()).unwrap_or(&parent_rec.siblings)
}

/// The parent an element is placed in (a `template` for its contents) and
/// the sibling it is inserted before, if any; `None` when detached.
#[inline(always)]
fn parent_before(at: Position) -> Option<(NodeId, Option<NodeId>)> {
    match at {
        Position::Append { parent } => Some((parent, None)),
        Position::InsertBefore { parent, before } => Some((parent, Some(before))),
        Position::AppendToTemplateContents { template } => Some((template, None)),
        Position::Detached => None,
    }
}

/// The states of a set, for comparing records.
fn set_of(set: &Option<Arc<StateSet>>) -> &[u32] {
    set.as_deref().map_or(&[], |s| &s.all[..])
}

/// The set of `states` (sorted, each once, as the evaluation pushes them):
/// none when empty, `prev` when it holds just these, else a recent or new set.
fn same_or_new(
    prev: Option<&Arc<StateSet>>,
    states: &[u32],
    all: &[State],
    recent: &mut RecentSets,
) -> Option<Arc<StateSet>> {
    tick(states.len());
    match prev {
        _ if states.is_empty() => None,
        Some(set) if set.all == states => Some(Arc::clone(set)),
        _ => Some(recent.get(states, all)),
    }
}

/// Tests the candidate states at the element of `ctx`: pushes the public
/// rules it completes to `out`, and the states it leaves alive to `next`
/// (for its descendants, children, next sibling, later siblings).
///
/// `out` is in `RuleId` order: the candidates are in state order, states
/// are numbered rule by rule, and public rules in the order of their lists
/// (inner rules, numbered in between, are not reported).
#[inline(always)]
fn evaluate(
    p: &Program,
    candidates: &[u32],
    ctx: &Ctx<'_>,
    rule_marks: &mut [u32],
    public_marks: &mut [u32],
    out: &mut Vec<RuleId>,
    next: [&mut Vec<u32>; 4],
) {
    let [desc, child, plus, tilde] = next;
    tick(candidates.len());
    for &s in candidates {
        let state = &p.states[s as usize];
        if !compound_matches(&state.compound, ctx, rule_marks, p) {
            continue;
        }
        match state.next {
            None => {
                rule_marks[state.rule as usize] = ctx.stamp;
                if let Some(id) = p.rules[state.rule as usize].public
                    && public_marks[id.0 as usize] != ctx.stamp
                {
                    public_marks[id.0 as usize] = ctx.stamp;
                    out.push(id);
                }
            }
            Some(Combinator::Descendant) => desc.push(s + 1),
            Some(Combinator::Child) => child.push(s + 1),
            Some(Combinator::NextSibling) => plus.push(s + 1),
            Some(Combinator::SubsequentSibling) => tilde.push(s + 1),
        }
    }
}

/// The states to test at an element, gathered run by run (each sorted):
/// a single run, the common case, is used where it lies; with more they
/// are copied, sorted and deduplicated.
struct Gather<'a> {
    first: &'a [u32],
    runs: usize,
    buf: &'a mut Vec<u32>,
}

impl<'a> Gather<'a> {
    #[inline]
    fn add(&mut self, run: &'a [u32]) {
        if run.is_empty() {
            return;
        }
        tick(run.len());
        match self.runs {
            0 => self.first = run,
            1 => {
                self.buf.clear();
                self.buf.extend_from_slice(self.first);
                self.buf.extend_from_slice(run);
            }
            _ => self.buf.extend_from_slice(run),
        }
        self.runs += 1;
    }

    /// The states in order (inner rules before the rules that use them),
    /// each once.
    #[inline]
    fn finish(self) -> &'a [u32] {
        if self.runs <= 1 {
            return self.first;
        }
        self.buf.sort_unstable();
        self.buf.dedup();
        self.buf
    }
}

/// Pushes the keys of an element's attributes in no namespace: each name,
/// with its value when some state is keyed by a value of that name, the
/// id, the classes.
fn attribute_keys(attrs: &[ShadowAttr], p: &Program, keys: &mut Vec<u64>) {
    tick(attrs.len());
    for a in attrs.iter().filter(|a| a.namespace == AttrNamespace::None) {
        let name_key = key(KEY_ATTR, &a.name);
        keys.push(name_key);
        if p.value_key_names.may_contain(name_key) {
            keys.push(attribute_value_key(&a.name, &a.value));
        }
        match a.name.as_str() {
            "id" if !a.value.is_empty() => keys.push(key(KEY_ID, &a.value)),
            "class" => keys.extend(a.value.split(is_ascii_ws).filter(|w| !w.is_empty()).map(|w| key(KEY_CLASS, w))),
            _ => {}
        }
    }
}

fn is_ascii_ws(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{c}')
}

fn attribute<'a>(ctx: &Ctx<'a>, lower: &str, exact: &str) -> Option<&'a str> {
    attributes(ctx, lower, exact, false).next()
}

/// The values of the attributes named so (several only for `[*|name]`).
fn attributes<'a, 'n>(
    ctx: &Ctx<'a>,
    lower: &'n str,
    exact: &'n str,
    any_namespace: bool,
) -> impl Iterator<Item = &'a str> + use<'a, 'n> {
    let html = ctx.ns == Namespace::Html;
    ctx.attrs
        .iter()
        .filter(move |a| {
            (any_namespace || a.namespace == AttrNamespace::None)
                && if html { a.name == lower } else { a.name == exact }
        })
        .map(|a| a.value.as_str())
}

fn eq(a: &str, b: &str, ci: bool) -> bool {
    if ci { a.eq_ignore_ascii_case(b) } else { a == b }
}

fn starts_with(v: &str, p: &str, ci: bool) -> bool {
    v.len() >= p.len() && v.is_char_boundary(p.len()) && eq(&v[..p.len()], p, ci)
}

fn ends_with(v: &str, s: &str, ci: bool) -> bool {
    v.len() >= s.len() && v.is_char_boundary(v.len() - s.len()) && eq(&v[v.len() - s.len()..], s, ci)
}

fn contains(v: &str, s: &str, ci: bool) -> bool {
    if ci { v.to_ascii_lowercase().contains(&s.to_ascii_lowercase()) } else { v.contains(s) }
}

fn inner_matches(list: &InnerList, ctx: &Ctx<'_>, marks: &[u32], p: &Program) -> bool {
    list.rules.iter().any(|&r| marks[r as usize] == ctx.stamp)
        || list.compounds.iter().any(|c| compound_matches(c, ctx, marks, p))
}

/// The namespace and type selector inline (most compounds have nothing
/// else), the other tests apart.
#[inline]
fn compound_matches(c: &Compound, ctx: &Ctx<'_>, marks: &[u32], p: &Program) -> bool {
    match c.ns {
        NsTest::Any => {}
        NsTest::Is(ns) if ns == ctx.ns => {}
        NsTest::Is(_) | NsTest::Nothing => return false,
    }
    if let Some((lower, exact)) = &c.name {
        if c.name_key != ctx.name_key {
            return false;
        }
        // spec (HTML, case-sensitivity of selectors): type selectors compare
        // ASCII-lowercased for HTML elements, as written for the others.
        let want = if ctx.ns == Namespace::Html { lower } else { exact };
        if !same_name(ctx.name, want) {
            return false;
        }
    }
    c.tests.is_empty() || tests_match(&c.tests, ctx, marks, p)
}

/// `a == b` for names, which are short: a byte loop instead of a call to `memcmp`.
#[inline]
fn same_name(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| x == y)
}

fn tests_match(tests: &[Test], ctx: &Ctx<'_>, marks: &[u32], p: &Program) -> bool {
    let html = ctx.ns == Namespace::Html;
    tests.iter().all(|t| match t {
        Test::Id(v) => attribute(ctx, "id", "id").is_some_and(|id| eq(id, v, ctx.quirks)),
        Test::Class(v) => attribute(ctx, "class", "class")
            .is_some_and(|cl| cl.split(is_ascii_ws).any(|w| !w.is_empty() && eq(w, v, ctx.quirks))),
        Test::Attribute(a) => {
            attributes(ctx, &a.lower, &a.exact, a.any_namespace).any(|value| attribute_matches(a, value, html))
        }
        Test::Root => ctx.root,
        Test::NthChild(n, None) => n.matches(ctx.child_index),
        Test::NthChild(n, Some(j)) => {
            let j = *j as usize;
            inner_matches(&p.of_lists[j], ctx, marks, p) && n.matches(ctx.of_before[j] + 1)
        }
        Test::NthOfType(n) => n.matches(ctx.type_index),
        Test::Not(l) => !inner_matches(l, ctx, marks, p),
        Test::Is(l) => inner_matches(l, ctx, marks, p),
    })
}

fn attribute_matches(a: &AttributeTest, value: &str, html: bool) -> bool {
    let Some((op, want)) = &a.operation else { return true };
    let ci = match a.case {
        CaseFlag::AsciiCaseInsensitive => true,
        CaseFlag::CaseSensitive => false,
        CaseFlag::Default => a.listed && html,
    };
    match op {
        AttributeOperator::Equals => eq(value, want, ci),
        AttributeOperator::Includes => {
            !want.is_empty() && !want.contains(is_ascii_ws) && value.split(is_ascii_ws).any(|w| eq(w, want, ci))
        }
        AttributeOperator::DashMatch => {
            eq(value, want, ci) || (starts_with(value, want, ci) && value[want.len()..].starts_with('-'))
        }
        AttributeOperator::Prefix => !want.is_empty() && starts_with(value, want, ci),
        AttributeOperator::Suffix => !want.is_empty() && ends_with(value, want, ci),
        AttributeOperator::Substring => !want.is_empty() && contains(value, want, ci),
    }
}
