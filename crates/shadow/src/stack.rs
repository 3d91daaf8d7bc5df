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
//! The indexes are doubly linked lists threaded through the positions: one
//! per (namespace, lowercased name) and one per category of [`cat`] (up to
//! [`cat::INDEXED`]), each with its topmost position as head. A push or pop
//! links or unlinks the element in O(1) per list it is in; a removal in the
//! middle unlinks it in O(1); the adoption agency's rewrite of the segment
//! from the formatting element to the furthest block relinks only the
//! elements of that segment.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::idhash::PosMap;
use crate::names::{self, Name};
use crate::tags::{cat, cats};
use crate::work::tick;
use crate::{Namespace, NodeId, OpenElement};

/// No position (end of a list, no head).
const NONE: u32 = u32::MAX;

/// The id of a hole's placeholder entry (never an element's id).
const HOLE_ID: NodeId = NodeId(u64::MAX - 1);

/// Index lists: 0 is the element's name list, `1 + c` the list of category bit `c`.
const LISTS: usize = 1 + cat::INDEXED;

/// An element's links in one index list (positions; [`NONE`] at the ends).
#[derive(Debug, Clone, Copy)]
struct Link {
    /// The next lower position in the list.
    prev: u32,
    /// The next higher position in the list.
    next: u32,
}

const UNLINKED: Link = Link { prev: NONE, next: NONE };

/// Bookkeeping of one position.
#[derive(Debug, Clone)]
struct Slot {
    /// The element's name key ([`NONE`] for a hole).
    key: u32,
    links: [Link; LISTS],
    /// For a hole at an end of its run of holes: the position of the other end.
    run: u32,
}

const HOLE_SLOT: Slot = Slot { key: NONE, links: [UNLINKED; LISTS], run: NONE };

/// The stack of open elements and its indexes.
#[derive(Debug, Clone)]
pub(crate) struct Stack {
    /// Entries by position; holes hold a placeholder with [`HOLE_ID`].
    items: Vec<OpenElement>,
    slots: Vec<Slot>,
    /// Number of elements (positions that are not holes).
    live: usize,
    /// Name keys per namespace: lowercased name → key.
    keys: [HashMap<Box<str>, u32>; 3],
    /// Per key: the topmost position of an element with that key.
    name_heads: Vec<u32>,
    /// Per key: the number of open elements with that key.
    key_refs: Vec<u32>,
    /// Keys no longer in use, to be handed out again.
    free_keys: Vec<u32>,
    /// Per indexed category: the topmost position of an element in it.
    cat_heads: [u32; cat::INDEXED],
    pos_of: PosMap,
    /// The entries without holes, made on demand while there are holes.
    view: OnceLock<Vec<OpenElement>>,
}

impl Default for Stack {
    fn default() -> Stack {
        Stack {
            items: Vec::new(),
            slots: Vec::new(),
            live: 0,
            keys: Default::default(),
            name_heads: vec![NONE; names::COUNT],
            key_refs: vec![0; names::COUNT],
            free_keys: Vec::new(),
            cat_heads: [NONE; cat::INDEXED],
            pos_of: PosMap::default(),
            view: OnceLock::new(),
        }
    }
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

/// The index lists an element with category bits `cats` is in: 0 (its name
/// list), then `1 + c` for each indexed category bit `c`, visiting only the set
/// bits (most elements are in few categories).
fn lists(cats: u16) -> impl Iterator<Item = usize> {
    let indexed = u32::from(cats) & ((1 << cat::INDEXED) - 1);
    let mut bits = (indexed << 1) | 1;
    std::iter::from_fn(move || {
        (bits != 0).then(|| {
            let list = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            list
        })
    })
}

impl OpenElement {
    /// Makes an entry (inlined: the entry is then built in place in the
    /// stack's vector instead of being returned and copied).
    #[inline(always)]
    pub(crate) fn new(id: NodeId, name: &str, ns: Namespace, parent: NodeId, annotation_xml_html: bool) -> OpenElement {
        if let Some(k) = names::known(ns, name) {
            let cats = if annotation_xml_html { cats(ns, name, true) } else { names::cats_of(k) };
            return OpenElement { id, name: Name::Known(k), known: k, ns, parent, cats };
        }
        // A foreign name in another case than the table's still gets the known key.
        let known = match ns {
            Namespace::Html => None,
            _ => names::known_lowercase(ns, &key(ns, name)),
        };
        OpenElement {
            id,
            name: Name::Other(name.into()),
            known: known.unwrap_or(NONE),
            ns,
            parent,
            cats: cats(ns, name, annotation_xml_html),
        }
    }

