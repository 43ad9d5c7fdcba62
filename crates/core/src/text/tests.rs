use super::*;

fn split(t: &str) -> Vec<&str> {
    sentences(t).iter().map(|s| &t[s.start..s.end]).collect()
}

#[test]
fn splits_plain_sentences() {
    assert_eq!(
        split("One here. Two there! Three? "),
        vec!["One here.", "Two there!", "Three?"]
    );
}

#[test]
fn keeps_abbreviations_and_initials_inside_sentences() {
    assert_eq!(
        split("Dr. Hale met J. R. Tolkien in the U.S. Army. He left e.g. early. See No. 4 today."),
        vec![
            "Dr. Hale met J. R. Tolkien in the U.S. Army.",
            "He left e.g. early.",
            "See No. 4 today."
        ]
    );
    assert_eq!(
        split("John F. Kennedy spoke."),
        vec!["John F. Kennedy spoke."]
    );
}

#[test]
fn keeps_decimals_and_large_numbers() {
    assert_eq!(
        split("2.8 million tickets were issued. The p-value was 0.05 and 3,000 came."),
        vec![
            "2.8 million tickets were issued.",
            "The p-value was 0.05 and 3,000 came."
        ]
    );
}

#[test]
fn closing_quotes_and_brackets_stay_with_their_sentence() {
    assert_eq!(
        split("He said \"Stop.\" Then he left."),
        vec!["He said \"Stop.\"", "Then he left."]
    );
    assert_eq!(split("(See below.) Next."), vec!["(See below.)", "Next."]);
}

#[test]
fn citation_marks_stay_with_the_preceding_sentence() {
    assert_eq!(
        split("As reported.[19] The next one."),
        vec!["As reported.[19]", "The next one."]
    );
    assert_eq!(
        split("As reported [19]. The next one."),
        vec!["As reported [19].", "The next one."]
    );
    assert_eq!(
        split("As reported.[19][20] Next."),
        vec!["As reported.[19][20]", "Next."]
    );
}

#[test]
fn blank_lines_and_broken_lines() {
    assert_eq!(
        split("A heading\n\nBody text here. More."),
        vec!["A heading", "Body text here.", "More."]
    );
    assert_eq!(
        split("A line that\nwraps on. Next."),
        vec!["A line that\nwraps on.", "Next."]
    );
    assert!(split("   ").is_empty());
}

fn data(name: &str) -> String {
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/");
    std::fs::read_to_string(format!("{p}{name}"))
        .unwrap_or_else(|e| panic!("test data {p}{name} is missing ({e}): the shared data folder must sit beside the repository"))
}

#[test]
fn real_wikifactcheck_context_splits_where_a_reader_would() {
    let tsv = data("wikifactcheck_dev.tsv");
    let context = tsv
        .lines()
        .find(|l| l.contains("2.8 million tickets"))
        .and_then(|l| l.split('\t').nth(2))
        .unwrap_or_default();
    assert_eq!(
        split(context),
        vec![
            "Complaints, not by the soldiers, resulted in the Lord Chamberlain (the British theatre censor) viewing the show and requiring this naughtiness to be stopped—at least for a while.",
            "The cast was large and included a camel, a donkey, poultry and snakes.",
            "2.8 million tickets to the show were issued.",
            "The year following the premiere of the musical, a souvenir booklet was prepared, which included a novelized version of the play by Willam A. Page.",
        ]
    );
}

/// COVID-Fact's evidence "sentences" are sometimes several sentences or headlines, so the
/// measure is the boundaries a reader would certainly draw: between two given sentences
/// when the first ends in terminal punctuation and the second starts a new one. About 1%
/// of those are COVID-Fact's own splitter cutting after "Gov." or "Fig." mid-sentence
/// ("Gov. | Andrew Cuomo said"), which we rightly do not follow; we measured 98.7%.
#[test]
fn real_covid_fact_evidence_boundaries_are_found() {
    let jsonl = data("covidfact.jsonl");
    let (mut total, mut found) = (0, 0);
    let mut missed = Vec::new();
    for line in jsonl.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let given: Vec<&str> = v["evidence"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str())
            .map(str::trim)
            .collect();
        let joined = given.join(" ");
        let ends: Vec<usize> = sentences(&joined).iter().map(|s| s.end).collect();
        let mut at = 0;
        for pair in given.windows(2) {
            at += pair[0].len();
            let certain = pair[0].ends_with(['.', '!', '?'])
                && pair[1].starts_with(|c: char| c.is_uppercase());
            if certain {
                total += 1;
                if ends.contains(&at) {
                    found += 1;
                } else if missed.len() < 5 {
                    missed.push(format!("{} | {}", pair[0], pair[1]));
                }
            }
            at += 1;
        }
    }
    assert!(total > 1000, "too few boundaries to judge: {total}");
    let rate = found as f64 / total as f64;
    assert!(
        rate >= 0.98,
        "found {found} of {total} sentence boundaries; missed e.g. {missed:#?}"
    );
}

#[test]
fn tokens_keep_words_numbers_and_offsets() {
    let t = "Don't panic: SARS-CoV-2 hit 3,000 people (2.8%) in Müller’s café.";
    let toks: Vec<&str> = tokens(t).iter().map(|t| t.text).collect();
    assert_eq!(
        toks,
        vec![
            "Don't",
            "panic",
            "SARS-CoV-2",
            "hit",
            "3,000",
            "people",
            "2.8",
            "in",
            "Müller’s",
            "café"
        ]
    );
    for tok in tokens(t) {
        assert_eq!(&t[tok.start..tok.end], tok.text);
    }
    assert_eq!(normalize_token("Müller’s"), "müller's");
    assert_eq!(token_count("a b, c."), 3);
}

#[test]
fn char_offsets_count_characters() {
    let t = "Café. Next";
    let spans = sentences(t);
    assert_eq!(char_offsets(t, spans[1]), (6, 10));
}
