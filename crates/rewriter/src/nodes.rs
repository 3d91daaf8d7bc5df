//! Handler views of text chunks, comments, the DOCTYPE, processing
//! instructions and the document end.

use encoding_rs::Encoding;
use htrewrite_tokenizer::{CommentKind, Span, TextMode};

use crate::ContentType;
use crate::content::{Context, push_content, push_encoded};
use crate::error::{EditError, EditErrorKind};
use crate::location::{Lines, SourceLocation, locate};

/// Content inserted around (or instead of) a token that is not an element.
#[derive(Debug, Default)]
pub(crate) struct Mutations {
    pub(crate) before: Vec<u8>,
    pub(crate) after: Vec<u8>,
    pub(crate) replacement: Option<Vec<u8>>,
    pub(crate) removed: bool,
    /// A text chunk's new text ([`TextChunk::set_text`]), for `as_str`.
    pub(crate) text: Option<String>,
}

impl Mutations {
    /// Nothing inserted, replaced or removed (checked after every chunk's
    /// handlers: the lengths tested together, one branch fewer).
    #[inline(always)]
    pub(crate) fn is_noop(&self) -> bool {
        (self.before.len() | self.after.len()) == 0 && !self.removed && self.replacement.is_none()
    }

    fn before(&mut self, c: &str, ty: ContentType, ctx: Context<'_>, enc: &'static Encoding) -> Result<(), EditError> {
        push_content(c, ty, ctx, enc, &mut self.before)
    }

    fn after(&mut self, c: &str, ty: ContentType, ctx: Context<'_>, enc: &'static Encoding) -> Result<(), EditError> {
        let mut bytes = Vec::new();
        push_content(c, ty, ctx, enc, &mut bytes)?;
        self.after.splice(0..0, bytes);
        Ok(())
    }

    fn replace(&mut self, c: &str, ty: ContentType, ctx: Context<'_>, enc: &'static Encoding) -> Result<(), EditError> {
        let mut bytes = Vec::new();
        push_content(c, ty, ctx, enc, &mut bytes)?;
        self.replacement = Some(bytes);
        self.removed = true;
        Ok(())
    }

    fn remove(&mut self) {
        self.removed = true;
        self.replacement = None;
    }
}

/// What every node view shares.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Doc<'r> {
    pub(crate) encoding: &'static Encoding,
    pub(crate) lines: Option<&'r Lines>,
}

/// A chunk of text, as handlers see it.
///
/// Text arrives in chunks: a text node may be cut wherever input chunks
/// end, and a final chunk (possibly empty) has
/// [`last_in_text_node`](TextChunk::last_in_text_node) set. With
/// [`Settings::whole_text_nodes`](crate::Settings::whole_text_nodes) each
/// node comes in one chunk.
///
/// Mutations: `before` appends to earlier `before` content, `after`
/// prepends to earlier `after` content (each lands right after the chunk),
/// `replace` and `remove` drop the chunk's bytes, `set_text` changes its
/// text (what later handlers read, too) and keeps it. Inserted
/// [`ContentType::Text`] is escaped for the chunk's own context (see
/// [`ContentType`]).
///
/// # Example
/// ```
/// use htrewrite::{ContentType, Settings, rewrite_str};
/// let settings = Settings::new().text("p", |t| {
///     if t.as_str().contains("cat") {
///         t.replace(&t.as_str().replace("cat", "dog & co"), ContentType::Text)?;
///     }
///     Ok(())
/// });
/// assert_eq!(rewrite_str("<p>a cat</p><i>cat</i>", settings)?, "<p>a dog &amp; co</p><i>cat</i>");
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
#[derive(Debug)]
pub struct TextChunk<'r> {
    pub(crate) text: &'r str,
    pub(crate) raw: &'r [u8],
    pub(crate) mode: TextMode,
    pub(crate) last: bool,
    pub(crate) span: Span,
    pub(crate) ctx: Context<'r>,
    pub(crate) doc: Doc<'r>,
    pub(crate) m: &'r mut Mutations,
}

