//! The gold export: one line per claim that made it, its split from its ROOT claim's id
//! and the seed, with agreement and provenance; a dataset card beside the file; and the
//! preview (counts only) the app shows before writing.

use super::answer::Outcome;
use super::family;
use super::gold_file::{beside, fever_line, write_lines};
use super::outcome::{Aggregation, TaskOutcome};
use super::records::{
    DroppedClaim, ExportFormat, ExportPreview, ExportReport, GoldAgreement, GoldEvidence, GoldLine,
    Provenance, UnderAnnotated,
};
use super::{split_names, GoldMethod, GoldRequest};
use crate::settings::Settings;
use crate::tasks::{ineligible, SkipReason, TaskKind};
use crate::Lead;
use crate::{Project, Result};
use factdesk_core::answer::Judgement;
use factdesk_core::claim::{Label, RefutationState};
use factdesk_core::gold::split_of;
use factdesk_store::{tasks, ClaimRow};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

/// The provenance of a line from the tasks behind it (evidence, label, verification): the
/// first of them the lead decided, else the aggregation method; with no task behind it
/// (a refutation-only claim beside its verified refutation, an imported refutation beside
/// its claim) nothing was aggregated, and the line is as imported.
fn provenance(method: GoldMethod, tasks: &[Option<&TaskOutcome>]) -> Provenance {
    let method = if tasks.iter().flatten().next().is_some() {
        method.as_str()
    } else {
        IMPORTED
    };
    match tasks.iter().flatten().find_map(|t| t.decision.as_ref()) {
        Some(d) => Provenance {
            method: "lead-decision".into(),
            lead: Some(d.lead.clone()),
            at: Some(d.at),
            reason: d.reason.clone(),
            category: d.category.clone(),
            taken_from: d.taken_from.clone(),
        },
        None => Provenance {
            method: method.into(),
            lead: None,
            at: None,
            reason: None,
            category: None,
            taken_from: None,
        },
    }
}

/// The provenance method of a line no answer or decision stands behind.
const IMPORTED: &str = "imported";

/// Whether a task's outcome can carry a gold line: it has counted answers, or the lead
/// decided it.
pub(super) fn settles(task: &TaskOutcome) -> bool {
    task.counted > 0 || task.decision.is_some()
}

