//! [`Rewriter`]: the streaming front — chunks in, rewritten chunks out.

use std::sync::Arc;

use encoding_rs::Encoding;
use htrewrite_selectors::{Matcher, Program, RuleId};
use htrewrite_shadow::{INSERTED_ONCE, Shadow, ShadowOptions};
use htrewrite_tokenizer::Tokenizer;

use crate::ContentType;
use crate::core::{Core, Feed, Input, RuleGroups, Staged, ValidChunk};
use crate::deferred::{Held, Write};
use crate::encoding::{PRESCAN_LIMIT, Strategy, Utf16Front, intermediate_to_utf16, sniff_encoding, strategy};
use crate::error::RewritingError;
use crate::parsed::ParseQueue;
use crate::settings::{EncodingChoice, HandlerKind, Local, OnError, Settings, compile};
use crate::sink::{IoSink, OutputSink};
use crate::slot::{Fallback, Slot, SlotError, SlotErrorKind};

/// Where the rewriter is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Run {
    /// Holding the first bytes until the encoding is known.
    Sniffing,
    Running,
    /// Failed with [`OnError::PassThrough`]: input goes straight to output.
    PassThrough,
    /// Nothing can observe the rest of the document (no handler could run
    /// or change a byte any more, see `Core::try_settle`): input goes
    /// straight to output, as with no handlers.
    Copy,
    /// Failed with [`OnError::Stop`].
    Failed,
}

/// A streaming HTML rewriter for one document.
///
/// Feed the document with [`write`](Rewriter::write) in chunks of any size,
/// then call [`end`](Rewriter::end). Output goes to the [`OutputSink`] as
/// soon as it is certain: each token leaves when its last byte has been
/// read (text up to the last byte that is certainly text). With no handlers,
/// or handlers that change nothing, the output is the input, byte for byte.
///
/// The rewriter is `Send` when its handlers are (see
/// [`HandlerKind`](crate::HandlerKind)) and the sink is.
///
/// # Example
/// ```
/// use htrewrite::{ContentType, Rewriter, Settings};
/// let mut out = Vec::new();
/// let settings = Settings::new().element("li", |el| {
///     el.append(" ✓", ContentType::Text)?;
///     Ok(())
/// });
/// let mut rw = Rewriter::new(settings, |c: &[u8]| out.extend_from_slice(c))?;
/// for chunk in [&b"<ul><li>a<l"[..], b"i>b</ul>"] {
///     rw.write(chunk)?;
/// }
/// rw.end()?;
/// assert_eq!(String::from_utf8(out).unwrap(), "<ul><li>a ✓<li>b ✓</ul>");
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
///
/// # Complexity
/// Linear in the input (and the inserted content). Memory: the longest
/// token carried over between chunks, the stack of open elements, and what
/// handlers asked to hold (see [`Settings::memory_limit`]).
pub struct Rewriter<'h, O: OutputSink, K: HandlerKind = Local> {
    tokenizer: Tokenizer,
    core: Core<'h, K>,
    out: Out<O>,
    on_error: OnError,
    run: Run,
    /// The transport (or fixed) encoding and the fallback, for sniffing.
    sniff: (Option<&'static Encoding>, &'static Encoding),
    /// Bytes held while the encoding is not known (a BOM may start the input).
    held: Vec<u8>,
    /// The document's encoding, once known.
    encoding: &'static Encoding,
    /// For UTF-16 documents: the decoder to the tokenizer's bytes.
    front: Option<Utf16Front>,
    /// Scratch for the front's output.
    decoded: Vec<u8>,
    /// How much output may be held after undecided slots before input is
    /// refused ([`Settings::hold_limit`]).
    hold_limit: usize,
    /// Set once the end of input was processed ([`Rewriter::finish_input`]).
    input_ended: bool,
    /// The hooks of [`Settings::on_bail_out`], taken when they run.
    bail_out: Vec<K::BailOutHandler<'h>>,
    /// What the parse reads before more input: parsed content
    /// ([`ContentType::ParsedHtml`]) and the input taken after it.
    parse: ParseQueue,
    /// The end of input came while the parse waited for a parse slot: the
    /// document ends once it has read everything queued.
    end_waits: bool,
}

/// The sink, with the conversion of UTF-16 documents' output back to
/// UTF-16, and the output held after undecided slots.
struct Out<O> {
    sink: O,
    /// `Some(big_endian)` for UTF-16 documents, while the rewriter parses.
    utf16: Option<bool>,
    /// `Some(big_endian)` for UTF-16 documents, for held output and slot
    /// content (kept when the rewriter goes on copying its input).
    utf16_doc: Option<bool>,
    scratch: Vec<u8>,
    /// Made when the core first reports a slot.
    held: Option<Box<Held>>,
}

/// The writer [`Held`] writes through: `raw` bytes go as they are, others
/// are tokenizer bytes (converted back for UTF-16 documents).
fn writer<'a, O: OutputSink>(
    sink: &'a mut O,
    utf16: Option<bool>,
    scratch: &'a mut Vec<u8>,
) -> impl FnMut(Vec<u8>, bool) -> std::io::Result<()> + 'a {
    move |bytes: Vec<u8>, raw: bool| {
        if bytes.is_empty() {
            return Ok(());
        }
        match utf16 {
            Some(big_endian) if !raw => {
                scratch.clear();
                intermediate_to_utf16(&bytes, big_endian, scratch);
                sink.write(scratch)
            }
            _ => sink.write_owned(bytes),
        }
    }
}

impl<O: OutputSink> Out<O> {
    /// Hands the core's staged output (tokenizer bytes, with its slot log)
    /// to the sink, or to the held output, and clears it.
    #[inline(always)]
    fn deliver(&mut self, staged: Staged<'_>) -> Result<(), RewritingError> {
        if self.held.is_none() && staged.log.is_empty() {
            self.deliver_bytes(staged.bytes).map_err(RewritingError::Output)?;
            return self.deliver_slice(staged.then).map_err(RewritingError::Output);
        }
        self.deliver_held(staged)
    }

    /// Hands `bytes` (tokenizer bytes) to the sink, as [`Out::deliver_bytes`].
    fn deliver_slice(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        match self.utf16 {
            None => self.sink.write(bytes),
            Some(big_endian) => {
                self.scratch.clear();
                intermediate_to_utf16(bytes, big_endian, &mut self.scratch);
                self.sink.write(&self.scratch)
            }
        }
    }

