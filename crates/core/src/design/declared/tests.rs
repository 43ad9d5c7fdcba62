use super::*;
use crate::design::Shows;

fn q(id: &str, kind: QuestionType, labels: Option<&[&str]>) -> Question {
    Question {
        id: id.into(),
        kind,
        labels: labels.map(|l| l.iter().map(|s| s.to_string()).collect()),
        required: true,
        over: (kind == QuestionType::Span).then_some(SpanOver::TextA),
        guideline: None,
        ordered: false,
    }
}

fn design(questions: Vec<Question>) -> Design {
    Design {
        name: "mine".into(),
        shows: Shows::Pair,
        questions,
    }
}

fn relation() -> Design {
    design(vec![
        q(
            "relation",
            QuestionType::Choice,
            Some(&["entailment", "contradiction", "unknown"]),
        ),
        q("topics", QuestionType::Multi, Some(&["health", "politics"])),
        q("salient", QuestionType::Span, None),
    ])
}

#[test]
fn a_design_that_cannot_be_answered_is_refused_by_question() {
    assert_eq!(problem(&relation()), None);
    let cases = [
        (design(vec![]), "asks no question"),
        (
            design(vec![q("Bad Id", QuestionType::Text, None)]),
            "\"Bad Id\"",
        ),
        (
            design(vec![q("comment", QuestionType::Text, None)]),
            "the comment",
        ),
        (
            design(vec![
                q("a", QuestionType::Text, None),
                q("a", QuestionType::Text, None),
            ]),
            "declared twice",
        ),
        (
            design(vec![q("a", QuestionType::Choice, Some(&["yes"]))]),
            "2 to 50 labels",
        ),
        (
            design(vec![q("a", QuestionType::Choice, Some(&["yes", "Yes"]))]),
            "listed twice",
        ),
        (
            design(vec![q("a", QuestionType::Choice, Some(&["yes", " no"]))]),
            "surrounding spaces",
        ),
        (
            design(vec![q("a", QuestionType::Text, Some(&["x"]))]),
            "takes no labels",
        ),
        (
            design(vec![Question {
                over: None,
                ..q("a", QuestionType::Span, None)
            }]),
            "needs \"over\"",
        ),
        (
            design(vec![Question {
                ordered: true,
                ..q("a", QuestionType::Multi, Some(&["x"]))
            }]),
            "can be ordered",
        ),
    ];
    for (d, wanted) in cases {
        let found = problem(&d).unwrap_or_default();
        assert!(found.contains(wanted), "{wanted:?} not in {found:?}");
    }
}

#[test]
fn an_answer_is_kept_as_the_design_spells_it_and_refused_when_it_does_not_fit() {
    let texts = Texts {
        text_a: "The vaccine works.",
        text_b: Some("It does not."),
    };
    let given: BTreeMap<String, Given> = [
        ("relation".to_string(), Given::One("Contradiction".into())),
        (
            "topics".to_string(),
            Given::Many(vec!["politics".into(), "HEALTH".into()]),
        ),
        (
            "salient".to_string(),
            Given::Spans {
                spans: vec![[8, 12], [4, 10]],
            },
        ),
    ]
    .into();
    let kept = check(&relation(), texts, &given).unwrap_or_default();
    assert_eq!(kept["relation"], Given::One("contradiction".into()));
    assert_eq!(
        kept["topics"],
        Given::Many(vec!["health".into(), "politics".into()])
    );
    assert_eq!(
        kept["salient"],
        Given::Spans {
            spans: vec![[4, 12]]
        }
    );

    let refused = |pairs: &[(&str, Given)]| {
        let mut g = given.clone();
        for (k, v) in pairs {
            g.insert(k.to_string(), v.clone());
        }
        check(&relation(), texts, &g).err().unwrap_or_default()
    };
    assert!(refused(&[("relation", Given::One("maybe".into()))]).contains("no label \"maybe\""));
    assert!(refused(&[("relation", Given::Many(vec![]))]).contains("takes one label"));
    assert!(refused(&[("other", Given::One("x".into()))]).contains("asks no question \"other\""));
    assert!(refused(&[(
        "salient",
        Given::Spans {
            spans: vec![[3, 3]]
        }
    )])
    .contains("start < end"));
    assert!(refused(&[(
        "salient",
        Given::Spans {
            spans: vec![[0, 19]]
        }
    )])
    .contains("18 characters"));
    let mut missing = given.clone();
    missing.remove("topics");
    assert!(check(&relation(), texts, &missing)
        .err()
        .unwrap_or_default()
        .contains("\"topics\" is not answered"));
}

#[test]
fn spans_compare_by_the_tokens_they_touch() {
    let text = "Masks cut spread by 50%.";
    let t = tokens(text);
    assert_eq!(t, vec![[0, 5], [6, 9], [10, 16], [17, 19], [20, 22]]);
    // "ut spr" touches "cut" and "spread".
    let m = marked(&t, &[[7, 13]]);
    assert_eq!(m, vec![false, true, true, false, false]);
    assert_eq!(spans_of(&t, &m), vec![[6, 16]]);
    assert_eq!(
        spans_of(&t, &[true, false, false, true, true]),
        vec![[0, 5], [17, 22]]
    );
    // Offsets count characters, not bytes; words are the shared tokenizer's.
    assert_eq!(tokens("é a"), vec![[0, 1], [2, 3]]);
    assert_eq!(
        tokens("don't stop SARS-CoV-2 at 3,000"),
        vec![[0, 5], [6, 10], [11, 21], [22, 24], [25, 30]]
    );
    // An accent written as its own character stays with its letter.
    assert_eq!(tokens("nai\u{308}ve 🦠 x"), vec![[0, 6], [9, 10]]);
}

#[test]
fn only_the_questions_shape_decides_whether_a_design_changed() {
    let a = relation();
    let mut b = relation();
    b.questions[0].guideline = Some("Read both.".into());
    b.name = "renamed".into();
    assert!(same_questions(&a, &b));
    b.questions[0].labels = Some(vec!["entailment".into(), "contradiction".into()]);
    assert!(!same_questions(&a, &b));
}
