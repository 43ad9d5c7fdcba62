//! Spreading per-row work (sentence splitting, hashing) over the machine's cores while
//! keeping the rows' order, so results and error lines stay deterministic.

/// Rows per thread below which one thread is quicker than starting more.
const MIN_PER_THREAD: usize = 256;

/// `f` applied to every item, on up to as many threads as there are cores; the results
/// are in the items' order.
pub(super) fn map_ordered<T: Sync, U: Send>(items: &[T], f: impl Fn(&T) -> U + Sync) -> Vec<U> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let threads = cores.min(items.len() / MIN_PER_THREAD).max(1);
    if threads == 1 {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    let f = &f;
    std::thread::scope(|s| {
        let parts: Vec<_> = items
            .chunks(chunk)
            .map(|part| s.spawn(move || part.iter().map(f).collect::<Vec<U>>()))
            .collect();
        joined(parts, items.len())
    })
}

/// The threads' results in the order the threads were started.
fn joined<U>(parts: Vec<std::thread::ScopedJoinHandle<'_, Vec<U>>>, total: usize) -> Vec<U> {
    let mut out = Vec::with_capacity(total);
    for part in parts {
        match part.join() {
            Ok(results) => out.extend(results),
            // A panic in `f` is a bug; carry it to the caller as it would have been.
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
    out
}

/// [`map_ordered`] for items the work consumes, so that none is copied.
pub(super) fn map_owned<T: Send, U: Send>(items: Vec<T>, f: impl Fn(T) -> U + Sync) -> Vec<U> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let threads = cores.min(items.len() / MIN_PER_THREAD).max(1);
    if threads == 1 {
        return items.into_iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    let mut parts = Vec::with_capacity(threads);
    let mut rest = items;
    while rest.len() > chunk {
        let tail = rest.split_off(chunk);
        parts.push(rest);
        rest = tail;
    }
    parts.push(rest);
    let total = parts.iter().map(Vec::len).sum();
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = parts
            .into_iter()
            .map(|part| s.spawn(move || part.into_iter().map(f).collect::<Vec<U>>()))
            .collect();
        joined(handles, total)
    })
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
