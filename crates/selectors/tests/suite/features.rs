//! Unit tests per feature, as data: each case is a named, filterable test.
//!
//! - `match::*`: (name, document, selector, expected start tags as written in
//!   the document, in order). Examples follow the Selectors Level 4 spec's,
//!   with a negative case beside each positive one. Every document is fed
//!   whole, split at every byte, and in seeded random splits (the seed is in
//!   the failure message): the matches must not depend on chunking.
//! - `unsourced::*`: matched elements without a start tag.
//! - `error::*`: refused selectors and their messages.
//! - `roundtrip::*`: parse → display → parse is stable.
//! - `robust::*`: any text parses or is refused without a panic; nesting up to
//!   `MAX_NESTING` works on a small stack, deeper is `ErrorKind::TooDeep`.
//!
//! Linear time and bounded state on hostile shapes are unit tests
//! (`src/tests.rs`, `tests::adversarial_*`): they count the matcher's work
//! instead of timing it.

use std::sync::Arc;

use htrewrite_selectors::{ErrorKind, MAX_NESTING, Matcher, Namespaces, Program, SelectorList, select, select_with};
use htrewrite_shadow::{Event, Origin, Shadow, ShadowOptions, ShadowSink};
use htrewrite_testkit::{Random, SplitMix64};
use htrewrite_tokenizer::Tokenizer;
use libtest_mimic::{Failed, Trial};

