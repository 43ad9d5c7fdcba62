//! Input that reads without a parse error into wrong rows: a stray CSV quote, a name
//! given twice, the wrong preset, a file that is not a file. Each is refused by name, or
//! set aside under `--skip-invalid`, and the project stays as it was. (Regressions from
//! the hostile pass over the import.)

use crate::bad_input::{assert_refused, setup};
use crate::{content_digest, data, factdesk, ok, stats, stderr};
use std::path::Path;

/// Imports `file` under `preset`, which must fail with exit code 1; returns stderr.
fn refused_under(p: &Path, file: &Path, preset: &str) -> String {
    let out = factdesk([
        Path::new("import"),
        p,
        file,
        Path::new("--preset"),
        Path::new(preset),
    ]);
    let msg = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{msg}");
    msg
}

/// A new project with `text` imported from a file `name` beside it; the import must
/// succeed. Returns the folder (kept while the project is used) and the project.
fn imported(name: &str, text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let (dir, p) = setup();
    let file = dir.path().join(name);
    std::fs::write(&file, text).unwrap_or_else(|e| panic!("{e}"));
    ok([Path::new("import"), &p, &file]);
    (dir, p)
}

/// The rejects file at `path`, as text (for failure messages) and as rows.
fn rejects_at(path: &Path) -> (String, Vec<serde_json::Value>) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let rows = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    (text, rows)
}

/// The line of each row in a rejects file, in its order.
fn lines_of(rows: &[serde_json::Value]) -> Vec<u64> {
    rows.iter().filter_map(|v| v["line"].as_u64()).collect()
}

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
    let input = "id,claim,context\nw1,\"\"\"Yes we can\"\" was his slogan.\",\"two\nlines\"\nw2,A 5\" screen.,x\n";
    let (_dir, p) = imported("fine.csv", input);
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
    // Inside metadata too: the export would carry whichever one this reader kept.
    let input = "{\"id\": \"j3\", \"claim\": \"Three.\", \"metadata\": {\"source\": \"a\", \"source\": \"b\"}}\n";
    assert_refused(
        "nested.jsonl",
        input.as_bytes(),
        1,
        Some("metadata"),
        "the key \"source\" is named twice inside this field",
    );
    // A CSV metadata cell is JSON too.
    let input = "id,claim,metadata\nj4,Four.,\"{\"\"source\"\": 1, \"\"source\"\": 2}\"\n";
    assert_refused(
        "nested.csv",
        input.as_bytes(),
        2,
        Some("metadata"),
        "the key \"source\" is named twice inside this field",
    );
}

#[test]
fn a_column_kept_in_metadata_never_overwrites_a_metadata_key() {
    // Unknown columns are kept in metadata; one named like a key metadata already holds,
    // with another value, would lose one of the two.
    let input = "id,claim,metadata,source\nk1,One.,\"{\"\"source\"\": \"\"a\"\"}\",b\n";
    assert_refused(
        "clash.csv",
        input.as_bytes(),
        2,
        Some("source"),
        "metadata holds this name too, with another value",
    );
    // The same value twice loses nothing and imports.
    // A number is the same in any form it is written in.
    let same = "{\"id\": \"k2\", \"claim\": \"Two.\", \"metadata\": {\"split\": \"dev\"}, \"split\": \"dev\"}\n\
                {\"id\": \"k3\", \"claim\": \"Three.\", \"metadata\": {\"n\": [1, 100000]}, \"n\": [1.0, 1e5]}\n";
    imported("same.jsonl", same);
}

