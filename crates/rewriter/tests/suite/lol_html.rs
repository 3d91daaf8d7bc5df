//! lol-html's own rewriting suites on the W3C css3-modsel pages, one named
//! test per (suite, page, selector): `selector_matching::css3-modsel-10::1`.
//!
//! - `selector_matching` (read from the selectors crate's vendored copy,
//!   `crates/selectors/tests/data/lol-html`): with one selector S, an element
//!   handler puts `<!--[ELEMENT('S')]-->` before and `<!--[/ELEMENT('S')]-->`
//!   after each matched element, a comment handler on S puts COMMENT markers
//!   around each comment inside, and a text handler on S puts TEXT markers
//!   before the first and after the last chunk of each text node inside.
//!   Text nodes may be cut differently: both outputs are compared after
//!   joining adjacent text markers (`<!--[/TEXT('S')]--><!--[TEXT('S')]-->`
//!   is dropped), as the suite's README allows.
//! - `element_content_replacement` (vendored here, `tests/data/lol-html`):
//!   an element handler on S calls `set_inner_content("<!--Replaced (S) -->")`.
//!
//! Every page is rewritten whole, split at every byte and in three seeded
//! random splittings; all must give the same output. Cases whose expectation
//! differs from the HTML Standard's tree are listed, with the reason, in
//! `tests/data/lol_html_differences.toml`; a listed case must still differ
//! (a listed case that passes fails the run, so the list stays honest).

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use htrewrite::{ContentType, RewritingError, Settings};
use libtest_mimic::{Failed, Trial};
use serde::Deserialize;

/// The expected-differences list.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Differences {
    group: Vec<Group>,
}

/// Cases that differ for one reason.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Group {
    suite: String,
    reason: String,
    /// `"PAGE SELECTOR"` (the page without `.src.html`).
    cases: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Suite {
    SelectorMatching,
    ContentReplacement,
}

impl Suite {
    fn name(self) -> &'static str {
        match self {
            Suite::SelectorMatching => "selector_matching",
            Suite::ContentReplacement => "element_content_replacement",
        }
    }

    fn dir(self) -> PathBuf {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        match self {
            Suite::SelectorMatching => root.join("../selectors/tests/data/lol-html/selector_matching"),
            Suite::ContentReplacement => root.join("tests/data/lol-html/element_content_replacement"),
        }
    }
}

pub(crate) fn trials() -> Vec<Trial> {
    let list_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/lol_html_differences.toml");
    let list: Differences =
        toml::from_str(&std::fs::read_to_string(&list_path).expect("differences list")).expect("differences toml");
    let mut listed: BTreeMap<(String, String), String> = BTreeMap::new();
    for g in list.group {
        for c in g.cases {
            let previous = listed.insert((g.suite.clone(), c.clone()), g.reason.clone());
            assert!(previous.is_none(), "{} {c} listed twice", g.suite);
        }
    }
    let mut trials = Vec::new();
    let mut found = std::collections::BTreeSet::new();
    for suite in [Suite::SelectorMatching, Suite::ContentReplacement] {
        let dir = suite.dir();
        let mut infos: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("dir entry").path())
            .filter(|p| p.to_string_lossy().ends_with("-info.json"))
            .collect();
        infos.sort();
        for info in infos {
            let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&info).expect("info")).expect("json");
            let page = info.file_name().unwrap().to_string_lossy().trim_end_matches("-info.json").to_owned();
            let src = std::fs::read(dir.join(json["src"].as_str().expect("src"))).expect("src file");
            for (i, (selector, file)) in json["selectors"].as_object().expect("selectors").iter().enumerate() {
                let expected = std::fs::read(dir.join(file.as_str().expect("file"))).expect("expected");
                let key = (suite.name().to_owned(), format!("{page} {selector}"));
                let reason = listed.get(&key).cloned();
                found.insert(key);
                let name = format!("{}::{page}::{i}", suite.name());
                let (src, selector, trial_name) = (src.clone(), selector.clone(), name.clone());
                trials.push(Trial::test(name, move || {
                    let got = run(&trial_name, suite, &src, &selector, &expected);
                    match (got, reason) {
                        (Ok(()), None) => Ok(()),
                        (Err(Mismatch::Differs(e)), None) => Err(Failed::from(format!("selector {selector:?}: {e}"))),
                        (Err(Mismatch::Differs(_)), Some(_)) => Ok(()),
                        (Ok(()), Some(reason)) => Err(Failed::from(format!(
                            "selector {selector:?} is listed as an expected difference ({reason}) but passes: \
                             remove it from tests/data/lol_html_differences.toml"
                        ))),
                        (Err(Mismatch::Broken(e)), _) => Err(Failed::from(format!("selector {selector:?}: {e}"))),
                    }
                }));
            }
        }
    }
    for (suite, case) in listed.keys() {
        assert!(found.contains(&(suite.clone(), case.clone())), "listed case {suite} {case} does not exist");
    }
    trials
}