    /// Hands `buf` (tokenizer bytes) to the sink and clears it.
    fn deliver_bytes(&mut self, buf: &mut Vec<u8>) -> std::io::Result<()> {
        if buf.is_empty() {
            return Ok(());
        }
        match self.utf16 {
            None => self.sink.write(buf)?,
            Some(big_endian) => {
                self.scratch.clear();
                intermediate_to_utf16(buf, big_endian, &mut self.scratch);
                self.sink.write(&self.scratch)?;
            }
        }
        buf.clear();
        Ok(())
    }

    /// [`Out::deliver`] once slots exist.
    #[inline(never)]
    fn deliver_held(&mut self, staged: Staged<'_>) -> Result<(), RewritingError> {
        let Staged { bytes, log, tail, encoding, then } = staged;
        // Held output takes the bytes after the staged ones (a copy: rare).
        bytes.extend_from_slice(then);
        let held = self.held.get_or_insert_with(|| Box::new(Held::new(encoding, tail)));
        let mut w = writer(&mut self.sink, self.utf16_doc, &mut self.scratch);
        let result = held.push(bytes, log, &mut w);
        bytes.clear();
        result
    }

    /// Writes `bytes` for the sink as they are (input copied through, a
    /// byte order mark), after the held output if there is any.
    fn write_raw(&mut self, bytes: &[u8]) -> Result<(), RewritingError> {
        match &mut self.held {
            None if bytes.is_empty() => Ok(()),
            None => self.sink.write(bytes).map_err(RewritingError::Output),
            Some(held) => {
                held.push_bytes(bytes, true);
                held.pump(&mut writer(&mut self.sink, self.utf16_doc, &mut self.scratch))
            }
        }
    }

    /// Runs `f` on the held output with a writer to the sink.
    fn with_held<R>(
        &mut self,
        slot: Slot,
        f: impl FnOnce(&mut Held, Write<'_>) -> Result<R, RewritingError>,
    ) -> Result<R, RewritingError> {
        let Some(held) = &mut self.held else {
            return Err(RewritingError::Slot(SlotError::new(slot, SlotErrorKind::Unknown)));
        };
        f(held, &mut writer(&mut self.sink, self.utf16_doc, &mut self.scratch))
    }

    /// Output bytes held after undecided slots.
    fn held_output(&self) -> usize {
        self.held.as_ref().map_or(0, |h| h.held_output())
    }
}

impl<'h, O: OutputSink, K: HandlerKind> Rewriter<'h, O, K> {
    /// A rewriter with `settings`, writing to `sink`.
    ///
    /// # Errors
    /// [`RewritingError::Selector`] when a selector does not parse.
    pub fn new(settings: Settings<'h, K>, sink: O) -> Result<Self, RewritingError> {
        let Settings { rules, doc, bail_out, options, .. } = settings;
        let hold_limit = options.hold_limit;
        // Program rule → handler groups (in order): selectors equal once
        // parsed share a program rule, each keeping its own group.
        let (program, rule_map): (Option<Arc<Program>>, Vec<RuleGroups>) = if rules.is_empty() {
            (None, Vec::new())
        } else {
            let shared_rules = options.selectors.as_ref().and_then(|shared| {
                let rule_of =
                    rules.iter().map(|r| shared.index.get(&*r.selector).copied()).collect::<Option<Vec<u32>>>()?;
                Some((shared.program.clone(), rule_of))
            });
            let (program, rule_of): (Arc<Program>, Vec<u32>) = match shared_rules {
                Some(shared) => shared,
                None => {
                    let selectors: Vec<&str> = rules.iter().map(|r| &*r.selector).collect();
                    let compiled = compile(&selectors)?;
                    (Arc::new(compiled.program), compiled.rule_of)
                }
            };
            let mut map = vec![RuleGroups::new(); program.len()];
            for (g, &r) in rule_of.iter().enumerate() {
                map[r as usize].push(g as u32);
            }
            (Some(program), map)
        };
        let shadow = Shadow::new(ShadowOptions {
            scripting: options.scripting,
            fragment_context: options.fragment.clone(),
            ..ShadowOptions::default()
        });
        let tokenizer = match &options.fragment {
            Some((name, _)) => Tokenizer::with_text_mode(shadow.initial_text_mode(), Some(name.as_bytes())),
            None => Tokenizer::new(),
        };
        let settle_on = if options.full_pipeline || !doc.is_empty() {
            None
        } else {
            settle_names(program.as_deref(), &rule_map, &shadow)
        };
        let matcher = program.map(Matcher::new);
        let sniff = match options.encoding {
            EncodingChoice::Fixed(e) => (Some(e), e),
            EncodingChoice::Sniff { transport, fallback } => (transport, fallback),
        };
        let encoding = sniff.0.unwrap_or(sniff.1);
        let mut core = Core::new(
            shadow,
            matcher,
            rules,
            rule_map,
            doc,
            encoding,
            options.whole_text_nodes,
            options.memory_limit,
            options.track_lines,
            settle_on,
        );
        if core.may_settle() {
            // No rules and no document handlers: nothing can observe the document.
            core.try_settle();
        }
        Ok(Rewriter {
            tokenizer,
            core,
            out: Out { sink, utf16: None, utf16_doc: None, scratch: Vec::new(), held: None },
            on_error: options.on_error,
            run: Run::Sniffing,
            sniff,
            held: Vec::new(),
            encoding,
            front: None,
            decoded: Vec::new(),
            hold_limit,
            input_ended: false,
            bail_out,
            parse: ParseQueue::default(),
            end_waits: false,
        })
    }

    /// The document's encoding (the default or sniffed one once known).
    pub fn encoding(&self) -> &'static Encoding {
        self.encoding
    }

    /// The first error, when the rewriter failed with [`OnError::PassThrough`]
    /// (or [`OnError::Stop`]).
    pub fn error(&self) -> Option<&RewritingError> {
        self.core.error.as_ref()
    }

