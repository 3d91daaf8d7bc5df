//! A test-only DOM, rebuilt from the shadow's events alone, and html5lib's tree dump of it.
//!
//! Only the tree operations the parser performs exist here: insert a node (append, insert before
//! a sibling for foster parenting, append to template contents), insert characters (merged into
//! an adjacent text node as the Standard's "insert a character" does), move a node and move all
//! children (the adoption agency), and add missing attributes (`<html>`/`<body>` merging).
//! Moves never merge text nodes: the DOM's `appendChild` does not either.

/// A node's index in the arena.
pub type NodeId = usize;

/// An element's namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ns {
    /// The HTML namespace.
    Html,
    /// The SVG namespace.
    Svg,
    /// The MathML namespace.
    MathMl,
}

/// An attribute's namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttrNs {
    /// No namespace.
    None,
    /// XLink (`xlink href`).
    XLink,
    /// XML (`xml lang`).
    Xml,
    /// XMLNS (`xmlns xlink`).
    Xmlns,
}

/// An attribute: namespace, local name, value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attr {
    /// Its namespace.
    pub ns: AttrNs,
    /// Its local name.
    pub name: String,
    /// Its value.
    pub value: String,
}

impl Attr {
    /// html5lib's *attribute name string*: `xlink href`, `xml lang`, `xmlns xlink`, `class`.
    pub fn dump_name(&self) -> String {
        match self.ns {
            AttrNs::None => self.name.clone(),
            AttrNs::XLink => format!("xlink {}", self.name),
            AttrNs::Xml => format!("xml {}", self.name),
            AttrNs::Xmlns => format!("xmlns {}", self.name),
        }
    }
}

/// What a node is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeKind {
    /// The document.
    Document,
    /// `<!DOCTYPE name "public" "system">`.
    Doctype {
        /// The name (empty when missing).
        name: String,
        /// The public identifier (empty when missing).
        public_id: String,
        /// The system identifier (empty when missing).
        system_id: String,
    },
    /// An element; a `template` has its contents fragment.
    Element {
        /// Namespace.
        ns: Ns,
        /// Local name (adjusted for SVG).
        name: String,
        /// Attributes in insertion order.
        attrs: Vec<Attr>,
        /// The template contents fragment of an HTML `template`.
        contents: Option<NodeId>,
    },
    /// A template's contents (a document fragment).
    TemplateContents,
    /// A text node.
    Text(String),
    /// A comment.
    Comment(String),
    /// A processing instruction.
    ProcessingInstruction {
        /// Its target.
        target: String,
        /// Its data.
        data: String,
    },
}

/// One node of the arena.
#[derive(Debug, Clone)]
pub struct Node {
    /// What it is.
    pub kind: NodeKind,
    /// Its parent, if inserted.
    pub parent: Option<NodeId>,
    /// Its children in order.
    pub children: Vec<NodeId>,
}

/// Where to insert: the three kinds of insertion location the parser uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// As the last child of the node.
    Append(NodeId),
    /// Immediately before `before`, in `before`'s parent (foster parenting).
    Before(NodeId),
    /// As the last child of the template's contents.
    TemplateContents(NodeId),
}

/// The arena. Node 0 is the document.
#[derive(Debug, Clone)]
pub struct Dom {
    /// All nodes ever created.
    pub nodes: Vec<Node>,
}

impl Default for Dom {
    fn default() -> Self {
        Self::new()
    }
}

impl Dom {
    /// The document node.
    pub const DOCUMENT: NodeId = 0;

    /// An empty document.
    pub fn new() -> Dom {
        Dom { nodes: vec![Node { kind: NodeKind::Document, parent: None, children: Vec::new() }] }
    }

    /// Creates a node, not inserted anywhere; a `template` in the HTML namespace gets its
    /// contents fragment.
    pub fn create(&mut self, kind: NodeKind) -> NodeId {
        let id = self.nodes.len();
        let is_template = matches!(&kind, NodeKind::Element { ns: Ns::Html, name, .. } if name == "template");
        self.nodes.push(Node { kind, parent: None, children: Vec::new() });
        if is_template {
            let contents = self.nodes.len();
            self.nodes.push(Node { kind: NodeKind::TemplateContents, parent: None, children: Vec::new() });
            if let NodeKind::Element { contents: c, .. } = &mut self.nodes[id].kind {
                *c = Some(contents);
            }
        }
        id
    }

