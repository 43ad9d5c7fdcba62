//! The Hugging Face dataset folder: `datasets.load_dataset(DIR)` (Python, pinned by
//! scripts/setup) loads every split with the card's features, and every loaded row equals
//! its JSON Lines line; the card's YAML header carries configs, features, license, task
//! and size categories; a folder holding files is written into only with `force`.
//!
//! Without Python's `datasets` the round trip fails under CI=true and is skipped, saying
//! so, elsewhere.

use crate::common;
use common::{project, trick_option, Acting};
use factdesk_api::disagreement::DecisionNote;
use factdesk_api::RawSql as _;

use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::gold::{GoldRequest, Ruling};
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ErrorCode, ManualClock, Project};
use std::path::Path;
use std::process::Command;

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// Twelve claims answered by ana and ben, who agree on all but the first (dropped: no
/// sentence has a majority); the lead decides the second, with a reason holding a pipe
/// and a line break.
fn answered(dir: &Path) -> Project {
    let clock = ManualClock::new(1_700_000_000_000);
    let mut p = project(dir, 12, &clock);
    ok(p.add_annotator(&p.lead(), "lead", Role::Lead));
    for name in ["ana", "ben"] {
        ok(p.add_annotator(&p.lead(), name, Role::Annotator));
    }
    ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(2)));
    for name in ["ana", "ben"] {
        while let Some(item) = ok(p.next_item(&p.who(name), TaskKind::Evidence)).item {
            let trick = trick_option(&p, &item).unwrap_or_default();
            let real: Vec<String> = item
                .options
                .iter()
                .filter(|o| o.id != trick)
                .map(|o| o.id.clone())
                .collect();
            let pick = usize::from(name == "ben" && item.claim.starts_with("Town 0 "));
            ok(p.submit(
                &p.who(name),
                &Answer {
                    task_id: item.task_id,
                    selected: vec![real[pick].clone()],
                    ..Default::default()
                },
            ));
        }
    }
    // Task ids follow the serving order, not the claims': the second claim's task by its id.
    let second: i64 = ok(p.store().read().query_row(
        "SELECT t.id FROM tasks t JOIN claims c ON c.id = t.claim_id WHERE c.ext_id = 'c1' AND t.kind = 'evidence'",
        [],
        |r| r.get(0),
    ));
    ok(p.decide(
        &p.lead_named("lead"),
        second,
        Ruling::Take("ben".into()),
        &DecisionNote::reason("ben | saw\nit"),
    ));
    p
}

fn python_has_datasets() -> bool {
    Command::new("python3")
        .args(["-c", "import datasets"])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn datasets_loads_every_split_with_the_cards_features_and_every_row() {
    let dir = ok(tempfile::tempdir());
    let p = answered(dir.path());
    let out = dir.path().join("hf");
    let req = GoldRequest::default();
    let report = ok(p.export_hf(&p.lead_named("lead"), &req, &out, "cc-by-4.0", false));
    assert_eq!(report.preview.lines, 11, "{:?}", report.preview.dropped);
    let total: u64 = report.splits.iter().map(|(_, n)| n).sum();
    assert_eq!(total, 11);
    for (name, _) in &report.splits {
        assert!(
            ["train", "validation", "test"].contains(&name.as_str()),
            "{name}"
        );
        assert!(out.join("data").join(format!("{name}.parquet")).is_file());
        assert!(out.join("data").join(format!("{name}.jsonl")).is_file());
    }

    let card = ok(std::fs::read_to_string(out.join("README.md")));
    let header = card
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
        .map(|(yaml, _)| yaml)
        .unwrap_or_else(|| panic!("no YAML header:\n{card}"));
    for want in [
        "license: \"cc-by-4.0\"",
        "task_categories:\n- text-classification",
        "size_categories:\n- n<1K",
        "configs:\n- config_name: default\n  data_files:\n",
        "  - name: evidence\n    list:\n",
    ] {
        assert!(header.contains(want), "{want:?} missing from\n{header}");
    }
    for (name, n) in &report.splits {
        assert!(header.contains(&format!("  - split: {name}\n    path: data/{name}.parquet")));
        let entry = format!("  - name: {name}\n    num_bytes: ");
        let at = header
            .find(&entry)
            .unwrap_or_else(|| panic!("no {entry:?} in\n{header}"));
        let rest = &header[at + entry.len()..];
        assert!(
            rest.split_once('\n')
                .is_some_and(|(bytes, next)| bytes.parse::<u64>().is_ok()
                    && next.lines().next() == Some(&format!("    num_examples: {n}"))),
            "{header}"
        );
    }
    assert!(card.contains("## Dropped claims (1)"), "{card}");
    assert!(card.contains("| c0 |"), "the dropped claim is listed");
    assert!(card.contains("## Agreement between annotators"));
    assert!(
        card.contains("| evidence | "),
        "the evidence figures are on the card"
    );

    let summary = round_trip(dir.path(), &out).unwrap_or_else(|| panic!("no round trip"));
    for (name, n) in &report.splits {
        assert_eq!(summary["rows"][name], serde_json::json!(n), "{summary}");
    }
}

/// Loads `out` with `datasets` (tests/python/hf_roundtrip.py), which fails on any
/// difference and on any warning `datasets` gives; none when `datasets` is missing
/// outside CI.
fn round_trip(dir: &Path, out: &Path) -> Option<serde_json::Value> {
    if !python_has_datasets() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true but python3 cannot import datasets: run scripts/setup"
        );
        eprintln!("skipping the datasets round trip: python3 cannot import datasets (scripts/setup installs it)");
        return None;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/hf_roundtrip.py");
    let cache = dir.join("hf-cache");
    let run = ok(Command::new("python3")
        .arg(&script)
        .arg(out)
        .env("HF_HOME", &cache)
        .env("HF_DATASETS_CACHE", &cache)
        .env("HF_DATASETS_OFFLINE", "1")
        .env("HF_HUB_OFFLINE", "1")
        .output());
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "round trip failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    Some(ok(serde_json::from_str(stdout.trim())))
}

