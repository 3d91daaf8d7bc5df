//! Fuzz targets of htrewrite, as plain functions: the libFuzzer entry points
//! in `fuzz_targets/` call them, and so does the stable `replay` runner
//! (`src/bin/replay.rs`), which replays files or generates random inputs from
//! the dictionary without libFuzzer.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod encoding;
mod selectors;
mod shadow;

pub use encoding::encoding_sniff;
pub use selectors::{random_selector_input, selector_parse};
pub use shadow::tokenizer_shadow;

use htrewrite_testkit::{Random, XorShift64Star};
use htrewrite_tokenizer::{
    Doctype, Feedback, ParseError, Span, TextMode, Token, TokenKind, TokenSink, Tokenizer, text_mode_for_tag,
};

/// Tokenizer round-trip and chunk-invariance.
///
/// `data[..2]` (when present) is a seed, the rest is the input. The seed picks
/// the initial tokenizer state, whether input stream errors are reported, and
/// the chunk split points. The input is tokenized whole and in chunks; each
/// run must give back the input exactly (concatenated raw bytes), and both
/// runs must give the same tokens (adjacent text merged) with the same
/// decoded views and the same parse errors. Every decoded view is called on
/// every token, so a panic in any of them is found.
///
/// # Panics
/// When one of those properties fails (that is the finding).
pub fn tokenizer_roundtrip(data: &[u8]) {
    let (seed, input) = match data {
        [a, b, rest @ ..] => (u16::from_le_bytes([*a, *b]), rest),
        _ => (0, data),
    };
    let whole = run(seed, input, &[input.len()]);
    let splits = split_points(seed, input.len());
    let chunked = run(seed, input, &splits);
    assert_eq!(whole.raw, input, "whole: raw bytes differ from the input (seed {seed})");
    assert_eq!(chunked.raw, input, "chunked {splits:?}: raw bytes differ from the input (seed {seed})");
    assert_eq!(whole.tokens.len(), chunked.tokens.len(), "token count differs; chunks {splits:?} (seed {seed})");
    for (i, (a, b)) in whole.tokens.iter().zip(&chunked.tokens).enumerate() {
        assert_eq!(a, b, "token {i} differs; chunks {splits:?} (seed {seed})");
    }
    assert_eq!(whole.errors, chunked.errors, "parse errors differ; chunks {splits:?} (seed {seed})");
}

/// Chunk lengths (summing to `len`) derived from `seed`: mostly tiny chunks
/// for some seeds, mixed sizes for others.
fn split_points(seed: u16, len: usize) -> Vec<usize> {
    let mut rng = XorShift64Star::new(u64::from(seed));
    let max = match seed % 4 {
        0 => 1,
        1 => 4,
        2 => 32,
        _ => 1024,
    };
    let mut out = Vec::new();
    let mut left = len;
    while left > 0 {
        let n = (1 + rng.below(max)).min(left);
        out.push(n);
        left -= n;
    }
    out
}

/// A token's decoded views, owned, for comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Views {
    Text(String),
    Tag { name: String, attributes: Vec<(String, String, bool)>, self_closing: bool },
    Comment(String),
    Doctype(Doctype),
    ProcessingInstruction(String, String),
    None,
}

/// One token (text runs merged across chunk ends).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Seen {
    kind: TokenKind,
    span: Span,
    eof: bool,
    views: Views,
}

