//! What a run of evidence tasks knows of the project from its start: every sentence (the
//! donors), every claim's candidates and every claim family's documents. A claim's
//! [`ClaimFacts`] come from here rather than from reads per chunk of claims, which were
//! the largest of a run's three stages (3.3 s of 100,000 claims' 5 s, session 24).

use super::{ClaimFacts, Donor, RankedSentence};
use crate::Read;
use crate::Result;
use std::collections::HashMap;

/// Every claim's documents and parent, as read at a run's start.
#[derive(Debug, Default)]
pub struct Families {
    documents: HashMap<i64, Vec<i64>>,
    parent: HashMap<i64, i64>,
    children: HashMap<i64, Vec<i64>>,
}

impl Families {
    /// Every claim's documents and parent, in one read.
    pub fn read(conn: &Read) -> Result<Families> {
        let mut stmt = conn.prepare(
            "SELECT k.id, k.parent_id, cd.document_id
             FROM claims k LEFT JOIN claim_documents cd ON cd.claim_id = k.id",
        )?;
        let mut rows = stmt.query([])?;
        let mut families = Families::default();
        while let Some(r) = rows.next()? {
            let claim: i64 = r.get(0)?;
            if let Some(parent) = r.get::<_, Option<i64>>(1)? {
                if families.parent.insert(claim, parent).is_none() {
                    families.children.entry(parent).or_default().push(claim);
                }
            }
            if let Some(document) = r.get::<_, Option<i64>>(2)? {
                families.documents.entry(claim).or_default().push(document);
            }
        }
        Ok(families)
    }

    /// The documents of `claim`'s family: its own, its children's and its parent's,
    /// ascending, each once.
    pub fn documents_of(&self, claim: i64) -> Vec<i64> {
        let own = std::iter::once(claim);
        let parent = self.parent.get(&claim).copied();
        let children = self.children.get(&claim).into_iter().flatten().copied();
        let mut out: Vec<i64> = own
            .chain(parent)
            .chain(children)
            .flat_map(|k| self.documents.get(&k).into_iter().flatten().copied())
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// The donors, candidates and families of a run, indexed for a claim's facts.
#[derive(Debug)]
pub struct Corpus<'d> {
    /// Every sentence, in id order.
    donors: &'d [Donor],
    families: &'d Families,
    /// Each claim that has candidates, ascending, with where its candidates start in
    /// `candidates` (they end where the next claim's start).
    claims: Vec<(i64, u32)>,
    /// Every claim's candidates, ordered by claim, as indexes into `donors` (a candidate
    /// without a sentence left out, as a join with the sentences leaves it out).
    candidates: Vec<u32>,
    /// Each document's sentences, as indexes into `donors`.
    by_document: HashMap<i64, Vec<u32>>,
}

/// Where `key` is in `items`, ascending by `key_of`: ids are mostly dense, so the place
/// `key` would have without gaps is tried first. Binary searches over half a million
/// sentences, a cache miss a step, were 8% of a run's time.
fn find<T>(items: &[T], key: i64, key_of: impl Fn(&T) -> i64) -> Option<usize> {
    let first = key_of(items.first()?);
    let guess = key.checked_sub(first).and_then(|k| usize::try_from(k).ok());
    match guess {
        Some(at) if items.get(at).is_some_and(|t| key_of(t) == key) => Some(at),
        _ => items.binary_search_by_key(&key, key_of).ok(),
    }
}

impl<'d> Corpus<'d> {
    /// `donors` must be every sentence, in id order ([`super::each_donor`]), and `ranked`
    /// every candidate, ordered by claim ([`super::candidates`]).
    pub fn new(
        donors: &'d [Donor],
        ranked: &[RankedSentence],
        families: &'d Families,
    ) -> Corpus<'d> {
        let mut by_document: HashMap<i64, Vec<u32>> = HashMap::new();
        for (i, d) in donors.iter().enumerate() {
            by_document.entry(d.document_id).or_default().push(i as u32);
        }
        let mut claims: Vec<(i64, u32)> = Vec::new();
        let mut candidates: Vec<u32> = Vec::with_capacity(ranked.len());
        for &(claim, sentence, _) in ranked {
            if claims.last().is_none_or(|&(c, _)| c != claim) {
                claims.push((claim, candidates.len() as u32));
            }
            if let Some(i) = find(donors, sentence, |d| d.sentence_id) {
                candidates.push(i as u32);
            }
        }
        Corpus {
            donors,
            families,
            claims,
            candidates,
            by_document,
        }
    }

    /// The donors that are `claim`'s candidates.
    fn candidates_of(&self, claim: i64) -> impl Iterator<Item = &Donor> {
        let range = find(&self.claims, claim, |c| c.0).map(|k| {
            let from = self.claims[k].1 as usize;
            let to = self
                .claims
                .get(k + 1)
                .map_or(self.candidates.len(), |c| c.1 as usize);
            from..to
        });
        let indexes = range.map_or(&[][..], |r| &self.candidates[r]);
        indexes.iter().map(|&i| &self.donors[i as usize])
    }

    /// Sets the evidence facts of `claim` in `f`: its candidates' lengths and how many
    /// other items show each, and its family's documents and their texts.
    pub fn fill(&self, claim: i64, f: &mut ClaimFacts) {
        for d in self.candidates_of(claim) {
            f.candidates += 1;
            f.candidate_lengths.push(d.chars);
            // This claim's item shows it as an option: the rest show it elsewhere.
            f.candidate_elsewhere.push((
                d.options.saturating_sub(1),
                d.shown.saturating_sub(d.options),
            ));
        }
        f.family = self.families.documents_of(claim);
        for document in &f.family {
            let sentences = self.by_document.get(document).into_iter().flatten();
            f.family_texts
                .extend(sentences.map(|&i| self.donors[i as usize].text_hash));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::find;

    #[test]
    fn find_takes_the_dense_place_and_searches_past_gaps() {
        let ids = [3, 4, 5, 9, 12, 13];
        for (at, &id) in ids.iter().enumerate() {
            assert_eq!(find(&ids, id, |&k| k), Some(at));
        }
        for missing in [0, 2, 6, 8, 10, 14, i64::MIN, i64::MAX] {
            assert_eq!(find(&ids, missing, |&k| k), None);
        }
        assert_eq!(find(&[] as &[i64], 1, |&k| k), None);
        // A difference too large for an i64 still finds what is there.
        assert_eq!(find(&[-5, i64::MAX], i64::MAX, |&k| k), Some(1));
    }
}
