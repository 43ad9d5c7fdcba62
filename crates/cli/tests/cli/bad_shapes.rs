//! Input that reads without a parse error into wrong rows: a stray CSV quote, a name
//! given twice, the wrong preset, a file that is not a file. Each is refused by name, or
//! set aside under `--skip-invalid`, and the project stays as it was. (Regressions from
//! the hostile pass over the import.)

use crate::bad_input::{assert_refused, setup};
use crate::{content_digest, data, factdesk, ok, stats, stderr};
use std::path::Path;

#[test]
fn text_after_a_closing_csv_quote_is_refused_not_glued_on() {
    // The csv reader would import `Yes we can was his slogan`, quotes lost.
    let input = b"id,claim,label\nq1,Fine.,SUPPORTED\nq2,\"Yes we can\" was his slogan,SUPPORTED\n";
    assert_refused(
        "quotes.csv",
        input,
        3,
        Some("claim"),
        "text follows the quote that closes this field",
    );
}

#[test]
fn an_unbalanced_csv_quote_does_not_swallow_the_rows_after_it() {
    // Row 2's quote never closes on its line: rows 3 and 4 would become part of its claim.
    let input =
        b"id,claim,label\nu1,\"Open quote,SUPPORTED\nu2,Second.,REFUTED\nu3,\"Third.\",SUPPORTED\n";
    assert_refused(
        "unbalanced.csv",
        input,
        2,
        Some("claim"),
        "opens this field on line 2 closes on line 4",
    );
    // With no later quote, the field would run to the end of the file.
    let input = b"id,claim\nu1,\"Open quote\nu2,Second.\nu3,Third.\n";
    assert_refused("open.csv", input, 2, Some("claim"), "never closes");
}

