//! Every kind of bad input fails with exit code 1, names file, line and field, and leaves
//! the project exactly as it was.

use crate::{content_digest, factdesk, file_digest, new_project, ok, stats, stderr};
use std::path::{Path, PathBuf};

const GOOD: &str = r#"{"id": "good-1", "claim": "The bridge opened in 1932.", "label": "SUPPORTED"}
{"id": "good-2", "claim": "The river is 40 km long.", "context": "Geography section."}
"#;

/// A project holding the two good rows, and a scratch folder for bad files.
pub(crate) fn setup() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = new_project(dir.path());
    let good = dir.path().join("good.jsonl");
    std::fs::write(&good, GOOD).unwrap_or_else(|e| panic!("{e}"));
    ok([Path::new("import"), &p, &good]);
    (dir, p)
}

/// Imports `bytes` as `name` and checks the failure and that nothing changed.
pub(crate) fn assert_refused(name: &str, bytes: &[u8], line: u64, field: Option<&str>, says: &str) {
    let (dir, p) = setup();
    let before = (stats(&p), content_digest(&p), file_digest(&p));
    let bad = dir.path().join(name);
    std::fs::write(&bad, bytes).unwrap_or_else(|e| panic!("{e}"));
    let out = factdesk([Path::new("import"), &p, &bad]);
    let msg = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "exit code; stderr: {msg}");
    let place = format!("{}:{line}", bad.display());
    assert!(msg.contains(&place), "message should name {place}: {msg}");
    if let Some(field) = field {
        assert!(
            msg.contains(&format!("field \"{field}\"")),
            "message should name field {field}: {msg}"
        );
    }
    assert!(msg.contains(says), "message should say {says:?}: {msg}");
    let after = (stats(&p), content_digest(&p), file_digest(&p));
    assert_eq!(before, after, "the project changed");
}

#[test]
fn invalid_json_names_the_line_and_the_field_being_read() {
    let input = format!(
        "{GOOD}{}",
        r#"{"id": "b3", "claim": "An unterminated claim"#
    );
    assert_refused(
        "bad.jsonl",
        input.as_bytes(),
        3,
        Some("claim"),
        "invalid JSON",
    );
}

#[test]
fn a_row_without_a_claim_is_refused() {
    let input = "{\"id\": \"x1\", \"claim\": \"Fine.\"}\n{\"id\": \"x2\", \"context\": \"no claim here\"}\n";
    assert_refused(
        "missing.jsonl",
        input.as_bytes(),
        2,
        Some("claim"),
        "missing",
    );
}

#[test]
fn invalid_utf8_names_the_field_holding_it() {
    let mut input =
        b"{\"id\": \"u1\", \"claim\": \"Fine.\"}\n{\"id\": \"u2\", \"claim\": \"Caf".to_vec();
    input.extend_from_slice(&[0xE9, 0xFF]);
    input.extend_from_slice(b" opens.\"}\n");
    assert_refused("latin1.jsonl", &input, 2, Some("claim"), "invalid UTF-8");
}

#[test]
fn invalid_utf8_in_csv_names_the_column() {
    let mut input = b"id,claim,context\nc1,Fine.,ok\nc2,Also fine.,".to_vec();
    input.extend_from_slice(&[0xFF, 0xFE]);
    input.extend_from_slice(b"\n");
    assert_refused("latin1.csv", &input, 3, Some("context"), "invalid UTF-8");
}

#[test]
fn an_empty_file_is_refused() {
    assert_refused("empty.jsonl", b"", 1, None, "empty");
}

#[test]
fn a_50_mb_line_is_refused() {
    let mut input =
        b"{\"id\": \"ok\", \"claim\": \"Fine.\"}\n{\"id\": \"huge\", \"claim\": \"".to_vec();
    input.resize(input.len() + 50 * 1024 * 1024, b'a');
    input.extend_from_slice(b"\"}\n");
    assert_refused("huge.jsonl", &input, 2, None, "over the 16 MB limit");
}

#[test]
fn an_id_already_used_with_different_content_is_refused() {
    let input = "{\"id\": \"new-1\", \"claim\": \"A new claim.\"}\n{\"id\": \"good-1\", \"claim\": \"The bridge opened in 1933.\"}\n";
    assert_refused(
        "clash.jsonl",
        input.as_bytes(),
        2,
        Some("id"),
        "different content",
    );
}

