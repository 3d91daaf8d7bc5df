//! The shadow's events do not depend on the chunking, exhaustively over
//! short documents: every document of 1 to 5 pieces from [`PIECES`]
//! (3,368,420 documents) is fed whole and one byte at a time; the raw bytes,
//! the events in their canonical form ([`OwnedEvent::canonical`], spans of
//! implied closings included) and the stacks after each start tag must be
//! equal. One named trial per first piece (`exhaustive::starts_with_02_b`).
//!
//! The pieces are tags that switch insertion modes or leave formatting
//! elements to reconstruct, and the characters whose rules differ: a NUL,
//! a space, a whitespace reference, a letter and a byte that is not UTF-8.

use crate::common;

use common::chunks::Chunking;
use common::drive;
use htrewrite_shadow::OwnedEvent;
use libtest_mimic::{Failed, Trial};

const PIECES: &[(&str, &[u8])] = &[
    ("table", b"<table>"),
    ("tr", b"<tr>"),
    ("b", b"<b>"),
    ("i", b"<i>"),
    ("end_b", b"</b>"),
    ("div", b"<div>"),
    ("p", b"<p>"),
    ("end_body", b"</body>"),
    ("end_html", b"</html>"),
    ("frameset", b"<frameset>"),
    ("head", b"<head>"),
    ("colgroup", b"<colgroup>"),
    ("nul", b"\0"),
    ("space", b" "),
    ("x", b"x"),
    ("space_reference", b"&#32;"),
    ("td", b"<td>"),
    ("template", b"<template>"),
    ("svg", b"<svg>"),
    ("byte_80", b"\x80"),
];

/// Pieces per document, at most.
const MAX_PIECES: u32 = 5;

/// Every document that starts with piece `first`: whole and byte by byte agree.
fn starting_with(first: usize) -> Result<(), Failed> {
    let n = PIECES.len();
    let mut failures = Vec::new();
    let mut documents = 0usize;
    for more in 0..MAX_PIECES {
        for mut k in 0..n.pow(more) {
            let mut doc = PIECES[first].1.to_vec();
            for _ in 0..more {
                doc.extend_from_slice(PIECES[k % n].1);
                k /= n;
            }
            documents += 1;
            let whole = drive::run(&doc, &Chunking { name: "whole".into(), lengths: vec![doc.len()] }, None, true);
            let bytes =
                drive::run(&doc, &Chunking { name: "every byte".into(), lengths: vec![1; doc.len()] }, None, true);
            let (a, b) = (OwnedEvent::canonical(&whole.events), OwnedEvent::canonical(&bytes.events));
            if whole.raw != doc || bytes.raw != doc || a != b || whole.stacks != bytes.stacks {
                let i = a.iter().zip(&b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
                failures.push(format!(
                    "{:?}: first difference at event #{i}\n  whole:        {:?}\n  byte by byte: {:?}",
                    String::from_utf8_lossy(&doc),
                    a.get(i),
                    b.get(i)
                ));
            }
        }
    }
    if failures.is_empty() {
        return Ok(());
    }
    let shown = failures.iter().take(10).cloned().collect::<Vec<_>>().join("\n");
    Err(format!("{} of {documents} documents differ; the first:\n{shown}", failures.len()).into())
}

pub(crate) fn trials() -> Vec<Trial> {
    (0..PIECES.len())
        .map(|i| Trial::test(format!("exhaustive::starts_with_{i:02}_{}", PIECES[i].0), move || starting_with(i)))
        .collect()
}
