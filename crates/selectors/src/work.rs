//! A deterministic work counter for the linear-time tests (`tests.rs`):
//! the matcher calls [`tick`] for every candidate state it tests, state it
//! gathers or copies into a set, key it looks up, attribute it keys, record
//! it drops, detached element it places and sibling cursor it copies (by
//! the entries a copy really copies). It
//! counts only in this crate's unit tests (per thread); elsewhere it
//! compiles to nothing, as the shadow's own counter does.

#[cfg(test)]
thread_local! {
    static WORK: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Counts `n` units of work.
#[cfg(test)]
pub(crate) fn tick(n: usize) {
    WORK.with(|w| w.set(w.get() + n as u64));
}

/// Counts `n` units of work (nothing outside the unit tests).
#[cfg(not(test))]
#[inline(always)]
pub(crate) fn tick(_: usize) {}

/// The work counted on this thread so far.
#[cfg(test)]
pub(crate) fn counted() -> u64 {
    WORK.with(|w| w.get())
}
