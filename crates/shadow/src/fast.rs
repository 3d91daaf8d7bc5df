//! The common case of the ["in body" insertion mode](https://html.spec.whatwg.org/multipage/parsing.html#parsing-main-inbody),
//! taken before the [tree construction dispatcher](https://html.spec.whatwg.org/multipage/parsing.html#tree-construction-dispatcher)
//! (issue 16).
//!
//! Most tags of a page are processed "in body" with the current node an
//! HTML element, and most of those by one of a few short rules of the
//! Standard:
//! - a start tag of "any other" name: reconstruct the active formatting
//!   elements, insert an HTML element;
//! - a start tag `address`, `article`, …, `div`, …, `ul`: close a `p`
//!   element in button scope, insert an HTML element;
//! - a start tag `b`, `big`, `code`, `em`, `font`, `i`, `s`, `small`,
//!   `strike`, `strong`, `tt`, `u`: reconstruct, insert, push onto the list
//!   of active formatting elements;
//! - a start tag `a` while the list of active formatting elements has no
//!   `a` after its last marker: as the formatting elements;
//! - a start tag `li`, `dd` or `dt`: their rule, called as is
//!   ([`Builder::in_body_list_item_start`]);
//! - a start tag `h1` … `h6`: close a `p` element in button scope, pop a
//!   heading that is the current node, insert an HTML element;
//! - a start tag `area`, `br`, `embed`, `img`, `keygen`, `wbr`:
//!   reconstruct, insert a void HTML element, frameset-ok "not ok";
//! - an end tag whose name is the current node's, an HTML element whose
//!   in-body end-tag rule then pops just it (`</div>`, `</p>`, `</li>`,
//!   `</span>`: every name but those below);
//! - an end tag of a formatting element (`</b>`, `</a>`, …) whose element
//!   is the current node and the last entry of the list of active
//!   formatting elements: the adoption agency algorithm then pops it and
//!   removes it from the list (it is the formatting element of step 4.3,
//!   open and in scope, with no furthest block above it: step 4.8).
//!
//! The same holds "in cell" for every tag without a rule of its own there
//! (the mode's "anything else" processes it by the rules of "in body"):
//! `<code>`, `<a>`, `</span>` inside a `td`.
//!
//! [`Builder::in_body_fast_start`] and [`Builder::in_body_fast_end`] take
//! exactly these, calling the same steps as the full rules
//! (`body.rs`), and skip the dispatcher, the insertion mode's `match` and
//! the full rules' match on the tag name. Everything else goes the full way.
//!
//! Proof that they agree: after [`check_fast_path`]`(true)` (this crate's
//! tests call it), every token the fast path takes is also run through the
//! full rules on a copy of the builder, and the events and the state must
//! be equal, else it panics; the html5lib suites, the exhaustive documents,
//! the round trips and `tests/suite/fast_path.rs` (every known HTML name in
//! several contexts, and the cases that must not take it) run so. Off, the
//! check costs one relaxed atomic load per token taken.
//!
//! Text has a common case of its own, taken by
//! [`Shadow::skip_inert_text`](crate::Shadow::skip_inert_text): for a sink
//! without text events, characters that "in body" (frameset-ok already "not
//! ok", nothing to reconstruct, no U+0000) or "text" would only insert
//! change nothing and make no event. The same check runs the full rules
//! beside it (`inert_text_taken` counts it; `tests/suite/fast_path.rs`'s
//! `inert_text::` cases, and the html5lib tree tests' run without text
//! events).

use crate::builder::Builder;
use crate::mode::InsertionMode;
use crate::names;
use crate::table;
use crate::tags::cat;
use crate::token::{TagToken, Tok};
use crate::{CloseCause, EventSink, Namespace, OpenElement};

/// The start tag is "any other start tag".
const ANY_OTHER: u16 = 1;
/// The start tag closes a `p` element in button scope first.
const CLOSES_P: u16 = 2;
/// The start tag makes a formatting element (not `a` or `nobr`).
const FORMATTING: u16 = 4;
/// The end tag, when the current node is the HTML element of its name, pops it.
const END_POPS_CURRENT: u16 = 8;
/// The start tag `a`.
const A_START: u16 = 16;
/// The end tag runs the adoption agency algorithm.
const ADOPTION_AGENCY_END: u16 = 32;
/// The start tag `li`, `dd` or `dt`: [`Builder::in_body_list_item_start`].
const LIST_ITEM: u16 = 64;
/// The tag has a rule of its own "in cell" (start or end tag): in that
/// mode, not taken.
const CELL_OWN: u16 = 128;
/// The start tag `h1` … `h6`: close a `p` element in button scope, pop a
/// heading that is the current node, insert an HTML element.
const HEADING: u16 = 256;
/// The start tag `area`, `br`, `embed`, `img`, `keygen` or `wbr`:
/// reconstruct, insert a void element (popped at once, its self-closing
/// flag acknowledged), set frameset-ok to "not ok".
const VOID: u16 = 512;
/// A table mode's common start tag ([`Builder::table_fast_start_flags`]):
/// "in row" a `td` or `th` whose row is the current node, "in table body" a
/// `tr` whose section is: insert the cell (then "in cell", a marker) or the
/// row (then "in row"). Never with the in-body flags.
const TABLE_START: u16 = 1024;
/// With [`TABLE_START`], "in cell" a `td`, `th` or `tr` whose cell is the
/// current node: the cell is closed first (and for `tr` its row), after
/// which the tag is the row's (or the section's) common one.
const CLOSES_CELL: u16 = 2048;
/// The start tag `base`, `basefont`, `bgsound`, `link` or `meta`, which
/// "in head" inserts as a void element (popped at once, its self-closing
/// flag acknowledged) and nothing else, and so "in head noscript" (all
/// but `base`): [`Builder::head_fast_start_flags`], whose answer is
/// [`PLAIN_VOID`]'s work ("in body" takes them as [`PLAIN_VOID`]).
const HEAD_VOID: u16 = 4096;
/// The start tag `param`, `source` or `track` (or one of [`HEAD_VOID`]'s,
/// by the rules of "in head"), which "in body" inserts as a void element
/// and nothing else.
const PLAIN_VOID: u16 = 16384;
/// The start tag `hr`, `input`, `pre` or `listing`, whose rule in body the
/// fast path takes when [`Builder::own_rule_taken`] says it is the common
/// case ([`Builder::own_rule_start`]).
const OWN_RULE: u16 = 32768;

