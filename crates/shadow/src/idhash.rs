//! Maps keyed by [`NodeId`](crate::NodeId): ids are sequential numbers the
//! shadow hands out itself (never chosen by the input), so a multiplicative
//! hash ([`IdHasher`]) spreads them without the cost of SipHash, and
//! [`PosMap`] keeps positions mostly in a direct-mapped table.

use std::hash::{BuildHasherDefault, Hasher};

/// Multiply-rotate hashing of integer keys (the `FxHasher` scheme).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn finish(&self) -> u64 {
        // The high bits are the well-mixed ones; hashbrown takes the top 7 for its tags.
        self.0
    }
}

/// A `HashMap` keyed by ids.
pub(crate) type IdMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// Positions by [`NodeId`](crate::NodeId) (of the open elements, or of the
/// formatting elements in their list), O(1) per operation without hashing in
/// the common case: ids are handed out in sequence, so the live ones spread
/// over a small direct-mapped table (slot: the id modulo its size); an id
/// whose slot holds another live id goes to a map instead.
#[derive(Debug, Clone, Default)]
pub(crate) struct PosMap {
    /// `(id, position)`; a position of [`FREE`] marks a free slot. Made on
    /// the first insertion ([`SLOTS`] long).
    slots: Vec<(crate::NodeId, u32)>,
    overflow: IdMap<crate::NodeId, u32>,
}

const SLOTS: usize = 256;
const FREE: u32 = u32::MAX;

impl PosMap {
    /// The heap bytes that grow with the entries: the overflow map's (by
    /// capacity, with a byte of control per entry); the direct-mapped slots
    /// are a fixed table.
    pub(crate) fn held_bytes(&self) -> usize {
        self.overflow.capacity() * (std::mem::size_of::<(crate::NodeId, u32)>() + 1)
    }

    fn slot(id: crate::NodeId) -> usize {
        (id.0 % SLOTS as u64) as usize
    }

    /// Records `id` at `position` (replacing its old position, if any).
    #[inline(always)]
    pub(crate) fn insert(&mut self, id: crate::NodeId, position: u32) {
        debug_assert_ne!(position, FREE);
        if self.slots.is_empty() {
            self.slots = vec![(crate::NodeId::DOCUMENT, FREE); SLOTS];
        }
        let slot = &mut self.slots[Self::slot(id)];
        if slot.1 != FREE && slot.0 == id {
            slot.1 = position;
        } else if !self.overflow.is_empty()
            && let Some(p) = self.overflow.get_mut(&id)
        {
            *p = position;
        } else if slot.1 == FREE {
            *slot = (id, position);
        } else {
            self.overflow.insert(id, position);
        }
    }

    #[inline]
    pub(crate) fn get(&self, id: &crate::NodeId) -> Option<&u32> {
        match self.slots.get(Self::slot(*id)) {
            Some((k, p)) if *p != FREE && k == id => Some(p),
            _ if self.overflow.is_empty() => None,
            _ => self.overflow.get(id),
        }
    }

    #[inline]
    pub(crate) fn remove(&mut self, id: &crate::NodeId) -> Option<u32> {
        if let Some(slot) = self.slots.get_mut(Self::slot(*id))
            && slot.1 != FREE
            && slot.0 == *id
        {
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
        let slots = self.slots.iter().filter(|(_, p)| *p != FREE).copied();
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
