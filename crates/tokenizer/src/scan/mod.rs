//! The raw scanner's state handlers, grouped by spec subsection.
//!
//! Each handler runs one state on `chunk[i..]` and returns the index of the
//! next byte to consume. Handlers consume runs of bytes with `memchr` where
//! the state allows (text, comments, quoted values), and follow the Standard
//! exactly where bytes decide a token boundary. Decoding and most parse
//! errors are left to the token views (`decode/`), which re-run the full
//! spec states over one token's bytes.

mod data;
mod markup;
mod script;
mod tag;

/// The index of the first `needle` in `hay`: the first 32 bytes are
/// checked directly, eight at a time (adjacent tags, `><`, and short text
/// runs are common, and `memchr`'s set-up costs more than the check), then
/// `memchr`. Measured (callgrind, the lol-html bench pages through the
/// pass-through rewriter, whole pipeline): 74,582,824 instructions with 32
/// bytes, 74,738,594 with 16, 74,603,182 with 48.
#[inline(always)]
pub(crate) fn find_byte(needle: u8, hay: &[u8]) -> Option<usize> {
    find_first(hay, |b| b == needle, |w| equal_flags(w, needle), |rest| memchr::memchr(needle, rest))
}

/// The index of the first `<` or NUL in `hay`, as [`find_byte`] finds one
/// byte (then `memchr2`): the data state's scan, which so also learns that
/// the text before the `<` has no U+0000
/// ([`Token::scanned_without_nul`](crate::Token::scanned_without_nul)).
#[inline(always)]
pub(crate) fn find_less_than_or_nul(hay: &[u8]) -> Option<usize> {
    // The lowest flag of each is exact, so the lowest of both is.
    let flags = |w| equal_flags(w, b'<') | equal_flags(w, 0);
    find_first(hay, |b| b == b'<' || b == 0, flags, |rest| memchr::memchr2(b'<', 0, rest))
}

/// The scan of [`find_byte`] and [`find_less_than_or_nul`]: the first 32
/// bytes eight at a time by `flags` (bit 7 of a byte that `is` accepts, the
/// lowest flag exact), fewer than eight left one by one, then `tail` (a
/// `memchr` of the same bytes) on the rest.
#[inline(always)]
fn find_first(
    hay: &[u8],
    is: impl Fn(u8) -> bool,
    flags: impl Fn(u64) -> u64,
    tail: impl FnOnce(&[u8]) -> Option<usize>,
) -> Option<usize> {
    let mut j = 0;
    while j < 32 {
        let Some(word) = hay[j..].first_chunk::<8>() else {
            // Fewer than eight bytes left: one by one.
            return hay[j..].iter().position(|&b| is(b)).map(|k| j + k);
        };
        let f = flags(u64::from_le_bytes(*word));
        if f != 0 {
            return Some(j + (f.trailing_zeros() / 8) as usize);
        }
        j += 8;
    }
    tail(&hay[32..]).map(|k| k + 32)
}

/// The first eight bytes of `word` as a little-endian word (the first byte lowest).
#[inline(always)]
pub(crate) fn load(word: &[u8]) -> u64 {
    u64::from_le_bytes([word[0], word[1], word[2], word[3], word[4], word[5], word[6], word[7]])
}

/// Bit 7 of every byte of `x` that equals `b`, and maybe of bytes above the
/// first one (a borrow may flag them): only the lowest flag is exact.
#[inline(always)]
pub(crate) fn equal_flags(x: u64, b: u8) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let y = x ^ (ONES * b as u64);
    y.wrapping_sub(ONES) & !y & HIGH
}

#[cfg(test)]
mod tests {
    use super::{find_byte, find_less_than_or_nul};
    use proptest::prelude::*;

    proptest! {
        /// `find_byte` equals the obvious scan, wherever the needle lies
        /// relative to its 8-byte words and its `memchr` tail.
        #[test]
        fn find_byte_is_position(hay in proptest::collection::vec(prop_oneof![Just(b'<'), Just(b'a'), Just(0u8), Just(0x3du8), Just(0xbcu8), any::<u8>()], 0..80), skip in 0usize..40) {
            let skip = skip.min(hay.len());
            for needle in [b'<', b'-', b'>'] {
                let naive = hay[skip..].iter().position(|&b| b == needle);
                prop_assert_eq!(find_byte(needle, &hay[skip..]), naive);
            }
            let naive = hay[skip..].iter().position(|&b| b == b'<' || b == 0);
            prop_assert_eq!(find_less_than_or_nul(&hay[skip..]), naive);
        }
    }
}
