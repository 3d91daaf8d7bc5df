//! Data-driven rewriting cases (`tests/data/cases/*.toml`): one named,
//! filterable test per case, `FILE::NAME`, each run whole, split at every
//! byte and in three seeded random splittings (the seed is printed on
//! failure), and each of those both as users run it and with
//! [`Settings::full_pipeline`]: the copy once nothing can observe the rest
//! of the document must not change a byte (`copy.toml` holds the cases
//! made for it).
//!
//! A case is `{name, input, selector, action, value, content_type,
//! expected}` with optional `attribute` (for attribute actions),
//! `expected_error` (the [`EditErrorKind`] an edit is refused with: the
//! handler records it and goes on, so `expected` is the document without
//! that edit), `settings` (`encoding`, `fragment`, `whole_text_nodes`,
//! `scripting`), `rewriting_error` (the rewrite fails with this
//! [`RewritingError`](htrewrite::RewritingError) variant, and the output
//! written before the failure is a prefix of `expected`: write the whole
//! input without the refused edit) and `issue`. The actions are listed in [`install`]. Content
//! type is `"html"` (the default) or `"text"`. With `settings.encoding`, the
//! input, the value and the expected output are written as UTF-8 in the file
//! and encoded into that encoding before the run.

use crate::common;

use std::cell::RefCell;
use std::path::Path;

use htrewrite::{CloseCause, ContentType, EditError, HandlerResult, Settings};
use libtest_mimic::{Failed, Trial};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    case: Vec<Case>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    input: String,
    #[serde(default)]
    selector: String,
    action: String,
    #[serde(default)]
    attribute: String,
    #[serde(default)]
    value: String,
    #[serde(default)]
    content_type: Option<String>,
    expected: String,
    #[serde(default)]
    expected_error: Option<String>,
    #[serde(default)]
    rewriting_error: Option<String>,
    #[serde(default)]
    settings: CaseSettings,
    /// The issue a regression case comes from.
    #[serde(default)]
    #[allow(dead_code)]
    issue: Option<u32>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseSettings {
    encoding: Option<String>,
    fragment: Option<String>,
    whole_text_nodes: Option<usize>,
    scripting: Option<bool>,
}

pub(crate) fn trials() -> Vec<Trial> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cases");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/data/cases")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    let mut trials = Vec::new();
    let mut names = std::collections::HashSet::new();
    for path in files {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).expect("case file");
        let file: File = toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for case in file.case {
            let name = format!("{stem}::{}", case.name);
            assert!(names.insert(name.clone()), "duplicate case name {name}");
            let trial_name = name.clone();
            trials.push(Trial::test(name, move || run(&trial_name, &case).map_err(Failed::from)));
        }
    }
    trials
}

fn run(name: &str, case: &Case) -> Result<(), String> {
    let encoding = match &case.settings.encoding {
        Some(label) => encoding_rs::Encoding::for_label(label.as_bytes()).ok_or("unknown encoding label")?,
        None => encoding_rs::UTF_8,
    };
    let encode = |s: &str| encoding.encode(s).0.into_owned();
    let input = encode(&case.input);
    let expected = encode(&case.expected);
    common::each_chunking(name, |chunking| {
        for full in [false, true] {
            run_once(case, &input, &expected, chunking, full)
                .map_err(|e| if full { format!("with Settings::full_pipeline: {e}") } else { e })?;
        }
        Ok(())
    })
}

/// One run of `case` under `chunking`; with `full`, [`Settings::full_pipeline`].
fn run_once(case: &Case, input: &[u8], expected: &[u8], chunking: common::Chunking, full: bool) -> Result<(), String> {
    {
        let errors = RefCell::new(Vec::new());
        let settings = settings(case, &errors)?.full_pipeline(full);
        let outcome = common::rewrite(settings, input, chunking);
        match (outcome.error, &case.rewriting_error) {
            (None, None) => {}
            (Some(e), None) => return Err(format!("rewriting failed: {e}")),
            (None, Some(want)) => return Err(format!("the rewrite did not fail with {want}")),
            (Some(e), Some(want)) => {
                let got = format!("{e:?}");
                if !got.starts_with(&format!("{want}(")) && !got.starts_with(&format!("{want} ")) {
                    return Err(format!("rewriting failed with {got}, want {want}"));
                }
                if !expected.starts_with(&outcome.output) {
                    return Err(format!(
                        "output before the failure is not a prefix of the expected output\n  got:      {}\n  expected: {}",
                        common::show(&outcome.output),
                        common::show(expected)
                    ));
                }
                return Ok(());
            }
        }
        let errors = errors.into_inner();
        let want: Vec<String> = case.expected_error.iter().cloned().collect();
        if errors.iter().take(1).ne(want.iter()) {
            return Err(format!("edit errors: got {errors:?}, want {want:?}"));
        }
        if outcome.output != expected {
            return Err(format!(
                "\n  input:    {}\n  got:      {}\n  expected: {}",
                common::show(input),
                common::show(&outcome.output),
                common::show(expected)
            ));
        }
        Ok(())
    }
}

