//! # htrewrite-rules
//!
//! Rules: what to do to which elements, from a TOML file or from
//! command-line flags, compiled once and turned into [`Settings`] for each
//! document. One model for every front end: the `htrewrite` command
//! (`--rules`, and its action flags; re-exported there as
//! `htrewrite_cli::rules`) and servers built on htrewrite (the
//! reverse-proxy example, the proxy-wasm filter). It depends only on `htrewrite`, `htrewrite-selectors`, `toml`
//! and `serde`, so it builds wherever the core does (`wasm32-wasip1`
//! included).
//!
//! ```
//! use htrewrite_rules::RuleSet;
//! let rules = RuleSet::from_toml_str(r#"
//! version = 1
//! [[rule]]
//! selector = "img"
//! action = "set-attr"
//! name = "loading"
//! value = "lazy"
//! "#)?;
//! let out = htrewrite::rewrite_str("<img src=a>", rules.settings())?;
//! assert_eq!(out, r#"<img src=a loading="lazy">"#);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The rules file (version 1)
//! ```toml
//! version = 1                       # required
//! inject-head = "<script src=/x.js></script>"  # optional: HTML appended at the end of <head>
//!
//! [namespaces]                      # optional: prefixes for type selectors,
//! s = "http://www.w3.org/2000/svg"  # as CSS's @namespace (`s|rect`)
//!
//! [[rule]]
//! selector = "img:not([loading])"   # a CSS selector
//! action = "set-attr"               # see below
//! name = "loading"                  # attribute name (set-attr, remove-attr)
//! value = "lazy"                    # the value, tag name or content
//!
//! [[rule]]
//! selector = "script[src*='tracker']"
//! action = "remove"
//! ```
//!
//! | action | fields | effect |
//! |---|---|---|
//! | `set-attr` | `name`, `value` | sets the attribute (added if missing) |
//! | `remove-attr` | `name` | removes the attribute |
//! | `rename` | `value` | renames the element (start and end tag) |
//! | `remove` | | removes the element and its content |
//! | `unwrap` | | removes the element's tags, keeps its content |
//! | `before`, `after`, `prepend`, `append` | `value` | inserts HTML around / inside the element |
//! | `replace` | `value` | replaces the element with HTML |
//! | `set-inner` | `value` | replaces the element's content with HTML |
//! | `before-text`, `after-text`, `prepend-text`, `append-text`, `replace-text` | `value` | as above, with plain text escaped for where it lands |
//! | `set-text` | `value` | replaces the element's content with plain text |
//!
//! Rules apply in file order: on one element, an earlier rule's edit is seen
//! by a later one (a later `set-attr` of the same attribute wins).
//! `inject-head` (a top-level key, so written before the first table) is
//! one more rule after all of them, [`Rule::inject_head`]: an `append` of its
//! HTML on `head`, the CDN's "add a script to every page" (the
//! reverse-proxy example's `--inject-head` is the same rule).
//! Attribute and rename actions skip elements the parser made without a
//! start tag (an implied `<body>` has no tag to edit).

#![forbid(unsafe_code)]

use std::error::Error;
use std::fmt;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use htrewrite::{ContentType, EditError, Element, HandlerKind, Selectors, Sendable, Settings};
use serde::Deserialize;
use toml::Spanned;

/// The rules-file version this build reads.
pub const VERSION: i64 = 1;

/// Content to insert, and how it is meant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Content {
    /// The content as given.
    pub value: String,
    /// Markup ([`ContentType::Html`]) or plain text ([`ContentType::Text`], escaped for its context).
    pub ty: ContentType,
}

/// What a rule does to each matched element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Sets attribute `name` to `value`.
    SetAttr {
        /// The attribute name.
        name: String,
        /// The value (plain text; escaped for its quotes).
        value: String,
    },
    /// Removes attribute `name`.
    RemoveAttr {
        /// The attribute name.
        name: String,
    },
    /// Renames the element.
    Rename {
        /// The new tag name.
        tag: String,
    },
    /// Removes the element with its content.
    Remove,
    /// Removes the element's tags, keeping its content.
    Unwrap,
    /// Inserts content before the element.
    Before(Content),
    /// Inserts content after the element.
    After(Content),
    /// Inserts content at the start of the element's content.
    Prepend(Content),
    /// Inserts content at the end of the element's content.
    Append(Content),
    /// Replaces the element.
    Replace(Content),
    /// Replaces the element's content (`set-inner`, or `set-text` with text).
    SetInner(Content),
}

/// Every action name, as rules files and flags (`--NAME`) spell them.
pub const ACTION_NAMES: &[&str] = &[
    "set-attr",
    "remove-attr",
    "rename",
    "remove",
    "unwrap",
    "before",
    "after",
    "prepend",
    "append",
    "replace",
    "set-inner",
    "before-text",
    "after-text",
    "prepend-text",
    "append-text",
    "replace-text",
    "set-text",
];

