//! The [list of active formatting elements](https://html.spec.whatwg.org/multipage/parsing.html#list-of-active-formatting-elements),
//! with indexes by name and by (name, attributes) signature so that the
//! searches of the adoption agency and the Noah's Ark clause stay O(1).

use std::hash::{BuildHasher, Hash, Hasher};

use htrewrite_tokenizer::{Feedback, Span, Token, TokenKind, TokenSink, Tokenizer};

use crate::idhash::{IdMap, PosMap};
use crate::work::tick;
use crate::{NodeId, ShadowAttr};

/// One formatting element of the list: its id and the token it was made for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FormattingElement {
    pub id: NodeId,
    /// The name's known id (`crate::names`): formatting elements have known
    /// names (see [`FormattingElement::name`]).
    pub key: u32,
    /// The attributes, decoded (empty while `raw` holds them undecoded).
    pub attrs: Vec<ShadowAttr>,
    /// The start tag's bytes, when its attributes were not decoded (a sink
    /// that does not read them): read again and decoded into `attrs` the
    /// first time something needs them ([`FormattingElement::decode_attrs`]:
    /// a Noah's Ark comparison or a clone), which most elements never do.
    pub raw: Option<Vec<u8>>,
    pub span: Span,
    /// The signature, once the element has a namesake in the list (`None`
    /// before: an element alone with its name needs no Noah's Ark check).
    sig: Option<u64>,
}

/// An entry: a formatting element or a marker (or the tombstone of a
/// removed element, skipped by everything; removal in the middle is O(1)
/// that way, and tombstones are compacted away in amortized O(1)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Entry {
    Marker,
    /// Boxed, so that a marker or a tombstone is a small entry (issue 16:
    /// each open cell pushes a marker); the boxes of elements leaving the
    /// list are kept for the next ones ([`FormattingList::recycle`]).
    Element(Box<FormattingElement>),
    /// A removed element's name key and signature: its index entries may stay
    /// behind (stale) below the top of their lists until its position is popped.
    Dead(Tomb),
}

/// What a tombstone keeps: a name key and an optional signature, in 16
/// bytes with the entry's tag (the bool's spare values hold it), where
/// `(u32, Option<u64>)` made every entry 24 (issue 16: an open table cell
/// holds a marker entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tomb {
    key: u32,
    signed: bool,
    sig: u64,
}

impl Tomb {
    fn new(key: u32, sig: Option<u64>) -> Tomb {
        Tomb { key, signed: sig.is_some(), sig: sig.unwrap_or(0) }
    }

    /// The name key and the signature.
    fn parts(self) -> (u32, Option<u64>) {
        (self.key, self.signed.then_some(self.sig))
    }
}

/// The positions of the elements with one name, and whether they all have
/// their signature (always so when there are two or more).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct NameList {
    /// The name key.
    key: u32,
    positions: Vec<u32>,
    all_signed: bool,
}

/// The list with its indexes. The index lists hold positions in increasing
/// order; an entry whose position holds a tombstone is stale and skipped, and
/// the last entry of a list is never stale.
///
/// Only the entries below [`FormattingList::indexed`] are in the indexes
/// (`by_name`, `by_sig`, `pos_of`); the few above it, at most [`FRESH`],
/// are searched one by one. Most formatting elements (`<a>…</a>`,
/// `<code>…</code>`) leave the list as its last entry soon after they join
/// it: they are never indexed (issue 16: indexing and unindexing one cost
/// about 150 instructions). Each entry is indexed at most once while it
/// stays, so the searches stay O(1) and the work amortized O(1).
#[derive(Debug, Default, Clone)]
pub(crate) struct FormattingList {
    entries: Vec<Entry>,
    /// The entries at positions below this one are indexed; the others
    /// (at most [`FRESH`]) are not.
    indexed: usize,
    markers: Vec<u32>,
    /// By name key, in the order first used: formatting elements have one
    /// of the Standard's 14 names, so a search is short, and the lists a
    /// page never uses take no memory (a table by key was 3.8 KiB).
    by_name: Vec<NameList>,
    /// Signatures are SipHash values with this list's random keys
    /// ([`FormattingList::keys`]): a cheap hash of them is enough.
    by_sig: IdMap<u64, Vec<u32>>,
    /// The keys of the signatures, random per list: with fixed keys a page
    /// could be made of attributes whose signatures collide in `by_sig`,
    /// making each search linear.
    keys: std::collections::hash_map::RandomState,
    pos_of: PosMap,
    dead: usize,
    /// Attribute lists of elements gone from the list, emptied and kept (at
    /// most [`SPARE_LISTS`]), and their attributes (at most
    /// [`SPARE_LISTS`] × [`SPARE_ATTRS`]), so that copying a new element's
    /// attributes reuses their buffers instead of allocating.
    spare: Vec<Vec<ShadowAttr>>,
    spare_attrs: Vec<ShadowAttr>,
    /// The tag buffers of elements gone from the list whose attributes were
    /// not decoded, kept likewise (at most [`SPARE_LISTS`], of [`SPARE_RAW`] bytes).
    spare_raw: Vec<Vec<u8>>,
    /// The boxes of elements gone from the list (at most [`SPARE_LISTS`]),
    /// so that a new entry allocates none.
    #[allow(clippy::vec_box)]
    spare_boxes: Vec<Box<FormattingElement>>,
}

