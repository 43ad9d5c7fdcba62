//! `factdesk report`: the HTML, JSON and CSV files are written and agree with
//! `factdesk agreement`; negation rates are what one counts by hand; a project without
//! answers still gets a report that says so.

use crate::{factdesk, new_project, ok, submit};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Claims with labels and negation cues counted by hand (see `negation_rates_*`).
const CLAIMS: [(&str, &str, &str); 6] = [
    ("c1", "SUPPORTED", "The bridge was not finished in 1990."),
    ("c2", "SUPPORTED", "The mayor opened the new library."),
    ("c3", "REFUTED", "Nobody has never visited the island."),
    ("c4", "REFUTED", "The council didn't approve the budget."),
    ("c5", "REFUTED", "The river flooded the town in May."),
    ("c6", "NOT ENOUGH INFO", "No ships docked."),
];

fn project(dir: &Path) -> PathBuf {
    let p = new_project(dir);
    let claims = dir.join("claims.jsonl");
    let mut text = String::new();
    for (id, label, claim) in CLAIMS {
        let row = serde_json::json!({"id": id, "claim": claim, "label": label, "evidence": [format!("A record about {id}.")]});
        text.push_str(&format!("{row}\n"));
    }
    std::fs::write(&claims, text).unwrap_or_else(|e| panic!("{e}"));
    ok([Path::new("import"), &p, &claims]);
    p
}

/// Three annotators label every claim; `labels[a][t]` is annotator a's label of task t+1.
fn annotate(p: &Path, labels: &[(&str, [&str; 6])]) {
    ok([
        Path::new("tasks"),
        p,
        Path::new("--kind"),
        Path::new("label"),
        Path::new("--overlap"),
        Path::new("3"),
    ]);
    for (name, answers) in labels {
        ok([
            Path::new("annotators"),
            p,
            Path::new("add"),
            Path::new(name),
        ]);
        // Each item served before it is answered, as answers are taken only on items given.
        loop {
            let out = ok([
                Path::new("next"),
                p,
                Path::new("--as"),
                Path::new(name),
                Path::new("--kind"),
                Path::new("label"),
                Path::new("--json"),
            ]);
            let next: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
            let Some(task) = next["item"]["task_id"].as_u64() else {
                break;
            };
            let label = answers[task as usize - 1];
            submit(
                p,
                name,
                &[serde_json::json!({"task_id": task, "label": label})],
            );
        }
    }
}

fn run_report(p: &Path, dir: &Path) -> (String, Value, PathBuf) {
    let (html, json, csv) = (dir.join("r.html"), dir.join("r.json"), dir.join("csv"));
    ok([
        Path::new("report"),
        p,
        Path::new("--out"),
        &html,
        Path::new("--json"),
        &json,
        Path::new("--csv"),
        &csv,
    ]);
    let html = std::fs::read_to_string(&html).unwrap_or_else(|e| panic!("{e}"));
    let json = std::fs::read_to_string(&json).unwrap_or_else(|e| panic!("{e}"));
    let json = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}"));
    (html, json, csv)
}

