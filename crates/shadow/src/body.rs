//! The ["in body" insertion mode](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-inbody),
//! with the 2025 relaxed `<select>` rules.

use htrewrite_tokenizer::TextMode;

use crate::builder::{Builder, CONTEXT_ID};
use crate::mode::InsertionMode;
use crate::names;
use crate::tags::{self, cat};
use crate::token::{TagToken, Tok};
use crate::{CloseCause, Event, EventSink, Namespace, Origin, ShadowAttr};

pub(crate) const HEADINGS: &[&str] = &["h1", "h2", "h3", "h4", "h5", "h6"];

impl Builder {
    /// Characters in body: U+0000 ignored, the rest inserted after
    /// reconstructing the active formatting elements.
    pub(crate) fn body_text<S: EventSink + ?Sized>(&mut self, s: &mut S, text: &str) {
        // Text without U+0000 (nearly all): one segment, without splitting.
        if self.text_without_nul || !text.as_bytes().contains(&0) {
            return self.body_text_segment(s, text);
        }
        // (no Ignored event for the U+0000 characters: text events have no spans)
        for seg in text.split('\0') {
            self.body_text_segment(s, seg);
        }
    }

    /// Characters in body without U+0000.
    #[inline]
    fn body_text_segment<S: EventSink + ?Sized>(&mut self, s: &mut S, seg: &str) {
        if seg.is_empty() {
            return;
        }
        self.reconstruct_active_formatting_elements(s);
        self.insert_text(s, seg);
        if self.frameset_ok && tags::ws_prefix_len(seg) < seg.len() {
            self.frameset_ok = false;
        }
    }

    fn in_select_fragment(&self) -> bool {
        self.context.as_ref().is_some_and(|c| c.ns == Namespace::Html && &*c.name == "select")
    }

    /// Merges attributes not already present into `html` or `body`.
    fn merge_attrs<S: EventSink + ?Sized>(&mut self, s: &mut S, body: bool, attrs: &[ShadowAttr]) {
        if !self.tag_attrs_shown {
            // The sink does not read them (and nothing else does).
            return;
        }
        let (id, present) = if body {
            match &mut self.body {
                Some((id, names)) => (*id, names),
                None => return,
            }
        } else {
            (self.stack.get(0).id, &mut self.html_attrs)
        };
        let new: Vec<ShadowAttr> = attrs.iter().filter(|a| !present.contains(&a.name)).cloned().collect();
        if new.is_empty() {
            return;
        }
        present.extend(new.iter().map(|a| a.name.clone()));
        s.event(Event::AttributesAdded { id, attrs: &new });
    }

    pub(crate) fn in_body<S: EventSink + ?Sized>(&mut self, tok: Tok<'_>, s: &mut S) {
        match tok {
            Tok::Comment(c) => self.insert_comment(s, &c, None),
            Tok::Doctype(_) => self.ignore(s, "doctype in body"),
            Tok::Start(t) => self.in_body_start(t, s),
            Tok::End(t) => self.in_body_end(t, s),
            Tok::Eof => {
                if !self.template_modes.is_empty() {
                    self.in_template(tok, s);
                } else {
                    self.stop_parsing(s);
                }
            }
        }
    }

