"""Benchmark: the stages of ``rrmap analyze`` other than the permutations, against a baseline.

On the example data, in a fresh interpreter per tree, with the public API:

- ``analyze(..., n_perm=0)``: planning every design, the statistics without
  relabellings, the χ² tests, the proportions and the agreement;
- ``AnalysisResult.latex`` for each of the three tables (the first call
  includes importing pandas' Styler and compiling its templates);
- ``AnalysisResult.report()``;
- ``AnalysisResult.write(figures=False)``: the CSV and LaTeX tables,
  ``results.json`` and ``report.md``.

Each stage's first call and its best of five further calls are printed for
this tree and for the baseline (``--baseline REV``, default ``ca85df3``,
checked out in a temporary git worktree), with their ratio.

Usage::

    python benchmarks/bench_phases.py [--baseline REV]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "data" / "example_ratings.csv"

#: Run in a child interpreter; prints {stage: [first, best]} as JSON.
_STAGES = r"""
import json, sys, tempfile, time
import rrmap

ratings = rrmap.load_ratings(sys.argv[1])
out = {}


def timed(name, call, repeat=5):
    t = time.perf_counter()
    call()
    first = time.perf_counter() - t
    best = first
    for _ in range(repeat):
        t = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - t)
    out[name] = [first, best]


res = rrmap.analyze(ratings, n_perm=0, rng=1)
timed("analyze, n_perm = 0", lambda: rrmap.analyze(ratings, n_perm=0, rng=1))
for table in ("tests", "proportions", "agreement"):
    timed(f"latex({table!r})", lambda: res.latex(table))
timed("report()", lambda: res.report())
with tempfile.TemporaryDirectory() as tmp:
    timed("write(figures=False)", lambda: res.write(tmp, force=True, figures=False))
print(json.dumps(out))
"""


def _stages(env: dict, cwd: Path) -> dict[str, list[float]]:
    done = subprocess.run([sys.executable, "-c", _STAGES, str(EXAMPLE)], capture_output=True,
                          text=True, env=env, cwd=cwd, check=True)  # fmt: skip
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", default="ca85df3", help="git revision to compare with")
    args = ap.parse_args()
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()}\n")
    with tempfile.TemporaryDirectory() as tmpname:
        tmp = Path(tmpname)
        now = _stages(env, tmp)
        tree = tmp / "baseline"
        added = subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), args.baseline],
            capture_output=True,
        )
        try:
            before = _stages(dict(env, PYTHONPATH=str(tree)), tmp) if not added.returncode else {}
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
                           capture_output=True)  # fmt: skip
    width = max(len(k) for k in now)
    print(f"{'stage':<{width}}  first call: now / before / ratio   best of 5: now / before / ratio")
    for stage, (first, best) in now.items():
        old_first, old_best = before.get(stage, [float("nan")] * 2)
        print(
            f"{stage:<{width}}  {first * 1000:8.1f} / {old_first * 1000:6.1f} ms / "
            f"{old_first / first:4.1f}x   {best * 1000:8.1f} / {old_best * 1000:6.1f} ms / "
            f"{old_best / best:4.1f}x"
        )


if __name__ == "__main__":
    main()