/// (name, document, selector, expected matched start tags).
const MATCH: &[(&str, &str, &str, &[&str])] = &[
    // Type selectors and the universal selector (Selectors 4, 5.1, 5.2; HTML case rules).
    ("type_basic", "<h1>a</h1><h2>b</h2>", "h1", &["<h1>"]),
    ("type_negative", "<h2>b</h2>", "h1", &[]),
    ("type_html_source_case", "<DIV>x</DIV>", "div", &["<DIV>"]),
    ("type_html_selector_case", "<div>x</div>", "DIV", &["<div>"]),
    ("type_svg_adjusted_case", "<svg><foreignObject></foreignObject></svg>", "foreignObject", &["<foreignObject>"]),
    ("type_svg_source_case_irrelevant", "<svg><FOREIGNOBJECT/></svg>", "foreignObject", &["<FOREIGNOBJECT/>"]),
    ("type_svg_case_sensitive", "<svg><foreignObject></foreignObject></svg>", "foreignobject", &[]),
    ("type_svg_lower_name", "<svg><rect/></svg>", "RECT", &[]),
    ("universal", "<p><b>x</b></p>", "p *", &["<b>"]),
    ("universal_in_compound", "<p title=a><b>", "*[title]", &["<p title=a>"]),
    // Class and id (6.6, 6.7); quirks mode compares them ASCII case-insensitively.
    (
        "class_two",
        "<p class=\"pastoral marine\"><p class=pastoral>",
        ".pastoral.marine",
        &["<p class=\"pastoral marine\">"],
    ),
    (
        "class_one",
        "<p class=\"pastoral marine\"><p class=pastoral>",
        "p.pastoral",
        &["<p class=\"pastoral marine\">", "<p class=pastoral>"],
    ),
    ("class_whitespace", "<p class=\"\ta\n b \">", ".b", &["<p class=\"\ta\n b \">"]),
    ("class_no_quirks_case", "<!DOCTYPE html><p class=A>", ".a", &[]),
    ("class_quirks_case", "<p class=A>", ".a", &["<p class=A>"]),
    ("id_basic", "<h1 id=chapter1><h1 id=chapter2>", "h1#chapter1", &["<h1 id=chapter1>"]),
    ("id_negative", "<h1 id=chapter1>", "#chapter2", &[]),
    ("id_no_quirks_case", "<!DOCTYPE html><p id=X>", "#x", &[]),
    ("id_quirks_case", "<p id=X>", "#x", &["<p id=X>"]),
    ("id_on_svg", "<svg><rect id=r /></svg>", "#r", &["<rect id=r />"]),
    // Attribute selectors (6.1–6.4), decoded values, the HTML Standard's case rules.
    ("attr_presence", "<h1 title=x><h1>", "h1[title]", &["<h1 title=x>"]),
    ("attr_presence_empty", "<input disabled>", "[disabled]", &["<input disabled>"]),
    (
        "attr_equals",
        "<span class=example><span class=\"example x\">",
        "span[class=\"example\"]",
        &["<span class=example>"],
    ),
    (
        "attr_includes",
        "<a rel=\"copyright copyleft\"><a rel=copy>",
        "a[rel~=\"copyright\"]",
        &["<a rel=\"copyright copyleft\">"],
    ),
    ("attr_includes_empty_never", "<a rel=\"\">", "a[rel~=\"\"]", &[]),
    ("attr_includes_space_never", "<a rel=\"a b\">", "a[rel~=\"a b\"]", &[]),
    (
        "attr_dash",
        "<a hreflang=en><a hreflang=en-US><a hreflang=english>",
        "a[hreflang|=en]",
        &["<a hreflang=en>", "<a hreflang=en-US>"],
    ),
    (
        "attr_prefix",
        "<object type=\"image/png\"><object type=text>",
        "object[type^=\"image/\"]",
        &["<object type=\"image/png\">"],
    ),
    ("attr_suffix", "<a href=\"x.html\"><a href=\"x.htm\">", "a[href$=\".html\"]", &["<a href=\"x.html\">"]),
    ("attr_substring", "<p title=\"hello world\"><p title=hello>", "p[title*=\"o w\"]", &["<p title=\"hello world\">"]),
    ("attr_prefix_empty_never", "<p class=x>", "p[class^=\"\"]", &[]),
    ("attr_suffix_empty_never", "<p class=x>", "p[class$=\"\"]", &[]),
    ("attr_substring_empty_never", "<p class=x>", "p[class*=\"\"]", &[]),
    ("attr_decoded_value", "<a href=\"&#104;ttp://x\">", "a[href^=http]", &["<a href=\"&#104;ttp://x\">"]),
    ("attr_decoded_named", "<a title=\"a&amp;b\">", "[title=\"a&b\"]", &["<a title=\"a&amp;b\">"]),
    ("attr_i_flag", "<p frame=HSIDES><p frame=x>", "[frame=hsides i]", &["<p frame=HSIDES>"]),
    ("attr_default_sensitive", "<p title=ABC>", "[title=abc]", &[]),
    ("attr_listed_insensitive", "<input type=TEXT>", "[type=text]", &["<input type=TEXT>"]),
    ("attr_listed_s_flag", "<input type=TEXT>", "[type=text s]", &[]),
    ("attr_listed_only_html", "<svg><a type=TEXT></a></svg>", "[type=text]", &[]),
    ("attr_name_source_case", "<p DATA-X=1>", "[data-x]", &["<p DATA-X=1>"]),
    ("attr_name_selector_case", "<p data-x=1>", "[DATA-X]", &["<p data-x=1>"]),
    ("attr_svg_adjusted_name", "<svg viewbox=\"0 0 1 1\"></svg>", "svg[viewBox]", &["<svg viewbox=\"0 0 1 1\">"]),
    ("attr_svg_name_case_sensitive", "<svg viewbox=\"0 0 1 1\"></svg>", "svg[viewbox]", &[]),
    // Compounds keyed by an attribute value (`[name=value]`, more than eight
    // of them so that the start states are looked up by key): the key is
    // ASCII-lowercased, the comparison is not unless the rules say so.
    (
        "attr_value_keyed_case",
        "<p data-x=3><p data-x=A><p DATA-X=b><p data-x=\"\">",
        "[data-x='1'], [data-x='2'], [data-x='3'], [data-x='4'], [data-x='5'], [data-x='6'], [data-x='7'], \
         [data-x=a], [DATA-X=b], [data-x='']",
        &["<p data-x=3>", "<p DATA-X=b>", "<p data-x=\"\">"],
    ),
    (
        "attr_value_keyed_flags",
        "<p data-x=A><input type=TEXT><svg><a type=TEXT></a></svg>",
        "[data-x=a i], [type=text], [k='1'], [k='2'], [k='3'], [k='4'], [k='5'], [k='6'], [k='7'], [k='8']",
        &["<p data-x=A>", "<input type=TEXT>"],
    ),
    (
        "attr_value_keyed_svg_name",
        "<svg viewbox=\"0 0 1 1\"></svg>",
        "svg[viewBox='0 0 1 1'], svg[viewbox='0 0 1 1'], [k='1'], [k='2'], [k='3'], [k='4'], [k='5'], [k='6'], [k='7']",
        &["<svg viewbox=\"0 0 1 1\">"],
    ),
    ("attr_duplicate_first_wins", "<p title=a title=b>", "[title=b]", &[]),
    ("attr_any_namespace", "<svg><a xlink:href=x></a></svg>", "a[*|href]", &["<a xlink:href=x>"]),
    ("attr_no_namespace", "<svg><a xlink:href=x></a></svg>", "a[href]", &[]),
    // Without a type selector the compound is keyed by nothing, not by the
    // attribute name (which only attributes in no namespace give).
    ("attr_any_namespace_alone", "<svg><a xlink:href=x></a></svg>", "[*|href]", &["<a xlink:href=x>"]),
    (
        "attr_any_namespace_alone_among_many",
        "<svg><a xlink:href=x></a></svg><p href=y>",
        "[*|href], .c1, .c2, .c3, .c4, .c5, .c6, .c7, .c8, .c9",
        &["<a xlink:href=x>", "<p href=y>"],
    ),
    ("attr_explicit_no_namespace", "<p href=x>", "[|href]", &["<p href=x>"]),
    // Combinators (15).
    ("descendant", "<div><ol><li><p>x</p></li></ol></div><p>", "div ol>li p", &["<p>"]),
    ("descendant_deep", "<div><span><b><i>x", "div i", &["<i>"]),
    ("child", "<body><div><p>a</p></div><p>b", "body > p", &["<p>"]),
    ("child_negative", "<div><span><p>", "div > p", &[]),
    ("next_sibling", "<h1>t</h1><p>a<p>b", "h1 + p", &["<p>"]),
    ("next_sibling_skips_text", "<h1>t</h1> text <!-- c --><p>a", "h1 + p", &["<p>"]),
    ("next_sibling_implied_close", "<ul><li>a<li>b<li>c</ul>", "li + li", &["<li>", "<li>"]),
    ("next_sibling_negative", "<h1>t</h1><div></div><p>", "h1 + p", &[]),
    ("subsequent_sibling", "<h1>t</h1><div></div><p>a<p>b", "h1 ~ p", &["<p>", "<p>"]),
    ("subsequent_sibling_other_parent", "<h1>t</h1><div><p>a</div>", "h1 ~ p", &[]),
    ("combinator_chain", "<blockquote></blockquote><div><p>x</div>", "blockquote + div p", &["<p>"]),
    ("combinator_chain_2", "<blockquote></blockquote><div></div><p>x", "blockquote ~ div + p", &["<p>"]),
    // Logical pseudo-classes (4).
    ("not_compound", "<p class=\"a b\"><p class=a><p>", "p:not(.a.b)", &["<p class=a>", "<p>"]),
    ("not_list", "<p class=a><p class=b><p class=c>", "p:not(.a, .b)", &["<p class=c>"]),
    ("not_complex", "<div><span>a</span></div><section><span>b", "span:not(div span)", &["<span>"]),
    ("not_complex_child", "<ul><li><b>1</b></li></ul><b>2", "b:not(li > b)", &["<b>"]),
    ("is_list", "<h1><h2><h3>", ":is(h1, h3)", &["<h1>", "<h3>"]),
    ("is_complex", "<ul><li><a>x</a></li></ul><a>y", ":is(ul li) a", &["<a>"]),
    ("where_list", "<ol><li>a</ol><ul><li>b</ul><menu><li>c", ":where(ol, ul) > li", &["<li>", "<li>"]),
    ("matches_legacy", "<h1><h2>", ":matches(h2)", &["<h2>"]),
    ("not_nested_is", "<p class=x><span><p><span>", "p:not(:is(.x)) span", &["<span>"]),
    ("not_of_sibling", "<h2></h2><p>a<p>b", "p:not(h2 + p)", &["<p>"]),
    // Tree-structural pseudo-classes (14).
    ("root", "<html><body><p>", ":root", &["<html>"]),
    ("root_not_p", "<html><body><p>", "p:root", &[]),
    ("first_child", "<div><p>a<p>b</div>", "p:first-child", &["<p>"]),
    ("first_child_text_before", "<div>text<p>a</div>", "p:first-child", &["<p>"]),
    ("nth_child_odd", "<ul><li>1<li>2<li>3<li>4</ul>", "li:nth-child(odd)", &["<li>", "<li>"]),
    ("nth_child_even_count", "<ul><li>1<li>2<li>3<li>4</ul>", "li:nth-child(even)", &["<li>", "<li>"]),
    ("nth_child_b", "<ul><li a=1><li a=2><li a=3></ul>", "li:nth-child(2)", &["<li a=2>"]),
    ("nth_child_neg", "<ul><li a=1><li a=2><li a=3></ul>", "li:nth-child(-n+2)", &["<li a=1>", "<li a=2>"]),
    (
        "nth_child_spaces",
        "<ul><li a=1><li a=2><li a=3><li a=4></ul>",
        "li:nth-child( 3n - 2 )",
        &["<li a=1>", "<li a=4>"],
    ),
    (
        "nth_child_of",
        "<ul><li class=x a=1><li a=2><li class=x a=3><li class=x a=4></ul>",
        "li:nth-child(2 of .x)",
        &["<li class=x a=3>"],
    ),
    (
        "nth_child_of_not_x",
        "<ul><li class=x a=1><li a=2><li class=x a=3></ul>",
        "li:nth-child(1 of .x)",
        &["<li class=x a=1>"],
    ),
    (
        "nth_child_of_complex",
        "<div><p><p class=y><span><p class=y></span></div>",
        ":nth-child(1 of div > .y)",
        &["<p class=y>"],
    ),
    ("first_of_type", "<dl><dt>a<dd>b<dt>c<dd>d</dl>", "dd:first-of-type", &["<dd>"]),
    ("nth_of_type", "<div><p a=1><span></span><p a=2><p a=3></div>", "p:nth-of-type(2)", &["<p a=2>"]),
    ("nth_of_type_svg_namespace", "<div><a></a><svg></svg><a></a></div>", "a:nth-of-type(2)", &["<a>"]),
    // Namespaces (5.3, 5.4).
    ("ns_svg", "<rect><svg><rect/></svg>", "svg|rect", &["<rect/>"]),
    ("ns_html", "<rect><svg><rect/></svg>", "html|rect", &["<rect>"]),
    ("ns_any", "<p><svg><g/></svg>", "*|*:not(html|*)", &["<svg>", "<g/>"]),
    ("ns_math", "<math><mi>x</mi></math>", "math|mi", &["<mi>"]),
    ("ns_none", "<p><svg></svg>", "|p, |svg", &[]),
    ("ns_default_any", "<a></a><svg><a></a></svg>", "a", &["<a>", "<a>"]),
    // The Standard's tree, not the tags of the source.
    ("tree_implied_tbody", "<table><tr><td>x</table>", "table > tbody > tr > td", &["<td>"]),
    ("tree_unclosed_p", "<p>a<p>b", "p p", &[]),
    ("tree_p_closed_by_div", "<p>a<div>b</div>", "p > div", &[]),
    ("tree_li_closes_li", "<ul><li>a<li>b</ul>", "li li", &[]),
    ("tree_foster_parented", "<table><div>x</div><tr><td>y</table>", "body > div", &["<div>"]),
    ("tree_foster_not_in_table", "<table><div>x</div></table>", "table div", &[]),
    ("tree_foster_sibling", "<p>a</p><table><span>x</span></table>", "p + span", &["<span>"]),
    ("tree_template_contents", "<template><p>x</p></template>", "template > p", &["<p>"]),
    ("tree_head_after_close", "<head></head><style></style>", "head > style", &["<style>"]),
    ("tree_select_option", "<select><option>a<option>b</select>", "select > option + option", &["<option>"]),
    ("tree_nested_a_closed", "<a href=1>x<a href=2>y", "a a", &[]),
    ("tree_svg_html_breakout", "<svg><p>x", "svg p", &[]),
    (
        "tree_foreign_object",
        "<svg><foreignObject><div>x</div></foreignObject></svg>",
        "svg foreignObject > div",
        &["<div>"],
    ),
];

