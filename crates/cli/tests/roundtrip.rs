//! Round-trip: `htrewrite FILE` with no actions prints every real page byte
//! for byte — the vendored pages in `tests/data/corpus/` and, when
//! `HTREWRITE_CORPUS` names a folder, every `.html` or `.htm` file under it. One named
//! test per page (`cargo test -p htrewrite-cli --test roundtrip -- NAME`).

use std::path::{Path, PathBuf};
use std::process::Command;

use htrewrite_testkit::corpus;
use libtest_mimic::{Arguments, Failed, Trial};

fn roundtrip(path: &Path, args: &[&str]) -> Result<(), Failed> {
    let input = std::fs::read(path).map_err(|e| format!("read {}: {e}", path.display()))?;
    let out = Command::new(env!("CARGO_BIN_EXE_htrewrite")).args(args).arg(path).output()?;
    if !out.status.success() {
        return Err(format!("exit {:?}: {}", out.status.code(), String::from_utf8_lossy(&out.stderr)).into());
    }
    if out.stdout != input {
        let at = out.stdout.iter().zip(&input).position(|(a, b)| a != b).unwrap_or(out.stdout.len().min(input.len()));
        return Err(
            format!("output differs from input at byte {at} ({} vs {} bytes)", out.stdout.len(), input.len()).into()
        );
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let mut found: Vec<(String, PathBuf)> =
        corpus::vendored_html_pages().into_iter().map(|(rel, path)| (format!("vendored/{rel}"), path)).collect();
    // A variable that names no pages fails here rather than testing nothing.
    let extra = corpus::env_html_pages().unwrap_or_default();
    found.extend(extra.into_iter().map(|(rel, path)| (format!("corpus/{rel}"), path)));
    let mut trials = Vec::new();
    for (name, path) in found {
        let p = path.clone();
        trials.push(Trial::test(format!("{name}/no-actions"), move || roundtrip(&p, &[])));
        // A read-only-equivalent rewrite: handlers run on every element, change nothing.
        trials.push(Trial::test(format!("{name}/no-op-handlers"), move || {
            roundtrip(&path, &["--remove-attr", "*", "data-htrewrite-absent"])
        }));
    }
    libtest_mimic::run(&args, trials).exit();
}
