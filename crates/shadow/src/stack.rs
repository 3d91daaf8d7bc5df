//! The [stack of open elements](https://html.spec.whatwg.org/multipage/parsing.html#stack-of-open-elements),
//! with indexes that make scope checks O(1) and removals anywhere O(1).
//!
//! Entries keep **permanent positions**: removing an element from the middle
//! (the adoption agency, `</form>`, an `<a>` start tag, the head element
//! pushed back "after head") leaves a *hole* at its position instead of
//! shifting the entries above it. Holes form runs whose two ends know each
//! other, so walks skip a run in one step; holes on top are trimmed at once,
//! so the current node is always at the last position; and when holes
//! outnumber the elements, [`Stack::maybe_compact`] (called between tokens)
//! rebuilds the stack without them.
//!
//! The indexes are lists of positions in increasing order: one per
//! (namespace, lowercased name) and one per category of [`cat`] (up to
//! [`cat::INDEXED`]). What the algorithms ask is each list's topmost member,
//! its last entry. A push appends its position to the lists it is in; a pop
//! takes it off their ends. A removal in the middle leaves its entries
//! behind, *stale*: an entry is *valid* when its position holds a member of
//! the list, and the last entry of a list is always valid (stale entries
//! reaching the end are dropped then, each once: amortized O(1)). An entry
//! costs 4 bytes, and an element is in its name list and up to four
//! category lists (a `table`; a `div` is in one, a `b` in none, as a
//! category that contains another lists only the difference: see
//! [`index_lists`]; and the HTML list, below, is kept only once needed),
//! so an open element costs its 24-byte entry (its name a key: a known
//! name's id, or a key of the stack's table of other names) and 8 to 24
//! bytes of index (issue 16: the doubly linked lists this replaced cost 80
//! bytes of links per position, and the entry was 40 bytes with an 8-byte
//! slot beside it). A hole's placeholder keeps the other end of its run. The adoption agency's rewrite of
//! the segment from the formatting element to the furthest block writes
//! its new elements' positions into the entries the segment's elements had
//! (see [`Stack::rewrite_segment`]).
//!
//! The list of [`cat::HTML`] (read only by the end tags of foreign content,
//! for the topmost HTML element) is kept from the first foreign element a
//! document opens on: until then every open element is an HTML element, the
//! topmost one is the current node, and the list would cost 4 bytes per
//! open element for nothing (issue 16: nested tables, 91 bytes per element
//! against lol_html's 85). It is built once, from the stack, when the first
//! foreign element is pushed, and kept from then on.
//!
//! The top few entries (at most [`FRESH`], from [`Stack::indexed`] up)
//! are in no index: the searches look at them one by one first. Most
//! elements are closed soon after they are opened, while still among the
//! top ones, and are never indexed (issue 16: indexing and unindexing one,
//! its name list, category lists and position map, cost about 70
//! instructions); an element is indexed once, when [`FRESH`] more are
//! opened above it.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::idhash::PosMap;
use crate::names;
use crate::tags::{cat, cats};
use crate::work::tick;
use crate::{Namespace, NodeId, OpenElement};

/// No position (no head), or the key of a hole.
pub(crate) const NONE: u32 = u32::MAX;

/// The id of a hole's placeholder entry (never an element's id).
const HOLE_ID: NodeId = NodeId(u64::MAX - 1);

/// How many entries at the top of the stack stay out of the indexes.
const FRESH: usize = 8;

/// An index list: `Name(key)` or `Cat(c)` for category bit `c`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum List {
    Name(u32),
    Cat(u32),
}

/// The stack of open elements and its indexes.
#[derive(Debug, Clone)]
pub(crate) struct Stack {
    /// Entries by position; holes hold a placeholder with [`HOLE_ID`].
    items: Vec<OpenElement>,
    /// Number of elements (positions that are not holes).
    live: usize,
    /// Name keys per namespace: lowercased name → key.
    keys: [HashMap<Box<str>, u32>; 3],
    /// Per key used so far (see `name_list`): the positions of the elements
    /// with that key, in increasing order (stale entries included; the last
    /// one valid).
    by_name: Vec<Vec<u32>>,
    /// Per known name key (`names`), grown to the largest used so far: 1 +
    /// the index of its list in `by_name`, 0 before its first element (no
    /// count of references: a known key is never freed; a page uses a few
    /// dozen of the 486 known names, 4 bytes each up to the largest met:
    /// a table for all was 3.8 KiB per rewriter).
    known: Vec<u32>,
    /// Per other name key (`names::COUNT` + i), likewise, with its name.
    other: Vec<OtherKey>,
    /// The names of the elements whose name is not their key's string (a
    /// foreign name with ASCII uppercase letters outside the Standard's
    /// tables, which only `TagToken::new` can make: the tokenizer lowercases
    /// tag names), by id; such an element has [`cat::CASED`].
    cased: HashMap<NodeId, Box<str>>,
    /// Keys no longer in use, to be handed out again.
    free_keys: Vec<u32>,
    /// The other name keys looked up last ([`NONE`] when unused), tried
    /// before hashing a name: pages repeat a few custom element names
    /// (`emu-xref`, `my-card`) and a hash with random keys costs more than
    /// comparing them.
    recent: [u32; RECENT],
    /// Per indexed category bit: the positions of the elements in its list
    /// (see [`index_lists`]), as `by_name`.
    by_cat: [Vec<u32>; cat::INDEXED],
    /// The bytes the index lists hold (their capacities, grown on push).
    index_bytes: usize,
    /// Whether the list of [`cat::HTML`] is kept (see the module's docs):
    /// from the first foreign element pushed on.
    html_indexed: bool,
    pos_of: PosMap,
    /// The positions below this one are indexed (`by_name`, `by_cat`,
    /// `pos_of`); the others, at most [`FRESH`], are not.
    indexed: usize,
    /// The entries without holes, made on demand while there are holes.
    view: OnceLock<Vec<OpenElement>>,
    /// Set when a hole was made, cleared when none is left: while it is
    /// clear, [`Stack::maybe_compact`] has nothing to count.
    holed: bool,
}