/// (name, document, selector, names of matched elements without a start tag).
const UNSOURCED: &[(&str, &str, &str, &[&str])] = &[
    ("implied_html_head_body", "x", ":root, head, body", &["html", "head", "body"]),
    ("implied_tbody_tr", "<table><td>x</table>", "tbody, tr", &["tbody", "tr"]),
    ("reconstructed_b", "<p><b>x<p>y", "p > b", &["b"]),
    ("adoption_agency_clone", "<b>1<p>2</b>3", "p > b", &["b"]),
    ("stray_end_p", "<body></p>", "p", &["p"]),
];

/// (name, selector, error message).
const ERRORS: &[(&str, &str, &str)] = &[
    ("hover", "a:hover", "unsupported pseudo-class :hover at 1"),
    ("visited", "a:visited", "unsupported pseudo-class :visited at 1"),
    ("pseudo_element", "p::before", "unsupported pseudo-element ::before at 1"),
    ("legacy_pseudo_element", "p:first-line", "unsupported pseudo-element ::first-line at 1"),
    (
        "last_child",
        "li:last-child",
        ":last-child needs lookahead (it depends on the element's following siblings), not known when the start tag is seen at 2",
    ),
    (
        "only_child",
        ":only-child",
        ":only-child needs lookahead (it depends on the element's following siblings), not known when the start tag is seen at 0",
    ),
    (
        "last_of_type",
        "p:last-of-type",
        ":last-of-type needs lookahead (it depends on the element's following siblings of its type), not known when the start tag is seen at 1",
    ),
    (
        "only_of_type",
        "p:only-of-type",
        ":only-of-type needs lookahead (it depends on the element's following siblings of its type), not known when the start tag is seen at 1",
    ),
    (
        "nth_last_child",
        "p:nth-last-child(2)",
        ":nth-last-child needs lookahead (it depends on the element's following siblings), not known when the start tag is seen at 1",
    ),
    (
        "nth_last_of_type",
        "p:nth-last-of-type(2)",
        ":nth-last-of-type needs lookahead (it depends on the element's following siblings of its type), not known when the start tag is seen at 1",
    ),
    (
        "empty",
        "p:empty",
        ":empty needs lookahead (it depends on the element's content), not known when the start tag is seen at 1",
    ),
    (
        "has",
        "a:has(b)",
        ":has needs lookahead (it depends on the element's descendants or following siblings), not known when the start tag is seen at 1",
    ),
    (
        "nested_lookahead",
        "p:not(:last-child)",
        ":last-child needs lookahead (it depends on the element's following siblings), not known when the start tag is seen at 6",
    ),
    ("dangling_combinator", "a >", "unexpected end of selector at 3"),
    ("empty_input", "", "unexpected end of selector at 0"),
    ("empty_in_list", "a,,b", "empty selector at 2"),
    ("bad_char", "a!", "unexpected character '!' at 1"),
    ("unclosed_attr", "[href", "unexpected end of selector at 5"),
    ("unclosed_not", ":not(a", "unexpected end of selector at 6"),
    ("bad_nth", "li:nth-child(foo)", "invalid An+B argument at 13"),
    ("newline_in_string", "[a=\"b\nc\"]", "newline in string at 5"),
    ("unknown_prefix", "x|a", "undeclared namespace prefix x at 0"),
    ("attribute_prefix", "[xlink|href]", "named attribute namespace prefixes are not supported at 0"),
    ("id_digit", "#1a", "unexpected character '1' at 1"),
    // Regression (found by reading, covered by robust::any_selector_text): the
    // `of` look-up sliced inside a UTF-8 sequence and panicked.
    ("nth_multibyte_after_b", ":nth-child(2 xé)", "unexpected character 'x' at 13"),
];

