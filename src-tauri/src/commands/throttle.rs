//! A background job's progress (an import, a ranking) as events to the window: at most
//! ten a second, so a fast job does not flood it, yet always each phase's start and end.

use factdesk_api::dto::ImportProgress;
use factdesk_api::Progress;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Events at most this often.
const EVERY: Duration = Duration::from_millis(100);

/// Passes progress to `send` (which emits the job's own event), throttled; the job stops
/// when `stop` is set.
pub struct Throttled<F: FnMut(ImportProgress)> {
    send: F,
    phase: String,
    total: u64,
    last: Option<Instant>,
    stop: Arc<AtomicBool>,
    /// How long each report waits (a test hook's; zero otherwise).
    pace: Duration,
}

impl<F: FnMut(ImportProgress)> std::fmt::Debug for Throttled<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Throttled")
            .field("phase", &self.phase)
            .field("total", &self.total)
            .finish_non_exhaustive()
    }
}

impl<F: FnMut(ImportProgress)> Throttled<F> {
    pub fn new(stop: Arc<AtomicBool>, send: F) -> Throttled<F> {
        Throttled {
            send,
            phase: String::new(),
            total: 0,
            last: None,
            stop,
            pace: Duration::ZERO,
        }
    }

    /// Each report waits `pace`: a job slowed down for a test to watch.
    pub fn paced(mut self, pace: Duration) -> Throttled<F> {
        self.pace = pace;
        self
    }

    fn emit(&mut self, done: u64) {
        (self.send)(ImportProgress {
            phase: self.phase.clone(),
            done,
            total: self.total,
        });
        self.last = Some(Instant::now());
    }
}

impl<F: FnMut(ImportProgress)> Progress for Throttled<F> {
    fn phase(&mut self, name: &str, total: u64) {
        self.phase = name.to_string();
        self.total = total;
        self.emit(0);
    }

    fn set(&mut self, done: u64) {
        if !self.pace.is_zero() {
            std::thread::sleep(self.pace);
        }
        if self.last.is_none_or(|t| t.elapsed() >= EVERY) || done == self.total {
            self.emit(done);
        }
    }

    fn cancelled(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_most_ten_a_second_but_always_a_phases_start_and_end() {
        let mut sent = Vec::new();
        let stop = Arc::new(AtomicBool::new(false));
        {
            let mut events = Throttled::new(stop.clone(), |p: ImportProgress| sent.push(p.done));
            events.phase("ranking", 1000);
            for done in (32..=1000).step_by(32).chain([1000]) {
                events.set(done);
            }
            assert!(!events.cancelled());
            stop.store(true, Ordering::Relaxed);
            assert!(events.cancelled());
        }
        // The loop takes far less than 100 ms: the start and the end go out, and little
        // else even on a machine busy enough to pause this thread.
        assert_eq!(sent.first(), Some(&0));
        assert_eq!(sent.last(), Some(&1000));
        assert!(sent.len() <= 4, "{sent:?}");
    }
}
