"""Worker processes that draw figures, forked from a server that imported matplotlib once.

A worker started with ``spawn`` (as joblib's loky workers are, and every worker on Windows)
imports numpy, pandas, matplotlib and rrmap before it draws anything: about 1.5 s of
CPU per worker, which on two cores ate what drawing in parallel saved. Here the
workers are forked from multiprocessing's *forkserver*, a process that imports those
modules once (:data:`DRAWING_MODULES`, through :data:`PRELOAD`) as soon as
:func:`start_server` starts it: begun before the caller's own work (reading the
ratings, running the tests), its imports overlap that work, and each worker starts
drawing at once. Where the platform has no
forkserver, the workers are spawned.

A task runs with the rcParams and the fonts of the process that gave it
(:func:`caller_settings`, applied by :func:`call`): a figure drawn in a worker is the
figure the caller would have drawn itself.
"""

from __future__ import annotations

import multiprocessing as mp
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import Any

__all__: list[str] = []

#: Modules the server imports once for all its workers: those every figure needs. Not
#: plotly (0.3 s): only the worker that makes the interactive map imports it, and the
#: workers start drawing that much earlier.
DRAWING_MODULES: list[str] = [
    "matplotlib.backends.backend_agg",
    "matplotlib.backends.backend_pdf",
    "rrmap.plot.export",
    "rrmap.plot.figures.layouts",
    "rrmap.plot.figures.summaries",
    "pypdfium2",  # the PNGs: rasterized from the PDFs
]
#: What the server is told to import: :mod:`rrmap.plot._server`, which imports
#: :data:`DRAWING_MODULES` without collecting garbage, freezes them, and makes the
#: server end without tearing them down.
PRELOAD: list[str] = ["rrmap.plot._server"]
#: rcParams a worker keeps its own: it draws off screen.
_OWN = frozenset({"backend", "backend_fallback", "interactive"})

#: Settings of the caller: (rcParams, font files), or None for matplotlib's defaults.
Settings = tuple[dict[str, Any], list[str]] | None


def start_server() -> Any:
    """Where there is a forkserver, start it now and have it import :data:`PRELOAD` (this
    call does not wait for the imports); the multiprocessing context of the workers.

    Cheap on purpose (nothing heavy is imported here): ``rrmap analyze`` calls it
    before its own imports. Raises ``OSError`` (or ``ValueError``) where processes
    cannot be started.
    """
    if "forkserver" in mp.get_all_start_methods():
        ctx = mp.get_context("forkserver")
        # no effect if this process already runs a forkserver: its workers then import
        # the modules themselves, when a task needs them
        ctx.set_forkserver_preload(PRELOAD)
        from multiprocessing import forkserver

        forkserver.ensure_running()
        return ctx
    return mp.get_context("spawn")


def start_pool(workers: int, context: Any | None = None) -> ProcessPoolExecutor:
    """A pool of *workers* processes of *context* (default: :func:`start_server`'s); they
    start with the first task given to them.

    Raises ``OSError`` (or ``ValueError``) where processes cannot be started.
    """
    return ProcessPoolExecutor(max_workers=workers, mp_context=context or start_server())


def caller_settings() -> Settings:
    """This process's rcParams and font files, for :func:`call` in a worker; None while
    matplotlib is not imported here (its defaults are then the worker's: the same
    matplotlibrc, read from the same folder)."""
    if "matplotlib" not in sys.modules:
        return None
    import matplotlib as mpl

    rc = {k: v for k, v in mpl.rcParams.items() if k not in _OWN}
    manager = sys.modules.get("matplotlib.font_manager")
    fonts = sorted({e.fname for e in manager.fontManager.ttflist}) if manager else []
    return rc, fonts


def call(target: str, settings: Settings, *args: Any) -> Any:
    """``module.function(*args)`` for *target* ``"module:function"``, in a worker, with the
    caller's rcParams and fonts. The function travels by name: the caller need not import
    its module (``rrmap.plot.export`` imports matplotlib)."""
    import importlib

    import matplotlib as mpl

    module, name = target.split(":")
    func = getattr(importlib.import_module(module), name)
    if settings is None:
        return func(*args)
    rc, fonts = settings
    _add_fonts(fonts)
    with mpl.rc_context(rc):
        return func(*args)


def _add_fonts(paths: list[str]) -> None:
    """Register the font files the caller added at run time (``fontManager.addfont``)."""
    from matplotlib import font_manager

    known = {e.fname for e in font_manager.fontManager.ttflist}
    for path in paths:
        if path not in known:
            try:
                font_manager.fontManager.addfont(path)
            except (OSError, RuntimeError, ValueError):  # gone since: drawn with a fallback
                continue
