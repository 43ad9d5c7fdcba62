//! The gold export: one line per claim that made it, its split from its ROOT claim's id
//! and the seed, with agreement and provenance; a dataset card beside the file; and the
//! preview (counts only) the app shows before writing.

use super::answer::Outcome;
use super::family;
use super::gold_file::{beside, fever_line, write_lines};
use super::outcome::Aggregation;
use super::records::{
    DroppedClaim, ExportFormat, ExportPreview, ExportReport, GoldEvidence, GoldLine, UnderAnnotated,
};
use super::walk::{drop_of, Known, Scope, Walk, Walked};
use super::{split_names, GoldRequest};
use crate::settings::Settings;
use crate::tasks::{ineligible, TaskKind};
use crate::Lead;
use crate::{Project, Result};
use factdesk_core::claim::RefutationState;
use factdesk_core::gold::split_of;
use factdesk_store::{tasks, ClaimRow};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

impl Project {
    /// The gold lines and dropped claims under `req`. A claim with an evidence task is
    /// exported from its evidence; a claim without one (refutation-only work, such as
    /// WikiFactCheck's) as a pair with each of its verified refutations.
    pub fn gold(&self, by: &Lead, req: &GoldRequest) -> Result<(Vec<GoldLine>, ExportPreview)> {
        self.acting_lead(by)?;
        self.gold_in(&crate::current::CurrentAnswers::read(self)?, req)
    }

    /// [`Project::gold`] from answers already read.
    pub(crate) fn gold_in(
        &self,
        read: &crate::current::CurrentAnswers,
        req: &GoldRequest,
    ) -> Result<(Vec<GoldLine>, ExportPreview)> {
        let aggregation = self.aggregate_in(read, req)?;
        self.gold_of(&aggregation, req)
    }

    /// [`Project::gold_in`] from the aggregation under `req`.
    pub(crate) fn gold_of(
        &self,
        aggregation: &Aggregation,
        req: &GoldRequest,
    ) -> Result<(Vec<GoldLine>, ExportPreview)> {
        self.gold_in_scope(aggregation, req, Scope::Lines)
    }

    /// [`Project::gold_of`] with every line's evidence left empty, no sentence read: the
    /// labels and drops alone, as the export has them.
    pub(crate) fn gold_labels_of(
        &self,
        aggregation: &Aggregation,
        req: &GoldRequest,
    ) -> Result<(Vec<GoldLine>, ExportPreview)> {
        self.gold_in_scope(aggregation, req, Scope::Labels)
    }

    fn gold_in_scope(
        &self,
        aggregation: &Aggregation,
        req: &GoldRequest,
        scope: Scope,
    ) -> Result<(Vec<GoldLine>, ExportPreview)> {
        let names = split_names(req.splits.len());
        let walked = self.walk(aggregation, req, &names, scope)?;
        let mut preview = preview(aggregation, &walked.lines, walked.dropped, &names);
        preview.under_annotated = walked.under;
        preview.include_under_annotated = req.include_under_annotated;
        preview.split_warnings =
            family::split_warnings(&req.splits, &names, &preview.per_split, preview.lines);
        for state in RefutationState::ALL {
            preview.refutations.insert(state.as_str().to_string(), 0);
        }
        for (state, n) in self.store.refutation_states()? {
            preview.refutations.insert(state.as_str().to_string(), n);
        }
        Ok((walked.lines, preview))
    }

    /// The claims the default export would hold back as under-annotated, exactly as
    /// [`Project::gold_in`] lists them, from `aggregation` (the default request's); the
    /// gold lines themselves are not built (the report needs only this list).
    pub(crate) fn under_annotated_of(
        &self,
        aggregation: &Aggregation,
    ) -> Result<Vec<UnderAnnotated>> {
        let req = GoldRequest::default();
        let names = split_names(req.splits.len());
        let walked = self.walk(aggregation, &req, &names, Scope::UnderAnnotated)?;
        Ok(walked.under)
    }

