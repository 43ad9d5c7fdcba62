//! `--out` never destroys a project or an input, and a command's outputs appear all
//! together or not at all.

use crate::{data, demo_project, factdesk, ok, stderr};
use std::path::{Path, PathBuf};

fn bytes(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()))
}

/// The project's file and the files beside it, to compare before and after.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{e}"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .map(|p| {
            let b = bytes(&p);
            (p, b)
        })
        .collect();
    out.sort();
    out
}

fn refused(args: &[&std::ffi::OsStr], says: &str) {
    let out = factdesk(args);
    let msg = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "should fail: {msg}");
    assert!(msg.contains(says), "message should say {says:?}: {msg}");
}

fn os<P: AsRef<std::ffi::OsStr> + ?Sized>(p: &P) -> &std::ffi::OsStr {
    p.as_ref()
}

#[test]
fn out_never_replaces_the_project_its_files_or_another_project() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = demo_project(dir.path(), "p.fdesk", &["ana"]);
    // Another project, named as if it were anything else: recognised by its content.
    let other = dir.path().join("notes.txt");
    ok([os("init"), os(&other)]);
    let index_file = dir.path().join("p.fdesk.index").join("meta.json");
    let before = snapshot(dir.path());
    let project_file = "is the project file, an input of this command; choose another file for the output (nothing was written)";
    for cmd in ["report", "export"] {
        refused(&[os(cmd), os(&p), os("--out"), os(&p)], project_file);
        refused(
            &[
                os(cmd),
                os(&p),
                os("--out"),
                os(&dir.path().join("p.fdesk-wal")),
            ],
            "is the project's write-ahead log, an input of this command",
        );
        refused(
            &[os(cmd), os(&p), os("--out"), os(&index_file)],
            "is inside the project's search index, an input of this command",
        );
        refused(
            &[os(cmd), os(&p), os("--out"), os(&other)],
            "is a Factdesk project; writing there would destroy it. Choose another file for the output (nothing was written)",
        );
        refused(
            &[os(cmd), os(&p), os("--out"), os(dir.path())],
            "is a folder; give a file name for the output",
        );
    }
    // The same file reached through another spelling of its path.
    let sneaky = dir.path().join(".").join("p.fdesk");
    refused(
        &[os("report"), os(&p), os("--out"), os(&sneaky)],
        project_file,
    );
    let html = dir.path().join("r.html");
    refused(
        &[
            os("report"),
            os(&p),
            os("--out"),
            os(&html),
            os("--json"),
            os(&p),
        ],
        project_file,
    );
    refused(
        &[
            os("pack"),
            os(&p),
            os("--for"),
            os("ana"),
            os("--out"),
            os(&other),
        ],
        "is a Factdesk project; writing there would destroy it",
    );
    assert!(
        snapshot(dir.path()) == before,
        "a refused --out changed a file"
    );
}

#[test]
fn make_eval_set_never_writes_over_its_input() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let input = dir.path().join("claims.jsonl");
    std::fs::copy(data("covidfact.jsonl"), &input).unwrap_or_else(|e| panic!("{e}"));
    let before = bytes(&input);
    refused(
        &[os("make-eval-set"), os(&input), os("--out"), os(dir.path())],
        "is an input file, an input of this command",
    );
    assert!(bytes(&input) == before, "the input changed");
    assert!(
        !dir.path().join("gold.jsonl").exists(),
        "a partial set was written"
    );
}

#[test]
fn skip_invalid_never_writes_its_rejects_over_a_project() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = demo_project(dir.path(), "p.fdesk", &[]);
    let input = dir.path().join("rows.jsonl");
    std::fs::write(
        &input,
        "{\"id\": \"r1\", \"claim\": \"Kept.\"}\n{\"id\": \"r2\"}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let trap = dir.path().join("rows.jsonl.rejects.jsonl");
    ok([os("init"), os(&trap)]);
    let before = snapshot(dir.path());
    refused(
        &[os("import"), os(&p), os(&input), os("--skip-invalid")],
        "rows.jsonl.rejects.jsonl is a Factdesk project; writing there would destroy it",
    );
    assert!(
        snapshot(dir.path()) == before,
        "the refused import changed a file"
    );
}

#[test]
fn report_writes_all_its_files_or_none() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = demo_project(dir.path(), "p.fdesk", &["ana"]);
    let out = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let html = out.path().join("r.html");
    let json = out.path().join("r.json");
    let blocker = out.path().join("tables");
    std::fs::write(&blocker, "a file where the CSV folder should go")
        .unwrap_or_else(|e| panic!("{e}"));
    // The CSV tables are the last output: they cannot be written, so nothing is.
    let args = |csv: &Path| {
        vec![
            os("report").to_owned(),
            os(&p).to_owned(),
            os("--out").to_owned(),
            os(&html).to_owned(),
            os("--json").to_owned(),
            os(&json).to_owned(),
            os("--csv").to_owned(),
            os(csv).to_owned(),
            os("--bootstrap").to_owned(),
            os("20").to_owned(),
        ]
    };
    let failed = factdesk(args(&blocker));
    assert_eq!(failed.status.code(), Some(1), "{}", stderr(&failed));
    assert!(
        !html.exists() && !json.exists(),
        "a failed report left some of its files"
    );
    let missing = out.path().join("no-such-folder").join("r.json");
    let failed = factdesk([
        os("report"),
        os(&p),
        os("--out"),
        os(&html),
        os("--json"),
        os(&missing),
    ]);
    assert_eq!(failed.status.code(), Some(1), "{}", stderr(&failed));
    assert!(
        stderr(&failed).contains("does not exist"),
        "{}",
        stderr(&failed)
    );
    assert!(!html.exists(), "a failed report left its HTML");

    std::fs::remove_file(&blocker).unwrap_or_else(|e| panic!("{e}"));
    ok(args(&blocker));
    ok(args(&blocker));
    assert!(html.is_file() && json.is_file() && blocker.join("labels.csv").is_file());
    let mut names: Vec<String> = std::fs::read_dir(out.path())
        .unwrap_or_else(|e| panic!("{e}"))
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["r.html", "r.json", "tables"],
        "temporary files left behind"
    );
}

#[test]
fn export_writes_its_gold_file_and_card_together() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = demo_project(dir.path(), "p.fdesk", &["ana"]);
    let out = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let gold = out.path().join("gold.jsonl");
    // The card's name is taken by a folder: the export fails and writes no gold file.
    std::fs::create_dir(out.path().join("gold.card.md")).unwrap_or_else(|e| panic!("{e}"));
    refused(
        &[os("export"), os(&p), os("--out"), os(&gold)],
        "gold.card.md is a folder",
    );
    assert!(!gold.exists(), "the gold file was written without its card");
}

#[test]
fn out_never_replaces_a_pack_whatever_its_name() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = demo_project(dir.path(), "demo.fdesk", &["ana"]);
    let pack = dir.path().join("ana.fdpack");
    ok([
        os("pack"),
        os(&p),
        os("--for"),
        os("ana"),
        os("--count"),
        os("3"),
        os("--out"),
        os(&pack),
    ]);
    let renamed = dir.path().join("gold.bin");
    std::fs::copy(&pack, &renamed).unwrap_or_else(|e| panic!("{e}"));
    let before = bytes(&renamed);
    let says = "is a Factdesk pack; writing there would destroy its answers";
    refused(&[os("export"), os(&p), os("--out"), os(&renamed)], says);
    refused(&[os("report"), os(&p), os("--out"), os(&renamed)], says);
    assert_eq!(bytes(&renamed), before);
}
