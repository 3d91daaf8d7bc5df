//! html5lib tree-construction conformance of the shadow (issue 3, proof 1 and 2).
//!
//! Every `#data` case of `tests/data/html5lib-tests/tree-construction/*.dat` and
//! `wpt-additions/*.dat` is one trial per scripting mode it applies to, named like
//! `tests1.dat#012 [script-on]` (1-based case index; cases with neither `#script-on` nor
//! `#script-off` run in both modes). Filter as usual: `cargo test -p htrewrite-shadow --test
//! html5lib_tree -- tests1.dat#012`.
//!
//! Each trial feeds the input through `Tokenizer` + `ShadowSink` whole, one byte at a time
//! and cut in two at every byte (inputs up to 256 bytes), and in 3 seeded random splittings (the seed is printed on failure;
//! `HTREWRITE_SEED` changes the base), rebuilds a DOM from the shadow's events alone
//! (`common/tree.rs`, `common/dom.rs`) and checks:
//! - the html5lib dump of that DOM equals the expected `#document` for every chunking;
//! - the events are the same for every chunking, once adjacent `Text` events are merged.
//!
//! Only trees are compared, not `#errors`: parse errors are the tokenizer's and the shadow's
//! diagnostics, checked elsewhere.
//!
//! Fragment cases (`#document-fragment`) use `ShadowOptions::fragment_context` and start the
//! tokenizer in the context element's text mode, as the fragment parsing algorithm does.
//!
//! `tree-construction/scripted/*.dat` need a script engine (their expected trees show the effect
//! of `document.write` and DOM calls): they are listed as ignored trials, counted in the summary.
//!
//! Cases made stale by later changes of the Standard are listed, each with its reason, in
//! `tests/expected-differences.toml`. Listed cases still run: they must still differ from the
//! stale expectation (and be chunking-independent); a listed case that now matches fails as a
//! "stale entry".

use crate::common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use common::chunks::{self, Chunking};
use common::dat::{self, Case};
use common::drive::{self, Run};
use common::expected::{self, Difference};
use common::tree::Tree;
use htrewrite_shadow::OwnedEvent;
use libtest_mimic::{Failed, Trial};

pub(crate) fn trials() -> Vec<Trial> {
    let cases = dat::load_all();
    let differences = expected::load();

    for d in &differences {
        let exists = cases.iter().any(|c| {
            c.id() == d.case
                && !c.file.starts_with("scripted/")
                && c.modes().iter().any(|&m| d.mode.as_deref().is_none_or(|dm| dm == dat::mode_name(m)))
        });
        assert!(exists, "{}: line {}: no such case/mode {} {:?}", expected::PATH, d.line, d.case, d.mode);
    }

    let mut trials = vec![self_check(&cases), Trial::test("harness::event-application", event_application)];
    let (mut scripted, mut listed) = (0, 0);
    for case in cases {
        let case = Arc::new(case);
        for scripting in case.modes() {
            let mode = dat::mode_name(scripting);
            let name = format!("{} [{mode}]", case.id());
            if case.file.starts_with("scripted/") {
                scripted += 1;
                trials.push(Trial::test(name, || Ok(())).with_ignored_flag(true));
                continue;
            }
            let difference = differences.iter().find(|d| d.covers(&case.id(), mode)).cloned();
            listed += usize::from(difference.is_some());
            let case = Arc::clone(&case);
            trials.push(Trial::test(name.clone(), move || check(&name, &case, scripting, difference.as_ref())));
        }
    }
    eprintln!(
        "html5lib tree construction: {} trials; {} expected differences ({listed} trials) listed with their \
         reasons in crates/shadow/tests/expected-differences.toml; {scripted} trials of \
         tree-construction/scripted/ ignored (they need script execution); trees are compared, #errors are not",
        trials.len(),
        differences.len(),
    );
    trials
}

