//! The tree builder's state and the Standard's shared algorithms: the
//! appropriate place for inserting a node, element insertion, implied end
//! tags, reconstruction of the active formatting elements, the adoption
//! agency algorithm, resetting the insertion mode.

use htrewrite_tokenizer::{Span, TextMode};

use crate::formatting::{Entry, FormattingList};
use crate::mode::{InsertionMode, TextRules};
use crate::names;
use crate::stack::Stack;
use crate::tags::{self, cat};
use crate::token::TagToken;
use crate::{
    CloseCause, Event, EventSink, KnownName, Namespace, NodeId, OpenElement, Origin, Position, QuirksMode, ShadowAttr,
};

/// The fragment parsing algorithm's context element.
#[derive(Debug, Clone)]
pub(crate) struct Context {
    pub name: Box<str>,
    pub ns: Namespace,
    pub cats: u16,
}

/// What the customizable `<select>` needs of an open `select` element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SelectState {
    pub id: NodeId,
    pub multiple: bool,
    /// The first `selectedcontent` inserted while this select was the nearest one.
    pub selectedcontent: Option<NodeId>,
    /// The option whose selectedness is true.
    pub selected: Option<NodeId>,
}

/// A sentinel id standing for the context element (never in the events).
pub(crate) const CONTEXT_ID: NodeId = NodeId(u64::MAX);

/// All state of tree construction (no DOM).
#[derive(Debug, Clone)]
pub(crate) struct Builder {
    pub scripting: bool,
    pub context: Option<Context>,
    pub mode: InsertionMode,
    pub original_mode: InsertionMode,
    pub template_modes: Vec<InsertionMode>,
    pub stack: Stack,
    pub fmt: FormattingList,
    /// The head element pointer (kept whole: "after head" pushes it back).
    pub head: Option<OpenElement>,
    pub form: Option<NodeId>,
    pub frameset_ok: bool,
    pub quirks: QuirksMode,
    pub foster_parenting: bool,
    pub next_id: u64,
    /// The span of the token being processed.
    pub span: Span,
    /// The text token being processed is known to have no U+0000 (its raw
    /// bytes were checked when it was decoded).
    pub text_without_nul: bool,
    /// The sink reads the characters of text events ([`EventSink::wants_text`]):
    /// else text events carry none.
    pub text_shown: bool,
    /// The sink takes text events ([`EventSink::wants_text_events`]): else
    /// none are made.
    pub text_events: bool,
    /// The sink reads the attributes of the current start tag's element
    /// ([`EventSink::wants_start_tag_attributes`]): else its events carry none.
    pub tag_attrs_shown: bool,
    /// The current start tag's attributes were not decoded (a formatting
    /// element's, for a sink that does not read them): its bytes are in
    /// `tag_raw`, for [`Builder::push_formatting`] to keep.
    pub tag_attrs_deferred: bool,
    pub tag_raw: Vec<u8>,
    /// Drop a leading LF of the next token (`<pre>`, `<listing>`, `<textarea>`).
    pub skip_newline: bool,
    /// Set when a start tag switched the tokenizer's state.
    pub text_mode: Option<TextMode>,
    /// "in table text": whitespace still pending (the decision is not made yet).
    pub table_ws: String,
    /// "in table text": non-whitespace seen, everything is foster-parented.
    pub table_foster: bool,
    /// Attribute names of the `html` element (for merging).
    pub html_attrs: std::collections::HashSet<String>,
    /// The `body` element and its attribute names (for merging).
    pub body: Option<(NodeId, std::collections::HashSet<String>)>,
    pub started: bool,
    pub stopped: bool,
    /// Processing the end-of-file token.
    pub at_eof: bool,
    /// The open `select` elements' selectedness state (innermost last).
    pub selects: Vec<SelectState>,
    /// The document's "allow declarative shadow roots".
    pub declarative_shadow_roots: bool,
    /// Open elements that are declarative shadow hosts, with their root's mode (`true`: open).
    pub shadow_hosts: Vec<(NodeId, bool)>,
    /// The strings of element names outside the table, shared by the stack's entries.
    /// A foreign-content start tag's adjusted copy (kept for its buffers).
    pub foreign_tag: TagToken,
    /// Attribute buffers for [`Builder::foreign_tag`] ([`TagToken::copy_keeping`]).
    pub foreign_spare: Vec<crate::ShadowAttr>,
}

