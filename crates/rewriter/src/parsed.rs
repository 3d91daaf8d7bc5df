//! Parsed content ([`ContentType::ParsedHtml`]): markup that the rewriter's
//! own parse reads where it stands, as if it were part of the document.
//!
//! Such content can only go where the parse has not gone past: right after
//! the token it has just read (an element's start tag, for content at the
//! start of the element; its end tag, for content after it). A handler
//! that asks for it leaves a [`ParseInsert`] in the core; the core's
//! feedback then makes the tokenizer return right after that token, and
//! the rewriter feeds, before the rest of its input, the inserted bytes —
//! or, for a slot, the slot's content as it arrives, waiting (taking no
//! more input) until the slot is finished. Content read this way may ask
//! for more parsed content: [`ParseQueue`] is a stack of what the parse
//! reads next, innermost on top.

use encoding_rs::Encoding;

use crate::ContentType;
use crate::deferred::{SlotCtx, encode_slot_chunk};
use crate::error::EditError;
use crate::slot::Slot;

/// Parsed content a handler asked for at the current token.
#[derive(Debug)]
pub(crate) enum ParseInsert {
    /// Markup given at once (tokenizer bytes).
    Content(Vec<u8>),
    /// Markup that comes later through the slot, landing in `SlotCtx`.
    Slot(Slot, SlotCtx),
}

/// A slot whose content the parse reads.
#[derive(Debug)]
struct ParseSlot {
    slot: Slot,
    ctx: SlotCtx,
    /// The nesting level of its content.
    level: u32,
    /// Content taken and encoded (tokenizer bytes), not read yet.
    queued: Vec<u8>,
    /// The first bytes of an unfinished UTF-8 sequence at the end of the
    /// last chunk.
    utf8: Vec<u8>,
    /// Text held back where it may begin the element's end (see
    /// [`encode_slot_chunk`]).
    hold: String,
    /// Whether all content came (or the slot was cancelled).
    finished: bool,
}

/// One thing the parse reads before the input that follows.
#[derive(Debug)]
enum Entry {
    /// Bytes taken and not read yet (tokenizer bytes), from an offset (the
    /// bytes before it were read: a pause keeps the buffer and moves the
    /// offset, so that bytes are never copied twice), at a nesting level
    /// (0: the input; content parsed inside content at level n is at n + 1).
    Bytes { bytes: Vec<u8>, from: usize, level: u32 },
    /// A slot's content, then (once it is finished) what is below.
    Slot(ParseSlot),
}

/// What the parse reads next, before any more input: empty in the common
/// case; else a stack, the top read first.
#[derive(Debug, Default)]
pub(crate) struct ParseQueue {
    stack: Vec<Entry>,
}

impl ParseQueue {
    /// Whether the parse reads the input next (nothing waits).
    #[inline(always)]
    pub(crate) fn is_empty(&self) -> bool {
        self.stack.is_empty()
    }

    /// Bytes held: taken input and slot content not read yet.
    pub(crate) fn held_bytes(&self) -> usize {
        self.stack
            .iter()
            .map(|e| match e {
                Entry::Bytes { bytes, from, .. } => bytes.len() - from,
                Entry::Slot(s) => s.queued.len() + s.utf8.len() + s.hold.len(),
            })
            .sum()
    }

