//! Each evidence kappa carries its own name and units, and `factdesk agreement`, the
//! dashboard and the report print the same numbers under the same names (issue 30: the
//! report's "pairwise Cohen's kappa" was per candidate sentence, the CLI's per exact set,
//! under one name).

use factdesk_api::agreement::AgreementRequest;
use factdesk_api::annotate::Answer;
use factdesk_api::annotators::Role;
use factdesk_api::dashboard::DashboardState;
use factdesk_api::report::{html, tables};
use factdesk_api::tasks::TaskKind;
use factdesk_api::ManualClock;
use factdesk_core::agreement::{definition, PairKappa};
use factdesk_core::seeded::Seeded;

use crate::common;
use common::{must, project, trick_option, Acting};

const NAMES: [&str; 3] = ["ana", "ben", "caro"];

fn mean(pairs: &[PairKappa]) -> f64 {
    let values: Vec<f64> = pairs.iter().filter_map(|p| p.value).collect();
    values.iter().sum::<f64>() / values.len() as f64
}

/// The rows of `cohen_pairs.csv` for evidence under `metric`: (unit, a, b, units, value).
fn csv_rows(csv: &[u8], metric: &str) -> Vec<(String, String, String, u64, f64)> {
    let mut reader = csv::Reader::from_reader(csv);
    let header = must(reader.headers()).clone();
    let at = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("cohen_pairs.csv has no {name} column: {header:?}"))
    };
    let (kind, m, unit, a, b, units, value) = (
        at("kind"),
        at("metric"),
        at("unit"),
        at("a"),
        at("b"),
        at("units"),
        at("value"),
    );
    reader
        .records()
        .map(must)
        .filter(|r| &r[kind] == "evidence" && &r[m] == metric)
        .map(|r| {
            (
                r[unit].to_string(),
                r[a].to_string(),
                r[b].to_string(),
                must(r[units].parse()),
                must(r[value].parse()),
            )
        })
        .collect()
}

