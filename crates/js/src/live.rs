//! The node a JavaScript handler is running on, reachable from JavaScript
//! only during that call.
//!
//! A handler gets `&mut Element` (or `TextChunk`, …) valid for one call.
//! JavaScript cannot hold a Rust reference, so [`enter`] pushes a raw
//! pointer to the node on a thread-local stack, together with a fresh
//! *token*, for exactly the duration of the JavaScript call, and pops it
//! when the call returns (or unwinds). JavaScript objects carry the token;
//! [`with`] turns a token back into the node only while the stack holds
//! that same token, so an object kept past its call gets an error, never a
//! dangling pointer. (The stack is deeper than one entry only when a
//! handler runs another rewriter: then the outer node stays usable.) This
//! is the crate's only `unsafe` code.

#![allow(unsafe_code)]

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use htrewrite::{Comment, Doctype, DocumentEnd, Element, ElementEnd, Local, NodeId, TextChunk};
use js_sys::Function;
use wasm_bindgen::JsValue;

/// What one rewriter's handlers share: the JavaScript dispatcher, and the
/// names of elements with `onEndTag` handlers, renamed or not.
pub(crate) struct Shared {
    /// Calls handler `index` on the node of `token`: `dispatch(index, token)`.
    pub(crate) dispatch: Function,
    /// For each element with end-tag handlers whose end has not come: the
    /// name its end tag will have (the core's `ElementEnd` reports the
    /// source name; Workers' `EndTag.name` the renamed one). Entries live
    /// from `onEndTag` to the element's end.
    pub(crate) end_names: RefCell<HashMap<NodeId, Rc<RefCell<String>>>>,
}

/// The kinds of node a handler gets, as the low bits of a token.
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

impl Kind {
    /// Every kind, in the order of the discriminants.
    const ALL: [Kind; 6] = [Kind::Element, Kind::EndTag, Kind::Text, Kind::Comment, Kind::Doctype, Kind::DocumentEnd];

    /// The kind a token was made for.
    fn of(token: u32) -> Option<Kind> {
        Kind::ALL.get((token & 7) as usize).copied()
    }

    /// The JavaScript class name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Element => "Element",
            Kind::EndTag => "EndTag",
            Kind::Text => "Text",
            Kind::Comment => "Comment",
            Kind::Doctype => "Doctype",
            Kind::DocumentEnd => "DocumentEnd",
        }
    }
}

/// The node a handler is called on, as the core lends it, for [`enter`].
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

