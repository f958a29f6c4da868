"""Benchmark: the speed-and-scale table, every row against its baseline in the same run.

Rows (all wall time, on the example data unless said):

1. ``rrmap analyze`` (whole CLI run, ``--no-figures``), B = 5,000, default
   options, ``--jobs 1 --stop-hits 0`` (every permutation, one core), and the
   study's tests (``--design independent --p-adjust none --chi2-monte-carlo 0``);
2. the same 252 energy tests in R ``energy::eqdist.etest`` (C code) — skipped
   with a message when R or its energy package is absent
   (``apt-get install r-base-core r-cran-energy``) — compared with the whole
   ``rrmap analyze`` run and with rrmap's energy tests alone, timed inside the
   process after start-up and reading, as the R script times its loop;
3. ``rrmap analyze`` with B = 100,000 and ``--p-adjust holm``;
4. ``rrmap --help`` and ``rrmap --version``;
5. ``rrmap points`` on 1,000,000 comparisons (load, points, write), CSV and
   Parquet, and CSV as a user without pyarrow runs it, with peak memory (the
   child's maximum resident set size);
6. the engine as it was before this work (``--baseline REV``, default
   ``ca85df3``), checked out in a temporary git worktree: the same
   ``rrmap analyze`` runs.

Usage::

    python benchmarks/bench_speed.py [--skip-big] [--baseline REV]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "data" / "example_ratings.csv"


def _timed(cmd: list[str], env: dict | None = None, cwd: Path | None = None) -> float:
    """Wall seconds of one child process (an error stops the benchmark)."""
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr[-2000:]}")
    return wall


def _best(cmd: list[str], repeat: int = 3, **kw) -> float:
    return min(_timed(cmd, **kw) for _ in range(repeat))


def _analyze(python: str, out: Path, *extra: str) -> list[str]:
    shutil.rmtree(out, ignore_errors=True)
    return [
        python,
        "-m",
        "rrmap.cli",
        "analyze",
        str(EXAMPLE),
        "--out",
        str(out),
        "--no-figures",
        "--force",
        "-q",
        "--seed",
        "1",
        *extra,
    ]


def _r_energy(tmp: Path, b: int) -> float | None:
    """The energy designs of ``analyze`` in R energy::eqdist.etest; None without R."""
    if shutil.which("Rscript") is None:
        return None
    check = subprocess.run(["Rscript", "-e", "library(energy)"], capture_output=True)
    if check.returncode != 0:
        return None
    import rrmap
    from rrmap.stats.designs import default_categories, split_within

    pts = rrmap.points(rrmap.datasets.load_example_ratings())
    by = default_categories(pts)
    tests = rrmap.stats.run_designs(pts, by, tests=["energy"], n_perm=0)
    rows = []
    for t, row in enumerate(tests.itertuples()):
        sub = pts
        if row.within != "all":
            col, val = split_within(row.within)
            sub = pts[pts[col].astype(str) == val]
        for g, name in enumerate(row.groups.split("|")):
            part = sub[sub[row.by].astype(str) == name]
            rows.append(pd.DataFrame({"test": t, "group": g, "x": part.delta, "y": part.r}))
    pd.concat(rows).to_csv(tmp / "designs.csv", index=False)
    script = f"""
