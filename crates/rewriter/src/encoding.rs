//! Character encodings: the HTML Standard's [encoding sniffing], a lossless UTF-16 front end
//! for the tokenizer, and output encoding of inserted content.
//!
//! The rewriter tokenizes bytes and writes every untouched byte back unchanged. How the
//! tokenizer gets to see a document depends on its encoding ([`strategy`]):
//!
//! | encoding | [`Strategy`] | tokenizer input | untouched output | inserted text |
//! |---|---|---|---|---|
//! | UTF-8, windows-1252, ISO-8859-*, Shift_JIS, EUC-JP, EUC-KR, Big5, GBK, gb18030, KOI8-*, x-user-defined, … | [`Strategy::Bytes`] | the source bytes | the source bytes | [`encode_inserted`] |
//! | UTF-16LE, UTF-16BE | [`Strategy::Utf16`] | [`Utf16Front`] output | [`intermediate_to_utf16`] of the spans | [`encode_inserted`] |
//! | ISO-2022-JP, replacement | [`Strategy::Unsupported`] | — | — | — |
//!
//! In every [ASCII-compatible] encoding the bytes the tokenizer branches on (`<`, `>`, `&`,
//! `"`, `'`, `=`, `/`, `!`, `?`, `-`, ASCII whitespace, NUL; all below 0x40) only ever stand for
//! themselves: trail bytes of Shift_JIS, Big5 and GBK are 0x40 or above, and gb18030's
//! 0x30–0x39 trail bytes only follow a lead byte ≥ 0x81. Trail bytes can be ASCII letters, so
//! names must be decoded ([`decode_to_utf8`]) before they are ASCII-lowercased.
//!
//! Decoding a UTF-16 document for the tokenizer loses nothing: [`Utf16Front`] writes UTF-8 for
//! every scalar value and a three-byte escape for every unpaired surrogate and for a trailing
//! odd byte, each of which a UTF-8 decoder reads as one U+FFFD (as the Standard's UTF-16 decoder
//! does), and [`intermediate_to_utf16`] turns that back into the original bytes.
//!
//! # Example
//!
//! A UTF-16LE document (byte order mark, `<b>`, an unpaired surrogate, an odd byte), fed in
//! chunks, with `é` inserted after `<b>`:
//!
//! ```
//! use htrewrite::encoding::*;
//! # fn main() -> Result<(), UnmappableError> {
//! let source = b"\xFF\xFE<\0b\0>\0\x00\xD8!";
//! // Hold the input until the encoding is known (at most PRESCAN_LIMIT bytes).
//! let sniffed = sniff_encoding(source, true, None, encoding_rs::WINDOWS_1252).unwrap();
//! assert_eq!((sniffed.encoding, sniffed.bom_len), (encoding_rs::UTF_16LE, 2));
//! let Strategy::Utf16 { big_endian } = strategy(sniffed.encoding) else { unreachable!() };
//!
//! // The byte order mark goes to the output, the rest through the front to the tokenizer.
//! let (bom, body) = source.split_at(sniffed.bom_len);
//! let mut front = Utf16Front::new(big_endian);
//! let mut tokenizer_input = Vec::new();
//! for chunk in body.chunks(3) {
//!     front.push(chunk, &mut tokenizer_input);
//! }
//! let raw_tail = front.finish(&mut tokenizer_input);
//! assert_eq!(decode_to_utf8(&tokenizer_input, sniffed.encoding), "<b>\u{FFFD}");
//!
//! // Output: untouched spans converted back, inserted text encoded, then the raw tail.
//! let mut output = bom.to_vec();
//! intermediate_to_utf16(&tokenizer_input[..3], big_endian, &mut output); // `<b>`
//! encode_inserted("é", sniffed.encoding, InsertContext::Text, &mut output)?;
//! intermediate_to_utf16(&tokenizer_input[3..], big_endian, &mut output);
//! output.extend(raw_tail);
//! assert_eq!(output, b"\xFF\xFE<\0b\0>\0\xE9\0\x00\xD8!");
//! # Ok(())
//! # }
//! ```
//!
//! [encoding sniffing]: https://html.spec.whatwg.org/multipage/parsing.html#determining-the-character-encoding
//! [ASCII-compatible]: https://html.spec.whatwg.org/multipage/infrastructure.html#ascii-compatible-encoding

use std::borrow::Cow;
use std::error::Error;
use std::fmt;

use encoding_rs::{
    CoderResult, EncoderResult, Encoding, ISO_2022_JP, REPLACEMENT, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252,
    X_USER_DEFINED,
};

// ---------------------------------------------------------------------------------------------
// Labels and byte order marks
// ---------------------------------------------------------------------------------------------

/// The Encoding Standard's [get an encoding]: the encoding `label` names, or `None`.
///
/// Leading and trailing ASCII whitespace is ignored and letters match case-insensitively. Labels
/// of the [replacement] encoding (`iso-2022-kr`, `hz-gb-2312`, …) return
/// [`encoding_rs::REPLACEMENT`], which [`strategy`] reports as unsupported.
///
/// # Example
///
/// ```
/// use htrewrite::encoding::encoding_for_label;
/// assert_eq!(encoding_for_label(" Latin1 "), Some(encoding_rs::WINDOWS_1252));
/// assert_eq!(encoding_for_label("utf8"), Some(encoding_rs::UTF_8));
/// assert_eq!(encoding_for_label("no-such-encoding"), None);
/// ```
///
/// [get an encoding]: https://encoding.spec.whatwg.org/#concept-encoding-get
/// [replacement]: https://encoding.spec.whatwg.org/#replacement
pub fn encoding_for_label(label: &str) -> Option<&'static Encoding> {
    Encoding::for_label(label.as_bytes())
}

/// The Encoding Standard's [BOM sniff]: the encoding a byte order mark at the start of `bytes`
/// names, with the length of the mark.
///
/// `EF BB BF` is UTF-8 (3 bytes), `FE FF` UTF-16BE and `FF FE` UTF-16LE (2 bytes). Returns `None`
/// when `bytes` does not start with a complete mark, including when it is a proper prefix of one
/// (`[]`, `[EF]`, `[EF BB]`, `[FE]`, `[FF]`); [`sniff_encoding`] waits for more bytes then.
///
/// The mark belongs to the output (it passes through unchanged) but not to the tokenizer's input:
/// the Standard's [decode] removes it.
///
/// # Example
///
/// ```
/// use htrewrite::encoding::sniff_bom;
/// assert_eq!(sniff_bom(b"\xFF\xFE<\0"), Some((encoding_rs::UTF_16LE, 2)));
/// assert_eq!(sniff_bom(b"\xEF\xBB\xBF<p>"), Some((encoding_rs::UTF_8, 3)));
/// assert_eq!(sniff_bom(b"\xEF\xBB"), None);
/// ```
///
/// [BOM sniff]: https://encoding.spec.whatwg.org/#bom-sniff
/// [decode]: https://encoding.spec.whatwg.org/#decode
pub fn sniff_bom(bytes: &[u8]) -> Option<(&'static Encoding, usize)> {
    match bytes {
        [0xEF, 0xBB, 0xBF, ..] => Some((UTF_8, 3)),
        [0xFE, 0xFF, ..] => Some((UTF_16BE, 2)),
        [0xFF, 0xFE, ..] => Some((UTF_16LE, 2)),
        _ => None,
    }
}

/// Whether `bytes` is a proper prefix of a byte order mark, so that more bytes decide it.
fn is_partial_bom(bytes: &[u8]) -> bool {
    matches!(bytes, [] | [0xEF] | [0xEF, 0xBB] | [0xFE] | [0xFF])
}

// ---------------------------------------------------------------------------------------------
// Prescan
// ---------------------------------------------------------------------------------------------

/// How many bytes the prescan looks at: the Standard encourages "to only prescan the first 1024
/// bytes" ([determining the character encoding], step 5), and authors must declare the encoding
/// [within the first 1024 bytes].
///
/// [determining the character encoding]: https://html.spec.whatwg.org/multipage/parsing.html#determining-the-character-encoding
/// [within the first 1024 bytes]: https://html.spec.whatwg.org/multipage/semantics.html#charset1024
pub const PRESCAN_LIMIT: usize = 1024;

/// Length of the shortest `<meta>` tag that makes the prescan return an encoding,
/// `<meta charset=l1>` (the shortest labels, `l1`…`l9`, have two letters).
const SHORTEST_DECLARATION: usize = 17;

/// Result of [`prescan`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prescan {
    /// The prescan returned this encoding: from a `<meta>` declaration (UTF-16BE/LE already
    /// changed to UTF-8 and x-user-defined to windows-1252), from a UTF-16 XML declaration
    /// (UTF-16LE or UTF-16BE) or from [get an XML encoding].
    ///
    /// [get an XML encoding]: https://html.spec.whatwg.org/multipage/parsing.html#concept-get-xml-encoding-when-sniffing
    Found(&'static Encoding),
    /// The prescan failed over the first [`PRESCAN_LIMIT`] bytes, or over the whole input at its
    /// end: no further bytes can change this.
    NotFound,
    /// The prescan ran out of bytes before its end condition and more bytes can still make it
    /// return an encoding: call again with more bytes (or with `at_eof`).
    NeedMore,
}

/// The HTML Standard's [prescan a byte stream to determine its encoding], with the end condition
/// "[`PRESCAN_LIMIT`] bytes scanned".
///
/// `bytes` is the start of the document (after any byte order mark; see [`sniff_bom`]) and
/// `at_eof` says whether it is the whole document. Only the first [`PRESCAN_LIMIT`] bytes are
/// read. When the algorithm "runs out of bytes" and aborts, the result is [get an XML encoding]
/// of the same bytes, as the Standard says.
///
/// The result is final ([`Prescan::Found`] or [`Prescan::NotFound`]) when the algorithm returns
/// an encoding, when `at_eof` is true, when `bytes` has [`PRESCAN_LIMIT`] bytes or more, or when
/// the bytes left before the limit are too few to complete any declaration. Otherwise it is
/// [`Prescan::NeedMore`]. The last test is a lower bound on the bytes a declaration still needs
/// where the scan stopped: exact between tags (17 bytes, `<meta charset=l1>`), 18 inside a
/// comment or another tag, 1 inside a `<meta` tag or an unfinished `<?xml` declaration. So a
/// final result never changes with more bytes, and `NeedMore` may be returned, within the last
/// few bytes before the limit, for an input no continuation can change.
///
/// `<script>` and `<style>` contents are not special: the prescan knows only comments, `<!…>`,
/// `</…>`, `<?…>`, tags and their attributes.
///
/// # Example
///
/// ```
/// use htrewrite::encoding::{prescan, Prescan};
/// let head = b"<!DOCTYPE html><meta http-equiv=Content-Type content='text/html; charset=iso-8859-2'>";
/// assert_eq!(prescan(head, false), Prescan::Found(encoding_rs::ISO_8859_2));
/// assert_eq!(prescan(b"<meta charset=\"utf-16\">", false), Prescan::Found(encoding_rs::UTF_8));
/// assert_eq!(prescan(b"<p>Hello", false), Prescan::NeedMore);
/// assert_eq!(prescan(b"<p>Hello", true), Prescan::NotFound);
/// ```
///
/// # Complexity
///
/// Linear in `min(bytes.len(), PRESCAN_LIMIT)`. A caller that calls it again on every chunk
/// until the result is final does at most [`PRESCAN_LIMIT`]² steps in all.
///
/// [prescan a byte stream to determine its encoding]: https://html.spec.whatwg.org/multipage/parsing.html#prescan-a-byte-stream-to-determine-its-encoding
/// [get an XML encoding]: https://html.spec.whatwg.org/multipage/parsing.html#concept-get-xml-encoding-when-sniffing
pub fn prescan(bytes: &[u8], at_eof: bool) -> Prescan {
    let window = &bytes[..bytes.len().min(PRESCAN_LIMIT)];
    let complete = at_eof || bytes.len() >= PRESCAN_LIMIT;
    let RanOut { needs } = match prescan_window(window) {
        Ok(encoding) => return Prescan::Found(encoding),
        Err(ran_out) => ran_out,
    };
    let xml = get_xml_encoding(window);
    if !complete && (PRESCAN_LIMIT - window.len() >= needs || xml == XmlEncoding::RanOut) {
        return Prescan::NeedMore;
    }
    match xml {
        XmlEncoding::Found(encoding) => Prescan::Found(encoding),
        XmlEncoding::Failure | XmlEncoding::RanOut => Prescan::NotFound,
    }
}