#[test]
fn a_number_a_float_would_change_is_refused_not_rounded() {
    // serde_json holds 1e-400 as 0 and 0.12345678901234567890 as 0.12345678901234568:
    // metadata would keep another value than the file's, with no word.
    let input = "{\"id\": \"n1\", \"claim\": \"One.\", \"metadata\": {\"p\": [0.5, 1e-400]}}\n";
    assert_refused(
        "tiny.jsonl",
        input.as_bytes(),
        1,
        Some("metadata"),
        "holds the number 1e-400, which a JSON reader holds as 0.0, another value",
    );
    let input = "{\"id\": \"n2\", \"claim\": \"Two.\"}\n{\"id\": \"n3\", \"claim\": \"Three.\", \"score\": 0.12345678901234567890}\n";
    assert_refused(
        "long.jsonl",
        input.as_bytes(),
        2,
        Some("score"),
        "write it as text, in quotes",
    );
    let input = "id,claim,metadata\nn4,Four.,\"{\"\"p\"\": 123456789012345678901234567}\"\n";
    assert_refused(
        "cell.csv",
        input.as_bytes(),
        2,
        Some("metadata"),
        "holds the number 123456789012345678901234567",
    );
    // Numbers that come back as the same value import, and so does an id beyond 2^64,
    // which is kept as written.
    let fine = "{\"id\": 123456789012345678901234567, \"claim\": \"Five.\", \"metadata\": {\"p\": [2.50, 1e5, 0.1, 0.10000000000000001, 18446744073709551615]}}\n";
    imported("fine.jsonl", fine);
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
    let msg = refused_under(&p, &wiki, "covid-fact");
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
    let msg = refused_under(&p, &file, "covid-fact");
    assert!(
        msg.contains("does not read the fields id, verifiable"),
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
fn skip_invalid_lists_rejects_in_line_order_and_never_touches_a_file_it_did_not_write() {
    let (dir, p) = setup();
    // Line 2 is refused while reading, line 1 only later, as a changed duplicate of a
    // claim the project already holds.
    let input = "{\"id\": \"good-1\", \"claim\": \"Changed text.\"}\nnot json\n{\"id\": \"k3\", \"claim\": \"Kept.\"}\n";
    let file = dir.path().join("mixed.jsonl");
    std::fs::write(&file, input).unwrap_or_else(|e| panic!("{e}"));
    ok([Path::new("import"), &p, &file, Path::new("--skip-invalid")]);
    let rejects_path = dir.path().join("mixed.jsonl.rejects.jsonl");
    let (rejects, rows) = rejects_at(&rejects_path);
    assert_eq!(lines_of(&rows), vec![1, 2], "{rejects}");
    // Fixed and imported again: the old rejects stay (they may hold notes), and the
    // summary says they are not this run's.
    std::fs::write(&file, "{\"id\": \"k3\", \"claim\": \"Kept.\"}\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let out = ok([Path::new("import"), &p, &file, Path::new("--skip-invalid")]);
    assert!(
        stderr(&out).contains("is from an earlier run"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_to_string(&rejects_path).unwrap_or_default(),
        rejects
    );
    // A person's own file, or a link, under that name is never written: refused first.
    let before = (stats(&p), content_digest(&p));
    std::fs::write(&file, "{\"id\": \"k4\"}\n").unwrap_or_else(|e| panic!("{e}"));
    let precious = dir.path().join("precious.txt");
    std::fs::write(&precious, "mine\n").unwrap_or_else(|e| panic!("{e}"));
    for (setup_name, says) in [("notes", "is not a rejects file"), ("link", "is a link")] {
        let _ = std::fs::remove_file(&rejects_path);
        if setup_name == "notes" {
            std::fs::write(&rejects_path, "my notes\n").unwrap_or_else(|e| panic!("{e}"));
        } else {
            std::os::unix::fs::symlink(&precious, &rejects_path).unwrap_or_else(|e| panic!("{e}"));
        }
        let out = factdesk([Path::new("import"), &p, &file, Path::new("--skip-invalid")]);
        assert_eq!(out.status.code(), Some(1), "{setup_name}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(says),
            "{setup_name}: {}",
            stderr(&out)
        );
        assert_eq!((stats(&p), content_digest(&p)), before, "{setup_name}");
    }
    assert_eq!(
        std::fs::read_to_string(&precious).unwrap_or_default(),
        "mine\n"
    );
}

#[test]
fn crlf_and_lone_cr_files_are_checked_and_located_like_lf_ones() {
    let crlf = b"id,claim\r\n1,Fine.\r\n2,\"Yes we can\" was his slogan\r\n";
    assert_refused("crlf.csv", crlf, 3, Some("claim"), "text follows the quote");
    let open = b"id,claim\r\n1,\"open\r\n2,second\r\n";
    assert_refused("open.csv", open, 2, Some("claim"), "never closes");
    let ragged = b"id,claim,label\r\n1,a,SUPPORTED\r\n2,b,REFUTED\r\n3,c\r\n";
    assert_refused("ragged_crlf.csv", ragged, 4, None, "the row has 2 fields");
    let cr = b"id,claim,label\r1,a,SUPPORTED\r2,b\r";
    assert_refused("cr.csv", cr, 3, None, "the row has 2 fields");
}

#[test]
fn a_stray_quote_closed_rows_later_does_not_merge_them() {
    // `5"` closes the quote that `"Vaccines` opened: rows 3 and 4 would join row 2's claim,
    // under row 4's label.
    let input = b"id,claim,label\n1,\"Vaccines work,SUPPORTED\n2,Masks fail,REFUTED\n3,Screens are 5\",REFUTED\n4,x,SUPPORTED\n";
    assert_refused(
        "stray.csv",
        input,
        2,
        Some("claim"),
        "reads like a row of its own",
    );
    // Under --skip-invalid only the line with the stray quote is set aside.
    let (dir, p) = setup();
    let file = dir.path().join("stray.csv");
    std::fs::write(&file, input).unwrap_or_else(|e| panic!("{e}"));
    let before = stats(&p)["claims"].as_u64().unwrap_or(0);
    ok([Path::new("import"), &p, &file, Path::new("--skip-invalid")]);
    assert_eq!(stats(&p)["claims"].as_u64().unwrap_or(0), before + 3);
    let (rejects, rows) = rejects_at(&dir.path().join("stray.csv.rejects.jsonl"));
    assert_eq!(rows.len(), 1, "{rejects}");
    assert_eq!(rows[0]["row"], "1,\"Vaccines work,SUPPORTED");
}

#[test]
fn a_column_without_a_name_keeps_its_values() {
    let (dir, p) = setup();
    let file = dir.path().join("unnamed.csv");
    std::fs::write(
        &file,
        "id,claim,,notes\nu1,Unnamed kept.,important value,kept\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    ok([Path::new("import"), &p, &file]);
    let conn = rusqlite::Connection::open(&p).unwrap_or_else(|e| panic!("{e}"));
    let metadata: String = conn
        .query_row("SELECT metadata FROM claims WHERE ext_id = 'u1'", [], |r| {
            r.get(0)
        })
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        metadata.contains(r#""column 3":"important value""#),
        "{metadata}"
    );
}

#[test]
fn a_preset_refuses_a_later_row_of_another_dataset() {
    let covid = r#"{"claim": "Masks reduce spread.", "label": "SUPPORTED", "evidence": ["A study found so."], "gold_source": "https://x", "flair": "news"}"#;
    let wiki = r#"{"claim": "The Earth is flat.", "label": "REFUTED", "evidence": ["No."], "id": 99, "refuted": "x"}"#;
    let input = format!("{covid}\n{wiki}\n");
    let (dir, p) = setup();
    let before = (stats(&p), content_digest(&p));
    let file = dir.path().join("mixed.jsonl");
    std::fs::write(&file, input).unwrap_or_else(|e| panic!("{e}"));
    let msg = refused_under(&p, &file, "covid-fact");
    assert!(
        msg.contains(":2: field \"id\": the covid-fact preset does not read this field"),
        "{msg}"
    );
    assert_eq!((stats(&p), content_digest(&p)), before);
    // COVID-Fact rows with an id are not FEVER rows: their evidence is text, not sets.
    let with_id = r#"{"id": 7, "claim": "Masks reduce spread.", "label": "SUPPORTED", "evidence": ["A study found so."]}"#;
    std::fs::write(&file, format!("{with_id}\n")).unwrap_or_else(|e| panic!("{e}"));
    let msg = refused_under(&p, &file, "fever");
    assert!(
        msg.contains("FEVER evidence is a list of evidence sets"),
        "{msg}"
    );
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
    assert_refused("huge.jsonl", huge, 1, Some("id"), "write it as text");
    let lone = b"{\"id\": \"s1\", \"claim\": \"a\\ud800b\"}\n";
    assert_refused(
        "lone.jsonl",
        lone,
        1,
        Some("claim"),
        "half of a surrogate pair",
    );
}

/// The hostile pass's false refusals: hard-wrapped prose after a claim, and the index
/// column's usual spellings under the WikiFactCheck preset.
#[test]
fn legitimate_files_the_checks_once_refused_import() {
    let (dir, p) = setup();
    let wrapped = dir.path().join("wrapped.csv");
    std::fs::write(
        &wrapped,
        "claim,context\nMasks cut flu spread,\"A large trial, run in 2020 in Denmark,\nfound masks cut infections, and\nthe effect held across age groups.\"\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    ok([Path::new("import"), &p, &wrapped]);
    let wiki = dir.path().join("wiki.jsonl");
    std::fs::write(
        &wiki,
        "{\"Unnamed: 0\": 0, \"id\": 7, \"claim\": \"A.\", \"refuted\": \"B.\", \"context\": \"C.\"}\n{\"\": 1, \"id\": 8, \"claim\": \"D.\", \"refuted\": \"E.\"}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let before = stats(&p)["claims"].as_u64().unwrap_or(0);
    ok([
        Path::new("import"),
        &p,
        &wiki,
        Path::new("--preset"),
        Path::new("wikifactcheck"),
    ]);
    assert_eq!(stats(&p)["claims"].as_u64().unwrap_or(0), before + 4);
}

#[test]
fn fever_evidence_sets_are_checked_to_their_items() {
    let (dir, p) = setup();
    let file = dir.path().join("flat.jsonl");
    std::fs::write(
        &file,
        "{\"id\": 4, \"claim\": \"D.\", \"label\": \"SUPPORTS\", \"evidence\": [[\"P\", 3]]}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let msg = refused_under(&p, &file, "fever");
    assert!(
        msg.contains("a set holding something that is not a list"),
        "{msg}"
    );
}

#[test]
fn a_csv_read_in_batches_keeps_every_row_and_the_lines_of_the_bad_ones() {
    // CSV rows reach the import a few thousand at a time, so that a large file's rows are
    // never all held at once: rows on both sides of a batch's end, and bad rows in the
    // second batch, keep their place and their line.
    let (dir, p) = setup();
    let mut input = String::from("id,claim,label\n");
    let bad_lines = [4_100, 9_000];
    for line in 2..=10_001u64 {
        if bad_lines.contains(&line) {
            input.push_str("broken,\"a quote that closes early\" oops,SUPPORTED\n");
        } else {
            input.push_str(&format!("r{line},Claim on line {line}.,SUPPORTED\n"));
        }
    }
    let file = dir.path().join("large.csv");
    std::fs::write(&file, input).unwrap_or_else(|e| panic!("{e}"));
    let before = stats(&p)["claims"].as_u64().unwrap_or(0);
    ok([Path::new("import"), &p, &file, Path::new("--skip-invalid")]);
    let after = stats(&p)["claims"].as_u64().unwrap_or(0);
    assert_eq!(after, before + 10_000 - bad_lines.len() as u64);
    let (rejects, rows) = rejects_at(&dir.path().join("large.csv.rejects.jsonl"));
    assert_eq!(lines_of(&rows), bad_lines, "{rejects}");
    // Each row's text under its own id, in file order, across the batches.
    let conn = rusqlite::Connection::open(&p).unwrap_or_else(|e| panic!("{e}"));
    let rows: Vec<(String, String)> = conn
        .prepare("SELECT ext_id, text FROM claims WHERE import_id = (SELECT max(id) FROM imports) ORDER BY id")
        .and_then(|mut s| s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect())
        .unwrap_or_else(|e| panic!("{e}"));
    let expected: Vec<(String, String)> = (2..=10_001u64)
        .filter(|l| !bad_lines.contains(l))
        .map(|l| (format!("r{l}"), format!("Claim on line {l}.")))
        .collect();
    assert!(rows == expected, "rows out of place");
}

/// Regression (hostile pass of session 33): a claim had no length limit, and a
/// 32,000-word claim took a minute to rank. One over 2,000 characters is refused by its
/// line and field; one of exactly 2,000 goes in.
#[test]
fn a_claim_longer_than_two_thousand_characters_is_refused() {
    let long = "é".repeat(2_001);
    let input = format!(
        "{{\"id\": \"l1\", \"claim\": \"Fine.\"}}\n{{\"id\": \"l2\", \"claim\": \"{long}\"}}\n"
    );
    assert_refused(
        "long.jsonl",
        input.as_bytes(),
        2,
        Some("claim"),
        "the claim is 2001 characters long; it may hold at most 2000",
    );
    let fits = format!("{{\"id\": \"l3\", \"claim\": \"{}\"}}\n", "é".repeat(2_000));
    imported("fits.jsonl", &fits);
}

/// Regression (hostile pass of session 34): a refuted claim, which becomes a claim of its
/// own, went in at 2,500 characters, and a context of 5 MB went out with every item.
#[test]
fn a_refuted_claim_or_a_context_over_its_length_is_refused() {
    let refuted = "r".repeat(2_001);
    let input = format!(
        "{{\"id\": \"l1\", \"claim\": \"Fine.\"}}\n{{\"id\": \"l2\", \"claim\": \"Short.\", \"refuted\": \"{refuted}\"}}\n"
    );
    assert_refused(
        "refuted.jsonl",
        input.as_bytes(),
        2,
        Some("refuted"),
        "the refuted claim is 2001 characters long; it may hold at most 2000",
    );
    let context = "c".repeat(20_001);
    let input = format!("{{\"id\": \"l1\", \"claim\": \"Short.\", \"context\": \"{context}\"}}\n");
    assert_refused(
        "context.jsonl",
        input.as_bytes(),
        1,
        Some("context"),
        "the context is 20001 characters long; it may hold at most 20000",
    );
}
