//! Unit tests: the classic pitfalls as a data table (the stack of open
//! elements after each start tag), feedback, events, and linear time on
//! adversarial inputs (counted work, not time).

use htrewrite_tokenizer::{Feedback, Span, TextMode, Token, TokenKind, TokenSink, Tokenizer};

use crate::{
    CloseCause, Event, Namespace, NoEvents, OwnedEvent, Position, Shadow, ShadowAttr, ShadowOptions, ShadowSink,
    TagToken, TreeToken,
};

fn stack_string(shadow: &Shadow) -> String {
    let names: Vec<String> = shadow
        .open_elements()
        .map(|e| match e.ns() {
            Namespace::Html => e.name().to_owned(),
            Namespace::Svg => format!("svg:{}", e.name()),
            Namespace::MathMl => format!("math:{}", e.name()),
        })
        .collect();
    names.join(" ")
}

/// Records the stack after each start tag and the feedback after each token.
struct Tap {
    inner: ShadowSink<Vec<OwnedEvent>>,
    stacks: Vec<String>,
    modes: Vec<(String, TextMode)>,
}

impl crate::EventSink for Vec<OwnedEvent> {
    fn event(&mut self, e: Event<'_>) {
        self.push(OwnedEvent::from(&e));
    }
}

impl TokenSink for Tap {
    fn token(&mut self, token: &Token<'_>) -> Feedback {
        let f = self.inner.token(token);
        if token.kind() == TokenKind::StartTag {
            self.stacks.push(stack_string(self.inner.shadow()));
            self.modes.push((token.tag_name().into_owned(), f.text_mode));
        }
        f
    }

    fn cdata_allowed(&mut self) -> bool {
        self.inner.cdata_allowed()
    }
}

fn run(html: &str, scripting: bool) -> Tap {
    let shadow = Shadow::new(ShadowOptions { scripting, ..ShadowOptions::default() });
    let mut tap = Tap { inner: ShadowSink::new(shadow, Vec::new()), stacks: Vec::new(), modes: Vec::new() };
    let mut tokenizer = Tokenizer::new();
    tokenizer.feed(html.as_bytes(), &mut tap);
    tokenizer.finish(&mut tap);
    tap.inner.finish();
    tap
}

/// (name, input, scripting, the stack of open elements after each start tag).
const PITFALLS: &[(&str, &str, bool, &[&str])] = &[
    ("p-closed-by-div", "<p>a<div>b", true, &["html body p", "html body div"]),
    ("p-closed-by-table-no-quirks", "<!doctype html><p><table>", true, &["html body p", "html body table"]),
    ("p-not-closed-by-table-in-quirks", "<p><table>", true, &["html body p", "html body p table"]),
    ("p-closed-by-heading", "<p><h1>", true, &["html body p", "html body h1"]),
    ("heading-closes-heading", "<h1><h2>", true, &["html body h1", "html body h2"]),
    ("heading-end-tag-closes-any-heading", "<h1>a</h2><p>", true, &["html body h1", "html body p"]),
    ("li-implies-li", "<ul><li>a<li>b", true, &["html body ul", "html body ul li", "html body ul li"]),
    ("li-through-div", "<li><div><li>", true, &["html body li", "html body li div", "html body li"]),
    ("li-stops-at-special", "<li><p><li>", true, &["html body li", "html body li p", "html body li"]),
    ("nested-list-li", "<li><ul><li>", true, &["html body li", "html body li ul", "html body li ul li"]),
    ("dd-dt", "<dl><dt>a<dd>b<dt>c", true, &["html body dl", "html body dl dt", "html body dl dd", "html body dl dt"]),
    ("stray-p-end-tag", "</p><b>", true, &["html body b"]),
    ("br-end-tag-is-br", "<div></br><i>", true, &["html body div", "html body div i"]),
    ("nested-a", "<a><a>", true, &["html body a", "html body a"]),
    ("a-in-p-adoption", "<a><p>X<a>", true, &["html body a", "html body a p", "html body p a"]),
    ("nobr-in-nobr", "<nobr>a<nobr>", true, &["html body nobr", "html body nobr"]),
    ("adoption-b-p", "<b><p>x</b><i>", true, &["html body b", "html body b p", "html body p i"]),
    (
        "noahs-ark",
        "<b><b><b><b><p>x",
        true,
        &["html body b", "html body b b", "html body b b b", "html body b b b b", "html body b b b b p"],
    ),
    ("table-implies-tbody-tr", "<table><td>", true, &["html body table", "html body table tbody tr td"]),
    ("table-col-implies-colgroup", "<table><col>", true, &["html body table", "html body table colgroup"]),
    ("table-text-foster-parented", "<table>x<tr>", true, &["html body table", "html body table tbody tr"]),
    ("table-div-foster-parented", "<table><div>", true, &["html body table", "html body table div"]),
    (
        "input-hidden-in-table",
        "<table><input type=hidden><tr>",
        true,
        &["html body table", "html body table", "html body table tbody tr"],
    ),
    ("table-in-table-closes", "<table><table>", true, &["html body table", "html body table"]),
    (
        "cell-closes-cell",
        "<table><tr><td><td>",
        true,
        &["html body table", "html body table tbody tr", "html body table tbody tr td", "html body table tbody tr td"],
    ),
    (
        "caption",
        "<table><caption><tr>",
        true,
        &["html body table", "html body table caption", "html body table tbody tr"],
    ),
    (
        "template-contents",
        "<template><tr><td>",
        true,
        &["html head template", "html head template tr", "html head template tr td"],
    ),
    ("form-pointer", "<form><form><p>", true, &["html body form", "html body form", "html body form p"]),
    ("image-is-img", "<image><p>", true, &["html body", "html body p"]),
    ("frameset-after-p-replaces-body", "<p><frameset>", true, &["html body p", "html frameset"]),
    ("frameset-after-div-text-ignored", "<div>x<frameset>", true, &["html body div", "html body div"]),
    ("frameset-replaces-body", "<frameset><frame>", true, &["html frameset", "html frameset"]),
    ("noscript-scripting-on", "<noscript><p>", true, &["html head noscript"]),
    ("noscript-scripting-off", "<noscript><p>", false, &["html head noscript", "html body p"]),
    (
        "noscript-in-body-off",
        "<body><noscript><p>",
        false,
        &["html body", "html body noscript", "html body noscript p"],
    ),
    (
        "svg-title-is-integration-point",
        "<svg><title><p>",
        true,
        &["html body svg:svg", "html body svg:svg svg:title", "html body svg:svg svg:title p"],
    ),
    ("svg-breakout", "<svg><g><p>", true, &["html body svg:svg", "html body svg:svg svg:g", "html body p"]),
    (
        "svg-tag-case",
        "<svg><foreignobject><div>",
        true,
        &["html body svg:svg", "html body svg:svg svg:foreignObject", "html body svg:svg svg:foreignObject div"],
    ),
    (
        "math-mi-style",
        "<math><mi><style>",
        true,
        &["html body math:math", "html body math:math math:mi", "html body math:math math:mi style"],
    ),
    ("font-color-breaks-out", "<svg><font color=red>", true, &["html body svg:svg", "html body font"]),
    ("font-plain-stays", "<svg><font>", true, &["html body svg:svg", "html body svg:svg svg:font"]),
    (
        "annotation-xml-html",
        "<math><annotation-xml encoding=text/html><div>",
        true,
        &[
            "html body math:math",
            "html body math:math math:annotation-xml",
            "html body math:math math:annotation-xml div",
        ],
    ),
    (
        "annotation-xml-plain",
        "<math><annotation-xml><div>",
        true,
        &["html body math:math", "html body math:math math:annotation-xml", "html body div"],
    ),
    (
        "select-keeps-content",
        "<select><div><option>",
        true,
        &["html body select", "html body select div", "html body select div option"],
    ),
    ("select-in-select-closes", "<select><select><p>", true, &["html body select", "html body", "html body p"]),
    ("select-input-closes", "<select><input><p>", true, &["html body select", "html body", "html body p"]),
    (
        "select-option-implies-option",
        "<select><option><option>",
        true,
        &["html body select", "html body select option", "html body select option"],
    ),
    (
        "select-optgroup-closes-option",
        "<select><option><optgroup>",
        true,
        &["html body select", "html body select option", "html body select optgroup"],
    ),
    (
        "select-hr",
        "<select><option><hr><p>",
        true,
        &["html body select", "html body select option", "html body select", "html body select p"],
    ),
    ("select-style", "<select><style>", true, &["html body select", "html body select style"]),
    ("select-plaintext", "<select><plaintext><p>", true, &["html body select", "html body select plaintext"]),
    ("head-elements-after-head", "<head></head><meta><p>", true, &["html head", "html", "html body p"]),
    ("button-in-button", "<button><button>", true, &["html body button", "html body button"]),
    (
        "ruby",
        "<ruby><rb><rt><rp>",
        true,
        &["html body ruby", "html body ruby rb", "html body ruby rt", "html body ruby rp"],
    ),
    ("textarea", "<textarea><p>", true, &["html body textarea"]),
    ("body-attrs-merge", "<body a=1><body b=2><p>", true, &["html body", "html body", "html body p"]),
];