/// The prescan "runs out of bytes": the position went past the end of the window.
#[derive(Clone, Copy, Debug)]
struct RanOut {
    /// A lower bound on the bytes the prescan needs after the window to return an encoding.
    needs: usize,
}

/// The byte window of one prescan run, with what running out of it at this point means.
struct Prescanner<'a> {
    /// The bytes scanned.
    bytes: &'a [u8],
    /// What [`RanOut::needs`] is when the next read fails.
    needs: usize,
}

impl Prescanner<'_> {
    /// The byte at `position`, or [`RanOut`].
    fn at(&self, position: usize) -> Result<u8, RanOut> {
        self.bytes.get(position).copied().ok_or(RanOut { needs: self.needs })
    }

    /// The position of the first byte at or after `from` for which `pred` holds, or [`RanOut`].
    fn find(&self, from: usize, pred: impl Fn(u8) -> bool) -> Result<usize, RanOut> {
        self.bytes[from.min(self.bytes.len())..]
            .iter()
            .position(|&b| pred(b))
            .map(|offset| from + offset)
            .ok_or(RanOut { needs: self.needs })
    }
}

/// 0x09, 0x0A, 0x0C, 0x0D or 0x20: the bytes the prescan treats as whitespace.
fn is_space(byte: u8) -> bool {
    matches!(byte, b'\t' | b'\n' | 0x0C | b'\r' | b' ')
}

/// The prescan algorithm's steps 1–4 over `bytes`; `Err` when it runs out of bytes.
fn prescan_window(bytes: &[u8]) -> Result<&'static Encoding, RanOut> {
    let mut scanner = Prescanner { bytes, needs: 1 };
    // spec step 2, "Prescan for UTF-16 XML declarations".
    const UTF_16LE_XML: [u8; 6] = [0x3C, 0x00, 0x3F, 0x00, 0x78, 0x00];
    const UTF_16BE_XML: [u8; 6] = [0x00, 0x3C, 0x00, 0x3F, 0x00, 0x78];
    for (declaration, encoding) in [(UTF_16LE_XML, UTF_16LE), (UTF_16BE_XML, UTF_16BE)] {
        if bytes.starts_with(&declaration) {
            return Ok(encoding);
        }
        if declaration.starts_with(bytes) {
            return Err(RanOut { needs: 1 });
        }
    }
    let mut position = 0;
    loop {
        // spec step 3, "Loop". "Any other byte": do nothing with it.
        scanner.needs = SHORTEST_DECLARATION;
        position = match memchr::memchr(b'<', &bytes[position..]) {
            Some(offset) => position + offset,
            None => return Err(RanOut { needs: SHORTEST_DECLARATION }),
        };
        // A partly read `<…` sequence might become any of the alternatives.
        scanner.needs = 1;
        position = match scanner.at(position + 1)? {
            b'!' if scanner.at(position + 2)? == b'-' && scanner.at(position + 3)? == b'-' => {
                // spec: `<!--`: "the first 0x3E byte which is preceded by two 0x2D bytes … and
                // comes after the 0x3C byte"; the dashes may be those of `<!--`.
                scanner.needs = SHORTEST_DECLARATION + 1;
                match memchr::memmem::find(&bytes[position + 2..], b"-->") {
                    Some(offset) => position + 2 + offset + 2,
                    None => return Err(RanOut { needs: scanner.needs }),
                }
            }
            b'm' | b'M' if is_meta_start(&scanner, position)? => match meta(&mut scanner, position)? {
                MetaOutcome::Found(encoding) => return Ok(encoding),
                MetaOutcome::NextByte(at) => at,
            },
            byte if byte.is_ascii_alphabetic() => tag(&mut scanner, position)?,
            b'/' if scanner.at(position + 2)?.is_ascii_alphabetic() => tag(&mut scanner, position)?,
            b'!' | b'/' | b'?' => {
                // spec: `<!`, `</`, `<?`: "the first 0x3E byte (>) that comes after the 0x3C byte".
                scanner.needs = SHORTEST_DECLARATION + 1;
                scanner.find(position + 1, |b| b == b'>')?
            }
            _ => position,
        };
        // spec step 4, "Next byte".
        position += 1;
    }
}

/// Whether the `<` at `position` starts `<meta` followed by a space or slash (case-insensitive).
fn is_meta_start(scanner: &Prescanner<'_>, position: usize) -> Result<bool, RanOut> {
    for (offset, &letter) in b"meta".iter().enumerate() {
        if scanner.at(position + 1 + offset)?.to_ascii_lowercase() != letter {
            return Ok(false);
        }
    }
    let after = scanner.at(position + 5)?;
    Ok(is_space(after) || after == b'/')
}

/// Where the prescan goes after a non-`<meta` tag starting at `position`: the position of its
/// `>`.
fn tag(scanner: &mut Prescanner<'_>, position: usize) -> Result<usize, RanOut> {
    // A `<meta>` can only follow this tag's `>`.
    scanner.needs = SHORTEST_DECLARATION + 1;
    // spec: "Advance the position pointer so that it points at the next 0x09 (HT), 0x0A (LF),
    // 0x0C (FF), 0x0D (CR), 0x20 (SP), or 0x3E (>) byte."
    let mut position = scanner.find(position, |b| is_space(b) || b == b'>')?;
    // spec: "Repeatedly get an attribute until no further attributes can be found".
    while get_attribute(scanner, &mut position)?.is_some() {}
    Ok(position)
}

/// The `charset` variable of the prescan's `<meta>` steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Charset {
    /// "the null value".
    Null,
    /// [get an encoding] failed.
    ///
    /// [get an encoding]: https://encoding.spec.whatwg.org/#concept-encoding-get
    Failure,
    /// An encoding.
    Encoding(&'static Encoding),
}

/// Where the prescan's `<meta>` steps end.
enum MetaOutcome {
    /// "Return charset".
    Found(&'static Encoding),
    /// "Jump to the step below labeled next byte", from the tag's `>` at this position.
    NextByte(usize),
}

/// The prescan's steps for `<meta` followed by a space or slash at `position`.
fn meta(scanner: &mut Prescanner<'_>, position: usize) -> Result<MetaOutcome, RanOut> {
    scanner.needs = 1;
    // spec 1: "Advance the position pointer so that it points at the next 0x09, 0x0A, 0x0C,
    // 0x0D, 0x20, or 0x2F byte (the one in sequence of characters matched above)."
    let mut position = position + 5;
    // spec 2–5. Of the attribute list, only the three names step 9 acts on matter: a repeated
    // other name would be skipped and do nothing anyway.
    let [mut seen_http_equiv, mut seen_content, mut seen_charset] = [false; 3];
    let mut got_pragma = false;
    let mut need_pragma: Option<bool> = None;
    let mut charset = Charset::Null;
    // spec 6, "Attributes"; spec 7–8: a name already in the attribute list is skipped.
    while let Some((name, value)) = get_attribute(scanner, &mut position)? {
        // spec 9.
        match name.as_slice() {
            b"http-equiv" if !seen_http_equiv => {
                seen_http_equiv = true;
                got_pragma = value == b"content-type";
            }
            b"content" if !seen_content => {
                seen_content = true;
                // "If a character encoding is returned, and if charset is still set to null".
                if let (Some(encoding), Charset::Null) = (extract_encoding_from_content(&value), charset) {
                    charset = Charset::Encoding(encoding);
                    need_pragma = Some(true);
                }
            }
            b"charset" if !seen_charset => {
                seen_charset = true;
                charset = match Encoding::for_label(&value) {
                    Some(encoding) => Charset::Encoding(encoding),
                    None => Charset::Failure,
                };
                need_pragma = Some(false);
            }
            _ => {}
        }
    }
    // spec 11–13, "Processing".
    let encoding = match (need_pragma, charset) {
        // spec 11: need pragma is null.
        (None, _) => None,
        // spec 12: need pragma is true but got pragma is false.
        (Some(true), _) if !got_pragma => None,
        (Some(_), Charset::Encoding(encoding)) => Some(encoding),
        // spec 13: charset is failure (it is never null once need pragma is set).
        (Some(_), Charset::Null | Charset::Failure) => None,
    };
    Ok(match encoding {
        // spec 14–15.
        Some(encoding) if encoding == UTF_16BE || encoding == UTF_16LE => MetaOutcome::Found(UTF_8),
        Some(encoding) if encoding == X_USER_DEFINED => MetaOutcome::Found(WINDOWS_1252),
        // spec 16.
        Some(encoding) => MetaOutcome::Found(encoding),
        None => MetaOutcome::NextByte(position),
    })
}

/// An attribute as the prescan sees it: `(name, value)`, ASCII letters lowercased.
type Attribute = (Vec<u8>, Vec<u8>);

/// The prescan's [get an attribute]: `(name, value)` with ASCII letters lowercased, or `None`
/// at a `>` ("there isn't one"), leaving `position` where the Standard leaves it.
///
/// [get an attribute]: https://html.spec.whatwg.org/multipage/parsing.html#concept-get-attributes-when-sniffing
fn get_attribute(scanner: &Prescanner<'_>, position: &mut usize) -> Result<Option<Attribute>, RanOut> {
    // spec 1.
    while matches!(scanner.at(*position)?, b if is_space(b) || b == b'/') {
        *position += 1;
    }
    // spec 2.
    if scanner.at(*position)? == b'>' {
        return Ok(None);
    }
    // spec 3.
    let mut name = Vec::new();
    let value = Vec::new();
    // spec 4–5.
    loop {
        match scanner.at(*position)? {
            b'=' if !name.is_empty() => {
                *position += 1;
                return attribute_value(scanner, position, name);
            }
            b if is_space(b) => break,
            b'/' | b'>' => return Ok(Some((name, value))),
            b => name.push(b.to_ascii_lowercase()),
        }
        *position += 1;
    }
    // spec 6, "Spaces".
    while is_space(scanner.at(*position)?) {
        *position += 1;
    }
    // spec 7.
    if scanner.at(*position)? != b'=' {
        return Ok(Some((name, value)));
    }
    // spec 8.
    *position += 1;
    attribute_value(scanner, position, name)
}

/// Steps 9–12 ("Value") of [get an attribute].
///
/// [get an attribute]: https://html.spec.whatwg.org/multipage/parsing.html#concept-get-attributes-when-sniffing
fn attribute_value(scanner: &Prescanner<'_>, position: &mut usize, name: Vec<u8>) -> Result<Option<Attribute>, RanOut> {
    let mut value = Vec::new();
    // spec 9.
    while is_space(scanner.at(*position)?) {
        *position += 1;
    }
    // spec 10.
    match scanner.at(*position)? {
        quote @ (b'"' | b'\'') => loop {
            // "Quote loop".
            *position += 1;
            match scanner.at(*position)? {
                b if b == quote => {
                    *position += 1;
                    return Ok(Some((name, value)));
                }
                b => value.push(b.to_ascii_lowercase()),
            }
        },
        b'>' => return Ok(Some((name, value))),
        b => {
            value.push(b.to_ascii_lowercase());
            *position += 1;
        }
    }
    // spec 11–12.
    loop {
        match scanner.at(*position)? {
            b if is_space(b) || b == b'>' => return Ok(Some((name, value))),
            b => value.push(b.to_ascii_lowercase()),
        }
        *position += 1;
    }
}

/// The HTML Standard's [algorithm for extracting a character encoding from a meta element],
/// given the (lowercased) `content` value; `None` for "nothing" and for a failed label.
///
/// [algorithm for extracting a character encoding from a meta element]: https://html.spec.whatwg.org/multipage/urls-and-fetching.html#algorithm-for-extracting-a-character-encoding-from-a-meta-element
fn extract_encoding_from_content(s: &[u8]) -> Option<&'static Encoding> {
    let mut position = 0;
    loop {
        // spec 2, "Loop": the next "charset", case-insensitively.
        let found = s[position..].windows(7).position(|w| w.eq_ignore_ascii_case(b"charset"))?;
        position += found + 7;
        // spec 3.
        while s.get(position).is_some_and(|&b| is_space(b)) {
            position += 1;
        }
        // spec 4: otherwise "move position to point just before that next character, and jump
        // back to the step labeled loop".
        if s.get(position) == Some(&b'=') {
            break;
        }
    }
    // spec 5.
    position += 1;
    while s.get(position).is_some_and(|&b| is_space(b)) {
        position += 1;
    }
    // spec 6.
    match *s.get(position)? {
        quote @ (b'"' | b'\'') => {
            let rest = &s[position + 1..];
            let end = memchr::memchr(quote, rest)?;
            Encoding::for_label(&rest[..end])
        }
        _ => {
            let rest = &s[position..];
            let end = rest.iter().position(|&b| is_space(b) || b == b';').unwrap_or(rest.len());
            Encoding::for_label(&rest[..end])
        }
    }
}

