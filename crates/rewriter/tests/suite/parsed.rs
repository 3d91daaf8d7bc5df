//! Parsed content (issue 19, [`ContentType::ParsedHtml`]): markup the
//! rewriter's own parse reads where it lands.
//!
//! - `case::*`: the cases of `data/parsed/cases.toml` (see its header). The
//!   page is rewritten with parsed slots (`defer_prepend_parsed` /
//!   `defer_after_parsed`) and with the content given at once (`prepend` /
//!   `after` with `ParsedHtml`); each must give the output and the handler
//!   observations (every rule's matches, attribute edits, whole text nodes,
//!   end tags) of the spliced page, rewritten with the same rules. The page
//!   runs whole, split at every byte and at three seeded random points; the
//!   slots are filled whole ([`Rewriter::fill`]) and streamed
//!   ([`Rewriter::slot_write`]) in each chunking of the fragments, as soon
//!   as the rewriter waits and only after the end of input was given. The
//!   spliced page itself is rewritten in every chunking (same results), and
//!   its structural matches are compared with html5ever's tree of it
//!   (through scraper): the tree the parsed content makes is the one a
//!   browser builds from the final page.
//! - `refused::*`: parsed content where the parse has gone past the place
//!   is a typed error ([`EditErrorKind::ParsePassed`]), for each such place.
//! - `property::parsed_equals_spliced`: proptest (512 cases), random pages
//!   with `aside` elements each given a random fragment through a parse slot,
//!   page and fragments in random chunkings, early or late fills: as the page
//!   with the fragments spliced where the slots were made, output and
//!   observations.
//! - `errors::*`, `bounded::*`: an unfilled parse slot at the end, a slot
//!   cancelled after part of its content, misuse, and back-pressure: while
//!   the parse waits, no more than [`Settings::hold_limit`] bytes of input
//!   are taken.

use crate::common;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use common::{Chunking, chunkings, show, toml_case_trials};
use htrewrite::{
    ContentType, EditErrorKind, Fallback, IoSink, MAX_NESTED_PARSED, MAX_PARSE_NESTING, Rewriter, RewritingError,
    Settings, Slot, SlotErrorKind,
};
use libtest_mimic::{Failed, Trial};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRng, TestRunner};
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    page: String,
    slot: String,
    place: Place,
    fragments: BTreeMap<String, String>,
    #[serde(default)]
    text: bool,
    spliced: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Place {
    Prepend,
    After,
}

/// The structural selectors whose matches are logged and compared with
/// html5ever's tree of the spliced page.
const OBSERVED: &[&str] = &[
    "body > p",
    "body > table",
    "body > span",
    "table p",
    "td",
    "li",
    "ul > li",
    "aside > *",
    "div > *",
    "head > *",
    "p > i",
    "p b",
    "img",
    "title",
    "script",
    "hr",
];

type Log = Rc<RefCell<Vec<String>>>;

/// The observing and editing rules both rewrites run: every match of
/// [`OBSERVED`], `img` and `a[href]` edits, whole text nodes, end tags.
fn observers(log: &Log) -> Settings<'static> {
    let mut settings = Settings::new().whole_text_nodes(1 << 20);
    for &sel in OBSERVED {
        let log = log.clone();
        settings = settings.element(sel, move |el| {
            log.borrow_mut().push(format!("{sel} | {} #{}", el.tag_name(), el.get_attribute("id").unwrap_or_default()));
            Ok(())
        });
    }
    let ends = log.clone();
    let texts = log.clone();
    settings
        // Clones the parser makes (an `a` reconstructed) have no tag to edit.
        .element("img", |el| if el.has_start_tag() { Ok(el.set_attribute("loading", "lazy")?) } else { Ok(()) })
        .element("a[href]", |el| if el.has_start_tag() { Ok(el.set_attribute("rel", "nofollow")?) } else { Ok(()) })
        .element_end("p, li, td, div", move |end| {
            ends.borrow_mut().push(format!("end {} {}", end.tag_name(), end.has_end_tag()));
            Ok(())
        })
        .text("p, td, title, aside, pre, script", move |t| {
            texts.borrow_mut().push(format!("text {:?}", t.as_str()));
            Ok(())
        })
}

/// The fragment for an element with `id` (`""` without one).
fn fragment_for(case: &Case, id: Option<String>) -> Option<String> {
    case.fragments.get(&id.unwrap_or_default()).cloned()
}

fn content_type(case: &Case) -> ContentType {
    if case.text { ContentType::Text } else { ContentType::ParsedHtml }
}