/// The end tag's rule in body is [`BLOCK_END_NAMES`]'s: if an element of
/// its name is in scope, generate implied end tags, then pop until it has
/// been popped ([`Builder::block_end_after_implied`]).
const BLOCK_END: u16 = 8192;

/// "An end tag whose tag name is one of: address, article, …" in body
/// (`body.rs`'s end-tag rule of the same names; the fast path's check
/// compares every name's end tag with it after an `li`,
/// `tests/suite/fast_path.rs`'s context `implied_end_below`).
const BLOCK_END_NAMES: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "button",
    "center",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "header",
    "hgroup",
    "listing",
    "main",
    "menu",
    "nav",
    "ol",
    "pre",
    "search",
    "section",
    "select",
    "summary",
    "ul",
];

/// Start tags with a rule of their own in body (besides those of
/// [`CLOSES_P_NAMES`] and [`FORMATTING_NAMES`]): not taken. `noscript`
/// depends on the scripting flag.
const SPECIAL_START: &[&str] = &[
    "html",
    "base",
    "basefont",
    "bgsound",
    "link",
    "meta",
    "noframes",
    "script",
    "style",
    "template",
    "title",
    "body",
    "frameset",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "pre",
    "listing",
    "form",
    "li",
    "dd",
    "dt",
    "plaintext",
    "button",
    "a",
    "nobr",
    "applet",
    "marquee",
    "object",
    "table",
    "area",
    "br",
    "embed",
    "img",
    "keygen",
    "wbr",
    "input",
    "param",
    "source",
    "track",
    "hr",
    "image",
    "textarea",
    "xmp",
    "iframe",
    "noembed",
    "noscript",
    "select",
    "option",
    "optgroup",
    "rb",
    "rtc",
    "rp",
    "rt",
    "math",
    "svg",
    "caption",
    "col",
    "colgroup",
    "frame",
    "head",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "tr",
];

/// "A start tag whose tag name is one of: address, article, …": close a `p`
/// element in button scope, insert an HTML element.
const CLOSES_P_NAMES: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "center",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "header",
    "hgroup",
    "main",
    "menu",
    "nav",
    "ol",
    "p",
    "search",
    "section",
    "summary",
    "ul",
];

/// "A start tag whose tag name is one of: b, big, …": reconstruct, insert,
/// push onto the list of active formatting elements.
const FORMATTING_NAMES: &[&str] = &["b", "big", "code", "em", "font", "i", "s", "small", "strike", "strong", "tt", "u"];

/// End tags whose rule in body does more than pop the current node when it
/// is the element of that name: `template` (the template steps), `body` and
/// `html` (they change the mode and pop nothing), `form` (the form element
/// pointer), the formatting elements (the adoption agency also removes the
/// element from the list of active formatting elements), `applet`,
/// `marquee`, `object` (they clear the list to the last marker), `br` (it
/// inserts a `br`).
const SPECIAL_END: &[&str] = &[
    "template", "body", "html", "form", "a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike",
    "strong", "tt", "u", "applet", "marquee", "object", "br",
];

/// The flags of each known HTML name (`names::html`), made at compile time.
const FLAGS: [u16; names::COUNT] = {
    let mut t = [0u16; names::COUNT];
    let mut i = 0;
    while i < names::COUNT {
        // Names of other namespaces never match: the look-up is in HTML's.
        t[i] = ANY_OTHER | END_POPS_CURRENT;
        i += 1;
    }
    set(&mut t, SPECIAL_START, 0, ANY_OTHER);
    set(&mut t, CLOSES_P_NAMES, CLOSES_P, ANY_OTHER);
    set(&mut t, FORMATTING_NAMES, FORMATTING, ANY_OTHER);
    set(&mut t, SPECIAL_END, 0, END_POPS_CURRENT);
    set(&mut t, &["a"], A_START, 0);
    set(&mut t, FORMATTING_NAMES, ADOPTION_AGENCY_END, 0);
    set(&mut t, &["a", "nobr"], ADOPTION_AGENCY_END, 0);
    set(&mut t, &["li", "dd", "dt"], LIST_ITEM, 0);
    set(&mut t, crate::body::HEADINGS, HEADING, 0);
    set(&mut t, &["area", "br", "embed", "img", "keygen", "wbr"], VOID, 0);
    set(&mut t, &["base", "basefont", "bgsound", "link", "meta"], HEAD_VOID, 0);
    set(&mut t, BLOCK_END_NAMES, BLOCK_END, 0);
    set(&mut t, &["base", "basefont", "bgsound", "link", "meta", "param", "source", "track"], PLAIN_VOID, 0);
    set(&mut t, &["hr", "input", "pre", "listing"], OWN_RULE, 0);
    set(&mut t, table::CELL_NAMES, CELL_OWN, 0);
    set(&mut t, table::IN_CELL_CLOSING_START, CELL_OWN, 0);
    set(&mut t, table::IN_CELL_IGNORED_END, CELL_OWN, 0);
    set(&mut t, table::IN_CELL_CLOSING_END, CELL_OWN, 0);
    t
};

/// Sets `on` and clears `off` for each of `list` in `t`.
const fn set(t: &mut [u16; names::COUNT], list: &[&str], on: u16, off: u16) {
    let mut i = 0;
    while i < list.len() {
        let id = names::html(list[i]) as usize;
        t[id] = (t[id] & !off) | on;
        i += 1;
    }
}

/// The flags of the HTML element name whose id is `known` (`names::known`):
/// a name outside the table has no rule of its own.
#[inline(always)]
fn flags(known: Option<u32>) -> u16 {
    match known {
        Some(id) => FLAGS[id as usize],
        None => ANY_OTHER | END_POPS_CURRENT,
    }
}

impl Builder {
    /// Whether the dispatcher would process a tag of flags `f` by the rules
    /// of "in body": the adjusted current node is an HTML element and the
    /// mode is "in body", or "in cell" and the tag has no rule of its own
    /// there ("anything else": "process the token using the rules for the
    /// "in body" insertion mode").
    #[inline(always)]
    fn dispatches_to_in_body(&self, f: u16) -> bool {
        (self.mode == InsertionMode::InBody || self.mode == InsertionMode::InCell && f & CELL_OWN == 0)
            && self.by_current_mode()
            && self.stack.current().is_some_and(|e| e.ns == Namespace::Html)
    }