/// How many entries at the end of the list stay out of the indexes.
const FRESH: usize = 8;

/// How many attribute lists [`FormattingList`] keeps for reuse, and how
/// many attributes and bytes a string of one may have to be kept.
const SPARE_LISTS: usize = 16;
const SPARE_ATTRS: usize = 8;
const SPARE_CAPACITY: usize = 256;
const SPARE_RAW: usize = 1024;

/// Decodes the attributes of the start tag whose bytes are `raw` into
/// `attrs`, as [`fill_attributes`](crate::shadow::fill_attributes) decodes
/// a tag's: the tag is read again by a tokenizer, which finds the same
/// attributes in the same bytes (a start tag is read from the data state,
/// whatever the tree around it), so an entry keeps its tag's bytes and not
/// their spans (issue 16: 48 bytes per attribute).
fn read_attributes(raw: &[u8], attrs: &mut Vec<ShadowAttr>) {
    struct StartTag<'a>(&'a mut Vec<ShadowAttr>);
    impl TokenSink for StartTag<'_> {
        fn token(&mut self, t: &Token<'_>) -> Feedback {
            if t.kind() == TokenKind::StartTag {
                crate::shadow::fill_attributes(self.0, t.raw(), t.attribute_spans(), &mut Vec::new(), true);
            }
            Feedback::default()
        }
    }
    let mut tokenizer = Tokenizer::new();
    tokenizer.feed(raw, &mut StartTag(attrs));
    debug_assert_eq!(tokenizer.buffered_len(), 0, "a whole start tag");
}

/// Hash of the name and the attributes as a set (order does not matter),
/// with the keys `keys`.
fn signature(name: &str, attrs: &[ShadowAttr], keys: &std::collections::hash_map::RandomState) -> u64 {
    if attrs.is_empty() {
        // No attributes (common): the names of formatting elements are a fixed
        // few, so a cheap hash of the name groups them without SipHash.
        let mut h = rustc_hash::FxHasher::default();
        h.write(name.as_bytes());
        return h.finish();
    }
    let mut h = keys.build_hasher();
    name.hash(&mut h);
    if let [a] = attrs {
        // One attribute (the common case): one hasher.
        a.hash(&mut h);
        return h.finish();
    }
    let mut acc: u64 = 0;
    for a in attrs {
        acc = acc.wrapping_add(keys.hash_one(a));
    }
    acc.hash(&mut h);
    attrs.len().hash(&mut h);
    h.finish()
}

/// Whether two attribute lists are equal as sets of (name, namespace, value).
///
/// # Complexity
/// O(n log n) for n attributes (names are unique within a tag).
fn same_attrs(a: &[ShadowAttr], b: &[ShadowAttr]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if a.len() <= 8 {
        return a.iter().all(|x| b.contains(x));
    }
    let key = |x: &&ShadowAttr| (x.namespace as u8, x.name.clone(), x.value.clone());
    let mut sa: Vec<&ShadowAttr> = a.iter().collect();
    let mut sb: Vec<&ShadowAttr> = b.iter().collect();
    sa.sort_by_key(key);
    sb.sort_by_key(key);
    sa == sb
}

impl FormattingElement {
    /// An entry (`name` and its known id `key` as the stack's element has them).
    pub(crate) fn new(id: NodeId, key: u32, attrs: Vec<ShadowAttr>, span: Span) -> FormattingElement {
        debug_assert!((key as usize) < crate::names::COUNT);
        FormattingElement { id, key, attrs, raw: None, span, sig: None }
    }

