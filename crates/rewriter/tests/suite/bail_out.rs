//! The bail-out hook ([`Settings::on_bail_out`], issue 21): under
//! [`OnError::PassThrough`] it is called exactly once, with the error
//! [`Rewriter::error`] keeps, for each way the rewriter bails out; never when
//! nothing fails, when the failure is returned ([`OnError::Stop`]), or when
//! the rewriter copies its input because nothing observes it. Each case runs
//! whole, split at every byte and in three seeded random splittings (the
//! seed is printed on failure); the output is the same with the hook as
//! without it, and as the case expects.
//!
//! - `cause::*`: one case per cause (handler errors of each kind, the memory
//!   limit while tokenizing and while sniffing, the whole-text-node bound,
//!   refused insertion, a document-end handler, an encoding that cannot be
//!   rewritten, fixed or sniffed).
//! - `none::*`: the hook is not called.
//! - `order::two_hooks`: hooks run once each, in registration order.
//! - `sendable::*`: the same with [`Settings::new_send`], the rewriter moved
//!   to another thread.

use crate::common;

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::{Arc, Mutex};

use common::Chunking;
use htrewrite::{ContentType, OnError, Rewriter, RewritingError, Settings};
use libtest_mimic::{Failed, Trial};

/// Whether, and when, a case bails out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bails {
    /// In every chunking, with an error of this kind.
    Always(&'static str),
    /// Only when the input comes in more than one chunk (a token or text
    /// node that arrives whole is never held, so no limit is reached).
    WhenSplit(&'static str),
    /// Never.
    Never,
}

/// One case: settings (without the policy and the hook), input, expected output.
struct Case {
    name: &'static str,
    settings: fn() -> Settings<'static>,
    input: String,
    expected: String,
    bails: Bails,
    /// The error policy (PassThrough unless the case is about Stop).
    policy: OnError,
}

/// The variant of an error, for matching a case's expectation.
fn kind(e: &RewritingError) -> &'static str {
    match e {
        RewritingError::Handler(_) => "Handler",
        RewritingError::MemoryLimitExceeded { .. } => "MemoryLimitExceeded",
        RewritingError::Encoding(_) => "Encoding",
        RewritingError::Insertion(_) => "Insertion",
        RewritingError::Selector { .. } => "Selector",
        RewritingError::Output(_) => "Output",
        RewritingError::Poisoned => "Poisoned",
        _ => "other",
    }
}

const LIMIT: usize = 4096;

fn huge_text() -> String {
    format!("<p>a</p><p>{}</p><p>end", "y".repeat(10_000))
}

fn huge_tag() -> String {
    format!("<p>hello</p>\n<div title=\"{}\" id=x>after</div><p>end", "x".repeat(20_000))
}

/// Marks every `p` with `class="seen"`.
fn mark_p() -> Settings<'static> {
    Settings::new().element("p", |el| {
        el.set_attribute("class", "seen")?;
        Ok(())
    })
}

