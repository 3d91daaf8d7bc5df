//! The rewriter is lossless and chunking-independent (issue 5, proof 3 and "Exactness").
//!
//! For every input — each tree-construction `#data` input, each wpt-addition, each vendored real
//! page and, when `HTREWRITE_CORPUS` names a folder, each file under it — and every chunking (whole,
//! one byte per chunk for inputs up to 64 KiB or 997 bytes per chunk above, three seeded random
//! splittings):
//! 1. with no handlers the output is the input, byte for byte, both as users run it (the rewriter
//!    copies it) and with `Settings::full_pipeline` (every token parsed);
//! 2. with read-only handlers on everything (`*` element, element end, text, comments; DOCTYPE,
//!    document text, document comments, processing instructions, document end) the output is the
//!    input, byte for byte;
//! 3. what those handlers saw (element names, attributes, origins; end causes and end tags; each
//!    text node's joined text; comments) is the same for every chunking;
//! 4. a document-wide text handler alone (no selector: the rewriter's path for text that no element
//!    event can split, `Core::token`) sees the same chunks — text, source location, text mode, last
//!    in its text node — as beside a `*` element handler (every text token on the full path);
//! 5. element handlers that edit, alone (no text or comment handler: the shadow sends the rewriter
//!    no text events), write and see what they write and see beside a document text handler that
//!    does nothing (text events sent, every text token's place recorded) — whole and random
//!    chunkings.

use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use htrewrite::{ContentType, Rewriter, Settings};
use htrewrite_conformance::chunking::Chunking;
use htrewrite_conformance::corpus::{self, CORPUS_ENV, EnvPages};
use htrewrite_conformance::harness::{self, Watchdog};
use htrewrite_conformance::{first_difference, tree_construction};
use libtest_mimic::{Failed, Trial};

#[derive(Clone)]
enum Source {
    Bytes(Arc<Vec<u8>>),
    File(PathBuf),
}

/// Documents whose text is split by element events after its first byte, which item 4 must see
/// as the full path does: the text before the events is a text node of its own.
/// Each fails when the path takes text whose events come later (checked by making
/// `Core::text_acts_at_start` always true).
const TEXT_SPLITS: [(&str, &str); 3] = [
    // "In body" ignores the NULs; the `b` is reconstructed at `x`.
    ("nul-then-reconstructed-formatting", "<p><b></p>\0\0x"),
    // The newline right after `<pre>` is ignored; the `b` is reconstructed at `y`.
    ("pre-newline-then-reconstructed-formatting", "<p><b></p><pre>\ny"),
    // Whitespace stays in the head; `z` closes it and opens the body.
    ("head-whitespace-then-body", "<head> \n z"),
];

/// Text of characters of two to four bytes and of invalid UTF-8, for item 4: cut at every byte,
/// chunks end inside characters and text tokens span chunks, so a document text handler alone
/// reads text both from the checked start of a chunk (`ValidChunk`) and decoded on its own.
const TEXT_UTF8: [(&str, &[u8]); 3] = [
    ("multibyte-characters", "caf\u{e9} \u{20ac}\u{1F600}<p>x&amp;\u{e9}\r\n<b>\u{e9}".as_bytes()),
    ("invalid-bytes", b"a\xFFb<p>\xC3\xA9\xC3<i>\xF0\x9F\x98 x\xE2\x82"),
    ("rcdata-and-rawtext", "<title>\u{e9}&amp;\0</title><style>\u{20ac}\r</style><textarea>\u{e9}".as_bytes()),
];

pub(crate) fn trials() -> Vec<Trial> {
    harness::install_panic_hook();
    let watchdog = Watchdog::start(Duration::from_secs(300));
    let mut trials = Vec::new();
    let mut add = |name: String, source: Source| {
        let watchdog = watchdog.clone();
        let trial_name = name.clone();
        trials.push(Trial::test(name, move || watchdog.watch(&trial_name, || check(&trial_name, &source))));
    };
    for case in tree_construction::load_tree_construction().into_iter().chain(tree_construction::load_wpt_additions()) {
        add(format!("rewriter/{}", case.name()), Source::Bytes(Arc::new(case.input)));
    }
    for (name, input) in TEXT_SPLITS {
        add(format!("rewriter/text-splits/{name}"), Source::Bytes(Arc::new(input.as_bytes().to_vec())));
    }
    for (name, input) in TEXT_UTF8 {
        add(format!("rewriter/text-utf8/{name}"), Source::Bytes(Arc::new(input.to_vec())));
    }
    for (rel, path, _, _) in corpus::vendored_pages() {
        add(format!("rewriter/corpus/{rel}"), Source::File(path));
    }
    match corpus::env_pages() {
        EnvPages::Pages(files) => {
            for (rel, path) in files {
                add(format!("rewriter/HTREWRITE_CORPUS/{rel}"), Source::File(path));
            }
        }
        EnvPages::Empty(dir) => trials
            .push(Trial::test(format!("rewriter/{CORPUS_ENV} holds no readable file"), move || {
                Err(format!("{CORPUS_ENV}={}", dir.display()).into())
            })),
        EnvPages::Unset => trials
            .push(Trial::test(format!("rewriter/corpus: {CORPUS_ENV} not set"), || Ok(())).with_ignored_flag(true)),
    }
    trials
}

