//! The report's section on the project's methodology choices: each is a project setting
//! (or an export option) whose default is the papers' choice, and a reader of the figures
//! needs to know which way it went.

use super::svg::esc;
use crate::agreement::AgreementRequest;
use crate::gold::{Aggregation, UnderAnnotated};
use crate::settings::EvidenceStance;
use crate::{Project, Result};
use serde::Serialize;
use std::fmt::Write;

/// The choices behind the report's gold data, as the export would make them now.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Methodology {
    /// The setting `study_answers_in_gold`: whether re-annotation study answers count
    /// towards the gold (off, COVID-Fact's procedure: they only measure agreement).
    pub study_answers_in_gold: bool,
    /// Study answers left out of the gold (0 when pooled).
    pub study_answers_apart: u64,
    /// Claims with fewer counted answers than their overlap, which the export holds
    /// back unless asked for them.
    pub under_annotated: Vec<UnderAnnotated>,
    /// A person is flagged when, after `trick_min_seen` tricks, the Wilson 95% lower
    /// bound of their trick-failure rate is above `trick_flag_threshold`.
    pub trick_flag_threshold: f64,
    pub trick_min_seen: u32,
    /// The stance evidence was asked for under, which decides what the trick checks.
    pub evidence_stance: EvidenceStance,
    /// How the gold lines are decided: "majority" (strict, the report's and the default
    /// export's) or "dawid-skene".
    pub aggregation: String,
    /// Claims of at most this many words get a refutation-writing task (WikiFactCheck's
    /// rule), words counted as `factdesk_core::text::token_count` counts them.
    pub refute_max_tokens: u32,
    /// The agreement intervals: bootstrap replicates over items and their seed.
    pub bootstrap_reps: usize,
    pub bootstrap_seed: u64,
    /// The recipe the project was set up by (`init --recipe`), if any.
    pub recipe: Option<String>,
}

impl Project {
    /// The methodology of the default export, from its aggregation of the answers, and
    /// its under-annotated claims where a walk of that export has already listed them.
    pub(super) fn methodology_of(
        &self,
        aggregation: &Aggregation,
        req: &AgreementRequest,
        under_annotated: Option<Vec<UnderAnnotated>>,
    ) -> Result<Methodology> {
        let under_annotated = match under_annotated {
            Some(listed) => listed,
            None => self.under_annotated_of(aggregation)?,
        };
        let settings = self.settings()?;
        Ok(Methodology {
            trick_flag_threshold: settings.trick_flag_threshold,
            trick_min_seen: settings.trick_min_seen,
            evidence_stance: settings.stance(),
            aggregation: aggregation.method.as_str().to_string(),
            refute_max_tokens: settings.refute_max_tokens,
            recipe: settings.recipe.clone(),
            bootstrap_reps: req.bootstrap_reps,
            bootstrap_seed: req.seed,
            study_answers_in_gold: aggregation.study_answers_in_gold,
            study_answers_apart: aggregation.study_answers_apart,
            under_annotated,
        })
    }
}

pub(super) fn section(s: &mut String, m: &Methodology) {
    s.push_str(r#"<section><h2>Methodology</h2><div class="card"><ul>"#);
    if let Some(name) = &m.recipe {
        let _ = write!(
            s,
            "<li>Set up by the <code>{}</code> recipe (<code>factdesk init --recipe</code>); docs/recipes.md says which of its choices are the paper's and which Factdesk's.</li>",
            esc(name)
        );
    }
    let _ = write!(
        s,
        "<li>Gold lines by {}: a sentence, a label or a verification needs more than half of the counted answers (the default, as COVID-Fact and WikiFactCheck; <code>export --method dawid-skene</code> is the alternative). An answer that picked the trick sentence is rejected on its own and counts for nothing.</li>",
        if m.aggregation == "majority" { "strict majority" } else { "Dawid-Skene" }
    );
    s.push_str("<li>Evidence agreement is headlined per candidate sentence (each claim and candidate a unit, selected or not; the <code>setsel_pooled_*</code> statistics); the exact-set and MASI figures stand beside it under their own names, each defined in the table of every statistic.</li>");
    let _ = write!(
        s,
        "<li>Intervals: bootstrap percentiles over items, {} replicates, seed {}; Cohen's kappa also has its Wald interval.</li>",
        m.bootstrap_reps, m.bootstrap_seed
    );
    let _ = write!(
        s,
        "<li>Claims of at most {} words get a refutation-writing task (setting <code>refute_max_tokens</code>, WikiFactCheck's rule); words are counted as whitespace-separated words with at least one letter or digit, so a dash standing alone is none. A written refutation's own length is held to its original's by the length check, not by this limit.</li>",
        m.refute_max_tokens
    );
    if m.study_answers_in_gold {
        s.push_str("<li>Re-annotation study answers are pooled with the first group's in the gold data (setting <code>study_answers_in_gold</code> on; COVID-Fact kept them apart).</li>");
    } else {
        let _ = write!(
            s,
            "<li>Re-annotation study answers are kept apart from the gold data, which comes from the first group as in COVID-Fact; they only measure agreement (setting <code>study_answers_in_gold</code> off, the default): {} left out.</li>",
            m.study_answers_apart
        );
    }
    let _ = write!(
        s,
        "<li>Evidence asked for: sentences that {} the claim (setting <code>evidence_stance</code> <code>{}</code>); {}.</li>",
        m.evidence_stance.asks_for(),
        m.evidence_stance.as_str(),
        esc(m.evidence_stance.trick_measures())
    );
    let _ = write!(
        s,
        "<li>A person's answers are left out (flagged) when, after at least {} trick sentences, the Wilson 95% lower bound of their trick-failure rate is above {}; an answer that picked the trick is rejected on its own either way.</li>",
        m.trick_min_seen, m.trick_flag_threshold
    );
    let _ = write!(
        s,
        "<li>Claims with fewer counted answers than the overlap are held back from the gold export unless it is asked for them (<code>--include-under-annotated</code>), and then each line is marked: {} now.</li></ul>",
        m.under_annotated.len()
    );
    if !m.under_annotated.is_empty() {
        s.push_str(r#"<table><tr><th>claim</th><th>task</th><th class="num">counted answers</th><th class="num">overlap</th></tr>"#);
        for u in &m.under_annotated {
            let _ = write!(
                s,
                r#"<tr><td>{} {}</td><td>{}</td><td class="num">{}</td><td class="num">{}</td></tr>"#,
                esc(&u.id),
                esc(&u.claim),
                esc(&u.kind),
                u.answers,
                u.needed
            );
        }
        s.push_str("</table>");
    }
    s.push_str("</div></section>");
}
