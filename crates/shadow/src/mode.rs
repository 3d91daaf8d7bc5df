//! Insertion modes, the tree construction dispatcher, and the modes around
//! the body: initial, before html, before head, in head, in head noscript,
//! after head, text, after body, in frameset, after frameset, after after
//! body, after after frameset.

use htrewrite_tokenizer::TextMode;

use crate::builder::Builder;
use crate::doctype;
use crate::tags::{self, cat};
use crate::token::Tok;
use crate::{CloseCause, Event, EventSink, Namespace, NodeId, Origin, Position};

/// The [insertion mode](https://html.spec.whatwg.org/multipage/parsing.html#insertion-mode)
/// of tree construction (the current Standard: no "in select" modes since 2025).
///
/// # Example
/// ```
/// use htrewrite_shadow::{InsertionMode, Shadow, ShadowOptions};
/// let shadow = Shadow::new(ShadowOptions::default());
/// assert_eq!(shadow.insertion_mode(), InsertionMode::Initial);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InsertionMode {
    /// ["initial"](https://html.spec.whatwg.org/multipage/parsing.html#the-initial-insertion-mode)
    Initial,
    /// ["before html"](https://html.spec.whatwg.org/multipage/parsing.html#the-before-html-insertion-mode)
    BeforeHtml,
    /// ["before head"](https://html.spec.whatwg.org/multipage/parsing.html#the-before-head-insertion-mode)
    BeforeHead,
    /// ["in head"](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-inhead)
    InHead,
    /// ["in head noscript"](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-inheadnoscript)
    InHeadNoscript,
    /// ["after head"](https://html.spec.whatwg.org/multipage/parsing.html#the-after-head-insertion-mode)
    AfterHead,
    /// ["in body"](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-inbody)
    InBody,
    /// ["text"](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-incdata)
    Text,
    /// ["in table"](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-intable)
    InTable,
    /// ["in table text"](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-intabletext)
    InTableText,
    /// ["in caption"](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-incaption)
    InCaption,
    /// ["in column group"](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-incolgroup)
    InColumnGroup,
    /// ["in table body"](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-intbody)
    InTableBody,
    /// ["in row"](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-intr)
    InRow,
    /// ["in cell"](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-intd)
    InCell,
    /// ["in template"](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-intemplate)
    InTemplate,
    /// ["after body"](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-afterbody)
    AfterBody,
    /// ["in frameset"](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-inframeset)
    InFrameset,
    /// ["after frameset"](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-afterframeset)
    AfterFrameset,
    /// ["after after body"](https://html.spec.whatwg.org/multipage/parsing.html#the-after-after-body-insertion-mode)
    AfterAfterBody,
    /// ["after after frameset"](https://html.spec.whatwg.org/multipage/parsing.html#the-after-after-frameset-insertion-mode)
    AfterAfterFrameset,
}

/// How an insertion mode's rules treat character tokens, grouped as every
/// text path needs them: the shadow's own dispatch of classified text, its
/// test of whether text can be classified, and the rewriter's placement of
/// the elements text opens or closes read this one table.
///
/// # Example
/// ```
/// use htrewrite_shadow::{InsertionMode, TextRules};
/// assert_eq!(InsertionMode::InCell.text_rules(), TextRules::InBody);
/// assert_eq!(InsertionMode::InRow.text_rules(), TextRules::Table);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextRules {
    /// Characters are inserted by the "in body" rules (reconstruct the
    /// active formatting elements, insert; U+0000 dropped): "in body", "in
    /// caption", "in cell", "in template".
    InBody,
    /// "After body" and "after after body": whitespace by the "in body"
    /// rules; any other character switches to "in body" and is reprocessed.
    AfterBody,
    /// Whitespace is ignored; any other character (U+0000 too) is
    /// "anything else", which opens elements: "initial", "before html",
    /// "before head".
    WhitespaceIgnored,
    /// Whitespace is inserted; any other character (U+0000 too) is
    /// "anything else", which closes elements: "in head", "in head
    /// noscript", "after head", "in column group".
    WhitespaceInserted,
    /// The table modes: characters go through "in table text" (U+0000
    /// ignored, the rest inserted, or foster-parented when not all
    /// whitespace): "in table", "in table text", "in table body", "in row".
    Table,
    /// Whitespace is inserted, any other character ignored: "in frameset",
    /// "after frameset".
    Frameset,
    /// Whitespace is processed by the "in body" rules, any other character
    /// ignored: "after after frameset".
    AfterAfterFrameset,
    /// "text": every character is inserted.
    Text,
}

