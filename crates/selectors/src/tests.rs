//! Linear time and bounded state on hostile shapes, by counted work
//! (`crate::work`), not by timing: each shape's document at n and 4n
//! repetitions of its unit goes through the tokenizer, the shadow and the
//! matcher; the matcher's counted work plus the events must grow at most
//! 4.2× for 4× the input, and the kept records stay within the open
//! elements.

use std::sync::Arc;

use htrewrite_shadow::{Event, Shadow, ShadowOptions, ShadowSink};
use htrewrite_tokenizer::Tokenizer;

use crate::{Matcher, Program};

/// (prefix, unit repeated n times (`{i}` in it: the repetition's number), suffix), selectors.
type Shape = (&'static str, &'static str, &'static str, &'static [&'static str]);

const UNCLOSED_P: Shape =
    ("", "<p>", "", &["p p", "p + p", "p ~ p", "p:nth-child(2n)", "div p", ":not(div) > p", "p:nth-of-type(3)"]);
const DEEP_NESTING_DESCENDANT: Shape = (
    "",
    "<div>",
    "<span>",
    &["div div span", "div > div > div", ":is(div, p) span", "body div div:first-child", "div:not(p div) > div"],
);
const DEEP_INLINE_NESTING: Shape = ("", "<span>", "", &["span span", "span > span", "body > span ~ span"]);
const LONG_SIBLING_RUN: Shape = (
    "<ul>",
    "<li>",
    "</ul>",
    &[
        "li ~ li",
        "li + li ~ li",
        "li:nth-child(3n+1)",
        "li:nth-of-type(2)",
        "ul > li:nth-child(2 of li)",
        "li:first-child ~ li",
    ],
);
const LONG_SIBLING_RUN_CLOSED: Shape =
    ("<div>", "<b></b><i></i>", "</div>", &["b ~ i", "i + b", "b ~ b ~ b", ":is(b, i):nth-child(odd)"]);
const FORMATTING_ELEMENTS: Shape = ("", "<b>", "<p>x", &["b b", "b > b + b", "p > b"]);
const NESTED_TABLES: Shape = ("", "<table><tr><td>", "", &["td td", "table > tbody > tr > td", "td > table"]);
const ADOPTION_CLONES: Shape = ("", "<a><div></a>", "", &["a a", "div > a", "a + div", "a ~ a"]);
/// Element types without end (`{i}` is the repetition's number), each
/// followed by a table with fostered content: every table's foster cursor
/// starts as a copy of its parent's sibling cursor, type counts included
/// (a plain map copy was O(types): quadratic here).
const FOSTER_CURSORS_OVER_MANY_TYPES: Shape = (
    "<!DOCTYPE html><div>",
    "<x{i}></x{i}><table><b></b><tr><td></table>",
    "</div>",
    &[":nth-of-type(2)", "b:nth-of-type(1)", "table + b", "div > b:nth-of-type(odd)", "x1 ~ b"],
);

/// The matcher's counted work plus the number of events for the shape at
/// `n` repetitions, and the most records it kept at once.
fn work(shape: Shape, n: usize) -> (u64, usize) {
    let (prefix, unit, suffix, selectors) = shape;
    let units: String = (0..n).map(|i| unit.replace("{i}", &i.to_string())).collect();
    let doc = format!("{prefix}{units}{suffix}");
    let program = Arc::new(Program::new(selectors).expect("valid selectors"));
    let mut matcher = Matcher::new(program);
    let mut events = 0u64;
    let mut max_records = 0;
    let before = crate::work::counted();
    let sink = |e: Event<'_>| {
        events += 1;
        matcher.event(&e);
        max_records = max_records.max(matcher.live_records());
    };
    let mut sink = ShadowSink::new(Shadow::new(ShadowOptions::default()), sink);
    let mut tokenizer = Tokenizer::new();
    tokenizer.feed(doc.as_bytes(), &mut sink);
    tokenizer.finish(&mut sink);
    sink.finish();
    drop(sink);
    (crate::work::counted() - before + events, max_records)
}

fn linear(shape: Shape) {
    let n = 2_000;
    let (w1, _) = work(shape, n);
    let (w4, r4) = work(shape, 4 * n);
    let growth = w4 as f64 / w1 as f64;
    assert!(growth <= 4.2, "not linear: work {w1} at n = {n}, {w4} at 4n (× {growth:.2})");
    // State: at most the open elements (implied ones too: `tbody` per
    // `<tr>`), the Document and head.
    let bound = 2 * 4 * n * shape.1.matches('<').count() + 8;
    assert!(r4 <= bound, "state grew past the open elements: {r4} records at 4n (bound {bound})");
}

#[test]
fn adversarial_unclosed_p() {
    linear(UNCLOSED_P);
}

#[test]
fn adversarial_deep_nesting_descendant() {
    linear(DEEP_NESTING_DESCENDANT);
}

#[test]
fn adversarial_deep_inline_nesting() {
    linear(DEEP_INLINE_NESTING);
}

#[test]
fn adversarial_long_sibling_run() {
    linear(LONG_SIBLING_RUN);
}

#[test]
fn adversarial_long_sibling_run_closed() {
    linear(LONG_SIBLING_RUN_CLOSED);
}

#[test]
fn adversarial_formatting_elements() {
    linear(FORMATTING_ELEMENTS);
}

#[test]
fn adversarial_nested_tables() {
    linear(NESTED_TABLES);
}

#[test]
fn adversarial_adoption_clones() {
    linear(ADOPTION_CLONES);
}

#[test]
fn adversarial_foster_cursors_over_many_types() {
    linear(FOSTER_CURSORS_OVER_MANY_TYPES);
}

/// The counter sees the matcher's work: it grows with the input. (A
/// quadratic step put in by hand, a tick per live record at every opened
/// element, fails five of the shape tests above with × 15.5–15.9.)
#[test]
fn counted_work_grows_with_the_states_tested() {
    let (small, _) = work(DEEP_INLINE_NESTING, 100);
    let (large, _) = work(DEEP_INLINE_NESTING, 400);
    assert!(large > 3 * small, "work {small} at 100, {large} at 400: the counter misses the matcher's work");
}
