//! Spreading per-row work (sentence splitting, hashing) over the machine's cores while
//! keeping the rows' order, so results and error lines stay deterministic.

use rayon::prelude::*;

/// Rows a thread takes at least: below that, one thread is quicker than starting more.
const MIN_PER_THREAD: usize = 256;

/// `f` applied to every item, on every core; the results are in the items' order.
pub(super) fn map_ordered<T: Sync, U: Send>(items: &[T], f: impl Fn(&T) -> U + Sync) -> Vec<U> {
    items
        .par_iter()
        .with_min_len(MIN_PER_THREAD)
        .map(&f)
        .collect()
}

/// [`map_ordered`] for items the work consumes, so that none is copied.
pub(super) fn map_owned<T: Send, U: Send>(items: Vec<T>, f: impl Fn(T) -> U + Sync) -> Vec<U> {
    items
        .into_par_iter()
        .with_min_len(MIN_PER_THREAD)
        .map(&f)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_for_small_and_large_inputs() {
        for n in [0, 1, 255, 256, 1000, 10_007] {
            let items: Vec<usize> = (0..n).collect();
            let doubled = map_ordered(&items, |i| i * 2);
            assert_eq!(doubled, (0..n).map(|i| i * 2).collect::<Vec<_>>());
            assert_eq!(map_owned(items, |i| i * 2), doubled);
        }
    }
}