/// What one tokenization produced.
#[derive(Debug, Default)]
struct Run {
    raw: Vec<u8>,
    tokens: Vec<Seen>,
    errors: Vec<(u64, u64, &'static str)>,
}

/// The fuzzing sink: records tokens and errors, and answers with a by-name
/// policy that also tracks foreign content (`<svg>`, `<math>`) so CDATA
/// sections get exercised.
///
/// Deliberately not the tree-builder shadow (which the `tokenize` example and
/// the rewriter use): this target isolates the tokenizer, so what it finds is
/// a tokenizer finding. Tokenizer + shadow is a target of its own (issue 8).
struct Recorder {
    run: Run,
    foreign_depth: usize,
}

impl Recorder {
    fn error(&mut self, e: ParseError) {
        self.run.errors.push((e.span.start, e.span.end, e.code.as_str()));
    }
}

impl TokenSink for Recorder {
    fn token(&mut self, t: &Token<'_>) -> Feedback {
        let span = t.span();
        assert_eq!(span.len(), t.raw().len() as u64, "span length differs from raw length");
        assert_eq!(span.start, self.run.raw.len() as u64, "token does not start where the previous ended");
        self.run.raw.extend_from_slice(t.raw());
        // Every view on every token: none may panic, each must be None for
        // kinds it does not apply to.
        let text = t.text();
        let comment = t.comment_data();
        let doctype = t.doctype();
        let pi = t.processing_instruction();
        let attributes = t.attributes();
        for a in t.attribute_spans() {
            let _ = a.name.slice(t.raw());
            if let Some(v) = a.value {
                let _ = v.slice(t.raw());
            }
        }
        let _ = t.tag_name_span().slice(t.raw());
        let name = t.tag_name();
        let mut errors = Vec::new();
        t.parse_errors(&mut |e| errors.push(e));
        for e in errors {
            assert!(e.span.start >= span.start && e.span.end <= span.end, "error {e} outside its token {span:?}");
            self.error(e);
        }
        assert_eq!(text.is_some(), matches!(t.kind(), TokenKind::Text(_)));
        assert_eq!(comment.is_some(), matches!(t.kind(), TokenKind::Comment(_)));
        assert_eq!(doctype.is_some(), t.kind() == TokenKind::Doctype);
        assert_eq!(pi.is_some(), t.kind() == TokenKind::ProcessingInstruction);
        let is_tag = matches!(t.kind(), TokenKind::StartTag | TokenKind::EndTag);
        let views = if let Some(text) = text {
            Views::Text(text.into_owned())
        } else if is_tag {
            Views::Tag {
                name: name.clone().into_owned(),
                attributes: attributes
                    .into_iter()
                    .map(|a| (a.name.into_owned(), a.value.into_owned(), a.duplicate))
                    .collect(),
                self_closing: t.is_self_closing(),
            }
        } else if let Some(c) = comment {
            Views::Comment(c.into_owned())
        } else if let Some(d) = doctype {
            Views::Doctype(d)
        } else if let Some((target, data)) = pi {
            Views::ProcessingInstruction(target.into_owned(), data.into_owned())
        } else {
            Views::None
        };
        // Merge a text piece into the previous piece of the same run.
        let merged = match (self.run.tokens.last_mut(), &views) {
            (Some(prev), Views::Text(more)) if prev.kind == t.kind() && prev.span.end == span.start => {
                if let Views::Text(s) = &mut prev.views {
                    s.push_str(more);
                }
                prev.span.end = span.end;
                prev.eof = t.is_eof_terminated();
                true
            }
            _ => false,
        };
        if !merged {
            self.run.tokens.push(Seen { kind: t.kind(), span, eof: t.is_eof_terminated(), views });
        }
        let foreign = name.as_ref() == "svg" || name.as_ref() == "math";
        let text_mode = match t.kind() {
            TokenKind::StartTag if foreign && !t.is_self_closing() => {
                self.foreign_depth += 1;
                TextMode::Data
            }
            TokenKind::StartTag if self.foreign_depth == 0 => text_mode_for_tag(name.as_bytes(), true),
            TokenKind::EndTag if foreign => {
                self.foreign_depth = self.foreign_depth.saturating_sub(1);
                TextMode::Data
            }
            _ => TextMode::Data,
        };
        Feedback { text_mode }
    }

    fn cdata_allowed(&mut self) -> bool {
        self.foreign_depth > 0
    }

