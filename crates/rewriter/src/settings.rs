//! [`Settings`]: handlers by selector and document-wide, and the options of a rewrite.

use std::sync::Arc;

use encoding_rs::Encoding;
use htrewrite_selectors::{Namespaces, Program, SelectorList};
use htrewrite_shadow::Namespace;
use smallvec::SmallVec;

use crate::error::{HandlerResult, RewritingError};
use crate::{Comment, Doctype, DocumentEnd, Element, ElementEnd, ProcessingInstruction, TextChunk};

/// Whether handlers (and so the rewriter) must be [`Send`].
///
/// [`Local`] (the default) takes any closure; [`Sendable`] takes only `Send`
/// closures and makes the [`Rewriter`](crate::Rewriter) `Send` (for
/// multi-threaded runtimes). A rewriter is `Send` exactly when its handlers are.
///
/// # Example
/// ```
/// use htrewrite::{Sendable, Settings};
/// fn assert_send<T: Send>(_: &T) {}
/// let settings: Settings<'_, Sendable> = Settings::new_send().element("a", |_| Ok(()));
/// let rw = htrewrite::Rewriter::new(settings, |_: &[u8]| {})?;
/// assert_send(&rw);
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
pub trait HandlerKind: Sized + 'static {
    /// Boxed element handler.
    type ElementHandler<'h>: FnMut(&mut Element<'_, 'h, Self>) -> HandlerResult + 'h;
    /// Boxed end-of-element handler.
    type EndHandler<'h>: FnMut(&mut ElementEnd<'_>) -> HandlerResult + 'h;
    /// Boxed text handler.
    type TextHandler<'h>: FnMut(&mut TextChunk<'_>) -> HandlerResult + 'h;
    /// Boxed comment handler.
    type CommentHandler<'h>: FnMut(&mut Comment<'_>) -> HandlerResult + 'h;
    /// Boxed DOCTYPE handler.
    type DoctypeHandler<'h>: FnMut(&mut Doctype<'_>) -> HandlerResult + 'h;
    /// Boxed processing-instruction handler.
    type PiHandler<'h>: FnMut(&mut ProcessingInstruction<'_>) -> HandlerResult + 'h;
    /// Boxed document-end handler.
    type DocumentEndHandler<'h>: FnMut(&mut DocumentEnd<'_>) -> HandlerResult + 'h;
    /// Boxed bail-out hook ([`Settings::on_bail_out`]).
    type BailOutHandler<'h>: FnOnce(&RewritingError) + 'h;
}

/// Handlers that need not be `Send` (the default). See [`HandlerKind`].
#[derive(Debug, Clone, Copy)]
pub enum Local {}

/// Handlers that are `Send`. See [`HandlerKind`].
#[derive(Debug, Clone, Copy)]
pub enum Sendable {}

/// Turns a closure into the boxed handler type of a [`HandlerKind`].
///
/// Implemented for every closure of the right signature (and, for
/// [`Sendable`], `Send`); users never implement it.
///
/// # Example
/// ```
/// use htrewrite::{Element, HandlerResult, IntoHandler, Local};
/// use htrewrite::HandlerKind;
/// fn boxed<'h>(f: impl FnMut(&mut Element<'_, 'h, Local>) -> HandlerResult + 'h)
///     -> <Local as HandlerKind>::ElementHandler<'h> { f.into_handler() }
/// let _h = boxed(|_| Ok(()));
/// ```
pub trait IntoHandler<T> {
    /// Boxes the closure.
    fn into_handler(self) -> T;
}

// One `impl` pair per handler signature: boxing for Local and Sendable.
// The bail-out hook, called once with the error, is the one `FnOnce` among them.
macro_rules! handler_kinds {
    ($($assoc:ident: $arg:ty;)*) => {
        impl HandlerKind for Local {
            $(type $assoc<'h> = Box<dyn FnMut(&mut $arg) -> HandlerResult + 'h>;)*
            type BailOutHandler<'h> = Box<dyn FnOnce(&RewritingError) + 'h>;
        }
        impl HandlerKind for Sendable {
            $(type $assoc<'h> = Box<dyn FnMut(&mut $arg) -> HandlerResult + Send + 'h>;)*
            type BailOutHandler<'h> = Box<dyn FnOnce(&RewritingError) + Send + 'h>;
        }
    };
}

handler_kinds! {
    ElementHandler: Element<'_, 'h, Self>;
    EndHandler: ElementEnd<'_>;
    TextHandler: TextChunk<'_>;
    CommentHandler: Comment<'_>;
    DoctypeHandler: Doctype<'_>;
    PiHandler: ProcessingInstruction<'_>;
    DocumentEndHandler: DocumentEnd<'_>;
}

macro_rules! into_handler {
    ($($arg:ty;)*) => {$(
        impl<'h, F> IntoHandler<Box<dyn FnMut(&mut $arg) -> HandlerResult + 'h>> for F
        where
            F: FnMut(&mut $arg) -> HandlerResult + 'h,
        {
            fn into_handler(self) -> Box<dyn FnMut(&mut $arg) -> HandlerResult + 'h> {
                Box::new(self)
            }
        }
    )*};
}

