//! What the use cases return, shaped for JSON output and the app's typed bindings.

pub use crate::tasks::NoTask;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Row counts of a project.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Stats {
    pub claims: u64,
    pub root_claims: u64,
    pub refutations: u64,
    pub documents: u64,
    pub sentences: u64,
    pub candidates: u64,
    pub tasks: u64,
    pub annotations: u64,
    pub annotators: u64,
}

impl From<factdesk_store::Counts> for Stats {
    fn from(c: factdesk_store::Counts) -> Stats {
        Stats {
            claims: c.claims,
            root_claims: c.root_claims,
            refutations: c.claims - c.root_claims,
            documents: c.documents,
            sentences: c.sentences,
            candidates: c.candidates,
            tasks: c.tasks,
            annotations: c.annotations,
            annotators: c.annotators,
        }
    }
}

/// The project overview shown when a project is opened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Overview {
    pub id: String,
    pub name: String,
    pub path: String,
    pub schema_version: u32,
    /// The project's counts: a lead's, or whoever holds the file before choosing who is
    /// working; a pack's own items and answers. Null for an annotator: the count of
    /// originals would tell which claim numbers are refutations, and the count of answers
    /// would tick as others answer.
    pub stats: Option<Stats>,
}

/// What an import did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ImportReport {
    pub files: Vec<String>,
    /// Rows read from the input files.
    pub rows: u64,
    pub claims_added: u64,
    pub documents_added: u64,
    pub sentences_added: u64,
    /// Rows already in the project with the same content.
    pub unchanged: u64,
    /// Rows rejected under `--skip-invalid`.
    pub rejected: u64,
    /// Where the rejected rows were written, with their reasons: one file beside each
    /// input that had any.
    pub rejects_files: Vec<String>,
    /// The first of `rejects_files`, as `import --json` printed before it listed them all.
    pub rejects_file: Option<String>,
    /// Claims that got their candidate evidence sentences ranked.
    pub claims_ranked: u64,
    /// The evidence stance this import's preset chose for the project, if it chose one.
    pub evidence_stance: Option<crate::settings::EvidenceStance>,
    /// Claims whose document holds only their own published evidence sentences (the
    /// COVID-Fact preset): every candidate of theirs is gold, so their evidence items
    /// need distractors before they measure anything.
    #[serde(default)]
    pub gold_only_candidates: u64,
}

/// What a search hit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum SearchHitKind {
    Claim,
    Sentence,
}

/// A claim or sentence found by full-text search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct SearchHit {
    pub kind: SearchHitKind,
    /// The claim's or sentence's id in the project (a claim's number); 0 in an
    /// annotator's hits, where it would tell the import order (a refutation comes after
    /// its original).
    pub id: i64,
    /// How the person names a claim hit and opens its page (`claim_view`): a lead its
    /// number ("#12"), an annotator an opaque reference of their own ("c" and 12 hex
    /// digits). Empty for a sentence.
    pub reference: String,
    /// The claim's own id, or the id of the sentence's document (empty for an annotator:
    /// it would tell the trick's document from the real candidates').
    pub ext_id: String,
    pub text: String,
    /// Lead only.
    pub document_id: Option<i64>,
    /// How well the hit matches (BM25 over the whole index). Lead only: the whole
    /// index holds claims an annotator may not see, and their scores moved as a colleague
    /// wrote a refutation, naming its words (issue 31).
    pub score: Option<f32>,
}

/// A candidate evidence sentence of a claim, as `factdesk candidates` prints it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct CandidateView {
    pub sentence_id: i64,
    /// The id of the sentence's document, as imported.
    pub document_id: String,
    /// The sentence's position in its document, from 0.
    pub sentence_index: u32,
    pub text: String,
    /// 1 is best.
    pub rank: u32,
    pub score: f64,
    pub ranker: String,
    /// The rankers (bm25, levenshtein, jaccard, semantic) whose own top k held this
    /// sentence; empty for candidates ranked before this was recorded. For the lead's
    /// views only: annotators never see it.
    pub placed_by: Vec<String>,
}

/// What `factdesk rank` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct RankReport {
    pub ranker: String,
    pub claims: u64,
    pub candidates: u64,
    /// Claims whose candidates were kept as they were: people have been shown them (an
    /// item served, packed, answered or decided), and answers stay facts about what was
    /// shown.
    pub kept: u64,
    /// Claims the ranker scored no sentence of (BM25 or Jaccard alone, when a claim shares
    /// no word with its documents): they keep the candidates they had, so no item is left
    /// with nothing to choose from.
    pub unscored: u64,
    /// The semantic model that took part (its id), if any.
    pub semantic_model: Option<String>,
    /// Texts (claims and sentences) embedded for it; the others came from the cache.
    pub embedded: u64,
}

