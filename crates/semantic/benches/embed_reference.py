"""sentence-transformers on the texts the `embed` bench sends (JSON on stdin): prints
the wall and CPU seconds of one encode of all of them, and the vectors, as JSON.

Usage: python embed_reference.py MODEL_DIR THREADS. Run by the bench (scripts/bench-embed
makes the environment); the settings are sentence-transformers' own defaults (batches of
32, sorted by length), with torch held to THREADS threads."""

import json
import sys
import time


def main():
    model_dir, threads = sys.argv[1], int(sys.argv[2])
    import torch

    torch.set_num_threads(threads)
    import sentence_transformers
    from sentence_transformers import SentenceTransformer

    texts = json.load(sys.stdin)
    model = SentenceTransformer(model_dir, device="cpu")
    model.encode(texts[:64])
    cpu = time.process_time()
    start = time.perf_counter()
    vectors = model.encode(texts, normalize_embeddings=True, convert_to_numpy=True)
    seconds = time.perf_counter() - start
    json.dump(
        {
            "seconds": seconds,
            "cpu_seconds": time.process_time() - cpu,
            "threads": torch.get_num_threads(),
            "versions": f"torch {torch.__version__}, sentence-transformers {sentence_transformers.__version__}",
            "vectors": vectors.tolist(),
        },
        sys.stdout,
    )


if __name__ == "__main__":
    main()
