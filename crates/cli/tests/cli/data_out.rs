//! Data out from the command line (issue 17): `answers` in each format and its --force
//! rule, `export --format hf`, and `predictions import`/`compare`, on the demo project
//! answered by two annotators through `next`/`submit`.

use crate::{demo_project, factdesk, ok, stderr, submit};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn json(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON: {e}"))
}

/// The demo with ana and ben answering every evidence item with its first sentence that
/// is not the trick (the demo's stance is the default, so the trick is a real sentence
/// from elsewhere: both pick the first option, trick or not, and agree).
fn answered(dir: &Path) -> PathBuf {
    let p = demo_project(dir, "demo.fdesk", &["ana", "ben"]);
    for who in ["ana", "ben"] {
        loop {
            let out = ok([
                Path::new("next"),
                &p,
                Path::new("--as"),
                Path::new(who),
                Path::new("--json"),
            ]);
            let item = json(&out)["item"].clone();
            if item.is_null() {
                break;
            }
            let first = item["options"][0]["id"].clone();
            submit(
                &p,
                who,
                &[
                    serde_json::json!({"task_id": item["task_id"], "selected": [first], "comment": "a, b\n\"c\""}),
                ],
            );
        }
    }
    p
}

#[test]
fn answers_hf_and_predictions_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = answered(dir.path());
    let csv = dir.path().join("answers.csv");
    let out = ok([
        Path::new("answers"),
        &p,
        Path::new("--out"),
        &csv,
        Path::new("--json"),
    ]);
    let report = json(&out);
    assert_eq!(report["format"], "csv");
    assert_eq!(report["rows"], 60, "{report}");
    let text = std::fs::read_to_string(&csv).unwrap_or_else(|e| panic!("{e}"));
    assert!(text.starts_with("answer_id,answer_uuid,task_id,task_kind,"));
    assert_eq!(text.matches("\"a, b\n\"\"c\"\"\"").count(), 60);

    let again = factdesk([Path::new("answers"), &p, Path::new("--out"), &csv]);
    assert!(!again.status.success());
    assert!(stderr(&again).contains("--force"), "{}", stderr(&again));
    ok([
        Path::new("answers"),
        &p,
        Path::new("--out"),
        &csv,
        Path::new("--force"),
    ]);
    let pq = dir.path().join("answers.bin");
    let out = ok([
        Path::new("answers"),
        &p,
        Path::new("--out"),
        &pq,
        Path::new("--format"),
        Path::new("parquet"),
    ]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("(parquet)"));
    let bytes = std::fs::read(&pq).unwrap_or_else(|e| panic!("{e}"));
    assert!(bytes.starts_with(b"PAR1") && bytes.ends_with(b"PAR1"));
    let refused = factdesk([
        Path::new("answers"),
        &p,
        Path::new("--as"),
        Path::new("ana"),
        Path::new("--out"),
        &dir.path().join("ana.csv"),
    ]);
    assert!(!refused.status.success());
    assert!(!dir.path().join("ana.csv").exists());

    let hf = dir.path().join("hf");
    let out = ok([
        Path::new("export"),
        &p,
        Path::new("--format"),
        Path::new("hf"),
        Path::new("--out"),
        &hf,
        Path::new("--license"),
        Path::new("cc-by-4.0"),
        Path::new("--json"),
    ]);
    let report = json(&out);
    let splits = report["splits"].as_array().cloned().unwrap_or_default();
    assert!(!splits.is_empty(), "{report}");
    for s in &splits {
        let name = s[0].as_str().unwrap_or_default();
        assert!(hf.join("data").join(format!("{name}.parquet")).is_file());
    }
    let card = std::fs::read_to_string(hf.join("README.md")).unwrap_or_else(|e| panic!("{e}"));
    assert!(card.contains("license: cc-by-4.0"));
    let misplaced = factdesk([
        Path::new("export"),
        &p,
        Path::new("--out"),
        &dir.path().join("gold.jsonl"),
        Path::new("--license"),
        Path::new("mit"),
    ]);
    assert!(!misplaced.status.success());
    assert!(!dir.path().join("gold.jsonl").exists());

    let preds = dir.path().join("preds.jsonl");
    std::fs::write(
        &preds,
        "{\"claim_id\": \"demo-001\", \"prediction\": \"SUPPORTS\"}\n{\"claim_id\": \"demo-002\", \"refuted\": \"The restored Harrowmouth lighthouse drew more visitors than expected.\"}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = ok([
        Path::new("predictions"),
        &p,
        Path::new("import"),
        &preds,
        Path::new("--model"),
        Path::new("nli-x"),
        Path::new("--json"),
    ]);
    let r = json(&out);
    assert_eq!(
        (r["labels"].as_u64(), r["counter_claims"].as_u64()),
        (Some(1), Some(1))
    );
    let after = json(&ok([
        Path::new("answers"),
        &p,
        Path::new("--out"),
        &dir.path().join("after.jsonl"),
        Path::new("--json"),
    ]));
    assert_eq!(after["rows"], 60, "predictions are no answers");
    let c = json(&ok([
        Path::new("predictions"),
        &p,
        Path::new("compare"),
        Path::new("--json"),
    ]));
    assert_eq!(c["models"][0]["model"], "nli-x");
    assert_eq!(c["models"][0]["labels"]["predicted"], 1);
    assert_eq!(c["models"][0]["counter_claims"]["written"], 1);
}
