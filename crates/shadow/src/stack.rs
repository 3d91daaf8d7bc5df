//! The [stack of open elements](https://html.spec.whatwg.org/multipage/parsing.html#stack-of-open-elements),
//! with indexes that make scope checks O(1).
//!
//! Besides the entries, the stack keeps, for each (namespace, lowercased
//! name), the stack positions of the open elements of that name, and for
//! each category of [`cat`] the positions of the open elements in it. A push
//! or pop updates them in O(1) (one hash lookup); removing or inserting in the
//! middle (adoption agency only) rebuilds them above that position, which
//! costs what shifting the entries costs anyway.

use std::collections::HashMap;

use crate::tags::{cat, cats};
use crate::{Namespace, NodeId, OpenElement, Origin};

/// The stack of open elements and its indexes.
#[derive(Debug, Default, Clone)]
pub(crate) struct Stack {
    items: Vec<OpenElement>,
    by_name: [HashMap<Box<str>, Vec<u32>>; 3],
    by_cat: [Vec<u32>; cat::INDEXED],
    pos_of: HashMap<NodeId, u32>,
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

impl OpenElement {
    /// Makes an entry.
    pub(crate) fn new(
        id: NodeId,
        name: &str,
        ns: Namespace,
        origin: Origin,
        parent: NodeId,
        annotation_xml_html: bool,
    ) -> OpenElement {
        OpenElement { id, name: name.into(), ns, origin, parent, cats: cats(ns, name, annotation_xml_html) }
    }

    /// Whether this is the HTML element `name`.
    pub(crate) fn is_html(&self, name: &str) -> bool {
        self.ns == Namespace::Html && &*self.name == name
    }

    /// Whether the element has category bit `c`.
    pub(crate) fn has(&self, c: u16) -> bool {
        self.cats & c != 0
    }
}

impl Stack {
    pub(crate) fn items(&self) -> &[OpenElement] {
        &self.items
    }

    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub(crate) fn get(&self, i: usize) -> &OpenElement {
        &self.items[i]
    }

    pub(crate) fn get_mut_parent(&mut self, i: usize) -> &mut NodeId {
        &mut self.items[i].parent
    }

    pub(crate) fn current(&self) -> Option<&OpenElement> {
        self.items.last()
    }

    /// Whether the current node is the HTML element `name`.
    pub(crate) fn current_is(&self, name: &str) -> bool {
        self.items.last().is_some_and(|e| e.is_html(name))
    }

    pub(crate) fn push(&mut self, e: OpenElement) {
        let i = self.items.len() as u32;
        let k = key(e.ns, &e.name);
        let map = &mut self.by_name[ns_index(e.ns)];
        match map.get_mut(&*k) {
            Some(v) => v.push(i),
            None => {
                map.insert(k.into_owned().into_boxed_str(), vec![i]);
            }
        }
        for (c, v) in self.by_cat.iter_mut().enumerate() {
            if e.cats & (1 << c) != 0 {
                v.push(i);
            }
        }
        self.pos_of.insert(e.id, i);
        self.items.push(e);
    }

    pub(crate) fn pop(&mut self) -> Option<OpenElement> {
        let e = self.items.pop()?;
        let k = key(e.ns, &e.name);
        let map = &mut self.by_name[ns_index(e.ns)];
        if let Some(v) = map.get_mut(&*k) {
            v.pop();
            // Keep a few hundred empty entries (the common tag names) to spare
            // allocations; drop the rest so memory stays O(stack).
            if v.is_empty() && map.len() > 256 {
                map.remove(&*k);
            }
        }
        for (c, v) in self.by_cat.iter_mut().enumerate() {
            if e.cats & (1 << c) != 0 {
                v.pop();
            }
        }
        self.pos_of.remove(&e.id);
        Some(e)
    }

    /// Removes the entry at `i` (adoption agency), keeping the indexes right.
    pub(crate) fn remove_at(&mut self, i: usize) -> OpenElement {
        let mut tail = Vec::with_capacity(self.items.len() - i);
        while self.items.len() > i + 1 {
            tail.push(self.pop().expect("non-empty"));
        }
        let removed = self.pop().expect("index in range");
        while let Some(e) = tail.pop() {
            self.push(e);
        }
        removed
    }

