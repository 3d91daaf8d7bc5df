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

/// Many elements foster-parented before one table (in a row, so its row
/// group and row are open too), with selectors that read sibling cursors:
/// after each, the table's part of its parent's cursor and the states of the
/// table, its `tbody` and `tr` are computed again (issue 17) — O(1) each.
const MANY_FOSTERED: Shape = (
    "<div><p></p><table><tr><td>x</td>",
    "<b></b><i class=c></i>",
    "<td>y</table><em></em></div>",
    &["b + table", "i + table > tbody > tr > td", ":nth-child(2n+1 of .c) td", "table ~ em", "p ~ table td", "div > b"],
);

/// The matcher's counted work plus the number of events for the shape at
/// `n` repetitions, and the most records it kept at once.
fn work(shape: Shape, n: usize) -> (u64, usize) {
    let (prefix, unit, suffix, selectors) = shape;
    let units: String = (0..n).map(|i| unit.replace("{i}", &i.to_string())).collect();
    work_of(&format!("{prefix}{units}{suffix}"), selectors)
}

/// [`work`] of one document.
fn work_of(doc: &str, selectors: &[&str]) -> (u64, usize) {
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
fn adversarial_many_fostered_before_one_table() {
    linear(MANY_FOSTERED);
}

#[test]
fn adversarial_foster_cursors_over_many_types() {
    linear(FOSTER_CURSORS_OVER_MANY_TYPES);
}

/// Selectors whose states the adoption agency's moves change: what a moved
/// element and everything open under it leave is computed again after each
/// move (issue 17).
const MOVED: &[&str] =
    &["b div", "b > div", "span div div", "div > b > div", "b + div", ":is(b, span) > div ~ div", ".s div"];

/// `<b>` over a deep run of `unit` (each with a special element, a possible
/// furthest block), then n times `</b>`: each end tag runs the adoption
/// agency's outer loop up to eight times, each time moving the next
/// furthest block, with everything open under it, out of the clone of `b`
/// made by the previous run. Counted work at n and 4n.
fn linear_moves(unit: &str) {
    let doc = |n: usize| format!("<b>{}{}", unit.repeat(n), "</b>x".repeat(n));
    let n = 2_000;
    let (w1, _) = work_of(&doc(n), MOVED);
    let (w4, r4) = work_of(&doc(4 * n), MOVED);
    let growth = w4 as f64 / w1 as f64;
    assert!(growth <= 4.2, "not linear: work {w1} at n = {n}, {w4} at 4n (× {growth:.2})");
    let bound = 2 * 4 * n * unit.matches('<').count() + 8;
    assert!(r4 <= bound, "state grew past the open elements: {r4} records at 4n (bound {bound})");
}

#[test]
fn adversarial_repeated_moves_of_deep_subtrees() {
    linear_moves("<div>");
}

/// Each furthest block under a non-special, non-formatting `span` that the
/// adoption agency removes from the stack: what is under the block loses an
/// ancestor with a class a rule reads.
#[test]
fn adversarial_repeated_moves_losing_ancestors() {
    linear_moves("<span class=s><div>");
}

/// The moves are computed again at all: `a a` matches nothing after
/// `<a class=x><div><a class=y>` (the div left the first link before the
/// second was inserted), and `div > a` matches the clone and `a.y`.
#[test]
fn moved_subtree_is_matched_in_its_new_place() {
    use htrewrite_shadow::NodeId;
    let program = Arc::new(Program::new(["a a", "div > a"]).expect("valid selectors"));
    let mut matcher = Matcher::new(program);
    let mut matched: Vec<(u32, NodeId)> = Vec::new();
    let sink = |e: Event<'_>| matched.extend(matcher.event(&e).iter().map(|m| (m.rule.0, m.element)));
    let mut sink = ShadowSink::new(Shadow::new(ShadowOptions::default()), sink);
    let mut tokenizer = Tokenizer::new();
    tokenizer.feed(b"<a class=x><div><a class=y>t</a></div>", &mut sink);
    tokenizer.finish(&mut sink);
    sink.finish();
    drop(sink);
    let rules: Vec<u32> = matched.iter().map(|m| m.0).collect();
    assert_eq!(rules, [1, 1], "{matched:?}");
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

/// `NameSet`'s filter (a length and first-byte bit) only skips the search
/// for names that are not in the set: every name of the Standard's known
/// elements, asked of sets of a few of them, is found exactly when it was
/// put in (a filter with a lost bit, or one that skips found names, fails).
#[test]
fn name_set_finds_exactly_its_names() {
    use crate::compile::NameSet;
    let all: Vec<&str> = htrewrite_shadow::KnownName::all().map(|k| k.name()).chain(["", "x", "custom-el"]).collect();
    for step in [1, 3, 7, 29] {
        let chosen: Vec<String> = all.iter().step_by(step).map(|n| n.to_string()).collect();
        let set = NameSet::new(chosen.clone());
        for name in &all {
            assert_eq!(set.contains(name), chosen.iter().any(|c| c == name), "{name:?} in every {step}th name");
        }
    }
}

/// `Matcher::element_opened`'s known-name tests (`Program::answered_known`,
/// `Program::known_answer`) answer only for elements whose match the full
/// path would find to be that answer (no rule, or the one rule of a plain
/// type selector), and that leave nothing it keeps but what it keeps of a
/// formatting element (kept as the full path keeps it): every `#data` document
/// of the vendored html5lib tree-construction suite and every vendored
/// corpus page, through the shadow, each element opened on two matchers —
/// one with the tests, one always the whole way (`element_opened_full`) —
/// gives the same rules, and the same kept records and state (their heap
/// bytes) after every event. The
/// programs are of tag-keyed compounds, flat (`a[href]`, `head`; `div`,
/// `p`) or not (`ul > li`, the bench's ten selectors, descendants and
/// tables), where the tests answer (with a rule too where a type selector
/// is alone), and others where they must never answer (a class, a sibling,
/// a universal selector, an attribute key). The same for elements of names
/// outside the table of known names (`Program::unlisted_answered`: `<my-el>`,
/// and `<path>` in body, an HTML element) in programs that name only known
/// HTML names, and never in one that names another (`my-el`, SVG's `path`),
/// nor for a foreign element (SVG's `<section>`, which `section` matches).
#[test]
fn known_name_prefilter_is_the_full_path() {
    use crate::ElementInfo;
    use crate::matcher::{PREFILTERED, RULED, UNLISTED};
    // (selectors, answered in line (no rule), answered out of line (a rule,
    // or a formatting element followed in a program that is not flat),
    // elements of names outside the table answered)
    let programs: &[(&[&str], bool, bool, bool)] = &[
        (&["a[href]", "head"], true, false, true),
        (&["div", "p", "svg|rect", "title"], true, true, false),
        (&["a", "div", "p", "span", "img", "li", "script", "meta", "link[rel]", "ul > li"], true, true, true),
        (&["ul > li", "table td"], true, true, true),
        (&["div p", "b", "svg|rect", "tr"], true, true, false),
        (&["div p", "b", "tr"], true, true, true),
        (&["td > a", "select option", "option"], true, true, true),
        // Lowercase names: SVG's `foreignObject` is not `foreignobject`.
        (&["foreignobject", "clippath", "lineargradient", "svg"], true, true, false),
        (&["my-el", "div"], true, true, false),
        // SVG's `<section>` is no known name, and `section` matches it.
        (&["section", "div"], true, true, true),
        (&["path", "div > p"], true, true, false),
        (&["p.x"], false, false, false),
        (&["li + li"], false, false, false),
        (&["*"], false, false, false),
        (&["[href]"], false, false, false),
    ];
    let mut docs = htrewrite_testkit::html5lib::tree_construction_data();
    assert!(docs.len() > 1000, "html5lib cases read: {}", docs.len());
    // Names outside the table: in body, nested, under formatting elements
    // (the adoption agency moves them), foster-parented, in foreign content.
    docs.push((
        "unlisted names".to_owned(),
        b"<body><my-el><p>x</p></my-el><path>y</path><div><my-el><p>z</my-el></div><b><x-y><p>w</b>v</x-y>\
          <table><my-el>t</table><svg><my-el/><path/><section/></svg><ul><li><my-el><li>u</ul>"
            .to_vec(),
    ));
    let pages = htrewrite_testkit::corpus::vendored_html_pages();
    assert!(!pages.is_empty());
    for (name, path) in &pages {
        docs.push((name.clone(), std::fs::read(path).unwrap()));
    }
    let namespaces = crate::Namespaces::default().declare("svg", "http://www.w3.org/2000/svg");
    for &(selectors, unruled, ruled, unlisted) in programs {
        let lists: Vec<_> = selectors.iter().map(|s| crate::SelectorList::parse(s).unwrap()).collect();
        let program = Arc::new(Program::from_lists(&lists, &namespaces).unwrap());
        let (before, ruled_before, unlisted_before) = (PREFILTERED.get(), RULED.get(), UNLISTED.get());
        for (name, doc) in &docs {
            let mut with_test = Matcher::new(Arc::clone(&program));
            let mut full = Matcher::new(Arc::clone(&program));
            let sink = |e: Event<'_>| {
                if let Event::ElementOpened { id, name: el, ns, known, attrs, position, .. } = e {
                    let info = ElementInfo { id, name: el, ns, known, attrs, position };
                    let a = with_test.element_opened(&info).to_vec();
                    let b = full.element_opened_full(&info).to_vec();
                    assert_eq!(a, b, "{selectors:?}, {name}: the rules of <{el}>");
                } else {
                    with_test.event(&e);
                    full.event(&e);
                }
                assert_eq!(with_test.live_records(), full.live_records(), "{selectors:?}, {name}: kept records");
                // The formatting elements followed and the elements kept for moves count here.
                assert_eq!(with_test.held_bytes(), full.held_bytes(), "{selectors:?}, {name}: state kept");
            };
            let mut sink = ShadowSink::new(Shadow::new(ShadowOptions::default()), sink);
            let mut tokenizer = Tokenizer::new();
            tokenizer.feed(doc, &mut sink);
            tokenizer.finish(&mut sink);
            sink.finish();
        }
        let (taken, taken_ruled) = (PREFILTERED.get() - before, RULED.get() - ruled_before);
        assert_eq!(taken > 0, unruled, "{selectors:?}: {taken} elements answered in line by known name");
        assert_eq!(taken_ruled > 0, ruled, "{selectors:?}: {taken_ruled} elements answered out of line by known name");
        let taken_unlisted = UNLISTED.get() - unlisted_before;
        assert_eq!(taken_unlisted > 0, unlisted, "{selectors:?}: {taken_unlisted} elements of names outside the table");
    }
}
