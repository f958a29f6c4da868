"""Coverage of 95 % bootstrap intervals of Bradley–Terry score differences and ranks.

A simulation study behind the default of ``fit_bradley_terry(ci=...)`` and
``rrmap rank fit --ci``: Bradley–Terry data sets are drawn from known scores,
each is fitted with a bootstrap over comparisons, and the intervals of every
method (percentile, basic, BCa, Wald) are checked against the true score
differences ``θ_i − θ_j`` (all pairs) and the true ranks.

Designs (no ties, comparisons of uniformly random distinct pairs):

* ``moderate``: 8 candidates, true scores equally spaced from +1.2 to −1.2,
  400 comparisons (about 14 per pair);
* ``sparse``: 20 candidates, scores equally spaced from +3 to −3 (widely
  spread: the best beats the worst with odds e⁶ ≈ 400), 500 comparisons
  (2.6 per pair, about 7 % of pairs never compared): the data nearly always
  have a maximum-likelihood estimate, but about 13 % of resamples do not and
  are fitted with the fallback penalty;
* ``very-sparse``: as ``sparse`` with 300 comparisons: about half of the
  resamples, and some data sets themselves, have no MLE.

Coverage is reported two ways: over all pairs (or candidates) of all data
sets, a point estimate whose pairs are not independent, and for one pair
(candidate) drawn at random per data set, independent trials with an exact
Clopper–Pearson 95 % interval. Run::

    .venv/bin/python benchmarks/bench_rank_coverage.py --design moderate --datasets 300
    .venv/bin/python benchmarks/bench_rank_coverage.py --design sparse --datasets 300
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import pandas as pd
from scipy.special import ndtri
from scipy.stats import binomtest

from rrmap.rank.models._bootstrap import ranks
from rrmap.rank.models._fit import Options, bootstrap_group, fit_group, jackknife_group
from rrmap.rank.models._outcomes import encode, prepare
from rrmap.rank.models.intervals import bootstrap_interval

DESIGNS = {
    "moderate": {"k": 8, "spread": 1.2, "n": 400},
    "sparse": {"k": 20, "spread": 3.0, "n": 500},
    "very-sparse": {"k": 20, "spread": 3.0, "n": 300},
}
METHODS = ("percentile", "basic", "bca", "wald")


def simulate(design: dict, gen: np.random.Generator) -> tuple[pd.DataFrame, np.ndarray]:
    """One data set of the design and the true scores (centred)."""
    k, n = design["k"], design["n"]
    theta = np.linspace(design["spread"], -design["spread"], k)
    left = gen.integers(0, k, n)
    right = (left + gen.integers(1, k, n)) % k
    p = 1 / (1 + np.exp(-(theta[left] - theta[right])))
    winner = np.where(gen.random(n) < p, "left", "right")
    names = np.array([f"c{i:02d}" for i in range(k)])
    df = pd.DataFrame({"instance": "i", "left": names[left], "right": names[right],
                       "winner": winner})  # fmt: skip
    return df, theta


def one_dataset(df: pd.DataFrame, theta: np.ndarray, n_boot: int, level: float,
                gen: np.random.Generator) -> dict:  # fmt: skip
    """Which intervals cover, for every method, on one data set."""
    opts = Options("bradley-terry", "half", None, 0.1, n_boot, "comparison", (1,), level)
    out = encode(prepare(df, None, "half"))
    order = np.argsort(out.candidates)  # candidates are sorted names c00, c01, ...
    truth = theta[order]
    est, cov, info = fit_group(out, opts)
    boot, n_no_mle = bootstrap_group(out, None, opts, gen)
    jack, mult = jackknife_group(out, None, opts)
    k = len(est)
    i, j = np.triu_indices(k, 1)
    diff = lambda s: s[..., i] - s[..., j]  # noqa: E731
    z = float(ndtri((1 + level) / 2))
    se_d = np.sqrt(np.clip(cov[i, i] + cov[j, j] - 2 * cov[i, j], 0, None))
    true_rank = ranks(truth[None])[0]
    est_rank, boot_rank, jack_rank = ranks(est[None])[0], ranks(boot), ranks(jack)
    res = {"share_no_mle": n_no_mle / n_boot, "mle": info["mle_exists"],
           "pick_pair": gen.integers(len(i)), "pick_cand": gen.integers(k)}  # fmt: skip
    for m in METHODS:
        if m == "wald":
            lo, hi = diff(est) - z * se_d, diff(est) + z * se_d
            rlo = rhi = None
        else:
            lo, hi = bootstrap_interval(diff(est), diff(boot), level, m, jackknife=diff(jack),
                                        weights=mult)  # fmt: skip
            rlo, rhi = bootstrap_interval(est_rank, boot_rank, level, m, jackknife=jack_rank,
                                          weights=mult, discrete=True)  # fmt: skip
        t = diff(truth)
        res[m] = {"diff": (lo <= t) & (t <= hi), "width": float(np.mean(hi - lo))}
        if rlo is not None:
            rlo, rhi = np.clip(rlo, 1, k), np.clip(rhi, 1, k)
            res[m]["rank"] = (rlo <= true_rank) & (true_rank <= rhi)
    return res


def clopper_pearson(x: int, n: int) -> str:
    ci = binomtest(x, n).proportion_ci(0.95, method="exact")
    return f"{x / n:.3f} [{ci.low:.3f}, {ci.high:.3f}]"


def summary(results: list[dict], design: str) -> list[dict]:
    rows = []
    share = np.array([r["share_no_mle"] for r in results])
    mle = np.array([r["mle"] for r in results])
    many = share > np.median(share)  # more resamples without an MLE than the median data set
    for m in METHODS:
        d_all = np.concatenate([r[m]["diff"] for r in results])
        d_one = [bool(r[m]["diff"][r["pick_pair"]]) for r in results]
        row = {"design": design, "method": m, "diff_all_pairs": f"{d_all.mean():.3f}",
               "diff_one_pair_CP": clopper_pearson(sum(d_one), len(d_one)),
               "mean_width": f"{np.mean([r[m]['width'] for r in results]):.2f}"}  # fmt: skip
        per_set = np.array([r[m]["diff"].mean() for r in results])
        if many.any() and (~many).any():
            row["diff_more_no_mle"] = f"{per_set[many].mean():.3f}"
            row["diff_fewer_no_mle"] = f"{per_set[~many].mean():.3f}"
        if not mle.all():
            row["diff_data_without_mle"] = f"{per_set[~mle].mean():.3f} ({(~mle).sum()} sets)"
        if "rank" in results[0][m]:
            r_all = np.concatenate([r[m]["rank"] for r in results])
            r_one = [bool(r[m]["rank"][r["pick_cand"]]) for r in results]
            row["rank_all"] = f"{r_all.mean():.3f}"
            row["rank_one_CP"] = clopper_pearson(sum(r_one), len(r_one))
        rows.append(row)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--design", choices=sorted(DESIGNS), default="moderate")
    ap.add_argument("--datasets", type=int, default=300)
    ap.add_argument("--bootstrap", type=int, default=500)
    ap.add_argument("--level", type=float, default=0.95)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default=None, help="also write the summary rows here")
    args = ap.parse_args()
    gen = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    results = []
    for _ in range(args.datasets):
        df, theta = simulate(DESIGNS[args.design], gen)
        results.append(one_dataset(df, theta, args.bootstrap, args.level, gen))
    rows = summary(results, args.design)
    print(pd.DataFrame(rows).to_markdown(index=False))
    share = np.array([r["share_no_mle"] for r in results])
    mle = np.mean([r["mle"] for r in results])
    print(f"\n{args.design}: {DESIGNS[args.design]}, {args.datasets} data sets, "
          f"B={args.bootstrap}; resamples without MLE: mean {share.mean():.3f}, median "
          f"{np.median(share):.3f}; data sets with an MLE: {mle:.3f}; "
          f"{time.perf_counter() - t0:.0f} s")  # fmt: skip
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
