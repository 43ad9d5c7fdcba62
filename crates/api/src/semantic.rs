//! The semantic ranker: the claim's and each candidate sentence's all-MiniLM-L6-v2
//! embedding compared by cosine, over at most `depth` sentences per claim: BM25's best, then
//! those sharing no word with the claim, which BM25 cannot score (a large
//! document is never embedded whole for one claim). Embeddings are cached in the project
//! by text and model, so re-ranking and new claims on the same documents embed nothing
//! twice.

use crate::Lead;
use crate::{Error, ErrorCode, Project, Result};
use factdesk_core::ranking::{self, Scored};
use factdesk_semantic::{locate, Embedder, Locations};
use factdesk_store::embeddings::{self, TextKey};
use factdesk_store::Read;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, RwLock};

/// How many sentences per claim the semantic ranker re-ranks unless the project
/// says otherwise.
pub const DEFAULT_DEPTH: usize = crate::settings::DEFAULT_RERANK_DEPTH as usize;

/// A loaded model with the embeddings known so far in this run.
#[derive(Debug)]
pub struct SemanticRanker {
    embedder: Embedder,
    depth: usize,
    known: RwLock<HashMap<TextKey, Arc<[f32]>>>,
    /// Texts embedded in this run and not yet stored.
    fresh: Mutex<Vec<TextKey>>,
}

fn poisoned() -> Error {
    Error::new(
        ErrorCode::Io,
        "the embedding cache was left broken by a failed thread",
    )
}

fn model_error(e: factdesk_semantic::Error) -> Error {
    let code = match e {
        factdesk_semantic::Error::NotFound { .. }
        | factdesk_semantic::Error::MissingFile { .. } => ErrorCode::NotFound,
        _ => ErrorCode::Io,
    };
    Error::new(code, e.to_string())
}

impl SemanticRanker {
    /// Loads the model in `dir`; re-ranks `depth` sentences per claim (at least 1).
    pub fn load(dir: &Path, depth: usize) -> Result<SemanticRanker> {
        let embedder = Embedder::load(dir).map_err(model_error)?;
        tracing::info!(model = embedder.id(), dir = %dir.display(), "semantic ranker loaded");
        Ok(SemanticRanker {
            embedder,
            depth: depth.max(1),
            known: RwLock::new(HashMap::new()),
            fresh: Mutex::new(Vec::new()),
        })
    }

    /// How many sentences per claim it re-ranks.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The model's id, as cached embeddings are keyed.
    pub fn model_id(&self) -> &str {
        self.embedder.id()
    }