#[test]
fn a_single_split_is_named_train_and_loads_without_a_warning() {
    let dir = ok(tempfile::tempdir());
    let p = answered(dir.path());
    let out = dir.path().join("hf");
    let req = GoldRequest {
        splits: vec![100],
        ..GoldRequest::default()
    };
    let report = ok(p.export_hf(&p.lead_named("lead"), &req, &out, "cc-by-4.0", false));
    assert_eq!(report.splits, vec![("train".to_string(), 11)]);
    assert!(report.preview.split_warnings.is_empty());
    let (lines, _) = ok(p.gold(&p.lead_named("lead"), &req));
    assert!(lines.iter().all(|l| l.split == "train"));
    if let Some(summary) = round_trip(dir.path(), &out) {
        assert_eq!(summary["rows"], serde_json::json!({"train": 11}));
    }
}

#[test]
fn split_warnings_name_the_splits_as_the_folder_does() {
    let dir = ok(tempfile::tempdir());
    let p = answered(dir.path());
    // Eleven lines leave a split asked for 1% empty, or far over its share.
    let req = GoldRequest {
        splits: vec![49, 2, 49],
        ..GoldRequest::default()
    };
    let report = ok(p.export_hf(
        &p.lead_named("lead"),
        &req,
        &dir.path().join("hf"),
        "mit",
        false,
    ));
    let w = &report.preview.split_warnings;
    assert!(
        w.iter().any(|w| w.starts_with("split validation ")),
        "{w:?}"
    );
    assert!(w.iter().all(|w| !w.contains(" dev ")), "{w:?}");
    assert!(report.preview.per_split.contains_key("validation"));
    let card = ok(std::fs::read_to_string(
        dir.path().join("hf").join("README.md"),
    ));
    assert!(!card.contains("split dev "), "{card}");
}

#[test]
fn a_folder_holding_files_is_written_into_only_with_force() {
    let dir = ok(tempfile::tempdir());
    let p = answered(dir.path());
    let out = dir.path().join("hf");
    ok(std::fs::create_dir(&out));
    ok(std::fs::write(out.join("notes.txt"), "mine"));
    let req = GoldRequest::default();
    let e = p
        .export_hf(&p.lead_named("lead"), &req, &out, "other", false)
        .err()
        .unwrap_or_else(|| panic!("wrote into a folder holding files"));
    assert_eq!(e.code, ErrorCode::InvalidInput);
    assert!(!out.join("README.md").exists());
    // Not a Factdesk export: --force does not write there either.
    let e = p
        .export_hf(&p.lead_named("lead"), &req, &out, "other", true)
        .err()
        .unwrap_or_else(|| panic!("--force wrote into a folder that is no export"));
    assert_eq!(e.code, ErrorCode::InvalidInput);
    assert!(e.message.contains("no Factdesk export"), "{}", e.message);
    assert!(!out.join("README.md").exists());
    assert_eq!(ok(std::fs::read_to_string(out.join("notes.txt"))), "mine");
    let out = dir.path().join("hf2");
    let report = ok(p.export_hf(&p.lead_named("lead"), &req, &out, "other", false));
    let card = ok(std::fs::read_to_string(out.join("README.md")));
    assert!(
        card.contains("license: \"other\"\nlicense_name: unspecified"),
        "{card}"
    );
    assert!(card.contains("**License:** not chosen"));
    assert!(!report.files.is_empty());
    let e = p
        .export_hf(
            &p.lead_named("lead"),
            &req,
            &dir.path().join("x"),
            "CC BY",
            false,
        )
        .err()
        .unwrap_or_else(|| panic!("a license with spaces passed"));
    assert_eq!(e.code, ErrorCode::InvalidInput);
    let empty_dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_700_000_000_000);
    let unanswered = project(empty_dir.path(), 3, &clock);
    let e = unanswered
        .export_hf(
            &unanswered.lead(),
            &req,
            &empty_dir.path().join("hf"),
            "mit",
            false,
        )
        .err()
        .unwrap_or_else(|| panic!("a dataset of no claim was written"));
    assert_eq!(e.code, ErrorCode::InvalidInput);
    assert!(e.message.contains("3 dropped"), "{}", e.message);
    assert!(!empty_dir.path().join("hf").exists());
    let e = p
        .as_lead(&p.who("ana"), "export gold data")
        .err()
        .unwrap_or_else(|| panic!("an annotator exported"));
    assert_eq!(e.code, ErrorCode::Forbidden);
}

