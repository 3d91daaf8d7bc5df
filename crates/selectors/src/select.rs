//! [`select`]: the whole pipeline (tokenizer → shadow → matcher) on a string.

use std::sync::Arc;

use htrewrite_shadow::{Event, EventSink, Namespace, NodeId, Origin, Position, Shadow, ShadowOptions, ShadowSink};
use htrewrite_tokenizer::{Span, Tokenizer};

use crate::{Matcher, Namespaces, Program, SelectorError};

/// The elements of a document that a selector matches.
///
/// # Example
/// ```
/// let sel = htrewrite_selectors::select("<table><td>x</table>", "tr, td")?;
/// assert_eq!(sel.start_tags.len(), 1); // <td>
/// assert_eq!(sel.without_start_tag[0].name, "tr"); // implied by the Standard
/// # Ok::<(), htrewrite_selectors::SelectorError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// The spans of the start tags of the matched elements, in document order.
    pub start_tags: Vec<Span>,
    /// Matched elements that the parser made without a start tag of their
    /// own (implied, reconstructed or cloned), in the order they were placed.
    pub without_start_tag: Vec<ElementWithoutStartTag>,
}

/// A matched element made by the parser without a start tag of its own.
///
/// # Example
/// ```
/// let sel = htrewrite_selectors::select("x", "body")?;
/// let body = &sel.without_start_tag[0];
/// assert_eq!((body.name.as_str(), body.origin), ("body", htrewrite_shadow::Origin::Implied));
/// # Ok::<(), htrewrite_selectors::SelectorError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElementWithoutStartTag {
    /// The shadow's id.
    pub id: NodeId,
    /// The local name.
    pub name: String,
    /// The namespace.
    pub ns: Namespace,
    /// How the parser made it.
    pub origin: Origin,
}

/// Parses `html` as a document (the HTML Standard's tree construction,
/// scripting on) and returns the elements that `selector` matches, each
/// matched as it is opened.
///
/// # Errors
/// A [`SelectorError`] when the selector does not parse.
///
/// # Example
/// ```
/// let html = "<p>a<p>b<div><p>c</div>";
/// let sel = htrewrite_selectors::select(html, "body > p + p")?;
/// let tags: Vec<&str> = sel.start_tags.iter().map(|s| &html[s.start as usize..s.end as usize]).collect();
/// assert_eq!(tags, ["<p>"]);
/// assert_eq!(sel.start_tags[0].start, 4);
/// # Ok::<(), htrewrite_selectors::SelectorError>(())
/// ```
pub fn select(html: &str, selector: &str) -> Result<Selection, SelectorError> {
    select_with(html, selector, &Namespaces::default())
}

/// [`select`] with declared [`Namespaces`].
///
/// # Errors
/// A [`SelectorError`] when the selector does not parse or names an
/// undeclared prefix.
///
/// # Example
/// ```
/// use htrewrite_selectors::{select_with, Namespaces};
/// let ns = Namespaces::default().declare("s", "http://www.w3.org/2000/svg");
/// assert_eq!(select_with("<svg><rect/></svg><rect>", "s|rect", &ns)?.start_tags.len(), 1);
/// # Ok::<(), htrewrite_selectors::SelectorError>(())
/// ```
pub fn select_with(html: &str, selector: &str, namespaces: &Namespaces) -> Result<Selection, SelectorError> {
    let program = Arc::new(Program::with_namespaces([selector], namespaces)?);
    Ok(select_program(html, program, true))
}

/// What [`select_with`] does once the selector is compiled: the document's
/// events go to a [`Matcher`]; with `declines`, the shadow is told that
/// text events and the attributes and values the matcher does not read
/// ([`Matcher::reads_attributes_of`], [`Matcher::reads_attribute_values_of`])
/// are not wanted (as the rewriter tells it), else everything is.
pub(crate) fn select_program(html: &str, program: Arc<Program>, declines: bool) -> Selection {
    let sink =
        Selecting { matcher: Matcher::new(program), selection: Selection::default(), detached: Vec::new(), declines };
    let mut sink = ShadowSink::new(Shadow::new(ShadowOptions::default()), sink);
    let mut tokenizer = Tokenizer::new();
    tokenizer.feed(html.as_bytes(), &mut sink);
    tokenizer.finish(&mut sink);
    sink.finish();
    sink.into_parts().1.selection
}

/// The event sink of [`select_program`].
struct Selecting {
    matcher: Matcher,
    selection: Selection,
    /// Detached elements (adoption agency clones) until they are placed.
    detached: Vec<(NodeId, String, Namespace, Origin)>,
    declines: bool,
}

impl EventSink for Selecting {
    fn event(&mut self, e: Event<'_>) {
        if let Event::ElementOpened { id, name, ns, origin, position: Position::Detached, .. } = e {
            self.detached.push((id, name.to_owned(), ns, origin));
        }
        let mut last = None;
        for m in self.matcher.event(&e) {
            if last == Some(m.element) {
                continue;
            }
            last = Some(m.element);
            match e {
                Event::ElementOpened { id, name, ns, origin, .. } if id == m.element => {
                    push(&mut self.selection, id, name, ns, origin)
                }
                _ => {
                    if let Some(i) = self.detached.iter().position(|d| d.0 == m.element) {
                        let (id, name, ns, origin) = self.detached.swap_remove(i);
                        push(&mut self.selection, id, &name, ns, origin);
                    }
                }
            }
        }
        if let Event::ElementClosed { id, .. } = e {
            self.detached.retain(|d| d.0 != id);
        }
    }