    /// The element's name.
    pub(crate) fn name(&self) -> &'static str {
        crate::names::name(self.key)
    }

    /// Decodes the attributes kept undecoded in `raw`, if any.
    pub(crate) fn decode_attrs(&mut self) {
        if let Some(raw) = self.raw.take() {
            read_attributes(&raw, &mut self.attrs);
        }
    }

    /// The signature of the name and the (decoded) attributes.
    fn signature(&mut self, keys: &std::collections::hash_map::RandomState) -> u64 {
        self.decode_attrs();
        signature(self.name(), &self.attrs, keys)
    }
}

impl FormattingList {
    /// The heap bytes of the list's entries and indexes, by capacity (the
    /// entries' attribute buffers not included).
    pub(crate) fn held_bytes(&self) -> usize {
        self.entries.capacity() * std::mem::size_of::<Entry>()
            + self.markers.capacity() * 4
            + self.by_sig.capacity() * (8 + std::mem::size_of::<Vec<u32>>() + 1)
            + self.pos_of.held_bytes()
    }

    /// Physical length (tombstones included): the bound of positions.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Number of live entries (elements and markers).
    pub(crate) fn live_len(&self) -> usize {
        self.entries.len() - self.dead
    }

    pub(crate) fn get(&self, i: usize) -> &Entry {
        &self.entries[i]
    }

    /// Position just after the last marker (0 when there is none).
    pub(crate) fn after_last_marker(&self) -> usize {
        self.markers.last().map_or(0, |&m| m as usize + 1)
    }

    pub(crate) fn push_marker(&mut self) {
        self.push_entry(Entry::Marker);
    }

    /// The index list of name key `key`, made if new.
    fn name_list(&mut self, key: u32) -> &mut NameList {
        let i = match self.by_name.iter().position(|l| l.key == key) {
            Some(i) => i,
            None => {
                self.by_name.push(NameList { key, ..NameList::default() });
                self.by_name.len() - 1
            }
        };
        &mut self.by_name[i]
    }

    /// The index list of name key `key`, if made.
    fn find_list(&self, key: u32) -> Option<&NameList> {
        self.by_name.iter().find(|l| l.key == key)
    }

    /// [`FormattingList::find_list`], to change.
    fn find_list_mut(&mut self, key: u32) -> Option<&mut NameList> {
        self.by_name.iter_mut().find(|l| l.key == key)
    }

    /// Appends `e`, unindexed; the oldest unindexed entry is indexed if
    /// there are [`FRESH`] already.
    #[inline]
    fn push_entry(&mut self, e: Entry) {
        tick(1);
        let i = self.entries.len() as u32;
        match &e {
            Entry::Dead(..) => self.dead += 1,
            Entry::Marker => self.markers.push(i),
            Entry::Element(_) => {}
        }
        self.entries.push(e);
        if self.entries.len() - self.indexed > FRESH {
            self.index_next();
        }
    }

    /// Indexes the entry at [`FormattingList::indexed`]: an element joins
    /// the lists of its name and signature (signed, and its namesakes with
    /// it, when it has namesakes: see [`FormattingList::prepare_signing`]).
    fn index_next(&mut self) {
        let i = self.indexed;
        self.indexed += 1;
        let key = match &self.entries[i] {
            Entry::Element(f) => f.key,
            Entry::Marker | Entry::Dead(..) => return,
        };
        let signing = self.prepare_signing(key);
        let Entry::Element(f) = &mut self.entries[i] else { unreachable!("an element") };
        if signing && f.sig.is_none() {
            f.sig = Some(f.signature(&self.keys));
        }
        let (sig, id) = (f.sig, f.id);
        let list = self.name_list(key);
        list.all_signed = sig.is_some() && (list.positions.is_empty() || list.all_signed);
        list.positions.push(i as u32);
        if let Some(sig) = sig {
            self.by_sig.entry(sig).or_default().push(i as u32);
        }
        self.pos_of.insert(id, i as u32);
    }

    /// Indexes every entry (before the searches and moves of the adoption
    /// agency's [`FormattingList::insert_at`]).
    fn index_all(&mut self) {
        while self.indexed < self.entries.len() {
            self.index_next();
        }
    }

