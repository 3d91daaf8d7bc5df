//! The `htrewrite` binary, run for real: every action, rules files, the
//! read-only modes, `--in-place`, `--check`, `--diff`, exit codes and
//! messages, broken pipes, encodings.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Stdio;

use assert_cmd::Command;
use predicates::prelude::*;

fn htrewrite() -> Command {
    Command::new(env!("CARGO_BIN_EXE_htrewrite"))
}

/// Runs `htrewrite ARGS` on `input` (stdin) and returns stdout, asserting success.
fn run(args: &[&str], input: &str) -> String {
    let out = htrewrite().args(args).write_stdin(input).assert().success().get_output().stdout.clone();
    String::from_utf8(out).unwrap()
}

/// Runs `htrewrite ARGS` on `input` and asserts the exit code.
fn fails(args: &[&str], input: impl Into<Vec<u8>>, code: i32) -> assert_cmd::assert::Assert {
    htrewrite().args(args).write_stdin(input).assert().code(code)
}

const PAGE: &str = "<p class=a id=x>one<p>two <b>bold</b></p><ul><li>a<li>b</ul>";

#[test]
fn each_action_by_flag() {
    let cases: &[(&[&str], &str)] = &[
        (&["--set-attr", "p", "class", "z"], "<p class=z id=x>one<p class=\"z\">two <b>bold</b></p>"),
        (&["--remove-attr", "p", "id"], "<p class=a>one<p>two <b>bold</b></p>"),
        (&["--rename", "b", "strong"], "<p class=a id=x>one<p>two <strong>bold</strong></p>"),
        (&["--remove", "b"], "<p class=a id=x>one<p>two </p>"),
        (&["--unwrap", "b"], "<p class=a id=x>one<p>two bold</p>"),
        (&["--before", "b", "<i>"], "<p class=a id=x>one<p>two <i><b>bold</b></p>"),
        (&["--after", "b", "<i>"], "<p class=a id=x>one<p>two <b>bold</b><i></p>"),
        (&["--prepend", "b", "<i>"], "<p class=a id=x>one<p>two <b><i>bold</b></p>"),
        (&["--append", "b", "<i>"], "<p class=a id=x>one<p>two <b>bold<i></b></p>"),
        (&["--replace", "b", "<i>x</i>"], "<p class=a id=x>one<p>two <i>x</i></p>"),
        (&["--set-inner", "b", "<i>x</i>"], "<p class=a id=x>one<p>two <b><i>x</i></b></p>"),
        (&["--set-text", "b", "<i>"], "<p class=a id=x>one<p>two <b>&lt;i&gt;</b></p>"),
        (&["--before-text", "b", "<&>"], "<p class=a id=x>one<p>two &lt;&amp;&gt;<b>bold</b></p>"),
        (&["--after-text", "b", "<"], "<p class=a id=x>one<p>two <b>bold</b>&lt;</p>"),
        (&["--prepend-text", "b", "<"], "<p class=a id=x>one<p>two <b>&lt;bold</b></p>"),
        (&["--append-text", "b", "<"], "<p class=a id=x>one<p>two <b>bold&lt;</b></p>"),
        (&["--replace-text", "b", "<"], "<p class=a id=x>one<p>two &lt;</p>"),
    ];
    for (args, expected) in cases {
        let out = run(args, PAGE);
        assert_eq!(out, format!("{expected}<ul><li>a<li>b</ul>"), "{args:?}");
    }
}

#[test]
fn implied_ends_decide_where_edits_land() {
    assert_eq!(run(&["--append-text", "li", "!"], "<ul><li>a<li>b</ul>"), "<ul><li>a!<li>b!</ul>");
    assert_eq!(run(&["--remove", "p"], "<p>a<div>b</div>"), "<div>b</div>");
}

#[test]
fn actions_apply_in_command_line_order() {
    // set then remove: gone; remove then set: present (with the later value).
    assert_eq!(run(&["--set-attr", "p", "x", "1", "--remove-attr", "p", "x"], "<p>"), "<p>");
    assert_eq!(run(&["--remove-attr", "p", "x", "--set-attr", "p", "x", "2"], "<p x=0>"), "<p x=\"2\">");
    // across selectors matching the same element
    assert_eq!(
        run(&["--set-attr", "p", "a", "1", "--set-attr", ".c", "a", "2", "--set-attr", "p", "a", "3"], "<p class=c>"),
        "<p class=c a=\"3\">"
    );
    // before content accumulates in order
    assert_eq!(run(&["--before", "b", "1", "--before-text", "b", "2"], "<b>"), "12<b>");
}

#[test]
fn rules_file_applies_with_flags_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("r.toml");
    fs::write(&rules, "version = 1\n[[rule]]\nselector = \"b\"\naction = \"rename\"\nvalue = \"strong\"\n").unwrap();
    let out =
        run(&["--set-attr", "b", "x", "1", "--rules", rules.to_str().unwrap(), "--unwrap", "i"], "<b>t</b><i>u</i>");
    assert_eq!(out, "<strong x=\"1\">t</strong>u");
}