    /// Whether the rewriter copies the rest of its input to the sink as it
    /// is, without parsing it: nothing can observe it any more. That is so
    /// from the start with no handlers at all, and with rules that can
    /// match only elements the Standard inserts once (`head`: not `html`, as
    /// `<svg><html>` inserts another) and no
    /// document-wide handler, from the first chunk after which those
    /// elements were inserted and their edits placed. Unless
    /// [`Settings::full_pipeline`] is set. The output is the same either
    /// way; a server may use this to hand the rest of a body on without the
    /// rewriter.
    ///
    /// # Example
    /// ```
    /// use htrewrite::{ContentType, Rewriter, Settings};
    /// let settings = Settings::new().element("head", |el| {
    ///     el.append("<script src=/x.js></script>", ContentType::Html)?;
    ///     Ok(())
    /// });
    /// let mut out = Vec::new();
    /// let mut rw = Rewriter::new(settings, |c: &[u8]| out.extend_from_slice(c))?;
    /// rw.write(b"<head><title>t</title>")?;
    /// assert!(!rw.copying()); // the head is open: the script is not placed yet
    /// rw.write(b"</head><body>")?;
    /// assert!(rw.copying());
    /// rw.write(b"<p>the rest of the page")?;
    /// rw.end()?;
    /// assert_eq!(out, b"<head><title>t</title><script src=/x.js></script></head><body><p>the rest of the page");
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    pub fn copying(&self) -> bool {
        // Nothing held after a slot, and nothing queued for the parse.
        let idle = self.out.held.as_ref().is_none_or(|h| h.idle()) && self.parse.is_empty();
        idle && (self.run == Run::Copy || self.core.settled && self.run != Run::Failed)
    }

    /// The sink (e.g. to drain a buffer between writes).
    pub fn sink_mut(&mut self) -> &mut O {
        &mut self.out.sink
    }

    /// Rewrites the next chunk of input.
    ///
    /// # Errors
    /// With [`OnError::Stop`] (the default): a handler error, the memory
    /// limit, inserted content that would complete what the bytes before it
    /// began where escaping is impossible ([`RewritingError::Insertion`]),
    /// or an output error; the output written so far is the rewrite of
    /// every token before the failing one (plus content already inserted
    /// for it; for [`RewritingError::Insertion`], the failing token's own
    /// bytes too, without the refused content), and later calls return
    /// [`RewritingError::Poisoned`]. With
    /// [`OnError::PassThrough`] only output errors are returned; other
    /// failures are kept in [`Rewriter::error`] and the rest of the input
    /// passes through unchanged.
    ///
    /// [`RewritingError::Blocked`] when output held after undecided slots
    /// reached [`Settings::hold_limit`] before the whole chunk was taken:
    /// nothing is lost and the rewriter is not failed; fill or cancel slots
    /// (the first first), then write the rest of the chunk. Use
    /// [`Rewriter::write_some`] to take what fits without an error.
    /// [`RewritingError::InputEnded`] after [`Rewriter::finish_input`].
    pub fn write(&mut self, chunk: &[u8]) -> Result<(), RewritingError> {
        let mut taken = 0;
        while taken < chunk.len() {
            let n = self.write_some(&chunk[taken..])?;
            if n == 0 {
                return Err(RewritingError::Blocked { taken });
            }
            taken += n;
        }
        if chunk.is_empty() {
            self.write_some(chunk)?;
        }
        Ok(())
    }

    /// Rewrites as much of `chunk` as the held output allows and returns
    /// how many bytes it took: all of them while no slot holds output back,
    /// else up to [`Settings::hold_limit`] bytes of held output (0 when it
    /// is reached: fill or cancel the first pending slot, then write the
    /// rest); 0 while the parse waits for a parse slot's content
    /// ([`Element::defer_prepend_parsed`](crate::Element::defer_prepend_parsed)). What was taken is processed as by [`Rewriter::write`]: the
    /// output does not depend on how the input was cut.
    ///
    /// # Example
    /// ```
    /// use std::{cell::RefCell, rc::Rc};
    /// use htrewrite::{ContentType, Rewriter, Settings, Slot};
    /// let slots: Rc<RefCell<Vec<Slot>>> = Rc::default();
    /// let made = slots.clone();
    /// let settings = Settings::new().hold_limit(8).element("header", move |el| {
    ///     made.borrow_mut().push(el.defer_append());
    ///     Ok(())
    /// });
    /// let mut out = Vec::new();
    /// let mut rw = Rewriter::new(settings, |c: &[u8]| out.extend_from_slice(c))?;
    /// let page = b"<header></header><p>0123456789</p>";
    /// let mut taken = 0;
    /// loop {
    ///     let n = rw.write_some(&page[taken..])?;
    ///     if n == 0 {
    ///         break; // 8 bytes are held after the slot
    ///     }
    ///     taken += n;
    /// }
    /// assert!(taken < page.len());
    /// rw.fill(slots.borrow()[0], "<h1>Hi</h1>", ContentType::Html)?;
    /// rw.write(&page[taken..])?;
    /// rw.end()?;
    /// assert_eq!(out, b"<header><h1>Hi</h1></header><p>0123456789</p>");
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    ///
    /// # Errors
    /// As [`Rewriter::write`], without [`RewritingError::Blocked`].
    pub fn write_some(&mut self, chunk: &[u8]) -> Result<usize, RewritingError> {
        if self.run == Run::Failed {
            return Err(RewritingError::Poisoned);
        }
        if self.input_ended {
            return Err(RewritingError::InputEnded);
        }
        if !self.parse.is_empty() && !chunk.is_empty() {
            // The parse waits for a parse slot's content.
            return Ok(0);
        }
        let held = self.out.held_output();
        // With nothing held, input always goes on (at most a bound's worth
        // at once, so that one piece's output stays about that size).
        let room = if held == 0 { self.hold_limit.max(1) } else { self.hold_limit.saturating_sub(held) };
        if room == 0 && !chunk.is_empty() {
            return Ok(0);
        }
        let n = chunk.len().min(room);
        self.write_chunk(&chunk[..n])?;
        Ok(n)
    }

