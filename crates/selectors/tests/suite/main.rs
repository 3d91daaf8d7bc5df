//! The selectors' integration tests in one binary: each module was a test
//! binary of its own, each linking the pipeline and its oracles again. A
//! module's tests are of the kind named after it, printed before each test's
//! name and matched by filters: `cargo test -p htrewrite-selectors --test
//! suite -- '[reference]'` runs [`reference`]'s tests. After the run, the
//! totals of [`differential`] and [`reference`] (printed when their trials
//! ran).

mod common;

mod differential;
mod features;
mod lol_html;
mod reference;

fn main() {
    // The reference first: its trial of the corpus's largest page is the
    // suite's longest (15 s), so it starts first (trials run in order).
    let conclusion = htrewrite_testkit::suite::run(&[
        ("reference", reference::trials),
        ("differential", differential::trials),
        ("features", features::trials),
        ("lol_html", lol_html::trials),
    ]);
    differential::report();
    reference::report();
    conclusion.exit();
}
