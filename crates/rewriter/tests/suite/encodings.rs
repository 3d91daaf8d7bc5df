//! Encodings: one named test per (property, encoding), each run whole,
//! split at every byte and in three seeded random splittings.
//!
//! - `round_trip::E`: no handlers, and handlers that only read, give the
//!   input back byte for byte.
//! - `decoded_views::E`: handlers get the right Rust strings for a non-ASCII
//!   attribute value, text and comment.
//! - `inserted_text::E`: inserted non-ASCII text is written in the
//!   document's encoding; characters it lacks become numeric references.
//! - `unencodable_in_script::E`: the same characters in a `<script>` are
//!   refused with [`EditErrorKind::Unencodable`].
//! - `sniffing::*`: a `<meta charset>` switch from the windows-1252
//!   fallback, a transport charset winning over it, and BOMs (UTF-8,
//!   UTF-16LE) kept in the output.

use crate::common;

use std::cell::RefCell;

use encoding_rs::Encoding;
use htrewrite::{ContentType, EditErrorKind, Settings};
use libtest_mimic::{Failed, Trial};

/// (encoding, text it can represent, used in the documents).
const ENCODINGS: &[(&str, &str)] = &[
    ("UTF-8", "é ő 漢 € 😀"),
    ("windows-1252", "é € ü ñ"),
    ("Shift_JIS", "漢字 かな ソ表 ﾊﾝｶｸ"),
    ("gb18030", "汉字 é ő € 😀"),
    ("ISO-8859-2", "ő ű č ä"),
    ("UTF-16LE", "é ő 漢 😀"),
    ("UTF-16BE", "é ő 漢 😀"),
];

/// Inserted text: some characters every encoding lacks.
const INSERTED: &str = "é€漢ő😀";

pub(crate) fn trials() -> Vec<Trial> {
    let mut trials = Vec::new();
    for &(label, sample) in ENCODINGS {
        let enc = Encoding::for_label(label.as_bytes()).expect("label");
        trials.push(Trial::test(format!("round_trip::{label}"), move || round_trip(enc, sample)));
        trials.push(Trial::test(format!("decoded_views::{label}"), move || decoded_views(enc, sample)));
        trials.push(Trial::test(format!("inserted_text::{label}"), move || inserted_text(enc, sample)));
        if !is_unicode(enc) {
            trials.push(Trial::test(format!("unencodable_in_script::{label}"), move || unencodable_in_script(enc)));
        }
    }
    trials.push(Trial::test("sniffing::meta_charset_switch", meta_charset_switch));
    trials.push(Trial::test("sniffing::iso_2022_jp_copied_without_handlers", iso_2022_jp_copied_without_handlers));
    trials.push(Trial::test("sniffing::transport_wins_over_meta", transport_wins_over_meta));
    trials.push(Trial::test("sniffing::fallback_without_meta", fallback_without_meta));
    trials.push(Trial::test("sniffing::utf8_bom_kept", utf8_bom_kept));
    trials.push(Trial::test("sniffing::utf16le_bom_kept", utf16le_bom_kept));
    trials
}

/// Whether `enc` can represent every character.
fn is_unicode(enc: &'static Encoding) -> bool {
    enc == encoding_rs::UTF_8
        || enc == encoding_rs::UTF_16LE
        || enc == encoding_rs::UTF_16BE
        || enc == encoding_rs::GB18030
}

/// `s` in `enc` (encoding_rs encodes UTF-16 labels as UTF-8, so by hand).
fn encode(s: &str, enc: &'static Encoding) -> Vec<u8> {
    if enc == encoding_rs::UTF_16LE {
        s.encode_utf16().flat_map(u16::to_le_bytes).collect()
    } else if enc == encoding_rs::UTF_16BE {
        s.encode_utf16().flat_map(u16::to_be_bytes).collect()
    } else {
        let (bytes, _, unmappable) = enc.encode(s);
        assert!(!unmappable, "{s:?} in {}", enc.name());
        bytes.into_owned()
    }
}

/// `s` with the characters `enc` lacks as numeric references.
fn with_references(s: &str, enc: &'static Encoding) -> String {
    s.chars()
        .map(|c| {
            let mut b = [0; 4];
            if is_unicode(enc) || !enc.encode(c.encode_utf8(&mut b)).2 {
                c.to_string()
            } else {
                format!("&#{};", c as u32)
            }
        })
        .collect()
}

