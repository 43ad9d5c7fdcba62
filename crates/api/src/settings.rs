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
    /// Seed for the order items are served in. The trick's position and sentence are
    /// drawn with the project's secret instead, which never leaves the project file.
    /// Sent as text (a number is taken too): a drawn seed is above 2^53, which a
    /// screen's JavaScript rounds.
    #[serde(with = "crate::seed_text")]
    #[ts(type = "string")]
    pub seed: u64,
    /// Annotators per item.
    pub overlap: u32,
    /// What evidence annotators select; null until chosen, and then served as
    /// `supports_or_refutes`. An import with a preset chooses its dataset's stance when
    /// none is chosen and no evidence task exists yet.
    pub evidence_stance: Option<EvidenceStance>,
    /// The trick sentence under the `supports` stance; `{claim}` stands for the claim
    /// with its first letter lower-cased. Shown like a sentence: capitalised, ending in a
    /// full stop. The default, "It is not true that {claim}", is written in each claim's
    /// language (Arabic, French, Chinese, ...), so the trick reads like its neighbours.
    pub trick_template: String,
    /// Minutes an item stays reserved for an annotator who opened it.
    pub reservation_minutes: u32,
    /// Claims up to this many tokens get refutation-writing tasks.
    pub refute_max_tokens: u32,
    /// An annotator is flagged when the Wilson 95% lower bound of their share of failed
    /// tricks is above this, so one trick in a few items flags nobody...
    pub trick_flag_threshold: f64,
    /// ...once they have seen at least this many.
    pub trick_min_seen: u32,
    /// A new writer's first refutations reviewed by the lead...
    pub qualification_items: u32,
    /// ...of which at least this many must be accepted.
    pub qualification_min_accepted: u32,
    /// Which live checks a written refutation must pass; sent back unchanged by screens
    /// that do not edit them, so saving settings there keeps them.
    pub checks: CheckSettings,
    /// Guidelines shown to annotators, per task kind.
    pub guidelines: Guidelines,
    /// How items are handed out.
    pub routing: Routing,
    /// Whether evidence options mark the words they share with the claim; null: off,
    /// under either stance, as the marks would point at the trick (under `supports` the
    /// negation is the one option with every claim word marked, under
    /// `supports_or_refutes` the one with nothing marked).
    pub highlight_claim_words: Option<bool>,
    /// How candidates are ranked.
    pub ranking: RankingSettings,
    /// Whether the answers a re-annotation study's group gives on its sample count
    /// towards the gold data. Off by default, as COVID-Fact did: the gold comes from the
    /// first group, and the study's answers only measure agreement.
    pub study_answers_in_gold: bool,
    /// What the lead can name as the cause of a disagreement they settle; the report
    /// counts decisions per category. Factdesk's six by default.
    pub disagreement_categories: Vec<String>,
    /// The recipe the project was set up by (`init --recipe`), printed in the dataset
    /// card and the report; null for a project set up by hand.
    pub recipe: Option<String>,
    /// The project's own design: the questions its design tasks ask about each pair or
    /// claim (see docs/designs.md); null when it declares none. Once a design task has
    /// an answer, only its name, guidelines and which questions are required may change.
    pub design: Option<factdesk_core::design::Design>,
}

/// How candidate evidence is ranked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(default)]
pub struct RankingSettings {
    /// Whether the import's and `rank`'s fused ranking includes the semantic ranker (when
    /// a model is installed). Off by default: embedding costs far more than the other
    /// rankers, and a project's candidates should not depend on what the machine has.
    pub semantic: bool,
    /// The folder of the sentence-embedding model (model.safetensors, config.json,
    /// tokenizer.json); null: the folder scripts/setup fills, else the Hugging Face cache.
    pub model_dir: Option<String>,
    /// How many sentences per claim the semantic ranker re-ranks at most: BM25's best, then
    /// those sharing no word with the claim.
    pub rerank_depth: u32,
    /// BM25's term-frequency saturation; 1.2 (tantivy's and Lucene's) unless set. The
    /// multilingual fact-checking pipeline used 0.9.
    #[serde(with = "shortest_f32")]
    #[ts(type = "number")]
    pub bm25_k1: f32,
    /// BM25's length normalisation, from 0 (none) to 1; 0.75 unless set (0.9 in the
    /// multilingual pipeline).
    #[serde(with = "shortest_f32")]
    #[ts(type = "number")]
    pub bm25_b: f32,
    /// Whether Jaccard compares word stems (Snowball English), with every web address
    /// and every number counted as one word each, as CrowdChecked did.
    pub jaccard_stemming: bool,
}

