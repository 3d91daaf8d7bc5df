//! Shared helpers of the htrewrite conformance runners (`tests/tests/*.rs`).
//!
//! - [`html5lib`]: loads html5lib's tokenizer tests (`data/html5lib-tests/tokenizer/*.test`) and
//!   renders our tokens in html5lib's JSON token form.
//! - [`tree_construction`]: loads the `#data` inputs of html5lib's tree-construction `.dat` files
//!   and of the web-platform-tests additions.
//! - [`expected_differences`]: reads `expected-differences.toml`, the list of upstream cases that
//!   the current HTML Standard made stale.
//! - [`chunking`]: whole, every-n-bytes and seeded random splittings of an input.
//! - [`harness`]: panic capture and a hang watchdog for trials.
//!
//! Everything here is deterministic: random splittings come from a seed derived from the trial
//! name, and failures print that seed and the split points.
#![forbid(unsafe_code)]

pub mod chunking;
pub mod corpus;
mod escape;
pub mod expected_differences;
pub mod harness;
pub mod html5lib;
mod paths;
pub mod tree_construction;

pub use escape::{escape_bytes, escape_str, first_difference, sanitize_name};
pub use paths::{data_dir, expected_differences_path};