impl Default for Stack {
    fn default() -> Stack {
        Stack {
            items: Vec::new(),
            live: 0,
            keys: Default::default(),
            by_name: Vec::new(),
            known: Vec::new(),
            other: Vec::new(),
            cased: HashMap::new(),
            free_keys: Vec::new(),
            recent: [NONE; RECENT],
            by_cat: Default::default(),
            index_bytes: 0,
            html_indexed: false,
            pos_of: PosMap::default(),
            indexed: 0,
            view: OnceLock::new(),
            holed: false,
        }
    }
}

/// A name key past the known names: what the stack keeps for it, and the
/// name (lowercase: the foreign end-tag steps compare lowercased names).
#[derive(Debug, Clone, Default)]
struct OtherKey {
    info: KeyInfo,
    name: Box<str>,
    /// The namespace's index (`ns_index`) of the name.
    ns: u8,
    /// The name's categories (`tags::cats`: a function of the namespace and
    /// the name alone outside the table), computed when the key is made.
    cats: u16,
}

/// How many other name keys [`Stack::recent`] remembers.
const RECENT: usize = 4;

/// What the stack keeps per other name key (`OtherKey`).
#[derive(Debug, Clone, Copy, Default)]
struct KeyInfo {
    /// 1 + the index of its list in `by_name`, 0 before the first element
    /// with the key (the lists are made on first use, as an empty list is
    /// 24 bytes).
    list: u32,
    /// The number of open elements with the key.
    refs: u32,
}

fn ns_index(ns: Namespace) -> usize {
    match ns {
        Namespace::Html => 0,
        Namespace::Svg => 1,
        Namespace::MathMl => 2,
    }
}

/// The lowercase key of an element's name (SVG names are case-adjusted;
/// the foreign end-tag steps compare ASCII-lowercased names).
fn key(ns: Namespace, name: &str) -> std::borrow::Cow<'_, str> {
    if ns != Namespace::Html && name.bytes().any(|b| b.is_ascii_uppercase()) {
        std::borrow::Cow::Owned(name.to_ascii_lowercase())
    } else {
        std::borrow::Cow::Borrowed(name)
    }
}

/// Drops the entries at the end of `v` whose position holds no member.
#[inline(always)]
fn drop_stale(v: &mut Vec<u32>, member: impl Fn(usize) -> bool) {
    while let Some(&q) = v.last() {
        if member(q as usize) {
            return;
        }
        tick(1);
        v.pop();
    }
}

/// The category lists an element with category bits `cats` is in, as bits
/// numbered like the categories of [`cat`]. A category that contains another
/// keeps only what the other lacks, and its topmost member is the later of
/// the two lists' ([`Stack::topmost_cat`]): the boundaries of "list item
/// scope" and "button scope" are the default scope's plus `ol`/`ul` and
/// `button`, so bits [`cat::LIST_ITEM_SCOPE`] and [`cat::BUTTON_SCOPE`] list
/// only those; [`cat::SPECIAL`] is [`cat::SPECIAL_NOT_ADP`] plus `address`,
/// `div` and `p`, so its bit lists only those three. A table cell is then in
/// four category lists instead of seven (issue 16: 4 bytes per list and
/// element, for every open cell).
#[inline(always)]
const fn index_lists(cats: u16) -> u8 {
    let scope = cats & cat::SCOPE != 0;
    let mut l = cats & (cat::SCOPE | cat::TABLE_SCOPE | cat::HTML | cat::SPECIAL_NOT_ADP | cat::RESET);
    if !scope {
        l |= cats & (cat::LIST_ITEM_SCOPE | cat::BUTTON_SCOPE);
    }
    if cats & cat::SPECIAL_NOT_ADP == 0 {
        l |= cats & cat::SPECIAL;
    }
    const { assert!(cat::INDEXED == 8) };
    l as u8
}

/// [`index_lists`] of each known id's categories ([`names::cats_of`]),
/// built at compile time: an element with a known name reads its lists
/// (the test `known_lists_are_index_lists`).
static KNOWN_LISTS: [u8; names::COUNT] = names::known_table!(u8, 0, |k| index_lists(names::CATS[k.index()]));

/// The bit of [`cat::HTML`] in an entry's `lists` (see [`index_lists`]).
const HTML_LIST: u8 = cat::HTML as u8;

/// The bits of `lists` (see [`index_lists`]), as the bit numbers set (most
/// elements are in one or two lists).
fn indexed(lists: u8) -> impl Iterator<Item = u32> {
    let mut bits = u32::from(lists);
    std::iter::from_fn(move || {
        (bits != 0).then(|| {
            let c = bits.trailing_zeros();
            bits &= bits - 1;
            c
        })
    })
}

impl OpenElement {
    /// The entry of an element with a known name (`names::known`), which
    /// needs nothing of the stack.
    #[inline]
    pub(crate) fn of_known(id: NodeId, key: u32, ns: Namespace, parent: NodeId) -> OpenElement {
        debug_assert!((key as usize) < names::COUNT);
        OpenElement { id, parent, key, cats: names::cats_of(key), ns, lists: KNOWN_LISTS[key as usize] }
    }

