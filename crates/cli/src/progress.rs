//! A progress bar on stderr for long work; silent when stderr is not a terminal.

use factdesk_api::Progress;
use indicatif::{HumanDuration, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[derive(Debug)]
pub struct Bar {
    bar: ProgressBar,
    abort_at: Option<String>,
    /// Set by Ctrl-C when the work can be cancelled.
    stop: Option<Arc<AtomicBool>>,
}

/// Test hook, not for users: the process aborts, as if killed, when the phase named by
/// this variable starts (the CLI tests kill an import between storing and ranking).
const ABORT_AT: &str = "FACTDESK_TEST_ABORT_AT_PHASE";
/// Test hook, not for users: the process sends itself Ctrl-C (SIGINT) when the phase named
/// by this variable starts, so the tests can cancel at a known point.
const INTERRUPT_AT: &str = "FACTDESK_TEST_INTERRUPT_AT_PHASE";

impl Bar {
    pub fn new() -> Bar {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        Bar {
            bar,
            abort_at: std::env::var(ABORT_AT).ok(),
            stop: None,
        }
    }

    /// A bar for work that rolls back when cancelled: the first Ctrl-C asks it to stop
    /// (it then leaves the project as it was), a second one ends the process at once.
    pub fn cancellable() -> Bar {
        let stop = Arc::new(AtomicBool::new(false));
        let term = signal_hook::consts::SIGINT;
        // If the handlers cannot be installed, Ctrl-C keeps its default effect, which is
        // safe too: the import is one transaction and a killed one changes nothing.
        let installed = signal_hook::flag::register_conditional_shutdown(term, 130, stop.clone())
            .and_then(|_| signal_hook::flag::register(term, stop.clone()));
        let mut bar = Bar::new();
        bar.stop = installed.is_ok().then_some(stop);
        bar
    }
}

impl Bar {
    /// Whether Ctrl-C was pressed, whether or not the work stopped for it.
    pub fn interrupted(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    }
}

/// Items a second: whole numbers from 10 on, one decimal below (a slow semantic ranking).
fn rate(state: &ProgressState, w: &mut dyn std::fmt::Write) {
    let per_sec = state.per_sec();
    let _ = match per_sec {
        r if !r.is_finite() || state.pos() == 0 => write!(w, "starting"),
        r if r >= 10.0 => write!(w, "{r:.0}/s"),
        r => write!(w, "{r:.1}/s"),
    };
}

/// Time left, unknown until the first item is done (not "0s" while the first step runs).
fn left(state: &ProgressState, w: &mut dyn std::fmt::Write) {
    let _ = match state.pos() {
        0 => write!(w, "time left unknown"),
        _ => write!(w, "{} left", HumanDuration(state.eta())),
    };
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

impl Progress for Bar {
    fn phase(&mut self, name: &str, total: u64) {
        // With FACTDESK_LOG=debug the log's timestamps time each phase.
        tracing::debug!(phase = name, total, "phase");
        if self.abort_at.as_deref() == Some(name) {
            std::process::abort();
        }
        if std::env::var(INTERRUPT_AT).is_ok_and(|at| at == name) {
            if let Err(e) = signal_hook::low_level::raise(signal_hook::consts::SIGINT) {
                tracing::warn!("cannot interrupt: {e}");
            }
        }
        let style = if total > 0 {
            // As wide as the terminal, so an 80-column one does not wrap it.
            ProgressStyle::with_template("{msg:>12} [{wide_bar}] {pos}/{len} ({rate}, {left})")
                .map(|s| s.with_key("rate", rate).with_key("left", left))
        } else {
            ProgressStyle::with_template("{msg:>12} {spinner} {pos}")
        };
        if let Ok(style) = style {
            self.bar.set_style(style.progress_chars("=> "));
        }
        self.bar.set_length(total);
        self.bar.set_position(0);
        self.bar.set_message(name.to_string());
    }

    fn set(&mut self, done: u64) {
        self.bar.set_position(done);
    }

    fn cancelled(&self) -> bool {
        let stop = self.interrupted();
        if stop {
            self.bar.set_message("cancelling");
        }
        stop
    }
}
