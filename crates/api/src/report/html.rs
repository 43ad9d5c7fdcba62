//! The report as one self-contained HTML page: inline CSS and inline SVG, no scripts and
//! nothing loaded from anywhere, so it opens the same offline, in a mail attachment or in
//! a locked-down browser. All text from the project is escaped.

use super::svg::{self, esc, Bar};
use super::{LabelDistribution, LengthDistribution, Negation, Report};
use crate::agreement::AgreementReport;
use crate::dashboard::{KindDashboard, Statistic};
use factdesk_core::agreement::{definition, MetricValue};
use std::fmt::Write;

const STYLE: &str = r#"
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; background: #f4f6f9; color: #1d2433;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
header { background: #1d2a44; color: #fff; padding: 28px 40px 24px; }
header h1 { margin: 0 0 4px; font-size: 26px; font-weight: 650; }
header p { margin: 0; color: #c8d2e6; }
main { max-width: 1120px; margin: 0 auto; padding: 8px 40px 48px; }
section { margin-top: 28px; }
h2 { font-size: 19px; margin: 0 0 10px; }
h3 { font-size: 15px; margin: 0 0 8px; color: #3b4660; }
.cards { display: flex; flex-wrap: wrap; gap: 16px; }
.card { background: #fff; border-radius: 10px; padding: 16px 20px; box-shadow: 0 1px 3px rgba(20,30,60,.12); }
.stat { min-width: 150px; }
.stat b { display: block; font-size: 28px; font-weight: 650; }
.stat span { color: #5b6478; }
.note, .empty { color: #5b6478; }
.empty { font-style: italic; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: 4px 14px 4px 0; border-bottom: 1px solid #e3e7ee; }
th { font-weight: 600; color: #3b4660; }
td.num, th.num { text-align: right; }
.reading { display: inline-block; padding: 1px 10px; border-radius: 10px; background: #e4ecfa; color: #1f4ea0; font-size: 13px; }
.kind { margin-bottom: 18px; }
.kind > .cards { margin-bottom: 14px; align-items: flex-start; gap: 28px; }
.headline { min-width: 240px; background: #f7f9fc; border-radius: 8px; padding: 12px 16px; }
.headline b { font-size: 34px; }
.headline .note { margin: 6px 0 0; font-size: 13px; }
code { font: 12px ui-monospace, Menlo, Consolas, monospace; color: #3b4660; }
svg { display: block; max-width: 100%; height: auto; }
svg text { font: 12px system-ui, sans-serif; fill: #1d2433; }
svg text.tick, svg text.note { fill: #5b6478; }
svg text.cell { font-size: 12px; }
svg .bar { fill: #3d6fc4; }
svg .bar-refuted { fill: #c4573d; }
svg .bar-supported { fill: #3d9c6f; }
svg .col { fill: #3d6fc4; }
svg .axis { stroke: #9aa3b5; }
svg .grid { stroke: #e3e7ee; }
svg .line { fill: none; stroke: #3d6fc4; stroke-width: 2; }
svg .dot { fill: #1f4ea0; }
footer { color: #5b6478; font-size: 13px; margin-top: 36px; }
"#;

/// Renders the whole report.
pub fn render(r: &Report) -> String {
    let mut s = String::with_capacity(64 * 1024);
    let _ = write!(
        s,
        r#"<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Factdesk report: {name}</title><style>{STYLE}</style></head><body><header><h1>Agreement report: {name}</h1><p>Made by Factdesk on {at}.</p></header><main>"#,
        name = esc(&r.project),
        at = esc(&factdesk_core::time::utc_moment(r.generated_at)),
    );
    summary(&mut s, r);
    agreement(&mut s, r);
    studies(&mut s, r);
    if let Some(design) = &r.design {
        super::design::section(&mut s, design);
    }
    labels(&mut s, &r.labels);
    lengths(&mut s, &r.lengths);
    negation(&mut s, &r.negation);
    super::disagreements::section(&mut s, &r.disagreements);
    super::predictions::section(&mut s, &r.predictions);
    super::methodology::section(&mut s, &r.methodology);
    s.push_str(r#"<footer>The same figures are in the report's JSON and CSV files. Only counted answers count: flagged annotators are left out unless the lead included them, and an answer that picked the trick sentence is rejected as a whole.</footer></main></body></html>"#);
    s
}

fn summary(s: &mut String, r: &Report) {
    s.push_str(r#"<section><div class="cards">"#);
    for (n, what) in [
        (r.claims, "claims"),
        (r.refutations, "refutations"),
        (r.answers, "answers counted"),
    ] {
        let _ = write!(
            s,
            r#"<div class="card stat"><b>{n}</b><span>{what}</span></div>"#
        );
    }
    s.push_str("</div></section>");
}

fn agreement(s: &mut String, r: &Report) {
    s.push_str("<section><h2>Agreement</h2>");
    if r.agreement.kinds.is_empty() {
        s.push_str(r#"<p class="empty card">No answers yet, so there is no agreement to report.</p></section>"#);
        return;
    }
    for k in &r.agreement.kinds {
        let kind = k.kind.as_str();
        let _ = write!(
            s,
            r#"<div class="card kind"><h3>{kind}: {u}, {n}, {a}</h3><div class="cards">"#,
            u = counted(k.units, "unit"),
            n = counted(k.annotators, "annotator"),
            a = counted(k.answers, "answer"),
        );
        // Evidence is scored per candidate sentence; the title says so beside the name.
        let per = if k.kind == crate::tasks::TaskKind::Evidence {
            ", per candidate sentence"
        } else {
            ""
        };
        for (title, st) in [
            ("Fleiss' kappa", &k.fleiss),
            ("Krippendorff's alpha", &k.alpha),
        ] {
            headline(s, &format!("{title}{per}"), st);
        }
        if let Some(masi) = &k.masi {
            headline(
                s,
                "Krippendorff's alpha, MASI distance over evidence sets",
                masi,
            );
        }
        s.push_str("</div>");
        s.push_str(r#"<div class="cards">"#);
        for table in super::pairs::pair_tables(r, k) {
            heatmap(s, kind, &table);
        }
        let points: Vec<(f64, f64)> = k
            .series
            .iter()
            .filter_map(|p| p.value.map(|v| (p.answers as f64, v)))
            .collect();
        s.push_str(r#"<div><h3>Fleiss' kappa as the answers came in</h3>"#);
        if points.len() >= 2 {
            // From 0, or from below the lowest value to the tenth.
            let lo = (points.iter().map(|p| p.1).fold(0.0, f64::min) * 10.0).floor() / 10.0;
            let first = counted(k.series.first().map_or(0, |p| p.answers), "answer");
            let last = counted(k.series.last().map_or(0, |p| p.answers), "answer");
            s.push_str(&svg::line(
                &format!("Fleiss' kappa over time, {kind}"),
                &points,
                lo,
                1.0,
                (&first, &last),
            ));
        } else {
            s.push_str(r#"<p class="empty">Not enough answers yet.</p>"#);
        }
        s.push_str("</div></div>");
        people(s, k);
        if let Some(all) = r.metrics.get(kind) {
            every_statistic(s, all, k.kind == crate::tasks::TaskKind::Evidence);
        }
        s.push_str("</div>");
    }
    s.push_str("</section>");
}

/// Re-annotation studies: Cohen's kappa between the two groups' majority votes and
/// Fleiss' kappa within each group.
fn studies(s: &mut String, r: &Report) {
    if r.agreement.studies.is_empty() {
        return;
    }
    s.push_str(r#"<section><h2>Re-annotation studies</h2>"#);
    for st in &r.agreement.studies {
        let study = &st.study;
        let _ = write!(
            s,
            r#"<div class="card kind"><h3>Study {id}: {kind}, {n} items (seed {seed}); {both} answered by both groups</h3><p class="note">Group A: {a}. Group B: {b}. {how}.</p><div class="cards">"#,
            id = study.id,
            kind = study.kind.as_str(),
            n = study.sample_size,
            seed = study.seed,
            both = st.items_answered,
            a = esc(&if st.group_a.is_empty() {
                "nobody yet".to_string()
            } else {
                st.group_a.join(", ")
            }),
            b = esc(&study.members.join(", ")),
            how = esc(&crate::study::sampled(study)),
        );
        headline(
            s,
            &format!(
                "Cohen's kappa, group majorities ({} units)",
                st.majority_units
            ),
            &st.majority_kappa,
        );
        headline(s, "Fleiss' kappa, group A", &st.fleiss_a);
        headline(s, "Fleiss' kappa, group B", &st.fleiss_b);
        s.push_str("</div></div>");
    }
    s.push_str("</section>");
}

fn headline(s: &mut String, title: &str, st: &Statistic) {
    let (value, reading) = match (st.value, &st.reason) {
        (Some(v), _) => (fixed(v, 3), st.reading.clone().unwrap_or_default()),
        (None, reason) => ("undefined".to_string(), reason.clone().unwrap_or_default()),
    };
    let ci = st
        .ci95
        .map(|(lo, hi)| format!("95% interval {} – {}", fixed(lo, 3), fixed(hi, 3)))
        .unwrap_or_else(|| "no interval".to_string());
    let _ = write!(
        s,
        r#"<div class="stat headline"><span>{title}</span><b>{value}</b><span class="reading">{reading}</span><p class="note">{ci}<br><code>{metric}</code></p></div>"#,
        title = esc(title),
        value = esc(&value),
        reading = esc(&reading),
        ci = esc(&ci),
        metric = esc(&st.metric),
    );
}

fn people(s: &mut String, k: &KindDashboard) {
    if k.people.is_empty() {
        return;
    }
    s.push_str(r#"<h3>Annotators</h3><table><tr><th>name</th><th class="num">answers</th><th class="num">rejected (picked the trick)</th><th class="num">per hour</th><th class="num">trick failures</th><th class="num">agrees with majority</th><th></th></tr>"#);
    let pct = |v: Option<f64>| v.map_or_else(|| "–".to_string(), |v| format!("{:.0}%", 100.0 * v));
    for p in &k.people {
        let status = match (p.flagged, p.counted) {
            (true, false) => "flagged, left out",
            (true, true) => "flagged, included by the lead",
            (false, false) => "left out by the lead",
            (false, true) => "",
        };
        let _ = write!(
            s,
            r#"<tr><td>{name}</td><td class="num">{answers}</td><td class="num">{rejected}</td><td class="num">{pace}</td><td class="num">{tricks}</td><td class="num">{majority}</td><td class="note">{status}</td></tr>"#,
            name = esc(&p.name),
            answers = grouped(p.answers),
            rejected = grouped(p.rejected),
            pace = p
                .pace_per_hour
                .map_or_else(|| "–".to_string(), |v| grouped(v.round() as u64)),
            tricks = if p.tricks_seen > 0 {
                // With the interval a flag is decided on (its low end above the threshold).
                let ci = p.trick_failure_ci95.map_or_else(String::new, |(lo, hi)| {
                    format!(" (95% CI {}–{})", pct(Some(lo)), pct(Some(hi)))
                });
                format!("{} of {}{ci}", pct(p.trick_failure_rate), p.tricks_seen)
            } else {
                "–".to_string()
            },
            majority = if p.majority_units > 0 {
                let unit = if k.kind == crate::tasks::TaskKind::Evidence {
                    "sentence"
                } else {
                    "item"
                };
                format!(
                    "{} of {}",
                    pct(p.majority_agreement),
                    counted(p.majority_units, unit)
                )
            } else {
                "–".to_string()
            },
            status = esc(status),
        );
    }
    s.push_str("</table>");
}

/// One pair table as a heatmap, titled with its metric and unit.
fn heatmap(s: &mut String, kind: &str, table: &super::pairs::PairTable) {
    let mut names: Vec<&str> = table
        .pairs
        .iter()
        .flat_map(|p| [p.a.as_str(), p.b.as_str()])
        .collect();
    names.sort_unstable();
    names.dedup();
    let names: Vec<String> = names.into_iter().map(str::to_string).collect();
    let pair = |i: usize, j: usize| {
        if i == j {
            return None;
        }
        table
            .pairs
            .iter()
            .find(|p| (p.a == names[i] && p.b == names[j]) || (p.a == names[j] && p.b == names[i]))
            .and_then(|p| p.value)
    };
    let _ = write!(
        s,
        r#"<div><h3>Cohen's kappa per pair, per {unit}</h3><p class="note"><code>{metric}</code>: {what}</p>"#,
        unit = esc(table.unit),
        metric = esc(table.metric),
        what = esc(&definition(
            table.metric,
            kind == crate::tasks::TaskKind::Evidence.as_str()
        )
        .unwrap_or_default()),
    );
    s.push_str(&svg::heatmap(
        &format!("Cohen's kappa per pair, per {}, {kind}", table.unit),
        &names,
        pair,
    ));
    s.push_str("</div>");
}

fn every_statistic(s: &mut String, a: &AgreementReport, sets: bool) {
    s.push_str(r#"<h3 style="margin-top:14px">Every statistic</h3><table><tr><th>statistic</th><th>what it measures</th><th class="num">value</th><th class="num">95% interval</th></tr>"#);
    for (name, m) in &a.metrics {
        let _ = write!(
            s,
            r#"<tr><td><code>{}</code></td><td>{}</td><td class="num">{}</td><td class="num">{}</td></tr>"#,
            esc(name),
            esc(&definition(name, sets).unwrap_or_default()),
            esc(&value(m)),
            esc(&interval(m)),
        );
    }
    s.push_str("</table>");
}

fn value(m: &MetricValue) -> String {
    match (m.value, &m.reason) {
        (Some(v), _) => fixed(v, 3),
        (None, Some(reason)) => format!("undefined: {reason}"),
        (None, None) => "undefined".to_string(),
    }
}

/// A figure to `digits` decimals as the page prints it: a negative one with a true minus
/// (U+2212), as the app's dashboard writes it, not the hyphen `format!` gives. The JSON and
/// CSV files keep the plain number for scripts.
pub(super) fn fixed(v: f64, digits: usize) -> String {
    let s = format!("{v:.digits$}");
    match s.strip_prefix('-') {
        Some(rest) => format!("\u{2212}{rest}"),
        None => s,
    }
}

fn interval(m: &MetricValue) -> String {
    m.ci95
        .map(|(lo, hi)| format!("{} – {}", fixed(lo, 3), fixed(hi, 3)))
        .unwrap_or_default()
}

fn labels(s: &mut String, dists: &[LabelDistribution]) {
    s.push_str(r#"<section><h2>Labels</h2><div class="cards">"#);
    for d in dists {
        // What is counted, said in the title: the claims' own labels and the answers of
        // a kind are different counts (the walk of session 27 read "REFUTED 8" here
        // beside 16 refuted claims in the negation section, which adds written ones).
        let title = match d.kind.as_str() {
            "claims" => format!("Claims, by the label they were imported with ({})", d.total),
            kind => format!("{kind} answers ({})", d.total),
        };
        let _ = write!(s, r#"<div class="card"><h3>{}</h3>"#, esc(&title));
        if d.total == 0 {
            s.push_str(r#"<p class="empty">None yet.</p></div>"#);
            continue;
        }
        let bars: Vec<Bar> = d
            .counts
            .iter()
            .map(|c| Bar {
                label: c.label.replace('_', " "),
                value: c.count as f64,
                note: format!(
                    "{} ({:.0}%)",
                    c.count,
                    100.0 * c.count as f64 / d.total as f64
                ),
                class: label_class(&c.label),
            })
            .collect();
        s.push_str(&svg::bars(&format!("Labels: {}", d.kind), &bars, None));
        s.push_str("</div>");
    }
    s.push_str("</div></section>");
}

fn label_class(label: &str) -> &'static str {
    match label {
        "REFUTED" | "contradicts" => "bar-refuted",
        "SUPPORTED" => "bar-supported",
        _ => "bar",
    }
}

fn lengths(s: &mut String, dists: &[LengthDistribution]) {
    s.push_str(r#"<section><h2>Lengths in tokens</h2><div class="cards">"#);
    // The same scale for both, so claims and refutations compare by eye.
    let longest = dists.iter().filter_map(|d| d.max).max().unwrap_or(1);
    let max_tokens = longest.clamp(10, 40);
    let top = dists
        .iter()
        .flat_map(|d| {
            let mut bins = vec![0u64; max_tokens];
            for h in &d.histogram {
                bins[h.tokens.clamp(1, max_tokens) - 1] += h.count;
            }
            bins
        })
        .max()
        .unwrap_or(1);
    for d in dists {
        let _ = write!(
            s,
            r#"<div class="card"><h3>{} ({})</h3>"#,
            esc(&d.of),
            d.count
        );
        match (d.mean, d.median, d.min, d.max) {
            (Some(mean), Some(median), Some(min), Some(max)) => {
                let _ = write!(
                    s,
                    r#"<p class="note">mean {mean:.1}, median {median}, shortest {min}, longest {max}</p>"#
                );
                let counts: Vec<(usize, u64)> =
                    d.histogram.iter().map(|h| (h.tokens, h.count)).collect();
                s.push_str(&svg::histogram(
                    &format!("Length of {} in tokens", d.of),
                    &counts,
                    max_tokens,
                    top,
                ));
            }
            _ => s.push_str(r#"<p class="empty">None yet.</p>"#),
        }
        s.push_str("</div>");
    }
    s.push_str("</div></section>");
}

fn negation(s: &mut String, n: &Negation) {
    s.push_str(r#"<section><h2>Negation cues in supported and refuted claims</h2><div class="cards"><div class="card">"#);
    s.push_str(r#"<p class="note">Share of claims with a cue word (not, no, never, n't, nobody, nothing, none, neither, nor, without, false). Refuted claims are those imported as refuted and the written refutations. A refuted class much richer in cues lets a model guess the label from the words alone.</p>"#);
    let bars: Vec<Bar> = n
        .groups
        .iter()
        .map(|g| Bar {
            label: g.label.clone(),
            value: g.share_with_cue.unwrap_or(0.0),
            note: match g.share_with_cue {
                Some(v) => format!("{:.1}% of {}", 100.0 * v, g.claims),
                None => "no claims".to_string(),
            },
            class: label_class(&g.label),
        })
        .collect();
    s.push_str(&svg::bars(
        "Share of claims with a negation cue",
        &bars,
        Some(1.0),
    ));
    s.push_str(r#"<table><tr><th>label</th><th class="num">claims</th><th class="num">with a cue</th><th class="num">cues per 100 tokens</th></tr>"#);
    for g in &n.groups {
        let _ = write!(
            s,
            r#"<tr><td>{}</td><td class="num">{}</td><td class="num">{}</td><td class="num">{}</td></tr>"#,
            esc(&g.label),
            g.claims,
            g.with_cue,
            g.cues_per_100_tokens
                .map(|v| format!("{v:.2}"))
                .unwrap_or_else(|| "–".to_string()),
        );
    }
    s.push_str("</table></div>");
    if !n.cues.is_empty() {
        s.push_str(r#"<div class="card"><h3>Cue words</h3><table><tr><th>cue</th><th class="num">supported</th><th class="num">refuted</th></tr>"#);
        for c in &n.cues {
            let _ = write!(
                s,
                r#"<tr><td>{}</td><td class="num">{}</td><td class="num">{}</td></tr>"#,
                esc(&c.cue),
                c.supported,
                c.refuted
            );
        }
        s.push_str("</table></div>");
    }
    s.push_str("</div></section>");
}

/// "1 answer", "2 answers": a count with its noun, singular for one.
pub(super) fn counted(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// A count with its thousands set apart by a narrow no-break space, as the app's screens
/// show counts: 1234 → "1 234".
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 * 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('\u{202f}');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::grouped;

    #[test]
    fn counts_are_grouped_in_threes_as_on_the_screens() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_200), "1\u{202f}200");
        assert_eq!(grouped(1_234_567), "1\u{202f}234\u{202f}567");
    }
}