    /// The unindexed entries, with their positions, last first.
    fn fresh(&self) -> impl Iterator<Item = (usize, &Entry)> {
        self.entries.iter().enumerate().skip(self.indexed).rev()
    }

    #[inline]
    fn pop_entry(&mut self) -> Option<Entry> {
        tick(1);
        let e = self.entries.pop()?;
        let top = self.entries.len();
        let was_indexed = top < self.indexed;
        self.indexed = self.indexed.min(top);
        match &e {
            Entry::Marker => {
                self.markers.pop();
            }
            Entry::Element(f) if was_indexed => {
                self.unindex(f.key, f.sig, top as u32);
                self.pos_of.remove(&f.id);
            }
            Entry::Element(_) => {}
            Entry::Dead(tomb) => {
                self.dead -= 1;
                if was_indexed {
                    let (key, sig) = tomb.parts();
                    self.unindex(key, sig, top as u32);
                }
            }
        }
        Some(e)
    }

    /// Drops position `i` from the ends of the index lists of name key `key`
    /// and of `sig` if it is there, and the stale entries that then end them.
    fn unindex(&mut self, key: u32, sig: Option<u64>, i: u32) {
        let entries = &self.entries;
        let trim = |v: &mut Vec<u32>| {
            if v.last() == Some(&i) {
                v.pop();
            }
            while let Some(&j) = v.last()
                && matches!(entries.get(j as usize), Some(Entry::Dead(..)) | None)
            {
                tick(1);
                v.pop();
            }
            v.is_empty()
        };
        if let Some(l) = self.by_name.iter_mut().find(|l| l.key == key) {
            trim(&mut l.positions);
        }
        // Empty signature lists are kept (no allocation when the signature comes
        // again) while there are few; beyond that they are dropped so memory stays O(list).
        if let Some(sig) = sig
            && self.by_sig.get_mut(&sig).is_some_and(trim)
            && self.by_sig.len() > 64
        {
            self.by_sig.remove(&sig);
        }
    }

    /// [`FormattingList::kill`] of the last entry, an element (the common
    /// `<b>x</b>`: the element leaves the list soon after it joined). When
    /// the element is not indexed, that is what `kill` does, without its
    /// general steps: pop it (no index entry to drop:
    /// [`FormattingList::pop_entry`] of an unindexed element), recycle it,
    /// then drop the tombstones that end the list.
    #[inline]
    pub(crate) fn kill_last(&mut self) {
        let top = self.entries.len() - 1;
        if top < self.indexed || !matches!(self.entries[top], Entry::Element(_)) {
            return self.kill(top);
        }
        tick(1);
        if let Some(e) = self.entries.pop() {
            self.recycle(e);
        }
        while matches!(self.entries.last(), Some(Entry::Dead(..))) {
            self.pop_entry();
        }
    }

    /// Removes the element at `i` in O(1) amortized, leaving a tombstone
    /// (its index entries become stale).
    pub(crate) fn kill(&mut self, i: usize) {
        tick(1);
        let Entry::Element(f) = &self.entries[i] else {
            return;
        };
        if i + 1 == self.entries.len() {
            // The last entry (the common case): just pop it.
            if let Some(e) = self.pop_entry() {
                self.recycle(e);
            }
            while matches!(self.entries.last(), Some(Entry::Dead(..))) {
                self.pop_entry();
            }
            return;
        }
        let dead = Entry::Dead(Tomb::new(f.key, f.sig));
        let Entry::Element(f) = std::mem::replace(&mut self.entries[i], dead) else { unreachable!() };
        self.dead += 1;
        if i < self.indexed {
            self.pos_of.remove(&f.id);
            self.unindex(f.key, f.sig, i as u32);
        }
        self.recycle(Entry::Element(f));
        // Keep the invariant: the last entry is never a tombstone.
        while matches!(self.entries.last(), Some(Entry::Dead(..))) {
            self.pop_entry();
        }
    }

    /// Drops the tombstones when they are the majority (amortized O(1)).
    fn compact(&mut self) {
        if self.dead < 64 || self.dead * 2 < self.entries.len() {
            return;
        }
        let mut all = Vec::with_capacity(self.entries.len());
        while let Some(e) = self.pop_entry() {
            all.push(e);
        }
        while let Some(e) = all.pop() {
            if !matches!(e, Entry::Dead(..)) {
                self.push_entry(e);
            }
        }
    }

