//! Writing a run's tasks a chunk of claims at a time, in three stages that overlap: a
//! chunk's facts are read ahead (on a second connection to a project file), its tricks are
//! searched on every core, and meanwhile the chunk before it is written in a transaction
//! of its own. The write reads each claim's task again before it writes, so facts read
//! ahead never create a task twice or replace a trick, and each claim's trick comes from
//! the project's secret and the claim alone: the tasks are the same however the stages
//! met.

use super::{secret_draw, shuffle_key, too_long, trick_lengths, TaskKind, TasksReport};
use crate::settings::{EvidenceStance, Settings};
use crate::trick_search::{DonorWords, Found, TrickFor, TrickSearch};
use crate::{Error, ErrorCode, Project, Result};
use factdesk_core::seeded::Seeded;
use factdesk_store::tasks::{self, NewTask};
use factdesk_store::tricks::{self, ClaimFacts, Corpus, TaskState};
use std::collections::{HashMap, HashSet};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Claims written in one transaction: at most this many, and a smaller run is cut in
/// about [`CHUNKS`] (each at least [`LEAST_CHUNK`]), so an answer waits for a small part
/// of it.
const FACTS_CHUNK: usize = 1000;
const CHUNKS: usize = 16;
const LEAST_CHUNK: usize = 64;
/// Chunks whose facts the reader may hold ready: enough that a write never waits for
/// them, few enough that a large run does not hold them all.
const AHEAD: usize = 4;

/// Where a run's time went, summed over its chunks, for the debug log.
#[derive(Debug, Default)]
pub(super) struct Spent {
    /// Reading the chunks' facts, on the reader's thread or this one.
    pub facts: Duration,
    /// Searching the chunks' tricks, each beside the write of the chunk before it.
    pub search: Duration,
    /// This thread waiting for a chunk's facts or its search, with nothing to write.
    pub waits: Duration,
    /// In each write transaction: reading the chunk's tasks again, inserting the new
    /// ones, their trick rows, and the commit.
    pub states: Duration,
    pub inserts: Duration,
    pub tricks: Duration,
    pub commits: Duration,
}

/// What every task a run creates has in common.
pub(super) struct NewTasks<'a> {
    pub kind: TaskKind,
    pub overlap: u32,
    pub now: i64,
    pub secret: &'a [u8],
    pub seed: u64,
}

/// What a run of chunks is made with.
pub(super) struct Plan<'a> {
    pub kind: TaskKind,
    pub settings: &'a Settings,
    /// The sentences the tricks are drawn from, with their words (none but for evidence
    /// tasks).
    pub donors: &'a DonorWords,
    pub draw: &'a (dyn Fn(i64) -> Seeded + Sync),
    pub new_tasks: &'a NewTasks<'a>,
}

/// What every chunk of a run shares: its plan, and the search over the plan's donors.
struct ChunkRun<'a> {
    plan: &'a Plan<'a>,
    search: &'a TrickSearch<'a>,
}

/// A chunk's claims meant for tasks (a refutation's too long ones left out), each with
/// its facts as read ahead of its write.
type Read<'c> = Vec<(i64, &'c str, ClaimFacts)>;

/// A chunk whose tricks were searched: `found[k]` is the trick of the claim at
/// `searched[k]`, the claims that had none when their facts were read.
struct Searched<'c> {
    claims: Read<'c>,
    searched: Vec<usize>,
    found: Vec<Found>,
}

/// The claims of `chunk` meant for tasks, with their facts: evidence tasks' only, as the
/// other kinds need nothing before their write.
fn read_chunk<'c>(
    conn: &factdesk_store::Read,
    chunk: &'c [(i64, String)],
    kind: TaskKind,
    settings: &Settings,
    corpus: &Corpus<'_>,
) -> Result<Read<'c>> {
    let claims: Vec<&(i64, String)> = chunk
        .iter()
        .filter(|(_, text)| !(kind == TaskKind::Refute && too_long(text, settings)))
        .collect();
    // The write reads each claim's task itself.
    let mut facts = if kind == TaskKind::Evidence {
        let ids: Vec<i64> = claims.iter().map(|(id, _)| *id).collect();
        tricks::facts(conn, kind.as_str(), &ids, Some(corpus))?
    } else {
        HashMap::new()
    };
    Ok(claims
        .into_iter()
        .map(|(id, text)| (*id, text.as_str(), facts.remove(id).unwrap_or_default()))
        .collect())
}