#[test]
fn example_rules_file_works_on_the_sample_page() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = htrewrite()
        .arg("--rules")
        .arg(root.join("examples/rules.toml"))
        .arg(root.join("../../examples/sample.html"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("<table class=\"data\">"), "{out}");
    assert!(out.contains("<body>Rewritten by htrewrite &lt;3"), "{out}");
    assert!(!out.contains("<style>"));
    assert!(out.contains("<img src=\"cod.jpg\" alt=\"Battered cod\" loading=\"lazy\">"), "{out}");
    assert!(out.contains("<img src=chips.jpg loading=eager alt=Chips>"), "{out}");
    assert!(out.contains("<a href=\"https://example.com/menu\" rel=\"noopener noreferrer\">"), "{out}");
    assert!(out.contains("<a href=\"/contact\">"), "{out}");
    assert!(out.contains("\norders close at 9!"), "{out}");
}

#[test]
fn rules_file_error_names_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("bad.toml");
    fs::write(&rules, "version = 1\n\n[[rule]]\nselector = \"img\"\naction = \"set-atr\"\n").unwrap();
    htrewrite()
        .arg("--rules")
        .arg(&rules)
        .write_stdin("<img>")
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::starts_with("htrewrite: "))
        .stderr(predicate::str::contains("bad.toml: line 5, column 10: unknown action `set-atr`"));
    fs::write(&rules, "version = 1\n[[rule]]\nselector = \"img[\"\naction = \"remove\"\n").unwrap();
    htrewrite()
        .arg("--rules")
        .arg(&rules)
        .write_stdin("<img>")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("line 3, column 12: invalid selector \"img[\""));
    fails(&["--rules", "/nonexistent/rules.toml"], "", 2)
        .stderr(predicate::str::contains("--rules /nonexistent/rules.toml: cannot read"));
}

#[test]
fn select_prints_outer_html_in_document_order() {
    let html = "<div id=o>a<div id=i>b</div>c</div><ul><li>x<li>y</ul><p>open";
    assert_eq!(run(&["--select", "div"], html), "<div id=o>a<div id=i>b</div>c</div>\n<div id=i>b</div>\n");
    // implied ends: each <li> ends where the next begins; the last one at </ul>
    assert_eq!(run(&["--select", "li"], html), "<li>x\n<li>y\n");
    // open at the end of input: up to the end
    assert_eq!(run(&["--select", "p"], html), "<p>open\n");
    assert_eq!(run(&["--select", "table"], html), "");
}

#[test]
fn text_of_count_attr() {
    let html = "<a href='/x?a=1&amp;b=2'>one <b>two</b></a><a>three</a><a href=y>";
    assert_eq!(run(&["--text-of", "a"], html), "one two\nthree\n\n");
    assert_eq!(run(&["--count", "a"], html), "3\n");
    assert_eq!(run(&["--count", "a[href]"], html), "2\n");
    assert_eq!(run(&["--attr", "a", "href"], html), "/x?a=1&b=2\ny\n");
}

#[test]
fn read_only_modes_refuse_actions() {
    fails(&["--select", "a", "--remove", "b"], "", 2).stderr(predicate::str::contains("--select is read-only"));
}

#[test]
fn count_per_file_with_several_files() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.html"), dir.path().join("b.html"));
    fs::write(&a, "<p><p>").unwrap();
    fs::write(&b, "<p>").unwrap();
    let out = htrewrite().arg("--count").arg("p").arg(&a).arg(&b).assert().success().get_output().stdout.clone();
    assert_eq!(String::from_utf8(out).unwrap(), format!("{}:2\n{}:1\n", a.display(), b.display()));
}

#[test]
fn in_place_rewrites_atomically_and_keeps_permissions() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("page.html");
    fs::write(&file, "<p>a</p>").unwrap();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o640)).unwrap();
    htrewrite().args(["--in-place", "--set-attr", "p", "class", "x"]).arg(&file).assert().success().stdout("");
    assert_eq!(fs::read_to_string(&file).unwrap(), "<p class=\"x\">a</p>");
    assert_eq!(fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o640);
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file left");
}

#[test]
fn in_place_leaves_unchanged_files_alone() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("page.html");
    fs::write(&file, "<p class=x>a</p>").unwrap();
    let inode = fs::metadata(&file).unwrap().ino();
    htrewrite().args(["-i", "--set-attr", "p", "class", "x"]).arg(&file).assert().success();
    assert_eq!(fs::metadata(&file).unwrap().ino(), inode, "not replaced");
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn in_place_failure_halfway_leaves_the_original_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("page.html");
    // 1 MiB of content before the failing edit, so output was written before it failed.
    let original = format!("{}<script>x</script>", "<p>para</p>\n".repeat(90_000));
    fs::write(&file, &original).unwrap();
    htrewrite()
        .args(["-i", "--set-attr", "p", "class", "x", "--append-text", "script", "</script><b>"])
        .arg(&file)
        .assert()
        .code(4)
        .stderr(predicate::str::contains("htrewrite: "))
        .stderr(predicate::str::contains("append-text \"script\" (--append-text)"))
        .stderr(predicate::str::contains("inserted text would end its element"));
    assert_eq!(fs::read_to_string(&file).unwrap(), original);
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "temporary file removed");
}