    /// Inserts at `i`: in O(1) over a tombstone at `i`, else by moving the entries from `i` up.
    pub(crate) fn insert_at(&mut self, i: usize, mut e: Entry) {
        self.index_all();
        if let Entry::Element(f) = &mut e
            && self.prepare_signing(f.key)
        {
            f.sig = Some(f.signature(&self.keys));
        }
        if let Some(Entry::Dead(..)) = self.entries.get(i) {
            // A tombstone between the neighbours: take its place.
            let Entry::Dead(tomb) = std::mem::replace(&mut self.entries[i], Entry::Marker) else { unreachable!() };
            let (key, sig) = tomb.parts();
            self.dead -= 1;
            self.drop_stale(key, sig, i as u32);
            let Entry::Element(f) = &e else { unreachable!("only elements are inserted") };
            let (key, sig, id) = (f.key, f.sig, f.id);
            self.entries[i] = e;
            self.pos_of.insert(id, i as u32);
            let list = self.name_list(key);
            list.all_signed = sig.is_some() && (list.positions.is_empty() || list.all_signed);
            Self::insert_sorted(&mut list.positions, i as u32);
            if let Some(sig) = sig {
                Self::insert_sorted(self.by_sig.entry(sig).or_default(), i as u32);
            }
            return;
        }
        let mut tail = Vec::with_capacity(self.entries.len() - i);
        while self.entries.len() > i {
            tail.push(self.pop_entry().expect("non-empty"));
        }
        self.push_entry(e);
        while let Some(t) = tail.pop() {
            self.push_entry(t);
        }
    }

    /// Removes a stale entry for position `i` from the index lists of name key `key` and `sig`.
    fn drop_stale(&mut self, key: u32, sig: Option<u64>, i: u32) {
        let remove = |v: &mut Vec<u32>| {
            if let Ok(k) = v.binary_search(&i) {
                tick(v.len() - k);
                v.remove(k);
            }
            v.is_empty()
        };
        if let Some(l) = self.find_list_mut(key) {
            remove(&mut l.positions);
        }
        if let Some(sig) = sig
            && self.by_sig.get_mut(&sig).is_some_and(remove)
        {
            self.by_sig.remove(&sig);
        }
    }

    fn insert_sorted(v: &mut Vec<u32>, i: u32) {
        let k = v.partition_point(|&j| j < i);
        tick(v.len() - k);
        v.insert(k, i);
    }

    /// [Push onto the list of active formatting elements](https://html.spec.whatwg.org/multipage/parsing.html#push-onto-the-list-of-active-formatting-elements),
    /// with the Noah's Ark clause: at most three equal elements after the last marker.
    /// Before an element with name key `key` joins the list: whether it has
    /// namesakes, in which case they all get their signatures (each element
    /// is signed once, so this is amortized O(1)) and so must it.
    fn prepare_signing(&mut self, key: u32) -> bool {
        let Some(list) = self.find_list_mut(key) else { return false };
        if list.positions.is_empty() {
            return false;
        }
        if !list.all_signed {
            list.all_signed = true;
            let positions = list.positions.clone();
            for j in positions {
                tick(1);
                if let Entry::Element(g) = &mut self.entries[j as usize]
                    && g.sig.is_none()
                {
                    let sig = g.signature(&self.keys);
                    g.sig = Some(sig);
                    Self::insert_sorted(self.by_sig.entry(sig).or_default(), j);
                }
            }
        }
        true
    }

    /// A copy of `attrs` for a new entry, in a kept list's buffers when there is one.
    pub(crate) fn copy_attrs(&mut self, attrs: &[ShadowAttr]) -> Vec<ShadowAttr> {
        if attrs.is_empty() {
            return Vec::new();
        }
        let mut copy = self.spare.pop().unwrap_or_default();
        copy.reserve(attrs.len());
        for from in attrs {
            copy.push(match self.spare_attrs.pop() {
                Some(mut to) => {
                    to.clone_from(from);
                    to
                }
                None => from.clone(),
            });
        }
        copy
    }

    /// A buffer for the tag of a new entry whose attributes are not decoded:
    /// empty, a kept one when there is.
    pub(crate) fn spare_raw(&mut self) -> Vec<u8> {
        self.spare_raw.pop().unwrap_or_default()
    }

