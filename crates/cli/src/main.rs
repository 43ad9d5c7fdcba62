//! `factdesk`: the command line for project leads and scripts.
//!
//! Every command calls the same api functions as the desktop app.

mod commands;
mod progress;

use clap::Parser;
use std::process::ExitCode;

// Importing and ranking make tens of millions of small allocations on several threads;
// glibc's allocator took a sixth of an import's time (docs/performance.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("FACTDESK_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        // Colour only for a person at a terminal, not in a script's captured stderr.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    quiet_on_closed_pipe();
    let cli = commands::Cli::parse();
    match commands::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            // Stopped by Ctrl-C: the status a shell gives a program SIGINT ended, so a
            // script can tell a cancel (nothing changed) from a failure.
            let cancelled = e.chain().any(|c| {
                c.downcast_ref::<factdesk_api::Error>()
                    .is_some_and(|a| a.code == factdesk_api::ErrorCode::Cancelled)
            });
            ExitCode::from(if cancelled { 130 } else { 1 })
        }
    }
}

/// `factdesk … | head` closes the pipe early; printing then panics inside `println!`.
/// That is no error of ours: end quietly, with the status a shell gives such a program.
fn quiet_on_closed_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.contains("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(141);
        }
        default(info);
    }));
}
