//! An annotator's pace, from the times of their recent answers.
//!
//! Only the last half hour counts, so a morning's pace does not speak for the afternoon.
//! Within it, a gap longer than five minutes is a break and is left out, and a gap shorter
//! than three seconds counts as three: nobody reads a claim and its candidates faster,
//! and a burst of answers (a correction, a script, a double key press) must not promise
//! thousands of items an hour. At least three gaps are needed before a pace is shown.

/// Answers older than this (before now) do not count.
pub const WINDOW_MS: i64 = 30 * 60_000;
/// A gap longer than this is a break, not work.
pub const BREAK_MS: i64 = 5 * 60_000;
/// The shortest time an item is taken to need.
pub const FLOOR_MS: i64 = 3_000;
/// Gaps needed before a pace is given.
pub const MIN_GAPS: usize = 3;
/// The most items an annotator is told are left. A full count would tell them how many
/// tasks the project has and, as it dropped while they paused, when others answered
/// (hostile pass of session 23); the last few they must see, to know the end is near.
pub const SHOWN_LEFT: u64 = 20;

/// Items per hour from answer times (unix ms, any order) as of `now`, or `None` when
/// there are too few recent answers to say.
pub fn per_hour(times: &[i64], now: i64) -> Option<f64> {
    let mut recent: Vec<i64> = times
        .iter()
        .copied()
        .filter(|&t| t <= now && now - t <= WINDOW_MS)
        .collect();
    recent.sort_unstable();
    let gaps: Vec<i64> = recent
        .windows(2)
        .map(|w| w[1] - w[0])
        .filter(|&g| g <= BREAK_MS)
        .map(|g| g.max(FLOOR_MS))
        .collect();
    if gaps.len() < MIN_GAPS {
        return None;
    }
    let spent: i64 = gaps.iter().sum();
    Some(gaps.len() as f64 * 3_600_000.0 / spent as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 10_000_000_000;

    fn every(ms: i64, n: i64) -> Vec<i64> {
        (0..n).map(|i| NOW - i * ms).collect()
    }

    #[test]
    fn steady_work_gives_its_rate() {
        // One item every 20 seconds: 180 an hour.
        let p = per_hour(&every(20_000, 10), NOW);
        assert_eq!(p.map(|p| p.round()), Some(180.0));
    }

    #[test]
    fn a_burst_is_bounded_by_the_floor() {
        // 40 answers 100 ms apart (the burst that showed "6 413 per hour").
        let p = per_hour(&every(100, 40), NOW);
        assert_eq!(p.map(|p| p.round()), Some(1200.0));
    }

    #[test]
    fn a_break_is_left_out() {
        // Four items a minute apart, an hour-long lunch, then four more: 60 an hour.
        let mut times = every(60_000, 4);
        times.extend((0..4).map(|i| NOW - 4 * 60_000 - 20 * 60_000 - i * 60_000));
        let p = per_hour(&times, NOW);
        assert_eq!(p.map(|p| p.round()), Some(60.0));
    }

    #[test]
    fn old_answers_do_not_count() {
        let times: Vec<i64> = every(10_000, 10).iter().map(|t| t - WINDOW_MS).collect();
        assert_eq!(per_hour(&times, NOW), None);
        // Answers stamped after now (a clock moved back) do not count either.
        let ahead: Vec<i64> = every(10_000, 10).iter().map(|t| t + WINDOW_MS).collect();
        assert_eq!(per_hour(&ahead, NOW), None);
    }

    #[test]
    fn too_few_answers_give_no_pace() {
        assert_eq!(per_hour(&[], NOW), None);
        assert_eq!(per_hour(&every(20_000, 3), NOW), None);
        assert!(per_hour(&every(20_000, 4), NOW).is_some());
    }
}
