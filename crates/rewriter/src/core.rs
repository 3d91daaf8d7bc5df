//! The pipeline for one document: tokens → shadow events → selector matches
//! → handlers → output bytes.
//!
//! For each token the shadow runs first; its events (with the selector
//! matches of each opened element) are recorded as [`Action`]s, then walked
//! in order: an element's start tag bytes leave where the element is opened,
//! an end tag's bytes where the element it ends is closed, every other
//! token's bytes after its events. Content inserted for elements without
//! tags of their own lands where the shadow opens or closes them.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use smallvec::SmallVec;

use encoding_rs::Encoding;
use htrewrite_selectors::{ElementInfo, Matcher, RuleId};
use htrewrite_shadow::{
    CloseCause, Event, EventSink, FastStart, InsertionMode, KnownName, Namespace, NoEvents, NodeId, Origin, Position,
    Shadow, ShadowAttr, TextRules, TreeToken,
};
use htrewrite_tokenizer::{Feedback, Span, TextMode, Token, TokenKind, TokenSink};

use crate::content::{Context, JOIN_TAIL, Join, join_guard};
use crate::deferred::{Mark, SlotLog};
use crate::element::{Deferred, EndEdits, Place, Removal, Source, write_end_tag};
use crate::error::RewritingError;
use crate::location::Lines;
use crate::nodes::{Doc, Mutations};
use crate::parsed::ParseInsert;
use crate::settings::{DocHandlers, HandlerKind, RuleHandlers};
use crate::{Comment, Doctype, DocumentEnd, Element, ElementEnd, ProcessingInstruction, TextChunk};

/// The handler groups of one program rule, in registration order.
pub(crate) type RuleGroups = SmallVec<[u32; 1]>;

/// Output is handed to the sink when this much is staged (after the token
/// that filled it), and a token's bytes this long are handed over from the
/// token ([`Core::emit_token_bytes`]): the staged output, and so the heap a
/// large chunk costs, stays below twice this size (issue 16: at 64 KiB it
/// was the largest allocation with 64 KiB chunks). 4 KiB: with 8 KiB the
/// room kept for it ([`Core::room_for_chunk`]) was 16 KiB, and the peak
/// heap with ten selectors at 64 KiB chunks 30.6 KiB against 22.6; the
/// twice as many sink calls cost 0.02 instructions per byte.
const FLUSH_AT: usize = 4 * 1024;

/// The smallest room the staged output is given ([`Core::room_for_chunk`]).
const STAGED_MIN: usize = 256;

/// Bytes of the current token written as they are, after `out[..at]`
/// ([`Core::direct`]).
#[derive(Debug)]
pub(crate) struct Direct {
    at: usize,
    /// The bytes: a range of the token's raw bytes.
    range: std::ops::Range<usize>,
    /// The number of slot marks placed before them.
    marks: usize,
}

/// One recorded shadow event the rewriter cares about.
#[derive(Debug)]
enum Action {
    Opened {
        id: NodeId,
        ns: Namespace,
        origin: Origin,
        parent: Option<NodeId>,
        self_closing: bool,
        /// Set when the element matched a rule: its name ([`KeptName`]).
        name: Option<KeptName>,
        /// Set for an element not from a start tag that was kept: where its
        /// attributes are in the token's attributes ([`Collector::attrs`]).
        attrs: Option<std::ops::Range<usize>>,
        rules: std::ops::Range<usize>,
    },
    /// A detached element (adoption agency clone) placed into the document.
    Placed {
        id: NodeId,
        rules: std::ops::Range<usize>,
    },
    Closed {
        id: NodeId,
        cause: CloseCause,
    },
    /// Text, comment or processing instruction inserted under `parent`.
    Content {
        parent: Option<NodeId>,
    },
}

/// The name of an element an [`Action::Opened`] keeps: a known name's
/// static string, or where the name is in the token's names
/// ([`Collector::names`]). A matched element of a known name (most of them)
/// is not copied.
#[derive(Debug, Clone)]
enum KeptName {
    Known(KnownName),
    At(std::ops::Range<usize>),
}

impl KeptName {
    /// The name, from `names` (the token's names) unless known.
    #[inline]
    fn get<'a>(&self, names: &'a str) -> &'a str {
        match self {
            KeptName::Known(k) => k.name(),
            KeptName::At(r) => &names[r.clone()],
        }
    }
}

/// What is known of a detached element until it is placed.
#[derive(Debug)]
struct Detached {
    name: Box<str>,
    ns: Namespace,
    origin: Origin,
    attrs: Vec<ShadowAttr>,
    self_closing: bool,
}

/// The shadow's events of one token as the rewriter records them, with the
/// selector matcher that runs on each: the shadow's event sink.
struct Collector {
    matcher: Option<Matcher>,
    actions: Vec<Action>,
    /// The rules matched in the token (each `Action::Opened` and
    /// `Action::Placed` holds its range).
    rules: Vec<RuleId>,
    /// The names of the token's kept elements, one after another (one
    /// buffer reused from token to token instead of a string each).
    names: String,
    /// The attributes of the token's kept elements not from start tags, one
    /// list after another (so that an [`Action`] owns nothing and clearing
    /// the actions drops nothing).
    attrs: Vec<ShadowAttr>,
    /// Set when an element was made detached (an adoption-agency clone,
    /// which `Core::opened_at` remembers until it is placed).
    detached: bool,
    /// Set by the core before each token (and the end of input) when an
    /// element's close may act: see [`Core::closes_observable`]. When it is
    /// not set, an [`Action::Closed`] is recorded only after a rule matched
    /// or a detached element was made in the same token (its work can then
    /// end in this token); the others would do nothing but write the
    /// token's own bytes, which are written anyway. Without this, the end of
    /// input recorded one action per open element at once: 7.9 MB of the
    /// 19 MB peak heap with 40,000 open `div`s (dhat, no handlers).
    closes_observed: bool,
    /// Whether some text or comment handler exists (`Core::content_handlers`):
    /// only then is a text node's parent read (the scope of its handlers, the
    /// text node a comment ends), so only then does the shadow send text
    /// events ([`Action::Content`]).
    text_events: bool,
    /// Set (debug builds) when the element made for the start tag was not
    /// recorded ([`Collector::event`]): the token must stay inert.
    #[cfg(debug_assertions)]
    skipped_open: bool,
}

impl Collector {
    /// Whether the token's element events can act on nothing: no element
    /// matched a rule or was made detached in it, and closes could not act
    /// either (no open element has pending work, a suppression or a byte
    /// end, no detached element waits, no content handler exists: the state
    /// read by [`Core::closes_observable`] before the shadow ran, which the
    /// shadow does not change). Then each action would write at most the
    /// token's own bytes, which the token's path writes as they are.
    #[inline(always)]
    fn inert(&self) -> bool {
        let inert = self.rules.is_empty() && !self.detached && !self.closes_observed;
        #[cfg(debug_assertions)]
        assert!(inert || !self.skipped_open, "an action followed the start tag's unrecorded element");
        inert
    }

    /// Ready for the next token.
    #[inline]
    fn clear(&mut self) {
        self.actions.clear();
        self.rules.clear();
        self.names.clear();
        // Empty for almost every token: not the drop loop's set-up then.
        if !self.attrs.is_empty() {
            self.attrs.clear();
        }
        self.detached = false;
        #[cfg(debug_assertions)]
        {
            self.skipped_open = false;
        }
    }
}

impl EventSink for Collector {
    /// Always inlined into the shadow's call sites (the shadow is compiled
    /// for this sink, [`shadow_collect`]): each site builds one kind of
    /// event, so the event is not built in memory and matched again here.
    /// Ten selectors 47.56 → 45.88 instructions a byte, rewrite 55.80 →
    /// 54.15 (callgrind, the three lol-html bench pages); 23 KB more code.
    #[inline(always)]
    fn event(&mut self, e: Event<'_>) {
        let start = self.rules.len();
        if let Event::ElementOpened { id, name, ns, known, attrs, origin, position, self_closing } = e {
            // The rules this element matches, straight from the matcher (what
            // `Matcher::event` lists as the matches of `id`, without the list).
            if let Some(m) = self.matcher.as_mut() {
                // None or one, as most: no call to memcpy for them.
                match *m.element_opened(&ElementInfo { id, name, ns, known, attrs, position }) {
                    [] => {}
                    [r] => self.rules.push(r),
                    ref rules => self.rules.extend_from_slice(rules),
                }
            }
            let matched = self.rules.len() > start;
            let detached = position == Position::Detached;
            self.detached |= detached;
            let keep = matched || detached || !origin.is_from_start_tag();
            if !keep && self.inert() {
                // The element made for the start tag, matching nothing, in a
                // token inert so far: it stays inert, so no action is read
                // (the Standard inserts that element last in its token, and
                // only its own close may follow, which is then not recorded
                // either; debug builds check it at `inert`). Ten selectors
                // 32.025 → 31.933 instructions a byte, rewrite 39.052 →
                // 38.901 (callgrind, the three lol-html bench pages).
                #[cfg(debug_assertions)]
                {
                    self.skipped_open = true;
                }
                return;
            }
            self.actions.push(Action::Opened {
                id,
                ns,
                origin,
                parent: if detached { None } else { position.parent() },
                self_closing,
                name: keep.then(|| match known {
                    Some(k) => {
                        debug_assert_eq!(k.name(), name, "a known name is the event's name");
                        KeptName::Known(k)
                    }
                    None => {
                        self.names.push_str(name);
                        KeptName::At(self.names.len() - name.len()..self.names.len())
                    }
                }),
                attrs: (keep && !origin.is_from_start_tag()).then(|| {
                    self.attrs.extend_from_slice(attrs);
                    self.attrs.len() - attrs.len()..self.attrs.len()
                }),
                rules: start..self.rules.len(),
            });
            return;
        }
        if let Event::ElementClosed { id, cause } = e {
            // What `Matcher::event` does with a close (no matches), without
            // building the event again for it.
            if let Some(m) = self.matcher.as_mut() {
                m.element_closed(id);
            }
            if self.closes_observed || !self.rules.is_empty() || self.detached {
                self.actions.push(Action::Closed { id, cause });
            }
            return;
        }
        let matches = match self.matcher.as_mut() {
            Some(m) => m.event(&e),
            None => &[],
        };
        match e {
            Event::NodeMoved { .. } => {
                // Detached elements placed now, each with its rules.
                let mut i = 0;
                while i < matches.len() {
                    let id = matches[i].element;
                    let from = self.rules.len();
                    while i < matches.len() && matches[i].element == id {
                        self.rules.push(matches[i].rule);
                        i += 1;
                    }
                    self.actions.push(Action::Placed { id, rules: from..self.rules.len() });
                }
            }
            Event::Text { position, .. } | Event::Comment { position, .. } => {
                self.actions.push(Action::Content { parent: position.parent() })
            }
            Event::ProcessingInstruction { position, .. } => {
                self.actions.push(Action::Content { parent: position.parent() })
            }
            _ => {}
        }
    }

    /// Text events count for their places only.
    fn wants_text(&self) -> bool {
        false
    }

    /// And those only for content handlers.
    fn wants_text_events(&self) -> bool {
        self.text_events
    }

    /// The attributes of an element from a start tag are read from its token
    /// (by handlers); the events' are read only by the matcher.
    #[inline(always)]
    fn wants_start_tag_attributes(&self, name: &str) -> bool {
        self.matcher.as_ref().is_some_and(|m| m.reads_attributes_of(name))
    }

    /// Nor their values, unless the matcher tests them (`a[href]` does not).
    #[inline(always)]
    fn wants_start_tag_attribute_values(&self, name: &str) -> bool {
        self.matcher.as_ref().is_some_and(|m| m.reads_attribute_values_of(name))
    }
}

/// Work waiting for an element's end.
struct Pending<'h, K: HandlerKind> {
    name: Box<str>,
    edits: Box<crate::element::Edits<'h, K>>,
    /// Rule groups whose end handlers run.
    end_groups: Vec<u32>,
    ctx: ContextOwned,
    has_start_tag: bool,
}

/// The largest capacity [`Core`]'s reused buffers (a changed start tag's
/// bytes, decoded text) keep between tokens.
const BUFFER_KEPT: usize = 4096;

/// An owned [`Context`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ContextOwned {
    Data,
    Rcdata,
    /// The element's name: a static string for the names the Standard
    /// reads as RAWTEXT ([`rawtext_name`]), so no text piece allocates.
    Rawtext(Cow<'static, str>),
    ScriptData,
    Plaintext,
    CdataSection,
}

/// `name` as a [`ContextOwned::Rawtext`] name: static for the tokenizer's
/// [`RAWTEXT_ELEMENTS`](htrewrite_tokenizer::RAWTEXT_ELEMENTS).
fn rawtext_name(name: &str) -> Cow<'static, str> {
    match htrewrite_tokenizer::RAWTEXT_ELEMENTS.iter().find(|&&n| n == name) {
        Some(&n) => Cow::Borrowed(n),
        None => Cow::Owned(name.to_owned()),
    }
}

impl ContextOwned {
    fn of(mode: TextMode, name: &str) -> ContextOwned {
        ContextOwned::from_context(Context::of(mode, name))
    }
    /// The owned form of `ctx`.
    pub(crate) fn from_context(ctx: Context<'_>) -> ContextOwned {
        match ctx {
            Context::Data => ContextOwned::Data,
            Context::Rcdata => ContextOwned::Rcdata,
            Context::Rawtext(n) => ContextOwned::Rawtext(rawtext_name(n)),
            Context::ScriptData => ContextOwned::ScriptData,
            Context::Plaintext => ContextOwned::Plaintext,
            Context::CdataSection => ContextOwned::CdataSection,
        }
    }
    pub(crate) fn get(&self) -> Context<'_> {
        match self {
            ContextOwned::Data => Context::Data,
            ContextOwned::Rcdata => Context::Rcdata,
            ContextOwned::Rawtext(n) => Context::Rawtext(n),
            ContextOwned::ScriptData => Context::ScriptData,
            ContextOwned::Plaintext => Context::Plaintext,
            ContextOwned::CdataSection => Context::CdataSection,
        }
    }
}

/// A text node whose last chunk has not been seen.
struct OpenText {
    /// Rule groups with text handlers that saw its chunks (`None`: none,
    /// the common case, with no reference count to change per text token).
    groups: Option<Arc<[u32]>>,
    /// Whether document-wide text handlers saw them.
    doc: bool,
    span: Span,
    mode: TextMode,
}

/// The last [`JOIN_TAIL`] bytes of some output (fewer at its start).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tail {
    buf: [u8; JOIN_TAIL],
    len: usize,
}

impl Default for Tail {
    fn default() -> Self {
        Tail { buf: [0; JOIN_TAIL], len: 0 }
    }
}

impl Tail {
    /// The last bytes of this tail's output followed by `more`.
    pub(crate) fn then(&self, more: &[u8]) -> Tail {
        if more.is_empty() {
            return *self;
        }
        if let Some(last) = more.last_chunk::<JOIN_TAIL>() {
            // All of it from `more` (most flushes: the staged output of a chunk).
            return Tail { buf: *last, len: JOIN_TAIL };
        }
        let mut t = Tail::default();
        let keep = JOIN_TAIL.saturating_sub(more.len()).min(self.len);
        let more = &more[more.len().saturating_sub(JOIN_TAIL)..];
        t.buf[..keep].copy_from_slice(&self.buf[self.len - keep..self.len]);
        t.buf[keep..keep + more.len()].copy_from_slice(more);
        t.len = keep + more.len();
        t
    }

    pub(crate) fn get(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

/// Why output is being dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Suppress {
    /// The element and its content (until its end, end tag included).
    Whole(NodeId),
    /// The element's content (until its end, end tag excluded).
    Inner(NodeId),
}

/// The state of one document's rewrite, below the tokenizer.
pub(crate) struct Core<'h, K: HandlerKind> {
    pub(crate) shadow: Shadow,
    /// The matcher and the current token's recorded events.
    events: Collector,
    rules: Vec<RuleHandlers<'h, K>>,
    /// Program rule → handler groups (several when selectors equal once
    /// parsed were registered apart, e.g. to keep rule order).
    rule_map: Vec<RuleGroups>,
    /// Some program rule has several groups: the groups of an element's
    /// rules are then sorted, so that they run in registration order.
    rule_aliases: bool,
    /// Per program rule: whether one of its handler groups has end
    /// handlers (see [`Core::start_tag_matched`]); `None` when no rule has
    /// any, so that [`Core::opened_alone`] does not test matched rules one
    /// by one then.
    end_handler_rules: Option<Box<[bool]>>,
    doc: DocHandlers<'h, K>,
    has_content_rules: bool,
    /// Content rules or document-wide text handlers: text nodes (and
    /// comments) may have consumers whatever element events a token has.
    /// Fixed at construction, one test per token in [`Core::token`].
    content_handlers: bool,
    /// No element event has a consumer: no selector rules (so no element,
    /// end, text or comment rules) and no document-wide text handlers,
    /// whose text nodes element events would end. See [`Core::token_unobserved`].
    /// Fixed at construction; kept apart because testing its parts per
    /// token cost 1.2 M more instructions with no handlers on the three
    /// lol-html bench pages (callgrind, measured while writing 5934d3d).
    unobserved: bool,
    /// Not [`Core::unobserved`], a matcher and no content handler: the case
    /// of [`Core::token`] whose inert text and common tags
    /// [`Feed::quick_token`] may take. Fixed at construction.
    pub(crate) quick_tokens: bool,
    /// Per piece of the current text token: its first action and its place.
    marks: Vec<(usize, u64)>,
    pub(crate) encoding: &'static Encoding,
    whole_text: Option<usize>,
    pub(crate) memory_limit: usize,
    pub(crate) lines: Option<Lines>,

