"""Benchmark: a 10-rater × 20-criterion study against the holdout, beside R's loop.

The holdout is the shipped example (``data/example_ratings.csv``: 3 raters, 405 points,
504 tests with default options). The study is generated here, seeded, by the model of
``data/make_example_ratings.py`` (imported, not copied): the same five movements, three
modalities and two origins, with 10 raters (E1 … E10 taking in turn the balanced,
generous and harsh profiles of E1, E2, E3) and 20 criteria (``criterion 01`` … ``20``,
in the three criterion groups in turn): 6,000 intervals, 3,000 points, 7,144 tests.

Each ``rrmap analyze --no-figures`` (default options) runs in a child of a small
wrapper process, so that the wrapper's ``ru_maxrss`` of its children is that run's peak
resident memory. Printed: pandas' version and whether pyarrow is installed (pandas 3
imports it on start-up when it is); the best and the median wall time of ``--repeat``
runs with the load average beside each, the peak memory, the ratio study / holdout (the
goal: at most 15, and at most 1 GB), the sizes of ``results.json``, ``report.md`` and
``tests.csv``; and, when R and its energy package are installed (``apt-get install r-base-core
r-cran-energy``), R ``energy::eqdist.etest`` on the holdout's 252 energy tests (the loop
of ``bench_speed.py``, imported from there) with the ratio R / rrmap (the goal: at least 3).
The holdout is also run without resampling (``--permutations 0 --chi2-monte-carlo 0
--bootstrap 0``: every design planned, tested and written, nothing drawn), and R's loop is
divided by that time too: the most that any speed-up of the resampling could give.

The machine may be shared: the load average is printed beside every run; ratios from the
same run are what to compare.

Usage::

    python benchmarks/bench_study_scale.py [--repeat 3] [--raters 10] [--criteria 20]
        [--no-r] [--keep DIR] [--write-study FILE]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from unittest import mock

import pandas as pd
from bench_speed import _r_energy

ROOT = Path(__file__).resolve().parents[1]
HOLDOUT = ROOT / "data" / "example_ratings.csv"

#: Runs one command and prints its wall seconds and its peak resident memory (MB).
_WRAPPER = (
    "import resource, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)\n"
    "print(time.perf_counter() - t, "
    "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)\n"
)


def _example_model():
    """``data/make_example_ratings.py`` as a module (the data folder is not a package)."""
    spec = importlib.util.spec_from_file_location(
        "make_example_ratings", ROOT / "data" / "make_example_ratings.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def study(raters: int = 10, criteria: int = 20, seed: int = 2025) -> pd.DataFrame:
    """The example's model with *raters* raters and *criteria* criteria (seeded)."""
    model = _example_model()
    profiles = list(model.RATER_MIX)  # E1 balanced, E2 generous, E3 harsh
    names = {f"E{i + 1}": profiles[i % len(profiles)] for i in range(raters)}
    groups = list(model.GROUP_SPREAD)
    crit = {f"criterion {j + 1:02d}": groups[j % len(groups)] for j in range(criteria)}

    def per_rater(table: dict) -> dict:
        return {name: table[profile] for name, profile in names.items()}

    with mock.patch.multiple(
        model,
        RATER_MIX=per_rater(model.RATER_MIX),
        RATER_MOVEMENT_WEIGHT=per_rater(model.RATER_MOVEMENT_WEIGHT),
        FEMALE_SHIFT=per_rater(model.FEMALE_SHIFT),
        CRITERIA=crit,
    ):
        return model.simulate(seed)


#: The options of a run that draws nothing at random: no permutation, no Monte Carlo zone
#: test, no bootstrap interval (every design still planned, tested and written).
NO_RESAMPLING = ("--permutations", "0", "--chi2-monte-carlo", "0", "--bootstrap", "0")


