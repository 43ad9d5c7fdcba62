//! One annotator's activity on one kind: answers, rejected ones, time spent, and the times
//! of their latest answers, from which the pace is taken as the work screen takes it
//! (`factdesk_core::pace`: the last half hour, breaks left out, bounded).

use std::collections::VecDeque;

/// Most answer times a pace is taken from, as on the work screen.
const PACE_ANSWERS: usize = 200;

#[derive(Debug, Clone, Default)]
pub(super) struct Activity {
    pub(super) answers: u64,
    /// Current answers that picked the trick.
    pub(super) rejected: u64,
    pub(super) active_ms: i64,
    pub(super) last_at: Option<i64>,
    /// Times of the latest answers, within the pace window of the newest.
    recent: VecDeque<i64>,
}

impl Activity {
    /// Notes an answer made at `at` (unix ms) for the pace.
    pub(super) fn record(&mut self, at: i64) {
        self.recent.push_back(at);
        let newest = self.recent.iter().copied().max().unwrap_or(at);
        while self.recent.len() > PACE_ANSWERS
            || self
                .recent
                .front()
                .is_some_and(|&t| newest - t > factdesk_core::pace::WINDOW_MS)
        {
            self.recent.pop_front();
        }
    }

    /// Items per hour as of `now_ms`, as the work screen gives it; `None` with too few
    /// recent answers.
    pub(super) fn pace(&self, now_ms: i64) -> Option<f64> {
        let times: Vec<i64> = self.recent.iter().copied().collect();
        factdesk_core::pace::per_hour(&times, now_ms)
    }
}
