//! Writing an export a server sent: the client's own output rules, whatever the bytes.

use factdesk_api::download::{self, Download, DownloadFile};
use factdesk_api::{ErrorCode, Project, SystemClock};
use serde_json::json;

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
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
        report: json!({"out": "", "card": "", "split_files": [], "lines": 1}),
    }
}

#[test]
fn an_export_is_written_beside_the_chosen_file_with_the_clients_paths() {
    let dir = ok(tempfile::tempdir());
    let out = dir.path().join("gold.jsonl");
    let report = ok(download::write(
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
    assert_eq!(report["card"], card.display().to_string());
    assert_eq!(
        report["split_files"][0],
        dir.path().join("gold.train.jsonl").display().to_string()
    );
    assert_eq!(report["lines"], 1);
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
                report: json!({}),
            },
            dir.path().join("d.jsonl"),
        ),
    ];
    for (download, out) in refused {
        let err = download::write(download, &out, true).err();
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
