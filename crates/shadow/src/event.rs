//! Events: what the shadow tells the layers above, enough to rebuild exactly
//! the tree the Standard's [tree construction](https://html.spec.whatwg.org/multipage/parsing.html#tree-construction)
//! builds.
//!
//! The shadow keeps no DOM. Each change the Standard makes to the document is
//! reported as one [`Event`], in order, naming nodes by [`NodeId`]. A consumer
//! that applies the events literally (append, insert before, move, remove)
//! gets the Standard's document: the test harness does exactly that and
//! compares with html5lib's expected trees.

use crate::KnownName;
use htrewrite_tokenizer::Span;

/// Identifies one node created by tree construction.
///
/// Ids are unique within one [`Shadow`](crate::Shadow) run and increase in
/// creation order. The Document is [`NodeId::DOCUMENT`] (`0`); in fragment
/// parsing, the root `html` element made by the fragment algorithm is the
/// first element created. Only elements get ids (text, comments and
/// processing instructions are never referred to again).
///
/// # Example
/// ```
/// use htrewrite_shadow::NodeId;
/// assert_eq!(NodeId::DOCUMENT, NodeId(0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u64);

impl NodeId {
    /// The Document node.
    pub const DOCUMENT: NodeId = NodeId(0);
}

/// The namespace of an element.
///
/// # Example
/// ```
/// use htrewrite_shadow::Namespace;
/// assert_eq!(Namespace::Svg.url(), "http://www.w3.org/2000/svg");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Namespace {
    /// The HTML namespace, `http://www.w3.org/1999/xhtml`.
    #[default]
    Html,
    /// The SVG namespace, `http://www.w3.org/2000/svg`.
    Svg,
    /// The MathML namespace, `http://www.w3.org/1998/Math/MathML`.
    MathMl,
}

impl Namespace {
    /// The namespace URL.
    pub const fn url(self) -> &'static str {
        match self {
            Namespace::Html => "http://www.w3.org/1999/xhtml",
            Namespace::Svg => "http://www.w3.org/2000/svg",
            Namespace::MathMl => "http://www.w3.org/1998/Math/MathML",
        }
    }
}

/// The namespace of an attribute, after the Standard's
/// [adjust foreign attributes](https://html.spec.whatwg.org/multipage/parsing.html#adjust-foreign-attributes).
///
/// # Example
/// ```
/// use htrewrite_shadow::AttrNamespace;
/// assert_eq!(AttrNamespace::XLink.prefix(), Some("xlink"));
/// assert_eq!(AttrNamespace::None.prefix(), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AttrNamespace {
    /// No namespace (every attribute of HTML elements, most of foreign ones).
    #[default]
    None,
    /// `http://www.w3.org/1999/xlink` (`xlink:href`, …).
    XLink,
    /// `http://www.w3.org/XML/1998/namespace` (`xml:lang`, `xml:space`).
    Xml,
    /// `http://www.w3.org/2000/xmlns/` (`xmlns`, `xmlns:xlink`).
    Xmlns,
}

impl AttrNamespace {
    /// The conventional prefix (as html5lib's tree format prints it), `None`
    /// for no namespace.
    pub const fn prefix(self) -> Option<&'static str> {
        match self {
            AttrNamespace::None => None,
            AttrNamespace::XLink => Some("xlink"),
            AttrNamespace::Xml => Some("xml"),
            AttrNamespace::Xmlns => Some("xmlns"),
        }
    }
}

/// One attribute of an inserted element: name adjusted for its element's
/// namespace, duplicates already dropped (the first one wins, as in the
/// Standard).
///
/// For SVG elements the name is case-adjusted (`viewbox` → `viewBox`), for
/// MathML `definitionurl` → `definitionURL`; for foreign elements `xlink:href`
/// becomes `name: "href"`, `namespace: XLink`. `xmlns` on foreign elements is
/// `name: "xmlns"`, `namespace: Xmlns`.
///
/// # Example
/// ```
/// use htrewrite_shadow::{AttrNamespace, ShadowAttr};
/// let a = ShadowAttr::new("class", "x");
/// assert_eq!(a.namespace, AttrNamespace::None);
/// ```
#[derive(Debug, PartialEq, Eq, Hash, Default)]
pub struct ShadowAttr {
    /// The local name (adjusted).
    pub name: String,
    /// The attribute's namespace.
    pub namespace: AttrNamespace,
    /// The decoded value.
    pub value: String,
}

/// `clone_from` reuses the buffers of the name and value (so does
/// `Vec::<ShadowAttr>::clone_from` then, attribute by attribute).
impl Clone for ShadowAttr {
    fn clone(&self) -> ShadowAttr {
        ShadowAttr { name: self.name.clone(), namespace: self.namespace, value: self.value.clone() }
    }

    fn clone_from(&mut self, source: &ShadowAttr) {
        self.name.clone_from(&source.name);
        self.namespace = source.namespace;
        self.value.clone_from(&source.value);
    }
}

