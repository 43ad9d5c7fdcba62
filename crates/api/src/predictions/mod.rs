//! Model predictions in: labels a model predicted for claims, and counter-claims a model
//! wrote, read from a JSON Lines file. They are kept apart from the annotators' answers
//! (their own table), never counted for agreement or gold, and never shown as a model's:
//! a counter-claim becomes a claim linked to its parent with a verify task, which people
//! verify blind like any other. [`compare`] sets the predictions against the gold data.

mod compare;
mod score;

pub use compare::{CounterClaimSummary, LabelComparison, ModelComparison, PredictionComparison};
pub use score::ScoreAnalysis;

use crate::settings::Settings;
use crate::Lead;
use crate::{Error, Project, Result};
use factdesk_core::checks::{blocking, check_refutation, CheckSettings};
use factdesk_core::claim::Label;
use factdesk_store::predictions::{self, CounterClaim, LabelPrediction};
use factdesk_store::{tx, NewClaim};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;
use ts_rs::TS;

/// The longest counter-claim taken, in characters.
const MAX_TEXT: usize = 2000;
/// The longest model name taken, in characters.
const MAX_MODEL: usize = 200;

/// One line of a predictions file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    claim_id: String,
    model: Option<String>,
    prediction: Option<String>,
    refuted: Option<Refuted>,
    score: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Refuted {
    One(String),
    Many(Vec<String>),
}

/// What an import of predictions did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct PredictionImport {
    pub file: String,
    pub lines: u64,
    /// Label predictions recorded or changed (an unchanged one is not counted).
    pub labels: u64,
    /// Counter-claims added as claims to verify.
    pub counter_claims: u64,
    /// Counter-claims already in the project (same model, claim and text).
    pub counter_claims_known: u64,
    pub models: Vec<String>,
}

/// A line read and checked, before anything is written.
struct Checked {
    claim: i64,
    claim_ext: String,
    context: Option<String>,
    source_url: Option<String>,
    model: String,
    label: Option<Label>,
    texts: Vec<String>,
    score: Option<f64>,
}

impl Project {
    /// Reads `file` and records its predictions, all in one transaction or none. Each
    /// line names a claim by its id (`claim_id`), the model (`model`, or `default_model`),
    /// and a predicted label (`prediction`), counter-claims (`refuted`: a text or a list),
    /// or both; `score` is kept. A bad line is an error naming the file, line and field,
    /// with the project unchanged.
    pub fn import_predictions(
        &mut self,
        by: &Lead,
        file: &Path,
        default_model: Option<&str>,
    ) -> Result<PredictionImport> {
        self.acting_lead(by)?;
        let shown = file.display().to_string();
        let text = std::fs::read_to_string(file).map_err(|e| Error::io(&shown, &e))?;
        let (checked, lines) = self.check_lines(&shown, &text, default_model)?;
        let settings = self.settings()?;
        let now = self.clock.now_ms();
        let mut report = PredictionImport {
            file: shown,
            lines,
            labels: 0,
            counter_claims: 0,
            counter_claims_known: 0,
            models: Vec::new(),
        };
        let tx = self.store.transaction()?;
        for c in &checked {
            if !report.models.contains(&c.model) {
                report.models.push(c.model.clone());
            }
            if let Some(label) = c.label {
                let p = LabelPrediction {
                    claim_id: c.claim,
                    model: c.model.clone(),
                    label,
                    score: c.score,
                };
                report.labels += u64::from(predictions::put_label(&tx, &p, now)?);
            }
            for text in &c.texts {
                if write_counter_claim(&tx, c, text, &settings, now)? {
                    report.counter_claims += 1;
                } else {
                    report.counter_claims_known += 1;
                }
            }
        }
        tx.commit()?;
        report.models.sort();
        Ok(report)
    }

    /// Checks every line of a predictions file (one label per claim and model); returns
    /// the checked lines and how many there were.
    fn check_lines(
        &self,
        shown: &str,
        text: &str,
        default_model: Option<&str>,
    ) -> Result<(Vec<Checked>, u64)> {
        let mut checked: Vec<Checked> = Vec::new();
        let mut lines = 0;
        // Each (claim, model)'s label and the line that gave it: one file gives one.
        let mut labels: HashMap<(i64, String), (Label, u64)> = HashMap::new();
        for (i, raw) in text.lines().enumerate() {
            if raw.trim().is_empty() {
                continue;
            }
            lines += 1;
            let n = i as u64 + 1;
            let c = self.check_line(shown, n, raw, default_model)?;
            if let Some(label) = c.label {
                let key = (c.claim, c.model.clone());
                match labels.get(&key) {
                    Some(&(first, at)) if first != label => {
                        return Err(Error::input(
                            shown,
                            n,
                            Some("prediction"),
                            format!(
                                "{label} for claim {:?} by {}, which line {at} predicted {first}: one file gives one label per claim and model",
                                c.claim_ext, c.model
                            ),
                        ));
                    }
                    Some(_) => {}
                    None => {
                        labels.insert(key, (label, n));
                    }
                }
            }
            checked.push(c);
        }
        if lines == 0 {
            return Err(Error::input(
                shown,
                0,
                None,
                "holds no prediction: write one JSON object per line (JSON Lines)",
            ));
        }
        Ok((checked, lines))
    }

