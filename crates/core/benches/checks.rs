//! What the refutation checks cost as a person types: ten thousand checks of written
//! refutations against their claims, which must take well under a second (the checks run
//! on every key press). Run with `cargo bench -p factdesk-core --bench checks`; the
//! figure goes to docs/performance.md. The machine may be shared, so the load average is
//! printed beside the time, with a PASS/FAIL line against the target; nothing fails a
//! test run (`cargo test --benches` runs it once, small, as a smoke test).

use factdesk_core::checks::{blocking, check_refutation, CheckSettings};
use std::time::Instant;

/// Issue 37's figure: ten thousand checks, in seconds.
const TARGET_S: f64 = 1.0;

const PAIRS: [(&str, &str); 4] = [
    (
        "Hydroxychloroquine fails to prevent covid-19",
        "Hydroxychloroquine succeeds in preventing covid-19",
    ),
    ("The vaccine is effective", "The vaccine isn't effective"),
    (
        "Covid vaccines cause infertility in young women",
        "Covid vaccines prevent infertility in young women",
    ),
    (
        "It is not true that 5G towers spread the coronavirus",
        "5G towers spread the flu",
    ),
];

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// Seconds `n` checks take, cycling through the pairs; the blocked count keeps the work
/// from being optimised away.
fn round(n: usize) -> (f64, usize) {
    let settings = CheckSettings::default();
    let started = Instant::now();
    let mut blocked = 0;
    for i in 0..n {
        let (original, written) = PAIRS[i % PAIRS.len()];
        let results = check_refutation(original, written, &settings);
        blocked += usize::from(blocking(&results).is_some());
    }
    (
        started.elapsed().as_secs_f64(),
        std::hint::black_box(blocked),
    )
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let (n, rounds) = if full { (10_000, 15) } else { (400, 1) };
    // One round to warm caches and the allocator.
    round(n.min(1_000));
    let mut seconds: Vec<f64> = (0..rounds).map(|_| round(n).0).collect();
    seconds.sort_by(f64::total_cmp);
    let median = seconds[seconds.len() / 2];
    let best = seconds[0];
    println!(
        "{n} refutation checks: median {:.1} ms, best {:.1} ms ({:.2} µs per check; {rounds} rounds; load {})",
        median * 1e3,
        best * 1e3,
        median / n as f64 * 1e6,
        load_average()
    );
    if full {
        let verdict = if median < TARGET_S { "PASS" } else { "FAIL" };
        println!("{verdict}: 10,000 checks in {median:.3} s (target < {TARGET_S} s)");
    }
}