    /// Processes start tag `t` if it is one of the common case's; returns
    /// whether it did (else the caller dispatches it). `known` is its name's
    /// HTML element id (`names::known(Namespace::Html, name)`); the path
    /// reads the name only through it: `t.name` may be left empty (for a
    /// short known name, [`Builder::run_start`]).
    #[inline(always)]
    pub(crate) fn in_body_fast_start<S: EventSink + ?Sized>(
        &mut self,
        t: &TagToken,
        known: Option<u32>,
        s: &mut S,
    ) -> bool {
        debug_assert!(t.name.is_empty() || known == names::known(Namespace::Html, &t.name), "{:?}'s id", t.name);
        let Some(f) = self.in_body_fast_start_flags(known) else { return false };
        self.take_in_body_fast_start(t, f, known, s);
        true
    }

    /// [`Builder::in_body_fast_start`]'s decision for a start tag whose
    /// name's HTML element id is `known`: its flags when the path takes it.
    #[inline(always)]
    pub(crate) fn in_body_fast_start_flags(&self, known: Option<u32>) -> Option<u16> {
        let f = flags(known);
        if !self.dispatches_to_in_body(f)
            || f & (ANY_OTHER | CLOSES_P | FORMATTING | A_START | LIST_ITEM | HEADING | VOID | PLAIN_VOID | OWN_RULE)
                == 0
            || f & A_START != 0 && self.fmt.last_keyed_after_marker(const { names::html("a") }).is_some()
            || f & OWN_RULE != 0 && !self.own_rule_taken(known)
        {
            return None;
        }
        Some(f)
    }

    /// Whether the start tag of [`OWN_RULE`] whose known id is `known` is
    /// its rule's common case in body: `hr` and `input` with no `select`
    /// element open (else they close it, or generate implied end tags
    /// under it), `input` also in a document (not a `select` fragment) with
    /// frameset-ok already "not ok" (else its `type` decides the flag);
    /// `pre` and `listing` always.
    #[inline(never)]
    fn own_rule_taken(&self, known: Option<u32>) -> bool {
        match known {
            Some(Self::HR) => self.selects.is_empty(),
            Some(Self::INPUT) => self.selects.is_empty() && self.context.is_none() && !self.frameset_ok,
            _ => true,
        }
    }

    /// [`Builder::fast_start`] for a start tag of [`OWN_RULE`] that
    /// [`Builder::own_rule_taken`] lets through: `hr` closes a `p` in
    /// button scope, `input` reconstructs the active formatting elements,
    /// and both insert a void element; `pre` and `listing` close a `p`,
    /// insert their element and skip a newline that comes next; all set
    /// frameset-ok to "not ok".
    fn own_rule_start<S: EventSink + ?Sized>(&mut self, t: &TagToken, known: Option<u32>, s: &mut S) {
        match known {
            Some(Self::HR) => {
                self.close_p_if_in_button_scope(s);
                self.insert_void_html_element_known(s, t, known);
            }
            Some(Self::INPUT) => {
                self.reconstruct_active_formatting_elements(s);
                self.insert_void_html_element_known(s, t, known);
            }
            _ => {
                self.close_p_if_in_button_scope(s);
                self.insert_html_element_known(s, t, known);
                self.skip_newline = true;
            }
        }
        self.frameset_ok = false;
    }

    /// [`Builder::in_body_fast_start`]'s work once it took start tag `t`
    /// (flags `f`), checked against the full rules when
    /// [`check_fast_path`] is on.
    #[inline(always)]
    pub(crate) fn take_in_body_fast_start<S: EventSink + ?Sized>(
        &mut self,
        t: &TagToken,
        f: u16,
        known: Option<u32>,
        s: &mut S,
    ) {
        if check::enabled() {
            // The full rules read the name: they get a copy with it, the
            // fast path the tag as it came (perhaps without).
            let named = check::named(t, known);
            self.checked(Tok::Start(&named), s, |b, s: &mut dyn EventSink| b.fast_start(t, f, known, s))
        } else {
            self.fast_start(t, f, known, s)
        }
    }

    /// What [`Builder::in_body_fast_start`] does for start tag `t` (flags
    /// `f`, known name id `known`) once it took it.
    #[inline(always)]
    fn fast_start<S: EventSink + ?Sized>(&mut self, t: &TagToken, f: u16, known: Option<u32>, s: &mut S) {
        // As the dispatcher does for every token.
        self.skip_newline = false;
        if f & LIST_ITEM != 0 {
            return self.in_body_list_item_start(t, known.expect("list items are known"), s);
        }
        if f & (VOID | HEADING | TABLE_START | PLAIN_VOID | OWN_RULE) != 0 {
            return self.fast_start_void_heading_or_table(t, f, known, s);
        }
        if f & CLOSES_P != 0 {
            self.close_p_if_in_button_scope(s);
        } else {
            self.reconstruct_active_formatting_elements(s);
        }
        let id = self.insert_html_element_known(s, t, known);
        if f & (FORMATTING | A_START) != 0 {
            self.push_formatting(t, id);
        }
    }

    /// [`Builder::fast_start`] for the void elements, the headings and the
    /// table modes' common tags (out of line: fewer of them, and the common
    /// tags' path stays short).
    #[inline(never)]
    fn fast_start_void_heading_or_table<S: EventSink + ?Sized>(
        &mut self,
        t: &TagToken,
        f: u16,
        known: Option<u32>,
        s: &mut S,
    ) {
        if f & TABLE_START != 0 {
            return self.table_start(t, f, known, s);
        }
        if f & PLAIN_VOID != 0 {
            return self.insert_void_html_element_known(s, t, known);
        }
        if f & OWN_RULE != 0 {
            return self.own_rule_start(t, known, s);
        }
        if f & VOID != 0 {
            self.reconstruct_active_formatting_elements(s);
            self.insert_void_html_element_known(s, t, known);
            self.frameset_ok = false;
            return;
        }
        self.close_p_if_in_button_scope(s);
        // A heading on a heading: the current node is popped (a parse error).
        // Known ids say the namespace: only HTML headings have the flag.
        if self.stack.current().is_some_and(|e| flags(e.known()) & HEADING != 0) {
            let c = self.implied();
            self.pop(s, c);
        }
        self.insert_html_element_known(s, t, known);
    }

