"""The analysis figures drawn by worker processes while the tests run, and the background
embedded once per vector file: the same files as drawn here, one after the other.

``rrmap analyze`` with figures took four to five times the run without them; its
figures now start in workers forked from a server that imported matplotlib once,
as soon as the points are known, and this process never imports matplotlib.
"""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import matplotlib as mpl
import numpy as np
import pytest
from matplotlib.backends.backend_pdf import RendererPdf
from matplotlib.image import AxesImage
from PIL import Image

import rrmap
from rrmap.plot import AnalysisFigures, plot_rrmap_grid, save, save_analysis_figures
from rrmap.plot.base._raster import BackgroundImage

PTS = rrmap.points(rrmap.datasets.load_example_ratings())
#: The grid's rows where a test is not about the grid: 3 panels instead of 12
ROWS = ["modality"]
#: Two raters: the four figures (agreement included) of a test about processes and state
SMALL = PTS[PTS.expert != "E3"]
FORKSERVER = "forkserver" in __import__("multiprocessing").get_all_start_methods()


def pixels(path) -> np.ndarray:
    with Image.open(path) as im:
        return np.asarray(im.convert("RGB"))


def without_date(data: bytes) -> bytes:
    """A PDF or SVG without the time it was written."""
    data = re.sub(rb"/CreationDate \(D:[^)]*\)", b"", data)
    return re.sub(rb"<dc:date>[^<]*</dc:date>", b"", data)


def drawn_images(fig, monkeypatch) -> list[np.ndarray]:
    """The arrays the PDF renderer is given for *fig*'s images."""
    seen: list[np.ndarray] = []
    original = RendererPdf.draw_image

    def record(self, gc, x, y, im, transform=None):
        seen.append(im)
        return original(self, gc, x, y, im, transform)

    monkeypatch.setattr(RendererPdf, "draw_image", record)
    fig.savefig(io.BytesIO(), format="pdf")
    monkeypatch.undo()
    return seen


@pytest.mark.slow
def test_the_panels_of_a_vector_file_share_one_background(monkeypatch):
    fig = plot_rrmap_grid(PTS, categories=ROWS)  # 3 panels: the PDF is written twice
    shared = [im for im in drawn_images(fig, monkeypatch) if im.shape[:2] == (400, 400)]
    assert len(shared) == 3 and all(im is shared[0] for im in shared)
    # the colours of each panel as a plain image would give them
    monkeypatch.setattr(BackgroundImage, "make_image", AxesImage.make_image)
    plain = [im for im in drawn_images(fig, monkeypatch) if im.shape[:2] == (400, 400)]
    assert len({id(im) for im in plain}) == 3
    for im in plain:
        assert np.array_equal(im, shared[0])


@pytest.mark.slow
def test_other_colours_are_another_image(monkeypatch):
    fig = plot_rrmap_grid(PTS, categories=["movement"])
    fig.axes[1].get_images()[0].set_cmap("viridis")
    images = [im for im in drawn_images(fig, monkeypatch) if im.shape[:2] == (400, 400)]
    assert len(images) == 3 and images[0] is images[2] and images[1] is not images[0]
    assert not np.array_equal(images[0], images[1])


@pytest.mark.slow
@pytest.mark.skipif(not FORKSERVER, reason="workers are spawned here: slow, same code")
def test_workers_write_the_files_this_process_writes(tmp_path):
    formats = ("pdf", "png", "svg")
    with mpl.rc_context({"svg.hashsalt": "rrmap"}):  # the SVG's ids, here and in the workers
        kw = {"formats": formats, "dpi": 50, "categories": ROWS}
        # two raters: the files of the workers are compared with the files drawn here
        one = save_analysis_figures(SMALL, tmp_path / "one", jobs=1, **kw)
        two = save_analysis_figures(SMALL, tmp_path / "two", jobs=2, **kw)
    assert [p.name for p in one] == [p.name for p in two]
    for a, b in zip(one, two, strict=True):
        if a.suffix == ".png":
            assert np.array_equal(pixels(a), pixels(b)), a.name
        else:
            assert without_date(a.read_bytes()) == without_date(b.read_bytes()), a.name


