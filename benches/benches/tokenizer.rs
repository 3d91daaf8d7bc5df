//! Tokenizer benchmarks.
//!
//! - `throughput`: raw tokenization of real pages by htrewrite, side by side
//!   in the same run with lol_html 3.x pass-through, both fed in 64 KiB and
//!   1 KiB chunks. Ids: `throughput/<engine>-<chunk>/<page>`.
//! - `adversarial`: generated worst cases at sizes n and 4n (htrewrite only);
//!   the throughput (bytes per second) must stay flat from n to 4n.
//!   Ids: `adversarial/<input>/<bytes>`.
//!
//! Pages come from `tests/data/corpus/` (the vendored subset) or from every
//! HTML file under `$HTREWRITE_CORPUS`. `HTREWRITE_ADVERSARIAL_BYTES` sets n
//! (default 1M; e.g. `256K` for a quick run).
//!
//! ```text
//! cargo bench -p htrewrite-benches --bench tokenizer -- --warm-up-time 1 --measurement-time 3
//! python3 benches/ratio.py
//! ```
// `criterion_group!` generates an undocumented public function.
#![allow(missing_docs)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use htrewrite_benches::{ADVERSARIAL, Engine, corpus_dir, load_pages, parse_size, tokenize_htrewrite, workloads};

/// Chunk sizes fed to both engines, with their id suffix.
const CHUNKS: [(usize, &str); 2] = [(64 << 10, "64KiB"), (1 << 10, "1KiB")];

/// Default n of the adversarial group, in bytes.
const ADVERSARIAL_BYTES: usize = 1 << 20;

fn throughput(c: &mut Criterion) {
    let dir = corpus_dir();
    let pages = match load_pages(&dir) {
        Ok(pages) if !pages.is_empty() => pages,
        Ok(_) | Err(_) => {
            eprintln!(
                "throughput: no HTML files under {} — set HTREWRITE_CORPUS to a folder of pages; group not run",
                dir.display()
            );
            return;
        }
    };
    eprintln!("throughput: {} pages from {}", pages.len(), dir.display());
    let mut group = c.benchmark_group("throughput");
    group.sampling_mode(SamplingMode::Flat);
    for workload in workloads(pages) {
        group.throughput(Throughput::Bytes(workload.bytes()));
        // Large workloads take long per iteration; criterion's minimum of 10
        // samples keeps them bounded.
        group.sample_size(if workload.bytes() > 4 << 20 { 10 } else { 30 });
        for (chunk, chunk_name) in CHUNKS {
            for engine in [Engine::Htrewrite, Engine::LolHtml] {
                let id = BenchmarkId::new(format!("{}-{chunk_name}", engine.name()), &workload.name);
                group.bench_with_input(id, &workload, |b, w| {
                    b.iter(|| {
                        let mut sum = 0u64;
                        for page in &w.pages {
                            sum = sum.wrapping_add(engine.run(black_box(&page.bytes), chunk));
                        }
                        sum
                    })
                });
            }
        }
    }
    group.finish();
}

fn adversarial(c: &mut Criterion) {
    let n = std::env::var("HTREWRITE_ADVERSARIAL_BYTES")
        .ok()
        .map(|s| parse_size(&s).expect("HTREWRITE_ADVERSARIAL_BYTES: a byte count such as 1048576, 256K or 4M"))
        .unwrap_or(ADVERSARIAL_BYTES);
    let mut group = c.benchmark_group("adversarial");
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    for input in ADVERSARIAL {
        for size in [n, 4 * n] {
            let doc = (input.build)(size);
            group.throughput(Throughput::Bytes(doc.len() as u64));
            group.bench_with_input(BenchmarkId::new(input.name, size), &doc, |b, doc| {
                b.iter(|| tokenize_htrewrite(black_box(doc), 64 << 10))
            });
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    targets = throughput, adversarial
}
criterion_main!(benches);
