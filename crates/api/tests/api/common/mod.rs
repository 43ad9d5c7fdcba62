//! Projects and items shared by the api's integration tests.

#![allow(dead_code)] // each test binary uses its own part of this module

use factdesk_api::annotate::Item;
use factdesk_api::import::{import, ImportRequest};
use factdesk_api::settings::{trick_sentence, EvidenceStance};
use factdesk_api::RawSql as _;
use factdesk_api::{ManualClock, NoProgress, Project};
use std::io::Write;

/// A project of `n` claims, each with a document of eight sentences that ranks one of
/// them (the lighthouse) first, under the `supports` stance: its trick is the negation,
/// which tests playing careless annotators find by its text.
pub fn project(dir: &std::path::Path, n: usize, clock: &ManualClock) -> Project {
    supports(project_at(dir, n, clock, &location(dir, "p.fdesk")))
}

/// [`project`] in the file `p.fdesk` on either run, for tests of what a file holds.
pub fn file_project(dir: &std::path::Path, n: usize, clock: &ManualClock) -> Project {
    supports(project_at(dir, n, clock, &dir.join("p.fdesk")))
}

fn supports(mut p: Project) -> Project {
    let mut settings = p.settings().unwrap_or_else(|e| panic!("{e}"));
    settings.choose_stance(EvidenceStance::Supports);
    p.set_settings(&p.lead(), &settings)
        .unwrap_or_else(|e| panic!("{e}"));
    p
}

/// [`project`] as imported, with no stance chosen (served as `supports_or_refutes`).
pub fn project_of_default_stance(dir: &std::path::Path, n: usize, clock: &ManualClock) -> Project {
    project_at(dir, n, clock, &location(dir, "p.fdesk"))
}

fn project_at(
    dir: &std::path::Path,
    n: usize,
    clock: &ManualClock,
    at: &std::path::Path,
) -> Project {
    let docs = dir.join("docs.jsonl");
    let claims = dir.join("claims.jsonl");
    let mut d = std::fs::File::create(&docs).unwrap_or_else(|e| panic!("{e}"));
    let mut c = std::fs::File::create(&claims).unwrap_or_else(|e| panic!("{e}"));
    for i in 0..n {
        let text = format!(
            "The harbour of town {i} held {i} ships in 1900. Its lighthouse was built in {}. The mayor of town {i} opened a museum. Fishing declined after the war. A ferry linked town {i} to the island. The river flooded twice. Tourism grew in the 1990s. The port closed in {}.",
            1800 + i,
            1950 + i
        );
        let doc = serde_json::json!({"id": format!("d{i}"), "text": text});
        writeln!(d, "{doc}").unwrap_or_else(|e| panic!("{e}"));
        let claim = format!("Town {i} had a lighthouse built in {}", 1800 + i);
        let row = serde_json::json!({"id": format!("c{i}"), "claim": claim, "doc_ids": [format!("d{i}")], "label": "SUPPORTED"});
        writeln!(c, "{row}").unwrap_or_else(|e| panic!("{e}"));
    }
    let mut p = Project::create(at, Box::new(clock.clone())).unwrap_or_else(|e| panic!("{e}"));
    let req = ImportRequest {
        claims: vec![claims],
        documents: vec![docs],
        ..Default::default()
    };
    let owner = p.lead();
    import(&mut p, &owner, &req, &mut NoProgress).unwrap_or_else(|e| panic!("{e}"));
    p
}

/// The option id of the trick sentence in an evidence item, found by its text as only a
/// test reading the project file can: the negation under `supports`, the task's stored
/// sentence under `supports_or_refutes`.
pub fn trick_option(p: &Project, item: &Item) -> Option<String> {
    let settings = p.settings().unwrap_or_else(|e| panic!("{e}"));
    let trick = match settings.stance() {
        EvidenceStance::Supports => trick_sentence(&settings.trick_template, &item.claim),
        EvidenceStance::SupportsOrRefutes => p
            .store()
            .read()
            .query_row(
                "SELECT s.text FROM task_tricks t JOIN sentences s ON s.id = t.sentence_id WHERE t.task_id = ?1",
                [item.task_id],
                |r| r.get(0),
            )
            .ok()?,
    };
    item.options
        .iter()
        .find(|o| o.text == trick)
        .map(|o| o.id.clone())
}

/// The first option of an evidence item that is a real sentence, not the trick.
pub fn real_option(p: &Project, item: &Item) -> String {
    let trick = trick_option(p, item).unwrap_or_default();
    item.options
        .iter()
        .map(|o| o.id.clone())
        .find(|id| *id != trick)
        .unwrap_or_default()
}

