//! Writing the design's gold file (`factdesk export P --design --out F`): one item a line
//! with each question's gold value and how it was settled, and a dataset card beside it
//! that names the design, its questions and the rule that settled them.

use super::gold::{DesignGold, Settled};
use crate::gold::GoldRequest;
use crate::study::KeptSample;
use crate::{Error, ErrorCode, Lead, Project, Result};
use factdesk_core::design::{Design, Given, QuestionType};
use factdesk_core::task::TaskKind;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use ts_rs::TS;

/// What `export --design` wrote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct DesignExport {
    pub out: String,
    pub card: String,
    pub lines: u64,
    pub per_split: BTreeMap<String, u64>,
    /// Items held back, each with its reason (also in the card).
    pub held_back: Vec<super::gold::HeldBack>,
}

impl Project {
    /// Writes the design's gold file at `out` and its card beside it (`<stem>.card.md`),
    /// both or neither; an existing file is replaced only with `force`.
    pub fn export_design_gold(
        &self,
        by: &Lead,
        req: &GoldRequest,
        out: &Path,
        force: bool,
    ) -> Result<DesignExport> {
        self.acting_lead(by)?;
        let inputs = crate::output::Inputs::project(self.path());
        let card = crate::gold::beside(out, "card.md");
        for path in [out, card.as_path()] {
            crate::output::check(path, &inputs)?;
            crate::output::refuse_existing(path, force)?;
        }
        let settings = self.settings()?;
        let (Some(design), Some(gold)) = (settings.design.clone(), self.design_gold(by, req)?)
        else {
            return Err(crate::design::undeclared());
        };
        let mut outputs = crate::output::Outputs::new(inputs);
        let file = outputs.file(out)?;
        let written = |e: std::io::Error| {
            Error::new(
                ErrorCode::Io,
                format!("cannot write {}: {e}", out.display()),
            )
        };
        let mut per_split: BTreeMap<String, u64> = BTreeMap::new();
        for line in &gold.lines {
            *per_split.entry(line.split.clone()).or_default() += 1;
            let text = serde_json::to_string(line)
                .map_err(|e| Error::new(ErrorCode::InvalidInput, e.to_string()))?;
            writeln!(file, "{text}").map_err(written)?;
        }
        let mut text = card_text(&design, &gold, &per_split, settings.recipe.as_deref(), req);
        text += &overlap_by_label(&design, &gold);
        if let Some(sample) = self.kept_sample(TaskKind::Design)? {
            text += &sample_text(&sample);
        }
        outputs.bytes(&card, text.as_bytes())?;
        outputs.commit()?;
        Ok(DesignExport {
            out: out.display().to_string(),
            card: card.display().to_string(),
            lines: gold.lines.len() as u64,
            per_split,
            held_back: gold.held_back,
        })
    }
}