    fn parse_error(&mut self, error: ParseError) {
        self.error(error);
    }
}

/// Tokenizes `input` in chunks of the given lengths, starting in the state the
/// seed picks.
fn run(seed: u16, input: &[u8], chunks: &[usize]) -> Run {
    let mut tokenizer = match seed >> 13 {
        4 => Tokenizer::with_text_mode(TextMode::Rcdata, Some(b"title")),
        5 => Tokenizer::with_text_mode(TextMode::Rawtext, Some(b"style")),
        6 => Tokenizer::with_text_mode(TextMode::ScriptData, Some(b"script")),
        7 => Tokenizer::with_text_mode(TextMode::Plaintext, None),
        _ => Tokenizer::new(),
    };
    tokenizer.set_report_input_errors(seed & 0x100 != 0);
    let mut sink = Recorder { run: Run::default(), foreign_depth: 0 };
    let mut at = 0;
    for &n in chunks {
        tokenizer.feed(&input[at..at + n], &mut sink);
        at += n;
        assert_eq!(tokenizer.offset(), at as u64, "offset after feeding {at} bytes");
    }
    tokenizer.finish(&mut sink);
    sink.run.errors.sort_unstable();
    sink.run
}

/// Whether the known finding `name` is tolerated in this run: named in the
/// comma-separated environment variable `HTREWRITE_FUZZ_TOLERATE` (unset:
/// nothing is tolerated, every property is checked). For long fuzzing runs
/// while a reported finding is not fixed yet, so that it does not hide
/// others.
pub fn tolerated(name: &str) -> bool {
    static TOLERATED: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    TOLERATED
        .get_or_init(|| {
            let list = std::env::var("HTREWRITE_FUZZ_TOLERATE").unwrap_or_default();
            let names: Vec<String> =
                list.split(',').map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect();
            if !names.is_empty() {
                eprintln!("htrewrite-fuzz: tolerating known findings {names:?} (HTREWRITE_FUZZ_TOLERATE)");
            }
            names
        })
        .iter()
        .any(|n| n == name)
}

/// A fuzz target, as the replay runner knows it.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    /// Its name, as in `fuzz_targets/` and `seeds/`.
    pub name: &'static str,
    /// The function that checks one input.
    pub run: fn(&[u8]),
    /// The text of its libFuzzer dictionary (`dict/*.dict`).
    pub dictionary: &'static str,
    /// How many pieces a generated input has at most, by default.
    pub max_pieces: usize,
    /// The generator of random inputs for the replay runner (fed the
    /// parsed dictionary and the maximum number of pieces).
    pub generate: fn(&mut XorShift64Star, &[Vec<u8>], usize) -> Vec<u8>,
}

impl Target {
    /// The inputs generated from the target's dictionary with generator seed `seed` (the replay
    /// runner's `--seed`), at most `max_pieces` pieces each, in order: endless, so the first `n`
    /// are `--random n`'s, and case `i` is the last of `--random i + 1`. The one place that
    /// turns a seed into the generator's stream, for the runner and the tests that replay it.
    ///
    /// # Example
    /// ```
    /// let target = htrewrite_fuzz::TARGETS[0];
    /// let first: Vec<Vec<u8>> = target.generated(1, target.max_pieces).take(3).collect();
    /// assert_eq!(first, target.generated(1, target.max_pieces).take(3).collect::<Vec<_>>());
    /// ```
    pub fn generated(self, seed: u64, max_pieces: usize) -> impl Iterator<Item = Vec<u8>> {
        let dictionary = parse_dictionary(self.dictionary);
        let mut rng = XorShift64Star::from_state(seed | 1);
        std::iter::repeat_with(move || (self.generate)(&mut rng, &dictionary, max_pieces))
    }
}

/// The libFuzzer dictionary of HTML syntax (targets 1–3).
pub const HTML_DICTIONARY: &str = include_str!("../dict/html.dict");
/// The libFuzzer dictionary of selector syntax (target 4).
pub const SELECTOR_DICTIONARY: &str = include_str!("../dict/selectors.dict");
/// The libFuzzer dictionary of encoding declarations (target 5).
pub const ENCODING_DICTIONARY: &str = include_str!("../dict/encoding.dict");

