//! A claim's top candidates as they are stored: each sentence's score, every ranker's
//! score of it, and which rankers placed it in their own top k.

use super::sentences::Rankings;
use crate::dto::RankReport;
use crate::Result;
use factdesk_core::ranking::{Ranker, Scored};
use factdesk_store::{tx, NewCandidate, RankerScores};

/// The rankers whose own top `k` hold `sentence_id`, one bit each in
/// [`Ranker::PLACING`]'s order, as the candidate is stored.
pub(super) fn placed_by(r: &Rankings, sentence_id: i64, k: usize) -> u8 {
    Ranker::PLACING
        .iter()
        .enumerate()
        .filter(|(_, &ranker)| {
            r.get(ranker)
                .iter()
                .take(k)
                .any(|s| s.sentence_id == sentence_id)
        })
        .fold(0, |bits, (i, _)| bits | 1 << i)
}

/// The score each ranker gave one sentence, for storing beside the candidate.
pub(super) fn scores_of(r: &Rankings, sentence_id: i64) -> RankerScores {
    let find = |ranking: &[Scored]| {
        ranking
            .iter()
            .find(|s| s.sentence_id == sentence_id)
            .map(|s| s.score)
    };
    RankerScores {
        bm25: find(&r.bm25),
        levenshtein: find(&r.levenshtein),
        jaccard: find(&r.jaccard),
        fused: find(&r.fused),
        semantic: find(&r.semantic),
    }
}

/// The top `k` sentences of each claim with `ranker`, with every ranker's scores and the
/// rankers that placed each.
pub(crate) type Computed = Vec<(i64, Top)>;

/// One claim's candidates: each sentence's score, every ranker's scores and the rankers
/// that placed it ([`placed_by`]).
pub(crate) type Top = Vec<(Scored, RankerScores, u8)>;

/// Claims whose candidates are stored together.
const STORE_CHUNK: usize = 4096;

/// Replaces the candidates of the computed claims (each once), in the caller's
/// transaction.
pub(crate) fn store_candidates(
    conn: &factdesk_store::Tx<'_>,
    computed: &[(i64, Top)],
    ranker: Ranker,
) -> Result<RankReport> {
    let mut report = RankReport::nothing_yet(ranker);
    // A chunk of claims at a time: the rows of every claim at once would hold another
    // copy of all the candidates.
    for chunk in computed.chunks(STORE_CHUNK) {
        let claims: Vec<(i64, Vec<NewCandidate<'_>>)> = chunk
            .iter()
            .map(|(claim_id, top)| {
                let rows = top
                    .iter()
                    .enumerate()
                    .map(|(i, (s, scores, placed))| NewCandidate {
                        rank: i as u32 + 1,
                        sentence_id: s.sentence_id,
                        ranker: ranker.as_str(),
                        score: s.score,
                        scores: *scores,
                        placed_by: *placed,
                    })
                    .collect();
                (*claim_id, rows)
            })
            .collect();
        tx::replace_many_candidates(conn, &claims)?;
        report.claims += claims.len() as u64;
        report.candidates += claims
            .iter()
            .map(|(_, rows)| rows.len() as u64)
            .sum::<u64>();
    }
    Ok(report)
}

impl RankReport {
    /// A report of `ranker` before anything is written.
    pub(super) fn nothing_yet(ranker: Ranker) -> RankReport {
        RankReport {
            ranker: ranker.as_str().to_string(),
            claims: 0,
            candidates: 0,
            kept: 0,
            unscored: 0,
            semantic_model: None,
            embedded: 0,
        }
    }
}
