//! Reads an html5lib tree dump back into a [`Dom`], for the harness's self-check: every expected
//! `#document` must survive `undump` → [`Dom::dump`] unchanged, which pins the dump format
//! (attribute order, namespaces, DOCTYPE, template contents, processing instructions).

use crate::common::dom::{Attr, AttrNs, Dom, NodeKind, Ns, Place};

/// One logical line of a dump: depth and content (multi-line text, comments and attribute
/// values joined back with `\n`).
fn entries(dump: &str) -> Result<Vec<(usize, String)>, String> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut open = false; // inside a multi-line "text", attribute value or comment
    for line in dump.split('\n') {
        if open {
            let (_, content) = out.last_mut().expect("an open entry");
            content.push('\n');
            content.push_str(line);
            open = !closes(content);
            continue;
        }
        let rest = line.strip_prefix("| ").ok_or_else(|| format!("line without `| `: {line:?}"))?;
        let depth = rest.bytes().take_while(|&b| b == b' ').count();
        if depth % 2 != 0 {
            return Err(format!("odd indentation: {line:?}"));
        }
        let content = rest[depth..].to_owned();
        open = !closes(&content);
        out.push((depth / 2, content));
    }
    if open {
        return Err("unterminated entry at the end".into());
    }
    Ok(out)
}

fn closes(content: &str) -> bool {
    if content.starts_with("<!-- ") {
        content.ends_with(" -->")
    } else if content.starts_with('"') {
        content.len() >= 2 && content.ends_with('"')
    } else if content.starts_with("<?") {
        content.ends_with("?>")
    } else if content.starts_with('<') && content.ends_with('>') || content == "content" {
        true
    } else {
        content.ends_with('"') // an attribute (its name may start with `<`)
    }
}

/// Parses a dump whose top-level nodes become children of the document.
pub fn undump(dump: &str) -> Result<Dom, String> {
    let mut dom = Dom::new();
    // parents[d] = the node that entries at depth d are appended to
    let mut parents: Vec<Place> = vec![Place::Append(Dom::DOCUMENT)];
    let mut last_element: Option<(usize, usize)> = None; // (depth, node) while attributes may follow
    for (depth, content) in entries(dump)? {
        if depth >= parents.len() {
            return Err(format!("entry too deep: {content:?}"));
        }
        parents.truncate(depth + 1);
        let place = parents[depth];
        if let Some((d, element)) = last_element
            && depth == d + 1
            && !content.starts_with('"')
            && content.ends_with('"')
            && let Some((name, value)) = content.split_once("=\"")
        {
            let (ns, local) = match name.split_once(' ') {
                Some(("xlink", l)) => (AttrNs::XLink, l),
                Some(("xml", l)) => (AttrNs::Xml, l),
                Some(("xmlns", l)) => (AttrNs::Xmlns, l),
                _ => (AttrNs::None, name),
            };
            let value = value.strip_suffix('"').ok_or("attribute value without closing quote")?;
            if let NodeKind::Element { attrs, .. } = &mut dom.nodes[element].kind {
                attrs.push(Attr { ns, name: local.to_owned(), value: value.to_owned() });
            }
            continue;
        }
        last_element = None;
        if content == "content" {
            let template = match place {
                Place::Append(p) => p,
                _ => return Err("content outside an element".into()),
            };
            dom.contents(template)?;
            parents.push(Place::TemplateContents(template));
            continue;
        }
        if let Some(text) = content.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
            dom.insert_text(text, place)?;
            continue;
        }
        let node = if let Some(c) = content.strip_prefix("<!-- ").and_then(|c| c.strip_suffix(" -->")) {
            dom.create(NodeKind::Comment(c.to_owned()))
        } else if let Some(d) = content.strip_prefix("<!DOCTYPE ").and_then(|d| d.strip_suffix('>')) {
            let (name, public_id, system_id) = match d.split_once(" \"") {
                Some((name, ids)) => {
                    let ids = ids.strip_suffix('"').ok_or("bad DOCTYPE ids")?;
                    let (p, s) = ids.split_once("\" \"").ok_or("bad DOCTYPE ids")?;
                    (name, p, s)
                }
                None => (d, "", ""),
            };
            dom.create(NodeKind::Doctype {
                name: name.to_owned(),
                public_id: public_id.to_owned(),
                system_id: system_id.to_owned(),
            })
        } else if let Some(pi) = content.strip_prefix("<?").and_then(|p| p.strip_suffix("?>")) {
            let (target, data) = pi.split_once(' ').unwrap_or((pi, ""));
            dom.create(NodeKind::ProcessingInstruction { target: target.to_owned(), data: data.to_owned() })
        } else if let Some(tag) = content.strip_prefix('<').and_then(|t| t.strip_suffix('>')) {
            let (ns, name) = match tag.split_once(' ') {
                Some(("svg", n)) => (Ns::Svg, n),
                Some(("math", n)) => (Ns::MathMl, n),
                _ => (Ns::Html, tag),
            };
            let node = dom.create(NodeKind::Element { ns, name: name.to_owned(), attrs: Vec::new(), contents: None });
            last_element = Some((depth, node));
            parents.push(Place::Append(node));
            node
        } else {
            return Err(format!("unknown entry {content:?}"));
        };
        dom.insert(node, place)?;
    }
    Ok(dom)
}
