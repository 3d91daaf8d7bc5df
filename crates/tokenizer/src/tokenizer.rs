//! The [`Tokenizer`]: chunk feeding, buffering and token emission.

use crate::{State, TextMode, TokenSink};

/// A resumable, lossless HTML tokenizer. See the [crate docs](crate).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tokenizer {
    pub(crate) state: State,
}

impl Default for Tokenizer {
    fn default() -> Self {
        Self::new()
    }
}

impl Tokenizer {
    /// A tokenizer at the start of a document, in the data state.
    pub fn new() -> Tokenizer {
        unimplemented!()
    }

    /// A tokenizer that starts in `mode`, as for a fragment whose context
    /// element is `last_start_tag` (the end tag that leaves RCDATA, RAWTEXT
    /// or script data), or for html5lib's `initialStates`/`lastStartTag`.
    pub fn with_text_mode(mode: TextMode, last_start_tag: Option<&[u8]>) -> Tokenizer {
        let _ = (mode, last_start_tag);
        unimplemented!()
    }

    /// Sets whether `<![CDATA[` opens a CDATA section.
    pub fn set_cdata_allowed(&mut self, allowed: bool) {
        let _ = allowed;
        unimplemented!()
    }

    /// Turns on the input stream errors (control characters, noncharacters),
    /// reported through [`TokenSink::parse_error`].
    pub fn set_report_input_errors(&mut self, on: bool) {
        let _ = on;
        unimplemented!()
    }

    /// Feeds the next chunk.
    pub fn feed<S: TokenSink + ?Sized>(&mut self, chunk: &[u8], sink: &mut S) {
        let _ = (chunk, sink);
        unimplemented!()
    }

    /// Ends the input.
    pub fn finish<S: TokenSink + ?Sized>(&mut self, sink: &mut S) {
        let _ = sink;
        unimplemented!()
    }

    /// The absolute offset of the next byte to be fed.
    pub fn offset(&self) -> u64 {
        unimplemented!()
    }
}
