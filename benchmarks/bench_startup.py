"""Benchmark: how soon a command starts its work, now and at ``--baseline``.

Runs, for this checkout and for a git worktree of ``--baseline`` (the commit before the
command line stopped importing numpy and pandas at start):

1. ``python -c "import rrmap"`` and ``rrmap --help``: wall-clock time;
2. ``rrmap analyze data/example_ratings.csv`` with its figures, its output read
   through a pipe (as a script or ``| tee`` reads it) and thrown away: the wall time
   of each, and their difference. A pipe stays open until every process holding it
   has ended, the figure workers' server included;
3. ``rrmap rank fit data/fineartbench/global_annotation.json``: a whole command whose
   work (2,116 comparisons) is small beside what it imports (``scipy.stats`` alone took
   1.3 s of it before ``c39f9d3``: ``--baseline 4b98bf2`` shows that change).

Prints the best of ``--repeat`` runs of each (runs alternate between the variants) and
the ratios "now / baseline".

Usage::

    python benchmarks/bench_startup.py [--baseline 3aabc14] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_figures import DATA, _load, _worktree

FINEARTBENCH = DATA.parent / "fineartbench" / "global_annotation.json"


def _wall(cmd: list[str], source: Path, pipe: bool = True) -> float:
    env = {**os.environ, "PYTHONPATH": str(source), "MPLBACKEND": "Agg"}
    out = subprocess.PIPE if pipe else subprocess.DEVNULL
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=out, stderr=out, env=env, cwd=tempfile.gettempdir())
    return time.perf_counter() - t0


def _cases() -> dict[str, tuple[list[str], bool]]:
    py = sys.executable
    analyze = [py, "-m", "rrmap.cli", "analyze", str(DATA), "--quiet", "--out"]
    fit = [py, "-m", "rrmap.cli", "rank", "fit", str(FINEARTBENCH), "--force", "-o"]
    return {
        "import rrmap": ([py, "-c", "import rrmap"], True),
        "rrmap --help": ([py, "-m", "rrmap.cli", "--help"], True),
        "analyze, read through a pipe": (analyze, True),
        "analyze, output thrown away": (analyze, False),
        "rank fit (FineArtBench)": (fit, True),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default="3aabc14")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    sources = {"now": Path(__file__).resolve().parents[1], "baseline": _worktree(args.baseline)}
    print(f"best of {args.repeat} ({_load()}, {os.cpu_count()} cores)")
    best: dict[tuple[str, str], float] = {}
    for _ in range(args.repeat):
        for case, (cmd, pipe) in _cases().items():
            for name, source in sources.items():
                out = Path(tempfile.mkdtemp()) / ("ranking.csv" if "rank" in case else "out")
                run = [*cmd, str(out)] if "analyze" in case or "rank" in case else cmd
                wall = _wall(run, source, pipe)
                best[name, case] = min(best.get((name, case), wall), wall)
    print(f"{'':<32}{'now':>8}{'baseline':>10}{'now / baseline':>16}")
    for case in _cases():
        now, base = best["now", case], best["baseline", case]
        print(f"{case:<32}{now:7.2f}s{base:9.2f}s{now / base:16.2f}")
    for name in sources:
        held = (
            best[name, "analyze, read through a pipe"] - best[name, "analyze, output thrown away"]
        )
        print(f"{name}: read through a pipe − thrown away = {held:+.2f} s")
    print(f"({_load()})")


if __name__ == "__main__":
    main()
