//! The read-only modes: `--select`, `--text-of`, `--count`, `--attr`.
//!
//! Nothing is edited, so the rewriter's output is the input; `--select`
//! captures each matched element's outer HTML from that output stream,
//! from where its start tag begins ([`Element::source_location`]) to where
//! it ends ([`ElementEnd::source_location`]), holding only the bytes from the
//! earliest element not yet printed on: nested matches share those bytes,
//! and each is decoded and written to stdout as soon as it and every match
//! before it ended, so memory is bounded by the outermost open match, not by
//! what is printed (`<div>x` × 8,000 prints 190 MB from 48 KB of input), and
//! a reader that goes away (`| head`) stops the work. The held bytes count
//! against `--memory-limit`. Printed values go out after each chunk; all of it
//! is UTF-8 (selected markup is decoded from the document's encoding).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{self, Write};
use std::time::Instant;

use encoding_rs::{Decoder, Encoding};
use htrewrite::{Element, ElementEnd, OutputSink, Rewriter, Settings};

use crate::args::{Cli, ReadMode};
use crate::failure::Failure;
use crate::run::{CHUNK, Input, Stats, options, progress};

/// One element being captured by `--select`.
struct Capture {
    /// Which match it is (1-based).
    seq: u64,
    /// Where it begins (tokenizer offset).
    start: u64,
    /// Where it ends, once known.
    end: Option<u64>,
}

/// What the handlers and the capturing sink share.
#[derive(Default)]
struct State {
    /// UTF-8 to print after this chunk.
    print: Vec<u8>,
    /// Elements matched.
    matched: u64,
    /// `--text-of`: how many matched elements are open (nested matches print once).
    depth: u32,
    /// `--select`: captures in order of their start.
    captures: VecDeque<Capture>,
}

/// The rewriter's output, for `--select`: keeps the bytes from the earliest
/// capture not yet printed on.
struct CaptureSink<'s> {
    state: &'s RefCell<State>,
    /// Output bytes to ignore first (a byte order mark, which the tokenizer does not count).
    skip: u64,
    /// Tokenizer offset of the next byte.
    offset: u64,
    /// Bytes from `buf_start` on.
    buf: Vec<u8>,
    buf_start: u64,
}

impl OutputSink for CaptureSink<'_> {
    fn write(&mut self, mut chunk: &[u8]) -> io::Result<()> {
        let skip = self.skip.min(chunk.len() as u64) as usize;
        self.skip -= skip as u64;
        chunk = &chunk[skip..];
        if self.state.borrow().captures.is_empty() && self.buf.is_empty() {
            self.offset += chunk.len() as u64;
            self.buf_start = self.offset;
            return Ok(());
        }
        self.buf.extend_from_slice(chunk);
        self.offset += chunk.len() as u64;
        Ok(())
    }
}

impl CaptureSink<'_> {
    /// Writes to `out`, decoded from `encoding`, each capture whose bytes are all here and
    /// every capture before it ended (or, `at_end`, every capture: those still open end where
    /// the output ends), one at a time; then drops the bytes no capture needs.
    fn print_ready(
        &mut self,
        encoding: &'static Encoding,
        at_end: bool,
        terminator: u8,
        out: &mut impl Write,
    ) -> io::Result<u64> {
        let mut written = 0;
        loop {
            let next = {
                let state = self.state.borrow();
                match state.captures.front() {
                    Some(&Capture { start, end: Some(end), .. }) if self.offset >= end => Some((start, end)),
                    Some(&Capture { start, .. }) if at_end => Some((start, self.offset)),
                    _ => None,
                }
            };
            let Some((start, end)) = next else { break };
            self.state.borrow_mut().captures.pop_front();
            let from = (start.saturating_sub(self.buf_start) as usize).min(self.buf.len());
            let to = (end.saturating_sub(self.buf_start) as usize).clamp(from, self.buf.len());
            let text = htrewrite::encoding::decode_to_utf8(&self.buf[from..to], encoding);
            out.write_all(text.as_bytes())?;
            out.write_all(&[terminator])?;
            written += text.len() as u64 + 1;
        }
        let keep_from = self.state.borrow().captures.front().map_or(self.offset, |c| c.start);
        let drop = (keep_from.saturating_sub(self.buf_start) as usize).min(self.buf.len());
        self.buf.drain(..drop);
        self.buf_start += drop as u64;
        Ok(written)
    }
}

