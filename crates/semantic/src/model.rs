//! A BERT encoder's weights, read from `model.safetensors` and `config.json` and laid
//! out for the encoder: each linear layer's weight transposed to (inputs × outputs), and
//! the query, key and value projections of a layer joined into one product. Every shape
//! is checked against the config here, so the encoder never meets a mismatch.

use safetensors::{Dtype, SafeTensors};
use serde::Deserialize;

/// The parts of `config.json` the encoder uses.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Config {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    pub max_position_embeddings: usize,
    #[serde(default = "two")]
    pub type_vocab_size: usize,
    #[serde(default = "bert_eps")]
    pub layer_norm_eps: f64,
    #[serde(default = "gelu")]
    pub hidden_act: String,
}

fn two() -> usize {
    2
}
fn bert_eps() -> f64 {
    1e-12
}
fn gelu() -> String {
    "gelu".into()
}

/// A linear layer: `y = x * weight + bias`, `weight` (inputs × outputs) row-major.
#[derive(Debug)]
pub(crate) struct Linear {
    pub weight: Vec<f32>,
    pub bias: Vec<f32>,
    pub inputs: usize,
    pub outputs: usize,
}

#[derive(Debug)]
pub(crate) struct Norm {
    pub weight: Vec<f32>,
    pub bias: Vec<f32>,
}

#[derive(Debug)]
pub(crate) struct Layer {
    /// Query, key and value, in that order along the outputs.
    pub qkv: Linear,
    pub attention_out: Linear,
    pub attention_norm: Norm,
    pub intermediate: Linear,
    pub output: Linear,
    pub output_norm: Norm,
}

#[derive(Debug)]
pub(crate) struct Model {
    pub config: Config,
    pub words: Vec<f32>,
    pub positions: Vec<f32>,
    /// Token type 0's row: every text is a single segment.
    pub segment: Vec<f32>,
    pub embedding_norm: Norm,
    pub layers: Vec<Layer>,
    pub eps: f32,
}

/// Reads tensors by name from the file, in f32, checking each one's shape.
struct Tensors<'a> {
    file: SafeTensors<'a>,
    /// "" or "bert.": the prefix the file's names carry.
    prefix: &'static str,
}

impl Tensors<'_> {
    fn get(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, String> {
        let full = format!("{}{name}", self.prefix);
        let view = self
            .file
            .tensor(&full)
            .map_err(|e| format!("tensor {full}: {e}"))?;
        if view.shape() != shape {
            return Err(format!(
                "tensor {full} has shape {:?}, the config needs {shape:?}",
                view.shape()
            ));
        }
        match view.dtype() {
            Dtype::F32 => Ok(view
                .data()
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect()),
            other => Err(format!(
                "tensor {full} is {other:?}; only F32 weights are read"
            )),
        }
    }

    fn linear(&self, name: &str, inputs: usize, outputs: usize) -> Result<Linear, String> {
        let stored = self.get(&format!("{name}.weight"), &[outputs, inputs])?;
        Ok(Linear {
            weight: transpose(&stored, outputs, inputs),
            bias: self.get(&format!("{name}.bias"), &[outputs])?,
            inputs,
            outputs,
        })
    }

    fn norm(&self, name: &str, width: usize) -> Result<Norm, String> {
        Ok(Norm {
            weight: self.get(&format!("{name}.weight"), &[width])?,
            bias: self.get(&format!("{name}.bias"), &[width])?,
        })
    }
}

/// `rows × cols` row-major into `cols × rows` row-major.
fn transpose(m: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0.0; m.len()];
    for r in 0..rows {
        for c in 0..cols {
            out[c * rows + r] = m[r * cols + c];
        }
    }
    out
}

/// Joins linear layers with the same inputs side by side along their outputs.
fn join(parts: [Linear; 3]) -> Linear {
    let inputs = parts[0].inputs;
    let outputs: usize = parts.iter().map(|p| p.outputs).sum();
    let mut weight = Vec::with_capacity(inputs * outputs);
    for row in 0..inputs {
        for p in &parts {
            weight.extend_from_slice(&p.weight[row * p.outputs..(row + 1) * p.outputs]);
        }
    }
    let bias = parts.iter().flat_map(|p| p.bias.iter().copied()).collect();
    Linear {
        weight,
        bias,
        inputs,
        outputs,
    }
}

impl Model {
    /// Reads the model; an error says which file part is wrong.
    pub(crate) fn read(config: Config, weights: &[u8]) -> Result<Model, String> {
        if config.hidden_act != "gelu" {
            return Err(format!(
                "config.json: hidden_act {:?} is not supported (only \"gelu\")",
                config.hidden_act
            ));
        }
        let (h, heads) = (config.hidden_size, config.num_attention_heads);
        if heads == 0 || h % heads != 0 || config.type_vocab_size == 0 {
            return Err(format!(
                "config.json: hidden_size {h} is not a multiple of num_attention_heads {heads}"
            ));
        }
        let file =
            SafeTensors::deserialize(weights).map_err(|e| format!("model.safetensors: {e}"))?;
        let prefix = if file.names().iter().any(|n| n.starts_with("bert.")) {
            "bert."
        } else {
            ""
        };
        let t = Tensors { file, prefix };
        let words = t.get("embeddings.word_embeddings.weight", &[config.vocab_size, h])?;
        let positions = t.get(
            "embeddings.position_embeddings.weight",
            &[config.max_position_embeddings, h],
        )?;
        let mut segment = t.get(
            "embeddings.token_type_embeddings.weight",
            &[config.type_vocab_size, h],
        )?;
        segment.truncate(h);
        let embedding_norm = t.norm("embeddings.LayerNorm", h)?;
        let inner = config.intermediate_size;
        let layers = (0..config.num_hidden_layers)
            .map(|i| {
                let p = format!("encoder.layer.{i}.");
                Ok(Layer {
                    qkv: join([
                        t.linear(&format!("{p}attention.self.query"), h, h)?,
                        t.linear(&format!("{p}attention.self.key"), h, h)?,
                        t.linear(&format!("{p}attention.self.value"), h, h)?,
                    ]),
                    attention_out: t.linear(&format!("{p}attention.output.dense"), h, h)?,
                    attention_norm: t.norm(&format!("{p}attention.output.LayerNorm"), h)?,
                    intermediate: t.linear(&format!("{p}intermediate.dense"), h, inner)?,
                    output: t.linear(&format!("{p}output.dense"), inner, h)?,
                    output_norm: t.norm(&format!("{p}output.LayerNorm"), h)?,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Model {
            eps: config.layer_norm_eps as f32,
            config,
            words,
            positions,
            segment,
            embedding_norm,
            layers,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joined_layers_put_each_part_beside_the_others() {
        let part = |v: f32, outputs: usize| Linear {
            weight: vec![v; 2 * outputs],
            bias: vec![v; outputs],
            inputs: 2,
            outputs,
        };
        let j = join([part(1.0, 1), part(2.0, 2), part(3.0, 1)]);
        assert_eq!(j.outputs, 4);
        assert_eq!(j.weight, [1.0, 2.0, 2.0, 3.0, 1.0, 2.0, 2.0, 3.0]);
        assert_eq!(j.bias, [1.0, 2.0, 2.0, 3.0]);
        assert_eq!(
            transpose(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 2, 3),
            [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]
        );
    }
}
