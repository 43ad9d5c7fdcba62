//! Recipes: a project set up as a published study ran its annotation, in one command
//! (`factdesk init P --recipe NAME`). A recipe is the settings the study's procedure
//! implies (stance, trick, guidelines in Factdesk's paraphrase of the study's task,
//! thresholds) and the steps that follow, each command marked as the paper's choice or
//! Factdesk's where the paper leaves it open. docs/recipes.md walks through each.
//!
//! Studies of pairs (CrowdChecked, Zanzotto & Pennacchiotti) declare their own design
//! (`crate::design`): their questions, in Factdesk's paraphrase, are the recipe's.

use crate::settings::{EvidenceStance, Settings};
use crate::tasks::TaskKind;
use crate::{Error, ErrorCode, Lead, Project, Result};
use serde::Serialize;
use std::collections::BTreeMap;

/// Who chose a step: the study's paper, or Factdesk where the paper does not say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Whose {
    Paper,
    Factdesk,
}

/// One step of a recipe: a command (P is the project) and what it does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    pub command: &'static str,
    pub does: &'static str,
    pub whose: Whose,
}

/// A recipe as `factdesk recipes --json` lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Recipe {
    pub name: &'static str,
    pub title: &'static str,
    /// The study it follows.
    pub source: &'static str,
    /// The built-in designs (task kinds) its annotation uses, in order.
    pub designs: Vec<TaskKind>,
    /// The settings it sets, as `factdesk settings --set` names them, with their values.
    pub settings: BTreeMap<String, serde_json::Value>,
    pub steps: Vec<Step>,
}

/// A recipe's definition: its listing and what it does to the settings.
struct Definition {
    name: &'static str,
    title: &'static str,
    source: &'static str,
    designs: &'static [TaskKind],
    configure: fn(&mut Settings),
    steps: &'static [Step],
}

const fn step(command: &'static str, does: &'static str, whose: Whose) -> Step {
    Step {
        command,
        does,
        whose,
    }
}

const COVID_FACT_EVIDENCE: &str = "Read the claim, then the sentences below, taken from the sources the claim was drawn from. Select every sentence that supports the claim: one that gives you a reason to believe it. If no sentence supports it, choose \"no evidence\". Read each sentence: one of them is there to check that the sentences are read.";

const MULTILINGUAL_LABEL: &str = "Read the claim and the evidence passages under it. Answer SUPPORTED when the evidence shows the claim is true, REFUTED when it shows the claim is false, and NOT ENOUGH INFO when it shows neither. Answer FAILED when the claim itself cannot be judged: it is not a claim, it is cut off, or it makes no sense.";

const WIKIFACTCHECK_REFUTE: &str = "Rewrite the claim so that it is false if the original is true, judged by its context. Keep its subject and its topic, and change one fact: a number, a date, a name, a place or a relation. Do not only add \"not\" or \"no\". Keep it about as long as the original.";

/// A declared design from its JSON: the recipes' designs are written as a team would
/// write its own.
fn declared(json: serde_json::Value) -> Option<factdesk_core::design::Design> {
    serde_json::from_value(json).ok()
}

fn zanzotto(s: &mut Settings) {
    s.overlap = 2;
    s.design = declared(serde_json::json!({
        "name": "revision-pairs",
        "questions": [
            {"id": "relation", "type": "choice", "labels": ["entailment", "contradiction", "unknown"], "required": true,
             "guideline": "Read the first sentence (the text before the revision), then the second (after it). entailment: whoever accepts the first must accept the second. contradiction: both cannot be true together. unknown: neither follows."},
            {"id": "noise", "type": "choice", "labels": ["clean", "noisy"], "required": true,
             "guideline": "noisy: the two are not a usable pair (vandalism, a spelling or format fix only, a broken or unrelated sentence); such pairs are removed from the data."}
        ]
    }));
}

