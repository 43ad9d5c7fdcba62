//! One test per splitting rule, with the exact sentences expected.

use super::split;
use crate::text::{char_offsets, sentences, Span};

#[test]
fn splits_after_terminal_punctuation_and_runs_of_it() {
    assert_eq!(
        split("One here. Two there! Three? Four?! Five... Six… Seven"),
        vec![
            "One here.",
            "Two there!",
            "Three?",
            "Four?!",
            "Five...",
            "Six…",
            "Seven"
        ]
    );
}

#[test]
fn a_new_sentence_starts_with_a_capital_digit_quote_or_bracket() {
    assert_eq!(
        split("It rose. 2020 was worse. \"Why?\" he asked. (Nobody knew.) [Later] it fell. ‘No’ said one."),
        vec![
            "It rose.",
            "2020 was worse.",
            "\"Why?\" he asked.",
            "(Nobody knew.)",
            "[Later] it fell.",
            "‘No’ said one.",
        ]
    );
    // A lower-case word continues the sentence, unless it has capitals inside.
    assert_eq!(
        split("It rose approx. five percent."),
        vec!["It rose approx. five percent."]
    );
    assert_eq!(split("Wait... what? no."), vec!["Wait... what? no."]);
    assert_eq!(
        split("It was tested. mRNA vaccines came next."),
        vec!["It was tested.", "mRNA vaccines came next."]
    );
}

#[test]
fn no_split_without_whitespace_after_the_period() {
    assert_eq!(
        split("The U.S.-based firm sold 2.8 million units at 0.05 each (3,000 in all) via example.com today."),
        vec!["The U.S.-based firm sold 2.8 million units at 0.05 each (3,000 in all) via example.com today."]
    );
}

#[test]
fn blank_lines_split_and_wrapped_lines_join() {
    assert_eq!(
        split("A heading\n\nBody text that\nwraps over lines. More.\r\n  \r\nLast para"),
        vec![
            "A heading",
            "Body text that\nwraps over lines.",
            "More.",
            "Last para"
        ]
    );
    // A line that ends in terminal punctuation ends its sentence, whatever follows.
    assert_eq!(
        split("First line ends here.\nsecond line starts lower-case"),
        vec!["First line ends here.", "second line starts lower-case"]
    );
}

#[test]
fn titles_do_not_end_sentences() {
    let titles = [
        "Dr.", "Mr.", "Mrs.", "Ms.", "Prof.", "St.", "Jr.", "Sr.", "Gen.", "Sen.", "Rep.", "Gov.",
        "Lt.", "Col.", "Sgt.", "Capt.", "Rev.", "Hon.",
    ];
    for title in titles {
        let text = format!("We met {title} Smith today. Then we left.");
        let want = vec![
            format!("We met {title} Smith today."),
            "Then we left.".to_string(),
        ];
        assert_eq!(split(&text), want, "{title}");
    }
    // Even at the end of a wrapped line.
    assert_eq!(
        split("We met Dr.\nSmith today."),
        vec!["We met Dr.\nSmith today."]
    );
}

#[test]
fn latin_and_reference_abbreviations_do_not_end_sentences() {
    for text in [
        "Some birds, e.g. Robins and Jays, sing.",
        "One bird, i.e. The Robin, sang.",
        "It was Smith vs. Jones in court.",
        "See cf. Table 2 for more.",
        "It took approx. 5 hours.",
        "See Vol. 3 and pp. 12-14 there.",
        "See Fig. 2 and Figs. 3-4 there.",
        "As Eq. 7 shows, it holds.",
        "Smith et al. (2020) found it.",
        "Smith et al. Found it later.",
        "It ranked No. 1 in 2011.",
        "Acme Inc. President Jo Lee spoke.",
        "Acme Ltd. Chairman Jo Lee spoke.",
        "Acme Co. Founder Jo Lee spoke.",
        "Acme Corp. Chief Jo Lee spoke.",
        "From Jan. 5 to Feb. 9 it ran.",
        "From Aug. 1 to Sept. 30 and Oct. 2 to Nov. 4 and Dec. 24 it ran.",
        "The U.S. Army and U.K. Navy met U.N. Officials.",
        "It left at 9 a.m. Monday and came back at 5 p.m. Tuesday.",
        "Jo Lee, Ph.D. Candidate at Yale, spoke.",
        "The U.S.A. Team won gold.",
        "Apples, pears, etc. Smith sold them all.",
    ] {
        assert_eq!(split(text), vec![text], "{text}");
    }
}

