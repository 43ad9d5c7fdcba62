//! Levenshtein distance from one claim to many sentences, bit-parallel.
//!
//! The textbook dynamic programme costs claim length × sentence length cell updates per
//! sentence, which over the ~8,000 sentences of a 1 MB document is far too slow for
//! interactive ranking. Myers' bit-vector algorithm (J. ACM 46(3), 1999) computes the same
//! exact distance a machine word of rows at a time. The claim is the pattern, prepared
//! once; each sentence is streamed through it character by character without allocating.
//! A claim of up to 64 characters uses one `u64`, up to 128 (nearly all the rest) one
//! `u128`, and longer ones the paper's block-based form over several `u64`s.

use std::ops::{BitAnd, BitOr, BitXor, Not, Shl};

/// A bit vector over the rows of one block of the claim.
trait Bits:
    Copy
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + Shl<usize, Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
    fn wrapping_add(self, other: Self) -> Self;
    fn is_zero(self) -> bool;
    fn count_ones(self) -> u32;
}

impl Bits for u64 {
    const ZERO: Self = 0;
    const ONE: Self = 1;
    fn wrapping_add(self, other: Self) -> Self {
        u64::wrapping_add(self, other)
    }
    fn is_zero(self) -> bool {
        self == 0
    }
    fn count_ones(self) -> u32 {
        self.count_ones()
    }
}

impl Bits for u128 {
    const ZERO: Self = 0;
    const ONE: Self = 1;
    fn wrapping_add(self, other: Self) -> Self {
        u128::wrapping_add(self, other)
    }
    fn is_zero(self) -> bool {
        self == 0
    }
    fn count_ones(self) -> u32 {
        self.count_ones()
    }
}

/// For each character, the rows of one block of the claim where it occurs (Myers'
/// "Peq" table): a direct table for ASCII, indexed by a byte before lower-casing so ASCII
/// sentences are matched case-insensitively with one lookup per byte, and a sorted list
/// for the characters the table cannot answer (the rest, and ASCII capitals, which a
/// lower-cased claim does not have).
#[derive(Debug)]
struct Masks<B> {
    ascii_folded: [B; 128],
    other: Vec<(char, B)>,
}

impl<B: Bits> Masks<B> {
    /// Built where it is kept: a table copied into its box after building was a visible
    /// part of ranking a claim against a handful of sentences.
    fn boxed(block: &[char]) -> Box<Self> {
        let mut masks = Box::new(Masks {
            ascii_folded: [B::ZERO; 128],
            other: Vec::new(),
        });
        masks.fill(block);
        masks
    }

    fn new(block: &[char]) -> Self {
        let mut masks = Masks {
            ascii_folded: [B::ZERO; 128],
            other: Vec::new(),
        };
        masks.fill(block);
        masks
    }

    fn fill(&mut self, block: &[char]) {
        for (row, &c) in block.iter().enumerate() {
            let bit = B::ONE << row;
            if c.is_ascii() && !c.is_ascii_uppercase() {
                // Found by the byte itself and, for a letter, by its capital.
                let byte = c as u8;
                let i = usize::from(byte);
                self.ascii_folded[i] = self.ascii_folded[i] | bit;
                if byte.is_ascii_lowercase() {
                    let i = usize::from(byte.to_ascii_uppercase());
                    self.ascii_folded[i] = self.ascii_folded[i] | bit;
                }
            } else {
                match self.other.binary_search_by(|&(o, _)| o.cmp(&c)) {
                    Ok(i) => self.other[i].1 = self.other[i].1 | bit,
                    Err(i) => self.other.insert(i, (c, bit)),
                }
            }
        }
    }

    #[inline(always)]
    fn get(&self, c: char) -> B {
        if c.is_ascii() && !c.is_ascii_uppercase() {
            self.ascii_folded[c as usize]
        } else {
            match self.other.binary_search_by(|&(o, _)| o.cmp(&c)) {
                Ok(i) => self.other[i].1,
                Err(_) => B::ZERO,
            }
        }
    }

    /// The mask of an ASCII byte, lower-cased.
    #[inline(always)]
    fn get_ascii_folded(&self, byte: u8) -> B {
        // Masking keeps the index in bounds without a check; callers pass ASCII only.
        self.ascii_folded[usize::from(byte & 0x7f)]
    }
}