/// Where the chunks' facts come from.
enum Ahead<'c, 'a> {
    /// A thread of its own reads them, in order, on a second connection.
    Reader(mpsc::Receiver<(Result<Read<'c>>, Duration)>),
    /// This thread reads them, the next one while a search runs.
    Here {
        chunks: std::slice::Iter<'c, &'c [(i64, String)]>,
        next: Option<Read<'c>>,
        plan: &'a Plan<'a>,
        corpus: Corpus<'a>,
    },
}

impl<'c, 'a> Ahead<'c, 'a> {
    /// The next chunk's facts; `None` after the last chunk.
    fn take(&mut self, conn: &factdesk_store::Read, spent: &mut Spent) -> Result<Option<Read<'c>>> {
        match self {
            Ahead::Reader(rx) => {
                let started = Instant::now();
                let next = rx.recv();
                spent.waits += started.elapsed();
                match next {
                    Ok((read, took)) => {
                        spent.facts += took;
                        read.map(Some)
                    }
                    // The reader hung up after its last chunk (or it panicked, which the
                    // scope it runs in raises again).
                    Err(mpsc::RecvError) => Ok(None),
                }
            }
            Ahead::Here { .. } => {
                self.prefetch(conn, spent)?;
                match self {
                    Ahead::Here { next, .. } => Ok(next.take()),
                    Ahead::Reader(_) => Ok(None),
                }
            }
        }
    }

    /// Reads the next chunk's facts now, if this thread reads them.
    fn prefetch(&mut self, conn: &factdesk_store::Read, spent: &mut Spent) -> Result<()> {
        let Ahead::Here {
            chunks,
            next,
            plan,
            corpus,
        } = self
        else {
            return Ok(());
        };
        if next.is_some() {
            return Ok(());
        }
        if let Some(chunk) = chunks.next() {
            let started = Instant::now();
            *next = Some(read_chunk(conn, chunk, plan.kind, plan.settings, corpus)?);
            spent.facts += started.elapsed();
        }
        Ok(())
    }
}

/// Reads the facts of `chunks` in order on `reader` and sends them down `tx`; stops at
/// the first failure, which it sends, or once nothing takes them.
fn read_ahead<'c>(
    reader: &factdesk_store::Store,
    chunks: &[&'c [(i64, String)]],
    plan: &Plan<'_>,
    tx: mpsc::SyncSender<(Result<Read<'c>>, Duration)>,
) {
    // Here, beside the search's reading of the same sentences' words.
    let corpus = plan.donors.corpus();
    for chunk in chunks {
        let started = Instant::now();
        let read = read_chunk(reader.read(), chunk, plan.kind, plan.settings, &corpus);
        let failed = read.is_err();
        if tx.send((read, started.elapsed())).is_err() || failed {
            return;
        }
    }
}

/// What the search needs of each claim of `claims` that had no trick when its facts were
/// read, with its place in `claims`.
fn wanted<'r>(claims: &'r Read<'_>, plan: &Plan<'_>) -> (Vec<usize>, Vec<TrickFor<'r>>) {
    if plan.kind != TaskKind::Evidence {
        return (Vec::new(), Vec::new());
    }
    claims
        .iter()
        .enumerate()
        .filter(|(_, (_, _, f))| !f.task.is_some_and(|t| t.2))
        .map(|(at, claim)| (at, trick_for(claim, plan.new_tasks.secret)))
        .unzip()
}

/// What the search needs of one claim. Its trick's length is drawn among the places its
/// candidates' lengths leave (see [`trick_lengths`]).
fn trick_for<'r>(claim: &'r (i64, &str, ClaimFacts), secret: &[u8]) -> TrickFor<'r> {
    let (claim_id, text, f) = claim;
    let places = f.candidate_lengths.len() as u64 + 1;
    let slot = secret_draw(secret, &format!("trick-length:{claim_id}")).below(places) as usize;
    TrickFor {
        claim_id: *claim_id,
        claim: text,
        family: &f.family,
        family_texts: &f.family_texts,
        lengths: trick_lengths(&f.candidate_lengths, slot),
        elsewhere: &f.candidate_elsewhere,
    }
}

/// Chunks of a run of `claims` claims.
fn chunk_size(claims: usize) -> usize {
    (claims / CHUNKS).clamp(LEAST_CHUNK, FACTS_CHUNK)
}