    fn check_line(
        &self,
        file: &str,
        n: u64,
        raw: &str,
        default_model: Option<&str>,
    ) -> Result<Checked> {
        // The location names the file and line; the message does not repeat them.
        let bad = |field: Option<&str>, msg: String| Error::input(file, n, field, msg);
        if raw.trim_start().starts_with('[') {
            let what = if raw.split_whitespace().collect::<String>() == "[]" {
                "an empty JSON array"
            } else {
                "a JSON array"
            };
            return Err(bad(
                None,
                format!("{what}: a predictions file holds one JSON object per line (JSON Lines), such as {{\"claim_id\": \"c1\", \"prediction\": \"SUPPORTED\"}}"),
            ));
        }
        let line: Line = serde_json::from_str(raw)
            .map_err(|e| bad(None, format!("not a prediction line ({e})")))?;
        let model = model_of(&line, default_model).map_err(|msg| bad(Some("model"), msg))?;
        let claim = self.store.claim_by_ext_id(&line.claim_id)?.ok_or_else(|| {
            bad(
                Some("claim_id"),
                format!("no claim {:?} in the project", line.claim_id),
            )
        })?;
        let label = match &line.prediction {
            Some(p) => Some(
                p.parse::<Label>()
                    .map_err(|e| bad(Some("prediction"), e.to_string()))?,
            ),
            None => None,
        };
        if label == Some(Label::Failed) {
            return Err(bad(
                Some("prediction"),
                "FAILED marks a malformed claim, which is a person's call, not a prediction: predict SUPPORTED, REFUTED or NOT ENOUGH INFO".into(),
            ));
        }
        let texts: Vec<String> = match line.refuted {
            None => Vec::new(),
            Some(Refuted::One(t)) => vec![t],
            Some(Refuted::Many(ts)) => ts,
        };
        let texts: Vec<String> = texts.into_iter().map(|t| t.trim().to_string()).collect();
        if !texts.is_empty() && claim.parent_id.is_some() {
            return Err(bad(
                Some("claim_id"),
                format!(
                    "claim {:?} is itself a refutation: counter-claims are for original claims only (the gold data pairs a refutation with its original claim)",
                    line.claim_id
                ),
            ));
        }
        for t in &texts {
            check_counter_claim(&claim.text, t).map_err(|msg| bad(Some("refuted"), msg))?;
        }
        if label.is_none() && texts.is_empty() {
            return Err(bad(
                None,
                "a line needs \"prediction\" or \"refuted\"".into(),
            ));
        }
        if line.score.is_some_and(|s| !s.is_finite() || s < 0.0) {
            return Err(bad(
                Some("score"),
                "a score is a finite number, 0 or more".into(),
            ));
        }
        Ok(Checked {
            claim: claim.id,
            claim_ext: claim.ext_id,
            context: claim.context,
            source_url: claim.source_url,
            model,
            label,
            texts,
            score: line.score,
        })
    }
}

/// Writes a model's counter-claim `text` of `c`'s claim as a refutation of it, with its
/// documents and a verification task; false when the same model gave the same text for
/// the same claim before (it is that counter-claim).
fn write_counter_claim(
    tx: &factdesk_store::Tx<'_>,
    c: &Checked,
    text: &str,
    settings: &Settings,
    now: i64,
) -> Result<bool> {
    let key = blake3::hash(format!("{}\0{}\0{}", c.claim_ext, c.model, text).as_bytes());
    let ext_id = format!("{}/model/{}", c.claim_ext, &key.to_hex()[..16]);
    if tx::find_claim(tx, &ext_id)?.is_some() {
        return Ok(false);
    }
    let hash = factdesk_core::digest::digest(text.as_bytes());
    let child = tx::insert_claim(
        tx,
        &NewClaim {
            ext_id: &ext_id,
            text,
            context: c.context.as_deref(),
            label: None,
            source_url: c.source_url.as_deref(),
            parent_id: Some(c.claim),
            metadata: "{}",
            hash: &hash,
            import_id: None,
            created_at: now,
        },
    )?;
    tx::copy_documents(tx, c.claim, child)?;
    predictions::put_counter_claim(
        tx,
        &CounterClaim {
            claim_id: c.claim,
            model: c.model.clone(),
            counter_claim_id: child,
            score: c.score,
        },
        now,
    )?;
    crate::refutation::open_verification(tx, settings, child, now)?;
    Ok(true)
}

/// The line's model, or the default; why not when there is none or it is not a name.
fn model_of(line: &Line, default_model: Option<&str>) -> std::result::Result<String, String> {
    let model = line
        .model
        .as_deref()
        .or(default_model)
        .map(str::trim)
        .unwrap_or_default()
        .to_string();
    if model.is_empty() {
        return Err("no model named (give \"model\" or --model)".into());
    }
    if model.chars().count() > MAX_MODEL || model.chars().any(char::is_control) {
        return Err(format!(
            "a model name is at most {MAX_MODEL} characters, without control characters"
        ));
    }
    Ok(model)
}

/// Why a model's counter-claim `t` of `claim` is refused, if it is.
fn check_counter_claim(claim: &str, t: &str) -> std::result::Result<(), String> {
    if t.is_empty() || t.chars().count() > MAX_TEXT || t.contains('\0') {
        return Err(format!(
            "a counter-claim is 1 to {MAX_TEXT} characters, without NUL"
        ));
    }
    // The live checks a person's refutation passes, for what a machine gets wrong
    // alike: the claim retyped with only case, spacing or punctuation changed (length,
    // negation and subject are the verifiers' to judge).
    let copy = CheckSettings {
        empty: true,
        identical: true,
        length: false,
        negation_only: false,
        subject: false,
        ..CheckSettings::default()
    };
    match blocking(&check_refutation(claim, t, &copy)) {
        Some(fail) => Err(format!("counter-claim {t:?}: {}", fail.message)),
        None => Ok(()),
    }
}
