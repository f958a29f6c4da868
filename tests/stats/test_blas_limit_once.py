"""A run whose families are all small sets the one-thread BLAS limit once, not per family
(each setting reads the process's loaded libraries)."""

from __future__ import annotations

import contextlib

import rrmap
from rrmap.stats import designs


def _limits_set(monkeypatch, n_jobs: int) -> list[int]:
    sizes: list[int] = []
    real = designs.blas_threads

    @contextlib.contextmanager
    def recording(n: int):
        sizes.append(n)
        with real(n):
            yield

    monkeypatch.setattr(designs, "blas_threads", recording)
    pts = rrmap.points(rrmap.datasets.load_example_ratings())
    designs.run_designs(pts, by="movement", tests=["chi2"], n_perm=0, n_jobs=n_jobs)
    return sizes


def test_sequential_small_families_set_the_blas_limit_once(monkeypatch):
    # 405 points, 16 families one after another: one limit for the run (before: one per
    # family, each reading /proc for the libraries)
    assert _limits_set(monkeypatch, n_jobs=1) == [0]


def test_parallel_families_set_the_blas_limit_once(monkeypatch):
    assert _limits_set(monkeypatch, n_jobs=2) == [0]
