"""Coverage of the 95 % bootstrap intervals of the reliability table, by number of keys.

A simulation study behind ``rrmap.reliability`` (whose default, ``ci="auto"``, is
the studentized interval for the interval α and BCa for the zone α and κ):
rating studies of three raters are drawn from a model with known agreement, and
the BCa, percentile, studentized and default ("auto") intervals of Krippendorff's
α (zones nominal and ordinal, Δ, log R) and Fleiss' κ — the rows of the default
table — are checked against the true values, for 20, 50 and 135 comparison keys
(the study has 135). α on R, a row only on request (``reliability(with_r=True)``),
is printed after them, under its own heading.

The model: key j has a true place on the map, Δ_j ~ N(0, 1.2²) and
log R_j ~ N(0, 0.3²); rater i sees it shifted (Δ by 0, +0.2, −0.2; log R by 0,
+0.05, −0.05) and with noise (Δ: N(0, 0.8²), log R: N(0, 0.25²)); the zone
follows from (Δ, R) as in rrmap. The true values are those of 400,000 keys. Every
interval method uses the same 1,000 resamples of each data set, through the code
of ``rrmap.reliability`` (``rrmap.interrater._interval_of``); ``undefined`` counts
resamples on which a value was undefined, ``fallback`` data sets on which BCa
(``bca``) or the studentized interval (``stud``) was undefined and the percentile
interval was used.

Coverage is given with its exact (Clopper–Pearson) 95 % interval: with 2,000 data
sets a true coverage of 0.95 lies within ±0.010 of the printed one. Run::

    .venv/bin/python benchmarks/bench_coverage.py                  # 2,000 data sets per size
    .venv/bin/python benchmarks/bench_coverage.py --datasets 500 --keys 50
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.stats import binomtest

from rrmap.bootstrap import resample_weights
from rrmap.interrater import AUTO_CI, _fleiss, _interval, _interval_of, _nominal, _ordinal
from rrmap.zones import QUALITY_LEVELS, classify

SHIFT_DELTA = np.array([0.0, 0.2, -0.2])
SHIFT_LOG_R = np.array([0.0, 0.05, -0.05])
LEVELS = {q: i for i, q in enumerate(QUALITY_LEVELS)}
METHODS = ("auto", "bca", "percentile", "studentized")
ON_REQUEST = "alpha r"
HEADS = {"auto": "default (auto)", "bca": "BCa", "percentile": "percentile",
         "studentized": "studentized"}  # fmt: skip


def simulate(n_keys: int, gen: np.random.Generator) -> dict[str, np.ndarray]:
    """One study: zone codes, Δ, log R and R as keys × raters matrices."""
    delta = gen.normal(0, 1.2, (n_keys, 1)) + SHIFT_DELTA + gen.normal(0, 0.8, (n_keys, 3))
    log_r = gen.normal(0, 0.3, (n_keys, 1)) + SHIFT_LOG_R + gen.normal(0, 0.25, (n_keys, 3))
    r = np.exp(log_r)
    zone = np.asarray(classify(delta.ravel(), r.ravel()).codes, dtype=np.intp).reshape(delta.shape)
    return {"zone": zone, "delta": delta, "log_r": log_r, "r": r}


def measures(study: dict[str, np.ndarray]) -> dict[str, tuple[str, object]]:
    """Each measure's metric and its sums over keys (as ``rrmap.reliability`` builds them)."""
    z = study["zone"]
    return {
        "alpha zone (nominal)": ("nominal", _nominal(z)),
        "alpha zone (ordinal)": ("ordinal", _ordinal(z)),
        "alpha delta": ("interval", _interval(study["delta"])),
        "alpha log_r": ("interval", _interval(study["log_r"])),
        "fleiss kappa": ("nominal", _fleiss(z)),
        ON_REQUEST: ("interval", _interval(study["r"])),
    }


def truth(gen: np.random.Generator, n_keys: int = 400_000) -> dict[str, float]:
    """The values of the model: those of one very large study."""
    fns = measures(simulate(n_keys, gen))
    return {name: float(lin(np.ones((1, n_keys)))[0][0]) for name, (_, lin) in fns.items()}


def run(n_keys: int, datasets: int, n_boot: int, true: dict[str, float], seed: int) -> None:
    gen = np.random.default_rng(seed)
    names = list(true)
    hits = {(m, n): 0 for m in METHODS for n in names}
    undefined = dict.fromkeys(names, 0)
    fallback = {(m, n): 0 for m in ("bca", "studentized") for n in names}
    start = time.perf_counter()
    for _ in range(datasets):
        fns = measures(simulate(n_keys, gen))
        w = np.vstack([np.ones(n_keys), resample_weights(n_keys, n_boot, gen)]).astype(float)
        for name, (metric, lin) in fns.items():
            values, _ = lin(w)
            ivs = {m: _interval_of(lin, values, w, 0.95, m) for m in METHODS[1:]}
            ivs["auto"] = ivs[AUTO_CI[metric]]  # what reliability(ci="auto") computes
            for method, iv in ivs.items():
                hits[method, name] += bool(iv["ci_low"] <= true[name] <= iv["ci_high"])
            undefined[name] += ivs["bca"]["ci_undefined"]
            for method in ("bca", "studentized"):
                fallback[method, name] += ivs[method]["ci_method"] != method
    took = time.perf_counter() - start
    print(f"\n{n_keys} keys, {datasets} data sets, {n_boot} resamples ({took:.0f} s)")
    heads = "".join(f"  {HEADS[m]:>21s}" for m in METHODS)
    print(f"{'measure':22s} {'true':>7s}{heads}  undefined fallback (bca, stud)")
    for name in names:
        if name == ON_REQUEST:
            print("on request only (reliability(with_r=True)), not in the default table:")
        cells = []
        for method in METHODS:
            k = hits[method, name]
            ci = binomtest(k, datasets).proportion_ci(method="exact")
            cells.append(f"{k / datasets:.3f} [{ci.low:.3f}, {ci.high:.3f}]")
        row = "".join(f"  {c:>21s}" for c in cells)
        falls = f"{fallback['bca', name]:d}, {fallback['studentized', name]:d}"
        print(f"{name:22s} {true[name]:7.3f}{row}  {undefined[name]:9d} {falls:>8s}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, nargs="+", default=[20, 50, 135])
    parser.add_argument("--datasets", type=int, default=2000)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    true = truth(np.random.default_rng(args.seed))
    for i, n_keys in enumerate(args.keys):
        run(n_keys, args.datasets, args.bootstrap, true, args.seed + 1 + i)


if __name__ == "__main__":
    main()