    pending: HashMap<NodeId, Pending<'h, K>>,
    /// Content-handler groups active inside each element (only non-empty sets).
    scopes: HashMap<NodeId, Arc<[u32]>>,
    detached: HashMap<NodeId, Detached>,
    /// Elements whose end already passed in the bytes (`</body>`, `</html>`)
    /// though the tree keeps them open.
    byte_ended: HashSet<NodeId>,
    suppress: Option<Suppress>,
    /// What [`Core::closes_observable`] answers, kept by every change to
    /// what it reads ([`Core::closes_changed`]) instead of computed per tag:
    /// 14 instructions a tag with ten selectors (callgrind, the three
    /// lol-html bench pages); debug builds check it at each use.
    closes_cache: bool,
    text: Option<OpenText>,
    /// Whole-node mode: the open text node's raw bytes and decoded text
    /// held so far (empty otherwise; kept between nodes up to
    /// [`BUFFER_KEPT`], so an open node is a few bytes and no buffers).
    held_raw: Vec<u8>,
    held_text: String,
    /// Legacy encodings: the decoder of the open text node's pieces.
    text_decoder: Option<encoding_rs::Decoder>,
    /// The text mode (and RAWTEXT end name) that the next text is read in.
    mode: TextMode,
    mode_name: String,

    /// Output staged for the sink.
    pub(crate) out: Vec<u8>,
    /// The run of tokens whose output is their bytes, at input offsets
    /// `run_start..run_end`, written after `out` ([`Core::emit_token_run`]):
    /// bytes of the [`Input`] being read, copied once a run instead of once a
    /// token. Empty (the two equal) whenever anything else is written: every
    /// path that writes other output stages the run first
    /// ([`Core::stage_run`]), and the writers assert it.
    run_start: u64,
    run_end: u64,
    /// Bytes of the current token that go out after `out[..at]`, handed to
    /// the sink from the token instead of copied ([`Core::emit_token_bytes`]).
    pub(crate) direct: Option<Direct>,
    /// The staged output's size at which [`Feed`] hands it over after a
    /// token: [`FLUSH_AT`], 0 while `direct` waits (one comparison a token
    /// for both).
    pub(crate) flush_at: usize,
    /// Hand the staged output over after the current token whatever its
    /// size (with `flush_at` 0): set for a chunk's first token when bytes
    /// of it were held from earlier chunks ([`Core::room_for_chunk`]).
    pub(crate) flush_next: bool,
    /// Slot marks in `out`, and slots made and given up since the last flush.
    pub(crate) slot_log: SlotLog,
    /// The number of the next slot a handler makes.
    pub(crate) next_slot: u64,
    /// Parsed content handlers asked for at the current token, in order:
    /// the tokenizer pauses after it and the rewriter feeds these first.
    pub(crate) parse_inserts: Vec<ParseInsert>,
    /// How deep in parsed content the tokens being read are (0: the input).
    pub(crate) parse_level: u32,
    /// Parsed content asked for by tokens of parsed content, so far.
    nested_parsed: u32,
    /// The last bytes flushed from `out`, for [`join_guard`].
    tail: Tail,
    /// Whether the current token's bytes were written (or dropped) already.
    token_done: bool,
    /// A changed start tag is written here before it is emitted (one buffer
    /// reused from tag to tag instead of a vector each).
    start_tag: Vec<u8>,
    /// The buffer text tokens are decoded in when they need a copy ([`Core::give_back`]).
    text_spare: String,
    /// The edits text handlers make to the current chunk: untouched between
    /// chunks (a handler's edits are taken out and applied), so a chunk that
    /// handlers only read costs no construction or drop of them (issue 16:
    /// about 20 instructions a chunk in the `text` workload, two chunks a
    /// text node).
    text_edits: Mutations,
    /// The edits element handlers make, kept from element to element:
    /// handlers that only read (counting, collecting) leave them empty, so a
    /// matched element costs no construction or drop of them. Taken (a
    /// pointer's move, not the edits' 270 bytes) when a handler changed
    /// something, and back unless the element keeps them as [`Pending`]
    /// work (`None` then, until the next matched element).
    edits_spare: Option<Box<crate::element::Edits<'h, K>>>,
    /// For text tokens: the offset up to which the token's bytes were handled.
    cursor: u64,
    pub(crate) error: Option<RewritingError>,
    /// After a failure in a held text node: its input bytes, not written.
    unwritten: Vec<u8>,
    /// Set when the rest of the document may become unobservable: every
    /// rule's selector matches only elements the Standard inserts once
    /// (these names, see [`Shadow::inserted_once`]), and there is no
    /// document-wide handler. See [`Core::try_settle`].
    settle_on: Option<Box<[&'static str]>>,
    /// Nothing can observe the rest of the document any more: no rule can
    /// match an element inserted from now on, no element has work left and
    /// no document-wide handler exists, so every later token would be
    /// written as it is. The rewriter copies the rest of the input.
    pub(crate) settled: bool,
    /// `error.is_some() || settled`: set with them ([`Core::fail`],
    /// [`Core::try_settle`]; neither is undone), so that [`Feed`] tests one
    /// flag a token to leave the common path.
    pub(crate) halted: bool,
}

impl<'h, K: HandlerKind> Core<'h, K> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        shadow: Shadow,
        matcher: Option<Matcher>,
        rules: Vec<RuleHandlers<'h, K>>,
        rule_map: Vec<RuleGroups>,
        doc: DocHandlers<'h, K>,
        encoding: &'static Encoding,
        whole_text: Option<usize>,
        memory_limit: usize,
        track_lines: bool,
        settle_on: Option<Box<[&'static str]>>,
    ) -> Self {
        let has_content_rules = rules.iter().any(|r| !r.text.is_empty() || !r.comments.is_empty());
        let end_handler_rules: Box<[bool]> =
            rule_map.iter().map(|gs| gs.iter().any(|&g| !rules[g as usize].end.is_empty())).collect();
        let mode = shadow.initial_text_mode();
        let unobserved = matcher.is_none() && doc.text.is_empty();
        let content_handlers = has_content_rules || !doc.text.is_empty();
        let has_matcher = matcher.is_some();
        Core {
            shadow,
            events: Collector {
                matcher,
                actions: Vec::new(),
                rules: Vec::new(),
                names: String::new(),
                attrs: Vec::new(),
                detached: false,
                closes_observed: false,
                text_events: content_handlers,
                #[cfg(debug_assertions)]
                skipped_open: false,
            },
            rules,
            rule_aliases: rule_map.iter().any(|g| g.len() > 1),
            end_handler_rules: end_handler_rules.contains(&true).then_some(end_handler_rules),
            rule_map,
            doc,
            has_content_rules,
            content_handlers,
            unobserved,
            quick_tokens: !unobserved && has_matcher && !content_handlers,
            marks: Vec::new(),
            encoding,
            whole_text,
            memory_limit,
            lines: track_lines.then(Lines::default),
            pending: HashMap::new(),
            scopes: HashMap::new(),
            detached: HashMap::new(),
            byte_ended: HashSet::new(),
            suppress: None,
            // Nothing pending, detached, ended in the bytes or suppressed yet.
            closes_cache: content_handlers,
            text: None,
            held_raw: Vec::new(),
            held_text: String::new(),
            text_decoder: None,
            mode,
            mode_name: String::new(),
            out: Vec::new(),
            direct: None,
            flush_at: FLUSH_AT,
            run_start: 0,
            run_end: 0,
            flush_next: false,
            slot_log: SlotLog::default(),
            next_slot: 0,
            parse_inserts: Vec::new(),
            parse_level: 0,
            nested_parsed: 0,
            tail: Tail::default(),
            token_done: false,
            start_tag: Vec::new(),
            text_spare: String::new(),
            text_edits: Mutations::default(),
            edits_spare: None,
            cursor: 0,
            error: None,
            unwritten: Vec::new(),
            settle_on,
            settled: false,
            halted: false,
        }
    }

    /// Whether an element's close can act before anything else in the
    /// token matched: content handlers cut text at element events (and only
    /// they make content-handler scopes and open text nodes), or some
    /// element has pending work, a suppression or a byte end, or is
    /// detached. Otherwise a close writes at most the token's own bytes
    /// (see [`Collector::closes_observed`]).
    #[inline]
    fn closes_observable(&self) -> bool {
        self.content_handlers
            || !self.pending.is_empty()
            || !self.detached.is_empty()
            || !self.byte_ended.is_empty()
            || self.suppress.is_some()
    }

    /// [`Core::closes_observable`] as of now, from [`Core::closes_cache`].
    #[inline(always)]
    fn closes_observable_now(&self) -> bool {
        debug_assert_eq!(self.closes_cache, self.closes_observable(), "closes_cache kept by every change");
        self.closes_cache
    }

    /// Keeps [`Core::closes_cache`] after a change to the pending, detached
    /// or byte-ended elements or to the suppression.
    #[inline]
    fn closes_changed(&mut self) {
        self.closes_cache = self.closes_observable();
    }

    /// Whether [`Core::try_settle`] is worth calling after a token.
    #[inline(always)]
    pub(crate) fn may_settle(&self) -> bool {
        self.settle_on.is_some()
    }

    /// Sets [`Core::settled`] when nothing can observe the rest of the
    /// document: every element the rules can match (those the Standard
    /// inserts once) has been inserted, and nothing is held or pending —
    /// no element with edits or end handlers still open, no content-handler
    /// scope, no suppressed content, no detached clone, no element ended in
    /// the bytes but open in the tree, no open text node, no failure. Every
    /// later token would then reach [`Core::token`] with no rule matching
    /// and be written as it is, and the end of the document would write
    /// nothing (no element has end work, no document-end handler).
    #[inline(never)]
    pub(crate) fn try_settle(&mut self) {
        let Some(names) = &self.settle_on else { return };
        if names.iter().all(|n| self.shadow.inserted_once(n) == Some(true))
            && self.pending.is_empty()
            && self.scopes.is_empty()
            && self.detached.is_empty()
            && self.byte_ended.is_empty()
            && self.suppress.is_none()
            && self.text.is_none()
            && self.unwritten.is_empty()
            && self.error.is_none()
        {
            self.settled = true;
            self.halted = true;
            self.settle_on = None;
        }
    }

    /// After a failure, for [`OnError::PassThrough`](crate::OnError::PassThrough):
    /// the input bytes taken but not written (a text node held in
    /// whole-text-node mode, with the rest of the failing token).
    pub(crate) fn take_unwritten(&mut self) -> Vec<u8> {
        let unwritten = std::mem::take(&mut self.unwritten);
        let held = std::mem::take(&mut self.held_raw);
        self.held_text.clear();
        match self.text.take() {
            Some(_) if unwritten.is_empty() => held,
            _ => unwritten,
        }
    }

    /// Bytes held now, for the memory limit (without the tokenizer's carry-over).
    pub(crate) fn held_bytes(&self) -> usize {
        let pending: usize = self.pending.values().map(|p| p.edits.held_bytes() + 64).sum();
        let text = self.held_raw.len() + self.held_text.len();
        pending
            + text
            + self.shadow.held_bytes()
            + self.events.matcher.as_ref().map_or(0, Matcher::held_bytes)
            + self.scopes.len() * 64
            + self.detached.len() * 96
    }

    /// Gives the staged output room for a chunk of `len` bytes before the
    /// chunk is tokenized, `held` bytes of an unfinished token being held
    /// from earlier chunks: exactly `len` (at least [`STAGED_MIN`], at most
    /// twice [`FLUSH_AT`]), not a doubling from the first token's size
    /// (issue 16: at 1 KiB chunks 1,696 bytes of room were kept for about
    /// 1,024 bytes of output). The output of the chunk's tokens is their
    /// bytes, so it fits, but for the first token's held bytes: that token's
    /// output is handed over on its own ([`Core::flush_next`]). The room
    /// grows only for content handlers insert, or past [`FLUSH_AT`] by a
    /// token's output (then the output is handed over after that token).
    pub(crate) fn room_for_chunk(&mut self, len: usize, held: usize) {
        if !self.out.is_empty() {
            return;
        }
        let room = len.clamp(STAGED_MIN, 2 * FLUSH_AT);
        if self.out.capacity() < room {
            self.out.reserve_exact(room);
        }
        if held > 0 {
            self.flush_next = true;
            self.flush_at = 0;
        }
    }

    fn emit(&mut self, bytes: &[u8]) {
        debug_assert!(self.direct.is_none(), "nothing is written after a token's direct bytes");
        debug_assert!(self.run_is_empty(), "the run is staged before other output");
        if self.suppress.is_none() && !bytes.is_empty() {
            self.out.extend_from_slice(bytes);
        }
    }

    /// The length of the run of unchanged tokens ([`Core::run_start`]).
    #[inline(always)]
    pub(crate) fn run_len(&self) -> usize {
        (self.run_end - self.run_start) as usize
    }

    /// Whether no run of unchanged tokens waits ([`Core::run_start`]).
    #[inline(always)]
    pub(crate) fn run_is_empty(&self) -> bool {
        self.run_start == self.run_end
    }

    /// Writes token `t`'s bytes as its output (what [`Core::emit_token_raw`]
    /// writes) when they lie in `input`: by extending the run of such
    /// tokens that ends where `t` starts, or by starting one. The run's
    /// bytes are copied to the staged output (or handed to the sink from
    /// `input`) when other output comes, the staged output is handed over,
    /// or the input ends ([`Core::stage_run`]), so that a page's unchanged
    /// tokens cost one copy a run and not one a token.
    #[inline(always)]
    fn emit_token_run(&mut self, t: &Token<'_>, input: Input<'_>) {
        let span = t.span();
        if span.start == self.run_end && !self.run_is_empty() && self.suppress.is_none() {
            self.run_end = span.end;
        } else {
            self.run_begin(t, input);
        }
    }

    /// [`Core::emit_token_run`] for a token that does not extend the run.
    #[inline(never)]
    fn run_begin(&mut self, t: &Token<'_>, input: Input<'_>) {
        self.stage_run(input);
        let span = t.span();
        if self.suppress.is_none() && self.direct.is_none() && input.holds(span) && !span.is_empty() {
            (self.run_start, self.run_end) = (span.start, span.end);
        } else {
            self.emit_token_raw(t.raw());
        }
    }

    /// Copies the run of unchanged tokens, if any, to the staged output,
    /// before other output is written. `input` holds the run: it is the
    /// input the run's tokens were read from, staged before that input ends.
    #[inline(always)]
    fn stage_run(&mut self, input: Input<'_>) {
        if !self.run_is_empty() {
            self.stage_run_bytes(input);
        }
    }

    /// [`Core::stage_run`]'s copy, out of the token paths.
    #[inline(never)]
    fn stage_run_bytes(&mut self, input: Input<'_>) {
        let bytes = input.at(self.run_start, self.run_end);
        self.run_start = self.run_end;
        self.out.extend_from_slice(bytes);
    }

    /// Writes `raw[range]`, the current token's bytes `raw`, as the token's
    /// last output: a piece of [`FLUSH_AT`] bytes or more is not copied but
    /// recorded in [`Core::direct`], and [`Feed`] hands it to the sink from
    /// the token after the output staged before it, so that a long token
    /// (a 100 KB comment or script) is held once, by the tokenizer, and not
    /// a second time in the staged output (issue 16: peak heap on pages
    /// with long tokens).
    #[inline(always)]
    fn emit_token_bytes(&mut self, raw: &[u8], range: std::ops::Range<usize>) {
        if range.len() >= FLUSH_AT {
            self.emit_long(raw, range);
        } else {
            self.emit(&raw[range]);
        }
    }

    /// [`Core::emit_token_bytes`] for all of the token's bytes.
    #[inline(always)]
    fn emit_token_raw(&mut self, raw: &[u8]) {
        if raw.len() >= FLUSH_AT {
            self.emit_long(raw, 0..raw.len());
        } else {
            self.emit(raw);
        }
    }

    /// [`Core::emit_token_bytes`] for a long piece (rare: out of the token path).
    #[cold]
    #[inline(never)]
    fn emit_long(&mut self, raw: &[u8], range: std::ops::Range<usize>) {
        debug_assert!(self.run_is_empty(), "the run is staged before other output");
        if self.suppress.is_none() && self.direct.is_none() {
            self.direct = Some(Direct { at: self.out.len(), range, marks: self.slot_log.marks.len() });
            self.flush_at = 0;
        } else {
            self.emit(&raw[range]);
        }
    }

    /// Puts the direct bytes of token `raw` ([`Core::direct`]) into the
    /// staged output at their place: before what was staged since, and
    /// before the slot marks placed since (those placed before stay before,
    /// even at the same offset).
    pub(crate) fn stage_direct(&mut self, raw: &[u8]) {
        debug_assert!(self.run_is_empty(), "the run is staged before other output");
        if let Some(Direct { at, range, marks }) = self.direct.take() {
            let bytes = &raw[range];
            self.out.splice(at..at, bytes.iter().copied());
            for (pos, _) in &mut self.slot_log.marks[marks..] {
                *pos += bytes.len();
            }
        }
    }

