//! The tokenizer: what counts as one word, and byte offsets that slice back to it.

use crate::text::{normalize_token, token_count, tokens};

fn words(text: &str) -> Vec<&str> {
    tokens(text).iter().map(|t| t.text).collect()
}

#[test]
fn offsets_slice_back_to_the_token() {
    let text = "Don't panic: SARS-CoV-2 hit 3,000 people (2.8%) in Müller’s café.";
    let toks = tokens(text);
    assert_eq!(
        toks.iter().map(|t| t.text).collect::<Vec<_>>(),
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
    for t in &toks {
        assert_eq!(&text[t.start..t.end], t.text);
    }
    // "ü" is two bytes and "’" three, so the byte range is wider than the word.
    assert_eq!((toks[8].start, toks[8].end), (51, 62));
}

#[test]
fn apostrophes_inside_a_word_keep_it_whole() {
    assert_eq!(
        words("I don't know why they can't or won’t; it's Smith's."),
        vec!["I", "don't", "know", "why", "they", "can't", "or", "won’t", "it's", "Smith's"]
    );
    // Apostrophes and quotes at the edges of a word are punctuation.
    assert_eq!(
        words("'quoted' students' rock 'n' roll"),
        vec!["quoted", "students", "rock", "n", "roll"]
    );
}

#[test]
fn hyphens_inside_a_word_keep_it_whole() {
    assert_eq!(
        words("SARS-CoV-2 and COVID-19 are well-known; pre- and post-war - a dash -- too"),
        vec![
            "SARS-CoV-2",
            "and",
            "COVID-19",
            "are",
            "well-known",
            "pre",
            "and",
            "post-war",
            "a",
            "dash",
            "too"
        ]
    );
    // An en dash joins nothing: a range is two numbers.
    assert_eq!(words("1990–2000"), vec!["1990", "2000"]);
}

#[test]
fn numbers_keep_decimal_points_and_thousands_separators() {
    assert_eq!(
        words("2.8 million, 3,000 people, p = 0.05, $1,234.56 and 50% in 2019, 2020. Then 2.8."),
        vec![
            "2.8", "million", "3,000", "people", "p", "0.05", "1,234.56", "and", "50", "in",
            "2019", "2020", "Then", "2.8"
        ]
    );
    // A period after letters ends the word, so "U.S." is two letters.
    assert_eq!(words("U.S. e.g."), vec!["U", "S", "e", "g"]);
}

#[test]
fn unicode_words() {
    assert_eq!(
        words("Müller’s café, naïve Ärzte, 東京 and Ελλάδα."),
        vec![
            "Müller’s",
            "café",
            "naïve",
            "Ärzte",
            "東京",
            "and",
            "Ελλάδα"
        ]
    );
    // A combining accent stays with its letter: "Zaviša" written as "s" + U+030C.
    assert_eq!(words("Zavis\u{30C}a came"), vec!["Zavis\u{30C}a", "came"]);
    assert!(words("  — … !? ").is_empty());
}

#[test]
fn normalize_token_lower_cases_and_folds_apostrophes() {
    assert_eq!(normalize_token("Müller’s"), "müller's");
    assert_eq!(normalize_token("DON’T"), "don't");
    assert_eq!(normalize_token("ÉCOLE"), "école");
    assert_eq!(normalize_token("SARS-CoV-2"), "sars-cov-2");
    assert_eq!(normalize_token("already-lower"), "already-lower");
    // Every token's normal form is lower-case with no curly apostrophe left.
    for t in tokens("Ünïcode’s ΣΟΦΊΑ Straße İstanbul") {
        let n = normalize_token(t.text);
        assert!(
            !n.contains('\u{2019}') && n.chars().all(|c| !c.is_uppercase()),
            "{n}"
        );
    }
}

#[test]
fn token_count_counts_whitespace_words_as_wikifactcheck_did() {
    assert_eq!(token_count("a b, c."), 3);
    assert_eq!(token_count("Don't stop: 2.8 million SARS-CoV-2 cases."), 6);
    assert_eq!(token_count(""), 0);
    // wikifactcheck:106786, which the tokenizer splits into 16 tokens.
    let claim = "Grainger is also CEO/Executive producer of the Sydney-based TV Production \
                 companies: GraingerTV, Corporate Video Australia";
    assert_eq!(tokens(claim).len(), 16);
    assert_eq!(token_count(claim), 15);
    // Punctuation standing alone is no word; a word glued to punctuation is one.
    assert_eq!(token_count("Paris \u{2013} the capital ."), 3);
    assert_eq!(token_count("U.S.-based firms\tgrew\n"), 3);
}

/// ASCII texts take a byte-by-byte path: it splits exactly as the general one, around
/// apostrophes, hyphens, decimal points and thousands separators, at either end.
#[test]
fn ascii_texts_split_as_the_general_tokenizer_does() {
    let pieces = [
        "a", "Z", "9", "0", "'", "-", ".", ",", " ", "\t", "(", ")", "%", "’", "_", "xy", "12",
        "3.5", "don't", "a-b", "--", "''", "..", ",,", "\n",
    ];
    let mut rng = crate::seeded::Seeded::new(11);
    let mut texts: Vec<String> = vec![
        String::new(),
        "'a".into(),
        "a'".into(),
        "1.".into(),
        ".5".into(),
    ];
    for _ in 0..20_000 {
        let n = 1 + rng.below(12);
        let text: String = (0..n)
            .map(|_| pieces[rng.below(pieces.len() as u64) as usize])
            .filter(|p| p.is_ascii())
            .collect();
        texts.push(text);
    }
    for text in &texts {
        assert!(text.is_ascii());
        assert_eq!(
            tokens(text),
            crate::text::tokens::general_tokens(text),
            "{text:?}"
        );
    }
}
