#!/usr/bin/env python3
"""Write agreement test vectors computed by independent implementations.

    pip install statsmodels scikit-learn krippendorff numpy
    python3 make_vectors.py [--out PATH]   (default: agreement_vectors.json beside this file)

Random rating tables (seeded, so the output is reproducible) are scored with
scikit-learn (Cohen's kappa, linear / quadratic weights), statsmodels (Fleiss' and
Randolph's kappa, Cohen's kappa standard errors), the krippendorff package (alpha for
nominal / ordinal / interval / ratio data with missing values, and with a MASI distance
callable for set labels) and, where no library covers the definition (percent agreement,
Fleiss' kappa with unequal ratings per unit), a direct numpy transcription of DESIGN.md.
crates/core/tests/agreement.rs checks Factdesk against every case to 1e-9 and
regenerates this file to check that it has not drifted.

Each case has the shape of ../shared/data/agreement/published.jsonl: name, metric,
params (categories / candidates), input [{item, annotator, label}], expected (null =
undefined: the library gave NaN or refused), tolerance, library.
"""

import argparse
import json
import math
import os
import warnings
from importlib.metadata import version

import krippendorff
import numpy as np
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa, fleiss_kappa

SEED = 20240521
TOLERANCE = 1e-9
VERDICTS = ["SUPPORTED", "REFUTED", "NOT ENOUGH INFO"]
GRADES = ["very low", "low", "mid", "high", "very high"]

rng = np.random.default_rng(SEED)
cases = []


def finite_or_none(value):
    value = float(value)
    return value if math.isfinite(value) else None


