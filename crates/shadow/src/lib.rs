//! Tree-builder shadow (work in progress, issue 3).
#![forbid(unsafe_code)]
