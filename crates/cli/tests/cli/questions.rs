//! The item's questions as scripts read them: `next --json` prints each item's design
//! (`shows`, `questions`), and `submit` takes answers keyed by question id beside the
//! field shapes, refusing a question the design lacks with the question named.

use super::{demo_project, ok, try_submit};
use serde_json::{json, Value};
use std::path::Path;

fn next(p: &Path, who: &str, kind: &str) -> Value {
    let out = ok([
        "next",
        &p.display().to_string(),
        "--as",
        who,
        "--kind",
        kind,
        "--json",
    ]);
    let next: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
    next["item"].clone()
}

/// `submit` fed `lines`: whether it succeeded, and each line it printed.
fn submit(p: &Path, who: &str, lines: &[Value]) -> (bool, Vec<Value>) {
    let (fine, printed) = try_submit(p, who, lines);
    let printed = printed
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    (fine, printed)
}

#[test]
fn next_prints_the_questions_and_submit_takes_answers_by_question() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = demo_project(dir.path(), "q.fdesk", &["ana", "ben"]);

    let item = next(&p, "ana", "evidence");
    let ids: Vec<Value> = item["options"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|o| o["id"].clone())
        .collect();
    assert!(ids.len() > 1, "{item}");
    assert_eq!(item["shows"], "claim_with_candidates");
    assert_eq!(
        item["questions"],
        json!([
            {"id": "evidence", "type": "multi", "labels": ids, "required": true},
            {"id": "comment", "type": "text", "required": false}
        ])
    );
    let task = item["task_id"].clone();

    // A question the design lacks, or the wrong shape: refused by name, nothing stored.
    let (fine, said) = submit(
        &p,
        "ana",
        &[
            json!({"task_id": task, "answers": {"label": "REFUTED"}}),
            json!({"task_id": task, "answers": {"evidence": ids[0]}}),
        ],
    );
    assert!(!fine);
    let message = |i: usize| {
        said[i]["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    assert!(
        message(0).contains("asks no question \"label\""),
        "{said:?}"
    );
    assert!(message(1).contains("takes a list of labels"), "{said:?}");
    assert!(next(&p, "ana", "evidence")["previous"].is_null());

    let (fine, said) = submit(
        &p,
        "ana",
        &[json!({"task_id": task, "answers": {"evidence": [ids[1]], "comment": "by question"}})],
    );
    assert!(fine, "{said:?}");
    assert_eq!(said[0]["task_id"], task);
    // Stored as the field shape always was: served back as her previous answer.
    let again = next(&p, "ana", "evidence");
    if again["task_id"] == task {
        assert_eq!(again["previous"]["selected"], json!([ids[1]]));
        assert_eq!(again["previous"]["comment"], "by question");
    }
    // None chosen is "no evidence"; the field shape keeps working beside it.
    let bens = next(&p, "ben", "evidence");
    let (fine, said) = submit(
        &p,
        "ben",
        &[json!({"task_id": bens["task_id"], "answers": {"evidence": []}})],
    );
    assert!(fine, "{said:?}");
    let third = next(&p, "ben", "evidence");
    let (fine, said) = submit(
        &p,
        "ben",
        &[json!({"task_id": third["task_id"], "no_evidence": true})],
    );
    assert!(fine, "{said:?}");
    let out = dir.path().join("answers.jsonl");
    ok([
        "answers",
        &p.display().to_string(),
        "--out",
        &out.display().to_string(),
    ]);
    let text = std::fs::read_to_string(&out).unwrap_or_else(|e| panic!("{e}"));
    assert!(text.contains("by question"), "{text}");

    // A label item asks for one of the four labels.
    ok(["tasks", &p.display().to_string(), "--kind", "label"]);
    let label = next(&p, "ana", "label");
    assert_eq!(label["shows"], "claim_with_evidence");
    assert_eq!(
        label["questions"][0],
        json!({"id": "label", "type": "choice", "labels": ["SUPPORTED", "REFUTED", "NOT ENOUGH INFO", "FAILED"], "required": true})
    );
    let (fine, said) = submit(
        &p,
        "ana",
        &[json!({"task_id": label["task_id"], "answers": {"label": "REFUTED"}})],
    );
    assert!(fine, "{said:?}");
    let (fine, said) = submit(
        &p,
        "ana",
        &[json!({"task_id": label["task_id"], "answers": {"comment": "forgot the label"}})],
    );
    assert!(!fine);
    let message = said[0]["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("\"label\" is not answered"), "{message}");
}
