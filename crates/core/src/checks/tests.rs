use super::*;

const ORIGINAL: &str = "Hydroxychloroquine fails to prevent covid-19";

fn run(original: &str, written: &str) -> Vec<CheckResult> {
    check_refutation(original, written, &CheckSettings::default())
}

fn failing(original: &str, written: &str) -> Vec<CheckKind> {
    run(original, written)
        .into_iter()
        .filter(|r| !r.passed)
        .map(|r| r.kind)
        .collect()
}

fn message(results: &[CheckResult], kind: CheckKind) -> &str {
    results
        .iter()
        .find(|r| r.kind == kind)
        .map_or("", |r| r.message.as_str())
}

#[test]
fn a_real_refutation_passes_every_check() {
    let results = run(
        ORIGINAL,
        "Hydroxychloroquine succeeds in preventing covid-19",
    );
    assert_eq!(results.len(), 5);
    assert!(results.iter().all(|r| r.passed), "{results:?}");
    assert_eq!(blocking(&results), None);
}

#[test]
fn results_come_in_enum_order() {
    let kinds: Vec<CheckKind> = run(ORIGINAL, "x").into_iter().map(|r| r.kind).collect();
    assert_eq!(
        kinds,
        [
            CheckKind::Empty,
            CheckKind::Identical,
            CheckKind::Length,
            CheckKind::NegationOnly,
            CheckKind::Subject
        ]
    );
}

#[test]
fn inserting_a_negation_fails() {
    assert_eq!(
        failing(
            ORIGINAL,
            "Hydroxychloroquine does not fail to prevent covid-19"
        ),
        [CheckKind::NegationOnly]
    );
    let results = run("The vaccine is effective", "The vaccine isn't effective");
    assert_eq!(
        blocking(&results).map(|r| r.kind),
        Some(CheckKind::NegationOnly)
    );
    assert_eq!(
        message(&results, CheckKind::NegationOnly),
        "Only a negation was added; change the facts instead (e.g. a number, a name, a place)"
    );
    assert_eq!(
        failing(
            ORIGINAL,
            "It is not true that hydroxychloroquine fails to prevent covid-19"
        ),
        // Five words longer, so Length fails as well.
        [CheckKind::Length, CheckKind::NegationOnly]
    );
}

#[test]
fn auxiliary_negation_fails_the_negation_only_check() {
    // COVID-Fact's headline grammar: the auxiliary comes in with the negation.
    let original = "Fewer coronavirus deaths seen in countries that mandate tuberculosis vaccine";
    for written in [
        "Fewer coronavirus deaths are not seen in countries that mandate tuberculosis vaccine",
        "Fewer coronavirus deaths were never seen in countries that mandate tuberculosis vaccine",
        "Fewer coronavirus deaths aren't seen in countries that mandate tuberculosis vaccine",
    ] {
        assert!(
            failing(original, written).contains(&CheckKind::NegationOnly),
            "{written}"
        );
    }
    for (original, written) in [
        ("The vaccine is effective", "The vaccine is not effective"),
        ("The vaccine effective", "The vaccine is not effective"),
        (
            "The vaccine is effective",
            "The vaccine is no longer effective",
        ),
        ("Masks work", "Masks no longer work"),
        ("Masks work", "Masks never work"),
        ("There is a cure", "There is no cure"),
    ] {
        assert_eq!(
            failing(original, written),
            [CheckKind::NegationOnly],
            "{original} -> {written}"
        );
    }
}

#[test]
fn removing_a_negation_is_named_as_removal() {
    let results = run(
        "Fewer coronavirus deaths are not seen in countries that mandate tuberculosis vaccine",
        "Fewer coronavirus deaths seen in countries that mandate tuberculosis vaccine",
    );
    assert_eq!(
        message(&results, CheckKind::NegationOnly),
        "Only a negation was removed; change the facts instead (e.g. a number, a name, a place)"
    );
    let results = run(
        "The vaccine is no longer effective",
        "The vaccine is effective",
    );
    assert_eq!(
        message(&results, CheckKind::NegationOnly),
        "Only a negation was removed; change the facts instead (e.g. a number, a name, a place)"
    );
    let results = run("Masks do not work", "Masks never work");
    assert_eq!(
        message(&results, CheckKind::NegationOnly),
        "Only the negation changed; change the facts instead (e.g. a number, a name, a place)"
    );
}

