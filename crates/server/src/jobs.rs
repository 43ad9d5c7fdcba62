//! Imports run as jobs: `POST /api/v1/imports` starts one and answers at once with its
//! id; the lead who started it follows it (`GET /api/v1/imports/{id}`: phase, done,
//! total, then the report or the error) and may cancel it (`POST
//! /api/v1/imports/{id}/cancel`), which ends it as a local import is cancelled: with a
//! `cancelled` error and the project unchanged. A job is its starter's: anyone else gets
//! 404 for it. Jobs live in memory and are forgotten ten minutes after they end (or when
//! the server stops).

use factdesk_api::dto::{ImportOutcome, ImportProgress, ImportReport};
use factdesk_api::upload::ImportJob;
use factdesk_api::{Progress, Result};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long an ended job can still be read.
const KEPT: Duration = Duration::from_secs(600);

/// One import job.
#[derive(Debug)]
pub struct Job {
    id: u64,
    /// The person who started it: the only one who may see or cancel it.
    owner: String,
    progress: Mutex<ImportProgress>,
    stop: AtomicBool,
    ended: Mutex<Option<(ImportOutcome, Instant)>>,
}

impl Job {
    /// Where the job stands.
    pub fn state(&self) -> ImportJob {
        let progress = self
            .progress
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let outcome = self
            .ended
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .map(|(o, _)| o.clone());
        ImportJob {
            id: self.id,
            progress,
            outcome,
        }
    }

    /// Asks the import to stop at its next step.
    pub fn cancel(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Records how the import ended.
    pub fn finish(&self, result: Result<ImportReport>) {
        let outcome = ImportOutcome::from(result);
        *self.ended.lock().unwrap_or_else(|p| p.into_inner()) = Some((outcome, Instant::now()));
    }

    fn expired(&self) -> bool {
        self.ended
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .is_some_and(|(_, at)| at.elapsed() > KEPT)
    }
}

/// The import's progress reported into its job, and the job's cancel asked of it.
#[derive(Debug)]
pub struct JobProgress(pub Arc<Job>);

impl Progress for JobProgress {
    fn phase(&mut self, name: &str, total: u64) {
        *self.0.progress.lock().unwrap_or_else(|p| p.into_inner()) = ImportProgress {
            phase: name.to_string(),
            done: 0,
            total,
        };
    }

    fn set(&mut self, done: u64) {
        self.0
            .progress
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .done = done;
    }

    fn cancelled(&self) -> bool {
        self.0.stop.load(Ordering::Relaxed)
    }
}

/// The server's jobs.
#[derive(Debug, Default)]
pub struct Jobs {
    next: AtomicU64,
    jobs: Mutex<HashMap<u64, Arc<Job>>>,
}

impl Jobs {
    /// A new job of `owner`'s, not started yet; ended jobs past their time are forgotten.
    pub fn start(&self, owner: &str) -> Arc<Job> {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let job = Arc::new(Job {
            id,
            owner: owner.to_string(),
            progress: Mutex::new(ImportProgress {
                phase: "waiting".into(),
                done: 0,
                total: 0,
            }),
            stop: AtomicBool::new(false),
            ended: Mutex::new(None),
        });
        let mut jobs = self.jobs.lock().unwrap_or_else(|p| p.into_inner());
        jobs.retain(|_, j| !j.expired());
        jobs.insert(id, job.clone());
        job
    }

    /// Job `id` if it is `person`'s.
    pub fn of(&self, id: u64, person: &str) -> Option<Arc<Job>> {
        let jobs = self.jobs.lock().unwrap_or_else(|p| p.into_inner());
        jobs.get(&id).filter(|j| j.owner == person).cloned()
    }
}
