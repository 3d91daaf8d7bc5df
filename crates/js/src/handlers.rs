//! JavaScript handlers as core handlers: each registration becomes a Rust
//! closure that lends its node to the dispatcher for one call (see the crate
//! docs and [`call`]).

use std::cell::RefCell;
use std::collections::HashMap;
use std::error::Error;
use std::fmt;
use std::rc::Rc;

use htrewrite::{HandlerResult, Local, NodeId, Settings, Slot};
use js_sys::Function;
use wasm_bindgen::JsValue;
use wasm_bindgen::closure::ScopedClosure;

use crate::nodes::{self, Lent};

/// What one rewriter's handlers share: the JavaScript dispatcher, and the
/// names of elements with `onEndTag` handlers, renamed or not.
pub(crate) struct Shared {
    /// Calls handler `index` on a node of kind `kind` (src/nodes.rs
    /// `Kind`) through `op`: `dispatch(index, kind, op)`.
    pub(crate) dispatch: Function,
    /// For each element with end-tag handlers whose end has not come: the
    /// name its end tag will have (the core's `ElementEnd` reports the
    /// source name; Workers' `EndTag.name` the renamed one). Entries live
    /// from `onEndTag` to the element's end.
    pub(crate) end_names: RefCell<HashMap<NodeId, Rc<RefCell<String>>>>,
    /// The slots of elements whose handlers returned a Promise (`Op::Defer`
    /// in src/nodes.rs), by number, until `RawRewriter` fills or cancels them.
    pub(crate) slots: RefCell<HashMap<u64, Slot>>,
}

numbered! {
    /// What a registration handles, as `index.js` numbers it.
    enum Registration {
        /// `.on(selector, {element})`.
        Element,
        /// `.on(selector, {comments})`.
        Comments,
        /// `.on(selector, {text})`.
        Text,
        /// `.onDocument({doctype})`.
        Doctype,
        /// `.onDocument({comments})`.
        DocComments,
        /// `.onDocument({text})`.
        DocText,
        /// `.onDocument({end})`.
        End,
    }
}

/// The core-side error of a JavaScript handler that threw; the dispatcher
/// keeps the thrown value, which `index.js` rethrows.
#[derive(Debug)]
pub(crate) struct HandlerThrew;

impl fmt::Display for HandlerThrew {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JavaScript handler threw")
    }
}

impl Error for HandlerThrew {}

/// The function a JavaScript node object calls for each of its operations:
/// `op(code, a, b, c)` (src/nodes.rs `Op`).
type OpFn<'a> = dyn FnMut(u32, JsValue, JsValue, JsValue) -> Result<JsValue, JsValue> + 'a;

/// Calls handler `index` on `node`: the dispatcher gets a JavaScript
/// function that applies operations to the node, valid for this call only
/// (a `ScopedClosure` borrowing the node: dropped when the call returns,
/// after which wasm-bindgen makes it throw; `index.js` marks its node
/// objects dead first, with a clearer message).
pub(crate) fn call(shared: &Rc<Shared>, index: u32, mut node: Lent<'_, '_>) -> HandlerResult {
    let kind = node.kind() as u32;
    let mut apply = |op: u32, a: JsValue, b: JsValue, c: JsValue| nodes::apply(&mut node, shared, op, &a, &b, &c);
    // Panics abort on wasm32-unknown-unknown: nothing is unwound through it.
    let op = ScopedClosure::<OpFn<'_>>::borrow_mut_aborting(&mut apply);
    match shared.dispatch.call3(&JsValue::UNDEFINED, &index.into(), &kind.into(), op.as_ref()) {
        Ok(_) => Ok(()),
        Err(_) => Err(Box::new(HandlerThrew)),
    }
}

/// Adds registration `index` (`kind`, `selector`) to `settings`.
pub(crate) fn register(
    settings: Settings<'static, Local>,
    kind: Registration,
    selector: &str,
    index: u32,
    shared: &Rc<Shared>,
) -> Settings<'static, Local> {
    let d = shared.clone();
    match kind {
        Registration::Element => settings.element(selector, move |el| call(&d, index, Lent::Element(el))),
        Registration::Comments => settings.comments(selector, move |c| call(&d, index, Lent::Comment(c))),
        Registration::Text => settings.text(selector, move |c| call(&d, index, Lent::Text(c))),
        Registration::Doctype => settings.doctype(move |c| call(&d, index, Lent::Doctype(c))),
        Registration::DocComments => settings.doc_comments(move |c| call(&d, index, Lent::Comment(c))),
        Registration::DocText => settings.doc_text(move |c| call(&d, index, Lent::Text(c))),
        Registration::End => settings.end(move |c| call(&d, index, Lent::DocumentEnd(c))),
    }
}
