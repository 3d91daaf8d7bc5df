//! The rewriter workloads of issue 8, each runnable by every engine that can
//! do it: htrewrite (the whole pipeline, with full tree construction),
//! lol_html 3.x, and html5ever (tokenizer alone; parse into an `RcDom`, edit,
//! serialize).
//!
//! The criterion `rewriter` bench, the `memory` bench and the `rewrite` binary
//! (callgrind) all run these functions, so they measure the same work.

use std::cell::{Cell, RefCell};
use std::io::Write;

use html5ever::tendril::stream::Utf8LossyDecoder;
use html5ever::tendril::{ByteTendril, StrTendril, TendrilSink};
use html5ever::tokenizer::{BufferQueue, Token as H5Token, TokenSink, TokenSinkResult, Tokenizer as H5Tokenizer};
use html5ever::{Attribute, QualName, local_name, ns};
use htrewrite::{ContentType, Rewriter, Selectors, Settings};
use markup5ever_rcdom::{Handle, Node, NodeData, RcDom, SerializableHandle};

/// The ten counting selectors of the `count10` workload.
pub const TEN: [&str; 10] = ["a", "div", "p", "span", "img", "li", "script", "meta", "link[rel]", "ul > li"];

/// The element appended to `<head>` by the `rewrite` workload.
pub const INJECTED: &str = "<script src=\"/injected.js\"></script>";

/// 1,000 selectors of the shapes real rule sets have (classes, ids,
/// attribute values, descendants), for the `select1000` workload.
pub fn thousand() -> Vec<String> {
    (0..1000)
        .map(|i| match i % 4 {
            0 => format!(".cls{i}"),
            1 => format!("#id{i}"),
            2 => format!("a[data-x=\"{i}\"]"),
            _ => format!("div.cls{i} p"),
        })
        .collect()
}

/// What a rewriter is asked to do with a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RewriteWorkload {
    /// No handlers: output equals input.
    Passthrough,
    /// CDN injection: [`INJECTED`] appended to `<head>`, nothing else.
    Cdn,
    /// `a[href]` read and set (`http:` → `https:`), and [`INJECTED`]
    /// appended to `<head>`.
    Rewrite,
    /// The ten selectors of [`TEN`], handlers that only count.
    Count10,
    /// A document-wide text handler that reads every text chunk.
    Text,
    /// The 1,000 selectors of [`thousand`], handlers that only count.
    Select1000,
}

impl RewriteWorkload {
    /// Every workload, in the order of the README tables.
    pub const ALL: [RewriteWorkload; 6] = [
        RewriteWorkload::Passthrough,
        RewriteWorkload::Cdn,
        RewriteWorkload::Rewrite,
        RewriteWorkload::Count10,
        RewriteWorkload::Text,
        RewriteWorkload::Select1000,
    ];

    /// The name used in benchmark ids and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            RewriteWorkload::Passthrough => "passthrough",
            RewriteWorkload::Cdn => "cdn",
            RewriteWorkload::Rewrite => "rewrite",
            RewriteWorkload::Count10 => "count10",
            RewriteWorkload::Text => "text",
            RewriteWorkload::Select1000 => "select1000",
        }
    }

    /// Parses [`RewriteWorkload::name`].
    pub fn from_name(name: &str) -> Option<RewriteWorkload> {
        RewriteWorkload::ALL.into_iter().find(|w| w.name() == name)
    }
}

/// [`RewriteWorkload::from_name`], for the command lines (clap reads it).
///
/// # Errors
/// A message naming the unknown workload.
impl std::str::FromStr for RewriteWorkload {
    type Err = String;
    fn from_str(name: &str) -> Result<RewriteWorkload, String> {
        RewriteWorkload::from_name(name).ok_or_else(|| format!("unknown workload {name:?}"))
    }
}

/// The selector lists, compiled once: htrewrite's `Selectors` are shared
/// between rewriters, as a proxy shares them between requests.
pub struct Prepared {
    /// The 1,000 selectors as text (lol_html compiles each handler's own).
    pub thousand_text: Vec<String>,
    /// [`TEN`], compiled.
    pub ten: Selectors,
    /// [`thousand`], compiled.
    pub thousand: Selectors,
}