impl InsertionMode {
    /// Which [`TextRules`] this mode's rules for character tokens follow.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{InsertionMode, TextRules};
    /// assert_eq!(InsertionMode::AfterBody.text_rules(), TextRules::AfterBody);
    /// ```
    pub fn text_rules(self) -> TextRules {
        use InsertionMode as M;
        match self {
            M::InBody | M::InCaption | M::InCell | M::InTemplate => TextRules::InBody,
            M::AfterBody | M::AfterAfterBody => TextRules::AfterBody,
            M::Initial | M::BeforeHtml | M::BeforeHead => TextRules::WhitespaceIgnored,
            M::InHead | M::InHeadNoscript | M::AfterHead | M::InColumnGroup => TextRules::WhitespaceInserted,
            M::InTable | M::InTableText | M::InTableBody | M::InRow => TextRules::Table,
            M::InFrameset | M::AfterFrameset => TextRules::Frameset,
            M::AfterAfterFrameset => TextRules::AfterAfterFrameset,
            M::Text => TextRules::Text,
        }
    }
}

impl Builder {
    /// The [tree construction dispatcher](https://html.spec.whatwg.org/multipage/parsing.html#tree-construction-dispatcher)
    /// for a non-text token.
    pub(crate) fn dispatch<S: EventSink + ?Sized>(&mut self, tok: Tok<'_>, s: &mut S) {
        if self.stopped {
            return;
        }
        if !self.started {
            self.start(s);
        }
        self.skip_newline = false;
        if self.use_html_rules(tok) {
            self.by_mode(self.mode, tok, s);
        } else {
            self.foreign(tok, s);
        }
    }

    /// The dispatcher for a run of character tokens.
    pub(crate) fn dispatch_text<S: EventSink + ?Sized>(&mut self, mut text: &str, s: &mut S) {
        if self.stopped {
            return;
        }
        if !self.started {
            self.start(s);
        }
        if std::mem::take(&mut self.skip_newline) {
            text = text.strip_prefix('\n').unwrap_or(text);
        }
        let mut guard = 0;
        while !text.is_empty() {
            let n = if self.use_html_rules_for_characters() {
                self.text_by_mode(self.mode, text, s)
            } else {
                self.foreign_text(text, s)
            };
            text = &text[n..];
            guard = if n == 0 { guard + 1 } else { 0 };
            debug_assert!(guard < 16, "text processing makes no progress in {:?}", self.mode);
            if guard >= 16 {
                return;
            }
        }
    }

    /// Whether the next run of character tokens, `non_ws` telling whether it
    /// has characters other than whitespace (asked only where it matters),
    /// is processed the same without its characters (by
    /// [`Builder::dispatch_classified_text`]), for a sink that does not read
    /// them: the dispatcher sends it to an insertion mode (not to foreign
    /// content, no newline to drop after `<pre>`) that inserts it whole
    /// ("text"; "in body" and the modes that process characters as it does,
    /// when `may_have_nul` says it has no U+0000 to drop), or whitespace
    /// that the mode inserts whole or ignores. The table modes keep the
    /// characters for later; they are left out.
    pub(crate) fn reads_text_as_classified(
        &self,
        non_ws: impl FnOnce() -> bool,
        may_have_nul: impl FnOnce() -> bool,
    ) -> bool {
        if !self.started || self.stopped || self.skip_newline || !self.use_html_rules_for_characters() {
            return false;
        }
        match self.mode.text_rules() {
            TextRules::Text => true,
            TextRules::InBody => !may_have_nul(),
            TextRules::WhitespaceIgnored | TextRules::WhitespaceInserted | TextRules::AfterBody => !non_ws(),
            TextRules::Table | TextRules::Frameset | TextRules::AfterAfterFrameset => false,
        }
    }

