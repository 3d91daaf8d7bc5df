//! Tables and templates: the insertion modes
//! ["in table"](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-intable),
//! ["in table text"](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-intabletext),
//! ["in caption"](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-incaption),
//! ["in column group"](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-incolgroup),
//! ["in table body"](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-intbody),
//! ["in row"](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-intr),
//! ["in cell"](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-intd) and
//! ["in template"](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-intemplate).

use crate::builder::Builder;
use crate::mode::InsertionMode;
use crate::names;
use crate::tags;
use crate::token::{TagToken, Tok};
use crate::{CloseCause, EventSink, Namespace};

/// "An end tag whose tag name is one of: "td", "th"" in cell: close the cell.
pub(crate) const CELL_NAMES: &[&str] = &["td", "th"];

/// "A start tag whose tag name is one of: "caption", "col", …" in cell:
/// close the cell and reprocess the token.
pub(crate) const IN_CELL_CLOSING_START: &[&str] =
    &["caption", "col", "colgroup", "tbody", "td", "tfoot", "th", "thead", "tr"];

/// "An end tag whose tag name is one of: "body", "caption", "col",
/// "colgroup", "html"" in cell: parse error, ignored.
pub(crate) const IN_CELL_IGNORED_END: &[&str] = &["body", "caption", "col", "colgroup", "html"];

/// "An end tag whose tag name is one of: "table", "tbody", "tfoot",
/// "thead", "tr"" in cell: close the cell (if in table scope) and reprocess.
pub(crate) const IN_CELL_CLOSING_END: &[&str] = &["table", "tbody", "tfoot", "thead", "tr"];

/// The known ids of the table sections `tbody`, `thead`, `tfoot`.
pub(crate) const SECTION_KEYS: [u32; 3] = [names::html("tbody"), names::html("thead"), names::html("tfoot")];

impl Builder {
    /// Pops until the current node is an HTML element with one of the known
    /// ids `keys` (`names::html`: known ids say the namespace).
    fn clear_stack_back_to<S: EventSink + ?Sized>(&mut self, s: &mut S, keys: &[u32]) {
        while let Some(e) = self.stack.current() {
            if keys.contains(&e.key) {
                break;
            }
            let c = self.implied();
            self.pop(s, c);
        }
    }

    /// [Clear the stack back to a table context](https://html.spec.whatwg.org/multipage/parsing.html#clear-the-stack-back-to-a-table-context).
    pub(crate) fn clear_stack_back_to_table_context<S: EventSink + ?Sized>(&mut self, s: &mut S) {
        self.clear_stack_back_to(s, &const { [names::html("table"), names::html("template"), names::html("html")] });
    }

    /// [Clear the stack back to a table body context](https://html.spec.whatwg.org/multipage/parsing.html#clear-the-stack-back-to-a-table-body-context).
    pub(crate) fn clear_stack_back_to_table_body_context<S: EventSink + ?Sized>(&mut self, s: &mut S) {
        const KEYS: [u32; 5] =
            [SECTION_KEYS[0], SECTION_KEYS[1], SECTION_KEYS[2], names::html("template"), names::html("html")];
        self.clear_stack_back_to(s, &KEYS);
    }

    /// [Clear the stack back to a table row context](https://html.spec.whatwg.org/multipage/parsing.html#clear-the-stack-back-to-a-table-row-context).
    pub(crate) fn clear_stack_back_to_table_row_context<S: EventSink + ?Sized>(&mut self, s: &mut S) {
        self.clear_stack_back_to(s, &const { [names::html("tr"), names::html("template"), names::html("html")] });
    }

    /// Characters in "in table" (also reached from "in table body" and "in
    /// row"): switch to "in table text" when the current node is a table
    /// element, else foster-parent them.
    pub(crate) fn table_text_start<S: EventSink + ?Sized>(&mut self, text: &str, s: &mut S) -> usize {
        if self.current_takes_table_text() {
            self.table_ws.clear();
            self.table_foster = false;
            self.original_mode = self.mode;
            self.mode = InsertionMode::InTableText;
            return 0;
        }
        self.foster_text(text, s);
        text.len()
    }