fn csv_rows(path: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

/// The page loads nothing: no scripts, no links, no external URLs of any kind, in any
/// tag (text may mention them, escaped).
fn assert_self_contained(html: &str) {
    assert!(html.starts_with("<!DOCTYPE html>"));
    for tag in html.split('<').skip(1) {
        let tag = tag
            .split('>')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        for banned in ["script", "link", "img", "iframe", "object", "embed"] {
            assert!(
                !tag.starts_with(banned),
                "the report has a <{banned}> tag: <{tag}>"
            );
        }
        for banned in ["src=", "href=", "url(", "http:", "https:", " on"] {
            let tag = tag.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
            assert!(!tag.contains(banned), "a tag has {banned}: <{tag}>");
        }
    }
    let style = html
        .split("<style>")
        .nth(1)
        .and_then(|s| s.split("</style>").next())
        .unwrap_or_default();
    assert!(!style.contains("url(") && !style.contains("@import"));
}

#[test]
fn report_files_agree_with_factdesk_agreement() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = project(dir.path());
    let (s, r, n) = ("SUPPORTED", "REFUTED", "NOT ENOUGH INFO");
    annotate(
        &p,
        &[
            ("ana", [s, s, r, r, r, n]),
            ("ben", [s, r, r, r, s, n]),
            ("cy", [s, s, r, n, r, n]),
        ],
    );
    let (html, report, csv) = run_report(&p, dir.path());
    assert_self_contained(&html);
    let out = ok([
        Path::new("agreement"),
        &p,
        Path::new("--kind"),
        Path::new("label"),
        Path::new("--json"),
    ]);
    let agreement: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
    // Every statistic is the CLI's, intervals included.
    assert_eq!(report["metrics"]["label"], agreement);
    let kind = &report["agreement"]["kinds"][0];
    assert_eq!(kind["kind"], "label");
    for (stat, metric) in [
        ("fleiss", "fleiss_kappa"),
        ("alpha", "krippendorff_alpha_nominal"),
    ] {
        let want = &agreement["metrics"][metric];
        let got = &kind[stat];
        let (w, g) = (want["value"].as_f64(), got["value"].as_f64());
        assert!(
            matches!((w, g), (Some(w), Some(g)) if (w - g).abs() < 1e-12),
            "{stat}: {got} vs {want}"
        );
        assert_eq!(got["ci95"], want["ci95"], "{stat}");
        assert_eq!(got["metric"], metric);
    }
    assert_eq!(kind["units"], agreement["units"]);
    assert_eq!(kind["answers"], agreement["ratings"]);
    for pair in agreement["cohen_kappa_pairs"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let found = kind["pairs"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|q| q["a"] == pair["a"] && q["b"] == pair["b"])
            .unwrap_or_else(|| panic!("pair {pair} missing"));
        let (a, b) = (found["value"].as_f64(), pair["value"].as_f64());
        assert!(matches!((a, b), (Some(a), Some(b)) if (a - b).abs() < 1e-12) || a == b);
    }
    // The HTML shows the same values, rounded, a negative one with a true minus.
    let fleiss = kind["fleiss"]["value"].as_f64().unwrap_or(f64::NAN);
    let shown = format!("{fleiss:.3}").replacen('-', "\u{2212}", 1);
    assert!(html.contains(&shown), "fleiss {shown} not in the page");
    assert!(html.contains(kind["fleiss"]["reading"].as_str().unwrap_or("?")));
    // The CSV tables hold the same figures.
    let rows = csv_rows(&csv.join("agreement.csv"));
    assert_eq!(rows[0][..4], ["kind", "statistic", "metric", "value"]);
    let fleiss_row = rows
        .iter()
        .find(|r| r[1] == "fleiss")
        .unwrap_or_else(|| panic!("no fleiss row"));
    assert_eq!(fleiss_row[3].parse::<f64>().ok(), Some(fleiss));
    let labels = csv_rows(&csv.join("labels.csv"));
    let answered: u64 = labels
        .iter()
        .filter(|r| r[0] == "label")
        .filter_map(|r| r[2].parse::<u64>().ok())
        .sum();
    assert_eq!(answered, 18);
    assert_eq!(report["answers"], 18);
    for name in [
        "annotators.csv",
        "cohen_pairs.csv",
        "kappa_over_time.csv",
        "lengths.csv",
        "length_summary.csv",
        "metrics.csv",
        "negation.csv",
        "negation_cues.csv",
    ] {
        assert!(csv.join(name).is_file(), "{name} missing");
    }
    assert_eq!(csv_rows(&csv.join("annotators.csv")).len(), 4);
}