/// Result of [get an XML encoding].
///
/// [get an XML encoding]: https://html.spec.whatwg.org/multipage/parsing.html#concept-get-xml-encoding-when-sniffing
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum XmlEncoding {
    /// The declaration names this encoding (UTF-16BE/LE already changed to UTF-8).
    Found(&'static Encoding),
    /// "Return failure", whatever bytes follow.
    Failure,
    /// "Return failure" only because a byte it looks for is not among the bytes so far.
    RanOut,
}

/// The HTML Standard's [get an XML encoding] over `bytes`.
///
/// [get an XML encoding]: https://html.spec.whatwg.org/multipage/parsing.html#concept-get-xml-encoding-when-sniffing
fn get_xml_encoding(bytes: &[u8]) -> XmlEncoding {
    // spec 2.
    if !bytes.starts_with(b"<?xml") {
        return if b"<?xml".starts_with(bytes) { XmlEncoding::RanOut } else { XmlEncoding::Failure };
    }
    // spec 3.
    let Some(declaration_end) = memchr::memchr(b'>', bytes) else {
        return XmlEncoding::RanOut;
    };
    // spec 4–5.
    let Some(found) = memchr::memmem::find(&bytes[..declaration_end], b"encoding") else {
        return XmlEncoding::Failure;
    };
    let mut position = found + 8;
    // spec 6–9; the `>` at `declaration_end` stops both loops.
    while bytes[position] <= 0x20 {
        position += 1;
    }
    if bytes[position] != b'=' {
        return XmlEncoding::Failure;
    }
    position += 1;
    while bytes[position] <= 0x20 {
        position += 1;
    }
    // spec 10–12.
    let quote_mark = bytes[position];
    if quote_mark != b'"' && quote_mark != b'\'' {
        return XmlEncoding::Failure;
    }
    position += 1;
    // spec 13: the closing quote need not come before the `>`.
    let Some(length) = memchr::memchr(quote_mark, &bytes[position..]) else {
        return XmlEncoding::RanOut;
    };
    // spec 14–15.
    let potential_encoding = &bytes[position..position + length];
    if potential_encoding.iter().any(|&b| b <= 0x20) {
        return XmlEncoding::Failure;
    }
    // spec 16–18.
    match Encoding::for_label(potential_encoding) {
        Some(encoding) if encoding == UTF_16BE || encoding == UTF_16LE => XmlEncoding::Found(UTF_8),
        Some(encoding) => XmlEncoding::Found(encoding),
        None => XmlEncoding::Failure,
    }
}

// ---------------------------------------------------------------------------------------------
// The encoding sniffing algorithm
// ---------------------------------------------------------------------------------------------

/// Which step of [`sniff_encoding`] chose the encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EncodingSource {
    /// A byte order mark (step 1); confidence *certain*.
    ByteOrderMark,
    /// The transport layer, e.g. the `charset` parameter of `Content-Type` (step 4); confidence
    /// *certain*.
    Transport,
    /// The [`prescan`] (step 5); confidence *tentative*.
    Prescan,
    /// The caller's default (step 9); confidence *tentative*.
    Default,
}

/// The outcome of [`sniff_encoding`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sniffed {
    /// The document's character encoding.
    pub encoding: &'static Encoding,
    /// Length of the byte order mark at the start of the input (0, 2 or 3): those bytes go to the
    /// output unchanged but not to the tokenizer.
    pub bom_len: usize,
    /// The step that chose `encoding`.
    pub source: EncodingSource,
}

impl Sniffed {
    /// Whether the [confidence] is *certain* (byte order mark or transport) rather than
    /// *tentative*: a browser would "change the encoding" on a later `<meta>` only when
    /// tentative.
    ///
    /// # Example
    ///
    /// ```
    /// use htrewrite::encoding::sniff_encoding;
    /// let sniffed = sniff_encoding(b"<meta charset=gbk>", true, None, encoding_rs::UTF_8);
    /// assert!(!sniffed.unwrap().is_certain());
    /// ```
    ///
    /// [confidence]: https://html.spec.whatwg.org/multipage/parsing.html#concept-encoding-confidence
    pub fn is_certain(&self) -> bool {
        matches!(self.source, EncodingSource::ByteOrderMark | EncodingSource::Transport)
    }
}

/// The HTML Standard's [encoding sniffing algorithm] for a rewriter: byte order mark, then the
/// transport layer's encoding, then the [`prescan`], then `default`. `None` means "call again
/// with more bytes".
///
/// `bytes` is everything received so far, `at_eof` whether that is the whole document,
/// `transport` the encoding the transport layer specifies (from [`encoding_for_label`]; pass
/// `None` for a missing or unsupported label), and `default` the Standard's "implementation-
/// defined or user-specified default" (step 9): windows-1252 is what browsers use in most
/// locales and what html5lib's encoding tests expect, UTF-8 the Standard's suggestion for
/// "controlled environments".
///
/// Returns `None` while `bytes` could still become a byte order mark (fewer than 3 bytes) or the
/// prescan says [`Prescan::NeedMore`]; never when `at_eof` or once `bytes` has
/// [`PRESCAN_LIMIT`] bytes. The caller holds its output meanwhile, at most [`PRESCAN_LIMIT`]
/// bytes. Steps 2 (user override), 6 (parent document), 7 (earlier visits) and 8
/// (autodetection) are the caller's: pass their result as `transport` or `default`.
///
/// # Example
///
/// ```
/// use htrewrite::encoding::{encoding_for_label, sniff_encoding, EncodingSource};
/// let page = b"<meta charset=shift_jis><p>\x82\xa0";
/// let sniffed = sniff_encoding(page, true, None, encoding_rs::WINDOWS_1252).unwrap();
/// assert_eq!(sniffed.encoding, encoding_rs::SHIFT_JIS);
/// assert_eq!(sniffed.source, EncodingSource::Prescan);
///
/// // The transport layer wins over <meta>, a byte order mark over both.
/// let http = encoding_for_label("utf-8");
/// let sniffed = sniff_encoding(page, true, http, encoding_rs::WINDOWS_1252).unwrap();
/// assert_eq!(sniffed.encoding, encoding_rs::UTF_8);
/// let sniffed = sniff_encoding(b"\xFE\xFF\0<", true, http, encoding_rs::WINDOWS_1252).unwrap();
/// assert_eq!((sniffed.encoding, sniffed.bom_len), (encoding_rs::UTF_16BE, 2));
///
/// // Not decided yet: the <meta> may still come.
/// assert_eq!(sniff_encoding(b"<html><head>", false, None, encoding_rs::UTF_8), None);
/// ```
///
/// [encoding sniffing algorithm]: https://html.spec.whatwg.org/multipage/parsing.html#encoding-sniffing-algorithm
pub fn sniff_encoding(
    bytes: &[u8],
    at_eof: bool,
    transport: Option<&'static Encoding>,
    default: &'static Encoding,
) -> Option<Sniffed> {
    let decided = |encoding, bom_len, source| Some(Sniffed { encoding, bom_len, source });
    // spec step 1.
    if let Some((encoding, bom_len)) = sniff_bom(bytes) {
        return decided(encoding, bom_len, EncodingSource::ByteOrderMark);
    }
    if !at_eof && is_partial_bom(bytes) {
        return None;
    }
    // spec step 4.
    if let Some(encoding) = transport {
        return decided(encoding, 0, EncodingSource::Transport);
    }
    // spec step 5.
    match prescan(bytes, at_eof) {
        Prescan::Found(encoding) => decided(encoding, 0, EncodingSource::Prescan),
        Prescan::NeedMore => None,
        // spec step 9.
        Prescan::NotFound => decided(default, 0, EncodingSource::Default),
    }
}

// ---------------------------------------------------------------------------------------------
// How the tokenizer reads each encoding
// ---------------------------------------------------------------------------------------------

/// How the rewriter tokenizes a document in some encoding, and writes it back unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// An [ASCII-compatible] encoding: tokenize the source bytes; untouched bytes are written
    /// as they are; names and values are decoded with [`decode_to_utf8`].
    ///
    /// [ASCII-compatible]: https://html.spec.whatwg.org/multipage/infrastructure.html#ascii-compatible-encoding
    Bytes,
    /// UTF-16BE (`big_endian`) or UTF-16LE: feed the source through a [`Utf16Front`] and
    /// tokenize its output; write untouched spans back with [`intermediate_to_utf16`].
    Utf16 {
        /// UTF-16BE rather than UTF-16LE.
        big_endian: bool,
    },
    /// ISO-2022-JP or the replacement encoding: no lossless byte mapping.
    ///
    /// In ISO-2022-JP, escape sequences switch to states where `<` (0x3C) is half of a kanji, so
    /// the source bytes cannot be tokenized, and its encoder does not reproduce the source
    /// (escape sequence choice, half-width katakana, invalid bytes), so decoding and re-encoding
    /// would change untouched content. The replacement encoding decodes a whole document to one
    /// U+FFFD. The rewriter should refuse such documents or pass them through unchanged.
    Unsupported,
}

/// How the rewriter tokenizes a document in `encoding`; see [`Strategy`].
///
/// # Example
///
/// ```
/// use htrewrite::encoding::{strategy, Strategy};
/// assert_eq!(strategy(encoding_rs::SHIFT_JIS), Strategy::Bytes);
/// assert_eq!(strategy(encoding_rs::UTF_16BE), Strategy::Utf16 { big_endian: true });
/// assert_eq!(strategy(encoding_rs::ISO_2022_JP), Strategy::Unsupported);
/// ```
pub fn strategy(encoding: &'static Encoding) -> Strategy {
    if encoding == UTF_16LE {
        Strategy::Utf16 { big_endian: false }
    } else if encoding == UTF_16BE {
        Strategy::Utf16 { big_endian: true }
    } else if encoding == ISO_2022_JP || encoding == REPLACEMENT || !encoding.is_ascii_compatible() {
        Strategy::Unsupported
    } else {
        Strategy::Bytes
    }
}

// ---------------------------------------------------------------------------------------------
// UTF-16 front end and its inverse
// ---------------------------------------------------------------------------------------------

/// First byte of a surrogate escape.
const SURROGATE_ESCAPE: u8 = 0xF1;

/// First byte of an odd-byte escape.
const ODD_BYTE_ESCAPE: u8 = 0xF2;

/// Appends the surrogate escape of the surrogate `unit` (0xD800–0xDFFF) to `out`.
fn push_surrogate_escape(unit: u16, out: &mut Vec<u8>) {
    let offset = unit - 0xD800;
    out.extend_from_slice(&[SURROGATE_ESCAPE, 0x80 | (offset >> 6) as u8, 0x80 | (offset & 0x3F) as u8]);
}

