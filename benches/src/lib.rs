//! Shared pieces of the htrewrite benchmarks: the corpus, the two engines
//! driven the same way, and the adversarial inputs.
//!
//! Used by the criterion suite (`benches/*.rs`) and by the `count` and
//! `rewrite` binaries that `instructions.sh` and `rewriter-instructions.sh`
//! run under callgrind, so both measure exactly the same work. The rewriter
//! workloads and engines are in [`pipeline`].
//!
//! # Engines
//! - [`Engine::Htrewrite`]: raw tokenization with the by-tag-name text mode
//!   policy ([`TagNamePolicy`]); the sink reads every token's kind and span
//!   and folds them into a checksum, so no token can be optimized away.
//! - [`Engine::LolHtml`]: `lol_html` 3.x pass-through
//!   (`HtmlRewriter::new(Settings::default(), sink)`, no handlers), whose
//!   output sink counts the bytes it receives.
#![forbid(unsafe_code)]

pub mod pipeline;

use std::path::{Path, PathBuf};

use htrewrite_testkit::corpus;
use htrewrite_tokenizer::{TagNamePolicy, Token, TokenKind, Tokenizer};

/// The environment variable naming a folder whose files are all benchmarked
/// instead of the vendored subset (CI sets it to `../shared/corpus`; a
/// relative path is taken from the workspace root, as for the tests:
/// [`htrewrite_testkit::corpus::env_corpus`]).
pub use htrewrite_testkit::corpus::CORPUS_ENV;

/// One input document.
#[derive(Debug, Clone)]
pub struct Page {
    /// The path relative to the corpus root, `/`-separated (`lol-html-bench/cloudflare.com.html`).
    pub name: String,
    /// The file's bytes.
    pub bytes: Vec<u8>,
}

/// The folder the benchmarks read: `$HTREWRITE_CORPUS` when set, else the
/// vendored subset `tests/data/corpus/` of this repository.
pub fn corpus_dir() -> PathBuf {
    corpus::env_corpus().unwrap_or_else(corpus::vendored_dir)
}

/// Every HTML file under `dir` (recursively; `.html`/`.htm` names), sorted by
/// name.
///
/// # Errors
/// If `dir` or a file in it cannot be read.
pub fn load_pages(dir: &Path) -> std::io::Result<Vec<Page>> {
    let files = corpus::files_under(dir)?.into_iter().filter(|(_, path)| corpus::is_html(path));
    files.map(|(name, path)| Ok(Page { name, bytes: std::fs::read(path)? })).collect()
}

/// The pages lol-html's own benchmarks use; always benchmarked one by one.
pub const LOL_HTML_BENCH_PAGES: [&str; 3] = ["cloudflare.com.html", "ecma402-spec.html", "html-parsing-spec.html"];

/// How many of the other pages, largest first, are benchmarked one by one.
pub const LARGE_PAGES: usize = 3;

/// A benchmark input: one page, or several pages tokenized one after the
/// other (each as its own document) and reported as one figure.
#[derive(Debug, Clone)]
pub struct Workload {
    /// The name criterion shows.
    pub name: String,
    /// The documents, each fed from a fresh tokenizer.
    pub pages: Vec<Page>,
}

impl Workload {
    /// Total bytes of all documents.
    pub fn bytes(&self) -> u64 {
        self.pages.iter().map(|p| p.bytes.len() as u64).sum()
    }
}

/// Splits the pages into a representative, bounded set of workloads that
/// still covers every byte: the lol-html bench pages one by one, the
/// [`LARGE_PAGES`] largest other pages one by one, and all remaining pages
/// together as one workload named `rest-<count>-pages` (when there are any).
pub fn workloads(mut pages: Vec<Page>) -> Vec<Workload> {
    let mut out = Vec::new();
    let is_lol = |p: &Page| LOL_HTML_BENCH_PAGES.iter().any(|n| p.name.rsplit('/').next() == Some(n));
    let (lol, mut others): (Vec<Page>, Vec<Page>) = pages.drain(..).partition(is_lol);
    for page in lol {
        out.push(Workload { name: short_name(&page.name), pages: vec![page] });
    }
    others.sort_by(|a, b| b.bytes.len().cmp(&a.bytes.len()).then_with(|| a.name.cmp(&b.name)));
    let rest = others.split_off(LARGE_PAGES.min(others.len()));
    for page in others {
        out.push(Workload { name: short_name(&page.name), pages: vec![page] });
    }
    if !rest.is_empty() {
        out.push(Workload { name: format!("rest-{}-pages", rest.len()), pages: rest });
    }
    out
}