impl TextChunk<'_> {
    /// The text, decoded for its mode (character references in data and
    /// RCDATA, newlines normalized, NUL rules of the mode); after
    /// [`TextChunk::set_text`], the text set.
    pub fn as_str(&self) -> &str {
        self.m.text.as_deref().unwrap_or(self.text)
    }
    /// The exact input bytes of the chunk.
    pub fn raw(&self) -> &[u8] {
        self.raw
    }
    /// The tokenizer state the text was read in.
    pub fn text_mode(&self) -> TextMode {
        self.mode
    }
    /// Whether this is the last chunk of its text node.
    pub fn last_in_text_node(&self) -> bool {
        self.last
    }
    /// Where the chunk is.
    pub fn source_location(&self) -> SourceLocation {
        locate(self.doc.lines, self.span.start..self.span.end)
    }
    /// Inserts content before the chunk.
    ///
    /// # Errors
    /// [`EditError`] when text cannot be made safe in this context.
    pub fn before(&mut self, content: &str, ty: ContentType) -> Result<(), EditError> {
        self.m.before(content, ty, self.ctx, self.doc.encoding)
    }
    /// Inserts content after the chunk.
    ///
    /// # Errors
    /// As [`TextChunk::before`].
    pub fn after(&mut self, content: &str, ty: ContentType) -> Result<(), EditError> {
        self.m.after(content, ty, self.ctx, self.doc.encoding)
    }
    /// Replaces the chunk.
    ///
    /// # Errors
    /// As [`TextChunk::before`].
    pub fn replace(&mut self, content: &str, ty: ContentType) -> Result<(), EditError> {
        self.m.replace(content, ty, self.ctx, self.doc.encoding)
    }
    /// Sets the chunk's text: its bytes become `text`, escaped for the
    /// chunk's context as [`ContentType::Text`] is (`a<b` is written
    /// `a&lt;b` in data), and [`TextChunk::as_str`] returns `text` from now
    /// on, in this handler and the ones after it. The chunk is not removed
    /// ([`TextChunk::removed`] stays `false`); content inserted
    /// [`before`](TextChunk::before) and [`after`](TextChunk::after) it
    /// stays. Setting it again replaces the text set before. Only this
    /// chunk changes: with text in chunks, the other chunks of the node are
    /// as they are (use [`Settings::whole_text_nodes`](crate::Settings::whole_text_nodes)
    /// to set a node's whole text). After [`remove`](TextChunk::remove) or
    /// [`replace`](TextChunk::replace) only `as_str` changes: the chunk stays
    /// removed or replaced.
    ///
    /// This is lol_html's `TextChunk::set_str`, except that the text is
    /// plain text, escaped here, not markup the caller escapes: `as_str`
    /// gives decoded text (`a&b`, not `a&amp;b`), and what is set is text
    /// of the same kind. For markup, use
    /// [`replace`](TextChunk::replace) with [`ContentType::Html`].
    ///
    /// # Example
    /// ```
    /// use htrewrite::{ContentType, Settings, rewrite_str};
    /// let settings = Settings::new()
    ///     .whole_text_nodes(1024)
    ///     .text("h1", |t| {
    ///         let title = t.as_str().replace("Cats", "Cats & dogs");
    ///         t.set_text(&title)?;
    ///         assert!(!t.removed());
    ///         t.after("!", ContentType::Text)?;
    ///         Ok(())
    ///     })
    ///     .doc_text(|t| {
    ///         // Later handlers read the text set.
    ///         if t.as_str().contains("dogs") {
    ///             t.before("> ", ContentType::Text)?;
    ///         }
    ///         Ok(())
    ///     });
    /// let out = rewrite_str("<h1>All about Cats</h1><p>Cats</p>", settings)?;
    /// assert_eq!(out, "<h1>&gt; All about Cats &amp; dogs!</h1><p>Cats</p>");
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    ///
    /// # Errors
    /// As [`TextChunk::before`] with [`ContentType::Text`]: text that
    /// cannot be escaped where the chunk is (`</script` in script data,
    /// `</style` in RAWTEXT), or characters the document's encoding lacks
    /// where a character reference is impossible. The chunk is then
    /// unchanged.
    pub fn set_text(&mut self, text: &str) -> Result<(), EditError> {
        let mut bytes = Vec::new();
        push_content(text, ContentType::Text, self.ctx, self.doc.encoding, &mut bytes)?;
        if !self.m.removed {
            self.m.replacement = Some(bytes);
        }
        self.m.text = Some(text.to_string());
        Ok(())
    }
    /// Removes the chunk.
    pub fn remove(&mut self) {
        self.m.remove()
    }
    /// Whether the chunk was removed or replaced (not whether its text was
    /// set: see [`TextChunk::set_text`]).
    pub fn removed(&self) -> bool {
        self.m.removed
    }
}

