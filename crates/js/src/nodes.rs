//! What the JavaScript `Element`, `EndTag`, `Text`, `Comment`, `Doctype` and
//! `DocumentEnd` objects do: each method is one operation of [`apply`] on
//! the node its handler call lent, checked against the node's kind.

use std::cell::RefCell;
use std::rc::Rc;

use htrewrite::{Comment, ContentType, Doctype, DocumentEnd, EditError, Element, ElementEnd, Local, TextChunk};
use js_sys::Array;
use wasm_bindgen::JsValue;

use crate::handlers::{self, Shared};
use crate::rewriter::type_error;

/// The kinds of node a handler gets, as `index.js` numbers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `Element`.
    Element = 0,
    /// `EndTag`.
    EndTag = 1,
    /// `Text`.
    Text = 2,
    /// `Comment`.
    Comment = 3,
    /// `Doctype`.
    Doctype = 4,
    /// `DocumentEnd`.
    DocumentEnd = 5,
}

/// The node a handler is called on, as the core lends it for the call.
pub(crate) enum Lent<'n, 'r> {
    /// An element's start.
    Element(&'n mut Element<'r, 'static, Local>),
    /// An element's end, with the name its end tag will have.
    EndTag(&'n mut ElementEnd<'r>, Rc<RefCell<String>>),
    /// A text chunk.
    Text(&'n mut TextChunk<'r>),
    /// A comment.
    Comment(&'n mut Comment<'r>),
    /// The DOCTYPE.
    Doctype(&'n mut Doctype<'r>),
    /// The document end.
    DocumentEnd(&'n mut DocumentEnd<'r>),
}

impl Lent<'_, '_> {
    /// The node's kind.
    pub(crate) fn kind(&self) -> Kind {
        match self {
            Lent::Element(_) => Kind::Element,
            Lent::EndTag(..) => Kind::EndTag,
            Lent::Text(_) => Kind::Text,
            Lent::Comment(_) => Kind::Comment,
            Lent::Doctype(_) => Kind::Doctype,
            Lent::DocumentEnd(_) => Kind::DocumentEnd,
        }
    }
}

numbered! {
    /// The operations of [`apply`], as `index.js` numbers them; `a`, `b`, `c`
    /// are the operation's arguments, in this order.
    enum Op {
        /// Inserts content `b` (HTML when `c`, else text escaped for where it
        /// lands) at place `a` (`Place`), where the node has that place.
        Insert,
        /// Removes the node (an element with its content, an end tag alone);
        /// with `a` on an element, its tags only.
        Remove,
        /// Whether the node was removed (or replaced).
        Removed,
        /// An element's or end tag's name (ASCII-lowercased), a text chunk's or
        /// comment's text.
        NameOrText,
        /// Sets an element's or end tag's name, a comment's text, to `a`.
        SetNameOrText,
        /// Whether a text chunk is the last of its text node.
        LastInTextNode,
        /// An element's namespace URL.
        NamespaceUri,
        /// An element's attributes, in order, as `[name, value]` pairs.
        Attributes,
        /// An element's attribute `a` (ASCII case-insensitive), `undefined` when absent.
        GetAttribute,
        /// Sets an element's attribute `a` to `b`.
        SetAttribute,
        /// Removes an element's attribute `a`.
        RemoveAttribute,
        /// Registers end-tag handler `a` of the dispatcher on an element: it
        /// runs as `dispatch(a, EndTag, op)` when the element ends.
        OnEndTag,
        /// A DOCTYPE's name (`a` = 0), public id (1) or system id (2);
        /// `undefined` when absent.
        Doctype,
        /// Leaves an element's edits for later (its handler returned a
        /// Promise): makes a slot for each place whose bit (`1 << Place`) is
        /// set in `a`, in the order before, replace, inner, prepend, append,
        /// after (inner before prepend and append, which then stay around
        /// it), and returns them per `Place` (an array of six: a slot's
        /// number, `undefined` where none was made). `RawRewriter` fills them.
        Defer,
    }
}

numbered! {
    /// Where [`Op::Insert`] puts content.
    enum Place {
        Before,
        After,
        Prepend,
        Append,
        Replace,
        Inner,
    }
}

fn edit(result: Result<(), EditError>) -> Result<JsValue, JsValue> {
    result.map(|()| JsValue::UNDEFINED).map_err(type_error)
}

fn unsupported(what: &str) -> JsValue {
    type_error(format!("{what} is not supported on this node"))
}

/// A string argument (`index.js` passes `String(…)`).
fn string(v: &JsValue) -> Result<String, JsValue> {
    v.as_string().ok_or_else(|| type_error("expected a string"))
}

/// A small number argument (an index or code from `index.js`).
fn number(v: &JsValue) -> Result<u32, JsValue> {
    match v.as_f64() {
        Some(n) if (0.0..=f64::from(u32::MAX)).contains(&n) && n.fract() == 0.0 => Ok(n as u32),
        _ => Err(type_error("expected an index")),
    }
}

fn owned(s: Option<&str>) -> JsValue {
    s.map_or(JsValue::UNDEFINED, JsValue::from)
}

/// Applies operation `op` with arguments `a`, `b`, `c` to `node`.
///
/// # Errors
/// An unknown operation, an operation the node's kind lacks, or the core's
/// refusal of an edit, as a `TypeError`.
pub(crate) fn apply(
    node: &mut Lent<'_, '_>,
    shared: &Rc<Shared>,
    op: u32,
    a: &JsValue,
    b: &JsValue,
    c: &JsValue,
) -> Result<JsValue, JsValue> {
    let op = Op::from_u32(op).ok_or_else(|| unsupported("this operation"))?;
    match (op, node) {
        (Op::Insert, node) => {
            let place = Place::from_u32(number(a)?).ok_or_else(|| unsupported("this insertion"))?;
            insert(node, place, &string(b)?, if c.is_truthy() { ContentType::Html } else { ContentType::Text })
        }
        (Op::Remove, node) => {
            match node {
                Lent::Element(el) if a.is_truthy() => el.remove_and_keep_content(),
                Lent::Element(el) => el.remove(),
                Lent::EndTag(end, _) => end.remove_end_tag(),
                Lent::Text(t) => t.remove(),
                Lent::Comment(c) => c.remove(),
                Lent::Doctype(_) | Lent::DocumentEnd(_) => return Err(unsupported("remove")),
            }
            Ok(JsValue::UNDEFINED)
        }
        (Op::Removed, Lent::Element(el)) => Ok(el.removed().into()),
        (Op::Removed, Lent::Text(t)) => Ok(t.removed().into()),
        (Op::Removed, Lent::Comment(c)) => Ok(c.removed().into()),
        (Op::NameOrText, Lent::Element(el)) => Ok(el.tag_name().as_ref().into()),
        (Op::NameOrText, Lent::EndTag(_, name)) => Ok(name.borrow().as_str().into()),
        (Op::NameOrText, Lent::Text(t)) => Ok(t.as_str().into()),
        (Op::NameOrText, Lent::Comment(c)) => Ok(c.text().into()),
        (Op::SetNameOrText, Lent::Element(el)) => {
            edit(el.set_tag_name(&string(a)?))?;
            if let Some(name) = shared.end_names.borrow().get(&el.id()) {
                *name.borrow_mut() = el.tag_name().into_owned();
            }
            Ok(JsValue::UNDEFINED)
        }
        (Op::SetNameOrText, Lent::EndTag(end, name)) => {
            let value = string(a)?;
            edit(end.set_end_tag_name(&value))?;
            *name.borrow_mut() = value.to_ascii_lowercase();
            Ok(JsValue::UNDEFINED)
        }
        (Op::SetNameOrText, Lent::Comment(c)) => edit(c.set_text(&string(a)?)),
        (Op::LastInTextNode, Lent::Text(t)) => Ok(t.last_in_text_node().into()),
        (Op::NamespaceUri, Lent::Element(el)) => Ok(el.namespace_uri().into()),
        (Op::Attributes, Lent::Element(el)) => Ok(el
            .attributes()
            .into_iter()
            .map(|attr| Array::of2(&attr.name.into(), &attr.value.into()))
            .collect::<Array>()
            .into()),
        (Op::GetAttribute, Lent::Element(el)) => Ok(owned(el.get_attribute(&string(a)?).as_deref())),
        (Op::SetAttribute, Lent::Element(el)) => edit(el.set_attribute(&string(a)?, &string(b)?)),
        (Op::RemoveAttribute, Lent::Element(el)) => edit(el.remove_attribute(&string(a)?)),
        (Op::OnEndTag, Lent::Element(el)) => {
            let id = number(a)?;
            let name = Rc::clone(
                shared
                    .end_names
                    .borrow_mut()
                    .entry(el.id())
                    .or_insert_with(|| Rc::new(RefCell::new(el.tag_name().into_owned()))),
            );
            let s = shared.clone();
            el.on_end(move |end| {
                s.end_names.borrow_mut().remove(&end.id());
                handlers::call(&s, id, Lent::EndTag(end, name.clone()))
            });
            Ok(JsValue::UNDEFINED)
        }
        (Op::Defer, Lent::Element(el)) => Ok(defer(el, shared, number(a)?)),
        (Op::Doctype, Lent::Doctype(d)) => Ok(owned(match number(a)? {
            0 => d.name(),
            1 => d.public_id(),
            _ => d.system_id(),
        })),
        (op, _) => Err(unsupported(match op {
            Op::Removed => "removed",
            Op::NameOrText => "text",
            Op::SetNameOrText => "setting the text",
            Op::LastInTextNode => "lastInTextNode",
            Op::NamespaceUri => "namespaceURI",
            Op::Attributes => "attributes",
            Op::GetAttribute => "getAttribute",
            Op::SetAttribute => "setAttribute",
            Op::RemoveAttribute => "removeAttribute",
            Op::OnEndTag => "onEndTag",
            Op::Doctype => "doctype fields",
            Op::Defer => "a Promise from this handler",
            Op::Insert | Op::Remove => "this operation",
        })),
    }
}

/// [`Op::Defer`] on `el` for the places in `mask`.
fn defer(el: &mut Element<'_, 'static, Local>, shared: &Shared, mask: u32) -> JsValue {
    let slots = Array::new_with_length(6);
    let order = [Place::Before, Place::Replace, Place::Inner, Place::Prepend, Place::Append, Place::After];
    for place in order.into_iter().filter(|&p| mask & (1 << p as u32) != 0) {
        let slot = match place {
            Place::Before => el.defer_before(),
            Place::Replace => el.defer_replace(),
            Place::Inner => el.defer_inner_content(),
            Place::Prepend => el.defer_prepend(),
            Place::Append => el.defer_append(),
            Place::After => el.defer_after(),
        };
        shared.slots.borrow_mut().insert(slot.index(), slot);
        slots.set(place as u32, JsValue::from(slot.index() as f64));
    }
    slots.into()
}

/// Inserts `content` as `ty` at `place` of `node`, where the node has it
/// (`DocumentEnd`: append only).
fn insert(node: &mut Lent<'_, '_>, place: Place, content: &str, ty: ContentType) -> Result<JsValue, JsValue> {
    match (node, place) {
        (Lent::Element(el), Place::Before) => edit(el.before(content, ty)),
        (Lent::Element(el), Place::After) => edit(el.after(content, ty)),
        (Lent::Element(el), Place::Prepend) => edit(el.prepend(content, ty)),
        (Lent::Element(el), Place::Append) => edit(el.append(content, ty)),
        (Lent::Element(el), Place::Replace) => edit(el.replace(content, ty)),
        (Lent::Element(el), Place::Inner) => edit(el.set_inner_content(content, ty)),
        (Lent::EndTag(end, _), Place::Before) => edit(end.before(content, ty)),
        (Lent::EndTag(end, _), Place::After) => edit(end.after(content, ty)),
        (Lent::Text(t), Place::Before) => edit(t.before(content, ty)),
        (Lent::Text(t), Place::After) => edit(t.after(content, ty)),
        (Lent::Text(t), Place::Replace) => edit(t.replace(content, ty)),
        (Lent::Comment(c), Place::Before) => edit(c.before(content, ty)),
        (Lent::Comment(c), Place::After) => edit(c.after(content, ty)),
        (Lent::Comment(c), Place::Replace) => edit(c.replace(content, ty)),
        (Lent::DocumentEnd(d), Place::Append) => edit(d.append(content, ty)),
        _ => Err(unsupported("this insertion")),
    }
}