    /// Whether the current node is one under which "in table" characters
    /// go through "in table text" (`table`, `tbody`, `template`, `tfoot`,
    /// `thead`, `tr`) rather than being foster-parented.
    pub(crate) fn current_takes_table_text(&self) -> bool {
        self.stack.current().is_some_and(|e| {
            e.ns == Namespace::Html
                && matches!(self.stack.name(e), "table" | "tbody" | "template" | "tfoot" | "thead" | "tr")
        })
    }

    /// "Anything else" in table for characters: in body rules with foster parenting.
    fn foster_text<S: EventSink + ?Sized>(&mut self, text: &str, s: &mut S) {
        self.foster_parenting = true;
        self.body_text(s, text);
        self.foster_parenting = false;
    }

    /// Characters in "in table text". Pending characters are kept only
    /// while they are all whitespace; once a non-whitespace character
    /// arrives, the decision ("foster-parent them all") is made and the text
    /// streams through.
    pub(crate) fn table_text<S: EventSink + ?Sized>(&mut self, text: &str, s: &mut S) {
        // U+0000 is ignored (no Ignored event for characters: text events
        // have no spans); most text has none, one piece.
        if !text.as_bytes().contains(&0) {
            return self.table_text_piece(text, s);
        }
        for seg in text.split('\0') {
            self.table_text_piece(seg, s);
        }
    }

    /// [`Builder::table_text`] for characters without U+0000.
    fn table_text_piece<S: EventSink + ?Sized>(&mut self, seg: &str, s: &mut S) {
        if seg.is_empty() {
            return;
        }
        if self.table_foster {
            return self.foster_text(seg, s);
        }
        let ws = tags::ws_prefix_len(seg);
        self.table_ws.push_str(&seg[..ws]);
        if ws < seg.len() {
            self.table_foster = true;
            let pending = std::mem::take(&mut self.table_ws);
            self.foster_text(&pending, s);
            self.keep_table_ws(pending);
            self.foster_text(&seg[ws..], s);
        }
    }

    /// Gives the pending table whitespace's buffer back, emptied, so the
    /// next run of table text allocates none (unless it grew past 4 KiB:
    /// memory stays bounded by the chunk, not by the longest run seen).
    fn keep_table_ws(&mut self, mut buffer: String) {
        if buffer.capacity() <= 4096 {
            buffer.clear();
            self.table_ws = buffer;
        }
    }

    /// ["In table text"](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-intabletext)
    /// for a token that is not a character token: the pending table
    /// character tokens inserted ([`Builder::end_table_text`]), the token
    /// reprocessed in the original insertion mode.
    pub(crate) fn in_table_text<S: EventSink + ?Sized>(&mut self, tok: Tok<'_>, s: &mut S) {
        self.end_table_text(s);
        self.by_mode(self.mode, tok, s);
    }

    /// "In table text"'s "anything else" before the token is reprocessed:
    /// the pending whitespace inserted (text that was not all whitespace
    /// went out foster-parented as it came), and the original insertion
    /// mode back.
    pub(crate) fn end_table_text<S: EventSink + ?Sized>(&mut self, s: &mut S) {
        if !self.table_foster {
            let pending = std::mem::take(&mut self.table_ws);
            self.insert_text(s, &pending);
            self.keep_table_ws(pending);
        }
        self.table_foster = false;
        self.table_ws.clear();
        self.mode = self.original_mode;
    }

