//! A person's name is trimmed wherever it comes in, the same way everywhere: adding
//! " zed " stores and reports "zed", and " cy " finds cy in `--for` as in `--as`. A name
//! with a control character, or over a hundred characters, is refused with the reason.

use crate::{demo_project, factdesk, ok, stderr};
use std::path::Path;

#[test]
fn names_are_trimmed_once_everywhere_and_unprintable_or_long_ones_refused() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let p = demo_project(dir.path(), "names.fdesk", &["lea"]);
    let p = p.as_path();
    let added = ok([
        Path::new("annotators"),
        p,
        Path::new("add"),
        Path::new(" zed "),
        Path::new("--role"),
        Path::new("lead"),
    ]);
    assert_eq!(
        String::from_utf8_lossy(&added.stdout).trim(),
        "added zed (lead)"
    );
    let again = factdesk([
        Path::new("annotators"),
        p,
        Path::new("add"),
        Path::new("zed"),
    ]);
    assert!(!again.status.success());
    assert!(
        stderr(&again).contains("already an annotator called \"zed\""),
        "{}",
        stderr(&again)
    );

    ok([
        Path::new("annotators"),
        p,
        Path::new("add"),
        Path::new(" cy"),
    ]);
    let pack = dir.path().join("cy.fdpack");
    ok([
        Path::new("pack"),
        p,
        Path::new("--for"),
        Path::new(" cy "),
        Path::new("--kind"),
        Path::new("evidence"),
        Path::new("--count"),
        Path::new("1"),
        Path::new("--out"),
        &pack,
    ]);
    ok([
        Path::new("next"),
        p,
        Path::new("--as"),
        Path::new("  cy"),
        Path::new("--kind"),
        Path::new("evidence"),
    ]);

    let long = "x".repeat(101);
    for (name, why) in [
        ("tab\there", "control character"),
        ("new\nline", "control character"),
        (long.as_str(), "at most 100 characters"),
    ] {
        let out = factdesk([
            Path::new("annotators"),
            p,
            Path::new("add"),
            Path::new(name),
        ]);
        assert!(!out.status.success(), "{name:?} was added");
        assert!(stderr(&out).contains(why), "{name:?}: {}", stderr(&out));
    }
    let exactly = "y".repeat(100);
    ok([
        Path::new("annotators"),
        p,
        Path::new("add"),
        Path::new(&exactly),
    ]);
}