    /// The output staged for the sink, which the caller writes and clears,
    /// with its slot log; its last bytes are kept first, for [`join_guard`].
    pub(crate) fn staged(&mut self) -> Staged<'_> {
        self.staged_then(&[])
    }

    /// [`Core::staged`] with bytes `then` to write after it, as they are.
    pub(crate) fn staged_then<'a>(&'a mut self, then: &'a [u8]) -> Staged<'a> {
        debug_assert!(self.run_is_empty(), "the run is staged before the staged output goes");
        let tail = self.tail;
        self.tail = self.tail.then(&self.out).then(then);
        Staged { bytes: &mut self.out, log: &mut self.slot_log, tail, encoding: self.encoding, then }
    }

    /// Places a slot mark at the end of the output: an opening mark in
    /// suppressed output gives the slot up (its place is removed); closing
    /// marks always go (one whose opening went is ignored).
    fn place(&mut self, mark: Mark) {
        debug_assert!(self.run_is_empty(), "the run is staged before other output");
        match mark {
            Mark::Open(slot) if self.suppress.is_some() => self.slot_log.discarded.push(slot),
            _ => self.slot_log.marks.push((self.out.len(), mark)),
        }
    }

    /// Writes `bytes`, content inserted at `place`, with the slots among it.
    #[inline(always)]
    fn emit_pieces(&mut self, bytes: &[u8], ctx: Context<'_>, place: Place, deferred: &[Deferred]) {
        if deferred.is_empty() {
            self.emit_inserted(bytes, ctx)
        } else {
            self.emit_with_slots(bytes, ctx, place, deferred)
        }
    }

    /// [`Core::emit_pieces`] with slots.
    #[inline(never)]
    fn emit_with_slots(&mut self, bytes: &[u8], ctx: Context<'_>, place: Place, deferred: &[Deferred]) {
        let mut at = 0;
        for d in deferred.iter().filter(|d| d.place == place) {
            self.emit_inserted(&bytes[at..d.at], ctx);
            at = d.at;
            self.place(Mark::Open(d.slot));
            self.place(Mark::Close(d.slot));
        }
        self.emit_inserted(&bytes[at..], ctx);
    }

    /// Places the mark `mark` of the slot `edits` has over `place`, if any.
    fn place_over(&mut self, deferred: &[Deferred], place: Place, open: bool) {
        if let Some(d) = deferred.iter().find(|d| d.place == place) {
            self.place(if open { Mark::Open(d.slot) } else { Mark::Close(d.slot) });
        }
    }

    /// Writes content a handler inserted, in context `ctx`, so that it does
    /// not join the bytes before it ([`join_guard`]): its first character
    /// escaped where needed, or refused with [`RewritingError::Insertion`].
    /// After a failure nothing more is inserted: the failing token's own
    /// bytes still go out, so the output is the input up to that token's
    /// end without the refused content.
    fn emit_inserted(&mut self, bytes: &[u8], ctx: Context<'_>) {
        if bytes.is_empty() || self.suppress.is_some() || self.error.is_some() {
            return;
        }
        // The last bytes written: the staged output, after what was flushed before it.
        let tail = self.tail.then(&self.out);
        match join_guard(tail.get(), bytes, ctx, self.encoding) {
            Join::Keep => self.emit(bytes),
            Join::Escape { len, reference } => {
                self.emit(reference.as_bytes());
                self.emit(&bytes[len..]);
            }
            Join::Refuse(e) => self.fail(RewritingError::Insertion(e)),
        }
    }

    /// Parsed content handlers asked for at this token: the tokenizer
    /// pauses after it ([`TokenSink::pause`]); `flush_at` 0 sends the
    /// token's end through `Feed::flush_full`, which drops it after a failure.
    fn add_parse_inserts(&mut self, inserts: &mut Vec<ParseInsert>) {
        if !inserts.is_empty() {
            if self.parse_level > 0 {
                self.nested_parsed = self.nested_parsed.saturating_add(inserts.len() as u32);
            }
            self.parse_inserts.append(inserts);
            self.flush_at = 0;
        }
    }

    /// The nesting level handlers' edits check parsed content against: the
    /// level of the tokens being read, or the limit itself once tokens of
    /// parsed content asked for [`MAX_NESTED_PARSED`] pieces.
    fn edits_parse_level(&self) -> u32 {
        if self.parse_level > 0 && self.nested_parsed >= crate::MAX_NESTED_PARSED {
            crate::MAX_PARSE_NESTING
        } else {
            self.parse_level
        }
    }

    /// Sets the error whatever was kept before (the rewriter's own
    /// failures: memory limit, poisoning), and [`Core::halted`].
    pub(crate) fn set_error(&mut self, e: RewritingError) {
        self.error = Some(e);
        self.halted = true;
    }

    /// Keeps `e` as the document's failure unless one is kept already (the
    /// first failure is the one reported), and sets [`Core::halted`].
    pub(crate) fn fail(&mut self, e: RewritingError) {
        if self.error.is_none() {
            self.error = Some(e);
            self.halted = true;
        }
    }

    /// Whether the text of the chunks fed is read as UTF-8 by handlers
    /// without a selector (document text handlers, in
    /// [`Core::text_token_unsplit`]): then [`Feed`] hands text tokens their
    /// bytes as `str` from the chunk, checked once ([`ValidChunk`]).
    pub(crate) fn reads_chunk_text(&self) -> bool {
        self.events.matcher.is_none() && !self.doc.text.is_empty() && self.encoding == encoding_rs::UTF_8
    }

    /// Processes one token: shadow, handlers, output. `chunk` is the valid
    /// UTF-8 of the chunk fed, when [`Feed`] has it.
    ///
    /// Each kind of token the workloads are made of has a path of its own
    /// (a tag with selectors, text the tree does not read, text for document
    /// handlers alone, any token nothing observes); the rest take
    /// [`Core::token_general`]. Ten selectors 41.69 → 38.24 instructions a
    /// byte, rewrite 49.64 → 46.24, text 34.52 → 34.10 (callgrind, the three lol-html bench
    /// pages): the general path's set-up is not paid by every token.
    #[inline]
    pub(crate) fn token(&mut self, t: &Token<'_>, chunk: Option<&ValidChunk<'_>>, input: Input<'_>) -> Feedback {
        let text = matches!(t.kind(), TokenKind::Text(_));
        if self.unobserved {
            return self.token_unobserved(t, input);
        }
        if self.events.matcher.is_none() {
            if !text {
                return self.token_unobserved(t, input);
            }
            if self.text.is_none()
                && let Some(fb) = self.text_token_unsplit(t, chunk, input)
            {
                return fb;
            }
        } else if !text {
            if matches!(t.kind(), TokenKind::StartTag | TokenKind::EndTag) {
                return self.tag_token(t, input);
            }
        } else if self.takes_inert_text(t) {
            return self.inert_token(t, input);
        }
        self.token_general(t, input)
    }

    /// [`Core::token`] for end tag `t` when [`Core::quick_tokens`] holds (a
    /// matcher, no content handler) and the shadow's in-body fast path takes
    /// it ([`Shadow::fast_end`]): [`Core::tag_token`] with that path's work
    /// for the shadow's (what [`shadow_collect`] would do with it), for
    /// [`Feed::quick_end_tag`]. `None` for any other end tag, the core
    /// unchanged.
    #[inline(always)]
    pub(crate) fn quick_end_tag(&mut self, t: &Token<'_>, input: Input<'_>) -> Option<Feedback> {
        debug_assert!(self.quick_tokens && t.kind() == TokenKind::EndTag);
        let end = self.shadow.fast_end(t)?;
        Some(self.tag_token_by(t, input, |shadow, t, c| shadow.take_fast_end(t, end, c)))
    }

    /// [`Core::quick_end_tag`] for start tag `t` ([`Shadow::fast_start`]):
    /// the shadow's answer is then the default feedback, which
    /// [`TokenSink::quick_token`] gives the tokenizer.
    #[inline(always)]
    pub(crate) fn quick_start_tag(&mut self, t: &Token<'_>, input: Input<'_>) -> Option<Feedback> {
        debug_assert!(self.quick_tokens && t.kind() == TokenKind::StartTag);
        let start = self.shadow.fast_start(t)?;
        let fb = self.tag_token_by(t, input, |shadow, t, c| shadow.take_fast_start(t, start, c));
        debug_assert_eq!(fb, Feedback::default());
        Some(fb)
    }

    /// [`Core::quick_start_tag`] for a start tag whose name is outside the
    /// table of known names, which [`Shadow::fast_start_unlisted`] took
    /// (`start`: custom elements' `<my-el>`, "any other start tag" in
    /// body).
    #[inline(always)]
    pub(crate) fn quick_start_unlisted(&mut self, t: &Token<'_>, start: FastStart, input: Input<'_>) {
        debug_assert!(self.quick_tokens && t.kind() == TokenKind::StartTag);
        let fb = self.tag_token_by(t, input, |shadow, t, c| shadow.take_fast_start_unlisted(t, start, c));
        debug_assert_eq!(fb, Feedback::default());
    }

    /// Whether [`Core::token`] takes text token `t` on its inert text path
    /// ([`Core::inert_token`]) when a matcher runs: no content handler,
    /// no open text node, and text that changes nothing in the tree
    /// ([`Shadow::skip_inert_text`]).
    #[inline(always)]
    pub(crate) fn takes_inert_text(&mut self, t: &Token<'_>) -> bool {
        !self.content_handlers && self.text.is_none() && self.shadow.skip_inert_text(t, false)
    }

    /// Whether [`Feed::quick_token`] takes comment `t` as an inert token
    /// ([`Core::inert_token`]): no document-wide comment handler, no
    /// open text node, and a comment that changes nothing in the tree
    /// ([`Shadow::skip_inert_comment`]), when [`Core::quick_tokens`] holds
    /// (no content handler: no rule reads the comment's parent). What
    /// [`Core::token_general`] does with it then: the shadow inserts it
    /// (an action that only content handlers read), no handler sees it, and
    /// its bytes are written as they are.
    #[inline(always)]
    pub(crate) fn takes_inert_comment(&mut self, t: &Token<'_>) -> bool {
        debug_assert!(self.quick_tokens && !self.content_handlers);
        self.doc.comments.is_empty() && self.text.is_none() && self.shadow.skip_inert_comment(t)
    }

    /// [`Core::token`] for the tokens without a path of their own: text
    /// with a matcher that the tree reads or a handler may see, text
    /// without a matcher that [`Core::text_token_unsplit`] does not take,
    /// comments, DOCTYPEs, processing instructions and CDATA markers — never
    /// a tag ([`Core::tag_token`], [`Core::token_unobserved`]).
    #[inline(never)]
    fn token_general(&mut self, t: &Token<'_>, input: Input<'_>) -> Feedback {
        debug_assert!(!matches!(t.kind(), TokenKind::StartTag | TokenKind::EndTag), "tags have their own paths");
        self.stage_run(input);
        self.token_done = false;
        let text_mode = match t.kind() {
            TokenKind::Text(mode) => Some(mode),
            _ => None,
        };
        if text_mode.is_none() && self.text.is_some() {
            self.end_text_node(t.span().start);
        }
        let node_before = if text_mode.is_some() { self.current_node() } else { None };
        self.events.clear();
        self.events.closes_observed = self.closes_observable_now();
        // Element events caused by text have a definite place: the character
        // that causes them, the same whatever the chunking. Data text reaches
        // the shadow in pieces, each starting at such a character (see
        // [`text_piece_plan`]); `marks` holds, per piece, the index of its
        // first action and its place.
        let start = t.span().start;
        self.marks.clear();
        let fb = {
            let c = &mut self.events;
            let marks = &mut self.marks;
            match text_mode {
                // Text that changes nothing in the tree and makes no event
                // (`Shadow::skip_inert_text`): no piece, no mark.
                Some(_) if self.shadow.skip_inert_text(t, c.text_events) => Feedback::default(),
                Some(mode @ TextMode::Data) => {
                    let raw = t.raw();
                    let end = t.span().end;
                    let mut cur = start;
                    let mut fb = Feedback::default();
                    if start == end {
                        fb = shadow_collect(&mut self.shadow, t, c);
                    }
                    while cur < end {
                        let rest = &raw[(cur - start) as usize..];
                        let plan = text_piece_plan(&self.shadow, rest, cur);
                        if cur == start
                            && let Some(at) = plan.whole_token(start, end)
                        {
                            // The whole token in one piece (the common case).
                            marks.push((c.actions.len(), at));
                            fb = shadow_collect(&mut self.shadow, t, c);
                            break;
                        }
                        if plan.inert_end > cur {
                            // Characters before the first that can cause events.
                            let piece = &raw[(cur - start) as usize..(plan.inert_end - start) as usize];
                            let eof = t.is_eof_terminated() && plan.inert_end == end;
                            let text = decode_for_tree(self.encoding, piece, mode, eof);
                            marks.push((c.actions.len(), cur));
                            fb = self.shadow.process_tree_token(TreeToken::Text(&text), Span::new(cur, cur + 1), c);
                        }
                        let piece_end = plan.piece_end.unwrap_or(end);
                        if plan.inert_end < piece_end {
                            let piece = &raw[(plan.inert_end - start) as usize..(piece_end - start) as usize];
                            let eof = t.is_eof_terminated() && piece_end == end;
                            let text = decode_for_tree(self.encoding, piece, mode, eof);
                            let at = plan.at;
                            marks.push((c.actions.len(), at));
                            fb = self.shadow.process_tree_token(TreeToken::Text(&text), Span::new(at, at + 1), c);
                        }
                        cur = piece_end;
                    }
                    fb
                }
                _ => shadow_collect(&mut self.shadow, t, c),
            }
        };
        self.cursor = start;
        let content_parent = if self.events.inert() {
            None
        } else if self.events.actions.iter().all(|a| matches!(a, Action::Content { .. })) {
            // No element events (text, the common case with document-wide
            // text handlers): what walking the actions would find.
            self.events.actions.iter().find_map(|a| match a {
                Action::Content { parent } => Some(*parent),
                _ => None,
            })
        } else {
            // Out for the walk (which changes the core), back for the next token.
            let marks = std::mem::take(&mut self.marks);
            let content_parent = self.walk_actions(t, fb, &marks, node_before);
            self.marks = marks;
            content_parent
        };
        if self.error.is_some() {
            return fb;
        }
        if let TokenKind::Text(mode) = t.kind() {
            let parent = match content_parent {
                Some(p) => p,
                None => self.current_node(),
            };
            self.text_piece(t, mode, t.span().end, parent, None);
            self.token_done = true;
        }
        self.finish_token(t, content_parent.flatten(), fb, Some(input))
    }

    /// [`Core::token`] for a start or end tag with a matcher: what the
    /// general path does for a token that is not text, without its text
    /// work (no text pieces, no marks, no text node's parent to find: a tag
    /// is never a text piece, and only text and comments read the parent
    /// the actions give). Split off the general path, which stays out of
    /// line, so that the tags — most tokens with selectors — run a short
    /// path in [`Feed`]'s token call (inlined there: ten selectors 39.64 →
    /// 38.98 instructions a byte against a call of its own).
    #[inline(always)]
    fn tag_token(&mut self, t: &Token<'_>, input: Input<'_>) -> Feedback {
        self.tag_token_by(t, input, shadow_collect)
    }

    /// [`Core::tag_token`] with the shadow's work on the token done by
    /// `shadow` ([`shadow_collect`], or the fast path that
    /// [`Core::quick_start_tag`] or [`Core::quick_end_tag`] found).
    #[inline(always)]
    fn tag_token_by(
        &mut self,
        t: &Token<'_>,
        input: Input<'_>,
        shadow: impl FnOnce(&mut Shadow, &Token<'_>, &mut Collector) -> Feedback,
    ) -> Feedback {
        let start = t.span().start;
        if self.text.is_some() {
            self.stage_run(input);
            self.end_text_node(start);
        }
        self.token_done = false;
        let mode_before = self.shadow.insertion_mode();
        self.events.clear();
        self.events.closes_observed = self.closes_observable_now();
        let fb = shadow(&mut self.shadow, t, &mut self.events);
        self.cursor = start;
        // Element events that act (a tag makes no text piece; the pending
        // table text it inserts is no content it reads the parent of).
        if !self.events.inert() && !self.events.actions.iter().all(|a| matches!(a, Action::Content { .. })) {
            if self.error.is_none()
                && let [Action::Opened { attrs: None, .. }] = self.events.actions[..]
            {
                self.opened_alone(t, fb, input);
            } else {
                self.stage_run(input);
                self.walk_actions(t, fb, &[], None);
            }
        }
        if self.error.is_some() {
            return fb;
        }
        // Only an end tag that switched the insertion mode can end elements
        // without popping them (the test before the names are compared).
        if t.kind() == TokenKind::EndTag && !self.token_done && self.shadow.insertion_mode() != mode_before {
            self.stage_run(input);
            self.end_tag_without_pop(t, mode_before);
        }
        self.finish_token(t, None, fb, Some(input))
    }

    /// [`Core::token`] for a text token that changes nothing in the tree and
    /// makes no event ([`Shadow::skip_inert_text`], which has taken it) when
    /// no content handler exists and no text node is open: what the general
    /// path does with it — no element event to act on, and the one text
    /// piece, which no handler sees, is the token's bytes. Inlined into
    /// [`Feed`]'s token call like [`Core::tag_token`] (38.98 → 38.24).
    /// Also [`Feed::quick_token`]'s path for a comment that
    /// [`Core::takes_inert_comment`] lets through: its bytes as they are,
    /// in the run of bytes written as they are; what [`Core::finish_token`]
    /// does besides for a comment (the run ended for comment handlers to
    /// change its bytes) has no handler to serve.
    #[inline(always)]
    pub(crate) fn inert_token(&mut self, t: &Token<'_>, input: Input<'_>) -> Feedback {
        debug_assert!(!self.content_handlers && self.text.is_none());
        debug_assert!(matches!(t.kind(), TokenKind::Text(_)) || self.doc.comments.is_empty());
        self.cursor = t.span().start;
        self.emit_token_run(t, input);
        self.cursor = t.span().end;
        self.token_done = true;
        self.after_token(t, Feedback::default());
        Feedback::default()
    }

    /// [`Core::opened_at`] for an element opened by start tag `t` (its id,
    /// namespace, origin and self-closing flag; its name `name`, known or
    /// in the token's names) that matched `rules` (a range of the token's rules),
    /// none of which has end handlers, when no rule has content handlers
    /// and no rule has several handler groups: the rules' element handlers
    /// run in rule order on the element, without gathering handler groups
    /// or content-handler scopes: what the general path does with the same
    /// groups in the same order (one rule with end or content handlers
    /// anywhere takes every element to the general path). Each guard in
    /// [`Core::opened_alone`] fails tests when left out: content rules
    /// (`cause::text_handler_error`, `nodes::text_*`), end handlers
    /// (`implied::end_describe_*`), several groups
    /// (`selectors_equal_once_parsed_keep_order_without_content_handlers`).
    fn start_tag_matched(
        &mut self,
        t: &Token<'_>,
        fb: Feedback,
        (id, ns, origin, self_closing): (NodeId, Namespace, Origin, bool),
        name: KeptName,
        rules: std::ops::Range<usize>,
        input: Input<'_>,
    ) {
        // A kept element without kept attributes ([`Collector`]) is made for
        // a start tag, and the shadow makes such elements for the token it
        // is given only.
        debug_assert!(matches!(origin, Origin::StartTag { span } if span == t.span()));
        let rawtext_name = (fb.text_mode == TextMode::Rawtext).then(|| t.tag_name());
        let ctx = Context::of(fb.text_mode, rawtext_name.as_deref().unwrap_or_default());
        let parse_level = self.edits_parse_level();
        let edits = self.edits_spare.get_or_insert_default();
        debug_assert!(edits.is_untouched());
        edits.next_slot = self.next_slot;
        edits.parse_level = parse_level;
        let name_str = name.get(&self.events.names);
        let src = Source {
            id,
            ns,
            origin,
            token: Some(t),
            name: name_str,
            implied_attrs: &[],
            self_closing,
            at: t.span().start.max(self.cursor),
        };
        let doc = Doc { encoding: self.encoding, lines: self.lines.as_ref() };
        let mut el = Element { src, ctx, doc, e: edits };
        // At most one group a rule here (no aliases; none for a rule of a
        // shared program that these settings do not use): its first, as an
        // `Option`, not a loop over the small vector (ten selectors 28.464 →
        // 28.394 a byte).
        let result = self.events.rules[rules].iter().try_for_each(|r| {
            call_element_handlers(&mut self.rules, self.rule_map[r.0 as usize].first().copied(), &mut el)
        });
        let untouched = el.e.is_untouched();
        if let Err(e) = result {
            self.stage_run(input);
            self.element_handler_failed(e);
            return;
        }
        if untouched {
            self.token_done = true;
            self.emit_token_run(t, input);
            return;
        }
        self.stage_run(input);
        let names = std::mem::take(&mut self.events.names);
        self.element_edited(id, name.get(&names), ctx, Some(t), &[]);
        self.events.names = names;
    }

    /// [`Core::walk_actions`] for tag token `t` whose only action is one
    /// element opened by it (a matched start tag, the common case with
    /// selectors), when no error has happened (ending an open text node
    /// before the token may have failed): the element event at the token's
    /// start, without taking the actions out and looking for text pieces.
    /// Out of line, so that the paths without a matcher keep their code.
    #[inline(never)]
    fn opened_alone(&mut self, t: &Token<'_>, fb: Feedback, input: Input<'_>) {
        debug_assert_eq!(self.events.actions.len(), 1, "one action");
        // Read in place: the action (120 bytes, nothing to drop) is not
        // moved out of the list to be looked at.
        if let Some(Action::Opened { id, ns, origin, self_closing, name: Some(name), rules, .. }) =
            self.events.actions.last()
            && !self.has_content_rules
            && !self.rule_aliases
            && self
                .end_handler_rules
                .as_ref()
                .is_none_or(|ends| !self.events.rules[rules.clone()].iter().any(|r| ends[r.0 as usize]))
        {
            let (element, name, rules) = ((*id, *ns, *origin, *self_closing), name.clone(), rules.clone());
            self.events.actions.clear();
            self.start_tag_matched(t, fb, element, name, rules, input);
            return;
        }
        let a = self.events.actions.pop().expect("one action");
        self.stage_run(input);
        let names = std::mem::take(&mut self.events.names);
        self.opened_at(&a, (&names, &[]), Some(t), fb, t.span().start.max(self.cursor));
        self.events.names = names;
    }

    /// The actions of token `t` in order (its text cut into pieces at their
    /// places, `marks`), when [`Core::token`] finds they may act; returns
    /// the parent of the token's text, comment or processing instruction
    /// when an action gave it (`Some(None)`: the document).
    ///
    /// Apart from [`Core::token`], which skips it for inert tokens and for
    /// tokens without element events: taking the actions out and putting
    /// them back cost about 34 instructions a token (23 of them dropping the
    /// empty vector left in their place) in the `rewrite` workload, where
    /// most tokens are inert, and 133 a text token in the `text` workload
    /// (callgrind, the three lol-html bench pages).
    #[inline(never)]
    fn walk_actions(
        &mut self,
        t: &Token<'_>,
        fb: Feedback,
        marks: &[(usize, u64)],
        node_before: Option<NodeId>,
    ) -> Option<Option<NodeId>> {
        let start = t.span().start;
        let text_mode = match t.kind() {
            TokenKind::Text(mode) => Some(mode),
            _ => None,
        };
        let actions = std::mem::take(&mut self.events.actions);
        let names = std::mem::take(&mut self.events.names);
        let attrs = std::mem::take(&mut self.events.attrs);
        let mut content_parent = None;
        for (i, a) in actions.iter().enumerate() {
            if self.error.is_some() {
                break;
            }
            let piece_at = marks.iter().rev().find(|m| m.0 <= i).map_or(start, |m| m.1);
            match a {
                Action::Opened { .. } | Action::Placed { .. } => {
                    let at = piece_at;
                    if let Some(mode) = text_mode {
                        self.split_text(t, mode, at, &mut content_parent, node_before);
                    }
                    self.opened_at(a, (&names, &attrs), Some(t), fb, at.max(self.cursor));
                }
                Action::Closed { id, cause } => {
                    let at = match *cause {
                        CloseCause::Immediate { span } => span.end,
                        _ if text_mode.is_some() => piece_at,
                        _ => start,
                    };
                    if let Some(mode) = text_mode {
                        self.split_text(t, mode, at, &mut content_parent, node_before);
                    }
                    self.closed_at(*id, *cause, Some(t), at.max(self.cursor));
                }
                Action::Content { parent } => {
                    if content_parent.is_none() {
                        content_parent = Some(*parent);
                    }
                }
            }
        }
        self.events.actions = actions;
        self.events.names = names;
        self.events.attrs = attrs;
        content_parent
    }

    /// [`Core::token`] when none of the token's element events has a
    /// consumer: no selector rules (no matcher), and the token is
    /// not text or there are no document-wide text handlers (whose text
    /// nodes element events inside text would end; [`Core::unobserved`]). The shadow builds the
    /// tree as always (its feedback drives the tokenizer), but its events
    /// go nowhere, text is not cut into pieces at the places of element
    /// events, and each token's bytes are written as they are unless a
    /// document-wide comment, DOCTYPE or processing-instruction handler
    /// changes them. What [`Core::token`] would do besides: record the
    /// events and find that no element has pending work, scope or
    /// suppression, which ends in the same output; a text node still open
    /// ends where a token that is not text starts, as there.
    #[inline(always)]
    fn token_unobserved(&mut self, t: &Token<'_>, input: Input<'_>) -> Feedback {
        if self.text.is_some() && !matches!(t.kind(), TokenKind::Text(_)) {
            self.stage_run(input);
            self.end_text_node(t.span().start);
        }
        self.token_done = false;
        let fb = shadow_unobserved(&mut self.shadow, t);
        self.finish_token(t, None, fb, Some(input))
    }

    /// Whether the element events text token `t` can cause all come at its
    /// start, before any of its characters: data text that
    /// [`text_piece_plan`] finds one piece acting at its first byte (or all
    /// inert), and text of the other modes, which [`Core::token`] gives the
    /// shadow whole with its events at the start. Not for text whose
    /// leading newline after `<pre>` or NULs "in body" ignores, nor text
    /// that closes the head or opens the body past leading whitespace:
    /// there the text before the events is a text node of its own.
    #[inline]
    fn text_acts_at_start(&self, t: &Token<'_>) -> bool {
        match t.kind() {
            TokenKind::Text(TextMode::Data) => {
                let start = t.span().start;
                text_piece_plan(&self.shadow, t.raw(), start).whole_token(start, t.span().end) == Some(start)
            }
            TokenKind::Text(_) => true,
            _ => false,
        }
    }

    /// [`Core::token`] for a text token when no selector rule exists (only
    /// document-wide handlers), no text node is open and every element event
    /// the token causes comes at its start ([`Core::text_acts_at_start`]);
    /// `None` (nothing done) for other tokens.
    /// The full path would record those events and find that they split
    /// nothing: no text precedes them in the token, no node is open to end,
    /// and with no rule no element has scope, pending work or a detached
    /// clone. So the shadow runs without recording events (as in
    /// [`Core::token_unobserved`]) and the whole token is one text piece.
    /// `tests/tests/suite/rewriter_roundtrip.rs` compares what a document text
    /// handler sees here with the full path (a `*` rule beside it) on every
    /// html5lib input and real page, in every chunking.
    #[inline(never)]
    fn text_token_unsplit(
        &mut self,
        t: &Token<'_>,
        chunk: Option<&ValidChunk<'_>>,
        input: Input<'_>,
    ) -> Option<Feedback> {
        let TokenKind::Text(mode) = t.kind() else { return None };
        // Text that changes nothing in the tree causes no element event at all.
        let fb = if self.shadow.skip_inert_text(t, false) {
            Feedback::default()
        } else {
            if !self.text_acts_at_start(t) {
                return None;
            }
            shadow_unobserved_full(&mut self.shadow, t)
        };
        debug_assert!(!self.has_content_rules, "content rules need a matcher");
        self.token_done = false;
        let valid = chunk.and_then(|c| c.at(t.span()));
        if let Some(valid) = valid
            && self.whole_text.is_none()
        {
            return Some(self.doc_text_token(t, mode, valid, fb, input));
        }
        self.stage_run(input);
        self.cursor = t.span().start;
        // No content rule: the piece's parent scopes nothing.
        self.text_piece(t, mode, t.span().end, None, valid);
        self.token_done = true;
        Some(self.finish_token(t, None, fb, None))
    }

    /// [`Core::text_token_unsplit`]'s common case, text token `t` (read in
    /// `mode`, its bytes `valid`, shadow feedback `fb`) whose chunk was valid
    /// UTF-8 and with no whole-node buffering: the one text piece
    /// [`Core::text_piece_handled`] would make of it for document text
    /// handlers alone (no content rule, no open text node), without that
    /// path's general cases — scopes, pieces, other encodings, held nodes.
    /// `tests/tests/suite/rewriter_roundtrip.rs` (item 4) compares what a document
    /// text handler sees here with the full path on every input and
    /// chunking.
    #[inline(always)]
    fn doc_text_token(
        &mut self,
        t: &Token<'_>,
        mode: TextMode,
        valid: &str,
        fb: Feedback,
        input: Input<'_>,
    ) -> Feedback {
        let span = t.span();
        self.cursor = span.end;
        if !span.is_empty() {
            let text = t.text_reusing_valid(valid, &mut self.text_spare).unwrap_or_default();
            debug_assert!(self.text.is_none() && !self.has_content_rules, "no text node is open, no content rule");
            // Markup follows (`Token::ends_before_markup`): the next token is
            // not text, and [`Core::end_text_node`] would give the node's empty
            // last chunk at its start, before anything else; it is given now.
            // Not with line numbers kept: they count this token's lines after it.
            if t.ends_before_markup() && self.lines.is_none() {
                self.doc_text_node(t, &text, mode, input);
            } else {
                self.stage_run(input);
                self.text = Some(OpenText { groups: None, doc: true, span, mode });
                self.run_text_handlers(&[], true, &text, t.raw(), mode, span, false);
                if !self.token_done {
                    self.emit(t.raw());
                }
            }
            self.give_back(text);
        }
        self.token_done = true;
        self.finish_token(t, None, fb, None)
    }

    /// The end of a token: the comment (its handlers scoped by
    /// `comment_parent`), DOCTYPE and processing-instruction handlers, the
    /// token's bytes unless they were written or dropped already, then
    /// [`Core::after_token`]; returns `fb`.
    #[inline(always)]
    fn finish_token(
        &mut self,
        t: &Token<'_>,
        comment_parent: Option<NodeId>,
        fb: Feedback,
        input: Option<Input<'_>>,
    ) -> Feedback {
        match t.kind() {
            TokenKind::Comment(_) | TokenKind::Doctype | TokenKind::ProcessingInstruction => {
                if let Some(input) = input {
                    self.stage_run(input);
                }
                match t.kind() {
                    TokenKind::Comment(_) => self.comment_token(t, comment_parent),
                    TokenKind::Doctype if !self.doc.doctype.is_empty() => self.doctype_token(t),
                    TokenKind::ProcessingInstruction if !self.doc.pis.is_empty() => self.pi_token(t),
                    _ => {}
                }
            }
            _ => {}
        }
        if !self.token_done {
            self.token_done = true;
            // The paths that keep no run pass no input (a constant where inlined).
            match input {
                Some(input) => self.emit_token_run(t, input),
                None => self.emit_token_raw(t.raw()),
            }
        }
        self.after_token(t, fb);
        fb
    }

    /// After a token: the text mode (and RAWTEXT end name) the next text is
    /// read in, and the line count.
    ///
    /// Inlined into every token's path, with the rare work (a RAWTEXT end
    /// name, line counting) out of line: as a call of its own it cost 22
    /// instructions a token, 16 of them saving and restoring registers
    /// (callgrind, no handlers, the three lol-html bench pages).
    #[inline(always)]
    fn after_token(&mut self, t: &Token<'_>, fb: Feedback) {
        // The mode the next text is read in.
        match t.kind() {
            TokenKind::StartTag => {
                self.mode = fb.text_mode;
                if fb.text_mode == TextMode::Rawtext {
                    self.rawtext_end_name(t);
                }
            }
            TokenKind::Text(_) => {}
            TokenKind::CdataStart => self.mode = TextMode::CdataSection,
            _ => self.mode = TextMode::Data,
        }
        if self.lines.is_some() {
            self.count_lines(t);
        }
    }

    /// The end tag name that ends the RAWTEXT after start tag `t`.
    #[inline(never)]
    fn rawtext_end_name(&mut self, t: &Token<'_>) {
        // In place: no allocation per `<style>`, `<xmp>`, `<iframe>`, ….
        self.mode_name.clear();
        self.mode_name.push_str(&t.tag_name());
    }

    /// Counts the lines of token `t`, for locations.
    #[inline(never)]
    fn count_lines(&mut self, t: &Token<'_>) {
        if let Some(lines) = &mut self.lines {
            lines.advance(t.raw(), t.span().start);
        }
    }

    /// The current node of the shadow.
    fn current_node(&self) -> Option<NodeId> {
        self.shadow.current_node_id()
    }

    /// Before an element event at `at` inside a text token: the text before
    /// `at` is a piece of its own, and the text node ends there.
    fn split_text(
        &mut self,
        t: &Token<'_>,
        mode: TextMode,
        at: u64,
        content_parent: &mut Option<Option<NodeId>>,
        node_before: Option<NodeId>,
    ) {
        if at > self.cursor && at <= t.span().end {
            let parent = content_parent.take().unwrap_or(node_before);
            self.text_piece(t, mode, at, parent, None);
        }
        if self.text.is_some() {
            self.end_text_node(at.max(self.cursor));
        }
        *content_parent = None;
    }

    /// Runs the end of the document: EOF in the shadow, document-end handlers.
    pub(crate) fn finish(&mut self, at: u64) {
        if self.text.is_some() {
            self.end_text_node(at);
        }
        self.events.clear();
        self.events.closes_observed = self.closes_observable_now();
        self.shadow.finish(&mut self.events);
        let actions = std::mem::take(&mut self.events.actions);
        let names = std::mem::take(&mut self.events.names);
        let attrs = std::mem::take(&mut self.events.attrs);
        let fb = Feedback::default();
        for a in &actions {
            if self.error.is_some() {
                return;
            }
            match a {
                Action::Opened { .. } | Action::Placed { .. } => self.opened_at(a, (&names, &attrs), None, fb, at),
                Action::Closed { id, cause } => self.closed_at(*id, *cause, None, at),
                Action::Content { .. } => {}
            }
        }
        self.suppress = None;
        self.closes_changed();
        if !self.doc.end.is_empty() {
            let mut bytes = Vec::new();
            let ctx = ContextOwned::of(self.mode, &self.mode_name);
            for h in &mut self.doc.end {
                let mut end = DocumentEnd { encoding: self.encoding, ctx: ctx.get(), out: &mut bytes };
                if let Err(e) = h(&mut end) {
                    self.fail(RewritingError::Handler(e));
                    return;
                }
            }
            self.emit_inserted(&bytes, ctx.get());
        }
    }

    /// An element event `a` (its name and attributes in `kept`, the
    /// collector's names and attributes) at `at`: element handlers, then the
    /// start tag's bytes and what they inserted.
    fn opened_at(&mut self, a: &Action, kept: (&str, &[ShadowAttr]), t: Option<&Token<'_>>, fb: Feedback, at: u64) {
        let placed: Detached;
        let (id, ns, origin, parent, self_closing, name, attrs, rules) = match a {
            Action::Opened { id, ns, origin, parent, self_closing, name, attrs, rules } => {
                let (names, kept_attrs) = kept;
                let name = name.as_ref().map(|n| n.get(names));
                let attrs = attrs.clone().map(|r| &kept_attrs[r]);
                if parent.is_none() && matches!(origin, Origin::AdoptionAgencyClone { .. }) {
                    // Detached: remembered until placed.
                    self.detached.insert(
                        *id,
                        Detached {
                            name: name.unwrap_or_default().into(),
                            ns: *ns,
                            origin: *origin,
                            attrs: attrs.map(<[ShadowAttr]>::to_vec).unwrap_or_default(),
                            self_closing: *self_closing,
                        },
                    );
                    self.closes_changed();
                    return;
                }
                (*id, *ns, *origin, *parent, *self_closing, name, attrs, rules.clone())
            }
            Action::Placed { id, rules } => {
                let Some(d) = self.detached.remove(id) else { return };
                self.closes_changed();
                placed = d;
                let d = &placed;
                (*id, d.ns, d.origin, None, d.self_closing, Some(&*d.name), Some(&d.attrs[..]), rules.clone())
            }
            _ => return,
        };
        let token = t.filter(|t| matches!(origin, Origin::StartTag { span } if span == t.span()));
        // Content-handler scope.
        if self.has_content_rules {
            let inherited = parent.and_then(|p| self.scopes.get(&p)).cloned();
            let mut own: Vec<u32> = self.events.rules[rules.clone()]
                .iter()
                .flat_map(|r| self.rule_map[r.0 as usize].iter().copied())
                .filter(|&g| !self.rules[g as usize].text.is_empty() || !self.rules[g as usize].comments.is_empty())
                .collect();
            if self.rule_aliases {
                own.sort_unstable();
            }
            let scope: Option<Arc<[u32]>> = match (inherited, own.is_empty()) {
                (inherited, true) => inherited,
                (None, false) => Some(own.into()),
                (Some(i), false) => {
                    let mut all = i.to_vec();
                    all.extend(own.iter().filter(|g| !i.contains(g)));
                    Some(all.into())
                }
            };
            if let Some(s) = scope {
                self.scopes.insert(id, s);
            }
        }
        // The handler groups of the matched rules, and whether any has
        // element or end handlers: one pass.
        let mut groups: SmallVec<[u32; 8]> = SmallVec::new();
        let (mut has_element, mut has_end) = (false, false);
        for r in &self.events.rules[rules] {
            for &g in &self.rule_map[r.0 as usize] {
                groups.push(g);
                let h = &self.rules[g as usize];
                has_element |= !h.element.is_empty();
                has_end |= !h.end.is_empty();
            }
        }
        if self.rule_aliases {
            groups.sort_unstable();
        }
        let end_groups: SmallVec<[u32; 8]> = if has_end {
            groups.iter().copied().filter(|&g| !self.rules[g as usize].end.is_empty()).collect()
        } else {
            SmallVec::new()
        };
        if !has_element && !has_end {
            self.emit_token_unchanged(token);
            return;
        }
        let name = name.unwrap_or_default();
        // Only a RAWTEXT context names its element: the name is not decoded for the others.
        let rawtext_name = token.filter(|_| fb.text_mode == TextMode::Rawtext).map(|t| t.tag_name());
        let ctx = match token {
            Some(_) => Context::of(fb.text_mode, rawtext_name.as_deref().unwrap_or_default()),
            None => Context::Data,
        };
        // Untouched: the state `Edits::default()` makes, apart from capacity.
        let parse_level = self.edits_parse_level();
        let edits = self.edits_spare.get_or_insert_default();
        debug_assert!(edits.is_untouched());
        edits.next_slot = self.next_slot;
        edits.parse_level = parse_level;
        let implied_attrs = attrs.unwrap_or_default();
        let src = Source { id, ns, origin, token, name, implied_attrs, self_closing, at };
        let doc = Doc { encoding: self.encoding, lines: self.lines.as_ref() };
        let mut el = Element { src, ctx, doc, e: edits };
        let result = call_element_handlers(&mut self.rules, groups.iter().copied(), &mut el);
        let untouched = el.e.is_untouched();
        if let Err(e) = result {
            self.element_handler_failed(e);
            return;
        }
        // Handlers that only read (counting, collecting): the start tag goes
        // out as it came and nothing waits for the end, as
        // [`Core::element_edited`] would decide for untouched edits.
        if untouched && end_groups.is_empty() {
            self.emit_token_unchanged(token);
            return;
        }
        self.element_edited(id, name, ctx, token, &end_groups);
    }

    /// An element handler failed: the edits its element's handlers made are
    /// dropped, not kept for the next element, and the failure is kept.
    fn element_handler_failed(&mut self, e: Box<dyn std::error::Error + Send + Sync>) {
        self.edits_spare = None;
        self.fail(RewritingError::Handler(e));
    }

    /// The output and pending work of element `id` after its handlers ran
    /// (on the edits in [`Core::edits_spare`]): what goes before it, its
    /// start tag as changed (from `token`, when it has one in this token),
    /// what goes at the start of its content, and what waits for its end
    /// (its edits, and `end_groups`, the handler groups with end handlers)
    /// in [`Core::pending`].
    fn element_edited(
        &mut self,
        id: NodeId,
        name: &str,
        ctx: Context<'_>,
        token: Option<&Token<'_>>,
        end_groups: &[u32],
    ) {
        if end_groups.is_empty()
            && let Some(t) = token
            && let Some(mut edits) = self.edits_spare.take_if(|e| e.only_attributes_changed())
        {
            // The common edit (`href`, `src` rewritten): the start tag as
            // changed, and the edits back for the next element; what the
            // general path below does when nothing else was asked for.
            self.token_done = true;
            self.emit_start_tag(t, &edits);
            edits.clear_attribute_edits(BUFFER_KEPT);
            debug_assert!(edits.is_untouched(), "only attributes were changed");
            self.edits_spare = Some(edits);
            return;
        }
        let ctx = ContextOwned::from_context(ctx);
        let mut edits = self.edits_spare.take().unwrap_or_default();
        if let Some(slots) = &mut edits.slots {
            self.next_slot = edits.next_slot;
            self.slot_log.created.append(&mut slots.created);
            self.slot_log.discarded.append(&mut slots.discarded);
            self.add_parse_inserts(&mut slots.parsed);
        }
        // Output at the start.
        let before = std::mem::take(&mut edits.before);
        self.emit_pieces(&before, Context::Data, Place::Before, edits.deferred());
        if edits.slots.is_some() {
            self.place_over(edits.deferred(), Place::Replace, true);
        }
        let suppressed_before = self.suppress.is_some();
        if edits.removal == Removal::Whole {
            if let Some(r) = edits.replacement.take() {
                self.emit_inserted(&r, Context::Data);
            }
            if !suppressed_before {
                self.suppress = Some(Suppress::Whole(id));
                self.closes_changed();
            }
        }
        if let Some(t) = token {
            self.token_done = true;
            if edits.removal == Removal::None {
                self.emit_start_tag(t, &edits);
            }
        }
        let prepend = std::mem::take(&mut edits.prepend);
        self.emit_pieces(&prepend, ctx.get(), Place::Prepend, edits.deferred());
        if let Some(inner) = edits.inner.take() {
            self.emit_inserted(&inner, ctx.get());
            if self.suppress.is_none() {
                self.suppress = Some(Suppress::Inner(id));
                self.closes_changed();
            }
            edits.inner = Some(Vec::new());
        }
        if edits.slots.is_some() {
            self.place_over(edits.deferred(), Place::Inner, true);
        }
        if edits.has_end_work() || !end_groups.is_empty() {
            let (name, end_groups) = (name.into(), end_groups.to_vec());
            self.pending.insert(id, Pending { name, edits, end_groups, ctx, has_start_tag: token.is_some() });
            self.closes_changed();
        } else {
            // Nothing waits: the edits' buffers serve the next element.
            edits.before = before;
            edits.prepend = prepend;
            edits.clear_for_reuse(BUFFER_KEPT);
            self.edits_spare = Some(edits);
        }
    }

    /// Writes start tag `t` with `edits`' attribute and name changes (as it
    /// came when there are none), with the marks of attribute-value slots.
    fn emit_start_tag(&mut self, t: &Token<'_>, edits: &crate::element::Edits<'h, K>) {
        if !edits.start_tag_changed() {
            self.emit(t.raw());
            return;
        }
        // The common edit, written straight into the staged output (what
        // `emit` does with the bytes below when nothing is suppressed).
        debug_assert!(self.direct.is_none() && self.run_is_empty(), "as in `emit`");
        if self.suppress.is_none()
            && edits.write_one_value_changed(t, Doc { encoding: self.encoding, lines: None }, &mut self.out)
        {
            return;
        }
        // Any other edit, or suppressed output (which keeps only the slot
        // marks; the common edit places none): the general path.
        let mut bytes = std::mem::take(&mut self.start_tag);
        bytes.clear();
        let mut marks = Vec::new();
        edits.write_start_tag_general(t, Doc { encoding: self.encoding, lines: None }, &mut bytes, &mut marks);
        if marks.is_empty() {
            self.emit(&bytes);
        } else {
            let mut at = 0;
            for (offset, mark) in marks {
                self.emit(&bytes[at..offset]);
                at = offset;
                self.place(mark);
            }
            self.emit(&bytes[at..]);
        }
        // A long tag's buffer is not kept (memory stays bounded by
        // the chunk, not by the longest tag seen).
        if bytes.capacity() <= BUFFER_KEPT {
            self.start_tag = bytes;
        }
    }

    /// Writes an element's start tag (if it has one in this token) as it
    /// came: nothing edits it and nothing waits for its end.
    fn emit_token_unchanged(&mut self, token: Option<&Token<'_>>) {
        if let Some(t) = token {
            self.token_done = true;
            self.emit(t.raw());
        }
    }

    fn closed_at(&mut self, id: NodeId, cause: CloseCause, t: Option<&Token<'_>>, at: u64) {
        if !self.byte_ended.is_empty() && self.byte_ended.remove(&id) {
            self.closes_changed();
            return;
        }
        if !self.detached.is_empty() {
            self.detached.remove(&id);
            self.closes_changed();
        }
        let end_tag = t.filter(|t| {
            t.kind() == TokenKind::EndTag
                && !self.token_done
                && match cause {
                    CloseCause::EndTag { span } => span == t.span(),
                    CloseCause::AdoptionAgency { by } => {
                        by == t.span() && self.pending.get(&id).is_some_and(|p| t.tag_name_is(p.name.as_bytes()))
                    }
                    _ => false,
                }
        });
        self.end_element(id, cause, end_tag, at);
    }

    /// Everything that happens where an element ends in the bytes.
    fn end_element(&mut self, id: NodeId, cause: CloseCause, end_tag: Option<&Token<'_>>, at: u64) {
        if !self.scopes.is_empty() {
            self.scopes.remove(&id);
        }
        let pending = if self.pending.is_empty() { None } else { self.pending.remove(&id) };
        if pending.is_some() {
            self.closes_changed();
        }
        let Some(mut p) = pending else {
            if let Some(t) = end_tag {
                self.token_done = true;
                self.emit(t.raw());
            }
            if self.suppress.is_some_and(|s| matches!(s, Suppress::Whole(x) | Suppress::Inner(x) if x == id)) {
                self.suppress = None;
                self.closes_changed();
            }
            return;
        };
        if self.suppress == Some(Suppress::Inner(id)) {
            self.suppress = None;
            self.closes_changed();
        }
        if p.edits.slots.is_some() {
            self.place_over(p.edits.deferred(), Place::Inner, false);
        }
        let append = std::mem::take(&mut p.edits.append);
        self.emit_pieces(&append, p.ctx.get(), Place::Append, p.edits.deferred());
        let mut end =
            EndEdits { next_slot: self.next_slot, parse_level: self.edits_parse_level(), ..EndEdits::default() };
        let mut own = std::mem::take(&mut p.edits.end_handlers);
        let mut failed = None;
        {
            let doc = Doc { encoding: self.encoding, lines: self.lines.as_ref() };
            let ctx = p.ctx.get();
            let mut call = |h: &mut K::EndHandler<'h>| {
                let mut v =
                    ElementEnd { id, name: &p.name, end_tag: end_tag.copied(), cause, at, ctx, doc, m: &mut end };
                if let Err(e) = h(&mut v) {
                    failed = Some(e);
                }
                failed.is_none()
            };
            let group_ok = p.end_groups.iter().all(|&g| self.rules[g as usize].end.iter_mut().all(&mut call));
            if group_ok {
                own.iter_mut().all(&mut call);
            }
        }
        if let Some(e) = failed {
            self.fail(RewritingError::Handler(e));
            return;
        }
        self.next_slot = end.next_slot;
        self.add_parse_inserts(&mut end.parsed);
        self.emit_inserted(&end.before, p.ctx.get());
        if let Some(t) = end_tag {
            self.token_done = true;
            let keep = !end.remove_end_tag && p.edits.removal == Removal::None;
            if keep {
                match end.name.as_deref().or(p.edits.name.as_deref()) {
                    Some(name) if p.has_start_tag || end.name.is_some() => {
                        let mut bytes = Vec::new();
                        write_end_tag(t, name, &mut bytes);
                        self.emit(&bytes);
                    }
                    _ => self.emit(t.raw()),
                }
            }
        }
        if let Some(replacement) = &end.replacement {
            self.emit_inserted(replacement, Context::Data);
        }
        if self.suppress == Some(Suppress::Whole(id)) {
            self.suppress = None;
            self.closes_changed();
        }
        if p.edits.slots.is_some() {
            self.place_over(p.edits.deferred(), Place::Replace, false);
        }
        self.emit_inserted(&end.after, Context::Data);
        self.emit_pieces(&p.edits.after, Context::Data, Place::After, p.edits.deferred());
    }

    /// `</body>` and `</html>` switch insertion modes without popping: their
    /// bytes end the elements still open above and including `body` (or `html`).
    /// Only the token that switches the mode counts (a repeated `</body>`
    /// is ignored by the shadow, and here), so the walk over the open
    /// elements happens at most once per mode switch.
    fn end_tag_without_pop(&mut self, t: &Token<'_>, mode_before: InsertionMode) {
        let body = t.tag_name_is(b"body");
        if !body && !t.tag_name_is(b"html") {
            return;
        }
        let after = |m| matches!(m, InsertionMode::AfterAfterBody | InsertionMode::AfterAfterFrameset);
        let mode = self.shadow.insertion_mode();
        let accepted = if body {
            mode == InsertionMode::AfterBody && mode_before != InsertionMode::AfterBody
        } else {
            after(mode) && !after(mode_before)
        };
        if !accepted {
            return;
        }
        let open: Vec<(NodeId, bool)> = self
            .shadow
            .open_elements()
            .map(|e| (e.id(), e.ns() == Namespace::Html && e.name() == if body { "body" } else { "html" }))
            .collect();
        let Some(target) = open.iter().position(|&(_, is)| is) else { return };
        let by = CloseCause::Implied { by: t.span() };
        for &(id, is_target) in open[target..].iter().rev() {
            if self.byte_ended.contains(&id) {
                continue;
            }
            let (cause, tag) = if is_target { (CloseCause::EndTag { span: t.span() }, Some(t)) } else { (by, None) };
            self.end_element(id, cause, tag, t.span().start);
            self.byte_ended.insert(id);
            self.closes_changed();
            if self.error.is_some() {
                return;
            }
        }
    }

    /// The groups with handlers of `kind` active under `parent`.
    fn scope_of(&self, parent: Option<NodeId>) -> Option<Arc<[u32]>> {
        parent.and_then(|p| self.scopes.get(&p)).cloned()
    }

    /// Handles the bytes of text token `t` from the cursor to `end` (a
    /// piece inside one parent): text handlers, then output.
    ///
    /// Without text or comment handlers of any kind (and so without an open
    /// text node) the piece's bytes go out as they are, inline; the rest is
    /// [`Core::text_piece_handled`]. As one call this cost 47 instructions a
    /// text token of its own in the `rewrite` workload (callgrind, the three
    /// lol-html bench pages).
    ///
    /// `valid` is the token's bytes as `str`, when the caller has them.
    #[inline(always)]
    fn text_piece(&mut self, t: &Token<'_>, mode: TextMode, end: u64, parent: Option<NodeId>, valid: Option<&str>) {
        if self.content_handlers || self.text.is_some() {
            return self.text_piece_handled(t, mode, end, parent, valid);
        }
        let start = self.cursor;
        if end > start {
            self.cursor = end;
            let base = t.span().start;
            let range = (start - base) as usize..(end - base) as usize;
            if end == t.span().end {
                // The token's last piece: nothing is written after it.
                self.emit_token_bytes(t.raw(), range);
            } else {
                self.emit(&t.raw()[range]);
            }
        }
    }

    /// [`Core::text_piece`] where a handler may see the piece or a text
    /// node is open.
    #[inline(never)]
    fn text_piece_handled(
        &mut self,
        t: &Token<'_>,
        mode: TextMode,
        end: u64,
        parent: Option<NodeId>,
        valid: Option<&str>,
    ) {
        let start = self.cursor;
        if end <= start {
            return;
        }
        self.cursor = end;
        let base = t.span().start;
        let raw = &t.raw()[(start - base) as usize..(end - base) as usize];
        let scope = if self.has_content_rules { self.scope_of(parent) } else { None };
        let has_text = |g: &u32| !self.rules[*g as usize].text.is_empty();
        let groups: Option<Arc<[u32]>> = match scope {
            Some(s) if s.iter().any(has_text) => Some(s.iter().copied().filter(has_text).collect()),
            // No allocation (nor reference count) for text no rule handles
            // (most of a document).
            _ => None,
        };
        let doc = !self.doc.text.is_empty();
        if groups.is_none() && !doc {
            match (&mut self.text, self.whole_text) {
                // A text node is being held (whole-node mode): this piece
                // waits with it, so that bytes keep their order.
                (Some(open), Some(_)) => {
                    self.held_raw.extend_from_slice(raw);
                    open.span.end = end;
                }
                _ => self.emit(raw),
            }
            return;
        }
        let eof = t.is_eof_terminated() && end == t.span().end;
        let text = if self.encoding != encoding_rs::UTF_8 {
            Cow::Owned(self.decode_streaming(raw, mode, eof))
        } else if start == base && end == t.span().end {
            // Decoded (references, CR) in the spare buffer: no allocation per text token.
            match valid {
                Some(valid) => t.text_reusing_valid(valid, &mut self.text_spare),
                None => t.text_reusing(&mut self.text_spare),
            }
            .unwrap_or_default()
        } else {
            decode_for_tree(self.encoding, raw, mode, eof)
        };
        let span = Span::new(start, end);
        match &mut self.text {
            Some(open) => {
                if let Some(new) = &groups {
                    let seen = open.groups.as_deref().unwrap_or_default();
                    if new.iter().any(|g| !seen.contains(g)) {
                        let mut all = seen.to_vec();
                        all.extend(new.iter().filter(|g| !seen.contains(g)));
                        open.groups = Some(all.into());
                    }
                }
                open.doc |= doc;
            }
            None => self.text = Some(OpenText { groups: groups.clone(), doc, span, mode }),
        }
        if let Some(limit) = self.whole_text {
            let open = self.text.as_mut().expect("opened above");
            self.held_raw.extend_from_slice(raw);
            self.held_text.push_str(&text);
            open.span.end = end;
            if self.held_raw.len() > limit || self.held_raw.len() > self.memory_limit {
                let needed = self.held_raw.len();
                self.fail(RewritingError::MemoryLimitExceeded { limit: limit.min(self.memory_limit), needed });
                // Not written: the held node and the rest of this token.
                self.text = None;
                self.held_text.clear();
                let mut unwritten = std::mem::take(&mut self.held_raw);
                unwritten.extend_from_slice(&t.raw()[(end - base) as usize..]);
                self.unwritten = unwritten;
            }
            self.give_back(text);
            return;
        }
        self.token_done = false;
        self.run_text_handlers(groups.as_deref().unwrap_or_default(), doc, &text, raw, mode, span, false);
        if !self.token_done {
            self.emit(raw);
        }
        self.give_back(text);
    }

    /// Keeps the buffer of decoded text `text` for the next text token
    /// ([`Token::text_reusing`]) unless it grew past [`BUFFER_KEPT`]
    /// (memory stays bounded by the chunk, not by the longest text seen).
    fn give_back(&mut self, text: Cow<'_, str>) {
        if let Cow::Owned(s) = text
            && s.capacity() <= BUFFER_KEPT
            && s.capacity() > self.text_spare.capacity()
        {
            self.text_spare = s;
        }
    }

    /// Decodes a piece of a text node in a legacy encoding. The tokenizer
    /// cuts text where input chunks end, which may be inside a multi-byte
    /// character (Shift_JIS, gb18030, …): its first bytes wait in the
    /// decoder for the next piece, so handlers never see a character split
    /// into U+FFFDs.
    fn decode_streaming(&mut self, raw: &[u8], mode: TextMode, eof: bool) -> String {
        let encoding = self.encoding;
        let decoder = self.text_decoder.get_or_insert_with(|| encoding.new_decoder_without_bom_handling());
        let mut s = String::with_capacity(decoder.max_utf8_buffer_length(raw.len()).unwrap_or(raw.len() * 3 + 16));
        let _ = decoder.decode_to_string(raw, &mut s, eof);
        if eof {
            self.text_decoder = None;
        }
        htrewrite_tokenizer::decode_text(s.as_bytes(), mode, eof).into_owned()
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn run_text_handlers(
        &mut self,
        groups: &[u32],
        doc_handlers: bool,
        text: &str,
        raw: &[u8],
        mode: TextMode,
        span: Span,
        last: bool,
    ) {
        // Borrowed from `mode_name` while the handlers run (made owned below
        // only when they changed something).
        let ctx = Context::of(mode, &self.mode_name);
        // One chunk for every handler (they see each other's edits through
        // it), its edits in the kept `text_edits` (no construction per chunk).
        let doc = Doc { encoding: self.encoding, lines: self.lines.as_ref() };
        let mut c = TextChunk { text, raw, mode, last, span, ctx, doc, m: &mut self.text_edits };
        let result = call_text_handlers(&mut self.rules, &mut self.doc.text, groups, doc_handlers, &mut c);
        self.text_handlers_done(result, raw, mode);
    }

    /// After text handlers ran on a chunk of bytes `raw` read in `mode`:
    /// their failure recorded, or the edits they made (none, the common
    /// case, is checked in line) written.
    #[inline(always)]
    fn text_handlers_done(&mut self, result: crate::HandlerResult, raw: &[u8], mode: TextMode) {
        if let Err(e) = result {
            self.text_edits = Mutations::default();
            self.fail(RewritingError::Handler(e));
            return;
        }
        // Handlers that only read (the common case) leave the edits untouched.
        if !self.text_edits.is_noop() {
            let m = std::mem::take(&mut self.text_edits);
            let ctx = ContextOwned::of(mode, &self.mode_name);
            self.apply_changes(m, raw, ctx.get());
        }
    }

    /// The document text handlers on text token `t`'s decoded `text`, the
    /// one piece of its text node, and then on the node's empty last chunk
    /// (at the token's end), with the token's bytes written between — what
    /// [`Core::run_text_handlers`], the token's bytes and
    /// [`Core::end_text_node`] at the next token do when markup follows
    /// (`Token::ends_before_markup`). One chunk serves both calls when the
    /// first leaves no edit (the common case).
    #[inline(always)]
    fn doc_text_node(&mut self, t: &Token<'_>, text: &str, mode: TextMode, input: Input<'_>) {
        let (raw, span) = (t.raw(), t.span());
        let ctx = Context::of(mode, &self.mode_name);
        let doc = Doc { encoding: self.encoding, lines: self.lines.as_ref() };
        let mut c = TextChunk { text, raw, mode, last: false, span, ctx, doc, m: &mut self.text_edits };
        let result = call_text_handlers(&mut self.rules, &mut self.doc.text, &[], true, &mut c);
        if result.is_ok() && c.m.is_noop() {
            // The last chunk, its edits after the token's bytes.
            (c.text, c.raw, c.last, c.span) = ("", b"", true, Span::new(span.end, span.end));
            let result = call_text_handlers(&mut self.rules, &mut self.doc.text, &[], true, &mut c);
            self.token_done = true;
            if result.is_ok() && self.text_edits.is_noop() {
                // Handlers that only read: the token's bytes and nothing else
                // (what `text_handlers_done` would add is nothing).
                self.emit_token_run(t, input);
                return;
            }
            self.stage_run(input);
            self.emit(raw);
            self.text_handlers_done(result, b"", mode);
            return;
        }
        self.stage_run(input);
        self.text_handlers_done(result, raw, mode);
        if !self.token_done {
            self.emit(raw);
        }
        if self.error.is_none() {
            self.token_done = true;
            self.run_text_handlers(&[], true, "", b"", mode, Span::new(span.end, span.end), true);
        }
    }

    /// Writes a comment's, DOCTYPE's or processing instruction's bytes with
    /// the mutations handlers made (none, the common case, is checked in
    /// line: the call moved the mutations). Text chunks keep theirs in
    /// [`Core::text_edits`] and check them in place.
    #[inline(always)]
    fn apply_mutations(&mut self, m: Mutations, raw: &[u8], ctx: Context<'_>) {
        if !m.is_noop() {
            self.apply_changes(m, raw, ctx);
        }
    }

    /// [`Core::apply_mutations`] when handlers changed something.
    #[inline(never)]
    fn apply_changes(&mut self, m: Mutations, raw: &[u8], ctx: Context<'_>) {
        self.emit_inserted(&m.before, ctx);
        if let Some(r) = &m.replacement {
            self.emit_inserted(r, ctx);
        } else if !m.removed && !self.token_done {
            self.emit(raw);
        }
        self.token_done = true;
        self.emit_inserted(&m.after, ctx);
    }

    /// The text node ended (a non-text token at `at`, or the end of input).
    ///
    /// The common case in line: no whole-node buffering and no character
    /// left unfinished by a legacy decoder, so the last chunk is empty and
    /// nothing is written.
    #[inline]
    fn end_text_node(&mut self, at: u64) {
        if self.whole_text.is_some() || self.text_decoder.is_some() {
            return self.end_text_node_held(at);
        }
        let Some(open) = self.text.take() else { return };
        let saved_done = std::mem::replace(&mut self.token_done, true);
        let groups = open.groups.as_deref().unwrap_or_default();
        self.run_text_handlers(groups, open.doc, "", b"", open.mode, Span::new(at, at), true);
        self.token_done = saved_done;
    }

    /// [`Core::end_text_node`] with held text or an unfinished character.
    #[inline(never)]
    fn end_text_node_held(&mut self, at: u64) {
        let Some(open) = self.text.take() else { return };
        // A character the node's last bytes left unfinished (legacy encodings).
        let mut tail = String::new();
        if let Some(mut decoder) = self.text_decoder.take() {
            tail.reserve(16);
            let _ = decoder.decode_to_string(b"", &mut tail, true);
        }
        let saved_done = self.token_done;
        if self.whole_text.is_some() {
            let (mut held_raw, mut held_text) =
                (std::mem::take(&mut self.held_raw), std::mem::take(&mut self.held_text));
            held_text.push_str(&tail);
            self.token_done = false;
            let groups = open.groups.as_deref().unwrap_or_default();
            self.run_text_handlers(groups, open.doc, &held_text, &held_raw, open.mode, open.span, true);
            if !self.token_done {
                self.emit(&held_raw);
            }
            // The buffers stay for the next node unless they grew past BUFFER_KEPT.
            held_raw.clear();
            held_text.clear();
            if held_raw.capacity() <= BUFFER_KEPT && held_text.capacity() <= BUFFER_KEPT {
                (self.held_raw, self.held_text) = (held_raw, held_text);
            }
        } else {
            self.token_done = true;
            let groups = open.groups.as_deref().unwrap_or_default();
            self.run_text_handlers(groups, open.doc, &tail, b"", open.mode, Span::new(at, at), true);
        }
        self.token_done = saved_done;
    }

    fn comment_token(&mut self, t: &Token<'_>, parent: Option<NodeId>) {
        let scope = if self.has_content_rules { self.scope_of(parent) } else { None };
        let has_scope = scope.as_ref().is_some_and(|s| s.iter().any(|&g| !self.rules[g as usize].comments.is_empty()));
        if !has_scope && self.doc.comments.is_empty() {
            return;
        }
        let TokenKind::Comment(kind) = t.kind() else { return };
        let data = match t.comment_data() {
            Some(d) if self.encoding == encoding_rs::UTF_8 || t.raw().is_ascii() => d.into_owned(),
            _ => {
                let (s, _) = self.encoding.decode_without_bom_handling(t.raw());
                comment_data_of(&s)
            }
        };
        let mut m = Mutations::default();
        let doc = Doc { encoding: self.encoding, lines: self.lines.as_ref() };
        if let Some(s) = scope {
            for &g in s.iter() {
                for h in &mut self.rules[g as usize].comments {
                    let mut c = Comment { data: &data, kind, raw: t.raw(), span: t.span(), doc, m: &mut m };
                    if let Err(e) = h(&mut c) {
                        self.fail(RewritingError::Handler(e));
                        return;
                    }
                }
            }
        }
        for h in &mut self.doc.comments {
            let mut c = Comment { data: &data, kind, raw: t.raw(), span: t.span(), doc, m: &mut m };
            if let Err(e) = h(&mut c) {
                self.fail(RewritingError::Handler(e));
                return;
            }
        }
        self.apply_mutations(m, t.raw(), Context::Data);
    }

    fn doctype_token(&mut self, t: &Token<'_>) {
        let fields = t.doctype().unwrap_or_default();
        let mut m = Mutations::default();
        let doc = Doc { encoding: self.encoding, lines: self.lines.as_ref() };
        for h in &mut self.doc.doctype {
            let mut d = Doctype { fields: &fields, raw: t.raw(), span: t.span(), doc, m: &mut m };
            if let Err(e) = h(&mut d) {
                self.fail(RewritingError::Handler(e));
                return;
            }
        }
        self.apply_mutations(m, t.raw(), Context::Data);
    }

    fn pi_token(&mut self, t: &Token<'_>) {
        let (target, data) = t.processing_instruction().unwrap_or_default();
        let mut m = Mutations::default();
        let doc = Doc { encoding: self.encoding, lines: self.lines.as_ref() };
        for h in &mut self.doc.pis {
            let mut p =
                ProcessingInstruction { target: &target, data: &data, raw: t.raw(), span: t.span(), doc, m: &mut m };
            if let Err(e) = h(&mut p) {
                self.fail(RewritingError::Handler(e));
                return;
            }
        }
        self.apply_mutations(m, t.raw(), Context::Data);
    }
}

