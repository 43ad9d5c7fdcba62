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

/// Whether other items show a sentence of pool `p` otherwise than the model, once it is
/// left out of passages where the model is in none.
fn unlike(p: usize, (options, passages): (usize, usize)) -> bool {
    let (o, q) = (p / (MOST + 1), p % (MOST + 1));
    let (options, passages) = (options.min(MOST), passages.min(MOST));
    o != options || (passages > 0 && q != passages)
}

/// How far a sentence of pool `p` is from a model that `options` other items show as an
/// option and `passages` in a passage only: when the model is in no passage, the trick
/// is left out of every passage, so any sentence shown as an option as often matches,
/// those no passage shows first (they lose no passage a neighbour).
fn distance(p: usize, (options, passages): (usize, usize)) -> usize {
    let (o, q) = (p / (MOST + 1), p % (MOST + 1));
    let (options, passages) = (options.min(MOST), passages.min(MOST));
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
mod tests {
    use super::*;
    use factdesk_store::tricks::text_hash;

    /// A donor as a test writes it: with its text.
    struct TextDonor {
        sentence_id: i64,
        document_id: i64,
        text: String,
        ranked: u32,
    }

    /// A candidate of one claim.
    fn donor(id: i64, text: &str) -> TextDonor {
        TextDonor {
            sentence_id: id,
            document_id: 1000 + id,
            text: text.to_owned(),
            ranked: 1,
        }
    }

    fn donor_words(donors: &[TextDonor]) -> DonorWords {
        let rows: Vec<(i64, i64, &str, u32)> = donors
            .iter()
            .map(|d| (d.sentence_id, d.document_id, d.text.as_str(), d.ranked))
            .collect();
        DonorWords::of(&rows)
    }

    fn none() -> HashSet<u64> {
        HashSet::new()
    }

    fn wanted<'a>(claim: &'a str, texts: &'a HashSet<u64>) -> TrickFor<'a> {
        TrickFor {
            claim_id: 1,
            claim,
            family: &[],
            family_texts: texts,
            lengths: 0..=usize::MAX,
            elsewhere: &[],
        }
    }

    #[test]
    fn a_claim_where_nothing_fits_costs_a_bounded_number_of_looks() {
        // 200,000 sentences, every one sharing "harbour" with the claim: before, each claim
        // looked at all of them.
        let donors: Vec<TextDonor> = (0..200_000)
            .map(|i| donor(i, &format!("The harbour held {i} ships.")))
            .collect();
        let claims = 100_000;
        let words = donor_words(&donors);
        let search = TrickSearch::new(&words, claims);
        let texts = HashSet::new();
        let mut rng = Seeded::new(7);
        let per_claim = (SIZED_DRAWS + ANY_DRAWS + LEAST_PASS) as u64;
        assert_eq!(search.pass(), LEAST_PASS);
        for _ in 0..10 {
            let found = search.find(&mut rng, &wanted("A harbour for boats", &texts), &none());
            assert_eq!(found.sentence, None);
            assert_eq!(found.looked, per_claim);
        }
    }

    #[test]
    fn a_small_project_passes_over_every_sentence() {
        // One sentence in 5,000 fits: the draws miss it, the pass finds it.
        let mut donors: Vec<TextDonor> = (0..5_000)
            .map(|i| donor(i, &format!("The harbour held {i} ships.")))
            .collect();
        donors[3_000] = donor(3_000, "Volcanic glass shatters easily.");
        let words = donor_words(&donors);
        let search = TrickSearch::new(&words, 20);
        assert_eq!(search.pass(), 5_000);
        let texts = HashSet::new();
        let mut rng = Seeded::new(11);
        assert_eq!(
            search
                .find(&mut rng, &wanted("A harbour for boats", &texts), &none())
                .sentence,
            Some(3_000)
        );
    }

    #[test]
    fn a_sentence_of_the_family_or_sharing_a_word_never_fits() {
        let donors = vec![
            donor(1, "The harbour held ships."),
            donor(2, "Volcanic glass shatters easily."),
            donor(3, "Harbours were built."),
        ];
        let words = donor_words(&donors);
        let search = TrickSearch::new(&words, 1);
        let texts: HashSet<u64> = [text_hash("Volcanic glass shatters easily.")].into();
        let mut rng = Seeded::new(3);
        let claim = "A harbour for boats";
        assert_eq!(
            search
                .find(&mut rng, &wanted(claim, &texts), &none())
                .sentence,
            None
        );
        let no_texts = HashSet::new();
        assert_eq!(
            search
                .find(&mut rng, &wanted(claim, &no_texts), &none())
                .sentence,
            Some(2)
        );
        let family = [1002];
        let mut of_family = wanted(claim, &no_texts);
        of_family.family = &family;
        assert_eq!(search.find(&mut rng, &of_family, &none()).sentence, None);
    }

    /// Sentences and claims over a vocabulary of syllable words, many alike to
    /// Jaro-Winkler, as scripts/bench-tasks writes them.
    fn syllable_text(rng: &mut Seeded, words: usize, vocabulary: u64) -> String {
        const SYLLABLES: [&str; 8] = ["ka", "ter", "lo", "vin", "ma", "sel", "dra", "po"];
        let mut out = vec!["The".to_owned()];
        for _ in 0..words {
            let top = 1 + rng.below(vocabulary);
            let mut rank = rng.below(top) as usize;
            let mut word = String::new();
            loop {
                word.push_str(SYLLABLES[rank % SYLLABLES.len()]);
                rank /= SYLLABLES.len();
                if rank == 0 {
                    break;
                }
            }
            out.push(word);
        }
        out.join(" ") + "."
    }

    #[test]
    fn a_look_fits_exactly_when_the_texts_rule_says_unrelated() {
        // Few words, so that many pairs share one or resemble one another.
        let mut rng = Seeded::new(17);
        let mut donors: Vec<TextDonor> = (0..1_000)
            .map(|i| donor(i, &syllable_text(&mut rng, 4, 400)))
            .collect();
        donors.push(donor(1_000, "It is what it is."));
        donors.push(donor(1_001, "Masks reduce transmission."));
        let mut claims: Vec<String> = (0..60).map(|_| syllable_text(&mut rng, 4, 400)).collect();
        claims.push("A mask was found.".to_owned());
        let words = donor_words(&donors);
        let search = TrickSearch::new(&words, claims.len());
        let texts = HashSet::new();
        let (mut fit, mut not) = (0, 0);
        for claim in &claims {
            let w = wanted(claim, &texts);
            let words = search.claim_words(claim);
            for (i, d) in donors.iter().enumerate() {
                let truth = trick::unrelated(&d.text, claim);
                assert_eq!(
                    search.fits(i, false, &w, &words),
                    truth,
                    "{} / {claim}",
                    d.text
                );
                if truth {
                    fit += 1;
                } else {
                    not += 1;
                }
            }
        }
        assert!(fit > 1_000 && not > 1_000, "{fit} fit, {not} not");
    }

    #[test]
    fn tricks_are_the_texts_rule_and_do_not_depend_on_threads() {
        let mut rng = Seeded::new(5);
        let donors: Vec<TextDonor> = (0..20_000)
            .map(|i| donor(i, &syllable_text(&mut rng, 6, 3_000)))
            .collect();
        let claims: Vec<String> = (0..400)
            .map(|_| syllable_text(&mut rng, 5, 3_000))
            .collect();
        let words = donor_words(&donors);
        let search = TrickSearch::new(&words, claims.len());
        let texts = HashSet::new();
        let wanted: Vec<TrickFor> = claims
            .iter()
            .enumerate()
            .map(|(k, c)| TrickFor {
                claim_id: k as i64,
                ..wanted(c, &texts)
            })
            .collect();
        let draw = |claim_id: i64| Seeded::for_purpose(9, &format!("t:{claim_id}"));
        let together = search.find_all(&wanted, &draw, &mut HashSet::new());
        let mut taken = HashSet::new();
        let one_by_one: Vec<Found> = wanted
            .iter()
            .map(|w| {
                let found = search.find(&mut draw(w.claim_id), w, &taken);
                if found.sentence.is_some() {
                    taken.insert(found.text_hash);
                }
                found
            })
            .collect();
        // The same tricks however the claims were split, each the first fit of the
        // claim's draws not taken by a claim before it (the looks differ: a claim whose
        // first fit was taken looked twice).
        let tricks =
            |f: &[Found]| -> Vec<_> { f.iter().map(|f| (f.sentence, f.repeated)).collect() };
        assert_eq!(tricks(&together), tricks(&one_by_one));
        let mut seen = HashSet::new();
        for (w, found) in wanted.iter().zip(&together) {
            if let Some(id) = found.sentence {
                let text = &donors[id as usize].text;
                assert!(trick::unrelated(text, w.claim), "{text} / {}", w.claim);
                seen.insert(id);
            }
        }
        // Found for most claims, and no sentence twice.
        let found = together.iter().filter(|f| f.sentence.is_some()).count();
        assert!(found > 300, "{found}");
        assert_eq!(seen.len(), found);
    }

    /// 600 sentences no item shows and 600 that one item shows as an option, every one
    /// fitting every claim.
    fn two_pools() -> Vec<TextDonor> {
        (0..1_200)
            .map(|i| TextDonor {
                ranked: u32::from(i % 2 == 1),
                ..donor(i, &format!("Volcanic glass {i} shatters easily."))
            })
            .collect()
    }

    #[test]
    fn a_trick_is_shown_elsewhere_as_often_as_a_model_candidate() {
        let donors = two_pools();
        let words = donor_words(&donors);
        let search = TrickSearch::new(&words, 300);
        let texts = HashSet::new();
        // Out of 300 claims whose 4 candidates other items show as `elsewhere` says, how
        // many tricks another item shows as an option.
        let shown = |elsewhere: &[(u32, u32)]| {
            let wanted: Vec<TrickFor> = (0..300)
                .map(|k| TrickFor {
                    claim_id: k,
                    elsewhere,
                    ..wanted("A harbour for boats", &texts)
                })
                .collect();
            let draw = |claim_id: i64| Seeded::for_purpose(3, &format!("p:{claim_id}"));
            let found = search.find_all(&wanted, &draw, &mut HashSet::new());
            found
                .iter()
                .filter(|f| donors[f.sentence.unwrap_or(0) as usize].ranked > 0)
                .count()
        };
        // Before, every trick was a candidate: under a claim whose candidates no other
        // item shows, it was the one option shown in another item.
        assert_eq!(shown(&[(0, 0); 4]), 0);
        assert_eq!(shown(&[(1, 0); 4]), 300);
        // Shown by two others: none has that many, one is nearer than none.
        assert_eq!(shown(&[(2, 0); 4]), 300);
        // A half: 150 expected, 4.9 standard deviations either side.
        let half = shown(&[(0, 0), (1, 0), (0, 0), (1, 0)]);
        assert!((110..=190).contains(&half), "{half}");
    }

    #[test]
    fn a_sentence_is_two_claims_trick_only_when_no_other_fits() {
        let donors = two_pools();
        let words = donor_words(&donors);
        let search = TrickSearch::new(&words, 1_300);
        let texts = HashSet::new();
        let wanted: Vec<TrickFor> = (0..1_300)
            .map(|k| TrickFor {
                claim_id: k,
                ..wanted("A harbour for boats", &texts)
            })
            .collect();
        let draw = |claim_id: i64| Seeded::for_purpose(4, &format!("u:{claim_id}"));
        // Ten tricks of an earlier run.
        let mut taken: HashSet<u64> = donors[..10].iter().map(|d| text_hash(&d.text)).collect();
        let found = search.find_all(&wanted, &draw, &mut taken);
        let (once, repeated): (Vec<&Found>, Vec<&Found>) = found.iter().partition(|f| !f.repeated);
        // The 1,190 sentences left, each once (the hidden pool first), then repeats.
        assert_eq!(once.len(), 1_190);
        let distinct: HashSet<i64> = once.iter().filter_map(|f| f.sentence).collect();
        assert_eq!(distinct.len(), 1_190);
        assert!(distinct.iter().all(|s| *s >= 10));
        assert_eq!(repeated.len(), 110);
        assert!(repeated.iter().all(|f| f.sentence.is_some()));
        assert_eq!(taken.len(), 1_200);
    }
}
