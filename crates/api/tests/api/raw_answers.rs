//! The raw answers: every answer ever given is one row, superseded and rejected ones
//! marked, with every field; JSON Lines, CSV (quoting commas, line breaks and
//! right-to-left text) and Parquet (read back with the parquet crate's reader) hold the
//! same rows; an existing file is replaced only with `force`, a project never.

use crate::common;
use common::{project, trick_option, Acting};
use factdesk_api::RawSql as _;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::Array;
use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::answers::{columns, AnswerRow, AnswerStatus, AnswersFormat};
use factdesk_api::tasks::TaskKind;
use factdesk_api::{ErrorCode, ManualClock, Project};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use std::path::Path;

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

const TRICKY: &str = "قال \"نعم\", then\nchanged, his mind";

/// Two claims: ana answers the first, then answers it again (superseding), with a
/// comment full of commas, quotes, a line break and Arabic; ben picks the trick on it
/// (rejected); ana labels both claims.
fn answered(dir: &Path) -> Project {
    let clock = ManualClock::new(1_700_000_000_000);
    let mut p = project(dir, 2, &clock);
    ok(p.add_annotator(&p.lead(), "lead", Role::Lead));
    for name in ["ana", "ben"] {
        ok(p.add_annotator(&p.lead(), name, Role::Annotator));
    }
    ok(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(2)));
    ok(p.create_tasks(&p.lead(), TaskKind::Label, Some(1)));
    let item = ok(p.next_item(&p.who("ana"), TaskKind::Evidence))
        .item
        .unwrap_or_else(|| panic!("no evidence item"));
    let trick = trick_option(&p, &item).unwrap_or_default();
    let real: Vec<String> = item
        .options
        .iter()
        .filter(|o| o.id != trick)
        .map(|o| o.id.clone())
        .collect();
    let mut answer = Answer {
        task_id: item.task_id,
        selected: vec![real[0].clone()],
        comment: Some(TRICKY.into()),
        duration_ms: Some(4200),
        ..Default::default()
    };
    ok(p.submit(&p.who("ana"), &answer));
    clock.advance_ms(1000);
    answer.selected = vec![real[0].clone(), real[1].clone()];
    ok(p.submit(&p.who("ana"), &answer));
    let item = ok(p.next_item(&p.who("ben"), TaskKind::Evidence))
        .item
        .unwrap_or_else(|| panic!("no evidence item for ben"));
    let trick = trick_option(&p, &item).unwrap_or_else(|| panic!("no trick shown"));
    ok(p.submit(
        &p.who("ben"),
        &Answer {
            task_id: item.task_id,
            selected: vec![trick],
            ..Default::default()
        },
    ));
    while let Some(item) = ok(p.next_item(&p.who("ana"), TaskKind::Label)).item {
        ok(p.submit(
            &p.who("ana"),
            &Answer {
                task_id: item.task_id,
                label: Some("REFUTED".into()),
                ..Default::default()
            },
        ));
    }
    p
}

fn by_status(rows: &[AnswerRow], status: AnswerStatus) -> Vec<&AnswerRow> {
    rows.iter().filter(|r| r.status == status).collect()
}

