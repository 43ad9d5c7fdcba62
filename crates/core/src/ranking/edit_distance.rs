//! Levenshtein distance from one claim to many sentences, bit-parallel.
//!
//! The textbook dynamic programme costs claim length × sentence length cell updates per
//! sentence, which over the ~8,000 sentences of a 1 MB document is far too slow for
//! interactive ranking. Myers' bit-vector algorithm (J. ACM 46(3), 1999), in its
//! block-based form for patterns longer than one block, computes the same exact distance
//! a block of rows at a time. The claim is the pattern, prepared once; each sentence is
//! streamed through it character by character without allocating.

/// One block of the pattern's bit vectors. A claim of up to 128 characters, nearly every
/// claim, then fits one block: the work per sentence character is one chain of dependent
/// bit operations, where two 64-bit blocks would be two chains run one after the other.
type Block = u128;

/// Bits per block.
const WORD: usize = Block::BITS as usize;

/// A claim prepared for distance queries: for each distinct character, a bit mask of the
/// positions where it occurs (the "Peq" table), one bit vector per block of the claim.
#[derive(Debug)]
pub(crate) struct ClaimPattern {
    len: usize,
    blocks: usize,
    /// Row of `peq` for each ASCII character; row 0 is all zeros (no occurrence).
    ascii_rows: [usize; 128],
    /// Row of `peq` for the claim's other characters, sorted by character.
    other_rows: Vec<(char, usize)>,
    peq: Vec<Block>,
    /// The bit of the claim's last character within the last block.
    last_bit: Block,
}

/// Per-block vertical delta vectors (positive, negative), reused across sentences.
#[derive(Debug, Default)]
pub(crate) struct Scratch(Vec<(Block, Block)>);

impl ClaimPattern {
    pub(crate) fn new(claim: impl Iterator<Item = char>) -> Self {
        let chars: Vec<char> = claim.collect();
        let len = chars.len();
        let blocks = len.div_ceil(WORD);
        let mut pattern = ClaimPattern {
            len,
            blocks,
            ascii_rows: [0; 128],
            other_rows: Vec::new(),
            peq: vec![0; blocks],
            last_bit: (1 as Block) << ((len + WORD - 1) % WORD),
        };
        for (i, &c) in chars.iter().enumerate() {
            let row = match pattern.row(c) {
                0 => pattern.add_row(c),
                row => row,
            };
            pattern.peq[row * blocks + i / WORD] |= (1 as Block) << (i % WORD);
        }
        pattern
    }

    fn add_row(&mut self, c: char) -> usize {
        let row = self.peq.len() / self.blocks.max(1);
        self.peq.resize(self.peq.len() + self.blocks, 0);
        if c.is_ascii() {
            self.ascii_rows[c as usize] = row;
        } else {
            let at = self.other_rows.partition_point(|&(o, _)| o < c);
            self.other_rows.insert(at, (c, row));
        }
        row
    }

    fn row(&self, c: char) -> usize {
        if c.is_ascii() {
            self.ascii_rows[c as usize]
        } else {
            match self.other_rows.binary_search_by(|&(o, _)| o.cmp(&c)) {
                Ok(i) => self.other_rows[i].1,
                Err(_) => 0,
            }
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
        if self.blocks == 0 {
            let n = text.count();
            return (n, n);
        }
        if self.blocks == 1 {
            return self.distance_one_block(text);
        }
        let state = &mut scratch.0;
        state.clear();
        // Column 0 of the matrix is 0, 1, 2, …: every vertical delta is +1.
        state.resize(self.blocks, (!0, 0));
        let mut score = self.len;
        let mut n = 0;
        for c in text {
            n += 1;
            let row = self.row(c) * self.blocks;
            let eq = &self.peq[row..row + self.blocks];
            // Row 0 of the matrix is 0, 1, 2, …: the delta entering the top block is +1.
            let mut carry = 1i8;
            for (b, (pv_mv, &eq)) in state.iter_mut().zip(eq).enumerate() {
                let high = if b + 1 == self.blocks { self.last_bit } else { 1 << (WORD - 1) };
                carry = advance_block(pv_mv, eq, carry, high);
            }
            // The carry out of the claim's last row is the change in the distance.
            score = score.wrapping_add_signed(isize::from(carry));
        }
        (score, n)
    }

    /// `distance` for a claim that fits one block, the usual case: the state stays in
    /// registers instead of going through memory for every character.
    fn distance_one_block(&self, text: impl Iterator<Item = char>) -> (usize, usize) {
        let mut state: (Block, Block) = (!0, 0);
        let mut score = self.len;
        let mut n = 0;
        for c in text {
            n += 1;
            let eq = self.peq[self.row(c)];
            let carry = advance_block(&mut state, eq, 1, self.last_bit);
            score = score.wrapping_add_signed(isize::from(carry));
        }
        (score, n)
    }
}

/// One column step of one block (Myers 1999, fig. 9): updates the block's vertical
/// deltas given the horizontal delta `carry` entering at its top, and returns the delta
/// leaving at the row marked by `high`.
#[inline(always)]
fn advance_block(pv_mv: &mut (Block, Block), mut eq: Block, carry: i8, high: Block) -> i8 {
    let (pv, mv) = *pv_mv;
    let xv = eq | mv;
    if carry < 0 {
        eq |= 1;
    }
    let xh = ((eq & pv).wrapping_add(pv) ^ pv) | eq;
    let mut ph = mv | !(xh | pv);
    let mut mh = pv & xh;
    let out = if ph & high != 0 {
        1
    } else if mh & high != 0 {
        -1
    } else {
        0
    };
    ph <<= 1;
    mh <<= 1;
    if carry < 0 {
        mh |= 1;
    } else if carry > 0 {
        ph |= 1;
    }
    *pv_mv = (mh | !(xv | ph), ph & xv);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn distance(a: &str, b: &str) -> usize {
        ClaimPattern::new(a.chars()).distance(b.chars(), &mut Scratch::default()).0
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
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((self.0 >> 33) % n as u64) as usize
        }
    }

    #[test]
    fn equals_strsim_across_block_boundaries() {
        // A small alphabet with non-ASCII letters makes many matches and many edits.
        let alphabet: Vec<char> = "abcde éß我".chars().collect();
        let mut rng = Lcg(7);
        let mut scratch = Scratch::default();
        let lengths = [0, 1, 2, 5, 63, 64, 65, 100, 127, 128, 129, 200, 255, 256, 257, 300];
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
                assert_eq!(d, strsim::levenshtein(&claim, &text), "{claim:?} vs {text:?}");
                assert_eq!(len, text.chars().count());
            }
        }
    }
}
