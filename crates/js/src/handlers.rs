//! JavaScript handlers as core handlers: each registration becomes a Rust
//! closure that publishes its node (`live.rs`) and calls the dispatcher.

use std::error::Error;
use std::fmt;

use htrewrite::{HandlerResult, Local, Settings};
use wasm_bindgen::JsValue;

use std::rc::Rc;

use crate::live::{self, Lent, Shared};

/// What a registration handles, as `index.js` numbers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Registration {
    /// `.on(selector, {element})`.
    Element = 0,
    /// `.on(selector, {comments})`.
    Comments = 1,
    /// `.on(selector, {text})`.
    Text = 2,
    /// `.onDocument({doctype})`.
    Doctype = 3,
    /// `.onDocument({comments})`.
    DocComments = 4,
    /// `.onDocument({text})`.
    DocText = 5,
    /// `.onDocument({end})`.
    End = 6,
}

impl Registration {
    /// Every kind, in the order of the discriminants.
    const ALL: [Registration; 7] = [
        Registration::Element,
        Registration::Comments,
        Registration::Text,
        Registration::Doctype,
        Registration::DocComments,
        Registration::DocText,
        Registration::End,
    ];

    /// The registration numbered `n`.
    pub(crate) fn from_u32(n: u32) -> Option<Registration> {
        Registration::ALL.get(n as usize).copied()
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

/// Calls the dispatcher for handler `index` on the node of `token`.
pub(crate) fn call(shared: &Shared, index: u32, token: u32) -> HandlerResult {
    match shared.dispatch.call2(&JsValue::UNDEFINED, &index.into(), &token.into()) {
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
        Registration::Element => {
            settings.element(selector, move |el| live::enter(Lent::Element(el), &d, |t| call(&d, index, t)))
        }
        Registration::Comments => {
            settings.comments(selector, move |c| live::enter(Lent::Comment(c), &d, |t| call(&d, index, t)))
        }
        Registration::Text => settings.text(selector, move |c| live::enter(Lent::Text(c), &d, |t| call(&d, index, t))),
        Registration::Doctype => settings.doctype(move |c| live::enter(Lent::Doctype(c), &d, |t| call(&d, index, t))),
        Registration::DocComments => {
            settings.doc_comments(move |c| live::enter(Lent::Comment(c), &d, |t| call(&d, index, t)))
        }
        Registration::DocText => settings.doc_text(move |c| live::enter(Lent::Text(c), &d, |t| call(&d, index, t))),
        Registration::End => settings.end(move |c| live::enter(Lent::DocumentEnd(c), &d, |t| call(&d, index, t))),
    }
}
