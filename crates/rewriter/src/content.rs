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
    /// [`EditErrorKind::TextWouldEndElement`].
    Text,
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

impl Context<'_> {
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
        ContentType::Text => match ctx {
            Context::Data => push_escaped(content, b"&<>", encoding, out),
            Context::Rcdata => push_escaped(content, b"&<", encoding, out),
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

/// Escapes `set` (a subset of `& < > " '`) as character references.
pub(crate) fn push_escaped(
    content: &str,
    set: &[u8],
    encoding: &'static Encoding,
    out: &mut Vec<u8>,
) -> Result<(), EditError> {
    let mut escaped = String::with_capacity(content.len() + 8);
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

#[cfg(test)]
mod tests {
    use super::*;

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