    /// Processes end tag `t` if it is the common case's; returns whether it
    /// did (else the caller dispatches it).
    #[inline]
    pub(crate) fn in_body_fast_end<S: EventSink + ?Sized>(&mut self, t: &TagToken, s: &mut S) -> bool {
        let Some(e) = self.stack.current().filter(|e| self.stack.name(e) == t.name) else { return false };
        let Some(adopted) = self.fast_end_decision(e) else { return false };
        self.take_fast_end(t, adopted, s);
        true
    }

    /// Whether the fast path takes an end tag named as the current node `e`
    /// (an HTML element: [`Builder::dispatches_to_in_body`] checks it), and
    /// if so whether the adoption agency pops it (`Some(true)`: it is the
    /// last formatting element).
    #[inline(always)]
    fn fast_end_decision(&self, e: &OpenElement) -> Option<bool> {
        // The current node's known id is its name's (it is an HTML element).
        let f = flags(e.known());
        if !self.dispatches_to_in_body(f) {
            return None;
        }
        let adopted = f & ADOPTION_AGENCY_END != 0;
        (f & END_POPS_CURRENT != 0 || adopted && self.fmt.last_element_id() == Some(e.id)).then_some(adopted)
    }

    /// [`Builder::in_body_fast_end`]'s decision for an end tag whose name is
    /// the known HTML name `key`, read from the tag's bytes
    /// ([`names::known_html_raw`]) before any name is built: the current
    /// node must be that HTML element (known ids differ across namespaces).
    #[inline]
    pub(crate) fn fast_end_by_key(&self, key: u32) -> Option<bool> {
        let e = self.stack.current()?;
        if e.key != key || e.ns != Namespace::Html {
            return None;
        }
        self.fast_end_decision(e)
    }

    /// [`Builder::fast_end_by_key`] for an end tag whose name's bytes `raw`
    /// give no short known id (a name outside the table, `emu-xref`, or
    /// longer than 8 bytes, `blockquote`): the current node must be the
    /// HTML element of that name, compared with the bytes ASCII-lowercased.
    /// A name whose bytes the tokenizer would change otherwise (NUL, invalid
    /// UTF-8: a U+FFFD in the name) never equals them, and goes the full way.
    #[inline]
    pub(crate) fn fast_end_by_raw_name(&self, raw: &[u8]) -> Option<bool> {
        let e = self.stack.current()?;
        let name = self.stack.name(e).as_bytes();
        if e.ns != Namespace::Html
            || name.len() != raw.len()
            || !raw.iter().zip(name).all(|(&r, &n)| r.to_ascii_lowercase() == n)
        {
            return None;
        }
        self.fast_end_decision(e)
    }

    /// A token of [`Builder::fast_end_by_key`]'s or [`Builder::fast_end_by_raw_name`]'s: `t` is the end tag (its
    /// span; its name is filled from `raw_name` only when the fast path is
    /// checked against the full rules, which read it).
    pub(crate) fn run_fast_end<S: EventSink + ?Sized>(
        &mut self,
        t: &mut TagToken,
        raw_name: &[u8],
        adopted: bool,
        s: &mut S,
    ) -> htrewrite_tokenizer::Feedback {
        if check::enabled() {
            t.name.clear();
            crate::shadow::push_name(&mut t.name, raw_name);
        }
        self.begin(t.span);
        self.take_fast_end(t, adopted, s);
        self.feedback(false)
    }

    /// Takes end tag `t` by the fast path (checked against the full rules
    /// when [`check_fast_path`] is on).
    #[inline(always)]
    fn take_fast_end<S: EventSink + ?Sized>(&mut self, t: &TagToken, adopted: bool, s: &mut S) {
        if check::enabled() {
            self.checked(Tok::End(t), s, |b, s: &mut dyn EventSink| b.fast_end(t, adopted, s))
        } else {
            self.fast_end(t, adopted, s)
        }
    }

    /// What [`Builder::in_body_fast_end`] does for end tag `t` once it took
    /// it (`adopted`: the current node is the last formatting element).
    #[inline(always)]
    fn fast_end<S: EventSink + ?Sized>(&mut self, t: &TagToken, adopted: bool, s: &mut S) {
        self.skip_newline = false;
        self.pop_inlined(s, CloseCause::EndTag { span: t.span });
        if adopted {
            self.fmt.kill_last();
        }
    }
}

/// The table modes' common tags, taken before the dispatcher like the
/// in-body ones (and checked against the full rules alike): "in row" a
/// `<td>` or `<th>` whose row is the current node, "in table body" a `<tr>`
/// whose section (`tbody`, `thead`, `tfoot`) is the current node, "in cell"
/// a `<td>`, `<th>` or `<tr>` that closes the cell that is the current node
/// (its row below it, and for `<tr>` the row's section below that: cells
/// and rows without end tags); "in cell" the end tag of the cell that is
/// the current node, "in row" `</tr>` of the row that is the current node.
/// Their rules then do only this: clearing the stack back to the row (or
/// section) context pops nothing, the end tag's element is in table scope,
/// generating implied end tags pops nothing (a cell is not such an element)
/// and popping until it pops just it. The rewriter takes them on its quick
/// path ([`Shadow::fast_start`](crate::Shadow::fast_start),
/// [`Shadow::fast_end`](crate::Shadow::fast_end)) as it takes the in-body ones.
impl Builder {
    const TD: u32 = names::html("td");
    const TH: u32 = names::html("th");
    const TR: u32 = names::html("tr");
    const HR: u32 = names::html("hr");
    const INPUT: u32 = names::html("input");

    /// Whether the dispatcher sends a tag to the current insertion mode's
    /// rules, given that the current node is an HTML element (its known id
    /// says so): the document started and not stopped, and the adjusted
    /// current node not a fragment's context.
    #[inline(always)]
    fn by_current_mode(&self) -> bool {
        self.started && !self.stopped && (self.context.is_none() || self.stack.live_len() > 1)
    }

