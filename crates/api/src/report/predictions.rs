//! The report's section on model predictions: each model's label accuracy against the
//! gold labels (overall, per label, confusion matrix) and what verification made of its
//! counter-claims. Shown only when the project holds predictions.

use super::svg::esc;
use crate::predictions::{ModelComparison, PredictionComparison};
use std::fmt::Write;

fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "–".into(), |x| format!("{:.1}%", 100.0 * x))
}

pub(super) fn section(s: &mut String, p: &PredictionComparison) {
    if p.models.is_empty() {
        return;
    }
    let _ = write!(
        s,
        r#"<section><h2>Model predictions</h2><p>Predictions are kept apart from the annotators' answers and never counted; here they are compared with the gold data ({} aggregation, flagged annotators left out).</p><div class="cards">"#,
        esc(&p.method)
    );
    for m in &p.models {
        model(s, m);
    }
    s.push_str("</div></section>");
}

fn model(s: &mut String, m: &ModelComparison) {
    let _ = write!(s, r#"<div class="card"><h3>{}</h3>"#, esc(&m.model));
    if let Some(l) = &m.labels {
        let _ = write!(
            s,
            r#"<p>Labels: {} predicted, {} with a gold label, {} correct: accuracy <b>{}</b>; {} without gold (claim dropped or not settled).</p>"#,
            l.predicted,
            l.compared,
            l.correct,
            pct(l.accuracy),
            l.without_gold
        );
        s.push_str(r#"<table><tr><th>gold label</th><th class="num">claims</th><th class="num">predicted</th><th class="num">accuracy</th><th class="num">precision</th></tr>"#);
        for r in &l.per_label {
            let _ = write!(
                s,
                r#"<tr><td>{}</td><td class="num">{}</td><td class="num">{}</td><td class="num">{}</td><td class="num">{}</td></tr>"#,
                esc(&r.label),
                r.gold,
                r.predicted,
                pct(r.accuracy),
                pct(r.precision)
            );
        }
        s.push_str(
            r#"</table><h4>Confusion (rows: gold, columns: predicted)</h4><table><tr><th></th>"#,
        );
        for r in &l.per_label {
            let _ = write!(s, r#"<th class="num">{}</th>"#, esc(&r.label));
        }
        s.push_str("</tr>");
        for (r, row) in l.per_label.iter().zip(&l.confusion) {
            let _ = write!(s, "<tr><th>{}</th>", esc(&r.label));
            for n in row {
                let _ = write!(s, r#"<td class="num">{n}</td>"#);
            }
            s.push_str("</tr>");
        }
        s.push_str("</table>");
    }
    if let Some(c) = &m.counter_claims {
        let _ = write!(
            s,
            r#"<p>Counter-claims: {} written, {} verified as contradicting and in the gold data ({}).</p>"#,
            c.written,
            c.in_gold,
            pct(c.share_in_gold)
        );
        if !c.not_in_gold.is_empty() {
            s.push_str(r#"<table><tr><th>not in the gold data</th><th class="num">counter-claims</th></tr>"#);
            for (why, n) in &c.not_in_gold {
                let _ = write!(
                    s,
                    r#"<tr><td>{}</td><td class="num">{n}</td></tr>"#,
                    esc(why)
                );
            }
            s.push_str("</table>");
        }
    }
    s.push_str("</div>");
}