/// Every fuzz target, in the issue's order.
pub const TARGETS: [Target; 5] = [
    Target {
        name: "tokenizer_roundtrip",
        run: tokenizer_roundtrip,
        dictionary: HTML_DICTIONARY,
        max_pieces: 64,
        generate: random_input,
    },
    Target {
        name: "tokenizer_shadow",
        run: tokenizer_shadow,
        dictionary: HTML_DICTIONARY,
        max_pieces: 64,
        generate: random_input,
    },
    Target {
        name: "rewriter_random",
        run: rewriter_random,
        dictionary: HTML_DICTIONARY,
        max_pieces: 64,
        generate: random_input,
    },
    Target {
        name: "selector_parse",
        run: selector_parse,
        dictionary: SELECTOR_DICTIONARY,
        max_pieces: 24,
        generate: random_selector_input,
    },
    Target {
        name: "encoding_sniff",
        run: encoding_sniff,
        dictionary: ENCODING_DICTIONARY,
        max_pieces: 400,
        generate: random_input,
    },
];

/// The fragments of `dict/html.dict`; see [`parse_dictionary`].
pub fn dictionary() -> Vec<Vec<u8>> {
    parse_dictionary(HTML_DICTIONARY)
}

/// The fragments of a libFuzzer dictionary (one `"…"` per line, optionally
/// after a `name=`, with `\\`, `\"` and `\xNN` escapes; `#` comments).
pub fn parse_dictionary(text: &str) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        let (Some(open), Some(close)) = (line.find('"'), line.rfind('"')) else { continue };
        if line.starts_with('#') || close <= open {
            continue;
        }
        let body = &line.as_bytes()[open + 1..close];
        let mut bytes = Vec::with_capacity(body.len());
        let mut i = 0;
        while i < body.len() {
            match (body[i], body.get(i + 1)) {
                (b'\\', Some(b'x')) if i + 3 < body.len() => {
                    let hex = std::str::from_utf8(&body[i + 2..i + 4]).ok();
                    bytes.push(hex.and_then(|h| u8::from_str_radix(h, 16).ok()).unwrap_or(b'?'));
                    i += 4;
                }
                (b'\\', Some(&c)) => {
                    bytes.push(c);
                    i += 2;
                }
                (c, _) => {
                    bytes.push(c);
                    i += 1;
                }
            }
        }
        out.push(bytes);
    }
    out
}

/// Bytes random words are made of.
const WORD_BYTES: &[u8] = b"abcxyzAZ09 \t\n=\"'-/!?&#;";

/// Bytes with their own rules: CR, CRLF, NUL, UTF-8, a noncharacter, a control.
const SPECIAL: [&[u8]; 7] = [b"\r", b"\r\n", b"\0", b"\xc3\xa9", b"\xef\xbf\xbe", b"\x01", b"\x80"];

/// A random HTML-like input: dictionary fragments, short random words and
/// random bytes, with a random 2-byte seed in front (the
/// [`tokenizer_roundtrip`] input format).
pub fn random_input(rng: &mut XorShift64Star, dictionary: &[Vec<u8>], max_pieces: usize) -> Vec<u8> {
    let mut out = (rng.next_u64() as u16).to_le_bytes().to_vec();
    for _ in 0..rng.below(max_pieces.max(1)) {
        match rng.below(10) {
            0..=5 => out.extend_from_slice(&dictionary[rng.below(dictionary.len())]),
            6 | 7 => {
                for _ in 0..1 + rng.below(6) {
                    out.push(WORD_BYTES[rng.below(WORD_BYTES.len())]);
                }
            }
            8 => out.push(rng.next_u64() as u8),
            _ => out.extend_from_slice(SPECIAL[rng.below(SPECIAL.len())]),
        }
    }
    out
}

/// The selectors the rewriter target picks from.
const SELECTORS: [&str; 12] =
    ["*", "p", "a[href]", "div > p", "li + li", "body", "head", "table td", "svg *", "script", "title", ":not(b)"];

