//! Failures and the error policies, each run whole, split at every byte and
//! in three seeded random splittings:
//!
//! - `memory::huge_tag`: with [`Settings::memory_limit`], a start tag longer
//!   than the limit, cut by chunk ends (the tokenizer carries it over), fails
//!   with [`RewritingError::MemoryLimitExceeded`]; the output is exactly the
//!   rewrite of everything before the tag, and a later write is
//!   [`RewritingError::Poisoned`]. A tag that arrives in one chunk is never
//!   held, so it passes.
//! - `memory::huge_text_node_*`: a text node longer than the bound of
//!   [`Settings::whole_text_nodes`] (or than the memory limit) fails the same
//!   way, in any chunking.
//! - `pass_through::*`: with [`OnError::PassThrough`] the same failures and
//!   a handler error leave the output equal to the input, the error kept.
//! - `copy::no_handlers_hold_no_tag`: with no handlers the rewriter copies
//!   its input without holding any token, so the huge tag passes a memory
//!   limit smaller than it in every chunking (output = input, no error);
//!   with [`Settings::full_pipeline`] the same input is held and fails.
//! - `handler_error::stop`: a handler error stops with
//!   [`RewritingError::Handler`] (its source the handler's error), the output
//!   is the rewrite before the failing element, and later writes are
//!   [`RewritingError::Poisoned`].

use crate::common;

use common::Chunking;
use htrewrite::{ContentType, OnError, Rewriter, RewritingError, Settings};
use libtest_mimic::{Failed, Trial};

const LIMIT: usize = 4096;

pub(crate) fn trials() -> Vec<Trial> {
    vec![
        Trial::test("memory::huge_tag", huge_tag),
        Trial::test("memory::huge_text_node_whole_text_bound", || {
            huge_text_node(|| Settings::new().whole_text_nodes(1000))
        }),
        Trial::test("memory::huge_text_node_memory_limit", || {
            huge_text_node(|| Settings::new().whole_text_nodes(usize::MAX).memory_limit(LIMIT))
        }),
        Trial::test("pass_through::huge_tag", || {
            // A read-only handler: with none, nothing is held (`copy::*`).
            pass_through(&huge_tag_input(), || Settings::new().memory_limit(LIMIT).element("div", |_| Ok(())))
        }),
        Trial::test("copy::no_handlers_hold_no_tag", copy_holds_nothing),
        Trial::test("pass_through::huge_text_node", || {
            pass_through(&huge_text_input(), || {
                Settings::new().whole_text_nodes(1000).text("p", |t| {
                    let _ = t.as_str();
                    Ok(())
                })
            })
        }),
        Trial::test("pass_through::huge_text_node_memory_limit", || {
            pass_through(&huge_text_input(), || {
                Settings::new().whole_text_nodes(usize::MAX).memory_limit(LIMIT).text("p", |t| {
                    let _ = t.as_str();
                    Ok(())
                })
            })
        }),
        Trial::test("pass_through::text_handler_error", || {
            pass_through(b"<p>a</p><b>x</b>tail<b>y</b>", || Settings::new().text("b", |_| Err("boom".into())))
        }),
        Trial::test("pass_through::handler_error", || {
            pass_through(b"<p>a</p><b>x</b>tail<b>y</b>", || Settings::new().element("b", |_| Err("boom".into())))
        }),
        Trial::test("handler_error::stop", handler_error_stop),
    ]
}

/// Before the huge tag, a paragraph a handler edits.
const BEFORE: &str = "<p>hello</p>\n";

fn huge_tag_input() -> Vec<u8> {
    format!("{BEFORE}<div title=\"{}\" id=x>after</div><p>end", "x".repeat(100_000)).into_bytes()
}

fn huge_text_input() -> Vec<u8> {
    format!("<p>a</p><p>{}</p><p>end", "y".repeat(10_000)).into_bytes()
}

/// The longest chunk of `chunking` on `input`.
fn longest_chunk(chunking: Chunking, input: &[u8]) -> usize {
    chunking.chunks(input).iter().map(|c| c.len()).max().unwrap_or(0)
}

/// Checks a failure: the error is the memory limit, the output is `before`,
/// a later write is poisoned.
fn check_limit_failure(outcome: &common::Outcome, before: &[u8]) -> Result<(), String> {
    match &outcome.error {
        Some(RewritingError::MemoryLimitExceeded { limit, needed }) if needed > limit => {}
        other => return Err(format!("error {other:?}, want MemoryLimitExceeded")),
    }
    if outcome.output != before {
        return Err(format!("output {}, want {}", common::show(&outcome.output), common::show(before)));
    }
    match &outcome.later {
        Some(RewritingError::Poisoned) => Ok(()),
        other => Err(format!("a later write gave {other:?}, want Poisoned")),
    }
}