/// An f32 written as the shortest decimal that reads back as the same f32: the number as
/// the user wrote it. BM25's parameters are f32 because tantivy scores in f32, and
/// `serde_json::to_value` (how settings are stored and printed) widens an f32 to the f64
/// nearest it, which prints 1.2 as 1.2000000476837158. Settings stored that way read back
/// as the same f32 and print short again.
mod shortest_f32 {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &f32, s: S) -> Result<S::Ok, S::Error> {
        // Display gives the shortest decimal that round-trips through f32; parsing it as
        // f64 keeps those digits. Not finite (refused by `validate`), it is written widened.
        let shortest = value
            .to_string()
            .parse::<f64>()
            .unwrap_or(f64::from(*value));
        s.serialize_f64(shortest)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f32, D::Error> {
        f32::deserialize(d)
    }
}

/// How many sentences per claim the semantic ranker re-ranks unless the project says
/// otherwise.
pub const DEFAULT_RERANK_DEPTH: u32 = 50;

impl RankingSettings {
    /// BM25's parameters as set.
    pub fn bm25(&self) -> factdesk_store::Bm25Params {
        factdesk_store::Bm25Params {
            k1: self.bm25_k1,
            b: self.bm25_b,
        }
    }
}

impl Default for RankingSettings {
    fn default() -> RankingSettings {
        RankingSettings {
            semantic: false,
            model_dir: None,
            rerank_depth: DEFAULT_RERANK_DEPTH,
            bm25_k1: factdesk_store::Bm25Params::default().k1,
            bm25_b: factdesk_store::Bm25Params::default().b,
            jaccard_stemming: false,
        }
    }
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

/// What an annotator selects in an evidence task, and so what the trick must be to be
/// wrong under the guideline they are given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceStance {
    /// Sentences that support the claim (COVID-Fact); the trick is the claim's negation.
    Supports,
    /// Sentences that support or refute the claim (FEVER); the trick is a real sentence
    /// about something else.
    SupportsOrRefutes,
}

const SUPPORTS_GUIDELINE: &str = "Select every sentence that supports the claim on its own. Choose \"no evidence\" if none does.";
const SUPPORTS_OR_REFUTES_GUIDELINE: &str = "Select every sentence that supports or refutes the claim on its own. Choose \"no evidence\" if none does.";

impl EvidenceStance {
    pub fn as_str(self) -> &'static str {
        match self {
            EvidenceStance::Supports => "supports",
            EvidenceStance::SupportsOrRefutes => "supports_or_refutes",
        }
    }

    /// What annotators are asked to select sentences for: "support" or "support or
    /// refute" (the claim).
    pub fn asks_for(self) -> &'static str {
        match self {
            EvidenceStance::Supports => "support",
            EvidenceStance::SupportsOrRefutes => "support or refute",
        }
    }

    /// What the trick sentence checks under this stance, as the settings screen, the
    /// report and the dataset cards say it: a lead choosing `supports` should know its
    /// trick can be told by its form.
    pub fn trick_measures(self) -> &'static str {
        match self {
            EvidenceStance::Supports => "the trick is the claim's negation (\"It is not true that …\"), which can be recognised by its form without reading the evidence: it checks attention, not careful reading",
            EvidenceStance::SupportsOrRefutes => "the trick is a real sentence from another document that neither supports nor refutes the claim: picking it shows the options were not read",
        }
    }

    /// The evidence guideline served under this stance unless the lead wrote their own.
    pub fn default_guideline(self) -> &'static str {
        match self {
            EvidenceStance::Supports => SUPPORTS_GUIDELINE,
            EvidenceStance::SupportsOrRefutes => SUPPORTS_OR_REFUTES_GUIDELINE,
        }
    }
}