impl ShadowAttr {
    /// An attribute in no namespace.
    pub fn new(name: impl Into<String>, value: impl Into<String>) -> ShadowAttr {
        ShadowAttr { name: name.into(), namespace: AttrNamespace::None, value: value.into() }
    }
}

/// Where an element came from.
///
/// # Example
/// ```
/// use htrewrite_shadow::{NodeId, Origin};
/// let o = Origin::ReconstructedFormatting { clone_of: NodeId(3) };
/// assert!(!o.is_from_start_tag());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Origin {
    /// Made for a start tag in the input, whose bytes lie at `span`.
    StartTag {
        /// The start tag's span.
        span: Span,
    },
    /// Implied by the Standard without a tag in the input (`html`, `head`,
    /// `body`, `tbody`, `tr`, `colgroup`, the `p` of a stray `</p>`, …).
    Implied,
    /// A clone made by [reconstructing the active formatting elements](https://html.spec.whatwg.org/multipage/parsing.html#reconstruct-the-active-formatting-elements).
    ReconstructedFormatting {
        /// The element whose token was used again.
        clone_of: NodeId,
    },
    /// A clone made by the [adoption agency algorithm](https://html.spec.whatwg.org/multipage/parsing.html#adoption-agency-algorithm).
    AdoptionAgencyClone {
        /// The element whose token was used again.
        clone_of: NodeId,
    },
    /// The root `html` element of the [fragment parsing algorithm](https://html.spec.whatwg.org/multipage/parsing.html#parsing-html-fragments).
    FragmentRoot,
}

impl Origin {
    /// Whether the element was made for a start tag of the input.
    pub const fn is_from_start_tag(&self) -> bool {
        matches!(self, Origin::StartTag { .. })
    }
}

/// Where a node is inserted (the Standard's "appropriate place for inserting a node").
///
/// # Example
/// ```
/// use htrewrite_shadow::{NodeId, Position};
/// let p = Position::Append { parent: NodeId::DOCUMENT };
/// assert_eq!(p.parent(), Some(NodeId::DOCUMENT));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Position {
    /// As the last child of `parent` (never a `template`: see
    /// [`Position::AppendToTemplateContents`]).
    Append {
        /// The new parent.
        parent: NodeId,
    },
    /// [Foster parenting](https://html.spec.whatwg.org/multipage/parsing.html#foster-parent):
    /// immediately before `before` (a `table`), inside `parent`, which is
    /// `before`'s parent. When `parent` is a `template`, the node goes into
    /// its template contents, before `before`.
    InsertBefore {
        /// The parent of `before`.
        parent: NodeId,
        /// The sibling the node is inserted before.
        before: NodeId,
    },
    /// As the last child of the template contents of `template`.
    AppendToTemplateContents {
        /// The `template` element.
        template: NodeId,
    },
    /// Created without a parent; a later [`Event::NodeMoved`] places it
    /// (clones made inside the adoption agency algorithm).
    Detached,
}

impl Position {
    /// The parent node (the `template` for template contents), `None` when detached.
    pub const fn parent(&self) -> Option<NodeId> {
        match *self {
            Position::Append { parent } | Position::InsertBefore { parent, .. } => Some(parent),
            Position::AppendToTemplateContents { template } => Some(template),
            Position::Detached => None,
        }
    }
}

/// Why an element left the stack of open elements.
///
/// # Example
/// ```
/// use htrewrite_shadow::CloseCause;
/// use htrewrite_tokenizer::Span;
/// let c = CloseCause::EndTag { span: Span::new(5, 9) };
/// assert_ne!(c, CloseCause::Eof);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CloseCause {
    /// Its own end tag (or the end tag that closes it by name, e.g. `</h2>`
    /// closing an `h1`, `</table>` closing an open `tbody` is
    /// [`CloseCause::Implied`] for the `tbody` and `EndTag` for the table).
    EndTag {
        /// The end tag's span.
        span: Span,
    },
    /// Popped right after insertion: void elements, acknowledged self-closing
    /// foreign elements, and the elements an end tag implies (`</p>` with
    /// no `p` open, `</br>`).
    Immediate {
        /// The span of the token that inserted it.
        span: Span,
    },
    /// Closed because another token implied its end (`<p>` before `<div>`,
    /// `<li>` before `<li>`, text in `<head>`…).
    Implied {
        /// The token that caused it (an empty span at the end of input for
        /// implied closings during EOF handling).
        by: Span,
    },
    /// Removed from the stack by the adoption agency algorithm.
    AdoptionAgency {
        /// The end tag (or `<a>`/`<nobr>` start tag) that ran it.
        by: Span,
    },
    /// Still open at the end of input.
    Eof,
}

/// The document's [quirks mode](https://dom.spec.whatwg.org/#concept-document-quirks).
///
/// # Example
/// ```
/// use htrewrite_shadow::QuirksMode;
/// assert_eq!(QuirksMode::default(), QuirksMode::NoQuirks);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum QuirksMode {
    /// "no-quirks".
    #[default]
    NoQuirks,
    /// "limited-quirks".
    LimitedQuirks,
    /// "quirks".
    Quirks,
}