def library_value(compute):
    """A library's value, or None where it gives NaN or refuses the data."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return finite_or_none(compute())
        except (ValueError, ZeroDivisionError, FloatingPointError):
            return None


def add(name, metric, matrix, expected, library, categories=None, candidates=None):
    """matrix[annotator][unit] is a label (str or list of str) or None for missing."""
    ratings = []
    for unit in range(len(matrix[0])):
        for annotator, row in enumerate(matrix):
            ratings.append({"item": f"u{unit + 1}", "annotator": f"a{annotator + 1}", "label": row[unit]})
    params = {}
    if categories is not None:
        params["categories"] = list(categories)
    if candidates is not None:
        params["candidates"] = list(candidates)
    cases.append({
        "name": name,
        "metric": metric,
        "params": params,
        "input": ratings,
        "expected": expected,
        "tolerance": TOLERANCE,
        "library": library,
    })


def random_codes(units, annotators, k, accuracy, missing=0.0, weights=None):
    """Codes 0..k-1 (or -1 for missing): each annotator gives the unit's true code with
    probability `accuracy`, else a random one, so that agreement is neither 0 nor 1."""
    truth = rng.choice(k, size=units, p=weights)
    codes = np.where(rng.random((annotators, units)) < accuracy, truth, rng.integers(0, k, (annotators, units)))
    codes[rng.random((annotators, units)) < missing] = -1
    return codes


def ensure_pairable(codes):
    """Keep at least two ratings in every unit (krippendorff needs some pairable unit)."""
    for unit in range(codes.shape[1]):
        present = np.flatnonzero(codes[:, unit] >= 0)
        if len(present) < 2:
            codes[:2, unit] = np.maximum(codes[:2, unit], 0)
    return codes


def to_labels(codes, names):
    return [[None if c < 0 else names[c] for c in row] for row in codes]


def counts_table(codes, k):
    """Units × categories counts, missing ratings ignored."""
    table = np.zeros((codes.shape[1], k))
    for unit in range(codes.shape[1]):
        for c in codes[:, unit]:
            if c >= 0:
                table[unit, c] += 1
    return table


def reference_percent_agreement(table, unanimous=False):
    n = table.sum(axis=1)
    keep = n >= 2
    t, n = table[keep], n[keep]
    if unanimous:
        return float(np.mean((t > 0).sum(axis=1) == 1))
    return float(np.mean((t * (t - 1)).sum(axis=1) / (n * (n - 1))))


def reference_fleiss_unequal(table):
    n = table.sum(axis=1)
    keep = n >= 2
    t, n = table[keep], n[keep]
    p_bar = np.mean((t * (t - 1)).sum(axis=1) / (n * (n - 1)))
    p = t.sum(axis=0) / t.sum()
    p_e = (p * p).sum()
    return finite_or_none((p_bar - p_e) / (1 - p_e))


def reliability(codes, values=None):
    data = codes.astype(float)
    if values is not None:
        data = np.where(codes >= 0, np.asarray(values, float)[np.maximum(codes, 0)], np.nan)
    data[codes < 0] = np.nan
    return data


def masi_distance(a, b):
    a, b = set(a), set(b)
    if a == b:
        return 0.0
    common = len(a & b)
    if common == 0:
        return 1.0
    monotonicity = 2 / 3 if (a <= b or b <= a) else 1 / 3
    return 1 - common / len(a | b) * monotonicity


# Cohen's kappa, unweighted, scikit-learn (string labels, no order needed).
for i in range(6):
    units = int(rng.integers(8, 25))
    codes = random_codes(units, 2, 3, accuracy=rng.uniform(0.3, 0.9))
    labels = to_labels(codes, VERDICTS)
    add(f"sklearn_cohen_{i}", "cohen_kappa", labels,
        library_value(lambda: cohen_kappa_score(labels[0], labels[1])), "sklearn.metrics.cohen_kappa_score")

# Weighted Cohen's kappa over a given order (sometimes with an unused category) and over
# numeric labels with no order given (sklearn then sorts the integers).
for i in range(8):
    weights = "linear" if i % 2 == 0 else "quadratic"
    units = int(rng.integers(10, 25))
    if i < 4:
        k = 5 if i < 2 else 4
        codes = random_codes(units, 2, 4, accuracy=rng.uniform(0.3, 0.8))
        labels = to_labels(codes, GRADES)
        order = GRADES[:k]
        value = library_value(lambda: cohen_kappa_score(labels[0], labels[1], labels=order, weights=weights))
        add(f"sklearn_cohen_{weights}_ordered_{i}", f"cohen_kappa_{weights}", labels, value,
            "sklearn.metrics.cohen_kappa_score", categories=order)
    else:
        scale = [1, 2, 3, 5, 8]
        codes = random_codes(units, 2, 5, accuracy=rng.uniform(0.3, 0.8))
        numbers = np.asarray(scale)[codes]
        labels = to_labels(codes, [str(s) for s in scale])
        value = library_value(lambda: cohen_kappa_score(numbers[0], numbers[1], weights=weights))
        add(f"sklearn_cohen_{weights}_numeric_{i}", f"cohen_kappa_{weights}", labels, value,
            "sklearn.metrics.cohen_kappa_score")

# Analytic standard errors of Cohen's kappa, statsmodels (Fleiss, Cohen & Everitt 1969).
for i in range(6):
    wt = [None, "linear", "quadratic"][i % 3]
    k = 4
    units = int(rng.integers(15, 35))
    codes = random_codes(units, 2, k, accuracy=rng.uniform(0.4, 0.8))
    confusion = np.zeros((k, k))
    for a, b in zip(codes[0], codes[1]):
        confusion[a, b] += 1
    result = cohens_kappa(confusion, wt=wt)
    metric = "cohen_kappa_se" if wt is None else f"cohen_kappa_{wt}_se"
    add(f"statsmodels_{metric}_{i}", metric, to_labels(codes, GRADES[:k]),
        finite_or_none(result.std_kappa), "statsmodels.stats.inter_rater.cohens_kappa(...).std_kappa",
        categories=GRADES[:k])

# Fleiss' kappa with equal ratings per unit, statsmodels.
for i in range(6):
    units, annotators, k = int(rng.integers(6, 20)), int(rng.integers(3, 6)), int(rng.integers(2, 5))
    codes = random_codes(units, annotators, k, accuracy=rng.uniform(0.3, 0.9))
    table, _ = aggregate_raters(codes.T, n_cat=k)
    add(f"statsmodels_fleiss_{i}", "fleiss_kappa", to_labels(codes, VERDICTS + ["FAILED"]),
        library_value(lambda: fleiss_kappa(table, method="fleiss")), "statsmodels.stats.inter_rater.fleiss_kappa")

# Randolph's free-marginal kappa, statsmodels; q from the given category list.
for i in range(4):
    units, annotators = int(rng.integers(6, 20)), int(rng.integers(2, 7))
    k = 3 + (i % 2)
    codes = random_codes(units, annotators, 3, accuracy=rng.uniform(0.3, 0.9))
    table, _ = aggregate_raters(codes.T, n_cat=k)
    add(f"statsmodels_randolph_{i}", "randolph_kappa", to_labels(codes, GRADES), library_value(
        lambda: fleiss_kappa(table, method="randolph")), "statsmodels.stats.inter_rater.fleiss_kappa(method='randolph')",
        categories=GRADES[:k])

# Fleiss' kappa with unequal ratings per unit and percent agreement: numpy transcription.
for i in range(3):
    units, annotators = int(rng.integers(8, 20)), int(rng.integers(3, 7))
    codes = random_codes(units, annotators, 3, accuracy=rng.uniform(0.4, 0.9), missing=0.3)
    table = counts_table(codes, 3)
    labels = to_labels(codes, VERDICTS)
    add(f"reference_fleiss_unequal_{i}", "fleiss_kappa", labels, reference_fleiss_unequal(table),
        "numpy transcription of DESIGN.md (unequal n_i)")
    add(f"reference_percent_agreement_{i}", "percent_agreement", labels, reference_percent_agreement(table),
        "numpy transcription (mean share of agreeing pairs)")
    add(f"reference_unanimous_{i}", "percent_agreement_unanimous", labels,
        reference_percent_agreement(table, unanimous=True), "numpy transcription (share of unanimous units)")

# Krippendorff's alpha with missing ratings, all four levels, krippendorff package.
for i in range(5):
    units, annotators = int(rng.integers(6, 20)), int(rng.integers(2, 6))
    codes = ensure_pairable(random_codes(units, annotators, 4, accuracy=rng.uniform(0.3, 0.9), missing=0.25))
    add(f"krippendorff_nominal_{i}", "krippendorff_alpha_nominal", to_labels(codes, VERDICTS + ["FAILED"]),
        library_value(lambda: krippendorff.alpha(reliability(codes), level_of_measurement="nominal")),
        "krippendorff.alpha(level_of_measurement='nominal')")
for i in range(4):
    units, annotators = int(rng.integers(6, 20)), int(rng.integers(2, 6))
    codes = ensure_pairable(random_codes(units, annotators, 5, accuracy=rng.uniform(0.3, 0.9), missing=0.25))
    add(f"krippendorff_ordinal_{i}", "krippendorff_alpha_ordinal", to_labels(codes, GRADES), library_value(
        lambda: krippendorff.alpha(reliability(codes), value_domain=list(range(5)), level_of_measurement="ordinal")),
        "krippendorff.alpha(level_of_measurement='ordinal', value_domain=categories)", categories=GRADES)
for level in ["interval", "ratio"]:
    for i in range(4):
        units, annotators = int(rng.integers(6, 20)), int(rng.integers(2, 6))
        scale = [1.0, 2.0, 2.5, 4.0, 7.0, 10.0]
        codes = ensure_pairable(random_codes(units, annotators, 6, accuracy=rng.uniform(0.3, 0.9), missing=0.25))
        names = [repr(v) if v != int(v) else str(int(v)) for v in scale]
        add(f"krippendorff_{level}_{i}", f"krippendorff_alpha_{level}", to_labels(codes, names), library_value(
            lambda: krippendorff.alpha(reliability(codes, scale), level_of_measurement=level)),
            f"krippendorff.alpha(level_of_measurement='{level}')")

# Evidence sets over a shared candidate list.
CANDIDATES = ["s1", "s2", "s3", "s4"]


def random_sets(units, annotators, missing=0.0):
    """Each unit has a 'true' set; annotators flip each candidate with a small chance."""
    matrix = [[None] * units for _ in range(annotators)]
    for unit in range(units):
        truth = rng.random(len(CANDIDATES)) < 0.35
        for annotator in range(annotators):
            if annotator >= 2 and rng.random() < missing:
                continue
            flips = rng.random(len(CANDIDATES)) < rng.uniform(0.05, 0.3)
            matrix[annotator][unit] = [c for c, s in zip(CANDIDATES, truth ^ flips) if s]
    return matrix


def pooled_codes(matrix):
    """(unit, candidate) units: 1 selected, 0 not, -1 missing."""
    columns = []
    for unit in range(len(matrix[0])):
        for candidate in CANDIDATES:
            columns.append([-1 if row[unit] is None else int(candidate in row[unit]) for row in matrix])
    return np.asarray(columns).T


def set_codes(matrix):
    distinct = sorted({tuple(s) for row in matrix for s in row if s is not None})
    index = {s: i for i, s in enumerate(distinct)}
    codes = np.asarray([[-1 if s is None else index[tuple(s)] for s in row] for row in matrix])
    return codes, distinct


for i in range(8):
    annotators = 2 if i < 2 else int(rng.integers(3, 6))
    matrix = random_sets(int(rng.integers(6, 20)), annotators, missing=0.3 if i >= 5 else 0.0)
    pooled = pooled_codes(matrix)
    if i < 2:
        value = library_value(lambda: cohen_kappa_score(pooled[0], pooled[1]))
        add(f"sklearn_setsel_pooled_cohen_{i}", "setsel_pooled_cohen_kappa", matrix, value,
            "sklearn.metrics.cohen_kappa_score on (item, candidate) units", candidates=CANDIDATES)
    elif i < 5:
        table, _ = aggregate_raters(pooled.T, n_cat=2)
        add(f"statsmodels_setsel_pooled_fleiss_{i}", "setsel_pooled_fleiss_kappa", matrix,
            library_value(lambda: fleiss_kappa(table)),
            "statsmodels fleiss_kappa on (item, candidate) units", candidates=CANDIDATES)
    if i >= 2:
        # Per-candidate Cohen's kappa for each pair on the units both rated, then their mean.
        kappas = []
        for a in range(annotators):
            for b in range(a + 1, annotators):
                both = (pooled[a] >= 0) & (pooled[b] >= 0)
                value = library_value(lambda: cohen_kappa_score(pooled[a][both], pooled[b][both]))
                if value is not None:
                    kappas.append(value)
        add(f"sklearn_setsel_pooled_cohen_mean_pairwise_{i}", "setsel_pooled_cohen_kappa_mean_pairwise", matrix,
            float(np.mean(kappas)) if kappas else None,
            "mean of sklearn.metrics.cohen_kappa_score per pair on (item, candidate) units",
            candidates=CANDIDATES)
    if i >= 5:
        add(f"krippendorff_setsel_pooled_nominal_{i}", "setsel_pooled_krippendorff_alpha_nominal", matrix,
            library_value(lambda: krippendorff.alpha(reliability(pooled), level_of_measurement="nominal")),
            "krippendorff.alpha nominal on (item, candidate) units", candidates=CANDIDATES)
        add(f"reference_setsel_pooled_percent_agreement_{i}", "setsel_pooled_percent_agreement", matrix,
            reference_percent_agreement(counts_table(pooled, 2)), "numpy transcription on (item, candidate) units",
            candidates=CANDIDATES)
    codes, distinct = set_codes(matrix)
    domain = list(range(len(distinct)))
    distances = np.asarray([[masi_distance(a, b) for b in distinct] for a in distinct])

    def masi_metric(v1, v2, i1, i2, n_v, dtype=np.float64):
        return distances[np.asarray(v1, int), np.asarray(v2, int)].astype(dtype)

    add(f"krippendorff_setsel_masi_{i}", "setsel_masi_krippendorff_alpha", matrix, library_value(
        lambda: krippendorff.alpha(reliability(codes), value_domain=domain, level_of_measurement=masi_metric)),
        "krippendorff.alpha with a MASI distance callable", candidates=CANDIDATES)
    if i % 3 == 0:
        add(f"krippendorff_setsel_exactset_{i}", "setsel_exactset_krippendorff_alpha_nominal", matrix,
            library_value(lambda: krippendorff.alpha(reliability(codes), value_domain=domain,
                                                     level_of_measurement="nominal")),
            "krippendorff.alpha nominal on whole sets", candidates=CANDIDATES)

# Degenerate tables: the libraries give NaN or refuse, so Factdesk must say undefined.
same = [["REFUTED"] * 6 for _ in range(3)]
same_codes = np.ones((3, 6), int)
add("degenerate_fleiss_all_same", "fleiss_kappa", same,
    library_value(lambda: fleiss_kappa(aggregate_raters(same_codes.T)[0])), "statsmodels fleiss_kappa (NaN)")
add("degenerate_cohen_all_same", "cohen_kappa", same[:2],
    library_value(lambda: cohen_kappa_score(same[0], same[1])), "sklearn cohen_kappa_score (NaN)")
add("degenerate_alpha_all_same", "krippendorff_alpha_nominal", same,
    library_value(lambda: krippendorff.alpha(reliability(same_codes), level_of_measurement="nominal")),
    "krippendorff.alpha (refuses a one-value domain)")

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "agreement_vectors.json"))
out = parser.parse_args().out
document = {
    "generator": "crates/core/tests/vectors/make_vectors.py",
    "seed": SEED,
    "libraries": {name: version(name) for name in ["numpy", "scikit-learn", "statsmodels", "krippendorff"]},
    "cases": cases,
}
with open(out, "w", encoding="utf-8") as handle:
    json.dump(document, handle, indent=None, separators=(",", ":"))
    handle.write("\n")
print(f"{len(cases)} cases -> {out}")