fn check(name: &str, source: &Source) -> Result<(), Failed> {
    let input = match source {
        Source::Bytes(b) => b.to_vec(),
        Source::File(p) => std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?,
    };
    let every = if input.len() <= 64 << 10 { 1 } else { 997 };
    let mut first_log: Option<(Chunking, Vec<String>)> = None;
    for chunking in Chunking::standard(name, every) {
        let chunks = chunking.chunks(&input);
        let plain = run(&chunks, false, false).map_err(|e| format!("{}: {e}", chunking.describe(input.len())))?;
        if plain.0 != input {
            return Err(difference("no handlers", &chunking, &input, &plain.0).into());
        }
        let full = run(&chunks, false, true).map_err(|e| format!("{}: {e}", chunking.describe(input.len())))?;
        if full.0 != input {
            return Err(difference("no handlers, full pipeline", &chunking, &input, &full.0).into());
        }
        let (out, log) = run(&chunks, true, false).map_err(|e| format!("{}: {e}", chunking.describe(input.len())))?;
        if out != input {
            return Err(difference("read-only handlers", &chunking, &input, &out).into());
        }
        let alone = doc_text(&chunks, false, false).map_err(|e| format!("{}: {e}", chunking.describe(input.len())))?;
        let beside = doc_text(&chunks, true, false).map_err(|e| format!("{}: {e}", chunking.describe(input.len())))?;
        same_log(&chunking, input.len(), "a document text handler alone", "beside `*`", &alone, &beside)?;
        if !matches!(chunking, Chunking::Every(_)) {
            // With line numbers, which count a token's lines after it.
            let alone =
                doc_text(&chunks, false, true).map_err(|e| format!("{}: {e}", chunking.describe(input.len())))?;
            let beside =
                doc_text(&chunks, true, true).map_err(|e| format!("{}: {e}", chunking.describe(input.len())))?;
            same_log(
                &chunking,
                input.len(),
                "a document text handler alone, lines tracked",
                "beside `*`",
                &alone,
                &beside,
            )?;
            let alone = editing(&chunks, false).map_err(|e| format!("{}: {e}", chunking.describe(input.len())))?;
            let beside = editing(&chunks, true).map_err(|e| format!("{}: {e}", chunking.describe(input.len())))?;
            if alone.0 != beside.0 {
                return Err(difference(
                    "editing element handlers (alone as input, beside a text handler as output)",
                    &chunking,
                    &alone.0,
                    &beside.0,
                )
                .into());
            }
            same_log(
                &chunking,
                input.len(),
                "editing element handlers alone",
                "beside a text handler",
                &alone.1,
                &beside.1,
            )?;
        }
        match &first_log {
            None => first_log = Some((chunking, log)),
            Some((c0, log0)) if *log0 != log => {
                let i = first_differing_entry(log0, &log);
                return Err(format!(
                    "handlers saw different things with {} and {}: entry {i}: {:?} vs {:?}",
                    c0.describe(input.len()),
                    chunking.describe(input.len()),
                    log0.get(i),
                    log.get(i)
                )
                .into());
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// `Ok` when logs `a` (seen by `who`) and `b` (seen `beside`) are equal; otherwise an error naming
/// the chunking and the first entry where they differ.
fn same_log(
    chunking: &Chunking,
    len: usize,
    who: &str,
    beside: &str,
    a: &[String],
    b: &[String],
) -> Result<(), Failed> {
    if a == b {
        return Ok(());
    }
    let i = first_differing_entry(a, b);
    Err(format!("{}: {who} saw {:?} at entry {i}, {beside} {:?}", chunking.describe(len), a.get(i), b.get(i)).into())
}

/// The index of the first entry where logs `a` and `b` differ (the shorter one's length when it
/// is the start of the other).
fn first_differing_entry(a: &[String], b: &[String]) -> usize {
    a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()))
}

fn difference(what: &str, chunking: &Chunking, input: &[u8], out: &[u8]) -> String {
    let (i, input_around, out_around) = first_difference(input, out, 40);
    format!(
        "{what}, {}: output differs at byte {i} (input {} bytes, output {}):\n  input:  {input_around}\n  output: {out_around}",
        chunking.describe(input.len()),
        input.len(),
        out.len(),
    )
}

/// What a document-wide text handler sees in `chunks`, each chunk's text, source location
/// (with line and column when `lines`: `Settings::track_lines`), text mode and whether it ends
/// its text node; with `star`, beside a `*` element handler that reads nothing (the selector
/// puts every text token on the rewriter's full path).
fn doc_text(chunks: &[&[u8]], star: bool, lines: bool) -> Result<Vec<String>, htrewrite::RewritingError> {
    let log = Rc::new(RefCell::new(Vec::<String>::new()));
    let l = log.clone();
    let mut settings = Settings::new().track_lines(lines).doc_text(move |t| {
        let entry = format!("{:?} {:?} {:?} {}", t.as_str(), t.source_location(), t.text_mode(), t.last_in_text_node());
        l.borrow_mut().push(entry);
        Ok(())
    });
    if star {
        settings = settings.element("*", |_| Ok(()));
    }
    let mut rw = Rewriter::new(settings, |_: &[u8]| {})?;
    for c in chunks {
        rw.write(c)?;
    }
    let _sink = rw.end()?;
    let log = log.borrow().clone();
    Ok(log)
}

/// Rewrites `chunks` with element handlers that log every element and its end and put text
/// around and inside it (refusals logged too); with `text`, beside a document text handler that
/// does nothing. The output and the log.
fn editing(chunks: &[&[u8]], text: bool) -> Result<(Vec<u8>, Vec<String>), htrewrite::RewritingError> {
    let log = Rc::new(RefCell::new(Vec::<String>::new()));
    let (l1, l2) = (log.clone(), log.clone());
    let mut settings = Settings::new()
        .element("*", move |el| {
            let attrs: Vec<String> = el.attributes().iter().map(|a| format!("{}={}", a.name, a.value)).collect();
            let mut l = l1.borrow_mut();
            l.push(format!(
                "<{} {:?} {:?} {}",
                el.tag_name(),
                el.origin(),
                el.source_location().bytes,
                attrs.join(" ")
            ));
            for (what, edit) in [
                ("before", el.before("[", ContentType::Text)),
                ("after", el.after("]", ContentType::Text)),
                ("prepend", el.prepend("{", ContentType::Text)),
                ("append", el.append("}", ContentType::Text)),
            ] {
                if let Err(e) = edit {
                    l.push(format!("{what} refused: {e}"));
                }
            }
            Ok(())
        })
        .element_end("*", move |end| {
            l2.borrow_mut().push(format!("</{} {:?}", end.tag_name(), end.source_location().bytes));
            Ok(())
        });
    if text {
        settings = settings.doc_text(|_| Ok(()));
    }
    rewrite(chunks, settings, &log)
}

/// Rewrites `chunks`; with `observe`, read-only handlers log what they see; with `full`,
/// [`Settings::full_pipeline`] (with no handlers the rewriter otherwise copies its input).
fn run(chunks: &[&[u8]], observe: bool, full: bool) -> Result<(Vec<u8>, Vec<String>), htrewrite::RewritingError> {
    let log = Rc::new(RefCell::new(Vec::<String>::new()));
    let text = Rc::new(RefCell::new(String::new()));
    let mut settings = Settings::new().full_pipeline(full);
    if observe {
        let (l1, l2, l3, l4, l5, l6, l7) =
            (log.clone(), log.clone(), log.clone(), log.clone(), log.clone(), log.clone(), log.clone());
        let (t1, t2) = (text.clone(), text.clone());
        settings = settings
            .element("*", move |el| {
                let attrs: Vec<String> = el.attributes().iter().map(|a| format!("{}={}", a.name, a.value)).collect();
                l1.borrow_mut().push(format!(
                    "<{} {:?} {:?} {}",
                    el.tag_name(),
                    el.origin(),
                    el.source_location().bytes,
                    attrs.join(" ")
                ));
                let l = l2.clone();
                el.on_end(move |end| {
                    l.borrow_mut().push(format!("on_end {} {:?} {:?}", end.tag_name(), end.end_tag_raw(), end.cause()));
                    Ok(())
                });
                Ok(())
            })
            .element_end("*", move |end| {
                l3.borrow_mut().push(format!("</{} {:?}", end.tag_name(), end.source_location().bytes));
                Ok(())
            })
            .text("*", move |t| {
                t1.borrow_mut().push_str(t.as_str());
                Ok(())
            })
            .doc_text(move |t| {
                if t.last_in_text_node() {
                    let joined = std::mem::take(&mut *t2.borrow_mut());
                    l4.borrow_mut().push(format!("text {joined:?}"));
                }
                Ok(())
            })
            .comments("*", move |c| {
                l5.borrow_mut().push(format!("comment in element {:?}", c.text()));
                Ok(())
            })
            .doc_comments(move |c| {
                l6.borrow_mut().push(format!("comment {:?} {:?}", c.text(), c.source_location().bytes));
                Ok(())
            })
            .doctype(move |d| {
                l7.borrow_mut().push(format!("doctype {:?} {:?} {:?}", d.name(), d.public_id(), d.system_id()));
                Ok(())
            })
            .processing_instructions(|_| Ok(()))
            .end(|_| Ok(()));
    }
    rewrite(chunks, settings, &log)
}

/// Rewrites `chunks` with `settings`: the output, and the entries the handlers put in `log`.
fn rewrite(
    chunks: &[&[u8]],
    settings: Settings<'_>,
    log: &RefCell<Vec<String>>,
) -> Result<(Vec<u8>, Vec<String>), htrewrite::RewritingError> {
    let mut out = Vec::new();
    {
        let mut rw = Rewriter::new(settings, htrewrite::IoSink(&mut out))?;
        for c in chunks {
            rw.write(c)?;
        }
        rw.end()?;
    }
    let log = log.borrow().clone();
    Ok((out, log))
}