/// `harness::self-check`: the `.dat` reader found every case, and every expected tree survives
/// being read back into the test DOM and dumped again (so the dump format is html5lib's).
fn self_check(cases: &[Case]) -> Trial {
    let counts: Vec<(bool, bool)> =
        cases.iter().map(|c| (c.file.starts_with("wpt-additions/"), c.fragment.is_some())).collect();
    let documents: Vec<(String, bool, String)> =
        cases.iter().map(|c| (c.id(), c.file.starts_with("wpt-additions/"), c.document.clone())).collect();
    Trial::test("harness::self-check", move || {
        let html5lib = counts.iter().filter(|c| !c.0).count();
        let wpt = counts.iter().filter(|c| c.0).count();
        // VENDORED.md: 1,796 tree-construction cases in 60 files (scripted/ included), 122 wpt-additions.
        if (html5lib, wpt) != (1796, 122) {
            return Err(
                format!("read {html5lib} tree-construction and {wpt} wpt-additions cases, not 1796 and 122").into()
            );
        }
        let mut bad = Vec::new();
        for (id, _, document) in &documents {
            match common::undump::undump(document) {
                Ok(dom) => {
                    let again = dom.dump(common::dom::Dom::DOCUMENT);
                    if &again != document {
                        bad.push(format!(
                            "{id}: dump of the expected tree differs:\n{}",
                            side_by_side(document, &again)
                        ));
                    }
                }
                Err(e) => bad.push(format!("{id}: cannot read the expected tree: {e}")),
            }
        }
        if bad.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "{} expected trees do not round-trip:\n{}",
                bad.len(),
                bad.iter().take(5).cloned().collect::<Vec<_>>().join("\n")
            )
            .into())
        }
    })
}

/// `harness::event-application`: the test DOM applies events as `Event`'s docs say (foster
/// parenting before a table with text merging, template contents, the adoption agency's moves).
fn event_application() -> Result<(), Failed> {
    use htrewrite_shadow::{Namespace, NodeId, Origin, OwnedEvent as E, Position as P};
    let el = |id: u64, name: &str, position: P| E::ElementOpened {
        id: NodeId(id),
        name: name.into(),
        ns: Namespace::Html,
        attrs: Vec::new(),
        origin: Origin::Implied,
        position,
        self_closing: false,
    };
    let text = |position: P, t: &str| E::Text { position, text: t.into() };
    let doc = NodeId::DOCUMENT;
    let skeleton = [
        el(1, "html", P::Append { parent: doc }),
        el(2, "head", P::Append { parent: NodeId(1) }),
        el(3, "body", P::Append { parent: NodeId(1) }),
    ];
    let cases: Vec<(&str, Vec<E>, &str)> = vec![
        (
            "foster parenting merges text before the table",
            vec![
                el(4, "table", P::Append { parent: NodeId(3) }),
                text(P::InsertBefore { parent: NodeId(3), before: NodeId(4) }, "a"),
                text(P::InsertBefore { parent: NodeId(3), before: NodeId(4) }, "b"),
                text(P::Append { parent: NodeId(4) }, " "),
            ],
            "| <html>\n|   <head>\n|   <body>\n|     \"ab\"\n|     <table>\n|       \" \"",
        ),
        (
            "template contents",
            vec![
                el(4, "template", P::Append { parent: NodeId(2) }),
                text(P::AppendToTemplateContents { template: NodeId(4) }, "x"),
                el(5, "table", P::AppendToTemplateContents { template: NodeId(4) }),
                text(P::InsertBefore { parent: NodeId(4), before: NodeId(5) }, "y"),
            ],
            "| <html>\n|   <head>\n|     <template>\n|       content\n|         \"xy\"\n|         <table>\n|   <body>",
        ),
        (
            "adoption agency for <b><p>x</b>y",
            vec![
                el(4, "b", P::Append { parent: NodeId(3) }),
                el(5, "p", P::Append { parent: NodeId(4) }),
                text(P::Append { parent: NodeId(5) }, "x"),
                E::NodeMoved { id: NodeId(5), to: P::Append { parent: NodeId(3) } },
                el(6, "b", P::Detached),
                E::ChildrenMoved { from: NodeId(5), to: NodeId(6) },
                E::NodeMoved { id: NodeId(6), to: P::Append { parent: NodeId(5) } },
                text(P::Append { parent: NodeId(5) }, "y"),
            ],
            "| <html>\n|   <head>\n|   <body>\n|     <b>\n|     <p>\n|       <b>\n|         \"x\"\n|       \"y\"",
        ),
    ];
    for (what, events, expected) in cases {
        let all: Vec<E> = skeleton.iter().cloned().chain(events).collect();
        let tree = Tree::build(&all);
        let dump = tree.dump(false)?;
        if !tree.errors.is_empty() || dump != expected {
            return Err(format!("{what}: {:?}\n{}", tree.errors, side_by_side(expected, &dump)).into());
        }
    }
    Ok(())
}