    /// Whether a text token of bytes `raw` (without U+0000 when `nul_free`;
    /// followed by markup when `markup_next`,
    /// `htrewrite_tokenizer::Token::ends_before_markup`) would do nothing
    /// but insert or ignore its characters, for a sink that takes no text
    /// events: in "text" (characters inserted); by "in body"'s rules when
    /// those change nothing — no U+0000 to drop, frameset-ok already "not
    /// ok", no formatting element to reopen
    /// ([`Builder::reconstruction_reopens`]); whitespace alone where the
    /// mode inserts or ignores it ("initial" … "after head", "in column
    /// group"); whitespace in a table that markup follows
    /// ([`Builder::table_whitespace_is_inert`]); by the rules for foreign
    /// content (SVG and MathML, pretty-printed), no U+0000 to replace and
    /// frameset-ok already "not ok": each character inserted and nothing
    /// else. Then processing it would change no state and make no event.
    #[inline(always)]
    pub(crate) fn text_is_inert(&self, raw: &[u8], nul_free: bool, markup_next: bool) -> bool {
        if !self.started || self.stopped || self.skip_newline {
            return false;
        }
        if !self.use_html_rules_for_characters() {
            return nul_free && !self.frameset_ok;
        }
        match self.mode.text_rules() {
            TextRules::Text => true,
            TextRules::InBody => nul_free && !self.frameset_ok && !self.reconstruction_reopens(),
            TextRules::WhitespaceIgnored | TextRules::WhitespaceInserted => tags::is_whitespace_text(raw),
            TextRules::Table => self.table_whitespace_is_inert(raw, markup_next),
            TextRules::AfterBody | TextRules::Frameset | TextRules::AfterAfterFrameset => false,
        }
    }

    /// Whether a comment token would only be inserted, changing no state:
    /// every insertion mode's rule for a comment, and the rules for foreign
    /// content's, insert it (at the appropriate place, or as the last child
    /// of the document or the `html` element) and do nothing else, except
    /// "in table text" (its "anything else" first inserts the pending
    /// characters and leaves the mode) and "text" (which has no rule for a
    /// comment); and the dispatcher changes nothing when it has started
    /// (a fragment's set-up) and is not to skip a newline after `<pre>`.
    #[inline(always)]
    pub(crate) fn comment_is_inert(&self) -> bool {
        self.started
            && !self.stopped
            && !self.skip_newline
            && !matches!(self.mode, InsertionMode::InTableText | InsertionMode::Text)
    }

    /// Whether the token goes to the insertion mode (not to the rules for
    /// foreign content); a character token's test is
    /// [`Builder::use_html_rules_for_characters`].
    #[inline]
    fn use_html_rules(&self, tok: Tok<'_>) -> bool {
        let Some((ns, cats)) = self.adjusted_current_kind() else { return true };
        if ns == Namespace::Html {
            return true;
        }
        let mtip = cats & cat::MATHML_TEXT_INTEGRATION_POINT != 0;
        let hip = cats & cat::HTML_INTEGRATION_POINT != 0;
        match tok {
            Tok::Start(t) => {
                (mtip && t.name != "mglyph" && t.name != "malignmark")
                    || (ns == Namespace::MathMl
                        && t.name == "svg"
                        && self.adjusted_current_node().is_some_and(|(_, name, _)| name == "annotation-xml"))
                    || hip
            }
            Tok::Eof => true,
            _ => false,
        }
    }

    /// [`Builder::use_html_rules`] for a character token: the adjusted
    /// current node is none, an HTML element, a MathML text integration
    /// point or an HTML integration point. Always in line: every text token
    /// asks ([`Builder::text_is_inert`]), and the call it was cost about 14
    /// instructions a text token.
    #[inline(always)]
    fn use_html_rules_for_characters(&self) -> bool {
        match self.adjusted_current_kind() {
            None | Some((Namespace::Html, _)) => true,
            Some((_, cats)) => cats & (cat::MATHML_TEXT_INTEGRATION_POINT | cat::HTML_INTEGRATION_POINT) != 0,
        }
    }

