//! The dashboard of a project opened in the app, pushed rather than polled: for a file
//! the operating system tells a watcher when the file or its write-ahead log is written
//! (by this app, `factdesk submit`, a merge, any process); for a PostgreSQL database the
//! database announces each committed answer to a listener of the app's (LISTEN/NOTIFY,
//! whichever process committed it). Only then does the loop read the new answers. With
//! nothing written it sleeps until the snapshot is due again for the paces to age.
//! Bootstrap intervals need every answer, so one more thread, holding its own connection
//! for the whole watch, computes them one at a time and sends them back as they come.

use super::RESEND;
use factdesk_api::agreement::AgreementRequest;
use factdesk_api::dashboard::{Dashboard, DashboardState, Intervals};
use factdesk_api::{AnswerListener, Clock, Error, ErrorCode, Lead, Project, Result, SystemClock};
use notify::{EventKind, RecursiveMode, Watcher};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::time::{Duration, Instant};

/// How long after the last write the project is read once more: a file's write is
/// announced as its bytes reach the log, a moment before the commit they belong to is
/// visible (a database announces its commits, which the first read already sees).
const SETTLE: Duration = Duration::from_millis(100);

/// Intervals with how long they took.
type Computed = (Result<Intervals>, Duration);

/// What wakes the loop.
#[derive(Debug)]
pub(crate) enum Wake {
    /// The project was written.
    Written,
    /// The window asked for the snapshot again, or to stop.
    Asked,
    /// Intervals were computed.
    Intervals(Computed),
}

/// Where the loop sends what it sees, and asks whether it is still wanted.
pub(crate) trait Sink {
    fn wanted(&self) -> bool;
    /// Whether the window asked for the snapshot again; clears the request.
    fn resend_asked(&self) -> bool;
    fn snapshot(&self, dashboard: Dashboard);
    fn error(&self, error: Error);
    /// Called before every read of the project's new answers.
    fn reading(&self) {}
}

/// Follows the project at `path` for `lead` until `sink` no longer wants it. `send` and
/// `woken` are the two ends of the loop's wake-up channel.
pub(crate) fn follow(
    path: &Path,
    lead: &Lead,
    sink: &dyn Sink,
    send: Sender<Wake>,
    woken: Receiver<Wake>,
) {
    let project = match Project::open(path, Box::new(SystemClock)) {
        Ok(p) => p,
        Err(e) => {
            sink.error(e);
            return;
        }
    };
    // Kept for as long as the loop runs: dropping it stops the notifications.
    let _writes = match writes(&project, path, send.clone()) {
        Ok(writes) => writes,
        Err(e) => {
            sink.error(e);
            return;
        }
    };
    let ask = intervals(path.to_path_buf(), lead.clone(), send);
    let mut state = DashboardState::new();
    let mut written = true;
    // When to read once more after the last write (see SETTLE).
    let mut settle: Option<Instant> = None;
    let mut changed = false;
    let mut computing = false;
    let mut next_intervals = Instant::now();
    let mut first = true;
    let mut sent = Instant::now();
    while sink.wanted() {
        if written {
            sink.reading();
            match state.refresh(&project, lead) {
                Ok(more) => changed |= more,
                Err(e) => sink.error(e),
            }
        }
        if changed || first || sink.resend_asked() || sent.elapsed() >= RESEND {
            sink.snapshot(state.snapshot(SystemClock.now_ms()));
            (changed, first, sent) = (false, false, Instant::now());
        }
        let stale = state.intervals_as_of() != Some(state.last_annotation_id());
        let now = Instant::now();
        if stale && !computing && now >= next_intervals {
            computing = ask.send(()).is_ok();
        }
        let mut wait = RESEND.saturating_sub(sent.elapsed());
        if stale && !computing {
            wait = wait.min(next_intervals.saturating_duration_since(now));
        }
        if let Some(at) = settle {
            wait = wait.min(at.saturating_duration_since(now));
        }
        written = false;
        let mut wake = match woken.recv_timeout(wait) {
            Ok(w) => Some(w),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => return,
        };
        if settle.is_some_and(|at| Instant::now() >= at) {
            (written, settle) = (true, None);
        }
        // Many notifications come for one write: they make one read.
        while let Some(w) = wake {
            match w {
                Wake::Written => {
                    written = true;
                    settle = Some(Instant::now() + SETTLE);
                }
                Wake::Asked => {}
                Wake::Intervals((result, took)) => {
                    computing = false;
                    // Never more than a third of one core on intervals.
                    next_intervals = Instant::now() + took * 2;
                    match result {
                        Ok(intervals) => {
                            state.set_intervals(intervals);
                            changed = true;
                        }
                        Err(e) => tracing::warn!("dashboard intervals: {e}"),
                    }
                }
            }
            wake = woken.try_recv().ok();
        }
    }
}

