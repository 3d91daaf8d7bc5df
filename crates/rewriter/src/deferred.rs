//! Deferred content below the [`Rewriter`](crate::Rewriter): the core marks
//! where slots open and close in its output ([`SlotLog`]); [`Held`] writes
//! the output in order, holding everything from the first undecided slot
//! on, and takes the content of slots as it arrives, whole or streamed.
//!
//! Output is a queue of segments: bytes, and the opening and closing marks
//! of slots. A slot's mark pair stands over its *original*: nothing for
//! the insertion slots (`defer_before` …), the element for
//! `defer_replace`, its content for `defer_inner_content`, the value for
//! `defer_attribute`. When the queue's front reaches a slot's opening mark,
//! the slot's content (if any) is written and, once the slot is finished,
//! its original is skipped up to its closing mark; a slot cancelled with
//! [`Fallback::KeepOriginal`] keeps it. Slots whose opening mark lies in
//! a skipped original are dropped (filling them is then a no-op).
//!
//! Content is written with the same care as the core's insertions: text
//! escaped for where it lands (streamed chunk by chunk: the escaping of a
//! character never depends on the next, and text that could begin a
//! closing sequence in RAWTEXT, script data or a CDATA section waits for
//! the next chunk), and the first bytes checked against the bytes really
//! written before them ([`join_guard`]), so the result is the same whatever
//! the chunking of the fills and the order slots are filled in.

use std::collections::{HashMap, VecDeque};

use encoding_rs::Encoding;

use crate::ContentType;
use crate::content::{Escapes, Join, join_guard, push_content, push_escaped};
use crate::core::{ContextOwned, Tail};
use crate::error::{EditError, RewritingError};
use crate::slot::{Fallback, Slot, SlotError, SlotErrorKind};

/// How many bytes of a slot's content are gathered before the join guard
/// looks at them, so that its verdict does not depend on how the content
/// was cut: in RAWTEXT, script data and CDATA more than the longest
/// sequence it refuses to complete (`</noscript`); elsewhere it reads the
/// first character only, and content always comes in whole characters.
fn guard_head(ctx: &SlotCtx) -> usize {
    match ctx {
        SlotCtx::Content(ContextOwned::Rawtext(_) | ContextOwned::ScriptData | ContextOwned::CdataSection) => 16,
        _ => 1,
    }
}

/// Where a slot's content lands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SlotCtx {
    /// Among other content, read in this tokenizer context.
    Content(ContextOwned),
    /// Inside an attribute value quoted with this byte (`"` or `'`): all
    /// content is the value's text, escaped for the quote.
    Attribute { quote: u8 },
}

/// A mark in the core's output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mark {
    /// The slot's place (and the start of its original) begins here.
    Open(Slot),
    /// The slot's original ends here.
    Close(Slot),
}

/// What the core tells the output about slots, with the output it stages.
#[derive(Debug, Default)]
pub(crate) struct SlotLog {
    /// Marks at offsets of the staged output, in order.
    pub(crate) marks: Vec<(usize, Mark)>,
    /// Slots handlers made, with where their content lands.
    pub(crate) created: Vec<(Slot, SlotCtx)>,
    /// Slots whose place was removed before it was written (their element
    /// or its content was removed, or they were given up by a later edit).
    pub(crate) discarded: Vec<Slot>,
}

impl SlotLog {
    #[inline(always)]
    pub(crate) fn is_empty(&self) -> bool {
        self.marks.is_empty() && self.created.is_empty() && self.discarded.is_empty()
    }

    pub(crate) fn clear(&mut self) {
        self.marks.clear();
        self.created.clear();
        self.discarded.clear();
    }
}

/// One piece of held output.
#[derive(Debug)]
enum Seg {
    /// Core output (tokenizer bytes: UTF-8 for UTF-16 documents).
    Bytes(Vec<u8>),
    /// Bytes for the sink as they are (input copied after the rewriter
    /// stopped parsing).
    Raw(Vec<u8>),
    Mark(Mark),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    /// Content may still come.
    Open,
    /// All content came.
    Finished,
    Cancelled(Fallback),
    /// Its place was removed: content is dropped.
    Discarded,
}