    /// Processes a token by the rules of insertion mode `mode`.
    pub(crate) fn by_mode<S: EventSink + ?Sized>(&mut self, mode: InsertionMode, tok: Tok<'_>, s: &mut S) {
        use InsertionMode as M;
        match mode {
            M::Initial => self.initial(tok, s),
            M::BeforeHtml => self.before_html(tok, s),
            M::BeforeHead => self.before_head(tok, s),
            M::InHead => self.in_head(tok, s),
            M::InHeadNoscript => self.in_head_noscript(tok, s),
            M::AfterHead => self.after_head(tok, s),
            M::InBody => self.in_body(tok, s),
            M::Text => self.text(tok, s),
            M::InTable => self.in_table(tok, s),
            M::InTableText => self.in_table_text(tok, s),
            M::InCaption => self.in_caption(tok, s),
            M::InColumnGroup => self.in_column_group(tok, s),
            M::InTableBody => self.in_table_body(tok, s),
            M::InRow => self.in_row(tok, s),
            M::InCell => self.in_cell(tok, s),
            M::InTemplate => self.in_template(tok, s),
            M::AfterBody => self.after_body(tok, s),
            M::InFrameset => self.in_frameset(tok, s),
            M::AfterFrameset => self.after_frameset(tok, s),
            M::AfterAfterBody => self.after_after_body(tok, s),
            M::AfterAfterFrameset => self.after_after_frameset(tok, s),
        }
    }

    /// Processes characters by the rules of `mode`; returns how many bytes
    /// were consumed (0 after a mode switch that reprocesses them).
    pub(crate) fn text_by_mode<S: EventSink + ?Sized>(&mut self, mode: InsertionMode, text: &str, s: &mut S) -> usize {
        use InsertionMode as M;
        // The modes of the body take all characters alike: no whitespace prefix to measure.
        if matches!(mode, M::InBody | M::InCaption | M::InCell | M::InTemplate) {
            self.body_text(s, text);
            return text.len();
        }
        let ws = tags::ws_prefix_len(text);
        let rest = ws < text.len();
        match mode {
            M::Initial => {
                if rest {
                    self.quirks = crate::QuirksMode::Quirks;
                    self.mode = M::BeforeHtml;
                }
                ws
            }
            M::BeforeHtml => {
                if rest {
                    self.insert_html_root(s, None);
                    self.mode = M::BeforeHead;
                }
                ws
            }
            M::BeforeHead => {
                if rest {
                    self.insert_head(s, None);
                    self.mode = M::InHead;
                }
                ws
            }
            M::InHead | M::InHeadNoscript | M::AfterHead => {
                self.insert_text(s, &text[..ws]);
                if rest {
                    let c = self.implied();
                    match mode {
                        M::InHead => {
                            self.pop(s, c);
                            self.mode = M::AfterHead;
                        }
                        M::InHeadNoscript => {
                            self.pop(s, c);
                            self.mode = M::InHead;
                        }
                        _ => {
                            self.insert_body(s, None);
                            self.mode = M::InBody;
                        }
                    }
                }
                ws
            }
            M::InBody | M::InCaption | M::InCell | M::InTemplate => unreachable!("taken before the whitespace prefix"),
            M::Text => {
                self.insert_text(s, text);
                text.len()
            }
            M::InTable | M::InTableBody | M::InRow => self.table_text_start(text, s),
            M::InTableText => {
                self.table_text(text, s);
                text.len()
            }
            M::InColumnGroup => {
                if rest && !self.current_is("colgroup") {
                    // spec: "Anything else": if the current node is not a colgroup element, ignore
                    // the token. Character by character: the whitespace between the others is
                    // still inserted (a `<template>`'s `<col>`: the mode stays "in column group").
                    // (no Ignored event for characters: text events have no spans)
                    let kept: String = text.chars().filter(|&c| tags::is_ws(c)).collect();
                    self.insert_text(s, &kept);
                    return text.len();
                }
                self.insert_text(s, &text[..ws]);
                if rest {
                    let c = self.implied();
                    self.pop(s, c);
                    self.mode = M::InTable;
                }
                ws
            }
            M::AfterBody | M::AfterAfterBody => {
                self.body_text(s, &text[..ws]);
                if rest {
                    self.mode = M::InBody;
                }
                ws
            }
            M::InFrameset | M::AfterFrameset | M::AfterAfterFrameset => {
                let kept: String = text.chars().filter(|&c| tags::is_ws(c)).collect();
                if kept.len() < text.len() {
                    // (no Ignored event for characters: text events have no spans)
                }
                if mode == M::AfterAfterFrameset {
                    self.body_text(s, &kept);
                } else {
                    self.insert_text(s, &kept);
                }
                text.len()
            }
        }
    }

