"""The figures of an analysis, drawn in worker processes while the caller works on.

``rrmap analyze`` makes an :class:`AnalysisFigures` before it reads the ratings: its
workers' server starts importing matplotlib at once (:mod:`rrmap.plot._workers`),
:func:`rrmap.analyze` hands it the points as soon as they are made, the workers draw
the figures (and the interactive map of ``report.html``) while the tests run, and
:meth:`AnalysisFigures.save` writes what they drew. This process then never imports
matplotlib. With ``jobs=1`` nothing runs meanwhile: :meth:`~AnalysisFigures.save`
draws the figures here, one after the other.
"""

from __future__ import annotations

import os
import threading
import warnings
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rrmap._util.atomic import write_bytes
from rrmap.errors import InputError
from rrmap.plot.base._widths import check_figure_size, min_grid_width, parse_width

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["AnalysisFigures", "map_html"]

#: Tasks in the order the workers take them: the longest first, so that two workers
#: finish together (seconds of CPU at 7 in, 300 dpi: about 1.4, 0.7, 0.55, 0.6 with plotly's
#: import, 0.2).
_ORDER = ("grid", "by_rater", "agreement", "interactive", "proportions")
#: The key of the interactive map among the tasks.
_MAP = "interactive"
#: What giving a task to the pool raises when no worker can start, its figure then drawn
#: in the caller: the worker would be a daemonic caller's child (multiprocessing's
#: ``AssertionError``), the system refuses a process or its pipes (``OSError``: EAGAIN,
#: ENOMEM, EMFILE; ``ConnectionError`` from a dead forkserver), the forkserver cannot be
#: handed the worker's descriptors (``ValueError``), or the pool is shut down or broken,
#: or the interpreter ends (``RuntimeError``, ``BrokenProcessPool``).
_NO_WORKER = (AssertionError, OSError, RuntimeError, ValueError)


def _n_workers(jobs: int | None, tasks: int) -> int:
    """Worker processes for *jobs* (None or 1: none; -1: one per core; -2: all but one...)
    and *tasks* tasks."""
    if jobs is None or jobs == 1:
        return 1
    if jobs < 0:
        from joblib import cpu_count

        jobs = max(1, cpu_count() + 1 + jobs)
    return max(1, min(jobs, tasks))


