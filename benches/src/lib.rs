//! Shared helpers of the benchmarks (work in progress).
#![forbid(unsafe_code)]
