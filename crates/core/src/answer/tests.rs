use super::*;

fn every_response() -> Vec<Response> {
    let mut all = vec![
        Response::Evidence {
            selection: Selection::sentences(vec![9, 4, 9]),
        },
        Response::Evidence {
            selection: Selection::Sentences(Vec::new()),
        },
        Response::Evidence {
            selection: Selection::NoEvidence,
        },
        Response::Refute {
            text: "The bridge opened in 1911.".into(),
        },
    ];
    all.extend(Verdict::ALL.map(|verdict| Response::Verify { verdict }));
    all.extend(Label::ALL.map(|label| Response::Label { label }));
    all
}

#[test]
fn every_answer_round_trips_through_its_stored_form() {
    for r in every_response() {
        let text = r.to_stored();
        assert!(text.contains("\"v\":2"), "{text}");
        // An empty selection is stored only for an answer that picked the trick.
        let picked_trick = r.selection() == Some(&Selection::Sentences(Vec::new()));
        assert_eq!(
            Response::from_stored_answer(r.kind(), &text, picked_trick),
            Ok(r)
        );
    }
}

#[test]
fn a_selection_is_kept_in_id_order_once() {
    assert_eq!(Selection::sentences(vec![9, 4, 9]).ids(), &[4, 9]);
}

#[test]
fn version_1_rows_read_as_the_writers_before_versions_left_them() {
    let read = |kind, text: &str| Response::from_stored(kind, text);
    assert_eq!(
        read(
            TaskKind::Evidence,
            r#"{"no_evidence":false,"selected":[52,4]}"#
        ),
        Ok(Response::Evidence {
            selection: Selection::Sentences(vec![4, 52])
        })
    );
    assert_eq!(
        read(TaskKind::Evidence, r#"{"no_evidence":true,"selected":[]}"#),
        Ok(Response::Evidence {
            selection: Selection::NoEvidence
        })
    );
    // An answer that picked only the trick kept no sentence.
    assert_eq!(
        Response::from_stored_answer(
            TaskKind::Evidence,
            r#"{"no_evidence":false,"selected":[]}"#,
            true
        ),
        Ok(Response::Evidence {
            selection: Selection::Sentences(Vec::new())
        })
    );
    assert_eq!(
        read(TaskKind::Refute, r#"{"text":"It rained."}"#),
        Ok(Response::Refute {
            text: "It rained.".into()
        })
    );
    assert_eq!(
        read(TaskKind::Verify, r#"{"label":"does_not_contradict"}"#),
        Ok(Response::Verify {
            verdict: Verdict::DoesNotContradict
        })
    );
    assert_eq!(
        read(TaskKind::Label, r#"{"label":"NOT ENOUGH INFO"}"#),
        Ok(Response::Label {
            label: Label::NotEnoughInfo
        })
    );
}

#[test]
fn an_unreadable_answer_is_an_error_not_a_default() {
    let bad = [
        (TaskKind::Evidence, "null"),
        (TaskKind::Evidence, "not json"),
        (TaskKind::Evidence, r#"{"selected":[1]}"#),
        (TaskKind::Evidence, r#"{"no_evidence":true,"selected":[1]}"#),
        (
            TaskKind::Evidence,
            r#"{"no_evidence":false,"selected":[],"label":"SUPPORTED"}"#,
        ),
        (
            TaskKind::Evidence,
            r#"{"selection":[1],"no_evidence":false}"#,
        ),
        (TaskKind::Refute, "{}"),
        (TaskKind::Refute, r#"{"v":2,"kind":"refute"}"#),
        (TaskKind::Refute, r#"{"txt":"hello"}"#),
        (TaskKind::Refute, r#"{"text":5}"#),
        (TaskKind::Refute, r#"{"text":""}"#),
        (TaskKind::Refute, r#"{"text":"  "}"#),
        (TaskKind::Refute, r#"{"text":"a\u0000b"}"#),
        (
            TaskKind::Evidence,
            r#"{"v":2,"kind":"evidence","selected":[],"no_evidence":false}"#,
        ),
        (
            TaskKind::Label,
            r#"{"v":0,"kind":"label","label":"SUPPORTED"}"#,
        ),
        (TaskKind::Verify, r#"{"label":"Contradicts"}"#),
        (TaskKind::Verify, r#"{"label":"SUPPORTED"}"#),
        (TaskKind::Label, r#"{"label":"maybe"}"#),
        (TaskKind::Label, r#"{"lable":"SUPPORTED"}"#),
        (
            TaskKind::Label,
            r#"{"v":3,"kind":"label","label":"SUPPORTED"}"#,
        ),
        (
            TaskKind::Label,
            r#"{"v":2,"kind":"verify","label":"SUPPORTED"}"#,
        ),
        (TaskKind::Label, r#"{"v":2,"label":"SUPPORTED"}"#),
    ];
    // Only an answer that picked the trick (never stored) may select no sentence.
    assert!(Response::from_stored_answer(
        TaskKind::Evidence,
        r#"{"v":2,"kind":"evidence","selected":[],"no_evidence":false}"#,
        true
    )
    .is_ok());
    assert!(Response::from_stored(
        TaskKind::Label,
        r#"{"v":0,"kind":"label","label":"SUPPORTED"}"#
    )
    .is_err_and(|e| e.0.contains("unknown version 0")));
    assert!(Response::from_stored(
        TaskKind::Evidence,
        r#"{"no_evidence":false,"selected":[1],"text":"x"}"#
    )
    .is_err_and(|e| e.0.starts_with("an evidence answer holds")));
    for (kind, text) in bad {
        assert!(
            Response::from_stored(kind, text).is_err(),
            "{kind} {text} was read"
        );
    }
}

#[test]
fn a_judgement_serialises_as_its_plain_spelling() {
    let j = Judgement::Verdict(Verdict::DoesNotContradict);
    assert_eq!(
        serde_json::to_string(&j).ok().as_deref(),
        Some("\"does_not_contradict\"")
    );
    let l = Judgement::Label(Label::NotEnoughInfo);
    assert_eq!(
        serde_json::to_string(&l).ok().as_deref(),
        Some("\"NOT ENOUGH INFO\"")
    );
    assert_eq!(
        serde_json::from_str::<Judgement>("\"malformed\"").ok(),
        Some(Judgement::Verdict(Verdict::Malformed))
    );
}

#[test]
fn as_json_an_answer_keeps_the_stored_keys_beside_its_kind() {
    let json = |r: &Response| serde_json::to_value(r).unwrap_or_default();
    assert_eq!(
        json(&Response::Evidence {
            selection: Selection::NoEvidence
        }),
        serde_json::json!({"kind": "evidence", "selected": [], "no_evidence": true})
    );
    assert_eq!(
        json(&Response::Verify {
            verdict: Verdict::Malformed
        }),
        serde_json::json!({"kind": "verify", "label": "malformed"})
    );
    for r in every_response() {
        assert_eq!(serde_json::from_value::<Response>(json(&r)).ok(), Some(r));
    }
    let both = serde_json::json!({"kind": "evidence", "selected": [3], "no_evidence": true});
    assert!(serde_json::from_value::<Response>(both).is_err());
}
