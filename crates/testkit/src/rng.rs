//! Seeded generators, the name hash seeds derive from, and `HTREWRITE_SEED`.

/// 64-bit FNV-1a of `bytes`: stable across platforms and Rust versions (`std`'s hashers are
/// not), so a seed derived from a test's name stays the same.
///
/// # Example
///
/// ```
/// assert_eq!(htrewrite_testkit::fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
/// assert_eq!(htrewrite_testkit::fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
/// ```
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// A source of pseudo-random 64-bit numbers, with the ranges the tests draw from.
pub trait Random {
    /// The next 64 random bits.
    fn next_u64(&mut self) -> u64;

    /// A number in `0..n`, as `next_u64() % n`: the tiny modulo bias does not matter for
    /// choosing cut points and pieces, and every recorded seed depends on exactly this reduction.
    ///
    /// # Panics
    /// If `n` is 0.
    fn below(&mut self, n: usize) -> usize {
        assert!(n > 0, "below(0): an empty range");
        (self.next_u64() % n as u64) as usize
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014): the generator of the seeded random chunkings of the
/// conformance runner, the tokenizer, shadow, selector and rewriter tests.
///
/// # Example
///
/// ```
/// use htrewrite_testkit::{Random, SplitMix64};
/// let mut a = SplitMix64::new(7);
/// let mut b = SplitMix64::new(7);
/// assert_eq!(a.next_u64(), b.next_u64());
/// assert!(a.below(10) < 10);
/// ```
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator started at `seed` (any value, 0 included).
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }
}

impl Random for SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// xorshift64* (Vigna 2016): the generator of the fuzz targets' chunk splits, the replay
/// runner's generated inputs and the encoding property tests, whose recorded seeds (the two
/// header bytes of every committed fuzz input, `replay --random N --seed S` case numbers in
/// `fuzz/findings/README.md`) depend on its exact stream.
///
/// # Example
///
/// ```
/// use htrewrite_testkit::{Random, XorShift64Star};
/// let mut a = XorShift64Star::new(1);
/// let mut b = XorShift64Star::from_state(1u64.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
/// assert_eq!(a.next_u64(), b.next_u64());
/// ```
#[derive(Debug, Clone)]
pub struct XorShift64Star {
    state: u64,
}

impl XorShift64Star {
    /// A generator for `seed`: the state is `seed` times the golden ratio, made odd (never 0),
    /// so that nearby seeds start far apart.
    pub fn new(seed: u64) -> XorShift64Star {
        XorShift64Star::from_state(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// A generator whose state is `state` as given.
    ///
    /// # Panics
    /// If `state` is 0 (xorshift would give 0 forever).
    pub fn from_state(state: u64) -> XorShift64Star {
        assert!(state != 0, "xorshift64* needs a state other than 0");
        XorShift64Star { state }
    }
}

impl Random for XorShift64Star {
    fn next_u64(&mut self) -> u64 {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// The seed in `HTREWRITE_SEED`, if set: decimal or `0x` hexadecimal.
///
/// # Panics
/// If the variable is set but is not a `u64`: a mistyped replay must not silently run other cases.
pub fn env_seed() -> Option<u64> {
    let value = std::env::var("HTREWRITE_SEED").ok()?;
    Some(parse_seed(&value).unwrap_or_else(|| panic!("HTREWRITE_SEED={value:?} is not a u64")))
}

/// `s` as a decimal or `0x` hexadecimal `u64`.
fn parse_seed(s: &str) -> Option<u64> {
    let s = s.trim();
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The streams every recorded seed depends on, pinned: the first outputs as the copies this
    /// crate replaced computed them.
    #[test]
    fn streams_are_pinned() {
        // SplitMix64 from 0: the reference values of Vigna's splitmix64.c.
        let mut s = SplitMix64::new(0);
        assert_eq!(
            [s.next_u64(), s.next_u64(), s.next_u64()],
            [0xe220_a839_7b1d_cdaf, 0x6e78_9e6a_a1b9_65f4, 0x06c4_5d18_8009_454f]
        );
        let mut x = XorShift64Star::from_state(1);
        let first = x.next_u64();
        // state 1: 1 ^ (1 << 25) = 0x2000001, then ^ (>> 27) leaves it; times the multiplier.
        assert_eq!(first, 0x0200_0001u64.wrapping_mul(0x2545_F491_4F6C_DD1D));
    }

    #[test]
    fn below_stays_in_range_and_reduces_by_modulo() {
        let mut a = SplitMix64::new(42);
        let mut b = SplitMix64::new(42);
        for n in 1..200 {
            let v = a.below(n);
            assert!(v < n);
            assert_eq!(v as u64, b.next_u64() % n as u64);
        }
    }

    #[test]
    #[should_panic(expected = "below(0)")]
    fn below_zero_panics() {
        SplitMix64::new(1).below(0);
    }

    #[test]
    fn fnv_matches_the_reference_vectors() {
        // From the FNV reference test suite (draft-eastlake-fnv): "foobar".
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn seeds_parse_in_decimal_and_hex() {
        assert_eq!(parse_seed("24301"), Some(24301));
        assert_eq!(parse_seed(" 0x5eed "), Some(0x5eed));
        assert_eq!(parse_seed("0X5EED"), Some(0x5eed));
        assert_eq!(parse_seed("seed"), None);
        assert_eq!(parse_seed("0x"), None);
    }
}
