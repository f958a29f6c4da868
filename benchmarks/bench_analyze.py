"""Benchmark: the full analysis of the example data, rrmap's engine vs a dcor loop.

Runs, on the same points and the same tests (all four categories of the
example data, B = 5000 by default):

1. rrmap's batched engine: every design, energy and χ² (``run_designs``),
   with independent samples (the tests dcor runs), then with rrmap's
   defaults (matched expert-effect tests, Stuart–Maxwell and within-key
   permutation zone tests, Monte Carlo χ² where Cochran's rule fails);
2. the same energy tests, one ``dcor.homogeneity.energy_test`` call each.

Prints wall-clock and CPU time per design and test kind, the totals and the
ratio, and checks on the way that both give the same statistics (to 1e-10)
and p-values within Monte Carlo error. The machine may be shared: CPU time
is printed beside wall time.

Usage::

    python benchmarks/bench_analyze.py [--permutations 5000] [--dcor-permutations N]

``--dcor-permutations`` runs the dcor loop with fewer permutations and
scales its time linearly to B (labelled as extrapolated in the output).
"""

from __future__ import annotations

import argparse
import os
import time

import dcor
import numpy as np
import pandas as pd

import rrmap
from rrmap.stats.designs import (
    category_effect_per_expert,
    default_categories,
    expert_effect,
    expert_effect_per_option,
)
from rrmap.stats.energy import DEFAULT_STOP_HITS


def _timed(fn, *args, **kwargs):
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - w0, time.process_time() - c0


