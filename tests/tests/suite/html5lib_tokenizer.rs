//! html5lib's tokenizer suite (`data/html5lib-tests/tokenizer/*.test`), one trial per test object
//! and initial state, e.g. `test3.test#0412 <description> [RCDATA state]`.
//!
//! Each run starts `Tokenizer::with_text_mode(state, lastStartTag)` with input stream errors on,
//! answers `Feedback::default()` to every token, and compares the tokens in html5lib's form and
//! the sorted multiset of error codes (not their positions) with the expectation. Every run is fed
//! whole, one byte at a time and in three seeded random splittings; all must match.
//!
//! Cases in `tests/expected-differences.toml` run too, and must still differ from their stale
//! expectation (the same way in every chunking).
//!
//! `HTREWRITE_PRINT_EXPECTED_DIFFERENCES=1` prints the entries the rules below generate (the
//! content of `expected-differences.toml`) instead of running. `HTREWRITE_SHOW_DIFFERENCES=1`
//! prints the actual result of each listed case beside its stale expectation, for review.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use htrewrite_conformance::chunking::Chunking;
use htrewrite_conformance::escape_bytes;
use htrewrite_conformance::expected_differences::{self, to_toml};
use htrewrite_conformance::harness::{self, Watchdog};
use htrewrite_conformance::html5lib::{self, Outcome, TokenizerTest};
use libtest_mimic::{Failed, Trial};

/// The reason given to html5lib cases with `<?` in their input.
const PI_REASON: &str = "processing instructions: html5lib expects `<?` to open a bogus comment with \
    `unexpected-question-mark-instead-of-tag-name`; since 2026-06-25 the Standard (whatwg/html \
    320c05f) tokenizes a processing instruction there instead (`<?target ...>` gives a PI token, \
    `<?` cut off by EOF gives nothing, an invalid target gives a bogus comment with a \
    processing-instruction error)";

/// The reason given to cases whose input holds a lone surrogate.
const SURROGATE_REASON: &str = "lone surrogates: the doubleEscaped input holds a lone surrogate, \
    which a byte stream cannot carry (its WTF-8 bytes are fed, which are invalid UTF-8), and the \
    expected output holds one, which our decoded strings (always valid UTF-8) cannot";

/// The rule that generates `expected-differences.toml` for a run.
fn generated_reason(test: &TokenizerTest) -> Option<&'static str> {
    if test.lone_surrogate_in_input {
        Some(SURROGATE_REASON)
    } else if test.input.windows(2).any(|w| w == b"<?") {
        Some(PI_REASON)
    } else {
        None
    }
}

pub(crate) fn trials() -> Vec<Trial> {
    harness::install_panic_hook();
    let tests: Vec<Arc<TokenizerTest>> = html5lib::load_tokenizer_tests().into_iter().map(Arc::new).collect();

    if std::env::var_os("HTREWRITE_PRINT_EXPECTED_DIFFERENCES").is_some() {
        // The list is the output: print it and end the run, as this file's
        // own binary did, before any trial of the suite.
        print_generated(&tests);
        std::process::exit(0);
    }

    // The reader refuses a case listed twice.
    let differences = expected_differences::load();
    let listed: HashMap<String, String> = differences.iter().map(|d| (d.case.clone(), d.reason.clone())).collect();
    let mut trials = Vec::new();

    let watchdog = Watchdog::start(Duration::from_secs(60));
    let mut names = HashSet::new();
    let (mut objects, mut runs) = (0usize, 0usize);
    for test in &tests {
        objects += 1;
        for state in &test.initial_states {
            runs += 1;
            let name = test.trial_name(state);
            names.insert(name.clone());
            let reason = listed.get(&name).cloned();
            let (test, state, watchdog, trial_name) = (Arc::clone(test), state.clone(), watchdog.clone(), name.clone());
            trials.push(Trial::test(name, move || {
                watchdog.watch(&trial_name, || run(&trial_name, &test, &state, reason.as_deref()))
            }));
        }
    }

    for d in &differences {
        if !names.contains(&d.case) {
            let case = d.case.clone();
            trials.push(Trial::test(format!("expected-differences.toml: unknown case {case}"), move || {
                Err(format!("no trial is named `{case}`: fix or remove the entry").into())
            }));
        }
    }

    // The vendored data must be complete (counts from html5lib-tests' README).
    trials.push(Trial::test("data: 6810 test objects, 7036 runs", move || {
        if (objects, runs) == (6810, 7036) {
            Ok(())
        } else {
            Err(format!("found {objects} test objects and {runs} runs in data/html5lib-tests/tokenizer").into())
        }
    }));

    let mut by_category: BTreeMap<&str, usize> = BTreeMap::new();
    for d in &differences {
        *by_category.entry(d.category()).or_default() += 1;
    }
    let mut parts = vec![
        format!("processing instructions: {}", by_category.remove("processing instructions").unwrap_or(0)),
        format!("lone surrogates: {}", by_category.remove("lone surrogates").unwrap_or(0)),
    ];
    parts.extend(by_category.iter().map(|(k, v)| format!("{k}: {v}")));
    println!("expected differences: {} ({})", differences.len(), parts.join(", "));

    trials
}

