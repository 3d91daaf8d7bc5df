//! Helpers shared by the tokenizer's integration tests.
#![allow(dead_code)]

use htrewrite_testkit::{Random, SplitMix64};
use htrewrite_tokenizer::{Feedback, Span, TextMode, Token, TokenKind, TokenSink, Tokenizer, text_mode_for_tag};

/// A token as recorded by the tests: kind, span and raw bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rec {
    /// The token's kind.
    pub kind: TokenKind,
    /// Its absolute span.
    pub span: Span,
    /// Its raw bytes.
    pub raw: Vec<u8>,
    /// For text tokens, the decoded text.
    pub text: Option<String>,
    /// The token's parse errors, as `code@start..end`.
    pub errors: Vec<String>,
}

/// Records tokens; answers with the by-tag-name policy when `policy`, else
/// always `Feedback::default()` (html5lib's tokenizer tests).
pub struct Recorder {
    /// The tokens seen.
    pub tokens: Vec<Rec>,
    /// Whether to answer with the by-tag-name text mode policy.
    pub policy: bool,
    /// Whether the last token was text marked `ends_before_markup`.
    pub markup_next: bool,
}

impl Recorder {
    /// A recorder answering with the by-tag-name policy when `policy`.
    pub fn new(policy: bool) -> Recorder {
        Recorder { tokens: Vec::new(), policy, markup_next: false }
    }
}

impl TokenSink for Recorder {
    fn token(&mut self, t: &Token<'_>) -> Feedback {
        let mut errors = Vec::new();
        t.parse_errors(&mut |e| errors.push(format!("{}@{}..{}", e.code, e.span.start, e.span.end)));
        // Consumers skip their own NUL search on this flag's word: it must
        // never be set on a token with a NUL (every test feeding tokens here
        // checks it, in every chunking and around pauses).
        assert!(
            !t.scanned_without_nul() || !t.raw().contains(&0),
            "scanned_without_nul set on {:?} at {:?}",
            t.raw(),
            t.span()
        );
        // Consumers end a text node at this flag: the next token must not be
        // text (checked here in every chunking, and at the end of input by `run`).
        assert!(
            !(self.markup_next && matches!(t.kind(), TokenKind::Text(_))),
            "text {:?} at {:?} follows a text token marked ends_before_markup",
            t.raw(),
            t.span()
        );
        assert!(
            !t.ends_before_markup() || matches!(t.kind(), TokenKind::Text(_)),
            "ends_before_markup set on {:?}",
            t.kind()
        );
        self.markup_next = t.ends_before_markup();
        let text = t.text().map(|c| c.into_owned());
        self.tokens.push(Rec { kind: t.kind(), span: t.span(), raw: t.raw().to_vec(), text, errors });
        if self.policy && t.kind() == TokenKind::StartTag {
            let name = t.raw_tag_name().to_ascii_lowercase();
            return Feedback { text_mode: text_mode_for_tag(&name, true) };
        }
        Feedback::default()
    }
}

/// Merges adjacent text tokens of the same mode.
pub fn merge(tokens: &[Rec]) -> Vec<Rec> {
    let mut out: Vec<Rec> = Vec::new();
    for t in tokens {
        if let (Some(last), TokenKind::Text(_)) = (out.last_mut(), t.kind)
            && last.kind == t.kind
            && last.span.end == t.span.start
        {
            last.span.end = t.span.end;
            last.raw.extend_from_slice(&t.raw);
            if let (Some(a), Some(b)) = (&mut last.text, &t.text) {
                a.push_str(b);
            }
            last.errors.extend(t.errors.iter().cloned());
            continue;
        }
        out.push(t.clone());
    }
    out
}

/// Tokenizes `input` fed in the given chunks (split points), then finishes.
pub fn run(input: &[u8], splits: &[usize], policy: bool, start: Option<(TextMode, &[u8])>) -> Vec<Rec> {
    let mut t = match start {
        Some((mode, name)) => Tokenizer::with_text_mode(mode, Some(name)),
        None => Tokenizer::new(),
    };
    let mut sink = Recorder::new(policy);
    let mut from = 0;
    for &s in splits.iter().chain(std::iter::once(&input.len())) {
        t.feed(&input[from..s], &mut sink);
        from = s;
    }
    t.finish(&mut sink);
    assert!(!sink.markup_next, "the input ends after text marked ends_before_markup: {input:?} at {splits:?}");
    sink.tokens
}

/// Sorted, distinct split points in `1..len` from a [`SplitMix64`] started at `seed`: at most 63
/// of them, so a replayed seed gives the same points.
pub fn random_splits(seed: u64, len: usize) -> Vec<usize> {
    if len < 2 {
        return Vec::new();
    }
    let mut rng = SplitMix64::new(seed);
    let n = rng.below(len.min(64));
    let mut v: Vec<usize> = (0..n).map(|_| 1 + rng.below(len - 1)).collect();
    v.sort_unstable();
    v.dedup();
    v
}
