//! Tests of the trick search: bounded looks, the texts' rule, the pools and uniqueness.

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
    let tricks = |f: &[Found]| -> Vec<_> { f.iter().map(|f| (f.sentence, f.repeated)).collect() };
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
