"""Benchmark: a large test far from its null, screened or not; matched effect intervals,
the groups' blocks merged or not.

- The energy test of 10 groups of 300 points each, shifted apart (p = 1/5001: it never
  stops early), B = 5,000, on one BLAS thread: with single-precision screening (the
  engine's choice) and without it (the engine's double precision alone, as up to
  1,024 points only were screened before). The p-values must be equal.
- The same on null data (the groups drawn alike): the screen is given up after one
  chunk, so both take about as long.
- The bootstrap shares of a matched effect (1,000 resamples of 300 keys) with 10 and 2
  groups: one block for the groups that span the same keys (what ``dispersion_effect``
  does) against one block per group. The shares must agree to 1e-14.

Each pair runs interleaved in one process and the ratio is printed.

Usage::

    python benchmarks/bench_large_tests.py [--repeat 2]
"""

from __future__ import annotations

import argparse
import time
from unittest import mock

import numpy as np
from threadpoolctl import threadpool_limits

from rrmap.bootstrap import resample_weights
from rrmap.stats import _permutation, effects
from rrmap.stats.energy import energy_test


def _best(fn, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def _energy(repeat: int) -> None:
    rng = np.random.default_rng(0)
    k, n = 10, 300
    for name, shift in (("shifted apart", 0.3), ("null", 0.0)):
        x = rng.normal(size=(k * n, 2))
        samples = [x[i * n : (i + 1) * n] + shift * i for i in range(k)]

        def run(samples: list = samples) -> object:
            return energy_test(*samples, rng=1)

        t_new, new = _best(run, repeat)
        with mock.patch.object(_permutation, "screens", lambda *a: False):
            t_old, old = _best(run, repeat)
        assert new.pvalue == old.pvalue and new.n_perm == old.n_perm
        print(
            f"energy test, {k} x {n} points, {name}: screened {t_new:.2f} s, "
            f"double precision {t_old:.2f} s, ratio {t_old / t_new:.2f} "
            f"(p = {new.pvalue:.3g}, {new.n_perm} relabellings, both)"
        )


def _effects(repeat: int) -> None:
    rng = np.random.default_rng(1)
    units = 300
    for k in (10, 2):
        keys = np.tile(np.arange(units), k)
        groups = np.repeat(np.arange(k), units)
        x = rng.normal(0, 5, (units, 2))[keys] + rng.normal(0, 1, (units * k, 2))
        ps = effects._pair_sums(_permutation.distances(x, x), groups, keys, k)
        merged = effects._merged(ps)
        w = np.asfortranarray(resample_weights(units, 1000, rng), dtype=float)
        t_new, new = _best(lambda: effects._shares(merged, w), repeat)  # noqa: B023
        t_old, old = _best(lambda: effects._shares(ps, w), repeat)  # noqa: B023
        np.testing.assert_allclose(new, old, rtol=1e-12, atol=1e-14)  # shares: 1 − a ratio
        print(
            f"matched effect, {k} groups x {units} keys, 1,000 resamples: merged "
            f"{len(merged.blocks)} blocks {t_new:.4f} s, per group {len(ps.blocks)} blocks "
            f"{t_old:.4f} s, ratio {t_old / t_new:.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    with threadpool_limits(limits=1, user_api="blas"):
        _energy(args.repeat)
        _effects(max(args.repeat, 5))


if __name__ == "__main__":
    main()