/// Slots made, with their fragment.
type Made = Rc<RefCell<Vec<(Slot, String)>>>;

/// [`observers`] plus the case's rule: parsed slots (`deferred`), else the
/// fragments given at once.
fn with_slot_rule(case: &Case, log: &Log, made: &Made, deferred: bool) -> Settings<'static> {
    let settings = observers(log);
    let (case, made) = (case.clone(), made.clone());
    let ty = content_type(&case);
    settings.element(&case.slot.clone(), move |el| {
        // Elements the parser made without a start tag (a formatting
        // element's clone keeps its `id`) have no place the parse has not passed.
        if !el.has_start_tag() {
            return Ok(());
        }
        let Some(fragment) = fragment_for(&case, el.get_attribute("id")) else { return Ok(()) };
        match (case.place, deferred) {
            (Place::Prepend, true) => made.borrow_mut().push((el.defer_prepend_parsed()?, fragment)),
            // Text is inserted escaped (it reads as that text, parsed or not).
            (Place::Prepend, false) => el.prepend(&fragment, ty)?,
            (Place::After, _) => {
                let made = made.clone();
                el.on_end(move |end| {
                    if deferred {
                        made.borrow_mut().push((end.defer_after_parsed()?, fragment.clone()));
                    } else {
                        after_now(end, &fragment, ty)?;
                    }
                    Ok(())
                });
            }
        }
        Ok(())
    })
}

fn after_now(end: &mut htrewrite::ElementEnd<'_>, fragment: &str, ty: ContentType) -> Result<(), htrewrite::EditError> {
    assert_eq!(ty, ContentType::ParsedHtml, "text after an end tag: no case");
    end.after(fragment, ContentType::ParsedHtml)
}

/// The output and observations of the spliced page in `chunking`.
fn rewrite_spliced(case: &Case, chunking: Chunking) -> Result<(Vec<u8>, Vec<String>), String> {
    let log = Log::default();
    let mut rw = Rewriter::new(observers(&log), IoSink(Vec::new())).map_err(|e| e.to_string())?;
    for chunk in chunking.chunks(case.spliced.as_bytes()) {
        rw.write(chunk).map_err(|e| format!("spliced: {e}"))?;
    }
    let out = rw.end().map_err(|e| format!("spliced end: {e}"))?.0;
    let seen = log.borrow().clone();
    Ok((out, seen))
}

/// How a run fills the parse slots.
#[derive(Debug, Clone, Copy)]
struct Fills {
    /// Whole (`fill`), else streamed in `chunking`'s chunks.
    whole: bool,
    chunking: Chunking,
    /// Only when the rewriter waits and after the end of input, else also
    /// after every write.
    late: bool,
}

/// Where each slot's streamed fill stands: the next chunk.
type Progress = BTreeMap<Slot, usize>;

/// Gives one pending parse slot what it can take next; `false` when no
/// slot is pending.
fn fill_step(
    rw: &mut Rewriter<'_, IoSink<Vec<u8>>>,
    made: &Made,
    progress: &mut Progress,
    ty: ContentType,
    fills: Fills,
) -> Result<bool, String> {
    let pending = rw.pending_slots();
    if pending.is_empty() {
        return Ok(false);
    }
    for &slot in pending.iter().rev() {
        let fragment = made.borrow().iter().find(|(s, _)| *s == slot).map(|(_, f)| f.clone()).ok_or("unknown slot")?;
        if fills.whole {
            rw.fill(slot, &fragment, ty).map_err(|e| format!("fill {slot}: {e}"))?;
            return Ok(true);
        }
        let chunks: Vec<&[u8]> =
            fills.chunking.chunks(fragment.as_bytes()).into_iter().filter(|c| !c.is_empty()).collect();
        let next = progress.entry(slot).or_default();
        if *next == chunks.len() {
            rw.slot_finish(slot).map_err(|e| format!("finish {slot}: {e}"))?;
            return Ok(true);
        }
        let n = rw.slot_write(slot, chunks[*next], ty).map_err(|e| format!("slot_write {slot}: {e}"))?;
        if n > 0 {
            if n != chunks[*next].len() {
                return Err(format!("slot_write took {n} of {}", chunks[*next].len()));
            }
            *next += 1;
            return Ok(true);
        }
    }
    Err(format!("no pending slot of {pending:?} took anything"))
}

