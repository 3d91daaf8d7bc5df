//! html5lib's tokenizer tests: loading `data/html5lib-tests/tokenizer/*.test` and rendering our
//! tokens in html5lib's JSON token form.
//!
//! Format: `data/html5lib-tests/tokenizer/README.md`. Strings are compared as bytes: an expected
//! string of a `doubleEscaped` test may hold a lone surrogate, which is kept WTF-8 style
//! (`ED A0..BF xx`) and so can never equal our (always valid UTF-8) output.

use std::collections::BTreeMap;
use std::fmt;

use htrewrite_tokenizer::{Feedback, ParseError, TextMode, Token, TokenKind, TokenSink, Tokenizer};
use serde_json::Value;

use crate::{escape_bytes, sanitize_name};

/// One test object of a tokenizer `.test` file.
#[derive(Debug, Clone)]
pub struct TokenizerTest {
    /// The file name, e.g. `test3.test`.
    pub file: String,
    /// The object's index in the file's test list, from 0.
    pub index: usize,
    /// The `description`.
    pub description: String,
    /// The input stream's characters as bytes (UTF-8; WTF-8 where a `doubleEscaped` input has a
    /// lone surrogate).
    pub input: Vec<u8>,
    /// The expected tokens, adjacent `Character` tokens merged.
    pub output: Vec<H5Token>,
    /// The expected error codes, sorted (positions are not compared).
    pub errors: Vec<String>,
    /// `initialStates`, defaulting to `["Data state"]`.
    pub initial_states: Vec<String>,
    /// `lastStartTag`.
    pub last_start_tag: Option<String>,
    /// `doubleEscaped`.
    pub double_escaped: bool,
    /// Whether the input holds a lone surrogate (only possible with `doubleEscaped`).
    pub lone_surrogate_in_input: bool,
}

impl TokenizerTest {
    /// The trial name of this test run in `state`:
    /// `test3.test#0412 <description> [RCDATA state]` (control characters escaped).
    pub fn trial_name(&self, state: &str) -> String {
        format!("{}#{:04} {} [{}]", self.file, self.index, sanitize_name(&self.description), state)
    }
}

/// The text mode the tokenizer starts in for an html5lib initial state name.
pub fn text_mode_for_state(state: &str) -> Option<TextMode> {
    Some(match state {
        "Data state" => TextMode::Data,
        "PLAINTEXT state" => TextMode::Plaintext,
        "RCDATA state" => TextMode::Rcdata,
        "RAWTEXT state" => TextMode::Rawtext,
        "Script data state" => TextMode::ScriptData,
        "CDATA section state" => TextMode::CdataSection,
        _ => return None,
    })
}

/// Loads every `*.test` file of `data/html5lib-tests/tokenizer`, files in name order, tests in
/// file order.
///
/// # Panics
/// If a file is missing or does not have the documented format (the message names the file and
/// test).
pub fn load_tokenizer_tests() -> Vec<TokenizerTest> {
    let dir = crate::data_dir().join("html5lib-tests").join("tokenizer");
    let files = htrewrite_testkit::corpus::files_with_extension(&dir, "test");
    let mut out = Vec::new();
    for path in files {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {file}: {e}"));
        let json: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("parse {file}: {e}"));
        let list = json
            .get("tests")
            .or_else(|| json.get("xmlViolationTests"))
            .and_then(Value::as_array)
            .unwrap_or_else(|| panic!("{file}: no `tests` list"));
        for (index, t) in list.iter().enumerate() {
            let test = parse_test(&file, index, t).unwrap_or_else(|e| panic!("{file}#{index}: {e}"));
            out.push(test);
        }
    }
    out
}

