//! [`Part`]: one of several tests sharing a long run of generated cases.

use std::cell::Cell;

/// Part `part` of `parts` of a run of generated cases, for a long test split
/// into `parts` tests that the harness runs side by side: every part
/// generates the run's cases in the same order (so a case does not depend on
/// the split) and checks case i when i % `parts` is `part`, so the parts
/// together check every case once. Once a checked case fails
/// ([`Part::checked`]), every later call is checked: a property test's
/// shrinking then sees the property as it is.
///
/// # Example
/// ```
/// use htrewrite_testkit::Part;
/// let part = Part::new(1, 4);
/// let taken: Vec<usize> = (0..10).filter(|_| part.takes()).collect();
/// assert_eq!(taken, [1, 5, 9]);
/// ```
#[derive(Debug)]
pub struct Part {
    part: usize,
    parts: usize,
    next: Cell<usize>,
    failed: Cell<bool>,
}

impl Part {
    /// Part `part` of `parts`.
    ///
    /// # Panics
    /// When `part` is not below `parts`.
    pub fn new(part: usize, parts: usize) -> Part {
        assert!(part < parts, "part {part} of {parts}");
        Part { part, parts, next: Cell::new(0), failed: Cell::new(false) }
    }

    /// Whether this part checks the next case (each call is one case, in
    /// the run's order).
    pub fn takes(&self) -> bool {
        let i = self.next.get();
        self.next.set(i + 1);
        self.failed.get() || i % self.parts == self.part
    }

    /// `result` of a checked case, noting a failure.
    ///
    /// # Errors
    /// `result`'s error, as it is.
    pub fn checked<T, E>(&self, result: Result<T, E>) -> Result<T, E> {
        if result.is_err() {
            self.failed.set(true);
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::Part;

    /// The parts of a run check each of its cases once, and after a failure
    /// a part checks every later call.
    #[test]
    fn parts_check_every_case_once() {
        for parts in 1..6 {
            let all: Vec<Part> = (0..parts).map(|p| Part::new(p, parts)).collect();
            for case in 0..1000 {
                let takers = all.iter().filter(|p| p.takes()).count();
                assert_eq!(takers, 1, "case {case} of {parts} parts");
            }
        }
        let failing = Part::new(1, 4);
        assert!(failing.checked(Err::<(), ()>(())).is_err());
        assert!((0..8).all(|_| failing.takes()), "a part skipped a call after its failure");
    }
}
