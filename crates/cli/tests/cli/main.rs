//! Integration tests of the `factdesk` binary on real project files and the shared data.
// A scenario reads best top to bottom: test functions may run past 100 lines.
#![allow(clippy::too_many_lines)]

mod agreement;
mod bad_input;
mod bad_shapes;
mod claim_numbers;
mod data_out;
mod enum_args;
mod gate;
mod gold;
mod gold_schema;
mod gold_tasks;
mod import_kill;
mod import_kill_live;
mod import_real;
mod names;
mod packs;
mod project_file;
mod questions;
mod race;
mod ranking;
mod read_only;
mod recipes;
mod report;
mod safe_outputs;
mod sample;
mod search;
mod serve;
mod sessions_and_limits;
mod small_refusals;
mod stance;
mod submit_kill;
mod team;

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Runs `factdesk` with `args`.
pub fn factdesk<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    Command::new(env!("CARGO_BIN_EXE_factdesk"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run factdesk: {e}"))
}

/// Runs `factdesk` and requires success.
pub fn ok<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let out = factdesk(args);
    assert!(
        out.status.success(),
        "factdesk failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A file from ../shared/data; the tests need it and say so if it is missing.
pub fn data(name: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data")
        .join(name);
    assert!(
        p.is_file(),
        "test data {} is missing: the shared data folder must sit beside the repository",
        p.display()
    );
    p
}

/// A project in `dir` of COVID-Fact's evaluation set (`make-eval-set`: 1,296 supported
/// claims and their documents, in `dir/set`), imported with `import_args` added; the
/// set's folder and the project.
pub fn eval_set_project(dir: &Path, import_args: &[&str]) -> (PathBuf, PathBuf) {
    let set = dir.join("set");
    ok([
        Path::new("make-eval-set"),
        &data("covidfact.jsonl"),
        Path::new("--out"),
        &set,
    ]);
    let p = new_project(dir);
    let (claims, docs) = (set.join("claims.jsonl"), set.join("documents.jsonl"));
    let mut args = vec![Path::new("import"), &p, &claims, Path::new("--docs"), &docs];
    args.extend(import_args.iter().map(Path::new));
    ok(args);
    (set, p)
}

/// The texts of a claim's candidates, best first (`factdesk candidates --json`).
pub fn candidate_texts(project: &Path, claim: &str) -> Vec<String> {
    let out = ok([
        Path::new("candidates"),
        project,
        Path::new("--claim"),
        Path::new(claim),
        Path::new("--json"),
    ]);
    let all: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
    all.as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str().map(str::to_owned))
        .collect()
}

/// A new, empty project in `dir`.
pub fn new_project(dir: &Path) -> PathBuf {
    let p = dir.join("p.fdesk");
    ok([Path::new("init"), &p]);
    p
}

/// A project of the demo data (assets/demo) at `dir/name`, with these annotators and
/// evidence tasks for two of them each.
pub fn demo_project(dir: &Path, name: &str, annotators: &[&str]) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let p = dir.join(name);
    ok([Path::new("init"), &p]);
    ok([
        Path::new("import"),
        &p,
        &root.join("assets/demo/claims.jsonl"),
        Path::new("--docs"),
        &root.join("assets/demo/documents.jsonl"),
    ]);
    with_evidence_tasks(&p, annotators);
    p
}

/// Adds these annotators to `project` and makes its evidence tasks, of overlap 2.
pub fn with_evidence_tasks(project: &Path, annotators: &[&str]) {
    for who in annotators {
        ok([
            Path::new("annotators"),
            project,
            Path::new("add"),
            Path::new(who),
        ]);
    }
    ok([
        Path::new("tasks"),
        project,
        Path::new("--kind"),
        Path::new("evidence"),
        Path::new("--overlap"),
        Path::new("2"),
    ]);
}