/// One slot not written yet.
#[derive(Debug)]
struct SlotState {
    ctx: SlotCtx,
    status: Status,
    /// Content taken and encoded, not written yet.
    content: Vec<u8>,
    /// The first bytes of an unfinished UTF-8 sequence at the end of the
    /// last chunk.
    utf8: Vec<u8>,
    /// Text held back in RAWTEXT, script data or CDATA: it may begin a
    /// sequence the next chunk would complete.
    hold: String,
    /// Whether the join guard has passed the first bytes.
    guarded: bool,
    /// Whether any content was taken.
    accepted: bool,
}

impl SlotState {
    fn held(&self) -> usize {
        self.content.len() + self.utf8.len() + self.hold.len()
    }
}

/// The output's holding side, made when the first slot is: the slots, the
/// queue of output held after the first undecided one, and the last bytes
/// written (for the join guard).
#[derive(Debug)]
pub(crate) struct Held {
    slots: HashMap<Slot, SlotState>,
    /// One more than the highest slot number registered.
    known: u64,
    queue: VecDeque<Seg>,
    /// Bytes in `queue` and in slots' content.
    held: usize,
    /// The slot at the front whose content is being written through.
    writing: Option<Slot>,
    /// The finished or emptied slot whose original is being skipped.
    skipping: Option<Slot>,
    /// The last bytes written (tokenizer bytes).
    tail: Tail,
    encoding: &'static Encoding,
}

/// Where [`Held`] writes: `(bytes, raw)`, `raw` for bytes that go to the
/// sink as they are, else tokenizer bytes (converted for UTF-16 documents).
/// The bytes are handed over ([`OutputSink::write_owned`]): held output is
/// not copied once more on its way out.
///
/// [`OutputSink::write_owned`]: crate::OutputSink::write_owned
pub(crate) type Write<'a> = &'a mut dyn FnMut(Vec<u8>, bool) -> std::io::Result<()>;

impl Held {
    /// Held output for a document in `encoding`, after output whose last
    /// bytes are `tail`.
    pub(crate) fn new(encoding: &'static Encoding, tail: Tail) -> Held {
        Held {
            slots: HashMap::new(),
            known: 0,
            queue: VecDeque::new(),
            held: 0,
            writing: None,
            skipping: None,
            tail,
            encoding,
        }
    }

    /// Bytes held: output after the first undecided slot and slot content
    /// not written yet (with a small cost per slot).
    pub(crate) fn held_bytes(&self) -> usize {
        self.held + self.slots.len() * 64
    }

    /// Output bytes held: after the first undecided slot, and slot
    /// content not written yet.
    pub(crate) fn held_output(&self) -> usize {
        self.held
    }

    /// Whether nothing is held or waits: output goes straight to the sink.
    pub(crate) fn idle(&self) -> bool {
        self.queue.is_empty() && self.writing.is_none() && self.skipping.is_none()
    }

    /// The slots made and not yet finished or cancelled, in order.
    pub(crate) fn pending(&self) -> Vec<Slot> {
        let mut v: Vec<Slot> = self.slots.iter().filter(|(_, s)| s.status == Status::Open).map(|(&k, _)| k).collect();
        v.sort_unstable();
        v
    }

    /// Takes the core's staged output and log.
    pub(crate) fn push(&mut self, bytes: &[u8], log: &mut SlotLog, w: Write<'_>) -> Result<(), RewritingError> {
        for (slot, ctx) in log.created.drain(..) {
            self.known = self.known.max(slot.0 + 1);
            self.slots.insert(
                slot,
                SlotState {
                    ctx,
                    status: Status::Open,
                    content: Vec::new(),
                    utf8: Vec::new(),
                    hold: String::new(),
                    guarded: false,
                    accepted: false,
                },
            );
        }
        for slot in log.discarded.drain(..) {
            self.discard(slot);
        }
        let mut at = 0;
        for (offset, mark) in log.marks.drain(..) {
            self.push_bytes(&bytes[at..offset], false);
            at = offset;
            self.queue.push_back(Seg::Mark(mark));
        }
        self.push_bytes(&bytes[at..], false);
        self.pump(w)
    }