def _run(data: Path, out: Path, extra: tuple[str, ...] = ()) -> tuple[float, float, float]:
    """(wall seconds, peak MB, load average) of one ``rrmap analyze --no-figures``."""
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sys.executable, "-m", "rrmap.cli", "analyze", str(data), "--out", str(out)]
    cmd += ["--no-figures", "--force", "-q", *extra]
    load = os.getloadavg()[0]
    done = subprocess.run(
        [sys.executable, "-c", _WRAPPER, *cmd], capture_output=True, text=True, cwd=ROOT
    )
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr[-2000:]}")
    wall, mb = map(float, done.stdout.split())
    return wall, mb, max(load, os.getloadavg()[0])


def _sizes(out: Path) -> str:
    names = ("results.json", "report.md", "tests.csv")
    return ", ".join(f"{n} {(out / n).stat().st_size / 1e6:.2f} MB" for n in names)


def _measure(
    name: str, data: Path, out: Path, repeat: int, extra: tuple[str, ...] = ()
) -> tuple[float, float]:
    """Run *data* *repeat* times; print every run; return (best wall, peak MB)."""
    runs = []
    for i in range(repeat):
        wall, mb, load = _run(data, out, extra)
        runs.append((wall, mb))
        print(f"  {name} run {i + 1}: {wall:7.2f} s, peak {mb:5.0f} MB, load {load:.2f}")
    walls = [w for w, _ in runs]
    peak = max(mb for _, mb in runs)
    print(f"{name}: best {min(walls):.2f} s, median {statistics.median(walls):.2f} s, "
          f"peak {peak:.0f} MB; {_sizes(out)}")  # fmt: skip
    return min(walls), peak


def _pandas_line() -> str:
    """pandas' version, and whether it imports pyarrow on start-up (pandas 3 does when
    pyarrow is installed, as the test and parquet extras install it: about 0.1–0.25 s of
    every ``rrmap`` run on this machine, not paid by a plain ``pip install rrmap``)."""
    arrow = importlib.util.find_spec("pyarrow") is not None
    return f"pandas {pd.__version__}; pyarrow {'installed' if arrow else 'not installed'}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--raters", type=int, default=10)
    ap.add_argument("--criteria", type=int, default=20)
    ap.add_argument("--no-r", action="store_true", help="leave out R's loop")
    ap.add_argument("--keep", type=Path, help="keep the outputs in DIR/holdout, DIR/study")
    ap.add_argument("--write-study", type=Path, help="write the study's ratings and stop")
    args = ap.parse_args()
    table = study(args.raters, args.criteria)
    if args.write_study:
        table.to_csv(args.write_study, index=False)
        print(f"wrote {args.write_study}: {len(table)} intervals")
        return
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()}")
    print(f"{_pandas_line()}\n")
    with tempfile.TemporaryDirectory() as tmpname:
        tmp = Path(tmpname)
        keep = args.keep or tmp
        data = tmp / "study.csv"
        table.to_csv(data, index=False)
        label = f"{args.raters}-rater x {args.criteria}-criterion study"
        hold, _ = _measure("holdout", HOLDOUT, keep / "holdout", args.repeat)
        floor, _ = _measure(
            "holdout, no resampling", HOLDOUT, keep / "floor", args.repeat, NO_RESAMPLING
        )
        big, peak = _measure(label, data, keep / "study", args.repeat)
        print(f"\n{label} / holdout: {big / hold:.1f}x (goal <= 15x), "
              f"peak {peak / 1024:.2f} GB (goal <= 1 GB)")  # fmt: skip
        r = None if args.no_r else _r_energy(tmp, 5000)
        if r is None:
            print("R energy: skipped (--no-r, or R with the energy package not installed)")
        else:
            print(f"R energy::eqdist.etest, the holdout's energy tests, R = 5,000: {r:.2f} s "
                  f"(load {os.getloadavg()[0]:.2f}); R / rrmap analyze (whole CLI): "
                  f"{r / hold:.1f}x (goal >= 3x)")  # fmt: skip
            print(f"R / the CLI without resampling: {r / floor:.1f}x (the most that any "
                  "speed-up of the permutations, Monte Carlo tests and bootstraps can give)")  # fmt: skip


if __name__ == "__main__":
    main()
