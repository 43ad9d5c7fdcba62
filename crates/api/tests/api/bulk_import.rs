//! An import and a task creation give the same rows on both engines: on PostgreSQL the
//! rows go out with COPY (factdesk_store's `pg_copy`), on a file one INSERT each. Runs
//! when FACTDESK_TEST_PG names a PostgreSQL server (scripts/test-all sets it).

use factdesk_api::import::{import, ImportRequest, Preset};
use factdesk_api::tasks::TaskKind;
use factdesk_api::RawSql as _;
use factdesk_api::{ManualClock, NoProgress, Project};
use std::io::Write;

use crate::common;
use common::Acting;

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// Every row of the tables an import and a task creation write, keyed by external ids
/// (never by row ids), as text and sorted.
const TABLES: [(&str, &str); 8] = [
    (
        "claims",
        "SELECT c.ext_id, c.text, c.context, c.label, c.source_url, p.ext_id, c.metadata, c.hash,
                c.origin, c.refutation_state, c.created_at
         FROM claims c LEFT JOIN claims p ON p.id = c.parent_id",
    ),
    (
        "documents",
        "SELECT ext_id, url, title, text, hash, gaps FROM documents",
    ),
    (
        "sentences",
        "SELECT d.ext_id, s.idx, s.start_char, s.end_char, s.text
         FROM sentences s JOIN documents d ON d.id = s.document_id",
    ),
    (
        "claim_documents",
        "SELECT c.ext_id, d.ext_id FROM claim_documents cd
         JOIN claims c ON c.id = cd.claim_id JOIN documents d ON d.id = cd.document_id",
    ),
    (
        "candidates",
        "SELECT c.ext_id, k.rank, d.ext_id, s.idx, k.ranker, k.score, k.bm25, k.levenshtein,
                k.jaccard, k.fused, k.semantic, k.placed
         FROM candidates k JOIN claims c ON c.id = k.claim_id
         JOIN sentences s ON s.id = k.sentence_id JOIN documents d ON d.id = s.document_id",
    ),
    (
        "tasks",
        "SELECT t.kind, c.ext_id, t.overlap, t.trick_slot, t.shuffle_key, t.answered,
                t.closed_at, t.created_at
         FROM tasks t JOIN claims c ON c.id = t.claim_id",
    ),
    (
        "task_tricks",
        "SELECT c.ext_id, d.ext_id, s.idx FROM task_tricks x JOIN tasks t ON t.id = x.task_id
         JOIN claims c ON c.id = t.claim_id JOIN sentences s ON s.id = x.sentence_id
         JOIN documents d ON d.id = s.document_id",
    ),
    (
        "open_tasks",
        "SELECT kind, sum(open) FROM open_tasks GROUP BY kind",
    ),
];

fn rows(p: &Project, sql: &str) -> Vec<Vec<String>> {
    let conn = p.store().read();
    let mut stmt = ok(conn.prepare(sql));
    let mut rows = ok(stmt.query([]));
    let mut out = Vec::new();
    while let Some(row) = ok(rows.next()) {
        let values = (0..row.column_count())
            .map(|i| match ok(row.get_ref(i)) {
                rusqlite::types::ValueRef::Null => "NULL".to_string(),
                rusqlite::types::ValueRef::Integer(v) => v.to_string(),
                rusqlite::types::ValueRef::Real(v) => format!("{v:?}"),
                rusqlite::types::ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                rusqlite::types::ValueRef::Blob(b) => format!("{b:02x?}"),
            })
            .collect();
        out.push(values);
    }
    out.sort();
    out
}