/// The file name without folders and without `.html`.
fn short_name(name: &str) -> String {
    let file = name.rsplit('/').next().unwrap_or(name);
    file.strip_suffix(".html").unwrap_or(file).to_owned()
}

/// The engine a benchmark drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// `htrewrite-tokenizer`, raw tokenization.
    Htrewrite,
    /// `lol_html` 3.x pass-through, no handlers.
    LolHtml,
}

impl Engine {
    /// The name used in benchmark ids and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Htrewrite => "htrewrite",
            Engine::LolHtml => "lol_html",
        }
    }

    /// Parses [`Engine::name`].
    pub fn from_name(name: &str) -> Option<Engine> {
        match name {
            "htrewrite" => Some(Engine::Htrewrite),
            "lol_html" | "lol-html" => Some(Engine::LolHtml),
            _ => None,
        }
    }

    /// Runs the engine over `doc` fed in chunks of `chunk` bytes and returns
    /// a checksum of what it produced.
    ///
    /// # Panics
    /// If `chunk` is 0, or if lol_html reports an error (it cannot without
    /// handlers and memory limits).
    pub fn run(self, doc: &[u8], chunk: usize) -> u64 {
        match self {
            Engine::Htrewrite => tokenize_htrewrite(doc, chunk),
            Engine::LolHtml => rewrite_lol_html(doc, chunk),
        }
    }
}

/// Tokenizes `doc` in chunks of `chunk` bytes; returns a checksum of every
/// token's kind and span.
///
/// # Panics
/// If `chunk` is 0.
pub fn tokenize_htrewrite(doc: &[u8], chunk: usize) -> u64 {
    let mut sum = 0u64;
    let mut sink = TagNamePolicy(|t: &Token<'_>| {
        let span = t.span();
        sum = sum.wrapping_mul(31).wrapping_add(kind_code(t.kind()) ^ span.start ^ (span.end << 20));
    });
    let mut tokenizer = Tokenizer::new();
    for piece in doc.chunks(chunk) {
        tokenizer.feed(piece, &mut sink);
    }
    tokenizer.finish(&mut sink);
    sum
}

/// A small number per token kind, for checksums.
fn kind_code(kind: TokenKind) -> u64 {
    match kind {
        TokenKind::Text(_) => 1,
        TokenKind::StartTag => 2,
        TokenKind::EndTag => 3,
        TokenKind::Comment(_) => 4,
        TokenKind::Doctype => 5,
        TokenKind::ProcessingInstruction => 6,
        TokenKind::CdataStart => 7,
        TokenKind::CdataEnd => 8,
        TokenKind::Dropped(_) => 9,
    }
}

/// Passes `doc` through lol_html in chunks of `chunk` bytes; returns the
/// number of output bytes.
///
/// # Panics
/// If `chunk` is 0 or lol_html reports an error.
pub fn rewrite_lol_html(doc: &[u8], chunk: usize) -> u64 {
    let mut out = 0u64;
    let mut rewriter = lol_html::HtmlRewriter::new(lol_html::Settings::default(), |c: &[u8]| out += c.len() as u64);
    for piece in doc.chunks(chunk) {
        rewriter.write(piece).expect("lol_html pass-through cannot fail");
    }
    rewriter.end().expect("lol_html pass-through cannot fail");
    out
}

/// A generated worst-case input: `build(n)` makes an input of about `n` bytes.
#[derive(Debug, Clone, Copy)]
pub struct Adversarial {
    /// The name criterion shows.
    pub name: &'static str,
    /// Builds an input of about `n` bytes.
    pub build: fn(usize) -> Vec<u8>,
}

