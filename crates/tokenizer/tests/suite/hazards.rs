//! Token boundaries on the tokenizer's hazard inputs, each a named case fed
//! whole, split at every byte, and in seeded random splits.

use crate::common;

use common::{Rec, merge, random_splits, run};
use htrewrite_tokenizer::{CommentKind as C, DropReason as D, TextMode as M, TokenKind as K};
use libtest_mimic::Trial;

/// A case: name, input, expected `(kind, raw)` sequence (adjacent text merged).
type Case = (&'static str, &'static str, &'static [(K, &'static str)]);

const CASES: &[Case] = &[
    (
        "plain text and tags",
        "a<b>c</b>",
        &[(K::Text(M::Data), "a"), (K::StartTag, "<b>"), (K::Text(M::Data), "c"), (K::EndTag, "</b>")],
    ),
    ("lt not starting a tag", "a < b <3 <>", &[(K::Text(M::Data), "a < b <3 <>")]),
    ("lt at eof", "a<", &[(K::Text(M::Data), "a<")]),
    ("end tag open at eof", "a</", &[(K::Text(M::Data), "a</")]),
    (
        "missing end tag name",
        "a</>b",
        &[(K::Text(M::Data), "a"), (K::Dropped(D::MissingEndTagName), "</>"), (K::Text(M::Data), "b")],
    ),
    ("bogus end tag comment", "</ x>y", &[(K::Comment(C::BogusEndTag), "</ x>"), (K::Text(M::Data), "y")]),
    (
        "attributes with gt in quotes",
        "<a b='>' c=\">\" d=e>x",
        &[(K::StartTag, "<a b='>' c=\">\" d=e>"), (K::Text(M::Data), "x")],
    ),
    // The tag fast path checks the four bytes after a tag name's first
    // letter one by one, then scans eight bytes at a time: names of one to
    // seven letters, each also cut by every chunk end.
    (
        "short and long tag names",
        "<a><p class=x>t</p></a><b/><i\n>x<ab>y<div\tid=1><span/><abcd><abcde>z</abcdefg ><u",
        &[
            (K::StartTag, "<a>"),
            (K::StartTag, "<p class=x>"),
            (K::Text(M::Data), "t"),
            (K::EndTag, "</p>"),
            (K::EndTag, "</a>"),
            (K::StartTag, "<b/>"),
            (K::StartTag, "<i\n>"),
            (K::Text(M::Data), "x"),
            (K::StartTag, "<ab>"),
            (K::Text(M::Data), "y"),
            (K::StartTag, "<div\tid=1>"),
            (K::StartTag, "<span/>"),
            (K::StartTag, "<abcd>"),
            (K::StartTag, "<abcde>"),
            (K::Text(M::Data), "z"),
            (K::EndTag, "</abcdefg >"),
            (K::Dropped(D::EofInTag), "<u"),
        ],
    ),
    // Attribute names go through the same four-byte check before the scan:
    // names of one to fourteen bytes, ending at `=`, space, `/` and `>`.
    (
        "short and long attribute names",
        "<a id=1 href=\"x\" class='y' data-long-name=z n lang/><b c d=e>f<i xy",
        &[
            (K::StartTag, "<a id=1 href=\"x\" class='y' data-long-name=z n lang/>"),
            (K::StartTag, "<b c d=e>"),
            (K::Text(M::Data), "f"),
            (K::Dropped(D::EofInTag), "<i xy"),
        ],
    ),
    ("quote inside attribute name", "<a b\"c>d\">", &[(K::StartTag, "<a b\"c>"), (K::Text(M::Data), "d\">")]),
    ("self closing and solidus", "<br/><a/b>", &[(K::StartTag, "<br/>"), (K::StartTag, "<a/b>")]),
    ("eof in tag", "x<a b='c", &[(K::Text(M::Data), "x"), (K::Dropped(D::EofInTag), "<a b='c")]),
    (
        "comment ends",
        "<!--a-->b<!--c--!>d<!-->e<!--->f<!---->g",
        &[
            (K::Comment(C::Regular), "<!--a-->"),
            (K::Text(M::Data), "b"),
            (K::Comment(C::Regular), "<!--c--!>"),
            (K::Text(M::Data), "d"),
            (K::Comment(C::Regular), "<!-->"),
            (K::Text(M::Data), "e"),
            (K::Comment(C::Regular), "<!--->"),
            (K::Text(M::Data), "f"),
            (K::Comment(C::Regular), "<!---->"),
            (K::Text(M::Data), "g"),
        ],
    ),
    (
        "comment dashes",
        "<!-- a -- b --- c ---->x",
        &[(K::Comment(C::Regular), "<!-- a -- b --- c ---->"), (K::Text(M::Data), "x")],
    ),
    ("comment bang dash", "<!--a--!-->x", &[(K::Comment(C::Regular), "<!--a--!-->"), (K::Text(M::Data), "x")]),
    ("nested comment opener", "<!-- <!-- -->x", &[(K::Comment(C::Regular), "<!-- <!-- -->"), (K::Text(M::Data), "x")]),
    ("unclosed comment", "<!-- a -", &[(K::Comment(C::Regular), "<!-- a -")]),
    (
        "bogus markup declarations",
        "<!x><!-x><!DOCTYP><!>",
        &[
            (K::Comment(C::BogusMarkupDeclaration), "<!x>"),
            (K::Comment(C::BogusMarkupDeclaration), "<!-x>"),
            (K::Comment(C::BogusMarkupDeclaration), "<!DOCTYP>"),
            (K::Comment(C::BogusMarkupDeclaration), "<!>"),
        ],
    ),
    ("lt bang at eof", "<!", &[(K::Comment(C::BogusMarkupDeclaration), "<!")]),
    (
        "doctype ends at first gt",
        "<!DOCTYPE html PUBLIC \"a>b\">c",
        &[(K::Doctype, "<!DOCTYPE html PUBLIC \"a>"), (K::Text(M::Data), "b\">c")],
    ),
    ("doctype any case", "<!doCtyPe html>", &[(K::Doctype, "<!doCtyPe html>")]),
    (
        "cdata not allowed",
        "<![CDATA[x]]>y",
        &[(K::Comment(C::BogusMarkupDeclaration), "<![CDATA[x]]>"), (K::Text(M::Data), "y")],
    ),
    (
        "processing instructions",
        "<?a b?><?xml x><?1><? ><?_x>",
        &[
            (K::ProcessingInstruction, "<?a b?>"),
            (K::Comment(C::BogusProcessingInstruction), "<?xml x>"),
            (K::Comment(C::BogusProcessingInstruction), "<?1>"),
            (K::Comment(C::BogusProcessingInstruction), "<? >"),
            (K::ProcessingInstruction, "<?_x>"),
        ],
    ),
    (
        "processing instruction data to first gt",
        "<?t d > ?>",
        &[(K::ProcessingInstruction, "<?t d >"), (K::Text(M::Data), " ?>")],
    ),
    (
        "xml-stylesheet is a comment",
        "<?XML-Stylesheet href=x?>",
        &[(K::Comment(C::BogusProcessingInstruction), "<?XML-Stylesheet href=x?>")],
    ),
    (
        "unfinished processing instruction",
        "a<?start data",
        &[(K::Text(M::Data), "a"), (K::Dropped(D::EofInProcessingInstruction), "<?start data")],
    ),
    ("lt question at eof", "<?", &[(K::Dropped(D::EofInProcessingInstruction), "<?")]),
    (
        "rcdata end tag matching",
        "<title>a</titlex></title >b",
        &[
            (K::StartTag, "<title>"),
            (K::Text(M::Rcdata), "a</titlex>"),
            (K::EndTag, "</title >"),
            (K::Text(M::Data), "b"),
        ],
    ),
    (
        "rcdata end tag cut by eof",
        "<title>a</title ",
        &[(K::StartTag, "<title>"), (K::Text(M::Rcdata), "a"), (K::Dropped(D::EofInTag), "</title ")],
    ),
    (
        "rcdata partial end tag at eof",
        "<textarea>a</texta",
        &[(K::StartTag, "<textarea>"), (K::Text(M::Rcdata), "a</texta")],
    ),
    (
        "rawtext end tag case",
        "<style>a</STYLE>",
        &[(K::StartTag, "<style>"), (K::Text(M::Rawtext), "a"), (K::EndTag, "</STYLE>")],
    ),
    // `</script>` in double-escaped text only ends the double escape; the next one ends the element.
    (
        "script escapes",
        "<script><!--<script></script>x</script>--></script>y",
        &[
            (K::StartTag, "<script>"),
            (K::Text(M::ScriptData), "<!--<script></script>x"),
            (K::EndTag, "</script>"),
            (K::Text(M::Data), "-->"),
            (K::EndTag, "</script>"),
            (K::Text(M::Data), "y"),
        ],
    ),
    (
        "script escaped end",
        "<script><!--x</script>y",
        &[
            (K::StartTag, "<script>"),
            (K::Text(M::ScriptData), "<!--x"),
            (K::EndTag, "</script>"),
            (K::Text(M::Data), "y"),
        ],
    ),
    (
        "script comment closes escape",
        "<script><!-- a --><script></script>",
        &[(K::StartTag, "<script>"), (K::Text(M::ScriptData), "<!-- a --><script>"), (K::EndTag, "</script>")],
    ),
    // `-->` in double-escaped text returns to plain script data.
    (
        "script double escape end",
        "<script><!--<script>--></script>z</script>",
        &[
            (K::StartTag, "<script>"),
            (K::Text(M::ScriptData), "<!--<script>-->"),
            (K::EndTag, "</script>"),
            (K::Text(M::Data), "z"),
            (K::EndTag, "</script>"),
        ],
    ),
    (
        "script double escaped stays",
        "<script><!--<script></scrip></script>--></script>",
        &[
            (K::StartTag, "<script>"),
            (K::Text(M::ScriptData), "<!--<script></scrip></script>-->"),
            (K::EndTag, "</script>"),
        ],
    ),
    (
        "plaintext",
        "<plaintext></plaintext><b>",
        &[(K::StartTag, "<plaintext>"), (K::Text(M::Plaintext), "</plaintext><b>")],
    ),
    ("cr and crlf", "a\r\nb\rc\r", &[(K::Text(M::Data), "a\r\nb\rc\r")]),
    ("character references", "&amp;&notit;&#x0000041;&xyz;&", &[(K::Text(M::Data), "&amp;&notit;&#x0000041;&xyz;&")]),
    // Fuzz findings (fuzz/findings): a held `<` followed by a reference
    // split across chunks; `<` before `<` (error span).
    ("lt then reference", "x<&amp;y<&#x41;", &[(K::Text(M::Data), "x<&amp;y<&#x41;")]),
    ("lt lt", "<<)", &[(K::Text(M::Data), "<<)")]),
    (
        "nul bytes",
        "a\0<b\0 c\0=\0>\0",
        &[(K::Text(M::Data), "a\0"), (K::StartTag, "<b\0 c\0=\0>"), (K::Text(M::Data), "\0")],
    ),
];

