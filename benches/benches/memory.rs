//! Peak heap per rewriter workload on the largest page, pass-through peak
//! heap as the document grows, and on the adversarial inputs at n and 4n
//! (issue 8, "Memory").
//!
//! Not a criterion bench: it prints Markdown tables. The global allocator is
//! `dhat::Alloc`; each figure is dhat's `max_bytes` (the peak of live heap
//! bytes) of a profiler started just before one run and stopped just after,
//! so it counts everything the engine allocates for that document — the
//! rewriter, its settings and handlers, its buffers, stack and output — and
//! nothing allocated before (the document itself, the selectors compiled once
//! and shared, as `Selectors` are between rewriters, and what one unmeasured
//! warm-up run of every engine initialized once for the whole process).
//!
//! ```text
//! cargo bench -p htrewrite-benches --bench memory
//! HTREWRITE_CORPUS=../shared/corpus cargo bench -p htrewrite-benches --bench memory
//! ```
//! Pages: the vendored subset, or every HTML file under `$HTREWRITE_CORPUS`.

use std::hint::black_box;

use htrewrite_benches::pipeline::{Prepared, RewriteEngine, RewriteWorkload};
use htrewrite_benches::{ADVERSARIAL, TREE_ADVERSARIAL, corpus_dir, load_pages, parse_size, peak_heap};
use htrewrite_tokenizer::{TagNamePolicy, Token, Tokenizer};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

/// The chunk sizes of the criterion benches.
const CHUNKS: [(usize, &str); 2] = [(64 << 10, "64 KiB"), (1 << 10, "1 KiB")];

/// The n of the adversarial table (`$HTREWRITE_ADVERSARIAL_BYTES`, default 256K):
/// each input is measured at n and 4n bytes.
const ADVERSARIAL_BYTES: usize = 256 << 10;

/// How many times the page is repeated in the growth table.
const REPEATS: [usize; 3] = [1, 4, 16];

/// The longest token of `doc` in bytes (raw tokenization), the bound the
/// tokenizer's carried-over input stays under.
fn longest_token(doc: &[u8]) -> usize {
    let mut longest = 0usize;
    let mut sink = TagNamePolicy(|t: &Token<'_>| {
        let span = t.span();
        longest = longest.max((span.end - span.start) as usize);
    });
    let mut tokenizer = Tokenizer::new();
    tokenizer.feed(doc, &mut sink);
    tokenizer.finish(&mut sink);
    longest
}

fn kib(bytes: usize) -> String {
    format!("{:.1}", bytes as f64 / 1024.0)
}

fn main() {
    // `cargo bench` passes `--bench`, and a filter when one is given: run
    // unless a filter is given that does not name this bench.
    let filters: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    if !filters.is_empty() && !filters.iter().any(|f| "memory".contains(f.as_str())) {
        return;
    }
    let dir = corpus_dir();
    let pages = match load_pages(&dir) {
        Ok(pages) if !pages.is_empty() => pages,
        _ => {
            eprintln!("memory: no HTML files under {}; nothing measured", dir.display());
            return;
        }
    };
    let page = pages.into_iter().max_by_key(|p| p.bytes.len()).expect("at least one page");
    let longest = longest_token(&page.bytes);
    let prepared = Prepared::new();
    // One unmeasured run of everything first, so that one-time lazy
    // initialization (static tables, thread-locals) is in no figure.
    for engine in RewriteEngine::ALL {
        for w in RewriteWorkload::ALL.into_iter().filter(|&w| engine.supports(w)) {
            black_box(engine.run(w, &page.bytes, 1 << 10, &prepared));
        }
    }

    println!("### Peak heap per workload: {} ({} bytes; longest token {longest} bytes)\n", page.name, page.bytes.len());
    println!("KiB of peak live heap during one run (dhat `max_bytes`); `—`: the engine does not do this workload.\n");
    let mut header = "| workload | chunk |".to_owned();
    let mut rule = "|---|---|".to_owned();
    for engine in RewriteEngine::ALL {
        header.push_str(&format!(" {} |", engine.name()));
        rule.push_str("---:|");
    }
    println!("{header}\n{rule}");
    for w in RewriteWorkload::ALL {
        for (chunk, chunk_name) in CHUNKS {
            let mut row = format!("| {} | {chunk_name} |", w.name());
            for engine in RewriteEngine::ALL {
                if engine.supports(w) {
                    let peak = peak_heap(|| engine.run(w, &page.bytes, chunk, &prepared));
                    row.push_str(&format!(" {} |", kib(peak)));
                } else {
                    row.push_str(" — |");
                }
            }
            println!("{row}");
        }
    }

    println!("\n### Peak heap as the document grows: {} repeated 1×, 4×, 16× (64 KiB chunks)\n", page.name);
    println!("KiB of peak live heap; a bounded engine shows the same figure in every column.\n");
    let mut header = "| engine | workload |".to_owned();
    let mut rule = "|---|---|".to_owned();
    for r in REPEATS {
        header.push_str(&format!(" {r}× ({:.1} MB) |", (r * page.bytes.len()) as f64 / 1e6));
        rule.push_str("---:|");
    }
    println!("{header}\n{rule}");
    let docs: Vec<Vec<u8>> = REPEATS.iter().map(|&r| page.bytes.repeat(r)).collect();
    let rows = RewriteWorkload::ALL.into_iter().map(|w| (RewriteEngine::Htrewrite, w)).chain(
        [RewriteEngine::LolHtml, RewriteEngine::Html5everTokenizer, RewriteEngine::Html5everDom]
            .map(|e| (e, RewriteWorkload::Passthrough)),
    );
    for (engine, w) in rows {
        let mut row = format!("| {} | {} |", engine.name(), w.name());
        for doc in &docs {
            let peak = peak_heap(|| engine.run(w, doc, 64 << 10, &prepared));
            row.push_str(&format!(" {} |", kib(peak)));
        }
        println!("{row}");
    }

    let n = std::env::var("HTREWRITE_ADVERSARIAL_BYTES")
        .ok()
        .map(|s| parse_size(&s).expect("HTREWRITE_ADVERSARIAL_BYTES: a byte count such as 256K"))
        .unwrap_or(ADVERSARIAL_BYTES);
    println!("\n### Peak heap on the adversarial inputs (htrewrite, no handlers, 64 KiB chunks)\n");
    println!("KiB of peak live heap at n and 4n bytes, and per input byte at 4n.\n");
    println!("| input | KiB at {n} bytes | KiB at {} bytes | 4n ÷ n | bytes of heap per input byte at 4n |", 4 * n);
    println!("|---|---:|---:|---:|---:|");
    for input in ADVERSARIAL.iter().chain(TREE_ADVERSARIAL) {
        let peaks: Vec<(usize, usize)> = [n, 4 * n]
            .into_iter()
            .map(|size| {
                let doc = (input.build)(size);
                let peak =
                    peak_heap(|| RewriteEngine::Htrewrite.run(RewriteWorkload::Passthrough, &doc, 64 << 10, &prepared));
                (doc.len(), peak)
            })
            .collect();
        let [(_, small), (big_len, big)] = peaks[..] else { unreachable!("two sizes") };
        println!(
            "| {} | {} | {} | {:.2} | {:.1} |",
            input.name,
            kib(small),
            kib(big),
            big as f64 / small as f64,
            big as f64 / big_len as f64
        );
    }
}
