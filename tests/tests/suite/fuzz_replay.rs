//! The fuzz targets (`fuzz/`, crate `htrewrite-fuzz`) replayed as tests: every committed seed of
//! every target (`fuzz/seeds/<target>/`, where each crash input found by fuzzing is moved once
//! fixed) is a trial of its own, `<target>/<file>`, and each target runs 3,000 inputs generated
//! from its dictionary with the fixed seed 1, `<target>/random`, as the stable replay runner does
//! with `--random 3000 --seed 1` (`cargo run --release --manifest-path fuzz/Cargo.toml
//! --no-default-features --bin replay -- --help`; the runner stays for files and other seeds).
//! A target checks its properties by panicking: each trial reports the panic's message and place
//! ([`harness::catch`]), a random case its index too (the replay runner with the same arguments
//! saves the failing input to a file).

use std::path::{Path, PathBuf};

use htrewrite_conformance::harness;
use htrewrite_fuzz::{TARGETS, Target};
use libtest_mimic::{Failed, Trial};

/// Generated inputs per target, and the generator's seed: the replay runner's `--random 3000
/// --seed 1`, which CI ran before these trials.
const RANDOM_CASES: usize = 3_000;
const RANDOM_SEED: u64 = 1;

pub(crate) fn trials() -> Vec<Trial> {
    harness::install_panic_hook();
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds");
    let mut trials = Vec::new();
    for target in TARGETS {
        let dir = seeds.join(target.name);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("a seed folder entry").path())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "{}: no seeds", dir.display());
        for file in files {
            let name = format!("{}/{}", target.name, file.file_name().expect("a file name").to_string_lossy());
            trials.push(Trial::test(name, move || {
                let data = std::fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))?;
                Ok(harness::catch(|| (target.run)(&data))?)
            }));
        }
        trials.push(Trial::test(format!("{}/random", target.name), move || random(target)));
    }
    trials
}

/// Runs [`RANDOM_CASES`] generated inputs through `target`, every one even after a failure;
/// fails naming each failing case.
fn random(target: Target) -> Result<(), Failed> {
    let mut failures = Vec::new();
    for (i, data) in target.generated(RANDOM_SEED, target.max_pieces).take(RANDOM_CASES).enumerate() {
        if let Err(message) = harness::catch(|| (target.run)(&data)) {
            failures.push(format!("case {i}: {message}"));
        }
    }
    if failures.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{} of {RANDOM_CASES} generated inputs failed (the input of case i: `cargo run --release --manifest-path \
         fuzz/Cargo.toml --no-default-features --bin replay -- --target {} --random <i + 1> --seed {RANDOM_SEED}` \
         saves it):\n{}",
        failures.len(),
        target.name,
        failures.join("\n")
    )
    .into())
}
