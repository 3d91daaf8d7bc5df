//! Deferred content (issue 19): slots handlers leave, filled later.
//!
//! - `case::*`: the cases of `data/deferred/cases.toml` (see its header).
//!   Each runs with the page whole, split at every byte and at three seeded
//!   random points; with the slots filled in every order (all permutations
//!   up to 4 slots, 12 seeded random orders beyond), eagerly after each
//!   write, after the last write (before the end of input) and after
//!   [`Rewriter::finish_input`]; each fill whole ([`Rewriter::fill`]) and
//!   streamed ([`Rewriter::slot_write`]) split at every byte and at seeded
//!   random points. Every run must give the expected output; where the
//!   defers have immediate equivalents, so must the immediate edits.
//! - `property::deferred_equals_immediate`: proptest, random HTML-like
//!   documents, selectors, defer kinds and contents (text and HTML, with
//!   markup, references and non-ASCII characters): the deferred rewrite,
//!   with a random page chunking, fill order and fill chunking, equals the
//!   same edits made at once by the handler (defer lists with `prepend` or
//!   `append` before `inner`, or `inner` or `replace` twice, are left out:
//!   the later defer gives up the earlier slots even when it is cancelled
//!   with [`Fallback::KeepOriginal`], which no immediate edit does).
//! - `bounded::*`: back-pressure. A long page whose first element's slot is
//!   unfilled: [`Rewriter::write_some`] stops taking input once the held
//!   output reaches [`Settings::hold_limit`], [`Rewriter::held_bytes`] stays
//!   within the bound (plus one accepted piece), nothing after the slot is
//!   written; after the fill the rest of the page is taken and the output
//!   is exact. Also `write`'s [`RewritingError::Blocked`] resume, a
//!   streamed fill of a later slot refused past the bound, and
//!   [`Rewriter::copying`] false while output waits for a slot.
//! - `encodings::match_immediate`: UTF-16LE/BE, windows-1252, Shift_JIS and
//!   gb18030 documents, text and HTML slots, every chunking: as the same
//!   edits made at once.
//! - `errors::*`: `end()` with unfilled slots reports them; slot misuse
//!   (unknown, filled twice) is a typed error that leaves the rewrite going;
//!   refused content leaves the slot open; a failed stream keeps what came;
//!   with [`OnError::PassThrough`](htrewrite::OnError::PassThrough) a
//!   failure after a slot passes the rest through after the slot's content.

use crate::common;

use std::cell::RefCell;
use std::rc::Rc;

use common::{Chunking, chunkings, show, toml_case_trials};
use htrewrite::{ContentType, Fallback, Rewriter, RewritingError, Settings, Slot, SlotErrorKind};
use htrewrite_testkit::{Random, SplitMix64, fnv1a64, permutations, shuffled};
use libtest_mimic::{Failed, Trial};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRng, TestRunner};
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
struct Case {
    name: String,
    input: String,
    selector: String,
    defer: Vec<String>,
    fills: Vec<Fill>,
    expected: String,
}

/// What one slot gets.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Fill {
    #[serde(default)]
    html: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    cancel: Option<String>,
}

/// A slot's fill, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Action {
    Content(String, ContentType),
    Cancel(Fallback),
}

impl Fill {
    fn action(&self) -> Result<Action, String> {
        match (&self.html, &self.text, self.cancel.as_deref()) {
            (Some(h), None, None) => Ok(Action::Content(h.clone(), ContentType::Html)),
            (None, Some(t), None) => Ok(Action::Content(t.clone(), ContentType::Text)),
            (None, None, Some("keep")) => Ok(Action::Cancel(Fallback::KeepOriginal)),
            (None, None, Some("empty")) => Ok(Action::Cancel(Fallback::Empty)),
            _ => Err(format!("a fill needs exactly one of html, text, cancel = keep|empty: {self:?}")),
        }
    }
}

/// When slots are filled.
#[derive(Debug, Clone)]
enum Timing {
    /// Each slot as soon as a write returns with it made, in slot order.
    Eager,
    /// After the last write, before the end of input, in this order.
    BeforeEnd(Vec<usize>),
    /// After [`Rewriter::finish_input`], in this order.
    AfterEnd(Vec<usize>),
}

