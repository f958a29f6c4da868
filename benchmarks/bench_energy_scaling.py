"""Benchmark: how the energy permutation engine scales with n and with B, and its memory.

- n = 100 … 5000 points in 3 groups (B = 1000 by default): wall and CPU
  time, peak memory traced by ``tracemalloc`` and the part of it that is the
  n × n distance matrix; dcor's loop on the same data for the smaller n.
- B = 1000 … 20000 at n = 405 (the example data's size): time grows
  linearly, peak memory stays flat (permutations are processed in chunks).
- ``--large``: samples the size a model rater produces, n = 5,000 / 20,000
  / 50,000 (two groups, B = ``--large-b``, every permutation drawn) under
  the default 1 GiB budget: past n ≈ 11,500 the distance matrix is not
  held but recomputed in row blocks. Each n runs in a fresh process; its
  peak resident memory is printed beside the size the full matrix would
  take.

Usage::

    python benchmarks/bench_energy_scaling.py [--max-n 5000] [--b 1000] [--large]
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import dcor
import numpy as np

from rrmap.stats.energy import DEFAULT_CHUNK_BYTES, energy_test


def _run(samples, b, seed=0):
    tracemalloc.start()
    w0, c0 = time.perf_counter(), time.process_time()
    res = energy_test(*samples, n_perm=b, rng=seed)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return res, wall, cpu, peak


def _samples(n: int, g: np.random.Generator) -> list[np.ndarray]:
    sizes = [n // 3, n // 3, n - 2 * (n // 3)]
    return [g.normal(loc=0.1 * i, size=(s, 2)) for i, s in enumerate(sizes)]


def _large(b: int) -> None:
    import subprocess
    import sys

    print(f"\nlarge samples (2 groups, B = {b}, every permutation, 1 GiB budget)")
    print(f"{'n':>6} {'wall s':>8} {'peak MB':>8} {'full D MB':>10}")
    for n in (5000, 20000, 50000):
        code = (
            "import time, resource, numpy as np\n"
            "from rrmap.stats.energy import energy_test\n"
            f"g = np.random.default_rng(0); x = g.normal(size=({n}, 2)); x[:{n // 2}] += 0.02\n"
            "t = time.perf_counter()\n"
            f"energy_test(x[:{n // 2}], x[{n // 2}:], n_perm={b}, rng=0, stop_hits=None)\n"
            "print(time.perf_counter() - t, "
            "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)\n"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        wall, mb = map(float, out.stdout.split())
        print(f"{n:6d} {wall:8.1f} {mb:8.0f} {8 * n * n / 1e6:10.0f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-n", type=int, default=5000)
    ap.add_argument("--b", type=int, default=1000)
    ap.add_argument("--dcor-max-n", type=int, default=1000, help="largest n run through dcor")
    ap.add_argument("--large", action="store_true", help="also n = 5,000 / 20,000 / 50,000")
    ap.add_argument("--large-b", type=int, default=99)
    args = ap.parse_args()
    g = np.random.default_rng(0)
    mib = 2**20
    print(f"chunk memory budget: {DEFAULT_CHUNK_BYTES / mib:.0f} MiB\n")

    print(f"scaling with n (3 groups, B = {args.b})")
    print(
        f"{'n':>6} {'wall s':>8} {'cpu s':>8} {'peak MiB':>9} {'D MiB':>7} "
        f"{'peak-D MiB':>10} {'dcor s':>8} {'ratio':>6}"
    )
    for n in [100, 300, 1000, 2000, 3000, 5000]:
        if n > args.max_n:
            break
        samples = _samples(n, g)
        _, wall, cpu, peak = _run(samples, args.b)
        d_mib = 8 * n * n / mib
        dcor_s, ratio = "", ""
        if n <= args.dcor_max_n:
            w0 = time.perf_counter()
            dcor.homogeneity.energy_test(*samples, num_resamples=args.b, random_state=0)
            t = time.perf_counter() - w0
            dcor_s, ratio = f"{t:8.2f}", f"{t / wall:6.1f}"
        print(
            f"{n:6d} {wall:8.2f} {cpu:8.2f} {peak / mib:9.1f} {d_mib:7.1f} "
            f"{(peak / mib - d_mib):10.1f} {dcor_s:>8} {ratio:>6}"
        )

    print("\nscaling with B (n = 405, 3 groups of 135)")
    print(f"{'B':>6} {'wall s':>8} {'cpu s':>8} {'peak MiB':>9} {'µs/perm':>8}")
    samples = _samples(405, g)
    for b in [1000, 5000, 20000]:
        _, wall, cpu, peak = _run(samples, b)
        print(f"{b:6d} {wall:8.2f} {cpu:8.2f} {peak / mib:9.1f} {1e6 * wall / b:8.1f}")
    if args.large:
        _large(args.large_b)


if __name__ == "__main__":
    main()