impl Builder {
    pub(crate) fn new(scripting: bool, context: Option<(String, Namespace)>, quirks: QuirksMode) -> Builder {
        let context = context.map(|(name, ns)| {
            let cats = tags::cats(ns, &name, false);
            Context { name: name.into(), ns, cats }
        });
        Builder {
            scripting,
            quirks: if context.is_some() { quirks } else { QuirksMode::NoQuirks },
            context,
            mode: InsertionMode::Initial,
            original_mode: InsertionMode::Initial,
            template_modes: Vec::new(),
            stack: Stack::default(),
            fmt: FormattingList::default(),
            head: None,
            form: None,
            frameset_ok: true,
            foster_parenting: false,
            next_id: 1,
            span: Span::default(),
            text_without_nul: false,
            text_shown: true,
            text_events: true,
            tag_attrs_shown: true,
            tag_attrs_deferred: false,
            tag_raw: Vec::new(),
            skip_newline: false,
            text_mode: None,
            table_ws: String::new(),
            table_foster: false,
            html_attrs: std::collections::HashSet::new(),
            body: None,
            started: false,
            stopped: false,
            at_eof: false,
            selects: Vec::new(),
            declarative_shadow_roots: false,
            shadow_hosts: Vec::new(),
            foreign_tag: TagToken::default(),
            foreign_spare: Vec::new(),
        }
    }

    /// The fragment parsing algorithm's set-up (steps creating the root
    /// `html` element, the template mode, the form pointer, the insertion
    /// mode); for documents nothing.
    pub(crate) fn start<S: EventSink + ?Sized>(&mut self, s: &mut S) {
        if self.started {
            return;
        }
        self.started = true;
        let Some(ctx) = self.context.clone() else { return };
        let id = self.new_id();
        s.event(Event::ElementOpened {
            id,
            name: "html",
            ns: Namespace::Html,
            known: Some(KnownName::from_id(const { names::html("html") })),
            attrs: &[],
            origin: Origin::FragmentRoot,
            position: Position::Append { parent: NodeId::DOCUMENT },
            self_closing: false,
        });
        self.stack.push(OpenElement::of_known(id, const { names::html("html") }, Namespace::Html, NodeId::DOCUMENT));
        if ctx.ns == Namespace::Html && &*ctx.name == "template" {
            self.template_modes.push(InsertionMode::InTemplate);
        }
        self.reset_insertion_mode();
        if ctx.ns == Namespace::Html && &*ctx.name == "form" {
            self.form = Some(CONTEXT_ID);
        }
    }

    pub(crate) fn new_id(&mut self) -> NodeId {
        let id = NodeId(self.next_id);
        self.next_id += 1;
        id
    }

    /// The cause of a closing implied by the current token ([`CloseCause::Eof`] at the end of input).
    pub(crate) fn implied(&self) -> CloseCause {
        if self.at_eof { CloseCause::Eof } else { CloseCause::Implied { by: self.span } }
    }

    pub(crate) fn ignore<S: EventSink + ?Sized>(&self, s: &mut S, reason: &'static str) {
        s.event(Event::Ignored { reason, span: self.span });
    }

    // ----- the stack -----

    /// Pops the current node.
    pub(crate) fn pop<S: EventSink + ?Sized>(&mut self, s: &mut S, cause: CloseCause) {
        self.pop_inlined(s, cause);
    }

    /// [`Builder::pop`] in line, for the fast path's end tag (most pops).
    #[inline(always)]
    pub(crate) fn pop_inlined<S: EventSink + ?Sized>(&mut self, s: &mut S, cause: CloseCause) {
        if let Some(e) = self.stack.pop() {
            s.event(Event::ElementClosed { id: e.id, cause });
            if e.ns == Namespace::Html && !self.selects.is_empty() {
                self.popped_in_select(s, &e);
                if e.is_known(const { names::html("select") }) && self.selects.last().is_some_and(|st| st.id == e.id) {
                    self.selects.pop();
                }
            }
        }
    }

    /// The state of the nearest open `select`, dropping those no longer open.
    fn nearest_select(&mut self) -> Option<&mut SelectState> {
        let top = self.stack.topmost(Namespace::Html, "select").map(|i| self.stack.get(i).id);
        while self.selects.last().is_some_and(|st| self.stack.position(st.id).is_none()) {
            self.selects.pop();
        }
        let top = top?;
        self.selects.iter_mut().rev().find(|st| st.id == top)
    }

    /// Selectedness bookkeeping when an element is inserted (customizable `<select>`).
    fn inserted_in_select(&mut self, name: &str, id: NodeId, attrs: &[ShadowAttr]) {
        match name {
            "select" => {
                self.nearest_select();
                self.selects.push(SelectState {
                    id,
                    multiple: attrs.iter().any(|a| a.name == "multiple"),
                    selectedcontent: None,
                    selected: None,
                });
            }
            "selectedcontent" => {
                if let Some(st) = self.nearest_select() {
                    st.selectedcontent.get_or_insert(id);
                }
            }
            "option" => {
                let selected = attrs.iter().any(|a| a.name == "selected");
                let disabled = attrs.iter().any(|a| a.name == "disabled");
                if let Some(st) = self.nearest_select()
                    && (selected || (st.selected.is_none() && !disabled))
                {
                    st.selected = Some(id);
                }
            }
            _ => {}
        }
    }