/// Claims and documents whose text holds what COPY's text format must escape (tabs,
/// newlines, backslashes, `\N`), quotes and non-ASCII text, inline evidence, shared
/// documents, refutations given with their claim, metadata and a repeated row.
fn write_inputs(dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let docs = dir.join("docs.jsonl");
    let claims = dir.join("claims.jsonl");
    let mut d = ok(std::fs::File::create(&docs));
    let mut c = ok(std::fs::File::create(&claims));
    for i in 0..40 {
        let text = format!(
            "The harbour of town {i} held {i} ships in 1900.\tIts lighthouse was built in {}. \
             The mayor said \"no\" to a back\\slash and a \\N in town {i}.\nFishing declined after the war. \
             Ça a changé à Zürich en {}. The port closed in {}.",
            1800 + i,
            1900 + i,
            1950 + i
        );
        let doc = serde_json::json!({"id": format!("d{i}"), "title": format!("Town {i}\t(\\)"), "text": text});
        ok(writeln!(d, "{doc}"));
    }
    for i in 0..60 {
        let claim = format!(
            "Town {} had a lighthouse built in {}",
            i % 40,
            1800 + i % 40
        );
        let mut row = serde_json::json!({
            "id": format!("c{i}"),
            "claim": claim,
            "doc_ids": [format!("d{}", i % 40), format!("d{}", (i + 1) % 40)],
            "label": if i % 3 == 0 { "REFUTED" } else { "SUPPORTED" },
            "context": format!("Context\twith\\tab {i}\n"),
            "metadata": {"n": i, "note": "a\\b\tc"},
        });
        if i % 5 == 0 {
            row["refuted"] = serde_json::json!(format!("Town {} never had a lighthouse", i % 40));
        }
        if i % 7 == 0 {
            row["evidence"] = serde_json::json!([
                format!(
                    "Inline evidence {i} about the lighthouse of town {}.",
                    i % 40
                ),
                "A second\tinline sentence with a back\\slash.",
            ]);
        }
        ok(writeln!(c, "{row}"));
        if i == 10 {
            ok(writeln!(c, "{row}"));
        }
    }
    (claims, docs)
}

/// An import of [`write_inputs`]' claims and documents, written into `dir`.
fn awkward_request(dir: &std::path::Path) -> ImportRequest {
    let (claims, docs) = write_inputs(dir);
    ImportRequest {
        claims: vec![claims],
        documents: vec![docs],
        ..Default::default()
    }
}

/// Imports into a new project at `at`, gives it `secret` and the same seed, and creates
/// evidence and label tasks.
fn make(at: &std::path::Path, clock: &ManualClock, req: &ImportRequest) -> (Project, String) {
    let mut p = ok(Project::create(at, Box::new(clock.clone())));
    // The secret draws each task's trick: the same one on both sides.
    ok(p.store()
        .read()
        .execute("UPDATE project SET secret = ?1", [vec![7u8; 32]]));
    let owner = p.lead();
    let report = ok(import(&mut p, &owner, req, &mut NoProgress));
    let mut settings = ok(p.settings());
    settings.seed = 11;
    ok(p.set_settings(&p.lead(), &settings));
    let evidence = ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(3)));
    let label = ok(p.create_tasks(&p.lead(), TaskKind::Label, Some(2)));
    // Again: every claim has its tasks, so nothing is created and the report says so.
    let again = ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(2)));
    assert_eq!(again.created, 0);
    let reports = format!(
        "{}\n{}\n{}\n{}",
        ok(serde_json::to_string(&report)),
        ok(serde_json::to_string(&evidence)),
        ok(serde_json::to_string(&label)),
        ok(serde_json::to_string(&again))
    );
    (p, reports)
}

fn compare(req: &ImportRequest, dir: &std::path::Path) {
    let clock = ManualClock::new(1_000_000);
    let (file, file_reports) = make(&dir.join("f.fdesk"), &clock, req);
    let (pg, pg_reports) = make(&common::location(dir, "pg"), &clock, req);
    assert_eq!(pg.store().read().engine(), factdesk_store::Engine::Postgres);
    assert_eq!(file_reports, pg_reports);
    for (table, sql) in TABLES {
        let (a, b) = (rows(&file, sql), rows(&pg, sql));
        assert!(!a.is_empty() || table == "task_tricks", "{table}: no rows");
        assert_eq!(a.len(), b.len(), "{table}: row counts differ");
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x, y, "{table}: a row differs");
        }
    }
}

#[test]
fn an_import_and_its_tasks_give_the_same_rows_on_a_file_and_on_postgres() {
    if !common::on_postgres() {
        eprintln!("FACTDESK_TEST_PG is not set: the PostgreSQL bulk import test did not run");
        return;
    }
    let dir = ok(tempfile::tempdir());
    let req = awkward_request(dir.path());
    compare(&req, dir.path());
}

