"""Speed of the jackknife behind the reliability intervals: sums less one key's statistics
against the measure re-evaluated on whole weight vectors.

Every reliability measure is a function of weighted sums over keys, ``g(w @ A)``; leaving
key u out of a resample subtracts ``A[u]`` from its sums. This compares, for each measure
of the all-raters row, the jackknife of the data (BCa's acceleration) and the jackknife
standard error of every resample (the studentized interval) computed that way with the
brute-force way (one weight vector per key left out, B · n of them, in chunks), and the
whole table (``rrmap.reliability``, all 24 rows of the example) with each method, on the
example study (135 keys) and on a simulated study of 1,000 keys. The largest difference
between the two ways is printed beside the times. Run::

    .venv/bin/python benchmarks/bench_reliability_jackknife.py
    .venv/bin/python benchmarks/bench_reliability_jackknife.py --bootstrap 200 --keys 1000
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

import rrmap
from rrmap.bootstrap import resample_weights
from rrmap.interrater import _fleiss, _interval, _nominal, _ordinal, _wide

RATERS = ["E1", "E2", "E3"]
CELLS = 4_000_000  # weight cells evaluated at once by the brute-force way


def brute_resample_se(lin, resamples: np.ndarray) -> np.ndarray:
    """The jackknife standard error of each resample from whole weight vectors."""
    units = np.flatnonzero(lin.used)
    n, m = resamples.shape[1], len(units)
    step = max(1, CELLS // max(1, n * m))
    drop = np.zeros((m, n))
    drop[np.arange(m), units] = 1.0
    out = np.empty(len(resamples))
    for start in range(0, len(resamples), step):
        w = resamples[start : start + step]
        less = np.maximum(w[:, None, :] - drop[None], 0.0)
        vals = lin(less.reshape(-1, n))[0].reshape(len(w), m)
        count = w[:, units]
        vals = np.where(count > 0, vals, 0.0)
        size = count.sum(axis=1)
        mean = (count * vals).sum(axis=1) / size
        var = (size - 1) / size * (count * (vals - mean[:, None]) ** 2).sum(axis=1)
        out[start : start + step] = np.sqrt(var)
    return out


def brute_jackknife(lin, n: int) -> np.ndarray:
    return np.concatenate([lin(1.0 - np.eye(n)[s : s + 512])[0] for s in range(0, n, 512)])[
        lin.used
    ]


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def compare(name: str, zone: np.ndarray, data: dict[str, np.ndarray], n_boot: int) -> None:
    n = len(zone)
    w = resample_weights(n, n_boot, np.random.default_rng(0)).astype(float)
    lins = {"alpha zone (nominal)": _nominal(zone), "alpha zone (ordinal)": _ordinal(zone),
            **{f"alpha {v}": _interval(x) for v, x in data.items()},
            "fleiss kappa": _fleiss(zone)}  # fmt: skip
    print(f"\n{name}: {n} keys, {n_boot} resamples")
    print(f"{'measure':22s} {'jackknife: brute':>17s} {'fast':>8s} {'resample SE: brute':>19s}"
          f" {'fast':>8s} {'speed-up':>9s} {'max |diff|':>11s}")  # fmt: skip
    for label, lin in lins.items():
        jb, t_jb = timed(lambda lin=lin: brute_jackknife(lin, n))
        jf, t_jf = timed(lin.jackknife)
        sb, t_sb = timed(lambda lin=lin: brute_resample_se(lin, w))
        sf, t_sf = timed(lambda lin=lin: lin.resample_se(w))
        diff = max(np.nanmax(np.abs(jb - jf)), np.nanmax(np.abs(sb - sf)))
        print(f"{label:22s} {t_jb:16.4f}s {t_jf:7.4f}s {t_sb:18.3f}s {t_sf:7.3f}s"
              f" {t_sb / t_sf:8.0f}x {diff:11.1e}")  # fmt: skip


def simulated(n_keys: int) -> pd.DataFrame:
    """A study of *n_keys* keys and three raters in the points layout."""
    g = np.random.default_rng(1)
    delta = g.normal(0, 1.2, (n_keys, 1)) + g.normal(0, 0.8, (n_keys, 3))
    r = np.exp(g.normal(0, 0.3, (n_keys, 1)) + g.normal(0, 0.25, (n_keys, 3)))
    quality = np.asarray(rrmap.zones.classify(delta.ravel(), r.ravel()), dtype=object)
    pts = pd.DataFrame({"expert": np.tile(RATERS, n_keys), "item": np.repeat(np.arange(n_keys), 3).astype(str),
                        "delta": delta.ravel(), "r": r.ravel(), "quality": quality})  # fmt: skip
    pts.attrs["rrmap"] = {"keys": ["expert", "item"]}
    return pts


def table(name: str, pts: pd.DataFrame, n_boot: int) -> None:
    times = {}
    for ci in ("bca", "studentized", "auto"):
        _, times[ci] = timed(lambda ci=ci: rrmap.reliability(pts, n_boot=n_boot, rng=0, ci=ci))
    print(f"{name}: rrmap.reliability, {n_boot} resamples: "
          + ", ".join(f"ci={ci!r} {t:.2f} s" for ci, t in times.items()))  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=1000)
    parser.add_argument("--bootstrap", type=int, default=1000)
    args = parser.parse_args()
    studies = {
        "example": rrmap.points(rrmap.datasets.load_example_ratings()),
        "simulated": simulated(args.keys),
    }
    for name, pts in studies.items():
        zone, delta, r = _wide(pts, RATERS)
        compare(name, zone, {"delta": delta, "log_r": np.log(r), "r": r}, args.bootstrap)
        table(name, pts, args.bootstrap)


if __name__ == "__main__":
    main()