/// The page rewritten with the case's parsed slots, filled as `fills` says.
fn rewrite_deferred(case: &Case, page: Chunking, fills: Fills) -> Result<(Vec<u8>, Vec<String>), String> {
    let (log, made) = (Log::default(), Made::default());
    let rw = Rewriter::new(with_slot_rule(case, &log, &made, true), IoSink(Vec::new())).map_err(|e| e.to_string())?;
    let out = drive(rw, case.page.as_bytes(), page, &made, content_type(case), fills)?;
    if made.borrow().is_empty() {
        return Err("no slot was made".into());
    }
    let seen = log.borrow().clone();
    Ok((out, seen))
}

/// Writes `page` in `chunking`'s chunks, filling the slots handlers made
/// (`made`) as `fills` says, and ends the document: the output.
fn drive(
    mut rw: Rewriter<'_, IoSink<Vec<u8>>>,
    page: &[u8],
    chunking: Chunking,
    made: &Made,
    ty: ContentType,
    fills: Fills,
) -> Result<Vec<u8>, String> {
    let mut progress = Progress::new();
    for chunk in chunking.chunks(page) {
        let mut rest = chunk;
        while !rest.is_empty() {
            let n = rw.write_some(rest).map_err(|e| format!("write: {e}"))?;
            rest = &rest[n..];
            if n == 0 && !fill_step(&mut rw, made, &mut progress, ty, fills)? {
                return Err("input refused with no slot pending".into());
            }
        }
        if !fills.late {
            while fill_step(&mut rw, made, &mut progress, ty, fills)? {}
        }
    }
    rw.finish_input().map_err(|e| format!("finish_input: {e}"))?;
    while fill_step(&mut rw, made, &mut progress, ty, fills)? {}
    Ok(rw.end().map_err(|e| format!("end: {e}"))?.0)
}

/// The page rewritten with the fragments given at once.
fn rewrite_immediate(case: &Case, page: Chunking) -> Result<(Vec<u8>, Vec<String>), String> {
    let (log, made) = (Log::default(), Made::default());
    let mut rw =
        Rewriter::new(with_slot_rule(case, &log, &made, false), IoSink(Vec::new())).map_err(|e| e.to_string())?;
    for chunk in page.chunks(case.page.as_bytes()) {
        rw.write(chunk).map_err(|e| format!("write: {e}"))?;
    }
    let out = rw.end().map_err(|e| format!("end: {e}"))?.0;
    let seen = log.borrow().clone();
    Ok((out, seen))
}

/// Per observed selector, how many elements html5ever's tree of `html`
/// matches.
fn html5ever_counts(html: &str) -> BTreeMap<&'static str, usize> {
    let doc = scraper::Html::parse_document(html);
    OBSERVED.iter().map(|&sel| (sel, doc.select(&scraper::Selector::parse(sel).expect("selector")).count())).collect()
}

fn run_case(case: &Case) -> Result<(), Failed> {
    let name = &case.name;
    let (expected_out, expected_seen) = rewrite_spliced(case, Chunking::Whole)?;
    let mut failures = Vec::new();
    // The spliced page: the same in every chunking, and html5ever's tree.
    for chunking in chunkings(name) {
        match rewrite_spliced(case, chunking) {
            Ok(got) if got == (expected_out.clone(), expected_seen.clone()) => {}
            Ok(_) => failures.push(format!("[spliced, {chunking}] differs from the whole spliced page")),
            Err(e) => failures.push(format!("[spliced, {chunking}] {e}")),
        }
    }
    let ours: BTreeMap<&str, usize> = OBSERVED
        .iter()
        .map(|&sel| (sel, expected_seen.iter().filter(|l| l.starts_with(&format!("{sel} | "))).count()))
        .collect();
    let theirs = html5ever_counts(&case.spliced);
    if ours != theirs {
        failures.push(format!(
            "matches differ from html5ever's tree of the spliced page:\n ours   {ours:?}\n theirs {theirs:?}"
        ));
    }
    let check = |what: String, got: Result<(Vec<u8>, Vec<String>), String>, failures: &mut Vec<String>| match got {
        Ok((out, seen)) => {
            if out != expected_out {
                failures.push(format!("[{what}] output {}\n   expected {}", show(&out), show(&expected_out)));
            } else if seen != expected_seen {
                failures.push(format!("[{what}] observations {seen:?}\n   expected {expected_seen:?}"));
            }
        }
        Err(e) => failures.push(format!("[{what}] {e}")),
    };
    for page in chunkings(name) {
        let immediate = rewrite_immediate(case, page);
        if case.text {
            // Text given at once is inserted, not parsed (`ContentType::Text`
            // is not `ParsedHtml`): its handlers see nothing of it, so only
            // the output is compared.
            let immediate = immediate.map(|(out, _)| (out, expected_seen.clone()));
            check(format!("immediate text, page {page}"), immediate, &mut failures);
        } else {
            check(format!("immediate, page {page}"), immediate, &mut failures);
        }
        for late in [false, true] {
            let whole = Fills { whole: true, chunking: Chunking::Whole, late };
            check(format!("fill, page {page}, late {late}"), rewrite_deferred(case, page, whole), &mut failures);
            for chunking in chunkings(&format!("{name} fragments")) {
                let fills = Fills { whole: false, chunking, late };
                check(
                    format!("streamed {chunking}, page {page}, late {late}"),
                    rewrite_deferred(case, page, fills),
                    &mut failures,
                );
            }
        }
    }
    if failures.is_empty() { Ok(()) } else { Err(failures.join("\n").into()) }
}