    /// The work of [`Rewriter::write`] for one chunk, whatever is held.
    fn write_chunk(&mut self, chunk: &[u8]) -> Result<(), RewritingError> {
        match self.run {
            Run::Failed => return Err(RewritingError::Poisoned),
            Run::PassThrough | Run::Copy => return self.out.write_raw(chunk),
            Run::Sniffing => {
                // Sniffing reads at most PRESCAN_LIMIT bytes, and only those
                // are copied to decide; then the bytes held from earlier
                // chunks are fed, and this chunk whole, from where it is (a
                // token it holds entirely is never carried over).
                let earlier = self.held.len();
                let take = chunk.len().min(PRESCAN_LIMIT.saturating_sub(earlier));
                self.held.extend_from_slice(&chunk[..take]);
                let before = self.held.len();
                if !self.decide_encoding(false)? {
                    return self.check_memory();
                }
                if self.run != Run::Running {
                    // Passing through (an encoding it cannot rewrite): what
                    // was held went out already.
                    return self.write_chunk(&chunk[take..]);
                }
                // The byte order mark left the held bytes (and went out).
                let bom = before - self.held.len();
                self.held.truncate(earlier.saturating_sub(bom));
                let held = std::mem::take(&mut self.held);
                let chunk = &chunk[bom.saturating_sub(earlier)..];
                if self.core.settled {
                    self.copy_from_start(held)?;
                } else if !held.is_empty() {
                    self.feed(&held)?;
                }
                return self.write_chunk(chunk);
            }
            Run::Running => self.feed(chunk)?,
        }
        self.check_memory()
    }

    /// Goes straight to [`Run::Copy`] before anything was tokenized: the
    /// held input (after the BOM, which went out already) is written as it is.
    fn copy_from_start(&mut self, held: Vec<u8>) -> Result<(), RewritingError> {
        self.run = Run::Copy;
        self.front = None;
        self.out.utf16 = None;
        self.out.write_raw(&held)
    }

    /// Decides the encoding when the held bytes allow (a BOM, the transport
    /// or fixed encoding, the `<meta>` prescan, the fallback); `false` to wait.
    fn decide_encoding(&mut self, at_eof: bool) -> Result<bool, RewritingError> {
        let Some(sniffed) = sniff_encoding(&self.held, at_eof, self.sniff.0, self.sniff.1) else { return Ok(false) };
        self.encoding = sniffed.encoding;
        // The BOM goes to the output as it is, never to the tokenizer.
        let bom: Vec<u8> = self.held.drain(..sniffed.bom_len).collect();
        self.out.write_raw(&bom)?;
        self.run = Run::Running;
        if self.core.settled {
            // Nothing observes the document: it is copied as it is, in any
            // encoding (ISO-2022-JP and the replacement encoding included).
            return Ok(true);
        }
        match strategy(sniffed.encoding) {
            Strategy::Bytes => self.core.encoding = sniffed.encoding,
            Strategy::Utf16 { big_endian } => {
                // Tokenized as UTF-8 (with escapes for unpaired surrogates), written back as UTF-16.
                self.core.encoding = encoding_rs::UTF_8;
                self.front = Some(Utf16Front::new(big_endian));
                self.out.utf16 = Some(big_endian);
                self.out.utf16_doc = Some(big_endian);
            }
            Strategy::Unsupported => {
                let error = RewritingError::Encoding(format!(
                    "{} cannot be rewritten losslessly (no byte-level tokenization)",
                    sniffed.encoding.name()
                ));
                let held = std::mem::take(&mut self.held);
                if self.on_error == OnError::PassThrough {
                    self.core.fail(error);
                    self.run = Run::PassThrough;
                    self.bail_out();
                    self.out.write_raw(&held)?;
                    return Ok(true);
                }
                self.core.fail(RewritingError::Poisoned);
                self.run = Run::Failed;
                return Err(error);
            }
        }
        Ok(true)
    }

    #[inline]
    fn feed(&mut self, chunk: &[u8]) -> Result<(), RewritingError> {
        match &mut self.front {
            None => self.read(chunk)?,
            Some(front) => {
                let mut decoded = std::mem::take(&mut self.decoded);
                decoded.clear();
                front.push(chunk, &mut decoded);
                let result = self.read(&decoded);
                self.decoded = decoded;
                result?;
            }
        }
        self.read_queued()
    }

    /// The parse reads `bytes` (tokenizer bytes) after what it has queued.
    #[inline]
    fn read(&mut self, bytes: &[u8]) -> Result<(), RewritingError> {
        if !self.parse.is_empty() {
            self.parse.push_input(bytes);
            return Ok(());
        }
        let taken = self.tokenize(bytes, 0)?;
        if taken < bytes.len() || !self.core.parse_inserts.is_empty() {
            // Paused for parsed content: the rest is copied, once.
            let inserts = std::mem::take(&mut self.core.parse_inserts);
            self.parse.paused(bytes[taken..].to_vec(), 0, 0, inserts);
        }
        self.after_feed()
    }

    /// Feeds `bytes` (tokenizer bytes, at parsed-content nesting `level`:
    /// 0 for the input) to the tokenizer; how many it took: all of them,
    /// unless it paused for the parsed content in `Core::parse_inserts`.
    /// Once the rewriter no longer parses, they go straight through.
    fn tokenize(&mut self, bytes: &[u8], level: u32) -> Result<usize, RewritingError> {
        if self.run != Run::Running {
            match self.out.utf16_doc {
                None => self.out.write_raw(bytes)?,
                Some(big_endian) => {
                    let mut utf16 = Vec::with_capacity(bytes.len() * 2);
                    intermediate_to_utf16(bytes, big_endian, &mut utf16);
                    self.out.write_raw(&utf16)?;
                }
            }
            return Ok(bytes.len());
        }
        let pass_through = self.on_error == OnError::PassThrough;
        let out = &mut self.out;
        let mut flush = |staged: Staged<'_>| out.deliver(staged);
        self.core.parse_level = level;
        self.core.room_for_chunk(bytes.len(), self.tokenizer.buffered_len());
        let input = Input { bytes, base: self.tokenizer.offset() };
        let valid = self.core.reads_chunk_text().then(|| ValidChunk::new(input));
        let mut feed = Feed { core: &mut self.core, pass_through, flush: &mut flush, valid: valid.as_ref(), input };
        let taken = self.tokenizer.feed(bytes, &mut feed);
        feed.end_input();
        Ok(taken)
    }

    /// Reads what the parse has queued, until it waits for a parse slot's
    /// content or nothing is left (then a deferred end of input comes).
    /// A pause in queued bytes hands their buffer back as it is.
    fn read_queued(&mut self) -> Result<(), RewritingError> {
        // `next` answers `None` for an empty queue too; the test first
        // spares every chunk without parsed content the call.
        while !self.parse.is_empty()
            && let Some((bytes, from, level)) = self.parse.next()
        {
            let taken = self.tokenize(&bytes[from..], level)?;
            if from + taken < bytes.len() || !self.core.parse_inserts.is_empty() {
                let inserts = std::mem::take(&mut self.core.parse_inserts);
                self.parse.paused(bytes, from + taken, level, inserts);
            }
            self.after_feed()?;
        }
        if self.parse.is_empty() && std::mem::take(&mut self.end_waits) {
            self.finish_document()?;
        }
        Ok(())
    }

