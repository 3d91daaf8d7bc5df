//! Runs the tokenizer and the tree-construction shadow over files, or over
//! one generated adversarial shape, a given number of times: the binary to
//! time and to count instructions of (`valgrind --tool=callgrind`).
//!
//! ```text
//! cargo run --release -p htrewrite-shadow --example shadow_run -- [--iterations K] FILE...
//! cargo run --release -p htrewrite-shadow --example shadow_run -- [--iterations K] --shape NAME --size BYTES [FILE...]
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

/// A byte count: digits, optionally followed by `K` or `M`.
fn size(s: &str) -> Result<usize, String> {
    let (digits, unit) = match s.as_bytes().last() {
        Some(b'K' | b'k') => (&s[..s.len() - 1], 1 << 10),
        Some(b'M' | b'm') => (&s[..s.len() - 1], 1 << 20),
        _ => (s, 1),
    };
    digits.parse::<usize>().map(|d| d * unit).map_err(|e| format!("{s:?}: {e}"))
}

/// The arguments.
#[derive(clap::Parser)]
struct Args {
    /// How many times each input is run.
    #[arg(long, default_value_t = 1)]
    iterations: usize,
    /// A generated shape to run (with `--size`).
    #[arg(long, requires = "size", value_parser = clap::builder::PossibleValuesParser::new(SHAPES.iter().map(|s| s.0)))]
    shape: Option<String>,
    /// The shape's size in bytes (`K` and `M` suffixes).
    #[arg(long, requires = "shape", value_parser = size)]
    size: Option<usize>,
    /// Files to run, after the shape.
    files: Vec<std::path::PathBuf>,
}

fn main() -> Result<(), String> {
    let args: Args = clap::Parser::parse();
    let mut docs = Vec::new();
    if let (Some(name), Some(n)) = (&args.shape, args.size) {
        docs.push(shape(name, n).ok_or_else(|| format!("unknown shape {name}"))?);
    }
    for file in &args.files {
        docs.push(std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?);
    }
    let iterations = args.iterations;
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
