//! Target 5: encoding sniffing, the UTF-16 front end, and the rewriter with
//! sniffing on.

use std::borrow::Cow;

use htrewrite::encoding::{
    InsertContext, PRESCAN_LIMIT, Prescan, Strategy, Utf16Front, decode_to_utf8, encode_inserted, encoding_for_label,
    intermediate_to_utf16, prescan, sniff_bom, sniff_encoding, strategy,
};
use htrewrite::{OnError, RewritingError, Settings};

use crate::split_points;

/// Transport-layer labels the target picks from (`None`: no charset).
const TRANSPORT: [Option<&str>; 8] =
    [None, None, None, Some("utf-8"), Some("latin1"), Some("shift_jis"), Some("utf-16le"), Some("iso-2022-jp")];

/// Fallback (default) encodings the target picks from.
const FALLBACK: [&str; 8] =
    ["windows-1252", "utf-8", "shift_jis", "utf-16be", "gb18030", "x-user-defined", "iso-2022-jp", "big5"];

/// Encoding sniffing, never panicking and independent of the chunking.
///
/// `data[0]` picks the transport label (bits 0–2), the fallback encoding
/// (bits 3–5), read-only handlers on every element, text chunk and comment
/// (bit 6) and [`OnError::PassThrough`] rather than [`OnError::Stop`]
/// (bit 7); `data[1]` the chunking; the rest is the document, any bytes.
///
/// - [`sniff_encoding`] at the end of the input decides; on every prefix of
///   the input that ends at a chunk boundary (up to the first decision)
///   it either waits (`None`) or decides the same; with
///   [`PRESCAN_LIMIT`] bytes it always decides. [`prescan`] likewise: a
///   final answer on a prefix is the answer on the whole input.
/// - [`Utf16Front`], both byte orders: the same intermediate and raw tail
///   whole and in chunks; each chunk's output converted back with
///   [`intermediate_to_utf16`], plus the tail, is the input; the
///   intermediate read as UTF-8 is the Encoding Standard's UTF-16 decoding
///   of the input.
/// - [`decode_to_utf8`] and [`encode_inserted`] (all contexts) do not panic;
///   text contexts never fail, and a failure leaves the output as it was.
/// - The rewriter with sniffing on (and no handlers, or read-only ones)
///   gives back the input byte for byte, whole and in chunks; with
///   [`OnError::Stop`] an encoding without a lossless byte mapping is an
///   encoding error instead, whole and in chunks alike.
///
/// # Panics
/// When one of those properties fails (that is the finding).
pub fn encoding_sniff(data: &[u8]) {
    let (flags, pick, input) = match data {
        [a, b, rest @ ..] => (*a, *b, rest),
        _ => (0, 0, data),
    };
    let transport_label = TRANSPORT[usize::from(flags & 7)];
    let fallback_label = FALLBACK[usize::from(flags >> 3 & 7)];
    let transport = transport_label.and_then(encoding_for_label);
    let fallback = encoding_for_label(fallback_label).expect("a known label");
    let splits = split_points(u16::from(pick), input.len());

    // Labels: any text.
    let _ = encoding_for_label(&String::from_utf8_lossy(input));
    let _ = sniff_bom(input);

    let last = sniff_encoding(input, true, transport, fallback).expect("sniffing decides at the end of the input");
    let last_prescan = prescan(input, true);
    assert_ne!(last_prescan, Prescan::NeedMore, "prescan at the end of the input");
    let mut at = 0;
    let (mut sniff_decided, mut prescan_decided) = (false, false);
    for &n in &splits {
        at += n;
        if at > PRESCAN_LIMIT + 8 || (sniff_decided && prescan_decided) {
            break;
        }
        let prefix = &input[..at];
        if !sniff_decided {
            match sniff_encoding(prefix, false, transport, fallback) {
                Some(s) => {
                    assert_eq!(s, last, "sniffed after {at} bytes, then otherwise at the end ({transport_label:?})");
                    sniff_decided = true;
                }
                None => assert!(at < PRESCAN_LIMIT, "still undecided after {at} bytes"),
            }
        }
        if !prescan_decided {
            match prescan(prefix, false) {
                Prescan::NeedMore => assert!(at < PRESCAN_LIMIT, "prescan needs more after {at} bytes"),
                p => {
                    assert_eq!(p, last_prescan, "prescan final after {at} bytes, then otherwise at the end");
                    prescan_decided = true;
                }
            }
        }
    }

    for big_endian in [false, true] {
        utf16_front(input, big_endian, &splits);
    }

    let text = decode_to_utf8(input, last.encoding);
    let text = if text.len() > 256 { Cow::Borrowed(&text[..text.floor_char_boundary(256)]) } else { text };
    for context in [InsertContext::Text, InsertContext::AttributeValue, InsertContext::Raw] {
        let mut out = b"x".to_vec();
        match encode_inserted(&text, last.encoding, context, &mut out) {
            Ok(()) => {}
            Err(e) => {
                assert_eq!(context, InsertContext::Raw, "{e} in {context:?}");
                assert_eq!(out, b"x", "a failed encode_inserted changed the output");
                let _ = (e.to_string(), e.character(), e.offset(), e.encoding());
            }
        }
    }

    let pass_through = flags & 128 != 0;
    // With no handlers the rewriter copies its input in any encoding; with
    // handlers an encoding without a lossless byte mapping is an error.
    let unsupported = strategy(last.encoding) == Strategy::Unsupported && flags & 64 != 0;
    for chunks in [&[input.len()][..], &splits] {
        match rewrite(input, chunks, transport_label, fallback_label, flags & 64 != 0, pass_through) {
            Ok(out) => {
                assert!(!unsupported || pass_through, "{} rewritten with OnError::Stop", last.encoding.name());
                if out != input {
                    let at = out.iter().zip(input).position(|(a, b)| a != b).unwrap_or(out.len().min(input.len()));
                    panic!(
                        "output differs from the input from byte {at} on ({} bytes out, {} in; {}, chunks {chunks:?})",
                        out.len(),
                        input.len(),
                        last.encoding.name()
                    );
                }
            }
            Err(RewritingError::Encoding(m)) if unsupported && !pass_through => {
                assert!(m.contains(last.encoding.name()), "encoding error {m:?} does not name {}", last.encoding.name())
            }
            Err(e) => panic!("rewriting failed: {e} ({}, chunks {chunks:?})", last.encoding.name()),
        }
    }
}

