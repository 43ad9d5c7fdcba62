//! Jaro-Winkler similarity of two words, as `strsim::jaro_winkler` computes it, without
//! its allocation and character iteration: the trick search compares each sentence that
//! passes the word check with every word of the claim, and `strsim`'s generic version
//! was a third of creating evidence tasks for 100,000 claims.
//!
//! The same greedy matching, the same order of floating-point operations, so the result
//! is the same number to the bit (`agrees_with_strsim` below); words longer than 64
//! characters go to `strsim` itself.

/// `strsim::jaro_winkler(a, b)`.
pub(crate) fn jaro_winkler(a: &str, b: &str) -> f64 {
    let fast = if a.is_ascii() && b.is_ascii() {
        winkler(a.as_bytes(), b.as_bytes())
    } else {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        winkler(&a, &b)
    };
    fast.unwrap_or_else(|| strsim::jaro_winkler(a, b))
}

/// A word's letter counts and length in characters: a bound on how many characters it
/// can match in another word, and so on their similarity, in a few instructions.
///
/// Four bits a lane, 32 lanes: `a` to `z`, then every other character folded into six
/// lanes by its code (folding only raises the bound). No counts where a lane passes 7.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Letters {
    counts: Option<u128>,
    chars: u32,
}

/// The top bit of every lane.
const TOPS: u128 = 0x8888_8888_8888_8888_8888_8888_8888_8888;
const LOW_NIBBLES: u128 = 0x0F0F_0F0F_0F0F_0F0F_0F0F_0F0F_0F0F_0F0F;
const BYTE_ONES: u128 = 0x0101_0101_0101_0101_0101_0101_0101_0101;

impl Letters {
    pub fn of(word: &str) -> Letters {
        let (mut counts, mut chars, mut full) = (0u128, 0u32, false);
        for c in word.chars() {
            chars += 1;
            let lane = if c.is_ascii_lowercase() {
                u32::from(c) - u32::from('a')
            } else {
                26 + u32::from(c) % 6
            };
            if (counts >> (4 * lane)) & 0xF == 7 {
                full = true;
            } else {
                counts += 1 << (4 * lane);
            }
        }
        Letters {
            counts: (!full).then_some(counts),
            chars,
        }
    }

    /// At least how many characters the two words have in common, counted with
    /// multiplicity: the most Jaro can match.
    fn common(a: u128, b: u128) -> u32 {
        // Each lane of `a | TOPS` is 8 more than `a`'s, so subtracting a lane of `b` (at
        // most 7) borrows nothing from the next: its top bit says `a >= b`.
        let a_not_less = ((a | TOPS) - b) & TOPS;
        let take_b = (a_not_less >> 3) * 0xF;
        let least = (b & take_b) | (a & !take_b);
        let bytes = (least & LOW_NIBBLES) + ((least >> 4) & LOW_NIBBLES);
        // The top byte of the product sums all 16 bytes (at most 32 × 7 = 224).
        (bytes.wrapping_mul(BYTE_ONES) >> 120) as u32
    }

    /// Whether the two words' Jaro-Winkler similarity can reach `threshold`; `false`
    /// proves it does not. Jaro is at most (c/|a| + c/|b| + 1)/3 for `c` characters in
    /// common, and the prefix bonus, given only above 0.7, adds at most 0.4 × (1 − Jaro).
    pub fn may_reach(&self, other: &Letters, threshold: f64) -> bool {
        let (Some(a), Some(b)) = (self.counts, other.counts) else {
            return true;
        };
        if self.chars == 0 || other.chars == 0 {
            return true;
        }
        let needed = if threshold > 0.7 {
            ((threshold - 0.4) / 0.6).max(0.7)
        } else {
            threshold
        };
        let c = f64::from(Letters::common(a, b));
        let most = (c / f64::from(self.chars) + c / f64::from(other.chars) + 1.0) / 3.0;
        // The margin covers rounding, in the bound and in the similarity itself.
        most >= needed - 1e-9
    }
}

/// The longest word the bit sets below hold.
const MAX_LEN: usize = 64;

fn winkler<T: PartialEq>(a: &[T], b: &[T]) -> Option<f64> {
    if a.len() > MAX_LEN || b.len() > MAX_LEN {
        return None;
    }
    Some(with_prefix(a, b, jaro(a, b)))
}

