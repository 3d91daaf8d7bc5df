//! The slow, obvious reference beside the streaming matcher: a naive
//! right-to-left selector evaluator over a live tree rebuilt from the
//! shadow's events, asked about each element at the moment the streaming
//! matcher matches it (when it is opened, or first placed). Both must agree
//! exactly — on the html5lib tree-construction inputs, the real pages and
//! proptest documents, for structural selectors including namespaces and
//! `:nth-child(… of S)` (which the scraper oracle cannot parse).
//!
//! Any difference fails, including after adoption-agency moves: an element
//! opened under an ancestor the algorithm moved, or after a sibling it moved
//! in, is matched against the tree after the move (the matcher computes the
//! moved elements' states again). The documents with such moves are counted
//! and printed, and so are those where an element comes after (or under) a
//! `table` that something was foster-parented before once the table was
//! matched: the table's part of the sibling cursor (`+`, `~`, `of S`
//! counts) and its descendants' states are computed again with its new
//! earlier sibling (`<table><b></table><i>` with `:nth-child(even of b + *)`).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use htrewrite_selectors::{
    AttributeOperator, CaseFlag, Combinator, ComplexSelector, CompoundSelector, Matcher, NamespacePrefix, Program,
    PseudoClass, SelectorList, SimpleSelector,
};
use htrewrite_shadow::{
    AttrNamespace, Event, Namespace, NodeId, Position, QuirksMode, Shadow, ShadowAttr, ShadowOptions, ShadowSink,
};
use htrewrite_tokenizer::Tokenizer;
use libtest_mimic::{Failed, Trial};

const SELECTORS: &[&str] = &[
    "p > div",
    "li > li",
    "tr > td",
    "body > *",
    "svg > *",
    "a a",
    "p p",
    ":not(div) > p",
    "h2 + p",
    "h2 ~ p",
    "html > head",
    "head > *",
    "table > tbody > tr > td",
    "ul > li:first-child",
    "li:nth-child(2n+1)",
    "li + li",
    "div ~ div",
    "option:first-of-type",
    "p:nth-of-type(2)",
    "b i",
    "i > b",
    "a > a",
    "svg *",
    "math *",
    "body :is(p, div) > span",
    ":where(ul, ol) li",
    ":not(p) + p",
    "tr > :nth-child(1 of td, th)",
    "p:not(:first-child)",
    ":root",
    "* > b + i",
    ":is(a, b, i) :is(a, b, i)",
    "li:nth-of-type(3n)",
    "ul li ~ li > p",
    "svg|*",
    "html|a svg|a",
    "*|*:not(html|*) > *",
    ":nth-child(even of :is(b, i) + *)",
    "b:not(p b, i > b)",
    "[id], [class~=x]",
    ".x ~ .y",
    "span:nth-child(-n+3 of .x, b)",
    "td:nth-of-type(2) ~ td",
    ":not(:is(td, th) *)",
    "svg|svg > svg|*:first-child",
];

static MOVED_DOCS: AtomicUsize = AtomicUsize::new(0);
static FOSTER_DOCS: AtomicUsize = AtomicUsize::new(0);
static CHECKED: AtomicUsize = AtomicUsize::new(0);

pub(crate) fn trials() -> Vec<Trial> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut trials = Vec::new();
    // The real pages first, largest first (`pages_largest_first`).
    for (name, page) in crate::common::pages_largest_first() {
        trials.push(Trial::test(format!("corpus::{name}"), move || {
            check(&String::from_utf8_lossy(&std::fs::read(&page).expect("page")))
        }));
    }
    let dir = root.join("tests/data/html5lib-tests/tree-construction");
    let mut dats: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.map(|e| e.expect("entry").path()).filter(|p| p.extension().is_some_and(|x| x == "dat")).collect())
        .unwrap_or_default();
    dats.sort();
    for dat in dats {
        let stem = dat.file_stem().unwrap().to_string_lossy().into_owned();
        trials.push(Trial::test(format!("html5lib::{stem}"), move || {
            let text = std::fs::read_to_string(&dat).expect("dat");
            for block in text.split("\n\n#data\n").map(|b| b.strip_prefix("#data\n").unwrap_or(b)) {
                if block.contains("\n#document-fragment\n") {
                    continue;
                }
                let data = &block[..block.find("\n#errors").unwrap_or(block.len())];
                check(data)?;
            }
            Ok(())
        }));
    }
    for part in 0..crate::common::PARTS {
        trials.push(Trial::test(format!("proptest::documents_{part}"), move || proptest_documents(part)));
    }
    trials
}