/// The UTF-16 front end on `input`, whole and in chunks.
fn utf16_front(input: &[u8], big_endian: bool, splits: &[usize]) {
    let whole_front = {
        let mut front = Utf16Front::new(big_endian);
        let mut out = Vec::new();
        front.push(input, &mut out);
        let tail = front.finish(&mut out);
        (out, tail)
    };
    let mut front = Utf16Front::new(big_endian);
    let mut intermediate = Vec::new();
    let mut back = Vec::new();
    let mut at = 0;
    for &n in splits {
        let start = intermediate.len();
        front.push(&input[at..at + n], &mut intermediate);
        intermediate_to_utf16(&intermediate[start..], big_endian, &mut back);
        at += n;
    }
    let start = intermediate.len();
    let tail = front.finish(&mut intermediate);
    intermediate_to_utf16(&intermediate[start..], big_endian, &mut back);
    back.extend(tail);
    assert_eq!((&intermediate, tail), (&whole_front.0, whole_front.1), "UTF-16 front: chunks {splits:?} differ");
    assert_eq!(back, input, "UTF-16 front (big endian: {big_endian}): not converted back to the input");
    let standard = encoding_for_label(if big_endian { "utf-16be" } else { "utf-16le" }).expect("a known label");
    let (decoded, _) = standard.decode_without_bom_handling(input);
    assert_eq!(String::from_utf8_lossy(&intermediate), decoded, "UTF-16 front (big endian: {big_endian}): decoding");
    // Any bytes at all, not only a front's output.
    intermediate_to_utf16(input, big_endian, &mut Vec::new());
}

/// Rewrites `input` with sniffing on, fed in chunks of the given lengths.
fn rewrite(
    input: &[u8],
    chunks: &[usize],
    transport: Option<&str>,
    fallback: &str,
    handlers: bool,
    pass_through: bool,
) -> Result<Vec<u8>, RewritingError> {
    let mut settings = Settings::new().sniff_encoding(transport, fallback)?.on_error(if pass_through {
        OnError::PassThrough
    } else {
        OnError::Stop
    });
    if handlers {
        settings = settings
            .element("*", |el| {
                let _ = (el.tag_name(), el.attributes(), el.get_attribute("charset"));
                Ok(())
            })
            .text("*", |t| {
                let _ = t.as_str();
                Ok(())
            })
            .doc_comments(|c| {
                let _ = c.text();
                Ok(())
            });
    }
    crate::rewrite_in_chunks(settings, input, chunks)
}
