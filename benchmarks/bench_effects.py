"""Benchmark: the effect sizes' bootstrap intervals of the example, against a baseline.

In a child interpreter per tree, ``rrmap.analyze`` of the example (``n_perm=0``, one
job) is run once with ``rrmap.stats.effects.dispersion_effect`` recording its arguments
and the state of each test's generator; those calls (336 with default options: 1,000
resamples each) are then replayed alone, from the same generator states, and timed. The
cases: every call; the independent-samples ones (one point per unit); the matched ones
(the keys resampled). Printed per case: the CPU seconds of the replay on one BLAS thread
(as ``analyze`` runs tests of this size), best of ``--repeat``, in this tree and in the baseline (``--baseline REV``, default ``6d0697c``:
before the units of independent samples were taken in order without sorting them, and
the strata listed without ``np.unique``), their ratio, and whether the intervals are the
same to the bit.

Usage::

    python benchmarks/bench_effects.py [--baseline REV] [--repeat 3]
"""

from __future__ import annotations

from bench_speed import _compare_against

#: Run in a child interpreter with the tree on sys.path: prints {case: [cpu, digest]}.
_CHILD = r"""
import hashlib, json, time, warnings
import numpy as np
import rrmap
import rrmap.stats._family as family
import rrmap.stats.effects as effects
from threadpoolctl import threadpool_limits

warnings.simplefilter("ignore")
calls = []
real = effects.dispersion_effect


def record(*args, rng=None, **kwargs):
    calls.append((args, kwargs, None if rng is None else rng.bit_generator.state))
    return real(*args, rng=rng, **kwargs)


family.dispersion_effect = record
rrmap.analyze(rrmap.datasets.load_example_ratings(), n_perm=0, n_jobs=1, rng=0)
family.dispersion_effect = real


def replay(chosen):
    results = []
    t = time.process_time()
    for args, kwargs, state in chosen:
        gen = None
        if state is not None:
            gen = np.random.Generator(getattr(np.random, state["bit_generator"])())
            gen.bit_generator.state = state
        results.append(real(*args, rng=gen, **kwargs))
    return time.process_time() - t, hashlib.sha256(repr(results).encode()).hexdigest()


cases = {
    "all 336 calls": calls,
    "independent": [c for c in calls if len(c[0]) < 4 or c[0][3] is None],
    "matched": [c for c in calls if len(c[0]) >= 4 and c[0][3] is not None],
}
out = {}
for name, chosen in cases.items():
    with threadpool_limits(1):  # as analyze runs them: CPU time is then the wall time
        best = min(replay(chosen) for _ in range(3))
    out[f"{name} ({len(chosen)})"] = list(best)
print(json.dumps(out))
"""


def main() -> None:
    cases = _compare_against(__doc__, "6d0697c", _CHILD, " of the replayed calls")
    print(f"{'case':<22} {'now':>6} {'baseline':>8} {'ratio':>6} {'same intervals':>14}")
    for case, now, old, a, b in cases:
        same = "yes" if a[1] == b[1] else "NO"
        print(f"{case:<22} {now:6.3f} {old:8.3f} {old / now:6.2f} {same:>14}")


if __name__ == "__main__":
    main()