fn document(sample: &str) -> String {
    format!(
        "<!DOCTYPE html><html><head><title>{sample}</title></head>\n<body><p title=\"{sample}\" class=x>{sample}</p>\
         <!--{sample}--><script>var s = \"{sample}\";</script><img alt='{sample}'></body></html>"
    )
}

fn settings<'h>(enc: &'static Encoding) -> Settings<'h> {
    Settings::new().encoding(enc.name()).expect("label")
}

/// Runs every chunking; output must equal `want`.
fn expect_output<'h>(
    name: &str,
    input: &[u8],
    want: &[u8],
    mut settings: impl FnMut() -> Settings<'h>,
) -> Result<(), Failed> {
    common::each_chunking(name, |chunking| {
        let outcome = common::rewrite(settings(), input, chunking);
        if let Some(e) = outcome.error {
            return Err(format!("failed: {e}"));
        }
        if outcome.output != want {
            return Err(format!("got {}\n  want {}", common::show(&outcome.output), common::show(want)));
        }
        Ok(())
    })
    .map_err(Failed::from)
}

fn round_trip(enc: &'static Encoding, sample: &str) -> Result<(), Failed> {
    let input = encode(&document(sample), enc);
    expect_output(&format!("round_trip {}", enc.name()), &input, &input, || settings(enc))?;
    expect_output(&format!("round_trip full {}", enc.name()), &input, &input, || settings(enc).full_pipeline(true))?;
    expect_output(&format!("round_trip reading {}", enc.name()), &input, &input, || {
        common::reading_handlers().encoding(enc.name()).expect("label")
    })
}

fn decoded_views(enc: &'static Encoding, sample: &str) -> Result<(), Failed> {
    let input = encode(&document(sample), enc);
    common::each_chunking(&format!("decoded_views {}", enc.name()), |chunking| {
        let seen = RefCell::new(Vec::new());
        let text = RefCell::new(String::new());
        let settings = settings(enc)
            .element("p, img", |el| {
                let attr = el.get_attribute("title").or_else(|| el.get_attribute("alt")).unwrap_or_default();
                seen.borrow_mut().push(format!("attr {attr}"));
                Ok(())
            })
            .text("p, title", |t| {
                text.borrow_mut().push_str(t.as_str());
                if t.last_in_text_node() {
                    seen.borrow_mut().push(format!("text {}", text.take()));
                }
                Ok(())
            })
            .doc_comments(|c| {
                seen.borrow_mut().push(format!("comment {}", c.text()));
                Ok(())
            });
        let outcome = common::rewrite(settings, &input, chunking);
        if let Some(e) = outcome.error {
            return Err(format!("failed: {e}"));
        }
        let want: Vec<String> =
            ["text", "attr", "text", "comment", "attr"].iter().map(|k| format!("{k} {sample}")).collect();
        let got = seen.into_inner();
        if got != want {
            return Err(format!("got {got:?}, want {want:?}"));
        }
        Ok(())
    })
    .map_err(Failed::from)
}

fn inserted_text(enc: &'static Encoding, sample: &str) -> Result<(), Failed> {
    let doc = document(sample);
    let input = encode(&doc, enc);
    let marked = format!("{sample}</p>");
    let at = doc.find(&marked).expect("the p") + sample.len();
    let want = format!("{}{}&lt;{}", &doc[..at], with_references(INSERTED, enc), &doc[at..]);
    let want = encode(&want, enc);
    expect_output(&format!("inserted_text {}", enc.name()), &input, &want, || {
        settings(enc).element("p", |el| {
            el.append(&format!("{INSERTED}<"), ContentType::Text)?;
            Ok(())
        })
    })
}

fn unencodable_in_script(enc: &'static Encoding) -> Result<(), Failed> {
    let input = encode(&document("x"), enc);
    common::each_chunking(&format!("unencodable_in_script {}", enc.name()), |chunking| {
        let kinds = RefCell::new(Vec::new());
        let settings = settings(enc).element("script", |el| {
            if let Err(e) = el.append(INSERTED, ContentType::Text) {
                kinds.borrow_mut().push(e.kind());
            }
            Ok(())
        });
        let outcome = common::rewrite(settings, &input, chunking);
        if outcome.error.is_some() || outcome.output != input {
            return Err(format!("output {} error {:?}", common::show(&outcome.output), outcome.error));
        }
        match kinds.into_inner()[..] {
            [EditErrorKind::Unencodable] => Ok(()),
            ref other => Err(format!("edit errors {other:?}, want [Unencodable]")),
        }
    })
    .map_err(Failed::from)
}

