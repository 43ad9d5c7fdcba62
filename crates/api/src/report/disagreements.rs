//! The report's section on the disagreements the lead settled, counted by the category
//! the lead named (the project's list, in its order), so a team can say how much of its
//! disagreement came from the items, the guidelines or slips.

use super::svg::{self, esc, Bar};
use crate::disagreement::CategoryCounts;
use std::fmt::Write;

pub(super) fn section(s: &mut String, c: &CategoryCounts) {
    s.push_str(r#"<section><h2>Disagreements settled by the lead</h2><div class="cards"><div class="card">"#);
    if c.decisions == 0 {
        s.push_str(r#"<p class="note">The lead has settled no disagreement: every gold answer is the annotators' own.</p></div></div></section>"#);
        return;
    }
    let _ = write!(
        s,
        r#"<p class="note">{} current, by the category the lead named when settling each ({} without one). Undone decisions are not counted.</p>"#,
        super::html::counted(c.decisions, "decision"),
        c.uncategorised
    );
    let bar = |label: &str, n: u64| {
        let share = n as f64 / c.decisions as f64;
        Bar {
            label: label.to_string(),
            value: share,
            note: format!("{n} ({:.0}%)", 100.0 * share),
            class: "bar",
        }
    };
    let mut bars: Vec<Bar> = c
        .by_category
        .iter()
        .map(|row| bar(&row.category, row.decisions))
        .collect();
    if c.uncategorised > 0 {
        bars.push(bar("no category", c.uncategorised));
    }
    s.push_str(&svg::bars("Decisions by category", &bars, Some(1.0)));
    s.push_str(r#"<table><tr><th>category</th><th class="num">decisions</th></tr>"#);
    for row in &c.by_category {
        let _ = write!(
            s,
            r#"<tr><td>{}</td><td class="num">{}</td></tr>"#,
            esc(&row.category),
            row.decisions
        );
    }
    let _ = write!(
        s,
        r#"<tr><td><i>no category</i></td><td class="num">{}</td></tr></table></div></div></section>"#,
        c.uncategorised
    );
}