/// Settings deferring `defer` on every element `selector` matches; the
/// slots made go to `slots`.
fn deferring(selector: &str, defer: &[String], slots: Rc<RefCell<Vec<Slot>>>) -> Settings<'static> {
    let defer = defer.to_vec();
    Settings::new().element(selector, move |el| {
        for d in &defer {
            let slot = match d.as_str() {
                "before" => el.defer_before(),
                "after" => el.defer_after(),
                "prepend" => el.defer_prepend(),
                "append" => el.defer_append(),
                "inner" => el.defer_inner_content(),
                "replace" => el.defer_replace(),
                other => match other.strip_prefix("attribute:") {
                    Some(name) => el.defer_attribute(name)?,
                    None => return Err(format!("unknown defer {other:?}").into()),
                },
            };
            slots.borrow_mut().push(slot);
        }
        Ok(())
    })
}

/// Settings deferring one edit on every element `selector` matches, and
/// the list the slots go to.
fn deferring_one(selector: &str, defer: &str) -> (Settings<'static>, Rc<RefCell<Vec<Slot>>>) {
    let slots: Rc<RefCell<Vec<Slot>>> = Rc::default();
    (deferring(selector, &[defer.to_owned()], slots.clone()), slots)
}

/// `Ok` when `result` is a [`RewritingError::Slot`] of `kind`.
fn expect_slot_error<T: std::fmt::Debug>(result: Result<T, RewritingError>, kind: SlotErrorKind) -> Result<(), Failed> {
    match result {
        Err(RewritingError::Slot(e)) if e.kind() == kind => Ok(()),
        other => Err(format!("expected a slot error {kind:?}, got {other:?}").into()),
    }
}

/// Settings making the same edits at once: the `i`-th slot's action is
/// `actions[i]` (slots numbered as the deferring handler numbers them).
/// `None` when a defer has no immediate equivalent.
fn immediate(selector: &str, defer: &[String], actions: &[Action]) -> Option<Settings<'static>> {
    if defer.iter().any(|d| d.starts_with("attribute:")) {
        return None;
    }
    let defer = defer.to_vec();
    let actions = actions.to_vec();
    let mut next = 0;
    Some(Settings::new().element(selector, move |el| {
        for d in &defer {
            let Some(action) = actions.get(next) else { return Err("more slots than fills".into()) };
            next += 1;
            if matches!(d.as_str(), "append" | "after" | "inner" | "replace") {
                // A slot at the element's end makes it wait for its end, as
                // an end handler does; empty content would not (and where an
                // element with work waiting ends can differ: an end tag the
                // adoption agency uses goes to the element that waits).
                el.on_end(|_| Ok(()));
            }
            match action {
                Action::Content(c, ty) => match d.as_str() {
                    "before" => el.before(c, *ty)?,
                    "after" => el.after(c, *ty)?,
                    "prepend" => el.prepend(c, *ty)?,
                    "append" => el.append(c, *ty)?,
                    "inner" => el.set_inner_content(c, *ty)?,
                    _ => el.replace(c, *ty)?,
                },
                Action::Cancel(Fallback::Empty) => match d.as_str() {
                    "inner" => el.set_inner_content("", ContentType::Html)?,
                    "replace" => el.remove(),
                    _ => {}
                },
                Action::Cancel(Fallback::KeepOriginal) => {}
            }
        }
        Ok(())
    }))
}

/// Gives `slot` its action, streamed in `fill`'s chunks (whole: one `fill`).
fn give<O: htrewrite::OutputSink>(
    rw: &mut Rewriter<'_, O>,
    slot: Slot,
    action: &Action,
    fill: Chunking,
) -> Result<(), RewritingError> {
    match action {
        Action::Cancel(f) => rw.cancel(slot, *f),
        Action::Content(c, ty) if fill == Chunking::Whole => rw.fill(slot, c, *ty),
        Action::Content(c, ty) => {
            for chunk in fill.chunks(c.as_bytes()) {
                let mut rest = chunk;
                while !rest.is_empty() {
                    let n = rw.slot_write(slot, rest, *ty)?;
                    if n == 0 {
                        return Err(RewritingError::Blocked { taken: chunk.len() - rest.len() });
                    }
                    rest = &rest[n..];
                }
            }
            rw.slot_finish(slot)
        }
    }
}

