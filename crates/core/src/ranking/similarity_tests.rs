//! Tests of the similarity rankers.

use super::*;

#[test]
fn words_from_tokens_equal_sentence_words_and_the_set_finds_its_members() {
    let texts = [
        "The Vaccine reduced deaths in Spain.",
        "Café déjà vu, CAFÉ again; the THE the",
        "",
        "Vaccines don’t cause autism; VACCINES DON'T",
    ];
    let c = candidates(&texts);
    let from_tokens: Vec<SentenceWords> = c
        .iter()
        .map(|c| SentenceWords::from_tokens(c.sentence_id, &text::tokens(c.text)))
        .collect();
    assert_eq!(from_tokens, sentence_words(&c));
    let members = [0, 1, 9, u64::MAX, 1 << 63, 17 << 58, (17 << 58) + 8];
    let set = HashSet64::new(&members);
    for m in members {
        assert!(set.contains(m), "{m}");
    }
    for other in [2, 8, 3 << 58, u64::MAX - 1, (17 << 58) + 16] {
        assert!(!set.contains(other), "{other}");
    }
    assert!(!HashSet64::new(&[1, 2]).contains(0));
}

#[test]
fn ascii_word_is_the_hash_and_the_stop_word_test() {
    let mut words: Vec<String> = [
        "I",
        "A",
        "a",
        "Vaccine",
        "don't",
        "DON'T",
        "Themselves",
        "ourselves1",
        "12",
        "1.5",
        "z",
        "b2b",
        "The",
        "THEN",
        "thenx",
    ]
    .map(String::from)
    .to_vec();
    words.push("yourselves".repeat(3));
    for w in &words {
        assert_eq!(
            ascii_word(w.as_bytes()),
            (word_hash(w), is_stopword(w)),
            "{w}"
        );
    }
}

#[test]
fn prepared_jaccard_equals_jaccard() {
    let texts = [
        "The Vaccine reduced deaths in Spain.",
        "Deaths fell.",
        "",
        "Vaccines, vaccines and more VACCINES!",
        "Café déjà vu",
    ];
    let c = candidates(&texts);
    let claim = "vaccine deaths in spain café";
    assert_eq!(
        jaccard_prepared(claim, &sentence_words(&c)),
        jaccard(claim, &c)
    );
    for claim in [claim, "The THE Vaccine, vaccine; café CAFÉ don’t", ""] {
        let words = SentenceWords::from_tokens(0, &text::tokens(claim));
        assert_eq!(
            jaccard_of_hashes(words.hashes(), &sentence_words(&c)),
            jaccard(claim, &c)
        );
    }
}

fn candidates<'a>(texts: &[&'a str]) -> Vec<Candidate<'a>> {
    texts
        .iter()
        .zip(1..)
        .map(|(&text, sentence_id)| Candidate { sentence_id, text })
        .collect()
}

fn score_of(scored: &[Scored], id: i64) -> f64 {
    scored
        .iter()
        .find(|s| s.sentence_id == id)
        .map_or(f64::NAN, |s| s.score)
}

#[test]
fn levenshtein_small_example() {
    // "kitten" → "sitting" is 3 edits over 7 characters; case is ignored.
    let got = levenshtein("Kitten", &candidates(&["SITTING", "kitten", "", "kitchen"]));
    let ids: Vec<i64> = got.iter().map(|s| s.sentence_id).collect();
    assert_eq!(ids, [2, 4, 1, 3]);
    assert_eq!(score_of(&got, 2), 1.0);
    assert!((score_of(&got, 4) - (1.0 - 2.0 / 7.0)).abs() < 1e-12);
    assert!((score_of(&got, 1) - (1.0 - 3.0 / 7.0)).abs() < 1e-12);
    assert_eq!(score_of(&got, 3), 0.0);
}

