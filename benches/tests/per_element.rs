//! Heap per open element, counted (issue 16, "Memory"): for shapes that keep every element open
//! (`<div>` × k, `<b>x` × k, `<table><tr><td>` × k), the peak live heap of one run at k = 10,000
//! and at k = 40,000 elements, read from a counting allocator (`dhat::Alloc` in testing mode); the
//! bytes per open element are the growth between the two divided by 30,000 (what one more open
//! element costs, without the fixed part). Side by side with lol_html 3.x in the same run.
//!
//! The figure includes the unused capacity of vectors and tables grown by doubling: at 40,000
//! entries their capacity is 65,536, at 10,000 16,384, so the growth counts about 1.64 times an
//! element's own entries. Each row is checked against a ceiling: the figures measured when the
//! test was last changed (2026-11-26, after the stack's indexes became lists of positions, a
//! table's matcher record was kept only under a parent with one, and markers of the list of active
//! formatting elements stopped taking an element's room; all rows again on 2026-11-27, after a
//! category containing another stopped listing the other's members and the stack entry became
//! 24 bytes with no slot beside it; and on 2026-11-27 again, after the stack's list of HTML
//! elements came to be kept only from a document's first foreign element on), with about 15 %
//! room. A change that
//! makes an open element cost more fails here; one that makes it cheaper should lower the
//! ceiling. The targets are 96 bytes per element with no handlers (met: the copy that
//! needs no parse holds none, and the full pipeline, the `htrewrite_full` rows, holds 58–85), 160
//! with ten selectors (met) and under lol_html's peak on every shape (met: nested tables 85
//! against 85, the peak at 40,000 units 13,655,660 bytes against 13,699,733; checked here, with
//! ten selectors, for every shape at both sizes: the counts are exact, not timed);
//! `cargo test -p htrewrite-benches --test per_element -- --nocapture` prints the table that says
//! where it stands.
//!
//! Then the memory limit's accounting against the same allocator ([`accounting_follows_the_heap`]).
//!
//! One `#[test]`: dhat allows one profiler at a time per process.

use std::hint::black_box;

use htrewrite_benches::peak_heap;
use htrewrite_benches::pipeline::{Prepared, RewriteEngine, RewriteWorkload};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

const SMALL: usize = 10_000;
const LARGE: usize = 40_000;

/// The shapes: name, the unit repeated (each opens one element that stays open; `<table><tr><td>`
/// opens three, `tbody` implied: four).
const SHAPES: [(&str, &str, usize); 3] = [("div", "<div>", 1), ("b", "<b>x", 1), ("table-tr-td", "<table><tr><td>", 4)];

/// (shape, engine, workload, ceiling in bytes per open element).
const CEILINGS: [(&str, RewriteEngine, RewriteWorkload, usize); 12] = [
    ("div", RewriteEngine::Htrewrite, RewriteWorkload::Passthrough, 0),
    ("div", RewriteEngine::HtrewriteFull, RewriteWorkload::Passthrough, 75),
    ("div", RewriteEngine::Htrewrite, RewriteWorkload::Count10, 75),
    ("div", RewriteEngine::LolHtml, RewriteWorkload::Count10, usize::MAX),
    ("b", RewriteEngine::Htrewrite, RewriteWorkload::Passthrough, 0),
    ("b", RewriteEngine::HtrewriteFull, RewriteWorkload::Passthrough, 67),
    ("b", RewriteEngine::Htrewrite, RewriteWorkload::Count10, 84),
    ("b", RewriteEngine::LolHtml, RewriteWorkload::Count10, usize::MAX),
    ("table-tr-td", RewriteEngine::Htrewrite, RewriteWorkload::Passthrough, 0),
    ("table-tr-td", RewriteEngine::HtrewriteFull, RewriteWorkload::Passthrough, 98),
    ("table-tr-td", RewriteEngine::Htrewrite, RewriteWorkload::Count10, 98),
    ("table-tr-td", RewriteEngine::LolHtml, RewriteWorkload::Count10, usize::MAX),
];

