//! Turning input rows into claims, natively or through a preset for a known dataset.

use super::fields::Fields;
use super::rows::{json_kind, Row};
use super::Preset;
use crate::{Error, Result};
use factdesk_core::claim::Label;
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::sync::Arc;

/// A claim read from one input row, not yet written.
#[derive(Debug, Clone)]
pub struct ClaimInput {
    /// Shared by every row of its file.
    pub file: Arc<str>,
    pub line: u64,
    /// `None` until ids are assigned to rows that came without one.
    pub ext_id: Option<String>,
    pub text: String,
    pub context: Option<String>,
    pub label: Option<Label>,
    pub source_url: Option<String>,
    pub doc_ids: Vec<String>,
    /// Whether a `doc_ids` entry may name a document the project does not have (FEVER
    /// points at Wikipedia pages that are often not imported).
    pub doc_ids_optional: bool,
    pub evidence: Vec<String>,
    pub refuted: Option<String>,
    /// A pair's second text (`text_b`); the claim's text is its first.
    pub text_b: Option<String>,
    /// A control item's known answers, question id to label (`control`).
    pub control: Option<std::collections::BTreeMap<String, String>>,
    pub metadata: Map<String, Value>,
    /// The `ext_id` of the claim this one refutes, when the preset links them.
    pub parent_ext_id: Option<String>,
    pub raw: String,
    /// The content hash, computed once it is asked for (after ids and links are set).
    pub hash: std::sync::OnceLock<String>,
}

impl ClaimInput {
    /// A digest of everything the row says, to tell a re-import from an id clash.
    pub fn hash(&self) -> &str {
        self.hash.get_or_init(|| self.compute_hash())
    }

    fn compute_hash(&self) -> String {
        // Serialised from references: hashing should not copy every claim's text.
        let content = (
            &self.text,
            &self.context,
            self.label.map(Label::as_str),
            &self.source_url,
            &self.doc_ids,
            &self.evidence,
            &self.refuted,
            &self.metadata,
            &self.parent_ext_id,
        );
        // A claim without a second text hashes as it always has, so re-importing a file
        // imported before pairs existed finds its rows unchanged.
        match (&self.text_b, &self.control) {
            (None, None) => super::digest_json(&content),
            (Some(text_b), None) => super::digest_json(&(content, text_b)),
            (text_b, Some(control)) => super::digest_json(&(content, text_b, control)),
        }
    }
}

/// Native field names, mapped to the input's column names by `--map`.
#[derive(Debug, Clone)]
pub struct FieldMap {
    pairs: Vec<(String, String)>,
}

pub const NATIVE_FIELDS: [&str; 12] = [
    "id",
    "claim",
    "text_a",
    "text_b",
    "control",
    "context",
    "label",
    "source_url",
    "doc_ids",
    "evidence",
    "refuted",
    "metadata",
];

impl FieldMap {
    /// Parses `field=column` pairs, refusing unknown native field names.
    pub fn parse(pairs: &[(String, String)]) -> Result<FieldMap> {
        for (field, _) in pairs {
            if !NATIVE_FIELDS.contains(&field.as_str()) {
                return Err(Error::new(
                    crate::ErrorCode::InvalidInput,
                    format!(
                        "--map: unknown field {field:?}; the fields are {}",
                        NATIVE_FIELDS.join(", ")
                    ),
                ));
            }
        }
        Ok(FieldMap {
            pairs: pairs.to_vec(),
        })
    }

    fn column<'a>(&'a self, field: &'a str) -> &'a str {
        self.pairs
            .iter()
            .find(|(f, _)| f == field)
            .map_or(field, |(_, c)| c.as_str())
    }
}

fn base(file: &Arc<str>, row: &Row, text: String) -> ClaimInput {
    ClaimInput {
        file: file.clone(),
        line: row.line,
        ext_id: None,
        text,
        context: None,
        label: None,
        source_url: None,
        doc_ids: Vec::new(),
        doc_ids_optional: false,
        evidence: Vec::new(),
        refuted: None,
        text_b: None,
        control: None,
        metadata: Map::new(),
        parent_ext_id: None,
        // Filled in by the caller, which owns the row.
        raw: String::new(),
        hash: std::sync::OnceLock::new(),
    }
}

pub use factdesk_core::claim::MAX_CLAIM_CHARS;

/// The longest context accepted, in characters: about nine times WikiFactCheck's longest
/// (2,303). A context is sent with every item of its claim (hostile pass of session 34:
/// 5 MB went in and out with each).
pub const MAX_CONTEXT_CHARS: usize = 20_000;

