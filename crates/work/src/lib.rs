//! A deterministic work counter for the linear-time tests of the htrewrite
//! crates, shared by all of them: the data structures and loops call
//! [`tick`] for each unit of work they do (an element moved or visited, a
//! candidate state tested, a byte scanned), and a test reads [`counted`]
//! before and after feeding an input at n and at 4n repetitions — proof
//! of linear time by counted work, not by timing.
//!
//! It counts (per thread) only with the `count` feature, which the crates
//! turn on in their dev-dependencies; without it [`tick`] compiles to
//! nothing and [`counted`] is always 0.
//!
//! # Example
//! ```
//! htrewrite_work::tick(3);
//! // 3 with the `count` feature (this crate's tests), 0 without.
//! assert!(htrewrite_work::counted() == 3 || htrewrite_work::counted() == 0);
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "count")]
thread_local! {
    static WORK: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Counts `n` units of work on this thread (nothing without the `count`
/// feature).
///
/// # Example
/// ```
/// let before = htrewrite_work::counted();
/// htrewrite_work::tick(2);
/// assert!(htrewrite_work::counted() - before <= 2);
/// ```
///
/// # Errors
/// None: counting cannot fail (the count wraps past `u64::MAX`).
#[inline(always)]
pub fn tick(n: usize) {
    #[cfg(feature = "count")]
    WORK.with(|w| w.set(w.get().wrapping_add(n as u64)));
    #[cfg(not(feature = "count"))]
    let _ = n;
}

/// The work counted on this thread so far (0 without the `count` feature).
///
/// # Example
/// ```
/// let _work: u64 = htrewrite_work::counted();
/// ```
///
/// # Errors
/// None.
pub fn counted() -> u64 {
    #[cfg(feature = "count")]
    return WORK.with(|w| w.get());
    #[cfg(not(feature = "count"))]
    0
}