    /// Queues bytes (`raw`: for the sink as they are); [`Held::pump`] writes them.
    pub(crate) fn push_bytes(&mut self, bytes: &[u8], raw: bool) {
        if bytes.is_empty() {
            return;
        }
        self.held += bytes.len();
        match self.queue.back_mut() {
            Some(Seg::Bytes(b)) if !raw => b.extend_from_slice(bytes),
            Some(Seg::Raw(b)) if raw => b.extend_from_slice(bytes),
            _ => self.queue.push_back(if raw { Seg::Raw(bytes.to_vec()) } else { Seg::Bytes(bytes.to_vec()) }),
        }
    }

    fn discard(&mut self, slot: Slot) {
        if let Some(s) = self.slots.get_mut(&slot) {
            self.held -= s.held();
            s.content = Vec::new();
            s.utf8 = Vec::new();
            s.hold = String::new();
            s.status = Status::Discarded;
        }
    }

    /// The slot's state for taking content or a decision.
    fn open_slot(&mut self, slot: Slot) -> Result<Option<&mut SlotState>, SlotError> {
        match self.slots.get_mut(&slot) {
            Some(s) if s.status == Status::Open => Ok(Some(s)),
            Some(s) if s.status == Status::Discarded => Ok(None),
            Some(_) => Err(SlotError::new(slot, SlotErrorKind::Resolved)),
            None if slot.0 < self.known => Err(SlotError::new(slot, SlotErrorKind::Resolved)),
            None => Err(SlotError::new(slot, SlotErrorKind::Unknown)),
        }
    }

    /// Whether `slot` is written through as its content arrives.
    pub(crate) fn is_writing(&self, slot: Slot) -> bool {
        self.writing == Some(slot)
    }

    /// Takes `chunk` (UTF-8, cut anywhere) of `ty` for `slot`; `last` ends
    /// the slot's content. All or nothing: on an error nothing was taken.
    pub(crate) fn accept(
        &mut self,
        slot: Slot,
        chunk: &[u8],
        ty: ContentType,
        last: bool,
        w: Write<'_>,
    ) -> Result<(), RewritingError> {
        let encoding = self.encoding;
        let Some(s) = self.open_slot(slot).map_err(RewritingError::Slot)? else { return Ok(()) };
        let (bytes, utf8, hold) = encode_slot_chunk(&s.ctx, &s.utf8, &s.hold, chunk, ty, last, encoding)
            .map_err(|e| RewritingError::Slot(SlotError { slot, kind: SlotErrorKind::Content, content: Some(e) }))?;
        let before = s.held();
        s.content.extend_from_slice(&bytes);
        s.utf8 = utf8;
        s.hold = hold;
        s.accepted |= !chunk.is_empty();
        if last {
            s.status = Status::Finished;
        }
        let after = s.held();
        self.held = self.held + after - before;
        self.pump(w)
    }

    /// Gives `slot` up: what it becomes is `fallback`, unless content was
    /// taken already, which then ends it.
    pub(crate) fn cancel(&mut self, slot: Slot, fallback: Fallback, w: Write<'_>) -> Result<(), RewritingError> {
        let encoding = self.encoding;
        let Some(s) = self.open_slot(slot).map_err(RewritingError::Slot)? else { return Ok(()) };
        if s.accepted {
            // Content came: it stays, as what was taken so far (a stream
            // that broke off), finished here.
            let (bytes, _, _) =
                encode_slot_chunk(&s.ctx, &s.utf8, &s.hold, b"", ContentType::Html, true, encoding).unwrap_or_default();
            let before = s.held();
            s.content.extend_from_slice(&bytes);
            s.utf8.clear();
            s.hold.clear();
            s.status = Status::Finished;
            let after = s.held();
            self.held = self.held + after - before;
        } else {
            s.status = Status::Cancelled(fallback);
        }
        self.pump(w)
    }

