//! PLACEHOLDER — to be implemented (helper H1a).
use crate::ParseError;

/// Reports the Standard's input stream errors (control characters,
/// noncharacters, surrogates) over bytes fed in chunks of any size.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InputStreamChecker {
    _carry: [u8; 4],
}

impl InputStreamChecker {
    /// A checker at the start of the input.
    pub fn new() -> Self {
        Self::default()
    }
    /// Checks the next chunk; `base` is the absolute offset of `chunk[0]`.
    pub fn check(&mut self, chunk: &[u8], base: u64, report: &mut dyn FnMut(ParseError)) {
        let _ = (chunk, base, report);
        unimplemented!()
    }
    /// Ends the input.
    pub fn finish(&mut self, report: &mut dyn FnMut(ParseError)) {
        let _ = report;
        unimplemented!()
    }
}
