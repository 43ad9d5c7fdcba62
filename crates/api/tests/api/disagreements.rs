//! Disagreement categories: a decision names one of the project's, spelt as the project
//! lists it; one the list lacks is refused and changes nothing; the gold line and the
//! report carry them, and the report counts current decisions only.

use crate::gold::{answered, first_claims_task};
use factdesk_api::agreement::AgreementRequest;
use factdesk_api::disagreement::DecisionNote;
use factdesk_api::gold::{GoldRequest, Ruling};
use factdesk_api::report::ReportFiles;
use factdesk_api::ErrorCode;
use factdesk_api::RawSql as _;

use crate::common::Acting;

fn ok<T, E: std::fmt::Display>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

/// Each category with its count, in the report's order.
fn rows(counts: &factdesk_api::disagreement::CategoryCounts) -> Vec<(&str, u64)> {
    counts
        .by_category
        .iter()
        .map(|c| (c.category.as_str(), c.decisions))
        .collect()
}

fn decisions(p: &factdesk_api::Project) -> i64 {
    ok(p.store()
        .read()
        .query_row("SELECT count(*) FROM decisions", [], |r| r.get(0)))
}

#[test]
fn a_decision_names_a_listed_category_and_the_report_counts_it() {
    let dir = ok(tempfile::tempdir());
    let mut p = answered(dir.path());
    let lead = p.lead_named("lead");
    let task = first_claims_task(&p);

    // Not on the list: refused, naming the field and the list, and nothing is written.
    let err = p
        .decide(
            &lead,
            task,
            Ruling::Take("ben".into()),
            &DecisionNote::category("typo"),
        )
        .err()
        .unwrap_or_else(|| panic!("a category the project lacks was taken"));
    assert_eq!(err.code, ErrorCode::InvalidInput);
    assert_eq!(
        err.location.as_ref().and_then(|l| l.field.as_deref()),
        Some("category")
    );
    assert!(err.message.contains("guideline gap"), "{}", err.message);
    assert_eq!(decisions(&p), 0);

    // Any case and spacing finds it; the project's spelling is kept.
    let note = DecisionNote {
        category: Some("  Guideline GAP ".into()),
        reason: Some("the guideline says nothing of dates".into()),
    };
    ok(p.decide(&lead, task, Ruling::Take("ben".into()), &note));
    let req = GoldRequest::default();
    let queue = ok(p.adjudication_queue(&lead, &req));
    let shown = queue.iter().find(|i| i.task_id == task);
    let decision = shown.and_then(|i| i.decision.as_ref());
    assert_eq!(
        decision.and_then(|d| d.category.as_deref()),
        Some("guideline gap")
    );
    // caro is flagged: the other lines rest on 2 of 3 answers, exported when asked for.
    let all = GoldRequest {
        include_under_annotated: true,
        ..GoldRequest::default()
    };
    let (lines, _) = ok(p.gold(&p.lead(), &all));
    let line = lines.iter().find(|l| l.id == "c0");
    let line = line.unwrap_or_else(|| panic!("c0 not exported"));
    assert_eq!(line.provenance.category.as_deref(), Some("guideline gap"));
    let other = lines.iter().find(|l| l.id != "c0");
    let json = ok(serde_json::to_value(
        other.unwrap_or_else(|| panic!("one line")),
    ));
    assert!(
        json["provenance"].get("category").is_none(),
        "a line no decision stands behind has no category: {json}"
    );

    let report = ok(p.report(&p.lead(), &AgreementRequest::default()));
    let counts = &report.disagreements;
    assert_eq!((counts.decisions, counts.uncategorised), (1, 0));
    let listed = rows(counts);
    assert_eq!(
        listed,
        [
            ("ambiguous item", 0),
            ("missing context", 0),
            ("guideline gap", 1),
            ("annotator slip", 0),
            ("judgement call", 0),
            ("other", 0)
        ]
    );

    // The lead renames the list: the decision keeps the name it was given, counted
    // after the list; an undone decision is counted no more.
    let mut settings = ok(p.settings());
    settings.disagreement_categories = vec!["vague claim".into(), "slip".into()];
    ok(p.set_settings(&p.lead(), &settings));
    let counts = ok(p.report(&p.lead(), &AgreementRequest::default())).disagreements;
    let relisted = rows(&counts);
    assert_eq!(
        relisted,
        [("vague claim", 0), ("slip", 0), ("guideline gap", 1)]
    );

    let out = ok(tempfile::tempdir());
    let files = ReportFiles {
        html: out.path().join("report.html"),
        json: None,
        csv: Some(out.path().join("tables")),
    };
    ok(p.write_report(&p.lead(), &AgreementRequest::default(), &files));
    let csv = ok(std::fs::read_to_string(
        out.path().join("tables/disagreements.csv"),
    ));
    assert_eq!(
        csv,
        "category,decisions\nvague claim,0\nslip,0\nguideline gap,1\n,0\n"
    );
    let html = ok(std::fs::read_to_string(&files.html));
    assert!(
        html.contains("Disagreements settled by the lead"),
        "no section"
    );
    assert!(html.contains("<td>guideline gap</td><td class=\"num\">1</td>"));

    ok(p.undo_decision(&lead, task, None));
    let counts = ok(p.report(&p.lead(), &AgreementRequest::default())).disagreements;
    assert_eq!(counts.decisions, 0);
    assert!(counts.by_category.iter().all(|c| c.decisions == 0));
}

#[test]
fn a_category_list_that_cannot_be_picked_from_is_refused_by_name() {
    let dir = ok(tempfile::tempdir());
    let mut p = answered(dir.path());
    let before = ok(p.settings());
    for bad in [
        vec!["same".to_string(), "Same".to_string()],
        vec![String::new()],
        vec!["a\tb".to_string()],
    ] {
        let mut settings = before.clone();
        settings.disagreement_categories = bad.clone();
        let err = p
            .set_settings(&p.lead(), &settings)
            .err()
            .unwrap_or_else(|| panic!("{bad:?} was saved"));
        assert_eq!(
            err.location.as_ref().and_then(|l| l.field.as_deref()),
            Some("disagreement_categories"),
            "{bad:?}: {}",
            err.message
        );
        assert_eq!(ok(p.settings()), before, "{bad:?} changed the settings");
    }
    // An empty list is a choice: decisions then name no category.
    let mut settings = before;
    settings.disagreement_categories.clear();
    ok(p.set_settings(&p.lead(), &settings));
    let err = p
        .decide(
            &p.lead_named("lead"),
            first_claims_task(&p),
            Ruling::Take("ana".into()),
            &DecisionNote::category("other"),
        )
        .err()
        .unwrap_or_else(|| panic!("a category was taken from an empty list"));
    assert!(
        err.message.contains("lists no disagreement categories"),
        "{}",
        err.message
    );
}
