"""Shared fixtures: the example ratings and a writer for small CSV files."""
# ruff: noqa: E402  (compiled modules are cached before the first import of a heavy one)

from __future__ import annotations

from pathlib import Path

from compiled_modules import cache_compiled_modules

cache_compiled_modules(Path(__file__).resolve().parents[1])

import gc
from typing import TYPE_CHECKING

import pytest
from tiers import pytest_collection_modifyitems  # noqa: F401  (the hook of the two tiers)

import rrmap

if TYPE_CHECKING:
    import pandas as pd

pytest_plugins = ["pytester"]  # tests/test_tiers.py runs the tiers' hook on tests of its own


def pytest_configure(config: pytest.Config) -> None:
    """Where tests run: figures off screen, and the property tests' profile.

    The process that only hands tests to the workers of ``pytest -n 2`` (pytest-xdist's
    controller) imports neither matplotlib nor hypothesis: the workers start after it
    has read this file, 1.5 s sooner."""
    worker = getattr(config, "workerinput", None)
    if worker is None and config.getoption("numprocesses", 0):
        return
    if worker is not None:
        _share_the_cores(int(worker["workercount"]))
    import matplotlib

    matplotlib.use("Agg")  # before any figure module imports pyplot
    from hypothesis import settings
    from properties import examples

    # Property tests check values, not speed: no per-example deadline, so a busy CI
    # machine cannot fail them. Failing examples are still reported with their seed. A
    # test that names no count draws hypothesis's 100 examples, or a quarter of them
    # (tests/properties.py).
    settings.register_profile("rrmap", deadline=None, print_blob=True, max_examples=examples(100))
    settings.load_profile("rrmap")


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """``pytest -n N`` hands whole modules (and classes) to each worker, as pytest-xdist's
    ``--dist loadscope`` does, unless ``--dist`` is given: a module's fixtures (an
    analysis, a folder of figures, a report) are made once instead of once on each worker
    that runs some of its tests (the README's tests: 243 s instead of 263 s, 405 s of
    user CPU instead of 440 s). Optional: pytest without xdist (``-p no:xdist``) runs."""
    given = config.invocation_params.args
    if config.getvalue("dist") != "load" or any(str(a).startswith("--dist") for a in given):
        return None
    from xdist.scheduler import LoadScopeScheduling

    return LoadScopeScheduling(config, log)


def _share_the_cores(workers: int) -> None:
    """A worker of ``pytest -n N`` runs BLAS on its share of the cores: one thread for
    ``-n 2`` on two cores, where OpenBLAS's default of a thread per core had the two
    workers' four threads take turns on two cores (and spin while they waited): 8–16 s of
    CPU less on the statistics tests alone. numpy and SciPy each load an OpenBLAS of their
    own: the variable reaches those loaded later (and the programs the tests start), the
    limit those loaded already. The tests of the threads themselves set their own limits
    (tests/stats/test_study_scale.py)."""
    import os

    threads = str(max(1, (os.cpu_count() or 1) // workers))
    os.environ["OPENBLAS_NUM_THREADS"] = threads
    import numpy  # noqa: F401  (a BLAS is limited once it is loaded)
    from threadpoolctl import threadpool_limits

    global _BLAS_LIMIT  # held for the worker's life
    _BLAS_LIMIT = threadpool_limits(limits=int(threads), user_api="blas")


_BLAS_LIMIT = None


def _collect_garbage_less_often() -> None:
    """A worker of the suite holds 0.6–0.9 million objects (its tests, their modules and
    fixtures), and every full collection walks them all: in one run of the README's
    command, the two workers made 38 full collections of 0.4–0.7 s each, 23 s of the 29 s
    they spent collecting garbage. Collecting after 50,000 allocations instead of 700 (the
    older generations after 20 and 10 collections of the younger), and leaving the
    collected tests out of every collection (below), made that 5 full collections and
    11 s in all. What the suite checks does not change: the tests about references
    collect garbage themselves."""
    gc.set_threshold(50_000, 20, 10)


_collect_garbage_less_often()


def pytest_collection_finish(session: pytest.Session) -> None:
    """The collected tests and what they are made of (0.3 million objects per worker) live
    as long as the worker: frozen (``gc.freeze``), no later collection walks them."""
    gc.collect()
    gc.freeze()


@pytest.fixture(scope="session")
def example_ratings() -> pd.DataFrame:
    return rrmap.datasets.load_example_ratings()


@pytest.fixture(scope="session")
def example_points(example_ratings: pd.DataFrame) -> pd.DataFrame:
    return rrmap.points(example_ratings)


@pytest.fixture
def corpora_file(tmp_path: Path) -> Path:
    """15 small corpora (5 movements × 3 modalities) of random images and their CSV."""
    from rating_model import make_corpora

    return make_corpora(tmp_path)


@pytest.fixture
def write_csv(tmp_path: Path):
    """Write lines (header first) to a CSV and return its path."""

    def _write(lines: list[str], name: str = "ratings.csv") -> Path:
        path = tmp_path / name
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path

    return _write


@pytest.fixture
def attrs_copies(monkeypatch):
    """A list that grows by one at every deep copy pandas makes of a frame's ``attrs``
    (pandas copies them into every column taken from a frame)."""
    import pandas.core.generic as generic

    real = generic.deepcopy
    calls: list[int] = []

    def counting(obj, *args, **kwargs):
        calls.append(1)
        return real(obj, *args, **kwargs)

    monkeypatch.setattr(generic, "deepcopy", counting)
    return calls
