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
//! no argument parsing, file reading, input generation or selector compilation.
//! Prints `checksum bytes`. Errors exit with 2 (clap's usage errors too).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use htrewrite_benches::pipeline::{Prepared, RewriteEngine, RewriteWorkload};
use htrewrite_benches::{ADVERSARIAL, TREE_ADVERSARIAL, adversarial_input, parse_byte_count, parse_size};

/// Runs one rewriter workload of one engine over files or a generated input and prints
/// `checksum bytes`, for callgrind (`benches/rewriter-instructions.sh`).
#[derive(Debug, Parser)]
#[command(name = "rewrite")]
struct Args {
    /// Chunk size the input is fed in (`65536`, `64K`, `1M`).
    #[arg(long, value_name = "BYTES", default_value = "64K", value_parser = parse_byte_count)]
    chunk: usize,
    /// Print the adversarial inputs' names, one a line, and exit.
    #[arg(long, exclusive = true)]
    list_adversarial: bool,
    /// The engine: htrewrite, htrewrite_full, lol_html, html5ever_tokenizer or html5ever_dom.
    #[arg(value_name = "ENGINE", required_unless_present = "list_adversarial")]
    engine: Option<RewriteEngine>,
    /// The workload: passthrough, cdn, rewrite, count10, text or select1000.
    #[arg(value_name = "WORKLOAD", required_unless_present = "list_adversarial")]
    workload: Option<RewriteWorkload>,
    /// Generate the adversarial input NAME (see --list-adversarial) at about BYTES bytes
    /// (`64K`, `1M`) instead of reading files.
    #[arg(long, num_args = 2, value_names = ["NAME", "BYTES"], conflicts_with = "files")]
    adversarial: Option<Vec<String>>,
    /// The input files.
    #[arg(value_name = "FILE", required_unless_present_any = ["adversarial", "list_adversarial"])]
    files: Vec<PathBuf>,
}

/// The work callgrind counts: every document through the engine.
#[inline(never)]
fn measured(engine: RewriteEngine, w: RewriteWorkload, docs: &[Vec<u8>], chunk: usize, p: &Prepared) -> u64 {
    docs.iter().fold(0u64, |sum, doc| sum.wrapping_add(engine.run(w, std::hint::black_box(doc), chunk, p)))
}

fn run(args: Args) -> Result<(), String> {
    let engine = args.engine.expect("clap requires ENGINE without --list-adversarial");
    let w = args.workload.expect("clap requires WORKLOAD without --list-adversarial");
    if !engine.supports(w) {
        return Err(format!("{} does not run {}", engine.name(), w.name()));
    }
    let docs: Vec<Vec<u8>> = match args.adversarial.as_deref() {
        Some([name, n]) => {
            let n = parse_size(n).ok_or("--adversarial: a byte count such as 64K")?;
            vec![adversarial_input(name, n).ok_or_else(|| format!("unknown adversarial input {name:?}"))?]
        }
        _ => args
            .files
            .iter()
            .map(|f| std::fs::read(f).map_err(|e| format!("{}: {e}", f.display())))
            .collect::<Result<_, _>>()?,
    };
    let prepared = Prepared::new();
    let sum = measured(engine, w, &docs, args.chunk, &prepared);
    println!("{sum} {}", docs.iter().map(Vec::len).sum::<usize>());
    Ok(())
}

fn main() -> ExitCode {
    let args = Args::parse();
    if args.list_adversarial {
        for a in ADVERSARIAL.iter().chain(TREE_ADVERSARIAL) {
            println!("{}", a.name);
        }
        return ExitCode::SUCCESS;
    }
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("rewrite: {message}");
            ExitCode::from(2)
        }
    }
}
