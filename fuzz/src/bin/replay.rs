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

use htrewrite_fuzz::{TARGETS, parse_dictionary};
use htrewrite_testkit::XorShift64Star;

const USAGE: &str = "usage: replay [--target tokenizer_roundtrip|tokenizer_shadow|rewriter_random|selector_parse|encoding_sniff] \
                     [--random N] [--seed S] [--max-pieces P] [PATH...]";

fn main() -> ExitCode {
    match run() {
        Ok(0) => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("replay: {message}\n{USAGE}");
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

fn run() -> Result<usize, String> {
    let mut random = 0usize;
    let mut seed = None;
    let mut max_pieces = None;
    let mut paths = Vec::new();
    let mut target = TARGETS[0];
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number = |name: &str| -> Result<u64, String> {
            args.next().and_then(|v| v.parse().ok()).ok_or_else(|| format!("{name} needs a number"))
        };
        match arg.as_str() {
            "--random" => random = number("--random")? as usize,
            "--seed" => seed = Some(number("--seed")?),
            "--max-pieces" => max_pieces = Some(number("--max-pieces")? as usize),
            "--target" => {
                let name = args.next();
                target = *TARGETS
                    .iter()
                    .find(|t| Some(t.name) == name.as_deref())
                    .ok_or_else(|| format!("unknown target {name:?}"))?;
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(0);
            }
            _ if arg.starts_with("--") => return Err(format!("unknown option {arg}")),
            _ => paths.push(PathBuf::from(arg)),
        }
    }
    // Panics are caught and reported below, with the place they came from.
    std::panic::set_hook(Box::new(|info| {
        let place = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        PANIC_PLACE.with(|p| *p.borrow_mut() = place);
    }));
    let mut failures = 0;
    let mut inputs = Vec::new();
    for path in &paths {
        files(path, &mut inputs).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    for file in &inputs {
        let data = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
        if let Some(message) = check(target.run, &data) {
            failures += 1;
            println!("FAIL {}: {message}", file.display());
        }
    }
    let seed = seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64)
    });
    if random > 0 {
        let dictionary = parse_dictionary(target.dictionary);
        let max_pieces = max_pieces.unwrap_or(target.max_pieces);
        let mut rng = XorShift64Star::from_state(seed | 1);
        for i in 0..random {
            let data = (target.generate)(&mut rng, &dictionary, max_pieces);
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