class AnalysisFigures:
    """The figures of an analysis (those of :func:`rrmap.plot.save_analysis_figures`),
    drawn in worker processes from the moment :meth:`draw` gives them the points.

    Make it before the work it should overlap (its workers' server imports
    matplotlib meanwhile), call :meth:`draw` as soon as the points are known,
    and :meth:`save` when the figures are wanted; use it as a context manager
    (or call :meth:`close`) so that the workers stop even when the work in
    between fails. :func:`rrmap.analyze` takes one (``figures=``) and
    :meth:`rrmap.analysis.AnalysisResult.write` writes its figures. In a script,
    keep its work under ``if __name__ == "__main__":``: the workers import the
    script, as every multiprocessing worker does.

    Parameters
    ----------
    formats : sequence of str, default ("pdf", "png")
        File formats.
    dpi : int, default 300
        Resolution of raster formats.
    width : float or str, optional
        Printed width, default 7 in.
    jobs : int, optional
        Worker processes (at most one per task); -1: one per core. Default 1:
        no worker, :meth:`save` draws the figures in this process.
    interactive : bool, default False
        Also make the interactive map of ``report.html``
        (:func:`rrmap.plot.interactive.html_fragment`; :meth:`map_html`).

    Examples
    --------
    >>> import rrmap, tempfile
    >>> from rrmap.plot.analysis_figures import AnalysisFigures
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> with AnalysisFigures(formats=["png"], dpi=30, jobs=2) as figures:
    ...     _ = figures.draw(pts)  # the workers draw from now on
    ...     files = figures.save(tempfile.mkdtemp())  # waits for them, writes the files
    >>> [f.name for f in files]
    ['rrmap_by_rater.png', 'rrmap_grid.png', 'proportions.png', 'agreement.png']
    """

    def __init__(
        self,
        *,
        formats: Sequence[str] = ("pdf", "png"),
        dpi: int = 300,
        width: float | str | None = None,
        jobs: int | None = None,
        interactive: bool = False,
    ) -> None:
        check_figure_size(parse_width(width, 7.0), dpi)
        self.formats = tuple(formats)
        self.dpi = dpi
        self.width = width
        self.interactive = interactive
        self._pool: ProcessPoolExecutor | None = None
        self._jobs = jobs
        self._context: Any = None  # the workers' multiprocessing context, once started
        self._workers = 0
        if jobs is not None and jobs != 1 and (os.cpu_count() or 1) > 1:
            from rrmap.plot._workers import start_server

            # the server's imports start now; how many workers is decided by draw(), with
            # joblib's count of the usable cores (joblib's import costs 0.12 s: not here)
            try:
                self._context = start_server()
            except (OSError, ValueError):  # no processes here: drawn in this process
                self._context = None
        self._points: pd.DataFrame | None = None
        self._plan: list[Any] = []
        self._futures: dict[str, Future[Any]] = {}
        self._submitter: threading.Thread | None = None
        self._failure: BaseException | None = None  # raised by _submit: raised again here

    def __enter__(self) -> AnalysisFigures:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def workers(self) -> int:
        """Worker processes drawing the figures (0 before :meth:`draw`, and when they are
        drawn in this process).

        Examples
        --------
        >>> AnalysisFigures(jobs=1).workers
        0
        """
        return self._workers

    @property
    def points(self) -> pd.DataFrame | None:
        """The points given to :meth:`draw` (None before)."""
        return self._points

    def close(self) -> None:
        """Stop the workers; figures still being drawn (the work in between failed or was
        interrupted) are dropped."""
        if self._submitter is not None:
            self._submitter.join()
        pool, self._pool = self._pool, None
        if pool is None:
            return
        busy = any(not f.done() for f in self._futures.values())
        processes = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        if busy:  # not left to finish a figure nobody will write (Ctrl-C waits for nothing)
            for process in processes:
                process.terminate()

    def draw(
        self,
        points: pd.DataFrame,
        *,
        color: str | None = None,
        rater: str = "expert",
        categories: Sequence[str] | None = None,
    ) -> AnalysisFigures:
        """Start drawing the figures of *points* (arguments as in
        :func:`~rrmap.plot.save_analysis_figures`); returns at once."""
        if self._points is not None:
            raise InputError("these figures are drawn already: make a new AnalysisFigures")
        self._plan = figure_plan(
            points,
            color=color,
            rater=rater,
            categories=categories,
            formats=self.formats,
            width=self.width,
            dpi=self.dpi,
        )
        self._points = points
        workers = _n_workers(self._jobs, len(self._plan) + self.interactive)
        if self._context is not None and workers > 1:
            from rrmap.plot._workers import start_pool

            try:
                self._pool = start_pool(workers, self._context)
                self._workers = workers
            except (OSError, ValueError, NotImplementedError):  # no process pool here (no
                self._pool = None  # semaphores...): the figures are drawn in this process
        if self._pool is not None:
            from rrmap.plot._workers import caller_settings

            # from a thread: the first task waits for the server's imports, this process not
            self._submitter = threading.Thread(
                target=self._submit, args=(caller_settings(),), name="rrmap-figures", daemon=True
            )
            self._submitter.start()
        return self

    def _submit(self, settings: Any) -> None:
        """Give the workers every task, the longest first."""
        from rrmap.plot._workers import block_interrupts, call

        block_interrupts()  # workers spawned from here (no forkserver) ignore Ctrl-C
        assert self._pool is not None
        rank = {kind: i for i, kind in enumerate(_ORDER)}
        tasks: list[tuple[int, Any]] = [(rank.get(job[1], len(rank)), job) for job in self._plan]
        if self.interactive:
            tasks.append((rank[_MAP], None))
        try:
            for _, job in sorted(tasks, key=lambda t: t[0]):  # stable: plan order within a kind
                if job is None:
                    task = (f"{__name__}:map_html", settings, self._points)
                    self._futures[_MAP] = self._pool.submit(call, *task)
                else:
                    files = "rrmap.plot._render:figure_files"
                    task = (files, settings, self._points, job, self.formats, self.dpi)
                    self._futures[job[0]] = self._pool.submit(call, *task)
        except _NO_WORKER:
            return  # what was not given to a worker is drawn here, by save()
        except BaseException as exc:  # raised in the caller, by save() or map_html()
            self._failure = exc

    def _submitted(self) -> None:
        """Wait until every task is given to the workers; raise what went wrong meanwhile
        (but a worker that could not start: its figures are drawn here)."""
        if self._submitter is not None:
            self._submitter.join()
        failure, self._failure = self._failure, None
        if failure is not None:
            raise failure

    def file_names(self) -> list[str]:
        """Names of the files :meth:`save` writes, in its order (known from :meth:`draw` on,
        before any figure is drawn).

        Returns
        -------
        list of str

        Examples
        --------
        >>> import rrmap
        >>> figures = AnalysisFigures(formats=["pdf"], jobs=1)
        >>> figures.draw(rrmap.points(rrmap.datasets.load_example_ratings())).file_names()
        ['rrmap_by_rater.pdf', 'rrmap_grid.pdf', 'proportions.pdf', 'agreement.pdf']
        """
        if self._points is None:
            raise InputError("no figures planned: call draw(points) first")
        return [f"{stem}.{fmt}" for stem, _, _ in self._plan for fmt in self.formats]

    def save(self, folder: str | Path, *, progress: bool = False) -> list[Path]:
        """Write the figures into *folder* (created if missing) as they are ready, drawing
        here those no worker drew; the files, figure by figure in the order of
        :func:`~rrmap.plot.save_analysis_figures`.

        Parameters
        ----------
        folder : str or Path
            Where to write them; existing files are replaced.
        progress : bool, default False
            A "figures" progress bar on stderr, one step per figure.

        Returns
        -------
        list of Path
        """
        if self._points is None:
            raise InputError("no figures to save: call draw(points) first")
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        written: dict[str, list[Path]] = {}
        caught: dict[tuple[str, type[Warning]], None] = {}
        for stem, (files, warned) in _with_bar(self._results(), len(self._plan), progress):
            written[stem] = [write_bytes(folder / name, data) for name, data in files]
            caught.update(dict.fromkeys(warned))
        for message, category in caught:  # the workers' warnings, told once here
            warnings.warn(message, category, stacklevel=3)
        return [path for stem, _, _ in self._plan for path in written[stem]]

    def _results(self) -> Iterator[tuple[str, Any]]:
        """(stem, files and warnings) of every figure: those drawn here first (meanwhile
        the workers draw theirs), then the workers' as they finish."""
        self._submitted()
        stems = {job[0]: job for job in self._plan}
        futures = {f: stem for stem, f in self._futures.items() if stem in stems}
        for stem, job in stems.items():
            if stem not in futures.values():
                yield stem, self._draw_here(job)
        for future in as_completed(futures):
            stem = futures[future]
            try:
                yield stem, future.result()
            except BrokenProcessPool:  # a worker died (killed, out of memory): drawn here
                yield stem, self._draw_here(stems[stem])

    def _draw_here(self, job: Any) -> Any:
        from rrmap.plot._render import figure_files  # imports matplotlib

        return figure_files(self._points, job, self.formats, self.dpi)

    def map_html(self) -> str | None:
        """The interactive map (:func:`rrmap.plot.interactive.html_fragment`) of the points
        given to :meth:`draw`; None without plotly (or without ``interactive=True``)."""
        if not self.interactive or self._points is None:
            return None
        self._submitted()
        future = self._futures.get(_MAP)
        if future is not None:
            try:
                return future.result()
            except BrokenProcessPool:
                pass
        return map_html(self._points)


