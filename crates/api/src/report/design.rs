//! The report's section on the project's own design: agreement question by question,
//! each with the unit it is measured on and every statistic that applies.

use super::svg::esc;
use crate::declared::agreement::DesignAgreement;
use factdesk_core::agreement::MetricValue;
use std::fmt::Write;

pub(super) fn section(s: &mut String, d: &DesignAgreement) {
    let _ = write!(
        s,
        r#"<section><h2>Questions of the design “{}”</h2><p class="note">Agreement per question over the counted answers: a choice question per item, a multiple-choice question per item and label (chosen or not), a span question per word of the text it marks (marked or not). Free-text questions have none.</p><table><tr><th>question</th><th>type</th><th>unit</th><th class="num">units</th><th class="num">annotators</th><th class="num">Fleiss κ</th><th class="num">Krippendorff α</th><th class="num">mean pairwise Cohen κ</th><th class="num">agreement</th></tr>"#,
        esc(&d.design)
    );
    for q in &d.questions {
        let kind = serde_json::to_value(q.kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        let Some(r) = &q.report else {
            let _ = write!(
                s,
                r#"<tr><td><code>{}</code></td><td>{}</td><td colspan="7">{}</td></tr>"#,
                esc(&q.question),
                esc(&kind),
                esc(q.reason.as_deref().unwrap_or_default())
            );
            continue;
        };
        let names = crate::dashboard::headline_names(q.unit);
        let cell = |name: &str| match r.metrics.get(name) {
            Some(MetricValue { value: Some(v), .. }) => super::html::fixed(*v, 3),
            Some(MetricValue {
                reason: Some(why), ..
            }) => format!("undefined: {why}"),
            _ => "–".to_string(),
        };
        let _ = write!(
            s,
            r#"<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td class="num">{}</td><td class="num">{}</td>"#,
            esc(&q.question),
            esc(&kind),
            esc(q.unit),
            r.units,
            r.annotators
        );
        for name in names {
            let _ = write!(s, r#"<td class="num">{}</td>"#, esc(&cell(name)));
        }
        s.push_str("</tr>");
    }
    s.push_str("</table></section>");
}
