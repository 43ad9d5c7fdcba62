//! Unit tests: undefined cases, small hand-checked values, and table building.

use super::*;

fn rating(item: &str, annotator: &str, label: &str) -> Rating {
    Rating {
        item: item.to_string(),
        annotator: annotator.to_string(),
        label: Label::Category(label.to_string()),
    }
}

fn table(ratings: &[Rating]) -> RatingTable {
    match RatingTable::new(ratings, None, None) {
        Ok(table) => table,
        Err(e) => panic!("table: {e}"),
    }
}

fn grid(rows: &[(&str, &[&str])]) -> Vec<Rating> {
    rows.iter()
        .flat_map(|(annotator, labels)| {
            labels
                .iter()
                .enumerate()
                .filter(|(_, l)| !l.is_empty())
                .map(move |(i, l)| rating(&format!("u{i}"), annotator, l))
        })
        .collect()
}

/// Every metric `compute_all` gives is a finite value or undefined with a reason.
fn assert_well_formed(metrics: &std::collections::BTreeMap<String, MetricValue>) {
    for (name, metric) in metrics {
        match metric.value {
            Some(v) => assert!(v.is_finite(), "{name} is {v}"),
            None => assert!(metric.reason.is_some(), "{name} undefined without a reason"),
        }
    }
}

fn no_bootstrap() -> AgreementOptions {
    AgreementOptions {
        bootstrap_reps: 0,
        seed: 0,
    }
}

#[test]
fn identical_ratings_are_undefined_not_nan() {
    let t = table(&grid(&[("a", &["x", "x", "x"]), ("b", &["x", "x", "x"])]));
    let metrics = compute_all(&t, &no_bootstrap());
    assert_well_formed(&metrics);
    for name in [
        "fleiss_kappa",
        "cohen_kappa",
        "krippendorff_alpha_nominal",
        "cohen_kappa_mean_pairwise",
        "randolph_kappa",
    ] {
        let metric = &metrics[name];
        assert_eq!(metric.value, None, "{name}");
        assert!(
            metric.reason.as_deref().is_some_and(|r| !r.is_empty()),
            "{name}"
        );
    }
    assert!(metrics["fleiss_kappa"]
        .reason
        .as_deref()
        .is_some_and(|r| r.contains("no variation")));
    assert_eq!(metrics["percent_agreement"].value, Some(1.0));
    assert_eq!(metrics["percent_agreement_unanimous"].value, Some(1.0));
}

#[test]
fn a_single_annotator_is_undefined_everywhere() {
    let t = table(&grid(&[("a", &["x", "y", "x"])]));
    let metrics = compute_all(&t, &AgreementOptions::default());
    assert_well_formed(&metrics);
    assert!(!metrics.contains_key("cohen_kappa"));
    for (name, metric) in &metrics {
        assert_eq!(metric.value, None, "{name}");
        assert_eq!(
            metric.reason.as_deref(),
            Some("fewer than 2 annotators"),
            "{name}"
        );
    }
    assert_eq!(compute(&t, "cohen_kappa").and_then(|m| m.value), None);
}

#[test]
fn no_unit_with_two_ratings_is_undefined() {
    let t = table(&grid(&[("a", &["x", "", "y"]), ("b", &["", "y", ""])]));
    let metrics = compute_all(&t, &AgreementOptions::default());
    assert_well_formed(&metrics);
    for name in [
        "percent_agreement",
        "fleiss_kappa",
        "krippendorff_alpha_nominal",
        "cohen_kappa",
    ] {
        assert_eq!(metrics[name].value, None, "{name}");
    }
    assert_eq!(
        metrics["fleiss_kappa"].reason.as_deref(),
        Some("no unit has 2 or more ratings")
    );
    assert!(pairs(&t).iter().all(|p| p.value.is_none() && p.units == 0));
}