impl Action {
    /// Builds an action from its name (one of [`ACTION_NAMES`]) and fields:
    /// `name` is the attribute name of `set-attr`/`remove-attr`, `value` the
    /// value, tag name or content.
    ///
    /// # Errors
    /// A message naming the unknown action, the missing field, or the field
    /// the action does not take.
    ///
    /// # Example
    /// ```
    /// use htrewrite_rules::Action;
    /// let a = Action::from_parts("rename", None, Some("section"))?;
    /// assert_eq!(a, Action::Rename { tag: "section".into() });
    /// assert!(Action::from_parts("rename", None, None).is_err());
    /// # Ok::<(), String>(())
    /// ```
    pub fn from_parts(action: &str, name: Option<&str>, value: Option<&str>) -> Result<Action, String> {
        let need_value = || value.map(str::to_string).ok_or_else(|| format!("action `{action}` needs a `value`"));
        let need_name = || name.map(str::to_string).ok_or_else(|| format!("action `{action}` needs a `name`"));
        let html = |v: String| Content { value: v, ty: ContentType::Html };
        let text = |v: String| Content { value: v, ty: ContentType::Text };
        let takes_name = matches!(action, "set-attr" | "remove-attr");
        let takes_value = !matches!(action, "remove-attr" | "remove" | "unwrap");
        if name.is_some() && !takes_name && ACTION_NAMES.contains(&action) {
            return Err(format!("action `{action}` takes no `name`"));
        }
        if value.is_some() && !takes_value {
            return Err(format!("action `{action}` takes no `value`"));
        }
        Ok(match action {
            "set-attr" => Action::SetAttr { name: need_name()?, value: need_value()? },
            "remove-attr" => Action::RemoveAttr { name: need_name()? },
            "rename" => Action::Rename { tag: need_value()? },
            "remove" => Action::Remove,
            "unwrap" => Action::Unwrap,
            "before" => Action::Before(html(need_value()?)),
            "after" => Action::After(html(need_value()?)),
            "prepend" => Action::Prepend(html(need_value()?)),
            "append" => Action::Append(html(need_value()?)),
            "replace" => Action::Replace(html(need_value()?)),
            "set-inner" => Action::SetInner(html(need_value()?)),
            "before-text" => Action::Before(text(need_value()?)),
            "after-text" => Action::After(text(need_value()?)),
            "prepend-text" => Action::Prepend(text(need_value()?)),
            "append-text" => Action::Append(text(need_value()?)),
            "replace-text" => Action::Replace(text(need_value()?)),
            "set-text" => Action::SetInner(text(need_value()?)),
            other => {
                return Err(format!("unknown action `{other}` (expected one of: {})", ACTION_NAMES.join(", ")));
            }
        })
    }

    /// The action's name (as in [`ACTION_NAMES`]).
    pub fn name(&self) -> &'static str {
        let text = |c: &Content| c.ty == ContentType::Text;
        match self {
            Action::SetAttr { .. } => "set-attr",
            Action::RemoveAttr { .. } => "remove-attr",
            Action::Rename { .. } => "rename",
            Action::Remove => "remove",
            Action::Unwrap => "unwrap",
            Action::Before(c) if text(c) => "before-text",
            Action::Before(_) => "before",
            Action::After(c) if text(c) => "after-text",
            Action::After(_) => "after",
            Action::Prepend(c) if text(c) => "prepend-text",
            Action::Prepend(_) => "prepend",
            Action::Append(c) if text(c) => "append-text",
            Action::Append(_) => "append",
            Action::Replace(c) if text(c) => "replace-text",
            Action::Replace(_) => "replace",
            Action::SetInner(c) if text(c) => "set-text",
            Action::SetInner(_) => "set-inner",
        }
    }

    /// Applies the action to one element. Attribute and rename actions do
    /// nothing on elements without a start tag.
    ///
    /// # Errors
    /// The [`EditError`] of a refused edit (e.g. text that would end a `<script>`).
    pub fn apply<K: HandlerKind>(&self, el: &mut Element<'_, '_, K>) -> Result<(), EditError> {
        match self {
            _ if self.edits_start_tag() && !el.has_start_tag() => Ok(()),
            Action::SetAttr { name, value } => el.set_attribute(name, value),
            Action::RemoveAttr { name } => el.remove_attribute(name),
            Action::Rename { tag } => el.set_tag_name(tag),
            Action::Remove => {
                el.remove();
                Ok(())
            }
            Action::Unwrap => {
                el.remove_and_keep_content();
                Ok(())
            }
            Action::Before(c) => el.before(&c.value, c.ty),
            Action::After(c) => el.after(&c.value, c.ty),
            Action::Prepend(c) => el.prepend(&c.value, c.ty),
            Action::Append(c) => el.append(&c.value, c.ty),
            Action::Replace(c) => el.replace(&c.value, c.ty),
            Action::SetInner(c) => el.set_inner_content(&c.value, c.ty),
        }
    }

    /// Whether the action edits the start tag (its attributes or name): an
    /// element the parser implied has none, so the action leaves it alone
    /// (counted in [`MatchCounts::skipped`]).
    pub fn edits_start_tag(&self) -> bool {
        matches!(self, Action::SetAttr { .. } | Action::RemoveAttr { .. } | Action::Rename { .. })
    }

    /// Checks names the library would refuse at the first match (an invalid
    /// attribute or tag name), so a bad rule fails before any input is read.
    fn validate(&self) -> Result<(), String> {
        let probe = |f: &dyn Fn(&mut Element<'_, '_>) -> Result<(), EditError>| -> Result<(), String> {
            let mut failure = None;
            let settings = Settings::new().element("x", |el| {
                failure = f(el).err();
                Ok(())
            });
            htrewrite::rewrite_str("<x>", settings).map_err(|e| e.to_string())?;
            failure.map_or(Ok(()), |e| Err(e.to_string()))
        };
        match self {
            Action::SetAttr { name, .. } => probe(&|el| el.set_attribute(name, "")),
            Action::Rename { tag } => probe(&|el| el.set_tag_name(tag)),
            _ => Ok(()),
        }
    }
}