library(energy)
d <- read.csv("{tmp / "designs.csv"}")
t0 <- proc.time()[["elapsed"]]
for (t in unique(d$test)) {{
  s <- d[d$test == t, ]
  s <- s[order(s$group), ]
  sizes <- as.vector(table(s$group))
  eqdist.etest(as.matrix(s[, c("x", "y")]), sizes = sizes, R = {b})
}}
cat(proc.time()[["elapsed"]] - t0, "\\n")
"""
    (tmp / "designs.R").write_text(script)
    done = subprocess.run(["Rscript", str(tmp / "designs.R")], capture_output=True, text=True)
    return float(done.stdout.split()[-1])


#: rrmap's energy tests alone, timed inside the process as the R script times its loop
#: (after start-up and reading): the same 252 designs, B = 5,000, every core.
_ENERGY_ONLY = (
    "import sys, time\n"
    "import rrmap\n"
    "from rrmap.stats import run_designs\n"
    "pts = rrmap.points(rrmap.load_ratings(sys.argv[1]))\n"
    "t = time.perf_counter()\n"
    "run_designs(pts, tests=['energy'], n_perm=5000, rng=1, n_jobs=-1)\n"
    "print(time.perf_counter() - t)\n"
)


def _energy_only(py: str, env: dict, cwd: Path) -> float:
    """Best of three child runs of :data:`_ENERGY_ONLY` (seconds)."""
    times = []
    for _ in range(3):
        done = subprocess.run([py, "-c", _ENERGY_ONLY, str(EXAMPLE)], capture_output=True,
                              text=True, env=env, cwd=cwd, check=True)  # fmt: skip
        times.append(float(done.stdout.split()[-1]))
    return min(times)


def _baseline_tree(rev: str, tmp: Path) -> Path | None:
    tree = tmp / "baseline"
    done = subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), rev],
        capture_output=True,
        text=True,
    )
    return tree if done.returncode == 0 else None


def _child_json(code: str, tree: Path) -> dict:
    """The JSON a child interpreter running *code* prints last, with *tree* on sys.path."""
    import json

    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONWARNINGS="ignore")
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tree
    )
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    return json.loads(done.stdout.splitlines()[-1])


def _runs_against(code: str, rev: str, repeat: int) -> dict[str, list[dict]]:
    """*code* (see :func:`_child_json`) run *repeat* times in this checkout ("now") and in
    a temporary git worktree of *rev* ("baseline"), alternating between the trees."""
    with tempfile.TemporaryDirectory() as tmp:
        base = _baseline_tree(rev, Path(tmp))
        if base is None:
            raise SystemExit(f"git worktree add {rev} failed")
        try:
            runs: dict[str, list[dict]] = {"now": [], "baseline": []}
            for _ in range(repeat):
                runs["now"].append(_child_json(code, ROOT))
                runs["baseline"].append(_child_json(code, base))
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)])
    return runs


def _against_args(doc: str, baseline: str) -> argparse.Namespace:
    """``--baseline`` (a git revision, default *baseline*) and ``--repeat`` of a benchmark
    run against a baseline tree by :func:`_runs_against`."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--baseline", default=baseline)
    parser.add_argument("--repeat", type=int, default=3)
    return parser.parse_args()


def _best_cases(runs: dict[str, list[dict]]) -> Iterator[tuple[str, float, float, list, list]]:
    """Each case of :func:`_runs_against`'s *runs*: its name, the best (smallest) first
    value of the runs now and of the baseline's, and the first run's values of each."""
    for case in runs["now"][0]:
        now = min(r[case][0] for r in runs["now"])
        old = min(r[case][0] for r in runs["baseline"])
        yield case, now, old, runs["now"][0][case], runs["baseline"][0][case]


def _compare_against(
    doc: str, baseline: str, code: str, measured: str
) -> list[tuple[str, float, float, list, list]]:
    """A benchmark run against a baseline: its options (:func:`_against_args`), *code*
    run in both trees (:func:`_runs_against`), the load average and what the CPU seconds
    are of (*measured*) printed, and each case's best runs (:func:`_best_cases`)."""
    args = _against_args(doc, baseline)
    runs = _runs_against(code, args.baseline, args.repeat)
    print(f"load average {os.getloadavg()[0]:.2f}; CPU seconds{measured}, best of {args.repeat}")
    return list(_best_cases(runs))


def _big_ratings(path: Path, n: int) -> None:
    g = np.random.default_rng(0)
    lo = np.round(g.uniform(0, 60, (n, 2)))
    wd = np.round(g.uniform(1, 40, (n, 2)))
    pd.DataFrame(
        {
            "expert": np.repeat(g.choice(["E1", "E2", "E3"], n), 2),
            "item": np.repeat(np.arange(n), 2).astype(str),
            "origin": np.tile(["real", "generated"], n),
            "low rating": lo.ravel(),
            "high rating": (lo + wd).ravel(),
        }
    ).to_csv(path, index=False)


#: ``rrmap`` as a user without pyarrow runs it: the import of pyarrow fails.
_NO_PYARROW = (
    "import importlib.abc, sys\n"
    "class _Block(importlib.abc.MetaPathFinder):\n"
    "    def find_spec(self, name, path, target=None):\n"
    "        if name.split('.')[0] == 'pyarrow':\n"
    "            raise ImportError(name)\n"
    "sys.meta_path.insert(0, _Block())\n"
    "from rrmap.cli import main\n"
    "main(sys.argv[1:])\n"
)