impl Prepared {
    /// Compiles the selector lists.
    ///
    /// # Panics
    /// Never: the selectors are valid (a test checks it).
    pub fn new() -> Prepared {
        let thousand_text = thousand();
        Prepared {
            ten: Selectors::new(TEN).expect("valid selectors"),
            thousand: Selectors::new(&thousand_text).expect("valid selectors"),
            thousand_text,
        }
    }
}

impl Default for Prepared {
    fn default() -> Self {
        Prepared::new()
    }
}

/// An engine of the rewriter comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RewriteEngine {
    /// htrewrite's `Rewriter` (tokenizer → tree-building shadow → selectors → handlers).
    Htrewrite,
    /// htrewrite with [`Settings::full_pipeline`]: every byte parsed, without
    /// the copy once nothing can observe the rest (`passthrough` and `cdn`
    /// only; the other workloads never settle, so they run alike).
    HtrewriteFull,
    /// lol_html 3.x `HtmlRewriter`.
    LolHtml,
    /// html5ever's tokenizer alone, with a sink that reads every token (no tree, no output).
    Html5everTokenizer,
    /// html5ever `parse_document` into `markup5ever_rcdom::RcDom`, the workload's
    /// edits on the tree, then `html5ever::serialize` to a byte-counting writer.
    Html5everDom,
}

impl RewriteEngine {
    /// Every engine, in the order of the README tables.
    pub const ALL: [RewriteEngine; 5] = [
        RewriteEngine::Htrewrite,
        RewriteEngine::HtrewriteFull,
        RewriteEngine::LolHtml,
        RewriteEngine::Html5everTokenizer,
        RewriteEngine::Html5everDom,
    ];

    /// The name used in benchmark ids and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            RewriteEngine::Htrewrite => "htrewrite",
            RewriteEngine::HtrewriteFull => "htrewrite_full",
            RewriteEngine::LolHtml => "lol_html",
            RewriteEngine::Html5everTokenizer => "html5ever_tokenizer",
            RewriteEngine::Html5everDom => "html5ever_dom",
        }
    }

    /// Parses [`RewriteEngine::name`].
    pub fn from_name(name: &str) -> Option<RewriteEngine> {
        RewriteEngine::ALL.into_iter().find(|e| e.name() == name)
    }

    /// Whether this engine can do `w` meaningfully. html5ever has no selector
    /// engine, so it runs neither `count10` nor `select1000`; its tokenizer
    /// alone produces no output, so it stands in only where no tree is needed
    /// (`passthrough`: tokenizing is the floor of any rewrite; `text`: its
    /// character tokens are the text); its parse + serialize is the baseline
    /// of `passthrough` and `rewrite` (the edits done on the tree).
    pub fn supports(self, w: RewriteWorkload) -> bool {
        use RewriteWorkload as W;
        match self {
            RewriteEngine::Htrewrite | RewriteEngine::LolHtml => true,
            RewriteEngine::HtrewriteFull => matches!(w, W::Passthrough | W::Cdn),
            RewriteEngine::Html5everTokenizer => matches!(w, W::Passthrough | W::Text),
            RewriteEngine::Html5everDom => matches!(w, W::Passthrough | W::Cdn | W::Rewrite),
        }
    }

    /// Runs workload `w` over `doc` fed in chunks of `chunk` bytes; returns a
    /// checksum (output bytes plus handler counts).
    ///
    /// # Panics
    /// If `chunk` is 0, if the engine does not [support](Self::supports) `w`,
    /// or if an engine reports an error (none can on these workloads).
    pub fn run(self, w: RewriteWorkload, doc: &[u8], chunk: usize, p: &Prepared) -> u64 {
        assert!(self.supports(w), "{} does not run {}", self.name(), w.name());
        match self {
            RewriteEngine::Htrewrite => run_htrewrite(w, doc, chunk, p, false),
            RewriteEngine::HtrewriteFull => run_htrewrite(w, doc, chunk, p, true),
            RewriteEngine::LolHtml => run_lol_html(w, doc, chunk, p),
            RewriteEngine::Html5everTokenizer => html5ever_tokenize(doc, chunk),
            RewriteEngine::Html5everDom => html5ever_dom(w, doc, chunk),
        }
    }
}