/// Selectors whose display must parse back to the same display.
const ROUNDTRIP: &[(&str, &str, &str)] = &[
    ("simple", "a", "a"),
    ("spaces", "  a   b>c~d +e  ,f ", "a b > c ~ d + e, f"),
    ("attr_quoted", "[a='x\"y' i]", "[a=\"x\\\"y\" i]"),
    ("attr_ident_value", "[a=b s]", "[a=\"b\" s]"),
    ("escapes", ".\\31 a#x\\.y", ".\\31 a#x\\.y"),
    ("escape_space", ".two\\ words", ".two\\ words"),
    (
        "nth_forms",
        ":nth-child(odd):nth-child(EVEN):nth-child(-n+3):nth-child(+5):nth-of-type(n)",
        ":nth-child(2n+1):nth-child(2n):nth-child(-n+3):nth-child(5):nth-of-type(n)",
    ),
    ("nth_of", ":nth-child(2n+1 of .a, b c)", ":nth-child(2n+1 of .a, b c)"),
    ("namespaces", "svg|rect *|* |a *|x", "svg|rect *|* |a *|x"),
    ("universal_only_simple", "*.a", "*.a"),
    ("logical", ":not(a b, .c):is(d):where(e > f):matches(g)", ":not(a b, .c):is(d):where(e > f):is(g)"),
    ("comments", "a/* x */b", "a b"),
    ("attr_ns", "[*|a][|b]", "[*|a][|b]"),
];