/// Where the first character of `raw` (at `start`) that is not whitespace
/// is, as the shadow counts whitespace (references to whitespace included),
/// NULs skipped too where `nul`; the end of `raw` when there is none.
fn first_non_whitespace(raw: &[u8], start: u64, nul: bool) -> u64 {
    let mut i = 0;
    while i < raw.len() {
        match raw[i] {
            b'\t' | b'\n' | 0x0C | b'\r' | b' ' => i += 1,
            0 if nul => i += 1,
            b'&' => match whitespace_reference_len(&raw[i..]) {
                Some(n) => i += n,
                None => break,
            },
            _ => break,
        }
    }
    start + i as u64
}

/// The length of a character reference at the start of `s` that decodes to
/// tree-construction whitespace, if it is one (the shadow's rule: `&Tab;`,
/// `&NewLine;`, numeric references with or without `;`).
fn whitespace_reference_len(s: &[u8]) -> Option<usize> {
    whitespace_reference(s).map(|(len, _)| len)
}

/// A character reference at the start of `s` that decodes to
/// tree-construction whitespace: its length and the code point.
fn whitespace_reference(s: &[u8]) -> Option<(usize, u32)> {
    if s.starts_with(b"&Tab;") {
        return Some((5, 0x09));
    }
    if s.starts_with(b"&NewLine;") {
        return Some((9, 0x0A));
    }
    let rest = s.strip_prefix(b"&#")?;
    let hex = matches!(rest.first(), Some(b'x' | b'X'));
    let digits = &rest[usize::from(hex)..];
    let n = digits.iter().take_while(|b| if hex { b.is_ascii_hexdigit() } else { b.is_ascii_digit() }).count();
    if n == 0 {
        return None;
    }
    let radix = if hex { 16 } else { 10 };
    let value = digits[..n]
        .iter()
        .fold(0u32, |v, &b| v.saturating_mul(radix).saturating_add((b as char).to_digit(radix).unwrap_or(0)));
    if !matches!(value, 0x09 | 0x0A | 0x0C | 0x0D | 0x20) {
        return None;
    }
    Some((2 + usize::from(hex) + n + usize::from(digits.get(n) == Some(&b';')), value))
}

