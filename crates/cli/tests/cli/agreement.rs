//! `factdesk agreement` reproduces the published worked examples by the metric names it
//! prints, and scores a project's answers like the same answers in a records file.

use crate::{data, ok};
use serde_json::Value;
use std::path::Path;

#[test]
fn published_examples_come_out_of_the_cli_by_name() {
    let text = std::fs::read_to_string(data("agreement/published.jsonl")).unwrap_or_default();
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut checked = 0;
    let mut failures = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}"));
        let metric = case["metric"].as_str().unwrap_or_default();
        let records = dir.path().join("records.jsonl");
        let rows: Vec<String> = case["input"]
            .as_array()
            .into_iter()
            .flatten()
            .map(Value::to_string)
            .collect();
        std::fs::write(&records, rows.join("\n")).unwrap_or_else(|e| panic!("{e}"));
        let mut args: Vec<String> = vec![
            "agreement".into(),
            records.display().to_string(),
            "--json".into(),
            "--bootstrap".into(),
            "0".into(),
        ];
        for (flag, key) in [
            ("--categories", "categories"),
            ("--candidates", "candidates"),
        ] {
            if let Some(list) = case["params"][key].as_array() {
                let joined: Vec<String> = list
                    .iter()
                    .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                    .collect();
                args.push(flag.into());
                args.push(joined.join(","));
            }
        }
        let out = ok(&args);
        let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
        let got = &report["metrics"][metric]["value"];
        let tolerance = case["tolerance"].as_f64().unwrap_or(1e-9);
        let good = match (case["expected"].as_f64(), got.as_f64()) {
            (Some(e), Some(g)) => (e - g).abs() <= tolerance,
            (None, None) => case["expected"].is_null() && got.is_null(),
            _ => false,
        };
        if !good {
            failures.push(format!(
                "{}: expected {} got {}",
                case["name"], case["expected"], got
            ));
        }
        checked += 1;
    }
    assert_eq!(checked, 37, "every published case, MASI included");
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn a_records_file_in_csv_gives_the_same_as_jsonl() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let csv = dir.path().join("r.csv");
    let jsonl = dir.path().join("r.jsonl");
    let rows = [
        ("u1", "a", "yes"),
        ("u1", "b", "yes"),
        ("u2", "a", "no"),
        ("u2", "b", "yes"),
        ("u3", "a", "no"),
        ("u3", "b", "no"),
    ];
    let mut c = String::from("item,annotator,label\n");
    let mut j = String::new();
    for (i, a, l) in rows {
        c.push_str(&format!("{i},{a},{l}\n"));
        j.push_str(&format!(
            "{}\n",
            serde_json::json!({"item": i, "annotator": a, "label": l})
        ));
    }
    std::fs::write(&csv, c).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(&jsonl, j).unwrap_or_else(|e| panic!("{e}"));
    let run = |p: &Path| -> Value {
        let out = ok([
            Path::new("agreement"),
            p,
            Path::new("--json"),
            Path::new("--bootstrap"),
            Path::new("0"),
        ]);
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"))
    };
    let (a, b) = (run(&csv), run(&jsonl));
    assert_eq!(a, b);
    // Cohen: po = 2/3, pe = 1/3·2/3 + 2/3·1/3 = 4/9 -> kappa = (2/9)/(5/9) = 0.4.
    let kappa = a["metrics"]["cohen_kappa"]["value"]
        .as_f64()
        .unwrap_or(f64::NAN);
    assert!((kappa - 0.4).abs() < 1e-12, "{a}");
    assert_eq!(a["cohen_kappa_pairs"][0]["units"], 3);
}

fn json(args: &[&str]) -> Value {
    let out = ok(args);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"))
}

