"""A large study runs its many small tests as it runs the example's: one BLAS thread for
the products of a test when the families fill the cores, or when the test is small."""

from __future__ import annotations

import json
import subprocess
import sys

import joblib
import numpy as np
import pandas as pd
import pytest
import scipy.spatial  # every BLAS a run loads, loaded before a limit is set
import scipy.stats  # noqa: F401
from threadpoolctl import threadpool_info, threadpool_limits

import rrmap
from rrmap.stats import designs


def _blas_threads() -> set[int]:
    """The thread counts of the BLAS libraries loaded (numpy's and scipy's may be two)."""
    return {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}


@pytest.fixture(scope="module")
def big_points() -> pd.DataFrame:
    """2,400 points (past the single-thread limit of 2,048) of two raters, 1,200 each, in
    two movements."""
    g = np.random.default_rng(0)
    n = 2400
    lo = np.round(g.uniform(0, 60, (n, 2)))
    item = np.tile(np.arange(n // 2), 2)
    ratings = pd.DataFrame(
        {
            "expert": np.repeat(["E1", "E2"], n),
            "movement": np.where(item % 2, "cubism", "surrealism").repeat(2),
            "item": item.astype(str).repeat(2),
            "origin": np.tile(["real", "generated"], n),
            "low rating": lo.ravel(),
            "high rating": (lo + np.round(g.uniform(1, 40, (n, 2)))).ravel(),
        }
    )
    return rrmap.points(ratings)


def _threads_seen(monkeypatch, pts: pd.DataFrame, n_jobs: int) -> list[set[int]]:
    seen: list[set[int]] = []
    real = designs.run_family

    def recording(*args):
        seen.append(_blas_threads())
        return real(*args)

    monkeypatch.setattr(designs, "run_family", recording)
    if not _blas_threads():
        pytest.skip("numpy is not linked to a BLAS threadpoolctl knows")
    with threadpool_limits(limits=2, user_api="blas"):
        designs.run_designs(pts, by="movement", tests=["chi2"], n_perm=0, n_jobs=n_jobs)
    return seen


def test_parallel_families_of_a_large_study_use_one_blas_thread(monkeypatch, big_points):
    # families in parallel threads fill the cores: their products run on one BLAS thread
    # each, whatever the size of the study (before, past 2,048 points every product of
    # every family used every BLAS thread); the threads are asked for, since a process
    # without other threads forks its workers instead (next test)
    with joblib.parallel_config(backend="threading"):
        seen = _threads_seen(monkeypatch, big_points, n_jobs=2)
    assert len(big_points) == 2400
    assert seen == [{1}] * 5


def test_forked_family_workers_use_one_blas_thread():
    # in a fresh interpreter: workers are forked only from a process without other threads
    code = """
import json
import numpy  # its BLAS loaded before the limit is set
from threadpoolctl import threadpool_info, threadpool_limits
from rrmap._util.children import can_fork_workers, forked_pool

def blas(info):
    return sorted({p["num_threads"] for p in info if p["user_api"] == "blas"})

assert can_fork_workers()
with threadpool_limits(limits=2, user_api="blas"), forked_pool(2) as run:
    infos = list(run([(threadpool_info, (), {})] * 4))
    caller = blas(threadpool_info())
print(json.dumps([caller, [blas(info) for info in infos]]))
"""
    if sys.platform != "linux":
        pytest.skip("family workers are forked on Linux only")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    caller, seen = json.loads(out.stdout)
    if not caller:
        pytest.skip("numpy is not linked to a BLAS threadpoolctl knows")
    assert caller == [2]  # the caller keeps its own
    assert seen == [[1]] * 4


def test_sequential_families_are_limited_by_their_own_size(monkeypatch, big_points):
    # one job: the family of all 2,400 points (the raters) keeps the BLAS threads, the
    # families of 1,200 (the raters within a movement, the movements of a rater) run on one
    seen = _threads_seen(monkeypatch, big_points, n_jobs=1)
    assert seen == [{2}, {1}, {1}, {1}, {1}]


def test_a_large_familys_effect_intervals_run_on_one_blas_thread_in_one_job(
    monkeypatch, big_points
):
    # one job: the family of all 2,400 points keeps the BLAS threads for its relabellings,
    # but its effect intervals run on one, as in parallel workers (their bounds differed in
    # the 13th digit between n_jobs=1 and n_jobs=2 on a 3,000-point study)
    from rrmap.stats import _family

    seen: list[tuple[int, set[int]]] = []
    real = _family._effect

    def recording(x, *args):
        seen.append((len(x), _blas_threads()))
        return real(x, *args)

    monkeypatch.setattr(_family, "_effect", recording)
    if not _blas_threads():
        pytest.skip("numpy is not linked to a BLAS threadpoolctl knows")
    with threadpool_limits(limits=2, user_api="blas"):
        designs.run_designs(big_points, by="movement", n_perm=0, n_jobs=1)
    assert {n for n, _ in seen} >= {2400, 1200}  # the raters' family, the movements'
    assert {frozenset(threads) for _, threads in seen} == {frozenset({1})}


def test_squared_pair_sums_match_the_distance_sums():
    # the zone effects of matched tests (exponent 2) are had from each unit's count, sum of
    # squared norms and sum of points, without the points × points matrix; the sums and
    # every resample's dispersions are those of the squared distances
    from scipy.spatial.distance import cdist

    from rrmap.stats import effects

    g = np.random.default_rng(3)
    x = np.eye(4)[g.integers(0, 4, 90)] + g.normal(0, 0.1, (90, 4))
    groups, units = np.repeat([0, 1, 2], 30), np.tile(np.arange(30), 3)
    fast = effects._squared_pair_sums(x, groups, units, 3)
    full = effects._pair_sums(cdist(x, x, "sqeuclidean"), groups, units, 3)
    for (s1, sums1, c1), (s2, sums2, c2) in zip(fast.blocks, full.blocks, strict=True):
        assert s1.tolist() == s2.tolist() and c1.tolist() == c2.tolist()
        np.testing.assert_allclose(sums1, sums2, rtol=1e-12, atol=1e-12)
    w = g.integers(0, 3, (50, 30)).astype(float)
    np.testing.assert_allclose(effects._dispersions(fast, w), effects._dispersions(full, w),
                               rtol=1e-12)  # fmt: skip


def test_pair_sums_add_up_each_units_points():
    # several points per unit: each unit's rows and columns added up (not a product with
    # the indicator matrix, which cost points² × units)
    from rrmap.stats import effects

    dist = np.arange(36, dtype=float).reshape(6, 6)
    dist = dist + dist.T
    ps = effects._pair_sums(dist, np.array([0, 1, 0, 1, 0, 1]), np.array([2, 2, 0, 0, 1, 1]), 2)
    span, sums, count = ps.blocks[0]
    ind = np.eye(3)[[2, 2, 0, 0, 1, 1]]
    assert span.tolist() == [0, 1, 2] and count.tolist() == [2.0, 2.0, 2.0]
    assert sums.tolist() == (ind.T @ dist @ ind).tolist()
    assert sums.tolist() == [[140.0, 196.0, 84.0], [196.0, 252.0, 140.0], [84.0, 140.0, 28.0]]
