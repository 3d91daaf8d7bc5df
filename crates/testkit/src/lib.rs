//! Test support shared by htrewrite's test suites and the fuzz replay runner, so that each piece
//! lives in one place:
//!
//! - [`SplitMix64`] and [`XorShift64Star`]: the small seeded generators behind every random
//!   chunking and generated input, through the [`Random`] trait;
//! - [`fnv1a64`]: a seed derived from a test's name, stable across Rust versions and platforms;
//! - [`env_seed`]: the `HTREWRITE_SEED` variable with which a printed seed is replayed;
//! - [`permutations`] and [`shuffled`]: the orders in which tests fill slots or resolve futures
//!   (every order for small cases, seeded shuffles beyond);
//! - [`corpus`]: the folder of real pages named by `HTREWRITE_CORPUS` (a relative path taken
//!   from the workspace root, wherever cargo runs the test) and the walk over its pages;
//! - [`differences`]: the reader of the `expected-differences.toml` lists (upstream cases that
//!   the current HTML Standard made stale);
//! - [`html5lib`]: the vendored tree-construction suite's documents, for tests that only feed them;
//! - [`Part`]: one of several tests that share a long run of generated cases, each checking
//!   every n-th;
//! - [`suite`]: one test binary for a crate's integration-test files, each file's trials of the
//!   kind named after it.
//!
//! The generators are written out here rather than taken from a crate on purpose: a seed
//! printed by a failing test or found by the fuzzer must give the same cases after any
//! `cargo update` (`fastrand` changed its stream in a minor release, 2.1.0; the fuzz project has
//! no lock file), and the seeds committed or cited before this crate existed must still
//! replay, so both keep the exact streams of the copies they replace.
#![forbid(unsafe_code)]

pub mod corpus;
pub mod differences;
pub mod html5lib;
mod orders;
mod parts;
mod rng;
pub mod suite;

pub use orders::{permutations, shuffled};
pub use parts::Part;
pub use rng::{Random, SplitMix64, XorShift64Star, env_seed, fnv1a64};
