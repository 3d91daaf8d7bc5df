//! Tokenizer + shadow together are lossless (issue 3, proof 3).
//!
//! Every input of `tests/data/html5lib-tests/tree-construction/**/*.dat` (the `scripted/` ones
//! too: no script runs here) and `wpt-additions/*.dat`, fed through `Tokenizer` driven by the
//! shadow's feedback (text modes, CDATA), must come back byte for byte as the concatenated raw
//! bytes of the tokens: whole, one byte at a time and cut in two at every byte (inputs up to 256
//! bytes), and in 3 seeded random splittings. One trial per case and scripting mode (`<noscript>` is RAWTEXT only with
//! scripting on), named like `tests1.dat#012 [script-on]`; fragment cases start the tokenizer in
//! the context element's text mode.

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use common::chunks;
use common::dat::{self, Case};
use common::drive;
use libtest_mimic::{Arguments, Failed, Trial};

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    for case in dat::load_all() {
        let case = Arc::new(case);
        for scripting in case.modes() {
            let name = format!("{} [{}]", case.id(), dat::mode_name(scripting));
            let case = Arc::clone(&case);
            trials.push(Trial::test(name.clone(), move || check(&name, &case, scripting)));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}

fn check(name: &str, case: &Case, scripting: bool) -> Result<(), Failed> {
    let mut problems = Vec::new();
    for chunking in chunks::chunkings(name, case.data.len()) {
        let cuts = if chunking.name.starts_with("random") {
            format!(" (cuts at {:?})", chunking.cuts())
        } else {
            String::new()
        };
        let run =
            catch_unwind(AssertUnwindSafe(|| drive::run(&case.data, &chunking, case.fragment.as_ref(), scripting)));
        match run {
            Err(_) => problems.push(format!("panicked when fed {}{cuts}", chunking.name)),
            Ok(run) if run.raw != case.data => {
                let at = run
                    .raw
                    .iter()
                    .zip(&case.data)
                    .position(|(a, b)| a != b)
                    .unwrap_or(run.raw.len().min(case.data.len()));
                problems.push(format!(
                    "fed {}{cuts}: raw bytes differ from byte {at} on ({} bytes out, {} in):\n  out: {:?}",
                    chunking.name,
                    run.raw.len(),
                    case.data.len(),
                    String::from_utf8_lossy(&run.raw)
                ));
            }
            Ok(_) => {}
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{}:{} {name}\ninput: {:?}\n{}",
        case.file,
        case.line,
        String::from_utf8_lossy(&case.data),
        problems.join("\n")
    )
    .into())
}