/// A comment, as handlers see it (bogus comments included: `<!x>`, `</3>`, `<?x>`
/// where processing instructions are not recognised).
///
/// # Example
/// ```
/// use htrewrite::{Settings, rewrite_str};
/// let settings = Settings::new().doc_comments(|c| {
///     if c.text().trim() == "secret" { c.remove() } else { c.set_text("kept")? }
///     Ok(())
/// });
/// assert_eq!(rewrite_str("a<!-- secret -->b<!--x-->", settings)?, "ab<!--kept-->");
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
#[derive(Debug)]
pub struct Comment<'r> {
    pub(crate) data: &'r str,
    pub(crate) kind: CommentKind,
    pub(crate) raw: &'r [u8],
    pub(crate) span: Span,
    pub(crate) doc: Doc<'r>,
    pub(crate) m: &'r mut Mutations,
}

impl Comment<'_> {
    /// The comment's data, decoded (what the DOM's `Comment.data` holds).
    pub fn text(&self) -> &str {
        self.data
    }
    /// Which syntax made it.
    pub fn kind(&self) -> CommentKind {
        self.kind
    }
    /// The exact input bytes.
    pub fn raw(&self) -> &[u8] {
        self.raw
    }
    /// Where the comment is.
    pub fn source_location(&self) -> SourceLocation {
        locate(self.doc.lines, self.span.start..self.span.end)
    }
    /// Replaces the comment with `<!--data-->`.
    ///
    /// # Errors
    /// [`EditErrorKind::InvalidCommentData`] when `data` would end the comment
    /// early (`-->`, `--!>`, a leading `>` or `->`, a trailing `<!-`);
    /// [`EditErrorKind::Unencodable`] for characters the document's encoding lacks.
    pub fn set_text(&mut self, data: &str) -> Result<(), EditError> {
        if data.contains("-->")
            || data.contains("--!>")
            || data.starts_with('>')
            || data.starts_with("->")
            || data.ends_with("<!-")
        {
            return Err(EditError::new(EditErrorKind::InvalidCommentData, data));
        }
        let mut bytes = b"<!--".to_vec();
        push_encoded(data, self.doc.encoding, false, &mut bytes)?;
        bytes.extend_from_slice(b"-->");
        self.m.replacement = Some(bytes);
        self.m.removed = true;
        Ok(())
    }
    /// Inserts content before the comment.
    ///
    /// # Errors
    /// As [`TextChunk::before`].
    pub fn before(&mut self, content: &str, ty: ContentType) -> Result<(), EditError> {
        self.m.before(content, ty, Context::Data, self.doc.encoding)
    }
    /// Inserts content after the comment.
    ///
    /// # Errors
    /// As [`TextChunk::before`].
    pub fn after(&mut self, content: &str, ty: ContentType) -> Result<(), EditError> {
        self.m.after(content, ty, Context::Data, self.doc.encoding)
    }
    /// Replaces the comment.
    ///
    /// # Errors
    /// As [`TextChunk::before`].
    pub fn replace(&mut self, content: &str, ty: ContentType) -> Result<(), EditError> {
        self.m.replace(content, ty, Context::Data, self.doc.encoding)
    }
    /// Removes the comment.
    pub fn remove(&mut self) {
        self.m.remove()
    }
    /// Whether the comment was removed or replaced.
    pub fn removed(&self) -> bool {
        self.m.removed
    }
}

/// The DOCTYPE, as handlers see it.
///
/// # Example
/// ```
/// use htrewrite::{ContentType, Settings, rewrite_str};
/// let settings = Settings::new().doctype(|d| {
///     assert_eq!(d.name(), Some("html"));
///     d.replace("<!DOCTYPE html>", ContentType::Html)?;
///     Ok(())
/// });
/// assert_eq!(rewrite_str("<!doctype HTML><p>", settings)?, "<!DOCTYPE html><p>");
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
#[derive(Debug)]
pub struct Doctype<'r> {
    pub(crate) fields: &'r htrewrite_tokenizer::Doctype,
    pub(crate) raw: &'r [u8],
    pub(crate) span: Span,
    pub(crate) doc: Doc<'r>,
    pub(crate) m: &'r mut Mutations,
}

