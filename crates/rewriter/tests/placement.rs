//! Where edits land does not depend on the chunking, exhaustively over short
//! documents (the Standard's rules for character tokens differ per insertion
//! mode: whitespace, NULs and other characters open, close and reconstruct
//! elements at different characters, and a character can switch the mode
//! for the ones after it).
//!
//! Every document of 1 to 5 pieces from [`PIECES`] (3,368,420 documents),
//! and every one from [`NEWLINE_PIECES`] (the newline that `<pre>`,
//! `<listing>` and `<textarea>` ignore, as LF, CR, CR LF and references;
//! 579,194 documents), is rewritten with `before`, `prepend`, `append` and `after` on every element,
//! `remove()` on `b`, `remove_and_keep_content()` on `i` and `div` and
//! `set_inner_content` on `td`, `caption` and `template`, fed whole and one
//! byte at a time; the outputs must be equal. One named trial per set and
//! first piece (`placement::starts_with_02_b`, `newline::starts_with_00_pre`),
//! each with every continuation. The first set found three placement bugs the
//! data cases and the fuzzer had not (text after `<colgroup>`, text
//! foster-parented in a table, text after "after after frameset"); the second
//! was added for one the fuzzer found (events of text after `<pre>` placed
//! before the newline it ignores when the text came whole).

#[path = "suite/common/mod.rs"]
mod common;

use common::Chunking;
use std::sync::OnceLock;

use htrewrite::{ContentType, Selectors, Settings};
use libtest_mimic::{Arguments, Failed, Trial};

/// The pieces: tags that switch insertion modes or leave formatting elements
/// to reconstruct, and the characters whose rules differ (a NUL, whitespace,
/// a whitespace reference, a letter).
const PIECES: &[&str] = &[
    "<table>",
    "<tr>",
    "<b>",
    "<i>",
    "</b>",
    "<div>",
    "<p>",
    "</body>",
    "</html>",
    "<frameset>",
    "<head>",
    "<colgroup>",
    "\0",
    " ",
    "x",
    "&#32;",
    "<td>",
    "<template>",
    "<select>",
    "<caption>",
];

/// The pieces around the newline the "in body" rules ignore right after
/// `<pre>` and `<listing>` (and "in body" sends `<textarea>` to RCDATA with
/// the same rule): the tags, a formatting element to reconstruct, the ways
/// to write the newline, and characters after it.
const NEWLINE_PIECES: &[&str] = &[
    "<pre>",
    "<listing>",
    "<textarea>",
    "</pre>",
    "<b>",
    "<p>",
    "\n",
    "\r",
    "&#10;",
    "&#x0A;",
    "&NewLine;",
    " ",
    "x",
    "\0",
];

/// Pieces per document, at most.
const MAX_PIECES: u32 = 5;

/// The selectors of [`settings`], compiled once: the test makes two
/// rewriters a document (7.9 million), and compiling their selectors for
/// each was about a quarter of its time (the whole test 106 s → 77 s, 209 →
/// 152 s of CPU, test profile).
fn selectors() -> &'static Selectors {
    static SELECTORS: OnceLock<Selectors> = OnceLock::new();
    SELECTORS.get_or_init(|| Selectors::new(SELECTORS_USED).expect("valid selectors"))
}

/// The selectors [`settings`] uses.
const SELECTORS_USED: [&str; 4] = ["b", "i, div", "td, caption, template", "*"];

fn settings() -> Settings<'static> {
    let [b, i_div, cells, any] = SELECTORS_USED;
    Settings::new()
        .with_selectors(selectors())
        .element(b, |el| {
            el.remove();
            Ok(())
        })
        .element(i_div, |el| {
            el.remove_and_keep_content();
            Ok(())
        })
        .element(cells, |el| {
            // Refused (a typed error) on elements that cannot have content.
            let _refused = el.set_inner_content("{}", ContentType::Html);
            Ok(())
        })
        .element(any, |el| {
            // Elements without a start tag refuse `before`; that is part of what is compared.
            let _refused = el.before("[", ContentType::Html);
            let _refused = el.prepend("(", ContentType::Html);
            let _refused = el.append(")", ContentType::Html);
            let _refused = el.after("]", ContentType::Html);
            Ok(())
        })
}

/// Every document of `pieces` that starts with piece `first`: whole and
/// byte by byte agree.
fn starting_with(pieces: &[&str], first: usize) -> Result<(), Failed> {
    let n = pieces.len();
    let mut failures = Vec::new();
    let mut documents = 0usize;
    for more in 0..MAX_PIECES {
        for mut k in 0..n.pow(more) {
            let mut doc = String::from(pieces[first]);
            for _ in 0..more {
                doc.push_str(pieces[k % n]);
                k /= n;
            }
            documents += 1;
            let whole = common::rewrite(settings(), doc.as_bytes(), Chunking::Whole);
            let bytewise = common::rewrite(settings(), doc.as_bytes(), Chunking::Bytewise);
            if whole.output != bytewise.output || whole.error.is_some() || bytewise.error.is_some() {
                failures.push(format!(
                    "{:?}\n  whole:        {} {:?}\n  byte by byte: {} {:?}",
                    doc,
                    common::show(&whole.output),
                    whole.error,
                    common::show(&bytewise.output),
                    bytewise.error
                ));
            }
        }
    }
    if failures.is_empty() {
        return Ok(());
    }
    let shown: Vec<&String> = failures.iter().take(10).collect();
    Err(format!(
        "{} of {documents} documents differ; the first {}:\n{}",
        failures.len(),
        shown.len(),
        shown.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    )
    .into())
}

fn main() {
    let args = Arguments::from_args();
    assert!(!settings().compiles_selectors(), "a selector of settings() is not in selectors()");
    let sets: [(&str, &'static [&'static str]); 2] = [("placement", PIECES), ("newline", NEWLINE_PIECES)];
    let trials = sets
        .into_iter()
        .flat_map(|(set, pieces)| {
            (0..pieces.len()).map(move |i| {
                let label = match pieces[i] {
                    "\0" => "nul".to_owned(),
                    " " => "space".to_owned(),
                    "\n" => "lf".to_owned(),
                    "\r" => "cr".to_owned(),
                    "&#32;" => "space_reference".to_owned(),
                    "&#10;" => "lf_reference".to_owned(),
                    "&#x0A;" => "lf_hex_reference".to_owned(),
                    "&NewLine;" => "lf_named_reference".to_owned(),
                    p if p.starts_with("</") => format!("end_{}", p.trim_matches(['<', '/', '>'])),
                    p => p.trim_matches(['<', '>']).to_owned(),
                };
                Trial::test(format!("{set}::starts_with_{i:02}_{label}"), move || starting_with(pieces, i))
            })
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