@pytest.mark.slow
@pytest.mark.skipif(not FORKSERVER, reason="workers are spawned here: slow, same code")
def test_workers_draw_with_the_callers_rcparams(tmp_path):
    with mpl.rc_context({"figure.facecolor": "#ffe0e0", "savefig.facecolor": "auto"}):
        files = save_analysis_figures(
            SMALL, tmp_path, formats=("png",), dpi=30, jobs=2, categories=ROWS
        )
    assert len(files) == 4
    for path in files:
        assert tuple(pixels(path)[0, 0]) == (255, 224, 224), path.name


@pytest.mark.skipif(not FORKSERVER, reason="workers are spawned here: slow, same code")
def test_analyze_hands_the_points_to_the_workers_and_write_saves_their_figures(tmp_path):
    ratings = rrmap.datasets.load_example_ratings()
    with AnalysisFigures(formats=("png",), dpi=30, jobs=2, interactive=True) as figures:
        # no effects' bootstrap: the figures are checked, not the tables
        res = rrmap.analyze(ratings, by=["modality"], n_perm=99, n_boot=0, rng=1, figures=figures)
        assert figures.points is res.points  # drawing since the points were made
        written = res.write(tmp_path / "out", figures=figures)
    names = sorted(p.name for p in written if p.parent.name == "figures")
    assert names == ["agreement.png", "proportions.png", "rrmap_by_rater.png", "rrmap_grid.png"]
    here = save_analysis_figures(
        res.points, tmp_path / "here", categories=["modality"], formats=("png",), dpi=30, jobs=1
    )
    for path in here:
        assert np.array_equal(pixels(path), pixels(tmp_path / "out" / "figures" / path.name))
    page = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert "plotly" in page.lower()  # the interactive map a worker made


@pytest.mark.skipif(not FORKSERVER, reason="workers are spawned here: slow, same code")
def test_figures_of_a_dead_worker_are_drawn_here(tmp_path):
    with AnalysisFigures(formats=("png",), dpi=30, jobs=2) as figures:
        figures.draw(SMALL, categories=ROWS)
        figures._submitter.join()
        for process in list(figures._pool._processes.values()):
            os.kill(process.pid, signal.SIGKILL)
        files = figures.save(tmp_path)
    assert [f.name for f in files] == [
        "rrmap_by_rater.png",
        "rrmap_grid.png",
        "proportions.png",
        "agreement.png",
    ]
    assert all(f.stat().st_size > 1000 for f in files)


@pytest.mark.slow
@pytest.mark.skipif(not FORKSERVER, reason="workers are spawned here: slow, same code")
def test_a_process_handing_the_figures_over_never_imports_matplotlib(tmp_path):
    script = tmp_path / "hand_over.py"
    script.write_text(
        "import sys\n"
        "import rrmap\n"
        "from rrmap.plot import AnalysisFigures, check_figure_size\n"
        "def main():\n"
        "    pts = rrmap.points(rrmap.datasets.load_example_ratings())\n"
        "    with AnalysisFigures(formats=['png'], dpi=30, jobs=2) as figures:\n"
        "        files = figures.draw(pts, categories=['modality']).save(sys.argv[1])\n"
        "    print(len(files), 'matplotlib' in sys.modules)\n"
        "if __name__ == '__main__':\n"
        "    main()\n"
    )
    run = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "out")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert run.stdout.split() == ["4", "False"]


@pytest.mark.slow
def test_one_job_draws_here_and_leaves_pyplot_alone(tmp_path):
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    backend = mpl.get_backend()
    files = save_analysis_figures(
        SMALL, tmp_path, formats=("png",), dpi=30, jobs=1, categories=ROWS
    )
    assert len(files) == 4
    assert plt.get_fignums() == before and mpl.get_backend() == backend


