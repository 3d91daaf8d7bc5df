//! Round-trip: `htrewrite FILE` with no actions prints every real page byte
//! for byte — the vendored pages in `tests/data/corpus/` and, when
//! `HTREWRITE_CORPUS` names a folder, every `.html` file under it. One named
//! test per page (`cargo test -p htrewrite-cli --test roundtrip -- NAME`).

use std::path::{Path, PathBuf};
use std::process::Command;

use libtest_mimic::{Arguments, Failed, Trial};

fn pages(dir: &Path, prefix: &str, out: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        let name = format!("{prefix}{}", path.file_name().unwrap_or_default().to_string_lossy());
        if path.is_dir() {
            pages(&path, &format!("{name}/"), out);
        } else if path.extension().is_some_and(|e| e == "html" || e == "htm") {
            out.push((name, path));
        }
    }
}

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
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/corpus");
    let mut found = Vec::new();
    pages(&root, "vendored/", &mut found);
    if let Some(dir) = std::env::var_os("HTREWRITE_CORPUS") {
        pages(Path::new(&dir), "corpus/", &mut found);
    }
    assert!(!found.is_empty(), "no pages under {}", root.display());
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