/// Repeats `unit` until the result has at least `n - prefix - suffix` bytes,
/// between `prefix` and `suffix`.
fn repeat(prefix: &str, unit: &str, n: usize, suffix: &str) -> Vec<u8> {
    let count = n.saturating_sub(prefix.len() + suffix.len()).div_ceil(unit.len()).max(1);
    let mut out = Vec::with_capacity(prefix.len() + unit.len() * count + suffix.len());
    out.extend_from_slice(prefix.as_bytes());
    for _ in 0..count {
        out.extend_from_slice(unit.as_bytes());
    }
    out.extend_from_slice(suffix.as_bytes());
    out
}

/// The adversarial inputs of the `adversarial` benchmark group.
pub const ADVERSARIAL: &[Adversarial] = &[
    // `<div>` × k: 1e5-deep nesting and beyond.
    Adversarial { name: "deep-nesting", build: |n| repeat("", "<div>", n, "") },
    // One tag with k distinct attributes.
    Adversarial {
        name: "many-attributes",
        build: |n| {
            let mut out = b"<p".to_vec();
            let mut i = 0u64;
            while out.len() + 1 < n {
                out.extend_from_slice(format!(" a{i}=v").as_bytes());
                i += 1;
            }
            out.push(b'>');
            out
        },
    },
    // One attribute value of n bytes (with a reference now and then).
    Adversarial { name: "huge-attribute-value", build: |n| repeat("<p a=\"", "xxxxxxxxxxxxx&amp;", n, "\">") },
    // `<` × n.
    Adversarial { name: "less-than-signs", build: |n| repeat("", "<", n, "") },
    // `&#x000…41;`: one numeric reference with n leading zeros.
    Adversarial { name: "numeric-reference-zeros", build: |n| repeat("&#x", "0", n, "41;") },
    // `<!--` and n bytes of comment that never ends (dashes and `--!` included).
    Adversarial { name: "unclosed-comment", build: |n| repeat("<!--", "a-b--!c-", n, "") },
    // Script data escapes nested over and over.
    Adversarial { name: "script-escapes", build: |n| repeat("<script>", "<!--<script>", n, "") },
    // `</p>` × k, stray end tags.
    Adversarial { name: "stray-end-tags", build: |n| repeat("", "</p>", n, "") },
];

/// Tree-construction worst cases, added to [`ADVERSARIAL`] by the rewriter's
/// adversarial group (the tokenizer alone sees nothing special in them).
pub const TREE_ADVERSARIAL: &[Adversarial] = &[
    // Each `<p>` closes the previous one (a `p` in button scope).
    Adversarial { name: "unclosed-p", build: |n| repeat("", "<p>x", n, "") },
    // Formatting elements: the list of active formatting elements and the
    // Noah's Ark clause; all closed at EOF.
    Adversarial { name: "unclosed-b", build: |n| repeat("", "<b>x", n, "") },
    // Each `<a>` runs the adoption agency for the previous one.
    Adversarial { name: "unclosed-a", build: |n| repeat("", "<a href=#>x", n, "") },
    // `<table>` nests only inside a cell: a deep stack of tables.
    Adversarial { name: "nested-tables", build: |n| repeat("", "<table><tr><td>", n, "") },
    // Deep foreign content.
    Adversarial { name: "deep-svg", build: |n| repeat("<svg>", "<g>", n, "") },
    // `<div>` × k then `</span>` × k: every stray end tag is an "any other
    // end tag" walk against a k-deep stack.
    Adversarial { name: "deep-stack-stray-end-tags", build: |n| two_parts("<div>", "</span>", n) },
    // `<b>`, (`<span><div>`) × k, `</b>` × k: each `</b>` runs the adoption
    // agency, which removes a `span` from the middle of the stack.
    Adversarial { name: "adoption-agency-middle", build: |n| two_parts("<b><span><div>", "</b>", n) },
];