    /// spec: "maybe clone an option into selectedcontent" when an option is popped.
    fn popped_in_select<S: EventSink + ?Sized>(&mut self, s: &mut S, e: &OpenElement) {
        if !e.is_known(const { names::html("option") }) {
            return;
        }
        if let Some(st) = self.nearest_select()
            && let (false, Some(sc), Some(sel)) = (st.multiple, st.selectedcontent, st.selected)
            && sel == e.id
        {
            s.event(Event::SelectedContentCloned { option: e.id, selectedcontent: sc });
        }
    }

    /// Pops elements until the one at position `i` has been popped; it gets
    /// `cause`, the ones above it are implied closings.
    pub(crate) fn pop_to<S: EventSink + ?Sized>(&mut self, s: &mut S, i: usize, cause: CloseCause) {
        while self.stack.end() > i + 1 {
            let c = self.implied();
            self.pop(s, c);
        }
        if self.stack.end() == i + 1 {
            self.pop(s, cause);
        }
    }

    /// Pops until an HTML element named `name` has been popped (no-op if none is open).
    pub(crate) fn pop_until_html<S: EventSink + ?Sized>(&mut self, s: &mut S, name: &str, cause: CloseCause) {
        // The current node is the topmost of its name: popped alone.
        if self.stack.current_is(name) {
            return self.pop(s, cause);
        }
        if let Some(i) = self.stack.topmost(Namespace::Html, name) {
            self.pop_to(s, i, cause);
        }
    }

    /// Pops until one of the HTML elements `names` has been popped.
    pub(crate) fn pop_until_html_of<S: EventSink + ?Sized>(&mut self, s: &mut S, names: &[&str], cause: CloseCause) {
        if let Some(i) = self.stack.topmost_html_of(names) {
            self.pop_to(s, i, cause);
        }
    }

    pub(crate) fn current_is(&self, name: &str) -> bool {
        self.stack.current_is(name)
    }

    /// The [adjusted current node](https://html.spec.whatwg.org/multipage/parsing.html#adjusted-current-node):
    /// `(namespace, name, categories)`.
    pub(crate) fn adjusted_current_node(&self) -> Option<(Namespace, &str, u16)> {
        if let Some(c) = self.adjusted_context() {
            return Some((c.ns, &c.name, c.cats));
        }
        self.stack.current().map(|e| (e.ns, self.stack.name(e), e.cats))
    }

    /// The fragment's context element when it is the adjusted current node:
    /// in the fragment case, with only the root element open.
    #[inline(always)]
    fn adjusted_context(&self) -> Option<&Context> {
        if self.stack.live_len() == 1 { self.context.as_ref() } else { None }
    }

    /// The namespace and categories of the
    /// [adjusted current node](https://html.spec.whatwg.org/multipage/parsing.html#adjusted-current-node),
    /// without its name ([`Builder::adjusted_current_node`]): what the
    /// dispatcher reads for every token (and [`Shadow::cdata_allowed`](crate::Shadow::cdata_allowed)
    /// at `<![CDATA[`). Always in line: a call of its own per text token
    /// cost ten instructions.
    #[inline(always)]
    pub(crate) fn adjusted_current_kind(&self) -> Option<(Namespace, u16)> {
        if let Some(c) = self.adjusted_context() {
            return Some((c.ns, c.cats));
        }
        self.stack.current().map(|e| (e.ns, e.cats))
    }

    /// [Has an element in scope](https://html.spec.whatwg.org/multipage/parsing.html#has-an-element-in-scope)
    /// (HTML element `name`), O(1).
    pub(crate) fn has_element_in_scope(&self, name: &str) -> bool {
        self.stack.has_in_scope_of(&[name], cat::SCOPE)
    }

    /// [Has an element in button scope](https://html.spec.whatwg.org/multipage/parsing.html#has-an-element-in-button-scope), O(1).
    pub(crate) fn has_element_in_button_scope(&self, name: &str) -> bool {
        self.stack.has_in_scope_of(&[name], cat::BUTTON_SCOPE)
    }

    /// [Has an element in list item scope](https://html.spec.whatwg.org/multipage/parsing.html#has-an-element-in-list-item-scope), O(1).
    pub(crate) fn has_element_in_list_item_scope(&self, name: &str) -> bool {
        self.stack.has_in_scope_of(&[name], cat::LIST_ITEM_SCOPE)
    }

    /// [Has an element in table scope](https://html.spec.whatwg.org/multipage/parsing.html#has-an-element-in-table-scope), O(1).
    pub(crate) fn has_element_in_table_scope(&self, name: &str) -> bool {
        self.stack.has_in_scope_of(&[name], cat::TABLE_SCOPE)
    }

    // ----- insertion -----