    // ----- helpers for the implied html/head/body -----

    pub(crate) fn insert_html_root<S: EventSink + ?Sized>(&mut self, s: &mut S, tag: Option<&crate::TagToken>) {
        let (attrs, origin): (&[crate::ShadowAttr], Origin) = match tag {
            Some(t) => (&t.attrs, Origin::StartTag { span: t.span }),
            None => (&[], Origin::Implied),
        };
        self.html_attrs = attrs.iter().map(|a| a.name.clone()).collect();
        self.insert_at(s, "html", Namespace::Html, attrs, origin, Position::Append { parent: NodeId::DOCUMENT }, false);
    }

    pub(crate) fn insert_head<S: EventSink + ?Sized>(&mut self, s: &mut S, tag: Option<&crate::TagToken>) {
        match tag {
            Some(t) => self.insert_html_element(s, t),
            None => self.insert_implied(s, "head"),
        };
        self.head = self.stack.current().cloned();
    }

    pub(crate) fn insert_body<S: EventSink + ?Sized>(&mut self, s: &mut S, tag: Option<&crate::TagToken>) {
        let id = match tag {
            Some(t) => self.insert_html_element(s, t),
            None => self.insert_implied(s, "body"),
        };
        self.body = Some((id, tag.map(|t| t.attrs.iter().map(|a| a.name.clone()).collect()).unwrap_or_default()));
    }

    // ----- the modes -----

    fn initial<S: EventSink + ?Sized>(&mut self, tok: Tok<'_>, s: &mut S) {
        match tok {
            Tok::Comment(c) => self.insert_comment(s, &c, Some(Position::Append { parent: NodeId::DOCUMENT })),
            Tok::Doctype(d) => {
                let quirks = doctype::quirks_mode(d);
                s.event(Event::Doctype {
                    name: d.name.as_deref(),
                    public_id: d.public_id.as_deref(),
                    system_id: d.system_id.as_deref(),
                    quirks,
                });
                self.quirks = quirks;
                self.mode = InsertionMode::BeforeHtml;
            }
            _ => {
                self.quirks = crate::QuirksMode::Quirks;
                self.mode = InsertionMode::BeforeHtml;
                self.by_mode(self.mode, tok, s);
            }
        }
    }

    fn before_html<S: EventSink + ?Sized>(&mut self, tok: Tok<'_>, s: &mut S) {
        match tok {
            Tok::Doctype(_) => self.ignore(s, "doctype after the start"),
            Tok::Comment(c) => self.insert_comment(s, &c, Some(Position::Append { parent: NodeId::DOCUMENT })),
            Tok::Start(t) if t.name == "html" => {
                self.insert_html_root(s, Some(t));
                self.mode = InsertionMode::BeforeHead;
            }
            Tok::End(t) if !matches!(&*t.name, "head" | "body" | "html" | "br") => {
                self.ignore(s, "end tag before html")
            }
            _ => {
                self.insert_html_root(s, None);
                self.mode = InsertionMode::BeforeHead;
                self.by_mode(self.mode, tok, s);
            }
        }
    }

