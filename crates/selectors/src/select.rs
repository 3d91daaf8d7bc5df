//! [`select`]: the whole pipeline (tokenizer → shadow → matcher) on a string.

use std::sync::Arc;

use htrewrite_shadow::{Event, Namespace, NodeId, Origin, Position, Shadow, ShadowOptions, ShadowSink};
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
    let mut matcher = Matcher::new(program);
    let mut selection = Selection::default();
    let mut detached: Vec<(NodeId, String, Namespace, Origin)> = Vec::new();
    let events = |e: Event<'_>| {
        if let Event::ElementOpened { id, name, ns, origin, position: Position::Detached, .. } = e {
            detached.push((id, name.to_owned(), ns, origin));
        }
        let mut last = None;
        for m in matcher.event(&e) {
            if last == Some(m.element) {
                continue;
            }
            last = Some(m.element);
            match e {
                Event::ElementOpened { id, name, ns, origin, .. } if id == m.element => {
                    push(&mut selection, id, name, ns, origin)
                }
                _ => {
                    if let Some(i) = detached.iter().position(|d| d.0 == m.element) {
                        let (id, name, ns, origin) = detached.swap_remove(i);
                        push(&mut selection, id, &name, ns, origin);
                    }
                }
            }
        }
        if let Event::ElementClosed { id, .. } = e {
            detached.retain(|d| d.0 != id);
        }
    };
    let mut sink = ShadowSink::new(Shadow::new(ShadowOptions::default()), events);
    let mut tokenizer = Tokenizer::new();
    tokenizer.feed(html.as_bytes(), &mut sink);
    tokenizer.finish(&mut sink);
    sink.finish();
    drop(sink);
    Ok(selection)
}

fn push(selection: &mut Selection, id: NodeId, name: &str, ns: Namespace, origin: Origin) {
    match origin {
        Origin::StartTag { span } => selection.start_tags.push(span),
        _ => selection.without_start_tag.push(ElementWithoutStartTag { id, name: name.to_owned(), ns, origin }),
    }
}
