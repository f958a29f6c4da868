"""Time ratings → RRMap points on 1,000,000 comparisons.

Compares, on the same data in the same run:

* rrmap: ``load_ratings`` (full validation) + ``points`` (vectorised), and the
  bare vectorised ``compare`` + ``classify`` on arrays;
* a per-row Python loop over the same formulas (the way a script would do it
  row by row), timed on a subset and reported per comparison.

Run: ``python benchmarks/bench_points.py [--n 1000000] [--loop-n 20000]``
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import pandas as pd

import rrmap
from rrmap.zones import classify


def make_ratings(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    lo = rng.uniform(0, 60, (n, 2))
    wd = rng.uniform(1, 40, (n, 2))
    return pd.DataFrame(
        {
            "expert": np.repeat(rng.choice(["E1", "E2", "E3"], n), 2),
            "item": np.repeat(np.arange(n), 2).astype(str),
            "origin": np.tile(["real", "generated"], n),
            "low rating": lo.ravel(),
            "high rating": (lo + wd).ravel(),
        }
    )


def loop_points(df: pd.DataFrame) -> list[tuple[float, float, float, str]]:
    z = rrmap.Z_95
    out = []
    rows = df.to_dict("records")
    for ref, qry in zip(rows[::2], rows[1::2], strict=True):
        m1, s1 = (
            (ref["low rating"] + ref["high rating"]) / 2,
            (ref["high rating"] - ref["low rating"]) / (2 * z),
        )
        m2, s2 = (
            (qry["low rating"] + qry["high rating"]) / 2,
            (qry["high rating"] - qry["low rating"]) / (2 * z),
        )
        d, r = (m2 - m1) / s1, s2 / s1
        bc = math.sqrt(2 * r / (1 + r * r)) * math.exp(-d * d / (4 * (1 + r * r)))
        if bc > 0.98:
            q = "excellent"
        elif abs(d) < 2 and r < 2 / 3:
            q = "stereotype"
        elif abs(d) < 2 and r <= 1.5:
            q = "fair"
        else:
            q = "bad"
        out.append((d, r, bc, q))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--loop-n", type=int, default=20_000)
    args = ap.parse_args()
    df = make_ratings(args.n)

    t0 = time.perf_counter()
    ratings = rrmap.load_ratings(df)
    t1 = time.perf_counter()
    pts = rrmap.points(ratings)
    t2 = time.perf_counter()
    assert len(pts) == args.n

    lo, hi = df["low rating"].to_numpy(), df["high rating"].to_numpy()
    t3 = time.perf_counter()
    m, s = rrmap.interval_to_gaussian(lo, hi)
    d, r, bc = rrmap.compare(m[::2], s[::2], m[1::2], s[1::2])
    classify(d, r, bc)
    t4 = time.perf_counter()

    sub = df.iloc[: 2 * args.loop_n]
    t5 = time.perf_counter()
    ref = loop_points(sub)
    t6 = time.perf_counter()
    np.testing.assert_allclose([x[2] for x in ref], bc[: args.loop_n], rtol=1e-12)

    per_loop = (t6 - t5) / args.loop_n
    print(f"comparisons: {args.n:,}")
    print(f"rrmap load_ratings (validation): {t1 - t0:8.2f} s")
    print(f"rrmap points:                    {t2 - t1:8.2f} s")
    print(
        f"rrmap load + points:             {t2 - t0:8.2f} s  ({(t2 - t0) / args.n * 1e6:.2f} µs/comparison)"
    )
    print(
        f"vectorised formulas only:        {t4 - t3:8.3f} s  ({(t4 - t3) / args.n * 1e9:.0f} ns/comparison)"
    )
    print(
        f"per-row Python loop ({args.loop_n:,}):    {t6 - t5:8.2f} s  ({per_loop * 1e6:.2f} µs/comparison)"
    )
    print(f"ratio loop / vectorised formulas: {per_loop / ((t4 - t3) / args.n):8.1f}x")
    print(
        f"ratio loop / rrmap load+points:   {per_loop / ((t2 - t0) / args.n):8.1f}x "
        "(rrmap also validates and pairs by key)"
    )


if __name__ == "__main__":
    main()