#[test]
fn heap_per_open_element() {
    let prepared = Prepared::new();
    // Warm-up: what an engine initializes once per process is not per element.
    for engine in [RewriteEngine::Htrewrite, RewriteEngine::LolHtml] {
        black_box(engine.run(RewriteWorkload::Count10, b"<p>x", 64 << 10, &prepared));
    }
    println!("| shape | engine | workload | peak at {SMALL} | peak at {LARGE} | bytes per open element | ceiling |");
    println!("|---|---|---|---:|---:|---:|---:|");
    let mut over = Vec::new();
    // Peaks with ten selectors, (shape, engine, small, large): htrewrite's must not exceed lol_html's.
    let mut count10 = Vec::new();
    for (shape, engine, workload, ceiling) in CEILINGS {
        let (_, unit, per_unit) = SHAPES.iter().find(|s| s.0 == shape).copied().expect("a listed shape");
        let doc = |k: usize| unit.repeat(k).into_bytes();
        let (small, large) = (doc(SMALL), doc(LARGE));
        let peak_small = peak_heap(|| engine.run(workload, &small, 64 << 10, &prepared));
        let peak_large = peak_heap(|| engine.run(workload, &large, 64 << 10, &prepared));
        let per = peak_large.saturating_sub(peak_small) / ((LARGE - SMALL) * per_unit);
        if workload == RewriteWorkload::Count10 {
            count10.push((shape, engine, peak_small, peak_large));
        }
        let shown = if ceiling == usize::MAX { "—".to_owned() } else { ceiling.to_string() };
        println!(
            "| {shape} | {} | {} | {peak_small} | {peak_large} | {per} | {shown} |",
            engine.name(),
            workload.name()
        );
        if per > ceiling {
            over.push(format!(
                "{shape} {} {}: {per} bytes per open element > {ceiling}",
                engine.name(),
                workload.name()
            ));
        }
    }
    for &(shape, engine, small, large) in &count10 {
        let lol = count10.iter().find(|c| c.0 == shape && c.1 == RewriteEngine::LolHtml).expect("a lol_html row");
        if engine == RewriteEngine::Htrewrite && (small > lol.2 || large > lol.3) {
            over.push(format!("{shape} count10: peak {small} / {large} bytes > lol_html's {} / {}", lol.2, lol.3));
        }
    }
    assert!(over.is_empty(), "{}", over.join("\n"));
    accounting_follows_the_heap();
}

/// Issue 20, item 1: what `Settings::memory_limit` counts (`Rewriter::held_bytes`, its largest
/// value after any write) is within 1.25× of the measured peak heap of the run, either way, on
/// the shapes that hold the most: a 20 MB attribute being edited, 100,000 open `div`s or `b`s
/// and 30,000 nested tables with the ten selectors, fed in 64 KiB chunks.
fn accounting_follows_the_heap() {
    use htrewrite::{Rewriter, Settings};
    use htrewrite_benches::pipeline::TEN;
    let shapes: [(&str, Vec<u8>, bool); 4] = [
        ("a 20 MB attribute, edited", format!("<p a=\"{}\">x", "y".repeat(20 << 20)).into_bytes(), true),
        ("<div> x 100,000", "<div>".repeat(100_000).into_bytes(), false),
        ("<b>x x 100,000", "<b>x".repeat(100_000).into_bytes(), false),
        ("<table><tr><td> x 30,000", "<table><tr><td>".repeat(30_000).into_bytes(), false),
    ];
    println!();
    println!("| shape | peak heap | largest held_bytes | peak ÷ held |");
    println!("|---|---:|---:|---:|");
    let mut off = Vec::new();
    for (name, doc, edit) in shapes {
        let mut held = 0usize;
        let peak = peak_heap(|| {
            let settings = if edit {
                Settings::new().element("p", |el| {
                    el.set_attribute("a", "z")?;
                    Ok(())
                })
            } else {
                TEN.iter().fold(Settings::new(), |s, sel| s.element(sel, |_| Ok(())))
            };
            let mut rw = Rewriter::new(settings, |_: &[u8]| {}).expect("valid selectors");
            for chunk in doc.chunks(64 << 10) {
                rw.write(chunk).expect("no limit set");
                held = held.max(rw.held_bytes());
            }
            let _sink = rw.end().expect("no limit set");
            0
        });
        let ratio = peak as f64 / held as f64;
        println!("| {name} | {peak} | {held} | {ratio:.2} |");
        if !(0.8..=1.25).contains(&ratio) {
            off.push(format!("{name}: peak heap {peak}, counted {held} ({ratio:.2}×)"));
        }
    }
    assert!(off.is_empty(), "accounting off by more than 1.25×: {}", off.join("; "));
}
