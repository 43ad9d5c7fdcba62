//! A kind's running sums as answers come and go: the kappa series extended as they
//! change, and an answer's ratings taken back out when its replacement no longer counts.

use super::{Current, KappaPoint, KindState, Parsed, SERIES_POINTS};

/// Counts one more change to the tallies and adds a point to the kappa series when due.
pub(super) fn extend_series(state: &mut KindState, at_ms: i64) {
    state.applied += 1;
    let stride = state.stride.max(1);
    if state.applied.is_multiple_of(stride) {
        let value = state.tally.fleiss(state.rated.len()).ok();
        state.series.push(KappaPoint {
            answers: state.applied,
            at_ms,
            value,
        });
        if state.series.len() > SERIES_POINTS {
            state.stride = stride * 2;
            state
                .series
                .retain(|p| p.answers.is_multiple_of(stride * 2));
        }
    }
}

/// Takes a tallied answer's ratings out of its kind's tally (its replacement picked the
/// trick, so it no longer counts).
pub(super) fn retract(state: &mut KindState, answer: &Current, index: u32, annotator: i64) {
    let Some(units) = state.tasks.get_mut(&answer.task) else {
        return;
    };
    units.counted_raters -= 1;
    match units.counted_raters {
        0 => state.units -= 1,
        1 => state.paired -= 1,
        _ => {}
    }
    if let Some(rated) = state.rated.get_mut(&annotator) {
        *rated -= 1;
        if *rated == 0 {
            state.rated.remove(&annotator);
        }
    }
    let (first, count) = (units.first, units.candidates.len());
    match answer.label {
        Parsed::Category(_) => {
            if state.tally.rating(first, index).is_some() {
                state.ratings -= 1;
            }
            state.tally.set(first, index, None);
        }
        Parsed::Selected(_) => {
            state.ratings -= 1;
            for k in 0..count {
                state.tally.set(first + k, index, None);
            }
            state.masi.set(answer.task, index, None);
        }
    }
    extend_series(state, answer.at_ms);
}
