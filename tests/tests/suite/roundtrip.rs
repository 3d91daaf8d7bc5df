//! Losslessness and chunk-invariance: for every input, the raw bytes of all tokens, in order,
//! equal the input, and the token stream (kinds and spans, adjacent text tokens of one mode
//! merged) is the same whatever the chunking; so are the decoded text of each merged text run
//! and the parse errors inside tokens (codes and spans).
//!
//! Inputs, one trial each: every html5lib tokenizer input in each of its initial states
//! (`tokenizer/…`), every tree-construction `#data` input (`tree-construction/…`,
//! `wpt-additions/…`), every vendored real page (`corpus/…`), and, when the environment variable
//! `HTREWRITE_CORPUS` names a folder, every file under it (`HTREWRITE_CORPUS/…`). Chunkings: whole,
//! one byte per chunk (7 bytes per chunk above 1 MiB), and three seeded random splittings. Text
//! modes follow the by-tag-name [`TagNamePolicy`].

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use htrewrite_conformance::chunking::Chunking;
use htrewrite_conformance::corpus::{self, CORPUS_ENV, EnvPages};
use htrewrite_conformance::harness::{self, Watchdog};
use htrewrite_conformance::{escape_bytes, escape_str, html5lib, tree_construction};
use htrewrite_tokenizer::{Span, TagNamePolicy, TextMode, Token, TokenKind, Tokenizer};
use libtest_mimic::{Failed, Trial};

/// Inputs up to this size are also fed one byte per chunk; larger ones 7 bytes per chunk.
const ONE_BYTE_CHUNKS_UP_TO: usize = 8 << 20;

/// Where a trial's input comes from.
#[derive(Clone)]
enum Source {
    Bytes(Arc<Vec<u8>>),
    File { path: PathBuf, expected_len: Option<u64> },
}

/// How the tokenizer starts.
#[derive(Clone)]
struct Start {
    mode: TextMode,
    last_start_tag: Option<String>,
}

const DOCUMENT: Start = Start { mode: TextMode::Data, last_start_tag: None };

pub(crate) fn trials() -> Vec<Trial> {
    harness::install_panic_hook();
    let watchdog = Watchdog::start(Duration::from_secs(120));
    let mut trials = Vec::new();
    let mut add = |name: String, source: Source, start: Start| {
        let watchdog = watchdog.clone();
        let trial_name = name.clone();
        trials.push(Trial::test(name, move || watchdog.watch(&trial_name, || check(&trial_name, &source, &start))));
    };

    for test in html5lib::load_tokenizer_tests() {
        let input = Arc::new(test.input.clone());
        for state in &test.initial_states {
            let Some(mode) = html5lib::text_mode_for_state(state) else { continue };
            let start = Start { mode, last_start_tag: test.last_start_tag.clone() };
            add(format!("tokenizer/{}", test.trial_name(state)), Source::Bytes(Arc::clone(&input)), start);
        }
    }

    let tree = tree_construction::load_tree_construction();
    let wpt = tree_construction::load_wpt_additions();
    let counts = (tree.len(), wpt.len());
    for case in tree.into_iter().chain(wpt) {
        add(case.name(), Source::Bytes(Arc::new(case.input)), DOCUMENT);
    }

    let pages = corpus::vendored_pages();
    let page_count = pages.len();
    for (rel, path, bytes, _sha256) in pages {
        add(format!("corpus/{rel}"), Source::File { path, expected_len: Some(bytes) }, DOCUMENT);
    }

    match corpus::env_pages() {
        EnvPages::Pages(files) => {
            for (rel, path) in files {
                add(format!("HTREWRITE_CORPUS/{rel}"), Source::File { path, expected_len: None }, DOCUMENT);
            }
        }
        EnvPages::Empty(dir) => trials
            .push(Trial::test(format!("corpus: {CORPUS_ENV} holds no readable file"), move || {
                Err(format!("{CORPUS_ENV}={}", dir.display()).into())
            })),
        EnvPages::Unset => {
            trials.push(Trial::test(format!("corpus: {CORPUS_ENV} not set"), || Ok(())).with_ignored_flag(true))
        }
    }

    // The vendored data must be complete.
    trials.push(Trial::test("data: 1796 tree-construction and 122 wpt-additions inputs, 31 pages", move || {
        if counts == (1796, 122) && page_count == 31 {
            Ok(())
        } else {
            Err(format!("found {counts:?} .dat inputs and {page_count} corpus pages").into())
        }
    }));

    trials
}

