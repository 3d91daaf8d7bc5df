//! The copy shortcut is exact: once nothing can observe the rest of a document, the rewriter copies
//! it without parsing it (`Rewriter::copying`), and the output must be the full pipeline's
//! (`Settings::full_pipeline`), byte for byte, in any chunking.
//!
//! For every input — each tree-construction `#data` input, each wpt-addition, each vendored real
//! page and, when `HTREWRITE_CORPUS` names a folder, each file under it — and each rule set below
//! (rules on `head` and `html` only, no document-wide handler; only those on `head` alone can
//! settle, as `<svg><html>` inserts a second `html`), the output of the full pipeline on the whole
//! input is the reference; the rewriter as users run it must give the
//! same output (or the same error after the same output) whole, every byte (every 997 bytes above
//! 64 KiB) and in three seeded random splittings. On real pages the shortcut must engage for the
//! `cdn` rule set (their head ends before their body does), so the comparison is not vacuous.
//!
//! The rule sets put edits where a wrong copy would show: content appended to the head (placed at
//! its end, implied or not), edits of the head's start and end, its text and comments, the head
//! removed with its content, attributes on `html` and `head` together.

use std::path::PathBuf;
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

/// The rule sets, by name.
const RULE_SETS: [&str; 4] = ["cdn", "head_edits", "head_remove", "html_and_head"];

pub(crate) fn trials() -> Vec<Trial> {
    harness::install_panic_hook();
    let watchdog = Watchdog::start(Duration::from_secs(300));
    let mut trials = Vec::new();
    let mut add = |name: String, source: Source, real_page: bool| {
        let watchdog = watchdog.clone();
        let trial_name = name.clone();
        trials.push(Trial::test(name, move || watchdog.watch(&trial_name, || check(&trial_name, &source, real_page))));
    };
    for case in tree_construction::load_tree_construction().into_iter().chain(tree_construction::load_wpt_additions()) {
        add(format!("copy/{}", case.name()), Source::Bytes(Arc::new(case.input)), false);
    }
    for (rel, path, _, _) in corpus::vendored_pages() {
        add(format!("copy/corpus/{rel}"), Source::File(path), true);
    }
    match corpus::env_pages() {
        EnvPages::Pages(files) => {
            for (rel, path) in files {
                add(format!("copy/HTREWRITE_CORPUS/{rel}"), Source::File(path), true);
            }
        }
        EnvPages::Empty(dir) => trials
            .push(Trial::test(format!("copy/{CORPUS_ENV} holds no readable file"), move || {
                Err(format!("{CORPUS_ENV}={}", dir.display()).into())
            })),
        EnvPages::Unset => {
            trials.push(Trial::test(format!("copy/corpus: {CORPUS_ENV} not set"), || Ok(())).with_ignored_flag(true))
        }
    }
    trials
}

fn check(name: &str, source: &Source, real_page: bool) -> Result<(), Failed> {
    let input = match source {
        Source::Bytes(b) => b.to_vec(),
        Source::File(p) => std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?,
    };
    let every = if input.len() <= 64 << 10 { 1 } else { 997 };
    for set in RULE_SETS {
        let reference = run(set, &[&input], true);
        for chunking in Chunking::standard(name, every) {
            let got = run(set, &chunking.chunks(&input), false);
            if got.output != reference.output || got.error != reference.error {
                return Err(difference(set, &chunking, &input, &reference, &got).into());
            }
            if real_page && set == "cdn" && chunking == Chunking::Whole && !got.copied {
                return Err("cdn: the rewriter never started copying on a real page".into());
            }
        }
    }
    Ok(())
}

struct Outcome {
    output: Vec<u8>,
    error: Option<String>,
    /// `Rewriter::copying` after the last write.
    copied: bool,
}

fn difference(set: &str, chunking: &Chunking, input: &[u8], want: &Outcome, got: &Outcome) -> String {
    let (i, full, copy) = first_difference(&want.output, &got.output, 60);
    format!(
        "{set}, {} (input {} bytes): the copy differs from the full pipeline at output byte {i}\n  full:  {full} (error {:?})\n  copy:  {copy} (error {:?}, copying {})",
        chunking.describe(input.len()),
        input.len(),
        want.error,
        got.error,
        got.copied
    )
}

/// The rule set `set` (see [`RULE_SETS`]).
fn settings(set: &str) -> Settings<'static> {
    let s = Settings::new();
    match set {
        "cdn" => s.element("head", |el| {
            el.append("<script src=\"/injected.js\"></script>", ContentType::Html)?;
            Ok(())
        }),
        "head_edits" => s
            .element("head", |el| {
                el.set_attribute("data-h", "1")?;
                el.prepend("<&>", ContentType::Text)?;
                el.on_end(|end| {
                    end.before("<!--end of head-->", ContentType::Html)?;
                    Ok(())
                });
                Ok(())
            })
            .text("head", |t| {
                if t.last_in_text_node() {
                    t.after("|", ContentType::Text)?;
                }
                Ok(())
            })
            .comments("head", |c| {
                c.remove();
                Ok(())
            }),
        "head_remove" => s.element("head", |el| {
            el.remove();
            Ok(())
        }),
        "html_and_head" => s
            .element("html, head", |el| {
                el.set_attribute("data-r", "1")?;
                Ok(())
            })
            .element_end("head", |end| {
                end.after("<!--after head-->", ContentType::Html)?;
                Ok(())
            }),
        _ => unreachable!("unknown rule set {set}"),
    }
}

/// Rewrites `chunks` with rule set `set`; with `full`, [`Settings::full_pipeline`].
fn run(set: &str, chunks: &[&[u8]], full: bool) -> Outcome {
    let mut output = Vec::new();
    let mut copied = false;
    let error = (|| {
        let mut rw = Rewriter::new(settings(set).full_pipeline(full), htrewrite::IoSink(&mut output))?;
        for c in chunks {
            rw.write(c)?;
        }
        copied = rw.copying();
        rw.end().map(drop)
    })()
    .err()
    .map(|e| e.to_string());
    Outcome { output, error, copied }
}