/// `settings` with a document text handler that fails on the (empty) last
/// chunk of the text node `x`.
fn fail_at_end_of_x(settings: Settings<'static>) -> Settings<'static> {
    let mut node = String::new();
    settings.doc_text(move |t| {
        node.push_str(t.as_str());
        if t.last_in_text_node() {
            if node == "x" {
                return Err("no end of x".into());
            }
            node.clear();
        }
        Ok(())
    })
}

fn cases() -> Vec<Case> {
    let same = |s: &str| (s.to_string(), s.to_string());
    let mut cases = Vec::new();
    let mut add = |name, settings: fn() -> Settings<'static>, (input, expected): (String, String), bails, policy| {
        cases.push(Case { name, settings, input, expected, bails, policy })
    };
    use Bails::*;
    use OnError::{PassThrough, Stop};
    add(
        "cause::element_handler_error",
        || mark_p().element("b", |_| Err("no bold".into())),
        ("<p>a</p><b>x</b><p>c".into(), "<p class=\"seen\">a</p><b>x</b><p>c".into()),
        Always("Handler"),
        PassThrough,
    );
    add(
        "cause::text_handler_error",
        || Settings::new().text("b", |_| Err("no text".into())),
        same("<p>a</p><b>x</b>tail<b>y</b>"),
        Always("Handler"),
        PassThrough,
    );
    add(
        "cause::document_text_handler_error",
        || Settings::new().doc_text(|t| if t.as_str() == "x" { Err("no x".into()) } else { Ok(()) }),
        same("<p>a</p><b>x</b>tail<b>y</b>"),
        Always("Handler"),
        PassThrough,
    );
    add(
        "cause::document_text_last_chunk_error",
        || fail_at_end_of_x(Settings::new()),
        same("<p>a</p><b>x</b>tail<b>y</b>"),
        Always("Handler"),
        PassThrough,
    );
    add(
        "cause::document_text_last_chunk_error_before_a_matched_tag",
        // Fails where the node `x` ends: at the matched `<p>` after it,
        // whose handler must then not run.
        || fail_at_end_of_x(mark_p()),
        ("<p>a</p>x<p>c".into(), "<p class=\"seen\">a</p>x<p>c".into()),
        Always("Handler"),
        PassThrough,
    );
    add(
        "cause::comment_handler_error",
        || Settings::new().doc_comments(|_| Err("no comments".into())),
        same("<p>a<!-- c --><p>b"),
        Always("Handler"),
        PassThrough,
    );
    add(
        "cause::doctype_handler_error",
        || Settings::new().doctype(|_| Err("no doctype".into())),
        same("<!DOCTYPE html><p>a"),
        Always("Handler"),
        PassThrough,
    );
    add(
        "cause::end_tag_handler_error",
        || Settings::new().element_end("p", |_| Err("no end".into())),
        same("<p>a</p>b"),
        Always("Handler"),
        PassThrough,
    );
    add(
        "cause::document_end_handler_error",
        || Settings::new().end(|_| Err("no footer".into())),
        same("<p>a"),
        Always("Handler"),
        PassThrough,
    );
    add(
        "cause::refused_insertion",
        || {
            Settings::new().element("script", |el| {
                el.append("ipt>", ContentType::Text)?;
                Ok(())
            })
        },
        same("<script>a</scr</script><p>after"),
        Always("Insertion"),
        PassThrough,
    );
    add(
        "cause::memory_limit_huge_tag",
        || Settings::new().memory_limit(LIMIT).element("div", |_| Ok(())),
        same(&huge_tag()),
        WhenSplit("MemoryLimitExceeded"),
        PassThrough,
    );
    add(
        "cause::whole_text_node_bound",
        || {
            Settings::new().whole_text_nodes(1000).text("p", |t| {
                let _ = t.as_str();
                Ok(())
            })
        },
        same(&huge_text()),
        // The bound is on the node, however it comes.
        Always("MemoryLimitExceeded"),
        PassThrough,
    );
    add(
        "cause::memory_limit_while_sniffing",
        || Settings::new().sniff_encoding(None, "windows-1252").unwrap().memory_limit(100).element("p", |_| Ok(())),
        same(&format!("<p>{}", "z".repeat(600))),
        Always("MemoryLimitExceeded"),
        PassThrough,
    );
    add(
        "cause::unsupported_encoding_fixed",
        || Settings::new().encoding("iso-2022-jp").unwrap().element("p", |_| Ok(())),
        same("<p>\x1b$B$3$s\x1b(B</p>"),
        Always("Encoding"),
        PassThrough,
    );
    add(
        "cause::unsupported_encoding_sniffed",
        || Settings::new().sniff_encoding(None, "windows-1252").unwrap().element("p", |_| Ok(())),
        same("<meta charset=iso-2022-jp><p>\x1b$B$3$s\x1b(B</p>"),
        Always("Encoding"),
        PassThrough,
    );
    add(
        "none::no_failure",
        mark_p,
        ("<p>a<p>b".into(), "<p class=\"seen\">a<p class=\"seen\">b".into()),
        Never,
        PassThrough,
    );
    add(
        "none::stop_returns_the_error",
        || mark_p().element("b", |_| Err("no bold".into())),
        ("<p>a</p><b>x</b><p>c".into(), "<p class=\"seen\">a</p>".into()),
        Never,
        Stop,
    );
    add(
        "none::copying_unsupported_encoding",
        || Settings::new().encoding("iso-2022-jp").unwrap(),
        same("<p>\x1b$B$3$s\x1b(B</p>"),
        Never,
        PassThrough,
    );
    add(
        "none::copying_after_head",
        || {
            Settings::new().element("head", |el| {
                el.append("<meta name=x>", ContentType::Html)?;
                Ok(())
            })
        },
        ("<head><title>t</title></head><p>a".into(), "<head><title>t</title><meta name=x></head><p>a".into()),
        Never,
        PassThrough,
    );
    cases
}