/// Prints how many element matchings the trials that ran compared.
pub(crate) fn report() {
    println!(
        "reference: {} element matchings compared, all equal; among them {} documents with an element matched after an \
         adoption-agency move and {} with an element matched after something was foster-parented before a table",
        CHECKED.load(Ordering::Relaxed),
        MOVED_DOCS.load(Ordering::Relaxed),
        FOSTER_DOCS.load(Ordering::Relaxed)
    );
}

struct Node {
    name: String,
    ns: Namespace,
    attrs: Vec<ShadowAttr>,
    parent: Option<NodeId>,
    children: Vec<NodeId>,
    /// Whether an ancestor-or-self was moved after being opened.
    moved: bool,
    /// A table something was foster-parented before.
    shifted: bool,
}

struct Dom {
    nodes: HashMap<NodeId, Node>,
    quirks: bool,
}

impl Dom {
    fn detach(&mut self, id: NodeId) {
        if let Some(p) = self.nodes.get(&id).and_then(|n| n.parent) {
            self.nodes.get_mut(&p).unwrap().children.retain(|&c| c != id);
        }
        self.nodes.get_mut(&id).unwrap().parent = None;
    }

    fn place(&mut self, id: NodeId, at: Position) {
        let (parent, before) = match at {
            Position::Append { parent } => (parent, None),
            Position::InsertBefore { parent, before } => (parent, Some(before)),
            Position::AppendToTemplateContents { template } => (template, None),
            Position::Detached => return,
        };
        let siblings = &mut self.nodes.get_mut(&parent).unwrap().children;
        match before.and_then(|b| siblings.iter().position(|&c| c == b)) {
            Some(i) => siblings.insert(i, id),
            None => siblings.push(id),
        }
        self.nodes.get_mut(&id).unwrap().parent = Some(parent);
        if let Some(b) = before {
            self.nodes.get_mut(&b).unwrap().shifted = true;
        }
    }

    /// Whether `id` comes after a sibling, or lies under an ancestor (or an
    /// ancestor's earlier sibling), that something was foster-parented
    /// before after it was matched.
    fn after_shifted(&self, id: NodeId) -> bool {
        let mut cur = Some(id);
        while let Some(c) = cur {
            if self.nodes[&c].shifted && c != id || self.prev_siblings(c).iter().any(|s| self.nodes[s].shifted) {
                return true;
            }
            cur = self.nodes[&c].parent;
        }
        false
    }

    fn parent_element(&self, id: NodeId) -> Option<NodeId> {
        self.nodes[&id].parent.filter(|&p| p != NodeId::DOCUMENT)
    }

    fn prev_siblings(&self, id: NodeId) -> Vec<NodeId> {
        let Some(p) = self.nodes[&id].parent else { return vec![] };
        let sibs = &self.nodes[&p].children;
        let i = sibs.iter().position(|&c| c == id).unwrap();
        sibs[..i].iter().rev().copied().collect()
    }

    fn connected(&self, id: NodeId) -> bool {
        let mut cur = Some(id);
        while let Some(c) = cur {
            if c == NodeId::DOCUMENT {
                return true;
            }
            cur = self.nodes[&c].parent;
        }
        false
    }

    /// `id` and its descendants not yet evaluated, in tree order.
    fn unevaluated(&self, id: NodeId, evaluated: &HashSet<NodeId>, out: &mut Vec<NodeId>) {
        if !evaluated.contains(&id) {
            out.push(id);
        }
        for &c in &self.nodes[&id].children {
            self.unevaluated(c, evaluated, out);
        }
    }