/// Winkler's bonus for a common prefix of up to four items, given Jaro's `sim`.
fn with_prefix<T: PartialEq>(a: &[T], b: &[T], sim: f64) -> f64 {
    if sim > 0.7 {
        let prefix = a.iter().take(4).zip(b).take_while(|(x, y)| x == y).count();
        sim + 0.1 * prefix as f64 * (1.0 - sim)
    } else {
        sim
    }
}

/// A word compared with many others as the second side of [`jaro_winkler`] (a claim's
/// word against every word of the sentences a trick search looks at): the positions of
/// each of its ASCII characters, so that matching finds a character's first free partner
/// in its window with one AND instead of a scan. The same greedy matching, so the same
/// number to the bit.
#[derive(Debug, Clone)]
pub(crate) struct Prepared {
    word: String,
    /// For each ASCII byte, the positions it holds in `word`; none when `word` is not
    /// ASCII or longer than [`MAX_LEN`].
    at: Option<Box<[u64; 128]>>,
}

impl Prepared {
    pub fn of(word: &str) -> Prepared {
        let at = (word.is_ascii() && word.len() <= MAX_LEN).then(|| {
            let mut at = Box::new([0u64; 128]);
            for (j, &c) in word.as_bytes().iter().enumerate() {
                at[usize::from(c)] |= 1 << j;
            }
            at
        });
        Prepared {
            word: word.to_owned(),
            at,
        }
    }

    /// `jaro_winkler(a, word)`.
    pub fn winkler_from(&self, a: &str) -> f64 {
        match &self.at {
            Some(at) if a.is_ascii() && a.len() <= MAX_LEN => {
                let (a, b) = (a.as_bytes(), self.word.as_bytes());
                with_prefix(a, b, jaro_at(a, b, at))
            }
            _ => jaro_winkler(a, &self.word),
        }
    }
}

/// [`jaro`] of ASCII `a` and `b`, where `at` holds the positions of each byte in `b`.
fn jaro_at(a: &[u8], b: &[u8], at: &[u64; 128]) -> f64 {
    let b_len = b.len();
    let range = match match_range(a.len(), b_len) {
        Ok(range) => range,
        Err(sim) => return sim,
    };
    let (mut a_flags, mut b_flags) = (0u64, 0u64);
    let mut matches = 0usize;
    for (i, &x) in a.iter().enumerate() {
        let from = i.saturating_sub(range);
        let to = b_len.min(i + range + 1);
        if from >= to {
            continue;
        }
        let below_to = if to >= 64 { u64::MAX } else { (1u64 << to) - 1 };
        let free = at[usize::from(x & 0x7F)] & !b_flags & below_to & (u64::MAX << from);
        if free != 0 {
            a_flags |= 1 << i;
            b_flags |= 1 << free.trailing_zeros();
            matches += 1;
        }
    }
    score(a, b, a_flags, b_flags, matches)
}

/// How far apart two matched items may stand; `Err`, Jaro itself where a side is empty.
fn match_range(a_len: usize, b_len: usize) -> Result<usize, f64> {
    match (a_len, b_len) {
        (0, 0) => Err(1.0),
        (0, _) | (_, 0) => Err(0.0),
        _ => Ok((a_len.max(b_len) / 2).saturating_sub(1)),
    }
}

/// Jaro similarity of two sequences of at most [`MAX_LEN`] items.
fn jaro<T: PartialEq>(a: &[T], b: &[T]) -> f64 {
    let b_len = b.len();
    let range = match match_range(a.len(), b_len) {
        Ok(range) => range,
        Err(sim) => return sim,
    };
    // Which items of each side are matched, one bit each.
    let (mut a_flags, mut b_flags) = (0u64, 0u64);
    let mut matches = 0usize;
    for (i, x) in a.iter().enumerate() {
        let from = i.saturating_sub(range);
        let to = b_len.min(i + range + 1);
        for (j, y) in b.iter().enumerate().take(to).skip(from) {
            if b_flags & (1 << j) == 0 && x == y {
                a_flags |= 1 << i;
                b_flags |= 1 << j;
                matches += 1;
                break;
            }
        }
    }
    score(a, b, a_flags, b_flags, matches)
}