    /// Replaces the entries at `start..start + new.len()` by `new`, which
    /// must hold the same names and categories (as a multiset) as the
    /// entries it replaces: the adoption agency's rotation of the segment
    /// from the formatting element to the furthest block. Positions above
    /// the segment do not move, so only the indexes of the segment are
    /// rewritten: O(segment · log depth) instead of O(entries above).
    pub(crate) fn rewrite_segment(&mut self, start: usize, new: Vec<OpenElement>) {
        let end = start + new.len();
        let sig = |e: &OpenElement| (ns_index(e.ns), key(e.ns, &e.name).into_owned(), e.cats);
        let mut a: Vec<_> = self.items[start..end].iter().map(sig).collect();
        let mut b: Vec<_> = new.iter().map(sig).collect();
        a.sort();
        b.sort();
        if a != b {
            // Not a rotation: rebuild everything from `start` (correct, slower).
            let mut tail = Vec::new();
            while self.items.len() > end {
                tail.push(self.pop().expect("non-empty"));
            }
            while self.items.len() > start {
                self.pop();
            }
            for e in new {
                self.push(e);
            }
            while let Some(t) = tail.pop() {
                self.push(t);
            }
            return;
        }
        for e in &self.items[start..end] {
            self.pos_of.remove(&e.id);
        }
        let (lo, hi) = (start as u32, end as u32);
        let rewrite = |v: &mut Vec<u32>, positions: Vec<u32>| {
            let from = v.partition_point(|&p| p < lo);
            let to = v.partition_point(|&p| p < hi);
            debug_assert_eq!(to - from, positions.len());
            v[from..to].copy_from_slice(&positions);
        };
        let mut keys: Vec<(usize, String)> = b.iter().map(|(n, k, _)| (*n, k.clone())).collect();
        keys.dedup();
        for (n, k) in keys {
            let positions: Vec<u32> = new
                .iter()
                .enumerate()
                .filter(|(_, e)| ns_index(e.ns) == n && key(e.ns, &e.name) == k.as_str())
                .map(|(i, _)| (start + i) as u32)
                .collect();
            if let Some(v) = self.by_name[n].get_mut(k.as_str()) {
                rewrite(v, positions);
            }
        }
        for c in 0..cat::INDEXED {
            let positions: Vec<u32> = new
                .iter()
                .enumerate()
                .filter(|(_, e)| e.cats & (1 << c) != 0)
                .map(|(i, _)| (start + i) as u32)
                .collect();
            if !positions.is_empty() {
                rewrite(&mut self.by_cat[c], positions);
            }
        }
        for (i, e) in new.into_iter().enumerate() {
            self.pos_of.insert(e.id, (start + i) as u32);
            self.items[start + i] = e;
        }
    }

    /// Position of the element `id`, if it is open.
    pub(crate) fn position(&self, id: NodeId) -> Option<usize> {
        self.pos_of.get(&id).map(|&i| i as usize)
    }

    /// Position of the topmost (newest) open element `name` of namespace `ns`
    /// (`name` lowercase).
    pub(crate) fn topmost(&self, ns: Namespace, name: &str) -> Option<usize> {
        self.by_name[ns_index(ns)].get(name).and_then(|v| v.last()).map(|&i| i as usize)
    }

    /// Position of the topmost HTML element with one of `names`.
    pub(crate) fn topmost_html_of(&self, names: &[&str]) -> Option<usize> {
        names.iter().filter_map(|n| self.topmost(Namespace::Html, n)).max()
    }

    /// Position of the topmost element with category bit `c` (an indexed one).
    pub(crate) fn topmost_cat(&self, c: u16) -> Option<usize> {
        let bit = c.trailing_zeros() as usize;
        self.by_cat[bit].last().map(|&i| i as usize)
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

    /// Recomputes every index from the entries and compares (the slow,
    /// obvious reference of the indexes; tests only).
    #[cfg(test)]
    pub(crate) fn check_invariants(&self) -> Result<(), String> {
        let mut fresh = Stack::default();
        for e in &self.items {
            fresh.push(e.clone());
        }
        for n in 0..3 {
            let live: HashMap<Box<str>, Vec<u32>> =
                self.by_name[n].iter().filter(|(_, v)| !v.is_empty()).map(|(k, v)| (k.clone(), v.clone())).collect();
            if fresh.by_name[n] != live {
                return Err(format!("by_name[{n}]: {:?} != {:?}", self.by_name[n], fresh.by_name[n]));
            }
        }
        if fresh.by_cat != self.by_cat {
            return Err(format!("by_cat: {:?} != {:?}", self.by_cat, fresh.by_cat));
        }
        if fresh.pos_of != self.pos_of {
            return Err("pos_of differs".into());
        }
        Ok(())
    }
}