    /// The export's walk over every claim under `req`: the lines, dropped claims and
    /// under-annotated claims, or (`Scope::UnderAnnotated`) only as much of it as decides
    /// the last.
    fn walk(
        &self,
        aggregation: &Aggregation,
        req: &GoldRequest,
        names: &[String],
        scope: Scope,
    ) -> Result<Walked> {
        let settings = self.settings()?;
        // Refutations and evidence sentences in one read each, not one query per claim.
        let mut children_of: HashMap<i64, Vec<ClaimRow>> = HashMap::new();
        for child in self.store.all_claim_children()? {
            if let Some(parent) = child.parent_id {
                children_of.entry(parent).or_default().push(child);
            }
        }
        // Only a refutation can be listed after its original's own count: without any,
        // a root's count alone decides, and its line, drop reason and text are not needed.
        let whole = scope != Scope::UnderAnnotated || !children_of.is_empty();
        let known = self.known(aggregation, &settings, whole)?;
        let sentences = match scope {
            Scope::Lines => self.evidence_sentences(aggregation)?,
            Scope::Labels | Scope::UnderAnnotated => HashMap::new(),
        };
        let mut walk = Walk {
            req,
            settings: &settings,
            known: &known,
            sentences: &sentences,
            method: aggregation.method,
            whole,
            lines: Vec::new(),
            dropped: Vec::new(),
            under: Vec::new(),
            texts: family::Texts::default(),
        };
        for claim in self.store.root_claims()? {
            let split = names[split_of(&claim.ext_id, req.seed, &req.splits)].clone();
            let children = children_of.remove(&claim.id).unwrap_or_default();
            walk.claim(&claim, split, &children);
        }
        let Walk {
            lines,
            mut dropped,
            under,
            ..
        } = walk;
        // Refutations of refutations: the gold data pairs a refutation with an original
        // claim only.
        let mut deeper: Vec<ClaimRow> = children_of.into_values().flatten().collect();
        deeper.sort_by_key(|c| c.id);
        for child in &deeper {
            dropped.push(drop_of(
                child,
                "a refutation of a refutation: gold lines pair refutations with original claims only",
            ));
        }
        Ok(Walked {
            lines,
            dropped,
            under,
        })
    }

    /// What the export reads once before it walks the claims; why claims got no evidence
    /// task is read only for a `whole` walk, which gives drop reasons.
    fn known<'a>(
        &self,
        aggregation: &'a Aggregation,
        settings: &Settings,
        whole: bool,
    ) -> Result<Known<'a>> {
        let conn = self.store.read();
        let no_evidence_task = if whole {
            ineligible(conn, TaskKind::Evidence, false, settings)?
                .into_iter()
                .map(|(id, _, why)| (id, why))
                .collect()
        } else {
            HashMap::new()
        };
        Ok(Known {
            by_claim: aggregation
                .tasks
                .iter()
                .map(|t| ((t.kind, t.claim_id), t))
                .collect(),
            with_evidence_task: tasks::claims_with(conn, TaskKind::Evidence)?
                .into_iter()
                .collect(),
            with_verify_task: tasks::claims_with(conn, TaskKind::Verify)?
                .into_iter()
                .collect(),
            no_evidence_task,
        })
    }

    /// Counts per label and split, and the dropped claims, without writing anything.
    pub fn export_preview(&self, by: &Lead, req: &GoldRequest) -> Result<ExportPreview> {
        self.acting_lead(by)?;
        Ok(self.gold(by, req)?.1)
    }

    /// Writes the gold file at `out` and its dataset card beside it (`<stem>.card.md`),
    /// all together or none; no output may be a project file or the project's own files,
    /// and an existing file (the gold file, its card, FEVER's split files) is replaced
    /// only with `force`.
    pub fn export_gold(
        &self,
        by: &Lead,
        req: &GoldRequest,
        out: &Path,
        format: ExportFormat,
        force: bool,
    ) -> Result<ExportReport> {
        self.acting_lead(by)?;
        let inputs = crate::output::Inputs::project(self.path());
        let card = beside(out, "card.md");
        let mut targets = vec![out.to_path_buf(), card.clone()];
        if format == ExportFormat::Fever {
            for name in split_names(req.splits.len()) {
                targets.push(beside(out, &format!("{name}.jsonl")));
            }
        }
        // Refused outputs are found before the gold data is gathered.
        for path in &targets {
            crate::output::check(path, &inputs)?;
            crate::output::refuse_existing(path, force)?;
        }
        let (lines, preview) = self.gold(by, req)?;
        let mut outputs = crate::output::Outputs::new(inputs);
        let mut split_files = Vec::new();
        match format {
            ExportFormat::Factdesk => {
                write_lines(out, outputs.file(out)?, &lines, &|_| true, |l| {
                    serde_json::to_value(l)
                })?
            }
            ExportFormat::Fever => {
                write_lines(out, outputs.file(out)?, &lines, &|_| true, fever_line)?;
                for name in split_names(req.splits.len()) {
                    let path = beside(out, &format!("{name}.jsonl"));
                    write_lines(
                        &path,
                        outputs.file(&path)?,
                        &lines,
                        &|l| l.split == name,
                        fever_line,
                    )?;
                    split_files.push(path.display().to_string());
                }
            }
        }
        let text = super::export_card::card(&preview, req, format) + &self.study_samples_card()?;
        outputs.bytes(&card, text.as_bytes())?;
        outputs.commit()?;
        Ok(ExportReport {
            out: out.display().to_string(),
            card: card.display().to_string(),
            split_files,
            preview,
        })
    }

    /// Every sentence an evidence outcome names, by id; a sentence no longer in the
    /// project is left out of its line.
    fn evidence_sentences(&self, aggregation: &Aggregation) -> Result<HashMap<i64, GoldEvidence>> {
        let ids: Vec<i64> = aggregation
            .tasks
            .iter()
            .filter(|t| t.kind == TaskKind::Evidence)
            .filter_map(|t| match &t.outcome {
                Outcome::Evidence { sentences } => Some(sentences.iter().copied()),
                _ => None,
            })
            .flatten()
            .collect();
        Ok(self
            .store
            .sentences(&ids)?
            .into_iter()
            .map(|s| {
                let evidence = GoldEvidence {
                    document_id: s.document_ext_id,
                    sentence_index: s.idx,
                    text: s.text,
                };
                (s.id, evidence)
            })
            .collect())
    }
}

