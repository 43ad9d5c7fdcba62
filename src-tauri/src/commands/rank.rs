//! Ranking a project's candidates again from the app (the settings screen's "Re-rank
//! candidates"). As an import, the ranking runs on its own thread with its own connection
//! to the project, reports `rank-progress` events and ends with one `rank-done`; a cancel
//! stops it with no candidate changed. Annotation goes on meanwhile: the ranking reads one
//! snapshot and writes its candidates 1,000 claims to a transaction, keeping those of
//! every claim someone was shown (docs/ranking.md). Connected to a team server it is
//! refused, saying to run `factdesk rank` where the project is: a ranking holds the
//! server's cores for minutes, which its owner, not one lead's window, should decide.

use super::throttle::Throttled;
use crate::state::AppState;
use factdesk_api::dto::{ImportProgress, RankOutcome};
use factdesk_api::rank::{Ranker, DEFAULT_K};
use factdesk_api::{Error, ErrorCode, Project, Result, SystemClock};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tauri::{AppHandle, Emitter, State};

/// Test hook, not for users: each progress report of a ranking waits this many
/// milliseconds, so the end-to-end test sees a ranking under way (and cancels one) on a
/// project small enough to make in seconds.
const PACE: &str = "FACTDESK_TEST_RANK_PACE_MS";

/// The ranking started from this window: where it stands (`None` when none runs) and
/// the flag that asks it to stop.
#[derive(Debug, Default)]
pub struct RankJob {
    stop: Arc<AtomicBool>,
    now: Mutex<Option<ImportProgress>>,
}

impl RankJob {
    fn now(&self) -> MutexGuard<'_, Option<ImportProgress>> {
        // A panic while holding the lock leaves only a progress note behind; keep it.
        self.now.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Marks a ranking as running; refused while one runs (two would rank the same
    /// claims twice over, each as slow as the other).
    fn begin(self: &Arc<Self>) -> Result<Running> {
        let mut now = self.now();
        if now.is_some() {
            return Err(Error::new(
                ErrorCode::Conflict,
                "candidates are being ranked again already: wait for that ranking to end, or cancel it",
            ));
        }
        *now = Some(ImportProgress {
            phase: "starting".into(),
            done: 0,
            total: 0,
        });
        self.stop.store(false, Ordering::Relaxed);
        Ok(Running(self.clone()))
    }
}

/// A ranking under way; dropped (even by a panic), it is over.
#[derive(Debug)]
struct Running(Arc<RankJob>);

impl Drop for Running {
    fn drop(&mut self) {
        *self.0.now() = None;
    }
}

/// Starts ranking the open project's candidates again and returns at once;
/// `rank-progress` events follow, then one `rank-done`. It ranks as an import does: the
/// fused ranker with the project's ranking settings (the semantic ranker within it when
/// `ranking.semantic` is on), five candidates a claim. Leads only, on a project on this
/// computer.
#[tauri::command]
pub fn start_rank(app: AppHandle, state: State<'_, AppState>) -> Result<()> {
    if let Some(remote) = state.remote() {
        return Err(Error::new(
            ErrorCode::Forbidden,
            format!(
                "ranking candidates again is done where the project is: run `factdesk rank PROJECT` on the team server's machine ({}); annotators go on working meanwhile",
                remote.url
            ),
        ));
    }
    let (path, lead) = state.as_lead("rank candidates again", |p, lead| {
        Ok((p.path().to_path_buf(), lead.clone()))
    })?;
    let running = state.ranking.begin()?;
    let pace = std::env::var(PACE)
        .ok()
        .and_then(|ms| ms.parse().ok())
        .map_or(Duration::ZERO, Duration::from_millis);
    std::thread::spawn(move || {
        let (to, job) = (app.clone(), running.0.clone());
        let mut events = Throttled::new(job.stop.clone(), move |p: ImportProgress| {
            *job.now() = Some(p.clone());
            if let Err(e) = to.emit("rank-progress", p) {
                tracing::warn!("cannot send ranking progress: {e}");
            }
        })
        .paced(pace);
        let result = Project::open(&path, Box::new(SystemClock))
            .and_then(|mut p| p.rank(&lead, Ranker::Fused, DEFAULT_K, false, &mut events));
        if let Err(e) = &result {
            tracing::info!("ranking again ended without a report: {e}");
        }
        // Over before it is said to be, so a screen asking at the news finds none running.
        drop(running);
        if let Err(e) = app.emit("rank-done", RankOutcome::from(result)) {
            tracing::warn!("cannot report the end of a ranking: {e}");
        }
    });
    Ok(())
}

/// Asks the running ranking to stop; it ends with a `cancelled` error in `rank-done` and
/// every candidate as it was.
#[tauri::command]
pub fn cancel_rank(state: State<'_, AppState>) {
    state.ranking.stop.store(true, Ordering::Relaxed);
}

/// Where the ranking started from this window stands, so a screen opened meanwhile can
/// follow it; null when none runs.
#[tauri::command]
pub fn ranking_now(state: State<'_, AppState>) -> Option<ImportProgress> {
    state.ranking.now().clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_ranking_at_a_time_and_none_once_it_is_over_even_by_a_panic() {
        let job = Arc::new(RankJob::default());
        let running = job
            .begin()
            .unwrap_or_else(|e| panic!("the first ranking was refused: {e}"));
        assert!(job.now().is_some());
        match job.begin() {
            Ok(_) => panic!("a second ranking started beside the first"),
            Err(e) => assert_eq!(e.code, ErrorCode::Conflict),
        }
        let thread = std::thread::spawn(move || {
            let _running = running;
            panic!("a ranking that panics");
        });
        assert!(thread.join().is_err());
        assert!(job.now().is_none(), "the panicked ranking is over");
        job.stop.store(true, Ordering::Relaxed);
        let _again = job
            .begin()
            .unwrap_or_else(|e| panic!("a ranking after the last was refused: {e}"));
        assert!(
            !job.stop.load(Ordering::Relaxed),
            "a new ranking is not born cancelled"
        );
    }
}