fn expect(case: &Case) -> Vec<(K, Vec<u8>)> {
    case.2.iter().map(|(k, r)| (*k, r.as_bytes().to_vec())).collect()
}

/// The decoded text of all text tokens, concatenated, and all in-token error codes.
fn decoded(tokens: &[Rec]) -> (String, Vec<String>) {
    let text = tokens.iter().filter_map(|t| t.text.as_deref()).collect();
    let errors = tokens.iter().flat_map(|t| t.errors.iter().cloned()).collect();
    (text, errors)
}

fn got(tokens: &[Rec]) -> Vec<(K, Vec<u8>)> {
    merge(tokens).into_iter().map(|t| (t.kind, t.raw)).collect()
}

fn check(case: &Case) {
    let input = case.1.as_bytes();
    let want = expect(case);
    let whole = run(input, &[], true, None);
    assert_eq!(got(&whole), want, "case {:?} fed whole", case.0);
    let every: Vec<usize> = (1..input.len()).collect();
    assert_eq!(
        decoded(&run(input, &every, true, None)),
        decoded(&whole),
        "case {:?}: decoded text and errors fed byte by byte",
        case.0
    );
    for k in 1..input.len() {
        assert_eq!(got(&run(input, &[k], true, None)), want, "case {:?} split at {k}", case.0);
    }
    let every: Vec<usize> = (1..input.len()).collect();
    assert_eq!(got(&run(input, &every, true, None)), want, "case {:?} split at every byte", case.0);
    for seed in 0..3u64 {
        let splits = random_splits(seed ^ 0x5eed, input.len());
        assert_eq!(got(&run(input, &splits, true, None)), want, "case {:?} seed {seed} splits {splits:?}", case.0);
    }
}

pub(crate) fn trials() -> Vec<Trial> {
    CASES
        .iter()
        .map(|case| {
            libtest_mimic::Trial::test(case.0, move || std::panic::catch_unwind(|| check(case)).map_err(panic_message))
        })
        .collect()
}

fn panic_message(e: Box<dyn std::any::Any + Send>) -> libtest_mimic::Failed {
    let msg = e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()));
    msg.unwrap_or_else(|| "panic".into()).into()
}