    fn any_moved(&self, id: NodeId) -> bool {
        let mut cur = Some(id);
        while let Some(c) = cur {
            if self.nodes[&c].moved {
                return true;
            }
            cur = self.nodes[&c].parent;
        }
        false
    }
}

fn attr<'a>(n: &'a Node, name: &str, any_ns: bool) -> Vec<&'a str> {
    let html = n.ns == Namespace::Html;
    n.attrs
        .iter()
        .filter(|a| {
            (any_ns || a.namespace == AttrNamespace::None)
                && if html { a.name.eq_ignore_ascii_case(name) } else { a.name == name }
        })
        .map(|a| a.value.as_str())
        .collect()
}

fn ns_ok(p: &NamespacePrefix, ns: Namespace) -> bool {
    match p {
        NamespacePrefix::Default | NamespacePrefix::Any => true,
        NamespacePrefix::None => false,
        NamespacePrefix::Named(x) => match x.as_str() {
            "html" => ns == Namespace::Html,
            "svg" => ns == Namespace::Svg,
            "math" => ns == Namespace::MathMl,
            _ => false,
        },
    }
}

const LISTED: &[&str] = &["type", "lang", "dir", "rel", "checked", "disabled", "align", "media", "method", "target"];

fn compound(dom: &Dom, id: NodeId, c: &CompoundSelector) -> bool {
    let n = &dom.nodes[&id];
    if let Some(t) = &c.type_selector {
        if !ns_ok(&t.namespace, n.ns) {
            return false;
        }
        if let Some(name) = &t.name {
            let ok = if n.ns == Namespace::Html { n.name == name.to_ascii_lowercase() } else { n.name == *name };
            if !ok {
                return false;
            }
        }
    }
    let eq = |a: &str, b: &str, ci: bool| if ci { a.eq_ignore_ascii_case(b) } else { a == b };
    c.simple.iter().all(|s| match s {
        SimpleSelector::Id(v) => attr(n, "id", false).first().is_some_and(|x| eq(x, v, dom.quirks)),
        SimpleSelector::Class(v) => attr(n, "class", false).first().is_some_and(|x| {
            x.split(|c: char| " \t\n\r\x0c".contains(c)).any(|w| !w.is_empty() && eq(w, v, dom.quirks))
        }),
        SimpleSelector::Attribute(a) => {
            let any_ns = a.namespace == NamespacePrefix::Any;
            attr(n, &a.name, any_ns).iter().any(|value| {
                let Some((op, want)) = &a.operation else { return true };
                let ci = match a.case {
                    CaseFlag::AsciiCaseInsensitive => true,
                    CaseFlag::CaseSensitive => false,
                    CaseFlag::Default => {
                        n.ns == Namespace::Html && LISTED.contains(&a.name.to_ascii_lowercase().as_str())
                    }
                };
                let (v, w) = if ci {
                    (value.to_ascii_lowercase(), want.to_ascii_lowercase())
                } else {
                    (value.to_string(), want.clone())
                };
                match op {
                    AttributeOperator::Equals => v == w,
                    AttributeOperator::Includes => {
                        !w.is_empty() && !w.contains(' ') && v.split_ascii_whitespace().any(|x| x == w)
                    }
                    AttributeOperator::DashMatch => v == w || v.starts_with(&format!("{w}-")),
                    AttributeOperator::Prefix => !w.is_empty() && v.starts_with(&w),
                    AttributeOperator::Suffix => !w.is_empty() && v.ends_with(&w),
                    AttributeOperator::Substring => !w.is_empty() && v.contains(&w),
                }
            })
        }
        SimpleSelector::PseudoClass(p) => match p {
            PseudoClass::Root => n.parent == Some(NodeId::DOCUMENT),
            PseudoClass::FirstChild => dom.prev_siblings(id).is_empty(),
            PseudoClass::NthChild(nth, None) => nth.matches(dom.prev_siblings(id).len() as u32 + 1),
            PseudoClass::NthChild(nth, Some(of)) => {
                list(dom, id, of)
                    && nth.matches(dom.prev_siblings(id).iter().filter(|&&s| list(dom, s, of)).count() as u32 + 1)
            }
            PseudoClass::FirstOfType | PseudoClass::NthOfType(_) => {
                let same = dom
                    .prev_siblings(id)
                    .iter()
                    .filter(|s| dom.nodes[s].name == n.name && dom.nodes[s].ns == n.ns)
                    .count() as u32;
                match p {
                    PseudoClass::NthOfType(nth) => nth.matches(same + 1),
                    _ => same == 0,
                }
            }
            PseudoClass::Not(l) => !list(dom, id, l),
            PseudoClass::Is(l) | PseudoClass::Where(l) => list(dom, id, l),
        },
    })
}