    /// [`Builder::table_fast_start`], then [`Builder::head_fast_start`]:
    /// for the dispatcher's callers, out of line (in line, the two cost the
    /// common tags' path more: text 30.991 → 31.125 instructions a byte,
    /// the three lol-html bench pages).
    #[inline(never)]
    pub(crate) fn table_or_head_fast_start<S: EventSink + ?Sized>(
        &mut self,
        t: &TagToken,
        known: Option<u32>,
        s: &mut S,
    ) -> bool {
        self.table_fast_start(t, known, s) || self.head_fast_start(t, known, s)
    }

    /// Processes start tag `t` (its name's known HTML id `known`) if it is
    /// one of the table modes' common ones; returns whether it did.
    #[inline]
    pub(crate) fn table_fast_start<S: EventSink + ?Sized>(
        &mut self,
        t: &TagToken,
        known: Option<u32>,
        s: &mut S,
    ) -> bool {
        let Some(f) = self.table_fast_start_flags(known) else { return false };
        self.take_in_body_fast_start(t, f, known, s);
        true
    }

    /// Processes start tag `t` (its name's known HTML id `known`) if it is
    /// one of "in head"'s void elements in that mode or "in head noscript";
    /// returns whether it did.
    #[inline]
    pub(crate) fn head_fast_start<S: EventSink + ?Sized>(
        &mut self,
        t: &TagToken,
        known: Option<u32>,
        s: &mut S,
    ) -> bool {
        let Some(f) = self.head_fast_start_flags(known) else { return false };
        self.take_in_body_fast_start(t, f, known, s);
        true
    }

    /// [`Builder::head_fast_start`]'s decision: [`HEAD_VOID`] for a `base`,
    /// `basefont`, `bgsound`, `link` or `meta` start tag "in head", or one
    /// but `base` "in head noscript" (whose rule for them is "in head"'s;
    /// `base` is its "anything else", which pops the `noscript`), with the
    /// dispatcher sending it there (an HTML current node). "In body" takes
    /// them by [`Builder::in_body_fast_start_flags`].
    #[inline]
    pub(crate) fn head_fast_start_flags(&self, known: Option<u32>) -> Option<u16> {
        let f = flags(known);
        (f & HEAD_VOID != 0
            && (self.mode == InsertionMode::InHead
                || self.mode == InsertionMode::InHeadNoscript && known != Some(const { names::html("base") }))
            && self.by_current_mode()
            && self.stack.current().is_some_and(|e| e.ns == Namespace::Html))
        .then_some(PLAIN_VOID)
    }

    /// [`Builder::table_fast_start`]'s decision for a start tag whose name's
    /// HTML element id is `known`: its flags ([`TABLE_START`], with
    /// [`CLOSES_CELL`] "in cell") when the path takes it. "In cell" a `td`,
    /// `th` or `tr` "closes the cell" and is processed again "in row": when
    /// the cell is the current node with its row below it, generating
    /// implied end tags pops nothing (a cell is not such an element), popping
    /// until a cell pops just it, and the row is then the current node; a
    /// `td` or `th` is then the row's common tag, and a `tr` closes the row
    /// (in table scope, the current node: clearing back to the row context
    /// pops nothing, popping pops just it) and is then, "in table body",
    /// the common tag of the row's section, which must be below it.
    #[inline(always)]
    pub(crate) fn table_fast_start_flags(&self, known: Option<u32>) -> Option<u16> {
        let (Some(k), Some(e)) = (known, self.stack.current()) else { return None };
        let f = match self.mode {
            InsertionMode::InRow if (k == Self::TD || k == Self::TH) && e.key == Self::TR => TABLE_START,
            InsertionMode::InTableBody if k == Self::TR && table::SECTION_KEYS.contains(&e.key) => TABLE_START,
            InsertionMode::InCell
                if (e.key == Self::TD || e.key == Self::TH) && (k == Self::TD || k == Self::TH || k == Self::TR) =>
            {
                let top = self.stack.end() - 1;
                let row = self.stack.below(top)?;
                if self.stack.get(row).key != Self::TR {
                    return None;
                }
                if k == Self::TR {
                    let section = self.stack.below(row)?;
                    if !table::SECTION_KEYS.contains(&self.stack.get(section).key) {
                        return None;
                    }
                }
                TABLE_START | CLOSES_CELL
            }
            _ => return None,
        };
        self.by_current_mode().then_some(f)
    }

    /// What [`Builder::table_fast_start`] does once it took `t` (flags
    /// `f`): close the cell (and for a `tr` its row) with [`CLOSES_CELL`],
    /// then insert the cell (then "in cell", a marker) or the row (then "in
    /// row").
    fn table_start<S: EventSink + ?Sized>(&mut self, t: &TagToken, f: u16, known: Option<u32>, s: &mut S) {
        self.skip_newline = false;
        if f & CLOSES_CELL != 0 {
            // "Close the cell" with the cell the current node (checked by
            // `table_fast_start_flags`): generating implied end tags pops
            // nothing and popping until a cell pops just it — the common
            // case of `Builder::close_the_cell`, without its searches (those
            // cost 31.412 → 31.540 instructions a byte with ten selectors).
            let c = self.implied();
            self.pop(s, c);
            self.fmt.clear_to_last_marker();
            self.mode = InsertionMode::InRow;
            if known == Some(Self::TR) {
                // "In row", a `tr` with the row in table scope.
                self.close_the_row(s);
            }
        }
        self.insert_html_element_known(s, t, known);
        if self.mode == InsertionMode::InRow {
            self.mode = InsertionMode::InCell;
            self.fmt.push_marker();
        } else {
            self.mode = InsertionMode::InRow;
        }
    }

    /// Whether the table fast path takes an end tag whose name is the known
    /// HTML name `key`: the cell or row it closes is the current node.
    #[inline]
    pub(crate) fn table_fast_end_by_key(&self, key: u32) -> bool {
        let Some(e) = self.stack.current() else { return false };
        e.key == key
            && match self.mode {
                InsertionMode::InCell => key == Self::TD || key == Self::TH,
                InsertionMode::InRow => key == Self::TR,
                _ => false,
            }
            && self.by_current_mode()
    }

    /// A token of [`Builder::table_fast_end_by_key`]'s, as
    /// [`Builder::run_fast_end`] for the in-body ones.
    pub(crate) fn run_table_fast_end<S: EventSink + ?Sized>(
        &mut self,
        t: &mut TagToken,
        raw_name: &[u8],
        s: &mut S,
    ) -> htrewrite_tokenizer::Feedback {
        self.begin(t.span);
        if check::enabled() {
            t.name.clear();
            crate::shadow::push_name(&mut t.name, raw_name);
            self.checked(Tok::End(t), s, |b, s: &mut dyn EventSink| b.table_end(t, s))
        } else {
            self.table_end(t, s)
        }
        self.feedback(false)
    }