/// Runs one chunking, recording with `recorder`, turning a panic into an
/// error that names the chunking.
fn run_chunking(
    name: &str,
    case: &Case,
    scripting: bool,
    chunking: &Chunking,
    recorder: drive::Recorder,
) -> Result<Run, String> {
    let fragment = case.fragment.as_ref();
    let declines = recorder.declines;
    catch_unwind(AssertUnwindSafe(|| drive::run_with(&case.data, chunking, fragment, scripting, recorder))).map_err(
        |panic| {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_else(|| "non-string panic".into());
            let sink = if declines { " (a sink that declines text and attributes)" } else { "" };
            format!("{name}: panicked when fed {}{}{sink}: {msg}", chunking.name, describe_cuts(chunking))
        },
    )
}

fn describe_cuts(chunking: &Chunking) -> String {
    if chunking.name.starts_with("random") { format!(" (cuts at {:?})", chunking.cuts()) } else { String::new() }
}

fn tree_of(run: &Run, fragment: bool) -> (String, Vec<String>) {
    let tree = Tree::build(&run.events);
    match tree.dump(fragment) {
        Ok(dump) => (dump, tree.errors),
        Err(e) => {
            let mut errors = tree.errors;
            errors.push(e);
            (String::new(), errors)
        }
    }
}