/// Sniffs with `transport` and the windows-1252 fallback; returns what a
/// handler read of `<p>`'s text, checking the output is the input.
fn sniffed_text(name: &str, input: &[u8], transport: Option<&str>, want: &str) -> Result<(), Failed> {
    common::each_chunking(name, |chunking| {
        let text = RefCell::new(String::new());
        let settings = Settings::new().sniff_encoding(transport, "windows-1252").expect("labels").text("p", |t| {
            text.borrow_mut().push_str(t.as_str());
            Ok(())
        });
        let outcome = common::rewrite(settings, input, chunking);
        if let Some(e) = outcome.error {
            return Err(format!("failed: {e}"));
        }
        if outcome.output != input {
            return Err(format!("output {} != input", common::show(&outcome.output)));
        }
        let got = text.into_inner();
        if got != want {
            return Err(format!("text {got:?}, want {want:?}"));
        }
        Ok(())
    })
    .map_err(Failed::from)
}

/// ISO-2022-JP has no lossless byte-level tokenization: with handlers it is
/// [`RewritingError::Encoding`](htrewrite::RewritingError::Encoding); with
/// none the rewriter copies the document, so the output is the input.
fn iso_2022_jp_copied_without_handlers() -> Result<(), Failed> {
    let input = encode("<meta charset=iso-2022-jp><p>漢字 &lt;</p>", encoding_rs::ISO_2022_JP);
    assert!(input.contains(&0x1b), "an escape sequence in the input");
    common::each_chunking("iso_2022_jp_copied_without_handlers", |chunking| {
        let plain =
            common::rewrite(Settings::new().sniff_encoding(None, "windows-1252").expect("labels"), &input, chunking);
        if plain.error.is_some() || plain.output != input {
            return Err(format!("no handlers: output {} error {:?}", common::show(&plain.output), plain.error));
        }
        let reading = Settings::new().sniff_encoding(None, "windows-1252").expect("labels").element("p", |_| Ok(()));
        match common::rewrite(reading, &input, chunking).error {
            Some(htrewrite::RewritingError::Encoding(m)) if m.contains("ISO-2022-JP") => Ok(()),
            other => Err(format!("a read-only handler: error {other:?}, want Encoding(ISO-2022-JP …)")),
        }
    })
    .map_err(Failed::from)
}

fn meta_charset_switch() -> Result<(), Failed> {
    let doc = "<!DOCTYPE html><html><head><meta charset=\"iso-8859-2\"><title>t</title></head><p>ő ű</p>";
    sniffed_text("meta_charset_switch", &encode(doc, encoding_rs::ISO_8859_2), None, "ő ű")
}

fn transport_wins_over_meta() -> Result<(), Failed> {
    let doc = "<meta charset=windows-1252><p>漢字</p>";
    sniffed_text("transport_wins_over_meta", &encode(doc, encoding_rs::SHIFT_JIS), Some("shift_jis"), "漢字")
}

fn fallback_without_meta() -> Result<(), Failed> {
    sniffed_text("fallback_without_meta", b"<p>caf\xE9 \x80</p>", None, "café €")
}

fn utf8_bom_kept() -> Result<(), Failed> {
    let mut input = b"\xEF\xBB\xBF".to_vec();
    input.extend_from_slice("<meta charset=windows-1252><p>é</p>".as_bytes());
    sniffed_text("utf8_bom_kept", &input, None, "é")
}

fn utf16le_bom_kept() -> Result<(), Failed> {
    let doc = "<p>é 漢</p>";
    let mut input = vec![0xFF, 0xFE];
    input.extend(encode(doc, encoding_rs::UTF_16LE));
    sniffed_text("utf16le_bom_kept", &input, None, "é 漢")?;
    let mut want = vec![0xFF, 0xFE];
    want.extend(encode("<p>é 漢ő&amp;</p>", encoding_rs::UTF_16LE));
    expect_output("utf16le_bom_kept insert", &input, &want, || {
        Settings::new().sniff_encoding(None, "windows-1252").expect("labels").element("p", |el| {
            el.append("ő&", ContentType::Text)?;
            Ok(())
        })
    })
}