#[test]
fn a_well_quoted_csv_still_imports_with_its_quotes() {
    let (dir, p) = setup();
    let file = dir.path().join("fine.csv");
    let input = "id,claim,context\nw1,\"\"\"Yes we can\"\" was his slogan.\",\"two\nlines\"\nw2,A 5\" screen.,x\n";
    std::fs::write(&file, input).unwrap_or_else(|e| panic!("{e}"));
    ok([Path::new("import"), &p, &file]);
    let out = ok([
        Path::new("search"),
        &p,
        Path::new("slogan"),
        Path::new("--json"),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(r#"\"Yes we can\" was his slogan."#), "{text}");
}

#[test]
fn a_column_named_twice_is_refused() {
    let input = b"id,claim,label,claim\nd1,First.,SUPPORTED,Second.\n";
    assert_refused(
        "twice.csv",
        input,
        1,
        Some("claim"),
        "the header names this column twice (columns 2 and 4)",
    );
}

#[test]
fn a_json_field_named_twice_is_refused() {
    let input = "{\"id\": \"j1\", \"claim\": \"Fine.\"}\n{\"id\": \"j2\", \"claim\": \"One.\", \"label\": \"SUPPORTED\", \"claim\": 7}\n";
    assert_refused(
        "twice.jsonl",
        input.as_bytes(),
        2,
        Some("claim"),
        "the row names this field twice",
    );
}

#[test]
fn a_header_differing_only_in_case_gets_a_hint() {
    let input = b"id,Claim\nc1,Fine.\n";
    assert_refused(
        "case.csv",
        input,
        2,
        Some("claim"),
        "the row has \"Claim\", but field names are case-sensitive",
    );
}

#[test]
fn wikifactcheck_under_the_covid_fact_preset_is_refused_with_the_right_preset_named() {
    let (_dir, p) = setup();
    let before = (stats(&p), content_digest(&p));
    let wiki = data("wikifactcheck_dev.tsv");
    let out = factdesk([
        Path::new("import"),
        &p,
        &wiki,
        Path::new("--preset"),
        Path::new("covid-fact"),
    ]);
    let msg = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{msg}");
    assert!(
        msg.contains(&format!("{}:2: field \"label\"", wiki.display())),
        "{msg}"
    );
    assert!(msg.contains("--preset wikifactcheck"), "{msg}");
    assert_eq!((stats(&p), content_digest(&p)), before);
    // The same file under its own preset imports.
    ok([
        Path::new("import"),
        &p,
        &wiki,
        Path::new("--preset"),
        Path::new("wikifactcheck"),
    ]);
}

#[test]
fn fever_rows_under_the_covid_fact_preset_are_refused() {
    let input = r#"{"id": 75397, "verifiable": "VERIFIABLE", "label": "SUPPORTS", "claim": "Nikolaj Coster-Waldau worked with the Fox Broadcasting Company.", "evidence": [[[92206, 104971, "Nikolaj_Coster-Waldau", 7]]]}
"#;
    let (dir, p) = setup();
    let before = (stats(&p), content_digest(&p));
    let file = dir.path().join("fever.jsonl");
    std::fs::write(&file, input).unwrap_or_else(|e| panic!("{e}"));
    let out = factdesk([
        Path::new("import"),
        &p,
        &file,
        Path::new("--preset"),
        Path::new("covid-fact"),
    ]);
    let msg = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{msg}");
    assert!(
        msg.contains("would drop the fields id, verifiable"),
        "{msg}"
    );
    assert!(msg.contains("--preset fever"), "{msg}");
    assert_eq!((stats(&p), content_digest(&p)), before);
}

#[cfg(unix)]
#[test]
fn a_pipe_a_device_or_a_folder_is_not_read_as_rows() {
    let (dir, p) = setup();
    let before = (stats(&p), content_digest(&p));
    // Opening a named pipe would wait for a writer forever.
    let fifo = dir.path().join("claims.jsonl");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let folder = dir.path().join("folder.jsonl");
    std::fs::create_dir(&folder).unwrap_or_else(|e| panic!("{e}"));
    for (input, says) in [
        (fifo.as_path(), "is not a regular file"),
        (Path::new("/dev/zero"), "is not a regular file"),
        (folder.as_path(), "is a folder, not a file of rows"),
    ] {
        let out = factdesk([Path::new("import"), &p, input]);
        let msg = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{msg}");
        assert!(msg.contains(says), "{}: {msg}", input.display());
    }
    // A .txt document that links to an endless device is refused, not read.
    let docs = dir.path().join("docs");
    std::fs::create_dir(&docs).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(docs.join("fine.txt"), "A fine document.").unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink("/dev/zero", docs.join("zero.txt"))
        .unwrap_or_else(|e| panic!("{e}"));
    let out = factdesk([Path::new("import"), &p, Path::new("--docs"), &docs]);
    let msg = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{msg}");
    assert!(
        msg.contains("zero.txt: field \"text\": is not a regular file"),
        "{msg}"
    );
    assert_eq!((stats(&p), content_digest(&p)), before);
}

#[test]
fn a_txt_document_over_the_row_limit_is_refused() {
    let (dir, p) = setup();
    let docs = dir.path().join("docs");
    std::fs::create_dir(&docs).unwrap_or_else(|e| panic!("{e}"));
    let big = "word ".repeat(17 * 1024 * 1024 / 5);
    std::fs::write(docs.join("big.txt"), big).unwrap_or_else(|e| panic!("{e}"));
    let out = factdesk([Path::new("import"), &p, Path::new("--docs"), &docs]);
    let msg = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{msg}");
    assert!(
        msg.contains("over the 16 MB limit for one document"),
        "{msg}"
    );
}

#[test]
fn skip_invalid_lists_rejects_in_line_order_and_a_clean_run_leaves_none_behind() {
    let (dir, p) = setup();
    // Line 2 is refused while reading, line 1 only later, as a changed duplicate of a
    // claim the project already holds.
    let input = "{\"id\": \"good-1\", \"claim\": \"Changed text.\"}\nnot json\n{\"id\": \"k3\", \"claim\": \"Kept.\"}\n";
    let file = dir.path().join("mixed.jsonl");
    std::fs::write(&file, input).unwrap_or_else(|e| panic!("{e}"));
    ok([Path::new("import"), &p, &file, Path::new("--skip-invalid")]);
    let rejects_path = dir.path().join("mixed.jsonl.rejects.jsonl");
    let rejects = std::fs::read_to_string(&rejects_path).unwrap_or_default();
    let lines: Vec<u64> = rejects
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["line"].as_u64())
        .collect();
    assert_eq!(lines, vec![1, 2], "{rejects}");
    // Fixed and imported again: the old rejects would read as this run's.
    std::fs::write(&file, "{\"id\": \"k3\", \"claim\": \"Kept.\"}\n")
        .unwrap_or_else(|e| panic!("{e}"));
    ok([Path::new("import"), &p, &file, Path::new("--skip-invalid")]);
    assert!(!rejects_path.exists(), "a stale rejects file was left");
    // A file of the user's own under that name is not ours to remove.
    std::fs::write(&rejects_path, "my notes\n").unwrap_or_else(|e| panic!("{e}"));
    ok([Path::new("import"), &p, &file, Path::new("--skip-invalid")]);
    assert!(rejects_path.exists());
}

#[test]
fn json_mistakes_are_said_in_the_words_of_the_docs() {
    let raw_nul = b"{\"id\": \"n1\", \"claim\": \"a\x00b\"}\n";
    assert_refused(
        "nul.jsonl",
        raw_nul,
        1,
        Some("claim"),
        "holds a NUL character",
    );
    let huge = b"{\"id\": 1E400, \"claim\": \"Fine.\"}\n";
    assert_refused(
        "huge.jsonl",
        huge,
        1,
        Some("id"),
        "write such an id as text",
    );
    let lone = b"{\"id\": \"s1\", \"claim\": \"a\\ud800b\"}\n";
    assert_refused(
        "lone.jsonl",
        lone,
        1,
        Some("claim"),
        "half of a surrogate pair",
    );
}