fn huge_tag() -> Result<(), Failed> {
    let input = huge_tag_input();
    let tag_len = input.len() - BEFORE.len();
    let mut expected = String::from_utf8(input.clone()).unwrap().replacen("hello", "hello!", 1).into_bytes();
    expected.push(b'!');
    let before = &expected[..BEFORE.len() + 1];
    common::each_chunking("memory::huge_tag", |chunking| {
        let settings = Settings::new().memory_limit(LIMIT).element("p", |el| {
            el.append("!", ContentType::Text)?;
            Ok(())
        });
        let outcome = common::rewrite(settings, &input, chunking);
        if longest_chunk(chunking, &input) >= tag_len {
            // The tag came in one chunk: never carried over.
            return match outcome.error {
                None if outcome.output == expected => Ok(()),
                e => Err(format!("unexpected failure {e:?} or output")),
            };
        }
        check_limit_failure(&outcome, before)
    })
    .map_err(Failed::from)
}

fn huge_text_node(settings: impl Fn() -> Settings<'static>) -> Result<(), Failed> {
    let input = huge_text_input();
    common::each_chunking("memory::huge_text_node", |chunking| {
        let s = settings().text("p", |t| {
            t.after("|", ContentType::Text)?;
            Ok(())
        });
        let outcome = common::rewrite(s, &input, chunking);
        check_limit_failure(&outcome, b"<p>a|</p><p>")
    })
    .map_err(Failed::from)
}

/// With [`OnError::PassThrough`] the output is the input, `write` and `end`
/// succeed and the error is kept.
fn pass_through<'h>(input: &[u8], settings: impl Fn() -> Settings<'h>) -> Result<(), Failed> {
    common::each_chunking(&format!("pass_through {}", input.len()), |chunking| {
        let mut output = Vec::new();
        let mut rw = Rewriter::new(settings().on_error(OnError::PassThrough), |c: &[u8]| output.extend_from_slice(c))
            .map_err(|e| e.to_string())?;
        for chunk in chunking.chunks(input) {
            rw.write(chunk).map_err(|e| format!("write failed: {e}"))?;
        }
        let failed = rw.error().is_some();
        if let Err(e) = rw.end() {
            return Err(format!("end failed: {e}"));
        }
        if !failed && longest_chunk(chunking, input) < 10_000 {
            return Err("no error was kept".to_owned());
        }
        if output != input {
            return Err(format!("output {} != input", common::show(&output)));
        }
        Ok(())
    })
    .map_err(Failed::from)
}

fn copy_holds_nothing() -> Result<(), Failed> {
    let input = huge_tag_input();
    common::each_chunking("copy::no_handlers_hold_no_tag", |chunking| {
        let outcome = common::rewrite(Settings::new().memory_limit(LIMIT), &input, chunking);
        if outcome.error.is_some() || outcome.output != input {
            return Err(format!("copying: error {:?}, output equal: {}", outcome.error, outcome.output == input));
        }
        let full = common::rewrite(Settings::new().memory_limit(LIMIT).full_pipeline(true), &input, chunking);
        if longest_chunk(chunking, &input) < input.len() - BEFORE.len() {
            check_limit_failure(&full, BEFORE.as_bytes())?;
        }
        Ok(())
    })
    .map_err(Failed::from)
}

fn handler_error_stop() -> Result<(), Failed> {
    let input = b"<p>a</p><i>i</i><b>x</b>tail";
    common::each_chunking("handler_error::stop", |chunking| {
        let settings = Settings::new()
            .element("p", |el| {
                el.set_attribute("class", "c")?;
                Ok(())
            })
            .element("b", |_| Err("boom".into()));
        let outcome = common::rewrite(settings, input, chunking);
        match &outcome.error {
            Some(e @ RewritingError::Handler(_)) if std::error::Error::source(e).unwrap().to_string() == "boom" => {}
            other => return Err(format!("error {other:?}, want Handler(boom)")),
        }
        let want = b"<p class=\"c\">a</p><i>i</i>";
        if outcome.output != want {
            return Err(format!("output {}, want {}", common::show(&outcome.output), common::show(want)));
        }
        match outcome.later {
            Some(RewritingError::Poisoned) => Ok(()),
            other => Err(format!("a later write gave {other:?}, want Poisoned")),
        }
    })
    .map_err(Failed::from)
}