    /// Whether an end tag whose name's known HTML id is `key` goes to "in
    /// body"'s rule for [`BLOCK_END_NAMES`] (`</ul>`, `</div>`, …) with the
    /// current node an HTML element that generating implied end tags pops
    /// (`li`, `dd`, `dt`, `p`, `option`, …: a list's last item left open)
    /// right above the HTML element of that name: that element is in scope
    /// (none of those is a scope's boundary), generating implied end tags
    /// pops the current node alone, and popping until the element of that
    /// name has been popped pops it alone.
    #[inline]
    pub(crate) fn block_end_after_implied(&self, key: u32) -> bool {
        let f = flags(Some(key));
        let Some(e) = self.stack.current() else { return false };
        if f & BLOCK_END == 0 || e.ns != Namespace::Html || !e.has(cat::IMPLIED_END) || !self.dispatches_to_in_body(f) {
            return false;
        }
        let Some(below) = self.stack.below(self.stack.end() - 1) else { return false };
        let x = self.stack.get(below);
        x.key == key && x.ns == Namespace::Html
    }

    /// A token of [`Builder::block_end_after_implied`]'s, as
    /// [`Builder::run_table_fast_end`] for the table ones.
    pub(crate) fn run_block_end_after_implied<S: EventSink + ?Sized>(
        &mut self,
        t: &mut TagToken,
        raw_name: &[u8],
        s: &mut S,
    ) -> htrewrite_tokenizer::Feedback {
        self.begin(t.span);
        if check::enabled() {
            t.name.clear();
            crate::shadow::push_name(&mut t.name, raw_name);
            self.checked(Tok::End(t), s, |b, s: &mut dyn EventSink| b.block_end(t, s))
        } else {
            self.block_end(t, s)
        }
        self.feedback(false)
    }

    /// What [`Builder::run_block_end_after_implied`] does: pop the current
    /// node (an implied end), then the element of the token's name.
    fn block_end<S: EventSink + ?Sized>(&mut self, t: &TagToken, s: &mut S) {
        self.skip_newline = false;
        let c = self.implied();
        self.pop(s, c);
        self.pop(s, CloseCause::EndTag { span: t.span });
    }

    /// Whether an end tag goes to "text"'s rule for end tags (the end of
    /// an element whose contents the tokenizer read as text: `</script>`,
    /// `</style>`, `</title>`, `</textarea>`), which pops the current node
    /// and switches to the original insertion mode, whatever its name.
    #[inline]
    pub(crate) fn text_fast_end(&self) -> bool {
        self.mode == InsertionMode::Text
            && self.by_current_mode()
            && self.stack.current().is_some_and(|e| e.ns == Namespace::Html)
    }

    /// A token of [`Builder::text_fast_end`]'s, as
    /// [`Builder::run_table_fast_end`] for the table ones.
    pub(crate) fn run_text_fast_end<S: EventSink + ?Sized>(
        &mut self,
        t: &mut TagToken,
        raw_name: &[u8],
        s: &mut S,
    ) -> htrewrite_tokenizer::Feedback {
        self.begin(t.span);
        if check::enabled() {
            t.name.clear();
            crate::shadow::push_name(&mut t.name, raw_name);
            self.checked(Tok::End(t), s, |b, s: &mut dyn EventSink| {
                b.skip_newline = false;
                b.text_end_tag(t, s)
            })
        } else {
            self.skip_newline = false;
            self.text_end_tag(t, s)
        }
        self.feedback(false)
    }

    /// Whether an end tag whose name's bytes are `raw` goes to the rules for
    /// foreign content and pops the current node there: the adjusted
    /// current node is a foreign element (the current node: not a
    /// fragment's root) whose name, ASCII-lowercased, is the token's
    /// (the bytes ASCII-lowercased, as the tokenizer decodes them; a name
    /// the tokenizer would change otherwise never equals them), and the
    /// name is neither `br` nor `p` (which break out of foreign content).
    /// "Any other end tag"'s loop then stops at its first node.
    #[inline]
    pub(crate) fn foreign_fast_end_by_raw_name(&self, raw: &[u8]) -> bool {
        let Some(e) = self.stack.current() else { return false };
        if e.ns == Namespace::Html || !self.started || self.stopped || self.stack.live_len() <= 1 {
            return false;
        }
        raw.eq_ignore_ascii_case(self.stack.name(e).as_bytes())
            && !raw.eq_ignore_ascii_case(b"br")
            && !raw.eq_ignore_ascii_case(b"p")
    }

    /// A token of [`Builder::foreign_fast_end_by_raw_name`]'s, as
    /// [`Builder::run_table_fast_end`] for the table ones.
    pub(crate) fn run_foreign_fast_end<S: EventSink + ?Sized>(
        &mut self,
        t: &mut TagToken,
        raw_name: &[u8],
        s: &mut S,
    ) -> htrewrite_tokenizer::Feedback {
        self.begin(t.span);
        if check::enabled() {
            t.name.clear();
            crate::shadow::push_name(&mut t.name, raw_name);
            self.checked(Tok::End(t), s, |b, s: &mut dyn EventSink| b.foreign_end(t, s))
        } else {
            self.foreign_end(t, s)
        }
        self.feedback(false)
    }

    /// What [`Builder::run_foreign_fast_end`] does: pop the current node.
    fn foreign_end<S: EventSink + ?Sized>(&mut self, t: &TagToken, s: &mut S) {
        self.skip_newline = false;
        self.pop(s, CloseCause::EndTag { span: t.span });
    }

    /// What [`Builder::run_table_fast_end`] does: pop the cell (clear the
    /// formatting list to its marker, then "in row") or the row (then "in
    /// table body").
    #[inline(never)]
    fn table_end<S: EventSink + ?Sized>(&mut self, t: &TagToken, s: &mut S) {
        self.skip_newline = false;
        self.pop(s, CloseCause::EndTag { span: t.span });
        if self.mode == InsertionMode::InCell {
            self.fmt.clear_to_last_marker();
            self.mode = InsertionMode::InRow;
        } else {
            self.mode = InsertionMode::InTableBody;
        }
    }
}

