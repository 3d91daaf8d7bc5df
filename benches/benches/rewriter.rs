//! Rewriter benchmarks: htrewrite side by side with lol_html 3.x in one run
//! (issue 5, proof 6; issue 8).
//!
//! Workloads, each on every page (the vendored subset in `tests/data/corpus/`,
//! or every HTML file under `$HTREWRITE_CORPUS`), fed in 64 KiB and 1 KiB chunks:
//! - `passthrough`: no handlers;
//! - `rewrite`: `a[href]` read and set, and a `<script>` appended to `<head>`;
//! - `count10`: ten selectors whose handlers only count;
//! - `text`: a text handler over all text that reads each chunk;
//! - `select1000`: 1,000 selectors (classes, ids, attributes, descendants).
//!
//! htrewrite does the full tree construction in every workload (its selectors
//! match the Standard's tree); lol_html tracks tag nesting only.
//! Ids: `rewriter/<workload>/<engine>-<chunk>/<page set>`.
//!
//! ```text
//! cargo bench -p htrewrite-benches --bench rewriter -- --warm-up-time 1 --measurement-time 3
//! python3 benches/ratio.py
//! ```
// `criterion_group!` generates an undocumented public function.
#![allow(missing_docs)]

use std::borrow::Cow;
use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use htrewrite::{ContentType, Rewriter, Selectors, Settings};
use htrewrite_benches::{corpus_dir, load_pages, workloads};
use lol_html::html_content::ContentType as LolContentType;

const CHUNKS: [(usize, &str); 2] = [(64 << 10, "64KiB"), (1 << 10, "1KiB")];

const TEN: [&str; 10] = ["a", "div", "p", "span", "img", "li", "script", "meta", "link[rel]", "ul > li"];

/// 1,000 selectors of the shapes real rule sets have.
fn thousand() -> Vec<String> {
    (0..1000)
        .map(|i| match i % 4 {
            0 => format!(".cls{i}"),
            1 => format!("#id{i}"),
            2 => format!("a[data-x=\"{i}\"]"),
            _ => format!("div.cls{i} p"),
        })
        .collect()
}

/// One engine's run of a workload over a document, fed in chunks.
type RunFn = fn(Workload, &[u8], usize, &Prepared) -> u64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Workload {
    Passthrough,
    Rewrite,
    Count10,
    Text,
    Select1000,
}

const WORKLOADS: [(Workload, &str); 5] = [
    (Workload::Passthrough, "passthrough"),
    (Workload::Rewrite, "rewrite"),
    (Workload::Count10, "count10"),
    (Workload::Text, "text"),
    (Workload::Select1000, "select1000"),
];

/// The selector lists, compiled once for htrewrite (its `Selectors` are
/// shared between rewriters, as a proxy would share them).
struct Prepared {
    many: Vec<String>,
    ten: Selectors,
    thousand: Selectors,
}

fn run_htrewrite(w: Workload, doc: &[u8], chunk: usize, p: &Prepared) -> u64 {
    let many = &p.many;
    let count = std::cell::Cell::new(0u64);
    let mut out = 0u64;
    {
        let mut settings = Settings::new();
        match w {
            Workload::Passthrough => {}
            Workload::Rewrite => {
                settings = settings
                    .element("a[href]", |el| {
                        let href = el.get_attribute("href").unwrap_or_default();
                        el.set_attribute("href", &href.replace("http:", "https:"))?;
                        Ok(())
                    })
                    .element("head", |el| {
                        el.append("<script src=\"/injected.js\"></script>", ContentType::Html)?;
                        Ok(())
                    });
            }
            Workload::Count10 => {
                settings = settings.with_selectors(&p.ten);
                for s in TEN {
                    settings = settings.element(s, |_| {
                        count.set(count.get() + 1);
                        Ok(())
                    });
                }
            }
            Workload::Text => {
                settings = settings.doc_text(|t| {
                    count.set(count.get() + t.as_str().len() as u64);
                    Ok(())
                });
            }
            Workload::Select1000 => {
                settings = settings.with_selectors(&p.thousand);
                for s in many {
                    settings = settings.element(s, |_| {
                        count.set(count.get() + 1);
                        Ok(())
                    });
                }
            }
        }
        let mut rw = Rewriter::new(settings, |c: &[u8]| out += c.len() as u64).expect("valid selectors");
        for piece in doc.chunks(chunk) {
            rw.write(piece).expect("no failure");
        }
        let _sink = rw.end().expect("no failure");
    }
    out.wrapping_add(count.get())
}

