//! Creating tasks: one per claim and kind, to be answered by `overlap` annotators.

mod chunks;

use crate::settings::Settings;
use crate::trick_search::DonorWords;
use crate::Lead;
use crate::{Error, ErrorCode, Project, Result};
use chunks::{NewTasks, Plan, Spent};
use factdesk_core::seeded::Seeded;
use factdesk_core::text;
use factdesk_store::tasks::{self, Ineligible};
use factdesk_store::tricks;
use factdesk_store::{Read, Store};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

pub use factdesk_core::task::TaskKind;

/// Claims meant for a kind of task that got none, for one reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct NoTask {
    pub kind: TaskKind,
    pub reason: SkipReason,
    pub message: String,
    pub count: u64,
}

/// What creating tasks did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TasksReport {
    pub kind: TaskKind,
    pub created: u64,
    /// Claims that already had a task of this kind.
    pub existing: u64,
    /// The overlap the new tasks were made with.
    pub overlap: u32,
    /// The overlaps the tasks already there were made with, ascending (an existing task
    /// keeps its own).
    pub existing_overlaps: Vec<u32>,
    /// Claims this kind of task is meant for that got none, grouped by why.
    pub skipped: Vec<SkippedClaims>,
    /// Evidence tasks that show no trick: under the `supports_or_refutes` stance no real
    /// sentence sharing no word with the claim was found in another claim's documents.
    pub without_trick: u64,
    /// Evidence tasks of the project whose trick other items show more or less often
    /// than the item's real options (no sentence shown as they are fitted), this run's
    /// and earlier ones': a script comparing many items can tell those tricks. Documents no claim names, imported with `--docs`,
    /// give tricks sentences no item shows.
    #[serde(default)]
    pub tricks_unlike_options: u64,
}

/// Why a claim gets no task of a kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    NoDocuments,
    NoCandidates,
    EvidenceFromParent,
    TooLongToRefute,
    PendingReview,
    Rejected,
    Superseded,
}

impl SkipReason {
    /// The reason as the lead reads it.
    pub fn message(self, s: &Settings) -> String {
        match self {
            SkipReason::NoDocuments => "no documents".into(),
            SkipReason::NoCandidates => "no candidates".into(),
            // Said on the lead's screens too: no command-line flag in it (the walk of
            // session 27); `factdesk tasks --help` names the flag.
            SkipReason::EvidenceFromParent => {
                "a refutation whose evidence comes from its parent claim's task".into()
            }
            SkipReason::TooLongToRefute => format!(
                "too long to refute (more than {} tokens)",
                s.refute_max_tokens
            ),
            SkipReason::PendingReview => "a written refutation pending review".into(),
            SkipReason::Rejected => "a written refutation the lead rejected".into(),
            SkipReason::Superseded => "a written refutation its writer replaced".into(),
        }
    }

    fn from_store(i: Ineligible) -> SkipReason {
        match i {
            Ineligible::NoDocuments => SkipReason::NoDocuments,
            Ineligible::NoCandidates => SkipReason::NoCandidates,
            Ineligible::EvidenceFromParent => SkipReason::EvidenceFromParent,
            Ineligible::PendingReview => SkipReason::PendingReview,
            Ineligible::Rejected => SkipReason::Rejected,
            Ineligible::Superseded => SkipReason::Superseded,
        }
    }
}

/// Claims that got no task, for one reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SkippedClaims {
    pub reason: SkipReason,
    pub message: String,
    pub count: u64,
    /// The claims' ids as imported.
    pub claims: Vec<String>,
}

/// Each claim meant for `kind` that cannot get a task of it, with why, by row id.
pub(crate) fn ineligible(
    conn: &factdesk_store::Read,
    kind: TaskKind,
    include_children: bool,
    settings: &Settings,
) -> Result<Vec<(i64, String, SkipReason)>> {
    let mut out: Vec<(i64, String, SkipReason)> =
        tasks::ineligible_claims(conn, kind, include_children)?
            .into_iter()
            .map(|(id, ext_id, _, why)| (id, ext_id, SkipReason::from_store(why)))
            .collect();
    if kind == TaskKind::Refute {
        out.extend(
            factdesk_store::tasks::refute_candidates(conn)?
                .into_iter()
                .filter(|(_, _, text)| too_long(text, settings))
                .map(|(id, ext_id, _)| (id, ext_id, SkipReason::TooLongToRefute)),
        );
    }
    Ok(out)
}

pub(crate) fn too_long(claim: &str, settings: &Settings) -> bool {
    text::token_count(claim) > settings.refute_max_tokens as usize
}

fn grouped(claims: Vec<(i64, String, SkipReason)>, settings: &Settings) -> Vec<SkippedClaims> {
    let mut groups: std::collections::BTreeMap<SkipReason, Vec<String>> = Default::default();
    for (_, ext_id, why) in claims {
        groups.entry(why).or_default().push(ext_id);
    }
    groups
        .into_iter()
        .map(|(reason, claims)| SkippedClaims {
            reason,
            message: reason.message(settings),
            count: claims.len() as u64,
            claims,
        })
        .collect()
}