    /// The placeholder of a hole.
    fn hole() -> OpenElement {
        OpenElement { id: HOLE_ID, parent: NodeId::DOCUMENT, key: NONE, cats: 0, ns: Namespace::Html, lists: 0 }
    }

    /// The known name's id (`names`), if the element has one.
    #[inline(always)]
    pub(crate) fn known(&self) -> Option<u32> {
        ((self.key as usize) < names::COUNT).then_some(self.key)
    }

    /// Whether this is the element with known id `key` (`names::html` for HTML
    /// elements): known ids differ across namespaces, so the id alone says
    /// the namespace too.
    pub(crate) fn is_known(&self, key: u32) -> bool {
        self.key == key
    }

    /// Whether the element has category bit `c`.
    pub(crate) fn has(&self, c: u16) -> bool {
        self.cats & c != 0
    }
}

impl Stack {
    /// The entries by position, holes included (placeholders that are in no
    /// category and match no name).
    #[cfg(test)]
    pub(crate) fn items(&self) -> &[OpenElement] {
        &self.items
    }

    /// The open elements, bottom first, without holes.
    ///
    /// # Complexity
    /// O(1) when there are no holes; otherwise O(positions) the first time
    /// after a change, O(1) after that.
    pub(crate) fn view(&self) -> &[OpenElement] {
        if self.live == self.items.len() {
            return &self.items;
        }
        self.view.get_or_init(|| self.items.iter().filter(|e| e.id != HOLE_ID).cloned().collect())
    }

    /// Any change drops the hole-free view.
    fn touched(&mut self) {
        if self.view.get().is_some() {
            self.view = OnceLock::new();
        }
    }

    /// One past the topmost position (the current node is at `end() - 1`).
    /// Positions below may be holes: this is not the number of elements.
    pub(crate) fn end(&self) -> usize {
        self.items.len()
    }

    /// The heap bytes of the entries and their indexes, by capacity
    /// (the dominant per-element cost; see [`Shadow::held_bytes`](crate::Shadow::held_bytes)).
    pub(crate) fn held_bytes(&self) -> usize {
        self.items.capacity() * std::mem::size_of::<OpenElement>() + self.index_bytes + self.pos_of.held_bytes()
    }

    pub(crate) fn live_len(&self) -> usize {
        self.live
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The entry at position `i` (a hole's placeholder matches nothing).
    pub(crate) fn get(&self, i: usize) -> &OpenElement {
        &self.items[i]
    }

    pub(crate) fn get_mut_parent(&mut self, i: usize) -> &mut NodeId {
        self.touched();
        &mut self.items[i].parent
    }

    pub(crate) fn current(&self) -> Option<&OpenElement> {
        self.items.last()
    }

    /// Whether the current node is the HTML element `name`.
    pub(crate) fn current_is(&self, name: &str) -> bool {
        self.items.last().is_some_and(|e| self.is_html(e, name))
    }

    fn is_hole(&self, i: usize) -> bool {
        self.items[i].key == NONE
    }

    /// For a hole at an end of its run of holes: the position of the other
    /// end, kept in its placeholder's `parent` (a hole has no parent).
    fn run(&self, i: usize) -> usize {
        self.items[i].parent.0 as usize
    }

    /// Sets what [`Stack::run`] reads.
    fn set_run(&mut self, i: usize, other_end: usize) {
        self.items[i].parent = NodeId(other_end as u64);
    }

    /// The first element position at or above `i` (or `end()`), skipping a run of holes in one step.
    fn live_from(&self, i: usize) -> usize {
        tick(1);
        if i < self.items.len() && self.is_hole(i) { self.run(i) + 1 } else { i }
    }

    /// The next element position above `i` (or `end()`).
    pub(crate) fn above(&self, i: usize) -> usize {
        self.live_from(i + 1)
    }

    /// The next element position below `i`, skipping a run of holes in one step.
    pub(crate) fn below(&self, i: usize) -> Option<usize> {
        tick(1);
        let q = i.checked_sub(1)?;
        if self.is_hole(q) { self.run(q).checked_sub(1) } else { Some(q) }
    }

    /// The positions of index list `list`.
    fn list(&mut self, list: List) -> &mut Vec<u32> {
        match list {
            List::Name(k) => {
                let list = *self.list_slot(k) as usize - 1;
                &mut self.by_name[list]
            }
            List::Cat(c) => &mut self.by_cat[c as usize],
        }
    }

    /// Appends position `p` to an index list, counting the capacity it grows by.
    #[inline(always)]
    fn append(v: &mut Vec<u32>, p: u32, index_bytes: &mut usize) {
        if v.len() == v.capacity() {
            let cap = v.capacity();
            v.reserve(1);
            *index_bytes += (v.capacity() - cap) * 4;
        }
        v.push(p);
    }

    /// Whether entry `p` of `list` is valid: `p` holds a member of the list.
    fn valid(&self, list: List, p: u32) -> bool {
        match list {
            List::Name(k) => self.items.get(p as usize).is_some_and(|e| e.key == k),
            List::Cat(c) => self.items.get(p as usize).is_some_and(|e| e.lists & (1 << c) != 0),
        }
    }

    /// Drops the stale entries at the end of name list `k` (call it once the
    /// position its element left is a hole or gone), so that its last entry
    /// is valid again. Amortized O(1): an entry is dropped once. (A hole's
    /// slot has no key and its placeholder no category: membership alone
    /// says whether an entry is valid.)
    #[inline(always)]
    fn clean_name(&mut self, k: u32) {
        let list = *self.list_slot(k) as usize - 1;
        self.clean_name_list(list, k);
    }

    /// [`Stack::clean_name`] given the list's index too.
    #[inline(always)]
    fn clean_name_list(&mut self, list: usize, k: u32) {
        let items = &self.items;
        drop_stale(&mut self.by_name[list], |q| items.get(q).is_some_and(|e| e.key == k));
    }

    /// [`Stack::clean_name`] for the list of category bit `c`.
    #[inline(always)]
    fn clean_cat(&mut self, c: u32) {
        let items = &self.items;
        drop_stale(&mut self.by_cat[c as usize], |q| items.get(q).is_some_and(|e| e.lists & (1 << c) != 0));
    }

    /// [`Stack::clean_name`] or [`Stack::clean_cat`].
    fn clean(&mut self, list: List) {
        match list {
            List::Name(k) => self.clean_name(k),
            List::Cat(c) => self.clean_cat(c),
        }
    }

    /// 1 + the index in `by_name` of name key `key`'s list, 0 when it has
    /// none (a known key's entry made if new).
    #[inline(always)]
    fn list_slot(&mut self, key: u32) -> &mut u32 {
        let k = key as usize;
        if k < names::COUNT {
            if k >= self.known.len() {
                self.grow_known(k);
            }
            &mut self.known[k]
        } else {
            &mut self.other[k - names::COUNT].info.list
        }
    }

    /// Grows the known keys' table to hold key `k` (and a few more: a
    /// page's names come in no order, and doubling would hold twice the
    /// largest key).
    #[inline(never)]
    fn grow_known(&mut self, k: usize) {
        let len = (k + 16).min(names::COUNT);
        self.known.reserve_exact(len - self.known.len());
        self.known.resize(len, 0);
    }

    /// 1 + the index in `by_name` of name key `key`'s list (0: none, or a
    /// key never seen).
    fn list_of(&self, key: u32) -> u32 {
        let k = key as usize;
        let slot =
            if k < names::COUNT { self.known.get(k) } else { self.other.get(k - names::COUNT).map(|o| &o.info.list) };
        slot.copied().unwrap_or(0)
    }

    /// Counts one more element with name key `key` (other keys only: known
    /// ones are never freed).
    #[inline(always)]
    fn add_ref(&mut self, key: u32) {
        if key as usize >= names::COUNT {
            self.other[key as usize - names::COUNT].info.refs += 1;
        }
    }

    /// The index in `by_name` of name key `key`'s list, made if new.
    #[inline(always)]
    fn name_list(&mut self, key: u32) -> usize {
        match *self.list_slot(key) {
            0 => self.new_name_list(key),
            i => i as usize - 1,
        }
    }

    /// Makes the list of name key `key` (its first element); returns its index.
    #[inline(never)]
    fn new_name_list(&mut self, key: u32) -> usize {
        self.by_name.push(Vec::new());
        self.index_bytes += std::mem::size_of::<Vec<u32>>();
        *self.list_slot(key) = self.by_name.len() as u32;
        self.by_name.len() - 1
    }

    /// The name of entry `e` of this stack (empty for a hole).
    #[inline]
    pub(crate) fn name<'a>(&'a self, e: &OpenElement) -> &'a str {
        let k = e.key as usize;
        if k < names::COUNT && e.cats & cat::CASED == 0 {
            return names::name(e.key);
        }
        self.name_slow(e)
    }