#[test]
fn in_place_where_no_temporary_file_can_be_made_exits_3() {
    // /proc takes no new files, even for root; the input itself reads fine.
    htrewrite()
        .args(["-i", "--remove", "b", "/proc/version"])
        .assert()
        .code(3)
        .stderr(predicate::str::starts_with("htrewrite: cannot create a temporary file in /proc"));
}

#[test]
fn in_place_needs_files() {
    fails(&["-i", "--remove", "b"], "", 2);
}

#[test]
fn check_exits_1_on_change_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("page.html");
    fs::write(&file, "<p class=x>a<p class=x>b").unwrap();
    htrewrite().args(["--check", "--set-attr", "p", "class", "x"]).arg(&file).assert().code(0).stdout("");
    htrewrite()
        .args(["--check", "--set-attr", "p", "class", "y"])
        .arg(&file)
        .assert()
        .code(1)
        .stdout("")
        .stderr(format!("htrewrite: {}: would change\n", file.display()));
    htrewrite().args(["--check", "--remove", "b"]).arg(&file).assert().code(0);
    htrewrite().args(["--check", "-i", "--remove", "p"]).arg(&file).assert().code(1);
    assert_eq!(fs::read_to_string(&file).unwrap(), "<p class=x>a<p class=x>b", "--check never writes");
}

#[test]
fn diff_prints_a_unified_diff() {
    let out = run(&["--diff", "--set-attr", "p", "class", "y"], "<html>\n<p class=x>a\n<b>b</b>\n");
    assert_eq!(out, "--- a/-\n+++ b/-\n@@ -1,3 +1,3 @@\n <html>\n-<p class=x>a\n+<p class=y>a\n <b>b</b>\n");
    fails(&["--check", "--diff", "--remove", "b"], "<b>x</b>\n", 1);
}

/// Issue 20, item 7: the patch has the lines' exact bytes (a windows-1252 `é` stays byte 0xE9,
/// not U+FFFD), and a file where every line changes (30,000 lines) still gets an exact patch:
/// applied to the input it gives the rewrite (the line diff settles after a deadline instead of
/// running in quadratic time).
#[test]
fn diff_is_byte_exact_and_bounded() {
    let input: &[u8] = b"<meta charset=windows-1252>\n<p>caf\xe9\n";
    let out = htrewrite().args(["--diff", "--set-attr", "p", "x", "1"]).write_stdin(input).output().unwrap();
    let want: &[u8] =
        b"--- a/-\n+++ b/-\n@@ -1,2 +1,2 @@\n <meta charset=windows-1252>\n-<p>caf\xe9\n+<p x=\"1\">caf\xe9\n";
    assert_eq!(out.stdout, want);

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("all.html");
    let page: String = (0..30_000).map(|i| format!("<p>line {i}</p>\n")).collect();
    fs::write(&file, &page).unwrap();
    let patch = htrewrite().args(["--diff", "--set-attr", "p", "x", "1"]).arg(&file).output().unwrap().stdout;
    let rewritten = run(&["--set-attr", "p", "x", "1"], &page);
    assert_eq!(apply_unified(&page, &String::from_utf8(patch).unwrap()), rewritten);
}

/// Applies a unified diff (as `--diff` writes it) to `old`.
fn apply_unified(old: &str, patch: &str) -> String {
    let old: Vec<&str> = old.split_inclusive('\n').collect();
    let mut out = String::new();
    let mut at = 0;
    for line in patch.split_inclusive('\n').skip(2) {
        if let Some(range) = line.strip_prefix("@@ -") {
            let start: usize = range.split([',', ' ']).next().unwrap().parse().unwrap();
            let start = start.saturating_sub(1);
            out.extend(old[at..start].iter().copied());
            at = start;
        } else if let Some(l) = line.strip_prefix('+') {
            out.push_str(l);
        } else if line.starts_with('-') {
            at += 1;
        } else if let Some(l) = line.strip_prefix(' ') {
            out.push_str(l);
            at += 1;
        }
    }
    out.extend(old[at..].iter().copied());
    out
}

#[test]
fn bad_selector_exits_2_naming_it() {
    fails(&["--remove", "p", "--set-attr", "a[href", "x", "1"], "<a>", 2)
        .stdout("")
        .stderr(predicate::str::starts_with("htrewrite: --set-attr: invalid selector \"a[href\""));
    fails(&["--select", "div >"], "", 2)
        .stderr(predicate::str::starts_with("htrewrite: --select: invalid selector \"div >\""));
}