/// Whether `text` is one of Factdesk's own evidence guidelines (or empty), rather than
/// one a lead wrote.
fn built_in_guideline(text: &str) -> bool {
    let text = text.trim();
    text.is_empty() || text == SUPPORTS_GUIDELINE || text == SUPPORTS_OR_REFUTES_GUIDELINE
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(default)]
pub struct Guidelines {
    /// Served as written when the lead wrote it; Factdesk's own text (or an empty one)
    /// follows the evidence stance.
    pub evidence: String,
    pub refute: String,
    pub verify: String,
    pub label: String,
}

impl Default for Guidelines {
    fn default() -> Guidelines {
        Guidelines {
            evidence: SUPPORTS_OR_REFUTES_GUIDELINE.into(),
            refute: "Write a claim that is definitely false if the original is true. Keep the same subject and topic, and stay within 2 words of the original's length. Change a fact (a number, a name, a place, a direction); do not just add \"not\".".into(),
            verify: "Does the new claim contradict the original? Mark it malformed if it is not a sensible claim.".into(),
            label: "Given the evidence, is the claim supported, refuted, or is there not enough information? Mark it failed if the claim itself is malformed.".into(),
        }
    }
}

impl Settings {
    /// Whether evidence options mark the words they share with the claim: only when the
    /// lead turns it on, since under either stance the marks single out the trick.
    pub fn highlights(&self) -> bool {
        self.highlight_claim_words.unwrap_or(false)
    }

    /// The stance evidence tasks are served under.
    pub fn stance(&self) -> EvidenceStance {
        self.evidence_stance
            .unwrap_or(EvidenceStance::SupportsOrRefutes)
    }

    /// The evidence guideline served: the lead's own text as written, otherwise the
    /// stance's, so Factdesk never serves a guideline that contradicts its trick.
    pub fn evidence_guideline(&self) -> String {
        if built_in_guideline(&self.guidelines.evidence) {
            self.stance().default_guideline().to_string()
        } else {
            self.guidelines.evidence.clone()
        }
    }

    /// Whether the lead wrote their own evidence guideline.
    pub fn custom_evidence_guideline(&self) -> bool {
        !built_in_guideline(&self.guidelines.evidence)
    }

    /// Sets the stance and, unless the lead wrote their own, the guideline that goes
    /// with it.
    pub fn choose_stance(&mut self, stance: EvidenceStance) {
        self.evidence_stance = Some(stance);
        if !self.custom_evidence_guideline() {
            self.guidelines.evidence = stance.default_guideline().to_string();
        }
    }
}

/// A setting the lead cannot have, named by its field so a screen can show it there.
pub(crate) fn invalid(field: &str, message: String) -> crate::Error {
    crate::Error::input("settings", 0, Some(field), message)
}

