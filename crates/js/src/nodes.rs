//! What the JavaScript `Element`, `EndTag`, `Text`, `Comment`, `Doctype` and
//! `DocumentEnd` objects call: one exported function per operation, taking
//! the object's token. Each checks that the token's handler call is still
//! running (`live.rs`) and that the node is of a kind the operation applies to.

use std::cell::RefCell;
use std::rc::Rc;

use htrewrite::{ContentType, EditError};
use js_sys::Array;
use wasm_bindgen::prelude::*;

use crate::handlers;
use crate::live::{self, Lent, Node};
use crate::rewriter::type_error;

fn content_type(html: bool) -> ContentType {
    if html { ContentType::Html } else { ContentType::Text }
}

fn edit(result: Result<(), EditError>) -> Result<(), JsValue> {
    result.map_err(type_error)
}

fn unsupported(what: &str) -> JsValue {
    type_error(format!("{what} is not supported on this node"))
}

/// Where [`insert`] puts content.
#[derive(Debug, Clone, Copy)]
enum Place {
    Before = 0,
    After = 1,
    Prepend = 2,
    Append = 3,
    Replace = 4,
    Inner = 5,
}

impl Place {
    /// Every place, in the order of the discriminants.
    const ALL: [Place; 6] = [Place::Before, Place::After, Place::Prepend, Place::Append, Place::Replace, Place::Inner];
}

/// Inserts `content` (HTML when `html`, else text escaped for where it
/// lands) at `place`: 0 before, 1 after, 2 prepend, 3 append, 4 replace,
/// 5 set inner content; each where the node has it (`DocumentEnd`: append).
///
/// # Errors
/// The core's refusal as a `TypeError`; an ended call; a place the node lacks.
#[wasm_bindgen]
pub fn insert(token: u32, place: u32, content: &str, html: bool) -> Result<(), JsValue> {
    let ty = content_type(html);
    let place = Place::ALL.get(place as usize).copied().ok_or_else(|| unsupported("this insertion"))?;
    live::with(token, |node, _| match (node, place) {
        (Node::Element(el), Place::Before) => edit(el.before(content, ty)),
        (Node::Element(el), Place::After) => edit(el.after(content, ty)),
        (Node::Element(el), Place::Prepend) => edit(el.prepend(content, ty)),
        (Node::Element(el), Place::Append) => edit(el.append(content, ty)),
        (Node::Element(el), Place::Replace) => edit(el.replace(content, ty)),
        (Node::Element(el), Place::Inner) => edit(el.set_inner_content(content, ty)),
        (Node::EndTag(end, _), Place::Before) => edit(end.before(content, ty)),
        (Node::EndTag(end, _), Place::After) => edit(end.after(content, ty)),
        (Node::Text(t), Place::Before) => edit(t.before(content, ty)),
        (Node::Text(t), Place::After) => edit(t.after(content, ty)),
        (Node::Text(t), Place::Replace) => edit(t.replace(content, ty)),
        (Node::Comment(c), Place::Before) => edit(c.before(content, ty)),
        (Node::Comment(c), Place::After) => edit(c.after(content, ty)),
        (Node::Comment(c), Place::Replace) => edit(c.replace(content, ty)),
        (Node::DocumentEnd(d), Place::Append) => edit(d.append(content, ty)),
        _ => Err(unsupported("this insertion")),
    })
}

/// Removes the node (an element with its content; an end tag alone); with
/// `keep_content` on an element, its tags only.
///
/// # Errors
/// An ended call; a node that cannot be removed.
#[wasm_bindgen]
pub fn remove(token: u32, keep_content: bool) -> Result<(), JsValue> {
    live::with(token, |node, _| {
        match node {
            Node::Element(el) if keep_content => el.remove_and_keep_content(),
            Node::Element(el) => el.remove(),
            Node::EndTag(end, _) => end.remove_end_tag(),
            Node::Text(t) => t.remove(),
            Node::Comment(c) => c.remove(),
            Node::Doctype(_) | Node::DocumentEnd(_) => return Err(unsupported("remove")),
        }
        Ok(())
    })
}

/// Whether the node was removed (or replaced).
///
/// # Errors
/// An ended call.
#[wasm_bindgen]
pub fn removed(token: u32) -> Result<bool, JsValue> {
    live::with(token, |node, _| match node {
        Node::Element(el) => Ok(el.removed()),
        Node::Text(t) => Ok(t.removed()),
        Node::Comment(c) => Ok(c.removed()),
        _ => Err(unsupported("removed")),
    })
}

/// A text chunk's text, a comment's text, an element's or end tag's name
/// (ASCII-lowercased).
///
/// # Errors
/// An ended call.
#[wasm_bindgen]
pub fn name_or_text(token: u32) -> Result<String, JsValue> {
    live::with(token, |node, _| match node {
        Node::Element(el) => Ok(el.tag_name().into_owned()),
        Node::EndTag(_, name) => Ok(name.borrow().clone()),
        Node::Text(t) => Ok(t.as_str().to_owned()),
        Node::Comment(c) => Ok(c.text().to_owned()),
        _ => Err(unsupported("text")),
    })
}

