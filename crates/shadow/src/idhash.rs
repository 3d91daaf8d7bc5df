//! A fast hasher for [`NodeId`](crate::NodeId) keys: ids are sequential
//! numbers the shadow hands out itself (never chosen by the input), so a
//! multiplicative hash spreads them without the cost of SipHash.

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