/// One token as compared across chunkings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Rec {
    kind: TokenKind,
    span: Span,
}

/// The result of one tokenization: merged token records, or the first losslessness violation.
struct Run {
    records: Vec<Rec>,
    /// The decoded text of each merged text run (pieces' `Token::text` concatenated), in order.
    texts: Vec<String>,
    /// Every `Token::parse_errors` error as `(code, start, end)`, sorted.
    errors: Vec<(&'static str, u64, u64)>,
    /// The concatenated raw bytes.
    raw: Vec<u8>,
    /// The first token whose span disagrees with its raw bytes or with the running offset.
    span_error: Option<String>,
}

fn tokenize(input: &[u8], chunks: &[&[u8]], start: &Start) -> Run {
    let mut run = Run {
        records: Vec::new(),
        texts: Vec::new(),
        errors: Vec::new(),
        raw: Vec::with_capacity(input.len()),
        span_error: None,
    };
    {
        let mut sink = TagNamePolicy(|t: &Token<'_>| {
            let span = t.span();
            let raw = t.raw();
            if run.span_error.is_none() && (span.start != run.raw.len() as u64 || span.len() != raw.len() as u64) {
                run.span_error = Some(format!(
                    "token #{} {:?} has span {}..{} and {} raw bytes, but {} bytes came before it",
                    run.records.len(),
                    t.kind(),
                    span.start,
                    span.end,
                    raw.len(),
                    run.raw.len()
                ));
            }
            run.raw.extend_from_slice(raw);
            let errors = &mut run.errors;
            t.parse_errors(&mut |e| errors.push((e.code.as_str(), e.span.start, e.span.end)));
            let kind = t.kind();
            let text = t.text();
            if let (TokenKind::Text(mode), Some(last)) = (kind, run.records.last_mut())
                && last.kind == TokenKind::Text(mode)
                && last.span.end == span.start
            {
                last.span.end = span.end;
                if let (Some(all), Some(piece)) = (run.texts.last_mut(), text) {
                    all.push_str(&piece);
                }
                return;
            }
            if let Some(text) = text {
                run.texts.push(text.into_owned());
            }
            run.records.push(Rec { kind, span });
        });
        let mut tokenizer = Tokenizer::with_text_mode(start.mode, start.last_start_tag.as_deref().map(str::as_bytes));
        for chunk in chunks {
            tokenizer.feed(chunk, &mut sink);
        }
        tokenizer.finish(&mut sink);
    }
    run.errors.sort();
    run
}