/// A pointer to the node of the running handler. The lifetimes are erased:
/// the pointer is only dereferenced while [`enter`] runs, which holds the
/// borrow it was made from.
enum Ptr {
    /// An element's start.
    Element(*mut Element<'static, 'static, Local>),
    /// An element's end, with the name its end tag will have.
    EndTag(*mut ElementEnd<'static>, Rc<RefCell<String>>),
    /// A text chunk.
    Text(*mut TextChunk<'static>),
    /// A comment.
    Comment(*mut Comment<'static>),
    /// The DOCTYPE.
    Doctype(*mut Doctype<'static>),
    /// The document end.
    DocumentEnd(*mut DocumentEnd<'static>),
}

impl Ptr {
    fn kind(&self) -> Kind {
        match self {
            Ptr::Element(_) => Kind::Element,
            Ptr::EndTag(..) => Kind::EndTag,
            Ptr::Text(_) => Kind::Text,
            Ptr::Comment(_) => Kind::Comment,
            Ptr::Doctype(_) => Kind::Doctype,
            Ptr::DocumentEnd(_) => Kind::DocumentEnd,
        }
    }
}

/// The node of the running handler, borrowed for one JavaScript → Rust call.
pub(crate) enum Node<'a> {
    /// An element's start.
    Element(&'a mut Element<'static, 'static, Local>),
    /// An element's end, with the name its end tag will have.
    EndTag(&'a mut ElementEnd<'static>, &'a RefCell<String>),
    /// A text chunk.
    Text(&'a mut TextChunk<'static>),
    /// A comment.
    Comment(&'a mut Comment<'static>),
    /// The DOCTYPE.
    Doctype(&'a mut Doctype<'static>),
    /// The document end.
    DocumentEnd(&'a mut DocumentEnd<'static>),
}

struct Live {
    token: u32,
    ptr: Ptr,
    /// The rewriter's shared state (for end-tag handlers registered during the call).
    shared: Rc<Shared>,
}

thread_local! {
    static LIVE: RefCell<Vec<Live>> = const { RefCell::new(Vec::new()) };
    static NEXT: Cell<u32> = const { Cell::new(0) };
}

/// Pops the call's entry (and any above it) when the call ends, however it ends.
struct Exit(usize);

impl Drop for Exit {
    fn drop(&mut self) {
        LIVE.with(|l| l.borrow_mut().truncate(self.0));
    }
}

/// Publishes `node` under a fresh token for the duration of `f(token)`.
/// `enter` holds the borrow for the whole call, so the node outlives its
/// publication and nothing else uses it meanwhile.
pub(crate) fn enter<R>(node: Lent<'_, '_>, shared: &Rc<Shared>, f: impl FnOnce(u32) -> R) -> R {
    let ptr = match node {
        Lent::Element(n) => Ptr::Element(std::ptr::from_mut(n).cast()),
        Lent::EndTag(n, name) => Ptr::EndTag(std::ptr::from_mut(n).cast(), name),
        Lent::Text(n) => Ptr::Text(std::ptr::from_mut(n).cast()),
        Lent::Comment(n) => Ptr::Comment(std::ptr::from_mut(n).cast()),
        Lent::Doctype(n) => Ptr::Doctype(std::ptr::from_mut(n).cast()),
        Lent::DocumentEnd(n) => Ptr::DocumentEnd(std::ptr::from_mut(n).cast()),
    };
    let kind = ptr.kind() as u32;
    let generation = NEXT.with(|n| {
        let g = n.get().wrapping_add(1) & 0x0fff_ffff;
        n.set(g);
        g
    });
    let token = generation << 3 | kind;
    let depth = LIVE.with(|l| {
        let mut l = l.borrow_mut();
        l.push(Live { token, ptr, shared: shared.clone() });
        l.len() - 1
    });
    let _exit = Exit(depth);
    f(token)
}

/// The error for a token whose call has ended.
pub(crate) fn stale(token: u32) -> JsValue {
    let name = Kind::of(token).map_or("object", Kind::name);
    js_sys::Error::new(&format!("this {name} is no longer valid: handlers may use it only during the call")).into()
}

/// Runs `f` on the node of `token`, if its call is still running.
///
/// # Errors
/// [`stale`] when the token's call has ended.
pub(crate) fn with<R>(token: u32, f: impl FnOnce(Node<'_>, &Rc<Shared>) -> Result<R, JsValue>) -> Result<R, JsValue> {
    LIVE.with(|l| {
        let live = l.borrow();
        let Some(live) = live.iter().rev().find(|live| live.token == token) else {
            return Err(stale(token));
        };
        // SAFETY: the stack holds the pointer only while `enter` runs, and
        // `enter` holds the `&mut` borrow it was made from: the node is alive
        // and nothing else uses it (the handler closure is blocked in the
        // JavaScript call that led here).
        // One `Node` exists at a time: it lives for this call only, `f`
        // does not reach the stack again (it calls no handler), entries are
        // distinct nodes (a rewriter runs one handler at a time; a nested
        // rewriter has its own nodes), and wasm is single-threaded.
        let node = unsafe {
            match &live.ptr {
                Ptr::Element(p) => Node::Element(&mut **p),
                Ptr::EndTag(p, name) => Node::EndTag(&mut **p, name),
                Ptr::Text(p) => Node::Text(&mut **p),
                Ptr::Comment(p) => Node::Comment(&mut **p),
                Ptr::Doctype(p) => Node::Doctype(&mut **p),
                Ptr::DocumentEnd(p) => Node::DocumentEnd(&mut **p),
            }
        };
        f(node, &live.shared)
    })
}
