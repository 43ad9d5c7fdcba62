//! Finding the real sentence that stands as an evidence item's trick under the
//! `supports_or_refutes` stance, in a bounded number of looks per claim.
//!
//! A sentence fits a claim when it comes from a document outside the claim's family, has
//! a text none of the family's sentences has, and shares no content word with the claim
//! (nor one the highlighting would mark). Its text should be shown in other items as
//! often, and as, the item's real options' texts are: where no other claim ranks a
//! claim's candidates (each claim with its own documents), a trick that was another
//! claim's candidate was the one option whose text another item showed too ("an option
//! whose text appears in another item" found it in 70 of 99 items). So each claim draws
//! a model among its candidates and counts the other items that show the model
//! ([`exposure`]) as an option, and those that show it in a passage only. It looks first
//! among the sentences shown so: as an option by as many other items, and in as many
//! passages, where the model is in some; where it is in none, the trick is left out of
//! every passage (see `annotate::context`), and sentences no passage shows come first.
//! Where nothing fits it falls back to the nearest counts. Everything is counted by text,
//! as a reader compares (documents made by `make-eval-set` repeat sentences): a text
//! that is already a trick is taken only where no other fits, so no text is two items'
//! trick.
//!
//! Within a pool the sentence is drawn under the project's secret: random draws first,
//! then a pass over consecutive sentences from a drawn start. The pass looks at every
//! sentence of a small project, but the looks of a large one are bounded ([`TOTAL_LOOKS`]
//! spread over its claims, at most three pools' worth a claim): where nothing fits
//! (documents drawn from a few hundred words), a pass over every sentence for every claim
//! made creating tasks quadratic (13 minutes for 5,000 claims).
//!
//! Every sentence's words are read once, up front and on every core, into a
//! [`signature::Signature`] that settles most looks in a few ANDs. Each claim's draws
//! depend only on its own random source, so claims are searched on every core too and
//! the tricks are the same however the work was split.

mod donor_words;
mod exposure;
mod signature;

pub(crate) use donor_words::DonorWords;

use factdesk_core::seeded::Seeded;
use factdesk_core::trick;
use factdesk_store::tricks::Donor;
use rayon::prelude::*;
use signature::{word_hash, Bits, Signature};
use std::collections::HashSet;
use std::ops::RangeInclusive;

/// Looks the passes of one run of task creation share at most, three pools' worth a
/// claim (each look a few ANDs of two word signatures): well under a second's work.
pub(crate) const TOTAL_LOOKS: usize = 20_000_000;
/// The fewest sentences a claim's pass over a pool looks at, however many claims there
/// are.
pub(crate) const LEAST_PASS: usize = 256;
/// Random draws of a sentence as long as the claim's candidates, then of any length.
const SIZED_DRAWS: usize = 128;
const ANY_DRAWS: usize = 32;
/// Draws whose quick tests are made together (see [`TrickSearch::find`]).
const BATCH: usize = 16;
/// The fewest claims worth a thread of their own.
const LEAST_CLAIMS_A_THREAD: usize = 64;

/// What a claim needs of its trick: the claim, its family's documents and sentence
/// texts, and the lengths its own candidates span.
#[derive(Debug)]
pub(crate) struct TrickFor<'a> {
    pub claim_id: i64,
    pub claim: &'a str,
    pub family: &'a [i64],
    /// The [`text_hash`] of each.
    pub family_texts: &'a HashSet<u64>,
    pub lengths: RangeInclusive<usize>,
    /// For each of the claim's candidates, how many other claims' items show it as an
    /// option, and how many in a passage only.
    pub elsewhere: &'a [(u32, u32)],
}

/// What the draws read of a sentence, in one cache line: a draw lands anywhere among
/// hundreds of thousands of sentences.
#[derive(Debug, Clone, Copy, Default)]
#[repr(align(64))]
struct Look {
    sig: Signature,
    /// Length in characters.
    chars: u32,
    /// Whether the sentence has a content word at all.
    has_words: bool,
}

/// A claim's words, read once for all its looks.
#[derive(Debug)]
struct ClaimWords {
    sig: Signature,
    rare: Vec<u64>,
    /// The content words the highlighting weighs.
    marks: trick::ClaimMarks,
}