fn parse_test(file: &str, index: usize, t: &Value) -> Result<TokenizerTest, String> {
    let description = t.get("description").and_then(Value::as_str).ok_or("no description")?.to_owned();
    let double_escaped = t.get("doubleEscaped").and_then(Value::as_bool).unwrap_or(false);
    let input = t.get("input").and_then(Value::as_str).ok_or("no input")?;
    let (input, lone_surrogate_in_input) = string_bytes(input, double_escaped);
    let mut output = Vec::new();
    for tok in t.get("output").and_then(Value::as_array).ok_or("no output")? {
        push_merged(&mut output, H5Token::from_json(tok, double_escaped)?);
    }
    let mut errors = Vec::new();
    if let Some(list) = t.get("errors") {
        for e in list.as_array().ok_or("errors is not a list")? {
            errors.push(e.get("code").and_then(Value::as_str).ok_or("error without code")?.to_owned());
        }
    }
    errors.sort();
    let initial_states = match t.get("initialStates") {
        Some(v) => v
            .as_array()
            .ok_or("initialStates is not a list")?
            .iter()
            .map(|s| s.as_str().map(str::to_owned).ok_or("initial state is not a string"))
            .collect::<Result<_, _>>()?,
        None => vec!["Data state".to_owned()],
    };
    let last_start_tag = t.get("lastStartTag").and_then(Value::as_str).map(str::to_owned);
    Ok(TokenizerTest {
        file: file.to_owned(),
        index,
        description,
        input,
        output,
        errors,
        initial_states,
        last_start_tag,
        double_escaped,
        lone_surrogate_in_input,
    })
}

/// A string of the test data as bytes: as is, or with `\uXXXX` unescaped when `double_escaped`
/// (surrogate pairs combined; a lone surrogate encoded WTF-8 style). Returns whether a lone
/// surrogate was seen.
pub fn string_bytes(s: &str, double_escaped: bool) -> (Vec<u8>, bool) {
    if double_escaped { unescape_u(s) } else { (s.as_bytes().to_vec(), false) }
}

/// Unescapes each `\uXXXX` of `s` (html5lib's "double escaping"). Other backslashes stay.
/// Surrogate pairs become one character; a lone surrogate becomes its 3-byte generalized UTF-8
/// form (`ED A0..BF 80..BF`). Returns the bytes and whether a lone surrogate was seen.
pub fn unescape_u(s: &str) -> (Vec<u8>, bool) {
    let b = s.as_bytes();
    let hex4 = |i: usize| -> Option<u32> {
        if b.get(i) == Some(&b'\\') && b.get(i + 1) == Some(&b'u') {
            let h = std::str::from_utf8(b.get(i + 2..i + 6)?).ok()?;
            u32::from_str_radix(h, 16).ok()
        } else {
            None
        }
    };
    let mut out = Vec::with_capacity(b.len());
    let mut lone = false;
    let mut i = 0;
    while i < b.len() {
        let Some(u) = hex4(i) else {
            out.push(b[i]);
            i += 1;
            continue;
        };
        i += 6;
        let cp = if (0xD800..0xDC00).contains(&u) {
            match hex4(i) {
                Some(lo) if (0xDC00..0xE000).contains(&lo) => {
                    i += 6;
                    0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00)
                }
                _ => u,
            }
        } else {
            u
        };
        match char::from_u32(cp) {
            Some(c) => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
            None => {
                lone = true;
                out.extend_from_slice(&[
                    0xE0 | (cp >> 12) as u8,
                    0x80 | ((cp >> 6) & 0x3F) as u8,
                    0x80 | (cp & 0x3F) as u8,
                ]);
            }
        }
    }
    (out, lone)
}

/// A token in html5lib's form. Strings are bytes (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum H5Token {
    /// `["Character", data]`.
    Character(Vec<u8>),
    /// `["StartTag", name, {attributes}]`, `true` appended when self-closing.
    StartTag {
        /// Tag name.
        name: Vec<u8>,
        /// Attributes, the first occurrence of each name.
        attributes: BTreeMap<Vec<u8>, Vec<u8>>,
        /// The self-closing flag.
        self_closing: bool,
    },
    /// `["EndTag", name]`.
    EndTag(Vec<u8>),
    /// `["Comment", data]`.
    Comment(Vec<u8>),
    /// `["DOCTYPE", name, public_id, system_id, correctness]`.
    Doctype {
        /// Name, `null` when missing.
        name: Option<Vec<u8>>,
        /// Public identifier.
        public_id: Option<Vec<u8>>,
        /// System identifier.
        system_id: Option<Vec<u8>>,
        /// `!force_quirks`.
        correctness: bool,
    },
    /// Not an html5lib form: `["ProcessingInstruction", target, data]`, so that a processing
    /// instruction token shows up in a diff.
    ProcessingInstruction {
        /// Target.
        target: Vec<u8>,
        /// Data.
        data: Vec<u8>,
    },
}

