//! A lossless, chunk-fed HTML tokenizer, exact to the
//! [WHATWG HTML Living Standard](https://html.spec.whatwg.org/multipage/parsing.html#tokenization).
//!
//! Bytes go in as chunks of any size ([`Tokenizer::feed`], then
//! [`Tokenizer::finish`]); tokens come out through a [`TokenSink`], each with
//! its [kind](TokenKind), its exact raw bytes and its absolute byte
//! [span](Span). Decoded views — tag names, attributes, text with character
//! references, comment data, DOCTYPE fields — are computed only when asked.
//!
//! The tokenizer never picks a text mode (RCDATA, RAWTEXT, script data,
//! PLAINTEXT) from a tag name by itself: after each token the sink answers
//! with [`Feedback`], normally from the tree-builder shadow
//! (`htrewrite-shadow`), which also says whether `<![CDATA[` opens a CDATA
//! section when the tokenizer reads it ([`TokenSink::cdata_allowed`]).
//! [`TagNamePolicy`] is a by-tag-name stand-in for tests and standalone use.
//!
//! # Example
//! ```
//! use htrewrite_tokenizer::{TagNamePolicy, Token, TokenKind, Tokenizer};
//! let mut out = Vec::new();
//! let mut sink = TagNamePolicy(|t: &Token<'_>| out.push((t.kind(), t.span())));
//! let mut tokenizer = Tokenizer::new();
//! tokenizer.feed(b"<p>Hello, <b>wor", &mut sink);
//! tokenizer.feed(b"ld</b>!", &mut sink);
//! tokenizer.finish(&mut sink);
//! drop(sink);
//! assert_eq!(out[0], (TokenKind::StartTag, htrewrite_tokenizer::Span::new(0, 3)));
//! ```
//!
//! # Guarantees
//! - **Lossless**: the raw bytes of all tokens, in order, equal the input
//!   exactly, for any bytes (invalid UTF-8, NUL and CR included). Enforced by
//!   the `roundtrip` tests in `tests/` (html5lib inputs, the vendored real
//!   pages, `HTREWRITE_CORPUS`) and the proptests in `tests/proptest.rs`.
//! - **Chunking-independent**: tokens, decoded values and errors do not
//!   depend on where the input is split (text tokens may be split at chunk
//!   ends; merged, they are the same). Enforced by every conformance case
//!   being fed whole, byte by byte and in seeded random splits, and by the
//!   chunk-boundary whitebox test (`tests/suite/whitebox.rs`): the tokenizer state
//!   is `Clone + Eq` with one canonical form for every prefix of the input.
//! - **Linear time**: every byte is examined a bounded number of times;
//!   measured by the `adversarial` criterion group at n and 4n
//!   (`benches/benches/tokenizer.rs`) and by instruction counts
//!   (`benches/instructions.sh`).
//! - **Bounded memory**: the tokenizer holds at most the bytes of the
//!   current unfinished token (plus its attribute spans), never the document.
//!   Enforced by `tests/suite/memory.rs`: the bytes held between chunks never
//!   exceed the longest token, on the real pages and on 4 MB of short tokens.
//! - **Exact**: html5lib's tokenizer suite passes, tokens and error codes;
//!   cases made stale by later changes to the Standard (processing
//!   instructions, 2026) are listed in `tests/expected-differences.toml`.
//!
//! # Latency
//! Every token leaves as soon as its last byte is seen; text leaves at each
//! chunk end up to the last byte that is certainly text (an unfinished
//! character reference, a trailing CR, or a `<` that may start a tag is held
//! back).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod decode;
mod error;
mod owned;
mod scan;
mod sink;
mod span;
mod state;
mod token;
mod tokenizer;

pub use decode::{
    ErrorFn, InputStreamChecker, ReferenceTag, decode_attribute_value, decode_text, tag as reference_tag,
};
pub use error::{ParseError, ParseErrorCode};
pub use owned::{OwnedToken, tokenize, tokenize_str};
pub use sink::{Feedback, RAWTEXT_ELEMENTS, TagNamePolicy, TokenSink, text_mode_for_tag};
pub use span::{Rel, Span};
pub use state::State;
pub use token::{
    Attribute, AttributeSpan, CommentKind, Doctype, DropReason, Quote, TextMode, Token, TokenKind, pack_name,
};
pub use tokenizer::Tokenizer;