#[test]
fn per_candidate_and_exact_set_kappas_have_their_own_names_everywhere() {
    let dir = must(tempfile::tempdir());
    let clock = ManualClock::new(1_000_000);
    let mut p = project(dir.path(), 12, &clock);
    must(p.create_tasks(&p.lead(), TaskKind::Evidence, Some(3)));
    for n in NAMES {
        must(p.add_annotator(&p.lead(), n, Role::Annotator));
    }
    let mut rng = Seeded::new(11);
    for _ in 0..12 {
        for name in NAMES {
            let Some(item) = must(p.next_item(&p.who(name), TaskKind::Evidence)).item else {
                continue;
            };
            let trick = trick_option(&p, &item).unwrap_or_default();
            let selected: Vec<String> = item
                .options
                .iter()
                .filter(|o| o.id != trick && rng.below(2) == 0)
                .map(|o| o.id.clone())
                .collect();
            let answer = Answer {
                task_id: item.task_id,
                no_evidence: selected.is_empty(),
                selected,
                ..Default::default()
            };
            must(p.submit(&p.who(name), &answer));
            clock.advance_ms(5_000);
        }
    }
    let req = AgreementRequest {
        bootstrap_reps: 0,
        ..Default::default()
    };
    // What `factdesk agreement --kind evidence --json` prints.
    let cli = must(p.agreement(&p.lead(), TaskKind::Evidence, &req));
    assert_eq!(cli.annotators, 3);
    let exact = &cli.cohen_kappa_pairs;
    let pooled = &cli.setsel_pooled_cohen_kappa_pairs;
    assert_eq!((exact.len(), pooled.len()), (3, 3));
    for (e, q) in exact.iter().zip(pooled) {
        assert_eq!((&e.a, &e.b), (&q.a, &q.b));
        // Items for one, (item, candidate) units for the other.
        assert!(q.units > e.units, "{e:?} {q:?}");
    }
    // Each mean is the mean of its own pairs.
    let metric = |name: &str| {
        cli.metrics[name]
            .value
            .unwrap_or_else(|| panic!("{name} undefined: {:?}", cli.metrics[name]))
    };
    assert!((metric("cohen_kappa_mean_pairwise") - mean(exact)).abs() < 1e-12);
    assert!((metric("setsel_pooled_cohen_kappa_mean_pairwise") - mean(pooled)).abs() < 1e-12);

    // The dashboard's pairs are the per-candidate ones, and say so.
    let mut state = DashboardState::new();
    must(state.refresh(&p, &p.lead()));
    let dashboard = state.snapshot(0);
    let shown = dashboard
        .kinds
        .iter()
        .find(|k| k.kind == TaskKind::Evidence)
        .unwrap_or_else(|| panic!("no evidence on the dashboard"));
    assert_eq!(shown.pairs_metric, "setsel_pooled_cohen_kappa");
    // Its pairs count candidate sentences while its `units` counts items: it says so (the
    // hostile pass read both as one thing).
    assert_eq!(shown.pairs_unit, "candidate sentence");
    assert!(shown.pairs.iter().all(|d| d.units > shown.units));
    assert_eq!(shown.pairs.len(), pooled.len());
    for (d, q) in shown.pairs.iter().zip(pooled) {
        assert_eq!((&d.a, &d.b, d.units), (&q.a, &q.b, q.units as u64));
        let (x, y) = (d.value.unwrap_or(f64::NAN), q.value.unwrap_or(f64::NAN));
        assert!((x - y).abs() < 1e-12, "{d:?} vs {q:?}");
    }

    // The report: both tables in cohen_pairs.csv, each under its name and unit, and the
    // page titles each heatmap with its unit and metric.
    let report = must(p.report(&p.lead(), &req));
    let csv = must(tables::render_all(&report))
        .into_iter()
        .find(|(name, _)| name == "cohen_pairs.csv")
        .unwrap_or_else(|| panic!("no cohen_pairs.csv"))
        .1;
    for (metric, unit, expected) in [
        ("setsel_pooled_cohen_kappa", "candidate sentence", pooled),
        ("cohen_kappa", "item (exact evidence set)", exact),
    ] {
        let rows = csv_rows(&csv, metric);
        assert_eq!(rows.len(), expected.len(), "{metric} rows");
        for (row, want) in rows.iter().zip(expected) {
            assert_eq!(
                (row.0.as_str(), &row.1, &row.2, row.3),
                (unit, &want.a, &want.b, want.units as u64),
                "{metric}"
            );
            assert_eq!(Some(row.4), want.value, "{metric} {}–{}", want.a, want.b);
        }
    }
    let page = html::render(&report);
    for needle in [
        "Cohen&#39;s kappa per pair, per candidate sentence",
        "Cohen&#39;s kappa per pair, per item (exact evidence set)",
        "<code>setsel_pooled_cohen_kappa_mean_pairwise</code>",
    ] {
        let plain = needle.replace("&#39;", "'");
        assert!(
            page.contains(needle) || page.contains(&plain),
            "the page lacks {plain}"
        );
    }
    // The page says how the figures and the gold were made.
    let m = &report.methodology;
    assert_eq!(
        (
            m.aggregation.as_str(),
            m.refute_max_tokens,
            m.bootstrap_reps
        ),
        ("majority", 15, 0)
    );
    for needle in [
        "Gold lines by strict majority",
        "headlined per candidate sentence",
        "Wilson 95% lower bound",
        "whitespace-separated words",
    ] {
        assert!(
            page.contains(needle),
            "the Methodology section lacks {needle:?}"
        );
    }
    // Every statistic on the page comes with its one definition.
    for name in cli.metrics.keys() {
        let what = definition(name, true).unwrap_or_else(|| panic!("{name} has no definition"));
        assert!(
            page.contains(&what) || page.contains(&what.replace('\'', "&#39;")),
            "the page does not define {name}"
        );
    }
    // Evidence agrees with the majority per candidate sentence, and its row says so
    // (screenshot walk of session 27: "88% of 8").
    assert!(
        page.contains("% of ") && !page.contains(" items</td>") && page.contains(" sentences</td>"),
        "the people table names its unit"
    );
}
