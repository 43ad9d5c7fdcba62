//! A progress bar on stderr for long work; silent when stderr is not a terminal.

use factdesk_api::Progress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

#[derive(Debug)]
pub struct Bar {
    bar: ProgressBar,
}

impl Bar {
    pub fn new() -> Bar {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        Bar { bar }
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

impl Progress for Bar {
    fn phase(&mut self, name: &str, total: u64) {
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