    /// Flushes output and turns a failure into the policy's outcome; after a
    /// failure with [`OnError::PassThrough`], or once nothing can observe the
    /// rest of the document ([`Run::Copy`]), input goes straight through.
    fn after_feed(&mut self) -> Result<(), RewritingError> {
        let fail_through =
            self.core.error.is_some() && self.on_error == OnError::PassThrough && self.run != Run::PassThrough;
        if fail_through || self.core.settled && self.run == Run::Running {
            // Flush what the tokenizer holds, raw, and go straight through from now on.
            self.run = if fail_through { Run::PassThrough } else { Run::Copy };
            if fail_through {
                self.bail_out();
            }
            let out = &mut self.out;
            let mut flush = |staged: Staged<'_>| out.deliver(staged);
            let mut feed = Feed {
                core: &mut self.core,
                pass_through: true,
                flush: &mut flush,
                valid: None,
                input: Input::default(),
            };
            // A text node held (never when settled) in whole-text-node mode comes first.
            let held = feed.core.take_unwritten();
            feed.core.out.extend_from_slice(&held);
            self.tokenizer.finish(&mut feed);
            if let Some(front) = &mut self.front {
                let mut rest = Vec::new();
                let odd = front.finish(&mut rest);
                self.core.out.extend_from_slice(&rest);
                self.out.deliver(self.core.staged())?;
                if let Some(b) = odd {
                    self.out.write_raw(&[b])?;
                }
            }
            self.out.deliver(self.core.staged())?;
            if fail_through && self.out.held.is_some() {
                // The core places no more marks: what follows is not skipped.
                self.out.with_held(Slot(0), |h, w| h.close_all(w))?;
            }
            // From now on input goes straight to the sink, untouched.
            self.out.utf16 = None;
        }
        // Nothing staged and nothing held (most chunks: the run of unchanged
        // tokens went to the sink at the input's end): nothing to hand over.
        let idle = self.core.out.is_empty() && self.core.slot_log.is_empty() && self.out.held.is_none();
        if !idle && let Err(e) = self.out.deliver(self.core.staged()) {
            self.run = Run::Failed;
            self.core.out.clear();
            self.core.slot_log.clear();
            return Err(e);
        }
        if self.on_error == OnError::Stop
            && let Some(e) = self.core.error.take()
        {
            self.run = Run::Failed;
            self.core.set_error(RewritingError::Poisoned);
            return Err(e);
        }
        Ok(())
    }

    /// Calls the hooks of [`Settings::on_bail_out`] with the kept error
    /// (once: they are taken), as the rewriter turns to [`Run::PassThrough`].
    fn bail_out(&mut self) {
        let hooks = std::mem::take(&mut self.bail_out);
        if let Some(error) = &self.core.error {
            for hook in hooks {
                hook(error);
            }
        }
    }

    /// The bytes the rewriter holds now, as [`Settings::memory_limit`]
    /// counts them after each write: the tokenizer's carried-over input, the
    /// stack of open elements and the list of active formatting elements (by
    /// capacity), the selector matcher's records (by capacity), content held
    /// for handlers (pending edits, a whole text node), output held after
    /// pending slots and slot content not written yet (see
    /// [`Settings::hold_limit`]), and input held while the encoding is
    /// sniffed. Only the held output once the rewriter copies its input
    /// ([`Rewriter::copying`]).
    /// For metrics, and to size a limit.
    ///
    /// # Example
    /// ```
    /// use htrewrite::{Rewriter, Settings};
    /// let mut rw = Rewriter::new(Settings::new().element("p", |_| Ok(())), |_: &[u8]| {})?;
    /// rw.write(&"<div>".repeat(10_000).into_bytes())?;
    /// assert!(rw.held_bytes() > 10_000 * 56); // 10,000 open elements, at least 56 bytes each
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    pub fn held_bytes(&self) -> usize {
        let held = self.out.held.as_ref().map_or(0, |h| h.held_bytes()) + self.parse.held_bytes();
        if matches!(self.run, Run::PassThrough | Run::Copy) {
            return held;
        }
        self.tokenizer.buffered_capacity() + self.core.held_bytes() + self.held.capacity() + held
    }

    fn check_memory(&mut self) -> Result<(), RewritingError> {
        let limit = self.core.memory_limit;
        if limit == usize::MAX || matches!(self.run, Run::PassThrough | Run::Copy) {
            return Ok(());
        }
        let needed = self.held_bytes();
        if needed <= limit {
            return Ok(());
        }
        self.core.set_error(RewritingError::MemoryLimitExceeded { limit, needed });
        if self.run == Run::Sniffing {
            // Nothing was tokenized yet: give the held bytes back as they are.
            self.run = Run::Running;
            self.core.out.append(&mut self.held);
        }
        self.after_feed()
    }

    /// Ends the document: flushes what is held, runs the end of parsing
    /// (elements open at the end of input end here) and the document-end
    /// handlers. Returns the sink.
    ///
    /// With [`OnError::PassThrough`] a failure kept in [`Rewriter::error`]
    /// (including one that happens here) is dropped with the rewriter; use
    /// [`Rewriter::end_with_error`] to get it.
    ///
    /// # Errors
    /// As [`Rewriter::write`].
    pub fn end(mut self) -> Result<O, RewritingError> {
        self.finish_input()?;
        self.check_slots()?;
        Ok(self.out.sink)
    }

    /// Ends the document as [`Rewriter::end`] does, and returns the sink
    /// with the first failure kept under [`OnError::PassThrough`] (the final
    /// value of [`Rewriter::error`], which may have happened in `end`
    /// itself, e.g. in a document-end handler). `None` when the whole
    /// document was rewritten.
    ///
    /// # Example
    /// ```
    /// use htrewrite::{OnError, Rewriter, Settings};
    /// let settings = Settings::new().end(|_| Err("no footer today".into())).on_error(OnError::PassThrough);
    /// let mut out = Vec::new();
    /// let mut rw = Rewriter::new(settings, |c: &[u8]| out.extend_from_slice(c))?;
    /// rw.write(b"<p>hi")?;
    /// assert!(rw.error().is_none());
    /// let (_sink, error) = rw.end_with_error()?;
    /// assert!(error.unwrap().to_string().contains("no footer today"));
    /// assert_eq!(out, b"<p>hi");
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    ///
    /// # Errors
    /// As [`Rewriter::end`]: with [`OnError::Stop`] the failure is the
    /// `Err`, never the kept error.
    pub fn end_with_error(mut self) -> Result<(O, Option<RewritingError>), RewritingError> {
        self.finish_input()?;
        self.check_slots()?;
        let error = self.core.error.take();
        Ok((self.out.sink, error))
    }