/// The error kind a handler's parsed edit gets, on `page` for `selector`.
fn refused_kind(
    page: &str,
    selector: &str,
    edit: fn(&mut htrewrite::Element<'_, '_>) -> Result<(), htrewrite::EditError>,
) -> Option<EditErrorKind> {
    let got: Rc<RefCell<Option<EditErrorKind>>> = Rc::default();
    let seen = got.clone();
    let settings = Settings::new().element(selector, move |el| {
        if let Err(e) = edit(el) {
            *seen.borrow_mut() = Some(e.kind());
        }
        Ok(())
    });
    let mut rw = Rewriter::new(settings, IoSink(Vec::new())).expect("settings");
    rw.write(page.as_bytes()).expect("write");
    rw.end().expect("end");
    *got.borrow()
}

fn refused_implied_element() -> Result<(), Failed> {
    let kind = refused_kind("<table><tr><td>x</table>", "tbody", |el| el.prepend("<b>", ContentType::ParsedHtml));
    assert_eq!(kind, Some(EditErrorKind::ParsePassed), "tbody implied by <tr>");
    let kind = refused_kind("<table><tr><td>x</table>", "tbody", |el| el.defer_prepend_parsed().map(drop));
    assert_eq!(kind, Some(EditErrorKind::ParsePassed), "deferred, tbody implied by <tr>");
    Ok(())
}

fn refused_other_places() -> Result<(), Failed> {
    type Edit = fn(&mut htrewrite::Element<'_, '_>) -> Result<(), htrewrite::EditError>;
    let edits: [(&str, Edit); 5] = [
        ("before", |el| el.before("<b>", ContentType::ParsedHtml)),
        ("append", |el| el.append("<b>", ContentType::ParsedHtml)),
        ("set_inner_content", |el| el.set_inner_content("<b>", ContentType::ParsedHtml)),
        ("replace", |el| el.replace("<b>", ContentType::ParsedHtml)),
        ("after", |el| el.after("<b>", ContentType::ParsedHtml)),
    ];
    for (what, edit) in edits {
        assert_eq!(refused_kind("<div>x</div>", "div", edit), Some(EditErrorKind::ParsePassed), "{what}");
    }
    // No content: a void element.
    let kind = refused_kind("<img>", "img", |el| el.defer_prepend_parsed().map(drop));
    assert_eq!(kind, Some(EditErrorKind::ParsePassed), "void element");
    Ok(())
}

fn refused_implied_end() -> Result<(), Failed> {
    // `<p>` closed by `<div>` (no `</p>`), and by the end of input.
    for page in ["<p>a<div>b</div>", "<p>a"] {
        let got: Rc<RefCell<Vec<EditErrorKind>>> = Rc::default();
        let seen = got.clone();
        let settings = Settings::new().element_end("p", move |end| {
            for r in [end.after("<b>", ContentType::ParsedHtml), end.defer_after_parsed().map(drop)] {
                seen.borrow_mut().push(r.expect_err("refused").kind());
            }
            Ok(())
        });
        let mut rw = Rewriter::new(settings, IoSink(Vec::new()))?;
        rw.write(page.as_bytes())?;
        assert_eq!(rw.end()?.0, page.as_bytes());
        assert_eq!(*got.borrow(), [EditErrorKind::ParsePassed; 2], "{page}");
    }
    Ok(())
}