pub fn must<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// Where a test's new project goes: the file `name` in `dir`, or, when FACTDESK_TEST_PG
/// names a PostgreSQL server (a URL of a role that may create databases), a fresh
/// database of its own there, as a `postgres://` URL. Under CI the variable is required.
/// The same `dir` and `name` give the same place again, to reopen the project.
pub fn location(dir: &std::path::Path, name: &str) -> std::path::PathBuf {
    match std::env::var("FACTDESK_TEST_PG") {
        Ok(server) if !server.is_empty() => {
            let note = dir.join(format!("{name}.postgres-url"));
            if let Ok(url) = std::fs::read_to_string(&note) {
                return std::path::PathBuf::from(url);
            }
            let url = fresh_database(&server);
            must(std::fs::write(&note, &url));
            std::path::PathBuf::from(url)
        }
        _ => dir.join(name),
    }
}

/// Whether this run puts the tests' projects in PostgreSQL.
pub fn on_postgres() -> bool {
    std::env::var("FACTDESK_TEST_PG").is_ok_and(|s| !s.is_empty())
}

/// Creates an empty database on `server` and returns its URL. The first call of a test
/// process also starts dropping the databases left by earlier ones that have ended.
fn fresh_database(server: &str) -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    static SWEPT: std::sync::Once = std::sync::Once::new();
    let mut admin = must(postgres::Client::connect(server, postgres::NoTls));
    let pid = std::process::id();
    // Once, on a thread of its own: each drop waits for a checkpoint, and a run after a
    // run leaves hundreds; every test of the process waited on them, both test threads
    // dropping the same list.
    SWEPT.call_once(|| {
        let server = server.to_string();
        std::thread::spawn(move || drop_stale_databases(&server, pid));
    });
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let salt = &uuid::Uuid::new_v4().simple().to_string()[..8];
    let name = format!("fdtest_{pid}_{n}_{salt}");
    must(admin.batch_execute(&format!("CREATE DATABASE \"{name}\"")));
    let base = server.split('?').next().unwrap_or(server);
    let (head, _) = base.rsplit_once('/').unwrap_or((base, ""));
    format!("{head}/{name}")
}