    fn before_head<S: EventSink + ?Sized>(&mut self, tok: Tok<'_>, s: &mut S) {
        match tok {
            Tok::Comment(c) => self.insert_comment(s, &c, None),
            Tok::Doctype(_) => self.ignore(s, "doctype after the start"),
            Tok::Start(t) if t.name == "html" => self.in_body(tok, s),
            Tok::Start(t) if t.name == "head" => {
                self.insert_head(s, Some(t));
                self.mode = InsertionMode::InHead;
            }
            Tok::End(t) if !matches!(&*t.name, "head" | "body" | "html" | "br") => {
                self.ignore(s, "end tag before head")
            }
            _ => {
                self.insert_head(s, None);
                self.mode = InsertionMode::InHead;
                self.by_mode(self.mode, tok, s);
            }
        }
    }

    pub(crate) fn in_head<S: EventSink + ?Sized>(&mut self, tok: Tok<'_>, s: &mut S) {
        match tok {
            Tok::Comment(c) => self.insert_comment(s, &c, None),
            Tok::Doctype(_) => self.ignore(s, "doctype in head"),
            Tok::Start(t) => match &*t.name {
                "html" => self.in_body(tok, s),
                "base" | "basefont" | "bgsound" | "link" | "meta" => self.insert_void_html_element(s, t),
                "title" => self.generic_text_element(s, t, TextMode::Rcdata),
                "noscript" if self.scripting => self.generic_text_element(s, t, TextMode::Rawtext),
                "noframes" | "style" => self.generic_text_element(s, t, TextMode::Rawtext),
                "noscript" => {
                    self.insert_html_element(s, t);
                    self.mode = InsertionMode::InHeadNoscript;
                }
                "script" => self.generic_text_element(s, t, TextMode::ScriptData),
                "template" => {
                    self.fmt.push_marker();
                    self.frameset_ok = false;
                    self.mode = InsertionMode::InTemplate;
                    self.template_modes.push(InsertionMode::InTemplate);
                    if !self.attach_declarative_shadow_root(s, t) {
                        self.insert_html_element(s, t);
                    }
                }
                "head" => self.ignore(s, "head in head"),
                _ => self.in_head_anything_else(tok, s),
            },
            Tok::End(t) => match &*t.name {
                "head" => {
                    self.pop(s, CloseCause::EndTag { span: t.span });
                    self.mode = InsertionMode::AfterHead;
                }
                "body" | "html" | "br" => self.in_head_anything_else(tok, s),
                "template" => {
                    if !self.stack.contains_html("template") {
                        return self.ignore(s, "no template open");
                    }
                    self.generate_all_implied_end_tags_thoroughly(s);
                    self.pop_until_html(s, "template", CloseCause::EndTag { span: t.span });
                    self.fmt.clear_to_last_marker();
                    self.template_modes.pop();
                    self.reset_insertion_mode();
                }
                _ => self.ignore(s, "end tag in head"),
            },
            Tok::Eof => self.in_head_anything_else(tok, s),
        }
    }

    fn in_head_anything_else<S: EventSink + ?Sized>(&mut self, tok: Tok<'_>, s: &mut S) {
        let c = self.implied();
        self.pop(s, c);
        self.mode = InsertionMode::AfterHead;
        self.by_mode(self.mode, tok, s);
    }

    fn in_head_noscript<S: EventSink + ?Sized>(&mut self, tok: Tok<'_>, s: &mut S) {
        match tok {
            Tok::Doctype(_) => self.ignore(s, "doctype in noscript"),
            Tok::Start(t) if t.name == "html" => self.in_body(tok, s),
            Tok::End(t) if t.name == "noscript" => {
                self.pop(s, CloseCause::EndTag { span: t.span });
                self.mode = InsertionMode::InHead;
            }
            Tok::Comment(_) => self.in_head(tok, s),
            Tok::Start(t) if matches!(&*t.name, "basefont" | "bgsound" | "link" | "meta" | "noframes" | "style") => {
                self.in_head(tok, s)
            }
            Tok::Start(t) if matches!(&*t.name, "head" | "noscript") => self.ignore(s, "start tag in noscript"),
            Tok::End(t) if t.name != "br" => self.ignore(s, "end tag in noscript"),
            _ => {
                let c = self.implied();
                self.pop(s, c);
                self.mode = InsertionMode::InHead;
                self.by_mode(self.mode, tok, s);
            }
        }
    }

