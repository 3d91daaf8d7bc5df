//! How an input is cut into chunks for [`Tokenizer::feed`](htrewrite_tokenizer::Tokenizer::feed).
//!
//! Every document-feeding test runs whole, at every byte (or every few bytes for big inputs) and in
//! three seeded random splittings; the seed comes from the trial name, so a failure is reproducible
//! from its printed seed.

use std::fmt;

use htrewrite_testkit::{Random, SplitMix64, fnv1a64};

/// One way of cutting an input into chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chunking {
    /// One chunk with the whole input.
    Whole,
    /// Chunks of `n` bytes (the last one shorter).
    Every(usize),
    /// Random chunk lengths from [`SplitMix64`] seeded with `seed`.
    Random {
        /// The seed.
        seed: u64,
    },
}

impl Chunking {
    /// The standard set for a trial: whole, every `every` bytes, and three random splittings
    /// seeded from `trial_name`.
    pub fn standard(trial_name: &str, every: usize) -> Vec<Chunking> {
        let base = fnv1a64(trial_name.as_bytes());
        let mut v = vec![Chunking::Whole, Chunking::Every(every)];
        for i in 0..3u64 {
            v.push(Chunking::Random { seed: base.wrapping_add(i.wrapping_mul(0x9e37_79b9_7f4a_7c15)) });
        }
        v
    }

    /// The chunk boundaries for an input of `len` bytes: the offsets where one chunk ends and the
    /// next begins, strictly increasing, each in `1..len`. [`Chunking::Whole`] has none.
    pub fn split_points(&self, len: usize) -> Vec<usize> {
        match *self {
            Chunking::Whole => Vec::new(),
            Chunking::Every(n) => {
                let n = n.max(1);
                (1..len.div_ceil(n)).map(|i| i * n).collect()
            }
            Chunking::Random { seed } => {
                let mut rng = SplitMix64::new(seed);
                // The longest chunk: sometimes tiny (many boundaries), sometimes up to the input.
                let max_chunk = match rng.below(4) {
                    0 => 4,
                    1 => 16,
                    2 => 256,
                    _ => len.max(1),
                };
                let mut points = Vec::new();
                let mut pos = 0usize;
                loop {
                    pos += 1 + rng.below(max_chunk);
                    if pos >= len {
                        break;
                    }
                    points.push(pos);
                }
                // A random splitting that does not split is wasted: cut at least once.
                if points.is_empty() && len >= 2 {
                    points.push(1 + rng.below(len - 1));
                }
                points
            }
        }
    }

    /// The chunks of `input` under this chunking, none empty, except that an empty input is one
    /// empty chunk.
    pub fn chunks<'a>(&self, input: &'a [u8]) -> Vec<&'a [u8]> {
        let points = self.split_points(input.len());
        let mut out = Vec::with_capacity(points.len() + 1);
        let mut start = 0;
        for p in points {
            out.push(&input[start..p]);
            start = p;
        }
        if start < input.len() || out.is_empty() {
            out.push(&input[start..]);
        }
        out
    }

    /// A description for failure messages, with the seed and the split points (the first 64 and a
    /// count when there are more; the seed reproduces all of them).
    pub fn describe(&self, len: usize) -> String {
        match *self {
            Chunking::Whole => "whole input in one chunk".to_owned(),
            Chunking::Every(1) => "one byte per chunk".to_owned(),
            Chunking::Every(n) => format!("{n} bytes per chunk"),
            Chunking::Random { seed } => {
                let points = self.split_points(len);
                let shown: Vec<String> = points.iter().take(64).map(|p| p.to_string()).collect();
                let more = if points.len() > 64 {
                    format!(", … ({} split points in all)", points.len())
                } else {
                    String::new()
                };
                format!("random split, seed {seed:#018x}, split at [{}{more}]", shown.join(", "))
            }
        }
    }
}

impl fmt::Display for Chunking {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Chunking::Whole => f.write_str("whole"),
            Chunking::Every(n) => write!(f, "every {n} byte(s)"),
            Chunking::Random { seed } => write!(f, "random (seed {seed:#018x})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_input() {
        let input: Vec<u8> = (0..100u8).collect();
        for c in Chunking::standard("x", 7) {
            let chunks = c.chunks(&input);
            assert_eq!(chunks.concat(), input, "{c}");
            assert!(chunks.iter().all(|c| !c.is_empty()));
        }
        assert_eq!(Chunking::Every(1).chunks(b""), vec![b"" as &[u8]]);
        assert_eq!(Chunking::Whole.chunks(b""), vec![b"" as &[u8]]);
    }
}
