//! The chunk-boundary whitebox test.
//!
//! The tokenizer's state is `Clone + Eq` with one canonical form for every
//! prefix of the input. Feed an input one byte at a time, saving the state
//! at every offset; then for every substring `i..j`, feed it as one chunk
//! from the saved state `i`: the state must equal the saved state `j`, and
//! the tokens emitted must be those emitted byte by byte from `i` to `j`
//! (adjacent text merged). Together with induction over chunks, this covers
//! every chunking of the input with O(n²) checks instead of 2ⁿ⁻¹ chunkings.
//!
//! Inputs: every html5lib tokenizer input up to 200 bytes (in each of its
//! initial states) and the hazard inputs below.

use crate::common;

use common::{Rec, Recorder, merge};
use htrewrite_tokenizer::{TextMode, Tokenizer};
use libtest_mimic::{Failed, Trial};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/html5lib-tests/tokenizer");

const HAZARDS: &[(&str, &str)] = &[
    ("zero-padded numeric reference", "a&#x000000000041;b&#0000065;"),
    ("named reference prefix", "&notit; &notin; &not &amp &ampx &AMP;"),
    ("legacy names in attributes", "<a b='&copy=&copyx&copy;'>&copy="),
    ("crlf", "a\r\nb\r\r\nc\n\rd\r"),
    ("lt and end tag open", "a<b<</<a</a <"),
    ("script escapes", "<script><!--<script></script>--><!--x--></script>"),
    ("rcdata end tags", "<title>a</titl</titlex</title </title>"),
    ("comment ends", "<!--a--!><!-- --!-x --><!--><!--->"),
    ("pi and bogus", "<?a b?><?xml?><? x><?>"),
    ("doctype", "<!DOCTYPE html PUBLIC \"x>\" 'y'>"),
    ("cdata as bogus", "<![CDATA[a]]b]]>"),
];

pub(crate) fn trials() -> Vec<Trial> {
    let mut trials = Vec::new();
    for (name, input) in HAZARDS {
        let input = input.as_bytes().to_vec();
        trials.push(Trial::test(format!("hazard: {name}"), move || check(&input, TextMode::Data, None, true)));
    }
    let mut files: Vec<_> =
        std::fs::read_dir(DATA).expect("vendored tokenizer tests").flatten().map(|e| e.path()).collect();
    files.sort();
    for path in files.into_iter().filter(|p| p.extension().is_some_and(|e| e == "test")) {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let tests = json.get("tests").or_else(|| json.get("xmlViolationTests")).and_then(|t| t.as_array()).unwrap();
        for (index, test) in tests.iter().enumerate() {
            let double = test.get("doubleEscaped").and_then(|d| d.as_bool()).unwrap_or(false);
            let input = to_bytes(test["input"].as_str().unwrap(), double);
            if input.len() > 200 {
                continue;
            }
            let last = test.get("lastStartTag").and_then(|s| s.as_str()).map(|s| s.as_bytes().to_vec());
            let states: Vec<String> = match test.get("initialStates").and_then(|s| s.as_array()) {
                Some(a) => a.iter().map(|s| s.as_str().unwrap().to_string()).collect(),
                None => vec!["Data state".to_string()],
            };
            for state in states {
                let mode = mode_of(&state);
                let input = input.clone();
                let last = last.clone();
                let name = format!("{file}#{index:04} [{state}]");
                trials.push(Trial::test(name, move || check(&input, mode, last.as_deref(), false)));
            }
        }
    }
    trials
}

fn mode_of(state: &str) -> TextMode {
    match state {
        "Data state" => TextMode::Data,
        "PLAINTEXT state" => TextMode::Plaintext,
        "RCDATA state" => TextMode::Rcdata,
        "RAWTEXT state" => TextMode::Rawtext,
        "Script data state" => TextMode::ScriptData,
        "CDATA section state" => TextMode::CdataSection,
        other => panic!("unknown initial state {other}"),
    }
}

/// The input as bytes; with `double`, `\uXXXX` escapes are decoded, lone
/// surrogates encoded WTF-8 style.
fn to_bytes(s: &str, double: bool) -> Vec<u8> {
    if !double {
        return s.as_bytes().to_vec();
    }
    let units: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let hex = |k: usize| -> Option<u32> {
        let h: String = units.get(k + 2..k + 6)?.iter().collect();
        if units.get(k) == Some(&'\\') && units.get(k + 1) == Some(&'u') {
            u32::from_str_radix(&h, 16).ok()
        } else {
            None
        }
    };
    while i < units.len() {
        if let Some(u) = hex(i) {
            let mut cp = u;
            i += 6;
            if (0xD800..0xDC00).contains(&u)
                && let Some(lo) = hex(i).filter(|lo| (0xDC00..0xE000).contains(lo))
            {
                cp = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                i += 6;
            }
            push_wtf8(&mut out, cp);
        } else {
            let mut b = [0; 4];
            out.extend_from_slice(units[i].encode_utf8(&mut b).as_bytes());
            i += 1;
        }
    }
    out
}

fn push_wtf8(out: &mut Vec<u8>, cp: u32) {
    match cp {
        0..=0x7F => out.push(cp as u8),
        0x80..=0x7FF => out.extend_from_slice(&[0xC0 | (cp >> 6) as u8, 0x80 | (cp & 0x3F) as u8]),
        0x800..=0xFFFF => {
            out.extend_from_slice(&[0xE0 | (cp >> 12) as u8, 0x80 | ((cp >> 6) & 0x3F) as u8, 0x80 | (cp & 0x3F) as u8])
        }
        _ => out.extend_from_slice(&[
            0xF0 | (cp >> 18) as u8,
            0x80 | ((cp >> 12) & 0x3F) as u8,
            0x80 | ((cp >> 6) & 0x3F) as u8,
            0x80 | (cp & 0x3F) as u8,
        ]),
    }
}

fn check(input: &[u8], mode: TextMode, last: Option<&[u8]>, policy: bool) -> Result<(), Failed> {
    let start =
        if mode == TextMode::Data && last.is_none() { Tokenizer::new() } else { Tokenizer::with_text_mode(mode, last) };
    let n = input.len();
    let mut states = Vec::with_capacity(n + 1);
    let mut outs: Vec<Vec<Rec>> = Vec::with_capacity(n);
    states.push(start);
    for k in 0..n {
        let mut t = states[k].clone();
        let mut sink = Recorder::new(policy);
        t.feed(&input[k..k + 1], &mut sink);
        outs.push(sink.tokens);
        states.push(t);
    }
    for i in 0..n {
        let mut expected: Vec<Rec> = Vec::new();
        for j in i + 1..=n {
            expected.extend(outs[j - 1].iter().cloned());
            let mut t = states[i].clone();
            let mut sink = Recorder::new(policy);
            t.feed(&input[i..j], &mut sink);
            if t != states[j] {
                return Err(format!(
                    "state after feeding {i}..{j} as one chunk differs from byte-by-byte:\n  chunk: {t:?}\n  bytes: {:?}",
                    states[j]
                )
                .into());
            }
            if merge(&sink.tokens) != merge(&expected) {
                return Err(format!(
                    "tokens from {i}..{j} as one chunk differ:\n  chunk: {:?}\n  bytes: {:?}",
                    merge(&sink.tokens),
                    merge(&expected)
                )
                .into());
            }
        }
    }
    Ok(())
}
