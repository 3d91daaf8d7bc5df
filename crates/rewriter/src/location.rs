//! Source locations: byte ranges, and lines and columns on request.

use std::ops::Range;

/// Where something is in the input.
///
/// Offsets are bytes of the input as given (for UTF-16 documents: of the
/// UTF-8 the tokenizer reads). `line` and `column` (1-based; the column counts
/// bytes) are set when [`Settings::track_lines`](crate::Settings::track_lines) is on.
///
/// # Example
/// ```
/// use htrewrite::{Settings, rewrite_str};
/// let mut at = None;
/// let settings = Settings::new().track_lines(true).element("b", |el| {
///     at = Some(el.source_location());
///     Ok(())
/// });
/// rewrite_str("<p>\n  <b>x</b>", settings)?;
/// let at = at.unwrap();
/// assert_eq!((at.bytes, at.line, at.column), (6..9, Some(2), Some(3)));
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SourceLocation {
    /// The byte range (empty for something without bytes, e.g. an implied end).
    pub bytes: Range<u64>,
    /// The line of the first byte (1-based), when tracked.
    pub line: Option<u64>,
    /// The column of the first byte (1-based, in bytes), when tracked.
    pub column: Option<u64>,
}

/// Counts lines over the tokens in order.
#[derive(Debug, Clone, Default)]
pub(crate) struct Lines {
    /// Number of `\n` before `counted`.
    newlines: u64,
    /// Offset one past the last `\n` counted.
    line_start: u64,
    /// Offset up to which bytes were counted.
    counted: u64,
}

impl Lines {
    /// Counts the newlines of `raw`, which starts at `start` (tokens arrive in order).
    pub(crate) fn advance(&mut self, raw: &[u8], start: u64) {
        if start + (raw.len() as u64) <= self.counted {
            return;
        }
        let skip = self.counted.saturating_sub(start) as usize;
        for i in memchr::memchr_iter(b'\n', &raw[skip..]) {
            self.newlines += 1;
            self.line_start = start + (skip + i) as u64 + 1;
        }
        self.counted = start + raw.len() as u64;
    }

    /// The location of `bytes`, whose start must not lie before the bytes counted.
    pub(crate) fn locate(&self, bytes: Range<u64>) -> SourceLocation {
        let column = bytes.start.saturating_sub(self.line_start) + 1;
        SourceLocation { line: Some(self.newlines + 1), column: Some(column), bytes }
    }
}

/// Locates `bytes`, with lines when `lines` is given.
pub(crate) fn locate(lines: Option<&Lines>, bytes: Range<u64>) -> SourceLocation {
    match lines {
        Some(l) => l.locate(bytes),
        None => SourceLocation { bytes, line: None, column: None },
    }
}
