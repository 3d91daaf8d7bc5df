//! What the integration tests share: the chunkings every document-feeding
//! test runs (whole, one byte at a time, three seeded random splittings) and
//! a driver that rewrites one input under one chunking.
//!
//! Each test target uses part of this module.
#![allow(dead_code)]

use htrewrite::{Rewriter, RewritingError, Settings};
use htrewrite_testkit::{Random, SplitMix64, fnv1a64};

/// One way of cutting an input into chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chunking {
    /// The whole input in one chunk.
    Whole,
    /// One byte per chunk.
    Bytewise,
    /// Random chunk lengths from a [`SplitMix64`] seeded with the seed.
    Random(u64),
}

impl std::fmt::Display for Chunking {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Chunking::Whole => f.write_str("whole"),
            Chunking::Bytewise => f.write_str("split at every byte"),
            Chunking::Random(seed) => write!(f, "random split, seed {seed:#018x}"),
        }
    }
}

/// Whole, every byte, and three random splittings seeded from `name`.
pub fn chunkings(name: &str) -> [Chunking; 5] {
    let seed = fnv1a64(name.as_bytes());
    [
        Chunking::Whole,
        Chunking::Bytewise,
        Chunking::Random(seed),
        Chunking::Random(seed ^ 1),
        Chunking::Random(seed ^ 2),
    ]
}

impl Chunking {
    /// The chunks of `input` (one empty chunk for an empty input).
    pub fn chunks<'a>(&self, input: &'a [u8]) -> Vec<&'a [u8]> {
        match *self {
            Chunking::Whole => vec![input],
            Chunking::Bytewise if input.is_empty() => vec![input],
            Chunking::Bytewise => input.chunks(1).collect(),
            Chunking::Random(seed) => {
                let mut rng = SplitMix64::new(seed);
                // The longest chunk: tiny, small, or up to the input.
                let max = [3, 17, input.len().max(1)][rng.below(3)];
                let mut out = Vec::new();
                let mut rest = input;
                while !rest.is_empty() {
                    let n = 1 + rng.below(max);
                    let (a, b) = rest.split_at(n.min(rest.len()));
                    out.push(a);
                    rest = b;
                }
                if out.is_empty() {
                    out.push(input);
                }
                out
            }
        }
    }
}

/// What one rewrite produced: the output written (also after a failure)
/// and the first error returned, if any.
#[derive(Debug)]
pub struct Outcome {
    /// Everything the sink received.
    pub output: Vec<u8>,
    /// The first error a call returned.
    pub error: Option<RewritingError>,
    /// The error of a `write` after the first failure, if one was made.
    pub later: Option<RewritingError>,
}

/// Rewrites `input` fed in `chunking`'s chunks; a failing call stops the
/// feeding, after one more `write` whose result is kept in `later`.
pub fn rewrite<K: htrewrite::HandlerKind>(settings: Settings<'_, K>, input: &[u8], chunking: Chunking) -> Outcome {
    let mut output = Vec::new();
    let mut error = None;
    let mut later = None;
    let rw = Rewriter::new(settings, |c: &[u8]| output.extend_from_slice(c));
    match rw {
        Err(e) => error = Some(e),
        Ok(mut rw) => {
            for chunk in chunking.chunks(input) {
                if let Err(e) = rw.write(chunk) {
                    error = Some(e);
                    later = rw.write(b"x").err();
                    break;
                }
            }
            if error.is_none()
                && let Err(e) = rw.end()
            {
                error = Some(e);
            }
        }
    }
    Outcome { output, error, later }
}

/// Runs `check` under every chunking of [`chunkings`]`(name)`; the failures,
/// each with its chunking (and seed), joined.
pub fn each_chunking(name: &str, mut check: impl FnMut(Chunking) -> Result<(), String>) -> Result<(), String> {
    let failures: Vec<String> =
        chunkings(name).into_iter().filter_map(|c| check(c).err().map(|e| format!("[{c}] {e}"))).collect();
    if failures.is_empty() { Ok(()) } else { Err(failures.join("\n")) }
}