fn refused_in_a_plain_slot() -> Result<(), Failed> {
    let slot: Rc<RefCell<Option<Slot>>> = Rc::default();
    let made = slot.clone();
    let settings = Settings::new().element("p", move |el| {
        *made.borrow_mut() = Some(el.defer_append());
        Ok(())
    });
    let mut rw = Rewriter::new(settings, IoSink(Vec::new()))?;
    rw.write(b"<p>a</p>")?;
    let s = slot.borrow().expect("slot");
    let Err(RewritingError::Slot(e)) = rw.fill(s, "<b>", ContentType::ParsedHtml) else { panic!("refused") };
    assert_eq!(e.kind(), SlotErrorKind::Content);
    assert_eq!(e.content_error().map(|c| c.kind()), Some(EditErrorKind::ParsePassed));
    // The slot stays open.
    rw.fill(s, "<b>", ContentType::Html)?;
    assert_eq!(rw.end()?.0, b"<p>a<b></p>");
    Ok(())
}

/// Slots made by handlers, in order.
type Slots = Rc<RefCell<Vec<Slot>>>;

/// A rewriter whose `aside` elements get parsed slots, with the slots made.
fn aside_slots(hold_limit: usize) -> (Rewriter<'static, IoSink<Vec<u8>>>, Slots) {
    let slots: Rc<RefCell<Vec<Slot>>> = Rc::default();
    let made = slots.clone();
    let settings = Settings::new()
        .hold_limit(hold_limit)
        .element("img", |el| Ok(el.set_attribute("loading", "lazy")?))
        .element("aside", move |el| {
            made.borrow_mut().push(el.defer_prepend_parsed()?);
            Ok(())
        });
    (Rewriter::new(settings, IoSink(Vec::new())).expect("settings"), slots)
}

fn errors_unfilled_at_end() -> Result<(), Failed> {
    let (mut rw, slots) = aside_slots(1 << 16);
    rw.write(b"<p>a<aside></aside><p>b")?;
    rw.finish_input()?;
    assert_eq!(rw.pending_slots(), slots.borrow().clone());
    assert_eq!(rw.sink_mut().0, b"<p>a<aside>", "output up to the slot, nothing after");
    let Err(RewritingError::UnfilledSlots(pending)) = rw.end() else { panic!("unfilled") };
    assert_eq!(pending, slots.borrow().clone());
    Ok(())
}