/// Reads one row as a claim under `preset`.
pub fn from_row(preset: Preset, map: &FieldMap, file: &Arc<str>, row: &Row) -> Result<ClaimInput> {
    let f = Fields { file, row };
    preset.check_row(file, row)?;
    let claim = match preset {
        Preset::Native | Preset::Generic => native(map, &f),
        Preset::CovidFact => covid_fact(&f),
        Preset::WikiFactCheck => wikifactcheck(&f),
        Preset::Fever => fever(&f),
    }?;
    let field = |name| match preset {
        Preset::Native | Preset::Generic => map.column(name),
        _ => name,
    };
    // A refuted claim becomes a claim of its own, so it is held to a claim's length too
    // (hostile pass of session 34: 2,500 characters went in through `refuted`).
    let texts = [
        ("claim", Some(&claim.text), MAX_CLAIM_CHARS, "the claim"),
        (
            "refuted",
            claim.refuted.as_ref(),
            MAX_CLAIM_CHARS,
            "the refuted claim",
        ),
        (
            "context",
            claim.context.as_ref(),
            MAX_CONTEXT_CHARS,
            "the context",
        ),
    ];
    for (name, text, most, what) in texts {
        let chars = text.map_or(0, |t| t.chars().count());
        if chars > most {
            return Err(f.err(
                field(name),
                format!("{what} is {chars} characters long; it may hold at most {most}"),
            ));
        }
    }
    Ok(claim)
}

fn native(map: &FieldMap, f: &Fields<'_>) -> Result<ClaimInput> {
    let col = |name| map.column(name);
    // A pair's rows name their texts text_a and text_b; text_a is the claim's text.
    // A row that names text_a is a pair's, even when text_a is blank (refused as such).
    let text = match f.row.fields.get(col("text_a")) {
        Some(v) if !v.is_null() => {
            if col("claim") != col("text_a") && f.get(col("claim")).is_some_and(|v| !v.is_null()) {
                return Err(f.err(
                    col("text_a"),
                    "a row gives either a claim or a pair's text_a, not both",
                ));
            }
            f.required_str(col("text_a"))?
        }
        _ => f.required_str(col("claim"))?,
    };
    let mut c = base(f.file, f.row, text);
    c.ext_id = f.opt_id(col("id"))?;
    c.context = f.opt_str(col("context"))?;
    c.label = f.label(col("label"))?;
    c.source_url = f.opt_str(col("source_url"))?;
    c.doc_ids = f.str_list(col("doc_ids"), true, true)?;
    c.evidence = f.str_list(col("evidence"), false, false)?;
    // A row that gives text_b is a pair: a blank one is a broken row, not a claim.
    let gives_b = f
        .row
        .fields
        .get(col("text_b"))
        .is_some_and(|v| !v.is_null());
    c.text_b = f.opt_str(col("text_b"))?;
    if gives_b && c.text_b.as_deref().is_none_or(|t| t.trim().is_empty()) {
        return Err(f.err(col("text_b"), "a pair's second text is empty"));
    }
    c.control = control(f, col("control"))?;
    // A column read as the pair's second text is not also a refutation to write.
    if col("refuted") != col("text_b") {
        c.refuted = f.opt_str(col("refuted"))?;
    }
    c.metadata = f.object(col("metadata"))?;
    // Columns the format does not know are kept rather than silently dropped.
    let known: BTreeSet<&str> = NATIVE_FIELDS.iter().map(|n| col(n)).collect();
    for (k, v) in &f.row.fields {
        if known.contains(k.as_str()) || v.is_null() {
            continue;
        }
        f.kept_as_written(k)?;
        match c.metadata.get(k) {
            None => {
                c.metadata.insert(k.clone(), v.clone());
            }
            Some(kept) if super::numbers::same_value(kept, v) => {}
            Some(_) => {
                return Err(f.err(
                    k,
                    "metadata holds this name too, with another value; rename one so that \
                     neither is lost",
                ))
            }
        }
    }
    Ok(c)
}

/// A control item's known answers: an object of question ids and labels (a JSON object
/// in a CSV cell); `None` when the row gives none.
fn control(
    f: &Fields<'_>,
    column: &str,
) -> Result<Option<std::collections::BTreeMap<String, String>>> {
    if f.get(column).is_none() {
        return Ok(None);
    }
    let map = f.object(column)?;
    if map.is_empty() {
        return Err(f.err(
            column,
            "a control item names at least one question and its label",
        ));
    }
    map.into_iter()
        .map(|(q, v)| match v {
            Value::String(label) if !label.trim().is_empty() => Ok((q, label)),
            _ => Err(f.err(
                column,
                format!("question {q:?}: a control gives the label a choice question must be answered with, as text"),
            )),
        })
        .collect::<Result<_>>()
        .map(Some)
}