pub(crate) fn trials() -> Vec<Trial> {
    let mut trials = Vec::new();
    for &(name, doc, sel, want) in MATCH {
        trials.push(Trial::test(format!("match::{name}"), move || check_match(doc, sel, want)));
    }
    for &(name, doc, sel, want) in UNSOURCED {
        trials.push(Trial::test(format!("unsourced::{name}"), move || {
            let got: Vec<String> = select(doc, sel)?.without_start_tag.into_iter().map(|e| e.name).collect();
            if got == want { Ok(()) } else { Err(format!("got {got:?}, want {want:?}").into()) }
        }));
    }
    for &(name, sel, want) in ERRORS {
        trials.push(Trial::test(format!("error::{name}"), move || match Program::new([sel]) {
            Ok(_) => Err(format!("{sel:?} was accepted").into()),
            Err(e) if e.to_string() == want => Ok(()),
            Err(e) => Err(format!("got {:?}, want {want:?}", e.to_string()).into()),
        }));
    }
    for &(name, sel, want) in ROUNDTRIP {
        trials.push(Trial::test(format!("roundtrip::{name}"), move || {
            let once = SelectorList::parse(sel)?.to_string();
            let twice = SelectorList::parse(&once)?.to_string();
            if once != want {
                return Err(format!("display {once:?}, want {want:?}").into());
            }
            if once != twice {
                return Err(format!("unstable: {once:?} then {twice:?}").into());
            }
            Ok(())
        }));
    }
    trials.push(Trial::test("namespaces::declared_default", || {
        let ns = Namespaces::default().default_namespace("http://www.w3.org/2000/svg");
        let got = select_with("<a></a><svg><a></a></svg>", "a, .x", &ns)?;
        if got.start_tags.len() == 1 { Ok(()) } else { Err(format!("{got:?}").into()) }
    }));
    trials.push(Trial::test("program::send_sync", || {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Program>();
        assert_send_sync::<Arc<Program>>();
        assert_send_sync::<Matcher>();
        Ok(())
    }));
    trials.push(Trial::test("program::rule_ids_in_order", || {
        let program = Arc::new(Program::new(["p", ".a", "p.a, div", "*"])?);
        let got = matches_per_element("<!DOCTYPE html><p class=a><div>", &program);
        let want: Vec<Vec<u32>> = vec![vec![3], vec![3], vec![3], vec![0, 1, 2, 3], vec![2, 3]];
        if got == want { Ok(()) } else { Err(format!("got {got:?}, want {want:?}").into()) }
    }));
    trials.push(Trial::test("roundtrip::proptest", roundtrip_proptest));
    trials.push(Trial::test("robust::any_selector_text", any_selector_text));
    trials.push(Trial::test("robust::nesting_limit", nesting_limit));
    trials
}

