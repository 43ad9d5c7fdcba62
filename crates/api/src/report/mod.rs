//! The report a lead hands on with a dataset: agreement (the dashboard's snapshot), label
//! distributions per kind, claim and refutation lengths, and how often negation cues
//! appear in refuted versus supported claims — a known artefact models learn to exploit.
//!
//! [`Project::report`] gathers the figures; [`html`] renders them as one self-contained
//! page and [`tables`] as one CSV per table. The JSON form is [`Report`] itself. The
//! agreement part is the lead's dashboard ([`Project::dashboard`]), so the report shows
//! exactly what the lead watched, with every other statistic of `factdesk agreement`.

mod design;
mod disagreements;
pub mod html;
mod methodology;
mod pairs;
mod predictions;
mod svg;
pub mod tables;

use crate::agreement::{AgreementReport, AgreementRequest};
use crate::current::CurrentAnswers;
use crate::dashboard::{kind_intervals, Dashboard, DashboardState, Intervals};
use crate::tasks::TaskKind;
use crate::Lead;
use crate::{Project, Result};
use factdesk_core::answer::Response;
use factdesk_core::checks::is_negation_cue;
use factdesk_core::text::{normalize_token, tokens};
pub use methodology::Methodology;
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// Everything in the report; `--json` writes this.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub project: String,
    /// Unix milliseconds.
    pub generated_at: i64,
    pub claims: u64,
    pub refutations: u64,
    /// Counted answers, all kinds (answers that picked the trick are not counted).
    pub answers: u64,
    pub labels: Vec<LabelDistribution>,
    pub lengths: Vec<LengthDistribution>,
    pub negation: Negation,
    /// The lead's current decisions by the disagreement category each names.
    pub disagreements: crate::disagreement::CategoryCounts,
    /// The dashboard's snapshot, intervals included: per kind Fleiss' kappa and alpha
    /// with their Landis–Koch reading, pairwise Cohen, annotators, kappa over time.
    pub agreement: Dashboard,
    /// Per task kind with answers, every statistic as `factdesk agreement --json` prints it.
    pub metrics: BTreeMap<String, AgreementReport>,
    /// The project's own design: agreement per question, as `factdesk agreement --kind
    /// design --json` prints it; absent when it declares none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub design: Option<crate::declared::agreement::DesignAgreement>,
    /// Model predictions against the gold data (majority, flagged annotators left out);
    /// no models when the project holds no predictions.
    pub predictions: crate::predictions::PredictionComparison,
    /// The methodology choices behind the gold data (settings and their defaults).
    pub methodology: Methodology,
}

/// How often each label was given, for one kind of task (or the claims' own labels).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LabelDistribution {
    /// "claims" (the label a claim came with) or a task kind.
    pub kind: String,
    pub total: u64,
    pub counts: Vec<LabelCount>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LabelCount {
    pub label: String,
    pub count: u64,
}

/// Token counts (the shared tokenizer's) of claims or refutations.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LengthDistribution {
    /// "claims" or "refutations".
    pub of: String,
    pub count: u64,
    pub min: Option<usize>,
    pub max: Option<usize>,
    pub mean: Option<f64>,
    pub median: Option<f64>,
    /// One entry per length that occurs, shortest first.
    pub histogram: Vec<LengthCount>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LengthCount {
    pub tokens: usize,
    pub count: u64,
}