#[test]
fn an_id_repeated_within_one_file_with_different_content_is_refused() {
    let input = "{\"id\": \"d1\", \"claim\": \"One.\"}\n{\"id\": \"d1\", \"claim\": \"Two.\"}\n";
    assert_refused(
        "twice.jsonl",
        input.as_bytes(),
        2,
        Some("id"),
        "first at line 1",
    );
}

#[test]
fn an_unknown_document_reference_is_refused() {
    let input = "{\"id\": \"r1\", \"claim\": \"One.\", \"doc_ids\": [\"nowhere\"]}\n";
    assert_refused(
        "refs.jsonl",
        input.as_bytes(),
        1,
        Some("doc_ids"),
        "unknown document",
    );
}

#[test]
fn skip_invalid_imports_good_rows_and_writes_rejects_beside_the_input() {
    let (dir, p) = setup();
    let input = "{\"id\": \"s1\", \"claim\": \"Kept.\"}\n{\"id\": \"s2\"}\nnot json\n{\"id\": \"s4\", \"claim\": \"Also kept.\"}\n";
    let file = dir.path().join("mixed.jsonl");
    std::fs::write(&file, input).unwrap_or_else(|e| panic!("{e}"));
    let before = stats(&p)["claims"].as_u64().unwrap_or(0);
    ok([Path::new("import"), &p, &file, Path::new("--skip-invalid")]);
    assert_eq!(stats(&p)["claims"].as_u64().unwrap_or(0), before + 2);
    let rejects =
        std::fs::read_to_string(dir.path().join("mixed.jsonl.rejects.jsonl")).unwrap_or_default();
    let lines: Vec<serde_json::Value> = rejects
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert_eq!(lines.len(), 2, "{rejects}");
    assert_eq!(lines[0]["line"], 2);
    assert_eq!(lines[0]["field"], "claim");
    assert_eq!(lines[1]["line"], 3);
    assert!(lines[1]["reason"]
        .as_str()
        .unwrap_or("")
        .contains("invalid JSON"));
}

#[test]
fn a_number_as_claim_is_refused() {
    let input = "{\"id\": \"t1\", \"claim\": \"Fine.\"}\n{\"id\": \"t2\", \"claim\": 42}\n";
    assert_refused(
        "typed.jsonl",
        input.as_bytes(),
        2,
        Some("claim"),
        "expected text, found a number",
    );
}

#[test]
fn a_string_as_evidence_list_is_refused() {
    let input =
        "{\"id\": \"t3\", \"claim\": \"Fine.\", \"evidence\": \"one sentence, not a list\"}\n";
    assert_refused(
        "evidence.jsonl",
        input.as_bytes(),
        1,
        Some("evidence"),
        "expected a list of text, found a string",
    );
}

#[test]
fn an_object_as_id_is_refused() {
    let input = "{\"id\": {\"n\": 1}, \"claim\": \"Fine.\"}\n";
    assert_refused(
        "id.jsonl",
        input.as_bytes(),
        1,
        Some("id"),
        "expected text or a number, found an object",
    );
}

#[test]
fn a_number_in_the_evidence_list_is_refused() {
    let input = "{\"id\": \"t4\", \"claim\": \"Fine.\", \"evidence\": [\"A sentence.\", 7]}\n";
    assert_refused(
        "items.jsonl",
        input.as_bytes(),
        1,
        Some("evidence"),
        "item 2 should be text, found a number",
    );
}

const NUL: &str = "holds a NUL character (\\u0000), which text may not contain";

#[test]
fn an_escaped_nul_is_refused_wherever_it_hides() {
    let claim = "{\"id\": \"z0\", \"claim\": \"Fine.\"}\n{\"id\": \"z1\", \"claim\": \"Bad\\u0000claim.\"}\n";
    assert_refused("nul.jsonl", claim.as_bytes(), 2, Some("claim"), NUL);
    let nested =
        "{\"id\": \"z2\", \"claim\": \"Fine.\", \"metadata\": {\"note\": [\"x\\u0000\"]}}\n";
    assert_refused("nested.jsonl", nested.as_bytes(), 1, Some("metadata"), NUL);
}

