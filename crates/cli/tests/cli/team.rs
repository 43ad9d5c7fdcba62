//! `factdesk pack`, `merge` and `packs` as the issue names them: each has --help, a pack
//! expires after `--days` (or `--expires`) days, and a file that is not a pack, or is
//! missing, is refused by name with the project unchanged.

use crate::{content_digest, demo_project, factdesk, ok, stderr};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn project(dir: &Path) -> PathBuf {
    demo_project(dir, "team.fdesk", &["ana"])
}

#[test]
fn pack_merge_and_packs_each_have_help_naming_their_options() {
    let cases: [(&str, &[&str]); 3] = [
        ("pack", &["--for", "--count", "--kind", "--days", "--out"]),
        ("merge", &["<FILES>", "--json"]),
        ("packs", &["--json"]),
    ];
    for (command, options) in cases {
        let out = ok([command, "--help"]);
        let help = String::from_utf8_lossy(&out.stdout);
        for option in options {
            assert!(
                help.contains(option),
                "{command} --help lacks {option}:\n{help}"
            );
        }
    }
}

#[test]
fn a_pack_expires_after_the_days_asked_for() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = project(dir.path());
    for (flag, days, file) in [("--days", 3, "a.fdpack"), ("--expires", 5, "b.fdpack")] {
        ok([
            "pack".to_string(),
            p.display().to_string(),
            "--for".into(),
            "ana".into(),
            "--count".into(),
            "1".into(),
            flag.into(),
            days.to_string(),
            "--out".into(),
            dir.path().join(file).display().to_string(),
        ]);
    }
    let out = ok([Path::new("packs"), &p, Path::new("--json")]);
    let list: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON: {e}"));
    let mut spans: Vec<i64> = list
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {list}"))
        .iter()
        .map(|p| {
            assert_eq!(p["state"], "out", "{p}");
            p["expires_at"].as_i64().unwrap_or(0) - p["created_at"].as_i64().unwrap_or(0)
        })
        .collect();
    spans.sort_unstable();
    assert_eq!(spans, [3 * 86_400_000, 5 * 86_400_000]);
}

#[test]
fn merging_a_project_file_or_a_missing_file_is_refused_by_name_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = project(dir.path());
    let other = dir.path().join("other.fdesk");
    ok([Path::new("init"), &other]);
    let missing = dir.path().join("never-written.fdpack");
    let before = content_digest(&p);
    for (file, expected) in [
        (&other, "it is not a pack (it has no manifest)"),
        (
            &missing,
            "never-written.fdpack: refused, nothing was changed: there is no such file",
        ),
    ] {
        let out = factdesk([Path::new("merge"), &p, file]);
        let err = stderr(&out);
        assert!(!out.status.success(), "{} was merged", file.display());
        assert!(err.contains(expected), "{err}");
        assert!(err.contains("1 of 1 packs refused"), "{err}");
        assert_eq!(
            content_digest(&p),
            before,
            "a refused merge changed the project"
        );
    }
}