/// What tells the loop the project was written, for as long as it is kept.
enum Writes {
    File {
        _watcher: notify::RecommendedWatcher,
    },
    /// The database's listener runs on a thread that ends once this is dropped.
    Database { _listening: Sender<()> },
}

/// Sends [`Wake::Written`] whenever the project is written: a file's watcher, or a
/// database's listener.
fn writes(project: &Project, path: &Path, send: Sender<Wake>) -> Result<Writes> {
    match project.answer_listener()? {
        Some(listener) => Ok(Writes::Database {
            _listening: listen(listener, send),
        }),
        None => Ok(Writes::File {
            _watcher: watch_writes(path, send)?,
        }),
    }
}

/// A watcher that sends [`Wake::Written`] whenever the project file or its log changes.
fn watch_writes(path: &Path, send: Sender<Wake>) -> Result<notify::RecommendedWatcher> {
    let failed = |e: notify::Error| {
        Error::new(
            ErrorCode::Io,
            format!("cannot follow {} for new answers: {e}", path.display()),
        )
    };
    let name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    let mut log = name.clone();
    log.push("-wal");
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else { return };
        let written = matches!(event.kind, EventKind::Modify(_) | EventKind::Create(_));
        let ours = event
            .paths
            .iter()
            .any(|p| p.file_name().is_some_and(|f| f == name || f == log));
        if written && ours {
            let _ = send.send(Wake::Written);
        }
    })
    .map_err(failed)?;
    // The folder, not the file: the log is made and removed as the project is used.
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    watcher
        .watch(folder, RecursiveMode::NonRecursive)
        .map_err(failed)?;
    Ok(watcher)
}

/// The thread that sends [`Wake::Written`] for each commit `listener` hears (and once
/// after its connection was lost and opened again); it ends, within the listener's wait,
/// once the loop drops the returned sender or stops receiving.
fn listen(listener: AnswerListener, send: Sender<Wake>) -> Sender<()> {
    let (keep, kept) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        let wanted = || !matches!(kept.try_recv(), Err(TryRecvError::Disconnected));
        listener.follow(|| send.send(Wake::Written).is_ok(), wanted);
    });
    keep
}

/// The thread that computes intervals when asked, on a project it opens once; ends when
/// the loop drops the returned sender.
fn intervals(path: PathBuf, lead: Lead, send: Sender<Wake>) -> Sender<()> {
    let (ask, asked) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        let mut project: Option<Project> = None;
        while asked.recv().is_ok() {
            let started = Instant::now();
            let result = match &project {
                Some(p) => p.dashboard_intervals(&lead, &AgreementRequest::default()),
                None => Project::open(&path, Box::new(SystemClock)).and_then(|p| {
                    let result = p.dashboard_intervals(&lead, &AgreementRequest::default());
                    project = Some(p);
                    result
                }),
            };
            if send
                .send(Wake::Intervals((result, started.elapsed())))
                .is_err()
            {
                return;
            }
        }
    });
    ask
}