#[test]
fn a_fact_change_next_to_an_auxiliary_still_passes() {
    for (original, written) in [
        (
            "Fewer coronavirus deaths seen in countries that mandate tuberculosis vaccine",
            "More coronavirus deaths are seen in countries that mandate tuberculosis vaccine",
        ),
        ("The vaccine is effective", "The vaccine was never tested"),
        ("Deaths are seen in Spain", "Deaths are not seen in Italy"),
    ] {
        assert!(
            failing(original, written).is_empty(),
            "{original} -> {written}"
        );
    }
}

#[test]
fn a_word_change_with_or_without_negation_passes() {
    assert!(failing("The vaccine is effective", "The vaccine is ineffective").is_empty());
    assert!(failing(
        ORIGINAL,
        "Hydroxychloroquine does not fail to prevent malaria"
    )
    .is_empty());
    assert!(failing(
        "Masks reduce covid transmission by 80%",
        "Masks don't reduce covid transmission by 10%"
    )
    .is_empty());
}

#[test]
fn swapping_the_subject_fails() {
    let results = run(ORIGINAL, "Remdesivir fails to prevent covid-19");
    assert_eq!(blocking(&results).map(|r| r.kind), Some(CheckKind::Subject));
    assert_eq!(
        message(&results, CheckKind::Subject),
        "The subject is missing: keep \"Hydroxychloroquine\" from the original"
    );
    assert_eq!(
        failing("The new vaccine is effective", "The old drug is effective"),
        [CheckKind::Subject]
    );
}

#[test]
fn the_subject_survives_plurals_possessives_and_number_changes() {
    assert!(failing(
        "Covid vaccines cause infertility",
        "A covid vaccine prevents infertility"
    )
    .is_empty());
    assert!(failing(
        "The vaccine causes autism",
        "The vaccine's makers deny autism"
    )
    .is_empty());
    assert!(failing(
        "Over 50% of Americans are vaccinated",
        "Over 20% of Americans are vaccinated"
    )
    .is_empty());
}

#[test]
fn empty_text_fails_empty_first() {
    for written in ["", "   ", "?!"] {
        let results = run(ORIGINAL, written);
        assert_eq!(blocking(&results).map(|r| r.kind), Some(CheckKind::Empty));
        assert_eq!(message(&results, CheckKind::Empty), "Write a claim");
        // An empty claim is not a copy; nor is it "more than a negation" (issue 36: a
        // tick there contradicted the other checks).
        assert!(!failing(ORIGINAL, written).contains(&CheckKind::Identical));
        assert!(failing(ORIGINAL, written).contains(&CheckKind::NegationOnly));
    }
}

#[test]
fn case_and_punctuation_edits_are_identical() {
    // The identical check blocks; the negation check says nothing changed yet rather than
    // ticking "more than a negation changed" (issue 36).
    for same in ["hydroxychloroquine fails to prevent COVID-19!", ORIGINAL] {
        assert_eq!(
            failing(ORIGINAL, same),
            [CheckKind::Identical, CheckKind::NegationOnly]
        );
        let results = run(ORIGINAL, same);
        assert_eq!(
            blocking(&results).map(|r| r.kind),
            Some(CheckKind::Identical)
        );
        assert!(message(&results, CheckKind::NegationOnly).starts_with("Nothing changed yet"));
    }
}

#[test]
fn length_is_limited_with_a_clear_message() {
    let long = "Hydroxychloroquine taken daily for many weeks by healthy adults \
                fails to prevent covid-19 infection in nearly every large controlled trial";
    assert_eq!(crate::text::token_count(long), 20);
    let results = run(ORIGINAL, long);
    assert_eq!(failing(ORIGINAL, long), [CheckKind::Length]);
    assert_eq!(
        message(&results, CheckKind::Length),
        "20 words; the original has 5: stay within 2"
    );
    let twelve = "The first large trial showed that the vaccine was safe and effective";
    let seven = "The trial showed the vaccine was unsafe";
    assert_eq!(
        message(&run(twelve, seven), CheckKind::Length),
        "7 words; the original has 12: stay within 2"
    );
    // Two words longer is still fine.
    assert!(failing(
        ORIGINAL,
        "Hydroxychloroquine fails to prevent covid-19 in adults"
    )
    .is_empty());
}

