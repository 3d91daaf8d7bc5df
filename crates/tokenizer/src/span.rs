//! Byte spans: absolute ([`Span`]) and relative to a token's first byte ([`Rel`]).

/// A half-open range of absolute byte offsets in the input stream.
///
/// Offsets count bytes from the first byte ever fed to the tokenizer, across
/// all chunks, so they stay meaningful whatever the chunking.
///
/// # Example
/// ```
/// use htrewrite_tokenizer::Span;
/// let s = Span::new(4, 9);
/// assert_eq!(s.len(), 5);
/// assert!(!s.is_empty());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Span {
    /// Offset of the first byte.
    pub start: u64,
    /// Offset one past the last byte.
    pub end: u64,
}

impl Span {
    /// The span `start..end`.
    ///
    /// # Panics
    /// Debug builds panic if `start > end`.
    pub const fn new(start: u64, end: u64) -> Span {
        debug_assert!(start <= end);
        Span { start, end }
    }

    /// Number of bytes covered.
    pub const fn len(&self) -> u64 {
        self.end - self.start
    }

    /// Whether the span covers no byte.
    pub const fn is_empty(&self) -> bool {
        self.start == self.end
    }
}

/// A half-open byte range relative to the first byte of a token's raw bytes.
///
/// `Rel` is `Copy` (unlike `Range<usize>`), so spans can be stored in plain
/// arrays that the tokenizer reuses between tokens.
///
/// # Example
/// ```
/// use htrewrite_tokenizer::Rel;
/// let r = Rel::new(1, 4);
/// assert_eq!(r.slice(b"<abc>"), b"abc");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Rel {
    /// Index of the first byte.
    pub start: usize,
    /// Index one past the last byte.
    pub end: usize,
}

impl Rel {
    /// The range `start..end`.
    pub const fn new(start: usize, end: usize) -> Rel {
        Rel { start, end }
    }

    /// Number of bytes covered.
    pub const fn len(&self) -> usize {
        self.end - self.start
    }

    /// Whether the range covers no byte.
    pub const fn is_empty(&self) -> bool {
        self.start == self.end
    }

    /// The bytes of `raw` this range covers.
    ///
    /// # Panics
    /// If the range is out of bounds of `raw`.
    pub fn slice<'a>(&self, raw: &'a [u8]) -> &'a [u8] {
        &raw[self.start..self.end]
    }

    /// This range made absolute, for a token starting at `base`.
    pub const fn absolute(&self, base: u64) -> crate::Span {
        crate::Span::new(base + self.start as u64, base + self.end as u64)
    }
}