/// Appends the odd-byte escape of a document's trailing odd `byte` to `out`.
fn push_odd_byte_escape(byte: u8, out: &mut Vec<u8>) {
    out.extend_from_slice(&[ODD_BYTE_ESCAPE, 0x80 | (byte >> 6), 0x80 | (byte & 0x3F)]);
}

/// Streaming, lossless decoder from UTF-16LE/BE bytes to the tokenizer's input.
///
/// The output (the *intermediate*) is UTF-8 for every scalar value, and two kinds of
/// three-byte escape:
///
/// - for an unpaired surrogate U+D800 + k (k < 0x800), the *surrogate escape*
///   `F1 (80 | k >> 6) (80 | k & 3F)`;
/// - for the trailing odd byte b of a document of odd length, at the very end, the *odd-byte
///   escape* `F2 (80 | b >> 6) (80 | b & 3F)`.
///
/// Each escape is the start of a four-byte UTF-8 sequence with its last byte missing (the next
/// output byte never is a continuation byte), so a UTF-8 decoder that follows the Encoding
/// Standard (the tokenizer's, [`decode_to_utf8`], encoding_rs, `String::from_utf8_lossy`) reads
/// it as exactly one U+FFFD, which is what the Standard's [UTF-16 decoder] makes of an unpaired
/// surrogate or a trailing odd byte. (WTF-8's `ED A0 80` would read as three.) Decoding the
/// intermediate as UTF-8 therefore gives exactly the text the Standard's UTF-16 decoder gives
/// (the property test checks this), and [`intermediate_to_utf16`] gives back the original bytes.
///
/// Chunks may split the input anywhere, between the two bytes of a code unit or between the two
/// units of a surrogate pair: the front holds back an odd byte and a lead surrogate. Each
/// [`push`](Self::push) appends only whole characters, so every piece of output ends on a
/// character boundary. [`finish`](Self::finish) flushes what is held; in one case (see there) it
/// hands back a byte for the caller to append raw to the output.
///
/// A byte order mark is not removed here: give the front the bytes after
/// [`Sniffed::bom_len`].
///
/// [UTF-16 decoder]: https://encoding.spec.whatwg.org/#shared-utf-16-decoder
///
/// # Example
///
/// ```
/// use htrewrite::encoding::{intermediate_to_utf16, Utf16Front};
/// let source = b"<\0p\0>\0=\xD8\x01\xDE\0\xD8!\0"; // "<p>" U+1F601 lone-U+D800 "!" (UTF-16LE)
/// let mut front = Utf16Front::new(false);
/// let mut intermediate = Vec::new();
/// for chunk in source.chunks(3) {
///     front.push(chunk, &mut intermediate);
/// }
/// assert_eq!(front.finish(&mut intermediate), None);
/// assert_eq!(intermediate, b"<p>\xF0\x9F\x98\x81\xF1\x80\x80!");
/// assert_eq!(String::from_utf8_lossy(&intermediate), "<p>\u{1F601}\u{FFFD}!");
///
/// let mut output = Vec::new();
/// intermediate_to_utf16(&intermediate, false, &mut output);
/// assert_eq!(output, source);
/// ```
#[derive(Clone, Debug)]
pub struct Utf16Front {
    /// UTF-16BE rather than UTF-16LE.
    big_endian: bool,
    /// The first byte of a code unit whose second byte has not arrived.
    odd_byte: Option<u8>,
    /// A lead surrogate whose next code unit has not arrived.
    lead: Option<u16>,
}

impl Utf16Front {
    /// A front for UTF-16BE (`big_endian`) or UTF-16LE input.
    ///
    /// # Example
    ///
    /// ```
    /// use htrewrite::encoding::Utf16Front;
    /// let mut front = Utf16Front::new(true);
    /// let mut out = Vec::new();
    /// front.push(b"\0<\0a\0>", &mut out);
    /// assert_eq!(out, b"<a>");
    /// ```
    pub fn new(big_endian: bool) -> Self {
        Utf16Front { big_endian, odd_byte: None, lead: None }
    }

    /// Decodes `input`, the next bytes of the document, appending the intermediate to `out`.
    ///
    /// Appends only whole characters: an odd byte and a lead surrogate at the end of `input` are
    /// held until the next call (at most 3 bytes in all).
    ///
    /// # Example
    ///
    /// ```
    /// use htrewrite::encoding::Utf16Front;
    /// let mut front = Utf16Front::new(false);
    /// let mut out = Vec::new();
    /// front.push(b"a\0\x3D", &mut out); // 'a', then half of a lead surrogate
    /// front.push(b"\xD8", &mut out);    // the lead surrogate is held
    /// assert_eq!(out, b"a");
    /// front.push(b"\x00\xDE", &mut out); // its trail surrogate: U+1F600
    /// assert_eq!(out, "a\u{1F600}".as_bytes());
    /// ```
    ///
    /// # Complexity
    ///
    /// Linear in `input.len()`.
    pub fn push(&mut self, input: &[u8], out: &mut Vec<u8>) {
        let mut rest = input;
        if let Some(first) = self.odd_byte {
            let Some((&second, after)) = rest.split_first() else {
                return;
            };
            self.odd_byte = None;
            self.code_unit(self.unit_of([first, second]), out);
            rest = after;
        }
        let mut pairs = rest.chunks_exact(2);
        out.reserve(rest.len() + rest.len() / 2);
        for pair in &mut pairs {
            self.code_unit(self.unit_of([pair[0], pair[1]]), out);
        }
        self.odd_byte = pairs.remainder().first().copied();
    }

    /// Ends the document: appends the escape of a held lead surrogate or of a trailing odd
    /// byte to `out`.
    ///
    /// Returns a byte only when the document ends with an unpaired lead surrogate followed by an
    /// odd byte. The Standard's decoder reads those as a single U+FFFD, which the surrogate
    /// escape already gives, so the byte gets no escape: the caller appends it, raw, to the
    /// output after everything else. The front is then empty and can start a new document.
    ///
    /// # Example
    ///
    /// ```
    /// use htrewrite::encoding::Utf16Front;
    /// let mut front = Utf16Front::new(false);
    /// let mut out = Vec::new();
    /// front.push(b"a\0!", &mut out);
    /// assert_eq!(front.finish(&mut out), None);
    /// assert_eq!(out, b"a\xF2\x80\xA1"); // 'a' and the escape of the odd byte '!'
    ///
    /// out.clear();
    /// front.push(b"a\0\x00\xD8!", &mut out);
    /// assert_eq!(front.finish(&mut out), Some(b'!'));
    /// assert_eq!(out, b"a\xF1\x80\x80"); // 'a' and the escape of the lone U+D800
    /// ```
    pub fn finish(&mut self, out: &mut Vec<u8>) -> Option<u8> {
        let odd_byte = self.odd_byte.take();
        if let Some(lead) = self.lead.take() {
            push_surrogate_escape(lead, out);
            return odd_byte;
        }
        if let Some(byte) = odd_byte {
            push_odd_byte_escape(byte, out);
        }
        None
    }

    /// The code unit of two bytes in this front's byte order.
    fn unit_of(&self, bytes: [u8; 2]) -> u16 {
        if self.big_endian { u16::from_be_bytes(bytes) } else { u16::from_le_bytes(bytes) }
    }

    /// Decodes one code unit.
    fn code_unit(&mut self, unit: u16, out: &mut Vec<u8>) {
        if let Some(lead) = self.lead.take() {
            if (0xDC00..=0xDFFF).contains(&unit) {
                let scalar = 0x10000 + ((u32::from(lead) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
                push_char(scalar, out);
                return;
            }
            push_surrogate_escape(lead, out);
        }
        match unit {
            0..=0x7F => out.push(unit as u8),
            0xD800..=0xDBFF => self.lead = Some(unit),
            0xDC00..=0xDFFF => push_surrogate_escape(unit, out),
            _ => push_char(u32::from(unit), out),
        }
    }
}

/// Appends the UTF-8 form of the scalar value `scalar` to `out`.
fn push_char(scalar: u32, out: &mut Vec<u8>) {
    let c = char::from_u32(scalar).unwrap_or(char::REPLACEMENT_CHARACTER);
    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
}

/// Appends the UTF-16 form of `text` to `out`, big-endian or little-endian.
fn push_utf16(text: &str, big_endian: bool, out: &mut Vec<u8>) {
    out.reserve(text.len() * 2);
    for unit in text.encode_utf16() {
        out.extend_from_slice(&if big_endian { unit.to_be_bytes() } else { unit.to_le_bytes() });
    }
}

/// Converts a span of [`Utf16Front`] output back to the UTF-16 bytes it came from.
///
/// Appends to `out` the UTF-16BE (`big_endian`) or UTF-16LE form of `bytes`, which must start and
/// end on character boundaries of the intermediate (any token span does; any concatenation of
/// whole [`Utf16Front::push`] outputs does). Then the output is exactly the source bytes the span
/// was decoded from: UTF-8 sequences become their code units, surrogate escapes their unpaired
/// surrogate, an odd-byte escape its byte. Bytes a front never produces (invalid UTF-8 other than a surrogate escape) become
/// U+FFFD, one per maximal invalid subsequence.
///
/// Removing the content between an unpaired lead and an unpaired trail surrogate joins them
/// into a pair in the output, as removing those bytes from the UTF-16 source would.
///
/// # Example
///
/// ```
/// use htrewrite::encoding::intermediate_to_utf16;
/// let mut out = Vec::new();
/// intermediate_to_utf16("a€".as_bytes(), true, &mut out);
/// intermediate_to_utf16(b"\xF1\x9F\xBF", true, &mut out); // the escape of a lone U+DFFF
/// assert_eq!(out, b"\0a\x20\xAC\xDF\xFF");
/// ```
///
/// # Complexity
///
/// Linear in `bytes.len()`.
pub fn intermediate_to_utf16(bytes: &[u8], big_endian: bool, out: &mut Vec<u8>) {
    let mut rest = bytes;
    out.reserve(rest.len() * 2);
    loop {
        let error = match std::str::from_utf8(rest) {
            Ok(text) => return push_utf16(text, big_endian, out),
            Err(error) => error,
        };
        let (valid, invalid) = rest.split_at(error.valid_up_to());
        push_utf16(std::str::from_utf8(valid).unwrap_or_default(), big_endian, out);
        let unit = match *invalid {
            [SURROGATE_ESCAPE, second @ 0x80..=0x9F, third @ 0x80..=0xBF, ..] => {
                rest = &invalid[3..];
                0xD800 + (u16::from(second & 0x3F) << 6 | u16::from(third & 0x3F))
            }
            [ODD_BYTE_ESCAPE, second @ 0x80..=0x83, third @ 0x80..=0xBF, ..] => {
                out.push((second & 0x03) << 6 | (third & 0x3F));
                rest = &invalid[3..];
                continue;
            }
            _ => {
                rest = &invalid[error.error_len().unwrap_or(invalid.len())..];
                0xFFFD
            }
        };
        out.extend_from_slice(&if big_endian { unit.to_be_bytes() } else { unit.to_le_bytes() });
    }
}

// ---------------------------------------------------------------------------------------------
// Encoding inserted content, decoding source bytes
// ---------------------------------------------------------------------------------------------

/// Where inserted text lands, which decides what happens to characters the document's encoding
/// cannot represent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InsertContext {
    /// Text in the [data] or [RCDATA] state (`<title>`, `<textarea>`), where character references
    /// are decoded: an unmappable character becomes a decimal numeric character reference
    /// (`&#8364;`). Also the choice for an HTML fragment, as lol_html does (a reference inside a
    /// tag name, comment or script of the fragment stays literal).
    ///
    /// [data]: https://html.spec.whatwg.org/multipage/parsing.html#data-state
    /// [RCDATA]: https://html.spec.whatwg.org/multipage/parsing.html#rcdata-state
    Text,
    /// An attribute value, where character references are decoded: as [`InsertContext::Text`].
    AttributeValue,
    /// Where character references are not decoded: [script data], [RAWTEXT] (`<style>`,
    /// `<xmp>`, `<iframe>`, `<noembed>`, `<noframes>`), [PLAINTEXT], comments. An unmappable
    /// character is an [`UnmappableError`].
    ///
    /// [script data]: https://html.spec.whatwg.org/multipage/parsing.html#script-data-state
    /// [RAWTEXT]: https://html.spec.whatwg.org/multipage/parsing.html#rawtext-state
    /// [PLAINTEXT]: https://html.spec.whatwg.org/multipage/parsing.html#plaintext-state
    Raw,
}

/// A character of inserted text that the document's encoding cannot represent, where a
/// character reference would not be decoded ([`InsertContext::Raw`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnmappableError {
    /// The character.
    character: char,
    /// Its byte offset in the inserted text.
    offset: usize,
    /// The document's encoding.
    encoding: &'static Encoding,
}