/// The length of the U+000A LINE FEED at the start of data text `raw` as
/// the tree builder gets it: LF, CR LF or a lone CR (the input stream's
/// preprocessing makes each one LF), or a character reference to U+000A;
/// 0 when `raw` does not start with one.
fn leading_newline_len(raw: &[u8]) -> usize {
    match raw {
        [b'\r', b'\n', ..] => 2,
        [b'\n' | b'\r', ..] => 1,
        [b'&', ..] => match whitespace_reference(raw) {
            Some((len, 0x0A)) => len,
            _ => 0,
        },
        _ => 0,
    }
}

/// Whether text in insertion mode `mode` makes the same element events
/// whether it starts with whitespace or not: true where characters follow
/// the ["in body"](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-inbody)
/// rules (whitespace and other characters both reconstruct the active
/// formatting elements; only frameset-ok differs), which "in cell", "in
/// caption" and "in template" use for characters. Text in foreign content
/// opens and closes nothing at all. Elsewhere ("in head", "in table", …)
/// whitespace is inserted where other characters first close or open
/// elements, so the two reach the shadow as separate pieces.
/// Where the next piece of data text goes to the shadow, and where its
/// element events are: see [`text_piece_plan`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PiecePlan {
    /// The end of the leading characters that cause no element events (a
    /// piece of their own when there are any).
    inert_end: u64,
    /// The place of the events of the piece from `inert_end`.
    at: u64,
    /// The end of that piece: `None` for the rest of the token (no later
    /// character causes events at a place of its own), `Some` for a NUL
    /// alone, after which the insertion mode has changed and the rest is
    /// planned again.
    piece_end: Option<u64>,
}