fn agreement(task: Option<&TaskOutcome>) -> GoldAgreement {
    GoldAgreement {
        answers: task.map_or(0, |t| t.counted),
        share_agreeing: task.and_then(|t| t.share_agreeing),
        under_annotated: false,
    }
}

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
        let names = split_names(req.splits.len());
        let walked = self.walk(&aggregation, req, &names, Scope::Lines)?;
        let mut preview = preview(&aggregation, &walked.lines, walked.dropped, &names);
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
    /// [`Project::gold_in`] lists them, with the aggregation behind them; the gold lines
    /// themselves are not built (the report needs only this list).
    pub(crate) fn under_annotated_in(
        &self,
        read: &crate::current::CurrentAnswers,
    ) -> Result<(Aggregation, Vec<UnderAnnotated>)> {
        let req = GoldRequest::default();
        let aggregation = self.aggregate_in(read, &req)?;
        let names = split_names(req.splits.len());
        let walked = self.walk(&aggregation, &req, &names, Scope::UnderAnnotated)?;
        Ok((aggregation, walked.under))
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
        let whole = scope == Scope::Lines || !children_of.is_empty();
        let known = self.known(aggregation, &settings, whole)?;
        let sentences = match scope {
            Scope::Lines => self.evidence_sentences(aggregation)?,
            Scope::UnderAnnotated => HashMap::new(),
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

/// How much of the export a walk gathers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// Everything: lines, dropped claims, under-annotated claims.
    Lines,
    /// The under-annotated claims; lines and dropped claims only as far as they decide
    /// which refutations are listed.
    UnderAnnotated,
}

/// What a walk gathered.
struct Walked {
    lines: Vec<GoldLine>,
    dropped: Vec<DroppedClaim>,
    under: Vec<UnderAnnotated>,
}

/// The gold export's walk over the root claims, gathering lines, dropped claims and the
/// under-annotated ones.
struct Walk<'w, 'a> {
    req: &'w GoldRequest,
    settings: &'w Settings,
    known: &'w Known<'a>,
    sentences: &'w HashMap<i64, GoldEvidence>,
    method: GoldMethod,
    /// Whether each claim is walked past its own count (see [`Project::walk`]).
    whole: bool,
    lines: Vec<GoldLine>,
    dropped: Vec<DroppedClaim>,
    under: Vec<UnderAnnotated>,
    texts: family::Texts,
}

impl<'a> Walk<'_, 'a> {
    /// A root claim's line (in `split`) and its refutations', or why not.
    fn claim(&mut self, claim: &ClaimRow, split: String, children: &[ClaimRow]) {
        // A task a line rests on needs counted answers or the lead's decision: one
        // whose answers were all rejected (the trick) or left out (flagged) settles
        // nothing, as if it had no answers yet.
        let any_evidence = self.known.task(TaskKind::Evidence, claim.id);
        let task = any_evidence.filter(|t| settles(t));
        let label_task = self
            .known
            .task(TaskKind::Label, claim.id)
            .filter(|t| settles(t));
        let refutation_only = !self.known.with_evidence_task.contains(&claim.id);
        let label = match label_task.map(|t| &t.outcome) {
            Some(Outcome::Label {
                label: Judgement::Label(label),
            }) => Some(*label),
            Some(_) => None,
            None => claim.label,
        };
        let (family, family_dropped) = self.known.family(children, refutation_only);
        let short = super::thin::short(&[task, label_task]);
        if let Some(t) = short {
            self.under.push(super::thin::listed(claim, t));
        }
        if !self.whole {
            return;
        }
        if short.is_some() && !self.req.include_under_annotated {
            for (child, _) in &family {
                self.dropped
                    .push(drop_of(child, super::thin::PARENT_HELD_BACK));
            }
            self.dropped.extend(family_dropped);
            return;
        }
        let root = family::Root {
            label,
            evidence: task.map(|t| &t.outcome),
            label_task: label_task.is_some(),
            refutation_only,
            children: children.len(),
            family: family.len(),
            uncounted: any_evidence.map_or(0, |t| t.answers.len()),
            no_evidence_task: self.known.no_evidence_task.get(&claim.id).copied(),
            // Read only where a reason names it: a claim with no work at all.
            too_long: refutation_only
                && family.is_empty()
                && children.is_empty()
                && crate::tasks::too_long(&claim.text, self.settings),
        };
        let mut key = None;
        let reason = match family::drop_reason(&root, self.settings) {
            Some(reason) => Some(reason),
            None => {
                let text_key = family::Texts::key(&claim.text);
                let same = self.texts.same_as(&text_key).map(family::same_claim);
                key = Some(text_key);
                same
            }
        };
        let label = match (reason, label) {
            (None, Some(label)) => label,
            // A claim without a label always has a reason to drop it.
            (reason, _) => {
                let reason = reason.unwrap_or_else(|| "no label".into());
                self.dropped.push(drop_of(claim, &reason));
                for (child, _) in &family {
                    self.dropped
                        .push(drop_of(child, "its original claim was dropped"));
                }
                self.dropped.extend(family_dropped);
                return;
            }
        };
        self.dropped.extend(family_dropped);
        let evidence = match task.map(|t| &t.outcome) {
            Some(Outcome::Evidence { sentences: ids }) => ids
                .iter()
                .filter_map(|id| self.sentences.get(id).cloned())
                .collect(),
            _ => Vec::new(),
        };
        let deciding = task.or(label_task);
        let mut agreement = agreement(deciding);
        agreement.under_annotated = short.is_some();
        self.lines.push(GoldLine {
            id: claim.ext_id.clone(),
            claim: claim.text.clone(),
            label,
            evidence: evidence.clone(),
            context: claim.context.clone(),
            source_url: claim.source_url.clone(),
            parent_id: None,
            split,
            agreement,
            provenance: provenance(self.method, &[task, label_task]),
            task_id: deciding.map_or(0, |t| t.task_id),
            row_id: claim.id,
        });
        let key = key.unwrap_or_else(|| family::Texts::key(&claim.text));
        self.texts.keep(key, &claim.ext_id);

        let root = self.lines.len() - 1;
        self.refutations(root, family, label, refutation_only, task);
    }

    /// The lines of a root claim's refutations (`family`, with their verification),
    /// after the root's line at `root`.
    fn refutations(
        &mut self,
        root: usize,
        family: Vec<(&ClaimRow, Option<&'a TaskOutcome>)>,
        label: Label,
        refutation_only: bool,
        task: Option<&'a TaskOutcome>,
    ) {
        for (child, verify) in family {
            if let Err(reason) =
                family::refutation_of(label, refutation_only, &mut self.texts, child)
            {
                self.dropped.push(drop_of(child, &reason));
                continue;
            }
            let short_verify = super::thin::short(&[verify]);
            if let Some(v) = short_verify {
                self.under.push(super::thin::listed(child, v));
                if !self.req.include_under_annotated {
                    continue;
                }
            }
            let mut line = refutation_line(&self.lines[root], child, verify, task, self.method);
            // A refutation's line rests on its original's evidence and its own
            // verification: short on either, it is marked.
            line.agreement.under_annotated |=
                self.lines[root].agreement.under_annotated || short_verify.is_some();
            self.lines.push(line);
        }
    }
}

/// The line of a refutation that stands beside its original claim's line `root`.
fn refutation_line(
    root: &GoldLine,
    child: &ClaimRow,
    verify: Option<&TaskOutcome>,
    evidence_task: Option<&TaskOutcome>,
    method: GoldMethod,
) -> GoldLine {
    let deciding = (root.task_id != 0).then_some(root.task_id);
    GoldLine {
        id: child.ext_id.clone(),
        claim: child.text.clone(),
        // A supported claim's gold evidence refutes its accepted refutations (only a
        // supported claim's refutations are exported: `family::refutation_of`).
        evidence: root.evidence.clone(),
        label: child.label.unwrap_or(Label::Refuted),
        context: child.context.clone(),
        source_url: child.source_url.clone(),
        parent_id: Some(root.id.clone()),
        split: root.split.clone(),
        agreement: match verify {
            Some(v) => agreement(Some(v)),
            None => root.agreement.clone(),
        },
        provenance: provenance(method, &[verify, evidence_task]),
        // The evidence task, as FEVER's annotation id; without one, the verification
        // that made the line.
        task_id: evidence_task
            .or(verify)
            .map(|t| t.task_id)
            .or(deciding)
            .unwrap_or(0),
        row_id: child.id,
    }
}

/// Each task's outcome by (kind, claim), and why claims got no work.
struct Known<'a> {
    by_claim: HashMap<(TaskKind, i64), &'a TaskOutcome>,
    with_evidence_task: HashSet<i64>,
    /// Refutations with a verify task: they wait for its verdict (a model's counter-claims
    /// always have one), answered or not.
    with_verify_task: HashSet<i64>,
    no_evidence_task: HashMap<i64, SkipReason>,
}

impl<'a> Known<'a> {
    fn task(&self, kind: TaskKind, claim_id: i64) -> Option<&'a TaskOutcome> {
        self.by_claim.get(&(kind, claim_id)).copied()
    }

    /// A claim's refutations that may become gold lines, with their verification, and
    /// the others with why not.
    fn family<'c>(
        &self,
        children: &'c [ClaimRow],
        refutation_only: bool,
    ) -> (
        Vec<(&'c ClaimRow, Option<&'a TaskOutcome>)>,
        Vec<DroppedClaim>,
    ) {
        let mut family = Vec::new();
        let mut dropped = Vec::new();
        for child in children {
            let verify = self.task(TaskKind::Verify, child.id);
            let must_verify = refutation_only || self.with_verify_task.contains(&child.id);
            match family::refutation_verdict(child, verify, must_verify) {
                Ok(()) => family.push((child, verify)),
                Err(reason) => dropped.push(drop_of(child, &reason)),
            }
        }
        (family, dropped)
    }
}

fn drop_of(claim: &ClaimRow, reason: &str) -> DroppedClaim {
    DroppedClaim {
        id: claim.ext_id.clone(),
        number: claim.id,
        claim: claim.text.clone(),
        reason: reason.to_string(),
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
