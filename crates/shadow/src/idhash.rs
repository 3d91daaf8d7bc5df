//! Maps keyed by [`NodeId`](crate::NodeId): ids are sequential numbers the
//! shadow hands out itself (never chosen by the input), so a multiplicative
//! hash (`rustc_hash`'s FxHash, the workspace's one fast hasher) spreads
//! them without the cost of SipHash, and
//! [`PosMap`] keeps positions mostly in a direct-mapped table.

/// A `HashMap` keyed by ids.
pub(crate) type IdMap<K, V> = rustc_hash::FxHashMap<K, V>;

/// Positions by [`NodeId`](crate::NodeId) (of the open elements, or of the
/// formatting elements in their list), O(1) per operation without hashing in
/// the common case: ids are handed out in sequence, so the live ones spread
/// over a direct-mapped table (slot: the id modulo its size, a power of two;
/// the slot keeps the quotient, 4 bytes, and the position); an id whose slot
/// holds another live id goes to a map instead. The table doubles when an
/// id collides while it is half full, so deep stacks (whose ids are mostly
/// consecutive) stay in it: 8 bytes per slot, at most 4 slots per entry
/// (issue 16: the map they overflowed to cost 17 bytes an entry, and twice
/// that once grown).
#[derive(Debug, Clone, Default)]
pub(crate) struct PosMap {
    /// `(id >> shift, position)` at slot `id & (len - 1)`; a position of
    /// [`FREE`] marks a free slot. Made on the first insertion ([`SLOTS`]
    /// long).
    slots: Vec<(u32, u32)>,
    /// log2 of the table's length, and the length less one.
    shift: u32,
    mask: u64,
    /// The number of ids in the table (not in `overflow`).
    in_slots: usize,
    overflow: IdMap<crate::NodeId, u32>,
}

const SLOTS: usize = 16;
const FREE: u32 = u32::MAX;

impl PosMap {
    /// The heap bytes that grow with the entries: the table's and the
    /// overflow map's (by capacity, with a byte of control per entry).
    pub(crate) fn held_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<(u32, u32)>()
            + self.overflow.capacity() * (std::mem::size_of::<(crate::NodeId, u32)>() + 1)
    }

    /// The slot of `id` and the quotient kept there (an id whose quotient
    /// does not fit 32 bits never matches a slot and is kept in the map).
    #[inline(always)]
    fn slot(&self, id: crate::NodeId) -> (usize, u64) {
        ((id.0 & self.mask) as usize, id.0 >> self.shift)
    }

    /// Records `id` at `position` (replacing its old position, if any).
    #[inline(always)]
    pub(crate) fn insert(&mut self, id: crate::NodeId, position: u32) {
        debug_assert_ne!(position, FREE);
        if self.slots.is_empty() {
            self.slots = vec![(0, FREE); SLOTS];
            self.shift = SLOTS.trailing_zeros();
            self.mask = SLOTS as u64 - 1;
        }
        let (s, tag) = self.slot(id);
        let slot = &mut self.slots[s];
        if slot.1 != FREE && u64::from(slot.0) == tag {
            slot.1 = position;
        } else if !self.overflow.is_empty()
            && let Some(p) = self.overflow.get_mut(&id)
        {
            *p = position;
        } else if slot.1 == FREE
            && let Ok(tag) = u32::try_from(tag)
        {
            *slot = (tag, position);
            self.in_slots += 1;
        } else {
            self.collide(id, position);
        }
    }

    /// [`PosMap::insert`] of an id whose slot is taken: the table doubles
    /// if it is half full (amortized O(1): it doubles at most once per
    /// `len / 2` entries), else the id goes to the overflow map.
    #[inline(never)]
    fn collide(&mut self, id: crate::NodeId, position: u32) {
        if 2 * (self.in_slots + self.overflow.len()) < self.slots.len() {
            self.overflow.insert(id, position);
            return;
        }
        crate::work::tick(self.slots.len() + self.overflow.len());
        let shift = self.shift;
        let old = std::mem::replace(&mut self.slots, vec![(0, FREE); 2 << shift]);
        let overflow = std::mem::take(&mut self.overflow);
        self.shift = shift + 1;
        self.mask = (2u64 << shift) - 1;
        self.in_slots = 0;
        let entries = old.into_iter().enumerate().filter(|(_, (_, p))| *p != FREE);
        for (s, (tag, p)) in entries {
            self.place(crate::NodeId((u64::from(tag) << shift) | s as u64), p);
        }
        for (id, p) in overflow {
            self.place(id, p);
        }
        self.place(id, position);
    }

    /// Puts a new id in its slot, or in the overflow map (no doubling).
    fn place(&mut self, id: crate::NodeId, position: u32) {
        let (s, tag) = self.slot(id);
        match u32::try_from(tag) {
            Ok(tag) if self.slots[s].1 == FREE => {
                self.slots[s] = (tag, position);
                self.in_slots += 1;
            }
            _ => {
                self.overflow.insert(id, position);
            }
        }
    }

    #[inline(always)]
    pub(crate) fn get(&self, id: &crate::NodeId) -> Option<&u32> {
        let (s, tag) = self.slot(*id);
        match self.slots.get(s) {
            Some((k, p)) if *p != FREE && u64::from(*k) == tag => Some(p),
            _ if self.overflow.is_empty() => None,
            _ => self.overflow.get(id),
        }
    }

    #[inline(always)]
    pub(crate) fn remove(&mut self, id: &crate::NodeId) -> Option<u32> {
        let (s, tag) = self.slot(*id);
        if let Some(slot) = self.slots.get_mut(s)
            && slot.1 != FREE
            && u64::from(slot.0) == tag
        {
            self.in_slots -= 1;
            return Some(std::mem::replace(&mut slot.1, FREE));
        }
        if self.overflow.is_empty() { None } else { self.overflow.remove(id) }
    }

    /// The number of ids recorded.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.slots.iter().filter(|(_, p)| *p != FREE).count() + self.overflow.len()
    }

    /// The ids and positions recorded, in no order.
    #[cfg(test)]
    fn iter(&self) -> impl Iterator<Item = (crate::NodeId, u32)> + '_ {
        let shift = self.shift;
        let slots = self
            .slots
            .iter()
            .enumerate()
            .filter(|(_, (_, p))| *p != FREE)
            .map(move |(s, &(tag, p))| (crate::NodeId((u64::from(tag) << shift) | s as u64), p));
        slots.chain(self.overflow.iter().map(|(&k, &p)| (k, p)))
    }
}