/// Runs the pipeline on `chunks`; returns the matched start tags.
fn run_chunks(chunks: &[&[u8]], program: &Arc<Program>) -> Vec<(usize, usize)> {
    let mut matcher = Matcher::new(Arc::clone(program));
    let mut out = Vec::new();
    let events = |e: Event<'_>| {
        let matches = matcher.event(&e);
        if let Event::ElementOpened { id, origin: Origin::StartTag { span }, .. } = &e
            && matches.iter().any(|m| m.element == *id)
        {
            out.push((span.start as usize, span.end as usize));
        }
    };
    let mut sink = ShadowSink::new(Shadow::new(ShadowOptions::default()), events);
    let mut tokenizer = Tokenizer::new();
    for c in chunks {
        tokenizer.feed(c, &mut sink);
    }
    tokenizer.finish(&mut sink);
    sink.finish();
    drop(sink);
    out
}

fn matches_per_element(doc: &str, program: &Arc<Program>) -> Vec<Vec<u32>> {
    let mut matcher = Matcher::new(Arc::clone(program));
    let mut out = Vec::new();
    let events = |e: Event<'_>| {
        if let Event::ElementOpened { .. } = e {
            out.push(matcher.event(&e).iter().map(|m| m.rule.0).collect());
        } else {
            matcher.event(&e);
        }
    };
    let mut sink = ShadowSink::new(Shadow::new(ShadowOptions::default()), events);
    let mut tokenizer = Tokenizer::new();
    tokenizer.feed(doc.as_bytes(), &mut sink);
    tokenizer.finish(&mut sink);
    sink.finish();
    drop(sink);
    out
}