/// One deferred rewrite: the output, or the first error.
fn run_deferred(
    selector: &str,
    defer: &[String],
    input: &[u8],
    actions: &[Action],
    page: Chunking,
    timing: &Timing,
    fill: Chunking,
) -> Result<Vec<u8>, String> {
    let slots: Rc<RefCell<Vec<Slot>>> = Rc::default();
    let mut out = Vec::new();
    let mut rw = Rewriter::new(deferring(selector, defer, slots.clone()), |c: &[u8]| out.extend_from_slice(c))
        .map_err(|e| e.to_string())?;
    let mut given = 0;
    let give_new = |rw: &mut Rewriter<'_, _>, given: &mut usize| -> Result<(), String> {
        let made = slots.borrow().clone();
        while *given < made.len() {
            let action = actions.get(*given).ok_or_else(|| format!("slot {given} made, {} fills", actions.len()))?;
            give(rw, made[*given], action, fill).map_err(|e| format!("slot {given}: {e}"))?;
            *given += 1;
        }
        Ok(())
    };
    for chunk in page.chunks(input) {
        rw.write(chunk).map_err(|e| format!("write: {e}"))?;
        if let Timing::Eager = timing {
            give_new(&mut rw, &mut given)?;
        }
    }
    // Gives the slots made so far that are not given yet, in `order`.
    let mut done = vec![false; actions.len()];
    let mut by_order = |rw: &mut Rewriter<'_, _>, order: &[usize]| -> Result<(), String> {
        let made = slots.borrow().clone();
        if made.len() > actions.len() {
            return Err(format!("{} slots made, {} fills", made.len(), actions.len()));
        }
        for &i in order.iter().filter(|&&i| i < made.len()) {
            if !std::mem::replace(&mut done[i], true) {
                give(rw, made[i], &actions[i], fill).map_err(|e| format!("slot {i}: {e}"))?;
            }
        }
        Ok(())
    };
    match timing {
        Timing::Eager => {
            rw.finish_input().map_err(|e| format!("finish_input: {e}"))?;
            give_new(&mut rw, &mut given)?;
        }
        Timing::BeforeEnd(order) => {
            // Slots made at the end of input (elements the end implies) after it.
            by_order(&mut rw, order)?;
            rw.finish_input().map_err(|e| format!("finish_input: {e}"))?;
            by_order(&mut rw, order)?;
        }
        Timing::AfterEnd(order) => {
            rw.finish_input().map_err(|e| format!("finish_input: {e}"))?;
            by_order(&mut rw, order)?;
        }
    }
    let _sink = rw.end().map_err(|e| format!("end: {e}"))?;
    if slots.borrow().len() != actions.len() {
        return Err(format!("{} slots made, {} fills", slots.borrow().len(), actions.len()));
    }
    Ok(out)
}

/// The fill orders a case runs: every permutation up to 4 slots, else the
/// slot order, its reverse and 10 orders shuffled from `seed`.
fn orders(n: usize, seed: u64) -> Vec<Vec<usize>> {
    if n <= 4 {
        return permutations(n);
    }
    let mut all = vec![(0..n).collect::<Vec<_>>(), (0..n).rev().collect()];
    let mut rng = SplitMix64::new(seed);
    for _ in 0..10 {
        all.push(shuffled(n, &mut rng));
    }
    all
}