/// One change to the document, or a token that changed nothing.
///
/// Events come in document order of the Standard's algorithm. Applying them
/// literally rebuilds the Standard's tree:
/// - [`Event::ElementOpened`] creates an element and inserts it at `position`
///   (an element of the `template` name also gets empty template contents);
/// - [`Event::Text`] inserts characters at `position`; when the node just
///   before that place is a Text node, the characters are appended to it
///   (the Standard's rule; the shadow does not merge);
/// - [`Event::NodeMoved`] detaches the element and inserts it at `to`;
/// - [`Event::ChildrenMoved`] moves all children of `from`, in order, to the
///   end of `to`;
/// - [`Event::NodeRemoved`] detaches the element from its parent;
/// - [`Event::ElementClosed`] changes nothing in the tree: the element left the
///   stack of open elements.
///
/// # Example
/// ```
/// use htrewrite_shadow::{Event, NodeId, Position};
/// let e = Event::Text { position: Position::Append { parent: NodeId(3) }, text: "hi" };
/// assert!(matches!(e, Event::Text { text: "hi", .. }));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event<'a> {
    /// A DOCTYPE node appended to the Document; also sets the document's quirks mode.
    Doctype {
        /// The name (`None` when missing).
        name: Option<&'a str>,
        /// The public identifier.
        public_id: Option<&'a str>,
        /// The system identifier.
        system_id: Option<&'a str>,
        /// The quirks mode this DOCTYPE selects.
        quirks: QuirksMode,
    },
    /// An element was created and inserted (and, unless `Position::Detached`
    /// or the adoption agency's clones, pushed on the stack of open elements).
    ElementOpened {
        /// Its id.
        id: NodeId,
        /// The adjusted local name (`foreignObject`, `clipPath`, …).
        name: &'a str,
        /// Its namespace.
        ns: Namespace,
        /// `KnownName::of(ns, name)`, which the shadow has computed: a
        /// consumer reads tables by it instead of comparing the name.
        known: Option<KnownName>,
        /// Attributes with adjusted names, duplicates dropped (empty for a
        /// start tag whose attributes the sink declined:
        /// [`EventSink::wants_start_tag_attributes`]).
        attrs: &'a [ShadowAttr],
        /// Where it came from.
        origin: Origin,
        /// Where it was inserted.
        position: Position,
        /// Whether the start tag's self-closing flag was acknowledged
        /// (void HTML elements and foreign elements with `/>`).
        self_closing: bool,
    },
    /// An element was popped from (or removed from) the stack of open elements.
    ElementClosed {
        /// The element.
        id: NodeId,
        /// Why.
        cause: CloseCause,
    },
    /// Characters inserted.
    Text {
        /// Where.
        position: Position,
        /// The characters (never empty, unless the sink declined them:
        /// [`EventSink::wants_text`]). (A sink can also decline text
        /// events: [`EventSink::wants_text_events`].)
        text: &'a str,
    },
    /// A comment inserted.
    Comment {
        /// Where.
        position: Position,
        /// Its data (empty if the sink declined it: [`EventSink::wants_text`]).
        data: &'a str,
    },
    /// A processing instruction inserted (where a comment would be).
    ProcessingInstruction {
        /// Where.
        position: Position,
        /// Its target.
        target: &'a str,
        /// Its data.
        data: &'a str,
    },
    /// An existing element moved (adoption agency).
    NodeMoved {
        /// The element.
        id: NodeId,
        /// Its new place.
        to: Position,
    },
    /// All children of `from` moved, in order, to the end of `to` (adoption agency).
    ChildrenMoved {
        /// The old parent.
        from: NodeId,
        /// The new parent.
        to: NodeId,
    },
    /// An element was removed from its parent (`<frameset>` replacing `body`).
    NodeRemoved {
        /// The element.
        id: NodeId,
    },
    /// The DOM's [clone an option into a selectedcontent](https://html.spec.whatwg.org/multipage/form-elements.html#clone-an-option-into-a-selectedcontent):
    /// the children of `selectedcontent` are replaced by deep clones of the
    /// children of `option`, as the tree is now. Emitted when a selected
    /// `option` of a `select` with an enabled `selectedcontent` is popped off
    /// the stack of open elements (the customizable `<select>` of 2025;
    /// whatwg/html#11764 runs it on every such pop, as the html5lib tests
    /// expect), right after the option's [`Event::ElementClosed`].
    SelectedContentCloned {
        /// The selected option.
        option: NodeId,
        /// The `selectedcontent` element whose children are replaced.
        selectedcontent: NodeId,
    },
    /// Attributes merged into an existing `html` or `body` element: only those
    /// not already present.
    AttributesAdded {
        /// The `html` or `body` element.
        id: NodeId,
        /// The new attributes.
        attrs: &'a [ShadowAttr],
    },
    /// A token (or part of a text token) that changed nothing.
    Ignored {
        /// Why, as a short phrase.
        reason: &'static str,
        /// The token's span.
        span: Span,
    },
}