#[test]
fn a_nul_byte_in_a_csv_cell_is_refused() {
    assert_refused(
        "nul.csv",
        b"id,claim,context\nn1,Fine.,ok\nn2,Fine.,bad\0context\n",
        3,
        Some("context"),
        NUL,
    );
}

#[test]
fn a_nul_in_a_text_document_is_refused() {
    let (dir, p) = setup();
    let before = (stats(&p), content_digest(&p));
    let docs = dir.path().join("docs");
    std::fs::create_dir(&docs).unwrap_or_else(|e| panic!("{e}"));
    let doc = docs.join("d1.txt");
    std::fs::write(&doc, "First line.\nSecond\0 line.\n").unwrap_or_else(|e| panic!("{e}"));
    let out = factdesk([Path::new("import"), &p, Path::new("--docs"), &docs]);
    let msg = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{msg}");
    let place = format!("{}:2: field \"text\": {NUL}", doc.display());
    assert!(msg.contains(&place), "{msg}");
    assert_eq!((stats(&p), content_digest(&p)), before);
}

#[test]
fn a_ragged_csv_row_is_reported_at_its_own_line() {
    // The quoted context spans lines 2 and 3, so the short row is line 5.
    let input = b"id,claim,context\ng1,Fine.,\"two\nlines\"\ng2,Fine.,ok\ng3,Short\n";
    assert_refused(
        "ragged.csv",
        input,
        5,
        None,
        "the row has 2 fields but the header has 3",
    );
    let tsv = b"id\tclaim\nh1\tFine.\nh2\tToo\tmany\n";
    assert_refused(
        "ragged.tsv",
        tsv,
        3,
        None,
        "the row has 3 fields but the header has 2",
    );
}

#[test]
fn integer_ids_are_kept_exactly_as_written() {
    let (dir, p) = setup();
    let input = "{\"id\": 9007199254740993, \"claim\": \"One.\"}\n{\"id\": 9007199254740994, \"claim\": \"Two.\"}\n{\"id\": 123456789012345678901234567890, \"claim\": \"Three.\"}\n{\"id\": 123456789012345678901234567891, \"claim\": \"Four.\"}\n";
    let file = dir.path().join("ids.jsonl");
    std::fs::write(&file, input).unwrap_or_else(|e| panic!("{e}"));
    ok([Path::new("import"), &p, &file]);
    let conn = rusqlite::Connection::open(&p).unwrap_or_else(|e| panic!("{e}"));
    let mut ids: Vec<String> = conn
        .prepare("SELECT ext_id FROM claims WHERE ext_id NOT LIKE 'good-%' ORDER BY ext_id")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .unwrap_or_else(|e| panic!("{e}"));
    ids.sort();
    assert_eq!(
        ids,
        [
            "123456789012345678901234567890",
            "123456789012345678901234567891",
            "9007199254740993",
            "9007199254740994"
        ]
    );
}

