//! A progress bar on stderr for long work; silent when stderr is not a terminal.

use factdesk_api::Progress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

#[derive(Debug)]
pub struct Bar {
    bar: ProgressBar,
    abort_at: Option<String>,
}

/// Test hook, not for users: the process aborts, as if killed, when the phase named by
/// this variable starts (the CLI tests kill an import between storing and ranking).
const ABORT_AT: &str = "FACTDESK_TEST_ABORT_AT_PHASE";

impl Bar {
    pub fn new() -> Bar {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        Bar {
            bar,
            abort_at: std::env::var(ABORT_AT).ok(),
        }
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

impl Progress for Bar {
    fn phase(&mut self, name: &str, total: u64) {
        if self.abort_at.as_deref() == Some(name) {
            std::process::abort();
        }
        let style = if total > 0 {
            ProgressStyle::with_template("{msg:>12} [{bar:40}] {pos}/{len} ({per_sec}, {eta})")
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
}