impl UnmappableError {
    /// The character that cannot be encoded.
    pub fn character(&self) -> char {
        self.character
    }

    /// The byte offset of [`character`](Self::character) in the text given to
    /// [`encode_inserted`].
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The encoding that cannot represent it.
    pub fn encoding(&self) -> &'static Encoding {
        self.encoding
    }
}

impl fmt::Display for UnmappableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "character U+{:04X} at byte {} cannot be encoded in {} where character references are not decoded",
            u32::from(self.character),
            self.offset,
            self.encoding.name()
        )
    }
}

impl Error for UnmappableError {}

/// Encodes `text`, content a handler inserts, in the document's `encoding`, appending to `out`.
///
/// UTF-8, UTF-16LE and UTF-16BE represent every character: `text` is appended in that form (no
/// byte order mark); so is UTF-8 for the replacement encoding, whose [output encoding] is UTF-8. Any other encoding is encoded with the Encoding Standard's [encoder]
/// (encoding_rs), and a character it cannot represent becomes, in [`InsertContext::Text`] and
/// [`InsertContext::AttributeValue`], a decimal numeric character reference `&#NNNN;` (the
/// Standard's "html" error mode). The caller escapes markup characters first; references
/// written here are never escaped again.
///
/// # Errors
///
/// In [`InsertContext::Raw`], an [`UnmappableError`] naming the first character the encoding
/// cannot represent and its byte offset in `text`; `out` is then left as it was.
///
/// # Example
///
/// ```
/// use htrewrite::encoding::{encode_inserted, InsertContext};
/// # fn main() -> Result<(), htrewrite::encoding::UnmappableError> {
/// let mut out = Vec::new();
/// encode_inserted("€ 漢", encoding_rs::WINDOWS_1252, InsertContext::Text, &mut out)?;
/// assert_eq!(out, b"\x80 &#28450;");
///
/// let error = encode_inserted("x = '漢'", encoding_rs::WINDOWS_1252, InsertContext::Raw, &mut out)
///     .unwrap_err();
/// assert_eq!((error.character(), error.offset()), ('漢', 5));
/// # Ok(())
/// # }
/// ```
///
/// [encoder]: https://encoding.spec.whatwg.org/#encode
/// [output encoding]: https://encoding.spec.whatwg.org/#output-encodings
pub fn encode_inserted(
    text: &str,
    encoding: &'static Encoding,
    context: InsertContext,
    out: &mut Vec<u8>,
) -> Result<(), UnmappableError> {
    if encoding == UTF_16LE || encoding == UTF_16BE {
        push_utf16(text, encoding == UTF_16BE, out);
        return Ok(());
    }
    if encoding.output_encoding() == UTF_8 {
        out.extend_from_slice(text.as_bytes());
        return Ok(());
    }
    let start = out.len();
    let mut encoder = encoding.new_encoder();
    let mut read = 0;
    loop {
        let rest = &text[read..];
        let (done, consumed) = if context == InsertContext::Raw {
            let needed = encoder.max_buffer_length_from_utf8_without_replacement(rest.len());
            out.reserve(needed.expect("inserted text length overflows usize"));
            match encoder.encode_from_utf8_to_vec_without_replacement(rest, out, true) {
                (EncoderResult::InputEmpty, consumed) => (true, consumed),
                (EncoderResult::OutputFull, consumed) => (false, consumed),
                (EncoderResult::Unmappable(character), consumed) => {
                    out.truncate(start);
                    let offset = read + consumed - character.len_utf8();
                    return Err(UnmappableError { character, offset, encoding });
                }
            }
        } else {
            let needed = encoder.max_buffer_length_from_utf8_if_no_unmappables(rest.len());
            out.reserve(needed.expect("inserted text length overflows usize"));
            let (result, consumed, _) = encoder.encode_from_utf8_to_vec(rest, out, true);
            (result == CoderResult::InputEmpty, consumed)
        };
        read += consumed;
        if done {
            return Ok(());
        }
    }
}

/// Decodes source bytes of a document in `encoding` for a handler, borrowing when it can.
///
/// For an ASCII-compatible encoding (and ISO-2022-JP and replacement), `bytes` are source bytes:
/// they are decoded with the Encoding Standard's decoder, without BOM handling, malformed
/// sequences becoming U+FFFD. For UTF-16LE/BE, `bytes` are [`Utf16Front`] output: they are
/// decoded as UTF-8, so each unpaired surrogate reads as one U+FFFD, as the UTF-16 decoder
/// gives. The result borrows `bytes` when they are valid UTF-8 and `encoding` is UTF-8 or
/// UTF-16, or when they are ASCII and `encoding` is ASCII-compatible.
///
/// Decode whole tokens or names, not arbitrary slices: a multi-byte character cut in two
/// decodes as U+FFFD.
///
/// # Example
///
/// ```
/// use std::borrow::Cow;
/// use htrewrite::encoding::decode_to_utf8;
/// assert!(matches!(decode_to_utf8(b"class", encoding_rs::SHIFT_JIS), Cow::Borrowed("class")));
/// assert_eq!(decode_to_utf8(b"\x8a\xbf\x8e\x9a", encoding_rs::SHIFT_JIS), "漢字");
/// assert_eq!(decode_to_utf8(b"caf\xe9", encoding_rs::WINDOWS_1252), "café");
/// assert_eq!(decode_to_utf8(b"a\xF1\x80\x80b", encoding_rs::UTF_16LE), "a\u{FFFD}b");
/// ```
pub fn decode_to_utf8<'a>(bytes: &'a [u8], encoding: &'static Encoding) -> Cow<'a, str> {
    let encoding = if encoding == UTF_16LE || encoding == UTF_16BE { UTF_8 } else { encoding };
    encoding.decode_without_bom_handling(bytes).0
}

#[cfg(test)]
#[allow(clippy::type_complexity)] // case tables are slices of tuples
mod tests {
    use super::*;
    use encoding_rs::{EUC_JP, EUC_KR, GB18030, GBK, ISO_8859_2, ISO_8859_15, SHIFT_JIS, WINDOWS_1250};
    use htrewrite_testkit::{Random, XorShift64Star, env_seed};

    // -----------------------------------------------------------------------------------------
    // The property tests' generator (seed printed in every failure message).
    // -----------------------------------------------------------------------------------------

    /// Seeds to run: `HTREWRITE_SEED=n` replays one, otherwise 1..=count.
    fn seeds(count: u64) -> Vec<u64> {
        env_seed().map_or_else(|| (1..=count).collect(), |seed| vec![seed])
    }

    fn name(result: Prescan) -> String {
        match result {
            Prescan::Found(encoding) => encoding.name().to_string(),
            other => format!("{other:?}"),
        }
    }

    // -----------------------------------------------------------------------------------------
    // BOM
    // -----------------------------------------------------------------------------------------