/// The `[[case]]`s of the TOML file `tests/data/{path}`, each a trial named
/// `case::NAME` running `run`; names must be unique.
pub fn toml_case_trials<C>(
    path: &str,
    name: fn(&C) -> &str,
    run: fn(&C) -> Result<(), libtest_mimic::Failed>,
) -> Vec<libtest_mimic::Trial>
where
    C: serde::de::DeserializeOwned + Send + 'static,
{
    #[derive(serde::Deserialize)]
    struct File<C> {
        case: Vec<C>,
    }
    let full = format!("{}/tests/data/{path}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"));
    let file: File<C> = toml::from_str(&text).unwrap_or_else(|e| panic!("{full}: {e}"));
    let mut names = std::collections::BTreeSet::new();
    file.case
        .into_iter()
        .map(|case| {
            let n = name(&case).to_owned();
            assert!(names.insert(n.clone()), "duplicate case name {n}");
            libtest_mimic::Trial::test(format!("case::{n}"), move || run(&case))
        })
        .collect()
}

/// Bytes shown for a failure message.
pub fn show(bytes: &[u8]) -> String {
    format!("{:?}", String::from_utf8_lossy(bytes))
}

/// Handlers that read every view and change nothing.
pub fn reading_handlers() -> Settings<'static> {
    Settings::new()
        .element("*", |el| {
            let _ = (el.tag_name(), el.attributes(), el.get_attribute("href"), el.source_location());
            el.on_end(|end| {
                let _ = (end.tag_name(), end.end_tag_raw(), end.source_location());
                Ok(())
            });
            Ok(())
        })
        .element_end("p, li, body", |end| {
            let _ = end.has_end_tag();
            Ok(())
        })
        .text("div, p, title, script, style, textarea", |t| {
            let _ = (t.as_str(), t.raw(), t.last_in_text_node());
            Ok(())
        })
        .comments("*", |c| {
            let _ = (c.text(), c.kind());
            Ok(())
        })
        .doc_text(|t| {
            let _ = t.as_str();
            Ok(())
        })
        .doc_comments(|c| {
            let _ = c.text();
            Ok(())
        })
        .doctype(|d| {
            let _ = (d.name(), d.public_id());
            Ok(())
        })
        .processing_instructions(|p| {
            let _ = (p.target(), p.data());
            Ok(())
        })
        .end(|_| Ok(()))
}

/// Pieces documents are made of, to reach interesting states often. No
/// `<frameset>`: inserted text before it rightly changes the tree (the
/// frameset is then ignored, and what follows is read in body).
pub const PIECES: &[&str] = &[
    "<p>",
    "</p>",
    "<div>",
    "</div>",
    "<b>",
    "</b>",
    "<i>",
    "<title>",
    "</title>",
    "<textarea>",
    "</textarea>",
    "<script>",
    "</script>",
    "<style>",
    "</style>",
    "<!--",
    "-->",
    "<!-- c -->",
    "<table>",
    "<tr>",
    "<td>",
    "</table>",
    "<svg>",
    "</svg>",
    "<math>",
    "<![CDATA[",
    "]]>",
    "<li>",
    "<ul>",
    "</ul>",
    "a",
    "b c",
    " ",
    "\n",
    "\r\n",
    "\r",
    "\0",
    "&amp;",
    "&",
    "&lt",
    "&#x41;",
    "<",
    ">",
    "</",
    "<!",
    "<?",
    "=",
    "'",
    "\"",
    "<a href=x>",
    "</a>",
    "<plaintext>",
    "<noscript>",
    "</noscript>",
    "<select>",
    "<option>",
    "é",
    "\u{FFFD}",
    "<!DOCTYPE html>",
    "<?pi x?>",
    "<br/>",
    "<img src=a alt='b'>",
    "<html>",
    "<body>",
    "</body>",
    "</html>",
    "<head>",
    "<template>",
    "</template>",
];
