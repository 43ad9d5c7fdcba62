"""Writes seeded import inputs for the import benchmark (native JSON Lines, --docs).

Shapes:
  synthetic  N claims of about 15 words, each with its own document of 5 sentences of
             about 25 words; one of the sentences restates the claim loosely.
  fever      PAGES shared pages of about 5 KB and N claims naming 1-3 pages each.
  csv        the rows of a synthetic OUT_DIR (N and SEED unused) again as claims.csv and
             documents.csv, the form many teams keep their data in.
  narrow     the synthetic shape with documents and claims drawn from 234 content words,
             so no sentence shares no word with a claim: no trick sentence can be found
             under the supports-or-refutes stance (scripts/bench-tasks).
  covid      the synthetic shape in COVID-Fact's own words (read from COVIDFACT, never
             copied): each claim is a COVID-Fact claim with its evidence sentences in a
             document of 5, filled with other COVID-Fact evidence sentences; in every
             claim and sentence about a third of the words are swapped for words drawn
             by their frequency in COVID-Fact, so no two texts are alike and the words,
             their lengths and their frequencies are the dataset's.

Usage: import_generate.py SHAPE OUT_DIR N SEED [PAGES | COVIDFACT]
Writes OUT_DIR/claims.jsonl and OUT_DIR/documents.jsonl (csv: the .csv files beside them).
"""

import csv
import json
import os
import random
import sys

FUNCTION_WORDS = (
    "the of and to in a by that for on with was were is from at as during between "
    "according after before its their this".split()
)
OPENERS = ["Dr. Hale said", "In the U.S. market", "According to No. 4 report", "The council"]
SYLLABLES = (
    "ka ter lo vin ma sel dra po rin ul gest on bar ith mo cre ant vel ser ly qua dom pha tur"
).split()


def word(rank: int) -> str:
    out = []
    while True:
        out.append(SYLLABLES[rank % len(SYLLABLES)])
        rank //= len(SYLLABLES)
        if rank == 0:
            return "".join(out)


VOCABULARY = 20000


def content_word(rng: random.Random) -> str:
    # A log-uniform rank gives Zipf-like frequencies over the vocabulary.
    return word(int(VOCABULARY ** rng.random()))


def words(rng: random.Random, n: int) -> list:
    return [rng.choice(FUNCTION_WORDS) if rng.random() < 0.35 else content_word(rng) for _ in range(n)]


def sentence(rng: random.Random, n: int) -> str:
    w = words(rng, n)
    if rng.random() < 0.2:
        w = rng.choice(OPENERS).split() + w[3:]
    text = " ".join(w)
    return text[0].upper() + text[1:] + "."


def claim_from(rng: random.Random, source: str) -> str:
    # A claim shares some words with one sentence of its evidence, as real claims do.
    taken = [w for w in source.rstrip(".").split() if rng.random() < 0.5][:9]
    w = taken + words(rng, 15 - len(taken))
    rng.shuffle(w)
    text = " ".join(w)
    return text[0].upper() + text[1:] + "."


def synthetic(out: str, n: int, rng: random.Random) -> None:
    with open(os.path.join(out, "documents.jsonl"), "w") as docs, open(
        os.path.join(out, "claims.jsonl"), "w"
    ) as claims:
        for i in range(n):
            sentences = [sentence(rng, rng.randint(20, 30)) for _ in range(5)]
            docs.write(json.dumps({"id": f"d{i}", "title": f"Document {i}", "text": " ".join(sentences)}) + "\n")
            row = {
                "id": f"c{i}",
                "claim": claim_from(rng, rng.choice(sentences)),
                "label": rng.choice(["SUPPORTED", "REFUTED"]),
                "doc_ids": [f"d{i}"],
            }
            claims.write(json.dumps(row) + "\n")


def fever(out: str, n: int, pages: int, rng: random.Random) -> None:
    page_sentences = []
    with open(os.path.join(out, "documents.jsonl"), "w") as docs:
        for p in range(pages):
            sentences = []
            while sum(len(s) + 1 for s in sentences) < 5000:
                sentences.append(sentence(rng, rng.randint(12, 35)))
            page_sentences.append(sentences)
            docs.write(json.dumps({"id": f"page{p}", "title": f"Page {p}", "text": " ".join(sentences)}) + "\n")
    with open(os.path.join(out, "claims.jsonl"), "w") as claims:
        for i in range(n):
            named = rng.sample(range(pages), rng.randint(1, 3))
            source = rng.choice(page_sentences[named[0]])
            row = {
                "id": f"c{i}",
                "claim": claim_from(rng, source),
                "label": rng.choice(["SUPPORTED", "REFUTED", "NOT ENOUGH INFO"]),
                "doc_ids": [f"page{p}" for p in named],
            }
            claims.write(json.dumps(row) + "\n")


def covid(out: str, n: int, source: str, rng: random.Random) -> None:
    with open(source) as f:
        records = [json.loads(line) for line in f if line.strip()]
    evidence = sorted({s for r in records for s in r["evidence"]})
    # Drawn uniformly from every word as written, a word comes at its frequency.
    pool = [w for s in evidence for w in s.split()] + [w for r in records for w in r["claim"].split()]

    def reworded(text: str) -> str:
        return " ".join(rng.choice(pool) if rng.random() < 0.3 else w for w in text.split())

    with open(os.path.join(out, "documents.jsonl"), "w") as docs, open(
        os.path.join(out, "claims.jsonl"), "w"
    ) as claims:
        for i in range(n):
            record = rng.choice(records)
            chosen = list(record["evidence"][:5])
            chosen += rng.sample(evidence, 5 - len(chosen))
            rng.shuffle(chosen)
            text = " ".join(reworded(s) for s in chosen)
            docs.write(json.dumps({"id": f"d{i}", "title": f"Document {i}", "text": text}) + "\n")
            row = {"id": f"c{i}", "claim": reworded(record["claim"]), "label": record["label"], "doc_ids": [f"d{i}"]}
            claims.write(json.dumps(row) + "\n")


def as_csv(out: str) -> None:
    for name, columns in (("claims", ["id", "claim", "label", "doc_ids"]), ("documents", ["id", "title", "text"])):
        with open(os.path.join(out, f"{name}.jsonl")) as rows, open(os.path.join(out, f"{name}.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(columns)
            for line in rows:
                row = json.loads(line)
                w.writerow(["|".join(v) if isinstance(v, list) else v for v in (row[c] for c in columns)])


def main() -> None:
    shape, out, n, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    os.makedirs(out, exist_ok=True)
    rng = random.Random(seed)
    global VOCABULARY
    if shape == "synthetic":
        synthetic(out, n, rng)
    elif shape == "narrow":
        VOCABULARY = 234
        synthetic(out, n, rng)
    elif shape == "csv":
        as_csv(out)
    elif shape == "covid":
        covid(out, n, sys.argv[5] if len(sys.argv) > 5 else "../shared/data/covidfact.jsonl", rng)
    elif shape == "fever":
        fever(out, n, int(sys.argv[5]) if len(sys.argv) > 5 else 10000, rng)
    else:
        sys.exit(f"unknown shape {shape!r}: synthetic, narrow, fever, covid or csv")


if __name__ == "__main__":
    main()
