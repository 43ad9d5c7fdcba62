//! The report's figures on small hand-made inputs.

use super::*;
use factdesk_core::answer::Selection;

fn claim(text: &str, label: Option<&str>, is_refutation: bool) -> ClaimText {
    ClaimText {
        text: text.to_string(),
        label: label.map(str::to_string),
        is_refutation,
    }
}

#[test]
fn negation_counts_cues_per_side() {
    let claims = [
        claim("The vaccine is effective.", Some("SUPPORTED"), false),
        claim("Nobody attended the opening.", Some("SUPPORTED"), false),
        claim(
            "The bridge isn't open and never was.",
            Some("REFUTED"),
            false,
        ),
        // A written refutation without a label is refuted by construction.
        claim("The mayor did not resign.", None, true),
        claim("The tower was lit in 1911.", None, true),
        // Neither side.
        claim("Nothing is known.", Some("NOT ENOUGH INFO"), false),
    ];
    let n = negation(&claims);
    let (s, r) = (&n.groups[0], &n.groups[1]);
    assert_eq!(
        (s.label.as_str(), s.claims, s.with_cue),
        ("SUPPORTED", 2, 1)
    );
    assert_eq!((s.tokens, s.cue_tokens), (4 + 4, 1));
    assert_eq!(s.share_with_cue, Some(0.5));
    assert_eq!(s.cues_per_100_tokens, Some(12.5));
    assert_eq!((r.label.as_str(), r.claims, r.with_cue), ("REFUTED", 3, 2));
    // "isn't" and "never"; "not": 3 cues over 7 + 5 + 6 tokens.
    assert_eq!((r.tokens, r.cue_tokens), (18, 3));
    assert_eq!(r.share_with_cue, Some(2.0 / 3.0));
    let cues: Vec<(&str, u64, u64)> = n
        .cues
        .iter()
        .map(|c| (c.cue.as_str(), c.supported, c.refuted))
        .collect();
    assert_eq!(
        cues,
        [
            ("isn't", 0, 1),
            ("never", 0, 1),
            ("nobody", 1, 0),
            ("not", 0, 1)
        ]
    );
}

#[test]
fn negation_without_claims_is_null_not_zero() {
    let n = negation(&[]);
    assert!(n.groups.iter().all(|g| g.share_with_cue.is_none()));
    assert!(n.groups.iter().all(|g| g.cues_per_100_tokens.is_none()));
}

#[test]
fn lengths_count_tokens_with_the_shared_tokenizer() {
    let d = lengths(
        "claims",
        &["Don't panic.", "SARS-CoV-2 spread in 2020.", "a b c"],
    );
    assert_eq!((d.count, d.min, d.max), (3, Some(2), Some(4)));
    assert_eq!(d.median, Some(3.0));
    assert_eq!(d.mean, Some(3.0));
    let h: Vec<(usize, u64)> = d.histogram.iter().map(|h| (h.tokens, h.count)).collect();
    assert_eq!(h, [(2, 1), (3, 1), (4, 1)]);
    let empty = lengths("refutations", &[]);
    assert_eq!((empty.count, empty.mean, empty.median), (0, None, None));
}

#[test]
fn distribution_orders_by_count_then_label() {
    let d = distribution(
        "label",
        [
            "REFUTED",
            "SUPPORTED",
            "REFUTED",
            "FAILED",
            "SUPPORTED",
            "REFUTED",
        ]
        .into_iter()
        .map(String::from),
    );
    let got: Vec<(&str, u64)> = d
        .counts
        .iter()
        .map(|c| (c.label.as_str(), c.count))
        .collect();
    assert_eq!(got, [("REFUTED", 3), ("SUPPORTED", 2), ("FAILED", 1)]);
    assert_eq!(d.total, 6);
}

#[test]
fn evidence_answers_are_labelled_by_how_many_sentences() {
    let label = |selection| answer_label(&Response::Evidence { selection });
    assert_eq!(label(Selection::NoEvidence), "no evidence");
    assert_eq!(label(Selection::sentences(vec![4])), "1 sentence");
    assert_eq!(label(Selection::sentences(vec![4, 9])), "2 sentences");
}

#[test]
fn text_is_escaped_in_charts() {
    assert_eq!(
        svg::esc(r#"<img src=x onerror="a">&'"#),
        "&lt;img src=x onerror=&quot;a&quot;&gt;&amp;&#39;"
    );
    let chart = svg::bars(
        "t",
        &[svg::Bar {
            label: "<script>".into(),
            value: 1.0,
            note: "1".into(),
            class: "bar",
        }],
        None,
    );
    assert!(!chart.contains("<script>"));
}

#[test]
fn a_negative_figure_is_printed_with_a_true_minus_as_on_the_dashboard() {
    assert_eq!(html::fixed(-0.0612, 3), "\u{2212}0.061");
    assert_eq!(html::fixed(0.5, 3), "0.500");
    assert_eq!(html::fixed(-1.0, 1), "\u{2212}1.0");
}
