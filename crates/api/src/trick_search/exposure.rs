//! How many claims' items show each sentence, as an option or beside one in a passage:
//! a trick should be shown in other items as often as its item's real options are, and
//! a real option is shown elsewhere when another claim ranks it or ranks a sentence it
//! stands beside.

use factdesk_store::tricks::{Donor, RankedSentence};
use std::collections::HashMap;

/// Sentences a passage shows on each side of its option (as `annotate::context` cuts
/// them).
const AROUND: usize = 3;

/// Sets each donor's `options` and `shown` from `ranked`, every claim's candidates
/// ordered by claim, by text: a reader compares texts, and documents may repeat a
/// sentence (`make-eval-set` draws its distractors from other claims' documents), so a
/// sentence counts what every sentence of its text is shown as. `donors` are in id
/// order; a document's sentences are ordered by id as by position.
pub(super) fn mark(donors: &mut [Donor], ranked: &[RankedSentence]) {
    // Each claim's candidates, by donor index, and the documents they are in.
    let mut claims: Vec<Vec<usize>> = Vec::new();
    let mut documents: HashMap<i64, Vec<usize>> = HashMap::new();
    let mut last = None;
    for &(claim, sentence, shown) in ranked {
        let Ok(i) = donors.binary_search_by_key(&sentence, |d| d.sentence_id) else {
            continue;
        };
        if !shown {
            continue;
        }
        donors[i].options += 1;
        if last != Some(claim) {
            claims.push(Vec::new());
            last = Some(claim);
        }
        if let Some(options) = claims.last_mut() {
            options.push(i);
        }
        documents.entry(donors[i].document_id).or_default();
    }
    for (i, d) in donors.iter().enumerate() {
        if let Some(sentences) = documents.get_mut(&d.document_id) {
            sentences.push(i);
        }
    }
    // The claim that last counted each sentence, so that a claim counts it once.
    let mut counted_by: Vec<usize> = vec![usize::MAX; donors.len()];
    for (claim, options) in claims.iter().enumerate() {
        for &option in options {
            let Some(sentences) = documents.get(&donors[option].document_id) else {
                continue;
            };
            let Ok(pos) = sentences.binary_search(&option) else {
                continue;
            };
            // The passage leaves out the claim's other options and reaches past them.
            let others = |k: &usize| *k == option || !options.contains(&sentences[*k]);
            let before = (0..pos).rev().filter(others).take(AROUND);
            let after = (pos + 1..sentences.len()).filter(others).take(AROUND);
            for k in before.chain(after).chain([pos]) {
                let i = sentences[k];
                if counted_by[i] != claim {
                    counted_by[i] = claim;
                    donors[i].shown += 1;
                }
            }
        }
    }
    let mut by_text: HashMap<u64, (u32, u32)> = HashMap::new();
    for d in donors.iter().filter(|d| d.shown > 0) {
        let seen = by_text.entry(d.text_hash).or_default();
        *seen = (seen.0 + d.options, seen.1 + d.shown);
    }
    for d in donors.iter_mut() {
        if let Some(&(options, shown)) = by_text.get(&d.text_hash) {
            (d.options, d.shown) = (options, shown);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two documents of ten sentences (ids 0–9, 10–19).
    fn donors() -> Vec<Donor> {
        (0..20)
            .map(|i| Donor::of(i, i / 10, &format!("Sentence {i}.")))
            .collect()
    }

    fn shown(donors: &[Donor]) -> Vec<u32> {
        donors.iter().map(|d| d.shown).collect()
    }

    #[test]
    fn a_claim_shows_its_options_and_their_neighbours_once() {
        let mut d = donors();
        // Claim 1 ranks sentences 2 and 4: the passage of 4 leaves out 2 and reaches 7.
        mark(&mut d, &[(1, 2, true), (1, 4, true)]);
        let expect: Vec<u32> = (0..20).map(|i| u32::from(i <= 7)).collect();
        assert_eq!(shown(&d), expect);
        assert_eq!((d[2].options, d[3].options, d[4].options), (1, 0, 1));
    }

    #[test]
    fn two_claims_near_each_other_share_what_they_show() {
        let mut d = donors();
        // Claim 2 ranks 15; claim 3 ranks 18 and, not shown, claim 4 ranks 11.
        mark(&mut d, &[(2, 15, true), (3, 18, true), (4, 11, false)]);
        let s = shown(&d);
        assert_eq!(&s[10..20], &[0, 0, 1, 1, 1, 2, 2, 2, 2, 1]);
        assert_eq!((d[11].options, d[15].options, d[18].options), (0, 1, 1));
        assert_eq!(&s[..10], &[0; 10]);
    }

    #[test]
    fn a_sentence_counts_what_its_text_is_shown_as_anywhere() {
        let mut d = donors();
        // Sentence 19 says what sentence 2 says; claim 1 ranks 2.
        d[19] = Donor::of(19, 1, "Sentence 2.");
        mark(&mut d, &[(1, 2, true)]);
        assert_eq!((d[19].options, d[19].shown), (1, 1));
        assert_eq!((d[2].options, d[2].shown), (1, 1));
    }
}