    /// Reads the cached embeddings of `texts` not known yet from the project.
    pub fn prefill<'a>(&self, conn: &Read, texts: impl IntoIterator<Item = &'a str>) -> Result<()> {
        let keys: Vec<TextKey> = {
            let known = self.known.read().map_err(|_| poisoned())?;
            texts
                .into_iter()
                .map(embeddings::text_key)
                .filter(|k| !known.contains_key(k))
                .collect()
        };
        let mut found = Vec::new();
        for key in keys {
            if let Some(v) = embeddings::get(conn, self.model_id(), &key)? {
                if v.len() == self.embedder.dimension() {
                    found.push((key, Arc::<[f32]>::from(v)));
                }
            }
        }
        self.known.write().map_err(|_| poisoned())?.extend(found);
        Ok(())
    }

    /// The embeddings of `texts`, from the cache or computed now (in one batch).
    pub fn vectors(&self, texts: &[&str]) -> Result<Vec<Arc<[f32]>>> {
        let keys: Vec<TextKey> = texts.iter().map(|t| embeddings::text_key(t)).collect();
        let mut out: Vec<Option<Arc<[f32]>>> = {
            let known = self.known.read().map_err(|_| poisoned())?;
            keys.iter().map(|k| known.get(k).cloned()).collect()
        };
        let mut missing: Vec<usize> = (0..texts.len()).filter(|&i| out[i].is_none()).collect();
        // A text repeated in one call is embedded once.
        missing.sort_by_key(|&i| keys[i]);
        missing.dedup_by_key(|i| keys[*i]);
        if !missing.is_empty() {
            let batch: Vec<&str> = missing.iter().map(|&i| texts[i]).collect();
            let computed = self
                .embedder
                .embed(&batch)
                .map_err(|e| Error::new(ErrorCode::Io, e.to_string()))?;
            let mut known = self.known.write().map_err(|_| poisoned())?;
            let mut fresh = self.fresh.lock().map_err(|_| poisoned())?;
            for (&i, v) in missing.iter().zip(computed) {
                if known.insert(keys[i], Arc::from(v)).is_none() {
                    fresh.push(keys[i]);
                }
            }
            for (i, slot) in out.iter_mut().enumerate() {
                if slot.is_none() {
                    *slot = known.get(&keys[i]).cloned();
                }
            }
        }
        out.into_iter()
            .map(|v| v.ok_or_else(|| Error::new(ErrorCode::Io, "an embedding went missing")))
            .collect()
    }

    /// Ranks the first `depth` sentences of `bm25` (BM25's best first, or any list of
    /// candidates) by cosine with the claim.
    pub fn rank(
        &self,
        claim: &str,
        bm25: &[Scored],
        text_of: &HashMap<i64, &str>,
    ) -> Result<Vec<Scored>> {
        let top: Vec<(i64, &str)> = bm25
            .iter()
            .take(self.depth)
            .filter_map(|s| text_of.get(&s.sentence_id).map(|t| (s.sentence_id, *t)))
            .collect();
        if top.is_empty() {
            return Ok(Vec::new());
        }
        let mut texts: Vec<&str> = Vec::with_capacity(top.len() + 1);
        texts.push(claim);
        texts.extend(top.iter().map(|(_, t)| *t));
        let vectors = self.vectors(&texts)?;
        Ok(ranking::by_cosine(
            &vectors[0],
            top.iter()
                .zip(&vectors[1..])
                .map(|((id, _), v)| (*id, &v[..])),
        ))
    }

    /// Stores the embeddings computed since the last call; returns how many.
    pub fn save(&self, conn: &factdesk_store::Tx<'_>) -> Result<u64> {
        self.save_at_most(conn, usize::MAX)
    }

    /// Stores at most `at_most` of the embeddings not stored yet, so a long run can store
    /// them a transaction at a time; returns how many (0 once all are stored).
    pub fn save_at_most(&self, conn: &factdesk_store::Tx<'_>, at_most: usize) -> Result<u64> {
        let keys: Vec<TextKey> = {
            let mut fresh = self.fresh.lock().map_err(|_| poisoned())?;
            let from = fresh.len().saturating_sub(at_most);
            fresh.split_off(from)
        };
        let known = self.known.read().map_err(|_| poisoned())?;
        let rows: Vec<(TextKey, &[f32])> = keys
            .iter()
            .filter_map(|k| known.get(k).map(|v| (*k, &v[..])))
            .collect();
        embeddings::put(conn, self.model_id(), &rows)?;
        Ok(rows.len() as u64)
    }
}

/// Whether the semantic ranker must be there (it was asked for by name) or is used when
/// it can be (inside `fused`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    Required,
    IfAvailable,
}

impl Project {
    /// The semantic ranker for this project: the model in `named` (`--model DIR`), else
    /// in the project's `ranking.model_dir`, else in the default folders. `None` when the
    /// project turned it off or no model is installed, unless `need` requires it: then
    /// the error names what to install.
    pub fn semantic_ranker(
        &self,
        lead: &Lead,
        named: Option<&Path>,
        need: Need,
    ) -> Result<Option<SemanticRanker>> {
        self.acting_lead(lead)?;
        let settings = self.settings()?;
        semantic_for(&settings.ranking, named, need, &Locations::from_env())
    }
}

/// The semantic ranker the ranking settings and `named` folder call for, looking in
/// `locations` when neither names a folder.
pub fn semantic_for(
    settings: &crate::settings::RankingSettings,
    named: Option<&Path>,
    need: Need,
    locations: &Locations,
) -> Result<Option<SemanticRanker>> {
    if named.is_none() && need == Need::IfAvailable && !settings.semantic {
        return Ok(None);
    }
    let setting = settings.model_dir.as_deref().map(Path::new);
    match locate(named.or(setting), locations) {
        Ok(dir) => SemanticRanker::load(&dir, settings.rerank_depth as usize).map(Some),
        // A folder the project names is asked for by name: missing, it fails the run as
        // `rank` does, rather than ranking an import's claims without it.
        Err(e) if need == Need::IfAvailable && named.is_none() && setting.is_none() => {
            tracing::warn!("ranking.semantic is on but fused ranks without it: {e}");
            Ok(None)
        }
        Err(e) => Err(model_error(e)),
    }
}
