//! Disagreement categories: why annotators disagreed on a task, as the lead judged when
//! settling it. The project keeps a list (a setting); a decision names one of them beside
//! its free-text reason, and the report counts decisions per category, so a team can say
//! how much of its disagreement was the item, the guideline or a slip.
//!
//! This module knows the list and the note; it reads nothing from the project, so the
//! settings, the adjudication and the report all depend on it and it on none of them.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Factdesk's categories for a new project, each a cause a lead can tell from the answers
/// and the item. A team with its own typology replaces them in the settings.
pub const DEFAULT_CATEGORIES: [&str; 6] = [
    "ambiguous item",
    "missing context",
    "guideline gap",
    "annotator slip",
    "judgement call",
    "other",
];

/// The most categories a project can list: more is a taxonomy no lead picks from
/// quickly, and the report's table stays readable.
pub const MAX_CATEGORIES: usize = 20;

/// The longest category name, in characters.
pub const MAX_CATEGORY_CHARS: usize = 40;

/// The default list, as a setting holds it.
pub fn default_categories() -> Vec<String> {
    DEFAULT_CATEGORIES
        .iter()
        .map(|c| (*c).to_string())
        .collect()
}

/// Why a list cannot be the project's categories, in words for the settings screen.
pub fn list_problem(list: &[String]) -> Option<String> {
    if list.len() > MAX_CATEGORIES {
        return Some(format!(
            "at most {MAX_CATEGORIES} categories, not {}",
            list.len()
        ));
    }
    for (i, name) in list.iter().enumerate() {
        let trimmed = name.trim();
        if trimmed.is_empty() {
            return Some(format!("category {} is empty; name it or remove it", i + 1));
        }
        if trimmed != name {
            return Some(format!(
                "category {:?} starts or ends with spaces; write it without them",
                name
            ));
        }
        if trimmed.chars().count() > MAX_CATEGORY_CHARS {
            return Some(format!(
                "category {:?} is longer than {MAX_CATEGORY_CHARS} characters",
                name
            ));
        }
        if trimmed.chars().any(char::is_control) {
            return Some(format!(
                "category {:?} holds a control character (a line break or tab)",
                name
            ));
        }
        if let Some(earlier) = list[..i]
            .iter()
            .find(|e| e.to_lowercase() == name.to_lowercase())
        {
            return Some(format!(
                "category {:?} is listed twice (as {:?} too)",
                name, earlier
            ));
        }
    }
    None
}

/// The project's spelling of `given` among `list`, compared without regard to case or
/// surrounding spaces; `Err` names the list.
pub fn find<'a>(list: &'a [String], given: &str) -> Result<&'a str, String> {
    let wanted = given.trim().to_lowercase();
    list.iter()
        .find(|c| c.to_lowercase() == wanted)
        .map(String::as_str)
        .ok_or_else(|| {
            if list.is_empty() {
                format!("the project lists no disagreement categories, so {given:?} cannot be one; add it in the settings")
            } else {
                format!(
                    "{given:?} is not one of the project's disagreement categories ({}); add it in the settings or pick one of them",
                    list.join(", ")
                )
            }
        })
}

/// What the lead says with a decision: a category from the project's list and a note in
/// their own words, each optional.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(default)]
pub struct DecisionNote {
    pub category: Option<String>,
    pub reason: Option<String>,
}

impl DecisionNote {
    /// A note with a reason only.
    pub fn reason(text: &str) -> DecisionNote {
        DecisionNote {
            category: None,
            reason: Some(text.to_string()),
        }
    }

    /// A note with a category and no reason.
    pub fn category(name: &str) -> DecisionNote {
        DecisionNote {
            category: Some(name.to_string()),
            reason: None,
        }
    }
}

/// How many current decisions name one category.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CategoryCount {
    pub category: String,
    pub decisions: u64,
}

/// The lead's current decisions by category: every category of the project's list in
/// its order (zero included), then any a decision names that the list no longer holds,
/// then those without one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct CategoryCounts {
    /// Current decisions (undone ones are not).
    pub decisions: u64,
    pub by_category: Vec<CategoryCount>,
    /// Decisions that name no category.
    pub uncategorised: u64,
}

impl CategoryCounts {
    /// Counts `named` (each current decision's category) against the project's `list`.
    pub fn count<'a>(
        list: &[String],
        named: impl IntoIterator<Item = Option<&'a str>>,
    ) -> CategoryCounts {
        let mut counts = CategoryCounts {
            by_category: list
                .iter()
                .map(|c| CategoryCount {
                    category: c.clone(),
                    decisions: 0,
                })
                .collect(),
            ..CategoryCounts::default()
        };
        for category in named {
            counts.decisions += 1;
            let Some(category) = category else {
                counts.uncategorised += 1;
                continue;
            };
            match counts
                .by_category
                .iter_mut()
                .find(|c| c.category == category)
            {
                Some(row) => row.decisions += 1,
                None => counts.by_category.push(CategoryCount {
                    category: category.to_string(),
                    decisions: 1,
                }),
            }
        }
        counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| (*n).to_string()).collect()
    }

    #[test]
    fn the_default_list_is_a_valid_one() {
        assert_eq!(list_problem(&default_categories()), None);
    }

    #[test]
    fn a_list_that_cannot_be_picked_from_says_why() {
        for (bad, says) in [
            (list(&["a", ""]), "category 2 is empty"),
            (list(&["a", " b"]), "spaces"),
            (list(&["Vague", "vague"]), "listed twice"),
            (list(&["a\nb"]), "control character"),
            (list(&[&"x".repeat(41)]), "longer than 40"),
            ((0..21).map(|i| i.to_string()).collect(), "at most 20"),
        ] {
            let problem = list_problem(&bad).unwrap_or_default();
            assert!(problem.contains(says), "{bad:?}: {problem}");
        }
    }

    #[test]
    fn a_category_is_found_without_regard_to_case_and_spelt_as_listed() {
        let cats = default_categories();
        assert_eq!(find(&cats, " Guideline Gap "), Ok("guideline gap"));
        let err = find(&cats, "typo").err().unwrap_or_default();
        assert!(err.contains("ambiguous item, missing context"), "{err}");
        let none = find(&[], "other").err().unwrap_or_default();
        assert!(none.contains("lists no disagreement categories"), "{none}");
    }

    #[test]
    fn counts_keep_the_list_order_and_zeroes_then_retired_then_none() {
        let cats = list(&["a", "b", "c"]);
        let counts =
            CategoryCounts::count(&cats, [Some("b"), None, Some("gone"), Some("b"), Some("a")]);
        assert_eq!(counts.decisions, 5);
        assert_eq!(counts.uncategorised, 1);
        let rows: Vec<(&str, u64)> = counts
            .by_category
            .iter()
            .map(|c| (c.category.as_str(), c.decisions))
            .collect();
        assert_eq!(rows, [("a", 1), ("b", 2), ("c", 0), ("gone", 1)]);
    }
}