fn run_case(case: &Case) -> Result<(), Failed> {
    let actions: Vec<Action> = case.fills.iter().map(Fill::action).collect::<Result<_, _>>()?;
    let expected = case.expected.as_bytes();
    let input = case.input.as_bytes();
    let mut failures = Vec::new();
    if let Some(settings) = immediate(&case.selector, &case.defer, &actions) {
        match htrewrite::rewrite_str(&case.input, settings) {
            Ok(out) if out == case.expected => {}
            Ok(out) => failures.push(format!("immediate edits: got {}", show(out.as_bytes()))),
            Err(e) => failures.push(format!("immediate edits: {e}")),
        }
    }
    let seed = fnv1a64(case.name.as_bytes());
    let mut timings = vec![Timing::Eager];
    for order in orders(actions.len(), seed) {
        timings.push(Timing::BeforeEnd(order.clone()));
        timings.push(Timing::AfterEnd(order));
    }
    let fills = [Chunking::Whole, Chunking::Bytewise, Chunking::Random(seed ^ 7)];
    for page in chunkings(&case.name) {
        for timing in &timings {
            for fill in fills {
                match run_deferred(&case.selector, &case.defer, input, &actions, page, timing, fill) {
                    Ok(out) if out == expected => {}
                    Ok(out) => failures.push(format!("[page {page}, {timing:?}, fill {fill}] got {}", show(&out))),
                    Err(e) => failures.push(format!("[page {page}, {timing:?}, fill {fill}] {e}")),
                }
                if failures.len() > 4 {
                    return Err(format!("expected {}\n{}", show(expected), failures.join("\n")).into());
                }
            }
        }
    }
    if failures.is_empty() {
        return Ok(());
    }
    Err(format!("expected {}\n{}", show(expected), failures.join("\n")).into())
}

/// Pieces random documents are made of besides [`common::PIECES`].
const MORE_PIECES: &[&str] = &["<body>", "</body>", "<head>", "</html>", "<pre>", "<br>", "<img src=x>", "é"];

/// Contents slots get.
const CONTENTS: &[&str] = &["", "x", "a<b&c>", "<i>i</i>", "é€😀", "</p>", "&amp", "p;", "1 2"];

const SELECTORS: &[&str] = &["p", "div", "b", "li", "td", "title", "script", "style", "body", "*", "i, b", "tr, ul"];

const DEFERS: &[&str] = &["before", "after", "prepend", "append", "inner", "replace"];

fn deferred_equals_immediate() -> Result<(), Failed> {
    let config = Config { cases: 1024, failure_persistence: None, ..Config::default() };
    let rng = TestRng::deterministic_rng(config.rng_algorithm);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let doc = prop::collection::vec(prop::sample::select([common::PIECES, MORE_PIECES].concat()), 0..24)
        .prop_map(|p| p.concat());
    let defer = prop::collection::vec(prop::sample::select(DEFERS), 1..3);
    let fills = prop::collection::vec(
        prop_oneof![
            4 => (prop::sample::select(CONTENTS), any::<bool>()).prop_map(|(c, html)| Action::Content(
                c.to_owned(),
                if html { ContentType::Html } else { ContentType::Text }
            )),
            1 => Just(Action::Cancel(Fallback::KeepOriginal)),
            1 => Just(Action::Cancel(Fallback::Empty)),
        ],
        64,
    );
    let strategy = (doc, prop::sample::select(SELECTORS), defer, fills, any::<u64>());
    runner
        .run(&strategy, |(doc, selector, defer, fills, seed)| {
            // `defer_inner_content` gives up earlier prepend/append slots,
            // as `set_inner_content` does; a slot cancelled with
            // KeepOriginal has no immediate equivalent of that.
            // Likewise a second `defer_inner_content` or `defer_replace`
            // gives up the first one's slot.
            let inner = defer.iter().position(|d| *d == "inner");
            prop_assume!(inner.is_none_or(|i| !defer[..i].iter().any(|d| matches!(*d, "prepend" | "append"))));
            prop_assume!(["inner", "replace"].iter().all(|k| defer.iter().filter(|d| *d == k).count() <= 1));
            let defer: Vec<String> = defer.iter().map(|d| d.to_string()).collect();
            // How many slots the document makes: a first run with everything kept.
            let count: Rc<RefCell<Vec<Slot>>> = Rc::default();
            let mut rw = Rewriter::new(deferring(selector, &defer, count.clone()), |_: &[u8]| {})
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            rw.write(doc.as_bytes()).map_err(|e| TestCaseError::fail(e.to_string()))?;
            rw.finish_input().map_err(|e| TestCaseError::fail(e.to_string()))?;
            let n = count.borrow().len();
            prop_assume!(fills.len() >= n, "more than 64 slots");
            let actions = &fills[..n];
            let settings = immediate(selector, &defer, actions).expect("no attribute defers here");
            let reference = match htrewrite::rewrite_str(&doc, settings) {
                Ok(r) => r,
                // Content the place refuses (text ending a script…): the
                // deferred side refuses it too, checked in `errors::*`.
                Err(_) => return Err(TestCaseError::reject("content refused")),
            };
            let mut rng = SplitMix64::new(seed);
            let order = shuffled(n, &mut rng);
            let page = Chunking::Random(rng.next_u64());
            let fill = [Chunking::Whole, Chunking::Bytewise, Chunking::Random(rng.next_u64())][(seed % 3) as usize];
            let timing = if seed % 2 == 0 { Timing::BeforeEnd(order) } else { Timing::AfterEnd(order) };
            let out = run_deferred(selector, &defer, doc.as_bytes(), actions, page, &timing, fill)
                .map_err(|e| TestCaseError::fail(format!("{e} ({timing:?}, page {page}, fill {fill})")))?;
            prop_assert_eq!(
                String::from_utf8_lossy(&out),
                reference,
                "page {}, {:?}, fill {}, seed {:#x}",
                page,
                timing,
                fill,
                seed
            );
            Ok(())
        })
        .map_err(|e| Failed::from(e.to_string()))
}