    /// Keeps the attribute list (or undecoded attributes) of an entry that
    /// leaves the list, if there is room for it, and its box.
    #[inline(always)]
    fn recycle(&mut self, e: Entry) {
        let Entry::Element(mut f) = e else { return };
        if let Some(r) = f.raw.take()
            && self.spare_raw.len() < SPARE_LISTS
            && r.capacity() <= SPARE_RAW
        {
            self.spare_raw.push(r);
        }
        if f.attrs.capacity() > 0 {
            self.keep_attrs(std::mem::take(&mut f.attrs));
        }
        // A kept box holds neither attributes nor tag bytes.
        if self.spare_boxes.len() < SPARE_LISTS {
            self.spare_boxes.push(f);
        }
    }

    /// [`FormattingList::recycle`] of an attribute list: kept, with its
    /// attributes, if it is small and there is room.
    #[inline(never)]
    fn keep_attrs(&mut self, mut attrs: Vec<ShadowAttr>) {
        if attrs.capacity() > SPARE_ATTRS || self.spare.len() >= SPARE_LISTS {
            return;
        }
        for a in attrs.drain(..) {
            if self.spare_attrs.len() < SPARE_LISTS * SPARE_ATTRS
                && a.name.capacity() <= SPARE_CAPACITY
                && a.value.capacity() <= SPARE_CAPACITY
            {
                self.spare_attrs.push(a);
            }
        }
        self.spare.push(attrs);
    }

    /// A new element (for [`FormattingList::push`] or an adoption-agency
    /// clone's [`FormattingList::insert_at`]), without attributes, in a kept
    /// box when there is one (built in place: no element moved).
    #[inline(always)]
    pub(crate) fn new_element(&mut self, id: NodeId, key: u32, span: Span) -> Box<FormattingElement> {
        match self.spare_boxes.pop() {
            Some(mut b) => {
                // A kept box holds neither attributes nor tag bytes (see `recycle`).
                debug_assert!(b.attrs.is_empty() && b.raw.is_none());
                b.id = id;
                b.key = key;
                b.span = span;
                b.sig = None;
                b
            }
            None => Box::new(FormattingElement::new(id, key, Vec::new(), span)),
        }
    }

    /// Pushes `f` (from [`FormattingList::new_element`]): the Noah's Ark
    /// clause, then the entry.
    pub(crate) fn push(&mut self, mut f: Box<FormattingElement>) {
        let floor = self.after_last_marker();
        // The equal elements after the last marker, latest first: at most
        // three are looked for (counted, not collected: no allocation).
        let (mut same, mut earliest) = (0, 0);
        // Unindexed ones, compared one by one (a namesake is rare: most
        // formatting elements are closed before another of their name opens).
        let start = self.indexed.max(floor);
        for i in (start..self.entries.len()).rev() {
            tick(1);
            if let Entry::Element(g) = &mut self.entries[i]
                && g.key == f.key
            {
                g.decode_attrs();
                f.decode_attrs();
                if same_attrs(&g.attrs, &f.attrs) {
                    same += 1;
                    earliest = i;
                }
            }
        }
        // Indexed ones, by signature.
        if same < 3 && floor < self.indexed && self.prepare_signing(f.key) {
            let sig = f.signature(&self.keys);
            f.sig = Some(sig);
            if let Some(v) = self.by_sig.get(&sig) {
                for &i in v.iter().rev() {
                    tick(1);
                    let i = i as usize;
                    // At most three equal elements follow the last marker.
                    if i < floor || same == 3 {
                        break;
                    }
                    if let Entry::Element(g) = &self.entries[i]
                        && g.key == f.key
                        && same_attrs(&g.attrs, &f.attrs)
                    {
                        same += 1;
                        earliest = i;
                    }
                }
            }
        }
        if same >= 3 {
            self.kill(earliest);
        }
        self.compact();
        self.push_entry(Entry::Element(f));
    }

    /// [Clear the list of active formatting elements up to the last marker](https://html.spec.whatwg.org/multipage/parsing.html#clear-the-list-of-active-formatting-elements-up-to-the-last-marker).
    pub(crate) fn clear_to_last_marker(&mut self) {
        while let Some(e) = self.pop_entry() {
            if e == Entry::Marker {
                break;
            }
            self.recycle(e);
        }
    }

    /// Position of the last element named `name` after the last marker.
    pub(crate) fn last_named_after_marker(&self, name: &str) -> Option<usize> {
        self.last_keyed_after_marker(crate::names::known(crate::Namespace::Html, name)?)
    }

