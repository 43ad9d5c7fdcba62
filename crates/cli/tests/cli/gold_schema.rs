//! The gold file checked against docs/gold.schema.json with the Rust `jsonschema` crate,
//! so the schema check runs without Python: every exported line of an answered demo
//! project validates, and lines that break the format are rejected.

use crate::{demo_project, ok, submit};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn s<T: AsRef<std::ffi::OsStr> + ?Sized>(x: &T) -> &std::ffi::OsStr {
    x.as_ref()
}

/// The demo project, two annotators, every evidence item answered through the CLI.
fn answered_demo(dir: &Path) -> PathBuf {
    let p = demo_project(dir, "demo.fdesk", &["ana", "ben"]);
    for who in ["ana", "ben"] {
        loop {
            let out = ok([
                s("next"),
                s(&p),
                s("--as"),
                s(who),
                s("--kind"),
                s("evidence"),
                s("--json"),
            ]);
            let next: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
            let item = &next["item"];
            if item.is_null() {
                break;
            }
            // Both take the last option shown: the same sentence unless it is the trick.
            let last = item["options"]
                .as_array()
                .and_then(|o| o.last())
                .map(|o| o["id"].clone())
                .unwrap_or(Value::Null);
            let line = json!({"task_id": item["task_id"], "selected": [last]});
            assert!(submit(&p, who, &[line]).contains("\"ack\""));
        }
    }
    p
}

/// A way to break a valid line, and what it breaks.
type Breakage = (&'static str, fn(&mut Value));

pub(crate) fn validator() -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/gold.schema.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
    let schema: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("docs/gold.schema.json: {e}"))
}

#[test]
fn exported_lines_validate_with_the_rust_jsonschema_crate_and_broken_ones_do_not() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = answered_demo(dir.path());
    let out = dir.path().join("gold.jsonl");
    // Taking the last option picks some tricks and flags both: count them anyway, as
    // a claim resting on no counted answer is no gold line.
    ok([
        s("export"),
        s(&p),
        s("--out"),
        s(&out),
        s("--include-flagged"),
    ]);
    let text = std::fs::read_to_string(&out).unwrap_or_else(|e| panic!("{e}"));
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert!(!lines.is_empty(), "nothing exported");
    let schema = validator();
    for line in &lines {
        let errors: Vec<String> = schema.iter_errors(line).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{line}: {errors:?}");
    }

    // A line exported with --include-under-annotated carries the mark, and validates.
    let mut marked = lines[0].clone();
    marked["agreement"]["under_annotated"] = json!(true);
    let errors: Vec<String> = schema.iter_errors(&marked).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{marked}: {errors:?}");

    let breakages: [Breakage; 6] = [
        ("unknown label", |l| l["label"] = json!("MAYBE")),
        ("no evidence field", |l| {
            l.as_object_mut().map(|o| o.remove("evidence"));
        }),
        ("evidence without a document", |l| {
            l["evidence"] = json!([{"sentence_index": 0, "text": "x"}])
        }),
        ("share above one", |l| {
            l["agreement"]["share_agreeing"] = json!(1.5)
        }),
        ("under_annotated: false", |l| {
            l["agreement"]["under_annotated"] = json!(false)
        }),
        ("lead decision without its lead", |l| {
            l["provenance"] = json!({"method": "lead-decision", "lead": null, "at": null,
                                     "reason": null, "taken_from": null})
        }),
    ];
    for (what, break_it) in breakages {
        let mut line = lines[0].clone();
        break_it(&mut line);
        assert!(
            !schema.is_valid(&line),
            "the schema accepts a line with {what}"
        );
    }
}
