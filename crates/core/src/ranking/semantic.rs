//! Ranking by the cosine similarity of sentence embeddings (computed elsewhere: the model
//! is IO and lives outside this crate).

use super::{rank_order, Scored};

/// Ranks sentences by the cosine of their unit-length embedding with the claim's, best
/// first. Vectors of another length than the claim's score 0 rather than panic.
pub fn by_cosine<'a>(
    claim: &[f32],
    sentences: impl IntoIterator<Item = (i64, &'a [f32])>,
) -> Vec<Scored> {
    let mut scored: Vec<Scored> = sentences
        .into_iter()
        .map(|(sentence_id, v)| Scored {
            sentence_id,
            score: if v.len() == claim.len() {
                f64::from(claim.iter().zip(v).map(|(a, b)| a * b).sum::<f32>())
            } else {
                0.0
            },
        })
        .collect();
    rank_order(&mut scored);
    scored
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_first_and_ties_by_id() {
        let claim = [1.0f32, 0.0];
        let a = [0.6f32, 0.8];
        let b = [1.0f32, 0.0];
        let c = [0.6f32, -0.8];
        let wrong = [1.0f32];
        let got = by_cosine(
            &claim,
            [(7, &a[..]), (3, &b[..]), (2, &c[..]), (9, &wrong[..])],
        );
        let ids: Vec<i64> = got.iter().map(|s| s.sentence_id).collect();
        assert_eq!(ids, [3, 2, 7, 9]);
        assert!((got[0].score - 1.0).abs() < 1e-9);
        assert!((got[1].score - 0.6).abs() < 1e-6);
        assert_eq!(got[3].score, 0.0);
    }
}