/// A lead draws a study from the command line; its members are served the sample; the
/// study and its figures show in `factdesk study --json`, in `agreement --json` and in the
/// report, beside alpha with MASI distance for evidence.
#[test]
fn a_study_is_drawn_listed_and_reported_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = crate::demo_project(dir.path(), "p.fdesk", &["ana", "ben", "caro", "dan"]);
    let project = p.display().to_string();
    ok(["annotators", &project, "add", "maria", "--role", "lead"]);
    let study = json(&[
        "study", &project, "--kind", "evidence", "--sample", "2", "--group", "caro,dan", "--seed",
        "5", "--json",
    ]);
    let items: Vec<i64> = study["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_i64)
        .collect();
    assert_eq!(items.len(), 2, "{study}");
    assert_eq!(study["members"], serde_json::json!(["caro", "dan"]));
    assert_eq!(study["lead"], "maria");
    // A member is served the sample first.
    let next = json(&[
        "next", &project, "--as", "caro", "--kind", "evidence", "--json",
    ]);
    let task = next["item"]["task_id"].as_i64().unwrap_or_default();
    assert!(
        items.contains(&task),
        "caro was served task {task}, not {items:?}"
    );
    // Ana and Ben answer everything they are served; Caro answers one sampled item.
    for (who, limit) in [("ana", usize::MAX), ("ben", usize::MAX), ("caro", 1)] {
        for _ in 0..limit {
            let next = json(&[
                "next", &project, "--as", who, "--kind", "evidence", "--json",
            ]);
            let Some(served) = next["item"]["task_id"].as_i64() else {
                break;
            };
            crate::submit(
                &p,
                who,
                // "No evidence" never picks the trick, whatever it looks like.
                &[serde_json::json!({"task_id": served, "no_evidence": true})],
            );
        }
    }
    let listed = json(&["study", &project, "--json", "--bootstrap", "0"]);
    let first = &listed[0];
    assert_eq!(first["study"]["id"], study["id"]);
    assert_eq!(first["group_a"], serde_json::json!(["ana", "ben"]));
    assert_eq!(first["items_answered"], 1);
    assert_eq!(
        first["majority_kappa"]["metric"],
        "group_majority_cohen_kappa"
    );
    let agreement = json(&[
        "agreement",
        &project,
        "--kind",
        "evidence",
        "--json",
        "--bootstrap",
        "0",
    ]);
    assert_eq!(agreement["studies"][0], *first);
    assert!(
        agreement["metrics"]["setsel_masi_krippendorff_alpha"].is_object(),
        "{agreement}"
    );
    let report_json = dir.path().join("report.json");
    ok([
        "report",
        &project,
        "--out",
        &dir.path().join("report.html").display().to_string(),
        "--json",
        &report_json.display().to_string(),
        "--bootstrap",
        "0",
    ]);
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(&report_json).unwrap_or_else(|e| panic!("{e}")),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let evidence = report["agreement"]["kinds"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|k| k["kind"] == "evidence")
        .cloned()
        .unwrap_or(Value::Null);
    assert_eq!(evidence["masi"]["metric"], "setsel_masi_krippendorff_alpha");
    for field in ["value", "reason"] {
        assert_eq!(
            evidence["masi"][field],
            agreement["metrics"]["setsel_masi_krippendorff_alpha"][field]
        );
    }
    assert_eq!(
        report["agreement"]["studies"][0]["study"]["id"],
        study["id"]
    );
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap_or_default();
    assert!(html.contains("Re-annotation studies") && html.contains("MASI"));
}

/// The hostile pass of issue 30 from the command line: a study's group is annotators who
/// never met its items, a study drawn by mistake is deleted with `--delete`, agreement on
/// refutations is refused, and a name with a comma (which `--group` splits on) is too.
#[test]
fn a_study_is_drawn_around_the_groups_work_and_deleted_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = crate::demo_project(dir.path(), "p.fdesk", &["ana", "ben", "caro"]);
    let project = p.display().to_string();
    ok(["annotators", &project, "add", "maria", "--role", "lead"]);
    let next = json(&[
        "next", &project, "--as", "ana", "--kind", "evidence", "--json",
    ]);
    let answered = next["item"]["task_id"].as_i64().unwrap_or_default();
    crate::submit(
        &p,
        "ana",
        &[serde_json::json!({"task_id": answered, "no_evidence": true})],
    );
    let refused = |args: &[&str], needle: &str| {
        let out = crate::factdesk(args);
        let err = crate::stderr(&out);
        assert!(
            !out.status.success() && err.contains(needle),
            "{args:?}: {err}"
        );
    };
    refused(
        &[
            "study",
            &project,
            "--kind",
            "evidence",
            "--sample",
            "1",
            "--group",
            "ana,maria",
        ],
        "maria is a lead",
    );
    let study = json(&[
        "study", &project, "--kind", "evidence", "--sample", "2", "--group", "ana", "--json",
    ]);
    let items = study["items"].as_array().cloned().unwrap_or_default();
    assert_eq!(items.len(), 2, "{study}");
    assert!(!items.contains(&Value::from(answered)), "{study}");
    let id = study["id"].as_i64().unwrap_or_default().to_string();
    let out = ok(["study", &project, "--delete", &id]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains(&format!("study {id}: deleted; 2 items")),
        "{said}"
    );
    assert_eq!(json(&["study", &project, "--json"]), serde_json::json!([]));
    refused(&["study", &project, "--delete", &id], "no study");
    refused(
        &["agreement", &project, "--kind", "refute"],
        "evidence, verify or label",
    );
    refused(&["annotators", &project, "add", "x,y"], "comma");
}
