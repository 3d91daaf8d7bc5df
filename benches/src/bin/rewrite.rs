//! Runs the htrewrite rewriter (or lol_html) over files, for instruction counts
//! (`valgrind --tool=callgrind`) of whole-pipeline workloads.
//!
//! ```text
//! cargo build --release -p htrewrite-benches --bin rewrite
//! valgrind --tool=callgrind target/release/rewrite htrewrite passthrough tests/data/corpus/lol-html-bench/*.html
//! ```
//! Usage: `rewrite ENGINE WORKLOAD FILE...` with ENGINE `htrewrite` or `lol_html` and WORKLOAD
//! `passthrough`, `rewrite` (a[href] read + set, script appended to head) or `count10`. Prints the
//! output byte count and the number of input bytes. `rewrite ENGINE WORKLOAD --adversarial NAME N`
//! runs a generated input of about N bytes instead (the tokenizer's adversarial inputs, plus
//! tree-construction shapes: `unclosed-p`, `unclosed-b`, `unclosed-a`, `nested-tables`, `deep-svg`,
//! `adoption-agency-middle`).

use htrewrite::{ContentType, Rewriter, Settings};

const TEN: [&str; 10] = ["a", "div", "p", "span", "img", "li", "script", "meta", "link[rel]", "ul > li"];

fn htrewrite_run(workload: &str, doc: &[u8]) -> u64 {
    let count = std::cell::Cell::new(0u64);
    let mut out = 0u64;
    let mut settings = Settings::new();
    match workload {
        "passthrough" => {}
        "rewrite" => {
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
        "count10" => {
            for s in TEN {
                settings = settings.element(s, |_| {
                    count.set(count.get() + 1);
                    Ok(())
                });
            }
        }
        other => panic!("unknown workload {other}"),
    }
    let mut rw = Rewriter::new(settings, |c: &[u8]| out += c.len() as u64).expect("valid selectors");
    for piece in doc.chunks(64 << 10) {
        rw.write(piece).expect("no failure");
    }
    let _sink = rw.end().expect("no failure");
    out + count.get()
}

fn lol_html_run(workload: &str, doc: &[u8]) -> u64 {
    let count = std::cell::Cell::new(0u64);
    let mut out = 0u64;
    let mut settings = lol_html::Settings::new();
    match workload {
        "passthrough" => {}
        "rewrite" => {
            settings = settings
                .append_element_content_handler(lol_html::element!("a[href]", |el| {
                    let href = el.get_attribute("href").unwrap_or_default();
                    el.set_attribute("href", &href.replace("http:", "https:"))?;
                    Ok(())
                }))
                .append_element_content_handler(lol_html::element!("head", |el| {
                    el.append("<script src=\"/injected.js\"></script>", lol_html::html_content::ContentType::Html);
                    Ok(())
                }));
        }
        "count10" => {
            for s in TEN {
                settings = settings.append_element_content_handler(lol_html::element!(s, |_| {
                    count.set(count.get() + 1);
                    Ok(())
                }));
            }
        }
        other => panic!("unknown workload {other}"),
    }
    let mut rw = lol_html::HtmlRewriter::new(settings, |c: &[u8]| out += c.len() as u64);
    for piece in doc.chunks(64 << 10) {
        rw.write(piece).expect("no failure");
    }
    rw.end().expect("no failure");
    out + count.get()
}

/// `unit` repeated to about `n` bytes after `prefix`.
fn repeat(prefix: &str, unit: &str, n: usize) -> Vec<u8> {
    let mut out = prefix.as_bytes().to_vec();
    while out.len() < n {
        out.extend_from_slice(unit.as_bytes());
    }
    out
}

/// A generated input of about `n` bytes.
fn adversarial(name: &str, n: usize) -> Vec<u8> {
    match name {
        "unclosed-p" => repeat("", "<p>x", n),
        "unclosed-b" => repeat("", "<b>x", n),
        "unclosed-a" => repeat("", "<a href=#>x", n),
        "nested-tables" => repeat("", "<table><tr><td>", n),
        "deep-svg" => repeat("<svg>", "<g>", n),
        "adoption-agency-middle" => {
            let k = n / 20;
            let mut out = b"<b>".to_vec();
            out.extend(std::iter::repeat_n(&b"<span><div>"[..], k).flatten());
            out.extend(std::iter::repeat_n(&b"</b>"[..], k).flatten());
            out
        }
        other => match htrewrite_benches::ADVERSARIAL.iter().find(|a| a.name == other) {
            Some(a) => (a.build)(n),
            None => panic!("unknown adversarial input {other}"),
        },
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [engine, workload, files @ ..] = args.as_slice() else {
        eprintln!("usage: rewrite ENGINE WORKLOAD FILE... | rewrite ENGINE WORKLOAD --adversarial NAME N");
        std::process::exit(2);
    };
    let docs: Vec<Vec<u8>> = match files {
        [flag, name, n] if flag == "--adversarial" => {
            let n = htrewrite_benches::parse_size(n).expect("a byte count such as 1M");
            vec![adversarial(name, n)]
        }
        _ => files.iter().map(|f| std::fs::read(f).unwrap_or_else(|e| panic!("{f}: {e}"))).collect(),
    };
    let (mut sum, mut bytes) = (0u64, 0u64);
    for doc in docs {
        bytes += doc.len() as u64;
        sum += match engine.as_str() {
            "htrewrite" => htrewrite_run(workload, &doc),
            "lol_html" => lol_html_run(workload, &doc),
            other => panic!("unknown engine {other}"),
        };
    }
    println!("{sum} {bytes}");
}