    /// The parse slots not finished yet.
    pub(crate) fn pending(&self) -> impl Iterator<Item = Slot> + '_ {
        self.stack.iter().filter_map(|e| match e {
            Entry::Slot(s) if !s.finished => Some(s.slot),
            _ => None,
        })
    }

    /// Whether `slot` is a parse slot not finished yet.
    pub(crate) fn has(&self, slot: Slot) -> bool {
        self.pending().any(|s| s == slot)
    }

    /// Whether the parse reads `slot`'s content next (nothing was inserted
    /// in it that waits).
    pub(crate) fn reads(&self, slot: Slot) -> bool {
        matches!(self.stack.last(), Some(Entry::Slot(s)) if s.slot == slot)
    }

    /// The parse stopped after a token, `bytes[from..]` of what it was
    /// reading (at nesting `level`) not read: `inserts` come first, in
    /// order, then those bytes (kept where they are).
    pub(crate) fn paused(&mut self, bytes: Vec<u8>, from: usize, level: u32, inserts: Vec<ParseInsert>) {
        if from < bytes.len() {
            self.stack.push(Entry::Bytes { bytes, from, level });
        }
        for insert in inserts.into_iter().rev() {
            self.stack.push(match insert {
                ParseInsert::Content(bytes) => Entry::Bytes { bytes, from: 0, level: level + 1 },
                ParseInsert::Slot(slot, ctx) => Entry::Slot(ParseSlot {
                    slot,
                    ctx,
                    level: level + 1,
                    queued: Vec::new(),
                    utf8: Vec::new(),
                    hold: String::new(),
                    finished: false,
                }),
            });
        }
    }

    /// Input taken while the parse waits: it is read after everything here.
    pub(crate) fn push_input(&mut self, bytes: &[u8]) {
        match self.stack.first_mut() {
            Some(Entry::Bytes { bytes: b, level: 0, .. }) => b.extend_from_slice(bytes),
            _ => self.stack.insert(0, Entry::Bytes { bytes: bytes.to_vec(), from: 0, level: 0 }),
        }
    }

    /// The bytes the parse reads next — `bytes[from..]` — with their
    /// nesting level, or `None` when it waits for a slot's content (or
    /// nothing waits). Hand what a pause leaves back with [`ParseQueue::paused`].
    pub(crate) fn next(&mut self) -> Option<(Vec<u8>, usize, u32)> {
        loop {
            match self.stack.last_mut()? {
                Entry::Bytes { .. } => {
                    let Some(Entry::Bytes { bytes, from, level }) = self.stack.pop() else {
                        unreachable!("matched above")
                    };
                    return Some((bytes, from, level));
                }
                Entry::Slot(s) if !s.queued.is_empty() => return Some((std::mem::take(&mut s.queued), 0, s.level)),
                Entry::Slot(s) if s.finished => {
                    self.stack.pop();
                }
                Entry::Slot(_) => return None,
            }
        }
    }

    /// Takes `chunk` (UTF-8, cut anywhere) of `ty` for the parse slot
    /// `slot` ([`ParseQueue::has`]); `last` ends its content. Every type is
    /// parsed: `Text` is escaped for where the slot lands first. All or
    /// nothing: on an error nothing was taken.
    pub(crate) fn accept(
        &mut self,
        slot: Slot,
        chunk: &[u8],
        ty: ContentType,
        last: bool,
        encoding: &'static Encoding,
    ) -> Result<(), EditError> {
        let Some(s) = self.slot_mut(slot) else { return Ok(()) };
        let ty = if ty == ContentType::Text { ContentType::Text } else { ContentType::Html };
        let (bytes, utf8, hold) = encode_slot_chunk(&s.ctx, &s.utf8, &s.hold, chunk, ty, last, encoding)?;
        s.queued.extend_from_slice(&bytes);
        s.utf8 = utf8;
        s.hold = hold;
        s.finished |= last;
        Ok(())
    }

    /// Gives the parse slot `slot` up: what was streamed stays, ended here
    /// (held-back text the place cannot take at the end is dropped).
    pub(crate) fn cancel(&mut self, slot: Slot, encoding: &'static Encoding) {
        if self.accept(slot, b"", ContentType::Html, true, encoding).is_err()
            && let Some(s) = self.slot_mut(slot)
        {
            s.utf8.clear();
            s.hold.clear();
            s.finished = true;
        }
    }

    fn slot_mut(&mut self, slot: Slot) -> Option<&mut ParseSlot> {
        self.stack.iter_mut().find_map(|e| match e {
            Entry::Slot(s) if s.slot == slot && !s.finished => Some(s),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pause in queued bytes keeps their buffer (moves the offset): the
    /// bytes of a piece are copied once however many pauses it holds, so
    /// many parsed inserts in one piece cost linear work.
    #[test]
    fn a_pause_keeps_the_buffer() {
        let mut q = ParseQueue::default();
        q.paused(b"<p>rest of the piece".to_vec(), 3, 0, vec![ParseInsert::Content(b"<i>".to_vec())]);
        let (insert, from, level) = q.next().expect("the insert first");
        assert_eq!((&insert[from..], level), (&b"<i>"[..], 1));
        let (rest, from, level) = q.next().expect("then the rest");
        assert_eq!((&rest[from..], level), (&b"rest of the piece"[..], 0));
        let at = rest.as_ptr();
        // Another pause after `rest `: the same buffer comes back.
        q.paused(rest, from + 5, 0, vec![ParseInsert::Content(b"<b>".to_vec())]);
        q.next().expect("the second insert");
        let (again, from, _) = q.next().expect("the rest again");
        assert_eq!(again.as_ptr(), at, "the rest was copied");
        assert_eq!(&again[from..], b"of the piece");
        assert!(q.next().is_none() && q.is_empty());
    }
}
