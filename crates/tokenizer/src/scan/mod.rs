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

/// The index of the first `needle` in `hay`: the first byte is checked
/// directly (adjacent tags, `><`, and empty values are common, and
/// `memchr`'s set-up costs more than the check), then `memchr`.
#[inline(always)]
pub(crate) fn find_byte(needle: u8, hay: &[u8]) -> Option<usize> {
    match hay.first() {
        Some(&b) if b == needle => Some(0),
        Some(_) => memchr::memchr(needle, &hay[1..]).map(|k| k + 1),
        None => None,
    }
}
