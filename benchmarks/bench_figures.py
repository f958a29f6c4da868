"""Benchmark: what the figures add to ``rrmap analyze``, now and before the figure work.

Runs, on the example data, for this checkout and for a git worktree of
``--baseline`` (the commit before the figures were made faster):

1. ``rrmap analyze data/example_ratings.csv`` as users run it (default
   ``--jobs``, every core) with ``--no-figures`` and with the figures (PDF and
   PNG at 300 dpi, 7 in, and the interactive map of report.html), as
   subprocesses: wall-clock time and CPU time (the process and every process
   it started);
2. ``save_analysis_figures`` alone, in a process that has imported
   matplotlib: wall and CPU time, in that process (``jobs=1``) and in worker
   processes (``jobs=-1``).

Prints the best of ``--repeat`` runs of each (runs alternate between the
variants, so that a change of the machine's load hits them alike) and the
ratios "with figures / without" (the goal: at most 2) and "now / baseline".
The machine may be shared: its load average is printed with the results, CPU
time beside wall time, and ratios from the same run are what to compare.

Usage::

    python benchmarks/bench_figures.py [--baseline c14b884 | --no-baseline] [--repeat 3]
        [--width 7in] [--jobs -1]

``--no-baseline`` measures this checkout alone (no worktree of another commit).
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


def _adopt_orphans() -> None:
    """Become the parent of processes a run leaves behind (Linux): the forkserver of the
    figure workers outlives ``rrmap analyze`` by a moment, and its CPU (its workers')
    counts only once this process has waited for it."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def _reap_orphans() -> None:
    """Wait for every process adopted by :func:`_adopt_orphans`."""
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def _run_cli(source: Path, figures: bool, width: str, jobs: str) -> tuple[float, float]:
    """(wall, CPU) seconds of one ``rrmap analyze`` run of *source*'s code."""
    out = Path(tempfile.mkdtemp()) / "out"
    cmd = [sys.executable, "-m", "rrmap.cli", "analyze", str(DATA), "--out", str(out)]
    cmd += ["--width", width, "--quiet"] + (["--jobs", jobs] if jobs else [])
    if not figures:
        cmd.append("--no-figures")
    env = {**os.environ, "PYTHONPATH": str(source), "MPLBACKEND": "Agg"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env=env, cwd=tempfile.gettempdir())
    wall = time.perf_counter() - t0
    _reap_orphans()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


_FIGURES_ONLY = """
import os, resource, sys, tempfile, time
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot
import rrmap
from rrmap.plot import save_analysis_figures
def main():
    pts = rrmap.points(rrmap.datasets.load_example_ratings())
    kw = {} if sys.argv[1] == "default" else {"jobs": int(sys.argv[1])}
    best = None
    for _ in range(int(sys.argv[3])):
        r0 = resource.getrusage(resource.RUSAGE_SELF)
        t0 = time.perf_counter()
        save_analysis_figures(pts, tempfile.mkdtemp(), width=sys.argv[2], **kw)
        wall = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_SELF)
        cpu = sum(getattr(r1, f) - getattr(r0, f) for f in ("ru_utime", "ru_stime"))
        best = (wall, cpu) if best is None or wall < best[0] else best
    print(*best)
if __name__ == "__main__":
    main()
"""


def _run_figures_only(source: Path, jobs: str, width: str, repeat: int) -> tuple[float, float]:
    """(wall, CPU) of ``save_analysis_figures`` alone (best of *repeat*, each in a
    process of its own, after matplotlib's import; CPU of that process only: the
    workers' is in the wall time)."""
    env = {**os.environ, "PYTHONPATH": str(source), "MPLBACKEND": "Agg"}
    script = Path(tempfile.mkdtemp()) / "figures_only.py"  # a file: workers import it
    script.write_text(_FIGURES_ONLY)
    res = subprocess.run(
        [sys.executable, str(script), jobs, width, str(repeat)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
        cwd=tempfile.gettempdir(),
    )
    wall, cpu = map(float, res.stdout.split())
    return wall, cpu


def _load() -> str:
    return "load average " + " ".join(f"{v:.2f}" for v in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default="c14b884")
    parser.add_argument("--no-baseline", action="store_true", help="this checkout only")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--width", default="7in")
    parser.add_argument("--jobs", default="", help="--jobs of rrmap analyze (default: its own)")
    args = parser.parse_args()
    sources = {"now": ROOT}
    if not args.no_baseline:
        sources["baseline"] = _worktree(args.baseline)
    _adopt_orphans()
    jobs = f" --jobs {args.jobs}" if args.jobs else ""
    print(f"rrmap analyze {DATA.name}{jobs} --width {args.width}: best of {args.repeat}")
    print(f"({_load()}, {os.cpu_count()} cores)")
    runs: dict[tuple[str, bool], list[tuple[float, float]]] = {}
    for _ in range(args.repeat):  # alternating: a change of load hits every variant
        for name, source in sources.items():
            for figures in (False, True):
                run = _run_cli(source, figures, args.width, args.jobs)
                runs.setdefault((name, figures), []).append(run)
    print(f"{'code':<10}{'figures':<10}{'wall s':>8}{'CPU s':>8}")
    cli = {key: min(found) for key, found in runs.items()}
    for (name, figures), (wall, cpu) in cli.items():
        print(f"{name:<10}{'with' if figures else 'without':<10}{wall:8.2f}{cpu:8.2f}")
    for name in sources:
        (w0, c0), (w1, c1) = cli[name, False], cli[name, True]
        print(f"{name}: with figures / without = {w1 / w0:.2f} (wall), {c1 / c0:.2f} (CPU)")
    print(f"({_load()})")
    print("\nsave_analysis_figures alone (PDF + PNG at 300 dpi): best of", args.repeat)
    only = {}
    for name, source in sources.items():
        for n in ("1", "-1") if name == "now" else ("default",):
            wall, cpu = _run_figures_only(source, n, args.width, args.repeat)
            only[name, n] = (wall, cpu)
            print(f"{name:<10} jobs={n:<8} wall {wall:6.2f} s  CPU (this process) {cpu:6.2f} s")
    if "baseline" in sources:
        base = only["baseline", "default"][0]
        for key in (("now", "1"), ("now", "-1")):
            print(f"now jobs={key[1]} / baseline (wall): {only[key][0] / base:.2f}")
    print(f"({_load()})")


if __name__ == "__main__":
    main()