#[test]
fn negation_rates_are_what_one_counts_by_hand() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = project(dir.path());
    let (_, report, csv) = run_report(&p, dir.path());
    let groups = &report["negation"]["groups"];
    // Supported: "not" in c1 (7 tokens), none in c2 (6 tokens).
    assert_eq!(groups[0]["label"], "SUPPORTED");
    assert_eq!(groups[0]["claims"], 2);
    assert_eq!(groups[0]["with_cue"], 1);
    assert_eq!(groups[0]["share_with_cue"], 0.5);
    assert_eq!(groups[0]["tokens"], 13);
    assert_eq!(groups[0]["cue_tokens"], 1);
    assert_eq!(groups[0]["cues_per_100_tokens"], 100.0 / 13.0);
    // Refuted: "nobody" and "never" in c3 (6), "didn't" in c4 (6), none in c5 (7); the
    // "No" of c6 is not counted, that claim being neither supported nor refuted.
    assert_eq!(groups[1]["label"], "REFUTED");
    assert_eq!(groups[1]["claims"], 3);
    assert_eq!(groups[1]["with_cue"], 2);
    assert_eq!(groups[1]["share_with_cue"], 2.0 / 3.0);
    assert_eq!(groups[1]["tokens"], 19);
    assert_eq!(groups[1]["cue_tokens"], 3);
    assert_eq!(groups[1]["cues_per_100_tokens"], 300.0 / 19.0);
    let rows = csv_rows(&csv.join("negation.csv"));
    assert_eq!(
        rows[2][..6],
        ["REFUTED", "3", "2", &(2.0f64 / 3.0).to_string(), "19", "3"]
    );
    let lengths = &report["lengths"][0];
    assert_eq!(lengths["of"], "claims");
    assert_eq!(lengths["count"], 6);
    assert_eq!(lengths["min"], 3);
    assert_eq!(lengths["max"], 7);
}

#[test]
fn a_project_without_answers_gets_a_report_that_says_so() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = project(dir.path());
    let (html, report, csv) = run_report(&p, dir.path());
    assert_self_contained(&html);
    assert!(
        html.contains("No answers yet"),
        "the page does not say there are no answers"
    );
    assert_eq!(report["answers"], 0);
    assert_eq!(report["agreement"]["kinds"], serde_json::json!([]));
    assert_eq!(csv_rows(&csv.join("agreement.csv")).len(), 1);
    // And an empty project, without even claims.
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap_or_else(|e| panic!("{e}"));
    let p = new_project(&empty);
    let (html, report, _) = run_report(&p, &empty);
    assert!(html.contains("No answers yet"));
    assert_eq!(report["claims"], 0);
    assert!(report["lengths"][0]["mean"].is_null());
    assert!(report["negation"]["groups"][0]["share_with_cue"].is_null());
}

#[test]
fn a_missing_project_is_an_error_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let out = dir.path().join("r.html");
    let missing = dir.path().join("nope.fdesk");
    let result = factdesk([Path::new("report"), &missing, Path::new("--out"), &out]);
    assert!(!result.status.success());
    let err = String::from_utf8_lossy(&result.stderr);
    assert!(err.contains("nope.fdesk"), "{err}");
    assert!(!out.exists());
}

#[test]
fn report_help_names_every_output() {
    let help = ok(["report", "--help"]);
    let text = String::from_utf8_lossy(&help.stdout);
    for flag in ["--out", "--json", "--csv", "self-contained"] {
        assert!(text.contains(flag), "{flag} not in --help");
    }
}

#[test]
fn markup_in_names_stays_text() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = dir.path().join("<script>p.fdesk");
    ok([Path::new("init"), &p]);
    let claims = dir.path().join("claims.jsonl");
    let mut text = String::new();
    for (id, label, claim) in CLAIMS {
        let row = serde_json::json!({"id": id, "claim": claim, "label": label, "evidence": [format!("A record about {id}.")]});
        text.push_str(&format!("{row}\n"));
    }
    std::fs::write(&claims, text).unwrap_or_else(|e| panic!("{e}"));
    ok([Path::new("import"), &p, &claims]);
    let (s, r) = ("SUPPORTED", "REFUTED");
    annotate(
        &p,
        &[
            ("<img src=x onerror=alert(1)>", [s, s, r, r, r, s]),
            ("ben", [s, r, r, r, s, s]),
            ("cy", [s, s, r, s, r, s]),
        ],
    );
    let (html, report, _) = run_report(&p, dir.path());
    assert_eq!(report["project"], "<script>p");
    assert_self_contained(&html);
    assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"));
    assert!(html.contains("Agreement report: &lt;script&gt;p"));
}