fn check(name: &str, source: &Source, start: &Start) -> Result<(), Failed> {
    let input: Arc<Vec<u8>> = match source {
        Source::Bytes(b) => Arc::clone(b),
        Source::File { path, expected_len } => {
            let bytes = std::fs::read(path).map_err(|e| format!("read {}: {e}", path.display()))?;
            if let Some(len) = expected_len
                && bytes.len() as u64 != *len
            {
                return Err(format!("{} has {} bytes, MANIFEST.tsv says {len}", path.display(), bytes.len()).into());
            }
            Arc::new(bytes)
        }
    };
    let every = if input.len() <= ONE_BYTE_CHUNKS_UP_TO { 1 } else { 7 };
    let mut failures = Vec::new();
    let mut reference: Option<(Chunking, Run)> = None;
    for c in Chunking::standard(name, every) {
        let chunks = c.chunks(&input);
        let run = match harness::catch(|| tokenize(&input, &chunks, start)) {
            Ok(run) => run,
            Err(panic) => {
                failures.push(format!("{}: {panic}", c.describe(input.len())));
                continue;
            }
        };
        if run.raw != *input {
            failures.push(format!("{}: not lossless: {}", c.describe(input.len()), first_difference(&input, &run)));
            continue;
        }
        if let Some(e) = run.span_error {
            failures.push(format!("{}: {e}", c.describe(input.len())));
            continue;
        }
        match &reference {
            None => reference = Some((c, run)),
            Some((rc, reference)) => {
                if let Some(d) = run_difference(&input, reference, &run) {
                    failures.push(format!("{}: differs from `{rc}`: {d}", c.describe(input.len())));
                }
            }
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        let shown = if input.len() <= 300 {
            format!("input: \"{}\"\n", escape_bytes(&input))
        } else {
            format!("input: {} bytes\n", input.len())
        };
        Err(format!("{shown}{}", failures.join("\n")).into())
    }
}

fn excerpt(input: &[u8], at: usize) -> String {
    let from = at.saturating_sub(20);
    let to = (at + 20).min(input.len());
    format!("\"{}\" (bytes {from}..{to})", escape_bytes(&input[from..to]))
}

fn first_difference(input: &[u8], run: &Run) -> String {
    let at = input.iter().zip(&run.raw).position(|(a, b)| a != b).unwrap_or(input.len().min(run.raw.len()));
    let token = run.records.iter().position(|r| r.span.end as usize > at);
    format!(
        "tokens cover {} of {} bytes; first difference at byte {at} (token #{}), input there: {}, tokens there: {}",
        run.raw.len(),
        input.len(),
        token.map_or("-".to_owned(), |t| t.to_string()),
        excerpt(input, at),
        excerpt(&run.raw, at.min(run.raw.len())),
    )
}

/// How `b` differs from `a`: token stream first, then decoded text, then errors.
fn run_difference(input: &[u8], a: &Run, b: &Run) -> Option<String> {
    if a.records != b.records {
        return Some(format!("token stream: {}", stream_difference(input, &a.records, &b.records)));
    }
    if a.texts != b.texts {
        let i = a.texts.iter().zip(&b.texts).position(|(x, y)| x != y).unwrap_or(0);
        let (x, y) = (&a.texts[i], &b.texts[i]);
        // Show both around the first differing character.
        let at = x.chars().zip(y.chars()).take_while(|(p, q)| p == q).count().saturating_sub(20);
        let clip = |s: &str| escape_str(&s.chars().skip(at).take(60).collect::<String>());
        return Some(format!(
            "decoded text (`Token::text` of the pieces, concatenated) of text run #{i} (bytes {}..{}), from \
             character {at}: \"{}\" vs \"{}\"",
            text_run_span(&a.records, i).0,
            text_run_span(&a.records, i).1,
            clip(x),
            clip(y)
        ));
    }
    if a.errors != b.errors {
        let only = |x: &[(&str, u64, u64)], y: &[(&str, u64, u64)]| -> Vec<String> {
            x.iter().filter(|e| !y.contains(e)).take(8).map(|(c, s, e)| format!("{c} at {s}..{e}")).collect()
        };
        return Some(format!(
            "parse errors: only in the reference [{}], only here [{}]",
            only(&a.errors, &b.errors).join(", "),
            only(&b.errors, &a.errors).join(", ")
        ));
    }
    None
}

/// The span of the `i`-th text run.
fn text_run_span(records: &[Rec], i: usize) -> (u64, u64) {
    records
        .iter()
        .filter(|r| matches!(r.kind, TokenKind::Text(_)))
        .nth(i)
        .map_or((0, 0), |r| (r.span.start, r.span.end))
}

fn stream_difference(input: &[u8], a: &[Rec], b: &[Rec]) -> String {
    let i = a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
    let show = |r: Option<&Rec>| match r {
        Some(r) => format!(
            "{:?} {}..{} \"{}\"",
            r.kind,
            r.span.start,
            r.span.end,
            escape_bytes(&input[r.span.start as usize..(r.span.end as usize).min(r.span.start as usize + 60)])
        ),
        None => "(end of stream)".to_owned(),
    };
    format!("token #{i}: {} vs {} ({} vs {} tokens)", show(a.get(i)), show(b.get(i)), a.len(), b.len())
}
