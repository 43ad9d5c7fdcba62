"""Reference sentence embeddings for the Rust embedder's test, computed at test time.

A plain numpy forward pass of the BERT encoder in model.safetensors (read by hand from
the file's header), with word pieces from the Hugging Face `tokenizers` library, mean
pooling over the attention mask and L2 normalisation, as sentence-transformers does for
all-MiniLM-L6-v2. It shares no code with candle, so agreement checks the Rust side.

Usage: python3 reference_embeddings.py MODEL_DIR < sentences.json > vectors.json
Needs numpy and tokenizers (scripts/setup pins both).
"""

import json
import math
import struct
import sys
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer


def load_safetensors(path):
    data = Path(path).read_bytes()
    (header_len,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + header_len])
    base = 8 + header_len
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] != "F32":
            continue
        start, end = info["data_offsets"]
        array = np.frombuffer(data[base + start : base + end], dtype="<f4")
        tensors[name] = array.reshape(info["shape"]).astype(np.float64)
    return tensors


def layer_norm(x, weight, bias, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


ERF = np.vectorize(math.erf)


def gelu(x):
    return 0.5 * x * (1.0 + ERF(x / math.sqrt(2.0)))


def embed(tensors, config, ids, mask):
    w = tensors
    eps = config["layer_norm_eps"]
    heads = config["num_attention_heads"]
    n = len(ids)
    x = (
        w["embeddings.word_embeddings.weight"][ids]
        + w["embeddings.position_embeddings.weight"][:n]
        + w["embeddings.token_type_embeddings.weight"][0]
    )
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    hidden = x.shape[1]
    size = hidden // heads
    blocked = np.where(np.array(mask) > 0, 0.0, -1e30)
    for layer in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{layer}."

        def dense(name, v):
            return v @ w[p + name + ".weight"].T + w[p + name + ".bias"]

        q = dense("attention.self.query", x).reshape(n, heads, size).transpose(1, 0, 2)
        k = dense("attention.self.key", x).reshape(n, heads, size).transpose(1, 0, 2)
        v = dense("attention.self.value", x).reshape(n, heads, size).transpose(1, 0, 2)
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(size) + blocked
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        context = (scores @ v).transpose(1, 0, 2).reshape(n, hidden)
        x = layer_norm(
            dense("attention.output.dense", context) + x,
            w[p + "attention.output.LayerNorm.weight"],
            w[p + "attention.output.LayerNorm.bias"],
            eps,
        )
        inner = gelu(dense("intermediate.dense", x))
        x = layer_norm(
            dense("output.dense", inner) + x,
            w[p + "output.LayerNorm.weight"],
            w[p + "output.LayerNorm.bias"],
            eps,
        )
    keep = np.array(mask, dtype=np.float64)[:, None]
    pooled = (x * keep).sum(0) / max(keep.sum(), 1e-9)
    return pooled / max(np.linalg.norm(pooled), 1e-12)


def main():
    model = Path(sys.argv[1])
    config = json.loads((model / "config.json").read_text())
    tensors = load_safetensors(model / "model.safetensors")
    tokenizer = Tokenizer.from_file(str(model / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(256)
    out = []
    for sentence in json.load(sys.stdin):
        enc = tokenizer.encode(sentence)
        out.append(embed(tensors, config, enc.ids, enc.attention_mask).tolist())
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
