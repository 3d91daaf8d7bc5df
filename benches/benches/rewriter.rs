//! Rewriter benchmarks: htrewrite side by side with lol_html 3.x and html5ever
//! in one run (issue 5, proof 6; issue 8).
//!
//! Workloads (`htrewrite_benches::pipeline::RewriteWorkload`), each on every
//! page set (the vendored subset in `tests/data/corpus/`, or every HTML file
//! under `$HTREWRITE_CORPUS`), fed in 64 KiB and 1 KiB chunks:
//! - `passthrough`: no handlers;
//! - `rewrite`: `a[href]` read and set, and a `<script>` appended to `<head>`;
//! - `count10`: ten selectors whose handlers only count;
//! - `text`: a text handler over all text that reads each chunk;
//! - `select1000`: 1,000 selectors (classes, ids, attributes, descendants).
//!
//! Engines (`RewriteEngine`): `htrewrite` does the full tree construction in
//! every workload (its selectors match the Standard's tree); `lol_html` tracks
//! tag nesting only; `html5ever_tokenizer` (its tokenizer alone: `passthrough`,
//! `text`) and `html5ever_dom` (parse into an `RcDom`, edit, serialize:
//! `passthrough`, `rewrite`) run where they can do the workload — html5ever has
//! no selector engine.
//! Ids: `rewriter/<workload>/<engine>-<chunk>/<page set>`.
//!
//! Group `rewriter_adversarial`: htrewrite, every workload, on every
//! adversarial input (`ADVERSARIAL` and `TREE_ADVERSARIAL`) at n, 2n and 4n
//! bytes (n = `$HTREWRITE_ADVERSARIAL_BYTES`, default 64K), 64 KiB chunks; the
//! time per byte stays flat when time is linear (`ratio.py` prints it).
//! Ids: `rewriter_adversarial/<input>/<workload>/<bytes>`.
//!
//! ```text
//! cargo bench -p htrewrite-benches --bench rewriter
//! python3 benches/ratio.py
//! ```
// `criterion_group!` generates an undocumented public function.
#![allow(missing_docs)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use htrewrite_benches::pipeline::{Prepared, RewriteEngine, RewriteWorkload};
use htrewrite_benches::{ADVERSARIAL, TREE_ADVERSARIAL, corpus_dir, load_pages, parse_size, workloads};

const CHUNKS: [(usize, &str); 2] = [(64 << 10, "64KiB"), (1 << 10, "1KiB")];

fn rewriter(c: &mut Criterion) {
    let dir = corpus_dir();
    let pages = match load_pages(&dir) {
        Ok(pages) if !pages.is_empty() => pages,
        _ => {
            eprintln!("rewriter: no HTML files under {}; group not run", dir.display());
            return;
        }
    };
    let prepared = Prepared::new();
    let sets = workloads(pages);
    for w in RewriteWorkload::ALL {
        let mut group = c.benchmark_group(format!("rewriter/{}", w.name()));
        group.sampling_mode(SamplingMode::Flat);
        for set in &sets {
            group.throughput(Throughput::Bytes(set.bytes()));
            group.sample_size(if set.bytes() > 4 << 20 { 10 } else { 20 });
            for (chunk, chunk_name) in CHUNKS {
                for engine in RewriteEngine::ALL.into_iter().filter(|e| e.supports(w)) {
                    let id = BenchmarkId::new(format!("{}-{chunk_name}", engine.name()), &set.name);
                    group.bench_with_input(id, set, |b, set| {
                        b.iter(|| {
                            let mut sum = 0u64;
                            for page in &set.pages {
                                sum = sum.wrapping_add(engine.run(w, black_box(&page.bytes), chunk, &prepared));
                            }
                            sum
                        })
                    });
                }
            }
        }
        group.finish();
    }
}

fn rewriter_adversarial(c: &mut Criterion) {
    let n = std::env::var("HTREWRITE_ADVERSARIAL_BYTES")
        .ok()
        .map(|s| parse_size(&s).expect("HTREWRITE_ADVERSARIAL_BYTES: a byte count such as 65536, 64K or 1M"))
        .unwrap_or(64 << 10);
    let prepared = Prepared::new();
    for input in ADVERSARIAL.iter().chain(TREE_ADVERSARIAL) {
        let mut group = c.benchmark_group(format!("rewriter_adversarial/{}", input.name));
        group.sampling_mode(SamplingMode::Flat);
        group.sample_size(10);
        group.measurement_time(Duration::from_secs(1));
        for size in [n, 2 * n, 4 * n] {
            let doc = (input.build)(size);
            group.throughput(Throughput::Bytes(doc.len() as u64));
            for w in RewriteWorkload::ALL {
                group.bench_with_input(BenchmarkId::new(w.name(), size), &doc, |b, doc| {
                    b.iter(|| RewriteEngine::Htrewrite.run(w, black_box(doc), 64 << 10, &prepared))
                });
            }
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    // Modest times so the whole suite fits a shared machine; override on the
    // command line (`-- --measurement-time 5`).
    config = Criterion::default().warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    targets = rewriter, rewriter_adversarial
}
criterion_main!(benches);