fn preview(
    aggregation: &Aggregation,
    lines: &[GoldLine],
    dropped: Vec<DroppedClaim>,
    names: &[String],
) -> ExportPreview {
    let mut per_label = BTreeMap::new();
    let mut per_split: BTreeMap<String, u64> = names.iter().map(|n| (n.clone(), 0)).collect();
    let mut shares = Vec::new();
    for l in lines {
        *per_label.entry(l.label.as_str().to_string()).or_insert(0) += 1;
        *per_split.entry(l.split.clone()).or_insert(0) += 1;
        shares.extend(l.agreement.share_agreeing);
    }
    ExportPreview {
        method: aggregation.method,
        lines: lines.len() as u64,
        per_label,
        per_split,
        dropped,
        counted_annotators: aggregation.counted_annotators.clone(),
        excluded_annotators: aggregation.excluded_annotators.clone(),
        accuracy: aggregation.accuracy.clone(),
        mean_share_agreeing: (!shares.is_empty())
            .then(|| shares.iter().sum::<f64>() / shares.len() as f64),
        rejected_answers: aggregation.rejected_answers,
        refutations: BTreeMap::new(),
        split_warnings: Vec::new(),
        study_answers_in_gold: aggregation.study_answers_in_gold,
        trick_flag_threshold: aggregation.trick_flag_threshold,
        trick_min_seen: aggregation.trick_min_seen,
        evidence_stance: aggregation.evidence_stance,
        recipe: aggregation.recipe.clone(),
        design: aggregation.design.clone(),
        study_answers_apart: aggregation.study_answers_apart,
        under_annotated: Vec::new(),
        include_under_annotated: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The labels' walk gives the export's lines, drops and preview, each line without
    /// its evidence sentences.
    #[test]
    fn the_labels_walk_is_the_exports_without_evidence() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let project = crate::current::tests::fixture(dir.path());
        let read = crate::current::CurrentAnswers::read(&project).unwrap_or_else(|e| panic!("{e}"));
        let with_under = GoldRequest {
            include_under_annotated: true,
            ..GoldRequest::default()
        };
        for req in [GoldRequest::default(), with_under] {
            let aggregation = project
                .aggregate_in(&read, &req)
                .unwrap_or_else(|e| panic!("{e}"));
            let (mut lines, preview) = project
                .gold_of(&aggregation, &req)
                .unwrap_or_else(|e| panic!("{e}"));
            assert!(
                lines.iter().any(|l| !l.evidence.is_empty()),
                "the fixture's gold holds evidence"
            );
            let (labels, labels_preview) = project
                .gold_labels_of(&aggregation, &req)
                .unwrap_or_else(|e| panic!("{e}"));
            for line in &mut lines {
                line.evidence.clear();
            }
            assert_eq!(labels, lines);
            assert_eq!(labels_preview, preview);
        }
    }
}