/// The search over one run's donor sentences, their words read once each.
#[derive(Debug)]
pub(crate) struct TrickSearch<'a> {
    donors: &'a [Donor],
    bits: Bits,
    looks: Vec<Look>,
    /// Each sentence's words without a bit of their own, sorted, from `rare_at[i]` to
    /// `rare_at[i + 1]`.
    rare: Vec<u64>,
    rare_at: Vec<usize>,
    /// Each sentence's markable words, each followed by a space, from `marks_at[i]`.
    marks: String,
    marks_at: Vec<usize>,
    /// The sentences by index, by how many items show them as an option and in a passage
    /// only (see [`pool_of`]).
    pools: Vec<Vec<u32>>,
    /// How many consecutive sentences of a pool a claim's pass looks at, at most.
    pass: usize,
}

/// A claim's trick, if one was found, and how many sentences were looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Found {
    pub sentence: Option<i64>,
    pub looked: u64,
    /// Whether the sentence was already another item's trick: none other fitted.
    pub repeated: bool,
    /// Whether passages leave the sentence out: the model was in none.
    pub left_out: bool,
    /// Whether other items show it more or less often than the model: no sentence shown
    /// as the model is fitted.
    pub unlike: bool,
    /// The [`text_hash`](factdesk_store::tricks::text_hash) of its text, 0 for none.
    pub text_hash: u64,
}

/// The most items showing a sentence, as an option or in a passage only, that have a
/// pool of their own; a sentence more show is in the last.
const MOST: usize = 4;

/// The pool of a sentence that `options` items show as an option and `passages` others
/// in a passage only.
fn pool_of(options: usize, passages: usize) -> usize {
    options.min(MOST) * (MOST + 1) + passages.min(MOST)
}

/// The counts of pool `p` ([`pool_of`]'s inverse), and a model's counts as capped.
fn counts(p: usize, (options, passages): (usize, usize)) -> ((usize, usize), (usize, usize)) {
    (
        (p / (MOST + 1), p % (MOST + 1)),
        (options.min(MOST), passages.min(MOST)),
    )
}

/// Whether other items show a sentence of pool `p` otherwise than the model, once it is
/// left out of passages where the model is in none.
fn unlike(p: usize, model: (usize, usize)) -> bool {
    let ((o, q), (options, passages)) = counts(p, model);
    o != options || (passages > 0 && q != passages)
}

/// How far a sentence of pool `p` is from a model that `options` other items show as an
/// option and `passages` in a passage only: when the model is in no passage, the trick
/// is left out of every passage, so any sentence shown as an option as often matches,
/// those no passage shows first (they lose no passage a neighbour).
fn distance(p: usize, model: (usize, usize)) -> usize {
    let ((o, q), (options, passages)) = counts(p, model);
    if passages == 0 {
        2 * o.abs_diff(options) + usize::from(q > 0)
    } else {
        2 * (o.abs_diff(options) + q.abs_diff(passages))
    }
}

/// A claim's draws in one pool, all made before its first look.
struct Draws {
    pool: usize,
    at: [usize; SIZED_DRAWS + ANY_DRAWS],
    start: usize,
}

