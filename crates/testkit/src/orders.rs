//! Orders to run things in: every permutation for small cases, seeded shuffles for larger ones.

use crate::Random;

/// Every permutation of `0..n` (`n!` of them: meant for small `n`), each
/// once, in a fixed order.
///
/// # Example
///
/// ```
/// let all = htrewrite_testkit::permutations(3);
/// assert_eq!(all.len(), 6);
/// assert!(all.contains(&vec![2, 0, 1]));
/// ```
pub fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut all = Vec::new();
    for p in permutations(n - 1) {
        for at in 0..=p.len() {
            let mut q = p.clone();
            q.insert(at, n - 1);
            all.push(q);
        }
    }
    all
}

/// `0..n` shuffled by Fisher–Yates with `rng` (swapping position `i`, from
/// the last down, with one drawn by `rng.below(i + 1)`): the same `rng`
/// state gives the same order.
///
/// # Example
///
/// ```
/// use htrewrite_testkit::{SplitMix64, shuffled};
/// let order = shuffled(5, &mut SplitMix64::new(1));
/// assert_eq!(order, shuffled(5, &mut SplitMix64::new(1)));
/// let mut sorted = order.clone();
/// sorted.sort();
/// assert_eq!(sorted, [0, 1, 2, 3, 4]);
/// ```
pub fn shuffled(n: usize, rng: &mut impl Random) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        order.swap(i, rng.below(i + 1));
    }
    order
}
