//! The lead changes the project's settings: checked, stored, and what follows from them
//! (flags decided again under a new rule) in one transaction; the evidence stance only
//! while nothing shown under the old one can still be answered.

use crate::settings::{from_json, invalid, EvidenceStance, Settings};
use crate::Lead;
use crate::{ErrorCode, Project, Result};

/// How often [`Project::change_settings`] makes its change again on settings saved
/// meanwhile by someone else, as the settings screen does.
pub(crate) const SETTINGS_TRIES: usize = 3;
use factdesk_core::task::TaskKind;

impl Project {
    /// Stores `settings`. A built-in evidence guideline is rewritten to match the stance.
    /// The stance cannot change once evidence answers exist, nor while evidence items
    /// shown under it can still be answered (see [`stance_may_change`]).
    pub fn set_settings(&mut self, lead: &Lead, settings: &Settings) -> Result<()> {
        self.set_settings_based_on(lead, settings, None)
    }

    /// Changes the stored settings by `change`, made on them as they are, and returns them
    /// as stored. When another lead saves between the read and the write, the change is
    /// made again on theirs, at most three times in all, so neither change is lost:
    /// the command line read, changed and wrote in two steps and overwrote a colleague's
    /// save made between them (sixteenth hostile pass).
    pub fn change_settings(
        &mut self,
        lead: &Lead,
        mut change: impl FnMut(Settings) -> Result<Settings>,
    ) -> Result<Settings> {
        let mut tries = 1;
        loop {
            let before = self.settings()?;
            let after = change(before.clone())?;
            match self.set_settings_based_on(lead, &after, Some(&before)) {
                Ok(()) => return self.settings(),
                Err(e) if e.code == ErrorCode::Conflict && tries < SETTINGS_TRIES => tries += 1,
                Err(e) => return Err(e),
            }
        }
    }

    /// As [`Project::set_settings`], but refused (`Conflict`, nothing stored) when the
    /// stored settings are no longer `based_on`, those the change was made from: two
    /// leads saving at once each had the other's change overwritten (fourteenth hostile
    /// pass). The app reads them again and redoes its change on top.
    pub fn set_settings_based_on(
        &mut self,
        lead: &Lead,
        settings: &Settings,
        based_on: Option<&Settings>,
    ) -> Result<()> {
        self.acting_lead(lead)?;
        settings.validate()?;
        // The controls are checked against a design whose questions change; a save that
        // leaves them as they were must never be refused for them.
        let before = self.settings()?.design;
        if let Some(design) = &settings.design {
            let same = before
                .as_ref()
                .is_some_and(|b| factdesk_core::design::declared::same_questions(b, design));
            if !same {
                if let Some(problem) = crate::design::controls_problem(self, design)? {
                    return Err(invalid("design", problem));
                }
            }
        }
        self.store_settings_based_on(settings, based_on)
    }

    pub(crate) fn store_settings(&mut self, settings: &Settings) -> Result<()> {
        self.store_settings_based_on(settings, None)
    }

    fn store_settings_based_on(
        &mut self,
        settings: &Settings,
        based_on: Option<&Settings>,
    ) -> Result<()> {
        self.store.require_writable()?;
        let mut settings = settings.clone();
        if let Some(stance) = settings.evidence_stance {
            settings.choose_stance(stance);
        }
        let value = serde_json::to_value(&settings)
            .map_err(|e| crate::Error::new(crate::ErrorCode::InvalidInput, e.to_string()))?;
        let tx = self.store.transaction()?;
        let old = from_json(factdesk_store::tx::settings(&tx)?);
        // A lead's transaction holds the write lock (BEGIN IMMEDIATE on a file, the
        // exclusive lock on PostgreSQL): no save can come between this read and the write.
        if based_on.is_some_and(|b| *b != old) {
            return Err(crate::Error::new(
                crate::ErrorCode::Conflict,
                "the settings were changed meanwhile, by another lead or window: read them again and make your change on top",
            ));
        }
        let before = old.stance();
        // A changed flag rule re-decides every flag from the records; other saves leave
        // flags as the answers set them.
        let rule_changed = old.trick_flag_threshold != settings.trick_flag_threshold
            || old.trick_min_seen != settings.trick_min_seen;
        if settings.stance() != before {
            stance_may_change(&tx, before, settings.stance(), self.clock.now_ms())?;
        }
        design_may_change(
            &tx,
            old.design.as_ref(),
            settings.design.as_ref(),
            self.clock.now_ms(),
        )?;
        if settings.ranking.model_dir != old.ranking.model_dir {
            model_dir_holds_a_model(settings.ranking.model_dir.as_deref())?;
        }
        factdesk_store::tx::set_settings(&tx, &value)?;
        // New trick thresholds can flag or clear people: their items reopen or fill.
        for person in factdesk_store::annotators::list(&tx)? {
            crate::annotators::sync_counted(&tx, person.id, &settings, rule_changed)?;
        }
        tx.commit()?;
        Ok(())
    }
}