/// Sets a comment's text, an element's or end tag's name.
///
/// # Errors
/// The core's refusal (`TypeError`); an ended call.
#[wasm_bindgen]
pub fn set_name_or_text(token: u32, value: &str) -> Result<(), JsValue> {
    live::with(token, |node, shared| match node {
        Node::Element(el) => {
            edit(el.set_tag_name(value))?;
            if let Some(name) = shared.end_names.borrow().get(&el.id()) {
                *name.borrow_mut() = el.tag_name().into_owned();
            }
            Ok(())
        }
        Node::EndTag(end, name) => {
            edit(end.set_end_tag_name(value))?;
            *name.borrow_mut() = value.to_ascii_lowercase();
            Ok(())
        }
        Node::Comment(c) => edit(c.set_text(value)),
        _ => Err(unsupported("setting the text")),
    })
}

/// Whether a text chunk is the last of its text node.
///
/// # Errors
/// An ended call.
#[wasm_bindgen(js_name = lastInTextNode)]
pub fn last_in_text_node(token: u32) -> Result<bool, JsValue> {
    live::with(token, |node, _| match node {
        Node::Text(t) => Ok(t.last_in_text_node()),
        _ => Err(unsupported("lastInTextNode")),
    })
}

/// An element's namespace URL.
///
/// # Errors
/// An ended call.
#[wasm_bindgen(js_name = namespaceUri)]
pub fn namespace_uri(token: u32) -> Result<String, JsValue> {
    live::with(token, |node, _| match node {
        Node::Element(el) => Ok(el.namespace_uri().to_owned()),
        _ => Err(unsupported("namespaceURI")),
    })
}

/// An element's attributes, in order, as `[name, value]` pairs.
///
/// # Errors
/// An ended call.
#[wasm_bindgen]
pub fn attributes(token: u32) -> Result<Array, JsValue> {
    live::with(token, |node, _| match node {
        Node::Element(el) => {
            Ok(el.attributes().into_iter().map(|a| Array::of2(&a.name.into(), &a.value.into())).collect())
        }
        _ => Err(unsupported("attributes")),
    })
}

/// An element's attribute `name` (ASCII case-insensitive), `undefined` when absent.
///
/// # Errors
/// An ended call.
#[wasm_bindgen(js_name = getAttribute)]
pub fn get_attribute(token: u32, name: &str) -> Result<Option<String>, JsValue> {
    live::with(token, |node, _| match node {
        Node::Element(el) => Ok(el.get_attribute(name)),
        _ => Err(unsupported("getAttribute")),
    })
}

/// Sets an element's attribute.
///
/// # Errors
/// An invalid name (`TypeError`), an element without a start tag; an ended call.
#[wasm_bindgen(js_name = setAttribute)]
pub fn set_attribute(token: u32, name: &str, value: &str) -> Result<(), JsValue> {
    live::with(token, |node, _| match node {
        Node::Element(el) => edit(el.set_attribute(name, value)),
        _ => Err(unsupported("setAttribute")),
    })
}

/// Removes an element's attribute.
///
/// # Errors
/// An element without a start tag; an ended call.
#[wasm_bindgen(js_name = removeAttribute)]
pub fn remove_attribute(token: u32, name: &str) -> Result<(), JsValue> {
    live::with(token, |node, _| match node {
        Node::Element(el) => edit(el.remove_attribute(name)),
        _ => Err(unsupported("removeAttribute")),
    })
}

/// Registers end-tag handler `id` of the dispatcher on an element: it runs
/// as `dispatch(id, token)` with an `EndTag` token when the element ends.
///
/// # Errors
/// An ended call.
#[wasm_bindgen(js_name = onEndTag)]
pub fn on_end_tag(token: u32, id: u32) -> Result<(), JsValue> {
    live::with(token, |node, shared| match node {
        Node::Element(el) => {
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
                live::enter(Lent::EndTag(end, name.clone()), &s, |t| handlers::call(&s, id, t))
            });
            Ok(())
        }
        _ => Err(unsupported("onEndTag")),
    })
}

/// A DOCTYPE's name (`which` 0), public id (1) or system id (2); `undefined` when absent.
///
/// # Errors
/// An ended call.
#[wasm_bindgen]
pub fn doctype(token: u32, which: u32) -> Result<Option<String>, JsValue> {
    live::with(token, |node, _| match node {
        Node::Doctype(d) => Ok(match which {
            0 => d.name(),
            1 => d.public_id(),
            _ => d.system_id(),
        }
        .map(str::to_owned)),
        _ => Err(unsupported("doctype fields")),
    })
}
