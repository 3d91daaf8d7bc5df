//! Tokens longer than the staged output's flush size (4 KiB: a comment, a
//! text node, script data, a CDATA section, an attribute value) are handed
//! to the sink from the token instead of copied into the staged output
//! (issue 16, peak heap on pages with long tokens). Each case rewrites one
//! document made of such tokens and markup, with its settings, whole, split
//! at every byte and at three seeded random points, and also in chunks of
//! 1 KiB, 4,095, 4,096, 4,097 and 8,192 bytes, and expects one output: the input
//! itself where nothing is edited, the edited document where something is.
//! The deferred case holds output behind a pending slot (the long tokens'
//! bytes are then staged, not handed over) and fills it after the input.

use crate::common;

use std::cell::RefCell;
use std::rc::Rc;

use common::{Chunking, chunkings, show};
use htrewrite::{ContentType, OnError, Rewriter, RewritingError, Settings, Slot};
use libtest_mimic::{Failed, Trial};

/// The document's pieces: markup, then a unit repeated to make the long
/// token (text, comment, script, attribute value, references, CDATA).
const PIECES: [(&str, &str, usize); 6] = [
    ("<!DOCTYPE html><html><head><title>t</title></head><body><p class=a>", "text ", 2_000),
    ("<!--", "c", 20_000),
    ("--><script>", "var s = 1 < 2;\n", 1_000),
    ("</script><p title=\"", "v", 9_000),
    ("\">", "&amp;", 2_000),
    ("<svg><![CDATA[", "d", 9_000),
];

/// The document: every kind of long token, between elements the cases edit.
fn document() -> String {
    let mut d: String = PIECES.iter().map(|(markup, unit, n)| format!("{markup}{}", unit.repeat(*n))).collect();
    d.push_str("]]></svg><p>end");
    d
}

/// Every chunking of [`chunkings`] and the chunk sizes around the flush size.
fn all_chunkings(doc: &str, name: &str) -> Vec<(String, Vec<Vec<u8>>)> {
    let mut out: Vec<(String, Vec<Vec<u8>>)> = chunkings(name)
        .into_iter()
        .map(|c: Chunking| (c.to_string(), c.chunks(doc.as_bytes()).into_iter().map(<[u8]>::to_vec).collect()))
        .collect();
    for n in [1024, 4095, 4096, 4097, 8192] {
        out.push((format!("chunks of {n}"), doc.as_bytes().chunks(n).map(<[u8]>::to_vec).collect()));
    }
    out
}

/// Rewrites the document with `settings()` in every chunking; each output
/// must be `expected`.
fn check(name: &str, settings: impl Fn() -> Settings<'static>, expected: &str) -> Result<(), Failed> {
    let doc = document();
    let mut failures = Vec::new();
    for (how, chunks) in all_chunkings(&doc, name) {
        let mut output = Vec::new();
        let result = (|| {
            let mut rw = Rewriter::new(settings(), |c: &[u8]| output.extend_from_slice(c))?;
            for c in &chunks {
                rw.write(c)?;
            }
            rw.end().map(|_| ())
        })();
        failures.extend(verdict(&how, result, &output, expected.as_bytes()));
    }
    if failures.is_empty() { Ok(()) } else { Err(failures.join("\n").into()) }
}

/// What is wrong with one rewrite under chunking `how`, if anything: its
/// error, or where its output leaves `expected` (both sides shown there).
fn verdict(how: &str, result: Result<(), RewritingError>, output: &[u8], expected: &[u8]) -> Option<String> {
    if let Err(e) = result {
        return Some(format!("[{how}] error {e}"));
    }
    if output == expected {
        return None;
    }
    let at = output.iter().zip(expected).position(|(a, b)| a != b).unwrap_or(output.len().min(expected.len()));
    let around = |b: &[u8]| show(&b[at.saturating_sub(20)..(at + 40).min(b.len())]);
    Some(format!(
        "[{how}] output differs at byte {at} (lengths {} and {}): {} expected {}",
        output.len(),
        expected.len(),
        around(output),
        around(expected)
    ))
}

/// The ten selectors of the benches, handlers that only read.
fn reading() -> Settings<'static> {
    ["a", "div", "p", "span", "img", "li", "script", "meta", "link[rel]", "ul > li"].iter().fold(
        Settings::new().doc_text(|t| {
            let _ = t.as_str();
            Ok(())
        }),
        |s, sel| {
            s.element(sel, |el| {
                let _ = el.attributes();
                Ok(())
            })
        },
    )
}

/// Settings that append `<script src=/i.js>` to `head`.
fn head_append() -> Settings<'static> {
    Settings::new().element("head", |el| {
        el.append("<script src=/i.js></script>", ContentType::Html)?;
        Ok(())
    })
}

/// Settings that change the first `p`'s class and append a comment to the last `p`.
fn element_edits() -> Settings<'static> {
    Settings::new()
        .element("p.a", |el| {
            el.set_attribute("class", "b")?;
            Ok(())
        })
        .element("p:not([class]):not([title])", |el| {
            el.append("<!--x-->", ContentType::Html)?;
            Ok(())
        })
}

/// Settings whose handler on the `p` with a long attribute fails, the rest passing through.
fn failing() -> Settings<'static> {
    Settings::new().on_error(OnError::PassThrough).element("p[title]", |_| Err("refused".into()))
}

/// A case: its name, its settings and the output expected.
type Case = (&'static str, fn() -> Settings<'static>, String);

pub(crate) fn trials() -> Vec<Trial> {
    let doc = document();
    let cases: [Case; 5] = [
        ("no_handlers_round_trip", Settings::new, doc.clone()),
        ("reading_handlers_round_trip", reading, doc.clone()),
        ("head_append_then_copy", head_append, doc.replacen("</head>", "<script src=/i.js></script></head>", 1)),
        (
            "element_edits_around_long_tokens",
            element_edits,
            doc.replacen("<p class=a>", "<p class=b>", 1).replace("<p>end", "<p>end<!--x-->"),
        ),
        ("failing_handler_passes_through", failing, doc.clone()),
    ];
    let mut trials: Vec<Trial> = cases
        .into_iter()
        .map(|(name, settings, expected)| Trial::test(name, move || check(name, settings, &expected)))
        .collect();
    trials.push(Trial::test("pending_slot_holds_long_tokens", move || deferred(&doc)));
    trials
}

/// A slot on the first `p` pending while the long tokens are read, filled
/// after the input: the output is the filled document, in every chunking.
fn deferred(doc: &str) -> Result<(), Failed> {
    let expected = doc.replacen("<p class=a>", "<p class=a>[filled]", 1);
    let mut failures = Vec::new();
    for (how, chunks) in all_chunkings(doc, "pending_slot_holds_long_tokens") {
        let slots: Rc<RefCell<Vec<Slot>>> = Rc::default();
        let mut output = Vec::new();
        let result = (|| {
            let seen = slots.clone();
            let settings = Settings::new().element("p.a", move |el| {
                seen.borrow_mut().push(el.defer_prepend());
                Ok(())
            });
            let mut rw = Rewriter::new(settings, |c: &[u8]| output.extend_from_slice(c))?;
            for c in &chunks {
                rw.write(c)?;
            }
            rw.finish_input()?;
            let slot = slots.borrow()[0];
            rw.fill(slot, "[filled]", ContentType::Html)?;
            rw.end().map(|_| ())
        })();
        failures.extend(verdict(&how, result, &output, expected.as_bytes()));
    }
    if failures.is_empty() { Ok(()) } else { Err(failures.join("\n").into()) }
}
