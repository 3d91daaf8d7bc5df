//! The public face of the shadow: options, [`Shadow`], [`ShadowSink`].

use htrewrite_tokenizer::{Feedback, Token, TokenSink};

use crate::{EventSink, Namespace, NodeId, Origin, QuirksMode};

/// Settings of a [`Shadow`].
///
/// # Example
/// ```
/// use htrewrite_shadow::{Namespace, ShadowOptions};
/// let o = ShadowOptions { fragment_context: Some(("td".into(), Namespace::Html)), ..ShadowOptions::default() };
/// assert!(o.scripting);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShadowOptions {
    /// The [scripting flag](https://html.spec.whatwg.org/multipage/parsing.html#scripting-flag):
    /// on (the default, as in browsers) makes `<noscript>` RAWTEXT.
    pub scripting: bool,
    /// Parse a fragment with this context element (local name as in the DOM,
    /// e.g. `foreignObject`, and namespace), as the
    /// [fragment parsing algorithm](https://html.spec.whatwg.org/multipage/parsing.html#parsing-html-fragments)
    /// does. `None` parses a document.
    pub fragment_context: Option<(String, Namespace)>,
    /// For fragments: the quirks mode of the context element's document.
    pub fragment_quirks: QuirksMode,
}

impl Default for ShadowOptions {
    fn default() -> ShadowOptions {
        ShadowOptions { scripting: true, fragment_context: None, fragment_quirks: QuirksMode::NoQuirks }
    }
}

/// One entry of the [stack of open elements](https://html.spec.whatwg.org/multipage/parsing.html#stack-of-open-elements).
///
/// # Example
/// ```ignore
/// let shadow = htrewrite_shadow::Shadow::new(Default::default());
/// assert!(shadow.open_elements().is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenElement {
    pub(crate) id: NodeId,
    pub(crate) name: Box<str>,
    pub(crate) ns: Namespace,
    pub(crate) origin: Origin,
}

impl OpenElement {
    /// The element's id (as in its [`Event::ElementOpened`](crate::Event::ElementOpened)).
    pub fn id(&self) -> NodeId {
        self.id
    }
    /// The local name (adjusted for SVG: `foreignObject`).
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The namespace.
    pub fn ns(&self) -> Namespace {
        self.ns
    }
    /// Where the element came from.
    pub fn origin(&self) -> Origin {
        self.origin
    }
}

/// The tree-construction shadow.
pub struct Shadow {
    options: ShadowOptions,
    stack: Vec<OpenElement>,
}

impl Shadow {
    /// A shadow in the initial state (or, for fragments, set up by the
    /// fragment parsing algorithm).
    pub fn new(options: ShadowOptions) -> Shadow {
        Shadow { options, stack: Vec::new() }
    }

    /// Processes one token and returns the feedback for the tokenizer.
    pub fn process<E: EventSink + ?Sized>(&mut self, token: &Token<'_>, sink: &mut E) -> Feedback {
        let _ = (token, sink, &self.options);
        Feedback::default()
    }

    /// Processes the end-of-file token.
    pub fn finish<E: EventSink + ?Sized>(&mut self, sink: &mut E) {
        let _ = sink;
    }

    /// The stack of open elements, bottom (`html`) first.
    pub fn open_elements(&self) -> &[OpenElement] {
        &self.stack
    }
}

/// A [`TokenSink`] that drives a [`Shadow`] and hands its events to `E`.
pub struct ShadowSink<E> {
    shadow: Shadow,
    events: E,
}

impl<E: EventSink> ShadowSink<E> {
    /// Wraps a shadow and an event sink.
    pub fn new(shadow: Shadow, events: E) -> ShadowSink<E> {
        ShadowSink { shadow, events }
    }
    /// Runs the end-of-file steps (call after `Tokenizer::finish`).
    pub fn finish(&mut self) {
        self.shadow.finish(&mut self.events);
    }
    /// The shadow.
    pub fn shadow(&self) -> &Shadow {
        &self.shadow
    }
    /// The event sink.
    pub fn events_mut(&mut self) -> &mut E {
        &mut self.events
    }
    /// Takes the shadow and the event sink back.
    pub fn into_parts(self) -> (Shadow, E) {
        (self.shadow, self.events)
    }
}

impl<E: EventSink> TokenSink for ShadowSink<E> {
    fn token(&mut self, token: &Token<'_>) -> Feedback {
        self.shadow.process(token, &mut self.events)
    }
}