    fn wants_text(&self) -> bool {
        !self.declines
    }

    /// The matcher takes no text events.
    fn wants_text_events(&self) -> bool {
        !self.declines
    }

    fn wants_start_tag_attributes(&self, name: &str) -> bool {
        !self.declines || self.matcher.reads_attributes_of(name)
    }

    fn wants_start_tag_attribute_values(&self, name: &str) -> bool {
        !self.declines || self.matcher.reads_attribute_values_of(name)
    }
}

fn push(selection: &mut Selection, id: NodeId, name: &str, ns: Namespace, origin: Origin) {
    match origin {
        Origin::StartTag { span } => selection.start_tags.push(span),
        _ => selection.without_start_tag.push(ElementWithoutStartTag { id, name: name.to_owned(), ns, origin }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Which names' attributes a program reads: the compounds that test
    /// attributes, by their type selectors, all names for one without.
    #[test]
    fn reads_attributes_of_names_the_compounds_that_test_attributes() {
        let cases: &[(&str, &[&str], &[&str])] = &[
            ("div", &[], &["div", "a"]),
            ("a[href]", &["a"], &["div", "link"]),
            ("ul > li.x, link[rel]", &["li", "link"], &["ul", "a"]),
            ("div:not([hidden])", &["div"], &["p"]),
            ("div > b:is(#x, .y)", &["b"], &["div", "i"]),
            ("p:nth-child(2 of span[title])", &["p", "span"], &["div"]),
            ("svg|a[href]", &["a"], &["svg"]),
            ("foreignObject[x]", &["foreignobject"], &["svg"]),
            (":not(a[href])", &["div", "a"], &[]),
            ("*[title]", &["div", "span"], &[]),
            (".x", &["div", "p"], &[]),
        ];
        check_readers(cases, Program::reads_attributes_of, "attributes");
    }

    /// Each case: a selector, the names `reads` must answer `true` for, and
    /// those it must answer `false` for (`what` is read, for messages).
    fn check_readers(cases: &[(&str, &[&str], &[&str])], reads: fn(&Program, &str) -> bool, what: &str) {
        for &(selector, read, unread) in cases {
            let p = Program::new([selector]).expect("selector compiles");
            for name in read {
                assert!(reads(&p, name), "{selector}: reads the {what} of {name}");
            }
            for name in unread {
                assert!(!reads(&p, name), "{selector}: does not read the {what} of {name}");
            }
        }
    }

    /// Which names' attribute values a program reads: the compounds that
    /// test an id, a class or an attribute's value (not only its presence),
    /// by their type selectors, all names for one without.
    #[test]
    fn reads_attribute_values_of_names_the_compounds_that_test_values() {
        let cases: &[(&str, &[&str], &[&str])] = &[
            ("a[href]", &[], &["a", "div"]),
            ("a[href=x]", &["a"], &["div"]),
            ("a[href], link[rel~=icon]", &["link"], &["a"]),
            ("ul > li.x, link[rel]", &["li"], &["ul", "link"]),
            ("div:not([hidden])", &[], &["div"]),
            ("div:not([lang|=en])", &["div"], &["p"]),
            ("div > b:is(#x, [title])", &["b"], &["div", "i"]),
            ("p:nth-child(2 of span[title$=t])", &["p", "span"], &["div"]),
            ("*[title]", &[], &["div", "span"]),
            ("*[title*=t]", &["div", "span"], &[]),
            (".x", &["div", "p"], &[]),
        ];
        check_readers(cases, Program::reads_attribute_values_of, "attribute values");
    }

    /// A sink that declines text and the attributes (and values) the
    /// matcher does not read (as the rewriter's does) gets the same matches as one that
    /// takes everything: on formatting elements that are reconstructed and
    /// cloned by the adoption agency, tables, foreign content and select.
    #[test]
    fn declining_what_the_matcher_does_not_read_keeps_the_matches() {
        let documents = [
            "<p class=x title=t><b id=x class=x>1<i class=x>2</p>3</b>4<a href=h>5<div>6</a>7",
            "<table class=x><tr><td title=t><input type=hidden class=x><b class=x>x<td><i hidden>y</table>",
            "<ul><li class=x>1<li title=t>2<li class=x hidden>3</ul><span title=t>s</span>",
            "<svg><a href=h class=x><foreignObject x=1><p class=x>t</p></foreignObject></a></svg><math><annotation-xml encoding=text/html><div class=x>d</div></annotation-xml></math>",
            "<select class=x><option selected class=x>a<option hidden>b</select><font color=red class=x>f</font>",
            "<html lang=en class=x><body class=x><body title=t><p>\0a\0<pre>\nb</pre>\r\n<textarea class=x>\nt</textarea>",
        ];
        let selectors = [
            ".x",
            "a[href]",
            "p:not([hidden])",
            "li:nth-child(2 of .x)",
            ":is(b[id], i) ~ *",
            "td > [title]",
            "svg|a[href] foreignObject[x] .x",
            "body[title]",
            "b.x i",
            "*[title]",
            "div",
            "i:not(.x)",
            "a[href=h]",
            "b[class]",
            "td[title] > [type]",
            "p:not([class=x])",
            "[title^=t] ~ [class]",
            "li[class] + li[title$=t]",
        ];
        for selector in selectors {
            let program = Arc::new(Program::new([selector]).expect("selector compiles"));
            for html in documents {
                let full = select_program(html, Arc::clone(&program), false);
                let declined = select_program(html, Arc::clone(&program), true);
                assert_eq!(declined, full, "{selector} on {html:?}");
            }
        }
    }
}