fn run_lol_html(w: Workload, doc: &[u8], chunk: usize, p: &Prepared) -> u64 {
    let many = &p.many;
    use lol_html::{doc_text, element};
    let count = std::cell::Cell::new(0u64);
    let mut out = 0u64;
    {
        let mut handlers = Vec::new();
        match w {
            Workload::Passthrough => {}
            Workload::Rewrite => {
                handlers.push(element!("a[href]", |el| {
                    let href = el.get_attribute("href").unwrap_or_default();
                    el.set_attribute("href", &href.replace("http:", "https:"))?;
                    Ok(())
                }));
                handlers.push(element!("head", |el| {
                    el.append("<script src=\"/injected.js\"></script>", LolContentType::Html);
                    Ok(())
                }));
            }
            Workload::Count10 => {
                for s in TEN {
                    handlers.push(element!(s, |_| {
                        count.set(count.get() + 1);
                        Ok(())
                    }));
                }
            }
            Workload::Text | Workload::Select1000 => {}
        }
        if w == Workload::Select1000 {
            for s in many {
                handlers.push(element!(s.as_str(), |_| {
                    count.set(count.get() + 1);
                    Ok(())
                }));
            }
        }
        let document_content_handlers = if w == Workload::Text {
            vec![doc_text!(|t| {
                count.set(count.get() + t.as_str().len() as u64);
                Ok(())
            })]
        } else {
            Vec::new()
        };
        let mut settings = lol_html::Settings::new();
        for h in handlers {
            settings = settings.append_element_content_handler(h);
        }
        for h in document_content_handlers {
            settings = settings.append_document_content_handler(h);
        }
        let mut rw = lol_html::HtmlRewriter::new(settings, |c: &[u8]| out += c.len() as u64);
        for piece in doc.chunks(chunk) {
            rw.write(piece).expect("no failure");
        }
        rw.end().expect("no failure");
    }
    out.wrapping_add(count.get())
}

fn rewriter(c: &mut Criterion) {
    let dir = corpus_dir();
    let pages = match load_pages(&dir) {
        Ok(pages) if !pages.is_empty() => pages,
        _ => {
            eprintln!("rewriter: no HTML files under {}; group not run", dir.display());
            return;
        }
    };
    let many = thousand();
    let prepared =
        Prepared { ten: Selectors::new(TEN).expect("valid"), thousand: Selectors::new(&many).expect("valid"), many };
    let sets = workloads(pages);
    for (w, w_name) in WORKLOADS {
        let mut group = c.benchmark_group(format!("rewriter/{w_name}"));
        group.sampling_mode(SamplingMode::Flat);
        for set in &sets {
            group.throughput(Throughput::Bytes(set.bytes()));
            group.sample_size(if set.bytes() > 4 << 20 { 10 } else { 20 });
            for (chunk, chunk_name) in CHUNKS {
                let engines: [(&str, RunFn); 2] = [("htrewrite", run_htrewrite), ("lol_html", run_lol_html)];
                for (engine, run) in engines {
                    let id = BenchmarkId::new(format!("{engine}-{chunk_name}"), Cow::from(set.name.as_str()));
                    group.bench_with_input(id, set, |b, set| {
                        b.iter(|| {
                            let mut sum = 0u64;
                            for page in &set.pages {
                                sum = sum.wrapping_add(run(w, black_box(&page.bytes), chunk, &prepared));
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

criterion_group!(benches, rewriter);
criterion_main!(benches);