macro_rules! into_send_handler {
    ($($arg:ty;)*) => {$(
        impl<'h, F> IntoHandler<Box<dyn FnMut(&mut $arg) -> HandlerResult + Send + 'h>> for F
        where
            F: FnMut(&mut $arg) -> HandlerResult + Send + 'h,
        {
            fn into_handler(self) -> Box<dyn FnMut(&mut $arg) -> HandlerResult + Send + 'h> {
                Box::new(self)
            }
        }
    )*};
}

into_handler! {
    Element<'_, 'h, Local>;
    ElementEnd<'_>;
    TextChunk<'_>;
    Comment<'_>;
    Doctype<'_>;
    ProcessingInstruction<'_>;
    DocumentEnd<'_>;
}

impl<'h, F> IntoHandler<Box<dyn FnOnce(&RewritingError) + 'h>> for F
where
    F: FnOnce(&RewritingError) + 'h,
{
    fn into_handler(self) -> Box<dyn FnOnce(&RewritingError) + 'h> {
        Box::new(self)
    }
}

impl<'h, F> IntoHandler<Box<dyn FnOnce(&RewritingError) + Send + 'h>> for F
where
    F: FnOnce(&RewritingError) + Send + 'h,
{
    fn into_handler(self) -> Box<dyn FnOnce(&RewritingError) + Send + 'h> {
        Box::new(self)
    }
}

into_send_handler! {
    Element<'_, 'h, Sendable>;
    ElementEnd<'_>;
    TextChunk<'_>;
    Comment<'_>;
    Doctype<'_>;
    ProcessingInstruction<'_>;
    DocumentEnd<'_>;
}