    /// Whether a text token of bytes `raw` (`markup_next`: it ends before
    /// markup, [`htrewrite_tokenizer::Token::ends_before_markup`]) does
    /// nothing a sink without text events can tell, in a table: ASCII
    /// whitespace alone, "in table", "in table body" or "in row" with a
    /// current node under which characters go through "in table text"
    /// ([`Builder::current_takes_table_text`]). The Standard makes it the pending table character tokens of "in table
    /// text", and the next token, which is not a character token, inserts
    /// them under the current node and goes back to the mode: no state
    /// changes between the two but for that insertion, which makes no event
    /// for such a sink. Text cut where a chunk ends, whose run may go on
    /// with characters that are not whitespace (then the whole run is
    /// foster-parented), takes the full rules. A tag the Standard drops
    /// (`</>`, a tag cut by the end of input) leaves its run open: the next
    /// text joins it, and is foster-parented with it if it has characters
    /// that are not whitespace — which changes nothing more than this
    /// whitespace's insertion did, for such a sink (`fast_path`'s
    /// `table_whitespace_runs::*` compare the element events). Asked by
    /// [`Builder::text_is_inert`], which has made the tests common to every
    /// mode (the tree construction has started, the current node takes the
    /// HTML rules).
    #[inline]
    pub(crate) fn table_whitespace_is_inert(&self, raw: &[u8], markup_next: bool) -> bool {
        markup_next
            && matches!(self.mode, InsertionMode::InTable | InsertionMode::InTableBody | InsertionMode::InRow)
            && tags::is_whitespace_text(raw)
            && self.current_takes_table_text()
    }

    pub(crate) fn in_table<S: EventSink + ?Sized>(&mut self, tok: Tok<'_>, s: &mut S) {
        match tok {
            Tok::Comment(c) => self.insert_comment(s, &c, None),
            Tok::Doctype(_) => self.ignore(s, "doctype in table"),
            Tok::Start(t) => match &*t.name {
                "caption" => {
                    self.clear_stack_back_to_table_context(s);
                    self.fmt.push_marker();
                    self.insert_html_element(s, t);
                    self.mode = InsertionMode::InCaption;
                }
                "colgroup" => {
                    self.clear_stack_back_to_table_context(s);
                    self.insert_html_element(s, t);
                    self.mode = InsertionMode::InColumnGroup;
                }
                "col" => {
                    self.clear_stack_back_to_table_context(s);
                    self.insert_implied(s, "colgroup");
                    self.mode = InsertionMode::InColumnGroup;
                    self.by_mode(self.mode, tok, s);
                }
                "tbody" | "tfoot" | "thead" => {
                    self.clear_stack_back_to_table_context(s);
                    self.insert_html_element(s, t);
                    self.mode = InsertionMode::InTableBody;
                }
                "td" | "th" | "tr" => {
                    self.clear_stack_back_to_table_context(s);
                    self.insert_implied(s, "tbody");
                    self.mode = InsertionMode::InTableBody;
                    self.by_mode(self.mode, tok, s);
                }
                "table" => {
                    if !self.has_element_in_table_scope("table") {
                        return self.ignore(s, "<table> in table");
                    }
                    let c = self.implied();
                    self.pop_until_html(s, "table", c);
                    self.reset_insertion_mode();
                    self.by_mode(self.mode, tok, s);
                }
                "style" | "script" | "template" => self.in_head(tok, s),
                "input" if t.attr("type").is_some_and(|v| v.eq_ignore_ascii_case("hidden")) => {
                    self.insert_void_html_element(s, t);
                }
                "form" => {
                    if self.stack.contains_html("template") || self.form.is_some() {
                        return self.ignore(s, "<form> in table");
                    }
                    let id = self.insert_html_element(s, t);
                    self.form = Some(id);
                    self.pop(s, CloseCause::Immediate { span: t.span });
                }
                _ => self.in_table_anything_else(tok, s),
            },
            Tok::End(t) => match &*t.name {
                "table" => {
                    if !self.has_element_in_table_scope("table") {
                        return self.ignore(s, "</table> without table in scope");
                    }
                    self.pop_until_html(s, "table", CloseCause::EndTag { span: t.span });
                    self.reset_insertion_mode();
                }
                "body" | "caption" | "col" | "colgroup" | "html" | "tbody" | "td" | "tfoot" | "th" | "thead" | "tr" => {
                    self.ignore(s, "end tag in table")
                }
                "template" => self.in_head(tok, s),
                _ => self.in_table_anything_else(tok, s),
            },
            Tok::Eof => self.in_body(tok, s),
        }
    }

