//! Where the trick's passage sits among the item's real sentences.
//!
//! Every option's passage is its sentence among its document's sentences that are not
//! options, so a candidate's place is a gap between two of those: how many come before
//! it. Candidates from one document sit in nearby gaps and share neighbours; a trick
//! shown in its own document shared none ("the passage that overlaps least" found it in
//! 200 of 200 items), and one dropped into a random gap of an item's document sat where
//! candidates rarely do ("marked last" found it 112 times in 200).
//!
//! So the trick copies the item's own layout: it is hosted by the document of a
//! candidate drawn among the options (a document holding more of them hosts it as often
//! as a candidate comes from there), and stands in a gap whose nearest candidate is
//! exactly as far as a model candidate's nearest fellow, the model drawn among that
//! document's candidates. A model alone in its document gives a gap whose passage shares
//! nothing with the candidates', as a lone candidate's shares nothing (issue 31, item 1).

use factdesk_core::seeded::Seeded;

/// A candidate's place: its document and its gap (the document's non-option sentences
/// before it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Seat {
    pub doc: i64,
    pub gap: usize,
}

/// Where the trick stands: a gap of one candidate's document, among `gaps(doc)` gaps
/// (the document's non-option sentences plus one), each passage `around` sentences to
/// a side.
pub(crate) fn place(
    seats: &[Seat],
    gaps: &dyn Fn(i64) -> usize,
    around: usize,
    draw: &mut Seeded,
) -> Option<Seat> {
    if seats.is_empty() {
        return None;
    }
    let host = seats[draw.below(seats.len() as u64) as usize];
    let fellows: Vec<usize> = (0..seats.len())
        .filter(|&i| seats[i].doc == host.doc)
        .collect();
    let model = fellows[draw.below(fellows.len() as u64) as usize];
    let count = gaps(host.doc).max(1);
    let nearest = |g: usize| nearest_in(seats, host.doc, g);
    let pick = |from: Vec<usize>, draw: &mut Seeded| {
        (!from.is_empty()).then(|| from[draw.below(from.len() as u64) as usize])
    };
    let gap = match nearest_fellow(seats, model) {
        // Exactly that far from the nearest candidate: a gap merely that far from the host
        // would often sit nearer another candidate and share more than candidates do.
        Some(d) => {
            pick((0..count).filter(|&g| nearest(g) == d).collect(), draw).unwrap_or(host.gap)
        }
        // Far enough that its passage shares no sentence with a candidate's (at least
        // `2 * around` gaps from each), or else as far as the document allows.
        None => pick(
            (0..count).filter(|&g| nearest(g) >= 2 * around).collect(),
            draw,
        )
        .unwrap_or_else(|| (0..count).max_by_key(|&g| nearest(g)).unwrap_or(0)),
    };
    Some(Seat { doc: host.doc, gap })
}

/// How many gaps lie between candidate `i` and its nearest fellow in the same document;
/// `None` when it has none.
fn nearest_fellow(seats: &[Seat], i: usize) -> Option<usize> {
    let me = seats[i];
    seats
        .iter()
        .enumerate()
        .filter(|(j, s)| *j != i && s.doc == me.doc)
        .map(|(_, s)| s.gap.abs_diff(me.gap))
        .min()
}

/// How many gaps lie between gap `g` of `doc` and the nearest candidate there.
fn nearest_in(seats: &[Seat], doc: i64, g: usize) -> usize {
    seats
        .iter()
        .filter(|s| s.doc == doc)
        .map(|s| s.gap.abs_diff(g))
        .min()
        .unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seat(doc: i64, gap: usize) -> Seat {
        Seat { doc, gap }
    }

    fn places(seats: &[Seat], gaps: usize, draws: u64) -> Vec<Seat> {
        (0..draws)
            .filter_map(|k| place(seats, &|_| gaps, 3, &mut Seeded::new(k)))
            .collect()
    }

    #[test]
    fn candidates_sharing_a_gap_give_the_trick_theirs() {
        let seats = [seat(1, 0), seat(1, 0), seat(1, 0), seat(1, 0)];
        assert!(places(&seats, 4, 200).iter().all(|s| *s == seat(1, 0)));
    }

    #[test]
    fn the_trick_stands_as_far_from_the_candidates_as_they_stand_from_each_other() {
        // Gaps 2, 5 and 8 of one document: each candidate's nearest fellow is 3 gaps
        // away, and the only gap whose nearest candidate is 3 away is 11.
        let seats = [seat(1, 2), seat(1, 5), seat(1, 8)];
        assert!(places(&seats, 14, 300).iter().all(|s| *s == seat(1, 11)));
    }

    #[test]
    fn a_candidate_alone_in_its_document_gives_a_place_that_shares_nothing() {
        // One candidate in each of two documents of 20 gaps.
        let seats = [seat(1, 3), seat(2, 10)];
        for s in places(&seats, 20, 200) {
            let mine = seats.iter().find(|c| c.doc == s.doc).map(|c| c.gap);
            assert!(mine.is_some_and(|g| g.abs_diff(s.gap) >= 6), "{s:?}");
        }
        assert!(place(&[], &|_| 3, 3, &mut Seeded::new(1)).is_none());
    }

    #[test]
    fn without_a_gap_far_enough_the_farthest_is_taken() {
        // Three gaps, the candidate at the first: the last is as far as it gets.
        let seats = [seat(1, 0), seat(2, 0)];
        assert!(places(&seats, 3, 50).iter().all(|s| s.gap == 2));
    }
}
