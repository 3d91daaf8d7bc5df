//! Runs one engine over files a given number of times, for instruction
//! counting (`benches/instructions.sh` runs it under callgrind).
//!
//! ```text
//! count --engine htrewrite|lol_html [--chunk BYTES] [--iterations N] FILE...
//! count --engine htrewrite|lol_html [--chunk BYTES] [--iterations N] --adversarial NAME --size BYTES
//! count --list-adversarial
//! ```
//!
//! `--adversarial` generates one of the benchmark's adversarial inputs
//! (`htrewrite_benches::ADVERSARIAL`) of about `--size` bytes instead of
//! reading files. Prints one line: `engine=… files=… bytes_per_iteration=… iterations=… checksum=…`.
//! With `--iterations 0` it only reads the files, so the difference between two
//! runs is the engine's own work. Errors exit with 2 (clap's usage errors too).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use htrewrite_benches::{ADVERSARIAL, Adversarial, Engine, parse_byte_count, parse_size};

/// Runs one engine over files (or a generated adversarial input) a given number of times and
/// prints a checksum, for instruction counts (`benches/instructions.sh`).
#[derive(Debug, Parser)]
#[command(name = "count")]
struct Args {
    /// The engine: `htrewrite` (the tokenizer) or `lol_html` (pass-through, no handlers).
    #[arg(long, value_name = "ENGINE", value_parser = engine, required_unless_present = "list_adversarial")]
    engine: Option<Engine>,
    /// Chunk size the input is fed in (`65536`, `64K`, `1M`).
    #[arg(long, value_name = "BYTES", default_value = "64K", value_parser = parse_byte_count)]
    chunk: usize,
    /// Passes over the inputs (0: only read them).
    #[arg(long, value_name = "N", default_value_t = 1)]
    iterations: usize,
    /// Generate this adversarial input (see --list-adversarial) instead of reading files.
    #[arg(long, value_name = "NAME", value_parser = adversarial, requires = "size", conflicts_with = "files")]
    adversarial: Option<&'static Adversarial>,
    /// The adversarial input's size in bytes (`256K`, `1M`).
    #[arg(long, value_name = "BYTES", value_parser = size, requires = "adversarial")]
    size: Option<usize>,
    /// Print the adversarial inputs' names, one a line, and exit.
    #[arg(long, exclusive = true)]
    list_adversarial: bool,
    /// The input files.
    #[arg(value_name = "FILE", required_unless_present_any = ["adversarial", "list_adversarial"])]
    files: Vec<PathBuf>,
}

fn engine(name: &str) -> Result<Engine, String> {
    Engine::from_name(name).ok_or_else(|| format!("unknown engine {name:?} (htrewrite or lol_html)"))
}

fn adversarial(name: &str) -> Result<&'static Adversarial, String> {
    ADVERSARIAL
        .iter()
        .find(|a| a.name == name)
        .ok_or_else(|| format!("unknown input {name:?} (see --list-adversarial)"))
}

fn size(s: &str) -> Result<usize, String> {
    parse_size(s).ok_or_else(|| format!("{s:?} is not a byte count such as 256K"))
}

fn main() -> ExitCode {
    let args = Args::parse();
    if args.list_adversarial {
        for a in ADVERSARIAL {
            println!("{}", a.name);
        }
        return ExitCode::SUCCESS;
    }
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("count: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &Args) -> Result<(), String> {
    let engine = args.engine.expect("clap requires --engine without --list-adversarial");
    let docs = match (args.adversarial, args.size) {
        (Some(a), Some(size)) => vec![(a.build)(size)],
        _ => args
            .files
            .iter()
            .map(|f| std::fs::read(f).map_err(|e| format!("{}: {e}", f.display())))
            .collect::<Result<Vec<Vec<u8>>, String>>()?,
    };
    let bytes: usize = docs.iter().map(Vec::len).sum();
    let mut checksum = 0u64;
    for _ in 0..args.iterations {
        for doc in &docs {
            checksum = checksum.wrapping_add(engine.run(std::hint::black_box(doc), args.chunk));
        }
    }
    println!(
        "engine={} files={} bytes_per_iteration={bytes} iterations={} chunk={} checksum={checksum}",
        engine.name(),
        docs.len(),
        args.iterations,
        args.chunk
    );
    Ok(())
}