#[test]
fn pitfalls() {
    let mut failures = Vec::new();
    for &(name, html, scripting, expected) in PITFALLS {
        let tap = run(html, scripting);
        if tap.stacks != expected {
            failures.push(format!("{name}: {html:?}\n  expected {expected:?}\n  got      {:?}", tap.stacks));
        }
    }
    assert!(failures.is_empty(), "{} of {} pitfalls failed:\n{}", failures.len(), PITFALLS.len(), failures.join("\n"));
}

/// (input, scripting, the text mode fed back after each start tag).
const TEXT_MODES: &[(&str, bool, &[TextMode])] = &[
    ("<style>", true, &[TextMode::Rawtext]),
    ("<frameset><style>", true, &[TextMode::Data, TextMode::Data]),
    ("<noscript>", true, &[TextMode::Rawtext]),
    ("<noscript>", false, &[TextMode::Data]),
    ("<svg><style>", true, &[TextMode::Data, TextMode::Data]),
    ("<svg><title><style>", true, &[TextMode::Data, TextMode::Data, TextMode::Rawtext]),
    ("<select><style>", true, &[TextMode::Data, TextMode::Rawtext]),
    ("<select><plaintext>", true, &[TextMode::Data, TextMode::Plaintext]),
    ("<title>", true, &[TextMode::Rcdata]),
    ("<textarea>", true, &[TextMode::Rcdata]),
    ("<script>", true, &[TextMode::ScriptData]),
    ("<xmp>", true, &[TextMode::Rawtext]),
    ("<body><iframe>", true, &[TextMode::Data, TextMode::Rawtext]),
];

#[test]
fn text_modes() {
    for &(html, scripting, expected) in TEXT_MODES {
        let tap = run(html, scripting);
        let got: Vec<TextMode> = tap.modes.iter().map(|m| m.1).collect();
        assert_eq!(got, expected, "{html:?} scripting={scripting}");
    }
}

#[test]
fn cdata_allowed_in_foreign_content() {
    let mut shadow = Shadow::new(ShadowOptions::default());
    let svg = TagToken::new("svg", vec![]);
    shadow.process_tree_token(TreeToken::StartTag(&svg), Span::default(), &mut NoEvents);
    assert!(shadow.cdata_allowed());
    let end = TagToken::new("svg", vec![]);
    shadow.process_tree_token(TreeToken::EndTag(&end), Span::default(), &mut NoEvents);
    assert!(!shadow.cdata_allowed());
}

