//! Shared helpers of the conformance runners (work in progress).
#![forbid(unsafe_code)]