    /// The work of [`Rewriter::end`], leaving the rewriter in place.
    fn finish_document(&mut self) -> Result<(), RewritingError> {
        match self.run {
            Run::Failed => return Err(RewritingError::Poisoned),
            Run::PassThrough | Run::Copy => return Ok(()),
            Run::Sniffing => {
                self.decide_encoding(true)?;
                if self.run == Run::PassThrough {
                    return Ok(());
                }
                let held = std::mem::take(&mut self.held);
                if self.core.settled {
                    return self.copy_from_start(held);
                }
                self.feed(&held)?;
            }
            Run::Running => {}
        }
        if matches!(self.run, Run::PassThrough | Run::Copy) {
            return Ok(());
        }
        if !self.parse.is_empty() {
            // The parse waits for a parse slot: the end comes after it.
            self.end_waits = true;
            return Ok(());
        }
        self.core.parse_level = 0;
        let pass_through = self.on_error == OnError::PassThrough;
        let mut odd = None;
        {
            let out = &mut self.out;
            let mut flush = |staged: Staged<'_>| out.deliver(staged);
            let mut feed =
                Feed { core: &mut self.core, pass_through, flush: &mut flush, valid: None, input: Input::default() };
            if let Some(front) = &mut self.front {
                self.decoded.clear();
                odd = front.finish(&mut self.decoded);
                self.tokenizer.feed(&self.decoded, &mut feed);
            }
            self.tokenizer.finish(&mut feed);
        }
        if self.core.error.is_none() && !self.core.settled {
            let at = self.tokenizer.offset();
            self.core.finish(at);
        }
        self.after_feed()?;
        if let Some(b) = odd {
            self.out.write_raw(&[b])?;
        }
        Ok(())
    }

    /// [`RewritingError::UnfilledSlots`] when slots are still pending.
    fn check_slots(&self) -> Result<(), RewritingError> {
        let pending = self.pending_slots();
        if pending.is_empty() { Ok(()) } else { Err(RewritingError::UnfilledSlots(pending)) }
    }

    /// Ends the input and keeps the rewriter, for slots still to fill: the
    /// end of the document is processed as by [`Rewriter::end`] (elements
    /// open at the end of input end here, document-end handlers run), and
    /// output flows up to the first pending slot. Then fill or cancel the
    /// slots and call [`Rewriter::end`] for the sink. Calling it again does
    /// nothing.
    ///
    /// # Example
    /// ```
    /// use std::{cell::RefCell, rc::Rc};
    /// use htrewrite::{ContentType, Rewriter, Settings, Slot};
    /// let slots: Rc<RefCell<Vec<Slot>>> = Rc::default();
    /// let made = slots.clone();
    /// let settings = Settings::new().element("body", move |el| {
    ///     made.borrow_mut().push(el.defer_append());
    ///     Ok(())
    /// });
    /// let mut out = Vec::new();
    /// let mut rw = Rewriter::new(settings, |c: &[u8]| out.extend_from_slice(c))?;
    /// rw.write(b"<body><p>text")?;
    /// rw.finish_input()?; // the body ends at the end of input: its slot is placed
    /// assert_eq!(rw.pending_slots(), slots.borrow().clone());
    /// rw.fill(slots.borrow()[0], "<footer>f</footer>", ContentType::Html)?;
    /// rw.end()?;
    /// assert_eq!(out, b"<body><p>text<footer>f</footer>");
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    ///
    /// # Errors
    /// As [`Rewriter::end`], without [`RewritingError::UnfilledSlots`].
    pub fn finish_input(&mut self) -> Result<(), RewritingError> {
        if self.input_ended {
            return if self.run == Run::Failed { Err(RewritingError::Poisoned) } else { Ok(()) };
        }
        self.finish_document()?;
        self.input_ended = true;
        Ok(())
    }

    /// The slots handlers made that are neither finished nor cancelled, in
    /// order (slots whose place was removed, e.g. inside a removed element,
    /// are not listed: filling them does nothing).
    ///
    /// # Example
    /// ```
    /// use htrewrite::{Rewriter, Settings};
    /// let settings = Settings::new().element("p", |el| {
    ///     el.defer_after();
    ///     Ok(())
    /// });
    /// let mut rw = Rewriter::new(settings, |_: &[u8]| {})?;
    /// rw.write(b"<p>a</p><p>b</p>")?;
    /// assert_eq!(rw.pending_slots().len(), 2);
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    pub fn pending_slots(&self) -> Vec<Slot> {
        let mut pending = self.out.held.as_ref().map_or_else(Vec::new, |h| h.pending());
        pending.extend(self.parse.pending());
        pending.sort_unstable();
        pending
    }

    /// Fills `slot` with `content`, whole: as [`Rewriter::slot_write`] with
    /// all of it, then [`Rewriter::slot_finish`]. The content is taken
    /// whatever [`Settings::hold_limit`] says (it is in memory already);
    /// while held it counts in [`Rewriter::held_bytes`]. When `slot` is the
    /// first pending one, its content and the output held after it up to
    /// the next pending slot go to the sink now.
    ///
    /// # Example
    /// ```
    /// use std::{cell::RefCell, rc::Rc};
    /// use htrewrite::{ContentType, IoSink, Rewriter, Settings, Slot};
    /// let slots: Rc<RefCell<Vec<Slot>>> = Rc::default();
    /// let made = slots.clone();
    /// let settings = Settings::new().element("span.user", move |el| {
    ///     made.borrow_mut().push(el.defer_inner_content());
    ///     Ok(())
    /// });
    /// let mut rw = Rewriter::new(settings, IoSink(Vec::new()))?;
    /// rw.write(b"Hello <span class=user>guest</span>!")?;
    /// assert_eq!(rw.sink_mut().0, b"Hello <span class=user>");
    /// rw.fill(slots.borrow()[0], "Ann & Bob", ContentType::Text)?;
    /// assert_eq!(rw.sink_mut().0, b"Hello <span class=user>Ann &amp; Bob</span>!");
    /// rw.end()?;
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    ///
    /// # Errors
    /// As [`Rewriter::slot_write`] and [`Rewriter::slot_finish`].
    pub fn fill(&mut self, slot: Slot, content: &str, ty: ContentType) -> Result<(), RewritingError> {
        if self.parse.has(slot) {
            return self.parse_slot_op(slot, content.as_bytes(), ty, true);
        }
        self.slot_op(slot, |h, w| h.accept(slot, content.as_bytes(), ty, true, w))
    }