impl Doctype<'_> {
    /// The name, lowercased (`None` when missing).
    pub fn name(&self) -> Option<&str> {
        self.fields.name.as_deref()
    }
    /// The public identifier.
    pub fn public_id(&self) -> Option<&str> {
        self.fields.public_id.as_deref()
    }
    /// The system identifier.
    pub fn system_id(&self) -> Option<&str> {
        self.fields.system_id.as_deref()
    }
    /// The tokenizer's force-quirks flag.
    pub fn force_quirks(&self) -> bool {
        self.fields.force_quirks
    }
    /// The exact input bytes.
    pub fn raw(&self) -> &[u8] {
        self.raw
    }
    /// Where the DOCTYPE is.
    pub fn source_location(&self) -> SourceLocation {
        locate(self.doc.lines, self.span.start..self.span.end)
    }
    /// Replaces the DOCTYPE (the tree is still built from the original one).
    ///
    /// # Errors
    /// As [`TextChunk::before`].
    pub fn replace(&mut self, content: &str, ty: ContentType) -> Result<(), EditError> {
        self.m.replace(content, ty, Context::Data, self.doc.encoding)
    }
    /// Removes the DOCTYPE.
    pub fn remove(&mut self) {
        self.m.remove()
    }
    /// Whether the DOCTYPE was removed or replaced.
    ///
    /// # Example
    /// ```
    /// use htrewrite::{Settings, rewrite_str};
    /// let settings = Settings::new().doctype(|d| {
    ///     d.remove();
    ///     assert!(d.removed());
    ///     Ok(())
    /// });
    /// assert_eq!(rewrite_str("<!DOCTYPE html><p>", settings)?, "<p>");
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    pub fn removed(&self) -> bool {
        self.m.removed
    }
}

/// A processing instruction (`<?target data?>`, the 2026 syntax), as handlers see it.
///
/// # Example
/// ```
/// use htrewrite::{Settings, rewrite_str};
/// let mut seen = Vec::new();
/// let settings = Settings::new().processing_instructions(|pi| {
///     seen.push((pi.target().to_string(), pi.data().to_string()));
///     pi.remove();
///     Ok(())
/// });
/// assert_eq!(rewrite_str("a<?banner top?>b", settings)?, "ab");
/// assert_eq!(seen[0].0, "banner");
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
#[derive(Debug)]
pub struct ProcessingInstruction<'r> {
    pub(crate) target: &'r str,
    pub(crate) data: &'r str,
    pub(crate) raw: &'r [u8],
    pub(crate) span: Span,
    pub(crate) doc: Doc<'r>,
    pub(crate) m: &'r mut Mutations,
}

impl ProcessingInstruction<'_> {
    /// The target.
    pub fn target(&self) -> &str {
        self.target
    }
    /// The data.
    pub fn data(&self) -> &str {
        self.data
    }
    /// The exact input bytes.
    pub fn raw(&self) -> &[u8] {
        self.raw
    }
    /// Where it is.
    pub fn source_location(&self) -> SourceLocation {
        locate(self.doc.lines, self.span.start..self.span.end)
    }
    /// Inserts content before it.
    ///
    /// # Errors
    /// As [`TextChunk::before`].
    pub fn before(&mut self, content: &str, ty: ContentType) -> Result<(), EditError> {
        self.m.before(content, ty, Context::Data, self.doc.encoding)
    }
    /// Inserts content after it.
    ///
    /// # Errors
    /// As [`TextChunk::before`].
    pub fn after(&mut self, content: &str, ty: ContentType) -> Result<(), EditError> {
        self.m.after(content, ty, Context::Data, self.doc.encoding)
    }
    /// Replaces it.
    ///
    /// # Errors
    /// As [`TextChunk::before`].
    pub fn replace(&mut self, content: &str, ty: ContentType) -> Result<(), EditError> {
        self.m.replace(content, ty, Context::Data, self.doc.encoding)
    }
    /// Removes it.
    pub fn remove(&mut self) {
        self.m.remove()
    }
}

/// The end of the document, where handlers can append content.
///
/// # Example
/// ```
/// use htrewrite::{ContentType, Settings, rewrite_str};
/// let settings = Settings::new().end(|end| {
///     end.append("<!-- served by htrewrite -->", ContentType::Html)?;
///     Ok(())
/// });
/// assert_eq!(rewrite_str("<p>x", settings)?, "<p>x<!-- served by htrewrite -->");
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
#[derive(Debug)]
pub struct DocumentEnd<'r> {
    pub(crate) encoding: &'static Encoding,
    pub(crate) ctx: Context<'r>,
    pub(crate) out: &'r mut Vec<u8>,
}

impl DocumentEnd<'_> {
    /// Appends content at the very end of the output. Text is escaped for
    /// the context the document ends in (e.g. inside an unclosed `<script>`).
    ///
    /// # Errors
    /// As [`TextChunk::before`].
    pub fn append(&mut self, content: &str, ty: ContentType) -> Result<(), EditError> {
        push_content(content, ty, self.ctx, self.encoding, self.out)
    }
}