def _samples(pts: pd.DataFrame, row: pd.Series) -> list[np.ndarray]:
    sub = pts
    if row.within != "all":
        col, val = row.within.split("=", 1)
        sub = pts[pts[col].astype(str) == val]
    groups = row.groups.split("|")
    return [sub.loc[sub[row.by].astype(str) == g, ["delta", "r"]].to_numpy() for g in groups]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--permutations", type=int, default=5000)
    ap.add_argument(
        "--dcor-permutations",
        type=int,
        default=None,
        help="permutations for the dcor loop (default: the same B); time scaled to B",
    )
    args = ap.parse_args()
    b = args.permutations
    b_dcor = args.dcor_permutations or b

    pts = rrmap.points(rrmap.datasets.load_example_ratings())
    by = default_categories(pts)
    print(f"example data: {len(pts)} points, categories {by}, B = {b}")
    print(f"rrmap {rrmap.__version__}, dcor {dcor.__version__}, numpy {np.__version__}")
    print(f"{os.cpu_count()} CPUs, load average at the start: {os.getloadavg()}\n")

    designs = {
        "expert effect, overall": lambda **kw: expert_effect(pts, **kw),
        "expert effect per option": lambda **kw: expert_effect_per_option(pts, by, **kw),
        "category effect per expert": lambda **kw: category_effect_per_expert(pts, by, **kw),
    }
    rows = []
    tables = {}
    for name, fn in designs.items():
        kw = dict(n_perm=b, rng=0, design="independent")
        energy, w_e, c_e = _timed(fn, tests=["energy"], **kw)
        _, w_c, c_c = _timed(fn, tests=["chi2"], **kw)
        _, w_m, _ = _timed(fn, tests=["energy"], n_perm=b, rng=0)  # matched where possible
        tables[name] = energy
        rows.append(
            {
                "design": name,
                "tests": len(energy) * 2,
                "rrmap_energy_s": w_e,
                "rrmap_energy_matched_s": w_m,
                "rrmap_chi2_s": w_c,
                "rrmap_cpu_s": c_e + c_c,
            }
        )

    # the whole thing in one call, as `rrmap analyze` runs it: the study's tests (the
    # same energy tests as dcor's), then rrmap's defaults
    run = rrmap.stats.designs.run_designs
    full, w_full, c_full = _timed(
        run, pts, by, n_perm=b, rng=0, design="independent", chi2_n_perm=0, p_adjust="none"
    )
    _, w_default, c_default = _timed(run, pts, by, n_perm=b, rng=0)

    # the same energy tests through dcor, one call per test
    max_rel, worst_z = 0.0, 0.0
    for row, table in zip(rows, tables.values(), strict=True):
        w0, c0 = time.perf_counter(), time.process_time()
        refs = []
        for i, t in enumerate(table.itertuples(index=False)):
            if t.note:
                refs.append((np.nan, np.nan))
                continue
            res = dcor.homogeneity.energy_test(
                *_samples(pts, t), num_resamples=b_dcor, random_state=i
            )
            refs.append((float(res.statistic), float(res.pvalue)))
        scale = b / b_dcor
        row["dcor_energy_s"] = (time.perf_counter() - w0) * scale
        row["dcor_cpu_s"] = (time.process_time() - c0) * scale
        ref = np.array(refs)
        ok = ~np.isnan(ref[:, 0])
        rel = np.abs(table.statistic.to_numpy()[ok] - ref[ok, 0]) / np.maximum(ref[ok, 0], 1e-300)
        max_rel = max(max_rel, float(rel.max()))
        p1, p2 = table.pvalue.to_numpy()[ok], ref[ok, 1]
        pbar = np.clip((p1 + p2) / 2, 1 / b, 1)
        # a test that stopped early has the sequential p = h / L: sd ≈ p √((1 − p) / h)
        stopped = table.n_perm.to_numpy(dtype=float)[ok] < b
        var_rrmap = np.where(
            stopped, pbar**2 * (1 - pbar) / DEFAULT_STOP_HITS, pbar * (1 - pbar) / b
        )
        se = np.sqrt(var_rrmap + pbar * (1 - pbar) / b_dcor)
        worst_z = max(worst_z, float(np.max(np.abs(p1 - p2) / np.maximum(se, 1e-12))))

    df = pd.DataFrame(rows)
    df["ratio_energy"] = df["dcor_energy_s"] / df["rrmap_energy_s"]
    pd.set_option("display.width", 160)
    print(df.round(3).to_string(index=False))
    tot_rrmap = df.rrmap_energy_s.sum() + df.rrmap_chi2_s.sum()
    tot_dcor = df.dcor_energy_s.sum()
    extrap = f" (extrapolated from B = {b_dcor})" if b_dcor != b else ""
    print(
        f"\nfull analysis in one call (run_designs, {len(full)} tests, energy + χ², the "
        f"study's tests): {w_full:.2f} s wall, {c_full:.2f} s CPU"
    )
    print(
        "the same with rrmap's defaults (matched expert effect, Monte Carlo χ² where "
        f"Cochran's rule fails, Holm): {w_default:.2f} s wall, {c_default:.2f} s CPU "
        f"({w_default / w_full:.2f}× the study's tests)"
    )
    print(
        "energy tests of the expert-effect designs, matched / independent: "
        f"{df.rrmap_energy_matched_s[:2].sum():.2f} s / {df.rrmap_energy_s[:2].sum():.2f} s"
    )
    print(f"sum of the per-design rrmap runs (energy + χ²): {tot_rrmap:.2f} s wall")
    print(f"dcor loop (energy tests only){extrap}: {tot_dcor:.1f} s wall")
    cpu_dcor = df.dcor_cpu_s.sum()
    print(f"dcor loop CPU time{extrap}: {cpu_dcor:.1f} s")
    print(f"ratio dcor loop / rrmap full analysis, wall: {tot_dcor / w_full:.1f}×")
    print(f"ratio dcor loop / rrmap full analysis, CPU:  {cpu_dcor / c_full:.1f}×")
    print(f"load average (1, 5, 15 min) at the end: {os.getloadavg()}")
    print(
        f"checks: max relative statistic difference {max_rel:.1e}; "
        f"largest |Δp| / SE over {int((full.test == 'energy').sum())} tests: {worst_z:.2f}"
    )


if __name__ == "__main__":
    main()