    /// Adds `content` to `slot`, whole, without finishing it: as
    /// [`Rewriter::fill`] (taken whatever [`Settings::hold_limit`] says, the
    /// content being in memory already), for content made of pieces of
    /// different [`ContentType`]s. End with [`Rewriter::slot_finish`].
    ///
    /// # Example
    /// ```
    /// use std::{cell::RefCell, rc::Rc};
    /// use htrewrite::{ContentType, Rewriter, Settings, Slot};
    /// let slots: Rc<RefCell<Vec<Slot>>> = Rc::default();
    /// let made = slots.clone();
    /// let settings = Settings::new().element("p", move |el| {
    ///     made.borrow_mut().push(el.defer_append());
    ///     Ok(())
    /// });
    /// let mut out = Vec::new();
    /// let mut rw = Rewriter::new(settings, |c: &[u8]| out.extend_from_slice(c))?;
    /// rw.write(b"<p>a</p>")?;
    /// let slot = slots.borrow()[0];
    /// rw.fill_part(slot, "<b>", ContentType::Text)?;
    /// rw.fill_part(slot, "<b>!</b>", ContentType::Html)?;
    /// rw.slot_finish(slot)?;
    /// rw.end()?;
    /// assert_eq!(out, b"<p>a&lt;b&gt;<b>!</b></p>");
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    ///
    /// # Errors
    /// As [`Rewriter::slot_write`].
    pub fn fill_part(&mut self, slot: Slot, content: &str, ty: ContentType) -> Result<(), RewritingError> {
        if self.parse.has(slot) {
            return self.parse_slot_op(slot, content.as_bytes(), ty, false);
        }
        self.slot_op(slot, |h, w| h.accept(slot, content.as_bytes(), ty, false, w))
    }

    /// Streams a chunk of `slot`'s content (UTF-8, cut anywhere, even inside
    /// a character; invalid sequences become U+FFFD) and returns how much
    /// of it was taken. When `slot` is the first pending one, all of it is
    /// taken and written through at once (its first bytes wait until 16
    /// bytes or the end came, for the check against the bytes before it);
    /// otherwise it is held, up to [`Settings::hold_limit`] bytes of held
    /// output, and a return of 0 means: fill or cancel earlier slots first.
    /// Each chunk is of its own [`ContentType`]: `Text` is escaped for where
    /// the slot lands (in RAWTEXT, script data and CDATA, text that could
    /// begin their end waits for the next chunk), `Html` goes as it is. A
    /// slot whose place was removed takes everything and writes nothing.
    ///
    /// A parse slot ([`Element::defer_prepend_parsed`](crate::Element::defer_prepend_parsed))
    /// takes the chunk and parses it at once while the parse reads it (all
    /// of it, or while an earlier slot holds output back, up to the bound),
    /// and nothing (0) while parsed content inside it waits first; every
    /// [`ContentType`] is parsed there (`Text` escaped first).
    ///
    /// # Example
    /// ```
    /// use std::{cell::RefCell, rc::Rc};
    /// use htrewrite::{ContentType, Rewriter, Settings, Slot};
    /// let slots: Rc<RefCell<Vec<Slot>>> = Rc::default();
    /// let made = slots.clone();
    /// let settings = Settings::new().element("pre", move |el| {
    ///     made.borrow_mut().push(el.defer_append());
    ///     Ok(())
    /// });
    /// let mut out = Vec::new();
    /// let mut rw = Rewriter::new(settings, |c: &[u8]| out.extend_from_slice(c))?;
    /// rw.write(b"<pre></pre>")?;
    /// let slot = slots.borrow()[0];
    /// for chunk in ["a < b\n", "caf\u{e9}", " & more"].map(str::as_bytes) {
    ///     assert_eq!(rw.slot_write(slot, chunk, ContentType::Text)?, chunk.len());
    /// }
    /// rw.slot_finish(slot)?;
    /// rw.end()?;
    /// assert_eq!(String::from_utf8(out).unwrap(), "<pre>a &lt; b\ncafé &amp; more</pre>");
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    ///
    /// # Errors
    /// [`RewritingError::Slot`] ([`SlotErrorKind::Unknown`],
    /// [`SlotErrorKind::Resolved`], [`SlotErrorKind::Content`] for text the
    /// slot's place cannot hold; nothing of the chunk is taken and the slot
    /// stays open); [`RewritingError::Output`] when the sink fails, and
    /// [`RewritingError::Insertion`] when the slot's first bytes would
    /// complete what the bytes before it began where escaping is impossible
    /// (both fail the rewriter); [`RewritingError::Poisoned`] after a failure.
    pub fn slot_write(&mut self, slot: Slot, chunk: &[u8], ty: ContentType) -> Result<usize, RewritingError> {
        if self.parse.has(slot) {
            // Read at once when the parse reads this slot; else (parsed
            // content inserted in it waits first) not taken.
            // Its output is held behind an earlier slot: up to the bound.
            let held = self.out.held_output();
            let n = if held == 0 { chunk.len() } else { chunk.len().min(self.hold_limit.saturating_sub(held)) };
            if !self.parse.reads(slot) || n == 0 && !chunk.is_empty() {
                return if self.run == Run::Failed { Err(RewritingError::Poisoned) } else { Ok(0) };
            }
            self.parse_slot_op(slot, &chunk[..n], ty, false)?;
            return Ok(n);
        }
        let room = self.hold_limit.saturating_sub(self.out.held_output());
        let writing = self.out.held.as_ref().is_some_and(|h| h.is_writing(slot));
        let n = if writing { chunk.len() } else { chunk.len().min(room) };
        if n == 0 && !chunk.is_empty() {
            // Not taken: still check the slot, so a finished one says so.
            return self.slot_op(slot, |h, w| h.accept(slot, b"", ty, false, w)).map(|()| 0);
        }
        self.slot_op(slot, |h, w| h.accept(slot, &chunk[..n], ty, false, w))?;
        Ok(n)
    }