/// `first` × k then `second` × k, about `n` bytes; when `first` starts with
/// `<b>`, that `<b>` is written once and the rest of `first` k times.
fn two_parts(first: &str, second: &str, n: usize) -> Vec<u8> {
    let (once, first) = first.strip_prefix("<b>").map_or(("", first), |rest| ("<b>", rest));
    let k = n.saturating_sub(once.len()).div_ceil(first.len() + second.len()).max(1);
    let mut out = Vec::with_capacity(once.len() + k * (first.len() + second.len()));
    out.extend_from_slice(once.as_bytes());
    out.extend(std::iter::repeat_n(first.as_bytes(), k).flatten());
    out.extend(std::iter::repeat_n(second.as_bytes(), k).flatten());
    out
}

/// The input named `name` (of [`ADVERSARIAL`] or [`TREE_ADVERSARIAL`]) at
/// about `n` bytes.
pub fn adversarial_input(name: &str, n: usize) -> Option<Vec<u8>> {
    ADVERSARIAL.iter().chain(TREE_ADVERSARIAL).find(|a| a.name == name).map(|a| (a.build)(n))
}

/// Parses a byte count such as `1048576`, `512K`, `4M` (binary multiples).
pub fn parse_size(s: &str) -> Option<usize> {
    let s = s.trim();
    let (digits, mult) = match s.as_bytes().last()? {
        b'k' | b'K' => (&s[..s.len() - 1], 1 << 10),
        b'm' | b'M' => (&s[..s.len() - 1], 1 << 20),
        _ => (s, 1),
    };
    digits.parse::<usize>().ok().map(|d| d * mult)
}

/// [`parse_size`] for a command-line value of the `count` and `rewrite` binaries: a byte count
/// greater than 0, or a message for the usage error.
pub fn parse_byte_count(s: &str) -> Result<usize, String> {
    parse_size(s)
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("{s:?} is not a positive byte count such as 65536, 64K or 1M"))
}

/// Peak live heap bytes while `f` runs (allocations made before are not
/// counted), read from dhat's counting allocator: the calling binary must
/// have `dhat::Alloc` as its global allocator, and only one such
/// measurement may run at a time in a process.
///
/// # Panics
/// If another dhat profiler is running.
pub fn peak_heap(f: impl FnOnce() -> u64) -> usize {
    let profiler = dhat::Profiler::builder().testing().build();
    std::hint::black_box(f());
    let peak = dhat::HeapStats::get().max_bytes;
    drop(profiler);
    peak
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(name: &str, len: usize) -> Page {
        Page { name: name.to_owned(), bytes: vec![b'x'; len] }
    }

    #[test]
    fn workloads_cover_every_page_once() {
        let pages = vec![
            page("lol-html-bench/cloudflare.com.html", 10),
            page("readability/a.html", 500),
            page("readability/b.html", 400),
            page("readability/c.html", 300),
            page("readability/d.html", 200),
            page("readability/e.html", 100),
        ];
        let w = workloads(pages);
        let names: Vec<&str> = w.iter().map(|w| w.name.as_str()).collect();
        assert_eq!(names, ["cloudflare.com", "a", "b", "c", "rest-2-pages"]);
        assert_eq!(w.iter().map(Workload::bytes).sum::<u64>(), 1510);
    }

    #[test]
    fn adversarial_inputs_have_about_the_asked_size() {
        for a in ADVERSARIAL {
            let len = (a.build)(10_000).len();
            assert!((10_000..10_020).contains(&len), "{}: {len}", a.name);
        }
        for a in TREE_ADVERSARIAL {
            let len = (a.build)(10_000).len();
            assert!((10_000..10_020).contains(&len), "{}: {len}", a.name);
            assert_eq!(adversarial_input(a.name, 10_000).map(|d| d.len()), Some(len));
        }
    }

    #[test]
    fn two_parts_repeats_both_units_equally() {
        assert_eq!(two_parts("<div>", "</span>", 24), b"<div><div></span></span>");
        assert_eq!(two_parts("<b><i>", "</b>", 17), b"<b><i><i></b></b>");
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("4M"), Some(4 << 20));
        assert_eq!(parse_size("512k"), Some(512 << 10));
        assert_eq!(parse_size("100"), Some(100));
        assert_eq!(parse_size("x"), None);
        assert_eq!(parse_byte_count("64K"), Ok(64 << 10));
        assert!(parse_byte_count("0").is_err() && parse_byte_count("x").is_err());
    }
}