    fn after_head<S: EventSink + ?Sized>(&mut self, tok: Tok<'_>, s: &mut S) {
        match tok {
            Tok::Comment(c) => self.insert_comment(s, &c, None),
            Tok::Doctype(_) => self.ignore(s, "doctype after head"),
            Tok::Start(t) => match &*t.name {
                "html" => self.in_body(tok, s),
                "body" => {
                    self.insert_body(s, Some(t));
                    self.frameset_ok = false;
                    self.mode = InsertionMode::InBody;
                }
                "frameset" => {
                    self.insert_html_element(s, t);
                    self.mode = InsertionMode::InFrameset;
                }
                "base" | "basefont" | "bgsound" | "link" | "meta" | "noframes" | "script" | "style" | "template"
                | "title" => {
                    // spec: push the head element pointer onto the stack, process in head, remove it.
                    let Some(head) = self.head.clone() else { return self.after_head_anything_else(tok, s) };
                    let id = head.id;
                    self.stack.push(head);
                    self.in_head(tok, s);
                    if let Some(i) = self.stack.position(id) {
                        self.stack.remove_at(i);
                    }
                }
                "head" => self.ignore(s, "head after head"),
                _ => self.after_head_anything_else(tok, s),
            },
            Tok::End(t) => match &*t.name {
                "template" => self.in_head(tok, s),
                "body" | "html" | "br" => self.after_head_anything_else(tok, s),
                _ => self.ignore(s, "end tag after head"),
            },
            Tok::Eof => self.after_head_anything_else(tok, s),
        }
    }

    fn after_head_anything_else<S: EventSink + ?Sized>(&mut self, tok: Tok<'_>, s: &mut S) {
        self.insert_body(s, None);
        self.mode = InsertionMode::InBody;
        self.by_mode(self.mode, tok, s);
    }

    fn text<S: EventSink + ?Sized>(&mut self, tok: Tok<'_>, s: &mut S) {
        match tok {
            Tok::Eof => {
                self.pop(s, CloseCause::Eof);
                self.mode = self.original_mode;
                self.by_mode(self.mode, tok, s);
            }
            Tok::End(t) => self.text_end_tag(t, s),
            _ => self.ignore(s, "token in text mode"),
        }
    }

    /// "Text"'s rule for an end tag (`</script>`, and any other): pop the
    /// current node, switch to the original insertion mode.
    pub(crate) fn text_end_tag<S: EventSink + ?Sized>(&mut self, t: &crate::TagToken, s: &mut S) {
        self.pop(s, CloseCause::EndTag { span: t.span });
        self.mode = self.original_mode;
    }

    fn after_body<S: EventSink + ?Sized>(&mut self, tok: Tok<'_>, s: &mut S) {
        match tok {
            Tok::Comment(c) => {
                let parent = self.stack.get(0).id;
                self.insert_comment(s, &c, Some(Position::Append { parent }));
            }
            Tok::Doctype(_) => self.ignore(s, "doctype after body"),
            Tok::Start(t) if t.name == "html" => self.in_body(tok, s),
            Tok::End(t) if t.name == "html" => {
                if self.context.is_some() {
                    return self.ignore(s, "</html> in a fragment");
                }
                self.mode = InsertionMode::AfterAfterBody;
            }
            Tok::Eof => self.stop_parsing(s),
            _ => {
                self.mode = InsertionMode::InBody;
                self.by_mode(self.mode, tok, s);
            }
        }
    }

    fn in_frameset<S: EventSink + ?Sized>(&mut self, tok: Tok<'_>, s: &mut S) {
        match tok {
            Tok::Comment(c) => self.insert_comment(s, &c, None),
            Tok::Doctype(_) => self.ignore(s, "doctype in frameset"),
            Tok::Start(t) => match &*t.name {
                "html" => self.in_body(tok, s),
                "frameset" => {
                    self.insert_html_element(s, t);
                }
                "frame" => self.insert_void_html_element(s, t),
                "noframes" => self.in_head(tok, s),
                _ => self.ignore(s, "start tag in frameset"),
            },
            Tok::End(t) if t.name == "frameset" => {
                if self.stack.live_len() == 1 {
                    return self.ignore(s, "</frameset> at the root");
                }
                self.pop(s, CloseCause::EndTag { span: t.span });
                if self.context.is_none() && !self.current_is("frameset") {
                    self.mode = InsertionMode::AfterFrameset;
                }
            }
            Tok::Eof => self.stop_parsing(s),
            _ => self.ignore(s, "token in frameset"),
        }
    }

