//! Inserted content: [`ContentType`], and how text is made safe for the place it lands in.

use encoding_rs::Encoding;

use crate::error::{EditError, EditErrorKind};

/// How inserted content is meant.
///
/// # Example
/// ```
/// use htrewrite::{ContentType, Settings, rewrite_str};
/// let settings = Settings::new().element("p", |el| {
///     el.append("<b>1 < 2</b>", ContentType::Text)?;
///     el.prepend("<i>!</i>", ContentType::Html)?;
///     Ok(())
/// });
/// let out = rewrite_str("<p>x</p>", settings)?;
/// assert_eq!(out, "<p><i>!</i>x&lt;b&gt;1 &lt; 2&lt;/b&gt;</p>");
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContentType {
    /// Markup, inserted as given (encoded into the document's encoding).
    Html,
    /// Plain text, escaped for the context it lands in: `& < >` in normal
    /// text, `& <` in RCDATA (`<title>`, `<textarea>`); in RAWTEXT
    /// (`<style>`, `<xmp>`, …), script data and CDATA sections escaping is
    /// impossible, so text that would end the element is refused with
    /// [`EditErrorKind::TextWouldEndElement`]. Text with U+0000 is refused
    /// everywhere ([`EditErrorKind::NulInText`]): no HTML text holds it.
    Text,
    /// Markup fed through the rewriter's own parse as if it stood in the
    /// document where it lands: the page's rules and handlers apply to it,
    /// and the tree is the one a browser builds from the page with the
    /// markup spliced in (a `<table>` in it is foster-parented, a `</div>`
    /// in it closes the page's `<div>`). The output is the rewrite of that
    /// spliced page. Only where the parse has not gone past the place: at
    /// the start of an element's content from a handler called for its start
    /// tag ([`Element::prepend`](crate::Element::prepend),
    /// [`Element::defer_prepend_parsed`](crate::Element::defer_prepend_parsed)),
    /// and after an element's end tag from a handler called for that end tag
    /// ([`ElementEnd::after`](crate::ElementEnd::after),
    /// [`ElementEnd::defer_after_parsed`](crate::ElementEnd::defer_after_parsed));
    /// it comes after the content inserted at that place without parsing.
    /// Elsewhere refused with [`EditErrorKind::ParsePassed`].
    ///
    /// # Example
    /// ```
    /// use htrewrite::{ContentType, Settings, rewrite_str};
    /// let settings = Settings::new()
    ///     .element("img", |el| Ok(el.set_attribute("loading", "lazy")?))
    ///     .element("main", |el| Ok(el.prepend("<img src=a.png>", ContentType::ParsedHtml)?));
    /// let out = rewrite_str("<main><img src=b.png></main>", settings)?;
    /// assert_eq!(out, r#"<main><img src=a.png loading="lazy"><img src=b.png loading="lazy"></main>"#);
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    ParsedHtml,
}

/// The tokenizer context inserted content lands in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Context<'a> {
    /// Normal text (the data state), also where elements go.
    Data,
    /// RCDATA (`<title>`, `<textarea>`).
    Rcdata,
    /// RAWTEXT, ended by `</name`.
    Rawtext(&'a str),
    /// Script data.
    ScriptData,
    /// PLAINTEXT: nothing ends it.
    Plaintext,
    /// Inside `<![CDATA[ … ]]>`.
    CdataSection,
}