fn list(dom: &Dom, id: NodeId, l: &SelectorList) -> bool {
    l.selectors.iter().any(|s| complex(dom, id, s, s.compounds.len() - 1))
}

/// Right to left, with backtracking.
fn complex(dom: &Dom, id: NodeId, s: &ComplexSelector, k: usize) -> bool {
    if !compound(dom, id, &s.compounds[k]) {
        return false;
    }
    if k == 0 {
        return true;
    }
    match s.combinators[k - 1] {
        Combinator::Child => dom.parent_element(id).is_some_and(|p| complex(dom, p, s, k - 1)),
        Combinator::Descendant => {
            let mut cur = dom.parent_element(id);
            while let Some(p) = cur {
                if complex(dom, p, s, k - 1) {
                    return true;
                }
                cur = dom.parent_element(p);
            }
            false
        }
        Combinator::NextSibling => dom.prev_siblings(id).first().is_some_and(|&p| complex(dom, p, s, k - 1)),
        Combinator::SubsequentSibling => dom.prev_siblings(id).iter().any(|&p| complex(dom, p, s, k - 1)),
    }
}

fn check(doc: &str) -> Result<(), Failed> {
    let lists: Vec<SelectorList> = SELECTORS.iter().map(|s| SelectorList::parse(s).expect("parses")).collect();
    let program = Arc::new(Program::new(SELECTORS).expect("compiles"));
    let mut matcher = Matcher::new(program);
    let mut dom = Dom { nodes: HashMap::new(), quirks: true };
    dom.nodes.insert(
        NodeId::DOCUMENT,
        Node {
            name: String::new(),
            ns: Namespace::Html,
            attrs: vec![],
            parent: None,
            children: vec![],
            moved: false,
            shifted: false,
        },
    );
    let mut errors = Vec::new();
    let mut moved_doc = false;
    let mut foster_doc = false;
    let mut evaluated: HashSet<NodeId> = HashSet::new();
    let events = |e: Event<'_>| {
        let mut placed = Vec::new();
        match &e {
            Event::Doctype { quirks, .. } => dom.quirks = *quirks == QuirksMode::Quirks,
            Event::ElementOpened { id, name, ns, attrs, position, .. } => {
                dom.nodes.insert(
                    *id,
                    Node {
                        name: name.to_string(),
                        ns: *ns,
                        attrs: attrs.to_vec(),
                        parent: None,
                        children: vec![],
                        moved: false,
                        shifted: false,
                    },
                );
                dom.place(*id, *position);
                if dom.connected(*id) {
                    placed.push(*id);
                }
            }
            Event::NodeMoved { id, to } => {
                let was_evaluated = evaluated.contains(id);
                dom.detach(*id);
                dom.place(*id, *to);
                if was_evaluated {
                    dom.nodes.get_mut(id).unwrap().moved = true;
                } else if dom.connected(*id) {
                    // Placed in the document with what was placed in it while detached.
                    dom.unevaluated(*id, &evaluated, &mut placed);
                }
            }
            Event::ChildrenMoved { from, to } => {
                let kids = std::mem::take(&mut dom.nodes.get_mut(from).unwrap().children);
                for k in kids {
                    dom.nodes.get_mut(&k).unwrap().parent = Some(*to);
                    dom.nodes.get_mut(&k).unwrap().moved = true;
                    dom.nodes.get_mut(to).unwrap().children.push(k);
                }
            }
            Event::NodeRemoved { id } => dom.detach(*id),
            _ => {}
        }
        let got: Vec<(NodeId, u32)> = matcher.event(&e).iter().map(|m| (m.element, m.rule.0)).collect();
        for &(id, _) in &got {
            if !placed.contains(&id) {
                errors.push(format!("streaming matched {id:?}, which this event does not place"));
            }
        }
        for id in placed {
            evaluated.insert(id);
            CHECKED.fetch_add(1, Ordering::Relaxed);
            let got: Vec<u32> = got.iter().filter(|m| m.0 == id).map(|m| m.1).collect();
            let want: Vec<u32> =
                lists.iter().enumerate().filter(|(_, l)| list(&dom, id, l)).map(|(i, _)| i as u32).collect();
            if got != want {
                let diff: Vec<&str> = (0..SELECTORS.len() as u32)
                    .filter(|r| got.contains(r) != want.contains(r))
                    .map(|r| SELECTORS[r as usize])
                    .collect();
                errors.push(format!("<{}> ({id:?}): streaming and reference differ on {diff:?}", dom.nodes[&id].name));
            }
            if dom.after_shifted(id) {
                foster_doc = true;
            }
            let moved_sibling = dom.prev_siblings(id).iter().any(|s| dom.nodes[s].moved);
            if moved_sibling || dom.nodes[&id].parent.is_some_and(|p| dom.any_moved(p)) {
                moved_doc = true;
            }
        }
    };
    let mut sink = ShadowSink::new(Shadow::new(ShadowOptions::default()), events);
    let mut tokenizer = Tokenizer::new();
    tokenizer.feed(doc.as_bytes(), &mut sink);
    tokenizer.finish(&mut sink);
    sink.finish();
    drop(sink);
    if moved_doc {
        MOVED_DOCS.fetch_add(1, Ordering::Relaxed);
    }
    if foster_doc {
        FOSTER_DOCS.fetch_add(1, Ordering::Relaxed);
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!("document {:?}\n{}", doc.chars().take(200).collect::<String>(), errors.join("\n")).into())
    }
}

