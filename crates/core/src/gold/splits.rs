//! Leak-free splits: a claim family's split depends only on its root claim's id and the
//! seed, so a claim and all its refutations share a split, and re-exporting after more
//! work moves no earlier claim.

/// The split index (0-based, into `ratios`) of a family, from a hash (blake3) of the ROOT
/// claim's id and the seed: stable across runs, machines and the order claims are added.
///
/// Ratios are relative weights (70,15,15 and 14,3,3 give the same splits). With no ratios,
/// or all of them zero, everything lands in split 0.
pub fn split_of(root_id: &str, seed: u64, ratios: &[u32]) -> usize {
    let total: u64 = ratios.iter().map(|&r| u64::from(r)).sum();
    if total == 0 {
        return 0;
    }
    let mut hasher = blake3::Hasher::new();
    hasher.update(b"factdesk split v1\0");
    hasher.update(&seed.to_le_bytes());
    hasher.update(root_id.as_bytes());
    let digest = hasher.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest.as_bytes()[..8]);
    let h = u64::from_le_bytes(first);
    // Scale into 0..total by multiplication rather than modulo, which keeps every bucket
    // within one part in 2^64 of its exact share.
    let point = ((u128::from(h) * u128::from(total)) >> 64) as u64;
    let mut upper = 0u64;
    for (index, &ratio) in ratios.iter().enumerate() {
        upper += u64::from(ratio);
        if point < upper {
            return index;
        }
    }
    ratios.len() - 1
}