impl<'a> Context<'a> {
    /// The context of text read in `mode`; `name` is the element's, read
    /// only for RAWTEXT.
    #[inline(always)]
    pub(crate) fn of(mode: htrewrite_tokenizer::TextMode, name: &'a str) -> Context<'a> {
        use htrewrite_tokenizer::TextMode;
        match mode {
            TextMode::Data => Context::Data,
            TextMode::Rcdata => Context::Rcdata,
            TextMode::Rawtext => Context::Rawtext(name),
            TextMode::ScriptData => Context::ScriptData,
            TextMode::Plaintext => Context::Plaintext,
            TextMode::CdataSection => Context::CdataSection,
        }
    }

    /// Whether a character reference can stand in for an unencodable character.
    fn allows_references(self) -> bool {
        matches!(self, Context::Data | Context::Rcdata)
    }
}

/// Appends `content` made safe for `ctx` and encoded in `encoding` to `out`.
pub(crate) fn push_content(
    content: &str,
    ty: ContentType,
    ctx: Context<'_>,
    encoding: &'static Encoding,
    out: &mut Vec<u8>,
) -> Result<(), EditError> {
    match ty {
        ContentType::Html => push_encoded(content, encoding, ctx.allows_references(), out),
        ContentType::ParsedHtml => Err(EditError::new(EditErrorKind::ParsePassed, "")),
        ContentType::Text if content.contains('\0') => {
            Err(EditError::new(EditErrorKind::NulInText, "U+0000 in inserted text"))
        }
        ContentType::Text => match ctx {
            Context::Data => push_escaped(content, Escapes::Text, encoding, out),
            Context::Rcdata => push_escaped(content, Escapes::Rcdata, encoding, out),
            Context::Rawtext(name) => {
                check_raw_text(content, &[name])?;
                push_encoded(content, encoding, false, out)
            }
            Context::ScriptData => {
                check_raw_text(content, &["script"])?;
                check_script_escapes(content)?;
                push_encoded(content, encoding, false, out)
            }
            Context::Plaintext => push_encoded(content, encoding, false, out),
            Context::CdataSection => {
                if content.contains("]]>") || content.ends_with(']') {
                    return Err(EditError::new(EditErrorKind::TextWouldEndElement, "`]]>` in a CDATA section"));
                }
                push_encoded(content, encoding, true, out)
            }
        },
    }
}

/// The characters escaped as references in one kind of place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Escapes {
    /// Normal text: `&`, `<`, `>`.
    Text,
    /// RCDATA (`title`, `textarea`): `&`, `<`.
    Rcdata,
    /// A double-quoted attribute value: `&`, `"`.
    DoubleQuoted,
    /// A single-quoted attribute value: `&`, `'`.
    SingleQuoted,
}

impl Escapes {
    /// The characters, as the three bytes `memchr3` looks for (repeated
    /// where there are fewer).
    fn bytes(self) -> [u8; 3] {
        match self {
            Escapes::Text => [b'&', b'<', b'>'],
            Escapes::Rcdata => [b'&', b'<', b'<'],
            Escapes::DoubleQuoted => [b'&', b'"', b'"'],
            Escapes::SingleQuoted => [b'&', b'\'', b'\''],
        }
    }
}

/// The character reference for one of the characters an [`Escapes`] holds.
fn reference(byte: u8) -> &'static str {
    match byte {
        b'&' => "&amp;",
        b'<' => "&lt;",
        b'>' => "&gt;",
        b'"' => "&quot;",
        // `'`, the only other byte an `Escapes` holds.
        _ => "&#39;",
    }
}

/// Escapes the characters of `set` as character references.
///
/// The characters to escape are found with `memchr3` and the runs between
/// them copied whole (they are ASCII, so each byte found is a character
/// of its own); content with none of them is encoded as it is. Pushing
/// character by character cost about 580 instructions an `href` value in
/// the `rewrite` workload (callgrind, the three lol-html bench pages).
/// `naive_push_escaped` in the tests is the reference. In UTF-8 (and for
/// ASCII content, which every encoding writes as it is) the pieces go
/// straight to `out`; else the escaped copy is encoded.
pub(crate) fn push_escaped(
    content: &str,
    set: Escapes,
    encoding: &'static Encoding,
    out: &mut Vec<u8>,
) -> Result<(), EditError> {
    let [a, b, c] = set.bytes();
    if encoding == encoding_rs::UTF_8 || content.is_ascii() {
        let mut copied = 0;
        for i in memchr::memchr3_iter(a, b, c, content.as_bytes()) {
            out.extend_from_slice(&content.as_bytes()[copied..i]);
            out.extend_from_slice(reference(content.as_bytes()[i]).as_bytes());
            copied = i + 1;
        }
        out.extend_from_slice(&content.as_bytes()[copied..]);
        return Ok(());
    }
    let mut escaped = String::new();
    let mut copied = 0;
    for i in memchr::memchr3_iter(a, b, c, content.as_bytes()) {
        escaped.push_str(&content[copied..i]);
        escaped.push_str(reference(content.as_bytes()[i]));
        copied = i + 1;
    }
    if copied == 0 {
        return push_encoded(content, encoding, true, out);
    }
    escaped.push_str(&content[copied..]);
    push_encoded(&escaped, encoding, true, out)
}