#[derive(Debug)]
enum Blocks {
    One64(Box<Masks<u64>>),
    One128(Box<Masks<u128>>),
    Many(Vec<Masks<u64>>),
}

/// A claim prepared for distance queries.
#[derive(Debug)]
pub(crate) struct ClaimPattern {
    len: usize,
    blocks: Blocks,
}

/// Per-block vertical delta vectors (positive, negative) for long claims, reused across
/// sentences.
#[derive(Debug, Default)]
pub(crate) struct Scratch(Vec<(u64, u64)>);

impl ClaimPattern {
    pub(crate) fn new(claim: impl Iterator<Item = char>) -> Self {
        let chars: Vec<char> = claim.collect();
        let blocks = match chars.len() {
            0..=64 => Blocks::One64(Masks::boxed(&chars)),
            65..=128 => Blocks::One128(Masks::boxed(&chars)),
            _ => Blocks::Many(chars.chunks(64).map(Masks::new).collect()),
        };
        ClaimPattern {
            len: chars.len(),
            blocks,
        }
    }

    /// The claim's length in characters.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The Levenshtein distance from the claim to `text`, and the length of `text` in
    /// characters.
    pub(crate) fn distance(
        &self,
        text: impl Iterator<Item = char>,
        scratch: &mut Scratch,
    ) -> (usize, usize) {
        match &self.blocks {
            Blocks::One64(masks) => one_block(self.len, text.map(|c| masks.get(c))),
            Blocks::One128(masks) => one_block(self.len, text.map(|c| masks.get(c))),
            Blocks::Many(blocks) => many_blocks(blocks, self.len, text, scratch),
        }
    }

    /// `distance` to an ASCII text lower-cased, which is most sentences: the same result
    /// as `distance(text.chars().map(|c| c.to_ascii_lowercase()))`, with one table lookup
    /// per byte.
    pub(crate) fn distance_ascii_lowercased(
        &self,
        text: &[u8],
        scratch: &mut Scratch,
    ) -> (usize, usize) {
        let bytes = text.iter().copied();
        match &self.blocks {
            Blocks::One64(masks) => one_block(self.len, bytes.map(|b| masks.get_ascii_folded(b))),
            Blocks::One128(masks) => one_block(self.len, bytes.map(|b| masks.get_ascii_folded(b))),
            Blocks::Many(blocks) => {
                let chars = bytes.map(|b| char::from(b.to_ascii_lowercase()));
                many_blocks(blocks, self.len, chars, scratch)
            }
        }
    }

    /// `distance_ascii_lowercased` of two texts, faster than one after the other.
    pub(crate) fn distance_ascii_lowercased_pair(
        &self,
        a: &[u8],
        b: &[u8],
        scratch: &mut Scratch,
    ) -> [(usize, usize); 2] {
        match &self.blocks {
            Blocks::One64(masks) => one_block_pair(self.len, masks, a, b),
            Blocks::One128(masks) => one_block_pair(self.len, masks, a, b),
            Blocks::Many(_) => [
                self.distance_ascii_lowercased(a, scratch),
                self.distance_ascii_lowercased(b, scratch),
            ],
        }
    }
}

/// `distance_ascii_lowercased` of two texts for a claim of `len` characters that fits one
/// block: the two columns are advanced in the same loop, so the processor overlaps their
/// dependency chains (one text's step waits on its previous one, not on the other's).
fn one_block_pair<B: Bits>(
    len: usize,
    masks: &Masks<B>,
    a: &[u8],
    b: &[u8],
) -> [(usize, usize); 2] {
    if len == 0 {
        return [(a.len(), a.len()), (b.len(), b.len())];
    }
    let (mut state_a, mut state_b) = ((!B::ZERO, B::ZERO), (!B::ZERO, B::ZERO));
    let common = a.len().min(b.len());
    for (&x, &y) in a[..common].iter().zip(&b[..common]) {
        advance_block(&mut state_a, masks.get_ascii_folded(x), 1, B::ZERO);
        advance_block(&mut state_b, masks.get_ascii_folded(y), 1, B::ZERO);
    }
    for &x in &a[common..] {
        advance_block(&mut state_a, masks.get_ascii_folded(x), 1, B::ZERO);
    }
    for &y in &b[common..] {
        advance_block(&mut state_b, masks.get_ascii_folded(y), 1, B::ZERO);
    }
    [
        last_column(len, state_a, a.len()),
        last_column(len, state_b, b.len()),
    ]
}