/// Receives [`Event`]s from the shadow.
///
/// # Example
/// ```
/// use htrewrite_shadow::{Event, EventSink};
/// struct Count(usize);
/// impl EventSink for Count {
///     fn event(&mut self, _e: Event<'_>) { self.0 += 1; }
/// }
/// let mut c = Count(0);
/// c.event(Event::ElementClosed { id: htrewrite_shadow::NodeId(1), cause: htrewrite_shadow::CloseCause::Eof });
/// assert_eq!(c.0, 1);
/// ```
pub trait EventSink {
    /// Handles one event.
    fn event(&mut self, e: Event<'_>);

    /// A [declarative shadow root](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-inhead)
    /// was attached to `host` (only with
    /// [`ShadowOptions::declarative_shadow_roots`](crate::ShadowOptions::declarative_shadow_roots)):
    /// the `template` element, whose [`Event::ElementOpened`] just came with
    /// [`Position::Detached`], is not inserted anywhere; its template contents
    /// *are* `host`'s shadow root, so everything later inserted with
    /// [`Position::AppendToTemplateContents`] for it goes into the shadow root.
    /// When `host` already had a declarative shadow root of the same mode, that
    /// root is reused and its children are removed first.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{Event, EventSink, NodeId, Shadow, ShadowAttr, ShadowOptions, TagToken, TreeToken};
    /// #[derive(Default)]
    /// struct Roots(Vec<(NodeId, NodeId)>);
    /// impl EventSink for Roots {
    ///     fn event(&mut self, _: Event<'_>) {}
    ///     fn attach_declarative_shadow_root(&mut self, host: NodeId, template: NodeId) {
    ///         self.0.push((host, template));
    ///     }
    /// }
    /// let o = ShadowOptions { declarative_shadow_roots: true, ..ShadowOptions::default() };
    /// let mut shadow = Shadow::new(o);
    /// let mut roots = Roots::default();
    /// let div = TagToken::new("div", vec![]);
    /// let template = TagToken::new("template", vec![ShadowAttr::new("shadowrootmode", "open")]);
    /// shadow.process_tree_token(TreeToken::StartTag(&div), Default::default(), &mut roots);
    /// shadow.process_tree_token(TreeToken::StartTag(&template), Default::default(), &mut roots);
    /// assert_eq!(roots.0.len(), 1);
    /// ```
    fn attach_declarative_shadow_root(&mut self, host: NodeId, template: NodeId) {
        let _ = (host, template);
    }

    /// Whether this sink reads the characters of [`Event::Text`] (and the
    /// data of [`Event::Comment`]); asked once per token, before the token
    /// is processed.
    ///
    /// `true` (the default): every `Event::Text` carries its decoded
    /// characters, never empty, and every `Event::Comment` its data.
    /// `false`: every `Event::Text` carries `text: ""` and every
    /// `Event::Comment` `data: ""`, and nothing else changes: the same
    /// events, in the same order, at the same positions, with the same ids
    /// and closing causes.
    /// The shadow then decodes a text token only where tree construction
    /// itself looks at its characters beyond telling whitespace from the
    /// rest (tables, foreign content, U+0000, the newline after `<pre>`, …).
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{Event, EventSink, NodeId, Shadow, ShadowOptions, TreeToken};
    /// #[derive(Default)]
    /// struct Places(Vec<(Option<NodeId>, String)>);
    /// impl EventSink for Places {
    ///     fn event(&mut self, e: Event<'_>) {
    ///         if let Event::Text { position, text } = e {
    ///             self.0.push((position.parent(), text.to_owned()));
    ///         }
    ///     }
    ///     fn wants_text(&self) -> bool {
    ///         false
    ///     }
    /// }
    /// let mut shadow = Shadow::new(ShadowOptions::default());
    /// let mut places = Places::default();
    /// shadow.process_tree_token(TreeToken::Text("hello"), Default::default(), &mut places);
    /// let body = shadow.current_node().unwrap().id();
    /// assert_eq!(places.0, [(Some(body), String::new())]);
    /// ```
    fn wants_text(&self) -> bool {
        true
    }

    /// Whether this sink takes [`Event::Text`] events at all; asked once per
    /// token, before the token is processed.
    ///
    /// `true` (the default): text events are sent as documented. `false`:
    /// no `Event::Text` is sent, and nothing else changes (the shadow then
    /// does not look for the place of text that it would only report).
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{Event, EventSink, Shadow, ShadowOptions, TreeToken};
    /// #[derive(Default)]
    /// struct Kinds(Vec<&'static str>);
    /// impl EventSink for Kinds {
    ///     fn event(&mut self, e: Event<'_>) {
    ///         self.0.push(if matches!(e, Event::Text { .. }) { "text" } else { "other" });
    ///     }
    ///     fn wants_text_events(&self) -> bool {
    ///         false
    ///     }
    /// }
    /// let mut shadow = Shadow::new(ShadowOptions::default());
    /// let mut kinds = Kinds::default();
    /// shadow.process_tree_token(TreeToken::Text("hello"), Default::default(), &mut kinds);
    /// assert!(!kinds.0.is_empty() && !kinds.0.contains(&"text")); // html, head, body opened; no text
    /// ```
    fn wants_text_events(&self) -> bool {
        true
    }

    /// Whether this sink reads the attributes of the element made for a
    /// start tag named `name` (ASCII-lowercase, as the tokenizer decodes it,
    /// before SVG case adjustment); asked once per start tag that has
    /// attributes, before it is processed (a start tag without attributes
    /// shows none either way). The answer must not change during a run
    /// (for one name).
    ///
    /// `true` (the default): events carry the attributes as documented.
    /// `false`: the [`Event::ElementOpened`] of an element made for this
    /// start tag ([`Origin::StartTag`]) carries `attrs: &[]`, and the tag
    /// adds no [`Event::AttributesAdded`] to `html` or `body`; nothing else
    /// changes: the same events, in the same order, with the same ids,
    /// names and positions. Clones of formatting elements
    /// ([`Origin::ReconstructedFormatting`], [`Origin::AdoptionAgencyClone`])
    /// always carry their attributes: the shadow keeps those of formatting
    /// elements anyway. The shadow then decodes and copies a start tag's
    /// attributes only where tree construction itself reads them (`font`,
    /// `input`, `select`, `option`, `template`, `annotation-xml`), and those
    /// of the other formatting elements only once the Noah's Ark clause
    /// compares them or a clone needs them.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{Event, EventSink, Shadow, ShadowAttr, ShadowOptions, TagToken, TreeToken};
    /// #[derive(Default)]
    /// struct Links(Vec<(String, usize)>);
    /// impl EventSink for Links {
    ///     fn event(&mut self, e: Event<'_>) {
    ///         if let Event::ElementOpened { name, attrs, .. } = e {
    ///             self.0.push((name.to_owned(), attrs.len()));
    ///         }
    ///     }
    ///     fn wants_start_tag_attributes(&self, name: &str) -> bool {
    ///         name == "link"
    ///     }
    /// }
    /// let mut shadow = Shadow::new(ShadowOptions::default());
    /// let mut links = Links::default();
    /// for name in ["link", "meta"] {
    ///     let t = TagToken::new(name, vec![ShadowAttr::new("rel", "x")]);
    ///     shadow.process_tree_token(TreeToken::StartTag(&t), Default::default(), &mut links);
    /// }
    /// assert_eq!(links.0[2..], [("link".to_owned(), 1), ("meta".to_owned(), 0)]); // after html, head
    /// ```
    fn wants_start_tag_attributes(&self, name: &str) -> bool {
        let _ = name;
        true
    }

    /// Whether this sink reads the attribute *values* of the element made
    /// for a start tag named `name`, when it reads its attributes
    /// ([`EventSink::wants_start_tag_attributes`] said `true`); asked once
    /// per such start tag with attributes. The answer must not change
    /// during a run (for one name).
    ///
    /// `true` (the default): events carry the attributes as documented.
    /// `false`: the [`Event::ElementOpened`] of an element made for this
    /// start tag ([`Origin::StartTag`]), and its [`Event::AttributesAdded`]
    /// to `html` or `body`, carry the attributes' names and namespaces, in
    /// the same order, each with an empty value; nothing else changes. The
    /// values of the start tags whose attributes tree construction itself
    /// reads (see [`EventSink::wants_start_tag_attributes`]: `font`,
    /// `input`, …) are decoded and carried anyway. A sink that tests only
    /// which attributes an element has (a selector `a[href]`) saves
    /// decoding and copying every value. This is about tokens the shadow
    /// decodes ([`Shadow::process`](crate::Shadow::process)); a start tag
    /// given decoded ([`Shadow::process_tree_token`](crate::Shadow::process_tree_token))
    /// passes its attributes on as they are, values included.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{Event, EventSink, Shadow, ShadowAttr, ShadowOptions, TagToken, TreeToken};
    /// use htrewrite_tokenizer::{Feedback, Token, TokenSink, Tokenizer};
    /// #[derive(Default)]
    /// struct Names(Vec<(String, String)>);
    /// impl EventSink for Names {
    ///     fn event(&mut self, e: Event<'_>) {
    ///         if let Event::ElementOpened { attrs, .. } = e {
    ///             self.0.extend(attrs.iter().map(|a| (a.name.clone(), a.value.clone())));
    ///         }
    ///     }
    ///     fn wants_start_tag_attribute_values(&self, _: &str) -> bool {
    ///         false
    ///     }
    /// }
    /// struct Feed(Shadow, Names);
    /// impl TokenSink for Feed {
    ///     fn token(&mut self, t: &Token<'_>) -> Feedback {
    ///         self.0.process(t, &mut self.1)
    ///     }
    /// }
    /// let mut feed = Feed(Shadow::new(ShadowOptions::default()), Names::default());
    /// let mut tokenizer = Tokenizer::new();
    /// tokenizer.feed(b"<a href=x>a</a><input type=hidden>", &mut feed);
    /// tokenizer.finish(&mut feed);
    /// let pair = |n: &str, v: &str| (n.to_owned(), v.to_owned());
    /// // `input`'s values are read by tree construction, so they come too.
    /// assert_eq!(feed.1.0, [pair("href", ""), pair("type", "hidden")]);
    /// ```
    fn wants_start_tag_attribute_values(&self, name: &str) -> bool {
        let _ = name;
        true
    }
}

impl<F: FnMut(Event<'_>)> EventSink for F {
    fn event(&mut self, e: Event<'_>) {
        self(e)
    }
}

/// An [`EventSink`] that drops every event, and so wants neither text
/// events nor text nor attributes ([`EventSink::wants_text_events`],
/// [`EventSink::wants_text`], [`EventSink::wants_start_tag_attributes`]).
///
/// # Example
/// ```
/// use htrewrite_shadow::{EventSink, NoEvents, NodeId, CloseCause, Event};
/// NoEvents.event(Event::ElementClosed { id: NodeId(1), cause: CloseCause::Eof });
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct NoEvents;

impl EventSink for NoEvents {
    fn event(&mut self, _e: Event<'_>) {}

    fn wants_text(&self) -> bool {
        false
    }

    fn wants_text_events(&self) -> bool {
        false
    }

    fn wants_start_tag_attributes(&self, _name: &str) -> bool {
        false
    }
}

/// An owned copy of an [`Event`], for tests and recording.
///
/// # Example
/// ```
/// use htrewrite_shadow::{Event, OwnedEvent, NodeId, CloseCause};
/// let e = OwnedEvent::from(&Event::ElementClosed { id: NodeId(2), cause: CloseCause::Eof });
/// assert_eq!(e, OwnedEvent::ElementClosed { id: NodeId(2), cause: CloseCause::Eof });
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OwnedEvent {
    /// [`Event::Doctype`].
    Doctype {
        /// The name.
        name: Option<String>,
        /// The public identifier.
        public_id: Option<String>,
        /// The system identifier.
        system_id: Option<String>,
        /// The quirks mode selected.
        quirks: QuirksMode,
    },
    /// [`Event::ElementOpened`].
    ElementOpened {
        /// Its id.
        id: NodeId,
        /// The adjusted local name.
        name: String,
        /// Its namespace.
        ns: Namespace,
        /// Its attributes.
        attrs: Vec<ShadowAttr>,
        /// Where it came from.
        origin: Origin,
        /// Where it was inserted.
        position: Position,
        /// Whether the self-closing flag was acknowledged.
        self_closing: bool,
    },
    /// [`Event::ElementClosed`].
    ElementClosed {
        /// The element.
        id: NodeId,
        /// Why.
        cause: CloseCause,
    },
    /// [`Event::Text`].
    Text {
        /// Where.
        position: Position,
        /// The characters.
        text: String,
    },
    /// [`Event::Comment`].
    Comment {
        /// Where.
        position: Position,
        /// Its data.
        data: String,
    },
    /// [`Event::ProcessingInstruction`].
    ProcessingInstruction {
        /// Where.
        position: Position,
        /// Its target.
        target: String,
        /// Its data.
        data: String,
    },
    /// [`Event::NodeMoved`].
    NodeMoved {
        /// The element.
        id: NodeId,
        /// Its new place.
        to: Position,
    },
    /// [`Event::ChildrenMoved`].
    ChildrenMoved {
        /// The old parent.
        from: NodeId,
        /// The new parent.
        to: NodeId,
    },
    /// [`Event::NodeRemoved`].
    NodeRemoved {
        /// The element.
        id: NodeId,
    },
    /// [`Event::SelectedContentCloned`].
    SelectedContentCloned {
        /// The selected option.
        option: NodeId,
        /// The `selectedcontent` element.
        selectedcontent: NodeId,
    },
    /// [`Event::AttributesAdded`].
    AttributesAdded {
        /// The `html` or `body` element.
        id: NodeId,
        /// The new attributes.
        attrs: Vec<ShadowAttr>,
    },
    /// [`Event::Ignored`].
    Ignored {
        /// Why.
        reason: &'static str,
        /// The token's span.
        span: Span,
    },
}

impl From<&Event<'_>> for OwnedEvent {
    fn from(e: &Event<'_>) -> OwnedEvent {
        let s = |x: Option<&str>| x.map(str::to_owned);
        match *e {
            Event::Doctype { name, public_id, system_id, quirks } => {
                OwnedEvent::Doctype { name: s(name), public_id: s(public_id), system_id: s(system_id), quirks }
            }
            Event::ElementOpened { id, name, ns, attrs, origin, position, self_closing, .. } => {
                OwnedEvent::ElementOpened {
                    id,
                    name: name.to_owned(),
                    ns,
                    attrs: attrs.to_vec(),
                    origin,
                    position,
                    self_closing,
                }
            }
            Event::ElementClosed { id, cause } => OwnedEvent::ElementClosed { id, cause },
            Event::Text { position, text } => OwnedEvent::Text { position, text: text.to_owned() },
            Event::Comment { position, data } => OwnedEvent::Comment { position, data: data.to_owned() },
            Event::ProcessingInstruction { position, target, data } => {
                OwnedEvent::ProcessingInstruction { position, target: target.to_owned(), data: data.to_owned() }
            }
            Event::NodeMoved { id, to } => OwnedEvent::NodeMoved { id, to },
            Event::ChildrenMoved { from, to } => OwnedEvent::ChildrenMoved { from, to },
            Event::NodeRemoved { id } => OwnedEvent::NodeRemoved { id },
            Event::SelectedContentCloned { option, selectedcontent } => {
                OwnedEvent::SelectedContentCloned { option, selectedcontent }
            }
            Event::AttributesAdded { id, attrs } => OwnedEvent::AttributesAdded { id, attrs: attrs.to_vec() },
            Event::Ignored { reason, span } => OwnedEvent::Ignored { reason, span },
        }
    }
}

impl OwnedEvent {
    /// The events in the form that does not depend on where the input was
    /// cut into chunks: adjacent [`OwnedEvent::Text`] events at the same
    /// position merged, and adjacent [`OwnedEvent::Ignored`] events with the
    /// same reason and touching spans merged. Every other event is kept as
    /// it is; two runs over the same input, chunked differently, give equal
    /// canonical lists (the crate's chunking guarantee, and what its tests
    /// and the `tokenizer_shadow` fuzz target compare).
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NodeId, OwnedEvent, Position};
    /// let at = Position::Append { parent: NodeId(3) };
    /// let text = |t: &str| OwnedEvent::Text { position: at, text: t.into() };
    /// assert_eq!(OwnedEvent::canonical(&[text("a"), text("b")]), [text("ab")]);
    /// ```
    pub fn canonical(events: &[OwnedEvent]) -> Vec<OwnedEvent> {
        let mut out: Vec<OwnedEvent> = Vec::with_capacity(events.len());
        for e in events {
            match (out.last_mut(), e) {
                (Some(OwnedEvent::Text { position: p, text: t }), OwnedEvent::Text { position, text })
                    if p == position =>
                {
                    t.push_str(text)
                }
                (Some(OwnedEvent::Ignored { reason: r, span: s }), OwnedEvent::Ignored { reason, span })
                    if r == reason && s.end == span.start =>
                {
                    s.end = span.end
                }
                _ => out.push(e.clone()),
            }
        }
        out
    }