def figure_plan(
    points: pd.DataFrame,
    *,
    color: str | None,
    rater: str,
    categories: Sequence[str] | None,
    formats: Sequence[str],
    width: float | str | None,
    dpi: int,
) -> list[tuple[str, str, dict[str, Any]]]:
    """The figures :func:`~rrmap.plot.save_analysis_figures` writes, in its order; a
    width or dpi too large is refused here, before anything is drawn."""
    from rrmap.limits import figure_problem  # past rrmap.limits: left out, not drawn

    if color is None:
        cats = points.attrs.get("rrmap", {}).get("categories") or []
        color = cats[0] if cats else None
    color = None if figure_problem(points, colours=[color]) else color  # too many options
    # every figure at the width asked for: the grid wraps its raters to fit it, and is
    # left out only where not even one column of panels fits
    grid_width = parse_width(width, 7.0)
    check_figure_size(grid_width, dpi)
    ps = any(f.lower() in ("eps", "ps") for f in formats)
    # no compressed images and no transparency in PostScript
    kw: dict[str, Any] = {"background": "contour", "alpha": 1.0} if ps else {}
    several = "query" in points.columns  # several query corpora: the generators compared
    by_rater = {"color": "query" if several else color, "rater": rater, "width": width, **kw}
    if several:  # the grid's first row is coloured by corpus, as the per-rater figure
        rows = list(categories) if categories is not None else _grid_rows(points, rater)
        categories = ["query", *(c for c in rows if c != "query")]
    plan: list[tuple[str, str, dict[str, Any]]] = [
        ("rrmap_by_rater", "by_rater", by_rater),
        (
            "rrmap_grid",
            "grid",
            {"categories": categories, "rater": rater, "width": grid_width, **kw},
        ),
        ("proportions", "proportions", {"width": width, **({"by": "query"} if several else {})}),
    ]
    if several:  # one panel per corpus, coloured by the first category
        plan.insert(1, ("rrmap_by_query", "by_rater", {**by_rater, "color": color,
                                                          "rater": "query"}))  # fmt: skip
    n, rows = points[rater].nunique(), categories or points.attrs.get("rrmap", {}).get("categories")
    left_out = set()
    too_narrow = grid_width + 1e-9 < min_grid_width(1)
    if too_narrow or figure_problem(points, n * len(rows or ()), categories or ()):
        left_out.add("rrmap_grid")  # not one column of panels fits the width, or more panels
    if figure_problem(points, n):  # than rrmap draws
        left_out.add("rrmap_by_rater")
    plan = [job for job in plan if job[0] not in left_out]
    if points[rater].nunique() >= 2:
        plan.append(("agreement", "agreement", {"width": width}))
    return plan