/// Where a rule came from, for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A rules file: the 1-based line and column of the rule's `selector`.
    File {
        /// The file as the user named it, once known (`None` for text
        /// parsed with [`RuleSet::from_toml_str`]; see [`RuleSet::in_file`]).
        file: Option<String>,
        /// Line (1-based).
        line: usize,
        /// Column (1-based, in characters).
        column: usize,
    },
    /// A command-line flag (e.g. `--set-attr`), the `index`-th action given (0-based).
    Flag {
        /// The flag as typed, e.g. `--set-attr`.
        flag: String,
        /// Position among the actions.
        index: usize,
    },
    /// Built in code.
    Code,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::File { file: None, line, column } => write!(f, "line {line}, column {column}"),
            Origin::File { file: Some(file), line, column } => write!(f, "{file}, line {line}, column {column}"),
            Origin::Flag { flag, .. } => write!(f, "{flag}"),
            Origin::Code => f.write_str("rule"),
        }
    }
}

/// One rule: a selector and an action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// The CSS selector.
    pub selector: String,
    /// What to do to each matched element.
    pub action: Action,
    /// Where the rule came from.
    pub origin: Origin,
}

impl Rule {
    /// The head injection: `html` appended at the end of `<head>` (an `append` rule on
    /// `head`), as a rules file's `inject-head` key and the reverse proxy's `--inject-head` give
    /// it. The `head` element exists in every document (the parser implies it), so the HTML is
    /// inserted once per page, before `</head>` or where the parser ends the head.
    ///
    /// # Example
    /// ```
    /// use htrewrite_rules::{Origin, Rule, RuleSet};
    /// let set = RuleSet::new(vec![Rule::inject_head("<script src=/x.js></script>", Origin::Code)])?;
    /// let out = htrewrite::rewrite_str("<title>t</title><p>x", set.settings())?;
    /// assert_eq!(out, "<title>t</title><script src=/x.js></script><p>x");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn inject_head(html: &str, origin: Origin) -> Rule {
        let action = Action::Append(Content { value: html.to_owned(), ty: ContentType::Html });
        Rule { selector: "head".to_owned(), action, origin }
    }
}

/// The kind of a [`RulesError`], to match on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RulesErrorKind {
    /// Not valid TOML, or a field of the wrong type or unknown.
    Syntax,
    /// `version` missing or not one this build reads.
    Version,
    /// An unknown action, a missing or superfluous field, an invalid name.
    Action,
    /// A selector that does not parse or is not supported.
    Selector,
}

/// Why rules were refused, with the place (line and column in a rules
/// file, or the flag) when known.
///
/// `Display` is a lowercase fragment: `line 4, column 12: invalid selector "p[": …`.
#[derive(Debug)]
pub struct RulesError {
    kind: RulesErrorKind,
    message: String,
    origin: Option<Origin>,
    selector: Option<String>,
    source: Option<Box<dyn Error + Send + Sync>>,
}

impl RulesError {
    fn new(kind: RulesErrorKind, message: impl Into<String>, origin: Option<Origin>) -> RulesError {
        RulesError { kind, message: message.into(), origin, selector: None, source: None }
    }

    /// The kind of failure.
    pub fn kind(&self) -> RulesErrorKind {
        self.kind
    }
    /// The 1-based line in the rules file, when the error is in one.
    pub fn line(&self) -> Option<usize> {
        match self.origin {
            Some(Origin::File { line, .. }) => Some(line),
            _ => None,
        }
    }
    /// The 1-based column in the rules file, when the error is in one.
    pub fn column(&self) -> Option<usize> {
        match self.origin {
            Some(Origin::File { column, .. }) => Some(column),
            _ => None,
        }
    }
    /// Where the offending rule came from.
    pub fn origin(&self) -> Option<&Origin> {
        self.origin.as_ref()
    }
    /// The offending selector, for [`RulesErrorKind::Selector`].
    pub fn selector(&self) -> Option<&str> {
        self.selector.as_deref()
    }
}

impl fmt::Display for RulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.origin {
            Some(o @ Origin::Flag { .. }) => write!(f, "{o}: {}", self.message),
            Some(o @ Origin::File { .. }) => write!(f, "{o}: {}", self.message),
            Some(Origin::Code) | None => f.write_str(&self.message),
        }
    }
}

impl Error for RulesError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn Error + 'static))
    }
}

/// Elements matched per rule, shared with the handlers that count them.
///
/// # Example
/// ```
/// use htrewrite_rules::{MatchCounts, RuleSet};
/// let rules = RuleSet::from_toml_str("version = 1\n[[rule]]\nselector = \"p\"\naction = \"remove\"\n")?;
/// let counts = MatchCounts::new(rules.rules().len());
/// htrewrite::rewrite_str("<p>a<p>b", rules.settings_counting(&counts))?;
/// assert_eq!(counts.get(0), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct MatchCounts {
    matched: Arc<[AtomicU64]>,
    skipped: Arc<[AtomicU64]>,
}