/// The names of the files under `dir`, relative to it, hidden ones included.
fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in ok(std::fs::read_dir(&d)) {
            let path = ok(e).path();
            if path.is_dir() {
                todo.push(path);
            } else {
                let rel = path.strip_prefix(dir).unwrap_or(&path);
                out.push(rel.display().to_string());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn exporting_again_with_force_leaves_no_stale_split_file_and_touches_nothing_foreign() {
    let dir = ok(tempfile::tempdir());
    let p = answered(dir.path());
    let out = dir.path().join("hf");
    let lead = p.lead_named("lead");
    let three = GoldRequest::default();
    let report = ok(p.export_hf(&lead, &three, &out, "mit", false));
    assert_eq!(report.splits.len(), 3, "{:?}", report.splits);
    // A Hub clone's hidden files stay.
    ok(std::fs::write(
        out.join(".gitattributes"),
        "*.parquet filter=lfs",
    ));
    let two = GoldRequest {
        splits: vec![50, 50],
        ..GoldRequest::default()
    };
    let report = ok(p.export_hf(&lead, &two, &out, "mit", true));
    let names: Vec<&str> = report.splits.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["train", "test"]);
    assert_eq!(
        tree(&out),
        [
            ".gitattributes",
            "README.md",
            "data/test.jsonl",
            "data/test.parquet",
            "data/train.jsonl",
            "data/train.parquet"
        ],
        "the validation split of the first export is stale"
    );

    // A file of no export under data/ is refused, and nothing changes.
    ok(std::fs::write(out.join("data").join("notes.txt"), "mine"));
    let before = tree(&out);
    let e = p
        .export_hf(&lead, &three, &out, "mit", true)
        .err()
        .unwrap_or_else(|| panic!("removed or wrote beside a foreign file"));
    assert!(e.message.contains("data/notes.txt"), "{}", e.message);
    assert_eq!(tree(&out), before);
}

#[test]
fn the_card_keeps_html_from_claims_as_text_names_no_annotator_and_quotes_the_license() {
    let dir = ok(tempfile::tempdir());
    let mut p = answered(dir.path());
    let lead = p.lead_named("lead");
    let preds = dir.path().join("preds.jsonl");
    let line = serde_json::json!({"claim_id": "c3", "model": "m", "refuted": "Town 3 had <img src=x onerror=alert(1)> & no lighthouse"});
    ok(std::fs::write(&preds, line.to_string()));
    ok(p.import_predictions(&lead, &preds, None));
    let out = dir.path().join("hf");
    ok(p.export_hf(&lead, &GoldRequest::default(), &out, "null", false));
    let card = ok(std::fs::read_to_string(out.join("README.md")));
    assert!(card.contains("\nlicense: \"null\"\n"), "{card}");
    assert!(!card.contains("<img"), "{card}");
    assert!(
        card.contains("Town 3 had &lt;img src=x onerror=alert(1)&gt; &amp; no lighthouse"),
        "{card}"
    );
    assert!(
        card.contains("- Counted: 2 (annotator 1, annotator 2)"),
        "{card}"
    );
    for name in ["ana", "ben"] {
        assert!(
            !card
                .split(|c: char| !c.is_alphanumeric())
                .any(|w| w == name),
            "{name} is named on the card:\n{card}"
        );
    }
    // The gold file's own card names no one either.
    let gold = dir.path().join("gold.jsonl");
    ok(p.export_gold(
        &lead,
        &GoldRequest::default(),
        &gold,
        Default::default(),
        false,
    ));
    let card = ok(std::fs::read_to_string(dir.path().join("gold.card.md")));
    assert!(!card.contains("<img"), "{card}");
    assert!(
        card.contains("Annotators counted: 2 (annotator 1, annotator 2)"),
        "{card}"
    );
    if let Some(summary) = round_trip(dir.path(), &out) {
        assert!(summary["rows"].is_object(), "{summary}");
    }
}