impl Project {
    /// Writes the tasks of `claims` a chunk at a time. Each chunk is a transaction of its
    /// own, so that answers submitted meanwhile wait for one chunk's writes, not for the
    /// run: a run cut short leaves whole chunks, and running it again makes the rest. The
    /// long run ([`factdesk_store::Store::set_long_run`]) ends before the last chunk,
    /// whose commit waits for the disk and takes the earlier ones with it. `reader`, a
    /// second connection to the project, reads the facts ahead when there is one, from
    /// while the search reads its donors' words. Gives how many sentences a claim's
    /// search passes over at most.
    pub(super) fn write_chunks(
        &mut self,
        claims: &[(i64, String)],
        reader: Option<factdesk_store::Store>,
        plan: &Plan<'_>,
        report: &mut TasksReport,
        spent: &mut Spent,
        progress: &mut dyn crate::Progress,
    ) -> Result<usize> {
        progress.phase("tasks", claims.len() as u64);
        let chunks: Vec<&[(i64, String)]> = claims.chunks(chunk_size(claims.len())).collect();
        std::thread::scope(|s| {
            let read_ahead = reader.map(|reader| {
                let (tx, rx) = mpsc::sync_channel(AHEAD);
                let chunks = &chunks;
                s.spawn(move || read_ahead(&reader, chunks, plan, tx));
                rx
            });
            let search = TrickSearch::new(plan.donors, claims.len());
            tracing::debug!("donor words read");
            let mut ahead = match read_ahead {
                Some(rx) => Ahead::Reader(rx),
                None => Ahead::Here {
                    chunks: chunks.iter(),
                    next: None,
                    plan,
                    corpus: plan.donors.corpus(),
                },
            };
            let run = ChunkRun {
                plan,
                search: &search,
            };
            self.search_and_write(&mut ahead, chunks.len(), &run, report, spent, progress)?;
            Ok(search.pass())
        })
    }

    /// Searches each chunk's tricks while the chunk before it is written.
    fn search_and_write(
        &mut self,
        ahead: &mut Ahead<'_, '_>,
        chunks: usize,
        run: &ChunkRun<'_>,
        report: &mut TasksReport,
        spent: &mut Spent,
        progress: &mut dyn crate::Progress,
    ) -> Result<()> {
        let mut pending: Option<Searched> = None;
        let (mut written, mut done) = (0, 0);
        // The sentences already some task's trick, and those found since, chunk by chunk.
        let mut taken = run.plan.donors.taken.clone();
        let mut write = |project: &mut Project, chunk: Searched, spent: &mut Spent| {
            written += 1;
            if written == chunks {
                project.store.set_long_run(false)?;
            }
            done += chunk.claims.len() as u64;
            project.write_chunk(chunk, run, report, spent)?;
            progress.set(done);
            project.store.yield_to_writers();
            Ok::<_, Error>(())
        };
        while let Some(claims) = ahead.take(self.store.read(), spent)? {
            let (searched, wanted) = wanted(&claims, run.plan);
            let found = std::thread::scope(|s| {
                let (search, wanted, draw) = (run.search, &wanted, run.plan.draw);
                let taken = &mut taken;
                let finding = s.spawn(move || {
                    let started = Instant::now();
                    (search.find_all(wanted, draw, taken), started.elapsed())
                });
                if let Some(chunk) = pending.take() {
                    write(self, chunk, spent)?;
                }
                ahead.prefetch(self.store.read(), spent)?;
                let waiting = Instant::now();
                let (found, searched) = finding
                    .join()
                    .unwrap_or_else(|e| std::panic::resume_unwind(e));
                spent.waits += waiting.elapsed();
                spent.search += searched;
                Ok::<_, Error>(found)
            })?;
            drop(wanted);
            pending = Some(Searched {
                claims,
                searched,
                found,
            });
        }
        // Fewer chunks came than were cut only when the reader's thread panicked.
        if let Some(chunk) = pending.take() {
            write(self, chunk, spent)?;
        }
        if written < chunks {
            return Err(Error::new(
                ErrorCode::Database,
                "the reading of the claims' facts stopped",
            ));
        }
        Ok(())
    }