def _points_run(
    py: str, big: Path, out: Path, env: dict, pyarrow: bool = True
) -> tuple[float, float]:
    """``rrmap points BIG -o OUT`` in a fresh interpreter: wall seconds and its peak MB.

    It runs in OUT's folder: ``python -m`` puts the working folder first on the
    import path, and the repository's own folder would shadow a baseline's
    PYTHONPATH. ``pyarrow=False`` runs it as if pyarrow were not installed.
    """
    launch = [py, "-m", "rrmap.cli"] if pyarrow else [py, "-c", _NO_PYARROW]
    code = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        f"subprocess.run({launch!r} + ['points', {str(big)!r}, '-o', "
        f"{str(out)!r}, '--force'], check=True, capture_output=True)\n"
        "print(time.perf_counter() - t, "
        "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)\n"
    )
    done = subprocess.run([py, "-c", code], capture_output=True, text=True, env=env,
                          cwd=out.parent)  # fmt: skip
    if done.returncode != 0:
        return float("nan"), float("nan")
    wall, mb = map(float, done.stdout.split())
    return wall, mb


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skip-big", action="store_true", help="leave out B = 100,000 and 1M points")
    ap.add_argument("--baseline", default="ca85df3", help="git revision of the old engine")
    args = ap.parse_args()
    py = sys.executable
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # users' installs have their bytecode
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()}\n")
    with tempfile.TemporaryDirectory() as tmpname:
        tmp = Path(tmpname)
        out = tmp / "out"
        rows = []
        new5k = _best(_analyze(py, out), env=env)
        one5k = _best(_analyze(py, out, "--jobs", "1", "--stop-hits", "0"), env=env)
        rows.append(("analyze, B = 5,000 (default: sequential, every core)", new5k))
        rows.append(("analyze, B = 5,000, --jobs 1 --stop-hits 0", one5k))
        study = ["--design", "independent", "--p-adjust", "none", "--chi2-monte-carlo", "0"]
        rows.append(
            ("analyze, B = 5,000, the study's tests (" + " ".join(study) + ")",
             _best(_analyze(py, out, *study), env=env))
        )  # fmt: skip
        energy = _energy_only(py, env, tmp)
        rows.append(("rrmap energy tests alone (in-process, as R is timed), B = 5,000", energy))
        r = _r_energy(tmp, 5000)
        if r is None:
            print("R energy: skipped (install r-base-core and r-cran-energy)")
        else:
            rows.append(("R energy::eqdist.etest, the 252 energy tests, R = 5,000", r))
        if not args.skip_big:
            rows.append(
                (
                    "analyze, B = 100,000, --p-adjust holm",
                    _best(
                        _analyze(py, out, "--permutations", "100000", "--p-adjust", "holm"),
                        repeat=1,
                        env=env,
                    ),
                )
            )
        rows.append(("rrmap --help", _best([py, "-m", "rrmap.cli", "--help"], env=env)))
        rows.append(("rrmap --version", _best([py, "-m", "rrmap.cli", "--version"], env=env)))
        tree = _baseline_tree(args.baseline, tmp)
        if tree is not None:
            old_env = dict(env, PYTHONPATH=str(tree))
            rows.append(
                (
                    f"baseline {args.baseline}: analyze, B = 5,000",
                    _best(_analyze(py, out), env=old_env, cwd=tmp),
                )
            )
            if not args.skip_big:
                rows.append(
                    (
                        f"baseline {args.baseline}: analyze, B = 100,000, holm",
                        _best(
                            _analyze(py, out, "--permutations", "100000", "--p-adjust", "holm"),
                            repeat=1,
                            env=old_env,
                            cwd=tmp,
                        ),
                    )
                )
        width = max(len(name) for name, _ in rows)
        for name, secs in rows:
            print(f"{name:<{width}}  {secs:7.2f} s")
        if r is not None:
            print(f"\nR energy / rrmap analyze (default, whole run): {r / new5k:.1f}x")
            print(f"R energy / rrmap energy tests alone: {r / energy:.1f}x")
        if tree is not None:
            print(
                f"baseline / rrmap at B = 5,000: {rows[-1 if args.skip_big else -2][1] / new5k:.1f}x"
            )
        if not args.skip_big:
            big = tmp / "big.csv"
            _big_ratings(big, 1_000_000)
            print("\nrrmap points, 1,000,000 comparisons (whole-number ratings):")
            for suffix in ("csv", "parquet"):
                wall, mb = _points_run(py, big, tmp / f"p.{suffix}", env)
                print(f"  -o points.{suffix:<8} {wall:6.2f} s, peak {mb:6.0f} MB")
            wall, mb = _points_run(py, big, tmp / "p_plain.csv", env, pyarrow=False)
            print(f"  without pyarrow, -o points.csv {wall:6.2f} s, peak {mb:6.0f} MB")
            if tree is not None:
                wall, mb = _points_run(py, big, tmp / "p_old.csv", dict(env, PYTHONPATH=str(tree)))
                print(f"  baseline, -o points.csv {wall:6.2f} s, peak {mb:6.0f} MB")
        if tree is not None:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
                capture_output=True,
            )


if __name__ == "__main__":
    main()