/// Runs one test in one initial state, in every chunking.
fn run(name: &str, test: &TokenizerTest, state: &str, difference: Option<&str>) -> Result<(), Failed> {
    let Some(mode) = html5lib::text_mode_for_state(state) else {
        return Err(format!("unknown initial state {state:?}").into());
    };
    let expected = Outcome { tokens: test.output.clone(), errors: test.errors.clone() };
    let results: Vec<(Chunking, Result<Outcome, String>)> = Chunking::standard(name, 1)
        .into_iter()
        .map(|c| {
            let chunks = c.chunks(&test.input);
            (c, harness::catch(|| html5lib::tokenize(mode, test.last_start_tag.as_deref(), &chunks)))
        })
        .collect();

    let header = format!(
        "input: \"{}\"\ninitial state: {state}, lastStartTag: {}, mode {mode:?}\n",
        escape_bytes(&test.input),
        test.last_start_tag.as_deref().map_or("none".to_owned(), |t| format!("{t:?}")),
    );

    match difference {
        None => {
            if results.iter().all(|(_, r)| r.as_ref() == Ok(&expected)) {
                return Ok(());
            }
            let mut msg = header;
            msg.push_str(&format!("expected:\n{}", expected.render()));
            msg.push_str(&describe_groups(&test.input, &results, Some(&expected)));
            Err(msg.into())
        }
        Some(reason) => {
            let groups = group(&results);
            let consistent = groups.len() == 1 && groups[0].0.is_ok();
            if !consistent {
                let mut msg = header;
                msg.push_str("listed in expected-differences.toml, but the chunkings disagree or panic:\n");
                msg.push_str(&describe_groups(&test.input, &results, None));
                return Err(msg.into());
            }
            if results[0].1.as_ref() == Ok(&expected) {
                let mut msg = header;
                msg.push_str(&format!(
                    "stale entry: this case now gives html5lib's expectation; remove it from \
                     expected-differences.toml (reason given: {reason})\nexpected and actual:\n{}",
                    expected.render()
                ));
                return Err(msg.into());
            }
            if std::env::var_os("HTREWRITE_SHOW_DIFFERENCES").is_some() {
                let actual = results[0].1.as_ref().expect("checked above");
                println!("\n{name}\n{header}stale expectation:\n{}actual:\n{}", expected.render(), actual.render());
            }
            Ok(())
        }
    }
}

/// Groups chunkings by identical result, in first-seen order.
fn group(results: &[(Chunking, Result<Outcome, String>)]) -> Vec<(&Result<Outcome, String>, Vec<Chunking>)> {
    let mut groups: Vec<(&Result<Outcome, String>, Vec<Chunking>)> = Vec::new();
    for (c, r) in results {
        match groups.iter_mut().find(|(g, _)| *g == r) {
            Some((_, cs)) => cs.push(*c),
            None => groups.push((r, vec![*c])),
        }
    }
    groups
}

/// Describes each distinct result and the chunkings that gave it; with `expected`, the matching
/// group is only named.
fn describe_groups(
    input: &[u8],
    results: &[(Chunking, Result<Outcome, String>)],
    expected: Option<&Outcome>,
) -> String {
    let mut msg = String::new();
    for (r, cs) in group(results) {
        let how: Vec<String> = cs.iter().map(|c| c.describe(input.len())).collect();
        match r {
            Ok(o) if Some(o) == expected => {
                msg.push_str(&format!("matches the expectation with: {}\n", how.join("; ")));
            }
            Ok(o) => {
                msg.push_str(&format!("actual with: {}\n{}", how.join("; "), o.render()));
                if let Some(e) = expected {
                    msg.push_str(&format!("    difference: {}\n", o.difference(e)));
                }
            }
            Err(panic) => msg.push_str(&format!("{panic}\n    with: {}\n", how.join("; "))),
        }
    }
    msg
}

/// Prints the entries of `expected-differences.toml` that the rules generate.
fn print_generated(tests: &[Arc<TokenizerTest>]) {
    println!(
        "# Generated by `HTREWRITE_PRINT_EXPECTED_DIFFERENCES=1 cargo test -p htrewrite-conformance --test suite -- '[html5lib_tokenizer]'`"
    );
    for test in tests {
        if let Some(reason) = generated_reason(test) {
            for state in &test.initial_states {
                println!("\n{}", to_toml(&test.trial_name(state), reason).trim_end());
            }
        }
    }
}