/// Rewriter with random handlers: never panics; with read-only handlers the
/// output is the input whatever the chunking; with mutations the output
/// tokenizes back losslessly and the same mutations give the same output
/// whatever the chunking (except per-chunk text replacement, which depends on
/// the chunks by design). Checked for element, text and comment rules on one
/// selector, then for document-wide comment, DOCTYPE, processing-instruction
/// and end handlers alone; and a document-wide text handler sees the same
/// chunks with and without a selector rule. Rules on `head` and `html`
/// alone give the full pipeline's output though the rewriter copies the
/// rest of the document once they can match nothing more.
///
/// `data[0]` picks the mutations (bit flags), `data[1]` the selector and the
/// chunking, the rest is the document.
///
/// # Panics
/// When one of those properties fails (that is the finding).
pub fn rewriter_random(data: &[u8]) {
    use htrewrite::{ContentType, Settings};
    let (flags, pick, input) = match data {
        [a, b, rest @ ..] => (*a, *b, rest),
        _ => (0, 0, data),
    };
    let selector = SELECTORS[usize::from(pick) % SELECTORS.len()];
    let run = |chunks: &[usize], mutate: bool| -> Result<Vec<u8>, htrewrite::RewritingError> {
        let mut settings = Settings::new()
            .element(selector, move |el| {
                let _ = (el.tag_name(), el.attributes(), el.source_location(), el.can_have_content());
                if !mutate {
                    el.on_end(|end| {
                        let _ = (end.tag_name(), end.end_tag_raw(), end.source_location());
                        Ok(())
                    });
                    return Ok(());
                }
                if flags & 1 != 0 {
                    let _ = el.set_attribute("data-x", "a\"b'&<");
                }
                if flags & 2 != 0 {
                    let _ = el.remove_attribute("href");
                }
                if flags & 4 != 0 {
                    el.before("<i>b</i>", ContentType::Html)?;
                    el.after("a & b", ContentType::Text)?;
                }
                if flags & 8 != 0 {
                    let _ = el.append("</x>&<", ContentType::Text);
                    let _ = el.prepend("<!--p-->", ContentType::Html);
                }
                match flags >> 4 & 7 {
                    1 => el.remove(),
                    2 => el.remove_and_keep_content(),
                    3 => el.replace("[r]", ContentType::Text)?,
                    4 => {
                        let _ = el.set_inner_content("in & out", ContentType::Text);
                    }
                    5 => {
                        let _ = el.set_tag_name("x-y");
                    }
                    _ => {}
                }
                Ok(())
            })
            .text(selector, move |t| {
                let _ = (t.as_str(), t.raw(), t.last_in_text_node());
                if mutate && flags & 128 != 0 && !t.as_str().is_empty() {
                    let _ = t.replace("T<>&", ContentType::Text);
                }
                Ok(())
            })
            .doc_comments(move |c| {
                if mutate && flags & 64 != 0 {
                    let _ = c.set_text("c");
                }
                Ok(())
            });
        if flags & 0x80 != 0 && !mutate {
            settings = settings.whole_text_nodes(1 << 20);
        }
        rewrite_in_chunks(settings, input, chunks)
    };
    let splits = split_points(u16::from(pick), input.len());
    // Replacing each text chunk depends on the chunks by design; every other edit must not.
    check_rewrites(input, &splits, flags & 128 == 0, run);
    // Document-wide handlers only: no selector rules, so no element event has a
    // consumer and the rewriter takes its path without element-event bookkeeping.
    let doc_only = |chunks: &[usize], mutate: bool| -> Result<Vec<u8>, htrewrite::RewritingError> {
        let settings = Settings::new()
            .doc_comments(move |c| {
                let _ = (c.text(), c.kind(), c.source_location());
                if mutate && flags & 64 != 0 {
                    let _ = c.set_text("c");
                }
                if mutate && flags & 8 != 0 {
                    c.after("<!--a-->", ContentType::Html)?;
                }
                Ok(())
            })
            .doctype(move |d| {
                let _ = (d.name(), d.public_id(), d.raw());
                if mutate && flags & 4 != 0 {
                    d.remove();
                }
                Ok(())
            })
            .processing_instructions(move |p| {
                let _ = (p.target(), p.data());
                if mutate && flags & 2 != 0 {
                    p.replace("[pi]", ContentType::Text)?;
                }
                Ok(())
            })
            .end(move |e| {
                if mutate && flags & 1 != 0 {
                    e.append("</x>&<", ContentType::Text)?;
                }
                Ok(())
            });
        rewrite_in_chunks(settings, input, chunks)
    };
    check_rewrites(input, &splits, true, doc_only);
    // What a document-wide text handler sees does not depend on whether
    // selector rules exist: without them, only text tokens go through the
    // element-event bookkeeping (whose events inside text end text nodes).
    for chunks in [&[input.len()][..], &splits] {
        let without = doc_text_chunks(input, chunks, false);
        let with = doc_text_chunks(input, chunks, true);
        assert_eq!(without, with, "doc_text chunks differ without and with a selector rule (chunks {chunks:?})");
    }
    // Rules on `head` (and `html`) only, no document-wide handler: once those
    // are inserted and their edits placed, the rewriter copies the rest; the
    // output (or the error) must be the full pipeline's, whole and in chunks.
    let settling = |chunks: &[usize], full: bool| -> Result<Vec<u8>, String> {
        let selector = if pick & 1 == 0 { "head" } else { "html, head" };
        let settings = Settings::new().full_pipeline(full).element(selector, move |el| {
            if flags & 1 != 0 {
                let _ = el.set_attribute("data-x", "a\"b'&<");
            }
            if flags & 2 != 0 {
                el.append("<script src=/x.js></script>", ContentType::Html)?;
            }
            if flags & 4 != 0 {
                el.prepend("a<b", ContentType::Text)?;
            }
            if flags & 8 != 0 {
                el.on_end(|end| {
                    end.before("<!--e-->", ContentType::Html)?;
                    Ok(())
                });
            }
            match flags >> 4 & 3 {
                1 => el.remove(),
                2 => el.remove_and_keep_content(),
                3 => {
                    let _ = el.set_inner_content("in & out", ContentType::Text);
                }
                _ => {}
            }
            Ok(())
        });
        rewrite_in_chunks(settings, input, chunks).map_err(|e| e.to_string())
    };
    for chunks in [&[input.len()][..], &splits] {
        assert_eq!(
            settling(chunks, false),
            settling(chunks, true),
            "the copy differs from the full pipeline (chunks {chunks:?})"
        );
    }
    // Parsed content at the start of every matched element (refused where the
    // parse has passed, and past the nesting limit when it matches itself):
    // the same output whole and in chunks, and it tokenizes back losslessly.
    let fragment = PARSED_FRAGMENTS[usize::from(flags) % PARSED_FRAGMENTS.len()];
    let parsed = |chunks: &[usize]| {
        let settings = Settings::new().element(selector, move |el| {
            let _ = el.prepend(fragment, ContentType::ParsedHtml);
            Ok(())
        });
        rewrite_in_chunks(settings, input, chunks)
    };
    match (parsed(&[input.len()]), parsed(&splits)) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a, b, "parsed content gave different output whole and in chunks {splits:?}");
            assert_eq!(run_tokenizer(&a), a, "the output with parsed content does not tokenize back losslessly");
        }
        (Err(_), Err(_)) => {}
        (a, b) => panic!("parsed content: whole and chunked runs disagree on failing: {:?} vs {:?}", a.err(), b.err()),
    }
}