/// The distance and text length from the vertical deltas left after the last of `n`
/// columns (see [`one_block`]).
#[inline(always)]
fn last_column<B: Bits>(len: usize, (pv, mv): (B, B), n: usize) -> (usize, usize) {
    // The claim's rows: `len` low bits (all of them when the claim fills the block).
    let rows = (B::ONE << (len - 1)).wrapping_add(!B::ZERO) | B::ONE << (len - 1);
    let up = (pv & rows).count_ones() as usize;
    let down = (mv & rows).count_ones() as usize;
    (n + up - down, n)
}

/// `distance` for a claim of `len` characters that fits one block, given the mask of each
/// character of the text: the state stays in registers.
///
/// The distance is not tracked column by column: the vertical deltas left after the
/// last column are that column's differences from row to row, which starts at the text's
/// length (row 0 of the matrix is 0, 1, 2, …), so the distance is that length plus the
/// +1 deltas less the -1 deltas of the claim's rows. Rows above the claim's last hold
/// garbage but never reach the rows below: additions carry and shifts move upwards only.
fn one_block<B: Bits>(len: usize, text: impl Iterator<Item = B>) -> (usize, usize) {
    if len == 0 {
        let n = text.count();
        return (n, n);
    }
    // Column 0 of the matrix is 0, 1, 2, …: every vertical delta is +1.
    let mut state = (!B::ZERO, B::ZERO);
    let mut n = 0;
    for eq in text {
        n += 1;
        // Row 0 of the matrix is 0, 1, 2, …: the delta entering at the top is +1.
        advance_block(&mut state, eq, 1, B::ZERO);
    }
    last_column(len, state, n)
}

/// `distance` for a claim longer than one block: blocks pass the horizontal delta down.
fn many_blocks(
    blocks: &[Masks<u64>],
    len: usize,
    text: impl Iterator<Item = char>,
    scratch: &mut Scratch,
) -> (usize, usize) {
    let state = &mut scratch.0;
    state.clear();
    state.resize(blocks.len(), (!0, 0));
    let last_high = 1u64 << ((len - 1) % 64);
    let (mut score, mut n) = (len, 0);
    for c in text {
        n += 1;
        let mut carry = 1;
        for (b, (pv_mv, masks)) in state.iter_mut().zip(blocks).enumerate() {
            let high = if b + 1 == blocks.len() {
                last_high
            } else {
                1 << 63
            };
            carry = advance_block(pv_mv, masks.get(c), carry, high);
        }
        score = score.wrapping_add_signed(isize::from(carry));
    }
    (score, n)
}

