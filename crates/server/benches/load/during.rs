//! A lead's command run beside the annotators (`--during`), and what their submits met
//! while it ran.

use std::time::{Duration, Instant};

/// When the lead's command ran, in seconds into the run, and how it ended.
pub struct Lead {
    command: String,
    from: f64,
    to: f64,
    success: bool,
}

/// Runs `command` in a shell `after` into the run that began at `started`.
pub async fn run(command: String, after: Duration, started: Instant) -> Lead {
    tokio::time::sleep(after).await;
    let from = started.elapsed().as_secs_f64();
    let shell = command.clone();
    let status = tokio::task::spawn_blocking(move || {
        std::process::Command::new("sh")
            .args(["-c", &shell])
            .stdout(std::process::Stdio::null())
            .status()
    })
    .await;
    let to = started.elapsed().as_secs_f64();
    let success = matches!(status, Ok(Ok(s)) if s.success());
    println!(
        "lead's command {command:?} ran from {from:.1} s to {to:.1} s ({:.1} s){}",
        to - from,
        if success { "" } else { ", and FAILED" }
    );
    Lead {
        command,
        from,
        to,
        success,
    }
}

/// Issue 31's targets for the submits (when begun, ms with retries, 503s met) that
/// began while the lead's command ran, in a run of `elapsed` seconds.
pub fn verdicts(lead: &Lead, submits: &[(f64, f64, u64)], elapsed: f64) -> bool {
    let mut during: Vec<f64> = Vec::new();
    let mut unavailable = 0;
    for &(at, ms, met) in submits {
        if at >= lead.from && at <= lead.to {
            during.push(ms);
            unavailable += met;
        }
    }
    during.sort_by(f64::total_cmp);
    let p99 = super::percentile(&during, 0.99);
    println!(
        "submits begun while {:?} ran: {}, p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms, {unavailable} answers 503",
        lead.command,
        during.len(),
        super::percentile(&during, 0.50),
        p99,
        during.last().copied().unwrap_or(f64::NAN)
    );
    let mut pass = super::verdict(
        lead.success,
        "the lead's command succeeded",
        lead.success.to_string(),
    );
    pass &= super::verdict(
        lead.to <= elapsed,
        "the run outlasted the lead's command",
        format!("command ended at {:.1} s, run at {elapsed:.1} s", lead.to),
    );
    pass &= super::verdict(
        !during.is_empty() && p99 <= 1000.0,
        "submit p99 <= 1 s while the lead's command ran (with retries)",
        format!("{p99:.1} ms over {} submits", during.len()),
    );
    pass &= super::verdict(
        unavailable == 0,
        "no 503 while it ran",
        unavailable.to_string(),
    );
    pass
}