/// A page whose first element's slot waits: `<header></header>` then
/// `paragraphs` paragraphs of 100 bytes.
fn long_page(paragraphs: usize) -> Vec<u8> {
    let mut page = b"<header></header>".to_vec();
    for i in 0..paragraphs {
        page.extend_from_slice(format!("<p>{i:08} {}</p>", "x".repeat(84)).as_bytes());
    }
    page
}

fn bounded_long_page() -> Result<(), Failed> {
    const BOUND: usize = 64 * 1024;
    let page = long_page(100_000); // 10 MB
    let mut out = Vec::new();
    let (settings, slots) = deferring_one("header", "append");
    let settings = settings.hold_limit(BOUND);
    let mut rw = Rewriter::new(settings, |c: &[u8]| out.extend_from_slice(c))?;
    let mut taken = 0;
    let mut peak = 0;
    for chunk in page.chunks(16 * 1024) {
        let mut rest = chunk;
        while !rest.is_empty() {
            let n = rw.write_some(rest)?;
            peak = peak.max(rw.held_bytes());
            if n == 0 {
                break;
            }
            taken += n;
            rest = &rest[n..];
        }
        if !rest.is_empty() {
            break;
        }
    }
    if taken >= page.len() || taken > 2 * BOUND {
        return Err(format!("took {taken} of {} bytes with the first slot unfilled", page.len()).into());
    }
    // The bound, one piece of input beyond it (at most the room left) and
    // the rewriter's own state (stack, carried token: a few KiB).
    if peak > BOUND + 16 * 1024 {
        return Err(format!("held {peak} bytes, bound {BOUND}").into());
    }
    eprintln!("a 10 MB page, first slot unfilled: took {taken} bytes, held at most {peak} (bound {BOUND})");
    let slot = slots.borrow()[0];
    rw.fill(slot, "<nav>n</nav>", ContentType::Html)?;
    rw.write(&page[taken..])?;
    let _sink = rw.end()?;
    let mut expected = b"<header><nav>n</nav></header>".to_vec();
    expected.extend_from_slice(&page[b"<header></header>".len()..]);
    if out != expected {
        return Err("output differs from the page with the fragment".into());
    }
    Ok(())
}