/// Drops the test databases of processes that have ended (their names hold their pid).
fn drop_stale_databases(server: &str, pid: u32) {
    let Ok(mut admin) = postgres::Client::connect(server, postgres::NoTls) else {
        return;
    };
    let Ok(rows) = admin.query(
        r"SELECT datname FROM pg_database WHERE datname LIKE 'fdtest\_%'",
        &[],
    ) else {
        return;
    };
    let stale = rows.iter().map(|r| r.get::<_, String>(0)).filter(|name| {
        name.split('_')
            .nth(1)
            .and_then(|p| p.parse::<u32>().ok())
            .is_some_and(|p| p != pid && !std::path::Path::new(&format!("/proc/{p}")).exists())
    });
    for name in stale {
        let _ = admin.batch_execute(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"));
    }
}

/// Every value of every row of every table but the schema, as text (blobs as hex and as
/// lossy text, so a secret or a name inside a blob shows either way).
pub fn every_value(path: &std::path::Path) -> Vec<(String, String, String)> {
    let conn = must(rusqlite::Connection::open(path));
    let tables: Vec<String> = {
        let mut stmt = must(conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table'"));
        must(must(stmt.query_map([], |r| r.get(0))).collect::<Result<_, _>>())
    };
    let mut out = Vec::new();
    for table in tables {
        let mut stmt = must(conn.prepare(&format!("SELECT * FROM \"{table}\"")));
        let columns: Vec<String> = stmt.column_names().iter().map(|s| s.to_string()).collect();
        let mut rows = must(stmt.query([]));
        while let Some(row) = must(rows.next()) {
            for (i, col) in columns.iter().enumerate() {
                let text = match must(row.get_ref(i)) {
                    rusqlite::types::ValueRef::Null => "NULL".to_string(),
                    rusqlite::types::ValueRef::Integer(v) => v.to_string(),
                    rusqlite::types::ValueRef::Real(v) => v.to_string(),
                    rusqlite::types::ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                    rusqlite::types::ValueRef::Blob(b) => format!(
                        "{} {}",
                        b.iter().map(|x| format!("{x:02x}")).collect::<String>(),
                        String::from_utf8_lossy(b)
                    ),
                };
                out.push((table.clone(), col.clone(), text));
            }
        }
    }
    out
}

/// Every value of every table of an open project, on either engine, as text and sorted:
/// what a use case that must change nothing is checked against.
pub fn project_values(p: &Project) -> Vec<(String, String, String)> {
    let conn = p.store().read();
    let list = match conn.engine() {
        factdesk_store::Engine::Sqlite => "SELECT name FROM sqlite_master WHERE type = 'table'",
        factdesk_store::Engine::Postgres => {
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
        }
    };
    let tables: Vec<String> = {
        let mut stmt = must(conn.prepare(list));
        must(must(stmt.query_map([], |r| r.get(0))).collect::<Result<_, _>>())
    };
    let mut out = Vec::new();
    for table in tables {
        let mut stmt = must(conn.prepare(&format!("SELECT * FROM \"{table}\"")));
        let mut rows = must(stmt.query([]));
        while let Some(row) = must(rows.next()) {
            for i in 0..row.column_count() {
                let text = match must(row.get_ref(i)) {
                    rusqlite::types::ValueRef::Null => "NULL".to_string(),
                    rusqlite::types::ValueRef::Integer(v) => v.to_string(),
                    rusqlite::types::ValueRef::Real(v) => v.to_string(),
                    rusqlite::types::ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                    rusqlite::types::ValueRef::Blob(b) => {
                        b.iter().map(|x| format!("{x:02x}")).collect::<String>()
                    }
                };
                out.push((table.clone(), row.column_name(i).unwrap_or_default(), text));
            }
        }
    }
    out.sort();
    out
}

/// The raw bytes of a file and of any journal or write-ahead log beside it.
pub fn raw_with_logs(path: &std::path::Path) -> Vec<u8> {
    let mut raw = must(std::fs::read(path));
    for suffix in ["-wal", "-journal"] {
        if let Ok(more) = std::fs::read(format!("{}{suffix}", path.display())) {
            raw.extend(more);
        }
    }
    raw
}

/// A file from ../shared/data; the tests need it and say so if it is missing.
pub fn data(name: &str) -> std::path::PathBuf {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data")
        .join(name);
    assert!(
        p.is_file(),
        "test data {} is missing: the shared data folder must sit beside the repository",
        p.display()
    );
    p
}

/// The tables of a pack file and nothing else: a pack is not a project.
pub const PACK_TABLES: [&str; 5] = ["answers", "items", "manifest", "passages", "problems"];

/// Every value in a pack that is not what the annotator's screens show for its items:
/// the tables must be the pack's five (problems holds only what its holder wrote), every item must read back as the `Item` `next`
/// serves and every passage as the `Passage` "show in document" gives, with nothing
/// more. Returns the offending places.
pub fn beyond_the_screen(path: &std::path::Path) -> Vec<String> {
    let conn = must(rusqlite::Connection::open(path));
    let mut bad = Vec::new();
    let mut tables: Vec<String> = {
        let mut stmt = must(conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table'"));
        must(must(stmt.query_map([], |r| r.get(0))).collect::<Result<_, _>>())
    };
    tables.sort();
    if tables != PACK_TABLES {
        bad.push(format!("tables {tables:?}"));
    }
    let strict = |table: &str, text: &str, as_item: bool| -> Option<String> {
        let value: serde_json::Value = serde_json::from_str(text).ok()?;
        let again = if as_item {
            let item: Item = serde_json::from_str(text).ok()?;
            serde_json::to_value(item).ok()?
        } else {
            let p: factdesk_api::annotate::Passage = serde_json::from_str(text).ok()?;
            serde_json::to_value(p).ok()?
        };
        (value != again).then(|| format!("{table}: fields beyond the screen's in {text}"))
    };
    let mut stmt = must(conn.prepare("SELECT item FROM items"));
    for text in
        must(must(stmt.query_map([], |r| r.get::<_, String>(0))).collect::<Result<Vec<_>, _>>())
    {
        if serde_json::from_str::<Item>(&text).is_err() {
            bad.push(format!("items: not an item: {text}"));
        }
        bad.extend(strict("items", &text, true));
    }
    let mut stmt = must(conn.prepare("SELECT passage FROM passages"));
    for text in
        must(must(stmt.query_map([], |r| r.get::<_, String>(0))).collect::<Result<Vec<_>, _>>())
    {
        bad.extend(strict("passages", &text, false));
    }
    bad
}

/// The first `n` lines of COVID-Fact, written to `dir`, for importing.
pub fn covid_fact_head(dir: &std::path::Path, n: usize) -> std::path::PathBuf {
    let text = must(std::fs::read_to_string(data("covidfact.jsonl")));
    let path = dir.join(format!("covidfact-{n}.jsonl"));
    let head: Vec<&str> = text.lines().take(n).collect();
    must(std::fs::write(&path, head.join("\n") + "\n"));
    path
}

/// A new project `name` in `dir` with `claims` (and `documents`) imported as `preset`.
pub fn imported(
    dir: &std::path::Path,
    name: &str,
    clock: &ManualClock,
    claims: std::path::PathBuf,
    documents: Option<std::path::PathBuf>,
    preset: factdesk_api::import::Preset,
) -> Project {
    let mut p = must(Project::create(
        &location(dir, name),
        Box::new(clock.clone()),
    ));
    let req = ImportRequest {
        claims: vec![claims],
        documents: documents.into_iter().collect(),
        preset,
        ..Default::default()
    };
    let owner = p.lead();
    must(import(&mut p, &owner, &req, &mut NoProgress));
    p
}

/// Who a test acts as: `lead()` is the project's first lead (its owner while it has
/// none), `who(name)` the named person, resolved as a front end would once per session.
pub trait Acting {
    fn who(&self, name: &str) -> factdesk_api::Actor;
    /// The project's first lead (or its owner), proven by the gate.
    fn lead(&self) -> factdesk_api::Lead;
    /// The lead called `name`, proven by the gate.
    fn lead_named(&self, name: &str) -> factdesk_api::Lead;
}

impl Acting for factdesk_api::Project {
    fn who(&self, name: &str) -> factdesk_api::Actor {
        self.actor(name).unwrap_or_else(|e| panic!("{e}"))
    }
    fn lead(&self) -> factdesk_api::Lead {
        let actor = self.lead_or_owner(None).unwrap_or_else(|e| panic!("{e}"));
        self.as_lead(&actor, "act as the lead")
            .unwrap_or_else(|e| panic!("{e}"))
    }
    fn lead_named(&self, name: &str) -> factdesk_api::Lead {
        let actor = self.who(name);
        self.as_lead(&actor, "act as a lead")
            .unwrap_or_else(|e| panic!("{e}"))
    }
}

impl Acting for factdesk_api::packs::Workplace {
    fn who(&self, name: &str) -> factdesk_api::Actor {
        self.actor(name).unwrap_or_else(|e| panic!("{e}"))
    }
    fn lead(&self) -> factdesk_api::Lead {
        panic!("a workplace is for the annotator's work")
    }
    fn lead_named(&self, _: &str) -> factdesk_api::Lead {
        panic!("a workplace is for the annotator's work")
    }
}

impl Acting for factdesk_api::packs::PackSession {
    fn who(&self, name: &str) -> factdesk_api::Actor {
        self.actor(name).unwrap_or_else(|e| panic!("{e}"))
    }
    fn lead(&self) -> factdesk_api::Lead {
        panic!("a pack is for its holder's work")
    }
    fn lead_named(&self, _: &str) -> factdesk_api::Lead {
        panic!("a pack is for its holder's work")
    }
}

/// The marked sentences of a passage, in order: the one it was asked about.
pub fn marked(passage: &factdesk_api::annotate::Passage) -> Vec<&str> {
    passage
        .sentences
        .iter()
        .filter(|s| s.hit)
        .map(|s| s.text.as_str())
        .collect()
}

/// Gives `task` to `name` in the project file `p` as a reservation that has lapsed, the
/// state `next` leaves once its time ran out: answers are taken only on items given, and
/// a test that answers a chosen item (the same one as in a pack, whose order is its own)
/// cannot reach it through `next` and skips, whose order the project's secret draws.
pub fn give(p: &Project, name: &str, task: i64) {
    let conn = must(rusqlite::Connection::open(p.path()));
    let n = must(conn.execute(
        "INSERT INTO assignments (task_id, annotator_id, reserved_at, expires_at, state)
         SELECT ?1, a.id, 0, 0, 'reserved' FROM annotators a WHERE a.name = ?2",
        rusqlite::params![task, name],
    ));
    assert_eq!(n, 1, "no annotator {name}");
}

/// The code of the error `r` must be.
pub fn code<T: std::fmt::Debug>(r: factdesk_api::Result<T>) -> factdesk_api::ErrorCode {
    match r {
        Ok(v) => panic!("expected an error, got {v:?}"),
        Err(e) => e.code,
    }
}

/// Sets the evidence stance as the lead; the refusal's message when refused (always a
/// conflict: answers or items out under the old stance).
pub fn set_stance(p: &mut Project, stance: EvidenceStance) -> Option<String> {
    let mut s = must(p.settings());
    s.evidence_stance = Some(stance);
    match p.set_settings(&p.lead(), &s) {
        Ok(()) => None,
        Err(e) => {
            assert_eq!(e.code, factdesk_api::ErrorCode::Conflict, "{e}");
            Some(e.message)
        }
    }
}

/// The reference `who` ("lead" for the project's first lead) opens claim `id` by, as
/// their search shows it: the lead's number, an annotator's own opaque reference (found
/// by searching the claim's text as a phrase); `None` when they do not find it.
pub fn reference_of(p: &factdesk_api::Project, who: &str, id: i64) -> Option<String> {
    let actor = if who == "lead" {
        (*p.lead()).clone()
    } else {
        p.who(who)
    };
    let text: String = must(p.store().read().query_row(
        "SELECT text FROM claims WHERE id = ?1",
        [id],
        |r| r.get(0),
    ));
    let phrase: String = text.chars().filter(|c| *c != '"').collect();
    must(p.search(&actor, &format!("\"{phrase}\""), 50))
        .into_iter()
        .find(|h| h.kind == factdesk_api::dto::SearchHitKind::Claim && h.text == text)
        .map(|h| h.reference)
}

/// Imports a model's refutation of each claim `c{i}` of `ids` ("Town {i} never had
/// Quarrington walls of stone"), as a predictions file written into `dir`.
pub fn import_model_refutations(
    p: &mut Project,
    dir: &std::path::Path,
    ids: impl Iterator<Item = usize>,
) {
    let path = dir.join("predictions.jsonl");
    let lines: Vec<String> = ids
        .map(|i| {
            serde_json::json!({"claim_id": format!("c{i}"), "model": "m", "refuted": format!("Town {i} never had Quarrington walls of stone")})
                .to_string()
        })
        .collect();
    must(std::fs::write(&path, lines.join("\n") + "\n"));
    must(p.import_predictions(&p.lead(), &path, None));
}

/// `claims` claims with evidence tasks of overlap 1, and annotators ana and ben.
pub fn ana_and_ben(claims: usize, dir: &std::path::Path, clock: &ManualClock) -> Project {
    let mut p = project(dir, claims, clock);
    p.create_tasks(&p.lead(), factdesk_api::tasks::TaskKind::Evidence, Some(1))
        .unwrap_or_else(|e| panic!("{e}"));
    for n in ["ana", "ben"] {
        p.add_annotator(&p.lead(), n, factdesk_api::annotators::Role::Annotator)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    p
}

/// A project of `claims` label items of `overlap`, with `people` as annotators, and a
/// pack of all the items for the first of them, as issued.
pub fn issued_label_pack(
    dir: &std::path::Path,
    clock: &ManualClock,
    claims: usize,
    overlap: u32,
    people: &[&str],
) -> (Project, std::path::PathBuf) {
    use factdesk_api::annotators::Role;
    use factdesk_api::packs::PackRequest;
    use factdesk_api::tasks::TaskKind;
    let mut lead = project(dir, claims, clock);
    must(lead.create_tasks(&lead.lead(), TaskKind::Label, Some(overlap)));
    for name in people {
        must(lead.add_annotator(&lead.lead(), name, Role::Annotator));
    }
    let path = dir.join(format!("{}.fdpack", people[0]));
    let req = PackRequest {
        annotator: people[0].to_string(),
        count: claims as u64,
        kind: Some(TaskKind::Label),
        expires_days: 7,
    };
    must(lead.issue_pack(&lead.lead(), &req, &path));
    (lead, path)
}

/// A copy of the pack at `path`, named `name`, rewritten by `sql` as its owner can.
pub fn doctored(path: &std::path::Path, name: &str, sql: &str) -> std::path::PathBuf {
    let copy = path.with_file_name(name);
    must(std::fs::copy(path, &copy));
    let conn = must(rusqlite::Connection::open(&copy));
    must(conn.execute_batch(&format!("PRAGMA foreign_keys = OFF; {sql}")));
    copy
}

/// Whether the semantic model is installed; without it a test that needs it is skipped,
/// except under FACTDESK_REQUIRE_MODEL=1 (CI), where its absence fails the test.
pub fn model_installed() -> bool {
    let found = factdesk_semantic::locate(None, &factdesk_semantic::Locations::from_env());
    let required = std::env::var("FACTDESK_REQUIRE_MODEL").is_ok_and(|v| v == "1");
    if let Err(e) = &found {
        assert!(!required, "FACTDESK_REQUIRE_MODEL=1 but {e}");
        eprintln!("skipping: {e}");
    }
    found.is_ok()
}