    /// The open ranges of slots are closed here (after a failure, when the
    /// core will place no more marks): what follows is not skipped.
    pub(crate) fn close_all(&mut self, w: Write<'_>) -> Result<(), RewritingError> {
        let mut open: Vec<Slot> = self.slots.keys().copied().chain(self.skipping).chain(self.writing).collect();
        open.sort_unstable();
        for slot in open {
            self.queue.push_back(Seg::Mark(Mark::Close(slot)));
        }
        self.pump(w)
    }

    /// Writes what can be written: the queue up to the first slot whose
    /// content is not finished.
    pub(crate) fn pump(&mut self, w: Write<'_>) -> Result<(), RewritingError> {
        loop {
            if let Some(slot) = self.writing {
                let Some(s) = self.slots.get_mut(&slot) else {
                    self.writing = None;
                    continue;
                };
                match s.status {
                    Status::Cancelled(fallback) => {
                        // Cancelled with nothing taken: as if cancelled before it came first.
                        self.slots.remove(&slot);
                        self.writing = None;
                        self.skipping = (fallback == Fallback::Empty).then_some(slot);
                        continue;
                    }
                    Status::Discarded => {
                        self.slots.remove(&slot);
                        self.writing = None;
                        continue;
                    }
                    Status::Open | Status::Finished => {}
                }
                let finished = s.status == Status::Finished;
                if !s.content.is_empty() && (s.guarded || s.content.len() >= guard_head(&s.ctx) || finished) {
                    let mut content = std::mem::take(&mut s.content);
                    let n = content.len();
                    if !s.guarded {
                        s.guarded = true;
                        if let SlotCtx::Content(ctx) = &s.ctx {
                            match join_guard(self.tail.get(), &content, ctx.get(), self.encoding) {
                                Join::Keep => {}
                                Join::Escape { len, reference } => {
                                    content.splice(..len, reference.into_bytes());
                                }
                                Join::Refuse(e) => {
                                    self.held -= n;
                                    return Err(RewritingError::Insertion(e));
                                }
                            }
                        }
                    }
                    self.held -= n;
                    self.tail = self.tail.then(&content);
                    w(content, false).map_err(RewritingError::Output)?;
                }
                if !finished {
                    return Ok(());
                }
                let s = self.slots.remove(&slot).expect("checked above");
                self.held -= s.held();
                self.writing = None;
                self.skipping = Some(slot);
                continue;
            }
            let Some(seg) = self.queue.pop_front() else { return Ok(()) };
            match seg {
                Seg::Bytes(b) | Seg::Raw(b) if self.skipping.is_some() => self.held -= b.len(),
                Seg::Bytes(b) => {
                    self.held -= b.len();
                    self.tail = self.tail.then(&b);
                    w(b, false).map_err(RewritingError::Output)?;
                }
                Seg::Raw(b) => {
                    self.held -= b.len();
                    self.tail = self.tail.then(&b);
                    w(b, true).map_err(RewritingError::Output)?;
                }
                Seg::Mark(Mark::Open(slot)) if self.skipping.is_some() => self.discard(slot),
                Seg::Mark(Mark::Open(slot)) => match self.slots.get(&slot).map(|s| s.status) {
                    Some(Status::Cancelled(fallback)) => {
                        self.slots.remove(&slot);
                        if fallback == Fallback::Empty {
                            self.skipping = Some(slot);
                        }
                    }
                    Some(Status::Open | Status::Finished) => self.writing = Some(slot),
                    // Dropped: its original stays.
                    Some(Status::Discarded) | None => {}
                },
                Seg::Mark(Mark::Close(slot)) => {
                    if self.skipping == Some(slot) {
                        self.skipping = None;
                    }
                }
            }
        }
    }
}