fn bounded_output_stops_at_the_slot() -> Result<(), Failed> {
    let page = long_page(1000);
    let slots: Rc<RefCell<Vec<Slot>>> = Rc::default();
    let out = Rc::new(RefCell::new(Vec::new()));
    let sink = out.clone();
    let settings = deferring("header", &["append".to_owned()], slots.clone()).hold_limit(4096);
    let mut rw = Rewriter::new(settings, move |c: &[u8]| sink.borrow_mut().extend_from_slice(c))?;
    let Err(RewritingError::Blocked { taken }) = rw.write(&page) else {
        return Err("a 100 KB page past a 4 KiB bound must block".into());
    };
    if out.borrow().as_slice() != b"<header>" {
        return Err(format!("wrote {} before the slot", show(&out.borrow())).into());
    }
    // Still blocked, not failed.
    if !matches!(rw.write(&page[taken..]), Err(RewritingError::Blocked { taken: 0 })) {
        return Err("a second write must take nothing".into());
    }
    let slot = slots.borrow()[0];
    rw.slot_write(slot, b"<h1>", ContentType::Html)?;
    rw.slot_write(slot, b"Hi</h1>", ContentType::Html)?;
    if !out.borrow().starts_with(b"<header><h1>Hi</h1>") {
        return Err(format!("the first slot must be written through: {}", show(&out.borrow())).into());
    }
    rw.slot_finish(slot)?;
    rw.write(&page[taken..])?;
    let _sink = rw.end()?;
    let mut expected = b"<header><h1>Hi</h1></header>".to_vec();
    expected.extend_from_slice(&page[b"<header></header>".len()..]);
    if *out.borrow() != expected {
        return Err("output differs after resuming".into());
    }
    Ok(())
}

fn bounded_later_slot_stream() -> Result<(), Failed> {
    let (settings, slots) = deferring_one("p", "append");
    let settings = settings.hold_limit(100);
    let mut out = Vec::new();
    let mut rw = Rewriter::new(settings, |c: &[u8]| out.extend_from_slice(c))?;
    rw.write(b"<p>a</p><p>b</p>")?;
    let (first, second) = (slots.borrow()[0], slots.borrow()[1]);
    let big = vec![b'y'; 1000];
    let n = rw.slot_write(second, &big, ContentType::Text)?;
    if n == 0 || n > 100 {
        return Err(format!("a later slot took {n} of 1000 bytes past a bound of 100").into());
    }
    if rw.slot_write(second, &big[n..], ContentType::Text)? != 0 {
        return Err("a later slot must take nothing at the bound".into());
    }
    rw.fill(first, "1", ContentType::Text)?;
    // Now first: everything goes through.
    if rw.slot_write(second, &big[n..], ContentType::Text)? != 1000 - n {
        return Err("the first slot must take everything".into());
    }
    rw.slot_finish(second)?;
    let _sink = rw.end()?;
    let expected = format!("<p>a1</p><p>b{}</p>", "y".repeat(1000));
    if out != expected.as_bytes() {
        return Err(format!("got {}", show(&out)).into());
    }
    Ok(())
}

fn errors_unfilled_at_end() -> Result<(), Failed> {
    let (settings, slots) = deferring_one("p", "after");
    let mut out = Vec::new();
    let mut rw = Rewriter::new(settings, |c: &[u8]| out.extend_from_slice(c))?;
    rw.write(b"<p>a</p><p>b</p><p>c</p>")?;
    let s = slots.borrow().clone();
    rw.fill(s[1], "2", ContentType::Text)?;
    match rw.end() {
        Err(RewritingError::UnfilledSlots(left)) if left == vec![s[0], s[2]] => {}
        Ok(_) => return Err("expected UnfilledSlots([0, 2]), got Ok".into()),
        Err(e) => return Err(format!("expected UnfilledSlots([0, 2]), got {e:?}").into()),
    }
    if out != b"<p>a</p>" {
        return Err(format!("output must stop at the first unfilled slot: {}", show(&out)).into());
    }
    Ok(())
}