/// Seeded documents from a small alphabet of tags (classes and ids among
/// them), checked against the reference; part `part` of the run's cases
/// ([`htrewrite_testkit::Part`]).
fn proptest_documents(part: usize) -> Result<(), Failed> {
    use proptest::prelude::*;
    let (seed, mut runner) = crate::common::seeded_runner(3000);
    let piece = prop_oneof![
        prop::sample::select(vec![
            "<p>",
            "<div>",
            "<li>",
            "<ul>",
            "<table>",
            "<tr>",
            "<td>",
            "<th>",
            "<h2>",
            "<span class=x>",
            "<a>",
            "<b>",
            "<i id=y>",
            "<svg>",
            "<math>",
            "<foreignObject>",
            "<select>",
            "<option>",
            "<span>",
            "<b class=\"x y\">",
            "<template>",
            "<a class=y>",
            "<em>",
            "<nobr>",
            "<address>",
            "<button>",
        ])
        .prop_map(str::to_owned),
        prop::sample::select(vec![
            "</p>",
            "</div>",
            "</li>",
            "</table>",
            "</td>",
            "</a>",
            "</b>",
            "</span>",
            "</svg>",
            "</template>",
            "</i>",
            "</em>",
            "</nobr>",
        ])
        .prop_map(str::to_owned),
        Just("x".to_owned()),
        // Deep runs of special elements: the adoption agency's outer loop
        // runs up to eight times and leaves what is under the last clone open.
        (1..12usize).prop_map(|n| "<div>".repeat(n)),
    ];
    let strategy = prop::collection::vec(piece, 0..40).prop_map(|v| v.concat());
    let part = htrewrite_testkit::Part::new(part, crate::common::PARTS);
    runner
        .run(&strategy, |doc| {
            if !part.takes() {
                return Ok(());
            }
            part.checked(check(&doc)).map_err(|e| TestCaseError::fail(format!("{e:?}")))
        })
        .map_err(|e| format!("seed {seed} (set HTREWRITE_SEED to replay): {e}").into())
}
