"""Time and peak memory of one large Bradley–Terry bootstrap, by interval method.

    python benchmarks/bench_rank_large.py [--n 1000000] [--k 100] [--bootstrap 1000]
                                          [--ci percentile]

1,000,000 comparisons of uniformly random pairs among 100 candidates (scores
drawn from N(0, 1), no ties), ``fit_bradley_terry(bootstrap=1000, ci=...)``
with comparisons resampled. Run one method per process: the peak resident
memory printed is the process's (``resource.getrusage``), data included.
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np
import pandas as pd

from rrmap.rank import fit_bradley_terry


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--bootstrap", type=int, default=1000)
    ap.add_argument("--ci", default="percentile")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    theta = rng.normal(size=args.k)
    left = rng.integers(0, args.k, args.n)
    right = (left + rng.integers(1, args.k, args.n)) % args.k
    p = 1 / (1 + np.exp(-(theta[left] - theta[right])))
    names = np.array([f"c{i:03d}" for i in range(args.k)])
    df = pd.DataFrame({"instance": "i", "left": names[left], "right": names[right],
                       "winner": np.where(rng.random(args.n) < p, "left", "right")})  # fmt: skip
    t0 = time.perf_counter()
    fit = fit_bradley_terry(df, bootstrap=args.bootstrap, ci=args.ci, rng=args.seed)
    took = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    width = float((fit.table["boot_high"] - fit.table["boot_low"]).mean())
    print(f"n={args.n} k={args.k} B={args.bootstrap} ci={args.ci}: {took:.1f} s, "
          f"peak RSS {peak:.0f} MB, mean interval width {width:.4f}")  # fmt: skip


if __name__ == "__main__":
    main()