def _grid_rows(points: pd.DataFrame, rater: str) -> list[str]:
    """The grid's default rows (:func:`rrmap.plot.plot_rrmap_grid`'s categories)."""
    from rrmap.plot.figures.layouts import default_categories

    return default_categories(points, rater, 12)


def map_html(points: pd.DataFrame) -> str | None:
    """The interactive map of *points* (one panel per rater) as an HTML fragment, or
    ``None`` when plotly is not installed.

    Examples
    --------
    >>> import rrmap
    >>> page = map_html(rrmap.points(rrmap.datasets.load_example_ratings()))
    >>> page is None or page.startswith("<div")
    True
    """
    try:
        from rrmap.plot.interactive import html_fragment
    except ImportError:
        return None
    from rrmap.limits import figure_problem  # more panels than rrmap draws: no map

    if "expert" in points and figure_problem(points, points["expert"].nunique()):
        return None
    return html_fragment(points, facet="expert")


def _with_bar(items: Iterator[Any], total: int, show: bool) -> Iterator[Any]:
    """*items* as they come, advancing a "figures" bar on stderr (off when stderr is not a
    terminal, except in Jupyter)."""
    if not show:
        yield from items
        return
    from rrmap._util.progress import progress_bar

    with progress_bar(total, "figures", "figure") as bar:
        for item in items:
            bar.update(1)
            bar.refresh()  # each figure shown, however soon the next one comes
            yield item