    fn in_table_anything_else<S: EventSink + ?Sized>(&mut self, tok: Tok<'_>, s: &mut S) {
        self.foster_parenting = true;
        self.in_body(tok, s);
        self.foster_parenting = false;
    }

    pub(crate) fn in_caption<S: EventSink + ?Sized>(&mut self, tok: Tok<'_>, s: &mut S) {
        let closes = match tok {
            Tok::Start(t) => {
                matches!(&*t.name, "caption" | "col" | "colgroup" | "tbody" | "td" | "tfoot" | "th" | "thead" | "tr")
            }
            Tok::End(t) => t.name == "table",
            _ => false,
        };
        match tok {
            Tok::End(t) if t.name == "caption" => {
                if !self.has_element_in_table_scope("caption") {
                    return self.ignore(s, "</caption> without caption");
                }
                self.generate_implied_end_tags(s, None);
                self.pop_until_html(s, "caption", CloseCause::EndTag { span: t.span });
                self.fmt.clear_to_last_marker();
                self.mode = InsertionMode::InTable;
            }
            _ if closes => {
                if !self.has_element_in_table_scope("caption") {
                    return self.ignore(s, "table tag without caption");
                }
                self.generate_implied_end_tags(s, None);
                let c = self.implied();
                self.pop_until_html(s, "caption", c);
                self.fmt.clear_to_last_marker();
                self.mode = InsertionMode::InTable;
                self.by_mode(self.mode, tok, s);
            }
            Tok::End(t)
                if matches!(
                    &*t.name,
                    "body" | "col" | "colgroup" | "html" | "tbody" | "td" | "tfoot" | "th" | "thead" | "tr"
                ) =>
            {
                self.ignore(s, "end tag in caption")
            }
            _ => self.in_body(tok, s),
        }
    }

    pub(crate) fn in_column_group<S: EventSink + ?Sized>(&mut self, tok: Tok<'_>, s: &mut S) {
        match tok {
            Tok::Comment(c) => self.insert_comment(s, &c, None),
            Tok::Doctype(_) => self.ignore(s, "doctype in colgroup"),
            Tok::Start(t) if t.name == "html" => self.in_body(tok, s),
            Tok::Start(t) if t.name == "col" => self.insert_void_html_element(s, t),
            Tok::End(t) if t.name == "colgroup" => {
                if !self.current_is("colgroup") {
                    return self.ignore(s, "</colgroup> without colgroup");
                }
                self.pop(s, CloseCause::EndTag { span: t.span });
                self.mode = InsertionMode::InTable;
            }
            Tok::End(t) if t.name == "col" => self.ignore(s, "</col>"),
            Tok::Start(t) if t.name == "template" => self.in_head(tok, s),
            Tok::End(t) if t.name == "template" => self.in_head(tok, s),
            Tok::Eof => self.in_body(tok, s),
            _ => {
                if !self.current_is("colgroup") {
                    return self.ignore(s, "token in column group");
                }
                let c = self.implied();
                self.pop(s, c);
                self.mode = InsertionMode::InTable;
                self.by_mode(self.mode, tok, s);
            }
        }
    }

    fn has_table_section_in_table_scope(&self) -> bool {
        self.stack.has_in_scope_of(&["tbody", "thead", "tfoot"], crate::tags::cat::TABLE_SCOPE)
    }