/// The encoded bytes of `chunk` for a slot landing in `ctx`, after the
/// unfinished UTF-8 sequence `utf8` and the held-back text `held` of its
/// earlier chunks; with the new ones. `last` ends the content.
pub(crate) fn encode_slot_chunk(
    ctx: &SlotCtx,
    utf8: &[u8],
    held: &str,
    chunk: &[u8],
    ty: ContentType,
    last: bool,
    encoding: &'static Encoding,
) -> Result<(Vec<u8>, Vec<u8>, String), EditError> {
    let (text, utf8) = decode_utf8(utf8, chunk, last);
    let mut out = Vec::new();
    let mut hold = String::new();
    match ctx {
        SlotCtx::Attribute { quote } => {
            let set = if *quote == b'\'' { Escapes::SingleQuoted } else { Escapes::DoubleQuoted };
            push_escaped(&text, set, encoding, &mut out)?;
        }
        SlotCtx::Content(ctx) => {
            let patterns = raw_text_patterns(ctx);
            if ty == ContentType::Text && !patterns.is_empty() {
                let mut all = held.to_owned();
                all.push_str(&text);
                let keep = if last { 0 } else { open_suffix(all.as_bytes(), &patterns) };
                let (now, later) = all.split_at(all.len() - keep);
                push_content(now, ContentType::Text, ctx.get(), encoding, &mut out)?;
                hold = later.to_owned();
            } else {
                if !held.is_empty() {
                    push_content(held, ContentType::Text, ctx.get(), encoding, &mut out)?;
                }
                push_content(&text, ty, ctx.get(), encoding, &mut out)?;
            }
        }
    }
    Ok((out, utf8, hold))
}

/// Decodes `carry` then `chunk` as UTF-8, invalid sequences as U+FFFD; an
/// unfinished sequence at the end is returned to carry (unless `last`).
fn decode_utf8(carry: &[u8], chunk: &[u8], last: bool) -> (String, Vec<u8>) {
    let mut bytes = carry.to_vec();
    bytes.extend_from_slice(chunk);
    let mut text = String::with_capacity(bytes.len());
    let mut rest = &bytes[..];
    loop {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                text.push_str(s);
                return (text, Vec::new());
            }
            Err(e) => {
                let (ok, bad) = rest.split_at(e.valid_up_to());
                text.push_str(&String::from_utf8_lossy(ok));
                match e.error_len() {
                    Some(n) => {
                        text.push('\u{FFFD}');
                        rest = &bad[n..];
                    }
                    None if last => {
                        text.push('\u{FFFD}');
                        return (text, Vec::new());
                    }
                    None => return (text, bad.to_vec()),
                }
            }
        }
    }
}

/// The sequences text may not complete in `ctx`, where escaping is
/// impossible (none where it is).
fn raw_text_patterns(ctx: &ContextOwned) -> Vec<String> {
    match ctx.get() {
        crate::content::Context::Rawtext(name) => vec![format!("</{name}")],
        crate::content::Context::ScriptData => {
            ["</script", "<!--", "<script", "-->"].iter().map(|s| s.to_string()).collect()
        }
        crate::content::Context::CdataSection => vec!["]]>".to_owned()],
        _ => Vec::new(),
    }
}

/// The length of the longest end of `text` that begins one of `patterns`
/// (ASCII case-insensitively, the whole pattern included).
fn open_suffix(text: &[u8], patterns: &[String]) -> usize {
    let longest = patterns.iter().map(String::len).max().unwrap_or(0).min(text.len());
    (1..=longest)
        .rev()
        .find(|&k| {
            let end = &text[text.len() - k..];
            patterns.iter().any(|p| p.len() >= k && p.as_bytes()[..k].eq_ignore_ascii_case(end))
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_split_anywhere_decodes_as_whole() {
        let whole = "a€b\u{1F600}c".as_bytes();
        for cut in 0..=whole.len() {
            let (a, carry) = decode_utf8(&[], &whole[..cut], false);
            let (b, rest) = decode_utf8(&carry, &whole[cut..], true);
            assert_eq!(a + &b, "a€b\u{1F600}c", "cut at {cut}");
            assert!(rest.is_empty());
        }
        let (s, _) = decode_utf8(&[], b"a\xffb\xe2\x82", true);
        assert_eq!(s, "a\u{FFFD}b\u{FFFD}");
    }

    #[test]
    fn open_suffix_finds_the_begun_pattern() {
        let p = vec!["</style".to_owned()];
        assert_eq!(open_suffix(b"a</ST", &p), 4);
        assert_eq!(open_suffix(b"a</style", &p), 7);
        assert_eq!(open_suffix(b"a</stx", &p), 0);
        assert_eq!(open_suffix(b"<", &p), 1);
    }
}
