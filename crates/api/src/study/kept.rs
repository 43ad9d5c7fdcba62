//! A stratified sample made its kind's task set (`factdesk sample --keep-only`), as
//! CrowdChecked annotated 150 pairs drawn from 10 bins of word overlap out of many more:
//! the draw is recorded with its strata, and the kind's other tasks are closed. Only
//! before work on them begins: a task someone was given is never taken back.

use super::invalid;
use super::strata::StratifiedSample;
use crate::tasks::TaskKind;
use crate::{Error, ErrorCode, Lead, Project, Result};
use factdesk_core::strata::Strata;
use factdesk_store::task_samples::{self, NewTaskSample};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// A kept sample, as the dataset card prints it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct KeptSample {
    pub kind: TaskKind,
    /// How the items were grouped: "jaccard-bins:10", "label", "field:topic".
    pub strata: String,
    #[ts(type = "number")]
    pub seed: u64,
    pub per_stratum: u32,
    /// Each stratum with its number of items, by name.
    pub counts: Vec<(String, u64)>,
}

impl Project {
    /// Draws `per` items of `kind` from each stratum of `by` (as [`Project::sample_strata`]
    /// shows) and makes them the kind's task set: every other open task of the kind is
    /// closed. Refused, changing nothing, when a task outside the draw was given to
    /// someone, or when a task set was kept for the kind already.
    pub fn keep_sample(
        &mut self,
        lead: &Lead,
        kind: TaskKind,
        by: &Strata,
        per: u32,
        seed: Option<u64>,
    ) -> Result<(StratifiedSample, u64)> {
        self.acting_lead(lead)?;
        self.store.require_writable()?;
        if task_samples::latest(self.store.read(), kind)?.is_some() {
            return Err(Error::new(
                ErrorCode::Conflict,
                format!("the {kind} tasks are already a kept sample; a second draw would close items the first kept"),
            ));
        }
        let sample = self.sample_strata(lead, kind, by, per, seed)?;
        let drawn: Vec<(i64, String)> = sample
            .items
            .iter()
            .map(|i| (i.task_id, i.stratum.clone()))
            .collect();
        let ids: Vec<i64> = drawn.iter().map(|(t, _)| *t).collect();
        let tx = self.store.transaction()?;
        let given = task_samples::given_outside(&tx, kind, &ids)?;
        if let Some(first) = given.first() {
            return Err(invalid(format!(
                "{} {kind} tasks outside the draw were given to annotators already (task {first} first): keep a sample before work begins, or draw it as a study with --group",
                given.len()
            )));
        }
        let closed = task_samples::keep(
            &tx,
            &NewTaskSample {
                kind,
                strata: &sample.strata,
                seed: sample.seed,
                per_stratum: per,
                created_at: self.clock.now_ms(),
                items: &drawn,
            },
        )?;
        tx.commit()?;
        Ok((sample, closed))
    }

    /// The sample kept as `kind`'s task set, if one was.
    pub fn kept_sample(&self, kind: TaskKind) -> Result<Option<KeptSample>> {
        Ok(
            task_samples::latest(self.store.read(), kind)?.map(|s| KeptSample {
                kind: s.kind,
                strata: s.strata,
                seed: s.seed,
                per_stratum: s.per_stratum,
                counts: s.strata_counts,
            }),
        )
    }
}