    pub(crate) fn in_table_body<S: EventSink + ?Sized>(&mut self, tok: Tok<'_>, s: &mut S) {
        match tok {
            Tok::Start(t) if t.name == "tr" => {
                self.clear_stack_back_to_table_body_context(s);
                self.insert_html_element(s, t);
                self.mode = InsertionMode::InRow;
            }
            Tok::Start(t) if matches!(&*t.name, "th" | "td") => {
                self.clear_stack_back_to_table_body_context(s);
                self.insert_implied(s, "tr");
                self.mode = InsertionMode::InRow;
                self.by_mode(self.mode, tok, s);
            }
            Tok::End(t) if matches!(&*t.name, "tbody" | "tfoot" | "thead") => {
                if !self.has_element_in_table_scope(&t.name) {
                    return self.ignore(s, "table section end tag not in scope");
                }
                self.clear_stack_back_to_table_body_context(s);
                self.pop(s, CloseCause::EndTag { span: t.span });
                self.mode = InsertionMode::InTable;
            }
            Tok::Start(TagToken { name, .. })
                if matches!(&**name, "caption" | "col" | "colgroup" | "tbody" | "tfoot" | "thead") =>
            {
                self.table_body_close_and_reprocess(tok, s)
            }
            Tok::End(t) if t.name == "table" => self.table_body_close_and_reprocess(tok, s),
            Tok::End(t)
                if matches!(&*t.name, "body" | "caption" | "col" | "colgroup" | "html" | "td" | "th" | "tr") =>
            {
                self.ignore(s, "end tag in table body")
            }
            _ => self.in_table(tok, s),
        }
    }

    fn table_body_close_and_reprocess<S: EventSink + ?Sized>(&mut self, tok: Tok<'_>, s: &mut S) {
        if !self.has_table_section_in_table_scope() {
            return self.ignore(s, "no table section in scope");
        }
        self.clear_stack_back_to_table_body_context(s);
        let c = self.implied();
        self.pop(s, c);
        self.mode = InsertionMode::InTable;
        self.by_mode(self.mode, tok, s);
    }

    pub(crate) fn in_row<S: EventSink + ?Sized>(&mut self, tok: Tok<'_>, s: &mut S) {
        match tok {
            Tok::Start(t) if matches!(&*t.name, "th" | "td") => {
                self.clear_stack_back_to_table_row_context(s);
                self.insert_html_element(s, t);
                self.mode = InsertionMode::InCell;
                self.fmt.push_marker();
            }
            Tok::End(t) if t.name == "tr" => {
                if !self.has_element_in_table_scope("tr") {
                    return self.ignore(s, "</tr> without tr");
                }
                self.clear_stack_back_to_table_row_context(s);
                self.pop(s, CloseCause::EndTag { span: t.span });
                self.mode = InsertionMode::InTableBody;
            }
            Tok::Start(t)
                if matches!(&*t.name, "caption" | "col" | "colgroup" | "tbody" | "tfoot" | "thead" | "tr") =>
            {
                self.row_close_and_reprocess(tok, s)
            }
            Tok::End(t) if t.name == "table" => self.row_close_and_reprocess(tok, s),
            Tok::End(t) if matches!(&*t.name, "tbody" | "tfoot" | "thead") => {
                if !self.has_element_in_table_scope(&t.name) {
                    return self.ignore(s, "table section end tag not in scope");
                }
                self.row_close_and_reprocess(tok, s)
            }
            Tok::End(t) if matches!(&*t.name, "body" | "caption" | "col" | "colgroup" | "html" | "td" | "th") => {
                self.ignore(s, "end tag in row")
            }
            _ => self.in_table(tok, s),
        }
    }

    fn row_close_and_reprocess<S: EventSink + ?Sized>(&mut self, tok: Tok<'_>, s: &mut S) {
        if !self.has_element_in_table_scope("tr") {
            return self.ignore(s, "no tr in table scope");
        }
        self.close_the_row(s);
        self.by_mode(self.mode, tok, s);
    }