/// One registered handler, as the [`element!`](crate::element) family of macros builds it.
///
/// # Example
/// ```
/// use htrewrite::{Settings, element, rewrite_str};
/// let settings = Settings::new().handler(element!("p", |el| { el.set_attribute("x", "1")?; Ok(()) }));
/// assert_eq!(rewrite_str("<p>", settings)?, "<p x=\"1\">");
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
pub enum Handler<'h, K: HandlerKind = Local> {
    /// On each element matching the selector, at its start.
    Element(String, K::ElementHandler<'h>),
    /// At the end of each element matching the selector.
    ElementEnd(String, K::EndHandler<'h>),
    /// On text inside elements matching the selector.
    Text(String, K::TextHandler<'h>),
    /// On comments inside elements matching the selector.
    Comments(String, K::CommentHandler<'h>),
    /// On the DOCTYPE.
    Doctype(K::DoctypeHandler<'h>),
    /// On all text of the document.
    DocText(K::TextHandler<'h>),
    /// On all comments of the document.
    DocComments(K::CommentHandler<'h>),
    /// On processing instructions (`<?target data>`).
    ProcessingInstructions(K::PiHandler<'h>),
    /// At the end of the document.
    End(K::DocumentEndHandler<'h>),
}

impl<'h, K: HandlerKind> Handler<'h, K> {
    /// An element handler (what [`element!`](crate::element) builds).
    pub fn element<F>(selector: &str, f: F) -> Self
    where
        F: FnMut(&mut Element<'_, 'h, K>) -> HandlerResult + IntoHandler<K::ElementHandler<'h>>,
    {
        Handler::Element(selector.to_string(), f.into_handler())
    }
    /// A text handler (what [`text!`](crate::text) builds).
    pub fn text<F>(selector: &str, f: F) -> Self
    where
        F: FnMut(&mut TextChunk<'_>) -> HandlerResult + IntoHandler<K::TextHandler<'h>>,
    {
        Handler::Text(selector.to_string(), f.into_handler())
    }
    /// A comment handler (what [`comments!`](crate::comments) builds).
    pub fn comments<F>(selector: &str, f: F) -> Self
    where
        F: FnMut(&mut Comment<'_>) -> HandlerResult + IntoHandler<K::CommentHandler<'h>>,
    {
        Handler::Comments(selector.to_string(), f.into_handler())
    }
    /// A handler at the end of each element matching the selector (what
    /// [`end_tag!`](crate::end_tag) builds; as [`Settings::element_end`]).
    pub fn element_end<F>(selector: &str, f: F) -> Self
    where
        F: FnMut(&mut ElementEnd<'_>) -> HandlerResult + IntoHandler<K::EndHandler<'h>>,
    {
        Handler::ElementEnd(selector.to_string(), f.into_handler())
    }
    /// A DOCTYPE handler (what [`doctype!`](crate::doctype) builds).
    pub fn doctype<F>(f: F) -> Self
    where
        F: FnMut(&mut Doctype<'_>) -> HandlerResult + IntoHandler<K::DoctypeHandler<'h>>,
    {
        Handler::Doctype(f.into_handler())
    }
    /// A handler of all the document's text (what [`doc_text!`](crate::doc_text) builds).
    pub fn doc_text<F>(f: F) -> Self
    where
        F: FnMut(&mut TextChunk<'_>) -> HandlerResult + IntoHandler<K::TextHandler<'h>>,
    {
        Handler::DocText(f.into_handler())
    }
    /// A handler of all the document's comments (what
    /// [`doc_comments!`](crate::doc_comments) builds).
    pub fn doc_comments<F>(f: F) -> Self
    where
        F: FnMut(&mut Comment<'_>) -> HandlerResult + IntoHandler<K::CommentHandler<'h>>,
    {
        Handler::DocComments(f.into_handler())
    }
    /// A handler at the end of the document (what [`end!`](crate::end) builds).
    pub fn end<F>(f: F) -> Self
    where
        F: FnMut(&mut DocumentEnd<'_>) -> HandlerResult + IntoHandler<K::DocumentEndHandler<'h>>,
    {
        Handler::End(f.into_handler())
    }
}

/// How the document's encoding is chosen.
#[derive(Debug, Clone)]
pub(crate) enum EncodingChoice {
    Fixed(&'static Encoding),
    Sniff { transport: Option<&'static Encoding>, fallback: &'static Encoding },
}

/// What happens after a failure.
///
/// # Example
/// ```
/// use htrewrite::{OnError, Settings, rewrite_str};
/// let settings = Settings::new()
///     .on_error(OnError::PassThrough)
///     .element("b", |_| Err("no".into()));
/// assert_eq!(rewrite_str("<a><b>x</b>", settings)?, "<a><b>x</b>");
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnError {
    /// The failing call returns the error; the output written so far is the
    /// rewrite of every token before the failing one (plus content handlers
    /// already inserted for it); later calls return [`RewritingError::Poisoned`].
    #[default]
    Stop,
    /// The error is kept ([`Rewriter::error`](crate::Rewriter::error)) and
    /// the rest of the input, from the failing token on, is passed through
    /// unchanged; calls keep returning `Ok`. [`Settings::on_bail_out`]
    /// hooks are called once, with the error, when that happens.
    PassThrough,
}

/// Per-selector handler group.
///
/// The selector is one allocation shared with [`Settings::rule_index`]'s
/// key, and each kind's first handler is held in place (a `SmallVec` of one
/// is the size of a `Vec`): settings are often built per document, and a
/// rule with one handler then costs one allocation, not four.
pub(crate) struct RuleHandlers<'h, K: HandlerKind> {
    pub(crate) selector: Arc<str>,
    pub(crate) element: SmallVec<[K::ElementHandler<'h>; 1]>,
    pub(crate) end: SmallVec<[K::EndHandler<'h>; 1]>,
    pub(crate) text: SmallVec<[K::TextHandler<'h>; 1]>,
    pub(crate) comments: SmallVec<[K::CommentHandler<'h>; 1]>,
}

/// Document-wide handlers.
pub(crate) struct DocHandlers<'h, K: HandlerKind> {
    pub(crate) doctype: Vec<K::DoctypeHandler<'h>>,
    pub(crate) text: Vec<K::TextHandler<'h>>,
    pub(crate) comments: Vec<K::CommentHandler<'h>>,
    pub(crate) pis: Vec<K::PiHandler<'h>>,
    pub(crate) end: Vec<K::DocumentEndHandler<'h>>,
}

impl<K: HandlerKind> DocHandlers<'_, K> {
    /// No document-wide handler of any kind.
    pub(crate) fn is_empty(&self) -> bool {
        self.doctype.is_empty()
            && self.text.is_empty()
            && self.comments.is_empty()
            && self.pis.is_empty()
            && self.end.is_empty()
    }
}

/// The default of [`Settings::hold_limit`]: 1 MiB.
const DEFAULT_HOLD_LIMIT: usize = 1 << 20;

/// The options of a rewrite (without handlers).
#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub(crate) encoding: EncodingChoice,
    pub(crate) memory_limit: usize,
    pub(crate) hold_limit: usize,
    pub(crate) on_error: OnError,
    pub(crate) fragment: Option<(String, Namespace)>,
    pub(crate) scripting: bool,
    pub(crate) whole_text_nodes: Option<usize>,
    pub(crate) track_lines: bool,
    pub(crate) selectors: Option<Selectors>,
    pub(crate) full_pipeline: bool,
}

/// What a [`Rewriter`](crate::Rewriter) does: handlers registered by CSS
/// selector or for the whole document, and options.
///
/// Handlers for the same element run in registration order of their
/// selectors; several handlers registered with the same selector string
/// share one compiled selector.
///
/// # Example
/// ```
/// use htrewrite::{ContentType, Settings, rewrite_str};
/// let settings = Settings::new()
///     .element("a[href]", |el| {
///         let href = el.get_attribute("href").unwrap_or_default();
///         el.set_attribute("href", &href.replace("http:", "https:"))?;
///         Ok(())
///     })
///     .element("head", |el| {
///         el.append("<script src=\"/x.js\"></script>", ContentType::Html)?;
///         Ok(())
///     });
/// let out = rewrite_str("<head><title>t</title><a href='http://e'>e</a>", settings)?;
/// assert_eq!(out, "<head><title>t</title><script src=\"/x.js\"></script><a href='https://e'>e</a>");
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
pub struct Settings<'h, K: HandlerKind = Local> {
    pub(crate) rules: Vec<RuleHandlers<'h, K>>,
    /// Selector string → its position in `rules` (registering stays O(1)
    /// per handler with tens of thousands of selectors). FxHash, the
    /// workspace's fast hasher: the keys are the operator's selectors, not
    /// input, and settings are often built per document (std's SipHash was
    /// a third of a document's fixed cost with 1,000 selectors).
    pub(crate) rule_index: rustc_hash::FxHashMap<Arc<str>, usize>,
    pub(crate) doc: DocHandlers<'h, K>,
    /// Hooks called once when the rewriter bails out ([`Settings::on_bail_out`]).
    pub(crate) bail_out: Vec<K::BailOutHandler<'h>>,
    pub(crate) options: Options,
}

impl<'h> Settings<'h, Local> {
    /// Settings with no handlers and the default options: UTF-8, no memory
    /// limit, [`OnError::Stop`], a document (not a fragment), scripting on.
    pub fn new() -> Self {
        Settings::empty()
    }
}

impl<'h> Default for Settings<'h, Local> {
    fn default() -> Self {
        Settings::empty()
    }
}

impl<'h> Settings<'h, Sendable> {
    /// Like [`Settings::new`], for `Send` handlers (see [`HandlerKind`]).
    pub fn new_send() -> Self {
        Settings::empty()
    }
}

impl<'h, K: HandlerKind> Settings<'h, K> {
    fn empty() -> Self {
        Settings {
            rules: Vec::new(),
            rule_index: rustc_hash::FxHashMap::default(),
            doc: DocHandlers {
                doctype: Vec::new(),
                text: Vec::new(),
                comments: Vec::new(),
                pis: Vec::new(),
                end: Vec::new(),
            },
            bail_out: Vec::new(),
            options: Options {
                encoding: EncodingChoice::Fixed(encoding_rs::UTF_8),
                memory_limit: usize::MAX,
                hold_limit: DEFAULT_HOLD_LIMIT,
                on_error: OnError::Stop,
                fragment: None,
                scripting: true,
                whole_text_nodes: None,
                track_lines: false,
                full_pipeline: false,
                selectors: None,
            },
        }
    }

    fn rule(&mut self, selector: &str) -> &mut RuleHandlers<'h, K> {
        let i = match self.rule_index.get(selector) {
            Some(&i) => i,
            None => {
                let selector: Arc<str> = selector.into();
                self.rule_index.insert(selector.clone(), self.rules.len());
                self.rules.push(RuleHandlers {
                    selector,
                    element: SmallVec::new(),
                    end: SmallVec::new(),
                    text: SmallVec::new(),
                    comments: SmallVec::new(),
                });
                self.rules.len() - 1
            }
        };
        &mut self.rules[i]
    }

    /// Adds one handler built by a macro ([`element!`](crate::element), …).
    pub fn handler(mut self, handler: Handler<'h, K>) -> Self {
        match handler {
            Handler::Element(s, h) => self.rule(&s).element.push(h),
            Handler::ElementEnd(s, h) => self.rule(&s).end.push(h),
            Handler::Text(s, h) => self.rule(&s).text.push(h),
            Handler::Comments(s, h) => self.rule(&s).comments.push(h),
            Handler::Doctype(h) => self.doc.doctype.push(h),
            Handler::DocText(h) => self.doc.text.push(h),
            Handler::DocComments(h) => self.doc.comments.push(h),
            Handler::ProcessingInstructions(h) => self.doc.pis.push(h),
            Handler::End(h) => self.doc.end.push(h),
        }
        self
    }

    /// Adds several handlers built by macros.
    pub fn handlers(self, handlers: impl IntoIterator<Item = Handler<'h, K>>) -> Self {
        handlers.into_iter().fold(self, Settings::handler)
    }

    /// Calls `f` on each element matching `selector`, when it is opened
    /// (its start tag; for elements the parser creates without a start
    /// tag, where it creates them). The selector is compiled by
    /// [`Rewriter::new`](crate::Rewriter::new), which reports a bad one.
    pub fn element<F>(mut self, selector: &str, f: F) -> Self
    where
        F: FnMut(&mut Element<'_, 'h, K>) -> HandlerResult + IntoHandler<K::ElementHandler<'h>>,
    {
        self.rule(selector).element.push(f.into_handler());
        self
    }

    /// Calls `f` when an element matching `selector` ends, whatever ends it:
    /// its end tag, an implied end, the end of input (see [`ElementEnd`]).
    pub fn element_end<F>(mut self, selector: &str, f: F) -> Self
    where
        F: FnMut(&mut ElementEnd<'_>) -> HandlerResult + IntoHandler<K::EndHandler<'h>>,
    {
        self.rule(selector).end.push(f.into_handler());
        self
    }

    /// Calls `f` on each chunk of text inside elements matching `selector`
    /// (descendants included), up to the element's end.
    pub fn text<F>(mut self, selector: &str, f: F) -> Self
    where
        F: FnMut(&mut TextChunk<'_>) -> HandlerResult + IntoHandler<K::TextHandler<'h>>,
    {
        self.rule(selector).text.push(f.into_handler());
        self
    }

    /// Calls `f` on each comment inside elements matching `selector`.
    pub fn comments<F>(mut self, selector: &str, f: F) -> Self
    where
        F: FnMut(&mut Comment<'_>) -> HandlerResult + IntoHandler<K::CommentHandler<'h>>,
    {
        self.rule(selector).comments.push(f.into_handler());
        self
    }

    /// Calls `f` on the DOCTYPE.
    pub fn doctype<F>(mut self, f: F) -> Self
    where
        F: FnMut(&mut Doctype<'_>) -> HandlerResult + IntoHandler<K::DoctypeHandler<'h>>,
    {
        self.doc.doctype.push(f.into_handler());
        self
    }

    /// Calls `f` on every chunk of text of the document.
    pub fn doc_text<F>(mut self, f: F) -> Self
    where
        F: FnMut(&mut TextChunk<'_>) -> HandlerResult + IntoHandler<K::TextHandler<'h>>,
    {
        self.doc.text.push(f.into_handler());
        self
    }

    /// Calls `f` on every comment of the document (bogus comments included).
    pub fn doc_comments<F>(mut self, f: F) -> Self
    where
        F: FnMut(&mut Comment<'_>) -> HandlerResult + IntoHandler<K::CommentHandler<'h>>,
    {
        self.doc.comments.push(f.into_handler());
        self
    }

    /// Calls `f` on every processing instruction (`<?target data>`, 2026 syntax).
    pub fn processing_instructions<F>(mut self, f: F) -> Self
    where
        F: FnMut(&mut ProcessingInstruction<'_>) -> HandlerResult + IntoHandler<K::PiHandler<'h>>,
    {
        self.doc.pis.push(f.into_handler());
        self
    }

    /// Calls `f` at the end of the document, where it can append content.
    pub fn end<F>(mut self, f: F) -> Self
    where
        F: FnMut(&mut DocumentEnd<'_>) -> HandlerResult + IntoHandler<K::DocumentEndHandler<'h>>,
    {
        self.doc.end.push(f.into_handler());
        self
    }

    /// The document's encoding, by WHATWG label (`"utf-8"`, `"latin1"`,
    /// `"shift_jis"`, `"utf-16le"`, …). Default UTF-8.
    ///
    /// # Errors
    /// [`RewritingError::Encoding`] for an unknown label.
    pub fn encoding(mut self, label: &str) -> Result<Self, RewritingError> {
        let enc = Encoding::for_label(label.trim().as_bytes())
            .ok_or_else(|| RewritingError::Encoding(format!("unknown encoding label {label:?}")))?;
        if enc == encoding_rs::REPLACEMENT {
            return Err(RewritingError::Encoding(format!("{label:?} is the replacement encoding")));
        }
        self.options.encoding = EncodingChoice::Fixed(enc);
        Ok(self)
    }

    /// Sniff the encoding as a browser does: a BOM, then `transport` (a
    /// charset label from e.g. `Content-Type`), then the `<meta charset>`
    /// prescan of the first 1024 bytes, then `fallback` (a label; browsers
    /// use windows-1252 in most locales). Output is held back only while the
    /// prescan is pending.
    ///
    /// # Errors
    /// [`RewritingError::Encoding`] when `fallback` is not a known label
    /// (an unknown `transport` label is ignored, as browsers do).
    pub fn sniff_encoding(mut self, transport: Option<&str>, fallback: &str) -> Result<Self, RewritingError> {
        let fallback = Encoding::for_label(fallback.trim().as_bytes())
            .ok_or_else(|| RewritingError::Encoding(format!("unknown encoding label {fallback:?}")))?;
        let transport = transport.and_then(|l| Encoding::for_label(l.trim().as_bytes()));
        self.options.encoding = EncodingChoice::Sniff { transport, fallback };
        Ok(self)
    }

    /// The most memory, in bytes, the rewriter may hold at once: carried-over
    /// input of an unfinished token, buffered text nodes, the stack of open
    /// elements, selector state and content waiting to be inserted. Going
    /// over is [`RewritingError::MemoryLimitExceeded`]. Default: no limit.
    pub fn memory_limit(mut self, bytes: usize) -> Self {
        self.options.memory_limit = bytes;
        self
    }

    /// The most output, in bytes, the rewriter holds after pending slots
    /// (see [`Element::defer_before`](crate::Element::defer_before)) before
    /// it stops taking input: [`Rewriter::write_some`](crate::Rewriter::write_some)
    /// then takes nothing and [`Rewriter::write`](crate::Rewriter::write)
    /// returns [`RewritingError::Blocked`], until slots are filled; streamed
    /// content for a slot that is not first is refused the same way
    /// ([`Rewriter::slot_write`](crate::Rewriter::slot_write) takes less).
    /// The held output can go past the bound by what one accepted piece of
    /// input makes (content handlers insert included) and by whole
    /// [`Rewriter::fill`](crate::Rewriter::fill)s. Held output also counts
    /// for [`Settings::memory_limit`], which should be the larger. Default:
    /// 1 MiB.
    ///
    /// # Example
    /// ```
    /// use std::{cell::RefCell, rc::Rc};
    /// use htrewrite::{Rewriter, RewritingError, Settings, Slot};
    /// let slots: Rc<RefCell<Vec<Slot>>> = Rc::default();
    /// let made = slots.clone();
    /// let settings = Settings::new().hold_limit(1024).element("#ad", move |el| {
    ///     made.borrow_mut().push(el.defer_replace());
    ///     Ok(())
    /// });
    /// let mut rw = Rewriter::new(settings, |_: &[u8]| {})?;
    /// rw.write(b"<div id=ad></div>")?;
    /// let before = rw.held_bytes();
    /// let Err(RewritingError::Blocked { taken }) = rw.write(&[b'x'; 4096]) else { panic!() };
    /// assert!(taken > 0 && taken < 4096); // the div and about 1 KiB after it are held
    /// assert!(rw.held_bytes() - before <= 1024);
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    pub fn hold_limit(mut self, bytes: usize) -> Self {
        self.options.hold_limit = bytes;
        self
    }

    /// What happens after a failure (default [`OnError::Stop`]).
    pub fn on_error(mut self, policy: OnError) -> Self {
        self.options.on_error = policy;
        self
    }

    /// Calls `f` once, with the error, when the rewriter bails out: under
    /// [`OnError::PassThrough`], when a failure makes it pass the rest of
    /// the input through unchanged — a handler error, the memory limit or
    /// the bound of [`Settings::whole_text_nodes`] exceeded, inserted
    /// content refused ([`RewritingError::Insertion`]), a document-end
    /// handler failing in [`Rewriter::end`](crate::Rewriter::end), or an
    /// encoding it cannot rewrite ([`RewritingError::Encoding`], decided
    /// from the settings or by sniffing). The error is the one
    /// [`Rewriter::error`](crate::Rewriter::error) keeps.
    ///
    /// `f` runs from the call (`write`, `end`, …) in which the rewriter
    /// bails out, whatever the chunking, at most once per rewrite; several
    /// hooks run in registration order. It is not called when nothing
    /// fails, when a failure is returned instead ([`OnError::Stop`]), or
    /// when the rewriter copies its input because nothing can observe it
    /// ([`Rewriter::copying`](crate::Rewriter::copying): not a failure). For
    /// logs and metrics, or to drop state kept for the rest of the
    /// document. The output is unchanged by the hook: exact up to the
    /// failing token, the input as it is from there.
    ///
    /// lol_html's counterpart is `Settings::append_bail_out_handler`; unlike
    /// its `BailOut::append`, the hook cannot add content (the bytes before
    /// the failing token may already be in the sink with the raw input after
    /// it).
    ///
    /// # Example
    /// ```
    /// use std::{cell::RefCell, rc::Rc};
    /// use htrewrite::{OnError, RewritingError, Settings, rewrite_str};
    /// let seen: Rc<RefCell<Vec<String>>> = Rc::default();
    /// let log = seen.clone();
    /// let settings = Settings::new()
    ///     .on_error(OnError::PassThrough)
    ///     .on_bail_out(move |err: &RewritingError| log.borrow_mut().push(err.to_string()))
    ///     .element("p", |el| {
    ///         el.set_attribute("class", "seen")?;
    ///         Ok(())
    ///     })
    ///     .element("b", |_| Err("no bold today".into()));
    /// let out = rewrite_str("<p>a</p><b>x</b><p>c", settings)?;
    /// assert_eq!(out, "<p class=\"seen\">a</p><b>x</b><p>c");
    /// assert_eq!(*seen.borrow(), ["handler failed: no bold today"]);
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    ///
    /// # Errors
    /// None: registering cannot fail, and the hook returns nothing (it
    /// runs after the failure is decided).
    pub fn on_bail_out<F>(mut self, f: F) -> Self
    where
        F: FnOnce(&RewritingError) + IntoHandler<K::BailOutHandler<'h>>,
    {
        self.bail_out.push(f.into_handler());
        self
    }

    /// Rewrite a fragment parsed in the context of an HTML element named
    /// `context` (e.g. `"div"`, `"tbody"`, `"title"`), as the Standard's
    /// fragment parsing algorithm does.
    pub fn fragment(mut self, context: &str) -> Self {
        self.options.fragment = Some((context.to_ascii_lowercase(), Namespace::Html));
        self
    }

    /// The scripting flag (default on, as in browsers: `<noscript>` is RAWTEXT).
    pub fn scripting(mut self, on: bool) -> Self {
        self.options.scripting = on;
        self
    }

    /// Give text handlers whole text nodes (one call per node, with
    /// `last_in_text_node` set) instead of chunks, buffering at most
    /// `max_bytes` of a node; a longer node is
    /// [`RewritingError::MemoryLimitExceeded`].
    pub fn whole_text_nodes(mut self, max_bytes: usize) -> Self {
        self.options.whole_text_nodes = Some(max_bytes);
        self
    }

    /// Count lines so that source locations carry line and column.
    pub fn track_lines(mut self, on: bool) -> Self {
        self.options.track_lines = on;
        self
    }

    /// Run the whole pipeline on every byte, without the copy shortcut.
    ///
    /// By default, once nothing can observe the rest of the document — no
    /// handlers at all, or rules that can match only elements the Standard
    /// inserts once (`head`; not `html`, as `<svg><html>` inserts another)
    /// after it was inserted and their edits placed, with no document-wide
    /// handler — the rewriter copies
    /// the rest of the input to the output without parsing it: the output
    /// is the same, byte for byte, in any chunking (the tests compare it
    /// with this setting on). This setting exists for those tests and for
    /// measuring the full pipeline.
    ///
    /// # Example
    /// ```
    /// use htrewrite::{Settings, rewrite_str};
    /// let html = "<p>a<b>b</p>c";
    /// assert_eq!(rewrite_str(html, Settings::new().full_pipeline(true))?, html);
    /// assert_eq!(rewrite_str(html, Settings::new())?, html);
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    pub fn full_pipeline(mut self, on: bool) -> Self {
        self.options.full_pipeline = on;
        self
    }

    /// Reuse selectors compiled once (see [`Selectors`]): when every
    /// selector of these settings is in `selectors`, no compilation happens.
    pub fn with_selectors(mut self, selectors: &Selectors) -> Self {
        self.options.selectors = Some(selectors.clone());
        self
    }

    /// Whether [`Rewriter::new`](crate::Rewriter::new) will compile
    /// selectors for these settings: `false` when there are no selector
    /// rules, or when every selector is in the [`Selectors`] given with
    /// [`Settings::with_selectors`]. A server that builds settings per
    /// request can test that this is `false`, so that no request pays for
    /// compilation.
    ///
    /// # Example
    /// ```
    /// use htrewrite::{Selectors, Settings};
    /// let compiled = Selectors::new(["a[href]"])?;
    /// let shared = Settings::new().with_selectors(&compiled).element("a[href]", |_| Ok(()));
    /// assert!(!shared.compiles_selectors());
    /// assert!(Settings::new().element("a[href]", |_| Ok(())).compiles_selectors());
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    pub fn compiles_selectors(&self) -> bool {
        match &self.options.selectors {
            Some(shared) => !self.rules.iter().all(|r| shared.index.contains_key(&*r.selector)),
            None => !self.rules.is_empty(),
        }
    }
}

/// Selectors compiled once and shared by many rewriters (cheap to clone,
/// `Send + Sync`): compile the selectors of a rule set at start-up, then build
/// per-document [`Settings`] with [`Settings::with_selectors`].
///
/// # Example
/// ```
/// use htrewrite::{Selectors, Settings, rewrite_str};
/// let compiled = Selectors::new(["a[href]", "img"])?;
/// for page in ["<a href=x>", "<img>"] {
///     let settings = Settings::new().with_selectors(&compiled).element("a[href]", |el| {
///         el.remove_attribute("href")?;
///         Ok(())
///     });
///     let _ = rewrite_str(page, settings)?;
/// }
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Selectors {
    pub(crate) program: Arc<Program>,
    pub(crate) list: Arc<[String]>,
    /// Each selector's program rule (selectors equal once parsed share one).
    pub(crate) index: Arc<rustc_hash::FxHashMap<String, u32>>,
}

impl Selectors {
    /// Compiles `selectors`. Selectors that are the same once parsed (`p`,
    /// `/*1*/p`, `p ` listed a thousand times) are compiled once.
    ///
    /// # Errors
    /// [`RewritingError::Selector`] naming the first selector that does not parse.
    pub fn new<I, S>(selectors: I) -> Result<Selectors, RewritingError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let list: Vec<String> = selectors.into_iter().map(|s| s.as_ref().to_string()).collect();
        let compiled = compile(&list)?;
        let mut index = rustc_hash::FxHashMap::with_capacity_and_hasher(list.len(), Default::default());
        for (s, &rule) in list.iter().zip(&compiled.rule_of) {
            index.entry(s.clone()).or_insert(rule);
        }
        Ok(Selectors { program: Arc::new(compiled.program), list: list.into(), index: Arc::new(index) })
    }

    /// The selectors, in order.
    pub fn as_slice(&self) -> &[String] {
        &self.list
    }

    /// The number of selectors compiled: those of [`Selectors::as_slice`]
    /// that differ once parsed.
    ///
    /// # Example
    /// ```
    /// let compiled = htrewrite::Selectors::new(["p", "/*1*/p", "a", "p"])?;
    /// assert_eq!(compiled.compiled_len(), 2);
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    pub fn compiled_len(&self) -> usize {
        self.program.len()
    }
}

/// A compiled list: the program, and per selector of the list its rule.
pub(crate) struct Compiled {
    pub(crate) program: Program,
    pub(crate) rule_of: Vec<u32>,
}

/// Compiles a list, each distinct selector once (equal parsed selector
/// lists: the same up to comments and white space), naming the failing
/// selector. Linear in the list (selectors are grouped by their
/// serialization, then compared parsed).
pub(crate) fn compile<S: AsRef<str>>(list: &[S]) -> Result<Compiled, RewritingError> {
    let fail = |selector: &str, error| RewritingError::Selector { selector: selector.to_string(), error };
    let mut distinct: Vec<SelectorList> = Vec::new();
    let mut by_text: rustc_hash::FxHashMap<String, Vec<u32>> = rustc_hash::FxHashMap::default();
    let mut rule_of = Vec::with_capacity(list.len());
    for selector in list.iter().map(AsRef::as_ref) {
        let parsed = SelectorList::parse(selector).map_err(|e| fail(selector, e))?;
        let same = by_text.entry(parsed.to_string()).or_default();
        let rule = match same.iter().find(|&&r| distinct[r as usize].same_as(&parsed)) {
            Some(&r) => r,
            None => {
                let r = distinct.len() as u32;
                same.push(r);
                distinct.push(parsed);
                r
            }
        };
        rule_of.push(rule);
    }
    match Program::from_lists(&distinct, &Namespaces::default()) {
        Ok(program) => Ok(Compiled { program, rule_of }),
        Err(error) => {
            // Which selector failed (an undeclared namespace prefix), for the message.
            let failing = list.iter().map(AsRef::as_ref).find_map(|s| Program::new([s]).err().map(|e| (s, e)));
            Err(match failing {
                Some((selector, e)) => fail(selector, e),
                None => RewritingError::Selector {
                    selector: list.iter().map(AsRef::as_ref).collect::<Vec<&str>>().join(", "),
                    error,
                },
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Selectors, Settings, rewrite_str};

    /// Issue 6 regression: a selector listed twice in shared `Selectors` ran its handlers twice.
    #[test]
    fn shared_selectors_listed_twice_run_handlers_once() {
        let compiled = Selectors::new(["p", "a", "p"]).unwrap();
        let mut n = 0;
        let settings = Settings::new().with_selectors(&compiled).element("p", |_| {
            n += 1;
            Ok(())
        });
        rewrite_str("<p>x<p>y", settings).unwrap();
        assert_eq!(n, 2);
    }

    /// Issue 20, item 5: selectors equal once parsed are compiled once, shared or not, and each
    /// registration keeps its own handlers, run in registration order (`p`, `.c`, `/*1*/p` on
    /// one element: 1, 2, 3), text handlers included.
    #[test]
    fn selectors_equal_once_parsed_compile_once_and_keep_order() {
        use std::cell::RefCell;
        let compiled = Selectors::new(["p", "/*1*/p", " p ", "/*22*/ p", "a"]).unwrap();
        assert_eq!(compiled.compiled_len(), 2);
        let shared = Selectors::new(["p", ".c", "/*1*/p", "/*22*/ p"]).unwrap();
        assert_eq!(shared.compiled_len(), 2);
        for shared in [None, Some(&shared)] {
            // Which handler ran, in order: element handlers 1, 2, 3, text handlers 10, 20.
            let log = RefCell::new(Vec::new());
            let note = |n: u32| -> crate::HandlerResult {
                log.borrow_mut().push(n);
                Ok(())
            };
            let s = match shared {
                Some(c) => Settings::new().with_selectors(c),
                None => Settings::new(),
            };
            let settings = s
                .element("p", |_| note(1))
                .element(".c", |_| note(2))
                .element("/*1*/p", |_| note(3))
                .text("p", |t| if t.last_in_text_node() { note(10) } else { Ok(()) })
                .text("/*22*/ p", |t| if t.last_in_text_node() { note(20) } else { Ok(()) });
            assert_eq!(rewrite_str("<p class=c>x", settings).unwrap(), "<p class=c>x");
            assert_eq!(*log.borrow(), [1, 2, 3, 10, 20], "shared: {}", shared.is_some());
        }
    }

    /// The same order with element handlers only, where a matched start tag
    /// takes the core's short path (`Core::start_tag_matched`): rules with
    /// several handler groups keep it to the general path, which sorts them.
    #[test]
    fn selectors_equal_once_parsed_keep_order_without_content_handlers() {
        use std::cell::RefCell;
        let log = RefCell::new(Vec::new());
        let note = |n: u32| -> crate::HandlerResult {
            log.borrow_mut().push(n);
            Ok(())
        };
        let settings =
            Settings::new().element("p", |_| note(1)).element(".c", |_| note(2)).element("/*1*/p", |_| note(3));
        // After `<body>`, so that the `p` tag opens only its element (a first
        // tag also opens `html`, `head` and `body`: several actions, the walk).
        assert_eq!(rewrite_str("<body><p class=c>x", settings).unwrap(), "<body><p class=c>x");
        assert_eq!(*log.borrow(), [1, 2, 3]);
    }
}
