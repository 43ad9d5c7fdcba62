"""Writes a seeded records file for the agreement benchmark: UNITS items rated by
ANNOTATORS annotators over a few categories, about MISSING of the ratings left empty.

Each item has a true category; an annotator agrees with it with probability 0.7 and
otherwise picks a category at random, so the statistics land in a realistic range.
Usage: agreement_generate.py OUT.csv UNITS ANNOTATORS MISSING SEED
"""

import csv
import random
import sys

CATEGORIES = ["SUPPORTED", "REFUTED", "NOT ENOUGH INFO", "FAILED"]
WEIGHTS = [0.45, 0.35, 0.15, 0.05]


def main() -> None:
    out, units, annotators, missing, seed = sys.argv[1:6]
    rng = random.Random(int(seed))
    units, annotators, missing = int(units), int(annotators), float(missing)
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["item", "annotator", "label"])
        for u in range(units):
            truth = rng.choices(CATEGORIES, WEIGHTS)[0]
            for a in range(annotators):
                if rng.random() < missing:
                    label = ""
                elif rng.random() < 0.7:
                    label = truth
                else:
                    label = rng.choice(CATEGORIES)
                w.writerow([f"u{u}", f"a{a}", label])


if __name__ == "__main__":
    main()