/// [`RewriteEngine::from_name`], for the command lines (clap reads it).
///
/// # Errors
/// A message naming the unknown engine.
impl std::str::FromStr for RewriteEngine {
    type Err = String;
    fn from_str(name: &str) -> Result<RewriteEngine, String> {
        RewriteEngine::from_name(name).ok_or_else(|| format!("unknown engine {name:?}"))
    }
}

/// htrewrite's `Rewriter` on workload `w` (with `full`, [`Settings::full_pipeline`]).
fn run_htrewrite(w: RewriteWorkload, doc: &[u8], chunk: usize, p: &Prepared, full: bool) -> u64 {
    let count = Cell::new(0u64);
    let mut out = 0u64;
    {
        let settings = htrewrite_settings(w, p, full, &count);
        let mut rw = Rewriter::new(settings, |c: &[u8]| out += c.len() as u64).expect("valid selectors");
        for piece in doc.chunks(chunk) {
            rw.write(piece).expect("no failure");
        }
        let _sink = rw.end().expect("no failure");
    }
    out.wrapping_add(count.get())
}

/// The settings of workload `w` for htrewrite (with `full`,
/// [`Settings::full_pipeline`]); the counting handlers add to `count`.
pub fn htrewrite_settings<'h>(w: RewriteWorkload, p: &'h Prepared, full: bool, count: &'h Cell<u64>) -> Settings<'h> {
    let mut settings = Settings::new().full_pipeline(full);
    {
        match w {
            RewriteWorkload::Passthrough => {}
            RewriteWorkload::Cdn => {
                settings = settings.element("head", |el| {
                    el.append(INJECTED, ContentType::Html)?;
                    Ok(())
                });
            }
            RewriteWorkload::Rewrite => {
                settings = settings
                    .element("a[href]", |el| {
                        let href = el.get_attribute("href").unwrap_or_default();
                        el.set_attribute("href", &href.replace("http:", "https:"))?;
                        Ok(())
                    })
                    .element("head", |el| {
                        el.append(INJECTED, ContentType::Html)?;
                        Ok(())
                    });
            }
            RewriteWorkload::Count10 | RewriteWorkload::Select1000 => {
                let (compiled, list): (&Selectors, Vec<&str>) = if w == RewriteWorkload::Count10 {
                    (&p.ten, TEN.to_vec())
                } else {
                    (&p.thousand, p.thousand_text.iter().map(String::as_str).collect())
                };
                settings = settings.with_selectors(compiled);
                for s in list {
                    settings = settings.element(s, |_| {
                        count.set(count.get() + 1);
                        Ok(())
                    });
                }
            }
            RewriteWorkload::Text => {
                settings = settings.doc_text(|t| {
                    count.set(count.get() + t.as_str().len() as u64);
                    Ok(())
                });
            }
        }
    }
    settings
}

/// lol_html's `HtmlRewriter` on workload `w`.
fn run_lol_html(w: RewriteWorkload, doc: &[u8], chunk: usize, p: &Prepared) -> u64 {
    use lol_html::html_content::ContentType as LolContentType;
    use lol_html::{doc_text, element};
    let count = Cell::new(0u64);
    let mut out = 0u64;
    {
        let mut settings = lol_html::Settings::new();
        let counting: &[String] = match w {
            RewriteWorkload::Select1000 => &p.thousand_text,
            _ => &[],
        };
        let ten: &[&str] = if w == RewriteWorkload::Count10 { &TEN } else { &[] };
        for s in ten.iter().copied().chain(counting.iter().map(String::as_str)) {
            settings = settings.append_element_content_handler(element!(s, |_| {
                count.set(count.get() + 1);
                Ok(())
            }));
        }
        match w {
            RewriteWorkload::Cdn => {
                settings = settings.append_element_content_handler(element!("head", |el| {
                    el.append(INJECTED, LolContentType::Html);
                    Ok(())
                }));
            }
            RewriteWorkload::Rewrite => {
                settings = settings
                    .append_element_content_handler(element!("a[href]", |el| {
                        let href = el.get_attribute("href").unwrap_or_default();
                        el.set_attribute("href", &href.replace("http:", "https:"))?;
                        Ok(())
                    }))
                    .append_element_content_handler(element!("head", |el| {
                        el.append(INJECTED, LolContentType::Html);
                        Ok(())
                    }));
            }
            RewriteWorkload::Text => {
                settings = settings.append_document_content_handler(doc_text!(|t| {
                    count.set(count.get() + t.as_str().len() as u64);
                    Ok(())
                }));
            }
            RewriteWorkload::Passthrough | RewriteWorkload::Count10 | RewriteWorkload::Select1000 => {}
        }
        let mut rw = lol_html::HtmlRewriter::new(settings, |c: &[u8]| out += c.len() as u64);
        for piece in doc.chunks(chunk) {
            rw.write(piece).expect("no failure");
        }
        rw.end().expect("no failure");
    }
    out.wrapping_add(count.get())
}