fn crowdchecked(s: &mut Settings) {
    s.overlap = 3;
    s.ranking.jaccard_stemming = true;
    s.design = declared(serde_json::json!({
        "name": "claim-tweet-pairs",
        "questions": [
            {"id": "same_claim", "type": "choice", "labels": ["yes", "no"], "required": true,
             "guideline": "Does the tweet (second text) make the claim the fact-check (first text) verifies, in any wording?"},
            {"id": "verdict_applies", "type": "choice", "labels": ["yes", "no"], "required": true,
             "guideline": "Would the fact-check's verdict tell a reader of the tweet whether what it says is true?"}
        ]
    }));
}

fn covid_fact(s: &mut Settings) {
    s.choose_stance(EvidenceStance::Supports);
    s.guidelines.evidence = COVID_FACT_EVIDENCE.into();
    s.overlap = 3;
    s.trick_template = factdesk_core::trick::DEFAULT_TEMPLATE.into();
    s.study_answers_in_gold = false;
    s.design = declared(serde_json::json!({
        "name": "salient-words",
        "questions": [
            {"id": "salient", "type": "span", "over": "text_a", "required": true,
             "guideline": "Mark the words that carry the claim's point: the words to replace to make it false (a number, a name, the key noun or verb). Leave out words any claim could have."}
        ]
    }));
}

fn wikifactcheck(s: &mut Settings) {
    s.overlap = 3;
    s.refute_max_tokens = 15;
    s.guidelines.refute = WIKIFACTCHECK_REFUTE.into();
}

fn multilingual(s: &mut Settings) {
    s.choose_stance(EvidenceStance::SupportsOrRefutes);
    s.highlight_claim_words = Some(true);
    s.guidelines.label = MULTILINGUAL_LABEL.into();
    s.overlap = 3;
}

