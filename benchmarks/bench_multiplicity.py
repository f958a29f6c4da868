"""Error rates of the multiplicity adjustments and the size of the mid-p, by simulation.

- **Gatekept families** (``p_adjust="gatekept"``): three groups of 15 points (2-D
  normal), the k-sample energy test and its three pairs, B = 199. Under the complete
  null (every group alike) and a partial one (the third group shifted by 1.5), the
  family-wise error rate — the share of families with at least one false rejection at
  0.05 — for gatekept and for Holm over the whole family.
- **Study-wide FDR** (``pvalue_study``): tables of 60 two-sample energy tests, 45 of
  them null and 15 shifted by 1.2, B = 199; the false discovery proportion of the tests
  with ``pvalue_study < 0.05``, averaged over the tables (Benjamini–Hochberg: at most
  0.05 · 45/60 = 0.0375 for independent tests).
- **Mid-p size**: Stuart–Maxwell (2 raters) and the 3-rater within-key test with 12 keys
  of exchangeable raters (four zones): the share of data sets with p ≤ 0.05 and with
  mid-p ≤ 0.05.

Run::

    .venv/bin/python benchmarks/bench_multiplicity.py
    .venv/bin/python benchmarks/bench_multiplicity.py --families 2000 --tables 400
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from rrmap.stats import energy_tests
from rrmap.stats.adjust import adjust_pvalues, study_pvalues
from rrmap.stats.matched import marginal_homogeneity_test, stuart_maxwell_test


def _family(shift: float, gen: np.random.Generator, seed: int) -> pd.DataFrame:
    x = gen.normal(size=(45, 2))
    x[30:, 0] += shift
    out = energy_tests(x, np.repeat(["a", "b", "c"], 15), n_perm=199, rng=seed, stop_hits=None)
    out.insert(0, "test", "energy")
    out.insert(1, "by", "g")
    out.insert(2, "within", "all")
    return out


def gatekept(families: int, seed: int) -> None:
    gen = np.random.default_rng(seed)
    for shift, true_null in ((0.0, {"a|b|c", "a|b", "a|c", "b|c"}), (1.5, {"a|b"})):
        errors = {"gatekept": 0, "holm": 0, "none": 0}
        for i in range(families):
            fam = _family(shift, gen, i)
            for method in errors:
                col = "pvalue" if method == "none" else f"pvalue_{method}"
                p = adjust_pvalues(fam, method)[col]
                false = fam["groups"].isin(true_null).to_numpy() & (p < 0.05).to_numpy()
                errors[method] += bool(false.any())
        rates = ", ".join(f"{m} {e / families:.3f}" for m, e in errors.items())
        print(f"shift {shift}: family-wise error rate over {families} families: {rates}")


def study_fdr(tables: int, seed: int) -> None:
    gen = np.random.default_rng(seed)
    fdp, found = [], []
    for t in range(tables):
        p = np.empty(60)
        for j in range(60):
            x = gen.normal(size=(30, 2))
            x[15:, 0] += 1.2 if j >= 45 else 0.0
            row = energy_tests(x, np.repeat(["a", "b"], 15), n_perm=199, rng=t * 60 + j,
                               stop_hits=None)  # fmt: skip
            p[j] = row["pvalue"].iloc[0]
        reject = study_pvalues(p) < 0.05
        fdp.append(reject[:45].sum() / max(1, reject.sum()))
        found.append(reject[45:].mean())
    print(
        f"study-wide BH over {tables} tables of 60 tests (45 null): FDR {np.mean(fdp):.4f} "
        f"(bound 0.0375), power {np.mean(found):.3f}"
    )


def _zones(n_keys: int, k: int, gen: np.random.Generator) -> np.ndarray:
    level = gen.integers(0, 4, n_keys)
    return np.clip(level[:, None] + gen.choice([-1, 0, 0, 1], size=(n_keys, k)), 0, 3)


def mid_p_size(datasets: int, seed: int) -> None:
    gen = np.random.default_rng(seed)
    for k in (2, 3):
        rej_p = rej_mid = done = 0
        for i in range(datasets):
            z = _zones(12, k, gen)
            if k == 2:
                table = np.zeros((4, 4), dtype=int)
                np.add.at(table, (z[:, 0], z[:, 1]), 1)
                if (table == np.diag(np.diag(table))).all():
                    continue  # no discordant key: no test
                res = stuart_maxwell_test(table, n_perm=2000, rng=i)
            else:
                if (z == z[:, :1]).all():
                    continue
                res = marginal_homogeneity_test(z, n_perm=2000, rng=i)
            if np.isnan(res.pvalue):
                continue
            done += 1
            rej_p += res.pvalue <= 0.05
            rej_mid += res.pvalue_mid <= 0.05
        print(
            f"{k} raters, 12 keys, {done} null data sets: size at 0.05 "
            f"p {rej_p / done:.4f}, mid-p {rej_mid / done:.4f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", type=int, default=500)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--datasets", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    start = time.perf_counter()
    gatekept(args.families, args.seed)
    study_fdr(args.tables, args.seed + 1)
    mid_p_size(args.datasets, args.seed + 2)
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
