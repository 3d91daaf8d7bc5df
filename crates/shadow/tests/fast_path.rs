//! The in-body fast path (`src/fast.rs`, issue 16): which tokens it takes,
//! and that it agrees with the full rules on every known HTML element name
//! in several contexts.
//!
//! `main` turns on `htrewrite_shadow::check_fast_path`: every token the
//! fast path takes also runs through the full rules on a copy of the tree
//! builder, and any difference in events or state panics. So each
//! case here fails if the fast path takes a token it should not, and the
//! counts below fail if it stops taking the common ones.

use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions, ShadowSink, fast_path_taken};
use htrewrite_tokenizer::Tokenizer;
use libtest_mimic::{Arguments, Failed, Trial};

/// Feeds `html` (whole, then byte by byte) and returns how many tokens the
/// fast path took.
fn taken(html: &str, scripting: bool) -> Result<u64, Failed> {
    let mut counts = Vec::new();
    for pieces in [vec![html.as_bytes()], html.as_bytes().chunks(1).collect()] {
        let before = fast_path_taken();
        let options = ShadowOptions { scripting, ..ShadowOptions::default() };
        let mut sink = ShadowSink::new(Shadow::new(options), NoEvents);
        let mut tokenizer = Tokenizer::new();
        for piece in pieces {
            tokenizer.feed(piece, &mut sink);
        }
        tokenizer.finish(&mut sink);
        sink.finish();
        counts.push(fast_path_taken() - before);
    }
    if counts[0] != counts[1] {
        return Err(format!("{html:?}: taken {} times whole, {} times byte by byte", counts[0], counts[1]).into());
    }
    Ok(counts[0])
}

/// `(name, document, tokens the fast path takes)`.
const CASES: &[(&str, &str, u64)] = &[
    // The common case.
    ("div_start_and_end", "<body><div></div>", 2),
    ("any_other_names", "<body><span>x</span><section></section><my-widget>y</my-widget>", 6),
    ("div_closes_p", "<body><p>x<div>y</div>", 3),
    ("formatting_start_and_end", "<body><b>x</b>", 2),
    ("a_start_and_end", "<body><a href=x>y</a>", 2),
    ("formatting_end_after_inner_closed", "<body><b><span></span></b>", 4),
    ("reconstructs_before_any_other", "<body><p><b>x</p><span>y</span>", 4),
    ("end_of_li_and_ul", "<body><ul><li>x</li></ul>", 4),
    ("end_p_and_heading_when_current", "<body><p>x</p><h2>y</h2>", 3),
    ("upper_case_tags", "<BODY><DIV>x</DIV>", 2),
    // What it must not take.
    ("before_body", "<div>x</div>", 1),
    // Foster-parented `<div>`, "in row" `<td>`: the full rules. "In cell",
    // `<span>`, `</span>` go by the rules of "in body": taken; `</td>` and
    // `<tr>` have rules of their own in cell.
    ("table_modes", "<table><div></div><tr><td><span></span></td><tr><td><b>x</td>", 3),
    ("cell_end_tags", "<table><tr><td><table></table></td><th><p>x</th></tr></table>", 1),
    ("list_items", "<body><ul><li>a<li>b<p>c<li>d</ul><dl><dt>e<dd>f<dt>g</dl>", 9),
    // `<div>` breaks out of the `svg` (full rules), then `</div>` is common.
    ("foreign_content", "<body><svg><div>x</div>", 1),
    // `<span>` in an `mi` (full rules), then `</span>` is common.
    ("mathml_text_integration_point", "<body><math><mi><span>x</span>", 1),
    // "in template" sends `<div>` to "in body" (full rules); `</div>` is then common.
    ("template_contents", "<template><div></div></template>", 1),
    ("end_tag_not_current", "<body><div><span></div>", 2),
    ("nested_formatting_end_tags", "<body><i><em>x</em></i>", 4),
    // `<nobr>` has its own start rule; its end tag is the common adoption.
    ("nobr", "<body><nobr>y</nobr>", 1),
    // The adoption agency's other cases.
    ("formatting_end_not_current", "<body><b><i>x</b>", 2),
    ("formatting_end_with_furthest_block", "<body><b>x<p>y</b>", 2),
    ("second_a_runs_the_adoption_agency", "<body><a>1<a>2</a>", 2),
    // The fourth `<b>` drops the first from the list (Noah's Ark): its end
    // tag is the adoption agency's step 2.
    ("noahs_ark", "<body><b><b><b><b>x</b></b></b></b>", 7),
    ("form_end_tag", "<body><form></form>", 0),
    ("text_and_raw_text_elements", "<body><textarea>x</textarea><title>y</title><xmp>z</xmp>", 0),
    ("noscript_with_scripting", "<body><noscript>x</noscript>", 0),
    ("void_elements", "<body><img><br><input><hr>", 0),
    ("frameset_after_body", "<body></body><div>", 0),
    ("after_select", "<body><select><option>x<div>y</div></select>", 2),
];

/// The HTML element names of the shadow's table (`src/names.rs`), so that
/// every one is tried.
fn table_names() -> Vec<&'static str> {
    let src = include_str!("../src/names.rs");
    let start = src.find("const HTML: &[&str] = &[").expect("the HTML table");
    let end = start + src[start..].find("];").expect("its end");
    src[start..end].split('"').skip(1).step_by(2).collect()
}

/// Contexts each name is tried in: before, inside (`{}`) and after.
const CONTEXTS: &[(&str, &str, &str)] = &[
    ("body", "<body>", "<{}>x</{}>"),
    ("open_p", "<body><p>", "<{}>x</{}>"),
    ("reconstruct", "<body><b>x<p>y</b>", "<{}>z</{}>"),
    ("nested", "<body><div><span>", "<{}></{}>"),
    ("list_item", "<ul><li>", "<{}>x</{}></li>"),
    ("heading", "<body><h3>", "<{}>x</{}></h3>"),
    ("select", "<body><select>", "<{}>x</{}>"),
    ("button", "<body><button>", "<{}>x</{}>"),
    ("end_only", "<body><div>", "</{}>"),
    ("cell", "<table><tr><td>", "<{}>x</{}>"),
    ("cell_end_only", "<table><tr><td><p>", "</{}>"),
    ("definition", "<dl><dt><b>x", "<{}>y</{}>"),
];

fn main() {
    // Every token the in-body fast path takes is checked against the full rules.
    htrewrite_shadow::check_fast_path(true);
    let args = Arguments::from_args();
    let mut trials: Vec<Trial> = CASES
        .iter()
        .map(|&(name, html, expected)| {
            Trial::test(format!("cases::{name}"), move || {
                let n = taken(html, true)?;
                if n != expected {
                    return Err(format!("{html:?}: the fast path took {n} tokens, expected {expected}").into());
                }
                Ok(())
            })
        })
        .collect();
    for name in table_names() {
        for &(context, before, inside) in CONTEXTS {
            for scripting in [true, false] {
                let html = format!("{before}{}", inside.replace("{}", name));
                let label = format!("names::{name}::{context}::scripting_{}", if scripting { "on" } else { "off" });
                trials.push(Trial::test(label, move || taken(&html, scripting).map(drop)));
            }
        }
    }
    trials.push(Trial::test("names::table_is_read", || {
        let n = table_names().len();
        if n < 100 { Err(format!("only {n} names read from src/names.rs").into()) } else { Ok(()) }
    }));
    libtest_mimic::run(&args, trials).exit();
}