#[test]
fn usage_errors_exit_2_with_prefix() {
    htrewrite().arg("--no-such-flag").assert().code(2).stderr(predicate::str::starts_with("htrewrite: "));
    htrewrite().args(["--set-attr", "p", "x"]).assert().code(2);
    fails(&["--rename", "p", "1bad"], "", 2)
        .stderr(predicate::str::contains("htrewrite: --rename: invalid tag name: 1bad"));
    fails(&["--encoding", "klingon"], "", 2)
        .stderr(predicate::str::contains("--encoding: unknown encoding label \"klingon\""));
    fails(&["--memory-limit", "12X"], "", 2);
    fails(&["--fragment", "", "--remove", "p"], "<p>", 2).stderr(predicate::str::contains("is not an element name"));
    fails(&["--fragment", "1x", "--count", "p"], "<p>", 2);
}

#[test]
fn unreadable_input_exits_3() {
    htrewrite()
        .arg("/nonexistent/page.html")
        .assert()
        .code(3)
        .stderr("htrewrite: cannot read /nonexistent/page.html: No such file or directory (os error 2)\n");
    let dir = tempfile::tempdir().unwrap();
    htrewrite().arg(dir.path()).assert().code(3).stderr(predicate::str::contains("is a directory"));
}

#[test]
fn memory_limit_exits_4() {
    let long_comment = format!("<!--{}-->", "x".repeat(200_000));
    fails(&["--memory-limit", "64K", "--remove", "b"], long_comment.clone(), 4)
        .stderr(predicate::str::contains("memory limit of 65536 bytes exceeded"));
    htrewrite().args(["--memory-limit", "1M", "--remove", "b"]).write_stdin(long_comment).assert().success();
}

/// Issue 20, item 6: a selector nested 7,700 deep is a usage error (exit 2), not a stack overflow.
#[test]
fn deeply_nested_selector_is_refused() {
    let deep = format!("{}a{}", ":is(".repeat(7_700), ")".repeat(7_700));
    fails(&["--count", &deep], "<a>", 2).stderr(predicate::str::contains("nested more than 32 levels deep"));
}

/// Issue 20, item 8: nested `--select` matches share the held bytes and print one by one (1,500
/// nested `div`s print 6.8 MB from 9 KB, each line the outer HTML of one match), and the bytes
/// held count against `--memory-limit` (`--select html` on a 400 KB page with a 100K limit: exit 4;
/// before, the limit ignored them).
#[test]
fn select_of_nested_matches_is_bounded() {
    let input = "<div>x".repeat(1_500);
    let out =
        htrewrite().args(["--memory-limit", "1M", "--select", "div"]).write_stdin(input.clone()).output().unwrap();
    assert!(out.status.success());
    let lines: Vec<&[u8]> = out.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()).collect();
    assert_eq!(lines.len(), 1_500);
    assert!(
        lines.iter().enumerate().all(|(i, l)| *l == &input.as_bytes()[i * 6..]),
        "each match's outer HTML, in order"
    );
    let page = format!("<html><body>{}</body></html>", "<p>paragraph</p>".repeat(25_000));
    fails(&["--memory-limit", "100K", "--select", "html"], page, 4)
        .stderr(predicate::str::contains("memory limit of 102400 bytes exceeded"));
}

/// Issue 20, item 16: a rename into an element whose content is read otherwise is refused up
/// front (exit 2, naming the rule); out of one, where it happens (exit 4); the input is intact.
#[test]
fn renames_that_change_how_content_is_read_are_refused() {
    fails(&["--rename", "p", "script"], "<p>a</p><b>b</b>", 2)
        .stderr(predicate::str::contains("would change how the element's content is read"));
    fails(&["--rename", "style", "div"], "<style>a<b>{}</style>", 4)
        .stderr(predicate::str::contains("would change how the element's content is read"));
    assert_eq!(run(&["--rename", "p", "section"], "<p>a</p>"), "<section>a</section>");
}

