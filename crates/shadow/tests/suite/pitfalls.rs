//! The classic pitfalls of HTML tree construction, as a table (issue 3, proof 4).
//!
//! Each case gives an input and the stack of open elements (`Shadow::open_elements()`, bottom
//! first; foreign elements as `svg:title`, `math:mi`) expected right after each start tag token
//! of the input, in order. Start tags that the Standard ignores still count (the stack must be
//! unchanged), and text in RCDATA/RAWTEXT/PLAINTEXT is not a start tag, so the table also pins
//! the text modes the shadow picks. Each case is one trial, run whole, one byte at a time, cut
//! in two at every byte and in 3 seeded random splittings.
//!
//! The expected stacks follow the current HTML Standard (relaxed `<select>` of 2025); where an
//! html5lib case shows the same thing, it is named in the comment.

use crate::common;

use common::chunks;
use common::drive;
use libtest_mimic::{Failed, Trial};

/// One pitfall.
struct Pitfall {
    /// The trial name.
    name: &'static str,
    /// The scripting flag.
    scripting: bool,
    /// The document.
    input: &'static str,
    /// The stack after each start tag token.
    stacks: &'static [&'static str],
}

const ON: bool = true;
const OFF: bool = false;

#[rustfmt::skip]
const PITFALLS: &[Pitfall] = &[
    // --- <p> closed by blocks -------------------------------------------------------------
    Pitfall { name: "p-closed-by-div", scripting: ON, input: "<p>a<div>b",
        stacks: &["html body p", "html body div"] },
    Pitfall { name: "p-closed-by-ul", scripting: ON, input: "<p><ul><li>",
        stacks: &["html body p", "html body ul", "html body ul li"] },
    Pitfall { name: "p-closed-by-heading", scripting: ON, input: "<p><h1>",
        stacks: &["html body p", "html body h1"] },
    Pitfall { name: "p-closed-by-address", scripting: ON, input: "<p><address>",
        stacks: &["html body p", "html body address"] },
    Pitfall { name: "p-closed-by-table-no-quirks", scripting: ON, input: "<!DOCTYPE html><p><table><tr>",
        stacks: &["html body p", "html body table", "html body table tbody tr"] },
    Pitfall { name: "p-kept-open-by-table-in-quirks", scripting: ON, input: "<p><table>",
        stacks: &["html body p", "html body p table"] },
    Pitfall { name: "p-closed-by-plaintext", scripting: ON, input: "<p><plaintext><i>",
        stacks: &["html body p", "html body plaintext"] },
    // --- <li>, <dd>, <dt> implied ends --------------------------------------------------------
    Pitfall { name: "li-implies-end-of-li", scripting: ON, input: "<ul><li>a<li>b",
        stacks: &["html body ul", "html body ul li", "html body ul li"] },
    Pitfall { name: "li-in-nested-list", scripting: ON, input: "<ul><li><ul><li>",
        stacks: &["html body ul", "html body ul li", "html body ul li ul", "html body ul li ul li"] },
    Pitfall { name: "li-closes-through-div", scripting: ON, input: "<li><div><li>",
        stacks: &["html body li", "html body li div", "html body li"] },
    Pitfall { name: "dd-dt-imply-each-other", scripting: ON, input: "<dl><dt>a<dd>b<dt>c",
        stacks: &["html body dl", "html body dl dt", "html body dl dd", "html body dl dt"] },
    Pitfall { name: "dt-closes-dd-through-div", scripting: ON, input: "<dd><div><dt>",
        stacks: &["html body dd", "html body dd div", "html body dt"] },
    // --- </p> and </br> -----------------------------------------------------------------------
    Pitfall { name: "end-p-without-p-inserts-empty-p", scripting: ON, input: "</p><i>",
        stacks: &["html body i"] },
    Pitfall { name: "end-p-not-seen-through-button", scripting: ON, input: "<p><button></p><i>",
        stacks: &["html body p", "html body p button", "html body p button i"] },
    Pitfall { name: "end-br-is-a-br", scripting: ON, input: "<p></br><i>",
        stacks: &["html body p", "html body p i"] },
    // --- headings -----------------------------------------------------------------------------
    Pitfall { name: "heading-end-tag-closes-any-heading", scripting: ON, input: "<h1>a</h2><i>",
        stacks: &["html body h1", "html body i"] },
    Pitfall { name: "heading-in-heading", scripting: ON, input: "<h1><h2>",
        stacks: &["html body h1", "html body h2"] },
    // --- <a>, <nobr>, adoption agency, Noah's Ark ---------------------------------------------
    Pitfall { name: "nested-a", scripting: ON, input: "<a><a>",
        stacks: &["html body a", "html body a"] },
    Pitfall { name: "nested-a-through-div", scripting: ON, input: "<a><div><a>",
        stacks: &["html body a", "html body a div", "html body div a"] },
    Pitfall { name: "nested-nobr", scripting: ON, input: "<nobr><nobr>",
        stacks: &["html body nobr", "html body nobr"] },
    // adoption02.dat#003: no nobr after the marquee's marker, so the adoption agency acts as "any other end tag"
    Pitfall { name: "nobr-after-marker-closes-nobr", scripting: ON, input: "<nobr><table><marquee></table><nobr>",
        stacks: &["html body nobr", "html body nobr table", "html body nobr table marquee", "html body nobr"] },
    Pitfall { name: "adoption-b-p", scripting: ON, input: "<b><p>x</b><i>",
        stacks: &["html body b", "html body b p", "html body p i"] },
    Pitfall { name: "adoption-two-furthest-blocks", scripting: ON, input: "<b><div><div>x</b><i>",
        stacks: &["html body b", "html body b div", "html body b div div", "html body div div i"] },
    // tests1.dat: <a><p>X<a>Y</a>Z</p></a>
    Pitfall { name: "adoption-a-in-p", scripting: ON, input: "<a><p>X<a>Y</a>Z<i>",
        stacks: &["html body a", "html body a p", "html body p a", "html body p i"] },
    Pitfall { name: "reconstruct-formatting-after-p", scripting: ON, input: "<p><a>x</p><p>y<i>",
        stacks: &["html body p", "html body p a", "html body p", "html body p a i"] },
    // adoption01.dat: <p><b><b><b><b><p>x
    Pitfall { name: "noahs-ark-keeps-three", scripting: ON, input: "<p><b><b><b><b></p><i>",
        stacks: &["html body p", "html body p b", "html body p b b", "html body p b b b",
                  "html body p b b b b", "html body b b b i"] },
    Pitfall { name: "noahs-ark-compares-attributes", scripting: ON, input: "<p><b class=x><b><b><b></p><i>",
        stacks: &["html body p", "html body p b", "html body p b b", "html body p b b b",
                  "html body p b b b b", "html body b b b b i"] },
    Pitfall { name: "noahs-ark-ignores-attribute-order", scripting: ON,
        input: "<p><b a=1 c=2><b c=2 a=1><b a=1 c=2><b a=1 c=2></p><i>",
        stacks: &["html body p", "html body p b", "html body p b b", "html body p b b b",
                  "html body p b b b b", "html body b b b i"] },
    // --- tables -------------------------------------------------------------------------------
    Pitfall { name: "table-text-foster-parented", scripting: ON, input: "<table>a<tr>",
        stacks: &["html body table", "html body table tbody tr"] },
    Pitfall { name: "table-div-foster-parented", scripting: ON, input: "<table><div><tr>",
        stacks: &["html body table", "html body table div", "html body table tbody tr"] },
    Pitfall { name: "table-input-hidden-stays", scripting: ON,
        input: "<table><input type=Hidden><input type=text><tr>",
        stacks: &["html body table", "html body table", "html body table", "html body table tbody tr"] },
    Pitfall { name: "table-td-implies-tbody-tr", scripting: ON, input: "<table><td>a<td>b",
        stacks: &["html body table", "html body table tbody tr td", "html body table tbody tr td"] },
    Pitfall { name: "table-col-implies-colgroup", scripting: ON, input: "<table><col><tr>",
        stacks: &["html body table", "html body table colgroup", "html body table tbody tr"] },
    Pitfall { name: "table-caption-closed-by-tr", scripting: ON, input: "<table><caption><p>a<tr>",
        stacks: &["html body table", "html body table caption", "html body table caption p",
                  "html body table tbody tr"] },
    Pitfall { name: "table-in-table", scripting: ON, input: "<table><table>",
        stacks: &["html body table", "html body table"] },
    // --- templates ----------------------------------------------------------------------------
    Pitfall { name: "template-in-head-with-table-rows", scripting: ON, input: "<template><tr><td>",
        stacks: &["html head template", "html head template tr", "html head template tr td"] },
    Pitfall { name: "template-li-implies-li", scripting: ON, input: "<body><template><li><li>",
        stacks: &["html body", "html body template", "html body template li", "html body template li"] },
    Pitfall { name: "template-form-ignores-form-pointer", scripting: ON, input: "<template><form><form>",
        stacks: &["html head template", "html head template form", "html head template form form"] },
    // --- the form element pointer -------------------------------------------------------------
    Pitfall { name: "form-in-form-ignored", scripting: ON, input: "<form><form><i>",
        stacks: &["html body form", "html body form", "html body form i"] },
    Pitfall { name: "form-pointer-outlives-form", scripting: ON, input: "<div><form></div><form><i>",
        stacks: &["html body div", "html body div form", "html body", "html body i"] },
    Pitfall { name: "form-in-table-popped", scripting: ON, input: "<table><form><tr>",
        stacks: &["html body table", "html body table", "html body table tbody tr"] },
    // --- <image>, frameset --------------------------------------------------------------------
    Pitfall { name: "image-becomes-void-img", scripting: ON, input: "<image><i>",
        stacks: &["html body", "html body i"] },
    Pitfall { name: "frameset-after-p-replaces-body", scripting: ON, input: "<p><frameset><i>",
        stacks: &["html body p", "html frameset", "html frameset"] },
    Pitfall { name: "frameset-after-text-ignored", scripting: ON, input: "<p>a<frameset><i>",
        stacks: &["html body p", "html body p", "html body p i"] },
    Pitfall { name: "frameset-style-not-rawtext", scripting: ON, input: "<frameset><style><i>",
        stacks: &["html frameset", "html frameset", "html frameset"] },
    Pitfall { name: "frameset-frame-nested-frameset", scripting: ON, input: "<frameset><frame><frameset>",
        stacks: &["html frameset", "html frameset", "html frameset frameset"] },
    // --- <noscript> -----------------------------------------------------------------------------
    Pitfall { name: "noscript-in-head-scripting-on", scripting: ON, input: "<head><noscript><meta><i>",
        stacks: &["html head", "html head noscript"] },
    Pitfall { name: "noscript-in-head-scripting-off", scripting: OFF, input: "<head><noscript><meta><i>",
        stacks: &["html head", "html head noscript", "html head noscript", "html body i"] },
    Pitfall { name: "noscript-in-body-scripting-on", scripting: ON, input: "<body><noscript><p>",
        stacks: &["html body", "html body noscript"] },
    Pitfall { name: "noscript-in-body-scripting-off", scripting: OFF, input: "<body><noscript><p>",
        stacks: &["html body", "html body noscript", "html body noscript p"] },
    // --- text modes ---------------------------------------------------------------------------
    Pitfall { name: "title-is-rcdata", scripting: ON, input: "<title><b></title><i>",
        stacks: &["html head title", "html body i"] },
    Pitfall { name: "textarea-is-rcdata", scripting: ON, input: "<textarea><i></textarea><i>",
        stacks: &["html body textarea", "html body i"] },
    // --- foreign content ----------------------------------------------------------------------
    Pitfall { name: "svg-title-is-html-integration-point", scripting: ON, input: "<svg><title><div>",
        stacks: &["html body svg:svg", "html body svg:svg svg:title", "html body svg:svg svg:title div"] },
    Pitfall { name: "svg-breakout-p", scripting: ON, input: "<svg><p>",
        stacks: &["html body svg:svg", "html body p"] },
    Pitfall { name: "svg-font-with-color-breaks-out", scripting: ON, input: "<svg><font color=red><font>",
        stacks: &["html body svg:svg", "html body font", "html body font font"] },
    Pitfall { name: "svg-font-without-attributes-stays", scripting: ON, input: "<svg><font>",
        stacks: &["html body svg:svg", "html body svg:svg svg:font"] },
    Pitfall { name: "svg-style-is-not-rawtext", scripting: ON, input: "<svg><style><g>",
        stacks: &["html body svg:svg", "html body svg:svg svg:style", "html body svg:svg svg:style svg:g"] },
    Pitfall { name: "svg-foreignobject-name-adjusted", scripting: ON, input: "<svg><foreignobject><div>",
        stacks: &["html body svg:svg", "html body svg:svg svg:foreignObject",
                  "html body svg:svg svg:foreignObject div"] },
    Pitfall { name: "svg-self-closing-popped", scripting: ON, input: "<svg><path/><g>",
        stacks: &["html body svg:svg", "html body svg:svg", "html body svg:svg svg:g"] },
    Pitfall { name: "math-mi-style-is-html-rawtext", scripting: ON, input: "<math><mi><style><i></style><i>",
        stacks: &["html body math:math", "html body math:math math:mi", "html body math:math math:mi style",
                  "html body math:math math:mi i"] },
    Pitfall { name: "math-style-is-foreign", scripting: ON, input: "<math><style><i>",
        stacks: &["html body math:math", "html body math:math math:style", "html body i"] },
    Pitfall { name: "annotation-xml-text-html-is-integration-point", scripting: ON,
        input: "<math><annotation-xml encoding=\"Text/HTML\"><div>",
        stacks: &["html body math:math", "html body math:math math:annotation-xml",
                  "html body math:math math:annotation-xml div"] },
    Pitfall { name: "annotation-xml-without-encoding-breaks-out", scripting: ON,
        input: "<math><annotation-xml><div>",
        stacks: &["html body math:math", "html body math:math math:annotation-xml", "html body div"] },
    // --- relaxed <select> (2025) ----------------------------------------------------------------
    // tests18.dat: <!doctype html><select><plaintext></plaintext>X
    Pitfall { name: "select-plaintext-inside", scripting: ON, input: "<!doctype html><select><plaintext></plaintext><i>",
        stacks: &["html body select", "html body select plaintext"] },
    Pitfall { name: "select-style-is-rawtext", scripting: ON, input: "<!doctype html><select><style><i></style><i>",
        stacks: &["html body select", "html body select style", "html body select i"] },
    // tests7.dat: <!doctype html><select><select>X
    Pitfall { name: "select-in-select-closes", scripting: ON, input: "<!doctype html><select><select><i>",
        stacks: &["html body select", "html body", "html body i"] },
    // tests7.dat: <!doctype html><select><input>X
    Pitfall { name: "select-input-closes-select", scripting: ON, input: "<!doctype html><select><input><i>",
        stacks: &["html body select", "html body", "html body i"] },
    Pitfall { name: "select-option-implies-option", scripting: ON, input: "<!doctype html><select><option><option>",
        stacks: &["html body select", "html body select option", "html body select option"] },
    Pitfall { name: "select-optgroup-closes-option", scripting: ON, input: "<!doctype html><select><option><optgroup>",
        stacks: &["html body select", "html body select option", "html body select optgroup"] },
    Pitfall { name: "select-end-then-reconstruct-formatting", scripting: ON, input: "<!doctype html><select><b></select><i>",
        stacks: &["html body select", "html body select b", "html body b i"] },
    // webkit02.dat#049; `select` bounds the default scope (whatwg/html#10557), so `</font>` does nothing
    Pitfall { name: "select-bounds-scope-for-adoption", scripting: ON, input: "<font><select><option>a</option></font><i>",
        stacks: &["html body font", "html body font select", "html body font select option", "html body font select i"] },
    // --- miscellany ---------------------------------------------------------------------------
    Pitfall { name: "head-element-after-head", scripting: ON, input: "<head></head><meta><i>",
        stacks: &["html head", "html", "html body i"] },
    Pitfall { name: "body-in-body-ignored", scripting: ON, input: "<body><div><body><i>",
        stacks: &["html body", "html body div", "html body div", "html body div i"] },
    Pitfall { name: "html-in-body-ignored", scripting: ON, input: "<p><html><i>",
        stacks: &["html body p", "html body p", "html body p i"] },
    Pitfall { name: "button-in-button", scripting: ON, input: "<button><button>",
        stacks: &["html body button", "html body button"] },
    Pitfall { name: "ruby-implied-ends", scripting: ON, input: "<ruby><rb>a<rt>b<rp>",
        stacks: &["html body ruby", "html body ruby rb", "html body ruby rt", "html body ruby rp"] },
];

