//! Tree construction benchmarks (issue 3, proof item 5).
//!
//! - `tree`: tokenizer + tree-builder shadow over the real pages, side by side
//!   in the same run with lol_html 3.x pass-through (which does no tree
//!   construction) and html5ever's tree builder building an `RcDom`; all three
//!   fed the same bytes in 64 KiB chunks. Ids: `tree/<engine>/<page>`.
//! - `tree_adversarial`: generated worst cases for tree construction at n and
//!   4n repetitions (htrewrite-shadow only); the time per byte must stay flat
//!   from n to 4n. Ids: `tree_adversarial/<shape>/<n>`.
//!
//! Pages are those of the tokenizer bench (`tests/data/corpus/`, or every
//! HTML file under `$HTREWRITE_CORPUS`, split into the same workloads).
//!
//! ```text
//! cargo bench -p htrewrite-benches --bench shadow -- --warm-up-time 1 --measurement-time 3
//! ```
// `criterion_group!` generates an undocumented public function.
#![allow(missing_docs)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use html5ever::tendril::{ByteTendril, TendrilSink};
use htrewrite_benches::{corpus_dir, load_pages, rewrite_lol_html, workloads};
use htrewrite_shadow::{Event, Shadow, ShadowOptions, ShadowSink};
use htrewrite_tokenizer::Tokenizer;
use markup5ever_rcdom::RcDom;

/// The chunk size every engine is fed in.
const CHUNK: usize = 64 << 10;

/// An engine of the `tree` group: runs one document, returns a checksum.
type Run = fn(&[u8]) -> u64;

/// The engines of the `tree` group, by id.
const ENGINES: [(&str, Run); 3] =
    [("htrewrite-shadow", shadow), ("lol_html", |doc| rewrite_lol_html(doc, CHUNK)), ("html5ever", html5ever_rcdom)];

/// Tokenizer driven by the shadow's feedback, with an event sink that counts
/// opened elements (so no event can be optimized away); returns that count.
fn shadow(doc: &[u8]) -> u64 {
    let mut opened = 0u64;
    let events = |e: Event<'_>| {
        if let Event::ElementOpened { .. } = e {
            opened += 1;
        }
    };
    let mut sink = ShadowSink::new(Shadow::new(ShadowOptions::default()), events);
    let mut tokenizer = Tokenizer::new();
    for piece in doc.chunks(CHUNK) {
        tokenizer.feed(piece, &mut sink);
    }
    tokenizer.finish(&mut sink);
    sink.finish();
    drop(sink);
    opened
}

/// html5ever's tokenizer and tree builder building its `RcDom` (decoding the
/// bytes as UTF-8, lossily, as `from_utf8` does); returns the number of the
/// document's children.
fn html5ever_rcdom(doc: &[u8]) -> u64 {
    let mut parser = html5ever::parse_document(RcDom::default(), Default::default()).from_utf8();
    for piece in doc.chunks(CHUNK) {
        parser.process(ByteTendril::from_slice(piece));
    }
    let dom = parser.finish();
    dom.document.children.borrow().len() as u64
}

fn tree(c: &mut Criterion) {
    let dir = corpus_dir();
    let pages = match load_pages(&dir) {
        Ok(pages) if !pages.is_empty() => pages,
        Ok(_) | Err(_) => {
            eprintln!(
                "tree: no HTML files under {} — set HTREWRITE_CORPUS to a folder of pages; group not run",
                dir.display()
            );
            return;
        }
    };
    eprintln!("tree: {} pages from {}", pages.len(), dir.display());
    let mut group = c.benchmark_group("tree");
    group.sampling_mode(SamplingMode::Flat);
    for workload in workloads(pages) {
        group.throughput(Throughput::Bytes(workload.bytes()));
        group.sample_size(if workload.bytes() > 4 << 20 { 10 } else { 30 });
        for (engine, run) in ENGINES {
            group.bench_with_input(BenchmarkId::new(engine, &workload.name), &workload, |b, w| {
                b.iter(|| {
                    let mut sum = 0u64;
                    for page in &w.pages {
                        sum = sum.wrapping_add(run(black_box(&page.bytes)));
                    }
                    sum
                })
            });
        }
    }
    group.finish();
}

/// A generated worst case for tree construction.
struct Shape {
    /// The id criterion shows.
    name: &'static str,
    /// The n benchmarked (and 4n): picked so that one iteration at n takes
    /// about 5–20 ms on the 2-core machine of the README's figures.
    n: usize,
    /// `(prefix, [(unit, repetitions per n)], suffix)`.
    parts: (&'static str, &'static [(&'static str, usize)], &'static str),
}

impl Shape {
    fn build(&self, n: usize) -> Vec<u8> {
        let (prefix, units, suffix) = self.parts;
        let mut out = prefix.as_bytes().to_vec();
        for &(unit, per_n) in units {
            out.extend_from_slice(unit.repeat(n * per_n).as_bytes());
        }
        out.extend_from_slice(suffix.as_bytes());
        out
    }
}

const SHAPES: &[Shape] = &[
    // Deep nesting: 1e5 deep at 4n.
    Shape { name: "deep-divs", n: 25_000, parts: ("", &[("<div>", 1)], "") },
    // Each `<p>` closes the previous one (a `p` in button scope).
    Shape { name: "unclosed-p", n: 25_000, parts: ("", &[("<p>", 1)], "x") },
    // Formatting elements: the list of active formatting elements and the
    // Noah's Ark clause; all closed at EOF.
    Shape { name: "unclosed-b", n: 25_000, parts: ("", &[("<b>", 1)], "x") },
    // Each `<a>` runs the adoption agency for the previous one.
    Shape { name: "unclosed-a", n: 15_000, parts: ("", &[("<a href=x>", 1)], "x") },
    // Every stray `</span>` is an "any other end tag" search of a deep stack.
    Shape { name: "deep-divs-stray-end-tags", n: 25_000, parts: ("", &[("<div>", 1), ("</span>", 1)], "") },
    // `<table>` nests only inside a cell; then every table closed by its end tag.
    Shape { name: "nested-tables", n: 5_000, parts: ("", &[("<table><tr><td>", 1), ("</table>", 1)], "") },
    // Deep foreign content; stray end tags search it (the foreign "any other
    // end tag" loop), then the `g`s close.
    Shape { name: "deep-svg", n: 25_000, parts: ("<svg>", &[("<g>", 1), ("</x>", 1), ("</g>", 1)], "") },
    // Each `<li>` implies the end of the previous one.
    Shape { name: "li", n: 25_000, parts: ("<ul>", &[("<li>", 1)], "") },
    // Each `<td>` closes the previous cell.
    Shape { name: "td-one-row", n: 25_000, parts: ("<table><tr>", &[("<td>", 1)], "") },
    // Each `</b>` runs the adoption agency, which removes a `span` from the
    // middle of the stack (a hole; quadratic before the stack had holes).
    Shape { name: "adoption-agency-middle-removal", n: 10_000, parts: ("<b>", &[("<span><div>", 1), ("</b>", 1)], "") },
];

fn tree_adversarial(c: &mut Criterion) {
    let mut group = c.benchmark_group("tree_adversarial");
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    for shape in SHAPES {
        for n in [shape.n, 4 * shape.n] {
            let doc = shape.build(n);
            group.throughput(Throughput::Bytes(doc.len() as u64));
            group.bench_with_input(BenchmarkId::new(shape.name, n), &doc, |b, doc| b.iter(|| shadow(black_box(doc))));
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    targets = tree, tree_adversarial
}
criterion_main!(benches);