/// A foreign name with ASCII uppercase letters, which only `TagToken::new`
/// can make (the tokenizer lowercases tag names), keeps its case in the
/// stack, while the foreign end-tag steps find it by its lowercased name;
/// the same for a known name in another case than the table's. The stack
/// keeps such names aside: entries name elements by key.
#[test]
fn cased_foreign_names_keep_their_case() {
    let mut shadow = Shadow::new(ShadowOptions::default());
    let start = |shadow: &mut Shadow, name: &str| {
        let tag = TagToken::new(name, vec![]);
        shadow.process_tree_token(TreeToken::StartTag(&tag), Span::default(), &mut NoEvents);
    };
    let end = |shadow: &mut Shadow, name: &str| {
        let tag = TagToken::new(name, vec![]);
        shadow.process_tree_token(TreeToken::EndTag(&tag), Span::default(), &mut NoEvents);
    };
    start(&mut shadow, "svg");
    start(&mut shadow, "FOO");
    start(&mut shadow, "g");
    start(&mut shadow, "Foo");
    start(&mut shadow, "FOREIGNOBJECT");
    start(&mut shadow, "ClipPath");
    assert_eq!(stack_string(&shadow), "html body svg:svg svg:FOO svg:g svg:Foo svg:FOREIGNOBJECT svg:ClipPath");
    end(&mut shadow, "clippath");
    assert_eq!(stack_string(&shadow), "html body svg:svg svg:FOO svg:g svg:Foo svg:FOREIGNOBJECT");
    end(&mut shadow, "foreignobject");
    assert_eq!(stack_string(&shadow), "html body svg:svg svg:FOO svg:g svg:Foo");
    // The topmost of the two elements whose lowercased name is `foo`.
    end(&mut shadow, "foo");
    assert_eq!(stack_string(&shadow), "html body svg:svg svg:FOO svg:g");
    end(&mut shadow, "foo");
    assert_eq!(stack_string(&shadow), "html body svg:svg");
    assert!(shadow.b.stack.check_invariants().is_ok());
}

#[test]
fn pre_drops_leading_newline() {
    let tap = run("<pre>\nx</pre>", true);
    let (_, events) = tap.inner.into_parts();
    let texts: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            OwnedEvent::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(texts, ["x"]);
}

#[test]
fn foster_parenting_inserts_before_table() {
    let tap = run("<table>x</table>", true);
    let (_, events) = tap.inner.into_parts();
    let table = events
        .iter()
        .find_map(|e| match e {
            OwnedEvent::ElementOpened { id, name, .. } if name == "table" => Some(*id),
            _ => None,
        })
        .expect("table");
    assert!(events.iter().any(|e| matches!(
        e,
        OwnedEvent::Text { position: Position::InsertBefore { before, .. }, text } if *before == table && text == "x"
    )));
}

#[test]
fn end_tag_closing_cause() {
    let tap = run("<p>a</p>", true);
    let (_, events) = tap.inner.into_parts();
    assert!(events.iter().any(|e| matches!(e, OwnedEvent::ElementClosed { cause: CloseCause::EndTag { span }, .. } if *span == Span::new(4, 8))));
}

#[test]
fn attributes_merged_into_body() {
    let tap = run("<body a=1><body a=2 b=3>", true);
    let (_, events) = tap.inner.into_parts();
    let added: Vec<&Vec<ShadowAttr>> = events
        .iter()
        .filter_map(|e| match e {
            OwnedEvent::AttributesAdded { attrs, .. } => Some(attrs),
            _ => None,
        })
        .collect();
    assert_eq!(added, [&vec![ShadowAttr::new("b", "3")]]);
}

// ----- linear time -----

