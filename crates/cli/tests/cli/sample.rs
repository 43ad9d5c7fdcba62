//! Stratified samples (issue 33): `factdesk sample` on COVID-Fact's claims and their
//! ranked candidates, checked against a Python computation of stemmed Jaccard.

use crate::{candidate_texts, eval_set_project, factdesk, ok, stderr, with_evidence_tasks};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};

/// COVID-Fact's supported claims with their documents (the evaluation set's), evidence
/// tasks made, a lead (maria) and annotators ana, ben, cy and dee.
fn covid_fact(dir: &Path) -> std::path::PathBuf {
    let (_, p) = eval_set_project(dir, &[]);
    ok([
        Path::new("annotators"),
        &p,
        Path::new("add"),
        Path::new("maria"),
        Path::new("--role"),
        Path::new("lead"),
    ]);
    with_evidence_tasks(&p, &["ana", "ben", "cy", "dee"]);
    p
}

fn sample(p: &Path, args: &[&str]) -> Value {
    let mut all = vec!["sample", p.to_str().unwrap_or_default()];
    all.extend_from_slice(args);
    all.push("--json");
    serde_json::from_slice(&ok(all).stdout).unwrap_or_else(|e| panic!("{e}"))
}

/// Stemmed Jaccard of each pair by tests/python/stemmed_jaccard.py; `None` where
/// python3 lacks snowballstemmer outside CI.
pub(crate) fn python_jaccard(pairs: &Value) -> Option<Vec<f64>> {
    let has = Command::new("python3")
        .args(["-c", "import snowballstemmer"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true but python3 cannot import snowballstemmer: run scripts/setup"
        );
        eprintln!("skipping the Python check: python3 cannot import snowballstemmer (scripts/setup installs it)");
        return None;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut child = Command::new("python3")
        .arg(root.join("tests/python/stemmed_jaccard.py"))
        .arg(root.join("../core/src/stopwords.rs"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap_or_else(|| panic!("no stdin"));
        stdin
            .write_all(pairs.to_string().as_bytes())
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let out = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    assert!(out.status.success(), "the Python check failed");
    Some(serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}")))
}

#[test]
fn jaccard_bins_draw_as_many_from_each_bin_reproducibly_and_python_agrees() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = covid_fact(dir.path());
    let args = [
        "--by",
        "jaccard-bins",
        "--bins",
        "10",
        "--per-bin",
        "13",
        "--seed",
        "7",
    ];
    let drawn = sample(&p, &args);
    let strata = drawn["drawn"].as_array().cloned().unwrap_or_default();
    let names: Vec<&str> = strata.iter().filter_map(|s| s["name"].as_str()).collect();
    assert_eq!(names.len(), 10, "{names:?}");
    assert_eq!((names[0], names[9]), ("0.00–0.10", "0.90–1.00"));
    for s in &strata {
        assert_eq!(s["items"].as_array().map(Vec::len), Some(13), "{s}");
    }
    let items = drawn["items"].as_array().cloned().unwrap_or_default();
    assert_eq!(items.len(), 130);
    // The same seed draws the same; another seed, others.
    assert_eq!(sample(&p, &args), drawn);
    let other = sample(
        &p,
        &["--by", "jaccard-bins", "--per-bin", "13", "--seed", "8"],
    );
    assert_ne!(other["items"], drawn["items"]);
    // Each item's bin is that of its Jaccard, which Python computes alike.
    let pairs: Value = items.iter().map(|i| i["compared"].clone()).collect();
    for item in &items {
        let j = item["jaccard"].as_f64().unwrap_or(-1.0);
        let bin = ((j * 10.0).floor() as usize).min(9);
        assert_eq!(item["stratum"], names[bin], "{item}");
    }
    if let Some(python) = python_jaccard(&pairs) {
        assert_eq!(python.len(), items.len());
        for (item, py) in items.iter().zip(python) {
            let ours = item["jaccard"].as_f64().unwrap_or(-1.0);
            assert!((ours - py).abs() < 1e-12, "{item}: Python says {py}");
        }
    }
    // A bin holding too few is named, and nothing is drawn.
    let out = factdesk([
        "sample",
        p.to_str().unwrap_or_default(),
        "--by",
        "jaccard-bins",
        "--per-bin",
        "15",
        "--group",
        "cy,dee",
    ]);
    assert!(!out.status.success());
    let said = stderr(&out);
    assert!(said.contains("0.90–1.00 (13 items)"), "{said}");
    let studies: Value =
        serde_json::from_slice(&ok(["study", p.to_str().unwrap_or_default(), "--json"]).stdout)
            .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(studies, serde_json::json!([]), "nothing drawn");
}

#[test]
fn a_stratified_draw_becomes_a_study_that_keeps_each_items_stratum() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = covid_fact(dir.path());
    let preview = sample(&p, &["--by", "flair", "--per", "1", "--seed", "5"]);
    let study = sample(
        &p,
        &[
            "--by", "flair", "--per", "1", "--seed", "5", "--group", "cy,dee",
        ],
    );
    assert_eq!(study["strata"], "field:flair");
    // The study holds the items the preview showed, by the same strata.
    let groups = |list: &Value| -> Vec<(String, Value)> {
        list.as_array()
            .into_iter()
            .flatten()
            .map(|s| {
                let name = s["name"].as_str().unwrap_or_default().to_owned();
                (name, s["items"].clone())
            })
            .collect()
    };
    let shown = groups(&preview["drawn"]);
    let kept = groups(&study["by_stratum"]);
    let mut shown_sorted = shown.clone();
    shown_sorted.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(kept, shown_sorted);
    assert!(shown.len() >= 10, "COVID-Fact's flairs: {shown:?}");
    assert_eq!(study["items"].as_array().map(Vec::len), Some(shown.len()));
    // Listed again later, each item keeps its stratum; a label draw of the rest works too.
    let listed: Value =
        serde_json::from_slice(&ok(["study", p.to_str().unwrap_or_default(), "--json"]).stdout)
            .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(listed[0]["study"]["by_stratum"], study["by_stratum"]);
    // The dataset card and the report say how the study's items were drawn.
    let gold = dir.path().join("gold.jsonl");
    ok([Path::new("export"), &p, Path::new("--out"), &gold]);
    let card = std::fs::read_to_string(dir.path().join("gold.card.md")).unwrap_or_default();
    let report = dir.path().join("report.html");
    ok([Path::new("report"), &p, Path::new("--out"), &report]);
    let page = std::fs::read_to_string(&report).unwrap_or_default();
    let first = &shown_sorted[0].0;
    for text in [&card, &page] {
        assert!(
            text.contains("stratified by field:flair") && text.contains(&format!("{first} (1)")),
            "{text}"
        );
    }
    let by_label = sample(&p, &["--by", "label", "--per-label", "50"]);
    let drawn = by_label["drawn"].as_array().cloned().unwrap_or_default();
    assert_eq!(
        drawn.len(),
        1,
        "the evaluation set's claims are all supported"
    );
    assert_eq!(drawn[0]["name"], "SUPPORTED");
    assert_eq!(drawn[0]["items"].as_array().map(Vec::len), Some(50));
    let in_study: Vec<&Value> = study["items"].as_array().into_iter().flatten().collect();
    assert!(
        drawn[0]["items"]
            .as_array()
            .into_iter()
            .flatten()
            .all(|i| !in_study.contains(&i)),
        "a task is in one study at most"
    );
}

/// Issue 33: paragraph evidence. `import --paragraphs` merges the documents' sentences
/// into paragraphs of more than 1,000 characters (or the number given), each led by its
/// document's title, and they are ranked and served as candidates.
#[test]
fn documents_imported_as_paragraphs_give_paragraph_candidates() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (_, p) = eval_set_project(dir.path(), &["--paragraphs"]);
    let stats: Value =
        serde_json::from_slice(&ok(["stats", p.to_str().unwrap_or_default(), "--json"]).stdout)
            .unwrap_or_else(|e| panic!("{e}"));
    let units = stats["sentences"].as_u64().unwrap_or(0);
    assert!((1296..59_461 / 5).contains(&units), "{stats}");
    let texts = candidate_texts(&p, "eval-1");
    assert_eq!(texts.len(), 5);
    assert!(texts.iter().all(|t| t.chars().count() > 1000), "{texts:?}");
    // A titled document of short sentences, in paragraphs of more than 120 characters.
    let docs = dir.path().join("docs.jsonl");
    let text: Vec<String> = (1..=12)
        .map(|i| format!("Section {i} of the harbour wall was repaired during the spring."))
        .collect();
    let doc = serde_json::json!({"id": "h", "title": "Harbour report", "text": text.join(" ")});
    let claim = serde_json::json!({"id": "c1", "claim": "Storm damage to the harbour wall was fixed", "doc_ids": ["h"]});
    std::fs::write(&docs, format!("{doc}\n")).unwrap_or_else(|e| panic!("{e}"));
    let claims = dir.path().join("claims.jsonl");
    std::fs::write(&claims, format!("{claim}\n")).unwrap_or_else(|e| panic!("{e}"));
    let q = dir.path().join("q.fdesk");
    ok([Path::new("init"), &q]);
    let refused = factdesk([
        Path::new("import"),
        &q,
        &claims,
        Path::new("--paragraphs"),
        Path::new("0"),
        Path::new("--docs"),
        &docs,
    ]);
    assert!(!refused.status.success() && stderr(&refused).contains("--paragraphs 0"));
    ok([
        Path::new("import"),
        &q,
        &claims,
        Path::new("--docs"),
        &docs,
        Path::new("--paragraphs"),
        Path::new("120"),
    ]);
    let texts = candidate_texts(&q, "c1");
    // 62 characters a sentence, and a space: two make 125 > 120; six paragraphs.
    assert_eq!(texts.len(), 5, "{texts:?}");
    for t in &texts {
        assert!(t.starts_with("Harbour report — Section "), "{t}");
        assert_eq!(t.matches("during the spring.").count(), 2, "{t}");
    }
}