fn settings<'h>(case: &'h Case, errors: &'h RefCell<Vec<String>>) -> Result<Settings<'h>, String> {
    let mut s = Settings::new();
    let c = &case.settings;
    if let Some(label) = &c.encoding {
        s = s.encoding(label).map_err(|e| e.to_string())?;
    }
    if let Some(f) = &c.fragment {
        s = s.fragment(f);
    }
    if let Some(n) = c.whole_text_nodes {
        s = s.whole_text_nodes(n);
    }
    if let Some(on) = c.scripting {
        s = s.scripting(on);
    }
    install(s, case, errors)
}

/// Records a refused edit; the handler goes on.
fn record(errors: &RefCell<Vec<String>>, r: Result<(), EditError>) -> HandlerResult {
    if let Err(e) = r {
        errors.borrow_mut().push(format!("{:?}", e.kind()));
    }
    Ok(())
}

/// `[name=value …|value]`: an element's attributes as `Element::attributes`
/// lists them, then `Element::get_attribute(attr)` (`-` when absent).
fn read_attributes(el: &htrewrite::Element<'_, '_>, attr: &str) -> String {
    let listed: Vec<String> = el.attributes().iter().map(|a| format!("{}={}", a.name, a.value)).collect();
    format!("[{}|{}]", listed.join(" "), el.get_attribute(attr).as_deref().unwrap_or("-"))
}

