//! Selector matching over the real pages of `tests/data/corpus/`, 10 and
//! 1,000 selectors, side by side in one run with lol_html 3.x element
//! handlers for the same selectors.
//!
//! Engines: `htrewrite` (tokenizer → shadow → matcher, one [`Program`]
//! shared through an `Arc`), `htrewrite-nomatch` (tokenizer → shadow, no
//! event sink), `htrewrite-events` (tokenizer → shadow, every event looked at:
//! the floor under the matcher), `lol_html` (`HtmlRewriter` with one element handler per selector,
//! output discarded). Ids: `selectors/<engine>/<n>`.
//!
//! The 1,000 selectors are what lol_html also accepts (no `+`/`~`): classes,
//! ids, attributes, and compounds under child and descendant combinators,
//! mostly matching nothing — the common shape of a large rule set.
//!
//! ```text
//! cargo bench -p htrewrite-selectors --bench matching -- --warm-up-time 1 --measurement-time 3
//! ```
// `criterion_group!` generates an undocumented public function.
#![allow(missing_docs)]

use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use htrewrite_selectors::{Matcher, Program};
use htrewrite_shadow::{Event, NoEvents, Shadow, ShadowOptions, ShadowSink};
use htrewrite_tokenizer::Tokenizer;

const TEN: [&str; 10] =
    ["a", "p", "div > p", "img[src]", "ul li", "a[href^=http]", ".content", "#main", "h1, h2", "span:not(.x)"];

fn thousand() -> Vec<String> {
    (0..1000)
        .map(|i| match i % 8 {
            0 => format!(".c{i}"),
            1 => format!("#i{i}"),
            2 => format!("div.c{i} > a"),
            3 => format!("[data-x{i}]"),
            4 => format!("ul li.c{i} span"),
            5 => format!("a[href$=\".x{i}\"]"),
            6 => format!("section p.c{i}"),
            _ => TEN[i % 10].to_owned(),
        })
        .collect()
}

fn pages() -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/corpus");
    let mut out = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "html") {
                out.push(std::fs::read(&p).expect("page"));
            }
        }
    }
    out
}

fn htrewrite(page: &[u8], program: &Arc<Program>) -> usize {
    let mut matcher = Matcher::new(Arc::clone(program));
    let mut n = 0;
    let events = |e: Event<'_>| n += matcher.event(&e).len();
    let mut sink = ShadowSink::new(Shadow::new(ShadowOptions::default()), events);
    let mut tokenizer = Tokenizer::new();
    for chunk in page.chunks(64 << 10) {
        tokenizer.feed(chunk, &mut sink);
    }
    tokenizer.finish(&mut sink);
    sink.finish();
    drop(sink);
    n
}

fn nomatch(page: &[u8]) -> usize {
    let mut sink = ShadowSink::new(Shadow::new(ShadowOptions::default()), NoEvents);
    let mut tokenizer = Tokenizer::new();
    for chunk in page.chunks(64 << 10) {
        tokenizer.feed(chunk, &mut sink);
    }
    tokenizer.finish(&mut sink);
    sink.finish();
    sink.shadow().open_elements().len()
}

/// Tokenizer → shadow with every event looked at but nothing matched: the
/// floor under the matcher.
fn events_only(page: &[u8]) -> usize {
    let mut n = 0;
    let events = |e: Event<'_>| n += usize::from(matches!(black_box(&e), Event::ElementOpened { .. }));
    let mut sink = ShadowSink::new(Shadow::new(ShadowOptions::default()), events);
    let mut tokenizer = Tokenizer::new();
    for chunk in page.chunks(64 << 10) {
        tokenizer.feed(chunk, &mut sink);
    }
    tokenizer.finish(&mut sink);
    sink.finish();
    drop(sink);
    n
}

fn lol(page: &[u8], selectors: &[String]) -> usize {
    let mut n = 0usize;
    let counter = std::cell::Cell::new(0usize);
    {
        let mut settings = lol_html::Settings::new();
        for s in selectors {
            settings = settings.append_element_content_handler(lol_html::element!(s, |_el| {
                counter.set(counter.get() + 1);
                Ok(())
            }));
        }
        let mut rewriter = lol_html::HtmlRewriter::new(settings, |c: &[u8]| n += c.len());
        for chunk in page.chunks(64 << 10) {
            rewriter.write(chunk).expect("lol_html write");
        }
        rewriter.end().expect("lol_html end");
    }
    n + counter.get()
}

fn selectors(c: &mut Criterion) {
    let pages = pages();
    let bytes: usize = pages.iter().map(Vec::len).sum();
    eprintln!("selectors: {} pages, {bytes} bytes", pages.len());
    let mut group = c.benchmark_group("selectors");
    group.sampling_mode(SamplingMode::Flat);
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(10);
    group
        .bench_function("htrewrite-nomatch", |b| b.iter(|| pages.iter().map(|p| nomatch(black_box(p))).sum::<usize>()));
    group.bench_function("htrewrite-events", |b| {
        b.iter(|| pages.iter().map(|p| events_only(black_box(p))).sum::<usize>())
    });
    let sets: [(usize, Vec<String>); 2] = [(10, TEN.iter().map(|s| s.to_string()).collect()), (1000, thousand())];
    for (n, list) in sets {
        let program = Arc::new(Program::new(&list).expect("selectors compile"));
        group.bench_with_input(BenchmarkId::new("htrewrite", n), &program, |b, program| {
            b.iter(|| pages.iter().map(|p| htrewrite(black_box(p), program)).sum::<usize>())
        });
        group.bench_with_input(BenchmarkId::new("lol_html", n), &list, |b, list| {
            b.iter(|| pages.iter().map(|p| lol(black_box(p), list)).sum::<usize>())
        });
    }
    group.finish();
}

criterion_group!(benches, selectors);
criterion_main!(benches);