fn errors_cancel_keeps_what_came() -> Result<(), Failed> {
    let (mut rw, slots) = aside_slots(1 << 16);
    rw.write(b"<aside></aside><img>")?;
    let s = slots.borrow()[0];
    assert_eq!(rw.slot_write(s, b"<b>par<img", ContentType::ParsedHtml)?, 10);
    rw.cancel(s, Fallback::Empty)?;
    // As if the page said `<aside><b>par<img</aside><img>`: an `img<` tag, then an `img`.
    assert_eq!(rw.end()?.0, br#"<aside><b>par<img</aside><img loading="lazy">"#);
    let (mut rw, slots) = aside_slots(1 << 16);
    rw.write(b"<aside></aside><img>")?;
    rw.cancel(slots.borrow()[0], Fallback::KeepOriginal)?;
    assert_eq!(rw.end()?.0, br#"<aside></aside><img loading="lazy">"#);
    Ok(())
}

fn errors_misuse() -> Result<(), Failed> {
    let (mut rw, slots) = aside_slots(1 << 16);
    rw.write(b"<aside></aside>")?;
    let s = slots.borrow()[0];
    rw.fill(s, "<img>", ContentType::ParsedHtml)?;
    let Err(RewritingError::Slot(e)) = rw.fill(s, "x", ContentType::ParsedHtml) else { panic!("filled twice") };
    assert_eq!(e.kind(), SlotErrorKind::Resolved);
    for again in [rw.slot_finish(s), rw.cancel(s, Fallback::Empty), rw.slot_write(s, b"x", ContentType::Html).map(drop)]
    {
        let Err(RewritingError::Slot(e)) = again else { panic!("a finished slot") };
        assert_eq!(e.kind(), SlotErrorKind::Resolved);
    }
    assert_eq!(rw.end()?.0, br#"<aside><img loading="lazy"></aside>"#);
    Ok(())
}

/// A parse slot whose content holds an element its handler matches again:
/// the slot at [`MAX_PARSE_NESTING`] levels is refused (a typed error at
/// the call) instead of nesting forever; the output is the nesting so far.
fn errors_self_inserting_content_stops() -> Result<(), Failed> {
    let refused: Rc<RefCell<Vec<EditErrorKind>>> = Rc::default();
    let seen = refused.clone();
    let slots: Slots = Rc::default();
    let made = slots.clone();
    let settings = Settings::new().element("aside", move |el| {
        match el.defer_prepend_parsed() {
            Ok(slot) => made.borrow_mut().push(slot),
            Err(e) => seen.borrow_mut().push(e.kind()),
        }
        Ok(())
    });
    let mut rw = Rewriter::new(settings, IoSink(Vec::new()))?;
    rw.write(b"<aside>")?;
    let mut filled = 0;
    while let Some(&slot) = rw.pending_slots().last() {
        rw.fill(slot, "<aside>", ContentType::ParsedHtml)?;
        filled += 1;
        assert!(filled <= MAX_PARSE_NESTING as usize, "more slots than the nesting allows");
    }
    assert_eq!(filled, MAX_PARSE_NESTING as usize);
    assert_eq!(*refused.borrow(), [EditErrorKind::ParseNesting]);
    assert_eq!(rw.end()?.0, "<aside>".repeat(MAX_PARSE_NESTING as usize + 1).as_bytes());
    // Content holding two elements its handler matches (it would double at
    // every level): at most MAX_NESTED_PARSED requests from parsed content.
    let asked: Rc<RefCell<(usize, usize)>> = Rc::default();
    let count = asked.clone();
    let settings = Settings::new().element("i", move |el| {
        match el.prepend("<i></i><i></i>", ContentType::ParsedHtml) {
            Ok(()) => count.borrow_mut().0 += 1,
            Err(e) if e.kind() == EditErrorKind::ParseNesting => count.borrow_mut().1 += 1,
            Err(e) => return Err(e.into()),
        }
        Ok(())
    });
    let out = htrewrite::rewrite_str("<p><i></i>", settings)?;
    let (taken, refused) = *asked.borrow();
    // The input's `i` (not counted) and MAX_NESTED_PARSED from parsed content.
    assert_eq!(taken, MAX_NESTED_PARSED as usize + 1);
    assert_eq!(out.matches("<i>").count(), 1 + 2 * taken);
    // Every `i` asked once: the others were refused.
    assert_eq!(taken + refused, 1 + 2 * taken);
    Ok(())
}

/// With a rule on `head` only, the rewriter copies the rest once the head's
/// edits are placed — not while a parse slot of it waits: `copying()` stays
/// false (a server must not hand the rest past it), and the slot's content
/// and the page after it come out in order.
fn bounded_copy_waits_for_a_parse_slot() -> Result<(), Failed> {
    let slots: Slots = Rc::default();
    let made = slots.clone();
    let settings = Settings::new().element("head", move |el| {
        made.borrow_mut().push(el.defer_prepend_parsed()?);
        Ok(())
    });
    let mut rw = Rewriter::new(settings, IoSink(Vec::new()))?;
    rw.write(b"<html><head><title>t</title></head><body>x")?;
    assert!(!rw.copying(), "copying while a parse slot waits");
    assert_eq!(rw.sink_mut().0, b"<html><head>");
    rw.fill(slots.borrow()[0], "<meta charset=utf-8>", ContentType::ParsedHtml)?;
    assert!(rw.copying(), "the head's edits are placed: the rest is a copy");
    rw.write(b" and the rest")?;
    assert_eq!(rw.end()?.0, b"<html><head><meta charset=utf-8><title>t</title></head><body>x and the rest");
    Ok(())
}

/// A parse slot's streamed content whose output is held behind an earlier
/// plain slot: taken up to the hold bound, then 0 until the earlier slot
/// is filled; the output is exact.
fn bounded_parse_stream_behind_a_plain_slot() -> Result<(), Failed> {
    const LIMIT: usize = 256;
    let slots: Slots = Rc::default();
    let made = slots.clone();
    let settings = Settings::new()
        .hold_limit(LIMIT)
        .element("header", {
            let made = made.clone();
            move |el| {
                made.borrow_mut().push(el.defer_append());
                Ok(())
            }
        })
        .element("aside", move |el| {
            made.borrow_mut().push(el.defer_prepend_parsed()?);
            Ok(())
        });
    let mut rw = Rewriter::new(settings, IoSink(Vec::new()))?;
    rw.write(b"<header>h</header><aside></aside><p>end")?;
    let (plain, parse) = (slots.borrow()[0], slots.borrow()[1]);
    let content = "<p>0123456789</p>".repeat(100);
    let mut taken = 0;
    while taken < content.len() {
        let n = rw.slot_write(parse, &content.as_bytes()[taken..], ContentType::ParsedHtml)?;
        if n == 0 {
            break;
        }
        taken += n;
    }
    assert!(taken < content.len(), "the stream was not held back");
    assert!(rw.held_bytes() < 4 * LIMIT + 4096, "holds {} bytes", rw.held_bytes());
    assert_eq!(rw.sink_mut().0, b"<header>h");
    rw.fill(plain, "<nav>", ContentType::Html)?;
    while taken < content.len() {
        taken += rw.slot_write(parse, &content.as_bytes()[taken..], ContentType::ParsedHtml)?;
    }
    rw.slot_finish(parse)?;
    let expected = format!("<header>h<nav></header><aside>{content}</aside><p>end");
    assert_eq!(String::from_utf8(rw.end()?.0)?, expected);
    Ok(())
}

fn bounded_page_waits() -> Result<(), Failed> {
    const LIMIT: usize = 4096;
    let (mut rw, slots) = aside_slots(LIMIT);
    let mut page = b"<aside></aside>".to_vec();
    while page.len() < 1 << 20 {
        page.extend_from_slice(b"<p>0123456789 <img src=a.png></p>\n");
    }
    let mut taken = 0;
    loop {
        let n = rw.write_some(&page[taken..])?;
        if n == 0 {
            break;
        }
        taken += n;
    }
    assert_eq!(taken, LIMIT, "one piece of the bound is taken, then nothing while the parse waits");
    assert!(rw.held_bytes() < LIMIT + 2048, "holds {} bytes", rw.held_bytes());
    assert_eq!(rw.sink_mut().0, b"<aside>");
    assert!(matches!(rw.write(&page[taken..]), Err(RewritingError::Blocked { taken: 0 })));
    rw.fill(slots.borrow()[0], "<img src=f.png>", ContentType::ParsedHtml)?;
    rw.write(&page[taken..])?;
    let out = rw.end()?.0;
    let expected = String::from_utf8(page)
        .unwrap()
        .replace("<aside>", r#"<aside><img src=f.png loading="lazy">"#)
        .replace("<img src=a.png>", r#"<img src=a.png loading="lazy">"#);
    assert!(out == expected.as_bytes(), "output differs");
    Ok(())
}

/// Parsed content in documents not in UTF-8: encoded into the document's
/// encoding (UTF-16 documents are read as UTF-8 and written back), in every
/// chunking of the page.
fn encodings_parsed_in_the_document_encoding() -> Result<(), Failed> {
    let utf16le = |s: &str| -> Vec<u8> {
        let mut v = vec![0xFF, 0xFE];
        v.extend(s.encode_utf16().flat_map(u16::to_le_bytes));
        v
    };
    let (w1252, _, _) = encoding_rs::WINDOWS_1252.encode("<aside></aside>é");
    let (w1252_out, _, _) = encoding_rs::WINDOWS_1252.encode(r#"<aside><b>ü€</b><img loading="lazy"></aside>é"#);
    // (name, encoding label, page, expected output)
    type Case<'a> = (&'a str, Option<&'a str>, Vec<u8>, Vec<u8>);
    let cases: [Case<'_>; 2] = [
        ("utf-16le", None, utf16le("<aside></aside>é"), utf16le(r#"<aside><b>ü€</b><img loading="lazy"></aside>é"#)),
        ("windows-1252", Some("windows-1252"), w1252.into_owned(), w1252_out.into_owned()),
    ];
    for (what, label, page, expected) in cases {
        for chunking in chunkings(what) {
            let slots: Rc<RefCell<Vec<Slot>>> = Rc::default();
            let made = slots.clone();
            let mut settings = Settings::new().element("img", |el| Ok(el.set_attribute("loading", "lazy")?)).element(
                "aside",
                move |el| {
                    made.borrow_mut().push(el.defer_prepend_parsed()?);
                    Ok(())
                },
            );
            if let Some(label) = label {
                settings = settings.encoding(label)?;
            }
            let mut rw = Rewriter::new(settings, IoSink(Vec::new()))?;
            let mut filled = false;
            for chunk in chunking.chunks(&page) {
                let mut rest = chunk;
                while !rest.is_empty() {
                    let n = rw.write_some(rest)?;
                    rest = &rest[n..];
                    if n == 0 {
                        rw.fill(slots.borrow()[0], "<b>ü€</b><img>", ContentType::ParsedHtml)?;
                        filled = true;
                    }
                }
            }
            if !filled {
                rw.fill(slots.borrow()[0], "<b>ü€</b><img>", ContentType::ParsedHtml)?;
            }
            let out = rw.end()?.0;
            assert!(out == expected, "{what} [{chunking}]: {} expected {}", show(&out), show(&expected));
        }
    }
    Ok(())
}

/// Property: a random page with `aside` elements, each getting a random
/// fragment (no `aside` in it) through a parse slot — page and fragments in
/// random chunkings —, rewrites as the page with the fragments spliced in
/// where the slots were made (their start tags' ends, in offsets of the
/// parsed stream, which includes the fragments read before), with the same
/// observations. Fragments that open RCDATA or PLAINTEXT, end inside a tag
/// or close the `aside` change what follows in both alike.
fn property_parsed_equals_spliced() -> Result<(), Failed> {
    let config = Config { cases: 512, failure_persistence: None, ..Config::default() };
    let rng = TestRng::deterministic_rng(config.rng_algorithm);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let pieces = || prop::sample::select(common::PIECES);
    let page = prop::collection::vec(prop_oneof![3 => pieces(), 1 => Just("<aside>"), 1 => Just("</aside>")], 0..24)
        .prop_map(|p| p.concat());
    let fragments = prop::collection::vec(prop::collection::vec(pieces(), 0..6).prop_map(|p| p.concat()), 1..4);
    let strategy = (page, fragments, any::<u64>(), any::<u64>(), any::<bool>());
    runner
        .run(&strategy, |(page, fragments, page_seed, fill_seed, late)| {
            let (log, made) = (Log::default(), Made::default());
            let places: Rc<RefCell<Vec<u64>>> = Rc::default();
            let (at, slots) = (places.clone(), made.clone());
            let settings = observers(&log).element("aside", move |el| {
                if el.has_start_tag() {
                    let fragment = fragments[at.borrow().len() % fragments.len()].clone();
                    at.borrow_mut().push(el.source_location().bytes.end);
                    slots.borrow_mut().push((el.defer_prepend_parsed()?, fragment));
                }
                Ok(())
            });
            let fills = Fills { whole: false, chunking: Chunking::Random(fill_seed), late };
            let rw = Rewriter::new(settings, IoSink(Vec::new())).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let out = drive(rw, page.as_bytes(), Chunking::Random(page_seed), &made, ContentType::ParsedHtml, fills)
                .map_err(TestCaseError::fail)?;
            // The page with each fragment where its slot was made.
            let mut spliced = Vec::new();
            let mut from = 0;
            for ((_, fragment), &end) in made.borrow().iter().zip(places.borrow().iter()) {
                let take = (end as usize)
                    .checked_sub(spliced.len())
                    .ok_or_else(|| TestCaseError::fail("a slot inside a fragment"))?;
                spliced.extend_from_slice(&page.as_bytes()[from..from + take]);
                from += take;
                spliced.extend_from_slice(fragment.as_bytes());
            }
            spliced.extend_from_slice(&page.as_bytes()[from..]);
            let spliced = String::from_utf8(spliced).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let case = Case {
                name: String::new(),
                page: page.clone(),
                slot: "aside".into(),
                place: Place::Prepend,
                fragments: BTreeMap::new(),
                text: false,
                spliced,
            };
            let (expected_out, expected_seen) = rewrite_spliced(&case, Chunking::Whole).map_err(TestCaseError::fail)?;
            prop_assert_eq!(show(&out), show(&expected_out), "spliced page {:?}", case.spliced);
            prop_assert_eq!(&*log.borrow(), &expected_seen, "spliced page {:?}", case.spliced);
            Ok(())
        })
        .map_err(|e| Failed::from(e.to_string()))
}

pub(crate) fn trials() -> Vec<Trial> {
    let mut trials = toml_case_trials("parsed/cases.toml", |c: &Case| &c.name, run_case);
    type Test = fn() -> Result<(), Failed>;
    let named: [(&str, Test); 13] = [
        ("encodings::parsed_in_the_document_encoding", encodings_parsed_in_the_document_encoding),
        ("refused::implied_element", refused_implied_element),
        ("refused::other_places", refused_other_places),
        ("refused::implied_end", refused_implied_end),
        ("refused::in_a_plain_slot", refused_in_a_plain_slot),
        ("errors::unfilled_at_end", errors_unfilled_at_end),
        ("errors::cancel_keeps_what_came", errors_cancel_keeps_what_came),
        ("errors::misuse", errors_misuse),
        ("errors::self_inserting_content_stops", errors_self_inserting_content_stops),
        ("bounded::page_waits", bounded_page_waits),
        ("bounded::parse_stream_behind_a_plain_slot", bounded_parse_stream_behind_a_plain_slot),
        ("bounded::copy_waits_for_a_parse_slot", bounded_copy_waits_for_a_parse_slot),
        ("property::parsed_equals_spliced", property_parsed_equals_spliced),
    ];
    trials.extend(named.into_iter().map(|(name, test)| Trial::test(name, test)));
    trials
}
