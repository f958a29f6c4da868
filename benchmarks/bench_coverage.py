"""Coverage of the 95 % bootstrap intervals of the reliability table, by number of keys.

A simulation study behind ``rrmap.reliability(ci="bca")`` (and ``rrmap analyze
--ci``): rating studies of three raters are drawn from a model with known
agreement, and the BCa and percentile intervals of Krippendorff's α (zones
nominal and ordinal, Δ, log R, R) and Fleiss' κ are checked against the true
values, for 20, 50 and 135 comparison keys (the study has 135).

The model: key j has a true place on the map, Δ_j ~ N(0, 1.2²) and
log R_j ~ N(0, 0.3²); rater i sees it shifted (Δ by 0, +0.2, −0.2; log R by 0,
+0.05, −0.05) and with noise (Δ: N(0, 0.8²), log R: N(0, 0.25²)); the zone
follows from (Δ, R) as in rrmap. The true values are those of 400,000 keys. Both
interval methods use the same 1,000 resamples of each data set; ``undefined``
counts resamples on which a value was undefined, ``fallback`` data sets on which
BCa was undefined and the percentile interval was used.

Coverage is given with its exact (Clopper–Pearson) 95 % interval: with 2,000 data
sets a true coverage of 0.95 lies within ±0.010 of the printed one. Run::

    .venv/bin/python benchmarks/bench_coverage.py                  # 2,000 data sets per size
    .venv/bin/python benchmarks/bench_coverage.py --datasets 500 --keys 50
    .venv/bin/python benchmarks/bench_coverage.py --datasets 500 --keys 20 50 --studentized
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.stats import binomtest

from rrmap.bootstrap import bootstrap_interval, resample_weights, studentized_interval
from rrmap.interrater import (
    _alpha_interval,
    _alpha_nominal,
    _alpha_ordinal,
    _fleiss,
    _jackknife,
    _resample_se,
)
from rrmap.zones import QUALITY_LEVELS, classify

SHIFT_DELTA = np.array([0.0, 0.2, -0.2])
SHIFT_LOG_R = np.array([0.0, 0.05, -0.05])
LEVELS = {q: i for i, q in enumerate(QUALITY_LEVELS)}


def simulate(n_keys: int, gen: np.random.Generator) -> dict[str, np.ndarray]:
    """One study: zone codes, Δ, log R and R as keys × raters matrices."""
    delta = gen.normal(0, 1.2, (n_keys, 1)) + SHIFT_DELTA + gen.normal(0, 0.8, (n_keys, 3))
    log_r = gen.normal(0, 0.3, (n_keys, 1)) + SHIFT_LOG_R + gen.normal(0, 0.25, (n_keys, 3))
    r = np.exp(log_r)
    zone = np.asarray(classify(delta.ravel(), r.ravel()).codes, dtype=np.intp).reshape(delta.shape)
    return {"zone": zone, "delta": delta, "log_r": log_r, "r": r}


def measures(study: dict[str, np.ndarray]) -> dict[str, object]:
    """Each measure as a function of the resample weights (values, units used)."""
    z = study["zone"]
    return {
        "alpha zone (nominal)": lambda w: _alpha_nominal(z, w),
        "alpha zone (ordinal)": lambda w: _alpha_ordinal(z, w),
        "alpha delta": lambda w: _alpha_interval(study["delta"], w),
        "alpha log_r": lambda w: _alpha_interval(study["log_r"], w),
        "alpha r": lambda w: _alpha_interval(study["r"], w),
        "fleiss kappa": lambda w: _fleiss(z, w),
    }


def truth(gen: np.random.Generator, n_keys: int = 400_000) -> dict[str, float]:
    """The values of the model: those of one very large study."""
    fns = measures(simulate(n_keys, gen))
    return {name: float(fn(np.ones((1, n_keys)))[0][0]) for name, fn in fns.items()}


def _studentized(fn, values: np.ndarray, jack: np.ndarray, w: np.ndarray, used: np.ndarray):
    m = len(jack)
    se = float(np.sqrt((m - 1) / m * ((jack - jack.mean()) ** 2).sum()))
    return studentized_interval(values[0], se, values[1:], _resample_se(fn, w[1:], used))


def run(
    n_keys: int,
    datasets: int,
    n_boot: int,
    true: dict[str, float],
    seed: int,
    studentized: bool = False,
) -> None:
    gen = np.random.default_rng(seed)
    names = list(true)
    methods = ("bca", "percentile", "studentized") if studentized else ("bca", "percentile")
    hits = {(m, n): 0 for m in methods for n in names}
    undefined = dict.fromkeys(names, 0)
    fallback = dict.fromkeys(names, 0)
    start = time.perf_counter()
    for _ in range(datasets):
        fns = measures(simulate(n_keys, gen))
        w = np.vstack([np.ones(n_keys), resample_weights(n_keys, n_boot, gen)]).astype(float)
        for name, fn in fns.items():
            values, used = fn(w)
            jack = _jackknife(fn, n_keys)[used]
            for method in methods:
                iv = (
                    _studentized(fn, values, jack, w, used)
                    if method == "studentized"
                    else bootstrap_interval(values[0], values[1:], jack, method=method)
                )
                hits[method, name] += bool(iv.low <= true[name] <= iv.high)
                if method == "bca":
                    undefined[name] += iv.undefined
                    fallback[name] += iv.method != "bca"
    took = time.perf_counter() - start
    print(f"\n{n_keys} keys, {datasets} data sets, {n_boot} resamples ({took:.0f} s)")
    heads = "".join(f"  {h:>21s}" for h in ("BCa", "percentile", "studentized")[: len(methods)])
    print(f"{'measure':22s} {'true':>7s}{heads}  undefined fallback")
    for name in names:
        cells = []
        for method in methods:
            k = hits[method, name]
            ci = binomtest(k, datasets).proportion_ci(method="exact")
            cells.append(f"{k / datasets:.3f} [{ci.low:.3f}, {ci.high:.3f}]")
        row = "".join(f"  {c:>21s}" for c in cells)
        print(f"{name:22s} {true[name]:7.3f}{row}  {undefined[name]:9d} {fallback[name]:8d}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, nargs="+", default=[20, 50, 135])
    parser.add_argument("--datasets", type=int, default=2000)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--studentized",
        action="store_true",
        help="also the studentized (bootstrap-t) intervals: B · keys² evaluations each",
    )
    args = parser.parse_args()
    true = truth(np.random.default_rng(args.seed))
    for i, n_keys in enumerate(args.keys):
        run(n_keys, args.datasets, args.bootstrap, true, args.seed + 1 + i, args.studentized)


if __name__ == "__main__":
    main()