/// Issue 20, item 10: with several files, one that fails does not stop the others; each failure
/// is named and the exit code is the worst (4 over 3); with `-j` files are done at once, reported
/// in order.
#[test]
fn failures_in_a_batch_do_not_stop_it() {
    let dir = tempfile::tempdir().unwrap();
    let (a, big, c) = (dir.path().join("a.html"), dir.path().join("big.html"), dir.path().join("c.html"));
    fs::write(&a, "<p>a").unwrap();
    fs::write(&big, format!("<p><!--x--><!--{}-->", "y".repeat(200_000))).unwrap();
    fs::write(&c, "<p>c").unwrap();
    let missing = dir.path().join("missing.html");
    let out = htrewrite()
        .args(["--memory-limit", "64K", "-i", "--set-attr", "p", "x", "1"])
        .args([&a, &missing, &big, &c])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("missing.html") && stderr.contains("big.html"), "{stderr}");
    assert_eq!(fs::read_to_string(&a).unwrap(), "<p x=\"1\">a");
    assert_eq!(fs::read_to_string(&c).unwrap(), "<p x=\"1\">c");
    assert!(fs::read_to_string(&big).unwrap().starts_with("<p><!--x-->"), "a failed file is left as it was");

    // --stats=json: one object per input, the failed ones with their error and exit code, in
    // the order of the files whether they are done one at a time or four at once.
    for jobs in ["1", "4"] {
        fs::write(&big, format!("<p><!--x--><!--{}-->", "y".repeat(200_000))).unwrap();
        fs::write(&c, "<p>c").unwrap();
        let out = htrewrite()
            .args(["--stats=json", "--memory-limit", "64K", "-j", jobs, "-i", "--set-attr", "p", "x", "1"])
            .args([&a, &missing, &big, &c])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(4));
        assert_eq!(fs::read_to_string(&c).unwrap(), "<p x=\"1\">c");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let objects: Vec<serde_json::Value> =
            stderr.lines().filter(|l| l.starts_with('{')).map(|l| serde_json::from_str(l).unwrap()).collect();
        let inputs: Vec<String> = objects
            .iter()
            .map(|o| {
                let name = Path::new(o["input"].as_str().unwrap()).file_name().unwrap().to_string_lossy().into_owned();
                format!("{name}:{}", o.get("exit").map_or("ok".to_owned(), |c| c.to_string()))
            })
            .collect();
        assert_eq!(inputs, ["a.html:ok", "missing.html:3", "big.html:4", "c.html:ok"], "{stderr}");
        assert!(objects[2]["error"].as_str().unwrap().contains("memory limit"), "{stderr}");
    }
}

/// Issue 20, item 12: an attribute edit on an element the parser implied is reported, not
/// skipped silently: a warning naming the rule, and its own count in `--stats`.
#[test]
fn edits_of_implied_elements_are_reported() {
    let out =
        htrewrite().args(["--stats=json", "--set-attr", "body", "class", "b"]).write_stdin("<p>x").output().unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout, b"<p>x");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("warning: -: set-attr \"body\"") && stderr.contains("no start tag"), "{stderr}");
    assert!(stderr.contains("\"without_start_tag\":1"), "{stderr}");
    let quiet = htrewrite().args(["--set-attr", "body", "class", "b"]).write_stdin("<body>x").output().unwrap();
    assert!(quiet.stderr.is_empty(), "no warning when the element has its tag");
}

/// Issue 20, item 14: `-0` ends each printed value with NUL, so values with newlines stay apart;
/// `--text-of` prints each outermost match's text (nested matches are part of it).
#[test]
fn null_separated_values() {
    let out =
        htrewrite().args(["-0", "--attr", "a", "title"]).write_stdin("<a title='x\ny'><a title=z>").output().unwrap();
    assert_eq!(out.stdout, b"x\ny\0z\0");
    let out = htrewrite().args(["--null", "--text-of", "p"]).write_stdin("<p>a\nb<p>c").output().unwrap();
    assert_eq!(out.stdout, b"a\nb\0c\0");
    let out = htrewrite().args(["-0", "--select", "b"]).write_stdin("<b>1<b>2</b></b>").output().unwrap();
    assert_eq!(out.stdout, b"<b>1<b>2</b></b>\0<b>2</b>\0");
    assert_eq!(run(&["--text-of", "div"], "<div>a<div>b</div>c</div>"), "abc\n");
}

/// Issue 20, item 11: `-i` refuses what is not a regular file (a FIFO) and replaces a symbolic
/// link by the rewritten file, leaving its target alone, as `sed -i` does.
#[test]
fn in_place_on_links_and_fifos() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let out = htrewrite().args(["-i", "--remove", "b"]).arg(&fifo).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a regular file"));
    let target = dir.path().join("target.html");
    let link = dir.path().join("link.html");
    fs::write(&target, "<p>a<b>b</b>").unwrap();
    std::os::unix::fs::symlink(&target, &link).unwrap();
    htrewrite().args(["-i", "--remove", "b"]).arg(&link).assert().success();
    assert_eq!(fs::read_to_string(&link).unwrap(), "<p>a");
    assert!(!fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(fs::read_to_string(&target).unwrap(), "<p>a<b>b</b>");
}

/// Issue 20, item 9: with no actions the output is the input, in any encoding.
#[test]
fn iso_2022_jp_without_actions_passes_through() {
    let input: &[u8] = b"<meta charset=iso-2022-jp><p>\x1b$B4A;z\x1b(B</p>";
    htrewrite().write_stdin(input).assert().success().stdout(input.to_vec());
    fails(&["--remove", "p"], input, 4)
        .stderr(predicate::str::contains("ISO-2022-JP").and(predicate::str::contains("--encoding LABEL")));
}