pub use check::{check_fast_path, fast_path_taken, inert_comments_taken, inert_text_taken};

/// Whether [`check_fast_path`] is on (for the other fast paths of the crate:
/// [`Shadow::skip_inert_text`](crate::Shadow::skip_inert_text)).
#[inline(always)]
pub(crate) fn checking() -> bool {
    check::enabled()
}

/// [`check_fast_path`]: the full rules run beside the fast path.
mod check {
    use std::sync::atomic::{AtomicBool, Ordering};

    use crate::builder::Builder;
    use crate::shadow::Dyn;
    use crate::token::Tok;
    use crate::{Event, EventSink, OwnedEvent};

    /// Whether [`check_fast_path`] turned the check on.
    static ENABLED: AtomicBool = AtomicBool::new(false);

    thread_local! {
        static TAKEN: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
        static INERT_TEXT: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
        static INERT_COMMENTS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    /// For tests: from now on, in this process, every token the in-body fast
    /// path takes (issue 16) also runs through the full tree construction
    /// rules on a copy of the tree builder, and the events and state of both
    /// must be equal, else it panics ("the fast path's events differ …").
    /// Tokens with more than 64 open elements are counted but not compared
    /// (the copy costs O(depth)). It makes parsing several times slower: not
    /// for production. `false` turns it off. Returns whether the check is
    /// on: only builds with debug assertions have it (tests', by default);
    /// elsewhere it is compiled out of the parse, which then pays nothing
    /// for it, and this returns `false`.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions, TagToken, TreeToken};
    /// assert_eq!(htrewrite_shadow::check_fast_path(true), cfg!(debug_assertions));
    /// let mut shadow = Shadow::new(ShadowOptions::default());
    /// let body = TagToken::new("body", vec![]);
    /// shadow.process_tree_token(TreeToken::StartTag(&body), Default::default(), &mut NoEvents);
    /// let before = htrewrite_shadow::fast_path_taken();
    /// let div = TagToken::new("div", vec![]);
    /// shadow.process_tree_token(TreeToken::StartTag(&div), Default::default(), &mut NoEvents);
    /// let checked = u64::from(cfg!(debug_assertions));
    /// assert_eq!(htrewrite_shadow::fast_path_taken(), before + checked); // checked, and equal
    /// ```
    ///
    /// # Errors
    /// None (a difference panics: it is a bug in the fast path).
    pub fn check_fast_path(on: bool) -> bool {
        ENABLED.store(on, Ordering::Relaxed);
        enabled()
    }

    /// How many tokens the fast path took on this thread while
    /// [`check_fast_path`] was on.
    ///
    /// # Example
    /// ```
    /// let _taken: u64 = htrewrite_shadow::fast_path_taken();
    /// ```
    ///
    /// # Errors
    /// None.
    pub fn fast_path_taken() -> u64 {
        TAKEN.with(std::cell::Cell::get)
    }

    /// How many text tokens [`Shadow::skip_inert_text`](crate::Shadow::skip_inert_text)
    /// took on this thread while [`check_fast_path`] was on.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions, ShadowSink};
    /// use htrewrite_tokenizer::Tokenizer;
    /// let checked = u64::from(htrewrite_shadow::check_fast_path(true));
    /// let before = htrewrite_shadow::inert_text_taken();
    /// let mut sink = ShadowSink::new(Shadow::new(ShadowOptions::default()), NoEvents);
    /// let mut tokenizer = Tokenizer::new();
    /// tokenizer.feed(b"<p>a<p>b", &mut sink); // `a` sets frameset-ok: only `b` is inert
    /// tokenizer.finish(&mut sink);
    /// assert_eq!(htrewrite_shadow::inert_text_taken(), before + checked); // checked, and equal
    /// ```
    ///
    /// # Errors
    /// None.
    pub fn inert_text_taken() -> u64 {
        INERT_TEXT.with(std::cell::Cell::get)
    }

    /// How many comment tokens
    /// [`Shadow::skip_inert_comment`](crate::Shadow::skip_inert_comment)
    /// took on this thread while [`check_fast_path`] was on.
    ///
    /// # Example
    /// ```
    /// use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions};
    /// use htrewrite_tokenizer::{Feedback, Token, TokenSink, Tokenizer};
    /// struct Skips(Shadow);
    /// impl TokenSink for Skips {
    ///     fn token(&mut self, t: &Token<'_>) -> Feedback {
    ///         if self.0.skip_inert_comment(t) {
    ///             return Feedback::default();
    ///         }
    ///         self.0.process_monomorphized(t, &mut NoEvents)
    ///     }
    /// }
    /// let checked = u64::from(htrewrite_shadow::check_fast_path(true));
    /// let before = htrewrite_shadow::inert_comments_taken();
    /// let mut sink = Skips(Shadow::new(ShadowOptions::default()));
    /// let mut tokenizer = Tokenizer::new();
    /// tokenizer.feed(b"<p><!--a--><table><!--b-->", &mut sink);
    /// tokenizer.finish(&mut sink);
    /// assert_eq!(htrewrite_shadow::inert_comments_taken(), before + 2 * checked); // checked, and equal
    /// ```
    ///
    /// # Errors
    /// None.
    pub fn inert_comments_taken() -> u64 {
        INERT_COMMENTS.with(std::cell::Cell::get)
    }

    /// Whether the check is on (never without debug assertions: the
    /// constant `false` then takes the check's code out of the parse;
    /// ten selectors 36.370 → 35.957 instructions a byte).
    #[inline(always)]
    pub(super) fn enabled() -> bool {
        cfg!(debug_assertions) && ENABLED.load(Ordering::Relaxed)
    }

    /// A copy of start tag `t` whose name is filled from `known` when the
    /// fast path's caller left it empty.
    pub(super) fn named(t: &crate::TagToken, known: Option<u32>) -> crate::TagToken {
        let mut named = t.clone();
        if named.name.is_empty() {
            named.name = crate::names::name(known.expect("an empty name is a known one's")).to_owned();
        }
        named
    }

    /// The stack depth up to which a token is checked (copying the builder
    /// costs O(depth), which would make deep documents quadratic).
    const CHECKED_DEPTH: usize = 64;

    /// Records the events the fast path makes while passing them on.
    struct Tee<'s> {
        inner: &'s mut dyn EventSink,
        events: Vec<OwnedEvent>,
    }