#[test]
fn no_ends_a_sentence_unless_a_number_follows() {
    assert_eq!(
        split("It ranked No. 4 then. The answer was No. Then he left."),
        vec![
            "It ranked No. 4 then.",
            "The answer was No.",
            "Then he left."
        ]
    );
}

/// "etc.", "U.S." and the like can end a sentence: they do so at a line break, before a
/// citation mark, and before a word that starts sentences but never names ("The").
#[test]
fn abbreviations_that_can_end_a_sentence_end_it_when_the_context_says_so() {
    assert_eq!(
        split("They sold apples, pears, etc.\nSmith bought them."),
        vec!["They sold apples, pears, etc.", "Smith bought them."]
    );
    assert_eq!(
        split("They sold apples, pears, etc. The rest rotted."),
        vec!["They sold apples, pears, etc.", "The rest rotted."]
    );
    assert_eq!(
        split("He moved to the U.S.[4] Smith followed."),
        vec!["He moved to the U.S.[4]", "Smith followed."]
    );
    assert_eq!(
        split("Martin Luther King Jr.\nwas born in Atlanta."),
        vec!["Martin Luther King Jr.\nwas born in Atlanta."]
    );
}

#[test]
fn initials_do_not_end_sentences() {
    assert_eq!(
        split("J. K. Rowling wrote it. John F. Kennedy read it. So did George H. W. Bush."),
        vec![
            "J. K. Rowling wrote it.",
            "John F. Kennedy read it.",
            "So did George H. W. Bush."
        ]
    );
    // A capital letter alone before a word that starts sentences is not an initial.
    assert_eq!(
        split("It was built after World War I. The guns came later."),
        vec!["It was built after World War I.", "The guns came later."]
    );
}

#[test]
fn decimals_and_large_numbers_do_not_split() {
    assert_eq!(
        split("2.8 million tickets were issued. The p-value was 0.05 and 3,000 came. It cost $1,234.50."),
        vec![
            "2.8 million tickets were issued.",
            "The p-value was 0.05 and 3,000 came.",
            "It cost $1,234.50.",
        ]
    );
}

#[test]
fn closing_quotes_and_brackets_stay_with_their_sentence() {
    assert_eq!(
        split("He said \"Stop.\" Then he left."),
        vec!["He said \"Stop.\"", "Then he left."]
    );
    assert_eq!(
        split("He said “Stop!” Then he left."),
        vec!["He said “Stop!”", "Then he left."]
    );
    assert_eq!(
        split("He said 'Go.' Then he left."),
        vec!["He said 'Go.'", "Then he left."]
    );
    assert_eq!(split("(See below.) Next."), vec!["(See below.)", "Next."]);
    assert_eq!(
        split("It ended (finally.)) Next."),
        vec!["It ended (finally.))", "Next."]
    );
    // A stray quote is no sentence of its own.
    assert_eq!(
        split("It hurt, he added. \""),
        vec!["It hurt, he added. \""]
    );
}