impl Settings {
    /// Refuses settings that cannot work, naming the first field at fault in plain words.
    pub fn validate(&self) -> Result<()> {
        if !(1..=MAX_OVERLAP).contains(&self.overlap) {
            return Err(invalid(
                "overlap",
                format!(
                    "annotators per item must be between 1 and {MAX_OVERLAP}, not {}",
                    self.overlap
                ),
            ));
        }
        if self.reservation_minutes == 0 {
            return Err(invalid(
                "reservation_minutes",
                "an item must stay reserved for at least 1 minute".into(),
            ));
        }
        if self.refute_max_tokens == 0 {
            return Err(invalid(
                "refute_max_tokens",
                "claims need at least 1 word to get a refutation task".into(),
            ));
        }
        if !(0.0..=1.0).contains(&self.trick_flag_threshold) {
            return Err(invalid("trick_flag_threshold", format!("the share of failed tricks that flags someone must be between 0% and 100%, not {}%", self.trick_flag_threshold * 100.0)));
        }
        if self.trick_min_seen == 0 {
            return Err(invalid(
                "trick_min_seen",
                "flag someone only after at least 1 trick sentence".into(),
            ));
        }
        if self.qualification_min_accepted > self.qualification_items {
            return Err(invalid(
                "qualification_min_accepted",
                format!(
                    "a new writer cannot need {} accepted refutations out of only {} reviewed",
                    self.qualification_min_accepted, self.qualification_items
                ),
            ));
        }
        if !self.trick_template.contains("{claim}") {
            return Err(invalid(
                "trick_template",
                "the trick sentence must contain {claim}, where the claim goes".into(),
            ));
        }
        // Only spaces and punctuation around the claim make the trick the claim itself,
        // which supports the claim: careful annotators would select it and be rejected.
        if !self
            .trick_template
            .replace("{claim}", "")
            .chars()
            .any(char::is_alphanumeric)
        {
            return Err(invalid(
                "trick_template",
                format!("{:?} makes the trick sentence the claim itself, which supports the claim; write words around {{claim}} that contradict it (the default is {:?})", self.trick_template, factdesk_core::trick::DEFAULT_TEMPLATE),
            ));
        }
        for (field, text) in [
            ("guidelines.refute", &self.guidelines.refute),
            ("guidelines.verify", &self.guidelines.verify),
            ("guidelines.label", &self.guidelines.label),
        ] {
            if text.trim().is_empty() {
                return Err(invalid(
                    field,
                    "annotators need a guideline; write one".into(),
                ));
            }
        }
        if let Some(problem) = crate::disagreement::list_problem(&self.disagreement_categories) {
            return Err(invalid("disagreement_categories", problem));
        }
        if let Some(problem) = self
            .design
            .as_ref()
            .and_then(factdesk_core::design::declared::problem)
        {
            return Err(invalid("design", problem));
        }
        if self.ranking.rerank_depth == 0 {
            return Err(invalid(
                "ranking.rerank_depth",
                "the semantic ranker must re-rank at least 1 sentence".into(),
            ));
        }
        if let Some(problem) = self.ranking.bm25().problem() {
            let field = if problem.starts_with("k1") {
                "ranking.bm25_k1"
            } else {
                "ranking.bm25_b"
            };
            return Err(invalid(field, problem));
        }
        Ok(())
    }
}

/// More annotators per item than any team we know of asks for; a typo beyond it.
const MAX_OVERLAP: u32 = 20;

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            seed: 1,
            overlap: 3,
            evidence_stance: None,
            trick_template: factdesk_core::trick::DEFAULT_TEMPLATE.into(),
            reservation_minutes: 30,
            refute_max_tokens: 15,
            trick_flag_threshold: 0.2,
            trick_min_seen: 3,
            qualification_items: 5,
            qualification_min_accepted: 4,
            checks: CheckSettings::default(),
            guidelines: Guidelines::default(),
            routing: Routing::default(),
            highlight_claim_words: None,
            ranking: RankingSettings::default(),
            study_answers_in_gold: false,
            disagreement_categories: crate::disagreement::default_categories(),
            recipe: None,
            design: None,
        }
    }
}

/// Settings from their stored JSON; unreadable ones give the defaults.
pub(crate) fn from_json(value: serde_json::Value) -> Settings {
    serde_json::from_value(value).unwrap_or_else(|e| {
        tracing::warn!("project settings unreadable, using defaults: {e}");
        Settings::default()
    })
}

impl Project {
    /// The project's settings; anyone working on it may read them (they hold the
    /// guidelines an annotator works under).
    pub fn settings(&self) -> Result<Settings> {
        Ok(from_json(self.store.project()?.settings))
    }
}

