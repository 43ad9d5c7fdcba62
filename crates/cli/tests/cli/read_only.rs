//! Projects on read-only files and folders: every reading command works through SQLite's
//! read-only (immutable) mode and leaves every byte alone; writing commands name the
//! read-only file.
//!
//! Factdesk treats a file or folder whose permissions grant no write access as read-only
//! even for root (who could write through them), so these tests hold in CI run as root.

use crate::{demo_project, factdesk, ok, stderr, submit};
use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Makes a folder and its files read-only, and writable again when dropped.
struct ReadOnly<'a>(&'a Path);

impl<'a> ReadOnly<'a> {
    fn new(dir: &'a Path) -> ReadOnly<'a> {
        for e in std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{e}"))
            .flatten()
        {
            if e.path().is_file() {
                set_mode(&e.path(), 0o444);
            }
        }
        set_mode(dir, 0o555);
        ReadOnly(dir)
    }
}

impl Drop for ReadOnly<'_> {
    fn drop(&mut self) {
        set_mode(self.0, 0o755);
        for e in std::fs::read_dir(self.0).into_iter().flatten().flatten() {
            if e.path().is_file() {
                set_mode(&e.path(), 0o644);
            }
        }
    }
}

fn set_mode(p: &Path, mode: u32) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode))
        .unwrap_or_else(|e| panic!("chmod {}: {e}", p.display()));
}

/// Every file in `dir` (not in sub-folders) with its bytes.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{e}"))
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| {
            let bytes = std::fs::read(e.path()).unwrap_or_default();
            (e.file_name().to_string_lossy().into_owned(), bytes)
        })
        .collect();
    out.sort();
    out
}

/// A demo project with answers, alone in its folder (no search index beside it).
fn answered_project(home: &Path) -> std::path::PathBuf {
    let p = demo_project(home, "p.fdesk", &["ana", "ben"]);
    for who in ["ana", "ben"] {
        let next = ok([
            Path::new("next"),
            &p,
            Path::new("--as"),
            Path::new(who),
            Path::new("--json"),
        ]);
        let next: Value = serde_json::from_slice(&next.stdout).unwrap_or_else(|e| panic!("{e}"));
        let task = &next["item"]["task_id"];
        submit(&p, who, &[json!({"task_id": task, "no_evidence": true})]);
    }
    std::fs::remove_dir_all(home.join("p.fdesk.index")).unwrap_or_else(|e| panic!("{e}"));
    p
}

#[test]
fn reading_commands_work_on_a_read_only_project_and_change_nothing() {
    let home = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let ro = home.path().join("ro");
    std::fs::create_dir(&ro).unwrap_or_else(|e| panic!("{e}"));
    let p = answered_project(&ro);
    let out = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let _guard = ReadOnly::new(&ro);
    let before = files(&ro);

    let stats = ok([Path::new("stats"), &p, Path::new("--json")]);
    let stats: Value = serde_json::from_slice(&stats.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(stats["annotations"], 2);
    ok([Path::new("agreement"), &p, Path::new("--json")]);
    let hits = ok([
        Path::new("search"),
        &p,
        Path::new("vaccine"),
        Path::new("--json"),
    ]);
    let hits: Value = serde_json::from_slice(&hits.stdout).unwrap_or_else(|e| panic!("{e}"));
    assert!(hits.as_array().is_some_and(|h| !h.is_empty()), "{hits}");
    ok([
        Path::new("candidates"),
        &p,
        Path::new("--claim"),
        Path::new("demo-005"),
    ]);
    ok([Path::new("annotators"), &p, Path::new("list")]);
    ok([Path::new("packs"), &p]);
    ok([
        Path::new("report"),
        &p,
        Path::new("--out"),
        &out.path().join("r.html"),
        Path::new("--bootstrap"),
        Path::new("10"),
    ]);
    ok([
        Path::new("export"),
        &p,
        Path::new("--out"),
        &out.path().join("gold.jsonl"),
    ]);
    assert!(out.path().join("r.html").is_file() && out.path().join("gold.card.md").is_file());

    assert!(
        files(&ro) == before,
        "a reading command changed the read-only folder"
    );
    assert!(
        !ro.join("p.fdesk.index").exists(),
        "an index was written beside the project"
    );
}

#[test]
fn writing_commands_name_the_read_only_file_and_change_nothing() {
    let home = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let ro = home.path().join("ro");
    std::fs::create_dir(&ro).unwrap_or_else(|e| panic!("{e}"));
    let p = demo_project(&ro, "p.fdesk", &["ana"]);
    let claims = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/demo/claims.jsonl");
    let _guard = ReadOnly::new(&ro);
    let before = files(&ro);
    let says = format!(
        "{} is read-only: this changes the project, so it needs write access to the file and its folder",
        p.display()
    );
    let attempts: Vec<Vec<&std::ffi::OsStr>> = vec![
        vec![
            "annotators".as_ref(),
            p.as_os_str(),
            "add".as_ref(),
            "zoe".as_ref(),
        ],
        vec![
            "tasks".as_ref(),
            p.as_os_str(),
            "--kind".as_ref(),
            "label".as_ref(),
        ],
        vec![
            "settings".as_ref(),
            p.as_os_str(),
            "--set".as_ref(),
            "overlap=2".as_ref(),
        ],
        vec![
            "next".as_ref(),
            p.as_os_str(),
            "--as".as_ref(),
            "ana".as_ref(),
        ],
        vec!["import".as_ref(), p.as_os_str(), claims.as_os_str()],
        vec!["rank".as_ref(), p.as_os_str()],
        vec!["reindex".as_ref(), p.as_os_str()],
    ];
    for args in attempts {
        let out = factdesk(&args);
        let msg = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?} should fail: {msg}");
        assert!(msg.contains(&says), "{args:?} should say {says:?}: {msg}");
    }
    assert!(
        files(&ro) == before,
        "a refused command changed the read-only folder"
    );
}