    /// What a sink that declines what `sink` declines gets instead of
    /// `events`, the events of a sink that declines nothing, as
    /// [`EventSink`]'s docs promise: without [`EventSink::wants_text_events`]
    /// no [`OwnedEvent::Text`]; without [`EventSink::wants_text`] every text
    /// event without its characters and every comment without its data; for an element made for a start tag
    /// whose attributes `sink` declines ([`EventSink::wants_start_tag_attributes`])
    /// no attributes, and no [`OwnedEvent::AttributesAdded`] for an `html`
    /// or `body` start tag whose attributes it declines; where it takes the
    /// attributes but declines their values
    /// ([`EventSink::wants_start_tag_attribute_values`]), and tree
    /// construction does not read them, those attributes with empty values;
    /// every other event unchanged. Compare the [canonical](OwnedEvent::canonical) forms: a
    /// declining sink may get its text in other pieces.
    ///
    /// `sink` is asked about a start tag by the name of the element made for
    /// it, ASCII-lowercased: that is the tag's name, except for the `img`
    /// made for an `<image>` start tag (a sink should answer alike for both).
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{Event, EventSink, NodeId, OwnedEvent, Position};
    /// struct Declines;
    /// impl EventSink for Declines {
    ///     fn event(&mut self, _: Event<'_>) {}
    ///     fn wants_text(&self) -> bool {
    ///         false
    ///     }
    /// }
    /// let text = |t: &str| OwnedEvent::Text { position: Position::Append { parent: NodeId(3) }, text: t.into() };
    /// assert_eq!(OwnedEvent::as_declined_by(&[text("a")], &Declines), [text("")]);
    /// ```
    pub fn as_declined_by<E: EventSink + ?Sized>(events: &[OwnedEvent], sink: &E) -> Vec<OwnedEvent> {
        // The attributes a start tag named `name` (ASCII-lowercase) shows to
        // `sink`: `None` when it declines them, else all of them, their values
        // emptied when it declines those and tree construction does not read them.
        let shown = |name: &str, attrs: &[ShadowAttr]| -> Option<Vec<ShadowAttr>> {
            if !sink.wants_start_tag_attributes(name) {
                return None;
            }
            let values = sink.wants_start_tag_attribute_values(name)
                || crate::tags::attribute_use(name) == crate::tags::AttributeUse::Read;
            Some(
                attrs
                    .iter()
                    .map(|a| if values { a.clone() } else { ShadowAttr { value: String::new(), ..a.clone() } })
                    .collect(),
            )
        };
        let (text, text_events) = (sink.wants_text(), sink.wants_text_events());
        // The names of the elements opened, for `AttributesAdded`.
        let mut names: std::collections::HashMap<NodeId, &str> = std::collections::HashMap::new();
        let mut out = Vec::with_capacity(events.len());
        for e in events {
            match e {
                OwnedEvent::Text { .. } if !text_events => {}
                OwnedEvent::Text { position, .. } if !text => {
                    out.push(OwnedEvent::Text { position: *position, text: String::new() })
                }
                OwnedEvent::Comment { position, .. } if !text => {
                    out.push(OwnedEvent::Comment { position: *position, data: String::new() })
                }
                OwnedEvent::ElementOpened { id, name, ns, attrs, origin, position, self_closing }
                    if origin.is_from_start_tag() =>
                {
                    names.insert(*id, name);
                    out.push(OwnedEvent::ElementOpened {
                        id: *id,
                        name: name.clone(),
                        ns: *ns,
                        attrs: shown(&name.to_ascii_lowercase(), attrs).unwrap_or_default(),
                        origin: *origin,
                        position: *position,
                        self_closing: *self_closing,
                    })
                }
                OwnedEvent::ElementOpened { id, name, .. } => {
                    names.insert(*id, name);
                    out.push(e.clone())
                }
                OwnedEvent::AttributesAdded { id, attrs } if names.contains_key(id) => {
                    if let Some(attrs) = shown(names[id], attrs) {
                        out.push(OwnedEvent::AttributesAdded { id: *id, attrs })
                    }
                }
                other => out.push(other.clone()),
            }
        }
        out
    }

