"""How fast a large bad ratings file fails, against reading the same file at all.

Writes a study-schema CSV of N rows (default 1,000,000; 2 × N/2 comparisons),
then a copy in which half the comparison keys are broken (their query row
relabelled as a second reference). Times, in the same run:

* ``pandas.read_csv`` of the bad file (the floor: any reader must parse it);
* ``rrmap.load_ratings`` of the valid file (parse, validate, pair);
* ``rrmap.load_ratings`` of the bad file until it raises, with the message
  listing 30 keys and counting the rest.

Run: ``python benchmarks/bench_bad_file.py [--n 1000000]``
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

import rrmap
from rrmap.errors import RatingsError


def make_file(path: Path, n: int, broken: bool, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    pairs = n // 2
    lo = np.round(rng.uniform(0, 60, (pairs, 2)), 1)
    wd = np.round(rng.uniform(1, 40, (pairs, 2)), 1)
    origin = np.tile(["real", "generated"], pairs)
    if broken:
        origin[1::4] = "real"  # every second key: two references, no query
    df = pd.DataFrame(
        {
            "movement": np.repeat(rng.choice(["cubism", "surrealism"], pairs), 2),
            "expert": np.repeat((np.arange(pairs) // 1000).astype(str), 2),
            "criterion": np.repeat((np.arange(pairs) % 1000).astype(str), 2),
            "origin": origin,
            "low rating": lo.ravel(),
            "high rating": (lo + wd).ravel(),
        }
    )
    df.to_csv(path, index=False)


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000, help="rows per file")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        good, bad = Path(tmp) / "good.csv", Path(tmp) / "bad.csv"
        make_file(good, args.n, broken=False)
        make_file(bad, args.n, broken=True)
        _, t_pandas = timed(lambda: pd.read_csv(bad, dtype=str, keep_default_na=False))
        _, t_good = timed(lambda: rrmap.load_ratings(good))

        def fail() -> str:
            try:
                rrmap.load_ratings(bad)
            except RatingsError as exc:
                return str(exc)
            raise AssertionError("the bad file loaded")

        msg, t_bad = timed(fail)
    n_keys = msg.split(" comparison key(s)")[0].rsplit(" ", 1)[-1]
    print(f"rows per file                      {args.n:>12,}")
    print(f"pandas.read_csv (bad file)         {t_pandas:>10.2f} s")
    print(
        f"load_ratings, valid file           {t_good:>10.2f} s   {t_good / t_pandas:5.1f}× read_csv"
    )
    print(
        f"load_ratings, bad file, to raise   {t_bad:>10.2f} s   {t_bad / t_pandas:5.1f}× read_csv"
    )
    print(
        f"bad keys reported                  {n_keys:>12} (30 listed; message {len(msg):,} chars)"
    )


if __name__ == "__main__":
    main()
