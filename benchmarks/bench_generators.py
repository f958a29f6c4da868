"""Benchmark: a study of two generators against the paper's study of one.

Runs ``rrmap analyze`` as users run it (default options: every design, B = 5000, the
figures, the reliability bootstrap) on the shipped example with one query corpus
(``data/example_ratings.csv``, 810 intervals, 504 tests) and on the same study with two
(``data/example_two_generators.csv``, 1215 intervals: the first file's rows and a second
generator; the generator effect and every design per corpus, 1,056 tests), as
subprocesses, alternating, with and without ``--no-figures``. Prints wall-clock and CPU
time (the process and every process it started), the best and the median of
``--repeat`` runs, and the ratio "two generators / one" (the goal: at most 2).

The machine may be shared: its load average is printed with the results; ratios from the
same run are what to compare.

Usage::

    python benchmarks/bench_generators.py [--repeat 5] [--jobs -1]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_figures import _adopt_orphans, _reap_orphans

ROOT = Path(__file__).resolve().parents[1]
ONE = ROOT / "data" / "example_ratings.csv"
TWO = ROOT / "data" / "example_two_generators.csv"


def _run(data: Path, figures: bool, jobs: str) -> tuple[float, float]:
    """(wall, CPU) seconds of one ``rrmap analyze`` of *data*."""
    out = Path(tempfile.mkdtemp()) / "out"
    cmd = [sys.executable, "-m", "rrmap.cli", "analyze", str(data), "--out", str(out)]
    cmd += ["--quiet", "--jobs", jobs] + ([] if figures else ["--no-figures"])
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    _reap_orphans()
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--jobs", default="-1")
    args = parser.parse_args()
    _adopt_orphans()
    runs: dict[tuple[str, bool], list[tuple[float, float]]] = {}
    variants = [(name, data, figures) for figures in (False, True)
                for name, data in (("one", ONE), ("two", TWO))]  # fmt: skip
    for _name, data, figures in variants:  # warm the caches once, unmeasured
        _run(data, figures, args.jobs)
    for _ in range(args.repeat):
        for name, data, figures in variants:
            runs.setdefault((name, figures), []).append(_run(data, figures, args.jobs))
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"rrmap analyze, default options, --jobs {args.jobs}; {args.repeat} runs each, "
          f"alternating; load average {load}")  # fmt: skip
    print(f"{'':28}{'best':>9}{'median':>9}{'CPU (median)':>14}")
    for figures in (False, True):
        what = "with figures" if figures else "--no-figures"
        best, median = {}, {}
        for name in ("one", "two"):
            walls = [w for w, _ in runs[(name, figures)]]
            cpus = [c for _, c in runs[(name, figures)]]
            best[name], median[name] = min(walls), statistics.median(walls)
            label = f"{'one generator' if name == 'one' else 'two generators'}, {what}"
            print(f"{label:28}{best[name]:8.2f}s{median[name]:8.2f}s"
                  f"{statistics.median(cpus):13.2f}s")  # fmt: skip
        print(f"{'  ratio two / one':28}{best['two'] / best['one']:8.2f}×"
              f"{median['two'] / median['one']:8.2f}×   (goal: at most 2)")  # fmt: skip


if __name__ == "__main__":
    main()