/// Refuses a change to the design's questions (ids, types, labels, the text a span marks,
/// order) once design tasks hold answers: each answer is a fact about the questions its
/// annotator saw, and the gold and agreement read it by them.
fn design_may_change(
    tx: &factdesk_store::Read,
    old: Option<&factdesk_core::design::Design>,
    new: Option<&factdesk_core::design::Design>,
    now: i64,
) -> Result<()> {
    let same = match (old, new) {
        (Some(a), Some(b)) => factdesk_core::design::declared::same_questions(a, b),
        (None, None) => true,
        _ => false,
    };
    if same {
        return Ok(());
    }
    let answers = factdesk_store::tricks::answers_of_kind(tx, TaskKind::Design)?;
    if answers > 0 {
        return Err(crate::Error::new(
            crate::ErrorCode::Conflict,
            format!("design cannot change its questions: the project holds {answers} answers given to them (a guideline, the name or which questions are required may still change)"),
        ));
    }
    // An item on someone's screen was shown with the old questions: an answer to it
    // would be stored against the new ones.
    let held = factdesk_store::assignments::outstanding_of_kind(tx, TaskKind::Design, now)?;
    if let Some(first) = held.first() {
        let out: u64 = held.iter().map(|h| h.tasks).sum();
        return Err(crate::Error::new(
            crate::ErrorCode::Conflict,
            format!("design cannot change its questions while design items are open on annotators' screens ({out} of them; {} holds some): change it before handing them out, or once they are answered or released", first.name),
        ));
    }
    Ok(())
}

/// Refuses a change of the evidence stance from `from` to `to` while answers exist that
/// were taken under `from` (their guideline and trick were `from`'s), or while evidence
/// items shown under `from` can still be answered (see
/// `factdesk_store::assignments::outstanding_of_kind`): such an answer would be stored as
/// given under `to`, its option ids read against `to`'s trick.
fn stance_may_change(
    tx: &factdesk_store::Read,
    from: EvidenceStance,
    to: EvidenceStance,
    now: i64,
) -> Result<()> {
    let refuse = |why: String| {
        Err(crate::Error::new(
            crate::ErrorCode::Conflict,
            format!(
                "evidence_stance cannot change from {} to {}: {why}",
                from.as_str(),
                to.as_str()
            ),
        ))
    };
    let answers = factdesk_store::tricks::evidence_answers(tx)?;
    if answers > 0 {
        return refuse(format!(
            "the project holds {answers} evidence answers, taken under the {} guideline and trick",
            from.as_str()
        ));
    }
    let kind = TaskKind::Evidence;
    let out = factdesk_store::assignments::outstanding_of_kind(tx, kind, now)?;
    if out.is_empty() {
        return Ok(());
    }
    let held: Vec<String> = out
        .iter()
        .map(|o| {
            let (name, n) = (&o.name, o.tasks);
            match &o.pack_id {
                Some(pack) if o.returned => format!("{n} of {name}'s pack {pack} came back unanswered, and merging that pack again still answers them"),
                Some(pack) => format!("{name} holds {n} in pack {pack}, not merged yet"),
                None => format!("{name} was served {n} and has neither answered nor skipped them"),
            }
        })
        .collect();
    refuse(format!(
        "evidence items shown under the {} guideline can still be answered ({}), and their answers would be read under the new one. {}",
        from.as_str(),
        held.join("; "),
        how_to_free(&out)
    ))
}

/// How the lead frees what [`stance_may_change`] found held: a served item by its holder
/// answering or skipping it, or by disabling the holder (which gives their items back);
/// a pack out by merging it, or by waiting until it expires.
fn how_to_free(out: &[factdesk_store::assignments::Outstanding]) -> String {
    let mut ways = Vec::new();
    if out.iter().any(|o| o.pack_id.is_none()) {
        ways.push("a served item is freed when its holder answers or skips it, or when a lead disables the holder (`factdesk annotators P disable NAME` gives their items back to the pool; `enable` lets them work again)");
    }
    if out.iter().any(|o| o.pack_id.is_some() && !o.returned) {
        ways.push("a pack's items are freed when the pack is merged (`factdesk merge P FILE`, `--allow-empty` for one not answered) or expires");
    }
    if out.iter().any(|o| o.returned) {
        ways.push("items a merged pack gave back unanswered stay open, as merging that pack again still answers them");
    }
    format!("To change the stance: {}", ways.join("; "))
}

/// Refuses a newly set `ranking.model_dir` that does not hold the model, naming the
/// folder and the missing file: `rank` would fail on it, and an import would rank
/// without the semantic ranker.
fn model_dir_holds_a_model(dir: Option<&str>) -> Result<()> {
    let Some(dir) = dir else {
        return Ok(());
    };
    factdesk_semantic::locate(Some(std::path::Path::new(dir)), &Default::default())
        .map(drop)
        .map_err(|e| invalid("ranking.model_dir", e.to_string()))
}