#[test]
fn settings_drop_disabled_checks_and_set_the_length_limit() {
    let settings = CheckSettings {
        negation_only: false,
        subject: false,
        ..CheckSettings::default()
    };
    let results = check_refutation(
        ORIGINAL,
        "Hydroxychloroquine does not fail to prevent covid-19",
        &settings,
    );
    let kinds: Vec<CheckKind> = results.iter().map(|r| r.kind).collect();
    assert_eq!(
        kinds,
        [CheckKind::Empty, CheckKind::Identical, CheckKind::Length]
    );
    assert_eq!(blocking(&results), None);

    let strict = CheckSettings {
        max_length_difference: 0,
        ..CheckSettings::default()
    };
    let results = check_refutation(
        ORIGINAL,
        "Hydroxychloroquine cannot prevent covid-19 or flu",
        &strict,
    );
    assert_eq!(blocking(&results).map(|r| r.kind), Some(CheckKind::Length));

    let none = CheckSettings {
        empty: false,
        identical: false,
        length: false,
        negation_only: false,
        subject: false,
        max_length_difference: 2,
    };
    assert!(check_refutation(ORIGINAL, "", &none).is_empty());
}

#[test]
fn serialises_for_ipc() -> Result<(), serde_json::Error> {
    let results = run(ORIGINAL, "");
    let json = serde_json::to_value(&results[0])?;
    assert_eq!(
        json,
        serde_json::json!({"kind": "empty", "passed": false, "message": "Write a claim"})
    );
    assert_eq!(
        serde_json::to_value(CheckKind::NegationOnly)?,
        serde_json::json!("negation_only")
    );
    let settings: CheckSettings = serde_json::from_str(r#"{"subject": false}"#)?;
    assert_eq!(
        settings,
        CheckSettings {
            subject: false,
            ..CheckSettings::default()
        }
    );
    let back: CheckSettings = serde_json::from_value(serde_json::to_value(settings)?)?;
    assert_eq!(back, settings);
    Ok(())
}

/// What ten thousand checks cost is measured by `cargo bench -p factdesk-core --bench
/// checks` (a timed assertion here failed on a busy machine); this keeps what the loop
/// checked besides the time: the same pair always gets the same verdict, and the pairs
/// that should block do.
#[test]
fn repeated_checks_give_each_pair_the_same_verdict_every_time() {
    let pairs = [
        (
            ORIGINAL,
            "Hydroxychloroquine succeeds in preventing covid-19",
            false,
        ),
        (
            "The vaccine is effective",
            "The vaccine isn't effective",
            true,
        ),
        (
            "Covid vaccines cause infertility in young women",
            "Covid vaccines prevent infertility in young women",
            false,
        ),
        (
            "It is not true that 5G towers spread the coronavirus",
            "5G towers spread the flu",
            true,
        ),
    ];
    let mut failures = 0;
    for i in 0..1_000 {
        let (original, written, blocks) = pairs[i % pairs.len()];
        let results = check_refutation(original, written, &CheckSettings::default());
        let blocked = blocking(&results).is_some();
        assert_eq!(blocked, blocks, "{written:?}: {results:?}");
        failures += usize::from(blocked);
    }
    let blocking_pairs = pairs.iter().filter(|p| p.2).count();
    assert!(blocking_pairs > 0);
    assert_eq!(failures, 1_000 / pairs.len() * blocking_pairs);
}

#[test]
fn same_words_key_ignores_case_spacing_and_punctuation_as_the_identical_check_does() {
    let edited = "hydroxychloroquine   fails to prevent COVID-19!";
    assert_eq!(same_words_key(ORIGINAL), same_words_key(edited));
    assert_ne!(
        same_words_key(ORIGINAL),
        same_words_key("Hydroxychloroquine helps to prevent COVID-19")
    );
}

#[test]
fn a_copy_with_invisible_or_look_alike_characters_is_identical() {
    let original = "The Harrowmouth lighthouse tower was first lit in October 1861.";
    let settings = CheckSettings::default();
    for copy in [
        "The Harrowmouth lighthouse towe\u{200b}r was first lit in October 1861.",
        "The Harrowmouth lighthouse tower was first lit in Octo\u{ad}ber 1861.",
        "The Harrоwmouth lighthouse tower was first lit in October 1861.",
        "The Harrowmouth lighthouse tower was first lit in October \u{ff11}\u{ff18}\u{ff16}\u{ff11}.",
    ] {
        let identical = check_refutation(original, copy, &settings)
            .into_iter()
            .find(|r| r.kind == CheckKind::Identical)
            .map(|r| r.passed);
        assert_eq!(identical, Some(false), "{copy:?}");
        assert_eq!(same_words_key(copy), same_words_key(original), "{copy:?}");
    }
}
