//! Runs the tokenizer and the tree-construction shadow over files, or over
//! one generated adversarial shape, a given number of times: the binary to
//! time and to count instructions of (`valgrind --tool=callgrind`).
//!
//! ```text
//! cargo run --release -p htrewrite-shadow --example shadow_run -- [--iterations K] FILE...
//! cargo run --release -p htrewrite-shadow --example shadow_run -- [--iterations K] --shape NAME --size BYTES
//! ```
//!
//! Shapes: `adoption-agency-middle-removal` (`<b>` + (`<span><div>`)×n +
//! `</b>`×n), `deep-divs`, `unclosed-a`. Prints the input size, the number of
//! events (a checksum) and the wall time of the passes.

use std::time::Instant;

use htrewrite_shadow::{Event, Shadow, ShadowOptions, ShadowSink};
use htrewrite_tokenizer::Tokenizer;

/// `(name, prefix, [(unit)], suffix)`: the units repeated n times each, in order.
const SHAPES: &[(&str, &str, &[&str], &str)] = &[
    ("adoption-agency-middle-removal", "<b>", &["<span><div>", "</b>"], ""),
    ("deep-divs", "", &["<div>"], ""),
    ("unclosed-a", "", &["<a href=x>"], "x"),
];

fn shape(name: &str, size: usize) -> Option<Vec<u8>> {
    let &(_, prefix, units, suffix) = SHAPES.iter().find(|s| s.0 == name)?;
    let per_n: usize = units.iter().map(|u| u.len()).sum();
    let n = size.div_ceil(per_n);
    let mut out = prefix.as_bytes().to_vec();
    for unit in units {
        out.extend_from_slice(unit.repeat(n).as_bytes());
    }
    out.extend_from_slice(suffix.as_bytes());
    Some(out)
}

fn run(doc: &[u8]) -> u64 {
    let mut events = 0u64;
    let mut sink = ShadowSink::new(Shadow::new(ShadowOptions::default()), |_: Event<'_>| events += 1);
    let mut tokenizer = Tokenizer::new();
    for piece in doc.chunks(64 << 10) {
        tokenizer.feed(piece, &mut sink);
    }
    tokenizer.finish(&mut sink);
    sink.finish();
    drop(sink);
    events
}

fn size(s: &str) -> Option<usize> {
    let (digits, unit) = match s.as_bytes().last()? {
        b'K' | b'k' => (&s[..s.len() - 1], 1 << 10),
        b'M' | b'm' => (&s[..s.len() - 1], 1 << 20),
        _ => (s, 1),
    };
    digits.parse::<usize>().ok().map(|d| d * unit)
}

fn main() -> Result<(), String> {
    let mut iterations = 1usize;
    let mut docs = Vec::new();
    let mut shape_name = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--iterations" => {
                iterations = args.next().and_then(|v| v.parse().ok()).ok_or("--iterations: a count")?;
            }
            "--shape" => shape_name = Some(args.next().ok_or("--shape: a name")?),
            "--size" => {
                let n = args.next().as_deref().and_then(size).ok_or("--size: a byte count")?;
                let name = shape_name.take().ok_or("--size after --shape")?;
                docs.push(shape(&name, n).ok_or_else(|| format!("unknown shape {name}"))?);
            }
            file => docs.push(std::fs::read(file).map_err(|e| format!("{file}: {e}"))?),
        }
    }
    let bytes: usize = docs.iter().map(Vec::len).sum();
    let start = Instant::now();
    let mut events = 0u64;
    for _ in 0..iterations {
        for doc in &docs {
            events = events.wrapping_add(run(std::hint::black_box(doc)));
        }
    }
    println!("bytes={bytes} iterations={iterations} events={events} seconds={:.3}", start.elapsed().as_secs_f64());
    Ok(())
}