fn errors_misuse() -> Result<(), Failed> {
    let mut out = Vec::new();
    let (settings, slots) = deferring_one("script", "append");
    let settings = settings;
    let mut rw = Rewriter::new(settings, |c: &[u8]| out.extend_from_slice(c))?;
    rw.write(b"<script>x</script>")?;
    let slot = slots.borrow()[0];
    // Refused content: the slot stays open, nothing of it is taken.
    match rw.fill(slot, "</script><b>", ContentType::Text) {
        Err(RewritingError::Slot(e)) if e.kind() == SlotErrorKind::Content && e.content_error().is_some() => {}
        other => return Err(format!("expected a content error with its cause, got {other:?}").into()),
    }
    // Refused across chunks too.
    rw.slot_write(slot, b"a</scr", ContentType::Text)?;
    expect_slot_error(rw.slot_write(slot, b"ipt>", ContentType::Text), SlotErrorKind::Content)?;
    rw.slot_write(slot, b"x", ContentType::Text)?;
    rw.slot_finish(slot)?;
    expect_slot_error(rw.fill(slot, "again", ContentType::Text), SlotErrorKind::Resolved)?;
    expect_slot_error(rw.cancel(slot, Fallback::Empty), SlotErrorKind::Resolved)?;
    rw.write(b"<p>after")?;
    let _sink = rw.end()?;
    if out != b"<script>xa</scrx</script><p>after" {
        return Err(format!("got {}", show(&out)).into());
    }
    // A slot of another rewriter.
    let (settings, _) = deferring_one("p", "append");
    let mut rw = Rewriter::new(settings, |_: &[u8]| {})?;
    rw.write(b"<div>")?;
    expect_slot_error(rw.fill(slot, "x", ContentType::Text), SlotErrorKind::Unknown)?;
    Ok(())
}

fn errors_broken_stream_keeps_what_came() -> Result<(), Failed> {
    let (settings, slots) = deferring_one("div", "replace");
    let mut out = Vec::new();
    let mut rw = Rewriter::new(settings, |c: &[u8]| out.extend_from_slice(c))?;
    rw.write(b"<div>original</div><div>second</div>!")?;
    let s = slots.borrow().clone();
    // The second slot is not first: its content is held, then cancelled.
    rw.slot_write(s[1], b"<p>part", ContentType::Html)?;
    rw.cancel(s[1], Fallback::KeepOriginal)?;
    rw.slot_write(s[0], b"<p>caf\xc3", ContentType::Html)?;
    rw.cancel(s[0], Fallback::KeepOriginal)?;
    let _sink = rw.end()?;
    if out != "<p>caf\u{FFFD}<p>part!".as_bytes() {
        return Err(format!("got {}", show(&out)).into());
    }
    Ok(())
}

fn errors_pass_through_after_a_slot() -> Result<(), Failed> {
    let (settings, slots) = deferring_one("p", "after");
    let settings = settings.element("b", |_| Err("boom".into())).on_error(htrewrite::OnError::PassThrough);
    let mut rw = Rewriter::new(settings, htrewrite::IoSink(Vec::new()))?;
    rw.write(b"<p>a</p>x<b>y</b>z")?;
    if rw.error().is_none() {
        return Err("the b handler's error must be kept".into());
    }
    rw.write(b"<i>rest")?;
    rw.fill(slots.borrow()[0], "[after p]", ContentType::Text)?;
    let (out, error) = rw.end_with_error()?;
    if error.is_none() || out.0 != b"<p>a</p>[after p]x<b>y</b>z<i>rest" {
        return Err(format!("got {} ({error:?})", show(&out.0)).into());
    }
    Ok(())
}

