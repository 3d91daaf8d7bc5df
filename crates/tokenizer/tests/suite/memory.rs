//! Bounded memory: whatever the chunk size, the bytes the tokenizer holds
//! between chunks never exceed the longest token of the document — never the
//! document. One named trial per page of the vendored corpus (and of
//! `HTREWRITE_CORPUS` when set) and per chunk size, plus a large document of
//! short tokens. Each trial prints `max held / longest token / document`.

use htrewrite_testkit::corpus;
use htrewrite_tokenizer::{TagNamePolicy, Token, Tokenizer};
use libtest_mimic::{Failed, Trial};

/// Feeds `doc` in `chunk`-byte chunks; returns (most bytes held after a
/// chunk, longest token, most attribute spans of one tag).
fn measure(doc: &[u8], chunk: usize) -> (usize, usize, usize) {
    let mut longest = 0;
    let mut held = 0;
    {
        let mut sink = TagNamePolicy(|t: &Token<'_>| longest = longest.max(t.raw().len()));
        let mut tokenizer = Tokenizer::new();
        for piece in doc.chunks(chunk) {
            tokenizer.feed(piece, &mut sink);
            held = held.max(tokenizer.buffered_len());
        }
        tokenizer.finish(&mut sink);
    }
    (held, longest, doc.len())
}

fn check(doc: &[u8], chunk: usize) -> Result<(), Failed> {
    let (held, longest, len) = measure(doc, chunk);
    println!("    chunk {chunk}: max held {held} B / longest token {longest} B / document {len} B");
    if held > longest {
        return Err(format!("held {held} bytes between chunks, more than the longest token ({longest})").into());
    }
    Ok(())
}

pub(crate) fn trials() -> Vec<Trial> {
    // A variable that names no pages fails here rather than testing nothing.
    let extra = corpus::env_html_pages().unwrap_or_default();
    let mut files: Vec<_> = corpus::vendored_html_pages().into_iter().chain(extra).map(|(_, path)| path).collect();
    files.sort();
    let mut trials = Vec::new();
    for path in files {
        let name = path.to_string_lossy().rsplit("corpus/").next().unwrap_or_default().to_owned();
        for chunk in [1024usize, 65536] {
            let path = path.clone();
            trials.push(Trial::test(format!("{name} [{chunk} B chunks]"), move || {
                check(&std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?, chunk)
            }));
        }
    }
    // 4 MB of short tokens: memory must follow the token, not the document.
    trials.push(Trial::test("4 MB of short tokens [1024 B chunks]", || {
        let doc: Vec<u8> = b"<p class=x>text &amp; more</p>\n".repeat(4 << 20 >> 5);
        let (held, longest, _) = measure(&doc, 1024);
        check(&doc, 1024)?;
        if held > 64 {
            return Err(format!("held {held} bytes (longest token {longest})").into());
        }
        Ok(())
    }));
    trials
}