/// Encodes `content` in the document's encoding; unmappable characters
/// become numeric references when `references` allows, else an error.
pub(crate) fn push_encoded(
    content: &str,
    encoding: &'static Encoding,
    references: bool,
    out: &mut Vec<u8>,
) -> Result<(), EditError> {
    if encoding == encoding_rs::UTF_8 || content.is_ascii() {
        out.extend_from_slice(content.as_bytes());
        return Ok(());
    }
    if encoding == encoding_rs::UTF_16LE || encoding == encoding_rs::UTF_16BE {
        // UTF-16 documents are tokenized as UTF-8 and re-encoded on output.
        out.extend_from_slice(content.as_bytes());
        return Ok(());
    }
    let (bytes, _, unmappable) = encoding.encode(content);
    if unmappable && !references {
        let c = content.chars().find(|c| {
            let mut b = [0; 4];
            encoding.encode(c.encode_utf8(&mut b)).2
        });
        let detail = match c {
            Some(c) => format!("U+{:04X} in {}", c as u32, encoding.name()),
            None => encoding.name().to_string(),
        };
        return Err(EditError::new(EditErrorKind::Unencodable, detail));
    }
    out.extend_from_slice(&bytes);
    Ok(())
}

/// Refuses text containing `</name` (ASCII case-insensitively) followed by
/// whitespace, `/`, `>` or the end of the text, for any of `names`, and text
/// ending in a proper prefix of `</name` (which the following bytes could complete).
fn check_raw_text(content: &str, names: &[&str]) -> Result<(), EditError> {
    let b = content.as_bytes();
    for name in names {
        let mut from = 0;
        while let Some(i) = memchr::memchr(b'<', &b[from..]).map(|i| i + from) {
            from = i + 1;
            let rest = &b[i..];
            let mut pattern = Vec::with_capacity(name.len() + 2);
            pattern.extend_from_slice(b"</");
            pattern.extend_from_slice(name.as_bytes());
            if rest.len() < pattern.len() {
                if pattern[..rest.len()].eq_ignore_ascii_case(rest) {
                    return Err(EditError::new(
                        EditErrorKind::TextWouldEndElement,
                        format!("text ends with the start of `</{name}`"),
                    ));
                }
                continue;
            }
            if rest[..pattern.len()].eq_ignore_ascii_case(&pattern)
                && rest
                    .get(pattern.len())
                    .is_none_or(|&c| matches!(c, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'/' | b'>'))
            {
                return Err(EditError::new(EditErrorKind::TextWouldEndElement, format!("`</{name}` in the text")));
            }
        }
    }
    Ok(())
}

/// In script data, `<!--` and `<script` change how a later `</script>` is
/// read (the script data escaped states), and `-->` leaves them: all refused.
fn check_script_escapes(content: &str) -> Result<(), EditError> {
    let lower = content.to_ascii_lowercase();
    for bad in ["<!--", "<script", "-->"] {
        if lower.contains(bad) {
            return Err(EditError::new(EditErrorKind::TextWouldEndElement, format!("`{bad}` in script text")));
        }
    }
    for prefix in ["<", "<!", "<!-", "<s", "<sc", "<scr", "<scri", "<scrip"] {
        if lower.ends_with(prefix) {
            return Err(EditError::new(EditErrorKind::TextWouldEndElement, "script text ends with `<…`"));
        }
    }
    Ok(())
}

/// How many bytes of output before an insertion point [`join_guard`] needs:
/// the longest character reference name (`&CounterClockwiseContourIntegral`)
/// and `</noscript`.
pub(crate) const JOIN_TAIL: usize = 40;

/// What to do with inserted bytes so that they do not join the bytes
/// already written before them.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Join {
    /// Write them as they are.
    Keep,
    /// Write their first character (`len` bytes) as the numeric character
    /// reference `reference`, then the rest.
    Escape { len: usize, reference: String },
    /// Do not write them: in RAWTEXT, script data or a CDATA section they
    /// would finish something the bytes before them began, and escaping is
    /// impossible there.
    Refuse(EditError),
}