/// What one run observed.
struct Run {
    output: Vec<u8>,
    /// Each hook call: the error's kind and message.
    calls: Vec<(&'static str, String)>,
    /// The error kept by the rewriter, or returned by a call.
    error: Option<RewritingError>,
}

/// Rewrites `input` in `chunking`'s chunks, with or without a hook.
fn run(settings: Settings<'static>, input: &[u8], chunking: Chunking, hook: bool) -> Result<Run, String> {
    let calls: Rc<RefCell<Vec<(&'static str, String)>>> = Rc::default();
    let log = calls.clone();
    let settings =
        if hook { settings.on_bail_out(move |e| log.borrow_mut().push((kind(e), e.to_string()))) } else { settings };
    let mut output = Vec::new();
    let mut rw = Rewriter::new(settings, |c: &[u8]| output.extend_from_slice(c)).map_err(|e| e.to_string())?;
    let mut error = None;
    for chunk in chunking.chunks(input) {
        if let Err(e) = rw.write(chunk) {
            error = Some(e);
            break;
        }
    }
    if error.is_none() {
        match rw.end_with_error() {
            Ok((_, kept)) => error = kept,
            Err(e) => error = Some(e),
        }
    }
    let calls = calls.borrow().clone();
    Ok(Run { output, calls, error })
}

fn check(case: &Case) -> Result<(), Failed> {
    let input = case.input.as_bytes();
    common::each_chunking(case.name, |chunking| {
        let settings = || (case.settings)().on_error(case.policy);
        let with = run(settings(), input, chunking, true)?;
        let without = run(settings(), input, chunking, false)?;
        if with.output != without.output {
            return Err(format!("the hook changed the output: {}", common::show(&with.output)));
        }
        let want_bail = match (case.bails, chunking) {
            (Bails::Always(k), _) | (Bails::WhenSplit(k), Chunking::Bytewise) => Some(k),
            // A random split may deliver the held token whole: then nothing fails.
            (Bails::WhenSplit(k), Chunking::Random(_)) => with.error.as_ref().map(|_| k),
            (Bails::WhenSplit(_), Chunking::Whole) | (Bails::Never, _) => None,
        };
        let expected = case.expected.as_bytes();
        if with.output != expected {
            return Err(format!("output {}, want {}", common::show(&with.output), common::show(expected)));
        }
        match (want_bail, with.calls.as_slice(), &with.error) {
            (Some(k), [(called, message)], Some(kept)) => {
                if *called != k || kind(kept) != k || *message != kept.to_string() {
                    return Err(format!("hook got {called} {message:?}, kept {kept:?}, want one {k}"));
                }
            }
            (None, [], None) if case.policy == OnError::PassThrough => {}
            (None, [], Some(_)) if case.policy == OnError::Stop => {}
            (want, calls, error) => {
                return Err(format!("hook calls {calls:?}, error {error:?}, want a bail-out: {want:?}"));
            }
        }
        Ok(())
    })
    .map_err(Failed::from)
}

/// Two hooks: both run once, in registration order, in every chunking.
fn two_hooks() -> Result<(), Failed> {
    let input = b"<p>a</p><b>x</b>tail";
    common::each_chunking("order::two_hooks", |chunking| {
        let calls: Rc<RefCell<Vec<String>>> = Rc::default();
        let (first, second) = (calls.clone(), calls.clone());
        let settings = Settings::new()
            .on_error(OnError::PassThrough)
            .on_bail_out(move |e| first.borrow_mut().push(format!("1 {e}")))
            .element("b", |_| Err("no bold".into()))
            .on_bail_out(move |e| second.borrow_mut().push(format!("2 {e}")));
        let out = run(settings, input, chunking, false)?;
        let want = ["1 handler failed: no bold", "2 handler failed: no bold"];
        if *calls.borrow() != want || out.output != input {
            return Err(format!("calls {:?}, output {}", calls.borrow(), common::show(&out.output)));
        }
        Ok(())
    })
    .map_err(Failed::from)
}

/// [`Settings::new_send`]: the hook is `Send`, so is the rewriter; it is
/// moved to another thread, fed there, and the hook reports back once.
fn sendable(
    input: &'static [u8],
    settings: fn() -> Settings<'static, htrewrite::Sendable>,
    want: &str,
) -> Result<(), Failed> {
    common::each_chunking(want, |chunking| {
        let calls: Arc<Mutex<Vec<String>>> = Arc::default();
        let log = calls.clone();
        let settings =
            settings().on_error(OnError::PassThrough).on_bail_out(move |e| log.lock().unwrap().push(e.to_string()));
        let rw = Rewriter::new(settings, htrewrite::IoSink(Vec::<u8>::new())).map_err(|e| e.to_string())?;
        let chunks: Vec<Vec<u8>> = chunking.chunks(input).into_iter().map(<[u8]>::to_vec).collect();
        let worker = std::thread::spawn(move || {
            let mut rw = rw;
            for chunk in &chunks {
                rw.write(chunk)?;
            }
            rw.end_with_error()
        });
        let (output, kept) = worker.join().map_err(|_| "the thread panicked".to_owned())?.map_err(|e| e.to_string())?;
        let calls = calls.lock().unwrap().clone();
        match kept {
            Some(e) if calls == [e.to_string()] && e.to_string() == want && output.0 == input => Ok(()),
            kept => Err(format!("calls {calls:?}, kept {kept:?}, output {}", common::show(&output.0))),
        }
    })
    .map_err(Failed::from)
}

pub(crate) fn trials() -> Vec<Trial> {
    let mut trials: Vec<Trial> = cases().into_iter().map(|case| Trial::test(case.name, move || check(&case))).collect();
    trials.push(Trial::test("order::two_hooks", two_hooks));
    trials.push(Trial::test("sendable::element_handler_error", || {
        sendable(
            b"<p>a</p><b>x</b>tail",
            || Settings::new_send().element("b", |_| Err("no bold".into())),
            "handler failed: no bold",
        )
    }));
    trials.push(Trial::test("sendable::document_end_handler_error", || {
        sendable(b"<p>a", || Settings::new_send().end(|_| Err("no footer".into())), "handler failed: no footer")
    }));
    trials.push(Trial::test("sendable::unsupported_encoding", || {
        sendable(
            b"<p>\x1b$B$3$s\x1b(B</p>",
            || Settings::new_send().encoding("iso-2022-jp").unwrap().element("p", |_| Ok(())),
            "encoding: ISO-2022-JP cannot be rewritten losslessly (no byte-level tokenization)",
        )
    }));
    trials
}
