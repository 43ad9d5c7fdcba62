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
        if metric == "masi_distance" {
            continue; // a distance between two sets, not an agreement statistic
        }
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
    assert!(checked >= 30, "only {checked} cases checked");
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