    /// [`FormattingList::last_named_after_marker`] by the name's known id.
    #[inline]
    pub(crate) fn last_keyed_after_marker(&self, key: u32) -> Option<usize> {
        let floor = self.after_last_marker();
        for (i, e) in self.fresh() {
            if i < floor {
                return None;
            }
            if matches!(e, Entry::Element(f) if f.key == key) {
                return Some(i);
            }
        }
        let i = *self.find_list(key)?.positions.last()? as usize;
        (i >= floor).then_some(i)
    }

    /// The id of the last entry if it is an element (the last entry is never a tombstone).
    pub(crate) fn last_element_id(&self) -> Option<NodeId> {
        match self.entries.last() {
            Some(Entry::Element(f)) => Some(f.id),
            _ => None,
        }
    }

    /// Position of the element `id` in the list.
    pub(crate) fn position(&self, id: NodeId) -> Option<usize> {
        match self.fresh().find(|(_, e)| matches!(e, Entry::Element(f) if f.id == id)) {
            Some((i, _)) => Some(i),
            None => self.pos_of.get(&id).map(|&i| i as usize),
        }
    }

    /// Replaces the element of entry `i` by a clone with the same token (same name and attributes).
    pub(crate) fn set_id(&mut self, i: usize, id: NodeId) {
        if let Entry::Element(f) = &mut self.entries[i] {
            if i < self.indexed {
                self.pos_of.remove(&f.id);
                self.pos_of.insert(id, i as u32);
            }
            f.id = id;
        }
    }

    pub(crate) fn element(&self, i: usize) -> Option<&FormattingElement> {
        match &self.entries[i] {
            Entry::Element(f) => Some(f),
            Entry::Marker | Entry::Dead(..) => None,
        }
    }

    /// [`FormattingList::element`] with its attributes decoded (for a clone).
    pub(crate) fn element_decoded(&mut self, i: usize) -> Option<&FormattingElement> {
        match &mut self.entries[i] {
            Entry::Element(f) => {
                f.decode_attrs();
                Some(f)
            }
            Entry::Marker | Entry::Dead(..) => None,
        }
    }