/// Feeds `lines` to one `factdesk submit --as who` process: whether it succeeded, and
/// what it printed (an ack or an error line per answer).
pub fn try_submit(project: &Path, who: &str, lines: &[Value]) -> (bool, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_factdesk"))
        .arg("submit")
        .arg(project)
        .args(["--as", who])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run factdesk: {e}"));
    let mut stdin = child.stdin.take().unwrap_or_else(|| panic!("no stdin"));
    for line in lines {
        writeln!(stdin, "{line}").unwrap_or_else(|e| panic!("{e}"));
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// Feeds `lines` to one `factdesk submit --as who` process, which must succeed; returns
/// what it printed (an ack line per answer).
pub fn submit(project: &Path, who: &str, lines: &[Value]) -> String {
    let (fine, printed) = try_submit(project, who, lines);
    assert!(fine, "{printed}");
    printed
}

/// Leaves every task served to `who` with the reservation lapsed, as `factdesk next`
/// would have left it one item at a time. Answers are taken only on items given
/// (docs/assignment.md); a test that sends hundreds of answers through one `factdesk
/// submit` (a race, a kill) sets this up in the file, where serving each item first
/// through the command line would take a process per item.
pub fn served_everything(project: &Path, who: &str) {
    let conn = rusqlite::Connection::open(project).unwrap_or_else(|e| panic!("{e}"));
    let n = conn
        .execute(
            "INSERT INTO assignments (task_id, annotator_id, reserved_at, expires_at, state)
             SELECT t.id, a.id, 0, 0, 'reserved' FROM tasks t JOIN annotators a ON a.name = ?1",
            [who],
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(n > 0, "no tasks served to {who}");
}

/// `big.jsonl` in `dir`: `n` claims with their evidence sentences, enough rows that an
/// import takes a while (and, past 1,000, writes a live project in several chunks).
pub fn claims_with_evidence(dir: &Path, n: usize) -> PathBuf {
    use std::io::Write;
    let path = dir.join("big.jsonl");
    let mut w =
        std::io::BufWriter::new(std::fs::File::create(&path).unwrap_or_else(|e| panic!("{e}")));
    for i in 0..n {
        writeln!(
            w,
            r#"{{"id": "k{i}", "claim": "Claim number {i} says the harbour held {i} ships in 1900.", "evidence": ["The harbour held {i} ships.", "Records from {i} confirm it."]}}"#
        )
        .unwrap_or_else(|e| panic!("{e}"));
    }
    drop(w);
    path
}

/// `factdesk stats --json` as a JSON object.
pub fn stats(project: &Path) -> Value {
    let out = ok([Path::new("stats"), project, Path::new("--json")]);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("stats --json is not JSON: {e}"))
}

/// A digest of every row of every table, independent of how SQLite laid out the file.
pub fn content_digest(project: &Path) -> String {
    let conn = rusqlite::Connection::open(project).unwrap_or_else(|e| panic!("open: {e}"));
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .unwrap_or_else(|e| panic!("list tables: {e}"));
    let mut hasher = blake3::Hasher::new();
    for t in tables {
        let mut stmt = conn
            .prepare(&format!("SELECT * FROM \"{t}\""))
            .unwrap_or_else(|e| panic!("{e}"));
        let cols = stmt.column_count();
        let mut rows = stmt.query([]).unwrap_or_else(|e| panic!("{e}"));
        hasher.update(t.as_bytes());
        while let Ok(Some(row)) = rows.next() {
            for i in 0..cols {
                let v: rusqlite::types::Value = row.get(i).unwrap_or(rusqlite::types::Value::Null);
                hasher.update(format!("{v:?}\u{1f}").as_bytes());
            }
        }
    }
    hasher.finalize().to_hex().to_string()
}

/// The bytes of the project file itself, after SQLite has folded its WAL back in.
pub fn file_digest(project: &Path) -> String {
    let conn = rusqlite::Connection::open(project).unwrap_or_else(|e| panic!("open: {e}"));
    conn.pragma_update(None, "wal_checkpoint", "TRUNCATE").ok();
    drop(conn);
    let bytes = std::fs::read(project).unwrap_or_else(|e| panic!("read: {e}"));
    blake3::hash(&bytes).to_hex().to_string()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}
