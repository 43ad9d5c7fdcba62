"""Loads a Factdesk Hugging Face dataset folder with `datasets` and checks it against
the JSON Lines beside each Parquet file: the splits, every row, and the features the
card's YAML declares. Prints one JSON object; exits non-zero on any difference."""

import json
import pathlib
import sys

import datasets
from datasets import Features, List, Value


def expected_features():
    s = Value("string")
    return Features(
        {
            "id": s,
            "claim": s,
            "label": s,
            "evidence": List(
                {"document_id": s, "sentence_index": Value("int64"), "text": s}
            ),
            "context": s,
            "source_url": s,
            "parent_id": s,
            "split": s,
            "agreement": {"answers": Value("int64"), "share_agreeing": Value("float64")},
            "provenance": {
                "method": s,
                "lead": s,
                "at": Value("int64"),
                "reason": s,
                "taken_from": s,
            },
        }
    )


def main(folder):
    root = pathlib.Path(folder)
    loaded = datasets.load_dataset(str(root))
    files = sorted(p.stem for p in (root / "data").glob("*.jsonl"))
    if sorted(loaded.keys()) != files:
        sys.exit(f"splits {sorted(loaded.keys())} != files {files}")
    rows = {}
    for split, ds in loaded.items():
        if ds.features != expected_features():
            sys.exit(f"{split}: features {ds.features} differ")
        lines = [json.loads(l) for l in (root / "data" / f"{split}.jsonl").read_text().splitlines()]
        got = ds.to_list()
        if len(got) != len(lines):
            sys.exit(f"{split}: {len(got)} rows loaded, {len(lines)} lines")
        for n, (g, want) in enumerate(zip(got, lines)):
            if g != want:
                sys.exit(f"{split} row {n}: loaded {g!r} != line {want!r}")
        rows[split] = len(got)
    print(json.dumps({"datasets": datasets.__version__, "rows": rows}))


if __name__ == "__main__":
    main(sys.argv[1])