    fn after_frameset<S: EventSink + ?Sized>(&mut self, tok: Tok<'_>, s: &mut S) {
        match tok {
            Tok::Comment(c) => self.insert_comment(s, &c, None),
            Tok::Doctype(_) => self.ignore(s, "doctype after frameset"),
            Tok::Start(t) if t.name == "html" => self.in_body(tok, s),
            Tok::End(t) if t.name == "html" => self.mode = InsertionMode::AfterAfterFrameset,
            Tok::Start(t) if t.name == "noframes" => self.in_head(tok, s),
            Tok::Eof => self.stop_parsing(s),
            _ => self.ignore(s, "token after frameset"),
        }
    }

    fn after_after_body<S: EventSink + ?Sized>(&mut self, tok: Tok<'_>, s: &mut S) {
        match tok {
            Tok::Comment(c) => self.insert_comment(s, &c, Some(Position::Append { parent: NodeId::DOCUMENT })),
            Tok::Doctype(_) => self.in_body(tok, s),
            Tok::Start(t) if t.name == "html" => self.in_body(tok, s),
            Tok::Eof => self.stop_parsing(s),
            _ => {
                self.mode = InsertionMode::InBody;
                self.by_mode(self.mode, tok, s);
            }
        }
    }

    fn after_after_frameset<S: EventSink + ?Sized>(&mut self, tok: Tok<'_>, s: &mut S) {
        match tok {
            Tok::Comment(c) => self.insert_comment(s, &c, Some(Position::Append { parent: NodeId::DOCUMENT })),
            Tok::Doctype(_) => self.in_body(tok, s),
            Tok::Start(t) if t.name == "html" => self.in_body(tok, s),
            Tok::Start(t) if t.name == "noframes" => self.in_head(tok, s),
            Tok::Eof => self.stop_parsing(s),
            _ => self.ignore(s, "token after frameset"),
        }
    }

    /// The declarative shadow root steps of a `template` start tag in head:
    /// `true` when the template became `host`'s shadow root (pushed on the
    /// stack, not inserted), `false` when it is inserted as usual.
    fn attach_declarative_shadow_root<S: EventSink + ?Sized>(&mut self, s: &mut S, t: &crate::TagToken) -> bool {
        let mode = match t.attr("shadowrootmode") {
            Some(m) if m.eq_ignore_ascii_case("open") => true,
            Some(m) if m.eq_ignore_ascii_case("closed") => false,
            _ => return false,
        };
        if !self.declarative_shadow_roots || self.stack.live_len() <= 1 {
            return false;
        }
        let Some((ns, name, _)) = self.adjusted_current_node() else { return false };
        if ns != Namespace::Html || !tags::can_be_shadow_host(name) {
            return false;
        }
        let host = self.stack.current().expect("non-empty").id;
        self.shadow_hosts.retain(|(h, _)| self.stack.position(*h).is_some());
        if let Some(&(_, existing)) = self.shadow_hosts.iter().find(|(h, _)| *h == host) {
            if existing != mode {
                // spec: attaching throws; the template is inserted as usual.
                return false;
            }
        } else {
            self.shadow_hosts.push((host, mode));
        }
        let id = self.new_id();
        let origin = Origin::StartTag { span: t.span };
        s.event(Event::ElementOpened {
            id,
            name: "template",
            ns: Namespace::Html,
            known: Some(crate::KnownName::from_id(const { crate::names::html("template") })),
            attrs: if self.tag_attrs_shown { &t.attrs } else { &[] },
            origin,
            position: Position::Detached,
            self_closing: false,
        });
        s.attach_declarative_shadow_root(host, id);
        self.stack.push(crate::OpenElement::of_known(
            id,
            const { crate::names::html("template") },
            Namespace::Html,
            host,
        ));
        true
    }
}
