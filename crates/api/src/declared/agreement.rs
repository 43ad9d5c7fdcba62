//! Agreement on a project's own design, question by question: a choice question over its
//! labels (nominal; with its labels' positions as numbers too when they are ordered, so
//! weighted kappa and ordinal and interval alpha apply), a multiple-choice question per
//! label (the `setsel_*` metrics, each label chosen or not, and MASI alpha over the
//! sets), a span question per token of the text it marks (a token marked or not, as
//! docs/agreement.md states). Free-text questions have none.

use crate::agreement::{report, AgreementReport, AgreementRequest};
use crate::current::CurrentAnswers;
use crate::{Error, ErrorCode, Lead, Project, Result};
use factdesk_core::agreement::{Label, Rating, RatingTable};
use factdesk_core::design::declared::{marked, tokens};
use factdesk_core::design::{Given, Question, QuestionType, SpanOver};
use factdesk_core::task::TaskKind;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet};

/// Agreement on one question.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QuestionAgreement {
    pub question: String,
    #[serde(rename = "type")]
    pub kind: QuestionType,
    /// What a unit is: "item", "item and label" (multiple choice, the `setsel_*`
    /// metrics) or "token" (span questions).
    pub unit: &'static str,
    /// Ordered choice questions: the number each label is rated as, in the order
    /// declared (1 for the first).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub positions: BTreeMap<String, usize>,
    /// None for a free-text question.
    pub report: Option<AgreementReport>,
    /// Why there is no report.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Agreement on every question of the project's design.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DesignAgreement {
    /// The design's name.
    pub design: String,
    pub questions: Vec<QuestionAgreement>,
}

impl DesignAgreement {
    /// Whether any question has a rating: what `agreement` without `--kind` lists the
    /// design by, as it lists the kinds with answers.
    pub fn answered(&self) -> bool {
        self.questions
            .iter()
            .any(|q| q.report.as_ref().is_some_and(|r| r.ratings > 0))
    }
}

/// One counted design answer: its task, its annotator's name, its answers by question.
pub(crate) struct Counted<'a> {
    pub task_id: i64,
    pub claim_id: i64,
    pub annotator: String,
    pub answers: &'a BTreeMap<String, Given>,
}

impl Project {
    /// Agreement on each question of the project's design; `None` when it declares none.
    pub fn design_agreement(
        &self,
        lead: &Lead,
        req: &AgreementRequest,
    ) -> Result<Option<DesignAgreement>> {
        self.acting_lead(lead)?;
        // Without a design there is nothing to read the answers for.
        if self.settings()?.design.is_none() {
            return Ok(None);
        }
        self.design_agreement_in(&CurrentAnswers::read(self)?, req)
    }

    pub(crate) fn design_agreement_in(
        &self,
        read: &CurrentAnswers,
        req: &AgreementRequest,
    ) -> Result<Option<DesignAgreement>> {
        let Some(design) = self.settings()?.design else {
            return Ok(None);
        };
        let counted = self.counted_design_answers(read, req.include_flagged)?;
        let texts = self.design_texts(&counted)?;
        let questions = design
            .questions
            .iter()
            .map(|q| question_agreement(q, &counted, &texts, req))
            .collect::<Result<_>>()?;
        Ok(Some(DesignAgreement {
            design: design.name,
            questions,
        }))
    }

    /// The current design answers that count: by a counted annotator, on an item that is
    /// no control item (a check of the annotators, not data), in task order.
    pub(crate) fn counted_design_answers<'r>(
        &self,
        read: &'r CurrentAnswers,
        include_flagged: bool,
    ) -> Result<Vec<Counted<'r>>> {
        let annotators = self.all_annotators()?;
        let names: HashMap<i64, String> = annotators
            .iter()
            .filter(|a| a.counts_with(include_flagged))
            .map(|a| (a.id, a.name.clone()))
            .collect();
        let claim_of = read.claim_of(self, TaskKind::Design)?;
        let controls = self.store.all_control_answers()?;
        let mut out = Vec::new();
        for a in read.of_kind(TaskKind::Design) {
            if a.trick_failed {
                continue;
            }
            let (Some(name), factdesk_core::answer::Response::Design { answers }) =
                (names.get(&a.annotator_id), &a.answer.response)
            else {
                continue;
            };
            let claim_id = *claim_of
                .get(&a.task_id)
                .ok_or_else(|| Error::new(ErrorCode::NotFound, format!("no task {}", a.task_id)))?;
            if controls.contains_key(&claim_id) {
                continue;
            }
            out.push(Counted {
                task_id: a.task_id,
                claim_id,
                annotator: name.clone(),
                answers,
            });
        }
        out.sort_by(|a, b| (a.task_id, &a.annotator).cmp(&(b.task_id, &b.annotator)));
        Ok(out)
    }

    /// The texts of the items answered: (text_a, text_b) by claim row.
    pub(crate) fn design_texts(
        &self,
        counted: &[Counted<'_>],
    ) -> Result<HashMap<i64, (String, Option<String>)>> {
        let mut pairs = self.store.pair_texts()?;
        let mut out = HashMap::new();
        for c in counted {
            if out.contains_key(&c.claim_id) {
                continue;
            }
            let claim = self.store.claim(c.claim_id)?.ok_or_else(|| {
                Error::new(ErrorCode::NotFound, format!("no claim {}", c.claim_id))
            })?;
            out.insert(c.claim_id, (claim.text, pairs.remove(&c.claim_id)));
        }
        Ok(out)
    }
}