    #[test]
    fn bom_cases() {
        let cases: &[(&str, &[u8], Option<(&'static Encoding, usize)>)] = &[
            ("utf-8", b"\xEF\xBB\xBF<", Some((UTF_8, 3))),
            ("utf-8 alone", b"\xEF\xBB\xBF", Some((UTF_8, 3))),
            ("utf-16be", b"\xFE\xFF\0<", Some((UTF_16BE, 2))),
            ("utf-16le", b"\xFF\xFE<\0", Some((UTF_16LE, 2))),
            ("utf-16le then utf-8 bom bytes", b"\xFF\xFE\xEF\xBB", Some((UTF_16LE, 2))),
            ("partial utf-8", b"\xEF\xBB", None),
            ("broken utf-8", b"\xEF\xBB\xBE", None),
            ("partial utf-16", b"\xFE", None),
            ("utf-32le is utf-16le", b"\xFF\xFE\0\0", Some((UTF_16LE, 2))),
            ("none", b"<html>", None),
            ("empty", b"", None),
        ];
        for &(name, bytes, expected) in cases {
            assert_eq!(sniff_bom(bytes), expected, "{name}");
            let encoding_rs = Encoding::for_bom(bytes);
            assert_eq!(sniff_bom(bytes), encoding_rs, "{name}: agrees with encoding_rs");
        }
    }

    // -----------------------------------------------------------------------------------------
    // Prescan
    // -----------------------------------------------------------------------------------------

    /// (name, input, at_eof, expected: encoding name, "NotFound" or "NeedMore").
    const PRESCAN_CASES: &[(&str, &str, bool, &str)] = &[
        ("meta charset double quotes", r#"<meta charset="iso-8859-2">"#, true, "ISO-8859-2"),
        ("meta charset single quotes", "<meta charset='iso-8859-2'>", true, "ISO-8859-2"),
        ("meta charset unquoted", "<meta charset=iso-8859-2>", true, "ISO-8859-2"),
        ("meta charset upper case", "<META CHARSET=ISO-8859-2>", true, "ISO-8859-2"),
        ("meta slash before attribute", "<meta/charset=gbk>", true, "GBK"),
        ("meta followed by newline", "<meta\ncharset=gbk>", true, "GBK"),
        ("metacharset is not meta", "<metacharset=gbk>", true, "NotFound"),
        ("spaces around equals", "<meta charset = ' gbk ' >", true, "GBK"),
        ("label is trimmed", "<meta charset=\" gbk\t\">", true, "GBK"),
        ("unknown label", "<meta charset=klingon>", true, "NotFound"),
        ("shortest declaration", "<meta charset=l1>", true, "windows-1252"),
        ("charset=utf-16 becomes utf-8", r#"<meta charset="utf-16">"#, true, "UTF-8"),
        ("charset=utf-16be becomes utf-8", "<meta charset=utf-16be>", true, "UTF-8"),
        ("charset=utf-16le becomes utf-8", "<meta charset=UTF-16LE>", true, "UTF-8"),
        ("x-user-defined becomes windows-1252", "<meta charset=x-user-defined>", true, "windows-1252"),
        ("iso-8859-1 is windows-1252", "<meta charset=iso-8859-1>", true, "windows-1252"),
        ("replacement label", "<meta charset=iso-2022-kr>", true, "replacement"),
        ("first meta wins", "<meta charset=gbk><meta charset=big5>", true, "GBK"),
        ("duplicate attribute ignored", "<meta charset=gbk charset=big5>", true, "GBK"),
        (
            "repeated http-equiv ignored",
            "<meta http-equiv=content-type http-equiv=refresh content='charset=gbk'>",
            true,
            "GBK",
        ),
        (
            "repeated http-equiv cannot set the pragma",
            "<meta http-equiv=refresh http-equiv=content-type content='charset=gbk'>",
            true,
            "NotFound",
        ),
        (
            "repeated content ignored",
            "<meta content=x content='charset=gbk' http-equiv=content-type>",
            true,
            "NotFound",
        ),
        ("meta without charset skipped", "<meta name=x><meta charset=big5>", true, "Big5"),
        ("failed meta skipped", "<meta charset=nope><meta charset=big5>", true, "Big5"),
        (
            "http-equiv before content",
            r#"<meta http-equiv="Content-Type" content="text/html; charset=euc-kr">"#,
            true,
            "EUC-KR",
        ),
        (
            "http-equiv after content",
            r#"<meta content="text/html; charset=euc-kr" http-equiv="content-type">"#,
            true,
            "EUC-KR",
        ),
        ("content without http-equiv", r#"<meta content="text/html; charset=euc-kr">"#, true, "NotFound"),
        (
            "http-equiv with other value",
            r#"<meta http-equiv="refresh" content="text/html; charset=euc-kr">"#,
            true,
            "NotFound",
        ),
        (
            "http-equiv with trailing space",
            r#"<meta http-equiv="content-type " content="text/html; charset=euc-kr">"#,
            true,
            "NotFound",
        ),
        (
            "double-quoted charset inside single-quoted content",
            r#"<meta http-equiv=content-type content='text/html; charset="euc-kr"'>"#,
            true,
            "EUC-KR",
        ),
        (
            "single-quoted charset inside content",
            r#"<meta http-equiv=content-type content="text/html; charset='euc-kr'">"#,
            true,
            "EUC-KR",
        ),
        (
            "unmatched quote inside content",
            r#"<meta http-equiv=content-type content="text/html; charset='euc-kr">"#,
            true,
            "NotFound",
        ),
        (
            "charset= with spaces inside content",
            r#"<meta http-equiv=content-type content="text/html; CHARSET = euc-kr;x">"#,
            true,
            "EUC-KR",
        ),
        (
            "content charset word without equals is skipped",
            r#"<meta http-equiv=content-type content="charset; charset=euc-kr">"#,
            true,
            "EUC-KR",
        ),
        (
            "charset attribute wins over earlier content",
            r#"<meta content="text/html; charset=euc-kr" charset=gbk http-equiv=content-type>"#,
            true,
            "GBK",
        ),
        (
            "failed charset attribute blocks later content",
            r#"<meta charset=nope content="charset=euc-kr" http-equiv=content-type>"#,
            true,
            "NotFound",
        ),
        ("charset attribute needs no pragma", r#"<meta http-equiv=refresh charset=gbk>"#, true, "GBK"),
        ("meta in comment ignored", "<!-- <meta charset=gbk> --><meta charset=big5>", true, "Big5"),
        ("comment end may reuse its dashes", "<!--><meta charset=gbk>", true, "GBK"),
        ("comment <!---> ends at its >", "<!---><meta charset=gbk>--><meta charset=big5>", true, "GBK"),
        ("bang tag skipped to >", "<!DOCTYPE html><meta charset=gbk>", true, "GBK"),
        ("bang skip ends at first >", "<!x <meta charset=gbk>", true, "NotFound"),
        ("processing instruction skipped to first >", "<?php <meta charset=gbk> ?><meta charset=big5>", true, "Big5"),
        ("end tag attributes skipped", "</p title='<meta charset=gbk>'><meta charset=big5>", true, "Big5"),
        ("end tag named meta is not meta", "</meta charset=gbk>", true, "NotFound"),
        ("`</` + non-letter skipped to >", "</ <meta charset=gbk>", true, "NotFound"),
        ("attribute value hides meta", "<a title='<meta charset=gbk>'><meta charset=big5>", true, "Big5"),
        ("script content is not special", r#"<script>document.write('<meta charset="gbk">')</script>"#, true, "GBK"),
        ("style content is not special", "<style>/* <meta charset=gbk> */</style>", true, "GBK"),
        ("lone < is nothing", "a < b <meta charset=gbk>", true, "GBK"),
        ("xml declaration", "<?xml version='1.0' encoding='iso-8859-2'?><p>", true, "ISO-8859-2"),
        ("xml declaration utf-16 is utf-8", "<?xml encoding=\"utf-16\"?>", true, "UTF-8"),
        ("xml encoding with spaces", "<?xml encoding = 'gbk' ?>", true, "GBK"),
        ("xml declaration not at start", " <?xml encoding='gbk'?>", true, "NotFound"),
        ("xml encoding after > is ignored", "<?xml ?> encoding='gbk'", true, "NotFound"),
        ("xml encoding unquoted", "<?xml encoding=gbk?>", true, "NotFound"),
        ("meta wins over xml declaration", "<?xml encoding='gbk'?><meta charset=big5>", true, "Big5"),
        ("xml declaration needs more", "<?xml version='1.0' encoding='gb", false, "NeedMore"),
        ("utf-16le xml declaration", "<\0?\0x\0m\0l\0", true, "UTF-16LE"),
        ("utf-16be xml declaration", "\0<\0?\0x\0m\0l", true, "UTF-16BE"),
        ("utf-16le xml declaration prefix", "<\0?\0", false, "NeedMore"),
        ("utf-16le xml declaration prefix at end", "<\0?\0", true, "NotFound"),
        ("unterminated meta at end", "<meta charset=gbk", true, "NotFound"),
        ("unterminated meta needs more", "<meta charset=gbk", false, "NeedMore"),
        ("meta without > at end", "<meta charset=gbk ", true, "NotFound"),
        ("found before 1024 bytes", "<meta charset=gbk> and more", false, "GBK"),
        ("empty needs more", "", false, "NeedMore"),
        ("empty at end", "", true, "NotFound"),
        ("plain text needs more", "Hello", false, "NeedMore"),
        ("partial < needs more", "<", false, "NeedMore"),
        ("partial <m needs more", "<m", false, "NeedMore"),
        ("partial <!- needs more", "<!-", false, "NeedMore"),
        ("partial </ needs more", "</", false, "NeedMore"),
    ];

    #[test]
    fn prescan_cases() {
        let mut failures = Vec::new();
        for &(case, input, at_eof, expected) in PRESCAN_CASES {
            let got = name(prescan(input.as_bytes(), at_eof));
            if got != expected {
                failures.push(format!("{case}: {input:?} at_eof={at_eof}: expected {expected}, got {got}"));
            }
        }
        assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    }

    #[test]
    fn prescan_reads_only_1024_bytes() {
        let pad = |n: usize| "a".repeat(n);
        let declaration = "<meta charset=l1>"; // 17 bytes
        let cases: Vec<(String, String, bool, &str)> = vec![
            // A declaration ending at byte 1024 counts, one byte later does not.
            ("ends at 1024".into(), pad(1007) + declaration, true, "windows-1252"),
            ("ends at 1025".into(), pad(1008) + declaration, true, "NotFound"),
            ("ends at 1025, not at eof".into(), pad(1008) + declaration, false, "NotFound"),
            // With 17 bytes left the declaration still fits: wait; with 16 it cannot.
            ("17 bytes left".into(), pad(1007), false, "NeedMore"),
            ("16 bytes left".into(), pad(1008), false, "NotFound"),
            ("1024 bytes, not at eof".into(), pad(1024), false, "NotFound"),
            ("2000 bytes".into(), pad(2000), false, "NotFound"),
            // Inside a comment, another 18 bytes are needed (`>` and a declaration).
            ("comment, 18 bytes left".into(), "<!--".to_string() + &pad(1002), false, "NeedMore"),
            ("comment, 17 bytes left".into(), "<!--".to_string() + &pad(1003), false, "NotFound"),
            // Inside <meta, one byte may be enough.
            ("meta, 1 byte left".into(), pad(1007) + "<meta charset=l1", false, "NeedMore"),
            ("meta complete at 1024".into(), pad(1007) + "<meta charset=l1>", false, "windows-1252"),
            // An unterminated <meta at the limit is final.
            ("meta cut by limit".into(), pad(1010) + "<meta charset=gbk>", false, "NotFound"),
        ];
        for (case, input, at_eof, expected) in cases {
            assert_eq!(name(prescan(input.as_bytes(), at_eof)), expected, "{case}");
        }
    }

    /// Random HTML-like documents, every prefix: a final answer for a prefix must be the answer
    /// for the whole document (more bytes never change it), and `NeedMore` only before 1024 bytes.
    #[test]
    fn prescan_final_answers_are_stable() {
        const PIECES: &[&str] = &[
            "<meta charset=gbk>",
            "<meta charset=l1>",
            "<meta http-equiv=content-type ",
            "content='charset=big5'>",
            "<!--",
            "-->",
            "<!",
            "</",
            "<?",
            "<?xml encoding='gbk'?>",
            "<a href='x'>",
            "<p>",
            ">",
            "'",
            "\"",
            " ",
            "text",
            "<meta ",
            "charset=",
            "x",
            "<script>",
            "-",
            "=",
            "/",
            "<",
        ];
        for seed in seeds(300) {
            let mut rng = XorShift64Star::new(seed);
            let mut document = String::new();
            let target = 900 + rng.below(300);
            while document.len() < target {
                if rng.below(4) == 0 {
                    document.push_str(&"y".repeat(rng.below(60)));
                }
                document.push_str(PIECES[rng.below(PIECES.len())]);
            }
            let bytes = document.as_bytes();
            let whole = prescan(bytes, true);
            for end in 0..=bytes.len() {
                match prescan(&bytes[..end], false) {
                    Prescan::NeedMore => assert!(end < PRESCAN_LIMIT, "seed {seed}: NeedMore at {end}"),
                    partial => assert_eq!(partial, whole, "seed {seed}: prefix of {end} bytes of {document:?}"),
                }
            }
        }
    }

    #[test]
    fn extract_encoding_from_content_cases() {
        let cases: &[(&str, Option<&'static Encoding>)] = &[
            ("text/html; charset=gbk", Some(GBK)),
            ("charset=gbk;x", Some(GBK)),
            ("charset =\tgbk", Some(GBK)),
            ("charset=\"gbk\"", Some(GBK)),
            ("charset='gbk", None),
            ("charset=", None),
            ("charsetcharset=gbk", Some(GBK)),
            ("xcharset=gbk", Some(GBK)),
            ("charset x charset=gbk", Some(GBK)),
            ("charset=nope", None),
            ("nothing", None),
        ];
        for &(content, expected) in cases {
            assert_eq!(extract_encoding_from_content(content.as_bytes()), expected, "{content:?}");
        }
    }

    // -----------------------------------------------------------------------------------------
    // Sniffing
    // -----------------------------------------------------------------------------------------

    #[test]
    fn sniff_encoding_cases() {
        use EncodingSource::*;
        let gbk = Some(GBK);
        let cases: &[(
            &str,
            &[u8],
            bool,
            Option<&'static Encoding>,
            Option<(&'static Encoding, usize, EncodingSource)>,
        )] = &[
            ("bom over transport", b"\xEF\xBB\xBF<meta charset=big5>", false, gbk, Some((UTF_8, 3, ByteOrderMark))),
            ("utf-16le bom", b"\xFF\xFE<\0", false, None, Some((UTF_16LE, 2, ByteOrderMark))),
            ("wait for bom", b"\xEF\xBB", false, gbk, None),
            ("partial bom at eof", b"\xEF\xBB", true, gbk, Some((GBK, 0, Transport))),
            ("empty waits", b"", false, gbk, None),
            ("transport over meta", b"<meta charset=big5>", false, gbk, Some((GBK, 0, Transport))),
            ("transport once no bom can come", b"<p>", false, gbk, Some((GBK, 0, Transport))),
            ("meta", b"<meta charset=big5>", false, None, Some((encoding_rs::BIG5, 0, Prescan))),
            ("waiting for meta", b"<p>", false, None, None),
            ("default at eof", b"<p>", true, None, Some((WINDOWS_1250, 0, Default))),
            ("default after 1024", &[b'a'; 1024], false, None, Some((WINDOWS_1250, 0, Default))),
        ];
        for &(case, bytes, at_eof, transport, expected) in cases {
            let got = sniff_encoding(bytes, at_eof, transport, WINDOWS_1250).map(|s| (s.encoding, s.bom_len, s.source));
            assert_eq!(got, expected, "{case}");
        }
    }

    // -----------------------------------------------------------------------------------------
    // html5lib-tests encoding/*.dat
    // -----------------------------------------------------------------------------------------

    /// Where the vendored html5lib `encoding/` files are.
    const HTML5LIB_ENCODING_DIR: &str =
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/html5lib-tests/encoding");

    /// Cases whose declaration comes after the first 1024 bytes: browsers find it while parsing
    /// ("change the encoding", which re-parses), the prescan cannot. (file, case index, reason)
    const HTML5LIB_EXPECTED_DIFFERENCES: &[(&str, usize, &str)] = &[
        ("tests1.dat", 47, "<meta> at byte 2020: after the prescan's 1024 bytes"),
        ("tests1.dat", 48, "<meta> at byte 2021: after the prescan's 1024 bytes"),
        ("tests1.dat", 49, "<meta> at byte 4068: after the prescan's 1024 bytes"),
        ("tests1.dat", 50, "<meta> at byte 4069: after the prescan's 1024 bytes"),
        ("tests1.dat", 51, "<meta> at byte 8164: after the prescan's 1024 bytes"),
        ("tests1.dat", 52, "<meta> at byte 8165: after the prescan's 1024 bytes"),
        ("tests1.dat", 53, "<meta> at byte 8317: after the prescan's 1024 bytes"),
    ];

    /// The `(data, encoding)` cases of an html5lib encoding `.dat` file, in order.
    fn html5lib_cases(file: &str) -> Vec<(Vec<u8>, String)> {
        let path = format!("{HTML5LIB_ENCODING_DIR}/{file}");
        let text = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let mut cases = Vec::new();
        for chunk in text.split_inclusive(|&b| b == b'\n').fold(Vec::<Vec<u8>>::new(), |mut acc, line| {
            if line == b"#data\n" {
                acc.push(Vec::new());
            }
            if let Some(last) = acc.last_mut() {
                last.extend_from_slice(line);
            }
            acc
        }) {
            let body = &chunk[b"#data\n".len()..];
            let split = memchr::memmem::find(body, b"\n#encoding\n").expect("#encoding");
            let data = body[..split].to_vec();
            let encoding = String::from_utf8_lossy(&body[split + b"\n#encoding\n".len()..]);
            cases.push((data, encoding.lines().next().unwrap_or("").trim().to_string()));
        }
        cases
    }

    /// Runs case `index` of `file`: the sniffing algorithm with no transport encoding and
    /// windows-1252 (what html5lib expects) as the default, at the end of the input.
    fn run_html5lib_case(file: &str, index: usize) {
        let cases = html5lib_cases(file);
        let (data, expected) = &cases[index];
        let expected = Encoding::for_label(expected.as_bytes()).expect("known label");
        let got = sniff_encoding(data, true, None, WINDOWS_1252).expect("decided at eof").encoding;
        let difference = HTML5LIB_EXPECTED_DIFFERENCES.iter().find(|&&(f, i, _)| f == file && i == index);
        match difference {
            None => assert_eq!(got, expected, "{file} #{index}: {:?}", String::from_utf8_lossy(data)),
            Some((_, _, reason)) => {
                assert_ne!(got, expected, "{file} #{index} is listed as a difference ({reason}) but passes");
                assert_eq!(got, WINDOWS_1252, "{file} #{index}: {reason}");
            }
        }
        // Fed in pieces, the sniffer decides on the same encoding.
        for step in [1, 7, 64] {
            let mut end = 0;
            let decided = loop {
                end = (end + step).min(data.len());
                if let Some(sniffed) = sniff_encoding(&data[..end], end == data.len(), None, WINDOWS_1252) {
                    break sniffed;
                }
            };
            assert_eq!(decided.encoding, got, "{file} #{index}: fed {step} bytes at a time, decided at {end}");
        }
    }

    /// One named test per html5lib case (`html5lib_<file>_<index>`); `html5lib_case_count` checks
    /// that none is missing.
    macro_rules! html5lib_cases {
        ($($name:ident => ($file:literal, $index:literal),)*) => {
            $(
                #[test]
                fn $name() {
                    run_html5lib_case($file, $index);
                }
            )*
            const HTML5LIB_CASES: &[(&str, usize)] = &[$(($file, $index)),*];
        };
    }

    html5lib_cases! {
        html5lib_tests1_00 => ("tests1.dat", 0),
        html5lib_tests1_01 => ("tests1.dat", 1),
        html5lib_tests1_02 => ("tests1.dat", 2),
        html5lib_tests1_03 => ("tests1.dat", 3),
        html5lib_tests1_04 => ("tests1.dat", 4),
        html5lib_tests1_05 => ("tests1.dat", 5),
        html5lib_tests1_06 => ("tests1.dat", 6),
        html5lib_tests1_07 => ("tests1.dat", 7),
        html5lib_tests1_08 => ("tests1.dat", 8),
        html5lib_tests1_09 => ("tests1.dat", 9),
        html5lib_tests1_10 => ("tests1.dat", 10),
        html5lib_tests1_11 => ("tests1.dat", 11),
        html5lib_tests1_12 => ("tests1.dat", 12),
        html5lib_tests1_13 => ("tests1.dat", 13),
        html5lib_tests1_14 => ("tests1.dat", 14),
        html5lib_tests1_15 => ("tests1.dat", 15),
        html5lib_tests1_16 => ("tests1.dat", 16),
        html5lib_tests1_17 => ("tests1.dat", 17),
        html5lib_tests1_18 => ("tests1.dat", 18),
        html5lib_tests1_19 => ("tests1.dat", 19),
        html5lib_tests1_20 => ("tests1.dat", 20),
        html5lib_tests1_21 => ("tests1.dat", 21),
        html5lib_tests1_22 => ("tests1.dat", 22),
        html5lib_tests1_23 => ("tests1.dat", 23),
        html5lib_tests1_24 => ("tests1.dat", 24),
        html5lib_tests1_25 => ("tests1.dat", 25),
        html5lib_tests1_26 => ("tests1.dat", 26),
        html5lib_tests1_27 => ("tests1.dat", 27),
        html5lib_tests1_28 => ("tests1.dat", 28),
        html5lib_tests1_29 => ("tests1.dat", 29),
        html5lib_tests1_30 => ("tests1.dat", 30),
        html5lib_tests1_31 => ("tests1.dat", 31),
        html5lib_tests1_32 => ("tests1.dat", 32),
        html5lib_tests1_33 => ("tests1.dat", 33),
        html5lib_tests1_34 => ("tests1.dat", 34),
        html5lib_tests1_35 => ("tests1.dat", 35),
        html5lib_tests1_36 => ("tests1.dat", 36),
        html5lib_tests1_37 => ("tests1.dat", 37),
        html5lib_tests1_38 => ("tests1.dat", 38),
        html5lib_tests1_39 => ("tests1.dat", 39),
        html5lib_tests1_40 => ("tests1.dat", 40),
        html5lib_tests1_41 => ("tests1.dat", 41),
        html5lib_tests1_42 => ("tests1.dat", 42),
        html5lib_tests1_43 => ("tests1.dat", 43),
        html5lib_tests1_44 => ("tests1.dat", 44),
        html5lib_tests1_45 => ("tests1.dat", 45),
        html5lib_tests1_46 => ("tests1.dat", 46),
        html5lib_tests1_47 => ("tests1.dat", 47),
        html5lib_tests1_48 => ("tests1.dat", 48),
        html5lib_tests1_49 => ("tests1.dat", 49),
        html5lib_tests1_50 => ("tests1.dat", 50),
        html5lib_tests1_51 => ("tests1.dat", 51),
        html5lib_tests1_52 => ("tests1.dat", 52),
        html5lib_tests1_53 => ("tests1.dat", 53),
        html5lib_tests1_54 => ("tests1.dat", 54),
        html5lib_tests1_55 => ("tests1.dat", 55),
        html5lib_tests1_56 => ("tests1.dat", 56),
        html5lib_tests1_57 => ("tests1.dat", 57),
        html5lib_tests1_58 => ("tests1.dat", 58),
        html5lib_tests2_00 => ("tests2.dat", 0),
        html5lib_tests2_01 => ("tests2.dat", 1),
        html5lib_tests2_02 => ("tests2.dat", 2),
        html5lib_tests2_03 => ("tests2.dat", 3),
        html5lib_tests2_04 => ("tests2.dat", 4),
        html5lib_tests2_05 => ("tests2.dat", 5),
        html5lib_tests2_06 => ("tests2.dat", 6),
        html5lib_tests2_07 => ("tests2.dat", 7),
        html5lib_tests2_08 => ("tests2.dat", 8),
        html5lib_tests2_09 => ("tests2.dat", 9),
        html5lib_tests2_10 => ("tests2.dat", 10),
        html5lib_tests2_11 => ("tests2.dat", 11),
        html5lib_tests2_12 => ("tests2.dat", 12),
        html5lib_tests2_13 => ("tests2.dat", 13),
        html5lib_tests2_14 => ("tests2.dat", 14),
        html5lib_tests2_15 => ("tests2.dat", 15),
        html5lib_tests2_16 => ("tests2.dat", 16),
        html5lib_tests2_17 => ("tests2.dat", 17),
        html5lib_tests2_18 => ("tests2.dat", 18),
        html5lib_tests2_19 => ("tests2.dat", 19),
        html5lib_tests2_20 => ("tests2.dat", 20),
        html5lib_tests2_21 => ("tests2.dat", 21),
        html5lib_test_yahoo_jp_00 => ("test-yahoo-jp.dat", 0),
    }

    #[test]
    fn html5lib_case_count() {
        for file in ["tests1.dat", "tests2.dat", "test-yahoo-jp.dat"] {
            let listed = HTML5LIB_CASES.iter().filter(|&&(f, _)| f == file).count();
            assert_eq!(listed, html5lib_cases(file).len(), "{file}: every case has a test");
        }
    }

    // -----------------------------------------------------------------------------------------
    // Strategy
    // -----------------------------------------------------------------------------------------

    #[test]
    fn strategy_cases() {
        let cases: &[(&'static Encoding, Strategy)] = &[
            (UTF_8, Strategy::Bytes),
            (WINDOWS_1252, Strategy::Bytes),
            (SHIFT_JIS, Strategy::Bytes),
            (EUC_JP, Strategy::Bytes),
            (EUC_KR, Strategy::Bytes),
            (GB18030, Strategy::Bytes),
            (X_USER_DEFINED, Strategy::Bytes),
            (UTF_16LE, Strategy::Utf16 { big_endian: false }),
            (UTF_16BE, Strategy::Utf16 { big_endian: true }),
            (ISO_2022_JP, Strategy::Unsupported),
            (REPLACEMENT, Strategy::Unsupported),
        ];
        for &(encoding, expected) in cases {
            assert_eq!(strategy(encoding), expected, "{}", encoding.name());
        }
    }

    // -----------------------------------------------------------------------------------------
    // UTF-16 front and back
    // -----------------------------------------------------------------------------------------

    fn utf16_bytes(units: &[u16], big_endian: bool) -> Vec<u8> {
        units.iter().flat_map(|u| if big_endian { u.to_be_bytes() } else { u.to_le_bytes() }).collect()
    }

    /// Runs a front over `chunks`; returns the intermediate and the odd byte.
    fn front(chunks: &[&[u8]], big_endian: bool) -> (Vec<u8>, Option<u8>) {
        let mut front = Utf16Front::new(big_endian);
        let mut out = Vec::new();
        for chunk in chunks {
            front.push(chunk, &mut out);
        }
        let odd = front.finish(&mut out);
        (out, odd)
    }

    /// (name, code units, intermediate)
    const FRONT_CASES: &[(&str, &[u16], &[u8])] = &[
        ("ascii", &[0x3C, 0x70, 0x3E], b"<p>"),
        ("nul", &[0x00], b"\0"),
        ("bmp", &[0xE9, 0x20AC, 0xFFFF], "é€\u{FFFF}".as_bytes()),
        ("pair", &[0xD83D, 0xDE00], "😀".as_bytes()),
        ("highest pair", &[0xDBFF, 0xDFFF], "\u{10FFFF}".as_bytes()),
        ("lone lead at end", &[0xD800], b"\xF1\x80\x80"),
        ("lone lead then ascii", &[0xDBFF, 0x41], b"\xF1\x8F\xBFA"),
        ("lone trail", &[0xDC00, 0x41], b"\xF1\x90\x80A"),
        ("highest lone trail", &[0xDFFF], b"\xF1\x9F\xBF"),
        ("lead lead trail", &[0xD800, 0xD83D, 0xDE00], b"\xF1\x80\x80\xF0\x9F\x98\x80"),
        ("trail lead", &[0xDC00, 0xD800], b"\xF1\x90\x80\xF1\x80\x80"),
        ("bom is kept", &[0xFEFF, 0x41], "\u{FEFF}A".as_bytes()),
    ];

    #[test]
    fn front_cases_every_split() {
        for &(case, units, intermediate) in FRONT_CASES {
            for big_endian in [false, true] {
                let source = utf16_bytes(units, big_endian);
                // Whole, and split at every pair of points.
                for i in 0..=source.len() {
                    for j in i..=source.len() {
                        let chunks = [&source[..i], &source[i..j], &source[j..]];
                        let (out, odd) = front(&chunks, big_endian);
                        assert_eq!(out, intermediate, "{case} be={big_endian} split {i},{j}");
                        assert_eq!(odd, None, "{case}");
                    }
                }
                let mut back = Vec::new();
                intermediate_to_utf16(intermediate, big_endian, &mut back);
                assert_eq!(back, source, "{case} be={big_endian}: back");
            }
        }
    }

    #[test]
    fn front_odd_trailing_byte() {
        // (units, odd byte, intermediate, byte handed back)
        let cases: &[(&[u16], u8, &[u8], Option<u8>)] = &[
            (&[0x41], 0x42, b"A\xF2\x81\x82", None),
            (&[], 0xFF, b"\xF2\x83\xBF", None),
            (&[0xDC00], 0x00, b"\xF1\x90\x80\xF2\x80\x80", None),
            // A lead surrogate and an odd byte are one U+FFFD: one escape, the byte handed back.
            (&[0x41, 0xD800], 0x42, b"A\xF1\x80\x80", Some(0x42)),
        ];
        for &(units, odd, intermediate, handed_back) in cases {
            for big_endian in [false, true] {
                let mut source = utf16_bytes(units, big_endian);
                source.push(odd);
                for i in 0..=source.len() {
                    let (out, got) = front(&[&source[..i], &source[i..]], big_endian);
                    assert_eq!((out.as_slice(), got), (intermediate, handed_back), "{units:04X?} split {i}");
                }
                let mut back = Vec::new();
                intermediate_to_utf16(intermediate, big_endian, &mut back);
                back.extend(handed_back);
                assert_eq!(back, source, "{units:04X?}: back");
                let utf16 = if big_endian { UTF_16BE } else { UTF_16LE };
                assert_eq!(
                    decode_to_utf8(intermediate, utf16),
                    utf16.decode_without_bom_handling(&source).0,
                    "{units:04X?}: decoded"
                );
            }
        }
    }

    #[test]
    fn back_replaces_foreign_bytes() {
        let cases: &[(&[u8], &[u16])] = &[
            (b"\xFF", &[0xFFFD]),
            (b"a\xE6\x97", &[0x61, 0xFFFD]),
            (b"\xED\xA0\x80", &[0xFFFD, 0xFFFD, 0xFFFD]), // WTF-8 is not the intermediate
            (b"\xF1\xA0\x80", &[0xFFFD]),
            (b"\xF1\x80\x80\x80", &[0xD8C0, 0xDC00]), // a real U+40000
            (b"\xF2\x84\x80", &[0xFFFD]),             // not an odd-byte escape
        ];
        for &(bytes, units) in cases {
            let mut out = Vec::new();
            intermediate_to_utf16(bytes, false, &mut out);
            assert_eq!(out, utf16_bytes(units, false), "{bytes:?}");
        }
    }

    /// Random code units (surrogates over-represented), random chunking: front then back gives
    /// the source; the intermediate decoded as UTF-8 equals the source decoded as UTF-16; each
    /// push's output converts back on its own.
    #[test]
    fn front_back_round_trip_property() {
        for seed in seeds(2000) {
            let mut rng = XorShift64Star::new(seed);
            let big_endian = rng.below(2) == 1;
            let length = rng.below(40);
            let units: Vec<u16> = (0..length)
                .map(|_| match rng.below(6) {
                    0 => rng.below(0x80) as u16,
                    1 => 0xD800 + rng.below(0x400) as u16,
                    2 => 0xDC00 + rng.below(0x400) as u16,
                    3 => [0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xFEFF, 0xFFFD, 0xFFFF][rng.below(7)],
                    _ => rng.next_u64() as u16,
                })
                .collect();
            let mut source = utf16_bytes(&units, big_endian);
            if rng.below(4) == 0 {
                source.push(rng.next_u64() as u8);
            }
            let mut front = Utf16Front::new(big_endian);
            let mut intermediate = Vec::new();
            let mut pieces_back = Vec::new();
            let mut position = 0;
            while position < source.len() {
                let end = (position + 1 + rng.below(7)).min(source.len());
                let before = intermediate.len();
                front.push(&source[position..end], &mut intermediate);
                intermediate_to_utf16(&intermediate[before..], big_endian, &mut pieces_back);
                position = end;
            }
            let before = intermediate.len();
            let odd = front.finish(&mut intermediate);
            intermediate_to_utf16(&intermediate[before..], big_endian, &mut pieces_back);
            pieces_back.extend(odd);

            let mut back = Vec::new();
            intermediate_to_utf16(&intermediate, big_endian, &mut back);
            back.extend(odd);
            assert_eq!(back, source, "seed {seed}: round trip of {units:04X?}");
            assert_eq!(pieces_back, source, "seed {seed}: piecewise round trip");

            let utf16 = if big_endian { UTF_16BE } else { UTF_16LE };
            let (expected, _) = utf16.decode_without_bom_handling(&source);
            let decoded = UTF_8.decode_without_bom_handling(&intermediate).0;
            assert_eq!(decoded, expected, "seed {seed}: decoding of {units:04X?}");
            assert_eq!(decode_to_utf8(&intermediate, utf16), UTF_8.decode_without_bom_handling(&intermediate).0);
        }
    }

    // -----------------------------------------------------------------------------------------
    // Encoding inserted content
    // -----------------------------------------------------------------------------------------

    #[test]
    fn encode_inserted_cases() {
        use InsertContext::*;
        /// (encoding, text, context, Ok(bytes) or Err((character, offset)))
        type Case = (&'static Encoding, &'static str, InsertContext, Result<&'static [u8], (char, usize)>);
        let cases: &[Case] = &[
            (WINDOWS_1252, "€", Text, Ok(b"\x80")),
            (WINDOWS_1252, "漢", Text, Ok(b"&#28450;")),
            (WINDOWS_1252, "ő", AttributeValue, Ok(b"&#337;")),
            (WINDOWS_1252, "😀", Text, Ok(b"&#128512;")),
            (WINDOWS_1252, "a€b", Raw, Ok(b"a\x80b")),
            (WINDOWS_1252, "a = '漢';", Raw, Err(('漢', 5))),
            (WINDOWS_1252, "x😀", Raw, Err(('😀', 1))),
            (SHIFT_JIS, "漢", Text, Ok(b"\x8a\xbf")),
            (SHIFT_JIS, "€", Text, Ok(b"&#8364;")),
            (SHIFT_JIS, "ő", Text, Ok(b"&#337;")),
            (SHIFT_JIS, "😀", AttributeValue, Ok(b"&#128512;")),
            (SHIFT_JIS, "漢€", Raw, Err(('€', 3))),
            (GB18030, "漢", Text, Ok(b"\x9d\x68")),
            (GB18030, "€", Text, Ok(b"\xa2\xe3")),
            (GB18030, "ő", Text, Ok(b"\x81\x30\x93\x32")),
            (GB18030, "😀", Raw, Ok(b"\x94\x39\xfc\x36")),
            (GBK, "😀", Text, Ok(b"&#128512;")),
            (GBK, "€", Text, Ok(b"\x80")),
            (ISO_8859_2, "ő", Text, Ok(b"\xf5")),
            (ISO_8859_2, "€", Text, Ok(b"&#8364;")),
            (ISO_8859_2, "漢", AttributeValue, Ok(b"&#28450;")),
            (ISO_8859_2, "😀", Text, Ok(b"&#128512;")),
            (ISO_8859_2, "ő😀", Raw, Err(('😀', 2))),
            (ISO_8859_15, "€", Raw, Ok(b"\xa4")),
            (EUC_KR, "한", Text, Ok(b"\xc7\xd1")),
            (X_USER_DEFINED, "\u{F780}a", Raw, Ok(b"\x80a")),
            (ISO_2022_JP, "漢a", Text, Ok(b"\x1b$B4A\x1b(Ba")),
            (UTF_8, "漢😀", Raw, Ok("漢😀".as_bytes())),
            (UTF_16LE, "a😀", Raw, Ok(b"a\0\x3d\xd8\x00\xde")),
            (UTF_16BE, "a😀", Text, Ok(b"\0a\xd8\x3d\xde\x00")),
            (WINDOWS_1252, "", Raw, Ok(b"")),
        ];
        for &(encoding, text, context, expected) in cases {
            let mut out = b"prefix".to_vec();
            let got = encode_inserted(text, encoding, context, &mut out).map(|()| out[6..].to_vec()).map_err(|e| {
                assert_eq!(out, b"prefix", "out unchanged on error");
                assert_eq!(e.encoding(), encoding);
                (e.character(), e.offset())
            });
            assert_eq!(got, expected.map(<[u8]>::to_vec), "{} {text:?} {context:?}", encoding.name());
        }
    }

    #[test]
    fn encode_inserted_long_text_with_many_references() {
        // More references than the first buffer reservation holds: the loop must grow it.
        let text = "漢".repeat(1000) + "a";
        let mut out = Vec::new();
        encode_inserted(&text, WINDOWS_1252, InsertContext::Text, &mut out).unwrap();
        assert_eq!(out, ("&#28450;".repeat(1000) + "a").into_bytes());
    }

    #[test]
    fn unmappable_error_display() {
        let error = encode_inserted("ab😀", ISO_8859_2, InsertContext::Raw, &mut Vec::new()).unwrap_err();
        assert_eq!(
            error.to_string(),
            "character U+1F600 at byte 2 cannot be encoded in ISO-8859-2 where character references are not decoded"
        );
    }

    // -----------------------------------------------------------------------------------------
    // Decoding
    // -----------------------------------------------------------------------------------------

    #[test]
    fn decode_to_utf8_cases() {
        // (encoding, bytes, text, borrowed)
        let cases: &[(&'static Encoding, &[u8], &str, bool)] = &[
            (UTF_8, "héllo".as_bytes(), "héllo", true),
            (UTF_8, b"a\xffb", "a\u{FFFD}b", false),
            (UTF_8, b"\xEF\xBB\xBFa", "\u{FEFF}a", true),
            (WINDOWS_1252, b"ascii", "ascii", true),
            (WINDOWS_1252, b"\x80", "€", false),
            (SHIFT_JIS, b"\x8a\xbf", "漢", false),
            (SHIFT_JIS, b"\x8a", "\u{FFFD}", false),
            (GB18030, b"\x81\x30\x93\x32", "ő", false),
            (ISO_8859_2, b"\xf5", "ő", false),
            (UTF_16LE, "a€".as_bytes(), "a€", true),
            (UTF_16BE, b"\xF1\x80\x80\xF1\x9F\xBF", "\u{FFFD}\u{FFFD}", false),
        ];
        for &(encoding, bytes, text, borrowed) in cases {
            let got = decode_to_utf8(bytes, encoding);
            assert_eq!(got, text, "{} {bytes:?}", encoding.name());
            assert_eq!(matches!(got, Cow::Borrowed(_)), borrowed, "{} {bytes:?}: borrowed", encoding.name());
        }
    }
}
