"""Benchmark: test families on several cores — forked processes against joblib's threads.

``rrmap.analyze(..., n_jobs=J, rng=0)`` on the example (the holdout: 405 points, 504 tests,
default options), and with ``--study`` on the seeded 10-rater × 20-criterion study of
``bench_study_scale.py``, each in a fresh interpreter (a script's single-threaded process,
where the families run in forked workers): one job, J jobs forked, and J jobs as joblib's
threads (``joblib.parallel_config(backend="threading")``, the earlier default). Printed per
run: wall and CPU seconds (the process and its workers) and the load average; then the
medians and the ratios threads / forked and one job / forked. The tables of the three are
compared: equal (on the study, one job's family of 3,000 points multiplies with every BLAS
thread, and 16 effect-interval bounds differ from the others' in the 12th digit).

Usage::

    python benchmarks/bench_jobs.py [--jobs 2] [--repeat 3] [--study]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOLDOUT = ROOT / "data" / "example_ratings.csv"

_RUN = """
import hashlib, json, os, sys, time
import joblib, pandas as pd, rrmap
data = pd.read_csv(sys.argv[1])
mode, jobs = sys.argv[2], int(sys.argv[3])
t, c = time.perf_counter(), os.times()
if mode == "threads":
    with joblib.parallel_config(backend="threading"):
        res = rrmap.analyze(data, n_jobs=jobs, rng=0)
else:
    res = rrmap.analyze(data, n_jobs=1 if mode == "one" else jobs, rng=0)
wall, e = time.perf_counter() - t, os.times()
cpu = (e.user - c.user) + (e.system - c.system) + (e.children_user - c.children_user)
digest = hashlib.sha256(res.tests.to_csv(index=False).encode()).hexdigest()
print(json.dumps({"wall": wall, "cpu": cpu, "tests": len(res.tests), "sha": digest}))
"""


def _once(data: Path, mode: str, jobs: int) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", _RUN, str(data), mode, str(jobs)],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    run = json.loads(out.stdout.strip().splitlines()[-1])
    run["load"] = os.getloadavg()[0]
    return run


def _compare(name: str, data: Path, jobs: int, repeat: int) -> None:
    modes = {"one": "1 job", "forked": f"{jobs} jobs, forked", "threads": f"{jobs} jobs, threads"}
    runs: dict[str, list[dict]] = {m: [] for m in modes}
    for _ in range(repeat):  # interleaved: a change of load hits every mode alike
        for mode in modes:
            run = _once(data, mode, jobs)
            runs[mode].append(run)
            print(
                f"  {name}, {modes[mode]:<18} {run['wall']:7.2f} s wall, {run['cpu']:7.2f} s CPU,"
                f" load {run['load']:.2f}",
                flush=True,
            )
    sha = {m: {r["sha"] for r in rs} for m, rs in runs.items()}
    same = (
        "equal"
        if len(set().union(*sha.values())) == 1
        else (
            "forked = threads, 1 job differs (past 2,048 points one job's products use every "
            "BLAS thread: last digits of effect intervals)"
            if sha["forked"] == sha["threads"] and len(sha["forked"]) == 1
            else "DIFFERENT"
        )
    )
    med = {m: statistics.median(r["wall"] for r in rs) for m, rs in runs.items()}
    print(
        f"{name} ({runs['one'][0]['tests']:,} tests): median wall 1 job {med['one']:.2f} s,"
        f" forked {med['forked']:.2f} s, threads {med['threads']:.2f} s;"
        f" threads / forked {med['threads'] / med['forked']:.2f}x,"
        f" 1 job / forked {med['one'] / med['forked']:.2f}x;"
        f" tables {same}\n",
        flush=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--study", action="store_true", help="also the 10-rater x 20-criterion study")
    args = ap.parse_args()
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()}\n")
    _compare("holdout", HOLDOUT, args.jobs, args.repeat)
    if args.study:
        sys.path.insert(0, str(Path(__file__).parent))
        from bench_study_scale import study

        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "study.csv"
            study().to_csv(path, index=False)
            _compare("10-rater x 20-criterion study", path, args.jobs, args.repeat)


if __name__ == "__main__":
    main()
