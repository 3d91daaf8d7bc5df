//! One test binary for a crate's integration-test files: each file a module
//! that returns its trials, each trial of the kind named after its module.
//!
//! One binary per file made the test build link the pipeline again for each
//! (most of CI's time went to that build). The kind is printed in brackets
//! before a trial's name and is part of what filters match, so one file's
//! tests still run alone: `cargo test -p htrewrite --test suite -- '[parsed]'`.

use libtest_mimic::{Arguments, Conclusion, Trial};

/// One module of a suite: the kind its trials get (the module's name) and
/// the function that lists them.
pub type Module = (&'static str, fn() -> Vec<Trial>);

/// Runs the trials of every module in `modules`, in that order, with the
/// command line's arguments (filters, `--list`, `--test-threads`), each trial
/// of its module's kind; returns the conclusion for the caller to print
/// totals after and [`Conclusion::exit`].
///
/// # Example
/// ```no_run
/// use libtest_mimic::Trial;
///
/// fn trials() -> Vec<Trial> {
///     vec![Trial::test("adds", || if 1 + 1 == 2 { Ok(()) } else { Err("no".into()) })]
/// }
/// htrewrite_testkit::suite::run(&[("arithmetic", trials)]).exit();
/// ```
///
/// # Errors
/// None: failed trials are counted in the returned [`Conclusion`].
pub fn run(modules: &[Module]) -> Conclusion {
    let args = Arguments::from_args();
    let trials =
        modules.iter().flat_map(|&(kind, trials)| trials().into_iter().map(move |t| t.with_kind(kind))).collect();
    libtest_mimic::run(&args, trials)
}
