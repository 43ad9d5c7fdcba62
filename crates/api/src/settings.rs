//! Project settings: how work is served and checked. Stored as JSON in the project file;
//! anything missing takes its default, so older projects keep working.

use crate::{Project, Result};
use factdesk_core::checks::CheckSettings;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The lead's settings for a project.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(default)]
pub struct Settings {
    /// Seed for every draw: trick positions, the order items are served in.
    pub seed: u64,
    /// Annotators per item.
    pub overlap: u32,
    /// The trick sentence; `{claim}` stands for the claim with its first letter
    /// lower-cased.
    pub trick_template: String,
    /// Minutes an item stays reserved for an annotator who opened it.
    pub reservation_minutes: u32,
    /// Claims up to this many tokens get refutation-writing tasks.
    pub refute_max_tokens: u32,
    /// An annotator who failed more than this share of tricks is flagged...
    pub trick_flag_threshold: f64,
    /// ...once they have seen at least this many.
    pub trick_min_seen: u32,
    /// A new writer's first refutations reviewed by the lead...
    pub qualification_items: u32,
    /// ...of which at least this many must be accepted.
    pub qualification_min_accepted: u32,
    #[ts(skip)]
    pub checks: CheckSettings,
    /// Guidelines shown to annotators, per task kind.
    pub guidelines: Guidelines,
    /// How items are handed out.
    pub routing: Routing,
}

/// How the next item is chosen for an annotator.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Routing {
    /// Everyone walks the same seeded order: an item fills to its overlap before a new one
    /// opens, so a small team's first answers already overlap (agreement studies).
    #[default]
    FillFirst,
    /// Each annotator starts at their own seeded point, spreading people over the items.
    Spread,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(default)]
pub struct Guidelines {
    pub evidence: String,
    pub refute: String,
    pub verify: String,
    pub label: String,
}

impl Default for Guidelines {
    fn default() -> Guidelines {
        Guidelines {
            evidence: "Select every sentence that supports or refutes the claim on its own. Choose \"no evidence\" if none does.".into(),
            refute: "Write a claim that is definitely false if the original is true. Keep the same subject and topic, and stay within 2 words of the original's length. Change a fact (a number, a name, a place, a direction); do not just add \"not\".".into(),
            verify: "Does the new claim contradict the original? Mark it malformed if it is not a sensible claim.".into(),
            label: "Given the evidence, is the claim supported, refuted, or is there not enough information? Mark it failed if the claim itself is malformed.".into(),
        }
    }
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            seed: 1,
            overlap: 3,
            trick_template: "It is not true that {claim}".into(),
            reservation_minutes: 30,
            refute_max_tokens: 15,
            trick_flag_threshold: 0.2,
            trick_min_seen: 3,
            qualification_items: 5,
            qualification_min_accepted: 4,
            checks: CheckSettings::default(),
            guidelines: Guidelines::default(),
            routing: Routing::default(),
        }
    }
}

impl Project {
    pub fn settings(&self) -> Result<Settings> {
        let row = self.store.project()?;
        Ok(serde_json::from_value(row.settings).unwrap_or_else(|e| {
            tracing::warn!("project settings unreadable, using defaults: {e}");
            Settings::default()
        }))
    }

    pub fn set_settings(&mut self, settings: &Settings) -> Result<()> {
        let value = serde_json::to_value(settings)
            .map_err(|e| crate::Error::new(crate::ErrorCode::InvalidInput, e.to_string()))?;
        let people = factdesk_store::annotators::list(self.store.conn())?;
        let tx = self.store.transaction()?;
        factdesk_store::tx::set_settings(&tx, &value)?;
        // New trick thresholds can flag or clear people: their items reopen or fill.
        for person in people {
            crate::annotators::sync_counted(&tx, person.id, settings)?;
        }
        tx.commit()?;
        Ok(())
    }
}

/// The trick sentence for a claim: the template with the claim, its first letter
/// lower-cased unless the first word looks like a name.
pub fn trick_sentence(template: &str, claim: &str) -> String {
    let claim = claim.trim();
    let text = if starts_with_name(claim) {
        claim.to_string()
    } else {
        let mut chars = claim.chars();
        match chars.next() {
            Some(first) => first.to_lowercase().chain(chars).collect(),
            None => String::new(),
        }
    };
    template.replace("{claim}", &text)
}

/// Whether the claim's first word should keep its capital: an acronym or a word with
/// digits or inner capitals ("COVID-19", "iPhone"), the start of a run of capitalised
/// words ("Velmont Cycle Share"), or a word the claim capitalises again later. Without a
/// lexicon a lone name such as "Pfizer" followed by lower-case words is lower-cased.
fn starts_with_name(claim: &str) -> bool {
    let mut words = claim.split_whitespace();
    let Some(first) = words.next() else {
        return false;
    };
    let first = first.trim_matches(|c: char| !c.is_alphanumeric());
    let mut letters = first.chars();
    if !letters.next().is_some_and(char::is_uppercase) {
        return false;
    }
    if letters.any(|c| c.is_uppercase() || c.is_ascii_digit()) {
        return true;
    }
    let rest: Vec<&str> = words
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .collect();
    let capitalised = |w: &&str| w.chars().next().is_some_and(char::is_uppercase);
    rest.first().is_some_and(capitalised) || rest.contains(&first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trick_lower_cases_the_first_letter() {
        assert_eq!(
            trick_sentence("It is not true that {claim}", "Vaccines reduce deaths."),
            "It is not true that vaccines reduce deaths."
        );
    }

    #[test]
    fn trick_keeps_names_and_acronyms() {
        let t = "It is not true that {claim}";
        let cases = [
            (
                "Velmont Cycle Share lost bikes.",
                "Velmont Cycle Share lost bikes.",
            ),
            (
                "COVID-19 spreads in the air.",
                "COVID-19 spreads in the air.",
            ),
            ("Paris says Paris is safe.", "Paris says Paris is safe."),
            ("The mayor resigned.", "the mayor resigned."),
            ("", ""),
        ];
        for (claim, inside) in cases {
            assert_eq!(
                trick_sentence(t, claim),
                format!("It is not true that {inside}")
            );
        }
    }

    #[test]
    fn missing_settings_take_defaults() {
        let s: Settings = serde_json::from_str(r#"{"overlap": 2}"#).unwrap_or_default();
        assert_eq!(s.overlap, 2);
        assert_eq!(s.reservation_minutes, 30);
    }
}