/// Decodes UTF-16 input to UTF-8 before the rewriter (read-only modes print UTF-8
/// and capture by tokenizer offsets, which for UTF-16 are offsets of UTF-8).
struct Front {
    decoder: Option<Decoder>,
    out: Vec<u8>,
}

impl Front {
    fn push<'a>(&'a mut self, chunk: &'a [u8], last: bool) -> &'a [u8] {
        let Some(decoder) = &mut self.decoder else { return chunk };
        self.out.clear();
        let need = decoder.max_utf8_buffer_length(chunk.len()).unwrap_or(chunk.len() * 3 + 16);
        self.out.resize(need, 0);
        let (_, _, written, _) = decoder.decode_to_utf8(chunk, &mut self.out, last);
        self.out.truncate(written);
        &self.out
    }
}

/// Runs a read-only mode over one input.
///
/// # Errors
/// Read and write failures, a failing rewrite (memory limit, encoding).
pub fn run(cli: &Cli, mode: &ReadMode, input: &mut Input, many: bool) -> Result<Stats, Failure> {
    let started = Instant::now();
    let state = RefCell::new(State::default());
    let selector = mode.selector();
    // What ends each printed value (`-0`: NUL).
    let end = if cli.null { 0 } else { b'\n' };
    let settings = match mode {
        ReadMode::Select(_) => Settings::new().element(selector, |el: &mut Element<'_, '_>| {
            let start = el.source_location().bytes.start;
            let mut s = state.borrow_mut();
            s.matched += 1;
            let seq = s.matched;
            s.captures.push_back(Capture { seq, start, end: None });
            drop(s);
            let state = &state;
            el.on_end(move |end: &mut ElementEnd<'_>| {
                let at = end.source_location().bytes.end;
                if let Some(c) = state.borrow_mut().captures.iter_mut().find(|c| c.seq == seq) {
                    c.end = Some(at);
                }
                Ok(())
            });
            Ok(())
        }),
        ReadMode::TextOf(_) => Settings::new()
            .element(selector, |el: &mut Element<'_, '_>| {
                let mut s = state.borrow_mut();
                s.matched += 1;
                s.depth += 1;
                drop(s);
                let state = &state;
                el.on_end(move |_: &mut ElementEnd<'_>| {
                    let mut s = state.borrow_mut();
                    s.depth -= 1;
                    if s.depth == 0 {
                        s.print.push(end);
                    }
                    Ok(())
                });
                Ok(())
            })
            .text(selector, |t| {
                state.borrow_mut().print.extend_from_slice(t.as_str().as_bytes());
                Ok(())
            }),
        ReadMode::Count(_) => Settings::new().element(selector, |_| {
            state.borrow_mut().matched += 1;
            Ok(())
        }),
        ReadMode::Attr(_, name) => Settings::new().element(selector, |el| {
            let mut s = state.borrow_mut();
            s.matched += 1;
            if let Some(v) = el.get_attribute(name) {
                s.print.extend_from_slice(v.as_bytes());
                s.print.push(end);
            }
            Ok(())
        }),
    };
    let mut settings = options(settings, cli)?;
    let mut buf = vec![0; CHUNK];
    // The encoding, sniffed as the Standard says (byte order mark, then `--encoding`, then the
    // prescan of the first 1,024 bytes): read until `sniff_encoding` decides.
    let label = cli.encoding.as_deref().and_then(|l| Encoding::for_label(l.trim().as_bytes()));
    let mut first = 0;
    let mut at_eof = false;
    let sniffed = loop {
        if let Some(s) = htrewrite::encoding::sniff_encoding(&buf[..first], at_eof, label, encoding_rs::WINDOWS_1252) {
            break s;
        }
        let n = input.read(&mut buf[first..])?;
        at_eof = n == 0;
        first += n;
    };
    // UTF-16, and the encodings the rewriter cannot tokenize losslessly (ISO-2022-JP; the
    // replacement encoding of ISO-2022-KR, HZ, …), are decoded to UTF-8 here: a read-only mode
    // needs the text, not the bytes. A UTF-8 byte order mark goes to the rewriter, not to the output.
    let enc = sniffed.encoding;
    let decode = enc == encoding_rs::UTF_16LE
        || enc == encoding_rs::UTF_16BE
        || htrewrite::encoding::strategy(enc) == htrewrite::encoding::Strategy::Unsupported;
    let mut front = Front { decoder: None, out: Vec::new() };
    let (mut skip, mut offset_in) = (0, 0);
    if decode {
        front.decoder = Some(enc.new_decoder_without_bom_handling());
        offset_in = sniffed.bom_len;
        settings = settings.encoding("utf-8").map_err(|e| Failure::Usage(e.to_string()))?;
    } else {
        skip = sniffed.bom_len as u64;
    }
    let pending = first - offset_in;
    let sink = CaptureSink { state: &state, skip, offset: 0, buf: Vec::new(), buf_start: 0 };
    let mut rw = Rewriter::new(settings, sink).map_err(|e| Failure::Usage(e.to_string()))?;
    let bar = progress(cli, input);
    Failure::stdout_open()?;
    let mut stdout = io::stdout().lock();
    let mut bytes_in = first as u64;
    let mut bytes_out = 0u64;
    let name = input.name.clone();
    let limit = cli.memory_limit();
    // Prints what is ready: the handlers' text, then the captures that ended.
    let mut flush = |sink: &mut CaptureSink<'_>, encoding: &'static Encoding, at_end: bool| -> Result<(), Failure> {
        let print = std::mem::take(&mut state.borrow_mut().print);
        let out = &mut stdout;
        let written = out
            .write_all(&print)
            .and_then(|()| sink.print_ready(encoding, at_end, end, out))
            .and_then(|n| out.flush().map(|()| n))
            .map_err(|e| Failure::output(&e, "stdout"))?;
        bytes_out += print.len() as u64 + written;
        if sink.buf.len() > limit {
            let error = htrewrite::RewritingError::MemoryLimitExceeded { limit, needed: sink.buf.len() };
            return Err(Failure::rewriting(error, &name, "stdout"));
        }
        Ok(())
    };
    let fail = |e| Failure::rewriting(e, &name, "stdout");
    if pending > 0 {
        let chunk = front.push(&buf[offset_in..first], false);
        rw.write(chunk).map_err(fail)?;
        let encoding = rw.encoding();
        flush(rw.sink_mut(), encoding, false)?;
    }
    loop {
        let n = input.read(&mut buf)?;
        if n == 0 {
            break;
        }
        bytes_in += n as u64;
        rw.write(front.push(&buf[..n], false)).map_err(fail)?;
        let encoding = rw.encoding();
        flush(rw.sink_mut(), encoding, false)?;
        if let Some(b) = &bar {
            b.inc(n as u64);
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let tail = front.push(&[], true).to_vec();
    rw.write(&tail).map_err(fail)?;
    let encoding = rw.encoding();
    let mut sink = rw.end().map_err(fail)?;
    flush(&mut sink, encoding, true)?;
    let matched = state.borrow().matched;
    if let ReadMode::Count(_) = mode {
        let line = if many { format!("{}:{matched}\n", input.name) } else { format!("{matched}\n") };
        let mut stdout = io::stdout().lock();
        stdout.write_all(line.as_bytes()).and_then(|()| stdout.flush()).map_err(|e| Failure::output(&e, "stdout"))?;
    }
    Ok(Stats {
        input: input.name.clone(),
        bytes_in,
        bytes_out,
        elapsed: started.elapsed(),
        matched: vec![(
            mode.flag().trim_start_matches('-').to_string(),
            selector.to_string(),
            mode.flag().into(),
            matched,
            0,
        )],
    })
}