fn covid_fact(f: &Fields<'_>) -> Result<ClaimInput> {
    let mut c = base(f.file, f.row, f.required_str("claim")?);
    c.label = f.label("label")?;
    c.evidence = f.str_list("evidence", false, false)?;
    c.source_url = f.opt_str("gold_source")?;
    if let Some(flair) = f.opt_str("flair")? {
        c.metadata.insert("flair".into(), Value::String(flair));
    }
    Ok(c)
}

fn wikifactcheck(f: &Fields<'_>) -> Result<ClaimInput> {
    let mut c = base(f.file, f.row, f.required_str("claim")?);
    let id = f.required_id("id")?;
    c.ext_id = Some(format!("wikifactcheck:{id}"));
    c.context = f.opt_str("context")?;
    c.source_url = f.opt_str("url")?;
    c.refuted = f.opt_str("refuted")?;
    // WikiFactCheck claims are Wikipedia sentences backed by their cited source.
    c.label = Some(Label::Supported);
    if let Some(md5) = f.opt_str("url_md5")? {
        c.metadata.insert("url_md5".into(), Value::String(md5));
    }
    Ok(c)
}

fn fever(f: &Fields<'_>) -> Result<ClaimInput> {
    let mut c = base(f.file, f.row, f.required_str("claim")?);
    let id = f.required_id("id")?;
    c.ext_id = Some(format!("fever:{id}"));
    c.label = f.label("label")?;
    c.doc_ids_optional = true;
    if let Some(evidence) = f.get("evidence") {
        // FEVER evidence: a list of sets of [annotation id, evidence id, page, sentence].
        let sets = evidence.as_array().map(Vec::as_slice).unwrap_or_default();
        // Each set a list of evidence, each evidence a list [annotation, id, page, line].
        let not_a_set = |set: &&Value| match set.as_array() {
            Some(items) => items.iter().any(|e| !e.is_array()),
            None => true,
        };
        if let Some(bad) = sets.iter().find(not_a_set) {
            return Err(f.err(
                "evidence",
                format!(
                    "FEVER evidence is a list of evidence sets, each a list of [annotation, \
                     evidence id, page, sentence]; found {} in the list (is this COVID-Fact? \
                     try --preset covid-fact)",
                    if bad.is_array() {
                        "a set holding something that is not a list"
                    } else {
                        json_kind(bad)
                    }
                ),
            ));
        }
        let pages: BTreeSet<String> = evidence
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_array)
            .flatten()
            .filter_map(|e| e.get(2).and_then(Value::as_str).map(str::to_string))
            .collect();
        c.doc_ids = pages.into_iter().collect();
        f.kept_as_written("evidence")?;
        c.metadata.insert("fever_evidence".into(), evidence.clone());
    }
    if let Some(v) = f.opt_str("verifiable")? {
        c.metadata.insert("verifiable".into(), Value::String(v));
    }
    Ok(c)
}

/// COVID-Fact's refuted claims were generated from supported ones and share their
/// evidence list: link each to the most similar supported claim with the same evidence.
pub fn link_covid_fact_refutations(claims: &mut [ClaimInput]) {
    use std::collections::HashMap;
    let mut supported: HashMap<Vec<String>, Vec<usize>> = HashMap::new();
    for (i, c) in claims.iter().enumerate() {
        if c.label == Some(Label::Supported) && !c.evidence.is_empty() {
            supported.entry(c.evidence.clone()).or_default().push(i);
        }
    }
    let mut links = Vec::new();
    for (i, c) in claims.iter().enumerate() {
        if c.label != Some(Label::Refuted) {
            continue;
        }
        let Some(candidates) = supported.get(&c.evidence) else {
            continue;
        };
        let words = word_set(&c.text);
        // Highest word overlap wins; the earliest row breaks ties.
        let best = candidates.iter().copied().max_by(|&a, &b| {
            let (sa, sb) = (
                jaccard(&words, &word_set(&claims[a].text)),
                jaccard(&words, &word_set(&claims[b].text)),
            );
            sa.total_cmp(&sb).then(b.cmp(&a))
        });
        if let Some(parent) = best {
            links.push((i, claims[parent].ext_id.clone()));
        }
    }
    for (i, parent) in links {
        claims[i].parent_ext_id = parent;
        // The link is part of the content: forget any hash taken before it.
        claims[i].hash = std::sync::OnceLock::new();
    }
}

fn word_set(text: &str) -> BTreeSet<String> {
    factdesk_core::text::tokens(text)
        .iter()
        .map(|t| factdesk_core::text::normalize_token(t.text))
        .collect()
}

fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(b).count() as f64 / union as f64
}