    /// "In row", what a tag that closes the row does once a `tr` is in
    /// table scope: clear the stack back to a table row context, pop the
    /// `tr`, switch to "in table body" (the table fast path's `<tr>` in a
    /// cell does it too).
    pub(crate) fn close_the_row<S: EventSink + ?Sized>(&mut self, s: &mut S) {
        self.clear_stack_back_to_table_row_context(s);
        let c = self.implied();
        self.pop(s, c);
        self.mode = InsertionMode::InTableBody;
    }

    /// [Close the cell](https://html.spec.whatwg.org/multipage/parsing.html#close-the-cell).
    fn close_the_cell<S: EventSink + ?Sized>(&mut self, s: &mut S) {
        self.generate_implied_end_tags(s, None);
        let c = self.implied();
        self.pop_until_html_of(s, &["td", "th"], c);
        self.fmt.clear_to_last_marker();
        self.mode = InsertionMode::InRow;
    }

    /// The ["in cell"](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-intd)
    /// insertion mode: the tags of its own rules (in [`CELL_NAMES`],
    /// [`IN_CELL_CLOSING_START`], [`IN_CELL_IGNORED_END`],
    /// [`IN_CELL_CLOSING_END`]); "anything else" is processed by the rules
    /// of "in body" (the fast path, `fast.rs`, reads the same lists).
    pub(crate) fn in_cell<S: EventSink + ?Sized>(&mut self, tok: Tok<'_>, s: &mut S) {
        match tok {
            Tok::End(t) if CELL_NAMES.contains(&&*t.name) => {
                if !self.has_element_in_table_scope(&t.name) {
                    return self.ignore(s, "cell end tag not in scope");
                }
                self.generate_implied_end_tags(s, None);
                self.pop_until_html(s, &t.name, CloseCause::EndTag { span: t.span });
                self.fmt.clear_to_last_marker();
                self.mode = InsertionMode::InRow;
            }
            Tok::Start(t) if IN_CELL_CLOSING_START.contains(&&*t.name) => {
                if !self.stack.has_in_scope_of(&["td", "th"], crate::tags::cat::TABLE_SCOPE) {
                    return self.ignore(s, "no cell in scope");
                }
                self.close_the_cell(s);
                self.by_mode(self.mode, tok, s);
            }
            Tok::End(t) if IN_CELL_IGNORED_END.contains(&&*t.name) => self.ignore(s, "end tag in cell"),
            Tok::End(t) if IN_CELL_CLOSING_END.contains(&&*t.name) => {
                if !self.has_element_in_table_scope(&t.name) {
                    return self.ignore(s, "end tag not in table scope");
                }
                self.close_the_cell(s);
                self.by_mode(self.mode, tok, s);
            }
            _ => self.in_body(tok, s),
        }
    }

    pub(crate) fn in_template<S: EventSink + ?Sized>(&mut self, tok: Tok<'_>, s: &mut S) {
        use InsertionMode as M;
        match tok {
            Tok::Comment(_) | Tok::Doctype(_) => self.in_body(tok, s),
            Tok::Start(t) => {
                let next = match &*t.name {
                    "base" | "basefont" | "bgsound" | "link" | "meta" | "noframes" | "script" | "style"
                    | "template" | "title" => return self.in_head(tok, s),
                    "caption" | "colgroup" | "tbody" | "tfoot" | "thead" => M::InTable,
                    "col" => M::InColumnGroup,
                    "tr" => M::InTableBody,
                    "td" | "th" => M::InRow,
                    _ => M::InBody,
                };
                self.template_modes.pop();
                self.template_modes.push(next);
                self.mode = next;
                self.by_mode(self.mode, tok, s);
            }
            Tok::End(t) if t.name == "template" => self.in_head(tok, s),
            Tok::End(_) => self.ignore(s, "end tag in template"),
            Tok::Eof => {
                if !self.stack.contains_html("template") {
                    return self.stop_parsing(s);
                }
                self.pop_until_html(s, "template", CloseCause::Eof);
                self.fmt.clear_to_last_marker();
                self.template_modes.pop();
                self.reset_insertion_mode();
                self.by_mode(self.mode, tok, s);
            }
        }
    }
}