/// Under --skip-invalid, a changed document whose id the project already holds is set
/// aside, and so is a claim of the same import naming it: it is not linked to the old
/// text under that id.
#[test]
fn a_claim_naming_a_set_aside_document_is_set_aside_with_it() {
    let (dir, p) = setup();
    let docs = dir.path().join("docs.jsonl");
    let claims = dir.path().join("claims.jsonl");
    std::fs::write(
        &docs,
        "{\"id\": \"d1\", \"text\": \"The harbour opened in 1901.\"}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        &claims,
        "{\"id\": \"c1\", \"claim\": \"The harbour opened.\", \"doc_ids\": [\"d1\"]}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    ok([Path::new("import"), &p, &claims, Path::new("--docs"), &docs]);

    let docs2 = dir.path().join("docs2.jsonl");
    let claims2 = dir.path().join("claims2.jsonl");
    std::fs::write(
        &docs2,
        "{\"id\": \"d1\", \"text\": \"The harbour closed in 1950.\"}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(&claims2, "{\"id\": \"c2\", \"claim\": \"The harbour closed.\", \"doc_ids\": [\"d1\"]}\n{\"id\": \"c3\", \"claim\": \"A claim of its own.\"}\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let before = stats(&p);
    let out = ok([
        Path::new("import"),
        &p,
        &claims2,
        Path::new("--docs"),
        &docs2,
        Path::new("--skip-invalid"),
    ]);
    // The summary names the rejects file of each input that had any.
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("set aside 2 invalid rows")
            && said.contains("claims2.jsonl.rejects.jsonl")
            && said.contains("docs2.jsonl.rejects.jsonl"),
        "{said}"
    );
    let after = stats(&p);
    assert_eq!(
        after["claims"],
        before["claims"].as_u64().unwrap_or(0) + 1,
        "{after}"
    );
    let rejects =
        std::fs::read_to_string(dir.path().join("claims2.jsonl.rejects.jsonl")).unwrap_or_default();
    assert!(rejects.contains("set aside"), "{rejects}");
    assert!(
        rejects.contains("c2") && !rejects.contains("c3"),
        "{rejects}"
    );
}

/// A file named twice in one import is refused before anything is written: rows without
/// an id would otherwise be added twice.
#[test]
fn a_file_named_twice_is_refused() {
    let (dir, p) = setup();
    let claims = dir.path().join("no-ids.jsonl");
    std::fs::write(&claims, "{\"claim\": \"The bridge is red.\"}\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let out = factdesk([Path::new("import"), &p, &claims, &claims]);
    let msg = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{msg}");
    assert!(
        msg.contains("named twice") && msg.contains("no-ids.jsonl"),
        "{msg}"
    );
    assert_eq!(stats(&p)["claims"], 2, "nothing was imported");
    // A hard link is the same file under another name.
    let linked = dir.path().join("linked.jsonl");
    std::fs::hard_link(&claims, &linked).unwrap_or_else(|e| panic!("{e}"));
    let out = factdesk([Path::new("import"), &p, &claims, &linked]);
    assert!(stderr(&out).contains("named twice"), "{}", stderr(&out));
    assert_eq!(stats(&p)["claims"], 2, "nothing was imported");
    ok([Path::new("import"), &p, &claims]);
    assert_eq!(stats(&p)["claims"], 3);
}

/// Under --skip-invalid, a document row set aside before writing (a second version of
/// an id in the same file, or a row without its text) sets aside the claims naming it:
/// they are not linked to the first version, nor called unknown.
#[test]
fn claims_naming_a_document_row_set_aside_while_reading_are_set_aside() {
    let (dir, p) = setup();
    let docs = dir.path().join("docs.jsonl");
    let claims = dir.path().join("claims.jsonl");
    let rows = [
        r#"{"id": "d1", "text": "The harbour opened in 1901."}"#,
        r#"{"id": "d1", "text": "The harbour closed in 1950."}"#,
        r#"{"id": "d2", "title": "No text here"}"#,
        r#"{"id": "d3", "text": "The bridge was painted red."}"#,
    ];
    std::fs::write(&docs, rows.join("\n")).unwrap_or_else(|e| panic!("{e}"));
    let claims_rows = [
        r#"{"id": "c1", "claim": "The harbour closed.", "doc_ids": ["d1"]}"#,
        r#"{"id": "c2", "claim": "Something untold.", "doc_ids": ["d2"]}"#,
        r#"{"id": "c3", "claim": "The bridge is red.", "doc_ids": ["d3"]}"#,
    ];
    std::fs::write(&claims, claims_rows.join("\n")).unwrap_or_else(|e| panic!("{e}"));
    ok([
        Path::new("import"),
        &p,
        &claims,
        Path::new("--docs"),
        &docs,
        Path::new("--skip-invalid"),
    ]);
    assert_eq!(stats(&p)["claims"], 3, "only c3 of the three was added");
    let rejects =
        std::fs::read_to_string(dir.path().join("claims.jsonl.rejects.jsonl")).unwrap_or_default();
    let lines: Vec<serde_json::Value> = rejects
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert_eq!(lines.len(), 2, "{rejects}");
    for line in &lines {
        let reason = line["reason"].as_str().unwrap_or_default();
        assert!(reason.contains("was set aside"), "{reason}");
    }
}