@pytest.mark.skipif(not FORKSERVER, reason="workers are spawned here: slow, same code")
def test_closing_drops_the_figures_being_drawn():
    figures = AnalysisFigures(formats=("png",), dpi=300, jobs=2)
    figures.draw(PTS)
    figures._submitter.join()
    processes = list(figures._pool._processes.values())
    figures.close()
    for process in processes:
        process.join(timeout=30)
        assert not process.is_alive()


@pytest.mark.slow
def test_fixed_ticks_draw_what_the_locators_drew(tmp_path):
    from rrmap.plot._render import freeze_layout

    fig = plot_rrmap_grid(PTS, categories=["movement", "modality"])
    freeze_layout(fig)
    fixed = [
        (axis.get_majorticklocs().tolist(), [t.get_text() for t in axis.get_ticklabels()])
        for ax in fig.axes
        for axis in (ax.xaxis, ax.yaxis)
    ]
    again = plot_rrmap_grid(PTS, categories=["movement", "modality"])
    again.set_layout_engine(None)  # laid out, the locators and formatters kept
    again.canvas.draw()
    fig.canvas.draw()
    live = [
        (axis.get_majorticklocs().tolist(), [t.get_text() for t in axis.get_ticklabels()])
        for ax in again.axes
        for axis in (ax.xaxis, ax.yaxis)
    ]
    assert fixed == live
    a = save(fig, tmp_path / "fixed.png", dpi=60)
    b = save(again, tmp_path / "live.png", dpi=60)
    assert np.array_equal(pixels(a), pixels(b))


@pytest.mark.first_case_by_default
@pytest.mark.parametrize("draw", ["grid", "by_rater"])
def test_panels_drawn_off_screen_get_their_ticks_fixed_before_the_layout(draw, tmp_path):
    """The analysis figures skip locating ticks at every layout pass; the files are the
    pixels of the same figure drawn with live locators, which a user's figure gets back
    at the first zoom or pan (here: limits set to what they are)."""
    from matplotlib.ticker import FixedLocator, MaxNLocator

    from rrmap.plot import plot_rrmap_by_rater
    from rrmap.plot.base._sizing import off_screen
    from rrmap.plot.figures.panel import panel_record

    def make():
        if draw == "grid":
            return plot_rrmap_grid(PTS, categories=["modality"])
        return plot_rrmap_by_rater(PTS, "movement")

    with off_screen():
        fixed = make()
    live = make()
    panels = [ax for ax in live.axes if panel_record(ax) is not None]
    panels[-1].set_xlim(panels[-1].get_xlim())  # a move: the locators come back
    assert panels and all(
        isinstance(ax.xaxis.get_major_locator(), MaxNLocator) for ax in panels
    )  # a user's figure: ticks follow a change of limits
    assert all(
        isinstance(ax.xaxis.get_major_locator(), FixedLocator)
        and isinstance(ax.yaxis.get_major_locator(), FixedLocator)
        for ax in fixed.axes
        if panel_record(ax) is not None
    )
    a = save(fixed, tmp_path / "fixed.png", dpi=60)
    b = save(live, tmp_path / "live.png", dpi=60)
    assert np.array_equal(pixels(a), pixels(b))


def test_the_png_holds_the_drawn_pixels_and_the_dpi():
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from rrmap.plot._render import rgb_png

    fig = plot_rrmap_grid(PTS, categories=["modality"])
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    rgba = np.asarray(canvas.buffer_rgba())
    with Image.open(io.BytesIO(rgb_png(rgba[:, :, :3], 123))) as im:
        assert im.mode == "RGB" and round(im.info["dpi"][0]) == 123
        assert np.array_equal(np.asarray(im), rgba[:, :, :3])