impl<'a> TrickSearch<'a> {
    /// A search over `words`' donors for the tricks of up to `claims` claims.
    pub fn new(words: &'a DonorWords, claims: usize) -> TrickSearch<'a> {
        let donors: &'a [Donor] = &words.donors;
        let reads = &words.reads;
        let pass = (TOTAL_LOOKS / (3 * claims.max(1)))
            .max(LEAST_PASS)
            .min(donors.len());
        let mut pools = vec![Vec::new(); (MOST + 1) * (MOST + 1)];
        for (i, d) in donors.iter().enumerate() {
            let passages = d.shown.saturating_sub(d.options);
            // Indices fit: a project holds far fewer than 4 billion sentences.
            pools[pool_of(d.options as usize, passages as usize)].push(i as u32);
        }
        // Which of `reads` holds sentence `i`, and where in it.
        let starts: Vec<usize> = reads
            .iter()
            .scan(0, |at, r| {
                let start = *at;
                *at += r.len();
                Some(start)
            })
            .collect();
        let at = |i: usize| {
            let r = starts.partition_point(|&s| s <= i).saturating_sub(1);
            (r, i - starts[r])
        };
        let bits = Bits::choose(donors.len(), |i| {
            let (r, k) = at(i);
            reads[r].hashes(k)
        });
        let signed: Vec<_> = reads
            .par_iter()
            .zip(&starts)
            .map(|(read, &start)| {
                let mut rare = Vec::new();
                let mut rare_at = Vec::with_capacity(read.len());
                let looks: Vec<Look> = (0..read.len())
                    .map(|k| {
                        let hashes = read.hashes(k);
                        let sig = bits.sign(hashes, &mut rare);
                        rare_at.push(rare.len());
                        Look {
                            sig,
                            chars: u32::try_from(donors[start + k].chars).unwrap_or(u32::MAX),
                            has_words: !hashes.is_empty(),
                        }
                    })
                    .collect();
                (looks, rare, rare_at)
            })
            .collect();
        let mut search = TrickSearch {
            donors,
            bits,
            looks: Vec::with_capacity(donors.len()),
            rare: Vec::new(),
            rare_at: vec![0],
            marks: String::new(),
            marks_at: vec![0],
            pools,
            pass,
        };
        for (read, (looks, rare, rare_at)) in reads.iter().zip(signed) {
            search.looks.extend(looks);
            let base = search.rare.len();
            search.rare.extend(rare);
            search.rare_at.extend(rare_at.iter().map(|a| base + a));
            let base = search.marks.len();
            search.marks.push_str(&read.marks);
            search
                .marks_at
                .extend(read.marks_at[1..].iter().map(|a| base + a));
        }
        search
    }

    /// How many consecutive sentences of a pool a claim's pass looks at, at most.
    pub fn pass(&self) -> usize {
        self.pass
    }

    fn rare(&self, i: usize) -> &[u64] {
        &self.rare[self.rare_at[i]..self.rare_at[i + 1]]
    }

    /// Whether sentence `i` may fit, from what its [`Look`] holds alone: `false` for
    /// almost every sentence that does not.
    fn may_fit(&self, i: usize, sized: bool, wanted: &TrickFor, claim: &ClaimWords) -> bool {
        let look = &self.looks[i];
        // `&` rather than `&&`: no branch, so the draws of a batch are fetched together.
        look.has_words
            & (!sized | wanted.lengths.contains(&(look.chars as usize)))
            & !look.sig.shares_common(&claim.sig)
    }

    fn marks(&self, i: usize) -> impl Iterator<Item = &str> + '_ {
        self.marks[self.marks_at[i]..self.marks_at[i + 1]].split_terminator(' ')
    }

    fn claim_words(&self, claim: &str) -> ClaimWords {
        let words = trick::content_word_list(claim);
        let mut hashes: Vec<u64> = words.iter().map(|w| word_hash(w)).collect();
        hashes.sort_unstable();
        hashes.dedup();
        let mut rare = Vec::new();
        let sig = self.bits.sign(&hashes, &mut rare);
        ClaimWords {
            sig,
            rare,
            marks: trick::ClaimMarks::new(words),
        }
    }

    /// Whether sentence `i` fits `wanted`, whose words are `claim`; `sized`, whether it
    /// must be as long as the claim's candidates.
    fn fits(&self, i: usize, sized: bool, wanted: &TrickFor, claim: &ClaimWords) -> bool {
        // The cheapest tests first: the signature settles almost every look.
        let d = &self.donors[i];
        self.may_fit(i, sized, wanted, claim)
            && (!self.looks[i].sig.may_share_rare(&claim.sig)
                || signature::disjoint(self.rare(i), &claim.rare))
            && !wanted.family.contains(&d.document_id)
            && claim.marks.none_in(self.marks(i))
            && !wanted.family_texts.contains(&d.text_hash)
    }

