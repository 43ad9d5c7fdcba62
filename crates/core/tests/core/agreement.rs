//! Agreement statistics against published worked examples and against independent
//! implementations (scikit-learn, statsmodels, krippendorff) via checked-in vectors.

// A failed lookup here is a failed test, with the message saying which.
#![allow(clippy::expect_used)]

use factdesk_core::agreement::{
    cohen_kappa, compute, compute_all, masi_distance, pairs, per_category_kappa, AgreementOptions,
    Label, Rating, RatingTable, Weighting,
};
use factdesk_core::seeded::Seeded;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

#[derive(Debug, Deserialize, Default)]
struct Params {
    categories: Option<Vec<String>>,
    candidates: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
struct Case {
    name: String,
    metric: String,
    #[serde(default)]
    params: Option<Params>,
    input: Vec<Rating>,
    expected: Option<f64>,
    tolerance: f64,
    #[serde(default)]
    expected_extra: Option<serde_json::Value>,
}

fn manifest_path(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

fn published_cases() -> Vec<Case> {
    let path = manifest_path("../../../shared/data/agreement/published.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "published agreement cases missing at {}: {e}",
            path.display()
        )
    });
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .enumerate()
        .map(|(i, line)| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{}: line {}: {e}", path.display(), i + 1))
        })
        .collect()
}

