//! Runs the fuzz targets without libFuzzer, on stable Rust: replays files
//! (crash artifacts, corpora, seeds) and generates random inputs from the
//! dictionary.
//!
//! ```text
//! replay [--target NAME] [--random N] [--seed S] [--max-pieces P] [PATH...]
//! ```
//!
//! Each PATH is a file or a folder (read recursively); every file is one
//! input of the target: `tokenizer_roundtrip` (the default),
//! `tokenizer_shadow`, `rewriter_random`, `selector_parse` or
//! `encoding_sniff`. `--random N` adds N inputs generated from the target's
//! dictionary (at most P pieces each; the default depends on the target);
//! `--seed` fixes the generator (the seed is printed either way). All
//! failures are reported, with the file or the random case's index, and the
//! exit code is 1 if any.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use clap::builder::PossibleValuesParser;
use htrewrite_fuzz::{TARGETS, Target};

/// Runs the fuzz targets without libFuzzer: replays files and generates random inputs from the
/// target's dictionary. Exits 1 if any input fails, 2 on a usage or read error.
#[derive(Debug, Parser)]
#[command(name = "replay")]
struct Args {
    /// The fuzz target.
    #[arg(long, value_name = "NAME", default_value = TARGETS[0].name,
          value_parser = PossibleValuesParser::new(TARGETS.map(|t| t.name)))]
    target: String,
    /// Also run N inputs generated from the target's dictionary.
    #[arg(long, value_name = "N", default_value_t = 0)]
    random: usize,
    /// The generator's seed (default: from the clock; printed either way).
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
    /// At most P dictionary pieces per generated input (default: the target's).
    #[arg(long, value_name = "P")]
    max_pieces: Option<usize>,
    /// Inputs in the target's format: files, or folders read recursively.
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let target = *TARGETS.iter().find(|t| t.name == args.target).expect("clap accepts only the targets' names");
    match run(&args, target) {
        Ok(0) => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("replay: {message}");
            ExitCode::from(2)
        }
    }
}

fn files(path: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if path.is_dir() {
        let mut entries = std::fs::read_dir(path)?.map(|e| e.map(|e| e.path())).collect::<Result<Vec<_>, _>>()?;
        entries.sort();
        for entry in entries {
            files(&entry, out)?;
        }
    } else {
        out.push(path.to_owned());
    }
    Ok(())
}

thread_local! {
    /// Where the last panic happened, set by the panic hook.
    static PANIC_PLACE: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// Runs one input; returns the panic message (and place) if it failed.
fn check(target: fn(&[u8]), input: &[u8]) -> Option<String> {
    catch_unwind(AssertUnwindSafe(|| target(input))).err().map(|e| {
        let message = e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_else(|| "panic".to_owned());
        format!("{message}{}", PANIC_PLACE.with(|p| p.take()))
    })
}

fn run(args: &Args, target: Target) -> Result<usize, String> {
    // Panics are caught and reported below, with the place they came from.
    std::panic::set_hook(Box::new(|info| {
        let place = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        PANIC_PLACE.with(|p| *p.borrow_mut() = place);
    }));
    let mut failures = 0;
    let mut inputs = Vec::new();
    for path in &args.paths {
        files(path, &mut inputs).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    for file in &inputs {
        let data = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
        if let Some(message) = check(target.run, &data) {
            failures += 1;
            println!("FAIL {}: {message}", file.display());
        }
    }
    let random = args.random;
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64)
    });
    if random > 0 {
        let max_pieces = args.max_pieces.unwrap_or(target.max_pieces);
        for (i, data) in target.generated(seed, max_pieces).take(random).enumerate() {
            if let Some(message) = check(target.run, &data) {
                failures += 1;
                let saved = format!("replay-failure-{}-{seed}-{i}.bin", target.name);
                let note = match std::fs::write(&saved, &data) {
                    Ok(()) => format!("input saved to {saved}"),
                    Err(e) => format!("input not saved: {e}"),
                };
                println!("FAIL random case {i} (--seed {seed}): {message}; {note}");
            }
        }
    }
    let generated = if random > 0 { format!(", {random} random inputs (--seed {seed})") } else { String::new() };
    println!(
        "replay {}: {} files{generated}: {} passed, {failures} failed",
        target.name,
        inputs.len(),
        inputs.len() + random - failures
    );
    Ok(failures)
}
