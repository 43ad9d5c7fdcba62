use super::*;
use std::time::{Duration, Instant};

fn scored(pairs: &[(i64, f64)]) -> Vec<Scored> {
    pairs
        .iter()
        .map(|&(sentence_id, score)| Scored { sentence_id, score })
        .collect()
}

fn ids(scored: &[Scored]) -> Vec<i64> {
    scored.iter().map(|s| s.sentence_id).collect()
}

#[test]
fn rank_order_breaks_ties_by_id_and_guards_nan() {
    let mut s = scored(&[
        (4, 0.5),
        (9, f64::NAN),
        (2, 0.5),
        (3, 0.9),
        (1, 0.0),
        (5, -0.0),
    ]);
    rank_order(&mut s);
    assert_eq!(ids(&s), [3, 2, 4, 1, 5, 9]);
    assert!(s.iter().all(|x| !x.score.is_nan()));
    assert_eq!(s[5].score, 0.0);
}

#[test]
fn identical_sentences_rank_lower_id_first_every_time() {
    let sentences = [
        Candidate {
            sentence_id: 42,
            text: "Vaccines reduce severe illness.",
        },
        Candidate {
            sentence_id: 17,
            text: "Vaccines reduce severe illness.",
        },
        Candidate {
            sentence_id: 30,
            text: "Unrelated text about the weather.",
        },
    ];
    let claim = "Vaccines reduce illness";
    let first = (levenshtein(claim, &sentences), jaccard(claim, &sentences));
    assert_eq!(ids(&first.0), [17, 42, 30]);
    assert_eq!(ids(&first.1), [17, 42, 30]);
    let fused = fuse(&[&first.0, &first.1], RRF_K);
    assert_eq!(ids(&fused), [17, 42, 30]);
    for _ in 0..20 {
        assert_eq!(levenshtein(claim, &sentences), first.0);
        assert_eq!(jaccard(claim, &sentences), first.1);
        assert_eq!(fuse(&[&first.0, &first.1], RRF_K), fused);
    }
}

#[test]
fn top_k_equals_sorting_everything() {
    let all: Vec<Scored> = (0..200)
        .map(|i| Scored {
            sentence_id: (i * 37) % 200,
            score: ((i * 13) % 7) as f64,
        })
        .collect();
    let mut sorted = all.clone();
    rank_order(&mut sorted);
    for k in [0, 1, 5, 199, 200, 500] {
        let want: Vec<Scored> = sorted.iter().take(k).copied().collect();
        assert_eq!(top_k(all.clone(), k), want, "k = {k}");
    }
}

#[test]
fn fewer_than_five_sentences_give_fewer_results() {
    let claim = "The moon is made of cheese";
    let one = [Candidate {
        sentence_id: 1,
        text: "Cheese is made from milk.",
    }];
    for sentences in [&[][..], &one[..]] {
        let lev = levenshtein(claim, sentences);
        let jac = jaccard(claim, sentences);
        let fused = top_k(fuse(&[&lev, &jac], RRF_K), 5);
        assert_eq!(fused.len(), sentences.len());
    }
    // Dropping the only sentence, which contains the claim, leaves nothing to rank.
    let copy = [Candidate {
        sentence_id: 2,
        text: "the moon is made of cheese!",
    }];
    let kept = drop_self_containing(claim, &copy);
    assert!(top_k(levenshtein(claim, &kept), 5).is_empty());
}

#[test]
fn ranker_names_round_trip() {
    for r in Ranker::ALL {
        assert_eq!(r.as_str().parse::<Ranker>(), Ok(r));
        assert_eq!(r.to_string(), r.as_str());
        assert_eq!(
            serde_json::to_string(&r).ok(),
            Some(format!("\"{}\"", r.as_str()))
        );
        assert_eq!(
            serde_json::from_str::<Ranker>(&format!("\"{r}\"")).ok(),
            Some(r)
        );
    }
    assert_eq!(" BM25 ".parse::<Ranker>(), Ok(Ranker::Bm25));
    let err = "tfidf".parse::<Ranker>().err().map(|e| e.to_string());
    assert_eq!(
        err.as_deref(),
        Some("unknown ranker \"tfidf\" (expected bm25, levenshtein, jaccard, fused or semantic)")
    );
}