#[test]
fn a_read_only_project_that_needs_migrating_says_to_open_it_writable_once() {
    let home = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let ro = home.path().join("ro");
    std::fs::create_dir(&ro).unwrap_or_else(|e| panic!("{e}"));
    let p = ro.join("old.fdesk");
    ok([Path::new("init"), &p]);
    let conn = rusqlite::Connection::open(&p).unwrap_or_else(|e| panic!("{e}"));
    conn.pragma_update(None, "user_version", 1)
        .unwrap_or_else(|e| panic!("{e}"));
    drop(conn);
    let _guard = ReadOnly::new(&ro);
    let before = files(&ro);
    let out = factdesk([Path::new("stats"), &p]);
    let msg = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{msg}");
    assert!(
        msg.contains("was written by an older Factdesk (schema version 1;")
            && msg
                .contains("Open it once with write access to update it; the file was not changed."),
        "{msg}"
    );
    assert!(files(&ro) == before);
}

#[test]
fn a_folder_given_as_a_project_is_named_a_folder() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let out = factdesk([Path::new("stats"), dir.path()]);
    assert_eq!(out.status.code(), Some(1));
    let says = format!("{} is a folder, not a project file", dir.path().display());
    assert!(stderr(&out).contains(&says), "{}", stderr(&out));
}

/// A copy with changes in its write-ahead log and no `-shm`, in a read-only folder, read
/// by someone who may not write there (run as the `nobody` user through `setpriv`; root
/// could create the `-shm` file SQLite needs).
#[test]
fn a_read_only_project_with_a_pending_log_says_so_by_name() {
    if !is_root() {
        return; // CI runs as root; setpriv needs it to take another user's identity
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    set_mode(dir.path(), 0o755);
    let p = crate::demo_project(dir.path(), "logged.fdesk", &["ana"]);
    let copy = dir.path().join("ro");
    std::fs::create_dir(&copy).unwrap_or_else(|e| panic!("{e}"));
    {
        let holder = rusqlite::Connection::open(&p).unwrap_or_else(|e| panic!("{e}"));
        holder
            .execute_batch(
                "PRAGMA wal_autocheckpoint = 0; UPDATE project SET name = name || ' (copy)';",
            )
            .unwrap_or_else(|e| panic!("{e}"));
        for name in ["logged.fdesk", "logged.fdesk-wal"] {
            std::fs::copy(dir.path().join(name), copy.join(name)).unwrap_or_else(|e| panic!("{e}"));
            set_mode(&copy.join(name), 0o444);
        }
    }
    set_mode(&copy, 0o555);
    let out = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_factdesk"))
        .arg("stats")
        .arg(copy.join("logged.fdesk"))
        .output()
        .unwrap_or_else(|e| panic!("setpriv: {e}"));
    set_mode(&copy, 0o755);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("is read-only and has changes in its write-ahead log"),
        "{err}"
    );
}

fn is_root() -> bool {
    std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}