/// A token sink for html5ever's tokenizer that reads every token: tag names,
/// attribute counts, comment and text lengths.
#[derive(Default)]
struct TokenCounter {
    sum: Cell<u64>,
}

impl TokenSink for TokenCounter {
    type Handle = ();

    fn process_token(&self, token: H5Token, _line: u64) -> TokenSinkResult<()> {
        let add = match token {
            H5Token::TagToken(tag) => tag.name.len() as u64 + tag.attrs.len() as u64,
            H5Token::CharacterTokens(text) | H5Token::CommentToken(text) => text.len() as u64,
            H5Token::DoctypeToken(_) | H5Token::NullCharacterToken => 1,
            H5Token::EOFToken | H5Token::ParseError(_) => 0,
        };
        self.sum.set(self.sum.get().wrapping_add(add));
        TokenSinkResult::Continue
    }
}

/// html5ever's tokenizer as a `TendrilSink`, so that `Utf8LossyDecoder` can
/// feed it bytes in chunks exactly as it feeds html5ever's parser.
struct TokenizerInput {
    tokenizer: H5Tokenizer<TokenCounter>,
    queue: BufferQueue,
}

impl TendrilSink<html5ever::tendril::fmt::UTF8> for TokenizerInput {
    fn process(&mut self, t: StrTendril) {
        self.queue.push_back(t);
        // The counter never asks for a script pause, so one feed drains the queue.
        let _ = self.tokenizer.feed(&self.queue);
    }