    /// The [appropriate place for inserting a node](https://html.spec.whatwg.org/multipage/parsing.html#appropriate-place-for-inserting-a-node),
    /// optionally with an override target (a stack position).
    #[inline(always)]
    pub(crate) fn appropriate_place(&self, target: Option<usize>) -> Position {
        let Some(t) = target.or(self.stack.end().checked_sub(1)) else {
            return Position::Append { parent: NodeId::DOCUMENT };
        };
        let node = self.stack.get(t);
        if self.foster_parenting
            && node.ns == Namespace::Html
            && matches!(self.stack.name(node), "table" | "tbody" | "tfoot" | "thead" | "tr")
        {
            let last_template = self.stack.topmost(Namespace::Html, "template");
            let last_table = self.stack.topmost(Namespace::Html, "table");
            if let Some(lt) = last_template
                && last_table.is_none_or(|tb| lt > tb)
            {
                return Position::AppendToTemplateContents { template: self.stack.get(lt).id };
            }
            return match last_table {
                None => Position::Append { parent: self.stack.get(0).id },
                Some(tb) => {
                    let table = self.stack.get(tb);
                    Position::InsertBefore { parent: table.parent, before: table.id }
                }
            };
        }
        if node.is_known(const { names::html("template") }) {
            Position::AppendToTemplateContents { template: node.id }
        } else {
            Position::Append { parent: node.id }
        }
    }