    /// Ends `slot`'s streamed content (an unfinished character at its end
    /// becomes U+FFFD; text held back is checked and written).
    ///
    /// # Example
    /// See [`Rewriter::slot_write`].
    ///
    /// # Errors
    /// As [`Rewriter::slot_write`].
    pub fn slot_finish(&mut self, slot: Slot) -> Result<(), RewritingError> {
        if self.parse.has(slot) {
            return self.parse_slot_op(slot, b"", ContentType::Text, true);
        }
        self.slot_op(slot, |h, w| h.accept(slot, b"", ContentType::Text, true, w))
    }

    /// Gives `slot` up (its content failed or timed out): it becomes
    /// `fallback` — unless content was streamed into it already, which
    /// then stays, ended here (the output must not depend on whether that
    /// content was already written). Cancelling a slot whose place was
    /// removed does nothing. A parse slot gets nothing either way (what was
    /// streamed stays), and the parse goes on after it.
    ///
    /// # Example
    /// See [`Fallback`].
    ///
    /// # Errors
    /// As [`Rewriter::slot_write`].
    pub fn cancel(&mut self, slot: Slot, fallback: Fallback) -> Result<(), RewritingError> {
        if self.parse.has(slot) {
            // What was streamed stays; the rest of the page follows.
            if self.run == Run::Failed {
                return Err(RewritingError::Poisoned);
            }
            self.parse.cancel(slot, self.core.encoding);
            return self.after_parse_op();
        }
        self.slot_op(slot, |h, w| h.cancel(slot, fallback, w))
    }

    /// Takes `chunk` of `ty` for the parse slot `slot` (`last` ends it) and
    /// reads what the parse can.
    fn parse_slot_op(&mut self, slot: Slot, chunk: &[u8], ty: ContentType, last: bool) -> Result<(), RewritingError> {
        if self.run == Run::Failed {
            return Err(RewritingError::Poisoned);
        }
        self.parse
            .accept(slot, chunk, ty, last, self.core.encoding)
            .map_err(|e| RewritingError::Slot(SlotError { slot, kind: SlotErrorKind::Content, content: Some(e) }))?;
        self.after_parse_op()
    }

    /// Reads what the parse can after a parse slot took content, then
    /// checks the memory limit.
    fn after_parse_op(&mut self) -> Result<(), RewritingError> {
        self.read_queued()?;
        self.check_memory()
    }

    /// Runs a slot operation; a failure of the output fails the rewriter.
    fn slot_op<R>(
        &mut self,
        slot: Slot,
        f: impl FnOnce(&mut Held, Write<'_>) -> Result<R, RewritingError>,
    ) -> Result<R, RewritingError> {
        if self.run == Run::Failed {
            return Err(RewritingError::Poisoned);
        }
        let mut result = self.out.with_held(slot, f);
        if let Err(RewritingError::Slot(e)) = &mut result
            && e.kind == SlotErrorKind::Unknown
            && slot.0 < self.core.next_slot
        {
            // A parse slot already read.
            e.kind = SlotErrorKind::Resolved;
        }
        if let Err(RewritingError::Output(_) | RewritingError::Insertion(_)) = &result {
            self.run = Run::Failed;
            self.core.set_error(RewritingError::Poisoned);
        }
        result
    }
}

/// The names [`Core::try_settle`](crate::core) waits for, when every rule
/// can match only elements the Standard inserts once ([`Shadow::inserted_once`]):
/// the union of the rules' subject names (empty with no rules); `None` when
/// some rule may match an element of another name, or in a fragment.
fn settle_names(program: Option<&Program>, rule_map: &[RuleGroups], shadow: &Shadow) -> Option<Box<[&'static str]>> {
    let Some(program) = program else { return Some(Box::new([])) };
    let mut names: Vec<&'static str> = Vec::new();
    for (i, groups) in rule_map.iter().enumerate() {
        if groups.is_empty() {
            continue;
        }
        for name in program.subject_names(RuleId(i as u32))? {
            shadow.inserted_once(name)?;
            let name = *INSERTED_ONCE.iter().find(|&&n| n == name)?;
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    Some(names.into_boxed_slice())
}

/// Rewrites a whole document given as a string.
///
/// # Errors
/// As [`Rewriter::new`] and [`Rewriter::write`].
///
/// # Example
/// ```
/// use htrewrite::{Settings, rewrite_str};
/// let out = rewrite_str("<p>a<p>b", Settings::new().element("p", |el| { el.set_attribute("class", "x")?; Ok(()) }))?;
/// assert_eq!(out, "<p class=\"x\">a<p class=\"x\">b");
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
pub fn rewrite_str<K: HandlerKind>(html: &str, settings: Settings<'_, K>) -> Result<String, RewritingError> {
    let mut out = Vec::with_capacity(html.len() + 64);
    let mut rw = Rewriter::new(settings, IoSink(&mut out))?;
    rw.write(html.as_bytes())?;
    rw.end()?;
    Ok(String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

#[cfg(test)]
mod tests {
    use crate::Settings;

    use super::*;

    /// The staged output keeps the room of one chunk (issue 16: it doubled
    /// from its first token's size, to 1,696 bytes of room at 1 KiB chunks),
    /// and its tokens, the one held across chunks included, fit in it.
    #[test]
    fn staged_output_keeps_one_chunk_of_room() {
        let mut doc = Vec::new();
        for i in 0..400 {
            doc.extend_from_slice(
                format!("<p class=\"c{i}\">text {i} &amp; more</p>\n<a href=\"/x{i}\">link</a>").as_bytes(),
            );
        }
        for chunk in [300, 1024, 3000, 8 * 1024, 20_000, 64 * 1024] {
            let mut out = Vec::new();
            let mut seen = 0;
            let settings = Settings::new().doc_text(|t| {
                seen += t.as_str().len();
                Ok(())
            });
            let mut rw = Rewriter::new(settings, |c: &[u8]| out.extend_from_slice(c)).expect("valid");
            for piece in doc.chunks(chunk) {
                rw.write(piece).expect("no failure");
                let room = rw.core.out.capacity();
                assert!(room <= chunk.clamp(256, 8 * 1024), "{room} bytes of room at {chunk}-byte chunks");
            }
            let _sink = rw.end().expect("no failure");
            assert_eq!(out, doc, "at {chunk}-byte chunks");
            assert!(seen > 0);
        }
    }
}
