//! Writing an export a server sent: the client's own output rules, whatever the bytes.

use factdesk_api::answers::{AnswersFormat, AnswersReport};
use factdesk_api::download::{self, Download, DownloadFile, Report};
use factdesk_api::gold::ExportReport;
use factdesk_api::packs::PackIssued;
use factdesk_api::{ErrorCode, Project, SystemClock};
use serde_json::json;

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// A gold export's report as a server sends it: its paths blanked, one line.
fn gold_report() -> ExportReport {
    ok(serde_json::from_value(json!({
        "out": "", "card": "", "split_files": [],
        "preview": {
            "method": "majority", "lines": 1, "per_label": {}, "per_split": {}, "dropped": [],
            "counted_annotators": ["ana"], "excluded_annotators": [], "accuracy": {},
            "mean_share_agreeing": 1.0, "rejected_answers": 0, "refutations": {},
            "split_warnings": [], "study_answers_in_gold": false,
            "trick_flag_threshold": 0.2, "trick_min_seen": 5, "evidence_stance": "supports", "study_answers_apart": 0,
            "under_annotated": [], "include_under_annotated": false
        }
    })))
}

fn sent(files: &[(Option<&str>, &str)]) -> Download {
    use base64::Engine;
    Download {
        files: files
            .iter()
            .map(|(beside, text)| DownloadFile {
                beside: beside.map(str::to_string),
                base64: base64::engine::general_purpose::STANDARD.encode(text),
            })
            .collect(),
        report: Report::Gold(gold_report()),
    }
}

#[test]
fn an_export_is_written_beside_the_chosen_file_with_the_clients_paths() {
    let dir = ok(tempfile::tempdir());
    let out = dir.path().join("gold.jsonl");
    let report: ExportReport = ok(download::write(
        sent(&[
            (None, "{}\n"),
            (Some("card.md"), "# card"),
            (Some("train.jsonl"), "{}\n"),
        ]),
        &out,
        true,
    ));
    assert_eq!(ok(std::fs::read_to_string(&out)), "{}\n");
    let card = dir.path().join("gold.card.md");
    assert_eq!(ok(std::fs::read_to_string(&card)), "# card");
    assert_eq!(report.out, out.display().to_string());
    assert_eq!(report.card, card.display().to_string());
    assert_eq!(
        report.split_files,
        [dir.path().join("gold.train.jsonl").display().to_string()]
    );
    assert_eq!(report.preview.lines, 1);
}

#[test]
fn each_exports_report_crosses_as_its_own_json_and_is_read_back_as_itself() {
    let answers = AnswersReport {
        out: String::new(),
        format: AnswersFormat::Csv,
        rows: 3,
        superseded: 1,
        rejected: 0,
        counted: 2,
    };
    let pack = PackIssued {
        pack_id: "p1".into(),
        path: String::new(),
        annotator: "eve".into(),
        items: 4,
        expires_at: 1_700_000_000_000,
    };
    let gold = gold_report();
    let reports = [
        (Report::Gold(gold.clone()), ok(serde_json::to_value(&gold))),
        (
            Report::Answers(answers.clone()),
            ok(serde_json::to_value(&answers)),
        ),
        (Report::Pack(pack.clone()), ok(serde_json::to_value(&pack))),
    ];
    for (report, own) in reports {
        // No tag: the JSON is the export's own report, as before it was typed.
        assert_eq!(ok(serde_json::to_value(&report)), own);
        assert_eq!(ok(serde_json::from_value::<Report>(own)), report);
    }
}

#[test]
fn another_exports_report_than_the_one_asked_for_is_refused_before_anything_is_written() {
    let dir = ok(tempfile::tempdir());
    let out = dir.path().join("eve.fdpack");
    let err = download::write::<PackIssued>(sent(&[(None, "x")]), &out, true).err();
    let err = err.unwrap_or_else(|| panic!("a gold export was written as a pack"));
    assert_eq!(err.code, ErrorCode::Io);
    assert!(
        err.message
            .contains("a gold export where a pack was asked for"),
        "{}",
        err.message
    );
    assert!(!out.exists());
}

#[test]
fn a_project_a_folder_or_a_name_that_climbs_out_is_refused_and_nothing_is_written() {
    let dir = ok(tempfile::tempdir());
    let project = dir.path().join("team.fdesk");
    drop(ok(Project::create(&project, Box::new(SystemClock))));
    let before = ok(std::fs::read(&project));
    let refused = [
        (sent(&[(None, "x")]), project.clone()),
        (sent(&[(None, "x")]), dir.path().to_path_buf()),
        (
            sent(&[(None, "x"), (Some("../../evil"), "x")]),
            dir.path().join("a.jsonl"),
        ),
        (
            sent(&[(None, "x"), (Some(".bashrc"), "x")]),
            dir.path().join("b.jsonl"),
        ),
        (sent(&[(Some("card.md"), "x")]), dir.path().join("c.jsonl")),
        (
            Download {
                files: vec![DownloadFile {
                    beside: None,
                    base64: "not base64!".into(),
                }],
                report: Report::Gold(gold_report()),
            },
            dir.path().join("d.jsonl"),
        ),
    ];
    for (download, out) in refused {
        let err = download::write::<ExportReport>(download, &out, true).err();
        let err = err.unwrap_or_else(|| panic!("{} was written", out.display()));
        assert_eq!(err.code, ErrorCode::InvalidInput, "{}", err.message);
    }
    assert_eq!(ok(std::fs::read(&project)), before);
    for name in [
        "a.jsonl",
        "b.jsonl",
        "c.jsonl",
        "d.jsonl",
        "a..bashrc",
        "b..bashrc",
    ] {
        assert!(!dir.path().join(name).exists(), "{name} was written");
    }
}