/// What [`rewriter_random`] parses at the start of matched elements:
/// markup that closes, opens tables, ends inside a tag or a comment.
const PARSED_FRAGMENTS: &[&str] =
    &["<b>p</b>", "</p><table>t<tr><td>", "<a href=x", "x<!--", "</div></body><p>", "<script>a", ""];

/// The chunks a document-wide text handler sees (text, raw bytes, last in
/// its text node) when `input` is fed in `chunks`, with or without an inert
/// `*` element rule beside it.
fn doc_text_chunks(input: &[u8], chunks: &[usize], with_rule: bool) -> Vec<(String, Vec<u8>, bool)> {
    use std::cell::RefCell;
    let seen = RefCell::new(Vec::new());
    let mut settings = htrewrite::Settings::new().doc_text(|t| {
        seen.borrow_mut().push((t.as_str().to_owned(), t.raw().to_vec(), t.last_in_text_node()));
        Ok(())
    });
    if with_rule {
        settings = settings.element("*", |_| Ok(()));
    }
    let out = rewrite_in_chunks(settings, input, chunks).expect("read-only handlers cannot fail");
    assert_eq!(out, input, "a read-only document-wide text handler changed the output");
    seen.into_inner()
}

/// The properties of [`rewriter_random`] for one configuration `run` (chunk
/// lengths, whether handlers mutate → output): read-only handlers give the
/// input back whole and in `splits`; mutating ones fail or succeed alike whole
/// and in `splits`, give the same output when `same_chunked` (edits that do not
/// depend on the chunks), and their output tokenizes back losslessly.
fn check_rewrites(
    input: &[u8],
    splits: &[usize],
    same_chunked: bool,
    run: impl Fn(&[usize], bool) -> Result<Vec<u8>, htrewrite::RewritingError>,
) {
    let whole = [input.len()];
    let plain = run(&whole, false).expect("read-only handlers cannot fail");
    assert_eq!(plain, input, "read-only handlers changed the output (whole)");
    let plain = run(splits, false).expect("read-only handlers cannot fail");
    assert_eq!(plain, input, "read-only handlers changed the output (chunks {splits:?})");
    let a = run(&whole, true);
    let b = run(splits, true);
    match (a, b) {
        (Ok(a), Ok(b)) => {
            if same_chunked {
                assert_eq!(a, b, "mutations gave different output whole and in chunks {splits:?}");
            }
            let again = run_tokenizer(&a);
            assert_eq!(again, a, "the output does not tokenize back losslessly");
        }
        (Err(_), Err(_)) => {}
        (a, b) => panic!("whole and chunked runs disagree on failing: {:?} vs {:?}", a.err(), b.err()),
    }
}