#[test]
fn scored_serializes_as_plain_fields() {
    let json = serde_json::to_string(&Scored {
        sentence_id: 3,
        score: 0.5,
    })
    .ok();
    assert_eq!(json.as_deref(), Some(r#"{"sentence_id":3,"score":0.5}"#));
}

#[test]
fn normalized_word_borrows_when_already_normal() {
    assert!(matches!(
        normalized_word("vaccine"),
        Cow::Borrowed("vaccine")
    ));
    assert_eq!(normalized_word("Vaccine"), "vaccine");
    assert_eq!(normalized_word("DON’T"), "don't");
    assert_eq!(normalized_word("ÉTÉ"), "été");
}

/// A synthetic 1 MB document: ~8,000 sentences of ~125 bytes from a fixed vocabulary.
fn synthetic_document() -> Vec<String> {
    let vocabulary: Vec<&str> = "the vaccine reduced hospital admissions among older adults in \
        the first year of rollout while cases rose sharply across several regions according to \
        data from health officials who said that trials showed efficacy against severe disease \
        but not against infection with newer variants of the virus during winter"
        .split_whitespace()
        .collect();
    let mut state = 12_345u64;
    let mut next = |n: usize| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) % n as u64) as usize
    };
    (0..8_000)
        .map(|_| {
            let mut s = String::new();
            while s.len() < 110 + next(30) {
                if !s.is_empty() {
                    s.push(' ');
                }
                s.push_str(vocabulary[next(vocabulary.len())]);
            }
            s.push('.');
            s
        })
        .collect()
}

/// Run with `cargo test -p factdesk-core --release -- --ignored --nocapture`.
#[test]
#[ignore = "timing; meaningful only in release"]
fn ranking_a_large_document_is_fast() {
    let document = synthetic_document();
    assert!(document.iter().map(String::len).sum::<usize>() > 1_000_000);
    let sentences: Vec<Candidate> = document
        .iter()
        .zip(0..)
        .map(|(text, sentence_id)| Candidate { sentence_id, text })
        .collect();
    let claim =
        "Health officials said the vaccine reduced hospital admissions among older adults by half";
    let mut totals = Vec::new();
    let mut stages = [Duration::ZERO; 4];
    for _ in 0..50 {
        let start = Instant::now();
        let kept = drop_self_containing(claim, &sentences);
        let t1 = start.elapsed();
        let lev = levenshtein(claim, &kept);
        let t2 = start.elapsed();
        let jac = jaccard(claim, &kept);
        let t3 = start.elapsed();
        let best = top_k(fuse(&[&lev, &jac], RRF_K), 5);
        let t4 = start.elapsed();
        totals.push(t4);
        for (stage, took) in stages.iter_mut().zip([t1, t2 - t1, t3 - t2, t4 - t3]) {
            *stage += took / 50;
        }
        assert_eq!(best.len(), 5);
    }
    totals.sort();
    println!(
        "{} sentences: p50 {:?}, p95 {:?}; mean drop {:?}, levenshtein {:?}, jaccard {:?}, fuse {:?}",
        sentences.len(),
        totals[totals.len() / 2],
        totals[totals.len() * 95 / 100],
        stages[0],
        stages[1],
        stages[2],
        stages[3],
    );
    // The bit-parallel distance gives exactly strsim's similarity.
    let lev = levenshtein(claim, &sentences);
    for s in &lev {
        let text = &document[s.sentence_id as usize];
        let want = strsim::normalized_levenshtein(&claim.to_lowercase(), &text.to_lowercase());
        assert!((s.score - want).abs() < 1e-12);
    }
}