/// Negation cues in supported versus refuted claims.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Negation {
    /// "SUPPORTED" then "REFUTED".
    pub groups: Vec<NegationGroup>,
    /// Each cue word that occurs, with its count in each group, most frequent first.
    pub cues: Vec<CueCount>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NegationGroup {
    pub label: String,
    pub claims: u64,
    /// Claims with at least one cue.
    pub with_cue: u64,
    /// `with_cue / claims`; null without claims.
    pub share_with_cue: Option<f64>,
    pub tokens: u64,
    pub cue_tokens: u64,
    /// Cue tokens per 100 tokens; null without tokens.
    pub cues_per_100_tokens: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CueCount {
    pub cue: String,
    pub supported: u64,
    pub refuted: u64,
}

/// A claim as the report sees it.
struct ClaimText {
    text: String,
    label: Option<String>,
    is_refutation: bool,
}

/// Where `factdesk report` writes: the HTML page, and optionally the JSON and a folder of
/// CSV tables (created if missing).
#[derive(Debug, Clone, Default)]
pub struct ReportFiles {
    pub html: PathBuf,
    pub json: Option<PathBuf>,
    pub csv: Option<PathBuf>,
}

impl Project {
    /// Writes the report's files, all together or none: every output is checked (never
    /// the project or its files, never a project file) and written before any is moved
    /// into place. Returns the files written.
    pub fn write_report(
        &self,
        lead: &Lead,
        req: &AgreementRequest,
        files: &ReportFiles,
    ) -> Result<Vec<PathBuf>> {
        self.acting_lead(lead)?;
        let inputs = crate::output::Inputs::project(self.path());
        // Refused outputs are found before the figures, which take a while, are gathered.
        for path in std::iter::once(&files.html).chain(&files.json) {
            crate::output::check(path, &inputs)?;
        }
        let mut outputs = crate::output::Outputs::new(inputs);
        let report = self.report(lead, req)?;
        outputs.bytes(&files.html, html::render(&report).as_bytes())?;
        if let Some(json) = &files.json {
            let text = serde_json::to_string_pretty(&report)
                .map_err(|e| crate::Error::new(crate::ErrorCode::Io, e.to_string()))?;
            outputs.bytes(json, text.as_bytes())?;
        }
        if let Some(dir) = &files.csv {
            if dir.exists() && !dir.is_dir() {
                return Err(crate::Error::new(
                    crate::ErrorCode::InvalidInput,
                    format!(
                        "{} is a file; --csv names a folder for the tables",
                        dir.display()
                    ),
                ));
            }
            for (name, bytes) in tables::render_all(&report)? {
                let path: &Path = &dir.join(name);
                outputs
                    .file_in_new_folder(path)?
                    .write_all(&bytes)
                    .map_err(|e| {
                        crate::Error::io(&format!("cannot write {}", path.display()), &e)
                    })?;
            }
        }
        outputs.commit()
    }

    /// Gathers the report; agreement intervals use `req`'s bootstrap and seed. Who counts
    /// is the dashboard's rule (flagged annotators out unless the lead included them), so
    /// `req.include_flagged` is not used.
    pub fn report(&self, lead: &Lead, req: &AgreementRequest) -> Result<Report> {
        self.acting_lead(lead)?;
        let req = &AgreementRequest {
            include_flagged: false,
            ..req.clone()
        };
        // The answers once, for the label counts, every kind's agreement and the gold
        // data the model comparison needs.
        let read = CurrentAnswers::read(self)?;
        let claims = self.report_claims()?;
        let refutations = claims.iter().filter(|c| c.is_refutation).count() as u64;
        let mut labels = vec![claim_labels(&claims)];
        let mut answers = 0;
        let counted: HashSet<i64> = self
            .all_annotators()?
            .into_iter()
            .filter(|a| a.counted)
            .map(|a| a.id)
            .collect();
        for kind in TaskKind::ALL {
            let d = answer_labels(&read, &counted, kind);
            answers += d.total;
            if d.total > 0 {
                labels.push(d);
            }
        }
        let originals: Vec<&str> = claims
            .iter()
            .filter(|c| !c.is_refutation)
            .map(|c| c.text.as_str())
            .collect();
        let written: Vec<&str> = claims
            .iter()
            .filter(|c| c.is_refutation)
            .map(|c| c.text.as_str())
            .collect();
        // The dashboard's intervals are these reports' (`Project::dashboard_intervals`);
        // handing them over saves a second bootstrap over every answer.
        let mut metrics = BTreeMap::new();
        let mut intervals = Intervals {
            as_of: self.last_annotation_id(lead)?,
            by_kind: BTreeMap::new(),
            studies: self.study_agreements_in(lead, &read, None, req)?,
            questions: Vec::new(),
        };
        for (kind, report) in self.agreements_in(lead, &read, req)? {
            intervals
                .by_kind
                .insert(kind.as_str(), kind_intervals(kind, &report));
            metrics.insert(kind.as_str().to_string(), report);
        }
        let design = self.design_agreement_in(&read, req)?;
        if let Some(d) = &design {
            intervals.questions = crate::dashboard::question_statistics(d);
        }
        let mut dashboard = DashboardState::new();
        dashboard.refresh_from(self, lead, &read)?;
        dashboard.set_intervals(intervals);
        // The default export's aggregation, for the methodology and the predictions alike.
        let gold = crate::gold::GoldRequest::default();
        let aggregation = self.aggregate_in(&read, &gold)?;
        let (predictions, under_annotated) =
            self.compare_predictions_in(|| Ok(&aggregation), &gold)?;
        Ok(Report {
            project: self.store.project()?.name,
            generated_at: self.clock.now_ms(),
            claims: claims.len() as u64 - refutations,
            refutations,
            answers,
            labels,
            lengths: vec![
                lengths("claims", &originals),
                lengths("refutations", &written),
            ],
            negation: negation(&claims),
            disagreements: self.decisions_by_category()?,
            agreement: dashboard.snapshot(self.clock.now_ms()),
            metrics,
            design,
            predictions,
            methodology: self.methodology_of(&aggregation, req, under_annotated)?,
        })
    }

    /// The current decisions (not undone ones) counted by category against the project's
    /// list.
    fn decisions_by_category(&self) -> Result<crate::disagreement::CategoryCounts> {
        let list = self.settings()?.disagreement_categories;
        let rows = factdesk_store::decisions::latest(self.store.read())?;
        Ok(crate::disagreement::CategoryCounts::count(
            &list,
            rows.iter()
                .filter(|d| d.answer.is_some())
                .map(|d| d.category.as_deref()),
        ))
    }

    fn report_claims(&self) -> Result<Vec<ClaimText>> {
        Ok(self
            .store
            .claim_texts()?
            .into_iter()
            .map(|(text, label, is_refutation)| ClaimText {
                text,
                label,
                is_refutation,
            })
            .collect())
    }
}

/// The labels given in one kind's counted answers (current, not picking the trick, by a
/// counted annotator).
fn answer_labels(
    read: &CurrentAnswers,
    counted: &HashSet<i64>,
    kind: TaskKind,
) -> LabelDistribution {
    let names = read
        .of_kind(kind)
        .filter(|a| counted.contains(&a.annotator_id) && !a.trick_failed)
        .map(|a| answer_label(&a.answer.response));
    distribution(kind.as_str(), names)
}

/// What an answer says, as one label: the category chosen, how many sentences were
/// selected as evidence, or that a refutation was written.
fn answer_label(response: &Response) -> String {
    match response {
        Response::Evidence { selection } => match selection.ids().len() {
            0 => "no evidence".to_string(),
            1 => "1 sentence".to_string(),
            n => format!("{n} sentences"),
        },
        Response::Refute { .. } => "written".to_string(),
        Response::Design { .. } => "answered".to_string(),
        Response::Verify { verdict } => verdict.as_str().to_string(),
        Response::Label { label } => label.as_str().to_string(),
    }
}

fn claim_labels(claims: &[ClaimText]) -> LabelDistribution {
    distribution(
        "claims",
        claims.iter().filter(|c| !c.is_refutation).map(|c| {
            c.label
                .clone()
                .unwrap_or_else(|| "(unlabelled)".to_string())
        }),
    )
}

/// Counts labels, most frequent first (ties by label, so the order is stable).
fn distribution(kind: &str, labels: impl Iterator<Item = String>) -> LabelDistribution {
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    for l in labels {
        *counts.entry(l).or_default() += 1;
    }
    let mut counts: Vec<LabelCount> = counts
        .into_iter()
        .map(|(label, count)| LabelCount { label, count })
        .collect();
    counts.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.label.cmp(&b.label)));
    LabelDistribution {
        kind: kind.to_string(),
        total: counts.iter().map(|c| c.count).sum(),
        counts,
    }
}

