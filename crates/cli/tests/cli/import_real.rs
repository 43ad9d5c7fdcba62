//! Importing the published datasets in ../shared/data.

use crate::{data, new_project, ok, stats};
use std::path::Path;

#[test]
fn covid_fact_imports_every_claim_once_with_labels_flairs_and_evidence() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = new_project(dir.path());
    let file = data("covidfact.jsonl");
    let out = ok([
        Path::new("import"),
        &p,
        &file,
        Path::new("--preset"),
        Path::new("covid-fact"),
    ]);
    // Issue 30, point 5: every candidate of these claims is one of their own gold
    // sentences, and the import says so rather than making degenerate items silently.
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains(
            "warning: the documents of 4086 claims hold only their published evidence sentences"
        ) && said.contains("make-eval-set"),
        "{said}"
    );
    let s = stats(&p);
    assert_eq!(s["claims"], 4086);
    // Identical evidence lists become one document: COVID-Fact has 1,290 distinct lists.
    assert_eq!(s["documents"], 1290);
    assert!(s["sentences"].as_u64().unwrap_or(0) >= 1290);

    let conn = rusqlite::Connection::open(&p).unwrap_or_else(|e| panic!("{e}"));
    let count = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap_or(-1) };
    assert_eq!(
        count("SELECT count(*) FROM claims WHERE label = 'SUPPORTED'"),
        1296
    );
    assert_eq!(
        count("SELECT count(*) FROM claims WHERE label = 'REFUTED'"),
        2790
    );
    assert_eq!(
        count("SELECT count(*) FROM claims WHERE json_extract(metadata, '$.flair') = 'Preprint'"),
        1294
    );
    // Every refuted claim shares its evidence with a supported claim, so each gets a parent.
    assert_eq!(
        count("SELECT count(*) FROM claims WHERE label = 'REFUTED' AND parent_id IS NULL"),
        0
    );
    assert_eq!(
        count("SELECT count(*) FROM claims c JOIN claims p ON c.parent_id = p.id WHERE p.label != 'SUPPORTED'"),
        0
    );
    assert_eq!(count("SELECT count(*) FROM claims c LEFT JOIN claim_documents d ON d.claim_id = c.id WHERE d.claim_id IS NULL"), 0);
    let linked: String = conn
        .query_row(
            "SELECT p.text FROM claims c JOIN claims p ON c.parent_id = p.id
             WHERE c.text = 'Measuring chs-cov-2 neutralizing antibody activity using pseudotyped and chimeric viruses'",
            [],
            |r| r.get(0),
        )
        .unwrap_or_default();
    assert_eq!(linked, "Measuring sars-cov-2 neutralizing antibody activity using pseudotyped and chimeric viruses");
    drop(conn);

    ok([
        Path::new("import"),
        &p,
        &file,
        Path::new("--preset"),
        Path::new("covid-fact"),
    ]);
    assert_eq!(
        stats(&p),
        s,
        "importing the same file again changed the counts"
    );
}

#[test]
fn wikifactcheck_imports_claims_with_context_and_linked_refutations() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = new_project(dir.path());
    let file = data("wikifactcheck_dev.tsv");
    ok([
        Path::new("import"),
        &p,
        &file,
        Path::new("--preset"),
        Path::new("wikifactcheck"),
    ]);
    let s = stats(&p);
    assert_eq!(s["root_claims"], 4870);
    assert_eq!(s["refutations"], 4870);
    assert_eq!(s["claims"], 9740);

    let conn = rusqlite::Connection::open(&p).unwrap_or_else(|e| panic!("{e}"));
    let count = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap_or(-1) };
    assert_eq!(count("SELECT count(*) FROM claims WHERE parent_id IS NULL AND (context IS NULL OR context = '')"), 0);
    assert_eq!(
        count("SELECT count(*) FROM claims p WHERE parent_id IS NULL AND (SELECT count(*) FROM claims c WHERE c.parent_id = p.id) != 1"),
        0
    );
    let (claim, refuted): (String, String) = conn
        .query_row(
            "SELECT p.text, c.text FROM claims p JOIN claims c ON c.parent_id = p.id WHERE p.ext_id = 'wikifactcheck:106450'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap_or_default();
    assert_eq!(claim, "He included additional background explanations to explain the scenery and physical attributes of the characters.");
    assert_eq!(refuted, "He forgot to include additional background explanations to explain the scenery and physical attributes of the characters.");
    drop(conn);

    ok([
        Path::new("import"),
        &p,
        &file,
        Path::new("--preset"),
        Path::new("wikifactcheck"),
    ]);
    assert_eq!(stats(&p), s);
}