/// Jaro from the matched items of each side (one bit each) and their count.
fn score<T: PartialEq>(a: &[T], b: &[T], a_flags: u64, b_flags: u64, matches: usize) -> f64 {
    let (a_len, b_len) = (a.len(), b.len());
    if matches == 0 {
        return 0.0;
    }
    let mut transpositions = 0usize;
    let mut j = 0;
    for (i, x) in a.iter().enumerate() {
        if a_flags & (1 << i) == 0 {
            continue;
        }
        // As many items of `b` are matched as of `a`, so this stays inside `b`.
        while b_flags & (1 << j) == 0 {
            j += 1;
        }
        if *x != b[j] {
            transpositions += 1;
        }
        j += 1;
    }
    transpositions /= 2;
    ((matches as f64 / a_len as f64)
        + (matches as f64 / b_len as f64)
        + ((matches - transpositions) as f64 / matches as f64))
        / 3.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn agrees_with_strsim_on_known_pairs() {
        let pairs = [
            ("vaccine", "vaccines"),
            ("hospitalisation", "hospitalizations"),
            ("terlo", "tersel"),
            ("cheeseburger", "cheese fries"),
            ("", ""),
            ("a", ""),
            ("dixon", "dicksonx"),
            ("martha", "marhta"),
            ("müller's", "muller's"),
            ("été", "ete"),
            ("疫苗降低", "疫苗"),
        ];
        for (a, b) in pairs {
            assert_eq!(
                jaro_winkler(a, b).to_bits(),
                strsim::jaro_winkler(a, b).to_bits(),
                "{a} / {b}"
            );
        }
        let long = "x".repeat(65);
        assert_eq!(jaro_winkler(&long, "xx"), strsim::jaro_winkler(&long, "xx"));
    }

    #[test]
    fn letters_in_common_are_counted_with_multiplicity() {
        let common = |a: &str, b: &str| {
            Letters::common(
                Letters::of(a).counts.unwrap_or_default(),
                Letters::of(b).counts.unwrap_or_default(),
            )
        };
        assert_eq!(common("terlo", "tersel"), 4);
        assert_eq!(common("terlo", "domvel"), 3);
        assert_eq!(common("aaab", "aab"), 3);
        assert_eq!(common("zzzzzzz", "zzzzzzz"), 7);
        assert!(Letters::of("aaaaaaaa").counts.is_none());
        assert!(Letters::of("été").counts.is_some());
    }

    proptest! {
        /// The bound never rules out a pair that reaches the threshold, at any threshold.
        #[test]
        fn the_letters_bound_never_misses_a_resemblance(
            a in "[a-fé1']{1,14}",
            b in "[a-fé1']{1,14}",
            threshold in 0.5f64..1.0,
        ) {
            let sim = strsim::jaro_winkler(&a, &b);
            for t in [threshold, 0.8, sim] {
                if sim >= t {
                    prop_assert!(Letters::of(&a).may_reach(&Letters::of(&b), t), "{} / {} at {}", a, b, t);
                }
            }
        }

        /// A prepared word gives what [`jaro_winkler`] gives, to the bit.
        #[test]
        fn a_prepared_word_agrees_with_strsim(a in "[a-eé']{0,20}", b in "[a-e']{0,20}") {
            prop_assert_eq!(
                Prepared::of(&b).winkler_from(&a).to_bits(),
                strsim::jaro_winkler(&a, &b).to_bits()
            );
        }

        #[test]
        fn a_prepared_long_word_agrees_with_strsim(a in "[a-z]{0,70}", b in "[a-d]{0,70}") {
            prop_assert_eq!(
                Prepared::of(&b).winkler_from(&a).to_bits(),
                strsim::jaro_winkler(&a, &b).to_bits()
            );
        }

        #[test]
        fn agrees_with_strsim(a in "[a-eé']{0,20}", b in "[a-eé']{0,20}") {
            prop_assert_eq!(
                jaro_winkler(&a, &b).to_bits(),
                strsim::jaro_winkler(&a, &b).to_bits()
            );
        }

        #[test]
        fn agrees_with_strsim_on_longer_words(a in "[a-z]{0,80}", b in "[a-d]{0,80}") {
            prop_assert_eq!(
                jaro_winkler(&a, &b).to_bits(),
                strsim::jaro_winkler(&a, &b).to_bits()
            );
        }
    }
}