impl H5Token {
    /// Parses one token of a test's `output`.
    pub fn from_json(v: &Value, double_escaped: bool) -> Result<H5Token, String> {
        let a = v.as_array().ok_or_else(|| format!("token is not a list: {v}"))?;
        let s = |i: usize| -> Result<Vec<u8>, String> {
            let s = a.get(i).and_then(Value::as_str).ok_or_else(|| format!("token field {i} is not a string: {v}"))?;
            Ok(string_bytes(s, double_escaped).0)
        };
        let opt = |i: usize| -> Result<Option<Vec<u8>>, String> {
            match a.get(i) {
                Some(Value::Null) => Ok(None),
                Some(Value::String(x)) => Ok(Some(string_bytes(x, double_escaped).0)),
                _ => Err(format!("token field {i} is not a string or null: {v}")),
            }
        };
        let kind = a.first().and_then(Value::as_str).ok_or_else(|| format!("token without kind: {v}"))?;
        Ok(match kind {
            "Character" => H5Token::Character(s(1)?),
            "StartTag" => {
                let mut attributes = BTreeMap::new();
                if let Some(obj) = a.get(2) {
                    for (k, val) in obj.as_object().ok_or_else(|| format!("attributes are not an object: {v}"))? {
                        let val = val.as_str().ok_or_else(|| format!("attribute value is not a string: {v}"))?;
                        attributes.insert(string_bytes(k, double_escaped).0, string_bytes(val, double_escaped).0);
                    }
                }
                let self_closing = a.get(3).and_then(Value::as_bool).unwrap_or(false);
                H5Token::StartTag { name: s(1)?, attributes, self_closing }
            }
            "EndTag" => H5Token::EndTag(s(1)?),
            "Comment" => H5Token::Comment(s(1)?),
            "DOCTYPE" => H5Token::Doctype {
                name: opt(1)?,
                public_id: opt(2)?,
                system_id: opt(3)?,
                correctness: a
                    .get(4)
                    .and_then(Value::as_bool)
                    .ok_or_else(|| format!("DOCTYPE without correctness: {v}"))?,
            },
            other => return Err(format!("unknown token kind {other:?}")),
        })
    }
}

fn show(b: &[u8]) -> String {
    format!("\"{}\"", escape_bytes(b))
}

fn show_opt(b: &Option<Vec<u8>>) -> String {
    b.as_deref().map_or_else(|| "null".to_owned(), show)
}

impl fmt::Display for H5Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            H5Token::Character(d) => write!(f, "[\"Character\", {}]", show(d)),
            H5Token::StartTag { name, attributes, self_closing } => {
                let attrs: Vec<String> = attributes.iter().map(|(k, v)| format!("{}: {}", show(k), show(v))).collect();
                write!(
                    f,
                    "[\"StartTag\", {}, {{{}}}{}]",
                    show(name),
                    attrs.join(", "),
                    if *self_closing { ", true" } else { "" }
                )
            }
            H5Token::EndTag(n) => write!(f, "[\"EndTag\", {}]", show(n)),
            H5Token::Comment(d) => write!(f, "[\"Comment\", {}]", show(d)),
            H5Token::Doctype { name, public_id, system_id, correctness } => write!(
                f,
                "[\"DOCTYPE\", {}, {}, {}, {correctness}]",
                show_opt(name),
                show_opt(public_id),
                show_opt(system_id)
            ),
            H5Token::ProcessingInstruction { target, data } => {
                write!(f, "[\"ProcessingInstruction\", {}, {}]", show(target), show(data))
            }
        }
    }
}

/// Appends `t`, merging it into a preceding `Character` token when both are characters.
pub fn push_merged(list: &mut Vec<H5Token>, t: H5Token) {
    if let (Some(H5Token::Character(prev)), H5Token::Character(more)) = (list.last_mut(), &t) {
        prev.extend_from_slice(more);
        return;
    }
    list.push(t);
}

/// What a tokenizer run produced, in html5lib's terms.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Outcome {
    /// The tokens, adjacent characters merged.
    pub tokens: Vec<H5Token>,
    /// The error codes, sorted.
    pub errors: Vec<String>,
}

impl Outcome {
    /// Multi-line rendering: one token per line, then the errors.
    pub fn render(&self) -> String {
        let mut s = String::new();
        s.push_str("    tokens:\n");
        if self.tokens.is_empty() {
            s.push_str("      (none)\n");
        }
        for t in &self.tokens {
            s.push_str(&format!("      {t}\n"));
        }
        s.push_str(&format!("    errors: [{}]\n", self.errors.join(", ")));
        s
    }