#[test]
fn every_answer_is_a_row_with_every_field_and_its_standing() {
    let dir = ok(tempfile::tempdir());
    let p = answered(dir.path());
    let rows = ok(p.answer_rows(&p.lead_named("lead")));
    let stored: i64 = ok(p
        .store()
        .read()
        .query_row("SELECT count(*) FROM annotations", [], |r| r.get(0)));
    assert_eq!(rows.len() as i64, stored);
    assert_eq!(rows.len(), 5, "{rows:#?}");

    let superseded = by_status(&rows, AnswerStatus::Superseded);
    assert_eq!(superseded.len(), 1);
    let old = superseded[0];
    let new = rows
        .iter()
        .find(|r| r.supersedes == Some(old.answer_id))
        .unwrap_or_else(|| panic!("nothing supersedes {}", old.answer_id));
    assert_eq!(old.superseded_by, Some(new.answer_id));
    assert!(!old.counted);
    assert_eq!(new.status, AnswerStatus::Current);
    assert!(new.counted);
    assert_eq!(old.selected_sentence_ids.as_ref().map(Vec::len), Some(1));
    assert_eq!(new.selected_sentence_ids.as_ref().map(Vec::len), Some(2));
    let ids = new.selected_sentence_ids.clone().unwrap_or_default();
    let texts: Vec<String> = ids
        .iter()
        .map(|id| {
            ok(p.store()
                .read()
                .query_row("SELECT text FROM sentences WHERE id = ?1", [id], |r| {
                    r.get(0)
                }))
        })
        .collect();
    assert_eq!(new.selected_sentences.as_ref(), Some(&texts));
    assert_eq!(new.no_evidence, Some(false));
    assert_eq!(new.comment.as_deref(), Some(TRICKY));
    assert_eq!(new.duration_ms, Some(4200));
    assert_eq!(new.created_at, old.created_at + 1000);
    assert_eq!(new.annotator, "ana");
    assert_eq!(new.task_kind, "evidence");
    assert_eq!(new.trick.as_deref(), Some("avoided"));
    assert!(new.claim.starts_with("Town "), "{}", new.claim);
    assert!(new.claim_id.starts_with('c'));
    assert_eq!(
        (new.label.as_ref(), new.verdict.as_ref(), new.text.as_ref()),
        (None, None, None)
    );

    let rejected = by_status(&rows, AnswerStatus::Rejected);
    assert_eq!(rejected.len(), 1);
    let r = rejected[0];
    assert_eq!(r.annotator, "ben");
    assert_eq!(r.trick.as_deref(), Some("picked"));
    assert!(!r.counted);
    assert_eq!(
        r.selected_sentence_ids.as_deref(),
        Some(&[][..]),
        "the trick is never a sentence id"
    );

    let labels: Vec<&AnswerRow> = rows.iter().filter(|r| r.task_kind == "label").collect();
    assert_eq!(labels.len(), 2);
    for l in labels {
        assert_eq!(l.label.as_deref(), Some("REFUTED"));
        assert_eq!(l.selected_sentence_ids, None);
        assert_eq!(l.trick, None);
        assert!(l.counted);
    }
}