    /// [`Stack::name`] for a name outside the table or a cased one.
    #[inline(never)]
    fn name_slow<'a>(&'a self, e: &OpenElement) -> &'a str {
        if e.cats & cat::CASED != 0 {
            return self.cased.get(&e.id).map_or("", |n| n);
        }
        self.other.get((e.key as usize).wrapping_sub(names::COUNT)).map_or("", |o| &o.name)
    }

    /// The public view of entry `e`.
    pub(crate) fn show<'a>(&'a self, e: &OpenElement) -> crate::OpenElementRef<'a> {
        crate::OpenElementRef::new(e, self.name(e))
    }

    /// Whether `e` is the HTML element `name`.
    pub(crate) fn is_html(&self, e: &OpenElement, name: &str) -> bool {
        e.ns == Namespace::Html && self.name(e) == name
    }

    /// Pushes a new element `name` of namespace `ns` on top; `known` is what
    /// `names::known(ns, name)` returns. Always inlined (the hot path: a
    /// known name, its entry built in place).
    #[inline(always)]
    pub(crate) fn push_new(
        &mut self,
        id: NodeId,
        name: &str,
        known: Option<u32>,
        ns: Namespace,
        parent: NodeId,
        annotation_xml_html: bool,
    ) {
        debug_assert_eq!(known, names::known(ns, name));
        let e = match known {
            Some(k) if !annotation_xml_html => OpenElement::of_known(id, k, ns, parent),
            _ => self.new_entry(id, name, known, ns, parent, annotation_xml_html),
        };
        self.push(e);
    }

    /// [`Stack::push_new`]'s entry for a name outside the table (its key
    /// made if new) or an HTML `annotation-xml`.
    #[inline(never)]
    fn new_entry(
        &mut self,
        id: NodeId,
        name: &str,
        known: Option<u32>,
        ns: Namespace,
        parent: NodeId,
        annotation_xml_html: bool,
    ) -> OpenElement {
        let (key, mut cats) = match known {
            Some(k) => (k, cats(ns, name, annotation_xml_html)),
            None => {
                let lower = key(ns, name);
                // A foreign name in another case than the table's still gets the known key.
                let known = match ns {
                    Namespace::Html => None,
                    _ => names::known_lowercase(ns, &lower),
                };
                match known {
                    Some(k) => (k, cats(ns, name, annotation_xml_html)),
                    None => {
                        let k = self.intern_other(ns, &lower);
                        (k, self.other[k as usize - names::COUNT].cats)
                    }
                }
            }
        };
        let e = OpenElement { id, parent, key, cats, ns, lists: index_lists(cats) };
        // An HTML name is its own key ([`key`]), or the table's name it
        // equals: only a foreign name can differ in case from its key.
        debug_assert!(ns != Namespace::Html || self.name(&e) == name, "{name}");
        if ns != Namespace::Html && self.name(&e) != name {
            cats |= cat::CASED;
            self.cased.insert(id, name.into());
        }
        OpenElement { cats, ..e }
    }

    /// The key of the name `name` (lowercase) of namespace `ns`, outside the
    /// table: made if new.
    fn intern_other(&mut self, ns: Namespace, name: &str) -> u32 {
        let n = ns_index(ns) as u8;
        // A key freed since has an empty name, one handed out again another
        // name or namespace: only a key that still names `name` matches.
        for &key in &self.recent {
            if let Some(o) = self.other.get((key as usize).wrapping_sub(names::COUNT))
                && o.ns == n
                && *o.name == *name
            {
                return key;
            }
        }
        let key = match self.keys[ns_index(ns)].get(name) {
            Some(&key) => key,
            None => {
                let key = match self.free_keys.pop() {
                    Some(key) => key,
                    None => {
                        self.other.push(OtherKey::default());
                        (names::COUNT + self.other.len() - 1) as u32
                    }
                };
                // A key handed out again keeps its (empty) list: the lists are not
                // freed, so a new one each time would grow with the names a page uses.
                let o = &mut self.other[key as usize - names::COUNT];
                o.name = name.into();
                o.ns = n;
                o.cats = cats(ns, name, false);
                self.keys[ns_index(ns)].insert(name.into(), key);
                key
            }
        };
        self.recent.rotate_right(1);
        self.recent[0] = key;
        key
    }

    /// Drops one reference to the key of `e`; keeps a few hundred unused keys
    /// (the common tag names) and forgets the rest, so memory stays O(stack).
    #[inline(always)]
    fn release(&mut self, e: &OpenElement) {
        let key = e.key;
        if (key as usize) < names::COUNT {
            return;
        }
        let in_use = names::COUNT + self.other.len() - self.free_keys.len();
        let refs = &mut self.other[key as usize - names::COUNT].info.refs;
        *refs -= 1;
        if *refs == 0 && in_use > names::COUNT + 256 {
            let name = std::mem::take(&mut self.other[key as usize - names::COUNT].name);
            self.keys[ns_index(e.ns)].remove(&*name);
            self.free_keys.push(key);
        }
    }

    /// Pushes `e` on top, unindexed (the entry [`FRESH`] below it is
    /// indexed). Always inlined (five callers): the entry moves from its
    /// maker to the vector without a call's copies.
    #[inline(always)]
    pub(crate) fn push(&mut self, e: OpenElement) {
        tick(1);
        self.touched();
        self.add_ref(e.key);
        if !self.html_indexed && e.lists & HTML_LIST == 0 {
            self.index_html();
        }
        self.items.push(e);
        self.live += 1;
        if self.items.len() - self.indexed > FRESH {
            self.index_next();
        }
    }

    /// Indexes the entry at [`Stack::indexed`] (nothing for a hole): its
    /// position goes at the end of its name list and of its category lists,
    /// and into the position map.
    fn index_next(&mut self) {
        let p = self.indexed;
        self.indexed += 1;
        let e = &self.items[p];
        if e.key == NONE {
            return;
        }
        let (key, id) = (e.key, e.id);
        let lists = if self.html_indexed { e.lists } else { e.lists & !HTML_LIST };
        let list = self.name_list(key);
        Stack::append(&mut self.by_name[list], p as u32, &mut self.index_bytes);
        for c in indexed(lists) {
            Stack::append(&mut self.by_cat[c as usize], p as u32, &mut self.index_bytes);
        }
        self.pos_of.insert(id, p as u32);
    }

    /// Indexes every entry.
    fn index_all(&mut self) {
        while self.indexed < self.items.len() {
            self.index_next();
        }
    }

    /// Starts keeping the list of [`cat::HTML`] (a foreign element is being
    /// pushed): the positions of the indexed open elements, all HTML until now.
    #[cold]
    #[inline(never)]
    fn index_html(&mut self) {
        self.html_indexed = true;
        let positions: Vec<u32> =
            (0..self.indexed).filter(|&p| self.items[p].lists & HTML_LIST != 0).map(|p| p as u32).collect();
        tick(positions.len());
        self.index_bytes += positions.capacity() * 4;
        self.by_cat[HTML_LIST.trailing_zeros() as usize] = positions;
    }

    /// Pops the current node, dropping the run of holes below it. Always
    /// inlined (two callers, `Builder::pop` on every element closed).
    #[inline(always)]
    pub(crate) fn pop(&mut self) -> Option<OpenElement> {
        self.items.len().checked_sub(1)?;
        tick(1);
        self.touched();
        let e = self.items.pop().expect("non-empty");
        let was_indexed = self.items.len() < self.indexed;
        self.live -= 1;
        // The current node stays at the top: drop the run of holes below it.
        if let Some(last) = self.items.last()
            && last.key == NONE
        {
            let start = self.run(self.items.len() - 1);
            tick(self.items.len() - start);
            self.items.truncate(start);
            self.holed = self.items.len() != self.live;
        }
        self.indexed = self.indexed.min(self.items.len());
        if was_indexed {
            self.unindexed(&e);
        }
        self.release(&e);
        self.forget_cased(&e);
        Some(e)
    }

    /// Removes the element at position `i`, leaving a hole (O(1), amortized:
    /// its entries stay behind, stale, unless they were last).
    pub(crate) fn remove_at(&mut self, i: usize) -> OpenElement {
        if i + 1 == self.items.len() {
            return self.pop().expect("non-empty");
        }
        tick(1);
        self.touched();
        let e = std::mem::replace(&mut self.items[i], OpenElement::hole());
        self.live -= 1;
        self.holed = true;
        self.join_holes(i, i);
        if i < self.indexed {
            self.unindexed(&e);
        }
        self.release(&e);
        self.forget_cased(&e);
        e
    }

    /// An indexed element `e` left its position (now a hole, or gone): its
    /// entry in the position map goes, and the stale entries that now end
    /// its lists.
    #[inline(always)]
    fn unindexed(&mut self, e: &OpenElement) {
        self.pos_of.remove(&e.id);
        self.clean_name(e.key);
        for c in indexed(e.lists) {
            self.clean_cat(c);
        }
    }

    /// Forgets the name of `e` if it was cased (it left the stack).
    #[inline(always)]
    fn forget_cased(&mut self, e: &OpenElement) {
        if e.cats & cat::CASED != 0 {
            self.cased.remove(&e.id);
        }
    }

    /// Records the holes `lo..=hi` as one run with the runs just below and above.
    fn join_holes(&mut self, lo: usize, hi: usize) {
        let start = if lo > 0 && self.is_hole(lo - 1) { self.run(lo - 1) } else { lo };
        let end = if hi + 1 < self.items.len() && self.is_hole(hi + 1) { self.run(hi + 1) } else { hi };
        self.set_run(start, end);
        self.set_run(end, start);
    }

    /// Replaces the elements at positions `lo..=hi` by `new` (bottom first):
    /// the adoption agency's rewrite of the segment from the formatting
    /// element to the furthest block. `new` must not be longer than the
    /// elements it replaces, and each index list an entry of `new` is in must
    /// hold at least as many of the replaced elements (true for the adoption
    /// agency: the clones have the names of the elements they replace, and
    /// removed elements are just left out). The new entries take the top of
    /// the segment and the freed positions become holes at its bottom;
    /// positions above `hi` do not move.
    ///
    /// # Complexity
    /// O(elements in the segment + runs of holes in it), times the lists they
    /// are in, times `new.len()` (at most five: three clones, the furthest
    /// block, the new formatting element), plus a binary search per list.
    pub(crate) fn rewrite_segment(&mut self, lo: usize, hi: usize, new: Vec<OpenElement>) {
        self.touched();
        self.index_all();
        let mut old = Vec::new();
        let mut p = self.live_from(lo);
        while p <= hi {
            old.push(p);
            p = self.above(p);
        }
        assert!(!new.is_empty() && new.len() <= old.len(), "a segment rewrite keeps or frees positions");
        // The lists the elements of the segment are in: their entries in
        // the segment are rewritten below.
        let mut lists = Vec::with_capacity(2 * old.len());
        let mut left = Vec::with_capacity(old.len());
        for &p in &old {
            tick(1);
            let e = std::mem::replace(&mut self.items[p], OpenElement::hole());
            lists.push(List::Name(e.key));
            let kept = if self.html_indexed { e.lists } else { e.lists & !HTML_LIST };
            lists.extend(indexed(kept).map(List::Cat));
            self.pos_of.remove(&e.id);
            left.push(e);
        }
        self.live -= old.len();
        let first = hi + 1 - new.len();
        let kept: Vec<NodeId> = new.iter().map(|e| e.id).collect();
        for (j, e) in new.into_iter().enumerate() {
            tick(1);
            let p = first + j;
            self.add_ref(e.key);
            // Its name's list made if new (`rewrite_entries` reads it).
            self.name_list(e.key);
            self.pos_of.insert(e.id, p as u32);
            self.items[p] = e;
            self.live += 1;
        }
        if first > lo {
            self.holed = true;
            self.join_holes(lo, first - 1);
        }
        lists.sort_unstable();
        lists.dedup();
        for list in lists {
            self.rewrite_entries(list, lo, first, hi);
        }
        // Keys are released once the lists no longer need them.
        for e in left {
            self.release(&e);
            if !kept.contains(&e.id) {
                self.forget_cased(&e);
            }
        }
    }

    /// [`Stack::rewrite_segment`]'s update of one list: its entries in
    /// `lo..=hi` (consecutive, the list being in order) end with the
    /// positions of its members among the new entries `first..=hi`; the
    /// entries below those that point at `first..=hi` are moved down to the
    /// hole `first - 1` (or, with no hole, to the first new member: a valid
    /// duplicate), so the list stays in order; then the end is cleaned.
    fn rewrite_entries(&mut self, list: List, lo: usize, first: usize, hi: usize) {
        let members: Vec<u32> = (first..=hi).map(|p| p as u32).filter(|&p| self.valid(list, p)).collect();
        let v = self.list(list);
        let a = v.partition_point(|&q| (q as usize) < lo);
        let b = v.partition_point(|&q| q as usize <= hi);
        let k = members.len();
        assert!(b - a >= k, "a segment rewrite adds no entry to an index list");
        tick(1 + k);
        v[b - k..b].copy_from_slice(&members);
        if let Some(&lowest) = members.first() {
            let filler = if first > lo { (first - 1) as u32 } else { lowest };
            for q in v[a..b - k].iter_mut().rev() {
                if (*q as usize) < first {
                    break;
                }
                tick(1);
                *q = filler;
            }
        }
        self.clean(list);
    }

    /// Rebuilds the stack without holes when they outnumber the elements
    /// (amortized O(1) per hole). Positions change: call it only between
    /// tokens (it is, before every token: without holes, the common case,
    /// it reads one flag).
    #[inline]
    pub(crate) fn maybe_compact(&mut self) {
        if !self.holed {
            return;
        }
        let holes = self.items.len() - self.live;
        if holes >= 64 && holes >= self.live {
            self.compact();
        }
    }

    fn compact(&mut self) {
        tick(self.items.len());
        let items = std::mem::take(&mut self.items);
        // The keys (and the names of cased elements) stay; the positions,
        // the index lists and the keys' counts are made again.
        let keys = std::mem::take(&mut self.keys);
        let mut known = std::mem::take(&mut self.known);
        let mut other = std::mem::take(&mut self.other);
        let free_keys = std::mem::take(&mut self.free_keys);
        let cased = std::mem::take(&mut self.cased);
        known.fill(0);
        for o in &mut other {
            o.info = KeyInfo::default();
        }
        let html_indexed = self.html_indexed;
        *self = Stack { keys, known, other, free_keys, cased, html_indexed, ..Stack::default() };
        for e in items {
            if e.id != HOLE_ID {
                self.push(e);
            }
        }
    }

    /// Position of the element `id`, if it is open.
    pub(crate) fn position(&self, id: NodeId) -> Option<usize> {
        match self.fresh_find(|e| e.id == id) {
            Some(p) => Some(p),
            None => self.pos_of.get(&id).map(|&i| i as usize),
        }
    }

    /// The topmost unindexed entry for which `f` holds (a hole's never does).
    #[inline(always)]
    fn fresh_find(&self, f: impl Fn(&OpenElement) -> bool) -> Option<usize> {
        let fresh = &self.items[self.indexed..];
        fresh.iter().rposition(f).map(|i| self.indexed + i)
    }

    /// Position of the topmost (newest) open element `name` of namespace `ns`
    /// (`name` lowercase).
    pub(crate) fn topmost(&self, ns: Namespace, name: &str) -> Option<usize> {
        let key = match names::known_lowercase(ns, name) {
            Some(k) => k,
            None => *self.keys[ns_index(ns)].get(name)?,
        };
        self.topmost_known(key)
    }

    /// Position of the topmost open element with known id `key`.
    pub(crate) fn topmost_known(&self, key: u32) -> Option<usize> {
        if let Some(p) = self.fresh_find(|e| e.key == key) {
            return Some(p);
        }
        let list = self.list_of(key);
        if list == 0 {
            return None;
        }
        self.by_name[list as usize - 1].last().map(|&p| p as usize)
    }

    /// Position of the topmost HTML element with one of `names`.
    pub(crate) fn topmost_html_of(&self, names: &[&str]) -> Option<usize> {
        names.iter().filter_map(|n| self.topmost(Namespace::Html, n)).max()
    }

    /// Position of the topmost element with category bit `c` (an indexed one).
    pub(crate) fn topmost_cat(&self, c: u16) -> Option<usize> {
        // Until the HTML list is kept, every open element is HTML and the
        // topmost is the current node (the last position is never a hole).
        if c == cat::HTML && !self.html_indexed {
            return self.items.len().checked_sub(1);
        }
        // An unindexed entry is above every indexed one.
        if let Some(p) = self.fresh_find(|e| e.cats & c != 0) {
            return Some(p);
        }
        // The lists of the categories that contain another hold only the
        // difference (see `index_lists`).
        let top = |c: u16| self.by_cat[c.trailing_zeros() as usize].last().map(|&p| p as usize);
        match c {
            cat::LIST_ITEM_SCOPE | cat::BUTTON_SCOPE => top(c).max(top(cat::SCOPE)),
            cat::SPECIAL => top(c).max(top(cat::SPECIAL_NOT_ADP)),
            _ => top(c),
        }
    }

    /// Whether an element at position `t` is in the scope whose boundary category is `scope`:
    /// no boundary element lies above it.
    pub(crate) fn position_in_scope(&self, t: usize, scope: u16) -> bool {
        match self.topmost_cat(scope) {
            Some(b) => t >= b,
            None => true,
        }
    }

    /// [Has an element in the specific scope](https://html.spec.whatwg.org/multipage/parsing.html#has-an-element-in-the-specific-scope)
    /// for HTML target names.
    pub(crate) fn has_in_scope_of(&self, names: &[&str], scope: u16) -> bool {
        // The walk starts at the current node: when it is a target (`</td>`
        // in its cell, `</tr>` in its row), the answer is yes at once.
        if self.items.last().is_some_and(|e| e.ns == Namespace::Html && names.contains(&self.name(e))) {
            return true;
        }
        match self.topmost_html_of(names) {
            Some(t) => self.position_in_scope(t, scope),
            None => false,
        }
    }

    /// Whether any open element has one of `names` (HTML).
    pub(crate) fn contains_html(&self, name: &str) -> bool {
        self.topmost(Namespace::Html, name).is_some()
    }

    /// Checks every index, link and run of holes against the entries (the
    /// slow, obvious reference of the indexes; tests only).
    #[cfg(test)]
    pub(crate) fn check_invariants(&self) -> Result<(), String> {
        if self.items.len() - self.indexed > FRESH {
            return Err(format!("{} entries unindexed", self.items.len() - self.indexed));
        }
        // The indexes as they are with every entry indexed.
        let mut all = self.clone();
        all.index_all();
        all.check_indexed()
    }

    /// [`Stack::check_invariants`] of a stack with every entry indexed.
    #[cfg(test)]
    fn check_indexed(&self) -> Result<(), String> {
        let n = self.items.len();
        let live: Vec<usize> = (0..n).filter(|&i| self.items[i].id != HOLE_ID).collect();
        if live.len() != self.live {
            return Err(format!("live count {} != {}", self.live, live.len()));
        }
        if n != self.live && !self.holed {
            return Err("holes, and `holed` not set: they would never be compacted".into());
        }
        if n > 0 && self.is_hole(n - 1) {
            return Err("a hole on top".into());
        }
        for i in 0..n {
            if self.is_hole(i) != (self.items[i].id == HOLE_ID) {
                return Err(format!("slot {i}: hole flags disagree"));
            }
        }
        // Runs of holes: both ends point at each other.
        let mut i = 0;
        while i < n {
            if !self.is_hole(i) {
                i += 1;
                continue;
            }
            let start = i;
            while i < n && self.is_hole(i) {
                i += 1;
            }
            let end = i - 1;
            if self.run(start) != end || self.run(end) != start {
                return Err(format!("run of holes {start}..={end} has ends {} and {}", self.run(start), self.run(end)));
            }
        }
        // Every list is in order, ends with a valid entry, and its valid
        // entries are exactly its members.
        let check_list = |name: String, v: &[u32], list: List| -> Result<(), String> {
            if v.windows(2).any(|w| w[0] > w[1]) {
                return Err(format!("{name}: out of order: {v:?}"));
            }
            if let Some(&last) = v.last()
                && !self.valid(list, last)
            {
                return Err(format!("{name}: last entry {last} is stale"));
            }
            let mut got: Vec<u32> = v.iter().copied().filter(|&q| self.valid(list, q)).collect();
            got.dedup();
            let expected: Vec<u32> = live.iter().map(|&i| i as u32).filter(|&i| self.valid(list, i)).collect();
            if got != expected {
                return Err(format!("{name}: {got:?} != {expected:?}"));
            }
            Ok(())
        };
        // The key of an element, looked up afresh.
        let key_of = |e: &OpenElement| {
            let k = key(e.ns, self.name(e));
            names::known_lowercase(e.ns, &k).or_else(|| self.keys[ns_index(e.ns)].get(&*k).copied())
        };
        for &i in &live {
            if key_of(&self.items[i]) != Some(self.items[i].key) {
                return Err(format!("{i}: wrong key"));
            }
            if self.items[i].lists != index_lists(self.items[i].cats & !cat::CASED) {
                return Err(format!("{i}: wrong index lists"));
            }
            // An other name's categories, kept with its key, are its name's.
            let e = &self.items[i];
            if e.key as usize >= names::COUNT && e.cats & !cat::CASED != cats(e.ns, self.name(e), false) {
                return Err(format!("{i}: wrong categories"));
            }
        }
        for k in 0..(names::COUNT + self.other.len()) as u32 {
            let refs = live.iter().filter(|&&i| self.items[i].key == k).count();
            if k as usize >= names::COUNT {
                let counted = self.other[k as usize - names::COUNT].info.refs;
                if refs != counted as usize {
                    return Err(format!("key {k}: {counted} refs, {refs} elements"));
                }
            }
            let list = match self.list_of(k) {
                0 => &[][..],
                i => &self.by_name[i as usize - 1][..],
            };
            check_list(format!("key {k}"), list, List::Name(k))?;
        }
        for c in 0..cat::INDEXED {
            if 1 << c == HTML_LIST && !self.html_indexed {
                if !self.by_cat[c].is_empty() || live.iter().any(|&i| self.items[i].lists & HTML_LIST == 0) {
                    return Err("a foreign element open, or HTML entries, while the HTML list is not kept".into());
                }
                continue;
            }
            check_list(format!("category {c}"), &self.by_cat[c], List::Cat(c as u32))?;
        }
        if self.pos_of.len() != live.len()
            || live.iter().any(|&i| self.pos_of.get(&self.items[i].id) != Some(&(i as u32)))
        {
            return Err("pos_of differs".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Stack;
    use crate::tags::cat;
    use crate::{Namespace, NodeId, names};

    /// The known names' index lists read from the table are those
    /// [`super::index_lists`] gives their categories, id by id.
    #[test]
    fn known_lists_are_index_lists() {
        for i in 0..names::COUNT {
            assert_eq!(
                super::KNOWN_LISTS[i],
                super::index_lists(names::cats_of(i as u32)),
                "{}",
                names::name(i as u32)
            );
        }
    }

    /// Whether `name` is in table scope, after pushing `open` (bottom first).
    fn in_table_scope(open: &[(&str, Namespace)], name: &str) -> bool {
        let mut stack = Stack::default();
        for (i, &(n, ns)) in open.iter().enumerate() {
            stack.push_new(NodeId(i as u64 + 1), n, names::known(ns, n), ns, NodeId(i as u64), false);
        }
        stack.has_in_scope_of(&[name], cat::TABLE_SCOPE)
    }

    /// The scope question's shortcut for a current node that is a target
    /// takes only an HTML element: an SVG `td` on top is not the HTML `td`
    /// (and a `table` below it ends the walk).
    #[test]
    fn scope_shortcut_takes_only_html_targets() {
        use Namespace::{Html, Svg};
        assert!(in_table_scope(&[("html", Html), ("table", Html), ("tr", Html), ("td", Html)], "td"));
        assert!(!in_table_scope(&[("html", Html), ("table", Html), ("td", Svg)], "td"));
        assert!(in_table_scope(&[("html", Html), ("td", Html), ("td", Svg)], "td"));
        assert!(!in_table_scope(&[("html", Html), ("td", Html), ("table", Html), ("span", Html)], "td"));
    }
}