/// In the document's encoding: a slot's content is encoded as immediate
/// content is (UTF-16 documents written back as UTF-16; characters a
/// legacy encoding lacks as references in text), whatever the chunking of
/// the page and of the fill; compared with the same edits made at once.
fn encodings_match_immediate() -> Result<(), Failed> {
    let mut failures = Vec::new();
    for label in ["UTF-16LE", "UTF-16BE", "windows-1252", "Shift_JIS", "gb18030"] {
        let enc = encoding_rs::Encoding::for_label(label.as_bytes()).expect("label");
        let (page, _, _) = enc.encode("<p>a é</p><div>ø</div><i>z</i>");
        let page: Vec<u8> = match label {
            "UTF-16LE" => "<p>a é</p><div>ø</div><i>z</i>".encode_utf16().flat_map(u16::to_le_bytes).collect(),
            "UTF-16BE" => "<p>a é</p><div>ø</div><i>z</i>".encode_utf16().flat_map(u16::to_be_bytes).collect(),
            _ => page.into_owned(),
        };
        let text = "ü€ & <x> 😀";
        let html = "<b>ø</b>";
        let immediate = Settings::new().encoding(label)?.element("p", |el| {
            el.append(text, ContentType::Text)?;
            Ok(())
        });
        let immediate = immediate.element("div", |el| {
            el.replace(html, ContentType::Html)?;
            Ok(())
        });
        let reference = common::rewrite(immediate, &page, Chunking::Whole);
        if let Some(e) = reference.error {
            return Err(format!("{label}: immediate edits failed: {e}").into());
        }
        for chunking in chunkings(label) {
            for fill in [Chunking::Whole, Chunking::Bytewise] {
                let slots: Rc<RefCell<Vec<Slot>>> = Rc::default();
                let (a, b) = (slots.clone(), slots.clone());
                let settings = Settings::new()
                    .encoding(label)?
                    .element("p", move |el| {
                        a.borrow_mut().push(el.defer_append());
                        Ok(())
                    })
                    .element("div", move |el| {
                        b.borrow_mut().push(el.defer_replace());
                        Ok(())
                    });
                let mut rw = Rewriter::new(settings, htrewrite::IoSink(Vec::new()))?;
                for chunk in chunking.chunks(&page) {
                    rw.write(chunk)?;
                }
                rw.finish_input()?;
                let made = slots.borrow().clone();
                give(&mut rw, made[1], &Action::Content(html.to_owned(), ContentType::Html), fill)?;
                give(&mut rw, made[0], &Action::Content(text.to_owned(), ContentType::Text), fill)?;
                let out = rw.end()?.0;
                if out != reference.output {
                    failures.push(format!("{label} [page {chunking}, fill {fill}]: {}", show(&out)));
                }
            }
        }
    }
    if failures.is_empty() { Ok(()) } else { Err(failures.join("\n").into()) }
}

fn copy_waits_for_slots() -> Result<(), Failed> {
    let (settings, slots) = deferring_one("head", "append");
    let mut rw = Rewriter::new(settings, htrewrite::IoSink(Vec::new()))?;
    rw.write(b"<head><title>t</title></head><body><p>a")?;
    if rw.copying() {
        return Err("copying while output waits for a slot".into());
    }
    rw.write(b"<p>b")?;
    rw.fill(slots.borrow()[0], "<script src=x></script>", ContentType::Html)?;
    rw.write(b"<p>c")?;
    if !rw.copying() {
        return Err("nothing observes the rest once the slot is filled: it is copied".into());
    }
    rw.write(b"<p>d")?;
    let out = rw.end()?.0;
    if out != b"<head><title>t</title><script src=x></script></head><body><p>a<p>b<p>c<p>d" {
        return Err(format!("got {}", show(&out)).into());
    }
    Ok(())
}

pub(crate) fn trials() -> Vec<Trial> {
    let mut trials = toml_case_trials("deferred/cases.toml", |c: &Case| &c.name, run_case);
    type Test = fn() -> Result<(), Failed>;
    let named: [(&str, Test); 10] = [
        ("encodings::match_immediate", encodings_match_immediate),
        ("errors::pass_through_after_a_slot", errors_pass_through_after_a_slot),
        ("bounded::copy_waits_for_slots", copy_waits_for_slots),
        ("property::deferred_equals_immediate", deferred_equals_immediate),
        ("bounded::long_page_first_slot_unfilled", bounded_long_page),
        ("bounded::output_stops_at_the_slot", bounded_output_stops_at_the_slot),
        ("bounded::later_slot_stream", bounded_later_slot_stream),
        ("errors::unfilled_at_end", errors_unfilled_at_end),
        ("errors::misuse", errors_misuse),
        ("errors::broken_stream_keeps_what_came", errors_broken_stream_keeps_what_came),
    ];
    trials.extend(named.into_iter().map(|(name, test)| Trial::test(name, test)));
    trials
}