impl MatchCounts {
    /// Zeroed counters for `n` rules.
    pub fn new(n: usize) -> MatchCounts {
        let zeros = || (0..n).map(|_| AtomicU64::new(0)).collect();
        MatchCounts { matched: zeros(), skipped: zeros() }
    }
    /// Elements matched by rule `i` so far.
    pub fn get(&self, i: usize) -> u64 {
        self.matched.get(i).map_or(0, |c| c.load(Ordering::Relaxed))
    }
    /// Of those, elements rule `i` left unchanged because it edits the start
    /// tag ([`Action::edits_start_tag`]) and the parser implied the element
    /// (`--set-attr body class b` on `<p>x`: the `body` has no tag to edit).
    ///
    /// # Example
    /// ```
    /// use htrewrite_rules::{MatchCounts, RuleSet};
    /// let rules = RuleSet::from_toml_str(
    ///     "version = 1\n[[rule]]\nselector = \"body\"\naction = \"set-attr\"\nname = \"class\"\nvalue = \"b\"\n",
    /// )?;
    /// let counts = MatchCounts::new(1);
    /// assert_eq!(htrewrite::rewrite_str("<p>x", rules.settings_counting(&counts))?, "<p>x");
    /// assert_eq!((counts.get(0), counts.skipped(0)), (1, 1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn skipped(&self, i: usize) -> u64 {
        self.skipped.get(i).map_or(0, |c| c.load(Ordering::Relaxed))
    }
    fn bump(counters: &[AtomicU64], i: usize) {
        if let Some(c) = counters.get(i) {
            c.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// A checked list of rules with its selectors compiled once: build
/// [`Settings`] for each document with [`RuleSet::settings`].
///
/// `RuleSet` is `Send + Sync` and cheap to share behind an `Arc`.
#[derive(Debug, Clone)]
pub struct RuleSet {
    /// Shared with the handlers of every [`RuleSet::settings`] (built per document, so
    /// per request in a server: each handler holds this and its index, nothing copied).
    rules: Arc<[Rule]>,
    /// The selector string each rule registers under (see `keys`).
    keys: Vec<String>,
    selectors: Selectors,
}

/// The rules file as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    version: Option<Spanned<i64>>,
    /// HTML appended at the end of `<head>`, after every rule ([`Rule::inject_head`]).
    #[serde(rename = "inject-head")]
    inject_head: Option<Spanned<String>>,
    /// Namespace prefixes the selectors use (`s = "http://www.w3.org/2000/svg"`).
    #[serde(default)]
    namespaces: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    rule: Vec<Spanned<RawRule>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    selector: Spanned<String>,
    action: Spanned<String>,
    name: Option<Spanned<String>>,
    value: Option<Spanned<String>>,
}

/// The 1-based line and column (in characters) of byte `at` of `text`.
fn line_column(text: &str, at: usize) -> Origin {
    LineStarts::new(text).origin(text, at)
}

/// Resolves the namespace prefixes of `selector`'s type selectors against `declared`
/// (`(prefix, URL)` pairs, the last declaration of a prefix winning), as a stylesheet's
/// `@namespace` rules do: a prefix not declared is an error (issue 20, item 16: `svg|a` is
/// not valid CSS without a declaration). A declared prefix becomes the selectors crate's
/// predefined one for its URL (`s` for the SVG namespace: `svg`), and a URL no element of an
/// HTML document has becomes "no namespace" (`|a`, which matches nothing). Selectors without
/// prefixes come back as written; ones that do not parse too (their compilation reports them).
///
/// # Errors
/// The message naming the undeclared prefix and how to declare it.
///
/// # Example
/// ```
/// use htrewrite_rules::declare_prefixes;
/// let svg = [("s".to_owned(), "http://www.w3.org/2000/svg".to_owned())];
/// assert_eq!(declare_prefixes("s|rect > a", &svg).unwrap(), "svg|rect > a");
/// assert_eq!(declare_prefixes("p.x", &[]).unwrap(), "p.x");
/// assert!(declare_prefixes("svg|a", &[]).unwrap_err().contains("undeclared namespace prefix svg"));
/// ```
pub fn declare_prefixes(selector: &str, declared: &[(String, String)]) -> Result<String, String> {
    use htrewrite_selectors::{NamespacePrefix, Namespaces, SelectorList};
    let Ok(mut list) = SelectorList::parse(selector) else { return Ok(selector.to_owned()) };
    let mut undeclared: Option<String> = None;
    let mut changed = false;
    list.for_each_type_prefix_mut(&mut |p| {
        let NamespacePrefix::Named(name) = p else { return };
        match declared.iter().rev().find(|(d, _)| d == name) {
            Some((_, url)) => {
                *p = match Namespaces::predefined_prefix(url) {
                    Some(prefix) => NamespacePrefix::Named(prefix.to_owned()),
                    None => NamespacePrefix::None,
                };
                changed = true;
            }
            None => {
                undeclared.get_or_insert_with(|| name.clone());
            }
        }
    });
    if let Some(name) = undeclared {
        let url = Namespaces::predefined_url(&name).unwrap_or("URL");
        return Err(format!(
            "invalid selector {selector:?}: undeclared namespace prefix {name} (declare it: --namespace \
             {name}={url} on the command line, `[namespaces]` {name} = \"{url}\" in a rules file)"
        ));
    }
    Ok(if changed { list.to_string() } else { selector.to_owned() })
}

/// Where each line of a text starts, so that the origin of every rule of a file costs a binary
/// search instead of a scan from the start (which made 10,000 rules take 3 s).
struct LineStarts(Vec<usize>);

impl LineStarts {
    fn new(text: &str) -> LineStarts {
        LineStarts(std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect())
    }

    /// The line and column (in characters, both from 1) of byte offset `at`.
    fn origin(&self, text: &str, at: usize) -> Origin {
        let at = at.min(text.len());
        let at = (0..=at).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        let line = self.0.partition_point(|&start| start <= at);
        let line_start = self.0[line - 1];
        Origin::File { file: None, line, column: text[line_start..at].chars().count() + 1 }
    }
}

impl RuleSet {
    /// Checks `rules` (actions' names, selectors) and compiles the selectors.
    ///
    /// # Errors
    /// [`RulesErrorKind::Action`] for an invalid attribute or tag name,
    /// [`RulesErrorKind::Selector`] naming the first selector that does not
    /// parse; each with the rule's [`Origin`].
    pub fn new(rules: Vec<Rule>) -> Result<RuleSet, RulesError> {
        // The first rule with an invalid action, if any (reported unless an earlier rule's
        // selector fails).
        let bad_action = rules.iter().enumerate().find_map(|(i, rule)| {
            rule.action
                .validate()
                .err()
                .map(|m| (i, RulesError::new(RulesErrorKind::Action, m, Some(rule.origin.clone()))))
        });
        let keys = registration_keys(&rules);
        // Each distinct key once: a repeated entry would run its group's handlers twice.
        // Selectors equal once parsed (a selector and its repeats' keys) compile once.
        let mut seen = std::collections::HashSet::with_capacity(keys.len());
        let distinct: Vec<&String> = keys.iter().filter(|key| seen.insert(key.as_str())).collect();
        let compiled = Selectors::new(distinct);
        // On a failure, the first rule whose selector fails alone, with its origin (each
        // rule's selector is compiled on its own only here, on the way to an error).
        let bad_selector = match &compiled {
            Ok(_) => None,
            Err(_) => rules.iter().enumerate().find_map(|(i, rule)| {
                let e = Selectors::new([rule.selector.as_str()]).err()?;
                let mut err = RulesError::new(
                    RulesErrorKind::Selector,
                    format!("invalid selector {:?}: {}", rule.selector, selector_reason(&e)),
                    Some(rule.origin.clone()),
                );
                err.selector = Some(rule.selector.clone());
                err.source = Some(Box::new(e));
                Some((i, err))
            }),
        };
        match (bad_action, bad_selector) {
            (Some((a, e)), Some((s, _))) if a < s => return Err(e),
            (_, Some((_, e))) | (Some((_, e)), None) => return Err(e),
            (None, None) => {}
        }
        let selectors = compiled.map_err(|e| {
            RulesError::new(RulesErrorKind::Selector, format!("selectors do not compile together: {e}"), None)
        })?;
        Ok(RuleSet { rules: rules.into(), keys, selectors })
    }

    /// Reads a rules file (see the [module docs](self) for the format).
    ///
    /// # Errors
    /// [`RulesErrorKind::Syntax`] for invalid TOML or unknown fields,
    /// [`RulesErrorKind::Version`], [`RulesErrorKind::Action`],
    /// [`RulesErrorKind::Selector`]; each with its line and column.
    ///
    /// # Example
    /// ```
    /// use htrewrite_rules::{RuleSet, RulesErrorKind};
    /// let err = RuleSet::from_toml_str("version = 1\n\n[[rule]]\nselector = \"p[\"\naction = \"remove\"\n").unwrap_err();
    /// assert_eq!(err.kind(), RulesErrorKind::Selector);
    /// assert_eq!(err.line(), Some(4));
    /// assert!(err.to_string().starts_with("line 4, column 12: invalid selector \"p[\""));
    /// ```
    pub fn from_toml_str(text: &str) -> Result<RuleSet, RulesError> {
        let raw: RawFile = toml::from_str(text).map_err(|e| {
            let origin = e.span().map(|s| line_column(text, s.start));
            let mut err = RulesError::new(RulesErrorKind::Syntax, e.message().trim_end().to_string(), origin);
            err.source = Some(Box::new(e));
            err
        })?;
        match &raw.version {
            None => {
                return Err(RulesError::new(
                    RulesErrorKind::Version,
                    format!("missing `version = {VERSION}` at the top of the rules file"),
                    Some(Origin::File { file: None, line: 1, column: 1 }),
                ));
            }
            Some(v) if *v.get_ref() != VERSION => {
                return Err(RulesError::new(
                    RulesErrorKind::Version,
                    format!("rules version {} is not supported (this build reads version {VERSION})", v.get_ref()),
                    Some(line_column(text, v.span().start)),
                ));
            }
            Some(_) => {}
        }
        let lines = LineStarts::new(text);
        let namespaces: Vec<(String, String)> = raw.namespaces.clone().into_iter().collect();
        let at = |span: Range<usize>| lines.origin(text, span.start);
        let mut rules = Vec::with_capacity(raw.rule.len());
        for r in &raw.rule {
            let r = r.get_ref();
            let action = Action::from_parts(
                r.action.get_ref(),
                r.name.as_ref().map(|n| n.get_ref().as_str()),
                r.value.as_ref().map(|v| v.get_ref().as_str()),
            )
            .map_err(|m| RulesError::new(RulesErrorKind::Action, m, Some(at(r.action.span()))))?;
            let origin = at(r.selector.span());
            // Name checks point at the field they concern.
            let field = match &action {
                Action::SetAttr { .. } => r.name.as_ref().map(Spanned::span),
                Action::Rename { .. } => r.value.as_ref().map(Spanned::span),
                _ => None,
            };
            action
                .validate()
                .map_err(|m| RulesError::new(RulesErrorKind::Action, m, Some(at(field.unwrap_or(r.action.span())))))?;
            let selector = declare_prefixes(r.selector.get_ref(), &namespaces)
                .map_err(|m| RulesError::new(RulesErrorKind::Selector, m, Some(origin.clone())))?;
            rules.push(Rule { selector, action, origin });
        }
        if let Some(html) = &raw.inject_head {
            rules.push(Rule::inject_head(html.get_ref(), at(html.span())));
        }
        RuleSet::new(rules)
    }

    /// The same rules with `file` in the origin of each that came from a
    /// rules file (for `--stats` and messages when several files are used).
    ///
    /// # Example
    /// ```
    /// use htrewrite_rules::RuleSet;
    /// let set = RuleSet::from_toml_str("version = 1\n[[rule]]\nselector = \"p\"\naction = \"remove\"\n").unwrap();
    /// let set = set.in_file("site.toml");
    /// assert_eq!(set.rules()[0].origin.to_string(), "site.toml, line 3, column 12");
    /// ```
    pub fn in_file(mut self, file: &str) -> RuleSet {
        let mut rules = self.rules.to_vec();
        for rule in &mut rules {
            if let Origin::File { file: f, .. } = &mut rule.origin {
                *f = Some(file.to_owned());
            }
        }
        self.rules = rules.into();
        self
    }

    /// The rules, in order.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The compiled selectors (cheap to clone), to pass to
    /// [`Settings::with_selectors`] when adding handlers of your own.
    pub fn selectors(&self) -> Selectors {
        self.selectors.clone()
    }

    /// Settings with one element handler per rule, reusing the compiled
    /// selectors. Chain options (encoding, memory limit, …) on the result.
    /// A refused edit fails the rewrite with a handler error naming the rule.
    pub fn settings(&self) -> Settings<'static, Sendable> {
        self.build(None)
    }

    /// As [`RuleSet::settings`], counting the elements each rule matches in `counts`.
    pub fn settings_counting(&self, counts: &MatchCounts) -> Settings<'static, Sendable> {
        self.build(Some(counts.clone()))
    }

    fn build(&self, counts: Option<MatchCounts>) -> Settings<'static, Sendable> {
        let mut settings = Settings::new_send().with_selectors(&self.selectors);
        for (i, key) in self.keys.iter().enumerate() {
            let rules = Arc::clone(&self.rules);
            let counts = counts.clone();
            settings = settings.element(key, move |el| {
                let rule = &rules[i];
                if let Some(c) = &counts {
                    MatchCounts::bump(&c.matched, i);
                    if rule.action.edits_start_tag() && !el.has_start_tag() {
                        MatchCounts::bump(&c.skipped, i);
                    }
                }
                rule.action
                    .apply(el)
                    .map_err(|e| format!("{} {:?} ({}): {e}", rule.action.name(), rule.selector, rule.origin).into())
            });
        }
        settings
    }
}