/// Issue 20, item 9: read-only modes decode ISO-2022-JP (declared in the page or given with
/// `--encoding`) and the replacement encoding (ISO-2022-KR: its text is one U+FFFD) and work.
#[test]
fn iso_2022_jp_read_only_modes_decode() {
    let input: &[u8] = b"<meta charset=iso-2022-jp><p title=\x1b$B4A\x1b(B>\x1b$B4A;z\x1b(B</p><p>b</p>";
    assert_eq!(run_bytes(&["--text-of", "p"], input), "漢字\nb\n".as_bytes());
    assert_eq!(run_bytes(&["--count", "p"], input), b"2\n");
    assert_eq!(run_bytes(&["--attr", "p", "title"], input), "漢\n".as_bytes());
    assert_eq!(run_bytes(&["--select", "p"], input), "<p title=漢>漢字</p>\n<p>b</p>\n".as_bytes());
    let undeclared: &[u8] = b"<p>\x1b$B4A;z\x1b(B</p>";
    assert_eq!(run_bytes(&["--encoding", "iso-2022-jp", "--text-of", "p"], undeclared), "漢字\n".as_bytes());
    let kr: &[u8] = b"<meta charset=iso-2022-kr><p>x</p>";
    assert_eq!(run_bytes(&["--count", "p"], kr), b"0\n", "the replacement encoding decodes to one U+FFFD");
}

/// Runs `htrewrite ARGS` on bytes and returns stdout, asserting success.
fn run_bytes(args: &[&str], input: &[u8]) -> Vec<u8> {
    htrewrite().args(args).write_stdin(input).assert().success().get_output().stdout.clone()
}

/// Issue 20, item 1: a default memory limit stops what would otherwise grow
/// without bound (here: up to 8,000,000 open elements with an action, about
/// 55 bytes each with the stack's spare capacity), with exit 4
/// and the exact output before the failure; `--memory-limit 0` lifts it.
#[test]
fn default_memory_limit_stops_deep_nesting() {
    let input = "<div>".repeat(8_000_000);
    let assert = fails(&["--set-attr", "p", "x", "1"], input.clone(), 4)
        .stderr(predicate::str::contains("memory limit of 268435456 bytes exceeded"));
    let out = assert.get_output().stdout.clone();
    assert!(
        !out.is_empty() && input.as_bytes().starts_with(&out),
        "the output before the failure is a prefix of the input"
    );
    htrewrite()
        .args(["--memory-limit", "0", "--set-attr", "p", "x", "1"])
        .write_stdin("<div>".repeat(1000))
        .assert()
        .success();
    // No action: nothing is parsed, nothing held.
    htrewrite().write_stdin(input.clone()).assert().success().stdout(input);
}

#[test]
fn broken_pipe_exits_0_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.html");
    fs::write(&file, "<p>paragraph</p>\n".repeat(500_000)).unwrap();
    for args in [&["--select", "p"][..], &["--set-attr", "p", "x", "1"], &["--text-of", "p"]] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_htrewrite"))
            .args(args)
            .arg(&file)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        assert!(!line.is_empty());
        drop(out); // like `| head -1`
        let result = child.wait_with_output().unwrap();
        assert_eq!(result.status.code(), Some(0), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&result.stderr), "", "{args:?}");
    }
}

#[test]
fn non_utf8_input_passes_through_and_is_edited_in_its_encoding() {
    // windows-1252 by sniffing (no meta): é is 0xE9; invalid UTF-8 must survive.
    let input = b"<p title=\"caf\xe9\">caf\xe9 \xff\xfe\x80</p>".to_vec();
    let out = htrewrite().write_stdin(input.clone()).assert().success().get_output().stdout.clone();
    assert_eq!(out, input);
    let out = htrewrite()
        .args(["--append-text", "p", "ü€", "--set-attr", "p", "data-x", "é"])
        .write_stdin(input.clone())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(out, b"<p title=\"caf\xe9\" data-x=\"\xe9\">caf\xe9 \xff\xfe\x80\xfc\x80</p>".to_vec());
    // read-only modes print UTF-8
    assert_eq!(run(&["--attr", "p", "title"], "<p title=\"x\">"), "x\n");
    let out = htrewrite().args(["--attr", "p", "title"]).write_stdin(input.clone()).assert().success();
    assert_eq!(out.get_output().stdout, "café\n".as_bytes());
    let out = htrewrite().args(["--select", "p"]).write_stdin(input).assert().success();
    assert_eq!(out.get_output().stdout, "<p title=\"café\">café ÿþ€</p>\n".as_bytes());
    // a declared encoding
    let sjis = b"<meta charset=shift_jis><p>\x93\xfa\x96\x7b</p>".to_vec();
    let out = htrewrite().args(["--text-of", "p"]).write_stdin(sjis.clone()).assert().success();
    assert_eq!(out.get_output().stdout, "日本\n".as_bytes());
    let out = htrewrite().args(["--encoding", "latin1", "--text-of", "p"]).write_stdin(sjis).assert().success();
    assert_eq!(out.get_output().stdout, "\u{201c}ú\u{2013}{\n".as_bytes());
}