impl PiecePlan {
    /// For the plan of a whole data text token `start..end`: the place of
    /// its element events when the token goes to the shadow in one piece —
    /// all of it inert (events, if any, at its start) or one piece from its
    /// start —, else `None` (pieces of their own before the events).
    #[inline(always)]
    fn whole_token(&self, start: u64, end: u64) -> Option<u64> {
        if self.inert_end == end {
            Some(start)
        } else if self.piece_end.is_none() && self.inert_end == start {
            Some(self.at)
        } else {
            None
        }
    }
}

/// Calls the element handlers of handler groups `groups`, in order, on
/// element `el` (they see each other's edits through it), until one fails:
/// its error. One `Element` for them all, as [`call_text_handlers`] has one
/// chunk.
#[inline(always)]
fn call_element_handlers<'h, K: HandlerKind>(
    rules: &mut [RuleHandlers<'h, K>],
    groups: impl IntoIterator<Item = u32>,
    el: &mut Element<'_, 'h, K>,
) -> crate::HandlerResult {
    for g in groups {
        for h in &mut rules[g as usize].element {
            h(el)?;
        }
    }
    Ok(())
}

/// Calls the text handlers of rule groups `groups` and then, with
/// `doc_handlers`, the document's on chunk `c` (they see each other's edits
/// through it), until one fails: its error.
#[inline(always)]
fn call_text_handlers<'h, K: HandlerKind>(
    rules: &mut [RuleHandlers<'h, K>],
    doc: &mut [K::TextHandler<'h>],
    groups: &[u32],
    doc_handlers: bool,
    c: &mut TextChunk<'_>,
) -> crate::HandlerResult {
    for &g in groups {
        for h in &mut rules[g as usize].text {
            h(c)?;
        }
    }
    if doc_handlers {
        for h in doc {
            h(c)?;
        }
    }
    Ok(())
}

/// The shadow on token `t`, its events to the collector, through tree
/// construction compiled for [`Collector`] (no dynamic call per event). Not
/// generic: that copy is compiled once, in this crate, not in every crate
/// that instantiates `Core<K>`.
#[inline(never)]
fn shadow_collect(shadow: &mut Shadow, t: &Token<'_>, c: &mut Collector) -> Feedback {
    shadow.process_monomorphized(t, c)
}

/// The shadow on token `t` when nothing observes its events
/// ([`Core::token_unobserved`]): text that changes nothing in the tree
/// ([`Shadow::skip_inert_text`]) in line, the rest through
/// [`shadow_unobserved_full`].
#[inline(always)]
fn shadow_unobserved(shadow: &mut Shadow, t: &Token<'_>) -> Feedback {
    if shadow.skip_inert_text(t, false) {
        return Feedback::default();
    }
    shadow_unobserved_full(shadow, t)
}

/// [`shadow_unobserved`] out of line: compiled for [`NoEvents`], which lets
/// the compiler drop the events' construction. Not generic, like [`shadow_collect`].
#[inline(never)]
fn shadow_unobserved_full(shadow: &mut Shadow, t: &Token<'_>) -> Feedback {
    shadow.process_monomorphized(t, &mut NoEvents)
}

/// Plans the next piece of data text `rest`, at offset `cur`, for the
/// shadow's current insertion mode:
/// - "in body" rules (body, cells, captions, templates, after the body, text
///   foster-parented in a table): whitespace and other characters open the
///   same elements; one piece, its events at the first character that is
///   not an ignored NUL, after the newline that follows `<pre>` or
///   `<listing>` (ignored, a piece of its own);
/// - "after after frameset": only whitespace acts; events at the first;
/// - "in table text" and the frameset modes: leading whitespace and NULs
///   cause nothing, the rest one piece;
/// - elsewhere ("initial" … "after head", "in column group") the first
///   character that is not whitespace (a NUL too) closes or opens elements
///   and switches the insertion mode, and the piece from it has its events
///   there; when it is a NUL, it is a piece of its own and the rest is
///   planned again in the new mode.
///
/// Always inlined: called from two places, the compiler put it out of line,
/// and `count10` went from 61.65 to 62.06 instructions a byte (callgrind,
/// the three lol-html bench pages, fb4b2e4's change with and without this).
#[inline(always)]
fn text_piece_plan(shadow: &Shadow, rest: &[u8], cur: u64) -> PiecePlan {
    let rules = shadow.insertion_mode().text_rules();
    if text_opens_alike(rules) || shadow.fosters_text() {
        // spec ("in body", `pre` and `listing`): "If the next token is a
        // U+000A LINE FEED (LF) character token, then ignore that token":
        // the ignored newline acts on nothing, so events come after it.
        let newline = if shadow.skips_next_newline() { leading_newline_len(rest) } else { 0 };
        let inert_end = cur + newline as u64;
        return PiecePlan { inert_end, at: first_non_nul(&rest[newline..], inert_end), piece_end: None };
    }
    if rules == TextRules::AfterAfterFrameset {
        return PiecePlan { inert_end: cur, at: first_whitespace(rest, cur), piece_end: None };
    }
    let nul = ignores_nul(rules);
    let p = first_non_whitespace(rest, cur, nul);
    // A NUL that switches the mode may be ignored in the new one (table
    // text, "in body"), so what follows can act at places of its own; any
    // other character acts itself in the new mode, at its own place, and
    // the rest of the token goes with it.
    let piece_end = (!nul && rest.get((p - cur) as usize) == Some(&0)).then_some(p + 1);
    PiecePlan { inert_end: p, at: p, piece_end }
}

/// Text under the rules `rules` opens and closes elements as "in body"
/// text does ("after body" and "after after body" process whitespace with
/// the "in body" rules and switch to "in body" for anything else): the
/// shadow's [`TextRules`](htrewrite_shadow::TextRules).
fn text_opens_alike(rules: TextRules) -> bool {
    matches!(rules, TextRules::InBody | TextRules::AfterBody)
}

/// Whether text under the rules `rules` drops a U+0000 without opening or
/// closing anything where it does not drop whitespace: "in table text"
/// (entered from "in table", "in table body" and "in row") ignores NULs and
/// acts on the other characters, so a NUL belongs with the leading
/// whitespace. "In frameset" and "after frameset" open nothing for text.
/// Elsewhere ("in head", "in column group", …) a NUL is "anything else" and
/// closes or opens elements like any other character. Read from the
/// shadow's [`TextRules`](htrewrite_shadow::TextRules).
fn ignores_nul(rules: TextRules) -> bool {
    matches!(rules, TextRules::Table | TextRules::Frameset)
}

/// The offset of the first whitespace character of `raw` (at `start`),
/// a character reference to one included; the end of `raw` if none.
fn first_whitespace(raw: &[u8], start: u64) -> u64 {
    let mut i = 0;
    while i < raw.len() {
        match raw[i] {
            b'\t' | b'\n' | 0x0C | b'\r' | b' ' => break,
            b'&' if whitespace_reference_len(&raw[i..]).is_some() => break,
            _ => i += 1,
        }
    }
    start + i as u64
}

/// The offset of the first byte of `raw` (at `start`) that is not U+0000
/// (the "in body" rules ignore NULs).
fn first_non_nul(raw: &[u8], start: u64) -> u64 {
    start + raw.iter().take_while(|&&b| b == 0).count() as u64
}

/// Text decoded for the tree builder (transcoded first in other encodings).
fn decode_for_tree<'a>(encoding: &'static Encoding, raw: &'a [u8], mode: TextMode, eof: bool) -> Cow<'a, str> {
    if encoding == encoding_rs::UTF_8 || raw.is_ascii() {
        htrewrite_tokenizer::decode_text(raw, mode, eof)
    } else {
        let (s, _) = encoding.decode_without_bom_handling(raw);
        Cow::Owned(htrewrite_tokenizer::decode_text(s.as_bytes(), mode, eof).into_owned())
    }
}

/// The data of the comment `s` (a whole comment token, transcoded to UTF-8).
fn comment_data_of(s: &str) -> String {
    struct First(Option<String>);
    impl TokenSink for First {
        fn token(&mut self, t: &Token<'_>) -> Feedback {
            if self.0.is_none() {
                self.0 = t.comment_data().map(Cow::into_owned);
            }
            Feedback::default()
        }
    }
    let mut first = First(None);
    let mut tokenizer = htrewrite_tokenizer::Tokenizer::new();
    tokenizer.feed(s.as_bytes(), &mut first);
    tokenizer.finish(&mut first);
    first.0.unwrap_or_default()
}

/// The core's staged output, for the sink: the bytes, the slot log, the
/// last bytes before them and the encoding content is written in.
pub(crate) struct Staged<'a> {
    pub(crate) bytes: &'a mut Vec<u8>,
    pub(crate) log: &'a mut SlotLog,
    pub(crate) tail: Tail,
    pub(crate) encoding: &'static Encoding,
    /// Bytes written after `bytes` as they are (a long token's, not copied).
    pub(crate) then: &'a [u8],
}

