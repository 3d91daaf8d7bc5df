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
//! runs is the engine's own work.

use std::process::ExitCode;

use htrewrite_benches::{ADVERSARIAL, Engine, parse_size};

const USAGE: &str = "usage: count --engine htrewrite|lol_html [--chunk BYTES] [--iterations N] \
                     (FILE... | --adversarial NAME --size BYTES) | count --list-adversarial";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("count: {message}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let mut engine = None;
    let mut chunk = 64 << 10;
    let mut iterations = 1usize;
    let mut files = Vec::new();
    let mut adversarial = None;
    let mut size = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--engine" => {
                let v = value("--engine")?;
                engine = Some(Engine::from_name(&v).ok_or_else(|| format!("unknown engine {v:?}"))?);
            }
            "--chunk" => {
                chunk = parse_size(&value("--chunk")?).filter(|&c| c > 0).ok_or("--chunk: a positive byte count")?
            }
            "--iterations" => {
                iterations = value("--iterations")?.parse().map_err(|_| "--iterations: a count".to_owned())?
            }
            "--adversarial" => {
                let v = value("--adversarial")?;
                adversarial =
                    Some(ADVERSARIAL.iter().find(|a| a.name == v).ok_or_else(|| format!("unknown input {v:?}"))?);
            }
            "--size" => size = Some(parse_size(&value("--size")?).ok_or("--size: a byte count")?),
            "--list-adversarial" => {
                for a in ADVERSARIAL {
                    println!("{}", a.name);
                }
                return Ok(());
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            _ if arg.starts_with("--") => return Err(format!("unknown option {arg}")),
            _ => files.push(arg),
        }
    }
    let engine = engine.ok_or("--engine is required")?;
    let docs = match (adversarial, files.is_empty()) {
        (Some(a), true) => vec![(a.build)(size.ok_or("--adversarial needs --size")?)],
        (Some(_), false) => return Err("give files or --adversarial, not both".to_owned()),
        (None, true) => return Err("no input file".to_owned()),
        (None, false) => files
            .iter()
            .map(|f| std::fs::read(f).map_err(|e| format!("{f}: {e}")))
            .collect::<Result<Vec<Vec<u8>>, String>>()?,
    };
    let bytes: usize = docs.iter().map(Vec::len).sum();
    let mut checksum = 0u64;
    for _ in 0..iterations {
        for doc in &docs {
            checksum = checksum.wrapping_add(engine.run(std::hint::black_box(doc), chunk));
        }
    }
    println!(
        "engine={} files={} bytes_per_iteration={bytes} iterations={iterations} chunk={chunk} checksum={checksum}",
        engine.name(),
        docs.len()
    );
    Ok(())
}