    /// Creates an element, inserts it at `position` and pushes it on the stack.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn insert_at<S: EventSink + ?Sized>(
        &mut self,
        s: &mut S,
        name: &str,
        ns: Namespace,
        attrs: &[ShadowAttr],
        origin: Origin,
        position: Position,
        self_closing: bool,
    ) -> NodeId {
        self.insert_at_known(s, name, names::known(ns, name), ns, attrs, origin, position, self_closing)
    }

    /// [`Builder::insert_at`] given `known`, what `names::known(ns, name)` returns.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn insert_at_known<S: EventSink + ?Sized>(
        &mut self,
        s: &mut S,
        name: &str,
        known: Option<u32>,
        ns: Namespace,
        attrs: &[ShadowAttr],
        origin: Origin,
        position: Position,
        self_closing: bool,
    ) -> NodeId {
        let id = self.new_id();
        // Elements made for the current start tag show its attributes only
        // when the sink wants them; the rules below read them all the same.
        let shown = if self.tag_attrs_shown || !origin.is_from_start_tag() { attrs } else { &[] };
        let known_name = known.map(KnownName::from_id);
        s.event(Event::ElementOpened { id, name, ns, known: known_name, attrs: shown, origin, position, self_closing });
        let annotation_xml_html = ns == Namespace::MathMl
            && name == "annotation-xml"
            && attrs.iter().any(|a| {
                a.name == "encoding"
                    && a.namespace == crate::AttrNamespace::None
                    && (a.value.eq_ignore_ascii_case("text/html")
                        || a.value.eq_ignore_ascii_case("application/xhtml+xml"))
            });
        let parent = position.parent().unwrap_or(NodeId::DOCUMENT);
        self.stack.push_new(id, name, known, ns, parent, annotation_xml_html);
        if ns == Namespace::Html && matches!(name, "select" | "selectedcontent" | "option") {
            self.inserted_in_select(name, id, attrs);
        }
        id
    }

    /// [Insert an HTML element](https://html.spec.whatwg.org/multipage/parsing.html#insert-an-html-element) for a start tag.
    pub(crate) fn insert_html_element<S: EventSink + ?Sized>(&mut self, s: &mut S, tag: &TagToken) -> NodeId {
        self.insert_html_element_with(s, tag, Origin::StartTag { span: tag.span }, false)
    }

    /// [`Builder::insert_html_element`] given `known`, what
    /// `names::known(Namespace::Html, name)` returns for the tag's name: a
    /// known name is read from the table (the in-body fast path leaves
    /// `tag.name` empty for short ones). Always inlined (five callers, the
    /// fast path's among them): where a caller passes `Some(key)` the test on
    /// `known` folds away, and the name, key and categories come from the
    /// table (callgrind, the three lol-html bench pages: text 30.844 → 30.246
    /// instructions a byte, ten selectors 29.426 → 29.062).
    #[inline(always)]
    pub(crate) fn insert_html_element_known<S: EventSink + ?Sized>(
        &mut self,
        s: &mut S,
        tag: &TagToken,
        known: Option<u32>,
    ) -> NodeId {
        let position = self.appropriate_place(None);
        let origin = Origin::StartTag { span: tag.span };
        let name: &str = match known {
            Some(key) => names::name(key),
            None => &tag.name,
        };
        self.insert_at_known(s, name, known, Namespace::Html, &tag.attrs, origin, position, false)
    }

    /// Inserts a void HTML element, pops it at once and acknowledges the self-closing flag.
    pub(crate) fn insert_void_html_element<S: EventSink + ?Sized>(&mut self, s: &mut S, tag: &TagToken) {
        self.insert_void_html_element_known(s, tag, names::known(Namespace::Html, &tag.name));
    }

    /// [`Builder::insert_void_html_element`] given `known`, as for
    /// [`Builder::insert_html_element_known`].
    pub(crate) fn insert_void_html_element_known<S: EventSink + ?Sized>(
        &mut self,
        s: &mut S,
        tag: &TagToken,
        known: Option<u32>,
    ) {
        let position = self.appropriate_place(None);
        let origin = Origin::StartTag { span: tag.span };
        let name: &str = match known {
            Some(key) => names::name(key),
            None => &tag.name,
        };
        self.insert_at_known(s, name, known, Namespace::Html, &tag.attrs, origin, position, tag.self_closing);
        self.pop(s, CloseCause::Immediate { span: tag.span });
    }

    pub(crate) fn insert_html_element_with<S: EventSink + ?Sized>(
        &mut self,
        s: &mut S,
        tag: &TagToken,
        origin: Origin,
        self_closing: bool,
    ) -> NodeId {
        let position = self.appropriate_place(None);
        self.insert_at(s, &tag.name, Namespace::Html, &tag.attrs, origin, position, self_closing)
    }

    /// Inserts an HTML element the Standard implies (no token in the input).
    pub(crate) fn insert_implied<S: EventSink + ?Sized>(&mut self, s: &mut S, name: &str) -> NodeId {
        let position = self.appropriate_place(None);
        self.insert_at(s, name, Namespace::Html, &[], Origin::Implied, position, false)
    }

    /// [Insert a foreign element](https://html.spec.whatwg.org/multipage/parsing.html#insert-a-foreign-element)
    /// (the tag already adjusted).
    pub(crate) fn insert_foreign_element<S: EventSink + ?Sized>(
        &mut self,
        s: &mut S,
        tag: &TagToken,
        ns: Namespace,
    ) -> NodeId {
        let position = self.appropriate_place(None);
        self.insert_at(s, &tag.name, ns, &tag.attrs, Origin::StartTag { span: tag.span }, position, tag.self_closing)
    }

    /// [Insert characters](https://html.spec.whatwg.org/multipage/parsing.html#insert-a-character).
    pub(crate) fn insert_text<S: EventSink + ?Sized>(&mut self, s: &mut S, text: &str) {
        if !text.is_empty() {
            self.insert_characters(s, text);
        }
    }

    /// [`Builder::insert_text`] for characters known to be there (`text`
    /// may be empty when they were not decoded): the event carries `text`
    /// if the sink wants it, else none; no event if the sink takes none.
    #[inline]
    fn insert_characters<S: EventSink + ?Sized>(&mut self, s: &mut S, text: &str) {
        if !self.text_events {
            return;
        }
        let position = self.appropriate_place(None);
        if position == (Position::Append { parent: NodeId::DOCUMENT }) {
            return;
        }
        s.event(Event::Text { position, text: if self.text_shown { text } else { "" } });
    }

    /// A run of character tokens that [`Builder::reads_text_as_classified`]
    /// accepted, without its characters: `non_ws` tells whether it has
    /// any that are not whitespace (asked only while frameset-ok is "ok").
    /// Does what the insertion mode does with the decoded text (the
    /// dispatcher's steps, then [`Builder::text_by_mode`] for one run: in
    /// body, [`Builder::body_text`] without U+0000). Nothing here closes an
    /// element or ignores a token: no event carries the token's span.
    pub(crate) fn dispatch_classified_text<S: EventSink + ?Sized>(&mut self, s: &mut S, non_ws: impl FnOnce() -> bool) {
        match self.mode.text_rules() {
            TextRules::InBody | TextRules::AfterBody => {
                // spec (in body): reconstruct, insert, and frameset-ok is "not ok"
                // after a character that is not whitespace ("after body": whitespace
                // is processed by the rules of "in body").
                self.reconstruct_active_formatting_elements(s);
                self.insert_characters(s, "");
                if self.frameset_ok && non_ws() {
                    self.frameset_ok = false;
                }
            }
            // spec: whitespace is ignored.
            TextRules::WhitespaceIgnored => {}
            _ => self.insert_characters(s, ""),
        }
    }

    /// [Insert a comment](https://html.spec.whatwg.org/multipage/parsing.html#insert-a-comment)
    /// (or a processing instruction) at `position`, or at the appropriate place.
    pub(crate) fn insert_comment<S: EventSink + ?Sized>(
        &mut self,
        s: &mut S,
        c: &crate::token::CommentLike<'_>,
        position: Option<Position>,
    ) {
        let position = position.unwrap_or_else(|| self.appropriate_place(None));
        match *c {
            crate::token::CommentLike::Comment(data) => s.event(Event::Comment { position, data }),
            crate::token::CommentLike::Pi(target, data) => {
                s.event(Event::ProcessingInstruction { position, target, data })
            }
        }
    }

    /// The generic RCDATA / raw text element parsing algorithm.
    pub(crate) fn generic_text_element<S: EventSink + ?Sized>(&mut self, s: &mut S, tag: &TagToken, mode: TextMode) {
        self.insert_html_element(s, tag);
        self.text_mode = Some(mode);
        self.original_mode = self.mode;
        self.mode = InsertionMode::Text;
    }

    // ----- algorithms -----

    /// [Generate implied end tags](https://html.spec.whatwg.org/multipage/parsing.html#generate-implied-end-tags),
    /// except for HTML elements named `except`.
    pub(crate) fn generate_implied_end_tags<S: EventSink + ?Sized>(&mut self, s: &mut S, except: Option<&str>) {
        while let Some(e) = self.stack.current() {
            if e.has(cat::IMPLIED_END) && Some(self.stack.name(e)) != except {
                let c = self.implied();
                self.pop(s, c);
            } else {
                break;
            }
        }
    }

    /// [Generate all implied end tags thoroughly](https://html.spec.whatwg.org/multipage/parsing.html#generate-all-implied-end-tags-thoroughly).
    pub(crate) fn generate_all_implied_end_tags_thoroughly<S: EventSink + ?Sized>(&mut self, s: &mut S) {
        while let Some(e) = self.stack.current() {
            if e.has(cat::IMPLIED_END_THOROUGHLY) {
                let c = self.implied();
                self.pop(s, c);
            } else {
                break;
            }
        }
    }

    /// [Close a `p` element](https://html.spec.whatwg.org/multipage/parsing.html#close-a-p-element).
    pub(crate) fn close_p_element<S: EventSink + ?Sized>(&mut self, s: &mut S, cause: CloseCause) {
        self.generate_implied_end_tags(s, Some("p"));
        self.pop_until_html(s, "p", cause);
    }

    /// Closes a `p` element if one is in button scope (the step many start tags begin with).
    pub(crate) fn close_p_if_in_button_scope<S: EventSink + ?Sized>(&mut self, s: &mut S) {
        let p = self.stack.topmost_known(const { names::html("p") });
        if p.is_some_and(|p| self.stack.position_in_scope(p, cat::BUTTON_SCOPE)) {
            let c = self.implied();
            self.close_p_element(s, c);
        }
    }

    /// [Reconstruct the active formatting elements](https://html.spec.whatwg.org/multipage/parsing.html#reconstruct-the-active-formatting-elements).
    #[inline]
    pub(crate) fn reconstruct_active_formatting_elements<S: EventSink + ?Sized>(&mut self, s: &mut S) {
        if self.reconstruction_reopens() {
            self.reconstruct_from(s, self.fmt.len());
        }
    }

    /// Whether reconstructing the active formatting elements would reopen
    /// one: spec, nothing to do when the list is empty or its last entry is a
    /// marker or an element in the stack of open elements (the last entry is
    /// never a tombstone). The element is most often the current node (text
    /// in `<b>…</b>`), found without a search.
    #[inline(always)]
    pub(crate) fn reconstruction_reopens(&self) -> bool {
        let n = self.fmt.len();
        n > 0
            && matches!(self.fmt.get(n - 1), Entry::Element(f)
                if self.stack.current().is_none_or(|c| c.id != f.id) && self.stack.position(f.id).is_none())
    }

    /// The steps of [`Builder::reconstruct_active_formatting_elements`] after
    /// the first: the last of the `n` entries is an element to reopen.
    #[inline(never)]
    fn reconstruct_from<S: EventSink + ?Sized>(&mut self, s: &mut S, n: usize) {
        // `Some(true)`: a marker or an open element; `Some(false)`: an element to reopen; `None`: a tombstone.
        let open = |b: &Builder, i: usize| match b.fmt.get(i) {
            Entry::Marker => Some(true),
            Entry::Element(f) => Some(b.stack.position(f.id).is_some()),
            Entry::Dead(..) => None,
        };
        // spec: "Rewind" while the entry before is neither a marker nor open.
        let mut i = n - 1;
        while i > 0 && open(self, i - 1) != Some(true) {
            i -= 1;
        }
        // spec: "Advance" / "Create".
        for j in i..n {
            let Some(f) = self.fmt.element_decoded(j).cloned() else { continue };
            let position = self.appropriate_place(None);
            let origin = Origin::ReconstructedFormatting { clone_of: f.id };
            let id = self.insert_at(s, f.name(), Namespace::Html, &f.attrs, origin, position, false);
            self.fmt.set_id(j, id);
        }
    }

    /// Pushes the current node (just inserted for `tag`) onto the list of active formatting elements.
    pub(crate) fn push_formatting(&mut self, tag: &TagToken, id: NodeId) {
        // The element is the current node: its name is interned already.
        let current = self.stack.current().expect("just inserted");
        debug_assert_eq!(current.id, id);
        debug_assert!(current.known().is_some(), "formatting elements have known names");
        let mut f = self.fmt.new_element(id, current.key, tag.span);
        if self.tag_attrs_deferred {
            // The tag's buffers go to the entry; kept ones (or new) take their place.
            let mut raw = self.fmt.spare_raw();
            std::mem::swap(&mut raw, &mut self.tag_raw);
            f.raw = Some(raw);
        } else {
            f.attrs = self.fmt.copy_attrs(&tag.attrs);
        }
        self.fmt.push(f);
    }

    /// The [adoption agency algorithm](https://html.spec.whatwg.org/multipage/parsing.html#adoption-agency-algorithm)
    /// for `subject`; returns `false` when the caller must "act as described
    /// in the 'any other end tag' entry".
    pub(crate) fn adoption_agency<S: EventSink + ?Sized>(&mut self, s: &mut S, subject: &str, end_tag: bool) -> bool {
        let by = self.span;
        if let Some(cur) = self.stack.current()
            && self.stack.is_html(cur, subject)
        {
            let cause = if end_tag { CloseCause::EndTag { span: by } } else { CloseCause::AdoptionAgency { by } };
            // The common case, `<b>x</b>`: the current node is the last entry of
            // the list. Then it is the formatting element of step 4.3 (no marker
            // or namesake follows it), open and in scope (steps 4.4, 4.5: nothing
            // is above it), with no furthest block above it: step 4.8 pops it and
            // removes it from the list, and the algorithm returns.
            if self.fmt.last_element_id() == Some(cur.id) {
                self.pop(s, cause);
                self.fmt.kill_last();
                return true;
            }
            // spec step 2.
            if self.fmt.position(cur.id).is_none() {
                self.pop(s, cause);
                return true;
            }
        }
        // spec step 4: the outer loop, at most 8 times.
        for _ in 0..8 {
            let Some(fe_list) = self.fmt.last_named_after_marker(subject) else { return false };
            let fe_id = self.fmt.element(fe_list).expect("element").id;
            let Some(fe_idx) = self.stack.position(fe_id) else {
                self.fmt.kill(fe_list);
                return true;
            };
            if !self.stack.position_in_scope(fe_idx, cat::SCOPE) {
                return true;
            }
            // spec: furthest block: the first special element above the formatting element.
            // `between`: the elements between them, bottom first (all of them are
            // removed or replaced below, so walking them is paid for).
            let mut between = Vec::new();
            let mut fb_idx = None;
            let mut p = self.stack.above(fe_idx);
            while p < self.stack.end() {
                if self.stack.get(p).has(cat::SPECIAL) {
                    fb_idx = Some(p);
                    break;
                }
                between.push(p);
                p = self.stack.above(p);
            }
            let Some(fb_idx) = fb_idx else {
                let cause = if end_tag { CloseCause::EndTag { span: by } } else { CloseCause::AdoptionAgency { by } };
                while self.stack.end() > fe_idx + 1 {
                    let c = self.implied();
                    self.pop(s, c);
                }
                self.pop(s, cause);
                if let Some(p) = self.fmt.position(fe_id) {
                    self.fmt.kill(p);
                }
                return true;
            };
            // A furthest block: the formatting element's token is needed (cloned once per run).
            let fe = self.fmt.element_decoded(fe_list).expect("element").clone();
            let ca_idx = self.stack.below(fe_idx).expect("the formatting element is not the root");
            let fb_id = self.stack.get(fb_idx).id;
            // Bookmark: None = the formatting element's place; Some(id) = just after `id`.
            let mut bookmark: Option<NodeId> = None;
            // Deferred stack edits, by index in `between`: removals and replacements.
            let mut removed = vec![false; between.len()];
            let mut replaced: Vec<Option<OpenElement>> = vec![None; between.len()];
            let mut last_node = fb_id;
            let mut last_node_rel: Option<usize> = None; // index in `between`, None = furthest block
            for (inner, node_rel) in (0..between.len()).rev().enumerate() {
                let inner = inner + 1;
                let node = self.stack.get(between[node_rel]).clone();
                let mut in_list = self.fmt.position(node.id);
                if inner > 3
                    && let Some(p) = in_list
                {
                    self.fmt.kill(p);
                    in_list = None;
                }
                let Some(p) = in_list else {
                    removed[node_rel] = true;
                    s.event(Event::ElementClosed { id: node.id, cause: CloseCause::AdoptionAgency { by } });
                    continue;
                };
                let f = self.fmt.element_decoded(p).expect("element").clone();
                let id = self.new_id();
                let origin = Origin::AdoptionAgencyClone { clone_of: node.id };
                s.event(Event::ElementOpened {
                    id,
                    name: f.name(),
                    ns: Namespace::Html,
                    known: Some(KnownName::from_id(f.key)),
                    attrs: &f.attrs,
                    origin,
                    position: Position::Detached,
                    self_closing: false,
                });
                self.fmt.set_id(p, id);
                s.event(Event::ElementClosed { id: node.id, cause: CloseCause::AdoptionAgency { by } });
                let mut new = OpenElement::of_known(id, f.key, Namespace::Html, NodeId::DOCUMENT);
                if last_node == fb_id {
                    bookmark = Some(id);
                }
                s.event(Event::NodeMoved { id: last_node, to: Position::Append { parent: id } });
                match last_node_rel {
                    None => *self.stack.get_mut_parent(fb_idx) = id,
                    Some(r) => replaced[r].as_mut().expect("replaced").parent = id,
                }
                new.parent = NodeId::DOCUMENT;
                replaced[node_rel] = Some(new);
                last_node = id;
                last_node_rel = Some(node_rel);
            }
            // spec: insert last node at the appropriate place with the common ancestor as override target.
            let to = self.appropriate_place(Some(ca_idx));
            s.event(Event::NodeMoved { id: last_node, to });
            let to_parent = match to {
                Position::InsertBefore { parent, .. } => parent,
                p => p.parent().unwrap_or(NodeId::DOCUMENT),
            };
            match last_node_rel {
                None => *self.stack.get_mut_parent(fb_idx) = to_parent,
                Some(r) => replaced[r].as_mut().expect("replaced").parent = to_parent,
            }
            // spec: a new element for the formatting element's token, taking the furthest block's children.
            let id = self.new_id();
            let origin = Origin::AdoptionAgencyClone { clone_of: fe.id };
            s.event(Event::ElementOpened {
                id,
                name: fe.name(),
                ns: Namespace::Html,
                known: Some(KnownName::from_id(fe.key)),
                attrs: &fe.attrs,
                origin,
                position: Position::Detached,
                self_closing: false,
            });
            s.event(Event::ChildrenMoved { from: fb_id, to: id });
            s.event(Event::NodeMoved { id, to: Position::Append { parent: fb_id } });
            // spec: the list: remove the formatting element, insert the new one at the bookmark.
            let fe_pos = self.fmt.position(fe.id).expect("formatting element in list");
            match bookmark {
                // The new element takes the formatting element's place: same token, new id.
                None => self.fmt.set_id(fe_pos, id),
                Some(b) => {
                    // Killing first leaves a tombstone the insertion can take
                    // when the formatting element follows the bookmark.
                    self.fmt.kill(fe_pos);
                    let at = self.fmt.position(b).expect("bookmark in list") + 1;
                    let mut new = self.fmt.new_element(id, fe.key, fe.span);
                    new.attrs = fe.attrs.clone();
                    self.fmt.insert_at(at, Entry::Element(new));
                }
            }
            // spec: the stack: remove the formatting element, insert the new one just
            // below the furthest block. The segment fe..=fb is rewritten in place
            // (removed elements leave holes); positions above it do not move.
            s.event(Event::ElementClosed { id: fe.id, cause: CloseCause::AdoptionAgency { by } });
            let mut segment = Vec::with_capacity(between.len() + 2);
            for (r, &p) in between.iter().enumerate() {
                if removed[r] {
                    continue;
                }
                match replaced[r].take() {
                    Some(new) => segment.push(new),
                    None => segment.push(self.stack.get(p).clone()),
                }
            }
            segment.push(self.stack.get(fb_idx).clone());
            segment.push(OpenElement::of_known(id, fe.key, Namespace::Html, fb_id));
            self.stack.rewrite_segment(fe_idx, fb_idx, segment);
        }
        true
    }

    /// [Reset the insertion mode appropriately](https://html.spec.whatwg.org/multipage/parsing.html#reset-the-insertion-mode-appropriately)
    /// (no `select` step since the 2025 relaxed `<select>` parsing).
    pub(crate) fn reset_insertion_mode(&mut self) {
        use InsertionMode as M;
        // The walk from the current node down stops only at the elements of
        // `cat::RESET` (or at the bottom): jump to the topmost of them.
        let i = self.stack.topmost_cat(cat::RESET).unwrap_or(0);
        let last = i == 0;
        let (ns, name) = match (&self.context, last) {
            (Some(c), true) => (c.ns, &*c.name),
            _ if self.stack.is_empty() => (Namespace::Html, "html"),
            _ => (self.stack.get(i).ns, self.stack.name(self.stack.get(i))),
        };
        let m = if ns != Namespace::Html {
            None
        } else {
            match name {
                "td" | "th" if !last => Some(M::InCell),
                "tr" => Some(M::InRow),
                "tbody" | "thead" | "tfoot" => Some(M::InTableBody),
                "caption" => Some(M::InCaption),
                "colgroup" => Some(M::InColumnGroup),
                "table" => Some(M::InTable),
                "template" => Some(*self.template_modes.last().unwrap_or(&M::InTemplate)),
                "head" if !last => Some(M::InHead),
                "body" => Some(M::InBody),
                "frameset" => Some(M::InFrameset),
                "html" => Some(if self.head.is_none() { M::BeforeHead } else { M::AfterHead }),
                _ => None,
            }
        };
        self.mode = m.unwrap_or(M::InBody);
    }

    /// [Stop parsing](https://html.spec.whatwg.org/multipage/parsing.html#stop-parsing): pops everything.
    pub(crate) fn stop_parsing<S: EventSink + ?Sized>(&mut self, s: &mut S) {
        while !self.stack.is_empty() {
            self.pop(s, CloseCause::Eof);
        }
        self.stopped = true;
    }
}