    /// Checks the pairing consumers rely on: every element opened is closed
    /// exactly once (by the end of input at the latest), and nothing is
    /// closed before it is opened.
    ///
    /// # Errors
    /// The first violation, as a [`PairingError`].
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{CloseCause, NodeId, OwnedEvent, PairingError};
    /// let closed = OwnedEvent::ElementClosed { id: NodeId(5), cause: CloseCause::Eof };
    /// assert_eq!(
    ///     OwnedEvent::check_pairing(&[closed]),
    ///     Err(PairingError::ClosedBeforeOpened { event: 0, id: NodeId(5) })
    /// );
    /// assert_eq!(OwnedEvent::check_pairing(&[]), Ok(()));
    /// ```
    pub fn check_pairing(events: &[OwnedEvent]) -> Result<(), PairingError> {
        let mut closed: std::collections::HashMap<NodeId, bool> = std::collections::HashMap::new();
        for (event, e) in events.iter().enumerate() {
            match e {
                OwnedEvent::ElementOpened { id, .. } if closed.insert(*id, false).is_some() => {
                    return Err(PairingError::OpenedTwice { event, id: *id });
                }
                OwnedEvent::ElementClosed { id, .. } => match closed.get_mut(id) {
                    None => return Err(PairingError::ClosedBeforeOpened { event, id: *id }),
                    Some(true) => return Err(PairingError::ClosedTwice { event, id: *id }),
                    Some(c) => *c = true,
                },
                _ => {}
            }
        }
        let mut ids: Vec<NodeId> = closed.iter().filter(|(_, c)| !**c).map(|(id, _)| *id).collect();
        ids.sort();
        if ids.is_empty() { Ok(()) } else { Err(PairingError::NeverClosed { ids }) }
    }
}

