"""The figure workers' failures told apart from bugs: a task that cannot be given to a
worker because no worker can start is drawn in the caller; any other error is raised in
the caller (every exception was swallowed, and its figures drawn in the caller).
"""

from __future__ import annotations

import multiprocessing as mp
import tempfile

import pytest

import rrmap
from rrmap.plot import AnalysisFigures

PTS = rrmap.points(rrmap.datasets.load_example_ratings())


def _figures_of_a_daemonic_caller(queue) -> None:
    """Run in a daemonic process: the figures of the example (a grid of one row), with two
    workers asked for."""
    with AnalysisFigures(formats=["png"], dpi=20, jobs=2) as figures:
        files = figures.draw(PTS, categories=["modality"]).save(tempfile.mkdtemp())
        queue.put(([f.name for f in files], sorted(figures._futures)))


@pytest.mark.slow
@pytest.mark.skipif("fork" not in mp.get_all_start_methods(), reason="no fork here")
def test_a_daemonic_caller_draws_its_figures_itself():
    """A daemonic process may start no process (multiprocessing's AssertionError): its
    figures are drawn by itself, none by a worker."""
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    process = ctx.Process(target=_figures_of_a_daemonic_caller, args=(queue,), daemon=True)
    process.start()
    try:
        names, handed_over = queue.get(timeout=240)
    finally:
        process.join(timeout=30)
    assert names == ["rrmap_by_rater.png", "rrmap_grid.png", "proportions.png", "agreement.png"]
    assert handed_over == []


class _BrokenSubmit:
    """A pool whose submit fails with an error that no missing worker explains."""

    def submit(self, *args, **kwargs):
        raise TypeError("cannot pickle '_thread.lock' object")

    def shutdown(self, **kwargs):
        pass


def test_an_error_handing_a_figure_over_is_raised_in_the_caller(monkeypatch, tmp_path):
    from rrmap.plot import _workers

    monkeypatch.setattr(_workers, "start_server", lambda: object())
    monkeypatch.setattr(_workers, "start_pool", lambda *args: _BrokenSubmit())
    with AnalysisFigures(formats=("png",), dpi=20, jobs=2) as figures:
        figures.draw(PTS)
        with pytest.raises(TypeError, match=r"cannot pickle '_thread.lock' object"):
            figures.save(tmp_path)
    assert list(tmp_path.iterdir()) == []