    /// The template contents of `template`.
    pub fn contents(&self, template: NodeId) -> Result<NodeId, String> {
        match &self.nodes[template].kind {
            NodeKind::Element { contents: Some(c), .. } => Ok(*c),
            other => Err(format!("template contents of a non-template node {other:?}")),
        }
    }

    /// Resolves a place into (parent, index to insert at).
    fn resolve(&self, place: Place) -> Result<(NodeId, usize), String> {
        match place {
            Place::Append(parent) => Ok((parent, self.nodes[parent].children.len())),
            Place::TemplateContents(template) => {
                let c = self.contents(template)?;
                Ok((c, self.nodes[c].children.len()))
            }
            Place::Before(before) => {
                let parent = self.nodes[before]
                    .parent
                    .ok_or_else(|| format!("insert before node {before}, which has no parent"))?;
                let index = self.index_in_parent(before).expect("child of its parent");
                Ok((parent, index))
            }
        }
    }

    fn index_in_parent(&self, node: NodeId) -> Option<usize> {
        let parent = self.nodes[node].parent?;
        self.nodes[parent].children.iter().position(|&c| c == node)
    }

    /// Replaces the children of `target` with deep clones of the children of
    /// `source` (the DOM's "clone an option into a selectedcontent").
    pub fn replace_children_with_clones(&mut self, source: NodeId, target: NodeId) -> Result<(), String> {
        for c in std::mem::take(&mut self.nodes[target].children) {
            self.nodes[c].parent = None;
        }
        for c in self.nodes[source].children.clone() {
            let clone = self.deep_clone(c);
            self.insert(clone, Place::Append(target))?;
        }
        Ok(())
    }

    fn deep_clone(&mut self, node: NodeId) -> NodeId {
        let kind = match &self.nodes[node].kind {
            NodeKind::Element { ns, name, attrs, .. } => {
                NodeKind::Element { ns: *ns, name: name.clone(), attrs: attrs.clone(), contents: None }
            }
            other => other.clone(),
        };
        let copy = self.create(kind);
        if let (NodeKind::Element { contents: Some(from), .. }, NodeKind::Element { contents: Some(to), .. }) =
            (self.nodes[node].kind.clone(), self.nodes[copy].kind.clone())
        {
            for c in self.nodes[from].children.clone() {
                let cc = self.deep_clone(c);
                self.nodes[cc].parent = Some(to);
                self.nodes[to].children.push(cc);
            }
        }
        for c in self.nodes[node].children.clone() {
            let cc = self.deep_clone(c);
            self.nodes[cc].parent = Some(copy);
            self.nodes[copy].children.push(cc);
        }
        copy
    }

    /// Removes `node` from its parent, if it has one.
    pub fn remove(&mut self, node: NodeId) {
        self.detach(node);
    }

    fn detach(&mut self, node: NodeId) {
        if let Some(i) = self.index_in_parent(node) {
            let parent = self.nodes[node].parent.expect("has a parent");
            self.nodes[parent].children.remove(i);
        }
        self.nodes[node].parent = None;
    }

    fn is_inclusive_ancestor(&self, ancestor: NodeId, mut node: NodeId) -> bool {
        loop {
            if node == ancestor {
                return true;
            }
            match self.nodes[node].parent {
                Some(p) => node = p,
                None => return false,
            }
        }
    }

    /// Inserts `node` (removing it from its old place first).
    pub fn insert(&mut self, node: NodeId, place: Place) -> Result<(), String> {
        if let Place::Before(before) = place
            && before == node
        {
            return Err(format!("insert node {node} before itself"));
        }
        self.detach(node);
        let (parent, index) = self.resolve(place)?;
        if self.is_inclusive_ancestor(node, parent) {
            return Err(format!("insert node {node} into its own descendant {parent}"));
        }
        self.nodes[parent].children.insert(index, node);
        self.nodes[node].parent = Some(parent);
        Ok(())
    }