    impl EventSink for Tee<'_> {
        fn event(&mut self, e: Event<'_>) {
            self.events.push(OwnedEvent::from(&e));
            self.inner.event(e);
        }
        fn wants_text(&self) -> bool {
            self.inner.wants_text()
        }
        fn wants_text_events(&self) -> bool {
            self.inner.wants_text_events()
        }
        fn wants_start_tag_attributes(&self, name: &str) -> bool {
            self.inner.wants_start_tag_attributes(name)
        }
        fn wants_start_tag_attribute_values(&self, name: &str) -> bool {
            self.inner.wants_start_tag_attribute_values(name)
        }
    }

    /// Collects the events of the full rules.
    #[derive(Default)]
    struct Record(Vec<OwnedEvent>);

    impl EventSink for Record {
        fn event(&mut self, e: Event<'_>) {
            self.0.push(OwnedEvent::from(&e));
        }
    }

    /// The builder's state, compared with `==` and shown with `{:?}` when
    /// it differs: everything tree construction decides (the stack's and
    /// the list's indexes are derived from their entries, and a copy does
    /// not keep capacities, so they are left out; the stack's own tests
    /// check the indexes). Compared as values, not as their `Debug` text:
    /// formatting both states for every token the check takes was about two
    /// fifths of the shadow suite's time (48.8 s with it, 28.3 s without).
    fn comparable(b: &Builder) -> impl PartialEq + std::fmt::Debug + '_ {
        let fmt: Vec<_> = (0..b.fmt.len()).map(|i| b.fmt.get(i)).collect();
        (
            (b.mode, b.original_mode, &b.template_modes, b.stack.view(), fmt, &b.head, b.form),
            (b.frameset_ok, b.quirks, b.foster_parenting, b.next_id, b.skip_newline, b.text_mode),
            (&b.table_ws, b.table_foster, &b.html_attrs, &b.body, b.started, b.stopped, b.at_eof),
            (&b.selects, &b.shadow_hosts),
        )
    }

    impl Builder {
        /// Runs the fast path `fast` for `tok`, and the full rules (the
        /// dispatcher) for it on a copy, and compares them.
        ///
        /// # Panics
        /// When their events or states differ: the fast path took a token
        /// it should not have.
        #[cold]
        #[inline(never)]
        pub(super) fn checked<S: EventSink + ?Sized>(
            &mut self,
            tok: Tok<'_>,
            s: &mut S,
            fast: impl FnOnce(&mut Builder, &mut dyn EventSink),
        ) {
            TAKEN.with(|n| n.set(n.get() + 1));
            if self.stack.live_len() > CHECKED_DEPTH {
                return fast(self, &mut Dyn(s));
            }
            let mut full = self.clone();
            let mut events = Record::default();
            full.dispatch(tok, &mut events);
            let mut tee = Tee { inner: &mut Dyn(s), events: Vec::new() };
            fast(self, &mut tee);
            assert_eq!(tee.events, events.0, "the fast path's events differ from the full rules'");
            let (a, b) = (comparable(self), comparable(&full));
            assert!(a == b, "the fast path's state differs from the full rules':\nfast: {a:?}\nfull: {b:?}");
        }

        /// [`Builder::checked`] for a comment token that
        /// [`Shadow::skip_inert_comment`](crate::Shadow::skip_inert_comment)
        /// takes (and does nothing with), for a sink without comment events:
        /// the full rules, run on a copy, must make one event, the comment's,
        /// and leave the same state.
        ///
        /// # Panics
        /// When they make another event or change the state.
        #[cold]
        #[inline(never)]
        pub(crate) fn checked_inert_comment(&self, token: &htrewrite_tokenizer::Token<'_>) {
            INERT_COMMENTS.with(|n| n.set(n.get() + 1));
            if self.stack.live_len() > CHECKED_DEPTH {
                return;
            }
            let mut full = self.clone();
            let mut events = Record::default();
            full.begin(token.span());
            full.dispatch(Tok::Comment(crate::token::CommentLike::Comment("")), &mut events);
            full.feedback(false);
            assert!(
                matches!(events.0[..], [OwnedEvent::Comment { .. }]),
                "the full rules made other events for an inert comment: {:?}",
                events.0
            );
            let (a, b) = (comparable(self), comparable(&full));
            assert!(a == b, "an inert comment changed the state by the full rules:\nfast: {a:?}\nfull: {b:?}");
        }

        /// [`Builder::checked`] for a text token that
        /// [`Shadow::skip_inert_text`](crate::Shadow::skip_inert_text) takes
        /// (and does nothing with), for a sink without text events: the full
        /// rules, run on a copy, must make no event and leave the same state.
        ///
        /// # Panics
        /// When they make an event or change the state.
        #[cold]
        #[inline(never)]
        pub(crate) fn checked_inert_text(&self, token: &htrewrite_tokenizer::Token<'_>) {
            INERT_TEXT.with(|n| n.set(n.get() + 1));
            if self.stack.live_len() > CHECKED_DEPTH {
                return;
            }
            let mut full = self.clone();
            full.text_shown = false;
            full.text_events = false;
            full.text_without_nul = token.scanned_without_nul();
            let text = token.text().unwrap_or_default();
            let mut events = Record::default();
            full.begin(token.span());
            full.dispatch_text(&text, &mut events);
            if full.mode == crate::mode::InsertionMode::InTableText {
                // Table whitespace (`Builder::table_whitespace_is_inert`):
                // the next token, not a character token, ends "in table
                // text" before anything else. The original insertion mode
                // that "in table text" set is read only on leaving "in
                // table text" or "text", each of which sets it first.
                assert!(token.ends_before_markup(), "inert table text {text:?} not followed by markup");
                full.end_table_text(&mut events);
                full.original_mode = self.original_mode;
            }
            full.feedback(false);
            full.text_without_nul = false;
            assert!(events.0.is_empty(), "the full rules made events for inert text {text:?}: {:?}", events.0);
            let (a, b) = (comparable(self), comparable(&full));
            assert!(a == b, "inert text {text:?} changed the state by the full rules:\nfast: {a:?}\nfull: {b:?}");
        }
    }
}