/// Registers the handler for the case's action.
///
/// Element actions (selector): `set_attribute`, `remove_attribute`
/// (`attribute`, `value`), `set_attribute_twice` (then again, the name
/// lowercased, to `value!`), `set_then_remove_attribute` (removed by the
/// lowercased name), `remove_then_set_attribute`, `set_then_read_attributes`
/// and `remove_then_read_attributes` (the edit, then `[name=value …|attribute?]`
/// as text before the element: `attributes()`, then `get_attribute` of the
/// attribute, `-` when absent), `set_tag_name`, `before`, `after`, `prepend`,
/// `append`, `replace`, `set_inner_content`, `remove`,
/// `remove_and_keep_content`, `describe` (inserts `[name flags attrs]` as
/// text before the element). End actions (`element_end` on the selector):
/// `end_before`, `end_after`, `end_remove_end_tag`, `end_set_tag_name`,
/// `end_describe` (`[tag]`, `[implied]` or `[eof]` before the end). Text
/// actions (on the selector, document-wide when it is empty): `text_wrap`
/// (`[` before a node's first chunk, `]` after its last), `text_remove`,
/// `text_upper` (each chunk replaced by its decoded text uppercased, as
/// text), `text_replace`, `text_describe` (`[mode]` after the last chunk).
/// Comment actions (likewise): `comment_set_text`, `comment_remove`,
/// `comment_replace`, `comment_before`, `comment_after`, `comment_describe`.
/// Document-wide: `doctype_remove`, `doctype_replace`, `doctype_describe`,
/// `pi_remove`, `pi_replace`, `pi_describe`, `end_append`.
fn install<'h>(s: Settings<'h>, case: &'h Case, errors: &'h RefCell<Vec<String>>) -> Result<Settings<'h>, String> {
    let ty = match case.content_type.as_deref() {
        None | Some("html") => ContentType::Html,
        Some("text") => ContentType::Text,
        Some(other) => return Err(format!("unknown content_type {other:?}")),
    };
    let sel = case.selector.as_str();
    let (attr, value) = (case.attribute.as_str(), case.value.as_str());
    let rec = move |r| record(errors, r);
    let s = match case.action.as_str() {
        "set_attribute" => s.element(sel, move |el| rec(el.set_attribute(attr, value))),
        "remove_attribute" => s.element(sel, move |el| rec(el.remove_attribute(attr))),
        "set_attribute_twice" => s.element(sel, move |el| {
            rec(el.set_attribute(attr, value))?;
            rec(el.set_attribute(&attr.to_ascii_lowercase(), &format!("{value}!")))
        }),
        "set_then_remove_attribute" => s.element(sel, move |el| {
            rec(el.set_attribute(attr, value))?;
            rec(el.remove_attribute(&attr.to_ascii_lowercase()))
        }),
        "remove_then_set_attribute" => s.element(sel, move |el| {
            rec(el.remove_attribute(attr))?;
            rec(el.set_attribute(attr, value))
        }),
        "set_then_read_attributes" => s.element(sel, move |el| {
            rec(el.set_attribute(attr, value))?;
            rec(el.before(&read_attributes(el, attr), ContentType::Text))
        }),
        "remove_then_read_attributes" => s.element(sel, move |el| {
            rec(el.remove_attribute(attr))?;
            rec(el.before(&read_attributes(el, attr), ContentType::Text))
        }),
        "set_tag_name" => s.element(sel, move |el| rec(el.set_tag_name(value))),
        "before" => s.element(sel, move |el| rec(el.before(value, ty))),
        "after" => s.element(sel, move |el| rec(el.after(value, ty))),
        "prepend" => s.element(sel, move |el| rec(el.prepend(value, ty))),
        "append" => s.element(sel, move |el| rec(el.append(value, ty))),
        "replace" => s.element(sel, move |el| rec(el.replace(value, ty))),
        "set_inner_content" => s.element(sel, move |el| rec(el.set_inner_content(value, ty))),
        "remove" => s.element(sel, |el| {
            el.remove();
            Ok(())
        }),
        "remove_and_keep_content" => s.element(sel, |el| {
            el.remove_and_keep_content();
            Ok(())
        }),
        "describe" => s.element(sel, move |el| {
            let mut d = format!("[{}", el.tag_name());
            if !el.has_start_tag() {
                d.push_str(" nostart");
            }
            if !el.can_have_content() {
                d.push_str(" empty");
            }
            for a in el.attributes() {
                d.push_str(&format!(" {}={}", a.name, a.value));
            }
            d.push(']');
            rec(el.before(&d, ContentType::Text))
        }),
        "end_before" => s.element_end(sel, move |end| rec(end.before(value, ty))),
        "end_after" => s.element_end(sel, move |end| rec(end.after(value, ty))),
        "end_remove_end_tag" => s.element_end(sel, |end| {
            end.remove_end_tag();
            Ok(())
        }),
        "end_set_tag_name" => s.element_end(sel, move |end| rec(end.set_end_tag_name(value))),
        "end_describe" => s.element_end(sel, move |end| {
            let d = match (end.has_end_tag(), end.cause()) {
                (true, _) => "[tag]",
                (false, CloseCause::Eof) => "[eof]",
                (false, _) => "[implied]",
            };
            rec(end.before(d, ContentType::Text))
        }),
        a if a.starts_with("text_") => text_action(s, case, ty, errors)?,
        a if a.starts_with("comment_") => comment_action(s, case, ty, errors)?,
        "doctype_remove" => s.doctype(|d| {
            d.remove();
            Ok(())
        }),
        "doctype_replace" => s.doctype(move |d| rec(d.replace(value, ty))),
        "doctype_describe" => s.doctype(move |d| {
            let raw = String::from_utf8_lossy(d.raw()).into_owned();
            let desc = format!("[{:?} {:?} {:?} {}]", d.name(), d.public_id(), d.system_id(), d.force_quirks());
            rec(d.replace(&(desc + &raw), ContentType::Html))
        }),
        "pi_remove" => s.processing_instructions(|p| {
            p.remove();
            Ok(())
        }),
        "pi_replace" => s.processing_instructions(move |p| rec(p.replace(value, ty))),
        "pi_describe" => s.processing_instructions(move |p| {
            let d = format!("[{}|{}]", p.target(), p.data());
            rec(p.before(&d, ContentType::Text))
        }),
        "end_append" => s.end(move |end| rec(end.append(value, ty))),
        other => return Err(format!("unknown action {other:?}")),
    };
    Ok(s)
}

