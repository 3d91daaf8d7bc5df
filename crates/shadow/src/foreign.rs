//! The [rules for parsing tokens in foreign content](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-inforeign)
//! (SVG and MathML).

use crate::builder::Builder;
use crate::tags::{self, cat};
use crate::token::{TagToken, Tok};
use crate::{CloseCause, EventSink, Namespace};

/// Start tags that break out of foreign content.
fn is_breakout(t: &TagToken) -> bool {
    match &*t.name {
        "b" | "big" | "blockquote" | "body" | "br" | "center" | "code" | "dd" | "div" | "dl" | "dt" | "em"
        | "embed" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "head" | "hr" | "i" | "img" | "li" | "listing"
        | "menu" | "meta" | "nobr" | "ol" | "p" | "pre" | "ruby" | "s" | "small" | "span" | "strong" | "strike"
        | "sub" | "sup" | "table" | "tt" | "u" | "ul" | "var" => true,
        "font" => t.attrs.iter().any(|a| matches!(&*a.name, "color" | "face" | "size")),
        _ => false,
    }
}

impl Builder {
    /// Characters in foreign content: U+0000 → U+FFFD.
    pub(crate) fn foreign_text<S: EventSink + ?Sized>(&mut self, text: &str, s: &mut S) -> usize {
        for (k, seg) in text.split('\0').enumerate() {
            if k > 0 {
                self.insert_text(s, "\u{FFFD}");
            }
            if seg.is_empty() {
                continue;
            }
            self.insert_text(s, seg);
            if tags::ws_prefix_len(seg) < seg.len() {
                self.frameset_ok = false;
            }
        }
        text.len()
    }

    pub(crate) fn foreign<S: EventSink + ?Sized>(&mut self, tok: Tok<'_>, s: &mut S) {
        match tok {
            Tok::Comment(c) => self.insert_comment(s, &c, None),
            Tok::Doctype(_) => self.ignore(s, "doctype in foreign content"),
            Tok::Start(t) if is_breakout(t) => self.breakout(tok, s),
            Tok::End(t) if matches!(&*t.name, "br" | "p") => self.breakout(tok, s),
            Tok::Start(t) => {
                let Some((ns, _)) = self.adjusted_current_kind() else { return };
                // Adjusted in the kept copy: no allocation per foreign element.
                let mut copy = std::mem::take(&mut self.foreign_tag);
                copy.copy_keeping(t, &mut self.foreign_spare);
                if ns == Namespace::Svg
                    && let Some(n) = tags::adjust_svg_tag_name(&copy.name)
                {
                    copy.name.clear();
                    copy.name.push_str(n);
                }
                tags::adjust_attrs(ns, &mut copy.attrs);
                self.insert_foreign_element(s, &copy, ns);
                if copy.self_closing {
                    self.pop(s, CloseCause::Immediate { span: copy.span });
                }
                self.foreign_tag = copy;
            }
            Tok::End(t) => {
                if t.name == "script"
                    && self.stack.current().is_some_and(|e| e.ns == Namespace::Svg && self.stack.name(e) == "script")
                {
                    self.pop(s, CloseCause::EndTag { span: t.span });
                    return;
                }
                self.foreign_end_tag(t, s);
            }
            Tok::Eof => self.by_mode(self.mode, tok, s),
        }
    }

    /// spec: breakout: pop until a MathML text integration point, an HTML
    /// integration point or an HTML element is current; reprocess in HTML content.
    fn breakout<S: EventSink + ?Sized>(&mut self, tok: Tok<'_>, s: &mut S) {
        while let Some(e) = self.stack.current() {
            if e.has(cat::HTML | cat::MATHML_TEXT_INTEGRATION_POINT | cat::HTML_INTEGRATION_POINT) {
                break;
            }
            let c = self.implied();
            self.pop(s, c);
        }
        self.by_mode(self.mode, tok, s);
    }

    /// "Any other end tag" in foreign content: close the nearest foreign
    /// element of that (lowercased) name above the topmost HTML element, else
    /// hand the token to the insertion mode. O(1) with the stack's indexes.
    fn foreign_end_tag<S: EventSink + ?Sized>(&mut self, t: &TagToken, s: &mut S) {
        if self.stack.live_len() <= 1 {
            return self.ignore(s, "end tag at the root");
        }
        let html = self.stack.topmost_cat(cat::HTML);
        let found = [Namespace::Svg, Namespace::MathMl].iter().filter_map(|&ns| self.stack.topmost(ns, &t.name)).max();
        match found {
            Some(i) if html.is_none_or(|h| i > h) => {
                if i == 0 {
                    return self.ignore(s, "end tag at the root");
                }
                self.pop_to(s, i, CloseCause::EndTag { span: t.span });
            }
            // spec: the walk reached an HTML element first.
            _ => self.by_mode(self.mode, Tok::End(t), s),
        }
    }
}