    /// A short description of how `self` (actual) differs from `expected`.
    pub fn difference(&self, expected: &Outcome) -> String {
        let mut s = String::new();
        if self.tokens != expected.tokens {
            let first = self
                .tokens
                .iter()
                .zip(&expected.tokens)
                .position(|(a, b)| a != b)
                .unwrap_or(self.tokens.len().min(expected.tokens.len()));
            s.push_str(&format!("tokens differ from token #{first}"));
        }
        if self.errors != expected.errors {
            if !s.is_empty() {
                s.push_str("; ");
            }
            let missing = multiset_minus(&expected.errors, &self.errors);
            let extra = multiset_minus(&self.errors, &expected.errors);
            s.push_str(&format!("errors: missing [{}], unexpected [{}]", missing.join(", "), extra.join(", ")));
        }
        s
    }
}

fn multiset_minus(a: &[String], b: &[String]) -> Vec<String> {
    let mut b: Vec<&String> = b.iter().collect();
    let mut out = Vec::new();
    for x in a {
        if let Some(i) = b.iter().position(|y| *y == x) {
            b.remove(i);
        } else {
            out.push(x.clone());
        }
    }
    out
}

/// A [`TokenSink`] that renders tokens in html5lib's form and collects all parse errors (those of
/// each token, [`Token::parse_errors`], and those the tokenizer reports between tokens). It
/// answers [`Feedback::default()`] to every token: html5lib's tokenizer tests assume no
/// tree-builder feedback.
#[derive(Debug, Default)]
pub struct Html5libSink {
    /// Tokens so far, adjacent characters merged.
    pub tokens: Vec<H5Token>,
    /// Error codes so far, unsorted.
    pub errors: Vec<String>,
}

impl TokenSink for Html5libSink {
    fn token(&mut self, token: &Token<'_>) -> Feedback {
        let errors = &mut self.errors;
        token.parse_errors(&mut |e: ParseError| errors.push(e.code.as_str().to_owned()));
        let rendered = match token.kind() {
            TokenKind::Text(_) => Some(H5Token::Character(token.text().unwrap_or_default().as_bytes().to_vec())),
            TokenKind::StartTag => {
                let mut attributes = BTreeMap::new();
                for a in token.attributes() {
                    attributes.entry(a.name.as_bytes().to_vec()).or_insert_with(|| a.value.as_bytes().to_vec());
                }
                Some(H5Token::StartTag {
                    name: token.tag_name().as_bytes().to_vec(),
                    attributes,
                    self_closing: token.is_self_closing(),
                })
            }
            TokenKind::EndTag => Some(H5Token::EndTag(token.tag_name().as_bytes().to_vec())),
            TokenKind::Comment(_) => {
                Some(H5Token::Comment(token.comment_data().unwrap_or_default().as_bytes().to_vec()))
            }
            TokenKind::Doctype => {
                let d = token.doctype().unwrap_or_default();
                Some(H5Token::Doctype {
                    name: d.name.map(String::into_bytes),
                    public_id: d.public_id.map(String::into_bytes),
                    system_id: d.system_id.map(String::into_bytes),
                    correctness: !d.force_quirks,
                })
            }
            TokenKind::ProcessingInstruction => {
                let (target, data) = token.processing_instruction().unwrap_or_default();
                Some(H5Token::ProcessingInstruction {
                    target: target.as_bytes().to_vec(),
                    data: data.as_bytes().to_vec(),
                })
            }
            TokenKind::CdataStart | TokenKind::CdataEnd | TokenKind::Dropped(_) => None,
        };
        if let Some(t) = rendered {
            push_merged(&mut self.tokens, t);
        }
        Feedback::default()
    }

    fn parse_error(&mut self, error: ParseError) {
        self.errors.push(error.code.as_str().to_owned());
    }
}

/// Tokenizes `chunks` (one [`Tokenizer::feed`] each, then [`Tokenizer::finish`]) starting in
/// `mode` with `last_start_tag`, input stream errors on, and returns the outcome in html5lib's
/// terms.
pub fn tokenize(mode: TextMode, last_start_tag: Option<&str>, chunks: &[&[u8]]) -> Outcome {
    let mut tokenizer = Tokenizer::with_text_mode(mode, last_start_tag.map(str::as_bytes));
    tokenizer.set_report_input_errors(true);
    let mut sink = Html5libSink::default();
    for chunk in chunks {
        tokenizer.feed(chunk, &mut sink);
    }
    tokenizer.finish(&mut sink);
    sink.errors.sort();
    Outcome { tokens: sink.tokens, errors: sink.errors }
}