pub(crate) fn trials() -> Vec<Trial> {
    let mut names = std::collections::HashSet::new();
    PITFALLS
        .iter()
        .map(|p| {
            assert!(names.insert(p.name), "pitfall {} listed twice", p.name);
            Trial::test(p.name, move || check(p))
        })
        .collect()
}

fn check(p: &Pitfall) -> Result<(), Failed> {
    let mut problems = Vec::new();
    for chunking in chunks::chunkings(p.name, p.input.len()) {
        let run = drive::run(p.input.as_bytes(), &chunking, None, p.scripting);
        let how = if chunking.name.starts_with("random") {
            format!("{} (cuts at {:?})", chunking.name, chunking.cuts())
        } else {
            chunking.name.clone()
        };
        let got: Vec<&str> = run.stacks.iter().map(|(_, s)| s.as_str()).collect();
        if got != p.stacks {
            let mut msg = format!("fed {how}: stacks differ\n");
            for i in 0..got.len().max(p.stacks.len()) {
                let tag = run.stacks.get(i).map_or("(no start tag)", |(t, _)| t.as_str());
                let want = p.stacks.get(i).copied().unwrap_or("(none expected)");
                let have = got.get(i).copied().unwrap_or("(none)");
                let mark = if want == have { ' ' } else { '!' };
                msg.push_str(&format!("  {mark} after {tag:<24} expected [{want}]  got [{have}]\n"));
            }
            problems.push(msg);
            if problems.len() >= 2 {
                break;
            }
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    Err(format!("input: {:?} (scripting {})\n{}", p.input, if p.scripting { "on" } else { "off" }, problems.join(""))
        .into())
}