/// The string each rule registers its handler under. The rewriter groups
/// handlers by selector string and runs groups in order of first
/// registration; to keep rule order exact when a selector repeats after
/// other rules, the k-th such repeat gets its own string: the selector
/// after a comment `/*k*/`, which matches the same elements (a comment
/// before the selector cannot join anything in it). Linear in the rules:
/// before, repeats were wrapped in one more `:is(…)` each, so 500 repeats
/// nested 500 deep (quadratic text, and past the parser's nesting limit).
fn registration_keys(rules: &[Rule]) -> Vec<String> {
    let mut keys: Vec<String> = Vec::with_capacity(rules.len());
    // Every string registered or written by a user: a generated key is none of them.
    let mut taken: std::collections::HashSet<String> = rules.iter().map(|r| r.selector.clone()).collect();
    // Per selector: the last repeat number it used.
    let mut repeats: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut first = std::collections::HashSet::new();
    for (i, rule) in rules.iter().enumerate() {
        let key = if i > 0 && rules[i - 1].selector == rule.selector {
            keys[i - 1].clone()
        } else if first.insert(rule.selector.as_str()) {
            rule.selector.clone()
        } else {
            let k = repeats.entry(rule.selector.as_str()).or_insert(0);
            loop {
                *k += 1;
                let key = format!("/*{k}*/{}", rule.selector);
                if taken.insert(key.clone()) {
                    break key;
                }
            }
        };
        keys.push(key);
    }
    keys
}

