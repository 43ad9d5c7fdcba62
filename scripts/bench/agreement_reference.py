"""The Python side of the agreement benchmark: statsmodels' Fleiss' kappa (through
aggregate_raters) and krippendorff's nominal alpha on a records file (item, annotator,
label; an empty label is a missing rating). Prints one JSON line.

statsmodels' fleiss_kappa needs every unit rated by the same number of annotators, so it
runs on the units with no missing rating; alpha takes every unit, missing ratings as NaN.
Usage: agreement_reference.py RECORDS.csv
"""

import json
import sys

import krippendorff
import numpy as np
import pandas as pd
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa


def main() -> None:
    records = pd.read_csv(sys.argv[1], dtype=str, keep_default_na=False)
    records["label"] = records["label"].replace("", np.nan)
    codes, categories = pd.factorize(records["label"])  # NaN -> -1
    records["code"] = np.where(codes < 0, np.nan, codes)
    # annotators x units, as krippendorff expects; NaN where a rating is missing.
    matrix = records.pivot(index="annotator", columns="item", values="code")
    reliability = matrix.to_numpy(dtype=float)
    alpha = krippendorff.alpha(
        reliability_data=reliability,
        level_of_measurement="nominal",
        value_domain=np.arange(len(categories), dtype=float),
    )
    complete = reliability[:, ~np.isnan(reliability).any(axis=0)].T.astype(int)
    table, _ = aggregate_raters(complete, n_cat=len(categories))
    kappa = fleiss_kappa(table, method="fleiss")
    print(
        json.dumps(
            {
                "units": reliability.shape[1],
                "complete_units": complete.shape[0],
                "fleiss_kappa_complete_units": kappa,
                "krippendorff_alpha_nominal": alpha,
            }
        )
    )


if __name__ == "__main__":
    main()