const DEFINITIONS: &[Definition] = &[
    Definition {
        name: "covid-fact",
        title: "COVID-Fact: evidence selection with a trick sentence, validated by a second group",
        source: "Saakyan, Chakrabarty and Muresan (2021), COVID-Fact: Fact Extraction and Verification of Real-World Claims on COVID-19 Pandemic, ACL",
        designs: &[TaskKind::Evidence, TaskKind::Design, TaskKind::Verify],
        configure: covid_fact,
        steps: &[
            step("factdesk init P --recipe covid-fact", "stance `supports`, the trick \"It is not true that {claim}\", 3 annotators an item, the evidence guideline", Whose::Paper),
            step("factdesk import P claims.jsonl --preset covid-fact --docs documents.jsonl", "the claims and the documents their candidates come from", Whose::Paper),
            step("factdesk tasks P --kind evidence --overlap 3", "each claim's top 5 candidate sentences and the trick, for 3 annotators", Whose::Paper),
            step("factdesk study P --kind evidence --sample 100 --group NAMES", "a second group re-annotates 100 claims; Cohen's kappa between the groups' majority votes", Whose::Paper),
            step("factdesk tasks P --kind design --overlap 3", "3 annotators mark each claim's salient words, those a counter-claim replaces; agreement per word", Whose::Paper),
            step("factdesk tasks P --kind verify --overlap 3", "people verify the counter-claims imported with the claims", Whose::Factdesk),
            step("factdesk report P --out report.html", "agreement (Fleiss' kappa per candidate sentence, the study's Cohen's kappa) and the methodology", Whose::Factdesk),
            step("factdesk export P --out gold.jsonl", "gold by strict majority; answers that picked the trick rejected; study answers kept apart", Whose::Paper),
        ],
    },
    Definition {
        name: "wikifactcheck",
        title: "WikiFactCheck-English: refuted claims written by hand, then verified",
        source: "Sathe, Ather, Le, Perry and Park (2020), Automated Fact-Checking of Claims from Wikipedia, LREC",
        designs: &[TaskKind::Refute, TaskKind::Verify],
        configure: wikifactcheck,
        steps: &[
            step("factdesk init P --recipe wikifactcheck", "refutation writing for claims of at most 15 words, with the writing checks, and its guideline", Whose::Paper),
            step("factdesk import P wikifactcheck.tsv --preset wikifactcheck", "claims with their context (the dataset's own refuted claims come in as imported refutations)", Whose::Paper),
            step("factdesk tasks P --kind refute --overlap 1", "one writer a claim, as the dataset has one refuted claim each", Whose::Paper),
            step("factdesk review P", "the lead reviews a new writer's first 5 refutations; 4 accepted qualify them", Whose::Factdesk),
            step("factdesk tasks P --kind verify --overlap 3", "3 people verify each accepted refutation", Whose::Factdesk),
            step("factdesk export P --out gold.jsonl", "claims with their verified refutations", Whose::Factdesk),
        ],
    },
    Definition {
        name: "multilingual",
        title: "Multilingual pipeline: paragraph evidence, claim-word highlighting, four labels with FAILED",
        source: "the multilingual fact-checking pipeline Factdesk's design follows (../shared/DESIGN.md): paragraph evidence, BM25 retrieval, highlighting, a label-stratified evaluation sample",
        designs: &[TaskKind::Evidence, TaskKind::Label],
        configure: multilingual,
        steps: &[
            step("factdesk init P --recipe multilingual", "stance `supports_or_refutes`, claim words marked in the evidence, the label guideline with FAILED", Whose::Paper),
            step("factdesk import P claims.jsonl --docs documents.jsonl --paragraphs 1000", "evidence as paragraphs of more than 1,000 characters, title first", Whose::Paper),
            step("factdesk eval-ranking P --gold gold.jsonl", "MRR@2 and P@2 (mrr@2, precision@2) of the top 2 passages", Whose::Paper),
            step("factdesk tasks P --kind evidence --overlap 3", "3 annotators pick each claim's evidence passages, beside a trick passage; with the claim's words marked the trick is the one passage without marks, so it checks attention, not reading (Project settings: turn marking off to make it a reading check)", Whose::Factdesk),
            step("factdesk tasks P --kind label --overlap 3", "3 annotators label each claim against its settled evidence", Whose::Factdesk),
            step("factdesk sample P --kind label --by label --per-label 50 --group NAMES", "50 items a class, label-stratified, re-annotated by a second group", Whose::Paper),
            step("factdesk export P --out gold.jsonl", "gold by strict majority", Whose::Factdesk),
        ],
    },
    Definition {
        name: "crowdchecked",
        title: "CrowdChecked: claim–tweet pairs, two yes/no questions, sampled by word overlap",
        source: "Hardalov, Chernyavskiy, Koychev, Ilvovsky and Nakov (2022), CrowdChecked: Detecting Previously Fact-Checked Claims in Social Media, AACL-IJCNLP",
        designs: &[TaskKind::Design],
        configure: crowdchecked,
        steps: &[
            step("factdesk init P --recipe crowdchecked", "the design of two yes/no questions per pair, 3 annotators an item, stemmed Jaccard", Whose::Paper),
            step("factdesk import P pairs.jsonl", "rows {\"id\", \"text_a\": the fact-check's claim, \"text_b\": the tweet}", Whose::Paper),
            step("factdesk tasks P --kind design --overlap 3", "a design task for each pair, 3 blind annotators", Whose::Paper),
            step("factdesk sample P --kind design --by jaccard-bins --bins 10 --per-bin 15 --seed 1 --keep-only", "150 pairs, 15 from each of 10 bins of stemmed word overlap, become the task set", Whose::Paper),
            step("factdesk agreement P --kind design", "Fleiss' kappa and pairwise Cohen's kappa per question", Whose::Paper),
            step("factdesk adjudicate P --decide T --take NAME --category CATEGORY", "the lead settles a split item, naming the disagreement's category", Whose::Paper),
            step("factdesk export P --design --out gold.jsonl", "each pair with each question's gold value and how it was settled", Whose::Factdesk),
        ],
    },
    Definition {
        name: "zanzotto",
        title: "Zanzotto & Pennacchiotti: Wikipedia revision pairs labelled entailment, contradiction or unknown",
        source: "Zanzotto and Pennacchiotti (2010), Expanding textual entailment corpora from Wikipedia using co-training, COLING workshop The People's Web Meets NLP",
        designs: &[TaskKind::Design],
        configure: zanzotto,
        steps: &[
            step("factdesk init P --recipe zanzotto", "the design (relation: entailment, contradiction, unknown; noise: clean, noisy), 2 annotators an item", Whose::Paper),
            step("factdesk import P wikifactcheck_dev.tsv --preset generic --map text_a=claim --map text_b=refuted", "each claim and its rewritten version as a pair (any S1/S2 pairs: rows {\"id\", \"text_a\", \"text_b\"})", Whose::Factdesk),
            step("factdesk tasks P --kind design --overlap 2", "a design task for each pair, 2 annotators", Whose::Paper),
            step("factdesk agreement P --kind design", "Cohen's kappa per question between the two annotators", Whose::Paper),
            step("factdesk export P --design --out gold.jsonl", "each pair's gold relation; lines whose noise is \"noisy\" are the pairs the paper removed, and the card gives the word overlap per relation", Whose::Paper),
        ],
    },
];