/// The selector error without the library's "invalid selector …:" prefix.
fn selector_reason(e: &htrewrite::RewritingError) -> String {
    match e {
        htrewrite::RewritingError::Selector { error, .. } => error.to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(body: &str) -> Result<RuleSet, RulesError> {
        RuleSet::from_toml_str(&format!("version = 1\n{body}"))
    }

    fn run(rules: &RuleSet, html: &str) -> String {
        htrewrite::rewrite_str(html, rules.settings()).unwrap()
    }

    #[test]
    fn every_action_from_a_file() {
        let cases: &[(&str, &str, &str)] = &[
            ("action = \"set-attr\"\nname = \"class\"\nvalue = \"a&b\"", "<p class=x>t</p>", "<p class=a&amp;b>t</p>"),
            ("action = \"remove-attr\"\nname = \"class\"", "<p id=i class=x>t</p>", "<p id=i>t</p>"),
            ("action = \"rename\"\nvalue = \"div\"", "<p>t</p>", "<div>t</div>"),
            ("action = \"remove\"", "a<p>t</p>b", "ab"),
            ("action = \"unwrap\"", "a<p>t</p>b", "atb"),
            ("action = \"before\"\nvalue = \"<hr>\"", "<p>t</p>", "<hr><p>t</p>"),
            ("action = \"after\"\nvalue = \"<hr>\"", "<p>t</p>", "<p>t</p><hr>"),
            ("action = \"prepend\"\nvalue = \"<b>\"", "<p>t</p>", "<p><b>t</p>"),
            ("action = \"append\"\nvalue = \"<b>\"", "<p>t</p>", "<p>t<b></p>"),
            ("action = \"replace\"\nvalue = \"<i>x</i>\"", "<p>t</p>", "<i>x</i>"),
            ("action = \"set-inner\"\nvalue = \"<i>x</i>\"", "<p>t</p>", "<p><i>x</i></p>"),
            ("action = \"before-text\"\nvalue = \"<&>\"", "<p>t</p>", "&lt;&amp;&gt;<p>t</p>"),
            ("action = \"after-text\"\nvalue = \"<\"", "<p>t</p>", "<p>t</p>&lt;"),
            ("action = \"prepend-text\"\nvalue = \"<\"", "<p>t</p>", "<p>&lt;t</p>"),
            ("action = \"append-text\"\nvalue = \"<\"", "<p>t</p>", "<p>t&lt;</p>"),
            ("action = \"replace-text\"\nvalue = \"<\"", "<p>t</p>", "&lt;"),
            ("action = \"set-text\"\nvalue = \"<b>\"", "<p>t</p>", "<p>&lt;b&gt;</p>"),
        ];
        for (body, input, expected) in cases {
            let set = rules(&format!("[[rule]]\nselector = \"p\"\n{body}\n")).unwrap_or_else(|e| panic!("{body}: {e}"));
            assert_eq!(run(&set, input), *expected, "{body}");
            let name = set.rules()[0].action.name();
            assert!(body.contains(&format!("\"{name}\"")), "{name} round-trips");
        }
    }

    #[test]
    fn rules_apply_in_order_even_across_selectors() {
        let set = rules(
            "[[rule]]\nselector = \"p\"\naction = \"set-attr\"\nname = \"a\"\nvalue = \"1\"\n\
             [[rule]]\nselector = \".c\"\naction = \"set-attr\"\nname = \"a\"\nvalue = \"2\"\n\
             [[rule]]\nselector = \"p\"\naction = \"set-attr\"\nname = \"a\"\nvalue = \"3\"\n",
        )
        .unwrap();
        assert_eq!(run(&set, "<p class=c>"), "<p class=c a=\"3\">");
    }

    /// Issue 20, item 5: a selector repeated after other rules 3,000 times (`--set-attr p aN 1
    /// --remove-attr b x` alternating) registers 3,000 flat keys (before: nested `:is(…)`, 3,000
    /// deep), the rules apply in order, and a user's selector that looks like a generated key does
    /// not join a repeat's group.
    #[test]
    fn repeated_selectors_stay_flat_and_ordered() {
        let mut body = String::new();
        for i in 0..3_000 {
            body.push_str(&format!(
                "[[rule]]\nselector = \"p\"\naction = \"set-attr\"\nname = \"a{i}\"\nvalue = \"1\"\n"
            ));
            body.push_str("[[rule]]\nselector = \"b\"\naction = \"remove-attr\"\nname = \"x\"\n");
        }
        let set = rules(&body).unwrap();
        let longest = set.keys.iter().map(String::len).max().unwrap();
        assert!(longest <= "/*2999*/p".len(), "a key of {longest} bytes");
        assert!(set.keys.iter().all(|k| !k.contains(":is(")));
        assert_eq!(set.selectors().compiled_len(), 2, "a selector and its repeats compile once");
        let out = run(&set, "<p><b x=1>");
        let attrs: String = (0..3_000).map(|i| format!(" a{i}=\"1\"")).collect();
        assert_eq!(out, format!("<p{attrs}><b>"));

        let set = rules(
            "[[rule]]\nselector = \"p\"\naction = \"set-attr\"\nname = \"a\"\nvalue = \"1\"\n\
             [[rule]]\nselector = \"/*1*/p\"\naction = \"set-attr\"\nname = \"a\"\nvalue = \"2\"\n\
             [[rule]]\nselector = \".c\"\naction = \"set-attr\"\nname = \"a\"\nvalue = \"3\"\n\
             [[rule]]\nselector = \"p\"\naction = \"set-attr\"\nname = \"a\"\nvalue = \"4\"\n",
        )
        .unwrap();
        assert_eq!(run(&set, "<p class=c>"), "<p class=c a=\"4\">");
    }

    #[test]
    fn errors_carry_line_and_column() {
        let e = rules("[[rule]]\nselector = \"p\"\naction = \"explode\"\n").unwrap_err();
        assert_eq!((e.kind(), e.line(), e.column()), (RulesErrorKind::Action, Some(4), Some(10)));
        assert!(e.to_string().contains("unknown action `explode`"), "{e}");

        let e = rules("[[rule]]\nselector = \"p\"\naction = \"set-attr\"\nvalue = \"x\"\n").unwrap_err();
        assert_eq!(e.line(), Some(4));
        assert!(e.to_string().contains("needs a `name`"), "{e}");

        let e = rules("[[rule]]\nselector = \"p\"\naction = \"remove\"\ncolour = \"x\"\n").unwrap_err();
        assert_eq!((e.kind(), e.line()), (RulesErrorKind::Syntax, Some(5)));

        let e = rules("[[rule]]\nselector = \"p\"\naction = \"rename\"\nvalue = \"1x\"\n").unwrap_err();
        assert_eq!((e.kind(), e.line()), (RulesErrorKind::Action, Some(5)));

        let e = rules("[[rule]\n").unwrap_err();
        assert_eq!((e.kind(), e.line()), (RulesErrorKind::Syntax, Some(2)));

        let e = RuleSet::from_toml_str("version = 2\n").unwrap_err();
        assert_eq!((e.kind(), e.line()), (RulesErrorKind::Version, Some(1)));
        let e = RuleSet::from_toml_str("[[rule]]\nselector = \"p\"\naction = \"remove\"\n").unwrap_err();
        assert_eq!(e.kind(), RulesErrorKind::Version);

        let e = rules("\n[[rule]]\nselector = \"a >\"\naction = \"remove\"\n").unwrap_err();
        assert_eq!((e.kind(), e.line(), e.selector()), (RulesErrorKind::Selector, Some(4), Some("a >")));
    }

    #[test]
    fn a_selector_shared_by_adjacent_rules_runs_each_rule_once() {
        let set = rules(
            "[[rule]]\nselector = \"p\"\naction = \"append\"\nvalue = \"u\"\n\
             [[rule]]\nselector = \"p\"\naction = \"set-attr\"\nname = \"a\"\nvalue = \"b\"\n",
        )
        .unwrap();
        assert_eq!(run(&set, "<p>x</p>"), "<p a=\"b\">xu</p>");
    }

    #[test]
    fn inject_head_is_an_append_on_head_after_every_rule() {
        let set = RuleSet::from_toml_str(
            "version = 1\ninject-head = \"<script src=/x.js></script>\"\n\
             [[rule]]\nselector = \"head\"\naction = \"append\"\nvalue = \"<meta name=a>\"\n",
        )
        .unwrap();
        assert_eq!(set.rules().len(), 2);
        assert_eq!(set.rules()[1].origin, Origin::File { file: None, line: 2, column: 15 });
        let out = run(&set, "<html><head><title>t</title></head><body>b");
        assert_eq!(out, "<html><head><title>t</title><meta name=a><script src=/x.js></script></head><body>b");
        // Implied head: inserted where the parser ends it.
        assert_eq!(run(&set, "<p>x"), "<meta name=a><script src=/x.js></script><p>x");
        let e = RuleSet::from_toml_str("version = 1\ninject-head = 3\n").unwrap_err();
        assert_eq!((e.kind(), e.line()), (RulesErrorKind::Syntax, Some(2)));
    }

    #[test]
    fn implied_elements_skip_tag_edits() {
        let set = rules("[[rule]]\nselector = \"body\"\naction = \"set-attr\"\nname = \"x\"\nvalue = \"1\"\n").unwrap();
        assert_eq!(run(&set, "<p>a"), "<p>a");
        assert_eq!(run(&set, "<body>a"), "<body x=\"1\">a");
    }

    #[test]
    fn counts_matches_per_rule() {
        let set =
            rules("[[rule]]\nselector = \"p\"\naction = \"remove\"\n[[rule]]\nselector = \"i\"\naction = \"unwrap\"\n")
                .unwrap();
        let counts = MatchCounts::new(2);
        htrewrite::rewrite_str("<p>a<p>b</p><i>c</i>", set.settings_counting(&counts)).unwrap();
        assert_eq!((counts.get(0), counts.get(1)), (2, 1));
    }

    #[test]
    fn refused_edit_names_the_rule() {
        let set = rules("[[rule]]\nselector = \"script\"\naction = \"append-text\"\nvalue = \"</script>\"\n").unwrap();
        let err = htrewrite::rewrite_str("<script></script>", set.settings()).unwrap_err();
        assert!(err.to_string().contains("append-text \"script\" (line 3, column 12)"), "{err}");
    }

    #[test]
    fn rule_set_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<RuleSet>();
    }
}