fn check_match(doc: &str, sel: &str, want: &[&str]) -> Result<(), Failed> {
    let program = Arc::new(Program::new([sel])?);
    let bytes = doc.as_bytes();
    let whole = run_chunks(&[bytes], &program);
    let got: Vec<&str> = whole.iter().map(|&(s, e)| &doc[s..e]).collect();
    if got != want {
        return Err(format!("got {got:?}, want {want:?}").into());
    }
    for at in 0..=bytes.len() {
        let split = run_chunks(&[&bytes[..at], &bytes[at..]], &program);
        if split != whole {
            return Err(format!("split at byte {at}: {split:?} != {whole:?}").into());
        }
    }
    let seed = 0x9e37_79b9_u64 ^ doc.len() as u64;
    let mut rng = SplitMix64::new(seed);
    for round in 0..8 {
        let mut chunks = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            let n = 1 + rng.below(5);
            let end = (at + n).min(bytes.len());
            chunks.push(&bytes[at..end]);
            at = end;
        }
        let got = run_chunks(&chunks, &program);
        if got != whole {
            return Err(format!("random split (seed {seed}, round {round}): {got:?} != {whole:?}").into());
        }
    }
    Ok(())
}

/// Random selector lists from the supported grammar: parse → display →
/// parse → display is stable, and the first display already is canonical.
fn roundtrip_proptest() -> Result<(), Failed> {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};
    let types = prop::sample::select(vec!["", "a", "DIV", "svg|rect", "*|*", "*", "|p", "foreignObject", "math|*"]);
    let simple = prop::sample::select(vec![
        ".c",
        "#i",
        "[a]",
        "[a=\"v\" i]",
        "[b~=w]",
        "[c|=x s]",
        ":first-child",
        ":root",
        ":nth-child(2n+1)",
        ":nth-of-type(-n+3)",
        ":not(p > q)",
        ":is(a, .b)",
        ":where(c d)",
        ":nth-child(odd of .x)",
        ".\\31 x",
        "[d^='q\"r']",
        "[*|e$=f]",
        ":first-of-type",
        ":nth-child( -2n - 1 )",
        ":not(:is(x ~ y, z))",
    ]);
    let compound = (types, prop::collection::vec(simple, 0..3)).prop_map(|(t, s)| {
        let c = format!("{t}{}", s.concat());
        if c.is_empty() { "*".to_owned() } else { c }
    });
    let combinator = prop::sample::select(vec![" ", " > ", " + ", " ~ ", ">", "~", "  +"]);
    let complex = (compound.clone(), prop::collection::vec((combinator, compound), 0..3))
        .prop_map(|(first, rest)| rest.into_iter().fold(first, |acc, (c, x)| format!("{acc}{c}{x}")));
    let list = prop::collection::vec(complex, 1..3).prop_map(|v| v.join(" , "));
    let mut runner = TestRunner::new(Config { cases: 1000, failure_persistence: None, ..Config::default() });
    runner
        .run(&list, |text| {
            let once =
                SelectorList::parse(&text).map_err(|e| TestCaseError::fail(format!("{text:?}: {e}")))?.to_string();
            let twice =
                SelectorList::parse(&once).map_err(|e| TestCaseError::fail(format!("{once:?}: {e}")))?.to_string();
            prop_assert_eq!(&once, &twice, "from {:?}", text);
            Ok(())
        })
        .map_err(|e| format!("{e}").into())
}

