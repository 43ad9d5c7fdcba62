//! Strict majority vote, the default aggregation and the one a lead can explain in a line.

use super::Vote;

/// Strict majority per item: the category chosen by more than half of that item's votes;
/// None when no category has more than half or the item has no votes.
///
/// Votes naming an item or category outside `items` / `categories` are ignored, so a caller's
/// stale index cannot panic here.
pub fn majority(votes: &[Vote], items: usize, categories: usize) -> Vec<Option<usize>> {
    let mut counts = vec![vec![0usize; categories]; items];
    for v in votes {
        if v.item < items && v.category < categories {
            counts[v.item][v.category] += 1;
        }
    }
    counts
        .iter()
        .map(|row| {
            let total: usize = row.iter().sum();
            // At most one category can hold more than half, so the first found is the one.
            row.iter().position(|&n| 2 * n > total)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(item: usize, annotator: usize, category: usize) -> Vote {
        Vote {
            item,
            annotator,
            category,
        }
    }

    #[test]
    fn more_than_half_wins() {
        let votes = [v(0, 0, 1), v(0, 1, 1), v(0, 2, 0)];
        assert_eq!(majority(&votes, 1, 2), vec![Some(1)]);
    }

    #[test]
    fn a_tie_is_no_majority() {
        let votes = [
            v(0, 0, 1),
            v(0, 1, 0),
            v(1, 0, 2),
            v(1, 1, 2),
            v(1, 2, 0),
            v(1, 3, 1),
        ];
        assert_eq!(majority(&votes, 2, 3), vec![None, None]);
    }

    #[test]
    fn plurality_without_more_than_half_is_no_majority() {
        let votes = [v(0, 0, 0), v(0, 1, 0), v(0, 2, 1), v(0, 3, 2)];
        assert_eq!(majority(&votes, 1, 3), vec![None]);
    }

    #[test]
    fn items_without_votes_and_single_votes() {
        let votes = [v(1, 4, 2)];
        assert_eq!(majority(&votes, 3, 3), vec![None, Some(2), None]);
        assert!(majority(&[], 0, 3).is_empty());
    }

    #[test]
    fn out_of_range_votes_are_ignored() {
        let votes = [v(0, 0, 1), v(5, 0, 1), v(0, 1, 9)];
        assert_eq!(majority(&votes, 1, 2), vec![Some(1)]);
    }
}