    /// The placeholder of a hole.
    fn hole() -> OpenElement {
        OpenElement {
            id: HOLE_ID,
            name: Name::Other("".into()),
            known: NONE,
            ns: Namespace::Html,
            parent: NodeId::DOCUMENT,
            cats: 0,
        }
    }

    /// Whether this is the HTML element `name`.
    pub(crate) fn is_html(&self, name: &str) -> bool {
        self.ns == Namespace::Html && &*self.name == name
    }

    /// Whether this is the element with known id `key` (`names::html` for HTML
    /// elements): known ids differ across namespaces, so the id alone says
    /// the namespace too.
    pub(crate) fn is_known(&self, key: u32) -> bool {
        self.known == key
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

    /// The heap bytes of the entries and their index links, by capacity
    /// (the dominant per-element cost; see [`Shadow::held_bytes`](crate::Shadow::held_bytes)).
    pub(crate) fn held_bytes(&self) -> usize {
        self.items.capacity() * std::mem::size_of::<OpenElement>()
            + self.slots.capacity() * std::mem::size_of::<Slot>()
            + self.pos_of.held_bytes()
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
        self.items.last().is_some_and(|e| e.is_html(name))
    }

    fn is_hole(&self, i: usize) -> bool {
        self.slots[i].key == NONE
    }

    /// The first element position at or above `i` (or `end()`), skipping a run of holes in one step.
    fn live_from(&self, i: usize) -> usize {
        tick(1);
        if i < self.items.len() && self.is_hole(i) { self.slots[i].run as usize + 1 } else { i }
    }

    /// The next element position above `i` (or `end()`).
    pub(crate) fn above(&self, i: usize) -> usize {
        self.live_from(i + 1)
    }

    /// The next element position below `i`, skipping a run of holes in one step.
    pub(crate) fn below(&self, i: usize) -> Option<usize> {
        tick(1);
        let q = i.checked_sub(1)?;
        if self.is_hole(q) { (self.slots[q].run as usize).checked_sub(1) } else { Some(q) }
    }

    /// The `list` index list's links of position `p`.
    fn link(&mut self, p: u32, list: usize) -> &mut Link {
        &mut self.slots[p as usize].links[list]
    }

    /// The head (topmost position) of index list `list` of key `key`.
    fn head(&mut self, list: usize, key: u32) -> &mut u32 {
        if list == 0 { &mut self.name_heads[key as usize] } else { &mut self.cat_heads[list - 1] }
    }

    /// The name key of `e`, made if new: its known id, else a key past `names::COUNT`.
    #[inline]
    fn intern(&mut self, e: &OpenElement) -> u32 {
        if e.known != NONE { e.known } else { self.intern_other(e) }
    }

    /// [`Stack::intern`] for a name not in the table.
    #[inline(never)]
    fn intern_other(&mut self, e: &OpenElement) -> u32 {
        let (ns, name) = (e.ns, &*e.name);
        let k = key(ns, name);
        if let Some(&key) = self.keys[ns_index(ns)].get(&*k) {
            return key;
        }
        let key = match self.free_keys.pop() {
            Some(key) => key,
            None => {
                self.name_heads.push(NONE);
                self.key_refs.push(0);
                (self.name_heads.len() - 1) as u32
            }
        };
        self.keys[ns_index(ns)].insert(k.into_owned().into_boxed_str(), key);
        key
    }

    /// Drops one reference to the key of `e`; keeps a few hundred unused keys
    /// (the common tag names) and forgets the rest, so memory stays O(stack).
    #[inline(always)]
    fn release(&mut self, key: u32, e: &OpenElement) {
        let refs = &mut self.key_refs[key as usize];
        *refs -= 1;
        if *refs == 0
            && key as usize >= names::COUNT
            && self.name_heads.len() - self.free_keys.len() > names::COUNT + 256
        {
            self.keys[ns_index(e.ns)].remove(&*crate::stack::key(e.ns, &e.name));
            self.free_keys.push(key);
        }
    }

    /// Pushes `e` on top, at the head of every index list it is in. Always
    /// inlined (five callers): the entry moves from its maker to the vector
    /// without a call's copies.
    #[inline(always)]
    pub(crate) fn push(&mut self, e: OpenElement) {
        tick(1);
        self.touched();
        let p = self.items.len() as u32;
        let key = self.intern(&e);
        self.key_refs[key as usize] += 1;
        let mut slot = Slot { key, links: [UNLINKED; LISTS], run: NONE };
        // It tops every list it is in: the name list, then the categories'
        // lists (list `1 + c` for bit `c`).
        let prev = std::mem::replace(&mut self.name_heads[key as usize], p);
        slot.links[0].prev = prev;
        if prev != NONE {
            self.link(prev, 0).next = p;
        }
        let mut bits = u32::from(e.cats) & ((1 << cat::INDEXED) - 1);
        while bits != 0 {
            let c = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let prev = std::mem::replace(&mut self.cat_heads[c], p);
            slot.links[c + 1].prev = prev;
            if prev != NONE {
                self.link(prev, c + 1).next = p;
            }
        }
        self.pos_of.insert(e.id, p);
        self.items.push(e);
        self.slots.push(slot);
        self.live += 1;
    }

    /// Takes position `p` out of every list it is in.
    #[inline]
    fn unlink(&mut self, p: usize) {
        let key = self.slots[p].key;
        for list in lists(self.items[p].cats) {
            tick(1);
            let Link { prev, next } = self.slots[p].links[list];
            if next == NONE {
                *self.head(list, key) = prev;
            } else {
                self.link(next, list).prev = prev;
            }
            if prev != NONE {
                self.link(prev, list).next = next;
            }
        }
    }

    /// [`Stack::unlink`] for the topmost position, which is the top of every
    /// list it is in: each list's head moves down to the entry below it.
    #[inline(always)]
    fn unlink_top(&mut self, p: usize) {
        // Links read one at a time (not the slot's whole array copied): `p`
        // is in the name list and in a few categories' lists at most.
        let key = self.slots[p].key as usize;
        // The name list, then the categories' lists (list `1 + c` for bit `c`).
        tick(1);
        let Link { prev, next } = self.slots[p].links[0];
        debug_assert_eq!(next, NONE);
        self.name_heads[key] = prev;
        if prev != NONE {
            self.slots[prev as usize].links[0].next = NONE;
        }
        let mut bits = u32::from(self.items[p].cats) & ((1 << cat::INDEXED) - 1);
        while bits != 0 {
            tick(1);
            let c = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let Link { prev, next } = self.slots[p].links[c + 1];
            debug_assert_eq!(next, NONE);
            self.cat_heads[c] = prev;
            if prev != NONE {
                self.slots[prev as usize].links[c + 1].next = NONE;
            }
        }
    }

    /// Pops the current node, dropping the run of holes below it. Always
    /// inlined (two callers, `Builder::pop` on every element closed).
    #[inline(always)]
    pub(crate) fn pop(&mut self) -> Option<OpenElement> {
        let top = self.items.len().checked_sub(1)?;
        tick(1);
        self.touched();
        self.unlink_top(top);
        let e = self.items.pop().expect("non-empty");
        let slot = self.slots.pop().expect("non-empty");
        self.release(slot.key, &e);
        self.pos_of.remove(&e.id);
        self.live -= 1;
        // The current node stays at the top: drop the run of holes below it.
        if let Some(last) = self.slots.last()
            && last.key == NONE
        {
            let start = last.run as usize;
            tick(self.items.len() - start);
            self.items.truncate(start);
            self.slots.truncate(start);
        }
        Some(e)
    }

    /// Removes the element at position `i`, leaving a hole (O(1)).
    pub(crate) fn remove_at(&mut self, i: usize) -> OpenElement {
        if i + 1 == self.items.len() {
            return self.pop().expect("non-empty");
        }
        tick(1);
        self.touched();
        self.unlink(i);
        let e = std::mem::replace(&mut self.items[i], OpenElement::hole());
        let key = std::mem::replace(&mut self.slots[i], HOLE_SLOT).key;
        self.release(key, &e);
        self.pos_of.remove(&e.id);
        self.live -= 1;
        self.join_holes(i, i);
        e
    }

    /// Records the holes `lo..=hi` as one run with the runs just below and above.
    fn join_holes(&mut self, lo: usize, hi: usize) {
        let start = if lo > 0 && self.is_hole(lo - 1) { self.slots[lo - 1].run as usize } else { lo };
        let end = if hi + 1 < self.items.len() && self.is_hole(hi + 1) { self.slots[hi + 1].run as usize } else { hi };
        self.slots[start].run = end as u32;
        self.slots[end].run = start as u32;
    }

    /// Replaces the elements at positions `lo..=hi` by `new` (bottom first):
    /// the adoption agency's rewrite of the segment from the formatting
    /// element to the furthest block. `new` must not be longer than the
    /// elements it replaces, and each index list an entry of `new` is in must
    /// hold one of the replaced elements (true for the adoption agency: the
    /// clones have the names of the elements they replace, and removed
    /// elements are just left out). The freed positions become holes at the
    /// bottom of the segment; positions above `hi` do not move.
    ///
    /// # Complexity
    /// O(elements in the segment + runs of holes in it), times the lists they are in.
    pub(crate) fn rewrite_segment(&mut self, lo: usize, hi: usize, new: Vec<OpenElement>) {
        self.touched();
        let mut old = Vec::new();
        let mut p = self.live_from(lo);
        while p <= hi {
            old.push(p);
            p = self.above(p);
        }
        assert!(!new.is_empty() && new.len() <= old.len(), "a segment rewrite keeps or frees positions");
        // Each list's entries in the segment are consecutive in that list:
        // note the neighbours just outside (`lows`: below, `highs`: above).
        // A list is `(list, key)` for name lists, `(list, 0)` for categories.
        let mut lows: Vec<((usize, u32), u32)> = Vec::new();
        let mut highs: Vec<((usize, u32), u32)> = Vec::new();
        for &p in &old {
            let key = self.slots[p].key;
            for list in lists(self.items[p].cats) {
                tick(1);
                let id = (list, if list == 0 { key } else { 0 });
                let Link { prev, next } = self.slots[p].links[list];
                if prev == NONE || (prev as usize) < lo {
                    lows.push((id, prev));
                }
                if next == NONE || next as usize > hi {
                    highs.push((id, next));
                }
            }
        }
        lows.sort_unstable();
        highs.sort_unstable();
        debug_assert_eq!(lows.len(), highs.len());
        // The elements leave their positions (their keys are released once
        // the new entries hold theirs, so that the keys noted stay valid).
        let mut left = Vec::with_capacity(old.len());
        for &p in &old {
            tick(1);
            let e = std::mem::replace(&mut self.items[p], OpenElement::hole());
            let key = std::mem::replace(&mut self.slots[p], HOLE_SLOT).key;
            self.pos_of.remove(&e.id);
            left.push((key, e));
        }
        self.live -= old.len();
        // The new entries take the top of the segment, linked in order
        // between the neighbours noted above.
        let first = hi + 1 - new.len();
        let mut tails: Vec<u32> = lows.iter().map(|&(_, below)| below).collect();
        for (j, e) in new.into_iter().enumerate() {
            tick(1);
            let p = (first + j) as u32;
            let key = self.intern(&e);
            self.key_refs[key as usize] += 1;
            self.slots[p as usize] = Slot { key, links: [UNLINKED; LISTS], run: NONE };
            for list in lists(e.cats) {
                let id = (list, if list == 0 { key } else { 0 });
                let k = lows.binary_search_by_key(&id, |&(id, _)| id).expect("a segment rewrite adds no index list");
                let prev = std::mem::replace(&mut tails[k], p);
                self.link(p, list).prev = prev;
                if prev != NONE {
                    self.link(prev, list).next = p;
                }
            }
            self.pos_of.insert(e.id, p);
            self.items[p as usize] = e;
            self.live += 1;
        }
        for (k, &((list, key), above)) in highs.iter().enumerate() {
            let tail = tails[k];
            if tail != NONE {
                self.link(tail, list).next = above;
            }
            if above == NONE {
                *self.head(list, key) = tail;
            } else {
                self.link(above, list).prev = tail;
            }
        }
        for (key, e) in left {
            self.release(key, &e);
        }
        if first > lo {
            self.join_holes(lo, first - 1);
        }
    }

    /// Rebuilds the stack without holes when they outnumber the elements
    /// (amortized O(1) per hole). Positions change: call it only between tokens.
    #[inline]
    pub(crate) fn maybe_compact(&mut self) {
        let holes = self.items.len() - self.live;
        if holes >= 64 && holes >= self.live {
            self.compact();
        }
    }

    fn compact(&mut self) {
        tick(self.items.len());
        let items = std::mem::take(&mut self.items);
        *self = Stack::default();
        for e in items {
            if e.id != HOLE_ID {
                self.push(e);
            }
        }
    }

    /// Position of the element `id`, if it is open.
    pub(crate) fn position(&self, id: NodeId) -> Option<usize> {
        self.pos_of.get(&id).map(|&i| i as usize)
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
        let head = self.name_heads[key as usize];
        (head != NONE).then_some(head as usize)
    }

    /// Position of the topmost HTML element with one of `names`.
    pub(crate) fn topmost_html_of(&self, names: &[&str]) -> Option<usize> {
        names.iter().filter_map(|n| self.topmost(Namespace::Html, n)).max()
    }

    /// Position of the topmost element with category bit `c` (an indexed one).
    pub(crate) fn topmost_cat(&self, c: u16) -> Option<usize> {
        let head = self.cat_heads[c.trailing_zeros() as usize];
        (head != NONE).then_some(head as usize)
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
        let n = self.items.len();
        let live: Vec<usize> = (0..n).filter(|&i| self.items[i].id != HOLE_ID).collect();
        if live.len() != self.live {
            return Err(format!("live count {} != {}", self.live, live.len()));
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
            if self.slots[start].run as usize != end || self.slots[end].run as usize != start {
                return Err(format!(
                    "run of holes {start}..={end} has ends {} and {}",
                    self.slots[start].run, self.slots[end].run
                ));
            }
        }
        // Every list, walked from its head down, is exactly its members, top first, doubly linked.
        let check_list = |list: usize, head: u32, member: &dyn Fn(&OpenElement) -> bool| -> Result<(), String> {
            let expected: Vec<u32> =
                live.iter().rev().filter(|&&i| member(&self.items[i])).map(|&i| i as u32).collect();
            let mut got = Vec::new();
            let mut p = head;
            let mut above = NONE;
            while p != NONE {
                if self.slots[p as usize].links[list].next != above {
                    return Err(format!("list {list}: {p}.next != {above}"));
                }
                got.push(p);
                above = p;
                p = self.slots[p as usize].links[list].prev;
                if got.len() > n {
                    return Err(format!("list {list}: cycle"));
                }
            }
            if got != expected {
                return Err(format!("list {list}: {got:?} != {expected:?}"));
            }
            Ok(())
        };
        // The key of an element, looked up afresh.
        let key_of = |e: &OpenElement| {
            let k = key(e.ns, &e.name);
            names::known_lowercase(e.ns, &k).or_else(|| self.keys[ns_index(e.ns)].get(&*k).copied())
        };
        let mut used: Vec<u32> = live.iter().filter_map(|&i| key_of(&self.items[i])).collect();
        used.sort_unstable();
        used.dedup();
        for k in 0..self.name_heads.len() as u32 {
            if used.binary_search(&k).is_err() {
                if self.name_heads[k as usize] != NONE || self.key_refs[k as usize] != 0 {
                    return Err(format!("key {k}: no element, but a head or references"));
                }
                continue;
            }
            let member = |e: &OpenElement| key_of(e) == Some(k);
            check_list(0, self.name_heads[k as usize], &member)?;
            let refs = live.iter().filter(|&&i| member(&self.items[i])).count();
            if refs != self.key_refs[k as usize] as usize {
                return Err(format!("key {k}: {} refs, {refs} elements", self.key_refs[k as usize]));
            }
        }
        for &i in &live {
            if key_of(&self.items[i]) != Some(self.slots[i].key) {
                return Err(format!("{i}: wrong key"));
            }
        }
        for c in 0..cat::INDEXED {
            check_list(c + 1, self.cat_heads[c], &|e: &OpenElement| e.cats & (1 << c) != 0)?;
        }
        if self.pos_of.len() != live.len()
            || live.iter().any(|&i| self.pos_of.get(&self.items[i].id) != Some(&(i as u32)))
        {
            return Err("pos_of differs".into());
        }
        Ok(())
    }
}