fn text_action<'h>(
    s: Settings<'h>,
    case: &'h Case,
    ty: ContentType,
    errors: &'h RefCell<Vec<String>>,
) -> Result<Settings<'h>, String> {
    let value = case.value.as_str();
    let rec = move |r| record(errors, r);
    // Whether the next chunk starts a text node.
    let mut first = true;
    let f: Box<dyn FnMut(&mut htrewrite::TextChunk<'_>) -> htrewrite::HandlerResult + 'h> = match case.action.as_str() {
        "text_wrap" => Box::new(move |t| {
            if first {
                rec(t.before("[", ContentType::Text))?;
            }
            first = t.last_in_text_node();
            if first {
                rec(t.after("]", ContentType::Text))?;
            }
            Ok(())
        }),
        "text_remove" => Box::new(|t| {
            t.remove();
            Ok(())
        }),
        // Removes the chunks with an `x` only: what one chunk's handlers did
        // must not reach the next.
        "text_remove_x" => Box::new(|t| {
            if t.as_str().contains('x') {
                t.remove();
            }
            Ok(())
        }),
        "text_upper" => Box::new(move |t| {
            let upper = t.as_str().to_uppercase();
            rec(t.replace(&upper, ContentType::Text))
        }),
        "text_replace" => Box::new(move |t| rec(t.replace(value, ty))),
        // Issue 21: `set_text` (lol_html's `set_str`) and what handlers read after it.
        "text_set_upper" => Box::new(move |t| {
            let upper = t.as_str().to_uppercase();
            rec(t.set_text(&upper))
        }),
        "text_set" => Box::new(move |t| rec(t.set_text(value))),
        "text_set_then_read" => Box::new(move |t| {
            rec(t.set_text(value))?;
            let read = format!("[{}|removed {}]", t.as_str(), t.removed());
            rec(t.after(&read, ContentType::Text))
        }),
        "text_set_keeps_before_after" => Box::new(move |t| {
            rec(t.before("(", ContentType::Text))?;
            rec(t.after(")", ContentType::Text))?;
            rec(t.set_text(value))
        }),
        "text_set_twice" => Box::new(move |t| {
            rec(t.set_text("first"))?;
            rec(t.set_text(value))
        }),
        "text_remove_then_set" => Box::new(move |t| {
            t.remove();
            rec(t.set_text(value))
        }),
        "text_set_then_replace" => Box::new(move |t| {
            rec(t.set_text("set"))?;
            rec(t.replace(value, ty))
        }),
        "text_describe" => Box::new(move |t| {
            if t.last_in_text_node() {
                rec(t.after(&format!("[{:?}]", t.text_mode()), ContentType::Text))?;
            }
            Ok(())
        }),
        other => return Err(format!("unknown action {other:?}")),
    };
    Ok(if case.selector.is_empty() { s.doc_text(f) } else { s.text(&case.selector, f) })
}

fn comment_action<'h>(
    s: Settings<'h>,
    case: &'h Case,
    ty: ContentType,
    errors: &'h RefCell<Vec<String>>,
) -> Result<Settings<'h>, String> {
    let value = case.value.as_str();
    let rec = move |r| record(errors, r);
    let f: Box<dyn FnMut(&mut htrewrite::Comment<'_>) -> htrewrite::HandlerResult + 'h> = match case.action.as_str() {
        "comment_set_text" => Box::new(move |c| rec(c.set_text(value))),
        "comment_remove" => Box::new(|c| {
            c.remove();
            Ok(())
        }),
        "comment_replace" => Box::new(move |c| rec(c.replace(value, ty))),
        "comment_before" => Box::new(move |c| rec(c.before(value, ty))),
        "comment_after" => Box::new(move |c| rec(c.after(value, ty))),
        "comment_describe" => Box::new(move |c| {
            let d = format!("[{:?}|{}]", c.kind(), c.text());
            rec(c.before(&d, ContentType::Text))
        }),
        other => return Err(format!("unknown action {other:?}")),
    };
    Ok(if case.selector.is_empty() { s.doc_comments(f) } else { s.comments(&case.selector, f) })
}