/// Decides how `inserted` may follow `tail` (the last bytes written, up to
/// [`JOIN_TAIL`]) in context `ctx`, so that an insertion never changes how
/// the bytes before it are read. Source text can end in something
/// unfinished right where content is inserted — `a<` or `x</ti` before an
/// end tag, `&no` before an element, `</scr` before `</script>` — and the
/// inserted bytes, checked alone, would complete it: `<` + `b` is a tag,
/// `&no` + `t` is `¬`, `</scr` + `ipt>` ends the script.
///
/// In data and RCDATA, the first character is then written as a numeric
/// character reference (which reads as that character and cannot continue
/// a tag or a reference); in RAWTEXT, script data and CDATA sections the
/// insertion is refused with [`EditErrorKind::TextWouldEndElement`].
pub(crate) fn join_guard(tail: &[u8], inserted: &[u8], ctx: Context<'_>, encoding: &'static Encoding) -> Join {
    let Some(&first) = inserted.first() else { return Join::Keep };
    match ctx {
        Context::Data | Context::Rcdata => {
            let letters = tail.iter().rev().take_while(|b| b.is_ascii_alphabetic()).count();
            let end_tag_open = tail[..tail.len() - letters].ends_with(b"</");
            let alnum = tail.iter().rev().take_while(|b| b.is_ascii_alphanumeric() || **b == b'#').count();
            let joins = if end_tag_open {
                // `</` + letters goes on as an end tag (or, in data, a
                // bogus comment) whatever follows.
                true
            } else if letters == 0 && tail.ends_with(b"<") {
                // A tag opens after `<` with a letter, `!`, `/` or `?` (in
                // RCDATA only `/` can begin the end tag).
                match ctx {
                    Context::Data => first.is_ascii_alphabetic() || matches!(first, b'!' | b'/' | b'?'),
                    _ => first == b'/',
                }
            } else {
                // `&` + name or number characters goes on as a character
                // reference (`&` + `#` begins a numeric one).
                tail[..tail.len() - alnum].ends_with(b"&")
                    && (first.is_ascii_alphanumeric() || matches!(first, b';' | b'#'))
            };
            if !joins {
                Join::Keep
            } else if first.is_ascii() {
                Join::Escape { len: 1, reference: format!("&#{first};") }
            } else {
                match first_char(inserted, encoding) {
                    Some((c, len)) => Join::Escape { len, reference: format!("&#{};", c as u32) },
                    None => Join::Keep,
                }
            }
        }
        Context::Rawtext(name) => refuse_completion(tail, inserted, &[&format!("</{name}")]),
        Context::ScriptData => refuse_completion(tail, inserted, &["</script", "<!--", "<script", "-->"]),
        Context::CdataSection => refuse_completion(tail, inserted, &["]]>"]),
        Context::Plaintext => Join::Keep,
    }
}

/// Refuses `inserted` when `tail` ends with a proper, non-empty prefix of
/// one of `patterns` (ASCII case-insensitive) that `inserted` continues,
/// completing it or leaving it open for the bytes after.
fn refuse_completion(tail: &[u8], inserted: &[u8], patterns: &[&str]) -> Join {
    for pattern in patterns {
        let p = pattern.as_bytes();
        for begun in 1..p.len() {
            let rest = &p[begun..];
            let n = rest.len().min(inserted.len());
            if tail.len() >= begun
                && tail[tail.len() - begun..].eq_ignore_ascii_case(&p[..begun])
                && inserted[..n].eq_ignore_ascii_case(&rest[..n])
            {
                return Join::Refuse(EditError::new(
                    EditErrorKind::TextWouldEndElement,
                    format!("the content would complete `{pattern}` begun by the bytes before it"),
                ));
            }
        }
    }
    Join::Keep
}

