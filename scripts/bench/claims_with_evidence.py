"""Writes N claims, each with six evidence sentences, for the team server's benches.

Usage: claims_with_evidence.py PATH N SEED [PREFIX]   (ids PREFIX0, PREFIX1, ...; default c)

The words are few and common, so every claim's candidates are close to one another;
each sentence ends in a number so that none repeats.
"""
import json
import random
import sys

path, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
prefix = sys.argv[4] if len(sys.argv) > 4 else "c"
r = random.Random(seed)
words = ("the harbour council reported vaccine trial in of residents river approved study found "
         "that patients were million bridge railway museum orchestra survey increased declined "
         "according to officials and a by researchers library collection between during season").split()


def sentence():
    return " ".join(r.choice(words) for _ in range(r.randint(8, 20))).capitalize() + f" {r.randint(1, 99999)}."


with open(path, "w") as f:
    for i in range(n):
        f.write(json.dumps({"id": f"{prefix}{i}", "claim": sentence(), "evidence": [sentence() for _ in range(6)]}) + "\n")
