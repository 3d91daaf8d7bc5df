//! Applies the shadow's events, literally, to the test-only [`Dom`].

use std::collections::HashMap;

use htrewrite_shadow::{AttrNamespace, Namespace, NodeId, Origin, OwnedEvent, Position, ShadowAttr};

use crate::common::dom::{Attr, AttrNs, Dom, NodeKind, Ns, Place};

/// A DOM rebuilt from events, with the map from the shadow's ids to arena nodes.
#[derive(Debug)]
pub struct Tree {
    /// The document.
    pub dom: Dom,
    ids: HashMap<NodeId, usize>,
    /// The root `html` element of a fragment.
    pub fragment_root: Option<usize>,
    /// Events that could not be applied (unknown ids, impossible moves), with their index.
    pub errors: Vec<String>,
}

fn attrs(attrs: &[ShadowAttr]) -> Vec<Attr> {
    attrs
        .iter()
        .map(|a| Attr {
            ns: match a.namespace {
                AttrNamespace::None => AttrNs::None,
                AttrNamespace::XLink => AttrNs::XLink,
                AttrNamespace::Xml => AttrNs::Xml,
                AttrNamespace::Xmlns => AttrNs::Xmlns,
            },
            name: a.name.clone(),
            value: a.value.clone(),
        })
        .collect()
}

impl Tree {
    /// Applies all `events` to an empty document.
    pub fn build(events: &[OwnedEvent]) -> Tree {
        let mut tree = Tree { dom: Dom::new(), ids: HashMap::new(), fragment_root: None, errors: Vec::new() };
        tree.ids.insert(NodeId::DOCUMENT, Dom::DOCUMENT);
        for (i, e) in events.iter().enumerate() {
            if let Err(msg) = tree.apply(e) {
                tree.errors.push(format!("event #{i} {e:?}: {msg}"));
            }
        }
        tree
    }

    fn node(&self, id: NodeId) -> Result<usize, String> {
        self.ids.get(&id).copied().ok_or_else(|| format!("unknown node {id:?}"))
    }

    fn place(&self, position: Position) -> Result<Option<Place>, String> {
        Ok(Some(match position {
            Position::Append { parent } => Place::Append(self.node(parent)?),
            Position::InsertBefore { parent, before } => {
                let parent = self.node(parent)?;
                let before = self.node(before)?;
                let actual = self.dom.nodes[before].parent;
                let expected = match &self.dom.nodes[parent].kind {
                    NodeKind::Element { contents: Some(c), .. } => *c,
                    _ => parent,
                };
                if actual != Some(expected) {
                    return Err(format!(
                        "insert before node {before}, whose parent is {actual:?}, not {parent} as the event says"
                    ));
                }
                Place::Before(before)
            }
            Position::AppendToTemplateContents { template } => Place::TemplateContents(self.node(template)?),
            Position::Detached => return Ok(None),
        }))
    }

    fn apply(&mut self, e: &OwnedEvent) -> Result<(), String> {
        match e {
            OwnedEvent::Doctype { name, public_id, system_id, .. } => {
                let node = self.dom.create(NodeKind::Doctype {
                    name: name.clone().unwrap_or_default(),
                    public_id: public_id.clone().unwrap_or_default(),
                    system_id: system_id.clone().unwrap_or_default(),
                });
                self.dom.insert(node, Place::Append(Dom::DOCUMENT))
            }
            OwnedEvent::ElementOpened { id, name, ns, attrs: a, origin, position, .. } => {
                if self.ids.contains_key(id) {
                    return Err(format!("node {id:?} opened twice"));
                }
                let ns = match ns {
                    Namespace::Html => Ns::Html,
                    Namespace::Svg => Ns::Svg,
                    Namespace::MathMl => Ns::MathMl,
                };
                let node =
                    self.dom.create(NodeKind::Element { ns, name: name.clone(), attrs: attrs(a), contents: None });
                self.ids.insert(*id, node);
                if *origin == Origin::FragmentRoot {
                    self.fragment_root = Some(node);
                }
                match self.place(*position)? {
                    Some(place) => self.dom.insert(node, place),
                    None => Ok(()),
                }
            }
            OwnedEvent::ElementClosed { id, .. } => self.node(*id).map(|_| ()),
            OwnedEvent::Text { position, text } => match self.place(*position)? {
                Some(place) => self.dom.insert_text(text, place),
                None => Err("text inserted nowhere".into()),
            },
            OwnedEvent::Comment { position, data } => {
                let node = self.dom.create(NodeKind::Comment(data.clone()));
                match self.place(*position)? {
                    Some(place) => self.dom.insert(node, place),
                    None => Err("comment inserted nowhere".into()),
                }
            }
            OwnedEvent::ProcessingInstruction { position, target, data } => {
                let node =
                    self.dom.create(NodeKind::ProcessingInstruction { target: target.clone(), data: data.clone() });
                match self.place(*position)? {
                    Some(place) => self.dom.insert(node, place),
                    None => Err("processing instruction inserted nowhere".into()),
                }
            }
            OwnedEvent::NodeMoved { id, to } => {
                let node = self.node(*id)?;
                match self.place(*to)? {
                    Some(place) => self.dom.insert(node, place),
                    None => Err("node moved nowhere".into()),
                }
            }
            OwnedEvent::ChildrenMoved { from, to } => {
                let (from, to) = (self.node(*from)?, self.node(*to)?);
                self.dom.move_children(from, to)
            }
            OwnedEvent::NodeRemoved { id } => {
                let node = self.node(*id)?;
                self.dom.remove(node);
                Ok(())
            }
            OwnedEvent::SelectedContentCloned { option, selectedcontent } => {
                let (option, target) = (self.node(*option)?, self.node(*selectedcontent)?);
                self.dom.replace_children_with_clones(option, target)
            }
            OwnedEvent::AttributesAdded { id, attrs: a } => {
                let node = self.node(*id)?;
                self.dom.add_missing_attributes(node, &attrs(a))
            }
            OwnedEvent::Ignored { .. } => Ok(()),
        }
    }

    /// html5lib's dump: of the document, or of the fragment root's children.
    pub fn dump(&self, fragment: bool) -> Result<String, String> {
        if fragment {
            let root = self.fragment_root.ok_or("no element with Origin::FragmentRoot")?;
            Ok(self.dom.dump(root))
        } else {
            Ok(self.dom.dump(Dom::DOCUMENT))
        }
    }
}
