//! Each recipe from `init --recipe` to an exported gold file and the agreement figures,
//! with the figures computed again here from the answers the test gave: Fleiss' kappa
//! (each unit with its own number of answers), Cohen's kappa between two groups' majority
//! votes, and each gold line's majority. One module a recipe; the shared steps and the
//! independent computations are here.

mod covid_fact;
mod covid_fact_salient;
mod crowdchecked;
mod multilingual;
mod wikifactcheck;
mod zanzotto;

use super::{factdesk, ok};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub(super) fn s(p: &Path) -> String {
    p.display().to_string()
}

pub(super) fn json_of(args: &[&str]) -> Value {
    let out = ok(args);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// `factdesk agreement P --kind design --json`, without intervals.
pub(super) fn design_agreement(p: &Path) -> Value {
    json_of(&[
        "agreement",
        &s(p),
        "--kind",
        "design",
        "--bootstrap",
        "0",
        "--json",
    ])
}

pub(super) fn read_jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

pub(super) fn write_jsonl(path: &Path, rows: &[Value]) {
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{e}"));
}

/// Serves `who` every `kind` item they get and answers each by question with `choose`,
/// until none is left. Returns each item with the answers given.
pub(super) fn answer_all(
    p: &Path,
    who: &str,
    kind: &str,
    mut choose: impl FnMut(&Value) -> Value,
) -> Vec<(Value, Value)> {
    let mut done = Vec::new();
    loop {
        let next = json_of(&["next", &s(p), "--as", who, "--kind", kind, "--json"]);
        let item = next["item"].clone();
        if item.is_null() {
            return done;
        }
        let answers = choose(&item);
        let line = json!({"task_id": item["task_id"], "answers": answers});
        crate::submit(p, who, &[line]);
        done.push((item, answers));
        assert!(done.len() < 500, "{who} is served without end");
    }
}

/// Fleiss' kappa over units of any number (at least 2) of categorical ratings: each
/// unit's agreement over its own pairs, category shares pooled over every rating.
pub(super) fn fleiss(units: &[Vec<String>]) -> f64 {
    let units: Vec<&Vec<String>> = units.iter().filter(|u| u.len() >= 2).collect();
    let mut pooled: BTreeMap<&str, f64> = BTreeMap::new();
    let mut total = 0.0;
    let mut p_bar = 0.0;
    for u in &units {
        let mut counts: BTreeMap<&str, f64> = BTreeMap::new();
        for r in u.iter() {
            *counts.entry(r).or_default() += 1.0;
            *pooled.entry(r).or_default() += 1.0;
            total += 1.0;
        }
        let n = u.len() as f64;
        p_bar += counts.values().map(|c| c * (c - 1.0)).sum::<f64>() / (n * (n - 1.0));
    }
    p_bar /= units.len() as f64;
    let p_e: f64 = pooled.values().map(|c| (c / total).powi(2)).sum();
    (p_bar - p_e) / (1.0 - p_e)
}

/// Cohen's kappa between two raters' labels on the same units.
pub(super) fn cohen(pairs: &[(String, String)]) -> f64 {
    let n = pairs.len() as f64;
    let agree = pairs.iter().filter(|(a, b)| a == b).count() as f64 / n;
    let mut a: BTreeMap<&str, f64> = BTreeMap::new();
    let mut b: BTreeMap<&str, f64> = BTreeMap::new();
    for (x, y) in pairs {
        *a.entry(x).or_default() += 1.0 / n;
        *b.entry(y).or_default() += 1.0 / n;
    }
    let chance: f64 = a.iter().map(|(k, v)| v * b.get(k).unwrap_or(&0.0)).sum();
    (agree - chance) / (1.0 - chance)
}

/// The label more than half of `labels` give, if one does.
pub(super) fn strict_majority(labels: &[String]) -> Option<String> {
    let mut counts: BTreeMap<&String, usize> = BTreeMap::new();
    for l in labels {
        *counts.entry(l).or_default() += 1;
    }
    counts
        .into_iter()
        .find(|(_, n)| 2 * n > labels.len())
        .map(|(l, _)| l.clone())
}

pub(super) fn metric(report: &Value, name: &str) -> f64 {
    report["metrics"][name]["value"]
        .as_f64()
        .unwrap_or_else(|| panic!("no {name}: {report}"))
}

pub(super) fn close(ours: f64, theirs: f64, what: &str) {
    assert!(
        (ours - theirs).abs() < 1e-9,
        "{what}: computed here {ours}, Factdesk {theirs}"
    );
}

/// COVID-Fact's evaluation set made in `dir/set` (`make-eval-set`): claims.jsonl,
/// documents.jsonl and gold.jsonl.
pub(super) fn eval_set(dir: &Path) -> PathBuf {
    let set = dir.join("set");
    ok([
        "make-eval-set",
        &s(&crate::data("covidfact.jsonl")),
        "--out",
        &s(&set),
    ]);
    set
}

/// The evaluation set's first `n` claims, written to `dir/claims.jsonl`, with the set's
/// folder (its documents.jsonl and gold.jsonl).
pub(super) fn first_claims(dir: &Path, n: usize) -> (PathBuf, Vec<Value>, PathBuf) {
    let set = eval_set(dir);
    let claims: Vec<Value> = read_jsonl(&set.join("claims.jsonl"))
        .into_iter()
        .take(n)
        .collect();
    let few = dir.join("claims.jsonl");
    write_jsonl(&few, &claims);
    (set, claims, few)
}

/// `init --recipe NAME` at `dir/p.fdesk`, checked to have set the recipe up.
pub(super) fn init(dir: &Path, recipe: &str) -> PathBuf {
    let p = dir.join("p.fdesk");
    let out = ok(["init", &s(&p), "--recipe", recipe]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains(&format!("set up by the {recipe} recipe")),
        "{said}"
    );
    let settings = json_of(&["settings", &s(&p)]);
    assert_eq!(settings["recipe"], recipe);
    ok(["annotators", &s(&p), "add", "maria", "--role", "lead"]);
    p
}

pub(super) fn add(p: &Path, names: &[&str]) {
    for name in names {
        ok(["annotators", &s(p), "add", name]);
    }
}

/// The gold file and its card, exported by default.
pub(super) fn export(dir: &Path, p: &Path, recipe: &str) -> Vec<Value> {
    let out = dir.join("gold.jsonl");
    ok(["export", &s(p), "--out", &s(&out)]);
    let card = std::fs::read_to_string(dir.join("gold.card.md")).unwrap_or_default();
    assert!(
        card.contains(&format!("Set up by the `{recipe}` recipe")),
        "{card}"
    );
    read_jsonl(&out)
}

#[test]
fn recipes_are_listed_with_their_settings_and_steps() {
    let listed = json_of(&["recipes", "--json"]);
    let names: Vec<&str> = listed
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "covid-fact",
            "wikifactcheck",
            "multilingual",
            "crowdchecked",
            "zanzotto"
        ]
    );
    for r in listed.as_array().into_iter().flatten() {
        let steps = r["steps"].as_array().cloned().unwrap_or_default();
        assert!(steps.len() >= 4, "{r}");
        assert!(steps
            .iter()
            .all(|s| s["whose"] == "paper" || s["whose"] == "factdesk"));
        assert!(
            r["settings"].as_object().is_some_and(|m| !m.is_empty()),
            "{r}"
        );
    }
    assert_eq!(listed[0]["settings"]["evidence_stance"], "supports");
    // An unknown recipe is refused, naming them, and no project is made.
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = dir.path().join("x.fdesk");
    let refused = factdesk(["init", &s(&p), "--recipe", "fever"]);
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("covid-fact, wikifactcheck, multilingual, crowdchecked, zanzotto"),
        "{said}"
    );
    assert!(!p.exists());
}