/// Equal when the same ids have the same positions, wherever they are kept.
#[cfg(test)]
impl PartialEq for PosMap {
    fn eq(&self, other: &PosMap) -> bool {
        self.len() == other.len() && self.iter().all(|(k, p)| other.get(&k) == Some(&p))
    }
}

#[cfg(test)]
mod tests {
    use super::PosMap;
    use crate::NodeId;
    use htrewrite_testkit::{Random, SplitMix64};
    use std::collections::HashMap;

    /// Random inserts, updates and removals against a `HashMap`, with ids
    /// drawn as the shadow hands them out (in sequence), spaced by a power
    /// of two (every id in one slot of each table size), and huge (whose
    /// quotient does not fit the slot), so every path is taken: the table,
    /// the overflow map, doubling, and ids that can only overflow.
    #[test]
    fn pos_map_agrees_with_a_hash_map() {
        for (seed, spacing, base) in [(1u64, 1u64, 0u64), (2, 256, 0), (3, 4096, 7), (4, 1, 1 << 45), (5, 3, 1 << 40)] {
            let mut rng = SplitMix64::new(seed);
            let mut map = PosMap::default();
            let mut reference: HashMap<NodeId, u32> = HashMap::new();
            let mut issued = 0u64;
            let mut live: Vec<NodeId> = Vec::new();
            for step in 0..40_000u32 {
                let r = rng.below(10);
                if r < 6 || live.is_empty() {
                    let id = NodeId(base + issued * spacing);
                    issued += 1;
                    map.insert(id, step);
                    reference.insert(id, step);
                    live.push(id);
                } else if r < 8 {
                    let id = live[rng.below(live.len())];
                    map.insert(id, step);
                    reference.insert(id, step);
                } else {
                    let k = rng.below(live.len());
                    let id = live.swap_remove(k);
                    assert_eq!(map.remove(&id), reference.remove(&id), "seed {seed}: remove {id:?}");
                }
                if step % 997 == 0 {
                    let mut rebuilt = PosMap::default();
                    for (&id, &p) in &reference {
                        rebuilt.insert(id, p);
                    }
                    assert!(map == rebuilt, "seed {seed}: the same ids and positions as a map built afresh");
                    assert_eq!(map.len(), reference.len(), "seed {seed}");
                    for (id, p) in &reference {
                        assert_eq!(map.get(id), Some(p), "seed {seed}: get {id:?}");
                    }
                    assert_eq!(map.get(&NodeId(base + issued * spacing)), None, "seed {seed}: an id not issued");
                }
            }
            // Bounded by the entries: at most 4 slots per entry the table held at its largest.
            assert!(map.slots.len() <= 4 * 40_000 + super::SLOTS, "seed {seed}: {} slots", map.slots.len());
        }
    }
}