#[test]
fn non_numeric_interval_labels_are_undefined_with_the_label() {
    let t = table(&grid(&[
        ("a", &["1", "2", "high"]),
        ("b", &["1", "3", "2"]),
    ]));
    let metrics = compute_all(&t, &no_bootstrap());
    assert!(!metrics.contains_key("krippendorff_alpha_interval"));
    for name in ["krippendorff_alpha_interval", "krippendorff_alpha_ratio"] {
        let metric = compute(&t, name);
        assert_eq!(metric.as_ref().and_then(|m| m.value), None);
        let reason = metric.and_then(|m| m.reason).unwrap_or_default();
        assert!(reason.contains("\"high\" is not a number"), "{reason}");
    }
    let weighted = compute(&t, "cohen_kappa_linear")
        .and_then(|m| m.reason)
        .unwrap_or_default();
    assert!(weighted.contains("category order"), "{weighted}");
}

#[test]
fn same_numbers_written_differently_have_no_interval_variation() {
    let t = table(&grid(&[("a", &["1", "1.0"]), ("b", &["1.0", "1"])]));
    let alpha = compute(&t, "krippendorff_alpha_interval");
    assert_eq!(alpha.as_ref().and_then(|m| m.value), None);
    assert!(alpha
        .and_then(|m| m.reason)
        .is_some_and(|r| r.contains("same value")));
}

#[test]
fn numeric_labels_order_numerically() {
    let t = table(&grid(&[("a", &["10", "9", "2"]), ("b", &["9", "10", "2"])]));
    assert_eq!(t.categories(), ["2", "9", "10"]);
    assert_eq!(t.category_order(), CategoryOrder::Numeric);
    assert!(compute(&t, "cohen_kappa_quadratic")
        .and_then(|m| m.value)
        .is_some());
}

#[test]
fn table_errors_are_reported() {
    let conflicting = [rating("u", "a", "x"), rating("u", "a", "y")];
    assert!(matches!(
        RatingTable::new(&conflicting, None, None),
        Err(TableError::ConflictingRatings { .. })
    ));
    let repeated = [
        rating("u", "a", "x"),
        rating("u", "a", "x"),
        rating("u", "b", "x"),
    ];
    assert_eq!(table(&repeated).rating_count(), 2);
    let order = ["x".to_string()];
    assert_eq!(
        RatingTable::new(&[rating("u", "a", "y")], Some(&order), None).err(),
        Some(TableError::UnknownCategory("y".to_string()))
    );
    let mixed = [
        rating("u", "a", "x"),
        Rating {
            item: "u".into(),
            annotator: "b".into(),
            label: Label::Set(vec![]),
        },
    ];
    assert_eq!(
        RatingTable::new(&mixed, None, None).err(),
        Some(TableError::MixedLabelKinds)
    );
}

