//! Target 4: the selector parser.

use htrewrite_selectors::{Namespaces, Program, SelectorList, select_with};
use htrewrite_testkit::{Random, XorShift64Star};

/// Documents the selectors are matched on: no-quirks and quirks, with
/// classes, ids, attributes, siblings, tables (implied `tbody`), foreign
/// content and a reconstructed formatting element.
const DOCUMENTS: [&str; 4] = [
    "<!DOCTYPE html><html lang=en><p class='a B' id=X title=\"x y\"><b>1<p>2</b><ul><li>x<li lang=en-us>y<li class=a>z</ul>\
     <table><tr><td>t</table><svg viewBox='0 0 1 1'><rect/><foreignObject><p>f</p></foreignObject></svg>\
     <math><mi>q</mi><annotation-xml encoding=text/html><div>d</div></annotation-xml></math><a href=h rel='n o'>a</a>",
    "<p class=A id=x><div><span>s</span><span class=a>t</span></div><input type=CHECKBOX><template><i>u</i></template>",
    "<select><option selected>o<option>p</select><dl><dt>a<dd>b</dl><h1 dir=rtl>h</h1><form><button>b</button></form>",
    "",
];

/// The selector parser: never panics, and parse → display → parse is stable.
///
/// `data[0]` picks the namespaces (bit 0: SVG as the default namespace,
/// bit 1: a declared prefix `x` for MathML), `data[1]` the document to match
/// on; the rest, decoded as UTF-8 with replacement characters, is the
/// selector text. Parsing never panics; what parses displays to text that
/// parses again and displays the same, into the same number of selectors.
/// Compiling the text and compiling its display succeed or fail alike, and
/// both match the same elements on the document.
///
/// # Panics
/// When one of those properties fails (that is the finding).
pub fn selector_parse(data: &[u8]) {
    let (flags, pick, input) = match data {
        [a, b, rest @ ..] => (*a, *b, rest),
        _ => (0, 0, data),
    };
    let text = String::from_utf8_lossy(input);
    let mut namespaces = Namespaces::default();
    if flags & 1 != 0 {
        namespaces = namespaces.default_namespace("http://www.w3.org/2000/svg");
    }
    if flags & 2 != 0 {
        namespaces = namespaces.declare("x", "http://www.w3.org/1998/Math/MathML");
    }
    let compiled = Program::with_namespaces([text.as_ref()], &namespaces);
    let list = match SelectorList::parse(&text) {
        Ok(list) => list,
        Err(e) => {
            let _ = (e.to_string(), e.kind(), e.position());
            assert!(compiled.is_err(), "{text:?} does not parse ({e}) but compiles");
            return;
        }
    };
    let shown = list.to_string();
    let again =
        SelectorList::parse(&shown).unwrap_or_else(|e| panic!("{text:?} displays as {shown:?}, which fails: {e}"));
    assert_eq!(again.to_string(), shown, "unstable display: {text:?} → {shown:?} → {again}");
    assert_eq!(again.selectors.len(), list.selectors.len(), "{text:?} → {shown:?}: selector count");
    for (a, b) in list.selectors.iter().zip(&again.selectors) {
        assert_eq!(a.compounds.len(), b.compounds.len(), "{text:?} → {shown:?}: compound count");
        assert_eq!(a.combinators, b.combinators, "{text:?} → {shown:?}: combinators");
    }
    let compiled_again = Program::with_namespaces([shown.as_str()], &namespaces);
    assert_eq!(
        compiled.is_ok(),
        compiled_again.is_ok(),
        "{text:?} and its display {shown:?} compile differently: {:?} vs {:?}",
        compiled.as_ref().err(),
        compiled_again.as_ref().err()
    );
    if compiled.is_ok() {
        let document = DOCUMENTS[usize::from(pick) % DOCUMENTS.len()];
        let a = select_with(document, &text, &namespaces).expect("compiled once");
        let b = select_with(document, &shown, &namespaces).expect("compiled once");
        assert_eq!(a, b, "{text:?} and its display {shown:?} match differently");
    }
}

/// Type selectors the generator picks from.
const TYPES: [&str; 10] = ["", "", "a", "LI", "svg|rect", "*|*", "*", "|p", "foreignObject", "x|mi"];

/// Simple selectors the generator picks from (functional ones take a
/// generated argument).
const SIMPLE: [&str; 16] = [
    ".a",
    "#X",
    "[lang]",
    "[class~=a i]",
    "[lang|='en']",
    "[href^=h s]",
    ":first-child",
    ":root",
    ":first-of-type",
    ":nth-child(2n+1)",
    ":nth-of-type(-n+3)",
    ":nth-child(odd of .a)",
    ":not(",
    ":is(",
    ":where(",
    ".\\31 x",
];

/// Combinators, with the whitespace variants the parser accepts.
const COMBINATORS: [&str; 7] = [" ", " > ", "+", " ~ ", ">", " /**/ ", "\t+\n"];

/// A random [`selector_parse`] input: 2 header bytes, then a selector list
/// built from the supported grammar (nested up to 2 levels in `:not()`,
/// `:is()`, `:where()`; in one input of eight, wrapped in nesting at, just
/// past or far past [`htrewrite_selectors::MAX_NESTING`]), then, in one input of three, up to 3 edits (a
/// dictionary fragment inserted, or a byte removed) so that near misses are
/// tried too.
pub fn random_selector_input(rng: &mut XorShift64Star, dictionary: &[Vec<u8>], max_pieces: usize) -> Vec<u8> {
    let mut out = (rng.next_u64() as u16).to_le_bytes().to_vec();
    let mut text = String::new();
    selector_list(rng, max_pieces.max(1), 0, &mut text);
    if rng.below(8) == 0 {
        // Deep nesting around it: at the parser's limit, just past it, or far past it.
        let limit = htrewrite_selectors::MAX_NESTING;
        let depth = [limit - 1, limit, limit + 1, 20_000][rng.below(4)];
        let open = [":is(", ":not(", ":where(", ":nth-child(1 of "][rng.below(4)];
        text = format!("{}{text}{}", open.repeat(depth), ")".repeat(depth));
    }
    out.extend_from_slice(text.as_bytes());
    if rng.below(3) == 0 {
        for _ in 0..1 + rng.below(3) {
            let at = 2 + rng.below(out.len() - 1);
            if rng.below(2) == 0 && at < out.len() {
                out.remove(at);
            } else {
                let fragment = &dictionary[rng.below(dictionary.len())];
                out.splice(at..at, fragment.iter().copied());
            }
        }
    }
    out
}

/// Appends a random selector list of at most `budget` compounds to `out`.
fn selector_list(rng: &mut XorShift64Star, budget: usize, depth: usize, out: &mut String) {
    for i in 0..1 + rng.below(3) {
        if i > 0 {
            out.push_str([",", ", ", " ,\n"][rng.below(3)]);
        }
        for j in 0..1 + rng.below(budget.clamp(1, 4)) {
            if j > 0 {
                out.push_str(COMBINATORS[rng.below(COMBINATORS.len())]);
            }
            let start = out.len();
            out.push_str(TYPES[rng.below(TYPES.len())]);
            for _ in 0..rng.below(3) {
                let simple = SIMPLE[rng.below(SIMPLE.len())];
                if simple.ends_with('(') {
                    if depth >= 2 {
                        continue;
                    }
                    out.push_str(simple);
                    selector_list(rng, budget / 2, depth + 1, out);
                    out.push(')');
                } else {
                    out.push_str(simple);
                }
            }
            if out.len() == start {
                out.push('*');
            }
        }
    }
}