fn check(name: &str, case: &Case, scripting: bool, difference: Option<&Difference>) -> Result<(), Failed> {
    let chunkings = chunks::chunkings(name, case.data.len());
    let fragment = case.fragment.is_some();
    let mut problems: Vec<String> = Vec::new();

    let whole = run_chunking(name, case, scripting, &chunkings[0], drive::Recorder::default())?;
    let whole_events = OwnedEvent::canonical(&whole.events);
    let (whole_tree, errors) = tree_of(&whole, fragment);
    for e in errors {
        problems.push(format!("event not applicable (whole input): {e}"));
    }
    if let Err(e) = drive::check_spans(&case.data, &whole.events) {
        problems.push(format!("spans in events do not point at their tags (whole input): {e}"));
    }
    if let Err(e) = OwnedEvent::check_pairing(&whole.events) {
        problems.push(format!("opened/closed events do not pair up (whole input): {e}"));
    }

    match difference {
        None if whole_tree != case.document => {
            problems.push(format!("tree differs (whole input):\n{}", side_by_side(&case.document, &whole_tree)));
        }
        Some(d) if whole_tree == case.document => problems.push(format!(
            "stale entry: the tree now matches the expected one; remove this case from \
             expected-differences.toml (line {}; reason given: {})",
            d.line, d.reason
        )),
        _ => {}
    }

    // A sink that declines text and attributes gets the same events less
    // those (the shadow skips decoding them), whole and at the first other
    // chunking (every byte for short inputs); one that also declines text
    // events gets them less the text events; one that takes attributes but
    // not their values gets them with empty values where tree construction
    // does not read them.
    for (k, no_text_events, values) in [(0, false, false), (1, false, false), (0, true, false), (1, false, true)] {
        let Some(chunking) = chunkings.get(k) else { continue };
        let recorder =
            drive::Recorder { events: Vec::new(), declines: !values, no_text_events, declines_values: values };
        let expected = OwnedEvent::canonical(&OwnedEvent::as_declined_by(&whole.events, &recorder));
        match run_chunking(name, case, scripting, chunking, recorder) {
            Ok(run) => {
                let events = OwnedEvent::canonical(&run.events);
                if events != expected {
                    let i = events.iter().zip(&expected).position(|(x, y)| x != y);
                    let i = i.unwrap_or(events.len().min(expected.len()));
                    problems.push(format!(
                        "a sink that declines {} gets other events when fed {}{}: first \
                         difference at event #{i}:\n  expected: {:?}\n  declined: {:?}",
                        match (no_text_events, values) {
                            (_, true) => "attribute values",
                            (true, false) => "text events and attributes",
                            (false, false) => "text and attributes",
                        },
                        chunking.name,
                        describe_cuts(chunking),
                        expected.get(i),
                        events.get(i)
                    ));
                }
            }
            Err(e) => problems.push(e),
        }
    }

    for chunking in &chunkings[1..] {
        let run = match run_chunking(name, case, scripting, chunking, drive::Recorder::default()) {
            Ok(run) => run,
            Err(e) => {
                problems.push(e);
                continue;
            }
        };
        let how = format!("{}{}", chunking.name, describe_cuts(chunking));
        let events = OwnedEvent::canonical(&run.events);
        if events != whole_events {
            // Say whether anything but the spans of `CloseCause::Implied { by }` differs, so that
            // one systematic difference does not hide others.
            let loose = drive::without_implied_spans(&events);
            let whole_loose = drive::without_implied_spans(&whole_events);
            let only = if loose == whole_loose { " (only in CloseCause::Implied spans)" } else { "" };
            let (a, b) = if only.is_empty() { (&loose, &whole_loose) } else { (&events, &whole_events) };
            let i = a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
            problems.push(format!(
                "events differ{only} when fed {how}: first difference at event #{i}:\n  whole:   {:?}\n  chunked: {:?}",
                b.get(i),
                a.get(i)
            ));
        }
        let (tree, _) = tree_of(&run, fragment);
        if tree != whole_tree {
            problems.push(format!("tree differs when fed {how}:\n{}", side_by_side(&whole_tree, &tree)));
        }
    }

    if problems.is_empty() {
        return Ok(());
    }
    let mut msg = format!("{}:{} {}\ninput: {:?}\n", case.file, case.line, name, String::from_utf8_lossy(&case.data));
    if let Some(ctx) = &case.fragment {
        msg.push_str(&format!("fragment context: {:?} {}\n", ctx.ns, ctx.name));
    }
    if let Some(d) = difference {
        msg.push_str(&format!("listed as an expected difference: {}\n", d.reason));
    }
    for p in problems.iter().take(4) {
        msg.push_str(p);
        msg.push('\n');
    }
    if problems.len() > 4 {
        msg.push_str(&format!("… and {} more problems\n", problems.len() - 4));
    }
    Err(msg.into())
}

/// The expected and actual dumps, line by line, marking the lines that differ.
fn side_by_side(expected: &str, actual: &str) -> String {
    let e: Vec<&str> = expected.lines().collect();
    let a: Vec<&str> = actual.lines().collect();
    let mut out = String::from("  expected:\n");
    for (i, line) in e.iter().enumerate() {
        let mark = if a.get(i) == Some(line) { ' ' } else { '-' };
        out.push_str(&format!("  {mark} {line}\n"));
    }
    out.push_str("  actual:\n");
    for (i, line) in a.iter().enumerate() {
        let mark = if e.get(i) == Some(line) { ' ' } else { '+' };
        out.push_str(&format!("  {mark} {line}\n"));
    }
    out
}