#[test]
fn citation_marks_stay_with_the_preceding_sentence() {
    assert_eq!(
        split("It was as reported.[19] The next one came."),
        vec!["It was as reported.[19]", "The next one came."]
    );
    assert_eq!(
        split("It was as reported [19]. The next one came."),
        vec!["It was as reported [19].", "The next one came."]
    );
    assert_eq!(
        split("It was as reported.[19][20] Next came."),
        vec!["It was as reported.[19][20]", "Next came."]
    );
    assert_eq!(
        split("It was disputed.[citation needed] Next came."),
        vec!["It was disputed.[citation needed]", "Next came."]
    );
}

#[test]
fn spans_are_trimmed_and_never_empty() {
    let text = "  \n One.   Two.  \n\n \n ";
    let spans = sentences(text);
    assert_eq!(
        spans,
        vec![Span { start: 4, end: 8 }, Span { start: 11, end: 15 }]
    );
    assert!(sentences("").is_empty());
    assert!(sentences(" \n\n\t ").is_empty());
    assert_eq!(split("..."), vec!["..."]);
}

#[test]
fn unicode_text_splits_on_character_boundaries() {
    assert_eq!(
        split("Das Café schloss.\u{a0}Über Nacht kam Müller. Ça va."),
        vec!["Das Café schloss.", "Über Nacht kam Müller.", "Ça va."]
    );
    // Scripts without case start a sentence after a period and a space.
    assert_eq!(
        split("It rained. नमस्ते दुनिया।"),
        vec!["It rained.", "नमस्ते दुनिया।"]
    );
    // The ideographic full stop needs no space after it.
    assert_eq!(
        split("今日は晴れ。明日は雨。"),
        vec!["今日は晴れ。", "明日は雨。"]
    );
    // A letter with a combining accent is still one initial.
    assert_eq!(
        split("Ana S\u{30C}. Novak came."),
        vec!["Ana S\u{30C}. Novak came."]
    );
}

#[test]
fn char_offsets_count_characters_not_bytes() {
    let text = "Café ☕. Next ünïcode.";
    let spans = sentences(text);
    assert_eq!(spans.len(), 2);
    assert_eq!(char_offsets(text, spans[0]), (0, 7));
    assert_eq!(char_offsets(text, spans[1]), (8, 21));
    // Out-of-range spans clamp instead of panicking.
    assert_eq!(
        char_offsets(
            text,
            Span {
                start: 100,
                end: 200
            }
        ),
        (21, 21)
    );
}

#[test]
fn text_without_punctuation_is_cut_into_readable_pieces() {
    use crate::text::sentences::MAX_SENTENCE_BYTES;
    // A megabyte of words with no sentence mark once became one megabyte-long sentence.
    let words = "żółw ".repeat(200_000);
    let pieces = split(&words);
    assert!(pieces.len() > 200, "{} pieces", pieces.len());
    for p in &pieces {
        assert!(p.len() <= MAX_SENTENCE_BYTES, "{} bytes", p.len());
        assert!(p.len() >= MAX_SENTENCE_BYTES / 2 - 8, "{} bytes", p.len());
        assert_eq!(p.trim(), *p);
        assert!(
            p.ends_with("żółw"),
            "cut inside a word: {:?}",
            &p[p.len() - 12..]
        );
    }
    assert_eq!(
        pieces.iter().map(|p| p.len() + 1).sum::<usize>(),
        words.len()
    );
    // No space at all: cut at a character boundary, nothing lost.
    let blob = "ü".repeat(5_000);
    let pieces = split(&blob);
    assert_eq!(pieces.concat(), blob);
    assert!(pieces.iter().all(|p| p.len() <= MAX_SENTENCE_BYTES));
    // No space and accents written as combining marks: never cut between a letter and
    // its accent.
    let accented = "e\u{301}".repeat(2_000);
    let pieces = split(&accented);
    assert_eq!(pieces.concat(), accented);
    assert!(
        pieces.iter().all(|p| p.starts_with('e')),
        "a piece starts with a bare accent"
    );
    // Ordinary long sentences are untouched.
    let long = format!("{}end.", "word ".repeat(600));
    assert_eq!(split(&long), vec![long.trim()]);
}