    /// Recomputes every index from the entries and compares, stale entries
    /// left out (tests only).
    #[cfg(test)]
    pub(crate) fn check_invariants(&self) -> Result<(), String> {
        if self.entries.len() - self.indexed > FRESH {
            return Err(format!("{} entries unindexed", self.entries.len() - self.indexed));
        }
        // The indexes as they would be with every entry indexed.
        let mut all = self.clone();
        all.index_all();
        let this = &all;
        let mut rebuilt = FormattingList { keys: this.keys.clone(), ..FormattingList::default() };
        for e in &this.entries {
            rebuilt.push_entry(e.clone());
        }
        rebuilt.index_all();
        let valid = |v: &Vec<u32>| -> Result<Vec<u32>, String> {
            if v.windows(2).any(|w| w[0] >= w[1]) {
                return Err(format!("index list not increasing: {v:?}"));
            }
            match v.last().map(|&j| &this.entries[j as usize]) {
                Some(Entry::Element(_)) => {}
                _ => return Err(format!("index list ends stale: {v:?}")),
            }
            Ok(v.iter().copied().filter(|&j| matches!(this.entries[j as usize], Entry::Element(_))).collect())
        };
        let by_name: IdMap<u32, Vec<u32>> = this
            .by_name
            .iter()
            .filter(|l| !l.positions.is_empty())
            .map(|l| Ok((l.key, valid(&l.positions)?)))
            .collect::<Result<_, String>>()?;
        let rebuilt_by_name: IdMap<u32, Vec<u32>> =
            rebuilt.by_name.iter().filter(|l| !l.positions.is_empty()).map(|l| (l.key, l.positions.clone())).collect();
        for (key, positions) in &by_name {
            let name = crate::names::name(*key);
            let signed = |&j: &u32| matches!(&this.entries[j as usize], Entry::Element(f) if f.sig.is_some());
            if positions.len() >= 2 && !positions.iter().all(signed) {
                return Err(format!("{name:?}: namesakes without signatures"));
            }
        }
        let by_sig: IdMap<u64, Vec<u32>> = this
            .by_sig
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| Ok((*k, valid(v)?)))
            .collect::<Result<_, String>>()?;
        if rebuilt_by_name != by_name || rebuilt.by_sig != by_sig || rebuilt.pos_of != this.pos_of {
            return Err("formatting list indexes differ".into());
        }
        if rebuilt.markers != this.markers || rebuilt.dead != this.dead {
            return Err("formatting list markers or tombstone count differ".into());
        }
        if matches!(this.entries.last(), Some(Entry::Dead(..))) {
            return Err("tombstone at the end".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{Entry, FormattingList};
    use crate::{NodeId, ShadowAttr, names};
    use htrewrite_testkit::{Random, SplitMix64};
    use htrewrite_tokenizer::Span;

    /// The state two lists must share to behave alike from here on.
    fn same(a: &FormattingList, b: &FormattingList) -> Result<(), String> {
        let parts = [
            ("entries", a.entries == b.entries),
            ("indexed", a.indexed == b.indexed),
            ("markers", a.markers == b.markers),
            ("by_name", a.by_name == b.by_name),
            ("by_sig", a.by_sig == b.by_sig),
            ("pos_of", a.pos_of == b.pos_of),
            ("dead", a.dead == b.dead),
            ("spare", a.spare.len() == b.spare.len() && a.spare_attrs.len() == b.spare_attrs.len()),
            ("spare_raw", a.spare_raw.len() == b.spare_raw.len()),
            ("spare_boxes", a.spare_boxes.len() == b.spare_boxes.len()),
        ];
        match parts.iter().find(|(_, ok)| !ok) {
            Some((what, _)) => Err(format!("{what} differ")),
            None => Ok(()),
        }
    }

    /// `kill_last` (the fast path for the last entry) leaves the list as
    /// `kill(len - 1)` does, on random lists of namesakes with and without
    /// attributes (decoded, or kept as tag bytes), markers, tombstones and
    /// indexed entries (`index_all`, what the adoption agency does first):
    /// with the fast path taken for an indexed element, its index entries
    /// would stay behind and `by_name`/`pos_of` differ.
    #[test]
    fn kill_last_is_kill_of_the_last_entry() {
        let keys = [names::html("b"), names::html("i"), names::html("a")];
        let mut fast_taken = 0;
        let mut indexed_seen = 0;
        for seed in 0..40u64 {
            let mut rng = SplitMix64::new(seed);
            let mut a = FormattingList::default();
            let mut b = a.clone();
            let mut next_id = 1u64;
            for step in 0..2_000 {
                let r = rng.below(20);
                let what = if r < 9 {
                    let key = keys[rng.below(keys.len())];
                    let id = NodeId(next_id);
                    next_id += 1;
                    let span = Span::new(step, step + 1);
                    let attrs = rng.below(4);
                    for list in [&mut a, &mut b] {
                        let mut f = list.new_element(id, key, span);
                        match attrs {
                            1 => f.raw = Some(b"<b class=x>".to_vec()),
                            2 => {
                                let v = if step % 2 == 0 { "x" } else { "y" };
                                f.attrs = vec![ShadowAttr {
                                    name: "class".into(),
                                    namespace: Default::default(),
                                    value: v.into(),
                                }];
                            }
                            _ => {}
                        }
                        list.push(f);
                    }
                    "push"
                } else if r < 10 {
                    a.push_marker();
                    b.push_marker();
                    "marker"
                } else if r < 11 {
                    a.clear_to_last_marker();
                    b.clear_to_last_marker();
                    "clear"
                } else if r < 13 && a.len() > a.after_last_marker() + 1 {
                    // The Standard removes only elements after the last marker.
                    let floor = a.after_last_marker();
                    let i = floor + rng.below(a.len() - 1 - floor);
                    a.kill(i);
                    b.kill(i);
                    "kill in the middle"
                } else if r < 14 {
                    a.index_all();
                    b.index_all();
                    "index all"
                } else if let Some(Entry::Element(_)) = a.entries.last() {
                    let top = a.len() - 1;
                    if top < a.indexed {
                        indexed_seen += 1;
                    } else {
                        fast_taken += 1;
                    }
                    a.kill_last();
                    b.kill(top);
                    "kill the last"
                } else {
                    continue;
                };
                if let Err(e) = same(&a, &b).and_then(|()| a.check_invariants()) {
                    panic!("seed {seed}, step {step}, after {what}: {e}");
                }
            }
        }
        // Both paths were taken, many times.
        assert!(fast_taken > 1_000 && indexed_seen > 100, "fast {fast_taken}, indexed {indexed_seen}");
    }
}