/// How a list of events fails to pair up ([`OwnedEvent::check_pairing`]);
/// `event` is the index of the offending event.
///
/// # Example
/// ```
/// use htrewrite_shadow::{NodeId, PairingError};
/// let e = PairingError::OpenedTwice { event: 4, id: NodeId(2) };
/// assert_eq!(e.to_string(), "event #4: NodeId(2) opened twice");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PairingError {
    /// An element was opened a second time.
    OpenedTwice {
        /// The event's index.
        event: usize,
        /// The element.
        id: NodeId,
    },
    /// An element was closed before it was opened.
    ClosedBeforeOpened {
        /// The event's index.
        event: usize,
        /// The element.
        id: NodeId,
    },
    /// An element was closed a second time.
    ClosedTwice {
        /// The event's index.
        event: usize,
        /// The element.
        id: NodeId,
    },
    /// Elements still open after the last event.
    NeverClosed {
        /// Their ids, in order.
        ids: Vec<NodeId>,
    },
}

impl std::fmt::Display for PairingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PairingError::OpenedTwice { event, id } => write!(f, "event #{event}: {id:?} opened twice"),
            PairingError::ClosedBeforeOpened { event, id } => {
                write!(f, "event #{event}: {id:?} closed before it was opened")
            }
            PairingError::ClosedTwice { event, id } => write!(f, "event #{event}: {id:?} closed twice"),
            PairingError::NeverClosed { ids } => write!(f, "never closed: {ids:?}"),
        }
    }
}

impl std::error::Error for PairingError {}