fn vector_document(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("agreement vectors missing at {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn vector_cases(document: &serde_json::Value) -> Vec<Case> {
    serde_json::from_value(document["cases"].clone()).expect("vector cases parse")
}

fn table_for(case: &Case) -> RatingTable {
    let params = case.params.as_ref();
    let categories = params.and_then(|p| p.categories.as_deref());
    let candidates = params.and_then(|p| p.candidates.as_deref());
    RatingTable::new(&case.input, categories, candidates)
        .unwrap_or_else(|e| panic!("{}: table: {e}", case.name))
}

/// The case's metric as Factdesk computes it (None = undefined).
fn evaluate(case: &Case) -> Option<f64> {
    if case.metric == "masi_distance" {
        let sets: Vec<&Vec<String>> = case
            .input
            .iter()
            .filter_map(|r| match &r.label {
                Label::Set(set) => Some(set),
                _ => None,
            })
            .collect();
        assert_eq!(
            sets.len(),
            2,
            "{}: masi_distance takes two set labels",
            case.name
        );
        // The function, and the metric `factdesk agreement --json` reports by this name.
        let direct = masi_distance(sets[0], sets[1]);
        let reported = compute(&table_for(case), "masi_distance").and_then(|m| m.value);
        assert_eq!(reported, Some(direct), "{}", case.name);
        return reported;
    }
    let table = table_for(case);
    if let Some(base) = case.metric.strip_suffix("_se") {
        let weighting = match base {
            "cohen_kappa" => Weighting::Unweighted,
            "cohen_kappa_linear" => Weighting::Linear,
            "cohen_kappa_quadratic" => Weighting::Quadratic,
            other => panic!("{}: no standard error for {other}", case.name),
        };
        let names = table.annotators();
        return cohen_kappa(&table, &names[0], &names[1], weighting).standard_error;
    }
    let value = compute(&table, &case.metric)
        .unwrap_or_else(|| panic!("{}: unknown metric {}", case.name, case.metric));
    assert!(
        value.value.is_some() || value.reason.is_some(),
        "{}: undefined without a reason",
        case.name
    );
    value.value
}

/// Checks every case; on failure prints a table of all of them.
fn check_cases(cases: &[Case], tolerance_cap: Option<f64>) {
    let mut rows = Vec::new();
    let mut failures = 0;
    let mut largest_difference: f64 = 0.0;
    for case in cases {
        let got = evaluate(case);
        let tolerance = tolerance_cap.map_or(case.tolerance, |cap| case.tolerance.min(cap));
        let ok = match (case.expected, got) {
            (None, None) => true,
            (Some(e), Some(g)) => g.is_finite() && (e - g).abs() <= tolerance,
            _ => false,
        };
        failures += usize::from(!ok);
        if let (Some(e), Some(g)) = (case.expected, got) {
            largest_difference = largest_difference.max((e - g).abs());
        }
        let show = |v: Option<f64>| v.map_or("undefined".to_string(), |v| format!("{v:.12}"));
        rows.push(format!(
            "{} {:<58} {:<42} expected {:>18} got {:>18} (tol {tolerance:e})",
            if ok { "ok  " } else { "FAIL" },
            case.name,
            case.metric,
            show(case.expected),
            show(got)
        ));
    }
    assert!(
        failures == 0,
        "{failures} of {} cases failed:\n{}",
        cases.len(),
        rows.join("\n")
    );
    println!(
        "{} cases ok (largest difference {largest_difference:e})",
        cases.len()
    );
}

#[test]
fn published_cases_reproduce() {
    let cases = published_cases();
    assert_eq!(cases.len(), 37, "published.jsonl should hold 37 cases");
    check_cases(&cases, None);
}

#[test]
fn published_extras_reproduce() {
    let cases = published_cases();
    let find = |name: &str| {
        cases
            .iter()
            .find(|c| c.name == name)
            .unwrap_or_else(|| panic!("case {name} missing"))
    };
    let extra = |case: &Case, key: &str| -> f64 {
        case.expected_extra
            .as_ref()
            .and_then(|x| x[key].as_f64())
            .expect("extra value")
    };
    // SAS PROC FREQ: asymptotic standard errors (4 decimals) and the Wald interval.
    for (name, weighting) in [
        ("pub_sas_table10__cohen_kappa", Weighting::Unweighted),
        ("pub_sas_table10__cohen_kappa_linear", Weighting::Linear),
    ] {
        let case = find(name);
        let table = table_for(case);
        let names = table.annotators();
        let kappa = cohen_kappa(&table, &names[0], &names[1], weighting);
        let se = kappa.standard_error.expect("standard error");
        assert!((se - extra(case, "ase")).abs() < 5e-4, "{name}: ase {se}");
        let (low, high) = kappa.value.ci95.expect("Wald interval");
        assert!(
            (low - extra(case, "ci95_low")).abs() < 5e-4,
            "{name}: low {low}"
        );
        assert!(
            (high - extra(case, "ci95_upp")).abs() < 5e-4,
            "{name}: high {high}"
        );
    }
    // Fleiss (1971): per-category kappas, published to 3 decimals.
    let case = find("pub_fleiss1971_diagnoses__fleiss_kappa");
    let per_category = per_category_kappa(&table_for(case));
    let published = case.expected_extra.as_ref().expect("extras")["per_category_kappa_fleiss1971"]
        .as_object()
        .expect("per-category map")
        .clone();
    for (category, expected) in published {
        let got = per_category[&category].value.expect("defined");
        let expected = expected.as_f64().expect("number");
        assert!(
            (got - expected).abs() < 5e-4,
            "{category}: {got} vs {expected}"
        );
    }
}

fn vectors_path() -> PathBuf {
    manifest_path("tests/vectors/agreement_vectors.json")
}

#[test]
fn vectors_from_independent_libraries_agree_to_1e9() {
    let cases = vector_cases(&vector_document(&vectors_path()));
    assert!(cases.len() >= 60, "expected at least 60 vector cases");
    check_cases(&cases, Some(1e-9));
}

fn python_with_libraries() -> bool {
    Command::new("python3")
        .args(["-c", "import numpy, sklearn, statsmodels, krippendorff"])
        .output()
        .map(|out| out.status.success())
        .unwrap_or(false)
}

/// Regenerates the vectors and compares them with the committed file: the same cases
/// and inputs exactly, expected values to 1e-12 (library releases may differ in the last
/// bits, never more). Skipped without the Python libraries unless
/// FACTDESK_REGENERATE_VECTORS=1 demands it.
#[test]
fn vectors_regenerate_identically() {
    let required = std::env::var("FACTDESK_REGENERATE_VECTORS").is_ok_and(|v| v == "1");
    if !python_with_libraries() {
        assert!(
            !required,
            "FACTDESK_REGENERATE_VECTORS=1 but python3 cannot import numpy, sklearn, \
             statsmodels and krippendorff (pip install statsmodels scikit-learn krippendorff numpy)"
        );
        eprintln!("skipping vector regeneration: python3 with the libraries is not available");
        return;
    }
    let dir =
        std::env::temp_dir().join(format!("factdesk-agreement-vectors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let fresh_path = dir.join("agreement_vectors.json");
    let script = manifest_path("tests/vectors/make_vectors.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg("--out")
        .arg(&fresh_path)
        .output()
        .expect("run make_vectors.py");
    assert!(
        out.status.success(),
        "make_vectors.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fresh = vector_document(&fresh_path);
    let committed = vector_document(&vectors_path());
    let _ = std::fs::remove_dir_all(&dir);
    let (fresh, committed) = (vector_cases(&fresh), vector_cases(&committed));
    assert_eq!(
        fresh.len(),
        committed.len(),
        "number of vector cases changed"
    );
    for (new, old) in fresh.iter().zip(&committed) {
        assert_eq!(
            (&new.name, &new.metric),
            (&old.name, &old.metric),
            "case order changed"
        );
        assert_eq!(new.input, old.input, "{}: input changed", old.name);
        let same = match (new.expected, old.expected) {
            (None, None) => true,
            (Some(a), Some(b)) => (a - b).abs() <= 1e-12 * a.abs().max(1.0),
            _ => false,
        };
        assert!(
            same,
            "{}: expected {:?}, regenerated {:?}",
            old.name, old.expected, new.expected
        );
    }
}

/// 100,000 units × 5 annotators, numeric labels so that every categorical metric applies.
#[test]
#[ignore = "timing; run with --release -- --ignored --nocapture"]
fn timing_100k_units_5_annotators() {
    let mut rng = Seeded::new(7);
    let mut ratings = Vec::with_capacity(500_000);
    for unit in 0..100_000 {
        let truth = rng.below(5);
        for annotator in 0..5 {
            let label = if rng.unit() < 0.7 {
                truth
            } else {
                rng.below(5)
            } + 1;
            ratings.push(Rating {
                item: format!("claim-{unit}"),
                annotator: format!("annotator-{annotator}"),
                label: Label::Category(label.to_string()),
            });
        }
    }
    let started = Instant::now();
    let table = RatingTable::new(&ratings, None, None).expect("table");
    let built = started.elapsed();
    let metrics = compute_all(
        &table,
        &AgreementOptions {
            bootstrap_reps: 0,
            seed: 1,
        },
    );
    let point = started.elapsed();
    let with_ci = compute_all(&table, &AgreementOptions::default());
    let everything = started.elapsed();
    let pair_kappas = pairs(&table);
    let all = started.elapsed();
    println!(
        "table {built:?}; compute_all without bootstrap {:?}; with 1000-rep bootstrap {:?}; \
         pairs {:?}; total {all:?}",
        point - built,
        everything - point,
        all - everything
    );
    assert_eq!(pair_kappas.len(), 10);
    assert_eq!(metrics.len(), 9, "{:?}", metrics.keys());
    for (name, value) in &with_ci {
        println!("{name:<30} {:?} {:?}", value.value, value.ci95);
    }
}

/// 100,000 claims × 5 annotators selecting evidence among 5 candidates per claim (ids
/// unique to the claim), so every set metric runs on 500,000 candidate units.
#[test]
#[ignore = "timing; run with --release -- --ignored --nocapture"]
fn timing_100k_claims_set_labels() {
    let mut rng = Seeded::new(9);
    let mut ratings = Vec::with_capacity(500_000);
    for claim in 0..100_000 {
        let truth: Vec<bool> = (0..5).map(|_| rng.unit() < 0.3).collect();
        for annotator in 0..5 {
            let selected = (0..5)
                .filter(|&s| truth[s] != (rng.unit() < 0.1))
                .map(|s| format!("claim-{claim}-s{s}"))
                .collect();
            ratings.push(Rating {
                item: format!("claim-{claim}"),
                annotator: format!("annotator-{annotator}"),
                label: Label::Set(selected),
            });
        }
    }
    let started = Instant::now();
    let table = RatingTable::new(&ratings, None, None).expect("table");
    let built = started.elapsed();
    let point = compute_all(
        &table,
        &AgreementOptions {
            bootstrap_reps: 0,
            seed: 1,
        },
    );
    let without = started.elapsed();
    let metrics = compute_all(&table, &AgreementOptions::default());
    println!(
        "table {built:?}; compute_all without bootstrap {:?}; with 1000-rep bootstrap {:?}",
        without - built,
        started.elapsed() - without
    );
    assert_eq!(point.len(), metrics.len());
    for (name, value) in &metrics {
        println!("{name:<45} {:?} {:?}", value.value, value.ci95);
    }
    assert!(metrics["setsel_masi_krippendorff_alpha"].value.is_some());
}