@pytest.mark.slow
def test_the_garbage_collector_is_back_after_a_figure(tmp_path):
    import gc

    assert gc.isenabled()
    save_analysis_figures(SMALL, tmp_path, formats=("png",), dpi=20, jobs=1, categories=ROWS)
    assert gc.isenabled()
    gc.disable()
    try:  # a caller's choice is kept
        save_analysis_figures(SMALL, tmp_path, formats=("png",), dpi=20, jobs=1, categories=ROWS)
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.skipif(not FORKSERVER, reason="no forkserver here: the workers are spawned")
def test_only_the_workers_server_ends_without_tearing_down():
    """The server holds the caller's stdout and stderr: ending it with ``os._exit``
    closes a reader's pipe at once (its normal shutdown took about 0.3 s)."""
    from rrmap.plot import _server
    from rrmap.plot._workers import call, start_pool

    pool = start_pool(1)
    try:
        in_worker = pool.submit(call, "rrmap.plot._server:in_forkserver", None).result()
        frozen = pool.submit(call, "gc:get_freeze_count", None).result()
    finally:
        pool.shutdown()
    assert in_worker is True  # a worker is a child of the server
    assert frozen > 10_000  # the server's imports, frozen before the fork
    assert _server.in_forkserver() is False and _server.FAST_EXIT is False


@pytest.mark.skipif(not FORKSERVER, reason="no forkserver here: the workers are spawned")
def test_the_server_imports_without_collecting_garbage():
    """The collector ran about 290 times while the server imported matplotlib and pandas
    (0.1 s); it is off meanwhile, and on again in the workers."""
    from rrmap.plot._workers import call, start_pool

    pool = start_pool(1)
    try:
        stats = pool.submit(call, "gc:get_stats", None).result()
        enabled = pool.submit(call, "gc:isenabled", None).result()
    finally:
        pool.shutdown()
    assert enabled is True
    assert stats[0]["collections"] < 100, stats


@pytest.mark.slow
def test_the_file_names_are_known_before_the_figures_are_drawn(tmp_path):
    """``rrmap analyze`` writes results.json and report.md, which list the figures,
    while the workers draw them."""
    with AnalysisFigures(formats=("png", "pdf"), dpi=30, jobs=1) as figures:
        names = figures.draw(SMALL, categories=ROWS).file_names()
        files = figures.save(tmp_path)
    assert names == [p.name for p in files]
    assert names[:2] == ["rrmap_by_rater.png", "rrmap_by_rater.pdf"] and len(names) == 8


@pytest.mark.slow
@pytest.mark.skipif(not FORKSERVER, reason="workers are spawned here: slow, same code")
def test_the_tests_leave_the_figure_workers_their_cores(monkeypatch):
    """Beside two figure workers, n_jobs=-1 gives the tests the cores left (at least one);
    a positive count is the user's and is kept."""
    from joblib import cpu_count

    import rrmap.analysis.run as analysis

    seen = []
    run = analysis.run_designs

    def spy(*args, **kwargs):
        seen.append(kwargs["n_jobs"])
        return run(*args, **kwargs)

    monkeypatch.setattr(analysis, "run_designs", spy)
    for n_jobs in (-1, 3):
        with AnalysisFigures(formats=("png",), dpi=30, jobs=2) as figures:
            rrmap.analyze(PTS, by=[], n_perm=9, rng=0, n_jobs=n_jobs, figures=figures)
            assert figures.workers == 2
    assert seen == [max(1, cpu_count() - 2), 3]
    assert AnalysisFigures(jobs=1).workers == 0


def test_without_a_process_pool_the_figures_are_drawn_here(tmp_path, monkeypatch):
    """Where no pool can be made (no semaphores: NotImplementedError), draw() falls back to
    this process instead of failing the analysis."""
    from rrmap.plot import _workers

    def no_pool(*args, **kwargs):
        raise NotImplementedError("no semaphores here")

    monkeypatch.setattr(_workers, "start_pool", no_pool)
    monkeypatch.setattr(_workers, "start_server", lambda: object())
    with AnalysisFigures(formats=("png",), dpi=30, jobs=2) as figures:
        files = figures.draw(SMALL, categories=ROWS).save(tmp_path)
        assert figures.workers == 0
    assert [f.name for f in files] == figures.file_names() and len(files) == 4