/// The text a span question marks on an item.
pub(crate) fn span_text<'t>(
    q: &Question,
    texts: &'t HashMap<i64, (String, Option<String>)>,
    claim_id: i64,
) -> Option<&'t str> {
    let (a, b) = texts.get(&claim_id)?;
    match q.over {
        Some(SpanOver::TextB) => b.as_deref(),
        _ => Some(a.as_str()),
    }
}

fn question_agreement(
    q: &Question,
    counted: &[Counted<'_>],
    texts: &HashMap<i64, (String, Option<String>)>,
    req: &AgreementRequest,
) -> Result<QuestionAgreement> {
    let labels = q.labels.clone().unwrap_or_default();
    let mut positions = BTreeMap::new();
    let mut ratings = Vec::new();
    let mut categories: Option<Vec<String>> = None;
    let mut candidates: Option<Vec<String>> = None;
    let unit = match q.kind {
        QuestionType::Text => {
            return Ok(QuestionAgreement {
                question: q.id.clone(),
                kind: q.kind,
                unit: "item",
                positions,
                report: None,
                reason: Some("a free-text question has no agreement statistic".into()),
            })
        }
        QuestionType::Choice => {
            // The label list gives Randolph's kappa its number of possible categories
            // even when some are never chosen.
            categories = Some(labels.clone());
            if q.ordered {
                positions = labels
                    .iter()
                    .enumerate()
                    .map(|(i, l)| (l.clone(), i + 1))
                    .collect();
                categories = Some((1..=labels.len()).map(|i| i.to_string()).collect());
            }
            for c in counted {
                let Some(Given::One(label)) = c.answers.get(&q.id) else {
                    continue;
                };
                let value = match positions.get(label) {
                    Some(p) => p.to_string(),
                    None => label.clone(),
                };
                ratings.push(rating(
                    format!("task-{}", c.task_id),
                    c,
                    Label::Category(value),
                ));
            }
            "item"
        }
        QuestionType::Multi => {
            candidates = Some(labels.clone());
            for c in counted {
                let Some(Given::Many(chosen)) = c.answers.get(&q.id) else {
                    continue;
                };
                ratings.push(rating(
                    format!("task-{}", c.task_id),
                    c,
                    Label::Set(chosen.clone()),
                ));
            }
            "item and label"
        }
        QuestionType::Span => {
            let mut answered: HashSet<(i64, &str)> = HashSet::new();
            for c in counted {
                let (Some(Given::Spans { spans }), Some(text)) =
                    (c.answers.get(&q.id), span_text(q, texts, c.claim_id))
                else {
                    continue;
                };
                if !answered.insert((c.task_id, c.annotator.as_str())) {
                    continue;
                }
                let words = tokens(text);
                for (i, on) in marked(&words, spans).into_iter().enumerate() {
                    let label = if on { "marked" } else { "unmarked" };
                    ratings.push(rating(
                        format!("task-{}#{i}", c.task_id),
                        c,
                        Label::Category(label.into()),
                    ));
                }
            }
            "token"
        }
    };
    let table = RatingTable::new(&ratings, categories.as_deref(), candidates.as_deref())
        .map_err(|e| Error::new(ErrorCode::InvalidInput, format!("question {:?}: {e}", q.id)))?;
    let mut report = report(&table, req);
    if q.kind == QuestionType::Choice && !q.ordered {
        // The list's order is only the order shown: statistics of distances between
        // labels do not apply to unordered ones.
        for name in ORDERED_ONLY {
            report.metrics.remove(name);
        }
    }
    Ok(QuestionAgreement {
        question: q.id.clone(),
        kind: q.kind,
        unit,
        positions,
        report: Some(report),
        reason: None,
    })
}

/// The statistics that read the labels' order or distances.
const ORDERED_ONLY: [&str; 5] = [
    "cohen_kappa_linear",
    "cohen_kappa_quadratic",
    "krippendorff_alpha_ordinal",
    "krippendorff_alpha_interval",
    "krippendorff_alpha_ratio",
];

fn rating(item: String, c: &Counted<'_>, label: Label) -> Rating {
    Rating {
        item,
        annotator: c.annotator.clone(),
        label,
    }
}