    fn in_body_start<S: EventSink + ?Sized>(&mut self, t: &TagToken, s: &mut S) {
        let name = &*t.name;
        match name {
            "html" => {
                if self.stack.contains_html("template") {
                    return self.ignore(s, "<html> in template");
                }
                self.merge_attrs(s, false, &t.attrs);
            }
            "base" | "basefont" | "bgsound" | "link" | "meta" | "noframes" | "script" | "style" | "template"
            | "title" => self.in_head(Tok::Start(t), s),
            "body" => {
                let second = self.stack.above(0);
                let second_is_body =
                    second < self.stack.end() && self.stack.get(second).is_known(const { crate::names::html("body") });
                if !second_is_body || self.stack.contains_html("template") {
                    return self.ignore(s, "<body> in body");
                }
                self.frameset_ok = false;
                if self.body.as_ref().is_some_and(|b| b.0 == self.stack.get(second).id) {
                    self.merge_attrs(s, true, &t.attrs);
                }
            }
            "frameset" => {
                let second = self.stack.above(0);
                let second_is_body =
                    second < self.stack.end() && self.stack.get(second).is_known(const { crate::names::html("body") });
                if !second_is_body || !self.frameset_ok {
                    return self.ignore(s, "<frameset> in body");
                }
                s.event(Event::NodeRemoved { id: self.stack.get(second).id });
                while self.stack.end() > 1 {
                    let c = self.implied();
                    self.pop(s, c);
                }
                self.insert_html_element(s, t);
                self.mode = InsertionMode::InFrameset;
            }
            "address" | "article" | "aside" | "blockquote" | "center" | "details" | "dialog" | "dir" | "div" | "dl"
            | "fieldset" | "figcaption" | "figure" | "footer" | "header" | "hgroup" | "main" | "menu" | "nav"
            | "ol" | "p" | "search" | "section" | "summary" | "ul" => {
                self.close_p_if_in_button_scope(s);
                self.insert_html_element(s, t);
            }
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                self.close_p_if_in_button_scope(s);
                if self
                    .stack
                    .current()
                    .is_some_and(|e| e.ns == Namespace::Html && HEADINGS.contains(&self.stack.name(e)))
                {
                    let c = self.implied();
                    self.pop(s, c);
                }
                self.insert_html_element(s, t);
            }
            "pre" | "listing" => {
                self.close_p_if_in_button_scope(s);
                self.insert_html_element(s, t);
                self.skip_newline = true;
                self.frameset_ok = false;
            }
            "form" => {
                let template = self.stack.contains_html("template");
                if self.form.is_some() && !template {
                    return self.ignore(s, "nested form");
                }
                self.close_p_if_in_button_scope(s);
                let id = self.insert_html_element(s, t);
                if !template {
                    self.form = Some(id);
                }
            }
            "li" | "dd" | "dt" => {
                let key = names::known(Namespace::Html, &t.name).expect("li, dd and dt are known names");
                self.in_body_list_item_start(t, key, s)
            }
            "plaintext" => {
                self.close_p_if_in_button_scope(s);
                self.insert_html_element(s, t);
                self.text_mode = Some(TextMode::Plaintext);
            }
            "button" => {
                if self.has_element_in_scope("button") {
                    self.generate_implied_end_tags(s, None);
                    let c = self.implied();
                    self.pop_until_html(s, "button", c);
                }
                self.reconstruct_active_formatting_elements(s);
                self.insert_html_element(s, t);
                self.frameset_ok = false;
            }
            "a" => {
                if let Some(i) = self.fmt.last_keyed_after_marker(const { names::html("a") }) {
                    let id = self.fmt.element(i).expect("element").id;
                    if !self.adoption_agency(s, "a", false) {
                        let c = self.implied();
                        self.any_other_end_tag_named("a", c, s);
                    }
                    if let Some(p) = self.fmt.position(id) {
                        self.fmt.kill(p);
                    }
                    if let Some(p) = self.stack.position(id) {
                        let e = self.stack.remove_at(p);
                        s.event(Event::ElementClosed { id: e.id, cause: CloseCause::AdoptionAgency { by: self.span } });
                    }
                }
                self.reconstruct_active_formatting_elements(s);
                let id = self.insert_html_element(s, t);
                self.push_formatting(t, id);
            }
            "b" | "big" | "code" | "em" | "font" | "i" | "s" | "small" | "strike" | "strong" | "tt" | "u" => {
                self.reconstruct_active_formatting_elements(s);
                let id = self.insert_html_element(s, t);
                self.push_formatting(t, id);
            }
            "nobr" => {
                self.reconstruct_active_formatting_elements(s);
                if self.has_element_in_scope("nobr") {
                    // spec: the adoption agency's step 4.3 ("act as any other end tag") applies here too.
                    if !self.adoption_agency(s, "nobr", false) {
                        let c = self.implied();
                        self.any_other_end_tag_named("nobr", c, s);
                    }
                    self.reconstruct_active_formatting_elements(s);
                }
                let id = self.insert_html_element(s, t);
                self.push_formatting(t, id);
            }
            "applet" | "marquee" | "object" => {
                self.reconstruct_active_formatting_elements(s);
                self.insert_html_element(s, t);
                self.fmt.push_marker();
                self.frameset_ok = false;
            }
            "table" => {
                if self.quirks != crate::QuirksMode::Quirks {
                    self.close_p_if_in_button_scope(s);
                }
                self.insert_html_element(s, t);
                self.frameset_ok = false;
                self.mode = InsertionMode::InTable;
            }
            "area" | "br" | "embed" | "img" | "keygen" | "wbr" => {
                self.reconstruct_active_formatting_elements(s);
                self.insert_void_html_element(s, t);
                self.frameset_ok = false;
            }
            "input" => {
                // spec (2025): input in a select fragment is ignored; an open select is closed first.
                if self.in_select_fragment() {
                    return self.ignore(s, "<input> in a select fragment");
                }
                if self.has_element_in_scope("select") {
                    let c = self.implied();
                    self.pop_until_html(s, "select", c);
                }
                self.reconstruct_active_formatting_elements(s);
                self.insert_void_html_element(s, t);
                if !t.attr("type").is_some_and(|v| v.eq_ignore_ascii_case("hidden")) {
                    self.frameset_ok = false;
                }
            }
            "param" | "source" | "track" => self.insert_void_html_element(s, t),
            "hr" => {
                self.close_p_if_in_button_scope(s);
                if self.has_element_in_scope("select") {
                    self.generate_implied_end_tags(s, None);
                }
                self.insert_void_html_element(s, t);
                self.frameset_ok = false;
            }
            "image" => {
                let img = TagToken { name: "img".into(), ..t.clone() };
                self.in_body_start(&img, s);
            }
            "textarea" => {
                self.insert_html_element(s, t);
                self.skip_newline = true;
                self.text_mode = Some(TextMode::Rcdata);
                self.original_mode = self.mode;
                self.frameset_ok = false;
                self.mode = InsertionMode::Text;
            }
            "xmp" => {
                self.close_p_if_in_button_scope(s);
                self.reconstruct_active_formatting_elements(s);
                self.frameset_ok = false;
                self.generic_text_element(s, t, TextMode::Rawtext);
            }
            "iframe" => {
                self.frameset_ok = false;
                self.generic_text_element(s, t, TextMode::Rawtext);
            }
            "noembed" => self.generic_text_element(s, t, TextMode::Rawtext),
            "noscript" if self.scripting => self.generic_text_element(s, t, TextMode::Rawtext),
            "select" => {
                if self.in_select_fragment() {
                    return self.ignore(s, "<select> in a select fragment");
                }
                if self.has_element_in_scope("select") {
                    self.ignore(s, "nested <select>");
                    let c = self.implied();
                    self.pop_until_html(s, "select", c);
                    return;
                }
                self.reconstruct_active_formatting_elements(s);
                self.insert_html_element(s, t);
                self.frameset_ok = false;
            }
            "option" => {
                if self.has_element_in_scope("select") {
                    self.generate_implied_end_tags(s, Some("optgroup"));
                } else if self.current_is("option") {
                    let c = self.implied();
                    self.pop(s, c);
                }
                self.reconstruct_active_formatting_elements(s);
                self.insert_html_element(s, t);
            }
            "optgroup" => {
                if self.has_element_in_scope("select") {
                    self.generate_implied_end_tags(s, None);
                } else if self.current_is("option") {
                    let c = self.implied();
                    self.pop(s, c);
                }
                self.reconstruct_active_formatting_elements(s);
                self.insert_html_element(s, t);
            }
            "rb" | "rtc" => {
                if self.has_element_in_scope("ruby") {
                    self.generate_implied_end_tags(s, None);
                }
                self.insert_html_element(s, t);
            }
            "rp" | "rt" => {
                if self.has_element_in_scope("ruby") {
                    self.generate_implied_end_tags(s, Some("rtc"));
                }
                self.insert_html_element(s, t);
            }
            "math" | "svg" => {
                self.reconstruct_active_formatting_elements(s);
                let ns = if name == "math" { Namespace::MathMl } else { Namespace::Svg };
                let mut copy = std::mem::take(&mut self.foreign_tag);
                copy.copy_keeping(t, &mut self.foreign_spare);
                tags::adjust_attrs(ns, &mut copy.attrs);
                self.insert_foreign_element(s, &copy, ns);
                if copy.self_closing {
                    self.pop(s, CloseCause::Immediate { span: copy.span });
                }
                self.foreign_tag = copy;
            }
            "caption" | "col" | "colgroup" | "frame" | "head" | "tbody" | "td" | "tfoot" | "th" | "thead" | "tr" => {
                self.ignore(s, "table or frame start tag in body")
            }
            _ => {
                self.reconstruct_active_formatting_elements(s);
                self.insert_html_element(s, t);
            }
        }
    }

    fn in_body_end<S: EventSink + ?Sized>(&mut self, t: &TagToken, s: &mut S) {
        let name = &*t.name;
        let end = CloseCause::EndTag { span: t.span };
        match name {
            "template" => self.in_head(Tok::End(t), s),
            "body" | "html" => {
                if !self.has_element_in_scope("body") {
                    return self.ignore(s, "no body in scope");
                }
                self.mode = InsertionMode::AfterBody;
                if name == "html" {
                    self.by_mode(self.mode, Tok::End(t), s);
                }
            }
            "address" | "article" | "aside" | "blockquote" | "button" | "center" | "details" | "dialog" | "dir"
            | "div" | "dl" | "fieldset" | "figcaption" | "figure" | "footer" | "header" | "hgroup" | "listing"
            | "main" | "menu" | "nav" | "ol" | "pre" | "search" | "section" | "select" | "summary" | "ul" => {
                if self.close_current_named(name, end, s) {
                    return;
                }
                if !self.has_element_in_scope(name) {
                    return self.ignore(s, "end tag not in scope");
                }
                self.generate_implied_end_tags(s, None);
                self.pop_until_html(s, name, end);
            }
            "form" => {
                if !self.stack.contains_html("template") {
                    let node = self.form.take();
                    let Some(node) = node else { return self.ignore(s, "no form") };
                    let Some(i) = self.stack.position(node) else { return self.ignore(s, "form not open") };
                    if node == CONTEXT_ID || !self.stack.position_in_scope(i, cat::SCOPE) {
                        return self.ignore(s, "form not in scope");
                    }
                    self.generate_implied_end_tags(s, None);
                    let i = self.stack.position(node).expect("still open");
                    let e = self.stack.remove_at(i);
                    s.event(Event::ElementClosed { id: e.id, cause: end });
                } else {
                    if !self.has_element_in_scope("form") {
                        return self.ignore(s, "form not in scope");
                    }
                    self.generate_implied_end_tags(s, None);
                    self.pop_until_html(s, "form", end);
                }
            }
            "p" => {
                if self.close_current_named(name, end, s) {
                    return;
                }
                if !self.has_element_in_button_scope("p") {
                    let p = TagToken { name: "p".into(), attrs: Vec::new(), self_closing: false, span: t.span };
                    self.insert_html_element_with(s, &p, Origin::Implied, false);
                    self.pop(s, CloseCause::Immediate { span: t.span });
                    return;
                }
                self.close_p_element(s, end);
            }
            "li" => {
                if self.close_current_named(name, end, s) {
                    return;
                }
                if !self.has_element_in_list_item_scope("li") {
                    return self.ignore(s, "no li in scope");
                }
                self.generate_implied_end_tags(s, Some("li"));
                self.pop_until_html(s, "li", end);
            }
            "dd" | "dt" => {
                if self.close_current_named(name, end, s) {
                    return;
                }
                if !self.has_element_in_scope(name) {
                    return self.ignore(s, "end tag not in scope");
                }
                self.generate_implied_end_tags(s, Some(name));
                self.pop_until_html(s, name, end);
            }
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                if !self.stack.has_in_scope_of(HEADINGS, cat::SCOPE) {
                    return self.ignore(s, "no heading in scope");
                }
                self.generate_implied_end_tags(s, None);
                self.pop_until_html_of(s, HEADINGS, end);
            }
            "a" | "b" | "big" | "code" | "em" | "font" | "i" | "nobr" | "s" | "small" | "strike" | "strong" | "tt"
            | "u" => {
                if !self.adoption_agency(s, name, true) {
                    self.any_other_end_tag(t, s);
                }
            }
            "applet" | "marquee" | "object" => {
                if !self.has_element_in_scope(name) {
                    return self.ignore(s, "end tag not in scope");
                }
                self.generate_implied_end_tags(s, None);
                self.pop_until_html(s, name, end);
                self.fmt.clear_to_last_marker();
            }
            "br" => {
                let br = TagToken { name: "br".into(), attrs: Vec::new(), self_closing: false, span: t.span };
                self.reconstruct_active_formatting_elements(s);
                self.insert_html_element_with(s, &br, Origin::Implied, false);
                self.pop(s, CloseCause::Immediate { span: t.span });
                self.frameset_ok = false;
            }
            _ => self.any_other_end_tag(t, s),
        }
    }

    /// "A start tag whose tag name is "li"" and "one of: "dd", "dt"" in body:
    /// close the open list item of the same kind unless a special element
    /// (other than `address`, `div`, `p`) lies above it, close a `p` element
    /// in button scope, insert an HTML element. The fast path (`fast.rs`)
    /// calls it too.
    pub(crate) fn in_body_list_item_start<S: EventSink + ?Sized>(&mut self, t: &TagToken, key: u32, s: &mut S) {
        const LI: u32 = names::html("li");
        const DD_DT: [u32; 2] = [names::html("dd"), names::html("dt")];
        self.frameset_ok = false;
        // spec: the loop from the current node down to the first special element
        // other than address, div and p, looking for li (or dd/dt).
        debug_assert!(key == LI || DD_DT.contains(&key), "{:?}", names::name(key));
        let targets: &[u32] = if key == LI { &[LI] } else { &DD_DT };
        if self.stack.current().is_some_and(|c| targets.contains(&c.key)) {
            // The loop's first node is a target (`<li>a<li>b`, the common
            // case): generating implied end tags except for it pops nothing
            // (it is the current node), and popping until it pops just it.
            // (Known ids say the namespace: `c.key` is an HTML element's.)
            let c = self.implied();
            self.pop(s, c);
        } else if let Some(i) = targets.iter().filter_map(|&k| self.stack.topmost_known(k)).max()
            && self.stack.topmost_cat(cat::SPECIAL_NOT_ADP).is_none_or(|st| i >= st)
        {
            // The name as a static string (no copy): it is one of the targets
            // (HTML elements: known ids are per namespace).
            let which = names::name(self.stack.get(i).key);
            self.generate_implied_end_tags(s, Some(which));
            // Popping until `which` is popped: it is still at `i` (the topmost
            // of its name; generating implied end tags stops at it).
            let c = self.implied();
            self.pop_to(s, i, c);
        }
        self.close_p_if_in_button_scope(s);
        self.insert_html_element_known(s, t, Some(key));
    }

    /// The common case of the end tags that close an element in scope (`</div>`,
    /// `</p>`, `</li>`, `</dd>`, …): the current node is the HTML element
    /// `name`. It is in every scope (the walk down the stack starts at it);
    /// generating implied end tags (except for `name`) pops nothing, since it
    /// is `name` or, for the block elements, not an element with an implied
    /// end tag; and popping until `name` pops just it. Returns whether it did.
    fn close_current_named<S: EventSink + ?Sized>(&mut self, name: &str, cause: CloseCause, s: &mut S) -> bool {
        if !self.current_is(name) {
            return false;
        }
        self.pop(s, cause);
        true
    }

    /// "Any other end tag" in body: close the topmost element of that name
    /// unless a special element lies above it. O(1) with the stack's indexes.
    pub(crate) fn any_other_end_tag<S: EventSink + ?Sized>(&mut self, t: &TagToken, s: &mut S) {
        self.any_other_end_tag_named(&t.name, CloseCause::EndTag { span: t.span }, s);
    }

    fn any_other_end_tag_named<S: EventSink + ?Sized>(&mut self, name: &str, cause: CloseCause, s: &mut S) {
        // The common case: the current node is the HTML element `name`. The
        // spec's loop stops at it at once (step 2.1): generating implied end
        // tags except for `name` pops nothing (the current node is `name`),
        // and popping up to and including it pops just it.
        if self.close_current_named(name, cause, s) {
            return;
        }
        let found = self.stack.topmost(Namespace::Html, name);
        let special = self.stack.topmost_cat(cat::SPECIAL);
        match found {
            Some(i) if special.is_none_or(|sp| i >= sp) => {
                self.generate_implied_end_tags(s, Some(name));
                let i = self.stack.topmost(Namespace::Html, name).unwrap_or(i);
                self.pop_to(s, i, cause);
            }
            _ => self.ignore(s, "end tag without open element"),
        }
    }
}