#[test]
fn covid_fact_with_its_refutations_gives_the_same_rows_on_a_file_and_on_postgres() {
    if !common::on_postgres() {
        eprintln!("FACTDESK_TEST_PG is not set: the PostgreSQL bulk import test did not run");
        return;
    }
    let dir = ok(tempfile::tempdir());
    let req = ImportRequest {
        claims: vec![common::covid_fact_head(dir.path(), 300)],
        preset: Preset::CovidFact,
        ..Default::default()
    };
    compare(&req, dir.path());
}

/// A row the database refuses while it waits in the COPY buffers fails the import as an
/// INSERT would, and the project is left as it was.
#[test]
fn a_bad_row_fails_the_bulk_import_and_leaves_the_project_unchanged() {
    if !common::on_postgres() {
        eprintln!("FACTDESK_TEST_PG is not set: the PostgreSQL bulk import test did not run");
        return;
    }
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = ok(Project::create(
        &common::location(dir.path(), "pg"),
        Box::new(clock.clone()),
    ));
    let before = common::project_values(&p);
    let claims = dir.path().join("nul.jsonl");
    ok(std::fs::write(
        &claims,
        "{\"id\": \"a\", \"claim\": \"A fine claim\", \"evidence\": [\"A fine sentence.\"]}\n\
         {\"id\": \"b\", \"claim\": \"A claim with a \\u0000 inside\", \"evidence\": [\"Another sentence.\"]}\n",
    ));
    let req = ImportRequest {
        claims: vec![claims],
        ..Default::default()
    };
    let owner = p.lead();
    assert!(import(&mut p, &owner, &req, &mut NoProgress).is_err());
    assert_eq!(common::project_values(&p), before);
}

/// Regression: a bulk transaction reads the tables it is filling (task creation reads each
/// chunk's tasks and tricks); a generic plan cached while they looked empty scanned them
/// whole on every call, so creating 300,000 tasks ran for over half an hour.
#[test]
fn a_bulk_write_plans_its_statements_for_the_rows_written_so_far() {
    if !common::on_postgres() {
        eprintln!("FACTDESK_TEST_PG is not set: the PostgreSQL plan test did not run");
        return;
    }
    let dir = ok(tempfile::tempdir());
    let at = common::location(dir.path(), "plans");
    drop(ok(Project::create(&at, Box::new(ManualClock::new(1)))));
    let location = factdesk_store::ProjectLocation::parse(&at);
    let mut store = ok(factdesk_store::Store::open_at(&location));
    let tx = ok(store.transaction());
    let mode = |tx: &factdesk_store::Tx<'_>| -> String {
        ok(
            tx.query_row("SELECT current_setting('plan_cache_mode')", [], |r| {
                r.get(0)
            }),
        )
    };
    assert_eq!(mode(&tx), "auto");
    ok(tx.bulk_writes());
    assert_eq!(mode(&tx), "force_custom_plan");
}

/// Regression: the tables a bulk write filled have planner statistics once it commits.
/// Without them (a new project's tables were never analyzed) the planner sorted every open
/// task to serve one `next`: 3 s a call on 300,000 tasks.
#[test]
fn a_bulk_write_leaves_statistics_of_the_tables_it_filled() {
    if !common::on_postgres() {
        eprintln!("FACTDESK_TEST_PG is not set: the PostgreSQL statistics test did not run");
        return;
    }
    let dir = ok(tempfile::tempdir());
    let req = awkward_request(dir.path());
    let (p, _) = make(
        &common::location(dir.path(), "stats"),
        &ManualClock::new(1),
        &req,
    );
    // reltuples is -1 until a table is first analyzed (or vacuumed).
    for table in ["claims", "documents", "sentences", "candidates", "tasks"] {
        let rows: f64 = ok(p.store().read().query_row(
            "SELECT reltuples::float8 FROM pg_class WHERE oid = to_regclass(?1)",
            [table],
            |r| r.get(0),
        ));
        assert!(
            rows > 0.0,
            "{table}: no statistics after the bulk write ({rows})"
        );
    }
}