/// One ranker's figures in a ranking evaluation: each the mean over claims of that
/// claim's figure at k = 1, 2, 3 and 5 (definitions with formulas in docs/ranking.md). The
/// JSON names are `hit@1`, `recall@3`, `map@5` and so on.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct RankerScore {
    pub ranker: String,
    /// At least one gold sentence in the top k (1 or 0): COVID-Fact's evidence recall.
    #[serde(rename = "hit@1")]
    pub hit_at_1: f64,
    #[serde(rename = "hit@2")]
    pub hit_at_2: f64,
    #[serde(rename = "hit@3")]
    pub hit_at_3: f64,
    #[serde(rename = "hit@5")]
    pub hit_at_5: f64,
    /// The share of the claim's gold sentences found in the top k.
    #[serde(rename = "recall@1")]
    pub recall_at_1: f64,
    #[serde(rename = "recall@2")]
    pub recall_at_2: f64,
    #[serde(rename = "recall@3")]
    pub recall_at_3: f64,
    #[serde(rename = "recall@5")]
    pub recall_at_5: f64,
    /// The share of the top k that is gold, out of k.
    #[serde(rename = "precision@1")]
    pub precision_at_1: f64,
    #[serde(rename = "precision@2")]
    pub precision_at_2: f64,
    #[serde(rename = "precision@3")]
    pub precision_at_3: f64,
    #[serde(rename = "precision@5")]
    pub precision_at_5: f64,
    /// The harmonic mean of the claim's precision and recall at k.
    #[serde(rename = "f1@1")]
    pub f1_at_1: f64,
    #[serde(rename = "f1@2")]
    pub f1_at_2: f64,
    #[serde(rename = "f1@3")]
    pub f1_at_3: f64,
    #[serde(rename = "f1@5")]
    pub f1_at_5: f64,
    /// 1 / the rank of the first gold sentence within the top k, else 0.
    #[serde(rename = "mrr@1")]
    pub mrr_at_1: f64,
    #[serde(rename = "mrr@2")]
    pub mrr_at_2: f64,
    #[serde(rename = "mrr@3")]
    pub mrr_at_3: f64,
    #[serde(rename = "mrr@5")]
    pub mrr_at_5: f64,
    /// Average precision at k, divided by min(k, the number of gold sentences).
    #[serde(rename = "map@1")]
    pub map_at_1: f64,
    #[serde(rename = "map@2")]
    pub map_at_2: f64,
    #[serde(rename = "map@3")]
    pub map_at_3: f64,
    #[serde(rename = "map@5")]
    pub map_at_5: f64,
}

/// What `factdesk eval-ranking` reports.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct EvalReport {
    /// Claims whose gold evidence was found among their documents' sentences.
    pub claims: u64,
    pub rankers: Vec<RankerScore>,
    /// The semantic model evaluated (its id); null when none was found.
    pub semantic_model: Option<String>,
}

/// How far a job running in the background (an import, a ranking) has come.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ImportProgress {
    /// What it is doing: reading, writing, ranking...
    pub phase: String,
    /// Units of the phase done so far (rows, claims).
    pub done: u64,
    /// 0 when not known.
    pub total: u64,
}

/// How a background import ended: a report, or the error that left the project unchanged.
#[derive(Debug, Clone, Serialize, Deserialize, TS)]
pub struct ImportOutcome {
    pub report: Option<ImportReport>,
    pub error: Option<crate::Error>,
}

impl From<crate::Result<ImportReport>> for ImportOutcome {
    fn from(result: crate::Result<ImportReport>) -> Self {
        match result {
            Ok(report) => ImportOutcome {
                report: Some(report),
                error: None,
            },
            Err(e) => ImportOutcome {
                report: None,
                error: Some(e),
            },
        }
    }
}

/// How a ranking run in the background ended: a report, or the error that left every
/// candidate as it was (`cancelled` when the lead stopped it).
#[derive(Debug, Clone, Serialize, TS)]
pub struct RankOutcome {
    pub report: Option<RankReport>,
    pub error: Option<crate::Error>,
}

impl From<crate::Result<RankReport>> for RankOutcome {
    fn from(result: crate::Result<RankReport>) -> Self {
        match result {
            Ok(report) => RankOutcome {
                report: Some(report),
                error: None,
            },
            Err(e) => RankOutcome {
                report: None,
                error: Some(e),
            },
        }
    }
}