/// A number drawn for `purpose` under the project's secret. The secret never leaves the
/// project file, so what an annotator holds (settings, seed, ids, a pack) predicts nothing.
pub(crate) fn secret_draw(secret: &[u8], purpose: &str) -> Seeded {
    let key = blake3::hash(secret);
    let h = blake3::keyed_hash(key.as_bytes(), purpose.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&h.as_bytes()[..8]);
    Seeded::new(u64::from_le_bytes(first))
}

/// Where a claim's shuffle key comes from: the project seed and the claim, so the same
/// project always serves in the same order.
pub(crate) fn shuffle_key(seed: u64, kind: TaskKind, claim_id: i64) -> i64 {
    (Seeded::for_purpose(seed, &format!("order:{}:{claim_id}", kind.as_str())).next_u64() >> 33)
        as i64
}

impl Project {
    /// For each kind of task the project has, the claims meant for it that got none,
    /// counted by reason: what the lead's home says without creating tasks again. It
    /// reads every claim, so the lead's home asks for it; it is not in every overview.
    pub fn claims_without_tasks(&self, lead: &Lead) -> Result<Vec<NoTask>> {
        self.acting_lead(lead)?;
        let settings = self.settings()?;
        let conn = self.store.read();
        let mut out = Vec::new();
        for kind in TaskKind::ALL {
            if tasks::count(conn, kind)? == 0 {
                continue;
            }
            for group in grouped(ineligible(conn, kind, false, &settings)?, &settings) {
                out.push(NoTask {
                    kind,
                    reason: group.reason,
                    message: group.message,
                    count: group.count,
                });
            }
        }
        Ok(out)
    }

    /// Creates a task of `kind` for every eligible claim that has none; `overlap`
    /// defaults to the project's.
    pub fn create_tasks(
        &mut self,
        lead: &Lead,
        kind: TaskKind,
        overlap: Option<u32>,
    ) -> Result<TasksReport> {
        self.acting_lead(lead)?;
        self.create_tasks_with(lead, kind, overlap, false, &mut crate::NoProgress)
    }

    /// [`Project::create_tasks`]; with `include_children`, evidence and label tasks are
    /// made for refutations too, whose evidence otherwise comes from their parent.
    pub fn create_tasks_with(
        &mut self,
        lead: &Lead,
        kind: TaskKind,
        overlap: Option<u32>,
        include_children: bool,
        progress: &mut dyn crate::Progress,
    ) -> Result<TasksReport> {
        self.acting_lead(lead)?;
        self.check_stored()?;
        let settings = self.settings()?;
        if kind == TaskKind::Design {
            let design = settings
                .design
                .as_ref()
                .ok_or_else(crate::design::undeclared)?;
            if let Some(problem) = crate::design::controls_problem(self, design)? {
                return Err(Error::new(ErrorCode::InvalidInput, problem));
            }
        }
        let overlap = overlap.unwrap_or(settings.overlap);
        if overlap == 0 {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                "--overlap must be at least 1",
            ));
        }
        let now = self.clock.now_ms();
        let secret = factdesk_store::tx::secret(self.store.read())?;
        // With FACTDESK_LOG=debug the log's timestamps time each phase. The long run
        // begins before the setup's reads of whole tables (see `set_long_run`).
        self.store.set_long_run(true)?;
        let setup = self.read_setup(kind, include_children, &settings);
        if setup.is_err() {
            self.store.set_long_run(false)?;
        }
        let Setup {
            reader,
            donors,
            mut claims,
            skipped,
        } = setup?;
        // The run goes in serving order, not the claims' order, so task ids ascend with
        // the secret order across the whole run: an id is what an annotator sees of an
        // item, and ids in import order (even shuffled within each chunk) told the
        // refutations, imported after their claims, and so the label.
        claims.sort_by_cached_key(|(id, _)| shuffle_key(settings.seed, kind, *id));
        tracing::debug!(
            donors = donors.donors.len(),
            eligible = claims.len(),
            skipped = skipped.len(),
            "trick donors and claims read"
        );
        let mut report = TasksReport {
            kind,
            created: 0,
            existing: 0,
            overlap,
            existing_overlaps: Vec::new(),
            skipped: grouped(skipped, &settings),
            without_trick: 0,
            tricks_unlike_options: 0,
        };
        let draw = |claim_id: i64| secret_draw(&secret, &format!("trick-sentence:{claim_id}"));
        let new_tasks = NewTasks {
            kind,
            overlap,
            now,
            secret: &secret,
            seed: settings.seed,
        };
        let mut spent = Spent::default();
        let plan = Plan {
            kind,
            settings: &settings,
            donors: &donors,
            draw: &draw,
            new_tasks: &new_tasks,
        };
        let written = self.write_chunks(&claims, reader, &plan, &mut report, &mut spent, progress);
        // Whatever became of the run, the connection writes as usual afterwards.
        self.store.set_long_run(false)?;
        let pass = written?;
        if kind == TaskKind::Evidence {
            report.tricks_unlike_options = tricks::unlike_options(self.store.read())?;
        }
        tracing::debug!(created = report.created, ?spent, "tasks written");
        if report.without_trick > 0 {
            // Said once for the run, not once per claim: where the documents draw on a
            // few hundred words, that was a line for every claim.
            tracing::warn!(
                tasks = report.without_trick,
                looked_at_most = pass,
                "evidence tasks without a trick: no sentence of another claim's documents shares no word with their claim"
            );
        }
        report.existing_overlaps.sort_unstable();
        Ok(report)
    }

    /// What a run reads before its first chunk: the donors of evidence tasks' tricks, and
    /// the eligible and the skipped claims, the two in one transaction so that they are of
    /// one moment (whether a claim has a task is read again as its chunk is written). On
    /// a project file, evidence tasks' claims are read on a second connection beside the
    /// donors, and that connection goes on to read the chunks' facts.
    fn read_setup(
        &mut self,
        kind: TaskKind,
        include_children: bool,
        settings: &Settings,
    ) -> Result<Setup> {
        let read_claims = |conn: &Read| -> Result<(Claims, Vec<Skipped>)> {
            let claims = tasks::eligible_claims(conn, kind, include_children)?;
            let skipped = ineligible(conn, kind, include_children, settings)?;
            Ok((claims, skipped))
        };
        let reader = match kind {
            TaskKind::Evidence => self.store.reader().unwrap_or_else(|e| {
                tracing::debug!("no second connection to read claims' facts with: {e}");
                None
            }),
            _ => None,
        };
        let Some(reader) = reader else {
            let donors = match kind {
                TaskKind::Evidence => DonorWords::read(self.store.read(), include_children)?,
                _ => DonorWords::default(),
            };
            let tx = self.store.transaction()?;
            let (claims, skipped) = read_claims(&tx)?;
            tx.commit()?;
            return Ok(Setup {
                reader: None,
                donors,
                claims,
                skipped,
            });
        };
        std::thread::scope(|s| {
            let reading = s.spawn(move || {
                let read = match reader.read_snapshot() {
                    Ok(snapshot) => read_claims(&snapshot),
                    Err(e) => Err(e.into()),
                };
                read.map(|read| (reader, read))
            });
            let donors = DonorWords::read(self.store.read(), include_children);
            let (reader, (claims, skipped)) = reading
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e))?;
            Ok(Setup {
                reader: Some(reader),
                donors: donors?,
                claims,
                skipped,
            })
        })
    }
}