/// The negation trick for a claim, written like a document's sentence (see
/// [`factdesk_core::trick::negation`]).
pub fn trick_sentence(template: &str, claim: &str) -> String {
    factdesk_core::trick::negation(template, claim)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `factdesk settings`, the app and the server print the settings as JSON: BM25's
    /// parameters come out as written (1.2, not 1.2000000476837158), also from a project
    /// whose settings were stored with the long form.
    #[test]
    fn bm25_parameters_print_as_the_user_wrote_them() -> serde_json::Result<()> {
        let value = serde_json::to_value(Settings::default())?;
        assert_eq!(value["ranking"]["bm25_k1"], serde_json::json!(1.2));
        assert_eq!(value["ranking"]["bm25_b"], serde_json::json!(0.75));
        let text = serde_json::to_string(&Settings::default())?;
        assert!(text.contains("\"bm25_k1\":1.2,"), "{text}");
        let stored = serde_json::json!({"ranking": {"bm25_k1": 1.2000000476837158, "bm25_b": 0.9}});
        let read: Settings = serde_json::from_value(stored)?;
        let value = serde_json::to_value(read)?;
        assert_eq!(value["ranking"]["bm25_k1"], serde_json::json!(1.2));
        assert_eq!(value["ranking"]["bm25_b"], serde_json::json!(0.9));
        Ok(())
    }

    #[test]
    fn missing_settings_take_defaults() {
        let s: Settings = serde_json::from_str(r#"{"overlap": 2}"#).unwrap_or_default();
        assert_eq!(s.overlap, 2);
        assert_eq!(s.reservation_minutes, 30);
        assert_eq!(s.stance(), EvidenceStance::SupportsOrRefutes);
    }

    #[test]
    fn claim_words_are_marked_only_when_the_lead_turns_it_on() {
        for stance in [EvidenceStance::Supports, EvidenceStance::SupportsOrRefutes] {
            let mut s = Settings::default();
            s.choose_stance(stance);
            // Under `supports` the marks would make the negation the one option with
            // every claim word marked; under the other stance, the one with none.
            assert!(!s.highlights(), "{stance:?} marks by default");
            s.highlight_claim_words = Some(false);
            assert!(!s.highlights());
            s.highlight_claim_words = Some(true);
            assert!(s.highlights(), "{stance:?} turned on");
        }
    }

    #[test]
    fn the_served_guideline_follows_the_stance_unless_the_lead_wrote_one() {
        let mut s = Settings::default();
        assert!(s.evidence_guideline().contains("supports or refutes"));
        s.evidence_stance = Some(EvidenceStance::Supports);
        // Factdesk's own text of the other stance is never served under this one.
        assert_eq!(s.evidence_guideline(), SUPPORTS_GUIDELINE);
        s.choose_stance(EvidenceStance::Supports);
        assert_eq!(s.guidelines.evidence, SUPPORTS_GUIDELINE);
        s.guidelines.evidence = "Mark what backs the claim.".into();
        s.choose_stance(EvidenceStance::SupportsOrRefutes);
        assert_eq!(s.evidence_guideline(), "Mark what backs the claim.");
        assert!(s.custom_evidence_guideline());
    }

    #[test]
    fn settings_that_cannot_work_name_their_field() {
        assert!(Settings::default().validate().is_ok());
        let field = |s: Settings| {
            s.validate()
                .err()
                .and_then(|e| e.location)
                .and_then(|l| l.field)
        };
        let s = Settings {
            overlap: 0,
            ..Settings::default()
        };
        assert_eq!(field(s).as_deref(), Some("overlap"));
        let s = Settings {
            trick_flag_threshold: 1.5,
            ..Settings::default()
        };
        assert_eq!(field(s).as_deref(), Some("trick_flag_threshold"));
        let s = Settings {
            qualification_items: 3,
            qualification_min_accepted: 4,
            ..Settings::default()
        };
        assert_eq!(field(s).as_deref(), Some("qualification_min_accepted"));
        let s = Settings {
            trick_template: "Not so".into(),
            ..Settings::default()
        };
        assert_eq!(field(s).as_deref(), Some("trick_template"));
        let mut s = Settings::default();
        s.guidelines.label = "  ".into();
        assert_eq!(field(s).as_deref(), Some("guidelines.label"));
        let mut s = Settings::default();
        s.ranking.bm25_k1 = -1.0;
        assert_eq!(field(s).as_deref(), Some("ranking.bm25_k1"));
        let mut s = Settings::default();
        s.ranking.bm25_b = 1.1;
        assert_eq!(field(s).as_deref(), Some("ranking.bm25_b"));
        let mut s = Settings::default();
        s.ranking.bm25_k1 = 0.9;
        s.ranking.bm25_b = 0.9;
        assert!(s.validate().is_ok());
    }
}