/// Rewrites `input` fed in chunks of the given lengths; the output.
fn rewrite_in_chunks(
    settings: htrewrite::Settings<'_>,
    input: &[u8],
    chunks: &[usize],
) -> Result<Vec<u8>, htrewrite::RewritingError> {
    let mut out = Vec::new();
    let mut rw = htrewrite::Rewriter::new(settings, |c: &[u8]| out.extend_from_slice(c))?;
    let mut at = 0;
    for &n in chunks {
        rw.write(&input[at..at + n])?;
        at += n;
    }
    let _sink = rw.end()?;
    Ok(out)
}

/// The raw bytes of all tokens of `input`, by-tag-name text modes.
fn run_tokenizer(input: &[u8]) -> Vec<u8> {
    let mut raw = Vec::new();
    let mut sink = htrewrite_tokenizer::TagNamePolicy(|t: &Token<'_>| raw.extend_from_slice(t.raw()));
    let mut tokenizer = Tokenizer::new();
    tokenizer.feed(input, &mut sink);
    tokenizer.finish(&mut sink);
    raw
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_points_cover_the_input() {
        for seed in [0, 1, 2, 3, 0xffff] {
            assert_eq!(split_points(seed, 1000).iter().sum::<usize>(), 1000);
        }
        assert!(split_points(7, 0).is_empty());
    }

    #[test]
    fn every_target_has_an_entry_point_seeds_and_a_dictionary() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for t in TARGETS {
            let entry = std::fs::read_to_string(root.join(format!("fuzz_targets/{}.rs", t.name)))
                .unwrap_or_else(|e| panic!("{}: no libFuzzer entry point: {e}", t.name));
            assert!(
                entry.contains(&format!("htrewrite_fuzz::{}(data)", t.name)),
                "{}: entry point calls another target",
                t.name
            );
            let seeds = std::fs::read_dir(root.join("seeds").join(t.name)).map_or(0, |d| d.count());
            assert!(seeds >= 5, "{}: {seeds} seeds", t.name);
            let fragments = parse_dictionary(t.dictionary);
            assert!(fragments.len() > 50 && fragments.iter().all(|f| !f.is_empty()), "{}: dictionary", t.name);
        }
        assert!(parse_dictionary(SELECTOR_DICTIONARY).contains(&b":nth-child(".to_vec()));
        assert!(parse_dictionary(ENCODING_DICTIONARY).contains(&b"\xef\xbb\xbf".to_vec()));
    }

    #[test]
    fn dictionary_parses() {
        let d = dictionary();
        assert!(d.len() > 50);
        assert!(d.contains(&b"<!--".to_vec()));
        assert!(d.contains(&b"\"".to_vec()));
        assert!(d.iter().all(|f| !f.is_empty()));
    }
}