/// The design's dataset card.
fn card_text(
    design: &Design,
    gold: &DesignGold,
    per_split: &BTreeMap<String, u64>,
    recipe: Option<&str>,
    req: &GoldRequest,
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Gold data of the design \"{}\"\n", design.name);
    if let Some(recipe) = recipe {
        let _ = writeln!(s, "Set up by the recipe `{recipe}` (docs/recipes.md).\n");
    }
    let _ = writeln!(s, "## Questions\n");
    let _ = writeln!(s, "| question | type | labels | required |");
    let _ = writeln!(s, "|---|---|---|---|");
    for q in &design.questions {
        let kind = match q.kind {
            QuestionType::Choice if q.ordered => "choice (ordered)",
            QuestionType::Choice => "choice",
            QuestionType::Multi => "multiple choice",
            QuestionType::Span => "span",
            QuestionType::Text => "free text",
        };
        let labels = match (&q.labels, q.over) {
            (Some(labels), _) => labels.join(", "),
            (None, Some(over)) => format!(
                "marks {}",
                serde_json::to_value(over)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default()
            ),
            (None, None) => String::new(),
        };
        let _ = writeln!(
            s,
            "| {} | {kind} | {} | {} |",
            q.id,
            crate::gold::cell(&labels),
            if q.required { "yes" } else { "no" }
        );
    }
    let _ = writeln!(
        s,
        "\n## How each question's gold was settled\n\nA choice question takes the label a strict majority of the counted answers gave (more than half); a multiple-choice question the labels a strict majority chose; a span question the words a strict majority marked, joined into spans; a free-text question lists every counted text. The lead's decision settles every question of its item. Each line's `answers.Q.settled` says which applied ({}), with `answers` (counted answers to the question) and `agreeing` (those that gave exactly the gold value). Annotators flagged for failing tricks (a design's control items, an evidence item's trick sentence) are {}; control items themselves are checks, never lines.\n",
        ["unanimous", "majority", "decision", "all_texts"].join(", "),
        if req.include_flagged { "counted" } else { "left out" }
    );
    let mut settled: BTreeMap<(&str, &'static str), u64> = BTreeMap::new();
    for line in &gold.lines {
        for (q, a) in &line.answers {
            let how = match a.settled {
                Settled::Unanimous => "unanimous",
                Settled::Majority => "majority",
                Settled::Decision => "decision",
                Settled::AllTexts => "all texts",
                Settled::NoMajority => "no majority",
            };
            *settled.entry((q.as_str(), how)).or_default() += 1;
        }
    }
    let _ = writeln!(s, "| question | settled by | items |\n|---|---|---|");
    for ((q, how), n) in &settled {
        let _ = writeln!(s, "| {q} | {how} | {n} |");
    }
    let _ = writeln!(s, "\n## Lines\n\n{} items written.", gold.lines.len());
    for (split, n) in per_split {
        let _ = writeln!(s, "- {split}: {n}");
    }
    if !gold.held_back.is_empty() {
        let _ = writeln!(
            s,
            "\n## Held back\n\n| item | task | reason |\n|---|---|---|"
        );
        for h in &gold.held_back {
            let _ = writeln!(
                s,
                "| {} | {} | {} |",
                crate::gold::cell(&h.id),
                h.task_id,
                crate::gold::cell(&h.reason)
            );
        }
    }
    s
}

/// The sample the items were drawn as, with its strata.
fn sample_text(sample: &KeptSample) -> String {
    let mut s = format!(
        "\n## Sample\n\nThe items are a stratified sample made the task set: grouped by `{}`, {} drawn from each group with seed {}; the other items were never served.\n\n| group | items |\n|---|---|\n",
        sample.strata, sample.per_stratum, sample.seed
    );
    for (name, n) in &sample.counts {
        let _ = writeln!(s, "| {} | {n} |", crate::gold::cell(name));
    }
    s
}

/// For pairs, each choice question's gold labels with the mean word overlap of their
/// pairs (stemmed Jaccard of text_a and text_b): a class that holds only near-copies is
/// learnt from overlap alone, as Zanzotto and Pennacchiotti checked.
fn overlap_by_label(design: &Design, gold: &DesignGold) -> String {
    let mut s = String::new();
    for q in design
        .questions
        .iter()
        .filter(|q| q.kind == QuestionType::Choice)
    {
        let mut by_label: BTreeMap<&str, (f64, u64)> = BTreeMap::new();
        for line in &gold.lines {
            let (Some(b), Some(Given::One(label))) = (
                &line.text_b,
                line.answers.get(&q.id).and_then(|a| a.value.as_ref()),
            ) else {
                continue;
            };
            let j = factdesk_core::strata::stemmed_jaccard(&line.text_a, b);
            let e = by_label.entry(label.as_str()).or_default();
            e.0 += j;
            e.1 += 1;
        }
        if by_label.is_empty() {
            continue;
        }
        if s.is_empty() {
            s.push_str("\n## Word overlap by gold label\n\nThe mean word overlap of each label's pairs: Jaccard of the two texts' Porter-stemmed word sets, web addresses and numbers one word each.\n\n| question | label | pairs | mean overlap |\n|---|---|---|---|\n");
        }
        for (label, (sum, n)) in by_label {
            let _ = writeln!(
                s,
                "| {} | {} | {n} | {:.3} |",
                q.id,
                crate::gold::cell(label),
                sum / n as f64
            );
        }
    }
    s
}