/// One column step of one block (Myers 1999, fig. 9): updates the block's vertical
/// deltas given the horizontal delta `carry` entering at its top, and returns the delta
/// leaving at the row marked by `high`.
#[inline(always)]
fn advance_block<B: Bits>(pv_mv: &mut (B, B), mut eq: B, carry: i8, high: B) -> i8 {
    let (pv, mv) = *pv_mv;
    let xv = eq | mv;
    if carry < 0 {
        eq = eq | B::ONE;
    }
    let xh = ((eq & pv).wrapping_add(pv) ^ pv) | eq;
    let mut ph = mv | !(xh | pv);
    let mut mh = pv & xh;
    let out = i8::from(!(ph & high).is_zero()) - i8::from(!(mh & high).is_zero());
    ph = ph << 1;
    mh = mh << 1;
    if carry < 0 {
        mh = mh | B::ONE;
    } else if carry > 0 {
        ph = ph | B::ONE;
    }
    *pv_mv = (mh | !(xv | ph), ph & xv);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn distance(a: &str, b: &str) -> usize {
        ClaimPattern::new(a.chars())
            .distance(b.chars(), &mut Scratch::default())
            .0
    }

    #[test]
    fn small_known_distances() {
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("abc", ""), 3);
        assert_eq!(distance("", ""), 0);
        assert_eq!(distance("flaw", "lawn"), 2);
        assert_eq!(distance("naïve café", "naive cafe"), 2);
    }

    /// A deterministic pseudo-random generator, so the comparison is reproducible.
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self, n: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 33) % n as u64) as usize
        }
    }

    #[test]
    fn ascii_path_lower_cases() {
        let mut scratch = Scratch::default();
        for claim in ["kitten", &"kitten ".repeat(15), &"kitten ".repeat(30)] {
            let pattern = ClaimPattern::new(claim.chars());
            for text in ["SITTING", "Kitten", "", "kItTeN kitten KITTEN", "@[`{"] {
                let lower = text.to_ascii_lowercase();
                assert_eq!(
                    pattern.distance_ascii_lowercased(text.as_bytes(), &mut scratch),
                    pattern.distance(lower.chars(), &mut scratch),
                    "{claim:?} vs {text:?}"
                );
            }
        }
    }

    #[test]
    fn capitals_in_the_claim_match_only_themselves() {
        let mut scratch = Scratch::default();
        for claim in ["KiTten", "Ab@`[{ü", &"aB".repeat(40), &"xY".repeat(70)] {
            let pattern = ClaimPattern::new(claim.chars());
            for text in [
                "kitten",
                "KITTEN",
                "KiTten",
                "ab@`[{Ü",
                "AB",
                &"Ab".repeat(45),
            ] {
                let (d, _) = pattern.distance(text.chars(), &mut scratch);
                assert_eq!(d, strsim::levenshtein(claim, text), "{claim} {text}");
                if text.is_ascii() {
                    let (d, _) = pattern.distance_ascii_lowercased(text.as_bytes(), &mut scratch);
                    let lower = text.to_ascii_lowercase();
                    assert_eq!(d, strsim::levenshtein(claim, &lower), "{claim} {text}");
                }
            }
        }
    }

    #[test]
    fn pairs_equal_one_text_at_a_time() {
        let mut rng = Lcg(3);
        let mut scratch = Scratch::default();
        let alphabet = b"abcAB C-";
        let text = |rng: &mut Lcg, n: usize| -> Vec<u8> {
            (0..n).map(|_| alphabet[rng.next(alphabet.len())]).collect()
        };
        for m in [0, 1, 7, 64, 65, 128, 129, 200] {
            let claim = text(&mut rng, m).to_ascii_lowercase();
            let pattern = ClaimPattern::new(claim.iter().map(|&b| char::from(b)));
            for _ in 0..30 {
                let (na, nb) = (rng.next(250), rng.next(250));
                let (a, b) = (text(&mut rng, na), text(&mut rng, nb));
                let one = |t: &[u8], s: &mut Scratch| pattern.distance_ascii_lowercased(t, s);
                let want = [one(&a, &mut scratch), one(&b, &mut scratch)];
                let got = pattern.distance_ascii_lowercased_pair(&a, &b, &mut scratch);
                assert_eq!(got, want, "{m} {na} {nb}");
            }
        }
    }

    #[test]
    fn equals_strsim_across_block_boundaries() {
        // A small alphabet with non-ASCII letters makes many matches and many edits.
        let alphabet: Vec<char> = "abcde éß我".chars().collect();
        let mut rng = Lcg(7);
        let mut scratch = Scratch::default();
        let lengths = [
            0, 1, 2, 5, 63, 64, 65, 100, 127, 128, 129, 200, 255, 256, 257, 300,
        ];
        for &m in &lengths {
            let claim: String = (0..m).map(|_| alphabet[rng.next(alphabet.len())]).collect();
            let pattern = ClaimPattern::new(claim.chars());
            assert_eq!(pattern.len(), m);
            for _ in 0..40 {
                let n = rng.next(400);
                let text: String = if rng.next(3) == 0 {
                    // A lightly edited copy exercises small distances.
                    claim.chars().filter(|_| rng.next(10) != 0).collect()
                } else {
                    (0..n).map(|_| alphabet[rng.next(alphabet.len())]).collect()
                };
                let (d, len) = pattern.distance(text.chars(), &mut scratch);
                assert_eq!(
                    d,
                    strsim::levenshtein(&claim, &text),
                    "{claim:?} vs {text:?}"
                );
                assert_eq!(len, text.chars().count());
            }
        }
    }
}
