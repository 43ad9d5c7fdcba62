//! The forward pass of the encoder over a chunk of texts, without padding: the texts'
//! word pieces are stacked row after row, every linear layer is one product over all of
//! them, and attention runs within each text's own rows. So no work is spent on padding
//! and no mask is needed; a text's result is the same whatever it is chunked with.

use crate::kernel::{product, Matrix, MatrixMut};
use crate::math;
use crate::model::{Linear, Model, Norm};

/// Buffers one worker reuses from chunk to chunk.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    x: Vec<f32>,
    qkv: Vec<f32>,
    context: Vec<f32>,
    sum: Vec<f32>,
    inner: Vec<f32>,
    scores: Vec<f32>,
}

fn sized(v: &mut Vec<f32>, len: usize) -> &mut [f32] {
    v.resize(len, 0.0);
    &mut v[..len]
}

/// `out = x * layer + bias (+ out's rows as they are, when `residual`)`, over `rows`.
fn linear(layer: &Linear, x: &[f32], rows: usize, out: &mut [f32], residual: bool) {
    let (n, k) = (layer.outputs, layer.inputs);
    for row in out.chunks_exact_mut(n).take(rows) {
        if residual {
            for (o, b) in row.iter_mut().zip(&layer.bias) {
                *o += b;
            }
        } else {
            row.copy_from_slice(&layer.bias);
        }
    }
    product(
        MatrixMut {
            data: out,
            rows,
            cols: n,
            row_stride: n,
        },
        Matrix {
            data: x,
            rows,
            cols: k,
            row_stride: k,
            col_stride: 1,
        },
        Matrix {
            data: &layer.weight,
            rows: k,
            cols: n,
            row_stride: n,
            col_stride: 1,
        },
        1.0,
        true,
    );
}

fn normalize_rows(x: &mut [f32], width: usize, norm: &Norm, eps: f32) {
    for row in x.chunks_exact_mut(width) {
        math::layer_norm(row, &norm.weight, &norm.bias, eps);
    }
}

impl Model {
    /// Mean-pooled (not yet normalised) vectors of texts given as word-piece ids, one
    /// slice per text; every id is below the vocabulary size and no text is longer than
    /// the position table (both checked by the caller).
    pub(crate) fn pooled(&self, texts: &[&[u32]], s: &mut Scratch) -> Vec<Vec<f32>> {
        let h = self.config.hidden_size;
        let rows: usize = texts.iter().map(|t| t.len()).sum();
        let x = sized(&mut s.x, rows * h);
        let mut row = 0;
        for t in texts {
            for (position, &id) in t.iter().enumerate() {
                let out = &mut x[row * h..(row + 1) * h];
                let word = &self.words[id as usize * h..(id as usize + 1) * h];
                let place = &self.positions[position * h..(position + 1) * h];
                for (((o, w), p), g) in out.iter_mut().zip(word).zip(place).zip(&self.segment) {
                    *o = w + p + g;
                }
                row += 1;
            }
        }
        normalize_rows(x, h, &self.embedding_norm, self.eps);
        for layer in &self.layers {
            let qkv = sized(&mut s.qkv, rows * 3 * h);
            linear(&layer.qkv, &s.x, rows, qkv, false);
            self.attend(texts, s);
            // The residual goes in first and the product adds onto it.
            let sum = sized(&mut s.sum, rows * h);
            sum.copy_from_slice(&s.x[..rows * h]);
            linear(&layer.attention_out, &s.context, rows, sum, true);
            normalize_rows(sum, h, &layer.attention_norm, self.eps);
            std::mem::swap(&mut s.x, &mut s.sum);
            let inner = sized(&mut s.inner, rows * layer.intermediate.outputs);
            linear(&layer.intermediate, &s.x, rows, inner, false);
            math::gelu(inner);
            let sum = sized(&mut s.sum, rows * h);
            sum.copy_from_slice(&s.x[..rows * h]);
            linear(&layer.output, &s.inner, rows, sum, true);
            normalize_rows(sum, h, &layer.output_norm, self.eps);
            std::mem::swap(&mut s.x, &mut s.sum);
        }
        let mut start = 0;
        texts
            .iter()
            .map(|t| {
                let mut v = vec![0.0f32; h];
                for r in start..start + t.len() {
                    for (a, b) in v.iter_mut().zip(&s.x[r * h..(r + 1) * h]) {
                        *a += b;
                    }
                }
                start += t.len();
                // sentence-transformers divides by the count clamped at 1e-9.
                let count = (t.len() as f32).max(1e-9);
                v.iter_mut().for_each(|a| *a /= count);
                v
            })
            .collect()
    }

    /// Self-attention of every text within its own rows, head by head, into `context`.
    fn attend(&self, texts: &[&[u32]], s: &mut Scratch) {
        let h = self.config.hidden_size;
        let heads = self.config.num_attention_heads;
        let size = h / heads;
        let scale = 1.0 / (size as f32).sqrt();
        let rows: usize = texts.iter().map(|t| t.len()).sum();
        let context = sized(&mut s.context, rows * h);
        let mut start = 0;
        for t in texts {
            let n = t.len();
            let scores = sized(&mut s.scores, n * n);
            let block = &s.qkv[start * 3 * h..];
            for head in 0..heads {
                let q = &block[head * size..];
                let k = &block[h + head * size..];
                let v = &block[2 * h + head * size..];
                product(
                    MatrixMut {
                        data: scores,
                        rows: n,
                        cols: n,
                        row_stride: n,
                    },
                    Matrix {
                        data: q,
                        rows: n,
                        cols: size,
                        row_stride: 3 * h,
                        col_stride: 1,
                    },
                    // The keys transposed: element (d, j) is key j's d-th value.
                    Matrix {
                        data: k,
                        rows: size,
                        cols: n,
                        row_stride: 1,
                        col_stride: 3 * h,
                    },
                    scale,
                    false,
                );
                for row in scores.chunks_exact_mut(n) {
                    math::softmax(row);
                }
                product(
                    MatrixMut {
                        data: &mut context[start * h + head * size..],
                        rows: n,
                        cols: size,
                        row_stride: h,
                    },
                    Matrix {
                        data: scores,
                        rows: n,
                        cols: n,
                        row_stride: n,
                        col_stride: 1,
                    },
                    Matrix {
                        data: v,
                        rows: n,
                        cols: size,
                        row_stride: 3 * h,
                        col_stride: 1,
                    },
                    1.0,
                    false,
                );
            }
            start += n;
        }
    }
}