/// Feeds tokens of one chunk into the core.
pub(crate) struct Feed<'c, 'h, K: HandlerKind> {
    pub(crate) core: &'c mut Core<'h, K>,
    /// After a failure with [`OnError::PassThrough`](crate::OnError::PassThrough): raw bytes only.
    pub(crate) pass_through: bool,
    pub(crate) flush: &'c mut dyn FnMut(Staged<'_>) -> Result<(), RewritingError>,
    /// The chunk being fed, as far as it is valid UTF-8, when document text
    /// handlers read its text ([`Core::reads_chunk_text`]).
    pub(crate) valid: Option<&'c ValidChunk<'c>>,
    /// The bytes being fed, which hold the run of unchanged tokens
    /// ([`Core::run_start`]); [`Feed::end_input`] stages the run before they go.
    pub(crate) input: Input<'c>,
}

/// The bytes the tokenizer is given in the current call (a chunk of the
/// input, or of parsed content) and the offset of the first: tokens that
/// lie in them and go out unchanged are written from here a run at a time
/// ([`Core::run_start`]). Empty where the tokens come from the tokenizer's
/// own buffer (the end of input).
#[derive(Clone, Copy, Default)]
pub(crate) struct Input<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) base: u64,
}

impl<'a> Input<'a> {
    /// Whether `span` lies in these bytes.
    #[inline(always)]
    fn holds(&self, span: Span) -> bool {
        span.start >= self.base && span.end - self.base <= self.bytes.len() as u64
    }

    /// The bytes at input offsets `start..end`, which lie in these bytes.
    fn at(&self, start: u64, end: u64) -> &'a [u8] {
        self.bytes
            .get((start - self.base) as usize..(end - self.base) as usize)
            .expect("a run lies in the bytes it was read from (written out before they go)")
    }
}

/// The longest valid UTF-8 start of an input chunk, checked once for all of
/// its text tokens (issue 16: checked per token, the text handler workload
/// spent 2.4 M instructions in `str::from_utf8` on 26,079 short texts of
/// the three lol-html bench pages).
#[derive(Clone, Copy)]
pub(crate) struct ValidChunk<'a> {
    text: &'a str,
    /// The input offset of the chunk's first byte.
    base: u64,
}

impl<'a> ValidChunk<'a> {
    /// The valid start of the bytes of `input`.
    pub(crate) fn new(input: Input<'a>) -> ValidChunk<'a> {
        let Input { bytes: chunk, base } = input;
        // `simdutf8`'s `compat` check: `std::str::from_utf8`'s answer, SIMD
        // where the target has it.
        let text = match simdutf8::compat::from_utf8(chunk) {
            Ok(text) => text,
            // A character cut at the chunk's end (or invalid bytes): the start before it.
            Err(e) => simdutf8::compat::from_utf8(&chunk[..e.valid_up_to()]).unwrap_or_default(),
        };
        ValidChunk { text, base }
    }

    /// The bytes of the input at `span` as `str`, when they lie in the valid
    /// start of the chunk (a token that began in an earlier chunk does not).
    /// The tokenizer is lossless: a token's bytes are the input's at its span.
    #[inline]
    fn at(&self, span: Span) -> Option<&'a str> {
        let from = span.start.checked_sub(self.base)?;
        self.text.get(from as usize..(span.end - self.base) as usize)
    }
}

impl<K: HandlerKind> TokenSink for Feed<'_, '_, K> {
    /// The token's work in [`Core::token`]; the halted core's and the
    /// failure's out of line, so that the common path saves few registers.
    fn token(&mut self, t: &Token<'_>) -> Feedback {
        if self.core.halted {
            self.token_halted(t);
            return Feedback::default();
        }
        debug_assert!(!self.core.halted && self.core.error.is_none() && !self.core.settled, "halted with them");
        let fb = self.core.token(t, self.valid, self.input);
        self.after_token(t);
        fb
    }

    /// A data-state text token, a tag or a comment, when [`Core::quick_tokens`]
    /// holds: text that [`Core::token`] would take on its inert text path
    /// ([`Core::takes_inert_text`]) — that path and what [`Feed::token`]
    /// does after it, in line in the tokenizer's scan: no call and no
    /// dispatch on the token's kind —, an end tag
    /// or a start tag that the shadow's in-body fast path takes
    /// (names outside the table included: [`Feed::quick_end_tag`],
    /// [`Feed::quick_start_tag`]), or a comment
    /// that changes nothing in the tree and that no handler sees
    /// ([`Core::takes_inert_comment`]).
    /// Anything else goes to [`Feed::token`].
    #[inline(always)]
    fn quick_token(&mut self, t: &Token<'_>) -> bool {
        #[cfg(test)]
        if !tests::QUICK_TOKENS.get().0 {
            return false;
        }
        if !self.core.quick_tokens || self.core.halted {
            return false;
        }
        debug_assert_eq!(
            self.core.quick_tokens,
            !self.core.unobserved && self.core.events.matcher.is_some() && !self.core.content_handlers,
            "the flag is what it stands for"
        );
        match t.kind() {
            TokenKind::EndTag => self.quick_end_tag(t),
            TokenKind::StartTag => self.quick_start_tag(t),
            TokenKind::Comment(_) => self.quick_comment(t),
            _ => {
                // The observed document with a matcher and no content
                // handler (`Core::quick_tokens`): the branches before the
                // inert text path in `Core::token` lead to it.
                if !self.core.takes_inert_text(t) {
                    return false;
                }
                self.core.inert_token(t, self.input);
                self.quick_taken(t)
            }
        }
    }

    /// Parsed content asked for at this tag: the parse reads it next.
    #[inline(always)]
    fn pause(&mut self) -> bool {
        !self.core.parse_inserts.is_empty()
    }

    /// The tree's answer, at the `<![CDATA[` the tokenizer has just read.
    fn cdata_allowed(&mut self) -> bool {
        self.core.shadow.cdata_allowed()
    }
}

impl<K: HandlerKind> Feed<'_, '_, K> {
    /// A start tag that [`Feed::token`] would take to [`Core::tag_token`]
    /// and the shadow to its in-body fast path ([`Core::quick_start_tag`]),
    /// or, for a name outside the table of known names, to its path of "any
    /// other start tag" ([`Feed::quick_start_unlisted`]): that work and what
    /// [`Feed::token`] does after it, out of line as [`Feed::quick_end_tag`]
    /// is.
    #[inline(never)]
    fn quick_start_tag(&mut self, t: &Token<'_>) -> bool {
        if self.core.quick_start_tag(t, self.input).is_some() {
            return self.quick_taken(t);
        }
        match self.core.shadow.fast_start_unlisted(t) {
            Some(start) => self.quick_start_unlisted(t, start),
            None => false,
        }
    }

    /// [`Feed::quick_start_tag`] for a start tag whose name is outside the
    /// table of known names ([`Core::quick_start_unlisted`]). Out of line,
    /// apart from the known names' path, which keeps its code (a test in
    /// that path for these names cost the corpus's other pages 0.3 %), and
    /// after the decision (the start tags it refuses do not pay for this
    /// function's registers).
    #[inline(never)]
    fn quick_start_unlisted(&mut self, t: &Token<'_>, start: FastStart) -> bool {
        self.core.quick_start_unlisted(t, start, self.input);
        self.quick_taken(t)
    }

    /// An end tag that [`Feed::token`] would take to [`Core::tag_token`]
    /// and the shadow to its in-body fast path ([`Core::quick_end_tag`]):
    /// that work and what [`Feed::token`] does after it. Out of line (the
    /// tokenizer's scan keeps the test before it), without
    /// [`Feed::token`]'s dispatch on the token's kind and the shadow's.
    #[inline(never)]
    fn quick_end_tag(&mut self, t: &Token<'_>) -> bool {
        self.core.quick_end_tag(t, self.input).is_some() && self.quick_taken(t)
    }