/// Claims as (row id, text).
type Claims = Vec<(i64, String)>;
/// A claim that gets no task: (row id, id as imported, why).
type Skipped = (i64, String, SkipReason);

/// What [`Project::read_setup`] read.
struct Setup {
    /// The second connection that reads the chunks' facts, if any.
    reader: Option<Store>,
    /// The sentences evidence tasks' tricks are drawn from, and their words.
    donors: DonorWords,
    claims: Claims,
    skipped: Vec<Skipped>,
}

/// The lengths a trick may have, from its claim's candidates' lengths in characters and
/// a place `slot` drawn in `0..=candidates.len()` from the project's secret: the trick's
/// length falls below the shortest candidate (slot 0), between two neighbouring lengths,
/// or above the longest (the last slot), so its place among the options' lengths is
/// drawn alike among all the places it can take. Each range is at least the mean gap
/// between neighbouring lengths wide, so the draws find a sentence in it. Held to the
/// candidates' span, the trick was never the longest or the shortest option, and
/// "neither longest nor shortest" found it in a quarter of the items where chance gives
/// a sixth (issue 31's hostile pass). Any length when the claim has no candidates.
fn trick_lengths(candidates: &[usize], slot: usize) -> std::ops::RangeInclusive<usize> {
    let mut sorted = candidates.to_vec();
    sorted.sort_unstable();
    let (Some(&min), Some(&max)) = (sorted.first(), sorted.last()) else {
        return 0..=usize::MAX;
    };
    let gap = match sorted.len() {
        1 => max / 4,
        n => (max - min) / (n - 1),
    }
    .max(1);
    let (low, high) = match slot {
        0 => (min.saturating_sub(gap), min),
        k if k >= sorted.len() => (max, max.saturating_add(gap)),
        k => (sorted[k - 1], sorted[k]),
    };
    let short = gap.saturating_sub(high - low) / 2;
    low.saturating_sub(short)..=high.saturating_add(short)
}

#[cfg(test)]
mod tests {
    use super::trick_lengths;

    #[test]
    fn a_trick_may_be_shorter_than_every_candidate_between_two_or_longer_than_every_one() {
        // Five candidates from 40 to 120 characters: the mean gap is 20.
        let lengths = [100, 40, 120, 60, 80];
        assert_eq!(trick_lengths(&lengths, 0), 20..=40);
        assert_eq!(trick_lengths(&lengths, 2), 60..=80);
        assert_eq!(trick_lengths(&lengths, 5), 120..=140);
        // Two candidates as long as each other: a range the mean gap (26) wide around them.
        assert_eq!(trick_lengths(&[40, 50, 50, 120], 2), 37..=63);
        assert_eq!(trick_lengths(&[80], 1), 80..=100);
        assert_eq!(trick_lengths(&[], 0), 0..=usize::MAX);
    }
}
