//! Arguments that take one of a fixed set of values are checked by the parser (clap
//! `ValueEnum`s on the domain's enums): a bad value is refused before anything is opened,
//! with the values it could have been; the names are the ones the docs and scripts use.

use crate::{factdesk, stderr};

/// Each command with a bad value, and the values it must offer.
const BAD: &[(&[&str], &str)] = &[
    (
        &["tasks", "P", "--kind", "evidense"],
        "evidence, refute, verify, label, design",
    ),
    (
        &["next", "P", "--as", "ana", "--kind", "x"],
        "evidence, refute, verify, label, design",
    ),
    (
        &["agreement", "P", "--kind", "x"],
        "evidence, refute, verify, label, design",
    ),
    (
        &["study", "P", "--kind", "x"],
        "evidence, refute, verify, label, design",
    ),
    (
        &["pack", "P", "--for", "ana", "--out", "o", "--kind", "x"],
        "evidence, refute, verify, label, design",
    ),
    (
        &["rank", "P", "--ranker", "tfidf"],
        "bm25, levenshtein, jaccard, fused, semantic",
    ),
    (
        &["export", "P", "--out", "o", "--format", "csv"],
        "factdesk, fever, hf",
    ),
    (
        &["export", "P", "--out", "o", "--method", "vote"],
        "majority, dawid-skene",
    ),
    (
        &["predictions", "P", "compare", "--method", "vote"],
        "majority, dawid-skene",
    ),
    (
        &["adjudicate", "P", "--list", "--method", "vote"],
        "majority, dawid-skene",
    ),
    (
        &["answers", "P", "--out", "o", "--format", "xlsx"],
        "jsonl, csv, parquet",
    ),
    (
        &["import", "P", "--preset", "snopes"],
        "native, covid-fact, wikifactcheck, fever, generic",
    ),
    (
        &["annotators", "P", "add", "zed", "--role", "owner"],
        "lead, annotator",
    ),
    (
        &["claims", "P", "--standing", "done"],
        "any, no-tasks, open, complete",
    ),
];

#[test]
fn a_bad_enum_value_is_refused_listing_the_possible_values() {
    for (args, values) in BAD {
        let out = factdesk(*args);
        let said = stderr(&out);
        // 2: clap's usage error, before the project is looked for.
        assert_eq!(out.status.code(), Some(2), "{args:?}: {said}");
        let bad = args.last().copied().unwrap_or_default();
        assert!(
            said.contains(&format!("invalid value '{bad}'")),
            "{args:?}: {said}"
        );
        assert!(
            said.contains(&format!("[possible values: {values}]")),
            "{args:?}: {said}"
        );
    }
}

/// The spellings in use before the arguments were typed still parse: the refusal that
/// follows is about the missing project, not the value.
#[test]
fn the_known_spellings_still_parse() {
    for args in [
        &["rank", "missing.fdesk", "--ranker", "BM25"][..],
        &["import", "missing.fdesk", "--preset", "covidfact"],
        &["import", "missing.fdesk", "--preset", "wikifactcheck"],
        &["export", "missing.fdesk", "--out", "o", "--format", "hf"],
        &[
            "export",
            "missing.fdesk",
            "--out",
            "o",
            "--method",
            "dawid-skene",
        ],
        &["claims", "missing.fdesk", "--standing", "no-tasks"],
        &["next", "missing.fdesk", "--as", "ana"],
    ] {
        let out = factdesk(args);
        let said = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {said}");
        assert!(said.contains("missing.fdesk"), "{args:?}: {said}");
        assert!(!said.contains("invalid value"), "{args:?}: {said}");
    }
}