fn listed(d: &Definition) -> Recipe {
    let before = flat(&Settings::default());
    let mut settings = Settings::default();
    (d.configure)(&mut settings);
    let after = flat(&settings);
    Recipe {
        name: d.name,
        title: d.title,
        source: d.source,
        designs: d.designs.to_vec(),
        settings: after
            .into_iter()
            .filter(|(k, v)| before.get(k) != Some(v))
            .collect(),
        steps: d.steps.to_vec(),
    }
}

/// The settings as dotted keys and leaf values.
fn flat(s: &Settings) -> BTreeMap<String, serde_json::Value> {
    fn walk(prefix: &str, v: serde_json::Value, out: &mut BTreeMap<String, serde_json::Value>) {
        match v {
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    let key = if prefix.is_empty() {
                        k
                    } else {
                        format!("{prefix}.{k}")
                    };
                    walk(&key, v, out);
                }
            }
            leaf => {
                out.insert(prefix.to_string(), leaf);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk("", serde_json::to_value(s).unwrap_or_default(), &mut out);
    out
}

/// Every recipe, as `factdesk recipes` lists them.
pub fn recipes() -> Vec<Recipe> {
    DEFINITIONS.iter().map(listed).collect()
}

/// Recipe `name`, as listed; refused, naming the recipes, when there is none.
pub fn recipe(name: &str) -> Result<Recipe> {
    definition(name).map(listed)
}

fn definition(name: &str) -> Result<&'static Definition> {
    DEFINITIONS.iter().find(|d| d.name == name).ok_or_else(|| {
        let names: Vec<&str> = DEFINITIONS.iter().map(|d| d.name).collect();
        Error::new(
            ErrorCode::InvalidInput,
            format!(
                "no recipe {name:?}; the recipes are {} (factdesk recipes)",
                names.join(", ")
            ),
        )
    })
}

impl Project {
    /// Sets the project up by recipe `name`: its settings, and the recipe's name, which
    /// the dataset card and the report print. Refused, changing nothing, when a setting it
    /// sets can no longer change (the stance, once evidence answers exist).
    pub fn apply_recipe(&mut self, lead: &Lead, name: &str) -> Result<Settings> {
        let d = definition(name)?;
        let mut settings = self.settings()?;
        (d.configure)(&mut settings);
        settings.recipe = Some(d.name.to_string());
        self.set_settings(lead, &settings)?;
        self.settings()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_recipe_lists_what_it_changes_and_valid_settings() {
        for d in DEFINITIONS {
            let mut s = Settings::default();
            (d.configure)(&mut s);
            assert!(s.validate().is_ok(), "{}", d.name);
            // A recipe's design is written as JSON: one that does not read is a typo.
            assert_eq!(
                s.design.is_some(),
                d.designs.contains(&TaskKind::Design),
                "{}",
                d.name
            );
            assert!(d.steps[0].command.contains(d.name), "{}", d.name);
        }
        let covid = listed(&DEFINITIONS[0]);
        assert_eq!(
            covid.settings.get("evidence_stance"),
            Some(&serde_json::json!("supports"))
        );
        // Unchanged settings are not listed.
        assert!(!covid.settings.contains_key("seed"));
    }

    #[test]
    fn an_unknown_recipe_names_the_recipes() {
        let message = definition("fever")
            .err()
            .map(|e| e.message)
            .unwrap_or_default();
        assert!(
            message.contains("covid-fact, wikifactcheck, multilingual, crowdchecked, zanzotto"),
            "{message}"
        );
    }
}