#[cfg(test)]
mod tests {
    use super::*;
    use factdesk_api::annotate::Answer;
    use factdesk_api::annotators::Role;
    use factdesk_api::import::{import, ImportRequest};
    use factdesk_api::tasks::TaskKind;
    use factdesk_api::NoProgress;
    use std::io::Write;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};

    fn ok<T>(r: Result<T>) -> T {
        r.unwrap_or_else(|e| panic!("{e}"))
    }

    #[derive(Default)]
    struct Recorded {
        wanted: AtomicBool,
        reads: AtomicUsize,
        snapshots: Mutex<Vec<Dashboard>>,
    }

    impl Sink for Recorded {
        fn wanted(&self) -> bool {
            self.wanted.load(Ordering::SeqCst)
        }
        fn resend_asked(&self) -> bool {
            false
        }
        fn snapshot(&self, dashboard: Dashboard) {
            self.snapshots
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(dashboard);
        }
        fn error(&self, error: Error) {
            panic!("the dashboard failed: {error}");
        }
        fn reading(&self) {
            self.reads.fetch_add(1, Ordering::SeqCst);
        }
    }

    impl Recorded {
        /// Waits (at most 10 s, for a loaded machine) for a snapshot that `fits`.
        fn until(&self, fits: impl Fn(&Dashboard) -> bool) -> Dashboard {
            let deadline = Instant::now() + Duration::from_secs(10);
            loop {
                let seen = self.snapshots.lock().unwrap_or_else(|p| p.into_inner());
                if let Some(d) = seen.iter().rev().find(|d| fits(d)) {
                    return d.clone();
                }
                let last = seen
                    .last()
                    .map(|d| (d.last_annotation_id, d.intervals_as_of));
                let count = seen.len();
                drop(seen);
                assert!(
                    Instant::now() < deadline,
                    "no such snapshot in 10 s: {count} snapshots, the last (last answer, intervals as of) {last:?}"
                );
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }

    /// A project of three claims with evidence tasks, and ana to answer them, at `path` (a
    /// file, or a database's URL).
    fn project(dir: &Path, path: PathBuf) -> PathBuf {
        let docs = dir.join("docs.jsonl");
        let claims = dir.join("claims.jsonl");
        let mut d = ok(std::fs::File::create(&docs).map_err(|e| Error::io("docs", &e)));
        let mut c = ok(std::fs::File::create(&claims).map_err(|e| Error::io("claims", &e)));
        for i in 0..3 {
            let text = format!("Town {i} built a lighthouse in 18{i}0. The port closed in 19{i}0. A ferry ran to the island. Tourism grew later.");
            let _ = writeln!(
                d,
                "{}",
                serde_json::json!({"id": format!("d{i}"), "text": text})
            );
            let claim = format!("Town {i} built a lighthouse in 18{i}0");
            let _ = writeln!(
                c,
                "{}",
                serde_json::json!({"id": format!("c{i}"), "claim": claim, "doc_ids": [format!("d{i}")]})
            );
        }
        let mut p = ok(Project::create(&path, Box::new(SystemClock)));
        let lead = ok(p.as_lead(&ok(p.lead_or_owner(None)), "set up"));
        let req = ImportRequest {
            claims: vec![claims],
            documents: vec![docs],
            ..Default::default()
        };
        ok(import(&mut p, &lead, &req, &mut NoProgress));
        ok(p.add_annotator(&lead, "ana", Role::Annotator));
        ok(p.create_tasks(&lead, TaskKind::Evidence, Some(1)));
        path
    }

    /// A fresh database on the server FACTDESK_TEST_PG names: its URL, an admin client of
    /// the server and its name; `None` when the variable is unset (scripts/test-all sets
    /// it for these tests).
    fn fresh_database() -> Option<(PathBuf, postgres::Client, String)> {
        let server = std::env::var("FACTDESK_TEST_PG")
            .ok()
            .filter(|s| !s.is_empty())?;
        let mut admin =
            postgres::Client::connect(&server, postgres::NoTls).unwrap_or_else(|e| panic!("{e}"));
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        // The api's tests drop databases named fdtest_PID_… once that process has ended.
        let name = format!("fdtest_{}_app_{stamp}", std::process::id());
        admin
            .batch_execute(&format!("CREATE DATABASE \"{name}\""))
            .unwrap_or_else(|e| panic!("{e}"));
        let base = server.split('?').next().unwrap_or(&server);
        let (head, _) = base.rsplit_once('/').unwrap_or((base, ""));
        Some((PathBuf::from(format!("{head}/{name}")), admin, name))
    }

    #[test]
    fn an_answer_written_by_another_connection_is_pushed_and_an_idle_project_is_not_read() {
        let dir = ok(tempfile::tempdir().map_err(|e| Error::io("a temporary folder", &e)));
        let path = project(dir.path(), dir.path().join("p.fdesk"));
        pushed_not_polled(&path);
    }

    #[test]
    fn on_postgres_an_answer_committed_by_another_connection_is_pushed_and_an_idle_project_is_not_read(
    ) {
        let Some((url, mut admin, name)) = fresh_database() else {
            eprintln!("FACTDESK_TEST_PG is not set: the PostgreSQL dashboard test did not run");
            return;
        };
        let dir = ok(tempfile::tempdir().map_err(|e| Error::io("a temporary folder", &e)));
        let path = project(dir.path(), url);
        pushed_not_polled(&path);
        let _ = admin.batch_execute(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"));
    }

    /// The dashboard of the project at `path` reads nothing while nothing is written, and
    /// shows an answer committed through another connection.
    fn pushed_not_polled(path: &Path) {
        let opened = ok(Project::open(path, Box::new(SystemClock)));
        let lead = ok(opened.as_lead(&ok(opened.lead_or_owner(None)), "watch the dashboard"));
        drop(opened);
        let sink = Arc::new(Recorded::default());
        sink.wanted.store(true, Ordering::SeqCst);
        let (send, woken) = mpsc::channel();
        let wake = send.clone();
        let follower = {
            let (sink, path, lead) = (sink.clone(), path.to_path_buf(), lead.clone());
            std::thread::spawn(move || follow(&path, &lead, &*sink, send, woken))
        };
        // The first snapshot, then its intervals (computed on the other thread).
        sink.until(|d| d.intervals_as_of == Some(d.last_annotation_id));
        // Opening a project file for the intervals wrote to it: let that read settle.
        std::thread::sleep(Duration::from_millis(500));
        let reads = sink.reads.load(Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(1500));
        assert_eq!(
            sink.reads.load(Ordering::SeqCst),
            reads,
            "the project was read with nothing written"
        );

        // Ana answers through a connection of her own, as `factdesk submit` would.
        let mut theirs = ok(Project::open(path, Box::new(SystemClock)));
        let ana = ok(theirs.actor("ana"));
        let next = ok(theirs.next_item(&ana, TaskKind::Evidence));
        let item = next.item.unwrap_or_else(|| panic!("no item for ana"));
        let answered = Instant::now();
        ok(theirs.submit(
            &ana,
            &Answer {
                task_id: item.task_id,
                no_evidence: true,
                ..Default::default()
            },
        ));
        let seen = sink.until(|d| d.last_annotation_id > 0);
        eprintln!(
            "the answer reached the dashboard in {:?} (last answer {})",
            answered.elapsed(),
            seen.last_annotation_id
        );
        assert!(sink.reads.load(Ordering::SeqCst) > reads);
        // Stopped as the window stops it: no longer wanted, and woken to see it.
        sink.wanted.store(false, Ordering::SeqCst);
        let _ = wake.send(Wake::Asked);
        let _ = follower.join();
    }
}