#[test]
fn labels_deserialize_from_strings_numbers_lists_and_null() {
    let parsed: Vec<Label> = match serde_json::from_str(r#"["x", 3, 2.5, null, ["s1", "s2"], []]"#)
    {
        Ok(labels) => labels,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(
        parsed,
        [
            Label::Category("x".into()),
            Label::Category("3".into()),
            Label::Category("2.5".into()),
            Label::Missing,
            Label::Set(vec!["s1".into(), "s2".into()]),
            Label::Set(vec![]),
        ]
    );
}

#[test]
fn metric_values_serialize_as_the_cli_prints_them() {
    let mut defined = MetricValue::defined(0.5);
    defined.ci95 = Some((0.25, 0.75));
    let json = serde_json::to_string(&defined).unwrap_or_default();
    assert_eq!(json, r#"{"value":0.5,"ci95":[0.25,0.75]}"#);
    let json = serde_json::to_string(&MetricValue::undefined("why")).unwrap_or_default();
    assert_eq!(json, r#"{"value":null,"reason":"why"}"#);
    assert_eq!(MetricValue::defined(f64::NAN).value, None);
}

/// A band is read only where the value and its whole interval lie in it.
#[test]
fn a_reading_needs_the_interval_within_one_band() {
    assert_eq!(reading(0.458, Some((-0.143, 0.851))), Some(UNCERTAIN));
    assert_eq!(reading(0.5, Some((0.41, 0.6))), Some("moderate"));
    assert_eq!(reading(0.5, Some((0.39, 0.6))), Some(UNCERTAIN));
    assert_eq!(reading(0.9, Some((0.81, 1.0))), Some("almost perfect"));
    assert_eq!(reading(0.5, None), None);
    let mut m = MetricValue::defined(0.5);
    m.ci95 = Some((0.45, 0.55));
    m.read_as("percent_agreement");
    assert_eq!(m.reading, None);
    m.read_as("fleiss_kappa");
    assert_eq!(m.reading, Some("moderate"));
    let json = serde_json::to_string(&m).unwrap_or_default();
    assert_eq!(
        json,
        r#"{"value":0.5,"ci95":[0.45,0.55],"reading":"moderate"}"#
    );
}

#[test]
fn landis_koch_bands() {
    let readings: Vec<&str> = [-0.1, 0.0, 0.2, 0.21, 0.4, 0.6, 0.8, 0.81, 1.0]
        .into_iter()
        .map(landis_koch)
        .collect();
    assert_eq!(
        readings,
        [
            "poor",
            "slight",
            "slight",
            "fair",
            "fair",
            "moderate",
            "substantial",
            "almost perfect",
            "almost perfect"
        ]
    );
}

#[test]
fn group_majority_cohen_counts_units_with_two_majorities() {
    // Group A = a1..a3, group B = b1..b3. On u1 group A is split (x, y, one missing),
    // so u1 is left out.
    let t = table(&grid(&[
        ("a1", &["x", "x", "y", "y", "x"]),
        ("a2", &["x", "y", "y", "y", "x"]),
        ("a3", &["y", "", "y", "x", "x"]),
        ("b1", &["x", "x", "y", "x", "y"]),
        ("b2", &["x", "x", "y", "y", "x"]),
        ("b3", &["x", "y", "x", "y", "x"]),
    ]));
    let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let value = group_majority_cohen(&t, &names(&["a1", "a2", "a3"]), &names(&["b1", "b2", "b3"]));
    // Majorities A: x, -, y, y, x; B: x, x, y, y, x → 4 units, all agree, both categories.
    assert_eq!(value.value, Some(1.0));
    let overlap = group_majority_cohen(&t, &names(&["a1"]), &names(&["a1", "b1"]));
    assert_eq!(overlap.value, None);
}

#[test]
fn bootstrap_is_seeded_and_brackets_the_estimate() {
    let mut rng = crate::seeded::Seeded::new(3);
    let mut ratings = Vec::new();
    for unit in 0..200 {
        let truth = rng.below(3);
        for annotator in ["a", "b", "c"] {
            let label = if rng.unit() < 0.7 {
                truth
            } else {
                rng.below(3)
            };
            ratings.push(rating(&format!("u{unit}"), annotator, &format!("c{label}")));
        }
    }
    let t = table(&ratings);
    let options = AgreementOptions {
        bootstrap_reps: 300,
        seed: 11,
    };
    let first = compute_all(&t, &options);
    assert_eq!(first, compute_all(&t, &options));
    for name in [
        "fleiss_kappa",
        "krippendorff_alpha_nominal",
        "percent_agreement",
    ] {
        let value = first[name].value.unwrap_or(f64::NAN);
        let (low, high) = first[name].ci95.unwrap_or((f64::NAN, f64::NAN));
        assert!(low < value && value < high, "{name}: {low} {value} {high}");
    }
    let other_seed = compute_all(
        &t,
        &AgreementOptions {
            seed: 12,
            ..options
        },
    );
    assert_ne!(first["fleiss_kappa"].ci95, other_seed["fleiss_kappa"].ci95);
}

#[test]
fn set_labels_get_set_metrics() {
    let set = |item: &str, annotator: &str, ids: &[&str]| Rating {
        item: item.into(),
        annotator: annotator.into(),
        label: Label::Set(ids.iter().map(|s| s.to_string()).collect()),
    };
    let ratings = [
        set("c1", "a", &["s1", "s2"]),
        set("c1", "b", &["s1"]),
        set("c2", "a", &[]),
        set("c2", "b", &[]),
        set("c3", "a", &["s3"]),
        set("c3", "b", &["s3", "s4"]),
    ];
    let t = table(&ratings);
    let metrics = compute_all(&t, &no_bootstrap());
    assert_well_formed(&metrics);
    for name in [
        "setsel_pooled_percent_agreement",
        "setsel_pooled_cohen_kappa",
        "setsel_pooled_fleiss_kappa",
        "setsel_pooled_krippendorff_alpha_nominal",
        "setsel_masi_krippendorff_alpha",
        "setsel_exactset_krippendorff_alpha_nominal",
    ] {
        assert!(metrics.contains_key(name), "{name} missing");
    }
    assert!(!metrics.contains_key("randolph_kappa"));
    // Pooled over the candidates seen per item: c1 {s1, s2}, c3 {s3, s4}; c2 offers none.
    assert_eq!(metrics["setsel_pooled_percent_agreement"].value, Some(0.5));
    assert_eq!(
        t.categories(),
        [
            r#"["s1","s2"]"#,
            r#"["s1"]"#,
            "[]",
            r#"["s3","s4"]"#,
            r#"["s3"]"#
        ]
    );
    // MASI: c1 {s1,s2} vs {s1} and c3 {s3} vs {s3,s4} at distance 1 − ½·⅔ = ⅔, c2 agree.
    let masi = metrics["setsel_masi_krippendorff_alpha"]
        .value
        .unwrap_or(f64::NAN);
    assert!(masi > 0.0 && masi < 1.0, "{masi}");
    // Mean MASI distance of the two annotators: (⅔ + 0 + ⅔) / 3.
    let distance = metrics["masi_distance"].value.unwrap_or(f64::NAN);
    assert!((distance - 4.0 / 9.0).abs() < 1e-12, "{distance}");
    let three = table(&[ratings.as_slice(), &[set("c1", "c", &["s1"])]].concat());
    let undefined = compute(&three, "masi_distance").unwrap_or_else(|| panic!("known metric"));
    assert!(undefined.value.is_none() && undefined.reason.is_some());
}

#[test]
fn sets_without_any_candidate_have_no_pooled_units() {
    let empty = |item: &str, annotator: &str| Rating {
        item: item.into(),
        annotator: annotator.into(),
        label: Label::Set(vec![]),
    };
    let t = table(&[
        empty("c1", "a"),
        empty("c1", "b"),
        empty("c2", "a"),
        empty("c2", "b"),
    ]);
    let metrics = compute_all(&t, &AgreementOptions::default());
    assert_well_formed(&metrics);
    let reason = metrics["setsel_pooled_fleiss_kappa"]
        .reason
        .clone()
        .unwrap_or_default();
    assert!(reason.contains("no (item, candidate) units"), "{reason}");
    assert_eq!(metrics["setsel_pooled_cohen_kappa"].value, None);
    assert_eq!(metrics["setsel_masi_krippendorff_alpha"].value, None);
    assert_eq!(metrics["percent_agreement"].value, Some(1.0));
    // With a candidate list, "no evidence" from both is agreement on every candidate.
    let candidates = ["s1".to_string(), "s2".to_string()];
    let listed = RatingTable::new(
        &[empty("c1", "a"), empty("c1", "b")],
        None,
        Some(&candidates),
    );
    let metrics = listed.map(|t| compute_all(&t, &AgreementOptions::default()));
    let pooled = metrics
        .ok()
        .map(|m| m["setsel_pooled_percent_agreement"].clone());
    assert_eq!(pooled.and_then(|m| m.value), Some(1.0));
}

#[test]
fn item_candidate_lists_add_unselected_candidates_and_reject_strangers() {
    let set = |annotator: &str, ids: &[&str]| Rating {
        item: "c1".into(),
        annotator: annotator.into(),
        label: Label::Set(ids.iter().map(|s| s.to_string()).collect()),
    };
    let offered = std::collections::BTreeMap::from([(
        "c1".to_string(),
        vec!["s1".to_string(), "s2".to_string(), "s3".to_string()],
    )]);
    // s1 agreed, s2 split, s3 (offered, chosen by nobody) agreed: 2 of 3 candidates.
    let ratings = [set("a", &["s1", "s2"]), set("b", &["s1"])];
    let pooled = RatingTable::with_item_candidates(&ratings, None, &offered)
        .ok()
        .and_then(|t| compute(&t, "setsel_pooled_percent_agreement"))
        .and_then(|m| m.value);
    assert_eq!(pooled, Some(2.0 / 3.0));
    let stranger = [set("a", &["s9"]), set("b", &["s1"])];
    assert!(matches!(
        RatingTable::with_item_candidates(&stranger, None, &offered),
        Err(TableError::UnknownCandidate { .. })
    ));
}