    /// A comment that [`Core::takes_inert_comment`] lets through: its bytes
    /// as [`Core::inert_token`] writes them and what [`Feed::token`]
    /// does after it. Out of line: comments are few, and the tokenizer's
    /// scan, which this would be inlined into, runs faster without it
    /// (ten selectors 29.788 → 29.650 instructions a byte in line → out of
    /// line, callgrind, the three lol-html bench pages).
    #[inline(never)]
    fn quick_comment(&mut self, t: &Token<'_>) -> bool {
        if !self.core.takes_inert_comment(t) {
            return false;
        }
        self.core.inert_token(t, self.input);
        self.quick_taken(t)
    }

    /// After the core took token `t` for [`Feed::quick_token`]: what
    /// [`Feed::token`] does after the core's work ([`Feed::after_token`]);
    /// `true`, the token taken (counted in unit tests).
    #[inline(always)]
    fn quick_taken(&mut self, t: &Token<'_>) -> bool {
        self.after_token(t);
        #[cfg(test)]
        tests::QUICK_TOKENS.set((true, tests::QUICK_TOKENS.get().1 + 1));
        true
    }

    /// What [`Feed::token`] does after the core's work on token `t`: a
    /// settled document checked for, a failure's bytes with pass-through,
    /// the staged output handed over when full.
    #[inline(always)]
    fn after_token(&mut self, t: &Token<'_>) {
        if self.core.may_settle() {
            self.core.try_settle();
        }
        debug_assert_eq!(self.core.halted, self.core.error.is_some() || self.core.settled, "halted with them");
        if self.core.halted && self.pass_through && self.core.error.is_some() {
            self.token_failed(t);
        }
        // `flush_at` is 0 while the token's direct bytes or parsed content
        // wait. The run counts as staged: a run of [`FLUSH_AT`] bytes is handed
        // over, so that the staged output a later writer copies it to stays
        // as small as without runs.
        if self.core.out.len() + self.core.run_len() >= self.core.flush_at {
            self.flush_full(t);
        }
    }

    /// After the tokenizer has read what it takes of the input: the run of
    /// unchanged tokens written ([`Feed::write_run`]) before the input goes.
    pub(crate) fn end_input(&mut self) {
        self.write_run();
    }

    /// The staged output and then the run of unchanged tokens
    /// ([`Core::run_start`]) handed to the sink, the run from the input as
    /// it is (no copy). After a failure, or with slot marks staged, the run
    /// is staged instead, as a token's direct bytes are
    /// ([`Feed::write_direct`]).
    fn write_run(&mut self) {
        if self.core.run_is_empty() {
            return;
        }
        if self.core.error.is_some() || !self.core.slot_log.is_empty() {
            return self.core.stage_run(self.input);
        }
        let run = self.input.at(self.core.run_start, self.core.run_end);
        self.core.run_start = self.core.run_end;
        if let Err(e) = (self.flush)(self.core.staged_then(run)) {
            self.core.fail(e);
        }
    }

    /// A token after the core halted: with pass-through or once settled,
    /// its bytes as they are.
    #[inline(always)]
    fn token_halted(&mut self, t: &Token<'_>) {
        self.core.stage_run(self.input);
        if self.pass_through || self.core.settled {
            if t.raw().len() >= FLUSH_AT && self.core.slot_log.is_empty() {
                // A long token is handed over from where it is (see `Core::direct`).
                if let Err(e) = (self.flush)(self.core.staged_then(t.raw())) {
                    self.core.fail(e);
                }
            } else {
                self.core.out.extend_from_slice(t.raw());
            }
            self.flush_if_full();
        }
    }

    /// The token that failed, with pass-through: its own bytes (and a text
    /// node held with it) pass through.
    #[inline(never)]
    fn token_failed(&mut self, t: &Token<'_>) {
        self.core.stage_run(self.input);
        self.core.stage_direct(t.raw());
        let unwritten = self.core.take_unwritten();
        if !unwritten.is_empty() {
            self.core.out.extend_from_slice(&unwritten);
        } else if !self.core.token_done {
            self.core.out.extend_from_slice(t.raw());
        }
        self.core.token_done = true;
    }

    /// After token `t`: its direct bytes, if any ([`Core::direct`]), then
    /// the staged output once [`FLUSH_AT`] bytes are staged. Parsed content
    /// asked for in a token that failed is dropped (the rest passes
    /// through, or nothing does).
    #[inline(never)]
    fn flush_full(&mut self, t: &Token<'_>) {
        self.write_run();
        if self.core.direct.is_some() {
            self.write_direct(t);
        }
        if self.core.error.is_some() {
            self.core.parse_inserts.clear();
        }
        self.core.flush_at = FLUSH_AT;
        if std::mem::take(&mut self.core.flush_next) && !self.core.out.is_empty() {
            self.flush();
        } else {
            self.flush_if_full();
        }
    }

    /// Hands the staged output to the sink once [`FLUSH_AT`] bytes are staged.
    #[inline(always)]
    fn flush_if_full(&mut self) {
        if self.core.out.len() >= FLUSH_AT {
            self.flush();
        }
    }

    /// Hands the staged output and then the direct bytes of token `t`
    /// ([`Core::direct`], the token's last output) to the sink; after a
    /// failure, or with slot marks staged, the direct bytes are staged
    /// instead (what the rewriter does then reads the staged output).
    #[cold]
    #[inline(never)]
    fn write_direct(&mut self, t: &Token<'_>) {
        if self.core.error.is_some() || !self.core.slot_log.is_empty() {
            return self.core.stage_direct(t.raw());
        }
        let Some(Direct { at, range, .. }) = self.core.direct.take() else { return };
        debug_assert_eq!(at, self.core.out.len(), "nothing is staged after a token's direct bytes");
        if let Err(e) = (self.flush)(self.core.staged_then(&t.raw()[range])) {
            self.core.fail(e);
        }
    }

    /// Hands the staged output (and its slot log) to the sink. Out of line:
    /// inlined into every token's path, building the staged view cost 0.5 %
    /// on the `cdn` workload (callgrind, the three lol-html bench pages),
    /// where the tokens after the head are copied one by one to the chunk's end.
    #[inline(never)]
    fn flush(&mut self) {
        if let Err(e) = (self.flush)(self.core.staged()) {
            self.core.fail(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// Whether [`Feed::quick_token`] may take tokens, and how many it
        /// took (`quick_token_is_token`).
        pub(super) static QUICK_TOKENS: std::cell::Cell<(bool, usize)> = const { std::cell::Cell::new((true, 0)) };
    }

    /// `html` rewritten in pieces of `chunk` bytes with rule set `rules`,
    /// [`Feed::quick_token`] on or off: the output, what the handlers saw,
    /// and how many text tokens the quick path took.
    fn quick_run(html: &[u8], chunk: usize, rules: &str, quick: bool) -> (Vec<u8>, Vec<String>, usize) {
        use crate::{ContentType, Rewriter, Settings};
        let log = std::cell::RefCell::new(Vec::new());
        let note = |s: String| log.borrow_mut().push(s);
        let mut settings = Settings::new();
        match rules {
            "ten selectors" => {
                for sel in ["a", "div", "p", "span", "img", "li", "script", "meta", "link[rel]", "ul > li"] {
                    settings = settings.element(sel, move |e| {
                        note(format!("{sel} {} {:?}", e.tag_name(), e.attributes()));
                        Ok(())
                    });
                }
            }
            "edits" => {
                settings = settings
                    .element("a[href]", |e| {
                        let href = e.get_attribute("href").unwrap_or_default();
                        Ok(e.set_attribute("href", &href.replace("http:", "https:"))?)
                    })
                    .element("head", |e| Ok(e.append("<script src=x></script>", ContentType::Html)?))
                    .element("span", |e| {
                        e.remove();
                        Ok(())
                    })
                    .element("em", |e| {
                        e.remove_and_keep_content();
                        Ok(())
                    })
                    .element("b", |e| Ok(e.set_inner_content("<i>b</i>", ContentType::Html)?))
                    .element("td", |e| Ok(e.before("!", ContentType::Text)?))
                    .element("li", |e| Ok(e.after("<!--li-->", ContentType::Html)?));
            }
            "end handlers" => {
                settings = settings
                    .element("p, div, table", |e| {
                        e.on_end(|end| Ok(end.after("|", ContentType::Text)?));
                        Ok(())
                    })
                    .element_end("li", |end| Ok(end.before("-", ContentType::Text)?));
            }
            "lines" => {
                settings = settings.track_lines(true).element("*", |e| {
                    note(format!("{} {:?}", e.tag_name(), e.source_location()));
                    Ok(())
                });
            }
            "text handler" => {
                settings = settings.element("a", |_| Ok(())).text("p", |t| {
                    note(format!("text {:?}", t.as_str()));
                    Ok(())
                });
            }
            "document comments" => {
                settings = settings.element("a", |_| Ok(())).doc_comments(|c| {
                    note(format!("document comment {:?}", c.text()));
                    Ok(())
                });
            }
            "comment handler" => {
                settings = settings.element("a", |_| Ok(())).comments("body", |c| {
                    note(format!("comment {:?}", c.text()));
                    Ok(())
                });
            }
            _ => unreachable!("{rules}"),
        }
        QUICK_TOKENS.set((quick, 0));
        let mut out = Vec::new();
        let result = (|| {
            let mut rw = Rewriter::new(settings, |c: &[u8]| out.extend_from_slice(c))?;
            for piece in html.chunks(chunk.max(1)) {
                rw.write(piece)?;
            }
            rw.end().map(|_| ())
        })();
        let taken = QUICK_TOKENS.get().1;
        QUICK_TOKENS.set((true, 0));
        let mut seen = log.into_inner();
        if let Err(e) = result {
            seen.push(format!("error {e}"));
        }
        (out, seen, taken)
    }

    /// [`Feed::quick_token`] takes a token only where [`Feed::token`] would
    /// have taken it the same way — text on the inert text path, a tag to
    /// [`Core::tag_token`] with the shadow's in-body fast path — and does
    /// what that path does: in `<body><p>x</p><i>y</i>` it takes all but
    /// `<body>` (a rule of its own), and a comment between them unless a
    /// document-wide comment handler exists; elements of names outside the
    /// table of known names (`<my-el>`) too. The documents of
    /// [`quick_documents`] are in the tests `quick_token_is_token_with_*`,
    /// one a rule set ([`quick_agrees`]).
    #[test]
    fn quick_token_is_token() {
        assert_eq!(quick_run(b"<body><p>x</p><i>y</i>", 1024, "ten selectors", true).2, 6);
        // A comment too, unless a document-wide handler sees comments.
        assert_eq!(quick_run(b"<body><p>x</p><!--c--><i>y</i>", 1024, "ten selectors", true).2, 7);
        assert_eq!(quick_run(b"<body><p>x</p><!--c--><i>y</i>", 1024, "document comments", true).2, 6);
        // Names outside the table of known names, short and long.
        assert_eq!(quick_run(b"<body><my-el>x</my-el><emu-clause>y</emu-clause>", 1024, "ten selectors", true).2, 6);
    }

    /// A document of [`quick_documents`]: its name, its bytes and the chunk
    /// sizes it is fed in.
    type QuickDocument = (String, Vec<u8>, Vec<usize>);

    /// The documents [`quick_agrees`] rewrites, with the chunk sizes of
    /// each: every `#data` case of the vendored html5lib tree-construction
    /// suite (split at every byte) and every vendored corpus page (whole,
    /// in 1 KiB and in 61-byte pieces); and the pages' names.
    fn quick_documents() -> &'static (Vec<QuickDocument>, Vec<String>) {
        static DOCUMENTS: std::sync::OnceLock<(Vec<QuickDocument>, Vec<String>)> = std::sync::OnceLock::new();
        DOCUMENTS.get_or_init(read_quick_documents)
    }

    /// [`quick_documents`], read once.
    fn read_quick_documents() -> (Vec<QuickDocument>, Vec<String>) {
        let mut docs: Vec<QuickDocument> = htrewrite_testkit::html5lib::tree_construction_data()
            .into_iter()
            .map(|(name, data)| {
                let chunks = (1..=data.len().max(1)).collect();
                (name, data, chunks)
            })
            .collect();
        assert!(docs.len() > 1000, "html5lib cases read: {}", docs.len());
        let pages = htrewrite_testkit::corpus::vendored_html_pages();
        assert!(!pages.is_empty());
        for (name, path) in &pages {
            let page = std::fs::read(path).unwrap();
            let len = page.len();
            docs.push((name.clone(), page, vec![len, 1024, 61]));
        }
        (docs, pages.into_iter().map(|(name, _)| name).collect())
    }

    /// The documents of [`quick_documents`] rewritten with rule set `rules`
    /// give the same output and the same handler observations with the
    /// quick path on and off. The quick path takes nothing where content
    /// handlers exist, and takes tokens in every page with the other rule
    /// sets (the test exercises it).
    fn quick_agrees(rules: &str) {
        let (docs, pages) = quick_documents();
        let content_handlers = rules.ends_with("handler");
        for (name, html, chunks) in docs {
            let mut taken = 0;
            for &chunk in chunks {
                let (out, seen, n) = quick_run(html, chunk, rules, true);
                let (out_full, seen_full, none) = quick_run(html, chunk, rules, false);
                assert_eq!(none, 0, "{name}: off");
                assert!(out == out_full, "{rules}, {name}, chunks of {chunk}: output differs");
                assert_eq!(seen, seen_full, "{rules}, {name}, chunks of {chunk}");
                if content_handlers {
                    assert_eq!(n, 0, "{rules}, {name}: quick tokens with content handlers");
                }
                taken += n;
            }
            if !content_handlers && pages.contains(name) {
                assert!(taken > 0, "{rules}, {name}: no quick token taken");
            }
        }
    }

    /// One test a rule set of `quick_run` (the harness runs them side by
    /// side: together in one test they took 28 s of one core).
    macro_rules! quick_agrees_tests {
        ($($test:ident: $rules:literal,)*) => {
            $(
                #[test]
                fn $test() {
                    quick_agrees($rules);
                }
            )*
        };
    }

    quick_agrees_tests! {
        quick_token_is_token_with_ten_selectors: "ten selectors",
        quick_token_is_token_with_edits: "edits",
        quick_token_is_token_with_end_handlers: "end handlers",
        quick_token_is_token_with_lines: "lines",
        quick_token_is_token_with_document_comments: "document comments",
        quick_token_is_token_with_text_handler: "text handler",
        quick_token_is_token_with_comment_handler: "comment handler",
    }

    /// An attribute change together with each other edit: only the change
    /// alone takes `Core::element_edited`'s short path (an edit it let
    /// through would be lost, or the end tag left unrenamed).
    #[test]
    fn attribute_change_with_every_other_edit() {
        use crate::{ContentType, Element, HandlerResult, Settings, rewrite_str};
        type Edit = fn(&mut Element<'_, '_>) -> HandlerResult;
        let cases: [(&str, Edit, &str); 11] = [
            ("alone", |_| Ok(()), "<body><div a=c>x</div>y"),
            ("rename", |e| Ok(e.set_tag_name("p")?), "<body><p a=c>x</p>y"),
            (
                "end handler",
                |e| {
                    e.on_end(|end| Ok(end.after("!", ContentType::Text)?));
                    Ok(())
                },
                "<body><div a=c>x</div>!y",
            ),
            ("append", |e| Ok(e.append("!", ContentType::Text)?), "<body><div a=c>x!</div>y"),
            ("after", |e| Ok(e.after("!", ContentType::Text)?), "<body><div a=c>x</div>!y"),
            ("prepend", |e| Ok(e.prepend("!", ContentType::Text)?), "<body><div a=c>!x</div>y"),
            ("before", |e| Ok(e.before("!", ContentType::Text)?), "<body>!<div a=c>x</div>y"),
            ("inner content", |e| Ok(e.set_inner_content("!", ContentType::Text)?), "<body><div a=c>!</div>y"),
            ("replace", |e| Ok(e.replace("!", ContentType::Text)?), "<body>!y"),
            (
                "remove",
                |e| {
                    e.remove();
                    Ok(())
                },
                "<body>y",
            ),
            (
                "remove, keep content",
                |e| {
                    e.remove_and_keep_content();
                    Ok(())
                },
                "<body>xy",
            ),
        ];
        for (name, edit, expected) in cases {
            let settings = Settings::new().element("div", move |e| {
                e.set_attribute("a", "c")?;
                edit(e)
            });
            assert_eq!(rewrite_str("<body><div a=b>x</div>y", settings).unwrap(), expected, "{name}");
        }
    }

    #[test]
    fn tail_keeps_the_last_bytes_of_all_output() {
        let mut all = Vec::new();
        let mut tail = Tail::default();
        for (i, n) in [0, 3, 1, 39, 40, 41, 7, 100, 2].into_iter().enumerate() {
            let piece: Vec<u8> = (0..n).map(|k| b'a' + ((i + k) % 26) as u8).collect();
            all.extend_from_slice(&piece);
            tail = tail.then(&piece);
            assert_eq!(tail.get(), &all[all.len().saturating_sub(JOIN_TAIL)..], "after {n} more bytes");
        }
    }

    #[test]
    fn context_owned_round_trips() {
        assert_eq!(ContextOwned::of(TextMode::Rawtext, "style").get(), Context::Rawtext("style"));
        assert_eq!(ContextOwned::of(TextMode::Data, "").get(), Context::Data);
    }
}