/// The first character of `bytes` in `encoding` and its length in bytes
/// (UTF-16 documents are rewritten as UTF-8 and re-encoded on output).
fn first_char(bytes: &[u8], encoding: &'static Encoding) -> Option<(char, usize)> {
    let encoding = if encoding == encoding_rs::UTF_16LE || encoding == encoding_rs::UTF_16BE {
        encoding_rs::UTF_8
    } else {
        encoding
    };
    (1..=bytes.len().min(4)).find_map(|n| {
        let mut decoder = encoding.new_decoder_without_bom_handling();
        let mut s = String::with_capacity(16);
        let _ = decoder.decode_to_string_without_replacement(&bytes[..n], &mut s, false);
        s.chars().next().map(|c| (c, n))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference for [`push_escaped`]: one character at a time.
    fn naive_push_escaped(content: &str, set: &[u8]) -> String {
        let mut escaped = String::new();
        for c in content.chars() {
            match c {
                '&' if set.contains(&b'&') => escaped.push_str("&amp;"),
                '<' if set.contains(&b'<') => escaped.push_str("&lt;"),
                '>' if set.contains(&b'>') => escaped.push_str("&gt;"),
                '"' if set.contains(&b'"') => escaped.push_str("&quot;"),
                '\'' if set.contains(&b'\'') => escaped.push_str("&#39;"),
                c => escaped.push(c),
            }
        }
        escaped
    }

    #[test]
    fn push_escaped_matches_the_naive_reference() {
        let contents = ["", "plain", "&", "a&b<c>d\"e'f", "&&<<", "é&ü<€>😀\"'x", "<start", "end>", "'\"'", "ñ", "a'b"];
        let sets = [Escapes::Text, Escapes::Rcdata, Escapes::DoubleQuoted, Escapes::SingleQuoted];
        for content in contents {
            for set in sets {
                let mut out = Vec::new();
                push_escaped(content, set, encoding_rs::UTF_8, &mut out).unwrap();
                let want = naive_push_escaped(content, &set.bytes());
                assert_eq!(String::from_utf8(out).unwrap(), want, "{content:?} {set:?}");
                // In a legacy encoding: ASCII content written straight, the
                // rest encoded (unmappable characters as numeric references).
                for encoding in [encoding_rs::WINDOWS_1252, encoding_rs::SHIFT_JIS] {
                    let mut out = Vec::new();
                    push_escaped(content, set, encoding, &mut out).unwrap();
                    assert_eq!(out, encoding.encode(&want).0.as_ref(), "{content:?} {set:?} {}", encoding.name());
                }
            }
        }
    }

    fn text(s: &str, ctx: Context<'_>) -> Result<String, EditErrorKind> {
        let mut out = Vec::new();
        push_content(s, ContentType::Text, ctx, encoding_rs::UTF_8, &mut out).map_err(|e| e.kind())?;
        Ok(String::from_utf8(out).unwrap())
    }

    #[test]
    fn data_escapes_amp_lt_gt() {
        assert_eq!(text("a&b<c>d\"'", Context::Data).unwrap(), "a&amp;b&lt;c&gt;d\"'");
    }

    #[test]
    fn rcdata_escapes_amp_lt() {
        assert_eq!(text("</title>&", Context::Rcdata).unwrap(), "&lt;/title>&amp;");
    }

    #[test]
    fn rawtext_refuses_its_end_tag_only() {
        assert_eq!(text("</STYLE >", Context::Rawtext("style")), Err(EditErrorKind::TextWouldEndElement));
        assert_eq!(text("a</sty", Context::Rawtext("style")), Err(EditErrorKind::TextWouldEndElement));
        assert_eq!(text("</styles> & <b>", Context::Rawtext("style")).unwrap(), "</styles> & <b>");
    }

    #[test]
    fn script_refuses_end_and_escapes() {
        for bad in ["</script>", "x</SCRIPT", "<!--", "<script>", "a-->", "x <"] {
            assert_eq!(text(bad, Context::ScriptData), Err(EditErrorKind::TextWouldEndElement), "{bad}");
        }
        assert_eq!(text("if (a < b && c > d) {}", Context::ScriptData).unwrap(), "if (a < b && c > d) {}");
    }

    #[test]
    fn cdata_refuses_its_end() {
        assert_eq!(text("a]]>b", Context::CdataSection), Err(EditErrorKind::TextWouldEndElement));
        assert_eq!(text("a]", Context::CdataSection), Err(EditErrorKind::TextWouldEndElement));
    }

    fn join(tail: &str, inserted: &str, ctx: Context<'_>) -> Join {
        join_guard(tail.as_bytes(), inserted.as_bytes(), ctx, encoding_rs::UTF_8)
    }

    fn escaped(len: usize, reference: &str) -> Join {
        Join::Escape { len, reference: reference.to_owned() }
    }

    #[test]
    fn join_guard_escapes_what_would_finish_a_tag_or_reference_in_data() {
        assert_eq!(join("a<", "b>", Context::Data), escaped(1, "&#98;"));
        assert_eq!(join("a<", "!--", Context::Data), escaped(1, "&#33;"));
        assert_eq!(join("a<", "/p>", Context::Data), escaped(1, "&#47;"));
        assert_eq!(join("a<", "?x", Context::Data), escaped(1, "&#63;"));
        assert_eq!(join("a<", " b", Context::Data), Join::Keep);
        assert_eq!(join("a<", "<b>", Context::Data), Join::Keep);
        assert_eq!(join("x</ti", "tle>", Context::Data), escaped(1, "&#116;"));
        assert_eq!(join("x</ti", " ", Context::Data), escaped(1, "&#32;"));
        assert_eq!(join("&no", "t", Context::Data), escaped(1, "&#116;"));
        assert_eq!(join("&", "#65;", Context::Data), escaped(1, "&#35;"));
        assert_eq!(join("&#x4", "1;", Context::Data), escaped(1, "&#49;"));
        assert_eq!(join("&amp;", "x", Context::Data), Join::Keep);
        assert_eq!(join("a&b", " c", Context::Data), Join::Keep);
        assert_eq!(join("a<", "é", Context::Data), Join::Keep);
        assert_eq!(join("&no", "é", Context::Data), Join::Keep);
        assert_eq!(join("<p>", "<b>", Context::Data), Join::Keep);
        assert_eq!(join("", "<b>", Context::Data), Join::Keep);
        assert_eq!(join("a<", "", Context::Data), Join::Keep);
    }

    #[test]
    fn join_guard_in_rcdata_minds_end_tags_and_references_only() {
        assert_eq!(join("a<", "/title>", Context::Rcdata), escaped(1, "&#47;"));
        assert_eq!(join("a<", "b>", Context::Rcdata), Join::Keep);
        assert_eq!(join("a</tit", "le>", Context::Rcdata), escaped(1, "&#108;"));
        assert_eq!(join("&lt", ";", Context::Rcdata), escaped(1, "&#59;"));
    }

    #[test]
    fn join_guard_escapes_a_non_ascii_first_character_whole() {
        let windows_1252 = join_guard(b"&no", b"\xe9t", Context::Data, encoding_rs::WINDOWS_1252);
        assert_eq!(windows_1252, Join::Keep);
        let utf8 = join_guard(b"x</a", "é>".as_bytes(), Context::Data, encoding_rs::UTF_8);
        assert_eq!(utf8, escaped(2, "&#233;"));
        let big5 = join_guard(b"x</a", "漢>".as_bytes(), Context::Data, encoding_rs::UTF_8);
        assert_eq!(big5, escaped(3, "&#28450;"));
    }

    #[test]
    fn join_guard_refuses_completions_where_escaping_is_impossible() {
        // (bytes before, inserted, context, refused)
        for (tail, inserted, ctx, refused) in [
            ("a</scr", "ipt>", Context::ScriptData, true),
            ("a</SCR", "ipt", Context::ScriptData, true),
            ("a<", "/script", Context::ScriptData, true),
            ("a<!-", "-x", Context::ScriptData, true),
            ("a<scr", "ipt", Context::ScriptData, true),
            ("a--", ">", Context::ScriptData, true),
            ("a</sty", "le ", Context::Rawtext("style"), true),
            ("a<", "/", Context::Rawtext("style"), true),
            ("a]]", ">", Context::CdataSection, true),
            ("a]", "]>", Context::CdataSection, true),
            ("a</scr", "oll", Context::ScriptData, false),
            ("a<", " b", Context::ScriptData, false),
            ("a</sty", "x", Context::Rawtext("style"), false),
            ("a</sty", "le", Context::Rawtext("title"), false),
            ("a]]", "x", Context::CdataSection, false),
            ("a<", "/plaintext>", Context::Plaintext, false),
        ] {
            let got = join(tail, inserted, ctx);
            if refused {
                assert!(matches!(got, Join::Refuse(_)), "{tail:?} + {inserted:?} in {ctx:?}: {got:?}");
            } else {
                assert_eq!(got, Join::Keep, "{tail:?} + {inserted:?} in {ctx:?}");
            }
        }
    }

    #[test]
    fn plaintext_takes_anything() {
        assert_eq!(text("</plaintext><&", Context::Plaintext).unwrap(), "</plaintext><&");
    }

    #[test]
    fn unmappable_characters_become_references_in_text_and_errors_in_script() {
        let mut out = Vec::new();
        push_content("€ 漢", ContentType::Text, Context::Data, encoding_rs::WINDOWS_1252, &mut out).unwrap();
        assert_eq!(out, b"\x80 &#28450;");
        let err = push_content("漢", ContentType::Text, Context::ScriptData, encoding_rs::WINDOWS_1252, &mut out)
            .unwrap_err();
        assert_eq!(err.kind(), EditErrorKind::Unencodable);
    }
}