#[test]
fn levenshtein_equals_strsim_on_lower_cased_text() {
    let claim = "The COVID-19 vaccine reduces hospitalisation among adults over sixty-five years";
    let texts = [
        "Vaccination reduced hospitalisations among adults over 65 by 80%, the study found.",
        "Über 90 % der Erwachsenen sind GEIMPFT.",
        "the covid-19 vaccine reduces hospitalisation among adults over sixty-five years",
        "",
    ];
    for s in levenshtein(claim, &candidates(&texts)) {
        let text = texts[(s.sentence_id - 1) as usize];
        let want = strsim::normalized_levenshtein(&claim.to_lowercase(), &text.to_lowercase());
        assert!(
            (s.score - want).abs() < 1e-12,
            "{text}: {} vs {want}",
            s.score
        );
    }
}

#[test]
fn lower_chars_matches_char_to_lowercase() {
    // "İ" lower-cases to two characters; "Σ" and "É" to one non-ASCII character.
    let text = "AİB ΣÉ straße";
    let want: String = text.chars().flat_map(char::to_lowercase).collect();
    assert_eq!(lower_chars(text).collect::<String>(), want);
    assert_eq!(want.chars().count(), 14);
}

#[test]
fn levenshtein_of_empty_claim() {
    let got = levenshtein("", &candidates(&["", "abc"]));
    assert_eq!(
        got,
        [
            Scored {
                sentence_id: 1,
                score: 1.0
            },
            Scored {
                sentence_id: 2,
                score: 0.0
            }
        ]
    );
}

#[test]
fn jaccard_small_example() {
    // Claim content words: {cats, chase, mice}. Sentence 1: {cats, chase, dogs}, sharing
    // 2 of 4. Sentence 2: {mice, run} after "The" and "from" go, sharing 1 of 4.
    let claim = "Cats chase the mice.";
    let got = jaccard(
        claim,
        &candidates(&["CATS chase dogs!", "The mice run from", "a the of"]),
    );
    assert_eq!(
        got,
        [
            Scored {
                sentence_id: 1,
                score: 0.5
            },
            Scored {
                sentence_id: 2,
                score: 0.25
            },
            Scored {
                sentence_id: 3,
                score: 0.0
            },
        ]
    );
}

#[test]
fn jaccard_counts_repeated_words_once_and_folds_apostrophes() {
    let got = jaccard(
        "Vaccines don’t cause autism",
        &candidates(&["Vaccines vaccines DON'T cause autism."]),
    );
    // "don't" is a stop word in either apostrophe; {vaccines, cause, autism} on both sides.
    assert_eq!(
        got,
        [Scored {
            sentence_id: 1,
            score: 1.0
        }]
    );
}

#[test]
fn word_set_is_exact_about_case_and_normalisation() {
    let mut set = WordSet::default();
    set.fill("Vaccine vaccine, VACCINE virus été ÉTÉ the The");
    let words: Vec<&str> = set.words.iter().map(|(_, w)| w.as_ref()).collect();
    assert_eq!(words, ["Vaccine", "virus", "été"]);
    assert!(set.contains(word_hash("vaccine"), "vaccine"));
    assert!(!set.contains(word_hash("vaccines"), "vaccines"));
    // Same hash, different word: still told apart.
    assert!(!set.contains(word_hash("vaccine"), "vaccinE!"));
    assert_eq!(word_hash("VacCine"), word_hash("vaccine"));
    set.fill("");
    assert_eq!(set.len(), 0);
    assert!(!set.contains(word_hash("vaccine"), "vaccine"));
}

#[test]
fn jaccard_with_only_stop_words_scores_zero() {
    assert_eq!(
        jaccard("it is", &candidates(&["it is"])),
        [Scored {
            sentence_id: 1,
            score: 0.0
        }]
    );
}

#[test]
fn no_candidates_give_no_scores() {
    assert!(levenshtein("claim", &[]).is_empty());
    assert!(jaccard("claim", &[]).is_empty());
}