fn lengths(of: &str, texts: &[&str]) -> LengthDistribution {
    let mut lens: Vec<usize> = texts.iter().map(|t| tokens(t).len()).collect();
    lens.sort_unstable();
    let n = lens.len();
    let mut histogram: Vec<LengthCount> = Vec::new();
    for &l in &lens {
        match histogram.last_mut() {
            Some(last) if last.tokens == l => last.count += 1,
            _ => histogram.push(LengthCount {
                tokens: l,
                count: 1,
            }),
        }
    }
    let median = match n {
        0 => None,
        n if n % 2 == 1 => Some(lens[n / 2] as f64),
        n => Some((lens[n / 2 - 1] + lens[n / 2]) as f64 / 2.0),
    };
    LengthDistribution {
        of: of.to_string(),
        count: n as u64,
        min: lens.first().copied(),
        max: lens.last().copied(),
        mean: (n > 0).then(|| lens.iter().sum::<usize>() as f64 / n as f64),
        median,
        histogram,
    }
}

/// Which side of the comparison a claim is on: its own label, and a refutation without
/// one is refuted by construction. Other labels take no part.
fn negation_side(c: &ClaimText) -> Option<usize> {
    match (c.label.as_deref(), c.is_refutation) {
        (Some("SUPPORTED"), _) => Some(0),
        (Some("REFUTED"), _) | (None, true) => Some(1),
        _ => None,
    }
}

fn negation(claims: &[ClaimText]) -> Negation {
    let mut groups = ["SUPPORTED", "REFUTED"].map(|label| NegationGroup {
        label: label.to_string(),
        claims: 0,
        with_cue: 0,
        share_with_cue: None,
        tokens: 0,
        cue_tokens: 0,
        cues_per_100_tokens: None,
    });
    let mut cues: BTreeMap<String, [u64; 2]> = BTreeMap::new();
    for c in claims {
        let Some(side) = negation_side(c) else {
            continue;
        };
        let g = &mut groups[side];
        g.claims += 1;
        let mut found = false;
        for t in tokens(&c.text) {
            g.tokens += 1;
            let word = normalize_token(t.text);
            if is_negation_cue(&word) {
                g.cue_tokens += 1;
                found = true;
                cues.entry(word).or_default()[side] += 1;
            }
        }
        g.with_cue += u64::from(found);
    }
    for g in &mut groups {
        g.share_with_cue = (g.claims > 0).then(|| g.with_cue as f64 / g.claims as f64);
        g.cues_per_100_tokens =
            (g.tokens > 0).then(|| 100.0 * g.cue_tokens as f64 / g.tokens as f64);
    }
    let mut cues: Vec<CueCount> = cues
        .into_iter()
        .map(|(cue, [supported, refuted])| CueCount {
            cue,
            supported,
            refuted,
        })
        .collect();
    cues.sort_by(|a, b| {
        (b.supported + b.refuted)
            .cmp(&(a.supported + a.refuted))
            .then_with(|| a.cue.cmp(&b.cue))
    });
    Negation {
        groups: groups.into(),
        cues,
    }
}

#[cfg(test)]
mod tests;