    /// Writes one searched chunk in one transaction: the tasks its claims lack, then the
    /// tricks of those still without one.
    fn write_chunk(
        &mut self,
        chunk: Searched<'_>,
        run: &ChunkRun<'_>,
        report: &mut TasksReport,
        spent: &mut Spent,
    ) -> Result<()> {
        // Rows go out with COPY on PostgreSQL.
        let tx = self.store.transaction()?;
        tx.bulk_writes()?;
        let ids: Vec<i64> = chunk.claims.iter().map(|(id, _, _)| *id).collect();
        let started = Instant::now();
        let states = tricks::task_states(&tx, run.plan.kind.as_str(), &ids)?;
        spent.states += started.elapsed();
        let started = Instant::now();
        let task_ids = insert_tasks(&tx, &chunk.claims, &states, run.plan.new_tasks, report)?;
        spent.inserts += started.elapsed();
        let started = Instant::now();
        if run.plan.kind == TaskKind::Evidence {
            set_tricks(&tx, &chunk, &states, &task_ids, run, report)?;
        }
        spent.tricks += started.elapsed();
        let started = Instant::now();
        tx.commit()?;
        spent.commits += started.elapsed();
        Ok(())
    }
}

/// Inserts a task for each claim of `claims` that has none in `states`, counting in
/// `report` the ones there already; gives each claim's task id, in order.
fn insert_tasks(
    tx: &factdesk_store::Tx<'_>,
    claims: &Read<'_>,
    states: &HashMap<i64, TaskState>,
    new: &NewTasks,
    report: &mut TasksReport,
) -> Result<Vec<i64>> {
    let mut ids = Vec::with_capacity(claims.len());
    let mut created = Vec::new();
    for (claim_id, _, facts) in claims {
        let claim_id = *claim_id;
        if let Some(&(id, held, _)) = states.get(&claim_id) {
            report.existing += 1;
            if !report.existing_overlaps.contains(&held) {
                report.existing_overlaps.push(held);
            }
            ids.push(id);
            continue;
        }
        let trick_slot = (new.kind == TaskKind::Evidence).then(|| {
            let mut rng = secret_draw(new.secret, &format!("trick-slot:{claim_id}"));
            rng.below(facts.candidates + 1) as u32
        });
        // Its id once the new tasks are written, in this order.
        created.push((
            ids.len(),
            NewTask {
                kind: new.kind,
                claim_id,
                overlap: new.overlap,
                trick_slot,
                shuffle_key: shuffle_key(new.seed, new.kind, claim_id),
                created_at: new.now,
            },
        ));
        ids.push(0);
    }
    // The run's claims come in serving order (see `create_tasks_with`), so the new tasks
    // are written, and numbered, in it.
    let tasks: Vec<NewTask> = created.iter().map(|(_, t)| *t).collect();
    for ((at, _), id) in created.iter().zip(tasks::insert_new_many(tx, &tasks)?) {
        ids[*at] = id;
    }
    report.created += tasks.len() as u64;
    Ok(ids)
}

/// Records the trick of each task of `chunk` that has none in `states`: the one its
/// search found, or, for a claim whose trick was there when its facts were read and is no
/// longer, one searched now. Chosen under every stance, so a later change of stance finds
/// it ready.
fn set_tricks(
    tx: &factdesk_store::Tx<'_>,
    chunk: &Searched<'_>,
    states: &HashMap<i64, TaskState>,
    task_ids: &[i64],
    run: &ChunkRun<'_>,
    report: &mut TasksReport,
) -> Result<()> {
    let mut set = Vec::with_capacity(chunk.claims.len());
    let mut found: Vec<Option<Found>> = vec![None; chunk.claims.len()];
    for (&at, &f) in chunk.searched.iter().zip(&chunk.found) {
        found[at] = Some(f);
    }
    for (at, claim) in chunk.claims.iter().enumerate() {
        if states.get(&claim.0).is_some_and(|s| s.2) {
            continue;
        }
        // Rare enough that a trick found here may repeat another item's.
        let found = found[at].unwrap_or_else(|| {
            run.search.find(
                &mut (run.plan.draw)(claim.0),
                &trick_for(claim, run.plan.new_tasks.secret),
                &HashSet::new(),
            )
        });
        match found.sentence {
            Some(sentence_id) => set.push(tricks::NewTrick {
                task_id: task_ids[at],
                sentence_id,
                text_hash: found.text_hash,
                left_out: found.left_out,
                unlike: found.unlike,
            }),
            None if run.plan.settings.stance() == EvidenceStance::SupportsOrRefutes => {
                report.without_trick += 1;
            }
            None => {}
        }
    }
    Ok(tricks::set_many(tx, &set)?)
}