#[test]
fn utf16_documents_round_trip_and_select() {
    let utf16: Vec<u8> =
        [0xFF, 0xFE].into_iter().chain("<p>h\u{e9}<b>x</b>".encode_utf16().flat_map(u16::to_le_bytes)).collect();
    let out = htrewrite().write_stdin(utf16.clone()).assert().success();
    assert_eq!(out.get_output().stdout, utf16);
    let out = htrewrite().args(["--select", "b"]).write_stdin(utf16).assert().success();
    assert_eq!(out.get_output().stdout, b"<b>x</b>\n");
}

#[test]
fn fragment_parses_in_context() {
    assert_eq!(run(&["--fragment", "tbody", "--set-attr", "td", "class", "n"], "<tr><td>1"), "<tr><td class=\"n\">1");
    // in a <title>, a <b> is text
    assert_eq!(run(&["--fragment", "title", "--count", "b"], "<b>x</b>"), "0\n");
}

#[test]
fn stats_text_and_json() {
    htrewrite()
        .args(["--stats", "--remove", "b"])
        .write_stdin("<b>1</b><b>2</b>")
        .assert()
        .success()
        .stdout("")
        .stderr(predicate::str::contains("htrewrite: -: 16 bytes in, 0 bytes out"))
        .stderr(predicate::str::contains("remove \"b\" (--remove): 2 matched"));
    let out = htrewrite().args(["--stats=json", "--remove", "b"]).write_stdin("<b>1</b>x").assert().success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stderr).unwrap();
    assert_eq!(json["bytes_in"], 9);
    assert_eq!(json["bytes_out"], 1);
    assert_eq!(json["rules"][0]["matched"], 1);
    assert_eq!(json["rules"][0]["action"], "remove");

    // Rules from files name the file in their origin.
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("site.toml");
    fs::write(&rules, "version = 1\n\n[[rule]]\nselector = \"b\"\naction = \"unwrap\"\n").unwrap();
    htrewrite()
        .args(["--stats", "--remove", "i", "--rules"])
        .arg(&rules)
        .write_stdin("<b>1</b><i>2</i>")
        .assert()
        .success()
        .stdout("1")
        .stderr(predicate::str::contains(format!("unwrap \"b\" ({}, line 4, column 12): 1 matched", rules.display())))
        .stderr(predicate::str::contains("remove \"i\" (--remove): 1 matched"));
}

#[test]
fn help_version_completions() {
    htrewrite()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("Examples:"))
        .stdout(predicate::str::contains("Exit codes:"));
    htrewrite().arg("--version").assert().success().stdout(predicate::str::starts_with("htrewrite 0."));
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        htrewrite().args(["--completions", shell]).assert().success().stdout(predicate::str::contains("set-attr"));
    }
}

#[test]
fn several_files_concatenate_and_stdin_dash() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.html");
    fs::write(&a, "<b>a</b>").unwrap();
    let out = htrewrite().args(["--unwrap", "b"]).arg(&a).arg("-").write_stdin("<b>s</b>").assert().success();
    assert_eq!(out.get_output().stdout, b"as");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_htrewrite"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"<p>").unwrap();
    assert_eq!(child.wait_with_output().unwrap().stdout, b"<p>");
}