    /// The Standard's "insert a character": appended to the text node just before the insertion
    /// point if there is one, else a new text node.
    pub fn insert_text(&mut self, text: &str, place: Place) -> Result<(), String> {
        if text.is_empty() {
            return Ok(());
        }
        let (parent, index) = self.resolve(place)?;
        if index > 0 {
            let prev = self.nodes[parent].children[index - 1];
            if let NodeKind::Text(t) = &mut self.nodes[prev].kind {
                t.push_str(text);
                return Ok(());
            }
        }
        let node = self.create(NodeKind::Text(text.to_owned()));
        self.nodes[parent].children.insert(index, node);
        self.nodes[node].parent = Some(parent);
        Ok(())
    }

    /// Moves all children of `from` to the end of `to`, in order.
    pub fn move_children(&mut self, from: NodeId, to: NodeId) -> Result<(), String> {
        if self.is_inclusive_ancestor(from, to) && from != to {
            // Allowed by the DOM only if `to` is not among the moved subtrees.
            for &c in &self.nodes[from].children {
                if self.is_inclusive_ancestor(c, to) {
                    return Err(format!("move children of {from} into their own descendant {to}"));
                }
            }
        }
        let children = std::mem::take(&mut self.nodes[from].children);
        for c in children {
            self.nodes[c].parent = Some(to);
            self.nodes[to].children.push(c);
        }
        Ok(())
    }

    /// Adds each attribute whose name the element lacks.
    pub fn add_missing_attributes(&mut self, element: NodeId, new: &[Attr]) -> Result<(), String> {
        match &mut self.nodes[element].kind {
            NodeKind::Element { attrs, .. } => {
                for a in new {
                    if !attrs.iter().any(|b| b.ns == a.ns && b.name == a.name) {
                        attrs.push(a.clone());
                    }
                }
                Ok(())
            }
            other => Err(format!("attributes added to a non-element {other:?}")),
        }
    }

    /// html5lib's dump of the children of `root` (the document, or the `html` root of a
    /// fragment), lines joined by `\n`.
    pub fn dump(&self, root: NodeId) -> String {
        let mut out = String::new();
        for &c in &self.nodes[root].children {
            self.dump_node(c, 0, &mut out);
        }
        if out.ends_with('\n') {
            out.pop();
        }
        out
    }

    fn line(out: &mut String, depth: usize, text: &str) {
        out.push_str("| ");
        for _ in 0..depth {
            out.push_str("  ");
        }
        out.push_str(text);
        out.push('\n');
    }

    fn dump_node(&self, node: NodeId, depth: usize, out: &mut String) {
        match &self.nodes[node].kind {
            NodeKind::Document | NodeKind::TemplateContents => {
                Self::line(out, depth, "#unexpected container#");
            }
            NodeKind::Doctype { name, public_id, system_id } => {
                if public_id.is_empty() && system_id.is_empty() {
                    Self::line(out, depth, &format!("<!DOCTYPE {name}>"));
                } else {
                    Self::line(out, depth, &format!("<!DOCTYPE {name} \"{public_id}\" \"{system_id}\">"));
                }
            }
            NodeKind::Element { ns, name, attrs, contents } => {
                let prefix = match ns {
                    Ns::Html => "",
                    Ns::Svg => "svg ",
                    Ns::MathMl => "math ",
                };
                Self::line(out, depth, &format!("<{prefix}{name}>"));
                let mut sorted: Vec<(String, &str)> = attrs.iter().map(|a| (a.dump_name(), a.value.as_str())).collect();
                // "sorted lexicographically by UTF-16 code unit"
                sorted.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
                for (n, v) in sorted {
                    Self::line(out, depth + 1, &format!("{n}=\"{v}\""));
                }
                if let Some(c) = contents {
                    Self::line(out, depth + 1, "content");
                    for &child in &self.nodes[*c].children {
                        self.dump_node(child, depth + 2, out);
                    }
                }
                for &child in &self.nodes[node].children {
                    self.dump_node(child, depth + 1, out);
                }
            }
            NodeKind::Text(t) => Self::line(out, depth, &format!("\"{t}\"")),
            NodeKind::Comment(c) => Self::line(out, depth, &format!("<!-- {c} -->")),
            NodeKind::ProcessingInstruction { target, data } => {
                if data.is_empty() {
                    Self::line(out, depth, &format!("<?{target}?>"));
                } else {
                    Self::line(out, depth, &format!("<?{target} {data}?>"));
                }
            }
        }
    }
}