/// Why a case did not pass.
enum Mismatch {
    /// The output differs from lol-html's expectation (may be listed).
    Differs(String),
    /// The rewriter failed or depends on chunking (never listed).
    Broken(String),
}

/// The settings of one case.
fn settings(suite: Suite, selector: &str) -> Settings<'_> {
    let marker = |kind: &str| format!("<!--[{kind}('{selector}')]-->");
    match suite {
        Suite::ContentReplacement => {
            let content = format!("<!--Replaced ({selector}) -->");
            Settings::new().element(selector, move |el| {
                el.set_inner_content(&content, ContentType::Html)?;
                Ok(())
            })
        }
        Suite::SelectorMatching => {
            let (element, end_element) = (marker("ELEMENT"), marker("/ELEMENT"));
            let (comment, end_comment) = (marker("COMMENT"), marker("/COMMENT"));
            let (text, end_text) = (marker("TEXT"), marker("/TEXT"));
            let mut first = true;
            Settings::new()
                .element(selector, move |el| {
                    el.before(&element, ContentType::Html)?;
                    el.after(&end_element, ContentType::Html)?;
                    Ok(())
                })
                .comments(selector, move |c| {
                    c.before(&comment, ContentType::Html)?;
                    c.after(&end_comment, ContentType::Html)?;
                    Ok(())
                })
                .text(selector, move |t| {
                    if first {
                        t.before(&text, ContentType::Html)?;
                    }
                    first = t.last_in_text_node();
                    if first {
                        t.after(&end_text, ContentType::Html)?;
                    }
                    Ok(())
                })
        }
    }
}

/// Drops the joints between adjacent text markers.
fn join_text_markers(html: &str, selector: &str) -> String {
    html.replace(&format!("<!--[/TEXT('{selector}')]--><!--[TEXT('{selector}')]-->"), "")
}

fn run(name: &str, suite: Suite, src: &[u8], selector: &str, expected: &[u8]) -> Result<(), Mismatch> {
    let mut first: Option<Vec<u8>> = None;
    for chunking in common::chunkings(name) {
        let outcome = common::rewrite(settings(suite, selector), src, chunking);
        match outcome.error {
            None => {}
            // Refused by design (lookahead, pseudo-elements, …): agrees
            // with lol-html when it matched nothing either.
            Some(RewritingError::Selector { error, .. }) => {
                let marker = match suite {
                    Suite::SelectorMatching => "<!--[ELEMENT(",
                    Suite::ContentReplacement => "<!--Replaced (",
                };
                if !String::from_utf8_lossy(expected).contains(marker) {
                    return Ok(());
                }
                return Err(Mismatch::Differs(format!("selector refused: {error}")));
            }
            Some(e) => return Err(Mismatch::Broken(format!("[{chunking}] rewriting failed: {e}"))),
        }
        match &first {
            None => first = Some(outcome.output),
            Some(f) if *f != outcome.output => {
                return Err(Mismatch::Broken(format!(
                    "[{chunking}] output differs from the whole input's:\n  whole: {}\n  here:  {}",
                    common::show(f),
                    common::show(&outcome.output)
                )));
            }
            Some(_) => {}
        }
    }
    let got = String::from_utf8_lossy(&first.expect("five chunkings")).into_owned();
    let want = String::from_utf8_lossy(expected).into_owned();
    let (got, want) = match suite {
        Suite::SelectorMatching => (join_text_markers(&got, selector), join_text_markers(&want, selector)),
        Suite::ContentReplacement => (got, want),
    };
    if got == want {
        return Ok(());
    }
    // The first difference, with some context.
    let at = got.bytes().zip(want.bytes()).take_while(|(a, b)| a == b).count();
    let from = at.saturating_sub(80);
    let context = |s: &str| {
        let mut a = from;
        while !s.is_char_boundary(a) {
            a -= 1;
        }
        let mut b = (at + 120).min(s.len());
        while !s.is_char_boundary(b) {
            b += 1;
        }
        format!("{:?}", &s[a..b])
    };
    Err(Mismatch::Differs(format!(
        "outputs differ at byte {at}:\n  got:      {}\n  lol-html: {}",
        context(&got),
        context(&want)
    )))
}