    /// The trick sentence for `wanted`, drawn with `rng`: one whose text is none of
    /// `taken` (text hashes) where any fits.
    pub fn find(&self, rng: &mut Seeded, wanted: &TrickFor, taken: &HashSet<u64>) -> Found {
        let mut found = Found {
            sentence: None,
            looked: 0,
            repeated: false,
            left_out: false,
            unlike: false,
            text_hash: 0,
        };
        if self.donors.is_empty() {
            return found;
        }
        let claim = self.claim_words(wanted.claim);
        // The model: the trick is shown elsewhere as often, and as, it is.
        let model = match wanted.elsewhere.len() {
            0 => (0, 0),
            n => wanted.elsewhere[rng.below(n as u64) as usize],
        };
        let model = (model.0 as usize, model.1 as usize);
        found.left_out = model.1 == 0;
        let mut order: Vec<usize> = (0..self.pools.len()).collect();
        order.sort_by_key(|&p| (distance(p, model), p));
        // Three pools' worth of looks at most.
        let budget = 3 * (SIZED_DRAWS + ANY_DRAWS + self.pass) as u64;
        let mut spare = None;
        for pool in order {
            let n = self.pools[pool].len() as u64;
            if n == 0 {
                continue;
            }
            if found.looked >= budget {
                break;
            }
            // Drawn before the pool's first look: what is drawn in a pool does not depend
            // on what fits there.
            let draws = Draws {
                pool,
                at: std::array::from_fn(|_| rng.below(n) as usize),
                start: rng.below(n) as usize,
            };
            if let Some(i) = self.find_in(&draws, wanted, &claim, taken, &mut spare, &mut found) {
                found.sentence = Some(self.donors[i].sentence_id);
                found.text_hash = self.donors[i].text_hash;
                found.unlike = unlike(pool, model);
                return found;
            }
        }
        if let Some(i) = spare {
            found.sentence = Some(self.donors[i].sentence_id);
            found.text_hash = self.donors[i].text_hash;
            found.repeated = true;
            // A repeat is shown in one item more than its pool says.
            found.unlike = true;
        }
        found
    }

    /// The first sentence of `draws`' pool that fits and whose text is not `taken`; the
    /// first that fits but is taken goes in `spare`. Counts the looks in `found`.
    fn find_in(
        &self,
        draws: &Draws,
        wanted: &TrickFor,
        claim: &ClaimWords,
        taken: &HashSet<u64>,
        spare: &mut Option<usize>,
        found: &mut Found,
    ) -> Option<usize> {
        let pool = &self.pools[draws.pool];
        if pool.is_empty() {
            return None;
        }
        let mut fits = |i: usize, sized: bool| {
            if !self.fits(i, sized, wanted, claim) {
                return false;
            }
            if !taken.contains(&self.donors[i].text_hash) {
                return true;
            }
            spare.get_or_insert(i);
            false
        };
        // As long as the claim's own candidates, when one such sentence is drawn: a
        // sentence sharing no word with the claim tends to be short, and "the shortest
        // option" would then find the trick.
        // A draw lands anywhere, so nearly every look waits on memory: the quick test of a
        // batch of draws is made for all of them at once, so that they wait together.
        for (b, batch) in draws.at.chunks(BATCH).enumerate() {
            let sized = |k: usize| b * BATCH + k < SIZED_DRAWS;
            let quick: [bool; BATCH] = std::array::from_fn(|k| {
                batch
                    .get(k)
                    .is_some_and(|&d| self.may_fit(pool[d] as usize, sized(k), wanted, claim))
            });
            for (k, &d) in batch.iter().enumerate() {
                let i = pool[d] as usize;
                if quick[k] && fits(i, sized(k)) {
                    found.looked += k as u64 + 1;
                    return Some(i);
                }
            }
            found.looked += batch.len() as u64;
        }
        for k in 0..self.pass.min(pool.len()) {
            let i = pool[(draws.start + k) % pool.len()] as usize;
            found.looked += 1;
            if fits(i, false) {
                return Some(i);
            }
        }
        None
    }

    /// [`TrickSearch::find`] for each of `wanted`, on every core, each claim with its own
    /// random source `draw(claim_id)`: what a claim gets does not depend on the others'
    /// searches, nor on how the claims were split between threads. A sentence two claims
    /// found goes to the first, in `wanted`'s order, and the later ones search again; each
    /// trick is added to `taken`.
    pub fn find_all(
        &self,
        wanted: &[TrickFor],
        draw: &(dyn Fn(i64) -> Seeded + Sync),
        taken: &mut HashSet<u64>,
    ) -> Vec<Found> {
        let before: &HashSet<u64> = taken;
        let mut found: Vec<Found> = wanted
            .par_iter()
            .with_min_len(LEAST_CLAIMS_A_THREAD)
            .map(|w| self.find(&mut draw(w.claim_id), w, before))
            .collect();
        for (w, f) in wanted.iter().zip(&mut found) {
            if f.sentence.is_none() {
                continue;
            }
            if !f.repeated && taken.contains(&f.text_hash) {
                let again = self.find(&mut draw(w.claim_id), w, taken);
                *f = Found {
                    looked: f.looked + again.looked,
                    ..again
                };
            }
            if f.sentence.is_some() {
                taken.insert(f.text_hash);
            }
        }
        found
    }
}

#[cfg(test)]
mod tests;