#[test]
fn jsonl_csv_and_parquet_hold_the_same_rows() {
    let dir = ok(tempfile::tempdir());
    let p = answered(dir.path());
    let lead = p.lead_named("lead");
    let rows = ok(p.answer_rows(&lead));
    let expected: Vec<serde_json::Value> =
        rows.iter().map(|r| ok(serde_json::to_value(r))).collect();

    let jsonl = dir.path().join("answers.jsonl");
    let report = ok(p.export_answers(&lead, &jsonl, AnswersFormat::Jsonl, false));
    assert_eq!(
        (
            report.rows,
            report.superseded,
            report.rejected,
            report.counted
        ),
        (5, 1, 1, 3)
    );
    let text = ok(std::fs::read_to_string(&jsonl));
    let lines: Vec<serde_json::Value> = text.lines().map(|l| ok(serde_json::from_str(l))).collect();
    assert_eq!(lines, expected);
    for line in &lines {
        let keys: Vec<&str> = line
            .as_object()
            .map(|o| o.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let mut want: Vec<&str> = columns().to_vec();
        want.sort_unstable();
        let mut keys = keys;
        keys.sort_unstable();
        assert_eq!(keys, want);
    }

    let csv_path = dir.path().join("answers.csv");
    ok(p.export_answers(&lead, &csv_path, AnswersFormat::Csv, false));
    let raw = ok(std::fs::read_to_string(&csv_path));
    assert!(
        raw.contains(&format!("\"{}\"", TRICKY.replace('"', "\"\""))),
        "the comment is quoted whole"
    );
    let mut reader = csv::Reader::from_path(&csv_path).unwrap_or_else(|e| panic!("{e}"));
    let header: Vec<String> = ok(reader.headers()).iter().map(str::to_string).collect();
    assert_eq!(header, columns().map(str::to_string).to_vec());
    let records: Vec<csv::StringRecord> = reader.records().map(ok).collect();
    assert_eq!(records.len(), rows.len());
    for (rec, want) in records.iter().zip(&expected) {
        for (i, name) in columns().iter().enumerate() {
            let cell = &rec[i];
            let value = &want[*name];
            let shown = match value {
                serde_json::Value::Null => String::new(),
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            assert_eq!(cell, shown, "column {name}");
        }
    }

    let pq = dir.path().join("answers.parquet");
    ok(p.export_answers(&lead, &pq, AnswersFormat::Parquet, false));
    let file = ok(std::fs::File::open(&pq));
    let reader = ok(ok(ParquetRecordBatchReaderBuilder::try_new(file)).build());
    let batches: Vec<arrow_array::RecordBatch> = reader.map(ok).collect();
    assert_eq!(batches.len(), 1, "written as one batch");
    let batch = &batches[0];
    let names: Vec<String> = batch
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    assert_eq!(names, columns().map(str::to_string).to_vec());
    let schema = batch.schema();
    let nullable = |name: &str| ok(schema.field_with_name(name)).is_nullable();
    assert!(!nullable("answer_id") && !nullable("counted") && !nullable("status"));
    assert!(nullable("duration_ms") && nullable("comment") && nullable("selected_sentence_ids"));
    assert_eq!(batch.num_rows(), rows.len());
    for (i, name) in columns().iter().enumerate() {
        let col = batch.column(i);
        for (n, want) in expected.iter().enumerate() {
            assert_eq!(
                cell(col.as_ref(), n),
                want[*name],
                "parquet column {name}, row {n}"
            );
        }
    }
}

/// One Parquet cell as the JSON value the JSON Lines file holds.
fn cell(col: &dyn Array, n: usize) -> serde_json::Value {
    use arrow_schema::DataType;
    if col.is_null(n) {
        return serde_json::Value::Null;
    }
    match col.data_type() {
        DataType::Int64 => col.as_primitive::<Int64Type>().value(n).into(),
        DataType::Utf8 => col.as_string::<i32>().value(n).into(),
        DataType::Boolean => col.as_boolean().value(n).into(),
        DataType::List(_) => {
            let list = col.as_list::<i32>().value(n);
            (0..list.len()).map(|k| cell(list.as_ref(), k)).collect()
        }
        other => panic!("unexpected column type {other}"),
    }
}

#[test]
fn an_existing_file_is_replaced_only_with_force_and_a_project_never() {
    let dir = ok(tempfile::tempdir());
    let p = answered(dir.path());
    let lead = p.lead_named("lead");
    let out = dir.path().join("answers.csv");
    ok(std::fs::write(&out, "keep me"));
    let e = p
        .export_answers(&lead, &out, AnswersFormat::Csv, false)
        .err()
        .unwrap_or_else(|| panic!("an existing file was replaced without --force"));
    assert_eq!(e.code, ErrorCode::InvalidInput);
    assert!(e.message.contains("--force"), "{}", e.message);
    assert_eq!(ok(std::fs::read_to_string(&out)), "keep me");
    ok(p.export_answers(&lead, &out, AnswersFormat::Csv, true));
    assert!(ok(std::fs::read_to_string(&out)).starts_with("answer_id,"));

    // A project in a database has no file here to protect.
    if !common::on_postgres() {
        let project_file = dir.path().join("p.fdesk");
        let e = p
            .export_answers(&lead, &project_file, AnswersFormat::Jsonl, true)
            .err()
            .unwrap_or_else(|| panic!("the project was overwritten"));
        assert_eq!(e.code, ErrorCode::InvalidInput);
    }
    assert_eq!(
        AnswersFormat::from_path(Path::new("a.PARQUET")),
        AnswersFormat::Parquet
    );
    assert_eq!(
        AnswersFormat::from_path(Path::new("a.csv")),
        AnswersFormat::Csv
    );
    assert_eq!(
        AnswersFormat::from_path(Path::new("a.txt")),
        AnswersFormat::Jsonl
    );
}

#[test]
fn an_answer_that_came_back_in_a_pack_names_the_pack() {
    use factdesk_api::packs::{PackRequest, PackSession};
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_700_000_000_000);
    let mut p = answered(dir.path());
    ok(p.add_annotator(&p.lead_named("lead"), "cy", Role::Annotator));
    let path = dir.path().join("cy.fdpack");
    let req = PackRequest {
        annotator: "cy".into(),
        count: 1,
        kind: Some(TaskKind::Evidence),
        expires_days: 7,
    };
    let issued = ok(p.issue_pack(&p.lead_named("lead"), &req, &path));
    let mut pack = ok(PackSession::open(&path, Box::new(clock.clone())));
    let item = ok(pack.next_item(&pack.who("cy"), TaskKind::Evidence))
        .item
        .unwrap_or_else(|| panic!("no item in the pack"));
    ok(pack.submit(
        &pack.who("cy"),
        &Answer {
            task_id: item.task_id,
            no_evidence: true,
            ..Default::default()
        },
    ));
    drop(pack);
    ok(p.merge_pack(&p.lead_named("lead"), &path));
    let rows = ok(p.answer_rows(&p.lead_named("lead")));
    let cy: Vec<&AnswerRow> = rows.iter().filter(|r| r.annotator == "cy").collect();
    assert_eq!(cy.len(), 1);
    assert_eq!(cy[0].pack.as_deref(), Some(issued.pack_id.as_str()));
    assert_eq!(cy[0].no_evidence, Some(true));
    assert_eq!(cy[0].selected_sentence_ids.as_deref(), Some(&[][..]));
    assert!(rows
        .iter()
        .filter(|r| r.annotator != "cy")
        .all(|r| r.pack.is_none()));
}

#[test]
fn csv_cells_that_start_like_a_formula_are_written_as_text_in_answers_and_the_report() {
    let dir = ok(tempfile::tempdir());
    let clock = ManualClock::new(1_700_000_000_000);
    let mut p = project(dir.path(), 2, &clock);
    ok(p.add_annotator(&p.lead(), "lead", Role::Lead));
    let name = "=HYPERLINK(\"http://x.example\")";
    ok(p.add_annotator(&p.lead(), name, Role::Annotator));
    ok(p.create_tasks(&p.lead(), TaskKind::Label, Some(1)));
    let comments = ["=1+1", "@SUM(A1)", "-2+3", "+cmd|' /C calc'!A0"];
    let mut n = 0;
    while let Some(item) = ok(p.next_item(&p.who(name), TaskKind::Label)).item {
        ok(p.submit(
            &p.who(name),
            &Answer {
                task_id: item.task_id,
                label: Some("SUPPORTED".into()),
                comment: Some(comments[n % comments.len()].into()),
                ..Default::default()
            },
        ));
        n += 1;
    }
    assert_eq!(n, 2);
    let lead = p.lead_named("lead");
    let out = dir.path().join("answers.csv");
    ok(p.export_answers(&lead, &out, AnswersFormat::Csv, false));
    let mut reader = csv::Reader::from_path(&out).unwrap_or_else(|e| panic!("{e}"));
    let header: Vec<String> = ok(reader.headers()).iter().map(str::to_string).collect();
    let at = |c: &str| {
        header
            .iter()
            .position(|h| h == c)
            .unwrap_or_else(|| panic!("no {c}"))
    };
    let records: Vec<csv::StringRecord> = reader.records().map(ok).collect();
    for (i, rec) in records.iter().enumerate() {
        assert_eq!(&rec[at("annotator")], format!("'{name}"));
        assert_eq!(&rec[at("comment")], format!("'{}", comments[i]));
        // Numbers stay numbers.
        assert!(rec[at("answer_id")].parse::<i64>().is_ok());
    }

    let tables = dir.path().join("tables");
    let files = factdesk_api::report::ReportFiles {
        html: dir.path().join("report.html"),
        json: None,
        csv: Some(tables.clone()),
    };
    ok(p.write_report(
        &lead,
        &factdesk_api::agreement::AgreementRequest::default(),
        &files,
    ));
    let mut any = false;
    for entry in ok(std::fs::read_dir(&tables)) {
        let path = ok(entry).path();
        let mut reader = csv::Reader::from_path(&path).unwrap_or_else(|e| panic!("{e}"));
        for rec in reader.records().map(ok) {
            for cell in rec.iter() {
                assert!(
                    !cell.starts_with(['=', '+', '@']) && !cell.starts_with("-2+"),
                    "{}: {cell:?}",
                    path.display()
                );
                any |= cell == format!("'{name}");
            }
        }
    }
    assert!(any, "the annotator's name is in a report table, as text");
}
