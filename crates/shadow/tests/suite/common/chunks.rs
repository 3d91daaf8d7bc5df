//! The chunkings every document-feeding test runs: whole; for inputs up to [`EVERY_BYTE_LIMIT`]
//! bytes, one byte at a time and cut in two at every byte; and [`RANDOM_SPLITS`] seeded random
//! splittings.
//!
//! The seeds derive from the case name and `HTREWRITE_SEED` (a `u64`, default `0x5eed`), so a
//! failure printed with its seed reproduces with `HTREWRITE_SEED=<base>` and the same filter.

use htrewrite_testkit::{Random, SplitMix64, env_seed, fnv1a64};

/// Inputs up to this many bytes are also fed one byte at a time.
pub const EVERY_BYTE_LIMIT: usize = 256;

/// How many seeded random splittings each input gets.
pub const RANDOM_SPLITS: u64 = 3;

/// One way of cutting an input into chunks.
#[derive(Debug, Clone)]
pub struct Chunking {
    /// `whole`, `every byte`, `split at N` or `random seed=0x…`.
    pub name: String,
    /// The chunk lengths, summing to the input length (an empty input has no chunk).
    pub lengths: Vec<usize>,
}

impl Chunking {
    /// The chunks of `input`.
    pub fn chunks<'a>(&self, input: &'a [u8]) -> Vec<&'a [u8]> {
        let mut out = Vec::with_capacity(self.lengths.len());
        let mut at = 0;
        for &n in &self.lengths {
            out.push(&input[at..at + n]);
            at += n;
        }
        debug_assert_eq!(at, input.len());
        out
    }

    /// The offsets where the input is cut, for failure messages.
    pub fn cuts(&self) -> Vec<usize> {
        let mut at = 0;
        let mut cuts = Vec::new();
        for &n in &self.lengths[..self.lengths.len().saturating_sub(1)] {
            at += n;
            cuts.push(at);
        }
        cuts
    }
}

/// The base seed: `HTREWRITE_SEED` (decimal or `0x…`) or `0x5eed`.
pub fn base_seed() -> u64 {
    env_seed().unwrap_or(0x5eed)
}

/// Random chunk lengths for `len` bytes: mostly short chunks, sometimes long ones.
pub fn random_lengths(len: usize, seed: u64) -> Vec<usize> {
    let mut rng = SplitMix64::new(seed);
    let mut lengths = Vec::new();
    let mut left = len;
    while left > 0 {
        let max = if rng.next_u64().is_multiple_of(4) { 64 } else { 8 };
        let n = (1 + rng.below(max)).min(left);
        lengths.push(n);
        left -= n;
    }
    lengths
}

/// All chunkings for an input of `len` bytes of the case named `name`.
pub fn chunkings(name: &str, len: usize) -> Vec<Chunking> {
    let whole = if len == 0 { Vec::new() } else { vec![len] };
    let mut out = vec![Chunking { name: "whole".into(), lengths: whole }];
    if len <= EVERY_BYTE_LIMIT && len > 1 {
        out.push(Chunking { name: "every byte".into(), lengths: vec![1; len] });
        for at in 1..len {
            out.push(Chunking { name: format!("split at {at}"), lengths: vec![at, len - at] });
        }
    }
    if len > 1 {
        let base = base_seed();
        for k in 0..RANDOM_SPLITS {
            let seed =
                SplitMix64::new(base ^ fnv1a64(name.as_bytes()) ^ k.wrapping_mul(0x1234_5678_9abc_def1)).next_u64();
            out.push(Chunking {
                name: format!("random seed={seed:#018x} (HTREWRITE_SEED={base:#x})"),
                lengths: random_lengths(len, seed),
            });
        }
    }
    out
}
