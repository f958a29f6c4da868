"""Benchmark: what the figures add to ``rrmap analyze``, now and before the figure work.

Runs, on the example data, for this checkout and for a git worktree of
``--baseline`` (the commit before the figures were made faster):

1. ``rrmap analyze data/example_ratings.csv --jobs 1`` with ``--no-figures``
   and with the figures (PDF and PNG at 300 dpi, 7 in), as subprocesses:
   wall-clock time and CPU time (the process and its workers);
2. ``save_analysis_figures`` alone, in this process: wall and CPU time, one
   process (``jobs=1``) and in parallel (default).

Prints the best of ``--repeat`` runs of each and the ratios "with figures /
without" (the goal: at most 2) and "now / baseline". The machine may be
shared: CPU time is printed beside wall time, and ratios from the same run
are what to compare.

Usage::

    python benchmarks/bench_figures.py [--baseline c14b884] [--repeat 3] [--width 7in]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data" / "example_ratings.csv"


def _worktree(commit: str) -> Path:
    """A git worktree of *commit* (made once, kept under the system's temporary folder)."""
    path = Path(tempfile.gettempdir()) / f"rrmap-bench-figures-{commit}"
    if not (path / "rrmap").is_dir():
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "-f", "--detach", str(path), commit],
            check=True,
            capture_output=True,
        )
    return path


def _run_cli(source: Path, figures: bool, width: str) -> tuple[float, float]:
    """(wall, CPU) seconds of one ``rrmap analyze`` run of *source*'s code."""
    out = Path(tempfile.mkdtemp()) / "out"
    cmd = [sys.executable, "-m", "rrmap.cli", "analyze", str(DATA), "--out", str(out)]
    cmd += ["--jobs", "1", "--width", width]
    if not figures:
        cmd.append("--no-figures")
    env = {**os.environ, "PYTHONPATH": str(source), "MPLBACKEND": "Agg"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env=env, cwd=tempfile.gettempdir())
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


_FIGURES_ONLY = """
import os, resource, sys, tempfile, time
import matplotlib
matplotlib.use("Agg")
import rrmap
from rrmap.plot import save_analysis_figures
pts = rrmap.points(rrmap.datasets.load_example_ratings())
kw = {} if sys.argv[1] == "default" else {"jobs": int(sys.argv[1])}
save_analysis_figures(pts, tempfile.mkdtemp(), width=sys.argv[2], **kw)  # imports, caches
best = None
for _ in range(int(sys.argv[3])):
    r0 = resource.getrusage(resource.RUSAGE_SELF); c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    save_analysis_figures(pts, tempfile.mkdtemp(), width=sys.argv[2], **kw)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_SELF); c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = sum(getattr(b, f) - getattr(a, f) for a, b in ((r0, r1), (c0, c1))
              for f in ("ru_utime", "ru_stime"))
    best = (wall, cpu) if best is None or wall < best[0] else best
print(*best)
"""


def _run_figures_only(source: Path, jobs: str, width: str, repeat: int) -> tuple[float, float]:
    """(wall, CPU) of ``save_analysis_figures`` alone (best of *repeat*; CPU of the
    process; loky workers' CPU is not counted by ``getrusage`` and shows in wall time)."""
    env = {**os.environ, "PYTHONPATH": str(source), "MPLBACKEND": "Agg"}
    res = subprocess.run(
        [sys.executable, "-c", _FIGURES_ONLY, jobs, width, str(repeat)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
        cwd=tempfile.gettempdir(),
    )
    wall, cpu = map(float, res.stdout.split())
    return wall, cpu


def _best(fn, repeat: int, *args) -> tuple[float, float]:
    runs = [fn(*args) for _ in range(repeat)]
    return min(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default="c14b884")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--width", default="7in")
    args = parser.parse_args()
    sources = {"now": ROOT, "baseline": _worktree(args.baseline)}
    print(f"rrmap analyze {DATA.name} --jobs 1 --width {args.width}: best of {args.repeat}")
    print(f"{'code':<10}{'figures':<10}{'wall s':>8}{'CPU s':>8}")
    cli = {}
    for name, source in sources.items():
        for figures in (False, True):
            wall, cpu = _best(_run_cli, args.repeat, source, figures, args.width)
            cli[name, figures] = (wall, cpu)
            print(f"{name:<10}{'with' if figures else 'without':<10}{wall:8.2f}{cpu:8.2f}")
    for name in sources:
        (w0, c0), (w1, c1) = cli[name, False], cli[name, True]
        print(f"{name}: with figures / without = {w1 / w0:.2f} (wall), {c1 / c0:.2f} (CPU)")
    print("\nsave_analysis_figures alone (PDF + PNG at 300 dpi): best of", args.repeat)
    only = {}
    for name, source in sources.items():
        for jobs in ("1", "default") if name == "now" else ("default",):
            wall, cpu = _run_figures_only(source, jobs, args.width, args.repeat)
            only[name, jobs] = (wall, cpu)
            print(f"{name:<10} jobs={jobs:<8} wall {wall:6.2f} s  CPU (this process) {cpu:6.2f} s")
    base = only["baseline", "default"][0]
    for key in (("now", "1"), ("now", "default")):
        print(f"now jobs={key[1]} / baseline (wall): {only[key][0] / base:.2f}")


if __name__ == "__main__":
    main()