/// `--progress auto` draws a bar on stderr when stderr is a terminal and the
/// file is large (16 MiB or more), and nothing otherwise; the output is the
/// same either way. The terminal is a pseudo-terminal from util-linux
/// `script`, whose stdout is what the terminal showed.
#[test]
fn progress_bar_only_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("big.html");
    let unit = "<p class=x>hello <b>world</b> &amp; more</p>\n";
    let doc = unit.repeat((17 << 20) / unit.len() + 1);
    fs::write(&page, &doc).unwrap();
    let out = dir.path().join("out.html");
    let command =
        format!("'{}' --progress auto '{}' > '{}'", env!("CARGO_BIN_EXE_htrewrite"), page.display(), out.display());
    let shown = std::process::Command::new("script")
        .args(["-q", "-e", "-c", &command, "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .expect("util-linux `script` runs the binary on a pseudo-terminal");
    assert!(shown.status.success(), "{shown:?}");
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.contains("big.html") && shown.contains("MiB"), "no progress bar on the terminal: {shown:?}");
    assert!(fs::read(&out).unwrap() == doc.as_bytes(), "output differs from input");

    // stderr a pipe: no bar, same output.
    let piped = htrewrite().args(["--progress", "auto"]).arg(&page).assert().success().get_output().clone();
    assert!(piped.stderr.is_empty(), "{:?}", String::from_utf8_lossy(&piped.stderr));
    assert!(piped.stdout == doc.as_bytes());
    // A small file on a terminal: no bar.
    fs::write(&page, unit).unwrap();
    let shown = std::process::Command::new("script")
        .args(["-q", "-e", "-c", &command, "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(shown.status.success());
    assert!(!String::from_utf8_lossy(&shown.stdout).contains("big.html"), "{shown:?}");
}

/// Issue 20, item 13: a closed stdout (`>&-`) is an output failure, exit 3, in every mode that
/// writes to stdout; a stdout on `/dev/null` is not closed (exit 0), nor does a mode that writes
/// nothing to stdout (`-i`, `--check`) care.
#[test]
fn closed_stdout_exits_3() {
    let bin = env!("CARGO_BIN_EXE_htrewrite");
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("p.html");
    fs::write(&page, "<p>a<b>b</b>").unwrap();
    let sh = |redirect: &str, args: &[&str]| {
        let script = format!("exec \"$0\" \"$@\" {redirect}");
        let out =
            std::process::Command::new("sh").arg("-c").arg(script).arg(bin).args(args).arg(&page).output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    for args in [&[][..], &["--remove", "b"], &["--count", "b"], &["--select", "b"], &["--diff", "--remove", "b"]] {
        let (code, stderr) = sh(">&-", args);
        assert_eq!(code, Some(3), "{args:?}: {stderr}");
        assert!(stderr.contains("cannot write stdout: it is closed"), "{args:?}: {stderr}");
        assert_eq!(sh(">/dev/null", args).0, Some(0), "{args:?} into /dev/null");
    }
    assert_eq!(sh(">&-", &["--check", "--remove", "b"]).0, Some(1), "--check reports a change, writes nothing");
    assert_eq!(sh(">&-", &["-i", "--remove", "b"]).0, Some(0));
    assert_eq!(fs::read_to_string(&page).unwrap(), "<p>a");
}

/// Issue 20, item 11: a signal that ends an `-i` run (SIGTERM here) removes the temporary file
/// and leaves the target as it was; the exit code is 128 + 15, as a shell reports it.
#[test]
fn in_place_cleans_up_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("big.html");
    // Large enough that the run is still writing its temporary file when the signal comes.
    let content = "<p>x".repeat(10_000_000);
    fs::write(&page, &content).unwrap();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_htrewrite"))
        .args(["-i", "--set-attr", "p", "class", "c"])
        .arg(&page)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let temps = || {
        fs::read_dir(dir.path())
            .unwrap()
            .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with(".htrewrite-"))
            .count()
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while temps() == 0 {
        assert!(std::time::Instant::now() < deadline, "no temporary file appeared");
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let killed = std::process::Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(143), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(temps(), 0, "the temporary file is removed");
    assert!(fs::read(&page).unwrap() == content.as_bytes(), "the target is left as it was");
}

/// Issue 20, item 16: a namespace prefix must be declared, as with CSS's @namespace: `svg|rect`
/// alone is a usage error (exit 2) that says how to declare it; `--namespace PREFIX=URL` (or a
/// rules file's `[namespaces]`) declares one, under any name.
#[test]
fn namespace_prefixes_must_be_declared() {
    let page = "<svg><rect/><a/></svg><p><a>x</a>";
    fails(&["--count", "svg|rect"], page, 2).stderr(predicate::str::contains("undeclared namespace prefix svg"));
    fails(&["--remove", ":not(svg|a)"], page, 2)
        .stderr(predicate::str::contains("--namespace svg=http://www.w3.org/2000/svg"));
    assert_eq!(run(&["--namespace", "svg=http://www.w3.org/2000/svg", "--count", "svg|rect"], page), "1\n");
    assert_eq!(run(&["--namespace", "s=http://www.w3.org/2000/svg", "--count", "s|a"], page), "1\n");
    assert_eq!(
        run(&["--namespace", "h=http://www.w3.org/1999/xhtml", "--remove", "h|a"], page),
        "<svg><rect/><a/></svg><p>"
    );
    assert_eq!(run(&["--namespace", "x=urn:x", "--count", "x|a"], page), "0\n", "no element has another namespace");
    fails(&["--namespace", "=urn:x", "--count", "p"], page, 2);

    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("r.toml");
    fs::write(&rules, "version = 1\n[namespaces]\ns = \"http://www.w3.org/2000/svg\"\n[[rule]]\nselector = \"s|a\"\naction = \"remove\"\n")
        .unwrap();
    assert_eq!(run(&["--rules", rules.to_str().unwrap()], page), "<svg><rect/></svg><p><a>x</a>");
    fs::write(&rules, "version = 1\n[[rule]]\nselector = \"svg|a\"\naction = \"remove\"\n").unwrap();
    fails(&["--rules", rules.to_str().unwrap()], page, 2).stderr(predicate::str::contains("line 3"));
}