    fn error(&mut self, _desc: std::borrow::Cow<'static, str>) {}

    type Output = u64;

    fn finish(self) -> u64 {
        let _ = self.tokenizer.feed(&self.queue);
        self.tokenizer.end();
        self.tokenizer.sink.sum.get()
    }
}

/// html5ever's tokenizer alone over `doc` (decoded as UTF-8, lossily, in
/// chunks); returns a checksum of the tokens. Without its tree builder,
/// html5ever's tokenizer does not switch to the RAWTEXT and script data states
/// (the tree builder tells it to), so script and style contents are tokenized
/// as markup: the figure is html5ever's tokenizing speed, not a rewrite.
pub fn html5ever_tokenize(doc: &[u8], chunk: usize) -> u64 {
    let input = TokenizerInput {
        tokenizer: H5Tokenizer::new(TokenCounter::default(), Default::default()),
        queue: BufferQueue::default(),
    };
    let mut decoder = Utf8LossyDecoder::new(input);
    for piece in doc.chunks(chunk) {
        decoder.process(ByteTendril::from_slice(piece));
    }
    decoder.finish()
}

/// A `Write` that only counts bytes.
struct CountingWriter(u64);

impl Write for CountingWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// html5ever: parse `doc` into an `RcDom` (fed in chunks), the edits of
/// workload `w` (`cdn`, `rewrite`; none for `passthrough`) on the tree, then
/// serialize; returns the serialized byte count.
pub fn html5ever_dom(w: RewriteWorkload, doc: &[u8], chunk: usize) -> u64 {
    let mut parser = html5ever::parse_document(RcDom::default(), Default::default()).from_utf8();
    for piece in doc.chunks(chunk) {
        parser.process(ByteTendril::from_slice(piece));
    }
    let dom = parser.finish();
    match w {
        RewriteWorkload::Cdn => edit_tree(&dom.document, false),
        RewriteWorkload::Rewrite => edit_tree(&dom.document, true),
        _ => {}
    }
    let mut out = CountingWriter(0);
    let handle = SerializableHandle::from(dom.document.clone());
    html5ever::serialize(&mut out, &handle, Default::default()).expect("writing to a counter cannot fail");
    out.0
}

/// The `cdn` and `rewrite` workloads on an html5ever tree: with `links`
/// every `a[href]` has `http:` replaced by `https:`; a
/// `<script src="/injected.js">` is appended to every `head`.
fn edit_tree(root: &Handle, links: bool) {
    let mut stack = vec![root.clone()];
    while let Some(node) = stack.pop() {
        if let NodeData::Element { name, attrs, template_contents, .. } = &node.data {
            if links && name.ns == ns!(html) && name.local == local_name!("a") {
                for attr in attrs.borrow_mut().iter_mut() {
                    if attr.name.local == local_name!("href") && attr.name.ns == ns!() {
                        attr.value = StrTendril::from(attr.value.replace("http:", "https:"));
                    }
                }
            }
            if name.ns == ns!(html) && name.local == local_name!("head") {
                append_script(&node);
            }
            if let Some(contents) = template_contents.borrow().as_ref() {
                stack.push(contents.clone());
            }
        }
        stack.extend(node.children.borrow().iter().cloned());
    }
}

/// Appends `<script src="/injected.js"></script>` to `parent`'s children.
fn append_script(parent: &Handle) {
    let script = Node::new(NodeData::Element {
        name: QualName::new(None, ns!(html), local_name!("script")),
        attrs: RefCell::new(vec![Attribute {
            name: QualName::new(None, ns!(), local_name!("src")),
            value: StrTendril::from("/injected.js"),
        }]),
        template_contents: RefCell::new(None),
        mathml_annotation_xml_integration_point: false,
    });
    script.parent.set(Some(std::rc::Rc::downgrade(parent)));
    parent.children.borrow_mut().push(script);
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &[u8] = b"<!DOCTYPE html><html><head><title>t</title></head>\
        <body><ul><li><a href=\"http://x/\">a</a><li><p class=cls0>text</ul></body></html>";

    #[test]
    fn every_engine_runs_every_workload_it_supports_and_chunking_does_not_change_the_result() {
        let p = Prepared::new();
        for engine in RewriteEngine::ALL {
            for w in RewriteWorkload::ALL {
                if engine.supports(w) {
                    let whole = engine.run(w, PAGE, 1 << 16, &p);
                    assert_eq!(engine.run(w, PAGE, 7, &p), whole, "{} {}", engine.name(), w.name());
                }
            }
        }
    }

    #[test]
    fn outputs_and_counts_are_what_each_workload_implies() {
        let p = Prepared::new();
        let n = PAGE.len() as u64;
        for engine in [RewriteEngine::Htrewrite, RewriteEngine::HtrewriteFull, RewriteEngine::LolHtml] {
            assert_eq!(engine.run(RewriteWorkload::Passthrough, PAGE, 64, &p), n);
            assert_eq!(engine.run(RewriteWorkload::Cdn, PAGE, 64, &p), n + INJECTED.len() as u64);
            if engine == RewriteEngine::HtrewriteFull {
                continue;
            }
            assert_eq!(engine.run(RewriteWorkload::Rewrite, PAGE, 64, &p), n + INJECTED.len() as u64 + 1);
            // `a`, `li` × 2, `ul > li` × 2, `p`: six matches. lol_html, which
            // builds no tree, misses the second `ul > li`: it does not close the
            // first `li` when the second opens, so it sees `ul > li > li`.
            let matches = if engine == RewriteEngine::LolHtml { 5 } else { 6 };
            assert_eq!(engine.run(RewriteWorkload::Count10, PAGE, 64, &p), n + matches, "{}", engine.name());
            // `.cls0` and `div.cls0 p` (no div): one match.
            assert_eq!(engine.run(RewriteWorkload::Select1000, PAGE, 64, &p), n + 1);
        }
        let plain = html5ever_dom(RewriteWorkload::Passthrough, PAGE, 64);
        assert_eq!(html5ever_dom(RewriteWorkload::Cdn, PAGE, 64), plain + INJECTED.len() as u64);
        assert_eq!(html5ever_dom(RewriteWorkload::Rewrite, PAGE, 64), plain + INJECTED.len() as u64 + 1);
    }

    #[test]
    fn the_thousand_selectors_are_distinct() {
        let mut list = thousand();
        list.sort();
        list.dedup();
        assert_eq!(list.len(), 1000);
    }
}