/// Any text, and text made of selector characters: parsing never panics;
/// what parses compiles, displays to something that parses again, and
/// matches on a small document without panicking.
fn any_selector_text() -> Result<(), Failed> {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};
    let pieces = prop::sample::select(vec![
        "a",
        "é",
        "*",
        "|",
        ".",
        "#",
        "[",
        "]",
        "=",
        "~",
        "^",
        "$",
        "(",
        ")",
        ":",
        "::",
        ",",
        " ",
        ">",
        "+",
        "\\",
        "\"",
        "'",
        "not",
        "is",
        "nth-child",
        "of",
        "2n+1",
        "-",
        "i",
        "s",
        "svg",
        "\n",
        "/*",
        "*/",
        "1",
    ]);
    let strategy = prop_oneof![any::<String>(), prop::collection::vec(pieces, 0..16).prop_map(|v| v.concat())];
    let mut runner = TestRunner::new(Config { cases: 3000, failure_persistence: None, ..Config::default() });
    runner
        .run(&strategy, |text| {
            if let Ok(list) = SelectorList::parse(&text) {
                let shown = list.to_string();
                let again = SelectorList::parse(&shown).map_err(|e| TestCaseError::fail(format!("{shown:?}: {e}")))?;
                prop_assert_eq!(again.to_string(), shown);
                if let Ok(program) = Program::new([text.as_str()]) {
                    run_chunks(&[b"<p class=a><svg><rect/></svg><ul><li>x<li>y</ul><table><td>z"], &Arc::new(program));
                }
            }
            Ok(())
        })
        .map_err(|e| format!("{e}").into())
}

/// Issue 20, item 6: selector lists nested [`MAX_NESTING`] deep parse, display, compile, match
/// and drop on a thread with a 256 KiB stack (an eighth of a test thread's); one level more, and
/// the hostile shapes (`:is(` × 7,700, `:not(` × 20,000), are [`ErrorKind::TooDeep`], not a
/// stack overflow.
fn nesting_limit() -> Result<(), Failed> {
    let run = || -> Result<(), String> {
        for open in [":is(", ":not(", ":where(", ":nth-child(1 of "] {
            let at_limit = format!("{}a{}", open.repeat(MAX_NESTING), ")".repeat(MAX_NESTING));
            let list = SelectorList::parse(&at_limit).map_err(|e| format!("{open} × {MAX_NESTING}: {e}"))?;
            let shown = list.to_string();
            SelectorList::parse(&shown).map_err(|e| format!("display of {open} × {MAX_NESTING}: {e}"))?;
            let program = Arc::new(Program::new([at_limit.as_str()]).map_err(|e| e.to_string())?);
            let _ = matches_per_element("<a><b><a>", &program);
            drop((list, program));
            for depth in [MAX_NESTING + 1, 7_700, 20_000] {
                let deep = format!("{}a{}", open.repeat(depth), ")".repeat(depth));
                match SelectorList::parse(&deep) {
                    Err(e) if e.kind() == &ErrorKind::TooDeep => {}
                    other => return Err(format!("{open} × {depth}: {other:?}, want TooDeep")),
                }
            }
        }
        Ok(())
    };
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(run)
        .map_err(|e| e.to_string())?
        .join()
        .map_err(|_| "the nesting test panicked")?
        .map_err(Failed::from)
}
