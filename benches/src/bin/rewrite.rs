//! Runs one rewriter workload of one engine over files or a generated input,
//! for instruction counts (`valgrind --tool=callgrind`) of the whole pipeline;
//! `benches/rewriter-instructions.sh` drives it.
//!
//! ```text
//! rewrite [--chunk BYTES] ENGINE WORKLOAD FILE...
//! rewrite [--chunk BYTES] ENGINE WORKLOAD --adversarial NAME BYTES
//! rewrite --list-adversarial
//! ```
//! ENGINE: `htrewrite`, `htrewrite_full`, `lol_html`, `html5ever_tokenizer`, `html5ever_dom`
//! (`htrewrite_benches::pipeline::RewriteEngine`); WORKLOAD: `passthrough`, `cdn`,
//! `rewrite`, `count10`, `text`, `select1000` (`RewriteWorkload`). `--adversarial`
//! generates one of `htrewrite_benches::ADVERSARIAL` or `TREE_ADVERSARIAL` at about
//! BYTES bytes (`64K`, `1M` allowed). Chunks default to 64 KiB.
//!
//! All the engine's work happens inside the function `measured` (never
//! inlined), so `callgrind --toggle-collect='*measured*'` counts exactly it:
//! no file reading, input generation or selector compilation.
//! Prints `checksum bytes`.

use std::process::ExitCode;

use htrewrite_benches::pipeline::{Prepared, RewriteEngine, RewriteWorkload};
use htrewrite_benches::{ADVERSARIAL, TREE_ADVERSARIAL, adversarial_input, parse_size};

const USAGE: &str =
    "usage: rewrite [--chunk BYTES] ENGINE WORKLOAD (FILE... | --adversarial NAME BYTES) | rewrite --list-adversarial";

/// The work callgrind counts: every document through the engine.
#[inline(never)]
fn measured(engine: RewriteEngine, w: RewriteWorkload, docs: &[Vec<u8>], chunk: usize, p: &Prepared) -> u64 {
    docs.iter().fold(0u64, |sum, doc| sum.wrapping_add(engine.run(w, std::hint::black_box(doc), chunk, p)))
}

fn run() -> Result<(), String> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == "--list-adversarial") {
        for a in ADVERSARIAL.iter().chain(TREE_ADVERSARIAL) {
            println!("{}", a.name);
        }
        return Ok(());
    }
    let mut chunk = 64 << 10;
    if args.first().is_some_and(|a| a == "--chunk") {
        let value = args.get(1).ok_or("--chunk needs a value")?;
        chunk = parse_size(value).filter(|&c| c > 0).ok_or("--chunk: a positive byte count")?;
        args.drain(..2);
    }
    let [engine, workload, inputs @ ..] = args.as_slice() else {
        return Err("missing arguments".to_owned());
    };
    let engine = RewriteEngine::from_name(engine).ok_or_else(|| format!("unknown engine {engine:?}"))?;
    let w = RewriteWorkload::from_name(workload).ok_or_else(|| format!("unknown workload {workload:?}"))?;
    if !engine.supports(w) {
        return Err(format!("{} does not run {}", engine.name(), w.name()));
    }
    let docs: Vec<Vec<u8>> = match inputs {
        [flag, name, n] if flag == "--adversarial" => {
            let n = parse_size(n).ok_or("--adversarial: a byte count such as 64K")?;
            vec![adversarial_input(name, n).ok_or_else(|| format!("unknown adversarial input {name:?}"))?]
        }
        [] => return Err("no input".to_owned()),
        files => files.iter().map(|f| std::fs::read(f).map_err(|e| format!("{f}: {e}"))).collect::<Result<_, _>>()?,
    };
    let prepared = Prepared::new();
    let sum = measured(engine, w, &docs, chunk, &prepared);
    println!("{sum} {}", docs.iter().map(Vec::len).sum::<usize>());
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("rewrite: {message}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}