enum T {
    S(&'static str, Vec<ShadowAttr>),
    E(&'static str),
    X(&'static str),
}

/// The work of feeding `tokens`: the data structures' counted steps
/// (`crate::work`) plus the events.
fn feed(tokens: &[T]) -> u64 {
    let before = crate::work::counted();
    let mut shadow = Shadow::new(ShadowOptions::default());
    let mut count = 0usize;
    let mut sink = |_: Event<'_>| count += 1;
    for t in tokens {
        match t {
            T::S(n, a) => {
                let tag = TagToken::new(*n, a.clone());
                shadow.process_tree_token(TreeToken::StartTag(&tag), Span::default(), &mut sink);
            }
            T::E(n) => {
                let tag = TagToken::new(*n, vec![]);
                shadow.process_tree_token(TreeToken::EndTag(&tag), Span::default(), &mut sink);
            }
            T::X(s) => {
                shadow.process_tree_token(TreeToken::Text(s), Span::default(), &mut sink);
            }
        }
    }
    shadow.finish(&mut sink);
    crate::work::counted() - before + count as u64
}

/// The work of tokenizing `html` and feeding the tokens (as [`feed`]).
fn feed_html(html: &[u8]) -> u64 {
    let before = crate::work::counted();
    let mut count = 0u64;
    let mut sink = ShadowSink::new(Shadow::new(ShadowOptions::default()), |_: Event<'_>| count += 1);
    let mut tokenizer = Tokenizer::new();
    tokenizer.feed(html, &mut sink);
    tokenizer.finish(&mut sink);
    sink.finish();
    drop(sink);
    crate::work::counted() - before + count
}

fn id(k: usize) -> Vec<ShadowAttr> {
    vec![ShadowAttr::new("id", k.to_string())]
}

type Gen = fn(usize) -> Vec<T>;

const ADVERSARIAL: &[(&str, Gen)] = &[
    ("unclosed-formatting", |n| (0..n).map(|_| T::S("b", vec![])).chain([T::X("x")]).collect()),
    ("unclosed-distinct-formatting", |n| {
        let mut v: Vec<T> = (0..n).map(|k| T::S("b", id(k))).collect();
        v.push(T::X("x"));
        v.extend((0..n).map(|_| T::E("b")));
        v
    }),
    ("noahs-ark-churn", |n| {
        let mut v: Vec<T> = (0..3).map(|_| T::S("b", vec![])).collect();
        v.extend((0..n).map(|k| T::S("i", id(k))));
        v.extend((0..n).map(|_| T::S("b", vec![])));
        v
    }),
    ("deep-divs-stray-end-tags", |n| (0..n).map(|_| T::S("div", vec![])).chain((0..n).map(|_| T::E("span"))).collect()),
    ("deep-spans-stray-end-tags", |n| (0..n).map(|_| T::S("span", vec![])).chain((0..n).map(|_| T::E("x"))).collect()),
    ("deep-spans-li", |n| {
        let mut v: Vec<T> = (0..n).map(|_| T::S("span", vec![])).collect();
        for _ in 0..n {
            v.push(T::S("li", vec![]));
            v.push(T::E("li"));
        }
        v
    }),
    ("nested-tables", |n| {
        let mut v = Vec::new();
        for _ in 0..n {
            v.extend([T::S("table", vec![]), T::S("tr", vec![]), T::S("td", vec![])]);
        }
        v.push(T::X("x"));
        v.extend((0..n).map(|_| T::E("table")));
        v
    }),
    ("deep-spans-table-reset", |n| {
        let mut v: Vec<T> = (0..n).map(|_| T::S("span", vec![])).collect();
        for _ in 0..n {
            v.push(T::S("table", vec![]));
            v.push(T::E("table"));
        }
        v
    }),
    ("deep-svg-stray-end-tags", |n| {
        let mut v = vec![T::S("svg", vec![])];
        v.extend((0..n).map(|_| T::S("g", vec![])));
        v.extend((0..n).map(|_| T::E("x")));
        v.extend((0..n).map(|_| T::E("g")));
        v
    }),
    ("adoption-deep-divs-stray-formatting-end-tags", |n| {
        let mut v = vec![T::S("b", vec![])];
        v.extend((0..n).map(|_| T::S("div", vec![])));
        v.extend((0..n).map(|_| T::E("b")));
        v
    }),
    ("many-body-attributes", |n| {
        let mut v = vec![T::S("body", vec![])];
        v.extend((0..n).map(|k| T::S("body", vec![ShadowAttr::new(format!("a{k}"), "")])));
        v
    }),
    ("noahs-ark-many-attributes", |n| {
        let attrs: Vec<ShadowAttr> = (0..n / 4).map(|k| ShadowAttr::new(format!("a{k}"), "v")).collect();
        (0..8).map(|_| T::S("b", attrs.clone())).collect()
    }),
    ("many-a", |n| (0..n).map(|_| T::S("a", vec![])).collect()),
    ("many-nobr", |n| (0..n).map(|_| T::S("nobr", vec![])).collect()),
    ("deep-spans-in-select-options", |n| {
        let mut v = vec![T::S("select", vec![])];
        v.extend((0..n).map(|_| T::S("span", vec![])));
        v.extend((0..n).map(|_| T::S("option", vec![])));
        v
    }),
];

/// Asserts that the work at 4n is at most 4.5 times the work at n.
fn assert_linear(name: &str, n: usize, work: impl Fn(usize) -> u64) {
    let (w1, w4) = (work(n), work(4 * n));
    assert!(w4 * 2 <= w1 * 9, "{name}: work {w1} at n = {n}, {w4} at 4n: not linear");
}

#[test]
fn adversarial_inputs_are_linear() {
    for &(name, make) in ADVERSARIAL {
        assert_linear(name, 2_000, |n| feed(&make(n)));
    }
}

/// Generated documents: `(name, prefix, [unit repeated n times, in order], suffix)`.
const ADVERSARIAL_HTML: &[(&str, &str, &[&str], &str)] = &[
    // Each `</b>` runs the adoption agency, which removes a `span` from the
    // middle of the stack (quadratic before the stack had holes: 120 KB took 9.4 s).
    ("adoption-agency-middle-removal", "<b>", &["<span><div>", "</b>"], ""),
    // The same with the `div`s closed afterwards (the holes trimmed from the top).
    ("adoption-agency-middle-removal-closed", "<b>", &["<span><div>", "</b>", "</div>"], "x"),
    // Each `<a>` in a table finds the previous `a` out of scope below the
    // table and removes it from the middle of the stack.
    ("a-in-tables", "", &["<a><table>"], ""),
    // `</form>` removes the form from below deep content.
    ("form-end-under-deep-divs", "", &["<form><div><div>", "</form>"], ""),
    // Noah's Ark kills the earliest of three equal elements, below n other `b`s.
    ("noahs-ark-below-distinct", "", &["<b class=g><b class=g><b class=g><i>", "<b id=d>", "<b class=g>"], ""),
    // The adoption agency with a bookmark: the clone of an `i` inside.
    ("adoption-agency-bookmark", "<b><i><div>", &["<s>", "</b><b><i><div>"], "x"),
];

fn html_shape(prefix: &str, units: &[&str], suffix: &str, n: usize) -> Vec<u8> {
    let mut out = prefix.as_bytes().to_vec();
    for unit in units {
        out.extend_from_slice(unit.repeat(n).as_bytes());
    }
    out.extend_from_slice(suffix.as_bytes());
    out
}

#[test]
fn adversarial_documents_are_linear() {
    for &(name, prefix, units, suffix) in ADVERSARIAL_HTML {
        assert_linear(name, 2_000, |n| feed_html(&html_shape(prefix, units, suffix, n)));
    }
}

/// Element names outside the table, each used once and closed: the stack
/// forgets unused keys past a few hundred and hands them out again with
/// their (empty) index lists, so what it holds does not grow with the number
/// of names a page uses.
#[test]
fn unique_names_keep_the_stack_bounded() {
    let held = |n: usize| {
        let mut shadow = Shadow::new(ShadowOptions::default());
        for i in 0..n {
            let tag = TagToken::new(format!("x-{i}"), vec![]);
            shadow.process_tree_token(TreeToken::StartTag(&tag), Span::default(), &mut NoEvents);
            shadow.process_tree_token(TreeToken::EndTag(&tag), Span::default(), &mut NoEvents);
        }
        assert!(shadow.b.stack.check_invariants().is_ok());
        shadow.held_bytes()
    };
    let (small, large) = (held(2_000), held(8_000));
    assert!(large <= small + 1024, "held {small} bytes after 2,000 names, {large} after 8,000");
}

#[test]
fn adversarial_documents_keep_indexes_right() {
    for &(name, prefix, units, suffix) in ADVERSARIAL_HTML {
        let html = html_shape(prefix, units, suffix, 150);
        check_indexes(std::str::from_utf8(&html).expect(name), true);
    }
    // Enough holes at once to compact the stack.
    check_indexes(&format!("<p><b>{}<div></b><i>x{}", "<span>".repeat(200), "<em>".repeat(70)), true);
    // Other names' keys: remembered (`Stack::recent`), freed past 256 in use,
    // handed out again to a name of another namespace and to another name.
    let open: String = (0..300).map(|i| format!("<x-{i}>")).collect();
    check_indexes(
        &format!(
            "{open}</x-299><svg><x-299/><x-298></x-298><X-1/><y-1/></svg><x-299><x-298></x-298><x-1>\
             <math><x-299/></math><x-298></x-298></x-299>"
        ),
        true,
    );
}

// ----- robustness: random tag soup -----

const VOCABULARY: &[&str] = &[
    "html",
    "head",
    "body",
    "p",
    "div",
    "span",
    "a",
    "b",
    "i",
    "nobr",
    "font",
    "table",
    "tbody",
    "tr",
    "td",
    "th",
    "caption",
    "col",
    "colgroup",
    "select",
    "option",
    "optgroup",
    "hr",
    "input",
    "button",
    "li",
    "ul",
    "dd",
    "dt",
    "svg",
    "math",
    "mi",
    "annotation-xml",
    "foreignobject",
    "desc",
    "title",
    "template",
    "form",
    "frameset",
    "frame",
    "noscript",
    "style",
    "script",
    "textarea",
    "pre",
    "plaintext",
    "h1",
    "h2",
    "br",
    "image",
    "marquee",
    "object",
    "applet",
    "ruby",
    "rt",
    "rp",
    "selectedcontent",
    "iframe",
    "xmp",
    "noframes",
    "head",
    "meta",
    "keygen",
    "g",
];

#[test]
fn random_tag_soup_keeps_events_consistent() {
    random_soup(VOCABULARY, 0x5eed_1234_abcd_0001, 0, 1);
}

/// Formatting elements among blocks: the adoption agency's territory.
const FORMATTING_VOCABULARY: &[&str] =
    &["a", "b", "i", "b", "i", "nobr", "div", "p", "span", "table", "td", "li", "address"];

/// The formatting soup's 3,000 cases in the tests listed, case `i` in the
/// `i % n`-th of the `n` tests (its place in the list): the harness runs them
/// side by side (in one test they took 26 s of one core), and each case is
/// in exactly one.
macro_rules! formatting_soup_tests {
    ($($test:ident),* $(,)?) => {
        const FORMATTING_SOUP_TESTS: &[&str] = &[$(stringify!($test)),*];
        $(
            #[test]
            fn $test() {
                let part = FORMATTING_SOUP_TESTS.iter().position(|t| *t == stringify!($test)).expect("listed");
                random_soup(FORMATTING_VOCABULARY, 0xada9_7105, part, FORMATTING_SOUP_TESTS.len());
            }
        )*
    };
}

formatting_soup_tests!(
    random_formatting_soup_keeps_events_consistent_0,
    random_formatting_soup_keeps_events_consistent_1,
    random_formatting_soup_keeps_events_consistent_2,
    random_formatting_soup_keeps_events_consistent_3,
);

/// 3,000 random documents of `vocabulary` from `seed` (the first 800 with
/// the indexes checked after every token, [`check_indexes`]): the stack is
/// empty at the end and every element opened is closed once. Only part
/// `part` of `parts` of the cases is checked ([`htrewrite_testkit::Part`]:
/// all are generated, so a case's document does not depend on the split).
fn random_soup(vocabulary: &[&str], seed: u64, part: usize, parts: usize) {
    let part = htrewrite_testkit::Part::new(part, parts);
    use std::collections::HashMap;
    let mut seed = seed;
    let mut next = move |n: usize| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((seed >> 33) as usize) % n
    };
    for case in 0..3000 {
        let mut html = String::new();
        for _ in 0..next(200) + 1 {
            let name = vocabulary[next(vocabulary.len())];
            match next(6) {
                0 | 1 => html.push_str(&format!("<{name}>")),
                2 => html.push_str(&format!("</{name}>")),
                3 => html.push_str(&format!("<{name} id={} color=red encoding=text/html selected>", next(3))),
                4 => html.push_str(["x", " ", "\0", "\n", "<!--c-->", "<?pi x>", "<![CDATA[d]]>"][next(7)]),
                _ => html.push_str(&format!("<{name}/>")),
            }
        }
        if !part.takes() {
            continue;
        }
        for scripting in [true, false] {
            if case < 800 {
                check_indexes(&html, scripting);
            }
            let tap = run(&html, scripting);
            let (shadow, events) = tap.inner.into_parts();
            assert!(shadow.open_elements().len() == 0, "case {case} {html:?}: stack not empty at the end");
            let mut open: HashMap<crate::NodeId, usize> = HashMap::new();
            for e in &events {
                match e {
                    OwnedEvent::ElementOpened { id, .. } => {
                        assert!(open.insert(*id, 0).is_none(), "case {case} {html:?}: {id:?} opened twice");
                    }
                    OwnedEvent::ElementClosed { id, .. } => {
                        let n = open.get_mut(id).unwrap_or_else(|| panic!("case {case} {html:?}: {id:?} unknown"));
                        *n += 1;
                    }
                    _ => {}
                }
            }
            // Every element is closed exactly once (the adoption agency's clones included).
            for (id, n) in &open {
                assert_eq!(*n, 1, "case {case} {html:?}: {id:?} closed {n} times");
            }
        }
    }
}

/// Feeds `html` and, after every token, compares the stack's and the list's
/// indexes with a recomputation from scratch.
fn check_indexes(html: &str, scripting: bool) {
    struct Check(Shadow, String);
    impl TokenSink for Check {
        fn token(&mut self, token: &Token<'_>) -> Feedback {
            let f = self.0.process(token, &mut NoEvents);
            let raw = String::from_utf8_lossy(token.raw());
            if let Err(e) = self.0.b.stack.check_invariants().and_then(|()| self.0.b.fmt.check_invariants()) {
                panic!("{:?}: after {raw:?}: {e}", self.1);
            }
            if let Err(e) = compare_with_naive_walks(&self.0) {
                panic!("{:?}: after {raw:?}: {e}", self.1);
            }
            // The O(1) views agree with the hole-free copy of the stack.
            assert_eq!(self.0.open_element_count(), self.0.open_elements().len(), "{:?}: after {raw:?}", self.1);
            assert_eq!(self.0.current_node(), self.0.open_elements().last(), "{:?}: after {raw:?}", self.1);
            f
        }
        fn cdata_allowed(&mut self) -> bool {
            self.0.cdata_allowed()
        }
    }
    let mut sink = Check(Shadow::new(ShadowOptions { scripting, ..ShadowOptions::default() }), html.to_owned());
    let mut tokenizer = Tokenizer::new();
    tokenizer.feed(html.as_bytes(), &mut sink);
    tokenizer.finish(&mut sink);
}

/// The spec's walks down the stack, written out naively, against the indexed
/// O(1) answers the shadow uses.
fn compare_with_naive_walks(shadow: &Shadow) -> Result<(), String> {
    use crate::mode::InsertionMode as M;
    use crate::tags::cat;
    let b = &shadow.b;
    let items = b.stack.items();
    let walk = |found: &dyn Fn(&crate::OpenElement) -> bool, stop: &dyn Fn(&crate::OpenElement) -> bool| {
        for (i, e) in items.iter().enumerate().rev() {
            if found(e) {
                return Some(i);
            }
            if stop(e) {
                return None;
            }
        }
        None
    };
    // Every indexed category's topmost member (some categories' lists hold
    // only what another category lacks: the stack's `index_lists`).
    for c in (0..cat::INDEXED).map(|bit| 1u16 << bit) {
        let naive = items.iter().rposition(|e| e.has(c));
        if naive != b.stack.topmost_cat(c) {
            return Err(format!("topmost of category {c:#x}: naive {naive:?}, fast {:?}", b.stack.topmost_cat(c)));
        }
    }
    for &name in VOCABULARY {
        for scope in [cat::SCOPE, cat::LIST_ITEM_SCOPE, cat::BUTTON_SCOPE, cat::TABLE_SCOPE] {
            let naive = walk(&|e| b.stack.is_html(e, name), &|e| e.has(scope)).is_some();
            if naive != b.stack.has_in_scope_of(&[name], scope) {
                return Err(format!("{name} in scope {scope:#x}: naive says {naive}"));
            }
        }
        // "any other end tag" in body.
        let naive = walk(&|e| b.stack.is_html(e, name), &|e| e.has(cat::SPECIAL));
        let fast = b
            .stack
            .topmost(Namespace::Html, name)
            .filter(|&i| b.stack.topmost_cat(cat::SPECIAL).is_none_or(|s| i >= s));
        if naive != fast {
            return Err(format!("any other end tag {name}: naive {naive:?}, fast {fast:?}"));
        }
        // Foreign content's end tag walk (lowercased names, stops at an HTML element).
        if items.len() > 1 && !items.last().expect("non-empty").has(cat::HTML) {
            let mut naive = None;
            for (i, e) in items.iter().enumerate().rev() {
                if i == 0 {
                    break;
                }
                if e.ns != Namespace::Html && b.stack.name(e).eq_ignore_ascii_case(name) {
                    naive = Some(i);
                    break;
                }
                if e.has(cat::HTML) {
                    break;
                }
            }
            let html = b.stack.topmost_cat(cat::HTML);
            let fast = [Namespace::Svg, Namespace::MathMl]
                .iter()
                .filter_map(|&ns| b.stack.topmost(ns, name))
                .max()
                .filter(|&i| i > 0 && html.is_none_or(|h| i > h));
            if naive != fast {
                return Err(format!("foreign end tag {name}: naive {naive:?}, fast {fast:?}"));
            }
        }
    }
    // The <li> loop.
    let naive = walk(&|e| b.stack.is_html(e, "li"), &|e| {
        e.has(cat::SPECIAL) && !matches!(b.stack.name(e), "address" | "div" | "p")
    });
    let fast = b
        .stack
        .topmost(Namespace::Html, "li")
        .filter(|&i| b.stack.topmost_cat(cat::SPECIAL_NOT_ADP).is_none_or(|s| i >= s));
    if naive != fast {
        return Err(format!("li loop: naive {naive:?}, fast {fast:?}"));
    }
    // Resetting the insertion mode, the spec's loop written out.
    if !items.is_empty() {
        let mut naive = M::InBody;
        for i in (0..items.len()).rev() {
            let last = i == 0;
            let (ns, name) = match (&b.context, last) {
                (Some(c), true) => (c.ns, &*c.name),
                _ => (items[i].ns, b.stack.name(&items[i])),
            };
            let m = if ns != Namespace::Html {
                None
            } else {
                match name {
                    "td" | "th" if !last => Some(M::InCell),
                    "tr" => Some(M::InRow),
                    "tbody" | "thead" | "tfoot" => Some(M::InTableBody),
                    "caption" => Some(M::InCaption),
                    "colgroup" => Some(M::InColumnGroup),
                    "table" => Some(M::InTable),
                    "template" => Some(*b.template_modes.last().unwrap_or(&M::InTemplate)),
                    "head" if !last => Some(M::InHead),
                    "body" => Some(M::InBody),
                    "frameset" => Some(M::InFrameset),
                    "html" => Some(if b.head.is_none() { M::BeforeHead } else { M::AfterHead }),
                    _ => None,
                }
            };
            if let Some(m) = m {
                naive = m;
                break;
            }
            if last {
                break;
            }
        }
        let mut clone = b.clone();
        clone.reset_insertion_mode();
        if clone.mode != naive {
            return Err(format!("reset the insertion mode: naive {naive:?}, fast {:?}", clone.mode));
        }
    }
    Ok(())
}

#[test]
fn closing_cause_of_text_ignores_whitespace_references() {
    // "in head": the first non-whitespace character closes head, wherever the text is cut.
    let html = "<head>&#32;&Tab;x";
    let whole = run(html, true).inner.into_parts().1;
    let closes = |events: &[OwnedEvent]| -> Vec<CloseCause> {
        events
            .iter()
            .filter_map(|e| if let OwnedEvent::ElementClosed { cause, .. } = e { Some(*cause) } else { None })
            .collect()
    };
    assert!(closes(&whole).contains(&CloseCause::Implied { by: Span::new(16, 17) }), "{whole:?}");
    for cut in 6..html.len() {
        let shadow = Shadow::new(ShadowOptions::default());
        let mut tap = Tap { inner: ShadowSink::new(shadow, Vec::new()), stacks: Vec::new(), modes: Vec::new() };
        let mut tokenizer = Tokenizer::new();
        tokenizer.feed(&html.as_bytes()[..cut], &mut tap);
        tokenizer.feed(&html.as_bytes()[cut..], &mut tap);
        tokenizer.finish(&mut tap);
        tap.inner.finish();
        assert_eq!(closes(&tap.inner.into_parts().1), closes(&whole), "cut at {cut}");
    }
}

/// Fuzz finding `tokenizer_shadow/column-group-in-template-text.bin`
/// (2026-11-25): "in column group" with a `template` as the current node
/// ignores each character that is not whitespace, one at a time, and still
/// inserts the whitespace after it; the whole text was dropped from its
/// first such character on, so the events depended on where the text was cut.
#[test]
fn column_group_in_template_keeps_whitespace_between_ignored_characters() {
    let html = "<template><col>a b\r\nc&#13;</template>";
    let events = run(html, true).inner.into_parts().1;
    let text: String = events
        .iter()
        .filter_map(|e| match e {
            OwnedEvent::Text { position: Position::AppendToTemplateContents { .. }, text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(text, " \n\r", "{events:?}");
}

#[test]
fn declarative_shadow_root_only_when_allowed() {
    use crate::{EventSink, NodeId};
    #[derive(Default)]
    struct Rec(Vec<OwnedEvent>, Vec<(NodeId, NodeId)>);
    impl EventSink for Rec {
        fn event(&mut self, e: Event<'_>) {
            self.0.push(OwnedEvent::from(&e));
        }
        fn attach_declarative_shadow_root(&mut self, host: NodeId, template: NodeId) {
            self.1.push((host, template));
        }
    }
    let html = b"<div><template shadowrootmode=open><p>x</template></div><span><template shadowrootmode=bogus>";
    for allowed in [false, true] {
        let o = ShadowOptions { declarative_shadow_roots: allowed, ..ShadowOptions::default() };
        let mut sink = ShadowSink::new(Shadow::new(o), Rec::default());
        let mut tokenizer = Tokenizer::new();
        tokenizer.feed(html, &mut sink);
        tokenizer.finish(&mut sink);
        sink.finish();
        let (_, rec) = sink.into_parts();
        let opened = |name: &'static str| -> Vec<(NodeId, Position)> {
            rec.0
                .iter()
                .filter_map(|e| match e {
                    OwnedEvent::ElementOpened { id, name: n, position, .. } if n == name => Some((*id, *position)),
                    _ => None,
                })
                .collect()
        };
        let (div, _) = opened("div")[0];
        let templates = opened("template");
        assert_eq!(templates.len(), 2);
        if allowed {
            assert_eq!(rec.1, [(div, templates[0].0)]);
            assert_eq!(templates[0].1, Position::Detached);
        } else {
            assert!(rec.1.is_empty());
            assert_eq!(templates[0].1, Position::Append { parent: div });
        }
        // The bogus mode never attaches.
        assert!(matches!(templates[1].1, Position::Append { .. }));
        let (_, p) = opened("p")[0];
        assert_eq!(p, Position::AppendToTemplateContents { template: templates[0].0 });
    }
}

/// A sink that declines text and start tags' attributes gets the events a
/// full sink gets, less those: the text events without characters, the
/// elements of start tags without attributes, no attributes added to
/// `html` or `body` (as `EventSink::wants_text` and
/// `EventSink::wants_start_tag_attributes` say), on the places where tree
/// construction reads characters or attributes itself. (The html5lib
/// harness compares the same on every tree-construction case.)
#[test]
fn declining_sinks_get_the_same_events_less_text_and_attributes() {
    use crate::EventSink;
    struct Declining(Vec<OwnedEvent>);
    impl EventSink for Declining {
        fn event(&mut self, e: Event<'_>) {
            self.0.push(OwnedEvent::from(&e));
        }
        fn wants_text(&self) -> bool {
            false
        }
        fn wants_start_tag_attributes(&self, _: &str) -> bool {
            false
        }
    }
    let documents = [
        "\n <!doctype html>\n<html lang=en>\n <head> <title>t</title>\n </head>\n <body class=x> <p>a\0b\0</p><body id=y>",
        "<pre>\n\nx</pre><listing>\r\ny</listing><textarea>\nz</textarea>",
        "<table> <tr> <td>a</td> x<input type=hidden><input type=text></table>",
        "<b class=x><b class=x><b class=x><b class=y><p>1</b>2<a href=h>3<div>4</a>5",
        "<svg><font color=red>x</font><desc>y</desc></svg><math><annotation-xml encoding=text/html><p>z",
        "<select><selectedcontent></selectedcontent><option>a<option selected>b</select>",
        "<frameset> <frame> </frameset> \n",
        "a &#32;&amp; <script>x\0y</script>\0 <template> t </template></html> \n",
    ];
    /// Takes attributes, not their values.
    struct DecliningValues(Vec<OwnedEvent>);
    impl EventSink for DecliningValues {
        fn event(&mut self, e: Event<'_>) {
            self.0.push(OwnedEvent::from(&e));
        }
        fn wants_start_tag_attribute_values(&self, _: &str) -> bool {
            false
        }
    }
    fn events<E: EventSink>(html: &str, events: E) -> E {
        let mut sink = ShadowSink::new(Shadow::new(ShadowOptions::default()), events);
        let mut tokenizer = Tokenizer::new();
        tokenizer.feed(html.as_bytes(), &mut sink);
        tokenizer.finish(&mut sink);
        sink.finish();
        sink.into_parts().1
    }
    for html in documents {
        let full = run(html, true).inner.into_parts().1;
        let declined = events(html, Declining(Vec::new())).0;
        let expected = OwnedEvent::as_declined_by(&full, &Declining(Vec::new()));
        assert_eq!(declined, expected, "{html:?}");
        let without_values = events(html, DecliningValues(Vec::new())).0;
        let expected = OwnedEvent::as_declined_by(&full, &DecliningValues(Vec::new()));
        assert_eq!(without_values, expected, "values declined: {html:?}");
        // Some value was declined (the projection is not the identity here).
        if html.contains("class=x") {
            assert_ne!(without_values, full, "{html:?}");
        }
    }
}

/// [`crate::is_formatting`] and [`crate::is_special`] hold exactly the
/// Standard's lists (§ 13.2.4.3, "formatting" and "special"), in their
/// namespaces only.
#[test]
fn formatting_and_special_categories() {
    use crate::{Namespace as N, is_formatting, is_special};
    let formatting = ["a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt", "u"];
    let special_html = [
        "address",
        "applet",
        "area",
        "article",
        "aside",
        "base",
        "basefont",
        "bgsound",
        "blockquote",
        "body",
        "br",
        "button",
        "caption",
        "center",
        "col",
        "colgroup",
        "dd",
        "details",
        "dir",
        "div",
        "dl",
        "dt",
        "embed",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "frame",
        "frameset",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "head",
        "header",
        "hgroup",
        "hr",
        "html",
        "iframe",
        "img",
        "input",
        "keygen",
        "li",
        "link",
        "listing",
        "main",
        "marquee",
        "menu",
        "meta",
        "nav",
        "noembed",
        "noframes",
        "noscript",
        "object",
        "ol",
        "p",
        "param",
        "plaintext",
        "pre",
        "script",
        "search",
        "section",
        "select",
        "source",
        "style",
        "summary",
        "table",
        "tbody",
        "td",
        "template",
        "textarea",
        "tfoot",
        "th",
        "thead",
        "title",
        "tr",
        "track",
        "ul",
        "wbr",
        "xmp",
    ];
    let others = ["span", "em2", "bb", "ab", "tb", "strik", "sup", "var", "label", "option", "svg", "math", "x"];
    // Every formatting and special name is known (`KnownName`'s promise):
    // whatever has no known name is neither.
    let svg_special = ["foreignObject", "desc", "title"];
    let mathml_special = ["mi", "mo", "mn", "ms", "mtext", "annotation-xml"];
    for (ns, names) in [
        (N::Html, &formatting[..]),
        (N::Html, &special_html[..]),
        (N::Svg, &svg_special[..]),
        (N::MathMl, &mathml_special[..]),
    ] {
        for n in names {
            assert!(crate::KnownName::of(ns, n).is_some(), "{ns:?} {n} is formatting or special, and not known");
        }
    }
    for k in crate::KnownName::all() {
        let (ns, n) = (k.namespace(), k.name());
        let listed = match ns {
            N::Html => formatting.contains(&n) || special_html.contains(&n),
            N::Svg => svg_special.contains(&n),
            N::MathMl => mathml_special.contains(&n),
        };
        assert_eq!(is_formatting(ns, n) || is_special(ns, n), listed, "{ns:?} {n}");
    }
    for n in formatting {
        assert!(is_formatting(N::Html, n) && !is_special(N::Html, n), "{n}");
        assert!(!is_formatting(N::Svg, n) && !is_formatting(N::MathMl, n), "{n}");
    }
    for n in special_html {
        assert!(is_special(N::Html, n) && !is_formatting(N::Html, n), "{n}");
    }
    for n in others {
        assert!(!is_special(N::Html, n) && !is_formatting(N::Html, n), "{n}");
    }
    for n in mathml_special {
        assert!(is_special(N::MathMl, n) && !is_special(N::Svg, n), "{n}");
    }
    for n in svg_special {
        assert!(is_special(N::Svg, n), "{n}");
    }
    assert!(!is_special(N::Svg, "div") && !is_special(N::MathMl, "p") && !is_special(N::Svg, "foreignobject"));
}
